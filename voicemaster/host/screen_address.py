"""The screen for the room, asked for by voice ("Wie ist die Adresse des Bildschirms?"): its address said so that a
player can type it into a browser, or, when no screen runs, a short word on how to get one.

Where the screen listens is a fact of the shell (the server found its port and this machine's address before the
game began): it is handed to the quizmaster, which stays pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from voicemaster.dialogue.turns import Dialogue, Say
from voicemaster.host.lines import Address, Digits


@dataclass(frozen=True)
class ScreenAddress:
    """Where the page for the room is served, as a browser on another device reaches it."""

    host: str
    """The address to type: this machine's on the local network, or the loopback address."""
    port: int
    local_network: bool
    """Whether phones and a TV on the network may open it (`--screen-host 0.0.0.0`), or this computer only."""
    page: bool = True
    """Whether the screen's page runs; without, only the phones' page may (`phones_port`)."""
    phones_port: int | None = None
    """Where the players' phones join as microphones (`voicemaster.phones`, HTTPS at `host`); None: they do not."""
    phones_code: str = ""
    """The game's code a phone joins with."""
    phones_host: str = ""
    """The address the phones join at, where it is not `host` (a screen on this computer only)."""


def tell(screen: ScreenAddress | None) -> Dialogue:
    """The address, group by group, then the port, said twice (it is typed while it is heard); without a screen,
    that there is none and how to have one."""
    if screen is None or not (screen.page or screen.phones_port):
        yield Say("screen_none")
        return
    if screen.page:
        params = {"address": Address(screen.host), "port": screen.port}
        yield Say("screen_address", params, form="network" if screen.local_network else "local")
    if screen.phones_port:
        code = Digits(screen.phones_code)
        where = Address(screen.phones_host or screen.host)
        yield Say("phones_address", {"address": where, "port": screen.phones_port, "code": code})
