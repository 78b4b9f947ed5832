"""The recognizer as one pipeline: audio, features, encoder, scoring, decision.

In a context with a grammar (answer, confirm, a name among the players') every phrase that counts is scored against
the audio and the decision weighs the scores. Where what may be said is open (a money placement, a new player's name)
the decoder reads the audio freely, prompted with the context's examples, and the text matcher reads its words; the
quizmaster says those back before they count. A money placement's context also holds yes, no and commands: when the
words are no placement, those are decided by the grammar.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from voicemaster.hints import python_extra
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.intents import UNKNOWN, Understanding, parse_placement, understand
from voicemaster.speech.hearing.phrases import HearPhrases, Phrase, grammar, load
from voicemaster.speech.hearing.recognition import Context, ContextName, Heard, Intent, RecognizerUnavailable
from voicemaster.speech.hearing.whisper.decision import MARGINS, Evidence, Margins, decide, weigh
from voicemaster.speech.hearing.whisper.model import Array, AudioKeys, Whisper
from voicemaster.speech.hearing.whisper.search import search, transcribe
from voicemaster.speech.hearing.whisper.tokens import Tokens, complete_tokenizer
from voicemaster.speech.hearing.whisper.trie import TokenTrie, build
from voicemaster.speech.signal import RECOGNITION_RATE, resample, to_float

FRAMES_PER_SECOND = 100
SAMPLES_PER_FRAME = RECOGNITION_RATE // FRAMES_PER_SECOND
MAX_FRAMES = 3000
"""Whisper's full window: 30 s."""
TOKENS_FIXED, TOKENS_PER_SECOND = 4, 6
"""The longest free reading worth decoding for an utterance of so many seconds: a command is a few words, and a
longer reading is the decoder repeating itself ("Ppppp...")."""
MAX_PROMPT_TOKENS = 223
"""Whisper's decoder sees 448 positions; like Whisper itself, a prompt keeps at most half of them (less one)."""
MAX_PHRASE_TOKENS = 200
"""A phrase is scored on its first so many tokens: with the prompt and the start they stay inside the 448 positions
(a 60-word option, a 5 000-character name would pass them and crash the decoder)."""


@dataclass(frozen=True)
class Tuning:
    """How the recognizer listens; `bench asr` compares settings, a game uses the defaults."""

    margins: Margins = MARGINS
    window_seconds: float = 5.0
    """The shortest window the encoder sees. Whisper learned 30 s windows; measured on the real recordings (2-core
    EPYC), a 5 s window understood 82 % where 2.5 s understood 78 %, at twice the encoder's time (about 110 ms)."""
    prune: float = 8.0
    """A prefix this far (natural log) below the best whole phrase is dropped: wider than either margin's cut-off
    on the meaning, so that the decision is the one a search of every phrase would make."""
    beam: int = 24
    """At most this many prefixes are extended per token, whatever the audio."""
    by_grammar: bool = True
    """False: the free reading's words alone decide (the baseline `bench asr` compares with)."""
    prompted: bool = True
    """True: each phrase's score is the mean of its log-probability after no text and after the context's examples
    as the decoder's previous text. Measured on the real recordings (`bench asr`, engine `whisper-unprompted`) at
    the margins in use: the mean understood 97 % where the plain score understood 84 %, neither with a wrong meaning;
    the prompted score alone makes the listed phrases attractors for garbled audio."""


class WhisperRecognizer:
    """Whisper base, loaded once (about a second) for a whole game; each `recognize` is independent."""

    def __init__(self, model_dir: Path, tuning: Tuning = Tuning()) -> None:
        try:
            from faster_whisper.feature_extractor import FeatureExtractor
        except ImportError:
            raise RecognizerUnavailable(f"faster-whisper is not installed: {python_extra('whisper')}.") from None
        if not (model_dir / "model.bin").is_file():
            raise RecognizerUnavailable(f"no Whisper model in {model_dir}: run `voicemaster models setup`.")
        self.model = Whisper(model_dir)
        self.tuning = tuning
        self._tokenizer = complete_tokenizer(model_dir / "tokenizer.json")
        self._features = FeatureExtractor()
        self.last: Evidence | None = None
        """The evidence behind the last grammar decision, for `bench asr`'s margin curve."""

    def recognize(self, audio: Audio, context: Context) -> Heard:
        started = time.perf_counter()
        heard = self._recognize(audio, context)
        elapsed = round((time.perf_counter() - started) * 1000, 1)
        return Heard(heard.intent, heard.value, heard.text, heard.confidence, elapsed)

    def prepare(self, context: Context) -> None:
        """Works out the context's token trie ahead, while the question is read, so hearing the answer needn't."""
        _trie(_tokens(self._tokenizer, context.language), grammar(context, load(context.language)))

    def _recognize(self, audio: Audio, context: Context) -> Heard:
        self.last = None
        samples = to_float(resample(audio, RECOGNITION_RATE))
        phrases = load(context.language)
        tokens = _tokens(self._tokenizer, context.language)
        listened = self.model.listen(self.model.encode(self.features(samples)))
        budget = math.ceil(TOKENS_FIXED + TOKENS_PER_SECOND * len(samples) / RECOGNITION_RATE)
        if context.name is ContextName.NAME and not context.names:  # a new player's name: said back first
            text = self._read(listened, tokens, budget, self._examples(context, tokens, phrases))
            return _heard(understand(text, context, phrases), text)
        if not self.tuning.by_grammar:
            text = self._read(listened, tokens, budget, beam=1)
            return _heard(_meaning(text, context, phrases), text)
        choices = grammar(context, phrases)
        prompt = (tokens.special.previous, *tokens.encode(" " + examples_of(context, phrases)))[:MAX_PROMPT_TOKENS]
        scores = search(
            self.model,
            listened,
            _trie(tokens, choices),
            tokens.special,
            free_budget=budget,
            prune=self.tuning.prune,
            beam=self.tuning.beam,
            prompt=prompt if self.tuning.prompted else (),
            spell=tokens.decode,
        )
        text = tokens.decode(scores.free_tokens)
        self.last = weigh(scores.phrases, choices, scores.free, scores.no_speech, reading=text, hear=phrases)
        if context.name in (ContextName.NUMBER, ContextName.CONFIRM):
            # A placement (or, read back in the confirm context, its correction) is open-ended: its words decide,
            # and the quizmaster says it back before it counts. The free reading first, as it owes nothing to a
            # prompt; then, for a placement, a reading prompted with examples of placements.
            placement = parse_placement(text, phrases)
            if placement is None and context.name is ContextName.NUMBER:
                prompted = self._read(listened, tokens, budget, self._examples(context, tokens, phrases))
                placement = parse_placement(prompted, phrases)
                if placement is not None:
                    return Heard(Intent.PLACEMENT, placement, prompted, 1.0)
            if placement is not None:
                return Heard(Intent.PLACEMENT, placement, text, 1.0)
        return decide(self.last, _meaning(text, context, phrases), text, self.tuning.margins)

    def _examples(self, context: Context, tokens: Tokens, phrases: HearPhrases) -> tuple[int, ...]:
        return (tokens.special.previous, *tokens.encode(" " + phrases.expect[context.name]))[:MAX_PROMPT_TOKENS]

    def features(self, samples: Array) -> Array:
        """The log-mel features of a window sized to the utterance: the encoder's time grows with it."""
        seconds = max(len(samples) / RECOGNITION_RATE + 0.5, self.tuning.window_seconds)
        frames = min(MAX_FRAMES, math.ceil(seconds * FRAMES_PER_SECOND))
        padding = max(0, frames * SAMPLES_PER_FRAME - len(samples))
        features = self._features(samples, padding=padding)[:, :frames]
        return np.ascontiguousarray(features, dtype=np.float32)

    def _read(
        self, listened: AudioKeys, tokens: Tokens, budget: int, prompt: tuple[int, ...] = (), *, beam: int = 2
    ) -> str:
        start = [*prompt, *tokens.special.start]
        read = transcribe(self.model, listened, start, tokens.special, budget=budget, beam=beam, spell=tokens.decode)
        return tokens.decode(read)


def examples_of(context: Context, phrases: HearPhrases) -> str:
    """The context's examples, then the options or names of the moment. Not every command: a phrase in the prompt
    draws garbled audio to itself ("Ich würde D sagen", read "Ich will die Margen.", scored as "Schneller" when the
    prompt listed it)."""
    extra = context.options if context.name is ContextName.ANSWER else ()
    if context.name is ContextName.NAME:
        extra = context.names
    return " ".join([phrases.expect[context.name], *(f"{text}." for text in extra)])


def _meaning(text: str, context: Context, phrases: HearPhrases) -> Understanding:
    return understand(text, context, phrases) if text else UNKNOWN


def _heard(meant: Understanding, text: str) -> Heard:
    return Heard(meant.intent, meant.value, text, meant.score)


@lru_cache(maxsize=64)
def _tokens(tokenizer: object, language: str) -> Tokens:
    return Tokens(tokenizer, language)


@lru_cache(maxsize=32)
def _trie(tokens: Tokens, choices: tuple[Phrase, ...]) -> TokenTrie:
    return build([phrase.written for phrase in choices], lambda spelling: tokens.encode(spelling)[:MAX_PHRASE_TOKENS])
