"""`bench ... --seed`: each bench draws with the seed it is given, and without one with its own default, the one its
figures in the docs were drawn with (serve 0, fuzz and read-aloud 17)."""

from __future__ import annotations

import argparse

import pytest

from voicemaster_lab.cli import _seed, add_bench


def parsed(*words: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_bench(parser.add_subparsers(dest="command"))
    return parser.parse_args(["bench", *words])


@pytest.mark.parametrize(("bench", "default"), [("serve", 0), ("fuzz", 17), ("read-aloud", 17)])
def test_a_bench_draws_with_the_seed_given_and_else_with_its_own(bench: str, default: int) -> None:
    assert _seed(parsed(bench), default) == default
    assert _seed(parsed(bench, "--seed", "5"), default) == 5
