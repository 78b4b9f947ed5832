"""Whisper (faster-whisper on CTranslate2) as a recognizer for short commands.

Two things make a general transcriber good at a quiz's few phrases:
- The encoder sees a window sized to the utterance instead of 30 seconds of padding, which cuts the time per
  command several-fold (the window is a setting, so `voicemaster bench asr` can measure what it costs in accuracy).
- The decoder is told what to expect: the listening context's example phrases (and the options on offer) go in as
  the previous text, so that eSpeak's "B wie Berta" comes out as "B wie Berta" and not "Baby".
The beam's best transcripts are matched against the context's phrases; an utterance counts only when the best one
matches clearly and no near-equal transcript means something else.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from voicemaster.speech.audio import Audio
from voicemaster.speech.intents import understand
from voicemaster.speech.phrases import HearPhrases, load, normalize
from voicemaster.speech.recognition import Context, ContextName, Heard, RecognizerUnavailable

FRAMES_PER_SECOND = 100
MAX_FRAMES = 3000
"""Whisper's full window: 30 s."""
NO_SPEECH = 0.8
"""Above this probability of no speech, a short noise is not an utterance."""
CLOSE = 0.15
"""Transcripts whose mean log-probability is this close to the best one are taken as equally likely."""
AGREEMENT = 50
"""How alike (rapidfuzz ratio, 0-100) the prompted and the plain transcript must be."""
CONFIDENT = 0.3
"""Below this confidence (match closeness times the transcript's mean token probability) the player is asked again."""


@dataclass(frozen=True)
class Hypothesis:
    text: str
    score: float
    """Mean log-probability per token."""


class WhisperEngine:
    """A loaded model; loading takes about a second, so one engine serves a whole game."""

    def __init__(self, model_dir: Path, *, threads: int = 2, beam: int = 2, min_window_seconds: float = 5.0) -> None:
        try:
            from faster_whisper import WhisperModel
        except ImportError:
            raise RecognizerUnavailable(
                "faster-whisper is not installed: run `make demo` or `.venv/bin/pip install 'voicemaster[whisper]'`."
            ) from None
        if not (model_dir / "model.bin").is_file():
            raise RecognizerUnavailable(
                f"no Whisper model in {model_dir}: run `voicemaster models install whisper-base` (or `make demo`)."
            )
        self._model = WhisperModel(str(model_dir), device="cpu", compute_type="int8", cpu_threads=threads)
        self.beam = beam
        self.min_window_seconds = min_window_seconds

    def transcribe(self, audio: Audio, language: str, expect: str = "") -> Transcripts:
        """The beam's transcripts with the context prompt, best first, and a plain one without it."""
        import ctranslate2
        import numpy as np
        from faster_whisper.tokenizer import Tokenizer

        from voicemaster.speech.signal import RECOGNITION_RATE, resample, to_float

        samples = to_float(resample(audio, RECOGNITION_RATE))
        seconds = max(len(samples) / RECOGNITION_RATE + 0.5, self.min_window_seconds)
        frames = min(MAX_FRAMES, math.ceil(seconds * FRAMES_PER_SECOND))
        padding = max(0, frames * 160 - len(samples))
        features = self._model.feature_extractor(samples, padding=padding)[:, :frames]
        tokenizer = Tokenizer(self._model.hf_tokenizer, True, task="transcribe", language=language)
        plain = [*tokenizer.sot_sequence, tokenizer.no_timestamps]
        prompted = [tokenizer.sot_prev, *tokenizer.encode(" " + expect.strip()), *plain] if expect else plain
        # The encoder runs once; both decodings read its output.
        encoded = self._model.model.encode(
            ctranslate2.StorageView.from_array(np.ascontiguousarray(features[None], dtype=np.float32))
        )
        # A command is a few words; a longer transcript is the decoder repeating its prompt.
        words = 8 + math.ceil(8 * len(samples) / RECOGNITION_RATE)

        def decode(prompt: list[int], beam: int) -> Any:
            return self._model.model.generate(
                encoded,
                [prompt],
                beam_size=beam,
                num_hypotheses=beam,
                max_length=len(prompt) + words,
                return_scores=True,
                return_no_speech_prob=True,
            )[0]

        def text(ids: list[int]) -> str:
            return said_once(tokenizer.decode([t for t in ids if t < tokenizer.eot]).strip())

        result = decode(prompted, self.beam)
        hypotheses = [
            Hypothesis(text(ids), float(score)) for ids, score in zip(result.sequences_ids, result.scores, strict=True)
        ]
        unprompted = text(decode(plain, 1).sequences_ids[0]) if expect else hypotheses[0].text
        return Transcripts(hypotheses, unprompted, float(result.no_speech_prob))


@dataclass(frozen=True)
class Transcripts:
    prompted: list[Hypothesis]
    """The beam's transcripts with the context prompt, best first."""
    plain: str
    """The transcript without a prompt: what the audio says when the decoder expects nothing."""
    no_speech: float
    """The probability that there was no speech at all."""


class WhisperRecognizer:
    def __init__(self, engine: WhisperEngine, *, prompted: bool = True) -> None:
        self.engine = engine
        self.prompted = prompted
        """Without the context prompt it is plain transcription, the baseline `bench asr` compares with."""

    def recognize(self, audio: Audio, context: Context) -> Heard:
        started = time.perf_counter()
        phrases = load(context.language)
        expect = expectation(context, phrases) if self.prompted else ""
        heard = decide(self.engine.transcribe(audio, context.language, expect), context, phrases)
        elapsed = round((time.perf_counter() - started) * 1000, 1)
        return Heard(heard.intent, heard.value, heard.text, heard.confidence, elapsed)


def said_once(text: str) -> str:
    """'Ja, endgültig. Ja, endgültig. Ja, end' is said once: the decoder sometimes repeats a short utterance (of one
    sentence or several) until it runs out of length, so the last repetition may be cut off."""
    sentences = [part.strip() for part in re.split(r"(?<=[.!?])\s+", text) if part.strip()]
    said = [sentence.lower() for sentence in sentences]
    for period in range(1, len(said) // 2 + 1):
        unit, last = said[:period], len(said) - 1
        repeated = all(said[index] == unit[index % period] for index in range(period, last))
        if repeated and unit[last % period].startswith(said[last]):
            return " ".join(sentences[:period])
    return text


def expectation(context: Context, phrases: HearPhrases) -> str:
    """The previous text the decoder is given: the context's examples, then the options or names of the moment."""
    extra = context.options if context.name is ContextName.ANSWER else ()
    if context.name is ContextName.NAME:
        extra = context.names
    # Every command can be said in every context: its first (most common) phrase is enough to prime the decoder.
    commands = [said[0][:1].upper() + said[0][1:] for said in phrases.commands.values()]
    return " ".join([phrases.expect[context.name], *(f"{text}." for text in (*extra, *commands))])


def decide(transcripts: Transcripts, context: Context, phrases: HearPhrases) -> Heard:
    """What the transcripts mean, or `unknown` when they are unclear, disagree, or only the prompt speaks."""
    hypotheses = transcripts.prompted
    if not hypotheses or (transcripts.no_speech > NO_SPEECH and not hypotheses[0].text):
        return Heard("unknown", None, "", 0.0)
    best = hypotheses[0]
    meaning = understand(best.text, context, phrases)
    confidence = meaning.score * math.exp(best.score)
    rivals = (understand(other.text, context, phrases) for other in hypotheses[1:] if best.score - other.score < CLOSE)
    # A near-equal reading that means something else, or nothing, leaves the meaning in doubt.
    disputed = any((rival.intent, rival.value) != (meaning.intent, meaning.value) for rival in rivals)
    # The prompt makes short commands legible, but it can also put its own words into the decoder's mouth ("Je
    # m'arrête" for "Je vais dire C"): the plain transcript must sound roughly like what was understood.
    # Naming who helps is the one choice the quizmaster says back before it matters, and short names are where the
    # plain transcript is least reliable ("Anna" heard as "Ja"), so names need no agreement.
    language = context.language
    checked = context.name is not ContextName.NAME
    echoed = checked and fuzz.ratio(normalize(best.text, language), normalize(transcripts.plain, language)) < AGREEMENT
    if meaning.intent == "unknown" or disputed or echoed or confidence < CONFIDENT:
        return Heard("unknown", None, best.text, round(confidence, 3))
    return Heard(meaning.intent, meaning.value, best.text, round(confidence, 3))
