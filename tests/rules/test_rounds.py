"""Several players and rounds (docs/rules.md, "One question" and "Several players and rounds")."""

from __future__ import annotations

import pytest

from voicemaster.rules import (
    Game,
    GameSettings,
    Letter,
    Mode,
    Reveal,
    StartRound,
    StopGame,
    Termination,
    WalkAway,
    errors,
    events,
    new_game,
    variant,
)

from .helpers import RIGHT, WRONG, answer, ask, everyone_answers, play

NAMES = ("Anna", "Ben", "Cem", "Dana", "Emil", "Fatma")


def started(count: int, **settings: object) -> Game:
    game = new_game(GameSettings(variant("classic"), NAMES[:count], **settings))  # type: ignore[arg-type]
    return play(game, StartRound(), ask(1))[0]


@pytest.mark.parametrize("count", [2, 3, 6])
def test_everyone_answers_every_question_and_reveals_together(count: int) -> None:
    game = started(count)
    assert game.round is not None
    order = game.round.turn_order
    assert sorted(order) == sorted(NAMES[:count])
    # Nothing is revealed while anyone is still deciding.
    game, _ = play(game, *answer(order[0], RIGHT))
    with pytest.raises(errors.NotEveryoneDecided):
        play(game, Reveal())
    letters = {p: RIGHT if i % 2 == 0 else WRONG for i, p in enumerate(NAMES[:count])}
    game, _ = play(game, *[a for p in order[1:] for a in answer(p, letters[p])])
    game, happened = play(game, Reveal())
    assert happened[0] == events.Revealed(RIGHT)
    right = {e.player for e in happened if isinstance(e, events.AnsweredCorrectly)}
    wrong = {e.player for e in happened if isinstance(e, events.AnsweredWrongly)}
    assert right == {p for p, letter in letters.items() if letter == RIGHT}
    assert wrong == set(NAMES[:count]) - right


@pytest.mark.parametrize("count", [2, 3, 6])
def test_the_order_of_turns_rotates_each_question(count: int) -> None:
    game = started(count)
    firsts = []
    for level in range(1, count + 1):
        assert game.round is not None
        firsts.append(game.round.turn_order[0])
        game, _ = everyone_answers(game, dict.fromkeys(NAMES[:count], RIGHT))
        game, _ = play(game, ask(level + 1))
    assert sorted(firsts) == sorted(NAMES[:count])


def test_answering_out_of_turn_is_refused() -> None:
    game = started(3)
    assert game.round is not None
    second = game.round.turn_order[1]
    with pytest.raises(errors.NotYourTurn):
        play(game, *answer(second, RIGHT))


def test_walk_away_before_a_question_while_others_go_on() -> None:
    game = started(3)
    game, _ = everyone_answers(game, dict.fromkeys(NAMES[:3], RIGHT))
    game, happened = play(game, WalkAway("Ben"), ask(2))
    assert happened[0] == events.WalkedAway("Ben", 50)
    assert game.round is not None
    assert "Ben" not in game.round.turn_order
    with pytest.raises(errors.PlayerNotInRound):
        play(game, *answer("Ben", RIGHT))


def test_the_round_ends_when_nobody_is_left_and_totals_add_up_across_rounds() -> None:
    game = started(2, rounds=2)
    game, _ = everyone_answers(game, {"Anna": RIGHT, "Ben": RIGHT})
    game, _ = play(game, ask(2))
    game, happened = everyone_answers(game, {"Anna": WRONG, "Ben": RIGHT})
    game, happened = play(game, WalkAway("Ben"))
    assert isinstance(happened[-1], events.RoundEnded)
    assert game.round is None and game.outcome is None
    game, _ = play(game, StartRound(), ask(1))
    game, _ = everyone_answers(game, {"Anna": RIGHT, "Ben": WRONG})
    game, happened = play(game, WalkAway("Anna"))
    assert game.outcome is not None
    assert game.outcome.termination is Termination.ROUNDS_PLAYED
    assert game.totals() == {"Anna": 50, "Ben": 100}
    assert dict(game.outcome.totals) == {"Anna": 50, "Ben": 100}
    assert game.outcome.winners == ("Ben",)


def test_ties_share_the_win() -> None:
    game = started(2, rounds=1)
    game, _ = everyone_answers(game, {"Anna": RIGHT, "Ben": RIGHT})
    game, _ = play(game, WalkAway("Anna"), WalkAway("Ben"))
    assert game.outcome is not None
    assert game.outcome.winners == ("Anna", "Ben")


def test_the_top_prize_ends_the_game_for_everyone() -> None:
    game = started(2)
    for level in range(1, 16):
        letters = {"Anna": RIGHT, "Ben": RIGHT if level < 12 else WRONG}
        game, happened = everyone_answers(game, letters)
        if level < 15:
            game, _ = play(game, ask(level + 1))
    assert events.TopPrizeWon("Anna", 1_000_000) in happened
    assert game.outcome is not None
    assert game.outcome.termination is Termination.TOP_PRIZE
    assert game.totals() == {"Anna": 1_000_000, "Ben": 16_000}
    with pytest.raises(errors.GameOver):
        play(game, StartRound())


def test_stopping_mid_question_sends_everyone_home_with_what_they_had() -> None:
    game = started(2)
    game, _ = everyone_answers(game, {"Anna": RIGHT, "Ben": RIGHT})
    game, _ = play(game, ask(2))
    assert game.round is not None
    game, _ = play(game, *answer(game.round.turn_order[0], WRONG))
    game, _ = play(game, StopGame())
    assert game.outcome is not None and game.outcome.termination is Termination.STOPPED
    assert game.totals() == {"Anna": 50, "Ben": 50}


def test_show_mode_has_one_candidate_per_round_and_the_others_help() -> None:
    from voicemaster.rules import AskAudience, AudienceForm

    game = new_game(
        GameSettings(variant("classic"), ("Anna", "Ben", "Cem"), mode=Mode.SHOW, audience_form=AudienceForm.PLAYERS)
    )
    game, happened = play(game, StartRound(), ask(1))
    assert happened[0] == events.RoundStarted(1, ("Anna",))
    with pytest.raises(errors.PlayerNotInRound):
        play(game, *answer("Ben", RIGHT))
    game, happened = play(game, AskAudience("Anna", (("Ben", Letter.A), ("Cem", RIGHT))))
    assert isinstance(happened[0], events.AudienceVoted)
    game, _ = play(game, *answer("Anna", WRONG), Reveal())
    _, happened = play(game, StartRound())
    assert happened[0] == events.RoundStarted(2, ("Ben",))


def test_player_counts_outside_one_to_six_are_refused() -> None:
    with pytest.raises(errors.InvalidSetup):
        GameSettings(variant("classic"), ())
    with pytest.raises(errors.InvalidSetup):
        GameSettings(variant("classic"), (*NAMES, "Gustav"))
    with pytest.raises(errors.InvalidSetup):
        GameSettings(variant("classic"), ("Anna", "anna"))
