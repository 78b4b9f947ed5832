"""A bench's scene as the game's source: frames already made, heard one after the other, over a line if one plays.

The benches that measure where utterances begin and end (`bench endpoint`, `bench frontend`) make each scene's frames
themselves (a room's noise, a player, what the front end judged) and hear them through the game's own pipeline
(`ListeningPipeline`), this as its source: the line moves on one frame for each frame heard, as it does on the
demo's stage, and falls silent where the pipeline stops it for a player.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.play.stage import StagePlayback
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import Playback
from voicemaster.speech.frame import FRAME_SECONDS, Frame
from voicemaster.speech.hearing.pipeline import Hearing, PipelineStage

ANSWER = Context(ContextName.ANSWER, "de")
"""What a bench of endpoints listens for: nothing is read, so what may be said does not matter."""


@dataclass
class HeardFrames:
    """`AudioIn` of `heard`, with `line` playing from its start as they are heard (None: nothing plays)."""

    heard: Sequence[Frame]
    line: Audio | None = None
    playing: StagePlayback | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.playing = StagePlayback(self.line) if self.line is not None else None

    def frames(self, during: Playback | None = None, *, before: float = 0.0) -> Iterator[Frame]:
        del during, before  # the line is the scene's own; the frames begin where listening does
        for index, frame in enumerate(self.heard):
            if self.playing is not None and self.playing.stopped_at is None:
                self.playing.elapsed = min(self.playing.audio.seconds, index * FRAME_SECONDS)
            yield frame


def onset(hearing: Hearing) -> float | None:
    """Where the endpointer took the utterance to begin, in seconds since listening began; None if it never did."""
    return next(
        (event.at for event in hearing.events if event.stage is PipelineStage.ENDPOINTER and event.started), None
    )
