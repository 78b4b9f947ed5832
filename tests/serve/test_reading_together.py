"""The waiting reader reads an utterance's plausible languages together, their decoder steps in one batch
(`search.together`, decision 025): it must hear exactly what reading them one by one hears. People's real recordings
(the real-speech set's talk, yes, no and words, every language) and start phrases said by Pico in German, English and
French, through Whisper base as the game runs it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

import pytest

from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, Heard
from voicemaster.serve.reading import (
    RoomReader,
    plausible,
    said_in_words,
    start_hearing,
    understood,
    waiting_search,
)
from voicemaster.serve.waiting import start_context
from voicemaster.speech import cores
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.grammar import grammar
from voicemaster.speech.hearing.phrases import load
from voicemaster.speech.hearing.whisper.asking import Asking, alone, together
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.hearing.whisper.search import Scores
from voicemaster.speech.hearing.whisper.strategies import ByGrammar, Encoded
from voicemaster.speech.voice import pico
from voicemaster_lab.corpora import real_speech

pytestmark = pytest.mark.model

LANGUAGES = ("de", "en", "fr")
PEOPLE = tuple(clip for clip in real_speech.load() if clip.kind in ("talk", "yes", "no", "word"))[::20]
"""An even sample of people's recordings, every language and kind (eight)."""
SAID = (
    ("Quiz starten", "de"),
    ("Wer wird Millionär", "de"),
    ("weiter", "de"),
    ("start the quiz", "en"),
    ("let's play the money drop", "en"),
    ("help", "en"),
    ("on joue", "fr"),
    ("lance le Money Drop", "fr"),
)
"""Start phrases, "weiter" and help, read in more than one language each (short commands are plainly none)."""


@pytest.fixture(scope="module")
def recognizer(whisper: Callable[[str], WhisperRecognizer]) -> WhisperRecognizer:
    return whisper("de")


def _utterances() -> list[tuple[str, Callable[[], Audio]]]:
    said: list[tuple[str, Callable[[], Audio]]] = [
        (f"{clip.language} {clip.text}", partial(Audio.read, clip.path())) for clip in PEOPLE
    ]
    return said + [(f"{language} {text} (Pico)", partial(_said, text, language)) for text, language in SAID]


def _said(text: str, language: str) -> Audio:
    return pico.Pico().speak(text, Voice(pico.DEFAULT_VOICE[language], engine="pico"))


UTTERANCES = _utterances()


def _one_by_one(whisper: WhisperRecognizer, audio: Audio, context: Context) -> Heard:
    """The reader as it read before the languages were batched: each plausible language's reading in turn (with the
    waiting reader's search and its start hearing), each held to its words before the languages are weighed, as
    `RoomReader` does."""
    with cores.deciding():
        heard = waiting_search(whisper.listen(audio, LANGUAGES[0]))
        likeliness = plausible(heard, whisper, LANGUAGES)
        readings = []
        for language in likeliness:
            own = replace(context, language=language)
            listened = replace(heard, tokens=whisper.tokens(language), phrases=load(language))
            read = alone(heard.model, heard.keys, start_hearing(listened, own))
            readings.append(said_in_words(replace(read, language=language), context))
    return understood(readings, likeliness)


@pytest.mark.parametrize("utterance", UTTERANCES, ids=[name for name, _ in UTTERANCES])
def test_languages_read_together_hear_what_one_by_one_hears(
    recognizer: WhisperRecognizer, utterance: tuple[str, Callable[[], Audio]]
) -> None:
    _, audio = utterance
    context = start_context("de")
    batched = RoomReader(recognizer, LANGUAGES).recognize(audio(), context)
    alone_ = _one_by_one(recognizer, audio(), context)
    assert (batched.intent, batched.value, batched.language, batched.text) == (
        alone_.intent,
        alone_.value,
        alone_.language,
        alone_.text,
    )
    assert batched.confidence == pytest.approx(alone_.confidence, abs=1e-3)


@pytest.mark.parametrize("utterance", UTTERANCES[::3], ids=[name for name, _ in UTTERANCES[::3]])
def test_every_phrase_is_scored_together_as_alone(
    recognizer: WhisperRecognizer, utterance: tuple[str, Callable[[], Audio]]
) -> None:
    """Below the decision: each language's phrase scores, free reading and no-speech probability, batched with the
    other two languages' rows and starts, are those of its search alone to float tolerance."""
    _, audio = utterance
    heard = recognizer.listen(audio(), LANGUAGES[0])
    listened: list[tuple[Encoded, Context]] = []
    for language in LANGUAGES:
        own = replace(start_context("de"), language=language)
        listened.append((replace(heard, tokens=recognizer.tokens(language), phrases=load(language)), own))

    def scoring(encoded: Encoded, context: Context) -> Asking[Scores]:
        return encoded.scoring(grammar(context, encoded.phrases), ByGrammar().prompt(context, encoded.phrases))

    # Together first: the one-by-one searches would otherwise leave their starts on the utterance for it to reuse.
    batched = together(heard.model, heard.keys, [scoring(encoded, context) for encoded, context in listened])
    for (encoded, context), scores in zip(listened, batched, strict=True):
        fresh = replace(encoded, keys=replace(encoded.keys, starts={}))
        by_itself = alone(fresh.model, fresh.keys, scoring(fresh, context))
        assert scores.free_tokens == by_itself.free_tokens
        assert scores.free == pytest.approx(by_itself.free, abs=1e-3)
        assert scores.no_speech == pytest.approx(by_itself.no_speech, abs=1e-4)
        assert scores.phrases.keys() == by_itself.phrases.keys()
        for phrase, score in scores.phrases.items():
            assert score == pytest.approx(by_itself.phrases[phrase], abs=1e-3), phrase
