"""Checks on loaded entries, each problem named by file, entry and field.

Two questions repeat each other when they have the same id, or ask the same thing: the same right answer and a
similar text. Only questions with the same answer can be near-duplicates, so the comparison runs within those
blocks: a bank of 20 000 questions is checked in a second, where comparing every pair took minutes.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from voicemaster.questions.facts import giveaway, same_facts
from voicemaster.questions.model import Entry, Format, Problem
from voicemaster.questions.readability import reading_problems
from voicemaster.questions.spoken import heard_form, said_text, spoken_form, unspoken
from voicemaster.speakable import speech_problem

OPTION_COUNTS = {Format.MILLIONAIRE: (4,), Format.MONEYDROP: (2, 3, 4)}
NEAR_DUPLICATE = 92
"""rapidfuzz token-set ratio from which two questions with the same answer count as the same question: it sees
through added words ("durch die Stadt Wien") but not through a changed subject ("Zitrone" and "Banane")."""
MOST_WORDS = {"category": 6, "question": 60, "explanation": 80, "option": 12}
"""The longest text of each kind that a game reads aloud and a player keeps in mind: the shipped packs' longest
are 3, 24, 28 and 5 words. An option of 60 words cannot be said back as an answer, nor heard as one."""
READ_SECONDS = 12.0
"""The longest the words of a question and its options may take to say: a player keeps all of them in mind. The
letters and the pauses between the lines come on top, the same for every question of a format."""
SECONDS_PER_CHARACTER = {"de": 0.064, "en": 0.054, "fr": 0.050}
"""How fast each language's default voice says a question's words: fitted, apart from each line's own time, on a
sample of the bank read as a game reads it (`scripts/reading_time.py`; the figures are in docs/reading-time.md)."""
BLOCK = 2000
"""Questions compared at once within one answer's block: rapidfuzz's cdist holds BLOCK x block-size scores."""


def read_characters(entry: Entry) -> int:
    """The characters a game reads for an entry, its question and its options, with years as words: "1945" is
    read "neunzehnhundertfünfundvierzig"."""
    return sum(len(said_text(text, entry.language)) for text in (entry.question, *entry.options))


def reading_seconds(entry: Entry) -> float:
    """About how long the default voice of the entry's language takes to say its question's and options' words."""
    return SECONDS_PER_CHARACTER.get(entry.language, max(SECONDS_PER_CHARACTER.values())) * read_characters(entry)


def validate(entries: Iterable[Entry]) -> list[Problem]:
    entries = list(entries)
    problems = [p for entry in entries for p in check_entry(entry)]
    problems += [repeat.problem for repeat in repeats(entries)]
    problems += hints_at_odds(entries)
    return problems


def hints_at_odds(entries: Iterable[Entry]) -> list[Problem]:
    """Hints (`pronounce`) that say one word of a language two ways: the voice says a hinted word so wherever the
    quizmaster says it (`questions.spoken.lexicon`), so two entries must agree."""
    first: dict[tuple[str, str], tuple[str, Entry]] = {}
    problems = []
    for entry in entries:
        for word, said in entry.pronounce:
            how, where = first.setdefault((entry.language, word), (said, entry))
            if how != said:
                message = f"{word!r} is said {said!r} here but {how!r} in {where.id}: the voice says it one way"
                problems.append(_problem(entry, "pronounce", message))
    return problems


def check_entry(entry: Entry) -> list[Problem]:
    problems = []

    def wrong(field: str, message: str) -> None:
        assert entry.path is not None
        problems.append(Problem(entry.path, entry.id, field, message))

    allowed = OPTION_COUNTS[entry.format]
    if len(entry.options) not in allowed:
        wrong("options", f"expected {' or '.join(map(str, allowed))} options, got {len(entry.options)}")
    folded = Counter(spoken_form(o) for o in entry.options)
    for option, count in folded.items():
        if count > 1:
            wrong("options", f"the option {option!r} appears {count} times")
    heard: dict[str, str] = {}
    for option in entry.options:
        form = heard_form(option, entry.language)
        other = heard.setdefault(form, option)
        if other != option and spoken_form(other) != spoken_form(option):
            wrong("options", f"{other!r} and {option!r} sound the same read aloud ({form!r})")
    if any(unspoken(o) for o in entry.options):
        wrong("options", "an option is empty (nothing to read aloud)")
    if entry.answer not in entry.options:
        wrong("answer", f"{entry.answer!r} is not one of the options")
    spoken = {"question": entry.question, "explanation": entry.explanation, "category": entry.category}
    spoken |= {f"options[{i}]": option for i, option in enumerate(entry.options)}
    for field, text in spoken.items():
        kind = "option" if field.startswith("options") else field
        words = len(text.split())
        if words > MOST_WORDS[kind]:
            wrong(field, f"too long to read aloud in a game: {words} words (at most {MOST_WORDS[kind]})")
    for field, text in spoken.items():
        problem = speech_problem(text) if not unspoken(text) else None  # no words at all: said above, or allowed
        if problem is not None:
            wrong(field, f"cannot be read aloud: {problem}")
    given_away = giveaway(entry)
    if given_away is not None:
        wrong("question", given_away)
    seconds = reading_seconds(entry)
    if seconds > READ_SECONDS:
        wrong("question", f"too long to read aloud: with its options about {seconds:.1f} seconds (at most 12)")
    hinted = {word for word, _ in entry.pronounce}
    for field, text in spoken.items():
        for word in hinted:
            text = text.replace(word, "")
        for message in reading_problems(text, entry.language):
            wrong(field, message)
    return problems


@dataclass(frozen=True)
class Repeat:
    index: int
    """Which of the entries checked repeats one before it."""
    problem: Problem
    joined: bool
    """True if what it repeats is in the bank it joins, False if it is earlier among the entries checked."""


def repeats(entries: Sequence[Entry], earlier: Sequence[Entry] = ()) -> list[Repeat]:
    """The entries (by index) that repeat one before them, in `earlier` (the bank they join) or in `entries`
    itself: the same id, a near-duplicate question, or the same fact asked in the other format (`facts.py`). The
    first of each is kept; each later one is named."""
    everything = [*earlier, *entries]
    found: dict[int, Repeat] = {}
    seen: dict[str, int] = {}
    for position, entry in enumerate(everything):
        first = seen.setdefault(entry.id, position)
        if first != position and position >= len(earlier):
            problem = _problem(entry, "id", f"already used in {everything[first].path}")
            found[position] = Repeat(position - len(earlier), problem, first < len(earlier))
    blocks: dict[tuple[str, Format, str], list[int]] = defaultdict(list)
    for position, entry in enumerate(everything):
        blocks[entry.language, entry.format, spoken_form(entry.answer)].append(position)
    for block in blocks.values():
        if len(block) < 2 or block[-1] < len(earlier):
            continue
        texts = [spoken_form(everything[p].question) for p in block]
        for later, first in _similar_pairs(texts):
            position = block[later]
            if position >= len(earlier) and position not in found:
                original = everything[block[first]]
                problem = _problem(
                    everything[position], "question", f"near-duplicate of {original.id} ({original.path})"
                )
                found[position] = Repeat(position - len(earlier), problem, block[first] < len(earlier))
    for fact in same_facts(entries, earlier):
        position = len(earlier) + fact.later
        if position not in found:
            original = everything[fact.earlier]
            message = f"asks the fact of {original.id} ({original.path}) again, in the other format"
            found[position] = Repeat(
                fact.later, _problem(everything[position], "question", message), fact.earlier < len(earlier)
            )
    return [found[position] for position in sorted(found)]


def _similar_pairs(texts: list[str]) -> list[tuple[int, int]]:
    """(later, first) for each text that is a near-duplicate of an earlier one, with the first such."""
    pairs = []
    for start in range(0, len(texts), BLOCK):
        rows = texts[start : start + BLOCK]
        scores = process.cdist(
            rows, texts[: start + len(rows)], scorer=fuzz.token_set_ratio, score_cutoff=NEAR_DUPLICATE, dtype="uint8"
        )
        for offset in range(len(rows)):
            later = start + offset
            similar = scores[offset, :later].nonzero()[0]
            if len(similar):
                pairs.append((later, int(similar[0])))
    return pairs


def _problem(entry: Entry, field: str, message: str) -> Problem:
    assert entry.path is not None
    return Problem(entry.path, entry.id, field, message)
