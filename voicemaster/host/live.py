"""`voicemaster play`: a real game through the microphone and the speaker, stored after every step.

A game that did not end (a crash, a power cut, Ctrl-C) is offered again at the next start, by voice: a yes
continues it on the question it was on, jokers and all, in either format. Otherwise the players (or teams) and, when
the config says "ask", the variant are asked for by voice before the first question.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from pathlib import Path

from voicemaster.config import ASK, Settings
from voicemaster.host import lines as host_lines
from voicemaster.host.listening import ask_yes_no
from voicemaster.host.millionaire import Quizmaster, Session
from voicemaster.host.moneydrop import DropSession, MoneyDropHost
from voicemaster.host.runner import Runner, Transcript, WallClock, drive
from voicemaster.host.setup import which_variant, who_plays
from voicemaster.host.turns import Listen, Observation, Say, Silence
from voicemaster.questions.model import Entry
from voicemaster.questions.selection import Bank
from voicemaster.rules import moneydrop as md
from voicemaster.rules import new_game
from voicemaster.rules.variants import VARIANTS
from voicemaster.speech.devices import Microphone, Playback, Speaker
from voicemaster.speech.earcons import earcon
from voicemaster.speech.hearing import listen_and_recognize
from voicemaster.speech.recognition import Recognizer
from voicemaster.speech.speakers import Speakers
from voicemaster.store import Store


def play(
    config: Settings,
    *,
    players: tuple[str, ...],
    seed: int,
    language: str,
    entries: tuple[Entry, ...],
    recognizer: Recognizer,
    money_drop: bool = False,
    store_path: Path | None = None,
    log: Path | None = None,
) -> None:
    """Runs a game until it ends; raises AudioUnavailable when a device is missing or lost."""
    speaker, microphone = Speaker(), Microphone()

    def hear(listen: Listen, _said: Say | None, speaking: Playback | None) -> Observation:
        hearing = listen_and_recognize(microphone, recognizer, listen.context, listen.timeout_seconds, speaking)
        heard = hearing.heard
        return Silence() if heard is None else heard

    bank = Bank(entries)
    with Store(store_path) as store, (log or Path("/dev/null")).open("a", encoding="utf-8") as log_file:
        runner = Runner(
            host_lines.load(language),
            Speakers(config.speech),
            speaker,
            WallClock(),
            hear,
            Transcript(log_file),
            store=store,
            earcons=earcon,
        )
        interrupted = store.unfinished_game()
        host: Quizmaster | MoneyDropHost
        if interrupted is not None and drive(ask_yes_no("resume_offer", {}, None, language), runner.perform):
            runner.game_id, state = interrupted
            if json.loads(state).get("format") == "moneydrop":
                host = MoneyDropHost(DropSession.from_json(state), bank, language, seed)
            else:
                session = Session.from_json(state)
                heard = store.heard_by(session.game.settings.players)
                host = Quizmaster(session, bank, language, heard, confirm_from_level=config.game.confirm_from_level)
        else:
            players = players or drive(who_plays(language), runner.perform)
            runner.game_id = f"game-{uuid.uuid4().hex[:12]}"
            if money_drop:
                game = md.MoneyDropGame(config.money_drop_settings(players))
                host = MoneyDropHost(DropSession(game), bank, language, seed)
            else:
                if config.game.variant == ASK:
                    chosen = drive(which_variant(language, tuple(VARIANTS)), runner.perform)
                    config = replace(config, game=replace(config.game, variant=chosen))
                host = Quizmaster(
                    Session(new_game(config.game_settings(players, seed))), bank, language, store.heard_by(players)
                )
        asked_before = len(host.session.asked)
        try:
            drive(host.run(), runner.perform)
            runner.finish_speaking()
        finally:
            microphone.close()
            if isinstance(host, Quizmaster):
                players = host.game.settings.players
                for question_id in host.session.asked[asked_before:]:
                    store.mark_heard(players, question_id)
