"""Rendering ahead beside what the player waits for: Kokoro rendering a line for later stops when the player's words
are being decided or a line is wanted now, and renders the line whole afterwards; a line someone waits for renders on
(docs/decisions/047)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.voice import kokoro
from voicemaster.speech.voice.render_ahead import Priority, RenderQueue
from voicemaster.speech.voice.speakers import resolved
from voicemaster.speech.voice.synthesis import Stopped

pytestmark = [pytest.mark.model, pytest.mark.audio]  # Kokoro renders speech

LATER = "Congratulations! You have just won one million pounds, the highest prize of the evening."
"""A line long enough to be rendering still when the decision starts."""


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def engine() -> kokoro.Kokoro:
    return kokoro.Kokoro()


def _logged(engine: kokoro.Kokoro, events: list[str]) -> Callable[[str, Voice], Audio]:
    """Renders with `engine`, noting each start, stop and end (of a line other than `LATER`, with its text)."""

    def render(text: str, voice: Voice) -> Audio:
        def note(what: str) -> None:
            events.append(what if text == LATER else f"{what}: {text}")

        note("started")
        try:
            audio = engine.speak(text, voice)
        except Stopped:
            note("stopped")
            raise
        note("rendered")
        return audio

    return render


def _never_on_disk(_text: str, _voice: Voice) -> bool:
    return False


def _until(started: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 60
    while not started():
        assert time.monotonic() < deadline, "the line was never begun"
        time.sleep(0.01)


def test_a_line_rendered_ahead_gives_way_to_a_decision_and_is_said_whole_after(
    engine: kokoro.Kokoro, ear: WhisperRecognizer
) -> None:
    voice = resolved(Voice(), "en")
    player = engine.speak("Yes, that is my final answer.", voice)
    events: list[str] = []
    lines = RenderQueue(_logged(engine, events), _never_on_disk, engine.stop)
    lines.ahead([(LATER, voice)], Priority.FORESEEN)
    _until(lambda: "started" in events)
    heard = ear.recognize(player, Context(ContextName.CONFIRM, "en"))
    events.append("decided")
    assert heard.intent is Intent.YES
    later = lines.get(LATER, voice)
    assert events.index("stopped") < events.index("decided"), events  # the render did not share the cores with it
    assert events.count("started") == 2 and events[-1] == "rendered"
    assert "million pounds" in ear.recognize(later, Context(ContextName.CONFIRM, "en")).text.lower()


@pytest.mark.slow  # a whole Kokoro line and a decision at once: the default suite's ten minutes
def test_a_line_someone_waits_for_renders_on_through_a_decision(engine: kokoro.Kokoro, ear: WhisperRecognizer) -> None:
    voice = resolved(Voice(), "en")
    player = engine.speak("Yes, that is my final answer.", voice)
    events: list[str] = []
    lines = RenderQueue(_logged(engine, events), _never_on_disk, engine.stop)
    said: list[Audio] = []
    waiting = threading.Thread(target=lambda: said.append(lines.get(LATER, voice)))
    waiting.start()
    _until(lambda: "started" in events)
    assert ear.recognize(player, Context(ContextName.CONFIRM, "en")).intent is Intent.YES
    waiting.join()
    assert events == ["started", "rendered"] and said[0].seconds > 3


def test_a_line_wanted_now_does_not_wait_for_a_line_rendering_ahead(engine: kokoro.Kokoro) -> None:
    voice = resolved(Voice(), "en")
    events: list[str] = []
    lines = RenderQueue(_logged(engine, events), _never_on_disk, engine.stop)
    lines.ahead([(LATER, voice)], Priority.FORESEEN)
    _until(lambda: "started" in events)
    now = lines.get("Well done.", voice)
    assert events[:4] == ["started", "stopped", "started: Well done.", "rendered: Well done."], events
    later = lines.get(LATER, voice)
    assert events[4:] == ["started", "rendered"] and now.seconds > 0.3 and later.seconds > 3
