"""`bench faults`, files and inputs (faults/inputs.py runs them): the faults of what is written and of what runs
at once, a missing folder, a folder, a full disk under `say --out` and under the bug log, an install killed mid-way,
two imports at once; and those heard or spoken with the installed models, recordings of nothing or of NaN, one long
recording on many lines of a manifest, and what onnxruntime would write about the player's machine.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

from voicemaster.models.verify import find_model
from voicemaster.speech.audio import Audio
from voicemaster_lab.faults.input_files import (
    FAMILY,
    HEAD,
    LIMIT_SECONDS,
    VOSK_DE,
    Fault,
    Met,
    Place,
    command,
    line,
    manifest,
    met,
    vosk_folder,
)

FULL_BYTES = 4096
"""On "a full disk", the largest file a command may write (RLIMIT_FSIZE; Python ignores SIGXFSZ, so the write fails
with an OSError, as on a full disk)."""


def say_out(where: str) -> Fault:
    def fault(place: Place) -> Met:
        out = place.files / "no-such-folder" / "said.wav" if where == "a missing folder" else place.files
        argv = ["say", "Hallo", "--lang", "de", "--out", str(out)]
        done = command(place, argv)
        says = "does not exist: create it first" if where == "a missing folder" else "is a folder: give a file name"
        return f"say --out into {where}", argv, done, met(done, code=2, says=says)

    return fault


def _disk_full() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (FULL_BYTES, hard))


def say_full_disk(place: Place) -> Met:
    out = place.files / "said.wav"
    argv = ["say", "Guten Abend, meine Damen und Herren", "--lang", "de", "--out", str(out)]
    done = command(place, argv, limit=_disk_full)
    left = [path for path in place.root.rglob("*") if path.is_file()]
    # The speech cache says it cannot keep the line (a line of its own), then the WAV is not written: nothing left.
    return "say --out on a full disk", argv, done, met(done, code=2, says="nothing was written", more=not left, lines=2)


_BUG = """
from voicemaster.cli.failures import write_bug_log
try:
    raise RuntimeError("a bug, with a long story " * 1000)
except RuntimeError as error:
    print(write_bug_log(error, ["history"]))
"""


def bug_log_full_disk(place: Place) -> Met:
    temporary = place.root / "tmp"
    temporary.mkdir()
    argv = ["-c", _BUG]
    done = command(place, argv, limit=_disk_full, TMPDIR=str(temporary))
    left = [path for path in place.root.rglob("*") if path.is_file()]
    ok = done is not None and done.stdout.startswith("(nowhere") and not left
    return "the bug log on a full disk", argv, done, met(done, code=0, says="", more=ok, lines=0)


_STOPPED = """
import os, signal, sys
from pathlib import Path
from voicemaster.models.staging import staging
with staging(Path(sys.argv[1])) as stage:
    (stage / "weights.bin").write_bytes(bytes(1_000_000))
    os.kill(os.getpid(), signal.SIGKILL)
"""


def killed_install(place: Place) -> Met:
    place.models.mkdir()
    argv = ["models", "install", str(vosk_folder(place))]
    try:
        subprocess.run([sys.executable, "-c", _STOPPED, str(place.models)], env=place.env(), timeout=LIMIT_SECONDS)
    except subprocess.TimeoutExpired:  # the install to be killed hung: a figure, not the end of the drill
        return "models install after one killed mid-way", argv, None, met(None, code=0, says="")
    done = command(place, argv)
    tidy = sorted(path.name for path in place.models.iterdir()) == [VOSK_DE]
    return (
        "models install after one killed mid-way",
        argv,
        done,
        met(done, code=0, says="left by an install that was stopped", more=tidy),
    )


def imports_at_once(place: Place) -> Met:
    for name in ("first.csv", "second.csv"):
        (place.files / name).write_text(HEAD + FAMILY, encoding="utf-8")
    start = [sys.executable, "-m", "voicemaster", "questions", "import"]
    running = [
        subprocess.Popen(
            [*start, str(place.files / name), "--format", "csv"],
            env=place.env(),
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for name in ("first.csv", "second.csv")
    ]
    try:
        ended = [process.communicate(timeout=LIMIT_SECONDS) for process in running]
    except subprocess.TimeoutExpired:  # a hang is one fault's figure, not the end of the drill
        for process in running:
            process.kill()
            process.communicate()
        return "two imports of the same questions at once", ["questions", "import"], None, met(None, code=0, says="")
    codes = sorted(process.returncode for process in running)
    argv = ["questions", "validate"]
    done = command(place, argv)
    once = codes == [0, 2] and all("Traceback" not in err for _, err in ended)
    return "two imports of the same questions at once", argv, done, met(done, code=0, says="0 problem(s)", more=once)


def _silent_recordings(place: Place) -> tuple[Path, Path]:
    empty, silent = place.files / "empty.wav", place.files / "silent.wav"
    Audio(b"", 16_000).write(empty)
    Audio(bytes(32_000), 16_000).write(silent)
    return empty, silent


def silence_heard(place: Place) -> Met:
    empty, silent = _silent_recordings(place)
    lines = "".join(line(file=path.name, options="Berlin|Paris|Rom|Wien") + "\n" for path in (empty, silent))
    argv = ["hear", "--manifest", str(manifest(place, b"\xef\xbb\xbf" + lines.encode())), "--engine", "whisper"]
    done = command(place, argv, VOICEMASTER_MODELS_DIR=str(_installed()))
    nothing = done is not None and done.stdout.count("unknown (heard '', confidence 0.00)") == 2
    return (
        "an empty and a silent WAV, in a manifest with a BOM",
        argv,
        done,
        met(done, code=0, says="", more=nothing, lines=0),
    )


def nan_recording(place: Place) -> Met:
    import struct

    samples = struct.pack("<4000f", *([float("nan")] * 4000))
    header = struct.pack("<HHIIHH", 3, 1, 16_000, 64_000, 4, 32)
    body = b"WAVE" + b"fmt " + struct.pack("<I", 16) + header + b"data" + struct.pack("<I", len(samples)) + samples
    recording = place.files / "nan.wav"
    recording.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    argv = ["hear", str(recording), "--lang", "de", "--context", "answer", "--engine", "whisper"]
    done = command(place, argv, VOICEMASTER_MODELS_DIR=str(_installed()))
    return "a WAV of NaN floats", argv, done, met(done, code=2, says="hold NaN or infinity")


_PEAK = "import resource, sys\nfrom voicemaster.cli.app import main\ncode = main(sys.argv[1:])\n" \
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"  # fmt: skip


def one_recording_many_lines(place: Place) -> Met:
    """A 23 MB recording (silent: heard without decoding) named on 1 line, then on 150: the peak memory of the two
    runs differs by less than two recordings, as each is read when it is heard."""
    recording = place.files / "long.wav"
    Audio(bytes(2 * 16_000 * 720), 16_000).write(recording)  # 23 MB, twelve minutes
    peaks = []
    for count in (1, 150):
        argv = ["-c", _PEAK, "hear", "--manifest", str(manifest(place, (line(file="long.wav") + "\n") * count))]
        done = command(place, argv, VOICEMASTER_MODELS_DIR=str(_installed()))
        said = done.stderr.strip().splitlines() if done is not None else []
        peaks.append(int(said[-1]) * 1024 if said and said[-1].isdigit() else 1 << 62)
    held = peaks[1] - peaks[0] < 2 * recording.stat().st_size
    argv[-1] = f"{argv[-1]} (150 lines)"
    # On standard error: that only 30 s of it are heard (said once), and the peak memory.
    return "one 23 MB recording on 150 manifest lines", argv, done, met(done, code=0, says="", more=held, lines=2)


def kokoro_privacy(place: Place) -> Met:
    argv = ["say", "Good evening", "--lang", "en", "--voice", "kokoro:bm_george", "--out", str(place.files / "k.wav")]
    done = command(place, argv, VOICEMASTER_MODELS_DIR=str(_installed()))
    private = not (place.root / "xdg_cache_home" / "Microsoft").exists()
    return (
        "Kokoro speaking: onnxruntime's telemetry folder",
        argv,
        done,
        met(done, code=0, says="", more=private, lines=0),
    )


def _installed() -> Path:
    """Where the installed speech models are (the user's own models folder of each fault holds none)."""
    found = find_model("whisper", "de")
    return found.parent if found is not None else Path("/nonexistent")
