"""The audio devices' two small interfaces and how they fail.

- `AudioOut.play(audio)` starts playing and returns a `Playback`: it tells when the sound has ended and stops it at
  once when the player talks over it (barge-in).
- `AudioIn.listen(timeout, during, decide)` returns one utterance at 16 kHz, or None when nobody spoke within
  `timeout` seconds after the program stopped speaking. Passed the `Playback` of the program's own speech, it listens
  during it too: its echo is ignored, a player speaking up over it stops it and is heard. Passed `decide`, it ends the
  utterance at a short pause when `decide` finds what was heard so far complete (see `speech.hearing`).

`Speaker` (`loudspeaker.py`) and `Microphone` (`microphone.py`) use sounddevice (`portaudio.py`, which also lists
the devices there are); `FileSink` and `FileSource` (`files.py`) do the same with WAV files and no clock, for tests
and the demo. Every way audio
hardware can fail (no PortAudio library, no device, a device that disappears mid-game) becomes `AudioUnavailable`, with
a message that says what to install or plug in.
"""

from __future__ import annotations

from typing import Protocol

from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.endpoint import Decide

STALL_SECONDS = 1.0
"""A running stream that delivers or takes no audio for this long has lost its device."""


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
