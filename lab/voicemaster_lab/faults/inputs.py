"""`bench faults`, files and inputs as another hand or a disk leaves them (issue 49): JSON nested thousands deep and
numbers of thousands of digits where we read JSON, FIFOs, devices and links that loop where a file or a model
belongs, texts of megabytes, a disk that is full, installs killed mid-way and imports run at once, recordings of
nothing, and what onnxruntime would write about the player's machine.

Each fault is made in user folders of its own, as a user or a disk would make it, and met by the real command in a
process of its own, stopped after `LIMIT_SECONDS` (a hang). An outcome says what was done, the command's first line,
and whether it was met as promised (`right`): the true one-line message, or the work done, with nothing lost and
nothing half-written. Figures, never pass/fail; other tools read `tracebacks`, `hung` and `wrong`.
"""

from __future__ import annotations

import json
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from voicemaster_lab.faults.input_files import (
    DEEP,
    LIMIT_SECONDS,
    Fault,
    Place,
    deep_cache,
    deep_import,
    deep_stored_game,
    header_only,
    huge_limit,
    line,
    long_field,
    manifest_line,
    odd_folder,
    root_folder,
    special_archive,
    special_manifest,
    turned_text,
)
from voicemaster_lab.faults.input_places import (
    bug_log_full_disk,
    imports_at_once,
    killed_install,
    kokoro_privacy,
    nan_recording,
    one_recording_many_lines,
    say_full_disk,
    say_out,
    silence_heard,
)


@dataclass(frozen=True)
class Outcome:
    kind: str
    """The class of fault: nesting and numbers, special files, sizes, full disk, kills, recordings, privacy."""
    fault: str
    command: str
    exit_code: int | None
    message: str
    """The command's first line on standard error (its last, after a traceback)."""
    right: bool
    traceback: bool
    hung: bool
    seconds: float


FAULTS: tuple[tuple[str, Fault], ...] = (
    (
        "nesting and numbers",
        manifest_line("lists nested 5000 deep", line()[:-1] + f', "options": {DEEP}}}', "5001 deep"),
    ),
    (
        "nesting and numbers",
        manifest_line("a 5000-digit number", line()[:-1] + ', "n": ' + "7" * 5000 + "}", "5000 digits"),
    ),
    ("nesting and numbers", deep_stored_game),
    ("nesting and numbers", deep_cache),
    ("nesting and numbers", deep_import),
    ("nesting and numbers", huge_limit),
    ("special files", special_manifest("FIFO")),
    ("special files", special_manifest("a link to /dev/zero")),
    ("special files", special_archive("FIFO")),
    ("special files", special_archive("a link to /dev/zero")),
    ("special files", odd_folder("a FIFO", "is a FIFO, not a file of a model")),
    ("special files", odd_folder("a link to /dev/zero", "is a device, not a file of a model")),
    ("special files", odd_folder("a link to itself", "a symbolic link that leads round to itself")),
    ("special files", root_folder),
    ("sizes", manifest_line("a 3 MB option", line(options=["x" * 3_000_000, "Paris"]), "a text of 3,000,000")),
    ("sizes", long_field),
    ("sizes", header_only),
    ("sizes", turned_text),
    ("full disk and missing places", say_out("a missing folder")),
    ("full disk and missing places", say_out("a folder")),
    ("full disk and missing places", say_full_disk),
    ("full disk and missing places", bug_log_full_disk),
    ("kills and races", killed_install),
    ("kills and races", imports_at_once),
)
"""Each fault and its class; those that need the installed speech models are in `WITH_MODELS`."""
WITH_MODELS: tuple[tuple[str, Fault], ...] = (
    ("recordings", silence_heard),
    ("recordings", nan_recording),
    ("recordings", one_recording_many_lines),
    ("privacy", kokoro_privacy),
)


def run(*, models: bool = True) -> dict[str, Any]:
    """Every fault, each in folders of its own; with `models`, also those heard by Whisper or spoken by Kokoro."""
    return run_faults(FAULTS + (WITH_MODELS if models else ()))


def run_faults(faults: tuple[tuple[str, Fault], ...]) -> dict[str, Any]:
    """These faults (class, fault), each in folders of its own: the figures."""
    started = time.perf_counter()
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="vm-inputs-") as folder:
        for number, (kind, fault) in enumerate(faults):
            place = Place(Path(folder) / f"fault-{number}")
            place.root.mkdir()
            began = time.perf_counter()
            what, argv, done, (right, message, traceback) = fault(place)
            seconds = round(time.perf_counter() - began, 2)
            shown = "voicemaster " + " ".join(argv) if argv[0] != "-c" else "python -c (the bug log's writer)"
            code = None if done is None else done.returncode
            outcomes.append(Outcome(kind, what, shown[:160], code, message, right, traceback, done is None, seconds))
            shutil.rmtree(place.root, ignore_errors=True)
    per_kind: dict[str, dict[str, int]] = {}
    for outcome in outcomes:
        tally = per_kind.setdefault(outcome.kind, {"faults": 0, "right": 0, "tracebacks": 0, "hung": 0})
        tally["faults"] += 1
        tally["right"] += outcome.right
        tally["tracebacks"] += outcome.traceback
        tally["hung"] += outcome.hung
    return {
        "outcomes": [asdict(outcome) for outcome in outcomes],
        "faults": len(outcomes),
        "right": sum(outcome.right for outcome in outcomes),
        "wrong": sum(not outcome.right for outcome in outcomes),
        "tracebacks": sum(outcome.traceback for outcome in outcomes),
        "hung": sum(outcome.hung for outcome in outcomes),
        "per_kind": per_kind,
        "time_limit_seconds": LIMIT_SECONDS,
        "seconds": round(time.perf_counter() - started, 1),
    }


def report(figures: dict[str, Any]) -> list[str]:
    """The lines of the files-and-inputs drill's figures."""
    lines = [
        f"files and inputs (each command limited to {figures['time_limit_seconds']} s): {figures['right']}/"
        f"{figures['faults']} met as promised, {figures['tracebacks']} tracebacks, {figures['hung']} hung"
    ]
    for outcome in figures["outcomes"]:
        state = "HUNG" if outcome["hung"] else "ok" if outcome["right"] else "WRONG"
        lines.append(f"  {outcome['fault'][:50]:50} {state}: {outcome['message'][:110]}")
    return lines


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    print(json.dumps(run(models="--no-models" not in sys.argv), ensure_ascii=False))
