"""The screen in a real browser (Debian's Chromium, headless), following a whole game as the room would see it.

The game is held at five moments (a question asked, before its options are read; the question read, after a 50:50,
during the phone call, at a reveal) by the test's own watcher, which passes every step on to the screen and then
waits for the photograph: the screen itself never holds the game. At each moment the page is checked against the
transcript the game wrote, photographed into `out/screen/` and checked by axe-core.
"""

from __future__ import annotations

import json
import queue
import re
import threading
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.screen.browser import axe_violations, chromium
from tests.screen.games import entries, play_game, play_money_drop
from voicemaster.screen.feed import ScreenFeed
from voicemaster.screen.server import Screen

SHOTS = Path(__file__).parents[2] / "out" / "screen"
HOLD_SECONDS = 300


class Photographer:
    """Passes each step to the screen; at a moment worth a photograph, waits until it has been taken."""

    def __init__(self, feed: ScreenFeed) -> None:
        self.feed = feed
        self.moments: queue.Queue[str | None] = queue.Queue()
        self.taken = threading.Event()
        self._seen: set[str] = set()
        self._after_fifty = False
        self._asked = False

    def publish(self, t: float, event: str, data: Mapping[str, Any]) -> None:
        self.feed.publish(t, event, data)
        moment = self._moment(event, data)
        if moment is not None and moment not in self._seen:
            self._seen.add(moment)
            self.taken.clear()
            self.moments.put(moment)
            assert self.taken.wait(HOLD_SECONDS), "the browser never took its photograph"

    def stored(self, t: float, state: str) -> None:
        self.feed.stored(t, state)

    def _moment(self, event: str, data: Mapping[str, Any]) -> str | None:
        if event == "question":
            self._asked = True
            return "asked"
        if event == "joker" and data["joker"] == "fifty_fifty":
            self._after_fifty = True
        if event == "listen" and data["context"] == "answer" and self._asked:
            if self._after_fifty:
                return "fifty_fifty"
            return "question"
        if event == "timer":
            return "phone"
        if event == "result":
            return "reveal"
        return None


def _events(transcript: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]


def _shown_options(page: Any) -> list[tuple[str, str]]:
    items = page.locator("#options li")
    return [
        (items.nth(i).get_attribute("data-letter"), _unhyphenated(items.nth(i).locator(".text").inner_text()))
        for i in range(items.count())
    ]


def _unhyphenated(text: str) -> str:
    """The words as the game has them: the page marks the syllables of long words with soft hyphens."""
    return text.replace("\u00ad", "")


def _caught_up(page: Any, feed: ScreenFeed) -> None:
    """Waits until the page shows the board with everything the game published so far."""
    feed.fold()
    page.wait_for_function(f"Number(document.body.dataset.version || -1) >= {feed.version}", timeout=30_000)


@pytest.mark.slow
def test_the_room_sees_the_game_as_the_quizmaster_runs_it(tmp_path: Path) -> None:
    bank = {entry.id: entry for entry in entries()}
    feed = ScreenFeed("de", {entry_id: entry.question for entry_id, entry in bank.items()}, live=False)
    photographer = Photographer(feed)
    SHOTS.mkdir(parents=True, exist_ok=True)
    transcript = tmp_path / "transcript.jsonl"
    failed: list[BaseException] = []

    def game() -> None:
        try:
            play_game(tmp_path, photographer)
        except BaseException as error:
            failed.append(error)
        finally:
            photographer.moments.put(None)

    with Screen(feed, port=0) as screen, chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        page.goto(screen.url + "?theme=dark")
        playing = threading.Thread(target=game, daemon=True)
        playing.start()
        photographed: list[str] = []
        while (moment := photographer.moments.get(timeout=HOLD_SECONDS)) is not None:
            _caught_up(page, feed)
            events = _events(transcript)
            _check(moment, page, events, bank)
            page.screenshot(path=str(SHOTS / f"{len(photographed) + 1}-{moment}.png"), full_page=True)
            assert axe_violations(page) == [], moment
            photographed.append(moment)
            photographer.taken.set()
        playing.join(timeout=60)
        assert not failed, failed
        assert sorted(photographed) == ["asked", "fifty_fifty", "phone", "question", "reveal"]
        # The end: the score sheet, as the game wrote it.
        _caught_up(page, feed)
        over = [e for e in _events(transcript) if e["event"] == "game_over"][-1]
        sheet = page.locator("#sheet")
        assert sheet.is_visible()
        for player, total in over["totals"].items():
            assert player in sheet.inner_text() and f"{total:,}".replace(",", ".") in sheet.inner_text()
        assert ", ".join(over["winners"]) in page.locator("#winners").inner_text()
        page.screenshot(path=str(SHOTS / "5-score-sheet.png"), full_page=True)
        _light_theme_and_zoom(page)
        _read_only(screen.url)


def _check(moment: str, page: Any, events: list[dict[str, Any]], bank: Mapping[str, Any]) -> None:
    asked = [e for e in events if e["event"] == "question"][-1]
    said = [e["text"] for e in events if e["event"] == "say"]
    question_text = _unhyphenated(page.locator("#question-text").inner_text())
    assert question_text == bank[asked["question_id"]].question
    assert f"Frage {asked['level']}" in page.locator("#status").inner_text()
    # The ladder marks the level played (until its reveal), and the safety levels in words and shape, not colour.
    current = page.locator("#ladder li[aria-current=step]")
    if moment != "reveal":
        assert current.count() == 1 and f"{asked['amount']:,}".replace(",", ".") in current.inner_text()
    assert page.locator("#ladder li.safe").count() == 2
    assert "■" in page.locator("#ladder li.safe").first.inner_text()
    if moment == "asked":
        # The question is on the screen as it is about to be read; its options come as each is read.
        assert _shown_options(page) == []
    elif moment == "question":
        # All four options, in the order they were read, and nothing that gives the right one away.
        assert _shown_options(page) == list(zip("ABCD", asked["options"], strict=True))
        assert said[-5:-1] == [f"{letter}: {text}." for letter, text in zip("ABCD", asked["options"], strict=True)]
        listening = events[-1]
        assert listening["event"] == "listen"
        assert listening["player"] in page.locator("#turn").inner_text()
        assert page.locator(".option.correct").count() == 0
        assert _unhyphenated(page.locator("#said").inner_text()) == said[-1]
    elif moment == "fifty_fifty":
        # The two options the quizmaster read again after the 50:50 are the ones left on screen.
        joker = [i for i, e in enumerate(events) if e["event"] == "joker" and e["joker"] == "fifty_fifty"][-1]
        reread = [e["text"] for e in events[joker:] if e["event"] == "say" and re.match(r"^[A-D]: ", e["text"])]
        letters = [text[0] for text in reread]
        assert len(letters) == 2
        assert [letter for letter, _ in _shown_options(page)] == letters
        heard = [e for e in events if e["event"] == "heard"][-1]
        assert page.locator("#heard-label").inner_text() == f"{heard['player']}:"
        assert heard["text"] in page.locator("#heard").inner_text()
    elif moment == "phone":
        timer = events[-1]
        assert timer["event"] == "timer"
        assert page.locator("#timer").is_visible()
        assert page.locator("#timer-left").inner_text() == str(timer["seconds"])
        assert "Telefon" in page.locator("#timer-label").inner_text()
    elif moment == "reveal":
        correct = page.locator(".option.correct")
        assert correct.count() == 1 and correct.get_attribute("data-letter") == asked["correct"]
        assert "✓" in correct.inner_text()
        for locked in [e for e in events[events.index(asked) :] if e["event"] == "locked"]:
            option = page.locator(f'.option[data-letter="{locked["option"]}"]')
            assert locked["player"] in option.inner_text() and "eingeloggt" in option.inner_text()
            if locked["option"] != asked["correct"]:
                assert "✗" in option.inner_text()


def _light_theme_and_zoom(page: Any) -> None:
    """The light theme passes axe too; at 400 % zoom (a 320-pixel-wide page) nothing runs off to the side."""
    page.locator("#theme").click()
    theme = page.evaluate("document.documentElement.dataset.theme")
    assert axe_violations(page) == [], theme
    page.locator("#theme").click()
    assert page.evaluate("document.documentElement.dataset.theme") != theme
    page.set_viewport_size({"width": 320, "height": 640})
    page.screenshot(path=str(SHOTS / "6-zoomed.png"), full_page=True)
    beyond = page.evaluate(
        """[...document.querySelectorAll("body *")]
        .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
        .map((e) => `${e.tagName}.${e.className}: ${e.textContent.slice(0, 40)}`)"""
    )
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), beyond


def _read_only(url: str) -> None:
    """Nothing on the server takes a request that could change anything."""
    for path in ("", "board", "events"):
        request = urllib.request.Request(url + path, data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        refused.value.close()
        assert refused.value.code == 405


class DropPhotographer(Photographer):
    def _moment(self, event: str, _data: Mapping[str, Any]) -> str | None:
        return {"locked": "drop-locked", "result": "drop-result"}.get(event)


@pytest.mark.slow
def test_the_room_sees_the_money_on_each_option(tmp_path: Path) -> None:
    """A money drop: the bundles the team locked on each option, then the trapdoors and the money left."""
    bank = {entry.id: entry for entry in entries()}
    feed = ScreenFeed("de", {entry_id: entry.question for entry_id, entry in bank.items()}, live=False)
    photographer = DropPhotographer(feed)
    transcript = tmp_path / "transcript.jsonl"
    failed: list[BaseException] = []

    def game() -> None:
        try:
            play_money_drop(tmp_path, photographer, seed=1)
        except BaseException as error:
            failed.append(error)
        finally:
            photographer.moments.put(None)

    with Screen(feed, port=0) as screen, chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        page.goto(screen.url + "?theme=dark")
        threading.Thread(target=game, daemon=True).start()
        photographed: list[str] = []
        while (moment := photographer.moments.get(timeout=HOLD_SECONDS)) is not None:
            _caught_up(page, feed)
            events = _events(transcript)
            card = [e for e in events if e["event"] == "question"][-1]
            assert _unhyphenated(page.locator("#question-text").inner_text()) == bank[card["question_id"]].question
            assert card["category"] in _unhyphenated(page.locator("#category").inner_text())
            locked = [e for e in events if e["event"] == "locked"][-1]["placement"]
            for letter, bundles in locked.items():
                option = page.locator(f'.option[data-letter="{letter}"]')
                assert f"{bundles} Bündel" in option.inner_text()
                assert ("eingeloggt" in option.inner_text()) == (bundles > 0)
            if moment == "drop-result":
                result = events[-1]
                right = page.locator(".option.correct")
                assert right.get_attribute("data-letter") == card["correct"] and "✓" in right.inner_text()
                left = f"{result['money_left']:,}".replace(",", ".")
                assert left in page.locator("#money-left").inner_text()
            else:
                assert page.locator(".option.correct").count() == 0
            page.screenshot(path=str(SHOTS / f"{7 + len(photographed)}-{moment}.png"), full_page=True)
            assert axe_violations(page) == [], moment
            photographed.append(moment)
            photographer.taken.set()
        assert not failed, failed
        assert photographed == ["drop-locked", "drop-result"]
