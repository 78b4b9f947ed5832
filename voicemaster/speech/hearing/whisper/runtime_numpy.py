"""Whisper base in numpy float32: the game's runtime, and the reference the onnx runtime is compared against.

Written from the weights of CTranslate2's `model.bin`; its greedy reading is CTranslate2's own, token for token (a
test). It stays the game's until the onnx runtime (`runtime.py`) keeps every decision
(docs/decisions/020-whisper-on-maintained-runtimes.md): it holds every weight in float32 and every step in plain sight.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voicemaster.speech import cores
from voicemaster.speech.hearing.whisper.runtime_protocol import Array, AudioKeys, First, Prefixes, Tokens
from voicemaster.speech.hearing.whisper.weights import read_weights

HEADS = 8
LAYER_NORM_EPSILON = 1e-5


def layer_norm(x: Array, gamma: Array, beta: Array) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return (centred / np.sqrt(variance + LAYER_NORM_EPSILON)) * gamma + beta  # type: ignore[no-any-return]


def gelu(x: Array) -> Array:
    """Whisper's exact (erf) GELU. numpy has no erf: Abramowitz and Stegun 7.1.26, within 1.5e-7 of it. Worked in
    place on two temporaries: the encoder's feed-forward activations are large, and copies took 2.5 times as long."""
    z = np.abs(x)
    z *= np.float32(1 / math.sqrt(2))
    t = z * np.float32(0.3275911)
    t += 1
    np.reciprocal(t, out=t)
    erf = t * np.float32(1.061405429)
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        erf += np.float32(coefficient)
        erf *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    erf *= z
    np.subtract(np.float32(1), erf, out=erf)
    np.copysign(erf, x, out=erf)
    erf += 1
    erf *= x
    erf *= np.float32(0.5)
    return erf


def log_softmax(logits: Array) -> Array:
    """In place: the rows are a batch's scores over the whole vocabulary, too large to copy for nothing."""
    logits -= logits.max(axis=-1, keepdims=True)
    logits -= np.log(np.exp(logits).sum(axis=-1, keepdims=True))
    return logits


def attend(queries: Array, keys: Array, values: Array, mask: Array | None = None) -> Array:
    """Multi-head attention: queries (..., n, 512) against keys and values (..., m, 512)."""
    *batch, n, width = queries.shape
    m = keys.shape[-2]
    size = width // HEADS
    q = queries.reshape(*batch, n, HEADS, size).swapaxes(-2, -3)
    k = keys.reshape(*batch, m, HEADS, size).swapaxes(-2, -3)
    v = values.reshape(*batch, m, HEADS, size).swapaxes(-2, -3)
    weights = (q @ k.swapaxes(-1, -2)) * (1.0 / math.sqrt(size))
    if mask is not None:
        weights = weights + mask
    weights = np.exp(weights - weights.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return (weights @ v).swapaxes(-2, -3).reshape(*batch, n, width)  # type: ignore[no-any-return]


def product(x: Array, matrix: Array) -> Array:
    """x @ matrix, x of one or more rows. Two or three rows are multiplied one at a time: OpenBLAS's matrix product
    is at its slowest there, slower than for four rows (measured, one thread, 2-core EPYC: 512 x 1536 weights 273 us
    for two rows and 376 us for three, 218 us for four, one row at a time 128 and 162 us; the output projection, 512 x
    51 865, 10.0 and 13.8 ms, 8.5 for four, one row at a time 7.2 and 10.9 ms). A step of the free reading beside
    one phrase prefix is three rows. A large product of a decision that may take the second core
    (`speech.cores.split_here`) is split by rows over two threads."""
    if 2 <= len(x) <= 3:
        return np.stack([row @ matrix for row in x])
    if len(x) >= SPLIT_ROWS and len(x) * x.shape[1] * matrix.shape[1] >= SPLIT_FROM and cores.split_here():
        half = len(x) // 2
        other = _second_core().submit(np.matmul, x[half:], matrix)
        first = x[:half] @ matrix
        return np.concatenate([first, other.result()])
    return x @ matrix


SPLIT_ROWS = 8
"""Only products of this many rows are split: each half keeps four rows or more, multiplied as a whole, so that every
row comes out the same to the last bit, split or not (checked on the model's products)."""
SPLIT_FROM = 2_000_000
"""Multiply-adds from which a split pays for handing half to another thread."""


@functools.cache
def _second_core() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(1, thread_name_prefix="second-core")


@dataclass(frozen=True)
class Linear:
    weight: Array
    """(out, in), as stored: multiplied transposed, which BLAS does without a copy."""
    bias: Array | None

    def __call__(self, x: Array) -> Array:
        y = product(x, self.weight.T)
        if self.bias is not None:
            y += self.bias
        return y


@dataclass(frozen=True)
class Norm:
    gamma: Array
    beta: Array

    def __call__(self, x: Array) -> Array:
        return layer_norm(x, self.gamma, self.beta)


@dataclass(frozen=True)
class FeedForward:
    norm: Norm
    up: Linear
    down: Linear

    def __call__(self, x: Array) -> Array:
        return x + self.down(gelu(self.up(self.norm(x))))


@dataclass(frozen=True)
class EncoderLayer:
    norm: Norm
    qkv: Linear
    out: Linear
    ffn: FeedForward

    def __call__(self, x: Array) -> Array:
        q, k, v = np.split(self.qkv(self.norm(x)), 3, axis=-1)
        return self.ffn(x + self.out(attend(q, k, v)))


@dataclass(frozen=True)
class DecoderLayer:
    self_norm: Norm
    self_qkv: Linear
    self_out: Linear
    cross_norm: Norm
    cross_query: Linear
    cross_kv: Linear
    cross_out: Linear
    ffn: FeedForward


def attend_after(query: Array, start_k: Array, start_v: Array, own_k: Array, own_v: Array) -> Array:
    """One new token per prefix, query (n, 512), attending to the shared start (m, 512) and its own prefix's tokens
    (n, own, 512)."""
    n, width = query.shape
    size = width // HEADS
    q = query.reshape(n, HEADS, size).transpose(1, 0, 2)  # (heads, n, size)
    shared_k = start_k.reshape(-1, HEADS, size).transpose(1, 2, 0)  # (heads, size, m)
    shared_v = start_v.reshape(-1, HEADS, size).transpose(1, 0, 2)  # (heads, m, size)
    k = own_k.reshape(n, -1, HEADS, size).transpose(2, 0, 3, 1)  # (heads, n, size, own)
    v = own_v.reshape(n, -1, HEADS, size).transpose(2, 0, 1, 3)  # (heads, n, own, size)
    scale = np.float32(1.0 / math.sqrt(size))
    shared = (q @ shared_k) * scale  # (heads, n, m)
    own = (q[:, :, None, :] @ k)[:, :, 0, :] * scale  # (heads, n, own)
    top = np.maximum(shared.max(axis=-1, keepdims=True), own.max(axis=-1, keepdims=True))
    shared = np.exp(shared - top)
    own = np.exp(own - top)
    total = shared.sum(axis=-1, keepdims=True) + own.sum(axis=-1, keepdims=True)
    out = shared @ shared_v + (own[:, :, None, :] @ v)[:, :, 0, :]  # (heads, n, size)
    return (out / total).transpose(1, 0, 2).reshape(n, width)  # type: ignore[no-any-return]


class NumpyRuntime:
    """The model's weights in float32, loaded once (about a second); every method is pure given its inputs."""

    def __init__(self, model_dir: Path) -> None:
        raw = read_weights(model_dir / "model.bin")

        def w(name: str) -> Array:
            return np.ascontiguousarray(raw[name], dtype=np.float32)

        def linear(name: str, bias: bool = True) -> Linear:
            return Linear(w(f"{name}/weight"), w(f"{name}/bias") if bias else None)

        def norm(name: str) -> Norm:
            return Norm(w(f"{name}/gamma"), w(f"{name}/beta"))

        def ffn(name: str) -> FeedForward:
            return FeedForward(norm(f"{name}/layer_norm"), linear(f"{name}/linear_0"), linear(f"{name}/linear_1"))

        self.conv1 = (w("encoder/conv1/weight"), w("encoder/conv1/bias"))
        self.conv2 = (w("encoder/conv2/weight"), w("encoder/conv2/bias"))
        self.encoder_positions = w("encoder/position_encodings/encodings")

        def count(part: str) -> int:
            return sum(1 for name in raw if name.startswith(f"{part}/layer_") and name.endswith("ffn/linear_0/bias"))

        self.encoder_layers = tuple(
            EncoderLayer(
                norm(f"encoder/layer_{i}/self_attention/layer_norm"),
                linear(f"encoder/layer_{i}/self_attention/linear_0"),
                linear(f"encoder/layer_{i}/self_attention/linear_1"),
                ffn(f"encoder/layer_{i}/ffn"),
            )
            for i in range(count("encoder"))
        )
        self.encoder_norm = norm("encoder/layer_norm")
        self.output = np.ascontiguousarray(raw["decoder/embeddings/weight"].T, dtype=np.float32)
        """The token embeddings (vocabulary, 512) stored transposed, (512, vocabulary): the output projection reads
        them so every decoder step (x @ output), and OpenBLAS multiplies a few rows by a row-major matrix without
        repacking it; stored as read, (x @ embeddings.T) took 5.7 ms for one row and 16-17 ms for 2-8 (3.2 and 8-10
        ms so; 2-core EPYC, one thread). A token's embedding is its column."""
        self.decoder_positions = w("decoder/position_encodings/encodings")
        self.decoder_layers = tuple(
            DecoderLayer(
                norm(f"decoder/layer_{i}/self_attention/layer_norm"),
                linear(f"decoder/layer_{i}/self_attention/linear_0"),
                linear(f"decoder/layer_{i}/self_attention/linear_1"),
                norm(f"decoder/layer_{i}/attention/layer_norm"),
                linear(f"decoder/layer_{i}/attention/linear_0"),
                linear(f"decoder/layer_{i}/attention/linear_1"),
                linear(f"decoder/layer_{i}/attention/linear_2"),
                ffn(f"decoder/layer_{i}/ffn"),
            )
            for i in range(count("decoder"))
        )
        self.decoder_norm = norm("decoder/layer_norm")

    def encode(self, features: Array) -> Array:
        """Log-mel features (80, frames) to the encoder output (frames / 2, 512)."""
        x = gelu(_conv(features, *self.conv1, stride=1))
        x = gelu(_conv(x.T, *self.conv2, stride=2))
        x = x + self.encoder_positions[: len(x)]
        for layer in self.encoder_layers:
            x = layer(x)
        return self.encoder_norm(x)

    def listen(self, encoded: Array) -> AudioKeys:
        keys, values = [], []
        for layer in self.decoder_layers:
            k, v = np.split(layer.cross_kv(encoded), 2, axis=-1)
            keys.append(np.ascontiguousarray(k))
            values.append(np.ascontiguousarray(v))
        return AudioKeys(tuple(keys), tuple(values))

    def first(self, audio: AudioKeys, tokens: list[int], at: Sequence[int]) -> tuple[Prefixes, Array]:
        ((prefixes, logprobs),) = self.firsts(audio, [(tokens, at)])
        return prefixes, logprobs

    def firsts(self, audio: AudioKeys, firsts: Sequence[First]) -> list[tuple[Prefixes, Array]]:
        sizes = [len(tokens) for tokens, _ in firsts]
        bounds = np.cumsum([0, *sizes])
        x = np.concatenate(
            [self.embedded(list(tokens)) + self.decoder_positions[: len(tokens)] for tokens, _ in firsts]
        )
        # Each prefix attends causally to its own tokens only: one prefix is the plain causal mask.
        causal = np.full((len(x), len(x)), -np.inf, dtype=np.float32)
        for size, begin in zip(sizes, bounds, strict=False):
            causal[begin : begin + size, begin : begin + size] = np.triu(
                np.full((size, size), -np.inf, dtype=np.float32), k=1
            )
        keys, values = [], []
        for layer, cross_k, cross_v in zip(self.decoder_layers, audio.keys, audio.values, strict=True):
            q, k, v = np.split(layer.self_qkv(layer.self_norm(x)), 3, axis=-1)
            keys.append(np.ascontiguousarray(k))
            values.append(np.ascontiguousarray(v))
            x = x + layer.self_out(attend(q, k, v, causal))
            x = x + layer.cross_out(attend(layer.cross_query(layer.cross_norm(x)), cross_k, cross_v))
            x = layer.ffn(x)
        nothing = tuple(np.zeros((1, 0, x.shape[-1]), dtype=np.float32) for _ in keys)
        rows = [
            int(begin) + row % size for (_, at), size, begin in zip(firsts, sizes, bounds, strict=False) for row in at
        ]
        logprobs = self._next(x[rows])
        asked = np.cumsum([0, *(len(at) for _, at in firsts)])
        return [
            (
                Prefixes(
                    tuple(np.ascontiguousarray(k[begin:end]) for k in keys),
                    tuple(np.ascontiguousarray(v[begin:end]) for v in values),
                    nothing,
                    nothing,
                ),
                logprobs[asked[index] : asked[index + 1]],
            )
            for index, (begin, end) in enumerate(itertools.pairwise(bounds))
        ]

    def step_groups(self, audio: AudioKeys, groups: Sequence[tuple[Prefixes, Tokens]]) -> list[tuple[Prefixes, Array]]:
        bounds = np.cumsum([0, *(len(tokens) for _, tokens in groups)])
        x = np.concatenate(
            [self.embedded(tokens) + self.decoder_positions[prefixes.length] for prefixes, tokens in groups]
        )
        keys: list[list[Array]] = [[] for _ in groups]
        values: list[list[Array]] = [[] for _ in groups]
        for index, (layer, cross_k, cross_v) in enumerate(
            zip(self.decoder_layers, audio.keys, audio.values, strict=True)
        ):
            q, k, v = np.split(layer.self_qkv(layer.self_norm(x)), 3, axis=-1)
            attended = []
            for group, (prefixes, _) in enumerate(groups):
                rows = slice(bounds[group], bounds[group + 1])
                own_k = np.concatenate([prefixes.keys[index], k[rows, None]], axis=1)
                own_v = np.concatenate([prefixes.values[index], v[rows, None]], axis=1)
                keys[group].append(own_k)
                values[group].append(own_v)
                start_k, start_v = prefixes.start_keys[index], prefixes.start_values[index]
                attended.append(attend_after(q[rows], start_k, start_v, own_k, own_v))
            x = x + layer.self_out(np.concatenate(attended))
            x = x + layer.cross_out(attend(layer.cross_query(layer.cross_norm(x)), cross_k, cross_v))
            x = layer.ffn(x)
        logprobs = self._next(x)
        return [
            (
                Prefixes(prefixes.start_keys, prefixes.start_values, tuple(keys[group]), tuple(values[group])),
                logprobs[bounds[group] : bounds[group + 1]],
            )
            for group, (prefixes, _) in enumerate(groups)
        ]

    def embedded(self, tokens: Sequence[int] | Tokens) -> Array:
        return self.output[:, tokens].T

    def _next(self, x: Array) -> Array:
        return log_softmax(product(self.decoder_norm(x), self.output))


def _conv(x: Array, weight: Array, bias: Array, *, stride: int) -> Array:
    """A 1-D convolution with kernel 3 and padding 1: x (channels, frames) to (frames / stride, out)."""
    padded = np.pad(x, ((0, 0), (1, 1)))
    frames = (x.shape[1] - 1) // stride + 1
    columns = np.stack([padded[:, k : k + stride * frames : stride] for k in range(3)], axis=-1)  # (in, frames, 3)
    flat = columns.transpose(1, 0, 2).reshape(frames, -1)
    return product(flat, weight.reshape(weight.shape[0], -1).T) + bias
