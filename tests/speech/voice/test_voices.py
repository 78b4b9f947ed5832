"""The quizmaster's voices: Kokoro for English and French, Pico for German (tests/speech/test_pico.py), eSpeak-NG as
the fallback, rendered for real and checked by ear (Whisper base hears the sentence back)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from voicemaster.cli.app import main
from voicemaster.config.files import ConfigError
from voicemaster.config.settings import load_settings
from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.play.demo import player_voices
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.voice import kokoro
from voicemaster.speech.voice.render_ahead import Priority
from voicemaster.speech.voice.speakers import Engines, Speakers, rendered_path, resolved

pytestmark = [pytest.mark.model, pytest.mark.audio]  # Kokoro renders speech


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.mark.parametrize(
    ("language", "voice", "sentence", "heard"),
    [
        ("en", "bf_emma", "Is that your final answer?", "final answer"),
        ("en", "am_michael", "Ask the audience, please.", "audience"),
        ("fr", "ff_siwis", "C'est votre dernier mot ?", "dernier mot"),
    ],
)
def test_kokoro_speaks_so_that_whisper_hears_the_sentence_back(
    ear: WhisperRecognizer, language: str, voice: str, sentence: str, heard: str
) -> None:
    audio = Speakers({language: Voice(voice, engine="kokoro")}).render(sentence, language)
    assert audio.rate == 24_000 and 0.8 < audio.seconds < 5
    text = ear.recognize(audio, Context(ContextName.CONFIRM, language)).text
    assert heard in text.lower(), text


def test_kokoro_is_never_given_the_marks_of_a_word_in_another_language_as_sounds() -> None:
    """eSpeak-NG marks a French stretch it says as English ("(en)wˈʊdz(fr)"); given to Kokoro, the marks were said
    ("Bretton Woods" came back from Whisper as "Breton and Woods of France")."""
    said = kokoro.Kokoro().phonemes("à Bretton Woods, en même temps", "fr-fr")
    assert "(" not in said and "en)" not in said and "wˈʊdz" in said


def test_auto_speaks_english_and_french_with_kokoro_and_german_with_pico() -> None:
    assert resolved(Voice(), "en") == Voice("bf_emma", engine="kokoro")
    assert resolved(Voice(), "fr") == Voice("ff_siwis", engine="kokoro")
    assert resolved(Voice(), "de") == Voice("de-DE", engine="pico")
    assert resolved(Voice("en-us"), "en").engine == "espeak"  # a name alone picks the engine that has it
    assert resolved(Voice("en-US"), "en").engine == "pico"
    german = Speakers({"de": Voice()}).render("Ist das deine endgültige Entscheidung?", "de")
    assert german.rate == 16_000  # Pico's


# The cache and the order of rendering are the same for every engine: Pico renders them in a fraction of Kokoro's time.
PICO = {"en": Voice("en-US", engine="pico"), "fr": Voice("fr-FR", engine="pico")}


def test_a_line_is_rendered_once_and_read_from_the_cache_after() -> None:
    engines = Engines()
    speakers = Speakers({"en": PICO["en"]}, engines)
    first = speakers.render("Here is your next question.", "en")
    again = Speakers({"en": PICO["en"]}, engines).render("Here is your next question.", "en")
    assert again == first and engines.lines.served == {"rendered": 1, "ready": 1}
    slower = speakers.with_voice("en", replace(PICO["en"], rate=100)).render("Here is your next question.", "en")
    assert slower.seconds > first.seconds * 1.15 and engines.lines.served["rendered"] == 2  # at the new speed


def test_lines_rendered_ahead_are_ready_when_they_are_said() -> None:
    engines = Engines()
    speakers = Speakers({"fr": PICO["fr"]}, engines)
    foreseen = ["Est-ce votre dernier mot ?", "La réponse B est verrouillée."]
    speakers.ahead(foreseen, "fr", Priority.FORESEEN)
    deadline = time.monotonic() + 30
    while not all(rendered_path(line, engines.resolve(PICO["fr"], "fr")).exists() for line in foreseen):
        assert time.monotonic() < deadline, "the foreseen lines were never rendered"
        time.sleep(0.05)
    said = [speakers.render(line, "fr") for line in foreseen]
    assert engines.lines.served == {"ready": 2} and all(audio.seconds > 0.8 for audio in said)


def test_a_line_needed_now_goes_before_lines_foreseen_and_old_foresight_is_dropped() -> None:
    engines = Engines()
    speakers = Speakers({"en": Voice()}, engines)
    old = [f"Question {n} of the round that is over." for n in range(1, 6)]
    speakers.ahead(old, "en", Priority.FORESEEN)
    speakers.ahead(["Is that your final answer?"], "en", Priority.FORESEEN)  # replaces the old foresight
    assert speakers.render("Well done.", "en").seconds > 0.3
    voice = engines.resolve(Voice(), "en")
    deadline = time.monotonic() + 30
    while not rendered_path("Is that your final answer?", voice).exists():  # what is still foreseen comes next
        assert time.monotonic() < deadline, "the foreseen line was never rendered"
        time.sleep(0.05)
    # The line needed now did not wait behind the old foresight: of the five, at most the one already rendering was
    # made. (Which of "Well done." and the foreseen line finished first is the machine's: the worker may have begun
    # the foreseen one before the needed one was asked for.)
    assert rendered_path("Well done.", voice).exists()
    assert sum(rendered_path(line, voice).exists() for line in old) <= 1


def test_without_kokoro_the_quizmaster_falls_back_to_espeak_and_says_why_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VOICEMASTER_MODELS_DIR", str(tmp_path / "no-models"))
    speakers = Speakers({"en": Voice(engine="kokoro")})
    for _ in range(2):
        audio = speakers.render("Final answer?", "en")
        assert audio.rate == 22_050 and audio.seconds > 0.3
    warnings = capsys.readouterr().err
    assert warnings.count("voicemaster models setup") == 1 and "eSpeak-NG instead" in warnings


def test_the_demo_players_speak_in_voices_other_than_the_quizmasters() -> None:
    english = player_voices("en", Voice())
    assert len(english) >= 3 and all(voice.engine == "kokoro" for voice in english)
    assert "bf_emma" not in {voice.name for voice in english}
    assert "ff_siwis" not in {voice.name for voice in player_voices("fr", Voice())}
    assert all(voice.engine == "pico" for voice in player_voices("de", Voice()))


def test_voices_lists_each_voice_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["voices", "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {tuple(sorted(entry)) for entry in listed} == {("default", "engine", "installed", "language", "voice")}
    defaults = {(entry["language"], entry["engine"], entry["voice"]) for entry in listed if entry["default"]}
    assert defaults == {("de", "pico", "de-DE"), ("en", "kokoro", "bf_emma"), ("fr", "kokoro", "ff_siwis")}
    assert {"af_heart", "bm_george"} <= {entry["voice"] for entry in listed if entry["engine"] == "kokoro"}


def test_say_speaks_in_the_voice_asked_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "george.wav"
    assert main(["say", "Final answer?", "--lang", "en", "--voice", "kokoro:bm_george", "--out", str(out)]) == 0
    assert out.stat().st_size > 20_000 and "24000 Hz" in capsys.readouterr().out
    assert main(["say", "Hallo", "--lang", "de", "--voice", "espeak:xx-nope", "--out", str(out)]) == 2
    assert "`voicemaster voices` lists" in capsys.readouterr().err
    assert main(["say", "Hello", "--lang", "en", "--voice", "kokoro:nobody", "--out", str(out)]) == 2


def test_an_unknown_speech_engine_in_the_config_names_the_key(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[speech.en]\nengine = "festival"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"speech\.en\.engine"):
        load_settings([config])


def test_a_sentence_said_in_many_lines_is_rendered_once() -> None:
    engines = Engines()
    speakers = Speakers({"en": PICO["en"]}, engines)
    first = speakers.render("Anna, answer B, Paris. Is that your final answer?", "en")
    second = speakers.render("Anna, answer C, Rome. Is that your final answer?", "en")
    assert engines.lines.served == {"rendered": 3, "ready": 1}
    assert first.seconds > 2.0 and abs(first.seconds - second.seconds) < 1.0


def test_the_program_ends_cleanly_while_lines_are_rendered_ahead(tmp_path: Path) -> None:
    """Ending with Kokoro in the middle of a line used to abort the process (onnxruntime's threads torn down)."""
    script = (
        "import time\n"
        "from voicemaster.speech.voice.render_ahead import Priority\n"
        "from voicemaster.speech.voice.speakers import Speakers\n"
        "from voicemaster.config.voice import Voice\n"
        "speakers = Speakers({'en': Voice()})\n"
        "speakers.ahead([f'This is line number {n} of many.' for n in range(30)], 'en', Priority.FIXED)\n"
        "time.sleep(2)\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and "terminate" not in done.stderr, done.stderr
    assert 0 < len(list((tmp_path / "cache").rglob("*.wav"))) < 30  # some rendered, the rest dropped at the end
