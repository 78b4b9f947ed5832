"""How the quizmaster's voice reads what is written: the words handed to the engine for a line, per language.

The engines guess at what is not plain words, each its own way, and not always as a native speaker would: Kokoro
reads the English "1588" as "one thousand five hundred and eighty-eight", the French "Louis XIV" as "Louis quatorze
romain" and "l'OMS" as "l'homme" (`voicemaster bench read-aloud` heard them; docs/benchmarks.md). So what a guess
gets wrong is written out before any engine sees it, from the language's `read.toml` beside its phrase files, the
same for every engine and every line:
- the packs' own hints (`pronounce = { "Ouagadougou" = "Wagadugu" }`) and the file's `[words]`, for the word
  wherever the quizmaster says it (the question, the option read back, the explanation);
- roman numerals after a name and with an ordinal ending (`[numerals]`: "Louis quatorze", "François premier", "le
  dix-neuvième siècle");
- words respelled by rule (`[respell]`): eSpeak-NG, which turns Kokoro's French into sounds, says "Marthe", "menthe"
  or "Ferry" with English sounds, where French says them as "Marte", "mente", "Ferri";
- years as words the way the language says them (`years`: "nineteen sixty-three").
The written words stay what the screen and the transcript show; only the sound changes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from num2words import num2words

from voicemaster.config.files import ConfigError, read_toml
from voicemaster.paths import PHRASES_DIR

_NAME = r"[A-ZÀ-ÖØ-Þ][\w’'-]*"
_AFTER_NAME = re.compile(rf"(?P<name>{_NAME}) (?P<numeral>[IVX]+)\b(?![’'-])")
"""A roman numeral after a name: of I, V and X only (a king, a pope, a war), so "Washington DC", "eine CD" and
"XL" stay letters."""
_WITH_ENDING = r"\b(?P<numeral>[IVX]+)(?P<ending>{endings})\b"
_YEAR = re.compile(r"(?<![\d.,:/-])\b\d{3,4}\b(?![.,:/-]?\d)")
"""Three or four plain digits, not part of a larger number ("500.000", "3,5", "9:30"): what the packs may hold as
digits is a year (`questions.readability`)."""
_WORD = re.compile(r"[^\W\d_]+")
_VALUES = {"X": 10, "V": 5, "I": 1}
ORDINAL = "ordinal"


@dataclass(frozen=True)
class Pronunciation:
    """The words an engine is given for a line in one language."""

    language: str
    words: tuple[tuple[re.Pattern[str], str], ...] = ()
    """Whole words (or phrases) and how they are said: the packs' hints and `[words]`, the longest first."""
    endings: Mapping[str, str] | None = None
    """Roman numerals are said as numbers: after a name as the cardinal, with an ordinal ending written after them
    ("Ier", "XIXe") as what the ending stands for (a word, or ORDINAL); None: left to the engine."""
    respell: tuple[tuple[re.Pattern[str], str], ...] = ()
    """Rules applied to each word (of letters only) but those in `kept`."""
    kept: frozenset[str] = field(default_factory=frozenset)
    years: bool = False
    year_words: tuple[tuple[re.Pattern[str], str], ...] = ()
    """Rules applied to a year's words: German "tausendsechsundsechzig", not num2words' "eintausend..."."""

    def spoken(self, text: str) -> str:
        """`text` as the engine should be given it."""
        for pattern, said in self.words:
            text = pattern.sub(said, text)
        if self.endings is not None:
            text = self._numerals(text, self.endings)
        if self.respell:
            text = _WORD.sub(self._respelled, text)
        if self.years:
            text = _YEAR.sub(self._year, text)
        return text

    def _year(self, match: re.Match[str]) -> str:
        words = str(num2words(int(match.group()), lang=self.language, to="year"))
        for pattern, said in self.year_words:
            words = pattern.sub(said, words)
        return words

    def _numerals(self, text: str, endings: Mapping[str, str]) -> str:
        def after_name(match: re.Match[str]) -> str:
            numeral = match.group("numeral")
            if numeral == "I":  # the English pronoun, "How I Met Your Mother": a first is written with its ending
                return match.group()
            return f"{match.group('name')} {num2words(_value(numeral), lang=self.language)}"

        def with_ending(match: re.Match[str]) -> str:
            said = endings[match.group("ending")]
            value = _value(match.group("numeral"))
            return str(num2words(value, lang=self.language, to="ordinal")) if said == ORDINAL else said

        text = _AFTER_NAME.sub(after_name, text)
        if endings:
            alternatives = "|".join(sorted(map(re.escape, endings), key=len, reverse=True))
            text = re.sub(_WITH_ENDING.format(endings=alternatives), with_ending, text)
        return text

    def _respelled(self, match: re.Match[str]) -> str:
        word = match.group()
        if word in self.kept or word.isupper():
            return word
        for pattern, said in self.respell:
            word = pattern.sub(said, word)
        return word


def _value(numeral: str) -> int:
    values = [_VALUES[c] for c in numeral]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def readings(lexicon: Mapping[str, Mapping[str, str]], folder: Path = PHRASES_DIR) -> dict[str, Pronunciation]:
    """Each language's reading: its `read.toml`, with `lexicon`'s words for it (the packs' hints, by language)."""
    languages = {path.name for path in folder.iterdir() if (path / "read.toml").is_file()} | set(lexicon)
    return {language: reading(language, lexicon.get(language, {}), folder) for language in sorted(languages)}


def reading(language: str, hints: Mapping[str, str], folder: Path = PHRASES_DIR) -> Pronunciation:
    """The language's reading, with the packs' `hints` (written: said); the file's `[words]` come first."""
    shipped = _shipped(language, folder)
    ordered = sorted({**dict(hints), **shipped.words}.items(), key=lambda pair: len(pair[0]), reverse=True)
    patterns = tuple((re.compile(rf"(?<!\w){re.escape(word)}(?!\w)"), _literal(said)) for word, said in ordered)
    return Pronunciation(
        language, patterns, shipped.endings, shipped.respell, shipped.kept, shipped.years, shipped.year_words
    )


def _literal(said: str) -> str:
    """A replacement said as written (a backslash in it is no group reference)."""
    return said.replace("\\", "\\\\")


@dataclass(frozen=True)
class _File:
    words: dict[str, str]
    endings: Mapping[str, str] | None
    respell: tuple[tuple[re.Pattern[str], str], ...]
    kept: frozenset[str]
    years: bool
    year_words: tuple[tuple[re.Pattern[str], str], ...]


@cache
def _shipped(language: str, folder: Path) -> _File:
    """The language's `read.toml`, checked: a mistake in it is named when the voice is made, not mid-game."""
    path = folder / language / "read.toml"
    if not path.is_file():
        return _File({}, None, (), frozenset(), False, ())
    data = read_toml(path)
    words = data.get("words", {})
    if not isinstance(words, dict) or not all(isinstance(v, str) for v in words.values()):
        raise ConfigError(path, "words", 'expected a table of "written" = "said"')
    years = data.get("years", False)
    if not isinstance(years, bool):
        raise ConfigError(path, "years", "expected true or false")
    numerals = data.get("numerals")
    endings: dict[str, str] | None = None
    if numerals is not None:
        raw = numerals.get("endings", {}) if isinstance(numerals, dict) else None
        if not isinstance(raw, dict) or not all(isinstance(v, str) and v for v in raw.values()):
            raise ConfigError(path, "numerals.endings", f'expected "ending" = "word said" or "{ORDINAL}"')
        endings = dict(raw)
    respell = data.get("respell", {})
    kept = respell.get("kept", []) if isinstance(respell, dict) else None
    if not isinstance(kept, list) or not all(isinstance(word, str) for word in kept):
        raise ConfigError(path, "respell.kept", "expected a list of words")
    rules = _rules(path, "respell.rules", respell.get("rules", []) if isinstance(respell, dict) else None)
    year_words = _rules(path, "year_words", data.get("year_words", []))
    return _File(dict(words), endings, rules, frozenset(kept), years, year_words)


def _rules(path: Path, key: str, rules: object) -> tuple[tuple[re.Pattern[str], str], ...]:
    """A list of ["pattern", "replacement"], compiled."""
    if not isinstance(rules, list) or not all(
        isinstance(rule, list) and len(rule) == 2 and all(isinstance(part, str) for part in rule) for rule in rules
    ):
        raise ConfigError(path, key, 'expected a list of ["pattern", "replacement"]')
    try:
        return tuple((re.compile(pattern), replacement) for pattern, replacement in rules)
    except re.error as error:
        raise ConfigError(path, key, f"not a regular expression: {error}") from None
