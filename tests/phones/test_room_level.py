"""A phone learns how loud the room is where its player stands from what it heard while nobody listened, as the
room's microphone does: at a party the next answer is then told from the others' talk by its level. Never from
sound heard while the quizmaster's voice (or its echo's tail) may be in it."""

from __future__ import annotations

from voicemaster.phones.server import BEHIND_SECONDS
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.phone import PhoneMicrophone
from voicemaster.speech.frame import FRAME_BYTES
from voicemaster.speech.frontend import PlayedSound
from voicemaster.speech.signal import RECOGNITION_RATE, resample
from voicemaster_lab.corpora import real_speech

WAITED_SECONDS = 30.0
"""How long the phone's front end may take to clean what it was sent on a loaded machine: a guard, not a measure."""
PRE_ROLL_SECONDS = 0.3


def _room_talk(seconds: float) -> bytes:
    """Other people talking: real recordings of people, one after the other, as 16 kHz 16-bit sound."""
    talk = bytearray()
    for clip in real_speech.load():
        talk += resample(Audio.read(clip.path()), RECOGNITION_RATE).samples
        if len(talk) >= 2 * seconds * RECOGNITION_RATE:
            break
    whole = len(talk) // FRAME_BYTES * FRAME_BYTES
    return bytes(talk[:whole])


def _heard_unlistened(played: PlayedSound, voice_playing: bool) -> PhoneMicrophone:
    """A phone that heard the room's talk for three seconds while the game decided, then is listened to."""
    phone = PhoneMicrophone("Anna", played=played.branch(BEHIND_SECONDS))
    for start in range(0, len(talk := _room_talk(3.0)), FRAME_BYTES):
        if voice_playing:
            played.add(b"\x10\x27" * (FRAME_BYTES // 2))  # the quizmaster speaks on
        phone.receive(talk[start : start + FRAME_BYTES])
    assert phone.settle(WAITED_SECONDS)
    next(iter(phone.frames(before=PRE_ROLL_SECONDS)))  # the next listening begins
    return phone


def test_a_phone_knows_the_rooms_level_from_what_it_heard_while_the_game_decided() -> None:
    assert _heard_unlistened(PlayedSound(), voice_playing=False).room.floor() is not None


def test_a_phone_never_takes_the_quizmasters_voice_for_the_room() -> None:
    assert _heard_unlistened(PlayedSound(), voice_playing=True).room.floor() is None
