"""Every illegal action raises a named ValueError and leaves the game untouched."""

from __future__ import annotations

import pytest

from voicemaster.rules import (
    AskQuestion,
    AudienceForm,
    ConfirmAnswer,
    GameSettings,
    GiveAnswer,
    Letter,
    PhoneForm,
    Reveal,
    StartRound,
    UseFiftyFifty,
    WalkAway,
    errors,
    new_game,
    variant,
)

from .helpers import RIGHT, WRONG, answer, ask, at_question, play, solo


def test_answering_twice() -> None:
    game = play(at_question(3), *answer("Anna", RIGHT))[0]
    with pytest.raises(errors.AnswerAlreadyLocked) as raised:
        play(game, GiveAnswer("Anna", WRONG))
    assert "cannot change" in str(raised.value)
    with pytest.raises(errors.AnswerAlreadyLocked):
        play(game, WalkAway("Anna"))


def test_a_joker_already_used() -> None:
    game = play(at_question(3), UseFiftyFifty("Anna"))[0]
    with pytest.raises(errors.JokerAlreadyUsed) as raised:
        play(game, UseFiftyFifty("Anna"))
    assert "already used" in str(raised.value)


def test_acting_for_a_player_who_is_out() -> None:
    game = new_game(GameSettings(variant("classic"), ("Anna", "Ben")))
    game, _ = play(game, StartRound(), ask(1), *answer("Anna", WRONG), *answer("Ben", RIGHT), Reveal(), ask(2))
    with pytest.raises(errors.PlayerNotInRound):
        play(game, GiveAnswer("Anna", RIGHT))


def test_acting_after_the_round_ended() -> None:
    game = play(at_question(2, rounds=2), WalkAway("Anna"))[0]
    for action in (GiveAnswer("Anna", RIGHT), Reveal(), AskQuestion("q", RIGHT), WalkAway("Anna")):
        with pytest.raises(errors.RoundOver):
            play(game, action)


def test_unknown_players_and_wrong_moments() -> None:
    game = solo()
    with pytest.raises(errors.UnknownPlayer):
        play(game, WalkAway("Zoe"))
    with pytest.raises(errors.WrongMoment):
        play(game, UseFiftyFifty("Anna"))
    with pytest.raises(errors.WrongMoment):
        play(game, StartRound())
    asked = play(game, ask(1))[0]
    with pytest.raises(errors.WrongMoment):
        play(asked, ask(1))
    with pytest.raises(errors.NoAnswerToConfirm):
        play(asked, ConfirmAnswer("Anna", final=True))


def test_saying_no_returns_to_answering() -> None:
    game, _ = play(at_question(2), GiveAnswer("Anna", WRONG), ConfirmAnswer("Anna", final=False))
    assert game.round is not None and game.round.seat("Anna") is not None
    with pytest.raises(errors.NotEveryoneDecided):
        play(game, Reveal())
    game, _ = play(game, *answer("Anna", RIGHT), Reveal())
    assert game.round is not None and game.round.level == 3


def test_joker_forms_that_need_more_people_are_refused_at_set_up() -> None:
    with pytest.raises(errors.InvalidSetup):
        GameSettings(variant("classic"), ("Anna",), audience_form=AudienceForm.PLAYERS)
    with pytest.raises(errors.InvalidSetup):
        GameSettings(variant("classic"), ("Anna",), phone_form=PhoneForm.PARTNER)
    with pytest.raises(errors.InvalidSetup):
        GameSettings(variant("classic"), ("Anna", "Ben"), audience_form=AudienceForm.SECOND_CHANCE)


def test_every_error_is_a_value_error_with_a_readable_message() -> None:
    game = at_question(2)
    with pytest.raises(ValueError, match=r"\w+ \w+"):
        play(
            game,
            GiveAnswer("Anna", Letter.D),
            ConfirmAnswer("Anna", final=True),
            GiveAnswer("Anna", Letter.A),
        )
