"""Which engine speaks each language: the configured one, or with `auto` the most natural one installed.

auto: Kokoro where it is installed and has a voice for the language (English, French), else SVOX Pico where it is
installed (German; English and French without Kokoro), else eSpeak-NG where its program is installed (Linux), else
pyttsx3 (the system's voice on Windows and macOS). A voice name alone picks the engine that has it ("bf_emma" is
Kokoro's, "de-DE" Pico's, "en-us" eSpeak-NG's). When the chosen engine cannot speak (its model or library is missing)
the quizmaster falls back to eSpeak-NG and says why once, rather than staying silent.
"""

from __future__ import annotations

import errno
import hashlib
import re
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from voicemaster import paths
from voicemaster.config.voice import Voice
from voicemaster.speakable import check_speakable, unheard
from voicemaster.speech.audio import Audio
from voicemaster.speech.voice import kokoro, pico, pyttsx3_engine
from voicemaster.speech.voice.reading import Pronunciation, readings
from voicemaster.speech.voice.render_ahead import Priority, RenderQueue
from voicemaster.speech.voice.synthesis import Espeak, SpeechUnavailable


def engine_for(voice: Voice, language: str) -> str:
    """The engine that speaks this language with this voice setting."""
    if voice.engine != "auto":
        return voice.engine
    if voice.name in kokoro.KOKORO_VOICES or (not voice.name and kokoro.speaks(language)):
        return "kokoro"
    if voice.name in pico.PICO_VOICES or (not voice.name and pico.speaks(language)):
        return "pico"
    return "espeak" if shutil.which("espeak-ng") else "pyttsx3"


def resolved(voice: Voice, language: str) -> Voice:
    """The voice with its engine and name filled in."""
    engine = engine_for(voice, language)
    name = voice.name
    if not name and engine == "kokoro":
        name = kokoro.DEFAULT_VOICE.get(language, "")
    if not name and engine == "pico":
        name = pico.DEFAULT_VOICE.get(language, "")
    return replace(voice, engine=engine, name=name)


@dataclass
class Engines:
    """What the speakers of one game share: Kokoro and Pico, loaded once when first needed (Kokoro in about a second)
    and rendering on one thread ahead of the game, the engines that failed, and the voices as resolved."""

    warnings: TextIO | None = None
    """Where a fallback is explained; None: standard error."""
    kokoro: kokoro.Kokoro | None = None
    pico: pico.Pico | None = None
    failed: set[str] = field(default_factory=set)
    voices: dict[tuple[Voice, str], Voice] = field(default_factory=dict)
    """Each voice setting as resolved, once a game: resolving `auto` reads the model manifest and the disk."""
    cache_refused: bool = False
    """A rendered line could not be kept on disk (and the user was told): lines are rendered anew each time."""
    lines: RenderQueue = field(init=False)

    def __post_init__(self) -> None:
        self.lines = RenderQueue(
            self._render_kept, lambda text, voice: rendered_path(text, voice).exists(), self._stop_render
        )

    def _stop_render(self) -> None:
        """Stops Kokoro's render under way (a decision starts; `RenderQueue.give_way`); Pico's take milliseconds."""
        if self.kokoro is not None:
            self.kokoro.stop()

    def resolve(self, voice: Voice, language: str) -> Voice:
        if (voice, language) not in self.voices:
            self.voices[voice, language] = resolved(voice, language)
        return self.voices[voice, language]

    def _render_kept(self, text: str, voice: Voice) -> Audio:
        """A line rendered once, in any game, is read from disk: Kokoro takes about as long as the speech lasts (Pico
        a thirtieth of it, which still adds up over a game on a busy machine)."""
        path = rendered_path(text, voice)
        if path.exists():
            try:
                return Audio.read(path)
            except ValueError:  # a file cut short by a crash: render it again
                path.unlink(missing_ok=True)
        if voice.engine == "pico":
            if self.pico is None:
                self.pico = pico.Pico()
            audio = self.pico.speak(text, voice)
        else:
            if self.kokoro is None:
                self.kokoro = kokoro.Kokoro()
            audio = self.kokoro.speak(text, voice)
        try:
            kokoro.write_whole(path, audio.write)
        except OSError as error:  # the cache is what can be made again: the game speaks on, told once
            if not self.cache_refused:
                self.cache_refused = True
                print(f"voicemaster: {cache_problem(path.parent, error)}", file=self.warnings or sys.stderr)
        return audio


@dataclass(frozen=True)
class Speakers:
    """The program's voice: gives each sentence to its language's engine, and falls back to eSpeak-NG (saying why,
    once) when that engine cannot speak."""

    voices: Mapping[str, Voice]
    engines: Engines = field(default_factory=Engines)
    reading: Mapping[str, Pronunciation] = field(default_factory=dict)
    """How the text of a language is given to its engine (`reading.py`); a language without one is given the text
    as it is (the simulated players' words)."""

    def with_voice(self, language: str, voice: Voice) -> Speakers:
        """The same engines with one language's voice changed ("langsamer": Kokoro renders at the new speed,
        rather than stretching audio, which would blur it)."""
        return Speakers({**self.voices, language: voice}, self.engines, self.reading)

    def spoken(self, text: str, language: str) -> str:
        """The words the engine is given for `text`."""
        reading = self.reading.get(language)
        return text if reading is None else reading.spoken(text)

    def render(self, text: str, language: str) -> Audio:
        """The line as audio; Unspeakable (a message, never an engine's own failure) for text that breaks the rule
        of what may be spoken (`voicemaster/speakable.py`), which the ways in check before a game."""
        check_speakable(text, "the text")
        text = self.spoken(text, language)
        voice = self.engines.resolve(self.voices[language], language)
        if voice.engine in ("kokoro", "pico", "pyttsx3") and voice.engine not in self.engines.failed:
            try:
                if voice.engine == "pyttsx3":  # as fast as eSpeak-NG, or the system's voice: nothing to cache
                    return pyttsx3_engine.shared().render(text, voice, language)
                parts = [self.engines.lines.get(sentence, voice) for sentence in sentences(text)]
                return Audio(b"".join(part.samples for part in parts), parts[0].rate)
            except SpeechUnavailable as error:
                self.engines.failed.add(voice.engine)
                print(
                    f"voicemaster: {error} Speaking with eSpeak-NG instead.", file=self.engines.warnings or sys.stderr
                )
        espeak_voice = voice if voice.engine == "espeak" else replace(voice, name="", engine="espeak")
        return Espeak({language: espeak_voice}).render(text, language)

    def ahead(self, texts: Sequence[str], language: str, priority: Priority) -> None:
        """Have these lines rendered in the background, to be ready when they are said. eSpeak-NG needs no head
        start: it renders a line in 10-20 ms."""
        voice = self.engines.resolve(self.voices[language], language)
        if voice.engine in KEPT and voice.engine not in self.engines.failed:
            said = (self.spoken(text, language) for text in texts)
            wanted = dict.fromkeys(sentence for text in said for sentence in sentences(text))
            self.engines.lines.ahead([(sentence, voice) for sentence in wanted], priority)


def quizmaster_voice(
    voices: Mapping[str, Voice], lexicon: Mapping[str, Mapping[str, str]], engines: Engines | None = None
) -> Speakers:
    """The quizmaster's voice: each language read as its `read.toml` says, with the packs' hints (`lexicon`, by
    language: `questions.spoken.lexicon`)."""
    return Speakers(voices, engines or Engines(), readings(lexicon))


KEPT = ("kokoro", "pico")
"""The engines whose lines are rendered ahead, one sentence at a time, and kept on disk."""
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZÀ-ÖØ-Þ«\"„])")


def sentences(text: str) -> list[str]:
    """A line as Kokoro renders it, a sentence at a time: "Anna, answer B, Paris. Is that your final answer?" shares
    its second sentence with every other option and game, so only the first is rendered again."""
    # A part with nothing to hear ('Was? "!"') would be silence at best; Kokoro refuses it.
    return [part for part in SENTENCE_END.split(text.strip()) if not unheard(part)] or [text]


def rendered_path(text: str, voice: Voice) -> Path:
    """Where a line rendered in this voice is kept: keyed by everything that changes its sound."""
    version = pico.ENGINE_VERSION if voice.engine == "pico" else kokoro.ENGINE_VERSION
    parts = [version, voice.engine, voice.name, str(voice.rate), str(voice.volume), text]
    if voice.pitch != 100:  # keys of lines at the voice's own pitch stay as they were before there was a pitch
        parts.insert(5, f"pitch {voice.pitch}")
    key = "\x1f".join(parts)
    digest = hashlib.sha256(key.encode()).hexdigest()
    return kokoro.cache_dir() / "speech" / digest[:2] / f"{digest}.wav"


def cache_problem(folder: Path, error: OSError) -> str:
    """Why rendered speech cannot be kept in `folder`, and what to do, in one line."""
    blocking = paths.file_in_the_way(folder)
    if blocking is not None:
        return (
            f"{paths.shown(blocking)} is a file where voicemaster keeps rendered speech in folders: remove it (rm "
            f"{paths.shown(blocking)}); until then each line is rendered anew."
        )
    full = error.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)  # a full disk, not a locked folder
    mend = "free some space on its disk" if full else "make the cache folder writable"
    return (
        f"cannot keep rendered speech in {paths.shown(folder)} ({error.strerror or error}): {mend}, or point "
        "XDG_CACHE_HOME to another folder; until then each line is rendered anew."
    )
