"""Where an utterance begins and ends, from speech/non-speech decisions over time: pure and clock-free.

`Segmenter` is told how many seconds passed and whether they held speech (after Home Assistant's
`VoiceCommandSegmenter.process(seconds, is_speech)`), and says whether the utterance has begun, paused or ended
(`Endpoint`). The endpointer (`endpointer.py`) feeds it frame by frame.
"""

from __future__ import annotations

from enum import StrEnum

from voicemaster.speech.frame import EPSILON
from voicemaster.speech.hearing.endpoint_settings import EndpointSettings


class Endpoint(StrEnum):
    """Where listening stands after a frame."""

    WAITING = "waiting"
    """No speech yet (or only a click or cough, too short to count)."""
    SPEAKING = "speaking"
    """The player has begun to speak."""
    PAUSED = "paused"
    """The player has begun, then paused for `early_silence_seconds`: what was heard may already be a complete answer.
    Speech resuming makes it `SPEAKING` again; the pause lasting makes it `ENDED`."""
    ENDED = "ended"
    """Speech, then a pause long enough: the utterance is complete."""
    ENDED_EARLY = "ended early"
    """Speech, then a short pause, and what was heard so far already was a complete answer (hearing decided): the
    utterance ended without waiting out the whole pause."""
    CUT = "cut"
    """The utterance reached the longest we take and was cut there; its audio is kept, and the player is asked
    again (`pipeline.ListeningPipeline`)."""
    SILENCE = "silence"
    """Nobody spoke before the timeout."""

    @property
    def finished(self) -> bool:
        return self in (Endpoint.ENDED, Endpoint.ENDED_EARLY, Endpoint.CUT, Endpoint.SILENCE)


class Segmenter:
    """Decides from speech/non-speech decisions over time where one utterance begins and ends.

    Times are seconds since the first `process` call. `start` is where the speech that began the utterance started;
    `end` is where the last speech ended (for a cut utterance: where it was cut).
    """

    def __init__(self, settings: EndpointSettings, timeout: float) -> None:
        self.settings = settings
        self.timeout = timeout
        self.state = Endpoint.WAITING
        self.now = 0.0
        self.start: float | None = None
        self.end: float | None = None
        self.candidate: float | None = None
        """Before the onset: where the speech counted so far began."""
        self._speech = 0.0
        self._quiet = 0.0
        self._waited = 0.0

    def process(
        self, seconds: float, is_speech: bool, *, program_speaking: bool = False, may_begin: bool = True
    ) -> Endpoint:
        """Account for `seconds` more audio. While the program speaks, the no-speech timeout does not run: the
        player is given `timeout` seconds after the question, not during it. Without `may_begin`, speech is counted
        but the utterance does not begin yet."""
        if self.state.finished:
            return self.state
        begin, self.now = self.now, self.now + seconds
        if self.state is Endpoint.WAITING:
            self._wait(begin, seconds, is_speech, program_speaking, may_begin)
        else:
            self._speak(seconds, is_speech)
        return self.state

    def _wait(self, begin: float, seconds: float, is_speech: bool, program_speaking: bool, may_begin: bool) -> None:
        settings = self.settings
        if not program_speaking:
            self._waited += seconds
        if is_speech:
            self.candidate = begin if self.candidate is None else self.candidate
            self._speech += seconds
            self._quiet = 0.0
            self.end = self.now
            if self._speech >= settings.speech_seconds - EPSILON and may_begin:
                self.state, self.start = Endpoint.SPEAKING, self.candidate
                self._check_length()
            return
        self._quiet += seconds
        if self._quiet >= settings.reset_seconds - EPSILON:
            self.candidate, self._speech = None, 0.0
        # Speech being counted is not cut off by the timeout; a click that came to nothing is forgotten above.
        if self.candidate is None and self._waited >= self.timeout - EPSILON:
            self.state = Endpoint.SILENCE

    def _speak(self, seconds: float, is_speech: bool) -> None:
        if is_speech:
            self._quiet = 0.0
            self.end = self.now
            self.state = Endpoint.SPEAKING
        else:
            self._quiet += seconds
            if self._quiet >= self.settings.silence_seconds - EPSILON:
                self.state = Endpoint.ENDED
                return
            if self._quiet >= self.settings.early_silence_seconds - EPSILON:
                self.state = Endpoint.PAUSED
        self._check_length()

    def end_early(self) -> Endpoint:
        """The caller found the utterance complete at this pause: it ends here instead of after the whole pause."""
        if self.state is not Endpoint.PAUSED:
            raise ValueError(f"an utterance can end early only at a pause, not while {self.state}")
        self.state = Endpoint.ENDED_EARLY
        return self.state

    def _check_length(self) -> None:
        assert self.start is not None
        if self.now - self.start >= self.settings.max_seconds - EPSILON:
            self.state, self.end = Endpoint.CUT, self.now
