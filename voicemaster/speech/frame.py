"""What travels down the listening path, one microphone frame at a time: its samples and what the front end judged.

A `Frame` is the unit every stage after the device reads (`speech.hearing.pipeline`): 16-bit mono PCM at 16 kHz, and,
where an echo canceller ran (`speech.frontend`), its `EchoJudgement`: how much of the microphone's sound it left, and
what of the frame our own echo does not explain. The judgement rides on the frame as a field, so a stage that needs it
reads it, and one that does not never sees it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from voicemaster.speech.signal import RECOGNITION_RATE

FRAME_SAMPLES = 512
"""One frame: 32 ms at 16 kHz, the window the voice-activity model (Silero) is trained on."""
FRAME_BYTES = 2 * FRAME_SAMPLES
FRAME_SECONDS = FRAME_SAMPLES / RECOGNITION_RATE
EPSILON = 1e-9
"""Durations are sums of float frame lengths: 0.7 s must end after 0.1 s seven times, not an eighth."""


@dataclass(frozen=True)
class OverEcho:
    """What of a microphone frame our echo does not explain, by the barge-in filter
    (`frontend.barge_in_filter`): a player talking over our voice, kept whole where the echo canceller's suppressor
    takes them out with our voice."""

    samples: bytes
    """16-bit PCM: the frame's bins where the microphone rises clearly over our echo as predicted."""
    share: float
    """Its loudness over the microphone's (RMS ratio, 0-1): near 0 where only our voice was heard."""


@dataclass(frozen=True)
class EchoJudgement:
    """What an echo canceller saw in one frame."""

    residual: float
    """The cleaned frame's loudness over the microphone's (RMS ratio, 0-1 mostly): near 0 where the canceller took
    out an echo, near 1 where what was heard was not ours."""
    settled: bool = True
    """Whether the canceller had heard enough of our voice for the residual to say anything
    (`BargeInSettings.settle_seconds`)."""
    over_echo: OverEcho | None = None
    """What the barge-in filter found our echo does not explain; None when none ran or it cannot tell yet (the delay
    not found, the coupling not learnt, the canceller not settled), so that the residual alone judges the frame."""


@dataclass(frozen=True)
class Frame:
    """One frame heard: 16-bit mono PCM at 16 kHz, after the front end if one ran."""

    samples: bytes
    echo: EchoJudgement | None = None
    """What the echo canceller saw in it; None when no echo canceller ran (a script, a file, no front end)."""

    def reframed(self, samples: bytes) -> Frame:
        """`samples` (the same sound, framed anew) with this frame's judgement."""
        return replace(self, samples=samples)
