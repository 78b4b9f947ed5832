"""`voicemaster history`: games stored by the quizmaster, listed newest first with their totals."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from voicemaster.dialogue.meaning import ContextName, Heard, Intent
from voicemaster.dialogue.turns import Effect, Listen, Observation, Record
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.moneydrop.host import MoneyDropHost
from voicemaster.host.saved import DropSession, Session
from voicemaster.play.runner import drive
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, new_game, variant
from voicemaster.rules import moneydrop as md
from voicemaster.store import Store

EXE = shutil.which("voicemaster", path=str(Path(sys.executable).parent))


def _history(data_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [EXE] if EXE else [sys.executable, "-m", "voicemaster"]
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    return subprocess.run(
        [*command, "history", *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def test_finished_and_interrupted_games_of_both_formats_are_listed(tmp_path: Path, bank: Bank) -> None:
    path = tmp_path / "voicemaster" / "voicemaster.db"
    path.parent.mkdir()

    with Store(path) as store:
        # A Millionaire game: Anna answers wrongly at once and leaves with nothing.
        settings = GameSettings(variant("classic"), ("Anna",), rounds=1, seed=3)
        quiz = Quizmaster(Session(new_game(settings)), bank, "de")

        def millionaire(effect: Effect) -> Observation | None:
            match effect:
                case Record(_, data, state) if state is not None:
                    store.save_game("quiz", state, finished=bool(data.get("finished")))
                case Listen(context) if context.name is ContextName.ANSWER:
                    current = quiz.game.round
                    assert current is not None and current.question is not None
                    wrong = next(letter for letter in current.seats[0].available if letter != current.question.correct)
                    return Heard(Intent.ANSWER, wrong.value, "", 1.0)
                case Listen():
                    return Heard(Intent.YES, None, "ja", 1.0)
            return None

        drive(quiz.run(), millionaire)
        # A money drop that was stored before its first question: a crash, say.
        drop = MoneyDropHost(DropSession(md.MoneyDropGame(md.MoneyDropSettings(teams=("Rot", "Blau")))), bank, "de", 1)
        store.save_game("drop", drop.session.to_json())

    listed = json.loads(_history(tmp_path, "--json").stdout)["games"]
    assert [game["id"] for game in listed] == ["drop", "quiz"]  # the newest first
    drop_game, quiz_game = listed
    assert quiz_game["format"] == "millionaire" and quiz_game["finished"] and quiz_game["totals"] == {"Anna": 0}
    assert quiz_game["rules"] == "classic" and quiz_game["winners"] == ["Anna"]
    assert drop_game["format"] == "moneydrop" and not drop_game["finished"]
    shown = _history(tmp_path).stdout.splitlines()
    assert len(shown) == 2 and "not finished" in shown[0] and "classic" in shown[1]


def test_no_games_yet(tmp_path: Path) -> None:
    shown = _history(tmp_path)
    assert shown.returncode == 0 and "No games yet" in shown.stdout
