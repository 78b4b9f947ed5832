"""Two `bench asr` runs compared decision by decision (`voicemaster_lab.asr.bench_ab`): what a change to hearing is
kept or dropped on, so a moved decision or a new wrong meaning must never be counted as the same."""

from __future__ import annotations

from typing import Any

from voicemaster_lab.asr.bench_ab import compare, table


def _path(checkout: str, file: str) -> str:
    return file if file.startswith("/") else f"{checkout}/.cache/asr/{file}"


def _run(checkout: str, mistakes: list[tuple[str, str, str]]) -> dict[str, Any]:
    return {
        "engines": {
            "whisper": {
                "describe": "Whisper",
                "real": {
                    "utterances": 6,
                    "non_command_utterances": 2,
                    "accuracy": {"share": (4 - sum(e != "unknown" for _, e, _ in mistakes)) / 4, "n": 4},
                    "wrong": sum(1 for _, e, u in mistakes if e != "unknown" and u != "unknown"),
                    "false_accepts": sum(1 for _, e, _ in mistakes if e == "unknown"),
                    "decision_cpu_ms": {"p50": 400.0, "p95": 900.0},
                    "mistakes": [
                        {"file": _path(checkout, file), "expected": e, "understood": u, "heard": "..."}
                        for file, e, u in mistakes
                    ],
                },
            }
        }
    }


def test_a_moved_decision_and_a_new_wrong_meaning_are_counted() -> None:
    before = _run(
        "/tmp/wt-a", [("a.wav", "answer A", "unknown"), ("b.wav", "answer B", "answer D"), ("t.wav", "unknown", "yes")]
    )
    after = _run(
        "/tmp/wt-b",
        [
            ("b.wav", "answer B", "answer D"),  # the same mistake: the same decision
            ("c.wav", "answer C", "answer A"),  # a new wrong meaning
            ("t.wav", "unknown", "yes"),
            ("u.wav", "unknown", "joker audience"),  # talk newly taken: a wrong meaning too
        ],
    )
    (real,) = compare(before, after)
    assert real.clips == 6
    assert real.same == 3  # b, t, and the one clip right in both
    assert {moved.file.rsplit("/", 1)[1] for moved in real.moved} == {"a.wav", "c.wav", "u.wav"}
    assert real.new_wrong == 2
    assert any("c.wav: said answer C; answer C → answer A" in line for line in table([real]))


def test_the_same_run_from_two_checkouts_is_the_same() -> None:
    mistakes = [("a.wav", "answer A", "unknown"), ("b.wav", "answer B", "answer D")]
    (real,) = compare(_run("/tmp/wt-a", mistakes), _run("/work/main", mistakes))
    assert (real.same, real.moved, real.new_wrong) == (6, (), 0)
    people = [(f"/work/main/models/real-speech/{file}", e, u) for file, e, u in mistakes]
    elsewhere = [(f"/tmp/after-models/real-speech/{file}", e, u) for file, e, u in mistakes]
    (real,) = compare(_run("", people), _run("", elsewhere))
    assert (real.same, real.moved, real.new_wrong) == (6, (), 0)


def test_a_run_from_before_decision_cpu_was_reported_compares_with_a_new_one() -> None:
    mistakes = [("a.wav", "answer A", "unknown")]
    older = _run("/tmp/wt-a", mistakes)
    real = older["engines"]["whisper"]["real"]
    real["decode_ms"] = real.pop("decision_cpu_ms")
    (compared,) = compare(older, _run("/work/main", mistakes))
    assert (compared.same, compared.new_wrong) == (6, 0)
    assert any("400 → 400 ms" in line for line in table([compared]))


def test_two_engines_of_one_run_compare_decision_by_decision() -> None:
    one = _run("/tmp/wt-a", [("a.wav", "answer A", "unknown")])
    one["engines"]["whisper-int8-first"] = _run("/tmp/wt-a", [("a.wav", "answer A", "answer B")])["engines"]["whisper"]
    (real,) = compare(one, one, engines=("whisper", "whisper-int8-first"))
    assert (real.same, real.new_wrong) == (5, 1)
    assert any("a.wav: said answer A; unknown → answer B" in line for line in table([real]))
