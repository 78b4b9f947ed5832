"""A person's short French syllable cut to its own sound (klettres' "Po", as a tight endpointer hands it to the ear)
among four syllables: Whisper base reads it "de son" and its phrase scores lean to "Le". A reading that names another
option by one of its words ("de": the option "De") and the pick by none is no testimony for the pick
(docs/decisions/028-a-word-naming-another-answer.md): the player is asked again, never taken for another syllable."""

from __future__ import annotations

from collections.abc import Callable

from voicemaster.dialogue.meaning import Context, ContextName, Intent
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import RECOGNITION_RATE, from_float
from voicemaster_lab.corpora import real_speech, rooms


def test_a_syllable_read_as_words_that_name_another_option_is_not_taken_for_it(
    whisper: Callable[[str], WhisperRecognizer],
) -> None:
    (clip,) = [clip for clip in real_speech.load(("fr",)) if clip.file == "fr/answer-po.wav"]
    word = from_float(rooms.trimmed(rooms.samples_of(clip.path())), RECOGNITION_RATE)
    heard = whisper("fr").recognize(word, Context(ContextName.ANSWER, "fr", ("Le", "De", "Me", "Po")))
    assert (heard.intent, heard.value) in ((Intent.UNKNOWN, None), (Intent.ANSWER, "D")), heard
