"""The shared rules engine: every game format of docs/rules.md as data plus small, total functions.

Pure and deterministic: no I/O, no clock, no randomness that is not derived from a seed it is given, and nothing
imported from outside the standard library or from the rest of voicemaster.
"""

from voicemaster.rules import errors
from voicemaster.rules.actions import (
    Action,
    AddPlayer,
    AskAudience,
    AskQuestion,
    ConfirmAnswer,
    GiveAnswer,
    PhoneAFriend,
    Reveal,
    StartRound,
    StopGame,
    TakeBack,
    UseExtraJoker,
    UseFiftyFifty,
    WalkAway,
)
from voicemaster.rules.codec import DecodeError, dumps, from_data, loads, to_data
from voicemaster.rules.ladders import LADDERS, LEVELS, Ladder, Safety, SafetyLevel, Stakes
from voicemaster.rules.letters import Letter
from voicemaster.rules.millionaire import Step, apply, new_game
from voicemaster.rules.state import (
    Game,
    GameOutcome,
    GameSettings,
    Mode,
    PlayerResult,
    Round,
    RoundResult,
    Seat,
    SeatStatus,
    Termination,
)
from voicemaster.rules.variants import VARIANTS, AudienceForm, Joker, PhoneForm, Variant, variant

__all__ = [
    "LADDERS",
    "LEVELS",
    "VARIANTS",
    "Action",
    "AddPlayer",
    "AskAudience",
    "AskQuestion",
    "AudienceForm",
    "ConfirmAnswer",
    "DecodeError",
    "Game",
    "GameOutcome",
    "GameSettings",
    "GiveAnswer",
    "Joker",
    "Ladder",
    "Letter",
    "Mode",
    "PhoneAFriend",
    "PhoneForm",
    "PlayerResult",
    "Reveal",
    "Round",
    "RoundResult",
    "Safety",
    "SafetyLevel",
    "Seat",
    "SeatStatus",
    "Stakes",
    "StartRound",
    "Step",
    "StopGame",
    "TakeBack",
    "Termination",
    "UseExtraJoker",
    "UseFiftyFifty",
    "Variant",
    "WalkAway",
    "apply",
    "dumps",
    "errors",
    "from_data",
    "loads",
    "new_game",
    "to_data",
    "variant",
]
