"""`play`'s ear with phones joined: the player whose turn it is heard through their own phone (a person's real
recording, as the phone's page sends it), through the same pipeline as the room's microphone; a phone that hangs up
while it is listened to decides nothing, and the next listening is the room's."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from voicemaster.config.settings import default_paths, load_settings
from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.dialogue.turns import Listen, Silence
from voicemaster.phones.server import Phones
from voicemaster.play.live import MicrophoneEar, open_ear
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.phone import PhoneMicrophone
from voicemaster.speech.frame import FRAME_BYTES, FRAME_SECONDS
from voicemaster.speech.frontend import FrontEnd, PlayedSound
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import RECOGNITION_RATE, resample
from voicemaster_lab.corpora import real_speech

YES = next(clip for clip in real_speech.load() if clip.language == "de" and clip.kind == "yes" and clip.text == "Ja")
ANSWER = Context(ContextName.ANSWER, "de", ("Berlin", "Paris", "Rom", "Wien"))
B = next(clip for clip in real_speech.load() if clip.language == "de" and clip.kind == "letter" and clip.text == "B")


@dataclass
class Joined:
    """The phones' server as the ear sees it: whose phone is joined."""

    phones: dict[str, PhoneMicrophone] = field(default_factory=dict)
    played: PlayedSound | None = None
    front_end: Callable[[], FrontEnd] | None = None
    players: tuple[str, ...] = ()

    def microphone(self, player: str | None) -> PhoneMicrophone | None:
        found = self.phones.get(player or "")
        return found if found is not None and found.connected else None

    def for_all(self) -> PhoneMicrophone | None:
        return next((phone for phone in self.phones.values() if phone.connected), None)

    def newcomer(self, seat: int, name_asked: bool = False) -> PhoneMicrophone | None:
        del seat, name_asked  # nobody joined as a new player
        return None

    def waiting(self) -> int:
        return 0  # nobody joined as a new player

    def set_players(self, players: tuple[str, ...], newcomers: bool = False, teams: bool = False) -> None:
        del newcomers, teams
        self.players = players


LEAD_SECONDS = 3.0
"""The pause before the player speaks: the listening has begun by then on a loaded machine (what came before it is
kept only as far back as a pre-roll, as on a phone whose player spoke before their turn)."""


def _sends(phone: PhoneMicrophone, audio: Audio, *, hang_up_after: float | None = None) -> threading.Thread:
    """A phone's page sending `audio` in real time after `LEAD_SECONDS` of quiet, then a pause; hanging up
    `hang_up_after` seconds in."""
    quiet = bytes(2 * RECOGNITION_RATE)
    stream = quiet * round(LEAD_SECONDS) + resample(audio, RECOGNITION_RATE).samples + quiet * 2

    def send() -> None:
        for index, at in enumerate(range(0, len(stream) - FRAME_BYTES + 1, FRAME_BYTES)):
            if hang_up_after is not None and index * FRAME_SECONDS >= hang_up_after:
                phone.hang_up()
                return
            phone.receive(stream[at : at + FRAME_BYTES])
            time.sleep(FRAME_SECONDS)  # in real time, in order, as a page's messages come

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    return sender


def _ear(whisper: Callable[[str], WhisperRecognizer], joined: Joined) -> MicrophoneEar:
    config = replace(load_settings(default_paths()[:1]), heard_cue=False)  # no sound card here to tick on
    ear = open_ear(config, whisper("de"))
    return MicrophoneEar(ear.microphone, ear.speaker, ear.pipeline, joined)


def test_the_player_is_heard_through_their_own_phone(whisper: Callable[[str], WhisperRecognizer]) -> None:
    phone = PhoneMicrophone("Anna")
    ear = _ear(whisper, Joined({"Anna": phone}))
    sender = _sends(phone, Audio.read(B.path()))
    listened = ear.listen(Listen(ANSWER, "Anna", 8.0), None, None)
    sender.join()
    heard = listened.observation
    assert isinstance(heard, Heard) and (heard.intent, heard.value) == (Intent.ANSWER, "B")
    assert not listened.phone_lost and listened.stages  # heard through the pipeline, stage by stage


def test_a_phone_that_hangs_up_mid_answer_decides_nothing(whisper: Callable[[str], WhisperRecognizer]) -> None:
    phone = PhoneMicrophone("Ben")
    joined = Joined({"Ben": phone})
    ear = _ear(whisper, joined)
    said = Audio.read(B.path())
    sender = _sends(phone, said, hang_up_after=LEAD_SECONDS + said.seconds / 2)  # cut in the middle of the word
    listened = ear.listen(Listen(ANSWER, "Ben", 8.0), None, None)
    sender.join()
    assert listened.phone_lost and isinstance(listened.observation, Silence)
    assert joined.microphone("Ben") is None  # the next listening is the room microphone's


def test_another_round_put_to_all_is_heard_through_a_players_phone_not_the_room(
    whisper: Callable[[str], WhisperRecognizer], tmp_path: Path
) -> None:
    """At a party the room's microphone hears the others' talk: "Wollt ihr noch eine Runde spielen?" is heard
    through the phone of the first named player who holds one (the real phones' server picks it, Ben's here: Anna
    has none), a person's real "Ja" said into it (docs/decisions/046)."""
    phones = Phones(tmp_path)
    config = replace(load_settings(default_paths()[:1]), heard_cue=False)
    ear = open_ear(config, whisper("de"), phones=phones)
    phones.set_players(("Anna", "Ben", "Cem"), newcomers=True)
    ben, _ = phones.join("Ben"), phones.join("Cem")
    another_round = Listen(Context(ContextName.CONFIRM, "de"), None, 8.0, to_all=True)
    assert ear.phone_for(another_round) is ben
    sender = _sends(ben, Audio.read(YES.path()))
    listened = ear.listen(another_round, None, None)
    sender.join()
    heard = listened.observation
    assert isinstance(heard, Heard) and heard.intent == Intent.YES and not listened.phone_lost
