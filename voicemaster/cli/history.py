"""`voicemaster history`: the games in the store, newest first, with what each player or team took home."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from typing import Any

from voicemaster.cli.failures import warn
from voicemaster.host.saved import DropSession, UnreadableGame, restore
from voicemaster.store import Store, StoredGame


@dataclass(frozen=True)
class GameSummary:
    id: str
    updated: str
    format: str
    """millionaire or moneydrop."""
    rules: str
    """The variant played, or the money drop's number of teams and questions."""
    finished: bool
    abandoned: bool
    """Not finished, and no longer offered: the players chose a new game instead."""
    currency: str
    totals: dict[str, int]
    """Per player (or team): the money won so far, or saved."""
    winners: list[str]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        totals = ", ".join(f"{name} {amount:,} {self.currency}" for name, amount in self.totals.items())
        if self.finished:
            status = f"won by {' and '.join(self.winners)}"
        elif self.abandoned:
            status = "abandoned: a new game was started instead"
        else:
            status = "not finished: `voicemaster play` resumes it"
        return f"{self.updated[:16]}  {self.format} ({self.rules})  {totals or 'no one played'}  {status}"


def summarize(stored: StoredGame) -> GameSummary:
    """Raises UnreadableGame for a game that cannot be read back."""
    session = restore(stored.id, stored.state)
    if isinstance(session, DropSession):
        drop = session.game
        settings = drop.settings
        return GameSummary(
            stored.id,
            stored.updated,
            "moneydrop",
            f"{len(settings.teams)} teams, {settings.questions} questions",
            stored.finished,
            stored.abandoned,
            settings.currency,
            {result.team: result.saved for result in drop.results},
            [result.team for place, result in drop.ranking() if place == 1] if drop.over else [],
        )
    game = session.game
    winners = list(game.outcome.winners) if game.outcome else []
    variant = game.settings.variant
    return GameSummary(
        stored.id,
        stored.updated,
        "millionaire",
        variant.name,
        stored.finished,
        stored.abandoned,
        variant.ladder.currency,
        game.totals(),
        winners,
    )


def listed(store: Store, limit: int) -> list[GameSummary]:
    """The newest games. Games that cannot be read get the store set aside (kept whole, with them) and a fresh one
    started with everything else, so that history and `play` work again and nothing is deleted; the games are then
    listed from that fresh store, as `play` will find them (the newest game left unfinished is the one it offers)."""
    while True:  # each round sets aside at least one game: a fresh list may reach older games, unread till then
        summaries: list[GameSummary] = []
        unreadable: dict[str, str] = {}
        for stored in store.recent_games(limit):
            try:
                summaries.append(summarize(stored))
            except UnreadableGame as error:
                unreadable[stored.id] = str(error)
        if not unreadable:
            return summaries
        store.set_aside(unreadable, "; ".join(unreadable.values()))


def show(args: argparse.Namespace) -> int:
    if args.limit < 1:  # any larger number is taken: all the games there are, as many as that
        print(f"voicemaster: --limit {args.limit}: give how many games to list, 1 or more", file=sys.stderr)
        return 2
    with Store(notify=warn) as store:
        games = listed(store, args.limit)
    if args.json:
        print(json.dumps({"games": [game.to_json() for game in games]}, ensure_ascii=False))
        return 0
    for game in games:
        print(game.line())
    if not games:
        print("No games yet: `voicemaster play` starts one.")
    return 0
