"""`--screen` for `play` and `demo`: the page for the room, started beside the game and ended with it."""

from __future__ import annotations

import argparse
import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from voicemaster import hints
from voicemaster.screen import DEFAULT_PORT, LOOPBACK, ScreenUnavailable, is_loopback

if TYPE_CHECKING:  # the command line starts without the speech stack or the web server
    from voicemaster.host.screen_address import ScreenAddress
    from voicemaster.play.runner import Watcher
    from voicemaster.questions.model import Entry
    from voicemaster.screen.server import Screen


def add_flags(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--screen",
        action="store_true",
        help="show the game on a web page too (large type, read-only; on this computer)",
    )
    command.add_argument(
        "--port", type=port, default=DEFAULT_PORT, help=f"the screen's port (default {DEFAULT_PORT}; 0: any free one)"
    )
    command.add_argument(
        "--screen-host",
        default=LOOPBACK,
        metavar="ADDRESS",
        help="where the screen listens: 0.0.0.0 lets phones and a TV on your network watch (default: this computer)",
    )


def port(text: str) -> int:
    """A port as `--port` takes it: a whole number from 0 (any free one) to 65535."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: a whole number from 0 to 65535") from None
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port: a port is 0 to 65535 (0: any free one)")
    return number


@contextmanager
def screen_for(
    args: argparse.Namespace,
    language: str,
    entries: tuple[Entry, ...],
    *,
    live: bool,
    phones_url: str | None = None,
    shows_address: bool = False,
) -> Iterator[tuple[Watcher | None, ScreenAddress | None]]:
    """The screen's feed while the game runs, and its address for the quizmaster to say when asked (both None
    without --screen); the address is printed before the game. `phones_url`: where the phones join, with the code,
    shown as a QR code to this computer's own browser. `shows_address`: the page shows its own address as a QR code
    while no game is under way (`Screen.shows_address`)."""
    if not args.screen:
        yield None, None
        return
    from voicemaster.screen.feed import ScreenFeed

    try:
        from voicemaster.screen.server import Screen
    except ImportError as missing:
        raise ScreenUnavailable(f"the screen needs {missing.name}: {hints.python_extra('screen')}") from None
    feed = ScreenFeed(language, {entry.id: entry.question for entry in entries}, live=live)
    with Screen(feed, args.screen_host, args.port, phones_url=phones_url, shows_address=shows_address) as screen:
        print(notice(screen), flush=True)
        yield feed, screen.spoken_address()


def notice(screen: Screen) -> str:
    """Where to open the page; on the local network, that anyone on it can watch, and a QR code of the address."""
    if is_loopback(screen.host):
        return f"Screen: open {screen.url} in a browser on this computer (--screen-host 0.0.0.0 for the local network)."
    import segno

    code = io.StringIO()
    segno.make(screen.url, error="m").terminal(out=code, compact=True)
    return (
        f"Screen: {screen.url} on your local network. Anyone on this network can watch the game there (the page "
        f"cannot change anything in it); scan the code with a phone:\n{code.getvalue()}"
    )
