"""The real speech set that set-up installs: what a game would hear, in every language, as 16 kHz mono speech."""

from __future__ import annotations

import os
import stat
import subprocess
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from voicemaster.bench import real_speech
from voicemaster.bench.real_speech import LETTERS, RealClip, RealSpeechUnavailable
from voicemaster.speech.audio import Audio

FRAME = 400
"""25 ms at 16 kHz."""


@pytest.fixture(scope="module")
def clips() -> tuple[RealClip, ...]:
    return real_speech.load()


def test_the_set_has_clips_in_every_language(clips: tuple[RealClip, ...]) -> None:
    languages = Counter(clip.language for clip in clips)
    assert set(languages) == {"de", "en", "fr"}
    assert all(10 <= count <= 100 for count in languages.values()), languages
    assert {clip.speaker for clip in clips} == {"de", "en", "en_GB", "fr"}
    assert len({clip.file for clip in clips}) == len(clips)


def test_a_language_is_loaded_alone(clips: tuple[RealClip, ...]) -> None:
    french = real_speech.load(("fr",))
    assert french == tuple(clip for clip in clips if clip.language == "fr")
    with pytest.raises(ValueError, match="no real speech in xx"):
        real_speech.load(("xx",))


def test_every_clip_is_16_khz_mono_speech(clips: tuple[RealClip, ...]) -> None:
    for clip in clips:
        audio = Audio.read(clip.path())  # refuses anything but 16-bit mono
        assert audio.rate == real_speech.RATE, clip.file
        assert 0.5 < audio.seconds < 5, clip.file
        samples = np.frombuffer(audio.samples, dtype="<i2").astype(np.float64)
        frames = np.sqrt((samples[: len(samples) // FRAME * FRAME].reshape(-1, FRAME) ** 2).mean(axis=1))
        # A word stands well out of the silence around it: loud at its peak, far louder than the clip's middle frame.
        assert audio.rms() > 300, clip.file
        assert frames.max() > 1000, clip.file
        assert frames.max() > 8 * np.median(frames), clip.file


def test_answer_clips_offer_four_options_and_mean_a_letter(clips: tuple[RealClip, ...]) -> None:
    answers = [clip for clip in clips if clip.context == "answer"]
    assert answers
    for clip in answers:
        assert clip.intent == "answer", clip
        assert clip.value in LETTERS, clip
        assert len(clip.options) == 4, clip
        assert len(set(clip.options)) == 4, clip


def test_every_letter_is_said_by_every_voice(clips: tuple[RealClip, ...]) -> None:
    letters = {(clip.speaker, clip.value) for clip in clips if clip.text in LETTERS}
    assert letters == {(speaker, letter) for speaker in real_speech.SPEAKERS for letter in LETTERS}
    for clip in clips:
        if clip.text in LETTERS:
            assert clip.value == clip.text
            assert clip.options == real_speech.LETTER_OPTIONS[clip.language]


def test_each_word_is_said_once_as_the_option_at_its_letter(clips: tuple[RealClip, ...]) -> None:
    words = [clip for clip in clips if clip.context == "answer" and clip.text not in LETTERS]
    for speaker, chosen in real_speech.OPTION_WORDS.items():
        said = [clip for clip in words if clip.speaker == speaker]
        assert sorted(clip.text for clip in said) == sorted(name for name, _ in chosen)
        assert {clip.value for clip in said} == set(LETTERS), speaker
        for clip in said:
            assert clip.value is not None
            assert clip.options[LETTERS.index(clip.value)] == dict(chosen)[clip.text], clip
    options = {option.casefold() for clip in words for option in clip.options}
    # No option is itself a yes or a no, so that hearing one confirms nothing.
    assert not options & {"ja", "nein", "yes", "no", "oui", "non", "si"}


def test_confirm_clips_are_yes_or_no(clips: tuple[RealClip, ...]) -> None:
    confirms = [clip for clip in clips if clip.context == "confirm"]
    for clip in confirms:
        assert clip.intent in {"yes", "no"}, clip
        assert clip.value is None, clip
        assert clip.options == (), clip
    assert {(clip.language, clip.text.casefold(), clip.intent) for clip in confirms} >= {
        ("de", "ja", "yes"),
        ("en", "no", "no"),
    }


def test_the_folder_is_the_environment_variable_or_in_the_models_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(real_speech.ENVIRONMENT, str(tmp_path))
    assert real_speech.real_speech_dir() == tmp_path
    monkeypatch.delenv(real_speech.ENVIRONMENT)
    monkeypatch.setenv("VOICEMASTER_MODELS_DIR", str(tmp_path / "models"))
    assert real_speech.real_speech_dir() == tmp_path / "models" / "real-speech"


def test_a_missing_set_says_to_run_setup(tmp_path: Path) -> None:
    with pytest.raises(RealSpeechUnavailable, match="make setup"):
        real_speech.load(folder=tmp_path)


def test_an_installed_set_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the installed set was fetched again: {args}, {kwargs}")

    monkeypatch.setattr(subprocess, "run", refuse)
    assert real_speech.install() == real_speech.real_speech_dir()


def test_a_failed_download_says_what_to_run_and_leaves_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "apt-get"
    fake.write_text("#!/bin/sh\necho 'E: Unable to locate package klettres-data' >&2\nexit 100\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    parent = tmp_path / "models"
    with pytest.raises(RealSpeechUnavailable, match=r"apt-get download klettres-data failed: E: Unable to locate"):
        real_speech.install(parent / "real-speech")
    assert list(parent.iterdir()) == []
