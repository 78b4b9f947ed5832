"""`voicemaster bench yes-wait`: the curve's arithmetic. Nothing here asserts how fast anything is."""

from __future__ import annotations

from typing import Any

from voicemaster_lab.timing.yes_wait import curve_point


def row(yes: bool, taken: bool, wait_ms: int = 400, gap: float | None = None) -> dict[str, Any]:
    return {"yes": yes, "taken_as_yes": taken, "wait_ms": wait_ms, "gap_s": gap}


def test_a_point_of_the_curve_counts_yeses_taken_back_heard_as_yes_and_the_shortest_such_pause() -> None:
    rows = [
        row(True, True, 420),
        row(True, True, 440),
        row(True, True, -300),  # listening stopped at "Ja," of "Ja, endgültig": a yes, but no wait to count
        row(True, False, 700),  # asked again: no wait of a yes understood
        row(False, True, -900),  # the voice's own "Ja ... nein, warte" heard as a yes
        row(False, False, 700, gap=0.3),
        row(False, True, -1000, gap=0.5),
        row(False, True, -1100, gap=0.8),
    ]
    point = curve_point(0.4, rows)
    assert (point["yes_understood"], point["yeses"], point["yes_decided_mid_speech"]) == (3, 4, 1)
    assert (point["p50_ms"], point["max_ms"]) == (430, 440)
    assert (point["taken_back_heard_as_yes"], point["taken_back"], point["voices_taken_back_heard_as_yes"]) == (3, 4, 1)
    assert point["shortest_pause_heard_as_yes_s"] == 0.5
