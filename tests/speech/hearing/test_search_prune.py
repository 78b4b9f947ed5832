"""The trie search drops a prefix far below the best whole phrase (`Tuning.prune`): only where no decision, and no
point of the curves the margins are chosen from, could turn on the phrases it would have led to."""

from __future__ import annotations

import math

from voicemaster.speech.hearing.whisper.decision import ACTING_AT_ONCE, MARGINS, NARROWBAND
from voicemaster.speech.hearing.whisper.strategies import Tuning
from voicemaster_lab.asr import measure, narrowband, options


def test_no_margin_a_decision_uses_reaches_the_search_prune() -> None:
    # A dropped prefix ends more than the prune below the best phrase: a rival there passes every margin below it
    # as if it had not been scored at all, so the decision is the one a search of every phrase makes.
    used = [meaning for meaning, _ in ACTING_AT_ONCE.values()]
    for margins in (MARGINS, *NARROWBAND.values()):
        used += [margins.meaning, margins.doubted, margins.undecided]
    assert max(used) < Tuning().prune


def test_the_bench_curves_stop_at_the_search_prune() -> None:
    # The curves make each decision again with other margins, on the rivals the search scored.
    shown = [
        *measure.MEANING_MARGINS,
        *measure.UNDECIDED_MARGINS,
        *narrowband.MEANING_MARGINS,
        *options.MEANING_MARGINS,
        *(doubted for doubted in options.DOUBTED_MARGINS if doubted != math.inf),
    ]
    assert max(shown) <= Tuning().prune
