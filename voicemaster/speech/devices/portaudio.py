"""PortAudio through sounddevice, at the edge: the module itself (or `AudioUnavailable` saying what to install),
the devices there are, and looking for them again. `Speaker` and `Microphone` open their streams through it."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from typing import Any

from voicemaster.hints import python_extra, system_package
from voicemaster.speech.devices.interfaces import AudioUnavailable


def sounddevice() -> Any:
    """The sounddevice module (untyped), or `AudioUnavailable` saying what to install."""
    try:
        import sounddevice as module
    except OSError:
        raise AudioUnavailable(f"The PortAudio library is missing: {system_package('portaudio')}.") from None
    except ImportError:
        raise AudioUnavailable(f"sounddevice is not installed: {python_extra('audio')}.") from None
    return module


NO_DEVICE_HINT = (
    "plug in a headset or USB microphone and speaker; on Linux check that `pactl info` reaches a sound server "
    "(PulseAudio or PipeWire) or that `arecord -l` / `aplay -l` list a sound card; then run `voicemaster devices`"
)


def unavailable(what: str, error: Exception) -> AudioUnavailable:
    """A device that could not be opened or was lost, with what to plug in or check."""
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
    sd = sounddevice()
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
    sd = sounddevice()
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
    sd = sounddevice()
    sd._terminate()
    sd._initialize()
