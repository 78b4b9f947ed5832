"""Every number barge-in is judged by, in one place: when a player talking over the quizmaster's voice stops it.

A player may cut in while a line plays ("Antwort B!" over the options). What the microphone hears then is our own
voice's echo and perhaps the player; four measurements tell them apart, in this order of trust: what the barge-in
filter finds our echo does not explain (`FilterSettings`, `frontend.barge_in_filter`), else the echo canceller's
residual, else loudness against what we play (the echo gate, where no canceller runs); and over all of them, the
room's floor (at a party, others' talk is not the player). Each number says which bench chose it, or that none has
swept it yet; the current figures are in docs/benchmarks.md under that bench, and why each was chosen in
docs/decisions/ (the canceller 010, the room's floor 013, the residual's run 015, the filter 016).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FilterSettings:
    """The barge-in filter's own (`frontend.barge_in_filter`): how it finds our echo's delay and learns how loud it
    reaches the microphone. No bench has swept these yet: they follow from the sound server's buffers, a frame's
    length and what was seen live; `bench frontend` measures the filter as a whole with them."""

    longest_delay_seconds: float = 0.4
    """The longest delay from the reference to its echo looked for: the sound server's buffers and the room."""
    delay_window_seconds: float = 0.75
    """How much of the microphone the delay is found over, every `delay_every_seconds`."""
    delay_every_seconds: float = 0.25
    agree_seconds: float = 0.01
    """Two looks in a row at the delay must agree this closely for it to be taken: one may find a passing likeness."""
    clear_peak: float = 0.2
    """The normalised correlation the delay's peak must reach: our voice clearly in the microphone."""
    frames_before: int = 2
    frames_after: int = 3
    """Frames around the delay whose loudest power stands for the echo: the delay's drift and the room's tail."""
    coupling_percentile: float = 97.0
    """The coupling is a high percentile of heard over played power per bin: the median let our voice through."""
    coupling_frames: int = 150
    """Frames of our voice (about 5 s) the coupling is learnt over; it is used once `coupling_least` are in."""
    coupling_least: int = 32
    coupling_every: int = 8
    """The coupling is worked out again every this many frames learnt from (a quarter of a second)."""
    sounding_power: float = 1e3
    """Our voice counts as sounding near a frame when the reference's power spectrum around the delay sums to this
    times the frame's length squared (an RMS of about 70 of 32 767): only then is the coupling learnt."""
    learn_below: float = 0.1
    """The coupling learns only from frames that leave less than this share unexplained."""
    over_echo_db: float = 6.0
    """How far the microphone must rise over the predicted echo in a bin for the bin to be the player's."""


@dataclass(frozen=True)
class BargeInSettings:
    """When what is heard while our voice may be in the microphone is a player cutting in."""

    echo_tail_seconds: float = 0.5
    """How long the echo of what we played may still reach the microphone after it: output and input latency plus the
    room's reverberation. Over this tail the gate looks back in what we played, listening still weighs our echo, and
    the microphone keeps what it hears from the room's level (`frontend.room_level`). Not swept by a bench."""
    settle_seconds: float = 2.0
    """How much of our own voice an echo canceller must have heard before what it leaves is trusted: WebRTC's found
    the room's delay and cut the echo by 20 dB or more within about half a second of the first line
    (`bench frontend`)."""
    player_share: float = 0.3
    """Where the barge-in filter judges a frame: the share of the frame's loudness our echo as predicted must leave
    unexplained for the frame to be the player's (`bench frontend`)."""
    filter_seconds: float = 0.15
    """Where the filter judges, how much speech it must have taken for the player's before an utterance begins: it
    lets fewer bursts of our voice through than the canceller's residual (`bench frontend`)."""
    player_residual: float = 0.1
    """Where only the echo canceller judges: the share of a frame's loudness (RMS) it must have left for the frame to
    be the player's. Our voice, cancelled, keeps far less; a player over it keeps more (`bench frontend`)."""
    residual_seconds: float = 0.35
    """Where only the canceller judges, how much speech it must have taken for the player's before an utterance
    begins: what it lets through of our voice comes in bursts of a few frames, a player speaking over a question goes
    on (`bench room --barge-in-seconds`: false barge-ins against barge-ins heard; `bench frontend`)."""
    echo_coupling: float = 1.0
    """Where no canceller runs, how loud our own voice reaches the microphone relative to the level we play it at:
    1.0 is a pessimistic guess for a loudspeaker near the microphone at full volume (and exact for a loopback).
    Not swept by a bench; 0 for a microphone that hears none of our voice (the demo's stage)."""
    level_margin: float = 1.5
    """Where no canceller runs, how much louder than that echo a player must be to cut in (3.5 dB of headroom over a
    pessimistic guess). Not swept by a bench."""
    syllable_seconds: float = 0.25
    """Over our voice only a player's loudest sounds (vowels) rise above the echo; speech right after such a sound is
    the rest of the syllable and counts too, or "Stopp!" would be three loud frames, too few to count. Not swept."""
    floor_margin_db: float = 8.0
    """How far what the filter leaves of a frame must rise over the room's floor to stop our line: stopping a
    question for the others' talk at a party is worse than a player saying it again once the line ends
    (`bench endpoint`: lines stopped for the room and players heard, per margin)."""
    played_out_seconds: float = 0.05
    """A line stopped this close to its end was played out, not interrupted. Not swept."""
    filter: FilterSettings = field(default_factory=FilterSettings)

    def __post_init__(self) -> None:
        for name, (low, high) in RANGES.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise BargeInSettingError(name, f"must lie between {low:g} and {high:g}, not {value:g}")


class BargeInSettingError(ValueError):
    """A barge-in number out of its range; `name` is the setting's."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name} {problem}")
        self.name = name
        self.problem = problem


RANGES = {
    "echo_tail_seconds": (0.0, 5.0),
    "settle_seconds": (0.0, 30.0),
    "player_share": (0.0, 1.0),
    "filter_seconds": (0.0, 5.0),
    "player_residual": (0.0, 1.0),
    "residual_seconds": (0.0, 5.0),
    "echo_coupling": (0.0, 100.0),
    "level_margin": (1.0, 100.0),
    "syllable_seconds": (0.0, 5.0),
    "floor_margin_db": (0.0, 60.0),
    "played_out_seconds": (0.0, 5.0),
}
"""What each number may be: beyond these a setting makes no sense (a share over 1, a run of minutes)."""
