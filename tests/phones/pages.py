"""A phone's page in a real Chromium whose microphone plays a person's real recording, over and over."""

from __future__ import annotations

import socket
import ssl
import time
from pathlib import Path
from typing import Any

import numpy as np

from tests.screen.browser import CHROMIUM, FLAGS
from voicemaster.phones.server import Phones
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.phone import PhoneMicrophone
from voicemaster.speech.frame import FRAME_SECONDS
from voicemaster.speech.signal import RECOGNITION_RATE, resample

JOINED_SECONDS = 30.0
"""How long a page may take to join on a loaded machine: a guard, not a measurement."""
PAUSE_SECONDS = 0.5
"""Quiet this long in a looped recording is a pause between its words."""
QUIET_RMS = 100
"""A 16-bit frame this quiet is the recording's digital silence after the browser's processing, not a word."""


def said(folder: Path, *words: Audio, silence: float = 1.0, evenly: bool = False) -> Path:
    """Recordings as the fake microphone plays them, over and over: a pause, each recording followed by a pause,
    and a longer pause at the end; `evenly`, each recording followed by the same pause and nothing else, so that
    the last is as far from the first as from the one before it."""
    quiet = bytes(2 * round(silence * RECOGNITION_RATE))
    spoken = b"".join(resample(word, RECOGNITION_RATE).samples + quiet for word in words)
    path = folder / "said.wav"
    Audio(spoken if evenly else quiet + spoken + quiet * 2, RECOGNITION_RATE).write(path)
    return path


def phone_page(recording: Path) -> tuple[Any, Any, Any]:
    """Playwright, its Chromium with `recording` as the microphone, and a phone-sized page in it: the caller closes
    the browser and stops Playwright."""
    from playwright.sync_api import sync_playwright

    microphone = [
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-audio-capture={recording}",
        "--autoplay-policy=no-user-gesture-required",
    ]
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[*FLAGS, *microphone], headless=True)
    # Bypassing the page's own policy lets the test's accessibility checker (axe-core) be added to it.
    context = browser.new_context(ignore_https_errors=True, bypass_csp=True, viewport={"width": 390, "height": 844})
    return playwright, browser, context.new_page()


def in_a_pause(phone: PhoneMicrophone) -> None:
    """Returns once the phone's looped recording is between two words, its sound up to there read and dropped.

    Chromium plays the recording round and round whatever the game does, and a listening begun in the middle of
    "Lisa" hears "Da" (then its read-back has the loop's "Ja"); a person speaks when asked, so a test's listening
    begins in a pause."""
    quiet = 0.0
    for frame in phone.frames():
        loud = np.sqrt(np.mean(np.frombuffer(frame.samples, "<i2").astype(np.float64) ** 2)) > QUIET_RMS
        quiet = 0.0 if loud else quiet + FRAME_SECONDS
        if quiet >= PAUSE_SECONDS:
            return


def joined(phones: Phones, player: str) -> PhoneMicrophone:
    """`player`'s phone, once it has joined."""
    deadline = time.monotonic() + JOINED_SECONDS
    while time.monotonic() < deadline:
        found = phones.microphone(player)
        if found is not None:
            return found
        time.sleep(0.05)
    raise AssertionError(f"{player}'s phone never joined")


def joined_new(phones: Phones, count: int = 1) -> None:
    """Returns once `count` phones have joined as new players (the server has them, not only their pages)."""
    deadline = time.monotonic() + JOINED_SECONDS
    while phones.waiting() != count:
        if time.monotonic() > deadline:
            raise AssertionError(f"{count} new players' phones never joined")
        time.sleep(0.05)


def joined_page(phones: Phones, page: Any, player: str) -> PhoneMicrophone:
    """The page opened at the QR code's address and joined as `player` (German labels), as its player sees it: the
    game has the phone, and the page says whose microphone it is."""
    page.goto(phones.url)
    page.get_by_role("button", name=f"Ich bin {player}: Mikrofon an").click()
    microphone = joined(phones, player)
    page.get_by_role("status").filter(has_text=f"{player}s Mikrofon").wait_for()
    return microphone


def sound_socket(
    port: int, query: str, host: str = "127.0.0.1", *, origin: str | None = None, source: str = "127.0.0.1"
) -> Any:
    """A page's sound socket on loopback from the address `source`, its request naming `host` (a page from
    elsewhere names its own) and, as a browser does, the page's `origin` (none: not a browser)."""
    from websockets.sync.client import connect
    from websockets.typing import Origin

    unverified = ssl.create_default_context()
    unverified.check_hostname = False
    unverified.verify_mode = ssl.CERT_NONE
    # TLS 1.2 for this client only: websockets' sync client reads on one thread while it sends on another, and over
    # TLS 1.3 (session tickets after the handshake) CPython's `SSLSocket` then lost about one opening in a few hundred
    # (0 of 400 capped at 1.2). Browsers are not affected; the Chromium tests keep the server's TLS 1.3 covered.
    unverified.maximum_version = ssl.TLSVersion.TLSv1_2
    wire = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    try:
        return connect(
            f"wss://{host}:{port}/sound?{query}",
            sock=wire,
            ssl=unverified,
            server_hostname="127.0.0.1",
            origin=Origin(origin) if origin is not None else None,
            max_size=None,
        )
    except BaseException:
        wire.close()  # refused or cut off: the socket is closed on every path (a second close does nothing)
        raise
