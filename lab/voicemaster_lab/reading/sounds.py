"""Words the voice says in another language: read in the sounds eSpeak-NG makes of them for Kokoro.

Kokoro speaks what eSpeak-NG's phonemizer makes of the text. For a word it takes for another language's, eSpeak-NG
switches to that language's rules and sounds (and marks the stretch "(en)...(fr)"): right for "football" in French,
wrong for "menthe" or "le dos". No rendering and no listening is needed to see it, so every word of the bank is
looked at, as the voice is given it (after the quizmaster's reading, `speech/voice/reading.py`).
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from voicemaster.questions.model import Entry

_WORD = re.compile(r"[^\W\d_][\w’'-]*")
_SWITCHED = re.compile(r"\((?P<language>[a-z-]+)\)")


def switched_words(entries: Iterable[Entry], spoken: Callable[[str], str], accent: str) -> dict[str, set[str]]:
    """Each word (as the voice is given it) that eSpeak-NG's `accent` says in another language, with the ids of the
    entries whose question, options or explanation hold it."""
    where: dict[str, set[str]] = defaultdict(set)
    for entry in entries:
        for text in (entry.question, *entry.options, entry.explanation):
            for word in _WORD.findall(spoken(text)):
                where[word].add(entry.id)
    words = sorted(where)
    sounds = _backend(accent).phonemize(words)
    return {word: where[word] for word, said in zip(words, sounds, strict=True) if _SWITCHED.search(said)}


def switches(text: str, accent: str) -> bool:
    """Whether eSpeak-NG's `accent` says a stretch of `text` in another language."""
    return bool(_SWITCHED.search(_backend(accent).phonemize([text])[0]))


@cache
def _backend(accent: str) -> Any:
    import phonemizer.backend

    from voicemaster.speech.onnx_runtime import onnxruntime

    onnxruntime()  # kokoro-onnx loads it: its telemetry off first
    from kokoro_onnx.tokenizer import Tokenizer

    Tokenizer()  # points the phonemizer at the eSpeak-NG library and data Kokoro uses
    logging.getLogger("phonemizer").setLevel(logging.ERROR)
    return phonemizer.backend.EspeakBackend(accent, language_switch="keep-flags")
