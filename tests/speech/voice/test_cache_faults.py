"""The rendered-speech cache is what can be made again: a folder of it replaced by a file is named once, with what to
do, and the line is still said."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from voicemaster.config.voice import Voice
from voicemaster.speech.voice import pico
from voicemaster.speech.voice.speakers import Engines, Speakers, rendered_path, resolved

pytestmark = pytest.mark.audio  # Pico renders speech

GERMAN = Voice("de-DE", engine="pico")


def test_a_cache_folder_replaced_by_a_file_is_named_once_and_every_line_still_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not pico.installed():
        pytest.skip("ttspico is not installed")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    lines = ["Guten Abend.", "Gute Nacht."]
    blocked = {rendered_path(line, resolved(GERMAN, "de")).parent for line in lines}
    for folder in blocked:  # ".../speech/37": a file where the folder of some lines belongs
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.write_text("not a folder")
    warnings = io.StringIO()
    speakers = Speakers({"de": GERMAN}, Engines(warnings=warnings))
    assert all(speakers.render(line, "de").seconds > 0.3 for line in lines + lines)
    said = warnings.getvalue().splitlines()
    assert len(said) == 1 and said[0].startswith("voicemaster: "), said
    blocking = next(folder for folder in blocked if str(folder) in said[0])
    assert (
        f"{blocking} is a file where voicemaster keeps rendered speech in folders: remove it (rm {blocking})"
        in (said[0])
    )
