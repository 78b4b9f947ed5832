"""`voicemaster bench screen`: does the screen slow the game? The same real-time game with and without it.

The game is `bench voice`'s: the real quizmaster and runner in real time, a scripted player answering after the
question is read. With the screen, the server runs and a reader holds its stream open and reads every board, as an
open page does. Figures: the time from the player's decision to the first sample of the quizmaster's reply, the
game's length, and what publishing a step costs the game's thread. The games alternate, so a machine busy with
other work weighs on both alike.
"""

from __future__ import annotations

import http.client
import statistics
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from voicemaster.questions.packs import load, pack_files
from voicemaster.questions.selection import Bank
from voicemaster.screen.feed import ScreenFeed
from voicemaster.screen.server import Screen
from voicemaster_lab.timing.voice import THINK_SECONDS, reply_latency


class _Timed:
    """Passes each step to the feed, timing what it costs the game's thread."""

    def __init__(self, feed: ScreenFeed) -> None:
        self.feed = feed
        self.costs: list[float] = []

    def publish(self, t: float, event: str, data: Mapping[str, Any]) -> None:
        started = time.perf_counter()
        self.feed.publish(t, event, data)
        self.costs.append(time.perf_counter() - started)

    def stored(self, t: float, state: str) -> None:
        started = time.perf_counter()
        self.feed.stored(t, state)
        self.costs.append(time.perf_counter() - started)


def _read_stream(port: int, stop: threading.Event, boards: list[int]) -> None:
    """An open page: the event stream, read until the server closes it when the game is over."""
    connection = http.client.HTTPConnection("127.0.0.1", port)
    connection.request("GET", "/events")
    response = connection.getresponse()
    while not stop.is_set() and (line := response.fp.readline()):
        boards[0] += line.startswith(b"event: board")
    connection.close()


def run(question_roots: Sequence[Path], language: str, questions: int, games: int) -> dict[str, Any]:
    bank = Bank(tuple(load([pack for root in question_roots for pack in pack_files(root)]).entries))
    runs: dict[str, list[dict[str, Any]]] = {"without": [], "with": []}
    costs: list[float] = []
    boards = [0]
    for _ in range(games):
        runs["without"].append(reply_latency(bank, language, questions, THINK_SECONDS, ahead=True))
        feed = ScreenFeed(language, {entry.id: entry.question for entry in bank.entries}, live=True)
        timed = _Timed(feed)
        with Screen(feed, port=0) as screen:
            stop = threading.Event()
            reader = threading.Thread(target=_read_stream, args=(screen.port, stop, boards), daemon=True)
            reader.start()
            runs["with"].append(reply_latency(bank, language, questions, THINK_SECONDS, ahead=True, watch=timed))
            stop.set()
        reader.join(timeout=10)
        costs += timed.costs
    figures: dict[str, Any] = {"language": language, "questions": questions, "games": games}
    for mode, played in runs.items():
        figures[mode] = {
            "first_sample_ms_p50": statistics.median(game["first_sample_ms_p50"] for game in played),
            "first_sample_ms_p95": max(game["first_sample_ms_p95"] for game in played),
            "game_seconds": round(statistics.median(game["game_seconds"] for game in played), 1),
        }
    costs.sort()
    figures["publish_us_p50"] = round(statistics.median(costs) * 1e6, 1)
    figures["publish_us_max"] = round(costs[-1] * 1e6, 1)
    figures["steps_published"] = len(costs)
    figures["boards_read"] = boards[0]
    return figures


def report(figures: dict[str, Any]) -> str:
    out = [
        f"The screen: {figures['games']} game(s) of {figures['questions']} questions in {figures['language']} each "
        "way, in real time, alternating; with it, a reader holds the page's stream open."
    ]
    for mode in ("without", "with"):
        game = figures[mode]
        out.append(
            f"{mode:7} the screen: first sample of a reply p50 {game['first_sample_ms_p50']} ms, p95 (worst game) "
            f"{game['first_sample_ms_p95']} ms; game {game['game_seconds']} s (median)"
        )
    out.append(
        f"publishing a step costs the game p50 {figures['publish_us_p50']} µs, max {figures['publish_us_max']} µs "
        f"over {figures['steps_published']} steps; the reader took {figures['boards_read']} boards"
    )
    return "\n".join(out)
