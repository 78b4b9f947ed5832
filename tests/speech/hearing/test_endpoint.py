"""End of speech: utterances are found whole in real synthesized speech, noise and our own echo are not speech, and a
player speaking up over the quizmaster interrupts it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.speech.conftest import matches
from voicemaster.speech.audio import Audio
from voicemaster.speech.barge_in.settings import BargeInSettings
from voicemaster.speech.frame import FRAME_BYTES, FRAME_SECONDS, EchoJudgement, Frame, OverEcho
from voicemaster.speech.hearing.endpoint_settings import EndpointSettings
from voicemaster.speech.hearing.endpointer import BargedIn, Ended, Endpointer, Event
from voicemaster.speech.hearing.segmenter import Endpoint, Segmenter
from voicemaster.speech.hearing.voice_activity import SileroVad, VoiceActivityUnavailable
from voicemaster.speech.signal import from_float, resample, to_float
from voicemaster.speech.voice.synthesis import Espeak

RATE = 16_000
SETTINGS = EndpointSettings()


# --- the segmenter, on its own: time is passed in ----------------------------------------------------------------


def feed(segmenter: Segmenter, pattern: list[tuple[float, bool]], step: float, speaking: bool = False) -> Endpoint:
    """Feed (seconds, is_speech) spans in chunks of `step` seconds; stops at the first finished state."""
    for seconds, speech in pattern:
        for _ in range(round(seconds / step)):
            if segmenter.process(step, speech, program_speaking=speaking).finished:
                return segmenter.state
    return segmenter.state


@pytest.mark.parametrize("step", [0.01, FRAME_SECONDS, 0.1])
def test_an_utterance_ends_after_a_pause_of_the_set_length(step: float) -> None:
    segmenter = Segmenter(SETTINGS, timeout=5)
    assert feed(segmenter, [(0.5, False), (1.0, True), (3.0, False)], step) is Endpoint.ENDED
    assert segmenter.start == pytest.approx(0.5, abs=step)
    assert segmenter.end == pytest.approx(1.5, abs=step)
    assert segmenter.now == pytest.approx(1.5 + SETTINGS.silence_seconds, abs=step)


def test_a_breath_between_words_does_not_end_the_utterance() -> None:
    segmenter = Segmenter(SETTINGS, timeout=5)
    state = feed(segmenter, [(0.4, True), (0.5, False), (0.4, True), (2.0, False)], 0.01)
    assert state is Endpoint.ENDED
    assert (segmenter.start, segmenter.end) == pytest.approx((0.0, 1.3))


def test_a_click_does_not_begin_an_utterance_and_silence_times_out() -> None:
    segmenter = Segmenter(SETTINGS, timeout=2)
    assert feed(segmenter, [(0.5, False), (0.1, True), (5.0, False)], 0.01) is Endpoint.SILENCE
    assert segmenter.start is None
    assert segmenter.now == pytest.approx(2.0)


def test_the_timeout_runs_only_once_the_program_has_finished_speaking() -> None:
    segmenter = Segmenter(SETTINGS, timeout=1)
    assert feed(segmenter, [(3.0, False)], 0.01, speaking=True) is Endpoint.WAITING
    assert feed(segmenter, [(3.0, False)], 0.01) is Endpoint.SILENCE
    assert segmenter.now == pytest.approx(4.0)


def test_speech_being_counted_is_not_cut_off_by_the_timeout() -> None:
    segmenter = Segmenter(SETTINGS, timeout=1)
    assert feed(segmenter, [(0.95, False), (0.5, True), (1.0, False)], 0.01) is Endpoint.ENDED


def test_a_long_utterance_is_cut_at_the_maximum_and_kept() -> None:
    segmenter = Segmenter(SETTINGS, timeout=5)
    assert feed(segmenter, [(0.2, False), (20.0, True)], 0.01) is Endpoint.CUT
    assert (segmenter.start, segmenter.end) == pytest.approx((0.2, 0.2 + SETTINGS.max_seconds))


@pytest.mark.parametrize("changes", [{"silence_seconds": 0}, {"threshold": 1.0}, {"pre_roll_seconds": -1}])
def test_nonsense_settings_are_refused(changes: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="must"):
        EndpointSettings(**changes)


@pytest.mark.parametrize(
    "changes", [{"level_margin": 0.5}, {"player_share": 1.5}, {"residual_seconds": -1}, {"floor_margin_db": -3}]
)
def test_nonsense_barge_in_settings_are_refused(changes: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="must"):
        BargeInSettings(**changes)


# --- the endpointer on real speech (Silero) -------------------------------------------------------------------------

PHRASES = {
    "de": ["B", "Ja", "Antwort B", "Ich nehme Antwort C, Paris.", "Fünfzig fünfzig", "Ich will aussteigen."],
    "en": ["B", "Yes", "Final answer", "Phone a friend, please."],
    "fr": ["Oui", "Réponse D", "Je prends le cinquante cinquante."],
}


def speak(espeak: Espeak, text: str, language: str = "de", gain: float = 1.0) -> Audio:
    audio = resample(espeak.render(text, language), RATE)
    return audio if gain == 1.0 else from_float(to_float(audio) * gain, RATE)


def silence(seconds: float) -> Audio:
    return Audio(bytes(2 * round(seconds * RATE)), RATE)


def joined(*parts: Audio) -> Audio:
    return Audio(b"".join(part.samples for part in parts), RATE)


def mixed(base: Audio, other: Audio, at: float) -> Audio:
    """`other` added into `base` from `at` seconds on (base is lengthened if needed)."""
    first = to_float(base).astype(np.float64)
    second = to_float(other).astype(np.float64)
    start = round(at * RATE)
    total = np.zeros(max(len(first), start + len(second)))
    total[: len(first)] += first
    total[start : start + len(second)] += second
    return from_float(total, RATE)


def speech_span(audio: Audio) -> tuple[float, float]:
    """Where the sound in a clip is (first and last sample above a whisper), in seconds."""
    loud = np.nonzero(np.abs(np.frombuffer(audio.samples, dtype="<i2")) > 300)[0]
    return loud[0] / RATE, (loud[-1] + 1) / RATE


def detect(
    detector: Endpointer,
    stream: Audio,
    program_at: Callable[[float], float | None] = lambda _: None,
    events: list[Event] | None = None,
) -> Endpointer:
    """Push a recording frame by frame, as the microphone would; `program_at` maps time to the program's position;
    what the frames brought goes into `events`."""
    for offset in range(0, len(stream.samples) - FRAME_BYTES + 1, FRAME_BYTES):
        event = detector.push(Frame(stream.samples[offset : offset + FRAME_BYTES]), program_at(offset / 2 / RATE))
        if event is not None and events is not None:
            events.append(event)
        if detector.state.finished:
            break
    return detector


@pytest.mark.parametrize(("language", "text"), [(lang, text) for lang, texts in PHRASES.items() for text in texts])
def test_each_answer_is_found_whole_with_a_little_before_and_after(
    espeak: Espeak, vad: SileroVad, language: str, text: str
) -> None:
    clip = speak(espeak, text, language)
    begin, end = speech_span(clip)
    detector = detect(Endpointer(vad, SETTINGS, timeout=3), joined(silence(1.0), clip, silence(2.0)))
    heard = detector.utterance()
    assert detector.state is Endpoint.ENDED and heard is not None
    segmenter = detector.segmenter
    assert segmenter.start is not None and segmenter.end is not None
    # Onset within a frame or two of where the sound starts; the end no earlier than the sound, and decided after
    # the pause of the set length (a little more while the model's confidence fades).
    assert abs(segmenter.start - (1.0 + begin)) < 0.1
    assert -0.05 < segmenter.end - (1.0 + end) < 0.2
    assert SETTINGS.silence_seconds <= segmenter.now - (1.0 + end) < SETTINGS.silence_seconds + 0.25
    assert matches(heard, clip) > 0.999
    assert heard.seconds < (end - begin) + SETTINGS.pre_roll_seconds + SETTINGS.post_roll_seconds + 0.3


def test_a_pause_of_a_breath_keeps_one_utterance_a_longer_one_ends_it(espeak: Espeak, vad: SileroVad) -> None:
    first, second = speak(espeak, "Antwort B"), speak(espeak, "Berlin")
    one = detect(Endpointer(vad, SETTINGS, 3), joined(silence(0.5), first, silence(0.2), second, silence(2)))
    two = detect(Endpointer(vad, SETTINGS, 3), joined(silence(0.5), first, silence(1.5), second, silence(2)))
    whole, part = one.utterance(), two.utterance()
    assert whole is not None and part is not None
    assert matches(whole, second) > 0.999
    assert matches(part, first) > 0.999
    assert part.seconds < first.seconds + 0.3


def test_an_utterance_that_goes_on_is_cut_at_the_maximum(espeak: Espeak, vad: SileroVad) -> None:
    settings = EndpointSettings(max_seconds=2.0)
    long = speak(espeak, "Ich glaube, es ist Berlin, aber ich bin mir nicht sicher, vielleicht doch Wien oder Rom.")
    detector = detect(Endpointer(vad, settings, 3), joined(silence(0.5), long, silence(1)))
    heard = detector.utterance()
    assert detector.state is Endpoint.CUT and heard is not None
    assert 2.0 <= heard.seconds <= 2.0 + settings.pre_roll_seconds + 0.05


def test_road_noise_and_hum_are_not_speech(vad: SileroVad) -> None:
    rng = np.random.default_rng(7)
    seconds = np.arange(3 * RATE) / RATE
    rumble = np.convolve(rng.normal(0, 0.3, 3 * RATE), np.ones(40) / 40, "same")  # low-passed: tyres on asphalt
    hum = 0.1 * np.sin(2 * np.pi * 100 * seconds)
    for noise in (rng.normal(0, 0.05, 3 * RATE), rumble + hum):
        detector = detect(Endpointer(vad, SETTINGS, timeout=2), from_float(noise, RATE))
        assert detector.state is Endpoint.SILENCE and detector.utterance() is None


QUESTIONS = {
    "de": "Welche Stadt ist die Hauptstadt von Deutschland? Berlin, Paris, Rom oder Wien?",
    "en": "Is that your final answer? You have just won sixteen thousand pounds.",
    "fr": "Quelle est la capitale de l'Australie ? Sydney, Melbourne, Canberra ou Perth ?",
}


@pytest.mark.parametrize("delay", [0.01, 0.08, 0.3])
@pytest.mark.parametrize("language", QUESTIONS)
def test_the_program_does_not_hear_its_own_voice(espeak: Espeak, vad: SileroVad, language: str, delay: float) -> None:
    question = speak(espeak, QUESTIONS[language], language)
    # The microphone hears the question as loud as it is played, `delay` late (output and input latency).
    heard = joined(silence(delay), question, silence(3))

    def program_at(now: float) -> float | None:
        return now if now < question.seconds else None

    events: list[Event] = []
    gated = detect(Endpointer(vad, SETTINGS, timeout=1, program=question), heard, program_at, events)
    assert gated.state is Endpoint.SILENCE and events[-1] == Ended(None, Endpoint.SILENCE)
    assert not any(isinstance(event, BargedIn) for event in events)
    # The timeout starts when the program and its echo have ended.
    assert gated.segmenter.now == pytest.approx(question.seconds + SETTINGS.barge_in.echo_tail_seconds + 1, abs=0.05)
    # Without the gate the same microphone signal would be taken for a player.
    ungated = detect(Endpointer(vad, SETTINGS, timeout=1), heard)
    assert ungated.utterance() is not None


def test_a_player_speaking_up_over_the_program_interrupts_it(espeak: Espeak, vad: SileroVad) -> None:
    # The loudspeakers are at the back, the microphone at the driver's mouth: the quizmaster reaches it at 30 % of
    # the level the driver's voice does.
    question = speak(espeak, QUESTIONS["de"], gain=0.3)
    answer = speak(espeak, "Stopp! Antwort B.")
    echo = to_float(joined(silence(0.08), question, silence(3)))
    player = to_float(mixed(silence(len(echo) / RATE), answer, at=1.5))
    detector = Endpointer(vad, SETTINGS, timeout=1, program=question)
    stopped_at = None
    for start in range(0, len(echo) - FRAME_BYTES // 2 + 1, FRAME_BYTES // 2):
        now = start / RATE
        playing = stopped_at is None and now < question.seconds
        # Once stopped, the echo dies away after the same 80 ms it took to arrive.
        sounding = stopped_at is None or now < stopped_at + 0.08
        frame = player[start : start + FRAME_BYTES // 2] + (echo[start : start + FRAME_BYTES // 2] if sounding else 0)
        event = detector.push(Frame(from_float(frame, RATE).samples), now if playing else None)
        if isinstance(event, BargedIn) and stopped_at is None:
            stopped_at = now
        if detector.state.finished:
            break
    begin, end = speech_span(answer)
    assert stopped_at is not None and 1.5 + begin < stopped_at < 1.5 + begin + 0.5
    utterance = detector.utterance()
    assert utterance is not None and detector.state is Endpoint.ENDED
    assert matches(utterance, answer) > 0.95  # the start of the echo is mixed in
    assert utterance.seconds < end - begin + 1.0


def _first_barge_in(detector: Endpointer, heard: Audio, left: Callable[[float], float], playing: float) -> float | None:
    """Pushes `heard` as the echo canceller hands it on (each frame with the share of the microphone it left), the
    program playing for `playing` seconds; where the quizmaster would stop itself, or None."""
    samples = heard.samples
    for start in range(0, len(samples) - FRAME_BYTES + 1, FRAME_BYTES):
        now = start / 2 / RATE
        frame = Frame(samples[start : start + FRAME_BYTES], EchoJudgement(left(now)))
        if isinstance(detector.push(frame, now if now < playing else None), BargedIn):
            return now
    return None


def test_our_voice_the_canceller_lets_through_for_a_moment_does_not_stop_the_quizmaster(
    espeak: Espeak, vad: SileroVad
) -> None:
    """Live, AEC3 let bursts of a few frames of our voice through (a quarter of a second, left at 0.3-1 of the
    microphone): speech to the voice detector, and as loud as a player. A player goes on; a burst does not."""
    question = speak(espeak, QUESTIONS["de"])
    leaked = joined(silence(1.0), speak(espeak, "Stopp! Antwort B, Berlin."), silence(2.0))
    begin, end = speech_span(leaked)
    burst = begin + 0.25

    def left(now: float) -> float:
        return 0.8 if begin <= now < burst else 0.02

    heard = Audio(
        leaked.samples[: 2 * round(burst * RATE)] + bytes(len(leaked.samples) - 2 * round(burst * RATE)), RATE
    )
    assert _first_barge_in(Endpointer(vad, SETTINGS, 1, program=question), heard, left, question.seconds) is None
    # The same speech going on, as a player's: the quizmaster stops for it.
    assert end - begin > SETTINGS.barge_in.residual_seconds + 0.1
    player = Endpointer(vad, SETTINGS, 1, program=question)
    stopped = _first_barge_in(player, leaked, lambda _now: 0.8, question.seconds)
    assert stopped is not None and begin + SETTINGS.barge_in.residual_seconds <= stopped < end


def test_over_our_voice_the_player_is_listened_for_in_what_the_barge_in_filter_keeps(
    espeak: Espeak, vad: SileroVad
) -> None:
    """The canceller's suppressor took the player out with our voice (its output is near silence), but the barge-in
    filter kept them whole: the quizmaster stops for them. What the filter keeps of our own voice is a small share of
    the microphone, and never stops it."""
    question = speak(espeak, QUESTIONS["de"])
    player = joined(silence(1.0), speak(espeak, "Stopp! Antwort B, Berlin."), silence(2.0))
    begin, _ = speech_span(player)

    def stopped_at(share: float) -> float | None:
        detector = Endpointer(vad, SETTINGS, 1, program=question)
        samples = player.samples
        for start in range(0, len(samples) - FRAME_BYTES + 1, FRAME_BYTES):
            now = start / 2 / RATE
            unexplained = OverEcho(samples[start : start + FRAME_BYTES], share)
            frame = Frame(bytes(FRAME_BYTES), EchoJudgement(0.02, over_echo=unexplained))
            if isinstance(detector.push(frame, now if now < question.seconds else None), BargedIn):
                return now
        return None

    stopped = stopped_at(share=0.6)
    assert stopped is not None and begin + SETTINGS.barge_in.filter_seconds <= stopped < begin + 0.5
    assert stopped_at(share=0.1) is None


def test_a_missing_voice_activity_model_says_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(VoiceActivityUnavailable, match=r"could not be loaded"):
        SileroVad(tmp_path / "missing.onnx")
