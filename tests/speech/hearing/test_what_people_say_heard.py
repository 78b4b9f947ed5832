"""What `voicemaster bench live` found asked again, now heard as meant through Whisper (issue 27): SVOX Pico's two
player voices, as the bench's player speaks, say "play on?"'s answer in the player's own words and a name as people
give it; a take-back is never heard as going on or as a yes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.voice import pico
from voicemaster.speech.voice.speakers import Speakers

pytestmark = pytest.mark.audio  # Pico renders speech


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def ear(whisper: Callable[[str], WhisperRecognizer]) -> WhisperRecognizer:
    return whisper("de")  # Whisper base: one model for every language


def _heard(ear: WhisperRecognizer, text: str, context: Context, turn: int) -> tuple[str, str | None, str]:
    """`text` said by the bench's Pico player of this turn (its voices and pitches taken in turn), and heard."""
    names = pico.voice_names(context.language)
    voice = Voice(names[turn % len(names)], rate=150, engine="pico", pitch=(90, 110)[turn % 2])
    heard = ear.recognize(Speakers({context.language: voice}).render(text, context.language), context)
    return heard.intent, heard.value, heard.text


MEANT = [
    ("de", ContextName.CONFIRM, (), "Ich spiele weiter", ("resume", None)),
    ("en", ContextName.CONFIRM, (), "I'll play on", ("resume", None)),
    ("fr", ContextName.CONFIRM, (), "Je continue", ("resume", None)),
    ("fr", ContextName.CONFIRM, (), "Oui, dernier mot", ("yes", None)),
    # The first voice's "heiße" is read "heiß": the name, not "Ich Heiß Markus", is read back.
    ("de", ContextName.NAME, (), "Ich heiße Markus", ("name", "Markus")),
    ("de", ContextName.NAME, (), "Hallo, ich bin Markus", ("name", "Markus")),
    # "Marc" read "marre": the player is known, and no other name is as near.
    ("fr", ContextName.NAME, ("Marc", "Julie"), "Je prends Marc", ("name", "Marc")),
]


@pytest.mark.parametrize("turn", [0, 1])
@pytest.mark.parametrize(("language", "context", "names", "text", "meant"), MEANT)
def test_what_a_player_says_in_their_own_words_is_heard_as_meant(
    ear: WhisperRecognizer,
    language: str,
    context: ContextName,
    names: tuple[str, ...],
    text: str,
    meant: tuple[str, str | None],
    turn: int,
) -> None:
    intent, value, reading = _heard(ear, text, Context(context, language, names=names), turn)
    assert (intent, value) == meant, reading


TAKEN_BACK = [
    ("de", "Ich spiele nicht weiter"),
    ("en", "I won't play on"),
    ("fr", "Je ne continue pas"),
    ("de", "Ja ... nein, warte"),
    ("fr", "Oui ... non, attends"),
]


@pytest.mark.parametrize("turn", [0, 1])
@pytest.mark.parametrize(("language", "text"), TAKEN_BACK)
def test_a_take_back_is_never_heard_as_going_on_or_as_a_yes(
    ear: WhisperRecognizer, language: str, text: str, turn: int
) -> None:
    intent, _, reading = _heard(ear, text, Context(ContextName.CONFIRM, language), turn)
    assert intent not in ("resume", "yes"), reading
