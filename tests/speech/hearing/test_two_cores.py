"""One decision on two cores: a person's answer decided with its large products split over two threads is the same
decision, to the last digit of its confidence, as on one; a line rendered ahead waits while a decision is made."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

import pytest

from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.speech import cores
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster_lab.corpora import real_speech
from voicemaster_lab.corpora.real_speech_sources import RealClip

CLIPS = [clip for clip in real_speech.load() if clip.kind in ("letter", "yes", "no")][::40]


@pytest.mark.parametrize("clip", CLIPS, ids=[clip.file for clip in CLIPS])
def test_a_decision_on_two_cores_is_the_decision_on_one(
    clip: RealClip, whisper: Callable[[str], WhisperRecognizer], monkeypatch: pytest.MonkeyPatch
) -> None:
    recognizer = whisper(clip.language)
    context = Context(ContextName(clip.context), clip.language, clip.options)
    audio = Audio.read(clip.path())
    heard = []
    for count in ("1", "2"):
        monkeypatch.setenv(cores.CORES_ENVIRONMENT, count)
        one = recognizer.recognize(audio, context)
        heard.append((one.intent, one.value, one.text, one.confidence))
    assert heard[0] == heard[1]


def test_what_waits_for_a_decision_goes_on_when_it_is_made() -> None:
    order: list[str] = []

    def render() -> None:
        cores.wait_while_deciding(10.0)
        order.append("rendered")

    with cores.deciding():
        waiting = threading.Thread(target=render)
        waiting.start()
        time.sleep(0.05)
        order.append("decided")
    waiting.join()
    assert order == ["decided", "rendered"]


def test_the_cores_a_decision_takes_can_be_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cores.CORES_ENVIRONMENT, "1")
    with cores.deciding():
        assert not cores.split_here()
    monkeypatch.setenv(cores.CORES_ENVIRONMENT, "2")
    with cores.deciding():
        assert cores.split_here() == ((os.cpu_count() or 1) >= 2)
    assert not cores.split_here()  # only while deciding


@pytest.mark.parametrize(
    ("load", "own_rate", "free"),
    [
        (0.2, 0.0, True),  # an idle machine
        (1.4, 1.2, True),  # the game's own voice rendered ahead: it waits for the decision
        (1.4, 0.0, False),  # another program keeps a core busy
        (9.0, 1.0, False),  # a machine loaded by others
    ],
)
def test_the_second_core_is_taken_unless_others_keep_it_busy(load: float, own_rate: float, free: bool) -> None:
    assert cores.free_beside_others(2, load, own_rate) is free


def test_one_core_is_never_split() -> None:
    assert not cores.free_beside_others(1, 0.0, 0.0)


def test_the_own_rate_is_the_cpu_of_about_the_last_minute() -> None:
    own = cores.OwnRate(now=0.0, cpu=0.0)
    assert own.rate(10.0, 10.0) == pytest.approx(1.0)  # busy from the start
    assert own.rate(30.0, 10.0) == pytest.approx(10.0 / 30.0)
    assert own.rate(100.0, 10.0) == pytest.approx(0.0)  # idle for the last minute: its busy start is forgotten
