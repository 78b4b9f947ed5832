"""The rooms people play in, as corpora: each recording of a person passed through a car, a living room, a far
corner or a party, so that `bench asr` measures the ear where the game is played, not in a studio.

- `quiet`: the recording as it was made, the baseline the other rooms are read against.
- `cut`: the recording cut to the word's own sound, no silence before or after (`trimmed`), as a close recording or a
  tight endpointer hands it to the ear: one short word then spans little of the loudness range, which the crowd rule
  before took for a crowd (docs/decisions/022-crowd-by-the-room.md).
- `car`: road noise (low-frequency shaped noise with an engine's harmonics) at a stated SNR to the player's speech.
- `living-room`: an image-source room (pyroomacoustics) with a reverberation time of about half a second, the player
  two to three metres from the microphone.
- `far`: the player two metres away in a quiet, less reverberant room: faint, with the room's own hush.
- `party`: babble of several other people's real recordings (never the player's own speaker) at a stated level below
  the player.
- `phone`: the same rooms heard by a phone held at the player's mouth (`PHONE_DISTANCE`, about 20 cm) instead of the
  room's microphone: the same player at the same place, the same noise, drawn from the room's own seed.

The phone's conditions, and what they stand on:
- `phone living room`, `phone far`: pyroomacoustics' image-source response of the same room from the player's place
  to a phone `PHONE_DISTANCE` in front of the mouth (towards the table), so that the direct sound over the room's
  reverberation follows from the geometry, not from a guess. The room's hush, a diffuse field as loud at the phone as
  at the table, is `ROOM_HUSH_DB` plus the inverse-distance gain from `CLOSE_DISTANCE` to the phone below the player.
- `phone car 0 dB`, `phone party 5 dB`, `phone party 0 dB`: road noise and babble are diffuse fields, as loud at the
  phone as at the room's microphone, while the player's direct sound grows by the inverse-distance law from where the
  room's microphone is to the phone: `PHONE_GAIN_DB` (about 14 dB) over the room's SNR. The rooms' own SNRs never
  said where the microphone is; they are taken here to stand for a laptop's microphone `NOISY_ROOM_DISTANCE` (1 m)
  from the player, where a party at a normal-to-raised voice puts the player 0-5 dB over four other talkers. (`bench
  room` calls that player "close", and `FAR_LEVEL_DB` reckons close as 0.3 m: read so, the phone would gain only
  3.5 dB.) The car's and the party's player stay dry, as in the rooms' own conditions.
- Not simulated: the phone's own noise suppression, echo cancellation and automatic gain (the join page asks the
  browser for them), its microphone's response and any codec; the player's mouth's directivity (which favours the
  phone in front of it a little more); nearby talkers closer to the phone than the diffuse field; handling noise and a
  hand moving the phone; Wi-Fi losses (`bench phones` measures the transport on loopback).

Every clip is made from a seed of its room and its file, so a room is the same on every run and machine; the made
clips are cached in the corpus folder beside the other corpora and made again only when `RECIPE` changes. The room
simulation (pyroomacoustics, scipy) is imported here only: nothing of the product needs it.
"""

from __future__ import annotations

import functools
import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from voicemaster.speech.audio import Audio
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, resample, to_float

RECIPE = 1
"""Raise it whenever a change here changes the made clips, so that cached rooms are made again."""

Signal = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Condition:
    """One room at one level: the name `bench asr` reports it under and how its clips are made."""

    room: str
    label: str
    snr_db: float | None = None
    """Car and party: the player's speech over the noise or babble, in dB, as the room's microphone hears them (a
    phone hears the player `PHONE_GAIN_DB` louder)."""
    of: str | None = None
    """A phone's condition: the label of the room's own condition it hears the same player, place and noise of (the
    clip's seed is that condition's); None for the room's microphone."""

    @property
    def phone(self) -> bool:
        return self.of is not None


ROOMS: dict[str, tuple[Condition, ...]] = {
    "quiet": (Condition("quiet", "quiet"),),
    "cut": (Condition("cut", "cut to the word"),),
    "car": (Condition("car", "car 5 dB", 5.0), Condition("car", "car 0 dB", 0.0)),
    "living-room": (Condition("living-room", "living room RT60 0.5 s"),),
    "far": (Condition("far", "far 2 m"),),
    "party": (Condition("party", "party 5 dB", 5.0), Condition("party", "party 0 dB", 0.0)),
    "phone": (
        Condition("living-room", "phone living room", of="living room RT60 0.5 s"),
        Condition("far", "phone far", of="far 2 m"),
        Condition("car", "phone car 0 dB", 0.0, of="car 0 dB"),
        Condition("party", "phone party 5 dB", 5.0, of="party 5 dB"),
        Condition("party", "phone party 0 dB", 0.0, of="party 0 dB"),
    ),
}

BABBLERS = 4
"""Other people talking at the party at once."""
ROOM_HUSH_DB = 45.0
"""A quiet room's own noise (air, a fridge), below the player's speech close to the microphone."""
LIVING_ROOM_DISTANCES = (2.0, 2.5, 3.0)
"""Where the player sits from the microphone in the living room: a few places, so that a dozen responses serve all."""
LIVING_ROOM_SABINE = 0.4
FAR_ROOM_SABINE = 0.25
"""The reverberation times asked of Sabine's formula (`pyroomacoustics.inverse_sabine`): in this room's image-source
response the decay measures longer than asked, so these are chosen for the measured RT60 (`measured_rt60`) to be the
room's: about half a second in the living room, less in the far corner (docs/benchmarks.md)."""
TAIL = RECOGNITION_RATE * 4 // 10
"""The reverberation kept after the recording's end: a room's echo goes on after the player stops."""
FAR_LEVEL_DB = -16.0
"""The player at 2 m against close to the microphone (about 0.3 m): the inverse-distance law."""
CLOSE_DISTANCE = 0.3
"""Close to the microphone, as `FAR_LEVEL_DB` and `ROOM_HUSH_DB` reckon it, in metres."""
PHONE_DISTANCE = 0.2
"""A phone held at the player's mouth (in the hand below the chin, or up like the quiz show's microphone), metres."""
NOISY_ROOM_DISTANCE = 1.0
"""The room's microphone from the player that the car's and the party's SNRs stand for (an assumption: a laptop on
the table about a metre away; the rooms never said)."""
PHONE_GAIN_DB = 20 * math.log10(NOISY_ROOM_DISTANCE / PHONE_DISTANCE)
"""How much louder a phone at the mouth hears the player against a diffuse noise than the room's microphone does in
the car and at the party: the inverse-distance law, about 14 dB."""
PHONE_HUSH_DB = ROOM_HUSH_DB + 20 * math.log10(CLOSE_DISTANCE / PHONE_DISTANCE)
"""A quiet room's own noise below the player at the phone."""


@dataclass(frozen=True)
class Spoken:
    """A recording to pass through a room, and whose voice it is (so the party's babble is never the player's)."""

    path: Path
    key: str
    """Names the clip in the seed and the cache, independent of where the recordings are installed."""
    speaker: str


def made(condition: Condition, spoken: Spoken, babble: Sequence[Spoken], folder: Path) -> Path:
    """The clip as heard in the room, made once into `folder` and read from there after; the quiet room's is the
    recording itself."""
    if condition.room == "quiet":
        return spoken.path
    target = (
        folder
        / f"rooms-{RECIPE}"
        / condition.label.replace(" ", "-")
        / (Path(spoken.key).with_suffix("").as_posix().replace("/", "_") + ".wav")
    )
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        heard = through(condition, spoken, babble)
        partial = target.with_suffix(".part")
        heard.write(partial)
        partial.replace(target)
    return target


def through(condition: Condition, spoken: Spoken, babble: Sequence[Spoken]) -> Audio:
    """The recording through the room of `condition`; `babble` is the pool the party draws other voices from. A
    phone's condition draws as the room's own does, so it hears the same player at the same place and the same
    noise."""
    out = mixed(condition, spoken, babble)
    return from_float(within_full_scale(out, out), RECOGNITION_RATE)


def mixed(condition: Condition, spoken: Spoken, babble: Sequence[Spoken]) -> Signal:
    """The recording through the room, before it is kept within full scale (`within_full_scale`)."""
    draw = np.random.default_rng(zlib.crc32(f"{condition.of or condition.label}|{spoken.key}".encode()))
    speech = samples_of(spoken.path)
    gain = PHONE_GAIN_DB if condition.phone else 0.0
    if condition.room == "cut":
        out = trimmed(speech)
    elif condition.room == "car":
        assert condition.snr_db is not None
        out = speech + at_snr(speech, road_noise(len(speech), draw), condition.snr_db + gain)
    elif condition.room == "party":
        assert condition.snr_db is not None
        others = [item for item in babble if item.speaker != spoken.speaker]
        out = speech + at_snr(speech, party_babble(len(speech), others, draw), condition.snr_db + gain)
    elif condition.room == "living-room":
        distance = float(draw.choice(LIVING_ROOM_DISTANCES))
        wet = reverberant(speech, LIVING_ROOM_SABINE, distance, int(draw.integers(4)), phone=condition.phone)
        out = _level_of(speech, wet) + _hush(speech, draw, PHONE_HUSH_DB if condition.phone else ROOM_HUSH_DB)
    elif condition.phone:
        wet = reverberant(speech, FAR_ROOM_SABINE, 2.0, int(draw.integers(4)), phone=True)
        out = _level_of(speech, wet) + _hush(speech, draw, PHONE_HUSH_DB)
    else:
        faint = _level_of(speech, reverberant(speech, FAR_ROOM_SABINE, 2.0, int(draw.integers(4)))) * 10 ** (
            FAR_LEVEL_DB / 20
        )
        out = faint + _hush(speech, draw)
    return out


def within_full_scale(signal: Signal, clip: Signal) -> Signal:
    """`signal` turned down as the made `clip` is so that it stays within full scale (a peak above 0.99 brought to
    0.9): the room heard before the player (`corpora.room_alone`) is turned down with the clip it precedes."""
    peak = float(np.max(np.abs(clip))) if len(clip) else 0.0
    return signal / peak * 0.9 if peak > 0.99 else signal


def road_noise(length: int, draw: np.random.Generator) -> Signal:
    """A car at speed: noise falling off steeply above a few hundred hertz (tyres, wind in the body), and an
    engine's firing frequency with its harmonics, wandering a little as the engine does."""
    spectrum = np.fft.rfft(draw.standard_normal(length))
    frequencies = np.fft.rfftfreq(length, 1 / RECOGNITION_RATE)
    shape = 1 / (1 + (frequencies / 120.0) ** 2)  # -12 dB an octave above 120 Hz
    rumble = np.fft.irfft(spectrum * shape, n=length)
    rumble /= np.sqrt(np.mean(rumble**2)) or 1.0
    seconds = np.arange(length) / RECOGNITION_RATE
    firing = draw.uniform(50.0, 80.0) * (1 + 0.02 * np.sin(2 * np.pi * draw.uniform(0.1, 0.4) * seconds))
    phase = 2 * np.pi * np.cumsum(firing) / RECOGNITION_RATE
    engine = sum(np.sin(harmonic * phase + draw.uniform(0, 2 * np.pi)) / harmonic for harmonic in (1, 2, 3, 4))
    engine = np.asarray(engine, dtype=np.float64)
    engine /= np.sqrt(np.mean(engine**2)) or 1.0
    return rumble + 0.5 * engine


def party_babble(length: int, others: Sequence[Spoken], draw: np.random.Generator) -> Signal:
    """`BABBLERS` other people, each of another speaker than the rest where there are enough, talking without a
    pause over the whole clip (their recordings strung together from a random start), each as loud as the others."""
    speakers = sorted({item.speaker for item in others})
    if not speakers:
        raise ValueError("a party needs recordings of other speakers than the player")
    chosen = draw.choice(speakers, size=BABBLERS, replace=len(speakers) < BABBLERS)
    total = np.zeros(length)
    for speaker in chosen:
        own = [item for item in others if item.speaker == speaker]
        stream: list[Signal] = []
        while sum(len(part) for part in stream) < 2 * length:
            stream.append(trimmed(samples_of(own[int(draw.integers(len(own)))].path)))
        talk = np.concatenate(stream)
        start = int(draw.integers(max(1, len(talk) - length)))
        voice = talk[start : start + length]
        total += voice / (np.sqrt(np.mean(voice**2)) or 1.0)
    return total


def reverberant(speech: Signal, sabine: float, distance: float, position: int, *, phone: bool = False) -> Signal:
    """The speech at `distance` metres from the microphone in the room whose walls Sabine's formula gives for the
    reverberation time `sabine`; with `phone`, as a phone at the player's mouth hears it there instead."""
    response = phone_response(sabine, distance, position) if phone else room_response(sabine, distance, position)
    wet = np.convolve(speech, response)[: len(speech) + TAIL]
    return np.pad(wet, (0, len(speech) + TAIL - len(wet)))


ROOM_DIMENSIONS = (5.0, 4.0, 2.6)
TABLE_MICROPHONE = (1.2, 1.5, 0.8)


def player_place(distance: float, position: int) -> Signal:
    """Where the player's mouth is: `distance` from the microphone on the table in one of four directions
    (`position`), seated height, kept 0.3 m off the walls."""
    microphone = np.array(TABLE_MICROPHONE)
    angle = np.pi / 8 + position * np.pi / 10
    source = microphone + np.array([distance * np.cos(angle), distance * np.sin(angle), 0.4])
    return np.asarray(np.clip(source, 0.3, np.array(ROOM_DIMENSIONS) - 0.3), dtype=np.float64)


@functools.cache
def room_response(sabine: float, distance: float, position: int) -> Signal:
    """An image-source impulse response (pyroomacoustics) of a 5 x 4 x 2.6 m room whose walls Sabine's formula
    gives for `sabine` seconds: the microphone on a table, the player at `distance` in one of four directions
    (`position`), seated height."""
    return _response(sabine, player_place(distance, position), np.array(TABLE_MICROPHONE))


@functools.cache
def phone_response(sabine: float, distance: float, position: int) -> Signal:
    """The same room and player's place as `room_response`, heard by a phone `PHONE_DISTANCE` in front of the
    player's mouth, held towards the table."""
    mouth = player_place(distance, position)
    towards = np.array(TABLE_MICROPHONE) - mouth
    return _response(sabine, mouth, mouth + PHONE_DISTANCE * towards / np.linalg.norm(towards))


def _response(sabine: float, source: Signal, microphone: Signal) -> Signal:
    import pyroomacoustics as pra

    dimensions = list(ROOM_DIMENSIONS)
    absorption, order = pra.inverse_sabine(sabine, dimensions)
    room = pra.ShoeBox(dimensions, fs=RECOGNITION_RATE, materials=pra.Material(absorption), max_order=order)
    room.add_source(source.tolist())
    room.add_microphone(microphone.tolist())
    room.compute_rir()
    return np.asarray(room.rir[0][0], dtype=np.float64)


def direct_to_reverberant_db(response: Signal) -> float:
    """The energy of an impulse response within 2.5 ms of its direct sound (its peak) over all after, in dB."""
    peak = int(np.argmax(np.abs(response)))
    window = RECOGNITION_RATE * 25 // 10_000
    direct = float(np.sum(response[max(0, peak - window) : peak + window] ** 2))
    rest = float(np.sum(response[peak + window :] ** 2)) or 1e-30
    return 10 * math.log10(direct / rest)


def measured_rt60(response: Signal) -> float:
    """The reverberation time of an impulse response as measured (Schroeder's backward integration)."""
    import pyroomacoustics as pra

    return float(pra.experimental.measure_rt60(response, fs=RECOGNITION_RATE))


def samples_of(path: Path) -> Signal:
    return to_float(resample(Audio.read(path), RECOGNITION_RATE)).astype(np.float64)


def trimmed(samples: Signal) -> Signal:
    """A recording without its silent ends: babble is talk, not the pauses around it."""
    loud = np.flatnonzero(np.abs(samples) > 0.05 * (np.max(np.abs(samples)) or 1.0))
    return samples[loud[0] : loud[-1] + 1] if len(loud) else samples


def speech_power(speech: Signal) -> float:
    """The mean power of the frames that hold speech (within 30 dB of the loudest 20 ms): the SNR's reference, so
    that silence around a short word does not make the noise look louder than it is."""
    frame = RECOGNITION_RATE // 50
    frames = speech[: len(speech) // frame * frame].reshape(-1, frame) if len(speech) >= frame else speech[None, :]
    powers = np.mean(frames**2, axis=1)
    active = powers[powers >= np.max(powers) * 10**-3]
    return float(np.mean(active)) if len(active) else 0.0


def at_snr(speech: Signal, noise: Signal, snr_db: float) -> Signal:
    """`noise` scaled so that the speech is `snr_db` above it."""
    power = float(np.mean(noise**2)) or 1.0
    return noise * float(np.sqrt(speech_power(speech) / power / 10 ** (snr_db / 10)))


def _level_of(reference: Signal, signal: Signal) -> Signal:
    """`signal` as loud (in speech power) as `reference`: the room changes how it sounds, not how loud it is."""
    return signal * float(np.sqrt(speech_power(reference) / (speech_power(signal) or 1.0)))


def _hush(speech: Signal, draw: np.random.Generator, below_db: float = ROOM_HUSH_DB) -> Signal:
    """A quiet room's own noise, `below_db` below the speech (`ROOM_HUSH_DB`: the close speech), as long as the
    reverberant clip."""
    return at_snr(speech, draw.standard_normal(len(speech) + TAIL), below_db)
