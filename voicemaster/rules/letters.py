"""Answer letters: A to D, in the order the options are read."""

from __future__ import annotations

from enum import StrEnum


class Letter(StrEnum):
    A = "A"
    B = "B"
    C = "C"
    D = "D"

    @property
    def position(self) -> int:
        return "ABCD".index(self.value)

    @classmethod
    def first(cls, count: int) -> tuple[Letter, ...]:
        """The letters of a question with `count` options."""
        return tuple(cls)[:count]
