"""The rooms `bench asr` passes people's recordings through: seeded, cached, at the stated levels, the party never
the player's own voice; and through the real recognizer, reported per room and language."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from voicemaster.cli.manifest import ManifestError
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, to_float
from voicemaster_lab.asr import measure, samples
from voicemaster_lab.asr.report import report
from voicemaster_lab.cli import corpora_named
from voicemaster_lab.corpora import rooms


def spoken(folder: Path, name: str, speaker: str, frequency: float = 220.0) -> rooms.Spoken:
    """A vowel-like tone of half a second between silences, as a recording of `speaker`."""
    seconds = np.arange(RECOGNITION_RATE // 2) / RECOGNITION_RATE
    tone = 0.3 * np.sin(2 * np.pi * frequency * seconds) * np.hanning(len(seconds))
    silence = np.zeros(RECOGNITION_RATE // 5)
    path = folder / f"{name}.wav"
    from_float(np.concatenate([silence, tone, silence]), RECOGNITION_RATE).write(path)
    return rooms.Spoken(path, f"xx/{name}", speaker)


CAR_5, CAR_0 = rooms.ROOMS["car"]
PARTY_5, PARTY_0 = rooms.ROOMS["party"]
(LIVING_ROOM,) = rooms.ROOMS["living-room"]
PHONE = {condition.label: condition for condition in rooms.ROOMS["phone"]}


def test_a_room_is_the_same_on_every_run_and_made_once(tmp_path: Path) -> None:
    player = spoken(tmp_path, "a", "anna")
    pool = [player, spoken(tmp_path, "b", "ben", 330.0), spoken(tmp_path, "c", "cleo", 150.0)]
    for condition in (*rooms.ROOMS["car"], *rooms.ROOMS["party"], *rooms.ROOMS["far"]):
        assert rooms.through(condition, player, pool).samples == rooms.through(condition, player, pool).samples
    made = rooms.made(CAR_5, player, pool, tmp_path / "corpus")
    made.write_bytes(b"cached")  # a clip made before is read, not made again
    assert rooms.made(CAR_5, player, pool, tmp_path / "corpus").read_bytes() == b"cached"
    assert rooms.through(CAR_5, player, pool).samples != rooms.through(CAR_0, player, pool).samples
    (quiet,) = rooms.ROOMS["quiet"]  # the baseline: the recording as it was made
    assert rooms.made(quiet, player, pool, tmp_path / "corpus") == player.path


def test_road_noise_is_low_and_at_the_stated_snr(tmp_path: Path) -> None:
    player = spoken(tmp_path, "a", "anna")
    speech = to_float(Audio.read(player.path)).astype(np.float64)
    for condition in rooms.ROOMS["car"]:
        noise = to_float(rooms.through(condition, player, [])).astype(np.float64) - speech
        assert condition.snr_db is not None
        snr = 10 * np.log10(rooms.speech_power(speech) / np.mean(noise**2))
        assert snr == pytest.approx(condition.snr_db, abs=0.2)
        spectrum = np.abs(np.fft.rfft(noise)) ** 2
        frequencies = np.fft.rfftfreq(len(noise), 1 / RECOGNITION_RATE)
        assert spectrum[frequencies < 500].sum() > 0.9 * spectrum.sum()  # a rumble, not a hiss


def test_the_party_babbles_with_other_speakers_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    player = spoken(tmp_path, "a", "anna")
    own = spoken(tmp_path, "a2", "anna", 260.0)  # another recording of the player: never in the babble
    pool = [player, own, spoken(tmp_path, "b", "ben", 330.0), spoken(tmp_path, "c", "cleo", 150.0)]
    read: list[Path] = []
    reading = rooms.samples_of

    def reads(path: Path) -> rooms.Signal:
        read.append(path)
        return reading(path)

    monkeypatch.setattr(rooms, "samples_of", reads)
    rooms.through(PARTY_5, player, pool)
    assert read[0] == player.path and set(read[1:]) <= {pool[2].path, pool[3].path} and len(read) > 1
    with pytest.raises(ValueError, match="other speakers"):
        rooms.through(PARTY_5, player, [player, own])


def test_the_living_room_reverberates_about_half_a_second() -> None:
    for distance in rooms.LIVING_ROOM_DISTANCES:
        measured = rooms.measured_rt60(rooms.room_response(rooms.LIVING_ROOM_SABINE, distance, 0))
        assert 0.45 <= measured <= 0.6


def test_a_phone_at_the_mouth_is_made_the_same_on_every_run_into_its_own_cache(tmp_path: Path) -> None:
    player = spoken(tmp_path, "a", "anna")
    pool = [player, spoken(tmp_path, "b", "ben", 330.0), spoken(tmp_path, "c", "cleo", 150.0)]
    made = set()
    for condition in rooms.ROOMS["phone"]:
        assert condition.phone and condition.of in {each.label for room in rooms.ROOMS.values() for each in room}
        first, again = rooms.through(condition, player, pool), rooms.through(condition, player, pool)
        assert first.samples == again.samples
        made.add(rooms.made(condition, player, pool, tmp_path / "corpus"))
    assert len(made) == len(rooms.ROOMS["phone"])
    assert not made & {rooms.made(condition, player, pool, tmp_path / "corpus") for condition in (CAR_0, PARTY_0)}


def _snr_db(condition: rooms.Condition, player: rooms.Spoken, pool: list[rooms.Spoken]) -> tuple[float, rooms.Signal]:
    """The player's speech over the noise in a made clip (the clip less the dry recording), and that noise."""
    speech = to_float(Audio.read(player.path)).astype(np.float64)
    noise = to_float(rooms.through(condition, player, pool)).astype(np.float64) - speech
    return 10 * float(np.log10(rooms.speech_power(speech) / np.mean(noise**2))), noise


def test_the_phone_hears_the_player_louder_over_the_same_noise_by_the_inverse_distance_law(tmp_path: Path) -> None:
    player = spoken(tmp_path, "a", "anna")
    pool = [player, spoken(tmp_path, "b", "ben", 330.0), spoken(tmp_path, "c", "cleo", 150.0)]
    assert round(rooms.PHONE_GAIN_DB, 1) == 14.0  # 1 m to 0.2 m
    for room, phone in ((CAR_0, PHONE["phone car 0 dB"]), (PARTY_0, PHONE["phone party 0 dB"])):
        (at_room, room_noise), (at_phone, phone_noise) = _snr_db(room, player, pool), _snr_db(phone, player, pool)
        assert at_phone - at_room == pytest.approx(rooms.PHONE_GAIN_DB, abs=0.3)
        ratio = phone_noise / np.where(np.abs(room_noise) > 1e-3, room_noise, np.nan)
        assert np.nanstd(ratio) < 0.05 * abs(np.nanmean(ratio))  # the same noise, only fainter against the player


def test_the_phone_in_the_living_room_hears_little_of_its_reverberation(tmp_path: Path) -> None:
    for distance in rooms.LIVING_ROOM_DISTANCES:
        for position in range(4):
            at_table = rooms.room_response(rooms.LIVING_ROOM_SABINE, distance, position)
            at_mouth = rooms.phone_response(rooms.LIVING_ROOM_SABINE, distance, position)
            assert rooms.direct_to_reverberant_db(at_table) < 0 < 8 < rooms.direct_to_reverberant_db(at_mouth)
            assert 0.45 <= rooms.measured_rt60(at_mouth) <= 0.6  # the same room
    player = spoken(tmp_path, "a", "anna")  # a tone between silences: what rings on after it is the room
    ended = RECOGNITION_RATE // 5 + RECOGNITION_RATE // 2 + RECOGNITION_RATE // 50

    def ringing_db(condition: rooms.Condition) -> float:
        heard = to_float(rooms.through(condition, player, [])).astype(np.float64)
        after = heard[ended + RECOGNITION_RATE // 20 : ended + RECOGNITION_RATE // 4]
        return 10 * float(np.log10(np.mean(after**2) / rooms.speech_power(heard)))

    assert ringing_db(PHONE["phone living room"]) < ringing_db(LIVING_ROOM) - 10


def test_rooms_on_the_command_line_name_every_room_and_keep_a_manifest_whole() -> None:
    assert corpora_named("real,rooms,car") == ["real", "quiet", "cut", "car", "living-room", "far", "party", "phone"]
    assert corpora_named("manifest:/a,b.jsonl") == ["manifest:/a", "b.jsonl"]  # a comma ends a path
    assert corpora_named("options,manifest:/my/own.jsonl") == ["options", "manifest:/my/own.jsonl"]


def test_a_manifest_for_bench_asr_says_what_each_recording_means(tmp_path: Path) -> None:
    manifest = tmp_path / "mine.jsonl"
    manifest.write_text(json.dumps({"file": "a.wav", "lang": "de", "context": "answer", "options": "A|B|C|D"}) + "\n")
    with pytest.raises(ManifestError, match=r"mine.jsonl:1: field 'intent' is missing"):
        samples.manifest_samples(manifest, ("de",))


@pytest.mark.slow  # a whole game (or room) through the recognizer: make test-slow
def test_bench_asr_hears_people_in_a_room_and_in_a_manifest_and_reports_each_room_and_language(
    tmp_path: Path, whisper: Callable[[str], WhisperRecognizer]
) -> None:
    del whisper  # marks the test as one that hears with the installed model
    real, missing = samples.real_samples(("de",))
    assert missing is None
    letters = [sample for sample in real if sample.kind == "letter" and sample.intent == "answer"][:2]
    manifest = tmp_path / "mine.jsonl"
    lines = [
        {"file": str(s.path), "lang": "de", "context": "answer", "options": list(s.options), "intent": "answer"}
        | {"value": s.value}
        for s in letters
    ]
    manifest.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    corpora = ("car", f"manifest:{manifest}")
    figures = measure.run(tmp_path / "corpus", ["whisper"], languages=("de",), limit=2, corpora=corpora)
    car, mine = (figures["engines"]["whisper"][which] for which in corpora)
    assert car["utterances"] == 4 and set(car["by_source"]) == {"car 5 dB de", "car 0 dB de"}
    assert mine["utterances"] == 2 and set(mine["by_source"]) == {"mine.jsonl de"}
    assert mine["wrong"] == 0
    text = report(figures)
    assert "in the room 'car' per source and language" in text and "car 0 dB de" in text
    assert f"your recordings ({manifest}) per source and language" in text
