"""`voicemaster bench phones`: what the phone's transport adds to felt latency, on loopback.

A real phones' server (`voicemaster.phones.server.Phones`: HTTPS, the game's code, its guards) on loopback, and a
phone that joins as a player over `wss://.../sound` and sends 32 ms frames of 16-bit sound in real time, as the join
page's AudioWorklet does. The phone is a process of its own (as a phone is a device of its own: its work does not
take the game's interpreter), and keeps each frame's send time; each frame also carries its number in its first
samples. The game's side reads the player's `PhoneMicrophone.frames()` as the listening pipeline does and notes when
each frame is delivered. Figures: from send to delivery p50, p95 and max in ms, frames lost, whether they came in
order.

Measured twice: without a front end, and with the game's echo canceller (`open_front_end(echo_cancel=True,
noise_suppression=False)` given to `Phones(front_end=...)`, with the barge-in filter) that each phone's frames pass on
arrival, the loudspeaker playing all the while (noise at a voice's level into `PlayedSound`), so that the canceller
works as it does while the quizmaster speaks. The canceller changes the samples, so there frames are matched to their
send times by order and their numbers are not read.

Not measured: the phone's own capture path (its microphone, the browser's noise suppression and gain, the 32 ms a
frame takes to fill, the same as the room's microphone's frames), Wi-Fi, and the canceller's own 10 ms step (the
`frontend.chunked` output runs one step behind its input: sound, not time of delivery).
"""

from __future__ import annotations

import multiprocessing
import socket
import ssl
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from voicemaster.speech.frame import FRAME_BYTES, FRAME_SAMPLES, FRAME_SECONDS

PLAYER = "Anna"
JOINED_SECONDS = 30.0
"""How long the phone may take to connect and join on a loaded machine: a guard, not a measurement."""
MODES = ("none", "webrtc-aec")
"""Without a front end, and with the game's echo canceller."""


def run(seconds: float, modes: tuple[str, ...] = MODES) -> dict[str, Any]:
    frames = max(1, round(seconds / FRAME_SECONDS))
    return {
        "benchmark": "phones",
        "seconds": round(frames * FRAME_SECONDS, 3),
        "frame_ms": round(FRAME_SECONDS * 1000),
        "frames_sent": frames,
        "modes": {mode: _measure(mode, frames) for mode in modes},
    }


def _measure(mode: str, frames: int) -> dict[str, Any]:
    from voicemaster.phones.server import Phones
    from voicemaster.speech.devices.phone import PhoneLost, PhoneMicrophone
    from voicemaster.speech.frontend import FrontEnd, PlayedSound, open_front_end

    played = PlayedSound() if mode != "none" else None
    front_end: Callable[[], FrontEnd] | None = None
    if mode != "none":

        def front_end() -> FrontEnd:
            return open_front_end(echo_cancel=True, noise_suppression=False)

    delivered: list[tuple[float, bytes]] = []
    with (
        tempfile.TemporaryDirectory(prefix="voicemaster-phones-") as folder,
        Phones(Path(folder), played=played, front_end=front_end, players=(PLAYER,), port=0) as phones,
    ):
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        phone = context.Process(target=_phone, args=(phones.port, phones.code, frames, theirs), daemon=True)
        phone.start()
        stop = threading.Event()
        try:
            microphone = _joined(phones.microphone, ours)
            speaker = threading.Thread(target=_loudspeaker, args=(played, stop), daemon=True)
            if played is not None:
                speaker.start()

            def listen(heard: PhoneMicrophone) -> None:
                try:
                    for frame in heard.frames(before=60.0):
                        delivered.append((time.monotonic(), frame.samples))
                except PhoneLost:
                    pass  # the phone hung up after its last frame

            listener = threading.Thread(target=listen, args=(microphone,), daemon=True)
            listener.start()
            ours.send("go")
            sent: list[float] = ours.recv() if ours.poll(frames * FRAME_SECONDS + JOINED_SECONDS) else []
            listener.join(timeout=JOINED_SECONDS)
        finally:
            stop.set()
            phone.join(timeout=JOINED_SECONDS)
            if phone.is_alive():
                phone.kill()
    return _figures(mode, sent, delivered, frames)


def _joined(microphone: Callable[[str], Any], pipe: Connection) -> Any:
    """The player's microphone once the phone has joined; the phone says when it has connected, or why not."""
    if not pipe.poll(JOINED_SECONDS):
        raise RuntimeError("the phone never connected")
    said = pipe.recv()
    if said != "connected":
        raise RuntimeError(f"the phone could not connect: {said}")
    deadline = time.monotonic() + JOINED_SECONDS
    while time.monotonic() < deadline:
        found = microphone(PLAYER)
        if found is not None:
            return found
        time.sleep(0.005)
    raise RuntimeError("the phone connected but never joined")


def _loudspeaker(played: Any, stop: threading.Event) -> None:
    """The quizmaster speaking all the while: noise at a voice's level, a frame every 32 ms."""
    draw = np.random.default_rng(1)
    started = time.monotonic()
    index = 0
    while not stop.is_set():
        played.add((draw.standard_normal(FRAME_SAMPLES) * 3000).astype("<i2").tobytes())
        index += 1
        time.sleep(max(0.0, started + index * FRAME_SECONDS - time.monotonic()))


def numbered(index: int, draw: np.random.Generator) -> bytes:
    """Frame `index`: a little noise, as a phone in a quiet room sends, its number in its first two samples."""
    samples = (draw.standard_normal(FRAME_SAMPLES) * 300).astype("<i2")
    samples[0], samples[1] = index & 0x7FFF, index >> 15
    return samples.tobytes()


def number_of(frame: bytes) -> int:
    samples = np.frombuffer(frame[:4], dtype="<i2")
    return int(samples[0]) | int(samples[1]) << 15


def _phone(port: int, code: str, frames: int, pipe: Connection) -> None:
    """The phone, in a process of its own: joins, waits for the go, sends `frames` frames in real time (each when
    its 32 ms are up, as the page's AudioWorklet posts them), hangs up and hands back each frame's send time."""
    from websockets.sync.client import connect

    unverified = ssl.create_default_context()
    unverified.check_hostname = False
    unverified.verify_mode = ssl.CERT_NONE
    try:
        wire = socket.create_connection(("127.0.0.1", port), timeout=JOINED_SECONDS)
        client = connect(
            f"wss://127.0.0.1:{port}/sound?code={code}&player={PLAYER}",
            sock=wire,
            ssl=unverified,
            server_hostname="127.0.0.1",
            open_timeout=JOINED_SECONDS,  # the handshake on a loaded machine: websockets' own 10 s timed out
        )
    except Exception as error:  # said to the bench, which raises it
        pipe.send(f"{type(error).__name__}: {error}")
        return
    draw = np.random.default_rng(0)
    ready = [numbered(index, draw) for index in range(frames)]
    sent: list[float] = []
    with client:
        pipe.send("connected")
        pipe.recv()
        started = time.monotonic()
        for index, frame in enumerate(ready):
            time.sleep(max(0.0, started + (index + 1) * FRAME_SECONDS - time.monotonic()))
            sent.append(time.monotonic())
            client.send(frame)
        time.sleep(0.5)  # the last frames delivered before the phone hangs up
    pipe.send(sent)


def _figures(mode: str, sent: list[float], delivered: list[tuple[float, bytes]], frames: int) -> dict[str, Any]:
    if mode == "none":
        numbers = [number_of(samples) for _, samples in delivered]
        in_order: bool | None = numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
        delays = [(at - sent[number]) * 1000 for (at, _), number in zip(delivered, numbers, strict=True)]
    else:
        in_order = None  # the canceller changes the samples: matched by order
        delays = [(at - when) * 1000 for (at, _), when in zip(delivered, sent, strict=False)]
    ordered = sorted(delays)
    return {
        "frames_sent": len(sent),
        "frames_delivered": len(delivered),
        "frames_lost": frames - len(delivered),
        "in_order": in_order,
        "all_whole": all(len(samples) == FRAME_BYTES for _, samples in delivered),
        "delay_ms": {
            "p50": round(statistics.median(ordered), 2) if ordered else None,
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2) if ordered else None,
            "max": round(ordered[-1], 2) if ordered else None,
            "mean": round(statistics.fmean(ordered), 2) if ordered else None,
        },
    }


def report(figures: dict[str, Any]) -> str:
    out = [
        f"The phone's transport on loopback: {figures['frames_sent']} frames of {figures['frame_ms']} ms "
        f"({figures['seconds']:g} s) sent in real time over wss:// to a real phones' server, from each frame's send "
        "to its delivery by PhoneMicrophone.frames()."
    ]
    for mode, measured in figures["modes"].items():
        delay = measured["delay_ms"]
        name = "no front end" if mode == "none" else "the echo canceller (AEC3, barge-in filter), our voice playing"
        order = {True: ", in order", False: ", OUT OF ORDER", None: ""}[measured["in_order"]]
        out.append(
            f"{name}: p50 {delay['p50']} ms, p95 {delay['p95']} ms, max {delay['max']} ms; "
            f"{measured['frames_delivered']} of {measured['frames_sent']} delivered, {measured['frames_lost']} lost"
            f"{order}"
        )
    return "\n".join(out)
