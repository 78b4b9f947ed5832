"""Taking a locked answer back before the reveal ("Ja ... nein, warte!"): the answer is open again, nothing was
revealed or paid, and the player answers again; where a lock is judged at once, or after the reveal, it cannot be."""

from __future__ import annotations

import pytest

from tests.rules.helpers import RIGHT, WRONG, answer, ask, at_question, play
from voicemaster.rules import AskAudience, GameSettings, Reveal, StartRound, TakeBack, errors, events, new_game, variant
from voicemaster.rules.variants import AudienceForm


def test_a_lock_taken_back_is_open_again_and_the_next_answer_counts() -> None:
    game, _ = play(at_question(3), *answer("Anna", WRONG))
    assert game.round is not None and game.round.to_act is None  # locked: the reveal would come next
    game, happened = play(game, TakeBack("Anna"))
    assert happened == [events.AnswerTakenBack("Anna", WRONG)]
    assert game.round is not None and game.round.to_act == "Anna" and game.totals() == {"Anna": 0}
    with pytest.raises(errors.NotEveryoneDecided):
        play(game, Reveal())
    game, happened = play(game, *answer("Anna", RIGHT), Reveal())
    assert events.AnsweredCorrectly("Anna", 3, 200) in happened


def test_only_a_locked_answer_can_be_taken_back_and_only_before_the_reveal() -> None:
    with pytest.raises(errors.NoAnswerToTakeBack):
        play(at_question(2), TakeBack("Anna"))
    revealed, _ = play(at_question(2), *answer("Anna", RIGHT), Reveal())
    with pytest.raises(errors.WrongMoment):  # the next question is not asked yet
        play(revealed, TakeBack("Anna"))


def test_a_lock_judged_at_once_cannot_be_taken_back() -> None:
    game, _ = play(at_question(6, audience_form=AudienceForm.SECOND_CHANCE), AskAudience("Anna"))
    game, _ = play(game, *answer("Anna", RIGHT))
    with pytest.raises(errors.WrongMoment):
        play(game, TakeBack("Anna"))


def test_with_two_players_the_one_who_takes_back_is_on_turn_again() -> None:
    game, _ = play(new_game(GameSettings(variant("classic"), ("Anna", "Ben"))), StartRound(), ask(1))
    assert game.round is not None
    first = game.round.to_act
    assert first is not None
    game, _ = play(game, *answer(first, RIGHT))
    game, _ = play(game, TakeBack(first))
    assert game.round is not None and game.round.to_act == first
