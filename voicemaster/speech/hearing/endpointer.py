"""The endpointer: 32 ms frames in, one utterance out, with what each frame brought as a value.

Each frame passes the barge-in stage (`speech.barge_in.stage.BargeIn`: what of it to listen to over our own voice,
and whether its speech counts for a player cutting in), the voice-activity model (`voice_activity.VoiceActivity`),
the room's floor (`frontend.room_level.RoomLevel`: at a party only a player louder than the room counts) and the
segmenter (`segmenter.Segmenter`). The endpointer keeps the audio (a little before speech begins, up to shortly after
it ends) and answers each frame with what happened: `BargedIn`, `Paused(audio)`, `Resumed`, `Ended(audio)`, or None.
What to do at a pause (read the utterance so far, perhaps end it there) is the pipeline's call (`pipeline.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from voicemaster.speech.audio import Audio
from voicemaster.speech.barge_in.stage import BargeIn
from voicemaster.speech.frame import FRAME_BYTES, FRAME_SAMPLES, FRAME_SECONDS, Frame
from voicemaster.speech.frontend.room_level import FLOOR_SECONDS, RoomLevel, Smoothed
from voicemaster.speech.hearing.endpoint_settings import EndpointSettings
from voicemaster.speech.hearing.segmenter import Endpoint, Segmenter
from voicemaster.speech.hearing.voice_activity import VoiceActivity
from voicemaster.speech.signal import RECOGNITION_RATE


@dataclass(frozen=True)
class Timeline:
    """How one listening went, in seconds of audio since it began: what `voicemaster bench latency` measures from."""

    state: Endpoint
    speech_end: float | None
    """Where the last speech ended, as the voice-activity model heard it; None if nobody spoke."""
    stopped: float
    """Where listening stopped: the utterance ended, was cut, or nobody spoke in time."""
    pauses: tuple[float, ...]
    """Where each short pause was reached (`Paused`): each a moment to read the utterance so far."""


# --- what a frame can bring: small values, after wyoming's events ---------------------------------------------------


@dataclass(frozen=True)
class BargedIn:
    """The player is speaking while the program still plays its own voice: stop it at once."""


@dataclass(frozen=True)
class Paused:
    """The player has paused for `early_silence_seconds`: what was heard so far may already be a complete answer."""

    audio: Audio
    """The utterance so far, pre- and post-roll included."""
    at: float
    """Seconds of audio since listening began."""


@dataclass(frozen=True)
class Resumed:
    """Speech again after a pause: what was heard at the pause was not the whole utterance."""


@dataclass(frozen=True)
class Ended:
    """Listening is over."""

    audio: Audio | None
    """The utterance; None if nobody spoke in time. If nothing was said after the last pause, exactly the audio of
    that `Paused`, so that a reading made there stands for the whole."""
    state: Endpoint
    """How it ended: `ENDED`, `ENDED_EARLY`, `CUT` or `SILENCE`."""


Event = BargedIn | Paused | Resumed | Ended


class Endpointer:
    """Turns a stream of 32 ms frames at 16 kHz into one utterance, or none.

    Push every frame with where the program is in its own speech (`program_at`, seconds into what it plays; None
    when it is silent). While the program is audible, its echo is gated out; if the player speaks up over it anyway,
    the frame brings `BargedIn` and the caller should stop the program. Once the player has begun, the echo is no
    longer weighed: by then the program has been stopped.
    Given `room` (the room's speech-band level, `RoomLevel`), it feeds the room what it hears while nobody has
    begun and our voice cannot be in the microphone, and a frame is speech only if it also rises `floor_margin_db`
    above the room's floor (as it stood at the onset; over our voice, what the barge-in filter left of it): other
    people's talk does not begin an utterance, nor stop our line, nor keep an utterance from ending. The frames of
    speech being counted before an onset are the room's only if they come to nothing (a cough, the others' talk):
    those that begin an utterance are the player's first syllables, and the room forgets them. An utterance cut at its
    longest was the room talking on, and the room learns it.
    """

    def __init__(
        self,
        vad: VoiceActivity,
        settings: EndpointSettings,
        timeout: float,
        program: Audio | None = None,
        room: RoomLevel | None = None,
    ):
        vad.reset()
        self.segmenter = Segmenter(settings, timeout)
        self.barge_in = BargeIn(program, settings.barge_in, settings.reset_seconds)
        self._vad = vad
        self._settings = settings
        self._pauses: list[float] = []
        self._paused_audio: Audio | None = None
        """What the last `Paused` carried, while nothing has been said since."""
        self._audio = bytearray()
        self._room = room
        self._floor: float | None = None
        self._floor_over_our_voice: float | None = None
        """What the barge-in filter's output must rise over (`RoomLevel.floor_under_our_voice`) to be the player's."""
        self._levels = (Smoothed(), Smoothed())
        """The speech-band level of the frames, and of what the barge-in filter left of them over our voice."""
        self._dropped = 0
        """Samples dropped from the front while waiting: only what the pre-roll may need is kept."""
        self._unsure: list[bytes] = []
        """What the barge-in filter left under our voice since speech began to be counted (`Segmenter.candidate`),
        held back from the room until that speech comes to nothing."""
        self._room_before: RoomLevel | None = None
        """The room as it stood before the speech being counted began, gone back to if it begins an utterance. The
        room alone learns that speech at once, as its floor follows the others' talk at a party (held back, the floor
        lagged their louder moments and more utterances began on their talk, `bench endpoint`); but a player who
        answers as our line's echo fades leaves the room no quiet of its own, and their first syllables, learnt turn
        after turn, raised the floor to their own voice (issue 48: a short "Nein" not heard at all)."""

    @property
    def state(self) -> Endpoint:
        return self.segmenter.state

    @property
    def now(self) -> float:
        """Seconds of audio pushed so far."""
        return self.segmenter.now

    @property
    def room_floor(self) -> float | None:
        """The room's speech-band floor (`RoomLevel.floor`) as it stood when the player began, or as it stands while
        nobody has; None without a room or before it has been heard long enough (at the mouth, before what the filter
        left under our voice has been either). The crowd is judged against it (`speech.hearing.crowd`)."""
        return self._floor

    def push(self, frame: Frame, program_at: float | None = None) -> Event | None:
        """One more frame: what it brought, or None when nothing changed that the caller must act on."""
        if len(frame.samples) != FRAME_BYTES:
            raise ValueError(f"a frame is {FRAME_SAMPLES} samples of 16-bit audio, got {len(frame.samples)} bytes")
        segmenter = self.segmenter
        if segmenter.state.finished:
            return self.ended()
        self._audio += frame.samples
        overheard = self.barge_in.hear(frame, program_at)
        above = self._above_floor(overheard.samples, overheard.echo_possible, over_our_voice=overheard.over_our_voice)
        speech = self._vad.probability(overheard.samples) >= self._settings.threshold and above
        may_begin = True
        if overheard.echo_possible and segmenter.state is Endpoint.WAITING:
            speech, may_begin = self.barge_in.judge(frame, overheard, speech, segmenter.now)
        before, end_before = segmenter.state, segmenter.end
        state = segmenter.process(FRAME_SECONDS, speech, program_speaking=overheard.echo_possible, may_begin=may_begin)
        self._learn_room()
        if state is Endpoint.CUT and before is not Endpoint.CUT:
            self._room_talked_on()
        if segmenter.end != end_before:  # more speech: what was heard at the last pause is not the whole utterance
            self._paused_audio = None
        if state is Endpoint.WAITING:
            self._forget_old_audio()
            return None
        if state.finished:
            return self.ended()
        if state is Endpoint.PAUSED and before is not Endpoint.PAUSED:
            return self._pause()
        if state is Endpoint.SPEAKING and before is Endpoint.PAUSED:
            return Resumed()
        return BargedIn() if program_at is not None else None

    def _above_floor(self, heard: bytes, echo_possible: bool, *, over_our_voice: bool) -> bool:
        """Whether what is heard (over our voice, what the barge-in filter left of the frame) rises above the room's
        floor. A room not known yet is risen above by anything. Over our voice, before the room has been heard
        alone (a player answering as each line ends leaves it no quiet of its own in a game's first listenings), the
        filter's output is held against what it left of our voice's frames while nobody had begun
        (`RoomLevel.floor_under_our_voice`), and until that too is known, risen above by nothing. While nobody has
        begun and our voice cannot be in it, the frame is the room's own."""
        if self._room is None:
            return True
        level = self._levels[over_our_voice].level(heard)  # every frame: smoothed over those before it
        if self.segmenter.state is Endpoint.WAITING:
            if self.segmenter.candidate is None:
                self._room_before = self._room.copy()
            if not echo_possible:
                self._room.hear(heard)  # the room's, forgotten if it begins an utterance (`_learn_room`)
            elif over_our_voice:
                self._unsure.append(heard)  # the room's under our voice, unless it begins an utterance
            self._floor = self._room.floor(or_what_our_voice_leaves=self._settings.over_what_our_voice_leaves)
            self._floor_over_our_voice = self._room.floor_under_our_voice(
                what_our_voice_leaves=self._settings.over_what_our_voice_leaves
            )
        floor = self._floor_over_our_voice if over_our_voice else self._floor
        if floor is None:
            return not over_our_voice
        margin = self._settings.barge_in.floor_margin_db if over_our_voice else self._settings.floor_margin_db
        return level > floor * 10 ** (margin / 10)

    def _room_talked_on(self) -> None:
        """An utterance cut at `max_seconds` was the room talking on (the others at a party, the radio), not a player
        answering: the room learns its last `FLOOR_SECONDS`. A player who answers each line as it ends leaves the
        room no quiet of its own to learn from, and at a party each listening was then cut, turn after turn, as the
        others' talk never fell under a floor nobody had heard."""
        if self._room is None:
            return
        audio = bytes(self._audio)  # ends with the frame just pushed
        frames = min(len(audio) // FRAME_BYTES, round(FLOOR_SECONDS / FRAME_SECONDS))
        for at in range(len(audio) - frames * FRAME_BYTES, len(audio), FRAME_BYTES):
            self._room.hear(audio[at : at + FRAME_BYTES])

    def _learn_room(self) -> None:
        """The speech counted before an onset is the room's once it came to nothing; the player's once an utterance
        began, and then the room goes back to where it stood before it."""
        if self._room is None:
            return
        if self.segmenter.start is not None:
            if self._room_before is not None:
                self._room.go_back(self._room_before)
                self._room_before = None
            self._unsure.clear()
        elif self.segmenter.candidate is None:
            for heard in self._unsure:
                self._room.hear_under_our_voice(heard)
            self._unsure.clear()

    def _pause(self) -> Paused:
        utterance = self.utterance()
        assert utterance is not None  # a pause comes only after the player has begun
        self._pauses.append(self.segmenter.now)
        self._paused_audio = utterance
        return Paused(utterance, self.segmenter.now)

    def end_early(self) -> Ended:
        """The utterance is complete at this pause (hearing read it and understood it): it ends here, as the audio
        of that `Paused`, without waiting out the whole pause."""
        self.segmenter.end_early()
        return self.ended()

    def ended(self) -> Ended:
        """The utterance as it stands, with how listening stands (`SPEAKING` if it stopped before an end)."""
        return Ended(self.utterance(), self.segmenter.state)

    def _forget_old_audio(self) -> None:
        segmenter = self.segmenter
        keep_from = (segmenter.candidate if segmenter.candidate is not None else segmenter.now) - (
            self._settings.pre_roll_seconds
        )
        drop = 2 * (round(keep_from * RECOGNITION_RATE) - self._dropped)
        if drop > 0:
            del self._audio[:drop]
            self._dropped += drop // 2

    def utterance_began(self) -> float | None:
        """Seconds of audio since listening began where `utterance` begins (its pre-roll included); None if the
        player has not begun."""
        start = self.segmenter.start
        if start is None:
            return None
        return max(start - self._settings.pre_roll_seconds, self._dropped / RECOGNITION_RATE)

    def utterance(self) -> Audio | None:
        """The utterance heard so far, pre- and post-roll included; None if the player has not begun."""
        segmenter, settings = self.segmenter, self._settings
        if segmenter.start is None or segmenter.end is None:
            return None
        if segmenter.state.finished and self._paused_audio is not None:
            return self._paused_audio
        first = round((segmenter.start - settings.pre_roll_seconds) * RECOGNITION_RATE)
        last = round(min(segmenter.now, segmenter.end + settings.post_roll_seconds) * RECOGNITION_RATE)
        first, last = max(first - self._dropped, 0), last - self._dropped
        return Audio(bytes(self._audio[2 * first : 2 * last]), RECOGNITION_RATE)

    def timeline(self) -> Timeline:
        segmenter = self.segmenter
        speech_end = segmenter.end if segmenter.start is not None else None
        return Timeline(segmenter.state, speech_end, segmenter.now, tuple(self._pauses))
