"""Whole games through the real recognizer: simulated players speak (eSpeak-NG), Whisper hears, the quizmaster hosts.

What a player would notice: the game ends with the right money, and no answer is locked that was not confirmed
with a clear yes right after the quizmaster read it back.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from voicemaster.config.voice import Voice
from voicemaster.paths import QUESTIONS_DIR
from voicemaster.play.demo import PLAYER_ESPEAK_VOICES, Demo, DemoResult
from voicemaster.play.script import FULL, SHORT, DemoPlan
from voicemaster.questions.model import Entry
from voicemaster.questions.packs import load, pack_files
from voicemaster.rules import AudienceForm, GameSettings, PhoneForm, variant
from voicemaster.rules.moneydrop import MoneyDropSettings
from voicemaster.speech.audio import Audio
from voicemaster.speech.frontend import open_front_end
from voicemaster.speech.hearing.recognition import Recognizer


@pytest.fixture(scope="module")
def entries() -> tuple[Entry, ...]:
    return tuple(load(pack_files(QUESTIONS_DIR)).entries)


QUIZMASTER = {language: Voice(engine="espeak") for language in ("de", "en", "fr")}
ESPEAK_CAST = {
    language: tuple(Voice(name, rate=150, engine="espeak") for name in names)
    for language, names in PLAYER_ESPEAK_VOICES.items()
}
"""Quizmaster and players in eSpeak-NG, which renders in milliseconds, so the suite stays short; one English game is
played with Kokoro's voices as in `make demo` (and tests/speech/test_voices.py hears Kokoro back)."""


def demo(language: str, entries: tuple[Entry, ...], whisper: Callable[[str], Recognizer], out: Path) -> Demo:
    """A demo hosted in eSpeak-NG; its players speak eSpeak-NG too, but in English Kokoro's natural voices."""
    cast = () if language == "en" else ESPEAK_CAST[language]
    return Demo(language, entries, whisper(language), QUIZMASTER, out, cast=cast)


def heard_as_meant(result: DemoResult, language: str) -> list[dict[str, Any]]:
    """The demo's steps; natural voices (English) are understood: at most one utterance in ten asked again, none
    taken for something else."""
    if language == "en":
        assert result.utterances > 0 and result.understood >= 0.9 * result.utterances and result.mistaken == 0
    return [json.loads(line) for line in result.transcript.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(autouse=True)
def own_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache"))


# Whole games by voice run in `make test-slow`, so that the default suite stays under ten minutes on two cores. The
# default suite hears a game by voice in the German short demo below (a 50:50, an answer over the quizmaster, a
# walk-away, a loss, every lock after a yes); each joker, the phone's timer and the money are held by
# tests/host/test_millionaire.py and tests/host/test_safe_decisions.py, the phrases heard by tests/speech/hearing.
@pytest.mark.parametrize(
    ("language", "rules", "players", "seed"),
    [
        pytest.param("de", "risiko", ("Anna",), 7, marks=pytest.mark.slow),
        # As `make demo --lang en` plays it: the players speak in Kokoro's natural voices, each their own.
        pytest.param("en", "uk", ("Anna",), 7, marks=pytest.mark.slow),
        pytest.param("fr", "qvgdm", ("Anna",), 7, marks=pytest.mark.slow),
        # Eleven questions, all three jokers (the phone with its timer), a wrong answer and a walk-away with 16 000 €:
        # 64 utterances, where seed 7 takes 140.
        pytest.param("de", "classic", ("Anna", "Ben"), 5, marks=pytest.mark.slow),
    ],
)
def test_a_whole_game_by_voice(
    language: str,
    rules: str,
    players: tuple[str, ...],
    seed: int,
    entries: tuple[Entry, ...],
    whisper: Callable[[str], Recognizer],
    tmp_path: Path,
) -> None:
    result = demo(language, entries, whisper, tmp_path).millionaire(
        GameSettings(variant(rules), players, rounds=1, seed=seed)
    )
    events = heard_as_meant(result, language)
    names = [event["event"] for event in events]
    assert names.count("game_over") == 1 and names.count("question") >= 1
    # Every lock comes right after a clear yes to "final answer?", heard from that player.
    for index, event in enumerate(events):
        if event["event"] == "locked":
            heard = [e for e in events[:index] if e["event"] == "heard"][-1]
            assert (heard["player"], heard["context"], heard["intent"]) == (event["player"], "confirm", "yes")
    # The money: what each player left with is their total.
    left_with = {
        player: sum(e["amount"] for e in events if e["event"] in ("payout", "walk_away") and e["player"] == player)
        for player in players
    }
    assert [e["totals"] for e in events if e["event"] == "game_over"] == [left_with]
    assert Audio.read(result.session).seconds == pytest.approx(result.seconds, abs=0.01)


# Seed 5 plays six German and three French cards; seed 7 kept the French team playing all eight, twice as long.
# All three run in `make test-slow`, so that the default suite stays under ten minutes on two cores. The default suite
# hears a money drop by voice in tests/cli/test_demo_command.py (German: cards, placements read back and locked);
# the placements, their read-back, the lock only on a yes and the money left are held by tests/host/test_moneydrop.py,
# a French placement heard by tests/speech/hearing/test_whisper.py.
@pytest.mark.parametrize(
    ("language", "seed"),
    [
        pytest.param("de", 5, marks=pytest.mark.slow),
        pytest.param("en", 7, marks=pytest.mark.slow),
        pytest.param("fr", 5, marks=pytest.mark.slow),
    ],
)
def test_a_money_drop_run_by_voice(
    language: str, seed: int, entries: tuple[Entry, ...], whisper: Callable[[str], Recognizer], tmp_path: Path
) -> None:
    result = demo(language, entries, whisper, tmp_path).money_drop(MoneyDropSettings(teams=("Anna",)), seed)
    events = heard_as_meant(result, language)
    locked = [e for e in events if e["event"] == "locked"]
    results = [e for e in events if e["event"] == "result"]
    questions = [e for e in events if e["event"] == "question"]
    assert locked and len(locked) == len(results)
    money = 1_000_000
    for index, lock in enumerate(locked):
        # Locked only right after a clear yes to the read-back of exactly this placement.
        before = events[: events.index(lock)]
        heard = [e for e in before if e["event"] == "heard"][-1]
        assert (heard["context"], heard["intent"]) == ("confirm", "yes")
        assert [e for e in before if e["event"] == "placement"][-1]["placement"] == lock["placement"]
        assert sum(lock["placement"].values()) * 25_000 == money  # all the money, nothing made up
        card = [q for q in questions if events.index(q) < events.index(lock)][-1]
        money = lock["placement"][card["correct"]] * 25_000
        assert results[index]["money_left"] == money
    assert [e["totals"] for e in events if e["event"] == "game_over"] == [{"Anna": money}]


@pytest.mark.slow  # a whole game (or room) through the recognizer: make test-slow
@pytest.mark.parametrize("echo_cancel", [False, True])
def test_a_demo_listens_as_play_does_answered_early_and_spoken_over(
    entries: tuple[Entry, ...], whisper: Callable[[str], Recognizer], tmp_path: Path, echo_cancel: bool
) -> None:
    """The demo's players are heard through `play`'s pipeline: a clear "Antwort B" is taken at the first short pause,
    and a player who speaks over the question stops the quizmaster there; as well through the echo canceller, fed
    the line that plays, as `voicemaster demo` hears them."""
    settings = GameSettings(variant("classic"), ("Anna",), rounds=1, seed=SPOKEN_OVER_SEED)
    front_end = open_front_end(echo_cancel=echo_cancel, noise_suppression=False)
    played = replace(demo("de", entries, whisper, tmp_path), front_end=front_end)
    events = heard_as_meant(played.millionaire(settings), "de")
    assert any(event["event"] == "early_decision" for event in events)
    barge_in = next(event for event in events if event["event"] == "barge_in")
    # The player began before the quizmaster's lines were over, and they were cut soon after, before their end.
    before = events[: events.index(barge_in)]
    listening = [e for e in before if e["event"] == "listen"][-1]
    began = [e for e in before if e["event"] == "player"][-1]
    last_line = [e for e in before if e["event"] == "say"][-1]
    assert listening["t"] <= began["t"] < barge_in["t"] < last_line["end"]


SPOKEN_OVER_SEED = 3
"""A game in which the player speaks over the question at least once."""


def planned(plan: DemoPlan, language: str, seed: int) -> GameSettings:
    """A Millionaire game as `voicemaster demo` sets it up for the plan: its players and rounds, the jokers' forms
    the number of players brings."""
    players = ("Anna", "Ben", "Cem")[: plan.players]
    together = len(players) > 1
    audience, phone = (
        (AudienceForm.PLAYERS, PhoneForm.PARTNER) if together else (AudienceForm.SIMULATED, PhoneForm.CALL)
    )
    rules = {"de": "classic", "en": "uk", "fr": "qvgdm"}[language]
    return GameSettings(
        variant(rules), players, audience_form=audience, phone_form=phone, rounds=plan.rounds, seed=seed
    )


def short_demo(
    language: str, seed: int, entries: tuple[Entry, ...], whisper: Callable[[str], Recognizer], out: Path
) -> list[dict[str, Any]]:
    """The short demo's steps, with every moment its script stages: the ladder climbing (each question's amount said,
    and what is at stake before the next), an answer said over the quizmaster, a joker, a walk-away and a wrong
    answer, in four questions. The players speak as `voicemaster demo` casts them (Pico, Kokoro in English): eSpeak-NG's
    French "cinquante-cinquante" was heard as "Sirclote" until the player gave up the joker."""
    settings = planned(SHORT, language, seed)
    result = replace(demo(language, entries, whisper, out), cast=()).millionaire(settings, SHORT.script)
    events = heard_as_meant(result, language)
    anna, ben = settings.players
    questions = [e for e in events if e["event"] == "question"]
    assert [q["amount"] for q in questions] == list(settings.variant.ladder.amounts[:4])
    said = [e["line"] for e in events if e["event"] == "say"]
    assert said.count("question_intro") == 4 and said.count("play_on") >= 2 * 3  # both, before questions 2 to 4
    level_of: dict[int, int] = {events.index(q): int(q["level"]) for q in questions}

    def level(event: dict[str, Any]) -> int:
        return max(level for index, level in level_of.items() if index < events.index(event))

    [barge_in] = [e for e in events if e["event"] == "barge_in"]
    [joker] = [e for e in events if e["event"] == "joker"]
    [walk_away] = [e for e in events if e["event"] == "walk_away"]
    wrong = [e for e in events if e["event"] == "result" and not e["correct"]]
    assert (barge_in["player"], level(barge_in)) == (anna, 1)
    assert (joker["player"], joker["joker"], level(joker)) == (ben, "fifty_fifty", 2)
    assert (walk_away["player"], walk_away["amount"], level(walk_away)) == (anna, settings.variant.ladder.amounts[2], 4)
    assert [(e["player"], level(e)) for e in wrong] == [(ben, 4)]
    [over] = [e for e in events if e["event"] == "game_over"]
    assert over["totals"] == {anna: walk_away["amount"], ben: 0}
    return events


# The default suite plays the German short demo; English (Kokoro's voices, slower) and French run in `make test-slow`.
@pytest.mark.parametrize(
    ("language", "seed"),
    [("de", 11), pytest.param("en", 11, marks=pytest.mark.slow), pytest.param("fr", 11, marks=pytest.mark.slow)],
)
def test_the_short_demo_stages_a_joker_an_answer_over_the_quizmaster_a_walk_away_and_a_loss(
    language: str, seed: int, entries: tuple[Entry, ...], whisper: Callable[[str], Recognizer], tmp_path: Path
) -> None:
    short_demo(language, seed, entries, whisper, tmp_path)


@pytest.mark.slow  # a whole evening through the recognizer
def test_the_short_demo_asks_a_fraction_of_the_questions_of_a_whole_evening(
    entries: tuple[Entry, ...], whisper: Callable[[str], Recognizer], tmp_path: Path
) -> None:
    short = short_demo("de", 11, entries, whisper, tmp_path / "short")
    full = demo("de", entries, whisper, tmp_path / "full").millionaire(planned(FULL, "de", 11), FULL.script)
    evening = heard_as_meant(full, "de")
    asked = [len([e for e in events if e["event"] == "question"]) for events in (short, evening)]
    rounds = [
        len([e for e in events if e["event"] == "say" and e["line"] == "round_started"]) for events in (short, evening)
    ]
    assert asked[1] >= 3 * asked[0] and rounds == [1, 2]
