"""A phone's connection outlasts a game side that is busy (issue 47): the phones' server answers a phone's pings and
takes its sound while the phone's front end is held up and the recognizer holds the interpreter, and the sound then
reaches the game whole and in order. A front end that falls too far behind drops sound rather than hold up the
connection, and a listening it cut is ended, nothing decided from it."""

from __future__ import annotations

import itertools
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from websockets.sync.client import connect

from voicemaster.phones.server import Phones
from voicemaster.speech.devices.phone import MOST_BEHIND_SECONDS, PhoneBehind, PhoneLost, PhoneMicrophone
from voicemaster.speech.frame import FRAME_BYTES, FRAME_SECONDS, Frame

WAITED_SECONDS = 30.0
"""How long an answer may take on a loaded machine: a guard against a hang, not a measurement."""
MESSAGE_FRAMES = 1
"""Frames in one of the page's messages (32 ms)."""


@dataclass
class HeldFrontEnd:
    """A front end that cleans nothing until `released`: a game side too busy to keep up."""

    released: threading.Event = field(default_factory=threading.Event)
    name: str = "held"
    cancels_echo: bool = False

    def process(self, frame: bytes, reference: bytes) -> Frame:
        del reference
        self.released.wait()
        return Frame(frame)


def _numbered(first: int, count: int) -> bytes:
    """`count` frames, the n-th all of the sample `first + n`: which frame it was can be read from what is heard."""
    return b"".join(np.full(FRAME_BYTES // 2, first + n, dtype="<i2").tobytes() for n in range(count))


def _number(frame: Frame) -> int:
    return int(np.frombuffer(frame.samples, dtype="<i2")[0])


@contextmanager
def _recognizer_busy() -> Iterator[None]:
    """A thread that holds the interpreter in pure Python, as the game's search of the recognizer's words does."""
    done = threading.Event()

    def busy() -> None:
        count = 0
        while not done.is_set():
            count += 1

    thread = threading.Thread(target=busy, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _unverified() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.maximum_version = ssl.TLSVersion.TLSv1_2  # websockets' sync client over TLS 1.3: see `pages.sound_socket`
    return context


def test_a_phone_is_answered_and_its_sound_taken_while_the_game_side_is_busy(tmp_path: Path) -> None:
    held = HeldFrontEnd()
    phones = Phones(tmp_path, port=0, players=("Anna",), front_end=lambda: held).start()
    address = f"wss://127.0.0.1:{phones.port}/sound?code={phones.code}&player=Anna"
    try:
        with _recognizer_busy(), connect(address, ssl=_unverified(), ping_interval=None) as phone:
            messages = 50  # 1.6 s of sound: less than a front end may fall behind
            for message in range(messages // 2):
                phone.send(_numbered(message * MESSAGE_FRAMES, MESSAGE_FRAMES))
            # Answered while the front end still holds the first frame: the connection waits on no cleaning.
            assert phone.ping().wait(WAITED_SECONDS), "the phones' server did not answer the phone's ping"
            for message in range(messages // 2, messages):
                phone.send(_numbered(message * MESSAGE_FRAMES, MESSAGE_FRAMES))
            assert phone.ping().wait(WAITED_SECONDS), "the phones' server did not answer the phone's ping"
            microphone = phones.microphone("Anna")
            assert microphone is not None
            held.released.set()
            heard = list(itertools.islice(microphone.frames(before=MOST_BEHIND_SECONDS), messages * MESSAGE_FRAMES))
            assert [_number(frame) for frame in heard] == list(range(messages * MESSAGE_FRAMES))  # whole, in order
            assert microphone.dropped_seconds == 0
            assert phones.microphone("Anna") is microphone  # still joined
    finally:
        held.released.set()
        phones.stop()


def test_a_listening_cut_by_a_front_end_too_far_behind_is_ended_and_nothing_decided_from_it() -> None:
    held = HeldFrontEnd()
    microphone = PhoneMicrophone("Anna", held)
    outcome: list[BaseException | int] = []

    def listen() -> None:
        try:
            outcome.append(sum(1 for _ in microphone.frames()))
        except PhoneLost as lost:
            outcome.append(lost)

    listening = threading.Thread(target=listen, daemon=True)
    listening.start()
    behind = round(MOST_BEHIND_SECONDS / FRAME_SECONDS)

    def send() -> None:  # more than the front end may fall behind, while it holds the first frame
        for number in range(behind + 10):
            microphone.receive(_numbered(number, 1))

    sending = threading.Thread(target=send, daemon=True)
    try:
        sending.start()
        sending.join(WAITED_SECONDS)
        assert not sending.is_alive(), "the phone's sound waited on its front end"
    finally:
        held.released.set()
    listening.join(WAITED_SECONDS)
    microphone.hang_up()
    assert microphone.dropped_seconds > 0
    # Told apart from a phone gone: the phone is still joined, and its player is asked to say it again into it.
    assert len(outcome) == 1 and isinstance(outcome[0], PhoneBehind) and "dropped" in str(outcome[0])
