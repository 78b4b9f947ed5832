"""SQLite in the user's data directory: what each player profile has heard, and every game, stored after each step.

A game night must not lose a game to the file it is kept in, so the store guards it:
- `play` holds a lock (flock on `voicemaster.lock`), so a second quizmaster on the same data folder is refused; the
  system drops the lock with the process, so a killed game never blocks the next one.
- A file that is not a database, or a damaged one, is moved aside (renamed with the time, never deleted) and a
  fresh store is started; so is one whose stored game cannot be read, and then everything readable is carried over.
- The file deleted while a game runs is noticed at the next save: the game is saved again, whole, into a new file
  at the same place (each save holds the whole game, so nothing of it is lost; a game that stopped instead would
  lose the step just played and leave nothing to resume).
- What cannot be helped (a read-only file, a folder in its place, a data folder that is a file or out of reach, a
  full disk) is a `StoreError` whose message says what to do.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from voicemaster import paths

SCHEMA = """
CREATE TABLE IF NOT EXISTS heard (
    profile TEXT NOT NULL,
    question_id TEXT NOT NULL,
    times INTEGER NOT NULL DEFAULT 1,
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
SCHEMA_VERSION = 2
"""1: games with `finished` 0 or 1; 2: also 2, abandoned. Stored as SQLite's user_version."""
UNFINISHED, FINISHED, ABANDONED = 0, 1, 2
"""A game's `finished`: abandoned is one the players chose not to continue; it is listed, never offered again."""
_DAMAGED = {"SQLITE_NOTADB", "SQLITE_CORRUPT"}


class StoreError(RuntimeError):
    """The game store cannot be used; the message says why and what to do."""


class StoreBusy(StoreError):
    """Another voicemaster holds the store."""


class StoreUnwritable(StoreError):
    """A step of the game could not be saved."""


class _Damaged(Exception):
    """SQLite opened the file, but its own check found it damaged."""


@dataclass(frozen=True)
class StoredGame:
    id: str
    state: str
    finished: bool
    updated: str
    """UTC, as SQLite writes it: "2026-11-22 09:54:52"."""
    abandoned: bool = False
    """Not finished, and never to be offered again: the players said no to continuing it."""


def default_path() -> Path:
    """In the platform's data folder: ~/.local/share/voicemaster (or under $XDG_DATA_HOME) on Linux."""
    return paths.data_dir() / "voicemaster.db"


class Store:
    """The store at `path`; `exclusive` (a game) holds the lock and checks the file can be written before play."""

    def __init__(
        self, path: Path | None = None, *, exclusive: bool = False, notify: Callable[[str], None] | None = None
    ) -> None:
        self.path = path or default_path()
        self.notices: list[str] = []
        """What the user should know of the store (a file moved aside, renewed); also given to `notify`."""
        self._notify = notify
        _make_folder(self.path.parent)
        self._lock = _take_lock(self.path.with_suffix(".lock")) if exclusive else None
        try:
            self._db = self._open()
            if exclusive:
                self._check_writable()
        except BaseException:
            self._release()
            raise

    # Opening, and what can go wrong with the file

    def _open(self) -> sqlite3.Connection:
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a folder where the game store should be a file: move it elsewhere.")
        try:
            return self._connect()
        except (sqlite3.DatabaseError, _Damaged) as error:
            if isinstance(error, sqlite3.DatabaseError) and error.sqlite_errorname not in _DAMAGED:
                raise _explained(error, self.path, "open") from None
            self._move_aside(str(error))
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)
            _migrate(db)
            check = db.execute("PRAGMA quick_check").fetchone()
            if check != ("ok",):
                raise _Damaged(f"damaged: {check[0] if check else 'no answer'}")
        except (sqlite3.DatabaseError, _Damaged):
            db.close()
            raise
        stat = os.stat(self.path)
        self._identity = (stat.st_dev, stat.st_ino)
        return db

    def _check_writable(self) -> None:
        """Before a game starts: a read-only file opens and reads fine, and would fail only at the first save."""
        try:
            with self._db:
                # A real write (SQLite takes a write lock even on a file it cannot write): the schema's version.
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as error:
            raise _explained(error, self.path, "write") from None

    def _move_aside(self, reason: str) -> Path:
        """Renames the file (and its journal) with the time; returns the new name. Nothing is deleted."""
        aside = self.path.with_name(f"{self.path.stem}.damaged-{time.strftime('%Y%m%d-%H%M%S')}{self.path.suffix}")
        number = 1
        while aside.exists():
            number += 1
            aside = aside.with_name(f"{aside.stem.split('~')[0]}~{number}{self.path.suffix}")
        try:
            for suffix in ("-wal", "-shm"):
                journal = self.path.with_name(self.path.name + suffix)
                if journal.exists():
                    journal.rename(aside.with_name(aside.name + suffix))
            self.path.rename(aside)
        except OSError as error:
            raise StoreError(
                f"the game store {self.path} is damaged ({reason}) and cannot be moved aside ({error.strerror}): "
                "move it elsewhere yourself, and a new one is started."
            ) from None
        self._tell(f"the game store {self.path} could not be read ({reason}); it is kept as {aside}, and a new one "
                   "was started.")  # fmt: skip
        return aside

    def set_aside(self, unreadable: Iterable[str], reason: str) -> None:
        """Some stored games cannot be read: the file is moved aside as it is, and a fresh store gets everything
        else (the other games, what each profile heard)."""
        skipped = tuple(unreadable)
        self._db.close()
        aside = self._move_aside(reason)
        self._db = self._connect()
        self._db.execute("ATTACH DATABASE ? AS old", (str(aside),))
        try:
            with self._db:
                self._db.execute("INSERT OR IGNORE INTO heard SELECT profile, question_id, times FROM old.heard")
                marks = ", ".join("?" for _ in skipped)
                self._db.execute(
                    "INSERT OR IGNORE INTO games (id, state, finished, steps, updated) "
                    f"SELECT id, state, finished, steps, updated FROM old.games WHERE id NOT IN ({marks})",
                    skipped,
                )
        except sqlite3.DatabaseError as error:
            raise _explained(error, self.path, "write") from None
        finally:
            self._db.execute("DETACH DATABASE old")

    def _vanished(self) -> bool:
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return True
        return (stat.st_dev, stat.st_ino) != self._identity

    def _tell(self, notice: str) -> None:
        self.notices.append(notice)
        if self._notify is not None:
            self._notify(notice)

    def close(self) -> None:
        self._db.close()
        self._release()

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.close()  # closing the file drops the lock
            self._lock = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # What the game reads and writes

    def heard(self, profile: str) -> dict[str, int]:
        """How often each question was asked to this profile, over all games."""
        rows = self._db.execute("SELECT question_id, times FROM heard WHERE profile = ?", (profile,))
        return dict(rows.fetchall())

    def heard_by(self, profiles: Iterable[str]) -> dict[str, int]:
        """How often each question was asked to any of these profiles: a question one player heard is stale for all."""
        counts: dict[str, int] = {}
        for profile in profiles:
            for question_id, times in self.heard(profile).items():
                counts[question_id] = counts.get(question_id, 0) + times
        return counts

    def mark_heard(self, profiles: Iterable[str], question_id: str) -> None:
        self._write(
            "INSERT INTO heard (profile, question_id) VALUES (?, ?) "
            "ON CONFLICT (profile, question_id) DO UPDATE SET times = times + 1",
            [(profile, question_id) for profile in profiles],
        )

    def save_game(self, game_id: str, state: str, *, finished: bool = False) -> bool:
        """Stores where a game stands; committed before the quizmaster announces it. True when the file had gone
        and the game was saved into a new one (the caller tells the players); raises StoreUnwritable."""
        renewed = self._vanished()
        if renewed:
            self._db.close()
            self._db = self._connect()
            self._tell(f"the game store {self.path} was removed during the game; the game is saved again into a new "
                       "file there.")  # fmt: skip
        self._write(
            "INSERT INTO games (id, state, finished) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            "state = excluded.state, finished = excluded.finished, steps = steps + 1, updated = CURRENT_TIMESTAMP",
            [(game_id, state, FINISHED if finished else UNFINISHED)],
        )
        return renewed

    def abandon(self, game_id: str) -> None:
        """The players chose not to continue this game: it stays listed, and is not offered again."""
        self._write("UPDATE games SET finished = ? WHERE id = ? AND finished = ?", [(ABANDONED, game_id, UNFINISHED)])

    def _write(self, sql: str, rows: list[tuple[object, ...]]) -> None:
        try:
            with self._db:
                self._db.executemany(sql, rows)
        except sqlite3.DatabaseError as error:
            raise StoreUnwritable(str(_explained(error, self.path, "write"))) from None

    def unfinished_game(self) -> tuple[str, str] | None:
        """The most recent game that did not end, as (id, state): a crash, a power cut or Ctrl-C left it."""
        row = self._db.execute(
            "SELECT id, state FROM games WHERE finished = ? ORDER BY updated DESC, rowid DESC LIMIT 1", (UNFINISHED,)
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def recent_games(self, limit: int) -> list[StoredGame]:
        """The most recently played games first, finished or not. Of games left unfinished, only the newest can be
        offered again; older ones (from before games were abandoned explicitly) are listed as abandoned."""
        rows = self._db.execute(
            "SELECT id, state, finished, updated FROM games ORDER BY updated DESC, rowid DESC LIMIT ?", (limit,)
        ).fetchall()
        offered = self.unfinished_game()
        return [
            StoredGame(
                str(i),
                str(state),
                finished == FINISHED,
                str(updated),
                finished == ABANDONED or (finished == UNFINISHED and (offered is None or offered[0] != i)),
            )
            for i, state, finished, updated in rows
        ]

    def load_game(self, game_id: str) -> str | None:
        row = self._db.execute("SELECT state FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else str(row[0])


def _migrate(db: sqlite3.Connection) -> None:
    """Brings a file written by an earlier version up to this schema; its games and history stay."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
    if "finished" not in columns:
        with db:
            db.execute("ALTER TABLE games ADD COLUMN finished INTEGER NOT NULL DEFAULT 0")


def _make_folder(folder: Path) -> None:
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


def _take_lock(path: Path) -> IO[str] | None:
    """An exclusive lock held while the file stays open; the system drops it when the process ends, however."""
    if sys.platform == "win32":  # one game at a time is not enforced there
        return None
    import fcntl

    try:
        lock = path.open("a+", encoding="utf-8")
    except OSError as error:
        raise StoreError(f"cannot use the data folder {path.parent} ({error.strerror}): make it writable.") from None
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
    lock.seek(0)
    lock.truncate()
    lock.write(str(os.getpid()))
    lock.flush()
    return lock


def _explained(error: sqlite3.DatabaseError, path: Path, doing: str) -> StoreError:
    """A SQLite failure in words a player can act on."""
    name = error.sqlite_errorname
    if name == "SQLITE_READONLY" or (name == "SQLITE_CANTOPEN" and path.exists() and doing == "write"):
        return StoreError(f"the game store {path} is read-only: make it writable (chmod u+w {path}).")
    if name == "SQLITE_FULL":
        return StoreError(f"the disk holding the game store {path} is full: free some space.")
    if name == "SQLITE_BUSY":
        return StoreBusy(f"the game store {path} is busy with another program: try again in a moment.")
    if name == "SQLITE_CANTOPEN":
        return StoreError(f"cannot open the game store {path}: check that its folder can be read and written.")
    return StoreError(f"cannot {doing} the game store {path} ({error}).")
