"""What every Whisper runtime shares: the utterance as the decoder sees it (`AudioKeys`), a batch of token prefixes
(`Prefixes`), and what a runtime does (`Runtime`); `model.Whisper` runs one of them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]
Tokens = npt.NDArray[np.int64]
First = tuple[Sequence[int], Sequence[int]]
"""A first prefix's tokens, and the positions whose next token is asked (negative from its end)."""


@dataclass(frozen=True)
class AudioKeys:
    """One utterance as the decoder sees it: each layer's cross-attention keys and values, worked out once (laid out
    as the runtime that made them wants them)."""

    keys: tuple[Array, ...]
    values: tuple[Array, ...]
    starts: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[Prefixes, Array]] = field(
        default_factory=dict, compare=False, repr=False
    )
    """The decoder's runs over a whole first prefix on this utterance (`Whisper.start`), by tokens and positions, kept:
    a money placement's prompted reading starts with the very prompt the grammar's prompted scores did (some 25
    tokens through the decoder, about a third of that reading's CPU on English placements)."""


@dataclass(frozen=True)
class Prefixes:
    """A batch of token prefixes of equal length that all begin with the same start (the prompt and the start of
    transcript): each layer's self-attention keys and values, the start's once, (start, 512), and each prefix's own
    after it, (n, own, 512). Keeping the start apart spares copying it into every prefix at every step."""

    start_keys: tuple[Array, ...]
    start_values: tuple[Array, ...]
    keys: tuple[Array, ...]
    values: tuple[Array, ...]

    @property
    def length(self) -> int:
        return int(self.start_keys[0].shape[0] + self.keys[0].shape[1])

    def select(self, rows: npt.NDArray[np.intp]) -> Prefixes:
        own_keys = tuple(k[rows] for k in self.keys)
        return Prefixes(self.start_keys, self.start_values, own_keys, tuple(v[rows] for v in self.values))


class Runtime(Protocol):
    """What runs Whisper's arithmetic; every method is pure given its inputs."""

    def encode(self, features: Array) -> Array:
        """Log-mel features (80, frames) to the encoder output (frames / 2, 512)."""
        ...

    def listen(self, encoded: Array) -> AudioKeys: ...

    def first(self, audio: AudioKeys, tokens: list[int], at: Sequence[int]) -> tuple[Prefixes, Array]:
        """The decoder over a whole first prefix: its keys and values, and the log-probabilities after `at`."""
        ...

    def firsts(self, audio: AudioKeys, firsts: Sequence[First]) -> list[tuple[Prefixes, Array]]:
        """`first` for several first prefixes in one run of the decoder, each attending to its own tokens only: the
        same figures to float tolerance, the weights read once (the waiting reader's languages, decision 025)."""
        ...

    def step_groups(self, audio: AudioKeys, groups: Sequence[tuple[Prefixes, Tokens]]) -> list[tuple[Prefixes, Array]]:
        """Each group's prefixes extended by one token each (see `Whisper.step_groups`)."""
        ...
