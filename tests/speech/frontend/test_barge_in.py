"""The barge-in filter that tells a player talking over our voice from our voice: real people's recordings, one
played from a laptop's speaker through a pyroomacoustics room (`corpora.echo`), another across the table 10 dB under
that echo at the microphone.

What a player notices: while the quizmaster talks, what the filter finds unexplained of its own voice is too little
to be taken for anyone, even when a line comes through after another delay than the last, and a player talking over
it is left nearly whole; until the filter has found the delay and learnt the room, it judges nothing (the canceller's
residual does, as before)."""

from __future__ import annotations

import numpy as np

from voicemaster.speech.audio import Audio
from voicemaster.speech.frame import FRAME_SAMPLES, OverEcho
from voicemaster.speech.frontend.barge_in_filter import BargeInFilter
from voicemaster.speech.frontend.chunked import Samples
from voicemaster.speech.hearing.pipeline import DEFAULT_SETTINGS
from voicemaster.speech.signal import RECOGNITION_RATE, resample, to_float
from voicemaster_lab.corpora import echo, real_speech
from voicemaster_lab.corpora.rooms import speech_power


def _voice(language: str, count: int) -> np.ndarray:
    """`count` real recordings of one language, one after another, as floats at 16 kHz."""
    clips = real_speech.load((language,))[::2][:count]
    # Without the recordings' silent padding: one line, as the quizmaster's voice plays it.
    return np.concatenate(
        [np.trim_zeros(to_float(resample(Audio.read(clip.path()), RECOGNITION_RATE))) for clip in clips]
    )


def _scene(player_at: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(microphone, reference, the player alone at the microphone): German people's recordings played by the laptop,
    a French person across the table from `player_at` samples on, 10 dB under the echo."""
    played = _voice("de", 24)
    played = played[: len(played) // FRAME_SAMPLES * FRAME_SAMPLES]
    heard_echo = echo.echo_path(played) * echo.coupling(played)
    player = np.zeros(len(played))
    if player_at is not None:
        spoken = _voice("fr", 24)[: len(played) - player_at]
        across = np.convolve(spoken, echo.room_response(1, 0))[: len(spoken)]
        player[player_at : player_at + len(across)] = across * np.sqrt(
            speech_power(heard_echo) / 10 ** (echo.ECHO_OVER_PLAYER_DB / 10) / speech_power(across)
        )
    scale = 0.5 * 32767 / max(float(np.max(np.abs(heard_echo))), 1e-9)  # the microphone's level set, not clipping
    return (heard_echo + player) * scale, played * 32767, player * scale


def _judged(heard: np.ndarray, played: np.ndarray, player: np.ndarray | None = None) -> list[OverEcho | None]:
    """Each frame of `heard` (plus `player`) through one filter, with `played` in step."""
    barge_in = BargeInFilter()
    extra = player if player is not None else np.zeros(len(heard))
    return [
        barge_in.judge(
            _as_int16(heard[at : at + FRAME_SAMPLES] + extra[at : at + FRAME_SAMPLES]).astype(np.float64),
            _as_int16(played[at : at + FRAME_SAMPLES]).astype(np.float64),
        )
        for at in range(0, len(heard) - FRAME_SAMPLES + 1, FRAME_SAMPLES)
    ]


def test_our_echo_alone_leaves_little_and_a_player_over_it_much() -> None:
    heard, played, _ = _scene(player_at=None)
    half = len(heard) // 2 // FRAME_SAMPLES * FRAME_SAMPLES
    _, _, someone = _scene(player_at=half)
    alone, over = _judged(heard, played), _judged(heard, played, someone)
    frames = range(half // FRAME_SAMPLES, len(alone))
    loud = [index for index in frames if _loudness(heard[index * FRAME_SAMPLES : (index + 1) * FRAME_SAMPLES]) > 300]
    speaking = [
        index
        for index in loud
        if _loudness(someone[index * FRAME_SAMPLES : (index + 1) * FRAME_SAMPLES])
        > 0.1 * _loudness(heard[index * FRAME_SAMPLES : (index + 1) * FRAME_SAMPLES])
    ]
    echo_shares = [judged.share for index in loud if (judged := alone[index]) is not None]
    player_shares = [judged.share for index in speaking if (judged := over[index]) is not None]
    assert len(echo_shares) > 0.9 * len(loud) and len(player_shares) > 0.9 * len(speaking)  # it judged them
    passing = DEFAULT_SETTINGS.barge_in.player_share
    assert np.mean(np.array(echo_shares) >= passing) < 0.05  # our voice: a frame in twenty at most
    assert np.mean(np.array(player_shares) >= passing) > 0.3  # the player: what the endpointer adds up


def test_nothing_is_judged_before_the_delay_is_found_and_the_room_learnt() -> None:
    heard, played, _ = _scene(player_at=None)
    judged = _judged(heard, played)
    second = RECOGNITION_RATE // FRAME_SAMPLES
    assert all(frame is None for frame in judged[:second])
    assert np.mean([frame is not None for frame in judged[len(judged) // 2 :]]) > 0.9


def test_a_line_that_comes_after_another_delay_is_still_not_taken_for_a_player() -> None:
    """Each line reaches the microphone through the sound server after its own delay."""
    heard, played, _ = _scene(player_at=None)
    gap = np.zeros(round(0.3 * RECOGNITION_RATE) // FRAME_SAMPLES * FRAME_SAMPLES)
    later = round(0.06 * RECOGNITION_RATE)  # the next line's echo 60 ms later than the first's
    microphone = np.concatenate([heard, gap, np.zeros(later), heard[:-later]])
    reference = np.concatenate([played, gap, played])
    judged = _judged(microphone, reference)
    second_line = (len(heard) + len(gap)) // FRAME_SAMPLES
    shares = [frame.share for frame in judged[second_line:] if frame is not None]
    assert len(shares) > 0.5 * (len(judged) - second_line)
    assert np.mean(np.array(shares) >= DEFAULT_SETTINGS.barge_in.player_share) < 0.05


def _loudness(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(samples**2)))


def _as_int16(values: np.ndarray) -> Samples:
    return np.clip(np.round(values), -32768, 32767).astype(np.int16)
