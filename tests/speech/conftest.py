"""The speech tests' fixtures: Whisper as an ear, the shipped eSpeak-NG voices, and a private PulseAudio daemon with
a virtual microphone and speaker (`voicemaster_lab.harness.pulse`, shared with `bench live`), for tests through the real
sounddevice path. PortAudio lists devices once, so it is restarted (`devices.rescan`) once the daemon is up.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from voicemaster.config.settings import default_paths, load_settings
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import resample, to_float
from voicemaster.speech.voice.synthesis import Espeak
from voicemaster_lab.harness.pulse import INSTALL_HINT, Pulse, missing_tools, start_pulse

__all__ = ["Pulse", "matches", "start_pulse"]  # the daemon is imported from here by the tests that use it


@pytest.fixture(scope="session")
def ear(whisper: Callable[[str], WhisperRecognizer]) -> WhisperRecognizer:
    """Whisper base, to check by ear that a voice says what it was given."""
    return whisper("en")


@pytest.fixture(scope="session")
def espeak() -> Espeak:
    """The quizmaster's voices as shipped; also the voice of scripted players."""
    return Espeak(load_settings(default_paths()[:1]).speech)


def matches(heard: Audio, spoken: Audio) -> float:
    """How well the sound in `spoken` is found in `heard`: 1.0 is all of it, unchanged.

    The normalized correlation at the best offset, over `spoken` from its first to its last audible sample (so the
    silence a synthesizer adds around words does not count), after converting it to `heard`'s rate.
    """
    a = to_float(heard).astype(np.float64)
    b = to_float(resample(spoken, heard.rate)).astype(np.float64)
    loud = np.nonzero(np.abs(b) > 0.01)[0]
    b = b[loud[0] : loud[-1] + 1]
    if len(a) < len(b):
        return 0.0
    scores = np.correlate(a, b, "valid")
    best = int(np.argmax(scores))
    return float(scores[best] / np.sqrt(np.sum(b**2) * np.sum(a[best : best + len(b)] ** 2) + 1e-12))


@pytest.fixture(scope="session")
def pulse() -> Iterator[Pulse]:
    missing = missing_tools()
    if missing:
        pytest.skip(f"PulseAudio is not installed ({', '.join(missing)} missing): {INSTALL_HINT}")
    from voicemaster.speech.devices import portaudio as devices

    # A short folder name: the socket path must fit in 108 bytes.
    daemon = start_pulse(Path(tempfile.mkdtemp(prefix="vm-pulse-")))
    with pytest.MonkeyPatch.context() as patch:
        for name, value in daemon.env.items():
            if name.startswith("PULSE_"):
                patch.setenv(name, value)
        devices.rescan()
        try:
            yield daemon
        finally:
            daemon.stop()
    devices.rescan()
    shutil.rmtree(daemon.folder, ignore_errors=True)
