"""Whisper on maintained runtimes, the game's: CTranslate2's float32 encoder on the installed `model.bin`, and the
decoder as onnxruntime float32 graphs set-up made from the same weights (`runtime_graphs.py`); the waiting
quizmaster's the same in int8 (`runtime_graphs.WAITING`).

CTranslate2 runs the encoder on a window sized to the utterance, as the numpy reference does; its Whisper API cannot
score arbitrary token prefixes, so the decoder is ours: one graph turns the encoder output into each layer's
cross-attention keys and values, another runs a batch of new tokens against keys already worked out. Our search, trie
and decision stay as they are around `model.Whisper`. How many cores a decision takes is `speech.cores`'s to say.
Figures: docs/decisions/020-whisper-on-maintained-runtimes.md, 026-float32-decoder-graphs-the-default.md.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from voicemaster.models.derived import problem
from voicemaster.models.manifest import ModelError, load_manifest
from voicemaster.speech import cores
from voicemaster.speech.hearing.recognition import RecognizerUnavailable
from voicemaster.speech.hearing.whisper.runtime_graphs import GAME, MADE_BY, WAITING, WIDTH, Precision
from voicemaster.speech.hearing.whisper.runtime_protocol import Array, AudioKeys, First, Prefixes, Tokens
from voicemaster.speech.onnx_runtime import onnxruntime

MODEL_NAME = "whisper-base"
"""The manifest's entry whose derived files these are."""
ENCODER_COMPUTE = "float32"
"""CTranslate2's compute type for the encoder (docs/decisions/020-whisper-on-maintained-runtimes.md)."""
SHUT = -np.inf
"""A mask's value where a row may not attend."""


class OnnxRuntime:
    """The encoder on CTranslate2, the decoder on onnxruntime; a session per number of cores a decision takes
    (`speech.cores.split_here`): a session's threads are fixed when it is opened."""

    def __init__(self, model_dir: Path, *, precision: Precision = GAME) -> None:
        """`precision`: which of set-up's graphs beside the model (`Precision.files`), checked against their record;
        all int8 (`runtime_graphs.WAITING`, the waiting quizmaster's) takes CTranslate2's int8 encoder too."""
        self.listen_file, self.decode_file = precision.files
        _check_graphs(model_dir, precision.files)
        self.model_dir = model_dir
        try:
            import ctranslate2
        except ImportError:
            raise RecognizerUnavailable(
                "CTranslate2 is not installed: pip install 'voicemaster[whisper]' (or run ./scripts/setup.sh)."
            ) from None
        self._ctranslate2 = ctranslate2
        self._sessions: dict[tuple[str, int], Any] = {}
        # The one-core sessions are opened now, not at the first decision. Two-core ones only when a bench asks for
        # them (`cores.second_core_free`): a game decides on one core (decision 023), and a second copy of the float32
        # graphs would hold some 200 MB more.
        self._session(self.listen_file, 1)
        self._session(self.decode_file, 1)
        # The game's encoder in float32: CTranslate2's int8 encoder changed people's decisions and took one wrong
        # meaning, its float32 keeps them (decision 020). One thread: a second float32 copy of the model would cost
        # 290 MB.
        encoder = "int8" if precision == WAITING else ENCODER_COMPUTE
        self._encoder = ctranslate2.models.Whisper(str(model_dir), device="cpu", compute_type=encoder, intra_threads=1)
        outputs = self._session(self.decode_file, 1).get_outputs()
        self.layers = sum(1 for output in outputs if output.name.startswith("keys_"))

    def encode(self, features: Array) -> Array:
        window = self._ctranslate2.StorageView.from_array(np.ascontiguousarray(features[None]))
        encoded: Array = np.asarray(self._encoder.encode(window, to_cpu=True))[0]
        return encoded

    def listen(self, encoded: Array) -> AudioKeys:
        outputs = self._session(self.listen_file, _cores()).run(None, {"encoded": np.ascontiguousarray(encoded)})
        return AudioKeys(tuple(outputs[0::2]), tuple(outputs[1::2]))

    def first(self, audio: AudioKeys, tokens: list[int], at: Sequence[int]) -> tuple[Prefixes, Array]:
        ((prefixes, logprobs),) = self.firsts(audio, [(tokens, at)])
        return prefixes, logprobs

    def firsts(self, audio: AudioKeys, firsts: Sequence[First]) -> list[tuple[Prefixes, Array]]:
        # The prefixes side by side as one batch of new tokens, each attending causally to its own tokens only; no
        # context and no earlier keys: one masked column each stands in, as the graph's shapes want one. One prefix
        # gives the very inputs a run of its own would.
        sizes = [len(tokens) for tokens, _ in firsts]
        bounds = np.cumsum([0, *sizes])
        n = int(bounds[-1])
        mask = np.full((n, 1 + n + 1), SHUT, dtype=np.float32)
        for size, begin in zip(sizes, bounds, strict=False):
            causal = np.triu(np.full((size, size), SHUT, dtype=np.float32), k=1)
            mask[begin : begin + size, 1 + begin : 1 + begin + size] = causal
        tokens = [token for first, _ in firsts for token in first]
        positions = np.concatenate([np.arange(size) for size in sizes])
        rows = [
            int(begin) + row % size for (_, at), size, begin in zip(firsts, sizes, bounds, strict=False) for row in at
        ]
        nothing_shared = np.zeros((1, WIDTH), dtype=np.float32)
        nothing_own = np.zeros((n, 1, WIDTH), dtype=np.float32)
        feeds = self._feeds(audio, tokens, positions, mask, (1, n, 1), rows)
        for layer in range(self.layers):
            feeds[f"context_keys_{layer}"] = feeds[f"context_values_{layer}"] = nothing_shared
            feeds[f"own_keys_{layer}"] = feeds[f"own_values_{layer}"] = nothing_own
        *keys_values, logprobs = self._session(self.decode_file, _cores()).run(None, feeds)
        nothing = tuple(np.zeros((1, 0, WIDTH), dtype=np.float32) for _ in range(self.layers))
        made = []
        asked = np.cumsum([0, *(len(at) for _, at in firsts)])
        for index, (begin, end) in enumerate(itertools.pairwise(bounds)):
            keys = tuple(np.ascontiguousarray(k[begin:end]) for k in keys_values[0::2])
            values = tuple(np.ascontiguousarray(v[begin:end]) for v in keys_values[1::2])
            made.append((Prefixes(keys, values, nothing, nothing), logprobs[asked[index] : asked[index + 1]]))
        return made

    def step_groups(self, audio: AudioKeys, groups: Sequence[tuple[Prefixes, Tokens]]) -> list[tuple[Prefixes, Array]]:
        sizes = [len(tokens) for _, tokens in groups]
        bounds = np.cumsum([0, *sizes])
        n = int(bounds[-1])
        # The groups' starts side by side as one context (a start shared by several groups once), each row unmasked
        # on its own group's start, on itself among the new tokens, and on its own earlier tokens.
        starts: list[Prefixes] = []
        where: list[int] = []
        for prefixes, _ in groups:
            same = next((i for i, seen in enumerate(starts) if seen.start_keys is prefixes.start_keys), None)
            if same is None:
                starts.append(prefixes)
                same = len(starts) - 1
            where.append(same)
        offsets = np.cumsum([0, *(len(start.start_keys[0]) for start in starts)])
        context = int(offsets[-1])
        own = max(1, *(prefixes.keys[0].shape[1] for prefixes, _ in groups))
        mask = np.full((n, context + n + own), SHUT, dtype=np.float32)
        for group, (prefixes, _) in enumerate(groups):
            rows = slice(bounds[group], bounds[group + 1])
            mask[rows, offsets[where[group]] : offsets[where[group] + 1]] = 0
            mask[rows, context + n : context + n + prefixes.keys[0].shape[1]] = 0
        mask[np.arange(n), context + np.arange(n)] = 0
        tokens = np.concatenate([tokens for _, tokens in groups])
        positions = np.concatenate(
            [np.full(size, prefixes.length) for size, (prefixes, _) in zip(sizes, groups, strict=True)]
        )
        feeds = self._feeds(audio, tokens, positions, mask, (context, n, own), range(n))
        for layer in range(self.layers):
            feeds[f"context_keys_{layer}"] = _joined([start.start_keys[layer] for start in starts])
            feeds[f"context_values_{layer}"] = _joined([start.start_values[layer] for start in starts])
            feeds[f"own_keys_{layer}"] = _padded([prefixes.keys[layer] for prefixes, _ in groups], own)
            feeds[f"own_values_{layer}"] = _padded([prefixes.values[layer] for prefixes, _ in groups], own)
        *keys_values, logprobs = self._session(self.decode_file, _cores()).run(None, feeds)
        new_keys, new_values = keys_values[0::2], keys_values[1::2]
        stepped = []
        for group, (prefixes, _) in enumerate(groups):
            rows = slice(bounds[group], bounds[group + 1])
            keys = tuple(
                np.concatenate([prefixes.keys[layer], new_keys[layer][rows, None]], axis=1)
                for layer in range(self.layers)
            )
            values = tuple(
                np.concatenate([prefixes.values[layer], new_values[layer][rows, None]], axis=1)
                for layer in range(self.layers)
            )
            stepped.append((Prefixes(prefixes.start_keys, prefixes.start_values, keys, values), logprobs[rows]))
        return stepped

    def _feeds(
        self,
        audio: AudioKeys,
        tokens: Sequence[int] | Tokens,
        positions: Any,
        mask: Array,
        sizes: tuple[int, int, int],
        rows: Sequence[int],
    ) -> dict[str, Any]:
        n = len(tokens)
        feeds: dict[str, Any] = {
            "tokens": np.asarray(tokens, dtype=np.int64),
            "positions": np.asarray(positions, dtype=np.int64),
            "mask": mask,
            "sizes": np.array(sizes, dtype=np.int64),
            "rows": np.array([row % n for row in rows], dtype=np.int64),
        }
        for layer in range(self.layers):
            feeds[f"cross_keys_{layer}"] = audio.keys[layer]
            feeds[f"cross_values_{layer}"] = audio.values[layer]
        return feeds

    def _session(self, file: str, threads: int) -> Any:
        if (file, threads) not in self._sessions:
            self._sessions[file, threads] = self._open_session(file, threads)
        return self._sessions[file, threads]

    def _open_session(self, file: str, threads: int) -> Any:
        runtime = onnxruntime()
        options = runtime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # A spinning worker would take a core the voice or another program needs (decision 004).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        path = self.model_dir / file
        try:
            return runtime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # onnxruntime raises its own exception types for a file it cannot read
            raise RecognizerUnavailable(
                f"{path} cannot be loaded ({str(error).splitlines()[0][:120]}): run `voicemaster models setup`"
            ) from None


def _cores() -> int:
    """The cores this thread's decision may take (`speech.cores`)."""
    return 2 if cores.split_here() else 1


def _joined(parts: list[Array]) -> Array:
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _padded(parts: list[Array], own: int) -> Array:
    """Each group's earlier keys (rows, earlier, 512), zero-filled to `own` (masked there), as one batch."""
    if all(part.shape[1] == own for part in parts):
        return _joined(parts)
    # Filled in place: `np.pad` per part cost more than the copy itself (a few hundred calls a decision).
    padded = np.zeros((sum(len(part) for part in parts), own, parts[0].shape[2]), dtype=parts[0].dtype)
    row = 0
    for part in parts:
        padded[row : row + len(part), : part.shape[1]] = part
        row += len(part)
    return padded


def _check_graphs(model_dir: Path, needed: tuple[str, ...]) -> None:
    """The derived graphs `needed` are there as set-up made them for this maker, else a one-line
    `RecognizerUnavailable`: a game loads without the waiting quizmaster's, which `serve` alone needs."""
    try:
        spec = load_manifest()[MODEL_NAME]
    except (ModelError, KeyError):
        return  # a manifest of one's own without Whisper's graphs: onnxruntime says what it cannot load
    found = problem(spec, model_dir, MADE_BY, needed)
    if found is not None:
        raise RecognizerUnavailable(found)
