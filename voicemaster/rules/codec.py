"""Frozen dataclasses to JSON-ready data and back, exactly, with errors that say where and what was expected.

The quizmaster saves the game after every action with `dumps` and resumes with `loads`; the configuration loader
uses `from_data` to turn TOML tables into settings.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import types
import typing
from enum import Enum
from typing import Any, TypeVar, cast

T = TypeVar("T")


class DecodeError(ValueError):
    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path or 'the top level'}: {problem}")
        self.path = path
        self.problem = problem


def to_data(value: object) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_data(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [to_data(item) for item in value]
    if isinstance(value, dict):
        return {str(key): to_data(item) for key, item in value.items()}
    return value


def dumps(value: object) -> str:
    return json.dumps(to_data(value), ensure_ascii=False, sort_keys=True)


def loads(cls: type[T], text: str) -> T:
    return from_data(cls, json.loads(text))


def from_data(cls: type[T], data: Any, path: str = "") -> T:
    return cast(T, _decode(cls, data, path))


def _decode(tp: Any, data: Any, path: str) -> Any:
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        return _decode_union(typing.get_args(tp), data, path)
    if dataclasses.is_dataclass(tp):
        return _decode_dataclass(tp, data, path)
    if isinstance(tp, type) and issubclass(tp, Enum):
        allowed = [member.value for member in tp]
        if data not in allowed:
            raise DecodeError(path, f"expected one of {', '.join(map(repr, allowed))}, got {data!r}")
        return tp(data)
    if origin is tuple:
        return _decode_tuple(typing.get_args(tp), data, path)
    if origin is dict:
        key_type, value_type = typing.get_args(tp)
        if not isinstance(data, dict) or key_type is not str:
            raise DecodeError(path, f"expected a table, got {_kind(data)}")
        return {key: _decode(value_type, item, _join(path, key)) for key, item in data.items()}
    if tp is float:
        # A whole number is a number too (`0` for `0.0`); true is not, nor is a value no setting can hold.
        if not isinstance(data, int | float) or isinstance(data, bool) or not math.isfinite(data):
            raise DecodeError(path, f"expected a number, got {_kind(data)}")
        return float(data)
    if tp in (bool, int, str):
        # bool is an int in Python, but a setting of 1 is not "true", and true is not a number.
        if not isinstance(data, tp) or (tp is not bool and isinstance(data, bool)):
            raise DecodeError(path, f"expected {_TYPE_NAMES[tp]}, got {_kind(data)}")
        return data
    raise TypeError(f"cannot decode {tp!r}")  # pragma: no cover - a programming error, not bad input


def _decode_union(arms: tuple[Any, ...], data: Any, path: str) -> Any:
    if data is None and type(None) in arms:
        return None
    problems = []
    for arm in arms:
        if arm is type(None):
            continue
        try:
            return _decode(arm, data, path)
        except DecodeError as error:
            problems.append(error.problem)
    raise DecodeError(path, " or ".join(problems))


def _decode_dataclass(cls: Any, data: Any, path: str) -> Any:
    if not isinstance(data, dict):
        raise DecodeError(path, f"expected a table, got {_kind(data)}")
    hints, fields = _schema(cls)
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise DecodeError(_join(path, unknown[0]), f"unknown key; expected one of {', '.join(fields)}")
    values = {}
    for name, field in fields.items():
        if name in data:
            values[name] = _decode(hints[name], data[name], _join(path, name))
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise DecodeError(_join(path, name), "missing")
    return cls(**values)


@functools.cache
def _schema(cls: Any) -> tuple[dict[str, Any], dict[str, dataclasses.Field[Any]]]:
    """A dataclass's field types and the fields its constructor takes, worked out once per class: resolving the type
    hints was most of the time of a load, and a game is stored and checked after every action."""
    return typing.get_type_hints(cls), {f.name: f for f in dataclasses.fields(cls) if f.init}


def _decode_tuple(args: tuple[Any, ...], data: Any, path: str) -> tuple[Any, ...]:
    if not isinstance(data, list):
        raise DecodeError(path, f"expected a list, got {_kind(data)}")
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_decode(args[0], item, f"{path}[{i}]") for i, item in enumerate(data))
    if len(args) != len(data):
        raise DecodeError(path, f"expected a list of {len(args)}, got {len(data)} items")
    return tuple(_decode(arg, item, f"{path}[{i}]") for i, (arg, item) in enumerate(zip(args, data, strict=True)))


_TYPE_NAMES = {bool: "true or false", int: "a whole number", str: "text"}


def _kind(data: Any) -> str:
    """How bad input is described: its kind, and for a single value the value itself."""
    if isinstance(data, list | dict):
        return "a list" if isinstance(data, list) else "a table"
    names = {bool: "true/false", int: "a number", float: "a number", str: "text"}
    return f"{names.get(type(data), type(data).__name__)} ({data!r})"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
