"""Audio as a value: 16-bit mono samples with their rate, read from and written to WAV files."""

from __future__ import annotations

import array
import contextlib
import errno
import math
import os
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO


@dataclass(frozen=True)
class Audio:
    samples: bytes
    """Signed 16-bit little-endian mono PCM."""
    rate: int

    @property
    def seconds(self) -> float:
        return len(self.samples) / 2 / self.rate

    def rms(self) -> float:
        """Loudness, 0 for silence; full scale is 32 767."""
        values = array.array("h", self.samples)
        return math.sqrt(sum(v * v for v in values) / len(values)) if values else 0.0

    def write(self, path: Path) -> None:
        """A 16-bit mono WAV file, whole or not at all: written under a temporary name beside it and renamed into
        place, so that a full disk or a kill leaves no half-written (or empty) file, and what was there stays. A
        target that is no regular file (a FIFO, /dev/stdout) is written straight; a missing folder or a folder in
        the file's place is an OSError naming `path`."""
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        if os.path.exists(path) and not path.is_file():
            with path.open("wb") as out:
                self._write_to(out)
            return
        try:
            handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
        except FileNotFoundError:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path)) from None
        try:
            with os.fdopen(handle, "wb") as out:
                self._write_to(out)
            os.chmod(name, 0o644)
            os.replace(name, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(name)
            raise

    def _write_to(self, file: BinaryIO) -> None:
        with wave.open(file, "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(self.rate)
            out.writeframes(self.samples)

    @classmethod
    def read(cls, path: Path) -> Audio:
        return cls.read_head(path, None)[0]

    @classmethod
    def read_head(cls, path: Path, seconds: float | None) -> tuple[Audio, float]:
        """The first `seconds` of a recording (all of it for None), and how long the whole recording is: only what
        is kept is read, so an hour-long file costs no more memory than its head. A file cut off mid-sample (its
        header promising more than it holds) is read up to its last whole sample."""
        try:
            with wave.open(str(path), "rb") as source:
                if source.getnchannels() != 1 or source.getsampwidth() != 2:
                    raise ValueError(f"{path}: expected 16-bit mono WAV")
                rate = source.getframerate()
                if rate < 1:
                    raise ValueError(f"{path}: the WAV header gives no sample rate")
                total = source.getnframes()
                wanted = total if seconds is None else min(total, int(seconds * rate))
                samples = source.readframes(wanted)
        except (wave.Error, EOFError, RuntimeError) as error:  # RuntimeError: a chunk's header is cut off
            raise ValueError(f"{path}: not a WAV file ({error})") from None
        return cls(samples[: len(samples) // 2 * 2], rate), total / rate
