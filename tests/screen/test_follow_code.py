"""The code of the page's own address (serve's waiting page) is only given where another device could open the page:
on loopback, or in a game started by `play`, there is none, and the page shows none."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from tests.screen.browser import chromium
from voicemaster.screen.feed import ScreenFeed
from voicemaster.screen.server import Screen, local_address

READY = "Quizmaster bereit. Sag: Quiz starten."


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code


def _waiting() -> ScreenFeed:
    feed = ScreenFeed("de", {}, live=True)
    feed.publish(0.0, "say", {"speaker": "host", "text": READY})
    return feed


def test_on_loopback_the_waiting_page_shows_no_code() -> None:
    with Screen(_waiting(), port=0, shows_address=True) as screen, chromium() as browser:
        assert _status(f"{screen.url}address.svg") == 404
        page = browser.new_page()
        with page.expect_response(lambda answer: answer.url.endswith("/address.svg")) as asked:
            page.goto(screen.url)
        assert asked.value.status == 404
        page.get_by_text(READY).wait_for()
        assert page.locator("#follow").is_hidden()
        assert page.get_by_role("img", name="QR-Code: diese Seite auf dem Telefon öffnen").count() == 0


def test_a_screen_that_does_not_show_its_address_gives_no_code_on_the_network() -> None:
    """`play --screen-host 0.0.0.0` prints its address and code in the terminal; its page stays as it was."""
    address = local_address()
    if address.startswith("127."):
        pytest.skip("this machine has no address on a network to come in from")
    with Screen(_waiting(), host="0.0.0.0", port=0) as screen:
        assert _status(f"http://{address}:{screen.port}/") == 200
        assert _status(f"http://{address}:{screen.port}/address.svg") == 404
