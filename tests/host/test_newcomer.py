"""A newcomer joins at the start of a round, by voice (issue 47, docs/decisions/045): after a yes to "another
round?", "Spielt noch jemand neu mit?"; a name read back and confirmed seats them for the next round. A no, silence
or three unclear replies start the round with the players it has. The players' words go through the real intent
matcher, as a recognizer's transcript would."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from tests.host.test_millionaire import Table
from tests.host.test_moneydrop import Studio, knows_everything
from voicemaster.config.settings import Settings, default_paths, load_settings
from voicemaster.dialogue.meaning import ContextName, Heard, Intent
from voicemaster.dialogue.turns import Effect, Listen, LookForNewcomers, NewcomersWaiting, Observation, Record, Silence
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.moneydrop.host import MoneyDropHost
from voicemaster.host.saved import DropSession, Session
from voicemaster.host.setup import newcomer
from voicemaster.phones.server import Phones
from voicemaster.play.live import _players_to, _resumed_or_new, _run, open_ear
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, Reveal, StartRound, new_game, variant
from voicemaster.rules import moneydrop as md
from voicemaster.speech.devices.phone import PhoneMicrophone, PhoneNotice
from voicemaster.speech.hearing import phrases
from voicemaster.speech.hearing.intents import understand
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
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


# A game of a fixed number of rounds (docs/decisions/046): no "another round?", so a newcomer only by phone.


@dataclass
class PhonesAtTable(Table):
    """A table whose runner says how many phones wait to join as new players (`LookForNewcomers`)."""

    waiting: int = 0
    looked: list[int] = field(default_factory=list)
    """The round about to start each time the quizmaster looked."""

    def perform(self, effect: Effect) -> Observation | None:
        if isinstance(effect, LookForNewcomers):
            self.looked.append(len(self.quizmaster.game.sheet) + 1)
            return NewcomersWaiting(self.waiting)
        return super().perform(effect)


def rounds_of(bank: Bank, rounds: int, *players: str) -> Quizmaster:
    settings = GameSettings(variant("classic"), players, seed=7, rounds=rounds)
    return Quizmaster(Session(new_game(settings)), bank, "de")


def test_in_a_game_of_fixed_rounds_a_phone_waiting_is_asked_and_its_newcomer_plays_the_next_round(
    bank: Bank,
) -> None:
    played = PhonesAtTable(rounds_of(bank, 2, "Anna", "Ben"), party(["ja", "Ich heiße Cem.", "ja"]), waiting=1)
    played.play()
    keys = [key for key, _ in played.said]
    assert "another_round" not in keys and played.looked == [2]  # before round two only: none after the last
    assert ("newcomer_joined", "Willkommen, Cem! Du spielst ab Runde zwei mit.") in played.said
    rounds = [text for key, text in played.said if key == "round_started"]
    assert rounds[1] == "Runde zwei. Es spielen Anna, Ben und Cem."
    game = played.quizmaster.game
    assert game.outcome is not None and game.settings.players == ("Anna", "Ben", "Cem") and len(game.sheet) == 2


@pytest.mark.parametrize("waiting", [0, None], ids=["no-phone-waiting", "no-phones"])
def test_in_a_game_of_fixed_rounds_nothing_is_asked_aloud_when_no_phone_waits(bank: Bank, waiting: int | None) -> None:
    host = rounds_of(bank, 3, "Anna", "Ben")
    table = Table(host, party([])) if waiting is None else PhonesAtTable(host, party([]), waiting=waiting)
    played = table.play()
    keys = [key for key, _ in played.said]
    assert "newcomer_asked" not in keys and "another_round" not in keys
    assert keys.count("round_started") == 3 and played.quizmaster.game.settings.players == ("Anna", "Ben")
    if isinstance(played, PhonesAtTable):
        assert played.looked == [2, 3]


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


def test_a_phone_joined_in_a_game_of_two_rounds_is_asked_through_itself_and_plays_the_second(
    tmp_path: Path, bank: Bank, whisper: Callable[[str], WhisperRecognizer]
) -> None:
    """As `play` runs it, with the real phones' object: a phone that tapped "Ich spiele neu mit" in round one of a
    game of two rounds waits (it is not let go), is asked "Spielt noch jemand neu mit?", the name and the read-back
    through itself when round two starts, never the room, and is the newcomer's microphone from then on; once the last
    round has started no phone may join as a new player (there is no next round to join)."""
    from tests.play.test_live import Table as LiveTable

    config: Settings = load_settings(default_paths()[:1])
    phones = Phones(tmp_path)
    ear = open_ear(config, whisper("de"), phones=phones)
    host = rounds_of(bank, 2, "Anna")
    page: list[PhoneNotice] = []
    heard_through: list[tuple[str, PhoneMicrophone | None]] = []  # the newcomer's seat: what, through which phone
    script = party(["ja", "Ich heiße Cem.", "ja"])
    seen = Table(host, script)

    def hear(listen: Listen, _said: object, _speaking: object) -> Observation:
        if not host.game.sheet and not phones.waiting():
            joined = phones.join_new()  # in round one a phone taps "Ich spiele neu mit"
            assert joined is not None
            joined.reaches(page.append)
        if listen.seat is not None:
            heard_through.append((seen.last_key, ear.phone_for(listen)))
        return script(seen, listen, seen.last_key)

    with Store(tmp_path / "vm.db", exclusive=True) as store:
        live = LiveTable(store, config, [], hear)
        live.runner.start_game("g")
        perform = live.runner.perform

        def perform_and_see(effect: object) -> Observation | None:
            if not isinstance(effect, Listen):
                seen.perform(effect)  # type: ignore[arg-type]
            return perform(effect)  # type: ignore[arg-type]

        live.runner.perform = perform_and_see  # type: ignore[method-assign]
        _run(host, store, live.runner, phones)
    assert host.game.settings.players == ("Anna", "Cem") and len(host.game.sheet) == 2
    phone = phones.microphone("Cem")
    assert phone is not None and page == [PhoneNotice(named="Cem")]
    assert [key for key, _ in heard_through] == ["newcomer_asked", "ask_name", "name_read_back"]
    assert {through for _, through in heard_through} == {phone}  # never the room's microphone
    assert phones.join_new() is None  # the last round under way: nobody may join as a new player


# The money drop (docs/decisions/046): teams play their runs one after another, so a team may join before a run.


@dataclass
class StudioWithPhones(Studio):
    """A money drop whose runner says how many phones wait to join (`LookForNewcomers`)."""

    waiting: int = 0
    looked: list[int] = field(default_factory=list)
    """The run about to start each time the quizmaster looked."""

    def perform(self, effect: Effect) -> Observation | None:
        if isinstance(effect, LookForNewcomers):
            self.looked.append(len(self.host.game.results) + 1)
            return NewcomersWaiting(self.waiting)
        if isinstance(effect, Record) and effect.data.get("action") == "AddTeam":
            self.waiting -= 1  # its phone is the new team's now
        return super().perform(effect)


def team_arrives(studio: Studio, listen: Listen, last_key: str) -> str:
    """Every team knows every answer; the newcomer's seat says yes, "Cem", and yes to its read-back."""
    if listen.seat is not None:
        return "Ich heiße Cem." if last_key == "ask_name" else "ja"
    return knows_everything(studio, listen, last_key)


@pytest.mark.parametrize("waiting", [1, 0], ids=["phone-waiting", "none-waiting"])
def test_a_team_joins_a_money_drop_by_phone_before_the_next_run_and_plays_last(bank: Bank, waiting: int) -> None:
    settings = md.MoneyDropSettings(teams=("Rot", "Gelb"))
    host = MoneyDropHost(DropSession(md.MoneyDropGame(settings)), bank, "de", seed=5)
    played = StudioWithPhones(host, team_arrives, waiting=waiting)
    played.play()
    assert played.looked == ([2, 3] if waiting else [2])  # before each run after the first: none after the last
    teams = [result.team for result in played.host.game.results]
    if not waiting:
        assert teams == ["Rot", "Gelb"] and not played.lines("newcomer_asked")
        return
    assert teams == ["Rot", "Gelb", "Cem"] and played.lines("newcomer_asked") == ["Spielt noch jemand neu mit?"]
    assert played.lines("md_team_joined") == ["Willkommen, Cem! Ihr spielt nach den anderen Teams."]
    assert played.events("game_over")[0]["totals"].keys() == {"Rot", "Gelb", "Cem"}


def test_a_money_drop_takes_a_new_teams_phone_until_its_last_run_starts(tmp_path: Path, bank: Bank) -> None:
    """As `play` tells the real phones' object: a phone may join as a new team while a run is still to start; once
    the last team's run has started a phone waiting is let go (its page offers the teams), as nobody could join."""
    settings = md.MoneyDropSettings(teams=("Rot", "Gelb"))
    host = MoneyDropHost(DropSession(md.MoneyDropGame(settings, run=md.Run("Rot"))), bank, "de", seed=5)
    phones = Phones(tmp_path)
    tell = _players_to(phones, host)
    tell()
    page: list[PhoneNotice] = []
    waiting = phones.join_new()  # during Rot's run: Gelb's is still to start
    assert waiting is not None and phones.waiting() == 1
    waiting.reaches(page.append)
    lost = md.RunResult("Rot", saved=0, reached=1, money_then=1_000_000)
    host.session = DropSession(md.MoneyDropGame(settings, results=(lost,), run=md.Run("Gelb")))
    tell()  # the last run has started
    assert phones.waiting() == 0 and page == [PhoneNotice(named="")] and phones.join_new() is None


def test_a_newcomer_asked_in_the_room_and_never_named_leaves_the_next_anyone_new_to_a_players_phone(
    tmp_path: Path, bank: Bank
) -> None:
    """Between rounds a yes to "anyone new?" asks the name of the room (the newcomer has no phone); nobody clear is
    named. As the next round starts the phones are told (`_players_to`), and forget that seat: the round after, "anyone
    new?" is heard through Anna's phone again, not the room, where the party's "Ja" would seat a stranger."""
    from tests.rules.helpers import WRONG, answer, ask, play, solo

    host = Quizmaster(Session(play(solo(seed=3), ask(), *answer("Anna", WRONG), Reveal())[0]), bank, "de")
    phones = Phones(tmp_path)
    tell = _players_to(phones, host)
    tell()
    anna = phones.join("Anna")
    assert phones.newcomer(2) is anna  # "Spielt noch jemand neu mit?": a yes
    assert phones.newcomer(2, name_asked=True) is None  # the name, of the room: nothing clear
    host.session = replace(host.session, game=play(host.game, StartRound())[0])
    tell()  # round two starts
    host.session = replace(host.session, game=play(host.game, ask(), *answer("Anna", WRONG), Reveal())[0])
    tell()  # and is over
    assert phones.newcomer(2) is anna  # "anyone new?" before round three: her phone, not the room's
