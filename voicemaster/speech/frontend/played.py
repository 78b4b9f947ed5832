"""What the loudspeaker played, handed to the microphone in step: the echo canceller's reference.

The loudspeaker adds the samples it hands its device (at 16 kHz) as it hands them; the microphone takes as many as
it records, as it records them, on the sound system's threads. Both run on the sound card's clock, so what is taken
with a block was played about when that block was recorded, give or take the device's buffers; the echo canceller
finds the rest of the delay itself. Nothing playing, the microphone takes silence.
"""

from __future__ import annotations

import threading

from voicemaster.speech.signal import RECOGNITION_RATE

MOST_SECONDS = 1.0
"""Played sound waiting longer than this (a microphone that is not recording) is dropped, oldest first: an echo
canceller follows delays of a few hundred milliseconds, not more."""


class PlayedSound:
    """A first-in first-out queue of played 16-bit samples at 16 kHz, safe between two threads."""

    def __init__(self) -> None:
        self._waiting = bytearray()
        self._lock = threading.Lock()
        self._most = 2 * round(MOST_SECONDS * RECOGNITION_RATE)
        self._branches: list[PlayedSound] = []

    def add(self, samples: bytes) -> None:
        """Samples handed to the loudspeaker (called on its audio thread: never blocks for long)."""
        with self._lock:
            self._waiting += samples
            if len(self._waiting) > self._most:
                del self._waiting[: len(self._waiting) - self._most]
            branches = list(self._branches)
        for branch in branches:
            branch.add(samples)

    def branch(self, behind_seconds: float) -> PlayedSound:
        """A queue of its own for a second microphone (a phone), handed everything played from now on, its first
        `behind_seconds` silence; taken at that microphone's own pace, so one that lags holds back no other. The
        silence lasts until the queue first runs dry (`take` gives silence while nothing waits). `close` it when
        that microphone has gone."""
        made = PlayedSound()
        made._waiting += bytes(2 * round(behind_seconds * RECOGNITION_RATE))
        with self._lock:
            self._branches.append(made)
        return made

    def close(self, branch: PlayedSound) -> None:
        """`branch` is handed nothing more."""
        with self._lock:
            if branch in self._branches:
                self._branches.remove(branch)

    def take(self, size: int) -> bytes:
        """`size` bytes of what was played since the last take, silence where nothing was."""
        with self._lock:
            taken = bytes(self._waiting[:size])
            del self._waiting[:size]
        return taken + bytes(size - len(taken))
