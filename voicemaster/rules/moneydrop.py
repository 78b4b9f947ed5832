"""'Rette die Million' (docs/rules.md, "Rette die Million"): a team saves as much of 40 bundles of 25 000 EUR as it can
over 8 questions.

Same shape as the Millionaire engine: frozen state, actions in, `(state, events)` out, a named error for every
placement the rules forbid.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from voicemaster.rules import errors
from voicemaster.rules.letters import Letter

# Settings and state


@dataclass(frozen=True)
class MoneyDropSettings:
    teams: tuple[str, ...] = ("Team",)
    bundles: int = 40
    bundle_value: int = 25_000
    currency: str = "EUR"
    option_counts: tuple[int, ...] = (4, 4, 4, 4, 3, 3, 3, 2)
    """Options per question; the length is the number of questions in a run."""
    time_limit_seconds: int | None = None
    """Time to place the money (the sheet suggests 60); None for no limit."""

    def __post_init__(self) -> None:
        if not self.teams or len({t.casefold() for t in self.teams}) != len(self.teams):
            raise errors.InvalidSetup("Give every team a different name.")
        if self.bundles < 1 or self.bundle_value < 1:
            raise errors.InvalidSetup("A team needs money to start with.")
        if not self.option_counts or any(n not in (2, 3, 4) for n in self.option_counts):
            raise errors.InvalidSetup("Every question has 2, 3 or 4 options.")
        if self.time_limit_seconds is not None and self.time_limit_seconds < 1:
            raise errors.InvalidSetup("The time limit must be at least one second.")

    @property
    def questions(self) -> int:
        return len(self.option_counts)


@dataclass(frozen=True)
class Card:
    """A question card as the rules see it: its category, how many options, which is right."""

    id: str
    category: str
    options: int
    correct: Letter


class Phase(StrEnum):
    CATEGORIES = "categories"
    """Waiting for the quizmaster to offer two categories."""
    CHOOSING = "choosing"
    """The team picks one of the two categories."""
    PLACING = "placing"
    """The team has heard the question and places its money."""
    LOCKED = "locked"
    """The placement stands; the drop comes next."""
    OVER = "over"


@dataclass(frozen=True)
class RunResult:
    team: str
    saved: int
    """Money saved after the last question (0 if the team lost everything)."""
    reached: int
    """The last question the team played."""
    money_then: int
    """The money the team had when it started that question."""


@dataclass(frozen=True)
class Run:
    team: str
    question: int = 1
    bundles: int = 40
    phase: Phase = Phase.CATEGORIES
    offered: tuple[Card, ...] = ()
    chosen: int | None = None
    joker_used: bool = False
    placement: tuple[int, ...] = ()
    lost_to_time: int = 0

    @property
    def card(self) -> Card | None:
        return None if self.chosen is None else self.offered[self.chosen]


@dataclass(frozen=True)
class MoneyDropGame:
    settings: MoneyDropSettings
    results: tuple[RunResult, ...] = ()
    run: Run | None = None

    @property
    def over(self) -> bool:
        return self.run is None and len(self.results) == len(self.settings.teams)

    def ranking(self) -> tuple[tuple[int, RunResult], ...]:
        """(place, result), best first; equal results share a place."""
        ordered = sorted(self.results, key=_rank_key, reverse=True)
        places: list[tuple[int, RunResult]] = []
        for i, result in enumerate(ordered):
            tied = i > 0 and _rank_key(result) == _rank_key(ordered[i - 1])
            places.append((places[-1][0] if tied else i + 1, result))
        return tuple(places)


def _rank_key(result: RunResult) -> tuple[int, int, int]:
    """Money saved first; among teams that lost everything, the question reached, then the money they had then."""
    if result.saved:
        return (result.saved, 0, 0)
    return (0, result.reached, result.money_then)


# Actions


@dataclass(frozen=True)
class StartRun:
    pass


@dataclass(frozen=True)
class OfferCategories:
    cards: tuple[Card, Card]


@dataclass(frozen=True)
class ChooseCategory:
    index: int


@dataclass(frozen=True)
class SwitchCategory:
    """The joker: drop the question heard and play the other category's instead. Once per run."""


@dataclass(frozen=True)
class LockPlacement:
    bundles: tuple[int, ...]
    """Bundles per option, A first."""
    time_up: bool = False
    """The time limit ran out: what lies on the options stands, the rest is lost."""


@dataclass(frozen=True)
class RevealDrop:
    pass


@dataclass(frozen=True)
class AddTeam:
    """A team that arrived late, before the next run (docs/decisions/046): it plays its run after every team named
    before it. Teams play one after another, so no run is shared and nobody's money changes."""

    team: str


MoneyDropAction = StartRun | OfferCategories | ChooseCategory | SwitchCategory | LockPlacement | RevealDrop | AddTeam


# Events


@dataclass(frozen=True)
class RunStarted:
    team: str
    bundles: int


@dataclass(frozen=True)
class CategoriesOffered:
    question: int
    categories: tuple[str, str]
    bundles: int


@dataclass(frozen=True)
class CategoryChosen:
    category: str
    options: int


@dataclass(frozen=True)
class CategorySwitched:
    category: str


@dataclass(frozen=True)
class PlacementLocked:
    bundles: tuple[int, ...]


@dataclass(frozen=True)
class MoneyLostToTime:
    bundles: int


@dataclass(frozen=True)
class OptionDropped:
    letter: Letter
    bundles: int


@dataclass(frozen=True)
class QuestionSurvived:
    correct: Letter
    bundles: int


@dataclass(frozen=True)
class RunEnded:
    result: RunResult


@dataclass(frozen=True)
class TeamJoined:
    team: str


@dataclass(frozen=True)
class MoneyDropOver:
    ranking: tuple[tuple[int, RunResult], ...]


MoneyDropEvent = (
    RunStarted
    | CategoriesOffered
    | CategoryChosen
    | CategorySwitched
    | PlacementLocked
    | MoneyLostToTime
    | OptionDropped
    | QuestionSurvived
    | RunEnded
    | TeamJoined
    | MoneyDropOver
)
MoneyDropStep = tuple[MoneyDropGame, tuple[MoneyDropEvent, ...]]


# Transitions


def apply_money_drop(game: MoneyDropGame, action: MoneyDropAction) -> MoneyDropStep:
    """Carry out one action. Raises a subclass of `errors.IllegalAction` if the rules forbid it."""
    if game.over:
        raise errors.GameOver()
    if isinstance(action, StartRun):
        if game.run is not None:
            raise errors.WrongMoment("A run is still being played.")
        team = game.settings.teams[len(game.results)]
        fresh = Run(team, bundles=game.settings.bundles)
        return replace(game, run=fresh), (RunStarted(team, fresh.bundles),)
    if isinstance(action, AddTeam):
        if game.run is not None:
            raise errors.JoinBetweenRounds(action.team)
        return replace(game, settings=_joined(game, action.team)), (TeamJoined(action.team),)
    run = game.run
    if run is None:
        raise errors.RunOver()
    match action:
        case OfferCategories(cards):
            _expect(run, Phase.CATEGORIES, "Categories are offered before each question.")
            wanted = game.settings.option_counts[run.question - 1]
            if any(card.options != wanted or card.correct.position >= card.options for card in cards):
                raise errors.WrongMoment(f"Question {run.question} needs cards with {wanted} options.")
            offered = replace(run, offered=cards, phase=Phase.CHOOSING)
            names = (cards[0].category, cards[1].category)
            return replace(game, run=offered), (CategoriesOffered(run.question, names, run.bundles),)
        case ChooseCategory(index):
            _expect(run, Phase.CHOOSING, "There is no choice of categories right now.")
            if index not in (0, 1):
                raise errors.WrongMoment("Choose the first or the second category.")
            card = run.offered[index]
            chosen = replace(run, chosen=index, phase=Phase.PLACING)
            return replace(game, run=chosen), (CategoryChosen(card.category, card.options),)
        case SwitchCategory():
            _expect(run, Phase.PLACING, "The category joker is used after hearing a question.")
            if run.joker_used:
                raise errors.CategoryJokerUsed()
            index = 1 - (run.chosen or 0)
            switched = replace(run, chosen=index, joker_used=True)
            return replace(game, run=switched), (CategorySwitched(run.offered[index].category),)
        case LockPlacement(bundles, time_up):
            _expect(run, Phase.PLACING, "Money is placed after the question has been read.")
            check_placement(game.settings, run, bundles, complete=not time_up)
            lost = run.bundles - sum(bundles)
            locked = replace(run, placement=bundles, lost_to_time=lost, phase=Phase.LOCKED)
            events: tuple[MoneyDropEvent, ...] = (PlacementLocked(bundles),)
            return replace(game, run=locked), events + ((MoneyLostToTime(lost),) if lost else ())
        case RevealDrop():
            _expect(run, Phase.LOCKED, "The money has not been locked yet.")
            return _reveal(game, run)
    raise AssertionError(f"unhandled action {action!r}")  # pragma: no cover - the match above is exhaustive


MAX_TEAMS = 6
"""As many teams as a Millionaire game has players: the names asked at the start stop there too."""


def may_join(game: MoneyDropGame) -> bool:
    """Whether a new team could join now: between runs of a game not over, with fewer than `MAX_TEAMS`."""
    return not game.over and game.run is None and len(game.settings.teams) < MAX_TEAMS


def _joined(game: MoneyDropGame, team: str) -> MoneyDropSettings:
    """The settings with `team` last, checked as the teams named at the start are (a name not taken); at most
    `MAX_TEAMS`."""
    if len(game.settings.teams) >= MAX_TEAMS:
        raise errors.InvalidSetup(f"At most {MAX_TEAMS} teams play.")
    return replace(game.settings, teams=(*game.settings.teams, team))


def check_placement(settings: MoneyDropSettings, run: Run, bundles: tuple[int, ...], *, complete: bool) -> None:
    """Raise the error a team would hear for an illegal placement; `complete=False` allows money left unplaced."""
    card = run.card
    assert card is not None
    if len(bundles) != card.options:
        raise errors.WrongOptionCount(len(bundles), card.options)
    if any(b < 0 for b in bundles):
        raise errors.NegativeBundles()
    if sum(bundles) > run.bundles:
        raise errors.TooManyBundles(sum(bundles), run.bundles)
    if run.question == settings.questions and sum(1 for b in bundles if b) > 1:
        raise errors.SplitInLastQuestion()
    if all(bundles):
        raise errors.NoEmptyOption()
    if complete and sum(bundles) != run.bundles:
        raise errors.NotAllBundlesPlaced(sum(bundles), run.bundles)


def _reveal(game: MoneyDropGame, run: Run) -> MoneyDropStep:
    card = run.card
    assert card is not None
    settings = game.settings
    letters = Letter.first(card.options)
    events: list[MoneyDropEvent] = [
        OptionDropped(letter, run.placement[letter.position]) for letter in letters if letter != card.correct
    ]
    left = run.placement[card.correct.position]
    events.append(QuestionSurvived(card.correct, left))
    if left and run.question < settings.questions:
        next_question = Run(run.team, question=run.question + 1, bundles=left, joker_used=run.joker_used)
        return replace(game, run=next_question), tuple(events)
    result = RunResult(
        run.team,
        saved=left * settings.bundle_value,
        reached=run.question,
        money_then=run.bundles * settings.bundle_value,
    )
    game = replace(game, results=(*game.results, result), run=None)
    events.append(RunEnded(result))
    if game.over:
        events.append(MoneyDropOver(game.ranking()))
    return game, tuple(events)


def _expect(run: Run, phase: Phase, message: str) -> None:
    if run.phase is not phase:
        raise errors.WrongMoment(message)
