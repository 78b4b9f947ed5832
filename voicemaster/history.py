"""`voicemaster history`: the games in the store, newest first, with what each player or team took home."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from voicemaster.host.millionaire import Session
from voicemaster.host.moneydrop import DropSession
from voicemaster.store import StoredGame


@dataclass(frozen=True)
class GameSummary:
    id: str
    updated: str
    format: str
    """millionaire or moneydrop."""
    rules: str
    """The variant played, or the money drop's number of teams and questions."""
    finished: bool
    currency: str
    totals: dict[str, int]
    """Per player (or team): the money won so far, or saved."""
    winners: list[str]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        totals = ", ".join(f"{name} {amount:,} {self.currency}" for name, amount in self.totals.items())
        status = (
            f"won by {' and '.join(self.winners)}" if self.finished else "not finished: `voicemaster play` resumes it"
        )
        return f"{self.updated[:16]}  {self.format} ({self.rules})  {totals or 'no one played'}  {status}"


def summarize(stored: StoredGame) -> GameSummary:
    if json.loads(stored.state).get("format") == "moneydrop":
        drop = DropSession.from_json(stored.state).game
        settings = drop.settings
        return GameSummary(
            stored.id,
            stored.updated,
            "moneydrop",
            f"{len(settings.teams)} teams, {settings.questions} questions",
            stored.finished,
            settings.currency,
            {result.team: result.saved for result in drop.results},
            [result.team for place, result in drop.ranking() if place == 1] if drop.over else [],
        )
    game = Session.from_json(stored.state).game
    winners = list(game.outcome.winners) if game.outcome else []
    variant = game.settings.variant
    return GameSummary(
        stored.id,
        stored.updated,
        "millionaire",
        variant.name,
        stored.finished,
        variant.ladder.currency,
        game.totals(),
        winners,
    )
