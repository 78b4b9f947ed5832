"""The game store's file at the edge: its schema, the lock that keeps one game at a time, its folder, its
identity as a running game last left it, and SQLite's failures in words a player can act on."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sqlite3
import stat
import sys
import tempfile
from pathlib import Path
from typing import IO

SCHEMA = """
CREATE TABLE IF NOT EXISTS heard (
    profile TEXT NOT NULL,
    question_id TEXT NOT NULL,
    times INTEGER NOT NULL DEFAULT 1,
    last INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (profile, question_id)
);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    steps INTEGER NOT NULL DEFAULT 1,
    updated TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
);
"""
SCHEMA_VERSION = 3
"""1: games with `finished` 0 or 1; 2: also 2, abandoned; 3: `heard.last`, the order of the latest hearing. Stored
as SQLite's user_version."""
DAMAGED = {"SQLITE_NOTADB", "SQLITE_CORRUPT"}
Fingerprint = tuple[int, int, int, int, int, int]
"""The path's own identity (a symlink's, if it is one), the file's identity, size and modification time."""


class StoreError(RuntimeError):
    """The game store cannot be used; the message says why and what to do."""


class StoreBusy(StoreError):
    """Another voicemaster holds the store."""


class StoreUnwritable(StoreError):
    """A step of the game could not be saved. `kept`: the store file still holds every game as last saved (a
    read-only file, a full disk), so the game may be continued once the fault is mended; False when the file is gone
    with it (its data folder replaced by a file), which a message must then say."""

    def __init__(self, message: str, *, kept: bool) -> None:
        super().__init__(message)
        self.kept = kept


class Damaged(Exception):
    """SQLite opened the file, but its own check found it damaged."""


def looked(path: Path) -> Fingerprint | None:
    """The file at `path` as it is now; None when no regular file is there (gone, a folder, a symlink to nothing or
    to a device)."""
    try:
        link, target = os.lstat(path), os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(target.st_mode):
        return None
    return (link.st_dev, link.st_ino, target.st_dev, target.st_ino, target.st_size, target.st_mtime_ns)


MARK_HEARD = (
    "INSERT INTO heard (profile, question_id, last) VALUES (?, ?, (SELECT COALESCE(MAX(last), 0) + 1 FROM heard)) "
    "ON CONFLICT (profile, question_id) DO UPDATE SET times = times + 1, last = excluded.last"
)
"""Each hearing gets the next number in `last`: a question's latest hearing orders it among all the others, where
SQLite's clock (whole seconds) would give a game's questions one time."""
SAVE_GAME = (
    "INSERT INTO games (id, state, finished) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
    "state = excluded.state, finished = excluded.finished, steps = steps + 1, updated = CURRENT_TIMESTAMP"
)
RESTORE_GAME = "INSERT OR REPLACE INTO games (id, state, finished) VALUES (?, ?, ?)"
ABANDON = "UPDATE games SET finished = ? WHERE id = ? AND finished = ?"


def migrate(db: sqlite3.Connection) -> None:
    """Brings a file written by an earlier version up to this schema; its games and history stay."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
    if "finished" not in columns:
        with db:
            db.execute("ALTER TABLE games ADD COLUMN finished INTEGER NOT NULL DEFAULT 0")
    if "last" not in {row[1] for row in db.execute("PRAGMA table_info(heard)")}:
        with db:  # heard before this version: all of it before anything heard from now on
            db.execute("ALTER TABLE heard ADD COLUMN last INTEGER NOT NULL DEFAULT 0")


def make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise StoreError(
            f"{folder} (or a folder above it) is a file, where voicemaster keeps its games: move that file "
            "elsewhere, or point XDG_DATA_HOME to another folder."
        ) from None
    except OSError as error:
        raise StoreError(
            f"cannot use the data folder {folder} ({error.strerror}): make it reachable and writable, or point "
            "XDG_DATA_HOME to another folder."
        ) from None


def take_lock(path: Path) -> IO[str] | None:
    """An exclusive lock held while the file stays open; the system drops it when the process ends, however."""
    if sys.platform == "win32":  # one game at a time is not enforced there
        return None
    import fcntl

    try:
        lock = path.open("a+", encoding="utf-8")
    except OSError as error:
        mend = f" ({_MENDS})" if error.errno in _READ_ONLY else ""
        raise StoreError(
            f"cannot use the data folder {path.parent}: its lock file cannot be opened ({error.strerror}): make the "
            f"folder and its files writable{mend}."
        ) from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip()
        lock.close()
        who = f" (process {holder})" if holder.isdigit() else ""
        raise StoreBusy(
            f"another voicemaster is already playing with the games in {path.parent}{who}: one game at a time. "
            "End that game first (say: quit), or stop that program."
        ) from None
    try:
        there, held = os.stat(path), os.fstat(lock.fileno())
        replaced = (there.st_dev, there.st_ino) != (held.st_dev, held.st_ino)
    except OSError:
        replaced = True
    if replaced:  # removed by a game that closed an empty store between our open and our lock: take the new file
        lock.close()
        return take_lock(path)
    lock.seek(0)
    lock.truncate()
    lock.write(str(os.getpid()))
    lock.flush()
    return lock


def explained(error: sqlite3.DatabaseError, path: Path, doing: str) -> StoreError:
    """A SQLite failure in words a player can act on. SQLite names a write the system refused a disk I/O error, or
    read-only, or cannot-open, alike: what is refused (the file, or the folder its journal goes in) is asked of the
    system itself, so that a read-only store is never sent to look for free space."""
    name = error.sqlite_errorname or ""
    looped = link_loop(path)
    if looped is not None:
        return looped
    refused = _refused_write(path) if doing == "write" or name in ("SQLITE_READONLY", "SQLITE_CANTOPEN") else None
    if refused is not None:
        return refused
    if name == "SQLITE_READONLY":
        return StoreError(f"the game store {path} is read-only: make it writable (chmod u+w {path}).")
    if name == "SQLITE_FULL":
        return StoreError(f"the disk holding the game store {path} is full: free some space.")
    if name.startswith("SQLITE_IOERR") and doing == "write":
        return StoreError(f"cannot write the game store {path} (disk I/O error): check that its disk has free space "
                          "and is still there.")  # fmt: skip
    if name == "SQLITE_BUSY":
        return StoreBusy(f"the game store {path} is busy with another program: try again in a moment.")
    if name == "SQLITE_CANTOPEN":
        return StoreError(f"cannot open the game store {path}: check that its folder can be read and written.")
    return StoreError(f"cannot {doing} the game store {path} ({error}).")


_READ_ONLY = {errno.EACCES, errno.EPERM, errno.EROFS}
_MENDS = "chmod u+w; chattr -i if it was made immutable"


def _refused_write(path: Path) -> StoreError | None:
    """The store file, or its folder, that the system will not let this program write (a mode, the immutable
    attribute, a read-only file system), as a message; None if both can be written."""
    try:
        descriptor = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
        os.close(descriptor)
    except OSError as error:
        if error.errno == errno.EROFS:
            return StoreError(f"the game store {path} is on a read-only file system: mount it writable, or point "
                              "XDG_DATA_HOME to another folder.")  # fmt: skip
        if error.errno in _READ_ONLY:
            return StoreError(f"the game store {path} is read-only ({error.strerror}): make it writable ({_MENDS}).")
    try:  # SQLite writes its journal beside the file: the folder must take a new file
        descriptor, name = tempfile.mkstemp(prefix=".voicemaster-check.", dir=path.parent)
        os.close(descriptor)
        os.unlink(name)
    except OSError as error:
        if error.errno in _READ_ONLY:
            return StoreError(f"the folder {path.parent} of the game store is read-only ({error.strerror}), and "
                              f"SQLite keeps its journal there: make it writable ({_MENDS}).")  # fmt: skip
    return None


def link_loop(path: Path) -> StoreError | None:
    """The store's path as a symbolic link that leads round to itself (directly or through other links), as a
    message; None if it is none."""
    try:
        os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return StoreError(
                f"the game store {path} is a symbolic link that leads round to itself ({error.strerror}): remove "
                f"it (rm {path}) and a new store is started, or point it to your store file."
            )
    return None


def kept_after_failure(path: Path, saved: dict[str, tuple[str, int]]) -> bool:
    """Whether the next open of the store will find every game in `saved` as written, after a write failed: checked
    on a copy of the file and of the journal the failed write left (SQLite rolls that journal back when it next
    opens the file, which this program cannot do on a file it may not write)."""
    if looked(path) is None:
        return False
    try:
        with tempfile.TemporaryDirectory(prefix="voicemaster-kept-") as folder:
            copy = Path(folder) / path.name
            shutil.copyfile(path, copy)
            journal = path.with_name(path.name + "-journal")
            if journal.is_file():
                shutil.copyfile(journal, copy.with_name(copy.name + "-journal"))
            return reads_back(copy, saved, mode="rw") is None
    except OSError:
        return False


def reads_back(path: Path, saved: dict[str, tuple[str, int]], *, mode: str = "ro") -> str | None:
    """None when the file is sound and holds every game in `saved` (id: state, finished) as written; else what is
    wrong with it. Read-only by default: a damaged file is kept as it was found."""
    if saved and os.stat(path).st_size == 0:
        return "was emptied"
    try:
        with contextlib.closing(sqlite3.connect(f"{path.absolute().as_uri()}?mode={mode}", uri=True)) as db:
            check = db.execute("PRAGMA quick_check").fetchone()
            if check != ("ok",):
                return f"was damaged ({check[0] if check else 'no answer'})"
            for game_id, written in saved.items():
                row = db.execute("SELECT state, finished FROM games WHERE id = ?", (game_id,)).fetchone()
                if row is None or tuple(row) != written:
                    return "was changed by another program"
    except sqlite3.DatabaseError as error:
        return f"was damaged ({error})"
    return None
