"""Where an utterance begins and ends: voice activity, the echo of our own voice, and end-of-speech segmentation.

Three layers, each testable alone:
- `Segmenter` is pure and clock-free: it is told how many seconds passed and whether they held speech (after Home
  Assistant's `VoiceCommandSegmenter.process(seconds, is_speech)`), and says whether the utterance has begun or ended.
- `EchoGate` says how loud the microphone may hear our own voice, from the sound we are playing.
- `UtteranceDetector` feeds 32 ms microphone frames through a `VoiceActivity` model, the echo gate and the segmenter,
  and keeps the audio: a little before speech begins, up to shortly after it ends. At a short pause it may ask the
  caller (`decide`) whether what was heard so far is already a complete answer, and then end the utterance there,
  once the pause has lasted as long as the caller took to decide.
`SileroVad` wraps the Silero voice-activity model that faster-whisper ships (onnxruntime), behind `VoiceActivity`.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from voicemaster.hints import python_extra
from voicemaster.speech.audio import Audio
from voicemaster.speech.signal import RECOGNITION_RATE

FRAME_SAMPLES = 512
"""One frame: 32 ms at 16 kHz, the window the Silero model is trained on."""
FRAME_BYTES = 2 * FRAME_SAMPLES
FRAME_SECONDS = FRAME_SAMPLES / RECOGNITION_RATE

SYLLABLE_SECONDS = 0.25
"""Over our own voice, only a player's loudest sounds (vowels) rise above the echo. Speech right after such a sound is
the rest of the player's syllable, so it counts too: otherwise "Stopp!" would be three loud frames, too few to count.
"""

_EPSILON = 1e-9
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
    """Speech, then a short pause, and what was heard so far already was a complete answer (the caller decided): the
    utterance ended without waiting out the whole pause."""
    CUT = "cut"
    """The utterance reached the longest we take and was cut there; it is kept."""
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
    waiting out `silence_seconds` after a clear "Antwort B" feels slow. Three frames: reading takes about 0.15 s
    more, so nothing ends before some 0.25 s of pause (`voicemaster bench latency`: understood answers replied to
    0.28 s after the last sound at p50, against 0.34 s at four frames and 0.5 s at eight). An answer that is not
    complete yet is heard out as before. Equal to `silence_seconds`, nothing ends early."""
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

    def __post_init__(self) -> None:
        durations = (
            self.speech_seconds,
            self.reset_seconds,
            self.silence_seconds,
            self.early_silence_seconds,
            self.max_seconds,
        )
        rolls = (self.pre_roll_seconds, self.post_roll_seconds, self.echo_tail_seconds)
        if min(durations) <= 0 or min(rolls) < 0:
            raise ValueError("endpoint durations must be positive (rolls and the echo tail may be 0)")
        if self.early_silence_seconds > self.silence_seconds:
            raise ValueError("the early pause must not be longer than the pause that ends an utterance")
        if not 0 < self.threshold < 1:
            raise ValueError("the voice-activity threshold must lie between 0 and 1")
        if self.echo_coupling < 0 or self.barge_in_margin < 1:
            raise ValueError("echo coupling must be 0 or more, the barge-in margin 1 or more")


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

    def process(self, seconds: float, is_speech: bool, *, program_speaking: bool = False) -> Endpoint:
        """Account for `seconds` more audio. While the program speaks, the no-speech timeout does not run: the
        player is given `timeout` seconds after the question, not during it."""
        if self.state.finished:
            return self.state
        begin, self.now = self.now, self.now + seconds
        if self.state is Endpoint.WAITING:
            self._wait(begin, seconds, is_speech, program_speaking)
        else:
            self._speak(seconds, is_speech)
        return self.state

    def _wait(self, begin: float, seconds: float, is_speech: bool, program_speaking: bool) -> None:
        settings = self.settings
        if not program_speaking:
            self._waited += seconds
        if is_speech:
            self.candidate = begin if self.candidate is None else self.candidate
            self._speech += seconds
            self._quiet = 0.0
            self.end = self.now
            if self._speech >= settings.speech_seconds - _EPSILON:
                self.state, self.start = Endpoint.SPEAKING, self.candidate
                self._check_length()
            return
        self._quiet += seconds
        if self._quiet >= settings.reset_seconds - _EPSILON:
            self.candidate, self._speech = None, 0.0
        # Speech being counted is not cut off by the timeout; a click that came to nothing is forgotten above.
        if self.candidate is None and self._waited >= self.timeout - _EPSILON:
            self.state = Endpoint.SILENCE

    def _speak(self, seconds: float, is_speech: bool) -> None:
        if is_speech:
            self._quiet = 0.0
            self.end = self.now
            self.state = Endpoint.SPEAKING
        else:
            self._quiet += seconds
            if self._quiet >= self.settings.silence_seconds - _EPSILON:
                self.state = Endpoint.ENDED
                return
            if self._quiet >= self.settings.early_silence_seconds - _EPSILON:
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
        if self.now - self.start >= self.settings.max_seconds - _EPSILON:
            self.state, self.end = Endpoint.CUT, self.now


class EchoGate:
    """How loud the microphone may hear our own voice while we speak, estimated from what we play.

    Kept deliberately simple: no adaptive filter, just levels. The played audio's loudness (RMS per 32 ms) is known
    in advance; the echo at the microphone is taken to be at most `echo_coupling` times the loudest of it over the
    last `echo_tail_seconds` (latency and reverberation smear the echo over that time). A microphone frame counts as
    the player only if it is `barge_in_margin` times louder still. Far-field speech over a loud question therefore
    does not interrupt; a player speaking up does. Both factors are settings, to tune for a car or a room.
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


Decide = Callable[[Audio], bool]
"""Asked at a short pause with the utterance so far: True if it already is complete. It runs in the listening loop:
the microphone keeps recording meanwhile, and the frames that arrived while it ran are checked afterwards. If they
hold no speech the utterance ends there; if the player went on, the answer was not complete after all."""


@dataclass(frozen=True)
class Timeline:
    """How one listening went, in seconds since it began: what `voicemaster bench latency` measures from."""

    state: Endpoint
    speech_end: float | None
    """Where the last speech ended, as the voice-activity model heard it; None if nobody spoke."""
    stopped: float
    """Where listening stopped: the utterance ended, was cut, or nobody spoke in time."""
    asked: tuple[float, ...]
    """Where `decide` was asked whether the utterance so far was complete, one for each pause."""


class VoiceActivity(Protocol):
    def probability(self, frame: bytes) -> float:
        """How likely one frame (512 samples of 16-bit mono at 16 kHz) is speech, 0-1."""
        ...

    def reset(self) -> None:
        """Forget the frames seen so far: the next frame starts a new recording."""
        ...


def rms(frame: bytes) -> float:
    samples = np.frombuffer(frame, dtype="<i2").astype(np.float64)
    return float(np.sqrt(np.mean(samples**2))) if len(samples) else 0.0


class UtteranceDetector:
    """Turns a stream of 32 ms frames at 16 kHz into one utterance, or none.

    Push every frame with where the program is in its own speech (`program_at`, seconds into what it plays; None
    when it is silent). While the program is audible, its echo is gated out; if the player speaks up over it anyway,
    `barged_in` becomes true and the caller should stop the program at once. Once the player has begun, only the
    voice-activity model decides: by then the program has been stopped.

    Given `decide`, the detector asks it once at each short pause whether the utterance so far is complete. If so,
    and the player stays silent for as long as `decide` took (the frames that queued up meanwhile), the utterance
    ends there (`ENDED_EARLY`); otherwise listening goes on as if it had not asked. Either way, an utterance that
    ends with nothing said after the last question is the audio `decide` was given, so that its reading stands.
    """

    def __init__(
        self,
        vad: VoiceActivity,
        settings: EndpointSettings,
        timeout: float,
        program: Audio | None = None,
        decide: Decide | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        vad.reset()
        self.segmenter = Segmenter(settings, timeout)
        self.barged_in = False
        self._vad = vad
        self._decide = decide
        self._asked: list[float] = []
        self._clock = clock
        self._asked_audio: Audio | None = None
        """What `decide` was last given, while nothing has been said since."""
        self._confirming: float | None = None
        """Seconds of silence still needed before an utterance `decide` found complete ends."""
        self._settings = settings
        self._gate = EchoGate(program, settings) if program is not None else None
        self._heard_at: float | None = None
        self._since_program = 0.0
        self._above_echo_at: float | None = None
        self._audio = bytearray()
        self._dropped = 0
        """Samples dropped from the front while waiting: only what the pre-roll may need is kept."""

    @property
    def state(self) -> Endpoint:
        return self.segmenter.state

    def push(self, frame: bytes, program_at: float | None = None) -> Endpoint:
        if len(frame) != FRAME_BYTES:
            raise ValueError(f"a frame is {FRAME_SAMPLES} samples of 16-bit audio, got {len(frame)} bytes")
        segmenter = self.segmenter
        if segmenter.state.finished:
            return segmenter.state
        self._audio += frame
        speech = self._vad.probability(frame) >= self._settings.threshold
        echo_possible = self._follow_program(program_at)
        if speech and echo_possible and segmenter.state is Endpoint.WAITING:
            assert self._gate is not None and self._heard_at is not None
            if rms(frame) > self._gate.threshold(self._heard_at):
                self._above_echo_at = segmenter.now
            speech = self._above_echo_at is not None and segmenter.now - self._above_echo_at <= SYLLABLE_SECONDS
        paused_before, end_before = segmenter.state is Endpoint.PAUSED, segmenter.end
        state = segmenter.process(FRAME_SECONDS, speech, program_speaking=echo_possible)
        if segmenter.end != end_before:  # more speech: what was read at the last pause is not the whole utterance
            self._asked_audio = self._confirming = None
        if state is Endpoint.PAUSED and not paused_before and self._decide is not None:
            state = self._ask(self._decide)
        elif state is Endpoint.PAUSED and self._confirming is not None:
            self._confirming -= FRAME_SECONDS
            if self._confirming <= _EPSILON:
                state = segmenter.end_early()
        if state is not Endpoint.WAITING and program_at is not None:
            self.barged_in = True
        if state is Endpoint.WAITING:
            self._forget_old_audio()
        return state

    def _ask(self, decide: Decide) -> Endpoint:
        utterance = self.utterance()
        assert utterance is not None  # a pause comes only after the player has begun
        self._asked.append(self.segmenter.now)
        self._asked_audio = utterance
        started = self._clock()
        if decide(utterance):
            self._confirming = self._clock() - started
        return self.segmenter.state

    def _follow_program(self, program_at: float | None) -> bool:
        """Whether our own voice may be in this frame: while the program plays, and for the echo tail after."""
        if self._gate is None:
            return False
        if program_at is not None:
            self._heard_at, self._since_program = program_at, 0.0
        elif self._heard_at is not None:
            self._since_program += FRAME_SECONDS
            if self._since_program > self._settings.echo_tail_seconds + _EPSILON:
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
        if segmenter.state.finished and self._asked_audio is not None:
            return self._asked_audio
        first = round((segmenter.start - settings.pre_roll_seconds) * RECOGNITION_RATE)
        last = round(min(segmenter.now, segmenter.end + settings.post_roll_seconds) * RECOGNITION_RATE)
        first, last = max(first - self._dropped, 0), last - self._dropped
        return Audio(bytes(self._audio[2 * first : 2 * last]), RECOGNITION_RATE)

    def timeline(self) -> Timeline:
        segmenter = self.segmenter
        speech_end = segmenter.end if segmenter.start is not None else None
        return Timeline(segmenter.state, speech_end, segmenter.now, tuple(self._asked))


class VoiceActivityUnavailable(RuntimeError):
    """The voice-activity model or its runtime is missing; the message says what to install."""


class SileroVad:
    """The Silero voice-activity model (v6, ONNX) that faster-whisper ships, run frame by frame on onnxruntime.

    Streaming one frame at a time with the recurrent state and the previous frame's last 64 samples as context gives
    exactly the probabilities of faster-whisper's batch call; one frame takes well under a millisecond.
    """

    CONTEXT = 64

    def __init__(self, model: Path | None = None) -> None:
        try:
            import onnxruntime
        except ImportError:
            raise VoiceActivityUnavailable(f"Detecting speech needs onnxruntime: {python_extra('whisper')}.") from None
        path = model or bundled_silero_model()
        options = onnxruntime.SessionOptions()
        # One thread: a frame is tiny, and the recognizer wants the cores.
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = 1
        options.log_severity_level = 3
        try:
            self._session: Any = onnxruntime.InferenceSession(
                str(path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # onnxruntime raises its own untyped errors for a missing or broken file
            raise VoiceActivityUnavailable(f"The voice-activity model {path} could not be loaded: {error}") from None
        self.reset()

    def reset(self) -> None:
        self._h = np.zeros((1, 1, 128), dtype=np.float32)
        self._c = np.zeros((1, 1, 128), dtype=np.float32)
        self._context = np.zeros(self.CONTEXT, dtype=np.float32)

    def probability(self, frame: bytes) -> float:
        samples = np.frombuffer(frame, dtype="<i2").astype(np.float32) / 32768.0
        if len(samples) != FRAME_SAMPLES:
            raise ValueError(f"the Silero model takes frames of {FRAME_SAMPLES} samples, got {len(samples)}")
        window = np.concatenate([self._context, samples])[np.newaxis, :]
        speech, self._h, self._c = self._session.run(None, {"input": window, "h": self._h, "c": self._c})
        self._context = samples[-self.CONTEXT :]
        return float(np.asarray(speech).ravel()[0])


def bundled_silero_model() -> Path:
    """faster-whisper's copy of the model, found without importing faster-whisper (that loads CTranslate2)."""
    spec = importlib.util.find_spec("faster_whisper")
    if spec is None or not spec.submodule_search_locations:
        raise VoiceActivityUnavailable(
            f"Detecting speech uses the Silero model that faster-whisper ships: {python_extra('whisper')}."
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "assets" / "silero_vad_v6.onnx"
    if not path.is_file():
        raise VoiceActivityUnavailable(f"{path} is missing: reinstall faster-whisper (1.1 or newer).")
    return path
