"""A whole game through sounddevice in real time: `voicemaster play`'s code on the virtual microphone and speaker.

A player thread listens to the game's log; whenever the quizmaster starts listening, it speaks into the virtual
microphone. The player answers question 1, then walks away before question 2: a complete game in about a minute.
"""

from __future__ import annotations

import _thread
import json
import threading
import time
from pathlib import Path

import pytest

from tests.speech.conftest import Pulse
from voicemaster.cli import REPO_ROOT
from voicemaster.host.live import play
from voicemaster.questions.packs import load, pack_files
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, variant
from voicemaster.rules.letters import Letter
from voicemaster.speech.engines import open_recognizer
from voicemaster.speech.signal import resample
from voicemaster.speech.synthesis import DEFAULT_VOICES, Espeak

MOST_LISTENS = 12
"""More than the script needs: a game that keeps asking has misheard, and is stopped."""


def _seed_with_answer_b(bank: Bank) -> int:
    """ "Antwort B" is what eSpeak says most clearly to Whisper; pick a game whose first answer is B."""
    return next(
        seed for seed in range(100) if bank.next_question("de", 1, seed=seed, asked=(), heard={}).correct is Letter.B
    )


def test_a_whole_game_is_played_through_the_virtual_devices(pulse: Pulse, espeak: Espeak, tmp_path: Path) -> None:
    entries = tuple(load(pack_files(REPO_ROOT / "questions")).entries)
    seed = _seed_with_answer_b(Bank(entries))
    log = tmp_path / "game.jsonl"
    log.touch()
    # The answer, "final answer?", "play on for 100 €?" ("nein" alone is heard as "Ein."), "take 50 € home?".
    replies = iter(["Antwort B", "ja", "Ich höre auf", "ja"])
    done = threading.Event()
    listens: list[dict[str, object]] = []

    def player() -> None:
        seen = 0
        while not done.is_set():
            events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
            for event in events[seen:]:
                if event["event"] != "listen":
                    continue
                listens.append(event)
                reply = next(replies, None)
                if reply is None or len(listens) > MOST_LISTENS:
                    _thread.interrupt_main()
                    return
                time.sleep(0.3)
                pulse.feed_microphone(resample(espeak.render(reply, "de"))).wait()
            seen = len(events)
            time.sleep(0.05)

    speaking = threading.Thread(target=player, daemon=True)
    speaking.start()
    try:
        play(
            GameSettings(variant("classic"), ("Anna",), rounds=1, seed=seed),
            language="de",
            entries=entries,
            recognizer=open_recognizer("whisper", "de"),
            voices=dict(DEFAULT_VOICES),
            store_path=tmp_path / "games.db",
            log=log,
        )
    except KeyboardInterrupt:
        pytest.fail(f"the game kept listening: {listens}")
    finally:
        done.set()
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    heard = [(event["context"], event["intent"]) for event in events if event["event"] == "heard"]
    assert heard == [("answer", "answer"), ("confirm", "yes"), ("confirm", "walk_away"), ("confirm", "yes")]
    assert [event for event in events if event["event"] == "locked"] == [
        {"t": pytest.approx(0, abs=600), "event": "locked", "player": "Anna", "option": "B"}
    ]
    assert [event["amount"] for event in events if event["event"] == "walk_away"] == [50]
    assert [event["totals"] for event in events if event["event"] == "game_over"] == [{"Anna": 50}]
    said = [event["text"] for event in events if event["event"] == "say"]
    assert said[-1] == "Danke fürs Spielen. Bis zum nächsten Mal!"
