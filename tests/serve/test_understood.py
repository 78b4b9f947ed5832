"""Of an utterance read in several languages, which reading stands: the likeliest language's meaning, and nothing
when a language nearly as likely meant something else."""

from __future__ import annotations

from voicemaster.dialogue.meaning import Heard, Intent
from voicemaster.serve.reading import understood


def _heard(intent: Intent, language: str, value: str | None = None, confidence: float = 1.0) -> Heard:
    return Heard(intent, value, "", confidence, language=language)


def test_the_same_start_in_two_languages_is_the_likelier_languages() -> None:
    """ "Starte das Quiz" is English "start the quiz" too: the game starts in German, the language it sounds."""
    readings = [_heard(Intent.START, "de", "millionaire", 0.9), _heard(Intent.START, "en", "millionaire", 1.0)]
    assert understood(readings, {"de": -0.1, "en": -3.0}).language == "de"


def test_a_clearly_likelier_language_outweighs_another_meaning() -> None:
    readings = [_heard(Intent.RESUME, "en"), _heard(Intent.START, "fr", "millionaire")]
    heard = understood(readings, {"en": -5.2, "fr": -1.2})
    assert (heard.intent, heard.value, heard.language) == (Intent.START, "millionaire", "fr")


def test_two_meanings_in_nearly_as_likely_languages_decide_nothing() -> None:
    readings = [_heard(Intent.RESUME, "en"), _heard(Intent.START, "fr", "millionaire")]
    assert understood(readings, {"en": -1.5, "fr": -1.0}).intent is Intent.UNKNOWN
    assert understood(readings, {}).intent is Intent.UNKNOWN  # a reader that cannot tell languages apart


def test_nothing_understood_is_unknown() -> None:
    readings = [_heard(Intent.UNKNOWN, "de"), _heard(Intent.UNKNOWN, "en")]
    assert understood(readings, {"de": 0.0, "en": -1.0}).intent is Intent.UNKNOWN
