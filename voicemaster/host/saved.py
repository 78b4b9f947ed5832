"""A stored game read back: a Millionaire session or a money drop's, or `UnreadableGame` saying why not.

A store can hold a game it cannot give back (written by hand, cut off by a full disk, from a version that stored it
otherwise); it is named as such, so the store can be set aside instead of the program failing on it. A game that
reads back but stands on a question the bank no longer has, and that it did not keep the words of (stored by an
earlier version), cannot be finished: `unfinishable` names that question, so the players hear what changed.
"""

from __future__ import annotations

import json

from voicemaster.host.millionaire import Session
from voicemaster.host.moneydrop import DropSession
from voicemaster.questions.selection import Bank


class UnreadableGame(ValueError):
    def __init__(self, game_id: str, problem: str) -> None:
        super().__init__(f"the stored game {game_id} cannot be read: {problem}")
        self.game_id = game_id


def restore(game_id: str, state: str) -> Session | DropSession:
    try:
        data = json.loads(state)
        if not isinstance(data, dict):
            raise ValueError("expected a JSON object")
        if data.get("format") == "moneydrop":
            return DropSession.from_json(state)
        return Session.from_json(state)
    # A stored game is data: what a damaged one raises on the way in is the reason it is unreadable.
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as error:
        problem = str(error) if isinstance(error, ValueError) else f"{type(error).__name__} {error}"
        raise UnreadableGame(game_id, problem) from None


def unfinishable(session: Session | DropSession, bank: Bank) -> str | None:
    """The id of the question the game stands on if neither the bank nor the stored game has its words, else None."""
    if isinstance(session, DropSession):
        run = session.game.run
        card = run.card if run is not None else None
        if card is None or len(session.texts) == 2 or bank.entry(card.id) is not None:
            return None
        return card.id
    current = session.game.round
    if current is None or current.question is None or len(session.texts) == 2:
        return None
    return None if bank.entry(current.question.id) is not None else current.question.id
