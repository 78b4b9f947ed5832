"""`bench faults`, the screen among neighbours: a real screen server on loopback faulted as a device on the Wi-Fi
would, the phones' server flooded with connections that never begin TLS, and hostile `--screen-host` and `--port`
values through `voicemaster play`.

The TV (or a player's phone) is a client at 127.0.0.1, the neighbour at 127.0.0.2 (all of 127.0.0.0/8 is this
machine). Each fault is an outcome: what was done, whether the page still answered the TV (the phones' server: the
join page a phone; or the refusal was the right one), and whether
anything raised where it should not (a 500, an exception logged by the server or by asyncio, a traceback or "this
is a bug" from the command). Figures, never pass/fail; other tools read `tracebacks` and `tv_blanked`.
"""

from __future__ import annotations

import logging
import os
import selectors
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from voicemaster.phones.server import Phones
from voicemaster.screen.feed import ScreenFeed
from voicemaster.screen.guard import PER_CLIENT, REFUSED
from voicemaster.screen.server import TOTAL_CONNECTIONS, Screen

TV, NEIGHBOUR = "127.0.0.1", "127.0.0.2"
CROWD = TOTAL_CONNECTIONS + 16
GUARD = 30.0
"""Seconds any one wait may take at most: a server that takes longer is hung."""
COMMAND_SECONDS = 60
HOSTS = (
    "evil.example",
    "evil.example:8765",
    "192.0.2.66",
    "localhost.evil.example",
    "",
    "a" * 3000,
    "[::ffff:c000:242]",
)
"""Host headers a page elsewhere could send (DNS rebinding names, an address of another machine, none, a long one)."""
GARBAGE = (
    b"\x00" * 512 + b"\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + b"a" * 100_000 + b"\r\n\r\n",
    b"GET /" + b"%" * 5000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"POST /board HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999\r\n\r\nabc",
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
    b"GET / HTTP/1.0\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 50,
    b"CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"GET /../../../../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
)
"""Requests no browser sends: bytes that are no HTTP, a huge header, a huge path, a body announced and not sent, a
WebSocket upgrade, HTTP/1.0 without a Host, fifty pipelined, CONNECT, a path out of the static folder."""
COMMAND_VALUES = (
    ("--screen-host", "nosuch.invalid"),
    ("--screen-host", "192.0.2.1"),
    ("--screen-host", "300.1.1.1"),
    ("--screen-host", "a" * 300),
    ("--screen-host", "::1%nosuch"),
    ("--port", "70000"),
    ("--port", "-1"),
    ("--port", "99999999999999999999"),
    ("--port", "http"),
)
"""Values of `play --screen` that cannot be listened on: each must be one line, exit 2, nothing started."""
HALF_A_HELLO = bytes.fromhex("160301020001") + bytes(20)
"""The start of a TLS ClientHello: its record header and the first bytes of its message, never the rest."""


@dataclass
class Outcome:
    fault: str
    expected: str
    tv_answered: bool | None
    """Whether the page answered the TV (the join page a player's phone) during or after the fault (None: no page to
    ask, a command's fault)."""
    right: bool
    """The fault was met as it should be: refused as said, closed, or answered."""
    traceback: bool
    detail: str = ""


class _Raised(logging.Handler):
    """Every record logged with an exception by the server or by asyncio while the drills run."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(f"{record.name}: {record.getMessage()}")


def run() -> dict[str, Any]:
    started = time.perf_counter()
    raised = _Raised()
    with _listening(raised):
        outcomes = [drill(raised) for drill in DRILLS]
    with tempfile.TemporaryDirectory(prefix="vm-network-") as home, ThreadPoolExecutor(max_workers=4) as commands:
        # Processes of their own, in folders of their own, sharing the cache (the bank is checked once).
        outcomes += commands.map(lambda value: _command(value[0], value[1], home), COMMAND_VALUES)
    return {
        "outcomes": [asdict(outcome) for outcome in outcomes],
        "faults": len(outcomes),
        "right": sum(outcome.right for outcome in outcomes),
        "tv_blanked": sum(outcome.tv_answered is False for outcome in outcomes),
        "tracebacks": sum(outcome.traceback for outcome in outcomes),
        "per_client": PER_CLIENT,
        "total_connections": TOTAL_CONNECTIONS,
        "seconds": round(time.perf_counter() - started, 1),
    }


@contextmanager
def _listening(raised: _Raised) -> Iterator[None]:
    """The server's own exceptions reach `raised` (uvicorn logs them at ERROR, which the screen leaves unsaid)."""
    loggers = [logging.getLogger(name) for name in ("uvicorn.error", "asyncio")]
    before = [(logger.level, logger.propagate) for logger in loggers]
    for logger in loggers:
        logger.addHandler(raised)
        logger.propagate = False
    try:
        yield
    finally:
        for logger, (level, propagate) in zip(loggers, before, strict=True):
            logger.removeHandler(raised)
            logger.setLevel(level)
            logger.propagate = propagate


@contextmanager
def _screen(idle_seconds: int = 600) -> Iterator[Screen]:
    with Screen(ScreenFeed("de", {}, live=False), port=0, idle_seconds=idle_seconds) as running:
        logging.getLogger("uvicorn.error").setLevel(logging.ERROR)  # uvicorn set it when it started
        yield running


def _connect(port: int, source: str = TV) -> socket.socket:
    sock = socket.socket()
    sock.settimeout(GUARD)
    if source != TV:
        sock.bind((source, 0))
    sock.connect((TV, port))
    return sock


def _exchange(port: int, data: bytes, source: str = TV) -> bytes:
    """Sends `data` and reads until the server closes (or a guard's worth of silence: then nothing)."""
    with _connect(port, source) as sock:
        try:
            sock.sendall(data)
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        except (ConnectionResetError, BrokenPipeError, TimeoutError):
            return b""
    return answer


def _get(port: int, path: str, host: str | None = None) -> tuple[int, bytes]:
    host = f"{TV}:{port}" if host is None else host
    answer = _exchange(port, f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    return _status(answer), answer


def _status(answer: bytes) -> int:
    try:
        return int(answer.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0


def _tv_answered(port: int) -> bool:
    return _get(port, "/")[0] == 200 and _get(port, "/board")[0] == 200


def _streams(socks: list[socket.socket]) -> tuple[int, int]:
    """Reads each stream until its first board came or the server closed it: (how many had it, how many closed)."""
    read = dict.fromkeys(socks, b"")
    served = closed = 0
    with selectors.DefaultSelector() as selector:
        for sock in socks:
            selector.register(sock, selectors.EVENT_READ)
        while served + closed < len(socks) and (ready := selector.select(timeout=GUARD)):
            for key, _ in ready:
                sock = _socket(key.fileobj)
                try:
                    chunk = sock.recv(65536)
                except ConnectionResetError:
                    chunk = b""
                read[sock] += chunk
                if not chunk or b"event: board" in read[sock]:
                    selector.unregister(sock)
                    served += b"event: board" in read[sock]
                    closed += b"event: board" not in read[sock]
    return served, closed


def _closed(socks: list[socket.socket], expected: int) -> int:
    """Waits until `expected` of `socks`, which send and are sent nothing, are closed by the server (or a guard's
    worth of nothing): how many were."""
    closed = 0
    with selectors.DefaultSelector() as selector:
        for sock in socks:
            selector.register(sock, selectors.EVENT_READ)
        while closed < expected and (ready := selector.select(timeout=GUARD)):
            for key, _ in ready:
                selector.unregister(key.fileobj)
                closed += 1
    return closed


def _socket(registered: object) -> socket.socket:
    assert isinstance(registered, socket.socket)
    return registered


def _idle_crowd(raised: _Raised) -> Outcome:
    with _screen() as running, ExitStack() as held:
        crowd = [held.enter_context(_connect(running.port, NEIGHBOUR)) for _ in range(CROWD)]
        closed = _closed(crowd, CROWD - PER_CLIENT)
        answered = _tv_answered(running.port)
    return _outcome(
        f"{CROWD} idle connections from one neighbour",
        f"all but {PER_CLIENT} closed; the TV answered",
        answered,
        closed == CROWD - PER_CLIENT,
        raised,
        f"{closed} closed",
    )


def _stream_crowd(raised: _Raised) -> Outcome:
    with _screen() as running, ExitStack() as held:
        crowd = [held.enter_context(_connect(running.port, NEIGHBOUR)) for _ in range(CROWD)]
        for sock in crowd:
            sock.sendall(f"GET /events HTTP/1.1\r\nHost: {TV}:{running.port}\r\n\r\n".encode())
        served, closed = _streams(crowd)
        answered = _tv_answered(running.port)
    return _outcome(
        f"{CROWD} open /events streams from one neighbour",
        f"{PER_CLIENT} served, the rest closed; the TV answered",
        answered,
        (served, closed) == (PER_CLIENT, CROWD - PER_CLIENT),
        raised,
        f"{served} served, {closed} closed",
    )


def _half_sent(raised: _Raised) -> Outcome:
    with _screen(idle_seconds=1) as running, ExitStack() as held:
        crowd = [held.enter_context(_connect(running.port, NEIGHBOUR)) for _ in range(PER_CLIENT)]
        for sock in crowd:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0")  # and never the rest, as slowloris sends it
        closed = _closed(crowd, PER_CLIENT)
        answered = _tv_answered(running.port)
    return _outcome(
        f"{PER_CLIENT} requests sent half (idle time 1 s)",
        "all closed; the TV answered",
        answered,
        closed == PER_CLIENT,
        raised,
        f"{closed} closed",
    )


def _wrong_hosts(raised: _Raised) -> Outcome:
    refused, echoed = 0, []
    with _screen() as running:
        for host in HOSTS:
            for path in ("/", "/board", "/events", "/static"):
                status, answer = _get(running.port, path, host)
                refused += status == 400 and answer.endswith(REFUSED.encode())
                if host and host.encode() in answer:
                    echoed.append(host[:20])
        answered = _tv_answered(running.port)
    total = 4 * len(HOSTS)
    return _outcome(
        f"{total} requests naming another host (DNS rebinding)",
        "all refused (400), nothing of the Host sent back; the TV answered",
        answered,
        refused == total and not echoed,
        raised,
        f"{refused} refused, {len(echoed)} echoed",
    )


def _garbage(raised: _Raised) -> Outcome:
    statuses = []
    with _screen(idle_seconds=1) as running:  # a request left hanging is closed soon
        for data in GARBAGE:
            statuses.append(_status(_exchange(running.port, data, NEIGHBOUR)))
        answered = _tv_answered(running.port)
    errors = [status for status in statuses if status >= 500]
    return _outcome(
        f"{len(GARBAGE)} requests no browser sends",
        "each refused or answered, none with a server error; the TV answered",
        answered,
        not errors,
        raised,
        "statuses " + ",".join(map(str, statuses)),
    )


def _half_open_phones(raised: _Raised) -> Outcome:
    """The phones' server (handshake time 1 s) and `CROWD` connections from one neighbour that never end a TLS handshake
    (half send nothing, half half a ClientHello): the server holds a device's share and lets even those go."""
    with (
        tempfile.TemporaryDirectory(prefix="vm-phones-") as folder,
        ExitStack() as held,
        Phones(Path(folder), players=("Anna",), port=0, handshake_seconds=1) as running,
    ):
        logging.getLogger("uvicorn.error").setLevel(logging.ERROR)  # uvicorn set it when it started
        crowd = [held.enter_context(_connect(running.port, NEIGHBOUR)) for _ in range(CROWD)]
        for sock in crowd[1::2]:
            with suppress(OSError):  # closed already
                sock.sendall(HALF_A_HELLO)
        answered = _join_page(running.port) == 200
        closed = _closed(crowd, CROWD)
    return _outcome(
        f"{CROWD} half-open TLS connections to the phones' page",
        f"all but {PER_CLIENT} closed at once, those after the handshake time; the join page answered",
        answered,
        closed == CROWD,
        raised,
        f"{closed} closed",
    )


def _join_page(port: int) -> int:
    """The join page's status as a phone at `TV` gets it over TLS (0: no answer)."""
    unverified = ssl.create_default_context()
    unverified.check_hostname = False
    unverified.verify_mode = ssl.CERT_NONE
    try:
        with _connect(port) as sock, unverified.wrap_socket(sock, server_hostname=TV) as page:
            page.sendall(f"GET / HTTP/1.1\r\nHost: {TV}:{port}\r\nConnection: close\r\n\r\n".encode())
            return _status(page.recv(4096))
    except OSError:
        return 0


def _outcome(fault: str, expected: str, answered: bool, right: bool, raised: _Raised, detail: str) -> Outcome:
    logged, raised.records = raised.records, []
    return Outcome(fault, expected, answered, right and answered and not logged, bool(logged), detail + _said(logged))


def _said(logged: list[str]) -> str:
    return f"; logged: {logged[0][:200]}" if logged else ""


def _command(flag: str, value: str, home: str) -> Outcome:
    """`voicemaster play --screen` with one value it cannot listen on, with the user's folders in `home`."""
    own = tempfile.mkdtemp(dir=home)  # its store and settings; the cache is shared
    env = {**os.environ, "XDG_CACHE_HOME": f"{home}/cache", "XDG_DATA_HOME": own, "XDG_CONFIG_HOME": own}
    argv = ["play", "--screen", flag, value, "--players", "Anna", "--engine", "whisper"]
    try:
        done = subprocess.run(
            [sys.executable, "-m", "voicemaster", *argv],
            capture_output=True,
            text=True,
            env=env,
            timeout=COMMAND_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Outcome(f"play {flag} {value[:24]}", "one line, exit 2", None, False, False, "hung")
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    traceback = "Traceback" in done.stderr or "this is a bug" in done.stderr
    # One line of ours, or argparse's usage and its one line of error.
    one_line = len(lines) == 1 or (bool(lines) and lines[0].startswith("usage:") and "error:" in lines[-1])
    right = done.returncode == 2 and one_line and not traceback
    return Outcome(f"play {flag} {value[:24]}", "one line, exit 2", None, right, traceback, (lines or [""])[-1][:160])


DRILLS: tuple[Callable[[_Raised], Outcome], ...] = (
    _idle_crowd,
    _stream_crowd,
    _half_sent,
    _wrong_hosts,
    _garbage,
    _half_open_phones,
)


def report(figures: dict[str, Any]) -> list[str]:
    """The lines of the network drill's figures."""
    lines = [
        f"screen on the network ({figures['per_client']} connections a device, {figures['total_connections']} in "
        f"all): {figures['right']}/{figures['faults']} faults met as they should be, {figures['tv_blanked']} left "
        f"the TV without its page, {figures['tracebacks']} tracebacks"
    ]
    for outcome in figures["outcomes"]:
        tv = {None: "", True: "; TV answered", False: "; TV NOT answered"}[outcome["tv_answered"]]
        state = "ok" if outcome["right"] else "WRONG"
        lines.append(f"  {outcome['fault'][:52]:52} {state}{tv}: {outcome['detail'][:110]}")
    return lines
