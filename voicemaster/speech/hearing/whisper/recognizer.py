"""The recognizer as one pipeline: audio, features, encoder, then the strategy of the listening context.

The encoder hears the utterance once (`listen`); what is done with it depends on the kind of context
(`strategies.py`): a grammar scored against it (an answer, "final answer?", a player's name), a money placement read
by its words, or a new name read freely. The quizmaster says back what is open-ended before it counts.
"""

from __future__ import annotations

import math
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.hints import python_extra
from voicemaster.speech import cores
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.band import narrowband
from voicemaster.speech.hearing.grammar import grammar
from voicemaster.speech.hearing.normal_form import Normalized
from voicemaster.speech.hearing.phrases import load
from voicemaster.speech.hearing.recognition import (
    LINE_FADE_SECONDS,
    NOTHING_HEARD,
    SPOKEN_ON_SECONDS,
    RecognizerUnavailable,
)
from voicemaster.speech.hearing.whisper.decision import named_at_the_end, named_by_a_word, spelled_from
from voicemaster.speech.hearing.whisper.model import Array, Whisper
from voicemaster.speech.hearing.whisper.strategies import (
    ByGrammar,
    Encoded,
    Strategy,
    Tuning,
    budget_for,
    decided,
    strategy_for,
    trie,
)
from voicemaster.speech.hearing.whisper.tokens import Tokens, complete_tokenizer
from voicemaster.speech.signal import RECOGNITION_RATE, resample, silent, to_float

FRAMES_PER_SECOND = 100
SAMPLES_PER_FRAME = RECOGNITION_RATE // FRAMES_PER_SECOND
MAX_FRAMES = 3000
"""Whisper's full window: 30 s."""


class WhisperRecognizer:
    """Whisper base, loaded once (about a second) for a whole game; each `recognize` is independent."""

    def __init__(self, model_dir: Path, tuning: Tuning | None = None, *, int8: bool = False) -> None:
        """`int8`: the all-int8 arithmetic (`model.Whisper`), the waiting quizmaster's (`serve.reading`)."""
        try:
            from faster_whisper.feature_extractor import FeatureExtractor
        except ImportError:
            raise RecognizerUnavailable(f"faster-whisper is not installed: {python_extra('whisper')}.") from None
        if not (model_dir / "model.bin").is_file():
            raise RecognizerUnavailable(f"no Whisper model in {model_dir}: run `voicemaster models setup`.")
        self.model_dir = model_dir
        self.model = Whisper(model_dir, int8=int8)
        self.tuning = tuning or Tuning()
        self._tokenizer = complete_tokenizer(model_dir / "tokenizer.json")
        self._features = FeatureExtractor()

    def prepare(self, context: Context) -> None:
        """Works out the context's token trie ahead, while the question is read, so hearing the answer needn't; and
        the phrases' words the decision compares a free reading with (kept per context by `spelled_from`,
        `named_at_the_end` and `named_by_a_word`), which the first decision of every question paid otherwise."""
        phrases = load(context.language)
        choices = grammar(context, phrases)
        trie(self.tokens(context.language), choices)
        spelled_from(Normalized(""), choices, phrases)
        named_at_the_end(Normalized(""), choices, phrases)
        named_by_a_word(Normalized(""), choices, phrases)

    def recognize(
        self,
        audio: Audio,
        context: Context,
        *,
        over_our_voice: bool = False,
        crowded: bool = False,
        line_stopped_at: float | None = None,
    ) -> Heard:
        return self.recognize_with(
            strategy_for(context),
            audio,
            context,
            over_our_voice=over_our_voice,
            crowded=crowded,
            line_stopped_at=line_stopped_at,
        )

    def recognize_with(
        self,
        strategy: Strategy,
        audio: Audio,
        context: Context,
        *,
        over_our_voice: bool = False,
        crowded: bool = False,
        line_stopped_at: float | None = None,
    ) -> Heard:
        """`audio` heard by the encoder, then by `strategy`; timed whole. A silent or empty recording is heard as
        nothing, undecoded: Whisper would make a word up for it. How it was heard (`over_our_voice`, `crowded`,
        `line_stopped_at`) is the listening pipeline's judgement (`Recognizer.recognize`)."""
        if silent(audio):
            return NOTHING_HEARD
        started = time.perf_counter()
        with cores.deciding():
            listened = self.listen(audio, context.language, over_our_voice=over_our_voice, crowded=crowded)
            if over_our_voice and line_stopped_at is not None and isinstance(strategy, ByGrammar):
                heard = self._over_a_line(strategy, listened, audio, context, line_stopped_at)
            else:
                heard = strategy.hear(listened, context)
        elapsed = round((time.perf_counter() - started) * 1000, 1)
        return Heard(heard.intent, heard.value, heard.text, heard.confidence, elapsed)

    def _over_a_line(
        self, strategy: ByGrammar, listened: Encoded, audio: Audio, context: Context, stopped_at: float
    ) -> Heard:
        """An utterance begun over our line, which stopped for it `stopped_at` seconds in: decided by the decoder's
        words (`ByGrammar.hear`); where they name nothing and the scores pick an answer, what the player said after
        the line stopped is read as said after a line, and its decision stands when it is that same answer
        (docs/decisions/030-the-rest-after-our-line.md)."""
        if context.name is ContextName.CONFIRM:  # a placement said back is corrected by words (`ByGrammar.hear`)
            return strategy.hear(listened, context)
        evidence, reading = strategy.evidence(listened, context)
        heard = decided(evidence, reading, listened, context)
        if heard.intent is not Intent.UNKNOWN or evidence.meaning is None or evidence.meaning[0] is not Intent.ANSWER:
            return heard
        if set(reading.words.split()) & listened.phrases.words.negation:  # "nicht B": the rest would be "B"
            return heard
        rest = after_the_line(audio, stopped_at)
        if rest is None or silent(rest):
            return heard
        clear = self.listen(rest, context.language, crowded=listened.crowded)
        found, reading = strategy.evidence(clear, context)
        said = decided(found, reading, clear, context)
        return said if (said.intent, said.value) == evidence.meaning else heard

    def listen(self, audio: Audio, language: str, *, over_our_voice: bool = False, crowded: bool = False) -> Encoded:
        """The utterance through the encoder, ready for a strategy to decode, with how it was heard."""
        samples = to_float(resample(audio, RECOGNITION_RATE))
        keys = self.model.listen(self.model.encode(self.features(samples)))
        budget = budget_for(len(samples) / RECOGNITION_RATE)
        return Encoded(
            self.model,
            keys,
            self.tokens(language),
            load(language),
            budget,
            self.tuning,
            narrowband(samples),
            crowded,
            over_our_voice,
        )

    def tokens(self, language: str) -> Tokens:
        return _tokens(self._tokenizer, language)

    def features(self, samples: Array) -> Array:
        """The log-mel features of a window sized to the utterance: the encoder's time grows with it."""
        seconds = max(len(samples) / RECOGNITION_RATE + 0.5, self.tuning.window_seconds)
        frames = min(MAX_FRAMES, math.ceil(seconds * FRAMES_PER_SECOND))
        padding = max(0, frames * SAMPLES_PER_FRAME - len(samples))
        features = self._features(samples, padding=padding)[:, :frames]
        return np.ascontiguousarray(features, dtype=np.float32)


def after_the_line(audio: Audio, stopped_at: float) -> Audio | None:
    """What of `audio` follows our line's stop at `stopped_at` seconds in and its fading; None if too little."""
    first = 2 * round((stopped_at + LINE_FADE_SECONDS) * audio.rate)
    rest = Audio(audio.samples[first:], audio.rate)
    return rest if rest.seconds >= SPOKEN_ON_SECONDS else None


@lru_cache(maxsize=64)
def _tokens(tokenizer: object, language: str) -> Tokens:
    return Tokens(tokenizer, language)
