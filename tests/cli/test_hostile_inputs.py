"""Files and inputs as another hand or a disk leaves them (issue 49): JSON nested thousands deep or with a number of
thousands of digits, FIFOs and devices where a file belongs, a byte-order mark, a megabyte where a word goes, a
recording of nothing. Each meets the real command: one true line naming the file, no traceback, no hang, nothing
lost; the subprocess timeouts are guards against a hang, never a measure of speed."""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from voicemaster.cli.app import main
from voicemaster.cli.manifest import read_manifest
from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.file_reading import MOST_DEPTH, Unreadable, parse_json, read_json
from voicemaster.host.saved import Session
from voicemaster.questions.checked import CACHE_NAME
from voicemaster.rules import GameSettings, new_game, variant
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing import engines
from voicemaster.speech.hearing.recognition import NOTHING_HEARD, Recognizer
from voicemaster.speech.signal import silent
from voicemaster.store import Store

pytestmark = pytest.mark.usefixtures("user_folders")
DEEP = "[" * 5000 + "]" * 5000
GUARD_SECONDS = 120
"""A command still running after this long has hung: the guard of the tests that could hang, never a measure."""


def voicemaster(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed command, in the test's user folders (the `user_folders` fixture set them in the environment)."""
    return subprocess.run(
        [sys.executable, "-m", "voicemaster", *args],
        capture_output=True,
        text=True,
        timeout=GUARD_SECONDS,
        check=False,
    )


def one_line(err: str) -> str:
    """The one line a refused command says: no traceback, no second line, no bug report."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("voicemaster: "), err
    assert "Traceback" not in err and "this is a bug" not in err
    return lines[0]


def manifest_line(**fields: Any) -> str:
    return json.dumps({"file": "a.wav", "lang": "de", "context": "answer", **fields})


# The bounded reader


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (DEEP, f"nested 5000 deep (at most {MOST_DEPTH})"),
        ("[" + "9" * 5000 + "]", "a number of 5000 digits"),
        ("[1.5e" + "9" * 200 + "]", "a number of 204 characters"),
        ('{"a": ', "not JSON (Expecting value"),
    ],
    ids=["deep", "5000-digits", "long-float", "cut-off"],
)
def test_json_past_the_readers_bounds_is_refused_in_words(text: str, says: str) -> None:
    with pytest.raises(Unreadable, match=re.escape(says)):
        parse_json(text)


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    assert parse_json(json.dumps({"text": DEEP, "n": [[1]]})) == {"text": DEEP, "n": [[1]]}


@pytest.mark.parametrize("special", ["fifo", "zero", "link-to-fifo"])
def test_special_files_are_refused_unread(tmp_path: Path, special: str) -> None:
    path = tmp_path / "data.json"
    if special == "zero":
        path.symlink_to("/dev/zero")
    else:
        os.mkfifo(tmp_path / "fifo")
        (tmp_path / "fifo").rename(path) if special == "fifo" else path.symlink_to(tmp_path / "fifo")
    with pytest.raises(OSError, match="not a regular file"):
        read_json(path, 1000)


@pytest.mark.parametrize("damage", ["fifo", "deep", "no-merges"])
def test_a_damaged_tokenizer_file_names_the_model_to_install_again(tmp_path: Path, damage: str) -> None:
    from voicemaster.speech.hearing.recognition import RecognizerUnavailable
    from voicemaster.speech.hearing.whisper.tokens import complete_tokenizer

    tokenizer = tmp_path / "tokenizer.json"
    if damage == "fifo":
        os.mkfifo(tokenizer)
    else:
        tokenizer.write_text(DEEP if damage == "deep" else '{"model": {}}', encoding="utf-8")
    with pytest.raises(RecognizerUnavailable, match="the Whisper model is damaged; install it again") as refused:
        complete_tokenizer(tokenizer)
    assert str(refused.value).startswith(f"{tokenizer}: ")


# hear --manifest


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('{"file": "a.wav", "lang": "de", "context": "answer", "options": ' + DEEP + "}", "nested 5001 deep"),
        ('{"file": "a.wav", "lang": "de", "context": "answer", "value": ' + "7" * 5000 + "}", "5000 digits"),
        (manifest_line(options=["x" * 3_000_000, "Paris", "Rom", "Wien"]), "a text of 3,000,000 characters"),
        (manifest_line(names=[f"N{n}" for n in range(1000)]), "1000 items; at most 26"),
    ],
    ids=["deep", "5000-digits", "3-MB-option", "1000-names"],
)
def test_a_manifest_line_past_the_bounds_is_named_by_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, says: str
) -> None:
    manifest = tmp_path / "mine.jsonl"
    manifest.write_text(manifest_line() + "\n" + line + "\n", encoding="utf-8")
    assert main(["hear", "--manifest", str(manifest)]) == 2
    said = one_line(capsys.readouterr().err)
    assert f"{manifest}:2: " in said and says in said, said


@pytest.mark.parametrize("special", ["fifo", "zero"])
def test_a_manifest_that_is_a_fifo_or_a_link_to_dev_zero_is_refused_at_once(tmp_path: Path, special: str) -> None:
    manifest = tmp_path / "mine.jsonl"
    if special == "fifo":
        os.mkfifo(manifest)
    else:
        manifest.symlink_to("/dev/zero")
    done = voicemaster("hear", "--manifest", str(manifest))
    kind = "a FIFO" if special == "fifo" else "a device"
    assert done.returncode == 2
    assert one_line(done.stderr) == (
        f"voicemaster: {manifest}: cannot read the manifest: not a regular file ({kind}); give the path of the file "
        "itself"
    )


def test_a_manifest_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    manifest = tmp_path / "mine.jsonl"
    manifest.write_bytes(b"\xef\xbb\xbf" + manifest_line(options="Berlin|Paris|Rom|Wien").encode() + b"\n")
    (entry,) = read_manifest(manifest)
    assert entry.line == 1 and entry.context.options == ("Berlin", "Paris", "Rom", "Wien")


class _Listener:
    """A recognizer that says what it heard nothing of, and how much memory the command held when it was asked."""

    def __init__(self) -> None:
        self.held: list[int] = []

    def prepare(self, context: Context) -> None:
        del context

    def recognize(
        self,
        audio: Audio,
        context: Context,
        *,
        over_our_voice: bool = False,
        crowded: bool = False,
        line_stopped_at: float | None = None,
    ) -> Heard:
        del context, over_our_voice, crowded, line_stopped_at
        self.held.append(tracemalloc.get_traced_memory()[0])
        return Heard(Intent.UNKNOWN, None, f"{len(audio.samples)} bytes", 0.0)


def test_a_manifest_naming_one_long_recording_on_many_lines_holds_one_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each recording is read when it is heard: 40 lines of one 30-second recording hold one of them, not 40."""
    recording = tmp_path / "long.wav"
    Audio(b"\x01\x02" * 48_000 * 30, 48_000).write(recording)  # 2.9 MB
    manifest = tmp_path / "mine.jsonl"
    manifest.write_text((manifest_line(file=recording.name) + "\n") * 40, encoding="utf-8")
    listener = _Listener()
    monkeypatch.setattr(engines, "recognizers", lambda _engine: lambda _language: listener)
    tracemalloc.start()
    try:
        assert main(["hear", "--manifest", str(manifest), "--json"]) == 0
    finally:
        tracemalloc.stop()
    assert len(capsys.readouterr().out.splitlines()) == 40
    assert max(listener.held) < 3 * recording.stat().st_size, listener.held


@pytest.mark.model  # the recording is read when the model hears it
def test_a_recording_of_nan_floats_is_named_without_numpys_warning(tmp_path: Path) -> None:
    samples = struct.pack("<4000f", *([float("nan")] * 4000))
    header = struct.pack("<HHIIHH", 3, 1, 16_000, 64_000, 4, 32)
    body = b"WAVE" + b"fmt " + struct.pack("<I", 16) + header + b"data" + struct.pack("<I", len(samples)) + samples
    recording = tmp_path / "nan.wav"
    recording.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    manifest = tmp_path / "mine.jsonl"
    manifest.write_text(manifest_line(file=recording.name) + "\n", encoding="utf-8")
    done = voicemaster("hear", "--manifest", str(manifest), "--engine", "whisper")
    assert done.returncode == 2 and "RuntimeWarning" not in done.stderr
    said = one_line(done.stderr)
    assert f"{recording}: its float samples hold NaN or infinity" in said, said


def test_silence_and_an_empty_recording_are_heard_as_nothing(whisper: Callable[[str], Recognizer]) -> None:
    context = Context(ContextName.ANSWER, "en", ("Paris", "Rome", "Vienna", "Berlin"))
    hiss = Audio(struct.pack("<16000h", *([3, -2, 0, 1] * 4000)), 16_000)
    for audio in (Audio(b"", 16_000), Audio(bytes(32_000), 16_000), hiss):
        assert silent(audio)
        assert whisper("en").recognize(audio, context) == NOTHING_HEARD


def test_a_real_utterance_is_not_silence() -> None:
    """The bound of silence lies far below a voice: every recorded utterance we measure on is above it."""
    from voicemaster.speech.sound_file import read_recording
    from voicemaster_lab.corpora import real_speech

    clips = real_speech.load()
    assert clips
    assert not any(silent(read_recording(clip.path())[0]) for clip in clips)


# Stored games and the history


def _unfinished(seed: int) -> str:
    return Session(new_game(GameSettings(variant("classic"), ("Anna",), rounds=1, seed=seed))).to_json()


def test_history_sets_a_game_nested_thousands_deep_aside_and_lists_the_other_as_play_finds_it(
    user_folders: Path,
) -> None:
    store_file = user_folders / "xdg_data_home" / "voicemaster" / "voicemaster.db"
    store_file.parent.mkdir(parents=True)
    with Store(store_file) as store:
        store.save_game("older", _unfinished(3))
        store.save_game("deep", json.dumps({"game": DEEP, "asked": [], "options": []}))
    done = voicemaster("history", "--json")
    assert done.returncode == 0, done.stderr
    assert "the stored game deep cannot be read: not usable JSON" in one_line(done.stderr)
    (listed,) = json.loads(done.stdout)["games"]
    # The game left is the one `play` offers: listed as such, not as abandoned.
    assert listed["id"] == "older" and not listed["abandoned"] and not listed["finished"]
    with Store(store_file) as store:
        offered = store.unfinished_game()
        assert offered is not None and offered[0] == "older"
    (aside,) = store_file.parent.glob("voicemaster.damaged-*.db")
    with Store(aside) as kept:  # nothing lost: the unreadable game is kept whole in the file set aside
        assert {game.id for game in kept.recent_games(5)} == {"older", "deep"}


def test_history_with_a_limit_beyond_any_number_lists_every_game(user_folders: Path) -> None:
    store_file = user_folders / "xdg_data_home" / "voicemaster" / "voicemaster.db"
    store_file.parent.mkdir(parents=True)
    with Store(store_file) as store:
        store.save_game("one", _unfinished(3))
    done = voicemaster("history", "--json", "--limit", "99999999999999999999999")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert [game["id"] for game in json.loads(done.stdout)["games"]] == ["one"]


@pytest.mark.parametrize("limit", ["0", "-5"])
def test_history_with_a_limit_below_one_says_what_it_takes(limit: str) -> None:
    done = voicemaster("history", "--limit", limit)
    assert done.returncode == 2 and done.stdout == ""
    assert one_line(done.stderr) == f"voicemaster: --limit {limit}: give how many games to list, 1 or more"


# The question bank's cache


def test_a_check_cache_nested_thousands_deep_is_checked_afresh(user_folders: Path) -> None:
    cache = user_folders / "xdg_cache_home" / "voicemaster" / CACHE_NAME
    cache.parent.mkdir(parents=True)
    cache.write_text('{"packs": ' + DEEP + ', "banks": {}}', encoding="utf-8")
    done = voicemaster("questions", "validate")
    assert "Traceback" not in done.stderr and "this is a bug" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    assert isinstance(json.loads(cache.read_text(encoding="utf-8"))["packs"], dict)  # written afresh


def test_a_check_cache_naming_entries_a_pack_lacks_is_checked_afresh(user_folders: Path) -> None:
    done = voicemaster("questions", "validate")
    assert done.returncode == 0, done.stderr
    cache = user_folders / "xdg_cache_home" / "voicemaster" / CACHE_NAME
    data = json.loads(cache.read_text(encoding="utf-8"))
    data["packs"] = {digest: [[10**6, "question", "damaged by hand"]] for digest in data["packs"]}
    data["banks"] = {digest: [["not", "a", "check"]] for digest in data["banks"]}
    cache.write_text(json.dumps(data), encoding="utf-8")
    again = voicemaster("questions", "validate")
    assert again.returncode == 0 and "damaged by hand" not in again.stdout, again.stderr
