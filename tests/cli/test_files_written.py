"""What voicemaster writes, when the place or the disk will not take it (issue 49): `say --out` into a missing folder
or onto a folder, a full disk under `say --out` and under the bug log; and what it must not write at all, the device
id and event queue of onnxruntime's telemetry. One true line, no traceback (not even Python's "Exception ignored"
from a half-made WAV writer), and no half-written or empty file left behind."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("user_folders")
GUARD_SECONDS = 120
"""A command still running after this long has hung: the guard, never a measure of speed."""
FULL_BYTES = 4096
"""The largest file a process "on a full disk" may write: its WAV or its log needs more."""


def run(
    *argv: str, limit: Callable[[], None] | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Python on `argv` in a process of its own, in the test's user folders (and `env`), `limit` applied to it."""
    return subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        timeout=GUARD_SECONDS,
        preexec_fn=limit,
        env={**os.environ, **(env or {})},
        check=False,
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("voicemaster: "), done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    return lines[0]


def disk_full() -> None:
    """The disk as a full one answers: no file may grow past FULL_BYTES (Python ignores SIGXFSZ, so a write past
    it fails with an OSError, as on a full disk)."""
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (FULL_BYTES, hard))


@pytest.mark.audio  # eSpeak-NG speaks
def test_say_into_a_missing_folder_or_onto_a_folder_is_one_line_before_any_voice(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder" / "said.wav"
    done = run("-m", "voicemaster", "say", "Hallo", "--lang", "de", "--out", str(missing))
    assert done.returncode == 2
    assert one_line(done) == (
        f"voicemaster: --out {missing}: the folder {missing.parent} does not exist: create it first (mkdir -p "
        f"{missing.parent}), or give another path"
    )
    done = run("-m", "voicemaster", "say", "Hallo", "--lang", "de", "--out", str(tmp_path))
    assert done.returncode == 2
    assert one_line(done) == f"voicemaster: --out {tmp_path}: is a folder: give a file name in it, such as " + str(
        tmp_path / "said.wav"
    )
    assert not missing.parent.exists() and [path for path in tmp_path.rglob("*") if path.is_file()] == []


@pytest.mark.audio  # eSpeak-NG speaks
def test_say_on_a_full_disk_leaves_no_wav_and_keeps_the_one_that_was_there(tmp_path: Path) -> None:
    out = tmp_path / "said.wav"
    out.write_bytes(b"the earlier file")
    done = run("-m", "voicemaster", "say", "Guten Abend, meine Damen und Herren", "--lang", "de", "--out", str(out),
               limit=disk_full)  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    # The speech cache could not keep the line either (it says so, and what to do), and the WAV was not written.
    cache, said = done.stderr.strip().splitlines()
    assert "cannot keep rendered speech" in cache and "free some space on its disk" in cache, cache
    assert said.startswith(f"voicemaster: cannot write {out} (File too large); nothing was written"), said
    assert out.read_bytes() == b"the earlier file"
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert written == [out], written  # no partial file beside it, nor in the cache


_BUG = """
import sys
from voicemaster.cli.failures import write_bug_log
try:
    raise RuntimeError("a bug, with a long story " * 1000)
except RuntimeError as error:
    print(write_bug_log(error, ["history"]))
"""


def test_a_bug_log_on_a_full_disk_leaves_no_empty_file(user_folders: Path, tmp_path: Path) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    done = run("-c", _BUG, limit=disk_full, env={"TMPDIR": str(temporary)})  # the second place a log goes
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("(nowhere")
    logs = user_folders / "xdg_data_home" / "voicemaster" / "logs"
    assert [path for path in [*logs.iterdir(), *temporary.iterdir()] if path.is_file()] == []
    done = run("-c", _BUG)  # and with room, the whole log
    written = Path(done.stdout.strip())
    assert written.parent == logs and "a bug, with a long story" in written.read_text(encoding="utf-8")


def test_onnxruntime_is_imported_only_with_its_telemetry_off() -> None:
    """Every module that loads onnxruntime, or kokoro-onnx (which loads it), goes through speech/onnx_runtime.py."""
    import voicemaster
    import voicemaster_lab

    roots = [Path(voicemaster.__file__).parent, Path(voicemaster_lab.__file__).parent]
    for path in (path for root in roots for path in root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name == "onnx_runtime.py":
            continue
        assert not re.search(r"(?m)^\s*(import onnxruntime|from onnxruntime)", text), path
        if "kokoro_onnx" in text:
            assert "onnx_runtime" in text, path


@pytest.mark.model  # Kokoro's model
@pytest.mark.audio  # Kokoro speaks
def test_speaking_with_kokoro_leaves_no_telemetry_behind(user_folders: Path, tmp_path: Path) -> None:
    out = tmp_path / "said.wav"
    done = run("-m", "voicemaster", "say", "Good evening", "--lang", "en", "--voice", "kokoro:bm_george",
               "--out", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 1000
    cache = user_folders / "xdg_cache_home"
    assert not (cache / "Microsoft").exists(), sorted(str(path) for path in cache.rglob("*"))
    assert not (user_folders / "home" / ".cache" / "Microsoft").exists()


@pytest.mark.model  # the Silero model ships with faster-whisper
def test_the_voice_activity_detector_leaves_no_telemetry_behind(user_folders: Path) -> None:
    done = run("-c", "from voicemaster.speech.hearing.voice_activity import SileroVad\nSileroVad()")
    assert done.returncode == 0, done.stderr
    assert not (user_folders / "xdg_cache_home" / "Microsoft").exists()
