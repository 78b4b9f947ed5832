"""`bench faults`, the damage done to a store under a running game: replaced, overwritten or made read-only.

Each kind strikes at one step of a real game (`damaged_store.game`, the real quizmaster and store, which also runs
the drills): the game must notice it at its next save, keep the game (written afresh, or, for a store that cannot be
written, as its last saved step) and end with a message, never a traceback or a signal.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

DAMAGE_AT = 60
"""The step of the game at which the store is damaged: a few questions in."""


def _replace_with(make: Callable[[Path], None]) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        for suffix in ("-journal", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        path.unlink()
        make(path)

    return damage


def _folder(path: Path) -> None:
    path.mkdir()


def _overwrite(path: Path) -> None:
    path.write_bytes(b"overwritten by another program " * 300)


def _immutable(path: Path) -> None:
    for target in [*path.parent.glob("*"), path.parent]:
        subprocess.run(["chattr", "+i", str(target)], capture_output=True, check=False)


def _immutable_file(path: Path) -> None:
    """The store file alone immutable: SQLite writes through the file it has open, and is refused (issue 36)."""
    subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)


def _folder_made_file(folder: Path) -> None:
    """The data folder removed and a file written in its place: the game's file is gone with it (issue 36)."""
    shutil.rmtree(folder)
    folder.write_text("a file where the data folder was")


DAMAGE: dict[str, Callable[[Path], None]] = {
    "truncated to 0": lambda path: os.truncate(path, 0),
    "truncated mid-page": lambda path: os.truncate(path, 3000),
    "overwritten": lambda path: _overwrite(path),
    "replaced by a folder": _replace_with(_folder),
    "symlink to /dev/null": _replace_with(lambda path: path.symlink_to("/dev/null")),
    "symlink to nowhere": _replace_with(lambda path: path.symlink_to("/no/such/place/voicemaster.db")),
    "data folder removed": lambda path: shutil.rmtree(path.parent),
    "made read-only": _immutable,
    "file alone made read-only": lambda path: _immutable_file(path),
    "data folder replaced by a file": lambda path: _folder_made_file(path.parent),
}
"""What can happen to the store file (`path`) under a running game, by name (`game --damage NAME`)."""


def damage(name: str, path: Path) -> None:
    DAMAGE[name](path)
