"""SQLite in the user's data directory: what each player profile has heard, and every game, stored after each step."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

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


@dataclass(frozen=True)
class StoredGame:
    id: str
    state: str
    finished: bool
    updated: str
    """UTC, as SQLite writes it: "2026-11-22 09:54:52"."""


def default_path() -> Path:
    """In the platform's data folder: ~/.local/share/voicemaster (or under $XDG_DATA_HOME) on Linux."""
    return paths.data_dir() / "voicemaster.db"


class Store:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)
        self._migrate()

    def _migrate(self) -> None:
        """Brings a file written by an earlier version up to this schema; its games and history stay."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(games)")}
        if "finished" not in columns:
            with self._db:
                self._db.execute("ALTER TABLE games ADD COLUMN finished INTEGER NOT NULL DEFAULT 0")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

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
        with self._db:
            self._db.executemany(
                "INSERT INTO heard (profile, question_id) VALUES (?, ?) "
                "ON CONFLICT (profile, question_id) DO UPDATE SET times = times + 1",
                [(profile, question_id) for profile in profiles],
            )

    def save_game(self, game_id: str, state: str, *, finished: bool = False) -> None:
        """Stores where a game stands; committed before the quizmaster announces it."""
        with self._db:
            self._db.execute(
                "INSERT INTO games (id, state, finished) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
                "state = excluded.state, finished = excluded.finished, steps = steps + 1, updated = CURRENT_TIMESTAMP",
                (game_id, state, int(finished)),
            )

    def unfinished_game(self) -> tuple[str, str] | None:
        """The most recent game that did not end, as (id, state): a crash, a power cut or Ctrl-C left it."""
        row = self._db.execute(
            "SELECT id, state FROM games WHERE finished = 0 ORDER BY updated DESC, rowid DESC LIMIT 1"
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def recent_games(self, limit: int) -> list[StoredGame]:
        """The most recently played games first, finished or not."""
        rows = self._db.execute(
            "SELECT id, state, finished, updated FROM games ORDER BY updated DESC, rowid DESC LIMIT ?", (limit,)
        )
        return [StoredGame(str(i), str(state), bool(finished), str(updated)) for i, state, finished, updated in rows]

    def load_game(self, game_id: str) -> str | None:
        row = self._db.execute("SELECT state FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else str(row[0])
