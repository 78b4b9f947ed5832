"""A phone at the player's mouth hears the quizmaster's loudspeaker from across the room, mostly as the room's
reverberation: in each pause of a line ("Markus, B, Wien. Endgültig?") and after its end the room still rings with it,
which the barge-in filter's few frames around the echo's delay do not explain, far over a quiet room's own floor.
Before, that stopped the line by itself, or began an utterance before the player's yes (read "[Musik]" and asked
again), and the turn was lost. The player at the phone is far louder than that ringing, and still stops a question
by speaking over it.

`bench room`'s living room (issue 47): the loudspeaker's response to the phone and its level at `--echo-db 0`
(`harness.room.phone_scene`), the player's real recordings at the phone (`player_at_phone`). The game's phone pipeline
(`play.live.through_phone`, AEC3 and the barge-in filter), the phone's reference taken as its sound arrives, 0.1 s
ahead of the echo; each listening heard up to its endpointer, turn after turn with one phone and its room level, the
room heard alone while the game decides. The quizmaster's lines are the game's own, in its German voice."""

from __future__ import annotations

import numpy as np
import pytest

from tests.phones.sending import ECHO_DELAY_SECONDS, GAP_SECONDS, in_the_game_voice, pcm, phone_listening
from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.host.lines import load as load_lines
from voicemaster.play.stage import StagePlayback
from voicemaster.speech.audio import Audio
from voicemaster.speech.frame import FRAME_SECONDS
from voicemaster.speech.hearing.pipeline import Hearing
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, resample, to_float
from voicemaster_lab.corpora import real_speech
from voicemaster_lab.corpora.real_speech_sources import RealClip
from voicemaster_lab.harness import room as acoustics
from voicemaster_lab.harness.scene import onset

pytestmark = pytest.mark.model  # Silero, Pico

Signal = np.ndarray
ROOM = acoustics.ROOMS["living-room"]
TURNS = 7
"""Each of the test's seven lines once, each answered by a person's yes at the phone."""


def _at_the_phone(clip: RealClip) -> Signal:
    dry = to_float(resample(Audio.read(clip.path()), RECOGNITION_RATE)).astype(np.float64)
    return acoustics.player_at_phone(ROOM, dry, f"real|{clip.text}")


def _turns(lines: list[Signal], said: list[Signal], starts: list[float]) -> list[tuple[Hearing, float]]:
    """Each line played while the phone listens, `said[n]` beginning `starts[n]` seconds into the listening: what
    the phone's pipeline heard up to its endpointer, and where the player began (seconds). Before them the game's
    greeting and its question for the player's name, heard with nobody speaking, as a game begins."""
    noise = acoustics.noise(ROOM, [])
    scene = acoustics.phone_scene(ROOM, 0.0, lines, noise)
    assert scene.echo is not None
    source, pipeline = phone_listening(scene.echo, "Markus")
    room = pcm(scene.noise[: 2 * RECOGNITION_RATE])
    lines_of = load_lines("de")
    (greeting,) = in_the_game_voice([" ".join(lines_of.render(key, {"n": 1}) for key in ("greeting", "ask_name"))])
    source.room_alone(room)
    source.heard = pcm(np.resize(scene.noise, len(greeting) + RECOGNITION_RATE))
    source.line = StagePlayback(from_float(greeting, RECOGNITION_RATE))
    pipeline.listen(Context(ContextName.NAME, "de"), 0.5, source.line)  # its echo learnt, whatever it heard
    out = []
    for turn, (line, utterance, start) in enumerate(zip(lines, said, starts, strict=True)):
        source.room_alone(room)
        at = round(start * RECOGNITION_RATE)
        heard = np.resize(np.roll(scene.noise, turn * 4000), max(len(line), at + len(utterance)) + 3 * RECOGNITION_RATE)
        heard[at : at + len(utterance)] += utterance
        source.heard, source.line = pcm(heard), StagePlayback(from_float(line, RECOGNITION_RATE))
        out.append((pipeline.listen(Context(ContextName.CONFIRM, "de"), 8.0, source.line), start))
    return out


def test_the_phone_hears_a_yes_after_each_line_and_never_its_echo_across_the_room() -> None:
    lines = load_lines("de")
    texts = [
        lines.render("final_answer", {"player": "Markus", "letter": letter, "text": option}, vary=vary)
        for vary, (letter, option) in enumerate((("B", "Z"), ("A", "Eine Wette"), ("C", "Rom"), ("D", "Wien")), 2)
    ]
    texts += [
        lines.render("confirm_joker", {"player": "Markus", "joker": "Fünfzig-fünfzig-Joker"}),
        lines.render("scan_option", {"letter": "B", "text": "Paris"}),
        lines.render("another_player", {}),
    ]
    made = in_the_game_voice(texts)
    played = [made[turn % len(made)] for turn in range(TURNS)]
    yes = [clip for clip in real_speech.load(("de",)) if clip.kind == "yes"]
    assert yes
    said = [_at_the_phone(yes[turn % len(yes)]) for turn in range(TURNS)]
    starts = [len(line) / RECOGNITION_RATE + ECHO_DELAY_SECONDS + GAP_SECONDS for line in played]
    lost = {}
    for turn, (hearing, start) in enumerate(_turns(played, said, starts)):
        began = onset(hearing)
        if hearing.barged_in_at is not None or began is None or began < start - FRAME_SECONDS:
            lost[turn] = (hearing.barged_in_at, began, round(start, 2))
    assert lost == {}  # turn: (the line stopped at, the utterance began at, the player began at), seconds


def test_the_player_at_the_phone_still_stops_a_question_by_speaking_over_it() -> None:
    lines = load_lines("de")
    question = lines.render(
        "question", {"text": "Wie nennt man es, wenn Bürger bestimmen, wer sie im Parlament vertritt?"}
    )
    options = " ".join(
        lines.render("option", {"letter": letter, "text": option})
        for letter, option in zip("ABCD", ("Eine Wette", "Eine Verlosung", "Eine Wahl", "Eine Prüfung"), strict=True)
    )
    (line,) = in_the_game_voice([f"{question} {options}"])
    letters = [clip for clip in real_speech.load(("de",)) if clip.kind == "letter" and clip.text in "ABCD"]
    assert len(letters) == 4
    said = [_at_the_phone(clip) for clip in letters]
    starts = [2.0] * len(said)  # into the question, 6 s long
    stopped = [hearing.barged_in_at for hearing, _ in _turns([line] * len(said), said, starts)]
    assert all(at is not None and 2.0 < at < 3.0 for at in stopped), stopped  # where each letter stopped it
