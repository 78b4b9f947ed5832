"""The front end's interface: microphone frames and the loudspeaker's reference in, cleaned frames out.

Pure of devices: a front end is fed pairs of equal length (16-bit mono at 16 kHz) and keeps its own state (an echo
canceller learns the room as it goes), so the same one serves a microphone, the demo's stage and a bench reading
files. Processors that work in 10 ms steps (WebRTC's) are fed through `Chunked`, which adds those 10 ms of delay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from voicemaster.speech.signal import RECOGNITION_RATE

Samples = npt.NDArray[np.int16]
Floats = npt.NDArray[np.float64]

CHUNK_SAMPLES = 160
"""10 ms at 16 kHz: the step WebRTC's audio processing works in."""
SETTLE_SECONDS = 2.0
"""How much of our own voice an echo canceller must have heard before what it leaves is trusted: WebRTC's found the
room's delay and cut the echo by 20 dB or more within about half a second of the first line, not at its first
syllable (`voicemaster bench frontend`)."""


class FrontEndUnavailable(RuntimeError):
    """The front end asked for cannot run here; the message says what to install."""


@dataclass(frozen=True)
class OverEcho:
    """What of a microphone frame our echo does not explain, by the barge-in filter (`barge_in.py`): a player talking
    over our voice, kept whole where the echo canceller's suppressor takes them out with our voice."""

    samples: bytes
    """16-bit PCM: the frame's bins where the microphone rises clearly over our echo as predicted."""
    share: float
    """Its loudness over the microphone's (RMS ratio, 0-1): near 0 where only our voice was heard."""


class CleanedFrame(bytes):
    """A microphone frame after the front end (16-bit mono PCM), with what the echo canceller saw in it."""

    residual: float | None
    """The cleaned frame's loudness over the microphone's (RMS ratio, 0-1 mostly): near 0 where the canceller took
    out an echo, near 1 where what was heard was not ours. None when no echo canceller ran."""
    settled: bool
    """Whether the canceller had heard enough of our voice (`SETTLE_SECONDS`) for the residual to say anything."""
    over_echo: OverEcho | None
    """What the barge-in filter found our echo does not explain; None when none ran or it cannot tell yet (the delay
    not found, the coupling not learnt, the canceller not settled), so that the residual alone judges the frame."""

    def __new__(
        cls, samples: bytes, residual: float | None, *, settled: bool = True, over_echo: OverEcho | None = None
    ) -> CleanedFrame:
        made = super().__new__(cls, samples)
        made.residual = residual
        made.settled = settled
        made.over_echo = over_echo
        return made

    def judged_as(self, samples: bytes) -> CleanedFrame:
        """`samples` (the same sound, framed anew) with this frame's judgement."""
        return CleanedFrame(samples, self.residual, settled=self.settled, over_echo=self.over_echo)


class FrontEnd(Protocol):
    @property
    def name(self) -> str:
        """What it does, as `voicemaster devices` says it."""
        ...

    @property
    def cancels_echo(self) -> bool: ...

    def process(self, frame: bytes, reference: bytes) -> CleanedFrame:
        """`frame` cleaned, given `reference`: what the loudspeaker played in step with it (same length; silence
        when nothing played)."""
        ...


@dataclass(frozen=True)
class Passthrough:
    """No front end: frames pass as they are."""

    name: str = "off"
    cancels_echo: bool = False

    def process(self, frame: bytes, reference: bytes) -> CleanedFrame:
        del reference
        return CleanedFrame(frame, None)


Step = Callable[[Samples, Samples], Samples]
"""One 10 ms step of a processor: microphone and reference samples in, cleaned samples out."""


class EchoJudge(Protocol):
    """Tells a player talking over our voice from our voice (`barge_in.BargeInFilter`)."""

    def judge(self, heard: Floats, played: Floats) -> OverEcho | None:
        """What of `heard` (one frame) our echo does not explain, given `played` in step with it; None while the
        judge cannot tell yet."""
        ...


class Chunked:
    """A processor of 10 ms steps as a `FrontEnd` for frames of any length: what does not fill a step waits for the
    next frame, so the output runs one step (10 ms) behind the input, and so does the residual's comparison.
    With a `judge`, each frame also carries what of it our echo does not explain, once the canceller has settled."""

    def __init__(self, name: str, step: Step, *, cancels_echo: bool, judge: EchoJudge | None = None) -> None:
        self.name = name
        self.cancels_echo = cancels_echo
        self._step = step
        self._judge = judge
        self._waiting = np.zeros(0, dtype=np.int16)
        self._waiting_reference = np.zeros(0, dtype=np.int16)
        self._out = np.zeros(CHUNK_SAMPLES, dtype=np.int16)
        self._heard = np.zeros(CHUNK_SAMPLES, dtype=np.int16)
        """The microphone's samples, delayed as the output is, to measure the residual against."""
        self._played = np.zeros(CHUNK_SAMPLES, dtype=np.int16)
        """The reference, delayed as the output is, for the judge."""
        self._sounding = 0
        """Samples of reference that held sound, up to `SETTLE_SECONDS`' worth."""

    def process(self, frame: bytes, reference: bytes) -> CleanedFrame:
        if len(frame) != len(reference):
            raise ValueError(f"a reference of {len(reference)} bytes for a frame of {len(frame)}")
        heard = np.frombuffer(frame, dtype="<i2")
        played = np.frombuffer(reference, dtype="<i2")
        self._waiting = np.concatenate([self._waiting, heard])
        self._waiting_reference = np.concatenate([self._waiting_reference, played])
        if played.any():
            self._sounding = min(self._sounding + len(played), round(SETTLE_SECONDS * RECOGNITION_RATE))
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
        residual = _loudness(out) / max(_loudness(before), 1.0) if self.cancels_echo else None
        settled = self._sounding >= round(SETTLE_SECONDS * RECOGNITION_RATE)
        over_echo = None
        if self._judge is not None:
            self._played = np.concatenate([self._played, played])
            delayed, self._played = self._played[:count], self._played[count:]
            judged = self._judge.judge(before.astype(np.float64), delayed.astype(np.float64))
            over_echo = judged if settled else None
        return CleanedFrame(out.astype("<i2").tobytes(), residual, settled=settled, over_echo=over_echo)


def _loudness(samples: Samples) -> float:
    return float(np.sqrt(np.mean(samples.astype(np.float64) ** 2))) if len(samples) else 0.0


def clean(front_end: FrontEnd, pairs: Iterable[tuple[bytes, bytes]]) -> Iterator[CleanedFrame]:
    """Each (microphone, reference) pair through the front end, in order."""
    for frame, reference in pairs:
        yield front_end.process(frame, reference)


def usable_front_end(
    *, echo_cancel: bool, noise_suppression: bool, barge_in_filter: bool = True
) -> tuple[FrontEnd, str | None]:
    """The front end the settings ask for, or none and why (WebRTC's audio processing is not installed): a game
    is still played without it, the echo judged by its level alone."""
    try:
        chosen = open_front_end(
            echo_cancel=echo_cancel, noise_suppression=noise_suppression, barge_in_filter=barge_in_filter
        )
        return chosen, None
    except FrontEndUnavailable as error:
        return Passthrough(), str(error)


def open_front_end(*, echo_cancel: bool, noise_suppression: bool, barge_in_filter: bool = True) -> FrontEnd:
    """The front end the settings ask for (the `[speech]` switches of the same names); `FrontEndUnavailable` when
    WebRTC's audio processing is not installed."""
    if not (echo_cancel or noise_suppression):
        return Passthrough()
    from voicemaster.speech.frontend.webrtc import WebRtc

    return WebRtc(echo_cancel=echo_cancel, noise_suppression=noise_suppression, barge_in_filter=barge_in_filter)
