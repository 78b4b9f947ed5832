"""The game told in the terminal as it goes, one short line a step: what the quizmaster says, who answered, what was
heard and how it was taken, the ladder as it climbs. A `Watcher`, like the screen; `Watchers` lets both watch."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from voicemaster.play.runner import Watcher

WIDTH = 110
"""A line longer than this is cut: one step, one line, in an ordinary terminal."""


@dataclass(frozen=True)
class Watchers:
    """Several watchers seeing the same steps, in order."""

    watchers: tuple[Watcher, ...]

    def publish(self, t: float, event: str, data: Mapping[str, Any]) -> None:
        for watcher in self.watchers:
            watcher.publish(t, event, data)

    def stored(self, t: float, state: str) -> None:
        for watcher in self.watchers:
            watcher.stored(t, state)


@dataclass
class Narrator:
    """Prints each step worth a newcomer's eye to `say` (print); the rest (listening begins, the store) stays quiet.
    An early decision is told on the line of what was heard, which comes right after it."""

    say: Callable[[str], None] = print
    _early: bool = False

    def publish(self, t: float, event: str, data: Mapping[str, Any]) -> None:
        if event == "early_decision":
            self._early = True
            return
        told = narrated(event, data)
        if event == "heard" and self._early and told is not None:
            told, self._early = f"{told}, at the first short pause", False
        if told is not None:
            line = f"{int(t // 60):2d}:{int(t % 60):02d}  {told}"
            self.say(line if len(line) <= WIDTH else line[: WIDTH - 1] + "…")

    def stored(self, t: float, state: str) -> None:
        del t, state


def narrated(event: str, data: Mapping[str, Any]) -> str | None:
    """One step in words, or None for a step not worth a line. A Millionaire game's steps name a player and a level;
    a money drop's a team, a card's number and the money left (`host/moneydrop/announcements.py`)."""
    who = data.get("player") or data.get("team") or "the team"
    match event:
        case "say":
            return f"Quizmaster: {data['text']}"
        case "player":
            return f"{who} says: “{data['text']}”"
        case "heard" if data.get("intent") == "unknown":
            return f"  heard “{data.get('text', '')}”: not clear, asked again"
        case "heard":
            value = f" {data['value']}" if data.get("value") is not None else ""
            return f"  heard “{data.get('text', '')}”: taken as {data['intent']}{value}"
        case "silence":
            return f"  nothing heard from {who}"
        case "barge_in":
            return f"  {who} spoke over the quizmaster, who stopped ({data['at']:.1f} s into the line)"
        case "question" if "level" in data:
            return f"── question {data['level']}, for {data['amount']} ──"
        case "question":
            return f"── card {data['question']}, {data['category']}: {data['money']} to place ──"
        case "locked" if isinstance(data.get("placement"), Mapping):
            bundles = ", ".join(f"{n} bundles on {letter}" for letter, n in data["placement"].items() if n)
            return f"{who} locks in {bundles}"
        case "locked":
            return f"{who} locks in {data.get('option', '')}"
        case "result" if "money_left" in data:
            return f"{who}: {data['money_left']} left"
        case "result":
            verdict = "right" if data.get("correct") else "wrong"
            return f"{who}: {verdict}" + (f", level {data['level']} reached" if data.get("correct") else "")
        case "joker":
            return f"{who} takes the joker {data['joker']}"
        case "walk_away" | "payout":
            return f"{who} leaves with {data.get('amount')}"
        case "game_over":
            return f"game over: {data.get('totals')}"
    return None
