"""How an utterance is found in what the microphone hears: the endpointer's numbers, and barge-in's beside them."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from voicemaster.speech.barge_in.settings import BargeInSettings


@dataclass(frozen=True)
class EndpointSettings:
    """Where an utterance begins and ends; each number says why, or which bench chose it."""

    speech_seconds: float = 0.15
    """Speech needed before an utterance counts as begun: clicks and bumps are shorter, a short "B" or "ja" is not."""
    reset_seconds: float = 0.3
    """A pause this long before the utterance has begun forgets the speech counted so far."""
    silence_seconds: float = 0.7
    """The pause that ends an utterance: longer than a breath between words, short enough to keep the game moving."""
    early_silence_seconds: float = 0.09
    """The pause after which what was heard so far is read, and the utterance ended if it already is a complete,
    confident answer and the player stays silent while it is read: people leave about 0.2 s between turns, and
    waiting out `silence_seconds` after a clear "Antwort B" feels slow. Three frames: reading takes a few frames more,
    so nothing ends before some 0.25 s of pause (`voicemaster bench latency`). An answer that is not complete yet is
    heard out as before. Equal to `silence_seconds`, nothing ends early."""
    max_seconds: float = 8.0
    """The longest utterance: an answer or a command fits easily; a conversation in the car gets cut."""
    pre_roll_seconds: float = 0.3
    """Audio kept from before the onset was detected: the detector needs some speech to be sure, recognizers need
    the soft start of the first word."""
    post_roll_seconds: float = 0.2
    """Audio kept after the last speech: the fading end of the last word."""
    threshold: float = 0.5
    """Voice-activity probability from which a frame counts as speech."""
    floor_margin_db: float = 4.0
    """Given the room's floor (`speech.frontend.room_level`), how far above it in the speech band a frame must rise to
    be the player's: at a party, other people's talk is speech to the voice-activity model, and only the player's
    level ends an utterance. 4 dB: at 5 dB of babble the most utterances ended within a second of the player, while
    the car's and the quiet room's stay as they were (`voicemaster bench endpoint`, docs/benchmarks.md)."""
    at_the_mouth_floor_margin_db: float = 4.0
    """`floor_margin_db` for a microphone at the player's mouth (a phone: `at_the_mouth`), where the player is far
    louder over a party's talk than at the room's microphone. 8 dB ended more of people's commands within a second of
    them at a party, but the decision then took more of the tighter utterances for another meaning, so the phone keeps
    the room's margin for now (docs/decisions/035-the-phone-hears-over-the-room-by-more.md)."""
    over_what_our_voice_leaves: bool = False
    """Over our voice, a player must also rise over what the barge-in filter leaves of it when nobody speaks
    (`RoomLevel.floor_under_our_voice`), not only over the room heard alone: set for a microphone at the player's
    mouth (`at_the_mouth`), where our voice is the room's reverberation and the player far louder than it. The room's
    microphone, a hand's breadth from the loudspeaker, keeps the room's floor alone, which heard more of people's
    barge-ins (docs/decisions/031-the-room-under-our-voice.md). Until the room has been heard alone, what the filter
    leaves of our voice is also the room's floor there (`RoomLevel.floor`), for the utterance's end and the crowd."""
    barge_in: BargeInSettings = field(default_factory=BargeInSettings)
    """When what is heard over our own voice is a player cutting in (`speech.barge_in`)."""

    def __post_init__(self) -> None:
        durations = (
            self.speech_seconds,
            self.reset_seconds,
            self.silence_seconds,
            self.early_silence_seconds,
            self.max_seconds,
        )
        if min(durations) <= 0 or min(self.pre_roll_seconds, self.post_roll_seconds) < 0:
            raise ValueError("endpoint durations must be positive (the rolls may be 0)")
        if self.early_silence_seconds > self.silence_seconds:
            raise ValueError("the early pause must not be longer than the pause that ends an utterance")
        if not 0 < self.threshold < 1:
            raise ValueError("the voice-activity threshold must lie between 0 and 1")
        if min(self.floor_margin_db, self.at_the_mouth_floor_margin_db) < 0:
            raise ValueError("the margin over the room's floor must be 0 dB or more")

    def at_the_mouth(self) -> EndpointSettings:
        """These settings for a microphone at the player's mouth (a phone): over the room's floor by
        `at_the_mouth_floor_margin_db`, and over our voice over what the filter leaves of it too
        (`over_what_our_voice_leaves`); the room's microphone keeps `floor_margin_db` and the room's floor alone."""
        return replace(self, floor_margin_db=self.at_the_mouth_floor_margin_db, over_what_our_voice_leaves=True)
