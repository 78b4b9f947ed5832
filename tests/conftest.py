"""What the whole suite shares: Hypothesis runs derandomized, so a test run is reproducible and the coverage figure
does not wander; and the fixtures that cost time to build, built once a session."""

from __future__ import annotations

import pytest
from hypothesis import settings

from voicemaster.paths import QUESTIONS_DIR
from voicemaster.questions.packs import load, pack_files
from voicemaster.questions.selection import Bank

settings.register_profile("repeatable", derandomize=True)
settings.load_profile("repeatable")


@pytest.fixture(scope="session")
def bank() -> Bank:
    """The question packs the product ships, read once (a `Bank` is frozen: no test can change it for another)."""
    return Bank(tuple(load(pack_files(QUESTIONS_DIR)).entries))
