"""A neighbour on the room's Wi-Fi against the phones' server: a page of another site, words, a message too long, a
half sample, a crowd of connections. Each is refused or ends only its own connection, with no traceback, and the
game is unharmed: the player's phone that joined stays joined and is heard."""

from __future__ import annotations

import logging
import socket
import ssl
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.phones.pages import joined, sound_socket
from voicemaster.phones.server import Phones
from voicemaster.screen.guard import PER_CLIENT
from voicemaster.speech.devices.phone import KEPT_SECONDS, MOST_MESSAGE_BYTES, PhoneLost
from voicemaster.speech.frame import FRAME_BYTES

NEIGHBOUR = "127.0.0.2"
"""The neighbour's device: another address than the player's phone (127.0.0.1)."""
SOUND = bytes(FRAME_BYTES)
RAMP = bytes(range(256)) * (FRAME_BYTES // 256)
"""A frame of sound no other message sends."""


@pytest.fixture
def phones(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> Iterator[Phones]:
    """The phones' server with Anna and Ben; what it logs is kept (the game prints nothing below critical: a
    traceback would be logged as an error first)."""
    with Phones(tmp_path, players=("Anna", "Ben"), port=0) as running:
        logging.getLogger("uvicorn.error").setLevel(logging.ERROR)
        caplog.set_level(logging.ERROR)
        yield running
    assert [record for record in caplog.records if record.levelno >= logging.ERROR] == []  # no traceback


def _heard(phones: Phones, player: str, wire: object) -> bool:
    """Whether `player`'s phone is joined and the game hears what it sends now."""
    microphone = joined(phones, player)
    wire.send(RAMP)  # type: ignore[attr-defined]
    try:
        return any(frame.samples == RAMP for frame in microphone.frames(before=KEPT_SECONDS))
    except PhoneLost:  # nothing more came
        return False


def _closed(stranger: object) -> bool:
    from websockets.exceptions import ConnectionClosed

    try:
        stranger.recv(timeout=10)  # type: ignore[attr-defined]
    except ConnectionClosed:
        return True
    return False


def test_a_page_of_another_site_is_refused_even_with_the_code(phones: Phones) -> None:
    from websockets.exceptions import InvalidStatus

    own = f"https://127.0.0.1:{phones.port}"
    with pytest.raises(InvalidStatus):
        sound_socket(phones.port, f"code={phones.code}&player=Anna", origin="https://evil.example")
    with pytest.raises(InvalidStatus):
        sound_socket(phones.port, f"code={phones.code}&new=1", origin=f"http://127.0.0.1:{phones.port}")
    assert phones.joined() == ()
    with sound_socket(phones.port, f"code={phones.code}&player=Anna", origin=own) as anna:
        assert _heard(phones, "Anna", anna)  # the join page itself is let in


@pytest.mark.parametrize(
    "sent",
    [
        pytest.param("Hallo", id="words"),
        pytest.param(bytes(MOST_MESSAGE_BYTES + 2), id="a message longer than two seconds"),
        pytest.param(bytes(3), id="a half sample"),
    ],
)
def test_what_is_not_a_phones_sound_ends_only_its_own_connection(phones: Phones, sent: str | bytes) -> None:
    with sound_socket(phones.port, f"code={phones.code}&player=Anna") as anna:
        assert _heard(phones, "Anna", anna)
        with sound_socket(phones.port, f"code={phones.code}&player=Ben", source=NEIGHBOUR) as ben:
            ben.send(SOUND)
            ben.send(sent)
            assert _closed(ben)
        assert phones.microphone("Ben") is None
        assert _heard(phones, "Anna", anna)  # the game unharmed


def test_a_crowd_of_connections_from_one_device_leaves_the_game_to_the_players_phone(phones: Phones) -> None:
    unverified = ssl.create_default_context()
    unverified.check_hostname = False
    unverified.verify_mode = ssl.CERT_NONE
    with sound_socket(phones.port, f"code={phones.code}&player=Anna") as anna, ExitStack() as held:
        for _ in range(3 * PER_CLIENT):  # half-open: no TLS handshake, then whole connections never asking
            held.enter_context(socket.create_connection(("127.0.0.1", phones.port), source_address=(NEIGHBOUR, 0)))
            wire = socket.create_connection(("127.0.0.1", phones.port), timeout=10, source_address=(NEIGHBOUR, 0))
            try:
                held.enter_context(unverified.wrap_socket(wire, server_hostname="127.0.0.1"))
            except (OSError, ssl.SSLError):
                wire.close()  # refused: what one device may hold is held
        assert _heard(phones, "Anna", anna)
        with sound_socket(phones.port, f"code={phones.code}&player=Ben") as ben:  # another phone still joins
            assert _heard(phones, "Ben", ben)
