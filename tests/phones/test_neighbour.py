"""A neighbour on the room's Wi-Fi against the phones' server: a page of another site, words, a message too long, a
half sample, a crowd of connections. Each is refused or ends only its own connection, with no traceback, and the
game is unharmed: the player's phone that joined stays joined and is heard."""

from __future__ import annotations

import logging
import os
import socket
import ssl
import time
from collections.abc import Iterator
from contextlib import ExitStack, suppress
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
STOPPED_SECONDS = 30.0
"""How long a stopped server's thread may take to end on a loaded machine: a guard, not a measurement."""


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


def _crowd(port: int, held: ExitStack) -> None:
    """A neighbour's device opens three times what it may hold, each connection kept in `held`: half-open ones (no
    TLS handshake) and whole ones never asking anything."""
    unverified = ssl.create_default_context()
    unverified.check_hostname = False
    unverified.verify_mode = ssl.CERT_NONE
    for _ in range(3 * PER_CLIENT):
        held.enter_context(socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(NEIGHBOUR, 0)))
        wire = held.enter_context(
            socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(NEIGHBOUR, 0))
        )
        with suppress(OSError):  # refused: what one device may hold is held (`wire` is closed either way)
            held.enter_context(unverified.wrap_socket(wire, server_hostname="127.0.0.1"))


def _server_sockets(port: int) -> int:
    """How many sockets this process holds on the server's side of `port` (its local port): the listening one and
    each connection it took. Read from /proc: the server's own bookkeeping is what is being checked."""
    ours = {os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd") if _is_link(fd)}
    found = 0
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        for line in table.read_text().splitlines()[1:]:
            fields = line.split()
            local_port, inode = int(fields[1].rsplit(":", 1)[1], 16), fields[9]
            found += local_port == port and f"socket:[{inode}]" in ours
    return found


def _is_link(fd: str) -> bool:
    return os.path.islink(f"/proc/self/fd/{fd}")  # the directory's own descriptor may be gone already


def test_a_crowd_of_connections_from_one_device_leaves_the_game_to_the_players_phone(phones: Phones) -> None:
    with sound_socket(phones.port, f"code={phones.code}&player=Anna") as anna, ExitStack() as held:
        _crowd(phones.port, held)
        assert _heard(phones, "Anna", anna)
        with sound_socket(phones.port, f"code={phones.code}&player=Ben") as ben:  # another phone still joins
            assert _heard(phones, "Ben", ben)


def test_a_crowd_still_held_when_the_game_ends_leaves_the_server_no_socket_open(tmp_path: Path) -> None:
    """The neighbour's connections outlive the game: the server, stopped, still lets go of each (a TLS close it
    never answers, a handshake it never makes), so a game after it finds none of its descriptors taken."""
    with ExitStack() as held:
        with Phones(tmp_path, players=("Anna", "Ben"), port=0) as phones:
            _crowd(phones.port, held)
            assert _server_sockets(phones.port) > 0
        deadline = time.monotonic() + STOPPED_SECONDS
        while _server_sockets(phones.port) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _server_sockets(phones.port) == 0
