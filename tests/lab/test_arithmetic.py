"""The multiply-add count behind decision 040: counting a decision's arithmetic must not change what it decides."""

from __future__ import annotations

from dataclasses import replace

from voicemaster.dialogue.meaning import Context
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.whisper.strategies import Tuning
from voicemaster_lab.asr import whisper_variants
from voicemaster_lab.asr.arithmetic import PARTS, Counting, Measured, summary
from voicemaster_lab.asr.samples import real_samples


def test_a_counted_decision_decides_as_the_game_and_counts_every_part() -> None:
    samples, missing = real_samples(("de",))
    assert not missing, missing
    plain = whisper_variants.WhisperVariant("de", Tuning(), whisper_variants.as_played)
    counted = whisper_variants.WhisperVariant("de", Tuning(), whisper_variants.as_played)
    counting = Counting(counted.whisper.model.runtime)
    counted.whisper.model.runtime = counting
    measured = []
    for sample in samples[::40]:
        context = Context(sample.context, sample.language, sample.options, sample.names)
        audio = Audio.read(sample.path)
        counting.counted.clear()
        heard, heard_plainly = counted.recognize(audio, context), plain.recognize(audio, context)
        assert replace(heard, decode_ms=0.0) == replace(heard_plainly, decode_ms=0.0), sample.path
        assert all(counting.counted[part] > 0 for part in PARTS), (sample.path, counting.counted)
        measured.append(Measured(str(sample.path), dict(counting.counted), 1.0, 1e9))
    figures = summary(measured)
    assert figures["gmacs_p50"] > figures["encoder_gmacs_p50"] > figures["listen_gmacs_p50"]
