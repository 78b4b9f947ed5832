"""The player's phone in `bench room --microphone phone`: it joins the game as the join page does and sends what the
room's mixer makes of the room at the phone (`harness.mixer`, `Scene.phone`).

The game (`voicemaster play --phones`) prints where the phones join and its code; the phone reads them there, asks
the phones' server for the game's players and joins as the first if they are known, as its player taps their name;
before, it joins as a new player, as its player taps "new player", and says the player's name into the phone when the
quizmaster asks; it is that player once the game tells it so ("named"). It sends 32 ms messages of 16-bit sound over
`wss://.../sound` in real time, as the page's AudioWorklet does. What the mixer makes before the phone has joined is
dropped, as a phone whose page is not open yet sends nothing. A phone the game hangs up on before it ends stays gone:
the bench says so.

Everything the game sends the phone is read as it comes, as the page reads it: the `websockets` client stops reading
its socket once `max_queue` messages wait unread, and then reads no pong either, so a phone that left the game's
notices (heard you, what was heard) unread closed its own connection some 20 notices into a game ("keepalive ping
timeout", issue 47).
"""

from __future__ import annotations

import json
import queue
import re
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voicemaster.speech.frame import FRAME_BYTES
from voicemaster_lab.harness.mixer import BLOCK
from voicemaster_lab.harness.pulse import RATE

WHERE = re.compile(r"opens (https://\S+?)/? and types the code (\d+)")
"""How `voicemaster play --phones` says where the phones join (`cli.phones.notice`)."""
SERVER_STOPPED = (1001, 1012)
"""How the phones' server closes a connection as it stops with the game (going away, restart): not a loss."""
REFUSED = 1008
"""How the phones' server closes a connection it does not take (a new player once the players are known)."""
POLL_SECONDS = 0.5
"""How often the phone asks whether the game knows its players yet: as the join page asks, a little more often."""


@dataclass
class PhoneLink:
    """The phone, on a thread of its own: `start`, `hear` each block the mixer makes (any thread), `stop`."""

    printed: Path
    """The game's standard output, where it says where the phones join."""
    player: str | None = None
    """Whom it joined as, once joined (as a new player: once the game has said whose phone it is)."""
    joined_at: float | None = None
    """When (monotonic) it joined."""
    lost: str = ""
    """Why it stopped sending before the bench stopped it, if it did."""
    sent: int = 0
    """Messages sent."""
    told: int = 0
    """Notices the game sent the phone (heard you, what was heard, whose phone it is), all read."""
    ping_seconds: float = 20.0
    """How often the phone's client pings the game, and how long it waits for the answer (`websockets`' own
    defaults; a test shortens them)."""
    most_behind: float = 0.0
    """The most sound, in seconds, that waited to be sent at once: this side falling behind real time (a loaded
    machine), which puts the phone's sound late against the loudspeaker's reference the game holds for it."""
    _blocks: queue.SimpleQueue[bytes] = field(default_factory=queue.SimpleQueue)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> PhoneLink:
        self._thread = threading.Thread(target=self._run, name="bench phone", daemon=True)
        self._thread.start()
        return self

    def hear(self, block: bytes) -> None:
        self._blocks.put(block)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        try:
            where = self._where()
            if where is None:
                return
            base, code = where
            while not self._stop.is_set():
                players = self._players(base, code)
                if players is None:
                    return
                if not self._send(base, code, players[0] if players else None):
                    return
        except Exception as error:  # the bench reports what stopped its phone, whatever it was
            self.lost = f"{type(error).__name__}: {error}"

    def _where(self) -> tuple[str, str] | None:
        while not self._stop.is_set():
            self._drop()
            text = self.printed.read_text(encoding="utf-8", errors="replace") if self.printed.exists() else ""
            found = WHERE.search(text)
            if found is not None:
                return found.group(1), found.group(2)
            time.sleep(POLL_SECONDS)
        return None

    def _players(self, base: str, code: str) -> list[str] | None:
        """The game's players as its server says them (none yet: the names are being asked); None when stopped."""
        while not self._stop.is_set():
            self._drop()
            try:
                with urllib.request.urlopen(f"{base}/players?code={code}", context=_unverified(), timeout=5) as got:
                    return [str(player) for player in json.loads(got.read())["players"]]
            except (OSError, urllib.error.URLError, ValueError, KeyError):
                time.sleep(POLL_SECONDS)  # the server not up yet
        return None

    def _send(self, base: str, code: str, player: str | None) -> bool:
        """Sends as `player` (None: as a new player) until stopped or lost: False; True when the game let it go as
        a new player it never asked for a name, to join again as one of the players."""
        from websockets.exceptions import ConnectionClosed
        from websockets.sync.client import connect

        who = "new=1" if player is None else f"player={urllib.parse.quote(player)}"
        address = base.replace("https://", "wss://") + f"/sound?code={code}&{who}"
        with connect(
            address, ssl=_unverified(), ping_interval=self.ping_seconds, ping_timeout=self.ping_seconds
        ) as phone:
            self._drop()
            self.player, self.joined_at = player, time.monotonic()
            pending = bytearray()
            while not self._stop.is_set():
                try:
                    named = self._read(phone)
                except ConnectionClosed as closed:
                    return self._closed(closed)
                if named == "":
                    return True
                self.player = named or self.player
                try:
                    pending += self._blocks.get(timeout=0.1)
                except queue.Empty:
                    continue
                waiting = len(pending) / 2 + self._blocks.qsize() * BLOCK
                self.most_behind = max(self.most_behind, waiting / RATE)
                while len(pending) >= FRAME_BYTES:
                    try:
                        phone.send(bytes(pending[:FRAME_BYTES]))
                    except ConnectionClosed as closed:
                        return self._closed(closed)
                    del pending[:FRAME_BYTES]
                    self.sent += 1
        return False

    def _closed(self, closed: Any) -> bool:
        """Whether to join again: a new player refused because the players became known meanwhile. Else the game
        closed the connection: with the game's end (not a loss), or the bench says why."""
        code = closed.rcvd.code if closed.rcvd is not None else None
        if self.player is None and code == REFUSED:
            return True
        if code not in SERVER_STOPPED:
            self.lost = f"the game closed the phone's connection ({closed})"
        return False

    def _drop(self) -> None:
        """What the mixer made while the phone had not joined: not sent."""
        while True:
            try:
                self._blocks.get_nowait()
            except queue.Empty:
                return

    def _read(self, phone: Any) -> str | None:
        """Reads all the game has sent: whose phone this is, if it has just said so ("": none, it was let go); what
        else it says is for the page's eyes, read only so that the client goes on reading the socket."""
        named = None
        while True:
            try:
                message = phone.recv(timeout=0)
            except TimeoutError:
                return named
            if isinstance(message, str):
                self.told += 1
                notice = json.loads(message)
                if notice.get("event") == "named":
                    named = str(notice.get("player") or "")


def _unverified() -> ssl.SSLContext:
    """The game's own certificate, accepted as a player accepts the browser's one-time warning."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    # TLS 1.2: websockets' sync client reads on a thread of its own while this one sends, and over TLS 1.3 (session
    # tickets after the handshake) CPython's `SSLSocket` lost an opening in a few hundred on loopback, as the tests'
    # client did (tests/phones/pages.py `sound_socket`); a browser is not affected.
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    return context
