"""From phrase scores to a meaning, or to `unknown`: two margins, both in log-probability.

- The meaning margin: the best meaning's best phrase against the best phrase of any *different* meaning. Below it,
  the audio fits two meanings nearly as well ("Antwort B" against "Antwort D"), and the player is asked again.
- The free margin: the decoder's own free reading against the best phrase. Far above it, the player said something
  the grammar does not hold (talk in the car, "ich weiß es nicht"), and the best phrase is only the least bad fit.
  A free reading that the text matcher understands as the same meaning vouches for it instead ("Ist es Wien?" is
  no phrase of the grammar, but its words name Wien).
And whatever the margins: a free reading whose words clearly mean something else leaves the meaning in doubt, so
"Ja. Nein, warte." is never a yes.

Where the free reading's words name nothing, its letters still testify:
- A pick the free reading contradicts (it is spelled nearer a phrase of another meaning: "Gas." for the options
  Käse and Gras), or resembles not at all ("Hukano" for "Satellit"), needs the larger `Margins.doubted`; a short
  pick (a letter, a number, a syllable) the reading leans to no more than to another option ("Da." for D among
  A-D: as near A as D) needs `Margins.undecided`.
- A phrase of many more syllables than the free reading ("Wolfgang Amadeus Mozart" for a two-syllable "Mozart") is
  not what was said.
- Said over the quizmaster's voice (`over_our_voice`, a barge-in), the audio lost what the echo canceller suppressed,
  and the scores pick a phrase from what is left ("Antwort B" read "und zu machen." and scored as the option Zwiebeln):
  there, as over other people's talk, only the decoder's own words decide. What it loses is the start, so an answer
  the reading's last words name as a whole phrase after a garbled start ("und wird be." for "Antwort B": "be" is
  B) is the decoder's word for it too, and stands where the scores pick the same answer
  (docs/decisions/024-an-answer-named-at-the-end-over-our-voice.md). So is a joker or a walk-away, said back and
  done only after a yes: named at the end so ("L'obnage public."), or by a reading that is its phrase without the
  first word ("50," for "Fünfzig-fünfzig"), beside the scores at the joker's margins
  (docs/decisions/043-a-joker-over-our-line.md).

The margins are set from measured data: `voicemaster bench asr` prints the curve they were chosen from.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

from voicemaster.dialogue.meaning import Heard, Intent
from voicemaster.speech.hearing.intents import Understanding
from voicemaster.speech.hearing.normal_form import Normalized, Reading, spoken
from voicemaster.speech.hearing.phrases import CONTEXTS_KEPT, HearPhrases, Phrase, carrier_words

Meaning = tuple[Intent, str | None]


@dataclass(frozen=True)
class Margins:
    meaning: float
    """How much more likely (natural log) the best meaning must be than the best different one."""
    free: float
    """How much less likely the best phrase may be than the decoder's free reading."""
    no_speech: float = 0.85
    """Above this probability that nothing was said, nothing was: Whisper's own judgement, where every phrase fits
    badly and a short "ja" least badly. Higher than Whisper's usual 0.6, as a quiet speaker's real words come near
    it (`bench asr`)."""
    longer: float = 2.0
    """How many times as long (in letters, plus `LONGER_SLACK`) the free reading may be as the best phrase. The
    scores alone favour a short phrase: "Oui." may be likelier to the decoder than a long garbled reading of "Cinq
    liasses sur la D, le reste sur la A", though the audio plainly holds more than a "oui"."""
    doubted: float = 5.0
    """The meaning margin a pick needs when the free reading's spelling doubts it (`testimony`): spelled nearer a
    phrase of another meaning of its kind, or like none of its own. Set on `bench asr`'s curve."""
    undecided: float = 4.0
    """The meaning margin a short answer needs when a short reading leans to it no more than to another answer
    (`testimony`): the point of `bench asr`'s curve with the fewest wrong meanings before right ones fall away."""


LONGER_SLACK = 4
"""Letters a free reading may have beyond `Margins.longer` times the phrase's: "Ja, genau." for "ja genau"."""

MARGINS = Margins(meaning=1.0, free=6.0)
"""The margins of full-band audio, set on `bench asr`'s curves (docs/decisions/006-decision-margins.md)."""

NARROWBAND = {"fr": Margins(meaning=4.0, free=4.0, doubted=5.0, undecided=5.0)}
"""The margins on telephone-band audio (`speech.hearing.band`), by language, where `MARGINS` take wrong meanings:
the point of `bench asr --corpora real,options`'s narrowband curve with no wrong meaning and the most understood.
Whisper base hears English and German telephone audio well enough that they keep `MARGINS`."""


NEAR = 0.5
"""A free reading is spelled like a phrase when at most this share of its letters differ (normalized edit distance):
"gas" is like "gras" (0.25), "oh" like no letter's name."""
NEARER = 0.1
"""How much nearer (in that share) a phrase of another meaning must be to contradict the pick."""
UNLIKE = 0.75
"""Beyond this distance from every phrase of the pick, the free reading resembles it not at all."""
SHORT_READING = 4
"""A reading of at most this many letters is one short word ("Da", "K.", "Nîle."), said as a letter or a number alone.
Chosen with `Margins.undecided`: the objection on longer readings asked the German demo again where it was right."""
SPELLED_FROM = 3
"""A best phrase of fewer letters (a letter's name: "b", "zeh") says too little for a reading to be unlike it: a real
"A" is read "Oh?" as often as "A."."""
SYLLABLES_RATIO, SYLLABLES_SLACK = 2, 2
"""A phrase may have at most this many times the free reading's syllables, plus the slack: "die erste Antwort" for
"Erste." passes, "Wolfgang Amadeus Mozart" for "Mozart." does not."""
VOWEL_GROUPS = re.compile(r"[aeiouyàâäéèêëîïôöùûüœæ]+")

ACTING_AT_ONCE = {"yes": (3.0, 4.0), "joker": (2.0, 4.0), "start": (2.0, math.inf)}
"""A yes locks an answer and a joker is used the moment it is heard: when the decoder's own words name nothing, the
scores alone take them only with these (meaning, free) margins, or stricter ones where the margins in use are
stricter (telephone audio: `NARROWBAND`). Measured on the eSpeak-NG
corpus: plainer margins took French "Finalement non" (read "Fais einmal moi.", meaning margin 2.8, free gap 2.8)
for a yes and "Je prends la C" (read "Le progacé", 1.5) for the audience joker; eSpeak's English "yes", read "DF."
(3.5, 1.5), and German "Publikumsjoker", read "publikumsjogad" (3.0, -2.0), are what they are. A start (`voicemaster
serve`) is said back before it counts, but that makes the quizmaster speak to a room that asked for nothing: it needs
the joker's meaning margin (docs/decisions/025-serve-languages.md), and the free margin of the margins in use (the
waiting reader's is wider: `serve.reading.WAITING_FREE`)."""


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
    distances: Mapping[Meaning, float] = field(default_factory=dict)
    """How far the free reading is spelled from each meaning's nearest phrase, carrier words aside: the share of
    letters that differ, 0-1 (`spelled_from`). Empty: no testimony."""
    spelling: int = 0
    """The letters of the best phrase, carrier words aside: a letter's name ("B") has too few to compare a reading
    with."""
    said: int = 0
    """The letters of the free reading ("K." 1, "und what are" 10)."""
    narrowband: bool = False
    """Whether the audio came through a telephone's band (`speech.hearing.band`): `margins_for` its language."""
    crowded: bool = False
    """Whether it was said over other people's talk (`speech.hearing.crowd`): only the decoder's words decide."""
    over_our_voice: bool = False
    """Whether it began over the quizmaster's voice (a barge-in): only the decoder's words decide."""
    named_at_the_end: Meaning | None = None
    """The answer the free reading's last words name as a whole phrase after a start that names nothing
    (`named_at_the_end`): over our voice, what the decoder's words say once the start is lost."""
    named_by_a_word: frozenset[Meaning] = frozenset()
    """The answers one word of the free reading names whole, carrier words aside (`named_by_a_word`): "de" in "de
    son" names the option "De"."""

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


def weigh(
    scores: dict[int, float],
    phrases: Sequence[Phrase],
    free: float,
    no_speech: float,
    *,
    reading: Reading | None = None,
    hear: HearPhrases | None = None,
    narrowband: bool = False,
    crowded: bool = False,
    over_our_voice: bool = False,
) -> Evidence:
    """The evidence of the phrase scores; with the free reading's words and the language's phrases, also how its
    spelling testifies (without them, it does not)."""
    best: dict[Meaning, tuple[float, int]] = {}
    for index, score in scores.items():
        key = (phrases[index].intent, phrases[index].value)
        if score > best.get(key, (-math.inf, 0))[0]:
            best[key] = (score, index)
    distances = (
        spelled_from(reading.words, tuple(phrases), hear)
        if hear is not None and reading is not None and reading.text
        else {}
    )
    said = len(spoken(reading.text).replace(" ", "")) if reading is not None else 0
    at_the_end = (
        named_at_the_end(reading.words, tuple(phrases), hear) if hear is not None and reading is not None else None
    )
    by_a_word = (
        named_by_a_word(reading.words, tuple(phrases), hear)
        if hear is not None and reading is not None
        else frozenset()
    )
    if not best:
        return Evidence(
            None, "", -math.inf, -math.inf, free, {}, no_speech, distances, 0, said, narrowband, crowded, over_our_voice
        )
    ranked = sorted(best.items(), key=lambda item: -item[1][0])
    (meaning, (score, index)), rival = ranked[0], (ranked[1][1][0] if len(ranked) > 1 else -math.inf)
    shares = {key: value for key, (value, _) in best.items()}
    spelling = len(_core(phrases[index].text, hear)) if hear is not None else 0
    return Evidence(
        meaning,
        phrases[index].written,
        score,
        rival,
        free,
        shares,
        no_speech,
        distances,
        spelling,
        said,
        narrowband,
        crowded,
        over_our_voice,
        at_the_end,
        by_a_word,
    )


SAID_BACK = frozenset({Intent.JOKER, Intent.WALK_AWAY, Intent.SWITCH_CATEGORY})
"""What the quizmaster says back and does only after a yes (`host.millionaire.jokers`, the walk-away's and the category
switch's confirmations): over our voice the end of its phrase may name it, as a letter names an answer, since a
misreading costs the player a no, never a joker."""

GARBLED_WORDS = 2
"""How many words at the start of a reading said over our voice may name nothing before its last words name an
answer: what the echo canceller and the barge-in's onset garble of a carrier ("griehme" for "ich nehme", "und wird"
for "Antwort"). More is talk, not a garbled start."""


def named_at_the_end(reading: Normalized, phrases: Sequence[Phrase], hear: HearPhrases) -> Meaning | None:
    """The answer the last words of `reading` name after one to `GARBLED_WORDS` words before them, or None: a whole
    answer phrase of the grammar, or one word the phrase file gives as a letter's sound (`HearPhrases.sounds`: "zi"
    for a German C). Not after a negation ("nicht B"), nor small words a sentence has of its own (English "be" and
    French "de" are carriers as much as letters), unless the file says they are the sound. Also what is said back
    before it counts (`SAID_BACK`): named so, or by the whole reading being one of its phrases without the first
    word ("50" of "50 50"), where no phrase of another meaning ends so."""
    words = reading.split()
    texts, meanings = _answers(phrases)
    lost_start = _said_back_ends(phrases, hear).get(reading)
    if lost_start is not None:
        return lost_start
    for start in range(1, min(GARBLED_WORDS, len(words) - 1) + 1):
        if words[start - 1] in hear.words.negation:
            return None
        tail = " ".join(words[start:])
        letter = hear.sounds.get(Normalized(tail))
        if letter is not None and (Intent.ANSWER, letter.value) in meanings:
            return Intent.ANSWER, letter.value
        if all(word in carrier_words(hear) for word in words[start:]):
            continue
        if tail in texts:
            return texts[tail]
    return None


def named_by_a_word(reading: Normalized, phrases: Sequence[Phrase], hear: HearPhrases) -> frozenset[Meaning]:
    """The answers one of whose phrases, carrier words aside, is a single word the reading holds: "de son" names the
    option "De" (a carrier word, and there the whole phrase), "Ich nehme B." the letter B."""
    said = set(reading.split())
    return frozenset(meaning for core, meaning in _single_word_answers(phrases, hear) if core in said)


@lru_cache(maxsize=CONTEXTS_KEPT)
def _single_word_answers(phrases: Sequence[Phrase], hear: HearPhrases) -> tuple[tuple[str, Meaning], ...]:
    return tuple(
        (core, (intent, value))
        for core, (intent, value) in _cores(phrases, hear)
        if intent is Intent.ANSWER and " " not in core
    )


@lru_cache(maxsize=CONTEXTS_KEPT)
def _answers(phrases: Sequence[Phrase]) -> tuple[dict[str, Meaning], frozenset[Meaning]]:
    """Each answer's and each said-back meaning's phrase text with its meaning (phrases never share a text), and the
    answers there are."""
    texts: dict[str, Meaning] = {
        phrase.text: (phrase.intent, phrase.value)
        for phrase in phrases
        if phrase.intent is Intent.ANSWER or phrase.intent in SAID_BACK
    }
    return texts, frozenset(meaning for meaning in texts.values() if meaning[0] is Intent.ANSWER)


@lru_cache(maxsize=CONTEXTS_KEPT)
def _said_back_ends(phrases: Sequence[Phrase], hear: HearPhrases) -> dict[Normalized, Meaning]:
    """The phrases of what is said back (`SAID_BACK`) without their first word, each with its meaning, where that
    end is no phrase itself, not carrier words only, and no phrase of another meaning ends so ("bitte" ends
    every joker)."""
    carriers = carrier_words(hear)
    whole = {phrase.text for phrase in phrases}
    ends: dict[Normalized, set[Meaning]] = {}
    for phrase in phrases:
        words = phrase.text.split()
        for start in range(1, len(words)):
            ends.setdefault(Normalized(" ".join(words[start:])), set()).add((phrase.intent, phrase.value))
    out: dict[Normalized, Meaning] = {}
    for phrase in phrases:
        words = phrase.text.split()
        end = Normalized(" ".join(words[1:]))
        if phrase.intent not in SAID_BACK or len(words) < 2 or end in whole or all(w in carriers for w in words[1:]):
            continue
        if ends[end] == {(phrase.intent, phrase.value)}:
            out[end] = (phrase.intent, phrase.value)
    return out


def spelled_from(reading: Normalized, phrases: Sequence[Phrase], hear: HearPhrases) -> dict[Meaning, float]:
    """How far the free reading is spelled from each meaning's nearest phrase, both without their carrier words ("ich
    nehme", "the"): the share of letters that differ, 0-1."""
    said = _core(reading, hear)
    distances: dict[Meaning, float] = {}
    for core, meaning in _cores(phrases, hear):
        distance = Levenshtein.normalized_distance(said, core)
        if distance < distances.get(meaning, 2.0):
            distances[meaning] = distance
    return distances


@lru_cache(maxsize=CONTEXTS_KEPT)
def _cores(phrases: Sequence[Phrase], hear: HearPhrases) -> tuple[tuple[str, Meaning], ...]:
    return tuple(sorted({(_core(phrase.text, hear), (phrase.intent, phrase.value)) for phrase in phrases}))


def _core(text: Normalized, hear: HearPhrases) -> str:
    """The words of a normalized text that are not carrier words, or the whole text if all of them are ("a")."""
    kept = [word for word in text.split() if word not in carrier_words(hear)]
    return " ".join(kept) if kept else text


def margins_for(language: str, narrowband: bool, margins: Margins = MARGINS) -> Margins:
    """The margins a decision in `language` takes: `margins`, or on telephone-band audio the language's own."""
    return NARROWBAND.get(language, margins) if narrowband else margins


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
    if evidence.crowded:
        # Over other people's talk the scores pick from their words too (`speech.hearing.crowd`).
        return False
    intent = evidence.meaning[0] if evidence.meaning else ""
    acting_meaning, acting_free = ACTING_AT_ONCE.get(intent, (margins.meaning, margins.free))
    meaning, free = max(acting_meaning, margins.meaning), min(acting_free, margins.free)
    if evidence.over_our_voice:
        # Over our voice from what the echo canceller left of the player's: only an answer (or what is said back) the
        # reading's last words name too stands, the decoder's word beside the scores'.
        named = evidence.named_at_the_end == evidence.meaning
        return named and evidence.meaning_margin >= meaning and evidence.free_gap <= free
    # Its words name nothing: the scores alone decide, more strictly for what acts at once.
    if _longer(text, evidence.phrase, margins.longer):
        return False
    if _syllables(evidence.phrase) > SYLLABLES_RATIO * _syllables(text) + SYLLABLES_SLACK:
        return False
    objection = testimony(evidence)
    if objection:
        meaning = max(meaning, margins.undecided if objection == "undecided" else margins.doubted)
    return evidence.meaning_margin >= meaning and evidence.free_gap <= free


def testimony(evidence: Evidence) -> str:
    """What the free reading's spelling says of the pick: "contradicted" (nearer another meaning's phrase), "unlike"
    (like none of the pick's phrases, when the pick is spelled out enough to tell), "undecided" (a pick too short to
    be unlike, an answer the reading is no nearer than another answer), or "" (no objection)."""
    if evidence.meaning is None or evidence.meaning not in evidence.distances:
        return ""
    own = evidence.distances[evidence.meaning]
    # Only what stands beside the pick can contradict it: a reading near the stem of a command ("tue" for "tun" of
    # "was kann ich tun") is no testimony against an answer; a command said is understood by its words.
    intent = evidence.meaning[0]
    rivals = [
        far for (kind, value), far in evidence.distances.items() if kind == intent and value != evidence.meaning[1]
    ]
    other = min(rivals, default=1.0)
    if other <= NEAR and other + NEARER <= own:
        return "contradicted"
    if intent is Intent.ANSWER and evidence.spelling < SPELLED_FROM and _another_named(evidence):
        # A short pick ("Le" among the syllables Le, De, Me, Po) is spelled too little for the reading's letters to
        # be unlike it, but a reading that names another answer by one of its words and the pick by none ("de
        # son": "De") speaks against it (docs/decisions/028-a-word-naming-another-answer.md).
        return "contradicted"
    if evidence.spelling >= SPELLED_FROM:
        return "unlike" if own > UNLIKE else ""
    # A short answer has too few letters for a reading to be unlike it ("Oh?" for a real "A"), but a reading that
    # leans to it no more than to another answer ("Da." for D, as near A; "K." for C, as near D) is no testimony
    # for it: the scores alone took 12 wrong options and 33 letters past D or lone numbers there (and 25 right
    # answers, most of them French on telephone audio: see `Margins.undecided`).
    # Only a reading of one short word, as a letter or a number said alone: where the reading holds more ("und what
    # are", Pico's "Antwort A" with its carrier misread), its letters tell little of the letter in it.
    return "undecided" if intent is Intent.ANSWER and other <= own and evidence.said <= SHORT_READING else ""


def _another_named(evidence: Evidence) -> bool:
    named = evidence.named_by_a_word
    return evidence.meaning not in named and any(meaning != evidence.meaning for meaning in named)


def _syllables(text: str) -> int:
    return len(VOWEL_GROUPS.findall(spoken(text)))


def _words(text: str) -> bool:
    """Whether the free reading holds words: Whisper writes what is no speech in brackets or between asterisks
    ("(water running)", "* Musik *") or as bare punctuation ("...")."""
    return bool(spoken(re.sub(r"\([^)]*\)|\[[^\]]*\]|\*[^*]*\*|♪[^♪]*♪", " ", text)))


def _longer(text: str, phrase: str, ratio: float) -> bool:
    return len(spoken(text)) > ratio * len(spoken(phrase)) + LONGER_SLACK
