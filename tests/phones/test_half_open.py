"""Neighbours on the Wi-Fi flood the phones' page with connections that never finish their TLS handshake (issues 47,
50): the phones' server runs in a process of its own with the fewest descriptors a system gives (macOS: 256), as a
stranger would meet it. While one neighbour's flood is held a player's phone opens the join page and its sound;
while many neighbours' is held the game still writes its store (SQLite). Timeouts are guards against a hang, never
measurements."""

from __future__ import annotations

import resource
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, suppress

import pytest

from tests.phones.pages import sound_socket

NEIGHBOUR = "127.0.0.2"
NEIGHBOURS = tuple(f"127.0.0.{number}" for number in range(10, 50))
"""Forty devices (all of 127.0.0.0/8 is this machine)."""
DESCRIPTORS = 256
"""The server's process may open this many descriptors: macOS's default for a process."""
FLOOD = DESCRIPTORS + 44
"""The neighbour's half-open connections: more than the server's process could hold."""
HALF_A_HELLO = bytes.fromhex("160301020001") + bytes(20)
"""The start of a TLS ClientHello: its record header and the first bytes of its message, never the rest."""
GUARD = 30.0
"""Seconds an answer may take on a loaded machine: a guard against a hang (asyncio waited 60 s for a handshake)."""
SERVER = f"""
import resource, sqlite3, sys, tempfile
from contextlib import closing
from pathlib import Path
from voicemaster.phones.server import Phones

resource.setrlimit(resource.RLIMIT_NOFILE, ({DESCRIPTORS}, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
with tempfile.TemporaryDirectory() as folder, Phones(Path(folder), players=("Anna",), port=0) as phones:
    print(phones.port, phones.code, flush=True)
    for _line in sys.stdin:
        try:
            with closing(sqlite3.connect(Path(folder) / "store.sqlite")) as store, store:
                store.execute("CREATE TABLE IF NOT EXISTS kept (turn INTEGER)")
                store.execute("INSERT INTO kept VALUES (1)")
            print("kept", flush=True)
        except sqlite3.Error as error:
            print(error, flush=True)
"""
"""The phones' server with Anna, saying its port and code; for each line it reads, a turn written to a store (as a
game keeps its own), saying "kept" or why not; until its input ends."""


@pytest.fixture
def server() -> Iterator[tuple[int, str, subprocess.Popen[str]]]:
    """The server's port, its code and its process; what it printed on its error output is checked by the test."""
    pipe = subprocess.PIPE
    with subprocess.Popen([sys.executable, "-c", SERVER], stdin=pipe, stdout=pipe, stderr=pipe, text=True) as process:
        try:
            assert process.stdout is not None and process.stderr is not None
            said = process.stdout.readline().split()
            assert len(said) == 2, process.stderr.read()
            port, code = said
            yield int(port), code, process
        finally:
            if process.poll() is None:
                process.kill()


def _room_for(sockets: int) -> None:
    """This process may open `sockets` more descriptors (the flood's own ends): its soft limit raised if need be."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < 2 * sockets:
        resource.setrlimit(resource.RLIMIT_NOFILE, (2 * sockets if hard == resource.RLIM_INFINITY else hard, hard))


def _flood(port: int, held: ExitStack, neighbours: tuple[str, ...] = (NEIGHBOUR,)) -> None:
    """`FLOOD` connections from `neighbours` in turn, kept in `held`: half send nothing, half half a ClientHello."""
    for number in range(FLOOD):
        source = neighbours[number % len(neighbours)]
        wire = held.enter_context(
            socket.create_connection(("127.0.0.1", port), timeout=GUARD, source_address=(source, 0))
        )
        if number % 2:
            with suppress(OSError):  # closed already: the server let it go
                wire.sendall(HALF_A_HELLO)


def _join_page(port: int) -> bytes:
    """The join page as a phone asks for it: its HTTP status line, or nothing if the connection was cut."""
    unverified = ssl.create_default_context()
    unverified.check_hostname = False
    unverified.verify_mode = ssl.CERT_NONE
    with (
        socket.create_connection(("127.0.0.1", port), timeout=GUARD) as wire,
        unverified.wrap_socket(wire, server_hostname="127.0.0.1") as page,
    ):
        page.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        return page.recv(4096).split(b"\r\n", 1)[0]


def test_a_flood_of_half_open_connections_leaves_the_join_page_and_the_sound_to_the_players_phone(
    server: tuple[int, str, subprocess.Popen[str]],
) -> None:
    port, code, process = server
    _room_for(FLOOD)
    with ExitStack() as held:
        _flood(port, held)
        assert _join_page(port) == b"HTTP/1.1 200 OK"
        with sound_socket(port, f"code={code}&player=Anna") as anna:
            anna.send(bytes(640))  # a frame of silence: the game takes it
    _, printed = process.communicate(input="", timeout=GUARD)  # its input ends: it stops
    assert printed == ""  # the game said nothing of it: no traceback, no asyncio error


def test_a_flood_from_many_neighbours_leaves_the_game_its_files(server: tuple[int, str, subprocess.Popen[str]]) -> None:
    """More devices than one player's phone may hold together take all the server holds before TLS (a player's phone
    waits meanwhile), never the descriptors the game writes its store with; once they are gone the phone joins."""
    port, code, process = server
    assert process.stdin is not None and process.stdout is not None
    _room_for(FLOOD)
    with ExitStack() as held:
        _flood(port, held, NEIGHBOURS)
        process.stdin.write("a turn\n")
        process.stdin.flush()
        kept = process.stdout.readline().strip()
    assert kept == "kept"
    _joins(port, code)
    _, printed = process.communicate(input="", timeout=GUARD)
    assert printed == ""


def _joins(port: int, code: str) -> None:
    """Anna's phone joins, trying again as its page does while the server still lets go of connections just gone."""
    from websockets.exceptions import WebSocketException

    deadline = time.monotonic() + GUARD
    while True:
        try:
            with sound_socket(port, f"code={code}&player=Anna") as anna:
                anna.send(bytes(640))
            return
        except (OSError, WebSocketException):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
