"""What the recognizers share: audio and a listening context in, what was heard out.

Engines turn audio into a `HeardText`; the intent matcher turns a transcript into `Heard` (the dialogue's own
vocabulary, `voicemaster.dialogue.meaning`). Nothing here imports an engine, so the quizmaster never pulls in numpy
or vosk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from voicemaster.dialogue.meaning import Context, Heard, Intent
from voicemaster.speech.audio import Audio

NOTHING_HEARD = Heard(Intent.UNKNOWN, None, "", 0.0)
"""What a recognizer makes of a silent or empty recording (`signal.silent`): no words, no meaning, no confidence."""
LINE_FADE_SECONDS = 0.1
"""How long our voice goes on reaching the microphone after a line stopped (the sound devices' buffers, the room's
echo): what the player said after the line is heard from there."""
SPOKEN_ON_SECONDS = 0.25
"""How long the player's voice must go on after the line's fade for what follows to hold a word worth reading alone
(docs/decisions/030-the-rest-after-our-line.md)."""


@dataclass(frozen=True)
class HeardText:
    """What an engine heard: its text, and how sure it is (0-1)."""

    text: str
    confidence: float


class Recognizer(Protocol):
    def prepare(self, context: Context) -> None:
        """Work out ahead what the context alone decides (a grammar, a phrase trie), while the question is read, so
        that hearing the answer need not; harmless to call again."""
        ...

    def recognize(
        self,
        audio: Audio,
        context: Context,
        *,
        over_our_voice: bool = False,
        crowded: bool = False,
        line_stopped_at: float | None = None,
    ) -> Heard:
        """What `audio` means in `context`; `unknown` when that is not clear, and `NOTHING_HEARD` for a silent or
        empty recording. `over_our_voice`: the utterance began
        while the quizmaster still spoke (a barge-in), so the echo canceller took its start for double talk and
        suppressed it: what is read lost words, and only the decoder's own words may decide. `crowded`: it was said
        over other people's talk (`speech.hearing.crowd`, judged by the room), so again only the decoder's own
        words may decide. `line_stopped_at`: seconds into `audio` where our line stopped for the player, given only
        where their voice went on past `LINE_FADE_SECONDS` by `SPOKEN_ON_SECONDS` (None otherwise): what follows was
        said over no line."""
        ...


class RecognizerUnavailable(RuntimeError):
    """An engine or its model is missing; the message says what to install."""
