"""`voicemaster bench asr --phone-path` on a few of people's real recordings at a phone in the living room: each way
of the docs' table is reported, its counts add up, and what the game's phone path loses is named with its stage."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster_lab.asr import phone_path

STAGES = {"no speech", "cut", "endpointer", "decision"}


@pytest.mark.slow  # each clip heard four ways, three through the game's pipeline: make test-slow
def test_the_phone_path_reports_each_way_of_the_docs_table_and_where_a_command_was_lost(
    tmp_path: Path, whisper: Callable[[str], WhisperRecognizer]
) -> None:
    condition = "phone living room"
    figures = phone_path.run(tmp_path, {"de": whisper("de")}, languages=("de",), limit=6, conditions=(condition,))
    rows = figures["table"]
    assert [(row["condition"], row["way"]) for row in rows] == [(condition, way) for way in phone_path.WAYS]
    straight, pipeline, *_ = rows
    assert straight["commands"] >= 3  # people's commands, and talk that must not be taken for one
    assert int(straight["talk_taken"].split(" of ")[1]) >= 1
    for row in rows:  # the same clips each way, each command understood, asked again or taken for another
        assert (row["commands"], row["talk_taken"]) == (straight["commands"], straight["talk_taken"])
        assert row["understood"] + row["asked_again"] + row["wrong"] == row["commands"]
        assert row["by_language"] == {"de": f"{row['understood']} of {row['commands']}"}
    # A phone at the mouth in a living room: the game's pipeline hears people's commands as a straight decision does.
    assert pipeline["understood"] >= straight["understood"] - 1 >= 1
    for loss in figures["losses"]:
        assert loss["stage"] in STAGES and loss["way"] in phone_path.WAYS[1:]
    assert sum(figures["lost_at"].values()) == len(figures["losses"])
    printed = phone_path.report(figures)
    for row in rows:
        assert f"{condition} | {row['way']} | {row['understood']} of {row['commands']} | de " in printed
