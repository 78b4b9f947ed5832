"""`voicemaster service`: the unit written, enabled and started through `systemctl --user`, removed again, its state
told; on a machine without systemd, said so with what to run instead, and nothing written."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from voicemaster.cli import service
from voicemaster.serve.unit import UNIT_NAME


class Systemctl:
    """`systemctl --user` as a user manager answers it: each call recorded; `is-active` says what `state` is."""

    def __init__(self, state: str = "active", failing: str = "") -> None:
        self.calls: list[list[str]] = []
        self.state, self.failing = state, failing

    def __call__(self, arguments: Sequence[str]) -> subprocess.CompletedProcess[str]:
        self.calls.append(list(arguments))
        if arguments[0] == self.failing:
            return subprocess.CompletedProcess(["systemctl"], 1, "", "Failed to connect to bus: No medium found")
        shown = {"is-active": self.state, "is-enabled": "enabled"}.get(arguments[0], "")
        return subprocess.CompletedProcess(["systemctl"], 0, shown + "\n", "")


COMMAND = [sys.executable, "-m", "voicemaster", "serve"]


def test_install_writes_the_unit_then_enables_and_starts_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    systemctl = Systemctl()
    assert service.install(COMMAND, tmp_path / "units", systemctl) == 0
    unit = tmp_path / "units" / UNIT_NAME
    assert f"ExecStart={sys.executable} -m voicemaster serve" in unit.read_text()
    assert systemctl.calls == [["daemon-reload"], ["enable", "--now", UNIT_NAME]]
    told = capsys.readouterr().out
    assert "journalctl --user -u voicemaster" in told
    assert "loginctl enable-linger" in told or "Lingering is on" in told
    assert service.status(tmp_path / "units", systemctl) == 0
    assert "It is active and enabled" in capsys.readouterr().out
    assert service.uninstall(tmp_path / "units", systemctl) == 0
    assert not unit.exists() and ["disable", "--now", UNIT_NAME] in systemctl.calls
    assert service.status(tmp_path / "units", systemctl) == 3
    assert "Not installed" in capsys.readouterr().out


def test_a_user_manager_that_cannot_be_reached_is_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert service.install(COMMAND, tmp_path, Systemctl(failing="enable")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "systemctl --user enable --now" in err and "No medium found" in err


def test_a_stopped_service_is_not_reported_running(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    service.install(COMMAND, tmp_path, Systemctl())
    assert service.status(tmp_path, Systemctl(state="failed")) == 3
    assert "It is failed" in capsys.readouterr().out


@pytest.mark.skipif(Path("/run/systemd/system").is_dir(), reason="this machine runs systemd")
@pytest.mark.parametrize("action", ["install", "status", "uninstall"])
def test_without_systemd_it_says_so_and_what_to_run_instead(tmp_path: Path, action: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "voicemaster", "service", action],
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (2, 3) and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "does not run systemd" in done.stderr
    assert "-m voicemaster serve" in done.stderr and "Traceback" not in done.stderr
    assert not any(tmp_path.iterdir())  # no unit written
