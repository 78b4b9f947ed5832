"""Writing an imported pack: in our format, atomically, never over anything but a pack file, and one import at a
time (`one_import_at_a_time`): two imports of the same questions at once would each check against a bank without the
other's, and both write them."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from voicemaster import paths
from voicemaster.questions.model import Entry


class ImportFailed(ValueError):
    """The input cannot be imported; nothing was written."""


def to_toml(entries: list[Entry]) -> str:
    """A pack file in our format (questions/FORMAT.md)."""
    first = entries[0]
    lines = [
        "[pack]",
        f"language = {_string(first.language)}",
        'format = "millionaire"',
        f"source = {_string(first.source)}",
        f"license = {_string(first.license)}",
    ]
    for entry in entries:
        lines += [
            "",
            "[[question]]",
            f"id = {_string(entry.id)}",
            f"level = {entry.level}",
            f"category = {_string(entry.category)}",
            f"question = {_string(entry.question)}",
            "options = [" + ", ".join(_string(o) for o in entry.options) + "]",
            f"answer = {_string(entry.answer)}",
            f"explanation = {_string(entry.explanation)}",
        ]
    return "\n".join(lines) + "\n"


def _string(text: Any) -> str:
    """A TOML basic string; JSON's escapes are a subset TOML accepts."""
    return json.dumps(str(text), ensure_ascii=False).replace("\x7f", "\\u007f")


def write_pack(entries: list[Entry], out: Path) -> None:
    """Write atomically: a half-written pack would break validation of the whole bank. Only a regular file is
    replaced: a FIFO, a device, a folder or a symlink at `out` is refused, and left as it was."""
    if not entries:
        raise ImportFailed("no question could be imported; nothing written")
    refusal = paths.pack_name_problem(out) or _not_replaceable(out)
    if refusal:
        raise ImportFailed(
            f"{paths.shown(out)}: {refusal}; give --out the path of a new or existing pack file; nothing written"
        )
    partial: Path | None = None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        # A fresh name (O_EXCL): a FIFO or a link left where a fixed ".partial" name would be is never opened.
        handle, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent)
        partial = Path(name)
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(to_toml(entries))
        os.chmod(partial, 0o644)
        partial.replace(out)
    except OSError as error:
        if partial is not None:
            partial.unlink(missing_ok=True)
        raise ImportFailed(f"{out}: cannot be written ({error.strerror or error}); nothing written") from None


def _not_replaceable(out: Path) -> str | None:
    """Why `out` must not be replaced by a pack, or None if it is a regular file or nothing yet."""
    try:
        info = out.lstat()
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"cannot be checked ({error.strerror or error})"
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link, not a pack file"
    if stat.S_ISDIR(info.st_mode):
        return "is a folder"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file (a FIFO, a device or a socket)"
    return None


@contextlib.contextmanager
def one_import_at_a_time(lock_path: Path, waiting: Callable[[], None]) -> Iterator[None]:
    """Holds the import lock (flock on `lock_path`) while an import checks its questions against the bank and writes
    its pack; an import that finds it held calls `waiting` once and waits for it. The system drops the lock with its
    process, so a killed import never blocks the next. Where no lock can be taken (Windows, an unwritable folder)
    the import goes on unlocked, as it always did."""
    lock = _opened(lock_path)
    if lock is None or sys.platform == "win32":
        yield
        return
    import fcntl

    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            waiting()
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield
    finally:
        lock.close()  # closing the file drops the lock


def _opened(path: Path) -> IO[str] | None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return path.open("a", encoding="utf-8")
    except OSError:
        return None
