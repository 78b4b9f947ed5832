"""The rooms of `voicemaster bench room`, as the mixer plays them (`harness.mixer`): how the player's speech reaches
the microphone, what noise the room makes, and how the quizmaster's own voice comes back.

The player's path and the noise are `corpora.rooms`' (what `bench asr --corpora rooms` measures), so that the two
benches speak of the same rooms: `car` road noise, `living-room` reverberation at 2-3 m, `far` 2 m away and faint,
`party` other people's real recordings 5 dB under the player, `party-loud` as loud as the player; and `quiet`, the
player close in a quiet room. Levels are set on speech power (`rooms.speech_power`): the close player at
`PLAYER_DB`; noise at its SNR to that; the echo at `echo_db` above the player *as the microphone hears the player*
(so a faint player far away has a fainter echo too).

The echo is the loudspeaker's sound through its own image-source response (pyroomacoustics): a laptop's speaker
beside its microphone in the room, or a car's door speaker a metre from a microphone on the dashboard. Its level is
set from lines of the quizmaster's own voice, passed through that response.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from voicemaster.speech.signal import RECOGNITION_RATE
from voicemaster_lab.corpora import rooms
from voicemaster_lab.harness.mixer import PhoneScene, Scene, Signal

PLAYER_DB = -20.0
"""The close player's speech power at the microphone, dBFS: about that of the real-speech set's recordings and of
the quizmaster's voice as it plays them, so that with no echo the microphone hears the player as loud as the game
plays; the echo gate (`speech.hearing.endpoint.EchoGate`) compares the two."""
NOISE_SECONDS = 30
"""The room's noise is made this long and looped (without a click at the seam)."""
SEAM = RECOGNITION_RATE // 10


@dataclass(frozen=True)
class Room:
    name: str
    player: str
    """How the player reaches the microphone: "close", "living-room" (2-3 m, RT60 about 0.5 s) or "far"."""
    noise: str
    """"hush" (a quiet room's own), "road" or "babble"."""
    snr_db: float
    """The close player's speech over the noise."""
    echo: str
    """Where the loudspeaker is: "laptop-far-room", "laptop-living-room" or "car"."""


ROOMS = {
    "quiet": Room("quiet", "close", "hush", rooms.ROOM_HUSH_DB, "laptop-far-room"),
    "car": Room("car", "close", "road", 5.0, "car"),
    "living-room": Room("living-room", "living-room", "hush", rooms.ROOM_HUSH_DB, "laptop-living-room"),
    "party": Room("party", "close", "babble", 5.0, "laptop-living-room"),
    "party-loud": Room("party-loud", "close", "babble", 0.0, "laptop-living-room"),
    "far": Room("far", "far", "hush", rooms.ROOM_HUSH_DB, "laptop-far-room"),
}


def close_power() -> float:
    return float(10 ** (PLAYER_DB / 10))


def leveled(speech: Signal, power: float) -> Signal:
    """`speech` at the speech power `power`."""
    return speech * float(np.sqrt(power / (rooms.speech_power(speech) or 1.0)))


def player_at_microphone(room: Room, speech: Signal, key: str) -> Signal:
    """The player's utterance as the microphone hears it in `room` (its reverberation tail included); `key` seeds
    where in the room it is said."""
    close = leveled(speech, close_power())
    if room.player == "close":
        return close
    draw = np.random.default_rng(zlib.crc32(f"{room.name}|{key}".encode()))
    if room.player == "living-room":
        distance = float(draw.choice(rooms.LIVING_ROOM_DISTANCES))
        wet = rooms.reverberant(close, rooms.LIVING_ROOM_SABINE, distance, int(draw.integers(4)))
        return leveled(wet, close_power())
    wet = rooms.reverberant(close, rooms.FAR_ROOM_SABINE, 2.0, int(draw.integers(4)))
    return leveled(wet, close_power() * 10 ** (rooms.FAR_LEVEL_DB / 10))


def player_power(room: Room) -> float:
    """The player's speech power at the microphone in `room`."""
    return close_power() * (10 ** (rooms.FAR_LEVEL_DB / 10) if room.player == "far" else 1.0)


def noise(room: Room, babble: Sequence[rooms.Spoken], seed: int = 1) -> Signal:
    """The room's noise, `NOISE_SECONDS` long, at its level, made to loop; `babble`: the other people at a party
    (never the player's own voice: the caller leaves it out)."""
    draw = np.random.default_rng(zlib.crc32(f"{room.name}|{seed}".encode()))
    length = NOISE_SECONDS * RECOGNITION_RATE + SEAM
    if room.noise == "road":
        made = rooms.road_noise(length, draw)
    elif room.noise == "babble":
        made = rooms.party_babble(length, babble, draw)
    else:
        made = draw.standard_normal(length)
    made = made * float(np.sqrt(close_power() / 10 ** (room.snr_db / 10) / (float(np.mean(made**2)) or 1.0)))
    return looped(made, SEAM)


def looped(samples: Signal, seam: int) -> Signal:
    """`samples` less `seam` at the end, the end faded into the start: played in a loop, it has no step."""
    body = samples[:-seam].copy()
    fade = np.linspace(0.0, 1.0, seam, endpoint=False)
    body[:seam] = samples[:seam] * fade + samples[-seam:] * (1 - fade)
    return body


@functools.cache
def echo_response(where: str) -> Signal:
    """The loudspeaker-to-microphone impulse response (pyroomacoustics image sources)."""
    import pyroomacoustics as pra

    if where == "car":  # a car's cabin, its seats and roof absorbing: a door speaker, a phone on the dashboard
        dimensions, sabine = [2.6, 1.6, 1.2], 0.1
        microphone, speaker = [0.6, 0.8, 0.9], [1.3, 0.15, 0.5]
    else:  # a laptop on a table: its speaker a hand's breadth from its microphone
        dimensions = [5.0, 4.0, 2.6]
        sabine = rooms.LIVING_ROOM_SABINE if where == "laptop-living-room" else rooms.FAR_ROOM_SABINE
        microphone, speaker = [1.2, 1.5, 0.8], [1.35, 1.4, 0.78]
    absorption, order = pra.inverse_sabine(sabine, dimensions)
    room = pra.ShoeBox(dimensions, fs=RECOGNITION_RATE, materials=pra.Material(absorption), max_order=order)
    room.add_source(speaker)
    room.add_microphone(microphone)
    room.compute_rir()
    return np.asarray(room.rir[0][0], dtype=np.float64)


def echo_gain(response: Signal, voice: Sequence[Signal], power: float) -> float:
    """The factor that brings the quizmaster's `voice` (lines as it plays them), through `response`, to the speech
    power `power` at the microphone."""
    heard = [np.convolve(line, response) for line in voice]
    measured = float(np.mean([rooms.speech_power(line) for line in heard]))
    return float(np.sqrt(power / (measured or 1.0)))


def scene(
    room: Room,
    echo_db: float | None,
    delay_seconds: float,
    voice: Sequence[Signal],
    babble: Sequence[rooms.Spoken],
) -> Scene:
    """What the mixer plays in `room`: the echo at `echo_db` above the player at the microphone (None: no echo),
    `delay_seconds` after the speaker, and the room's noise; an echo louder than the player turns the microphone
    down by as much, so that it peaks where the player did (at +10 dB, a tenth of the microphone's blocks clipped)."""
    echo = None
    if echo_db is not None:
        response = echo_response(room.echo)
        echo = response * echo_gain(response, voice, player_power(room) * 10 ** (echo_db / 10))
    gain = 10 ** (-max(0.0, echo_db or 0.0) / 20)
    return Scene(echo, round(delay_seconds * RECOGNITION_RATE), noise(room, babble), gain)


# The phone at the player's mouth (`bench room --microphone phone`): the same room, the same player, the same
# loudspeaker, heard `rooms.PHONE_DISTANCE` in front of the player's mouth, held towards the table (in the car, towards
# the dashboard). Each level is set against the player as the phone hears it (its own automatic gain puts the player
# where the room's microphone has them): the noise by the room's SNR plus how much louder the phone hears the player
# than the room's microphone does (`phone_gain_db`), the echo by `echo_db` plus how much louder the phone hears the
# loudspeaker (`phone_echo_gain_db`), less that same gain. Not simulated, as in `bench asr --corpora phone`: the
# phone's own noise suppression and echo cancellation (the join page asks for them; the browser has no reference of
# the laptop's loudspeaker), its microphone's response, a codec.

PLAYER_DISTANCE = {"quiet": rooms.CLOSE_DISTANCE, "car": rooms.NOISY_ROOM_DISTANCE,
                   "party": rooms.NOISY_ROOM_DISTANCE, "party-loud": rooms.NOISY_ROOM_DISTANCE, "living-room": 2.5,
                   "far": 2.0}  # fmt: skip
"""How far the player's mouth is from the room's microphone, metres: close as `FAR_LEVEL_DB` reckons it, a metre in
the car and at the party (what their SNRs are taken to stand for, `corpora.rooms`), the living room's middle place, the
far corner's 2 m."""
CAR_CABIN = ((2.6, 1.6, 1.2), 0.1, (0.6, 0.8, 0.9), (1.3, 0.15, 0.5))
"""The car of `echo_response`: its size, Sabine time, the phone on the dashboard, the door speaker."""
DRIVER_MOUTH = (1.55, 0.6, 1.0)
"""The driver's mouth in that car, about a metre behind the dashboard's microphone."""
LAPTOP_SPEAKER = (1.35, 1.4, 0.78)


def phone_place(room: Room) -> Signal:
    """Where the phone is: `rooms.PHONE_DISTANCE` from the player's mouth, towards the room's microphone."""
    if room.echo == "car":
        mouth, microphone = np.array(DRIVER_MOUTH), np.array(CAR_CABIN[2])
    else:
        mouth, microphone = rooms.player_place(PLAYER_DISTANCE[room.name], 0), np.array(rooms.TABLE_MICROPHONE)
    towards = microphone - mouth
    return np.asarray(mouth + rooms.PHONE_DISTANCE * towards / np.linalg.norm(towards), dtype=np.float64)


@functools.cache
def phone_echo_response(room_name: str) -> Signal:
    """The loudspeaker-to-phone impulse response in `room_name` (pyroomacoustics image sources)."""
    import pyroomacoustics as pra

    room = ROOMS[room_name]
    if room.echo == "car":
        dimensions, sabine, _, speaker = CAR_CABIN
    else:
        dimensions = rooms.ROOM_DIMENSIONS
        sabine = rooms.LIVING_ROOM_SABINE if room.echo == "laptop-living-room" else rooms.FAR_ROOM_SABINE
        speaker = LAPTOP_SPEAKER
    absorption, order = pra.inverse_sabine(sabine, list(dimensions))
    made = pra.ShoeBox(list(dimensions), fs=RECOGNITION_RATE, materials=pra.Material(absorption), max_order=order)
    made.add_source(list(speaker))
    made.add_microphone(phone_place(room).tolist())
    made.compute_rir()
    return np.asarray(made.rir[0][0], dtype=np.float64)


def phone_gain_db(room: Room) -> float:
    """How much louder the phone hears the player than the room's microphone does: the inverse-distance law where the
    player is close (the rooms without reverberation of the player), the two image-source responses of the same place
    where the room reverberates (the living room, the far corner)."""
    if room.player == "close":
        return 20 * float(np.log10(PLAYER_DISTANCE[room.name] / rooms.PHONE_DISTANCE))
    sabine = rooms.LIVING_ROOM_SABINE if room.player == "living-room" else rooms.FAR_ROOM_SABINE
    distance = PLAYER_DISTANCE[room.name]
    at_phone = rooms.phone_response(sabine, distance, 0)
    at_microphone = rooms.room_response(sabine, distance, 0)
    return 10 * float(np.log10(np.sum(at_phone**2) / np.sum(at_microphone**2)))


def phone_echo_gain_db(room: Room, voice: Sequence[Signal]) -> float:
    """How much louder the phone hears the loudspeaker's `voice` than the room's microphone does."""
    at_phone = [rooms.speech_power(np.convolve(line, phone_echo_response(room.name))) for line in voice]
    at_microphone = [rooms.speech_power(np.convolve(line, echo_response(room.echo))) for line in voice]
    return 10 * float(np.log10(np.mean(at_phone) / np.mean(at_microphone)))


def player_at_phone(room: Room, speech: Signal, key: str) -> Signal:
    """The player's utterance as the phone at their mouth hears it in `room`, at the close player's level (the phone's
    gain); `key` seeds the place as `player_at_microphone` does."""
    close = leveled(speech, close_power())
    if room.player == "close":
        return close
    draw = np.random.default_rng(zlib.crc32(f"{room.name}|{key}".encode()))
    distance = float(draw.choice(rooms.LIVING_ROOM_DISTANCES)) if room.player == "living-room" else 2.0
    sabine = rooms.LIVING_ROOM_SABINE if room.player == "living-room" else rooms.FAR_ROOM_SABINE
    return leveled(rooms.reverberant(close, sabine, distance, int(draw.integers(4)), phone=True), close_power())


def phone_scene(room: Room, echo_db: float | None, voice: Sequence[Signal], noise_at_microphone: Signal) -> PhoneScene:
    """What the mixer plays into the phone besides the player: the loudspeaker through its response to the phone and
    the room's noise, each set against the player at the phone as `phone_gain_db` and `phone_echo_gain_db` say."""
    gain_db = phone_gain_db(room)
    echo = None
    if echo_db is not None:
        response = phone_echo_response(room.name)
        above_db = echo_db + phone_echo_gain_db(room, voice) - gain_db
        echo = response * echo_gain(response, voice, close_power() * 10 ** (above_db / 10))
    # The room's noise is set against the close player's level; at the microphone the player is `player_power`.
    snr_at_microphone = 10 * np.log10(player_power(room) / float(np.mean(noise_at_microphone**2)))
    noise_power = close_power() / 10 ** ((snr_at_microphone + gain_db) / 10)
    noise = noise_at_microphone * float(np.sqrt(noise_power / float(np.mean(noise_at_microphone**2))))
    return PhoneScene(echo, noise)
