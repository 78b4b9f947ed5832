"""The barge-in stage: whether what is heard while our voice may be in the microphone is a player cutting in.

It sits between the front end and the endpointer (`speech.hearing.pipeline` names the stages). For each frame it
first says what to listen to (`hear`): over our voice, what the barge-in filter found our echo does not explain,
else the frame as the front end left it. Then, while nobody has begun (`judge`), whether the frame's speech counts
for the player and whether an utterance may begin yet: over our voice a player must be heard for a run of frames,
not one burst. What decides is, in this order of trust, the barge-in filter's share, the echo canceller's residual
(once the canceller has settled), else loudness against what we play (`EchoGate`). Every number is
`BargeInSettings`'.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voicemaster.speech.audio import Audio
from voicemaster.speech.barge_in.settings import BargeInSettings
from voicemaster.speech.frame import EPSILON, FRAME_SECONDS, Frame


@dataclass(frozen=True)
class Overheard:
    """What of a frame the endpointer listens to, and how it was heard."""

    samples: bytes
    """Over our voice, what the barge-in filter left of the frame; else the frame itself."""
    echo_possible: bool
    """Our own voice may be in the frame: the line plays, or ended less than the echo tail ago."""
    over_our_voice: bool
    """The barge-in filter judged the frame: `samples` is what our echo does not explain."""


class EchoGate:
    """Where no echo canceller runs: whether a frame is louder than our own voice can reach the microphone.

    The played audio's loudness (RMS per 32 ms) is known in advance; the echo at the microphone is taken to be at most
    `echo_coupling` times the loudest of it over the last `echo_tail_seconds` (latency and reverberation smear the
    echo over that time), and the frame counts as the player only if it is `level_margin` times louder still.
    Far-field speech over a loud question therefore does not interrupt; a player speaking up does.
    """

    def __init__(self, program: Audio, settings: BargeInSettings) -> None:
        window = max(1, round(program.rate * FRAME_SECONDS))
        samples = np.frombuffer(program.samples, dtype="<i2").astype(np.float64)
        count = -(-len(samples) // window)
        padded = np.zeros(count * window)
        padded[: len(samples)] = samples
        self._envelope = np.sqrt(np.mean(padded.reshape(count, window) ** 2, axis=1)) if count else np.zeros(1)
        self._step = window / program.rate
        self._settings = settings

    def threshold(self, at: float) -> float:
        """The RMS (full scale 32 767) a microphone frame must exceed to be the player, `at` seconds into what we
        play. Position reports run slightly ahead of what is audible, so the window reaches one frame forward."""
        settings = self._settings
        first = max(0, int((at - settings.echo_tail_seconds) / self._step))
        last = min(len(self._envelope), int((at + FRAME_SECONDS) / self._step) + 1)
        loudest = float(self._envelope[first:last].max()) if last > first else 0.0
        return loudest * settings.echo_coupling * settings.level_margin


def rms(samples: bytes) -> float:
    pcm = np.frombuffer(samples, dtype="<i2").astype(np.float64)
    return float(np.sqrt(np.mean(pcm**2))) if len(pcm) else 0.0


class BargeIn:
    """One listening's barge-in stage, given the line that plays as it begins (`program`; None: silence)."""

    def __init__(self, program: Audio | None, settings: BargeInSettings, reset_seconds: float) -> None:
        """`reset_seconds`: a pause this long loses the run of the player's frames counted so far (the endpointer's
        own, for speech before an utterance begins)."""
        self.settings = settings
        self._reset_seconds = reset_seconds
        self._gate = EchoGate(program, settings) if program is not None else None
        self._heard_at: float | None = None
        """Where in the line the last frame our voice may be in was heard."""
        self._since_program = 0.0
        self._above_echo_at: float | None = None
        self._passed_seconds = 0.0
        """Seconds of frames taken for the player's since they were last lost for `reset_seconds`."""

    def hear(self, frame: Frame, program_at: float | None) -> Overheard:
        """What of `frame` to listen to; `program_at`: seconds into the line that plays, None when it is silent."""
        echo_possible = self._follow_program(program_at)
        over_echo = frame.echo.over_echo if echo_possible and frame.echo is not None else None
        if over_echo is not None:
            return Overheard(over_echo.samples, True, True)
        return Overheard(frame.samples, echo_possible, False)

    def judge(self, frame: Frame, overheard: Overheard, speech: bool, now: float) -> tuple[bool, bool]:
        """While nobody has begun and our voice may be in the frame: whether its `speech` counts for the player, and
        whether an utterance may begin with it."""
        assert overheard.echo_possible and self._heard_at is not None
        if speech and self._passes(frame, self._heard_at):
            self._above_echo_at = now
            self._passed_seconds += FRAME_SECONDS
        elif self._above_echo_at is None or now - self._above_echo_at > self._reset_seconds:
            self._passed_seconds = 0.0
        recent = self._above_echo_at is not None and now - self._above_echo_at <= self.settings.syllable_seconds
        if frame.echo is None:  # judged by level alone: a loud enough frame begins at once
            return speech and recent, True
        needed = self.settings.filter_seconds if overheard.over_our_voice else self.settings.residual_seconds
        return speech and recent, self._passed_seconds >= needed - EPSILON

    def _passes(self, frame: Frame, at: float) -> bool:
        settings, judged = self.settings, frame.echo
        if judged is not None and judged.over_echo is not None:
            return judged.over_echo.share >= settings.player_share
        if judged is not None:
            # A canceller still learning the room leaves our first syllables: nothing is a player's until it has.
            return judged.settled and judged.residual >= settings.player_residual
        assert self._gate is not None
        return rms(frame.samples) > self._gate.threshold(at)

    def _follow_program(self, program_at: float | None) -> bool:
        """Whether our own voice may be in this frame: while the program plays, and for the echo tail after."""
        if self._gate is None:
            return False
        if program_at is not None:
            self._heard_at, self._since_program = program_at, 0.0
        elif self._heard_at is not None:
            self._since_program += FRAME_SECONDS
            if self._since_program > self.settings.echo_tail_seconds + EPSILON:
                self._heard_at = None
        return self._heard_at is not None

    def stop(self, line: Audio, at: float) -> float | None:
        """Where a line stopped `at` seconds in for the player's voice was interrupted; None when it had as good as
        ended (`played_out_seconds`)."""
        return at if at < line.seconds - self.settings.played_out_seconds else None
