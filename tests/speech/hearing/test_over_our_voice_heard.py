"""Answers begun over the quizmaster's voice, as the German demo's players say them (Pico's voices as `voicemaster
demo` casts them) and Whisper base reads them: "Antwort B" as "und wird b.", "Antwort D" as "und warte die.". Over
our voice only the decoder's words decide (decision 017); a letter at the end of the reading, as a phrase or as its
sound, is the decoder's word for it beside the scores (decision 024). Talk that ends in a word like a letter's sound
is not taken for that letter."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.play.demo import player_voices
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.voice.speakers import Engines, Speakers

ANIMALS = Context(ContextName.ANSWER, "de", ("Die Schnecke", "Der Frosch", "Der Igel", "Die Maus"))


def _over_our_voice(whisper: Callable[[str], WhisperRecognizer], player: int, text: str) -> Heard:
    cast = player_voices("de", Voice())[player]
    said = Speakers({"de": cast}, Engines()).render(text, "de")
    return whisper("de").recognize(said, ANIMALS, over_our_voice=True)


@pytest.mark.parametrize(
    ("player", "text", "letter"),
    # Read "und wird b.", "und warte die.", "und what zee." (Pico's "tse" as the letter Z), "und what the.".
    [(0, "Antwort B", "B"), (1, "Antwort D", "D"), (0, "Antwort C", "C"), (0, "Antwort D", "D")],
)
def test_a_letter_at_the_end_of_an_answer_said_over_our_voice_is_understood(
    whisper: Callable[[str], WhisperRecognizer], player: int, text: str, letter: str
) -> None:
    heard = _over_our_voice(whisper, player, text)
    assert (heard.intent, heard.value) == (Intent.ANSWER, letter), heard


@pytest.mark.parametrize("text", ["und dann die", "und was sagt sie"])
def test_talk_ending_in_a_word_like_a_letter_is_not_taken_for_it(
    whisper: Callable[[str], WhisperRecognizer], text: str
) -> None:
    # Read as said ("und dann die.", "und was sagt sie?"): "die" is D's sound to Whisper, "sie" near C's.
    assert _over_our_voice(whisper, 1, text).intent is Intent.UNKNOWN
