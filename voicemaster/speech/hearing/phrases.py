"""What players say, per language: `config/phrases/<lang>/hear.toml` in the package data, checked on load and
expanded per context.

Each listening context allows a set of intents. Expanding the templates gives the whole phrases that count, each
with its intent and value; the Vosk grammar and the matcher for free transcripts are both built from that one list.
What the matcher compares with a reading is normalized once, when the file is loaded (`Compared`); a context's own
texts (its options, the players' names) when its grammar is made (`grammar.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

from voicemaster.config.files import ConfigError, Table, read_toml
from voicemaster.dialogue.meaning import ContextName, Intent
from voicemaster.paths import PHRASES_DIR
from voicemaster.rules.letters import Letter
from voicemaster.speech.hearing.normal_form import Normalized, normalize, spoken

JOKERS = ("fifty_fifty", "audience", "phone", "extra")
COMMANDS = (
    "walk_away", "repeat", "help", "pause", "resume", "score", "quit", "slower", "faster", "louder", "quieter",
    "screen_address",
)  # fmt: skip
FORMATS = ("millionaire", "moneydrop")
"""The games a start phrase asks for (`[start]`, `voicemaster serve`)."""
START_COMMANDS = ("resume", "help")
"""The commands heard while no game is under way: "weiter" for an interrupted game, and help. A small grammar: every
phrase in it is one more that the room's talk may be taken for."""


@dataclass(frozen=True)
class Phrase:
    text: Normalized
    """Normalized: lower case, no punctuation, numbers as digits."""
    intent: Intent
    value: str | None = None
    said: str = ""
    """The words as spoken, for a recognizer's grammar: lower case, no punctuation, numbers as words."""
    written: str = ""
    """As the phrase file writes it, for a recognizer that scores how a transcript would spell it."""


@dataclass(frozen=True)
class PlacementWords:
    """The words of money placement: clauses of an amount, the rest, or everything on a letter."""

    joiners: tuple[str, ...]
    amount: tuple[str, ...]
    rest: tuple[str, ...]
    everything: tuple[str, ...]
    bundles: tuple[str, ...]
    euros: tuple[str, ...]
    numbers: tuple[str, ...]
    """The number words amounts are said with, for a recognizer that needs every word in its grammar."""
    switch: tuple[str, ...]
    """The category joker: the other category's question instead of the one heard."""
    corrections: tuple[Normalized, ...]
    """Words that start a correction of one option ("doch fünfzehn auf A"), dropped before a clause is read."""


@dataclass(frozen=True)
class Words:
    """Understanding beyond whole phrases: an utterance made of one meaning (an answer, a joker, a command, a no) and
    otherwise only `carrier` words means that one. Every other word is a sign of talk about something else."""

    carrier: frozenset[str]
    """Normalized words that may stand around a meaning without changing it: pronouns, articles, "nehmen", "glauben"."""
    negation: frozenset[Normalized]
    """Words that take back the answer right after them: "nicht A, ich nehme C" is C."""
    last: tuple[str, ...]
    """Ways of saying the last option ("die letzte"), as written: the grammar spells them, the matcher normalizes."""
    spelling: tuple[tuple[str, ...], ...]
    """The words that spell a letter with a name: "b wie Bruno", "b as in Bruno"."""
    keywords: Mapping[str, tuple[Normalized, ...]]
    """Per joker, command and "no": words (normalized, one or more) that name it inside a sentence."""
    negation_after: frozenset[Normalized] = frozenset()
    """Words that take back what stands right before them: French "je continue pas" goes on no more."""


@dataclass(frozen=True)
class Carried:
    """Answers after a carrier ("I'll take", "ich tippe auf", "je dirais"): every carrier before every way of naming
    an answer that `[answer] carried` lists, as templates."""

    letter: tuple[str, ...] = ()
    """A carrier and the bare letter ("I'll take {letter}"): any form of the letter ("I'll take the second one")."""
    worded_letter: tuple[str, ...] = ()
    """A carrier and the letter with a word before it ("I'll take answer {letter}"): one-word forms only ("answer
    B", "answer Bee"; not "answer the second one", which nobody says)."""
    option: tuple[str, ...] = ()
    """A carrier and an option's text ("I think it's {option}")."""


KEYWORD_INTENTS = (*JOKERS, *COMMANDS, "no")


@dataclass(frozen=True)
class OptionForms:
    """How players name an option beyond its text, per language: "der Ball" and "Ball", "l'arbre" for "arbre"."""

    articles: tuple[str, ...]
    """Put before any option of a word or two."""
    before_vowel: tuple[str, ...]
    """Put before an option that starts with a vowel or h: English "an", French "l'" (elided: no space after it)."""
    before_consonant: tuple[str, ...]
    plural: tuple[str, ...]
    """Put before an option that looks plural (ends in s or x): French "les", "des"."""


@dataclass(frozen=True)
class Compared:
    """The phrase file's words as the text matcher compares them with a reading, normalized once when the file is
    loaded. A template keeps its placeholder as a word: "{letter}" is "letterslot", "{amount}" "amountslot"."""

    letters: Mapping[Normalized, Letter]
    """Every way of saying each letter."""
    articles: frozenset[Normalized]
    """Every article an option may be said with."""
    name: tuple[Normalized, ...]
    joiners: tuple[Normalized, ...]
    units: tuple[Normalized, ...]
    """The words of bundles, then those of euros."""
    euros: frozenset[Normalized]
    amount: tuple[Normalized, ...]
    rest: tuple[Normalized, ...]
    everything: tuple[Normalized, ...]


@dataclass(frozen=True, eq=False)  # compared by identity: loaded once per language, and a key for the grammar cache
class HearPhrases:
    language: str
    filler: tuple[Normalized, ...]
    expect: Mapping[ContextName, str]
    """A sentence per context that tells a free recognizer what kind of words to expect."""
    name_again: str
    """The name prompt with other names: a name read after `expect`'s own example names is read again after this,
    since faint sound or other people's talk is read as the prompt's words ("Je m'appelle Anna.")."""
    letters: Mapping[Letter, tuple[str, ...]]
    answer_letter: tuple[str, ...]
    answer_option: tuple[str, ...]
    jokers: Mapping[str, tuple[str, ...]]
    commands: Mapping[str, tuple[str, ...]]
    confirm: Mapping[str, tuple[str, ...]]
    name: tuple[str, ...]
    placement: PlacementWords
    words: Words
    option_forms: OptionForms
    compared: Compared
    carried: Carried = Carried()
    start: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Per format (`FORMATS`), the phrases that ask for a new game of it while no game is under way."""
    sounds: Mapping[Normalized, Letter] = field(default_factory=dict)
    """How the decoder writes a letter said as its sound where no phrase spells it so ("zi" for a German C): heard
    only as the last word of a reading begun over our voice (`whisper.decision.named_at_the_end`), never a phrase."""


@cache
def carrier_words(phrases: HearPhrases) -> frozenset[str]:
    """Every word that may stand around a meaning without changing it (normalized): carriers, negations, fillers."""
    words = phrases.words
    return words.carrier | words.negation | {word for filler in phrases.filler for word in filler.split()}


CONTEXTS_KEPT = 64
"""Contexts whose grammar is kept: each question's options make a new one, and a game night asks hundreds (kept
without bound, they grew a long run by 2.5 MB a game: `bench faults`); a turn needs the current one and the next."""


SHORT_OPTION_WORDS = 2
"""An option of at most this many words takes an article: "der Ball", "the Eiffel Tower"; a longer one is a title or
a sentence, said as it is."""
NAMING_WORD_LETTERS = 4
"""A word of a longer option this long or longer may name it alone ("Mozart"); a shorter one ("van", "de") names
nothing."""
VOWELS = "aeiouyàâäéèêëîïôöùûüœæh"


def option_forms(options: tuple[str, ...], phrases: HearPhrases) -> tuple[tuple[str, ...], ...]:
    """Per option, every way a player names it, its own text first: with and without an article ("der Ball", "un âne",
    "l'arbre"), and a long option by its first or last word alone ("Mozart" for "Wolfgang Amadeus Mozart"). A form
    that two options share names neither ("Johann" of "Johann Sebastian Bach" and "Johann Strauss")."""
    return _option_forms(options, phrases)


@lru_cache(maxsize=CONTEXTS_KEPT)
def _option_forms(options: tuple[str, ...], phrases: HearPhrases) -> tuple[tuple[str, ...], ...]:
    each = [_forms(option, phrases) for option in options]
    said = [tuple(normalize(form, phrases.language) for form in forms) for forms in each]
    shared = {text for index, own in enumerate(said) for other in said[index + 1 :] for text in set(own) & set(other)}
    return tuple(
        tuple(
            form
            for position, (form, text) in enumerate(zip(forms, texts, strict=True))
            if not position or text not in shared
        )
        for forms, texts in zip(each, said, strict=True)
    )


def _forms(option: str, phrases: HearPhrases) -> tuple[str, ...]:
    rules = phrases.option_forms
    every = (*rules.articles, *rules.before_vowel, *rules.before_consonant, *rules.plural)
    words = option.split()
    bare = option
    # "Der Zauberberg" is "Zauberberg" too, "L'Étranger" "Étranger".
    for article in sorted(every, key=len, reverse=True):
        elided = article.endswith("'")
        if elided and option.lower().startswith(article) and len(option) > len(article):
            bare = option[len(article) :]
            break
        if not elided and len(words) > 1 and words[0].lower() == article:
            bare = " ".join(words[1:])
            break
    forms = [option, bare]
    bare_words = bare.split()
    if any(character.isdigit() for character in bare):
        return _unique(forms)
    if bare == option and len(bare_words) <= SHORT_OPTION_WORDS:  # one with its own article takes no other
        vowel = bare[:1].lower() in VOWELS
        plural = bare.lower().endswith(("s", "x")) and len(bare) > NAMING_WORD_LETTERS
        articles = [*rules.articles, *(rules.before_vowel if vowel else rules.before_consonant)]
        articles += list(rules.plural) if plural else []
        forms += [f"{article}{bare}" if article.endswith("'") else f"{article} {bare}" for article in articles]
    if len(bare_words) > 1:
        carriers = {*phrases.words.carrier, *phrases.compared.articles}
        for word in (bare_words[0], bare_words[-1]):
            if len(spoken(word)) >= NAMING_WORD_LETTERS and normalize(word, phrases.language) not in carriers:
                forms.append(word)
    return _unique(forms)


def _unique(forms: list[str]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for form in forms:
        seen.setdefault(spoken(form), form)
    return tuple(seen.values())


def load(language: str, folder: Path = PHRASES_DIR) -> HearPhrases:
    """One language's phrases; a malformed file names the file and the key."""
    return _load(language, folder)


@cache
def _load(language: str, folder: Path) -> HearPhrases:
    path = folder / language / "hear.toml"
    table = Table(path, read_toml(path))
    letters = table.table("letters")
    number = table.table("number")
    words, keywords, forms = table.table("words"), table.table("keywords"), table.table("option_forms")

    def normalized(texts: tuple[str, ...]) -> tuple[Normalized, ...]:
        return tuple(normalize(text, language) for text in texts)

    return HearPhrases(
        language=language,
        filler=normalized(table.texts("filler")),
        expect={name: table.table("expect").text(name.value) for name in ContextName},
        name_again=table.table("expect").text("name_again"),
        letters={letter: letters.texts(letter.value) for letter in Letter},
        answer_letter=table.table("answer").texts("letter", placeholder="{letter}"),
        answer_option=table.table("answer").texts("option", placeholder="{option}"),
        jokers={joker: table.table("joker").texts(joker) for joker in JOKERS},
        commands={command: table.table("command").texts(command) for command in COMMANDS},
        confirm={answer: table.table("confirm").texts(answer) for answer in ("yes", "no")},
        name=_name_phrases(table),
        placement=PlacementWords(
            joiners=number.texts("joiners"),
            amount=number.texts("amount", placeholder="{amount}"),
            rest=number.texts("rest", placeholder="{letter}"),
            everything=number.texts("all", placeholder="{letter}"),
            bundles=number.texts("bundles"),
            euros=number.texts("euros"),
            numbers=number.texts("numbers"),
            switch=number.texts("switch"),
            corrections=normalized(number.texts("corrections")),
        ),
        words=Words(
            carrier=frozenset(word for text in normalized(words.texts("carrier")) for word in text.split()),
            negation=frozenset(normalized(words.texts("negation"))),
            negation_after=frozenset(normalized(words.texts("negation_after", empty=True))),
            last=words.texts("last"),
            spelling=tuple(tuple(text.split()) for text in normalized(words.texts("spelling"))),
            keywords={intent: normalized(keywords.texts(intent)) for intent in KEYWORD_INTENTS},
        ),
        option_forms=OptionForms(
            articles=forms.texts("articles"),
            before_vowel=forms.texts("before_vowel", empty=True),
            before_consonant=forms.texts("before_consonant", empty=True),
            plural=forms.texts("plural", empty=True),
        ),
        compared=_compared(table, normalized),
        carried=_carried(table.table("answer")),
        start={game: table.table("start").texts(game) for game in FORMATS},
        sounds={
            said: letter
            for letter in Letter
            for said in normalized(table.table("sounds").texts(letter.value, empty=True))
        },
    )


def _compared(table: Table, normalized: Callable[[tuple[str, ...]], tuple[Normalized, ...]]) -> Compared:
    letters, forms, number = table.table("letters"), table.table("option_forms"), table.table("number")
    articles = [text for key in ("before_vowel", "before_consonant", "plural") for text in forms.texts(key, empty=True)]
    names = _name_phrases(table)

    def slotted(said: tuple[str, ...]) -> tuple[Normalized, ...]:
        return normalized(
            tuple(t.replace("{amount}", " AMOUNTSLOT ").replace("{letter}", " LETTERSLOT ") for t in said)
        )

    return Compared(
        letters={said: letter for letter in Letter for said in normalized(letters.texts(letter.value))},
        articles=frozenset(normalized((*forms.texts("articles"), *articles))),
        name=normalized(tuple(text.replace("{name}", " NAMESLOT ") for text in names)),
        joiners=normalized(number.texts("joiners")),
        units=normalized((*number.texts("bundles"), *number.texts("euros"))),
        euros=frozenset(normalized(number.texts("euros"))),
        amount=slotted(number.texts("amount", placeholder="{amount}")),
        rest=slotted(number.texts("rest", placeholder="{letter}")),
        everything=slotted(number.texts("all", placeholder="{letter}")),
    )


def _name_phrases(table: Table) -> tuple[str, ...]:
    """The name phrases, each also after each greeting ("Hallo, ich bin Markus"), and a player chosen by another."""
    name = table.table("name")
    phrases, greetings = name.texts("phrases", placeholder="{name}"), name.texts("greetings", empty=True)
    greeted = tuple(f"{greeting} {phrase}" for greeting in greetings for phrase in phrases)
    return phrases + greeted + name.texts("chosen", placeholder="{name}", empty=True)


def _carried(answer: Table) -> Carried:
    carriers, named = answer.texts("carriers"), answer.texts("carried")
    for index, text in enumerate(named):
        if ("{letter}" in text) == ("{option}" in text):
            raise ConfigError(
                answer.path, f"{answer.prefix}carried[{index}]", f"{text!r} needs {{letter}} or {{option}}"
            )

    def templates(kept: list[str]) -> tuple[str, ...]:
        return tuple(f"{carrier} {text}" for carrier in carriers for text in kept)

    return Carried(
        letter=templates([text for text in named if text.strip() == "{letter}"]),
        worded_letter=templates([text for text in named if "{letter}" in text and text.strip() != "{letter}"]),
        option=templates([text for text in named if "{option}" in text]),
    )
