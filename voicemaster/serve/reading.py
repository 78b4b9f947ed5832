"""One utterance read in every listening language while no game is under way (`voicemaster serve`).

Whisper hears the utterance once (the encoder), then reads it against the start grammar of each language the model
finds plausible for it: the start-of-transcript step gives every language token's probability, and a language far
below the likeliest listening one is not read at all. That keeps the room's talk in one language from being read as
another's start or "weiter" ("Ich gehe jetzt einkaufen" came out as French "on joue"-like words), and it spares
decoding: most talk is plainly one language. Short commands are not plainly anything ("Hilfe", "Wer wird Millionär"
came out likelier English than German), hence a margin, not the likeliest alone. Of the languages read, the one
meaning understood wins, in the likeliest language that understood it ("starte das Quiz" is German, though English
"start the quiz" is one of its readings); two languages that understand different meanings decide nothing.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.recognition import NOTHING_HEARD, Recognizer

if TYPE_CHECKING:
    from collections.abc import Sequence

    from voicemaster.speech.hearing.normal_form import Reading
    from voicemaster.speech.hearing.phrases import Phrase
    from voicemaster.speech.hearing.whisper.asking import Asking
    from voicemaster.speech.hearing.whisper.decision import Evidence, Margins
    from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
    from voicemaster.speech.hearing.whisper.search import BelowTheReading
    from voicemaster.speech.hearing.whisper.strategies import Encoded

LANGUAGE_MARGIN = 6.0
"""How far (natural log) a listening language's token may lie below the likeliest listening language's and still be
read (`bench serve` measures what it keeps out and lets in)."""


WAITING_PRUNE, WAITING_BEAM = 4.0, 12
"""The waiting reader's trie search, narrower than a game's (`strategies.Tuning`'s prune and window 6, beam 24): a
prefix 4 below the best phrase is dropped and at most 12 are extended a token. Most of the waiting quizmaster's CPU
with talk in the room is this search, read in up to three languages; a start is said back before it counts, and
`bench serve` heard as many starts with it and no start in the talk (docs/decisions/025-serve-languages.md). A game's
decisions keep the game's search."""


WAITING_FREE = 8.5
"""How much less likely (natural log) than the decoder's free reading a start phrase may be when the reading's words
name nothing, wider than a game's (`decision.MARGINS`): a start is said back and needs a yes. Set between the
furthest start it gains and the nearest of people's recordings read while waiting that it would take
(docs/decisions/042-a-wider-free-margin-for-starts.md). Full-band audio only: what came through a telephone's band
is held to stricter margins (`telephone_margins`)."""


LANGUAGE_CLEAR = 2.0
"""How much likelier (natural log) a language must be than one whose reading meant something else for its own
reading to stand; between closer languages nothing is decided (`bench serve`)."""


class RoomReader:
    """A `Recognizer` that hears the start context in several languages, by `waiting` (None: `recognizer`); every
    other context as `recognizer` does, in the context's language. What it hears in the start context carries its
    language (`Heard.language`)."""

    def __init__(self, recognizer: Recognizer, languages: tuple[str, ...], waiting: Recognizer | None = None) -> None:
        if not languages:
            raise ValueError("a reader listens in one language at least")
        self.recognizer, self.languages = recognizer, languages
        self.waiting = waiting or recognizer

    def prepare(self, context: Context) -> None:
        if context.name is not ContextName.START:
            self.recognizer.prepare(context)
            return
        for language in self.languages:
            self.waiting.prepare(replace(context, language=language))

    def recognize(
        self,
        audio: Audio,
        context: Context,
        *,
        over_our_voice: bool = False,
        crowded: bool = False,
        line_stopped_at: float | None = None,
    ) -> Heard:
        how: dict[str, bool] = {"over_our_voice": over_our_voice} | ({"crowded": True} if crowded else {})
        if context.name is not ContextName.START:
            return self.recognizer.recognize(audio, context, **how, line_stopped_at=line_stopped_at)
        from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer

        if isinstance(self.waiting, WhisperRecognizer):
            return self._by_whisper(self.waiting, audio, context, how)
        readings = []
        for language in self.languages:
            heard = self.waiting.recognize(audio, replace(context, language=language), **how)
            readings.append(said_in_words(replace(heard, language=language), context))
        return understood(readings, {})

    def _by_whisper(self, whisper: WhisperRecognizer, audio: Audio, context: Context, how: dict[str, bool]) -> Heard:
        from voicemaster.speech import cores
        from voicemaster.speech.hearing.phrases import load
        from voicemaster.speech.hearing.whisper.asking import together
        from voicemaster.speech.signal import silent

        if silent(audio):
            return NOTHING_HEARD
        started = time.perf_counter()
        with cores.deciding():
            heard = waiting_search(whisper.listen(audio, self.languages[0], **how))
            likeliness = plausible(heard, whisper, self.languages)
            hearings = []
            for language in likeliness:
                own = replace(context, language=language)
                listened = replace(heard, tokens=whisper.tokens(language), phrases=load(language))
                hearings.append(start_hearing(listened, own))
            # The languages' searches in lockstep, their starts in one decoder run and each step's rows in one batch:
            # a run reads all the decoder's weights whatever its rows, once a turn instead of once per language
            # (decision 025). The same readings to float tolerance (`tests/serve/test_reading_together.py`).
            readings = [
                said_in_words(replace(reading, language=language), context)
                for reading, language in zip(together(heard.model, heard.keys, hearings), likeliness, strict=True)
            ]
        decided = understood(readings, likeliness)
        return replace(decided, decode_ms=round((time.perf_counter() - started) * 1000, 1))


def waiting_reader(recognizer: Recognizer, languages: tuple[str, ...]) -> RoomReader:
    """The waiting quizmaster's reader, as `voicemaster serve` and `bench serve` open it: over Whisper, the start
    context read by the same model in int8 (`model.Whisper`), a game's contexts in float32 by `recognizer`. Waiting
    reads the room's every utterance, and int8 reads it for less CPU; a start it hears is said back and needs a yes,
    which `recognizer` hears, so int8's few readings apart from float32's act on nothing. Any other recognizer (or
    the numpy reference) reads both (docs/decisions/053-the-waiting-ear-in-int8.md)."""
    from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer

    if not isinstance(recognizer, WhisperRecognizer) or recognizer.model.runtime_name != "onnx":
        return RoomReader(recognizer, languages)
    return RoomReader(recognizer, languages, WhisperRecognizer(recognizer.model_dir, recognizer.tuning, int8=True))


ANSWERED_ALOUD = (Intent.RESUME, Intent.HELP)
"""What the waiting quizmaster answers at once, with no read-back: "weiter" offers a game only if one was
interrupted, help says what can be said."""


def said_in_words(heard: Heard, context: Context) -> Heard:
    """A "weiter" or help stands only when the decoder's own words say it too (the text matcher finds it): the
    grammar alone took a TV's and people's short sounds ("Huh?", "Ta-da!", "Ready?") for one about every 20 s of
    talk (`bench serve`), and the waiting quizmaster would answer the room's talk aloud. A start is said back
    before it counts, so the grammar decides it alone. Each language's reading is held to this before the languages
    are weighed (`understood`): a "weiter" its words do not say is no meaning, nor a rival to another language's
    start (Pico's German "Rette die Million", read "Breite die Million." and in English "3.5 million", scored as
    "continue", was undecided)."""
    if heard.intent not in ANSWERED_ALOUD:
        return heard
    from voicemaster.speech.hearing.intents import understand
    from voicemaster.speech.hearing.phrases import load

    language = heard.language or context.language
    meant = understand(heard.text, replace(context, language=language), load(language))
    return heard if meant.intent is heard.intent else Heard(Intent.UNKNOWN, None, heard.text, 0.0, language=language)


def start_hearing(listened: Encoded, context: Context) -> Asking[Heard]:
    """One language's reading of the start context, as a game's grammar hears a context (`strategies.ByGrammar`),
    except that no phrase is scored on once it lies too far below the decoder's own reading to be decided
    (`below_the_reading`), and that a reading gone on past a start phrase that begins another game's longer one is
    weighed without it (`past_the_start`)."""
    from voicemaster.speech.hearing.grammar import grammar
    from voicemaster.speech.hearing.whisper.strategies import ByGrammar, decided

    by_grammar = ByGrammar()
    choices = grammar(context, listened.phrases)
    prompt = by_grammar.prompt(context, listened.phrases)
    scores = yield from listened.scoring(choices, prompt, below_the_reading(listened, context))
    evidence, read = by_grammar.evidence_of(listened, choices, scores)
    heard = by_grammar.concluded(evidence, read, listened, context)
    past = past_the_start(evidence, read, choices)
    if past is None:
        return heard
    longer = decided(past, read, listened, context)
    return longer if longer.intent is Intent.START else heard


def below_the_reading(listened: Encoded, context: Context) -> BelowTheReading:
    """Once the decoder's own reading of the utterance is read: the score below which no phrase of `context` can be
    decided (the search ends once nothing it could still find reaches it, and scores the prefixes that may reach it
    before the others), and the one below which none can be the rival that keeps another from being decided either,
    so that the search drops it unscored (`search.Undecidable`).

    The room's talk is what the waiting quizmaster reads most, and its words are plainly something else: every start
    phrase lies far below the decoder's own reading of it. When the reading's words name nothing, the decision takes
    a phrase only within the free margin of the reading (`Margins.free`, the waiting reader's), and a rival counts
    only within the widest meaning margin (`Margins.meaning`, `doubted`, `undecided`, `decision.ACTING_AT_ONCE`) of
    the pick; a prefix's score only falls as it grows. So a phrase prefix below the reading by more than both is
    neither a start nor a start's rival, and scoring it on (most of the search on talk) changes nothing; a rival
    counts only against a pick, so when no phrase comes within the free margin, no other phrase changes the decision
    (nothing is decided). When the words name a meaning the scores are weighed without the free margin, and every
    phrase may count. A start said right after the room's talk is read as the utterance it is in: this drops no
    audio, only phrases that could not be decided on it."""
    from voicemaster.speech.hearing import normal_form
    from voicemaster.speech.hearing.whisper.decision import ACTING_AT_ONCE, margins_for
    from voicemaster.speech.hearing.whisper.search import EVERY_PHRASE_COUNTS, Undecidable
    from voicemaster.speech.hearing.whisper.strategies import meaning_of

    margins = margins_for(context.language, listened.narrowband, listened.tuning.margins)
    rival = max(
        margins.meaning, margins.doubted, margins.undecided, *(meaning for meaning, _ in ACTING_AT_ONCE.values())
    )

    def below(tokens: tuple[int, ...], free: float) -> Undecidable:
        reading = normal_form.Reading.of(listened.tokens.decode(tokens), listened.phrases.language)
        if meaning_of(reading, context, listened.phrases).intent is not Intent.UNKNOWN:
            return EVERY_PHRASE_COUNTS
        pick = free - margins.free
        return Undecidable(pick=pick, rival=pick - rival)

    return below


MORE_THAN_THE_START = 2
"""How many syllables more than a start phrase a reading holds when it has gone on past it: Pico's and Kokoro's
"on joue au Money Drop" (6) were read "Bonjour, mon hébrop." (5), "Enjou malit rap." (5), against "on joue" (2)."""


def past_the_start(evidence: Evidence, reading: Reading, choices: Sequence[Phrase]) -> Evidence | None:
    """The evidence without the picked start phrase, when the reading goes on past it and it begins a longer start
    phrase of another game: "on joue" (the quiz) and "on joue au Money Drop". The scores weigh those two by where the
    phrase ends, and a garbled rest ("mon hébrop") lets the shorter end sooner, or leaves the two within the meaning
    margin of each other; a reading `MORE_THAN_THE_START` syllables longer than the pick was not the pick. The longer
    phrase's game is then the pick, against every meaning but the dropped one, under the decision's margins as they
    are (a start's meaning margin of 2.0 and the waiting free margin): it is said back and needs a yes. None where
    this does not apply (decision 044)."""
    if evidence.meaning is None or evidence.meaning[0] is not Intent.START:
        return None
    from voicemaster.speech.hearing.normal_form import spoken
    from voicemaster.speech.hearing.whisper.decision import VOWEL_GROUPS

    def syllables(text: str) -> int:
        return len(VOWEL_GROUPS.findall(spoken(text)))

    picked = next((phrase.text for phrase in choices if phrase.written == evidence.phrase), None)
    if picked is None or syllables(reading.text) < syllables(picked) + MORE_THAN_THE_START:
        return None
    for phrase in choices:
        game = (phrase.intent, phrase.value)
        if phrase.intent is Intent.START and game != evidence.meaning and phrase.text.startswith(picked + " "):
            if game not in evidence.shares:
                return None
            others = [score for meaning, score in evidence.shares.items() if meaning not in (game, evidence.meaning)]
            return replace(
                evidence,
                meaning=game,
                phrase=phrase.written,
                score=evidence.shares[game],
                rival=max(others, default=-math.inf),
                shares={meaning: score for meaning, score in evidence.shares.items() if meaning != evidence.meaning},
            )
    return None


def waiting_search(heard: Encoded) -> Encoded:
    """`heard` to be read with the waiting reader's search (`WAITING_PRUNE`, `WAITING_BEAM`) and margins: on full-band
    audio the wider free margin for starts (`WAITING_FREE`), on telephone-band audio (`speech.hearing.band`: a TV's
    or a phone's loudspeaker, people's recordings) the strictest telephone margins of any language
    (`telephone_margins`), whatever language it is read in."""
    tuning = heard.tuning
    margins = telephone_margins(tuning.margins) if heard.narrowband else replace(tuning.margins, free=WAITING_FREE)
    return replace(
        heard,
        tuning=replace(tuning, prune=WAITING_PRUNE, window=WAITING_PRUNE, beam=WAITING_BEAM, margins=margins),
    )


def telephone_margins(margins: Margins) -> Margins:
    """`margins` made as strict as every language's on telephone-band audio (`decision.NARROWBAND`). Which language
    an utterance is in is not known while waiting, and a decision takes the margins of the language it is read in:
    an hour of `bench serve`'s talk took French telephone recordings across the room, read in German ("Lies du
    ihn.", "Dessert."), for "Quiz start" at German's full-band margins, and a yes after one started a game nobody
    asked for. The rule holds for the room's talk in any language
    (docs/decisions/048-telephone-band-sound-while-waiting.md)."""
    from voicemaster.speech.hearing.whisper.decision import NARROWBAND

    for phone in NARROWBAND.values():
        margins = replace(
            margins,
            meaning=max(margins.meaning, phone.meaning),
            free=min(margins.free, phone.free),
            doubted=max(margins.doubted, phone.doubted),
            undecided=max(margins.undecided, phone.undecided),
        )
    return margins


def plausible(heard: Encoded, whisper: WhisperRecognizer, languages: tuple[str, ...]) -> dict[str, float]:
    """The listening languages whose language token lies within `LANGUAGE_MARGIN` of the likeliest one's, in the
    order of `languages`, each with its token's log-probability."""
    if len(languages) == 1:
        return {languages[0]: 0.0}
    import numpy as np

    start_of_transcript = heard.tokens.special.start[0]
    _, after = heard.model.start(heard.keys, [start_of_transcript], at=(-1,))
    scores = np.asarray(after).reshape(-1, np.asarray(after).shape[-1])[-1]
    each = {language: float(scores[whisper.tokens(language).special.start[1]]) for language in languages}
    best = max(each.values())
    return {language: score for language, score in each.items() if score >= best - LANGUAGE_MARGIN}


def understood(readings: list[Heard], likeliness: Mapping[str, float]) -> Heard:
    """The meaning understood in the likeliest language (by `likeliness`, then by confidence) of those that
    understood one; `unknown` when none did, or when a language that understood another meaning is nearly as
    likely (`LANGUAGE_CLEAR`): French "on joue" is "go on" to English ears, and the French start wins only because
    the model hears French far likelier."""
    meant = sorted(
        (heard for heard in readings if heard.intent is not Intent.UNKNOWN),
        key=lambda heard: (likeliness.get(heard.language or "", 0.0), heard.confidence),
        reverse=True,
    )
    if not meant:
        return readings[0] if readings else NOTHING_HEARD
    best = meant[0]
    rivals = [heard for heard in meant if (heard.intent, heard.value) != (best.intent, best.value)]
    if rivals and likeliness.get(best.language or "", 0.0) - likeliness.get(rivals[0].language or "", 0.0) < (
        LANGUAGE_CLEAR
    ):
        return Heard(Intent.UNKNOWN, None, best.text, 0.0, language=best.language)
    return best
