"""`voicemaster bench phones`: a phone joins a real phones' server on loopback and sends in real time; every frame
arrives, in order, and the figures are reported. Nothing here asserts how fast."""

from __future__ import annotations

import json

import numpy as np
import pytest

from voicemaster.cli import app as cli
from voicemaster.speech.frame import FRAME_BYTES
from voicemaster_lab.timing import phones


def test_a_frame_carries_its_number() -> None:
    draw = np.random.default_rng(0)
    for index in (0, 1, 31, 32_767, 32_768, 1_000_000):
        frame = phones.numbered(index, draw)
        assert len(frame) == FRAME_BYTES and phones.number_of(frame) == index


def test_the_phones_transport_delivers_every_frame_in_order_and_reports_its_delay(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["bench", "phones", "--seconds", "1", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["benchmark"] == "phones" and figures["frames_sent"] == 31 and figures["frame_ms"] == 32
    assert set(figures["modes"]) == {"none", "webrtc-aec"}
    for mode, measured in figures["modes"].items():
        assert measured["frames_sent"] == measured["frames_delivered"] == 31
        assert measured["frames_lost"] == 0 and measured["all_whole"]
        assert measured["in_order"] is (True if mode == "none" else None)  # the canceller changes the numbers
        delay = measured["delay_ms"]
        assert all(isinstance(delay[figure], float) for figure in ("p50", "p95", "max", "mean"))
        assert 0 <= delay["p50"] <= delay["p95"] <= delay["max"]  # sent before delivered: one clock
    text = phones.report(figures)
    assert "no front end: p50" in text and "31 of 31 delivered, 0 lost, in order" in text
