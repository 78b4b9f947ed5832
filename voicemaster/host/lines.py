"""What the quizmaster says, per language: `config/phrases/<lang>/say.toml` in the package data, filled in and
spoken as words.

Amounts are spoken the way a native speaker says them ("sechzehntausend Euro", "seize mille euros", "un million
d'euros"), never as digits an engine might read out one by one.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from num2words import num2words

from voicemaster.config import ConfigError, read_toml
from voicemaster.paths import PHRASES_DIR


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
class Unit:
    one: str
    many: str
    after_million: str
    """The unit after "million": French says "un million d'euros"."""


@dataclass(frozen=True, eq=False)
class Lines:
    language: str
    path: Path
    texts: Mapping[str, str]
    units: Mapping[str, Unit]
    joiner: str
    """How the last two items of a list are joined: "und", "and", "et"."""
    singular: frozenset[int]
    """Amounts said with the singular unit: 1, and in French also 0."""

    def render(self, key: str, params: Mapping[str, Any]) -> str:
        if key not in self.texts:
            raise ConfigError(self.path, key, "missing: every line the quizmaster says needs a text here")
        values = {name: self.spoken(value) for name, value in params.items()}
        try:
            return self.texts[key].format_map(values)
        except KeyError as error:
            raise ConfigError(self.path, key, f"unknown placeholder {{{error.args[0]}}}") from None

    def spoken(self, value: Any) -> str:
        match value:
            case Money(amount, currency):
                return self.money(amount, currency)
            case Line(key):
                return self.render(key, {})
            case bool():
                return str(value)
            case int():
                return self.number(value)
            case list() | tuple():
                return self.listing([self.spoken(item) for item in value])
        return str(value)

    def number(self, value: int) -> str:
        words = str(num2words(value, lang=self.language))
        if self.language == "de":
            # Germans say "tausend Euro" and "hundert", not "eintausend" and "einhundert".
            words = re.sub(r"^ein(hundert|tausend)", r"\1", words)
        return words

    def money(self, amount: int, currency: str) -> str:
        unit = self.units.get(currency)
        if unit is None:
            raise ConfigError(self.path, f"units.{currency}", "missing: how to say this currency")
        words = self.number(amount)
        if amount in self.singular:
            return f"{words} {unit.one}"
        if re.search(r"(million|milliard)s?$", words):
            return f"{words} {unit.after_million}"
        return f"{words} {unit.many}"

    def listing(self, items: list[str]) -> str:
        if len(items) <= 1:
            return "".join(items)
        return ", ".join(items[:-1]) + f" {self.joiner} " + items[-1]

    def fixed(self) -> list[str]:
        """The lines that are always said the same way (no placeholder): a voice renders them once for every game."""
        return [self.render(key, {}) for key in self.texts if not self.placeholders(key)]

    def placeholders(self, key: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(self.texts[key]) if name}


def load(language: str, folder: Path = PHRASES_DIR) -> Lines:
    return _load(language, folder)


@cache
def _load(language: str, folder: Path) -> Lines:
    path = folder / language / "say.toml"
    data = read_toml(path)
    texts = data.get("lines")
    if not isinstance(texts, dict) or not all(isinstance(v, str) for v in texts.values()):
        raise ConfigError(path, "lines", 'expected a table of key = "text"')
    units: dict[str, Unit] = {}
    for code, raw in dict(data.get("units", {})).items():
        if not isinstance(raw, dict) or not {"one", "many"} <= raw.keys():
            raise ConfigError(path, f"units.{code}", 'expected one = "..." and many = "..."')
        units[code] = Unit(str(raw["one"]), str(raw["many"]), str(raw.get("after_million", raw["many"])))
    joiner = data.get("joiner")
    if not isinstance(joiner, str):
        raise ConfigError(path, "joiner", 'expected the word that joins the last two items of a list ("und")')
    singular = data.get("singular", [1])
    if not isinstance(singular, list) or not all(isinstance(n, int) for n in singular):
        raise ConfigError(path, "singular", "expected a list of the amounts said with the singular unit, like [1]")
    return Lines(language, path, texts, units, joiner, frozenset(singular))
