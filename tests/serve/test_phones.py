"""`voicemaster serve --phones`: one code for as long as it serves. After a game, while it waits, a phone joins as a
new player (real Chromium, its page as a player sees it) and is the next game's new player's microphone, with that
game's loudspeaker as its echo reference; the last game's player who does not play again is let go. The steps are
serve's own between games (`Phones.new_game`, then `play`'s ear and names), on the phones' real server."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from tests.fakes import ReferenceKept
from tests.phones.pages import JOINED_SECONDS, joined_new, joined_page, phone_page, said
from voicemaster.config.settings import default_paths, load_settings
from voicemaster.phones.server import Phones
from voicemaster.play.live import open_ear
from voicemaster.speech.audio import Audio
from voicemaster.speech.frame import FRAME_BYTES
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import RECOGNITION_RATE

pytestmark = pytest.mark.browser

VOICE = b"\x10\x27" * (FRAME_BYTES // 2)
"""A frame of the quizmaster's voice as the loudspeaker is handed it (a constant sample: easy to tell from quiet)."""


def test_a_phone_joined_while_serve_waits_is_the_next_games_new_player_with_its_loudspeaker(
    tmp_path: Path, whisper: Callable[[str], WhisperRecognizer]
) -> None:
    config = replace(load_settings(default_paths()[:1]), heard_cue=False)
    silence = said(tmp_path, Audio(bytes(2 * RECOGNITION_RATE), RECOGNITION_RATE))
    with Phones(tmp_path, port=0) as phones:
        open_ear(config, whisper("de"), phones=phones)  # the first game, as `play` opens it
        phones.set_players(("Anna",))
        playwright, browser, annas_page = phone_page(silence)
        try:
            annas = joined_page(phones, annas_page, "Anna")
            phones.new_game()  # the game is over: serve waits again
            page = browser.new_context(ignore_https_errors=True, viewport={"width": 390, "height": 844}).new_page()
            page.goto(phones.url)
            page.get_by_role("button", name="Ich spiele neu mit: Mikrofon an").click()
            page.get_by_role("status").filter(has_text="sag deinen Namen ins Telefon").wait_for()
            joined_new(phones)

            open_ear(config, whisper("de"), phones=phones)  # the next game's own loudspeaker and front ends
            canceller = ReferenceKept()
            phones.front_end = lambda: canceller  # the next game's, seen from the test
            newcomer = phones.newcomer(1, name_asked=True)  # its first player's name is asked
            assert newcomer is not None and newcomer is not annas
            assert phones.played is not None
            phones.played.add(VOICE * 50)  # the quizmaster asks the name on the next game's loudspeaker
            deadline = time.monotonic() + JOINED_SECONDS
            while VOICE not in canceller.references[:]:  # the phone's echo canceller is handed it
                assert time.monotonic() < deadline, "the new player's phone never had the game's voice to cancel"
                time.sleep(0.05)

            phones.set_players(("Ben",))  # the name said into the phone
            page.get_by_role("status").filter(has_text="Dein Telefon ist jetzt Bens Mikrofon").wait_for()
            assert phones.microphone("Ben") is newcomer
            annas_page.get_by_role("status").filter(has_text="nicht nach deinem Namen gefragt").wait_for()
            assert phones.microphone("Anna") is None and phones.joined() == ("Ben",)
        finally:
            browser.close()
            playwright.stop()
