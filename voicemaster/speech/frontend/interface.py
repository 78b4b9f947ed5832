"""The front end's interface: a microphone frame and the loudspeaker's reference in, a `Frame` out.

Pure of devices: a front end is fed pairs of equal length (16-bit mono at 16 kHz) and keeps its own state (an echo
canceller learns the room as it goes), so the same one serves a microphone, the demo's stage and a bench reading
files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from voicemaster.speech.frame import Frame


class FrontEndUnavailable(RuntimeError):
    """The front end asked for cannot run here; the message says what to install."""


class FrontEnd(Protocol):
    @property
    def name(self) -> str:
        """What it does, as `voicemaster devices` says it."""
        ...

    @property
    def cancels_echo(self) -> bool: ...

    def process(self, frame: bytes, reference: bytes) -> Frame:
        """`frame` cleaned, given `reference`: what the loudspeaker played in step with it (same length; silence
        when nothing played)."""
        ...


@dataclass(frozen=True)
class Passthrough:
    """No front end: frames pass as they are."""

    name: str = "off"
    cancels_echo: bool = False

    def process(self, frame: bytes, reference: bytes) -> Frame:
        del reference
        return Frame(frame)
