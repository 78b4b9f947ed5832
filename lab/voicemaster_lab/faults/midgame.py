"""`bench faults`, faults under a running game (issue 25): the store damaged, replaced or made read-only while the game
`play` hosts is under way, and the program stopped and continued (Ctrl-Z, SIGSTOP/SIGCONT) while it speaks.

Each store fault strikes at one step of a real game (faults/damaged_store.py's `game`, the real quizmaster and store):
the game must notice it at its next save, keep the game (written afresh, or, for a store that cannot be written, as
its last saved step) and end with a message, never a traceback or a signal. The stop strikes a process speaking
through a private PulseAudio speaker: a stall with the device there must not end it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

DAMAGE_AT = 60
"""The step of the game at which the store is damaged: a few questions in."""


def _replace_with(make: Callable[[Path], None]) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        for suffix in ("-journal", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        path.unlink()
        make(path)

    return damage


def _folder(path: Path) -> None:
    path.mkdir()


def _overwrite(path: Path) -> None:
    path.write_bytes(b"overwritten by another program " * 300)


def _immutable(path: Path) -> None:
    for target in [*path.parent.glob("*"), path.parent]:
        subprocess.run(["chattr", "+i", str(target)], capture_output=True, check=False)


def _immutable_file(path: Path) -> None:
    """The store file alone immutable: SQLite writes through the file it has open, and is refused (issue 36)."""
    subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)


def _folder_made_file(folder: Path) -> None:
    """The data folder removed and a file written in its place: the game's file is gone with it (issue 36)."""
    shutil.rmtree(folder)
    folder.write_text("a file where the data folder was")


DAMAGE: dict[str, Callable[[Path], None]] = {
    "truncated to 0": lambda path: os.truncate(path, 0),
    "truncated mid-page": lambda path: os.truncate(path, 3000),
    "overwritten": lambda path: _overwrite(path),
    "replaced by a folder": _replace_with(_folder),
    "symlink to /dev/null": _replace_with(lambda path: path.symlink_to("/dev/null")),
    "symlink to nowhere": _replace_with(lambda path: path.symlink_to("/no/such/place/voicemaster.db")),
    "data folder removed": lambda path: shutil.rmtree(path.parent),
    "made read-only": _immutable,
    "file alone made read-only": lambda path: _immutable_file(path),
    "data folder replaced by a file": lambda path: _folder_made_file(path.parent),
}
"""What can happen to the store file (`path`) under a running game, by name (`game --damage NAME`)."""


def damage(name: str, path: Path) -> None:
    DAMAGE[name](path)


def store_damage(folder: Path) -> list[Any]:
    """Every kind of damage, each to its own game in its own data folder."""
    from voicemaster_lab.faults import damaged_store as fs

    outcomes = []
    for number, name in enumerate(DAMAGE):
        root = folder / f"damage-{number}"
        root.mkdir()
        if "read-only" in name and (os.geteuid() != 0 or shutil.which("chattr") is None):
            outcomes.append(fs.FaultOutcome(f"store {name} mid-game", "(needs root and chattr)", None, "", False,
                                            None, False, 0.0))  # fmt: skip
            continue
        try:
            outcomes.append(
                fs.game_outcome(f"store {name} mid-game", root, "--damage-at", str(DAMAGE_AT), "--damage", name)
            )
        finally:
            data = root / "xdg_data_home" / "voicemaster"
            for target in [data, *data.glob("*")] if data.exists() else []:
                subprocess.run(["chattr", "-i", str(target)], capture_output=True, check=False)
    return outcomes


STOPPED_SECONDS = 4.0
"""How long the speaking process is stopped: longer than any stall bound (devices.STALL_SECONDS)."""

_SPEAKING = """
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.capture import speaker_present
from voicemaster.speech.devices.loudspeaker import Speaker
speaker = Speaker(present=speaker_present)
playback = speaker.play(Audio(bytes(16_000 * 2 * 5), 16_000))
print("ready", flush=True)
playback.wait()
print(f"played {playback.position():.1f} s, stalled {speaker.stalled:.1f} s", flush=True)
"""


def stopped_and_continued(env: dict[str, str]) -> Any:
    """A process speaking through the speaker, stopped (SIGSTOP) and continued (SIGCONT) as Ctrl-Z and `fg` do."""
    from voicemaster_lab.faults import damaged_store as fs

    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", _SPEAKING], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    child.stdout.readline()
    time.sleep(0.5)
    child.send_signal(signal.SIGSTOP)
    time.sleep(STOPPED_SECONDS)
    child.send_signal(signal.SIGCONT)
    try:
        stdout, stderr = child.communicate(timeout=fs.SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return fs.FaultOutcome("stop/continue", "speaking, stopped 4 s", None, "", False, None, True, fs.SECONDS)
    lines = [line for line in stderr.splitlines() if line.startswith(("voicemaster", "Traceback")) or "Error" in line]
    message = (lines[-1] if lines else stdout.strip())[: fs.MESSAGE_KEPT]
    traceback = "Traceback" in stderr
    seconds = round(time.perf_counter() - started, 2)
    return fs.FaultOutcome("stop/continue", "speaking, stopped 4 s", child.returncode, message, traceback, None,
                           False, seconds)  # fmt: skip
