"""Named failures: every illegal action raises one of these, with a message a player can understand.

Each error carries the facts the quizmaster needs to phrase it in the player's language; the English message is
for logs and the terminal.
"""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action the rules do not allow in the current state. Nothing changed."""


class InvalidSetup(IllegalAction):
    """The game cannot be set up like this (player count, duplicate names, a joker form that needs more people)."""


class UnknownPlayer(IllegalAction):
    def __init__(self, player: str) -> None:
        super().__init__(f"There is no player called {player!r} in this game.")
        self.player = player


class PlayerNotInRound(IllegalAction):
    """Acting for a player who walked away, answered wrongly, already won, or does not answer in show mode."""

    def __init__(self, player: str) -> None:
        super().__init__(f"{player} is no longer playing in this round.")
        self.player = player


class NotYourTurn(IllegalAction):
    def __init__(self, player: str, expected: str) -> None:
        super().__init__(f"It is {expected}'s turn, not {player}'s.")
        self.player = player
        self.expected = expected


class RoundOver(IllegalAction):
    def __init__(self) -> None:
        super().__init__("This round has ended; start a new round first.")


class GameOver(IllegalAction):
    def __init__(self) -> None:
        super().__init__("The game is over.")


class JoinBetweenRounds(IllegalAction):
    """A newcomer asked to join while a round is played: everyone in a round plays its one level, and a seat taken
    now would hold money for questions its player never answered."""

    def __init__(self, player: str) -> None:
        super().__init__(f"{player} can join when the next round starts, not in the middle of one.")
        self.player = player


class WrongMoment(IllegalAction):
    """The action exists but not now, e.g. a joker before the question was asked."""


class AnswerAlreadyLocked(IllegalAction):
    def __init__(self, player: str, letter: str) -> None:
        super().__init__(f"{player} has already locked in answer {letter}; a locked answer cannot change.")
        self.player = player
        self.letter = letter


class NoAnswerToConfirm(IllegalAction):
    def __init__(self, player: str) -> None:
        super().__init__(f"{player} has not given an answer to confirm yet.")
        self.player = player


class NoAnswerToTakeBack(IllegalAction):
    def __init__(self, player: str) -> None:
        super().__init__(f"{player} has no locked answer to take back.")
        self.player = player


class OptionNotAvailable(IllegalAction):
    def __init__(self, player: str, letter: str) -> None:
        super().__init__(f"Answer {letter} is not available to {player} on this question.")
        self.player = player
        self.letter = letter


class JokerNotInVariant(IllegalAction):
    def __init__(self, joker: str, variant: str) -> None:
        super().__init__(f"The {joker} joker is not part of the {variant} rules.")
        self.joker = joker
        self.variant = variant


class JokerAlreadyUsed(IllegalAction):
    def __init__(self, player: str, joker: str) -> None:
        super().__init__(f"{player} has already used the {joker} joker in this round.")
        self.player = player
        self.joker = joker


class InvalidJokerInput(IllegalAction):
    """A joker's helpers are wrong: a vote missing, a partner who is the player, a letter that is not offered."""


class NotEveryoneDecided(IllegalAction):
    def __init__(self, waiting_for: tuple[str, ...]) -> None:
        super().__init__("Still waiting for " + ", ".join(waiting_for) + " to lock in an answer or walk away.")
        self.waiting_for = waiting_for


# "Rette die Million"


class RunOver(IllegalAction):
    def __init__(self) -> None:
        super().__init__("This run has ended.")


class IllegalPlacement(IllegalAction):
    """A placement of money bundles that the rules forbid."""


class TooManyBundles(IllegalPlacement):
    def __init__(self, placed: int, available: int) -> None:
        super().__init__(f"{placed} bundles placed, but the team has only {available}.")
        self.placed = placed
        self.available = available


class NotAllBundlesPlaced(IllegalPlacement):
    def __init__(self, placed: int, available: int) -> None:
        super().__init__(f"All money must be placed: {placed} of {available} bundles are on the options.")
        self.placed = placed
        self.available = available


class NoEmptyOption(IllegalPlacement):
    def __init__(self) -> None:
        super().__init__("At least one option must stay empty.")


class SplitInLastQuestion(IllegalPlacement):
    def __init__(self) -> None:
        super().__init__("In the last question all the money goes on one option.")


class NegativeBundles(IllegalPlacement):
    def __init__(self) -> None:
        super().__init__("A placement cannot take money away from an option.")


class WrongOptionCount(IllegalPlacement):
    def __init__(self, given: int, expected: int) -> None:
        super().__init__(f"This question has {expected} options, the placement names {given}.")
        self.given = given
        self.expected = expected


class CategoryJokerUsed(IllegalAction):
    def __init__(self) -> None:
        super().__init__("The category joker has already been used in this run.")
