"""The board as the page reads it: one JSON object, everything the page shows and nothing it must not (the right
answer only once revealed)."""

from __future__ import annotations

from typing import Any

from voicemaster.host.saved import DropSession, Session
from voicemaster.rules.letters import Letter
from voicemaster.rules.state import Seat, SeatStatus
from voicemaster.screen.board import Board, BoardQuestion, read_by, said_by
from voicemaster.screen.hyphens import hyphenated


def view(board: Board, now: float, *, live: bool) -> dict[str, Any]:
    """`now`: the game time the view is for (a live game's clock goes on between steps; a demo's is its steps')."""
    session = board.session
    shown: dict[str, Any] = {
        "language": board.language,
        "live": live,
        "format": "moneydrop" if isinstance(session, DropSession) else "millionaire" if session else "",
        "said": hyphenated(said_by(board, now), board.language),
        "heard": None,
        "listening": board.listening,
        "timer": None,
        "audience": None,
        "question": None,
        "game_over": board.game_over,
    }
    if board.heard is not None:
        heard = board.heard
        shown["heard"] = {"player": heard.player, "text": heard.text, "intent": heard.intent, "value": heard.value}
    if board.timer is not None:
        seconds, started = board.timer
        shown["timer"] = {"seconds": seconds, "left": round(max(0.0, seconds - (now - started)), 1)}
    if board.audience is not None:
        unit, shares = board.audience
        shown["audience"] = {"unit": unit, "shares": [{"letter": letter, "n": n} for letter, n in shares]}
    if isinstance(session, Session):
        shown.update(_millionaire(board, session, now))
    elif isinstance(session, DropSession):
        shown.update(_money_drop(board, session, now))
    return shown


def _options(board: Board, question: BoardQuestion, hidden: tuple[str, ...], now: float) -> list[dict[str, Any]]:
    """The options read aloud so far (all of them once read), in letter order."""
    placed = dict(board.placement)
    read = read_by(board, now)
    options = []
    for letter, text in zip(Letter.first(len(question.options)), question.options, strict=True):
        if read is not None and letter.value not in read:
            continue
        options.append(
            {
                "letter": letter.value,
                "text": hyphenated(text, board.language),
                "removed": letter.value in hidden,
                "locked_by": [player for player, chosen in board.locked if chosen == letter.value],
                "bundles": placed.get(letter.value),
                "correct": (letter is question.correct) if board.revealed else None,
            }
        )
    return options


def _question(board: Board, hidden: tuple[str, ...], now: float) -> dict[str, Any] | None:
    question = board.question
    if question is None:
        return None
    return {
        "number": question.level,
        "amount": question.amount,
        "text": hyphenated(question.text, board.language),
        "category": hyphenated(question.category, board.language),
        "options": _options(board, question, hidden, now),
        "revealed": board.revealed,
        "results": [{"player": player, "correct": right} for player, right in board.results],
    }


def _millionaire(board: Board, session: Session, now: float) -> dict[str, Any]:
    game = session.game
    ladder = game.settings.variant.ladder
    current = game.round
    turn = current.to_act if current else None
    removed = dict(board.removed)
    # The options a 50:50 took from the player deciding; once nobody is deciding, all four are shown again.
    hidden = removed.get(turn, ()) if turn else ()
    between = current is None or current.over
    # A question nobody answered (all walked away from it) leaves with the round; a revealed one stays to be seen.
    shown = board.question if board.question and (board.revealed or not between) else None
    # The ladder marks the level played; once it is revealed, the next one (as the stored game has it), so a page
    # opened at any moment marks the same level as one open all along.
    level = shown.level if shown and not board.revealed else current.level if current and not between else 0
    safe = {safety.level for safety in ladder.safety_levels}
    totals = game.totals()
    players = []
    for player in game.settings.players:
        seat = current.seat(player) if current else None
        used = seat.jokers_used if seat else ()
        players.append(
            {
                "name": player,
                "total": totals[player],
                "holds": _holds(seat, ladder.walk_away_payout(current.level) if current else 0),
                "status": seat.status.value if seat else "waiting",
                "playing": bool(seat and seat.status is SeatStatus.PLAYING),
                "jokers_left": [joker.value for joker in game.settings.variant.jokers if joker not in used],
                "turn": player == turn,
            }
        )
    sheet = [
        {"round": line.number, "results": [{"player": r.player, "total": r.total} for r in line.results]}
        for line in game.sheet
    ]
    outcome = game.outcome
    return {
        "currency": ladder.currency,
        "round": current.number if current else len(game.sheet),
        "between_rounds": between,
        "turn": turn,
        "ladder": [
            {"level": n, "amount": ladder.amount(n), "safe": n in safe, "current": n == level}
            for n in range(len(ladder.amounts), 0, -1)
        ],
        "players": players,
        "question": _question(board, hidden, now) if shown else None,
        "sheet": sheet,
        "totals": totals,
        "winners": list(outcome.winners) if outcome else [],
    }


def _holds(seat: Seat | None, walking_away: int) -> int:
    """What the player holds in this round: what they would take home walking away now, or took home leaving it."""
    if seat is None:
        return 0
    if seat.payout is not None:
        return seat.payout
    return walking_away if seat.status is SeatStatus.PLAYING else 0


def _money_drop(board: Board, session: DropSession, now: float) -> dict[str, Any]:
    game = session.game
    settings = game.settings
    run = game.run
    results = {result.team: result.saved for result in game.results}
    teams = [
        {
            "name": team,
            "total": results.get(team, 0),
            "status": "playing" if run and run.team == team else "done" if team in results else "waiting",
            "playing": bool(run and run.team == team),
            "jokers_left": [] if run is None or run.team != team or run.joker_used else ["switch_category"],
            "turn": bool(run and run.team == team),
        }
        for team in settings.teams
    ]
    over = game.over
    winners = [result.team for place, result in game.ranking() if place == 1] if over else []
    return {
        "currency": settings.currency,
        "round": len(game.results) + (run is not None),
        "between_rounds": run is None,
        "turn": run.team if run else None,
        "money": {
            "bundles": run.bundles if run else 0,
            "bundle_value": settings.bundle_value,
            "placed_locked": board.placement_locked,
            "categories": [hyphenated(card.category, board.language) for card in run.offered]
            if run and run.chosen is None
            else [],
        },
        "players": teams,
        "question": _question(board, (), now),
        "sheet": [
            {"round": n + 1, "results": [{"player": r.team, "total": r.saved}]} for n, r in enumerate(game.results)
        ],
        "totals": results,
        "winners": winners,
    }
