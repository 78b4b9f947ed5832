"""What the real speech set is cut from: four Debian packages of recordings of people, and what each recording says.

- klettres-data (GPL-2+; KDE's letter-learning game KLettres): one voice each in German (`de`), English (`en`,
  `en_GB`) and French (`fr`); every letter and a few dozen short words (French: syllables), 16-48 kHz Ogg Vorbis.
  What each file says is in the package's `sounds.xml`.
- asterisk-core-sounds-en-wav (Allison, en-US) and asterisk-core-sounds-fr-wav (June, fr-CA), CC-BY-SA-3.0; and
  asterisk-prompt-fr-armelle (Armelle, France French, BSD-style, raw GSM): telephone prompts, 8 kHz. Letters a-z
  (`letters/`), and in `digits/`: 0-20 and the tens, hundred/thousand/million, the ordinals (`h-N`), the months
  (`mon-0` January .. `mon-11`), the weekdays (`day-0` Sunday .. `day-6`). The file names say what is said.

Each recording becomes one or two clips, by its kind (`RealClip.kind`):
- `letter`: A to D are answers (the options four made-up ones: the letter still means that letter); the other
  letters are said where an answer is expected and must not be taken for one (intent "unknown": a false accept if
  heard as an answer).
- `word` (klettres), `number`, `ordinal`, `month`, `weekday`: the text of an option, among three others of the same
  kind (the four in a row of the package's own order, wrapping round), the letter of its place being what it means.
  These are the word clips that option texts are measured with.
- `number` again, 0-20 and the tens, in the money drop's number context, alone: a number on no letter is no
  placement ("twenty on A" cannot be cut from single words), so it must be asked again, never taken for a yes, a no
  or a placement (intent "unknown").
- `yes` / `no`: confirmations, where a package has them: German "ja" (klettres), English "no" (klettres, Allison),
  French "non" (Armelle). No package has a "yes", "oui", "nein" or French-Canadian "non".
- `talk`: whole sentences that are no answer and no command ("All circuits are busy now."), Allison's and June's,
  heard in turn where an answer, a yes or no, and a placement are expected: what people around a player say must be
  asked again, never acted on (intent "unknown"). No package has German sentences.
"""

from __future__ import annotations

import os
import unicodedata
import xml.etree.ElementTree as ElementTree
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from voicemaster.paths import models_dir

LETTERS = ("A", "B", "C", "D")
ENVIRONMENT = "VOICEMASTER_REAL_SPEECH"


@dataclass(frozen=True)
class Package:
    name: str
    """The Debian package."""
    source: str
    """The source's short name in the manifest and in `bench asr`."""


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


KLETTRES = Package("klettres-data", "klettres")
ASTERISK_EN = Package("asterisk-core-sounds-en-wav", "asterisk-en")
ASTERISK_FR = Package("asterisk-core-sounds-fr-wav", "asterisk-fr")
ARMELLE = Package("asterisk-prompt-fr-armelle", "armelle")
PACKAGES = (KLETTRES, ASTERISK_EN, ASTERISK_FR, ARMELLE)

KLETTRES_SPEAKERS = {"de": "de", "en": "en", "en_GB": "en", "fr": "fr"}
"""KLettres' voice folders and the language each speaks."""
KLETTRES_CONFIRMATIONS = {"JA": "yes", "NEIN": "no", "YES": "yes", "NO": "no", "OUI": "yes", "NON": "no"}
"""Yes and no as sounds.xml writes them (the package has only "JA" and "NO")."""


@dataclass(frozen=True)
class Voice:
    """One Asterisk voice: its package, the folder under usr/share/asterisk/sounds, the language and file type."""

    package: Package
    folder: str
    speaker: str
    language: str
    suffix: str
    no: str | None
    """The prompt that is a plain "no", if the voice has one (`vm-no`: "No." for Allison, "Non" for Armelle;
    June's says "aucun")."""
    highest_ordinal: int
    """Armelle's ordinals stop at the 20th and the 30th."""


ASTERISK_VOICES = (
    Voice(ASTERISK_EN, "en_US_f_Allison", "Allison", "en", ".wav", "vm-no", 90),
    Voice(ASTERISK_FR, "fr_CA_f_June", "June", "fr", ".wav", None, 90),
    Voice(ARMELLE, "fr", "Armelle", "fr", ".gsm", "vm-no", 30),
)

NUMBERS = (*range(21), *range(30, 100, 10))
"""The numbers Asterisk has one prompt each for, besides hundred, thousand and million."""
BIG = (("hundred", "100"), ("thousand", "1,000"), ("million", "1,000,000"))
"""File stem and the option's text (as a quiz would print it)."""

NUMBER_WORDS = {
    "en": _words(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety"
    ),
    "fr": _words(
        "zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize dix-sept "
        "dix-huit dix-neuf vingt trente quarante cinquante soixante soixante-dix quatre-vingts quatre-vingt-dix"
    ),
}
BIG_WORDS = {"en": ("hundred", "thousand", "million"), "fr": ("cent", "mille", "million")}
ORDINAL_WORDS = {
    "en": _words(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
        "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth thirtieth fortieth fiftieth sixtieth "
        "seventieth eightieth ninetieth"
    ),
    "fr": _words(
        "premier deuxième troisième quatrième cinquième sixième septième huitième neuvième dixième onzième douzième "
        "treizième quatorzième quinzième seizième dix-septième dix-huitième dix-neuvième vingtième trentième "
        "quarantième cinquantième soixantième soixante-dixième quatre-vingtième quatre-vingt-dixième"
    ),
}
"""In the order of NUMBERS from 1: `h-1` is "first", `h-30` "thirtieth" (French: "premier", as in a date)."""
MONTHS = {
    "en": _words("January February March April May June July August September October November December"),
    "fr": _words("janvier février mars avril mai juin juillet août septembre octobre novembre décembre"),
}
WEEKDAYS = {
    "en": _words("Sunday Monday Tuesday Wednesday Thursday Friday Saturday"),
    "fr": _words("dimanche lundi mardi mercredi jeudi vendredi samedi"),
}
"""`day-0` is Sunday."""


LETTER_OPTIONS = {
    "de": ("Berlin", "Paris", "Rom", "Wien"),
    "en": ("London", "Paris", "Rome", "Vienna"),
    "fr": ("Londres", "Paris", "Rome", "Vienne"),
}
"""The options on offer when a letter is said: made-up answers, so that only the letter names one."""
KINDS = ("letter", "word", "number", "ordinal", "month", "weekday", "yes", "no", "talk")
TALK = {
    "hello-world": ("Hello, world.", "Bonjour tout le monde."),
    "goodbye": ("Goodbye.", "Au revoir."),
    "all-circuits-busy-now": ("All circuits are busy now.", "Toutes les lignes sont occupées pour l'instant."),
    "please-try-call-later": ("Please try your call again later.", "Veuillez essayer votre appel plus tard."),
    "pls-hold-while-try": (
        "Please hold while I try that extension.",
        "Veuillez patienter pendant que l'on achemine votre appel.",
    ),
    "at-tone-time-exactly": ("At the tone, the time will be exactly.", "Au signal sonore, il sera exactement."),
    "something-terribly-wrong": ("Something is terribly wrong.", "Il y a quelque chose qui ne va vraiment pas."),
    "call-forwarding": ("Call forwarding.", "Renvoi d'appel."),
    "do-not-disturb": ("Do not disturb.", "Ne pas déranger."),
    "speed-dial": ("Speed dial.", "Composition abrégée."),
    "telephone-number": ("Telephone number.", "Numéro de téléphone."),
    "to-call-this-number": ("To call this number.", "Pour rappeler ce numéro."),
    "feature-not-avail-line": (
        "That feature is not available on this line.",
        "Cette fonction n'est pas disponible sur cette ligne.",
    ),
    "simul-call-limit-reached": ("Simultaneous call limit reached.", "La limite d'appels simultanés a été atteinte."),
    "info-about-last-call": ("Information about your last call.", "Informations à propos du dernier appel."),
    "from-unknown-caller": ("From an unknown caller.", "D'un appelant inconnu."),
    "is-in-use": ("Is in use.", "Est en utilisation."),
    "cannot-complete-as-dialed": (
        "Your call cannot be completed as dialed.",
        "Votre appel ne peut être complété tel que composé.",
    ),
    "check-number-dial-again": (
        "Please check the number and dial again.",
        "Veuillez vérifier le numéro et composer de nouveau.",
    ),
    "demo-nomatch": (
        "I'm sorry, there are no matches for those keywords.",
        "Désolé, il n'y a pas d'entrée pour ces mots-clés.",
    ),
    "speed-dial-empty": (
        "The speed dial entry you've accessed is empty.",
        "La composition abrégée à laquelle vous avez accédé n'existe pas.",
    ),
    "tt-weasels": ("Weasels have eaten our phone system.", "Des fouines ont mangé notre système téléphonique."),
}
"""Allison's and June's prompt (file stem) and what it says in English and in French: talk, never a command. Not
"Call waiting.", which holds a word of the no ("wait"), nor "One moment, please.", a pause ("a moment")."""
TALK_VOICES = ("Allison", "June")
TALK_CONTEXTS = ("answer", "confirm", "number")


@dataclass(frozen=True)
class RealClip:
    file: str
    """Relative to the set's folder."""
    language: str
    source: str
    """Which package: klettres, asterisk-en, asterisk-fr or armelle."""
    speaker: str
    """Whose voice: KLettres' voice folder (de, en, en_GB, fr), or Allison, June, Armelle."""
    kind: str
    """letter, word, number, ordinal, month, weekday, yes or no."""
    text: str
    """What is said, written as a quiz would write it ("Affe", "twenty", "janvier", "B")."""
    recording: str
    """The recording in its package (sounds.xml's name, or the prompt's path)."""
    context: str
    """What the game listens for: "answer", "confirm" or "number"."""
    options: tuple[str, ...]
    """The four options on offer, A first, in the answer and number contexts; empty in the confirm context."""
    intent: str
    """What the game should hear: answer, yes, no, or "unknown" (said where it names nothing: ask again)."""
    value: str | None

    def path(self, folder: Path | None = None) -> Path:
        return (folder or real_speech_dir()) / self.file


def real_speech_dir() -> Path:
    configured = os.environ.get(ENVIRONMENT)
    return Path(configured).expanduser() if configured else models_dir() / "real-speech"


Said = tuple[str, str, str]
"""What a recording says: the file (relative to its package's root), the package's name for it, and the text."""


def select(roots: dict[Package, Path]) -> list[tuple[Path, RealClip]]:
    """Every clip of the set with the recording it comes from; `roots` are the packages' extracted files."""
    chosen: list[tuple[Path, RealClip]] = []
    for speaker, language in KLETTRES_SPEAKERS.items():
        chosen += _klettres(roots[KLETTRES], speaker, language)
    for voice in ASTERISK_VOICES:
        chosen += _asterisk(roots[voice.package], voice)
    files = Counter(clip.file for _, clip in chosen)
    if len(files) != len(chosen):
        raise AssertionError(f"two clips share a file: {[file for file, n in files.items() if n > 1]}")
    missing = [str(path) for path, _ in chosen if not path.is_file()]
    if missing:
        raise FileNotFoundError(f"recordings missing from the packages: {', '.join(missing[:5])}")
    return chosen


def _klettres(root: Path, speaker: str, language: str) -> list[tuple[Path, RealClip]]:
    package = root / "usr" / "share" / "klettres"
    sounds: dict[str, Path] = {}
    for sound in ElementTree.parse(package / speaker / "sounds.xml").iter("sound"):
        sounds.setdefault(sound.attrib["name"], package / sound.attrib["file"])
    letters = [name for name in sounds if len(name) == 1 or name == "ß"]
    words = [name for name in sounds if name not in letters and name not in KLETTRES_CONFIRMATIONS]
    said = {name: name if name in letters else _capitalized(name) for name in sounds}
    clips = _Clips(KLETTRES.source, speaker, language, speaker)
    for name in letters:
        clips.letter(sounds[name], name, said[name])
    for name in sounds:
        if name in KLETTRES_CONFIRMATIONS:
            clips.confirmation(sounds[name], name, _capitalized(name), KLETTRES_CONFIRMATIONS[name])
    clips.options("word", [(sounds[name], name, said[name], said[name]) for name in words])
    return clips.chosen


def _asterisk(root: Path, voice: Voice) -> list[tuple[Path, RealClip]]:
    sounds = root / "usr" / "share" / "asterisk" / "sounds" / voice.folder
    language = voice.language

    def prompt(stem: str) -> tuple[Path, str]:
        return sounds / f"{stem}{voice.suffix}", f"{voice.folder}/{stem}"

    clips = _Clips(voice.package.source, voice.speaker, language, voice.package.source)
    for letter in "abcdefghijklmnopqrstuvwxyz":
        clips.letter(*prompt(f"letters/{letter}"), letter.upper())
    if voice.no:
        clips.confirmation(*prompt(voice.no), "No" if language == "en" else "Non", "no")
    numbers = [(*prompt(f"digits/{n}"), word, str(n)) for n, word in zip(NUMBERS, NUMBER_WORDS[language], strict=True)]
    big = [
        (*prompt(f"digits/{stem}"), word, option) for (stem, option), word in zip(BIG, BIG_WORDS[language], strict=True)
    ]
    clips.options("number", numbers + big)
    for path, name, word, _ in numbers:
        clips.alone_in_number_context(path, name, word)
    ordinals = [
        (*prompt(f"digits/h-{n}"), word, word)
        for n, word in zip(NUMBERS[1:], ORDINAL_WORDS[language], strict=True)
        if n <= voice.highest_ordinal
    ]
    clips.options("ordinal", ordinals)
    clips.options("month", [(*prompt(f"digits/mon-{n}"), word, word) for n, word in enumerate(MONTHS[language])])
    clips.options("weekday", [(*prompt(f"digits/day-{n}"), word, word) for n, word in enumerate(WEEKDAYS[language])])
    if voice.speaker in TALK_VOICES:
        for index, (stem, said) in enumerate(TALK.items()):
            clips.talk(
                *prompt(stem), said[0] if language == "en" else said[1], TALK_CONTEXTS[index % len(TALK_CONTEXTS)]
            )
    return clips.chosen


@dataclass
class _Clips:
    """The clips of one voice, as they are chosen."""

    source: str
    speaker: str
    language: str
    folder: str
    chosen: list[tuple[Path, RealClip]] = field(default_factory=list)

    def add(self, recording: Path, name: str, kind: str, text: str, context: str, options: tuple[str, ...],
            meant: tuple[str, str | None]) -> None:  # fmt: skip
        named = (
            f"{context}-{_slug(text)}" if kind in ("letter", "word", "yes", "no") else f"{context}-{kind}-{_slug(text)}"
        )
        clip = RealClip(
            f"{self.folder}/{named}.wav", self.language, self.source, self.speaker, kind, text, name, context,
            options, *meant,
        )  # fmt: skip
        self.chosen.append((recording, clip))

    def letter(self, recording: Path, name: str, letter: str) -> None:
        """A to D as answers; any other letter said where an answer is expected names none."""
        meant = ("answer", letter) if letter in LETTERS else ("unknown", None)
        self.add(recording, name, "letter", letter, "answer", LETTER_OPTIONS[self.language], meant)

    def confirmation(self, recording: Path, name: str, text: str, intent: str) -> None:
        self.add(recording, name, intent, text, "confirm", (), (intent, None))

    def options(self, kind: str, said: Sequence[tuple[Path, str, str, str]]) -> None:
        """Each recording as the text of an option among the three after it in `said` (four in a row, wrapping
        round), at the place of its position in that row: (recording, its name, what is said, the option's text)."""
        for index, (recording, name, text, _) in enumerate(said):
            first = index - index % len(LETTERS)
            options = tuple(said[(first + place) % len(said)][3] for place in range(len(LETTERS)))
            self.add(recording, name, kind, text, "answer", options, ("answer", LETTERS[index % len(LETTERS)]))

    def talk(self, recording: Path, name: str, text: str, context: str) -> None:
        """A sentence that is no answer and no command, where `context` is listened for: asked again."""
        options = () if context == "confirm" else LETTER_OPTIONS[self.language]
        self.add(recording, name, "talk", text, context, options, ("unknown", None))

    def alone_in_number_context(self, recording: Path, name: str, text: str) -> None:
        self.add(recording, name, "number", text, "number", LETTER_OPTIONS[self.language], ("unknown", None))


def _capitalized(name: str) -> str:
    return name[:1] + name[1:].lower()


def _slug(name: str) -> str:
    spelled = name.lower()
    for letter, written in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss")):
        spelled = spelled.replace(letter, written)
    ascii_only = unicodedata.normalize("NFKD", spelled).encode("ascii", "ignore").decode()
    return "-".join("".join(ch if ch.isalnum() else " " for ch in ascii_only).split())


RECIPE = (
    [package.source for package in PACKAGES],
    KLETTRES_SPEAKERS,
    KLETTRES_CONFIRMATIONS,
    [(voice.folder, voice.no, voice.highest_ordinal) for voice in ASTERISK_VOICES],
    NUMBERS,
    BIG,
    NUMBER_WORDS,
    BIG_WORDS,
    ORDINAL_WORDS,
    MONTHS,
    WEEKDAYS,
    LETTER_OPTIONS,
    TALK,
    TALK_VOICES,
    TALK_CONTEXTS,
)
"""What the selection depends on, besides its code (whose changes raise `real_speech.BUILD_VERSION`)."""
