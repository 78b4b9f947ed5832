"""`voicemaster bench asr` on a small German corpus and the German real recordings, through the real recognizer."""

from __future__ import annotations

from pathlib import Path

from voicemaster.bench import asr, corpus
from voicemaster.bench.asr_report import report
from voicemaster.speech.whisper.decision import MARGINS


def test_bench_asr_reports_each_corpus_and_the_curve_its_margins_were_set_from(tmp_path: Path) -> None:
    corpus.generate(tmp_path, languages=("de",), size="small")
    figures = asr.run(tmp_path, ["whisper"], languages=("de",), limit=6)
    whisper = figures["engines"]["whisper"]
    assert whisper["espeak"]["utterances"] == 6
    real = whisper["real"]
    assert real["utterances"] == figures["real_clips"] > 0
    assert real["wrong"] == 0  # a real person's answer is never taken for another
    # The curve holds the margins in use, and there the same figures as the decision made.
    in_use = next(
        point for point in real["margins"] if (point["meaning"], point["free"]) == (MARGINS.meaning, MARGINS.free)
    )
    assert in_use["accuracy"] == real["accuracy"]["share"]
    text = report(figures)
    assert (
        "real recordings (klettres-data)" in text
        and f"margins (in use: meaning {MARGINS.meaning:g}, free {MARGINS.free:g})" in text
    )
