"""The utterances `bench asr` and `bench latency` measure, as samples: the eSpeak-NG corpus (clean and in car
noise), the players' Kokoro and Pico voices, the real recordings of people, and option words said among options of
their kind."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from voicemaster.cli.manifest import ManifestError, read_manifest
from voicemaster.dialogue.meaning import ContextName
from voicemaster_lab.asr import options
from voicemaster_lab.corpora import echo, real_speech, room_alone, rooms, voiced
from voicemaster_lab.corpora.corpus import Clip, Noise, generate, load


@dataclass(frozen=True)
class Sample:
    """One utterance of either corpus, as the measurement needs it."""

    path: Path
    language: str
    context: ContextName
    options: tuple[str, ...]
    names: tuple[str, ...]
    text: str
    intent: str
    value: str | None
    condition: str
    """Clean or with car noise (eSpeak-NG), whose voice (Kokoro), which source (real recordings)."""
    kind: str = ""
    """Real recordings: what kind of thing is said (letter, word, number...: `real_speech.KINDS`)."""
    speaker: str = ""
    """Whose voice, where known (real recordings, option words): a party's babble is never the player's."""
    room: Path | None = None
    """The room heard alone before the utterance (`corpora.room_alone`), as the game's microphone hears it before a
    player answers: the crowd is judged against it (`speech.hearing.crowd`). None: no room heard, nothing crowded."""

    @property
    def file(self) -> str:
        return self.path.name


def espeak_samples(corpus: Path, clips: Sequence[Clip]) -> list[Sample]:
    return [
        Sample(
            corpus / clip.file,
            clip.language,
            clip.context,
            clip.options,
            clip.names,
            clip.text,
            clip.intent,
            clip.value,
            "clean" if clip.snr_db is None else f"car {clip.snr_db:g} dB",
        )
        for clip in clips
    ]


def voiced_samples(
    corpus: Path, languages: Sequence[str], limit: int | None, voices: str = "kokoro"
) -> tuple[list[Sample], str | None]:
    """The utterances in the players' voices of an engine (`voiced_corpus.SPEAKERS`: kokoro, pico), or none and
    why."""
    rendered, missing = voiced.generate(corpus, languages, limit, voiced.SPEAKERS[voices])
    return [
        Sample(c.path, u.language, u.context, u.options, u.names, u.text, u.intent, u.value, c.voice)
        for c in rendered
        for u in [c.utterance]
    ], missing


def real_samples(languages: Sequence[str]) -> tuple[list[Sample], str | None]:
    """The real recordings set-up installed, or none and why; the condition is the source (klettres, asterisk-en,
    asterisk-fr, armelle)."""
    try:
        clips = real_speech.load(languages)
    except real_speech.RealSpeechUnavailable as error:
        return [], str(error)
    return [
        Sample(
            clip.path(),
            clip.language,
            ContextName(clip.context),
            clip.options,
            (),
            clip.text,
            clip.intent,
            clip.value,
            clip.source,
            clip.kind,
            clip.speaker,
        )
        for clip in clips
    ], None


CORPORA = ("espeak", "kokoro", "pico", "real", "options")
ROOMS = tuple(rooms.ROOMS)
"""Corpora too, each the real recordings and the option words passed through a room (`corpora.rooms`); `rooms`
names them all."""
ECHO = "echo"
"""A corpus too: the real recordings and option words said over the quizmaster's own voice from a laptop's speaker
(`corpora.echo`), each with the reference an echo canceller is given."""
MANIFEST = "manifest:"
"""`manifest:PATH`: a corpus of one's own recordings, written as `voicemaster hear --manifest` reads them."""


def room_samples(
    room: str, spoken: Sequence[Sample], babble: Sequence[Sample], corpus: Path, limit: int | None
) -> list[Sample]:
    """`spoken` (the real recordings and option words) through `room` at each of its levels, made into the corpus
    folder where missing; `babble` is whom the party's other voices are drawn from. `limit` takes an even sample of
    `spoken`."""
    chosen = list(spoken)[:: max(1, len(spoken) // limit)][:limit] if limit else list(spoken)
    pool = [_spoken(sample) for sample in babble]
    return [
        replace(
            sample,
            path=rooms.made(condition, _spoken(sample), pool, corpus),
            condition=condition.label,
            room=room_alone.made(condition, _spoken(sample), pool, corpus),
        )
        for condition in rooms.ROOMS[room]
        for sample in chosen
    ]


def in_a_quiet_room(spoken: Sequence[Sample], corpus: Path) -> list[Sample]:
    """The recordings as made, each heard after a quiet room alone (`room_alone.QUIET`)."""
    return [replace(sample, room=room_alone.made(room_alone.QUIET, _spoken(sample), (), corpus)) for sample in spoken]


def echo_samples(spoken: Sequence[Sample], corpus: Path, limit: int | None) -> list[Sample]:
    """`spoken` said over the quizmaster's voice in the microphone (`corpora.echo`), made into the corpus folder where
    missing; `limit` takes an even sample."""
    chosen = list(spoken)[:: max(1, len(spoken) // limit)][:limit] if limit else list(spoken)
    label = f"laptop echo +{echo.ECHO_OVER_PLAYER_DB:g} dB"
    return [
        replace(sample, path=echo.made(_spoken(sample), sample.language, corpus).microphone, condition=label)
        for sample in chosen
    ]


def _spoken(sample: Sample) -> rooms.Spoken:
    return rooms.Spoken(sample.path, f"{sample.language}/{sample.path.parent.name}/{sample.path.name}", sample.speaker)


def manifest_samples(path: Path, languages: Sequence[str]) -> list[Sample]:
    """The lines of a manifest in these languages, each of which must say what its recording means (`intent`, and
    `value` where the intent has one); a `ManifestError` names the line otherwise. The condition is the manifest's
    name, so it is reported like a source."""
    entries = read_manifest(path)
    for entry in entries:
        if entry.intent is None:
            raise ManifestError(f"{path}:{entry.line}: field 'intent' is missing: bench asr counts what is meant")
    return [
        Sample(
            entry.file,
            entry.context.language,
            entry.context.name,
            entry.context.options,
            entry.context.names,
            entry.text or entry.said,
            entry.intent or "unknown",
            entry.value,
            path.name,
        )
        for entry in entries
        if entry.context.language in languages
    ]


def option_samples(corpus: Path, languages: Sequence[str], limit: int | None) -> tuple[list[Sample], str]:
    """Option words said by people among four options of their kind (`corpora.option_words`), the source as the
    condition; `limit` takes an even sample of the cells."""
    clips, missing = options.clips(corpus, languages, limit)
    return [
        Sample(
            c.path,
            c.language,
            ContextName.ANSWER,
            c.options,
            (),
            c.said,
            "answer",
            c.value,
            c.source,
            "option",
            c.speaker,
        )
        for c in clips
    ], missing


def select_clips(
    corpus: Path, languages: Sequence[str], limit: int | None, *, clean_only: bool = False
) -> tuple[Clip, ...]:
    """The corpus's clips in these languages (the corpus is made first if missing), or an even sample of `limit`."""
    manifest = corpus / "manifest.jsonl"
    if not manifest.exists():
        generate(corpus)
    clips = tuple(
        clip for clip in load(manifest) if clip.language in languages and (clip.noise is Noise.CLEAN or not clean_only)
    )
    if limit is not None:
        clips = clips[:: max(1, len(clips) // limit)][:limit]
    return clips
