"""A player's phone as a microphone: the sound its page sends (16-bit mono at 16 kHz), delivered as `AudioIn` frames.

The phones' server (`voicemaster.phones`) hands each message it receives to `receive`, on its event loop, and calls
`hang_up` when the page closes or the connection drops. Each frame goes through a front end of the phone's own with
what the loudspeaker played as its reference (a queue of its own, `PlayedSound.branch`, taken as the phone's sound
arrives: see `phones.server.BEHIND_SECONDS`), as the room microphone's frames do, so our own voice in the phone is
cancelled and judged the same way. What arrives while nobody listens is kept for the next listening: its pre-roll,
and before it the room alone (the reference silent for the echo's tail), from which the phone's room level learns
how loud the room is where the player stands, as the room's microphone's does between two listenings. Without it a
phone at a party knew no floor by the player's next answer, and the room's talk began and held its utterances.

`receive` only takes the reference and queues the frame: the front end runs on a thread of the phone's own. On the
server's event loop it held every phone's connection while it ran (the loop reads no ping, no other phone, until the
handler asks for the next message), and with the game's recognizer holding the interpreter a phone fell behind
until its keepalive ping went unanswered (issue 47). A front end that falls `MOST_BEHIND_SECONDS` behind drops the
oldest sound rather than hold up the connection; a listening it cuts ends with `PhoneLost`, nothing decided from it.

A phone that hangs up, or sends nothing for `QUIET_SECONDS` (locked, off the Wi-Fi), while it is listened to ends
that listening with `PhoneLost`: nothing is decided from a cut stream, and the ear hears the player through the room's
microphone instead.

The game tells the page what it heard (`tell`, a `PhoneNotice`): the moment the end of the player's speech is heard,
and what was read from it, so that a player in a loud room sees on their own phone that they were heard, and how.
"""

from __future__ import annotations

import collections
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from voicemaster.speech.barge_in.settings import BargeInSettings
from voicemaster.speech.devices.interfaces import Playback
from voicemaster.speech.frame import FRAME_BYTES, FRAME_SECONDS, Frame
from voicemaster.speech.frontend import FrontEnd, PlayedSound
from voicemaster.speech.frontend.room_level import EchoTail, RoomLevel

QUIET_SECONDS = 2.0
"""A phone that sends nothing this long while listened to has gone (its page sends a frame every 32 ms)."""
KEPT_SECONDS = 3.0
"""What arrived while nobody listened, kept for the next listening: its pre-roll, and before it what the room's
level learns from (`RoomLevel.FLOOR_SECONDS` of it at most); older sound is dropped."""
MOST_MESSAGE_BYTES = 64 * FRAME_BYTES
"""The longest message a page may send (about two seconds of sound): a longer one is not a phone's."""
MOST_BEHIND_SECONDS = 2.0
"""Sound waiting for the phone's front end longer than this is dropped, oldest first: a machine that far behind
would hear the player late anyway, and a connection must never wait on it."""


class PhoneLost(RuntimeError):
    """The phone stopped sending while it was listened to."""


class PhoneBehind(PhoneLost):
    """The phone's sound came faster than this machine could clean it, and some was dropped: the phone is still
    joined, so its player is asked to say it again into it, not to reopen the page."""


@dataclass(frozen=True)
class PhoneNotice:
    """What the game tells a player's page while it listens to them."""

    heard_you: bool = False
    """The end of the player's speech was heard, before it is understood (the heard cue)."""
    text: str = ""
    """What was read from the player's utterance ("" with `heard_you`, or when nothing was)."""
    asked_again: bool = False
    """What was read was not clear enough to act on: the quizmaster asks again."""
    named: str | None = None
    """The players are known: the player this phone, joined as a new player, now is ("" if it was never asked for
    a name: it is let go, and its page offers the players)."""
    unanswered: bool = False
    """With `named` "": let go because it was asked through, round after round, and no name was said into it."""
    for_everyone: bool = False
    """A question put to all the players ("another round?") is listened to through this phone: its page says so,
    as the board names no player whose turn it is."""

    def to_json(self) -> str:
        if self.for_everyone:
            return json.dumps({"event": "for_everyone"})
        if self.named is not None:
            named = {"event": "named", "player": self.named} | ({"unanswered": True} if self.unanswered else {})
            return json.dumps(named, ensure_ascii=False)
        if self.heard_you:
            return json.dumps({"event": "heard_you"})
        return json.dumps({"event": "heard", "text": self.text, "asked_again": self.asked_again}, ensure_ascii=False)


class PhoneMicrophone:
    """One player's phone: `receive` and `hang_up` from the server's thread, `frames` from the game's."""

    def __init__(
        self,
        player: str,
        front_end: FrontEnd | None = None,
        played: PlayedSound | None = None,
        echo_tail_seconds: float = BargeInSettings().echo_tail_seconds,
    ) -> None:
        """`echo_tail_seconds`: sound heard that long after the loudspeaker last played (as the phone's reference
        says) is the room's alone, as for the room's microphone (`Microphone`)."""
        self.player = player
        """Whose microphone this is: "" for a new player until the players are known (`Phones.set_players`)."""
        self._front_end = front_end
        self._played = played
        self._pending = bytearray()
        self._frames: collections.deque[tuple[Frame, bool]] = collections.deque(
            maxlen=round(KEPT_SECONDS / FRAME_SECONDS)
        )
        """Frames cleaned and not yet listened to, each with whether it was the room's alone."""
        self._echo_tail = EchoTail(echo_tail_seconds)
        """Whether the phone hears the room alone, by its reference as its sound arrives."""
        lock = threading.Lock()
        self._arrived = threading.Condition(lock)
        """Guards all that follows; notified when a frame is cleaned or the phone hangs up."""
        self._uncleaned: collections.deque[tuple[bytes, bytes, bool]] = collections.deque()
        """Frames received, each with its reference and whether it was the room's alone, not yet cleaned."""
        self._cleaning = 0
        """Frames received and not yet among `_frames`: those waiting and the one being cleaned."""
        self._dropped = 0
        """Frames dropped because the front end fell `MOST_BEHIND_SECONDS` behind."""
        self._to_clean = threading.Condition(lock)
        """Notified when a frame is received or the phone hangs up."""
        self._cleaner: threading.Thread | None = None
        self._connected = True
        self.room = RoomLevel()
        """The room's level as this phone hears it, kept from one listening to the next."""
        self._page: Callable[[PhoneNotice], object] | None = None

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def reference(self) -> PlayedSound | None:
        """What the loudspeaker played, as this phone's echo canceller is handed it."""
        return self._played

    def rewire(self, front_end: FrontEnd | None, played: PlayedSound | None) -> None:
        """A new front end and echo reference: the phone joined while `voicemaster serve` waited, or in the game
        before, and is heard in a game whose loudspeaker is another (`Phones.microphone`, `Phones.newcomer`)."""
        with self._arrived:
            self._front_end, self._played = front_end, played

    def receive(self, message: bytes) -> None:
        """Sound from the page: 16-bit little-endian mono at 16 kHz, any whole number of samples."""
        if len(message) % 2 or len(message) > MOST_MESSAGE_BYTES:
            raise ValueError(f"a phone sends whole 16-bit samples, at most {MOST_MESSAGE_BYTES} bytes at a time")
        self._pending += message
        while len(self._pending) >= FRAME_BYTES:
            block = bytes(self._pending[:FRAME_BYTES])
            del self._pending[:FRAME_BYTES]
            with self._arrived:
                reference = self._played
            played = reference.take(FRAME_BYTES) if reference is not None else bytes(FRAME_BYTES)
            alone = self._echo_tail.alone(played) and reference is not None
            with self._arrived:
                self._uncleaned.append((block, played, alone))
                self._cleaning += 1
                if len(self._uncleaned) > round(MOST_BEHIND_SECONDS / FRAME_SECONDS):
                    self._uncleaned.popleft()
                    self._cleaning -= 1
                    self._dropped += 1
                if self._cleaner is None:
                    self._cleaner = threading.Thread(target=self._clean, name="phone front end", daemon=True)
                    self._cleaner.start()
                self._to_clean.notify()

    @property
    def dropped_seconds(self) -> float:
        """Sound dropped because the front end fell `MOST_BEHIND_SECONDS` behind (a machine overloaded)."""
        return self._dropped * FRAME_SECONDS

    def settle(self, timeout: float) -> bool:
        """Waits until every frame received has been cleaned (or dropped); whether it was within `timeout`."""
        with self._arrived:
            return self._arrived.wait_for(lambda: self._cleaning == 0, timeout)

    def _clean(self) -> None:
        """The front end, on the phone's own thread: each frame received, in order, until the phone hangs up and
        what it sent before is cleaned."""
        while True:
            with self._arrived:
                self._to_clean.wait_for(lambda: self._uncleaned or not self._connected)
                if not self._uncleaned:
                    return
                block, played, alone = self._uncleaned.popleft()
                front_end = self._front_end
            frame = front_end.process(block, played) if front_end is not None else Frame(block)
            with self._arrived:
                self._frames.append((frame, alone))
                self._cleaning -= 1
                self._arrived.notify_all()

    def reaches(self, page: Callable[[PhoneNotice], object] | None) -> None:
        """How a notice reaches the page (the server's connection hands it over; it must not block)."""
        self._page = page

    def tell(self, notice: PhoneNotice) -> None:
        """Tells the page (from the game's thread); a page that has gone is told nothing."""
        page = self._page
        if page is not None and self._connected:
            page(notice)

    def hang_up(self) -> None:
        """The page closed or the connection dropped: a listening under way ends, the next goes elsewhere."""
        with self._arrived:
            self._connected = False
            self._arrived.notify_all()
            self._to_clean.notify()

    def frames(self, during: Playback | None = None, *, before: float = 0.0) -> Iterator[Frame]:
        del during  # our own voice reaches a phone as any sound does
        with self._arrived:
            kept = round(before / FRAME_SECONDS)
            unread = [self._frames.popleft() for _ in range(max(0, len(self._frames) - kept))]
            dropped = self._dropped
        for frame, alone in unread:  # what the room sounded like while the game decided, as the microphone does
            if alone:
                self.room.hear(frame.samples)
        while True:
            with self._arrived:
                deadline = time.monotonic() + QUIET_SECONDS
                while not self._frames and (self._connected or self._cleaning) and time.monotonic() < deadline:
                    self._arrived.wait(deadline - time.monotonic())
                if self._dropped != dropped:
                    behind = f"fell {MOST_BEHIND_SECONDS:g} s behind: some of its sound was dropped"
                    raise PhoneBehind(f"{self.player or 'a new player'}'s phone {behind}")
                if not self._frames:
                    gone = "hung up" if not self._connected else f"sent nothing for {QUIET_SECONDS:g} s"
                    raise PhoneLost(f"{self.player or 'a new player'}'s phone {gone}")
                frame, _ = self._frames.popleft()
            yield frame
