"""Where voicemaster finds what it ships and where it keeps what is the user's.

What ships (the settings' defaults, phrase files, our question packs, the model manifest) is package data in
`voicemaster/data/`, read through `importlib.resources`, so a wheel installed anywhere has it; there is one copy of
each file, the same in a checkout and in a wheel. What is the user's lives in the platform's folders (platformdirs:
`~/.config/voicemaster`, `~/.local/share/voicemaster`, `~/.cache/voicemaster` on Linux, honouring XDG_*), each
overridable by an environment variable. The one exception is a checkout: its speech models stay in its `models/`
folder, where set-up has always put them.
"""

from __future__ import annotations

import os
import tomllib
from functools import cache
from importlib.resources import files
from pathlib import Path

from platformdirs import PlatformDirs

APP = "voicemaster"
MODELS_ENVIRONMENT = "VOICEMASTER_MODELS_DIR"
QUESTIONS_ENVIRONMENT = "VOICEMASTER_QUESTIONS"
PACK_SUFFIX = ".toml"
"""The ending of a question pack's file name: the bank loads nothing else."""


def _shipped_root() -> Path:
    root = files(APP) / "data"
    # Every file is read as a path (error messages name it, packs are globbed); pip and pipx install packages as
    # files, so a zipped install is the only way to get here, and it is refused with a clear reason.
    if not isinstance(root, Path):
        raise RuntimeError(f"voicemaster must be installed as files, not inside an archive ({root})")
    return root


SHIPPED = _shipped_root()
DEFAULT_CONFIG = SHIPPED / "config" / "default.toml"
PHRASES_DIR = SHIPPED / "config" / "phrases"
QUESTIONS_DIR = SHIPPED / "questions"
"""Our own question packs."""
MODELS_MANIFEST = SHIPPED / "models" / "manifest.toml"


def _platform() -> PlatformDirs:
    # Made per call, not once: the XDG_* variables are read when a folder is asked for, so tests (and a user's
    # shell) can point them elsewhere.
    return PlatformDirs(APP, appauthor=False)


def config_dir() -> Path:
    """The user's settings: `config.toml` here overrides the shipped defaults."""
    return _platform().user_config_path


def data_dir() -> Path:
    """The user's things: the game store, their own question packs, and (outside a checkout) speech models."""
    return _platform().user_data_path


def cache_dir() -> Path:
    """What can be made again: rendered speech, derived voice tables."""
    return _platform().user_cache_path


def user_questions_dir() -> Path:
    """The user's own question packs, loaded with ours; `questions import` writes here."""
    return data_dir() / "questions"


def models_dir() -> Path:
    """Where speech models are installed: $VOICEMASTER_MODELS_DIR, else a checkout's `models/`, else the user's."""
    configured = os.environ.get(MODELS_ENVIRONMENT)
    if configured:
        return Path(configured).expanduser()
    root = checkout()
    return root / "models" if root is not None else data_dir() / "models"


@cache
def checkout() -> Path | None:
    """The source checkout the package runs from (editable install or PYTHONPATH), or None when installed.

    Told by the folder above the package holding our pyproject.toml: from a wheel that folder is site-packages.
    """
    root = Path(__file__).resolve().parent.parent
    try:
        with (root / "pyproject.toml").open("rb") as file:
            name = tomllib.load(file).get("project", {}).get("name")
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return root if name == APP else None


def shown(path: Path | str) -> str:
    """A path as a message prints it: bytes of a name that are not UTF-8 as \\x escapes, where printing the name
    itself would fail (UnicodeEncodeError)."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def pack_name_problem(path: Path) -> str | None:
    """Why a question pack may not be written or read at `path`, or None: the one rule for the file names the
    question tools write (`questions import --out`) and the bank reads. The name must be UTF-8 text, as every
    message and list names it, and end in `.toml`, as the bank loads nothing else (a pack written as `x.txt` would
    be counted as written and never asked). The reason says what is wrong; the caller says what to do."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return "its name is not valid UTF-8 text"
    if path.suffix != PACK_SUFFIX:
        return f"the question bank loads only packs whose file name ends in {PACK_SUFFIX}"
    return None


def file_in_the_way(folder: Path) -> Path | None:
    """The file (or other non-folder) at `folder` or at one of the folders above it, which keeps `folder` from being
    made; None if there is none."""
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate):
            return None if candidate.is_dir() else candidate
    return None
