"""The room between the quizmaster's loudspeaker, the player and the microphone, played in real time on the private
PulseAudio bus (`harness.pulse`, `room=True`).

One thread reads the bus (`vbus.monitor`: the microphone, the speaker, the count) in 20 ms blocks and writes, for
each block it reads, one block of what the microphone hears into `vroom`: the speaker's sound through the echo's
impulse response, a stated delay after it was played; the room's noise, looped; and the player's utterances, each
begun at the next block once it is asked for (`say`). The whole bus is kept as the recording.

The delay of the echo is held, not hoped for: the stream into `vroom` is late by however much PulseAudio buffers,
and a stall of this process (an underrun) adds to it for good. So each written sample carries its number on the
third channel; reading where the numbers have got to tells how late the next block will be heard, the echo is taken
from that far back, and a block is left out when the stream runs later than the delay, which shortens it again.
The recording's count also tells afterwards, exactly, where on the bus each utterance began and how long the echo
actually took (`delays`).

With a phone at the player's mouth (`Scene.phone`), each block read also makes what the phone hears at that moment:
the speaker's sound through its response to the phone, the room's noise at the phone's level, and the player's
utterances as the phone hears them, each begun at the bus frame where the microphone hears it begin. It is handed to
`phone_out` (the bench's phone, which sends it to the game as the join page does) as soon as it is made. A phone held
to talk (`PhoneScene.hold_to_talk`) sends silence, as the join page does, except from the player's `press` until
`RELEASE_SECONDS` after the utterance that follows it ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from voicemaster_lab.harness.pulse import RATE, ROOM_CHANNELS, ROOM_MAP, Pulse

Signal = npt.NDArray[np.float64]
BLOCK = 320
"""20 ms: the mixer's step."""
COUNT = 32_767
"""The count on the third channel runs 1..COUNT and wraps; 0 is a moment nothing of ours was playing."""
HISTORY = 2 * RATE
"""How much of the echo the mixer keeps to take a delayed sample from: far more than any delay it holds."""
PIPE_BYTES = 1 << 20
"""The recorder's pipe, enlarged: a second of this process standing still must not make PulseAudio drop samples."""
SPEAKER, MICROPHONE, COUNTER = 1, 0, 2
"""The bus's channels."""
AUDIBLE = 328
"""-40 dBFS: a speaker sample this loud is sound (as `timing.live_figures` reads it)."""
RELEASE_SECONDS = 0.3
"""With hold to talk, how long after the last of their words the player lets go of the phone's button."""


class BlockConvolver:
    """A long impulse response applied to a stream block by block (FFT overlap-add): the same samples as
    `np.convolve` of the whole stream, as it arrives."""

    def __init__(self, response: Signal, block: int = BLOCK) -> None:
        self.block = block
        self.size = 1 << int(np.ceil(np.log2(len(response) + block - 1)))
        self.spectrum = np.fft.rfft(response, self.size)
        self.tail = np.zeros(self.size)

    def push(self, samples: Signal) -> Signal:
        if len(samples) != self.block:
            raise ValueError(f"blocks of {self.block} samples, got {len(samples)}")
        wet = np.fft.irfft(np.fft.rfft(samples, self.size) * self.spectrum, self.size)
        self.tail += wet
        out = self.tail[: self.block].copy()
        self.tail = np.concatenate([self.tail[self.block :], np.zeros(self.block)])
        return out


def written_before(count: int, written: int) -> int:
    """The index of the sample whose count is `count` (1..COUNT), the latest one below `written` samples written."""
    return written - ((written - (count - 1)) % COUNT or COUNT)


@dataclass
class Utterance:
    """One of the player's utterances as the microphone hears it, and where the mixer began it."""

    samples: Signal
    at_phone: Signal | None = None
    """The same utterance as the phone at the player's mouth hears it; None: no phone."""
    written_from: int | None = None
    """The index of the written sample that holds its first; None until it began."""
    expected_at: int | None = None
    """The bus frame where that sample was expected to be heard (the recording says exactly: `Recorded.frame_of`)."""
    cancelled: bool = False
    done: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True)
class PhoneScene:
    """What a phone at the player's mouth hears besides the player (`harness.room.phone_scene`)."""

    echo: Signal | None
    """The loudspeaker-to-phone impulse response, scaled; None: no echo."""
    noise: Signal
    """The room's noise at the phone's level, played in a loop."""
    hold_to_talk: bool = False
    """The player holds the join page's "hold to talk" button while speaking: the phone sends silence otherwise."""


@dataclass(frozen=True)
class Scene:
    """What the mixer plays into the microphone besides the player."""

    echo: Signal | None
    """The loudspeaker-to-microphone impulse response, scaled to the stated coupling; None: no echo."""
    delay: int
    """Samples from the speaker playing a sound to its echo at the microphone (the response's own delay after)."""
    noise: Signal
    """The room's noise at its level, played in a loop."""
    gain: float = 1.0
    """The microphone's gain, applied to all it hears: set for the loudest sound, as a person or an automatic gain
    control sets it, so that an echo louder than the player does not clip."""
    phone: PhoneScene | None = None
    """A phone at the player's mouth as well; None: the room's microphone only."""


@dataclass(frozen=True)
class Recorded:
    """The bus as the mixer read it, and how the echo kept time."""

    bus: npt.NDArray[np.int16]
    """Frames by channel: the microphone, the speaker, the count."""
    blocks: tuple[tuple[int, int], ...]
    """Each written block: its first sample's index, and the bus frame its echo was taken from."""
    late: int
    """Blocks left out because the stream had fallen behind the delay."""
    clock: tuple[tuple[float, int], ...] = ()
    """`time.monotonic()` as each block was read, and the bus frame it began at: where on the bus a moment was."""

    def frame_at(self, monotonic: float) -> int:
        """The bus frame being read at `monotonic` (the sound server's capture buffer a few milliseconds behind)."""
        times, frames = zip(*self.clock, strict=True) if self.clock else ((0.0,), (0,))
        return round(float(np.interp(monotonic, times, frames)))

    @property
    def microphone(self) -> npt.NDArray[np.int16]:
        return self.bus[:, MICROPHONE]

    @property
    def speaker(self) -> npt.NDArray[np.int16]:
        return self.bus[:, SPEAKER]

    def frame_of(self, index: int, near: int | None = None, within: int = RATE) -> int | None:
        """The bus frame where written sample `index` was heard: found by its count, near `near` if given."""
        count = self.bus[:, COUNTER]
        first = 0 if near is None else max(0, near - within)
        last = len(count) if near is None else min(len(count), near + within)
        found = np.flatnonzero(count[first:last] == index % COUNT + 1)
        return None if not len(found) else first + int(found[0])

    def dropouts(self) -> float:
        """Seconds after our stream was first heard that nothing of it was (an underrun: the microphone went
        silent)."""
        playing = np.flatnonzero(self.bus[:, COUNTER] != 0)
        if not len(playing):
            return 0.0
        return float(np.sum(self.bus[playing[0] : playing[-1], COUNTER] == 0)) / RATE

    def delays(self, step: int = 25) -> list[float]:
        """Seconds from the speaker to the echo at the microphone, as it was heard, every `step` blocks."""
        found = []
        for written, source in self.blocks[::step]:
            frame = self.frame_of(written, near=source, within=RATE // 2)
            if frame is not None:
                found.append((frame - source) / RATE)
        return found


class Mixer:
    """The room, running: `start`, `say` the player's utterances (`cancel` one not begun), `stop` for the recording."""

    def __init__(self, pulse: Pulse, scene: Scene, phone_out: Callable[[bytes], None] | None = None) -> None:
        """`phone_out`: handed each block the phone hears (16-bit mono at `RATE`), when `scene` has a phone."""
        if not pulse.room:
            raise ValueError("the mixer needs the room's bus (start_pulse(room=True))")
        self.pulse, self.scene = pulse, scene
        self.convolver = BlockConvolver(scene.echo) if scene.echo is not None else None
        phone = scene.phone
        self.phone_out = phone_out if phone is not None else None
        self.phone_convolver = BlockConvolver(phone.echo) if phone is not None and phone.echo is not None else None
        self._at_phone: list[tuple[int, Signal]] = []
        """The utterances the phone hears now or soon: (the bus frame each begins at, its samples at the phone)."""
        self._held: tuple[int, int | None] | None = None
        """With hold to talk: the bus frames from which the button is held and at which it is let go (None: not
        known until the utterance said while holding it begins); None: not held."""
        self._queue: deque[Utterance] = deque()
        self._speaking: Utterance | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._read: list[npt.NDArray[np.int16]] = []
        self._blocks: list[tuple[int, int]] = []
        self._clock: list[tuple[float, int]] = []
        self._late = 0
        self._written = 0
        self._frames = 0
        self._lag: int | None = None
        self._speaker_heard = 0
        self._echo = np.zeros(HISTORY)
        self._thread: threading.Thread | None = None
        self._recorder: subprocess.Popen[bytes] | None = None
        self._player: subprocess.Popen[bytes] | None = None
        self.failed: BaseException | None = None

    @property
    def frames(self) -> int:
        """Bus frames read so far."""
        return self._frames

    @property
    def speaker_quiet(self) -> float:
        """Seconds the speaker has been silent on the bus, as far as read: what a player hears of the quizmaster."""
        return (self._frames - self._speaker_heard) / RATE

    def start(self, seconds: float = 10.0) -> None:
        """Starts the streams and returns once the microphone hears the mixer."""
        raw = ["--raw", "--format=s16le", f"--rate={RATE}"]
        self._recorder = subprocess.Popen(
            ["parecord", "--device=vbus.monitor", *raw, f"--channels={ROOM_CHANNELS}", f"--channel-map={ROOM_MAP}",
             "--latency-msec=10"],
            env=self.pulse.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        assert self._recorder.stdout is not None
        fcntl.fcntl(self._recorder.stdout.fileno(), 1031, PIPE_BYTES)  # F_SETPIPE_SZ
        self._player = subprocess.Popen(
            ["pacat", "--playback", "--device=vroom", *raw, "--channels=2", "--channel-map=front-left,front-right",
             "--latency-msec=40"],
            env=self.pulse.env, stdin=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self._thread = threading.Thread(target=self._run, name="room mixer", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + seconds
        while self._lag is None:
            if self.failed is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the room's mixer did not come up: {self.failed or 'timed out'}")
            time.sleep(0.01)

    def say(self, samples: Signal, at_phone: Signal | None = None) -> Utterance:
        """Begins `samples` (16 kHz, as the microphone hears them) at the next block, after any still playing;
        `at_phone`: the same as the phone hears it, begun where the microphone hears it begin."""
        utterance = Utterance(samples, at_phone)
        with self._lock:
            self._queue.append(utterance)
        return utterance

    def press(self) -> None:
        """The player presses the phone's "hold to talk" button, to say the next utterance (with `hold_to_talk`)."""
        with self._lock:
            if self._held is None or self._held[1] is not None:
                self._held = (self._frames, None)

    def release(self) -> None:
        """The player lets go of the button without having said anything (the game spoke first)."""
        with self._lock:
            self._let_go()

    def cancel(self, utterance: Utterance) -> bool:
        """Takes back an utterance not yet begun (the button, if held for it, is let go); False if it has begun."""
        with self._lock:
            if utterance.written_from is not None:
                return False
            self._let_go()
            utterance.cancelled = True
            if utterance in self._queue:
                self._queue.remove(utterance)
            utterance.done.set()
            return True

    def stop(self) -> Recorded:
        self._stop.set()
        if self._recorder is not None and self._recorder.poll() is None:
            self._recorder.send_signal(signal.SIGINT)
        if self._thread is not None:
            self._thread.join(timeout=5)
        for process in (self._recorder, self._player):
            if process is None:
                continue
            if process is self._player and process.stdin is not None:
                with contextlib.suppress(BrokenPipeError):
                    process.stdin.close()
            if process.poll() is None:
                process.terminate()
            process.wait(timeout=5)
            if process.stdout is not None:
                process.stdout.close()
        bus = np.concatenate(self._read) if self._read else np.zeros((0, ROOM_CHANNELS), dtype=np.int16)
        return Recorded(bus, tuple(self._blocks), self._late, tuple(self._clock))

    def _run(self) -> None:
        assert self._recorder is not None and self._recorder.stdout is not None
        assert self._player is not None and self._player.stdin is not None
        size = BLOCK * ROOM_CHANNELS * 2
        try:
            while not self._stop.is_set():
                data = self._recorder.stdout.read(size)
                if len(data) < size:
                    return
                block = np.frombuffer(data, dtype="<i2").reshape(BLOCK, ROOM_CHANNELS)
                out = self._step(block)
                if out is not None:
                    self._player.stdin.write(out)
                    self._player.stdin.flush()
        except (OSError, ValueError) as error:
            if not self._stop.is_set():
                self.failed = error

    def _step(self, block: npt.NDArray[np.int16]) -> bytes | None:
        """One block read: kept, its echo computed; the block to write, or None to fall back to the delay. The
        phone's block is made after the microphone's, whose utterance begun now may begin within it."""
        frame = self._frames
        out = self._microphone_step(block)
        if self.phone_out is not None:
            self.phone_out(self._phone_block(frame, block[:, SPEAKER].astype(np.float64) / 32768))
        return out

    def _microphone_step(self, block: npt.NDArray[np.int16]) -> bytes | None:
        frame = self._frames
        self._clock.append((time.monotonic(), frame))
        self._read.append(block)
        self._frames += BLOCK
        loud = np.flatnonzero(np.abs(block[:, SPEAKER].astype(np.int32)) >= AUDIBLE)
        if len(loud):
            self._speaker_heard = frame + int(loud[-1]) + 1
        speaker = block[:, SPEAKER].astype(np.float64) / 32768
        echo = self.convolver.push(speaker) if self.convolver is not None else np.zeros(BLOCK)
        self._echo = np.concatenate([self._echo[BLOCK:], echo])
        count = int(block[0, COUNTER])
        if count:
            self._lag = self._written - written_before(count, self._written)
        lag = self._lag if self._lag is not None else self.scene.delay
        if lag > self.scene.delay:
            if count:
                self._late += 1
                return None
            lag = self.scene.delay  # our stream has run dry: whatever the lag was, it must be fed
        # The block written now is heard from bus frame `frame + lag`: its echo is of the speaker `delay` before.
        source = frame + lag - self.scene.delay
        start = HISTORY - BLOCK - (frame - source)
        mix = self._echo[start : start + BLOCK].copy() if self._lag is not None else np.zeros(BLOCK)
        noise = self.scene.noise
        if len(noise):
            mix += np.take(noise, np.arange(self._written, self._written + BLOCK), mode="wrap")
        mix += self._utterances(frame + lag)
        mix *= self.scene.gain
        pcm = np.empty((BLOCK, 2), dtype="<i2")
        pcm[:, 0] = np.clip(np.round(mix * 32767), -32768, 32767)
        pcm[:, 1] = (np.arange(self._written, self._written + BLOCK) % COUNT) + 1
        if self._lag is not None:  # before our stream was first heard, the delay was a guess
            self._blocks.append((self._written, source))
        self._written += BLOCK
        return pcm.tobytes()

    def _phone_block(self, frame: int, speaker: Signal) -> bytes:
        """What the phone hears at bus frames `frame`..`frame + BLOCK`: the speaker just read through its response
        (the sound's own way to the phone is in the response), the noise, the player's utterances begun by then."""
        phone = self.scene.phone
        assert phone is not None
        mix = self.phone_convolver.push(speaker) if self.phone_convolver is not None else np.zeros(BLOCK)
        if len(phone.noise):
            mix += np.take(phone.noise, np.arange(frame, frame + BLOCK), mode="wrap")
        with self._lock:
            kept = []
            for begins, samples in self._at_phone:
                first, last = max(frame, begins), min(frame + BLOCK, begins + len(samples))
                if first < last:
                    mix[first - frame : last - frame] += samples[first - begins : last - begins]
                if begins + len(samples) > frame + BLOCK:
                    kept.append((begins, samples))
            self._at_phone = kept
            if phone.hold_to_talk:
                mix *= self._holding(frame)
        return np.clip(np.round(mix * 32767), -32768, 32767).astype("<i2").tobytes()

    def _let_go(self) -> None:
        """The button let go now, if it is held for an utterance not yet begun (under the lock)."""
        if self._held is not None and self._held[1] is None:
            self._held = (self._held[0], self._frames)

    def _holding(self, frame: int) -> Signal:
        """1 where the button is held in bus frames `frame`..`frame + BLOCK`, else 0 (under the lock)."""
        held = np.zeros(BLOCK)
        if self._held is not None:
            pressed, released = self._held
            last = frame + BLOCK if released is None else min(frame + BLOCK, released)
            held[max(0, pressed - frame) : max(0, last - frame)] = 1.0
            if released is not None and released <= frame + BLOCK:
                self._held = None
        return held

    def _utterances(self, heard_at: int) -> Signal:
        """The player's samples of this block: the one speaking, then the next one queued, from its start."""
        out = np.zeros(BLOCK)
        with self._lock:
            filled = 0
            while filled < BLOCK:
                if self._speaking is None:
                    if not self._queue:
                        break
                    self._speaking = self._queue.popleft()
                    self._speaking.written_from = self._written + filled
                    self._speaking.expected_at = heard_at + filled
                    if self._speaking.at_phone is not None:
                        self._at_phone.append((heard_at + filled, self._speaking.at_phone))
                        if self._held is not None and self._held[1] is None:
                            ends = heard_at + filled + len(self._speaking.at_phone)
                            self._held = (self._held[0], ends + round(RELEASE_SECONDS * RATE))
                speaking = self._speaking
                assert speaking.written_from is not None
                offset = self._written + filled - speaking.written_from
                part = speaking.samples[offset : offset + BLOCK - filled]
                out[filled : filled + len(part)] = part
                filled += len(part)
                if offset + len(part) >= len(speaking.samples):
                    speaking.done.set()
                    self._speaking = None
        return out
