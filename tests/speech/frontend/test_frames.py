"""The front end's plumbing without sound: frames keep their length and order, the reference queue hands over what
was played and silence after, the settings turn each part off, and `voicemaster devices` says what is on."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

from voicemaster.config.files import ConfigError
from voicemaster.config.settings import load_settings
from voicemaster.paths import DEFAULT_CONFIG
from voicemaster.speech.frame import FRAME_BYTES, FRAME_SAMPLES
from voicemaster.speech.frontend import (
    CHUNK_SAMPLES,
    Passthrough,
    PlayedSound,
    open_front_end,
    usable_front_end,
)
from voicemaster.speech.frontend.chunked import Chunked, Samples
from voicemaster.speech.frontend.played import MOST_SECONDS
from voicemaster.speech.signal import RECOGNITION_RATE


def _ramp(count: int, start: int = 0) -> bytes:
    return (np.arange(start, start + count) % 2000).astype("<i2").tobytes()


def test_a_processor_of_10_ms_steps_takes_32_ms_frames_one_step_behind() -> None:
    def halved(heard: Samples, played: Samples) -> Samples:
        del played
        return (heard // 2).astype(np.int16)

    chunked = Chunked("halves", halved, cancels_echo=True)
    heard = _ramp(10 * FRAME_SAMPLES)
    out = b"".join(
        chunked.process(heard[at : at + FRAME_BYTES], bytes(FRAME_BYTES)).samples
        for at in range(0, len(heard), FRAME_BYTES)
    )
    assert len(out) == len(heard)
    expected = np.frombuffer(heard, dtype="<i2")[:-CHUNK_SAMPLES] // 2
    assert np.array_equal(np.frombuffer(out, dtype="<i2")[CHUNK_SAMPLES:], expected)
    last = chunked.process(heard[:FRAME_BYTES], bytes(FRAME_BYTES))
    assert last.echo is not None and last.echo.residual == pytest.approx(0.5, abs=0.02)


def test_a_frame_without_its_reference_is_refused() -> None:
    with pytest.raises(ValueError, match="reference"):
        Chunked("x", lambda heard, _played: heard, cancels_echo=False).process(bytes(FRAME_BYTES), bytes(10))


def test_without_a_front_end_frames_pass_unchanged_and_say_no_canceller_ran() -> None:
    frame = _ramp(FRAME_SAMPLES)
    cleaned = Passthrough().process(frame, bytes(FRAME_BYTES))
    assert cleaned.samples == frame and cleaned.echo is None


def test_the_microphone_takes_what_was_played_in_order_and_silence_when_nothing_plays() -> None:
    played = PlayedSound()
    played.add(_ramp(300))
    assert played.take(200) == _ramp(300)[:200]
    assert played.take(600) == _ramp(300)[200:] + bytes(200)
    assert played.take(100) == bytes(100)


def test_played_sound_nobody_takes_is_dropped_oldest_first() -> None:
    played = PlayedSound()
    most = round(MOST_SECONDS * RECOGNITION_RATE)
    played.add(_ramp(most + 100))
    assert played.take(2) == _ramp(1, start=100)


def test_the_settings_turn_each_part_off(tmp_path: Path) -> None:
    own = tmp_path / "config.toml"
    own.write_text("[speech]\necho_cancel = false\nnoise_suppression = true\n\n[speech.de]\nrate = 150\n")
    settings = load_settings([DEFAULT_CONFIG, own])
    assert not settings.front_end.echo_cancel and settings.front_end.noise_suppression
    assert settings.speech["de"].rate == 150  # the voices beside them are still voices
    assert load_settings([DEFAULT_CONFIG]).front_end.echo_cancel


def test_the_barge_in_filter_is_on_by_default_and_a_setting_turns_it_off(tmp_path: Path) -> None:
    own = tmp_path / "config.toml"
    own.write_text("[speech]\nbarge_in_filter = false\n")
    shipped, turned_off = (load_settings(files).front_end for files in ([DEFAULT_CONFIG], [DEFAULT_CONFIG, own]))
    assert "barge-in filter" in open_front_end(**asdict(shipped)).name
    without = open_front_end(**asdict(turned_off))
    assert without.cancels_echo and "barge-in filter" not in without.name


def test_a_wrong_front_end_setting_names_its_key_in_speech(tmp_path: Path) -> None:
    own = tmp_path / "config.toml"
    own.write_text('[speech]\necho_cancel = "yes"\n')
    with pytest.raises(ConfigError, match=r"speech\.echo_cancel"):
        load_settings([DEFAULT_CONFIG, own])


def test_everything_off_is_no_front_end() -> None:
    assert isinstance(open_front_end(echo_cancel=False, noise_suppression=False), Passthrough)


def test_webrtc_is_what_runs_where_it_is_installed() -> None:
    front_end, why_not = usable_front_end(echo_cancel=True, noise_suppression=True)
    assert why_not is None and front_end.cancels_echo
    name = "WebRTC echo cancellation and noise suppression, players over our voice heard by a barge-in filter"
    assert front_end.name == name
