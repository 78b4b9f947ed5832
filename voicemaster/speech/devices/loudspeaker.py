"""The speaker: plays through a sounddevice (PortAudio) output, one sound at a time, and tells when a sound has
ended, been stopped (barge-in) or lost its device (`devices.AudioOut`, `devices.Playback`).

A stream that takes no sound for `STALL_SECONDS` is a stall or an unplug. Given `present`
(`speech.devices.capture.speaker_present`), the device's presence tells them apart, not the time: a speaker still
there was stalled (the process stopped by Ctrl-Z or SIGSTOP, a suspend, a loaded machine) and the sound goes on;
only one seen gone, or stuck through `STUCK_LOOKS` looks, ends it. Without `present`, the time alone decides.

Given `played` (`speech.frontend.PlayedSound`), every sample handed to the device is handed there too, at 16 kHz, as
it is handed over: the echo canceller's reference, taken by the microphone in step.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import (
    STALL_SECONDS,
    AudioUnavailable,
    Playback,
    Words,
)
from voicemaster.speech.devices.portaudio import NO_DEVICE_HINT, sounddevice, unavailable
from voicemaster.speech.frontend import PlayedSound
from voicemaster.speech.signal import RECOGNITION_RATE, resample

STUCK_LOOKS = 10
"""A speaker still there that takes no sound through this many looks in a row (about as many seconds) is stuck."""
OUTPUT_LATENCY = 0.1
"""Seconds of sound buffered ahead for the speaker: PortAudio's usual 35 ms through PulseAudio underran (audible gaps)
while the microphone was being analysed; stopping is still instant, as a stop discards the buffer."""
SHORTEST_STREAM_SECONDS = 0.35
"""A sound shorter than this is played with silence after it up to this length: a stream that ended within its first
buffer was never heard through PulseAudio (`bench live`: the game logged its 70 ms heard cue at each turn, the
speaker played none)."""


class Speaker:
    """Plays through a sounddevice output (None: the system default). One voice at a time: a new sound stops the
    one before."""

    def __init__(
        self,
        device: int | str | None = None,
        present: Callable[[], bool | None] | None = None,
        played: PlayedSound | None = None,
    ) -> None:
        """`present` tells whether the speaker is there (True), gone (False) or cannot be told (None); `played` is
        handed what is played (the echo canceller's reference)."""
        self.device = device
        self._present = present
        self._played = played
        self._current: _SpeakerPlayback | None = None

    @property
    def stalled(self) -> float:
        """The longest stall the last sound came through (seconds)."""
        return self._current.stalled if self._current is not None else 0.0

    def play(self, audio: Audio, words: tuple[Words, ...] = ()) -> Playback:
        if self._current is not None:
            self._current.stop()
        self._current = _SpeakerPlayback(sounddevice(), audio, self.device, self._present, self._played, words)
        return self._current


class _SpeakerPlayback:
    def __init__(
        self,
        sd: Any,
        audio: Audio,
        device: int | str | None,
        present: Callable[[], bool | None] | None = None,
        played: PlayedSound | None = None,
        words: tuple[Words, ...] = (),
    ) -> None:
        self.audio = audio
        self.words = words
        self._sd = sd
        self._present = present
        self._played = played
        self._reference = resample(audio, RECOGNITION_RATE).samples if played is not None else b""
        self._referenced = 0
        """Bytes of `_reference` handed to `played` so far."""
        self._looks = 0
        self.stalled = 0.0
        self._last_call: float | None = None
        rate = self._device_rate(audio.rate, device)
        self._data = _lasting(resample(audio, rate).samples, rate)
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
            raise unavailable("speaker", error) from None
        try:
            self._stream.start()
        except sd.PortAudioError as error:
            self._close()
            raise unavailable("speaker", error) from None

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
            raise unavailable("speaker", error) from None

    def _fill(self, out: Any, frames: int, at: Any, status: Any) -> None:
        # PortAudio's thread: copy and count, nothing that could block.
        del frames, at, status
        called = time.monotonic()
        if self._last_call is not None:  # called every few ms: a longer gap is the process or the device stalled
            self.stalled = max(self.stalled, called - self._last_call)
        self._last_call = called
        size = len(out)
        chunk = self._data[self._cursor : self._cursor + size]
        out[: len(chunk)] = chunk
        out[len(chunk) :] = bytes(size - len(chunk))
        self._cursor += len(chunk)
        if self._played is not None:
            # The same stretch at 16 kHz: the cursor's place in the sound, in the reference's samples.
            upto = 2 * (self._cursor // 2 * RECOGNITION_RATE // self._rate)
            self._played.add(self._reference[self._referenced : upto])
            self._referenced = upto
        if chunk:  # progress, not calls: a broken ALSA link can call back forever asking for nothing
            self._last_fill = time.monotonic()
            self._looks = 0
        if self._first_fill is None:
            self._first_fill = self._last_fill
        if self._cursor >= len(self._data):
            raise self._sd.CallbackStop

    def position(self) -> float:
        return min(self._cursor / 2 / self._rate, self.audio.seconds)

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
        quiet = time.monotonic() - self._last_fill
        if quiet > STALL_SECONDS + drain:
            # Still there, or it cannot be told (a server too loaded to answer in time): a stall, given another
            # while to go on, until it has lasted.
            if self._present is not None and self._looks < STUCK_LOOKS and self._present() is not False:
                self._looks += 1
                self.stalled = max(self.stalled, quiet)
                self._last_fill = time.monotonic()
                return
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


def _lasting(samples: bytes, rate: int) -> bytes:
    """`samples` (16-bit mono at `rate`), with silence after them up to `SHORTEST_STREAM_SECONDS`."""
    return samples + bytes(max(0, 2 * round(SHORTEST_STREAM_SECONDS * rate) - len(samples)))
