"""Whole games through the real recognizer: simulated players speak (eSpeak-NG), Whisper hears, the quizmaster hosts.

What a player would notice: the game ends with the right money, and no answer is locked that was not confirmed
with a clear yes right after the quizmaster read it back.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from voicemaster.cli import REPO_ROOT
from voicemaster.host.demo import run_demo
from voicemaster.questions.packs import load, pack_files
from voicemaster.rules import GameSettings, variant
from voicemaster.speech.audio import Audio
from voicemaster.speech.engines import open_recognizer
from voicemaster.speech.synthesis import DEFAULT_VOICES


@pytest.mark.parametrize(("language", "rules"), [("de", "risiko"), ("en", "uk"), ("fr", "qvgdm")])
def test_a_whole_game_by_voice(language: str, rules: str, tmp_path: Path) -> None:
    entries = tuple(load(pack_files(REPO_ROOT / "questions")).entries)
    result = run_demo(
        GameSettings(variant(rules), ("Anna",), rounds=1, seed=7),
        language=language,
        entries=entries,
        recognizer=open_recognizer("whisper", language),
        voices=dict(DEFAULT_VOICES),
        out=tmp_path,
    )
    events = [json.loads(line) for line in result.transcript.read_text(encoding="utf-8").splitlines()]
    names = [event["event"] for event in events]
    assert names.count("game_over") == 1 and names.count("question") >= 1
    # Every lock comes right after a clear yes to "final answer?", heard from that player.
    for index, event in enumerate(events):
        if event["event"] == "locked":
            heard = [e for e in events[:index] if e["event"] == "heard"][-1]
            assert (heard["player"], heard["context"], heard["intent"]) == ("Anna", "confirm", "yes")
    # The money: what the player left with is the game's total.
    left_with = [e["amount"] for e in events if e["event"] in ("payout", "walk_away")]
    assert [e["totals"] for e in events if e["event"] == "game_over"] == [{"Anna": sum(left_with)}]
    assert Audio.read(result.session).seconds == pytest.approx(result.seconds, abs=0.01)
