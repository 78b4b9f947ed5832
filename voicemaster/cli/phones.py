"""`--phones` for `play`: each player's phone as their microphone, joined by the QR code printed here and shown on
this computer's screen page, or by the address and code the quizmaster says when asked (`voicemaster.phones`)."""

from __future__ import annotations

import argparse
import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

from voicemaster import hints, paths
from voicemaster.cli.screen import port
from voicemaster.host.screen_address import ScreenAddress

if TYPE_CHECKING:  # the command line starts without the web server or the game
    from voicemaster.phones.server import Phones
    from voicemaster.play.runner import Watcher
    from voicemaster.questions.model import Entry

DEFAULT_PORT = 8766


def add_flags(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--phones",
        action="store_true",
        help="each player's phone as their microphone: they join over the local network with the game's code",
    )
    command.add_argument(
        "--phones-port", type=port, default=DEFAULT_PORT, help=f"the phones' page's port (default {DEFAULT_PORT})"
    )


@contextmanager
def phones_for(args: argparse.Namespace, language: str) -> Iterator[Phones | None]:
    """The phones' server while the game runs (None without --phones); where to join is printed before the game.
    It listens on every address of this computer: the phones are on its network, and the game's code keeps out
    whoever is on the network but not in the room."""
    if not args.phones:
        yield None
        return
    from voicemaster.phones import PhonesUnavailable

    try:
        from voicemaster.phones.server import Phones
        from voicemaster.screen.server import local_address
    except ImportError as missing:
        raise PhonesUnavailable(f"phones need {missing.name}: {hints.python_extra('phones')}") from None
    phones = Phones(paths.data_dir(), host="0.0.0.0", port=args.phones_port, announced=local_address())
    phones.language = language
    with phones:
        print(notice(phones), flush=True)
        yield phones


def notice(phones: Phones) -> str:
    import segno

    code = io.StringIO()
    segno.make(phones.url, error="m").terminal(out=code, compact=True)
    return (
        f"Phones: each player scans this code (or opens {phones.url.split('?')[0]} and types the code "
        f"{phones.code}), taps their name (before the names are asked: new player, and says it into the phone), and "
        f"speaks into their phone. A browser warns once about the game's own "
        f"certificate: it is made on this computer, and the page is only on your network.\n{code.getvalue()}"
    )


def with_phones(
    phones: Phones | None,
    watch: Watcher | None,
    screen: ScreenAddress | None,
    language: str,
    entries: tuple[Entry, ...],
) -> tuple[Watcher | None, ScreenAddress | None]:
    """The screen's watcher and address with the phones added: a joined phone shows its player the board (a feed of
    its own where no screen runs), and the quizmaster says where the phones join when asked."""
    if phones is None:
        return watch, screen
    from voicemaster.screen.feed import ScreenFeed

    if not isinstance(watch, ScreenFeed):
        watch = ScreenFeed(language, {entry.id: entry.question for entry in entries}, live=True)
    phones.board = watch.view_json
    if screen is None:
        screen = ScreenAddress(phones.announced, 0, local_network=True, page=False)
    return watch, replace(screen, phones_port=phones.port, phones_code=phones.code, phones_host=phones.announced)
