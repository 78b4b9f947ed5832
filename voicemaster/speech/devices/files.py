"""The file twins of the speaker and the microphone, for tests and the demo: `FileSink` appends what is played to one
session recording, `FileSource` hears the lines of a script; neither has a clock or a device."""

from __future__ import annotations

import collections
import shutil
import wave
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import Playback, Words
from voicemaster.speech.frame import FRAME_BYTES, Frame
from voicemaster.speech.signal import RECOGNITION_RATE, resample


@dataclass(frozen=True)
class Played:
    """One sound in a `FileSink` session: where it starts in the session WAV, and how long it is."""

    start: float
    seconds: float


@dataclass
class _FinishedPlayback:
    """A sound that a file sink has already written out: it has ended before anyone asks."""

    audio: Audio
    words: tuple[Words, ...] = ()

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
    Given `path`, the recording is written there as it is made (a WAV file whose header is right after every sound),
    so a long session costs no more memory than a short one; `close` ends it. Without, it is kept in memory.
    """

    rate: int = 22_050
    path: Path | None = None
    played: list[Played] = field(default_factory=list)
    _samples: bytearray = field(default_factory=bytearray, repr=False)
    _frames: int = 0
    _out: wave.Wave_write | None = field(default=None, repr=False)

    @property
    def seconds(self) -> float:
        return self._frames / self.rate

    @property
    def session(self) -> Audio:
        """The whole recording (read back from `path` when it is written as it is made)."""
        if self.path is None:
            return Audio(bytes(self._samples), self.rate)
        self.close()
        return Audio.read(self.path) if self.path.exists() else Audio(b"", self.rate)

    def play(self, audio: Audio, words: tuple[Words, ...] = ()) -> Playback:
        self.played.append(Played(self.seconds, audio.seconds))
        self._append(resample(audio, self.rate).samples)
        return _FinishedPlayback(audio, words)

    def pause(self, seconds: float) -> None:
        self._append(bytes(2 * round(seconds * self.rate)))

    def _append(self, samples: bytes) -> None:
        self._frames += len(samples) // 2
        if self.path is None:
            self._samples += samples
            return
        if self._out is None:
            self._out = wave.open(str(self.path), "wb")  # noqa: SIM115 - open across calls, closed by `close`
            self._out.setnchannels(1)
            self._out.setsampwidth(2)
            self._out.setframerate(self.rate)
        self._out.writeframes(samples)  # the header is brought up to date with each write

    def close(self) -> None:
        """Ends the recording written as it is made; harmless when there is none, or it has ended."""
        out, self._out = self._out, None
        if out is not None:
            out.close()

    def write(self, path: Path) -> None:
        if self.path is None:
            self.session.write(path)
            return
        self.close()
        if not self.path.exists():
            Audio(b"", self.rate).write(self.path)
        if path.resolve() != self.path.resolve():
            shutil.copyfile(self.path, path)


class ScriptEnded(LookupError):
    """A `FileSource` was asked to listen more often than its script has lines."""


class FileSource:
    """Hears the lines of a script, one per listening: a WAV file or `Audio` is what the player says, None is a player
    who stays silent.

    Each line is delivered as a microphone would hear it, in frames, framed by silence (`LEAD_SECONDS` before it,
    `TRAIL_SECONDS` after), so that hearing finds the utterance in it as it would in a player's. A silent player's
    line delivers no frames at all: nobody spoke, and no time need pass to know it.
    """

    LEAD_SECONDS = 0.5
    """Silence before each line, as a player takes a moment to answer."""
    TRAIL_SECONDS = 2.5
    """Silence after each line: more than any pause that ends an utterance (0.7 s; tests try up to 2 s), with its
    post-roll. Hearing stops reading at the end of the utterance, so the rest costs nothing."""

    def __init__(self, script: Iterable[Path | Audio | None]) -> None:
        self._lines = collections.deque(script)

    def frames(self, during: Playback | None = None, *, before: float = 0.0) -> Iterator[Frame]:
        del before  # a line has its own lead of silence
        if during is not None:
            during.wait()  # scripted players answer when the question is over; barge-in is the microphone's
        if not self._lines:
            raise ScriptEnded("the script has no more lines: the game listened more often than it was written for")
        line = self._lines.popleft()
        if line is None:
            return
        spoken = resample(Audio.read(line) if isinstance(line, Path) else line, RECOGNITION_RATE)
        lead = bytes(2 * round(self.LEAD_SECONDS * RECOGNITION_RATE))
        stream = lead + spoken.samples + bytes(2 * round(self.TRAIL_SECONDS * RECOGNITION_RATE))
        for offset in range(0, len(stream) - FRAME_BYTES + 1, FRAME_BYTES):
            yield Frame(stream[offset : offset + FRAME_BYTES])
