"""What makes a resumed game exact (faults/resume.py): the read-out after the resume, and the replay of the
actions taken through the rules engine."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.moneydrop.host import MoneyDropHost
from voicemaster.host.saved import DropSession, Session, restore
from voicemaster.questions.selection import Bank
from voicemaster.rules import Game, millionaire
from voicemaster.rules import moneydrop as md
from voicemaster.rules.actions import Action
from voicemaster.rules.codec import from_data
from voicemaster.rules.letters import Letter

ACTIONS: dict[str, type[Any]] = {
    cls.__name__: cls for cls in (*typing.get_args(Action), *typing.get_args(md.MoneyDropAction))
}
Host = Quizmaster | MoneyDropHost


def after_fifty_fifty(host: Host) -> bool:
    current = host.game.round if isinstance(host, Quizmaster) else None
    return bool(current and current.question and any(seat.removed for seat in current.seats))


def read_out_problem(host: Host, state: str, said: list[tuple[str, str, dict[str, Any]]]) -> str | None:
    """What the resumed quizmaster read out first, against the stored state: the question and its options as they
    stood."""
    keys = [key for key, _, _ in said]
    if not keys or keys[0] != "resumed":
        return "did not say that the game goes on"
    read = [params for key, _, params in said[1:] if key in ("question", "option")]
    if isinstance(host, Quizmaster):
        session = Session.from_json(state)
        current = session.game.round
        if current is None or current.question is None:
            return None
        entry = host.bank.entry(current.question.id)
        # As they stood: open to the player on turn, or (all locked) to anyone still playing; a 50:50 removed two.
        seats = [current.seat(current.to_act)] if current.to_act else [s for s in current.seats if s.playing]
        letters = [letter for letter in Letter.first(4) if any(seat and letter in seat.available for seat in seats)]
        # The question's words from the bank, or, its pack changed since, as the stored game kept them.
        expected = [{"text": entry.question if entry else (session.texts or ("?",))[0]}]
        expected += [
            {"letter": letter.value, "text": session.options[Letter.first(4).index(letter)]} for letter in letters
        ]
    else:
        drop = DropSession.from_json(state)
        run = drop.game.run
        if run is None or run.phase is not md.Phase.PLACING or run.chosen is None or run.card is None:
            return None
        entry = host.bank.entry(run.card.id)
        options = drop.offered[run.chosen]
        expected = [
            {"letter": letter.value, "text": text}
            for letter, text in zip(Letter.first(len(options)), options, strict=True)
        ]
        kept = drop.texts[run.chosen][0] if len(drop.texts) == 2 else "?"
        expected += [{"text": entry.question if entry else kept}]
    got = [{k: v for k, v in params.items() if k in ("letter", "text")} for params in read[: len(expected)]]
    if got != expected:
        shown = ", ".join(p.get("letter", "question") for p in got)
        return f"read out {shown}; as the game stood: {', '.join(p.get('letter', 'question') for p in expected)}"
    return None


def replayed(log_path: Path, game_over: dict[str, Any] | None) -> tuple[bool, str | None]:
    """The actions taken, replayed through the rules engine from the first state: every stored state, and the
    totals announced at the end, must be what the rules make of them. Steps a crash undid are left out."""
    chain: list[tuple[dict[str, Any], str]] = []
    start = None
    for entry in (json.loads(line) for line in log_path.read_text(encoding="utf-8").splitlines() if line.strip()):
        if "start" in entry:
            start = entry["start"]
        elif "saving" in entry:
            chain.append((entry["action"], entry["state"]))
        elif "resumed" in entry:
            kept = [i for i, (_, state) in enumerate(chain) if state == entry["resumed"]]
            if not kept:
                return False, "resumed from a state the game never had"
            chain = chain[: kept[-1] + 1]
    if start is None:
        return False, "no first state"
    drop = json.loads(start).get("format") == "moneydrop"
    game: Game | md.MoneyDropGame = (DropSession.from_json(start) if drop else Session.from_json(start)).game
    for number, (action, state) in enumerate(chain, 1):
        done = from_data(ACTIONS[action["name"]], action["data"])
        if isinstance(game, md.MoneyDropGame):
            game, _ = md.apply_money_drop(game, done)
            stored: Game | md.MoneyDropGame = DropSession.from_json(state).game
        else:
            game, _ = millionaire.apply(game, done)
            stored = Session.from_json(state).game
        if game != stored:
            return False, f"step {number} ({action['name']}): the stored state is not what the rules make of it"
    if isinstance(game, Game) and game_over is not None:
        totals = dict(game.outcome.totals) if game.outcome is not None else None
        if totals != game_over["totals"]:
            return False, "the totals announced are not the rules' totals"
    return True, None


def without_current_question(bank: Bank, state: str) -> Bank:
    """The bank with the question(s) a stored game stands on taken out: its pack changed between crash and resume."""
    session = restore("", state)
    if isinstance(session, DropSession):
        run = session.game.run
        gone = {card.id for card in run.offered} if run is not None else set()
    else:
        current = session.game.round
        gone = {current.question.id} if current is not None and current.question is not None else set()
    return Bank(tuple(entry for entry in bank.entries if entry.id not in gone))
