"""The room's floor: at a party, other people's talk keeps the voice-activity model on, and only the player's level
over the room ends an utterance; in a quiet room and in a car the floor changes nothing. Real recordings of people,
said into rooms made from other people's real recordings (`voicemaster bench endpoint` measures the same at scale)."""

from __future__ import annotations

import numpy as np

from voicemaster.speech.devices.interfaces import FRAME_SAMPLES, FRAME_SECONDS
from voicemaster.speech.frontend.room_level import AFTER_PLAYING_SECONDS, RoomLevel
from voicemaster.speech.hearing.endpoint import EndpointSettings
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster_lab.corpora import real_speech, rooms
from voicemaster_lab.timing import endpoint_rooms

CLIPS = real_speech.load(("de", "en", "fr"))[::40]
POOL = [rooms.Spoken(clip.path(), clip.file, clip.speaker) for clip in real_speech.load()]
MARGIN = EndpointSettings().floor_margin_db


def _outcomes(room: str, snr_db: float | None, margin: float | None) -> list[str]:
    vad = SileroVad()
    found = []
    for clip in CLIPS:
        others = [spoken for spoken in POOL if spoken.speaker != clip.speaker]
        quiet = endpoint_rooms.listen(endpoint_rooms.scene(clip, others, "quiet", None), vad, None)
        found.append(
            endpoint_rooms.outcome(
                endpoint_rooms.listen(endpoint_rooms.scene(clip, others, room, snr_db), vad, margin), quiet
            )
        )
    return found


def test_at_a_party_the_players_answer_ends_once_they_stop_and_without_the_floor_it_never_does() -> None:
    assert len(CLIPS) >= 10
    assert _outcomes("party", 5.0, None) == ["never_ended"] * len(CLIPS)
    with_floor = _outcomes("party", 5.0, MARGIN)
    assert with_floor.count("within_1s") >= len(CLIPS) // 2, with_floor


def test_in_a_quiet_room_and_in_a_car_the_floor_changes_nothing() -> None:
    for room, snr_db in (("quiet", None), ("car", 5.0)):
        assert _outcomes(room, snr_db, MARGIN) == _outcomes(room, snr_db, None), room


def _frame(level: float, seed: int) -> bytes:
    noise = np.random.default_rng(seed).standard_normal(FRAME_SAMPLES) * level
    return np.round(noise).astype("<i2").tobytes()


def test_the_floor_is_the_rooms_own_never_our_voice_and_unknown_until_the_room_was_heard_a_second() -> None:
    room = RoomLevel()
    for index in range(round(3.0 / FRAME_SECONDS)):  # our own voice, loud, for three seconds
        room.hear(_frame(8000.0, index), playing=True)
    assert room.floor() is None
    quiet_frames = round((AFTER_PLAYING_SECONDS + 1.0) / FRAME_SECONDS) + 1
    for index in range(quiet_frames):  # then the room alone, faint: its echo tail is not counted either
        room.hear(_frame(30.0, 1000 + index), playing=False)
    quiet = RoomLevel()
    for index in range(quiet_frames):
        quiet.hear(_frame(30.0, 1000 + index), playing=False)
    floor, alone = room.floor(), quiet.floor()
    assert floor is not None and alone is not None
    assert floor < 2 * alone  # within 3 dB of the room heard alone, where our voice is 48 dB louder
