"""The questions a demo game asks, without its sound: `voicemaster demo --seed N` replayed by the text alone.

`voicemaster demo` plays a game of simulated players whose words are rendered and heard back; what it asks follows
from the seed and from what was understood. Replayed here, each player's words are taken as the text matcher
understands them, so a seed's game is known in a second instead of an hour of rendering and hearing on a shared
machine. It is the game of a demo that understands every word: where the audio demo asks a player again, the
players' next choices shift and the two games part (docs/benchmarks.md says after how many questions).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from voicemaster.cli.play import DEMO_NAMES
from voicemaster.config.settings import ASK, Settings
from voicemaster.dialogue.meaning import Heard
from voicemaster.dialogue.turns import Effect, Elapsed, Listen, Observation, ReadTimer, Record, Say, Silence
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.saved import Session
from voicemaster.play.runner import drive
from voicemaster.play.simulated import SimulatedPlayers
from voicemaster.questions.model import Entry
from voicemaster.questions.selection import Bank
from voicemaster.rules import new_game
from voicemaster.speech.hearing import phrases
from voicemaster.speech.hearing.intents import understand

PLAYERS, ROUNDS = 3, 2
"""`voicemaster demo`'s defaults."""


def demo_questions(settings: Settings, entries: Sequence[Entry], language: str, seed: int) -> list[str]:
    """The ids of the questions `voicemaster demo --lang LANGUAGE --seed SEED` asks, in order, each once."""
    game = settings.game
    if game.variant == ASK:  # simulated players do not choose: the classic rules, as the demo
        game = replace(game, variant="classic")
    settings = replace(settings, game=replace(game, rounds=ROUNDS))
    host = Quizmaster(
        Session(new_game(settings.game_settings(DEMO_NAMES[:PLAYERS], seed))), Bank(tuple(entries)), language
    )
    meanings = phrases.load(language)
    players = SimulatedPlayers(host, meanings, random.Random(seed))
    asked: list[str] = []
    said: list[Say] = []

    def perform(effect: Effect) -> Observation | None:
        match effect:
            case Say() as line:
                said.append(line)
            case Listen() as listen:
                text = players.respond(listen, said[-1] if said else None)
                if not text:
                    return Silence()
                meant = understand(text, listen.context, meanings)
                players.understood(True)
                return Heard(meant.intent, meant.value, text, meant.score)
            case ReadTimer():
                return Elapsed(0.0)
            case Record("question", data) if str(data["question_id"]) not in asked:
                asked.append(str(data["question_id"]))
        return None

    drive(host.run(), perform)
    return asked
