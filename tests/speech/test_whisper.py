"""Whisper hears real speech: eSpeak-NG voices in German, English and French, through the base model set-up installs."""

from __future__ import annotations

import pytest

from voicemaster.speech.audio import Audio
from voicemaster.speech.models import require_model
from voicemaster.speech.recognition import Context, ContextName
from voicemaster.speech.synthesis import DEFAULT_VOICES, Espeak
from voicemaster.speech.whisper_engine import WhisperEngine, WhisperRecognizer

OPTIONS = {
    "de": ("Berlin", "Paris", "Rom", "Wien"),
    "en": ("London", "Paris", "Rome", "Vienna"),
    "fr": ("Londres", "Paris", "Rome", "Vienne"),
}

SPOKEN = [
    ("de", ContextName.ANSWER, "Antwort B", "answer", "B"),
    ("de", ContextName.ANSWER, "B wie Berta", "answer", "B"),
    ("de", ContextName.ANSWER, "Ich nehme Wien.", "answer", "D"),
    ("de", ContextName.ANSWER, "Publikumsjoker", "joker", "audience"),
    ("de", ContextName.CONFIRM, "Ja, endgültig.", "yes", None),
    ("de", ContextName.CONFIRM, "Nein, warte.", "no", None),
    ("en", ContextName.ANSWER, "Answer C", "answer", "C"),
    ("en", ContextName.ANSWER, "Fifty fifty", "joker", "fifty_fifty"),
    ("en", ContextName.ANSWER, "I'll take the money.", "walk_away", None),
    ("en", ContextName.CONFIRM, "Yes, final answer.", "yes", None),
    ("fr", ContextName.ANSWER, "Réponse A", "answer", "A"),
    ("fr", ContextName.ANSWER, "L'avis du public", "joker", "audience"),
    ("fr", ContextName.CONFIRM, "Oui, c'est mon dernier mot.", "yes", None),
    ("fr", ContextName.CONFIRM, "Non", "no", None),
]

BACKGROUND = [
    ("de", ContextName.ANSWER, "Kannst du das Radio leiser machen?"),
    ("de", ContextName.CONFIRM, "Wo ist denn die nächste Ausfahrt?"),
    ("en", ContextName.CONFIRM, "I think we need petrol soon."),
    ("fr", ContextName.ANSWER, "On s'arrête pour manger bientôt ?"),
]


@pytest.fixture(scope="module")
def recognizer() -> WhisperRecognizer:
    return WhisperRecognizer(WhisperEngine(require_model("whisper", "de")))


def _context(language: str, name: ContextName) -> Context:
    return Context(name, language, OPTIONS[language] if name is ContextName.ANSWER else ())


@pytest.mark.parametrize(("language", "context", "text", "intent", "value"), SPOKEN)
def test_spoken_commands_are_understood(
    recognizer: WhisperRecognizer, language: str, context: ContextName, text: str, intent: str, value: str | None
) -> None:
    heard = recognizer.recognize(Espeak(DEFAULT_VOICES).render(text, language), _context(language, context))
    assert (heard.intent, heard.value) == (intent, value), heard
    assert 0 < heard.confidence <= 1
    assert heard.decode_ms > 0


@pytest.mark.parametrize(("language", "context", "text"), BACKGROUND)
def test_background_talk_is_never_an_answer_or_a_yes(
    recognizer: WhisperRecognizer, language: str, context: ContextName, text: str
) -> None:
    heard = recognizer.recognize(Espeak(DEFAULT_VOICES).render(text, language), _context(language, context))
    assert heard.intent == "unknown", heard
    assert heard.text  # what was heard is reported, so the quizmaster can say it did not understand


def test_silence_is_not_an_utterance(recognizer: WhisperRecognizer) -> None:
    silence = Audio(bytes(2 * 16_000), 16_000)
    assert recognizer.recognize(silence, _context("de", ContextName.CONFIRM)).intent == "unknown"
