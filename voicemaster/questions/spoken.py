"""Text as a listener hears it: "empty" means nothing to hear, and two texts that sound alike are alike."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from rapidfuzz import utils
from text_to_num import alpha2digit

from voicemaster.speakable import unheard


def unspoken(text: str) -> bool:
    """True if a listener would hear nothing (`speakable.unheard`: the rule every spoken text follows)."""
    return unheard(text)


def spoken_form(text: str) -> str:
    """The text as it sounds, for comparing: format characters dropped, compatibility forms folded, case ignored."""
    visible = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")
    return utils.default_process(visible)


@lru_cache(maxsize=1 << 14)
def heard_form(text: str, language: str) -> str:
    """What a listener can tell apart of `text` read aloud: case, compatibility forms, "ß" and "ss", hyphens and
    punctuation, and numbers written as words or as digits ("Elf", "11") all sound the same. Numbers become digits
    as the recognizer's normal form makes them (`speech/hearing/normal_form.py`), which this layer cannot import."""
    visible = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf").casefold()
    words = " ".join(re.sub(r"[^\w]+", " ", visible).split())
    digits = alpha2digit(words, language, threshold=0) if words else ""
    return " ".join(re.sub(r"[^\w]+", " ", digits).split())
