"""The audio devices' two small interfaces and how they fail.

- `AudioOut.play(audio, words)` starts playing and returns a `Playback`: it tells when the sound has ended and stops
  it at once when the player talks over it (barge-in), and what words it says (`Words`): what over it is our own
  echo, not a player (`speech.hearing.echo`).
- `AudioIn.frames(during, before=...)` delivers what the microphone hears as 32 ms frames at 16 kHz, for as long as
  the caller reads them. Where an utterance begins and ends, and what it means, is hearing's business
  (`speech.hearing.pipeline`): a device only records.

`Speaker` (`loudspeaker.py`) and `Microphone` (`microphone.py`) use sounddevice (`portaudio.py`, which also lists
the devices there are); `FileSink` and `FileSource` (`files.py`) do the same with WAV files and no clock, for tests
and the demo. Every way audio
hardware can fail (no PortAudio library, no device, a device that disappears mid-game) becomes `AudioUnavailable`, with
a message that says what to install or plug in.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from voicemaster.speech.audio import Audio
from voicemaster.speech.frame import Frame

STALL_SECONDS = 1.0
"""A running stream that delivers or takes no audio for this long has lost its device."""


class AudioUnavailable(RuntimeError):
    """The microphone or speaker cannot be used; the message says what to install or plug in."""


class MicrophoneUnavailable(AudioUnavailable):
    """There is no microphone to open."""


class MicrophoneLost(MicrophoneUnavailable):
    """The microphone stopped delivering sound while listening (unplugged, or its sound server gone)."""


@dataclass(frozen=True)
class Words:
    """A line's words in a sound, and where in it they are said (seconds): a sound may join several lines."""

    text: str
    start: float
    end: float

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"words are said from a start to an end, not {self.start}-{self.end}")


class Playback(Protocol):
    @property
    def audio(self) -> Audio:
        """What is being played."""
        ...

    @property
    def words(self) -> tuple[Words, ...]:
        """The words it says, line by line; none for a sound without words (an earcon)."""
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
    def play(self, audio: Audio, words: tuple[Words, ...] = ()) -> Playback: ...


class AudioIn(Protocol):
    def frames(self, during: Playback | None = None, *, before: float = 0.0) -> Iterator[Frame]:
        """What is heard from now on, in frames of `FRAME_BYTES` (16-bit mono at 16 kHz, with what the front end
        judged of each where one ran), preceded by up to `before`
        seconds heard just before the call (speech that began a moment early). Ends when the caller stops reading,
        or when there is nothing more to hear (a script's line is over). `during` is the program's own speech, if
        it is playing: a microphone hears it too; a scripted player waits for it to end."""
        ...
