"""`voicemaster bench memory`: the peak memory of a running game.

The game is the demo: one player, one round, with the quizmaster's voice and the Whisper base model hearing every
answer, run as a process of its own so that nothing the benchmark itself loads counts. Its peak resident set comes
from the kernel when it ends (`wait4`), so a peak between two looks cannot be missed. The demo hands the recognizer
whole utterances; a game at the microphone also runs the Silero voice-activity model, which does not raise the peak:
that comes while the Whisper model loads.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DEMO = ("demo", "--fast", "--lang", "de", "--players", "1", "--rounds", "1", "--seed", "3", "--engine", "whisper")


class MeasurementFailed(RuntimeError):
    """The measured program did not finish; the message has the end of what it printed."""


def run() -> dict[str, Any]:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="vm-memory-") as folder:
        command = [sys.executable, "-m", "voicemaster", *DEMO, "--out", folder]
        peak = peak_memory_mb(command, Path(folder) / "output.log")
    return {
        "benchmark": "memory",
        "game": "voicemaster " + " ".join(DEMO),
        "peak_memory_mb": round(peak, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }


def peak_memory_mb(command: Sequence[str], log: Path) -> float:
    """Runs `command` (its first item a path) to its end, its output going to `log`; its peak resident memory in
    MB (10⁶ bytes), its own children's included."""
    write = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    actions = [(os.POSIX_SPAWN_OPEN, 1, str(log), write, 0o600), (os.POSIX_SPAWN_DUP2, 1, 2)]
    pid = os.posix_spawn(command[0], list(command), os.environ, file_actions=actions)
    try:
        # wait4, not a subprocess: it alone reports the usage of this one child, peak memory among it.
        _, status, usage = os.wait4(pid, 0)
    except BaseException:
        os.kill(pid, 15)
        os.waitpid(pid, 0)
        raise
    if (code := os.waitstatus_to_exitcode(status)) != 0:
        printed = log.read_text(errors="replace").strip().splitlines()[-5:]
        raise MeasurementFailed(f"{' '.join(command)} exited with {code}: " + " | ".join(printed))
    # Linux counts the peak in kilobytes, macOS in bytes.
    return usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024) / 1e6


def report(figures: dict[str, Any]) -> str:
    return (
        f"peak memory of a running game ({figures['game']}): {figures['peak_memory_mb']:.0f} MB "
        f"({figures['seconds']:g} s to measure)"
    )
