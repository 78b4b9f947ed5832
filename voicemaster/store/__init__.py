"""SQLite in the user's data directory: what each player profile has heard, and every game, stored after each step.

A game night must not lose a game to the file it is kept in, so the store guards it:
- `play` holds a lock (flock on `voicemaster.lock`), so a second quizmaster on the same data folder is refused; the
  system drops the lock with the process, so a killed game never blocks the next one.
- A file that is not a database, or a damaged one, is moved aside (renamed with the time, never deleted) and a
  fresh store is started; so is one whose stored game cannot be read, and then everything readable is carried over.
- The store is not what this program last wrote (deleted, truncated, overwritten, replaced by a folder or a
  symlink, its data folder removed): noticed at the next save or read, by the file's identity, size and time as
  the last commit left them. Unless the game still reads back as it was written, whatever is there is moved aside
  and the game is saved again, whole, into a new file at the same place (each save holds the whole game, so
  nothing of it is lost; a game that stopped instead would lose the step just played and leave nothing to resume).
- Rollback journal, not WAL: every commit is in the main file, so no step lives only in a journal beside it, and
  no shared memory is mapped (a WAL's `-shm` is, and a store made read-only under a running game then killed the
  process with SIGBUS instead of a message).
- What cannot be helped (a read-only file or folder, a folder in its place at the start, a symbolic link that leads
  round to itself, a data folder that is a file or out of reach, a full disk) is a `StoreError` whose message says
  what to do; a failed save says whether the game is still kept (`StoreUnwritable.kept`), which it is not when its
  file went with its data folder.
- A store the program created and left empty (a `play` that stopped before its first step) is removed with its
  lock file, and a start that fails removes the lock file and folder it made: a failed start leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from voicemaster import paths
from voicemaster.store.files import (
    ABANDON,
    DAMAGED,
    MARK_HEARD,
    RESTORE_GAME,
    SAVE_GAME,
    SCHEMA,
    SCHEMA_VERSION,
    Damaged,
    Fingerprint,
    StoreBusy,
    StoreError,
    StoreUnwritable,
    explained,
    kept_after_failure,
    link_loop,
    looked,
    make_folder,
    migrate,
    reads_back,
    take_lock,
)

__all__ = ["Store", "StoreBusy", "StoreError", "StoreUnwritable", "StoredGame", "default_path"]

UNFINISHED, FINISHED, ABANDONED = 0, 1, 2
"""A game's `finished`: abandoned is one the players chose not to continue; it is listed, never offered again."""
MOST_ROWS = 2**63 - 1
"""SQLite's largest integer: a larger count given to it fails (OverflowError) instead of meaning "all"."""
_JOURNALS = ("-journal", "-wal", "-shm")
"""What SQLite keeps beside the file: the rollback journal, and a WAL and its index from earlier versions."""


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
        self._saved: dict[str, tuple[str, int]] = {}
        """Each game this store wrote, as it last wrote it (state, finished): what must read back, and what a new
        file gets if this one is lost."""
        self._marked: list[tuple[str, str]] = []
        """The (profile, question id) this store marked heard, for a new file when the old one cannot be read."""
        self._created = not os.path.lexists(self.path)
        lock_path = self.path.with_suffix(".lock")
        self._lock_created = exclusive and not os.path.lexists(lock_path)
        self._folder_created = not os.path.lexists(self.path.parent)
        looped = link_loop(self.path)  # before SQLite, which would say only that it cannot open it
        if looped is not None:
            raise looped
        make_folder(self.path.parent)
        self._lock = take_lock(lock_path) if exclusive else None
        try:
            self._db = self._open()
            if exclusive:
                self._check_writable()
            self._fingerprint = self._looked()
        except BaseException:
            if hasattr(self, "_db"):  # opened, then found read-only
                self._db.close()
            self._release()
            self._remove_created()
            raise

    # Opening, and what can go wrong with the file

    def _open(self) -> sqlite3.Connection:
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a folder where the game store should be a file: move it elsewhere.")
        try:
            return self._connect()
        except (sqlite3.DatabaseError, Damaged) as error:
            if isinstance(error, sqlite3.DatabaseError) and error.sqlite_errorname not in DAMAGED:
                raise explained(error, self.path, "open") from None
            self._move_aside(str(error))
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path)
        try:
            db.execute("PRAGMA mmap_size=0")  # a file mapped in memory that shrinks or stops being writable: SIGBUS
            with contextlib.suppress(sqlite3.OperationalError):  # read-only, or a game of an older version has it
                db.execute("PRAGMA journal_mode=DELETE")
            db.executescript(SCHEMA)
            migrate(db)
            check = db.execute("PRAGMA quick_check").fetchone()
            if check != ("ok",):
                raise Damaged(f"damaged: {check[0] if check else 'no answer'}")
        except (sqlite3.DatabaseError, Damaged):
            db.close()
            raise
        return db

    def _check_writable(self) -> None:
        """Before a game starts: a read-only file opens and reads fine, and would fail only at the first save."""
        try:
            with self._db:
                # A real write (SQLite takes a write lock even on a file it cannot write): the schema's version.
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as error:
            raise explained(error, self.path, "write") from None

    def _move_aside(self, reason: str, *, tell: bool = True) -> Path:
        """Renames the file (and its journal), or whatever is at its path, with the time; returns the new name.
        Nothing is deleted."""
        aside = self.path.with_name(f"{self.path.stem}.damaged-{time.strftime('%Y%m%d-%H%M%S')}{self.path.suffix}")
        number = 1
        while aside.exists():
            number += 1
            aside = aside.with_name(f"{aside.stem.split('~')[0]}~{number}{self.path.suffix}")
        try:
            for suffix in _JOURNALS:
                journal = self.path.with_name(self.path.name + suffix)
                if journal.exists():
                    journal.rename(aside.with_name(aside.name + suffix))
            self.path.rename(aside)
        except OSError as error:
            raise StoreError(
                f"the game store {self.path} is damaged ({reason}) and cannot be moved aside ({error.strerror}): "
                "move it elsewhere yourself, and a new one is started."
            ) from None
        if not tell:
            return aside
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
        try:
            self._carry_over(aside, skipped)
        except sqlite3.DatabaseError as error:
            raise explained(error, self.path, "write") from None
        self._fingerprint = self._looked()

    def _carry_over(self, aside: Path, skipped: tuple[str, ...] = ()) -> None:
        """Into the new file: the games (but `skipped`) and what each profile heard, from the file set aside."""
        self._db.execute("ATTACH DATABASE ? AS old", (str(aside),))
        try:
            with self._db:
                old = {row[1] for row in self._db.execute("PRAGMA old.table_info(heard)")}
                last = "last" if "last" in old else "0"  # a file from before `last` was kept
                self._db.execute(
                    "INSERT OR IGNORE INTO heard (profile, question_id, times, last) "
                    f"SELECT profile, question_id, times, {last} FROM old.heard"
                )
                marks = ", ".join("?" for _ in skipped)
                self._db.execute(
                    "INSERT OR IGNORE INTO games (id, state, finished, steps, updated) "
                    f"SELECT id, state, finished, steps, updated FROM old.games WHERE id NOT IN ({marks})",
                    skipped,
                )
        finally:
            with contextlib.suppress(sqlite3.DatabaseError):
                self._db.execute("DETACH DATABASE old")

    # The file under a running game: still the one this store wrote?

    def _looked(self) -> Fingerprint | None:
        return looked(self.path)

    def _ensure(self) -> bool:
        """Before a read or a write: the file is as this store's last commit left it, or every game it wrote still
        reads back as written; else the game is written afresh into a new file (True), and the user told."""
        now = self._looked()
        if now is not None and now == self._fingerprint:
            return False
        problem: str | None
        if now is None:
            there = os.path.lexists(self.path)
            problem = "was replaced by something that is not a file" if there else "was removed"
        else:
            problem = reads_back(self.path, self._saved)
            if problem is None:  # changed, but nothing of ours lost (another program read or tidied it)
                self._db.close()
                self._db = self._connect_or_explain()
                self._fingerprint = self._looked()
                return False
        self._renew(problem)
        return True

    def _renew(self, problem: str) -> None:
        """A new file at the path, holding what this store wrote and whatever the old one still gives."""
        self._db.close()
        try:
            make_folder(self.path.parent)  # the data folder itself may have been removed
            aside = self._move_aside(problem, tell=False) if os.path.lexists(self.path) else None
            self._relock()
            self._db = self._connect_or_explain()
        except StoreError as error:
            raise StoreUnwritable(str(error), kept=self._still_kept()) from None
        carried = False
        if aside is not None and aside.is_file() and not aside.is_symlink():
            with contextlib.suppress(sqlite3.DatabaseError):
                self._carry_over(aside)
                carried = True
        games: list[tuple[object, ...]] = [(game_id, *written) for game_id, written in self._saved.items()]
        steps = [(RESTORE_GAME, games)]
        if not carried:
            steps.append((MARK_HEARD, [*self._marked]))
        self._write_all(steps)
        kept = f" (what was there is kept as {aside})" if aside is not None else ""
        self._tell(f"the game store {self.path} {problem} during the game; the game is saved again into a new "
                   f"file there{kept}.")  # fmt: skip

    def _connect_or_explain(self) -> sqlite3.Connection:
        try:
            return self._connect()
        except sqlite3.DatabaseError as error:
            raise explained(error, self.path, "write") from None
        except Damaged as error:
            raise StoreError(f"cannot write the game store {self.path} ({error}).") from None

    def _relock(self) -> None:
        """A game's lock file gone with its folder: taken again, so that a second game is still refused."""
        if self._lock is None:
            return
        lock_path = self.path.with_suffix(".lock")
        held = os.fstat(self._lock.fileno())
        with contextlib.suppress(OSError):
            there = os.stat(lock_path)
            if (there.st_dev, there.st_ino) == (held.st_dev, held.st_ino):
                return
        new = take_lock(lock_path)
        self._lock.close()
        self._lock = new

    def _tell(self, notice: str) -> None:
        self.notices.append(notice)
        if self._notify is not None:
            self._notify(notice)

    def close(self) -> None:
        """Closes the file; one this store created and left empty goes, with the lock file and folder it created."""
        unused = self._created and self._looked() == self._fingerprint and self._empty()
        self._db.close()
        if unused:
            with contextlib.suppress(OSError):
                self.path.unlink()
                self._remove_created()
        self._release()

    def _remove_created(self) -> None:
        """The lock file and the data folder this store created, removed (the folder only if empty): a start that
        failed leaves nothing behind; a lock file no process holds only says a game is on when none is."""
        with contextlib.suppress(OSError):
            if self._lock_created:
                self.path.with_suffix(".lock").unlink()
            if self._folder_created:
                self.path.parent.rmdir()  # only if empty: nothing of anyone else's goes

    def _empty(self) -> bool:
        try:
            return not any(
                self._db.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() for table in ("games", "heard")
            )
        except sqlite3.DatabaseError:
            return False

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
        self._ensure()
        rows = self._db.execute("SELECT question_id, times FROM heard WHERE profile = ?", (profile,))
        return dict(rows.fetchall())

    def heard_by(self, profiles: Iterable[str]) -> dict[str, int]:
        """How often each question was asked to any of these profiles: a question one player heard is stale for all."""
        counts: dict[str, int] = {}
        for profile in profiles:
            for question_id, times in self.heard(profile).items():
                counts[question_id] = counts.get(question_id, 0) + times
        return counts

    def last_heard_by(self, profiles: Iterable[str]) -> dict[str, int]:
        """When each question any of these profiles heard was last heard by one of them, as an order (the larger,
        the more recent; 0 for what was heard before this was kept): the least recently heard come back first."""
        self._ensure()
        names = list(dict.fromkeys(profiles))
        marks = ", ".join("?" for _ in names)
        rows = self._db.execute(
            f"SELECT question_id, MAX(last) FROM heard WHERE profile IN ({marks}) GROUP BY question_id", names
        )
        return {str(question_id): int(last) for question_id, last in rows.fetchall()}

    def mark_heard(self, profiles: Iterable[str], question_id: str) -> bool:
        """Counts the question as heard by each profile. True when the store was written afresh (see `save_game`)."""
        return self.save_game("", "", heard=[(profile, question_id) for profile in profiles])

    def save_game(
        self, game_id: str, state: str, *, finished: bool = False, heard: Iterable[tuple[str, str]] = ()
    ) -> bool:
        """Stores where a game stands, and the (profile, question id) pairs `heard` with it, in one transaction:
        committed before the quizmaster announces it. True when the file was gone or not what this store wrote and
        the game was saved into a new one (the caller tells the players); raises StoreUnwritable. An empty
        `game_id` stores only `heard`."""
        renewed = self._ensure()
        marks = list(heard)
        finished_as = FINISHED if finished else UNFINISHED
        steps: list[tuple[str, list[tuple[object, ...]]]] = [(MARK_HEARD, list(marks))]
        if game_id:
            steps.append((SAVE_GAME, [(game_id, state, finished_as)]))
        self._write_all(steps)
        self._marked += marks
        if game_id:
            self._saved[game_id] = (state, finished_as)
        return renewed

    def abandon(self, game_id: str) -> None:
        """The players chose not to continue this game: it stays listed, and is not offered again."""
        self._ensure()
        self._write_all([(ABANDON, [(ABANDONED, game_id, UNFINISHED)])])
        if game_id in self._saved and self._saved[game_id][1] == UNFINISHED:
            self._saved[game_id] = (self._saved[game_id][0], ABANDONED)

    def _write_all(self, steps: list[tuple[str, list[tuple[object, ...]]]]) -> None:
        """Each statement with each of its rows, in one transaction."""
        try:
            with self._db:
                for sql, rows in steps:
                    if rows:
                        self._db.executemany(sql, rows)
        except sqlite3.DatabaseError as error:
            raise StoreUnwritable(str(explained(error, self.path, "write")), kept=self._still_kept()) from None
        self._fingerprint = self._looked()

    def _still_kept(self) -> bool:
        """Whether the file at the path holds every game this store wrote, as it last wrote it (a failed write is
        rolled back): what a failed save may promise the players. Not when the file went with its folder."""
        now = self._looked()
        if now is not None and self._fingerprint is not None and now[:4] == self._fingerprint[:4]:
            return True  # the file the last commit went to: its journal keeps that commit, whatever the write did
        return kept_after_failure(self.path, self._saved)

    def unfinished_game(self) -> tuple[str, str] | None:
        """The most recent game that did not end, as (id, state): a crash, a power cut or Ctrl-C left it."""
        self._ensure()
        row = self._db.execute(
            "SELECT id, state FROM games WHERE finished = ? ORDER BY updated DESC, rowid DESC LIMIT 1", (UNFINISHED,)
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def recent_games(self, limit: int) -> list[StoredGame]:
        """The most recently played games first, finished or not. Of games left unfinished, only the newest can be
        offered again; older ones (from before games were abandoned explicitly) are listed as abandoned. A `limit`
        beyond what SQLite counts (more than 2⁶³ - 1) is every game; none below 1."""
        rows = self._db.execute(
            "SELECT id, state, finished, updated FROM games ORDER BY updated DESC, rowid DESC LIMIT ?",
            (min(max(limit, 0), MOST_ROWS),),
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
