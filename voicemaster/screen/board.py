"""What the screen shows, folded from the game's steps: pure, no thread, no clock.

The game as stored (the same JSON the resume reads) gives the ladder, the players, their jokers, the options a 50:50
took, the locked answers and the score sheet; so a page opened mid-game, or after a resume, shows the game at once.
What the store does not keep comes from the transcript's steps: the last line said, what was heard from whom, the
phone call's timer, the audience's vote, a money-drop placement being said, the reveal.

The right answer is known to the game from the moment a question is asked; the board keeps it to itself until the
reveal, so the page (which anyone in the room can open) never carries it before then.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from voicemaster.host.saved import DropSession, Session, UnreadableGame, restore
from voicemaster.rules import moneydrop as md
from voicemaster.rules.letters import Letter

STORED = "stored"
"""The step that carries the whole game as stored: {"state": the JSON the store keeps}."""


@dataclass(frozen=True)
class Step:
    """One step of the game as the runner saw it: `t` in game seconds, the transcript's event and its data."""

    t: float
    event: str
    data: Mapping[str, Any]


@dataclass(frozen=True)
class BoardQuestion:
    """The question on the board, from the moment it is asked until the next one."""

    key: str
    """What tells this question from the next: its id and, in a money drop, the card's number in the run."""
    text: str
    options: tuple[str, ...]
    level: int
    """The Millionaire level, or the money drop's question number."""
    amount: int
    """What it is played for: the ladder's amount, or the money still in play."""
    correct: Letter
    category: str = ""


@dataclass(frozen=True)
class Caption:
    """What was heard from whom, as the recognizer took it (intent "silence" when nothing was)."""

    player: str
    text: str
    intent: str
    value: str | None


@dataclass(frozen=True)
class Board:
    language: str
    session: Session | DropSession | None = None
    question: BoardQuestion | None = None
    revealed: bool = False
    results: tuple[tuple[str, bool], ...] = ()
    """Who was right and who wrong at the reveal."""
    locked: tuple[tuple[str, str], ...] = ()
    """(player, letter) locked on this question; kept through the reveal, which the stored game has moved past."""
    removed: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(player, letters) no longer open to that player on this question (the 50:50)."""
    placement: tuple[tuple[str, int], ...] = ()
    """A money drop's bundles per letter, as last read back or locked."""
    placement_locked: bool = False
    audience: tuple[str, tuple[tuple[str, int], ...]] | None = None
    """("percent" or "votes", (letter, share) ...)."""
    timer: tuple[int, float] | None = None
    """(seconds, game time it started)."""
    read: tuple[tuple[str, float], ...] | None = None
    """(letter, game time its line starts) of each option read aloud since the question was asked: the page shows
    an option once it is heard. None for a question the board came to after it was read (a board built from the
    stored game alone): all its options are shown."""
    clock: float = 0.0
    said: tuple[tuple[float, str], ...] = ()
    """The quizmaster's latest lines, (game time it starts, words): the page shows the last one begun. A question,
    its options and the prompt are played as one sound, and written down all at once when it starts."""
    heard: Caption | None = None
    listening: str | None = None
    game_over: bool = False


def follow(board: Board, step: Step, questions: Mapping[str, str]) -> Board:
    """The board after one more step; `questions`: each question's text by its id (the bank the game plays with)."""
    board = replace(board, clock=max(board.clock, step.t))
    data = step.data
    match step.event:
        case "stored":
            return _stored(board, str(data["state"]), questions)
        case "say" if data.get("speaker") == "host":
            start = float(data.get("start", step.t))
            board = replace(board, said=(*board.said[-(SAID_KEPT - 1) :], (start, str(data.get("text", "")))))
            if data.get("line") == "option" and board.read is not None and "letter" in data:
                board = replace(board, read=(*board.read, (str(data["letter"]), start)))
            return board
        case "unsaid":  # written down ahead, then cut off by a player before it began
            return replace(board, said=tuple(line for line in board.said if line[0] != data["start"]))
        case "question" if board.question is not None:
            return replace(board, read=())  # asked now: its options are shown as they are read
        case "listen":
            return replace(board, listening=data.get("player"))
        case "heard":
            who, said = str(data.get("player") or ""), str(data.get("text", ""))
            return replace(board, heard=Caption(who, said, str(data["intent"]), data["value"]), listening=None)
        case "silence":
            return replace(board, heard=Caption(str(data.get("player") or ""), "", "silence", None), listening=None)
        case "timer":
            return replace(board, timer=(int(data["seconds"]), step.t))
        case "earcon" if data.get("earcon") == "timer_end":
            return replace(board, timer=None)
        case "audience":
            shares = tuple((str(letter), int(n)) for letter, n in dict(data["shares"]).items())
            return replace(board, audience=(str(data["unit"]), shares))
        case "placement":
            return replace(board, placement=_bundles(data["placement"]), placement_locked=False)
        case "locked" if "placement" in data:
            return replace(board, placement=_bundles(data["placement"]), placement_locked=True, timer=None)
        case "result":
            name = str(data.get("player") or data.get("team") or "")
            return replace(board, revealed=True, results=(*board.results, (name, bool(data["correct"]))), timer=None)
        case "game_over":
            return replace(board, game_over=True)
    return board


SAID_KEPT = 8
"""Lines kept for the caption: more than a question, its options and the prompt played as one."""


def said_by(board: Board, now: float) -> str:
    """The line the quizmaster is saying (or said last) at game time `now`."""
    begun = [text for start, text in board.said if start <= now]
    return begun[-1] if begun else ""


def read_by(board: Board, now: float) -> frozenset[str] | None:
    """The letters of the options read aloud by game time `now`; None: all of them (read before the board came)."""
    if board.read is None:
        return None
    return frozenset(letter for letter, start in board.read if start <= now)


def next_change(board: Board, now: float) -> float | None:
    """The game time after `now` at which the page changes without a step: the next line of those played as one
    begins (an option appears, the caption moves on)."""
    later = [start for start, _ in board.said if start > now]
    later += [start for _, start in board.read or () if start > now]
    return min(later, default=None)


def _bundles(placement: Mapping[str, Any]) -> tuple[tuple[str, int], ...]:
    return tuple((str(letter), int(bundles)) for letter, bundles in placement.items())


def _stored(board: Board, state: str, questions: Mapping[str, str]) -> Board:
    try:
        session = restore("on-screen", state)
    except UnreadableGame:
        return board  # the store sets such a game aside; the screen keeps what it showed
    board = replace(board, session=session)
    asked = _millionaire_question(session, questions) if isinstance(session, Session) else None
    if isinstance(session, DropSession):
        asked = _drop_question(session, questions)
    if asked is not None and (board.question is None or asked.key != board.question.key):
        board = replace(
            board,
            question=asked,
            revealed=False,
            results=(),
            locked=(),
            removed=(),
            placement=(),
            placement_locked=False,
            audience=None,
            timer=None,
            read=None,
        )
    if asked is None and board.question is not None:
        # The stored game has moved past the question (revealed, or everyone left it): it is over, and shown as such.
        board = replace(board, revealed=True, timer=None)
    if asked is not None and isinstance(session, Session) and session.game.round is not None:
        seats = session.game.round.seats
        locked = tuple((seat.player, seat.locked.value) for seat in seats if seat.locked is not None)
        removed = tuple((seat.player, tuple(letter.value for letter in seat.removed)) for seat in seats)
        board = replace(board, locked=locked, removed=removed)
    if isinstance(session, DropSession) and session.game.run is not None:
        run = session.game.run
        if run.phase is md.Phase.LOCKED and run.placement:
            letters = Letter.first(len(run.placement))
            board = replace(
                board,
                placement=tuple(zip((x.value for x in letters), run.placement, strict=True)),
                placement_locked=True,
            )
    over = session.game.outcome is not None if isinstance(session, Session) else session.game.over
    return replace(board, game_over=over)


def _millionaire_question(session: Session, questions: Mapping[str, str]) -> BoardQuestion | None:
    current = session.game.round
    if current is None or current.question is None or not session.asked:
        return None
    question_id = current.question.id
    return BoardQuestion(
        key=f"{current.number}-{current.level}-{question_id}",
        text=questions.get(question_id, ""),
        options=session.options,
        level=current.level,
        amount=session.game.settings.variant.ladder.amount(current.level),
        correct=current.question.correct,
    )


def _drop_question(session: DropSession, questions: Mapping[str, str]) -> BoardQuestion | None:
    run = session.game.run
    if run is None or run.card is None or run.chosen is None or run.phase not in (md.Phase.PLACING, md.Phase.LOCKED):
        return None
    card = run.card
    return BoardQuestion(
        key=f"{run.team}-{run.question}-{card.id}",
        text=questions.get(card.id, ""),
        options=session.offered[run.chosen],
        level=run.question,
        amount=run.bundles * session.game.settings.bundle_value,
        correct=card.correct,
        category=card.category,
    )
