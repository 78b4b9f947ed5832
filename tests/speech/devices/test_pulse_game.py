"""Whole games through sounddevice in real time: `voicemaster play` on the virtual microphone and speaker.

A player thread follows the game's log; whenever the quizmaster starts listening, it answers what the quizmaster
just asked, into the virtual microphone, as a person would: asked again after being misheard, it says the same again.
The player answers question 1, then walks away before question 2: a complete game in about a minute. Once more with
the process killed after question 1 and started again, as after a power cut.
"""

from __future__ import annotations

import _thread
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.speech.conftest import Pulse
from voicemaster.config.settings import load_settings
from voicemaster.host.lines import load as load_lines
from voicemaster.paths import DEFAULT_CONFIG, QUESTIONS_DIR
from voicemaster.play.live import play
from voicemaster.questions.packs import load, pack_files
from voicemaster.questions.selection import Bank
from voicemaster.rules.letters import Letter
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.engines import open_recognizer
from voicemaster.speech.signal import resample
from voicemaster.speech.voice.synthesis import Espeak

# Played in real time, a minute or more each: `make test-slow`, which CI runs after the default suite. How long a
# game takes depends on the machine (recognition and speech on a loaded one take several times longer), so no test
# here bounds the time a game takes: a game that stops making progress (no new step in its log for IDLE_SECONDS)
# fails, and the timeout only catches a hang of the test itself.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]
IDLE_SECONDS = 300
"""A game whose log has not grown for this long has stopped making progress, however loaded the machine."""

Event = dict[str, object]
MOST_LISTENS = 16
"""Twice what a game needs: a game that keeps asking has misheard again and again, and is stopped."""
FINAL_ANSWER = ("endgültige Entscheidung", "das einloggen?", "Endgültig?")
REPLIES = (
    ("richtig verstanden", "ja"),  # the name read back right
    ("noch jemand", ""),  # "anyone else?": silence is nobody
    ("unterbrochen", "ja"),  # continue the interrupted game
    # "Final answer?" in each of its wordings (say.toml's final_answer), when it reads back B (`reply`).
    *((cue, "ja") for cue in FINAL_ANSWER),
    # "Play on for 100 €?" in each wording ("nein" alone is heard as "Ein.").
    ("weiter um", "Ich höre auf"),
    ("Spielst du um", "Ich höre auf"),
    ("Richtig?", "ja"),  # "you stop and take 50 € home?"
    ("B, ", "ja"),  # the options read one by one, after "Antwort B" was not understood: yes at B, silence elsewhere
)
ANSWERS = {"name": "Ich heiße Markus.", "answer": "Antwort B"}


NOT_MY_NAME = "Nee, das stimmt nicht."
"""Said to a name read back wrong ("If Heiser Martus, habe ich das richtig verstanden?")."""
NOT_MY_ANSWER = NOT_MY_NAME
"""Said to an answer read back that was not B ("Markus, Antwort A, Zwiebeln. Ist das deine endgültige
Entscheidung?"): eSpeak's "Antwort B", clipped as it is said louder over the quizmaster, was once read "A" on a
loaded machine."""


def reply(said: list[str], context: object) -> str:
    """What the player says when the quizmaster listens, after it said `said` since it last listened: an answer to
    its last line (the question read before it may hold any words)."""
    asked = said[-1] if said else ""
    if "richtig verstanden" in asked and not asked.startswith("Markus,"):  # "Martin Markus" is not my name either
        return NOT_MY_NAME
    if any(cue in asked for cue in FINAL_ANSWER) and not re.search(r"\bB, ", asked):
        return NOT_MY_ANSWER  # an answer read back that I did not give is refused, as a person would
    return next((answer for cue, answer in REPLIES if cue in asked), ANSWERS.get(str(context), ""))


BRISK = 280
"""The quizmaster's words a minute here (160 by default): the games run in real time, and what it says is not what
these tests listen for."""

SPEAKING_UP = 2.5
"""How much louder than the quizmaster a player talks over it: enough to rise above the echo gate's margin."""


class Player:
    """Follows the game's log and answers into the virtual microphone whenever the quizmaster listens: once the
    quizmaster has finished speaking, or at once and louder in the contexts in `interrupts` (barge-in)."""

    def __init__(self, pulse: Pulse, espeak: Espeak, interrupts: tuple[str, ...] = ()) -> None:
        self.pulse, self.espeak, self.interrupts = pulse, espeak, interrupts
        self.said: list[str] = []
        self.speaking_until = 0.0
        self.listens: list[Event] = []

    def act(self, event: Event) -> bool:
        """False once the game has listened too often."""
        if event["event"] == "say":
            self.said.append(str(event["text"]))
            self.speaking_until = float(str(event["end"]))
        if event["event"] != "listen":
            return True
        self.listens.append(event)
        if len(self.listens) > MOST_LISTENS:
            return False
        answer, self.said = reply(self.said, event["context"]), []
        if not answer:
            return True
        speech = resample(self.espeak.render(answer, "de"))
        if event["context"] in self.interrupts:
            time.sleep(0.2)
            speech = louder(speech, SPEAKING_UP)
        else:  # the quizmaster may still be finishing its line: listening starts as it speaks
            time.sleep(max(0.0, self.speaking_until - float(str(event["t"]))) + 0.3)
        self.pulse.feed_microphone(speech).wait()
        return True


def louder(audio: Audio, factor: float) -> Audio:
    samples = np.frombuffer(audio.samples, dtype="<i2").astype(np.float64) * factor
    return Audio(np.clip(samples, -32768, 32767).astype("<i2").tobytes(), audio.rate)


def _seed_with_answer_b(bank: Bank) -> int:
    """ "Antwort B" is what eSpeak says most clearly to Whisper; pick a game whose first answer is B."""
    return next(
        seed for seed in range(100) if bank.next_question("de", 1, seed=seed, asked=(), heard={}).correct is Letter.B
    )


def test_a_whole_game_is_played_through_the_virtual_devices(pulse: Pulse, espeak: Espeak, tmp_path: Path) -> None:
    entries = tuple(load(pack_files(QUESTIONS_DIR)).entries)
    seed = _seed_with_answer_b(Bank(entries))
    log = tmp_path / "game.jsonl"
    log.touch()
    done = threading.Event()
    markus = Player(pulse, espeak, interrupts=("answer",))

    def act(event: Event) -> bool:
        if markus.act(event):
            return True
        _thread.interrupt_main()
        return False

    _follow(log, act, done)
    try:
        config = load_settings([DEFAULT_CONFIG])
        play(
            replace(
                config,
                game=replace(config.game, variant="classic", rounds=1),
                speech={**config.speech, "de": replace(config.speech["de"], engine="espeak", name="de", rate=BRISK)},
            ),
            players=(),
            seed=seed,
            language="de",
            entries=entries,
            recognizer=open_recognizer("whisper", "de"),
            store_path=tmp_path / "games.db",
            log=log,
        )
    except KeyboardInterrupt:
        pytest.fail(f"the game kept listening: {markus.listens}")
    finally:
        done.set()
    events = _events(log)
    heard = [(event["context"], event["intent"], event["value"]) for event in events if event["event"] == "heard"]
    # Misheard replies are asked again, and a name read back wrong gets a no; then what was understood is what
    # Markus said, in this order.
    understood = [meaning for meaning in heard if meaning[1] != "unknown"]
    named = max(index for index, meaning in enumerate(understood) if meaning[0] == "name")
    assert all(meaning == ("confirm", "no", None) for meaning in understood[1:named:2]), heard
    assert understood[named : named + 2] == [("name", "name", "Markus"), ("confirm", "yes", None)], heard
    # The answer: "Antwort B" heard, or, when it was not understood three times, a yes as the options are read one
    # by one (said over the quizmaster's prompt, eSpeak's "Antwort B" can come out as "Ante Motte"). An answer read
    # back wrong is refused, and nothing is locked on it.
    answered, rest = understood[named + 2 : -3], understood[-3:]
    refused, taken = answered[:-1], answered[-1:]
    assert len(refused) % 2 == 0 and all(m[0] == "answer" and m[2] != "B" for m in refused[0::2]), heard
    assert all(meaning == ("confirm", "no", None) for meaning in refused[1::2]), heard
    assert taken in ([("answer", "answer", "B")], [("confirm", "yes", None)]), heard  # all heard, when not
    assert rest == [("confirm", "yes", None), ("confirm", "walk_away", None), ("confirm", "yes", None)], heard
    assert [event for event in events if event["event"] == "locked"] == [
        {"t": pytest.approx(0, abs=600), "event": "locked", "player": "Markus", "option": "B"}
    ]
    assert [event["amount"] for event in events if event["event"] == "walk_away"] == [50]
    assert [event["totals"] for event in events if event["event"] == "game_over"] == [{"Markus": 50}]
    said = [event["text"] for event in events if event["event"] == "say"]
    assert said[-1] == "Danke fürs Spielen. Bis zum nächsten Mal!"
    # Markus answered over "Markus, deine Antwort?": the quizmaster stopped talking and heard him.
    assert [event["player"] for event in events if event["event"] == "barge_in"][:1] == ["Markus"]


def _follow(log: Path, act: Callable[[Event], bool], stop: threading.Event) -> threading.Thread:
    """Calls `act` on each new event of the log until it returns False or `stop` is set."""

    def run() -> None:
        seen = 0
        while not stop.is_set():
            lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
            for line in lines[seen:]:
                if not act(json.loads(line)):
                    return
            seen = len(lines)
            time.sleep(0.05)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


class _Progress:
    """Whether a game's log is still growing: it may grow slowly on a loaded machine, but not stop."""

    def __init__(self, log: Path) -> None:
        self.log, self.size, self.since = log, -1, time.monotonic()

    def going(self) -> bool:
        size = self.log.stat().st_size if self.log.exists() else 0
        if size != self.size:
            self.size, self.since = size, time.monotonic()
        return time.monotonic() - self.since < IDLE_SECONDS


def _wait_while_progressing(process: subprocess.Popen[bytes], log: Path) -> int:
    """The process's exit code, waited for as long as its log keeps growing."""
    progress = _Progress(log)
    while process.poll() is None:
        assert progress.going(), f"no step of the game in {IDLE_SECONDS} s"
        time.sleep(0.2)
    return process.returncode


def _events(log: Path) -> list[Event]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def voicemaster_play(
    pulse: Pulse, tmp_path: Path, children: list[subprocess.Popen[bytes]]
) -> Callable[[int, Path], subprocess.Popen[bytes]]:
    brisk = tmp_path / "brisk.toml"
    brisk.write_text(f'[speech.de]\nengine = "espeak"\nname = "de"\nrate = {BRISK}\n', encoding="utf-8")
    command = [sys.executable, "-m", "voicemaster", "--config", str(brisk), "play"]
    command += ["--players", "Anna", "--variant", "classic"]
    env = {**pulse.env, "XDG_DATA_HOME": str(tmp_path / "data")}

    def start(seed: int, log: Path) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [*command, "--lang", "de", "--engine", "whisper", "--seed", str(seed), "--log", str(log)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        children.append(process)
        return process

    return start


def test_a_game_killed_mid_way_is_resumed_where_it_was(
    pulse: Pulse, espeak: Espeak, tmp_path: Path, voicemaster_play: Callable[[int, Path], subprocess.Popen[bytes]]
) -> None:
    entries = tuple(load(pack_files(QUESTIONS_DIR)).entries)
    seed = _seed_with_answer_b(Bank(entries))
    stop = threading.Event()
    first_log = tmp_path / "first.jsonl"
    first = voicemaster_play(seed, first_log)
    anna = Player(pulse, espeak)

    def answer_then_power_cut(event: Event) -> bool:
        if event["event"] == "result":  # question 1 answered and revealed: the power goes
            os.kill(first.pid, signal.SIGKILL)
            return False
        return anna.act(event)

    _follow(first_log, answer_then_power_cut, stop)
    assert _wait_while_progressing(first, first_log) == -signal.SIGKILL
    before = _events(first_log)
    assert [e["correct"] for e in before if e["event"] == "result"] == [True]

    second_log = tmp_path / "second.jsonl"
    second = voicemaster_play(seed, second_log)
    # "Continue the interrupted game?" yes; "Play on for 100 €?" I'll stop; "Take 50 € home?" yes.
    _follow(second_log, Player(pulse, espeak).act, stop)
    try:
        assert _wait_while_progressing(second, second_log) == 0
    finally:
        stop.set()
    after = _events(second_log)
    said = [e["text"] for e in after if e["event"] == "say"]
    lines = load_lines("de")
    # The offer (asked again if the yes was not understood at once, as on a loaded machine), then the game goes on.
    offer, resumed = lines.render("resume_offer", {}), lines.render("resumed", {})
    assert resumed in said and set(said[: said.index(resumed)]) == {offer}
    assert [e["event"] for e in after if e["event"] == "question"] == []  # question 1 is not asked again
    assert [e["amount"] for e in after if e["event"] == "walk_away"] == [50]  # the 50 € of question 1 were kept
    assert [e["totals"] for e in after if e["event"] == "game_over"] == [{"Anna": 50}]


def _play_then(tmp_path: Path, daemon: Pulse, unplug: Callable[[], object]) -> tuple[int, str, float, Path]:
    """`play` until it listens, then `unplug`: its exit code, standard error, the seconds it took to end after the
    unplug, and its log."""
    log = tmp_path / "game.jsonl"
    brisk = tmp_path / "brisk.toml"
    brisk.write_text(f'[speech.de]\nengine = "espeak"\nname = "de"\nrate = {BRISK}\n', encoding="utf-8")
    command = [sys.executable, "-m", "voicemaster", "--config", str(brisk), "play", "--players", "Anna"]
    command += ["--variant", "classic", "--lang", "de", "--engine", "whisper", "--seed", "1", "--log", str(log)]
    env = {**daemon.env, "XDG_DATA_HOME": str(tmp_path / "data")}
    game = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        progress = _Progress(log)
        while not (log.exists() and '"event": "listen"' in log.read_text(encoding="utf-8")):
            assert game.poll() is None and progress.going(), "the game never listened"
            time.sleep(0.1)
        # "listen" is logged just before the microphone opens: its stream on the server, then a moment of hearing
        # (the game looks at which microphone it is on as it starts to listen).
        while f'application.process.id = "{game.pid}"' not in daemon.pactl("list", "source-outputs"):
            assert game.poll() is None and progress.going(), "the game never opened the microphone"
            time.sleep(0.1)
        time.sleep(1.5)
        unplug()
        stopped = time.monotonic()
        _, err = game.communicate(timeout=120)  # a hang guard; how soon it ends is in the message
        took = time.monotonic() - stopped
    finally:
        if game.poll() is None:
            game.kill()
            game.wait()
        daemon.stop()
    return game.returncode, err, took, log


def _game_kept(tmp_path: Path) -> bool:
    from voicemaster.store import Store

    with Store(tmp_path / "data" / "voicemaster" / "voicemaster.db") as store:
        return store.unfinished_game() is not None


def test_the_sound_server_gone_mid_game_ends_play_with_a_message_and_the_game_kept(tmp_path: Path) -> None:
    """The microphone (and the speaker with it) vanish while the quizmaster listens: `play` ends within seconds with
    one line, no library noise, and the game is offered at the next start."""
    from tests.speech.conftest import start_pulse

    daemon = start_pulse(tmp_path / "pulse")
    code, err, took, _ = _play_then(tmp_path, daemon, daemon.stop)  # the microphone unplugged, the speaker with it
    assert code == 2, (took, err)
    # Whichever of the two the game was using when the server went says so (on a busy machine it may still speak).
    gone = ("microphone stopped delivering sound", "speaker went away")
    assert err.count("\n") == 1 and any(device in err for device in gone) and "ALSA lib" not in err
    assert "offers it again" in err
    assert _game_kept(tmp_path)


def test_the_microphone_unplugged_while_another_source_remains_ends_play_with_a_message(tmp_path: Path) -> None:
    """The server moves the recording to another source, so listening hears only silence and nothing fails: the
    quizmaster still notices the microphone it started with has gone, says so, and `play` ends with one line, the
    game kept (it used to pause on silence and wait for "weiter" for ever)."""
    from tests.speech.conftest import start_pulse

    daemon = start_pulse(tmp_path / "pulse")
    module = daemon.plug_in_microphone()
    # Unplugged; the speaker's monitor and vmic's remain.
    code, err, took, log = _play_then(tmp_path, daemon, lambda: daemon.pactl("unload-module", module))
    assert code == 2, (took, err)
    assert err.count("\n") == 1 and "microphone 'usbmic' was unplugged" in err and "offers it again" in err
    said = [event["text"] for event in _events(log) if event["event"] == "say"]
    last = said[-1]
    assert isinstance(last, str) and last.startswith("Ich höre euch nicht mehr: Das Mikrofon ist weg.")
    assert _game_kept(tmp_path)
