"""The one form in which heard words and phrases are compared: lower case, no punctuation, numbers as digits.

Text is normalized where it comes in, once: a recognizer's reading (or a player's words as written) becomes a
`Reading` at the recognizer's edge, and a phrase file's words are normalized when the file is loaded
(`phrases.Compared`). The functions that compare take `Normalized` text, so mypy shows where a raw string would
slip in.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import NewType

from text_to_num import alpha2digit

Normalized = NewType("Normalized", str)
"""Text in the form phrases are compared in ('Fünfzig-Fünfzig!' and '50:50' both are '50 50'); made by `normalize`."""


def join_thousands(text: str) -> str:
    """'500.000', '1,000' and '500 000' as one number: a thousands separator would otherwise split the amount."""
    return re.sub(r"(?<=\d)[.,'\u202f\u00a0 ](?=\d{3}(?!\d))", "", text)


@lru_cache(maxsize=1 << 16)
def spoken(text: str) -> str:
    """Words only: lower case, no punctuation ('Fünfzig-Fünfzig!' is 'fünfzig fünfzig'). Remembered: a grammar is
    built for every question, of mostly the same phrases."""
    text = join_thousands(unicodedata.normalize("NFC", text).lower().replace("’", "'").replace("`", "'"))
    text = re.sub(r"[^\w'€]+", " ", text.replace("€", " € ")).replace("_", " ")
    return " ".join(word.strip("'") for word in text.split())


@lru_cache(maxsize=1 << 16)
def normalize(text: str, language: str) -> Normalized:
    """The form phrases are compared in: 'Fünfzig-Fünfzig!' and '50:50' both become '50 50'."""
    words = spoken(text)
    return Normalized(" ".join(alpha2digit(words, language, threshold=0).replace(".", " ").split()) if words else "")


def strip_filler(text: Normalized, filler: tuple[Normalized, ...]) -> Normalized:
    """Drops filler words at either end ("äh B bitte" is "B"); never the whole utterance."""
    words = text.split()
    changed = True
    while changed and words:
        changed = False
        for phrase in filler:
            fill = phrase.split()
            if len(words) > len(fill) and words[: len(fill)] == fill:
                words, changed = words[len(fill) :], True
            if len(words) > len(fill) and words[-len(fill) :] == fill:
                words, changed = words[: -len(fill)], True
    return Normalized(" ".join(words))


@dataclass(frozen=True)
class Reading:
    """What a recognizer read, or a player's words as written, normalized once where it comes in."""

    text: str
    """As read, punctuation and all: what `Heard.text` and the records keep."""
    words: Normalized
    """The whole reading, normalized."""
    clauses: tuple[Normalized, ...]
    """The reading cut at its punctuation (thousands joined first: "500,000" stays one amount), each piece
    normalized: the clauses of a money placement ("zehn auf A, den Rest auf C")."""

    @staticmethod
    def of(text: str, language: str) -> Reading:
        pieces = re.split(r"[,;.!?]", join_thousands(text))
        return Reading(text, normalize(text, language), tuple(normalize(piece, language) for piece in pieces))
