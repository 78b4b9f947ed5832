"""`bench faults`, crash and resume: games SIGKILLed at a random step in a child process, resumed and finished.

Each game runs through the real quizmaster (either format) and the real SQLite store, with simulated players who
speak text that the real intent matcher understands (no audio, so a game takes a fraction of a second). The child
kills itself with SIGKILL at a seeded step: between two steps, or inside SQLite's transaction while a step is being
saved. The game is then resumed the way `voicemaster play` resumes it (the store's unfinished game, decoded as
play/live.py decodes it) and played to its end. A game resumed exactly:
- resumed from the last step the killed process had committed (never an older one: no step lost),
- read out again the question and the options as they stood (after a 50:50, the two that are left),
- played on to its end,
- and its every stored state, and the final totals, are what the rules engine gives when the actions taken are
  replayed through it from the first state.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Generator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from voicemaster.config.settings import ASK, Settings, load_settings
from voicemaster.dialogue.meaning import Heard
from voicemaster.dialogue.turns import (
    Effect,
    Elapsed,
    Listen,
    Observation,
    ReadTimer,
    Record,
    Say,
    Silence,
    StartTimer,
    WaitUntil,
)
from voicemaster.host import lines as host_lines
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.moneydrop.host import MoneyDropHost
from voicemaster.host.saved import DropSession, Session, restore
from voicemaster.paths import QUESTIONS_DIR
from voicemaster.play.runner import drive
from voicemaster.play.simulated import SimulatedPlayers, SimulatedTeam
from voicemaster.questions.packs import load, pack_files
from voicemaster.questions.selection import Bank
from voicemaster.rules import moneydrop as md
from voicemaster.rules import new_game
from voicemaster.rules.actions import Action
from voicemaster.rules.codec import from_data, to_data
from voicemaster.rules.variants import VARIANTS
from voicemaster.speech.hearing import phrases
from voicemaster.speech.hearing.intents import understand
from voicemaster.store import Store
from voicemaster_lab.faults.checks import after_fifty_fifty, read_out_problem, replayed, without_current_question

FORMATS = ("millionaire", "moneydrop")
LANGUAGE = "de"
MOST_EFFECTS = 20_000
"""A game that has not ended after this many steps of dialogue is stuck (simulated players who are never understood)."""
CHILD_SECONDS = 120
PACK_CHANGED = 0.25
"""The share of games whose current question leaves the bank between the kill and the resume."""


class Stuck(RuntimeError):
    pass


@dataclass(frozen=True)
class Spec:
    """One game: which, with whom, and where it is killed."""

    format: str
    seed: int
    players: tuple[str, ...]
    variant: str
    kill_at: int | None = None
    """The step of dialogue (1-based) at which the child kills itself; None: never."""
    mid_save: int | None = None
    """If the step is a save: kill inside SQLite after this many virtual-machine instructions of it."""
    pack_changed: bool = False
    """The question the game stands on is taken out of the bank between the kill and the resume."""


def _settings(spec: Spec) -> Settings:
    settings = load_settings()
    return replace(settings, game=replace(settings.game, variant=spec.variant, rounds=1))


class _Logged(Quizmaster):
    """The real quizmaster, telling each action it takes before the state it leads to is stored: the replay needs
    the actions, and the store keeps only the states."""

    def apply(self, action: Action, *, heard_over: bool = False) -> Generator[Effect, Observation | None, Any]:
        yield Record("action", {"name": type(action).__name__, "data": to_data(action)})
        return (yield from super().apply(action, heard_over=heard_over))


class _LoggedDrop(MoneyDropHost):
    def apply(self, action: md.MoneyDropAction) -> Generator[Effect, Observation | None, None]:
        yield Record("action", {"name": type(action).__name__, "data": to_data(action)})
        yield from super().apply(action)


Host = Quizmaster | MoneyDropHost


def new_host(spec: Spec, bank: Bank) -> Host:
    """A new game as `voicemaster play` starts one."""
    settings = _settings(spec)
    if spec.format == "moneydrop":
        game = md.MoneyDropGame(settings.money_drop_settings(spec.players))
        return _LoggedDrop(DropSession(game), bank, LANGUAGE, spec.seed)
    session = Session(new_game(settings.game_settings(spec.players, spec.seed)))
    return _Logged(session, bank, LANGUAGE, {}, confirm_from_level=settings.game.confirm_from_level)


def resumed_host(spec: Spec, bank: Bank, store: Store) -> tuple[str, str, Host] | None:
    """The store's unfinished game as play/live.py `play` resumes it (`saved.restore`): (game id, state, host)."""
    interrupted = store.unfinished_game()
    if interrupted is None:
        return None
    game_id, state = interrupted
    session = restore(game_id, state)
    if isinstance(session, DropSession):
        return game_id, state, _LoggedDrop(session, bank, LANGUAGE, spec.seed)
    heard = store.heard_by(session.game.settings.players)
    confirm = _settings(spec).game.confirm_from_level
    return game_id, state, _Logged(session, bank, LANGUAGE, heard, confirm_from_level=confirm)


@dataclass
class Table:
    """Simulated players at the text level: the quizmaster's lines rendered from the phrase files, the players'
    words understood by the real intent matcher, every state saved to the real store, steps logged."""

    host: Host
    store: Store
    game_id: str
    log: TextIO
    seed: int
    kill_at: int | None = None
    mid_save: int | None = None
    steps: int = 0
    now: float = 0.0
    said: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    """(key, text, params) of every line."""
    game_over: dict[str, Any] | None = None
    first_save: int | None = None
    last_save: int = 0
    _timer: float = 0.0
    _last: Say | None = None
    _action: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        self.lines = host_lines.load(LANGUAGE)
        self.meanings = phrases.load(LANGUAGE)
        rng = random.Random(f"{self.seed}-{self.log.tell()}")  # a new seat at the table after a resume
        if isinstance(self.host, Quizmaster):
            self.players: SimulatedPlayers | SimulatedTeam = SimulatedPlayers(self.host, self.meanings, rng)
        else:
            self.players = SimulatedTeam(self.host, self.meanings, rng)

    def play(self) -> None:
        drive(self.host.run(), self.perform)

    def _write(self, entry: dict[str, Any]) -> None:
        # Flushed, not synced: a killed process's written pages stay in the kernel; only a power cut loses them.
        self.log.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self.log.flush()

    def perform(self, effect: Effect) -> Observation | None:
        self.steps += 1
        if self.steps > MOST_EFFECTS:
            raise Stuck(f"no end after {MOST_EFFECTS} steps")
        if self.steps == self.kill_at and not (self.mid_save and isinstance(effect, Record) and effect.state):
            os.kill(os.getpid(), signal.SIGKILL)
        match effect:
            case Say(key, params):
                self.said.append((key, self.lines.text(effect), dict(params)))
                self._last = effect
            case Listen() as listen:
                text = self.players.respond(listen, self._last)
                if not text:
                    self.now += listen.timeout_seconds
                    return Silence()
                meant = understand(text, listen.context, self.meanings)
                self.players.understood(meant.intent != "unknown")
                self.now += 2.0
                return Heard(meant.intent, meant.value, text, meant.score)
            case StartTimer():
                self._timer = self.now
            case ReadTimer():
                return Elapsed(self.now - self._timer)
            case WaitUntil(elapsed):
                self.now = max(self.now, self._timer + elapsed)
            case Record("action", data):
                self._action = dict(data)
            case Record(_, data, state) if state is not None:
                self._save(state, bool(data.get("finished")))
            case Record("game_over", data):
                self.game_over = dict(data)
        return None

    def _save(self, state: str, finished: bool) -> None:
        self._write({"saving": self.steps, "action": self._action, "state": state})
        if self.steps == self.kill_at and self.mid_save:
            # Killed inside the transaction: SQLite's journal must leave the step either stored whole or not at all.
            self.store._db.set_progress_handler(_killed, self.mid_save)
        self.store.save_game(self.game_id, state, finished=finished)
        self._write({"saved": self.steps})
        self.first_save = self.first_save or self.steps
        self.last_save = self.steps


def _killed() -> int:
    os.kill(os.getpid(), signal.SIGKILL)
    return 0  # pragma: no cover - never reached


def child(spec: Spec, db: Path, log_path: Path) -> None:
    """The first part of a game, in a process of its own, to be killed at `spec.kill_at`."""
    bank = Bank(tuple(load(pack_files(QUESTIONS_DIR)).entries))
    host = new_host(spec, bank)
    with Store(db) as store, log_path.open("a", encoding="utf-8") as log:
        table = Table(host, store, f"game-{spec.seed}", log, spec.seed, spec.kill_at, spec.mid_save)
        table._write({"start": host.session.to_json()})
        table.play()


@dataclass(frozen=True)
class Outcome:
    exact: bool
    finished: bool
    confirmed: bool
    problem: str | None
    fifty_fifty: bool
    """The killed game stood on a question after a 50:50."""


def one_game(spec: Spec, bank: Bank, folder: Path) -> Outcome:
    db, log_path = folder / "games.db", folder / "steps.jsonl"
    # The game's length, played through once without a kill: the kill falls anywhere after its first save.
    with tempfile.TemporaryDirectory(dir=folder) as dry, Path(dry, "log").open("a+", encoding="utf-8") as log:
        with Store(Path(dry, "dry.db")) as store:
            table = Table(new_host(spec, bank), store, "dry", log, spec.seed)
            table.play()
        first_save, last_save = table.first_save or 1, table.last_save
    rng = random.Random(spec.seed)
    # Before the step that stores the end: killed after it, there is no game left to resume, rightly.
    kill_at = rng.randint(first_save + 1, max(first_save + 1, last_save - 1))
    spec = replace(spec, kill_at=kill_at, mid_save=rng.choice((None, None, rng.randint(1, 60))))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    code = [sys.executable, "-m", "voicemaster_lab.faults.resume", json.dumps(to_data(spec)), str(db), str(log_path)]
    done = subprocess.run(code, capture_output=True, text=True, timeout=CHILD_SECONDS, env=env, check=False)
    if done.returncode != -signal.SIGKILL:
        return Outcome(False, False, False, f"the child ended with {done.returncode}: {done.stderr[-300:]}", False)
    return _resume(spec, bank, db, log_path)


def _resume(spec: Spec, bank: Bank, db: Path, log_path: Path) -> Outcome:
    entries = [json.loads(line) for line in log_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    saving = [e for e in entries if "saving" in e]
    saved = {e["saved"] for e in entries if "saved" in e}
    committed = [e["state"] for e in saving if e["saving"] in saved]
    # Killed between SQLite's commit and the log's "saved": the step being saved may be stored too.
    allowed = {committed[-1]} if committed else set()
    if saving and saving[-1]["saving"] not in saved:
        allowed.add(saving[-1]["state"])
    with Store(db) as store, log_path.open("a", encoding="utf-8") as log:
        stored = store.unfinished_game()
        if spec.pack_changed and stored is not None:
            bank = without_current_question(bank, stored[1])
        found = resumed_host(spec, bank, store)
        if found is None:
            return Outcome(False, False, False, "no unfinished game to resume", False)
        game_id, state, host = found
        fifty = after_fifty_fifty(host)
        log.write(json.dumps({"resumed": state}) + "\n")
        table = Table(host, store, game_id, log, spec.seed)
        try:
            table.play()
        except Stuck as error:
            return Outcome(False, False, False, str(error), fifty)
    problem = None if state in allowed else "resumed from another step than the last one committed"
    problem = problem or read_out_problem(host, state, table.said)
    finished = table.game_over is not None or (isinstance(host, MoneyDropHost) and host.game.over)
    confirmed, why = replayed(log_path, table.game_over)
    problem = problem or (None if finished else "the resumed game did not end") or why
    return Outcome(problem is None, finished, confirmed, problem, fifty)


def specs(games: int, seed: int) -> list[Spec]:
    rng = random.Random(seed)
    names = ("Anna", "Ben", "Cem")
    teams = ("Die Füchse", "Die Eulen")
    variants = [name for name in VARIANTS if name != ASK]
    made = []
    for format_name in FORMATS:
        for _ in range(games):
            players = names[: rng.randint(1, 3)] if format_name == "millionaire" else teams[: rng.randint(1, 2)]
            changed = rng.random() < PACK_CHANGED
            made.append(
                Spec(format_name, rng.randrange(1_000_000), players, rng.choice(variants), pack_changed=changed)
            )
    return made


def run(games: int, seed: int = 17) -> dict[str, Any]:
    """`games` of each format, killed, resumed and finished; the dialogue steps of each game counted first, in a
    run without a kill, for the kill to fall anywhere in it."""
    started = time.perf_counter()
    bank = Bank(tuple(load(pack_files(QUESTIONS_DIR)).entries))
    per_format: dict[str, dict[str, Any]] = {}
    for spec in specs(games, seed):
        figures = per_format.setdefault(
            spec.format,
            {
                "games": 0,
                "exact": 0,
                "finished": 0,
                "confirmed": 0,
                "after_fifty_fifty": 0,
                "after_pack_change": 0,
                "problems": Counter(),
            },
        )
        with tempfile.TemporaryDirectory(prefix="vm-resume-") as folder:
            try:
                outcome = one_game(spec, bank, Path(folder))
            except subprocess.TimeoutExpired:
                outcome = Outcome(False, False, False, f"the child hung for {CHILD_SECONDS} s", False)
        figures["games"] += 1
        figures["exact"] += outcome.exact
        figures["finished"] += outcome.finished
        figures["confirmed"] += outcome.confirmed
        figures["after_fifty_fifty"] += outcome.fifty_fifty
        figures["after_pack_change"] += spec.pack_changed
        if outcome.problem:
            figures["problems"][outcome.problem.split(";")[0]] += 1
    for figures in per_format.values():
        figures["problems"] = dict(figures["problems"].most_common())
    total = {key: sum(f[key] for f in per_format.values()) for key in ("games", "exact", "finished", "confirmed")}
    return {**total, "per_format": per_format, "seed": seed, "seconds": round(time.perf_counter() - started, 1)}


if __name__ == "__main__":
    child(from_data(Spec, json.loads(sys.argv[1])), Path(sys.argv[2]), Path(sys.argv[3]))
