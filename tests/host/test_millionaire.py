"""The quizmaster hosts whole games: scripted players answer with text observations, every line is rendered."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from voicemaster.config.voice import DEFAULT_VOICES
from voicemaster.dialogue.meaning import ContextName, Heard, Intent
from voicemaster.dialogue.turns import Effect, Foresee, Listen, Observation, Record, Say, Silence
from voicemaster.host.lines import load as load_lines
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.saved import Session
from voicemaster.play.ear import Answers
from voicemaster.play.runner import Runner, SessionClock, Transcript, drive
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, Mode, new_game, variant
from voicemaster.rules.variants import AudienceForm, PhoneForm
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.voice.earcons import earcon
from voicemaster.speech.voice.speakers import Speakers

Script = Callable[["Table", Listen, str], Observation]


@dataclass
class Table:
    """A game at a table of scripted players: what the quizmaster said (rendered) and recorded, in order."""

    quizmaster: Quizmaster
    script: Script
    said: list[tuple[str, str]] = field(default_factory=list)
    """(key, text) of every line."""
    records: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    states: list[str] = field(default_factory=list)
    foreseen: set[str] = field(default_factory=set)
    """The texts of the quizmaster's latest foresight."""
    as_foreseen: list[tuple[str, bool]] = field(default_factory=list)
    """(key, whether the latest foresight held its text) of every line."""

    @property
    def last_key(self) -> str:
        return self.said[-1][0] if self.said else ""

    def perform(self, effect: Effect) -> Observation | None:
        lines = load_lines(self.quizmaster.language)
        match effect:
            case Say(key) as said:
                self.said.append((key, lines.text(said)))
                self.as_foreseen.append((key, self.said[-1][1] in self.foreseen))
            case Foresee(foreseen):
                self.foreseen = {lines.text(said) for said in foreseen}
            case Listen() as listen:
                return self.script(self, listen, self.last_key)
            case Record(event, data, state):
                if state is not None:
                    self.states.append(state)
                else:
                    self.records.append((event, dict(data)))
        return None

    def play(self) -> Table:
        drive(self.quizmaster.run(), self.perform)
        return self

    def events(self, name: str) -> list[dict[str, Any]]:
        return [data for event, data in self.records if event == name]

    def correct(self) -> str:
        current = self.quizmaster.game.round
        assert current is not None and current.question is not None
        return current.question.correct.value


def heard(intent: Intent, value: str | None = None) -> Heard:
    return Heard(intent, value, f"{intent} {value or ''}".strip(), 0.9)


def always_right(table: Table, listen: Listen, last_key: str) -> Observation:
    """Knows every answer, says yes to "final answer?" and to playing on, and yes only to the right option read."""
    if listen.context.name is ContextName.ANSWER:
        return heard(Intent.ANSWER, table.correct())
    if last_key == "scan_option":
        offered = table.said[-1][1][0]  # "B, Paris?"
        return heard(Intent.YES if offered == table.correct() else Intent.NO)
    return heard(Intent.YES)


def says_at_level(level: int, *replies: Observation) -> Script:
    """Says `replies`, one a turn, from the first turn at question `level` on; otherwise `always_right`."""
    left = iter(replies)

    def script(table: Table, listen: Listen, last_key: str) -> Observation:
        current = table.quizmaster.game.round
        if current is not None and current.level == level and (said := next(left, None)) is not None:
            return said
        return always_right(table, listen, last_key)

    return script


def table(bank: Bank, script: Script) -> Table:
    """One German player, classic rules, one round."""
    settings = GameSettings(variant("classic"), ("Anna",), rounds=1, seed=11)
    return Table(Quizmaster(Session(new_game(settings)), bank, "de"), script)


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_a_player_who_knows_everything_wins_the_million(bank: Bank, language: str) -> None:
    settings = GameSettings(variant("classic"), ("Anna",), rounds=1, seed=11)
    played = Table(Quizmaster(Session(new_game(settings)), bank, language), always_right).play()
    assert [q["level"] for q in played.events("question")] == list(range(1, 16))
    assert played.events("game_over") == [{"totals": {"Anna": 1_000_000}, "winners": ["Anna"]}]
    spoken = dict(played.said)
    assert spoken["question_intro"]  # every line rendered from the language's phrase file
    million = {"de": "eine Million Euro", "en": "one million euros", "fr": "un million d'euros"}[language]
    assert million in spoken["top_prize"]
    assert len({q["question_id"] for q in played.events("question")}) == 15


def test_every_reply_to_an_answer_and_the_next_question_are_foreseen_before_the_player_speaks(bank: Bank) -> None:
    """What a slow voice renders ahead is what is then said: the reply follows the player's answer at once."""
    played = table(bank, always_right).play()
    replies = ("final_answer", "locked", "reveal_suspense", "correct_answer", "right", "question_intro", "question")
    after_first_turn = played.as_foreseen[[key for key, _ in played.as_foreseen].index("your_answer") + 1 :]
    missed = [key for key, foreseen in after_first_turn if key in (*replies, "option", "play_on") and not foreseen]
    assert not missed
    assert sum(key == "final_answer" for key, _ in after_first_turn) == 15


def test_no_answer_is_locked_without_a_clear_yes(bank: Bank) -> None:
    replies: Iterator[Observation] = iter(
        [
            heard(Intent.ANSWER, "B"),
            heard(Intent.UNKNOWN),
            heard(Intent.ANSWER, "B"),
            Silence(),
            heard(Intent.ANSWER, "B"),
            heard(Intent.NO),
        ]
    )

    def hesitant(table: Table, listen: Listen, last_key: str) -> Observation:
        reply = next(replies, None)
        if reply is not None:
            return reply
        return always_right(table, listen, last_key)

    played = table(bank, hesitant).play()
    keys = [key for key, _ in played.said]
    first_lock = next(i for i, (event, _) in enumerate(played.records) if event == "locked")
    heard_before = [data for event, data in played.records[:first_lock] if event == "heard"]
    # Three times "final answer?" without a yes (unclear, silence, no): each goes back to asking, nothing locked.
    assert keys.count("final_answer") >= 4
    assert [h["intent"] for h in heard_before][:6] == ["answer", "unknown", "answer", "answer", "no", "answer"]
    assert played.events("locked")[0] == {"player": "Anna", "option": played.events("question")[0]["correct"]}
    # Three readings refused in a row: the options are then offered one by one.
    assert keys.index("scan_intro") < keys.index("locked")


def test_a_wrong_answer_pays_the_safety_level(bank: Bank) -> None:
    def wrong_at_seven(table: Table, listen: Listen, last_key: str) -> Observation:
        current = table.quizmaster.game.round
        if listen.context.name is ContextName.ANSWER and current is not None and current.level == 7:
            return heard(Intent.ANSWER, next(x for x in "ABCD" if x != table.correct()))
        return always_right(table, listen, last_key)

    played = table(bank, wrong_at_seven).play()
    assert played.events("result")[-1] == {"player": "Anna", "correct": False, "level": 7}
    assert played.events("payout") == [{"player": "Anna", "amount": 500}]
    assert played.events("game_over")[0]["totals"] == {"Anna": 500}


def test_walking_away_takes_what_was_won_and_needs_a_second_yes(bank: Bank) -> None:
    def leaves_before_eight(table: Table, listen: Listen, last_key: str) -> Observation:
        current = table.quizmaster.game.round
        if last_key == "play_on" and current is not None and current.level == 8:
            return heard(Intent.NO)
        return always_right(table, listen, last_key)

    played = table(bank, leaves_before_eight).play()
    # Before question 8 (4 000 €), walking away keeps question 7's 2 000 €.
    assert played.events("walk_away") == [{"player": "Anna", "amount": 2_000}]
    assert dict(played.said)["walked_away"] == "Anna steigt aus und nimmt zweitausend Euro mit."
    assert played.events("game_over")[0]["totals"] == {"Anna": 2_000}


def test_a_walk_away_or_quit_misheard_is_asked_about_and_a_no_plays_on(bank: Bank) -> None:
    """The recognizer may take an answer for "Je m'arrête" or "beenden": nothing ends before a clear yes."""
    misheard = says_at_level(3, heard(Intent.WALK_AWAY), heard(Intent.NO), heard(Intent.QUIT), heard(Intent.UNKNOWN))
    played = table(bank, misheard).play()
    keys = [key for key, _ in played.said]
    assert keys.count("confirm_walk_away") == 1 and keys.count("confirm_quit") == 1
    assert played.events("walk_away") == []
    assert played.events("game_over") == [{"totals": {"Anna": 1_000_000}, "winners": ["Anna"]}]


def test_jokers_by_voice_and_a_clear_answer_when_one_is_spent(bank: Bank) -> None:
    asked: list[str] = []

    def joker_fan(table: Table, listen: Listen, last_key: str) -> Observation:
        current = table.quizmaster.game.round
        if listen.context.name is ContextName.ANSWER and current is not None and current.level == 2:
            for joker in ("fifty_fifty", "fifty_fifty", "extra", "audience"):
                if asked.count(joker) < (2 if joker == "fifty_fifty" else 1):
                    asked.append(joker)
                    return heard(Intent.JOKER, joker)
        return always_right(table, listen, last_key)

    played = table(bank, joker_fan).play()
    keys = [key for key, _ in played.said]
    fifty = keys.index("fifty_fifty")
    assert keys[fifty + 1 : fifty + 3] == ["option", "option"]  # the two options left, read again
    spoken = dict(played.said)
    assert spoken["joker_used_up"] == "Den Fünfzig-fünfzig-Joker hast du schon benutzt."  # the second 50:50
    assert spoken["joker_not_in_variant"] == "Den Zusatzjoker gibt es in dieser Spielvariante nicht."
    assert keys.count("audience_percent") in (2, 4)
    assert [j["joker"] for j in played.events("joker")] == ["fifty_fifty", "audience"]


@pytest.mark.audio  # every line is rendered: the game's clock is the sound's
def test_the_phone_call_runs_thirty_seconds_of_game_time(bank: Bank) -> None:
    def calls_at_three(table: Table, listen: Listen, last_key: str) -> Observation:
        current = table.quizmaster.game.round
        seat = current.seat("Anna") if current else None
        at_three = listen.context.name is ContextName.ANSWER and current and current.level == 3
        if at_three and seat and "phone" not in seat.jokers_used:
            return heard(Intent.JOKER, "phone")
        return always_right(table, listen, last_key)

    settings = GameSettings(variant("classic"), ("Anna",), rounds=1, seed=11, phone_form=PhoneForm.CALL)
    quizmaster = Quizmaster(Session(new_game(settings)), bank, "de")
    scripted = Table(quizmaster, calls_at_three)
    out = io.StringIO()
    sink = FileSink()
    runner = Runner(
        load_lines("de"),
        Speakers(DEFAULT_VOICES),
        sink,
        SessionClock(sink),
        Answers(lambda listen, said, _speaking: scripted.script(scripted, listen, said.key if said else "")),
        Transcript(out),
        earcons=earcon,
    )
    drive(quizmaster.run(), runner.perform)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    start = next(line["t"] for line in lines if line["event"] == "timer")
    end = next(line["t"] for line in lines if line.get("earcon") == "timer_end")
    assert end - start == pytest.approx(30.0, abs=0.01)
    during = [line["text"] for line in lines if line["event"] == "say" and start <= line["t"] < end]
    assert during == ["Noch zehn Sekunden.", "fünf", "vier", "drei", "zwei", "eins"]


def test_a_stored_game_resumes_on_the_same_question(bank: Bank) -> None:
    class Crash(Exception):
        pass

    def crashes_at_four(table: Table, listen: Listen, last_key: str) -> Observation:
        current = table.quizmaster.game.round
        if current is not None and current.level == 4 and current.question is not None:
            raise Crash
        return always_right(table, listen, last_key)

    first = table(bank, crashes_at_four)
    with pytest.raises(Crash):
        first.play()
    asked_before = first.events("question")[-1]["question_id"]
    resumed = Table(Quizmaster(Session.from_json(first.states[-1]), bank, "de"), always_right).play()
    assert [key for key, _ in resumed.said[:3]] == ["resumed", "question", "option"]  # the question read again
    assert resumed.quizmaster.session.asked[3] == asked_before
    assert resumed.events("question")[0]["level"] == 5  # question 4 was continued, not asked again
    assert resumed.events("game_over")[0]["totals"] == {"Anna": 1_000_000}


def test_a_game_resumed_after_a_fifty_fifty_reads_only_the_options_left(bank: Bank) -> None:
    class Crash(Exception):
        pass

    def fifty_fifty_then_power_cut(table: Table, listen: Listen, _last_key: str) -> Observation:
        if any(key == "fifty_fifty" for key, _ in table.said):
            raise Crash
        if listen.context.name is ContextName.ANSWER:
            return heard(Intent.JOKER, "fifty_fifty")
        return heard(Intent.YES)

    first = table(bank, fifty_fifty_then_power_cut)
    with pytest.raises(Crash):
        first.play()
    joker_said = [key for key, _ in first.said].index("fifty_fifty")
    left = [text for key, text in first.said[joker_said:] if key == "option"]
    assert len(left) == 2

    resumed = Table(Quizmaster(Session.from_json(first.states[-1]), bank, "de"), always_right).play()
    first_turn = resumed.said[: [key for key, _ in resumed.said].index("your_answer")]
    options = [text for key, text in first_turn if key == "option"]
    assert options == left  # the two options the 50:50 left, as read after it; not the four of the question
    assert resumed.events("game_over")[0]["totals"] == {"Anna": 1_000_000}


def test_players_vote_as_the_audience_and_a_partner_takes_the_call(bank: Bank) -> None:
    def team(table: Table, listen: Listen, last_key: str) -> Observation:
        current = table.quizmaster.game.round
        seat = current.seat(listen.player or "") if current else None
        if last_key in ("who_to_call", "who_helps"):
            return heard(Intent.NAME, "Ben")
        if listen.context.name is ContextName.ANSWER and current and current.level == 2 and seat:
            for joker in ("audience", "phone"):
                if joker not in seat.jokers_used and current.to_act == "Anna" == listen.player:
                    return heard(Intent.JOKER, joker)
        return always_right(table, listen, last_key)

    settings = GameSettings(
        variant("classic"),
        ("Anna", "Ben"),
        rounds=1,
        seed=11,
        audience_form=AudienceForm.PLAYERS,
        phone_form=PhoneForm.PARTNER,
    )
    played = Table(Quizmaster(Session(new_game(settings)), bank, "de"), team).play()
    keys = [key for key, _ in played.said]
    assert "your_vote" in keys and "audience_votes" in keys
    assert "partner_said" in keys
    assert played.events("game_over")[0]["winners"] == ["Anna", "Ben"]


def test_in_show_mode_one_candidate_a_round_answers_and_the_others_are_the_audience(bank: Bank) -> None:
    answered_by: dict[int, set[str | None]] = {}

    def candidates(table: Table, listen: Listen, last_key: str) -> Observation:
        game = table.quizmaster.game
        current = game.round
        assert current is not None
        if listen.context.name is ContextName.ANSWER and last_key != "your_vote":
            answered_by.setdefault(current.number, set()).add(listen.player)
            seat = current.seat(listen.player or "")
            if current.number == 1 and current.level == 1 and seat and "audience" not in seat.jokers_used:
                return heard(Intent.JOKER, "audience")
        if last_key == "play_on" and current.number == 1 and current.level == 3:
            return heard(Intent.NO)  # Anna stops before question 3 and keeps 100 €
        return always_right(table, listen, last_key)

    settings = GameSettings(
        variant("classic"), ("Anna", "Ben"), rounds=2, seed=11, mode=Mode.SHOW, audience_form=AudienceForm.PLAYERS
    )
    played = Table(Quizmaster(Session(new_game(settings)), bank, "de"), candidates).play()
    assert answered_by == {1: {"Anna"}, 2: {"Ben"}}
    said = dict(played.said)
    assert said["your_vote"].startswith("Ben")  # Anna's audience is the other player
    assert played.events("game_over") == [{"totals": {"Anna": 100, "Ben": 1_000_000}, "winners": ["Ben"]}]


def test_a_player_misheard_three_times_is_offered_the_options_one_by_one(bank: Bank) -> None:
    def mumbles(table: Table, listen: Listen, last_key: str) -> Observation:
        current = table.quizmaster.game.round
        if listen.context.name is ContextName.ANSWER and current and current.level == 1:
            return heard(Intent.UNKNOWN)
        return always_right(table, listen, last_key)

    played = table(bank, mumbles).play()
    keys = [key for key, _ in played.said]
    scan = keys.index("scan_intro")
    assert keys[scan - 6 : scan].count("your_answer_again") == 2
    # The scan ends at the right option; it still has to be confirmed as the final answer.
    assert keys[keys.index("final_answer", scan) - 1] == "scan_option"
    assert played.events("locked")[0]["option"] == played.events("question")[0]["correct"]


def test_final_answer_may_be_skipped_on_the_lowest_levels_when_configured(bank: Bank) -> None:
    settings = GameSettings(variant("classic"), ("Anna",), rounds=1, seed=11)
    quick = Quizmaster(Session(new_game(settings)), bank, "de", confirm_from_level=4)
    played = Table(quick, always_right).play()
    asked_at = [
        level for (key, _), level in zip(played.said, _levels_when_said(played), strict=True) if key == "final_answer"
    ]
    assert asked_at[:3] == [4, 5, 6] and 1 not in asked_at
    assert [r["level"] for r in played.events("result")][:3] == [1, 2, 3]  # answered, locked and right all the same
    default = Table(Quizmaster(Session(new_game(settings)), bank, "de"), always_right).play()
    assert sum(key == "final_answer" for key, _ in default.said) == 15


def _levels_when_said(table: Table) -> list[int]:
    """The level announced last before each line (0 before the first question)."""
    level, levels = 0, []
    for key, _ in table.said:
        if key == "question_intro":
            level += 1
        levels.append(level)
    return levels


def test_an_unclear_reply_to_final_answer_is_not_thanked_as_a_no(bank: Bank) -> None:
    """ "Das habe ich nicht sicher verstanden." is not followed by "Gut, ..." as if a no had been heard."""
    replies = iter([heard(Intent.ANSWER, "B"), heard(Intent.UNKNOWN), heard(Intent.ANSWER, "B"), heard(Intent.NO)])

    def unclear_then_no(table: Table, listen: Listen, last_key: str) -> Observation:
        return next(replies, None) or always_right(table, listen, last_key)

    said = [text for _, text in table(bank, unclear_then_no).play().said]
    unclear = said.index("Das habe ich nicht sicher verstanden.")
    assert said[unclear + 1] == "Dann logge ich noch nichts ein."
    assert said[said.index("Gut, dann noch nicht eingeloggt.") - 1].endswith("?")  # after the no, the question asked


def test_one_player_is_addressed_as_one_and_told_what_is_at_stake(bank: Bank) -> None:
    def leaves_before_three(table: Table, listen: Listen, last_key: str) -> Observation:
        current = table.quizmaster.game.round
        if last_key == "another_round" or (last_key == "play_on" and current is not None and current.level == 3):
            return heard(Intent.NO)
        return always_right(table, listen, last_key)

    settings = GameSettings(variant("classic"), ("Anna",), seed=11)
    played = Table(Quizmaster(Session(new_game(settings)), bank, "de"), leaves_before_three).play()
    said = dict(played.said)
    assert said["welcome"] == "Willkommen bei Wer wird Millionär! Heute spielt Anna."
    assert said["another_round"] == "Willst du noch eine Runde spielen?"
    # Below the first safety level nothing is safe: stopping keeps 100 €, a wrong answer pays nothing.
    offer = [text for key, text in played.said if key == "play_on"][-1]
    assert "sicher" not in offer.replace("nichts sicher", "") and "hundert Euro" in offer and "nichts" in offer
