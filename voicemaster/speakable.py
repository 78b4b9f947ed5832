"""What text may be spoken: the one rule checked wherever text to be said enters (a question pack, an import, the
settings' names, `voicemaster say`), so that no speech engine is ever handed text it fails on or says as silence.

Spoken text must hold something a listener hears (a letter or a digit: a zero-width space, a direction mark or
combining marks on nothing are not heard, and Kokoro refuses them outright), no control character (Pico reads C
strings: a NUL would end the line there), and no word longer than LONGEST_WORD characters: past it the engines
stop saying the whole word (eSpeak-NG and Kokoro cut it short, Pico says less of it or fails, and a game then stops
at the question). Ids follow a rule of their own (`visible_id`): they are compared, not spoken.
"""

from __future__ import annotations

import unicodedata

LONGEST_WORD = 50
"""The longest word (characters between spaces) spoken text may hold: the longest every engine renders whole, in
every shape of word tried (letters, one letter repeated, digits) with every voice
(`tests/speech/voice/test_long_words.py` renders it). The words of our packs are far shorter."""


class Unspeakable(ValueError):
    """Text given to be said that no voice can say; the message says why, and what to give instead."""


def unheard(text: str) -> bool:
    """True if a listener would hear nothing: no letter and no digit, only spaces, punctuation, zero-width and other
    format characters (U+200B, U+2060, U+FEFF...), or combining marks on nothing."""
    return not any(unicodedata.category(character)[0] in "LN" for character in text)


def speech_problem(text: str) -> str | None:
    """Why `text` cannot be spoken, in a user's words (to follow "... cannot be said:"), or None if it can."""
    if unheard(text):
        return (
            "a listener would hear nothing (no letter or digit, only spaces, punctuation or invisible characters): "
            "write it in words"
        )
    control = next((c for c in text if unicodedata.category(c) == "Cc" and c not in "\t\n\r"), None)
    if control is not None:
        return f"it holds a control character ({_named(control)}); remove it"
    longest = max(text.split(), key=len)
    if len(longest) > LONGEST_WORD:
        return (
            f"a word of {len(longest)} characters ({longest[:20]}...); the voices say words of at most {LONGEST_WORD}: "
            "put spaces between its parts"
        )
    return None


def check_speakable(text: str, what: str) -> None:
    """Raises Unspeakable, naming `what` ("the text", "the player name 'Anna'"), if `text` cannot be spoken."""
    problem = speech_problem(text)
    if problem is not None:
        raise Unspeakable(f"{what} cannot be said: {problem}.")


def visible_id(text: str) -> tuple[str, str | None]:
    """An id as the bank compares it (NFC: "ä" typed as one character or as "a" and a combining diaeresis is one
    id), and why it is refused, or None: an id is made of visible characters only, no space, no control, format or
    direction character (U+200B, U+202E...), which would make two ids that look the same differ."""
    normal = unicodedata.normalize("NFC", text)
    hidden = next((c for c in normal if unicodedata.category(c)[0] in "CZ"), None)
    if hidden is not None:
        return normal, f"holds an invisible character ({_named(hidden)}); an id is made of visible characters only"
    if unheard(normal):
        return normal, "holds no letter or digit"
    return normal, None


def _named(character: str) -> str:
    name = unicodedata.name(character, "")
    return f"U+{ord(character):04X}" + (f" {name}" if name else "")
