"""A short yes or no said promptly after each line, turn after turn, as `voicemaster bench live`'s player says it
(issue 48): heard every time. The quizmaster's line in Pico's voice goes to the game's echo canceller as what the
loudspeaker plays; the microphone hears the player only (the live bench's bus), who begins 0.4 s after the line
ends, inside our echo's tail, so the room is never heard alone. The game's settings and one room level for the
whole game, as `play` listens. Before, the room learnt each answer's first syllables while their onset was being
counted, its floor rose to the player's own voice, and from the seventh turn on Pico's "Ja" was not heard at all.
People's recordings have a moment of their room before the word, and were heard at every turn before as after."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName, Intent
from voicemaster.play.stage import Stage
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.frontend import FrontEndUnavailable, open_front_end
from voicemaster.speech.frontend.room_level import RoomLevel
from voicemaster.speech.hearing.pipeline import DEFAULT_SETTINGS, ListeningPipeline
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import RECOGNITION_RATE
from voicemaster.speech.voice.speakers import Engines, Speakers
from voicemaster_lab.corpora import real_speech

GAP_SECONDS = 0.4
"""After the line, as bench live's player (people leave 0.2-0.5 s): within the echo's tail of 0.5 s."""
LINES = {"de": "Spielt noch jemand mit?", "en": "Is anyone else playing?", "fr": "Quelqu'un d'autre joue ?"}
MEANT = {"yes": Intent.YES, "no": Intent.NO}


def _heard_turn_after_turn(
    whisper: Callable[[str], WhisperRecognizer], language: str, answers: list[tuple[Audio, str]]
) -> list[Intent | None]:
    """What the game heard at each turn, the player saying `answers` in order, one a turn."""
    try:
        front_end = open_front_end(echo_cancel=True, noise_suppression=False)
    except FrontEndUnavailable as missing:
        pytest.skip(str(missing))
    host = Speakers({language: Voice(engine="pico")}, Engines())
    stage = Stage(FileSink(rate=RECOGNITION_RATE), front_end=front_end)
    pipeline = ListeningPipeline(
        stage, whisper(language), SileroVad(), DEFAULT_SETTINGS, room=RoomLevel(), clock=stage.now
    )
    heard: list[Intent | None] = []
    for voice, _ in answers:
        line = host.render(LINES[language], language)
        playing = stage.play(line)
        stage.speak(voice, line.seconds + GAP_SECONDS, 0.0)
        hearing = pipeline.listen(Context(ContextName.CONFIRM, language), 8.0, playing)
        heard.append(None if hearing.heard is None else hearing.heard.intent)
    return heard


def test_picos_short_ja_and_nein_are_heard_at_every_turn(whisper: Callable[[str], WhisperRecognizer]) -> None:
    player = Speakers({"de": Voice("de-DE", rate=150, engine="pico", pitch=90)}, Engines())  # bench live's player
    answers = [(player.render(text, "de"), meant) for text, meant in (("Ja", "yes"), ("Nein", "no"))] * 5
    heard = _heard_turn_after_turn(whisper, "de", answers)
    assert heard == [MEANT[meant] for _, meant in answers], heard


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_peoples_short_yes_and_no_are_heard_at_every_turn(
    whisper: Callable[[str], WhisperRecognizer], language: str
) -> None:
    """People's recordings (klettres' "ja", Asterisk's "no" and "non"), each said at eight turns in a row."""
    clips = [clip for clip in real_speech.load((language,)) if clip.kind in MEANT]
    assert clips, f"no short yes or no of {language} in the real-speech set"
    answers = [(Audio.read(clip.path()), clip.kind) for clip in clips for _ in range(8)]
    heard = _heard_turn_after_turn(whisper, language, answers)
    assert heard == [MEANT[meant] for _, meant in answers], heard
