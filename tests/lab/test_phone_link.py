"""The bench's phone (`bench room --microphone phone`) joins as the join page lets a player: as a new player while
the quizmaster asks the names, then as the name it said; a new player's phone never asked for a name joins again as
one of the players."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from voicemaster.cli.phones import notice
from voicemaster.phones.server import Phones
from voicemaster.speech.devices.phone import PhoneNotice
from voicemaster_lab.harness.mixer import BLOCK
from voicemaster_lab.harness.phone import PhoneLink

WAITED_SECONDS = 30.0
"""How long the phone may take to join on a loaded machine: a guard, not a measurement."""


def _until(happened: Callable[[], object]) -> None:
    deadline = time.monotonic() + WAITED_SECONDS
    while not happened():
        assert time.monotonic() < deadline, "the bench's phone did not get there"
        time.sleep(0.05)


@contextmanager
def _phone(phones: Phones, folder: Path, ping_seconds: float = 20.0) -> Iterator[PhoneLink]:
    """The bench's phone, reading where to join from what `play --phones` prints, fed quiet in real time."""
    printed = folder / "printed.txt"
    printed.write_text(notice(phones), encoding="utf-8")
    link = PhoneLink(printed, ping_seconds=ping_seconds).start()
    stop = threading.Event()

    def feed() -> None:
        while not stop.is_set():
            link.hear(bytes(2 * BLOCK))
            time.sleep(BLOCK / 16_000)

    feeding = threading.Thread(target=feed, daemon=True)
    feeding.start()
    try:
        yield link
    finally:
        stop.set()
        link.stop()
        feeding.join()


def test_the_benchs_phone_joins_as_a_new_player_and_is_the_player_it_named(tmp_path: Path) -> None:
    with Phones(tmp_path, port=0) as phones, _phone(phones, tmp_path) as link:
        _until(lambda: phones.waiting() == 1)
        assert phones.newcomer(1) is not None  # the quizmaster asks the first name through it
        phones.set_players(("Lisa",))
        _until(lambda: link.player == "Lisa")
        assert phones.microphone("Lisa") is not None
    assert link.lost == ""


def test_the_benchs_phone_never_asked_for_a_name_joins_again_as_the_first_player(tmp_path: Path) -> None:
    with Phones(tmp_path, port=0) as phones, _phone(phones, tmp_path) as link:
        _until(lambda: phones.waiting() == 1)
        phones.set_players(("Anna",))  # named in the room
        _until(lambda: phones.microphone("Anna") is not None and link.player == "Anna")
    assert link.lost == ""


def test_the_benchs_phone_stays_joined_however_much_the_game_tells_it(tmp_path: Path) -> None:
    """Issue 47: the game tells a phone it heard its player and what it read, twice an utterance; the bench's phone
    read none of it once named, its client stopped reading the socket at 16 unread and so read no answer to its
    keepalive ping either: "keepalive ping timeout" some ten utterances into a game."""
    with Phones(tmp_path, port=0, players=("Anna",)) as phones, _phone(phones, tmp_path, ping_seconds=0.5) as link:
        _until(lambda: phones.microphone("Anna") is not None and link.sent > 0)
        microphone = phones.microphone("Anna")
        assert microphone is not None
        for utterance in range(20):
            microphone.tell(PhoneNotice(heard_you=True))
            microphone.tell(PhoneNotice(text=f"Ich nehme B ({utterance})"))
        sent = link.sent
        _until(lambda: link.sent > sent + 100 or link.lost)  # some 3 s, several pings in it
        assert link.lost == ""
        assert phones.microphone("Anna") is microphone
    assert link.told == 40
