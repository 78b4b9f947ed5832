"""The phone partner at the table (docs/rules.md, "Jokers", the `partner` form): the partner has the call's 30 seconds
to say
their letter, and why; the quizmaster reads it back and adds none of its own, since everyone hears the partner."""

from __future__ import annotations

import re

import pytest

from voicemaster.dialogue.meaning import ContextName, Intent
from voicemaster.dialogue.turns import Listen, Observation, Silence
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.saved import Session
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, new_game, variant
from voicemaster.rules.variants import PhoneForm

from .test_millionaire import Script, Table, always_right, heard

READ_OPTIONS = ("question", "option")
"""The lines that read the question and its options, the right one among them, as they always do."""


def partner_game(bank: Bank, language: str, partner: Script) -> Table:
    """Anna and Ben; Anna phones Ben on the first question, then answers right; `partner` is Ben during the call."""

    def script(table: Table, listen: Listen, last_key: str) -> Observation:
        keys = [key for key, _ in table.said]
        if listen.player == "Anna" and listen.context.name is ContextName.ANSWER and "who_to_call" not in keys:
            return heard(Intent.JOKER, "phone")
        call = keys[keys.index("who_to_call") :] if "who_to_call" in keys else []
        if listen.player == "Ben" and call and not {"partner_said", "joker_given_back"} & set(call):
            return partner(table, listen, last_key)
        return always_right(table, listen, last_key)

    settings = GameSettings(variant("jumbo-2002"), ("Anna", "Ben"), rounds=1, seed=11, phone_form=PhoneForm.PARTNER)
    return Table(Quizmaster(Session(new_game(settings)), bank, language), script).play()


def wrong_letter(table: Table) -> str:
    return next(letter for letter in "ABCD" if letter != table.correct())


def until_anna_answers(table: Table) -> list[tuple[str, str]]:
    """The lines said from the call until Anna gives her answer (the quizmaster then reads back her letter)."""
    keys = [key for key, _ in table.said]
    call = keys.index("who_to_call")
    return table.said[call : keys.index("final_answer", call)]


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_the_partner_thinks_aloud_says_a_wrong_letter_and_the_right_one_is_never_said(
    bank: Bank, language: str
) -> None:
    said_by_ben: list[str] = []

    def thinks_then_wrong(table: Table, _listen: Listen, _last_key: str) -> Observation:
        if not said_by_ben:
            said_by_ben.append("")
            return heard(Intent.UNKNOWN)  # "Hmm, das war doch ... nein, warte"
        said_by_ben.append(wrong_letter(table))
        return heard(Intent.ANSWER, said_by_ben[-1])

    played = partner_game(bank, language, thinks_then_wrong)
    right = played.events("question")[0]["correct"]
    options = played.events("question")[0]["options"]
    right_text = options["ABCD".index(right)]
    call = until_anna_answers(played)
    keys = [key for key, _ in call]
    assert keys[:2] == ["who_to_call", "partner_call"]
    assert "not_understood" not in keys  # the partner thinking aloud is not interrupted
    ben = said_by_ben[-1]
    assert re.search(rf"^Ben\b.*\b{ben}\b", dict(call)["partner_said"]) and ben != right
    for key, text in call:
        if key not in READ_OPTIONS:
            assert not re.search(rf"\b{right}\b", text) and right_text not in text, text
    assert played.events("locked")[0] == {"player": "Anna", "option": right}  # and Anna decides


def test_a_partner_who_says_the_right_letter_is_read_back_with_it(bank: Bank) -> None:
    played = partner_game(bank, "de", lambda table, _listen, _key: heard(Intent.ANSWER, table.correct()))
    right = played.events("question")[0]["correct"]
    assert dict(played.said)["partner_said"].startswith(f"Ben meint: {right},")


def test_a_silent_partner_hears_the_time_run_out_and_is_asked_for_the_letter(bank: Bank) -> None:
    def silent_through_the_call(table: Table, _listen: Listen, last_key: str) -> Observation:
        return (
            Silence() if last_key in ("partner_call", "phone_ten_left") else heard(Intent.ANSWER, wrong_letter(table))
        )

    played = partner_game(bank, "de", silent_through_the_call)
    keys = [key for key, _ in until_anna_answers(played)]
    assert keys[:6] == ["who_to_call", "partner_call", "phone_ten_left", "phone_over", "partner_letter", "partner_said"]


def test_a_partner_never_understood_gives_the_joker_back(bank: Bank) -> None:
    played = partner_game(bank, "de", lambda _table, _listen, _key: heard(Intent.UNKNOWN))
    keys = [key for key, _ in played.said]
    assert "joker_given_back" in keys and "partner_said" not in keys
    assert [e for e in played.events("joker") if e["joker"] == "phone"] == []


def test_a_partner_call_is_heard_in_the_answer_context_of_the_player(bank: Bank) -> None:
    contexts: list[ContextName] = []

    def answers(table: Table, listen: Listen, _last_key: str) -> Observation:
        contexts.append(listen.context.name)
        return heard(Intent.ANSWER, wrong_letter(table))

    partner_game(bank, "de", answers)
    assert contexts == [ContextName.ANSWER]
