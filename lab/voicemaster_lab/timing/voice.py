"""`voicemaster bench voice`: how fast each speech engine renders, and how long a player waits for the reply.

- Real-time factor per engine and language: seconds of rendering per second of speech, over lines of the phrase
  file, from a cold cache.
- Time to first sample of a reply: a game of the real quizmaster and runner, played in real time (a line lasts as
  long as its audio; a scripted player hears the question out, thinks, then answers), once with render-ahead and
  once without. The figure is the time from the player's decision (what the recognizer would hand over) to the first
  sample of the quizmaster's reply. Both games start from an empty cache, as a first game on a new machine does.
- Cache hit ratio of the game with render-ahead: the share of lines that were ready (on disk or rendered ahead) when
  they were to be said.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import ContextName, Heard, Intent
from voicemaster.dialogue.turns import Listen, Observation, Say, Silence
from voicemaster.host import lines as host_lines
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.saved import Session
from voicemaster.play.ear import Answers
from voicemaster.play.runner import Runner, Transcript, WallClock, Watcher, drive
from voicemaster.questions.packs import load, pack_files
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, new_game, variant
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import Playback, Words
from voicemaster.speech.voice import kokoro, pico, pyttsx3_engine
from voicemaster.speech.voice.speakers import Engines, Speakers, engine_for
from voicemaster.speech.voice.synthesis import SpeechUnavailable

RTF_LINES = 8
"""Lines of the phrase file rendered for the real-time factor: the fixed lines, the longest first."""
THINK_SECONDS = 2.0
"""How long the scripted player takes to answer once the question is read: a quick player."""


def engines_for(language: str) -> list[str]:
    """The engines installed for this language."""
    engines = ["kokoro"] if kokoro.speaks(language) else []
    if pico.speaks(language):
        engines.append("pico")
    if shutil.which("espeak-ng"):
        engines.append("espeak")
    try:
        pyttsx3_engine.shared()
        engines.append("pyttsx3")
    except SpeechUnavailable:
        pass
    return engines


def run(
    question_roots: Sequence[Path], languages: Sequence[str], questions: int, think: float = THINK_SECONDS
) -> dict[str, Any]:
    bank = Bank(tuple(load([pack for root in question_roots for pack in pack_files(root)]).entries))
    figures: dict[str, Any] = {"questions": questions, "think_seconds": think, "languages": {}}
    for language in languages:
        per_language: dict[str, Any] = {"engines": {}}
        for engine in engines_for(language):
            per_language["engines"][engine] = real_time_factor(language, Voice(engine=engine))
        per_language["game_engine"] = engine_for(Voice(), language)
        for ahead in (True, False):
            per_language["ahead" if ahead else "on_demand"] = reply_latency(bank, language, questions, think, ahead)
        figures["languages"][language] = per_language
    return figures


@contextlib.contextmanager
def _cold_cache() -> Iterator[None]:
    """An empty cache of rendered lines (kept apart from the user's), so that every line is rendered here."""
    before = os.environ.get("XDG_CACHE_HOME")
    with tempfile.TemporaryDirectory(prefix="voicemaster-bench-voice-") as folder:
        os.environ["XDG_CACHE_HOME"] = folder
        try:
            yield
        finally:
            if before is None:
                del os.environ["XDG_CACHE_HOME"]
            else:
                os.environ["XDG_CACHE_HOME"] = before


def real_time_factor(language: str, voice: Voice) -> dict[str, Any]:
    *texts, warm_up = sorted(host_lines.load(language).fixed(), key=len, reverse=True)[: RTF_LINES + 1]
    with _cold_cache():
        speakers = Speakers({language: voice})
        speakers.render(warm_up, language)  # loads the engine, as a game does once; a line not measured after
        renders, audio_seconds = [], 0.0
        for text in texts:
            started = time.monotonic()
            audio = speakers.render(text, language)
            renders.append(time.monotonic() - started)
            audio_seconds += audio.seconds
    return {
        "lines": len(texts),
        "rtf": round(sum(renders) / audio_seconds, 3),
        "render_ms_p50": round(statistics.median(renders) * 1000),
        "render_ms_max": round(max(renders) * 1000),
        "audio_seconds": round(audio_seconds, 1),
    }


@dataclass
class _RealTimePlayback:
    audio: Audio
    words: tuple[Words, ...] = ()
    started: float = field(default_factory=time.monotonic)
    _stopped: threading.Event = field(default_factory=threading.Event)

    def position(self) -> float:
        return min(time.monotonic() - self.started, self.audio.seconds)

    def done(self) -> bool:
        return self._stopped.is_set() or self.position() >= self.audio.seconds

    def wait(self, timeout: float | None = None) -> bool:
        left = self.audio.seconds - self.position()
        if timeout is not None and timeout < left:
            self._stopped.wait(timeout)
            return self.done()
        self._stopped.wait(max(0.0, left))
        return True

    def stop(self) -> None:
        self._stopped.set()


@dataclass
class _RealTimeSpeaker:
    """A speaker that takes as long to play a sound as it lasts, and notes when each sound starts."""

    starts: list[float] = field(default_factory=list)

    def play(self, audio: Audio, words: tuple[Words, ...] = ()) -> Playback:
        self.starts.append(time.monotonic())
        return _RealTimePlayback(audio, words)


def reply_latency(
    bank: Bank, language: str, questions: int, think: float, ahead: bool, watch: Watcher | None = None
) -> dict[str, Any]:
    """One game of `questions` questions in real time: the player is right until the last question, then wrong.
    `watch`: who sees every step (the screen, `bench screen`)."""
    settings = GameSettings(variant("classic"), ("Anna",), rounds=1, seed=7)
    host = Quizmaster(Session(new_game(settings)), bank, language)
    speaker = _RealTimeSpeaker()
    decisions: list[float] = []
    after_yes_at_once = False

    def hear(listen: Listen, _said: Say | None, speaking: Playback | None) -> Observation:
        nonlocal after_yes_at_once
        if speaking is not None:
            speaking.wait()
        if after_yes_at_once:  # the window after a yes said at once: the player, sure, stays silent
            after_yes_at_once = False
            return Silence()
        after_yes_at_once = listen.context.yes_at_once
        time.sleep(think)
        decisions.append(time.monotonic())
        current = host.game.round
        seat = current.seat(listen.player or "") if current is not None else None
        if listen.context.name is ContextName.ANSWER and current is not None and current.question and seat:
            right = current.question.correct
            wrong = next(letter for letter in seat.available if letter != right)
            letter = right if current.level < questions else wrong
            return Heard(Intent.ANSWER, letter.value, letter.value, 0.9)
        return Heard(Intent.YES, None, "yes", 0.9)

    with _cold_cache(), open(os.devnull, "w", encoding="utf-8") as log:
        speakers = Speakers({language: Voice()}, Engines())
        runner = Runner(
            host_lines.load(language),
            speakers,
            speaker,
            WallClock(),
            Answers(hear),
            Transcript(log, watch),
            render_ahead=ahead,
        )
        started = time.monotonic()
        drive(host.run(), runner.perform)
        runner.finish_speaking()
        game_seconds = time.monotonic() - started
    waits = sorted(
        next(start for start in speaker.starts if start >= decided) - decided
        for decided in decisions
        if any(start >= decided for start in speaker.starts)
    )
    served = speakers.engines.lines.served
    return {
        "replies": len(waits),
        "first_sample_ms_p50": round(statistics.median(waits) * 1000),
        "first_sample_ms_p95": round(_percentile(waits, 0.95) * 1000),
        "first_sample_ms_max": round(waits[-1] * 1000),
        "lines": sum(served.values()),
        "cache_hit_ratio": round(served["ready"] / max(1, sum(served.values())), 3),
        "game_seconds": round(game_seconds, 1),
    }


def _percentile(values: Sequence[float], share: float) -> float:
    return values[min(len(values) - 1, round(share * (len(values) - 1)))]


def report(figures: dict[str, Any]) -> str:
    out = [
        f"Speech output: {figures['questions']} questions a game, the player answering {figures['think_seconds']} s "
        "after the question is read; each game from an empty cache."
    ]
    for language, per in figures["languages"].items():
        for engine, rtf in per["engines"].items():
            out.append(
                f"{language} {engine:7} real-time factor {rtf['rtf']:.2f} over {rtf['lines']} lines "
                f"({rtf['audio_seconds']} s of speech), a line p50 {rtf['render_ms_p50']} ms, "
                f"max {rtf['render_ms_max']} ms"
            )
        for mode, label in (("ahead", "render-ahead"), ("on_demand", "on demand  ")):
            game = per[mode]
            out.append(
                f"{language} {per['game_engine']:7} {label} first sample of a reply p50 {game['first_sample_ms_p50']} "
                f"ms, p95 {game['first_sample_ms_p95']} ms, max {game['first_sample_ms_max']} ms over "
                f"{game['replies']} replies; "
                + (f"cache hits {game['cache_hit_ratio']:.0%} of {game['lines']} lines; " if game["lines"] else "")
                + f"game {game['game_seconds']} s"
            )
    return "\n".join(out)
