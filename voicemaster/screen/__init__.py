"""The screen for the room: a read-only web page that shows what the quizmaster is doing (issue 29).

`board.py` folds the game's steps (the transcript's events and the stored game) into what the page shows, `feed.py`
holds them between the game's thread and the server's, `server.py` serves the page and its updates.
"""

from __future__ import annotations

import ipaddress

LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 8765
LOOPBACK_NAMES = frozenset({"localhost"})


class ScreenUnavailable(RuntimeError):
    """The screen cannot start (its port taken, its packages missing): said in one line, the game not started."""


def normal(name: str) -> str:
    """A host name or address as compared: lower case, without brackets; an address in its one written form."""
    name = name.strip("[]").lower()
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return name
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return address.compressed


def is_loopback(name: str) -> bool:
    """`localhost` or a loopback address (127.0.0.0/8, ::1)."""
    name = normal(name)
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False
