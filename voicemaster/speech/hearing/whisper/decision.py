"""From phrase scores to a meaning, or to `unknown`: two margins, both in log-probability.

- The meaning margin: the best meaning's best phrase against the best phrase of any *different* meaning. Below it,
  the audio fits two meanings nearly as well ("Antwort B" against "Antwort D"), and the player is asked again.
- The free margin: the decoder's own free reading against the best phrase. Far above it, the player said something
  the grammar does not hold (talk in the car, "ich weiß es nicht"), and the best phrase is only the least bad fit.
  A free reading that the text matcher understands as the same meaning vouches for it instead ("Ist es Wien?" is
  no phrase of the grammar, but its words name Wien).
And whatever the margins: a free reading whose words clearly mean something else leaves the meaning in doubt, so
"Ja. Nein, warte." is never a yes.

The margins are set from measured data: `voicemaster bench asr` prints the curve they were chosen from.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from voicemaster.speech.hearing.intents import Understanding
from voicemaster.speech.hearing.phrases import Phrase, spoken
from voicemaster.speech.hearing.recognition import Heard, Intent

Meaning = tuple[Intent, str | None]


@dataclass(frozen=True)
class Margins:
    meaning: float
    """How much more likely (natural log) the best meaning must be than the best different one."""
    free: float
    """How much less likely the best phrase may be than the decoder's free reading."""
    no_speech: float = 0.85
    """Above this probability that nothing was said, nothing was: Whisper's own judgement, where every phrase fits
    badly and a short "ja" least badly. Measured: silence 0.92; real words from a quiet speaker up to 0.77 (so not
    Whisper's usual 0.6); noise 0.67, which the free reading marks as no speech ("* Musik *") anyway."""
    longer: float = 2.0
    """How many times as long (in letters, plus `LONGER_SLACK`) the free reading may be as the best phrase. The
    scores alone favour a short phrase: "Oui." may be likelier to the decoder than a long garbled reading of "Cinq
    liasses sur la D, le reste sur la A", though the audio plainly holds more than a "oui"."""


LONGER_SLACK = 4
"""Letters a free reading may have beyond `Margins.longer` times the phrase's: "Ja, genau." for "ja genau"."""

MARGINS = Margins(meaning=1.0, free=6.0)

ACTING_AT_ONCE = {"yes": (3.0, 4.0), "joker": (2.0, 4.0)}
"""A yes locks an answer and a joker is used the moment it is heard: when the decoder's own words name nothing, the
scores alone take them only with these (meaning, free) margins, whatever the others are. Measured on the eSpeak-NG
corpus: plainer margins took French "Finalement non" (read "Fais einmal moi.", meaning margin 2.8, free gap 2.8)
for a yes and "Je prends la C" (read "Le progacé", 1.5) for the audience joker; eSpeak's English "yes", read "DF."
(3.5, 1.5), and German "Publikumsjoker", read "publikumsjogad" (3.0, -2.0), are what they are."""


@dataclass(frozen=True)
class Evidence:
    """What the search found, in the terms the decision needs, and what `bench asr` calibrates the margins on."""

    meaning: Meaning | None
    """The meaning of the best-scoring phrase; None when no phrase was scored at all."""
    phrase: str
    score: float
    rival: float
    """The best score of a different meaning; -inf when no other meaning came within the search's reach."""
    free: float
    """The free reading's score."""
    shares: dict[Meaning, float]
    """Each meaning's best score."""
    no_speech: float = 0.0
    """The model's probability that nothing was said at all."""

    @property
    def meaning_margin(self) -> float:
        return self.score - self.rival

    @property
    def free_gap(self) -> float:
        return self.free - self.score

    @property
    def confidence(self) -> float:
        """The best meaning's share of the probability of all meanings found: 0-1."""
        if self.meaning is None:
            return 0.0
        return 1.0 / sum(math.exp(score - self.score) for score in self.shares.values())


def weigh(scores: dict[int, float], phrases: Sequence[Phrase], free: float, no_speech: float) -> Evidence:
    best: dict[Meaning, tuple[float, str]] = {}
    for index, score in scores.items():
        key = (phrases[index].intent, phrases[index].value)
        if score > best.get(key, (-math.inf, ""))[0]:
            best[key] = (score, phrases[index].written)
    if not best:
        return Evidence(None, "", -math.inf, -math.inf, free, {}, no_speech)
    ranked = sorted(best.items(), key=lambda item: -item[1][0])
    (meaning, (score, written)), rival = ranked[0], (ranked[1][1][0] if len(ranked) > 1 else -math.inf)
    return Evidence(meaning, written, score, rival, free, {key: value for key, (value, _) in best.items()}, no_speech)


def decide(evidence: Evidence, free_reading: Understanding, text: str, margins: Margins = MARGINS) -> Heard:
    """The meaning the evidence supports clearly enough to act on, else `unknown`; `text` is what was heard."""
    confidence = round(evidence.confidence, 3)
    if evidence.meaning is None or not _clear(evidence, free_reading, text, margins):
        return Heard(Intent.UNKNOWN, None, text, confidence)
    intent, value = evidence.meaning
    return Heard(intent, value, text, confidence)


def _clear(evidence: Evidence, free_reading: Understanding, text: str, margins: Margins) -> bool:
    if evidence.meaning_margin < margins.meaning:
        return False
    if evidence.no_speech > margins.no_speech or not _words(text):
        return False
    if free_reading.intent != Intent.UNKNOWN:  # the decoder's own words name a meaning: the same one, or doubt
        return (free_reading.intent, free_reading.value) == evidence.meaning
    # Its words name nothing: the scores alone decide, more strictly for what acts at once.
    intent = evidence.meaning[0] if evidence.meaning else ""
    if _longer(text, evidence.phrase, margins.longer):
        return False
    meaning, free = ACTING_AT_ONCE.get(intent, (margins.meaning, margins.free))
    return evidence.meaning_margin >= meaning and evidence.free_gap <= free


def _words(text: str) -> bool:
    """Whether the free reading holds words: Whisper writes what is no speech in brackets or between asterisks
    ("(water running)", "* Musik *") or as bare punctuation ("...")."""
    return bool(spoken(re.sub(r"\([^)]*\)|\[[^\]]*\]|\*[^*]*\*|♪[^♪]*♪", " ", text)))


def _longer(text: str, phrase: str, ratio: float) -> bool:
    return len(spoken(text)) > ratio * len(spoken(phrase)) + LONGER_SLACK
