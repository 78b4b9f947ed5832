"""SVOX Pico, the German quizmaster's and players' voice: rendered for real, checked by ear (Whisper base hears it
back), shaped as set (no clipping, no long trailing silence, no markup read from the text), and replaced by eSpeak-NG,
with a word on what to install, where ttspico is missing."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from voicemaster.cli.app import main
from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.play.demo import player_voices
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.voice import pico
from voicemaster.speech.voice.render_ahead import Priority
from voicemaster.speech.voice.speakers import Engines, Speakers, rendered_path, resolved

pytestmark = pytest.mark.audio  # Pico renders speech

GERMAN = Voice("de-DE", engine="pico")
OPTIONS = ("Berlin", "Paris", "Rom", "Wien")


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def samples(audio: Audio) -> np.ndarray:
    return np.frombuffer(audio.samples, dtype="<i2").astype(np.int32)


def test_german_is_spoken_by_pico_and_whisper_hears_the_sentence_back(ear: WhisperRecognizer) -> None:
    assert resolved(Voice(), "de") == GERMAN  # auto, where Pico is installed
    audio = Speakers({"de": Voice(engine="pico")}).render("Ist das Ihre endgültige Antwort?", "de")
    assert audio.rate == 16_000 and 1.0 < audio.seconds < 4.0
    text = ear.recognize(audio, Context(ContextName.CONFIRM, "de")).text.lower()
    assert "endgültige antwort" in text, text


LETTERS = (("Antwort D", "D"), ("die Antwort D", "D"), ("Antwort B", "B"), ("De", "D"))
"""The letters eSpeak-NG's players were taken wrong on: "Antwort D", "die Antwort D" and "De" heard as B."""


def test_no_german_demo_player_is_taken_for_another_letter(ear: WhisperRecognizer) -> None:
    """Each Pico player, at their own pitch and rate, is heard as meant, or asked again: never as another letter."""
    wrong, right = [], 0
    players = player_voices("de", Voice())
    for voice, (phrase, letter) in zip(players, LETTERS, strict=True):  # each player says one of them
        audio = Speakers({"de": voice}).render(phrase, "de")
        heard = ear.recognize(audio, Context(ContextName.ANSWER, "de", OPTIONS))
        right += (heard.intent, heard.value) == ("answer", letter)
        if heard.intent != "unknown" and (heard.intent, heard.value) != ("answer", letter):
            wrong.append((voice.pitch, voice.rate, phrase, heard))
    assert not wrong
    assert right >= len(players) - 1, f"{right} of {len(players)} understood"


def test_the_loudest_speech_does_not_clip_and_the_volume_scales_it() -> None:
    line = "Achtung! Die Millionenfrage! Sie haben eine Million Euro gewonnen!"
    normal = samples(Speakers({"de": GERMAN}).render(line, "de"))
    assert 12_000 < np.abs(normal).max() < 32_000
    quiet = samples(Speakers({"de": Voice("de-DE", volume=50, engine="pico")}).render(line, "de"))
    assert np.abs(quiet).max() == pytest.approx(np.abs(normal).max() / 2, rel=0.02)


def test_the_silence_pico_puts_after_a_sentence_is_trimmed() -> None:
    import ttspico

    sentence = "Sie haben sechzehntausend Euro gewonnen."
    engine = ttspico.TtsEngine("de-DE")
    engine.volume = pico.ENGINE_VOLUME
    raw = np.frombuffer(engine.speak(sentence), dtype="<i2").astype(np.int32)
    raw_tail = (len(raw) - np.nonzero(np.abs(raw) > pico.TRIM_LEVEL)[0][-1]) / 16_000
    assert raw_tail > 0.5  # what there is to trim
    audio = Speakers({"de": GERMAN}).render(sentence, "de")
    kept = samples(audio)
    tail = (len(kept) - np.nonzero(np.abs(kept) > pico.TRIM_LEVEL)[0][-1]) / 16_000
    assert 0.05 < tail < 0.15
    assert audio.seconds < len(raw) / 16_000 - 0.4


def test_markup_in_the_text_is_read_not_obeyed() -> None:
    """`<volume level="0">` would silence Pico; escaped, it is text like any other."""
    plain = Speakers({"de": GERMAN}).render("Antwort B", "de")
    marked = Speakers({"de": GERMAN}).render("<volume level='0'>Antwort B</volume>", "de")
    assert marked.seconds > plain.seconds + 1.0 and marked.rms() > plain.rms() / 2
    assert pico.escaped("3 < 4") == "3 <\u2060 4"
    same = Speakers({"de": GERMAN})
    assert same.render("Ist 3 < 4?", "de").seconds == pytest.approx(same.render("Ist 3 kleiner 4?", "de").seconds, 0.2)


def test_pitch_and_rate_make_the_players_different_people() -> None:
    players = player_voices("de", Voice())
    assert len(players) >= 3 and all(voice.engine == "pico" for voice in players)
    assert len({(voice.pitch, voice.rate) for voice in players}) == len(players)
    assert all(voice.pitch != 100 for voice in players)  # none sounds like the quizmaster
    slow, fast = (Voice("de-DE", rate=rate, engine="pico") for rate in (136, 184))
    line = "Ich nehme den Publikumsjoker."
    assert Speakers({"de": slow}).render(line, "de").seconds > Speakers({"de": fast}).render(line, "de").seconds * 1.2


def test_a_line_is_rendered_once_and_read_from_the_cache_after() -> None:
    engines = Engines()
    first = Speakers({"de": GERMAN}, engines).render("Hier ist Ihre nächste Frage.", "de")
    again = Speakers({"de": GERMAN}, engines).render("Hier ist Ihre nächste Frage.", "de")
    assert again == first and engines.lines.served == {"rendered": 1, "ready": 1}
    higher = Speakers({"de": Voice("de-DE", pitch=125, engine="pico")}, engines)
    assert higher.render("Hier ist Ihre nächste Frage.", "de") != first and engines.lines.served["rendered"] == 2


def test_lines_foreseen_in_german_are_rendered_ahead_and_ready_when_said() -> None:
    engines = Engines()
    speakers = Speakers({"de": Voice()}, engines)
    foreseen = ["Ist das Ihre endgültige Antwort?", "Die Antwort B ist eingeloggt."]
    speakers.ahead(foreseen, "de", Priority.FORESEEN)
    voice = engines.resolve(Voice(), "de")
    deadline = time.monotonic() + 120
    while not all(rendered_path(line, voice).exists() for line in foreseen):
        assert time.monotonic() < deadline, "the foreseen lines were never rendered"
        time.sleep(0.05)
    said = [speakers.render(line, "de") for line in foreseen]
    assert engines.lines.served == {"ready": 2} and all(audio.rate == 16_000 for audio in said)


def test_without_ttspico_german_falls_back_to_espeak_and_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ttspico", None)  # import ttspico raises ImportError
    assert resolved(Voice(), "de").engine == "espeak"
    assert all(voice.engine == "espeak" for voice in player_voices("de", Voice()))
    speakers = Speakers({"de": Voice(engine="pico")})
    for _ in range(2):
        audio = speakers.render("Ist das Ihre endgültige Antwort?", "de")
        assert audio.rate == 22_050 and audio.seconds > 1.0
    warnings = capsys.readouterr().err
    assert warnings.count("SVOX Pico") == 1 and "eSpeak-NG instead" in warnings and "voice" in warnings
    assert main(["voices", "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {(entry["voice"], entry["installed"]) for entry in listed if entry["engine"] == "pico"} == {
        ("de-DE", False), ("en-GB", False), ("en-US", False), ("fr-FR", False)
    }  # fmt: skip


def test_voices_lists_pico_for_german_english_and_french(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["voices", "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    found = {(entry["language"], entry["voice"], entry["default"]) for entry in listed if entry["engine"] == "pico"}
    assert found == {("de", "de-DE", True), ("en", "en-GB", False), ("en", "en-US", False), ("fr", "fr-FR", False)}
    assert all(entry["installed"] for entry in listed if entry["engine"] == "pico")


def test_say_speaks_pico_by_default_in_german_and_when_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "say.wav"
    assert main(["say", "Ist das Ihre endgültige Antwort?", "--lang", "de", "--out", str(out)]) == 0
    assert "16000 Hz" in capsys.readouterr().out
    assert main(["say", "Final answer?", "--lang", "en", "--voice", "pico:en-US", "--out", str(out)]) == 0
    assert "16000 Hz" in capsys.readouterr().out
    assert main(["say", "Hallo", "--lang", "de", "--voice", "pico:de-AT", "--out", str(out)]) == 2
    assert "Pico has no voice 'de-AT'" in capsys.readouterr().err
