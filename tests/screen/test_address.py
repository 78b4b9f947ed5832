"""A player asks for the screen's address by voice and hears it said so that it can be typed: every number as a
number, group by group, then the port, in the game's language; a game without a screen says there is none.

The games are the screen tests' (`games.py`): the real quizmaster and runner, every line rendered by eSpeak-NG, the
player's words understood by the real intent matcher. The game is stopped once the quizmaster has answered and turned
back to the player: what comes after is any game's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.screen.games import Cast, play_game, play_money_drop
from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.dialogue.turns import Listen, Say
from voicemaster.host.screen_address import ScreenAddress
from voicemaster.play.simulated_ear import Simulated
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.voice.speakers import Speakers

pytestmark = pytest.mark.audio  # every line of the game is rendered

ON_THE_NETWORK = ScreenAddress("192.168.178.23", 8765, local_network=True)
ASKED = {
    "de": "Wie ist die Adresse des Bildschirms?",
    "en": "What's the screen address?",
    "fr": "Quelle est l'adresse de l'écran ?",
}
SAID = {
    "de": "hundertzweiundneunzig Punkt hundertachtundsechzig Punkt hundertachtundsiebzig Punkt dreiundzwanzig, "
    "Doppelpunkt, achttausendsiebenhundertfünfundsechzig",
    "en": "one hundred and ninety-two dot one hundred and sixty-eight dot one hundred and seventy-eight dot "
    "twenty-three, colon, eight thousand seven hundred and sixty-five",
    "fr": "cent quatre-vingt-douze point cent soixante-huit point cent soixante-dix-huit point vingt-trois, "
    "deux-points, huit mille sept cent soixante-cinq",
}


OPTIONS = {
    "de": ("Der Akku", "Der Prozessor", "Der Bildschirm", "Die Kamera"),  # a question of the German pack
    "en": ("London", "Paris", "Rome", "Vienna"),
    "fr": ("Londres", "Paris", "Rome", "Vienne"),
}


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


class HeardEnough(Exception):
    """The quizmaster answered and listens again: the test has what it came for."""


@dataclass
class AsksForTheScreen:
    """The demo's players, but the first to be asked for an answer (or a category) asks for the screen instead."""

    players: Simulated
    words: str
    asked: bool = False

    def respond(self, listen: Listen, said: Say | None) -> str | None:
        if self.asked:
            raise HeardEnough
        if listen.context.name is ContextName.ANSWER:
            self.asked = True
            return self.words
        return self.players.respond(listen, said)

    def understood(self, clearly: bool) -> None:
        self.players.understood(clearly)


def asking(words: str) -> Cast:
    return lambda players: AsksForTheScreen(players, words)


def _played(game: Callable[..., Path], out: Path, **kwargs: Any) -> list[dict[str, Any]]:
    with pytest.raises(HeardEnough):
        game(out, None, **kwargs)
    return [json.loads(line) for line in (out / "transcript.jsonl").read_text(encoding="utf-8").splitlines()]


def _answer(events: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """What was heard as the request, and what the quizmaster said after it until it listened again."""
    (request,) = [event for event in events if event["event"] == "heard"]
    after = events[events.index(request) + 1 :]
    said = [event for event in after if event["event"] == "say"]
    assert after[-1]["event"] == "listen" and after[-1]["player"] == request["player"]  # then back to the player
    return request, said


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_a_player_who_asks_for_the_screen_hears_its_address_to_type(tmp_path: Path, language: str) -> None:
    events = _played(
        play_game, tmp_path, players=("Anna",), language=language, screen=ON_THE_NETWORK, cast=asking(ASKED[language])
    )
    request, said = _answer(events)
    assert (request["intent"], request["text"]) == ("screen_address", ASKED[language])
    told = said[0]
    assert SAID[language] in told["text"]
    assert told["text"].count(SAID[language]) == 2  # said twice: it is typed while it is heard
    assert not any(character.isdigit() for character in told["text"])  # words a voice says, never digits it spells
    assert told["end"] > told["start"]  # and it was spoken: rendered, as long as its words take


CODE_SAID = {"de": "vier, null, zwei, sieben, eins, drei", "en": "four, zero, two, seven, one, three"}


@pytest.mark.parametrize("language", ["de", "en"])
def test_a_player_without_sight_of_the_qr_code_hears_where_the_phones_join_and_the_code(
    tmp_path: Path, language: str
) -> None:
    phones = ScreenAddress("192.168.178.23", 8765, local_network=True, phones_port=8766, phones_code="402713")
    events = _played(
        play_game, tmp_path, players=("Anna",), language=language, screen=phones, cast=asking(ASKED[language])
    )
    _, said = _answer(events)
    screen, join = said[0]["text"], said[1]["text"]
    assert SAID[language] in screen
    assert "h t t p s" in join and SAID[language].split(", ")[0] in join  # the address, typed after https://
    assert join.count(CODE_SAID[language]) == 2  # the code digit by digit, twice
    assert not any(character.isdigit() for character in join)


def test_a_screen_on_this_computer_only_is_said_to_be_there(tmp_path: Path) -> None:
    here = ScreenAddress("127.0.0.1", 8765, local_network=False)
    events = _played(play_game, tmp_path, players=("Anna",), screen=here, cast=asking("Bildschirmadresse"))
    _, said = _answer(events)
    assert "nur auf diesem Computer" in said[0]["text"]
    assert "hundertsiebenundzwanzig Punkt null Punkt null Punkt eins, Doppelpunkt" in said[0]["text"]


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_without_a_screen_the_player_hears_there_is_none_and_how_to_have_one(tmp_path: Path, language: str) -> None:
    events = _played(play_game, tmp_path, players=("Anna",), language=language, cast=asking(ASKED[language]))
    request, said = _answer(events)
    assert request["intent"] == "screen_address"
    assert "screen" in said[0]["text"].lower()  # the option to start it with
    assert not any(word in said[0]["text"] for word in ("Punkt", " dot ", " point "))


def test_a_money_drop_team_may_ask_for_the_screen_too(tmp_path: Path) -> None:
    events = _played(play_money_drop, tmp_path, screen=ON_THE_NETWORK, cast=asking("Bildschirmadresse"))
    request, said = _answer(events)
    assert request["context"] == "answer"  # while choosing the category
    assert SAID["de"] in said[0]["text"]


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_the_request_said_aloud_is_heard_among_the_answers(
    whisper: Callable[[str], WhisperRecognizer], language: str
) -> None:
    """Said in SVOX Pico's voice (the German players' voice in the demo) while a question is open, and heard by
    Whisper through the grammar: its words are no answer, and no answer's words are it (an option "Der Bildschirm")."""
    ear = whisper(language)
    context = Context(ContextName.ANSWER, language, OPTIONS[language])
    voice = Speakers({language: Voice(engine="pico")})
    heard = ear.recognize(voice.render(ASKED[language], language), context)
    assert heard.intent == "screen_address", heard
    if language == "de":
        option = ear.recognize(voice.render("Der Bildschirm", language), context)
        assert (option.intent, option.value) in {("answer", "C"), ("unknown", None)}, option
