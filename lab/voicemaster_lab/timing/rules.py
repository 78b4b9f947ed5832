"""`voicemaster bench rules`: complete simulated games per second through the rules engine."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from voicemaster.rules import AudienceForm, GameSettings, PhoneForm, new_game, variant
from voicemaster.rules.moneydrop import MoneyDropGame, MoneyDropSettings
from voicemaster.rules.simulate import play_out, play_out_money_drop


@dataclass(frozen=True)
class Scenario:
    name: str
    settings: GameSettings | MoneyDropSettings


SCENARIOS = (
    Scenario("classic, 1 player, 1 round", GameSettings(variant("classic"), ("Anna",), rounds=1)),
    Scenario(
        "risiko, 3 players, 3 rounds",
        GameSettings(
            variant("risiko"),
            ("Anna", "Ben", "Cem"),
            audience_form=AudienceForm.PLAYERS,
            phone_form=PhoneForm.PARTNER,
            rounds=3,
        ),
    ),
    Scenario("jumbo-2002, 6 players, 3 rounds", GameSettings(variant("jumbo-2002"), tuple("ABCDEF"), rounds=3)),
    Scenario("money drop, 1 team", MoneyDropSettings()),
)


def run(seconds_each: float = 1.0) -> dict[str, object]:
    results = []
    for scenario in SCENARIOS:
        games = actions = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds_each:
            rng = random.Random(games)
            if isinstance(scenario.settings, GameSettings):
                _, steps = play_out(new_game(scenario.settings), rng)
            else:
                _, steps = play_out_money_drop(MoneyDropGame(scenario.settings), rng)
            games += 1
            actions += steps
        results.append(
            {
                "scenario": scenario.name,
                "games": games,
                "games_per_second": round(games / elapsed, 1),
                "actions_per_second": round(actions / elapsed),
            }
        )
    return {"benchmark": "rules", "seconds_each": seconds_each, "results": results}


def report(figures: dict[str, object]) -> str:
    rows = figures["results"]
    assert isinstance(rows, list)
    lines = [f"{'scenario':36} {'games/s':>10} {'actions/s':>10}"]
    lines += [f"{r['scenario']:36} {r['games_per_second']:>10} {r['actions_per_second']:>10}" for r in rows]
    return "\n".join(lines)
