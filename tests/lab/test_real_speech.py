"""The real speech set that set-up installs: what a game would hear, in every language and from every source, as
16 kHz mono speech, each clip saying what its manifest says it means."""

from __future__ import annotations

import os
import stat
import subprocess
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from voicemaster.speech.audio import Audio
from voicemaster_lab.corpora import real_speech
from voicemaster_lab.corpora.real_speech import KINDS, LETTERS, SOURCES, RealSpeechUnavailable
from voicemaster_lab.corpora.real_speech_sources import RealClip, real_speech_dir

FRAME = 400
"""25 ms at 16 kHz."""


@pytest.fixture(scope="module")
def clips() -> tuple[RealClip, ...]:
    return real_speech.load()


def test_the_set_has_clips_in_every_language_from_every_source(clips: tuple[RealClip, ...]) -> None:
    assert Counter(clip.language for clip in clips).keys() == {"de", "en", "fr"}
    by_source = {source: {clip.language for clip in clips if clip.source == source} for source in SOURCES}
    assert by_source == {
        "klettres": {"de", "en", "fr"},
        "asterisk-en": {"en"},
        "asterisk-fr": {"fr"},
        "armelle": {"fr"},
    }
    assert {clip.speaker for clip in clips} == {"de", "en", "en_GB", "fr", "Allison", "June", "Armelle"}
    assert {clip.kind for clip in clips} == set(KINDS)
    assert len({clip.file for clip in clips}) == len(clips)


def test_all_of_klettres_is_used(clips: tuple[RealClip, ...]) -> None:
    # de 29 letters (A-Z, Ä, Ö, Ü) + 34 words; en 26 + 19; en_GB 26 + 23; fr 26 + 28 (sounds.xml).
    counts = Counter((clip.speaker, clip.kind in ("letter",)) for clip in clips if clip.source == "klettres")
    assert counts == {
        ("de", True): 29, ("de", False): 34, ("en", True): 26, ("en", False): 19,
        ("en_GB", True): 26, ("en_GB", False): 23, ("fr", True): 26, ("fr", False): 28,
    }  # fmt: skip


def test_a_language_or_a_source_is_loaded_alone(clips: tuple[RealClip, ...]) -> None:
    french = real_speech.load(("fr",))
    assert french == tuple(clip for clip in clips if clip.language == "fr")
    armelle = real_speech.load(sources=("armelle",))
    assert armelle and armelle == tuple(clip for clip in clips if clip.source == "armelle")
    with pytest.raises(ValueError, match="no real speech in xx"):
        real_speech.load(("xx",))


def test_every_clip_is_16_khz_mono_speech(clips: tuple[RealClip, ...]) -> None:
    for clip in clips:
        audio = Audio.read(clip.path())  # refuses anything but 16-bit mono
        assert audio.rate == real_speech.RATE, clip.file
        assert 0.5 < audio.seconds < 5, clip.file
        samples = np.frombuffer(audio.samples, dtype="<i2").astype(np.float64)
        frames = np.sqrt((samples[: len(samples) // FRAME * FRAME].reshape(-1, FRAME) ** 2).mean(axis=1))
        # A word stands well out of the silence around it: loud at its peak, far louder than the quietest frames.
        assert audio.rms() > 200, clip.file
        assert frames.max() > 500, clip.file
        assert frames.max() > 8 * np.quantile(frames, 0.1), clip.file


def test_answer_clips_offer_four_options_and_mean_a_letter_or_nothing(clips: tuple[RealClip, ...]) -> None:
    answers = [clip for clip in clips if clip.context == "answer"]
    assert answers
    for clip in answers:
        assert len(clip.options) == 4 and len(set(clip.options)) == 4, clip
        if (clip.kind == "letter" and clip.text not in LETTERS) or clip.kind == "talk":
            assert (clip.intent, clip.value) == ("unknown", None), clip  # "E" names no option, nor does talk
        else:
            assert clip.intent == "answer" and clip.value in LETTERS, clip


def test_every_letter_a_to_d_is_said_by_every_voice(clips: tuple[RealClip, ...]) -> None:
    letters = {(clip.speaker, clip.value) for clip in clips if clip.kind == "letter" and clip.text in LETTERS}
    speakers = {clip.speaker for clip in clips}
    assert letters == {(speaker, letter) for speaker in speakers for letter in LETTERS}
    for clip in clips:
        if clip.kind == "letter" and clip.text in LETTERS:
            assert clip.value == clip.text
            assert clip.options == real_speech.LETTER_OPTIONS[clip.language]


def test_each_option_clip_is_the_option_at_its_letter(clips: tuple[RealClip, ...]) -> None:
    options = [clip for clip in clips if clip.kind not in ("letter", "yes", "no", "talk") and clip.context == "answer"]
    assert {clip.kind for clip in options} == {"word", "number", "ordinal", "month", "weekday"}
    for clip in options:
        assert clip.value is not None
        said = clip.options[LETTERS.index(clip.value)]
        # Numbers are printed as digits ("20", "1,000"); the others as they are said.
        assert said == clip.text or (clip.kind == "number" and said.replace(",", "").isdigit()), clip
    for voice in {clip.speaker for clip in options}:
        assert {clip.value for clip in options if clip.speaker == voice} == set(LETTERS), voice
    texts = {option.casefold() for clip in options for option in clip.options}
    # No option is itself a yes or a no, so that hearing one confirms nothing (KLettres' French syllable "Si" is an
    # option: in the answer context a yes means nothing anyway).
    assert not texts & {"ja", "nein", "yes", "no", "oui", "non"}


def test_a_number_alone_in_the_money_drop_is_no_placement(clips: tuple[RealClip, ...]) -> None:
    alone = [clip for clip in clips if clip.context == "number" and clip.kind != "talk"]
    assert {clip.source for clip in alone} == {"asterisk-en", "asterisk-fr", "armelle"}
    assert all(clip.kind == "number" and clip.intent == "unknown" and len(clip.options) == 4 for clip in alone)


def test_confirm_clips_are_yes_or_no(clips: tuple[RealClip, ...]) -> None:
    confirms = [clip for clip in clips if clip.context == "confirm" and clip.kind != "talk"]
    for clip in confirms:
        assert clip.intent in {"yes", "no"} and clip.kind == clip.intent, clip
        assert clip.value is None, clip
        assert clip.options == (), clip
    assert {(clip.speaker, clip.text.casefold(), clip.intent) for clip in confirms} == {
        ("de", "ja", "yes"), ("en", "no", "no"), ("en_GB", "no", "no"), ("Allison", "no", "no"),
        ("Armelle", "non", "no"),
    }  # fmt: skip


def test_talk_is_heard_where_answers_yes_and_placements_are_and_means_nothing(clips: tuple[RealClip, ...]) -> None:
    talk = [clip for clip in clips if clip.kind == "talk"]
    assert {clip.speaker for clip in talk} == {"Allison", "June"}
    assert {clip.context for clip in talk} == {"answer", "confirm", "number"}
    assert all((clip.intent, clip.value) == ("unknown", None) for clip in talk)


def test_the_folder_is_the_environment_variable_or_in_the_models_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(real_speech.ENVIRONMENT, str(tmp_path))
    assert real_speech_dir() == tmp_path
    monkeypatch.delenv(real_speech.ENVIRONMENT)
    monkeypatch.setenv("VOICEMASTER_MODELS_DIR", str(tmp_path / "models"))
    assert real_speech_dir() == tmp_path / "models" / "real-speech"


def test_a_missing_set_says_to_run_setup(tmp_path: Path) -> None:
    with pytest.raises(RealSpeechUnavailable, match="make setup"):
        real_speech.load(folder=tmp_path)


def test_a_set_of_an_older_version_says_to_run_setup(tmp_path: Path) -> None:
    old = '{"file": "de/answer-a.wav", "language": "de", "speaker": "de", "text": "A", "context": "answer", '
    (tmp_path / real_speech.MANIFEST).write_text(old + '"options": [], "intent": "answer", "value": "A"}\n')
    with pytest.raises(RealSpeechUnavailable, match="another version: run `make setup`"):
        real_speech.load(folder=tmp_path)


def test_an_installed_set_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the installed set was fetched again: {args}, {kwargs}")

    monkeypatch.setattr(subprocess, "run", refuse)
    assert real_speech.install() == real_speech_dir()


def test_a_failed_download_says_what_to_run_and_leaves_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "apt-get"
    fake.write_text("#!/bin/sh\necho 'E: Unable to locate package klettres-data' >&2\nexit 100\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    parent = tmp_path / "models"
    with pytest.raises(RealSpeechUnavailable, match=r"apt-get download klettres-data .+ failed: E: Unable to locate"):
        real_speech.install(parent / "real-speech")
    assert list(parent.iterdir()) == []
