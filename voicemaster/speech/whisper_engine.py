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
"""How alike (rapidfuzz ratio, 0-100) the prompted and the plain transcript are when they agree."""
UNPROMPTED_SLACK = 1.5
"""How much less likely (mean log-probability per token) the prompted transcript may be than the decoder's own best
reading without the prompt: more, and the prompt put its words into the player's mouth."""
TOKENS_FIXED, TOKENS_PER_SECOND = 4, 6
"""The longest transcript worth decoding for an utterance of so many seconds: a command is a few words, and a longer
transcript is the decoder repeating itself ("Ppppp...") at a cost of up to 0.7 s. Measured on the bench corpus: the
same accuracy as 8 + 8 per second, p95 decode time 330 ms instead of 400."""
CONFIDENT = 0.3
"""Below this confidence (match closeness times the transcript's mean token probability) the player is asked again."""


@dataclass(frozen=True)
class Hypothesis:
    text: str
    score: float
    """Mean log-probability per token."""


class WhisperEngine:
    """A loaded model; loading takes about a second, so one engine serves a whole game."""

    def __init__(self, model_dir: Path, *, workers: int = 2, beam: int = 2, min_window_seconds: float = 5.0) -> None:
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
        # One thread per decoding, and the prompted and the plain decoding side by side: a command's matrices are too
        # small for two threads to share one decoding (measured: 150 ms one after the other with two threads each,
        # 65 ms side by side with one each; the encoder, too, was no slower on one thread).
        self._model = WhisperModel(
            str(model_dir), device="cpu", compute_type="int8", cpu_threads=1, num_workers=workers
        )
        self._model.hf_tokenizer = complete_tokenizer(model_dir / "tokenizer.json")
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
        words = math.ceil(TOKENS_FIXED + TOKENS_PER_SECOND * len(samples) / RECOGNITION_RATE)

        model = self._model.model
        prompted_run = model.generate(
            encoded,
            [prompted],
            beam_size=self.beam,
            num_hypotheses=self.beam,
            max_length=len(prompted) + words,
            return_scores=True,
            return_no_speech_prob=True,
            asynchronous=True,
        )[0]
        # Without the prompt, at the same time: the decoder's own best reading. `suppress_blank` would hide the end of
        # text right after forced words, here and below.
        plain_run = (
            None
            if not expect
            else model.generate(
                encoded,
                [plain],
                beam_size=1,
                max_length=len(plain) + words,
                return_logits_vocab=True,
                suppress_blank=False,
                asynchronous=True,
            )[0]
        )

        def text(ids: list[int]) -> str:
            return said_once(" ".join(tokenizer.decode([t for t in ids if t < tokenizer.eot]).split()))

        result = prompted_run.result()
        hypotheses = [
            Hypothesis(text(ids), float(score)) for ids, score in zip(result.sequences_ids, result.scores, strict=True)
        ]
        no_speech = float(result.no_speech_prob)
        if plain_run is None:
            return Transcripts(hypotheses, hypotheses[0].text, no_speech)
        greedy = plain_run.result()
        own = [t for t in greedy.sequences_ids[0] if t < tokenizer.eot]
        plain_text = text(own)
        plain_best = _mean_logprob(greedy.logits[0], [*own, tokenizer.eot])
        if agree(hypotheses[0].text, plain_text, language):
            return Transcripts(hypotheses, plain_text, no_speech, plain_best=plain_best)
        # They read differently: how likely the plain decoder finds the prompted reading decides. The text, tokenized
        # afresh: the prompted decoder sometimes spells it oddly (" Ask", " ", "the").
        best = tokenizer.encode(" " + hypotheses[0].text)
        forced = model.generate(
            encoded,
            [plain + best],
            beam_size=1,
            max_length=len(plain) + 2 * len(best) + 4,
            return_logits_vocab=True,
            suppress_blank=False,
        )[0]
        return Transcripts(
            hypotheses,
            plain_text,
            no_speech,
            plain_best=plain_best,
            plain_fit=_mean_logprob(forced.logits[0], [*best, tokenizer.eot]),
        )


def agree(prompted: str, plain: str, language: str) -> bool:
    """Whether the prompted and the plain transcript say much the same."""
    return fuzz.ratio(normalize(prompted, language), normalize(plain, language)) >= AGREEMENT


FIRST_MERGE = "Ġ t"
"""GPT-2's first byte-pair merge, which the packaged `tokenizer.json` lacks (49 999 merges instead of 50 000; a
converter took the first line of merges.txt for its header)."""


def complete_tokenizer(path: Path) -> Any:
    """The model's tokenizer with its first merge restored. Without it every word after a space that starts with a
    lower-case "t" is split ("the" as " " + "the"): the prompt read oddly, and the decoder copied double spaces."""
    import json

    import tokenizers

    spec = json.loads(path.read_text(encoding="utf-8"))
    merges = spec["model"]["merges"]
    if FIRST_MERGE not in merges[:1] and ["Ġ", "t"] not in merges[:1]:
        merges.insert(0, FIRST_MERGE if isinstance(merges[0], str) else FIRST_MERGE.split())
    return tokenizers.Tokenizer.from_str(json.dumps(spec))


def _mean_logprob(steps: Any, tokens: list[int]) -> float:
    """Mean log-probability per token of `tokens`, read from the decoder's scores at each step."""
    import numpy as np

    logprobs = []
    for step, token in zip(steps, tokens, strict=False):
        scores = np.asarray(step, dtype=np.float64)
        top = scores.max()
        logprobs.append(float(scores[token] - top - np.log(np.exp(scores - top).sum())))
    return sum(logprobs) / len(logprobs) if logprobs else -math.inf


@dataclass(frozen=True)
class Transcripts:
    prompted: list[Hypothesis]
    """The beam's transcripts with the context prompt, best first."""
    plain: str
    """The transcript without a prompt: what the audio says when the decoder expects nothing."""
    no_speech: float
    """The probability that there was no speech at all."""
    plain_best: float = 0.0
    """Mean log-probability per token of the plain transcript, without the prompt."""
    plain_fit: float | None = None
    """Mean log-probability per token of the best prompted transcript, read by the decoder without the prompt; only
    worked out when the two transcripts do not agree by their text."""


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
    # A near-equal reading that means something else, or nothing, leaves the meaning in doubt. Except for a money
    # placement: it is read back in full and counts only after a clear yes, so the best reading is offered for the
    # team to confirm or correct ("28 auf A" beside "8.20 auf A", "500.000" beside "5.000").
    read_back = meaning.intent == "placement"
    disputed = not read_back and any((rival.intent, rival.value) != (meaning.intent, meaning.value) for rival in rivals)
    # The prompt makes short commands legible, but it can also put its own words into the decoder's mouth ("Ich
    # höre auf" for "Ich nehme Wien"). So what was understood must also stand without the prompt: its text like the
    # plain transcript's, or nearly as likely to the plain decoder as its own reading. Either alone refused clear
    # answers: "B wie Berta" is unlikely unprompted, and "Yes." came out plain as "df.".
    language = context.language
    alike = agree(best.text, transcripts.plain, language)
    fit = transcripts.plain_fit
    likely = fit is not None and transcripts.plain_best - fit <= UNPROMPTED_SLACK
    # Names and placements are said back before they matter, and short names are where the plain transcript is
    # least reliable ("Anna" heard as "Ja").
    echoed = not (read_back or context.name is ContextName.NAME) and not (alike or likely)
    if meaning.intent == "unknown" or disputed or echoed or confidence < CONFIDENT:
        return _plain_reading(transcripts, context, phrases) or Heard("unknown", None, best.text, round(confidence, 3))
    return Heard(meaning.intent, meaning.value, best.text, round(confidence, 3))


def _plain_reading(transcripts: Transcripts, context: Context, phrases: HearPhrases) -> Heard | None:
    """The plain transcript's meaning, when the prompted reading was refused: it owes nothing to the prompt, so a
    clear phrase in it ("I'm walking away.", "No.") stands on its own."""
    if not transcripts.plain or transcripts.plain == transcripts.prompted[0].text:
        return None
    meaning = understand(transcripts.plain, context, phrases)
    confidence = meaning.score * math.exp(transcripts.plain_best)
    if meaning.intent == "unknown" or confidence < CONFIDENT:
        return None
    return Heard(meaning.intent, meaning.value, transcripts.plain, round(confidence, 3))
