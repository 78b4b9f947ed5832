"""What a question says besides its words: the fact it asks, and whether its wording gives the answer away.

- `same_facts`: a Millionaire question and a money-drop card of one language that ask one fact (the near-duplicate
  check compares questions within one format and misses "Welche dieser Sendungen läuft seit 1970 im Ersten?" beside
  "Wie heißt die Krimireihe, die seit 1970 sonntags im Ersten läuft?"). Two entries ask the same fact when their
  answers agree (the same words, one the other's with more, "Picasso" and "Pablo Picasso"; or each answer is in the
  other's question: "Wer verbesserte die Dampfmaschine?" and "Was verbesserte James Watt?") and the words of their
  questions, answers and explanations overlap by `SAME_FACT` or more, each word weighted by how rare it is among
  the language's entries (a shared "Blechtrommel" says more than a shared "schrieb").
- `giveaway`: a question that contains a word of its right option, or the word's stem, where no wrong option has
  it: "a tomb built for King Mausolus" (the Mausoleum), "Sam Walton" (Walmart), "la plus proche" (Proxima). From
  level `FIRST_HIDDEN_LEVEL` on and on every card: the first questions of the show are meant to be guessed
  ("Zu wem geht man, wenn man Zahnschmerzen hat?").

Words are compared folded: case, accents and punctuation set aside, each cut to its first `STEM` letters.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from voicemaster.questions.model import Entry, Format

SAME_FACT = 0.38
"""The weighted overlap of two entries' words (0: none, 1: the same words) from which they ask one fact. In the
shipped banks before issue 49, 26 pairs scored 0.38 to 0.94, each one fact asked twice; below them came one more
(Arminius, 0.36), then different facts with the same answer (0.35: the sets that win a volleyball match beside
those that win a men's Grand Slam match)."""
STEM = 6
"""Letters of a word compared for the same fact: "Ordnungszahl" and "Ordnungszahlen", "malte" and "malten"."""
FIRST_HIDDEN_LEVEL = 6
"""The first Millionaire level whose question must not give its answer away (levels 1 to 5 may, as in the show)."""
SHORTEST_ECHO = 4
"""Letters a word must have to count as repeated whole: "Steve" (Steve Jobs), "Volt" (Volta), not "Eis"."""
LONG_WORD = 6
"""Two words this long or longer that begin alike for half the shorter one (three letters at least) echo each
other: "Walton" and "Walmart", "proche" and "Proxima", "Nescafé" and "Nestlé"."""
STOP = {
    "de": "aber aus auch dass dem den der des die dies diese diesem diesen dieser dieses durch eine einem einen einer "
    "eines erste ersten erster erstes etwa fur gibt grosse grossen grosser grosses grosste grossten hat hatte "
    "heisst hiess ihre ihren ist mit nach nennt nennen sich sind stammt steht uber und viele vielen vom von war "
    "waren was welche welchem welchen welcher welches wenn wer werden wie wird wurde wurden zum zur",
    "en": "about also and are been call called does each first from had has have into its many most much name named "
    "nicknamed that the their there these this those was were what when where which while who whom whose with",
    "fr": "avec dans des elle est etait etaient fait grand grande lequel laquelle les leur leurs lesquels pour "
    "premier premiere quel quelle quelles quels qui sont sous sur une",
}
"""Words of each language too common in questions to tell one fact from another or to give an answer away: how a
question asks, and the ordinals and sizes an answer's name may repeat ("der erste Kaiser", "Wilhelm der Erste")."""


def folded_words(text: str) -> list[str]:
    """The words of `text`, folded: lower case, accents dropped ("Büffel" is "buffel"), digits kept as words."""
    return _folded(text)


@lru_cache(maxsize=1 << 15)
def _folded(text: str) -> list[str]:
    plain = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    plain = "".join(c for c in plain if not unicodedata.combining(c)).replace("ß", "ss")
    return re.findall(r"[^\W_]+", plain)


def _content(text: str, language: str) -> list[str]:
    stop = _stop(language)
    return [word for word in folded_words(text) if word not in stop and (len(word) >= 3 or word.isdigit())]


@lru_cache(maxsize=8)
def _stop(language: str) -> frozenset[str]:
    return frozenset(STOP.get(language, "").split())


def _stems(text: str, language: str) -> frozenset[str]:
    return frozenset(word[:STEM] for word in _content(text, language))


@dataclass(frozen=True)
class SameFact:
    later: int
    """Which of the entries checked asks again what `earlier` asks (by index among them)."""
    earlier: int
    """The entry it repeats (by index among the bank and the entries: `same_facts`)."""
    score: float


def same_facts(entries: Sequence[Entry], bank: Sequence[Entry] = ()) -> list[SameFact]:
    """Each entry among `entries` that asks, in the other format, a fact asked before it in `bank` (the bank they
    join) or among `entries`; `earlier` indexes `[*bank, *entries]`, `later` indexes `entries`."""
    everything = [*bank, *entries]
    found: dict[int, SameFact] = {}
    for language in sorted({entry.language for entry in entries}):
        indexes = [i for i, entry in enumerate(everything) if entry.language == language]
        facts = {i: _fact_words(everything[i]) for i in indexes}
        rarity = _rarity(facts.values())
        for first, second in _agreeing_pairs(everything, indexes, language):
            later, earlier = max(first, second), min(first, second)
            if later < len(bank) or later - len(bank) in found:
                continue
            score = _overlap(facts[first], facts[second], rarity)
            if score >= SAME_FACT:
                found[later - len(bank)] = SameFact(later - len(bank), earlier, score)
    return [found[index] for index in sorted(found)]


def _fact_words(entry: Entry) -> frozenset[str]:
    return frozenset(
        _stems(entry.question, entry.language)
        | _stems(entry.answer, entry.language)
        | _stems(entry.explanation, entry.language)
    )


def _rarity(facts: Collection[frozenset[str]]) -> dict[str, float]:
    """Each word's weight: the log of how many entries there are per entry that has it."""
    counted = Counter(word for words in facts for word in words)
    return {word: math.log((len(facts) + 1) / count) for word, count in counted.items()}


def _overlap(first: frozenset[str], second: frozenset[str], rarity: dict[str, float]) -> float:
    shared = sum(rarity[word] for word in first & second)
    either = sum(rarity[word] for word in first | second)
    return shared / either if either else 0.0


def _agreeing_pairs(everything: Sequence[Entry], indexes: Sequence[int], language: str) -> Iterator[tuple[int, int]]:
    """(Millionaire, card) pairs of one language whose answers agree (see the module's docstring), each once. Words
    are compared whole: "Steigbügel" is not "Steigbügelmuskel", nor "Bundestag" a word of "Bundespräsidenten"."""
    answers = {i: frozenset(_content(everything[i].answer, language)) for i in indexes}
    questions = {i: frozenset(_content(everything[i].question, language)) for i in indexes}
    by_word: dict[str, list[int]] = defaultdict(list)
    for i in indexes:
        if everything[i].format is Format.MILLIONAIRE:
            for word in answers[i]:
                by_word[word].append(i)
    for card in (i for i in indexes if everything[i].format is Format.MONEYDROP and answers[i]):
        candidates = {m for word in answers[card] | questions[card] for m in by_word.get(word, ())}
        for question in sorted(candidates):
            mine, theirs = answers[card], answers[question]
            if mine <= theirs or theirs <= mine or (mine <= questions[question] and theirs <= questions[card]):
                yield question, card


def giveaway(entry: Entry) -> str | None:
    """The words by which the question gives its right option away ("'Mausolus' in the question, 'Mausoleum' in
    the answer"), or None; questions of the first levels are let be (`FIRST_HIDDEN_LEVEL`)."""
    if entry.level is not None and entry.level < FIRST_HIDDEN_LEVEL:
        return None
    language = entry.language
    asked = _content(entry.question, language)
    shared = frozenset.intersection(*(frozenset(_content(option, language)) for option in entry.options))
    if all(_named(option, asked, language, shared) for option in entry.options):
        return None  # a choice between the options it names: "through air or through water?"
    wrong = [word for option in entry.options if option != entry.answer for word in _content(option, language)]
    for right in _content(entry.answer, language):
        for word in asked:
            echo = _echo(right, word)
            if echo and not any(_common_prefix(other, word) >= echo for other in wrong):
                return f"{_written(entry.question, word)!r} in the question gives away the answer {entry.answer!r}"
    return None


def _written(text: str, folded: str) -> str:
    """The word of `text` as written whose folded form is `folded`."""
    return next((word for word in re.findall(r"[^\W_]+", text) if folded_words(word) == [folded]), folded)


def _named(option: str, asked: list[str], language: str, shared: frozenset[str]) -> bool:
    """Whether the question names `option` by a word of its own (not one every option has: "la pâte")."""
    own = [word for word in _content(option, language) if word not in shared]
    return any(word in asked or any(_echo(word, other) for other in asked) for word in own)


def _echo(right: str, asked: str) -> int:
    """How many first letters `asked` shares with `right` when it repeats it (whole, as the start of the other, or
    as the stem of two long words), else 0."""
    common = _common_prefix(right, asked)
    shorter = min(len(right), len(asked))
    if common >= SHORTEST_ECHO and common == shorter:
        return common
    if common >= 3 and shorter >= LONG_WORD and 2 * common >= shorter:
        return common
    return 0


def _common_prefix(first: str, second: str) -> int:
    length = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        length += 1
    return length
