"""A newcomer joins at the start of a round, by voice (issue 47, docs/decisions/045): after a yes to "another
round?", "Spielt noch jemand neu mit?"; a name read back and confirmed seats them for the next round. A no, silence
or three unclear replies start the round with the players it has. The players' words go through the real intent
matcher, as a recognizer's transcript would."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.host.test_millionaire import Table
from voicemaster.config.settings import Settings, default_paths, load_settings
from voicemaster.dialogue.meaning import ContextName, Heard, Intent
from voicemaster.dialogue.turns import Listen, Observation, Record, Silence
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.saved import Session
from voicemaster.host.setup import newcomer
from voicemaster.play.live import _resumed_or_new, _run
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, new_game, variant
from voicemaster.speech.hearing import phrases
from voicemaster.speech.hearing.intents import understand
from voicemaster.store import Store


def said_aloud(text: str, listen: Listen) -> Observation:
    """`text` as the recognizer would hand it on, understood by the real matcher; "" is silence."""
    if not text:
        return Silence()
    meant = understand(text, listen.context, phrases.load("de"))
    return Heard(meant.intent, meant.value, text, meant.score)


def party(between_rounds: list[str], rounds_wanted: int = 2) -> Callable[[Table, Listen, str], Observation]:
    """Every player answers A and says yes to "final answer?"; "another round?" gets a yes until `rounds_wanted`
    rounds were played; what is said from "Spielt noch jemand neu mit?" until the next round starts is
    `between_rounds`, one reply a listening, taken from the list (the test fails if the quizmaster asks more)."""

    def script(table: Table, listen: Listen, last_key: str) -> Observation:
        game = table.quizmaster.game
        if last_key == "another_round":
            return said_aloud("ja" if len(game.sheet) < rounds_wanted else "nein", listen)
        if game.round is None:
            return said_aloud(between_rounds.pop(0), listen)
        if listen.context.name is ContextName.ANSWER:
            return said_aloud("A", listen)
        return said_aloud("ja", listen)

    return script


def game_of(bank: Bank, *players: str) -> Quizmaster:
    return Quizmaster(Session(new_game(GameSettings(variant("classic"), players, seed=7))), bank, "de")


def test_a_newcomer_named_between_rounds_plays_the_next_round_and_the_totals_show_them(bank: Bank) -> None:
    played = Table(game_of(bank, "Anna", "Ben"), party(["ja", "Ich heiße Cem.", "ja"])).play()
    keys = [key for key, _ in played.said]
    asked = keys.index("newcomer_asked")
    assert keys[asked - 1] == "another_round" and "Spielt noch jemand neu mit?" in dict(played.said).values()
    assert ("newcomer_joined", "Willkommen, Cem! Du spielst ab Runde zwei mit.") in played.said
    rounds = [text for key, text in played.said if key == "round_started"]
    assert rounds[1] == "Runde zwei. Es spielen Anna, Ben und Cem."
    game = played.quizmaster.game
    assert game.outcome is not None and [player for player, _ in game.outcome.totals] == ["Anna", "Ben", "Cem"]
    assert game.sheet[0].total("Cem") == 0 and len(game.sheet) == 2
    assert played.events("game_over")[0]["totals"].keys() == {"Anna", "Ben", "Cem"}


def test_another_round_and_anyone_new_are_put_to_all_and_nothing_else_is(bank: Bank) -> None:
    """ "Wollt ihr noch eine Runde spielen?" is a question to everyone (`Listen.to_all`: at a party the players'
    phones hear it, not the room's microphone, docs/decisions/046); "Spielt noch jemand neu mit?" and the name are the
    next seat's (`Listen.seat`), and every other listening is a player's own."""
    listened: list[tuple[str, Listen]] = []
    script = party(["ja", "Ich heiße Cem.", "ja"])

    def heard(table: Table, listen: Listen, last_key: str) -> Observation:
        listened.append((last_key, listen))
        return script(table, listen, last_key)

    Table(game_of(bank, "Anna", "Ben"), heard).play()
    to_all = {key for key, listen in listened if listen.to_all}
    assert to_all == {"another_round"}
    seated = {key for key, listen in listened if listen.seat == 3}
    assert seated == {"newcomer_asked", "ask_name", "name_read_back"}
    assert all(listen.player for key, listen in listened if key not in to_all | seated)


@pytest.mark.parametrize(
    "replies",
    [
        ["nein"],
        [""],
        ["Hm, Pizza?", "Wer hat mein Glas?", "Das ist laut hier."],
        ["ja", "", "", ""],  # a yes, then no name comes: nobody seated
        ["ja", "Ich heiße Cem.", "nein", "Ich heiße Cem.", "Käse", "Hm", "Moment"],  # no clear yes to the name
    ],
    ids=["no", "silence", "three-unclear", "no-name", "no-clear-read-back"],
)
def test_no_clear_newcomer_starts_the_round_with_the_players_it_has(bank: Bank, replies: list[str]) -> None:
    asked = ["newcomer_asked"] * (3 if replies[0] == "Hm, Pizza?" else 1)
    played = Table(game_of(bank, "Anna", "Ben"), party(replies)).play()
    keys = [key for key, _ in played.said]
    assert [key for key in keys if key == "newcomer_asked"] == asked and replies == []  # every reply was heard
    game = played.quizmaster.game
    assert game.settings.players == ("Anna", "Ben") and len(game.sheet) == 2
    assert [text for key, text in played.said if key == "round_started"][1] == "Runde zwei. Es spielen Anna und Ben."
    assert "newcomer_joined" not in [key for key, _ in played.said]


def test_a_name_already_playing_is_asked_again(bank: Bank) -> None:
    played = Table(game_of(bank, "Anna", "Ben"), party(["ja", "Ich heiße Ben.", "ja", "Cem", "ja"])).play()
    assert ("name_taken", "Ben spielt schon mit. Bitte einen anderen Namen.") in played.said
    assert played.quizmaster.game.settings.players == ("Anna", "Ben", "Cem")


def test_with_six_players_nobody_new_is_asked_for(bank: Bank) -> None:
    played = Table(game_of(bank, "A", "B", "C", "D", "E", "F"), party([])).play()
    assert "newcomer_asked" not in [key for key, _ in played.said] and len(played.quizmaster.game.sheet) == 2


class Killed(BaseException):
    """A SIGKILL at this point: nothing after it runs."""


def test_a_game_killed_right_after_the_join_resumes_with_the_newcomer(tmp_path: Path, bank: Bank) -> None:
    from tests.play.test_live import Table as LiveTable

    config: Settings = load_settings(default_paths()[:1])
    host = game_of(bank, "Anna")
    script = party(["ja", "Cem", "ja"])
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        seen = Table(host, script)

        def hear(listen: Listen, _said: object, _speaking: object) -> Observation:
            return script(seen, listen, seen.last_key)

        live = LiveTable(store, config, [], hear)
        live.runner.start_game("g")
        perform = live.runner.perform

        def perform_then_die(effect: object) -> Observation | None:
            if not isinstance(effect, Listen):  # what was said, for the script; the runner hears
                seen.perform(effect)  # type: ignore[arg-type]
            result = perform(effect)  # type: ignore[arg-type]
            if isinstance(effect, Record) and effect.data.get("action") == "AddPlayer":
                raise Killed
            return result

        live.runner.perform = perform_then_die  # type: ignore[method-assign]
        with pytest.raises(Killed):
            _run(host, store, live.runner)
    with Store(tmp_path / "vm.db", exclusive=True) as store:  # the next start, after the kill
        resumed = _resumed_or_new(config, store, LiveTable(store, config, [said_aloud_yes()]).runner, (), 1, False,
                                  "de", bank)  # fmt: skip
    assert isinstance(resumed, Quizmaster)
    assert resumed.game == host.game and resumed.game.settings.players == ("Anna", "Cem")
    assert resumed.game.round is None and len(resumed.game.sheet) == 1  # Cem plays from the round about to start


def said_aloud_yes() -> Observation:
    return Heard(Intent.YES, None, "ja", 0.9)


@pytest.mark.parametrize(
    ("language", "replies", "asked"),
    [
        ("de", ["ja", "Ich heiße Cem.", "ja"], "Spielt noch jemand neu mit?"),
        ("en", ["yes", "My name is Cem.", "yes"], "Is someone new joining in?"),
        ("fr", ["oui", "Je m'appelle Cem.", "oui"], "Quelqu'un de nouveau se joint à nous ?"),
    ],
)
def test_a_newcomer_is_asked_for_and_named_in_each_language(language: str, replies: list[str], asked: str) -> None:
    from tests.host.test_setup import converse

    name, said = converse(newcomer(language, ("Anna", "Ben")), language, replies)
    assert name == "Cem" and said[0] == asked
