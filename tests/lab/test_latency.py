"""`voicemaster bench latency`, `bench voice` and `bench memory` report figures; nothing here asserts how fast
anything is."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from voicemaster.cli import app as cli
from voicemaster_lab.corpora import corpus
from voicemaster_lab.timing.memory import MeasurementFailed, peak_memory_mb

pytestmark = pytest.mark.model  # recognizers decode the corpus


@pytest.fixture(scope="module")
def german(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    corpus.generate(folder, ["de"], size="small")
    return folder


@pytest.mark.slow  # a whole bench run; the default suite keeps its ten minutes
def test_latency_prints_one_json_object_with_p50_and_p95_per_engine(
    german: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["bench", "latency", "--corpus", str(german), "--languages", "de", "--limit", "3", "--json"]
    assert cli.main([*argv, "--engines", "whisper,vosk,vosk-ko"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["benchmark"] == "latency" and figures["clips"] == 3
    whisper = figures["engines"]["whisper"]
    assert whisper["utterances"] + whisper["not_heard"] == 3
    for mode in ("early_decision", "full_pause"):
        assert whisper[mode]["utterances"] == whisper["utterances"]
        for figure in ("latency_ms", "serial_ms", "wait_ms", "recognition_ms", "reply_ms"):
            assert isinstance(whisper[mode][figure]["p50"], float)
            assert isinstance(whisper[mode][figure]["p95"], float)
        assert 0 <= whisper[mode]["ended_early"] <= 1
    assert whisper["full_pause"]["ended_early"] == 0
    assert set(whisper["by_language"]) == {"de"}
    assert whisper["kokoro_players"]["utterances"] == 0  # no German Kokoro voice: German players speak eSpeak-NG
    # Vosk has a model for German or says why it was not measured.
    vosk = figures["engines"]["vosk"]
    assert vosk["utterances"] or "de" in vosk["not_installed"]
    # Its Korean stand-in is timed on ten commands at three speeds, really decoded: most come back as said.
    korean = figures["engines"]["vosk-ko"]
    assert korean["utterances"] + korean["not_heard"] == 30 and set(korean["by_language"]) == {"ko"}
    assert korean["early_decision"]["understood_as_said"] > 0.5
    assert isinstance(korean["early_decision"]["latency_ms"]["p50"], float)


def test_the_peak_memory_of_a_process_is_measured(tmp_path: Path) -> None:
    grows = [sys.executable, "-c", "held = b'x' * 200_000_000"]
    assert peak_memory_mb(grows, tmp_path / "log") >= 200
    with pytest.raises(MeasurementFailed, match="exited with 3"):
        peak_memory_mb([sys.executable, "-c", "raise SystemExit(3)"], tmp_path / "log")


@pytest.mark.slow
def test_bench_voice_times_the_reply_in_a_game_played_in_real_time(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "voice", "--languages", "de", "--questions", "1", "--json"]) == 0
    german = json.loads(capsys.readouterr().out)["languages"]["de"]
    assert german["game_engine"] == "pico" and german["engines"]["pico"]["rtf"] > 0
    assert german["engines"]["espeak"]["rtf"] > 0
    for mode in ("ahead", "on_demand"):
        game = german[mode]
        # A game of one question, answered wrong: the answer and its "final answer?" yes each get a reply.
        assert game["replies"] == 2 and game["first_sample_ms_p50"] <= game["first_sample_ms_max"]
