"""The quizmaster's own voice in the microphone, as a corpus: a laptop on the table, its loudspeaker a hand's width
from its microphone, a player a metre away speaking over a question being read.

Each scene is the microphone's recording and the reference the loudspeaker played (what an echo canceller is given):
the quizmaster reads a line in the game's own voice of the language (rendered as the game renders it), which reaches
the microphone through a pyroomacoustics room, a small loudspeaker's mild distortion and the devices' delay, at
`ECHO_OVER_PLAYER_DB` above the player's speech; the player (a real recording of a person) begins `LEAD_SECONDS`
into the line, through the same room from across the table. `alone` is the echo with nobody speaking: what must never
be taken for a player. Made once from a seed of the scene into the corpus folder, like the rooms (`rooms.py`).
"""

from __future__ import annotations

import functools
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voicemaster.config.voice import Voice
from voicemaster.speech.audio import Audio
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, resample, to_float
from voicemaster.speech.voice.speakers import Speakers
from voicemaster_lab.corpora.rooms import ROOM_HUSH_DB, Signal, Spoken, speech_power

RECIPE = 2
"""Raise it whenever a change here changes the made scenes."""
ECHO_OVER_PLAYER_DB = 10.0
"""The quizmaster's voice at the microphone over the player's (speech power): a laptop's speaker at full volume."""
ECHO_OVER_PLAYED_DB = 6.0
"""The quizmaster's voice at the microphone over the level it was played at (speech power): the laptop at full
volume, where the echo gate's levels alone let the quizmaster stop itself and take its own words for a player's
(issue 35). The echo cancellers do not depend on it; the level gate does."""
LEAD_SECONDS = 3.0
"""How far into the line the player begins: the canceller has heard the room for a while, as in a game."""
DEVICE_DELAY_SECONDS = 0.04
"""Output and input buffers between what is handed to the loudspeaker and what the microphone records."""
TAIL_SECONDS = 0.6
"""Kept after the player's recording ends."""
SPEAKER_DRIVE = 1.5
"""A small loudspeaker's soft saturation (tanh at this drive): what a linear echo filter cannot model."""
LINES = {
    "de": (
        "Die Frage für fünfhundert Euro: Welche Stadt ist die Hauptstadt von Frankreich? A: Berlin, B: Paris, "
        "C: Rom, oder D: Wien.",
        "Ist das Ihre endgültige Antwort? Denken Sie in Ruhe nach, wir haben Zeit.",
        "Mein Name ist Jonas, und ich bin heute Abend Ihr Quizmaster. Wie heißen Sie?",
        "Sie haben noch alle drei Joker: fünfzig fünfzig, den Telefonjoker und den Publikumsjoker.",
    ),
    "en": (
        "For five hundred pounds: which city is the capital of France? A: Berlin, B: Paris, C: Rome, or D: Vienna.",
        "Is that your final answer? Take your time, there is no hurry.",
        "My name is Jonas, and I am your quizmaster tonight. What is your name?",
        "You still have all three lifelines: fifty fifty, phone a friend and ask the audience.",
    ),
    "fr": (
        "Pour cinq cents euros : quelle ville est la capitale de la France ? A : Berlin, B : Paris, C : Rome, ou "
        "D : Vienne.",
        "C'est votre dernier mot ? Prenez votre temps, rien ne presse.",
        "Je m'appelle Jonas, et je suis votre animateur ce soir. Comment vous appelez-vous ?",
        "Il vous reste les trois jokers : le cinquante cinquante, l'appel à un ami et l'avis du public.",
    ),
}
"""What the quizmaster says over the player: a question with its options, the final-answer line, a name."""


@dataclass(frozen=True)
class Scene:
    """A scene as files: the microphone's recording and the reference played, both 16 kHz."""

    microphone: Path
    reference: Path
    onset: float
    """Seconds into the recording where the player begins (the line length where nobody speaks)."""


def reference_of(microphone: Path) -> Path:
    return microphone.with_suffix(".reference.wav")


def made(spoken: Spoken | None, language: str, folder: Path, *, line: int | None = None) -> Scene:
    """The scene of `spoken` over a line of `language`, made once into `folder`; None spoken: the echo alone of line
    number `line` (default: each in turn from the seed)."""
    key = "alone" if spoken is None else _name(spoken)
    draw = np.random.default_rng(zlib.crc32(f"echo|{language}|{key}|{line}".encode()))
    chosen = int(draw.integers(len(LINES[language]))) if line is None else line
    name = f"{language}-{key}-{chosen}.wav" if spoken is None else f"{key}.wav"
    target = folder / f"echo-{RECIPE}" / name
    player = _samples(spoken.path) if spoken is not None else np.zeros(0)
    onset = LEAD_SECONDS if spoken is not None else 0.0
    if not target.is_file() or not reference_of(target).is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        heard, played = scene(_line(language, chosen), player, draw)
        for audio, path in ((played, reference_of(target)), (heard, target)):
            partial = path.with_suffix(".part")
            audio.write(partial)
            partial.replace(path)
    return Scene(target, reference_of(target), onset)


def line_over(spoken: Spoken, language: str) -> Audio:
    """The line `made` has the quizmaster say over `spoken`, at 16 kHz."""
    draw = np.random.default_rng(zlib.crc32(f"echo|{language}|{_name(spoken)}|None".encode()))
    return from_float(_line(language, int(draw.integers(len(LINES[language])))), RECOGNITION_RATE)


def _name(spoken: Spoken) -> str:
    return Path(spoken.key).with_suffix("").as_posix().replace("/", "_")


def scene(line: Signal, player: Signal, draw: np.random.Generator) -> tuple[Audio, Audio]:
    """The microphone's recording and the reference: `line` played from the laptop, `player` (may be empty) from
    across the table beginning `LEAD_SECONDS` in, `ECHO_OVER_PLAYER_DB` below the echo."""
    start = round(LEAD_SECONDS * RECOGNITION_RATE) if len(player) else 0
    length = max(len(line), start + len(player) + round(TAIL_SECONDS * RECOGNITION_RATE))
    played = np.zeros(length)
    played[: len(line)] = line
    seat = int(draw.integers(3))
    heard_echo = echo_path(played, seat) * coupling(line, seat)
    voice_power = speech_power(heard_echo) / 10 ** (ECHO_OVER_PLAYER_DB / 10)
    voice = np.zeros(length)
    if len(player):
        across = convolved(player, room_response(1, seat))
        voice[start : start + len(across)] = across * np.sqrt(voice_power / (speech_power(across) or 1.0))
    hush = draw.standard_normal(length) * np.sqrt(voice_power * 10 ** (-ROOM_HUSH_DB / 10))
    return from_float(heard_echo + voice + hush, RECOGNITION_RATE), from_float(played, RECOGNITION_RATE)


def echo_path(played: Signal, seat: int = 0) -> Signal:
    """What reaches the microphone of `played` (as long as it): the devices' delay, the small speaker's saturation,
    the room; at the level `coupling` sets."""
    driven = np.tanh(SPEAKER_DRIVE * played) / SPEAKER_DRIVE
    delay = round(DEVICE_DELAY_SECONDS * RECOGNITION_RATE)
    return convolved(np.pad(driven, (delay, 0))[: len(played)], room_response(0, seat))


def convolved(signal: Signal, response: Signal) -> Signal:
    """`signal` through `response`, as long as `signal`: `np.convolve`'s first samples, by FFT (a line of ten seconds
    through a room's response took a third of a second directly; the two differ by rounding, far below a 16-bit
    sample's step)."""
    size = len(signal) + len(response) - 1
    spectrum = np.fft.rfft(signal, size) * np.fft.rfft(response, size)
    return np.asarray(np.fft.irfft(spectrum, size)[: len(signal)], dtype=np.float64)


def coupling(line: Signal, seat: int = 0) -> float:
    """The gain on `echo_path` that puts the line's echo `ECHO_OVER_PLAYED_DB` over the line as played."""
    path = echo_path(line, seat)
    return float(np.sqrt(speech_power(line) / (speech_power(path) or 1.0) * 10 ** (ECHO_OVER_PLAYED_DB / 10)))


@functools.cache
def room_response(source: int, seat: int) -> Signal:
    """A living room's impulse response (5 x 4 x 2.6 m, Sabine 0.3 s) to a laptop's microphone on the table from
    its own loudspeaker (`source` 0, 8-12 cm away, a little below) or from a player across the table (`source` 1,
    about a metre, seated height); `seat` varies the position a little."""
    import pyroomacoustics as pra

    dimensions = [5.0, 4.0, 2.6]
    absorption, order = pra.inverse_sabine(0.3, dimensions)
    room = pra.ShoeBox(dimensions, fs=RECOGNITION_RATE, materials=pra.Material(absorption), max_order=order)
    microphone = np.array([1.2, 1.5, 0.8])
    if source == 0:
        place = microphone + np.array([0.08 + 0.02 * seat, 0.0, -0.02])
    else:
        place = microphone + np.array([0.9 + 0.1 * seat, 0.3 - 0.2 * seat, 0.35])
    room.add_source(place.tolist())
    room.add_microphone(microphone.tolist())
    room.compute_rir()
    return np.asarray(room.rir[0][0], dtype=np.float64)


@functools.cache
def _line(language: str, index: int) -> Signal:
    """The quizmaster's line as the game renders it in the language's default voice."""
    rendered = Speakers({language: Voice()}).render(LINES[language][index], language)
    return to_float(resample(rendered, RECOGNITION_RATE)).astype(np.float64)


def _samples(path: Path) -> Signal:
    return to_float(resample(Audio.read(path), RECOGNITION_RATE)).astype(np.float64)
