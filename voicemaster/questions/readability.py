"""Text that a speech synthesizer would read badly: abbreviations, symbols, digits that need words.

Years (three or four plain digits) read well in every language eSpeak-NG speaks, so they are allowed.
"""

from __future__ import annotations

import re

_ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "de": ("z. B.", "z.B.", "ca.", "usw.", "bzw.", "Nr.", "Dr.", "St.", "etc.", "Mio.", "Mrd.", "Jh.", "v. Chr.",
           "n. Chr.", "d. h.", "u. a.", "evtl.", "ggf.", "inkl.", "bspw."),
    "en": ("e.g.", "i.e.", "etc.", "approx.", "vs.", "Dr.", "Mr.", "Mrs.", "St.", "No.", "Mt."),
    "fr": ("M.", "Mme", "Mlle", "etc.", "env.", "av. J.-C.", "apr. J.-C.", "n°", "St-", "Ste-"),
}  # fmt: skip
_UNITS = re.compile(r"(?<=\d)\s?(km|kg|cm|mm|m|g|l|h|min|s)(?![\w’'-])|\b(km|kg|cm|mm)\b")
_SYMBOLS = re.compile(r"[%&/§°+=€$£#*<>@_|~^\\\[\](){}]")
# Digits that need words: decimals, digit groups, ordinals with a dot, five or more digits, one or two digits.
_BAD_DIGITS = re.compile(r"\d[.,]\d|\b\d+\.(?=\s|$)|\d{5,}|(?<![\d])\d{1,2}(?![\d])")


def reading_problems(text: str, language: str) -> list[str]:
    """What the speech output would stumble over in `text`, as short messages."""
    problems = []
    # A plain substring test first: a bank of 20 000 questions is checked in a second, not in twenty.
    for abbreviation in (a for a in _ABBREVIATIONS.get(language, ()) if a in text):
        if re.search(rf"(?<!\w){re.escape(abbreviation)}(?=\W|$)", text):
            problems.append(f"abbreviation {abbreviation!r} should be written out")
    if match := _UNITS.search(text):
        problems.append(f"unit {match.group().strip()!r} should be written out")
    if match := _SYMBOLS.search(text):
        problems.append(f"symbol {match.group()!r} should be written in words")
    if match := _BAD_DIGITS.search(text):
        problems.append(f"number {match.group()!r} should be written in words")
    return problems
