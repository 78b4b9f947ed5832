"""The cascade's rule (`voicemaster_lab.asr.int8_first.Sure`): an int8 decision stands alone only far from every
margin the float32 decision weighs; anything else is decided again in float32 (docs/decisions/050-int8-first.md)."""

from __future__ import annotations

from voicemaster.dialogue.meaning import Heard, Intent
from voicemaster.speech.hearing.whisper.decision import Evidence
from voicemaster_lab.asr.int8_first import Sure


def _evidence(margin: float, gap: float) -> Evidence:
    score = -2.0
    return Evidence((Intent.ANSWER, "B"), "b", score, score - margin, score + gap, {(Intent.ANSWER, "B"): score})


def test_only_a_meaning_far_past_both_margins_stands_on_int8_alone() -> None:
    taken = Heard(Intent.ANSWER, "B", "B.", 0.99)
    sure = Sure()
    assert sure(taken, _evidence(margin=8.0, gap=0.5))
    assert not sure(taken, _evidence(margin=5.5, gap=0.5))  # int8 took talk for yes at 5.5 (decision 050)
    assert not sure(taken, _evidence(margin=8.0, gap=3.0))
    assert not sure(taken, None)  # a placement or a new name: decided again


def test_an_unknown_stands_only_where_the_grammar_is_far_from_what_was_said() -> None:
    asked_again = Heard(Intent.UNKNOWN, None, "Il y a un peu.", 0.4)
    sure = Sure()
    assert sure(asked_again, _evidence(margin=0.5, gap=9.0))
    assert not sure(asked_again, _evidence(margin=0.5, gap=5.0))
    assert not sure(asked_again, _evidence(margin=0.0, gap=7.0))
