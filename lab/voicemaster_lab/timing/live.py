"""`voicemaster bench live`: felt latency, what the player waits for in a real game (issue 27).

A private PulseAudio daemon lays a virtual microphone and speaker on one clock (`harness.pulse`, `bus=True`), and a
real `voicemaster play` runs on them as its own process, with the Whisper engine and the shipped settings (or those of
`voicemaster --config FILE bench live`: another voice for the quizmaster, say), classic rules. A player
(`harness.player`) follows the game's log: each time the quizmaster listens, once its line has ended and after the
pause a person leaves, it says its reply into the microphone, from recordings of people (the real-speech set) or
in Pico's and Kokoro's voices. The bus is recorded throughout; afterwards each turn's felt latency is read off the
recording (`timing.live_figures`): from the end of the player's speech to the first sample of the quizmaster's reply.

What the log says the game heard tells a turn asked again from one understood (or misunderstood). CPU per decision is
the game process's CPU time (every thread: decoder, BLAS workers, voice activity, render-ahead) from the end of the
player's speech until the decision shows in the log, read from /proc at both moments. The heard cue's delay is read
off the recording as the reply's is; how often a reading started ahead (at the short pause, `hearing.ahead`)
decided, and what the readings thrown away cost, from the log.

It runs in real time: about a minute a language for the default dozen turns. The machine's load average is printed
with the figures, because on a shared machine they depend on it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from voicemaster.host.lines import load as load_lines
from voicemaster_lab.harness.player import LineMatcher, Repertoire, Reply, Spoken, real_clips, reply_to
from voicemaster_lab.harness.pulse import INSTALL_HINT, Pulse, missing_tools, start_pulse
from voicemaster_lab.timing import live_figures
from voicemaster_lab.timing.live_figures import Fed

GAP_SECONDS = 0.4
"""How long after the quizmaster's line ends the player begins to speak: people leave 0.2-0.5 s between turns."""
IDLE_SECONDS = 180.0
"""A game whose log has not grown this long has stopped (a loaded machine is slow, not this slow)."""
TAIL_SECONDS = 2.0
"""How long the last reply is recorded after the game logged its decision."""
GAMES_PER_LANGUAGE = 3
"""A game lost on a misheard answer is followed by another, up to this many, until the turns are played."""
ENGINE = "whisper"


class LiveUnavailable(RuntimeError):
    """What the bench needs is missing; the message says what to install."""


def run(languages: Sequence[str], utterances: int, *, seed: int = 1, config: Path | None = None) -> dict[str, Any]:
    missing = missing_tools()
    if missing:
        raise LiveUnavailable(f"PulseAudio is not installed ({', '.join(missing)} missing): {INSTALL_HINT}")
    started, load_before = time.monotonic(), _load()
    clips, real_missing = real_clips(languages)
    folder = Path(tempfile.mkdtemp(prefix="vm-live-"))  # short: the daemon's socket path must fit in 108 bytes
    pulse = start_pulse(folder / "pulse", bus=True)
    turns: list[live_figures.Turn] = []
    ahead: list[dict[str, Any]] = []
    cues = 0
    not_measured: dict[str, str] = {}
    games = 0
    try:
        for language in languages:
            repertoire = Repertoire(language, clips)
            for game in range(GAMES_PER_LANGUAGE):
                own = [turn for turn in turns if turn.fed.language == language]
                if len(own) >= utterances:
                    break
                wanted = utterances - len(own)
                played = _game(pulse, repertoire, language, wanted, seed + game, folder / f"{language}{game}", config)
                turns += played.turns
                ahead += played.read_ahead
                cues += played.cues
                games += 1
                if played.stopped:
                    not_measured[language] = played.stopped
                    break
            if repertoire.missing:
                not_measured[f"{language} voices"] = "; ".join(sorted(set(repertoire.missing)))
    finally:
        pulse.stop()
        shutil.rmtree(folder, ignore_errors=True)
    if real_missing:
        not_measured["real speech"] = real_missing
    measured = live_figures.summary(turns, games)
    return {
        "benchmark": "live",
        "languages": list(languages),
        "engine": ENGINE,
        "games": games,
        "load_before": load_before,
        "load_after": _load(),
        "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "default"),
        "measured": measured,
        **{kind: _short(measured[kind]) for kind in live_figures.KINDS},
        "asked_again_share": measured["asked_again_share"],
        "heard_cue": {
            **{name: measured["heard_cue"][name] for name in ("turns", "p50_ms", "p95_ms", "max_ms")},
            "played": cues,
        },
        "speculative": live_figures.speculative(ahead),
        "turns": [_turn_row(turn) for turn in turns],
        "not_measured": not_measured,
        "seconds": round(time.monotonic() - started, 1),
    }


def report(figures: dict[str, Any]) -> str:
    return live_figures.report(figures)


@dataclass
class Played:
    turns: list[live_figures.Turn]
    stopped: str = ""
    """Why the game stopped before its turns were played, if it did."""
    read_ahead: list[dict[str, Any]] = field(default_factory=list)
    """The game's log of reading ahead, one entry a listening that read ahead."""
    cues: int = 0
    """Heard cues the game's log says it played."""


@dataclass
class _Follower:
    """The player's side of one game: the log read as it grows, the replies fed."""

    pulse: Pulse
    repertoire: Repertoire
    language: str
    game: subprocess.Popen[bytes]
    log: Path
    recording_started: float
    wanted: int
    matcher: LineMatcher
    fed: list[Fed] = field(default_factory=list)
    said: list[str] = field(default_factory=list)
    speaking_until: float = 0.0
    correct: str = "A"
    level: int = 1
    jokers_used: set[str] = field(default_factory=set)
    pending: tuple[Reply, Spoken, float, float, float | None] | None = None
    """The reply fed and not yet decided on: what, said how, where it began, its span, the CPU time at its end."""
    over: bool = False
    seen: int = 0
    read_ahead: list[dict[str, Any]] = field(default_factory=list)
    cues: int = 0

    def follow(self) -> str:
        """Plays until `wanted` utterances are decided on; returns why it stopped early, or ""."""
        grown = time.monotonic()
        while len(self.fed) < self.wanted and not self.over:
            if self.game.poll() is not None:
                return f"the game ended with exit status {self.game.returncode} (see its log)"
            lines = self.log.read_text(encoding="utf-8").splitlines()
            fresh, self.seen = lines[self.seen :], len(lines)
            for line in fresh:
                self._act(json.loads(line))
            if fresh:
                grown = time.monotonic()
            elif time.monotonic() - grown > IDLE_SECONDS:
                return f"the game made no step in {IDLE_SECONDS:g} s"
            time.sleep(0.02)
        time.sleep(TAIL_SECONDS)
        return ""

    def _act(self, event: dict[str, Any]) -> None:
        match event["event"]:
            case "say":
                self.said.append(str(event["text"]))
                self.speaking_until = float(event["end"])
            case "question":
                self.correct, self.level = str(event["correct"]), int(event["level"])
            case "joker":
                self.jokers_used.add(str(event["joker"]))
            case "game_over":
                self.over = True
            case "read_ahead":
                self.read_ahead.append(event)
            case "heard_cue":
                self.cues += 1
            case "heard" | "silence" if self.pending is not None:
                reply, spoken, began, span, cpu = self.pending
                heard = (str(event["intent"]), event["value"]) if event["event"] == "heard" else None
                used = None if cpu is None else _cpu_seconds(self.game.pid)
                self.fed.append(
                    Fed(self.language, reply.kind, spoken.source, spoken.text, reply.meant, began, span, heard,
                        None if used is None or cpu is None else used - cpu, reply.alike)
                )  # fmt: skip
                self.pending = None
            case "listen":
                self._answer(event)

    def _answer(self, event: dict[str, Any]) -> None:
        said, self.said = (self.said[-1] if self.said else ""), []
        key = self.matcher.key(said)
        reply = reply_to(key, str(event["context"]), self.language, said=said, correct=self.correct,
                         level=self.level, jokers_used=frozenset(self.jokers_used))  # fmt: skip
        if reply is None:
            return
        spoken = self.repertoire.next(reply)
        time.sleep(max(0.0, self.speaking_until - float(event["t"])) + GAP_SECONDS)
        began = time.monotonic() - self.recording_started
        self.pulse.feed_microphone(spoken.audio).wait()
        span = live_figures.audible_span(np.frombuffer(spoken.audio.samples, dtype="<i2"))
        self.pending = (reply, spoken, began, span, _cpu_seconds(self.game.pid))


def _game(
    pulse: Pulse, repertoire: Repertoire, language: str, wanted: int, seed: int, folder: Path, config: Path | None
) -> Played:
    folder.mkdir(parents=True)
    log = folder / "game.jsonl"
    log.touch()
    if config is None:  # the shipped settings, not the user's config.toml
        config = folder / "config.toml"
        config.write_text("", encoding="utf-8")
    command = [sys.executable, "-m", "voicemaster", "--config", str(config), "play", "--lang", language]
    command += ["--variant", "classic", "--engine", ENGINE, "--seed", str(seed), "--log", str(log)]
    env = {**pulse.env, "XDG_DATA_HOME": str(folder / "data")}
    repertoire.prepare()  # rendered before the game, so that rendering does not load the machine while it decides
    with pulse.record_speaker() as recording, (folder / "stderr.txt").open("wb") as errors:
        game = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=errors)
        follower = _Follower(pulse, repertoire, language, game, log, recording.started, wanted,
                             LineMatcher.of(load_lines(language)))  # fmt: skip
        try:
            stopped = follower.follow()
        finally:
            if game.poll() is None:
                game.terminate()
                try:
                    game.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    game.kill()
                    game.wait()
    if stopped:
        shown = (folder / "stderr.txt").read_text(errors="replace").strip().splitlines()
        stopped += f": {shown[-1]}" if shown else ""
    stereo = np.frombuffer(recording.audio.samples, dtype="<i2").reshape(-1, 2)
    return Played(live_figures.turns(follower.fed, stereo), stopped, follower.read_ahead, follower.cues)


def _cpu_seconds(pid: int) -> float | None:
    """User and system CPU time of a process, every thread, from /proc (None where there is no /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def _short(row: dict[str, Any]) -> dict[str, Any]:
    return {name: row[name] for name in ("turns", "p50_ms", "p95_ms", "max_ms", "asked_again", "wrong")}


def _turn_row(turn: live_figures.Turn) -> dict[str, Any]:
    fed = turn.fed
    latency = turn.latency
    return {
        "language": fed.language,
        "kind": fed.kind,
        "source": fed.source,
        "text": fed.text,
        "meant": list(fed.meant),
        "heard": None if fed.heard is None else list(fed.heard),
        "latency_ms": None if latency is None else round(latency * 1000),
        "cpu_ms": None if fed.cpu_seconds is None else round(fed.cpu_seconds * 1000),
    }
