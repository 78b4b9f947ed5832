"""Audio as numbers: float conversion and resampling, for the engines and the microphone (numpy at the edge)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from voicemaster.speech.audio import Audio

Samples = npt.NDArray[np.float32]

RECOGNITION_RATE = 16_000
"""What every recognizer and the microphone use."""
SILENT_PEAK = 16
"""Samples no louder than this (of 32 767: -66 dBFS, below any microphone's own hiss) are silence."""


def silent(audio: Audio) -> bool:
    """True for a recording with nothing in it: no samples, or none louder than `SILENT_PEAK`. A recognizer hears
    such a recording as nothing; Whisper, left to it, makes a word up ("you")."""
    if len(audio.samples) < 2:
        return True
    values = np.frombuffer(audio.samples[: len(audio.samples) // 2 * 2], dtype="<i2").astype(np.int32)
    return int(np.abs(values).max()) <= SILENT_PEAK


def to_float(audio: Audio) -> Samples:
    """Samples scaled to -1..1."""
    return (np.frombuffer(audio.samples, dtype="<i2").astype(np.float32) / 32768.0).astype(np.float32)


def from_float(samples: npt.NDArray[np.floating], rate: int) -> Audio:
    clipped = np.clip(np.asarray(samples, dtype=np.float64) * 32768.0, -32768, 32767)
    return Audio(np.round(clipped).astype("<i2").tobytes(), rate)


def resample(audio: Audio, rate: int = RECOGNITION_RATE) -> Audio:
    """The same sound at another rate, band-limited (FFT resampling: exact for the short clips we handle)."""
    if audio.rate == rate or not audio.samples:
        return audio if audio.rate == rate else Audio(b"", rate)
    samples = to_float(audio).astype(np.float64)
    count = round(len(samples) * rate / audio.rate)
    spectrum = np.fft.rfft(samples)
    kept = count // 2 + 1
    if kept <= len(spectrum):
        spectrum = spectrum[:kept]
    else:
        spectrum = np.concatenate([spectrum, np.zeros(kept - len(spectrum), dtype=spectrum.dtype)])
    return from_float(np.fft.irfft(spectrum, count) * (count / len(samples)), rate)
