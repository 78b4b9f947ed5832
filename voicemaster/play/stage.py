"""The demo's room as a session recording: the quizmaster's loudspeaker, the players' microphone and the game's clock,
with no device and no wall clock.

What the quizmaster plays is not written at once: it is playing, and its position moves on with every microphone
frame read while it plays, so the pipeline meets it as it meets a real line (its echo gate, barge-in). A player's
line is queued with `speak` and heard as microphone frames framed by the silence a real player leaves; what the
pipeline read of it (up to where listening ended) is mixed with the quizmaster's line, cut where the player stopped
it, into the session. The session's length is the game's time.

Given a front end (`speech.frontend`), the microphone's frames go through it with the stretch of the line that plays
as they are heard as its reference, as a live microphone's do.

Given a loudspeaker, each stretch of the session is also played through it as it is written, in real time, and the
paced watchers are told each step when the sound reaches it; without, the game runs as fast as it can, and they are
told each step once the session is written up to it (a line cut off before it began is never told).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from voicemaster.play.paced import Paced
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.devices.interfaces import AudioOut, Playback, Words
from voicemaster.speech.frame import FRAME_BYTES, Frame
from voicemaster.speech.frontend import FrontEnd
from voicemaster.speech.signal import RECOGNITION_RATE, resample

LEAD_SECONDS = 0.5
"""Silence before a player who waits for the line to end begins: a moment to answer."""
STEP_SECONDS = 0.05
"""How often, playing aloud, the watchers are brought up to where the sound is."""
TRAIL_SECONDS = 2.5
"""Silence after a player's line: more than any pause that ends an utterance, with its post-roll."""


@dataclass
class StagePlayback:
    """A line playing on the stage: as far on as the microphone frames read while it plays."""

    audio: Audio
    words: tuple[Words, ...] = ()
    elapsed: float = 0.0
    stopped_at: float | None = None
    _reference: bytes | None = None

    def played(self, size: int) -> bytes:
        """`size` bytes of the line from where it is now, at 16 kHz: what the loudspeaker plays meanwhile (silence
        once it has stopped or ended)."""
        if self._reference is None:
            self._reference = resample(self.audio, RECOGNITION_RATE).samples
        if self.stopped_at is not None:
            return bytes(size)
        start = 2 * round(self.elapsed * RECOGNITION_RATE)
        taken = self._reference[start : start + size]
        return taken + bytes(size - len(taken))

    def position(self) -> float:
        return self.elapsed if self.stopped_at is None else self.stopped_at

    def done(self) -> bool:
        return self.stopped_at is not None or self.elapsed >= self.audio.seconds

    def wait(self, timeout: float | None = None) -> bool:
        del timeout
        if self.stopped_at is None:
            self.elapsed = self.audio.seconds
        return True

    def stop(self) -> None:
        if self.stopped_at is None:
            self.stopped_at = min(self.elapsed, self.audio.seconds)

    def heard_seconds(self) -> float:
        """How much of the line is heard: up to where it was stopped, else all of it (nothing else cuts it)."""
        return self.audio.seconds if self.stopped_at is None else self.stopped_at


@dataclass
class Stage:
    """`AudioOut`, `AudioIn` and `Clock` of the demo, over one `FileSink`; aloud through `speaker` if there is one."""

    sink: FileSink
    speaker: AudioOut | None = None
    paced: Paced | None = None
    front_end: FrontEnd | None = None
    _playing: StagePlayback | None = None
    _heard: bytearray = field(default_factory=bytearray)
    """The microphone's frames read since the line began (16 kHz), from `_heard_from` seconds into it."""
    _heard_from: float = 0.0
    _queued: bytes = b""
    _cues: list[tuple[float, Audio]] = field(default_factory=list)
    """Short sounds played while the microphone was read: seconds into what it heard, and the sound."""

    # The clock: the session so far, with the line that plays and what the microphone heard over it.

    def now(self) -> float:
        return self.sink.seconds + self._pending_seconds()

    def wait(self, seconds: float) -> None:
        self.settle()
        self._write(Audio(bytes(2 * round(seconds * self.sink.rate)), self.sink.rate))

    # The loudspeaker

    def play(self, audio: Audio, words: tuple[Words, ...] = ()) -> Playback:
        self.settle()
        self._playing = StagePlayback(audio, words)
        return self._playing

    def cue(self, sound: Audio) -> None:
        """A short sound played now, while the microphone is read (the cue that a player was heard): it sounds from
        where the microphone stands, over the player's silence, and is in the session from there."""
        self._cues.append((len(self._heard) / 2 / RECOGNITION_RATE, sound))

    # The microphone

    def speak(self, voice: Audio | None, over: float | None, quiet_seconds: float) -> float:
        """Queue what the player says at the next listening: `voice` (None: nothing) beginning `over` seconds into
        the line that plays, or a moment after it ends when None; `quiet_seconds` of silence after the line when
        nobody speaks. What that listening does not hear is heard at the one after, unless this is called again.
        Returns the session time at which the voice begins."""
        start = self._playing.elapsed if self._playing is not None else 0.0
        line_left = self._playing.audio.seconds - start if self._playing is not None else 0.0
        if voice is None:
            self._queued = _silence(line_left + quiet_seconds)
            return self.now()
        gap = max(0.0, over - start) if over is not None else line_left + LEAD_SECONDS
        self._queued = _silence(gap) + resample(voice, RECOGNITION_RATE).samples + _silence(TRAIL_SECONDS)
        return self.now() + len(_silence(gap)) / 2 / RECOGNITION_RATE

    def frames(self, during: Playback | None = None, *, before: float = 0.0) -> Iterator[Frame]:
        del during, before  # the line that plays is the stage's own; the queued voice has its own lead
        stream, self._queued = self._queued, b""
        if not self._heard:
            self._heard_from = self._playing.elapsed if self._playing is not None else 0.0
        read = 0
        try:
            for offset in range(0, len(stream) - FRAME_BYTES + 1, FRAME_BYTES):
                frame = stream[offset : offset + FRAME_BYTES]
                read = offset + FRAME_BYTES
                self._heard += frame
                played = self._playing.played(FRAME_BYTES) if self._playing is not None else bytes(FRAME_BYTES)
                if self._playing is not None and self._playing.stopped_at is None:
                    heard_until = self._heard_from + len(self._heard) / 2 / RECOGNITION_RATE
                    self._playing.elapsed = min(self._playing.audio.seconds, max(self._playing.elapsed, heard_until))
                yield Frame(frame) if self.front_end is None else self.front_end.process(frame, played)
        finally:
            # What the player goes on saying after listening stopped is heard at the next listening, unless
            # something else is queued for it (`speak`): a take-back said over the lock line is such a rest.
            if not self._queued:
                self._queued = stream[read:]

    # The session

    def settle(self) -> None:
        """Writes the line that played and what the microphone heard over and after it into the session."""
        playing, heard, start, cues = self._playing, bytes(self._heard), self._heard_from, self._cues
        # The steps after a cut wait for the next stretch: by then the lines cut off are taken back (`unsaid`).
        cut = None if playing is None or playing.stopped_at is None else self.sink.seconds + playing.stopped_at
        self._playing, self._heard, self._heard_from, self._cues = None, bytearray(), 0.0, []
        rate = self.sink.rate
        line = np.zeros(0, dtype=np.int32)
        if playing is not None:
            spoken = resample(playing.audio, rate).samples
            line = np.frombuffer(spoken, dtype="<i2")[: round(playing.heard_seconds() * rate)].astype(np.int32)
        voice = np.frombuffer(resample(Audio(heard, RECOGNITION_RATE), rate).samples, dtype="<i2").astype(np.int32)
        offset = round(start * rate)
        sounds = [(offset + round(at * rate), _samples(sound, rate)) for at, sound in cues]
        mixed = np.zeros(max(len(line), offset + len(voice), *(at + len(s) for at, s in sounds)), dtype=np.int32)
        mixed[: len(line)] += line
        mixed[offset : offset + len(voice)] += voice
        for at, sound in sounds:
            mixed[at : at + len(sound)] += sound
        if len(mixed):
            self._write(Audio(np.clip(mixed, -32768, 32767).astype("<i2").tobytes(), rate), told_until=cut)

    def finish(self) -> None:
        """The last stretch written (and heard), and every step still held passed on."""
        self.settle()
        if self.paced is not None:
            self.paced.release(float("inf"))

    def _write(self, stretch: Audio, told_until: float | None = None) -> None:
        """Appends to the session; aloud, plays it through the loudspeaker and waits, telling the steps as it goes,
        up to `told_until` at most."""
        start = self.sink.seconds
        self.sink.play(stretch)
        end = start + stretch.seconds if told_until is None else min(start + stretch.seconds, told_until)
        if self.speaker is None:
            if self.paced is not None:
                self.paced.release(end)
            return
        playing = self.speaker.play(stretch)
        while not playing.wait(STEP_SECONDS):
            if self.paced is not None:
                self.paced.release(min(start + playing.position(), end))
        if self.paced is not None:
            self.paced.release(end)

    def _pending_seconds(self) -> float:
        line = self._playing.position() if self._playing is not None else 0.0
        return max(line, self._heard_from + len(self._heard) / 2 / RECOGNITION_RATE if self._heard else 0.0)


def _samples(audio: Audio, rate: int) -> npt.NDArray[np.int32]:
    return np.frombuffer(resample(audio, rate).samples, dtype="<i2").astype(np.int32)


def _silence(seconds: float) -> bytes:
    return bytes(2 * round(seconds * RECOGNITION_RATE))
