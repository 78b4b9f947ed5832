"""Option words said by people, for `voicemaster bench asr` and the tests: each said word placed among four options of
the same kind (object words among object words, months among months), the distractors and the place drawn with a
seed, so the set is the same on every machine and a word is never the only one of its kind.

Sources, each its own cell of the figures:
- `klettres`: the words of klettres-data's speakers (the real-speech set that set-up installs); `klettres 8 kHz`
  the same recordings as a telephone passes them (300-3400 Hz, 8 kHz, G.711 mu-law): a phone on speaker, a car's
  hands-free.
- `asterisk`: Asterisk's telephone prompts (8 kHz): numbers, months and weekdays, when the real-speech set holds them.
- `kokoro` (English, French) and `pico` (German, English, French, when ttspico is installed): synthesized players
  saying option words as people say them: with their article ("un âne", "der Ball") or bare, and a composer by
  the last of his names ("Mozart" for "Wolfgang Amadeus Mozart").
Real recordings are never changed or committed: the telephone copies and the synthesized clips are made in the
bench's corpus folder (`option-words/`) and reused.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voicemaster.rules.letters import Letter
from voicemaster.speech.audio import Audio
from voicemaster.speech.signal import from_float, resample, to_float
from voicemaster_lab.corpora import real_speech

TELEPHONE_RATE = 8_000
TELEPHONE_BAND = (300.0, 3400.0)
WIDEBAND_SOURCES = ("klettres", "kokoro", "pico")
SEED = "option-words 1"
"""Part of every draw of distractors and places: change it and the whole set is drawn anew."""

MONTHS = {
    "de": "Januar Februar März April Mai Juni Juli August September Oktober November Dezember",
    "en": "January February March April May June July August September October November December",
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
}
WEEKDAYS = {
    "de": "Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag",
    "en": "Monday Tuesday Wednesday Thursday Friday Saturday Sunday",
    "fr": "lundi mardi mercredi jeudi vendredi samedi dimanche",
}

NOUNS: dict[str, tuple[tuple[str, str], ...]] = {
    "de": (
        ("der", "Ball"), ("die", "Katze"), ("das", "Haus"), ("der", "Esel"), ("die", "Lampe"), ("das", "Gras"),
        ("der", "Käse"), ("die", "Sardelle"), ("der", "Satellit"), ("die", "Gabel"), ("das", "Schiff"),
        ("der", "Apfel"),
    ),
    "en": (
        ("the", "camel"), ("a", "ball"), ("the", "house"), ("a", "donkey"), ("the", "lamp"), ("the", "grass"),
        ("the", "cheese"), ("an", "anchovy"), ("a", "satellite"), ("a", "fork"), ("the", "ship"), ("an", "apple"),
    ),
    "fr": (
        ("un", "âne"), ("une", "lune"), ("l'", "arbre"), ("le", "ballon"), ("la", "maison"), ("une", "pomme"),
        ("le", "fromage"), ("un", "oiseau"), ("l'", "école"), ("le", "bateau"), ("une", "étoile"), ("le", "chat"),
    ),
}  # fmt: skip
"""Object words for the synthesized players, each with the article a player would put before it."""
COMPOSERS = (
    "Wolfgang Amadeus Mozart", "Johann Sebastian Bach", "Ludwig van Beethoven", "Franz Schubert",
    "Richard Wagner", "Claude Debussy", "Maurice Ravel", "Hector Berlioz",
)  # fmt: skip
"""Long options a player names by the last word."""


@dataclass(frozen=True)
class OptionClip:
    path: Path
    language: str
    source: str
    """Where the audio comes from: klettres, klettres 8 kHz, asterisk, kokoro, pico."""
    speaker: str
    said: str
    """What is said, as written."""
    options: tuple[str, ...]
    """The four options on offer, A first."""
    value: str
    """The letter of the option said."""

    @property
    def option(self) -> str:
        return self.options[Letter.first(len(self.options)).index(Letter(self.value))]


@dataclass(frozen=True)
class Word:
    """One recording of an option: what it says, the option's text, and its kind (which options it stands among)."""

    path: Path
    language: str
    source: str
    speaker: str
    said: str
    option: str
    kind: str


def kind_of(option: str, language: str) -> str:
    if option.strip().isdigit():
        return "number"
    if option.lower() in MONTHS[language].lower().split():
        return "month"
    if option.lower() in WEEKDAYS[language].lower().split():
        return "weekday"
    return "word"


def placed(words: Sequence[Word], size: int = 4) -> tuple[OptionClip, ...]:
    """Each word among `size - 1` others of its kind and language, drawn with the seed; its place drawn too."""
    pools: dict[tuple[str, str], list[str]] = {}
    for word in words:
        pool = pools.setdefault((word.language, word.kind), [])
        if word.option not in pool:
            pool.append(word.option)
    clips = []
    for word in words:
        others = sorted(option for option in pools[(word.language, word.kind)] if option.lower() != word.option.lower())
        if len(others) < size - 1:
            continue  # too few of its kind to stand among
        draw = random.Random(f"{SEED} {word.language} {word.source} {word.speaker} {word.said} {word.option}")
        options = draw.sample(others, size - 1)
        place = draw.randrange(size)
        options.insert(place, word.option)
        letter = Letter.first(size)[place]
        clips.append(
            OptionClip(word.path, word.language, word.source, word.speaker, word.said, tuple(options), letter.value)
        )
    return tuple(clips)


KINDS = ("word", "number", "month", "weekday", "composer")
"""What the corpus holds. Not ordinals: "first" to "fourth" name a letter ("die erste" is A), and a player saying
"second" among ordinals means that both ways."""
LETTER_NUMBERS = 4
"""Numbers up to this are left out for the same reason: "Nummer zwei" is B."""
LETTER_LIKE = {
    "de": ("Reh",),
    "en": ("Aw", "Ch", "Th", "Key", "Say"),
    "fr": ("Da", "Di", "Lo", "Lu", "Mu", "Pu", "Ro", "Ru", "Su"),
}
"""Recordings left out: sounds, not words (en "Ch", fr "Lu"), and open syllables that said alone are as much a
letter's name as the word ("Aw" is read "A", "Key" "C"): a player saying them means a letter as much as an option,
and no ear could tell which."""


def real_words(languages: Sequence[str]) -> tuple[list[Word], str | None]:
    """The option words of the real-speech set (every clip that says an option, not a letter; numbers from 5 on),
    or none and why."""
    try:
        clips = real_speech.load(languages)
    except real_speech.RealSpeechUnavailable as error:
        return [], str(error)
    words = []
    for clip in clips:
        if clip.context != "answer" or clip.value is None or clip.text.upper() == clip.value:
            continue  # a letter said as a letter, or a confirmation
        option = clip.options[Letter.first(len(clip.options)).index(Letter(clip.value))]
        source = str(getattr(clip, "source", "") or "klettres")
        kind = str(getattr(clip, "kind", "") or kind_of(option, clip.language))
        if kind not in KINDS or (kind == "number" and _number(option) <= LETTER_NUMBERS):
            continue
        if option in LETTER_LIKE.get(clip.language, ()):
            continue
        words.append(Word(clip.path(), clip.language, source, clip.speaker, clip.text, option, kind))
    return words, None


def _number(option: str) -> int:
    digits = "".join(character for character in option if character.isdigit())
    return int(digits) if digits else 0


def telephone(audio: Audio) -> Audio:
    """The audio as a telephone line passes it: 300-3400 Hz, 8 kHz, 8-bit mu-law."""
    narrow = to_float(resample(audio, TELEPHONE_RATE)).astype(np.float64)
    spectrum = np.fft.rfft(narrow)
    frequencies = np.fft.rfftfreq(len(narrow), 1 / TELEPHONE_RATE)
    spectrum[(frequencies < TELEPHONE_BAND[0]) | (frequencies > TELEPHONE_BAND[1])] = 0
    band = np.fft.irfft(spectrum, len(narrow))
    mu = 255.0
    coded = np.round(np.sign(band) * np.log1p(mu * np.minimum(np.abs(band), 1.0)) / np.log1p(mu) * 127) / 127
    return from_float(np.sign(coded) * np.expm1(np.abs(coded) * np.log1p(mu)) / mu, TELEPHONE_RATE)


def telephoned(words: Sequence[Word], folder: Path) -> list[Word]:
    """A telephone copy of each 16 kHz recording, made once in `folder`."""
    copies = []
    for word in words:
        if word.source not in WIDEBAND_SOURCES:
            continue  # a telephone prompt is telephone-band already
        audio = Audio.read(word.path)
        if audio.rate <= TELEPHONE_RATE:
            continue
        target = folder / "telephone" / word.language / f"{word.speaker}-{word.path.stem}.wav"
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            telephone(audio).write(target)
        copies.append(
            Word(target, word.language, f"{word.source} 8 kHz", word.speaker, word.said, word.option, word.kind)
        )
    return copies


def synthesized_texts(language: str) -> list[tuple[str, str, str]]:
    """What the synthesized players say: (said, option, kind); every other noun with its article."""
    texts = []
    for index, (article, noun) in enumerate(NOUNS[language]):
        option = noun[:1].upper() + noun[1:] if language != "fr" else noun
        joined = f"{article}{noun}" if article.endswith("'") else f"{article} {noun}"
        texts.append((joined if index % 2 == 0 else option, option, "word"))
    texts += [(composer.split()[-1], composer, "composer") for composer in COMPOSERS]
    return texts


def synthesized(
    languages: Sequence[str], folder: Path, per_language: int | None = None
) -> tuple[list[Word], dict[str, str]]:
    """The synthesized players' option words (rendered once into `folder`; with `per_language`, an even sample of
    that many), and why a voice is missing."""
    words: list[Word] = []
    missing: dict[str, str] = {}
    pico_words, reason = _pico(languages, folder, per_language)
    words += pico_words
    if reason:
        missing["pico"] = reason
    kokoro_words, reason = _kokoro(languages, folder, per_language)
    words += kokoro_words
    if reason:
        missing["kokoro"] = reason
    return words, missing


def _texts(language: str, per_language: int | None) -> list[tuple[int, tuple[str, str, str]]]:
    texts = list(enumerate(synthesized_texts(language)))
    if per_language is not None:
        texts = texts[:: max(1, len(texts) // max(1, per_language))][:per_language]
    return texts


def _pico(languages: Sequence[str], folder: Path, per_language: int | None) -> tuple[list[Word], str | None]:
    from voicemaster.config.voice import Voice
    from voicemaster.speech.voice import pico

    if not pico.installed():
        return [], pico.missing_message()
    engine: pico.Pico | None = None
    words = []
    for language in languages:
        voices = pico.voice_names(language)
        for turn, (said, option, kind) in _texts(language, per_language):
            voice = voices[turn % len(voices)]
            key = hashlib.sha256(f"pico {voice} {said}".encode()).hexdigest()[:12]
            path = folder / "pico" / language / f"{voice}-{key}.wav"
            if not path.exists():
                engine = engine or pico.Pico()
                path.parent.mkdir(parents=True, exist_ok=True)
                _padded(engine.speak(f"{said}.", Voice(voice, rate=150, engine="pico"))).write(path)
            words.append(Word(path, language, "pico", voice, said, option, kind))
    return words, None


def _kokoro(languages: Sequence[str], folder: Path, per_language: int | None) -> tuple[list[Word], str | None]:
    from voicemaster.config.voice import Voice
    from voicemaster.play.demo import PLAYER_KOKORO_VOICES
    from voicemaster.speech.voice import kokoro

    spoken = [language for language in languages if language in PLAYER_KOKORO_VOICES]
    if not spoken:
        return [], None
    files = kokoro.installed()
    if files is None:
        return [], "the Kokoro voice is not installed: run `voicemaster models setup`"
    engine: kokoro.Kokoro | None = None
    words = []
    for language in spoken:
        voices = PLAYER_KOKORO_VOICES[language]
        for turn, (said, option, kind) in _texts(language, per_language):
            voice = voices[turn % len(voices)]
            key = hashlib.sha256(f"{kokoro.ENGINE_VERSION} {voice} {said}".encode()).hexdigest()[:12]
            path = folder / "kokoro" / language / f"{voice}-{key}.wav"
            if not path.exists():
                engine = engine or kokoro.Kokoro(files)
                audio = engine.speak(f"{said}.", Voice(voice, rate=150, engine="kokoro"))
                path.parent.mkdir(parents=True, exist_ok=True)
                kokoro.write_whole(path, _padded(audio).write)
            words.append(Word(path, language, "kokoro", voice, said, option, kind))
    return words, None


def _padded(audio: Audio) -> Audio:
    """Half a second of silence either side, as a microphone's endpointing leaves it."""
    samples = to_float(audio).astype(np.float64)
    pad = np.zeros(audio.rate // 2)
    return from_float(np.concatenate([pad, samples, pad]), audio.rate)


def corpus(
    languages: Sequence[str], folder: Path, limit: int | None = None
) -> tuple[tuple[OptionClip, ...], dict[str, str]]:
    """Every option-word clip of these languages, or an even sample of about `limit` (every language and source
    kept), and what is missing and why."""
    real, reason = real_words(languages)
    missing = {"real speech": reason} if reason else {}
    made, not_made = synthesized(languages, folder, None if limit is None else limit // CELLS_PER_LANGUAGE)
    missing.update(not_made)
    clips = placed([*real, *_telephoned(real, folder, limit), *made])
    return (clips if limit is None else sample(clips, limit)), missing


CELLS_PER_LANGUAGE = 4
"""About how many sources a language has (real, its telephone copy, a telephone prompt, a synthesized voice): a
sample's share of each."""


def _telephoned(words: Sequence[Word], folder: Path, limit: int | None) -> list[Word]:
    """The telephone copies of the 16 kHz recordings; with a limit, only of those a sample could take."""
    return telephoned(words if limit is None else words[:: max(1, len(words) // max(1, limit))], folder)


def sample(clips: Sequence[OptionClip], limit: int) -> tuple[OptionClip, ...]:
    """About `limit` clips spread evenly over the cells (language and source), each cell in its own order."""
    cells: dict[tuple[str, str], list[OptionClip]] = {}
    for clip in clips:
        cells.setdefault((clip.language, clip.source), []).append(clip)
    share = max(1, limit // max(1, len(cells)))
    taken = [cell[:: max(1, len(cell) // share)][:share] for cell in cells.values()]
    # Taken in turns, a cell at a time, so that a run cut short has measured every cell alike.
    return tuple(clip for turn in range(share) for cell in taken if turn < len(cell) for clip in [cell[turn]])
