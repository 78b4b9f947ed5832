"""`voicemaster play`: a real game through the microphone and the speaker, stored after every step.

A game that did not end (a crash, a power cut, Ctrl-C) is offered again at the next start, by voice: a yes
continues it on the question it was on, jokers and all.
"""

from __future__ import annotations

import uuid
from collections.abc import Generator
from pathlib import Path

from voicemaster.host import lines as host_lines
from voicemaster.host.millionaire import LISTEN_SECONDS, Quizmaster, Session
from voicemaster.host.runner import Runner, Transcript, WallClock, drive
from voicemaster.host.turns import Effect, Listen, Observation, Say, Silence
from voicemaster.questions.model import Entry
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, new_game
from voicemaster.speech.devices import Microphone, Speaker
from voicemaster.speech.earcons import earcon
from voicemaster.speech.recognition import Context, ContextName, Heard, Recognizer
from voicemaster.speech.synthesis import Espeak, Voice
from voicemaster.store import Store


def offer_resume(language: str) -> Generator[Effect, Observation | None, bool]:
    """Asks whether to continue the interrupted game; only a clear yes does."""
    yield Say("resume_offer")
    heard = yield Listen(Context(ContextName.CONFIRM, language), None, LISTEN_SECONDS)
    return isinstance(heard, Heard) and heard.intent == "yes"


def play(
    settings: GameSettings,
    *,
    language: str,
    entries: tuple[Entry, ...],
    recognizer: Recognizer,
    voices: dict[str, Voice],
    store_path: Path | None = None,
    log: Path | None = None,
) -> None:
    """Runs a game until it ends; raises AudioUnavailable when a device is missing or lost."""
    speaker, microphone = Speaker(), Microphone()

    def hear(listen: Listen, _said: Say | None) -> Observation:
        audio = microphone.listen(listen.timeout_seconds)
        return Silence() if audio is None else recognizer.recognize(audio, listen.context)

    with Store(store_path) as store, (log or Path("/dev/null")).open("a", encoding="utf-8") as log_file:
        runner = Runner(
            host_lines.load(language),
            Espeak(voices),
            speaker,
            WallClock(),
            hear,
            Transcript(log_file),
            store=store,
            earcons=earcon,
        )
        interrupted = store.unfinished_game()
        session = Session(new_game(settings))
        runner.game_id = f"game-{uuid.uuid4().hex[:12]}"
        if interrupted is not None and drive(offer_resume(language), runner.perform):
            runner.game_id, state = interrupted
            session = Session.from_json(state)
        players = session.game.settings.players
        quizmaster = Quizmaster(session, Bank(entries), language, store.heard_by(players))
        try:
            drive(quizmaster.run(), runner.perform)
        finally:
            microphone.close()
            for question_id in quizmaster.session.asked[len(session.asked) :]:
                store.mark_heard(players, question_id)
