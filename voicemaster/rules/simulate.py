"""Simulated players: a seeded policy that always picks a legal action. Used by the benchmark, the rules-only demo
and the property tests; the quizmaster's demo uses the same policy to decide what its simulated players say.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from voicemaster.rules.actions import (
    Action,
    AskAudience,
    AskQuestion,
    ConfirmAnswer,
    GiveAnswer,
    PhoneAFriend,
    Reveal,
    StartRound,
    UseExtraJoker,
    UseFiftyFifty,
    WalkAway,
)
from voicemaster.rules.ladders import LEVELS
from voicemaster.rules.letters import Letter
from voicemaster.rules.millionaire import apply
from voicemaster.rules.moneydrop import (
    Card,
    ChooseCategory,
    LockPlacement,
    MoneyDropAction,
    MoneyDropGame,
    OfferCategories,
    Phase,
    RevealDrop,
    StartRun,
    SwitchCategory,
    apply_money_drop,
)
from voicemaster.rules.state import OPTIONS, Game, Round, Seat
from voicemaster.rules.variants import AudienceForm, Joker, PhoneForm


@dataclass(frozen=True)
class Policy:
    know_first: float = 0.97
    """Chance to know the answer on level 1; it falls linearly to `know_last` on level 15."""
    know_last: float = 0.3
    joker_rate: float = 0.2
    walk_away_rate: float = 0.08
    """Chance to walk away before a question, when unsure (scaled up with the level)."""
    doubt_rate: float = 0.1
    """Chance to say no to "Is that your final answer?"."""

    def knows(self, level: int, rng: random.Random) -> bool:
        share = (level - 1) / (LEVELS - 1)
        return rng.random() < self.know_first + (self.know_last - self.know_first) * share


def next_action(game: Game, rng: random.Random, policy: Policy = Policy()) -> Action:
    """A legal action for the game as it stands (the game must not be over)."""
    current = game.round
    if current is None:
        return StartRound()
    if current.question is None:
        walker = _walker(current, rng, policy)
        if walker is not None:
            return WalkAway(walker)
        return AskQuestion(f"sim-{current.number}-{current.level}", rng.choice(OPTIONS))
    player = current.to_act
    if player is None:
        return Reveal()
    seat = current.seat(player)
    assert seat is not None
    if seat.answer is not None:
        return ConfirmAnswer(player, final=rng.random() >= policy.doubt_rate)
    unused = [j for j in game.settings.variant.jokers if j not in seat.jokers_used]
    if unused and rng.random() < policy.joker_rate:
        return _joker(game, seat, rng.choice(unused), rng)
    if rng.random() < policy.walk_away_rate / 4:
        return WalkAway(player)
    correct = current.question.correct
    knows = policy.knows(current.level, rng) and correct in seat.available
    return GiveAnswer(player, correct if knows else rng.choice(seat.available))


def _walker(current: Round, rng: random.Random, policy: Policy) -> str | None:
    if current.level == 1:
        return None
    for seat in current.seats:
        if seat.playing and rng.random() < policy.walk_away_rate * current.level / LEVELS:
            return seat.player
    return None


def _joker(game: Game, seat: Seat, joker: Joker, rng: random.Random) -> Action:
    settings = game.settings
    others = [p for p in settings.players if p != seat.player]
    if joker is Joker.FIFTY_FIFTY:
        return UseFiftyFifty(seat.player)
    if joker is Joker.AUDIENCE:
        if settings.audience_form is AudienceForm.PLAYERS:
            return AskAudience(seat.player, tuple((voter, rng.choice(OPTIONS)) for voter in others))
        return AskAudience(seat.player)
    if joker is Joker.PHONE:
        if settings.phone_form is PhoneForm.PARTNER:
            return PhoneAFriend(seat.player, rng.choice(others), rng.choice(OPTIONS))
        return PhoneAFriend(seat.player)
    if others and rng.random() < 0.8:
        return UseExtraJoker(seat.player, rng.choice(others), rng.choice(OPTIONS))
    return UseExtraJoker(seat.player)


def play_out(game: Game, rng: random.Random, policy: Policy = Policy()) -> tuple[Game, int]:
    """Play until the game is over; returns the final game and the number of actions taken."""
    steps = 0
    while game.outcome is None:
        game, _ = apply(game, next_action(game, rng, policy))
        steps += 1
    return game, steps


def next_money_drop_action(game: MoneyDropGame, rng: random.Random) -> MoneyDropAction:
    """A legal action for a money-drop game that is not over: a team that knows some answers and hedges others."""
    run = game.run
    if run is None:
        return StartRun()
    options = game.settings.option_counts[run.question - 1]
    if run.phase is Phase.CATEGORIES:
        cards = tuple(
            Card(f"sim-{run.question}-{i}", f"Category {i}", options, rng.choice(Letter.first(options))) for i in (0, 1)
        )
        return OfferCategories((cards[0], cards[1]))
    if run.phase is Phase.CHOOSING:
        return ChooseCategory(rng.randrange(2))
    if run.phase is Phase.PLACING:
        if not run.joker_used and rng.random() < 0.1:
            return SwitchCategory()
        return LockPlacement(_placement(run.bundles, options, run.question == game.settings.questions, rng))
    return RevealDrop()


def _placement(bundles: int, options: int, last: bool, rng: random.Random) -> tuple[int, ...]:
    """All bundles on up to options - 1 options (one option in the last question)."""
    spread = 1 if last else rng.randint(1, options - 1)
    chosen = rng.sample(range(options), spread)
    amounts = [0] * options
    for _ in range(bundles):
        amounts[rng.choice(chosen)] += 1
    return tuple(amounts)


def play_out_money_drop(game: MoneyDropGame, rng: random.Random) -> tuple[MoneyDropGame, int]:
    steps = 0
    while not game.over:
        game, _ = apply_money_drop(game, next_money_drop_action(game, rng))
        steps += 1
    return game, steps
