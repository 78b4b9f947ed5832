"""A processor of 10 ms steps (WebRTC's) as a `FrontEnd` for frames of any length, judging each frame's echo.

What does not fill a step waits for the next frame, so the output runs one step (10 ms) behind the input, and so does
the residual's comparison. Each frame comes out with its `EchoJudgement`: the canceller's residual, whether the
canceller has settled, and, given a judge (the barge-in filter), what of the frame our echo does not explain.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np
import numpy.typing as npt

from voicemaster.speech.barge_in.settings import BargeInSettings
from voicemaster.speech.frame import EchoJudgement, Frame, OverEcho
from voicemaster.speech.signal import RECOGNITION_RATE

Samples = npt.NDArray[np.int16]
Floats = npt.NDArray[np.float64]

CHUNK_SAMPLES = 160
"""10 ms at 16 kHz: the step WebRTC's audio processing works in."""

Step = Callable[[Samples, Samples], Samples]
"""One 10 ms step of a processor: microphone and reference samples in, cleaned samples out."""


class EchoJudge(Protocol):
    """Tells a player talking over our voice from our voice (`barge_in_filter.BargeInFilter`)."""

    def judge(self, heard: Floats, played: Floats) -> OverEcho | None:
        """What of `heard` (one frame) our echo does not explain, given `played` in step with it; None while the
        judge cannot tell yet."""
        ...


class Chunked:
    """A processor of 10 ms steps as a `FrontEnd`; with `cancels_echo`, each frame judged (`EchoJudgement`)."""

    def __init__(
        self,
        name: str,
        step: Step,
        *,
        cancels_echo: bool,
        judge: EchoJudge | None = None,
        settings: BargeInSettings | None = None,
    ) -> None:
        self.name = name
        self.cancels_echo = cancels_echo
        self._step = step
        self._judge = judge
        self._settle = round((settings or BargeInSettings()).settle_seconds * RECOGNITION_RATE)
        self._waiting = np.zeros(0, dtype=np.int16)
        self._waiting_reference = np.zeros(0, dtype=np.int16)
        self._out = np.zeros(CHUNK_SAMPLES, dtype=np.int16)
        self._heard = np.zeros(CHUNK_SAMPLES, dtype=np.int16)
        """The microphone's samples, delayed as the output is, to measure the residual against."""
        self._played = np.zeros(CHUNK_SAMPLES, dtype=np.int16)
        """The reference, delayed as the output is, for the judge."""
        self._sounding = 0
        """Samples of reference that held sound, up to `settle_seconds`' worth."""

    def process(self, frame: bytes, reference: bytes) -> Frame:
        if len(frame) != len(reference):
            raise ValueError(f"a reference of {len(reference)} bytes for a frame of {len(frame)}")
        heard = np.frombuffer(frame, dtype="<i2")
        played = np.frombuffer(reference, dtype="<i2")
        self._waiting = np.concatenate([self._waiting, heard])
        self._waiting_reference = np.concatenate([self._waiting_reference, played])
        if played.any():
            self._sounding = min(self._sounding + len(played), self._settle)
        ready = len(self._waiting) // CHUNK_SAMPLES * CHUNK_SAMPLES
        cleaned = [
            self._step(self._waiting[at : at + CHUNK_SAMPLES], self._waiting_reference[at : at + CHUNK_SAMPLES])
            for at in range(0, ready, CHUNK_SAMPLES)
        ]
        self._waiting, self._waiting_reference = self._waiting[ready:], self._waiting_reference[ready:]
        self._out = np.concatenate([self._out, *cleaned])
        self._heard = np.concatenate([self._heard, heard])
        count = len(heard)
        out, self._out = self._out[:count], self._out[count:]
        before, self._heard = self._heard[:count], self._heard[count:]
        samples = out.astype("<i2").tobytes()
        if not self.cancels_echo:
            return Frame(samples)
        settled = self._sounding >= self._settle
        over_echo = None
        if self._judge is not None:
            self._played = np.concatenate([self._played, played])
            delayed, self._played = self._played[:count], self._played[count:]
            judged = self._judge.judge(before.astype(np.float64), delayed.astype(np.float64))
            over_echo = judged if settled else None
        residual = _loudness(out) / max(_loudness(before), 1.0)
        return Frame(samples, EchoJudgement(residual, settled, over_echo))


def _loudness(samples: Samples) -> float:
    return float(np.sqrt(np.mean(samples.astype(np.float64) ** 2))) if len(samples) else 0.0
