"""The crowd is judged by the room: an utterance said over other people's talk is decided by the decoder's own words
only (Whisper base's phrase scores picked answers and commands from the room's talk), and a player alone is never
taken for a crowd, however short the word. Real recordings of people said into rooms made from other people's real
recordings, heard through the game's listening pipeline after the room alone, as a game hears them."""

from __future__ import annotations

import dataclasses

import pytest

from tests.fakes import UnderstandsNothing
from voicemaster.dialogue.meaning import Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.frame import FRAME_BYTES, Frame
from voicemaster.speech.frontend.room_level import RoomLevel
from voicemaster.speech.hearing.crowd import crowded
from voicemaster.speech.hearing.intents import UNKNOWN, Understanding
from voicemaster.speech.hearing.pipeline import ListeningPipeline
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.hearing.whisper.decision import Evidence, decide
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, resample
from voicemaster_lab.corpora import real_speech, room_alone, rooms
from voicemaster_lab.corpora.real_speech_sources import RealClip
from voicemaster_lab.harness.scene import ANSWER, HeardFrames
from voicemaster_lab.timing.endpoint_rooms import scene

PEOPLE = real_speech.load(("de", "en", "fr"))
SHORT_WORDS = [clip for clip in PEOPLE if clip.source == "klettres" and clip.kind in ("word", "yes", "no")] + [
    clip for clip in PEOPLE if clip.source != "klettres" and clip.kind in ("letter", "number")
][::6]
"""klettres' single words (\"ja\", \"die\", \"ein\"...) said alone, and Asterisk's and Armelle's letters and digits."""
SAMPLE = PEOPLE[::24]
POOL = [rooms.Spoken(clip.path(), clip.file, clip.speaker) for clip in PEOPLE]


def _frames(audio: Audio) -> list[bytes]:
    pcm = resample(audio, RECOGNITION_RATE).samples
    return [pcm[at : at + FRAME_BYTES] for at in range(0, len(pcm) - FRAME_BYTES + 1, FRAME_BYTES)]


def _told_crowded(clip: RealClip, room: str, snr_db: float | None, *, room_heard: bool = True) -> bool | None:
    """Whether the reader was told the utterance was crowded, the clip said into `room` after the game's microphone
    heard the room alone (`room_heard`); None when nothing was read."""
    others = [spoken for spoken in POOL if spoken.speaker != clip.speaker]
    said = scene(clip, others, room, snr_db)
    level = RoomLevel()
    for frame in _frames(said.room):
        level.hear(frame)
    reader = UnderstandsNothing()
    source = HeardFrames([Frame(frame) for frame in _frames(said.audio)])
    ListeningPipeline(source, reader, SileroVad(), room=level if room_heard else None).listen(ANSWER, timeout=10.0)
    return reader.crowded[-1] if reader.crowded else None


@pytest.mark.parametrize("every", [pytest.param(2, id="a half"), pytest.param(1, id="all", marks=pytest.mark.slow)])
def test_a_short_word_said_alone_is_never_taken_for_a_crowd(every: int) -> None:
    """Half of the words, every voice, in the default suite (its ten-minute budget); every one with the slow tests."""
    words = SHORT_WORDS[::every]
    assert len(words) >= 100 // every
    told = {clip.file: _told_crowded(clip, "quiet", None) for clip in words}
    assert sum(found is not None for found in told.values()) >= len(words) * 9 // 10, told
    assert [file for file, found in told.items() if found] == []


def test_a_short_word_cut_to_its_own_sound_is_not_a_crowd_in_a_quiet_room() -> None:
    """The rule before judged one such word in three crowded, by its own loudness range."""
    quiet = rooms.ROOMS["quiet"][0]
    for clip in SHORT_WORDS:
        spoken = rooms.Spoken(clip.path(), clip.file, clip.speaker)
        floor = room_alone.floor(room_alone.alone(quiet, spoken, (), clip.path()))
        word = from_float(rooms.trimmed(rooms.samples_of(clip.path())), RECOGNITION_RATE)
        assert not crowded(word, floor), clip.file


def test_over_other_peoples_talk_the_player_is_taken_for_a_crowd_in_a_car_seldom() -> None:
    assert len(SAMPLE) >= 20
    party = [_told_crowded(clip, "party", 5.0) for clip in SAMPLE]
    assert party.count(True) >= len(SAMPLE) * 2 // 3, party
    car = [_told_crowded(clip, "car", 5.0) for clip in SAMPLE]
    assert car.count(True) <= len(SAMPLE) // 10, car


def test_a_room_not_heard_yet_makes_nobody_a_crowd() -> None:
    party = [_told_crowded(clip, "party", 5.0, room_heard=False) for clip in SAMPLE[:8]]
    assert True not in party and party.count(False) >= 4, party
    assert not crowded(Audio(bytes(2 * RECOGNITION_RATE), RECOGNITION_RATE), None)
    assert not crowded(Audio(b"", RECOGNITION_RATE), 1.0)


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
