"""When the always-ready quizmaster becomes ready, the room hears a chime and one sentence per listening language,
and the page for the room shows the sentence as it is said (on the network, beside a QR code of its own address)."""

from __future__ import annotations

import io
import json
import urllib.request

import pytest
import segno

from tests.screen.browser import axe_violations, chromium
from voicemaster.config.voice import DEFAULT_VOICES
from voicemaster.dialogue.turns import Silence
from voicemaster.host.lines import load as load_lines
from voicemaster.host.saved import Session
from voicemaster.play.ear import Answers
from voicemaster.play.runner import Runner, SessionClock, Transcript
from voicemaster.rules import GameSettings, StartRound, StopGame, apply, new_game, variant
from voicemaster.screen import is_loopback
from voicemaster.screen.feed import ScreenFeed
from voicemaster.screen.server import Screen, local_address
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


def test_on_the_network_the_waiting_page_shows_the_sentence_beside_a_code_of_its_own_address() -> None:
    """A guest's phone scans the code and opens the game's page to follow along; once a game is under way the page
    is the game's. No decoder is installed here: the code served is segno's drawing of exactly the page's URL."""
    if local_address().startswith("127."):
        pytest.skip("this machine has no address on a network for a phone to open")
    feed = ScreenFeed("de", {}, live=True)
    with Screen(feed, host="0.0.0.0", port=0, shows_address=True) as screen, chromium() as browser:
        assert not is_loopback(screen.url.split("//")[1].rsplit(":", 1)[0])  # the address announced, for a phone
        with urllib.request.urlopen(f"{screen.url}address.svg", timeout=10) as answer:
            assert answer.read() == _drawn(screen.url)
        page = browser.new_page(bypass_csp=True)  # axe is added to the page as a script
        page.goto(screen.url)  # as the guest's phone opens it: from the network address
        announce({"de": _runner("de", FileSink(), Transcript(io.StringIO(), feed))}, chime=True)
        page.get_by_text("Quizmaster bereit. Sag: Quiz starten.").wait_for()
        code = page.get_by_role("img", name="QR-Code: diese Seite auf dem Telefon öffnen")
        code.wait_for()
        assert page.evaluate("document.getElementById('follow-code').naturalWidth") > 0
        assert page.evaluate("new URL(document.getElementById('follow-code').src).pathname") == "/address.svg"
        assert page.get_by_text("Auf dem Telefon mitlesen: scannen").is_visible()
        assert axe_violations(page) == []

        game = new_game(GameSettings(variant("classic"), ("Anna",), rounds=1, seed=5))
        feed.stored(1.0, Session(game).to_json())  # a game has started: the page is the game's, as before
        code.wait_for(state="hidden")
        assert not page.get_by_text("Auf dem Telefon mitlesen: scannen").is_visible()

        over, _ = apply(apply(game, StartRound())[0], StopGame())
        feed.stored(2.0, Session(over).to_json())  # the game is over: serve waits again, and says so
        announce({"de": _runner("de", FileSink(), Transcript(io.StringIO(), feed))}, chime=False)
        code.wait_for()
        assert axe_violations(page) == []


def _drawn(url: str) -> bytes:
    drawn = io.BytesIO()
    segno.make(url, error="m").save(drawn, kind="svg", scale=8, border=2, dark="#000", light="#fff")
    return drawn.getvalue()
