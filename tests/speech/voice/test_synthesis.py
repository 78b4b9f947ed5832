"""Speech output renders real audio with eSpeak-NG: complete, deterministic, shaped by the configured voice."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from voicemaster.config.settings import default_paths, load_settings
from voicemaster.config.voice import Voice
from voicemaster.speech.audio import Audio
from voicemaster.speech.voice.synthesis import Espeak, SpeechUnavailable

pytestmark = pytest.mark.audio  # eSpeak-NG renders speech

SENTENCES = {
    "de": "Ist das deine endgültige Entscheidung?",
    "en": "Is that your final answer?",
    "fr": "C'est votre dernier mot ?",
}


@pytest.fixture(scope="module")
def voices() -> dict[str, Voice]:
    return load_settings(default_paths()[:1]).speech


@pytest.mark.parametrize("language", SENTENCES)
def test_each_language_renders_audible_complete_speech(voices: dict[str, Voice], language: str) -> None:
    audio = Espeak(voices).render(SENTENCES[language], language)
    assert audio.rate == 22_050
    assert 1.0 < audio.seconds < 5.0
    assert audio.rms() > 500
    # Complete: the file ends in the trailing silence eSpeak-NG writes after the last word, not mid-sound.
    tail = Audio(audio.samples[-2 * 220 :], audio.rate)
    assert tail.rms() < 50


def test_the_same_sentence_renders_the_same_bytes(voices: dict[str, Voice]) -> None:
    synthesizer = Espeak(voices)
    assert synthesizer.render(SENTENCES["de"], "de") == synthesizer.render(SENTENCES["de"], "de")


def test_a_slower_voice_takes_longer(voices: dict[str, Voice]) -> None:
    normal = Espeak(voices).render(SENTENCES["de"], "de")
    slower = Espeak({**voices, "de": replace(voices["de"], rate=110)}).render(SENTENCES["de"], "de")
    assert slower.seconds > normal.seconds * 1.25


def test_a_sentence_starting_with_a_dash_is_spoken_not_taken_for_an_option(voices: dict[str, Voice]) -> None:
    assert Espeak(voices).render("-v fünfzig Euro", "de").seconds > 0.8


def test_a_missing_synthesizer_says_what_to_install(voices: dict[str, Voice]) -> None:
    with pytest.raises(SpeechUnavailable, match="apt-get install espeak-ng"):
        Espeak(voices, executable="espeak-ng-not-installed").render("Hallo", "de")


def test_say_writes_a_wav_file(tmp_path: Path) -> None:
    out = tmp_path / "say.wav"
    shown = subprocess.run(
        [sys.executable, "-m", "voicemaster", "say", "Frage sieben, um zweitausend Euro.", "--lang", "de",
         "--out", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    written = Audio.read(out)
    assert written.seconds > 1.5 and written.rms() > 500
