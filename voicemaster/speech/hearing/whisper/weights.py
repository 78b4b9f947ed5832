"""The weights of a CTranslate2 Whisper model (`model.bin`, spec version 6) as numpy arrays.

The format is simple and documented by CTranslate2: a header (version, spec name, revision), then each variable as its
name, shape, data type and raw bytes, then aliases (Whisper's output projection is its token embedding). Reading it
ourselves lets the recognizer run its own small decoder, which shares the encoder's cross-attention keys and values
across every phrase it scores instead of recomputing them per phrase as CTranslate2's `generate` does.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]

SUPPORTED_VERSION = 6
DTYPES: Mapping[int, type[np.generic]] = {
    0: np.float32,
    1: np.int8,
    2: np.int16,
    3: np.int32,
    4: np.float16,
}
"""CTranslate2's DataType enum, as far as a converted Whisper model uses it (bfloat16, 5, is not read)."""


class WeightsError(ValueError):
    """The model file is not a CTranslate2 Whisper model this reader understands; the message names the file."""


def read_weights(path: Path) -> dict[str, npt.NDArray[np.generic]]:
    """Every variable of the model by name; float16 weights stay float16 here (half the memory until used)."""
    data = path.read_bytes()
    offset = 0

    def unpack(fmt: str) -> int:
        nonlocal offset
        (value,) = struct.unpack_from(fmt, data, offset)
        offset += struct.calcsize(fmt)
        return int(value)

    def text() -> str:
        nonlocal offset
        length = unpack("<H")
        value = data[offset : offset + length].decode("utf-8").rstrip("\0")
        offset += length
        return value

    try:
        version = unpack("<I")
        if version != SUPPORTED_VERSION:
            raise WeightsError(f"{path}: CTranslate2 model version {version}, expected {SUPPORTED_VERSION}")
        spec = text()
        if spec != "WhisperSpec":
            raise WeightsError(f"{path}: a {spec} model, not Whisper")
        unpack("<I")  # the spec's revision: the variables below are found by name whatever it is
        variables: dict[str, npt.NDArray[np.generic]] = {}
        for _ in range(unpack("<I")):
            name = text()
            shape = tuple(unpack("<I") for _ in range(unpack("<B")))
            code = unpack("<B")
            size = unpack("<I")
            if code not in DTYPES:
                raise WeightsError(f"{path}: variable {name}: data type {code} is not supported")
            array = np.frombuffer(
                data, dtype=DTYPES[code], count=size // np.dtype(DTYPES[code]).itemsize, offset=offset
            )
            variables[name] = array.reshape(shape)
            offset += size
        if offset < len(data):
            for _ in range(unpack("<I")):
                alias, target = text(), text()
                variables[alias] = variables[target]
    except struct.error:
        raise WeightsError(f"{path}: the file ends early (offset {offset} of {len(data)} bytes)") from None
    return variables
