"""The systemd user unit `voicemaster service install` writes: systemd itself finds nothing wrong in it, it restarts
after a crash, and a path with spaces, % or $ reaches the command unchanged."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from voicemaster.serve.unit import UNIT_NAME, unit_text

COMMAND = [sys.executable, "-m", "voicemaster", "serve"]


def _verify(unit: Path) -> subprocess.CompletedProcess[str]:
    # A user manager's runtime folder, where none runs: short, as the sockets other user units name in it must fit a
    # socket's 108 bytes (under pytest's folder in /dev/shm, gpg-agent's did not, and verify reported that unit).
    with tempfile.TemporaryDirectory(prefix="vm-run-", dir="/tmp") as runtime:
        return subprocess.run(
            ["systemd-analyze", "verify", "--user", str(unit)],
            env={**os.environ, "XDG_RUNTIME_DIR": runtime},
            capture_output=True,
            text=True,
            check=False,
        )


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_finds_nothing_wrong_in_the_unit(tmp_path: Path) -> None:
    unit = tmp_path / UNIT_NAME
    config = tmp_path / "my settings" / "100% $HOME"
    unit.write_text(unit_text([*COMMAND[:3], "--config", str(config), "serve"], {"XDG_DATA_HOME": str(tmp_path)}))
    checked = _verify(unit)
    assert (checked.returncode, checked.stderr.strip()) == (0, ""), checked.stderr
    # A mistake in a unit is what verify reports: the check can fail.
    broken = tmp_path / "broken.service"
    broken.write_text(unit.read_text().replace("Restart=on-failure", "Restart=sometimes"))
    assert "restart specifier" in _verify(broken).stderr


def test_the_command_systemd_runs_is_the_one_written(tmp_path: Path) -> None:
    """Split by systemd's documented rules (double quotes, backslash escapes, %% and $$), the unit's ExecStart gives
    back the words as given, a settings file with a space, a % and a $ in its name too."""
    config = str(tmp_path / "my settings" / "100% $HOME.toml")
    unit = unit_text([*COMMAND[:3], "--config", config, "serve"], {})
    line = next(line for line in unit.splitlines() if line.startswith("ExecStart="))
    assert _unit_words(line.removeprefix("ExecStart=")) == [*COMMAND[:3], "--config", config, "serve"]


def _unit_words(text: str) -> list[str]:
    """A command line as systemd splits it (its documented rules: double quotes, backslash escapes, %% and $$)."""
    words, word, quoted, index = [], "", False, 0
    started = False
    while index < len(text):
        character = text[index]
        if character == "\\" and quoted:
            word, index = word + text[index + 1], index + 2
            continue
        if character == '"':
            quoted, started = not quoted, True
        elif character == " " and not quoted:
            if started:
                words.append(word)
            word, started = "", False
        else:
            word, started = word + character, True
        index += 1
    if started:
        words.append(word)
    return [word.replace("%%", "%").replace("$$", "$") for word in words]


def test_the_unit_restarts_a_crashed_quizmaster_with_its_audio_session_and_logs_to_the_journal() -> None:
    text = unit_text(COMMAND, {"VOICEMASTER_CONFIG_DIR": "/home/anna/quiz"})
    lines = text.splitlines()
    assert "Restart=on-failure" in lines and "WantedBy=default.target" in lines  # the user's session starts it
    assert any(line.startswith("After=") and "pulseaudio.service" in line for line in lines)
    assert "StandardOutput=journal" in lines and "Environment=VOICEMASTER_CONFIG_DIR=/home/anna/quiz" in lines
