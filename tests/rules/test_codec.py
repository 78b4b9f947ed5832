"""Saving and loading states: exact round trips, and errors that say where the saved data is wrong."""

from __future__ import annotations

import json

import pytest

from voicemaster.rules import DecodeError, Game, GameSettings, Ladder, dumps, loads, new_game, variant
from voicemaster.rules.moneydrop import MoneyDropGame, MoneyDropSettings

from .helpers import at_question


def test_a_game_mid_question_round_trips_exactly() -> None:
    from voicemaster.rules import UseFiftyFifty

    from .helpers import play

    game = play(at_question(9, "risiko", seed=7), UseFiftyFifty("Anna"))[0]
    text = dumps(game)
    assert loads(Game, text) == game
    assert json.loads(text)["round"]["level"] == 9


def test_settings_with_a_users_ladder_round_trip() -> None:
    ladder = Ladder("kids", "points", tuple(range(1, 16)), ()).with_safety_levels(3, 7)
    game = new_game(GameSettings(variant("classic").with_ladder(ladder), ("Anna",), rounds=2))
    assert loads(Game, dumps(game)) == game
    assert loads(MoneyDropGame, dumps(MoneyDropGame(MoneyDropSettings()))) == MoneyDropGame(MoneyDropSettings())


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda d: d["settings"].update(players="Anna"), "settings.players"),
        (lambda d: d["settings"].update(mode="party"), "settings.mode"),
        (lambda d: d["settings"].update(colour="red"), "settings.colour"),
        (lambda d: d["settings"].pop("players"), "settings.players"),
        (
            lambda d: d["settings"]["variant"]["ladder"].update(amounts=[1, 2, "drei"]),
            "settings.variant.ladder.amounts[2]",
        ),
        (lambda d: d["round"].update(level=True), "round"),
    ],
)
def test_broken_saved_data_names_the_place(change: object, path: str) -> None:
    data = json.loads(dumps(at_question(2)))
    change(data)  # type: ignore[operator]
    with pytest.raises(DecodeError) as raised:
        loads(Game, json.dumps(data))
    assert raised.value.path.startswith(path)
