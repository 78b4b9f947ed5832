"""`voicemaster demo` as a newcomer runs it: the game told line by line in the terminal as it is played and heard."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicemaster.cli.app import main

# The command loads Whisper and renders every line: a speech model and sound, in a home of its own.
pytestmark = [pytest.mark.model, pytest.mark.audio, pytest.mark.usefixtures("user_folders")]


@pytest.mark.slow  # a whole money drop rendered and heard: the default suite's longest
def test_the_money_drop_demo_is_told_card_by_card(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The terminal's narration follows a money drop (seed 31 stopped at its first card, told as a Millionaire
    question): each card with its category and money, each placement, and the short demo's few cards."""
    code = main(["demo", "--format", "moneydrop", "--lang", "de", "--seed", "31", "--fast", "--out", str(tmp_path)])
    shown = capsys.readouterr()
    assert code == 0, shown.err
    told = shown.out.splitlines()
    cards = [line for line in told if "── card " in line]
    assert 3 <= len(cards) <= 3 + 1  # one team's three cards (and one switched for another)
    assert any(" locks in " in line and " bundles on " in line for line in told)
    assert told[-1].endswith("the rest asked again.") and (tmp_path / "session.wav").is_file()
