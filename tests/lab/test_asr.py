"""`voicemaster bench asr` on a small German corpus, the German real recordings and English Kokoro voices, through the
real recognizer."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.crowd import CROWDED_RISE_DB
from voicemaster.speech.hearing.whisper.decision import MARGINS
from voicemaster_lab.asr import measure, samples, tally
from voicemaster_lab.asr.report import report
from voicemaster_lab.corpora import corpus


@pytest.mark.model
@pytest.mark.audio
@pytest.mark.slow  # decodes every corpus: make test-slow
def test_bench_asr_reports_each_corpus_and_the_curve_its_margins_were_set_from(tmp_path: Path) -> None:
    corpus.generate(tmp_path, languages=("de",), size="small")
    # The voices' corpora have their own test below.
    figures = measure.run(tmp_path, ["whisper"], languages=("de",), limit=6, corpora=("espeak", "real", "options"))
    whisper = figures["engines"]["whisper"]
    assert whisper["espeak"]["utterances"] == 6
    real = whisper["real"]
    assert real["utterances"] == figures["real_clips"] > 0
    # A real person's letter is never taken for another (the words are measured, and their failures listed, by the
    # bench: the decision's margins are set from them).
    assert real["by_source"]["klettres de"]["letter"]["wrong"] == 0
    # The curve holds the margins in use, and there the same figures as the decision made.
    in_use = next(
        point for point in real["margins"] if (point["meaning"], point["free"]) == (MARGINS.meaning, MARGINS.free)
    )
    assert in_use["accuracy"] == real["accuracy"]["share"]
    # So does the curve of the undecided margin (German's real set is all grammar decisions).
    point = next(point for point in real["undecided_curve"] if point["undecided"] == MARGINS.undecided)
    assert point["understood"] == round(real["accuracy"]["share"] * real["accuracy"]["n"])
    assert (point["wrong"], point["false_accepts"]) == (real["wrong"], real["false_accepts"])
    # Made again as said after our line, the decisions are the bench's own; over our voice, none is taken that was not.
    after, over = real["over_our_voice"]["after"], real["over_our_voice"]["over"]
    assert (after["understood"], after["wrong"], after["false_accepts"]) == (
        point["understood"],
        real["wrong"],
        real["false_accepts"],
    )
    assert over["understood"] <= after["understood"] and over["wrong"] <= after["wrong"]
    # The crowd is judged as the game judges it, by the room heard before each clip: in a quiet room, never; made
    # again at the rise in use, the decisions are the bench's own.
    assert real["crowded"] == 0
    in_use_rise = next(p for p in real["crowd_curve"]["klettres"]["by_rise"] if p["rise_db"] == CROWDED_RISE_DB)
    assert in_use_rise == {"rise_db": CROWDED_RISE_DB, "crowded": 0, **after}
    assert set(real["by_source"]) == {"klettres de"}  # German is KLettres' alone
    cell = real["by_source"]["klettres de"]
    assert cell["all"]["utterances"] == real["utterances"] and {"letter", "word", "yes"} <= set(cell)
    # Option words among options of their kind: the table per language and source, and the curve with its choice.
    options = whisper["options"]
    assert sum(cell["n"] for cell in options["option_cells"]["de"].values()) == options["utterances"] > 0
    assert all(cell["wrong"] == 0 for cell in options["option_cells"]["de"].values())
    assert options["option_curve"]["de"] and "option_chosen" in options
    text = report(figures)
    assert "taken for another option" in text and "chosen:" in text
    assert f"undecided margin (in use {MARGINS.undecided:g})" in text
    assert (
        "real recordings (klettres-data, Asterisk's" in text
        and "real recordings per source and language" in text
        and f"margins (in use: meaning {MARGINS.meaning:g}, free {MARGINS.free:g})" in text
    )


def test_an_utterance_read_right_but_refused_is_counted_as_the_grammars_fault() -> None:
    def sample(text: str, intent: str) -> samples.Sample:
        context = ContextName.ANSWER
        options = ("London", "Madrid", "Lisbon", "Dublin")
        return samples.Sample(Path(f"{text}.wav"), "en", context, options, (), text,
                                  intent, "B" if intent == "answer" else None, "kokoro")  # fmt: skip

    outcomes = [
        (sample("I'll take answer B.", "answer"), Heard(Intent.UNKNOWN, None, "I'll take answer B.", 0.5)),  # exact
        (sample("I'd go with answer B", "answer"), Heard(Intent.UNKNOWN, None, "I go with answer B.", 0.5)),  # nearly
        (
            sample("Answer B", "answer"),
            Heard(Intent.UNKNOWN, None, "The weather is fine.", 0.5),
        ),  # misheard: the ear's fault
        (sample("Answer B", "answer"), Heard(Intent.ANSWER, "B", "Answer B", 0.5)),  # understood
        (
            sample("The weather is fine", "unknown"),
            Heard(Intent.UNKNOWN, None, "The weather is fine", 0.5),
        ),  # rightly refused
    ]
    refused = tally.refused_though_read(outcomes)
    assert (refused["exact"], refused["near"]) == (1, 1)
    assert [item["said"] for item in refused["utterances"]] == ["I'll take answer B.", "I'd go with answer B"]


@pytest.mark.model
@pytest.mark.audio
# Kokoro's model takes longer to load than the rest of the test: its corpus is made in `make test-slow`.
@pytest.mark.parametrize(("voices", "language"), [pytest.param("kokoro", "en", marks=pytest.mark.slow), ("pico", "de")])
def test_the_demo_players_voices_make_a_corpus_the_ear_is_measured_on(
    voices: str, language: str, tmp_path: Path
) -> None:
    # Kokoro has no German voice, Pico no Korean: only the language the engine speaks is in its corpus.
    other = "de" if voices == "kokoro" else "ko"
    voiced, missing = samples.voiced_samples(tmp_path, (language, other), 4, voices)
    assert missing is None and len(voiced) == 4
    assert {sample.language for sample in voiced} == {language} and len({sample.condition for sample in voiced}) == 4
    made = {sample.path: sample.path.stat().st_mtime_ns for sample in voiced}
    again, _ = samples.voiced_samples(tmp_path, (language,), 4, voices)
    assert {sample.path: sample.path.stat().st_mtime_ns for sample in again} == made  # rendered once, then reused
    recognizer = measure.ENGINE_SETUPS["whisper"].open(language)
    understood = [
        recognizer.recognize(Audio.read(s.path), Context(s.context, language, s.options, s.names)).intent == s.intent
        for s in voiced
    ]
    assert sum(understood) >= 3, understood


@pytest.mark.model
@pytest.mark.audio
def test_a_placement_taken_from_the_words_is_not_made_again_with_other_margins() -> None:
    # The margin curve makes each grammar decision again; a placement read by its words was never one, and made
    # again it came out as "repeat" or a yes (all nine of Pico's German placements, before).
    from voicemaster.config.voice import Voice
    from voicemaster.speech.voice.pico import Pico

    recognizer = measure.ENGINE_SETUPS["whisper"].open("de")
    said = Pico().speak("Zehn Bündel auf A", Voice("de-DE", engine="pico"))
    heard = recognizer.recognize(said, Context(ContextName.NUMBER, "de", ("Berlin", "Paris", "Rom", "Wien")))
    assert (heard.intent, heard.value) == ("placement", "A=10")
    assert recognizer.last is None  # type: ignore[attr-defined]
    answer = Pico().speak("Antwort B", Voice("de-DE", engine="pico"))
    heard = recognizer.recognize(answer, Context(ContextName.ANSWER, "de", ("Berlin", "Paris", "Rom", "Wien")))
    assert heard.value == "B" and recognizer.last is not None  # type: ignore[attr-defined]


def _weighed_answer(margin: float, *, narrowband: bool) -> measure.Weighed:
    """Paris said among French cities, the scores leaning to it by `margin`, the free reading naming nothing."""
    from voicemaster.speech.hearing.grammar import grammar
    from voicemaster.speech.hearing.intents import understand
    from voicemaster.speech.hearing.normal_form import Reading
    from voicemaster.speech.hearing.phrases import load
    from voicemaster.speech.hearing.whisper.decision import decide, margins_for, weigh

    context = Context(ContextName.ANSWER, "fr", ("Londres", "Paris", "Rome", "Vienne"))
    phrases = load("fr")
    choices = grammar(context, phrases)
    index = {phrase.written: number for number, phrase in enumerate(choices)}
    text = "Parisse."
    evidence = weigh(
        {index["Paris"]: -3.0, index["Rome"]: -3.0 - margin},
        choices,
        -2.0,
        0.0,
        reading=Reading.of(text, "fr"),
        hear=phrases,
        narrowband=narrowband,
    )
    heard = decide(evidence, understand(text, context, phrases), text, margins_for("fr", narrowband))
    sample = samples.Sample(
        Path("paris.wav"), "fr", ContextName.ANSWER, context.options, (), "Paris", "answer", "B", ""
    )
    return measure.Weighed(sample, context, evidence, heard)


def test_the_narrowband_curve_shows_the_telephone_margins_and_every_curve_decides_as_the_game() -> None:
    from voicemaster.speech.hearing.whisper.decision import NARROWBAND
    from voicemaster_lab.asr import narrowband

    own = NARROWBAND["fr"]
    between = (MARGINS.meaning + own.meaning) / 2
    phone, room = _weighed_answer(between, narrowband=True), _weighed_answer(between, narrowband=False)
    assert (phone.heard.intent, room.heard.value) == ("unknown", "B")
    curve = narrowband.curve([phone, room])
    assert set(curve) == {"fr"} and curve["fr"]["n"] == 1  # full-band audio is not on it
    points = {(point["meaning"], point["free"]): point for point in curve["fr"]["points"]}
    assert points[(own.meaning, own.free)]["understood"] == 0  # as the game decided
    assert points[(1.0, own.free)]["understood"] == 1  # the plain margin would have taken it
    # The margin curve, at the margins in use, decides the telephone audio at its own margins, as the game does.
    in_use = next(
        point
        for point in measure.margin_curve([(phone.sample, phone.heard), (room.sample, room.heard)], [phone, room])
        if (point["meaning"], point["free"]) == (MARGINS.meaning, MARGINS.free)
    )
    assert in_use["accuracy"] == 0.5
    assert "narrowband curve, fr (1 telephone-band decisions" in "\n".join(narrowband.report(curve))
