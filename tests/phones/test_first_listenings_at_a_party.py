"""A phone at the player's mouth at a party, from the game's first listening (issue 47): the quizmaster talks through
the greeting and asks for a name, reads it back and asks who else plays, and the player answers 0.4 s after each
line, within our echo's tail, so the phone never hears the room alone before these listenings. Before, the phone knew
no floor there: the others' talk, speech to the voice-activity model, held the player's name open until it was cut
at 8 s, and a short answer heard with it was not judged crowded. Now what the barge-in filter left under our voice
while the quizmaster spoke (the room, and what the filter leaves of our voice) is the room's floor until the room has
been heard alone, and each answer ends once the player stops.

`bench room`'s party and party as loud (other people's real recordings, never the player's speaker, as the phone at
the player's mouth hears them, `harness.room.phone_scene` at `--echo-db 0`), a person's real German word and "Ja" at
the phone. The game's phone pipeline (`play.live.through_phone`, AEC3 and the barge-in filter) with one phone and its
room level, each listening heard up to its endpointer. The quizmaster's lines are the game's own, in its German
voice."""

from __future__ import annotations

import numpy as np
import pytest

from tests.phones.sending import ECHO_DELAY_SECONDS, GAP_SECONDS, in_the_game_voice, pcm, phone_listening
from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.host.lines import load as load_lines
from voicemaster.play.stage import StagePlayback
from voicemaster.speech.audio import Audio
from voicemaster.speech.frame import FRAME_SECONDS
from voicemaster.speech.hearing.pipeline import DEFAULT_SETTINGS
from voicemaster.speech.hearing.segmenter import Endpoint
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, resample, to_float
from voicemaster_lab.corpora import real_speech, rooms
from voicemaster_lab.harness import room as acoustics
from voicemaster_lab.harness.scene import onset

pytestmark = pytest.mark.model  # Silero, Pico

ENDED_WITHIN_SECONDS = 1.5
"""An utterance that ends this long after the player's last sound ended with the player: the endpointer's pause
(0.7 s) and the smoothing's lag, not the others' talk."""


def _lines() -> list[np.ndarray]:
    lines = load_lines("de")
    texts = [
        " ".join(lines.render(key, {"n": 1}) for key in ("greeting", "ask_name")),
        lines.render("name_read_back", {"name": "Markus"}),
        lines.render("another_player", {}),
    ]
    return in_the_game_voice(texts)


@pytest.mark.parametrize("room_name", ["party", "party-loud"])
def test_the_first_answers_at_a_party_end_with_the_player(room_name: str) -> None:
    room = acoustics.ROOMS[room_name]
    clips = real_speech.load(("de",))
    (yes,) = [clip for clip in clips if clip.kind == "yes"]
    name = next(clip for clip in clips if clip.kind == "word" and clip.speaker == yes.speaker)  # said as a name
    others = [rooms.Spoken(c.path(), c.file, c.speaker) for c in real_speech.load() if c.speaker != yes.speaker]
    lines = _lines()
    scene = acoustics.phone_scene(room, 0.0, lines, acoustics.noise(room, others))
    assert scene.echo is not None
    dry = [to_float(resample(Audio.read(clip.path()), RECOGNITION_RATE)).astype(np.float64) for clip in (name, yes)]
    said = [
        acoustics.player_at_phone(room, dry[turn], f"real|{clip.text}")
        for turn, clip in ((0, name), (1, yes), (1, yes))
    ]
    source, pipeline = phone_listening(scene.echo)
    pre_roll = round(DEFAULT_SETTINGS.pre_roll_seconds / FRAME_SECONDS) * round(FRAME_SECONDS * RECOGNITION_RATE)
    missed = {}
    for turn, (line, utterance, context) in enumerate(
        zip(lines, said, (ContextName.NAME, ContextName.CONFIRM, ContextName.CONFIRM), strict=True)
    ):
        start = len(line) / RECOGNITION_RATE + ECHO_DELAY_SECONDS + GAP_SECONDS
        at, spoken = round(start * RECOGNITION_RATE), _spoken_seconds(utterance)
        heard = np.resize(np.roll(scene.noise, turn * 4 * RECOGNITION_RATE), at + len(utterance) + 9 * RECOGNITION_RATE)
        heard[at : at + len(utterance)] += utterance
        source.room_alone(pcm(np.roll(scene.noise, -pre_roll)[:pre_roll]))  # while the game decided: its pre-roll
        source.heard, source.line = pcm(heard), StagePlayback(from_float(line, RECOGNITION_RATE))
        hearing = pipeline.listen(Context(context, "de"), 8.0, source.line)
        timeline, began = hearing.timeline, onset(hearing)
        ended = timeline.state in (Endpoint.ENDED, Endpoint.ENDED_EARLY)
        player_ended = start + spoken[1]
        late = timeline.stopped > player_ended + ENDED_WITHIN_SECONDS
        if not ended or late or began is None or began < start - FRAME_SECONDS:
            missed[turn] = (timeline.state.name, began, round(start, 2), timeline.stopped, round(player_ended, 2))
    assert missed == {}  # turn: (how it ended, the utterance began at, the player began at, stopped, player ended)


def _spoken_seconds(utterance: np.ndarray) -> tuple[float, float]:
    """Where the utterance's sound begins and ends (its louder frames), in seconds."""
    frames = len(utterance) // round(FRAME_SECONDS * RECOGNITION_RATE)
    size = round(FRAME_SECONDS * RECOGNITION_RATE)
    power = np.array([np.mean(utterance[n * size : (n + 1) * size] ** 2) for n in range(frames)])
    loud = np.flatnonzero(power > np.max(power) / 1000)
    return float(loud[0] * FRAME_SECONDS), float((loud[-1] + 1) * FRAME_SECONDS)
