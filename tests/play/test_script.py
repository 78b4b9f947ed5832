"""The short demo's script: simulated players stage a joker, an answer said over the quizmaster, a walk-away and a
wrong answer whatever the seed and however many play; heard here exactly as meant (no sound, no model)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from voicemaster.dialogue.meaning import ContextName, Heard
from voicemaster.dialogue.turns import Effect, Listen, Observation, Record, Say, Silence
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.moneydrop.host import MoneyDropHost
from voicemaster.host.saved import DropSession, Session
from voicemaster.play.runner import drive
from voicemaster.play.script import FULL, SHORT
from voicemaster.play.simulated import SimulatedPlayers, SimulatedTeam
from voicemaster.questions.selection import Bank
from voicemaster.rules import AudienceForm, GameSettings, PhoneForm, new_game, variant
from voicemaster.rules import moneydrop as md
from voicemaster.speech.hearing import phrases
from voicemaster.speech.hearing.intents import understand

NAMES = ("Anna", "Ben", "Cem", "Dana")


@dataclass
class Table:
    """Simulated players heard as they mean it: what they said when, and what was recorded."""

    players: SimulatedPlayers | SimulatedTeam
    language: str
    said: Say | None = None
    records: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    spoken_over: list[tuple[str | None, int]] = field(default_factory=list)
    """(who, how many questions were asked then) for each answer said over the quizmaster."""
    asked: int = 0

    def perform(self, effect: Effect) -> Observation | None:
        match effect:
            case Say() as said:
                self.said = said
            case Listen() as listen:
                text = self.players.respond(listen, self.said)
                if listen.context.name is ContextName.ANSWER and self.players.speaks_over(listen):
                    self.spoken_over.append((listen.player, self.asked))
                if not text:
                    return Silence()
                meant = understand(text, listen.context, phrases.load(self.language))
                self.players.understood(True)
                return Heard(meant.intent, meant.value, text, 1.0)
            case Record(event, data, None):
                self.records.append((event, dict(data)))
                self.asked += event == "question"
        return None

    def events(self, name: str) -> list[dict[str, Any]]:
        return [data for event, data in self.records if event == name]


@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("seed", [1, 11, 31])
def test_every_short_game_has_its_moments_and_ends_after_four_questions(bank: Bank, players: int, seed: int) -> None:
    names = NAMES[:players]
    together = players > 1
    settings = GameSettings(
        variant("classic"),
        names,
        audience_form=AudienceForm.PLAYERS if together else AudienceForm.SIMULATED,
        phone_form=PhoneForm.PARTNER if together else PhoneForm.CALL,
        rounds=SHORT.rounds,
        seed=seed,
    )
    quizmaster = Quizmaster(Session(new_game(settings)), bank, "de")
    table = Table(SimulatedPlayers(quizmaster, phrases.load("de"), random.Random(seed), SHORT.script), "de")
    drive(quizmaster.run(), table.perform)

    assert len(table.events("question")) == 4
    assert [(e["player"], e["joker"]) for e in table.events("joker")] == [
        (name, "fifty_fifty") for name in names[1::2] or names
    ]
    assert table.spoken_over == [(name, 1) for name in names[::2]]
    walked = [e["player"] for e in table.events("walk_away")]
    wrong = [e["player"] for e in table.events("result") if not e["correct"]]
    assert walked == list(names[::2]) and wrong == list(names[1::2])
    [over] = table.events("game_over")
    assert over["totals"] == {name: 200 if name in walked else 0 for name in names}


def test_a_whole_evening_is_left_to_the_seeded_players() -> None:
    assert FULL.script is None and (FULL.players, FULL.rounds, FULL.teams, FULL.cards) == (3, 2, 3, None)
    assert (SHORT.players, SHORT.rounds, SHORT.teams) == (2, 1, 1) and SHORT.cards is not None and len(SHORT.cards) < 8


@pytest.mark.parametrize("teams", [SHORT.teams, 2])
@pytest.mark.parametrize("seed", [1, 31])
def test_a_short_money_drop_plays_a_few_cards_and_switches_a_category(bank: Bank, seed: int, teams: int) -> None:
    assert SHORT.cards is not None
    settings = md.MoneyDropSettings(teams=NAMES[:teams], option_counts=SHORT.cards)
    host = MoneyDropHost(DropSession(md.MoneyDropGame(settings)), bank, "de", seed)
    table = Table(SimulatedTeam(host, phrases.load("de"), random.Random(seed), SHORT.script), "de")
    drive(host.run(), table.perform)

    # Three cards a team, and one switched for another (by the second team, when there is one).
    assert len(table.events("question")) == teams * 3 + 1
    assert table.spoken_over[0] == ("Anna", 0)  # the first team names its first card's category over the question
    assert len(table.events("game_over")) == 1
