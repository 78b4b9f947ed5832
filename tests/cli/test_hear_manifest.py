"""`voicemaster hear --manifest`: people's own recordings, each in its own context, through one model load."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from voicemaster.cli.app import main
from voicemaster.cli.manifest import ManifestError, read_manifest
from voicemaster.dialogue.meaning import ContextName
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster_lab.corpora import real_speech


def write(folder: Path, *lines: object) -> Path:
    manifest = folder / "mine.jsonl"
    manifest.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n", encoding="utf-8"
    )
    return manifest


def test_a_manifest_line_reads_options_as_text_or_list_and_files_from_its_folder(tmp_path: Path) -> None:
    manifest = write(
        tmp_path,
        {"file": "a.wav", "lang": "de", "context": "answer", "options": "Berlin|Paris|Rom|Wien"},
        "",
        {"file": "/abs/b.wav", "lang": "fr", "context": "confirm", "options": ["x", " y "], "intent": "yes"},
    )
    first, second = read_manifest(manifest)
    assert first.file == tmp_path / "a.wav" and first.said == "a.wav" and first.line == 1
    assert first.context.name is ContextName.ANSWER and first.context.options == ("Berlin", "Paris", "Rom", "Wien")
    assert second.file == Path("/abs/b.wav") and second.line == 3 and second.context.options == ("x", "y")
    assert second.intent == "yes"


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("{not json", "mine.jsonl:2: not JSON"),
        ('["a.wav"]', "mine.jsonl:2: not a JSON object"),
        ('{"lang": "de", "context": "answer"}', "mine.jsonl:2: field 'file' is missing"),
        ('{"file": "a.wav", "lang": "es", "context": "answer"}', "mine.jsonl:2: field 'lang'"),
        ('{"file": "a.wav", "lang": "de", "context": "quiz"}', "mine.jsonl:2: field 'context'"),
        ('{"file": "a.wav", "lang": "de", "context": "answer", "options": 4}', "mine.jsonl:2: field 'options'"),
        ('{"file": "a.wav", "lang": "de", "context": "answer", "option": "A|B"}', "mine.jsonl:2: field 'option'"),
        ('{"file": 7, "lang": "de", "context": "answer"}', "mine.jsonl:2: field 'file'"),
    ],
)
def test_a_wrong_line_is_named_by_file_line_and_field(
    tmp_path: Path, line: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = write(tmp_path, {"file": "a.wav", "lang": "de", "context": "answer"}, line)
    with pytest.raises(ManifestError, match=says.replace("'", ".")):
        read_manifest(manifest)
    assert main(["hear", "--manifest", str(manifest), "--json"]) == 2
    shown = capsys.readouterr()
    assert shown.out == "" and says in shown.err and "Traceback" not in shown.err
    assert len(shown.err.strip().splitlines()) == 1


def test_a_missing_recording_names_its_line_before_any_model_is_loaded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = write(tmp_path, {"file": "nowhere.wav", "lang": "en", "context": "answer"})
    assert main(["hear", "--manifest", str(manifest), "--json"]) == 2
    assert "mine.jsonl:1: field 'file': cannot read it" in capsys.readouterr().err


def test_real_recordings_in_three_languages_are_heard_as_hear_hears_them(
    tmp_path: Path, whisper: Callable[[str], WhisperRecognizer], capsys: pytest.CaptureFixture[str]
) -> None:
    del whisper  # marks the test as one that hears with the installed model, and fails if there is none
    clips = [
        clip
        for clip in real_speech.load()
        if clip.kind == "letter" and clip.intent == "answer" and clip.text in ("B", "C") and clip.context == "answer"
    ]
    chosen = {clip.language: clip for clip in clips}  # one a language
    lines = [
        {"file": str(clip.path()), "lang": clip.language, "context": clip.context, "options": list(clip.options)}
        for clip in chosen.values()
    ]
    manifest = write(tmp_path, *lines)
    assert main(["hear", "--manifest", str(manifest), "--json", "--engine", "whisper"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["file"] for row in out] == [line["file"] for line in lines]
    assert {"intent", "value", "text", "confidence", "decode_ms", "file"} == set(out[0])
    for row, clip in zip(out, chosen.values(), strict=True):
        assert (row["intent"], row["value"]) == ("answer", clip.value), row
