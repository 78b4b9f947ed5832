"""A game as it is stored: what each game keeps to continue (`Session` for a Millionaire game, `DropSession` for a
money drop), written as JSON after every rules transition and read back by `restore`, or `UnreadableGame` saying why
not.

A store can hold a game it cannot give back (written by hand, cut off by a full disk, from a version that stored it
otherwise, nested thousands deep by another hand: the bounded reader, `file_reading.parse_json`, refuses that); it is
named as such, so the store can be set aside instead of the program failing on it. A game that
reads back but stands on a question the bank no longer has, and that it did not keep the words of (stored by an
earlier version), cannot be finished: `unfinishable` names that question, so the players hear what changed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from voicemaster.file_reading import parse_json
from voicemaster.questions.selection import Bank
from voicemaster.rules import moneydrop as md
from voicemaster.rules.codec import dumps, from_data
from voicemaster.rules.state import Game


@dataclass(frozen=True)
class Session:
    """Everything needed to continue a game: the rules state and the questions as this game reads them."""

    game: Game
    asked: tuple[str, ...] = ()
    """Question ids asked in this game, in order."""
    options: tuple[str, ...] = ()
    """The current question's options in the order they were read."""
    texts: tuple[str, ...] = ()
    """The current question and its explanation as read: a game resumed after its pack changed or went can still
    finish the question it was on. Empty in games stored before it was kept."""
    told_heard_before: bool = False
    """The players were told that the questions of a level they had not heard ran out: said once a game."""

    def to_json(self) -> str:
        data: dict[str, object] = {
            "game": dumps(self.game),
            "asked": self.asked,
            "options": self.options,
            "texts": self.texts,
        }
        if self.told_heard_before:
            data["told_heard_before"] = True
        return json.dumps(data, ensure_ascii=False)

    @staticmethod
    def from_json(text: str) -> Session:
        data = parse_json(text)
        texts = tuple(str(text) for text in data.get("texts", ()))
        told = data.get("told_heard_before") is True
        game = from_data(Game, parse_json(data["game"]))
        return Session(game, tuple(data["asked"]), tuple(data["options"]), texts, told)


@dataclass(frozen=True)
class DropSession:
    """Everything needed to continue a money drop: the rules state and the cards as this game reads them."""

    game: md.MoneyDropGame
    asked: tuple[str, ...] = ()
    """Card ids offered in this game, in order: a card is never offered twice."""
    offered: tuple[tuple[str, ...], ...] = ()
    """The options of the two cards on offer, in the order they are read."""
    texts: tuple[tuple[str, ...], ...] = ()
    """The question and explanation of each card on offer: a game resumed after its pack changed or went can still
    finish the card it was on. Empty in games stored before it was kept."""
    read: tuple[str, ...] = ()
    """Card ids read in this game, in order: the card chosen (and the other one after a switch), heard by every
    team; a card offered but not chosen was heard only by its category. Empty in games stored before it was kept."""
    told_heard_before: bool = False
    """The teams were told that the cards they had not heard ran out: said once a game."""

    def to_json(self) -> str:
        data: dict[str, object] = {
            "format": "moneydrop",
            "game": dumps(self.game),
            "asked": self.asked,
            "offered": self.offered,
            "texts": self.texts,
            "read": self.read,
        }
        if self.told_heard_before:
            data["told_heard_before"] = True
        return json.dumps(data, ensure_ascii=False)

    @staticmethod
    def from_json(text: str) -> DropSession:
        data = parse_json(text)
        offered = tuple(tuple(options) for options in data["offered"])
        texts = tuple(tuple(str(text) for text in card) for card in data.get("texts", ()))
        read = tuple(str(card) for card in data.get("read", ()))
        told = data.get("told_heard_before") is True
        game = from_data(md.MoneyDropGame, parse_json(data["game"]))
        return DropSession(game, tuple(data["asked"]), offered, texts, read, told)


class UnreadableGame(ValueError):
    def __init__(self, game_id: str, problem: str) -> None:
        super().__init__(f"the stored game {game_id} cannot be read: {problem}")
        self.game_id = game_id


def restore(game_id: str, state: str) -> Session | DropSession:
    try:
        data = parse_json(state)
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
