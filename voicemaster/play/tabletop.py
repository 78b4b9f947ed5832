"""A game played by the rules engine alone, narrated in the terminal: the demo until the quizmaster speaks.

The players are the seeded policy of `rules.simulate`; nothing is heard or said. A trace for developers, in English
whatever `--lang` (no question is asked: the engine knows levels, letters and amounts, not the bank's words).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from voicemaster.rules import GameSettings, apply, events, new_game
from voicemaster.rules import moneydrop as md
from voicemaster.rules.simulate import next_action, next_money_drop_action
from voicemaster.rules.state import Termination


def play_millionaire(settings: GameSettings, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    game = new_game(settings)
    currency = settings.variant.ladder.currency
    yield f"{settings.variant.name}: {', '.join(settings.players)}, seed {seed}"
    while game.outcome is None:
        action = next_action(game, rng)
        game, happened = apply(game, action)
        for event in happened:
            yield describe(event, currency)


def play_money_drop(settings: md.MoneyDropSettings, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    game = md.MoneyDropGame(settings)
    yield f"Rette die Million: {', '.join(settings.teams)}, seed {seed}"
    while not game.over:
        game, happened = md.apply_money_drop(game, next_money_drop_action(game, rng))
        for event in happened:
            yield describe_drop(event, settings)


def money(amount: int, currency: str) -> str:
    return f"{amount:,} {currency}"


ENDINGS = {
    Termination.TOP_PRIZE: "the top prize won",
    Termination.ROUNDS_PLAYED: "every round played",
    Termination.STOPPED: "stopped by the players",
}
"""Why a game ended, as the trace says it."""


def describe(event: events.Event, currency: str) -> str:
    m: Callable[[int], str] = lambda amount: money(amount, currency)  # noqa: E731
    match event:
        case events.RoundStarted(number, candidates):
            return f"\nRound {number}: {', '.join(candidates)} play."
        case events.PlayerJoined(player, number):
            return f"\n{player} joins, from round {number}."
        case events.QuestionAsked(level, amount, order):
            return f"  Question {level} for {m(amount)}; turns: {', '.join(order)}"
        case events.WalkedAway(player, amount):
            return f"    {player} walks away with {m(amount)}."
        case events.FiftyFiftyUsed(player, removed, remaining):
            return f"    {player} takes 50:50: {' and '.join(removed)} go, {' and '.join(remaining)} remain."
        case events.AudienceVoted(player, tally):
            return f"    {player} asks the players: " + ", ".join(f"{k} {n}" for k, n in tally)
        case events.AudiencePolled(player, percentages):
            return f"    {player} asks the audience: " + ", ".join(f"{k} {p}%" for k, p in percentages)
        case events.SecondChanceGranted(player, joker, tries):
            return f"    {player} takes the {joker} joker as a second chance: {tries} tries."
        case events.PhoneCallStarted(player, seconds):
            return f"    {player} phones a friend: {seconds} seconds."
        case events.PartnerAnswered(player, partner, letter):
            return f"    {player} asks {partner}: {partner} says {letter}."
        case events.ExtraJokerUsed(player, helper, letter):
            return f"    {player} takes the extra joker: " + (f"{helper} says {letter}." if helper else "no helper.")
        case events.AnswerGiven(player, letter):
            return f"    {player}: {letter}. Final answer?"
        case events.AnswerWithdrawn(player, _):
            return f"    {player}: no, not yet."
        case events.AnswerLocked(player, letter):
            return f"    {player} locks in {letter}."
        case events.AnswerTakenBack(player, letter):
            return f"    {player} takes {letter} back."
        case events.TryFailed(player, letter, tries):
            return f"    {letter} is wrong; {player} has {tries} more."
        case events.Revealed(correct):
            return f"  The right answer is {correct}."
        case events.AnsweredCorrectly(player, _, amount):
            return f"    {player} is right and has {m(amount)}."
        case events.AnsweredWrongly(player, letter, payout):
            return f"    {player} said {letter}, wrong, and leaves with {m(payout)}."
        case events.TopPrizeWon(player, amount):
            return f"    {player} wins {m(amount)}!"
        case events.HelperRewarded(helper, amount):
            return f"    {helper} earns {m(amount)} for helping."
        case events.RoundEnded(result):
            return "  Round over: " + ", ".join(f"{r.player} {m(r.total)}" for r in result.results)
        case events.GameEnded(outcome):
            totals = ", ".join(f"{p} {m(t)}" for p, t in outcome.totals)
            return f"\nGame over ({ENDINGS[outcome.termination]}): {totals}. Winner: {' and '.join(outcome.winners)}."
    raise AssertionError(event)  # pragma: no cover


def describe_drop(event: md.MoneyDropEvent, settings: md.MoneyDropSettings) -> str:
    m: Callable[[int], str] = lambda bundles: money(bundles * settings.bundle_value, settings.currency)  # noqa: E731
    match event:
        case md.RunStarted(team, bundles):
            return f"\n{team} starts with {m(bundles)}."
        case md.CategoriesOffered(question, categories, bundles):
            return f"  Question {question}, {m(bundles)} left: {categories[0]} or {categories[1]}?"
        case md.CategoryChosen(category, options):
            return f"    {category}, {options} options."
        case md.CategorySwitched(category):
            return f"    Joker: the team switches to {category}."
        case md.PlacementLocked(bundles):
            return "    Placed: " + ", ".join(f"{'ABCD'[i]} {b}" for i, b in enumerate(bundles))
        case md.MoneyLostToTime(bundles):
            return f"    Time is up: {m(bundles)} not placed is lost."
        case md.OptionDropped(letter, bundles):
            return f"    {letter} drops, {m(bundles)} lost." if bundles else f"    {letter} drops, empty."
        case md.QuestionSurvived(correct, bundles):
            return f"    {correct} was right: {m(bundles)} saved."
        case md.TeamJoined(team):
            return f"\n{team} joins, and plays last."
        case md.RunEnded(result):
            return f"  {result.team} saves {m(result.saved // settings.bundle_value)} (question {result.reached})."
        case md.MoneyDropOver(ranking):
            return "\nRanking: " + "; ".join(f"{place}. {r.team}" for place, r in ranking)
    raise AssertionError(event)  # pragma: no cover
