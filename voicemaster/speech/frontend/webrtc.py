"""WebRTC's audio processing (PyPI `pywebrtc-audio`, Apache-2.0): AEC3, the echo canceller of Chrome and every WebRTC
call, with the loudspeaker's signal as reference; its noise suppressor; the high-pass filter AEC3 wants before it.
Chosen over the other candidates by `voicemaster bench frontend` and `bench asr --frontend`
(docs/decisions/010-echo-canceller.md, 011-noise-suppression.md)."""

from __future__ import annotations

from typing import Any

from voicemaster.hints import python_extra
from voicemaster.speech.barge_in.settings import BargeInSettings
from voicemaster.speech.frontend.barge_in_filter import BargeInFilter
from voicemaster.speech.frontend.chunked import Chunked, Samples
from voicemaster.speech.frontend.interface import FrontEndUnavailable
from voicemaster.speech.signal import RECOGNITION_RATE

NOISE_LEVEL = 1
"""WebRTC's suppression level 0-3 (6, 12, 18, 21 dB): the mildest that helped; deeper ones cost words."""


def _module() -> Any:
    try:
        import pywebrtc_audio
    except ImportError:
        raise FrontEndUnavailable(f"WebRTC's audio processing is not installed: {python_extra('audio')}.") from None
    return pywebrtc_audio


class WebRtc(Chunked):
    def __init__(
        self,
        *,
        echo_cancel: bool,
        noise_suppression: bool,
        barge_in_filter: bool = True,
        settings: BargeInSettings | None = None,
    ) -> None:
        """`barge_in_filter`: a filter of our own tells a player over our voice from it (`barge_in_filter.py`);
        without it the canceller's residual alone does."""
        settings = settings or BargeInSettings()
        processor = _module().AudioProcessor(
            sample_rate=RECOGNITION_RATE,
            echo_cancellation=echo_cancel,
            noise_suppression=noise_suppression,
            high_pass_filter=echo_cancel,
            ns_level=NOISE_LEVEL,
        )
        parts = [*(["echo cancellation"] if echo_cancel else []), *(["noise suppression"] if noise_suppression else [])]

        def step(heard: Samples, played: Samples) -> Samples:
            cleaned: Samples = processor.process(heard, played) if echo_cancel else processor.process(heard)
            return cleaned

        judge = BargeInFilter(settings.filter) if echo_cancel and barge_in_filter else None
        heard_over = ", players over our voice heard by a barge-in filter" if judge is not None else ""
        name = f"WebRTC {' and '.join(parts)}{heard_over}"
        super().__init__(name, step, cancels_echo=echo_cancel, judge=judge, settings=settings)
