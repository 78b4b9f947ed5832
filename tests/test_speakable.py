"""The rule of what may be spoken, and `voicemaster say` refusing what breaks it before any voice loads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from voicemaster.speakable import LONGEST_WORD, Unspeakable, check_speakable, speech_problem, visible_id


@pytest.mark.parametrize(
    "text",
    ["\u200b", "\u0301\u0308", "\u202e", " \u2060 ", "?!", ""],
    ids=["zero-width-space", "combining-marks-alone", "rlo", "word-joiner", "punctuation", "empty"],
)
def test_text_with_nothing_to_hear_is_refused(text: str) -> None:
    with pytest.raises(Unspeakable, match=r"a listener would hear nothing .*: write it in words"):
        check_speakable(text, "the text")


def test_a_word_longer_than_every_voice_says_is_refused_and_one_at_the_bound_is_not() -> None:
    assert speech_problem("Ein " + "a" * LONGEST_WORD + " Wort") is None
    problem = speech_problem("Ein " + "a" * (LONGEST_WORD + 1))
    assert problem is not None and f"a word of {LONGEST_WORD + 1} characters" in problem


def test_a_control_character_is_named() -> None:
    assert speech_problem("Paris\x00") == "it holds a control character (U+0000); remove it"


def test_words_with_format_characters_inside_are_still_words() -> None:
    assert speech_problem("Stra\u00dfe\u200b und Weg") is None


def test_ids_are_nfc_and_visible() -> None:
    assert visible_id("de-x-a\u0308") == ("de-x-\u00e4", None)
    for hidden in ("de-x-\u202eb", "de-x-\u200bc", "de x"):
        _, problem = visible_id(hidden)
        assert problem is not None and "invisible character" in problem, hidden


@pytest.mark.parametrize("language", ["de", "en", "fr"])
@pytest.mark.parametrize("text", ["\u200b", "\u0301\u0308", "x" * (LONGEST_WORD + 1)], ids=["zwsp", "marks", "long"])
def test_say_refuses_with_one_line_before_a_voice_loads(tmp_path: Path, language: str, text: str) -> None:
    folders = {name: str(tmp_path / name.lower()) for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    done = subprocess.run(
        [sys.executable, "-m", "voicemaster", "say", text, "--lang", language, "--out", str(tmp_path / "a.wav")],
        capture_output=True,
        text=True,
        env={**os.environ, **folders},
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("voicemaster: the text cannot be said: "), done.stderr
    assert not (tmp_path / "a.wav").exists() and not (tmp_path / "xdg_data_home").exists()  # no bug log either
