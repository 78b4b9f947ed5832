"""The settings files' common ground: reading a TOML file, the error that names a file and key, the languages.

Everything that reads TOML (settings, phrase files, question packs) imports this leaf, which imports nothing of
voicemaster, so the settings schema above it may use the speech and rules types without a cycle.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

LANGUAGES = ("de", "en", "fr")
CURRENCIES = ("EUR", "GBP", "points")
"""The units a ladder may count in: every phrase file says each of them, in words."""


class ConfigError(ValueError):
    def __init__(self, path: Path, key: str, problem: str) -> None:
        super().__init__(f"{path}: {key}: {problem}")
        self.path = path
        self.key = key


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


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's tables; a missing or malformed file is a ConfigError naming it."""
    try:
        text = path.read_bytes().decode("utf-8")
        return parse_toml(text)
    except FileNotFoundError:
        raise ConfigError(path, "(file)", "not found") from None
    except UnicodeDecodeError as error:
        raise ConfigError(path, "(file)", f"not UTF-8 text (byte {error.start}): save it as UTF-8") from None
    except ValueError as error:
        raise ConfigError(path, "(file)", str(error)) from None
    except IsADirectoryError:
        raise ConfigError(path, "(file)", "is a folder, not a settings file") from None
    except OSError as error:
        raise ConfigError(path, "(file)", f"cannot be read ({error.strerror})") from None
