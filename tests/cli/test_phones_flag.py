"""`play --phones` and `serve --phones` before a game begins: a port out of range or taken is said in one line,
before a model loads; the quizmaster's address and the phones' board are those of the phones' server."""

from __future__ import annotations

import socket
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

from voicemaster.cli.phones import phones_for, with_phones
from voicemaster.host.screen_address import ScreenAddress
from voicemaster.screen.feed import ScreenFeed


def _play(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "voicemaster", "play", "--phones", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_a_port_out_of_range_is_said_in_one_line(user_folders: Path) -> None:
    del user_folders
    shown = _play("--phones-port", "70000")
    assert shown.returncode == 2 and "Traceback" not in shown.stderr
    assert "70000 is not a port: a port is 0 to 65535" in shown.stderr


def test_a_port_taken_is_said_in_one_line_before_a_model_loads(user_folders: Path) -> None:
    del user_folders
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        shown = _play("--phones-port", str(taken.getsockname()[1]))
    assert shown.returncode == 2 and "Traceback" not in shown.stderr
    assert "the phones' page cannot listen" in shown.stderr and "--phones-port" in shown.stderr
    assert len(shown.stderr.strip().splitlines()) == 1


def test_without_a_screen_the_phones_get_a_board_and_the_quizmaster_their_address(user_folders: Path) -> None:
    del user_folders
    with phones_for(Namespace(phones=True, phones_port=0), "fr") as phones:
        assert phones is not None and phones.language == "fr"
        watch, said = with_phones(phones, None, None, "fr", ())
        assert isinstance(watch, ScreenFeed) and phones.board is not None and phones.board() == watch.view_json()
        assert said is not None and not said.page
        assert (said.phones_port, said.phones_code, said.phones_host) == (phones.port, phones.code, phones.announced)
        here = ScreenAddress("127.0.0.1", 8765, local_network=False)
        _, both = with_phones(phones, watch, here, "fr", ())
        assert both is not None and both.page and both.host == "127.0.0.1" and both.phones_host == phones.announced


def test_serve_with_the_phones_port_taken_says_so_in_one_line_before_a_model_loads(user_folders: Path) -> None:
    del user_folders
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        command = [
            sys.executable,
            "-m",
            "voicemaster",
            "serve",
            "--phones",
            "--phones-port",
            str(taken.getsockname()[1]),
        ]
        shown = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert shown.returncode == 2 and "Traceback" not in shown.stderr
    assert "the phones' page cannot listen" in shown.stderr and "--phones-port" in shown.stderr
    assert len(shown.stderr.strip().splitlines()) == 1
