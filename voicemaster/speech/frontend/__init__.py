"""The acoustic front end: what the microphone heard, cleaned before hearing listens to it.

`FrontEnd.process(frame, reference)` (`interface.py`) takes a microphone frame and what the loudspeaker played in step
with it, and returns a `speech.frame.Frame`: our own voice's echo cancelled, the room's noise suppressed, and what the
canceller saw in it (`EchoJudgement`), which the barge-in stage (`speech.barge_in`) judges. The microphone and the
demo's stage each run the pairs they hear through it, so every runner hears through this one path; `PlayedSound`
(`played.py`) is how the loudspeaker hands what it plays to the microphone.

`open_front_end` builds the one the settings ask for (`[speech] echo_cancel`, `noise_suppression`): WebRTC's audio
processing (`webrtc.py`, PyPI `pywebrtc-audio`, with the barge-in filter, `barge_in_filter.py`), or nothing.
"""

from __future__ import annotations

from voicemaster.speech.barge_in.settings import BargeInSettings
from voicemaster.speech.frontend.chunked import CHUNK_SAMPLES
from voicemaster.speech.frontend.interface import FrontEnd, FrontEndUnavailable, Passthrough
from voicemaster.speech.frontend.played import PlayedSound
from voicemaster.speech.frontend.webrtc import WebRtc

__all__ = [
    "CHUNK_SAMPLES",
    "FrontEnd",
    "FrontEndUnavailable",
    "Passthrough",
    "PlayedSound",
    "open_front_end",
    "usable_front_end",
]


def usable_front_end(
    *, echo_cancel: bool, noise_suppression: bool, barge_in_filter: bool = True, settings: BargeInSettings | None = None
) -> tuple[FrontEnd, str | None]:
    """The front end the settings ask for, or none and why (WebRTC's audio processing is not installed): a game
    is still played without it, the echo judged by its level alone."""
    try:
        chosen = open_front_end(
            echo_cancel=echo_cancel,
            noise_suppression=noise_suppression,
            barge_in_filter=barge_in_filter,
            settings=settings,
        )
        return chosen, None
    except FrontEndUnavailable as error:
        return Passthrough(), str(error)


def open_front_end(
    *, echo_cancel: bool, noise_suppression: bool, barge_in_filter: bool = True, settings: BargeInSettings | None = None
) -> FrontEnd:
    """The front end the settings ask for (the `[speech]` switches of the same names); `FrontEndUnavailable` when
    WebRTC's audio processing is not installed."""
    if not (echo_cancel or noise_suppression):
        return Passthrough()
    return WebRtc(
        echo_cancel=echo_cancel, noise_suppression=noise_suppression, barge_in_filter=barge_in_filter, settings=settings
    )
