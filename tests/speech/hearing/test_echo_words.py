"""Which readings are our own line's words (`speech.hearing.echo`): the words said near where the utterance was heard,
read as Whisper writes them, and only those (docs/decisions/041-our-own-line-heard-back.md)."""

from __future__ import annotations

import pytest

from voicemaster.speech.devices.interfaces import Words
from voicemaster.speech.hearing.echo import our_echo

NOT_UNDERSTOOD = (
    Words("Das habe ich nicht sicher verstanden.", 0.0, 2.1),
    Words("Markus, B, Paris. Endgültig?", 2.1, 5.3),
)
OPTIONS = (
    Words("A: Berlin.", 0.0, 1.3),
    Words("B: Paris.", 1.3, 2.6),
    Words("C: Rom.", 2.6, 3.8),
    Words("D: Wien.", 3.8, 5.0),
)


@pytest.mark.parametrize(
    ("reading", "heard_from", "heard_to"),
    [
        ("Das habe ich nicht sicher.", 0.0, 1.6),  # our "no" read back (issue 48)
        ("Ich habe nicht sicher verstanden.", 0.3, 2.3),  # a word dropped and one moved: still ours
        ("Peris, endgültig.", 3.0, 5.5),  # a word misspelt as Whisper does
        ("B, Paris", 1.0, 2.2),  # the option being read
    ],
)
def test_our_own_words_read_back_are_our_echo(reading: str, heard_from: float, heard_to: float) -> None:
    line = NOT_UNDERSTOOD if heard_to > 2.6 or "sicher" in reading else OPTIONS
    assert our_echo(reading, line, "de", heard_from, heard_to, answer="Paris" in reading)


@pytest.mark.parametrize(
    ("reading", "heard_from", "heard_to"),
    [
        ("Ja, endgültig.", 4.5, 5.6),  # a word the player adds
        ("Paris", 4.2, 5.0),  # said over "D: Wien.", seconds after our "Paris"
        ("Paris", 1.0, 2.2),  # an answer in one word, the option just read: people say it so
        ("", 0.0, 1.0),  # nothing read
    ],
)
def test_a_players_words_are_not_our_echo(reading: str, heard_from: float, heard_to: float) -> None:
    line = NOT_UNDERSTOOD if "endgültig" in reading.lower() else OPTIONS
    assert not our_echo(reading, line, "de", heard_from, heard_to, answer=reading != "")
