"""A phone joins the game over HTTPS on loopback in a real Chromium whose microphone is a person's real recording,
and the game hears that recording through the same listening pipeline as the room's microphone; a page with a wrong
code or none is refused; a page closed while it is listened to ends that listening with nothing decided."""

from __future__ import annotations

import json
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.phones.pages import joined, joined_page, phone_page, said, sound_socket
from tests.screen.browser import axe_violations
from tests.screen.games import entries, play_game
from voicemaster.config.settings import default_paths, load_settings
from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.dialogue.turns import Listen, Silence
from voicemaster.phones.server import WRONG_CODES, Phones
from voicemaster.play.live import MicrophoneEar, open_ear
from voicemaster.screen.feed import ScreenFeed
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.phone import PhoneLost, PhoneMicrophone
from voicemaster.speech.hearing.pipeline import ListeningPipeline
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import RECOGNITION_RATE
from voicemaster_lab.corpora import real_speech

pytestmark = pytest.mark.browser

ANSWER = Context(ContextName.ANSWER, "de", ("Berlin", "Paris", "Rom", "Wien"))
B = next(clip for clip in real_speech.load() if clip.language == "de" and clip.kind == "letter" and clip.text == "B")


@pytest.fixture
def phones(tmp_path: Path) -> Iterator[Phones]:
    with Phones(tmp_path, players=("Anna", "Ben"), port=0) as running:
        yield running


def test_a_phone_joins_by_the_qr_codes_address_and_the_game_hears_its_player(
    phones: Phones, tmp_path: Path, whisper: Callable[[str], WhisperRecognizer], vad: SileroVad
) -> None:
    playwright, browser, page = phone_page(said(tmp_path, Audio.read(B.path())))
    try:
        microphone = joined_page(phones, page, "Anna")
        assert phones.microphone("Ben") is None  # a phone acts for the player it joined as, no other
        hearing = ListeningPipeline(microphone, whisper("de"), vad).listen(ANSWER, timeout=10.0)
    finally:
        browser.close()
        playwright.stop()
    assert hearing.heard is not None and (hearing.heard.intent, hearing.heard.value) == (Intent.ANSWER, "B")


def _get(url: str) -> tuple[int, dict[str, Any]]:
    unverified = ssl.create_default_context()
    unverified.check_hostname = False
    unverified.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(url, context=unverified, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, {}


def test_a_wrong_code_or_none_is_refused_and_guessing_ends_after_a_few_tries(phones: Phones) -> None:
    base = f"https://127.0.0.1:{phones.port}"
    assert _get(f"{base}/players")[0] == 403
    wrong = "000000" if phones.code != "000000" else "111111"
    assert _get(f"{base}/players?code={wrong}")[0] == 403
    status, found = _get(f"{base}/players?code={phones.code}")
    assert status == 200 and found["players"] == ["Anna", "Ben"] and found["joined"] == []
    for _ in range(WRONG_CODES):
        _get(f"{base}/players?code={wrong}")
    assert _get(f"{base}/players?code={phones.code}")[0] == 403  # this address guessed too often: refused for good


def test_a_page_with_a_wrong_code_asks_for_the_code_and_joins_nobody(phones: Phones, tmp_path: Path) -> None:
    playwright, browser, page = phone_page(said(tmp_path, Audio.read(B.path())))
    try:
        page.goto(f"https://127.0.0.1:{phones.port}/?code=123")
        page.get_by_role("status").filter(has_text="Dieser Code passt nicht").wait_for()
        assert page.get_by_label("Code, den der Quizmaster sagt oder der auf dem Bildschirm steht").is_visible()
        opened = page.evaluate(
            """(port) => new Promise((done) => {
                const socket = new WebSocket(`wss://127.0.0.1:${port}/sound?code=123&player=Anna`);
                socket.onopen = () => done("open");
                socket.onclose = () => done("closed");
            })""",
            phones.port,
        )
    finally:
        browser.close()
        playwright.stop()
    assert opened == "closed" and phones.joined() == ()


def test_a_page_closed_while_it_is_listened_to_decides_nothing(
    phones: Phones, tmp_path: Path, whisper: Callable[[str], WhisperRecognizer], vad: SileroVad
) -> None:
    silence = Audio(bytes(2 * RECOGNITION_RATE), RECOGNITION_RATE)  # the player has not spoken yet
    playwright, browser, page = phone_page(said(tmp_path, silence))
    try:
        page.goto(phones.url)
        page.get_by_role("button", name="Ich bin Ben: Mikrofon an").click()
        microphone = joined(phones, "Ben")
        frames = microphone.frames()
        next(frames)  # sound arrives
        page.close()
        recognizer = whisper("de")
        with pytest.raises(PhoneLost, match="Ben's phone"):
            ListeningPipeline(microphone, recognizer, vad).listen(ANSWER, timeout=30.0)
    finally:
        browser.close()
        playwright.stop()
    assert phones.microphone("Ben") is None


def test_a_phone_whose_connection_drops_joins_again_as_its_player_by_itself(phones: Phones, tmp_path: Path) -> None:
    """The connection drops (here: the game's server goes and comes back on the same address, as a Wi-Fi that
    drops does to the page): the page says it reconnects and joins again as the same player, with no tap."""
    silence = Audio(bytes(2 * RECOGNITION_RATE), RECOGNITION_RATE)
    playwright, browser, page = phone_page(said(tmp_path, silence))
    try:
        joined_page(phones, page, "Ben")
        phones.stop()
        page.get_by_role("status").filter(has_text="Ich verbinde dein Telefon wieder").wait_for()
        assert page.get_by_role("button", name="Ich bin Ben: Mikrofon an").count() == 0  # nothing to tap
        with Phones(tmp_path, players=phones.players, port=phones.port, code=phones.code) as back:
            microphone = joined(back, "Ben")
            page.get_by_role("status").filter(has_text="Bens Mikrofon").wait_for()
            assert next(microphone.frames()) is not None  # its sound arrives again
            browser.close()  # before the server stops, as the other tests do
    finally:
        browser.close()
        playwright.stop()


def test_what_a_phone_sends_is_taken_as_sound_only() -> None:
    microphone = PhoneMicrophone("Anna")
    with pytest.raises(ValueError, match="whole 16-bit samples"):
        microphone.receive(b"\x01\x02\x03")
    ramp = (np.arange(1024) % 300).astype("<i2").tobytes()
    microphone.receive(ramp[:700])
    microphone.receive(ramp[700:])
    microphone.hang_up()
    heard = [frame.samples for frame in _drained(microphone)]
    assert b"".join(heard) == ramp  # whole frames, in order, however the messages were cut


def _drained(microphone: PhoneMicrophone) -> list[Any]:
    taken: list[Any] = []
    with pytest.raises(PhoneLost, match="hung up"):
        taken.extend(microphone.frames(before=10.0))
    return taken


class _Steps:
    def __init__(self) -> None:
        self.steps: list[tuple[float, str, dict[str, Any]]] = []

    def publish(self, t: float, event: str, data: Any) -> None:
        self.steps.append((t, event, dict(data)))

    def stored(self, t: float, state: str) -> None:
        self.steps.append((t, "stored", {"state": state}))


def test_a_joined_phone_shows_its_player_their_turn_the_question_and_its_options(tmp_path: Path) -> None:
    recorded = _Steps()
    (tmp_path / "game").mkdir()
    play_game(tmp_path / "game", recorded, seed=26, players=("Anna",))
    feed = ScreenFeed("de", {entry.id: entry.question for entry in entries()}, live=False)
    for t, event, data in recorded.steps:  # the game up to where Anna is first asked for her answer
        feed.stored(t, data["state"]) if event == "stored" else feed.publish(t, event, data)
        if event == "listen" and data.get("context") == "answer":
            break
    shown = feed.view()
    silence = Audio(bytes(2 * RECOGNITION_RATE), RECOGNITION_RATE)
    with Phones(tmp_path, players=("Anna",), port=0, board=feed.view_json) as phones:
        playwright, browser, page = phone_page(said(tmp_path, silence))
        try:
            page.goto(phones.url)
            page.get_by_role("button", name="Ich bin Anna: Mikrofon an").click()
            page.get_by_text("Du bist dran: sprich jetzt.").wait_for()
            question = page.locator("#question").inner_text()
            options = page.locator("#options li").all_inner_texts()
            label, money = page.locator("#question-label").inner_text(), page.locator("#money").inner_text()
            sizes = page.evaluate(
                """() => ["#question", "#options li"].map(
                    (found) => parseFloat(getComputedStyle(document.querySelector(found)).fontSize))"""
            )
            found = axe_violations(page)
        finally:
            browser.close()
            playwright.stop()
    plain = question.replace("\u00ad", "")
    assert shown["question"] is not None and plain == shown["question"]["text"].replace("\u00ad", "")
    assert [option.split(":")[0] for option in options] == ["A", "B", "C", "D"]
    question_shown = shown["question"]
    amount = f"{question_shown['amount']:,}".replace(",", ".")
    assert label.startswith(f"Frage {question_shown['number']} · um {amount}")  # what this question is played for
    anna = next(player for player in shown["players"] if player["name"] == "Anna")
    assert money.startswith("Dein Geld: ") and f"{anna['total'] + anna['holds']:,}".replace(",", ".") in money
    assert min(sizes) >= 28  # large type, read at arm's length: CSS pixels
    assert found == []


def test_a_phone_speaking_longer_than_the_idle_time_stays_joined_and_a_stranger_host_is_refused(
    tmp_path: Path,
) -> None:
    # Two seconds idle: a connection's opening on a loaded machine (its TLS handshake) takes more than one.
    with Phones(tmp_path, players=("Anna",), port=0, idle_seconds=2) as phones:
        with sound_socket(phones.port, f"code={phones.code}&player=Anna") as anna:
            started = time.monotonic()
            while time.monotonic() - started < 6.0:  # three idle times: a sound is a conversation, not idle
                anna.send(bytes(1024))
                time.sleep(0.032)
            assert phones.microphone("Anna") is not None
        for host, player in (("evil.example", "Anna"), ("127.0.0.1", "Mallory")):  # rebinding; nobody's player
            refused = _refused(phones.port, f"code={phones.code}&player={player}", host)
            assert refused, f"{host} joined as {player}"
        assert phones.joined() == ()


def _refused(port: int, query: str, host: str) -> bool:
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    try:
        with sound_socket(port, query, host) as stranger:
            stranger.recv(timeout=5)
    except (InvalidStatus, ConnectionClosed):
        return True
    return False


def _ear(phones: Phones, whisper: Callable[[str], WhisperRecognizer]) -> MicrophoneEar:
    """`play`'s ear with these phones: no sound card here, so no tick; the phone is told all the same."""
    config = replace(load_settings(default_paths()[:1]), heard_cue=False)
    return open_ear(config, whisper("de"), phones=phones)


def _heard_lines(page: Any) -> None:
    """Keeps every text the page's "heard" line shows, in order, in `window.heardLines`."""
    page.evaluate(
        """() => {
            window.heardLines = [];
            const line = document.getElementById("heard");
            new MutationObserver(() => window.heardLines.push(line.textContent)).observe(
                line, {childList: true, characterData: true, subtree: true});
        }"""
    )


def test_the_players_phone_shows_that_it_heard_them_and_what_it_read(
    phones: Phones, tmp_path: Path, whisper: Callable[[str], WhisperRecognizer]
) -> None:
    ear = _ear(phones, whisper)
    playwright, browser, page = phone_page(said(tmp_path, Audio.read(B.path())))
    try:
        joined_page(phones, page, "Anna")
        _heard_lines(page)
        listened = ear.listen(Listen(ANSWER, "Anna", 10.0), None, None)
        heard = listened.observation
        assert isinstance(heard, Heard) and heard.text.strip(" .").upper() == "B"
        page.locator("#heard").filter(has_text=heard.text).wait_for()
        lines = page.evaluate("() => window.heardLines")
    finally:
        browser.close()
        playwright.stop()
    # What was read, as the quizmaster takes it: acted on, or not clear enough (asked again).
    read = (
        f"Nicht sicher verstanden: „{heard.text}“. Der Quizmaster fragt noch einmal."
        if heard.intent is Intent.UNKNOWN
        else f"Gehört: „{heard.text}“"
    )
    assert "Gehört …" in lines  # the end of Anna's speech heard, before it was read
    assert lines.index("Gehört …") < lines.index(read)


def test_held_to_talk_the_phone_is_heard_only_while_its_button_is_held(
    phones: Phones, tmp_path: Path, whisper: Callable[[str], WhisperRecognizer]
) -> None:
    ear = _ear(phones, whisper)
    playwright, browser, page = phone_page(said(tmp_path, Audio.read(B.path())))
    try:
        joined_page(phones, page, "Anna")
        hold = page.get_by_role("button", name="Nur sprechen, solange ich die Taste halte")
        hold.click()
        assert hold.get_attribute("aria-pressed") == "true"
        # Anna's recording plays into the phone over and over; nothing is held: the game hears silence.
        unheld = ear.listen(Listen(ANSWER, "Anna", 7.0), None, None)
        page.get_by_role("button", name="Halten und sprechen").hover()
        page.mouse.down()
        held = ear.listen(Listen(ANSWER, "Anna", 10.0), None, None)
        page.mouse.up()
    finally:
        browser.close()
        playwright.stop()
    assert isinstance(unheld.observation, Silence) and not unheld.phone_lost
    assert isinstance(held.observation, Heard) and held.observation.text.strip(" .").upper() == "B"
