"""Vosk: streaming recognition constrained to what may be said now (a grammar per listening context).

The grammar is the context's phrases plus the model's unknown-word token, so that talk outside the grammar can come
out as "[unk]" instead of being forced onto a phrase. Vosk keeps every grammar word it knows and drops the others
with only a log line ("Ignoring word missing in vocabulary"), which would turn "Antwort B" into "Antwort" if the model
lacked "B". So every word is checked first with the model's own lookup (`vosk_model_find_word`: the very symbol table
the grammar is built from, whether the model ships graph/words.txt or carries the table inside Gr.fst or HCLG.fst),
and a phrase with a word the model lacks is left out of the grammar whole and reported by `unhearable`.

What comes back, as a `HeardText`:
- text: the recognized words as the model spells them (case may differ from the phrase: "berlin" for "Berlin"),
  separated by single spaces. Speech the grammar cannot cover, and decoys, come out as the word "[unk]" (whatever the
  model calls its unknown word). "" means nothing was recognized: silence, or noise the model ignored.
- confidence: the lowest word confidence (Vosk's per-word posterior), 0 when nothing was recognized. The weakest word
  decides, so that one sure word cannot carry a doubtful one.

A grammar is not a phrase list for Vosk but a bigram model estimated from it: a sequence of phrases ("yes no") can
come back, and the intent matcher has to take that for what it is. Word confidences are posteriors among the grammar's
words only: measured on the Korean model with eSpeak speech, a short word outside the grammar came back as one grammar
phrase in about half the cases, often with confidence 1.0; the unknown-word token mostly catches noise, not speech.
Decoys (common words of the language that mean nothing in the context, reported as "[unk]") brought those false accepts
from 28 of 54 clips to 1, and cost accuracy on the phrases themselves (34 of 38 clips right without them, 21 with ten
one-syllable decoys): which decoys, if any, is for each language's phrase files to decide.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.recognition import HeardText, RecognizerUnavailable
from voicemaster.speech.signal import RECOGNITION_RATE, resample

UNKNOWN = "[unk]"
"""How the transcript marks speech outside the grammar, whatever the model's own token for it is."""

# The models name their unknown word differently: the small German/English/French ones "[unk]", the Korean "<UNK>".
_UNKNOWN_TOKENS = ("[unk]", "<UNK>", "<unk>")

# Stripped from the ends of words, so that an option written "Rom," or a phrase "Wirklich?" is still heard; inner
# apostrophes and hyphens stay ("l'eau", "fifty-fifty") because the lexicons spell words that way.
_PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~¡¿«»‹›„“”‘’‚…–—·"

_INSTALL_HINT = "install it with `pip install 'voicemaster[vosk]'`"
_MODEL_HINT = (
    "install a model with `voicemaster models download NAME` (for example vosk-model-small-de-0.15) "
    "or `voicemaster models install PATH`"
)


class _VoskModel(Protocol):
    # vosk ships no type hints; these are the calls we make, with the types its C API has.
    def vosk_model_find_word(self, word: str) -> int: ...


class _VoskRecognizer(Protocol):
    def SetWords(self, enable_words: bool) -> None: ...  # noqa: N802 (vosk's names)
    def AcceptWaveform(self, data: bytes) -> int: ...  # noqa: N802
    def Result(self) -> str: ...  # noqa: N802
    def PartialResult(self) -> str: ...  # noqa: N802
    def FinalResult(self) -> str: ...  # noqa: N802


def _import_vosk() -> Any:
    try:
        return importlib.import_module("vosk")
    except (ImportError, OSError) as error:  # OSError: the wheel is there but libvosk.so cannot be loaded
        raise RecognizerUnavailable(f"The Vosk engine is not available ({error}): {_INSTALL_HINT}.") from error


def _is_model_dir(folder: Path) -> bool:
    # Vosk reads either layout: am/final.mdl (current models) or final.mdl at the top (old ones).
    return (folder / "am" / "final.mdl").is_file() or (folder / "final.mdl").is_file()


def _tokens(phrase: str) -> list[str]:
    # Vosk splits on single spaces: a double space would give an empty "word" that it reports missing.
    return [token for token in (word.strip(_PUNCTUATION) for word in phrase.split()) if token]


@dataclass(frozen=True)
class _Grammar:
    json: str | None
    """The grammar as Vosk takes it; None to decode freely (a model without runtime graphs ignores grammars)."""
    unknown: frozenset[str]
    """Words reported as "[unk]": the model's unknown token and the decoys."""


class VoskEngine:
    """One loaded Vosk model (loading takes seconds and hundreds of MB: keep one per language)."""

    def __init__(self, model_dir: Path) -> None:
        if not model_dir.is_dir():
            raise RecognizerUnavailable(f"No Vosk model at {model_dir}: {_MODEL_HINT}.")
        if not _is_model_dir(model_dir):
            raise RecognizerUnavailable(f"{model_dir} is not a Vosk model (no am/final.mdl): {_MODEL_HINT}.")
        vosk = _import_vosk()
        # Vosk logs some twenty lines per model load and one per grammar to stderr; warnings and errors still show.
        # The only warning our grammars could cause (a missing word) cannot happen: words are checked first.
        vosk.SetLogLevel(-1)
        try:
            self._model: _VoskModel = vosk.Model(str(model_dir))
        except Exception as error:  # vosk raises a bare Exception("Failed to create a model")
            raise RecognizerUnavailable(f"Vosk could not load the model at {model_dir}: {_MODEL_HINT}.") from error
        self._vosk = vosk
        self.model_dir = model_dir
        self.grammar_supported = not ((model_dir / "graph" / "HCLG.fst").exists() or (model_dir / "HCLG.fst").exists())
        """False for large models with a static graph: Vosk then ignores grammars and decodes freely."""
        self._spellings: dict[str, str | None] = {}
        self._unknown_token = next((t for t in _UNKNOWN_TOKENS if self._model.vosk_model_find_word(t) >= 0), None)

    def spelling(self, word: str) -> str | None:
        """The model's spelling of a word (as written, lower case or upper case), None if the model lacks it.

        Lexicons differ in case: the small German model knows "berlin" but not "Berlin", the Korean one "ABC" but not
        "abc"; options come as written in the question pack.
        """
        if word not in self._spellings:
            candidates = dict.fromkeys((word, word.lower(), word.upper()))
            self._spellings[word] = next((c for c in candidates if self._model.vosk_model_find_word(c) >= 0), None)
        return self._spellings[word]

    def unhearable(self, phrases: Iterable[str]) -> list[str]:
        """The phrases this model can never recognize (one of their words is missing), in the order given.

        A phrase with no word at all (only punctuation) counts as unhearable too.
        """
        return [p for p in phrases if not _tokens(p) or any(self.spelling(t) is None for t in _tokens(p))]

    def stream(self, phrases: Sequence[str], *, decoys: Sequence[str] = (), rate: int = RECOGNITION_RATE) -> VoskStream:
        """Recognition of one utterance fed in chunks of 16-bit mono audio at `rate` (the microphone's 16 kHz)."""
        recognizer: _VoskRecognizer
        grammar = self._grammar(phrases, decoys)
        if grammar.json is None:
            recognizer = self._vosk.KaldiRecognizer(self._model, rate)
        else:
            recognizer = self._vosk.KaldiRecognizer(self._model, rate, grammar.json)
        recognizer.SetWords(True)
        return VoskStream(recognizer, grammar.unknown)

    def transcribe(self, audio: Audio, phrases: Sequence[str], *, decoys: Sequence[str] = ()) -> HeardText:
        """What was said in one utterance, constrained to the phrases (see the module's notes on the result).

        Decoys are words that may be heard but mean nothing here; they come back as "[unk]". A decoy that is also a
        word of a phrase is not used.
        """
        stream = self.stream(phrases, decoys=decoys)
        stream.accept(resample(audio, RECOGNITION_RATE).samples)
        return stream.finish()

    def _grammar(self, phrases: Sequence[str], decoys: Sequence[str]) -> _Grammar:
        # The unknown word is added below in the model's own spelling, so a caller's "[unk]" is not a phrase.
        lines = dict.fromkeys(self._spelled(phrase) for phrase in phrases if phrase.strip() not in _UNKNOWN_TOKENS)
        lines.pop(None, None)
        heard = {word for line in lines if line for word in line.split(" ")}
        # A decoy that is also a word of a phrase would turn that phrase into "[unk]": the phrase wins.
        decoy_words = {w for decoy in decoys for t in _tokens(decoy) if (w := self.spelling(t)) and w not in heard}
        unknown = frozenset(decoy_words | ({self._unknown_token} if self._unknown_token else set()))
        if not self.grammar_supported:
            return _Grammar(None, unknown)
        grammar = [line for line in lines if line] + sorted(decoy_words)
        if self._unknown_token:
            grammar.append(self._unknown_token)
        if not grammar:
            # Vosk 0.3.45 builds no decoding graph for an empty grammar and the process dies of a segmentation fault.
            raise ValueError(f"This Vosk model can hear none of the phrases {list(phrases)!r} and has no unknown word")
        return _Grammar(json.dumps(grammar, ensure_ascii=False), unknown)

    def _spelled(self, phrase: str) -> str | None:
        """The phrase as a grammar line in the model's spelling, None if a word is missing."""
        words = [self.spelling(token) for token in _tokens(phrase)]
        spelled = [word for word in words if word is not None]
        return " ".join(spelled) if spelled and len(spelled) == len(words) else None


class VoskStream:
    """One utterance being recognized: partial text after every chunk, the transcript at the end.

    Vosk finalizes a segment by itself when it detects trailing silence after speech; the stream keeps those segments
    so that `finish` reports the whole utterance.
    """

    def __init__(self, recognizer: _VoskRecognizer, unknown: frozenset[str]) -> None:
        self._recognizer = recognizer
        self._unknown = unknown
        self._segments: list[tuple[str, float]] = []
        self._finished = False

    def accept(self, chunk: bytes) -> str:
        """Feed 16-bit mono samples; returns what has been recognized so far (may change until `finish`)."""
        if self._finished:
            raise RuntimeError("This stream has finished: start a new one for the next utterance.")
        if self._recognizer.AcceptWaveform(chunk):
            self._segments.extend(self._words(self._recognizer.Result()))
            partial = ""
        else:
            partial = str(json.loads(self._recognizer.PartialResult()).get("partial", ""))
        return " ".join([*(word for word, _ in self._segments), *map(self._shown, partial.split())])

    def finish(self) -> HeardText:
        if not self._finished:
            self._finished = True
            self._segments.extend(self._words(self._recognizer.FinalResult()))
        words = self._segments
        return HeardText(" ".join(word for word, _ in words), min((conf for _, conf in words), default=0.0))

    def _words(self, result: str) -> list[tuple[str, float]]:
        # Built from the word list rather than "text", so that text and confidence describe the same words.
        return [(self._shown(str(w["word"])), float(w["conf"])) for w in json.loads(result).get("result", [])]

    def _shown(self, word: str) -> str:
        return UNKNOWN if word in self._unknown else word
