"""The player of `voicemaster bench live` and `bench room`: what it says at each moment of a game, and in whose voice.

It answers what the quizmaster last asked, as a person at the table would: its name, the right letter (it knows the
answer, so the game goes on), a yes to "final answer?" and to "play on?" (or, once it means to, "I'll stop here"
and a yes to taking the money), no to "anyone else?", a fifty-fifty on question 2 and the audience on question 3,
"weiter" when the game has paused.
Its voices: recordings of people where the real-speech set has what it must say (the letters A-D in every
language, German "ja", English and French "no"), else SVOX Pico's and Kokoro's voices, taken in turn.
Its lines are the bench's own, written from how people answer, not copied from the phrase files.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from voicemaster.host.lines import Lines
from voicemaster.paths import cache_dir
from voicemaster.speech.audio import Audio
from voicemaster.speech.signal import resample
from voicemaster_lab.corpora import real_speech
from voicemaster_lab.corpora.real_speech_sources import RealClip

NAME = {"de": "Markus", "en": "Mark", "fr": "Marc"}
NAME_SPELLED_ALIKE = {"de": ("Marcus",), "en": ("Marc",), "fr": ("Mark",)}
"""Other spellings of the player's name that its language says the same: "Mark" read back in French sounds as the
player's own "Marc", and a person says yes to it."""
SAID: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "de": {
        "answer": ("Antwort {letter}", "{letter}", "Ich nehme {letter}"),
        "yes": ("Ja", "Ja, endgültig"),
        "go_on": ("Ja", "Ich spiele weiter"),
        "agree": ("Ja", "Ja, genau"),
        "no": ("Nein",),
        "name": ("Ich heiße Markus", "Markus"),
        "fifty_fifty": ("Fünfzig-fünfzig",),
        "audience": ("Publikumsjoker",),
        "stop": ("Ich höre auf",),
        "resume": ("Weiter",),
    },
    "en": {
        "answer": ("Answer {letter}", "{letter}", "I'll go with {letter}"),
        "yes": ("Yes", "Yes, final answer"),
        "go_on": ("Yes", "I'll play on"),
        "agree": ("Yes", "Yes, that's right"),
        "no": ("No",),
        "name": ("My name is Mark", "Mark"),
        "fifty_fifty": ("Fifty-fifty",),
        "audience": ("Ask the audience",),
        "stop": ("I'll stop here",),
        "resume": ("Carry on",),
    },
    "fr": {
        "answer": ("Réponse {letter}", "La {letter}", "Je dis {letter}"),
        "yes": ("Oui", "Oui, dernier mot"),
        "go_on": ("Oui", "Je continue"),
        "agree": ("Oui", "Oui, c'est ça"),
        "no": ("Non",),
        "name": ("Je m'appelle Marc", "Marc"),
        "fifty_fifty": ("Cinquante-cinquante",),
        "audience": ("L'avis du public",),
        "stop": ("Je m'arrête là",),
        "resume": ("On continue",),
    },
}
JOKERS = {2: "fifty_fifty", 3: "audience"}
"""The joker asked for on a question's first answer turn, by level."""
KOKORO_LANGUAGES = ("en", "fr")


@dataclass(frozen=True)
class Reply:
    kind: str
    """answer, yes (to "final answer?"), joker, name, walk_away or other."""
    slot: str
    """Which of the player's lines: a key of `SAID`."""
    meant: tuple[str, str | None]
    letter: str = ""
    alike: tuple[tuple[str, str | None], ...] = ()
    """Other meanings the game takes as `meant` here: at "play on?", going on ("Ich spiele weiter": resume) is a
    yes."""


def reply_to(key: str | None, context: str, language: str, *, said: str, correct: str, level: int,
             jokers_used: frozenset[str], walk_away: bool = False) -> Reply | None:  # fmt: skip
    """What the player says when the quizmaster listens in `context` after the line `key` (`said` its words);
    None: nothing. With `walk_away`, it stops when asked to play on, and says yes to taking the money."""
    if context == "name":
        return Reply(
            "name",
            "name",
            ("name", NAME[language]),
            alike=tuple(("name", alike) for alike in NAME_SPELLED_ALIKE[language]),
        )
    if context == "answer":
        joker = JOKERS.get(level)
        if joker is not None and joker not in jokers_used:
            return Reply("joker", joker, ("joker", joker))
        return Reply("answer", "answer", ("answer", correct), correct)
    if key == "paused":  # the game paused after it heard nothing a few times: the player wants it to go on
        return Reply("other", "resume", ("resume", None))
    if context != "confirm":
        return None
    if walk_away and key == "play_on":
        return Reply("walk_away", "stop", ("walk_away", None), alike=(("no", None),))
    # A yes in the words of its question: "Ich spiele weiter" only to "Spielst du weiter?", not to a name read back.
    yes_then = {"final_answer": "yes", "play_on": "go_on"}.get(key or "", "agree")
    # The player says what a person would: yes where the quizmaster got it right, no where it did not.
    agrees = {
        "final_answer": f"{correct}, " in said,  # "Markus, Antwort B, Paris. ...": a letter misheard is refused
        "play_on": True,
        "name_read_back": said.startswith(
            tuple(f"{name}," for name in (NAME[language], *NAME_SPELLED_ALIKE[language]))
        ),
        "scan_option": said.startswith(f"{correct},"),  # "B, Paris?": a yes at the right one
        "another_player": False,
        "newcomer_asked": False,
        "resume_offer": False,
        "confirm_walk_away": walk_away,
        "confirm_joker": True,  # the joker it asked for, said back
    }.get(key or "")
    if agrees is None:
        return None
    if not agrees:
        return Reply("other", "no", ("no", None))
    alike = (("resume", None),) if key == "play_on" else ()
    return Reply("yes" if key == "final_answer" else "other", yes_then, ("yes", None), alike=alike)


@dataclass(frozen=True)
class LineMatcher:
    """Which line of the phrase file a text the quizmaster said is: each wording made a pattern, its placeholders
    matching any words."""

    patterns: tuple[tuple[str, re.Pattern[str]], ...]

    @classmethod
    def of(cls, lines: Lines) -> LineMatcher:
        found = []
        for stored, wordings in lines.texts.items():
            key = stored.split(".", 1)[0]
            for wording in wordings:
                pattern = ".+?".join(re.escape(part) for part in re.split(r"\{[^{}]*\}", wording))
                found.append((key, re.compile(pattern, re.DOTALL)))
        # The wording with the most fixed words first: "{text}" (the question) matches anything and comes last.
        return cls(tuple(sorted(found, key=lambda item: -len(item[1].pattern.replace(".+?", "")))))

    def key(self, text: str) -> str | None:
        return next((key for key, pattern in self.patterns if pattern.fullmatch(text)), None)


@dataclass(frozen=True)
class Spoken:
    audio: Audio
    """16 kHz, as the microphone hears it."""
    source: str
    text: str


@dataclass
class Repertoire:
    """The player's utterances by slot, rendered once (cached on disk) and taken in turn."""

    language: str
    real: Sequence[RealClip]
    folder: Path = field(default_factory=lambda: cache_dir() / "bench-live")
    missing: list[str] = field(default_factory=list)
    _turns: dict[str, int] = field(default_factory=dict)
    _engines: dict[str, object] = field(default_factory=dict)

    def next(self, reply: Reply) -> Spoken:
        """The next utterance for `reply`: people where the set has it, else the voices, in turn."""
        options = self._options(reply)
        turn = self._turns.get(reply.slot, 0)
        self._turns[reply.slot] = turn + 1
        return options[turn % len(options)]

    def all(self, reply: Reply) -> list[Spoken]:
        """Every utterance there is for `reply`."""
        return self._options(reply)

    def all_of(self, text: str) -> list[Spoken]:
        """`text` in every voice."""
        voices = [self._render("pico", text, turn) for turn in range(2)]
        if self.language in KOKORO_LANGUAGES:
            voices += [self._render("kokoro", text, turn) for turn in range(2)]
        return [spoken for spoken in voices if spoken is not None]

    def prepare(self) -> None:
        """Every utterance the player may need, rendered now."""
        for slot in SAID[self.language]:
            letters = "ABCD" if slot == "answer" else " "
            for letter in letters:
                meant = ("answer", letter) if slot == "answer" else ("", None)
                self._options(Reply("", slot, meant, letter.strip()))

    def _options(self, reply: Reply) -> list[Spoken]:
        people = [
            Spoken(resample(Audio.read(clip.path())), "real", clip.text)
            for clip in self.real
            if clip.language == self.language
            and clip.kind == {"yes": "yes", "no": "no", "answer": "letter"}.get(reply.slot)
            and (clip.intent, clip.value) == reply.meant
        ]
        texts = [text.format(letter=reply.letter) for text in SAID[self.language][reply.slot]]
        voices = [self._render("pico", text, index) for index, text in enumerate(texts)]
        if self.language in KOKORO_LANGUAGES:
            voices += [self._render("kokoro", text, index) for index, text in enumerate(texts)]
        spoken = [item for item in voices if item is not None]
        # People and voices interleaved, so that a short run hears both.
        mixed = [item for pair in zip(people, spoken, strict=False) for item in pair]
        longer = people if len(people) > len(spoken) else spoken
        return mixed + longer[len(mixed) // 2 :]

    def _render(self, engine: str, text: str, turn: int) -> Spoken | None:
        from voicemaster.config.voice import Voice
        from voicemaster.speech.voice import kokoro, pico

        if engine == "pico":
            names = pico.voice_names(self.language)
            voice = Voice(names[turn % len(names)], rate=150, engine="pico", pitch=(90, 110)[turn % 2])
        else:
            from voicemaster.play.demo import PLAYER_KOKORO_VOICES

            names = list(PLAYER_KOKORO_VOICES[self.language])
            voice = Voice(names[turn % len(names)], rate=150, engine="kokoro")
        # Kokoro reads a lone letter as a word unless it is quoted.
        written = re.sub(r"\b([A-D])\b", r'"\1"', text) if engine == "kokoro" else text
        key = hashlib.sha256(f"{engine} {voice} {written}".encode()).hexdigest()[:16]
        path = self.folder / engine / self.language / f"{key}.wav"
        if not path.exists():
            try:
                speaker = self._engine(engine)
            except (ImportError, RuntimeError) as error:
                self.missing.append(f"{engine}: {error}")
                return None
            audio = speaker.speak(f"{written}.", voice)  # type: ignore[attr-defined]
            path.parent.mkdir(parents=True, exist_ok=True)
            kokoro.write_whole(path, resample(audio).write)
        return Spoken(Audio.read(path), engine, text)

    def _engine(self, engine: str) -> object:
        from voicemaster.speech.voice import kokoro, pico

        if engine not in self._engines:
            if engine == "pico":
                if not pico.installed():
                    raise RuntimeError(pico.missing_message())
                self._engines[engine] = pico.Pico()
            else:
                files = kokoro.installed()
                if files is None:
                    raise RuntimeError("the Kokoro voice is not installed: run `voicemaster models setup`")
                self._engines[engine] = kokoro.Kokoro(files)
        return self._engines[engine]


def real_clips(languages: Sequence[str]) -> tuple[tuple[RealClip, ...], str | None]:
    """The real-speech set's clips, or none and why."""
    try:
        return real_speech.load(languages), None
    except real_speech.RealSpeechUnavailable as error:
        return (), str(error)
