"""SQLite keeps every game: stored after each step, the unfinished one found again, older files brought up to date."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from voicemaster.store import Store


def test_the_last_unfinished_game_is_found_again(tmp_path: Path) -> None:
    with Store(tmp_path / "vm.db") as store:
        store.save_game("one", '{"step": 1}')
        store.save_game("two", '{"step": 1}')
        store.save_game("two", '{"step": 9}', finished=True)
        store.save_game("one", '{"step": 2}')
    with Store(tmp_path / "vm.db") as store:  # after a crash: a new process opens the same file
        assert store.unfinished_game() == ("one", '{"step": 2}')
        store.save_game("one", '{"step": 3}', finished=True)
        assert store.unfinished_game() is None


def test_a_file_from_an_earlier_version_keeps_its_games(tmp_path: Path) -> None:
    path = tmp_path / "vm.db"
    with sqlite3.connect(path) as old:
        old.execute("CREATE TABLE games (id TEXT PRIMARY KEY, state TEXT NOT NULL, steps INTEGER NOT NULL DEFAULT 1, "
                    "updated TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)")  # fmt: skip
        old.execute("INSERT INTO games (id, state) VALUES ('old', '{}')")
    with Store(path) as store:
        assert store.load_game("old") == "{}"
        assert store.unfinished_game() == ("old", "{}")
        store.save_game("old", '{"step": 2}', finished=True)
        assert store.unfinished_game() is None
