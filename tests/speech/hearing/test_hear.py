"""`voicemaster hear`: the command other tools call, one JSON object per recording, the model loaded once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from voicemaster.cli.app import main
from voicemaster.config.voice import DEFAULT_VOICES
from voicemaster.speech.audio import Audio
from voicemaster.speech.signal import to_float
from voicemaster.speech.voice.synthesis import Espeak

pytestmark = pytest.mark.model  # `voicemaster hear` decodes recordings


def _record(folder: Path, name: str, text: str, language: str) -> Path:
    path = folder / f"{name}.wav"
    Espeak(DEFAULT_VOICES).render(text, language).write(path)
    return path


def test_each_recording_gets_one_json_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = [
        _record(tmp_path, "b", "Antwort B", "de"),
        _record(tmp_path, "joker", "Publikumsjoker", "de"),
        _record(tmp_path, "radio", "Kannst du das Radio leiser machen?", "de"),
    ]
    argv = ["hear", *map(str, files), "--lang", "de", "--context", "answer", "--options", "Berlin|Paris|Rom|Wien"]
    assert main([*argv, "--engine", "whisper", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [list(line) for line in lines] == [["intent", "value", "text", "confidence", "decode_ms"]] * 3
    assert [(line["intent"], line["value"]) for line in lines] == [
        ("answer", "B"),
        ("joker", "audience"),
        ("unknown", None),
    ]
    assert all(line["decode_ms"] > 0 for line in lines)


def test_a_file_that_is_no_recording_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.wav"
    broken.write_text("not audio")
    assert main(["hear", str(broken), "--lang", "de", "--context", "confirm"]) == 2
    assert "broken.wav" in capsys.readouterr().err


def test_without_a_model_it_says_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VOICEMASTER_MODELS_DIR", str(tmp_path / "no-models"))
    recording = _record(tmp_path, "ja", "Ja", "de")
    assert main(["hear", str(recording), "--lang", "de", "--context", "confirm"]) == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and said.strip().endswith("Install one with: voicemaster models setup")


def test_a_recording_cut_off_mid_sample_is_read_up_to_its_last_whole_sample(tmp_path: Path) -> None:
    recording = _record(tmp_path, "b", "Antwort B", "de")
    whole = Audio.read(recording)
    recording.write_bytes(recording.read_bytes()[:-1])  # a copy stopped one byte short: the data size is odd
    cut = Audio.read(recording)
    assert cut.samples == whole.samples[:-2] and cut.rate == whole.rate
    assert len(to_float(cut)) == len(whole.samples) // 2 - 1  # what the recognizers are given (it raised ValueError)


def test_only_the_first_seconds_of_a_long_recording_are_read_and_that_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = Espeak(DEFAULT_VOICES).render("Antwort B", "de")
    long = tmp_path / "long.wav"
    Audio(answer.samples + bytes(2 * answer.rate * 600), answer.rate).write(long)  # then ten minutes of silence
    head, seconds = Audio.read_head(long, 30)
    assert head.samples == (answer.samples + bytes(2 * answer.rate * 30))[: 2 * answer.rate * 30]
    assert round(seconds) == 601
    # The command says so before it decodes (here it then finds no model: no need to decode to see the bound).
    monkeypatch.setenv("VOICEMASTER_MODELS_DIR", str(tmp_path / "no-models"))
    assert main(["hear", str(long), "--lang", "de", "--context", "answer"]) == 2
    said = capsys.readouterr().err.splitlines()
    assert said[0] == (
        f"voicemaster: {long} is 601 s long; only its first 30 s are heard (one utterance: cut the recording to the "
        "part that matters)."
    )
