"""The barge-in filter: tells a player talking over our voice from our voice, never cleans audio.

WebRTC's AEC3 keeps our voice out of what hearing reads by suppressing every band our echo dominates, so a player
10 dB under our echo comes out about 20 dB quieter and the voice-activity model misses them. This filter predicts
only how loud our echo is in each frequency bin of a frame: the reference's power spectrum from where the echo lies
behind it (the peak of their cross-correlation, found again every `DELAY_EVERY_SECONDS`), the loudest of the frames
around it (the delay through a sound server moves from line to line and within one), times the coupling from the
loudspeaker to the microphone learnt per bin (a high percentile of what was heard over what was played, over the
last seconds our voice sounded). The bins where the microphone rises `OVER_ECHO_DB` over that prediction are the
player's: nearly whole where they are louder than our voice, nearly nothing where only our voice is. A linear echo
filter, which keeps more of the player where the delay stands still, cancelled nothing live on a sound server whose
delay moves (docs/benchmarks.md).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from voicemaster.speech.frontend.frames import Floats, OverEcho
from voicemaster.speech.signal import RECOGNITION_RATE

LONGEST_DELAY_SECONDS = 0.4
"""The longest delay from the reference to its echo looked for: the sound server's buffers and the room."""
DELAY_WINDOW_SECONDS = 0.75
"""How much of the microphone the delay is found over, every `DELAY_EVERY_SECONDS`."""
DELAY_EVERY_SECONDS = 0.25
AGREE_SAMPLES = round(0.01 * RECOGNITION_RATE)
"""Two looks in a row at the delay must agree this closely (10 ms) for it to be taken."""
CLEAR_PEAK = 0.2
"""The normalised correlation the delay's peak must reach: our voice clearly in the microphone."""
FRAMES_BEFORE, FRAMES_AFTER = 2, 3
"""Frames around the delay whose loudest power stands for the echo: the delay's drift and the room's tail."""
COUPLING_PERCENTILE = 97.0
"""The coupling is a high percentile of heard over played power per bin: the median let our voice through."""
COUPLING_FRAMES = 150
"""Frames of our voice (about 5 s) the coupling is learnt over; it is used once `COUPLING_LEAST` are in."""
COUPLING_LEAST = 32
COUPLING_EVERY = 8
"""The coupling is worked out again every this many frames learnt from (a quarter of a second)."""
SOUNDING_POWER = 1e3
"""Our voice counts as sounding near a frame when the reference's power spectrum around the delay sums to this times
the frame's length squared (an RMS of about 70 of 32 767): only then is the coupling learnt."""
LEARN_BELOW = 0.1
"""The coupling learns only from frames that leave less than this share unexplained."""
OVER_ECHO_DB = 6.0
"""How far the microphone must rise over the predicted echo in a bin for the bin to be the player's."""


class BargeInFilter:
    """Judges one microphone frame at a time against the reference played in step with it."""

    def __init__(self) -> None:
        self._delay = _Delay()
        self._played: list[Any] = []
        """The reference's power spectra, the newest last."""
        self._ratios: list[Any] = []
        self._coupling: Any = None
        self._learnt = 0

    def judge(self, heard: Floats, played: Floats) -> OverEcho | None:
        """What of `heard` our echo does not explain; None until the delay is found and the coupling learnt."""
        window = _window(len(heard))
        delay = self._delay.update(heard, played)
        kept = round(LONGEST_DELAY_SECONDS * RECOGNITION_RATE / len(heard)) + FRAMES_AFTER + 1
        self._played = [*self._played[-kept:], np.abs(np.fft.rfft(played * window)) ** 2]
        if delay is None:
            return None
        behind = round(delay / len(heard))
        newest = len(self._played) - 1
        around = [newest - back for back in range(max(0, behind - FRAMES_BEFORE), behind + FRAMES_AFTER + 1)]
        near = [self._played[at] for at in around if at >= 0]
        if not near:
            return None
        echo_shape = np.max(np.stack(near), axis=0)
        power = np.abs(np.fft.rfft(heard * window)) ** 2
        found = self._over(heard, power, echo_shape) if self._coupling is not None else None
        # Learnt from frames of our voice that hold nobody else: a player talking on would be learnt as the room.
        sounding = float(np.sum(echo_shape)) > SOUNDING_POWER * len(heard) ** 2
        if sounding and (found is None or found.share < LEARN_BELOW):
            self._ratios = [*self._ratios[-(COUPLING_FRAMES - 1) :], power / (echo_shape + 1.0)]
            self._learnt += 1
            if len(self._ratios) >= COUPLING_LEAST and self._learnt % COUPLING_EVERY == 0:
                self._coupling = np.percentile(np.stack(self._ratios), COUPLING_PERCENTILE, axis=0)
        return found

    def _over(self, heard: Floats, power: Any, echo_shape: Any) -> OverEcho:
        keep = power > 10 ** (OVER_ECHO_DB / 10) * self._coupling * echo_shape
        samples: Any = np.fft.irfft(np.fft.rfft(heard) * keep, len(heard))
        share = float(np.sqrt(np.sum(power[keep]) / max(float(np.sum(power)), 1.0)))
        return OverEcho(np.clip(np.round(samples), -32768, 32767).astype("<i2").tobytes(), share)


class _Delay:
    """Where our echo lies behind its reference, in samples: the peak of their cross-correlation over the last
    `DELAY_WINDOW_SECONDS`, taken when two looks in a row agree (one look may find a passing likeness)."""

    def __init__(self) -> None:
        self._window = round(DELAY_WINDOW_SECONDS * RECOGNITION_RATE)
        self._longest = round(LONGEST_DELAY_SECONDS * RECOGNITION_RATE)
        self._played = np.zeros(self._window + self._longest)
        self._heard = np.zeros(self._window)
        self._since = 0
        self._last: int | None = None
        self.found: int | None = None

    def update(self, heard: Floats, played: Floats) -> int | None:
        count = len(heard)
        self._played = np.concatenate([self._played[count:], played])
        self._heard = np.concatenate([self._heard[count:], heard])
        self._since += count
        if self._since >= DELAY_EVERY_SECONDS * RECOGNITION_RATE:
            self._since = 0
            looked = self._look()
            if looked is not None and self._last is not None and abs(looked - self._last) <= AGREE_SAMPLES:
                self.found = looked
            self._last = looked
        return self.found

    def _look(self) -> int | None:
        window, longest = self._window, self._longest
        if not self._played[-window:].any():
            return None
        size = 1 << (2 * window + longest).bit_length()
        scores = np.fft.irfft(np.fft.rfft(self._heard[::-1], size) * np.fft.rfft(self._played, size), size)
        # scores[window - 1 + longest - lag] = sum(heard[n] * played[n + longest - lag]) over the window
        lags = scores[window - 1 : window + longest][::-1]
        best = int(np.argmax(np.abs(lags)))
        aligned = self._played[longest - best : longest - best + window]
        energy = float(np.sqrt(np.sum(self._heard**2) * np.sum(aligned**2)))
        return best if energy and abs(float(lags[best])) / energy >= CLEAR_PEAK else None


@functools.cache
def _window(length: int) -> Floats:
    """The Hann window every frame's spectrum is taken through (made once per frame length: this runs per block)."""
    return np.hanning(length)
