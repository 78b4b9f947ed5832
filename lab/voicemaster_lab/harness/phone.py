"""The player's phone in `bench room --microphone phone`: it joins the game as the join page does and sends what the
room's mixer makes of the room at the phone (`harness.mixer`, `Scene.phone`).

The game (`voicemaster play --phones`) prints where the phones join and its code; the phone reads them there, asks
the phones' server for the game's players until the quizmaster has heard them (its page says "waiting" until then),
joins as the first, as its player taps their name, and sends 32 ms messages of 16-bit sound over `wss://.../sound`
in real time, as the page's AudioWorklet does. What the mixer makes before the phone has joined is dropped, as a
phone whose page is not open yet sends nothing. A phone the game hangs up on before it ends stays gone: the bench says
so.
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

from voicemaster.speech.frame import FRAME_BYTES
from voicemaster_lab.harness.mixer import BLOCK
from voicemaster_lab.harness.pulse import RATE

WHERE = re.compile(r"opens (https://\S+?)/? and types the code (\d+)")
"""How `voicemaster play --phones` says where the phones join (`cli.phones.notice`)."""
SERVER_STOPPED = (1001, 1012)
"""How the phones' server closes a connection as it stops with the game (going away, restart): not a loss."""
POLL_SECONDS = 0.5
"""How often the phone asks whether the game knows its players yet: as the join page asks, a little more often."""


@dataclass
class PhoneLink:
    """The phone, on a thread of its own: `start`, `hear` each block the mixer makes (any thread), `stop`."""

    printed: Path
    """The game's standard output, where it says where the phones join."""
    player: str | None = None
    """Whom it joined as, once joined."""
    joined_at: float | None = None
    """When (monotonic) it joined."""
    lost: str = ""
    """Why it stopped sending before the bench stopped it, if it did."""
    sent: int = 0
    """Messages sent."""
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
            player = self._player(base, code)
            if player is None:
                return
            self._send(base, code, player)
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

    def _player(self, base: str, code: str) -> str | None:
        while not self._stop.is_set():
            self._drop()
            try:
                with urllib.request.urlopen(f"{base}/players?code={code}", context=_unverified(), timeout=5) as got:
                    players = json.loads(got.read())["players"]
            except (OSError, urllib.error.URLError, ValueError, KeyError):
                players = []  # the server not up yet
            if players:
                return str(players[0])
            time.sleep(POLL_SECONDS)
        return None

    def _send(self, base: str, code: str, player: str) -> None:
        from websockets.exceptions import ConnectionClosed
        from websockets.sync.client import connect

        address = base.replace("https://", "wss://") + f"/sound?code={code}&player={urllib.parse.quote(player)}"
        with connect(address, ssl=_unverified()) as phone:
            self._drop()
            self.player, self.joined_at = player, time.monotonic()
            pending = bytearray()
            while not self._stop.is_set():
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
                        if closed.rcvd is None or closed.rcvd.code not in SERVER_STOPPED:
                            self.lost = f"the game closed the phone's connection ({closed})"
                        return
                    del pending[:FRAME_BYTES]
                    self.sent += 1

    def _drop(self) -> None:
        """What the mixer made while the phone had not joined: not sent."""
        while True:
            try:
                self._blocks.get_nowait()
            except queue.Empty:
                return


def _unverified() -> ssl.SSLContext:
    """The game's own certificate, accepted as a player accepts the browser's one-time warning."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context
