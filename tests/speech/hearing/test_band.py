"""Telephone-band audio told from full-band audio, on recordings of people: what the decision's larger margins
for telephone audio (`decision.NARROWBAND`) hang on."""

from __future__ import annotations

import numpy as np
import pytest

from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.band import narrowband
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, resample, to_float
from voicemaster_lab.corpora import real_speech
from voicemaster_lab.corpora.real_speech_sources import RealClip

CLIPS = real_speech.load()
FULL_BAND = [clip for clip in CLIPS if clip.source == "klettres" and clip.kind == "letter"][::7]
TELEPHONE = [clip for clip in CLIPS if clip.source != "klettres" and clip.kind == "letter"][::9]


def _samples(clip: RealClip) -> np.typing.NDArray[np.float32]:
    return to_float(resample(Audio.read(clip.path()), RECOGNITION_RATE))


def _through_a_telephone(samples: np.typing.NDArray[np.float32]) -> np.typing.NDArray[np.float32]:
    """8 kHz and back, as a phone line carries a voice."""
    narrow = resample(from_float(samples, RECOGNITION_RATE), 8_000)
    return to_float(resample(narrow, RECOGNITION_RATE))


@pytest.mark.parametrize("clip", FULL_BAND, ids=[clip.file for clip in FULL_BAND])
def test_a_voice_in_the_room_is_full_band_and_the_same_voice_on_the_phone_is_not(clip: RealClip) -> None:
    samples = _samples(clip)
    assert not narrowband(samples)
    assert narrowband(_through_a_telephone(samples))


@pytest.mark.parametrize("clip", TELEPHONE, ids=[clip.file for clip in TELEPHONE])
def test_telephone_recordings_are_narrowband(clip: RealClip) -> None:
    assert narrowband(_samples(clip))


def test_a_phone_line_with_its_hiss_is_still_narrowband_and_a_voice_in_car_noise_is_not() -> None:
    rng = np.random.default_rng(7)
    voice = _samples(FULL_BAND[0])
    loudness = float(np.sqrt(np.mean(voice**2)))
    line = _through_a_telephone(voice)
    hiss = (rng.standard_normal(len(line)) * loudness * 0.03).astype(np.float32)
    assert narrowband(line + hiss)
    # Car noise is low and loud (brown noise: most of its energy below 500 Hz), and leaves the voice's highs.
    walk = np.cumsum(rng.standard_normal(len(voice)))
    rumble = (walk - np.convolve(walk, np.ones(400) / 400, mode="same")).astype(np.float32)
    rumble *= loudness / float(np.sqrt(np.mean(rumble**2)))
    assert not narrowband(voice + rumble)


@pytest.mark.parametrize(
    "samples",
    [np.zeros(0, np.float32), np.zeros(100, np.float32), np.zeros(RECOGNITION_RATE, np.float32)],
    ids=["empty", "shorter than a frame", "silence"],
)
def test_no_voice_at_all_is_not_taken_for_a_telephone(samples: np.typing.NDArray[np.float32]) -> None:
    assert not narrowband(samples)
