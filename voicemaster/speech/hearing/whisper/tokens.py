"""Whisper's tokenizer, made whole, and the special tokens the decoder is started and stopped with."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from voicemaster.file_reading import READ_ERRORS, problem, read_json
from voicemaster.speech.hearing.recognition import RecognizerUnavailable

FIRST_MERGE = "Ġ t"
"""GPT-2's first byte-pair merge, which the packaged `tokenizer.json` lacks (49 999 merges instead of 50 000; a
converter took the first line of merges.txt for its header)."""


TOKENIZER_MOST_BYTES = 50_000_000
"""Whisper's tokenizer.json is 2 MB: a larger one (or a FIFO, or one nested thousands deep) is no tokenizer."""


def complete_tokenizer(path: Path) -> Any:
    """The model's tokenizer with its first merge restored. Without it every word after a space that starts with a
    lower-case "t" is split ("the" as " " + "the"), a spelling the model never learned. Read by the bounded reader:
    a tokenizer file that is damaged, a FIFO or too large is a `RecognizerUnavailable` naming it."""
    import tokenizers

    try:
        spec = read_json(path, TOKENIZER_MOST_BYTES)
        merges = spec["model"]["merges"]
    except (*READ_ERRORS, KeyError, TypeError) as error:
        said = problem(error) if isinstance(error, READ_ERRORS) else f"no merges ({type(error).__name__})"
        raise RecognizerUnavailable(
            f"{path}: {said}: the Whisper model is damaged; install it again (voicemaster models download whisper-base)"
        ) from None
    if FIRST_MERGE not in merges[:1] and ["Ġ", "t"] not in merges[:1]:
        merges.insert(0, FIRST_MERGE if isinstance(merges[0], str) else FIRST_MERGE.split())
    return tokenizers.Tokenizer.from_str(json.dumps(spec))


@dataclass(frozen=True)
class Special:
    """The special tokens of one language's transcription."""

    start: tuple[int, ...]
    """Start of transcript, language, task, no timestamps."""
    previous: int
    """Starts a prompt: the text before it is what was said before."""
    end: int
    """End of text; every token id above it is special or a timestamp, never part of a transcript."""
    blank: int
    """A lone space: never the first token of a transcript (Whisper's suppress_blank)."""
    no_speech: int
    """Its probability right after the start of transcript is the model's belief that nothing was said."""


class Tokens:
    """Text to tokens and back for one language; spellings are encoded once and remembered, since a context's
    phrases recur question after question."""

    def __init__(self, tokenizer: Any, language: str) -> None:
        from faster_whisper.tokenizer import Tokenizer

        self._tokenizer = Tokenizer(tokenizer, True, task="transcribe", language=language)
        self.special = Special(
            start=(*self._tokenizer.sot_sequence, self._tokenizer.no_timestamps),
            previous=self._tokenizer.sot_prev,
            end=self._tokenizer.eot,
            blank=self._tokenizer.encode(" ")[0],
            no_speech=self._tokenizer.no_speech,
        )
        self.encode = lru_cache(maxsize=50_000)(self._encode)

    def _encode(self, text: str) -> list[int]:
        return list(self._tokenizer.encode(text))

    def decode(self, tokens: Sequence[int]) -> str:
        return " ".join(self._tokenizer.decode([t for t in tokens if t < self.special.end]).split())
