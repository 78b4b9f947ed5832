"""Choosing a recognizer: Vosk where a Vosk model for the language is installed, else Whisper, else what to install."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.grammar import grammar
from voicemaster.speech.hearing.intents import understand
from voicemaster.speech.hearing.normal_form import spoken
from voicemaster.speech.hearing.phrases import HearPhrases, load
from voicemaster.speech.hearing.recognition import NOTHING_HEARD, Recognizer, RecognizerUnavailable

EngineName = Literal["auto", "vosk", "whisper"]
ENGINES: tuple[EngineName, ...] = ("auto", "vosk", "whisper")

VOSK_CONFIDENT = 0.6
"""Vosk's word confidence times the match closeness must reach this, else the player is asked again."""


class VoskRecognizer:
    """Vosk decodes against the context's phrases as a grammar, so what it hears is a phrase or `[unk]`."""

    def __init__(self, model_dir: Path) -> None:
        from voicemaster.speech.hearing.vosk_engine import VoskEngine

        self.engine = VoskEngine(model_dir)

    def prepare(self, context: Context) -> None:
        del context  # the grammar goes with each utterance; making it takes no time worth moving

    def recognize(
        self,
        audio: Audio,
        context: Context,
        *,
        over_our_voice: bool = False,
        crowded: bool = False,
        line_stopped_at: float | None = None,
    ) -> Heard:
        del over_our_voice, crowded, line_stopped_at  # the grammar decides, whoever spoke over what
        from voicemaster.speech.signal import silent  # numpy: not loaded by the command line's start

        if silent(audio):
            return NOTHING_HEARD
        started = time.perf_counter()
        phrases = load(context.language)
        transcript = self.engine.transcribe(audio, vocabulary(context, phrases))
        meaning = understand(transcript.text, context, phrases)
        confidence = round(meaning.score * transcript.confidence, 3)
        known = meaning.intent != Intent.UNKNOWN and confidence >= VOSK_CONFIDENT
        return Heard(
            meaning.intent if known else Intent.UNKNOWN,
            meaning.value if known else None,
            transcript.text,
            confidence,
            round((time.perf_counter() - started) * 1000, 1),
        )


def vocabulary(context: Context, phrases: HearPhrases) -> list[str]:
    """The grammar for Vosk: whole phrases, or for money placement the words that placements are made of."""
    # A phrase written with digits or symbols ("50 50", "€") has a spelled-out twin that Vosk can hear.
    texts = [phrase.said for phrase in grammar(context, phrases) if _speakable(phrase.said)]
    if context.name is ContextName.NUMBER:
        words = phrases.placement
        said = [*words.joiners, *words.bundles, *words.euros, *words.numbers, *words.amount, *words.rest]
        said += [*words.everything, *(form for forms in phrases.letters.values() for form in forms)]
        templates = (text.replace("{amount}", " ").replace("{letter}", " ") for text in said)
        texts += [word for text in templates for word in spoken(text).split() if _speakable(word)]
    return sorted(set(texts))


def _speakable(text: str) -> bool:
    return all(character.isalpha() or character in " '" for character in text)


def open_recognizer(engine: EngineName, language: str) -> Recognizer:
    return recognizers(engine)(language)


def recognizers(engine: EngineName) -> Callable[[str], Recognizer]:
    """The recognizer for each language, as `open_recognizer` chooses it, each model loaded once: a multilingual
    model (Whisper base) hears every language from one load, which a manifest of many languages needs."""
    loaded: dict[tuple[str, Path], Recognizer] = {}

    def for_language(language: str) -> Recognizer:
        kind, path = _model_for(engine, language)
        if (kind, path) not in loaded:
            loaded[kind, path] = VoskRecognizer(path) if kind == "vosk" else _whisper(path)
        return loaded[kind, path]

    return for_language


def _whisper(path: Path) -> Recognizer:
    from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer

    return WhisperRecognizer(path)


def _model_for(engine: EngineName, language: str) -> tuple[str, Path]:
    from voicemaster.models.manifest import ModelError
    from voicemaster.models.verify import find_model, require_model

    # A missing model is what every first run meets: it must come out as the one line that says what to run.
    try:
        if engine in ("auto", "vosk"):
            path = find_model("vosk", language)
            if path is not None:
                return "vosk", path
        return "whisper", require_model(engine if engine == "vosk" else "whisper", language)
    except ModelError as error:
        raise RecognizerUnavailable(str(error)) from None
