"""Which microphone the game started with, and whether it has gone: the pure decision, and the parsing of what
`pactl` and /proc/asound say (their real text, abridged)."""

from __future__ import annotations

from pathlib import Path

from voicemaster.speech.devices.capture import (
    Capture,
    InUse,
    Via,
    gone,
    hears_only_itself,
    in_use,
    look_alsa,
    look_server,
    parse_alsa,
    parse_pactl,
)

INFO = """Server String: /run/user/1000/pulse/native
Server Name: pulseaudio
Default Sink: vspk
Default Source: {default}
Cookie: 1b2c:3d4e
"""

SOURCES = """Source #0
\tState: RUNNING
\tName: vmic.monitor
\tDescription: Monitor of Null Output
\tMonitor of Sink: vmic
\tProperties:
\t\tdevice.class = "monitor"

Source #2
\tState: IDLE
\tName: alsa_input.usb-0c76_USB_PnP_Audio_Device-00.mono-fallback
\tDescription: USB PnP Audio Device Mono
\tMonitor of Sink: n/a
\tProperties:
\t\tdevice.class = "sound"
"""
USB = "alsa_input.usb-0c76_USB_PnP_Audio_Device-00.mono-fallback"

CARDS = """ 0 [PCH            ]: HDA-Intel - HDA Intel PCH
                      HDA Intel PCH at 0xf7f10000 irq 32
 1 [Device         ]: USB-Audio - USB PnP Sound Device
                      C-Media Electronics Inc. USB PnP Sound Device at usb-0000:00:14.0-1, full speed
"""
PCM = """00-00: ALC3232 Analog : ALC3232 Analog : playback 1 : capture 1
00-03: HDMI 0 : HDMI 0 : playback 1
01-00: USB Audio : USB Audio : capture 1
"""


def test_a_servers_sources_are_read_monitors_apart() -> None:
    capture = parse_pactl(INFO.format(default=USB), SOURCES)
    assert capture == Capture(Via.SERVER, frozenset({USB}), USB, sources=frozenset({USB, "vmic.monitor"}))


SPEAKER_MONITOR = """Source #1
\tState: IDLE
\tName: vspk.monitor
\tDescription: Monitor of Null Output
\tMonitor of Sink: vspk
"""


def test_a_server_whose_only_source_is_the_speakers_own_monitor_has_no_microphone() -> None:
    # The game would record its own lines and wait for ever on the silence between them.
    assert hears_only_itself(parse_pactl(INFO.format(default="vspk.monitor"), SPEAKER_MONITOR))
    # A monitor of another sink can be a microphone routed on purpose (the tests' virtual one is), and a real
    # source is a microphone.
    assert not hears_only_itself(parse_pactl(INFO.format(default="vmic.monitor"), SOURCES + SPEAKER_MONITOR))
    assert not hears_only_itself(parse_pactl(INFO.format(default=USB), SOURCES + SPEAKER_MONITOR))
    assert not hears_only_itself(None)


def test_the_servers_default_source_is_the_microphone_in_use() -> None:
    assert in_use(parse_pactl(INFO.format(default=USB), SOURCES)) == InUse(Via.SERVER, USB)


OUTPUTS = """Source Output #0
\tDriver: module-remap-source.c
\tSource: 0
\tProperties:
\t\tmedia.name = "Remapped Stream"

Source Output #7
\tDriver: protocol-native.c
\tSource: {source}
\tProperties:
\t\tmedia.name = "ALSA Capture"
\t\tapplication.process.id = "4242"
"""


def test_the_source_the_programs_own_stream_is_on_is_watched_rather_than_the_default() -> None:
    """A source chosen for the program in the mixer (or restored by the server) is the one it hears through."""
    on_usb = parse_pactl(INFO.format(default="vmic.monitor"), SOURCES, OUTPUTS.format(source=2), pid=4242)
    assert on_usb.recording == USB and in_use(on_usb) == InUse(Via.SERVER, USB)
    on_virtual = parse_pactl(INFO.format(default=USB), SOURCES, OUTPUTS.format(source=0), pid=4242)
    assert in_use(on_virtual) == InUse(Via.SERVER, "vmic.monitor")  # a virtual microphone: another sink's monitor
    someone_elses = parse_pactl(INFO.format(default=USB), SOURCES, OUTPUTS.format(source=0), pid=1)
    assert someone_elses.recording is None and in_use(someone_elses) == InUse(Via.SERVER, USB)


def test_the_speakers_own_monitor_as_default_source_is_no_microphone_and_nothing_is_watched() -> None:
    assert in_use(parse_pactl(INFO.format(default="vspk.monitor"), SOURCES + SPEAKER_MONITOR)) is None
    assert not gone(None, Capture(Via.SERVER, frozenset()))


SPEAKER_MONITOR_RECORDING = OUTPUTS.format(source=1)


def test_a_virtual_microphone_removed_and_the_stream_moved_to_the_speakers_monitor_is_gone() -> None:
    """Issue 25: a monitor source used as the microphone (a virtual or loopback device) removed mid-game: the server
    moves the game's stream onto the speaker's monitor, where it would hear only itself."""
    started = in_use(parse_pactl(INFO.format(default="vmic.monitor"), SOURCES + SPEAKER_MONITOR))
    assert started == InUse(Via.SERVER, "vmic.monitor")
    still = parse_pactl(INFO.format(default="vmic.monitor"), SOURCES + SPEAKER_MONITOR, OUTPUTS.format(source=0), 4242)
    assert not gone(started, still)
    removed = SOURCES.split("Source #2")[0].replace("vmic.monitor", "gone.monitor") + SPEAKER_MONITOR
    moved = parse_pactl(INFO.format(default="vspk.monitor"), removed, SPEAKER_MONITOR_RECORDING, pid=4242)
    assert gone(started, moved)


def test_a_microphone_unplugged_while_the_server_moved_the_stream_elsewhere_is_gone() -> None:
    started = in_use(parse_pactl(INFO.format(default=USB), SOURCES))
    after = parse_pactl(INFO.format(default="vmic.monitor"), SOURCES.split("Source #2")[0])
    assert gone(started, after)


def test_a_microphone_still_there_is_not_gone_whatever_the_default_now() -> None:
    started = in_use(parse_pactl(INFO.format(default=USB), SOURCES))
    assert not gone(started, parse_pactl(INFO.format(default="vmic.monitor"), SOURCES))


def test_a_look_that_failed_or_of_another_kind_proves_nothing() -> None:
    started = InUse(Via.SERVER, USB)
    assert not gone(started, None)  # the server did not answer: its loss breaks the stream, noticed elsewhere
    assert not gone(started, Capture(Via.ALSA, frozenset({"Device"})))


def test_under_alsa_the_one_card_that_records_is_watched() -> None:
    assert parse_alsa(CARDS, PCM) == Capture(Via.ALSA, frozenset({"PCH", "Device"}))
    assert in_use(parse_alsa(CARDS, PCM)) is None  # two cards that record: which one is in use is not known here
    only_usb = parse_alsa(CARDS.replace(" 0 [PCH", " 9 [PCH"), PCM)
    assert in_use(only_usb) == InUse(Via.ALSA, "Device")
    assert gone(InUse(Via.ALSA, "Device"), parse_alsa(CARDS.split(" 1 [")[0], PCM))


def test_without_pactl_or_proc_nothing_is_seen(tmp_path: Path) -> None:
    assert look_server(lambda _args: None) is None
    assert look_alsa(tmp_path) is None
    shown = {"info": INFO.format(default=USB), "sources": SOURCES, "source-outputs": ""}
    seen = look_server(lambda args: shown[args[-1]])
    assert seen is not None and USB in seen.microphones
