"""The barge-in filter: tells a player talking over our voice from our voice, never cleans audio.

WebRTC's AEC3 keeps our voice out of what hearing reads by suppressing every band our echo dominates, so a player
10 dB under our echo comes out about 20 dB quieter and the voice-activity model misses them. This filter predicts
only how loud our echo is in each frequency bin of a frame: the reference's power spectrum from where the echo lies
behind it (the peak of their cross-correlation, found again every `delay_every_seconds`), the loudest of the frames
around it (the delay through a sound server moves from line to line and within one), times the coupling from the
loudspeaker to the microphone learnt per bin (a high percentile of what was heard over what was played, over the
last seconds our voice sounded). The bins where the microphone rises `over_echo_db` over that prediction are the
player's: nearly whole where they are louder than our voice, nearly nothing where only our voice is. Its numbers are
`barge_in.FilterSettings`; why a linear echo filter was not kept: docs/decisions/.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt

from voicemaster.speech.barge_in.settings import FilterSettings
from voicemaster.speech.frame import OverEcho
from voicemaster.speech.signal import RECOGNITION_RATE

Floats = npt.NDArray[np.float64]


class BargeInFilter:
    """Judges one microphone frame at a time against the reference played in step with it."""

    def __init__(self, settings: FilterSettings | None = None) -> None:
        self._settings = settings or FilterSettings()
        self._delay = _Delay(self._settings)
        self._played: list[Any] = []
        """The reference's power spectra, the newest last."""
        self._ratios: list[Any] = []
        self._coupling: Any = None
        self._learnt = 0

    def judge(self, heard: Floats, played: Floats) -> OverEcho | None:
        """What of `heard` our echo does not explain; None until the delay is found and the coupling learnt."""
        settings = self._settings
        window = _window(len(heard))
        delay = self._delay.update(heard, played)
        kept = round(settings.longest_delay_seconds * RECOGNITION_RATE / len(heard)) + settings.frames_after + 1
        self._played = [*self._played[-kept:], np.abs(np.fft.rfft(played * window)) ** 2]
        if delay is None:
            return None
        behind = round(delay / len(heard))
        newest = len(self._played) - 1
        reach = range(max(0, behind - settings.frames_before), behind + settings.frames_after + 1)
        near = [self._played[newest - back] for back in reach if newest - back >= 0]
        if not near:
            return None
        echo_shape = np.max(np.stack(near), axis=0)
        power = np.abs(np.fft.rfft(heard * window)) ** 2
        found = self._over(heard, power, echo_shape) if self._coupling is not None else None
        # Learnt from frames of our voice that hold nobody else: a player talking on would be learnt as the room.
        sounding = float(np.sum(echo_shape)) > settings.sounding_power * len(heard) ** 2
        if sounding and (found is None or found.share < settings.learn_below):
            self._ratios = [*self._ratios[-(settings.coupling_frames - 1) :], power / (echo_shape + 1.0)]
            self._learnt += 1
            if len(self._ratios) >= settings.coupling_least and self._learnt % settings.coupling_every == 0:
                self._coupling = np.percentile(np.stack(self._ratios), settings.coupling_percentile, axis=0)
        return found

    def _over(self, heard: Floats, power: Any, echo_shape: Any) -> OverEcho:
        keep = power > 10 ** (self._settings.over_echo_db / 10) * self._coupling * echo_shape
        samples: Any = np.fft.irfft(np.fft.rfft(heard) * keep, len(heard))
        share = float(np.sqrt(np.sum(power[keep]) / max(float(np.sum(power)), 1.0)))
        return OverEcho(np.clip(np.round(samples), -32768, 32767).astype("<i2").tobytes(), share)


class _Delay:
    """Where our echo lies behind its reference, in samples: the peak of their cross-correlation over the last
    `delay_window_seconds`, taken when two looks in a row agree (one look may find a passing likeness)."""

    def __init__(self, settings: FilterSettings) -> None:
        self._settings = settings
        self._window = round(settings.delay_window_seconds * RECOGNITION_RATE)
        self._longest = round(settings.longest_delay_seconds * RECOGNITION_RATE)
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
        if self._since >= self._settings.delay_every_seconds * RECOGNITION_RATE:
            self._since = 0
            looked = self._look()
            agree = round(self._settings.agree_seconds * RECOGNITION_RATE)
            if looked is not None and self._last is not None and abs(looked - self._last) <= agree:
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
        return best if energy and abs(float(lags[best])) / energy >= self._settings.clear_peak else None


@functools.cache
def _window(length: int) -> Floats:
    """The Hann window every frame's spectrum is taken through (made once per frame length: this runs per block)."""
    return np.hanning(length)
