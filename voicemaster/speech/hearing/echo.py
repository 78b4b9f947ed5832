"""Our own line heard back: an utterance begun over our voice, or in its echo's tail, whose reading says only words
our line said while it was heard is our echo taken for a player (a false barge-in), not the player.

Our lines hold the words of the context they open ("Is that your final answer?", "C'est ton dernier mot ?", "Das habe
ich nicht sicher verstanden." whose "nicht sicher" is a no): read back, they would lock an answer or refuse one the
player never spoke to. Such a reading decides nothing: the player is asked again, as for words not understood, and
hears the line our echo cut off. Only the words said near where the utterance was heard count (`SLACK_SECONDS`
either side, each line's words placed in its sound by their letters): a player's "B" said over the options' "D:
..." is the player's, though the line said "B" seconds before; and one word naming an answer is always the player's
(docs/decisions/041-our-own-line-heard-back.md). Pure: the line's words come with the playback
(`devices.interfaces.Words`), the times from the pipeline.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

from voicemaster.speech.devices.interfaces import Words
from voicemaster.speech.hearing.normal_form import normalize

ECHO_TAIL_SECONDS = 0.5
"""How long after our line ended an utterance that begins may still be its echo: the room's reverberation and the
sound devices' buffers."""
SLACK_SECONDS = 1.5
"""How far from the stretch of the line an utterance was heard over a word may be said and still be its echo: a
word's place is guessed from its letters, and a loaded machine's sound server delays the echo."""
SIMILAR = 0.75
"""How alike (Levenshtein, normalized) a read word of `SIMILAR_FROM` letters or more must be to a word of the line
to be taken for it: Whisper reads our echo's "Paris" as "Peris"."""
SIMILAR_FROM = 4


@dataclass(frozen=True)
class _Placed:
    word: str
    start: float
    end: float


def _words(text: str, language: str) -> list[str]:
    """The normalized words of `text`, each whitespace token on its own (so that a line's and a reading's numbers
    come out alike), cut at their apostrophes without an elided letter ("c'est" is "est", "that's" is "that"):
    Whisper writes our "that is" as "that's"."""
    return [part for token in text.split() for word in normalize(token, language).split() for part in _pieces(word)]


def _pieces(word: str) -> list[str]:
    pieces = [piece for piece in word.split("'") if piece]
    return [piece for piece in pieces if len(piece) > 1] or pieces


def _alike(read: str, said: str) -> bool:
    if read == said:
        return True
    return min(len(read), len(said)) >= SIMILAR_FROM and Levenshtein.normalized_similarity(read, said) >= SIMILAR


def placed(line: Sequence[Words], language: str) -> tuple[_Placed, ...]:
    """Each normalized word of the line, with where in its sound it is said, by its letters' share of its line."""
    out: list[_Placed] = []
    for said in line:
        tokens = said.text.split()
        letters = sum(len(token) + 1 for token in tokens)
        at = 0
        for token in tokens:
            start = said.start + (said.end - said.start) * at / max(letters, 1)
            at += len(token) + 1
            end = said.start + (said.end - said.start) * at / max(letters, 1)
            out.extend(_Placed(word, start, end) for word in _words(token, language))
    return tuple(out)


def our_echo(
    reading: str, line: Sequence[Words], language: str, heard_from: float, heard_to: float, *, answer: bool = False
) -> bool:
    """Whether `reading` (as read) says only words our `line` says within `SLACK_SECONDS` of `heard_from` to
    `heard_to` (seconds into the line's sound: the stretch playing, or whose echo was fading, while the utterance
    was heard). A reading with no words is nobody's, and one word naming an answer (`answer`) the player's: people
    name the option they have just heard ("Haus" over "B: Haus"; decision 041 counts them), and an answer acts only
    once confirmed, where our own yes is what must not act."""
    said = _words(reading, language)
    if not said or (answer and len(said) == 1):
        return False
    near = {
        word.word
        for word in placed(line, language)
        if word.start <= heard_to + SLACK_SECONDS and word.end >= heard_from - SLACK_SECONDS
    }
    return all(any(_alike(word, ours) for ours in near) for word in said)
