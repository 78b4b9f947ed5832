"""Reading a sound file another program writes: WAV (SAPI5, eSpeak) or AIFF (macOS), whole or not yet.

`Audio.read` trusts a file that voicemaster wrote itself. A file a speech library writes may still be growing when we
look, may hold stereo, 8-, 24- or 32-bit or float samples, and may state a rate that is not the samples' (pyttsx3's
eSpeak driver writes 22 050 Hz whatever the voice). So the header is parsed by hand, the file counts as complete
only when it holds every byte its header announces, and the rate can be overridden by the caller who knows better.
"""

from __future__ import annotations

import math
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from voicemaster.file_reading import FileRefused, open_regular
from voicemaster.speech.audio import Audio
from voicemaster.speech.signal import from_float

WAVE_PCM, WAVE_FLOAT, WAVE_EXTENSIBLE = 1, 3, 0xFFFE
RATES = (4_000, 384_000)
"""The sample rates a recording may have: a header claiming 2 147 483 647 Hz is damaged, not a recording."""
HEAD_BYTES = 1 << 16
"""Where a WAV's format chunk and the start of its data must be found; only the samples wanted are read after."""


class NotSound(ValueError):
    """Samples that no sound has (NaN or infinite floats); str() says so in a user's words."""


@dataclass(frozen=True)
class Sound:
    """Samples as the file stores them, with what its header says about them."""

    samples: bytes
    rate: int
    channels: int
    width: int
    """Bytes per sample of one channel."""
    floating: bool = False
    big_endian: bool = False
    unsigned: bool = False
    """8-bit WAV is unsigned."""

    def to_audio(self, rate: int | None = None) -> Audio:
        """16-bit mono at `rate` (default: the header's); channels are averaged. `NotSound` for float samples that
        are not numbers (NaN, infinity): a damaged file, which no arithmetic turns into sound."""
        frame = self.channels * self.width
        usable = self.samples[: len(self.samples) // frame * frame]
        order = ">" if self.big_endian else "<"
        if self.floating:
            values = np.frombuffer(usable, dtype=f"{order}f{self.width}").astype(np.float64)
            if not np.isfinite(values).all():
                raise NotSound("its float samples hold NaN or infinity, which no recording has: export it again")
        elif self.width == 3:
            raw = np.frombuffer(usable, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
            high, low = (raw[:, 0], raw[:, 2]) if self.big_endian else (raw[:, 2], raw[:, 0])
            values = ((high << 24) | (raw[:, 1] << 16) | (low << 8)).astype(np.float64) / 2**31
        else:
            kind = "u" if self.unsigned else "i"
            values = np.frombuffer(usable, dtype=f"{order}{kind}{self.width}").astype(np.float64)
            if self.unsigned:
                values -= 2 ** (8 * self.width - 1)
            values /= 2 ** (8 * self.width - 1)
        mono = values.reshape(-1, self.channels).mean(axis=1)
        return from_float(mono, rate or self.rate)


def read_recording(path: Path, seconds: float | None = None) -> tuple[Audio, float]:
    """A recording someone gives `hear`: its first `seconds` (all for None) as 16-bit mono at its own rate, and how
    long the whole recording is. Any PCM or float WAV, WAVE_FORMAT_EXTENSIBLE too, is read; only what is kept is
    read from disk; a file cut off mid-sample is read up to its last whole sample. A ValueError names the file."""
    try:
        with open_regular(path) as file:
            sound_format, start, frames = _recording_format(file)
            channels, width = sound_format.channels, sound_format.width
            wanted = frames if seconds is None else min(frames, int(seconds * sound_format.rate))
            file.seek(start)
            samples = file.read(wanted * channels * width)
    except FileRefused as error:
        raise ValueError(f"{path}: {error}") from None
    except _NotAWave as error:
        raise ValueError(f"{path}: not a WAV file ({error})") from None
    sound = Sound(samples, sound_format.rate, channels, width, sound_format.floating, unsigned=width == 1)
    if channels == 1 and width == 2 and not sound.floating:
        audio = Audio(samples[: len(samples) // 2 * 2], sound.rate)  # already what we use: no arithmetic
    else:
        try:
            audio = sound.to_audio()
        except NotSound as error:
            raise ValueError(f"{path}: {error}") from None
    return audio, frames / sound.rate


def recording_seconds(path: Path) -> float:
    """How long a recording is, from its header alone: what `read_recording` would refuse is refused here too
    (a ValueError naming the file), but no sample is read, so that many recordings can be checked before one is
    decoded."""
    try:
        with open_regular(path) as file:
            sound_format, _, frames = _recording_format(file)
    except FileRefused as error:
        raise ValueError(f"{path}: {error}") from None
    except _NotAWave as error:
        raise ValueError(f"{path}: not a WAV file ({error})") from None
    return frames / sound_format.rate


def _recording_format(file: BinaryIO) -> tuple[Sound, int, int]:
    """A WAV's format (a Sound without samples), where its samples start, and how many whole frames it holds."""
    head = file.read(HEAD_BYTES)
    sound_format, start, declared = _head_format(head)
    size = os.fstat(file.fileno()).st_size
    # A size of 0 (a streaming writer's) or past the end: the samples are what the file holds.
    available = min(declared, size - start) if declared else size - start
    return sound_format, start, max(0, available) // (sound_format.channels * sound_format.width)


class _NotAWave(ValueError):
    pass


def _head_format(head: bytes) -> tuple[Sound, int, int]:
    """The format (a Sound without samples), where the samples start and their declared size."""
    if head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        raise _NotAWave("no RIFF/WAVE header")
    chunks = _chunks(head, "<")
    if b"fmt " not in chunks:
        raise _NotAWave("no format chunk at its start")
    if b"data" not in chunks:
        raise _NotAWave("no data chunk")
    start, size = chunks[b"fmt "]
    if size < 16 or len(head) < start + 16:
        raise _NotAWave("its format chunk is cut off")
    tag, channels, rate, _, _, bits = struct.unpack("<HHIIHH", head[start : start + 16])
    if tag == WAVE_EXTENSIBLE:
        if size < 26 or len(head) < start + 26:
            raise _NotAWave("its extensible format chunk is cut off")
        (tag,) = struct.unpack("<H", head[start + 24 : start + 26])  # the sub-format GUID's first two bytes
    if tag not in (WAVE_PCM, WAVE_FLOAT):
        raise _NotAWave(f"format {tag}, not PCM or float samples")
    if not 1 <= channels <= 32:
        raise _NotAWave(f"{channels} channels")
    if bits not in ((32, 64) if tag == WAVE_FLOAT else (8, 16, 24, 32)):
        raise _NotAWave(f"{bits}-bit samples")
    low, high = RATES
    if not low <= rate <= high:
        raise _NotAWave(f"its header claims {rate} samples a second; a recording has {low} to {high}")
    data, declared = chunks[b"data"]
    return Sound(b"", rate, channels, bits // 8, floating=tag == WAVE_FLOAT), data, declared


def read_complete(path: Path) -> Sound | None:
    """The file's sound, or None while it is missing, cut short or not a sound file (yet)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return _wave(data)
    if data[:4] == b"FORM" and data[8:12] in (b"AIFF", b"AIFC"):
        return _aiff(data)
    return None


def _chunks(data: bytes, order: str) -> dict[bytes, tuple[int, int]]:
    """Each chunk's start and its declared size; a chunk declared beyond the end is listed, to be found short."""
    found: dict[bytes, tuple[int, int]] = {}
    position = 12
    while position + 8 <= len(data):
        name = data[position : position + 4]
        (size,) = struct.unpack(f"{order}I", data[position + 4 : position + 8])
        found.setdefault(name, (position + 8, size))
        position += 8 + size + (size & 1)
    return found


def _wave(data: bytes) -> Sound | None:
    chunks = _chunks(data, "<")
    if b"fmt " not in chunks or b"data" not in chunks:
        return None
    start, _ = chunks[b"fmt "]
    tag, channels, rate, _, _, bits = struct.unpack("<HHIIHH", data[start : start + 16])
    if tag == WAVE_EXTENSIBLE:
        (tag,) = struct.unpack("<H", data[start + 24 : start + 26])
    if tag not in (WAVE_PCM, WAVE_FLOAT) or channels == 0 or bits % 8:
        return None
    samples = _declared(data, *chunks[b"data"])
    if samples is None:
        return None
    return Sound(samples, rate, channels, bits // 8, floating=tag == WAVE_FLOAT, unsigned=bits == 8)


def _aiff(data: bytes) -> Sound | None:
    chunks = _chunks(data, ">")
    if b"COMM" not in chunks or b"SSND" not in chunks:
        return None
    start, size = chunks[b"COMM"]
    channels, _, bits = struct.unpack(">hIh", data[start : start + 8])
    rate = _extended(data[start + 8 : start + 18])
    compression = data[start + 18 : start + 22] if data[8:12] == b"AIFC" and size >= 22 else b"NONE"
    if compression not in (b"NONE", b"sowt", b"fl32", b"FL32") or channels <= 0 or bits % 8:
        return None
    ssnd, declared = chunks[b"SSND"]
    if declared < 8 or len(data) < ssnd + 8:
        return None
    (offset,) = struct.unpack(">I", data[ssnd : ssnd + 4])
    samples = _declared(data, ssnd + 8 + offset, declared - 8 - offset)
    if samples is None:
        return None
    floating = compression in (b"fl32", b"FL32")
    return Sound(samples, rate, channels, 4 if floating else bits // 8, floating, big_endian=compression != b"sowt")


def _declared(data: bytes, start: int, size: int) -> bytes | None:
    """The samples a chunk announces, None while the file holds fewer. A size of 0 is what streaming writers put
    there before they know the length: not finished either."""
    if size == 0 or len(data) < start + size:
        return None
    return data[start : start + size]


def _extended(raw: bytes) -> int:
    """AIFF's sample rate: an 80-bit IEEE extended float."""
    exponent, mantissa = struct.unpack(">HQ", raw)
    return round(math.ldexp(mantissa, (exponent & 0x7FFF) - 16383 - 63)) if mantissa else 0
