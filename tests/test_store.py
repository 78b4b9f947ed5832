"""SQLite keeps every game: stored after each step, the unfinished one found again, older files brought up to date."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from voicemaster.store import Store, StoreBusy, StoreError, StoreUnwritable


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


# Faults (issue 17): a game night must not lose a game to the file it is kept in.

GAME = '{"step": 1}'


def _lock_holder(path: Path) -> subprocess.Popen[str]:
    """Another program playing: a process that holds the store and waits."""
    code = (
        "import sys, time\nfrom pathlib import Path\nfrom voicemaster.store import Store\n"
        f"store = Store(Path({str(path)!r}), exclusive=True)\nprint('ready', flush=True)\ntime.sleep(120)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    return child


def test_a_second_game_on_the_same_store_is_refused_and_a_killed_one_does_not_block(tmp_path: Path) -> None:
    path = tmp_path / "voicemaster.db"
    holder = _lock_holder(path)
    try:
        with pytest.raises(StoreBusy, match=f"already playing.*process {holder.pid}"):
            Store(path, exclusive=True)
        with Store(path) as reader:  # `history` still reads while a game runs
            assert reader.recent_games(5) == []
    finally:
        holder.send_signal(signal.SIGKILL)  # a power cut: the lock goes with the process
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()
    with Store(path, exclusive=True) as store:
        store.save_game("one", GAME)
        assert store.unfinished_game() == ("one", GAME)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda path: path.write_bytes(b"not the games you are looking for\n" * 50), id="garbage"),
        pytest.param(lambda path: path.write_bytes(path.read_bytes()[:3000] + b"\0" * 5000), id="truncated"),
    ],
)
def test_a_damaged_store_is_moved_aside_and_a_fresh_one_started(tmp_path: Path, damage: Any) -> None:
    path = tmp_path / "voicemaster.db"
    with Store(path) as store:
        for number in range(40):
            store.save_game(f"game-{number}", json.dumps({"filler": "x" * 400}))
    damage(path)
    damaged = path.read_bytes()
    notices: list[str] = []
    with Store(path, exclusive=True, notify=notices.append) as store:
        assert store.recent_games(5) == []
        store.save_game("new", GAME)
    (aside,) = tmp_path.glob("voicemaster.damaged-*.db")
    assert aside.read_bytes() == damaged  # kept as it was, never deleted
    assert len(notices) == 1 and str(aside) in notices[0] and "new one was started" in notices[0]


def test_a_stored_game_that_cannot_be_read_is_set_aside_and_the_rest_carried_over(tmp_path: Path) -> None:
    path = tmp_path / "voicemaster.db"
    with Store(path) as store:
        store.save_game("good", GAME, finished=True)
        store.save_game("bad", '{"game": {"round": ')
        store.mark_heard(["Anna"], "q1")
        store.set_aside(["bad"], "the stored game bad cannot be read")
        assert [game.id for game in store.recent_games(5)] == ["good"]
        assert store.heard("Anna") == {"q1": 1}
    (aside,) = tmp_path.glob("voicemaster.damaged-*.db")
    with Store(aside) as kept:
        assert kept.load_game("bad") == '{"game": {"round": '


def test_a_folder_where_the_store_should_be_is_explained(tmp_path: Path) -> None:
    (tmp_path / "voicemaster.db").mkdir()
    with pytest.raises(StoreError, match="is a folder where the game store should be a file"):
        Store(tmp_path / "voicemaster.db")


def test_a_data_folder_that_is_a_file_is_explained(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("not a folder", encoding="utf-8")
    with pytest.raises(StoreError, match="is a file, where voicemaster keeps its games"):
        Store(tmp_path / "data" / "voicemaster" / "voicemaster.db")


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """The file cannot be written, even by root (who ignores permissions): immutable where chattr works."""
    path.chmod(0o444)
    immutable = os.geteuid() == 0 and shutil.which("chattr") is not None
    if immutable and subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False).returncode != 0:
        pytest.skip("running as root on a file system without chattr +i: a read-only file cannot be made here")
    if os.geteuid() == 0 and not immutable:
        pytest.skip("running as root without chattr: a read-only file cannot be made here")
    try:
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(0o644)


def test_a_read_only_store_can_be_listed_but_not_played_with(tmp_path: Path) -> None:
    path = tmp_path / "voicemaster.db"
    with Store(path) as store:
        store.save_game("one", GAME)
    with read_only(path):
        with Store(path) as reader:
            assert reader.unfinished_game() == ("one", GAME)
        with pytest.raises(StoreError, match=r"is read-only: make it writable \(chmod u\+w"):
            Store(path, exclusive=True)


def test_the_store_deleted_mid_game_is_noticed_at_the_next_save_and_the_game_saved_again(tmp_path: Path) -> None:
    path = tmp_path / "voicemaster.db"
    notices: list[str] = []
    with Store(path, exclusive=True, notify=notices.append) as store:
        assert store.save_game("one", GAME) is False
        for leftover in tmp_path.glob("voicemaster.db*"):
            leftover.unlink()
        assert store.save_game("one", '{"step": 2}') is True
        assert notices and "removed during the game" in notices[0]
    with Store(path) as store:  # the next start finds the game where it was
        assert store.unfinished_game() == ("one", '{"step": 2}')


def test_a_full_disk_mid_game_is_a_store_error_that_keeps_the_last_saved_step(tmp_path: Path) -> None:
    path = tmp_path / "voicemaster.db"
    with Store(path, exclusive=True) as store:
        store.save_game("one", GAME)
        # SQLite's own ceiling on the file's pages: it then fails as on a full disk (SQLITE_FULL).
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(StoreUnwritable, match="is full: free some space"):
            store.save_game("one", json.dumps({"step": 2, "filler": "x" * 100_000}))
    with Store(path) as store:
        assert store.unfinished_game() == ("one", GAME)


def test_of_two_unfinished_games_from_before_the_newest_is_offered_and_the_older_listed_abandoned(
    tmp_path: Path,
) -> None:
    with Store(tmp_path / "vm.db") as store:  # as an earlier version left them: a no started a new game
        store.save_game("older", GAME)
        store.save_game("newer", GAME)
        assert store.unfinished_game() == ("newer", GAME)
        assert [(game.id, game.abandoned) for game in store.recent_games(5)] == [("newer", False), ("older", True)]
