"""Whisper hears speech by the grammar: eSpeak-NG voices in German, English and French, and real people's recordings
(klettres-data, installed by set-up), through the base model set-up installs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from voicemaster.config.voice import DEFAULT_VOICES
from voicemaster.dialogue.meaning import Context, ContextName, Intent
from voicemaster.models.verify import require_model
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.intents import understand
from voicemaster.speech.hearing.phrases import load
from voicemaster.speech.hearing.whisper.decision import MARGINS, Evidence, Meaning, decide
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.hearing.whisper.search import FreeReading
from voicemaster.speech.hearing.whisper.tokens import Special, complete_tokenizer
from voicemaster.speech.voice.synthesis import Espeak

pytestmark = pytest.mark.model  # Whisper and its tokenizer, loaded

OPTIONS = {
    "de": ("Berlin", "Paris", "Rom", "Wien"),
    "en": ("London", "Paris", "Rome", "Vienna"),
    "fr": ("Londres", "Paris", "Rome", "Vienne"),
}

# Said by eSpeak-NG's default voices and understood at this model's accuracy; `voicemaster bench asr` measures the
# rest (other voices, speeds, car noise), where the figures are far from perfect.
SPOKEN = [
    ("de", ContextName.ANSWER, "Antwort B", "answer", "B"),
    ("de", ContextName.ANSWER, "Telefonjoker", "joker", "phone"),
    ("de", ContextName.CONFIRM, "Nein, doch nicht.", "no", None),
    ("en", ContextName.ANSWER, "Answer C", "answer", "C"),
    ("en", ContextName.ANSWER, "Ask the audience", "joker", "audience"),
    ("en", ContextName.CONFIRM, "Yes, final answer.", "yes", None),
    ("en", ContextName.NUMBER, "Ten on A and the rest on C", "placement", "A=10,C=rest"),
    # "Everything on B." came out as "And." on a 2-core AVX2 EPYC (CTranslate2's int8 arithmetic differs by CPU).
    ("en", ContextName.NUMBER, "Everything on D.", "placement", "D=all"),
    ("de", ContextName.NUMBER, "Zehn auf A, den Rest auf C.", "placement", "A=10,C=rest"),
    ("de", ContextName.NUMBER, "Doch fünfzehn auf A.", "placement", "A=15"),  # a correction of one option
    ("fr", ContextName.NUMBER, "Dix sur A et le reste sur C.", "placement", "A=10,C=rest"),
    ("fr", ContextName.CONFIRM, "Oui", "yes", None),
    # The screen for the room, asked for while a question is open (the answers' grammar around it). eSpeak-NG's
    # French "adresse de l'écran" is not heard as anything (asked again); Pico's is (tests/screen/test_address.py).
    ("de", ContextName.ANSWER, "Adresse des Bildschirms", "screen_address", None),
    ("en", ContextName.ANSWER, "What's the screen address?", "screen_address", None),
    # A new player's name is free speech, taken from the phrase it was said in (names outside the prompt: the
    # quizmaster reads every name back, as "Lena" came out as "Leo").
    ("de", ContextName.NAME, "Ich heiße Markus.", "name", "Markus"),
    ("en", ContextName.NAME, "My name is Emma.", "name", "Emma"),
    ("fr", ContextName.NAME, "Je m'appelle Marie.", "name", "Marie"),
]

# Harder for this model: each may be refused (asked again), and none may be taken for something that acts at once.
HARD = [
    ("de", ContextName.ANSWER, "B wie Berta", "answer", "B"),
    # Read as "5000 auf A und den Rest auf D": said back in full, and a no lets the team say it again.
    ("de", ContextName.NUMBER, "Fünfhunderttausend auf A und den Rest auf D.", "placement", "A=500000€,D=rest"),
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
def recognizer(whisper: Callable[[str], WhisperRecognizer]) -> WhisperRecognizer:
    return whisper("de")


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


def test_a_reading_the_decoder_repeats_counts_once() -> None:
    # Whisper, given a short window, says "Yes. Yes. Yes." for one "Yes": the reading ends at the first repetition,
    # with the end of text's probability there, so that its length and score are those of what was said once.
    yes, stop, end = 7, 8, 50
    rows = []
    for token in (yes, stop, yes, stop):
        row = np.full(60, -9.0, dtype=np.float32)
        row[token] = -0.1
        row[end] = -2.0
        rows.append(row)
    reading = FreeReading(Special(start=(1,), previous=2, end=end, blank=3, no_speech=4), budget=10)
    chosen = [reading.advance(row) for row in rows]
    assert chosen == [yes, stop, yes, None]
    assert reading.tokens == [yes, stop]
    assert reading.score == pytest.approx(-0.1 - 0.1 - 2.0)


def _evidence(meaning: Meaning, score: float, rival: float, free: float, phrase: str) -> Evidence:
    rival_meaning: Meaning = (Intent.UNKNOWN, None)  # another meaning, scoring `rival`
    return Evidence(meaning, phrase, score, rival, free, {meaning: score, rival_meaning: rival})


def test_a_yes_is_not_taken_when_the_words_heard_mean_something_else() -> None:
    # "Ja. Nein, warte.": whatever the phrase scores say, the free reading names a no.
    phrases = load("de")
    context = _context("de", ContextName.CONFIRM)
    evidence = _evidence((Intent.YES, None), -1.0, -9.0, -3.0, "ja")
    heard = decide(evidence, understand("Ja. Nein, warte.", context, phrases), "Ja. Nein, warte.")
    assert heard.intent == "unknown"
    assert decide(evidence, understand("Ja.", context, phrases), "Ja.").intent == "yes"


def test_a_short_phrase_does_not_stand_for_a_long_utterance() -> None:
    # "Oui." may be likelier to the decoder than a long, garbled reading; the audio plainly held more than a yes.
    context = _context("fr", ContextName.CONFIRM)
    text = "S'occuase de choulaque, le reste de choula."
    evidence = _evidence((Intent.YES, None), -4.0, -9.0, -20.0, "oui")
    assert decide(evidence, understand(text, context, load("fr")), text).intent == "unknown"


@pytest.mark.parametrize(
    ("score", "rival", "free", "intent"),
    [
        (-3.0, -3.0 - MARGINS.meaning, -3.0, "answer"),  # clearly this meaning, and what the decoder reads itself
        (-3.0, -3.0 - MARGINS.meaning + 0.1, -3.0, "unknown"),  # another meaning nearly as likely
        (-3.0 - MARGINS.free - 0.1, -30.0, -3.0, "unknown"),  # the decoder reads something far likelier: talk
    ],
)
def test_the_two_margins_decide(score: float, rival: float, free: float, intent: str) -> None:
    evidence = _evidence((Intent.ANSWER, "C"), score, rival, free, "Antwort C")
    heard = decide(evidence, understand("", _context("de", ContextName.ANSWER), load("de")), "Antwort C")
    assert heard.intent == intent


def test_the_tokenizer_splits_words_as_the_model_learned_them() -> None:
    # The packaged tokenizer lacks GPT-2's first merge: " the" came out as " " + "the", and the prompted decoder
    # copied such odd spellings ("Say  that again").
    tokenizer = complete_tokenizer(require_model("whisper", "en") / "tokenizer.json")
    encoded = tokenizer.encode(" Ask the audience. Je vais tout dire.", add_special_tokens=False)
    assert encoded.tokens == ["ĠAsk", "Ġthe", "Ġaudience", ".", "ĠJe", "Ġvais", "Ġtout", "Ġdire", "."]


def test_a_placement_read_with_the_prompt_starts_where_the_grammar_scores_did(recognizer: WhisperRecognizer) -> None:
    # A money placement the free reading does not place is read again after the context's examples: the same
    # prompt the grammar's second scores started from, run through the decoder once per utterance.
    from voicemaster.speech.hearing.whisper.strategies import ByGrammar

    context = _context("de", ContextName.NUMBER)
    listened = recognizer.listen(Espeak(DEFAULT_VOICES).render("Zwanzig", "de"), "de")
    ByGrammar().evidence(listened, context)
    started = set(listened.keys.starts)
    listened.reading(listened.phrases.expect[context.name])
    assert set(listened.keys.starts) == started
    assert len(started) == 2  # the free reading's start, and the prompt's
