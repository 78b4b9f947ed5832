"""Long words broken at a syllable, with a hyphen: soft hyphens put into the text before the page gets it.

At large type (the screen for low vision, zoomed to 400 %) a German compound is wider than the line, and the browser
then breaks it anywhere ("Weltmeisterschaftskämp" / "fe"). CSS `hyphens: auto` needs the browser's hyphenation
dictionaries, which headless Chromium on Linux does not have; so the server marks each syllable of a long word with
a soft hyphen (U+00AD), by the language's patterns (Pyphen's LibreOffice dictionaries), and the browser breaks there
and shows a hyphen only where it does break. Without Pyphen installed the text goes out unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, lru_cache

SOFT_HYPHEN = "\u00ad"
SHORTEST = 7
"""Words shorter than this are never broken: a narrow screen's line holds them whole."""
DICTIONARIES = {"de": ("de_DE",), "en": ("en_US", "en_GB"), "fr": ("fr",)}
"""Pyphen's dictionaries per language. English breaks where either the American or the British patterns do, as
readers on both sides accept: each alone leaves some long words whole ("Huitzilopochtli", "hemidemisemi-quavers"),
wider than a narrow screen's line."""
_WORD = re.compile(rf"\w{{{SHORTEST},}}")


@cache
def _hyphenator(language: str) -> Callable[[str], str] | None:
    try:
        import pyphen
    except ImportError:
        return None
    dictionaries = [pyphen.Pyphen(lang=name) for name in DICTIONARIES.get(language, ())]
    if not dictionaries:
        return None

    def hyphenate(word: str) -> str:
        breaks = sorted({int(at) for dictionary in dictionaries for at in dictionary.positions(word)})
        pieces = [word[start:end] for start, end in zip([0, *breaks], [*breaks, len(word)], strict=True)]
        return SOFT_HYPHEN.join(pieces)

    return hyphenate


@lru_cache(maxsize=1 << 14)
def _word(word: str, language: str) -> str:
    hyphenate = _hyphenator(language)
    return hyphenate(word) if hyphenate else word


def hyphenated(text: str, language: str) -> str:
    """`text` with a soft hyphen between the syllables of each word of `SHORTEST` letters or more."""
    return _WORD.sub(lambda match: _word(match.group(), language), text)
