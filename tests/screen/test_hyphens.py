"""Long words on the screen break at a syllable, with a hyphen, never anywhere without one: the longest words of
each language's bank on the page in Chromium, at 400 % zoom (a 320-pixel-wide page), and in German at 100 % too."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.screen.browser import chromium
from tests.screen.games import entries
from voicemaster.host.saved import Session
from voicemaster.rules import AskQuestion, GameSettings, Letter, StartRound, apply, new_game, variant
from voicemaster.screen.board import Board, BoardQuestion
from voicemaster.screen.hyphens import SOFT_HYPHEN, hyphenated
from voicemaster.screen.view import view

STATIC = Path(__file__).parents[2] / "voicemaster" / "screen" / "static"
WIDTHS = {"100 %": 1280, "400 %": 320}
BROKEN_WITHOUT_HYPHEN = """(selector) => {
  const found = { bad: [], hyphenated: 0 };
  for (const element of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.data;
      let top = null;
      for (let i = 0; i < text.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const boxes = range.getClientRects();  // the first letter after a break also holds the hyphen drawn before it
        const box = boxes[boxes.length - 1];
        if (!box || box.width === 0) continue;  // a soft hyphen where the line does not break, a space at its end
        if (top !== null && box.top > top + 1) {  // a new line starts with character i
          if (text[i - 1] === "\\u00ad") found.hyphenated += 1;
          else if (!/[\\s\\-\\u2010]/.test(text[i - 1]) && !/\\s/.test(text[i])) {
            found.bad.push(text.slice(Math.max(0, i - 20), i) + " / " + text.slice(i, i + 12));
          }
        }
        top = box.top;
      }
    }
  }
  return found;
}"""


def longest_words(language: str, count: int) -> list[str]:
    words = {
        word
        for entry in entries()
        if entry.language == language
        for text in (entry.question, *entry.options, entry.category)
        for word in re.findall(r"\w+", text)
    }
    return sorted(words, key=lambda word: (-len(word), word))[:count]


def board_json(language: str, *, hyphens: bool = True) -> str:
    """The page's board with a question of the bank's longest words, and options of the next longest."""
    words = longest_words(language, 12)
    settings = GameSettings(variant("classic"), ("Anna",), seed=1)
    game, _ = apply(new_game(settings), StartRound())
    game, _ = apply(game, AskQuestion("long-words", Letter.A))
    question = BoardQuestion("long-words", " ".join(words[:8]) + "?", tuple(words[8:12]), 1, 50, Letter.A, words[0])
    shown = view(Board(language, Session(game), question), 0.0, live=False)
    if not hyphens:
        shown = json.loads(json.dumps(shown).replace("\\u00ad", ""))
    return json.dumps({"version": 1, **shown})


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as opened:
        yield opened


def page_with(browser: Any, board: str, width: int) -> Any:
    """The screen's own page, its files as the server sends them, and `board` as the one event it gets."""
    page = browser.new_page(viewport={"width": width, "height": 900})

    def serve(route: Any) -> None:
        path = route.request.url.split("//", 1)[1].split("/", 1)[1]
        if path == "events":
            route.fulfill(status=200, content_type="text/event-stream", body=f"event: board\ndata: {board}\n\n")
        elif path.startswith("static/"):
            route.fulfill(path=str(STATIC / path.removeprefix("static/")))
        else:
            route.fulfill(path=str(STATIC / "index.html"))

    page.route("http://screen.test/**", serve)
    page.goto("http://screen.test/")
    page.wait_for_function("document.body.dataset.version === '1'", timeout=30_000)
    return page


@pytest.mark.parametrize(
    ("language", "zoom"),
    # Each language's syllables on the narrow page, where its longest words must break; the wide page once, in German,
    # whose words are the longest: it lays out the same page with the same rules, and breaks few words if any.
    [("de", "100 %"), ("de", "400 %"), ("en", "400 %"), ("fr", "400 %")],
)
def test_long_words_break_only_at_a_syllable_with_a_hyphen(browser: Any, language: str, zoom: str) -> None:
    page = page_with(browser, board_json(language), WIDTHS[zoom])
    try:
        shown = page.locator("#question-text").inner_text().replace(SOFT_HYPHEN, "")
        assert shown == " ".join(longest_words(language, 8)) + "?"
        found = page.evaluate(BROKEN_WITHOUT_HYPHEN, "#question-text, #options .text, #category")
        assert found["bad"] == []
        if zoom == "400 %":  # the longest words do not fit the narrow page whole: they are broken, with a hyphen
            assert found["hyphenated"] > 0
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    finally:
        page.close()


def test_without_the_syllables_the_narrow_page_breaks_a_german_word_anywhere(browser: Any) -> None:
    """The check above can fail: the same page without soft hyphens splits a word mid-syllable."""
    page = page_with(browser, board_json("de", hyphens=False), WIDTHS["400 %"])
    try:
        assert page.evaluate(BROKEN_WITHOUT_HYPHEN, "#question-text, #options .text, #category")["bad"]
    finally:
        page.close()


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        ("de", "Wer gewann die Weltmeisterschaftskämpfe?", "Wer gewann die Welt-meis-ter-schafts-kämp-fe?"),
        ("fr", "anticonstitutionnellement", "an-ti-cons-ti-tu-tion-nel-le-ment"),
        ("en", "Who wrote it?", "Who wrote it?"),
        ("en", "Huitzilopochtli hemidemisemiquavers", "Huitzilo-pochtli hemi-demi-semi-qua-vers"),
    ],
)
def test_syllables_are_marked_by_the_language(language: str, text: str, expected: str) -> None:
    assert hyphenated(text, language).replace(SOFT_HYPHEN, "-") == expected


def test_short_words_and_unknown_languages_stay_whole() -> None:
    assert hyphenated("Der Rhein fließt.", "de") == "Der Rhein fließt."
    assert hyphenated("Weltmeisterschaft", "xx") == "Weltmeisterschaft"
