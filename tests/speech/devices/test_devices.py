"""The file twins of the microphone and speaker, the errors a player sees when audio hardware is missing, the
`devices` command, and the voice changes a player can ask for."""

from __future__ import annotations

import importlib.abc
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.speech.conftest import matches
from tests.speech.listening import listen
from voicemaster.cli import app as cli
from voicemaster.config.voice import Voice
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices import portaudio as devices
from voicemaster.speech.devices.files import FileSink, FileSource, Played, ScriptEnded
from voicemaster.speech.devices.interfaces import AudioUnavailable
from voicemaster.speech.devices.loudspeaker import Speaker
from voicemaster.speech.devices.microphone import Microphone
from voicemaster.speech.devices.portaudio import Device
from voicemaster.speech.signal import resample
from voicemaster.speech.voice import voices
from voicemaster.speech.voice.synthesis import Espeak

pytestmark = pytest.mark.audio  # sound played, written and heard back

# --- the file sink: the session recording ------------------------------------------------------------------------


def test_the_file_sink_records_the_session_with_where_each_sound_starts(espeak: Espeak, tmp_path: Path) -> None:
    sink = FileSink()
    welcome, question = espeak.render("Willkommen!", "de"), espeak.render("Frage eins.", "de")
    playback = sink.play(welcome)
    assert playback.done() and playback.wait() and playback.position() == welcome.seconds
    sink.pause(1.5)
    sink.play(resample(question))  # a sound at another rate is converted, not sped up
    assert sink.played[0] == Played(0.0, welcome.seconds)
    assert sink.played[1].start == pytest.approx(welcome.seconds + 1.5, abs=1e-4)
    assert sink.played[1].seconds == pytest.approx(question.seconds, abs=1e-4)
    sink.write(tmp_path / "session.wav")
    session = Audio.read(tmp_path / "session.wav")
    assert session.rate == 22_050
    assert session.seconds == pytest.approx(welcome.seconds + 1.5 + question.seconds, abs=1e-3)
    assert session.samples[: len(welcome.samples)] == welcome.samples


def test_a_session_written_as_it_is_made_is_on_disk_at_every_step_and_not_held_in_memory(tmp_path: Path) -> None:
    """Issue 25: a long demo's memory grew with the game, its session held until the end."""
    path = tmp_path / "session.wav"
    sink = FileSink(path=path)
    minute = Audio(bytes(2 * 22_050 * 60), 22_050)
    for played in range(1, 4):
        sink.play(minute)
        sink.pause(1.0)
        assert Audio.read(path).seconds == pytest.approx(played * 61.0)  # readable as it grows: a crash keeps it
        assert len(sink._samples) == 0  # nothing of it kept in memory
    sink.write(path)
    assert sink.session.seconds == pytest.approx(183.0) and sink.seconds == pytest.approx(183.0)


# --- the file source: a scripted player ---------------------------------------------------------------------------


def test_the_file_source_hears_each_scripted_line_trimmed_to_its_speech(espeak: Espeak, tmp_path: Path) -> None:
    answer = espeak.render("Antwort B", "de")
    padded = Audio(bytes(2 * 22_050) + answer.samples + bytes(2 * 22_050), answer.rate)  # a second before and after
    padded.write(tmp_path / "answer.wav")
    yes = espeak.render("Ja", "de")
    source = FileSource([tmp_path / "answer.wav", None, yes])
    heard = listen(source, timeout=3, during=FileSink().play(espeak.render("Ihre Antwort?", "de")))
    assert heard is not None and heard.rate == 16_000
    assert matches(heard, answer) > 0.99
    assert heard.seconds < answer.seconds + 0.5  # the second of silence on each side is not part of it
    assert listen(source, timeout=3) is None  # the scripted player says nothing
    confirmed = listen(source, timeout=3)
    assert confirmed is not None and matches(confirmed, yes) > 0.99
    with pytest.raises(ScriptEnded):  # all three lines were heard, none left over
        listen(source, timeout=3)


def test_a_scripted_line_without_speech_is_heard_as_silence() -> None:
    hiss = np.random.default_rng(3).normal(0, 300, 32_000).astype("<i2").tobytes()
    assert listen(FileSource([Audio(hiss, 16_000)]), timeout=1) is None


# --- missing hardware: a clear message, never a traceback ---------------------------------------------------------


class _NoPortAudio(importlib.abc.MetaPathFinder):
    """Imports sounddevice as a machine without libportaudio2 does: its loader raises OSError."""

    def find_spec(self, name: str, *_: object) -> None:
        if name == "sounddevice":
            raise OSError("PortAudio library not found")


def test_without_the_portaudio_library_the_message_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_NoPortAudio(), *sys.meta_path])
    with pytest.raises(AudioUnavailable, match=r"apt-get install libportaudio2"):
        listen(Microphone(), timeout=1)
    with pytest.raises(AudioUnavailable, match=r"apt-get install libportaudio2"):
        Speaker().play(Audio(bytes(3200), 16_000))
    with pytest.raises(AudioUnavailable, match=r"apt-get install libportaudio2"):
        devices.list_devices()


@pytest.fixture
def no_sound_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[dict[str, str]]:
    """PortAudio restarted with PulseAudio pointed at nowhere: on a machine without a sound card, no devices."""
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path / 'nobody-here'}")
    devices.rescan()
    try:
        if devices.list_devices():
            pytest.skip("this machine has a sound card; the no-device path needs one without")
        yield {"PULSE_SERVER": f"unix:{tmp_path / 'nobody-here'}"}
    finally:
        monkeypatch.undo()
        devices.rescan()


def test_with_no_device_listening_and_speaking_say_what_to_plug_in(no_sound_server: dict[str, str]) -> None:
    del no_sound_server
    with pytest.raises(AudioUnavailable, match=r"No usable microphone .*plug in a headset"):
        listen(Microphone(), timeout=1)
    with pytest.raises(AudioUnavailable, match=r"No usable speaker .*plug in a headset"):
        Speaker().play(Audio(bytes(3200), 16_000))


def test_the_commands_with_no_device_say_so_without_a_traceback(no_sound_server: dict[str, str]) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "voicemaster", *args]
        env = {**os.environ, **no_sound_server}
        return subprocess.run(command, env=env, capture_output=True, text=True, check=False, timeout=60)

    listed = run("devices")
    assert listed.returncode == 1
    assert "Microphones (input): none" in listed.stdout and "Speakers (output): none" in listed.stdout
    assert "plug in a headset" in listed.stderr and "Traceback" not in listed.stderr
    said = run("say", "Hallo", "--lang", "de")
    assert said.returncode == 2
    assert "No usable speaker" in said.stderr and "Traceback" not in said.stderr


def test_the_devices_command_lists_inputs_and_outputs_with_the_defaults(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    found = [
        Device(0, "USB Headset", "ALSA", inputs=1, outputs=2, default_rate=48_000, default_input=True),
        Device(1, "Car speakers", "ALSA", inputs=0, outputs=2, default_rate=44_100, default_output=True),
    ]
    monkeypatch.setattr(devices, "list_devices", lambda **_: found)
    assert cli.main(["devices"]) == 0
    shown = capsys.readouterr().out
    microphones, speakers = shown.split("Speakers (output):")
    assert "*  0  USB Headset (ALSA), 1 channel(s), 48000 Hz" in microphones and "Car speakers" not in microphones
    assert "   0  USB Headset (ALSA), 2 channel(s)" in speakers
    assert "*  1  Car speakers (ALSA), 2 channel(s), 44100 Hz" in speakers
    # What the microphone is heard through, and how to turn it off.
    assert (
        "Between microphone and hearing: WebRTC echo cancellation, players over our voice heard by a barge-in "
        "filter; [speech] echo_cancel = true, noise_suppression = false, barge_in_filter = true"
    ) in speakers


def test_a_missing_portaudio_library_in_the_devices_command_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def missing(**_: object) -> list[Device]:
        raise AudioUnavailable("The PortAudio library is missing: run `sudo apt-get install libportaudio2`.")

    monkeypatch.setattr(devices, "list_devices", missing)
    assert cli.main(["devices"]) == 2
    assert capsys.readouterr().err == (
        "voicemaster: The PortAudio library is missing: run `sudo apt-get install libportaudio2`.\n"
    )


# --- "langsamer", "schneller", "lauter", "leiser" ----------------------------------------------------------------


def test_slower_and_faster_change_the_rate_in_steps_and_stop_at_sane_bounds() -> None:
    voice = Voice("de", rate=160)
    steps = [voice]
    for _ in range(6):
        steps.append(voices.slower(steps[-1]))
    rates = [step.rate for step in steps]
    assert rates[:4] == sorted(rates[:4], reverse=True) and rates[1] < 150
    assert rates[-1] == rates[-2] == voices.SLOWEST
    fastest = voice
    for _ in range(10):
        fastest = voices.faster(fastest)
    assert fastest.rate == voices.FASTEST and fastest.name == "de" and fastest.volume == voice.volume
    assert voices.slower(voices.faster(voice)).rate == pytest.approx(voice.rate, abs=1)


def test_a_rate_the_user_set_outside_the_bounds_is_never_moved_the_wrong_way() -> None:
    assert voices.slower(Voice("de", rate=90)).rate == 90
    assert voices.faster(Voice("de", rate=90)).rate > 90
    assert voices.faster(Voice("de", rate=400)).rate == 400
    assert voices.slower(Voice("de", rate=400)).rate < 400


def test_louder_and_quieter_stay_audible() -> None:
    voice = Voice("de", volume=100)
    assert voices.louder(voice).volume > 100 and voices.quieter(voice).volume < 100
    silent = Voice("de", volume=0)
    assert voices.louder(silent).volume == voices.QUIETEST
    quietest = voice
    for _ in range(10):
        quietest = voices.quieter(quietest)
    assert quietest.volume == voices.QUIETEST
    spoken = Espeak({"de": quietest}).render("Hallo", "de")
    assert spoken.rms() > 100  # still heard
    assert spoken.rms() < Espeak({"de": replace(quietest, volume=100)}).render("Hallo", "de").rms()
