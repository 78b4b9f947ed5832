"""The room's floor: at a party, other people's talk keeps the voice-activity model on, and only the player's level
over the room ends an utterance; in a quiet room and in a car the floor changes nothing. Real recordings of people,
said into rooms made from other people's real recordings (`voicemaster bench endpoint` measures the same at scale)."""

from __future__ import annotations

import numpy as np

from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.microphone import Microphone
from voicemaster.speech.frame import FRAME_BYTES, FRAME_SAMPLES, FRAME_SECONDS, Frame
from voicemaster.speech.frontend.played import PlayedSound
from voicemaster.speech.frontend.room_level import RoomLevel
from voicemaster.speech.hearing.endpoint_settings import EndpointSettings
from voicemaster.speech.hearing.endpointer import Endpointer
from voicemaster.speech.hearing.segmenter import Endpoint
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.signal import RECOGNITION_RATE, resample
from voicemaster_lab.corpora import real_speech, rooms
from voicemaster_lab.timing import endpoint_rooms
from voicemaster_lab.timing.endpoint_rooms import barged_in_at

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


def test_the_room_is_learnt_while_waiting_never_from_our_voice_nor_from_the_players_words() -> None:
    room = RoomLevel()
    line = Audio(bytes(2 * 3 * RECOGNITION_RATE), RECOGNITION_RATE)
    endpointer = Endpointer(SileroVad(), EndpointSettings(), 30.0, program=line, room=room)
    frames = iter(range(10_000))
    for index in range(round(3.0 / FRAME_SECONDS)):  # while our line plays, loud: our voice in the microphone
        endpointer.push(Frame(_frame(8000.0, next(frames))), program_at=index * FRAME_SECONDS)
    for _ in range(round(1.5 / FRAME_SECONDS)):  # then the room alone, faint, beyond the echo's tail
        endpointer.push(Frame(_frame(30.0, next(frames))))
    floor = room.floor()
    alone = RoomLevel()
    for _ in range(round(1.5 / FRAME_SECONDS)):
        alone.hear(_frame(30.0, next(frames)))
    expected = alone.floor()
    assert floor is not None and expected is not None
    assert expected / 2 < floor < 2 * expected  # within 3 dB of the room alone, where our voice was 48 dB louder
    clip = CLIPS[0]
    said = resample(Audio.read(clip.path()), RECOGNITION_RATE).samples
    for at in range(0, len(said) - FRAME_BYTES + 1, FRAME_BYTES):  # a player's words: never the room's
        endpointer.push(Frame(said[at : at + FRAME_BYTES]))
    assert endpointer.state is not Endpoint.WAITING
    after = room.floor()
    assert after is not None and after < floor * 10**0.1  # within 1 dB: the quiet before the onset only


def _over_our_voice(samples: np.ndarray) -> list[Frame]:
    pcm = np.clip(np.round(samples), -32768, 32767).astype("<i2").tobytes()
    return endpoint_rooms.over_our_voice(Audio(pcm, RECOGNITION_RATE))


def test_at_a_party_the_others_talk_over_our_line_does_not_stop_it_and_the_player_over_it_does() -> None:
    """What the barge-in filter leaves of the microphone while we play is the room's talk at a party: it stopped the
    quizmaster at every line. Over our voice a player must rise over the room's floor too; until the room is known,
    nothing stops a line."""
    clip = CLIPS[1]
    others = [spoken for spoken in POOL if spoken.speaker != clip.speaker]
    said = rooms.trimmed(rooms.samples_of(clip.path())) * 32767
    talk = rooms.party_babble(round(8.0 * RECOGNITION_RATE), others, np.random.default_rng(5))
    talk *= np.sqrt(rooms.speech_power(said) / np.mean(talk**2)) * 10 ** (-5.0 / 20)  # 5 dB below the player
    before, over = talk[: 2 * RECOGNITION_RATE], talk[2 * RECOGNITION_RATE :]
    line = Audio(bytes(2 * 20 * RECOGNITION_RATE), RECOGNITION_RATE)
    vad, settings = SileroVad(), EndpointSettings()
    talk_only = _over_our_voice(over)
    assert barged_in_at(talk_only, line, vad, settings, None) is not None  # no room followed (the demo's studio)
    room = RoomLevel()
    said_over = _over_our_voice(over + _padded(said, len(over)))
    assert barged_in_at(said_over, line, vad, settings, room) is None  # the room not known
    pcm = np.round(before).astype("<i2").tobytes()
    for at in range(0, len(pcm) - FRAME_BYTES + 1, FRAME_BYTES):  # the room heard alone, while the game decided
        room.hear(pcm[at : at + FRAME_BYTES])
    assert barged_in_at(talk_only, line, vad, settings, room) is None, "stopped for the room's talk"
    seconds = len(talk_only) * FRAME_SECONDS
    spoke = barged_in_at(talk_only + said_over, line, vad, settings, room)
    assert spoke is not None and seconds <= spoke < seconds + 1.0  # the player's own words stop it


def _padded(samples: np.ndarray, length: int) -> np.ndarray:
    return np.concatenate([samples, np.zeros(max(0, length - len(samples)))])[:length]


def test_what_no_listening_read_out_of_our_voices_reach_is_learnt_as_the_room() -> None:
    """Between two listenings (the game deciding, before its next line) the microphone hears the room alone: at a
    party, where a player answers as our line ends, that is the only quiet of the room's there is to learn from."""
    played = PlayedSound()
    microphone = Microphone(played=played)
    frames = iter(range(10_000))
    for _ in range(round(1.0 / FRAME_SECONDS)):  # our line, loud in the microphone
        played.add(_frame(8000.0, next(frames)))
        microphone._arrive(_frame(8000.0, next(frames)), FRAME_SAMPLES, None, None)
    for _ in range(round(2.0 / FRAME_SECONDS)):  # then the room alone
        microphone._arrive(_frame(300.0, next(frames)), FRAME_SAMPLES, None, None)
    next(microphone._live_frames(FRAME_SECONDS))  # the next listening opens, the last frame its pre-roll
    alone = RoomLevel()
    for _ in range(round(2.0 / FRAME_SECONDS)):
        alone.hear(_frame(300.0, next(frames)))
    floor, expected = microphone.room.floor(), alone.floor()
    assert floor is not None and expected is not None
    assert expected / 2 < floor < 2 * expected  # within 3 dB of the room alone: neither our line nor its echo tail
    unknown = Microphone()  # nothing says what the loudspeaker played: nothing is taken for the room
    for _ in range(round(2.0 / FRAME_SECONDS)):
        unknown._arrive(_frame(300.0, next(frames)), FRAME_SAMPLES, None, None)
    next(unknown._live_frames(FRAME_SECONDS))
    assert unknown.room.floor() is None
