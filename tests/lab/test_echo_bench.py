"""The quizmaster's own voice as a corpus and a bench: echo scenes are seeded and made once, their reference is what
was played, the echo stands at the stated level over the player, `bench asr --frontend` hears them from where the
player begins, and `bench frontend` tells a canceller that keeps our voice out from none."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from voicemaster.speech.audio import Audio
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, to_float
from voicemaster_lab.asr import frontend_figures
from voicemaster_lab.asr.frontends import FRONT_ENDS, PRE_ROLL_SECONDS, cleaned
from voicemaster_lab.cli import add_bench
from voicemaster_lab.corpora import echo, rooms

pytestmark = pytest.mark.audio  # the quizmaster's lines are rendered (Pico)


def player(folder: Path) -> rooms.Spoken:
    """A vowel-like tone of a second, as a recording of a person."""
    seconds = np.arange(RECOGNITION_RATE) / RECOGNITION_RATE
    path = folder / "a.wav"
    from_float(0.3 * np.sin(2 * np.pi * 220.0 * seconds) * np.hanning(len(seconds)), RECOGNITION_RATE).write(path)
    return rooms.Spoken(path, "de/x/a.wav", "anna")


def test_an_echo_scene_is_made_once_with_what_was_played_beside_it(tmp_path: Path) -> None:
    scene = echo.made(player(tmp_path), "de", tmp_path / "corpus")
    again = echo.made(player(tmp_path), "de", tmp_path / "corpus")
    assert again.microphone.read_bytes() == scene.microphone.read_bytes()
    line = echo.line_over(player(tmp_path), "de").samples
    assert Audio.read(scene.reference).samples[: len(line)] == line
    assert scene.onset == echo.LEAD_SECONDS


def _floats(audio: Audio) -> np.ndarray:
    return to_float(audio).astype(np.float64)


def test_the_echo_is_louder_than_the_player_by_the_stated_level(tmp_path: Path) -> None:
    line = _floats(echo.line_over(player(tmp_path), "de"))
    alone, _ = echo.scene(line, np.zeros(0), np.random.default_rng(1))
    both, _ = echo.scene(line, _floats(Audio.read(player(tmp_path).path)), np.random.default_rng(1))
    start = round(echo.LEAD_SECONDS * RECOGNITION_RATE)
    voice = (_floats(both) - _floats(alone)[: len(_floats(both))])[start : start + RECOGNITION_RATE]
    level = 10 * np.log10(rooms.speech_power(_floats(alone)) / rooms.speech_power(voice))
    assert level == pytest.approx(echo.ECHO_OVER_PLAYER_DB, abs=2.0)


def test_bench_asr_hears_an_echo_scene_from_where_the_player_begins(tmp_path: Path) -> None:
    scene = echo.made(player(tmp_path), "de", tmp_path / "corpus")
    heard = cleaned(scene.microphone, FRONT_ENDS["none"]())
    whole = Audio.read(scene.microphone)
    assert heard.seconds == pytest.approx(whole.seconds - (echo.LEAD_SECONDS - PRE_ROLL_SECONDS), abs=0.04)


def test_an_unknown_front_end_is_refused_with_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    parser = argparse.ArgumentParser()
    add_bench(parser.add_subparsers())
    args = parser.parse_args(["bench", "asr", "--frontend", "none,magic", "--corpora", "real"])
    assert args.run(args) == 2
    assert "no front end magic; choose from none, webrtc" in capsys.readouterr().err


@pytest.mark.slow  # Silero over every scene, twice
@pytest.mark.model
def test_bench_frontend_tells_a_canceller_that_keeps_our_voice_out_from_none(tmp_path: Path) -> None:
    figures = frontend_figures.run(tmp_path / "corpus", ["none", "webrtc-aec"], languages=("de",), players=2)
    none, webrtc = figures["front_ends"]["none"], figures["front_ends"]["webrtc-aec"]
    assert none["echo_taken_for_player"]["shipped"] == 4  # every German line's echo, without a canceller
    assert webrtc["echo_taken_for_player"]["shipped"] == 0
    assert webrtc["echo_taken_for_player"]["player_share=0.4"] == 0
    assert webrtc["erle_db"]["min"] > 20
    assert "ERLE" in frontend_figures.report(figures)
