"""What is at stake before each question (docs/rules.md, "What a wrong answer pays"): the facts the quizmaster may call
safe."""

from __future__ import annotations

import pytest

from voicemaster.rules import Safety, variant


@pytest.mark.parametrize(
    ("rules", "level", "keep", "wrong", "safety"),
    [
        ("classic", 1, 0, 0, Safety.NONE),
        ("classic", 2, 50, 0, Safety.NONE),  # "fünfzig Euro sicher" would be false here
        ("classic", 5, 300, 0, Safety.NONE),
        ("classic", 6, 500, 500, Safety.HELD),
        ("classic", 7, 1_000, 500, Safety.PART),
        ("classic", 11, 16_000, 16_000, Safety.HELD),
        ("classic", 15, 500_000, 16_000, Safety.PART),
        ("jumbo-2002", 6, 500, 1_000, Safety.MORE),  # the sheet pays 1 000 EUR for a miss on level 6
        ("risiko", 11, 16_000, 500, Safety.PART),
        ("uk", 11, 32_000, 32_000, Safety.HELD),
    ],
)
def test_what_walking_away_and_a_wrong_answer_bring(
    rules: str, level: int, keep: int, wrong: int, safety: Safety
) -> None:
    stakes = variant(rules).ladder.stakes(level)
    assert (stakes.keep, stakes.wrong, stakes.safety) == (keep, wrong, safety)
    assert stakes.win == variant(rules).ladder.amount(level)
