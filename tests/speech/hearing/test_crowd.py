"""Over other people's talk, the decoder's own words must name a meaning: Whisper base's phrase scores picked an
answer or a command from the room's talk (at a party 5 dB below the player, 37 of the 152 meanings taken from
people's recordings were wrong). Real recordings of people, said into rooms made from other people's recordings."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from voicemaster.dialogue.meaning import Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.crowd import crowded
from voicemaster.speech.hearing.intents import UNKNOWN, Understanding
from voicemaster.speech.hearing.whisper.decision import Evidence, decide
from voicemaster.speech.signal import RECOGNITION_RATE, resample, to_float
from voicemaster_lab.corpora import real_speech, rooms

CLIPS = [clip for clip in real_speech.load(("de", "en", "fr")) if clip.source == "klettres"][::12]
POOL = [rooms.Spoken(clip.path(), clip.file, clip.speaker) for clip in real_speech.load()]


def _said(room: str, label: str, snr_db: float | None) -> list[bool]:
    found = []
    for clip in CLIPS:
        spoken = rooms.Spoken(clip.path(), clip.file, clip.speaker)
        heard = rooms.through(rooms.Condition(room, label, snr_db), spoken, POOL)
        found.append(crowded(to_float(heard)))
    return found


def test_over_other_peoples_talk_an_utterance_is_crowded_in_a_room_never_and_in_a_car_seldom() -> None:
    assert len(CLIPS) >= 10
    party = _said("party", "party 5 dB", 5.0)
    assert party.count(True) >= len(party) * 2 // 3, party
    for room, label in (("living-room", "living room"), ("far", "far")):
        assert not any(_said(room, label, None)), room
    car = _said("car", "car 5 dB", 5.0)
    assert car.count(True) <= len(car) // 10, car
    assert not any(crowded(to_float(resample(Audio.read(clip.path()), RECOGNITION_RATE))) for clip in CLIPS)


def test_too_short_to_tell_is_not_crowded() -> None:
    assert not crowded(np.zeros(0, dtype=np.float32))
    assert not crowded(np.full(1000, 0.1, dtype=np.float32))


YES = (Intent.YES, None)
EVIDENCE = Evidence(YES, "ja", -1.0, -9.0, -1.0, {YES: -1.0, (Intent.NO, None): -9.0})


@pytest.mark.parametrize(
    ("crowd", "free_reading", "taken"),
    [
        (False, UNKNOWN, True),  # "Level 1." in a quiet room: the scores may decide
        (True, UNKNOWN, False),  # the same over other people's talk: asked again
        (True, Understanding(Intent.YES, None, 1.0), True),  # "Ja." read as such: taken, crowd or not
    ],
)
def test_in_a_crowd_only_the_decoders_own_words_decide(crowd: bool, free_reading: Understanding, taken: bool) -> None:
    evidence = dataclasses.replace(EVIDENCE, crowded=crowd)
    heard = decide(evidence, free_reading, "Level 1." if free_reading is UNKNOWN else "Ja.")
    assert (heard.intent == Intent.YES) is taken
