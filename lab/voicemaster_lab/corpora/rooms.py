"""The rooms people play in, as corpora: each recording of a person passed through a car, a living room, a far
corner or a party, so that `bench asr` measures the ear where the game is played, not in a studio.

- `quiet`: the recording as it was made, the baseline the other rooms are read against.
- `car`: road noise (low-frequency shaped noise with an engine's harmonics) at a stated SNR to the player's speech.
- `living-room`: an image-source room (pyroomacoustics) with a reverberation time of about half a second, the player
  two to three metres from the microphone.
- `far`: the player two metres away in a quiet, less reverberant room: faint, with the room's own hush.
- `party`: babble of several other people's real recordings (never the player's own speaker) at a stated level below
  the player.

Every clip is made from a seed of its room and its file, so a room is the same on every run and machine; the made
clips are cached in the corpus folder beside the other corpora and made again only when `RECIPE` changes. The room
simulation (pyroomacoustics, scipy) is imported here only: nothing of the product needs it.
"""

from __future__ import annotations

import functools
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
    """Car and party: the player's speech over the noise or babble, in dB."""


ROOMS: dict[str, tuple[Condition, ...]] = {
    "quiet": (Condition("quiet", "quiet"),),
    "car": (Condition("car", "car 5 dB", 5.0), Condition("car", "car 0 dB", 0.0)),
    "living-room": (Condition("living-room", "living room RT60 0.5 s"),),
    "far": (Condition("far", "far 2 m"),),
    "party": (Condition("party", "party 5 dB", 5.0), Condition("party", "party 0 dB", 0.0)),
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
    """The recording through the room of `condition`; `babble` is the pool the party draws other voices from."""
    draw = np.random.default_rng(zlib.crc32(f"{condition.label}|{spoken.key}".encode()))
    speech = samples_of(spoken.path)
    if condition.room == "car":
        assert condition.snr_db is not None
        out = speech + at_snr(speech, road_noise(len(speech), draw), condition.snr_db)
    elif condition.room == "party":
        assert condition.snr_db is not None
        others = [item for item in babble if item.speaker != spoken.speaker]
        out = speech + at_snr(speech, party_babble(len(speech), others, draw), condition.snr_db)
    elif condition.room == "living-room":
        distance = float(draw.choice(LIVING_ROOM_DISTANCES))
        out = _level_of(speech, reverberant(speech, LIVING_ROOM_SABINE, distance, int(draw.integers(4)))) + _hush(
            speech, draw
        )
    else:
        faint = _level_of(speech, reverberant(speech, FAR_ROOM_SABINE, 2.0, int(draw.integers(4)))) * 10 ** (
            FAR_LEVEL_DB / 20
        )
        out = faint + _hush(speech, draw)
    peak = float(np.max(np.abs(out))) if len(out) else 0.0
    return from_float(out / peak * 0.9 if peak > 0.99 else out, RECOGNITION_RATE)


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


def reverberant(speech: Signal, sabine: float, distance: float, position: int) -> Signal:
    """The speech at `distance` metres from the microphone in the room whose walls Sabine's formula gives for the
    reverberation time `sabine`."""
    response = room_response(sabine, distance, position)
    wet = np.convolve(speech, response)[: len(speech) + TAIL]
    return np.pad(wet, (0, len(speech) + TAIL - len(wet)))


@functools.cache
def room_response(sabine: float, distance: float, position: int) -> Signal:
    """An image-source impulse response (pyroomacoustics) of a 5 x 4 x 2.6 m room whose walls Sabine's formula
    gives for `sabine` seconds: the microphone on a table, the player at `distance` in one of four directions
    (`position`), seated height."""
    import pyroomacoustics as pra

    dimensions = [5.0, 4.0, 2.6]
    absorption, order = pra.inverse_sabine(sabine, dimensions)
    room = pra.ShoeBox(dimensions, fs=RECOGNITION_RATE, materials=pra.Material(absorption), max_order=order)
    microphone = np.array([1.2, 1.5, 0.8])
    angle = np.pi / 8 + position * np.pi / 10
    source = microphone + np.array([distance * np.cos(angle), distance * np.sin(angle), 0.4])
    room.add_source(np.clip(source, 0.3, np.array(dimensions) - 0.3).tolist())
    room.add_microphone(microphone.tolist())
    room.compute_rir()
    return np.asarray(room.rir[0][0], dtype=np.float64)


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


def _hush(speech: Signal, draw: np.random.Generator) -> Signal:
    """A quiet room's own noise, `ROOM_HUSH_DB` below the close speech, as long as the reverberant clip."""
    return at_snr(speech, draw.standard_normal(len(speech) + TAIL), ROOM_HUSH_DB)
