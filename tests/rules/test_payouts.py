"""docs/rules.md, "What a wrong answer pays", row by row, at every level, played through the engine."""

from __future__ import annotations

import pytest

from voicemaster.rules import LADDERS, VARIANTS, Reveal, WalkAway, events

from .helpers import RIGHT, WRONG, answer, at_question, play

# Written out from docs/rules.md, not computed by the code under test: (levels 1-5, 6-10, 11-15).
WRONG_ANSWER_PAYS = {
    "jumbo-2002": (0, 1_000, 16_000),
    "classic": (0, 500, 16_000),
    "risiko": (0, 500, 500),
    "qvgdm": (0, 1_500, 48_000),
    "uk": (0, 1_000, 32_000),
}
LADDER_AMOUNTS = {
    "eur-de": (50, 100, 200, 300, 500, 1000, 2000, 4000, 8000, 16000, 32000, 64000, 125000, 500000, 1000000),
    "eur-fr": (
        200,
        300,
        500,
        800,
        1500,
        3000,
        6000,
        12000,
        24000,
        48000,
        72000,
        100000,
        150000,
        300000,
        1000000,
    ),
    "gbp-uk": (
        100,
        200,
        300,
        500,
        1000,
        2000,
        4000,
        8000,
        16000,
        32000,
        64000,
        125000,
        250000,
        500000,
        1000000,
    ),
}
VARIANT_LADDER = {
    "jumbo-2002": "eur-de",
    "classic": "eur-de",
    "risiko": "eur-de",
    "qvgdm": "eur-fr",
    "uk": "gbp-uk",
}
JOKERS = {
    "jumbo-2002": {"fifty_fifty", "audience", "phone"},
    "classic": {"fifty_fifty", "audience", "phone"},
    "risiko": {"fifty_fifty", "audience", "phone", "extra"},
    "qvgdm": {"fifty_fifty", "audience", "phone"},
    "uk": {"fifty_fifty", "audience", "phone"},
}
CURRENCY = {"eur-de": "EUR", "eur-fr": "EUR", "gbp-uk": "GBP"}
ALL_LEVELS = range(1, 16)


def test_every_variant_of_the_rules_is_there() -> None:
    assert set(VARIANTS) == set(WRONG_ANSWER_PAYS)


@pytest.mark.parametrize("name", LADDER_AMOUNTS)
def test_ladders_hold_the_printed_amounts(name: str) -> None:
    assert LADDERS[name].amounts == LADDER_AMOUNTS[name]
    assert LADDERS[name].currency == CURRENCY[name]


@pytest.mark.parametrize("name", WRONG_ANSWER_PAYS)
def test_variant_ladder_and_jokers(name: str) -> None:
    chosen = VARIANTS[name]
    assert chosen.ladder.amounts == LADDER_AMOUNTS[VARIANT_LADDER[name]]
    assert {str(j) for j in chosen.jokers} == JOKERS[name]
    assert chosen.phone_call_seconds == 30


@pytest.mark.parametrize("level", ALL_LEVELS)
@pytest.mark.parametrize("name", WRONG_ANSWER_PAYS)
def test_a_wrong_answer_pays_the_table(name: str, level: int) -> None:
    game = at_question(level, name)
    game, revealed = play(game, *answer("Anna", WRONG), Reveal())
    expected = WRONG_ANSWER_PAYS[name][(level - 1) // 5]
    assert events.AnsweredWrongly("Anna", WRONG, expected) in revealed
    assert game.sheet[-1].results[0].payout == expected
    assert game.totals() == {"Anna": expected}


@pytest.mark.parametrize("level", ALL_LEVELS)
@pytest.mark.parametrize("name", WRONG_ANSWER_PAYS)
def test_walking_away_keeps_the_amount_of_the_level_below(name: str, level: int) -> None:
    game = at_question(level, name)
    game, happened = play(game, WalkAway("Anna"))
    amounts = LADDER_AMOUNTS[VARIANT_LADDER[name]]
    expected = 0 if level == 1 else amounts[level - 2]
    assert happened[0] == events.WalkedAway("Anna", expected)
    assert game.totals() == {"Anna": expected}


@pytest.mark.parametrize("name", WRONG_ANSWER_PAYS)
def test_the_last_question_right_wins_the_top_prize(name: str) -> None:
    game = at_question(15, name)
    game, happened = play(game, *answer("Anna", RIGHT), Reveal())
    assert events.TopPrizeWon("Anna", 1_000_000) in happened
    assert game.outcome is not None
    assert game.outcome.winners == ("Anna",)
    assert game.totals() == {"Anna": 1_000_000}


def test_walking_away_between_questions_keeps_what_was_won() -> None:
    """Before question 8 is asked (after 7 right answers), walking away keeps the level-7 amount."""
    game = at_question(7)
    game, _ = play(game, *answer("Anna", RIGHT), Reveal())
    assert game.round is not None and game.round.question is None
    game, happened = play(game, WalkAway("Anna"))
    assert happened[0] == events.WalkedAway("Anna", 2_000)
    assert game.sheet[-1].results[0].payout == 2_000
