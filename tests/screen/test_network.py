"""The screen on the network, faulted as a neighbour on the Wi-Fi would: real sockets to a real server on loopback.

The TV is a client at 127.0.0.1; the neighbour connects from 127.0.0.2 (all of 127.0.0.0/8 is this machine), so the
server sees two devices. Timeouts here are guards against a hang, never measurements.
"""

from __future__ import annotations

import selectors
import socket
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import pytest
import segno

from voicemaster.cli.app import main
from voicemaster.cli.screen import notice
from voicemaster.screen import ScreenUnavailable
from voicemaster.screen.feed import ScreenFeed
from voicemaster.screen.guard import PER_CLIENT, REFUSED
from voicemaster.screen.server import TOTAL_CONNECTIONS, Screen
from voicemaster_lab.faults import network

TV = "127.0.0.1"
NEIGHBOUR = "127.0.0.2"
GUARD = 30.0
"""Seconds a test waits at most for what must come: only a hung server takes so long."""
CROWD = TOTAL_CONNECTIONS + 16
"""More connections than the server takes from all devices together: what blanked the page before."""


def feed() -> ScreenFeed:
    return ScreenFeed("de", {}, live=False)


@contextmanager
def screen(**settings: object) -> Iterator[Screen]:
    """A screen on loopback at a free port; a long idle time unless one is given, so only the limits are at work."""
    with Screen(feed(), port=0, **{"idle_seconds": 600, **settings}) as running:  # type: ignore[arg-type]
        yield running


def connect(port: int, source: str = TV, host: str = TV) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.settimeout(GUARD)
        if source != TV:
            sock.bind((source, 0))
        sock.connect((host, port))
    except BaseException:
        sock.close()  # refused or timed out: closed here, not left to the garbage collector
        raise
    return sock


def request(port: int, path: str = "/", host_header: str | None = None, *, to: str = TV) -> tuple[int, str, str]:
    """One GET as a browser at `to` sends it (`Host` as given, else the address and port): status, head, body."""
    with connect(port, host=to) as sock:
        host = host_header if host_header is not None else f"{'[' + to + ']' if ':' in to else to}:{port}"
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.decode("utf-8", "replace").partition("\r\n\r\n")
    return int(head.split()[1]), head, body


def answered_by_the_tv(port: int) -> None:
    status, _, page = request(port, "/")
    assert status == 200 and 'aria-live="polite"' in page
    status, _, board = request(port, "/board")
    assert status == 200 and '"language": "de"' in board


def closed_by_the_server(socks: list[socket.socket], expected: int) -> int:
    """Waits (at most GUARD) until `expected` of `socks` are closed by the server; how many were."""
    closed = 0
    with selectors.DefaultSelector() as selector:
        for sock in socks:
            selector.register(sock, selectors.EVENT_READ)
        while closed < expected and (ready := selector.select(timeout=GUARD)):
            for key, _ in ready:
                sock = _socket(key.fileobj)
                try:
                    data = sock.recv(65536)
                except ConnectionResetError:
                    data = b""
                if not data:
                    selector.unregister(sock)
                    closed += 1
    return closed


def _socket(registered: object) -> socket.socket:
    assert isinstance(registered, socket.socket)
    return registered


def test_a_neighbour_holding_many_idle_connections_leaves_the_page_to_the_tv() -> None:
    with screen() as running, ExitStack() as held:
        crowd = [held.enter_context(connect(running.port, NEIGHBOUR)) for _ in range(CROWD)]
        assert closed_by_the_server(crowd, CROWD - PER_CLIENT) == CROWD - PER_CLIENT
        answered_by_the_tv(running.port)


def test_a_neighbour_holding_many_open_streams_leaves_the_page_to_the_tv() -> None:
    with screen() as running, ExitStack() as held:
        crowd = [held.enter_context(connect(running.port, NEIGHBOUR)) for _ in range(CROWD)]
        for sock in crowd:
            sock.sendall(f"GET /events HTTP/1.1\r\nHost: {TV}:{running.port}\r\n\r\n".encode())
        served, closed = streams(crowd)
        assert (served, closed) == (PER_CLIENT, CROWD - PER_CLIENT)  # what one device may hold, and it is served
        answered_by_the_tv(running.port)
        with connect(running.port) as tv:
            tv.sendall(f"GET /events HTTP/1.1\r\nHost: {TV}:{running.port}\r\n\r\n".encode())
            assert streams([tv]) == (1, 0)


def streams(socks: list[socket.socket], text: bytes = b"event: board") -> tuple[int, int]:
    """Reads each stream until `text` has come on it or the server closed it: (how many had it, how many closed)."""
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
                if not chunk or text in read[sock]:
                    selector.unregister(sock)
                    served += text in read[sock]
                    closed += text not in read[sock]
    return served, closed


def test_idle_and_half_sent_connections_are_closed_but_an_open_page_stays() -> None:
    with screen(idle_seconds=1) as running, connect(running.port) as page:
        page.sendall(f"GET /events HTTP/1.1\r\nHost: {TV}:{running.port}\r\n\r\n".encode())
        assert streams([page]) == (1, 0)
        with connect(running.port, NEIGHBOUR) as idle, connect(running.port, NEIGHBOUR) as half:
            half.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0")  # and never the rest
            assert closed_by_the_server([idle, half], 2) == 2
        running.feed.publish(1.0, "listen", {"player": "Anna"})  # the board changes after the idle time has passed
        assert streams([page], b'"listening": "Anna"') == (1, 0)
        answered_by_the_tv(running.port)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "192.0.2.66", "localhost.evil.example", ""])
def test_a_page_on_the_internet_cannot_read_the_board_through_a_name_of_its_own(host: str) -> None:
    """DNS rebinding: a name on the internet made to point at this machine; the browser sends that name as Host."""
    with screen() as running:
        for path in ("/", "/board", "/events", "/static", "/static/screen.js"):
            status, head, body = request(running.port, path, host)
            assert (status, body) == (400, REFUSED), (path, head)
            assert "evil" not in head and "location" not in head.lower()  # nothing of what was sent comes back


def test_the_names_of_the_screen_are_answered_and_the_redirect_names_the_screen() -> None:
    with Screen(feed(), host="0.0.0.0", port=0) as running:
        port = running.port
        announced = running.url.split("//")[1].split(":")[0]
        for name in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"{announced}:{port}", "0.0.0.0"):
            assert request(port, "/board", name)[0] == 200, name
        status, head, _ = request(port, "/static", f"localhost:{port}")
        assert status in (307, 308) and f"location: http://localhost:{port}/static/" in head.lower()


def test_ipv6_loopback_is_written_in_brackets_and_answered() -> None:
    if not socket.has_ipv6 or not _can_bind("::1"):
        pytest.skip("this machine has no IPv6 loopback")
    with Screen(feed(), host="::1", port=0) as running:
        assert running.url == f"http://[::1]:{running.port}/"
        said = notice(running)
        assert running.url in said and "this computer" in said
        assert request(running.port, "/board", to="::1")[0] == 200


def test_an_ipv6_address_on_the_network_is_written_in_brackets_in_the_notice_and_its_code() -> None:
    running = Screen(feed(), host="2001:db8::7", port=8765)  # not started: the notice is what is checked
    url = "http://[2001:db8::7]:8765/"
    assert running.url == url
    said = notice(running)
    drawn = segno.make(url, error="m")
    code = __import__("io").StringIO()
    drawn.terminal(out=code, compact=True)
    assert url in said and code.getvalue() in said


def _can_bind(host: str) -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind((host, 0))
    except OSError:
        return False
    return True


@pytest.mark.parametrize(
    ("host", "said"),
    [
        ("nosuch.invalid", "no such host here"),
        ("192.0.2.1", "not an address of this computer"),
    ],
)
def test_a_host_the_screen_cannot_listen_on_is_said_as_what_it_is(host: str, said: str) -> None:
    with pytest.raises(ScreenUnavailable, match=said) as refused:
        Screen(feed(), host=host, port=0).start()
    assert "taken" not in str(refused.value)


def test_play_with_an_unknown_screen_host_stops_in_one_line(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    argv = ["play", "--screen", "--screen-host", "nosuch.invalid", "--players", "Anna", "--engine", "whisper"]
    assert main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "nosuch.invalid" in lines[0] and "no such host" in lines[0], lines


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_a_port_out_of_range_is_refused_where_it_is_read(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["play", "--screen", "--port", port])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "0 to 65535" in err and "Traceback" not in err


def test_the_benchs_network_drill_finds_the_page_kept_and_no_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """`bench faults` makes the same faults and some more (garbage requests, other hosts' names, half-sent ones)."""
    monkeypatch.setattr(network, "COMMAND_VALUES", ())  # the commands' values are this file's tests above
    figures = network.run()
    assert (figures["tracebacks"], figures["tv_blanked"]) == (0, 0)
    assert figures["right"] == figures["faults"] == len(network.DRILLS), network.report(figures)
