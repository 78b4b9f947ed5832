"""The screen's web server: Starlette on uvicorn, in a thread of its own, serving the page and its updates.

Why this stack (README, "The screen"): Starlette and uvicorn are small, typed, long-maintained ASGI parts with no
build step; server-sent events carry the board one way, server to page, which is all a read-only page needs (no
socket protocol a page could send on, no extra dependency: an EventSource in the browser reconnects by itself).
The server has only GET routes; it reads the feed, never the game. It binds its socket itself, so that an unknown
host, an address of another machine, a taken port are each said as what they are; on the local network it is
guarded against its neighbours (`guard.py`): connections per device and in all, idle ones closed, `Host` checked.
"""

from __future__ import annotations

import asyncio
import errno
import io
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from voicemaster.host.screen_address import ScreenAddress
from voicemaster.screen import DEFAULT_PORT, LOOPBACK, ScreenUnavailable, is_loopback
from voicemaster.screen.feed import ScreenFeed
from voicemaster.screen.guard import IDLE_SECONDS, Guarded, Hosts, SecurityHeaders

STATIC = Path(__file__).parent / "static"
POLL_SECONDS = 0.1
"""How often an open page's stream looks for a new board: the game never waits for it, and a tenth of a second is
below what a reader notices."""
KEEP_ALIVE_SECONDS = 15.0
STARTUP_SECONDS = 10.0
TOTAL_CONNECTIONS = 64
"""Connections at once, all devices together (uvicorn's `limit_concurrency`: past it, 503): eight devices holding
all they may (`guard.PER_CLIENT`), far more than a living room opens."""
WILDCARDS = ("0.0.0.0", "::", "")
HEADERS = {
    # Nothing from elsewhere, nothing inline: the page is ours alone, and cannot be framed into another.
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def app(
    feed: ScreenFeed,
    hosts: Iterable[str] = ("127.0.0.1",),
    phones_url: Callable[[], str | None] = lambda: None,
    own_url: Callable[[], str | None] = lambda: None,
) -> ASGIApp:
    """The page, its board and its stream, answered only to requests whose `Host` is one of `hosts` or a loopback
    name (`guard.Hosts`); the phones' QR code (`phones_url`), to this computer's own browser only; and the QR code
    of the page's own address (`own_url`), to anyone who can open the page already."""

    async def page(_request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def board(_request: Request) -> Response:
        return Response(feed.view_json(), media_type="application/json")

    async def phones(request: Request) -> Response:
        url = phones_url()
        if url is None or request.client is None or not is_loopback(request.client.host):
            return Response(status_code=404)
        return qr_code(url)

    async def address(_request: Request) -> Response:
        url = own_url()
        return Response(status_code=404) if url is None else qr_code(url)

    async def events(_request: Request) -> Response:
        return StreamingResponse(_stream(feed), media_type="text/event-stream")

    routes = [
        Route("/", page),
        Route("/board", board),
        Route("/events", events),
        Route("/phones.svg", phones),
        Route("/address.svg", address),
        Mount("/static", StaticFiles(directory=STATIC)),
    ]
    return SecurityHeaders(Hosts.of(Starlette(routes=routes), hosts), HEADERS)


def qr_code(url: str) -> Response:
    """`url` as a QR code (segno's SVG, black on white at any theme: a phone's camera reads it best so)."""
    import segno

    drawn = io.BytesIO()
    segno.make(url, error="m").save(drawn, kind="svg", scale=8, border=2, dark="#000", light="#fff")
    return Response(drawn.getvalue(), media_type="image/svg+xml")


async def _stream(feed: ScreenFeed) -> AsyncIterator[str]:
    """The board at once, then each time it changes; a comment now and then keeps proxies from closing it."""
    seen = -1
    quiet = 0.0
    while True:
        feed.fold()
        if feed.version != seen:
            seen = feed.version
            quiet = 0.0
            yield f"event: board\ndata: {feed.view_json()}\n\n"
        elif quiet >= KEEP_ALIVE_SECONDS:
            quiet = 0.0
            yield ": still here\n\n"
        await asyncio.sleep(POLL_SECONDS)
        quiet += POLL_SECONDS


@dataclass
class Screen:
    """The server running in a daemon thread: `start()` returns once it listens (or raises ScreenUnavailable, saying
    why in one line), `stop()` ends it. `idle_seconds`: how long a connection may wait without a request."""

    feed: ScreenFeed
    host: str = LOOPBACK
    port: int = DEFAULT_PORT
    idle_seconds: int = IDLE_SECONDS
    phones_url: str | None = None
    """Where the players' phones join, with the game's code (`voicemaster.phones`): its QR code is shown on this
    computer's own screen only, never to a page opened from elsewhere on the network, which could then join."""
    shows_address: bool = False
    """The page shows a QR code of its own address (`url`, the one announced) while no game is under way, so that a
    guest's phone opens it to follow along (serve's waiting page); only when the screen listens on the network: on
    loopback nobody else could open it."""
    _server: uvicorn.Server | None = None
    _thread: threading.Thread | None = None
    _announced: str | None = None

    def start(self) -> Screen:
        listening = bound(self.host, self.port)
        self.port = int(listening.getsockname()[1])
        self._announced = self.address()
        served = app(self.feed, (self.host, self._announced), lambda: self.phones_url, self._own_url)
        config = guarded_config(served, self.host, self.port, TOTAL_CONNECTIONS, self.idle_seconds, ws="none")
        started = serve(config, listening, "voicemaster-screen")
        if started is None:
            raise ScreenUnavailable(f"the screen could not start on {self._where()}")
        self._server, self._thread = started
        return self

    def stop(self) -> None:
        """Let open pages take the last board, then stop listening."""
        if self._server is None or self._thread is None:
            return
        self.feed.fold()
        time.sleep(3 * POLL_SECONDS)
        self._server.should_exit = True
        self._thread.join(timeout=5)

    def __enter__(self) -> Screen:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The page's address as a browser takes it (an IPv6 address in brackets)."""
        return f"http://{bracketed(self._announced or self.address())}:{self.port}/"

    def address(self) -> str:
        """Where another device reaches the page: the loopback address, or this machine's on the local network."""
        if self.host not in WILDCARDS:
            return self.host
        return local_address()

    def spoken_address(self) -> ScreenAddress:
        """The address for the quizmaster to say when a player asks for it."""
        return ScreenAddress(self._announced or self.address(), self.port, local_network=not is_loopback(self.host))

    def _own_url(self) -> str | None:
        on_the_network = not is_loopback(self.host) and not is_loopback(self._announced or self.address())
        return self.url if self.shows_address and on_the_network else None

    def _where(self) -> str:
        return f"{bracketed(self.host)}:{self.port}"


def guarded_config(
    served: ASGIApp, host: str, port: int, connections: int, idle_seconds: int, **more: Any
) -> uvicorn.Config:
    """uvicorn's settings for a page on the room's network (the screen's, the phones'): `guard.Guarded` connections,
    at most `connections` at once, closed after `idle_seconds` without a request; no proxy stands before it, so the
    address a connection comes from is the device's; quiet. `more`: the server's own (TLS, WebSockets)."""
    return uvicorn.Config(
        served,
        host=host,
        port=port,
        http=Guarded,
        proxy_headers=False,
        log_level="critical",
        access_log=False,
        lifespan="off",
        limit_concurrency=connections,
        timeout_keep_alive=idle_seconds,
        timeout_graceful_shutdown=1,
        server_header=False,
        **more,
    )


class LettingGo(uvicorn.Server):
    """uvicorn's server, which lets go of every connection when it stops. uvicorn asks each to close and waits
    `timeout_graceful_shutdown`; a connection whose close waits on its device (a TLS close a neighbour never
    answers, an answer a page never reads) is then cut off, so that a stopped server holds no socket open: the
    process keeps no descriptor of it, and nothing is left for the garbage collector to close (and warn about)."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await super().shutdown(sockets)
        for connection in list(self.server_state.connections):
            connection.transport.abort()
        await asyncio.sleep(0)  # a cut connection's socket is closed on the loop's next turn


def serve(
    config: uvicorn.Config, listening: socket.socket, name: str
) -> tuple[uvicorn.Server, threading.Thread] | None:
    """uvicorn serving `listening` in a daemon thread called `name`, once it has started; None (the socket closed)
    when it could not start: uvicorn exits then, and the caller says so in the game's thread."""
    server = LettingGo(config)

    def run() -> None:
        with suppress(SystemExit):
            server.run(sockets=[listening])

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_SECONDS
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            listening.close()
            return None
        time.sleep(0.02)
    return server, thread


def bound(host: str, port: int, what: str = "the screen", flag: str = "--port") -> socket.socket:
    """A socket bound to `host` and `port` (not yet listening); or ScreenUnavailable naming what is wrong: a port
    out of range or taken, a name nothing answers to, an address of another machine. `what` is said to be unable to
    listen, and `flag` chooses another port."""
    where = f"{bracketed(host)}:{port}"
    if not 0 <= port <= 65535:
        raise ScreenUnavailable(f"{what} cannot listen on port {port}: a port is 0 to 65535 (0: any free one)")
    try:
        found = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError):
        raise ScreenUnavailable(
            f"{what} cannot listen on {_short(host)!r}: no such host here (--screen-host takes an address or "
            "name of this computer: 127.0.0.1 for this computer only, 0.0.0.0 for the local network)"
        ) from None
    family, kind, proto, _name, address = found[0]
    listening = socket.socket(family, kind, proto)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind(address)
    except OSError as error:
        listening.close()
        raise ScreenUnavailable(f"{what} cannot listen on {where} ({_why(error, flag)})") from None
    return listening


def _why(error: OSError, flag: str = "--port") -> str:
    if error.errno == errno.EADDRINUSE:
        return f"is the port taken? choose another with {flag} N, or {flag} 0 for any free one"
    if error.errno == errno.EADDRNOTAVAIL:
        return "that is not an address of this computer; 0.0.0.0 listens on all of its addresses"
    if error.errno == errno.EACCES:
        return f"a port below 1024 needs administrator rights: choose another with {flag} N"
    return str(error.strerror or error)


def _short(text: str, most: int = 60) -> str:
    return text if len(text) <= most else f"{text[:most]}… ({len(text)} characters)"


def bracketed(host: str) -> str:
    """An IPv6 address in brackets, as a URL writes it; any other host as it is."""
    return f"[{host}]" if ":" in host else host


def local_address() -> str:
    """This machine's address on the local network, as a phone in the room would use it."""
    try:
        found = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        found = []
    for *_, (address, *_rest) in found:
        if not str(address).startswith("127."):
            return str(address)
    # The interface the default route leaves by: a UDP socket's connect only looks the route up, it sends nothing.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            return str(probe.getsockname()[0])
        except OSError:
            return LOOPBACK
