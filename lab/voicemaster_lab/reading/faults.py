"""What a reading aloud got wrong: the quizmaster's words as written against what Whisper heard in them.

Both sides are compared as a listener hears them (`questions.spoken.heard_form`: case, punctuation, and a number as
digits or as words all alike), word by word. A stretch that differs is classed by what was written there: a number,
a roman numeral, an abbreviation, a symbol, a name, or a plain word. Whisper base mishears plain words of synthetic
voices often, so a plain word is noise unless the same word comes back wrong again and again; the other classes are
the reading faults looked for.

Whisper writes a number it hears as digits however it was said ("neunzehnhundertfünfundvierzig" and
"eintausendneunhundertfünfundvierzig" both come back "1945"), and an abbreviation in capitals whether it was spelled
or said as a word. So each number, roman numeral and abbreviation is also weighed (`Reading`): the line's audio is
scored against the line written with each way of saying it, and the likeliest way is taken as the one the voice
used.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from num2words import num2words
from rapidfuzz import fuzz

from voicemaster.questions.spoken import heard_form

NUMBER, ROMAN, ABBREVIATION, SYMBOL, NAME, WORD = "number", "roman numeral", "abbreviation", "symbol", "name", "word"
KINDS = (NUMBER, ROMAN, ABBREVIATION, SYMBOL, NAME, WORD)
WEIGHED = (NUMBER, ROMAN, ABBREVIATION)
"""The kinds whose way of being said is weighed (`sensitive`)."""
SIMILAR = 80
"""rapidfuzz ratio from which a stretch heard counts as the words said: a spelling Whisper chose ("Skrabble",
"Marabou", compounds split or joined) is not a misreading."""
LETTER = re.compile(r"^[A-D]:?$")
"""An option's letter as the option line writes it ("B: Rom.", French "B : Rome."): read, but not what is checked."""
_PUNCTUATION = ".,;:!?()[]«»„“”\"'’‚‘…–—"
_ROMAN = re.compile(r"^(?=[MDCLXVI])M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})(er|re|e|ème)?$")
_ORDINAL = re.compile(r"^[IVX]+(er|re|e|ème)$")
"""A roman numeral with an ordinal ending ("Ier", "XIXe"); not "Le", "De" or "Ce", which are words."""
_ELISION = re.compile(r"^(?:[LlDdJjNnSsMmTtCc]|[Qq]u|[Jj]usqu|[Ll]orsqu|[Pp]uisqu)[’']")
_ABBREVIATION = re.compile(r"^[A-ZÄÖÜ][A-ZÄÖÜ0-9]+$")
_SYMBOLS = re.compile(r"[%&/°€$£+=#*§@]")
NATIVE_LETTERS = {
    "de": "abcdefghijklmnopqrstuvwxyzäöüß",
    "en": "abcdefghijklmnopqrstuvwxyz",
    "fr": "abcdefghijklmnopqrstuvwxyzàâæçéèêëîïôœùûüÿ",
}
SYMBOL_WORDS = {
    "de": ("anführungszeichen", "anführungsstriche", "zitat", "zitatende", "apostroph", "prozent", "schrägstrich"),
    "en": ("quote", "unquote", "quotation", "apostrophe", "percent", "slash", "ampersand"),
    "fr": ("guillemet", "guillemets", "apostrophe", "pourcent", "slash", "barre", "esperluette"),
}
"""Words a voice says for a symbol it reads out instead of keeping silent about."""


@dataclass(frozen=True)
class Misread:
    """A stretch of a line that came back otherwise than it was written."""

    said: str
    """The written words (as in the line)."""
    heard: str
    """What Whisper wrote for them."""
    kind: str


def stripped(token: str) -> str:
    """A token without the punctuation around it, nor a French elision before it ("L’OMS." is "OMS")."""
    return _ELISION.sub("", token.strip(_PUNCTUATION)).strip(_PUNCTUATION)


def is_roman(tokens: list[str], at: int) -> bool:
    """A roman numeral said as a number: after a name ("Louis XIV", "Henri IV"), or with an ordinal ending
    ("François Ier", "XIXe siècle"); "CD" in "eine CD", the English "I", "Vitamin C" are not."""
    token = stripped(tokens[at])
    match = _ROMAN.match(token)
    if match is None or not token:
        return False
    if match.group(1):
        return bool(_ORDINAL.match(token))
    before = stripped(tokens[at - 1]) if at else ""
    return len(token) >= 2 and before[:1].isupper() and not _ABBREVIATION.match(before)


def kind_of(tokens: list[str], positions: list[int], language: str) -> str:
    """The class of the written words at `positions` of a line's `tokens`: the first that applies of number, roman
    numeral, abbreviation, symbol, name, word."""
    words = [stripped(tokens[at]) for at in positions]
    if any(re.search(r"\d", word) for word in words):
        return NUMBER
    if any(is_roman(tokens, at) for at in positions):
        return ROMAN
    if any(_ABBREVIATION.match(word) for word in words):
        return ABBREVIATION
    if any(_SYMBOLS.search(tokens[at]) for at in positions):
        return SYMBOL
    native = NATIVE_LETTERS.get(language, NATIVE_LETTERS["en"])
    foreign = any(c.isalpha() and c.lower() not in native for word in words for c in word)
    # German capitalizes every noun: a name there is told by its letters alone; elsewhere by a capital that does
    # not start a line or a sentence ("B: Leopard." is a word).
    named = language != "de" and any(
        word[:1].isupper() and at > 0 and not tokens[at - 1].endswith((":", ".", "?", "!"))
        for word, at in zip(words, positions, strict=True)
    )
    return NAME if foreign or named else WORD


def misreadings(said: str, heard: str, language: str) -> list[Misread]:
    """The stretches of `said` (a line, or lines joined by spaces) that `heard` does not hold, compared as a listener
    hears them; a roman numeral as the number it stands for. Not counted: an option's letter heard otherwise, a word
    heard in a near spelling. Counted besides: words heard after a number, numeral or abbreviation where none were
    said ("Louis quatorze romain"), and a symbol's name said aloud."""
    tokens = said.split()
    letters = {at for at, token in enumerate(tokens) if LETTER.match(token) and _lettered(tokens, at)}
    expected: list[tuple[str, int]] = []
    for at, token in enumerate(tokens):
        written = roman_ways(tokens, at, language)[0].words if is_roman(tokens, at) else token
        expected += [(word, at) for word in heard_form(written, language).split()]
    # Whisper writes a numeral it hears after a name as one ("Henry VIII"): as words, it is what was said.
    heard_tokens = heard.split()
    got = [
        word
        for at, token in enumerate(heard_tokens)
        for word in heard_form(roman_ways(heard_tokens, at, language)[0].words if is_roman(heard_tokens, at) else token,
                               language).split()
    ]  # fmt: skip
    matcher = difflib.SequenceMatcher(None, [word for word, _ in expected], got, autojunk=False)
    found = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        extra = " ".join(got[j1:j2])
        positions = [at for at in sorted({at for _, at in expected[i1:i2]}) if at not in letters]
        if not positions:
            before = expected[i1 - 1][1] if i1 else None
            if set(got[j1:j2]) & set(SYMBOL_WORDS.get(language, ())):  # a symbol said where nothing was to be heard
                found.append(Misread("", extra, SYMBOL))
            elif (
                tag == "insert"
                and before is not None
                and kind_of(tokens, [before], language) in (NUMBER, ROMAN, ABBREVIATION)
            ):
                found.append(Misread(tokens[before], extra, kind_of(tokens, [before], language)))
            continue
        heard_words = "".join(got[j1:j2])
        said_words = {at: "".join(word for word, where in expected[i1:i2] if where == at) for at in positions}
        kind = kind_of(tokens, positions, language)
        # A number is heard right only in its very words ("neunzehnhundert" is no near spelling of "tausend").
        missing = [at for at in positions if not _heard_in(said_words[at], heard_words, exactly=kind == NUMBER)]
        if missing:
            written = " ".join(tokens[at] for at in missing)
            found.append(Misread(written, extra, kind_of(tokens, missing, language)))
    return found


def _lettered(tokens: list[str], at: int) -> bool:
    """The letter of an option line: "B:", or "B" before a French " :"."""
    return tokens[at].endswith(":") or tokens[at + 1 : at + 2] == [":"]


def _heard_in(words: str, heard: str, *, exactly: bool) -> bool:
    return words in heard if exactly else within(words, heard)


def within(words: str, heard: str) -> bool:
    """Whether `words` (as heard, run together) are in `heard` in a near spelling."""
    return bool(heard) and fuzz.partial_ratio(words, heard) >= SIMILAR


# Ways of saying what Whisper writes alike


@dataclass(frozen=True)
class Way:
    """One way a voice may say a written word: the line written with it instead, to be scored against the audio."""

    name: str
    """"intended" (as a native speaker says it) or what the other way is ("cardinal", "letters", "roman word")."""
    words: str


@dataclass(frozen=True)
class Sensitive:
    """A written word whose reading Whisper's free text does not show: a number, a roman numeral, an abbreviation."""

    token: str
    at: int
    kind: str
    ways: tuple[Way, ...]
    """The intended way first."""


SAID_AS_WORDS = {
    "de": {"ABBA", "IKEA", "OPEC", "NATO", "UNO", "UNESCO", "UNICEF", "NASA", "FIFA", "UEFA", "AIDS", "DAX", "TÜV",
           "ADAC", "TKKG"},
    "en": {"ABBA", "IKEA", "NATO", "NASA", "UNESCO", "UNICEF", "QWERTY", "ARPANET", "RAM", "HAL", "PARC", "FIFA",
           "UEFA", "OPEC", "AIDS", "SCUBA", "LASER", "RADAR", "NAFTA", "ASCII", "BAFTA", "DAB", "WASP"},
    "fr": {"ABBA", "IKEA", "OTAN", "OPEP", "ONU", "UNESCO", "UNICEF", "NASA", "FIFA", "UEFA", "SIDA", "OVNI", "CAC",
           "SMIC", "ENA", "INSEE", "CNES", "ZAD", "CERN", "ESA", "CAF", "PACS", "ASCII", "BASIC", "FAO"},
}  # fmt: skip
"""Abbreviations a native speaker says as a word, not letter by letter (ADAC is "A-D-A-C" in German; TKKG is spelled
too, but kept here as it is the band of the books; the list only says what the check expects)."""
LETTER_NAMES = {
    "de": "a be ce de e ef ge ha i jott ka el em en o pe ku er es te u vau we ix ypsilon zett",
    "en": "a bee cee dee e ef gee aitch i jay kay el em en o pee cue ar ess tee u vee double-u ex wy zed",
    "fr": "a bé cé dé e effe gé ache i ji ka elle emme enne o pé ku erre esse té u vé double-vé ixe i-grec zède",
}
_ROMAN_VALUES = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}
_CARDINAL_AFTER = {"war", "world", "part", "act", "chapter", "vatican", "apollo", "guerre", "partie", "acte"}
"""Words after which a roman numeral is a cardinal ("World War Two", "Vatican II"), not a ruler's ordinal."""


def roman_value(token: str) -> int:
    digits = _ROMAN.match(token)
    assert digits is not None
    letters = token[: len(token) - len(digits.group(1) or "")]
    values = [_ROMAN_VALUES[c] for c in letters]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def year_ways(value: int, language: str) -> tuple[Way, ...]:
    intended = str(num2words(value, lang=language, to="year"))
    others = {
        "cardinal": str(num2words(value, lang=language)),
        "digit by digit": " ".join(str(num2words(int(d), lang=language)) for d in str(value)),
    }
    if language == "de":  # "tausendsiebenhundertneunundachtzig": how Pico says a number standing alone
        others["cardinal without ein"] = re.sub(r"^ein(hundert|tausend)", r"\1", others["cardinal"])
    if language == "en" and value >= 1100 and value % 100:
        others["hundred and"] = f"{num2words(value // 100, lang='en')} hundred and {num2words(value % 100, lang='en')}"
    return _distinct(intended, others)


def roman_ways(tokens: list[str], at: int, language: str) -> tuple[Way, ...]:
    token = stripped(tokens[at])
    value = roman_value(token)
    ending = _ROMAN.match(token).group(1)  # type: ignore[union-attr]
    before = stripped(tokens[at - 1]).lower() if at else ""
    cardinal = str(num2words(value, lang=language))
    ordinal = str(num2words(value, lang=language, to="ordinal"))
    if language == "fr":
        feminine = ending == "re" or (value == 1 and before in {"élisabeth", "marie", "catherine", "isabelle"})
        intended = ("première" if feminine else "premier") if value == 1 else cardinal
        if ending in ("e", "ème") and value > 1:
            intended = ordinal
    elif language == "en":
        intended = cardinal if before in _CARDINAL_AFTER else f"the {ordinal}"
    else:
        intended = cardinal if before in _CARDINAL_AFTER else f"der {ordinal.capitalize()}"
    others = {
        "letters": " ".join(token[: len(token) - len(ending or "")]),
        "cardinal": cardinal,
        "roman word": {"fr": f"{cardinal} romain", "en": f"roman {cardinal}", "de": f"römisch {cardinal}"}[language],
    }
    return _distinct(intended, others)


def abbreviation_ways(token: str, language: str) -> tuple[Way, ...]:
    names = LETTER_NAMES[language].split()
    letters = " ".join(names[ord(c) - ord("A")] if "A" <= c <= "Z" else c for c in token if c.isalnum())
    spelled, word = " ".join(token), token.capitalize()
    if token in SAID_AS_WORDS.get(language, set()):
        return (Way("intended", word), Way("letters", spelled), Way("letter names", letters))
    return (Way("intended", spelled), Way("intended", letters), Way("as a word", word))


def _distinct(intended: str, others: dict[str, str]) -> tuple[Way, ...]:
    ways = [Way("intended", intended)]
    ways += [Way(name, words) for name, words in others.items() if words != intended]
    return tuple(ways)


def sensitive(line: str, language: str) -> list[Sensitive]:
    """The words of a line whose reading is weighed: plain numbers, roman numerals after a name or with an ordinal
    ending, abbreviations."""
    tokens = line.split()
    found = []
    for at, token in enumerate(tokens):
        word = stripped(token)
        if word.isdecimal() and len(word) <= 4:
            found.append(Sensitive(token, at, NUMBER, year_ways(int(word), language)))
        elif is_roman(tokens, at):
            found.append(Sensitive(token, at, ROMAN, roman_ways(tokens, at, language)))
        elif _ABBREVIATION.match(word) and not word.isdecimal():
            found.append(Sensitive(token, at, ABBREVIATION, abbreviation_ways(word, language)))
    return found


def written_with(line: str, at: int, words: str) -> str:
    """The line with its word at `at` written as `words`, its punctuation (and elision) kept."""
    tokens = line.split()
    token = tokens[at]
    core = stripped(token)
    start = token.rfind(core)
    tokens[at] = token[:start] + words + token[start + len(core) :]
    return " ".join(tokens)
