"""Real people heard by the grammar, through Whisper base: the recordings set-up installs (KLettres' four voices in
German, English and French; Asterisk's Allison in English, June and Armelle in French, telephone audio). Letters A-D
as answers, words, numbers, ordinals, months and weekdays as the options said, "ja", "no" and "non" as
confirmations; other letters where an answer is expected and numbers alone in the money drop, which name nothing.

The default suite decodes every voice's A-D and yes/no; `make test-slow` decodes the whole set: the words, numbers,
ordinals, months and weekdays as options, and what names nothing. `voicemaster bench asr
--corpora real` reports the figures."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from voicemaster.dialogue.meaning import Context, ContextName, Heard
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster_lab.corpora import real_speech
from voicemaster_lab.corpora.real_speech import LETTERS
from voicemaster_lab.corpora.real_speech_sources import RealClip

CLIPS = real_speech.load()


def _sample(clips: tuple[RealClip, ...]) -> tuple[RealClip, ...]:
    """Every voice's A-D and yes/no."""
    return tuple(
        clip for clip in clips if (clip.kind == "letter" and clip.text in LETTERS) or clip.kind in ("yes", "no")
    )


SAMPLE = _sample(CLIPS)
REST = tuple(clip for clip in CLIPS if clip not in SAMPLE and clip.intent != "unknown" and clip.language != "fr")
"""What the ear is held to today beyond A-D and yes/no: German and English words, numbers, months and weekdays as
options. Not yet (issue 30, measured by `bench asr --corpora real`): French words, where klettres' syllables are
still taken for another one twice ("Mu" read "Mie", "Pi" read "B"; French telephone audio no longer is, since its
larger margins), and what names nothing (letters past D, lone numbers in the money drop), which is still taken for
something in about one clip in six."""


class Ear:
    """One recognizer (Whisper base is multilingual: the context says the language), loaded once; each clip heard
    once."""

    def __init__(self, whisper: Callable[[str], WhisperRecognizer]) -> None:
        self._whisper = whisper
        self._heard: dict[str, Heard] = {}

    def hear(self, clip: RealClip) -> Heard:
        if clip.file not in self._heard:
            context = Context(ContextName(clip.context), clip.language, clip.options)
            self._heard[clip.file] = self._whisper(clip.language).recognize(Audio.read(clip.path()), context)
        return self._heard[clip.file]


@pytest.fixture(scope="module")
def ear(whisper: Callable[[str], WhisperRecognizer]) -> Ear:
    return Ear(whisper)


def _id(clip: RealClip) -> str:
    return f"{clip.source}-{clip.speaker}-{clip.kind}-{clip.text}-{clip.value or clip.intent}"


def _never_taken_for_another(clip: RealClip, got: Heard) -> None:
    if clip.intent == "unknown":
        # Said where it names nothing ("E" with four options, "twenty" on no letter): asked again, never acted on.
        assert got.intent == "unknown", (clip.file, got)
    else:
        assert (got.intent, got.value) in {(clip.intent, clip.value), ("unknown", None)}, (clip.file, got)


@pytest.mark.parametrize("clip", SAMPLE, ids=[_id(clip) for clip in SAMPLE])
def test_a_real_recording_is_understood_or_asked_again_never_taken_for_another(clip: RealClip, ear: Ear) -> None:
    _never_taken_for_another(clip, ear.hear(clip))


@pytest.mark.slow
@pytest.mark.parametrize("clip", REST, ids=[_id(clip) for clip in REST])
def test_the_rest_of_the_real_recordings_likewise(clip: RealClip, ear: Ear) -> None:
    _never_taken_for_another(clip, ear.hear(clip))


TALK = tuple(clip for clip in CLIPS if clip.kind == "talk")
TALK_SAMPLE = TALK[::4]
"""People's sentences that are no answer and no command ("Please hold while I try that extension."), heard where an
answer, a yes or a placement is expected; a sample in the default suite, the rest in `make test-slow`."""


@pytest.mark.parametrize(
    "clip",
    [pytest.param(clip, marks=() if clip in TALK_SAMPLE else pytest.mark.slow, id=_id(clip)) for clip in TALK],
)
def test_talk_around_the_player_is_never_acted_on(clip: RealClip, ear: Ear) -> None:
    heard = ear.hear(clip)
    assert heard.intent == "unknown", (clip.file, clip.context, heard)


FRENCH_TELEPHONE = ("asterisk-fr", "armelle")


def test_most_real_recordings_are_understood_the_first_time_in_every_language(ear: Ear) -> None:
    # A loose floor on the sample: `voicemaster bench asr --corpora real` reports the exact shares on the whole set;
    # here a player would notice being asked again for one answer in five. French telephone audio is asked again
    # more, by design: Whisper base took wrong meanings there at the margins of full-band audio, so it has larger
    # ones (`decision.NARROWBAND`); a caller is still understood at least every other time.
    for language in real_speech.LANGUAGES:
        for telephone in (False, True):
            commands = [
                clip
                for clip in SAMPLE
                if clip.language == language
                and clip.intent != "unknown"
                and (clip.source in FRENCH_TELEPHONE) == telephone
            ]
            understood = [
                clip for clip in commands if (ear.hear(clip).intent, ear.hear(clip).value) == (clip.intent, clip.value)
            ]
            missed = [(clip.file, ear.hear(clip).text) for clip in commands if clip not in understood]
            floor = 0.5 if telephone else 0.8
            assert len(understood) >= floor * len(commands), (language, telephone, missed)


def test_every_voice_is_understood_saying_a_letter(ear: Ear) -> None:
    for speaker in {clip.speaker for clip in CLIPS}:
        letters = [clip for clip in SAMPLE if clip.speaker == speaker and clip.kind == "letter" and clip.value]
        assert any(ear.hear(clip).value == clip.value for clip in letters), speaker


ECHOED = tuple(
    clip
    for clip in CLIPS
    if clip.source == "armelle" and clip.context == "number" and clip.text in ("zéro", "huit", "quatorze")
)


@pytest.mark.parametrize("clip", ECHOED, ids=[_id(clip) for clip in ECHOED])
def test_a_lone_number_on_a_french_phone_is_not_taken_for_the_prompts_placement(clip: RealClip, ear: Ear) -> None:
    # Armelle's "zéro", "huit", "quatorze" in the money drop place nothing; a reading prompted with the examples
    # ("Dix sur A. ...") read each "Dix sur C.". On French telephone audio only the free reading places.
    assert len(ECHOED) == 3
    assert ear.hear(clip).intent == "unknown", ear.hear(clip)
