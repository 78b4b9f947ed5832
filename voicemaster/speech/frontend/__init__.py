"""The acoustic front end: what the microphone heard, cleaned before hearing listens to it.

`FrontEnd.process(frame, reference)` takes a microphone frame and what the loudspeaker played in step with it, and
returns the frame with our own voice's echo cancelled and the room's noise suppressed (`CleanedFrame`), carrying how
much of the microphone's sound was left: the echo gate (`speech.hearing.endpoint.EchoGate`) takes a frame heard over
our own voice for the player's only when the echo canceller left enough of it. The microphone and the demo's stage
each hand it the pairs they hear (`frames.clean`), so every runner hears through this one path; `PlayedSound`
(`played.py`) is how the loudspeaker hands what it plays to the microphone.

`open_front_end` builds the one the settings ask for (`[speech] echo_cancel`, `noise_suppression`): WebRTC's audio
processing (`webrtc.py`, PyPI `pywebrtc-audio`), or nothing where it is not installed.
"""

from __future__ import annotations

from voicemaster.speech.frontend.frames import (
    CHUNK_SAMPLES,
    CleanedFrame,
    FrontEnd,
    FrontEndUnavailable,
    Passthrough,
    open_front_end,
    usable_front_end,
)
from voicemaster.speech.frontend.played import PlayedSound

__all__ = [
    "CHUNK_SAMPLES",
    "CleanedFrame",
    "FrontEnd",
    "FrontEndUnavailable",
    "Passthrough",
    "PlayedSound",
    "open_front_end",
    "usable_front_end",
]
