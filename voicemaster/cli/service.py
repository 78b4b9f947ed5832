"""`voicemaster service install|uninstall|status`: the always-ready quizmaster started with the machine, as a
systemd user unit (`serve/unit.py`); on a machine without systemd, what to run instead."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from voicemaster.serve.unit import KEPT_ENVIRONMENT, UNIT_NAME, unit_text

Systemctl = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]
"""Runs `systemctl --user` with these arguments (a test hands in its own)."""


def service(args: argparse.Namespace) -> int:
    action: str = args.service_action
    if not systemd_runs():
        print(f"voicemaster: {no_systemd(serve_command(args), action)}", file=sys.stderr)
        return 2 if action != "status" else 3
    units = units_dir()
    if action == "install":
        return install(serve_command(args), units, user_systemctl)
    if action == "uninstall":
        return uninstall(units, user_systemctl)
    return status(units, user_systemctl)


def systemd_runs() -> bool:
    """Whether this machine was started by systemd (its own test, `sd_booted`), and `systemctl` is there."""
    return Path("/run/systemd/system").is_dir() and _which("systemctl")


def _which(program: str) -> bool:
    from shutil import which

    return which(program) is not None


def serve_command(args: argparse.Namespace) -> list[str]:
    """How the service starts the quizmaster: this Python, this voicemaster, and `--config` if one was given."""
    config = ["--config", str(Path(args.config).resolve())] if args.config is not None else []
    return [sys.executable, "-m", "voicemaster", *config, "serve"]


def no_systemd(command: Sequence[str], action: str = "install") -> str:
    """What a machine without systemd is told: there is no service to `action`, and what to run instead."""
    line = shlex.join(command)
    none = "no service runs here" if action == "status" else f"there is no service to {action}"
    return (
        f"this machine does not run systemd (no /run/systemd/system), so {none}. Start the "
        f"quizmaster with your session instead: put `{line}` in your desktop's autostart (or ~/.profile), or run it "
        f"in a terminal: `nohup {line} >> ~/voicemaster.log 2>&1 &`. It waits until someone says a start phrase."
    )


def units_dir() -> Path:
    """Where a user's own systemd units go: $XDG_CONFIG_HOME/systemd/user, else ~/.config/systemd/user."""
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "systemd" / "user"


def user_systemctl(arguments: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["systemctl", "--user", *arguments], capture_output=True, text=True, check=False)


def install(command: Sequence[str], units: Path, systemctl: Systemctl) -> int:
    """Writes the unit, then enables and starts it; says where its log is and whether it starts with nobody
    logged in."""
    environment = {name: os.environ[name] for name in KEPT_ENVIRONMENT if os.environ.get(name)}
    units.mkdir(parents=True, exist_ok=True)
    unit = units / UNIT_NAME
    written = unit.with_suffix(".tmp")
    written.write_text(unit_text(command, environment), encoding="utf-8")
    written.replace(unit)
    for arguments in (["daemon-reload"], ["enable", "--now", UNIT_NAME]):
        done = systemctl(arguments)
        if done.returncode != 0:
            said = (done.stderr or done.stdout).strip().splitlines()
            print(f"voicemaster: wrote {unit}, but `systemctl --user {' '.join(arguments)}` failed: "
                  f"{said[-1] if said else f'exit code {done.returncode}'}", file=sys.stderr)  # fmt: skip
            return 2
    print(f"Installed {unit}: the quizmaster starts with your session and waits until someone says a start phrase.")
    print("Its log: journalctl --user -u voicemaster -f. After a crash it starts again and offers the game it was on.")
    print(lingering())
    return 0


def uninstall(units: Path, systemctl: Systemctl) -> int:
    unit = units / UNIT_NAME
    if not unit.exists():
        print(f"voicemaster: no service installed ({unit} is not there).", file=sys.stderr)
        return 1
    systemctl(["disable", "--now", UNIT_NAME])  # a unit that was never started is disabled all the same
    unit.unlink()
    systemctl(["daemon-reload"])
    print(f"Removed {unit}: the quizmaster no longer starts with your session. Games and settings are kept.")
    return 0


def status(units: Path, systemctl: Systemctl) -> int:
    """Installed or not, running or not (exit 0 only when it runs), and whether it starts with nobody logged in."""
    unit = units / UNIT_NAME
    if not unit.exists():
        print(f"Not installed ({unit} is not there): `voicemaster service install` installs it.")
        return 3
    active = systemctl(["is-active", UNIT_NAME]).stdout.strip() or "unknown"
    enabled = systemctl(["is-enabled", UNIT_NAME]).stdout.strip() or "unknown"
    print(f"Installed: {unit}. It is {active} and {enabled} (journalctl --user -u voicemaster shows its log).")
    print(lingering())
    return 0 if active == "active" else 3


def lingering() -> str:
    """Whether the user's services start at boot with nobody logged in, and how to change it."""
    user = os.environ.get("USER") or os.environ.get("LOGNAME") or str(os.getuid())
    try:
        shown = subprocess.run(
            ["loginctl", "show-user", user, "--property=Linger"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        shown = ""
    if shown == "Linger=yes":
        return "Lingering is on: it starts at boot even when nobody logs in (a car computer, a laptop on the shelf)."
    return (
        "It starts when you log in. To have it start at boot with nobody logged in (a car computer, a laptop on the "
        f"shelf), turn lingering on once: `sudo loginctl enable-linger {user}`."
    )
