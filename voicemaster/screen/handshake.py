"""Connections before their TLS handshake (the phones' page): what a neighbour's half-open connections may hold.

Over TLS, asyncio hands a connection to uvicorn's protocol (`guard.Guarded`, which counts connections per address
and in all) only once its handshake is done, and waits 60 s for a handshake by default: a device on the Wi-Fi that
opens connections and sends nothing (or half a ClientHello) was counted by no guard, and could hold every descriptor
the process may open (256 on macOS, 1024 on most Linux desktops), so that no phone could join and the game could
open no file. Two guards on maintained parts, no TLS step of our own:
- `Gated`, the listening socket: asyncio's selector loop takes each connection with its `accept`, which counts each
  address's open connections (an IPv6 device by its /64, `guard.client_key`) from that moment, before any TLS, and
  closes at once one past `per_client` from one address or past `most` in all;
- `HandshakeLoop`, asyncio's selector loop, which gives the server of a `Gated` socket its `handshake_seconds` as
  `ssl_handshake_timeout`: a connection whose handshake has not ended by then (the phones' server: the idle time) is
  closed, as one that sent no request would be. uvicorn takes it as its loop (`Config(loop=LOOP)`, an import
  string); naming it also keeps uvicorn off uvloop, whose own accept would pass `Gated` by.
The screen's page is plain HTTP: `Guarded` counts its connections as they are accepted, so it needs neither.
"""

from __future__ import annotations

import asyncio
import socket
import weakref
from typing import Any

from voicemaster.screen.guard import client_key

LOOP = "voicemaster.screen.handshake:HandshakeLoop"
"""`HandshakeLoop` as uvicorn's `loop` setting names it."""


class Gated(socket.socket):
    """A listening socket whose `accept` lets each address hold `per_client` open connections and all together
    `most`, closing any more at once (see the module's docstring); `handshake_seconds` is its server's TLS
    handshake time (`HandshakeLoop`)."""

    per_client: int
    most: int
    handshake_seconds: float
    _held: weakref.WeakKeyDictionary[socket.socket, str | None]

    @classmethod
    def of(cls, listening: socket.socket, per_client: int, most: int, handshake_seconds: float) -> Gated:
        """`listening` (bound, not yet listening) as a `Gated` socket; `listening` itself is let go."""
        gated = cls(listening.family, listening.type, listening.proto, fileno=listening.detach())
        gated.per_client, gated.most, gated.handshake_seconds = per_client, most, handshake_seconds
        gated._held = weakref.WeakKeyDictionary()
        return gated

    def accept(self) -> tuple[socket.socket, Any]:
        """The next connection one may hold; those past a limit are closed on the way. Raises BlockingIOError when
        none waits, as asyncio expects of a listening socket, and also after closing `most` in a row: a flood is
        not let hold up the loop's other connections (the socket is still ready, so asyncio comes back to it)."""
        for _ in range(self.most):
            connection, address = super().accept()
            key = client_key((address[0], address[1])) if isinstance(address, tuple) else None
            held = self._open()
            if len(held) < self.most and (key is None or held.count(key) < self.per_client):
                self._held[connection] = key
                return connection, address
            connection.close()
        raise BlockingIOError

    def _open(self) -> list[str | None]:
        """Whose each connection still open is (asyncio closes a connection's socket when it ends)."""
        for closed in [connection for connection in self._held if connection.fileno() == -1]:
            del self._held[closed]
        return list(self._held.values())


class HandshakeLoop(asyncio.SelectorEventLoop):
    """asyncio's selector loop; the TLS server of a `Gated` socket waits its `handshake_seconds` for a handshake."""

    async def create_server(self, *args: Any, **kwargs: Any) -> asyncio.Server:
        sock = kwargs.get("sock")
        if isinstance(sock, Gated) and kwargs.get("ssl") is not None:
            kwargs.setdefault("ssl_handshake_timeout", sock.handshake_seconds)
        return await super().create_server(*args, **kwargs)
