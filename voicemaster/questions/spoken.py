"""Text as a listener hears it: "empty" means nothing to hear, and two texts that sound alike are alike."""

from __future__ import annotations

import unicodedata

from rapidfuzz import utils

from voicemaster.speakable import unheard


def unspoken(text: str) -> bool:
    """True if a listener would hear nothing (`speakable.unheard`: the rule every spoken text follows)."""
    return unheard(text)


def spoken_form(text: str) -> str:
    """The text as it sounds, for comparing: format characters dropped, compatibility forms folded, case ignored."""
    visible = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")
    return utils.default_process(visible)
