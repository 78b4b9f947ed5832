"""Our own voice in the microphone, as a laptop's player hears the game: the quizmaster's line from the laptop's
speaker a hand's width from its microphone (a pyroomacoustics room, a small speaker's distortion, the devices'
delay), a real person across the table, through the game's front end and listening pipeline.

What a player notices: the echo of a real "ja" the quizmaster plays is never taken for the player's yes, and never
stops the quizmaster; a player who answers as the quizmaster's line ends is heard."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.frontend import Passthrough, open_front_end
from voicemaster.speech.hearing.pipeline import Hearing, listen_and_recognize
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import RECOGNITION_RATE, resample
from voicemaster.speech.voice.speakers import Speakers
from voicemaster_lab.corpora import real_speech
from voicemaster_lab.harness.laptop import Laptop

pytestmark = pytest.mark.audio


def _clip(name: str) -> Audio:
    (found,) = [clip for clip in real_speech.load(("de",)) if clip.file == name]
    return Audio.read(found.path())


def _listen(laptop: Laptop, recognizer: WhisperRecognizer, vad: SileroVad, context: Context) -> Hearing:
    return listen_and_recognize(laptop, recognizer, context, 1.0, laptop.playing, vad=vad)


CONFIRM = Context(ContextName.CONFIRM, "de", ())


QUESTION = "Ist das Ihre endgültige Antwort? Sagen Sie ja oder nein."


@pytest.fixture(scope="module")
def question() -> Audio:
    return resample(Speakers({"de": Voice(engine="pico")}).render(QUESTION, "de"), RECOGNITION_RATE)


@pytest.fixture(scope="module")
def yes_played(question: Audio) -> Audio:
    """The quizmaster's question, then a real person's "ja" played by it: as if its own line ended in a yes."""
    return Audio(question.samples + resample(_clip("de/confirm-ja.wav"), RECOGNITION_RATE).samples, RECOGNITION_RATE)


def test_a_yes_in_our_own_voice_is_never_the_players(
    whisper: Callable[[str], WhisperRecognizer], vad: SileroVad, yes_played: Audio
) -> None:
    laptop = Laptop(yes_played, None, 0.0, open_front_end(echo_cancel=True, noise_suppression=False))
    hearing = _listen(laptop, whisper("de"), vad, CONFIRM)
    assert hearing.barged_in_at is None and laptop.playing.stopped_at is None  # the quizmaster did not stop itself
    assert hearing.heard is None  # nobody spoke: no yes, nothing to ask again


def test_without_the_canceller_that_echo_is_taken_for_a_player(
    whisper: Callable[[str], WhisperRecognizer], vad: SileroVad, yes_played: Audio
) -> None:
    """The room is as hard as the issue's: the level gate alone takes our own yes for a player's voice."""
    laptop = Laptop(yes_played, None, 0.0, Passthrough())
    hearing = _listen(laptop, whisper("de"), vad, CONFIRM)
    assert hearing.heard is not None


def test_a_player_who_answers_as_the_line_ends_is_heard_over_its_echo(
    whisper: Callable[[str], WhisperRecognizer], vad: SileroVad, question: Audio
) -> None:
    line = question
    laptop = Laptop(
        line, _clip("de/confirm-ja.wav"), line.seconds - 0.3, open_front_end(echo_cancel=True, noise_suppression=False)
    )
    hearing = _listen(laptop, whisper("de"), vad, CONFIRM)
    assert isinstance(hearing.heard, Heard) and hearing.heard.intent is Intent.YES
