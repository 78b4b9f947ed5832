"""Small drivers for rules tests: play actions in order, and play a player up to a question."""

from __future__ import annotations

from voicemaster.rules import (
    Action,
    AskQuestion,
    ConfirmAnswer,
    Game,
    GameSettings,
    GiveAnswer,
    Letter,
    Reveal,
    StartRound,
    apply,
    events,
    new_game,
    variant,
)

RIGHT = Letter.B
WRONG = Letter.C


def play(game: Game, *actions: Action) -> tuple[Game, list[events.Event]]:
    happened: list[events.Event] = []
    for action in actions:
        game, step_events = apply(game, action)
        happened.extend(step_events)
    return game, happened


def answer(player: str, letter: Letter) -> tuple[Action, Action]:
    return GiveAnswer(player, letter), ConfirmAnswer(player, final=True)


def ask(level: int = 0) -> AskQuestion:
    return AskQuestion(f"q{level}", RIGHT)


def solo(variant_name: str = "classic", **settings: object) -> Game:
    game = new_game(GameSettings(variant(variant_name), ("Anna",), **settings))  # type: ignore[arg-type]
    return play(game, StartRound())[0]


def at_question(level: int, variant_name: str = "classic", **settings: object) -> Game:
    """A one-player game where Anna answered levels 1..level-1 correctly and question `level` is asked."""
    game = solo(variant_name, **settings)
    for done in range(1, level):
        game, _ = play(game, ask(done), *answer("Anna", RIGHT), Reveal())
    return play(game, ask(level))[0]


def everyone_answers(game: Game, letters: dict[str, Letter]) -> tuple[Game, list[events.Event]]:
    """Each player to act answers with their letter and confirms, in turn order; then the reveal."""
    assert game.round is not None
    actions: list[Action] = []
    for player in game.round.turn_order:
        actions.extend(answer(player, letters[player]))
    return play(game, *actions, Reveal())
