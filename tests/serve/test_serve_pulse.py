"""`voicemaster serve` in real time on the private PulseAudio bus: a player says a start phrase into the virtual
microphone, hears it said back, says yes, and the game reads its first question; a start nobody confirms starts
nothing; a kill during the game and a restart (what systemd does) offer the game again, and a yes goes on with it.

The player's voice is SVOX Pico's (the quizmaster speaks eSpeak-NG, brisk): a follower of the log says each line
into the microphone when the quizmaster listens for it, as in `tests/speech/devices/test_pulse_game.py`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.speech.conftest import Pulse
from voicemaster.config.voice import Voice
from voicemaster.speech.audio import Audio
from voicemaster.speech.signal import resample
from voicemaster.speech.voice import pico

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]
IDLE_SECONDS = 300
"""A run whose log has not grown for this long has stopped making progress, however loaded the machine."""
BRISK = 280
MOST_STARTS = 3
"""A start misheard is said again after the quizmaster speaks, at most so often."""

Event = dict[str, object]


def _said(text: str, language: str = "de") -> Audio:
    return resample(pico.Pico().speak(text, Voice(pico.DEFAULT_VOICE[language], engine="pico")))


class Player:
    """Answers what the quizmaster listens for: `start` while it waits (once, or each time with `again`), and
    `replies[line]` when it listens after saying that line (the phrase file's key); silence otherwise."""

    def __init__(self, pulse: Pulse, start: str, replies: dict[str, str], *, language: str = "de") -> None:
        self.pulse, self.start, self.replies, self.language = pulse, start, replies, language
        self.last_line, self.speaking_until, self.starts_said = "", 0.0, 0

    def act(self, event: Event) -> None:
        if event["event"] == "say":
            self.last_line, self.speaking_until = str(event["line"]), float(str(event["end"]))
            return
        if event["event"] != "listen":
            return
        if event["context"] == "start":  # once after each time the quizmaster spoke: misheard, said again
            said = self.start if self.last_line and self.starts_said < MOST_STARTS else ""
            self.starts_said += bool(said)
        else:
            said = self.replies.get(self.last_line, "")
        self.last_line = ""
        if said:
            time.sleep(max(0.0, self.speaking_until - float(str(event["t"]))) + 1.0)
            self.pulse.feed_microphone(_said(said, self.language)).wait()


def _follow(log: Path, act: Callable[[Event], object], stop: threading.Event) -> None:
    def run() -> None:
        seen = 0
        while not stop.is_set():
            lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
            for line in lines[seen:]:
                act(json.loads(line))
            seen = len(lines)
            time.sleep(0.05)

    threading.Thread(target=run, daemon=True).start()


def _events(log: Path) -> list[Event]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


def _wait_for(log: Path, process: subprocess.Popen[bytes], found: Callable[[list[Event]], bool]) -> list[Event]:
    """The log's events once `found` holds; fails when the process ends first or the log stops growing."""
    size, since = -1, time.monotonic()
    while True:
        events = _events(log)
        if found(events):
            return events
        assert process.poll() is None, f"serve ended ({process.returncode}) first: {events[-5:]}"
        grown = log.stat().st_size if log.exists() else 0
        if grown != size:
            size, since = grown, time.monotonic()
        assert time.monotonic() - since < IDLE_SECONDS, f"no step in {IDLE_SECONDS} s: {events[-5:]}"
        time.sleep(0.2)


@pytest.fixture
def voicemaster_serve(
    pulse: Pulse, tmp_path: Path, children: list[subprocess.Popen[bytes]]
) -> Callable[[Path], subprocess.Popen[bytes]]:
    config = tmp_path / "serve.toml"
    config.write_text(
        f'[speech.de]\nengine = "espeak"\nname = "de"\nrate = {BRISK}\n'
        '[serve]\nplayers = ["Anna"]\nvariant = "classic"\n',
        encoding="utf-8",
    )
    env = {**pulse.env, "XDG_DATA_HOME": str(tmp_path / "data")}

    def start(log: Path) -> subprocess.Popen[bytes]:
        command = [sys.executable, "-m", "voicemaster", "--config", str(config), "serve", "--lang", "de"]
        process = subprocess.Popen(
            [*command, "--engine", "whisper", "--log", str(log)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        children.append(process)
        return process

    return start


def _heard_starts(events: list[Event]) -> list[tuple[object, object, object]]:
    return [(e["intent"], e["value"], e["language"]) for e in events if e["event"] == "heard" and "language" in e]


def test_a_start_phrase_said_back_and_confirmed_starts_a_game(
    pulse: Pulse, tmp_path: Path, voicemaster_serve: Callable[[Path], subprocess.Popen[bytes]]
) -> None:
    log, stop = tmp_path / "serve.jsonl", threading.Event()
    process = voicemaster_serve(log)
    _follow(log, Player(pulse, "Quiz starten", {"serve_start_millionaire": "ja"}).act, stop)
    try:
        events = _wait_for(log, process, lambda events: any(e["event"] == "question" for e in events))
    finally:
        stop.set()
    lines = [e["line"] for e in events if e["event"] == "say"]
    assert lines[:2] == ["serve_ready", "serve_ready_also"] or lines[0] == "serve_ready"
    assert _heard_starts(events)[:1] == [("start", "millionaire", "de")]
    # Said back, then the game began (the log is read once a question is under way: later lines may follow).
    assert "serve_start_millionaire" in lines and "question_intro" in lines[lines.index("serve_start_millionaire") :]
    assert [e["level"] for e in events if e["event"] == "question"] == [1]
    assert any(e["event"] == "earcon" and e["earcon"] == "ready" for e in events)


def test_a_start_nobody_confirms_starts_nothing(
    pulse: Pulse, tmp_path: Path, voicemaster_serve: Callable[[Path], subprocess.Popen[bytes]]
) -> None:
    """A start heard (a TV saying it, a guest quoting the show) and then silence: asked back, not started, and it
    listens for a start again."""
    log, stop = tmp_path / "serve.jsonl", threading.Event()
    process = voicemaster_serve(log)
    _follow(log, Player(pulse, "Wer wird Millionär", {}).act, stop)

    def waiting_again(events: list[Event]) -> bool:
        said = [e.get("line") for e in events if e["event"] == "say"]
        return "serve_not_started" in said and events[-1]["event"] == "listen"

    try:
        events = _wait_for(log, process, waiting_again)
    finally:
        stop.set()
    assert _heard_starts(events)[:1] == [("start", "millionaire", "de")]
    assert not [e for e in events if e["event"] in ("question", "game", "stored")]
    assert events[-1]["context"] == "start"


def test_a_game_killed_is_offered_again_when_serve_restarts_and_goes_on(
    pulse: Pulse, tmp_path: Path, voicemaster_serve: Callable[[Path], subprocess.Popen[bytes]]
) -> None:
    first_log, stop = tmp_path / "first.jsonl", threading.Event()
    first = voicemaster_serve(first_log)
    _follow(first_log, Player(pulse, "Quiz starten", {"serve_start_millionaire": "ja"}).act, stop)
    try:
        before = _wait_for(first_log, first, lambda events: any(e["event"] == "question" for e in events))
    finally:
        stop.set()
    os.kill(first.pid, signal.SIGKILL)  # the power goes, or the process crashes: systemd starts it again
    first.wait()
    options = next(e["options"] for e in before if e["event"] == "question")

    second_log, stop = tmp_path / "second.jsonl", threading.Event()
    second = voicemaster_serve(second_log)
    _follow(second_log, Player(pulse, "", {"resume_offer": "ja"}).act, stop)

    def asked_again(events: list[Event]) -> bool:
        return any(e["event"] == "say" and e["line"] == "your_answer" for e in events)

    try:
        after = _wait_for(second_log, second, asked_again)
    finally:
        stop.set()
    lines = [e["line"] for e in after if e["event"] == "say"]
    assert lines[0] == "resume_offer" and "resumed" in lines  # offered before anything else, and taken
    assert "serve_ready" not in lines[: lines.index("resumed")]
    # The same question, where the game was: its options read again, and no new question drawn.
    read = [e["text"] for e in after if e["event"] == "say" and e["line"] == "option"]
    assert [str(text).split(": ", 1)[1].rstrip(".") for text in read] == options
    assert not [e for e in after if e["event"] == "question"]
