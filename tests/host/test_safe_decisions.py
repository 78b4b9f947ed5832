"""Decisions that stay safe in noise: what spends a joker or ends a game is said back and acted on only after a yes,
because in a car or at a party a word said to someone else can sound like a command."""

from __future__ import annotations

import pytest

from tests.host.test_millionaire import Script, Table, always_right, heard, says_at_level, table
from voicemaster.dialogue.meaning import ContextName, Heard, Intent
from voicemaster.dialogue.turns import Listen, Observation, Silence
from voicemaster.questions.selection import Bank


def wants_joker_at_two(joker: str, *replies: Heard | Silence) -> Script:
    """Asks for `joker` at every question 2 turn while `replies` last, each reply said to "confirm_joker"."""
    left = list(replies)

    def script(table: Table, listen: Listen, last_key: str) -> Observation:
        current = table.quizmaster.game.round
        if last_key == "confirm_joker":
            return left.pop(0)
        if listen.context.name is ContextName.ANSWER and current is not None and current.level == 2 and left:
            return heard(Intent.JOKER, joker)
        return always_right(table, listen, last_key)

    return script


def test_a_joker_heard_is_said_back_and_spent_only_after_a_yes(bank: Bank) -> None:
    played = table(bank, wants_joker_at_two("fifty_fifty", heard(Intent.YES))).play()
    keys = [key for key, _ in played.said]
    asked = keys.index("confirm_joker")
    assert dict(played.said)["confirm_joker"] == "Anna, du nimmst den Fünfzig-fünfzig-Joker. Richtig?"
    assert keys[asked + 1] == "fifty_fifty"  # the yes, then the two options left
    assert [j["joker"] for j in played.events("joker")] == ["fifty_fifty"]
    assert ("confirm_joker", True) in played.as_foreseen  # rendered while the question was read


@pytest.mark.parametrize(
    "reply", [heard(Intent.NO), heard(Intent.UNKNOWN), Silence()], ids=["no", "unclear", "silence"]
)
def test_a_joker_not_confirmed_is_kept_and_can_be_taken_later(bank: Bank, reply: Heard | Silence) -> None:
    played = table(bank, wants_joker_at_two("audience", reply, heard(Intent.YES))).play()
    keys = [key for key, _ in played.said]
    assert keys.count("confirm_joker") == 2
    kept = keys.index("joker_kept")
    assert dict(played.said)["joker_kept"] == "Gut, dann behältst du den Publikumsjoker."
    assert "audience_percent_intro" not in keys[:kept]  # nothing of the joker happened before it was kept
    assert [j["joker"] for j in played.events("joker")] == ["audience"]  # then asked again, and taken with a yes
    assert keys.index("audience_percent_intro") > keys.index("confirm_joker", kept)


def test_a_player_who_says_no_to_every_joker_ends_with_them_all(bank: Bank) -> None:
    nos = [heard(Intent.NO)] * 3
    played = table(bank, wants_joker_at_two("phone", *nos)).play()
    assert played.events("joker") == []
    assert [key for key, _ in played.said].count("joker_kept") == 3
    assert played.events("game_over")[0]["totals"] == {"Anna": 1_000_000}


@pytest.mark.parametrize("reply", [heard(Intent.UNKNOWN), Silence(), heard(Intent.ANSWER, "B")], ids=str)
def test_walking_away_heard_needs_a_yes(bank: Bank, reply: Heard | Silence) -> None:
    """ "Walk away" heard while a question is open ends nothing until a yes: unclear words, silence or an answer
    said to "Richtig?" play on."""
    played = table(bank, says_at_level(3, heard(Intent.WALK_AWAY), reply)).play()
    assert [key for key, _ in played.said].count("confirm_walk_away") == 1
    assert played.events("walk_away") == []
    assert played.events("game_over")[0]["totals"] == {"Anna": 1_000_000}


def test_walking_away_with_a_yes_takes_the_money(bank: Bank) -> None:
    played = table(bank, says_at_level(3, heard(Intent.WALK_AWAY), heard(Intent.YES))).play()
    assert played.events("walk_away") == [{"player": "Anna", "amount": 100}]
