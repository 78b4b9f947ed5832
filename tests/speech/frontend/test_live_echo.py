"""The front end on the real sound path, in real time: the private PulseAudio daemon's speaker looped back into its
microphone (as a car's speakers reach its microphone), the loudspeaker handing what it plays to the microphone as
the echo canceller's reference. What the player would notice: the quizmaster's own question does not reach hearing."""

from __future__ import annotations

import math
import statistics
import time

import pytest

from tests.speech.conftest import Pulse
from voicemaster.speech.barge_in.stage import rms
from voicemaster.speech.devices.loudspeaker import Speaker
from voicemaster.speech.devices.microphone import Microphone
from voicemaster.speech.frame import FRAME_SECONDS, Frame
from voicemaster.speech.frontend import PlayedSound, open_front_end
from voicemaster.speech.hearing.pipeline import DEFAULT_SETTINGS
from voicemaster.speech.voice.synthesis import Espeak

pytestmark = pytest.mark.audio


def test_our_own_voice_through_the_loopback_is_cancelled_in_step(pulse: Pulse, espeak: Espeak) -> None:
    question = espeak.render(
        "Ist das Ihre endgültige Antwort? Sagen Sie ja oder nein, und denken Sie in Ruhe darüber nach.", "de"
    )
    played = PlayedSound()
    front_end = open_front_end(echo_cancel=True, noise_suppression=False)
    heard: list[Frame] = []
    with pulse.echo(), Microphone(front_end=front_end, played=played) as microphone:
        playback = Speaker(played=played).play(question)
        for frame in microphone.frames(playback):
            heard.append(frame)
            if playback.done():
                break
    judged = [frame.echo for frame in heard if frame.echo is not None and rms(frame.samples) > 0]
    settled = [judgement for judgement in judged if judgement.settled]
    assert len(settled) > 10  # the canceller had the reference in step long enough to learn the loop
    residuals = [judgement.residual for judgement in settled]
    assert statistics.median(residuals) < 0.1  # our voice left at a tenth of its loudness or less
    # The barge-in filter learnt the loop too: what it leaves of our voice is far below a player's share.
    shares = [judgement.over_echo.share for judgement in settled if judgement.over_echo is not None]
    assert shares and statistics.median(shares) < DEFAULT_SETTINGS.barge_in.player_share / 3


@pytest.mark.slow  # in real time beside nothing else: with demo games on the other core the canceller lags
def test_a_listening_opened_mid_line_hears_our_voice_cancelled_from_its_first_frame(
    pulse: Pulse, espeak: Espeak
) -> None:
    """A game listens for a barge-in some way into a line, after a while of not listening: the canceller must have
    heard what was played meanwhile, or the echo of it reaches hearing as a player's voice."""
    first = espeak.render("Willkommen bei der Show. Heute spielen wir um eine Million Euro, und zwar gleich.", "de")
    second = espeak.render("Die nächste Frage kommt jetzt: Welche Stadt ist die Hauptstadt von Frankreich?", "de")
    played = PlayedSound()
    front_end = open_front_end(echo_cancel=True, noise_suppression=False)
    opened: list[Frame] = []
    with pulse.echo(), Microphone(front_end=front_end, played=played) as microphone:
        playback = Speaker(played=played).play(first)
        for _frame in microphone.frames(playback):  # the first line heard through: the canceller has settled
            if playback.done():
                break
        playback = Speaker(played=played).play(second)
        try:
            time.sleep(1.5)  # nobody listens for a while, then a listening opens over the line
            for frame in microphone.frames(playback):
                assert frame.echo is not None  # judged by the canceller
                opened.append(frame)
                if len(opened) == 20:
                    break
        finally:
            playback.stop()  # as a game stops a line it talked over: no stream is left open for later tests
    # What hearing gets is not our line: no stretch of frames within 10 dB of the line as played lasts as long as the
    # shortest barge-in (`filter_seconds` of speech). Unfed, the canceller passed frames as loud as the line (1.03 of
    # it); fed, the loudest was about 0.002 of it on an idle machine, and with both cores busy the first two or three
    # frames of the listening came through at up to 0.8 of it, too short to be taken for a player. (Frames between
    # words, near silence in the microphone, can come out with a residual over 1 of nothing, so the residual is not
    # what is asserted.)
    loudness = [round(rms(frame.samples)) for frame in opened]
    loud = "".join("x" if level >= rms(second.samples) / 3 else "." for level in loudness)
    longest = max(len(stretch) for stretch in loud.split("."))
    assert loudness and longest < math.ceil(DEFAULT_SETTINGS.barge_in.filter_seconds / FRAME_SECONDS), loudness
