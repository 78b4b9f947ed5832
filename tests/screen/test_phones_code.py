"""The phones' QR code on the screen: this computer's own browser shows it; a page opened from elsewhere on the
network never gets it (the code in it lets a phone join the game)."""

from __future__ import annotations

import io
import urllib.error
import urllib.request

import pytest
import segno

from tests.screen.browser import chromium
from voicemaster.screen.feed import ScreenFeed
from voicemaster.screen.server import Screen, local_address

JOIN = "https://192.168.178.23:8766/?code=402713"


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, b""


def _drawn(url: str) -> bytes:
    drawn = io.BytesIO()
    segno.make(url, error="m").save(drawn, kind="svg", scale=8, border=2, dark="#000", light="#fff")
    return drawn.getvalue()


def test_this_computers_browser_is_given_the_phones_code_and_shows_it() -> None:
    with Screen(ScreenFeed("de", {}, live=True), port=0, phones_url=JOIN) as screen:
        status, svg = _get(f"http://127.0.0.1:{screen.port}/phones.svg")
        assert status == 200 and svg == _drawn(JOIN)
        with chromium() as browser:
            page = browser.new_page()
            page.goto(screen.url)
            code = page.get_by_role("img", name="QR-Code: mit dem Telefon mitspielen")
            code.wait_for()
            assert page.evaluate("document.getElementById('join-code').naturalWidth") > 0
            assert page.get_by_text("Telefon als Mikrofon: scannen").is_visible()


def test_without_phones_there_is_no_code() -> None:
    with Screen(ScreenFeed("de", {}, live=True), port=0) as screen:
        assert _get(f"http://127.0.0.1:{screen.port}/phones.svg")[0] == 404


def test_a_page_from_elsewhere_on_the_network_never_gets_the_code() -> None:
    address = local_address()
    if address.startswith("127."):
        pytest.skip("this machine has no address on a network to come in from")
    with Screen(ScreenFeed("de", {}, live=True), host="0.0.0.0", port=0, phones_url=JOIN) as screen:
        assert _get(f"http://{address}:{screen.port}/")[0] == 200  # the page itself is for the room
        assert _get(f"http://{address}:{screen.port}/phones.svg")[0] == 404
