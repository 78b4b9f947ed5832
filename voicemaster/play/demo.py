"""`voicemaster demo`: a whole game by voice with simulated players (or a money-drop team), heard as `play` hears.

The players' words are synthesized in another voice and fed to the pipeline `play` listens through as microphone
frames, with the silence a player leaves around them, on a `Stage` (`stage.py`); so the endpointer, the early
decision and barge-in run as in a game (`simulated_ear.py`). The quizmaster's speech and the players' go into
`session.wav`, every step into `transcript.jsonl`; a watcher (the terminal's narration, the screen) sees each step.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from voicemaster.config.voice import Voice
from voicemaster.dialogue.turns import Dialogue, Listen
from voicemaster.host import lines as host_lines
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.moneydrop.host import MoneyDropHost
from voicemaster.host.saved import DropSession, Session
from voicemaster.host.screen_address import ScreenAddress
from voicemaster.play.ear import heard_cue
from voicemaster.play.paced import Paced
from voicemaster.play.runner import Runner, Transcript, Watcher, drive
from voicemaster.play.script import Script
from voicemaster.play.simulated import SimulatedPlayers, SimulatedTeam
from voicemaster.play.simulated_ear import Simulated, SimulatedEar
from voicemaster.play.stage import Stage
from voicemaster.questions.model import Entry
from voicemaster.questions.selection import Bank
from voicemaster.questions.spoken import lexicon
from voicemaster.rules import GameSettings, new_game
from voicemaster.rules import moneydrop as md
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.devices.interfaces import AudioOut, Playback
from voicemaster.speech.frontend import FrontEnd
from voicemaster.speech.hearing import phrases
from voicemaster.speech.hearing.recognition import Recognizer
from voicemaster.speech.voice import kokoro, pico
from voicemaster.speech.voice.earcons import earcon
from voicemaster.speech.voice.speakers import Engines, quizmaster_voice, resolved
from voicemaster.store import Store


def player_voices(language: str, quizmaster: Voice) -> list[Voice]:
    """The simulated players' voices, each player their own, none the quizmaster's, so a listener tells them apart:
    Kokoro's natural voices where they are installed and speak the language (English), else SVOX Pico's (German and
    French: one voice made several people by pitch and rate), else eSpeak-NG variants. The ear is measured on the
    most human speech there is in the language: Kokoro has one French voice, the quizmaster's, and its English
    voices speaking French were heard as English ("réponse C" as "Ray Ponzi", "je dis" as "G-disse"), where Pico's
    French was heard as said."""
    host = resolved(quizmaster, language)
    if language in KOKORO_PLAYERS and (host.engine == "kokoro" or kokoro.installed() is not None):
        names = [name for name in PLAYER_KOKORO_VOICES[language] if name != host.name]
        if names:
            return [Voice(name, rate=150, engine="kokoro") for name in names]
    if pico.speaks(language):
        names = pico.voice_names(language)
        table = PICO_BY_LANGUAGE.get(language, PICO)
        return [Voice(names[n % len(names)], rate, pitch=pitch, engine="pico") for n, (pitch, rate) in enumerate(table)]
    return [Voice(name, rate=150, engine="espeak") for name in PLAYER_ESPEAK_VOICES[language]]


PLAYER_KOKORO_VOICES = {
    "en": ("am_michael", "af_heart", "bm_george", "af_bella", "bm_lewis", "bf_isabella"),
    "fr": ("ff_siwis", "af_heart", "af_bella", "am_michael"),
}
"""Kokoro's voices as players, each language's (French: its one French voice, and English ones saying French, which
the lab measures the ear on)."""
KOKORO_PLAYERS = ("en",)
"""The languages whose demo players speak Kokoro: those it has several voices of its own for."""
PICO = ((80, 136), (125, 184), (125, 136), (80, 184))
"""(pitch %, words a minute) of each player speaking Pico: a deeper and a higher voice, at 85 % and 115 % of the
quizmaster's rate; never the quizmaster's own pitch (100 %)."""
PICO_BY_LANGUAGE = {"fr": ((80, 136), (125, 136), (80, 184), (125, 184))}
"""French players: the slower voices first (the two of a short demo). A French letter said fast by the higher voice
ran into the word before it: its "réponse C" was heard as "réponse", "cé" as "si", neither understood."""
PLAYER_ESPEAK_VOICES = {"de": ("de+m3", "de+f2", "de+m5"), "en": ("en-us", "en-us+f2"), "fr": ("fr+m3", "fr+f2")}


class Staging(Simulated, Protocol):
    def speaks_over(self, listen: Listen) -> bool | None: ...


@dataclass
class LastLine:
    """Passes every step on to `watch`, keeping how long the quizmaster's last line played: the line a player is
    asked by ("Anna, deine Antwort?"), once the lines before a listening have all been written down."""

    watch: Watcher | None = None
    seconds: float = 0.0

    def publish(self, t: float, event: str, data: Mapping[str, Any]) -> None:
        if event == "say":
            self.seconds = float(data["end"]) - float(data["start"])
        if self.watch is not None:
            self.watch.publish(t, event, data)

    def stored(self, t: float, state: str) -> None:
        if self.watch is not None:
            self.watch.stored(t, state)


@dataclass
class CuedEar(SimulatedEar):
    """The demo's ear, where the players say whether they speak over the quizmaster (`Staging.speaks_over`): a
    scripted player answers over the lines where told, and only there, as soon as the options are read (over "Anna,
    deine Antwort?", the last line), or halfway through a line said alone; unscripted, the ear's own chance decides."""

    players: Staging
    last_line: LastLine = field(default_factory=LastLine)

    def speaks_at(self, listen: Listen, speaking: Playback | None) -> float | None:
        told = None if speaking is None or speaking.done() else self.players.speaks_over(listen)
        if told is None:
            return super().speaks_at(listen, speaking)
        if not told or speaking is None:
            return None
        seconds = speaking.audio.seconds
        return max(seconds - self.last_line.seconds, seconds / 2)


@dataclass(frozen=True)
class DemoResult:
    session: Path
    transcript: Path
    seconds: float
    utterances: int
    understood: int
    """Utterances heard as what the player meant."""
    mistaken: int
    """Utterances heard as something the player did not mean (the rest were asked again)."""


@dataclass(frozen=True)
class Demo:
    """Where and how a demo plays: `cast`, the players' voices (by default `player_voices`); `watch`, the screen,
    `screen` where it is (said when asked); `speaker`: aloud through it in real time, `watch` told each step when the
    sound reaches it (else as fast as it can); `heard_cue`: the tick that a player was heard (`[speech] heard_cue`);
    `front_end`: what the players are heard through, as in `play`."""

    language: str
    entries: tuple[Entry, ...]
    recognizer: Recognizer
    voices: dict[str, Voice]
    out: Path
    cast: Sequence[Voice] = ()
    watch: Watcher | None = None
    screen: ScreenAddress | None = None
    speaker: AudioOut | None = None
    heard_cue: bool = True
    front_end: FrontEnd | None = None

    def millionaire(self, settings: GameSettings, script: Script | None = None) -> DemoResult:
        """A Millionaire game of simulated players; with a script, staging its moments."""
        quizmaster = Quizmaster(Session(new_game(settings)), Bank(self.entries), self.language, screen=self.screen)
        players = SimulatedPlayers(quizmaster, phrases.load(self.language), random.Random(settings.seed), script)
        return self._play(quizmaster.run(), players, f"demo-{settings.seed}", settings.seed)

    def money_drop(self, settings: md.MoneyDropSettings, seed: int, script: Script | None = None) -> DemoResult:
        """A money-drop run of simulated teams; with a script, staging its moments."""
        session = DropSession(md.MoneyDropGame(settings))
        host = MoneyDropHost(session, Bank(self.entries), self.language, seed, screen=self.screen)
        team = SimulatedTeam(host, phrases.load(self.language), random.Random(seed), script)
        return self._play(host.run(), team, f"moneydrop-demo-{seed}", seed)

    def _play(self, dialogue: Dialogue, players: Staging, game_id: str, seed: int) -> DemoResult:
        """The quizmaster's dialogue against simulated players whose words are spoken, then heard through the
        pipeline `play` listens through."""
        language, out, speaker, watch = self.language, self.out, self.speaker, self.watch
        out.mkdir(parents=True, exist_ok=True)
        cast = self.cast or player_voices(language, self.voices.get(language, Voice()))
        engines = Engines()  # one Kokoro for the quizmaster and every player
        transcript_path = out / "transcript.jsonl"
        with transcript_path.open("w", encoding="utf-8") as transcript_file, Store(out / "demo.db") as store:
            # Each step is passed on when the session reaches it, aloud or not: the lines a player cut off before
            # they began are taken back (`unsaid`) before anyone is told them.
            paced = Paced(watch) if watch is not None else None
            last_line = LastLine(paced or watch)
            transcript = Transcript(transcript_file, last_line)
            # Written as it is made: memory stays flat.
            stage = Stage(FileSink(path=out / "session.wav"), speaker, paced, self.front_end)
            ear = CuedEar(
                players,
                stage,
                self.recognizer,
                transcript,
                language,
                cast,
                engines,
                random.Random(f"ear-{seed}"),
                cue=heard_cue(self.heard_cue),
                last_line=last_line,
            )
            runner = Runner(
                host_lines.load(language),
                quizmaster_voice(self.voices, lexicon(self.entries), engines),
                stage,
                stage,
                ear,
                transcript,
                store=store,
                game_id=game_id,
                earcons=earcon,
                render_ahead=False,
            )
            drive(dialogue, runner.perform)
            runner.finish_speaking()
            stage.finish()
        session = out / "session.wav"
        stage.sink.write(session)  # ends the recording (it is already there)
        return DemoResult(session, transcript_path, stage.sink.seconds, ear.utterances, ear.understood, ear.mistaken)
