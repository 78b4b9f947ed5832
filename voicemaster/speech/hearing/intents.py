"""From words to meaning: a transcript matched against the phrases of its listening context.

The rule that keeps the game safe: an utterance means something only when it is close to one whole phrase and
clearly closer to it than to any phrase of another meaning, or when it names exactly one meaning and every other word
in it is a carrier word ("ich bin mir nicht sicher, aber ich sage B"). Anything else is `unknown`, and the quizmaster
asks again. Background talk that merely contains a letter or a "ja" never matches a whole phrase, and it has words
of its own ("Radio", "fahren", "Jahr") that no answer is carried by. A yes is only ever a whole phrase: it locks an
answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from voicemaster.dialogue.meaning import Context, ContextName, Intent
from voicemaster.rules.letters import Letter
from voicemaster.speech.hearing.grammar import grammar
from voicemaster.speech.hearing.normal_form import Normalized, Reading, normalize, strip_filler
from voicemaster.speech.hearing.phrases import (
    COMMANDS,
    CONTEXTS_KEPT,
    JOKERS,
    START_COMMANDS,
    HearPhrases,
    Phrase,
    carrier_words,
    option_forms,
)

SIMILARITY = 85
"""How close (in per cent of its letters) an utterance must be to a phrase: a slip of one letter in seven passes."""
MARGIN = 2
"""How many more edits it must take to reach any phrase that means something else."""
FUZZY_FROM = 6
"""Shorter utterances must match exactly: one letter makes "wie" into "Wien" or "ja" into "da"."""

WORDS_SCORE = 0.8
"""The closeness of an utterance understood by its words: below a whole phrase said exactly."""

EUROS_FROM = 1000
"""A number of money said without a unit is bundles below this, euros from it on."""


@dataclass(frozen=True)
class Understanding:
    intent: Intent
    value: str | None
    score: float
    """0-1: how closely the words matched."""


UNKNOWN = Understanding(Intent.UNKNOWN, None, 0.0)


def understand(text: str, context: Context, phrases: HearPhrases) -> Understanding:
    """What words as written mean (a transcript, a simulated player's line): normalized here, once."""
    return understand_reading(Reading.of(text, phrases.language), context, phrases)


def understand_reading(reading: Reading, context: Context, phrases: HearPhrases) -> Understanding:
    # A placement read back is confirmed in the confirm context, where a yes is heard best, and may be corrected there.
    if context.name in (ContextName.NUMBER, ContextName.CONFIRM):
        placement = parse_placement(reading, phrases)
        if placement is not None:
            return Understanding(Intent.PLACEMENT, placement, 1.0)
    said = reading.words
    query = strip_filler(said, phrases.filler)
    if not query:
        return UNKNOWN
    if context.name is ContextName.NAME and not context.names:
        meant = _phrase(said, query, context, phrases)  # a command first: "Hilfe" is not a name
        return meant if meant is not UNKNOWN else free_name(query, phrases)
    meant = _phrase(said, query, context, phrases)
    if meant is UNKNOWN and context.name is ContextName.NAME:
        meant = near_name(query, context.names, phrases)
    return meant if meant is not UNKNOWN else by_words(query, context, phrases)


def _phrase(said: Normalized, query: Normalized, context: Context, phrases: HearPhrases) -> Understanding:
    choices, texts = _compared(context.asked, phrases)
    # Said exactly: phrases never share a text, and "ich nehme B" is one letter away from "ich nehme C". A phrase
    # may end in a filler word ("wie bitte"), so the words as said are tried too. In the grammar's order.
    exact = [choices[place] for place in sorted({*_places(texts, said), *_places(texts, query)})]
    if len({(phrase.intent, phrase.value) for phrase in exact}) > 1:
        return UNKNOWN  # an option's text that is another letter's name ("De" as option B): it names both
    if exact:
        return Understanding(exact[0].intent, exact[0].value, 1.0)
    if len(query) < FUZZY_FROM:
        return UNKNOWN
    # Closeness counts in edits, not in a share of the whole: "ich nehme pavis" is one edit from "ich nehme
    # paris" and four from "ich nehme a", though both share "ich nehme".
    allowed = int(len(query) * (1 - SIMILARITY / 100))
    nearest: dict[tuple[Intent, str | None], int] = {}
    for _, edits, index in process.extract(
        query,
        texts,
        scorer=Levenshtein.distance,
        limit=None,
        score_cutoff=allowed + MARGIN,
    ):
        key = (choices[index].intent, choices[index].value)
        nearest[key] = min(edits, nearest.get(key, edits))
    ranked = sorted(nearest.items(), key=lambda item: item[1])
    if not ranked or ranked[0][1] > allowed:
        return UNKNOWN
    (intent, value), edits = ranked[0]
    if len(ranked) > 1 and ranked[1][1] - edits < MARGIN:
        return UNKNOWN
    return Understanding(intent, value, round(1 - edits / len(query), 3))


@lru_cache(maxsize=CONTEXTS_KEPT)
def _compared(context: Context, phrases: HearPhrases) -> tuple[Sequence[Phrase], list[str]]:
    """The context's grammar and its texts, kept for the utterances heard in it."""
    choices = grammar(context, phrases)
    return choices, [phrase.text for phrase in choices]


def _places(texts: list[str], text: str) -> list[int]:
    """Where `text` stands in `texts`: found by `list.index`, which compares in C, not by a loop in Python."""
    found: list[int] = []
    while True:
        try:
            found.append(texts.index(text, found[-1] + 1 if found else 0))
        except ValueError:
            return found


def by_words(query: Normalized, context: Context, phrases: HearPhrases) -> Understanding:
    """The one meaning named in an utterance whose other words all are carrier words, or `unknown`.

    An answer right after a negation is taken back ("nicht A, ich nehme C"). A letter that is also a carrier word
    (English "a", French "a" in "il y a") counts only when nothing else is named.
    """
    tokens = _spelled(tuple(query.split()), phrases)
    if len(tokens) > MOST_WORDS:
        return UNKNOWN
    readings = _readings(tokens, context, phrases)
    # The readings that take the most words as named things: "la C" is the answer C, not "la" and a carrier "c".
    most = max((covered for _, covered in readings), default=0)
    meanings = {meaning for named, covered in readings if covered == most if (meaning := _one_meaning(named))}
    if len(meanings) != 1:
        return UNKNOWN
    ((intent, value),) = meanings
    return Understanding(intent, value, WORDS_SCORE)


def _spelled(tokens: tuple[str, ...], phrases: HearPhrases) -> tuple[str, ...]:
    """A letter spelled with any word that starts with it is that letter: "B wie Bruno" is "B" as much as "B wie
    Berta", whose spelling the phrase file lists."""
    out: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        for spelling in phrases.words.spelling:
            after = index + 1 + len(spelling)
            if (
                token in LETTER_WORDS
                and tokens[index + 1 : after] == spelling
                and after < len(tokens)
                and tokens[after].startswith(token)
            ):
                index = after
                break
        out.append(token)
        index += 1
    return tuple(out)


LETTER_WORDS = frozenset(letter.value.lower() for letter in Letter)

MOST_WORDS = 20
"""A longer utterance is no command, however small its words."""

Named = frozenset[tuple[Intent, str | None, bool]]
"""What one reading of an utterance names: intent, value, and whether the words were a weak (carrier-like) letter."""


def _readings(tokens: tuple[str, ...], context: Context, phrases: HearPhrases) -> set[tuple[Named, int]]:
    """Every way to read the words as named meanings between carrier words ("je change d'avis" is "je" + "change
    d'avis", not "je change" + an unknown "d'avis"), each with how many words it takes as named. Worked out from the
    end, each position once: a word that is both a letter and a carrier doubles the readings, not the work."""
    after: list[set[tuple[Named, int]]] = [set() for _ in tokens] + [{(frozenset(), 0)}]
    for index in reversed(range(len(tokens))):
        negated_before = index > 0 and tokens[index - 1] in phrases.words.negation
        for span, intent, value in _spans(context.asked, phrases):
            if tokens[index : index + len(span)] == span:
                negated = negated_before or _negated_after(tokens, index + len(span), intent, phrases)
                weak = len(span) == 1 and span[0] in _carriers(phrases)
                this: Named = frozenset() if negated else frozenset({(intent, value, weak)})
                after[index] |= {(this | named, covered + len(span)) for named, covered in after[index + len(span)]}
        if tokens[index] in _carriers(phrases):
            after[index] |= after[index + 1]
    return after[0]


COMMAND_INTENTS = frozenset(Intent(command) for command in COMMANDS)


def _negated_after(tokens: tuple[str, ...], end: int, intent: Intent, phrases: HearPhrases) -> bool:
    """Whether a command is taken back by the word after it ("je continue pas"). Never an answer: in "la B, pas la
    C" the "pas" belongs to the C, and taking the B back would leave the C understood."""
    return intent in COMMAND_INTENTS and end < len(tokens) and tokens[end] in phrases.words.negation_after


def _one_meaning(named: Named) -> tuple[Intent, str | None] | None:
    strong = {(intent, value) for intent, value, weak in named if not weak}
    meanings = strong or {(intent, value) for intent, value, _ in named}
    return next(iter(meanings)) if len(meanings) == 1 else None


def _carriers(phrases: HearPhrases) -> frozenset[str]:
    return carrier_words(phrases)


@lru_cache(maxsize=CONTEXTS_KEPT)
def _spans(context: Context, phrases: HearPhrases) -> tuple[tuple[tuple[str, ...], Intent, str | None], ...]:
    """What can be named in this context, as word sequences, longest first so that "b wie berta" beats "b"."""
    language, keywords = phrases.language, phrases.words.keywords
    found: list[tuple[str, Intent, str | None]] = []
    if context.name is ContextName.ANSWER:
        letters = Letter.first(len(context.options) or 4)
        found += [(form, Intent.ANSWER, letter.value) for letter in letters for form in phrases.letters[letter]]
        named = zip(letters, option_forms(context.options, phrases), strict=False)
        found += [(form, Intent.ANSWER, letter.value) for letter, forms in named for form in forms]
        found += [(word, Intent.ANSWER, letter.value) for letter, word in _option_words(context, phrases)]
        found += [(last, Intent.ANSWER, letters[-1].value) for last in phrases.words.last]
        found += [(text, Intent.JOKER, joker) for joker in JOKERS for text in keywords[joker]]
    if context.name is ContextName.CONFIRM:
        found += [(text, Intent.NO, None) for text in keywords["no"]]
    if context.name is ContextName.NAME:
        found += [(name, Intent.NAME, name) for name in context.names]
    # While no game is under way only "weiter" and help are commands (`phrases.START_COMMANDS`).
    commands = START_COMMANDS if context.name is ContextName.START else COMMANDS
    found += [(text, Intent(command), None) for command in commands for text in keywords[command]]
    spans = {(tuple(normalize(text, language).split()), intent, value) for text, intent, value in found}
    return tuple(sorted((span for span in spans if span[0]), key=lambda span: (-len(span[0]), span)))


OPTION_WORD_LETTERS = 4
"""A word of an option this long or longer, found in no other option, names it: "Zola" for "Émile Zola"."""


def _option_words(context: Context, phrases: HearPhrases) -> list[tuple[Letter, str]]:
    words = [set(normalize(option, phrases.language).split()) for option in context.options]
    return [
        (letter, word)
        for letter, own in zip(Letter.first(len(words)), words, strict=False)
        for word in own
        if len(word) >= OPTION_WORD_LETTERS
        and word not in _carriers(phrases)
        and not any(word in other for other in words if other is not own)
    ]


NAME_WORDS = 3
"""A name is at most this many words; anything longer is a sentence, not somebody introducing themselves."""


def free_name(query: Normalized, phrases: HearPhrases) -> Understanding:
    """A new player's name, said alone or in a phrase ("ich heiße Anna"): the quizmaster reads it back before it
    counts, so any short run of words without digits is taken."""
    for pattern in _name_patterns(phrases):
        match = pattern.fullmatch(query)
        if match is None:
            continue
        words = match["name"].split()
        if len(words) > NAME_WORDS or any(ch.isdigit() for ch in match["name"]):
            return UNKNOWN
        if match["name"] in _yes_and_no(phrases):  # "Ja": a reply, not a name (at a party, the others' reply)
            return UNKNOWN
        return Understanding(Intent.NAME, " ".join(word[:1].upper() + word[1:] for word in words), 1.0)
    return UNKNOWN


NAME_SLIPS = 1
"""Letters a known player's name may be misspelled by ("Mar" or "Mark" for Marc): a decoder writes a short name as it
sounds, and the phrase matcher needs six letters before it tolerates any slip."""
NAME_FROM = 3
"""A name said shorter than this is no name ("Ma", "Oh")."""


def near_name(query: Normalized, names: tuple[str, ...], phrases: HearPhrases) -> Understanding:
    """The one known player whose name the utterance spells within `NAME_SLIPS`, alone or in a name phrase ("je
    prends Mar"), and every other name at least `MARGIN` slips further; else `unknown`: a name not near one of the
    players', or near two of them ("Tam" for Tim and Tom), is asked again."""
    for pattern in _name_patterns(phrases):
        match = pattern.fullmatch(query)
        if match is None:
            continue
        said = match["name"].strip()
        if len(said) < NAME_FROM:
            return UNKNOWN
        slips = sorted((Levenshtein.distance(said, normalize(name, phrases.language)), name) for name in names)
        if not slips or slips[0][0] > NAME_SLIPS or (len(slips) > 1 and slips[1][0] - slips[0][0] < MARGIN):
            return UNKNOWN
        return Understanding(Intent.NAME, slips[0][1], round(1 - slips[0][0] / len(said), 3))
    return UNKNOWN


def parse_placement(reading: Reading, phrases: HearPhrases) -> str | None:
    """Money placement in normal form, or None unless every clause is understood.

    The normal form lists letters in order with what goes on them: a number of bundles ("A=10"), an amount in euros
    ("A=500000€"), the rest ("C=rest") or everything ("B=all"): "zehn auf A, den Rest auf C" is "A=10,C=rest".
    """
    corrections = phrases.placement.corrections
    # Commas separate clauses, but not inside "500,000" (`Reading.clauses`).
    pieces: list[str] = list(reading.clauses)
    joiners = "|".join(re.escape(joiner) for joiner in phrases.compared.joiners)
    if phrases.language == "de":  # German says the units first: "achtundzwanzig" comes back as "8 und 20"
        pieces = [re.sub(rf"\b([1-9]) (?:{joiners}) ([2-9]0)\b", _tens_after_units, piece) for piece in pieces]
    clauses = [c.strip() for piece in pieces for c in re.split(rf"\b(?:{joiners})\b", piece) if c.strip()]
    placed: dict[Letter, str] = {}
    previous = ""
    for clause in clauses:
        if clause in phrases.filler:  # "Also, alles auf B": the filler stands alone before the comma
            continue
        found = _clause(strip_filler(Normalized(clause), (*phrases.filler, *corrections)), phrases)
        if found is None and previous:
            # A comma inside a clause: "20 auf A, wie Anton" is one clause, "20 auf a wie anton".
            merged = _clause(strip_filler(Normalized(f"{previous} {clause}"), (*phrases.filler, *corrections)), phrases)
            if merged is not None and merged[0] in placed:
                placed[merged[0]] = merged[1]
                previous = f"{previous} {clause}"
                continue
        if found is None or found[0] in placed:
            return None
        placed[found[0]] = found[1]
        previous = clause
    if not placed or list(placed.values()).count("rest") > 1 or ("all" in placed.values() and len(placed) > 1):
        return None
    return ",".join(f"{letter.value}={placed[letter]}" for letter in sorted(placed))


def _tens_after_units(match: re.Match[str]) -> str:
    return str(int(match[2]) + int(match[1]))


def _clause(clause: str, phrases: HearPhrases) -> tuple[Letter, str] | None:
    for pattern in _clause_patterns(phrases):
        match = pattern.fullmatch(clause)
        if match is None:
            continue
        letter = phrases.compared.letters[Normalized(match["letter"])]
        if "amount" not in pattern.groupindex:
            return letter, "all" if "all" in pattern.groupindex else "rest"
        amount = int(match["amount"])
        if amount <= 0:
            return None
        # No game has a thousand bundles: a bare "500000 auf A" is euros.
        euros = match["unit"] in phrases.compared.euros or (match["unit"] is None and amount >= EUROS_FROM)
        return letter, f"{amount}€" if euros else str(amount)
    return None


# The patterns below are derived from one language's phrases: built once, not for every clause heard.
@cache
def _yes_and_no(phrases: HearPhrases) -> frozenset[str]:
    """The confirm context's yes and no, as a reading is compared: what is never taken for a new player's name."""
    return frozenset(normalize(text, phrases.language) for texts in phrases.confirm.values() for text in texts)


@cache
def _name_patterns(phrases: HearPhrases) -> tuple[re.Pattern[str], ...]:
    """The name phrases as patterns, longest first, so that "ich heiße Anna" is Anna and not "Ich Heiße Anna"."""
    ordered = sorted(phrases.compared.name, key=len, reverse=True)
    return tuple(re.compile(re.escape(text).replace("nameslot", r"(?P<name>[\w' -]+)")) for text in ordered)


@cache
def _clause_patterns(phrases: HearPhrases) -> tuple[re.Pattern[str], ...]:
    compared = phrases.compared
    letter = (
        "(?P<letter>" + "|".join(sorted((re.escape(said) for said in compared.letters), key=len, reverse=True)) + ")"
    )
    amount = r"(?P<amount>\d+)(?: (?P<unit>" + "|".join(re.escape(unit) for unit in compared.units) + "))?"
    patterns = []
    for templates, marker in ((compared.amount, ""), (compared.rest, ""), (compared.everything, "(?P<all>)")):
        for text in templates:
            # Placeholders survive normalization as words; escape the rest and put the groups in.
            regex = re.escape(text).replace("amountslot", amount).replace("letterslot", letter)
            patterns.append(re.compile(marker + regex))
    return tuple(patterns)
