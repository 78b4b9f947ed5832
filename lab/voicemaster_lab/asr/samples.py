"""The utterances `bench asr` and `bench latency` measure, as samples: the eSpeak-NG corpus (clean and in car
noise), the players' Kokoro and Pico voices, the real recordings of people, and option words said among options of
their kind."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from voicemaster.dialogue.meaning import ContextName
from voicemaster_lab.asr import options
from voicemaster_lab.corpora import real_speech, voiced
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
        )
        for clip in clips
    ], None


CORPORA = ("espeak", "kokoro", "pico", "real", "options")


def option_samples(corpus: Path, languages: Sequence[str], limit: int | None) -> tuple[list[Sample], str]:
    """Option words said by people among four options of their kind (`corpora.option_words`), the source as the
    condition; `limit` takes an even sample of the cells."""
    clips, missing = options.clips(corpus, languages, limit)
    return [
        Sample(c.path, c.language, ContextName.ANSWER, c.options, (), c.said, "answer", c.value, c.source)
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
