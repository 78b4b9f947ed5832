"""onnxruntime, the way every ONNX model here is run (Kokoro's voice, the Silero voice-activity detector): with its
telemetry off.

onnxruntime 1.2x and later (official builds) start Microsoft's 1DS telemetry when they initialize: a persistent
device id and an event queue with the OS and Python's path under `$XDG_CACHE_HOME/Microsoft/DeveloperTools/
.onnxruntime/`, to be sent over HTTPS. voicemaster plays offline and keeps nothing about its players, so
`ORT_DISABLE_TELEMETRY=1` is set before onnxruntime first loads (which stops the device id, the queue and the
uploader for the whole process), and its events are switched off through its own API as well. Import onnxruntime, and
what imports it (kokoro-onnx), only through `onnxruntime()` here.
"""

from __future__ import annotations

import os
from typing import Any

TELEMETRY_VARIABLE = "ORT_DISABLE_TELEMETRY"


def onnxruntime() -> Any:
    """The onnxruntime module, its telemetry off (ImportError where it is not installed)."""
    os.environ[TELEMETRY_VARIABLE] = "1"  # read once, when its library initializes: before the first import
    import onnxruntime as runtime

    quiet = getattr(runtime, "disable_telemetry_events", None)  # older versions have no telemetry to turn off
    if quiet is not None:
        quiet()
    return runtime
