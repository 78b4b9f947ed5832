"""Whisper's game runtime (CTranslate2's float32 encoder, onnxruntime's float32 decoder graphs made by set-up) against
the float32 numpy reference it replaced: people's recordings decided alike, each decoder step scored as the whole
prefix read again, the reference read as CTranslate2 reads; the graphs checked like any model file and made again when
damaged. `voicemaster bench asr` measures the whole corpora
(docs/decisions/026-float32-decoder-graphs-the-default.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from voicemaster.cli.app import main
from voicemaster.config.voice import DEFAULT_VOICES
from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.models.verify import require_model
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.recognition import RecognizerUnavailable
from voicemaster.speech.hearing.whisper.model import RUNTIME_ENVIRONMENT, Whisper
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.hearing.whisper.runtime_graphs import GRAPH_FILES
from voicemaster.speech.voice.synthesis import Espeak
from voicemaster_lab.corpora import real_speech
from voicemaster_lab.corpora.real_speech_sources import RealClip

pytestmark = pytest.mark.model

CLIPS = real_speech.load()[::64]
"""An even sample of the sources and kinds (about 10 clips); `bench asr` compares them all."""


def _recognizer(runtime: str) -> WhisperRecognizer:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(RUNTIME_ENVIRONMENT, runtime)
        return WhisperRecognizer(require_model("whisper", "de"))


@pytest.fixture(scope="module")
def reference() -> WhisperRecognizer:
    return _recognizer("numpy")


@pytest.fixture(scope="module")
def game() -> WhisperRecognizer:
    """CTranslate2's encoder and onnxruntime's decoder graphs."""
    return _recognizer("onnx")


@pytest.mark.parametrize("clip", CLIPS, ids=[clip.file for clip in CLIPS])
def test_a_person_is_decided_as_the_numpy_reference_decides(
    clip: RealClip, game: WhisperRecognizer, reference: WhisperRecognizer
) -> None:
    # Float32 both: the runtimes differ in the order of their sums only, far inside every margin. (The int8 decoder
    # moved decisions on a margin's edge and took one for a meaning the reference never gave: decision 026.)
    assert game.model.runtime_name == "onnx"
    context = Context(ContextName(clip.context), clip.language, clip.options)
    audio = Audio.read(clip.path())
    ours, theirs = game.recognize(audio, context), reference.recognize(audio, context)
    assert (ours.intent, ours.value, ours.text) == (theirs.intent, theirs.value, theirs.text)
    assert ours.confidence == pytest.approx(theirs.confidence, abs=0.01)


@pytest.mark.parametrize("runtime", ["onnx", "numpy"])
@pytest.mark.parametrize("rows", [1, 2, 3, 5])
def test_each_decoder_step_scores_as_the_whole_prefix_read_again(
    game: WhisperRecognizer, reference: WhisperRecognizer, runtime: str, rows: int
) -> None:
    # The trie search extends many prefixes a token at a time, with the keys of what they share kept: each step's
    # log-probabilities must be those of the decoder run over the whole prefix at once, whatever the batch: to
    # float32 rounding (a wrong mask or position is off by nats).
    recognizer = reference if runtime == "numpy" else game
    listened = recognizer.listen(Espeak(DEFAULT_VOICES).render("Antwort B", "de"), "de")
    model, audio, start = listened.model, listened.keys, list(listened.tokens.special.start)
    prefixes, first = model.start(audio, start)
    firsts = np.argsort(-first[0])[:rows]
    prefixes, after_first = model.step(audio, prefixes.select(np.zeros(rows, dtype=np.intp)), firsts)
    seconds = np.array([int(np.argmax(row[: listened.tokens.special.end])) for row in after_first])
    _, after_second = model.step(audio, prefixes, seconds)
    largest, typical = 2e-3, 2e-3
    for row, (one, two) in enumerate(zip(firsts, seconds, strict=True)):
        _, whole = model.start(audio, [*start, int(one), int(two)], at=(-2, -1))
        for stepped, again in ((after_first[row], whole[0]), (after_second[row], whole[1])):
            np.testing.assert_allclose(stepped, again, atol=largest)
            assert np.abs(stepped - again).mean() < typical
            assert np.argmax(stepped) == np.argmax(again)


@pytest.mark.parametrize("runtime", ["onnx", "numpy"])
def test_several_first_prefixes_in_one_run_are_each_run_alone(
    game: WhisperRecognizer, reference: WhisperRecognizer, runtime: str
) -> None:
    # The waiting reader starts every language's searches in one decoder run (`Whisper.starts`, decision 025): each
    # prefix attends to its own tokens only, so its keys, values and log-probabilities are those of a run of its own.
    recognizer = reference if runtime == "numpy" else game
    said = Espeak(DEFAULT_VOICES).render("Quiz starten", "de")
    firsts: list[tuple[list[int], tuple[int, ...]]] = []
    for language in ("de", "en", "fr"):
        tokens = recognizer.tokens(language)
        start = list(tokens.special.start)
        firsts += [(start, (0, -1)), ([tokens.special.previous, *tokens.encode(" Quiz starten."), *start], (-1,))]
    listened = recognizer.listen(said, "de")
    together = listened.model.starts(listened.keys, firsts)
    again = recognizer.listen(said, "de")  # the same utterance without the starts kept
    for (tokens_, at), (prefixes, logprobs) in zip(firsts, together, strict=True):
        alone, alone_logprobs = again.model.start(again.keys, tokens_, at)
        assert logprobs.shape == alone_logprobs.shape
        np.testing.assert_allclose(logprobs, alone_logprobs, atol=2e-3)
        assert (np.argmax(logprobs, axis=-1) == np.argmax(alone_logprobs, axis=-1)).all()
        for mine, theirs in zip(
            prefixes.start_keys + prefixes.start_values, alone.start_keys + alone.start_values, strict=True
        ):
            np.testing.assert_allclose(mine, theirs, atol=2e-3)
        # The stepped prefixes of a batched start decode as those of its own start.
        token = np.array([int(np.argmax(logprobs[-1]))])
        _, stepped = again.model.step(again.keys, prefixes, token)
        _, stepped_alone = again.model.step(again.keys, alone, token)
        np.testing.assert_allclose(stepped, stepped_alone, atol=2e-3)


def test_the_numpy_reference_reads_as_ctranslate2_does(reference: WhisperRecognizer) -> None:
    # The reference runs its own Whisper on the weights of CTranslate2's model.bin: its greedy reading of an
    # utterance must be CTranslate2's own (float32), token for token.
    import ctranslate2

    from voicemaster.speech.hearing.whisper.search import transcribe
    from voicemaster.speech.hearing.whisper.tokens import Tokens, complete_tokenizer
    from voicemaster.speech.signal import resample, to_float

    folder = require_model("whisper", "en")
    samples = to_float(resample(Espeak(DEFAULT_VOICES).render("Ask the audience, please.", "en")))
    features = reference.features(samples)
    tokens = Tokens(complete_tokenizer(folder / "tokenizer.json"), "en")
    model: Whisper = reference.model
    assert model.runtime_name == "numpy"
    start = list(tokens.special.start)
    read = transcribe(model, model.listen(model.encode(features)), start, tokens.special, budget=20)
    theirs = ctranslate2.models.Whisper(str(folder), device="cpu", compute_type="float32", intra_threads=1)
    encoded = theirs.encode(ctranslate2.StorageView.from_array(np.ascontiguousarray(features[None])))
    result = theirs.generate(encoded, [start], beam_size=1, max_length=24)[0]
    assert list(read) == [t for t in result.sequences_ids[0] if t < tokens.special.end]
    assert "audience" in tokens.decode(read).lower()


def test_the_graphs_set_up_makes_are_checked_and_made_again_when_damaged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    installed = require_model("whisper", "de")
    model = tmp_path / "whisper-base"
    model.mkdir()
    for name in ("model.bin", "config.json", "tokenizer.json", "vocabulary.txt", ".voicemaster-install.json"):
        (model / name).symlink_to(installed / name)
    monkeypatch.setenv("VOICEMASTER_MODELS_DIR", str(tmp_path))

    with pytest.raises(RecognizerUnavailable) as missing:
        Whisper(model, runtime="onnx")
    said = str(missing.value)
    assert "\n" not in said and "decode.onnx" in said and "have not been made" in said
    assert said.endswith("run `voicemaster models setup`")

    # The graphs as set-up made them for this checkout, copied (they are damaged below): made once is enough.
    for name in (*GRAPH_FILES, ".voicemaster-derived.json"):
        (model / name).write_bytes((installed / name).read_bytes())
    assert main(["models", "verify"]) == 0
    assert main(["models", "download", "whisper-base"]) == 0  # intact: nothing is made again
    assert "made, intact" in capsys.readouterr().out

    graph = model / "decode.onnx"
    data = bytearray(graph.read_bytes())
    data[len(data) // 2] ^= 0xFF  # a flipped bit deep in the weights: the size is right, the sum is not
    graph.write_bytes(bytes(data))
    assert main(["models", "verify"]) == 1
    reported = capsys.readouterr().out
    assert "decode.onnx" in reported and "voicemaster models setup" in reported

    graph.write_bytes(bytes(data[: len(data) // 3]))  # cut short: the loader sees it too
    with pytest.raises(RecognizerUnavailable, match=r"decode\.onnx .* damaged or incomplete: run `voicemaster"):
        Whisper(model, runtime="onnx")

    assert main(["models", "download", "whisper-base"]) == 0
    assert "made listen.onnx, decode.onnx, listen-int8.onnx, decode-int8.onnx" in capsys.readouterr().out
    assert main(["models", "verify"]) == 0
    assert Whisper(model, runtime="onnx").runtime_name == "onnx"

    # An install made before the waiting quizmaster's graphs: a game still loads; waiting says what to run.
    (model / "decode-int8.onnx").unlink()
    assert Whisper(model, runtime="onnx").runtime_name == "onnx"
    with pytest.raises(RecognizerUnavailable, match=r"^decode-int8\.onnx in .* run `voicemaster models setup`$"):
        Whisper(model, runtime="onnx", int8=True)
