"""The recognition benchmark's corpus: every intent in every language, noise at the stated SNR, repeatable."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from voicemaster.dialogue.meaning import ContextName
from voicemaster.speech.audio import Audio
from voicemaster.speech.signal import RECOGNITION_RATE, to_float
from voicemaster_lab.corpora import corpus, utterance_set
from voicemaster_lab.corpora.corpus import Clip, Noise

PAD = round(corpus.PADDING_SECONDS * RECOGNITION_RATE)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpus.generate(tmp_path_factory.mktemp("corpus"), size="small")


def _samples(manifest: Path, clip: Clip) -> np.ndarray:
    return to_float(Audio.read(clip.path(manifest))).astype(np.float64)


def _renderings(manifest: Path) -> dict[tuple[str, int], dict[float | None, np.ndarray]]:
    found: dict[tuple[str, int], dict[float | None, np.ndarray]] = {}
    for clip in corpus.load(manifest):
        found.setdefault((clip.utterance, clip.rendering), {})[clip.snr_db] = _samples(manifest, clip)
    return found


@pytest.mark.parametrize("language", corpus.LANGUAGES)
def test_the_utterances_cover_every_intent_joker_and_context(language: str) -> None:
    spoken = utterance_set.utterances(language)
    intents = Counter(u.intent for u in spoken)
    assert set(intents) == set(utterance_set.INTENTS)
    assert all(count >= 3 for count in intents.values()), intents
    assert {u.value for u in spoken if u.intent == "joker"} == set(utterance_set.JOKERS)
    assert {u.value for u in spoken if u.intent == "answer"} == set("ABCD")
    assert {u.context for u in spoken} == set(ContextName) - {ContextName.START}  # the start's: `bench serve`
    unknown = [u for u in spoken if u.intent == "unknown"]
    assert len(unknown) >= 20 and sum(u.hard for u in unknown) >= 5
    assert 80 <= len(spoken) <= 130


def test_placement_values_follow_the_normal_form() -> None:
    assert utterance_set.placement_problem("A=10,C=rest") is None
    assert utterance_set.placement_problem("A=500000€,B=500000€") is None
    assert utterance_set.placement_problem("B=all") is None
    assert utterance_set.placement_problem("C=rest,A=10") is not None  # letter order
    assert utterance_set.placement_problem("A=all,B=10") is not None
    assert utterance_set.placement_problem("A=rest,B=rest") is not None
    assert utterance_set.placement_problem("A=0") is not None
    assert utterance_set.placement_problem("D=10", options=3) is not None


def test_the_full_plan_is_balanced_and_gives_second_renderings_another_voice() -> None:
    for language in corpus.LANGUAGES:
        renderings = corpus.plan(language, "full", 0)
        assert len(renderings) == corpus.FULL_RENDERINGS
        assert len({(r.voice, r.speed, r.pitch) for r in renderings}) == 60
        assert {r.utterance.id for r in renderings} == {u.id for u in utterance_set.utterances(language)}
        for values in (Counter(r.voice for r in renderings), Counter(r.speed for r in renderings)):
            assert max(values.values()) - min(values.values()) <= 0.15 * len(renderings) / len(values)
        voices: dict[str, set[str]] = {}
        for r in renderings:
            voices.setdefault(r.utterance.id, set()).add(r.voice)
        assert all(len(v) == Counter(r.utterance.id for r in renderings)[u] for u, v in voices.items())


@pytest.mark.audio  # eSpeak-NG renders the corpus
def test_the_small_corpus_has_every_intent_in_every_language_in_every_condition(small: Path) -> None:
    clips = corpus.load(small)
    assert 120 <= len(clips) <= 180
    for language in corpus.LANGUAGES:
        for condition in (None, *corpus.SNRS_DB):
            heard = {c.intent for c in clips if c.language == language and c.snr_db == condition}
            assert heard == set(utterance_set.INTENTS), (language, condition)
    assert {c.noise for c in clips if c.snr_db is None} == {Noise.CLEAN}


@pytest.mark.audio  # eSpeak-NG renders the corpus
def test_noise_is_mixed_at_the_stated_snr_over_the_speech(small: Path) -> None:
    for by_snr in _renderings(small).values():
        clean = by_snr[None]
        assert not clean[:PAD].any() and not clean[-PAD:].any()
        speech = clean[PAD:-PAD]
        for snr in corpus.SNRS_DB:
            noise = (by_snr[snr] - clean)[PAD:-PAD]
            measured = 10 * np.log10(np.sum(speech**2) / np.sum(noise**2))
            assert measured == pytest.approx(snr, abs=0.5)


@pytest.mark.audio  # eSpeak-NG renders the corpus
def test_the_noise_is_low_frequency_dominated(small: Path) -> None:
    for by_snr in list(_renderings(small).values())[:20]:
        noise = by_snr[5.0] - by_snr[None]
        power = np.abs(np.fft.rfft(noise)) ** 2
        freqs = np.fft.rfftfreq(len(noise), 1 / RECOGNITION_RATE)
        assert power[freqs < 500].sum() / power.sum() > 0.9
        # Not only rumble: the hiss reaches the speech band, as road and wind noise do.
        assert power[freqs > 1000].sum() / power.sum() > 1e-4


def test_car_noise_hums_below_150_hz() -> None:
    noise = corpus.car_noise(4 * RECOGNITION_RATE, RECOGNITION_RATE, np.random.default_rng(1))
    power = np.abs(np.fft.rfft(noise)) ** 2
    freqs = np.fft.rfftfreq(len(noise), 1 / RECOGNITION_RATE)
    assert np.sqrt(np.mean(noise**2)) == pytest.approx(1.0)
    assert 25 <= freqs[np.argmax(power)] <= 150


@pytest.mark.audio  # eSpeak-NG renders the corpus
def test_generation_is_repeatable_byte_for_byte(small: Path, tmp_path: Path) -> None:
    again = corpus.generate(tmp_path, languages=("fr",), size="small")
    mine = list(corpus.load(again))
    theirs = {c.file: c for c in corpus.load(small) if c.language == "fr"}
    assert mine == [theirs[c.file] for c in mine]
    assert all(c.path(again).read_bytes() == c.path(small).read_bytes() for c in mine)


@pytest.mark.audio  # eSpeak-NG renders the corpus
def test_a_second_generate_reuses_the_corpus_and_other_settings_replace_it(tmp_path: Path) -> None:
    manifest = corpus.generate(tmp_path, languages=("de",), size="small")
    first = corpus.load(manifest)
    written = {c.file: c.path(manifest).stat().st_mtime_ns for c in first}
    assert corpus.generate(tmp_path, languages=("de",), size="small") == manifest
    assert {c.file: c.path(manifest).stat().st_mtime_ns for c in first} == written
    other = corpus.load(corpus.generate(tmp_path, languages=("de",), size="small", seed=1))
    assert other != first
    assert sorted(p.name for p in (tmp_path / "de").iterdir()) == sorted(Path(c.file).name for c in other)


@pytest.mark.audio  # eSpeak-NG renders the corpus
def test_the_manifest_round_trips_through_load(small: Path) -> None:
    lines = small.read_text("utf-8").splitlines()
    clips = corpus.load(small)
    assert [json.loads(line) for line in lines] == [c.record() for c in clips]
    first = clips[0]
    assert isinstance(first.context, ContextName) and isinstance(first.options, tuple)
    assert set(first.record()) >= {
        "file", "language", "context", "options", "names", "intent", "value", "text", "voice", "speed", "pitch",
        "noise", "snr_db", "hard",
    }  # fmt: skip


def test_a_malformed_utterance_is_named() -> None:
    bad = utterance_set.Utterance("de-001", "de", ContextName.CONFIRM, (), (), "Paris", "answer", "B", hard=False)
    assert "cannot be heard in context confirm" in (utterance_set._problem(bad) or "")
