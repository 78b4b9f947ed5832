"""`voicemaster bench endpoint` shows, per room and margin over the room's floor, where people's utterances end, and
over our voice whether the room stops our line and a player is heard: the data `EndpointSettings.floor_margin_db`
and `barge_in_floor_margin_db` were set from."""

from __future__ import annotations

import json
import subprocess
import sys

from voicemaster_lab.timing import endpoint_rooms


def test_the_bench_reports_every_room_at_every_margin_and_the_party_never_ends_without_the_floor() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "voicemaster", "bench", "endpoint", "--languages", "de", "--limit", "3", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    rows = json.loads(done.stdout)["rows"]
    assert [(row["room"], row["margin_db"]) for row in rows] == [
        (room if snr_db is None else f"{room} {snr_db:g} dB", margin)
        for room, snr_db in endpoint_rooms.CONDITIONS
        for margin in endpoint_rooms.MARGINS
    ]
    for row in rows:
        assert sum(row[key] for key in endpoint_rooms.OUTCOMES) == row["clips"] > 0
    party = [row for row in rows if row["room"].startswith("party") and row["margin_db"] is None]
    assert all(row["never_ended"] == row["clips"] for row in party)
    quiet = [row for row in rows if row["room"] == "quiet"]
    assert all(row["within_1s"] == row["clips"] for row in quiet)
    over = json.loads(done.stdout)["over_our_voice"]
    assert [(row["room"], row["margin_db"]) for row in over] == [
        (f"{room} {snr_db:g} dB", margin)
        for room, snr_db in endpoint_rooms.BARGE_IN_CONDITIONS
        for margin in endpoint_rooms.BARGE_IN_MARGINS
    ]
    for row in over:
        assert row["stopped_for_the_room"] + row["player_heard_within_1s"] <= row["clips"] > 0
    text = endpoint_rooms.report(json.loads(done.stdout))
    assert "party 5 dB" in text and "Over our voice" in text
