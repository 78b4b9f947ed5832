"""Whisper's decoder as ONNX graphs, made by set-up from the installed `model.bin` (`voicemaster models setup`).

Two graphs, run by onnxruntime (`runtime.py`): `listen` turns the encoder's output into each decoder layer's
cross-attention keys and values, once per utterance; `decode` runs the decoder over a batch of new tokens, each
attending to keys already worked out (a shared start, its own prefix) and to the new tokens its mask lets it see, and
gives the log-probabilities of the token after the rows asked for. One graph serves both the run over a whole first
prefix (the new tokens see each other causally) and the batched steps of the trie search (each sees only itself).

The game's graphs are float32, as the weights are: they decide as the numpy reference does. A `Precision` with int8
(one scale per output row, each input row quantized with a scale of its own as it comes, as CTranslate2 does) is
about a third cheaper a decoder row but moved decisions on people's recordings and took one for a wrong meaning
(docs/decisions/026-float32-decoder-graphs-the-default.md): set-up makes the int8 ones too (`WAITING`), for the
waiting quizmaster alone, whose starts are said back and need a yes (docs/decisions/053-the-waiting-ear-in-int8.md).
The graphs are built with the `onnx` package's helper API from the weights alone: nothing is fetched. Importing this
module needs `onnx`, which only set-up uses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from voicemaster.speech.hearing.whisper.weights import read_weights

if TYPE_CHECKING:
    from onnx import ModelProto, NodeProto, TensorProto, ValueInfoProto

MADE_BY = "voicemaster whisper graphs 2"
"""Written beside the graphs when they are made; a loader that finds another maker asks for set-up to run again.
Raise it whenever the graphs change."""
LISTEN_FILE = "listen.onnx"
DECODE_FILE = "decode.onnx"
OPSET = 18
IR_VERSION = 8
"""Fixed, so that the same weights always make the same bytes whatever the `onnx` package's defaults."""
HEADS = 8
HEAD_SIZE = 64
WIDTH = HEADS * HEAD_SIZE
LAYER_NORM_EPSILON = 1e-5


@dataclass
class _Graph:
    """Nodes, initializers and names being collected; every name is made unique by a counter."""

    nodes: list[NodeProto] = field(default_factory=list)
    initializers: list[TensorProto] = field(default_factory=list)
    count: int = 0

    def name(self, hint: str) -> str:
        self.count += 1
        return f"{hint}_{self.count}"

    def constant(self, hint: str, value: npt.NDArray[np.generic]) -> str:
        from onnx import numpy_helper

        name = self.name(hint)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, kind: str, inputs: list[str], hint: str = "", outputs: int = 1, **attributes: Any) -> str:
        """One node; its (first) output's name."""
        from onnx import helper

        names = [self.name(hint or kind.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(kind, inputs, names, **attributes))
        return names[0] if outputs == 1 else ",".join(names)

    def ops(self, kind: str, inputs: list[str], outputs: int, hint: str = "", **attributes: Any) -> list[str]:
        return self.op(kind, inputs, hint, outputs, **attributes).split(",")


@dataclass(frozen=True)
class Precision:
    """Which matrices are int8 (one scale per row); the others stay float32. Set-up makes float32 throughout for a
    game and all int8 for waiting (`WAITING`); the mixed variants are the lab's, measured in
    docs/decisions/026-float32-decoder-graphs-the-default.md."""

    layers: bool = False
    """The decoder layers' linear maps, and the cross-attention keys and values of `listen`."""
    projection: bool = False
    """The output projection over the vocabulary (the token embeddings, transposed)."""

    @property
    def files(self) -> tuple[str, str]:
        """The listen and decode graphs' file names: "listen.onnx" in float32, "listen-int8.onnx" all int8."""
        marks = {
            (False, False): "",
            (True, True): "-int8",
            (True, False): "-int8-layers",
            (False, True): "-int8-output",
        }
        mark = marks[self.layers, self.projection]
        return LISTEN_FILE.replace(".onnx", f"{mark}.onnx"), DECODE_FILE.replace(".onnx", f"{mark}.onnx")


GAME = Precision()
"""A game's graphs: float32 throughout."""
WAITING = Precision(layers=True, projection=True)
"""The waiting quizmaster's graphs (`serve.reading.waiting_reader`): every matrix int8."""
GRAPH_FILES = (*GAME.files, *WAITING.files)
"""What set-up makes beside the model (the manifest's `derived`)."""


def build(model_dir: Path, into: Path, precision: Precision = GAME) -> tuple[Path, ...]:
    """Writes the listen and decode graphs of `precision` (`Precision.files`) for the model in `model_dir` into
    `into`; returns their paths."""
    import onnx

    raw = read_weights(model_dir / "model.bin")
    weights = {name: np.asarray(value) for name, value in raw.items()}
    layers = sum(1 for name in weights if name.startswith("decoder/layer_") and name.endswith("ffn/linear_0/bias"))
    into.mkdir(parents=True, exist_ok=True)
    written = []
    listen_file, decode_file = precision.files
    for file, graph in (
        (listen_file, _listen(weights, layers, precision)),
        (decode_file, _decode(weights, layers, precision)),
    ):
        path = into / file
        onnx.save_model(graph, str(path))
        written.append(path)
    return tuple(written)


def _float(weights: Mapping[str, npt.NDArray[np.generic]], name: str) -> npt.NDArray[np.float32]:
    return np.asarray(weights[name], dtype=np.float32)


def _linear(
    g: _Graph, x: str, weights: Mapping[str, npt.NDArray[np.generic]], name: str, *, int8: bool, bias: bool = True
) -> str:
    """x (rows, in) @ weight.T + bias, the weight (out, in) as CTranslate2 stores it."""
    matrix = _float(weights, f"{name}/weight")
    y = _product(g, x, matrix, int8=int8)
    return g.op("Add", [y, g.constant("bias", _float(weights, f"{name}/bias"))]) if bias else y


def _product(g: _Graph, x: str, matrix: npt.NDArray[np.float32], *, int8: bool) -> str:
    """x (rows, in) @ matrix.T, matrix (out, in): in float32, or int8 with a scale per matrix row and per x row."""
    if not int8:
        return g.op("MatMul", [x, g.constant("weight", np.ascontiguousarray(matrix.T))])
    quantized, scales = quantize_rows(matrix)
    return _int8_product(
        g, x, g.constant("weight_int8", np.ascontiguousarray(quantized.T)), g.constant("scale", scales)
    )


def _int8_product(g: _Graph, x: str, transposed: str, scales: str) -> str:
    """x (rows, in) @ the int8 matrix `transposed` (in, out) times its row `scales` (out,), x quantized row by row."""
    x_scale = _row_scale(g, x)
    # uint8 around 128 rather than int8: onnxruntime's fast integer products take an unsigned left side.
    shifted = g.op(
        "Add", [g.op("Round", [g.op("Div", [x, x_scale])]), g.constant("middle", np.array(128, dtype=np.float32))]
    )
    x_quantized = g.op("Cast", [shifted], to=2)  # UINT8
    middle = g.constant("zero_point", np.array(128, dtype=np.uint8))
    product = g.op("MatMulInteger", [x_quantized, transposed, middle])
    y = g.op("Mul", [g.op("Cast", [product], to=1), x_scale])  # FLOAT
    return g.op("Mul", [y, scales])


def quantize_rows(matrix: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """Symmetric int8, one scale per row: the row's largest magnitude maps to 127."""
    scales = np.abs(matrix).max(axis=1) / 127
    scales = np.where(scales > 0, scales, 1).astype(np.float32)
    quantized = np.clip(np.round(matrix / scales[:, None]), -127, 127).astype(np.int8)
    return quantized, scales


def _row_scale(g: _Graph, x: str) -> str:
    """Each row's largest magnitude over 127 (a row of zeros gets a tiny scale, never zero)."""
    largest = g.op("ReduceMax", [g.op("Abs", [x]), g.constant("last_axis", np.array([-1], dtype=np.int64))], keepdims=1)
    floor = g.constant("tiny", np.array(1e-30, dtype=np.float32))
    return g.op("Div", [g.op("Max", [largest, floor]), g.constant("int8_top", np.array(127, dtype=np.float32))])


def _normed_linear(
    g: _Graph, x: str, weights: Mapping[str, npt.NDArray[np.generic]], block: str, linear: str, *, int8: bool
) -> str:
    """A pre-norm block's input: x normalized by `block`'s layer norm, then its `linear` map."""
    return _linear(g, _norm(g, x, weights, f"{block}/layer_norm"), weights, f"{block}/{linear}", int8=int8)


def _norm(g: _Graph, x: str, weights: Mapping[str, npt.NDArray[np.generic]], name: str) -> str:
    gamma = g.constant("gamma", _float(weights, f"{name}/gamma"))
    beta = g.constant("beta", _float(weights, f"{name}/beta"))
    return g.op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=LAYER_NORM_EPSILON)


def _gelu(g: _Graph, x: str) -> str:
    """Whisper's exact (erf) GELU."""
    scaled = g.op("Mul", [x, g.constant("sqrt_half", np.array(1 / math.sqrt(2), dtype=np.float32))])
    one = g.op("Add", [g.op("Erf", [scaled]), g.constant("one", np.array(1, dtype=np.float32))])
    return g.op("Mul", [g.op("Mul", [x, one]), g.constant("half", np.array(0.5, dtype=np.float32))])


def _shape(g: _Graph, *dims: int) -> str:
    return g.constant("shape", np.array(dims, dtype=np.int64))


def _heads(g: _Graph, x: str, perm: list[int]) -> str:
    """(rows, 512) split into heads and transposed by `perm` from (rows, heads, 64)."""
    return g.op("Transpose", [g.op("Reshape", [x, _shape(g, 0, HEADS, HEAD_SIZE)])], perm=perm)


def _listen(weights: Mapping[str, npt.NDArray[np.generic]], layers: int, precision: Precision) -> ModelProto:
    """encoded (frames, 512) → per layer cross keys (heads, 64, frames) and values (heads, frames, 64)."""
    from onnx import TensorProto, helper

    g = _Graph()
    outputs = []
    for layer in range(layers):
        name = f"decoder/layer_{layer}/attention/linear_1"
        both = _linear(g, "encoded", weights, name, int8=precision.layers)
        keys, values = g.ops(
            "Split", [both, g.constant("halves", np.array([WIDTH, WIDTH], dtype=np.int64))], 2, axis=-1
        )
        g.nodes.append(helper.make_node("Identity", [_heads(g, keys, [1, 2, 0])], [f"cross_keys_{layer}"]))
        g.nodes.append(helper.make_node("Identity", [_heads(g, values, [1, 0, 2])], [f"cross_values_{layer}"]))
        outputs += [
            helper.make_tensor_value_info(f"cross_keys_{layer}", TensorProto.FLOAT, [HEADS, HEAD_SIZE, "frames"]),
            helper.make_tensor_value_info(f"cross_values_{layer}", TensorProto.FLOAT, [HEADS, "frames", HEAD_SIZE]),
        ]
    inputs = [helper.make_tensor_value_info("encoded", TensorProto.FLOAT, ["frames", WIDTH])]
    return _model(g, "whisper_listen", inputs, outputs)


def _decode(weights: Mapping[str, npt.NDArray[np.generic]], layers: int, precision: Precision) -> ModelProto:
    """The decoder over n new tokens. Inputs: tokens and positions (n,); mask (n, context + n + own), 0 where a row
    may attend, -inf where not; sizes (3,): context, n, own; per layer the context's keys and values (context, 512),
    each row's own earlier keys and values (n, own, 512), the cross keys and values from `listen`; rows (r,), whose
    next token is asked. Outputs: per layer the new tokens' keys and values (n, 512); logprobs (r, vocabulary)."""
    from onnx import TensorProto, helper

    g = _Graph()
    embeddings = _float(weights, "decoder/embeddings/weight")  # (vocabulary, 512)
    vocabulary = embeddings.shape[0]
    if precision.projection:
        # One int8 copy of the embeddings serves the lookup and the output projection.
        quantized, scales = quantize_rows(embeddings)
        projection = g.constant("embeddings_int8", np.ascontiguousarray(quantized.T))  # (512, vocabulary)
        projection_scales = g.constant("embedding_scales", scales)
        columns = g.op("Cast", [g.op("Gather", [projection, "tokens"], axis=1)], to=1)  # (512, n)
        row_scales = g.op(
            "Unsqueeze",
            [g.op("Gather", [projection_scales, "tokens"], axis=0), g.constant("axis1", np.array([1], dtype=np.int64))],
        )
        embedded = g.op("Mul", [g.op("Transpose", [columns], perm=[1, 0]), row_scales])
    else:
        table = g.constant("embeddings", embeddings)
        embedded = g.op("Gather", [table, "tokens"], axis=0)
    placed = g.op(
        "Gather",
        [g.constant("positions_table", _float(weights, "decoder/position_encodings/encodings")), "positions"],
        axis=0,
    )
    x = g.op("Add", [embedded, placed])
    inputs = [
        helper.make_tensor_value_info("tokens", TensorProto.INT64, ["n"]),
        helper.make_tensor_value_info("positions", TensorProto.INT64, ["n"]),
        helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["n", "seen"]),
        helper.make_tensor_value_info("sizes", TensorProto.INT64, [3]),
    ]
    outputs = []
    scale = g.constant("attention_scale", np.array(1 / math.sqrt(HEAD_SIZE), dtype=np.float32))
    for layer in range(layers):
        prefix = f"decoder/layer_{layer}"
        names = [f"context_keys_{layer}", f"context_values_{layer}", f"own_keys_{layer}", f"own_values_{layer}"]
        names += [f"cross_keys_{layer}", f"cross_values_{layer}"]
        inputs += [
            helper.make_tensor_value_info(names[0], TensorProto.FLOAT, ["context", WIDTH]),
            helper.make_tensor_value_info(names[1], TensorProto.FLOAT, ["context", WIDTH]),
            helper.make_tensor_value_info(names[2], TensorProto.FLOAT, ["n", "own", WIDTH]),
            helper.make_tensor_value_info(names[3], TensorProto.FLOAT, ["n", "own", WIDTH]),
            helper.make_tensor_value_info(names[4], TensorProto.FLOAT, [HEADS, HEAD_SIZE, "frames"]),
            helper.make_tensor_value_info(names[5], TensorProto.FLOAT, [HEADS, "frames", HEAD_SIZE]),
        ]
        context_k, context_v, own_k, own_v, cross_k, cross_v = names
        # Self-attention.
        qkv = _normed_linear(g, x, weights, f"{prefix}/self_attention", "linear_0", int8=precision.layers)
        q, k, v = g.ops("Split", [qkv, g.constant("thirds", np.array([WIDTH] * 3, dtype=np.int64))], 3, axis=-1)
        g.nodes.append(helper.make_node("Identity", [k], [f"keys_{layer}"]))
        g.nodes.append(helper.make_node("Identity", [v], [f"values_{layer}"]))
        outputs += [
            helper.make_tensor_value_info(f"keys_{layer}", TensorProto.FLOAT, ["n", WIDTH]),
            helper.make_tensor_value_info(f"values_{layer}", TensorProto.FLOAT, ["n", WIDTH]),
        ]
        q_heads = _heads(g, g.op("Mul", [q, scale]), [1, 0, 2])  # (heads, n, 64)
        on_context = g.op("MatMul", [q_heads, _heads(g, context_k, [1, 2, 0])])  # (heads, n, context)
        on_new = g.op("MatMul", [q_heads, _heads(g, k, [1, 2, 0])])  # (heads, n, n)
        own_keys = g.op("Transpose", [g.op("Reshape", [own_k, _shape(g, 0, 0, HEADS, HEAD_SIZE)])], perm=[0, 2, 3, 1])
        q_rows = g.op(
            "Unsqueeze",
            [g.op("Transpose", [q_heads], perm=[1, 0, 2]), g.constant("axis2", np.array([2], dtype=np.int64))],
        )  # (n, heads, 1, 64)
        on_own = g.op("MatMul", [q_rows, own_keys])  # (n, heads, 1, own)
        on_own = g.op(
            "Transpose", [g.op("Squeeze", [on_own, g.constant("axis2", np.array([2], dtype=np.int64))])], perm=[1, 0, 2]
        )
        scores = g.op("Add", [g.op("Concat", [on_context, on_new, on_own], axis=-1), "mask"])
        shares = g.op("Softmax", [scores], axis=-1)
        to_context, to_new, to_own = g.ops("Split", [shares, "sizes"], 3, axis=-1)
        from_context = g.op("MatMul", [to_context, _heads(g, context_v, [1, 0, 2])])
        from_new = g.op("MatMul", [to_new, _heads(g, v, [1, 0, 2])])
        own_values = g.op("Transpose", [g.op("Reshape", [own_v, _shape(g, 0, 0, HEADS, HEAD_SIZE)])], perm=[0, 2, 1, 3])
        to_own_rows = g.op(
            "Unsqueeze",
            [g.op("Transpose", [to_own], perm=[1, 0, 2]), g.constant("axis2", np.array([2], dtype=np.int64))],
        )
        from_own = g.op(
            "Squeeze", [g.op("MatMul", [to_own_rows, own_values]), g.constant("axis2", np.array([2], dtype=np.int64))]
        )
        from_own = g.op("Transpose", [from_own], perm=[1, 0, 2])
        attended = g.op("Add", [g.op("Add", [from_context, from_new]), from_own])
        attended = g.op("Reshape", [g.op("Transpose", [attended], perm=[1, 0, 2]), _shape(g, 0, WIDTH)])
        x = g.op("Add", [x, _linear(g, attended, weights, f"{prefix}/self_attention/linear_1", int8=precision.layers)])
        # Cross-attention.
        cq = _normed_linear(g, x, weights, f"{prefix}/attention", "linear_0", int8=precision.layers)
        cross_scores = g.op("MatMul", [_heads(g, g.op("Mul", [cq, scale]), [1, 0, 2]), cross_k])
        cross = g.op("MatMul", [g.op("Softmax", [cross_scores], axis=-1), cross_v])
        cross = g.op("Reshape", [g.op("Transpose", [cross], perm=[1, 0, 2]), _shape(g, 0, WIDTH)])
        x = g.op("Add", [x, _linear(g, cross, weights, f"{prefix}/attention/linear_2", int8=precision.layers)])
        # Feed-forward.
        up = _normed_linear(g, x, weights, f"{prefix}/ffn", "linear_0", int8=precision.layers)
        x = g.op("Add", [x, _linear(g, _gelu(g, up), weights, f"{prefix}/ffn/linear_1", int8=precision.layers)])
    inputs.append(helper.make_tensor_value_info("rows", TensorProto.INT64, ["r"]))
    final = g.op("Gather", [_norm(g, x, weights, "decoder/layer_norm"), "rows"], axis=0)
    if precision.projection:
        logits = _int8_product(g, final, projection, projection_scales)
    else:
        # The lookup's table serves the projection too, transposed by Gemm as it multiplies: one copy, not two.
        logits = g.op("Gemm", [final, table], transB=1)
    g.nodes.append(helper.make_node("LogSoftmax", [logits], ["logprobs"], axis=-1))
    outputs.append(helper.make_tensor_value_info("logprobs", TensorProto.FLOAT, ["r", vocabulary]))
    return _model(g, "whisper_decode", inputs, outputs)


def _model(g: _Graph, name: str, inputs: list[ValueInfoProto], outputs: list[ValueInfoProto]) -> ModelProto:
    from onnx import helper

    graph = helper.make_graph(g.nodes, name, inputs, outputs, initializer=g.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION)
    model.producer_name = MADE_BY
    return model


def make(spec_derived: tuple[str, ...], model_dir: Path) -> None:
    """Builds the graphs beside the model and records them (`models/derived.py`): into a folder of their own first,
    then moved into place one by one, the record last, so a build stopped half-way leaves nothing that passes."""
    import shutil
    import tempfile

    from voicemaster.models.derived import DERIVED_RECORD, write_record
    from voicemaster.models.verify import file_sha256

    if set(spec_derived) != set(GRAPH_FILES):
        raise ValueError(
            f"the manifest names {', '.join(spec_derived)} for Whisper; set-up makes {', '.join(GRAPH_FILES)}"
        )
    (model_dir / DERIVED_RECORD).unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix=".derived-", dir=model_dir) as staging:
        made = (*build(model_dir, Path(staging)), *build(model_dir, Path(staging), WAITING))
        files = {path.name: (path.stat().st_size, file_sha256(path)) for path in made}
        for path in made:
            shutil.move(path, model_dir / path.name)
    write_record(model_dir, MADE_BY, files)
