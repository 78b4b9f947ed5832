"""What the quizmaster says, per language: `config/phrases/<lang>/say.toml` in the package data, filled in and
spoken as words.

A line may come in forms, chosen by the situation: `welcome.one` for one player, `welcome.many` for several,
`play_on.none` when nothing is safe yet, and `.other` for every situation without a form of its own. The game names
the form (a pure function of the rules state, see `wording.py`); the phrase file holds the grammar, so no sentence
is assembled in code. A language that needs no distinction writes the line once, without forms, and it serves every
form. A line said at every question may have several wordings (a list): the game's seed and the moment pick one,
so a long evening does not sound like a loop, and the same game always says the same.

Amounts are spoken the way a native speaker says them ("sechzehntausend Euro", "seize mille euros", "un million
d'euros", "ein Euro", "une livre"), never as digits an engine might read out one by one. How num2words' words are
adjusted before a unit is data in the phrase file too (`[numbers]`).
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from num2words import num2words

from voicemaster.config.files import CURRENCIES, ConfigError, read_toml
from voicemaster.dialogue.turns import Say
from voicemaster.paths import PHRASES_DIR

OTHER = "other"
"""The form said where the situation has no form of its own (as in CLDR's plural rules)."""


@dataclass(frozen=True)
class Money:
    """An amount in a ladder's currency ("EUR", "GBP" or "points"), spoken with its unit."""

    amount: int
    currency: str


@dataclass(frozen=True)
class Line:
    """Another line of the file, spoken in place of a placeholder: the name of a joker, say."""

    key: str


@dataclass(frozen=True)
class Choice:
    """Things offered to choose from, spoken as a list joined with "oder", "or", "ou" (never "und")."""

    items: tuple[str, ...]


@dataclass(frozen=True)
class Address:
    """A network address to be typed in ("192.168.1.23"), said group by group: each number as a number
    ("hundertzweiundneunzig"), a name as written, and the file's `screen_dot` line ("Punkt") between them."""

    text: str


@dataclass(frozen=True)
class Digits:
    """A code to be typed ("402713"), said digit by digit, each as a number, a pause between them."""

    text: str


@dataclass(frozen=True)
class Unit:
    one: str
    many: str
    after_million: str
    """The unit after "million": French says "un million d'euros"."""
    feminine: bool = False
    """French "une livre": the number before it takes the feminine."""


Rewrite = tuple[re.Pattern[str], str]


@dataclass(frozen=True)
class Numbers:
    """Adjustments to num2words' words, from the phrase file's `[numbers]`: each a regular expression and its
    replacement, applied in order."""

    spoken: tuple[Rewrite, ...] = ()
    """For every number: German "tausend", not "eintausend"; English without commas."""
    before_unit: tuple[Rewrite, ...] = ()
    """For a number said before its unit: German "ein Euro", "hundertein Euro", not "eins"."""
    before_feminine: tuple[Rewrite, ...] = ()
    """Then, before a feminine unit: French "une livre", "vingt et une livres"."""


@dataclass(frozen=True, eq=False)
class Lines:
    language: str
    path: Path
    texts: Mapping[str, tuple[str, ...]]
    """Each line's wordings, by key; a line with forms is stored as `key.form`."""
    units: Mapping[str, Unit]
    joiner: str
    """How the last two items of a list are joined: "und", "and", "et"."""
    choice_joiner: str
    """How the last two of a choice are joined: "oder", "or", "ou"."""
    singular: frozenset[int]
    """Amounts said with the singular unit: 1, and in French also 0."""
    numbers: Numbers = Numbers()

    def text(self, said: Say) -> str:
        """The words of a line the game says."""
        return self.render(said.key, said.params, said.form, said.vary)

    def render(self, key: str, params: Mapping[str, Any], form: str = "", vary: int = 0) -> str:
        """Line `key` in `form` (the plain line where the language has no such form), wording number `vary` (modulo
        the number of wordings), its placeholders filled with `params` spoken as words."""
        wordings = self.wordings(key, form)
        values = {name: self.spoken(value) for name, value in params.items()}
        try:
            return wordings[vary % len(wordings)].format_map(values)
        except KeyError as error:
            raise ConfigError(self.path, key, f"unknown placeholder {{{error.args[0]}}}") from None

    def wordings(self, key: str, form: str = "") -> tuple[str, ...]:
        for stored in (f"{key}.{form}" if form else "", key, f"{key}.{OTHER}"):
            if stored in self.texts:
                return self.texts[stored]
        forms = sorted(k.removeprefix(f"{key}.") for k in self.texts if k.startswith(f"{key}."))
        if forms:
            raise ConfigError(self.path, key, f"no form {form!r} and no plain line; it has {', '.join(forms)}")
        raise ConfigError(self.path, key, "missing: every line the quizmaster says needs a text here")

    def spoken(self, value: Any) -> str:
        match value:
            case Money(amount, currency):
                return self.money(amount, currency)
            case Line(key):
                return self.render(key, {})
            case Choice(items):
                return self.listing([self.spoken(item) for item in items], self.choice_joiner)
            case Address(text):
                groups = [self.number(int(group)) if group.isdecimal() else group for group in text.split(".")]
                return f" {self.render('screen_dot', {})} ".join(groups)
            case Digits(text):
                return ", ".join(self.number(int(digit)) for digit in text if digit.isdecimal())
            case bool():
                return str(value)
            case int():
                return self.number(value)
            case list() | tuple():
                return self.listing([self.spoken(item) for item in value])
        return str(value)

    def number(self, value: int) -> str:
        """A number said on its own ("Frage eins", "Runde eins")."""
        return _rewritten(str(num2words(value, lang=self.language)), self.numbers.spoken)

    def money(self, amount: int, currency: str) -> str:
        unit = self.units.get(currency)
        if unit is None:
            raise ConfigError(self.path, f"units.{currency}", "missing: how to say this currency")
        words = self.number(amount)
        if amount in self.singular:
            name = unit.one
        elif re.search(r"(million|milliard)s?$", words):
            name = unit.after_million
        else:
            name = unit.many
        words = _rewritten(words, self.numbers.before_unit)
        if unit.feminine:
            words = _rewritten(words, self.numbers.before_feminine)
        return f"{words} {name}"

    def listing(self, items: Sequence[str], joiner: str | None = None) -> str:
        if len(items) <= 1:
            return "".join(items)
        return ", ".join(items[:-1]) + f" {joiner or self.joiner} " + items[-1]

    def line_keys(self) -> set[str]:
        """Every line's key, without its forms."""
        return {key.split(".", 1)[0] for key in self.texts}

    def fixed(self) -> list[str]:
        """The lines that are always said the same way (no placeholder): a voice renders them once for every game."""
        return [text for wordings in self.texts.values() for text in wordings if not _placeholders(text)]

    def placeholders(self, key: str) -> set[str]:
        """The placeholders of a line, in any of its forms and wordings."""
        stored = [k for k in self.texts if k == key or k.startswith(f"{key}.")]
        return {name for k in stored for text in self.texts[k] for name in _placeholders(text)}


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _rewritten(words: str, rewrites: tuple[Rewrite, ...]) -> str:
    for pattern, replacement in rewrites:
        words = pattern.sub(replacement, words)
    return words


def load(language: str, folder: Path = PHRASES_DIR) -> Lines:
    return _load(language, folder)


@cache
def _load(language: str, folder: Path) -> Lines:
    path = folder / language / "say.toml"
    data = read_toml(path)
    texts = _texts(path, data.get("lines"))
    units: dict[str, Unit] = {}
    for code, raw in dict(data.get("units", {})).items():
        if not isinstance(raw, dict) or not {"one", "many"} <= raw.keys():
            raise ConfigError(path, f"units.{code}", 'expected one = "..." and many = "..."')
        after = str(raw.get("after_million", raw["many"]))
        units[code] = Unit(str(raw["one"]), str(raw["many"]), after, bool(raw.get("feminine", False)))
    for code in CURRENCIES:
        if code not in units:
            raise ConfigError(path, f"units.{code}", "missing: a ladder may count in it, so it must be said")
    joiners = {name: data.get(name) for name in ("joiner", "choice_joiner")}
    for name, word in joiners.items():
        if not isinstance(word, str):
            raise ConfigError(path, name, 'expected the word that joins the last two items ("und", "oder")')
    singular = data.get("singular", [1])
    if not isinstance(singular, list) or not all(isinstance(n, int) for n in singular):
        raise ConfigError(path, "singular", "expected a list of the amounts said with the singular unit, like [1]")
    numbers = _numbers(path, data.get("numbers", {}))
    return Lines(
        language,
        path,
        texts,
        units,
        str(joiners["joiner"]),
        str(joiners["choice_joiner"]),
        frozenset(singular),
        numbers,
    )


def _texts(path: Path, raw: object) -> dict[str, tuple[str, ...]]:
    """`key = "text"`, `key = ["one wording", "another"]`, or `key.form = ...` (a table of forms)."""
    if not isinstance(raw, dict):
        raise ConfigError(path, "lines", 'expected a table of key = "text"')
    texts: dict[str, tuple[str, ...]] = {}
    for key, value in raw.items():
        if isinstance(value, dict):
            for form, wordings in value.items():
                texts[f"{key}.{form}"] = _wordings(path, f"lines.{key}.{form}", wordings)
        else:
            texts[key] = _wordings(path, f"lines.{key}", value)
    return texts


def _wordings(path: Path, key: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not (isinstance(value, list) and value and all(isinstance(v, str) for v in value)):
        raise ConfigError(path, key, 'expected "text" or a list of wordings ["...", "..."]')
    for wording in value:
        # A brace left open is found now, when the file is read, not mid-game when the line is first said.
        try:
            list(string.Formatter().parse(wording))
        except ValueError as error:
            raise ConfigError(path, key, f"{error} (a placeholder is written {{name}})") from None
    return tuple(value)


def _numbers(path: Path, raw: object) -> Numbers:
    if not isinstance(raw, dict):
        raise ConfigError(path, "numbers", "expected a table of rewrites")
    rewrites: dict[str, tuple[Rewrite, ...]] = {}
    for name in ("spoken", "before_unit", "before_feminine"):
        pairs = raw.get(name, [])
        if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p) for p in pairs
        ):
            raise ConfigError(path, f"numbers.{name}", 'expected a list of ["pattern", "replacement"]')
        try:
            rewrites[name] = tuple((re.compile(pattern), replacement) for pattern, replacement in pairs)
        except re.error as error:
            raise ConfigError(path, f"numbers.{name}", f"not a regular expression: {error}") from None
    return Numbers(rewrites["spoken"], rewrites["before_unit"], rewrites["before_feminine"])
