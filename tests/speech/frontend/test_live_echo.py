"""The front end on the real sound path, in real time: the private PulseAudio daemon's speaker looped back into its
microphone (as a car's speakers reach its microphone), the loudspeaker handing what it plays to the microphone as
the echo canceller's reference. What the player would notice: the quizmaster's own question does not reach hearing."""

from __future__ import annotations

import statistics

import pytest

from tests.speech.conftest import Pulse
from voicemaster.speech.devices.loudspeaker import Speaker
from voicemaster.speech.devices.microphone import Microphone
from voicemaster.speech.frontend import CleanedFrame, PlayedSound, open_front_end
from voicemaster.speech.hearing.endpoint import rms
from voicemaster.speech.voice.synthesis import Espeak

pytestmark = pytest.mark.audio


def test_our_own_voice_through_the_loopback_is_cancelled_in_step(pulse: Pulse, espeak: Espeak) -> None:
    question = espeak.render(
        "Ist das Ihre endgültige Antwort? Sagen Sie ja oder nein, und denken Sie in Ruhe darüber nach.", "de"
    )
    played = PlayedSound()
    front_end = open_front_end(echo_cancel=True, noise_suppression=False)
    heard: list[CleanedFrame] = []
    with pulse.echo(), Microphone(front_end=front_end, played=played) as microphone:
        playback = Speaker(played=played).play(question)
        for frame in microphone.frames(playback):
            assert isinstance(frame, CleanedFrame)
            heard.append(frame)
            if playback.done():
                break
    settled = [frame for frame in heard if frame.settled and frame.residual is not None and rms(frame) > 0]
    assert len(settled) > 10  # the canceller had the reference in step long enough to learn the loop
    residuals = [frame.residual for frame in settled if frame.residual is not None]
    assert statistics.median(residuals) < 0.1  # our voice left at a tenth of its loudness or less
