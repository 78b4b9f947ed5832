"""The systemd user unit that keeps `voicemaster serve` running (`voicemaster service install`), as text: pure.

A user unit, not a system one: the quizmaster needs the user's audio session (PulseAudio or PipeWire run per user,
their socket in the user's runtime folder, which a user service is given), and nothing of root's. It starts with
the user's session (`default.target`), after the sound server; a crash or a kill restarts it after a few seconds,
and `serve` then offers the interrupted game as `play` does. Its output goes to the journal
(`journalctl --user -u voicemaster`). With nobody logged in (a car computer, a shelf laptop), a user's services
start at boot only when lingering is on for them (`loginctl enable-linger`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

UNIT_NAME = "voicemaster.service"
RESTART_SECONDS = 5
"""How long a crashed quizmaster waits before it starts again: a microphone that comes a moment after the computer
(a Bluetooth speakerphone) is found on a later try, and a fault that repeats does not spin the processor."""
KEPT_ENVIRONMENT = ("VOICEMASTER_CONFIG_DIR", "VOICEMASTER_MODELS_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME")
"""Where voicemaster finds its settings, games and models: a service started by systemd sees none of the shell's
variables, so those set when the unit is written are written into it."""


def unit_text(command: Sequence[str], environment: Mapping[str, str]) -> str:
    """The unit that runs `command` (the absolute path of a Python and its arguments), with `environment`."""
    lines = [
        "[Unit]",
        "Description=voicemaster, the always-ready quizmaster",
        "After=pipewire-pulse.service pulseaudio.service sound.target",
        "StartLimitIntervalSec=0",
        "",
        "[Service]",
        "Type=simple",
        f"ExecStart={' '.join(quoted(word) for word in command)}",
        "Restart=on-failure",
        f"RestartSec={RESTART_SECONDS}",
        "Environment=PYTHONUNBUFFERED=1",
        *(f"Environment={quoted(f'{name}={value}')}" for name, value in sorted(environment.items())),
        "StandardOutput=journal",
        "StandardError=journal",
        "SyslogIdentifier=voicemaster",
        "",
        "[Install]",
        "WantedBy=default.target",
        "",
    ]
    return "\n".join(lines)


def quoted(word: str) -> str:
    """A word as a unit file's command line and `Environment=` read it back: specifiers (`%`) and variables (`$`)
    doubled, and in double quotes (backslash and quote escaped) when it has a space or a quote."""
    word = word.replace("%", "%%").replace("$", "$$")
    if not word or any(character in word for character in " \t\"'\\;"):
        return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return word
