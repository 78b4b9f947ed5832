"""The acoustic front ends compared (`bench asr --frontend`, `bench frontend`): the product's (WebRTC's audio
processing through PyPI `pywebrtc-audio`) with each part alone, and the other candidates that install here:

- `livekit`: the same WebRTC audio processing module as PyPI `livekit` ships it (`rtc.AudioProcessingModule`).
- `speex`: Speex's echo canceller (PyPI `speexdsp`, built against Debian's `libspeexdsp-dev`), no suppressor.
- `rnnoise`: RNNoise's noise suppression (PyPI `pyrnnoise`'s library, at 48 kHz), no echo canceller.

Each is a `FrontEnd` fed 10 ms steps, so all are compared on one footing; a candidate whose package is missing
raises `FrontEndUnavailable` with what to install.
"""

from __future__ import annotations

import ctypes
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from voicemaster.speech.audio import Audio
from voicemaster.speech.frame import FRAME_BYTES
from voicemaster.speech.frontend import FrontEnd, FrontEndUnavailable, Passthrough
from voicemaster.speech.frontend.chunked import CHUNK_SAMPLES, Chunked, Samples
from voicemaster.speech.frontend.webrtc import WebRtc
from voicemaster.speech.signal import RECOGNITION_RATE, resample
from voicemaster_lab.asr.samples import Sample
from voicemaster_lab.corpora import echo


def _livekit() -> FrontEnd:
    try:
        from livekit import rtc
    except ImportError:
        raise FrontEndUnavailable("livekit is not installed: `pip install livekit`") from None
    module = rtc.AudioProcessingModule(echo_cancellation=True, noise_suppression=True, high_pass_filter=True)

    def step(heard: Samples, played: Samples) -> Samples:
        far = rtc.AudioFrame(played.tobytes(), RECOGNITION_RATE, 1, CHUNK_SAMPLES)
        module.process_reverse_stream(far)
        near = rtc.AudioFrame(heard.tobytes(), RECOGNITION_RATE, 1, CHUNK_SAMPLES)
        module.process_stream(near)
        return np.frombuffer(bytes(near.data), dtype=np.int16)

    return Chunked("livekit (WebRTC) echo cancellation and noise suppression", step, cancels_echo=True)


SPEEX_TAIL = 2048
"""Speex's echo filter length in samples (128 ms): the longer 4096 cancelled less in the same rooms."""


def _speex() -> FrontEnd:
    try:
        import speexdsp
    except ImportError:
        raise FrontEndUnavailable(
            "speexdsp is not installed: `apt-get install swig libspeexdsp-dev`, then `pip install speexdsp`"
        ) from None
    canceller: Any = speexdsp.EchoCanceller.create(CHUNK_SAMPLES, SPEEX_TAIL, RECOGNITION_RATE)

    def step(heard: Samples, played: Samples) -> Samples:
        return np.frombuffer(canceller.process(heard.tobytes(), played.tobytes()), dtype=np.int16)

    return Chunked("Speex echo cancellation", step, cancels_echo=True)


def _rnnoise() -> FrontEnd:
    # pyrnnoise's package imports its file readers (audiolab, matplotlib) on import; its library alone is used here.
    found = importlib.util.find_spec("pyrnnoise")
    if found is None or not found.submodule_search_locations:
        raise FrontEndUnavailable("pyrnnoise is not installed: `pip install --no-deps pyrnnoise`")
    library = ctypes.CDLL(str(Path(next(iter(found.submodule_search_locations))) / "librnnoise.so"))
    library.rnnoise_create.restype = ctypes.c_void_p
    library.rnnoise_create.argtypes = [ctypes.c_void_p]
    library.rnnoise_process_frame.restype = ctypes.c_float
    floats = ctypes.POINTER(ctypes.c_float)
    library.rnnoise_process_frame.argtypes = [ctypes.c_void_p, floats, floats]
    state = library.rnnoise_create(None)
    up = _Resampler(3)

    def step(heard: Samples, played: Samples) -> Samples:
        del played
        wide = np.ascontiguousarray(up.up(heard.astype(np.float32)), dtype=np.float32)
        pointer = wide.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        library.rnnoise_process_frame(state, pointer, pointer)
        return np.asarray(np.clip(np.round(up.down(wide)), -32768, 32767), dtype=np.int16)

    return Chunked("RNNoise noise suppression", step, cancels_echo=False)


class _Resampler:
    """16 kHz to 48 kHz and back in 10 ms steps, with a low-pass filter whose state runs on between steps."""

    def __init__(self, factor: int) -> None:
        from scipy import signal

        self._signal = signal
        self._factor = factor
        self._taps = signal.firwin(48 * factor + 1, 1 / factor)
        self._up_state = np.zeros(len(self._taps) - 1)
        self._down_state = np.zeros(len(self._taps) - 1)

    def up(self, samples: Samples | Any) -> Any:
        stuffed = np.zeros(len(samples) * self._factor)
        stuffed[:: self._factor] = samples * self._factor
        out, self._up_state = self._signal.lfilter(self._taps, 1.0, stuffed, zi=self._up_state)
        return out

    def down(self, samples: Any) -> Any:
        out, self._down_state = self._signal.lfilter(self._taps, 1.0, samples, zi=self._down_state)
        return out[:: self._factor]


FRONT_ENDS: dict[str, Callable[[], FrontEnd]] = {
    "none": Passthrough,
    "webrtc": lambda: WebRtc(echo_cancel=True, noise_suppression=True),
    "webrtc-aec": lambda: WebRtc(echo_cancel=True, noise_suppression=False),
    "webrtc-aec-residual": lambda: WebRtc(echo_cancel=True, noise_suppression=False, barge_in_filter=False),
    "webrtc-ns": lambda: WebRtc(echo_cancel=False, noise_suppression=True),
    "livekit": _livekit,
    "speex": _speex,
    "rnnoise": _rnnoise,
}
"""Each front end compared, by the name `--frontend` takes."""


PRE_ROLL_SECONDS = 0.3
"""Kept before the player's onset in an echo scene: what the endpointer keeps before speech (`pre_roll_seconds`)."""


def cleaned_samples(samples: Sequence[Sample], name: str, folder: Path) -> list[Sample]:
    """`samples` as the front end `name` leaves them, written into `folder` (made anew each run: a front end's
    output changes with its settings). An echo scene (`corpora.echo`) is fed its reference and cut where the
    endpointer would begin the utterance, whatever the front end; other recordings are fed silence as reference."""
    out = folder / f"frontend-{name}"
    made: list[Sample] = []
    for sample in samples:
        audio = cleaned(sample.path, FRONT_ENDS[name]())
        target = out / sample.condition.replace(" ", "-") / f"{sample.language}-{sample.path.parent.name}-{sample.file}"
        target.parent.mkdir(parents=True, exist_ok=True)
        audio.write(target)
        made.append(replace(sample, path=target))
    return made


def cleaned(path: Path, front_end: FrontEnd) -> Audio:
    """A recording through `front_end` in microphone frames; an echo scene with its reference, from its onset."""
    heard = resample(Audio.read(path), RECOGNITION_RATE).samples
    reference_path = echo.reference_of(path)
    played = Audio.read(reference_path).samples if reference_path.is_file() else b""
    size = FRAME_BYTES
    heard += bytes(-len(heard) % size)
    played = played[: len(heard)] + bytes(max(0, len(heard) - len(played)))
    out = b"".join(
        front_end.process(heard[at : at + size], played[at : at + size]).samples for at in range(0, len(heard), size)
    )
    if reference_path.is_file():
        out = out[2 * round((echo.LEAD_SECONDS - PRE_ROLL_SECONDS) * RECOGNITION_RATE) :]
    return Audio(out, RECOGNITION_RATE)
