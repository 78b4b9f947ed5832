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
        assert ("bad", '{"game": {"round": ') in [(game.id, game.state) for game in kept.recent_games(5)]


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
        with pytest.raises(StoreError, match=r"is read-only \(.+\): make it writable \(chmod u\+w"):
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


# Issue 25: the store changed under a running game is noticed at the next save, said, and the game kept.

STEP_TWO = '{"step": 2}'


def _garbage(path: Path) -> None:
    path.write_bytes(b"overwritten by something else " * 200)


def _symlink_to(target: str) -> Any:
    def replace(path: Path) -> None:
        path.unlink()
        path.symlink_to(target)

    return replace


def _folder(path: Path) -> None:
    path.unlink()
    path.mkdir()
    (path / "something").write_text("a user's file", encoding="utf-8")


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        pytest.param(lambda path: os.truncate(path, 0), "was emptied", id="truncated-to-0"),
        pytest.param(lambda path: os.truncate(path, 3000), "was damaged", id="truncated-mid-page"),
        pytest.param(_garbage, "was damaged", id="overwritten"),
        pytest.param(_folder, "replaced by something that is not a file", id="a-folder-in-its-place"),
        pytest.param(_symlink_to("/dev/null"), "replaced by something that is not a file", id="symlink-to-dev-null"),
        pytest.param(_symlink_to("/no/such/place"), "replaced by something that is not a file", id="symlink-nowhere"),
        pytest.param(lambda path: shutil.rmtree(path.parent), "was removed", id="data-folder-removed"),
    ],
)
def test_a_store_damaged_or_replaced_under_a_running_game_is_noticed_said_and_the_game_written_afresh(
    tmp_path: Path, damage: Any, said: str
) -> None:
    path = tmp_path / "data" / "voicemaster.db"
    notices: list[str] = []
    with Store(path, exclusive=True, notify=notices.append) as store:
        for number in range(30):  # other games, so that the file is more than its first page
            store.save_game(f"older-{number}", json.dumps({"filler": "x" * 400}), finished=True)
        store.save_game("one", GAME, heard=[("Anna", "q1")])
        damage(path)
        assert store.save_game("one", STEP_TWO) is True
        assert len(notices) == 1 and said in notices[0] and "saved again into a new file" in notices[0]
        assert store.save_game("one", '{"step": 3}') is False  # the new file is its own again: nothing more to say
        with pytest.raises(StoreBusy):  # the lock was taken again with the folder
            Store(path, exclusive=True)
    assert path.is_file() and not path.is_symlink()
    with Store(path) as store:  # the next start finds the game where it was, and what Anna heard
        assert store.unfinished_game() == ("one", '{"step": 3}')
        assert store.heard("Anna") == {"q1": 1}


def test_every_step_is_in_the_main_file_so_a_journal_removed_or_damaged_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "voicemaster.db"
    with Store(path, exclusive=True) as store:
        store.save_game("one", GAME)
        store.save_game("one", STEP_TWO)
        copy = tmp_path / "copy" / "voicemaster.db"
        copy.parent.mkdir()
        shutil.copyfile(path, copy)  # the file alone, as a removed or damaged journal beside it would leave it
        assert not list(tmp_path.glob("voicemaster.db-*"))  # nothing beside the file once a step is stored
        with Store(copy) as alone:
            assert alone.unfinished_game() == ("one", STEP_TWO)


def test_a_store_changed_but_holding_the_game_as_written_carries_on_without_a_word(tmp_path: Path) -> None:
    path = tmp_path / "voicemaster.db"
    notices: list[str] = []
    with Store(path, exclusive=True, notify=notices.append) as store:
        store.save_game("one", GAME)
        with sqlite3.connect(path) as other:  # another program tidies the file; the game is as it was
            other.execute("VACUUM")
        os.utime(path, ns=(1, 1))
        assert store.save_game("one", STEP_TWO) is False
    assert notices == []
    assert not list(tmp_path.glob("voicemaster.damaged-*"))


_READ_ONLY_MID_GAME = """
import subprocess, sys
from pathlib import Path
from voicemaster.store import Store, StoreUnwritable
folder = Path(sys.argv[1])
store = Store(folder / "voicemaster.db", exclusive=True)
store.save_game("one", '{"step": 1}')
for path in [*folder.glob("*"), folder]:
    subprocess.run(["chattr", "+i", str(path)], check=True)
try:
    store.save_game("one", '{"step": 2}')
except StoreUnwritable as error:
    print(error, flush=True)
    store.close()
    sys.exit(2)
"""


def test_a_store_made_read_only_mid_game_is_a_message_and_exit_2_never_a_signal_death(tmp_path: Path) -> None:
    if os.geteuid() != 0 or shutil.which("chattr") is None:
        pytest.skip("an immutable file needs root and chattr")
    folder = tmp_path / "data"
    folder.mkdir()
    try:
        done = subprocess.run(
            [sys.executable, "-c", _READ_ONLY_MID_GAME, str(folder)], capture_output=True, text=True, check=False
        )
    finally:
        for path in [folder, *folder.glob("*")]:
            subprocess.run(["chattr", "-i", str(path)], capture_output=True, check=False)
    if done.returncode == 1 and "Operation not supported" in done.stderr:
        pytest.skip("this file system has no immutable attribute")
    if done.returncode == 0 and not done.stdout:
        pytest.skip("this file system (tmpfs) still writes a file made immutable through a descriptor already open")
    assert done.returncode == 2, f"ended by {done.returncode}: {done.stderr[-300:]}"  # -7 was SIGBUS
    assert "is read-only (" in done.stdout and "make it writable (chmod u+w" in done.stdout


def test_a_store_created_and_left_empty_leaves_nothing_behind(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with Store(folder / "voicemaster.db", exclusive=True) as store:  # a `play` that stops before its first step
        assert store.unfinished_game() is None
    assert not folder.exists()  # nor the folder made for it
    with Store(folder / "voicemaster.db", exclusive=True) as store:
        store.save_game("one", GAME)
    with Store(folder / "voicemaster.db", exclusive=True) as store:  # one that had games is kept, even emptied
        store.abandon("one")
    assert sorted(path.name for path in folder.iterdir()) == ["voicemaster.db", "voicemaster.lock"]


_IMMUTABLE_MID_GAME = """
import subprocess, sys
from pathlib import Path
from voicemaster.store import Store, StoreUnwritable
folder, which = Path(sys.argv[1]), sys.argv[2]
store = Store(folder / "voicemaster.db", exclusive=True)
store.save_game("one", '{"step": 1}')
subprocess.run(["chattr", "+i", str(folder / "voicemaster.db" if which == "file" else folder)], check=True)
try:
    store.save_game("one", '{"step": 2}')
except StoreUnwritable as error:
    print("kept" if error.kept else "lost", error, flush=True)
    store.close()
    sys.exit(2)
"""


@pytest.mark.parametrize(
    ("which", "said"),
    [
        ("file", "voicemaster.db is read-only (Operation not permitted): make it writable (chmod u+w; chattr -i"),
        ("folder", "of the game store is read-only (Operation not permitted), and SQLite keeps its journal there"),
    ],
)
def test_an_immutable_store_or_folder_mid_game_is_read_only_not_a_disk_fault(
    tmp_path: Path, which: str, said: str
) -> None:
    """The file alone made immutable under a running game: SQLite's write through its open file is refused and it
    says "disk I/O error"; the message must say read-only, and the game is kept at its last step."""
    if os.geteuid() != 0 or shutil.which("chattr") is None:
        pytest.skip("an immutable file needs root and chattr")
    folder = tmp_path / "data"
    folder.mkdir()
    try:
        done = subprocess.run(
            [sys.executable, "-c", _IMMUTABLE_MID_GAME, str(folder), which], capture_output=True, text=True, check=False
        )
    finally:
        for path in [folder, *folder.glob("*")]:
            subprocess.run(["chattr", "-i", str(path)], capture_output=True, check=False)
    if done.returncode == 1 and "Operation not supported" in done.stderr:
        pytest.skip("this file system has no immutable attribute")
    if done.returncode == 0 and not done.stdout:
        pytest.skip("this file system (tmpfs) still writes a file made immutable through a descriptor already open")
    assert done.returncode == 2, done.stderr[-300:]
    assert done.stdout.startswith("kept ") and said in done.stdout and "disk I/O" not in done.stdout
    with Store(folder / "voicemaster.db") as store:
        assert store.unfinished_game() == ("one", '{"step": 1}')


@pytest.mark.parametrize("exclusive", [False, True], ids=["history", "play"])
def test_a_store_that_is_a_symlink_loop_is_named_so_and_leaves_no_lock(tmp_path: Path, exclusive: bool) -> None:
    path = tmp_path / "data" / "voicemaster.db"
    path.parent.mkdir()
    path.symlink_to(path.name)  # voicemaster.db -> voicemaster.db
    with pytest.raises(StoreError, match=r"is a symbolic link that leads round to itself .*: remove it \(rm "):
        Store(path, exclusive=exclusive)
    assert sorted(p.name for p in path.parent.iterdir()) == ["voicemaster.db"]


def test_a_start_that_fails_leaves_no_lock_file_behind(tmp_path: Path) -> None:
    path = tmp_path / "data" / "voicemaster.db"
    path.mkdir(parents=True)  # a folder where the store belongs: refused after the lock was taken
    with pytest.raises(StoreError, match="is a folder where the game store should be a file"):
        Store(path, exclusive=True)
    assert sorted(p.name for p in path.parent.iterdir()) == ["voicemaster.db"]


def test_a_store_from_before_keeps_what_was_heard_as_heard_longest_ago(tmp_path: Path) -> None:
    path = tmp_path / "voicemaster.db"
    with sqlite3.connect(path) as old:  # the heard table as the previous version wrote it
        old.execute(
            "CREATE TABLE heard (profile TEXT NOT NULL, question_id TEXT NOT NULL, times INTEGER NOT NULL DEFAULT 1, "
            "PRIMARY KEY (profile, question_id))"
        )
        old.execute("INSERT INTO heard VALUES ('Anna', 'en-m-01-000', 2)")
    old.close()
    with Store(path) as store:
        store.mark_heard(["Anna"], "en-m-01-001")
        order = store.last_heard_by(["Anna"])
        assert store.heard("Anna") == {"en-m-01-000": 2, "en-m-01-001": 1}
    assert order["en-m-01-000"] < order["en-m-01-001"]
