"""The waiting reader on sound that came through a telephone's band, across the living room `bench serve` talks in:
people's recorded French numbers, read in German and scored as a start, never ask for a game, while a start phrase
said 2 m away is still heard at the waiting reader's wider free margin
(docs/decisions/048-telephone-band-sound-while-waiting.md)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pytest

from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Intent
from voicemaster.serve.reading import RoomReader, waiting_reader
from voicemaster.serve.waiting import start_context
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import RECOGNITION_RATE, resample, to_float
from voicemaster.speech.voice import pico
from voicemaster_lab.corpora import real_speech, rooms

PEOPLE_DB, START_DB = -28.0, -26.0
"""`bench serve`'s levels at the microphone (dBFS of the speech): people across the room, a player asking."""


@pytest.fixture(scope="module")
def reader(whisper: Callable[[str], WhisperRecognizer]) -> RoomReader:
    return waiting_reader(whisper("de"), ("de", "en", "fr"))


def _across_the_room(said: Audio, distance: float, place: int, level_db: float) -> Audio:
    """`said` in the living room, `distance` metres from the microphone at one of its four places, at `level_db`."""
    dry = to_float(resample(said, RECOGNITION_RATE)).astype(np.float64)
    wet: npt.NDArray[np.float64] = rooms.reverberant(dry, rooms.LIVING_ROOM_SABINE, distance, place)
    loud = wet[np.abs(wet) > 0.1 * np.max(np.abs(wet))]
    scaled = wet * 10 ** (level_db / 20) / float(np.sqrt(np.mean(loud**2)))
    return Audio(np.clip(np.round(scaled * 32767), -32768, 32767).astype(np.int16).tobytes(), RECOGNITION_RATE)


def test_a_telephone_number_across_the_room_asks_for_no_game(reader: RoomReader) -> None:
    """Asterisk's French "dix-sept" across the room was read in German "Dezett" and scored as "Quiz start" 8.2 below
    its free reading: an hour of `bench serve`'s talk said back four such numbers and months as a start, and a yes
    after one started a game nobody asked for."""
    (clip,) = [
        c
        for c in real_speech.load(("fr",))
        if (c.source, c.path().name) == ("asterisk-fr", "answer-number-dix-sept.wav")
    ]
    heard = [reader.recognize(_across_the_room(Audio.read(clip.path()), 2.5, place, PEOPLE_DB), start_context("de"))
             for place in range(4)]  # fmt: skip
    assert [(h.text, h.language) for h in heard if h.intent is Intent.START] == []


@pytest.mark.parametrize(
    ("text", "place"), [pytest.param("das Quiz starten", 0, id="das Quiz starten"), ("Quiz starten", 3)]
)
def test_a_start_said_across_the_room_is_still_heard(reader: RoomReader, text: str, place: int) -> None:
    """Pico's fast speaker 2 m away, read "das Gliedschappen." and "Fritzschalten", 7.5 and 7.7 below the free reading:
    full-band sound keeps the waiting reader's wider free margin."""
    said = pico.Pico().speak(text, Voice(pico.DEFAULT_VOICE["de"], rate=175, pitch=115, engine="pico"))
    heard = reader.recognize(_across_the_room(said, 2.0, place, START_DB), start_context("de"))
    assert (heard.intent, heard.value, heard.language) == (Intent.START, "millionaire", "de"), heard.text
