"""Questions and cards as the game uses them: frozen, already validated."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from voicemaster.paths import shown
from voicemaster.questions.review import Review


class Format(StrEnum):
    MILLIONAIRE = "millionaire"
    MONEYDROP = "moneydrop"


@dataclass(frozen=True)
class Entry:
    """A Millionaire question (with a level) or a money-drop card (level None, 2-4 options)."""

    id: str
    language: str
    format: Format
    category: str
    question: str
    options: tuple[str, ...]
    answer: str
    explanation: str
    level: int | None = None
    pin_order: bool = False
    pronounce: tuple[tuple[str, str], ...] = ()
    source: str = ""
    license: str = ""
    path: Path | None = None

    @property
    def answer_index(self) -> int:
        return self.options.index(self.answer)


@dataclass(frozen=True)
class Problem:
    """Something wrong in a pack, located precisely enough to fix it without searching."""

    path: Path
    entry: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = [shown(self.path)] + [part for part in (self.entry, self.field) if part]
        return ": ".join([*where, self.message])


@dataclass(frozen=True)
class Pack:
    """One pack file as a whole: what it holds, and its blind check if it records one (`questions/review.py`)."""

    path: Path
    language: str
    format: Format
    entries: int
    review: Review | None = None
