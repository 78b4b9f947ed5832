"""Faults met through the real commands (issue 17): one clear line and an exit status, never a traceback; a bug
names the log file that holds its traceback. User folders are isolated in tmp_path."""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from voicemaster.cli import app as cli
from voicemaster.cli import failures
from voicemaster.cli import history as history_cli
from voicemaster.store import Store


def voicemaster(home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    folders = {name: str(home / name.lower()) for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    return subprocess.run(
        [sys.executable, "-m", "voicemaster", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(home), **folders, **(env or {})},
        timeout=120,
        check=False,
    )


def store_path(home: Path) -> Path:
    return home / "xdg_data_home" / "voicemaster" / "voicemaster.db"


def one_clear_line(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("voicemaster: "), done.stderr
    return lines[0]


def test_history_on_a_garbage_store_moves_it_aside_and_starts_afresh(tmp_path: Path) -> None:
    path = store_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x00garbage, not SQLite\n" * 100)
    shown = voicemaster(tmp_path, "history")
    assert shown.returncode == 0 and "No games yet" in shown.stdout
    (aside,) = path.parent.glob("voicemaster.damaged-*.db")
    assert aside.read_bytes() == b"\x00garbage, not SQLite\n" * 100
    assert str(aside) in one_clear_line(shown)
    assert voicemaster(tmp_path, "history").stderr == ""  # the fresh store is fine


def test_history_with_a_stored_game_that_is_not_json_keeps_the_others(tmp_path: Path) -> None:
    path = store_path(tmp_path)
    path.parent.mkdir(parents=True)
    with Store(path) as store:
        store.save_game("broken", "{not json")
    shown = voicemaster(tmp_path, "history", "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout) == {"games": []}
    assert "the stored game broken cannot be read" in one_clear_line(shown)
    (aside,) = path.parent.glob("voicemaster.damaged-*.db")
    with Store(aside) as kept:
        assert [(game.id, game.state) for game in kept.recent_games(5)] == [("broken", "{not json")]


def test_a_folder_in_place_of_the_store_and_a_file_in_place_of_the_data_folder(tmp_path: Path) -> None:
    store_path(tmp_path).mkdir(parents=True)
    shown = voicemaster(tmp_path, "history")
    assert shown.returncode == 2 and "is a folder where the game store should be a file" in one_clear_line(shown)
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    (elsewhere / "xdg_data_home").write_text("a file", encoding="utf-8")
    shown = voicemaster(elsewhere, "history")
    assert shown.returncode == 2 and "is a file, where voicemaster keeps its games" in one_clear_line(shown)


def test_an_unreachable_data_folder_is_explained(tmp_path: Path) -> None:
    shown = voicemaster(tmp_path, "history", env={"XDG_DATA_HOME": "/proc/self/no-such-folder"})
    assert shown.returncode == 2 and "cannot use the data folder" in one_clear_line(shown)


def test_a_second_play_on_the_same_data_folder_is_refused(tmp_path: Path) -> None:
    code = (
        "import time\nfrom voicemaster.store import Store\n"
        "store = Store(exclusive=True)\nprint('ready', flush=True)\ntime.sleep(120)\n"
    )
    folders = {"XDG_DATA_HOME": str(tmp_path / "xdg_data_home")}
    first = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env={**os.environ, **folders}
    )
    try:
        assert first.stdout is not None and first.stdout.readline().strip() == "ready"
        shown = voicemaster(tmp_path, "play", "--players", "Anna", "--lang", "de")
        assert shown.returncode == 2
        assert "another voicemaster is already playing" in one_clear_line(shown)
        assert f"(process {first.pid})" in shown.stderr
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
        assert first.stdout is not None
        first.stdout.close()


def test_a_bug_is_one_line_naming_a_log_with_the_traceback(
    user_folders: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:

    def broken(_args: object) -> int:
        nothing: dict[str, int] = {}
        return nothing["no such key"]

    monkeypatch.setattr(history_cli, "show", broken)
    assert cli.main(["history"]) == 1
    shown = capsys.readouterr()
    assert "Traceback" not in shown.err and len(shown.err.strip().splitlines()) == 1
    assert "this is a bug" in shown.err and "KeyError" in shown.err
    (log,) = (user_folders / "xdg_data_home" / "voicemaster" / "logs").glob("bug-*.log")
    assert str(log) in shown.err
    written = log.read_text(encoding="utf-8")
    assert "command: voicemaster history" in written and "Traceback" in written and "no such key" in written


@pytest.mark.parametrize(("module", "name"), failures.USERS_ERRORS)
def test_each_error_meant_for_the_user_is_one_line_with_its_message(
    module: str, name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The errors are named by module and class (a failed command need not import them all): a misspelt one would
    reach the user as "a bug"."""
    error = getattr(importlib.import_module(module), name)
    assert issubclass(error, Exception)

    def failing(_args: object) -> int:
        raise error.__new__(error, "the history is on a disc that was taken out")  # whatever its constructor asks

    monkeypatch.setattr(history_cli, "show", failing)
    assert cli.main(["history"]) == 2
    assert capsys.readouterr().err == "voicemaster: the history is on a disc that was taken out\n"


def test_ctrl_c_ends_quietly(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(_args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(history_cli, "show", interrupted)
    assert cli.main(["history"]) == 130
    assert capsys.readouterr().err == ""


def test_library_lines_on_standard_error_are_dropped_and_our_message_still_shown() -> None:
    """ALSA and PortAudio write to file descriptor 2 from C; once a command has diverted it, our one line remains."""
    code = (
        "import os, sys\n"
        "from voicemaster.cli.failures import guarded\n"
        "from voicemaster.speech.devices.portaudio import divert_native_stderr\n"
        "from voicemaster.store import StoreError\n"
        "def run():\n"
        "    divert_native_stderr()\n"
        "    os.write(2, b'ALSA lib pcm_pulse.c:758:(pulse_prepare) PulseAudio: Unable to create stream\\n')\n"
        "    raise StoreError('the game store is busy')\n"
        "sys.exit(guarded(run, ['play']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and done.stderr == "voicemaster: the game store is busy\n"


def test_play_on_a_read_only_store_says_how_to_fix_it_and_history_still_lists(tmp_path: Path) -> None:
    from tests.store.test_store import read_only

    path = store_path(tmp_path)
    path.parent.mkdir(parents=True)
    from voicemaster.host.saved import Session
    from voicemaster.rules import GameSettings, new_game, variant

    with Store(path) as store:
        store.save_game("kept", Session(new_game(GameSettings(variant("classic"), ("Anna",), seed=1))).to_json())
    with read_only(path):
        shown = voicemaster(tmp_path, "play", "--players", "Anna", "--lang", "de")
        said = one_clear_line(shown)
        assert shown.returncode == 2 and f"the game store {path} is read-only (" in said
        assert "make it writable (chmod u+w" in said
        listed = voicemaster(tmp_path, "history", "--json")
        assert listed.returncode == 0 and [game["id"] for game in json.loads(listed.stdout)["games"]] == ["kept"]
