"""Microphone and speaker (sounddevice), and their file twins, behind two small interfaces.

- `AudioOut.play(audio)` starts playing and returns a `Playback`: it tells when the sound has ended and stops it at
  once when the player talks over it (barge-in).
- `AudioIn.listen(timeout, during, decide)` returns one utterance at 16 kHz, or None when nobody spoke within
  `timeout` seconds after the program stopped speaking. Passed the `Playback` of the program's own speech, it listens
  during it too: its echo is ignored, a player speaking up over it stops it and is heard. Passed `decide`, it ends the
  utterance at a short pause when `decide` finds what was heard so far complete (see `speech.hearing`).

`Speaker` and `Microphone` use sounddevice (PortAudio); `FileSink` and `FileSource` do the same with WAV files and no
clock, for tests and the demo. Every way audio hardware can fail (no PortAudio library, no device, a device that
disappears mid-game) becomes `AudioUnavailable`, with a message that says what to install or plug in. A microphone
unplugged while the sound server has another source breaks nothing (the server moves the stream, which then hears
silence): given `lost` (`speech.capture.Watch`), `Microphone` asks whether it is still there as it listens.
"""

from __future__ import annotations

import collections
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self

from voicemaster.hints import python_extra, system_package
from voicemaster.speech.audio import Audio
from voicemaster.speech.endpoint import (
    FRAME_BYTES,
    FRAME_SAMPLES,
    FRAME_SECONDS,
    Decide,
    EndpointSettings,
    SileroVad,
    Timeline,
    UtteranceDetector,
    VoiceActivity,
    VoiceActivityUnavailable,
)
from voicemaster.speech.signal import RECOGNITION_RATE, resample

STALL_SECONDS = 1.0
"""A running stream that delivers or takes no audio for this long has lost its device."""

PRESENCE_SECONDS = 2.0
"""While listening, whether the microphone is still there is asked this often (and as listening starts): a sound
server moves the stream of an unplugged microphone to another source, which delivers silence, and nothing fails.
One look runs `pactl` twice (a few milliseconds); the frames wait in the stream's queue meanwhile."""


OUTPUT_LATENCY = 0.1
"""Seconds of sound buffered ahead for the speaker: PortAudio's usual 35 ms through PulseAudio underran (audible gaps)
while the microphone was being analysed; stopping is still instant, as a stop discards the buffer."""


class AudioUnavailable(RuntimeError):
    """The microphone or speaker cannot be used; the message says what to install or plug in."""


class MicrophoneUnavailable(AudioUnavailable):
    """There is no microphone to open."""


class MicrophoneLost(MicrophoneUnavailable):
    """The microphone stopped delivering sound while listening (unplugged, or its sound server gone)."""


class Playback(Protocol):
    @property
    def audio(self) -> Audio:
        """What is being played."""
        ...

    def position(self) -> float:
        """Seconds of `audio` handed to the device so far (heard a few milliseconds later)."""
        ...

    def done(self) -> bool:
        """Whether the sound has ended, played out or stopped. Raises `AudioUnavailable` if the device was lost."""
        ...

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the sound has ended (True) or `timeout` seconds passed (False)."""
        ...

    def stop(self) -> None:
        """Silence it now; harmless if it has ended."""
        ...


class AudioOut(Protocol):
    def play(self, audio: Audio) -> Playback: ...


class AudioIn(Protocol):
    def listen(self, timeout: float, during: Playback | None = None, decide: Decide | None = None) -> Audio | None: ...


# --- sounddevice, at the edge ------------------------------------------------------------------------------------


def _sounddevice() -> Any:
    """The sounddevice module (untyped), or `AudioUnavailable` saying what to install."""
    try:
        import sounddevice
    except OSError:
        raise AudioUnavailable(f"The PortAudio library is missing: {system_package('portaudio')}.") from None
    except ImportError:
        raise AudioUnavailable(f"sounddevice is not installed: {python_extra('audio')}.") from None
    return sounddevice


NO_DEVICE_HINT = (
    "plug in a headset or USB microphone and speaker; on Linux check that `pactl info` reaches a sound server "
    "(PulseAudio or PipeWire) or that `arecord -l` / `aplay -l` list a sound card; then run `voicemaster devices`"
)


def _unavailable(what: str, error: Exception) -> AudioUnavailable:
    return AudioUnavailable(f"No usable {what} ({error}): {NO_DEVICE_HINT}.")


@dataclass(frozen=True)
class Device:
    index: int
    name: str
    host_api: str
    inputs: int
    """Input channels; 0 for a device that only plays."""
    outputs: int
    default_rate: float
    default_input: bool = False
    default_output: bool = False


def divert_native_stderr() -> None:
    """Sends what C libraries write to the process's standard error (ALSA's "pcm_pulse.c: Unable to create stream",
    PortAudio's "Expression ... failed") to /dev/null, while Python's `sys.stderr` keeps the terminal: our own
    message says what went wrong and what to do, and those lines only confuse. For a command's whole run, since
    PortAudio's thread can write at any time. Not when standard error is already captured (tests in-process)."""
    if sys.stderr is not sys.__stderr__ or sys.stderr is None:
        return
    try:
        sys.stderr.flush()
        terminal = os.dup(2)
        nowhere = os.open(os.devnull, os.O_WRONLY)
        os.dup2(nowhere, 2)
        os.close(nowhere)
    except OSError:
        return
    sys.stderr = open(  # noqa: SIM115 - stays open for the process's life, as stderr does
        terminal, "w", encoding=sys.stderr.encoding, errors="backslashreplace", buffering=1, closefd=True
    )


def list_devices(*, probe: bool = False) -> list[Device]:
    """The devices PortAudio found when it started (or at the last `rescan`). With `probe`, each as it really is:
    the inputs and outputs it can open now, 0 when it cannot. ALSA's `pulse` and `default` are listed whether or not
    the sound server behind them has a microphone or a speaker; only opening them tells."""
    found = _listed()
    if not probe:
        return found
    sd = _sounddevice()
    return [
        replace(
            device,
            inputs=device.inputs if device.inputs and _opens(sd, sd.RawInputStream, device) else 0,
            outputs=device.outputs if device.outputs and _opens(sd, sd.RawOutputStream, device) else 0,
        )
        for device in found
    ]


def _opens(sd: Any, stream_type: Any, device: Device) -> bool:
    try:
        stream = stream_type(samplerate=device.default_rate, channels=1, dtype="int16", device=device.index)
    except sd.PortAudioError:
        return False
    try:
        stream.start()
        stream.abort()
        return True
    except sd.PortAudioError:
        return False
    finally:
        stream.close()


def _listed() -> list[Device]:
    sd = _sounddevice()
    host_apis = [str(api["name"]) for api in sd.query_hostapis()]
    default_input, default_output = (int(index) for index in sd.default.device)
    return [
        Device(
            index=int(info["index"]),
            name=str(info["name"]),
            host_api=host_apis[int(info["hostapi"])],
            inputs=int(info["max_input_channels"]),
            outputs=int(info["max_output_channels"]),
            default_rate=float(info["default_samplerate"]),
            default_input=int(info["index"]) == default_input,
            default_output=int(info["index"]) == default_output,
        )
        for info in sd.query_devices()
    ]


def rescan() -> None:
    """Look for devices again (a sound server started, a headset was plugged in). Closes every open stream.

    PortAudio lists devices once, when it starts; restarting it is the only way, and sounddevice's own
    `_terminate`/`_initialize` pair is what its documentation points to for this.
    """
    sd = _sounddevice()
    sd._terminate()
    sd._initialize()


# --- the speaker ---------------------------------------------------------------------------------------------------


class Speaker:
    """Plays through a sounddevice output (None: the system default). One voice at a time: a new sound stops the
    one before."""

    def __init__(self, device: int | str | None = None) -> None:
        self.device = device
        self._current: _SpeakerPlayback | None = None

    def play(self, audio: Audio) -> Playback:
        if self._current is not None:
            self._current.stop()
        self._current = _SpeakerPlayback(_sounddevice(), audio, self.device)
        return self._current


class _SpeakerPlayback:
    def __init__(self, sd: Any, audio: Audio, device: int | str | None) -> None:
        self.audio = audio
        self._sd = sd
        rate = self._device_rate(audio.rate, device)
        self._data = resample(audio, rate).samples
        self._rate = rate
        self._cursor = 0
        self._stopped = False
        self._finished = threading.Event()
        self._last_fill = time.monotonic()
        self._first_fill: float | None = None
        self._lock = threading.Lock()
        self._closed = False
        try:
            self._stream: Any = sd.RawOutputStream(
                samplerate=rate,
                channels=1,
                dtype="int16",
                device=device,
                latency=OUTPUT_LATENCY,
                callback=self._fill,
                finished_callback=self._finished.set,
            )
        except sd.PortAudioError as error:
            raise _unavailable("speaker", error) from None
        try:
            self._stream.start()
        except sd.PortAudioError as error:
            self._close()
            raise _unavailable("speaker", error) from None

    def _device_rate(self, wanted: int, device: int | str | None) -> int:
        """The audio's own rate if the device takes it (no resampling), else the device's default rate."""
        sd = self._sd
        try:
            sd.check_output_settings(device=device, samplerate=wanted, channels=1, dtype="int16")
            return wanted
        except sd.PortAudioError:
            pass
        try:
            return int(sd.query_devices(device, "output")["default_samplerate"])
        except (sd.PortAudioError, ValueError) as error:
            raise _unavailable("speaker", error) from None

    def _fill(self, out: Any, frames: int, at: Any, status: Any) -> None:
        # PortAudio's thread: copy and count, nothing that could block.
        del frames, at, status
        size = len(out)
        chunk = self._data[self._cursor : self._cursor + size]
        out[: len(chunk)] = chunk
        out[len(chunk) :] = bytes(size - len(chunk))
        self._cursor += len(chunk)
        if chunk:  # progress, not calls: a broken ALSA link can call back forever asking for nothing
            self._last_fill = time.monotonic()
        if self._first_fill is None:
            self._first_fill = self._last_fill
        if self._cursor >= len(self._data):
            raise self._sd.CallbackStop

    def position(self) -> float:
        return self._cursor / 2 / self._rate

    def done(self) -> bool:
        if self._finished.is_set():
            self._close()
            self._check_complete()
            return self._stopped or self._audible_until() <= time.monotonic()
        self._check_alive()
        return False

    def _audible_until(self) -> float:
        # Through PulseAudio the stream reports its end when the server has the last samples, about 0.1 s before
        # they are heard; the sound cannot end before its length has passed since it started.
        return (self._first_fill or 0.0) + len(self._data) / 2 / self._rate

    def wait(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.done():
            left = 0.05 if deadline is None else min(0.05, deadline - time.monotonic())
            if left <= 0:
                return False
            if self._finished.is_set():
                time.sleep(left)  # handed over, not yet heard: see `_audible_until`
            else:
                self._finished.wait(left)
        return True

    def stop(self) -> None:
        self._stopped = True
        self._close()

    def _check_alive(self) -> None:
        # Once all is handed over, the device still plays out its buffer without asking for more.
        drain = float(self._stream.latency) if self._cursor >= len(self._data) else 0.0
        if time.monotonic() - self._last_fill > STALL_SECONDS + drain:
            self.stop()
            raise AudioUnavailable(f"The speaker stopped taking sound (was it unplugged?): {NO_DEVICE_HINT}.")

    def _check_complete(self) -> None:
        # PortAudio ends a stream whose device vanished as if it had finished; only the cursor tells.
        if not self._stopped and self._cursor < len(self._data):
            raise AudioUnavailable(f"The speaker went away mid-sentence (was it unplugged?): {NO_DEVICE_HINT}.")

    def _close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            # abort, not stop: stop would play out what is buffered, and barge-in means silence now.
            self._stream.abort()
            self._stream.close()
        except self._sd.PortAudioError:
            pass  # a stream whose device is gone cannot be closed cleanly, and there is nothing left to release
        self._finished.set()


# --- the microphone ------------------------------------------------------------------------------------------------


class Microphone:
    """Listens through a sounddevice input at 16 kHz mono (None: the system default).

    The stream opens at the first `listen` (or `open`, or entering a `with` block) and stays open until `close`, so
    that speech which began just before listening started (the pre-roll) is still there.
    """

    def __init__(
        self,
        device: int | str | None = None,
        settings: EndpointSettings | None = None,
        vad: VoiceActivity | None = None,
        lost: Callable[[], str | None] | None = None,
    ) -> None:
        """`lost` names the microphone if it has gone (see `speech.capture.Watch`); None never asks."""
        self.device = device
        self.settings = settings or EndpointSettings()
        self._vad = vad
        self._lost = lost
        self._stream: Any = None
        # Between two `listen` calls nobody reads: keep a few seconds, enough for any pre-roll, and no more.
        self._frames: collections.deque[bytes] = collections.deque(maxlen=round(10 / FRAME_SECONDS))
        self._arrived = threading.Condition()
        self._ended = False
        self._last: Audio | None = None

    @property
    def last(self) -> Audio | None:
        """The last utterance heard, for tests and logs."""
        return self._last

    def listen(self, timeout: float, during: Playback | None = None, decide: Decide | None = None) -> Audio | None:
        program = during.audio if during is not None else None
        detector = UtteranceDetector(self._voice_activity(), self.settings, timeout, program, decide)
        self.open()
        next_look = time.monotonic()
        for frame in self._live_frames():
            if self._lost is not None and time.monotonic() >= next_look:
                self._check_present(self._lost)
                next_look = time.monotonic() + PRESENCE_SECONDS
            program_at = during.position() if during is not None and not during.done() else None
            state = detector.push(frame, program_at)
            if detector.barged_in and during is not None:
                during.stop()
            if state.finished:
                break
        self._last = detector.utterance()
        return self._last

    def _check_present(self, lost: Callable[[], str | None]) -> None:
        name = lost()
        if name is not None:
            self.close()
            raise MicrophoneLost(
                f"The microphone {name!r} was unplugged (the sound server went on recording from another source, "
                f"which only gives silence): {NO_DEVICE_HINT}."
            )

    def close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is None:
            return
        try:
            stream.abort()
            stream.close()
        except _sounddevice().PortAudioError:
            pass  # the device is already gone

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def _voice_activity(self) -> VoiceActivity:
        if self._vad is None:
            try:
                self._vad = SileroVad()
            except VoiceActivityUnavailable as error:
                raise AudioUnavailable(str(error)) from None
        return self._vad

    def open(self) -> None:
        """Start hearing; raises `AudioUnavailable` if there is no microphone."""
        if self._stream is not None:
            return
        sd = _sounddevice()
        self._ended = False
        self._frames.clear()
        try:
            self._stream = sd.RawInputStream(
                samplerate=RECOGNITION_RATE,
                channels=1,
                dtype="int16",
                blocksize=FRAME_SAMPLES,
                device=self.device,
                callback=self._arrive,
                finished_callback=self._end,
            )
        except sd.PortAudioError as error:
            raise MicrophoneUnavailable(str(_unavailable("microphone", error))) from None
        try:
            self._stream.start()
        except sd.PortAudioError as error:
            self.close()
            raise MicrophoneUnavailable(str(_unavailable("microphone", error))) from None

    def _arrive(self, data: Any, frames: int, at: Any, status: Any) -> None:
        del frames, at, status  # an overflow loses a frame; the segmenter copes, so it is not worth a message
        with self._arrived:
            self._frames.append(bytes(data))
            self._arrived.notify()

    def _end(self) -> None:
        # PortAudio ends an input stream on its own only when its device has gone.
        with self._arrived:
            self._ended = True
            self._arrived.notify()

    def _live_frames(self) -> Iterator[bytes]:
        """The pre-roll kept from before, then frames as they arrive, cut to exactly one VAD frame each."""
        pre_roll = round(self.settings.pre_roll_seconds / FRAME_SECONDS)
        with self._arrived:
            kept = list(self._frames)[-pre_roll:] if pre_roll else []
            self._frames.clear()
        pending = bytearray(b"".join(kept))
        while True:
            while len(pending) >= FRAME_BYTES:
                yield bytes(pending[:FRAME_BYTES])
                del pending[:FRAME_BYTES]
            pending += self._next_block()

    def _next_block(self) -> bytes:
        with self._arrived:
            if not self._frames and not self._ended:
                self._arrived.wait(STALL_SECONDS)
            if self._frames:
                return self._frames.popleft()
        # The stream ended, or gave no sound for a second where it should every 32 ms (a device can also vanish
        # leaving the stream hanging). Closing lets the next `listen` try again, perhaps on a new device.
        self.close()
        raise MicrophoneLost(f"The microphone stopped delivering sound (was it unplugged?): {NO_DEVICE_HINT}.")


# --- the file twins ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Played:
    """One sound in a `FileSink` session: where it starts in the session WAV, and how long it is."""

    start: float
    seconds: float


@dataclass
class _FinishedPlayback:
    """A sound that a file sink has already written out: it has ended before anyone asks."""

    audio: Audio

    def position(self) -> float:
        return self.audio.seconds

    def done(self) -> bool:
        return True

    def wait(self, timeout: float | None = None) -> bool:
        del timeout
        return True

    def stop(self) -> None:
        pass


@dataclass
class FileSink:
    """Appends everything played to one session recording, with where each sound starts; no clock, no device.

    `pause(seconds)` leaves room in the session where players speak, so that the recording keeps the game's rhythm.
    """

    rate: int = 22_050
    played: list[Played] = field(default_factory=list)
    _samples: bytearray = field(default_factory=bytearray, repr=False)

    @property
    def seconds(self) -> float:
        return len(self._samples) / 2 / self.rate

    @property
    def session(self) -> Audio:
        return Audio(bytes(self._samples), self.rate)

    def play(self, audio: Audio) -> Playback:
        self.played.append(Played(self.seconds, audio.seconds))
        self._samples += resample(audio, self.rate).samples
        return _FinishedPlayback(audio)

    def pause(self, seconds: float) -> None:
        self._samples += bytes(2 * round(seconds * self.rate))

    def write(self, path: Path) -> None:
        self.session.write(path)


class ScriptEnded(LookupError):
    """A `FileSource` was asked to listen more often than its script has lines."""


class FileSource:
    """Hears the lines of a script, one per `listen`: a WAV file or `Audio` is what the player says, None is a player
    who stays silent.

    Each line goes through the same end-of-speech detection as the microphone, framed by silence, so a script hears
    what a player would be heard saying: the utterance trimmed to its speech and cut at the longest length.
    """

    LEAD_SECONDS = 0.5
    """Silence before each line, as a player takes a moment to answer."""

    def __init__(
        self,
        script: Iterable[Path | Audio | None],
        settings: EndpointSettings | None = None,
        vad: VoiceActivity | None = None,
    ) -> None:
        self._lines = collections.deque(script)
        self.settings = settings or EndpointSettings()
        self._vad = vad
        self.timeline: Timeline | None = None
        """How the last line was heard, in seconds from the start of its lead silence; None for a silent line."""

    @property
    def unheard(self) -> int:
        """Lines of the script not yet listened to: a finished test or demo expects 0."""
        return len(self._lines)

    def listen(self, timeout: float, during: Playback | None = None, decide: Decide | None = None) -> Audio | None:
        if during is not None:
            during.wait()  # scripted players answer when the question is over; barge-in is the microphone's
        if not self._lines:
            raise ScriptEnded("the script has no more lines: the game listened more often than it was written for")
        line = self._lines.popleft()
        self.timeline = None
        if line is None:
            return None
        spoken = resample(Audio.read(line) if isinstance(line, Path) else line, RECOGNITION_RATE)
        if self._vad is None:
            self._vad = SileroVad()
        detector = UtteranceDetector(self._vad, self.settings, timeout, decide=decide)
        trailing = self.settings.silence_seconds + self.settings.post_roll_seconds + 0.1
        lead = bytes(2 * round(self.LEAD_SECONDS * RECOGNITION_RATE))
        stream = lead + spoken.samples + bytes(2 * round(trailing * RECOGNITION_RATE))
        for offset in range(0, len(stream) - FRAME_BYTES + 1, FRAME_BYTES):
            if detector.push(stream[offset : offset + FRAME_BYTES]).finished:
                break
        self.timeline = detector.timeline()
        return detector.utterance()
