"""Text as a listener hears it: "empty" means nothing to hear, and two texts that sound alike are alike."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from num2words import num2words
from rapidfuzz import utils

from voicemaster.questions.model import Entry
from voicemaster.speakable import unheard


def unspoken(text: str) -> bool:
    """True if a listener would hear nothing (`speakable.unheard`: the rule every spoken text follows)."""
    return unheard(text)


def spoken_form(text: str) -> str:
    """The text as it sounds, for comparing: format characters dropped, compatibility forms folded, case ignored."""
    visible = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")
    return utils.default_process(visible)


def said_text(text: str, language: str) -> str:
    """`text` with each number written as the words a voice reads it as (the checks leave only years as digits):
    "1945" is "neunzehnhundertfünfundvierzig"."""

    def said(match: re.Match[str]) -> str:
        digits = match.group()
        if len(digits) > LONGEST_NUMBER:  # a pack's typo or a hostile hand: read digit by digit, as the voices do
            return " ".join(str(num2words(int(digit), lang=language)) for digit in digits)
        return str(num2words(int(digits), lang=language, to="year"))

    return re.sub(r"\d+", said, text)


LONGEST_NUMBER = 12
"""Digits read as one number; num2words fails on longer runs."""


@lru_cache(maxsize=1 << 14)
def heard_form(text: str, language: str) -> str:
    """What a listener can tell apart of `text` read aloud: case, compatibility forms, "ß" and "ss", hyphens and
    punctuation, and a number as digits or as the words a voice reads it as ("11", "Elf") all sound the same. Two
    words for one number ("Septante", "Soixante-dix") do not."""
    visible = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf").casefold()
    return " ".join(re.sub(r"[^\w]+", " ", said_text(visible, language)).split())


def lexicon(entries: Iterable[Entry]) -> dict[str, dict[str, str]]:
    """The packs' hints (`pronounce`), by language: each written word and how the voice says it, wherever it stands
    in a line (`questions validate` names a word two entries say differently)."""
    words: dict[str, dict[str, str]] = {}
    for entry in entries:
        words.setdefault(entry.language, {}).update(entry.pronounce)
    return words
