"""Through the real sounddevice path, in real time: a private PulseAudio daemon's virtual microphone and speaker.

What is played into the virtual microphone is heard, cut at the end of speech; what the program says arrives at the
virtual speaker complete; with the speaker looped back into the microphone (as in a car), the program does not hear
itself, and a player talking over it stops it. Devices that vanish mid-game give a clear error.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest

from tests.speech.conftest import Pulse, matches, start_pulse
from tests.speech.listening import listen
from voicemaster.config.voice import Voice
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices import portaudio as devices
from voicemaster.speech.devices.capture import Watch, speaker_present
from voicemaster.speech.devices.interfaces import AudioUnavailable, MicrophoneLost, MicrophoneUnavailable
from voicemaster.speech.devices.loudspeaker import Speaker
from voicemaster.speech.devices.microphone import PRESENCE_SECONDS, Microphone
from voicemaster.speech.hearing.endpoint_settings import EndpointSettings
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import resample
from voicemaster.speech.voice.pico import Pico
from voicemaster.speech.voice.synthesis import Espeak

pytestmark = pytest.mark.audio  # a PulseAudio daemon of its own, played and recorded

SETTINGS = EndpointSettings()


def sound_span(audio: Audio, level: int = 300) -> tuple[float, float]:
    """Seconds from the start of `audio` to its first and last sample above a whisper."""
    loud = np.nonzero(np.abs(np.frombuffer(audio.samples, dtype="<i2")) > level)[0]
    assert len(loud), "no sound at all"
    return loud[0] / audio.rate, (loud[-1] + 1) / audio.rate


@dataclass(frozen=True)
class MicrophoneCapture:
    """One utterance played into the virtual microphone and what the microphone made of it.

    `heard` is the Audio a recognizer would be given (16 kHz); the recognition test uses it as it is.
    """

    text: str
    language: str
    spoken: Audio
    heard: Audio | None
    decided_after: float
    """Seconds from the end of the spoken sound to `listen` returning, as a player would wait (upper bound: it
    includes the player process starting)."""


@pytest.fixture(scope="module")
def microphone_capture(pulse: Pulse) -> MicrophoneCapture:
    text, language = "Antwort B", "de"
    # In the German quizmaster's own voice (Pico), as a player would sound; at the microphone's rate, so that what is
    # heard can be matched sample for sample.
    spoken = resample(Pico().speak(text, Voice("de-DE", engine="pico")))
    with Microphone() as microphone:
        started = time.monotonic()
        player = pulse.feed_microphone(spoken)
        heard = listen(microphone, timeout=3)
        returned = time.monotonic()
        player.wait(timeout=5)
    return MicrophoneCapture(text, language, spoken, heard, returned - started - sound_span(spoken)[1])


def test_the_microphone_hears_an_utterance_played_into_it(microphone_capture: MicrophoneCapture) -> None:
    capture = microphone_capture
    assert capture.heard is not None and capture.heard.rate == 16_000
    assert matches(capture.heard, capture.spoken) > 0.999  # sample for sample: nothing lost, nothing added
    begin, end = sound_span(capture.spoken)
    assert capture.heard.seconds < end - begin + SETTINGS.pre_roll_seconds + SETTINGS.post_roll_seconds + 0.1
    # It answers once the player has stopped, not at the 3 s timeout (a loose bound: the CPU may be busy).
    assert SETTINGS.silence_seconds < capture.decided_after < 2.5


def test_what_the_microphone_heard_is_recognized(
    microphone_capture: MicrophoneCapture, whisper: Callable[[str], WhisperRecognizer]
) -> None:
    from voicemaster.dialogue.meaning import Context, ContextName

    assert microphone_capture.heard is not None
    recognizer = whisper("de")
    context = Context(ContextName.ANSWER, "de", ("Berlin", "Paris", "Rom", "Wien"))
    heard = recognizer.recognize(microphone_capture.heard, context)
    assert (heard.intent, heard.value) == ("answer", "B"), heard


def test_the_speaker_plays_a_sentence_complete_and_knows_when_it_ends(pulse: Pulse, espeak: Espeak) -> None:
    sentence = espeak.render("Frage sieben, um zweitausend Euro.", "de")
    with pulse.record_speaker() as recording:
        started = time.monotonic()
        playback = Speaker().play(sentence)
        assert not playback.done()
        assert playback.wait(timeout=sentence.seconds + 2)
        took = time.monotonic() - started
    assert sentence.seconds - 0.02 < took < sentence.seconds + 1.5  # loose: the CPU may be busy
    assert playback.position() == pytest.approx(sentence.seconds)
    assert matches(recording.audio, sentence) > 0.99  # resampled by PulseAudio, so not bit-exact
    begin, end = sound_span(recording.audio)
    spoken_begin, spoken_end = sound_span(sentence)
    assert end - begin == pytest.approx(spoken_end - spoken_begin, abs=0.02)


def test_the_speaker_stops_at_once_when_told(pulse: Pulse, espeak: Espeak) -> None:
    sentence = espeak.render("Welche Stadt ist die Hauptstadt von Deutschland? Berlin, Paris, Rom oder Wien?", "de")
    with pulse.record_speaker() as recording:
        playback = Speaker().play(sentence)
        time.sleep(0.8)
        playback.stop()
        assert playback.done()
        time.sleep(0.5)
    _, end = sound_span(recording.audio)
    begin, _ = sound_span(recording.audio)
    assert end - begin < 0.8 + 0.4  # what was buffered is dropped, not played out
    assert playback.position() < 1.2


def test_the_program_does_not_hear_its_own_voice(pulse: Pulse, espeak: Espeak) -> None:
    question = espeak.render("Ist das Ihre endgültige Antwort? Ja oder nein?", "de")
    with pulse.echo(), Microphone() as microphone:
        playback = Speaker().play(question)
        heard = listen(microphone, timeout=0.5, during=playback)
    assert heard is None
    assert playback.position() == pytest.approx(question.seconds)  # played to the end: it never interrupted itself


def test_a_player_talking_over_the_program_stops_it_and_is_heard(pulse: Pulse, espeak: Espeak) -> None:
    # The loudspeakers at the back at 30 % of the level the player reaches the microphone with.
    quiet = Espeak({"de": replace(espeak.voices["de"], volume=30)})
    question = quiet.render("Welche Stadt ist die Hauptstadt von Deutschland? Berlin, Paris, Rom oder Wien?", "de")
    answer = resample(espeak.render("Stopp! Antwort B.", "de"))
    players: list[subprocess.Popen[bytes]] = []
    with pulse.echo(), Microphone() as microphone:
        playback = Speaker().play(question)
        interrupt = threading.Timer(1.0, lambda: players.append(pulse.feed_microphone(answer)))
        interrupt.start()
        heard = listen(microphone, timeout=2, during=playback)
        interrupt.join()
        players[0].wait(timeout=5)
    # Stopped soon after the player began at about 1.1 s (about 0.4 s later on an idle machine), long before the end.
    assert playback.done() and playback.position() < min(3.0, question.seconds - 2)
    assert heard is not None
    assert matches(heard, answer) > 0.9  # the start of the echo is mixed in


@pytest.fixture
def second_daemon(monkeypatch: pytest.MonkeyPatch) -> Iterator[Pulse]:
    """Another daemon that the test may stop, pointed at by PULSE_SERVER; the session's daemon stays up. PortAudio
    looks for devices again on the way in and out: it lists them once, and this worker may have started it with no
    sound server at all (a demo test before any that use the session's daemon)."""
    daemon = start_pulse(Path(tempfile.mkdtemp(prefix="vm-pulse-")))
    monkeypatch.setenv("PULSE_SERVER", daemon.server)
    devices.rescan()
    try:
        yield daemon
    finally:
        daemon.stop()
        shutil.rmtree(daemon.folder, ignore_errors=True)
        monkeypatch.undo()
        devices.rescan()


def test_a_microphone_that_disappears_mid_game_gives_a_clear_error(second_daemon: Pulse) -> None:
    with Microphone() as microphone:
        threading.Timer(0.5, second_daemon.stop).start()
        started = time.monotonic()
        with pytest.raises(AudioUnavailable, match=r"microphone stopped delivering sound .*unplugged"):
            listen(microphone, timeout=5)
        assert time.monotonic() - started < 3


def test_a_microphone_unplugged_while_another_source_exists_is_noticed(second_daemon: Pulse) -> None:
    """The server moves the stream to another source (silence, no error): the microphone is missed all the same,
    within `PRESENCE_SECONDS` of listening."""
    module = second_daemon.plug_in_microphone()
    watch = Watch()
    with Microphone(lost=watch.lost) as microphone:
        assert listen(microphone, timeout=3) is None  # still there (looked at twice): silence is only silence
        assert watch.microphone is not None and watch.microphone.name == "usbmic"
        threading.Timer(0.5, second_daemon.pactl, ("unload-module", module)).start()
        started = time.monotonic()
        with pytest.raises(MicrophoneLost, match=r"microphone 'usbmic' was unplugged"):
            listen(microphone, timeout=30)
        assert time.monotonic() - started < 0.5 + PRESENCE_SECONDS + 2  # a bound, generous for a loaded machine


def test_without_a_watch_a_moved_stream_is_only_silence(second_daemon: Pulse) -> None:
    """What the watch is for: unplugged this way, the microphone goes on listening to silence, without error."""
    module = second_daemon.plug_in_microphone()
    with Microphone() as microphone:
        listen(microphone, timeout=0.2)
        second_daemon.pactl("unload-module", module)
        assert listen(microphone, timeout=2) is None
    assert "usbmic" not in second_daemon.pactl("list", "short", "sources")


def test_a_sound_server_that_would_record_only_the_speaker_has_no_microphone(second_daemon: Pulse) -> None:
    """With no microphone, the server records the speaker's own monitor: the game would hear only itself and wait
    for ever on the silence between its lines. It is said at once instead, by `devices` and by the first listen."""
    second_daemon.pactl("set-default-source", "vspk.monitor")
    listed = run_cli(second_daemon, "devices")
    assert listed.returncode == 1
    assert "Microphones (input): none" in listed.stdout and "Speakers (output):\n" in listed.stdout
    with Microphone(lost=Watch().lost) as microphone, pytest.raises(MicrophoneUnavailable, match="no microphone"):
        listen(microphone, timeout=30)


def test_a_speaker_that_disappears_mid_sentence_gives_a_clear_error(second_daemon: Pulse, espeak: Espeak) -> None:
    sentence = espeak.render("Welche Stadt ist die Hauptstadt von Deutschland? Berlin, Paris, Rom oder Wien?", "de")
    playback = Speaker().play(sentence)
    threading.Timer(0.5, second_daemon.stop).start()
    with pytest.raises(AudioUnavailable, match=r"speaker .*unplugged"):
        playback.wait(timeout=sentence.seconds + 3)


def run_cli(pulse: Pulse, *args: str) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it: under `make coverage`, pytest-cov would trace it too (its `COV_CORE_*`
    variables), and a traced speaker's callback on a busy machine leaves gaps in what it plays."""
    untraced = {name: value for name, value in os.environ.items() if not name.startswith("COV_CORE_")}
    return subprocess.run(
        [sys.executable, "-m", "voicemaster", *args],
        env={**untraced, **pulse.env},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_say_without_a_file_speaks_through_the_speaker(pulse: Pulse, espeak: Espeak) -> None:
    text = "Herzlichen Glückwunsch!"
    with pulse.record_speaker() as recording:
        shown = run_cli(pulse, "say", text, "--lang", "de", "--voice", "espeak:de")
    assert shown.returncode == 0, shown.stderr
    assert matches(recording.audio, espeak.render(text, "de")) > 0.99


def test_the_devices_command_lists_the_virtual_devices(pulse: Pulse) -> None:
    shown = run_cli(pulse, "devices")
    assert shown.returncode == 0, shown.stderr
    microphones, speakers = shown.stdout.split("Speakers (output):")
    assert "default (ALSA)" in microphones and "default (ALSA)" in speakers
    assert "* " in microphones and "* " in speakers


@pytest.fixture
def empty_daemon() -> Iterator[Pulse]:
    """A sound server with no microphone and no speaker at all: its virtual devices unloaded."""
    daemon = start_pulse(Path(tempfile.mkdtemp(prefix="vm-pulse-")))
    try:
        for line in daemon.pactl("list", "short", "modules").splitlines():
            index, name = line.split()[:2]
            if name == "module-null-sink":
                daemon.pactl("unload-module", index)
        yield daemon
    finally:
        daemon.stop()
        shutil.rmtree(daemon.folder, ignore_errors=True)


def test_a_sound_server_without_devices_is_said_in_one_line_without_the_librarys_own(empty_daemon: Pulse) -> None:
    # ALSA still lists its "pulse" and "default" devices; only opening them tells that nothing is behind them.
    listed = run_cli(empty_daemon, "devices")
    assert listed.returncode == 1
    assert "Microphones (input): none" in listed.stdout and "Speakers (output): none" in listed.stdout
    assert listed.stderr.count("\n") == 1 and listed.stderr.startswith("voicemaster: a game needs a microphone")
    said = run_cli(empty_daemon, "say", "Hallo", "--lang", "de")
    assert said.returncode == 2
    assert said.stderr.count("\n") == 1 and said.stderr.startswith("voicemaster: No usable speaker")
    assert "ALSA lib" not in said.stderr + listed.stderr and "Expression" not in said.stderr + listed.stderr


# Issue 25: a stall (the process stopped, a suspend, a loaded machine) is told from an unplug by the device's
# presence, not by the time alone. A child process is stopped (SIGSTOP) and continued (SIGCONT) as Ctrl-Z and `fg`
# would, for longer than any stall bound.

_LISTENING_CHILD = """
from tests.speech.listening import listen
from voicemaster.speech.devices import portaudio as devices
from voicemaster.speech.devices.capture import Watch, speaker_present
from voicemaster.speech.devices.microphone import Microphone
watch = Watch()
with Microphone(lost=watch.lost, present=watch.present) as microphone:
    print("ready", flush=True)
    heard = listen(microphone, timeout=3)
    print(f"stalled {microphone.stalled:.1f}, heard {heard is not None}", flush=True)
"""

_SPEAKING_CHILD = """
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.capture import speaker_present
from voicemaster.speech.devices.loudspeaker import Speaker
speaker = Speaker(present=speaker_present)
playback = speaker.play(Audio(bytes(16_000 * 2 * 5), 16_000))
print("ready", flush=True)
assert playback.wait(timeout=120)
print(f"stalled {speaker.stalled:.1f}, played {playback.position():.1f} s", flush=True)
"""

STOPPED_SECONDS = 4.0
"""Longer than any bound a stream is given without sound (devices.STALL_SECONDS)."""


def _stopped_and_continued(pulse: Pulse, code: str) -> subprocess.CompletedProcess[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", code], env=pulse.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    child.send_signal(signal.SIGSTOP)
    time.sleep(STOPPED_SECONDS)
    child.send_signal(signal.SIGCONT)
    stdout, stderr = child.communicate(timeout=120)
    return subprocess.CompletedProcess(child.args, child.returncode, stdout, stderr)


def test_a_listening_program_stopped_and_continued_carries_on_and_knows_it_stalled(second_daemon: Pulse) -> None:
    done = _stopped_and_continued(second_daemon, _LISTENING_CHILD)
    assert done.returncode == 0, done.stderr[-400:]  # was: "The microphone stopped delivering sound"
    stalled = float(done.stdout.split("stalled ")[1].split(",")[0])
    assert stalled >= STOPPED_SECONDS - 1


def test_a_speaking_program_stopped_and_continued_plays_its_sound_to_the_end(second_daemon: Pulse) -> None:
    done = _stopped_and_continued(second_daemon, _SPEAKING_CHILD)
    assert done.returncode == 0, done.stderr[-400:]  # was: "The speaker stopped taking sound"
    assert "played 5.0 s" in done.stdout and float(done.stdout.split("stalled ")[1].split(",")[0]) >= 2


def test_a_stalled_microphone_whose_sound_server_is_gone_is_lost(second_daemon: Pulse) -> None:
    """The other side: a stall with the device gone is an unplug, said at once."""
    watch = Watch()
    with Microphone(lost=watch.lost, present=watch.present) as microphone:
        assert listen(microphone, timeout=0.5) is None
        threading.Timer(0.3, second_daemon.stop).start()
        with pytest.raises(MicrophoneLost, match="stopped delivering sound"):
            listen(microphone, timeout=30)


def test_a_virtual_microphone_removed_mid_game_is_noticed(second_daemon: Pulse) -> None:
    """A monitor source as the microphone (a virtual or loopback device): removed, the server moves the stream to
    another source and nothing fails; the watch misses it all the same."""
    module = second_daemon.pactl(
        "load-module", "module-null-sink", "sink_name=vmic2", "rate=16000", "channels=1", "norewinds=1"
    )
    second_daemon.pactl("set-default-source", "vmic2.monitor")
    watch = Watch()
    with Microphone(lost=watch.lost, present=watch.present) as microphone:
        assert listen(microphone, timeout=1) is None
        assert watch.microphone is not None and watch.microphone.name == "vmic2.monitor"
        threading.Timer(0.5, second_daemon.pactl, ("unload-module", module)).start()
        with pytest.raises(MicrophoneLost, match=r"vmic2\.monitor"):
            listen(microphone, timeout=30)


def test_a_speaker_still_there_that_stops_taking_sound_for_a_while_is_waited_for(second_daemon: Pulse) -> None:
    """The device stalls, not the process: the sink suspended for three seconds, then back."""
    speaker = Speaker(present=speaker_present)
    playback = speaker.play(Audio(bytes(16_000 * 2 * 3), 16_000))
    time.sleep(0.5)
    second_daemon.pactl("suspend-sink", "vspk", "1")
    threading.Timer(3, second_daemon.pactl, ("suspend-sink", "vspk", "0")).start()
    assert playback.wait(timeout=60)  # was: "The speaker stopped taking sound (was it unplugged?)"
    assert playback.position() == 3.0 and speaker.stalled > 1


def test_a_microphone_still_there_that_stops_delivering_for_a_while_is_waited_for(second_daemon: Pulse) -> None:
    """The device stalls, not the process: the virtual microphone's sink suspended for three seconds, then back."""
    watch = Watch()
    with Microphone(lost=watch.lost, present=watch.present) as microphone:
        assert listen(microphone, timeout=0.5) is None
        second_daemon.pactl("suspend-sink", "vmic", "1")
        threading.Timer(3, second_daemon.pactl, ("suspend-sink", "vmic", "0")).start()
        assert listen(microphone, timeout=2) is None  # was: "The microphone stopped delivering sound"
        assert microphone.stalled > 1
