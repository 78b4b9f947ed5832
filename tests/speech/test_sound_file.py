"""Reading what a speech library writes: only whole files, any PCM layout to 16-bit mono, the rate overruled."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import numpy as np

from voicemaster.speech.audio import Audio
from voicemaster.speech.sound_file import read_complete

RATE = 16_000
TONE = (np.sin(np.arange(RATE // 10) * 2 * math.pi * 440 / RATE) * 0.5).astype(np.float64)


def _wave(
    samples: bytes, rate: int, channels: int = 1, bits: int = 16, tag: int = 1, declared: int | None = None
) -> bytes:
    size = len(samples) if declared is None else declared
    block = channels * bits // 8
    fmt = struct.pack("<HHIIHH", tag, channels, rate, rate * block, block, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", size) + samples
    return b"RIFF" + struct.pack("<I", len(body)) + body


def _extended(rate: int) -> bytes:
    exponent = rate.bit_length() - 1
    return struct.pack(">HQ", exponent + 16383, rate << (63 - exponent))


def test_a_header_rate_that_is_wrong_is_overruled(tmp_path: Path) -> None:
    """pyttsx3's eSpeak driver writes 22 050 Hz whatever the voice renders at (16 000 Hz for MBROLA voices)."""
    samples = (TONE * 32767).astype("<i2").tobytes()
    path = tmp_path / "mbrola.wav"
    path.write_bytes(_wave(samples, 22_050))
    sound = read_complete(path)
    assert sound is not None and sound.rate == 22_050
    assert sound.to_audio(RATE) == Audio(samples, RATE)


def test_a_file_still_being_written_is_not_read(tmp_path: Path) -> None:
    samples = (TONE * 32767).astype("<i2").tobytes()
    path = tmp_path / "growing.wav"
    assert read_complete(path) is None
    path.write_bytes(_wave(samples, RATE)[:-100])
    assert read_complete(path) is None
    path.write_bytes(_wave(samples, RATE, declared=0))  # streaming writers put the length in at the end
    assert read_complete(path) is None
    path.write_bytes(_wave(samples, RATE))
    assert read_complete(path) is not None


def test_stereo_8_bit_and_float_become_16_bit_mono(tmp_path: Path) -> None:
    expected = (TONE * 32767).astype("<i2")
    path = tmp_path / "other.wav"
    stereo = np.repeat(expected, 2).tobytes()
    path.write_bytes(_wave(stereo, RATE, channels=2))
    assert (sound := read_complete(path)) is not None and sound.to_audio() == Audio(expected.tobytes(), RATE)
    path.write_bytes(_wave((TONE * 127 + 128).astype(np.uint8).tobytes(), RATE, bits=8))
    assert (sound := read_complete(path)) is not None
    assert np.abs(np.frombuffer(sound.to_audio().samples, "<i2") - expected).max() < 2 * 256  # 8-bit steps
    path.write_bytes(_wave(TONE.astype("<f4").tobytes(), RATE, bits=32, tag=3))
    assert (sound := read_complete(path)) is not None
    assert np.abs(np.frombuffer(sound.to_audio().samples, "<i2") - expected).max() <= 1


def test_aiff_as_macos_writes_it_is_read(tmp_path: Path) -> None:
    expected = (TONE * 32767).astype("<i2")
    samples = expected.astype(">i2").tobytes()
    comm = struct.pack(">hIh", 1, len(expected), 16) + _extended(22_050)
    ssnd = struct.pack(">II", 0, 0) + samples
    body = b"AIFF" + b"COMM" + struct.pack(">I", len(comm)) + comm + b"SSND" + struct.pack(">I", len(ssnd)) + ssnd
    path = tmp_path / "nsss.aiff"
    path.write_bytes(b"FORM" + struct.pack(">I", len(body)) + body)
    sound = read_complete(path)
    assert sound is not None and sound.rate == 22_050 and sound.to_audio() == Audio(expected.tobytes(), 22_050)
