"""The room heard alone before the player speaks, for each room of `corpora.rooms`: what the game's room level
(`frontend.room_level.RoomLevel`) has learnt by the time a player answers, so that `bench asr` judges a clip crowded
as the listening pipeline does (`speech.hearing.crowd`).

`room_level.FLOOR_SECONDS` of the same room at the same level against the same player: at the party other stretches
of other people's talk (a draw of its own), in the car the road, elsewhere the room's hush (`rooms.ROOM_HUSH_DB` below
close speech, a phone's `PHONE_HUSH_DB`); `quiet`, the recordings as made, is taken to be said in such a hush. Turned
down with the clip where the clip was (`rooms.within_full_scale`). Made once into the corpus folder, beside the rooms.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from voicemaster.speech.audio import Audio
from voicemaster.speech.frame import FRAME_BYTES
from voicemaster.speech.frontend.room_level import FLOOR_SECONDS, RoomLevel
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, resample
from voicemaster_lab.corpora import rooms

RECIPE = 1
"""Raise it whenever a change here changes the rooms heard alone, so that cached ones are made again."""
QUIET = rooms.ROOMS["quiet"][0]
"""The room the recordings as made (`bench asr --corpora real,options`) are taken to be said in."""


def made(condition: rooms.Condition, spoken: rooms.Spoken, babble: Sequence[rooms.Spoken], folder: Path) -> Path:
    """The room of `condition` heard alone before `spoken` is said in it, made once into `folder`."""
    target = (
        folder
        / f"rooms-{rooms.RECIPE}"
        / f"alone-{RECIPE}"
        / condition.label.replace(" ", "-")
        / (Path(spoken.key).with_suffix("").as_posix().replace("/", "_") + ".wav")
    )
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".part")
        alone(condition, spoken, babble, rooms.made(condition, spoken, babble, folder)).write(partial)
        partial.replace(target)
    return target


def alone(condition: rooms.Condition, spoken: rooms.Spoken, babble: Sequence[rooms.Spoken], made_clip: Path) -> Audio:
    """`FLOOR_SECONDS` of the room of `condition` without the player, as loud against `spoken` as in its clip
    (`made_clip`, `rooms.made`)."""
    draw = np.random.default_rng(zlib.crc32(f"{condition.of or condition.label}|{spoken.key}|alone".encode()))
    speech = rooms.samples_of(spoken.path)
    length = round(FLOOR_SECONDS * RECOGNITION_RATE)
    gain = rooms.PHONE_GAIN_DB if condition.phone else 0.0
    if condition.room == "car":
        assert condition.snr_db is not None
        room = rooms.at_snr(speech, rooms.road_noise(length, draw), condition.snr_db + gain)
    elif condition.room == "party":
        assert condition.snr_db is not None
        others = [item for item in babble if item.speaker != spoken.speaker]
        room = rooms.at_snr(speech, rooms.party_babble(length, others, draw), condition.snr_db + gain)
    else:
        below = rooms.PHONE_HUSH_DB if condition.phone else rooms.ROOM_HUSH_DB
        room = rooms.at_snr(speech, draw.standard_normal(length), below)
    if condition.room != "quiet" and _turned_down(made_clip):
        room = rooms.within_full_scale(room, rooms.mixed(condition, spoken, babble))
    return from_float(room, RECOGNITION_RATE)


def _turned_down(clip: Path) -> bool:
    """Whether the made clip may have been turned down to stay within full scale: its peak is then 0.9 to the bit
    (mixing it again, a second room simulation, is worth it only then)."""
    samples = np.frombuffer(Audio.read(clip).samples, dtype="<i2")
    return len(samples) > 0 and abs(int(np.max(np.abs(samples.astype(np.int32)))) - round(0.9 * 32768)) <= 1


def floor(room: Audio) -> float | None:
    """The room's floor as the game's `RoomLevel` has it after hearing `room` alone."""
    level = RoomLevel()
    pcm = resample(room, RECOGNITION_RATE).samples
    for at in range(0, len(pcm) - FRAME_BYTES + 1, FRAME_BYTES):
        level.hear(pcm[at : at + FRAME_BYTES])
    return level.floor()
