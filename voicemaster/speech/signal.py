"""Audio as numbers: float conversion and resampling, for the engines and the microphone (numpy at the edge)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from voicemaster.speech.audio import Audio

Samples = npt.NDArray[np.float32]

RECOGNITION_RATE = 16_000
"""What every recognizer and the microphone use."""


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
