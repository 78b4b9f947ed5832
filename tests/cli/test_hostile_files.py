"""Settings, phrase files and recordings that a fuzzer (`bench faults`) or a careless hand made: one line naming the
file and what is wrong with it, never a traceback, and nothing said mid-game from a line that cannot be said."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from voicemaster.cli.app import main
from voicemaster.config.files import ConfigError
from voicemaster.host import lines
from voicemaster.paths import PHRASES_DIR
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.recognition import Recognizer

pytestmark = pytest.mark.usefixtures("user_folders")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a = " + "[" * 1000 + "]" * 1000 + "\n", "nested too deeply"),
        ("[game]\nrounds = " + "9" * 5000 + "\n", "a number with thousands of digits"),
    ],
    ids=["deep", "5000-digits"],
)
def test_a_broken_settings_file_is_named_never_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    settings = tmp_path / "mine.toml"
    settings.write_text(text, encoding="utf-8")
    code = main(["--config", str(settings), "demo", "--text", "--players", "2", "--rounds", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and str(settings) in err and message in err, err
    assert "Traceback" not in err and "bug" not in err


def test_a_phrase_with_a_brace_left_open_is_refused_when_read_not_when_said(tmp_path: Path) -> None:
    folder = tmp_path / "phrases"
    shutil.copytree(PHRASES_DIR, folder)
    say = folder / "de" / "say.toml"
    text = say.read_text(encoding="utf-8")
    say.write_text(text.replace('resumed = "', 'resumed = "} ', 1), encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        lines.load("de", folder)
    assert str(say) in str(refused.value) and "resumed" in str(refused.value)


def test_a_recording_whose_header_promises_chunks_it_lacks_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = tmp_path / "clip.wav"
    Audio(bytes(3200), 16000).write(recording)
    data = bytearray(recording.read_bytes())
    data[16:20] = (0x3F0F).to_bytes(4, "little")  # the format chunk claims 16 143 bytes of a 44-byte file
    recording.write_bytes(bytes(data))
    code = main(["hear", str(recording), "--lang", "de", "--context", "answer"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and str(recording) in err and "not a WAV file" in err, err


LONG_OPTION = " ".join(["Donaudampfschifffahrtsgesellschaftskapitän"] * 60)


@pytest.mark.parametrize(
    ("context_name", "options", "names"),
    [
        ("answer", (LONG_OPTION, "Paris", "Rom", "Wien"), ()),
        ("answer", tuple(f"Stadt Nummer {n}" for n in range(1000)), ()),
        ("name", (), ("Anna" * 1250, "Ben")),
    ],
    ids=["60-word-option", "1000-options", "5000-character-name"],
)
def test_what_goes_into_the_recognizers_prompt_and_grammar_is_bounded(
    whisper: Callable[[str], Recognizer], context_name: str, options: tuple[str, ...], names: tuple[str, ...]
) -> None:
    """Whisper's decoder has 448 positions: a prompt or phrase past them was "this is a bug (ValueError)"."""
    from voicemaster.config.voice import DEFAULT_VOICES
    from voicemaster.dialogue.meaning import Context, ContextName
    from voicemaster.speech.voice.synthesis import Espeak

    said = Espeak(DEFAULT_VOICES).render("Antwort B", "de")
    heard = whisper("de").recognize(said, Context(ContextName(context_name), "de", options, names))
    # Nothing the player did not say: B, or asked again.
    assert heard.intent in {"answer", "unknown"} and heard.value in {"B", None}, heard


def _extensible(samples: bytes, rate: int, bits: int = 16, channels: int = 1) -> bytes:
    """A WAVE_FORMAT_EXTENSIBLE file, as SAPI5 and many editors write even for 16-bit mono: the PCM sub-format GUID."""
    import struct

    block = channels * bits // 8
    guid = struct.pack("<H", 1) + bytes.fromhex("000000001000800000aa00389b71")
    fmt = struct.pack("<HHIIHHHHI", 0xFFFE, channels, rate, rate * block, block, bits, 22, bits, 4) + guid
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(samples)) + samples
    return b"RIFF" + struct.pack("<I", len(body)) + body


@pytest.mark.model  # Whisper hears it
@pytest.mark.audio  # eSpeak-NG says it
def test_a_16_bit_mono_extensible_wav_is_heard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from voicemaster.config.voice import DEFAULT_VOICES
    from voicemaster.speech.voice.synthesis import Espeak

    said = Espeak(DEFAULT_VOICES).render("Antwort B", "de")
    recording = tmp_path / "extensible.wav"
    recording.write_bytes(_extensible(said.samples, said.rate))
    code = main(["hear", str(recording), "--lang", "de", "--context", "answer", "--options", "Berlin|Paris|Rom|Wien"])
    shown = capsys.readouterr()
    assert code == 0, shown.err
    assert f"{recording}: answer B" in shown.out


@pytest.mark.parametrize("rate", [2_147_483_647, 0, 1])
def test_a_wav_claiming_an_absurd_rate_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], rate: int) -> None:
    recording = tmp_path / "clip.wav"
    Audio(bytes(3200), 16000).write(recording)
    data = bytearray(recording.read_bytes())
    data[24:28] = rate.to_bytes(4, "little")
    recording.write_bytes(bytes(data))
    code = main(["hear", str(recording), "--lang", "de", "--context", "answer"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and str(recording) in err and f"claims {rate} samples a second" in err, err


def test_a_fifo_given_to_hear_is_refused_not_waited_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import os

    fifo = tmp_path / "clip.wav"
    os.mkfifo(fifo)
    code = main(["hear", str(fifo), "--lang", "de", "--context", "answer"])
    err = capsys.readouterr().err
    assert code == 2 and str(fifo) in err and "not a regular file (a FIFO)" in err, err
