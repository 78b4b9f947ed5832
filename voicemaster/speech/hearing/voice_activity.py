"""Whether a frame holds speech: the `VoiceActivity` protocol, and the Silero model that faster-whisper ships
(`SileroVad`, on onnxruntime) behind it."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from voicemaster.hints import python_extra
from voicemaster.speech import onnx_runtime
from voicemaster.speech.devices.interfaces import AudioUnavailable
from voicemaster.speech.frame import FRAME_SAMPLES


class VoiceActivity(Protocol):
    def probability(self, frame: bytes) -> float:
        """How likely one frame (512 samples of 16-bit mono at 16 kHz) is speech, 0-1."""
        ...

    def reset(self) -> None:
        """Forget the frames seen so far: the next frame starts a new recording."""
        ...


class VoiceActivityUnavailable(AudioUnavailable):
    """The voice-activity model or its runtime is missing, so nothing can be listened to; the message says what to
    install."""


class SileroVad:
    """The Silero voice-activity model (v6, ONNX) that faster-whisper ships, run frame by frame on onnxruntime.

    Streaming one frame at a time with the recurrent state and the previous frame's last 64 samples as context gives
    exactly the probabilities of faster-whisper's batch call; one frame takes well under a millisecond.
    """

    CONTEXT = 64

    def __init__(self, model: Path | None = None) -> None:
        try:
            onnxruntime = onnx_runtime.onnxruntime()  # its telemetry off
        except ImportError:
            raise VoiceActivityUnavailable(f"Detecting speech needs onnxruntime: {python_extra('whisper')}.") from None
        path = model or bundled_silero_model()
        options = onnxruntime.SessionOptions()
        # One thread: a frame is tiny, and the recognizer wants the cores.
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = 1
        options.log_severity_level = 3
        try:
            self._session: Any = onnxruntime.InferenceSession(
                str(path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # onnxruntime raises its own untyped errors for a missing or broken file
            raise VoiceActivityUnavailable(f"The voice-activity model {path} could not be loaded: {error}") from None
        self.reset()

    def reset(self) -> None:
        self._h = np.zeros((1, 1, 128), dtype=np.float32)
        self._c = np.zeros((1, 1, 128), dtype=np.float32)
        self._context = np.zeros(self.CONTEXT, dtype=np.float32)

    def probability(self, frame: bytes) -> float:
        samples = np.frombuffer(frame, dtype="<i2").astype(np.float32) / 32768.0
        if len(samples) != FRAME_SAMPLES:
            raise ValueError(f"the Silero model takes frames of {FRAME_SAMPLES} samples, got {len(samples)}")
        window = np.concatenate([self._context, samples])[np.newaxis, :]
        speech, self._h, self._c = self._session.run(None, {"input": window, "h": self._h, "c": self._c})
        self._context = samples[-self.CONTEXT :]
        return float(np.asarray(speech).ravel()[0])


def bundled_silero_model() -> Path:
    """faster-whisper's copy of the model, found without importing faster-whisper (that loads CTranslate2)."""
    spec = importlib.util.find_spec("faster_whisper")
    if spec is None or not spec.submodule_search_locations:
        raise VoiceActivityUnavailable(
            f"Detecting speech uses the Silero model that faster-whisper ships: {python_extra('whisper')}."
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "assets" / "silero_vad_v6.onnx"
    if not path.is_file():
        raise VoiceActivityUnavailable(f"{path} is missing: reinstall faster-whisper (1.1 or newer).")
    return path
