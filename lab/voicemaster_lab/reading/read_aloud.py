"""`voicemaster bench read-aloud`: the questions read aloud by the quizmaster's voice and heard back by Whisper base.

There is no listener here, so the read is a machine's: each question and its options (and, from a demo, its
explanation), as a game says them, are rendered by the default voice of the language, as `play` renders them, and
transcribed back by Whisper base (greedily, nothing prompted). What comes back otherwise than it was written
is named and classed (`faults.misreadings`); numbers, roman numerals and abbreviations, whose reading Whisper's text
does not show, are weighed way by way (`faults.sensitive`). The entries come from demo games' transcripts (the
questions those games asked) and from an even sample of the bank.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from voicemaster.config.settings import Settings
from voicemaster.host import lines as host_lines
from voicemaster.questions.model import Entry
from voicemaster.questions.spoken import heard_form, lexicon
from voicemaster.rules.letters import Letter
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.hearing.whisper.search import transcribe
from voicemaster.speech.hearing.whisper.strategies import Encoded
from voicemaster.speech.signal import resample
from voicemaster.speech.voice.kokoro import KOKORO_VOICES
from voicemaster.speech.voice.speakers import Speakers, quizmaster_voice, resolved
from voicemaster_lab.reading.demo_games import demo_questions
from voicemaster_lab.reading.faults import KINDS, WEIGHED, WORD, Misread, misreadings, sensitive, within, written_with
from voicemaster_lab.reading.sounds import switched_words, switches

TOKENS_PER_SECOND, TOKENS_FIXED = 10, 16
"""The longest reading decoded for a clip: well above what a voice says in that time (about five tokens a second)."""
OPTIONS_HEARD_AT_LEAST = 0.6
"""Whisper sometimes stops after the first options of a clip; with fewer words than this share of those read, each
option is heard again on its own."""
READING_MARGIN = 10.0
"""How much likelier (natural log) another way of saying a word must be than the intended one to count as the way
the voice said it: the ways compared differ in whole words, which moves the score by far more."""


@dataclass(frozen=True)
class Item:
    """An entry as a game reads it: its lines, each (what it is, the words said)."""

    id: str
    language: str
    source: str
    lines: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Weighed:
    """A number, roman numeral or abbreviation, and the way the voice said it."""

    line: str
    token: str
    kind: str
    said_as: str
    """"intended", or the other way that was likelier."""
    words: str
    margin: float
    """How much likelier the way taken was than the next best; below 0 for an intended way that another beat by less
    than READING_MARGIN (not known how it was said)."""


@dataclass
class Read:
    item: Item
    clips: list[tuple[str, str, str]] = field(default_factory=list)
    """(which lines, their words said, what Whisper wrote) per clip heard."""
    spoken: list[str] = field(default_factory=list)
    """The words the voice was given for each clip (`Speakers.spoken`): a word said as a hint has it
    ("Ischtwan Sabo" for "István Szabó"), and is heard right in that spelling."""
    weighed: list[Weighed] = field(default_factory=list)
    seconds: float = 0.0
    """Of speech."""

    @property
    def misread(self) -> list[tuple[str, Misread]]:
        return [(name, m) for name, said, heard in self.clips for m in misreadings(said, heard, self.item.language)]

    @property
    def faults(self) -> list[tuple[str, Misread]]:
        """What came back wrong and is a reading fault: not a plain word, nor a number, numeral or abbreviation
        weighed as said the intended way (Whisper wrote its digits or letters otherwise: "1863" as "18003 und 60")."""
        spoken = dict(zip((name for name, _, _ in self.clips), self.spoken, strict=False))
        return [
            (line, m)
            for line, m in self.misread
            if m.kind != WORD and not self.said_right(m) and not _heard_as_given(m, spoken.get(line, ""), self)
        ]

    def said_right(self, misread: Misread) -> bool:
        right = {w.token for w in self.weighed if w.said_as == "intended" and w.margin >= 0}
        return misread.kind in WEIGHED and any(token in right for token in misread.said.split())

    @property
    def read_otherwise(self) -> list[Weighed]:
        return [w for w in self.weighed if w.said_as != "intended"]

    @property
    def flagged(self) -> bool:
        return bool(self.faults or self.read_otherwise)


def _heard_as_given(misread: Misread, spoken: str, read: Read) -> bool:
    """A word heard as the voice was given it: said right, in the spelling of its hint ("U2" as "U two"). Not a
    word weighed, whose ways are told apart by the weighing."""
    weighed = {w.token for w in read.weighed}
    if any(token in weighed for token in misread.said.split()) or not misread.heard:
        return False
    return within(misread.heard.replace(" ", ""), "".join(heard_form(spoken, read.item.language).split()))


def demo_items(folder: Path, language: str) -> list[Item]:
    """The questions a demo game asked (`voicemaster demo --out FOLDER`), each with its options and explanation as
    they were first said."""
    items: list[Item] = []
    current: list[tuple[str, str]] | None = None
    current_id = ""
    seen: set[str] = set()

    def close() -> None:
        if current:
            items.append(Item(current_id, language, f"demo {folder.name}", tuple(current)))

    for raw in (folder / "transcript.jsonl").read_text(encoding="utf-8").splitlines():
        step = json.loads(raw)
        if step["event"] == "question" and "question_id" in step:
            close()
            current_id = str(step["question_id"])
            current = [] if current_id not in seen else None
            seen.add(current_id)
        elif step["event"] == "say" and current is not None:
            kind, text = step.get("line"), str(step.get("text", ""))
            if kind in ("question", "option", "explanation") and (kind, text) not in current:
                current.append((str(kind), text))
    close()
    return items


def bank_items(entries: Iterable[Entry], language: str, limit: int | None, seed: int) -> list[Item]:
    """An even sample of the language's entries (all of them without a limit), read as a game reads them."""
    chosen = sorted((e for e in entries if e.language == language), key=lambda e: e.id)
    if limit is not None and limit < len(chosen):
        chosen = sorted(random.Random(seed).sample(chosen, limit), key=lambda e: e.id)
    return [entry_item(entry, "bank") for entry in chosen]


def entry_item(entry: Entry, source: str, *, explanation: bool = False) -> Item:
    lines = host_lines.load(entry.language)
    said = [("question", lines.render("question", {"text": entry.question}))]
    for letter, option in zip(Letter.first(len(entry.options)), entry.options, strict=True):
        said.append(("option", lines.render("option", {"letter": letter.value, "text": option})))
    if explanation and entry.explanation:
        said.append(("explanation", lines.render("explanation", {"text": entry.explanation})))
    return Item(entry.id, entry.language, source, tuple(said))


class Reader:
    """Renders lines with the quizmaster's voice and hears them back."""

    def __init__(self, speakers: Speakers, recognizer: WhisperRecognizer) -> None:
        self.speakers = speakers
        self.recognizer = recognizer

    def read(self, item: Item) -> Read:
        audio = [self.speakers.render(text, item.language) for _, text in item.lines]
        read = Read(item, seconds=sum(a.seconds for a in audio))
        said = list(item.lines)
        clips: list[list[int]] = []
        for at, (kind, _) in enumerate(said):
            if kind == "option" and clips and said[clips[-1][-1]][0] == "option":
                clips[-1].append(at)
            else:
                clips.append([at])
        for clip in clips:
            words = " ".join(said[at][1] for at in clip)
            text, listened = self.hear(joined([audio[at] for at in clip]), item.language)
            if len(clip) > 1 and len(text.split()) < OPTIONS_HEARD_AT_LEAST * len(words.split()):
                text = " ".join(self.hear(audio[at], item.language)[0] for at in clip)
            read.clips.append((said[clip[0]][0] + ("s" if len(clip) > 1 else ""), words, text))
            read.spoken.append(" ".join(self.speakers.spoken(said[at][1], item.language) for at in clip))
            for at in clip:
                if sensitive(said[at][1], item.language):
                    own = listened if len(clip) == 1 else self.hear(audio[at], item.language, free=False)[1]
                    read.weighed += self.weigh(said[at], own, item.language)
        return read

    def hear(self, audio: Audio, language: str, *, free: bool = True) -> tuple[str, Encoded]:
        """Whisper's reading of `audio` (when `free`), and the audio as its decoder sees it."""
        listened = self.recognizer.listen(audio, language)
        if not free:
            return "", listened
        tokens = listened.tokens
        budget = int(TOKENS_FIXED + TOKENS_PER_SECOND * audio.seconds)
        read = transcribe(listened.model, listened.keys, list(tokens.special.start), tokens.special, budget=budget,
                          beam=1, spell=tokens.decode)  # fmt: skip
        return tokens.decode(read), listened

    def weigh(self, line: tuple[str, str], listened: Encoded, language: str) -> list[Weighed]:
        """Each number, roman numeral and abbreviation of the line, and the way of saying it the audio holds."""
        kind, text = line
        weighed = []
        for word in sensitive(text, language):
            # The words before it are written alike in every way: their score is the same, and left out.
            before = " ".join(text.split()[: word.at])
            ways = [(written_with(text, word.at, way.words), way) for way in word.ways]
            scores = [(likelihood(listened, written, before), way) for written, way in ways]
            intended = max(score for score, way in scores if way.name == "intended")
            other, way = max(((s, w) for s, w in scores if w.name != "intended"), key=lambda pair: pair[0])
            if other - intended > READING_MARGIN:
                weighed.append(Weighed(kind, word.token, word.kind, way.name, way.words, round(other - intended, 1)))
            else:
                best = next(w for s, w in scores if s == intended)
                weighed.append(Weighed(kind, word.token, word.kind, "intended", best.words, round(intended - other, 1)))
        return weighed


def likelihood(listened: Encoded, text: str, given: str = "") -> float:
    """The log-probability of `text`, with its end, as the transcript of the audio (teacher-forced); of what follows
    `given` only, when `text` starts with it (the same for every way, so not worth the decoder's time)."""
    tokens = listened.tokens
    start = list(tokens.special.start)
    body = [*tokens.encode(" " + text), tokens.special.end]
    known = tokens.encode(" " + given) if given else []
    skip = len(known) - 1 if known and body[: len(known)] == known else 0  # the last token may join the next word
    sequence = start + body
    at = list(range(len(start) - 1 + skip, len(sequence) - 1))
    _, rows = listened.model.start(listened.keys, sequence[:-1], at=at)
    return float(sum(rows[row, token] for row, token in enumerate(body[skip:])))


def joined(parts: Sequence[Audio]) -> Audio:
    rate = parts[0].rate
    return Audio(b"".join(resample(part, rate).samples for part in parts), rate)


def run(
    settings: Settings,
    entries: Sequence[Entry],
    languages: Sequence[str],
    *,
    limit: int | None,
    demos: Sequence[Path] = (),
    demo_seeds: Sequence[int] = (),
    ids: Sequence[str] = (),
    seed: int = 1,
    out: Path | None = None,
    plain: bool = False,
) -> dict[str, Any]:
    """Reads the demo games' questions in `demos` (folders whose transcript is in one of `languages`) and those the
    demo games of `demo_seeds` ask (replayed, `demo_games.py`), then `limit` entries of each language's bank (or the
    entries named in `ids` alone), and returns the figures; every read, heard and weighed, goes to `out` as JSON
    lines if given. `plain`: the engines are given the text as written, without the quizmaster's reading
    (`speech/voice/reading.py`), to see what it changes."""
    from voicemaster.models.verify import require_model

    started = time.monotonic()
    speakers = Speakers(settings.speech) if plain else quizmaster_voice(settings.speech, lexicon(entries))
    figures: dict[str, Any] = {"languages": {}, "flagged": [], "misheard_words": {}, "plain": plain}
    by_id = {entry.id: entry for entry in entries}
    with (out or Path("/dev/null")).open("w", encoding="utf-8") as log:
        for language in languages:
            recognizer = WhisperRecognizer(require_model("whisper", language))
            reader = Reader(speakers, recognizer)
            items = [item for folder in demos for item in demo_items(folder, language) if _language(folder) == language]
            played = {item.id for item in items}
            for seed_played in demo_seeds:
                for asked in demo_questions(settings, entries, language, seed_played):
                    if asked not in played and asked in by_id:
                        played.add(asked)
                        items.append(entry_item(by_id[asked], f"demo seed {seed_played}", explanation=True))
            if ids:
                items += [entry_item(by_id[i], "named") for i in ids if i in by_id and by_id[i].language == language]
            else:
                items += bank_items(entries, language, limit, seed)
            reads = []
            for item in items:
                read = reader.read(item)
                reads.append(read)
                log.write(json.dumps(_as_json(read), ensure_ascii=False) + "\n")
                log.flush()
            _sum_up(figures, language, reads, settings, entries, speakers)
    figures["seconds"] = round(time.monotonic() - started)
    return figures


def summed_up(
    settings: Settings,
    entries: Sequence[Entry],
    records: Iterable[dict[str, Any]],
    *,
    plain: bool = False,
    changed: bool = False,
    out: Path | None = None,
) -> dict[str, Any]:
    """The figures of reads written by earlier runs (`--out` files; of an entry read twice, the later read), their
    words compared anew. `changed`: the entries whose sound the quizmaster's reading changes (their words, or the
    language a stretch is said in) are read anew with it, the others kept (the same sound is heard the same), and
    every read goes to `out`."""
    from voicemaster.models.verify import require_model

    started = time.monotonic()
    speakers = Speakers(settings.speech) if plain else quizmaster_voice(settings.speech, lexicon(entries))
    figures: dict[str, Any] = {"languages": {}, "flagged": [], "misheard_words": {}, "plain": plain}
    latest = {(str(r["language"]), str(r["id"])): reread(r) for r in records}
    for read in latest.values():  # reads written before the words given were kept: given as this run gives them
        if all(spoken == said for spoken, (_, said, _) in zip(read.spoken, read.clips, strict=True)):
            read.spoken = [
                " ".join(speakers.spoken(t, read.item.language) for t in _lines_of(read, name))
                for name, _, _ in read.clips
            ]
    with (out or Path("/dev/null")).open("w", encoding="utf-8") as log:
        for language in dict.fromkeys(language for language, _ in latest):
            reads = [read for (of, _), read in latest.items() if of == language]
            if changed:
                reader = Reader(speakers, WhisperRecognizer(require_model("whisper", language)))
                voice = resolved(settings.speech[language], language)
                accent = KOKORO_VOICES[voice.name].phonemes if voice.engine == "kokoro" else None
                reads = [reader.read(r.item) if _changes(r.item, speakers, accent) else r for r in reads]
            for read in reads:
                log.write(json.dumps(_as_json(read), ensure_ascii=False) + "\n")
            _sum_up(figures, language, reads, settings, entries, speakers)
    figures["seconds"] = round(time.monotonic() - started)
    return figures


def _lines_of(read: Read, clip: str) -> list[str]:
    """The lines of a clip by its name: "options" is every option, else the line of that kind."""
    kind = "option" if clip == "options" else clip
    return [text for of, text in read.item.lines if of == kind]


def _changes(item: Item, speakers: Speakers, accent: str | None) -> bool:
    """Whether the quizmaster's reading makes the entry sound otherwise than its words as written: other words, or
    the marks of a stretch in another language, which Kokoro was given as sounds before."""
    texts = [text for _, text in item.lines]
    if any(speakers.spoken(text, item.language) != text for text in texts):
        return True
    return accent is not None and any(switches(text, accent) for text in texts)


def _sum_up(
    figures: dict[str, Any],
    language: str,
    reads: list[Read],
    settings: Settings,
    entries: Sequence[Entry],
    speakers: Speakers,
) -> None:
    voice = resolved(settings.speech[language], language)
    figures["languages"][language] = _tally(reads, f"{voice.engine} {voice.name}")
    if voice.engine == "kokoro":
        accent = KOKORO_VOICES[voice.name].phonemes
        ours = [entry for entry in entries if entry.language == language]
        switched = switched_words(ours, partial(speakers.spoken, language=language), accent)
        figures["languages"][language]["other_language"] = {
            "words": len(switched),
            "entries": len(set().union(*switched.values())) if switched else 0,
            "most": {w: len(ids) for w, ids in sorted(switched.items(), key=lambda p: -len(p[1]))[:60]},
        }
    figures["flagged"] += [_as_json(read) for read in reads if read.flagged]
    words = Counter(m.said.lower() for read in reads for _, m in read.misread if m.kind == WORD)
    figures["misheard_words"][language] = {word: n for word, n in words.most_common() if n > 1}


def _language(folder: Path) -> str:
    """A demo folder's language, from its first line said ("de-11" is German, as is one whose lines are)."""
    prefix = folder.name.split("-")[0]
    return prefix if prefix in ("de", "en", "fr") else ""


def _tally(reads: list[Read], voice: str) -> dict[str, Any]:
    kinds = Counter(m.kind for read in reads for _, m in read.faults)
    written_otherwise = Counter(m.kind for read in reads for _, m in read.misread if read.said_right(m))
    weighed = Counter(w.kind for read in reads for w in read.weighed)
    otherwise = Counter(w.kind for read in reads for w in read.read_otherwise)
    return {
        "voice": voice,
        "entries": len(reads),
        "from_demos": sum(read.item.source.startswith("demo") for read in reads),
        "lines": sum(len(read.item.lines) for read in reads),
        "speech_seconds": round(sum(read.seconds for read in reads)),
        "flagged": sum(read.flagged for read in reads),
        "misread": {kind: kinds[kind] for kind in KINDS if kinds[kind]},
        "plain_words_misheard": sum(m.kind == WORD for read in reads for _, m in read.misread),
        "weighed_right_heard_otherwise": dict(written_otherwise),
        "weighed": {kind: {"words": weighed[kind], "said_otherwise": otherwise[kind]} for kind in weighed},
    }


def _as_json(read: Read) -> dict[str, Any]:
    return {
        "id": read.item.id,
        "language": read.item.language,
        "source": read.item.source,
        "lines": [list(line) for line in read.item.lines],
        "clips": [
            {"line": name, "said": said, "heard": heard, "spoken": spoken}
            for (name, said, heard), spoken in zip(read.clips, read.spoken, strict=False)
        ],
        "seconds": round(read.seconds, 2),
        "misread": [{"line": line, **asdict(m)} for line, m in read.misread],
        "faults": [{"line": line, **asdict(m)} for line, m in read.faults],
        "weighed": [asdict(w) for w in read.weighed],
    }


def reread(record: dict[str, Any]) -> Read:
    """A read from a line of an earlier `--out` file: its words compared anew (the classing may have changed since),
    what was weighed as it was."""
    lines = tuple((str(kind), str(text)) for kind, text in record["lines"])
    item = Item(str(record["id"]), str(record["language"]), str(record["source"]), lines)
    clips = [(str(c["line"]), str(c["said"]), str(c["heard"])) for c in record["clips"]]
    spoken = [str(c.get("spoken", c["said"])) for c in record["clips"]]
    weighed = [Weighed(**w) for w in record["weighed"]]
    return Read(item, clips, spoken, weighed, float(record.get("seconds", 0.0)))


def report(figures: dict[str, Any]) -> str:
    rows = ["language  voice                entries  lines  flagged  misread (not plain words)  said otherwise"]
    for language, tally in figures["languages"].items():
        misread = ", ".join(f"{kind} {n}" for kind, n in tally["misread"].items()) or "-"
        otherwise = ", ".join(f"{k} {v['said_otherwise']}/{v['words']}" for k, v in tally["weighed"].items()) or "-"
        rows.append(
            f"{language:<9} {tally['voice']:<20} {tally['entries']:>7} {tally['lines']:>6} {tally['flagged']:>8}  "
            f"{misread:<26} {otherwise}"
        )
    for flagged in figures["flagged"]:
        rows.append(f"\n{flagged['id']} ({flagged['source']})")
        for misread in flagged["faults"]:
            rows.append(f"  {misread['kind']}: {misread['said']!r} heard {misread['heard']!r}")
        for weighed in flagged["weighed"]:
            if weighed["said_as"] != "intended":
                rows.append(
                    f"  {weighed['kind']}: {weighed['token']!r} said {weighed['said_as']} ({weighed['words']!r})"
                )
    for language, tally in figures["languages"].items():
        other = tally.get("other_language")
        if other:
            rows.append(
                f"\nwords the voice says in another language ({language}): {other['words']} in {other['entries']} "
                "entries: " + ", ".join(f"{w} {n}" for w, n in other["most"].items())
            )
    for language, words in figures["misheard_words"].items():
        if words:
            rows.append(
                f"\nplain words misheard more than once ({language}): "
                + ", ".join(f"{w} {n}" for w, n in words.items())
            )
    rows.append(f"\n{figures['seconds']} s")
    return "\n".join(rows)
