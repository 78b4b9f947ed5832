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
from voicemaster.speech.frontend.webrtc import WebRtc
from voicemaster.speech.hearing.endpointer import BargedIn, Endpointer
from voicemaster.speech.hearing.pipeline import DEFAULT_SETTINGS, Hearing, ListeningPipeline
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
    return ListeningPipeline(laptop, recognizer, vad=vad).listen(context, 1.0, laptop.playing)


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


LONG_QUESTION = (
    "Die Frage für fünfhundert Euro: Welche Stadt ist die Hauptstadt von Frankreich? A: Berlin, B: Paris, C: Rom, "
    "oder D: Wien."
)


@pytest.fixture(scope="module")
def long_question() -> Audio:
    return resample(Speakers({"de": Voice(engine="pico")}).render(LONG_QUESTION, "de"), RECOGNITION_RATE)


def _barges_in(laptop: Laptop, vad: SileroVad) -> float | None:
    """Where the game's endpointer heard a player over the laptop's line (seconds), or None."""
    endpointer = Endpointer(vad, DEFAULT_SETTINGS, timeout=3600.0, program=laptop.line)
    for frame in laptop.frames():
        program_at = endpointer.now if endpointer.now < laptop.line.seconds else None
        if isinstance(endpointer.push(frame, program_at), BargedIn):
            return endpointer.now
    return None


PLAYER_AT = 7.0
"""Seconds into the line where the player talks over it: the canceller has heard the room, as in a game."""


def test_players_talking_over_a_question_ten_db_louder_than_them_stop_it(vad: SileroVad, long_question: Audio) -> None:
    """Every eighth German recording said 7 s into the question: the barge-in filter hears most of them; the
    canceller's residual alone, which the suppressor takes the player out of, fewer."""
    players = [Audio.read(clip.path()) for clip in real_speech.load(("de",))[::8]]

    def heard(barge_in_filter: bool) -> int:
        onsets = [
            _barges_in(
                Laptop(
                    long_question,
                    player,
                    PLAYER_AT,
                    WebRtc(echo_cancel=True, noise_suppression=False, barge_in_filter=barge_in_filter),
                ),
                vad,
            )
            for player in players
        ]
        return sum(onset is not None and onset >= PLAYER_AT for onset in onsets)

    with_filter = heard(barge_in_filter=True)
    assert with_filter >= 0.6 * len(players)
    assert with_filter > heard(barge_in_filter=False)


def test_a_long_question_alone_never_stops_itself(vad: SileroVad, long_question: Audio) -> None:
    laptop = Laptop(long_question, None, 0.0, open_front_end(echo_cancel=True, noise_suppression=False))
    assert _barges_in(laptop, vad) is None
