"""The edges of the rules: invalid set-ups, odd inputs, stopping between rounds, the simulated players."""

from __future__ import annotations

import random

import pytest

from voicemaster.rules import (
    DecodeError,
    GameSettings,
    Ladder,
    Reveal,
    SafetyLevel,
    StartRound,
    StopGame,
    Termination,
    UseExtraJoker,
    Variant,
    WalkAway,
    dumps,
    errors,
    events,
    from_data,
    loads,
    new_game,
    variant,
)
from voicemaster.rules.ladders import EUR_DE
from voicemaster.rules.moneydrop import MoneyDropGame, MoneyDropSettings
from voicemaster.rules.simulate import play_out, play_out_money_drop

from .helpers import RIGHT, ask, play


@pytest.mark.parametrize(
    ("amounts", "safety"),
    [
        (tuple(range(1, 15)), ()),
        ((5, *range(1, 15)), ()),
        ((0, *range(1, 15)), ()),
        (tuple(range(1, 16)), (SafetyLevel(10, 10), SafetyLevel(5, 5))),
        (tuple(range(1, 16)), (SafetyLevel(15, 15),)),
        (tuple(range(1, 16)), (SafetyLevel(5, -1),)),
    ],
)
def test_ladders_that_make_no_sense_are_refused(amounts: tuple[int, ...], safety: tuple[SafetyLevel, ...]) -> None:
    with pytest.raises(errors.InvalidSetup):
        Ladder("mine", "EUR", amounts, safety)


@pytest.mark.parametrize(
    "changes",
    [
        {"jokers": (variant("classic").jokers[0],) * 2},
        {"phone_call_seconds": 0},
        {"extra_joker_reward": -1},
        {"audience_tries": 0},
    ],
)
def test_variants_that_make_no_sense_are_refused(changes: dict[str, object]) -> None:
    base = variant("classic")
    fields = {"name": "mine", "ladder": EUR_DE, "jokers": base.jokers, **changes}
    with pytest.raises(errors.InvalidSetup):
        Variant(**fields)  # type: ignore[arg-type]


def test_an_unknown_variant_names_the_known_ones() -> None:
    with pytest.raises(errors.InvalidSetup, match="classic"):
        variant("wwm")


@pytest.mark.parametrize(
    "changes",
    [
        {"players": ("Anna", " ")},
        {"rounds": 0},
    ],
)
def test_game_settings_that_make_no_sense_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(errors.InvalidSetup):
        GameSettings(variant("classic"), **{"players": ("Anna",), **changes})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "changes",
    [
        {"teams": ()},
        {"teams": ("Rot", "rot")},
        {"bundles": 0},
        {"option_counts": (4, 5)},
        {"option_counts": ()},
        {"time_limit_seconds": 0},
    ],
)
def test_money_drop_settings_that_make_no_sense_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(errors.InvalidSetup):
        MoneyDropSettings(**changes)  # type: ignore[arg-type]


def test_stopping_between_rounds_ends_the_game_with_the_sheet_as_it_is() -> None:
    game = new_game(GameSettings(variant("classic"), ("Anna",), rounds=3))
    game, _ = play(game, StartRound(), WalkAway("Anna"))
    game, happened = play(game, StopGame())
    assert game.outcome is not None and game.outcome.termination is Termination.STOPPED
    assert len(happened) == 1
    assert game.round is None and len(game.sheet) == 1


def test_the_extra_joker_needs_both_helper_and_letter() -> None:
    game = new_game(GameSettings(variant("risiko"), ("Anna", "Ben")))
    game, _ = play(game, StartRound(), ask(1))
    with pytest.raises(errors.InvalidJokerInput):
        play(game, UseExtraJoker("Anna", None, RIGHT))
    with pytest.raises(errors.UnknownPlayer):
        play(game, UseExtraJoker("Anna", "Zoe", RIGHT))


def test_nobody_is_to_act_between_questions() -> None:
    game = play(new_game(GameSettings(variant("classic"), ("Anna",))), StartRound())[0]
    assert game.round is not None and game.round.to_act is None


def test_simulated_players_finish_games_and_runs() -> None:
    settings = GameSettings(variant("risiko"), ("Anna", "Ben"), rounds=2, seed=3)
    game, steps = play_out(new_game(settings), random.Random(1))
    assert game.outcome is not None and len(game.sheet) == 2 and steps > 4
    drop, steps = play_out_money_drop(MoneyDropGame(MoneyDropSettings(teams=("Rot", "Blau"))), random.Random(2))
    assert drop.over and len(drop.results) == 2 and steps >= 2 * 5


def test_decoding_describes_what_it_got() -> None:
    with pytest.raises(DecodeError, match=r"expected a table, got a list"):
        from_data(MoneyDropSettings, [])
    with pytest.raises(DecodeError, match=r"teams\[0\]: expected text, got a number \(3\)"):
        from_data(MoneyDropSettings, {"teams": [3]})
    with pytest.raises(DecodeError, match=r"time_limit_seconds: expected a whole number, got text"):
        from_data(MoneyDropSettings, {"time_limit_seconds": "60"})
    with pytest.raises(DecodeError, match=r"expected a list of 2, got 1 items"):
        loads(tuple[int, int], "[1]")
    with pytest.raises(DecodeError, match=r"expected a table, got a list"):
        loads(dict[str, int], "[1]")


def test_tables_of_settings_round_trip() -> None:
    from voicemaster.config.settings import LadderConfig, Settings

    settings = Settings(ladders={"kids": LadderConfig("points", tuple(range(1, 16)))})
    assert loads(Settings, dumps(settings)) == settings


def test_stopping_with_someone_already_out_pays_only_those_still_in() -> None:
    from .helpers import WRONG, answer

    game = new_game(GameSettings(variant("classic"), ("Anna", "Ben")))
    game, _ = play(game, StartRound(), ask(1), *answer("Anna", RIGHT), *answer("Ben", RIGHT), Reveal(), ask(2))
    assert game.round is not None
    first, second = game.round.turn_order
    game, _ = play(game, *answer(first, WRONG), *answer(second, RIGHT), Reveal())
    game, happened = play(game, StopGame())
    assert [e for e in happened if isinstance(e, events.WalkedAway)] == [events.WalkedAway(second, 100)]
    assert game.totals() == {first: 0, second: 100}


def test_a_simulated_player_alone_takes_the_extra_joker_without_a_helper() -> None:
    from voicemaster.rules.simulate import Policy, next_action

    rng, game = random.Random(4), new_game(GameSettings(variant("risiko"), ("Anna",), rounds=3))
    seen: list[events.Event] = []
    while game.outcome is None:
        game, happened = play(game, next_action(game, rng, Policy(joker_rate=1.0)))
        seen.extend(happened)
    assert events.ExtraJokerUsed("Anna", None, None) in seen
