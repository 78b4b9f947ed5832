"""What the quizmaster will likely say after a player's answer, known before the player speaks.

While a question is read and the player thinks, every reply to it is already decided but for the letter: "final
answer?" for each option, the lock, the reveal, right or wrong, and, as the bank picks questions by seed and level, the
next question itself. A runner renders these ahead (`speech/render_ahead.py`), so the reply follows the decision at
once even with a voice that takes as long to render as to speak.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from voicemaster.host.turns import Say
from voicemaster.questions.selection import NoQuestionLeft
from voicemaster.rules.ladders import LEVELS
from voicemaster.rules.letters import Letter

if TYPE_CHECKING:
    from voicemaster.host.millionaire import Quizmaster


def replies(host: Quizmaster, player: str) -> tuple[Say, ...]:
    """The lines that may follow `player`'s answer to the current question, the soonest first."""
    current = host.game.round
    if current is None or current.question is None:
        return ()
    seat = current.seat(player)
    letters = seat.available if seat is not None else Letter.first(len(host.session.options))
    ladder = host.game.settings.variant.ladder
    level, correct = current.level, current.question.correct
    _, explanation = host.question_texts()
    said = [
        *(Say("final_answer", {"player": player, "letter": x.value, "text": host.option(x)}) for x in letters),
        *(Say("locked", {"player": player, "letter": letter.value}) for letter in letters),
        Say("reveal_suspense"),
        Say("correct_answer", {"letter": correct.value, "text": host.option(correct)}),
    ]
    if explanation:
        said.append(Say("explanation", {"text": explanation}))
    if level < LEVELS:
        said.append(Say("right", {"player": player, "amount": host.money(ladder.amount(level))}))
    said.append(Say("wrong", {"player": player, "amount": host.money(ladder.wrong_answer_payout(level))}))
    return (*said, *next_question(host, player, level + 1))


def next_question(host: Quizmaster, player: str, level: int) -> tuple[Say, ...]:
    """The question the bank will pick for `level` if the game goes on there, with the lines leading to it."""
    if level > LEVELS:
        return ()
    ladder = host.game.settings.variant.ladder
    try:
        presented = host.bank.next_question(
            host.language, level, seed=host.game.settings.seed, asked=host.session.asked, heard=host.heard
        )
    except NoQuestionLeft:
        return ()
    amounts = {"amount": host.money(ladder.walk_away_payout(level)), "next": host.money(ladder.amount(level))}
    return (
        Say("play_on", {"player": player, **amounts}),
        Say("question_intro", {"level": level, "amount": host.money(ladder.amount(level))}),
        Say("question", {"text": presented.entry.question}),
        *(
            Say("option", {"letter": letter.value, "text": text})
            for letter, text in zip(Letter.first(len(presented.options)), presented.options, strict=True)
        ),
        Say("your_answer", {"player": player}),
    )
