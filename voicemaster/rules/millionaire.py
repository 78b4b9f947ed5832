"""Transitions of a Millionaire game (docs/rules.md, "One question" to "Several players and rounds"): `apply(game,
action)` returns the new game and its events.

Every check happens before anything changes, so an illegal action raises and leaves the game as it was.
"""

from __future__ import annotations

import random
from dataclasses import replace

from voicemaster.rules import errors, jokers
from voicemaster.rules.actions import (
    Action,
    AddPlayer,
    AskAudience,
    AskQuestion,
    ConfirmAnswer,
    GiveAnswer,
    PhoneAFriend,
    Reveal,
    StartRound,
    StopGame,
    TakeBack,
    UseExtraJoker,
    UseFiftyFifty,
    WalkAway,
)
from voicemaster.rules.events import (
    AnsweredCorrectly,
    AnsweredWrongly,
    AnswerGiven,
    AnswerLocked,
    AnswerTakenBack,
    AnswerWithdrawn,
    AudiencePolled,
    AudienceVoted,
    Event,
    ExtraJokerUsed,
    FiftyFiftyUsed,
    GameEnded,
    HelperRewarded,
    PartnerAnswered,
    PhoneCallStarted,
    PlayerJoined,
    QuestionAsked,
    Revealed,
    RoundEnded,
    RoundStarted,
    SecondChanceGranted,
    TopPrizeWon,
    TryFailed,
    WalkedAway,
)
from voicemaster.rules.ladders import LEVELS
from voicemaster.rules.letters import Letter
from voicemaster.rules.state import (
    OPTIONS,
    Game,
    GameOutcome,
    GameSettings,
    Helper,
    PlayerResult,
    Question,
    Reward,
    Round,
    RoundResult,
    Seat,
    SeatStatus,
    Termination,
)
from voicemaster.rules.variants import AudienceForm, Joker, PhoneForm

Step = tuple[Game, tuple[Event, ...]]


def new_game(settings: GameSettings) -> Game:
    return Game(settings)


def apply(game: Game, action: Action) -> Step:
    """Carry out one action. Raises a subclass of `errors.IllegalAction` if the rules forbid it."""
    if game.outcome is not None:
        raise errors.GameOver()
    match action:
        case StartRound():
            return _start_round(game)
        case StopGame():
            return _stop(game)
        case AddPlayer(player):
            return _add_player(game, player)
    current = _current_round(game)
    match action:
        case AskQuestion(question_id, correct):
            return _ask(game, current, question_id, correct)
        case Reveal():
            return _reveal(game, current)
        case WalkAway(player):
            return _walk_away(game, current, player)
        case GiveAnswer(player, letter):
            seat = _deciding_seat(game, current, player)
            if letter not in seat.available:
                raise errors.OptionNotAvailable(player, letter)
            return _with_seat(game, current, replace(seat, answer=letter)), (AnswerGiven(player, letter),)
        case ConfirmAnswer(player, final):
            return _confirm(game, current, _deciding_seat(game, current, player), final)
        case TakeBack(player):
            return _take_back(game, current, _playing_seat(game, current, player))
        case UseFiftyFifty(player) | AskAudience(player) | PhoneAFriend(player) | UseExtraJoker(player):
            return _use_joker(game, current, action)
    raise AssertionError(f"unhandled action {action!r}")  # pragma: no cover - the match above is exhaustive


# Rounds


def _current_round(game: Game) -> Round:
    if game.round is None:
        raise errors.RoundOver()
    return game.round


def _start_round(game: Game) -> Step:
    if game.round is not None:
        raise errors.WrongMoment("A round is still being played.")
    number = len(game.sheet) + 1
    candidates = game.settings.candidates(number)
    new_round = Round(number=number, level=1, seats=tuple(Seat(player) for player in candidates))
    return replace(game, round=new_round), (RoundStarted(number, candidates),)


def may_join(game: Game) -> bool:
    """Whether a newcomer could join now: between rounds of a game not over, with room by `GameSettings`' checks
    (at most `MAX_PLAYERS`; second-chance jokers are for one player alone)."""
    if game.outcome is not None or game.round is not None:
        return False
    try:
        _joined(game, "+" * (1 + max(len(player) for player in game.settings.players)))  # a name nobody has
    except errors.InvalidSetup:
        return False
    return True


def _add_player(game: Game, player: str) -> Step:
    """The newcomer is checked as the players named before the game are (`GameSettings`: how many, a name not
    taken, what the joker forms need); the score sheet's earlier rounds hold nothing for them, so they count 0."""
    if game.round is not None:
        raise errors.JoinBetweenRounds(player)
    return replace(game, settings=_joined(game, player)), (PlayerJoined(player, len(game.sheet) + 1),)


def _joined(game: Game, player: str) -> GameSettings:
    return replace(game.settings, players=(*game.settings.players, player))


def _ask(game: Game, current: Round, question_id: str, correct: Letter) -> Step:
    if current.question is not None:
        raise errors.WrongMoment("The current question has not been revealed yet.")
    # The order of turns rotates each question, so nobody always answers first or last.
    seat_order = [seat.player for seat in current.seats]
    shift = (current.number - 1 + current.level - 1) % len(seat_order)
    rotated = seat_order[shift:] + seat_order[:shift]
    playing = tuple(p for p in rotated if _seat(current, p).playing)
    asked = replace(current, question=Question(question_id, correct), turn_order=playing)
    amount = game.settings.variant.ladder.amount(current.level)
    return replace(game, round=asked), (QuestionAsked(current.level, amount, playing),)


def _walk_away(game: Game, current: Round, player: str) -> Step:
    seat = _deciding_seat(game, current, player) if current.question else _playing_seat(game, current, player)
    amount = game.settings.variant.ladder.walk_away_payout(current.level)
    left = _leave(seat, SeatStatus.WALKED_AWAY, amount)
    return _after_change(game, _replace_seat(current, left), (WalkedAway(player, amount),))


def _stop(game: Game) -> Step:
    """End the game now: anyone still in a round takes home what they have, a locked answer unrevealed."""
    events: list[Event] = []
    if game.round is not None:
        current = game.round
        amount = game.settings.variant.ladder.walk_away_payout(current.level)
        for seat in current.seats:
            if seat.playing:
                current = _replace_seat(current, _leave(seat, SeatStatus.WALKED_AWAY, amount))
                events.append(WalkedAway(seat.player, amount))
        game, ended = _finish_round(game, current)
        events.extend(ended)
    if game.outcome is None:
        game, ended = _end_game(game, Termination.STOPPED)
        events.extend(ended)
    return game, tuple(events)


def _after_change(game: Game, current: Round, events: tuple[Event, ...]) -> Step:
    if not current.over:
        return replace(game, round=current), events
    game, ended = _finish_round(game, current)
    return game, events + ended


def _finish_round(game: Game, current: Round) -> Step:
    payouts = {seat.player: seat.payout or 0 for seat in current.seats}
    results = tuple(
        PlayerResult(
            player,
            payout=payouts.get(player, 0),
            bonus=sum(r.amount for r in current.rewards if r.player == player),
        )
        for player in game.settings.players
    )
    result = RoundResult(current.number, results)
    game = replace(game, sheet=(*game.sheet, result), round=None)
    events: tuple[Event, ...] = (RoundEnded(result),)
    if any(seat.status is SeatStatus.WON for seat in current.seats):
        game, ended = _end_game(game, Termination.TOP_PRIZE)
        return game, events + ended
    if game.settings.rounds is not None and len(game.sheet) >= game.settings.rounds:
        game, ended = _end_game(game, Termination.ROUNDS_PLAYED)
        return game, events + ended
    return game, events


def _end_game(game: Game, termination: Termination) -> Step:
    totals = game.totals()
    best = max(totals.values())
    outcome = GameOutcome(
        termination,
        totals=tuple(totals.items()),
        winners=tuple(player for player, total in totals.items() if total == best),
    )
    return replace(game, outcome=outcome), (GameEnded(outcome),)


# Answers


def _confirm(game: Game, current: Round, seat: Seat, final: bool) -> Step:
    if seat.answer is None:
        raise errors.NoAnswerToConfirm(seat.player)
    letter = seat.answer
    if not final:
        return _with_seat(game, current, replace(seat, answer=None)), (AnswerWithdrawn(seat.player, letter),)
    question = _question(current)
    if seat.judged_at_once and letter != question.correct and seat.tries_left > 1:
        tries_left = seat.tries_left - 1
        failed = replace(seat, answer=None, tries_left=tries_left, removed=(*seat.removed, letter))
        return _with_seat(game, current, failed), (TryFailed(seat.player, letter, tries_left),)
    locked = replace(seat, answer=None, locked=letter)
    return _with_seat(game, current, locked), (AnswerLocked(seat.player, letter),)


def _take_back(game: Game, current: Round, seat: Seat) -> Step:
    _question(current)
    if seat.locked is None:
        raise errors.NoAnswerToTakeBack(seat.player)
    if seat.judged_at_once:
        raise errors.WrongMoment("An answer judged at once cannot be taken back.")
    letter = seat.locked
    return _with_seat(game, current, replace(seat, locked=None)), (AnswerTakenBack(seat.player, letter),)


def _reveal(game: Game, current: Round) -> Step:
    question = _question(current)
    waiting = tuple(p for p in current.turn_order if (s := _seat(current, p)).playing and s.locked is None)
    if waiting:
        raise errors.NotEveryoneDecided(waiting)
    ladder = game.settings.variant.ladder
    level = current.level
    events: list[Event] = [Revealed(question.correct)]
    rewards = list(current.rewards)
    seats: list[Seat] = []
    for seat in current.seats:
        if not seat.playing:
            seats.append(seat)
            continue
        if seat.locked == question.correct:
            if level == LEVELS:
                seats.append(_leave(seat, SeatStatus.WON, ladder.top_prize))
                events.append(TopPrizeWon(seat.player, ladder.top_prize))
            else:
                seats.append(seat)
                events.append(AnsweredCorrectly(seat.player, level, ladder.amount(level)))
            if seat.helper is not None and seat.helper.letter == question.correct:
                reward = game.settings.variant.extra_joker_reward
                rewards.append(Reward(seat.helper.player, reward))
                events.append(HelperRewarded(seat.helper.player, reward))
        else:
            payout = ladder.wrong_answer_payout(level)
            seats.append(_leave(seat, SeatStatus.OUT, payout))
            events.append(AnsweredWrongly(seat.player, seat.locked or question.correct, payout))
    next_round = Round(
        number=current.number,
        level=level + 1,
        seats=tuple(_fresh_for_question(seat) for seat in seats),
        rewards=tuple(rewards),
    )
    return _after_change(game, next_round, tuple(events))


# Jokers


def _use_joker(game: Game, current: Round, action: UseFiftyFifty | AskAudience | PhoneAFriend | UseExtraJoker) -> Step:
    joker = _JOKER_OF[type(action)]
    seat = _deciding_seat(game, current, action.player)
    variant = game.settings.variant
    if joker not in variant.jokers:
        raise errors.JokerNotInVariant(joker, variant.name)
    if joker in seat.jokers_used:
        raise errors.JokerAlreadyUsed(seat.player, joker)
    correct = _question(current).correct
    rng = _rng(game, current, seat.player, joker)
    # Asking for help puts an unconfirmed answer aside: the player decides again afterwards.
    seat = replace(seat, jokers_used=(*seat.jokers_used, joker), answer=None)
    event: Event
    if isinstance(action, UseFiftyFifty):
        removed = jokers.fifty_fifty(seat.available, correct, rng)
        seat = replace(seat, removed=(*seat.removed, *removed))
        event = FiftyFiftyUsed(seat.player, removed, seat.available)
    elif isinstance(action, AskAudience):
        seat, event = _audience(game, current, seat, action.votes, rng)
    elif isinstance(action, PhoneAFriend):
        seat, event = _phone(game, seat, action.partner, action.partner_letter)
    else:
        helper, letter = action.helper, action.helper_letter
        if (helper is None) != (letter is None):
            raise errors.InvalidJokerInput("Name the helper together with the helper's answer, or neither.")
        if helper is not None and letter is not None:
            _check_other_player(game, seat.player, helper)
            seat = replace(seat, helper=Helper(helper, letter))
        event = ExtraJokerUsed(seat.player, helper, letter)
    return _with_seat(game, current, seat), (event,)


_JOKER_OF: dict[type, Joker] = {
    UseFiftyFifty: Joker.FIFTY_FIFTY,
    AskAudience: Joker.AUDIENCE,
    PhoneAFriend: Joker.PHONE,
    UseExtraJoker: Joker.EXTRA,
}


def _audience(
    game: Game, current: Round, seat: Seat, votes: tuple[tuple[str, Letter], ...], rng: random.Random
) -> tuple[Seat, Event]:
    form = game.settings.audience_form
    correct = _question(current).correct
    if form is AudienceForm.SECOND_CHANCE:
        return _second_chance(seat, game.settings.variant.audience_tries, Joker.AUDIENCE)
    if form is AudienceForm.SIMULATED:
        if votes:
            raise errors.InvalidJokerInput("A simulated audience takes no votes from the players.")
        percentages = jokers.simulated_audience(seat.available, correct, current.level, rng)
        return seat, AudiencePolled(seat.player, percentages)
    voters = sorted(voter for voter, _ in votes)
    expected = sorted(p for p in game.settings.players if p != seat.player)
    if voters != expected:
        raise errors.InvalidJokerInput("Every other player votes once: " + ", ".join(expected) + ".")
    tally = jokers.tally_in_random_order([*(letter for _, letter in votes), correct], rng)
    return seat, AudienceVoted(seat.player, tally)


def _phone(game: Game, seat: Seat, partner: str | None, letter: Letter | None) -> tuple[Seat, Event]:
    form = game.settings.phone_form
    if form is PhoneForm.SECOND_CHANCE:
        return _second_chance(seat, game.settings.variant.phone_tries, Joker.PHONE)
    if form is PhoneForm.CALL:
        if partner is not None or letter is not None:
            raise errors.InvalidJokerInput("A phone call takes no partner player.")
        return seat, PhoneCallStarted(seat.player, game.settings.variant.phone_call_seconds)
    if partner is None or letter is None:
        raise errors.InvalidJokerInput("Name the phone partner and the partner's answer.")
    _check_other_player(game, seat.player, partner)
    # The Jumbo sheet's quizmaster adds a card with the right letter to the partner's face-down card; in voice play
    # everyone hears the partner, so an added letter would be the answer: the partner's letter is all there is.
    return seat, PartnerAnswered(seat.player, partner, letter)


def _second_chance(seat: Seat, tries: int, joker: Joker) -> tuple[Seat, Event]:
    tries_left = seat.tries_left + tries - 1
    return replace(seat, tries_left=tries_left, judged_at_once=True), SecondChanceGranted(
        seat.player, joker, tries_left
    )


def _check_other_player(game: Game, player: str, other: str) -> None:
    if other not in game.settings.players:
        raise errors.UnknownPlayer(other)
    if other == player:
        raise errors.InvalidJokerInput(f"{player} cannot help themselves.")


def _rng(game: Game, current: Round, player: str, joker: Joker) -> random.Random:
    """Chance that is reproducible from the seed and the situation alone, so a resumed game replays identically."""
    return random.Random(f"{game.settings.seed}/{current.number}/{current.level}/{player}/{joker}")


# Seats


def _seat(current: Round, player: str) -> Seat:
    seat = current.seat(player)
    assert seat is not None, player
    return seat


def _playing_seat(game: Game, current: Round, player: str) -> Seat:
    if player not in game.settings.players:
        raise errors.UnknownPlayer(player)
    seat = current.seat(player)
    if seat is None or not seat.playing:
        raise errors.PlayerNotInRound(player)
    return seat


def _deciding_seat(game: Game, current: Round, player: str) -> Seat:
    """The seat of a player acting on the current question: still in, not locked, and on turn."""
    seat = _playing_seat(game, current, player)
    _question(current)
    if seat.locked is not None:
        raise errors.AnswerAlreadyLocked(player, seat.locked)
    expected = current.to_act
    if expected is not None and expected != player:
        raise errors.NotYourTurn(player, expected)
    return seat


def _question(current: Round) -> Question:
    if current.question is None:
        raise errors.WrongMoment("No question has been asked yet.")
    return current.question


def _leave(seat: Seat, status: SeatStatus, payout: int) -> Seat:
    return replace(seat, status=status, payout=payout, answer=None)


def _fresh_for_question(seat: Seat) -> Seat:
    return replace(seat, answer=None, locked=None, removed=(), tries_left=1, judged_at_once=False, helper=None)


def _replace_seat(current: Round, new: Seat) -> Round:
    return replace(current, seats=tuple(new if s.player == new.player else s for s in current.seats))


def _with_seat(game: Game, current: Round, new: Seat) -> Game:
    return replace(game, round=_replace_seat(current, new))


__all__ = ["OPTIONS", "Step", "apply", "may_join", "new_game"]
