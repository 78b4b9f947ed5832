"""The file twins of the speaker and the microphone, for tests and the demo: `FileSink` appends what is played to one
session recording, `FileSource` hears the lines of a script; neither has a clock or a device."""

from __future__ import annotations

import collections
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import FRAME_BYTES, Playback
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

    @property
    def unheard(self) -> int:
        """Lines of the script not yet listened to: a finished test or demo expects 0."""
        return len(self._lines)

    def frames(self, during: Playback | None = None, *, before: float = 0.0) -> Iterator[bytes]:
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
            yield stream[offset : offset + FRAME_BYTES]
