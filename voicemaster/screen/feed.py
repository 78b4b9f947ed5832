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
from collections.abc import Mapping
from typing import Any

from voicemaster.screen.board import Board, Step, follow
from voicemaster.screen.view import view


class ScreenFeed:
    def __init__(self, language: str, questions: Mapping[str, str], *, live: bool) -> None:
        """`questions`: each question's text by id (the game's bank); `live`: the game keeps the wall clock (play),
        not the length of a recording (the demo), so the phone's countdown goes on between steps."""
        self.questions = questions
        self.live = live
        self._arrived: deque[tuple[float, Step]] = deque()
        self._board = Board(language)
        self._clock_at = time.monotonic()
        self._folding = threading.Lock()
        self.version = 0
        """Goes up whenever the board changed: a page asks for the view again."""

    def publish(self, t: float, event: str, data: Mapping[str, Any]) -> None:
        """A step of the game (called by the game's thread: returns at once)."""
        self._arrived.append((time.monotonic(), Step(t, event, data)))

    def stored(self, t: float, state: str) -> None:
        """The game as stored, the same JSON the resume reads."""
        self.publish(t, "stored", {"state": state})

    def fold(self) -> bool:
        """Take in what the game published (the server's thread); True when the board changed."""
        with self._folding:
            changed = False
            while self._arrived:
                arrived, step = self._arrived.popleft()
                board = follow(self._board, step, self.questions)
                if board is not self._board:
                    self._board, self._clock_at, changed = board, arrived, True
            if changed:
                self.version += 1
            return changed

    def view(self) -> dict[str, Any]:
        """What the page shows now, with the version it is."""
        self.fold()
        board = self._board
        now = board.clock + (time.monotonic() - self._clock_at if self.live else 0.0)
        return {"version": self.version, **view(board, now, live=self.live)}

    def view_json(self) -> str:
        return json.dumps(self.view(), ensure_ascii=False)
