"""Rette die Million by voice: scripted teams speak text, understood by the real intent matcher; every line rendered."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from voicemaster.dialogue.meaning import ContextName, Heard
from voicemaster.dialogue.turns import Effect, Elapsed, Listen, Observation, ReadTimer, Record, Say, Silence, StartTimer
from voicemaster.host.lines import load as load_lines
from voicemaster.host.moneydrop.host import MoneyDropHost
from voicemaster.host.moneydrop.placement import Placement, in_bundles
from voicemaster.host.saved import DropSession
from voicemaster.play.runner import drive
from voicemaster.questions.selection import Bank
from voicemaster.rules import moneydrop as md
from voicemaster.rules.letters import Letter
from voicemaster.speech.hearing import phrases
from voicemaster.speech.hearing.intents import understand

Script = Callable[["Studio", Listen, str], str]
"""What the team says (text, "" for silence), given the key of the quizmaster's last line."""


class PowerCut(Exception):
    pass


@dataclass
class Studio:
    """A money drop with a scripted team. Session time: a line takes a second, an utterance two, silence eight."""

    host: MoneyDropHost
    script: Script
    said: list[tuple[str, str]] = field(default_factory=list)
    records: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    states: list[str] = field(default_factory=list)
    now: float = 0.0
    timer: float = 0.0
    cut_after_states: int | None = None

    @property
    def last_key(self) -> str:
        return self.said[-1][0] if self.said else ""

    def perform(self, effect: Effect) -> Observation | None:
        lines = load_lines(self.host.language)
        match effect:
            case Say(key) as said:
                self.said.append((key, lines.text(said)))
                self.now += 1.0
            case Listen() as listen:
                text = self.script(self, listen, self.last_key)
                if not text:
                    self.now += listen.timeout_seconds
                    return Silence()
                self.now += 2.0
                meant = understand(text, listen.context, phrases.load(self.host.language))
                return Heard(meant.intent, meant.value, text, meant.score)
            case StartTimer():
                self.timer = self.now
            case ReadTimer():
                return Elapsed(self.now - self.timer)
            case Record(event, data, state):
                if state is not None:
                    self.states.append(state)
                    if self.cut_after_states is not None and len(self.states) >= self.cut_after_states:
                        raise PowerCut
                else:
                    self.records.append((event, dict(data)))
        return None

    def play(self) -> Studio:
        drive(self.host.run(), self.perform)
        return self

    def events(self, name: str) -> list[dict[str, Any]]:
        return [data for event, data in self.records if event == name]

    def lines(self, key: str) -> list[str]:
        return [text for k, text in self.said if k == key]

    def correct(self) -> Letter:
        current = self.host.game.run
        assert current is not None and current.card is not None
        return current.card.correct


def studio(bank: Bank, script: Script, *, teams: tuple[str, ...] = ("Rot",), limit: int | None = None) -> Studio:
    settings = md.MoneyDropSettings(teams=teams, time_limit_seconds=limit)
    return Studio(MoneyDropHost(DropSession(md.MoneyDropGame(settings)), bank, "de", seed=5), script)


def knows_everything(studio: Studio, listen: Listen, last_key: str) -> str:
    """Takes the first category, puts everything on the right answer, and says yes to the read-back."""
    if listen.context.name is ContextName.ANSWER:
        return "die erste"
    if last_key == "md_confirm_placement":
        return "ja"
    if listen.context.name is ContextName.NUMBER:
        return f"alles auf {studio.correct().value}"
    return "ja"


def test_a_team_that_knows_everything_saves_the_million(bank: Bank) -> None:
    played = studio(bank, knows_everything).play()
    assert [q["question"] for q in played.events("question")] == list(range(1, 9))
    assert [r["money_left"] for r in played.events("result")] == [1_000_000] * 8
    assert played.events("game_over") == [{"totals": {"Rot": 1_000_000}, "winners": ["Rot"]}]
    assert played.lines("md_question_intro")[0] in (
        "Frage eins, ihr habt noch eine Million Euro.",
        "Frage eins. Es geht um eine Million Euro.",
    )
    assert played.lines("md_run_over") == ["Rot, ihr habt eine Million Euro gerettet."]
    categories = [q["category"] for q in played.events("question")]
    assert len(set(categories)) > 1
    # The options are read before the question, as on the show.
    first_card = [key for key, _ in played.said].index("md_options_intro")
    assert [key for key, _ in played.said][first_card + 1 : first_card + 6] == ["option"] * 4 + ["question"]


def test_placement_in_any_order_and_unit_is_read_back_and_locked_only_on_yes(bank: Bank) -> None:
    replies: list[str] = []

    def team(studio: Studio, listen: Listen, last_key: str) -> str:
        current = studio.host.game.run
        assert current is not None
        if listen.context.name is ContextName.ANSWER:
            return "die zweite"
        if current.question == 1 and listen.context.name in (ContextName.NUMBER, ContextName.CONFIRM):
            right = studio.correct().value
            wrong = next(letter.value for letter in Letter.first(4) if letter.value != right)
            script = [
                f"den Rest auf {right} und 250.000 Euro auf {wrong}",  # euros, the rest named first
                "nein",  # not locked: placed again from scratch
                f"zehn auf {wrong}, den Rest auf {right}",
                "vielleicht",  # unclear: not locked either, but read back again
                "ja",
            ]
            reply = script[len(replies)]
            replies.append(reply)
            return reply
        return knows_everything(studio, listen, last_key)

    played = studio(bank, team).play()
    placements = played.events("placement")
    assert list(placements[0]["placement"].values()).count(10) == 1  # 250 000 € are ten bundles
    assert played.events("locked")[0]["placement"] == placements[1]["placement"]
    assert sorted(played.events("locked")[0]["placement"].values()) == [0, 0, 10, 30]
    assert played.events("result")[0]["money_left"] == 750_000
    assert "Auf " in played.lines("md_readback")[0] and "zehn Bündel, zweihundertfünfzigtausend Euro" in " ".join(
        played.lines("md_readback")
    )
    assert played.lines("md_not_locked") == ["Dann liegt noch nichts fest."]
    assert played.lines("md_drop")[0].endswith(": zweihundertfünfzigtausend Euro.")  # the money lost, said


def test_one_option_is_corrected_and_the_rest_follows(bank: Bank) -> None:
    def team(studio: Studio, listen: Listen, last_key: str) -> str:
        current = studio.host.game.run
        assert current is not None
        if current.question == 1 and listen.context.name in (ContextName.NUMBER, ContextName.CONFIRM):
            right = studio.correct().value
            wrong = "A" if right != "A" else "B"
            if last_key != "md_confirm_placement":
                return f"zehn auf {wrong}, den Rest auf {right}"
            if len(studio.events("placement")) == 1:
                return f"doch fünfzehn auf {wrong}"
            return "ja"
        return knows_everything(studio, listen, last_key)

    played = studio(bank, team).play()
    first, second = (p["placement"] for p in played.events("placement")[:2])
    assert sorted(first.values()) == [0, 0, 10, 30]
    assert sorted(second.values()) == [0, 0, 15, 25]  # the rest moved with the correction
    assert played.events("locked")[0]["placement"] == second


@pytest.mark.parametrize(
    ("said", "explained"),
    [
        ("zehn auf A", "Es fehlen noch dreißig Bündel, siebenhundertfünfzigtausend Euro."),
        ("fünfzig auf A", "Das wären fünfzig Bündel, ihr habt aber nur vierzig."),
        ("zehn auf A, zehn auf B, zehn auf C, den Rest auf D", "Eine Antwort muss leer bleiben."),
        ("310.000 Euro auf A und den Rest auf B", "Es gehen nur ganze Bündel zu je fünfundzwanzigtausend Euro."),
    ],
)
def test_illegal_placements_are_explained_and_asked_again(bank: Bank, said: str, explained: str) -> None:
    tried: list[str] = []

    def team(studio: Studio, listen: Listen, last_key: str) -> str:
        if listen.context.name is ContextName.NUMBER and not tried:
            tried.append(said)
            return said
        return knows_everything(studio, listen, last_key)

    played = studio(bank, team).play()
    assert any(text.startswith(explained) for _, text in played.said)
    assert len(played.events("placement")) == 8  # an illegal placement is never read back as if it stood
    assert played.events("game_over")[0]["totals"] == {"Rot": 1_000_000}  # nothing was lost to the mistake


def test_the_last_question_takes_one_option_only(bank: Bank) -> None:
    def team(studio: Studio, listen: Listen, last_key: str) -> str:
        current = studio.host.game.run
        assert current is not None
        if current.question == 8 and listen.context.name is ContextName.NUMBER and not studio.lines("md_split_last"):
            return "zwanzig auf A und den Rest auf B"
        return knows_everything(studio, listen, last_key)

    played = studio(bank, team).play()
    assert played.lines("md_split_last") == ["In der letzten Frage kommt alles Geld auf eine einzige Antwort."]
    assert played.events("game_over")[0]["totals"] == {"Rot": 1_000_000}


def test_the_category_joker_works_once_per_run(bank: Bank) -> None:
    def team(studio: Studio, listen: Listen, last_key: str) -> str:
        asked_for = len(studio.lines("md_switched")) + len(studio.lines("md_switch_used"))
        if listen.context.name is ContextName.NUMBER and last_key == "md_place" and asked_for < 2:
            return "Kategorie wechseln"
        return knows_everything(studio, listen, last_key)

    played = studio(bank, team).play()
    assert len(played.lines("md_switched")) == 1
    assert played.lines("md_switch_used") == ["Den Kategoriejoker habt ihr schon benutzt."]
    questions = played.events("question")
    assert questions[0]["question"] == questions[1]["question"] == 1  # the other category's card, same question
    assert questions[0]["category"] != questions[1]["category"]


def test_the_category_joker_heard_is_said_back_and_only_a_yes_spends_it(bank: Bank) -> None:
    """A word to someone else can sound like "Kategorie wechseln": the joker is named back and a no keeps it."""

    def team(studio: Studio, listen: Listen, last_key: str) -> str:
        if last_key == "md_confirm_switch":
            return "ja" if studio.lines("md_switch_kept") else "nein"
        if listen.context.name is ContextName.NUMBER and not studio.lines("md_switched"):
            return "Kategorie wechseln"
        return knows_everything(studio, listen, last_key)

    played = studio(bank, team).play()
    first, other = (event["category"] for event in played.events("question")[:2])
    assert (
        played.lines("md_confirm_switch")
        == [f"Ihr nehmt den Kategoriejoker und spielt die Frage aus {other}. Richtig?"] * 2
    )
    assert played.lines("md_switch_kept") == ["Gut, der Kategoriejoker bleibt bei euch."]
    assert len(played.lines("md_switched")) == 1 and first != other
    assert played.events("game_over")[0]["totals"] == {"Rot": 1_000_000}


def test_with_a_time_limit_the_team_is_warned_and_money_not_placed_is_lost(bank: Bank) -> None:
    def team(studio: Studio, listen: Listen, last_key: str) -> str:
        current = studio.host.game.run
        assert current is not None
        if current.question == 1 and listen.context.name in (ContextName.NUMBER, ContextName.CONFIRM):
            # Ten bundles on the right answer, then nothing more: the other thirty are lost when time is up.
            return f"zehn auf {studio.correct().value}" if last_key == "md_time_start" else ""
        return knows_everything(studio, listen, last_key)

    played = studio(bank, team, limit=60).play()
    assert played.lines("md_time_start")[0] == "Ihr habt sechzig Sekunden."
    assert played.lines("md_time_left")[:2] == ["Noch dreißig Sekunden!", "Noch zehn Sekunden!"]
    assert played.lines("md_time_up")[0] == "Die Zeit ist um!"
    assert played.lines("md_lost_to_time")[0] == "Nicht gesetzt und verloren: siebenhundertfünfzigtausend Euro."
    assert played.events("result")[0]["money_left"] == 250_000


def test_teams_play_in_turn_and_are_ranked(bank: Bank) -> None:
    def team(studio: Studio, listen: Listen, last_key: str) -> str:
        current = studio.host.game.run
        assert current is not None
        betting = listen.context.name is ContextName.NUMBER and last_key != "md_confirm_placement"
        if current.team == "Blau" and current.question == 3 and betting:
            wrong = next(letter for letter in Letter.first(4) if letter != studio.correct())
            return f"alles auf {wrong.value}"
        return knows_everything(studio, listen, last_key)

    played = studio(bank, team, teams=("Rot", "Blau")).play()
    assert played.events("game_over") == [{"totals": {"Rot": 1_000_000, "Blau": 0}, "winners": ["Rot"]}]
    assert played.lines("md_ranking_lost") == ["Platz zwei: Blau, bis Frage drei gekommen."]
    assert played.lines("md_all_lost") == ["Das ganze Geld ist weg."]
    asked = [q["question_id"] for q in played.events("question")]
    assert len(asked) == len(set(asked))  # no card twice in one game


def test_a_run_cut_by_a_power_failure_resumes_on_the_same_card(bank: Bank) -> None:
    cut = studio(bank, knows_everything)
    cut.cut_after_states = 12
    with pytest.raises(PowerCut):
        cut.play()
    stored = DropSession.from_json(cut.states[-1])
    resumed = Studio(MoneyDropHost(stored, bank, "de", seed=5), knows_everything).play()
    assert resumed.said[0][1] == "Weiter geht's, genau da, wo wir aufgehört haben."
    assert resumed.events("game_over") == [{"totals": {"Rot": 1_000_000}, "winners": ["Rot"]}]
    before = {q["question"] for q in cut.events("question")}
    after = [q["question"] for q in resumed.events("question")]
    assert after and min(after) >= max(before)  # nothing played twice


def test_placements_are_counted_in_bundles() -> None:
    said = Placement.parse("A=500000€,D=rest")
    assert in_bundles(said, 4, 40, 25_000) == (20, 0, 0, 20)
    assert in_bundles(said.corrected(Placement.parse("A=15")), 4, 40, 25_000) == (15, 0, 0, 25)
    assert in_bundles(said.corrected(Placement.parse("B=all")), 4, 40, 25_000) == (0, 40, 0, 0)


def test_after_three_placements_not_understood_the_options_are_offered_one_by_one(bank: Bank) -> None:
    def team(studio: Studio, listen: Listen, last_key: str) -> str:
        current = studio.host.game.run
        assert current is not None
        if current.question == 1 and listen.context.name is ContextName.NUMBER and last_key != "md_confirm_placement":
            return "äh schmilf auf die und so"
        if last_key == "md_scan_option":
            return "ja" if studio.said[-1][1].startswith(f"Alles auf {studio.correct().value},") else "nein"
        return knows_everything(studio, listen, last_key)

    played = studio(bank, team).play()
    assert len(played.lines("md_scan_intro")) == 1
    assert played.events("locked")[0]["placement"][played.events("question")[0]["correct"]] == 40
    assert played.events("game_over")[0]["totals"] == {"Rot": 1_000_000}
