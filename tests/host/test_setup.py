"""Who plays and by which rules, asked by voice: the players' words go through the real intent matcher."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import TypeVar

import pytest

from voicemaster.dialogue.meaning import Heard
from voicemaster.dialogue.turns import Effect, Listen, Observation, Say, Silence
from voicemaster.host.lines import load as load_lines
from voicemaster.host.setup import which_variant, who_plays
from voicemaster.play.runner import drive
from voicemaster.rules.variants import VARIANTS
from voicemaster.speech.hearing import phrases
from voicemaster.speech.hearing.intents import understand

T = TypeVar("T")


def converse(
    dialogue: Generator[Effect, Observation | None, T], language: str, replies: list[str]
) -> tuple[T, list[str]]:
    """Plays the dialogue against spoken replies (text, understood as the recognizer's transcript would be);
    returns its result and every line said. An empty reply is silence."""
    lines = load_lines(language)
    said: list[str] = []
    answers: Iterator[str] = iter(replies)

    def perform(effect: Effect) -> Observation | None:
        match effect:
            case Say() as line:
                said.append(lines.text(line))
            case Listen(context):
                text = next(answers)  # the dialogue asked more than the script says: the test fails here
                if not text:
                    return Silence()
                meant = understand(text, context, phrases.load(language))
                return Heard(meant.intent, meant.value, text, meant.score)
        return None

    return drive(dialogue, perform), said


def test_players_are_named_one_after_the_other_and_each_name_read_back() -> None:
    replies = ["Ich heiße Anna.", "ja", "ja", "Ben", "nein", "Mein Name ist Ben.", "ja", "nein"]
    names, said = converse(who_plays("de"), "de", replies)
    assert names == ("Anna", "Ben")
    assert "Spieler zwei, wie heißt du?" in said  # numbers are spoken as words
    assert said.count("Ben, habe ich das richtig verstanden?") == 2  # a no asks for the name again


def test_each_name_and_its_read_back_are_heard_as_their_seat_and_anyone_else_as_the_next() -> None:
    replies = iter(["Anna", "ja", "ja", "Ben", "nein", "Ben", "ja", "nein"])
    heard_as: list[tuple[str, int | None]] = []

    def perform(effect: Effect) -> Observation | None:
        if not isinstance(effect, Listen):
            return None
        text = next(replies)
        heard_as.append((text, effect.seat))
        meant = understand(text, effect.context, phrases.load("de"))
        return Heard(meant.intent, meant.value, text, meant.score)

    assert drive(who_plays("de"), perform) == ("Anna", "Ben")
    # A phone joined as a new player says its name into the phone: the quizmaster listens to it by its seat.
    assert heard_as == [("Anna", 1), ("ja", 1), ("ja", 2), ("Ben", 2), ("nein", 2), ("Ben", 2), ("ja", 2), ("nein", 3)]


def test_only_a_clear_yes_takes_a_name_and_a_name_is_taken_once() -> None:
    replies = ["Anna", "", "Anna", "vielleicht", "Anna", "ja", "hm", "ja", "anna", "ja", "Cem", "ja", ""]
    names, said = converse(who_plays("de"), "de", replies)
    assert names == ("Anna", "Cem")
    assert "Anna spielt schon mit. Bitte einen anderen Namen." in said


def test_a_command_is_not_a_name() -> None:
    names, said = converse(who_plays("de"), "de", ["Hilfe", "Lena", "ja", "nein"])
    assert names == ("Lena",)
    assert said.count(load_lines("de").render("setup_help", {})) == 2  # once at the start, once asked for


@pytest.mark.parametrize(
    ("language", "replies"),
    [
        ("en", ["My name is Emma.", "yes", "yes", "I'm George", "yes", "no"]),
        ("fr", ["Je m'appelle Marie.", "oui", "oui", "Moi c'est Léa", "oui", "non"]),
    ],
)
def test_players_are_asked_for_in_english_and_french(language: str, replies: list[str]) -> None:
    names, _ = converse(who_plays(language), language, replies)
    assert len(names) == 2 and names[0] in ("Emma", "Marie")


def test_the_variant_is_offered_in_turn_until_a_yes() -> None:
    chosen, said = converse(which_variant("de", tuple(VARIANTS)), "de", ["nein", "", "ja"])
    assert chosen == tuple(VARIANTS)[2]
    assert said[-1].startswith("Die Risiko-Variante")  # the third offer, taken


def test_anyone_else_unclear_three_times_begins_with_the_players_named() -> None:
    # At a party the computer's microphone never hears silence: each "anyone else?" gets the room's talk. The game
    # begins with the players it has instead of asking for ever; a yes that comes through in time still counts.
    party = ["Anna", "ja", "[Unverständlich]", "Das ist der Name.", "Kondo Skypfeichern"]
    names, said = converse(who_plays("de"), "de", party)
    assert names == ("Anna",)
    assert said.count("Spielt noch jemand mit?") == 3
    assert said[-1] == "Hier ist es zu laut für eine klare Antwort. Wir fangen an."
    names, said = converse(who_plays("de"), "de", ["Anna", "ja", "hm", "Kondo", "ja", "Ben", "ja", ""])
    assert names == ("Anna", "Ben") and "Hier ist es zu laut für eine klare Antwort. Wir fangen an." not in said


def test_a_further_players_name_that_never_comes_clear_ends_the_naming() -> None:
    # The party's own "Ich bin Jonas" and "ja" reach the computer's microphone: after three askings without a name
    # read back and confirmed, the game begins with the players named instead of seating whoever the talk names.
    party = ["Anna", "ja", "ja", "Vielen Dank.", "nein", "", "Sehr geil.", "nein"]
    names, said = converse(who_plays("de"), "de", party)
    assert names == ("Anna",) and said.count("Spieler zwei, wie heißt du?") == 3
    assert said[-1] == "Hier ist es zu laut für eine klare Antwort. Wir fangen an."
    # The first player is asked until named: a game needs one.
    names, _ = converse(who_plays("de"), "de", ["", "", "", "", "Anna", "ja", "nein"])
    assert names == ("Anna",)
