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
    monkeypatch.delenv(cores.CORES_ENVIRONMENT, raising=False)
    with cores.deciding():
        assert not cores.split_here()  # one core unless asked
    monkeypatch.setenv(cores.CORES_ENVIRONMENT, "1")
    with cores.deciding():
        assert not cores.split_here()
    monkeypatch.setenv(cores.CORES_ENVIRONMENT, "2")
    with cores.deciding():
        assert cores.split_here() == ((os.cpu_count() or 1) >= 2)
    assert not cores.split_here()  # only while deciding
