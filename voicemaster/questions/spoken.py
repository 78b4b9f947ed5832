"""Text as a listener hears it: "empty" means nothing to hear, and two texts that sound alike are alike."""

from __future__ import annotations

import unicodedata

from rapidfuzz import utils


def unspoken(text: str) -> bool:
    """True if a listener would hear nothing: no letter and no digit, only spaces, punctuation, zero-width and other
    format characters (U+200B, U+2060, U+FEFF...), or combining marks on nothing."""
    return not any(unicodedata.category(character)[0] in "LN" for character in text)


def spoken_form(text: str) -> str:
    """The text as it sounds, for comparing: format characters dropped, compatibility forms folded, case ignored."""
    visible = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")
    return utils.default_process(visible)
