"""Between the game's thread and the screen's: the game drops each step here and goes on at once.

`publish` is all the game calls: it appends to a deque (atomic in CPython, no lock, no wait, never full enough to
refuse), whatever the server or a browser is doing. The server's thread folds what has come into the board and
renders the view; nothing the page does reaches back into the game.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from voicemaster.screen.board import Board, Step, follow, next_change
from voicemaster.screen.view import view


class ScreenFeed:
    def __init__(
        self,
        language: str,
        questions: Mapping[str, str],
        *,
        live: bool,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """`questions`: each question's text by id (the game's bank); `live`: the game keeps the wall clock (play),
        not the length of a recording (the demo), so the phone's countdown goes on between steps, and the options
        of a question appear as their lines are heard."""
        self.questions = questions
        self.live = live
        self._monotonic = monotonic
        self._arrived: deque[tuple[float, Step]] = deque()
        self._board = Board(language)
        self._anchor = (0.0, monotonic())
        """(game time, when it arrived) of the latest step written as it happened: every step but a line, which is
        written when the sound it is part of starts, with the time it will be heard."""
        self._due: float | None = None
        """The game time at which the view changes by itself next (a line played as one with others begins)."""
        self._folding = threading.Lock()
        self.version = 0
        """Goes up whenever the view changed: a page asks for it again."""

    def publish(self, t: float, event: str, data: Mapping[str, Any]) -> None:
        """A step of the game (called by the game's thread: returns at once)."""
        self._arrived.append((self._monotonic(), Step(t, event, data)))

    def stored(self, t: float, state: str) -> None:
        """The game as stored, the same JSON the resume reads."""
        self.publish(t, "stored", {"state": state})

    def fold(self) -> bool:
        """Take in what the game published (the server's thread); True when the view changed: a step came, or the
        time of a line that was written ahead has come."""
        with self._folding:
            changed = False
            while self._arrived:
                arrived, step = self._arrived.popleft()
                if step.event != "say":
                    self._anchor = (step.t, arrived)
                board = follow(self._board, step, self.questions)
                if board is not self._board:
                    self._board, changed = board, True
            now = self._now()
            if self._due is not None and now >= self._due:
                changed = True
            if changed:
                self.version += 1
                self._due = next_change(self._board, now)
            return changed

    def _now(self) -> float:
        """The game time: a live game's goes on with the wall clock between steps; a recorded game's is its last
        step's."""
        if not self.live:
            return self._board.clock
        at, arrived = self._anchor
        return at + (self._monotonic() - arrived)

    def view(self) -> dict[str, Any]:
        """What the page shows now, with the version it is."""
        self.fold()
        return {"version": self.version, **view(self._board, self._now(), live=self.live)}

    def view_json(self) -> str:
        return json.dumps(self.view(), ensure_ascii=False)
