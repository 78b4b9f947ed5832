"""voicemaster: an offline, hands-free, voice-driven quizmaster."""

import os

# One BLAS thread, set before numpy is first imported (every entry point imports this package first);
# OPENBLAS_NUM_THREADS set by the user wins. Whisper's decoder is numpy here, its products are small, and OpenBLAS's
# busy-waiting workers beside the voice rendering ahead oversubscribe the cores: one thread answers several times
# sooner (`voicemaster bench live`; docs/decisions/004-one-blas-thread.md).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
