"""A newcomer joins between rounds (issue 47, docs/decisions/045): plays from the next round, counts 0 for the
rounds before, is checked as the players named at the start are, and is refused in the middle of a round."""

from __future__ import annotations

import pytest

from tests.rules.helpers import RIGHT, WRONG, ask, everyone_answers, play
from voicemaster.rules import (
    AddPlayer,
    AudienceForm,
    Game,
    GameSettings,
    StartRound,
    StopGame,
    apply,
    dumps,
    errors,
    events,
    loads,
    new_game,
    variant,
)
from voicemaster.rules.millionaire import may_join


def _after_one_round(*players: str, **settings: object) -> Game:
    """Round 1 played: everyone answered question 1 wrongly, so the round is over and the next not started."""
    game = new_game(GameSettings(variant("classic"), players, **settings))  # type: ignore[arg-type]
    game, _ = play(game, StartRound(), ask(1))
    game, _ = everyone_answers(game, dict.fromkeys(players, WRONG))
    assert game.round is None and game.outcome is None
    return game


def test_a_newcomer_named_between_rounds_plays_the_next_round_and_the_totals_show_them() -> None:
    game = _after_one_round("Anna", "Ben")
    game, joined = apply(game, AddPlayer("Cem"))
    assert joined == (events.PlayerJoined("Cem", 2),)
    game, started = play(game, StartRound(), ask(1))
    assert started[0] == events.RoundStarted(2, ("Anna", "Ben", "Cem"))
    game, _ = everyone_answers(game, {"Anna": WRONG, "Ben": WRONG, "Cem": RIGHT})
    assert game.round is not None and game.round.seat("Cem") is not None  # Cem plays on at question 2
    game, stopped = apply(game, StopGame())
    ended = [event for event in stopped if isinstance(event, events.GameEnded)]
    assert ended[0].outcome.totals == (("Anna", 0), ("Ben", 0), ("Cem", 50))  # round 1 counts 0 for Cem
    assert ended[0].outcome.winners == ("Cem",)
    assert game.sheet[0].total("Cem") == 0


def test_a_newcomer_in_the_middle_of_a_round_is_refused_and_nothing_changes() -> None:
    game = _after_one_round("Anna", "Ben")
    game, _ = play(game, StartRound(), ask(1))
    with pytest.raises(errors.JoinBetweenRounds, match="when the next round starts"):
        apply(game, AddPlayer("Cem"))
    assert game.settings.players == ("Anna", "Ben") and not may_join(game)


def test_a_newcomer_is_checked_as_the_players_named_at_the_start() -> None:
    game = _after_one_round("Anna", "Ben")
    with pytest.raises(errors.InvalidSetup, match="same name"):
        apply(game, AddPlayer("anna"))
    with pytest.raises(errors.InvalidSetup, match="name"):
        apply(game, AddPlayer("  "))
    full = _after_one_round("A", "B", "C", "D", "E", "F")
    assert not may_join(full)
    with pytest.raises(errors.InvalidSetup, match="1 to 6"):
        apply(full, AddPlayer("G"))
    alone = _after_one_round("Anna", audience_form=AudienceForm.SECOND_CHANCE)
    assert not may_join(alone) and may_join(game)
    with pytest.raises(errors.InvalidSetup, match="Second-chance"):
        apply(alone, AddPlayer("Ben"))


def test_no_newcomer_once_the_game_is_over() -> None:
    game, _ = apply(_after_one_round("Anna"), StopGame())
    assert not may_join(game)
    with pytest.raises(errors.GameOver):
        apply(game, AddPlayer("Ben"))


def test_a_game_with_a_newcomer_round_trips_exactly() -> None:
    game, _ = apply(_after_one_round("Anna", "Ben"), AddPlayer("Cem"))
    assert loads(Game, dumps(game)) == game
