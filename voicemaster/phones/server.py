"""The phones' server: the join page over HTTPS and each phone's sound over a WebSocket, in a thread of its own.

Who may join is decided by the game's code: six digits, carried by the QR code and said by the quizmaster, so that
someone on the same Wi-Fi who neither sees the screen nor hears the room cannot join; each network address gets
`WRONG_CODES` tries. A phone joins as one of the game's players and acts for that player only: the one thing it can
send is sound (anything else ends its connection: words, a message longer than `MOST_MESSAGE_BYTES`, a half sample),
a page of another site is refused (its `Origin`), and a phone that joins as a player already joined takes over
(the same player rejoining after a lock screen). Before the players are known a phone joins as a new player: the
quizmaster asks the next player's name through it (`newcomer`, by the seat being named), and once the players are
known (`set_players`) it is the microphone of the name it said; a new player's phone never asked is let go, its page
offering the players, unless the game takes `newcomers` (then one joins as a new player while the game runs, and
waits for the next round; asked `NEWCOMER_ASKINGS` rounds and never named, it is let go too). Only GET routes and
the sound's socket; nothing reads a file but the page's own. The game's notices to a phone (`PhoneNotice`: heard you,
what was heard) go back on the same socket.
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp
from starlette.websockets import WebSocket, WebSocketDisconnect

from voicemaster.phones import DEFAULT_PORT, PhonesUnavailable
from voicemaster.phones.certificate import certificate_for
from voicemaster.phones.sound_socket import SoundSocket
from voicemaster.screen import ScreenUnavailable
from voicemaster.screen.guard import IDLE_SECONDS, PER_CLIENT, Hosts, SecurityHeaders, client_key
from voicemaster.screen.handshake import LOOP, Gated
from voicemaster.screen.server import bound, bracketed, guarded_config, serve
from voicemaster.speech.devices.phone import MOST_MESSAGE_BYTES, PhoneMicrophone, PhoneNotice
from voicemaster.speech.frontend import FrontEnd, PlayedSound

STATIC = Path(__file__).parent / "static"
LOOPBACK = "127.0.0.1"
CODE_DIGITS = 6
WRONG_CODES = 10
"""Wrong codes one network address may try before it is refused for the rest of the game."""
NEWCOMER_ASKINGS = 2
"""How many rounds a phone waiting as a new player is asked through ("Spielt noch jemand neu mit?") and says no name
before it is let go: a page left open on a phone nobody holds would have the quizmaster ask before every round."""
BEHIND_SECONDS = 0.3
"""Silence a phone's echo reference begins with (`PlayedSound.branch`). Each phone takes its reference from a queue
of its own as its sound arrives, so a phone held up on the Wi-Fi holds back only its own (and its reference leads its
echo by its own network delay, which the echo canceller finds as it finds a room's). This silence holds the reference
back only until the queue first runs dry: at once if nothing is played as the phone joins, else at the quizmaster's
first pause (a phone is handed silence while nothing waits); after that it is what was played as each frame
arrived."""
PING_SECONDS = 10.0
"""How often the server pings each phone's connection: a phone gone off the Wi-Fi (no closing handshake) is let go
within `PING_SECONDS` + `PONG_WAIT_SECONDS`, its player heard through the room's microphone from the next turn."""
PONG_WAIT_SECONDS = 20.0
"""How long a phone has to answer: a browser answers in its network stack even while its page is busy, and a phone
on Wi-Fi in power saving or moving between access points answers late, not never. The server answers a phone's own
pings at once: nothing a phone sends waits on its front end (`PhoneMicrophone.receive`), so a busy game side holds
up no connection (issue 47)."""
TOTAL_CONNECTIONS = 32
"""Connections at once, all phones together: a party's phones, each with its page, its sound and its board."""
MOST_SOCKETS = 4 * TOTAL_CONNECTIONS
"""Connections the server holds at once from their TCP opening, before TLS (`screen.handshake`), all devices together:
room for the phones' connections and those still closing, and half of the fewest descriptors a system gives a process
(macOS: 256), so that devices on the Wi-Fi leave the game its files whatever they open."""
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "Permissions-Policy": "microphone=(self)",
}


def new_code() -> str:
    return "".join(secrets.choice("0123456789") for _ in range(CODE_DIGITS))


@dataclass
class Phones:
    """The players' phones and the server they join: `start()` returns once it listens, `stop()` ends it.

    `front_end` makes each phone's own front end (an echo canceller learns one room path), fed what `played` hands
    it; `folder` keeps the certificate."""

    folder: Path
    played: PlayedSound | None = None
    front_end: Callable[[], FrontEnd] | None = None
    host: str = LOOPBACK
    port: int = DEFAULT_PORT
    announced: str = LOOPBACK
    """The address a phone in the room uses (this machine's on the local network)."""
    code: str = field(default_factory=new_code)
    players: tuple[str, ...] = ()
    """Who may join: the game's players, once they are known."""
    newcomers: bool = False
    """Whether a phone may still join as a new player once the players are known: asked at a round's start (045)."""
    teams: bool = False
    """The players are a money drop's teams: a newcomer waits for the next team's run, not the next round."""
    language: str = "de"
    """The game's language, which the join page speaks."""
    board: Callable[[], str] | None = None
    """The screen's board as JSON (`ScreenFeed.view_json`), which a joined phone shows its player."""
    idle_seconds: int = IDLE_SECONDS
    """How long a connection may send no whole request before it is closed (`screen.guard`); a phone's sound is
    never idle."""
    handshake_seconds: float = IDLE_SECONDS
    """How long a connection may take over its TLS handshake before it is cut off (`screen.handshake`): the idle
    time, as a device that opens a connection and says nothing is idle."""
    _microphones: dict[str, PhoneMicrophone] = field(default_factory=dict)
    _newcomers: list[PhoneMicrophone] = field(default_factory=list)
    """Phones joined as a new player and not yet given a seat, first joined first."""
    _seats: dict[int, PhoneMicrophone | None] = field(default_factory=dict)
    """Each seat asked for so far and the phone it listens to (None: the room's microphone)."""
    _unnamed: dict[PhoneMicrophone, int] = field(default_factory=dict)
    """How many rounds each phone waiting as a new player was asked through and said no name (`NEWCOMER_ASKINGS`)."""
    _wired: dict[PhoneMicrophone, tuple[PlayedSound | None, Callable[[], FrontEnd] | None]] = field(
        default_factory=dict
    )
    """What each phone's echo reference is a branch of and its front end was made by: `played` and `front_end` as
    they were when it was wired (`voicemaster serve` opens a loudspeaker of its own for each game)."""
    _wrong: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: uvicorn.Server | None = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The join page with the game's code: what the QR code carries."""
        return f"https://{bracketed(self.announced)}:{self.port}/?code={self.code}"

    def microphone(self, player: str | None) -> PhoneMicrophone | None:
        """The phone that is `player`'s microphone now, if one is joined."""
        with self._lock:
            found = self._microphones.get(player or "")
        if found is None or not found.connected:
            return None
        self._wire(found)
        return found

    def for_all(self) -> PhoneMicrophone | None:
        """The phone that hears a question put to all the players ("another round?", `Listen.to_all`): the first
        named player's that is joined, else None (the room's microphone). The first named, not whoever answered
        last: the same phone every round, so the players know whose phone decides (docs/decisions/046)."""
        with self._lock:
            named = [self._microphones.get(player) for player in self.players]
        found = next((phone for phone in named if phone is not None and phone.connected), None)
        if found is not None:
            self._wire(found)
        return found

    def newcomer(self, seat: int, name_asked: bool = False) -> PhoneMicrophone | None:
        """The phone heard for the player being named at `seat` (`Listen.seat`), or None: the room's microphone. A
        seat keeps the phone it was given while that phone is joined; it is given one (the first phone waiting as a
        new player, if any) when it is first listened to and whenever its name is asked (again: `name_asked`), never
        in the middle of a read-back. So the players named at the start, before anyone has scanned the code, are not
        held to the room: a phone that joins is heard from the next time a name is asked.

        "Anyone else?" (the seat's first listening, not its name) with no new player's phone waiting is answered by
        the phone of the last player named who has one, not by the room: at a party the room's microphone takes the
        others' "Ja" for a newcomer, and the players holding phones know who else plays. Between rounds (the players
        known) it is the phone that answered "another round?" just before (`for_all`)."""
        with self._lock:
            seated = self._seats.get(seat)
            if seated is not None and seated.connected:
                return seated
            if seat in self._seats and not name_asked:
                return None  # the room's until its name is asked again
            waiting = [phone for phone in self._newcomers if phone.connected]
            held = [phone for at, phone in sorted(self._seats.items()) if at < seat and phone and phone.connected]
            named = (self._microphones.get(player) for player in self.players[: seat - 1])
            held = held or [phone for phone in named if phone is not None and phone.connected][:1]  # between rounds
            found: PhoneMicrophone | None
            if not waiting and not name_asked and seat not in self._seats and held:
                found = held[-1]  # for this listening only: the seat is given one when its name is asked
            else:
                self._seats[seat] = found = waiting[0] if waiting else None
                if found is not None:
                    self._newcomers.remove(found)
        if found is not None:
            self._wire(found)
        return found

    def _wire(self, phone: PhoneMicrophone) -> None:
        """Hands `phone` a branch of the loudspeaker's sound and a front end of the game it is heard in, unless it
        has them: one joined while `voicemaster serve` waited (no game's loudspeaker yet), or in its game before,
        would otherwise cancel the echo of a loudspeaker that no longer plays."""
        with self._lock:
            source, made_by = self._wired.get(phone, (None, None))
            if (source, made_by) == (self.played, self.front_end):
                return
            self._wired[phone] = (self.played, self.front_end)
        if source is not None and phone.reference is not None:
            source.close(phone.reference)
        played = self.played.branch(BEHIND_SECONDS) if self.played is not None else None
        phone.rewire(self.front_end() if self.front_end is not None else None, played)

    def new_game(self) -> None:
        """Another game with the same code and page (`voicemaster serve` waits between games): until its players
        are known a phone joins as a new player again, and is seated as the names are asked. The last game's
        players' phones stay joined: a player who plays again keeps their phone, and one who does not is let go when
        the new players are known (`set_players`)."""
        with self._lock:
            self.players, self._seats, self.newcomers, self._unnamed = (), {}, False, {}

    def set_players(self, players: tuple[str, ...], newcomers: bool = False, teams: bool = False) -> None:
        """The game's players (or `teams`) are known, the n-th named at seat n (again, longer, when a newcomer joins):
        who may join from now on. Each phone listened to at a seat is that player's microphone and its page told so;
        a new player's phone never given a seat hangs up (its page offers the players), or with `newcomers` waits."""
        with self._lock:
            self.players, self.newcomers, self.teams = players, newcomers, teams
            seats, self._seats = self._seats, {}
            waiting = [phone for phone in self._newcomers if phone.connected] if newcomers else []
            unseated, self._newcomers = ([] if newcomers else self._newcomers), waiting
            for player in [player for player in self._microphones if player not in players]:  # the game before's
                unseated.append(self._microphones.pop(player))
            named: list[tuple[PhoneMicrophone, PhoneMicrophone | None]] = []
            unanswered: list[PhoneMicrophone] = []
            for seat, phone in sorted(seats.items()):
                if phone is None or not phone.connected or not 0 < seat <= len(players):
                    if phone is not None and phone.connected and newcomers and not phone.player:
                        self._unnamed[phone] = self._unnamed.get(phone, 0) + 1
                        if self._unnamed[phone] < NEWCOMER_ASKINGS:
                            self._newcomers.insert(0, phone)  # asked, never named: asked first next round
                        else:
                            unanswered.append(phone)
                    elif phone is not None:
                        unseated.append(phone)
                    continue
                phone.player = players[seat - 1]
                named.append((phone, self._microphones.get(phone.player)))
                self._microphones[phone.player] = phone
        for phone, before in named:
            if before is not None and before is not phone:
                before.hang_up()
            phone.tell(PhoneNotice(named=phone.player))
        for phone in unseated:
            phone.tell(PhoneNotice(named=""))
            phone.hang_up()
        for phone in unanswered:
            phone.tell(PhoneNotice(named="", unanswered=True))
            phone.hang_up()

    def waiting(self) -> int:
        """How many phones joined as new players wait for a seat: and between rounds, a newcomer's phone asked and
        not named (a no, silence), which is asked again when the next round starts."""
        with self._lock:
            asked = [phone for seat, phone in self._seats.items() if self.players and seat > len(self.players)]
            return sum(phone.connected for phone in (*self._newcomers, *asked) if phone is not None)

    def joined(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(player for player, microphone in self._microphones.items() if microphone.connected)

    def code_is_right(self, code: str, client: str) -> bool:
        """Whether `code` is the game's; a network address that has tried `WRONG_CODES` wrong ones gets no more."""
        with self._lock:
            if self._wrong.get(client, 0) >= WRONG_CODES:
                return False
            right = hmac.compare_digest(code.encode(), self.code.encode())
            if not right:
                self._wrong[client] = self._wrong.get(client, 0) + 1
            return right

    def join(self, player: str) -> PhoneMicrophone:
        """A phone becomes `player`'s microphone; one that was before hangs up."""
        microphone = self._microphone(player)
        with self._lock:
            before = self._microphones.get(player)
            self._microphones[player] = microphone
        if before is not None:
            before.hang_up()
        return microphone

    def join_new(self) -> PhoneMicrophone | None:
        """A phone joins as a new player, its name not known yet; None once the players are known, but `newcomers`."""
        if self.players and not self.newcomers:
            return None
        microphone = self._microphone("")
        with self._lock:
            known = bool(self.players) and not self.newcomers
            if not known:
                self._newcomers.append(microphone)
        if known:
            self.leave(microphone)
            return None
        return microphone

    def _microphone(self, player: str) -> PhoneMicrophone:
        played = self.played.branch(BEHIND_SECONDS) if self.played is not None else None
        microphone = PhoneMicrophone(player, self.front_end() if self.front_end is not None else None, played)
        with self._lock:
            self._wired[microphone] = (self.played, self.front_end)
        return microphone

    def leave(self, microphone: PhoneMicrophone) -> None:
        microphone.hang_up()
        with self._lock:
            source, _ = self._wired.pop(microphone, (None, None))
        if source is not None and microphone.reference is not None:
            source.close(microphone.reference)  # handed nothing more
        with self._lock:
            if self._microphones.get(microphone.player) is microphone:
                del self._microphones[microphone.player]
            if microphone in self._newcomers:
                self._newcomers.remove(microphone)

    def start(self) -> Phones:
        """Listens on `host` and `port` (0: any free one) with the screen's guards (`screen.guard`): connections per
        device and in all, idle ones closed, the `Host` checked; and those counted from their TCP opening, a TLS
        handshake not ended in `handshake_seconds` cut off (`screen.handshake`)."""
        certificate = certificate_for(tuple(dict.fromkeys((self.announced, LOOPBACK, "localhost"))), self.folder)
        try:
            listening = bound(self.host, self.port, "the phones' page", "--phones-port")
        except ScreenUnavailable as error:
            raise PhonesUnavailable(str(error)) from None
        self.port = int(listening.getsockname()[1])
        listening = Gated.of(listening, PER_CLIENT, MOST_SOCKETS, self.handshake_seconds)
        config = guarded_config(
            app(self),
            self.host,
            self.port,
            TOTAL_CONNECTIONS,
            self.idle_seconds,
            ssl_certfile=str(certificate.certificate),
            ssl_keyfile=str(certificate.key),
            ws=SoundSocket,
            ws_max_size=MOST_MESSAGE_BYTES + 1024,
            ws_ping_interval=PING_SECONDS,
            ws_ping_timeout=PONG_WAIT_SECONDS,
            loop=LOOP,
        )
        started = serve(config, listening, "voicemaster-phones")
        if started is None:
            raise PhonesUnavailable(f"the phones' page could not start on {bracketed(self.host)}:{self.port}")
        self._server, self._thread = started
        return self

    def stop(self) -> None:
        with self._lock:
            microphones = list(self._microphones.values())
        for microphone in microphones:
            microphone.hang_up()
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=5)

    def __enter__(self) -> Phones:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()


def app(phones: Phones) -> ASGIApp:
    async def page(_request: Request) -> Response:
        return FileResponse(STATIC / "join.html")

    async def players(request: Request) -> Response:
        if not phones.code_is_right(request.query_params.get("code", ""), _client(request.client)):
            return JSONResponse({"error": "code"}, status_code=403)
        known = {"players": list(phones.players), "joined": list(phones.joined()), "newcomers": phones.newcomers}
        return JSONResponse(known | {"teams": phones.teams, "language": phones.language})

    async def board(request: Request) -> Response:
        if not phones.code_is_right(request.query_params.get("code", ""), _client(request.client)):
            return JSONResponse({"error": "code"}, status_code=403)
        shown = phones.board() if phones.board is not None else "null"
        return Response(shown, media_type="application/json")

    async def sound(socket: WebSocket) -> None:
        code, player = socket.query_params.get("code", ""), socket.query_params.get("player", "")
        new = socket.query_params.get("new") == "1" and not player
        if not _same_origin(socket) or not phones.code_is_right(code, _client(socket.client)):
            await socket.close(code=1008)
            return
        if not (new or player in phones.players):
            await socket.close(code=1008)
            return
        await socket.accept()
        microphone = phones.join_new() if new else phones.join(player)
        if microphone is None:  # the players became known meanwhile: the page offers them
            await socket.close(code=1008)
            return
        notices: asyncio.Queue[PhoneNotice] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        microphone.reaches(lambda notice: loop.call_soon_threadsafe(notices.put_nowait, notice))

        async def tell() -> None:
            with suppress(RuntimeError, WebSocketDisconnect, OSError):  # the page gone: the receiving side ends it
                while True:
                    notice = await notices.get()
                    await socket.send_text(notice.to_json())

        telling = asyncio.create_task(tell())
        try:
            while True:
                message = await socket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                data = message.get("bytes")
                if data is None:
                    break  # words: not a phone's page
                microphone.receive(data)
        except (ValueError, WebSocketDisconnect):
            pass  # not a phone's sound, or gone: it hangs up
        finally:
            microphone.reaches(None)
            telling.cancel()
            phones.leave(microphone)
            with suppress(RuntimeError):
                await socket.close()

    routes = [
        Route("/", page),
        Route("/players", players),
        Route("/board", board),
        WebSocketRoute("/sound", sound),
        Mount("/static", StaticFiles(directory=STATIC)),
    ]
    return SecurityHeaders(Hosts.of(Starlette(routes=routes), (phones.host, phones.announced)), HEADERS)


def _same_origin(socket: WebSocket) -> bool:
    """Whether the page that opens the socket is the join page itself: a browser names the page's origin, and a page
    of another site (one a player has open beside the game) may not reach the game. A client that is no browser
    names none, and still needs the game's code."""
    origin = socket.headers.get("origin")
    return origin is None or origin.lower() == f"https://{socket.headers.get('host', '')}".lower()


def _client(client: Any) -> str:
    """Who is guessing: a device's address (an IPv6 one by its /64 network, `guard.client_key`)."""
    return client_key((client.host, client.port) if client is not None else None) or ""
