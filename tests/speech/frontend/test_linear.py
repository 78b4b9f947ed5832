"""The linear echo filter that tells a player talking over our voice from our voice: real people's recordings, one
played from a laptop's speaker through a pyroomacoustics room (`corpora.echo`), another across the table 10 dB under
that echo at the microphone.

What a player notices: while the quizmaster talks, what the filter leaves unexplained of its own voice is too little
to be taken for anyone, and a player talking over it is left nearly whole; until the filter has learnt the room, it
judges nothing (the canceller's residual does, as before)."""

from __future__ import annotations

import numpy as np

from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import FRAME_SAMPLES
from voicemaster.speech.frontend.frames import CHUNK_SAMPLES, EARN_SECONDS, Chunked, Samples
from voicemaster.speech.frontend.linear import LinearEcho, over_echo
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


def test_the_filter_learns_our_echo_and_leaves_a_player_over_it_nearly_whole() -> None:
    heard, played, _ = _scene(player_at=None)
    learnt = len(heard) // 2 // CHUNK_SAMPLES * CHUNK_SAMPLES
    linear = LinearEcho()
    predicted = np.concatenate(
        [
            linear.predict(_as_int16(heard[at : at + CHUNK_SAMPLES]), _as_int16(played[at : at + CHUNK_SAMPLES]))
            for at in range(0, len(heard) // CHUNK_SAMPLES * CHUNK_SAMPLES, CHUNK_SAMPLES)
        ]
    )
    after = slice(learnt, len(predicted))
    left = heard[after] - predicted[after]
    assert 10 * np.log10(np.sum(heard[after] ** 2) / np.sum(left**2)) > 10  # our voice: more than 10 dB out
    shares_echo, shares_player = [], []
    _, _, someone = _scene(player_at=learnt)
    for at in range(learnt, len(predicted) - FRAME_SAMPLES, FRAME_SAMPLES):
        frame = slice(at, at + FRAME_SAMPLES)
        if _loudness(heard[frame]) < 300:  # the quizmaster pausing: nothing to judge
            continue
        shares_echo.append(over_echo(heard[frame], predicted[frame]).share)
        if _loudness(someone[frame]) > 0.1 * _loudness(heard[frame]):  # the player speaking, not between words
            shares_player.append(over_echo(heard[frame] + someone[frame], predicted[frame]).share)
    passing = DEFAULT_SETTINGS.player_share
    assert np.median(shares_echo) < 0.05
    assert np.mean(np.array(shares_echo) >= passing) < 0.05  # our voice: a frame in twenty at most
    assert np.mean(np.array(shares_player) >= passing) > 0.15  # the player: what the endpointer adds up


def test_a_frame_is_judged_by_the_filter_only_once_it_cancels_our_voice() -> None:
    heard, played, _ = _scene(player_at=None)
    front_end = Chunked("as heard", lambda microphone, _reference: microphone, cancels_echo=True, judge=LinearEcho())
    judged = [
        front_end.process(
            _as_int16(heard[at : at + FRAME_SAMPLES]).tobytes(), _as_int16(played[at : at + FRAME_SAMPLES]).tobytes()
        ).over_echo
        is not None
        for at in range(0, len(heard), FRAME_SAMPLES)
    ]
    second = RECOGNITION_RATE // FRAME_SAMPLES
    assert not any(judged[: 2 * second])  # learning the room (and the canceller settling): the residual judges
    assert np.mean(judged[len(judged) // 2 :]) > 0.9


def _loudness(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(samples**2)))


def _as_int16(values: np.ndarray) -> Samples:
    return np.clip(np.round(values), -32768, 32767).astype(np.int16)


def test_a_line_that_comes_after_another_delay_earns_the_filters_trust_anew() -> None:
    """Each line reaches the microphone through the sound server after its own delay: the filter judges a line only
    once it has cancelled our voice in it, never on what it learnt of the line before."""
    heard, played, _ = _scene(player_at=None)
    gap = np.zeros(round(0.3 * RECOGNITION_RATE) // FRAME_SAMPLES * FRAME_SAMPLES)
    later = round(0.05 * RECOGNITION_RATE)  # the next line's echo 50 ms later than the first's
    microphone = np.concatenate([heard, gap, np.zeros(later), heard[:-later]])
    reference = np.concatenate([played, gap, played])
    front_end = Chunked("as heard", lambda samples, _reference: samples, cancels_echo=True, judge=LinearEcho())
    frames = [
        front_end.process(
            _as_int16(microphone[at : at + FRAME_SAMPLES]).tobytes(),
            _as_int16(reference[at : at + FRAME_SAMPLES]).tobytes(),
        )
        for at in range(0, len(microphone), FRAME_SAMPLES)
    ]
    second_line = (len(heard) + len(gap)) // FRAME_SAMPLES
    earning = round(EARN_SECONDS * RECOGNITION_RATE / FRAME_SAMPLES)
    assert any(frame.over_echo is not None for frame in frames[:second_line])  # the first line was judged
    assert all(frame.over_echo is None for frame in frames[second_line : second_line + earning])
    shares = [frame.over_echo.share for frame in frames[second_line:] if frame.over_echo is not None]
    assert np.mean(np.array(shares) >= DEFAULT_SETTINGS.player_share) < 0.05 if shares else True
