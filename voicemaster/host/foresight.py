"""What the quizmaster will likely say after a player's answer, known before the player speaks.

While a question is read and the player thinks, every reply to it is already decided but for the letter: "final
answer?" for each option, the lock, the reveal, right or wrong, and, as the bank picks questions by seed and level, the
next question itself. A runner renders these ahead (`speech/voice/render_ahead.py`), so the reply follows the decision
at once even with a voice that takes as long to render as to speak.
"""

from __future__ import annotations

from voicemaster.dialogue.turns import Say
from voicemaster.host import wording
from voicemaster.host.hosting import MillionaireHosting
from voicemaster.host.lines import Line
from voicemaster.questions.selection import NoQuestionLeft
from voicemaster.rules.ladders import LEVELS
from voicemaster.rules.letters import Letter


def replies(host: MillionaireHosting, player: str) -> tuple[Say, ...]:
    """The lines that may follow `player`'s answer to the current question, the soonest first."""
    current = host.game.round
    if current is None or current.question is None:
        return ()
    seat = current.seat(player)
    letters = seat.available if seat is not None else Letter.first(len(host.options))
    ladder = host.game.settings.variant.ladder
    level, correct = current.level, current.question.correct
    _, explanation = host.question_texts()
    line = host.line
    said = [
        *(line("final_answer", {"player": player, "letter": x.value, "text": host.option(x)}) for x in letters),
        *(line("locked", {"player": player, "letter": letter.value}) for letter in letters),
        line("reveal_suspense", form=host.in_round()),
        line("correct_answer", {"letter": correct.value, "text": host.option(correct)}),
    ]
    if explanation:
        said.append(line("explanation", {"text": explanation}))
    stakes = ladder.stakes(level)
    if level < LEVELS:
        said.append(line("right", {"player": player, "amount": host.money(stakes.win)}))
    said.append(
        line("wrong", {"player": player, "amount": host.money(stakes.wrong)}, form=wording.amount(stakes.wrong))
    )
    # A joker heard is said back before it is spent: that line, for each joker still in hand, after the answer's.
    unused = [joker for joker in host.game.settings.variant.jokers if seat is None or joker not in seat.jokers_used]
    said += [line("confirm_joker", {"player": player, "joker": Line(f"joker_{joker.value}")}) for joker in unused]
    return (*said, *next_question(host, player, level + 1))


def next_question(host: MillionaireHosting, player: str, level: int) -> tuple[Say, ...]:
    """The question the bank will pick for `level` if the game goes on there, with the lines leading to it. The
    walk-away offer comes before the question is asked, the rest after: each is worded for that moment."""
    if level > LEVELS:
        return ()
    ladder = host.game.settings.variant.ladder
    try:
        presented = host.bank.next_question(
            host.language, level, seed=host.game.settings.seed, asked=host.asked, heard=host.heard
        )
    except NoQuestionLeft:
        return ()
    asked = len(host.asked) + 1
    return (
        host.play_on(player, ladder.stakes(level)),
        host.line("question_intro", {"level": level, "amount": host.money(ladder.amount(level))}, asked=asked),
        host.line("question", {"text": presented.entry.question}, asked=asked),
        *(
            host.line("option", {"letter": letter.value, "text": text}, asked=asked)
            for letter, text in zip(Letter.first(len(presented.options)), presented.options, strict=True)
        ),
        host.line("your_answer", {"player": player}, asked=asked),
    )
