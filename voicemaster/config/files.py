"""The settings files' common ground: reading a TOML file, the error that names a file and key, the languages.

Everything that reads TOML (settings, phrase files, question packs) imports this leaf, which imports nothing of
voicemaster but the bounded reader (`voicemaster.file_reading`), so the settings schema above it may use the speech
and rules types without a cycle.
"""

from __future__ import annotations

import errno
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicemaster.file_reading import FileRefused, open_regular, read_bounded, read_text

__all__ = ["FileRefused", "open_regular", "read_bounded"]  # the bounded reader's, kept importable from here

LANGUAGES = ("de", "en", "fr")
CURRENCIES = ("EUR", "GBP", "points")
"""The units a ladder may count in: every phrase file says each of them, in words."""


class ConfigError(ValueError):
    def __init__(self, path: Path, key: str, problem: str) -> None:
        super().__init__(f"{path}: {key}: {problem}")
        self.path = path
        self.key = key


SETTINGS_MAX_BYTES = 1_000_000
"""A settings or phrase file larger than this is refused unread: ours are some kilobytes."""


def parse_toml(text: str) -> dict[str, Any]:
    """TOML text's tables; a ValueError saying, in a user's words, why it is not usable TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"not valid TOML: {error}") from None
    except RecursionError:
        raise ValueError("not valid TOML: tables or lists nested too deeply") from None
    except ValueError:
        # tomllib lets Python's int() refuse a number of more than 4300 digits (CVE-2020-10735).
        raise ValueError("not valid TOML: a number with thousands of digits") from None


def read_toml(path: Path, limit: int = SETTINGS_MAX_BYTES) -> dict[str, Any]:
    """A TOML file's tables; a missing, special, oversized or malformed file is a ConfigError naming it."""
    try:
        return parse_toml(read_text(path, limit))
    except FileNotFoundError:
        if os.path.islink(path):
            target = os.readlink(path)
            raise ConfigError(path, "(file)", f"a symbolic link to {target}, which does not exist: remove the link, or "
                              "point it to your settings file") from None  # fmt: skip
        raise ConfigError(path, "(file)", "not found") from None
    except ValueError as error:  # not UTF-8 (Unreadable), not TOML
        raise ConfigError(path, "(file)", str(error)) from None
    except IsADirectoryError:
        raise ConfigError(path, "(file)", "is a folder, not a settings file") from None
    except FileRefused as error:
        raise ConfigError(path, "(file)", str(error)) from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ConfigError(path, "(file)", "a symbolic link that leads round to itself (directly or through other "
                              "links): remove it, or point it to your settings file") from None  # fmt: skip
        raise ConfigError(path, "(file)", f"cannot be read ({error.strerror})") from None


@dataclass(frozen=True)
class Table:
    """A table of a TOML file whose errors name the file and the key ("hear.toml: number.amount[2]: ... lacks
    {amount}"): what a phrase file is read through."""

    path: Path
    data: Mapping[str, Any]
    prefix: str = ""

    def _get(self, key: str) -> Any:
        if key not in self.data:
            raise ConfigError(self.path, self.prefix + key, "missing")
        return self.data[key]

    def table(self, key: str) -> Table:
        value = self._get(key)
        if not isinstance(value, dict):
            raise ConfigError(self.path, self.prefix + key, "expected a table")
        return Table(self.path, value, f"{self.prefix}{key}.")

    def text(self, key: str) -> str:
        value = self._get(key)
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(self.path, self.prefix + key, "expected a non-empty string")
        return value

    def texts(self, key: str, placeholder: str | None = None, *, empty: bool = False) -> tuple[str, ...]:
        value = self._get(key)
        if (
            not isinstance(value, list)
            or not (value or empty)
            or not all(isinstance(v, str) and v.strip() for v in value)
        ):
            wanted = "a list" if empty else "a non-empty list"
            raise ConfigError(self.path, self.prefix + key, f"expected {wanted} of non-empty strings")
        for index, text in enumerate(value):
            if placeholder and placeholder not in text:
                raise ConfigError(self.path, f"{self.prefix}{key}[{index}]", f"{text!r} lacks {placeholder}")
        return tuple(value)
