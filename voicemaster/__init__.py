"""voicemaster: an offline, hands-free, voice-driven quizmaster."""

import os

# One BLAS thread, set before numpy is first imported (every entry point, `voicemaster` and `python -m voicemaster`,
# imports this package first); OPENBLAS_NUM_THREADS set by the user wins. Whisper's decoder is numpy here
# (speech/hearing/whisper/model.py) and numpy's OpenBLAS starts a worker per core that busy-waits between products;
# the decoder's products are small, and beside the voice rendering ahead (onnxruntime's own threads) and the other
# programs of the machine the workers oversubscribe the cores and spin. Issue 27, `voicemaster bench live --languages
# de --utterances 5`, 2 cores, load average 5-9 (other sessions), each setting twice (median felt latency from the end
# of speech to the reply / the game's CPU per decision): default threads 8.1 s / 4.4 s and 2.4 s / 1.9 s; with one
# busy-loop process beside it 8.2 s / 4.1 s and 5.7 s / 2.6 s; two threads 7.5 s / 4.8 s, busy 6.4 s / 4.1 s; one
# thread 1.4 s / 0.53 s and 1.3 s / 0.60 s, busy 1.9 s / 0.59 s and 1.7 s / 0.62 s. English, Kokoro's quizmaster
# rendering ahead beside the decoder (`--languages en --utterances 6`, load average 3-5): two threads (the default on
# two cores) 3.6 s / 3.2 s, one thread 1.0 s / 0.71 s.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
