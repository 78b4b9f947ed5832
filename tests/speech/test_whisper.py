"""Whisper hears real speech: eSpeak-NG voices in German, English and French, through the base model set-up installs."""

from __future__ import annotations

import pytest

from voicemaster.speech.audio import Audio
from voicemaster.speech.models import require_model
from voicemaster.speech.phrases import load
from voicemaster.speech.recognition import Context, ContextName
from voicemaster.speech.synthesis import DEFAULT_VOICES, Espeak
from voicemaster.speech.whisper_engine import (
    Hypothesis,
    Transcripts,
    WhisperEngine,
    WhisperRecognizer,
    complete_tokenizer,
    decide,
    said_once,
)

OPTIONS = {
    "de": ("Berlin", "Paris", "Rom", "Wien"),
    "en": ("London", "Paris", "Rome", "Vienna"),
    "fr": ("Londres", "Paris", "Rome", "Vienne"),
}

# Said by eSpeak-NG's default voices and understood at this model's accuracy; `voicemaster bench asr` measures the
# rest (other voices, speeds, car noise), where the figures are far from perfect.
SPOKEN = [
    ("de", ContextName.ANSWER, "Antwort B", "answer", "B"),
    ("de", ContextName.ANSWER, "B wie Berta", "answer", "B"),
    ("de", ContextName.ANSWER, "Telefonjoker", "joker", "phone"),
    ("de", ContextName.CONFIRM, "Nein, doch nicht.", "no", None),
    ("en", ContextName.ANSWER, "Answer C", "answer", "C"),
    ("en", ContextName.ANSWER, "Ask the audience", "joker", "audience"),
    ("en", ContextName.CONFIRM, "Yes, final answer.", "yes", None),
    ("en", ContextName.NUMBER, "Ten on A and the rest on C", "placement", "A=10,C=rest"),
    # "Everything on B." came out as "And." on a 2-core AVX2 EPYC (CTranslate2's int8 arithmetic differs by CPU).
    ("en", ContextName.NUMBER, "Everything on D.", "placement", "D=all"),
    ("de", ContextName.NUMBER, "Zehn auf A, den Rest auf C.", "placement", "A=10,C=rest"),
    ("de", ContextName.NUMBER, "Fünfhunderttausend auf A und den Rest auf D.", "placement", "A=500000€,D=rest"),
    ("de", ContextName.NUMBER, "Doch fünfzehn auf A.", "placement", "A=15"),  # a correction of one option
    ("fr", ContextName.NUMBER, "Dix sur A et le reste sur C.", "placement", "A=10,C=rest"),
    ("fr", ContextName.CONFIRM, "Oui", "yes", None),
    # A new player's name is free speech, taken from the phrase it was said in (names outside the prompt: the
    # quizmaster reads every name back, as "Lena" came out as "Leo").
    ("de", ContextName.NAME, "Ich heiße Markus.", "name", "Markus"),
    ("en", ContextName.NAME, "My name is Emma.", "name", "Emma"),
    ("fr", ContextName.NAME, "Je m'appelle Marie.", "name", "Marie"),
]

# Harder for this model: each may be refused (asked again), and none may be taken for something that acts at once.
HARD = [
    ("de", ContextName.ANSWER, "Ich nehme Wien.", "answer", "D"),
    ("de", ContextName.ANSWER, "Ich würde D sagen", "answer", "D"),
    ("de", ContextName.CONFIRM, "Nein, warte.", "no", None),
    ("fr", ContextName.ANSWER, "Réponse C", "answer", "C"),
    ("fr", ContextName.ANSWER, "Je vais dire C", "answer", "C"),
    ("fr", ContextName.ANSWER, "Plutôt la D", "answer", "D"),
    ("fr", ContextName.CONFIRM, "Non, attends", "no", None),
]

SAID_BACK = {"answer", "walk_away", "quit", "placement"}
"""What the quizmaster says back and asks about before acting on it (tests/host check each)."""

BACKGROUND = [
    ("de", ContextName.NUMBER, "Wo ist die nächste Tankstelle?"),
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


@pytest.mark.parametrize(("language", "context", "text", "intent", "value"), HARD)
def test_what_is_not_understood_is_asked_again_or_said_back_never_acted_on(
    recognizer: WhisperRecognizer, language: str, context: ContextName, text: str, intent: str, value: str | None
) -> None:
    heard = recognizer.recognize(Espeak(DEFAULT_VOICES).render(text, language), _context(language, context))
    # At worst a meaning the quizmaster says back and acts on only after a clear yes: on a 2-core AVX2 EPYC,
    # "Je vais dire C" came out as the prompt's own "Je m'arrête." (walking away, which is asked about first).
    # `voicemaster bench asr` counts such readings ("taken for something else").
    assert (heard.intent, heard.value) in {(intent, value), ("unknown", None)} or heard.intent in SAID_BACK, heard


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


@pytest.mark.parametrize(
    ("transcript", "intent"),
    [
        ("Ja, endgültig. Ja, endgültig.", "yes"),
        ("Ja, endgültig. Ja, endgültig. Ja, end", "yes"),  # repeated until the length ran out
        ("Ja, endgültig. Nein.", "unknown"),  # two different things said: never collapsed into one
        ("Ja. Nein, warte.", "no"),  # a yes taken back is a no, never collapsed into the yes
        ("Ja. Endgültig. Ja. Endgültig. Ja.", "yes"),  # a repeated utterance of two sentences
    ],
)
def test_a_transcript_the_decoder_repeated_counts_once(transcript: str, intent: str) -> None:
    transcripts = Transcripts([Hypothesis(said_once(transcript), -0.1)], plain=said_once(transcript), no_speech=0.0)
    heard = decide(transcripts, _context("de", ContextName.CONFIRM), load("de"))
    assert heard.intent == intent


def test_the_tokenizer_splits_words_as_the_model_learned_them() -> None:
    # The packaged tokenizer lacks GPT-2's first merge: " the" came out as " " + "the", and the prompted decoder
    # copied such odd spellings ("Say  that again").
    tokenizer = complete_tokenizer(require_model("whisper", "en") / "tokenizer.json")
    encoded = tokenizer.encode(" Ask the audience. Je vais tout dire.", add_special_tokens=False)
    assert encoded.tokens == ["ĠAsk", "Ġthe", "Ġaudience", ".", "ĠJe", "Ġvais", "Ġtout", "Ġdire", "."]
