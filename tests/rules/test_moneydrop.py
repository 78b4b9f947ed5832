"""'Rette die Million' (docs/rules.md, "Rette die Million"): placements legal and illegal, the joker, the time limit,
the ranking."""

from __future__ import annotations

import pytest

from voicemaster.rules import Letter, errors
from voicemaster.rules.moneydrop import (
    AddTeam,
    Card,
    CategoryChosen,
    ChooseCategory,
    LockPlacement,
    MoneyDropAction,
    MoneyDropEvent,
    MoneyDropGame,
    MoneyDropOver,
    MoneyDropSettings,
    MoneyLostToTime,
    OfferCategories,
    OptionDropped,
    QuestionSurvived,
    RevealDrop,
    RunEnded,
    RunResult,
    RunStarted,
    StartRun,
    SwitchCategory,
    TeamJoined,
    apply_money_drop,
    may_join,
)

COUNTS = (4, 4, 4, 4, 3, 3, 3, 2)


def drop(game: MoneyDropGame, *actions: MoneyDropAction) -> tuple[MoneyDropGame, list[MoneyDropEvent]]:
    happened: list[MoneyDropEvent] = []
    for action in actions:
        game, step = apply_money_drop(game, action)
        happened.extend(step)
    return game, happened


def offer(question: int, correct: Letter = Letter.A, other: Letter = Letter.B) -> OfferCategories:
    n = COUNTS[question - 1]
    return OfferCategories((Card(f"c{question}", "Sport", n, correct), Card(f"d{question}", "Musik", n, other)))


def at_question(question: int, **settings: object) -> MoneyDropGame:
    """A run that put all its money on the right option (A) in every question before `question`."""
    game = drop(MoneyDropGame(MoneyDropSettings(**settings)), StartRun())[0]  # type: ignore[arg-type]
    for q in range(1, question):
        all_on_a = (40,) + (0,) * (COUNTS[q - 1] - 1)
        game, _ = drop(game, offer(q), ChooseCategory(0), LockPlacement(all_on_a), RevealDrop())
    return drop(game, offer(question), ChooseCategory(0))[0]


def test_a_split_loses_the_money_on_wrong_options() -> None:
    game, happened = drop(at_question(1), LockPlacement((30, 10, 0, 0)), RevealDrop())
    assert OptionDropped(Letter.B, 10) in happened
    assert QuestionSurvived(Letter.A, 30) in happened
    assert game.run is not None and game.run.bundles == 30 and game.run.question == 2


@pytest.mark.parametrize(
    ("placement", "error"),
    [
        ((41, 0, 0, 0), errors.TooManyBundles),
        ((39, 0, 0, 0), errors.NotAllBundlesPlaced),
        ((10, 10, 10, 10), errors.NoEmptyOption),
        ((40, -1, 1, 0), errors.NegativeBundles),
        ((40, 0, 0), errors.WrongOptionCount),
    ],
)
def test_illegal_placements_are_refused_and_change_nothing(
    placement: tuple[int, ...], error: type[errors.IllegalPlacement]
) -> None:
    game = at_question(1)
    with pytest.raises(error):
        drop(game, LockPlacement(placement))
    assert game == at_question(1)


@pytest.mark.parametrize("placement", [(40, 0, 0, 0), (1, 0, 0, 39), (13, 13, 14, 0), (0, 20, 20, 0)])
def test_legal_placements_with_four_options(placement: tuple[int, ...]) -> None:
    _, happened = drop(at_question(1), LockPlacement(placement), RevealDrop())
    survived = next(e for e in happened if isinstance(e, QuestionSurvived))
    assert survived.bundles == placement[0]


def test_three_options_from_question_five_and_one_empty() -> None:
    game = at_question(5)
    with pytest.raises(errors.NoEmptyOption):
        drop(game, LockPlacement((20, 10, 10)))
    with pytest.raises(errors.WrongOptionCount):
        drop(game, LockPlacement((20, 20, 0, 0)))
    _, happened = drop(game, LockPlacement((20, 20, 0)), RevealDrop())
    assert QuestionSurvived(Letter.A, 20) in happened


def test_the_last_question_takes_all_money_on_one_option() -> None:
    game = at_question(8)
    with pytest.raises(errors.SplitInLastQuestion):
        drop(game, LockPlacement((20, 20)))
    game, happened = drop(game, LockPlacement((40, 0)), RevealDrop())
    assert RunEnded(RunResult("Team", saved=1_000_000, reached=8, money_then=1_000_000)) in happened
    assert game.over


def test_losing_everything_ends_the_run() -> None:
    game, happened = drop(at_question(3), LockPlacement((0, 40, 0, 0)), RevealDrop())
    assert RunEnded(RunResult("Team", saved=0, reached=3, money_then=1_000_000)) in happened
    with pytest.raises(errors.GameOver):
        drop(game, StartRun())


def test_the_category_joker_once_per_run() -> None:
    game, happened = drop(at_question(1), SwitchCategory())
    assert game.run is not None and game.run.card is not None and game.run.card.category == "Musik"
    # The other card's right answer counts now: B.
    game, happened = drop(game, LockPlacement((0, 40, 0, 0)), RevealDrop(), offer(2), ChooseCategory(1))
    assert QuestionSurvived(Letter.B, 40) in happened
    with pytest.raises(errors.CategoryJokerUsed):
        drop(game, SwitchCategory())


def test_time_up_loses_the_money_not_placed() -> None:
    game = at_question(1, time_limit_seconds=60)
    game, happened = drop(game, LockPlacement((25, 5, 0, 0), time_up=True))
    assert MoneyLostToTime(10) in happened
    _, happened = drop(game, RevealDrop())
    assert QuestionSurvived(Letter.A, 25) in happened
    with pytest.raises(errors.NoEmptyOption):
        drop(at_question(1), LockPlacement((1, 1, 1, 1), time_up=True))


def test_actions_out_of_order_are_refused() -> None:
    game = drop(MoneyDropGame(MoneyDropSettings()), StartRun())[0]
    with pytest.raises(errors.WrongMoment):
        drop(game, LockPlacement((40, 0, 0, 0)))
    with pytest.raises(errors.WrongMoment):
        drop(game, offer(5))  # cards with three options in question 1
    with pytest.raises(errors.WrongMoment):
        drop(game, StartRun())
    with pytest.raises(errors.WrongMoment):
        drop(game, offer(1), ChooseCategory(2))
    game, happened = drop(game, offer(1), ChooseCategory(1))
    assert happened[-1] == CategoryChosen("Musik", 4)
    with pytest.raises(errors.WrongMoment):
        drop(game, RevealDrop())
    with pytest.raises(errors.RunOver):
        drop(MoneyDropGame(MoneyDropSettings()), RevealDrop())


def test_ranking_across_teams() -> None:
    game = MoneyDropGame(MoneyDropSettings(teams=("Rot", "Blau", "Gelb", "Grün")))
    plans = {  # team: (question where all money goes on a wrong option, or None to finish with 40)
        "Rot": 3,
        "Blau": None,
        "Gelb": 3,
        "Grün": 6,
    }
    for team, lose_at in plans.items():
        game, _ = drop(game, StartRun())
        for q in range(1, 9):
            n = COUNTS[q - 1]
            placement = (0, 40) + (0,) * (n - 2) if q == lose_at else (40,) + (0,) * (n - 1)
            game, happened = drop(game, offer(q), ChooseCategory(0), LockPlacement(placement), RevealDrop())
            if game.run is None:
                break
        assert any(isinstance(e, RunEnded) and e.result.team == team for e in happened)
    over = next(e for e in happened if isinstance(e, MoneyDropOver))
    assert [(place, r.team) for place, r in over.ranking] == [
        (1, "Blau"),
        (2, "Grün"),
        (3, "Rot"),
        (3, "Gelb"),
    ]


def _lose_everything(game: MoneyDropGame) -> MoneyDropGame:
    """The run under way puts all on a wrong option at its question and is over."""
    assert game.run is not None
    question = game.run.question
    all_on_b = (0, 40) + (0,) * (COUNTS[question - 1] - 2)
    return drop(game, offer(question), ChooseCategory(0), LockPlacement(all_on_b), RevealDrop())[0]


def test_a_team_joins_between_runs_and_plays_after_the_others() -> None:
    """Teams play their runs one after another (docs/decisions/046): a team that arrived late joins before the next
    run, never during one, with a name not taken, and the game is over only once its run is played."""
    game = _lose_everything(drop(MoneyDropGame(MoneyDropSettings(teams=("Rot", "Gelb"))), StartRun())[0])
    assert may_join(game)
    game, happened = drop(game, AddTeam("Blau"))
    assert happened == [TeamJoined("Blau")] and game.settings.teams == ("Rot", "Gelb", "Blau")
    for team in ("Gelb", "Blau"):
        game, started = drop(game, StartRun())
        assert started[0] == RunStarted(team, 40) and not may_join(game)
        with pytest.raises(errors.JoinBetweenRounds):
            drop(game, AddTeam("Grün"))  # during a run: nothing changed
        game = _lose_everything(game)
    assert game.over and [result.team for result in game.results] == ["Rot", "Gelb", "Blau"]
    assert not may_join(game)


def test_a_team_name_taken_or_a_seventh_team_is_refused() -> None:
    teams = ("A", "B", "C", "D", "E")
    game = _lose_everything(drop(MoneyDropGame(MoneyDropSettings(teams=teams)), StartRun())[0])
    with pytest.raises(errors.InvalidSetup):
        drop(game, AddTeam("b"))
    game, _ = drop(game, AddTeam("F"))
    assert not may_join(game)
    with pytest.raises(errors.InvalidSetup):
        drop(game, AddTeam("G"))
