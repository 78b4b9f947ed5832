"""When the always-ready quizmaster becomes ready, the room hears a chime and one sentence per listening language,
and the page for the room shows the sentence as it is said."""

from __future__ import annotations

import io
import json

from voicemaster.config.voice import DEFAULT_VOICES
from voicemaster.dialogue.turns import Silence
from voicemaster.host.lines import load as load_lines
from voicemaster.play.ear import Answers
from voicemaster.play.runner import Runner, SessionClock, Transcript
from voicemaster.screen.feed import ScreenFeed
from voicemaster.serve.live import announce
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.voice.earcons import earcon
from voicemaster.speech.voice.speakers import Speakers


def _runner(language: str, sink: FileSink, transcript: Transcript) -> Runner:
    nobody = Answers(lambda *_: Silence())  # never asked: announcing only speaks
    return Runner(load_lines(language), Speakers(DEFAULT_VOICES), sink, SessionClock(sink), nobody, transcript,
                  earcons=earcon, render_ahead=False)  # fmt: skip


def test_the_chime_then_ready_in_each_language_and_the_page_shows_it() -> None:
    sink, out = FileSink(), io.StringIO()
    feed = ScreenFeed("de", {}, live=False)
    transcript = Transcript(out, feed)
    announce({"de": _runner("de", sink, transcript)}, chime=True)
    steps = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(step["event"], step.get("earcon") or step.get("text")) for step in steps] == [
        ("earcon", "ready"),
        ("say", "Quizmaster bereit. Sag: Quiz starten."),
    ]
    assert feed.view()["said"].replace("\u00ad", "") == "Quizmaster bereit. Sag: Quiz starten."

    out = io.StringIO()
    more = Transcript(out)
    announce({"fr": _runner("fr", sink, more), "en": _runner("en", sink, more)}, chime=False)
    said = [json.loads(line)["text"] for line in out.getvalue().splitlines() if line.strip()]
    assert said == ["Le quizmaster est prêt. Dites : on joue.", "In English: start the quiz."]
