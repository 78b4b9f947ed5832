"""A game for the screen's tests, fast: the quizmaster's dialogue and the real runner (eSpeak-NG renders every line),
against the demo's simulated players whose words are understood from their text.

What the screen is tested on is what the runner hands it, which is the same in `play`, in `demo` and here; the
recognizer, which only decides what the players are taken to have said, is tested on real audio elsewhere.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from pathlib import Path

from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Heard
from voicemaster.dialogue.turns import Dialogue, Listen, Observation, Say, Silence
from voicemaster.host import lines as host_lines
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.moneydrop.host import MoneyDropHost
from voicemaster.host.saved import DropSession, Session
from voicemaster.host.screen_address import ScreenAddress
from voicemaster.paths import QUESTIONS_DIR
from voicemaster.play.ear import Answers
from voicemaster.play.runner import Runner, SessionClock, Transcript, Watcher, drive
from voicemaster.play.simulated import SimulatedPlayers, SimulatedTeam
from voicemaster.play.simulated_ear import Simulated
from voicemaster.questions.model import Entry
from voicemaster.questions.packs import load, pack_files
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, new_game, variant
from voicemaster.rules import moneydrop as md
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.devices.interfaces import Playback
from voicemaster.speech.hearing import phrases
from voicemaster.speech.hearing.intents import understand
from voicemaster.speech.voice.speakers import Speakers

PLAYERS = ("Anna", "Ben")
SEED = 5


@functools.cache
def entries() -> tuple[Entry, ...]:
    """The shipped packs' entries, read once a process: each game and page of these tests asks for them, and reading
    them all again took a second (several under coverage). Frozen entries in a tuple: no test can change them."""
    return tuple(load(pack_files(QUESTIONS_DIR)).entries)


Cast = Callable[[Simulated], Simulated]
"""What the players do beside what the demo's players do: given those, the players who play."""


def play_game(
    out: Path,
    watch: Watcher | None,
    *,
    seed: int = SEED,
    players: tuple[str, ...] = PLAYERS,
    language: str = "de",
    screen: ScreenAddress | None = None,
    cast: Cast | None = None,
) -> Path:
    """A classic game of one round (by default the one of two players with all three jokers); returns its
    transcript. `screen`: where the screen is, as the shell tells the quizmaster."""
    settings = GameSettings(variant("classic"), players, rounds=1, seed=seed)
    quizmaster = Quizmaster(Session(new_game(settings)), Bank(entries()), language, screen=screen)
    simulated = SimulatedPlayers(quizmaster, phrases.load(language), random.Random(seed))
    return _played(quizmaster.run(), cast(simulated) if cast else simulated, out, watch, language)


def play_money_drop(
    out: Path,
    watch: Watcher | None,
    *,
    seed: int = SEED,
    language: str = "de",
    screen: ScreenAddress | None = None,
    cast: Cast | None = None,
) -> Path:
    """A money drop of one team; returns its transcript."""
    session = DropSession(md.MoneyDropGame(md.MoneyDropSettings(teams=("Anna",))))
    host = MoneyDropHost(session, Bank(entries()), language, seed, screen=screen)
    team = SimulatedTeam(host, phrases.load(language), random.Random(seed))
    return _played(host.run(), cast(team) if cast else team, out, watch, language)


def _played(dialogue: Dialogue, players: Simulated, out: Path, watch: Watcher | None, language: str) -> Path:
    meanings = phrases.load(language)
    transcript_path = out / "transcript.jsonl"
    with transcript_path.open("w", encoding="utf-8") as transcript_file:
        transcript = Transcript(transcript_file, watch)
        sink = FileSink()

        def hear(listen: Listen, said: Say | None, _speaking: Playback | None) -> Observation:
            text = players.respond(listen, said)
            if not text:
                sink.pause(listen.timeout_seconds)
                return Silence()
            transcript.write(sink.seconds, "player", {"player": listen.player, "speaker": "player", "text": text})
            meant = understand(text, listen.context, meanings)
            players.understood(True)
            return Heard(meant.intent, meant.value, text, meant.score)

        runner = Runner(
            host_lines.load(language),
            Speakers({language: Voice(engine="espeak")}),
            sink,
            SessionClock(sink),
            Answers(hear),
            transcript,
            render_ahead=False,
        )
        drive(dialogue, runner.perform)
        runner.finish_speaking()
    return transcript_path
