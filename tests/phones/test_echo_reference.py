"""Each phone's echo canceller is handed what the loudspeaker played from a queue of its own, taken as that phone's
sound arrives: a phone whose sound is held up on the Wi-Fi holds back its own reference only, never another
phone's nor the room microphone's."""

from __future__ import annotations

from pathlib import Path

from tests.fakes import ReferenceKept
from voicemaster.phones.server import BEHIND_SECONDS, Phones
from voicemaster.speech.frame import FRAME_BYTES, FRAME_SECONDS
from voicemaster.speech.frontend import PlayedSound

QUIET = bytes(FRAME_BYTES)
VOICE = b"\x10\x27" * (FRAME_BYTES // 2)
"""A frame of the quizmaster's voice as the loudspeaker is handed it (a constant sample: easy to tell from quiet)."""
LATER = b"\x20\x4e" * (FRAME_BYTES // 2)
"""A frame of what he says later."""
WAITED_SECONDS = 30.0
"""How long a phone's front end may take to clean what it was sent on a loaded machine: a guard, not a measure."""


def test_a_phone_held_up_on_the_wifi_holds_back_only_its_own_echo_reference(tmp_path: Path) -> None:
    played = PlayedSound()
    anna_heard, ben_heard = ReferenceKept(), ReferenceKept()
    made = iter([anna_heard, ben_heard])
    phones = Phones(tmp_path, played=played, front_end=lambda: next(made))
    anna, ben = phones.join("Anna"), phones.join("Ben")
    joined = round(BEHIND_SECONDS / FRAME_SECONDS) + 1
    for _ in range(joined):  # nothing played yet: the silence each phone's reference begins with is taken
        anna.receive(QUIET)
        ben.receive(QUIET)
    played.add(VOICE * 5)  # the quizmaster speaks for five frames
    assert played.take(5 * FRAME_BYTES) == VOICE * 5  # the room's microphone has it in step
    for _ in range(5):
        anna.receive(QUIET)  # Anna's sound arrives as it is recorded; Ben's is held up
    ben.receive(QUIET * 5)  # and arrives all at once
    anna.receive(QUIET)
    ben.receive(QUIET)
    assert anna.settle(WAITED_SECONDS) and ben.settle(WAITED_SECONDS)  # the front ends run on threads of their own
    assert anna_heard.references[joined:] == [VOICE] * 5 + [QUIET]  # not held back by Ben's delay
    assert ben_heard.references[joined:] == [VOICE] * 5 + [QUIET]  # his own, in step with the frames held up


def test_a_phone_joined_while_the_quizmaster_speaks_is_handed_his_voice_behind_by_the_silence_it_begins_with(
    tmp_path: Path,
) -> None:
    played = PlayedSound()
    canceller = ReferenceKept()
    phones = Phones(tmp_path, played=played, front_end=lambda: canceller)
    anna = phones.join("Anna")
    behind = round(BEHIND_SECONDS / FRAME_SECONDS)
    played.add(VOICE * (behind + 2))
    for _ in range(behind + 2):
        anna.receive(QUIET)
    assert anna.settle(WAITED_SECONDS)
    assert canceller.references[:behind] == [QUIET] * behind and canceller.references[-1] == VOICE
    for _ in range(behind + 2):  # the quizmaster pauses: the queue runs dry, and the phone is handed silence
        anna.receive(QUIET)
    assert anna.settle(WAITED_SECONDS)
    assert canceller.references[-1] == QUIET
    played.add(LATER)
    anna.receive(QUIET)
    assert anna.settle(WAITED_SECONDS)
    assert canceller.references[-1] == LATER  # after a pause: what was played as the phone's frame arrived
