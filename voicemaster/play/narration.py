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


JOKERS = {"fifty_fifty": "50:50", "audience": "audience", "phone": "phone", "extra": "extra"}
"""Each joker by the name a newcomer knows from the show (the 50:50 joker, the phone joker), not the rules engine's."""


def narrated(event: str, data: Mapping[str, Any]) -> str | None:
    """One step in words, or None for a step not worth a line. A Millionaire game's steps name a player and a level;
    a money drop's a team, a card's number and the money left (`host/moneydrop/announcements.py`). Money is told
    with its thousands marked, jokers and what was heard by their names in the game, never as a Python value."""
    who = data.get("player") or data.get("team") or "the team"
    match event:
        case "say":
            return f"Quizmaster: {data['text']}"
        case "player":
            return f"{who} says: “{data['text']}”"
        case "heard" if data.get("intent") == "unknown":
            return f"  heard “{data.get('text', '')}”: not clear, asked again"
        case "heard":
            return f"  heard “{data.get('text', '')}”: taken as {_meaning(data.get('intent'), data.get('value'))}"
        case "silence":
            return f"  nothing heard from {who}"
        case "barge_in":
            return f"  {who} spoke over the quizmaster, who stopped ({data['at']:.1f} s into the line)"
        case "question" if "level" in data:
            return f"── question {data['level']}, for {_money(data['amount'])} ──"
        case "question":
            return f"── card {data['question']}, {data['category']}: {_money(data['money'])} to place ──"
        case "locked" if isinstance(data.get("placement"), Mapping):
            bundles = ", ".join(f"{n} bundles on {letter}" for letter, n in data["placement"].items() if n)
            return f"{who} locks in {bundles}"
        case "locked":
            return f"{who} locks in {data.get('option', '')}"
        case "taken_back":
            return f"{who} takes {data.get('option', 'the answer')} back before it is revealed"
        case "result" if "money_left" in data:
            return f"{who}: {_money(data['money_left'])} left"
        case "result":
            verdict = "right" if data.get("correct") else "wrong"
            return f"{who}: {verdict}" + (f", level {data['level']} reached" if data.get("correct") else "")
        case "joker":
            return f"{who} takes the {_joker(data['joker'])} joker"
        case "walk_away" | "payout":
            return f"{who} leaves with {_money(data.get('amount'))}"
        case "game_over":
            return f"game over: {_totals(data.get('totals'))}{_winners(data.get('winners'))}"
    return None


def _money(amount: object) -> str:
    return f"{amount:,}" if isinstance(amount, int) else str(amount)


def _joker(name: object) -> str:
    return JOKERS.get(str(name), str(name))


def _meaning(intent: object, value: object) -> str:
    """What was heard as the game took it: "answer C", "joker 50:50", "yes", "switch category"."""
    said = str(intent).replace("_", " ")
    if value is None:
        return said
    return f"{said} {_joker(value) if intent == 'joker' else value}"


def _totals(totals: object) -> str:
    if not isinstance(totals, Mapping) or not totals:
        return "no one played"
    return ", ".join(f"{who} {_money(amount)}" for who, amount in totals.items())


def _winners(winners: object) -> str:
    if not isinstance(winners, list | tuple) or not winners:
        return ""
    return f"; {' and '.join(map(str, winners))} {'wins' if len(winners) == 1 else 'win'}"
