"""The screen's board and server without a browser: what the page is given at each step of a real game."""

from __future__ import annotations

import io
import json
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.screen.games import entries, play_game
from voicemaster.cli.app import main
from voicemaster.cli.screen import notice
from voicemaster.host.screen_address import ScreenAddress
from voicemaster.play.ear import Answers
from voicemaster.screen import ScreenUnavailable
from voicemaster.screen.feed import ScreenFeed
from voicemaster.screen.server import Screen

Step = tuple[float, str, Mapping[str, Any]]


class Recorder:
    def __init__(self) -> None:
        self.steps: list[Step] = []

    def publish(self, t: float, event: str, data: Mapping[str, Any]) -> None:
        self.steps.append((t, event, dict(data)))

    def stored(self, t: float, state: str) -> None:
        self.steps.append((t, "stored", {"state": state}))


@pytest.fixture(scope="module")
def questions() -> dict[str, str]:
    return {entry.id: entry.question for entry in entries()}


@pytest.fixture(scope="module")
def steps(tmp_path_factory: pytest.TempPathFactory) -> list[Step]:
    """A game of one player who takes the 50:50 on the way (seven questions)."""
    recorder = Recorder()
    play_game(tmp_path_factory.mktemp("game"), recorder, seed=26, players=("Anna",))
    assert any(event == "joker" and data["joker"] == "fifty_fifty" for _, event, data in recorder.steps)
    return recorder.steps


def words_of(shown: dict[str, Any]) -> dict[str, Any]:
    """The board with its words as the game has them: the page gets long words' syllables marked by soft hyphens."""
    plain: dict[str, Any] = json.loads(json.dumps(shown).replace("\\u00ad", ""))
    return plain


def _fed(questions: Mapping[str, str], steps: list[Step]) -> ScreenFeed:
    feed = ScreenFeed("de", questions, live=False)
    for t, event, data in steps:
        if event == "stored":
            feed.stored(t, data["state"])
        else:
            feed.publish(t, event, data)
    return feed


def test_the_page_is_never_given_the_right_answer_before_its_reveal(
    steps: list[Step], questions: Mapping[str, str]
) -> None:
    feed = ScreenFeed("de", questions, live=False)
    asked: Mapping[str, Any] = {}
    revealed = 0
    for t, event, data in steps:
        if event == "stored":
            feed.stored(t, data["state"])
        else:
            feed.publish(t, event, data)
        asked = data if event == "question" else asked
        shown = words_of(feed.view())["question"]
        if shown is None:
            continue
        marks = [option["correct"] for option in shown["options"]]
        if shown["revealed"]:
            revealed += 1
            assert marks.count(True) == 1 and "ABCD"[marks.index(True)] == asked["correct"]
        else:
            assert marks == [None] * len(marks)
    assert revealed > 0


def test_a_page_opened_mid_game_shows_the_game_at_once(steps: list[Step], questions: Mapping[str, str]) -> None:
    """From the stored game alone (what the resume reads) the page shows what a page open all along shows."""
    stored = [index for index, (_, event, _) in enumerate(steps) if event == "stored"]
    assert len(stored) > 10
    compared = ("ladder", "players", "turn", "sheet", "totals", "round", "format")
    fifty_seen = False
    for index in stored:
        all_along = _fed(questions, steps[: index + 1]).view()
        opened_now = _fed(questions, [steps[index]]).view()
        assert {key: opened_now[key] for key in compared} == {key: all_along[key] for key in compared}
        if all_along["question"] is not None and not all_along["question"]["revealed"]:
            late, early = opened_now["question"], all_along["question"]
            assert late is not None
            assert (late["text"], late["number"], late["amount"]) == (early["text"], early["number"], early["amount"])
            assert late["options"] == early["options"]
            fifty_seen |= any(option["removed"] for option in early["options"])
    assert fifty_seen, "the 50:50 was never on the board"


def _letters(shown: Mapping[str, Any]) -> list[str]:
    return [option["letter"] for option in shown["question"]["options"]]


def test_each_option_appears_as_its_line_is_read(steps: list[Step], questions: Mapping[str, str]) -> None:
    """From the moment a question is asked until its player is listened to, the page shows the options read aloud so
    far, in order: none before the first, all four by the prompt."""
    feed = ScreenFeed("de", questions, live=False)
    reading: list[str] | None = None
    questions_read = 0
    for t, event, data in steps:
        _publish_all(feed, [(t, event, data)])
        if event == "question":
            reading = []
        elif event == "say" and data.get("line") == "option" and reading is not None:
            reading.append(data["letter"])
        elif event == "listen":
            questions_read += reading is not None
            reading = None
        if reading is not None:
            shown = words_of(feed.view())
            assert shown["question"]["text"] == questions[_asked_by(steps, t)]
            assert _letters(shown) == reading
            if event == "say" and data["line"] == "option":
                assert shown["said"] == data["text"]  # the caption is the line just read
    assert questions_read >= 7


def _asked_by(steps: list[Step], t: float) -> str:
    """The id of the question asked last by game time `t`."""
    return str([data["question_id"] for at, event, data in steps if event == "question" and at <= t][-1])


class FakeMonotonic:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_in_a_live_game_each_option_appears_when_its_line_is_heard(
    steps: list[Step], questions: Mapping[str, str]
) -> None:
    """Playing live, the question, its options and the prompt are one sound, written down all at once when it starts
    with the time each line will be heard: the page is sent each option when that time comes, never before, and a
    page opened meanwhile shows those heard so far."""
    clock = FakeMonotonic()
    feed = ScreenFeed("de", questions, live=True, monotonic=clock)
    listened = next(i for i, (_, event, data) in enumerate(steps) if event == "listen" and data["context"] == "answer")
    asked = next(t for t, event, _ in steps if event == "question")
    for t, event, data in steps[:listened]:
        # The lines after the question are written the moment their sound starts, as a live runner writes them.
        clock.now = 1000.0 + (asked if event == "say" and t > asked else t)
        _publish_all(feed, [(t, event, data)])
    options = [data for _, event, data in steps[:listened] if event == "say" and data.get("line") == "option"]
    assert [option["letter"] for option in options] == ["A", "B", "C", "D"]
    clock.now = 1000.0 + options[0]["start"] - 0.05
    shown = words_of(feed.view())
    assert shown["question"]["text"] and _letters(shown) == []
    question_line = next(data for _, event, data in steps if event == "say" and data["line"] == "question")
    assert shown["said"] == question_line["text"]
    for heard, option in enumerate(options, start=1):
        version = feed.version
        clock.now = 1000.0 + option["start"] + 0.05
        assert feed.fold() and feed.version == version + 1  # the page is sent the view again: nothing else happened
        assert not feed.fold()
        shown = words_of(feed.view())
        assert _letters(shown) == ["A", "B", "C", "D"][:heard]
        assert shown["said"] == option["text"]


def test_the_game_never_waits_for_the_screen(steps: list[Step], questions: Mapping[str, str]) -> None:
    """A server stuck in the middle of reading the feed does not hold up a single step of the game."""
    feed = ScreenFeed("de", questions, live=False)
    with feed._folding:  # the server's side, held as a hung server would hold it
        game = threading.Thread(target=lambda: _publish_all(feed, steps))
        game.start()
        game.join(timeout=30)
        assert not game.is_alive()
    assert words_of(feed.view())["game_over"]


def _publish_all(feed: ScreenFeed, steps: list[Step]) -> None:
    for t, event, data in steps:
        if event == "stored":
            feed.stored(t, data["state"])
        else:
            feed.publish(t, event, data)


def test_the_server_serves_the_board_and_takes_nothing(steps: list[Step], questions: Mapping[str, str]) -> None:
    feed = _fed(questions, steps[: len(steps) // 2])
    with Screen(feed, port=0) as screen:
        with urllib.request.urlopen(screen.url, timeout=10) as page:
            assert page.status == 200 and "default-src 'self'" in page.headers["Content-Security-Policy"]
            assert 'aria-live="polite"' in page.read().decode()
        with urllib.request.urlopen(screen.url + "board", timeout=10) as board:
            shown = words_of(json.loads(board.read()))
        assert shown["question"]["text"] in questions.values()
        for path in ("", "board", "events", "static/screen.js"):
            for method in ("POST", "PUT", "DELETE"):
                request = urllib.request.Request(screen.url + path, data=b"x", method=method)
                with pytest.raises(urllib.error.HTTPError) as refused:
                    urllib.request.urlopen(request, timeout=10)
                refused.value.close()
                assert refused.value.code == 405, (method, path)


def test_a_port_in_use_is_said_in_one_line(questions: Mapping[str, str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ScreenUnavailable, match=f"127.0.0.1:{port}.*--port"):
            Screen(ScreenFeed("de", questions, live=False), port=port).start()


def test_the_local_network_mode_says_who_can_watch_and_shows_a_code(questions: Mapping[str, str]) -> None:
    screen = Screen(ScreenFeed("de", questions, live=False), host="0.0.0.0", port=8765)
    said = notice(screen)
    assert "Anyone on this network can watch" in said and screen.url in said
    assert "█" in said or "▀" in said  # the QR code, drawn in blocks
    assert "127.0.0.1" not in notice(Screen(ScreenFeed("de", questions, live=False), host="192.0.2.7", port=1))
    loopback = notice(Screen(ScreenFeed("de", questions, live=False), port=8765))
    assert "http://127.0.0.1:8765/" in loopback and "Anyone" not in loopback
    # What the quizmaster says when asked: the address printed, and whether other devices may open it.
    assert screen.spoken_address() == ScreenAddress(screen.address(), 8765, local_network=True)
    here = Screen(ScreenFeed("de", questions, live=False), port=8765).spoken_address()
    assert here == ScreenAddress("127.0.0.1", 8765, local_network=False)


def test_the_text_demo_has_no_screen(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--text", "--screen", "--seed", "1"]) == 2
    assert "--screen" in capsys.readouterr().err


def test_play_with_a_screen_whose_port_is_taken_stops_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before any model is loaded or device opened, and with no game begun."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["play", "--screen", "--port", str(port), "--players", "Anna", "--engine", "whisper"]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and f"127.0.0.1:{port}" in said[0] and "--port" in said[0]


def test_a_game_play_resumes_is_on_the_screen_before_its_first_new_step(
    steps: list[Step], questions: Mapping[str, str], tmp_path: Path
) -> None:
    """`play` continues an interrupted game: the page shows it (the question it stood on) as soon as the players say
    yes, built from the stored game the resume read."""
    from voicemaster.config.settings import default_paths, load_settings
    from voicemaster.dialogue.meaning import Heard, Intent
    from voicemaster.host.lines import load as load_lines
    from voicemaster.play.live import _resumed_or_new
    from voicemaster.play.runner import Runner, SessionClock, Transcript
    from voicemaster.questions.selection import Bank
    from voicemaster.speech.devices.files import FileSink
    from voicemaster.speech.voice.speakers import Speakers
    from voicemaster.store import Store

    states = [data["state"] for _, event, data in steps if event == "stored"]
    mid_question = next(state for state in states if _on_a_question(state))
    config = load_settings(default_paths()[:1])
    feed = ScreenFeed("de", questions, live=True)
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        store.save_game("old", mid_question)
        sink = FileSink()
        runner = Runner(
            load_lines("de"),
            Speakers(config.speech),
            sink,
            SessionClock(sink),
            Answers(lambda *_: Heard(Intent.YES, None, "ja", 0.9)),
            Transcript(io.StringIO(), feed),
            store=store,
            render_ahead=False,
        )
        host = _resumed_or_new(config, store, runner, (), 1, False, "de", Bank(entries()))
    assert host is not None
    shown = words_of(feed.view())
    assert shown["question"] is not None and shown["question"]["revealed"] is False
    assert shown["question"]["text"] == questions[host.session.asked[-1]]
    assert [player["name"] for player in shown["players"]] == ["Anna"]


def _on_a_question(state: str) -> bool:
    from voicemaster.host.saved import Session

    current = Session.from_json(state).game.round
    return current is not None and current.question is not None
