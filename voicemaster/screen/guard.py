"""The screen among neighbours: what keeps a device on the same network from blanking the TV or reading the board
from a page on the internet.

- `Guarded`, uvicorn's own HTTP/1.1 protocol with two additions: one address may hold `PER_CLIENT` connections at
  once (more are cut off as they open, owed nothing), and a connection that has sent no whole request within the
  idle time of opening or of its last answer is closed, even one that sent half a request. uvicorn's
  `limit_concurrency` (all connections at once) and `timeout_keep_alive` (the idle time) are the server's own
  settings (`server.py`); an open page's stream is a request being answered, never idle, and counts against its
  address only.
- `Hosts`, a check of the `Host` header: a request is answered only when it names this screen (a loopback name or
  address, the address the screen was told to listen on, the address it announced, or the address the connection
  came in on), so DNS rebinding (a name on the internet made to point at this machine) finds nothing; the refusal
  repeats nothing of what was sent. A WebSocket (the phones' sound, `voicemaster.phones`) is checked the same way.
- `SecurityHeaders`: every answer carries the page's security headers (its content policy above all).
The phones' server (`voicemaster.phones.server`) stands on the same three, and over TLS on `handshake.py` too: there
`Guarded` sees a connection only once its TLS handshake is done, so its connections are counted as they are accepted
as well, and a handshake not done within the idle time is cut off.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from voicemaster.screen import is_loopback, normal

PER_CLIENT = 8
"""Connections one address (an IPv6 device: its /64 network) may hold at once: a browser opens at most six to one
server, and a page needs two (its stream and a request)."""
IDLE_SECONDS = 10
"""How long a connection may go without a whole request (from its opening, or from its last answer) before it is
closed: a browser opens a new one when it needs it."""
REFUSED = "This is not the address of the screen."


def client_key(client: tuple[str, int] | None) -> str | None:
    """Whose connection it is: the address, an IPv4 one as itself however it came, an IPv6 one by its /64 network
    (a device on a home network picks new addresses in its /64 at will); None for no address (a Unix socket)."""
    if client is None:
        return None
    try:
        address = ipaddress.ip_address(client[0])
    except ValueError:
        return client[0]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class Guarded(H11Protocol):
    """One connection: refused at once if its address holds `per_client` others; closed when idle (see above)."""

    per_client: ClassVar[int] = PER_CLIENT
    key: str | None = None
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.key = client_key(self.client)
        if self.key is not None and self._held_by_this_client() > self.per_client:
            self.connections.discard(self)  # not counted against anyone while it closes
            transport.abort()  # at once: a TLS close would wait on the device, its socket held meanwhile
            return
        self._wait_for_a_request()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._wait_for_a_request()

    def handle_websocket_upgrade(self, event: Any) -> None:
        """A WebSocket is a conversation, not an idle connection: the idle deadline ends here."""
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        super().connection_lost(exc)

    def _held_by_this_client(self) -> int:
        return sum(1 for other in self.connections if getattr(other, "key", None) == self.key)

    def _wait_for_a_request(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(self.config.timeout_keep_alive, self._idle)

    def _idle(self) -> None:
        """No request is being answered: none came whole since the connection opened or its last answer."""
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()


@dataclass
class Hosts:
    """Answers a request only if its `Host` header names this screen (see the module's docstring); else 400."""

    inner: ASGIApp
    names: frozenset[str]

    @classmethod
    def of(cls, inner: ASGIApp, names: Iterable[str]) -> Hosts:
        return cls(inner, frozenset(normal(name) for name in names if name))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not self.ours(
            Headers(scope=scope).get("host"), scope.get("server")
        ):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            await PlainTextResponse(REFUSED, status_code=400)(scope, receive, send)
            return
        await self.inner(scope, receive, send)

    def ours(self, host: str | None, server: tuple[str, int | None] | None) -> bool:
        """Whether a request with this `Host`, come in on the local address `server`, is for the screen."""
        if not host:
            return False
        try:
            parts = urlsplit(f"//{host}")
            name, _port = parts.hostname, parts.port  # a port that is no number is refused like a wrong name
        except ValueError:
            return False
        if not name or parts.username is not None or parts.path or parts.query or parts.fragment:
            return False
        name = normal(name)
        arrived = normal(server[0]) if server else None
        return name in self.names or is_loopback(name) or name == arrived


@dataclass
class SecurityHeaders:
    """Adds `headers` to every answer of `inner`."""

    inner: ASGIApp
    headers: Mapping[str, str]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", []),
                    *((name.lower().encode(), value.encode()) for name, value in self.headers.items()),
                ]
            await send(message)

        await self.inner(scope, receive, with_headers)
