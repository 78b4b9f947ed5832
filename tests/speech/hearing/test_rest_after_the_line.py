"""An answer begun over the quizmaster's line, on the demo's stage as `voicemaster demo` plays it: the question and
its options read in the quizmaster's voice, a player in the voice the demo casts for them (Pico's) beginning as the
last line ("Anna, deine Antwort?") begins, heard through the game's echo canceller and pipeline. The line stops at the
player's first syllable; what they said after it stopped is read as said after a line, and stands where the whole
utterance's scores pick the same answer (docs/decisions/030-the-rest-after-our-line.md). A negation heard before the
line stopped keeps the utterance asked again. The same with people's recordings over a laptop's real echo (`bench
frontend`'s scene): a word that ended before the line stopped is not read as said after it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.cpu import AVX512
from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.play.demo import player_voices
from voicemaster.play.simulated_ear import STAGE_SETTINGS
from voicemaster.play.stage import Stage
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.frontend import FrontEndUnavailable, open_front_end
from voicemaster.speech.hearing.pipeline import ListeningPipeline
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import RECOGNITION_RATE
from voicemaster.speech.voice.speakers import Engines, Speakers
from voicemaster_lab.asr.samples import _spoken, real_samples
from voicemaster_lab.corpora import echo
from voicemaster_lab.harness.laptop import Laptop

OPTIONS = ("Die Schnecke", "Der Frosch", "Der Igel", "Die Maus")
QUESTION = "Welches Tier trägt sein Haus auf dem Rücken? A: Die Schnecke. B: Der Frosch. C: Der Igel. D: Die Maus."
PROMPT = "Anna, deine Antwort?"


def _said_over_the_prompt(whisper: Callable[[str], WhisperRecognizer], player: int, text: str) -> Heard | None:
    try:
        front_end = open_front_end(echo_cancel=True, noise_suppression=False)
    except FrontEndUnavailable as missing:
        pytest.skip(str(missing))
    host = Speakers({"de": Voice()}, Engines())
    line = host.render(f"{QUESTION} {PROMPT}", "de")
    voice = Speakers({"de": player_voices("de", Voice())[player]}, Engines()).render(text, "de")
    stage = Stage(FileSink(rate=RECOGNITION_RATE), front_end=front_end)
    playing = stage.play(line)
    stage.speak(voice, line.seconds - host.render(PROMPT, "de").seconds, 0.0)
    pipeline = ListeningPipeline(stage, whisper("de"), vad=SileroVad(), settings=STAGE_SETTINGS, clock=stage.now)
    hearing = pipeline.listen(Context(ContextName.ANSWER, "de", OPTIONS), 8.0, playing)
    assert hearing.barged_in_at is not None, "the player did not stop the line"
    return hearing.heard


@pytest.mark.parametrize(
    ("player", "text", "letter"),
    # Read whole "Lematischnecke" and "schwarzu zie." (the demo's own readings); after the line "Schmecke.", "See.".
    [
        (0, "ich nehme Die Schnecke", "A"),
        pytest.param(
            0,
            "Antwort C",
            "C",
            marks=pytest.mark.xfail(AVX512, strict=True, reason="with AVX-512 read 'schlau zu zieh.', asked again"),
        ),
    ],
)
def test_an_answer_said_on_after_the_line_stopped_is_understood(
    whisper: Callable[[str], WhisperRecognizer], player: int, text: str, letter: str
) -> None:
    heard = _said_over_the_prompt(whisper, player, text)
    assert heard is not None and (heard.intent, heard.value) == (Intent.ANSWER, letter), heard


@pytest.mark.parametrize(
    ("player", "text"),
    # Read whole "Das nicht die Schnecke." and "Du weiss es nicht.": the scores pick Die Schnecke.
    [(0, "bloß nicht die Schnecke"), (1, "ich weiß es nicht")],
)
def test_an_answer_refused_before_the_line_stopped_is_not_taken(
    whisper: Callable[[str], WhisperRecognizer], player: int, text: str
) -> None:
    heard = _said_over_the_prompt(whisper, player, text)
    assert heard is None or heard.intent is Intent.UNKNOWN, heard


class _Told:
    """Whisper as the pipeline's reader, keeping where each reading was told our line stopped."""

    def __init__(self, recognizer: WhisperRecognizer) -> None:
        self.recognizer, self.stops = recognizer, list[float | None]()

    def prepare(self, context: Context) -> None:
        self.recognizer.prepare(context)

    def recognize(
        self,
        audio: Audio,
        context: Context,
        *,
        over_our_voice: bool = False,
        crowded: bool = False,
        line_stopped_at: float | None = None,
    ) -> Heard:
        self.stops.append(line_stopped_at)
        return self.recognizer.recognize(
            audio, context, over_our_voice=over_our_voice, crowded=crowded, line_stopped_at=line_stopped_at
        )


def _person_over_a_line(whisper: Callable[[str], WhisperRecognizer], name: str) -> tuple[Heard | None, _Told]:
    """A person's German recording said over one of our lines from a laptop's speaker (`bench frontend`'s scene),
    heard through the game's canceller and pipeline; the line stops where they barge in."""
    real, missing = real_samples(("de",))
    found = [sample for sample in real if sample.path.name == name]
    if not found:
        pytest.skip(missing or f"no recording {name}")
    (sample,) = found
    try:
        front_end = open_front_end(echo_cancel=True, noise_suppression=False)
    except FrontEndUnavailable as absent:
        pytest.skip(str(absent))
    laptop = Laptop(echo.line_over(_spoken(sample), "de"), Audio.read(sample.path), echo.LEAD_SECONDS, front_end)
    told = _Told(whisper("de"))
    context = Context(sample.context, "de", sample.options, sample.names)
    hearing = ListeningPipeline(laptop, told, vad=SileroVad(), clock=lambda: 0.0).listen(context, 1.0, laptop.playing)
    assert hearing.barged_in_at is not None, "the person did not stop the line"
    return hearing.heard, told


def test_a_person_who_answers_on_after_the_line_stopped_is_understood(
    whisper: Callable[[str], WhisperRecognizer],
) -> None:
    # "Lisa" (answer C) begun over the line: read whole "Isa", asked again; after the line, "Pizza": C by the scores.
    heard, told = _person_over_a_line(whisper, "answer-lisa.wav")
    assert heard is not None and (heard.intent, heard.value) == (Intent.ANSWER, "C"), heard
    assert any(stop is not None for stop in told.stops)


def test_a_word_ended_before_the_line_stopped_is_not_read_as_said_after_it(
    whisper: Callable[[str], WhisperRecognizer],
) -> None:
    # A person's "H" ends as the line stops: what follows is the room and the canceller's rest of our voice.
    heard, told = _person_over_a_line(whisper, "answer-h.wav")
    assert told.stops and all(stop is None for stop in told.stops), told.stops
    assert heard is None or heard.intent is Intent.UNKNOWN, heard
