"""The screen's web server: Starlette on uvicorn, in a thread of its own, serving the page and its updates.

Why this stack (README, "The screen"): Starlette and uvicorn are small, typed, long-maintained ASGI parts with no
build step; server-sent events carry the board one way, server to page, which is all a read-only page needs (no
socket protocol a page could send on, no extra dependency: an EventSource in the browser reconnects by itself).
The server has only GET routes; it reads the feed, never the game.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, MutableMapping
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
from starlette.types import ASGIApp, Receive, Scope, Send

from voicemaster.host.screen_address import ScreenAddress
from voicemaster.screen import DEFAULT_PORT, LOOPBACK, ScreenUnavailable
from voicemaster.screen.feed import ScreenFeed

STATIC = Path(__file__).parent / "static"
POLL_SECONDS = 0.1
"""How often an open page's stream looks for a new board: the game never waits for it, and a tenth of a second is
below what a reader notices."""
KEEP_ALIVE_SECONDS = 15.0
STARTUP_SECONDS = 10.0
HEADERS = {
    # Nothing from elsewhere, nothing inline: the page is ours alone, and cannot be framed into another.
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def app(feed: ScreenFeed) -> ASGIApp:
    async def page(_request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def board(_request: Request) -> Response:
        return Response(feed.view_json(), media_type="application/json")

    async def events(_request: Request) -> Response:
        return StreamingResponse(_stream(feed), media_type="text/event-stream")

    routes = [
        Route("/", page),
        Route("/board", board),
        Route("/events", events),
        Mount("/static", StaticFiles(directory=STATIC)),
    ]
    return _Headers(Starlette(routes=routes))


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
class _Headers:
    inner: ASGIApp

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", []),
                    *((name.lower().encode(), value.encode()) for name, value in HEADERS.items()),
                ]
            await send(message)

        await self.inner(scope, receive, with_headers)


@dataclass
class Screen:
    """The server running in a daemon thread: `start()` returns once it listens, `stop()` ends it."""

    feed: ScreenFeed
    host: str = LOOPBACK
    port: int = DEFAULT_PORT
    _server: uvicorn.Server | None = None
    _thread: threading.Thread | None = None

    def start(self) -> Screen:
        config = uvicorn.Config(
            app(self.feed),
            host=self.host,
            port=self.port,
            log_level="critical",
            access_log=False,
            lifespan="off",
            limit_concurrency=64,
            timeout_graceful_shutdown=1,
            server_header=False,
        )
        self._server = server = uvicorn.Server(config)

        def run() -> None:
            with suppress(SystemExit):  # uvicorn exits when it cannot listen: start() says so, in the game's thread
                server.run()

        self._thread = threading.Thread(target=run, name="voicemaster-screen", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + STARTUP_SECONDS
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise ScreenUnavailable(
                    f"the screen cannot listen on {self.host}:{self.port} (is the port taken? choose another with "
                    "--port N, or --port 0 for any free one)"
                )
            time.sleep(0.02)
        sockets = [sock for listener in server.servers for sock in (listener.sockets or ())]
        if sockets:
            self.port = int(sockets[0].getsockname()[1])
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
        return f"http://{self.address()}:{self.port}/"

    def address(self) -> str:
        """Where another device reaches the page: the loopback address, or this machine's on the local network."""
        if self.host not in ("0.0.0.0", "::", ""):
            return self.host
        return local_address()

    def spoken_address(self) -> ScreenAddress:
        """The address for the quizmaster to say when a player asks for it."""
        return ScreenAddress(self.address(), self.port, local_network=self.host not in (LOOPBACK, "localhost"))


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
