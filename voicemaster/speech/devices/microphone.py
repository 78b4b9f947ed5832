"""The microphone: records through a sounddevice (PortAudio) input at 16 kHz mono and delivers 32 ms frames
(`devices.AudioIn`); hearing (`speech.hearing.pipeline`) finds the utterance in them.

A microphone unplugged while the sound server has another source breaks nothing (the server moves the stream, which
then hears silence): given `lost` (`speech.capture.Watch`), `Microphone` asks whether it is still there as it listens.

A stream that gives no sound for `STALL_SECONDS` is a stall or an unplug. Given `present` (`Watch.present`), the
device's presence tells them apart, not the time: a microphone still there was stalled (the process stopped by
Ctrl-Z or SIGSTOP, a suspend, a loaded machine), and listening carries on (`stalled` says for how long, so that the
game can say where it was); one seen gone ends listening. Without `present`, the time alone decides.

Given a front end (`speech.frontend`), each block is cleaned as it arrives, with what the loudspeaker played
meanwhile (`played`, the echo canceller's reference), and the frames delivered are the front end's (each a
`speech.frame.Frame` with what the canceller saw). Cleaned on arrival, not as they are read: the canceller hears
every block in order, listened to or not, so that a listening opened partway into a line (for a barge-in) finds it
already following the line's echo, rather than meeting an echo of sound it was never handed. What no listening read,
out of our voice's reach (while the game decided), is the room's own: the room's level (`RoomLevel`) learns it as
the next listening opens. A player answering as our line ends leaves a listening no quiet of the room's to learn
from.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any, Self

from voicemaster.speech.barge_in.settings import BargeInSettings
from voicemaster.speech.devices.interfaces import STALL_SECONDS, MicrophoneLost, MicrophoneUnavailable, Playback
from voicemaster.speech.devices.portaudio import NO_DEVICE_HINT, sounddevice, unavailable
from voicemaster.speech.frame import FRAME_BYTES, FRAME_SAMPLES, FRAME_SECONDS, Frame
from voicemaster.speech.frontend import FrontEnd, PlayedSound
from voicemaster.speech.frontend.room_level import EchoTail, RoomLevel
from voicemaster.speech.signal import RECOGNITION_RATE

STUCK_LOOKS = 10
"""A microphone still there whose stream gives no sound through this many looks in a row (about as many seconds)
is opened again, once; then it counts as lost. A stopped process looks once when it continues, whatever the time."""
PRESENCE_SECONDS = 2.0
"""While listening, whether the microphone is still there is asked this often (and as listening starts): a sound
server moves the stream of an unplugged microphone to another source, which delivers silence, and nothing fails.
One look runs `pactl` twice (a few milliseconds); the frames wait in the stream's queue meanwhile."""


class Microphone:
    """Records through a sounddevice input at 16 kHz mono (None: the system default).

    The stream opens at the first `frames` (or `open`, or entering a `with` block) and stays open until `close`, so
    that speech which began just before listening started (the pre-roll) is still there.
    """

    def __init__(
        self,
        device: int | str | None = None,
        lost: Callable[[], str | None] | None = None,
        present: Callable[[], bool | None] | None = None,
        front_end: FrontEnd | None = None,
        played: PlayedSound | None = None,
        echo_tail_seconds: float = BargeInSettings().echo_tail_seconds,
    ) -> None:
        """`lost` names the microphone if it has gone (see `speech.capture.Watch`); None never asks. `present` tells
        whether it is there (True), gone (False) or cannot be told (None) when its stream stalls. `front_end` cleans
        what is heard, given `played`, what the loudspeaker played (silence without); what is heard
        `echo_tail_seconds` after it last played is the room's alone (`BargeInSettings.echo_tail_seconds`)."""
        self.device = device
        self._lost = lost
        self._present = present
        self._front_end = front_end
        self._played = played
        self.stalled = 0.0
        """The longest stall listening came through since it was last reset (seconds; the caller resets it)."""
        self._last_arrival: float | None = None
        self._stream: Any = None
        # Between two listenings nobody reads: keep a few seconds, enough for any pre-roll, and no more.
        self._frames: collections.deque[tuple[Frame, bool]] = collections.deque(maxlen=round(10 / FRAME_SECONDS))
        """Blocks heard (cleaned, given a front end), each with whether it was the room's alone: heard
        `echo_tail_seconds` after the loudspeaker last played (known only with what it played)."""
        self._echo_tail = EchoTail(echo_tail_seconds)
        self._arrived = threading.Condition()
        self._ended = False
        self.room = RoomLevel()
        """The room's own level, kept from one listening to the next (`RoomLevel`)."""

    def frames(self, during: Playback | None = None, *, before: float = 0.0) -> Iterator[Frame]:
        del during  # the program's own voice reaches a microphone as any sound does
        self.open()
        next_look = time.monotonic()
        for frame in self._live_frames(before):
            if self._lost is not None and time.monotonic() >= next_look:
                self._check_present(self._lost)
                next_look = time.monotonic() + PRESENCE_SECONDS
            yield frame

    def _check_present(self, lost: Callable[[], str | None]) -> None:
        name = lost()
        if name is not None:
            self.close()
            raise MicrophoneLost(
                f"The microphone {name!r} was unplugged (the sound server went on recording from another source, "
                f"which only gives silence): {NO_DEVICE_HINT}."
            )

    def close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is None:
            return
        try:
            stream.abort()
            stream.close()
        except sounddevice().PortAudioError:
            pass  # the device is already gone

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def open(self) -> None:
        """Start hearing; raises `AudioUnavailable` if there is no microphone."""
        if self._stream is not None:
            return
        sd = sounddevice()
        self._ended = False
        self._last_arrival = None
        self._frames.clear()
        try:
            self._stream = sd.RawInputStream(
                samplerate=RECOGNITION_RATE,
                channels=1,
                dtype="int16",
                blocksize=FRAME_SAMPLES,
                device=self.device,
                callback=self._arrive,
                finished_callback=self._end,
            )
        except sd.PortAudioError as error:
            raise MicrophoneUnavailable(str(unavailable("microphone", error))) from None
        try:
            self._stream.start()
        except sd.PortAudioError as error:
            self.close()
            raise MicrophoneUnavailable(str(unavailable("microphone", error))) from None

    def _arrive(self, data: Any, frames: int, at: Any, status: Any) -> None:
        del frames, at, status  # an overflow loses a frame; the segmenter copes, so it is not worth a message
        now = time.monotonic()
        if self._last_arrival is not None:  # blocks come every 32 ms: a longer gap is the process or the device stalled
            self.stalled = max(self.stalled, now - self._last_arrival)
        self._last_arrival = now
        block = bytes(data)
        played = self._played.take(len(block)) if self._played is not None else bytes(len(block))
        # Cheap enough for the audio thread (`bench frontend` measures it).
        heard = self._front_end.process(block, played) if self._front_end is not None else Frame(block)
        alone = self._echo_tail.alone(played) and self._played is not None
        with self._arrived:
            self._frames.append((heard, alone))
            self._arrived.notify()

    def _end(self) -> None:
        # PortAudio ends an input stream on its own only when its device has gone.
        with self._arrived:
            self._ended = True
            self._arrived.notify()

    def _live_frames(self, before: float) -> Iterator[Frame]:
        """The pre-roll kept from before, then frames as they arrive, cut to exactly one frame each: a frame is
        judged as the block it ends in (blocks are frames, `blocksize`, so each is judged by its own)."""
        pre_roll = round(before / FRAME_SECONDS)
        with self._arrived:
            heard = list(self._frames)
            self._frames.clear()
        unread, kept = (heard[:-pre_roll], heard[-pre_roll:]) if pre_roll else (heard, [])
        for block, alone in unread:
            if alone:
                self.room.hear(block.samples)
        pending = bytearray()
        judged = Frame(b"")
        blocks = (block for block, _ in kept)
        while True:
            while len(pending) >= FRAME_BYTES:
                yield judged.reframed(bytes(pending[:FRAME_BYTES]))
                del pending[:FRAME_BYTES]
            judged = next(blocks, None) or self._next_block()
            pending += judged.samples

    def _next_block(self) -> Frame:
        quiet_since = time.monotonic()
        looks = 0
        reopened = False
        while True:
            with self._arrived:
                if not self._frames and not self._ended:
                    self._arrived.wait(STALL_SECONDS)
                if self._frames:
                    return self._frames.popleft()[0]
                ended = self._ended
            # The stream ended, or gave no sound for a second where it should every 32 ms: an unplug (a device can
            # vanish leaving the stream hanging), or a stall. Its presence tells; without it, the time does.
            present = False if ended or self._present is None else self._present()
            # Cannot be told (a sound server too loaded to answer in time): a stall too, until it has lasted.
            if present is not False and looks < STUCK_LOOKS:
                looks += 1
                self.stalled = max(self.stalled, time.monotonic() - quiet_since)
                continue
            if present and not reopened:  # there, but its stream stuck: a new one
                reopened, looks = True, 0
                self.close()
                try:
                    self.open()
                except MicrophoneUnavailable:
                    raise MicrophoneLost(f"The microphone stopped delivering sound: {NO_DEVICE_HINT}.") from None
                continue
            if present is False and self._lost is not None:
                self._check_present(self._lost)  # said by its name, if the watch knows it
            # Closing lets the next listening try again, perhaps on a new device.
            self.close()
            raise MicrophoneLost(f"The microphone stopped delivering sound (was it unplugged?): {NO_DEVICE_HINT}.")
