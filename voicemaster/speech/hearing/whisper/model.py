"""Whisper base: the encoder, and a decoder that steps many token prefixes at once, whatever runs the arithmetic.

The recognizer scores a few hundred phrases per utterance. What they share is computed once: the encoder output and
each layer's cross-attention keys and values per utterance (`Whisper.listen`), and a common prefix of tokens once for
all phrases that start with it (the caller walks a token trie one depth at a time and hands this module one batch
of prefixes per depth, each extending a prefix of the previous batch).

The arithmetic is a `Runtime`'s: the game's is CTranslate2's encoder and onnxruntime's decoder graphs, float32 both
(`runtime.py`, graphs made by set-up: `runtime_graphs.py`); our own float32 numpy (`runtime_numpy.py`,
$VOICEMASTER_WHISPER_RUNTIME=numpy) is the reference the tests and `runtime_ab` compare it against. Why and the A/B:
docs/decisions/026-float32-decoder-graphs-the-default.md.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from voicemaster.speech.hearing.whisper.runtime_protocol import Array, AudioKeys, First, Prefixes, Runtime, Tokens

__all__ = [
    "DEFAULT_RUNTIME",
    "RUNTIMES",
    "RUNTIME_ENVIRONMENT",
    "Array",
    "AudioKeys",
    "First",
    "Prefixes",
    "Runtime",
    "Tokens",
    "Whisper",
]

RUNTIME_ENVIRONMENT = "VOICEMASTER_WHISPER_RUNTIME"
"""`numpy`: the reference runtime instead of the game's (`runtime_ab` compares them); unset, the game's."""
RUNTIMES = ("onnx", "numpy")
DEFAULT_RUNTIME = "onnx"
"""What a game runs: it decides as the numpy reference on every corpus of `bench asr` at a fraction of its CPU
(decision 026)."""


class Whisper:
    """The model, loaded once (about a second) for a game; every method is pure given its inputs."""

    def __init__(self, model_dir: Path, runtime: str | None = None, *, int8: bool = False) -> None:
        """`runtime`: "onnx" (CTranslate2 and onnxruntime) or "numpy" (the reference); None:
        $VOICEMASTER_WHISPER_RUNTIME, else `DEFAULT_RUNTIME`. For onnx, a model whose derived graphs are missing,
        damaged or stale is a `RecognizerUnavailable` saying what to run. `int8`: onnx's all-int8 encoder and graphs,
        the waiting quizmaster's (`runtime_graphs.WAITING`); the numpy reference has only float32."""
        chosen = runtime or os.environ.get(RUNTIME_ENVIRONMENT) or DEFAULT_RUNTIME
        if chosen not in RUNTIMES:
            raise ValueError(f"{RUNTIME_ENVIRONMENT}={chosen!r}: expected one of {', '.join(RUNTIMES)}")
        self.runtime_name = chosen
        self.runtime: Runtime
        if chosen == "numpy":
            from voicemaster.speech.hearing.whisper.runtime_numpy import NumpyRuntime

            self.runtime = NumpyRuntime(model_dir)
        else:
            from voicemaster.speech.hearing.whisper.runtime import OnnxRuntime
            from voicemaster.speech.hearing.whisper.runtime_graphs import GAME, WAITING

            self.runtime = OnnxRuntime(model_dir, precision=WAITING if int8 else GAME)

    def encode(self, features: Array) -> Array:
        """Log-mel features (80, frames) to the encoder output (frames / 2, 512)."""
        return self.runtime.encode(features)

    def listen(self, encoded: Array) -> AudioKeys:
        """The encoder output as each decoder layer's cross-attention keys and values, once per utterance."""
        return self.runtime.listen(encoded)

    def start(self, audio: AudioKeys, tokens: list[int], at: Sequence[int] = (-1,)) -> tuple[Prefixes, Array]:
        """The decoder run over a whole first prefix (the start-of-transcript tokens): its keys and values, and the
        log-probabilities of the next token after the positions `at` (by default, after the prefix); worked out once
        per utterance (neither is changed by its users)."""
        key = (tuple(tokens), tuple(at))
        if key not in audio.starts:
            audio.starts[key] = self.runtime.first(audio, tokens, at)
        return audio.starts[key]

    def starts(self, audio: AudioKeys, firsts: Sequence[First]) -> list[tuple[Prefixes, Array]]:
        """`start` for several first prefixes (a search's free reading and prompt, decision 034; each language's
        starts of a waiting reader's searches): those not yet worked out on this utterance in one run of the decoder,
        whose weights a run reads whatever its rows; kept as `start` keeps them."""
        keys = [(tuple(tokens), tuple(at)) for tokens, at in firsts]
        missing = list(dict.fromkeys(key for key in keys if key not in audio.starts))
        if len(missing) == 1:
            self.start(audio, list(missing[0][0]), missing[0][1])
        elif missing:
            for key, made in zip(missing, self.runtime.firsts(audio, missing), strict=True):
                audio.starts[key] = made
        return [audio.starts[key] for key in keys]

    def step(self, audio: AudioKeys, prefixes: Prefixes, tokens: Tokens) -> tuple[Prefixes, Array]:
        """Each prefix extended by one token: the longer prefixes, and the log-probabilities of the token after each."""
        ((longer, logprobs),) = self.step_groups(audio, [(prefixes, tokens)])
        return longer, logprobs

    def step_groups(self, audio: AudioKeys, groups: Sequence[tuple[Prefixes, Tokens]]) -> list[tuple[Prefixes, Array]]:
        """`step` for groups of prefixes that begin differently (the phrases after a prompt, the free reading after
        none): each group attends to its own start, and everything else runs as one batch."""
        return self.runtime.step_groups(audio, groups)
