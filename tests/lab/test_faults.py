"""`bench faults`, a small run of each part: games really killed and resumed, fuzzed files through the real
commands, and the JSON keys other tools read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from voicemaster.cli.app import main
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.saved import Session
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, UseFiftyFifty, millionaire, new_game, variant
from voicemaster.rules.actions import AskQuestion, StartRound
from voicemaster.rules.codec import to_data
from voicemaster.rules.letters import Letter
from voicemaster_lab.faults import checks, damaged_store, drill, fuzz, hostile, resume
from voicemaster_lab.faults import inputs as input_faults

pytestmark = pytest.mark.usefixtures("user_folders")


def test_games_killed_in_a_child_are_resumed_from_the_store_and_finished() -> None:
    figures = resume.run(1, seed=3)
    assert figures["games"] == 2
    assert set(figures["per_format"]) == {"millionaire", "moneydrop"}
    # Each child really died of SIGKILL (else the game counts as a problem, not as resumed), and what the store
    # gave back was the last step it committed, read out again and played to the end the rules agree with.
    assert figures["exact"] == figures["finished"] == figures["confirmed"] == 2, figures["per_format"]


def test_options_a_fifty_fifty_removed_and_read_again_are_told_apart(bank: Bank) -> None:
    settings = GameSettings(variant("classic"), ("Anna",), rounds=1, seed=5)
    game, _ = millionaire.apply(new_game(settings), StartRound())
    entry = bank.millionaire("de", 1)[0]
    options = entry.options
    game, _ = millionaire.apply(game, AskQuestion(entry.id, Letter.first(4)[options.index(entry.answer)]))
    game, _ = millionaire.apply(game, UseFiftyFifty("Anna"))
    state = Session(game, (entry.id,), options).to_json()
    host = Quizmaster(Session.from_json(state), bank, "de")
    left = [letter for letter in Letter.first(4) if letter in game.round.seats[0].available]  # type: ignore[union-attr]
    read = [("resumed", "", {}), ("question", "", {"text": entry.question})]
    every = read + [("option", "", {"letter": letter, "text": options[i]}) for i, letter in enumerate("ABCD")]
    as_left = read + [("option", "", {"letter": x.value, "text": options["ABCD".index(x.value)]}) for x in left]
    assert checks.read_out_problem(host, state, every) is not None
    assert checks.read_out_problem(host, state, as_left) is None


def test_a_replay_that_disagrees_with_a_stored_state_is_caught(tmp_path: Path) -> None:
    settings = GameSettings(variant("classic"), ("Anna",), rounds=1, seed=5)
    start = Session(new_game(settings))
    after, _ = millionaire.apply(start.game, StartRound())
    log = tmp_path / "steps.jsonl"
    step = {"name": "StartRound", "data": to_data(StartRound())}
    log.write_text(
        json.dumps({"start": start.to_json()})
        + "\n"
        + json.dumps({"saving": 1, "action": step, "state": start.to_json()})
    )
    assert checks.replayed(log, None) == (False, "step 1 (StartRound): the stored state is not what the rules "
                                                       "make of it")  # fmt: skip
    log.write_text(
        json.dumps({"start": start.to_json()}) + "\n"
        + json.dumps({"saving": 1, "action": step, "state": Session(after).to_json()})
    )  # fmt: skip
    assert checks.replayed(log, None) == (True, None)


def test_fuzzed_inputs_through_the_commands_find_no_traceback_in_the_question_tools() -> None:
    figures = fuzz.fuzz(30, seed=11, command=main)  # `bench faults` makes thousands; 16 of these are question files
    assert figures["inputs"] == 30
    question_tools = {kind: n for kind, n in figures["tracebacks_by_kind"].items() if kind.split(":")[0] in
                      ("pack", "opentdb", "csv")}  # fmt: skip
    assert question_tools == {}, figures["traceback_examples"]
    assert figures["written_on_failure"] == 0 and figures["invalid_packs_written"] == 0
    assert figures["refused_with_a_message"] > 10 and figures["accepted"] > 5  # both ways through the commands


def test_a_traceback_and_a_file_left_behind_are_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_kind: str, content: bytes, folder: Path, _main: object) -> tuple[int, str, Path | None]:
        (folder / "left-behind.toml.partial").write_bytes(content[:10])
        raise AttributeError("'str' object has no attribute 'get'")

    monkeypatch.setattr(fuzz, "_one", broken)
    figures = fuzz.fuzz(3, seed=1, command=main)
    assert figures["tracebacks"] == 3 and figures["written_on_failure"] == 3


@pytest.mark.slow  # a whole bench run; the default suite keeps its ten minutes
def test_the_json_holds_the_keys_other_tools_read(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    counted = {"games_lost": 0, "hung": 0, "tracebacks": 0}
    monkeypatch.setattr(
        damaged_store, "run", lambda: {"outcomes": [], "time_limit_seconds": 60, "seconds": 0, **counted}
    )
    # The files-and-inputs drill runs whole in tests/lab/test_input_faults.py.
    quiet = {"outcomes": [], "faults": 0, "right": 0, "wrong": 0, "tracebacks": 0, "hung": 0, "time_limit_seconds": 1}
    monkeypatch.setattr(input_faults, "run", lambda: quiet)
    assert main(["bench", "faults", "--games", "0", "--inputs", "3", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["inputs"]["tracebacks"] == figures["inputs"]["hung"] == figures["inputs"]["wrong"] == 0
    assert figures["resume"]["games"] == 0 and figures["resume"]["exact"] == 0
    assert figures["fuzz"]["inputs"] == 3
    assert isinstance(figures["fuzz"]["tracebacks"], int) and isinstance(figures["fuzz"]["written_on_failure"], int)
    assert "fuzzed input: 3 inputs" in drill.report(figures)


@pytest.mark.parametrize("damage", ["truncated to 0", "replaced by a folder"])
def test_a_store_damaged_under_a_running_game_loses_no_game(tmp_path: Path, damage: str) -> None:
    """Issue 25: the bench's own game, its store damaged a few questions in, ends as a game and is kept."""
    outcome = damaged_store.game_outcome(damage, tmp_path, "--damage-at", "60", "--damage", damage)
    assert outcome.exit_code == 0 and not outcome.traceback and outcome.game_lost is False
    assert "during the game" in outcome.message  # said, the game saved again into a new file


def test_a_pack_changed_between_crash_and_resume_still_resumes_exactly(bank: Bank, tmp_path: Path) -> None:
    spec = resume.Spec("millionaire", 11, ("Anna",), "classic", pack_changed=True)
    outcome = resume.one_game(spec, bank, tmp_path)
    assert outcome.exact, outcome.problem


def test_every_hostile_input_is_made_and_refused_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 36: each class of hostile input, in each place a user gives it, through the real commands."""
    made = [f"{kind}:{place}:{seed}".encode() for kind, places in hostile.PLACES.items() for place in places
            for seed in (1, 2)]  # fmt: skip
    monkeypatch.setattr(fuzz, "KINDS", ("hostile",))
    monkeypatch.setattr(fuzz, "WEIGHTS", (1,))
    monkeypatch.setattr(hostile, "make", lambda _rng: made.pop())
    figures = fuzz.fuzz(len(made), seed=3, command=main)
    assert figures["hostile"]["inputs"] == figures["hostile"]["refused"] > 0, figures["hostile"]
    assert set(figures["hostile"]["per_class"]) == set(hostile.PLACES)
    assert figures["tracebacks"] == figures["written_on_failure"] == figures["hung"] == 0, figures


@pytest.mark.parametrize(
    ("damage", "lost", "said"),
    [
        ("data folder replaced by a file", True, "could not be kept: its file is gone"),
        ("file alone made read-only", False, "is read-only (Operation not permitted)"),
    ],
)
def test_a_game_is_said_kept_only_when_it_is(tmp_path: Path, damage: str, lost: bool, said: str) -> None:
    if "read-only" in damage and (os.geteuid() != 0 or shutil.which("chattr") is None):
        pytest.skip("an immutable file needs root and chattr")
    try:
        outcome = damaged_store.game_outcome(damage, tmp_path, "--damage-at", "60", "--damage", damage)
    finally:
        data = tmp_path / "xdg_data_home" / "voicemaster"
        for target in [data, *data.glob("*")] if data.is_dir() else []:
            subprocess.run(["chattr", "-i", str(target)], capture_output=True, check=False)
    if outcome.exit_code == 0:
        pytest.skip("this file system has no immutable attribute")
    assert outcome.exit_code == 2 and not outcome.traceback and said in outcome.message
    assert outcome.game_lost is lost and outcome.said_kept is (not lost)
