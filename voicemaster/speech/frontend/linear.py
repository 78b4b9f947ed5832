"""A linear echo filter of our own, to tell a player talking over our voice from our voice, never to clean audio.

WebRTC's AEC3 keeps our voice out of what hearing reads by suppressing every band our echo dominates, so a player
10 dB under our echo comes out about 20 dB quieter and the voice-activity model misses them. This filter only
predicts our echo from the loudspeaker's reference (a partitioned-block frequency-domain NLMS filter in 10 ms steps,
with a foreground copy that takes the adapting one's weights only when it cancels better, so a player talking does
not pull it off the room, as in Speex's canceller); `over_echo` then keeps the bins of a frame where the microphone
rises `OVER_ECHO_DB` over that prediction: the player whole where they are louder than our voice, and nearly nothing
where only our voice is. Pure numpy; the binding of AEC3 gives no linear output to do this with.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from voicemaster.speech.frontend.frames import CHUNK_SAMPLES, Floats, OverEcho, Samples

PARTITIONS = 16
"""Filter length in 10 ms partitions: 160 ms of delay and room after the reference."""
STEP_SIZE = 0.5
"""The adapting filter's normalised step: larger learns the room faster and is pulled further by a player."""
OVER_ECHO_DB = 6.0
"""How far the microphone must rise over the predicted echo in a bin for the bin to be the player's."""


class LinearEcho:
    """Predicts our echo in the microphone from what the loudspeaker played, 10 ms at a time."""

    def __init__(self, partitions: int = PARTITIONS, step_size: float = STEP_SIZE) -> None:
        bins = CHUNK_SAMPLES + 1
        self._step_size = step_size
        self._played = np.zeros((partitions, bins), dtype=np.complex128)
        self._adapting = np.zeros((partitions, bins), dtype=np.complex128)
        self._kept = np.zeros((partitions, bins), dtype=np.complex128)
        self._previous = np.zeros(CHUNK_SAMPLES)
        self._power = np.ones(bins)
        self._adapting_error = 0.0
        self._kept_error = 0.0

    def predict(self, heard: Samples, played: Samples) -> Floats:
        """Our echo in `heard` (10 ms) as predicted from `played` (the reference in step with it); learns from it."""
        size = CHUNK_SAMPLES
        microphone, reference = heard.astype(np.float64), played.astype(np.float64)
        spectrum = np.fft.rfft(np.concatenate([self._previous, reference]))
        self._previous = reference
        self._played = np.roll(self._played, 1, axis=0)
        self._played[0] = spectrum
        adapting = np.fft.irfft(np.sum(self._adapting * self._played, axis=0))[size:]
        kept = np.fft.irfft(np.sum(self._kept * self._played, axis=0))[size:]
        error = microphone - adapting
        self._power = 0.9 * self._power + 0.1 * np.abs(spectrum) ** 2
        normalised = np.fft.rfft(np.concatenate([np.zeros(size), error])) / (
            self._power * len(self._played) + 1e3 * size
        )
        gradient = np.fft.irfft(np.conj(self._played) * normalised, axis=1)
        gradient[:, size:] = 0.0  # the taps stay causal and one partition long
        self._adapting += self._step_size * np.fft.rfft(gradient, axis=1)
        self._swap(
            float(np.sum(error**2)), float(np.sum((microphone - kept) ** 2)), float(np.sum(microphone**2)), played
        )
        return np.asarray(kept, dtype=np.float64)

    def _swap(self, adapting: float, kept: float, heard: float, played: Samples) -> None:
        """The kept filter takes the adapting one's weights when it cancels clearly better; the adapting one goes back
        to the kept weights when a player pulled it off (its error far over the kept one's and the microphone's)."""
        self._adapting_error = 0.875 * self._adapting_error + 0.125 * adapting
        self._kept_error = 0.875 * self._kept_error + 0.125 * kept
        if played.any() and self._adapting_error < 0.7 * self._kept_error:
            self._kept = self._adapting.copy()
            self._kept_error = self._adapting_error
        elif self._adapting_error > 4 * self._kept_error and self._adapting_error > 0.5 * heard:
            self._adapting = self._kept.copy()
            self._adapting_error = self._kept_error

    def over_echo(self, heard: Floats, echo: Floats) -> OverEcho:
        return over_echo(heard, echo)


def over_echo(heard: Floats, echo: Floats) -> OverEcho:
    """The bins of `heard` (one frame) that rise `OVER_ECHO_DB` over the predicted `echo`, as audio, and their share."""
    spectrum = np.fft.rfft(heard)
    left = spectrum - np.fft.rfft(echo)
    keep = np.abs(left) ** 2 > 10 ** (OVER_ECHO_DB / 10) * np.abs(spectrum - left) ** 2
    samples: Any = np.fft.irfft(left * keep, len(heard))
    share = _loudness(samples) / max(_loudness(heard), 1.0)
    return OverEcho(np.clip(np.round(samples), -32768, 32767).astype("<i2").tobytes(), share)


def _loudness(samples: Floats) -> float:
    return float(np.sqrt(np.mean(samples**2))) if len(samples) else 0.0
