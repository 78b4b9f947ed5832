"""Keeping the watchers (the terminal, the screen) in step with the sound when the demo plays aloud: each step is
held until the loudspeaker has reached its time in the session, then passed on."""

from __future__ import annotations

import collections
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from voicemaster.play.runner import Watcher


@dataclass
class Paced:
    """A watcher that holds each step for `watch` until `release` says the sound has reached it."""

    watch: Watcher
    _held: collections.deque[tuple[float, str, Mapping[str, Any] | str]] = field(default_factory=collections.deque)

    def publish(self, t: float, event: str, data: Mapping[str, Any]) -> None:
        if event == "unsaid":  # a line taken back before the sound reached it is never passed on
            held = [step for step in self._held if not _said_at(step, data["start"])]
            self._held = collections.deque(held)
        self._held.append((t, event, dict(data)))

    def stored(self, t: float, state: str) -> None:
        self._held.append((t, "", state))

    def release(self, until: float) -> None:
        """Passes on, in order, every step held at or before session time `until`."""
        while self._held and self._held[0][0] <= until:
            t, event, data = self._held.popleft()
            if isinstance(data, str):
                self.watch.stored(t, data)
            else:
                self.watch.publish(t, event, data)


def _said_at(step: tuple[float, str, Mapping[str, Any] | str], start: float) -> bool:
    _, event, data = step
    return event == "say" and isinstance(data, Mapping) and data.get("start") == start
