"""Where an utterance begins and ends: voice activity, the echo of our own voice, and end-of-speech segmentation.

Three layers, each testable alone:
- `Segmenter` is pure and clock-free: it is told how many seconds passed and whether they held speech (after Home
  Assistant's `VoiceCommandSegmenter.process(seconds, is_speech)`), and says whether the utterance has begun or ended.
- `EchoGate` says how loud the microphone may hear our own voice, from the sound we are playing.
- `Endpointer` feeds 32 ms microphone frames through a `VoiceActivity` model, the echo gate and the segmenter,
  keeps the audio (a little before speech begins, up to shortly after it ends), and answers each frame with what
  happened, as a value: `BargedIn`, `Paused(audio)`, `Resumed`, `Ended(audio)`, or None. What to do at a pause
  (read the utterance so far, perhaps end it there) is the pipeline's call (`speech.hearing.pipeline`).
Whether a frame holds speech is `voice_activity.VoiceActivity`'s call (the Silero model). Frames that went through
the acoustic front end (`speech.frontend`) arrive cleaned, each with what the echo canceller left of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import FRAME_BYTES, FRAME_SAMPLES, FRAME_SECONDS
from voicemaster.speech.frontend import CleanedFrame
from voicemaster.speech.frontend.room_level import RoomLevel, Smoothed
from voicemaster.speech.hearing.voice_activity import VoiceActivity
from voicemaster.speech.signal import RECOGNITION_RATE

SYLLABLE_SECONDS = 0.25
"""Over our own voice, only a player's loudest sounds (vowels) rise above the echo. Speech right after such a sound is
the rest of the player's syllable, so it counts too: otherwise "Stopp!" would be three loud frames, too few to count.
"""

EPSILON = 1e-9
"""Durations are sums of float frame lengths: 0.7 s must end after 0.1 s seven times, not an eighth."""


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
    again (`pipeline.listen_and_recognize`)."""
    SILENCE = "silence"
    """Nobody spoke before the timeout."""

    @property
    def finished(self) -> bool:
        return self in (Endpoint.ENDED, Endpoint.ENDED_EARLY, Endpoint.CUT, Endpoint.SILENCE)


@dataclass(frozen=True)
class EndpointSettings:
    speech_seconds: float = 0.15
    """Speech needed before an utterance counts as begun: clicks and bumps are shorter, a short "B" or "ja" is not."""
    reset_seconds: float = 0.3
    """A pause this long before the utterance has begun forgets the speech counted so far."""
    silence_seconds: float = 0.7
    """The pause that ends an utterance: longer than a breath between words, short enough to keep the game moving."""
    early_silence_seconds: float = 0.09
    """The pause after which what was heard so far is read, and the utterance ended if it already is a complete,
    confident answer and the player stays silent while it is read: people leave about 0.2 s between turns, and
    waiting out `silence_seconds` after a clear "Antwort B" feels slow. Three frames: reading takes a few frames more,
    so nothing ends before some 0.25 s of pause (`voicemaster bench latency`). An answer that is not complete yet is
    heard out as before. Equal to `silence_seconds`, nothing ends early."""
    max_seconds: float = 8.0
    """The longest utterance: an answer or a command fits easily; a conversation in the car gets cut."""
    pre_roll_seconds: float = 0.3
    """Audio kept from before the onset was detected: the detector needs some speech to be sure, recognizers need
    the soft start of the first word."""
    post_roll_seconds: float = 0.2
    """Audio kept after the last speech: the fading end of the last word."""
    threshold: float = 0.5
    """Voice-activity probability from which a frame counts as speech."""
    echo_coupling: float = 1.0
    """How loud our own voice reaches the microphone, relative to the level we play it at. 1.0 is a pessimistic
    guess for a loudspeaker near the microphone at full volume (and exact for a loopback)."""
    barge_in_margin: float = 1.5
    """How much louder than that echo the player must be to interrupt us (1.5: 3.5 dB; the echo estimate is already
    the loudest moment around, so this is headroom over a pessimistic guess)."""
    echo_tail_seconds: float = 0.5
    """How long the echo of what we played may still reach the microphone: output and input latency plus room
    reverberation. The gate looks this far back in what we played, and stays on this long after we stop."""
    floor_margin_db: float = 4.0
    """Given the room's floor (`speech.frontend.room_level`), how far above it in the speech band a frame must rise to
    be the player's: at a party, other people's talk is speech to the voice-activity model, and only the player's
    level ends an utterance. 4 dB: at 5 dB of babble the most utterances ended within a second of the player, while
    the car's and the quiet room's stay as they were (`voicemaster bench endpoint`, docs/benchmarks.md)."""
    barge_in_floor_margin_db: float = 8.0
    """`floor_margin_db` over our voice: how far what the barge-in filter leaves of a frame must rise over the room's
    floor to stop our line. Stopping a question for the others' talk at a party is worse than a player saying it
    again once the line ends (`voicemaster bench endpoint`, docs/benchmarks.md)."""
    barge_in_seconds: float = 0.35
    """While our voice may be in the microphone, how much speech the echo gate must have taken for the player's
    before an utterance begins (a barge-in): what the echo canceller lets through of our voice comes in bursts of a
    few frames, a player speaking over a question goes on. Set by `voicemaster bench room --barge-in-seconds`
    (false barge-ins against barge-ins heard) and `bench frontend` (docs/benchmarks.md). Without an echo canceller
    the level gate decides alone, as it always has."""
    player_residual: float = 0.1
    """With an echo canceller in the front end: the share of a frame's loudness (RMS) the canceller must have left
    for the frame to be the player's while our voice may be in it. Our own voice, cancelled, keeps far less; a player
    speaking over it keeps more (`voicemaster bench frontend`, docs/benchmarks.md)."""
    player_share: float = 0.3
    """Where the front end's barge-in filter judges a frame (`CleanedFrame.over_echo`), which then decides instead
    of the residual: the share of the frame's loudness our echo as predicted must leave unexplained for the frame to
    be the player's (`voicemaster bench frontend`)."""
    barge_in_filter_seconds: float = 0.15
    """`barge_in_seconds` where the barge-in filter judges: it lets fewer bursts of our voice through than the
    canceller's residual, so a shorter run of the player's speech begins an utterance (`bench frontend`)."""

    def __post_init__(self) -> None:
        durations = (
            self.speech_seconds,
            self.reset_seconds,
            self.silence_seconds,
            self.early_silence_seconds,
            self.max_seconds,
        )
        rolls = (
            self.pre_roll_seconds,
            self.post_roll_seconds,
            self.echo_tail_seconds,
            self.barge_in_seconds,
            self.barge_in_filter_seconds,
        )
        if min(durations) <= 0 or min(rolls) < 0:
            raise ValueError("endpoint durations must be positive (rolls, the echo tail and barge-in runs may be 0)")
        if self.early_silence_seconds > self.silence_seconds:
            raise ValueError("the early pause must not be longer than the pause that ends an utterance")
        if not 0 < self.threshold < 1:
            raise ValueError("the voice-activity threshold must lie between 0 and 1")
        if self.echo_coupling < 0 or self.barge_in_margin < 1:
            raise ValueError("echo coupling must be 0 or more, the barge-in margin 1 or more")
        if min(self.floor_margin_db, self.barge_in_floor_margin_db) < 0:
            raise ValueError("the margin over the room's floor must be 0 dB or more")
        if not 0 <= self.player_residual <= 1:
            raise ValueError("the player's residual must lie between 0 and 1")
        if not 0 <= self.player_share <= 1:
            raise ValueError("the player's share must lie between 0 and 1")


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


class EchoGate:
    """Whether a frame heard while our own voice may be in the microphone is the player's.

    A frame that went through an echo canceller (`CleanedFrame` with a residual) is the player's when the canceller
    left at least `player_residual` of its loudness: it took out what was ours, and what it could not take out was not;
    and never before the canceller has settled (the first seconds of the first line it hears).
    Any other frame is judged by levels: the played audio's loudness (RMS per 32 ms) is known in advance; the echo at
    the microphone is taken to be at most `echo_coupling` times the loudest of it over the last `echo_tail_seconds`
    (latency and reverberation smear the echo over that time), and the frame counts as the player only if it is
    `barge_in_margin` times louder still. Far-field speech over a loud question therefore does not interrupt; a
    player speaking up does. Both factors are settings, to tune for a car or a room.
    """

    def __init__(self, program: Audio, settings: EndpointSettings) -> None:
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
        return loudest * settings.echo_coupling * settings.barge_in_margin

    def passes(self, frame: bytes, at: float) -> bool:
        """Whether `frame`, heard `at` seconds into what we play (or within the echo tail after it), is the player's."""
        if isinstance(frame, CleanedFrame) and frame.over_echo is not None:
            return frame.over_echo.share >= self._settings.player_share
        if isinstance(frame, CleanedFrame) and frame.residual is not None:
            # A canceller still learning the room leaves our first syllables: nothing is a player's until it has.
            return frame.settled and frame.residual >= self._settings.player_residual
        return rms(frame) > self.threshold(at)


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


def rms(frame: bytes) -> float:
    samples = np.frombuffer(frame, dtype="<i2").astype(np.float64)
    return float(np.sqrt(np.mean(samples**2))) if len(samples) else 0.0


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
    people's talk does not begin an utterance, nor stop our line, nor keep an utterance from ending.
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
        self._vad = vad
        self._settings = settings
        self._pauses: list[float] = []
        self._paused_audio: Audio | None = None
        """What the last `Paused` carried, while nothing has been said since."""
        self._gate = EchoGate(program, settings) if program is not None else None
        self._heard_at: float | None = None
        self._since_program = 0.0
        self._above_echo_at: float | None = None
        self._passed_seconds = 0.0
        """Seconds of frames the echo gate took for the player's since it last lost them for `reset_seconds`."""
        self._audio = bytearray()
        self._room = room
        self._floor: float | None = None
        self._levels = (Smoothed(), Smoothed())
        """The speech-band level of the frames, and of what the barge-in filter left of them over our voice."""
        self._dropped = 0
        """Samples dropped from the front while waiting: only what the pre-roll may need is kept."""

    @property
    def state(self) -> Endpoint:
        return self.segmenter.state

    @property
    def now(self) -> float:
        """Seconds of audio pushed so far."""
        return self.segmenter.now

    def push(self, frame: bytes, program_at: float | None = None) -> Event | None:
        """One more frame: what it brought, or None when nothing changed that the caller must act on."""
        if len(frame) != FRAME_BYTES:
            raise ValueError(f"a frame is {FRAME_SAMPLES} samples of 16-bit audio, got {len(frame)} bytes")
        segmenter = self.segmenter
        if segmenter.state.finished:
            return self.ended()
        self._audio += frame
        echo_possible = self._follow_program(program_at)
        judged = frame.over_echo if echo_possible and isinstance(frame, CleanedFrame) else None
        # Over our voice, the player is listened for in what our echo does not explain, not in the canceller's output
        # (which takes the player out with our voice).
        heard = judged.samples if judged is not None else frame
        above = self._above_floor(heard, echo_possible, over_our_voice=judged is not None)
        speech = self._vad.probability(heard) >= self._settings.threshold and above
        may_begin = True
        if echo_possible and segmenter.state is Endpoint.WAITING:
            assert self._gate is not None and self._heard_at is not None
            if speech and self._gate.passes(frame, self._heard_at):
                self._above_echo_at = segmenter.now
                self._passed_seconds += FRAME_SECONDS
            elif self._above_echo_at is None or segmenter.now - self._above_echo_at > self._settings.reset_seconds:
                self._passed_seconds = 0.0
            recent = self._above_echo_at is not None and segmenter.now - self._above_echo_at <= SYLLABLE_SECONDS
            speech = speech and recent
            cancelled = isinstance(frame, CleanedFrame) and frame.residual is not None
            needed = self._settings.barge_in_filter_seconds if judged is not None else self._settings.barge_in_seconds
            may_begin = not cancelled or self._passed_seconds >= needed - EPSILON
        before, end_before = segmenter.state, segmenter.end
        state = segmenter.process(FRAME_SECONDS, speech, program_speaking=echo_possible, may_begin=may_begin)
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
        floor. A room not known yet is risen above by anything, but over our voice by nothing: a player must be
        heard in the first listening, and may say it again once the line ends. While nobody has begun and our voice
        cannot be in it, the frame is the room's own."""
        if self._room is None:
            return True
        level = self._levels[over_our_voice].level(heard)  # every frame: smoothed over those before it
        if self.segmenter.state is Endpoint.WAITING:
            if not echo_possible:
                self._room.hear(heard)
            self._floor = self._room.floor()
        if self._floor is None:
            return not over_our_voice
        margin = self._settings.barge_in_floor_margin_db if over_our_voice else self._settings.floor_margin_db
        return level > self._floor * 10 ** (margin / 10)

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

    def _follow_program(self, program_at: float | None) -> bool:
        """Whether our own voice may be in this frame: while the program plays, and for the echo tail after."""
        if self._gate is None:
            return False
        if program_at is not None:
            self._heard_at, self._since_program = program_at, 0.0
        elif self._heard_at is not None:
            self._since_program += FRAME_SECONDS
            if self._since_program > self._settings.echo_tail_seconds + EPSILON:
                self._heard_at = None
        return self._heard_at is not None

    def _forget_old_audio(self) -> None:
        segmenter = self.segmenter
        keep_from = (segmenter.candidate if segmenter.candidate is not None else segmenter.now) - (
            self._settings.pre_roll_seconds
        )
        drop = 2 * (round(keep_from * RECOGNITION_RATE) - self._dropped)
        if drop > 0:
            del self._audio[:drop]
            self._dropped += drop // 2

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
