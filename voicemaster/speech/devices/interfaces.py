"""The audio devices' two small interfaces, how they fail, and which devices there are (sounddevice).

- `AudioOut.play(audio)` starts playing and returns a `Playback`: it tells when the sound has ended and stops it at
  once when the player talks over it (barge-in).
- `AudioIn.listen(timeout, during, decide)` returns one utterance at 16 kHz, or None when nobody spoke within
  `timeout` seconds after the program stopped speaking. Passed the `Playback` of the program's own speech, it listens
  during it too: its echo is ignored, a player speaking up over it stops it and is heard. Passed `decide`, it ends the
  utterance at a short pause when `decide` finds what was heard so far complete (see `speech.hearing`).

`Speaker` (`loudspeaker.py`) and `Microphone` (`microphone.py`) use sounddevice (PortAudio); `FileSink` and
`FileSource` (`file_devices.py`) do the same with WAV files and no clock, for tests and the demo. Every way audio
hardware can fail (no PortAudio library, no device, a device that disappears mid-game) becomes `AudioUnavailable`, with
a message that says what to install or plug in.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from typing import Any, Protocol

from voicemaster.hints import python_extra, system_package
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
