"""A phone joins before the players are known, as a new player: the quizmaster asks that player's name through it,
the name said into the phone (a person's real recording, Chromium's microphone) names the player, and the game goes
on to that player's first question with the phone as their microphone. Phones joined as new players are given the
seats in the order they joined; one never asked for a name is let go when the players are known."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from tests.phones.pages import in_a_pause, joined, joined_new, phone_page, said
from tests.rules.helpers import WRONG, answer, ask, play, solo
from tests.screen.browser import axe_violations
from voicemaster.config.settings import Settings, default_paths, load_settings
from voicemaster.dialogue.meaning import ContextName, Heard, Intent
from voicemaster.dialogue.turns import Listen, Observation, Say, Silence
from voicemaster.host.lines import load as load_lines
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.moneydrop.host import MoneyDropHost
from voicemaster.host.saved import DropSession, Session
from voicemaster.phones.server import NEWCOMER_ASKINGS, Phones
from voicemaster.play.ear import Answers
from voicemaster.play.live import _resumed_or_new, _run, open_ear
from voicemaster.play.runner import Runner, SessionClock, Transcript
from voicemaster.questions.selection import Bank
from voicemaster.rules import Reveal
from voicemaster.rules import moneydrop as md
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.devices.interfaces import Playback
from voicemaster.speech.devices.phone import PhoneMicrophone
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.voice.speakers import Speakers
from voicemaster.store import Store
from voicemaster_lab.corpora import real_speech

pytestmark = pytest.mark.browser

WORDS = {clip.text: clip for clip in real_speech.load(("de",)) if clip.kind in ("word", "yes")}
SILENCE = Audio(bytes(2 * 16_000), 16_000)
"""Two seconds said into a phone whose player says nothing."""
JOIN_NEW = "Ich spiele neu mit: Mikrofon an"
"""The join page's button for a new player, in German."""


class Asked(Exception):
    """The game reached a player's first question: the test has seen what it came for."""

    def __init__(self, listen: Listen, phone: PhoneMicrophone | None) -> None:
        super().__init__(listen.player)
        self.listen, self.phone = listen, phone


@pytest.mark.slow  # real time: "anyone else?" waits through her phone's words for a yes or a no
def test_a_name_said_into_a_new_players_phone_names_the_player_and_the_game_goes_on_to_a_question(
    tmp_path: Path, bank: Bank, whisper: Callable[[str], WhisperRecognizer]
) -> None:
    # The phone's player says her name and then "ja", over and over, each as far from the next: whichever the
    # quizmaster hears first, a name asked is "Lisa" ("Ja" is no name: asked again) and the yes follows it.
    lisa, yes = (Audio.read(WORDS[word].path()) for word in ("Lisa", "Ja"))
    recording = said(tmp_path, lisa, yes, silence=3.5, evenly=True)
    config = replace(load_settings(default_paths()[:1]), heard_cue=False)  # no sound card here to tick on
    with Phones(tmp_path, port=0) as phones, Store(tmp_path / "vm.db", exclusive=True) as store:
        ear = open_ear(config, whisper("de"), phones=phones)

        named_by: list[PhoneMicrophone] = []  # the phone each name was heard through
        listened: list[tuple[int | None, ContextName, PhoneMicrophone | None]] = []  # seat, context, phone

        def hear(listen: Listen, said: Say | None, speaking: Playback | None) -> Observation:
            phone = ear.phone_for(listen)
            listened.append((listen.seat, listen.context.name, phone))
            if listen.context.name is ContextName.ANSWER:
                raise Asked(listen, phone)
            if phone is None:
                return Silence()  # nobody speaks into the room's microphone
            if listen.context.name is ContextName.NAME:
                named_by.append(phone)
            in_a_pause(phone)
            return ear.listen(listen, said, speaking).observation

        sink = FileSink()
        out = io.StringIO()
        lines, voice = load_lines("de"), Speakers(config.speech)
        runner = Runner(
            lines, voice, sink, SessionClock(sink), Answers(hear), Transcript(out), store=store, render_ahead=False
        )
        playwright, browser, page = phone_page(recording)
        try:
            page.goto(phones.url)
            page.get_by_role("button", name=JOIN_NEW).click()
            page.get_by_role("status").filter(has_text="sag deinen Namen ins Telefon").wait_for()
            assert axe_violations(page) == []  # what a blind player's screen reader finds on it
            joined_new(phones)
            host = _resumed_or_new(config, store, runner, (), 3, False, "de", bank)
            assert isinstance(host, Quizmaster) and host.game.settings.players == ("Lisa",)
            phones.set_players(host.game.settings.players)  # as `play` does once the players are known
            page.get_by_role("status").filter(has_text="Dein Telefon ist jetzt Lisas Mikrofon").wait_for()
            with pytest.raises(Asked) as asked:
                _run(host, store, runner)
        finally:
            browser.close()
            playwright.stop()
    assert asked.value.listen.player == "Lisa"  # her first question, asked of her, heard through her phone
    assert named_by and asked.value.phone is named_by[0] and set(named_by) == {named_by[0]}
    # "Anyone else?" is answered into Lisa's phone, not by the room, where a party's "Ja" would seat a stranger.
    seat_two = [(context, phone) for seat, context, phone in listened if seat == 2]
    named = [at for at, (context, _) in enumerate(seat_two) if context is ContextName.NAME] + [len(seat_two)]
    anyone_else_by = {phone for context, phone in seat_two[: named[0]] if context is ContextName.CONFIRM}
    assert anyone_else_by == {named_by[0]}, listened


def test_a_new_players_phone_never_asked_for_a_name_is_offered_the_players(tmp_path: Path) -> None:
    with Phones(tmp_path, port=0) as phones:
        playwright, browser, page = phone_page(said(tmp_path, SILENCE))
        try:
            page.goto(phones.url)
            page.get_by_role("button", name=JOIN_NEW).click()
            page.get_by_role("status").filter(has_text="sag deinen Namen ins Telefon").wait_for()
            joined_new(phones)
            phones.set_players(("Anna",))  # Anna was named in the room; the phone was never asked
            page.get_by_role("status").filter(has_text="nicht nach deinem Namen gefragt").wait_for()
            assert phones.waiting() == 0 and phones.joined() == ()
            page.get_by_role("button", name="Ich bin Anna: Mikrofon an").click()
            page.get_by_role("status").filter(has_text="Annas Mikrofon").wait_for()
            assert joined(phones, "Anna") is not None
        finally:
            browser.close()
            playwright.stop()


@pytest.mark.parametrize(
    ("teams", "told"),
    [(False, "Wenn die nächste Runde beginnt"), (True, "Bevor das nächste Team an die Reihe kommt")],
    ids=["millionaire", "money-drop"],
)
def test_a_new_players_phone_joined_mid_game_is_told_when_it_will_be_asked(
    tmp_path: Path, teams: bool, told: str
) -> None:
    """A Millionaire game asks newcomers when the next round starts; a money drop before the next team's run."""
    with Phones(tmp_path, port=0) as phones:
        phones.set_players(("Adler", "Falken") if teams else ("Anna",), newcomers=True, teams=teams)
        playwright, browser, page = phone_page(said(tmp_path, SILENCE))
        try:
            page.goto(phones.url)
            page.get_by_role("button", name=JOIN_NEW).click()
            page.get_by_role("status").filter(has_text=told).wait_for()
            joined_new(phones)
        finally:
            browser.close()
            playwright.stop()


def test_a_new_players_phone_asked_round_after_round_and_never_named_says_so_and_offers_the_players(
    tmp_path: Path,
) -> None:
    with Phones(tmp_path, port=0) as phones:
        phones.set_players(("Anna",), newcomers=True)  # the game is under way and takes newcomers
        playwright, browser, page = phone_page(said(tmp_path, SILENCE))
        try:
            page.goto(phones.url)
            page.get_by_role("button", name=JOIN_NEW).click()
            page.get_by_role("status").filter(has_text="Wenn die nächste Runde beginnt").wait_for()
            joined_new(phones)
            for _ in range(NEWCOMER_ASKINGS):  # "Spielt noch jemand neu mit?" through it, and no name
                assert phones.newcomer(2) is not None
                phones.set_players(("Anna",), newcomers=True)  # the next round starts
            page.get_by_role("status").filter(has_text="über dieses Telefon keinen Namen gehört").wait_for()
            assert phones.waiting() == 0
            page.get_by_role("button", name=JOIN_NEW).wait_for()  # to be asked again
            assert axe_violations(page) == []
        finally:
            browser.close()
            playwright.stop()


@pytest.mark.slow  # real time: a round ended, then a newcomer's phone asked, named and read back
@pytest.mark.parametrize("rounds", [None, 2], ids=["another-round", "two-rounds"])
def test_a_phone_joined_as_a_new_player_mid_game_waits_and_is_the_newcomers_microphone_from_the_next_round(
    tmp_path: Path, bank: Bank, whisper: Callable[[str], WhisperRecognizer], rounds: int | None
) -> None:
    """Issue 47 (docs/decisions/045, 046): Anna plays; a phone joins as a new player while the game runs and waits.
    Once the round is over (and "another round?" has its yes, in a game that asks it; a game of two rounds asks
    because that phone waits), "Spielt noch jemand neu mit?", the name and its read-back are heard through that phone
    (a person's real "Lisa" and "Ja"), and the next round's first question is Lisa's, heard through it, Anna's place
    kept."""
    lisa, yes = (Audio.read(WORDS[word].path()) for word in ("Lisa", "Ja"))
    recording = said(tmp_path, lisa, yes, silence=3.5, evenly=True)  # whatever comes first, a yes follows "Lisa"
    config = replace(load_settings(default_paths()[:1]), heard_cue=False)
    game, _ = play(solo(seed=3, rounds=rounds), ask(), *answer("Anna", WRONG), Reveal())  # round one is over
    host = Quizmaster(Session(game), bank, "de")
    with Phones(tmp_path, port=0) as phones, Store(tmp_path / "vm.db", exclusive=True) as store:
        ear = open_ear(config, whisper("de"), phones=phones)
        phones.set_players(("Anna",), newcomers=True)  # as `play` does while a round is to come
        by_seat: list[tuple[ContextName, PhoneMicrophone | None]] = []  # what the newcomer's seat was heard through

        def hear(listen: Listen, said: Say | None, speaking: Playback | None) -> Observation:
            phone, seat = ear.phone_for(listen), listen.seat
            if listen.context.name is ContextName.ANSWER:
                raise Asked(listen, phone)
            if seat is not None:
                by_seat.append((listen.context.name, phone))
            if phone is None:  # the room: Anna wants another round
                return Heard(Intent.YES, None, "ja", 0.9) if said and said.key == "another_round" else Silence()
            in_a_pause(phone)
            return ear.listen(listen, said, speaking).observation

        runner = _german_game(config, hear, store)
        playwright, browser, page = phone_page(recording)
        try:
            page.goto(phones.url)
            page.get_by_role("button", name=JOIN_NEW).click()
            page.get_by_role("status").filter(has_text="Wenn die nächste Runde beginnt").wait_for()
            assert axe_violations(page) == []  # the waiting page, as a blind player's screen reader finds it
            joined_new(phones)
            with pytest.raises(Asked) as first:
                _run(host, store, runner, phones)
            page.get_by_role("status").filter(has_text="Dein Telefon ist jetzt Lisas Mikrofon").wait_for()
        finally:
            browser.close()
            playwright.stop()
    assert host.game.settings.players == ("Anna", "Lisa") and first.value.listen.player == "Lisa"
    newcomers_phone = by_seat[0][1]
    assert newcomers_phone is not None and {phone for _, phone in by_seat} == {newcomers_phone}
    assert first.value.phone is newcomers_phone  # her first question heard through the phone that waited
    assert [context for context, _ in by_seat][-2:] == [ContextName.NAME, ContextName.CONFIRM]


@pytest.mark.slow  # real time: a run ended, then a new team's phone asked, named and read back
def test_a_phone_joined_as_a_new_team_in_a_money_drop_is_asked_before_the_next_run_and_plays_last(
    tmp_path: Path, bank: Bank, whisper: Callable[[str], WhisperRecognizer]
) -> None:
    """Docs/decisions/046: Rot and Gelb play a money drop, Rot's run is over; a phone joins as a new player and
    waits. Before Gelb's run "Spielt noch jemand neu mit?", the name and its read-back are heard through that phone
    (a person's real "Lisa" and "Ja"), and Lisa's team plays after Gelb, that phone its microphone."""
    lisa, yes = (Audio.read(WORDS[word].path()) for word in ("Lisa", "Ja"))
    recording = said(tmp_path, lisa, yes, silence=3.5, evenly=True)  # whatever comes first, a yes follows "Lisa"
    config = replace(load_settings(default_paths()[:1]), heard_cue=False)
    rot = md.RunResult("Rot", saved=0, reached=2, money_then=1_000_000)
    game = md.MoneyDropGame(md.MoneyDropSettings(teams=("Rot", "Gelb")), results=(rot,))
    host = MoneyDropHost(DropSession(game), bank, "de", seed=3)
    with Phones(tmp_path, port=0) as phones, Store(tmp_path / "vm.db", exclusive=True) as store:
        ear = open_ear(config, whisper("de"), phones=phones)
        by_seat: list[tuple[ContextName, PhoneMicrophone | None]] = []  # what the new team's seat was heard through

        def hear(listen: Listen, said: Say | None, speaking: Playback | None) -> Observation:
            phone, seat = ear.phone_for(listen), listen.seat
            if listen.player is not None:
                raise Asked(listen, phone)  # Gelb's run: the test has seen what it came for
            if seat is not None:
                by_seat.append((listen.context.name, phone))
            if phone is None:
                return Silence()
            in_a_pause(phone)
            return ear.listen(listen, said, speaking).observation

        runner = _german_game(config, hear, store)
        playwright, browser, page = phone_page(recording)
        try:
            phones.set_players(("Rot", "Gelb"), newcomers=True)  # as `play` does while a run is to start
            page.goto(phones.url)
            page.get_by_role("button", name=JOIN_NEW).click()
            page.get_by_role("status").filter(has_text="Wenn die nächste Runde beginnt").wait_for()
            joined_new(phones)
            with pytest.raises(Asked) as gelb:
                _run(host, store, runner, phones)
            page.get_by_role("status").filter(has_text="Dein Telefon ist jetzt Lisas Mikrofon").wait_for()
            lisas = phones.microphone("Lisa")
        finally:
            browser.close()
            playwright.stop()
    assert host.settings.teams == ("Rot", "Gelb", "Lisa") and gelb.value.listen.player == "Gelb"
    newcomers_phone = by_seat[0][1]
    assert newcomers_phone is not None and {phone for _, phone in by_seat} == {newcomers_phone}
    assert lisas is newcomers_phone  # her team's microphone from now on
    assert [context for context, _ in by_seat][-2:] == [ContextName.NAME, ContextName.CONFIRM]


def _german_game(
    config: Settings, hear: Callable[[Listen, Say | None, Playback | None], Observation], store: Store
) -> Runner:
    """A runner of a German game begun in `store`, its players heard by `hear`, its sound written to no device."""
    sink = FileSink()
    runner = Runner(
        load_lines("de"), Speakers(config.speech), sink, SessionClock(sink), Answers(hear), Transcript(io.StringIO()),
        store=store, render_ahead=False,
    )  # fmt: skip
    runner.start_game("g")
    return runner
