"""The phones' server stops cleanly at the end of a game: a phone whose page has said goodbye (its Close answered)
but whose connection has not gone yet (its TLS close still under way, as on a loaded machine or a slow Wi-Fi) raises
nothing in the server's thread, which would print a traceback on the terminal as the game ends."""

from __future__ import annotations

import base64
import os
import socket
import ssl
import struct
import threading
from pathlib import Path

import pytest

from voicemaster.phones.server import Phones

WAITED_SECONDS = 10.0
"""How long an answer may take on a loaded machine: a guard against a hang, not a measurement."""
CLOSE = 0x88
"""A WebSocket Close frame, final (RFC 6455 5.5.1)."""


def _said_goodbye(phones: Phones) -> ssl.SSLSocket:
    """A phone's connection that joined as Anna, sent its Close and read the server's answer, and keeps its end of
    the connection open (it never answers the server's TLS close)."""
    unverified = ssl.create_default_context()
    unverified.check_hostname = False
    unverified.verify_mode = ssl.CERT_NONE
    raw = socket.create_connection(("127.0.0.1", phones.port), timeout=WAITED_SECONDS)
    phone = unverified.wrap_socket(raw, server_hostname="127.0.0.1")
    try:
        _say_goodbye(phone, phones)
    except BaseException:
        phone.close()
        raise
    return phone


def _say_goodbye(phone: ssl.SSLSocket, phones: Phones) -> None:
    """Joins as Anna on `phone` and sends a Close, returning once the server's Close is read."""
    key = base64.b64encode(os.urandom(16)).decode()
    phone.sendall(
        f"GET /sound?code={phones.code}&player=Anna HTTP/1.1\r\nHost: 127.0.0.1:{phones.port}\r\n"
        f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += phone.recv(4096)
    assert answer.startswith(b"HTTP/1.1 101"), answer
    # A client's frames are masked; a zero mask leaves the code (1000: normal) as it is.
    phone.sendall(bytes([CLOSE, 0x80 | 2]) + bytes(4) + struct.pack("!H", 1000))
    reply = answer.partition(b"\r\n\r\n")[2]
    while len(reply) < 2:
        reply += phone.recv(4096)
    assert reply[0] == CLOSE, reply  # the server answered the goodbye


def test_the_server_stops_with_no_traceback_while_a_phone_that_said_goodbye_is_still_connected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raised: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda died: raised.append(f"{died.thread}: {died.exc_value!r}"))
    phones = Phones(tmp_path, port=0, players=("Anna",)).start()
    phone = _said_goodbye(phones)
    try:
        phones.stop()
        assert raised == []
        with pytest.raises(ConnectionRefusedError):  # it no longer listens
            socket.create_connection(("127.0.0.1", phones.port), timeout=WAITED_SECONDS).close()
    finally:
        phone.close()
