"""Speech models: install from folders, archives and wheels, download with resume and sha256 checks, verify.

Everything runs on tiny fake models in a temporary models folder, and downloads come from a server on 127.0.0.1.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import re
import socket
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from voicemaster import paths
from voicemaster.cli.app import main
from voicemaster.models import download, install, verify
from voicemaster.models.manifest import ModelError, ModelMissing, ModelSpec, load_manifest, models_dir, resolve
from voicemaster.paths import MODELS_MANIFEST

VOSK = "vosk-model-tiny-de-0.1"
WHISPER = "whisper-tiny"
VOSK_FILES = {
    "am/final.mdl": b"acoustic model " * 400,
    "conf/mfcc.conf": b"--sample-frequency=16000\n",
    "conf/model.conf": b"--min-active=200\n",
    "graph/Gr.fst": b"grammar " * 300,
    "graph/HCLr.fst": b"lexicon " * 300,
    "README": b"a tiny fake model\n",
}
REQUIRED = [name for name in VOSK_FILES if name != "README"]
PART1, PART2 = b"first half of the weights " * 50, b"second half of the weights " * 50
CONFIG = b'{"alignment_heads": []}\n'


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def make_folder(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def make_zip(path: Path, files: dict[str, bytes], top: str | None = VOSK) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(f"{top}/{name}" if top else name, data)
    return path


def make_wheel(directory: Path, package: str, files: dict[str, bytes]) -> Path:
    """A wheel pip accepts: the files plus the metadata pip reads."""
    module = package.replace("-", "_")
    info = f"{module}-1.0.0.dist-info"
    path = directory / f"{module}-1.0.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, data in files.items():
            wheel.writestr(f"{module}/data/{name}", data)
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0.0\n")
        wheel.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        wheel.writestr(f"{info}/RECORD", "")
    return path


@dataclass
class World:
    """A manifest with one fake Vosk model (an archive) and one fake Whisper model (two wheels)."""

    tmp: Path
    root: Path
    archive: Path
    wheels: Path
    manifest: dict[str, ModelSpec] = field(default_factory=dict)

    @property
    def vosk(self) -> ModelSpec:
        return self.manifest[VOSK]


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    source = tmp_path / "source"
    source.mkdir()
    archive = make_zip(source / f"{VOSK}.zip", VOSK_FILES)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    part1 = make_wheel(wheels, "vm-test-tiny-part1", {"model.bin.part1": PART1, "config.json": CONFIG})
    part2 = make_wheel(wheels, "vm-test-tiny-part2", {"model.bin.part2": PART2})
    text = f"""
[models."{VOSK}"]
engine = "vosk"
language = "de"
size = {archive.stat().st_size}
url = "http://127.0.0.1:9/{VOSK}.zip"
sha256 = "{sha256(archive.read_bytes())}"
files = {REQUIRED!r}

[models.{WHISPER}]
engine = "whisper"
language = "multi"
size = {part1.stat().st_size + part2.stat().st_size}
setup = true
wheels = [
    {{ package = "vm-test-tiny-part1", version = "1.0.0", sha256 = "{sha256(part1.read_bytes())}" }},
    {{ package = "vm-test-tiny-part2", version = "1.0.0", sha256 = "{sha256(part2.read_bytes())}" }},
]

[models.{WHISPER}.files."model.bin"]
size = {len(PART1 + PART2)}
sha256 = "{sha256(PART1 + PART2)}"
parts = ["vm_test_tiny_part1/data/model.bin.part1", "vm_test_tiny_part2/data/model.bin.part2"]

[models.{WHISPER}.files."config.json"]
sha256 = "{sha256(CONFIG)}"
parts = ["vm_test_tiny_part1/data/config.json"]
"""
    (tmp_path / "manifest.toml").write_text(text)
    root = tmp_path / "models"
    monkeypatch.setenv("VOICEMASTER_MANIFEST", str(tmp_path / "manifest.toml"))
    monkeypatch.setenv("VOICEMASTER_MODELS_DIR", str(root))
    monkeypatch.delenv("VOICEMASTER_MODELS_MIRROR", raising=False)
    monkeypatch.setattr(download, "RETRY_PAUSE_SECONDS", 0.0)
    return World(tmp_path, root, archive, wheels, load_manifest())


def leftovers(root: Path) -> list[str]:
    """Temporary folders and partial downloads an install must not leave behind."""
    return sorted(path.name for path in root.iterdir() if path.name.startswith(".") or path.name.endswith(".part"))


# The committed manifest


def test_the_committed_manifest_lists_the_vosk_small_models_and_whisper_base() -> None:
    manifest = load_manifest(MODELS_MANIFEST)
    vosk = {spec.language: spec for spec in manifest.values() if spec.engine == "vosk"}
    assert set(vosk) == {"de", "en", "fr"}
    for spec in vosk.values():
        assert spec.url == f"https://alphacephei.com/vosk/models/{spec.name}.zip"
        assert len(spec.sha256) == 64
        assert 30e6 < spec.size < 60e6
    whisper = manifest["whisper-base"]
    assert whisper.setup and all(whisper.serves(language) for language in ("de", "en", "fr"))
    assert {file.path for file in whisper.files} == {"model.bin", "config.json", "tokenizer.json", "vocabulary.txt"}
    assert all(file.sha256 and file.size for file in whisper.files)
    assert resolve("de", manifest).name == "vosk-model-small-de-0.15"


def test_the_installed_whisper_base_verifies() -> None:
    manifest = load_manifest(MODELS_MANIFEST)
    root = models_dir()
    if not (root / "whisper-base").is_dir():
        pytest.skip("whisper-base is not installed (scripts/setup.sh installs it)")
    status = verify.check(manifest["whisper-base"], root)
    assert status.ok, status.describe()
    assert verify.find_model("whisper", "fr", manifest=manifest, root=root) == root / "whisper-base"


def test_a_manifest_entry_without_a_sha256_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    path.write_text(
        '[models.x]\nengine = "vosk"\nlanguage = "de"\nsize = 10\nurl = "https://e.org/x.zip"\nfiles = ["a"]\n'
    )
    with pytest.raises(ModelError, match="sha256"):
        load_manifest(path)


# Installing


def test_an_archive_is_recognized_by_its_top_folder_and_installed(world: World) -> None:
    renamed = world.archive.rename(world.tmp / "download.zip")
    installed = install.install(renamed, manifest=world.manifest, root=world.root)
    assert installed.path == world.root / VOSK
    assert (installed.path / "am" / "final.mdl").read_bytes() == VOSK_FILES["am/final.mdl"]
    assert verify.installed_path(VOSK, manifest=world.manifest, root=world.root) == installed.path
    assert verify.find_model("vosk", "de", manifest=world.manifest, root=world.root) == installed.path
    assert leftovers(world.root) == []


def test_the_published_archive_is_checked_against_its_sha256(world: World) -> None:
    installed = install.install(world.archive, manifest=world.manifest, root=world.root)
    assert "sha256 of the published archive checked" in installed.how
    tampered = world.tmp / "tampered"
    tampered.mkdir()
    make_zip(tampered / world.archive.name, {**VOSK_FILES, "README": b"something else\n"})
    with pytest.raises(ModelError, match="not the published"):
        install.install(tampered / world.archive.name, manifest=world.manifest, root=world.root)


def test_a_folder_and_a_tar_gz_install_too(world: World) -> None:
    folder = make_folder(world.tmp / VOSK, VOSK_FILES)
    assert install.install(folder, manifest=world.manifest, root=world.root).path == world.root / VOSK
    tarball = world.tmp / "repacked.tar.gz"
    with tarfile.open(tarball, "w:gz") as archive:
        archive.add(folder, arcname=VOSK)
    installed = install.install(tarball, manifest=world.manifest, root=world.root)
    assert "only its files were checked" in installed.how
    assert verify.check(world.vosk, world.root).ok


def test_an_incomplete_model_is_refused_and_nothing_is_left_behind(world: World) -> None:
    incomplete = {name: data for name, data in VOSK_FILES.items() if name != "am/final.mdl"}
    archive = make_zip(world.tmp / "incomplete.zip", incomplete)
    with pytest.raises(ModelError, match=r"missing am/final\.mdl"):
        install.install(archive, manifest=world.manifest, root=world.root)
    assert not (world.root / VOSK).exists()
    assert leftovers(world.root) == []


def test_an_archive_without_a_telling_name_needs_one(world: World) -> None:
    archive = make_zip(world.tmp / "model.zip", VOSK_FILES, top=None)
    with pytest.raises(ModelError, match="--name"):
        install.install(archive, manifest=world.manifest, root=world.root)
    installed = install.install(archive, name=VOSK, manifest=world.manifest, root=world.root)
    assert (installed.path / "conf" / "model.conf").is_file()


def test_a_damaged_archive_is_reported_as_such(world: World) -> None:
    truncated = world.tmp / "truncated.zip"
    truncated.write_bytes(world.archive.read_bytes()[:-200])
    with pytest.raises(ModelError, match="could not be unpacked"):
        install.install(truncated, name=VOSK, manifest=world.manifest, root=world.root)


@pytest.mark.parametrize("filters", [True, False], ids=["tar filters", "Python without tar filters"])
def test_an_archive_reaching_outside_its_folder_is_not_unpacked(
    world: World, monkeypatch: pytest.MonkeyPatch, filters: bool
) -> None:
    if not filters:
        monkeypatch.delattr(tarfile, "data_filter")
    evil = world.tmp / "evil.tar.gz"
    payload = b"overwritten"
    with tarfile.open(evil, "w:gz") as archive:
        member = tarfile.TarInfo("../outside.txt")
        member.size = len(payload)
        archive.addfile(member, io.BytesIO(payload))
    with pytest.raises(ModelError, match="evil"):
        install.install(evil, name=VOSK, manifest=world.manifest, root=world.root)
    assert not (world.root / "outside.txt").exists() and not (world.tmp / "outside.txt").exists()
    assert leftovers(world.root) == []


def test_installing_again_replaces_the_model_whole(world: World) -> None:
    install.install(world.archive, manifest=world.manifest, root=world.root)
    newer = make_folder(world.tmp / VOSK, {**VOSK_FILES, "README": b"newer\n"})
    (world.root / VOSK / "stale-file").write_text("from the old install")
    install.install(newer, manifest=world.manifest, root=world.root)
    assert (world.root / VOSK / "README").read_bytes() == b"newer\n"
    assert not (world.root / VOSK / "stale-file").exists()
    assert leftovers(world.root) == []


def test_wheels_are_checked_and_assembled_into_the_model(world: World) -> None:
    installed = install.install(world.wheels, manifest=world.manifest, root=world.root)
    assert installed.path == world.root / WHISPER
    assert (installed.path / "model.bin").read_bytes() == PART1 + PART2
    assert verify.find_model("whisper", "en", manifest=world.manifest, root=world.root) == installed.path
    assert verify.find_model("whisper", "ko", manifest=world.manifest, root=world.root) is None
    forged = world.tmp / "forged"
    forged.mkdir()
    make_wheel(forged, "vm-test-tiny-part1", {"model.bin.part1": PART2, "config.json": CONFIG})
    make_wheel(forged, "vm-test-tiny-part2", {"model.bin.part2": PART1})
    with pytest.raises(ModelError, match=re.escape("not the published vm-test-tiny-part1==1.0.0")):
        install.install(forged, manifest=world.manifest, root=world.root)


# Finding


def test_a_missing_model_names_the_command_that_installs_it(world: World) -> None:
    assert verify.find_model("vosk", "de", manifest=world.manifest, root=world.root) is None
    with pytest.raises(ModelMissing, match=f"voicemaster models download {VOSK}") as raised:
        verify.require_model("vosk", "de", manifest=world.manifest, root=world.root)
    assert isinstance(raised.value, RuntimeError)
    with pytest.raises(ModelMissing, match="lists no vosk model"):
        verify.require_model("vosk", "fr", manifest=world.manifest, root=world.root)


def test_a_model_with_a_missing_file_is_not_found(world: World) -> None:
    install.install(world.archive, manifest=world.manifest, root=world.root)
    (world.root / VOSK / "graph" / "HCLr.fst").unlink()
    assert verify.installed_path(VOSK, manifest=world.manifest, root=world.root) is None


# Verifying


def test_verify_reports_missing_and_corrupt_files(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    install.install(world.archive, manifest=world.manifest, root=world.root)
    assert main(["models", "verify"]) == 0
    (world.root / VOSK / "conf" / "model.conf").unlink()
    graph = world.root / VOSK / "graph" / "Gr.fst"
    graph.write_bytes(graph.read_bytes().replace(b"grammar", b"GRAMMAR"))  # same size, other bytes
    capsys.readouterr()
    assert main(["models", "verify"]) == 1
    out = capsys.readouterr().out
    assert "missing conf/model.conf" in out
    assert "corrupt (size or sha256 differs) graph/Gr.fst" in out
    assert f"voicemaster models download {VOSK}" in out


def test_a_hand_made_model_is_verified_against_the_manifest_sums(world: World) -> None:
    folder = make_folder(world.root / WHISPER, {"model.bin": PART1 + PART2, "config.json": CONFIG})
    assert verify.check(world.manifest[WHISPER], world.root).ok
    (folder / "config.json").write_bytes(CONFIG.upper())
    assert verify.check(world.manifest[WHISPER], world.root).corrupt == ("config.json",)


# Downloading


@dataclass
class Served:
    """What the test server sends, and what it was asked."""

    body: bytes
    drop_first_after: int | None = None
    honor_range: bool = True
    ranges: list[str | None] = field(default_factory=list)


@pytest.fixture
def server() -> Iterator[tuple[str, Served]]:
    served = Served(b"")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked = self.headers.get("Range")
            served.ranges.append(asked)
            body, start = served.body, 0
            if asked and served.honor_range:
                start = int(asked.removeprefix("bytes=").rstrip("-"))
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(len(body) - start))
            self.end_headers()
            if served.drop_first_after is not None and len(served.ranges) == 1:
                self.wfile.write(body[: served.drop_first_after])
                return  # the connection closes with the body half sent
            self.wfile.write(body[start:])

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/{VOSK}.zip", served
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def test_a_download_dropped_half_way_resumes_and_installs(world: World, server: tuple[str, Served]) -> None:
    url, served = server
    served.body = world.archive.read_bytes()
    half = len(served.body) // 2
    served.drop_first_after = half
    log = io.StringIO()
    installed = download.download(world.vosk, root=world.root, url=url, stream=log)
    assert served.ranges == [None, f"bytes={half}-"]
    assert verify.check(world.vosk, world.root).ok and installed.path == world.root / VOSK
    assert "resuming at" in log.getvalue() and "100%" in log.getvalue()
    assert leftovers(world.root) == []


def test_a_part_file_from_an_earlier_run_is_resumed(world: World, server: tuple[str, Served]) -> None:
    url, served = server
    served.body = world.archive.read_bytes()
    world.root.mkdir()
    (world.root / f"{VOSK}.zip.part").write_bytes(served.body[:1000])
    download.download(world.vosk, root=world.root, url=url, stream=io.StringIO())
    assert served.ranges == ["bytes=1000-"]
    assert verify.check(world.vosk, world.root).ok


def test_a_server_that_cannot_resume_sends_the_whole_file_again(world: World, server: tuple[str, Served]) -> None:
    url, served = server
    served.body = world.archive.read_bytes()
    served.honor_range = False
    world.root.mkdir()
    (world.root / f"{VOSK}.zip.part").write_bytes(b"x" * 1000)  # not even a prefix of the file: must not survive
    download.download(world.vosk, root=world.root, url=url, stream=io.StringIO())
    assert verify.check(world.vosk, world.root).ok
    assert served.ranges == ["bytes=1000-"]  # one request: the full answer replaced the part file


def test_a_download_with_another_sha256_is_deleted_not_installed(world: World, server: tuple[str, Served]) -> None:
    url, served = server
    served.body = bytes(reversed(world.archive.read_bytes()))
    with pytest.raises(ModelError, match="nothing was installed"):
        download.download(world.vosk, root=world.root, url=url, stream=io.StringIO())
    assert not (world.root / VOSK).exists()
    assert leftovers(world.root) == []


def test_an_unreachable_server_says_how_to_install_without_internet(world: World) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ModelError, match=f"voicemaster models install {VOSK}.zip"):
        download.download(world.vosk, root=world.root, url=f"http://127.0.0.1:{port}/x.zip", stream=io.StringIO())


def test_download_from_the_command_line(
    world: World, server: tuple[str, Served], capsys: pytest.CaptureFixture[str]
) -> None:
    url, served = server
    served.body = world.archive.read_bytes()
    assert main(["models", "download", "de", "--url", url]) == 0
    assert f"{VOSK} installed in {world.root / VOSK}" in capsys.readouterr().out
    assert main(["models", "download", VOSK]) == 0  # intact already: no request
    assert "installed and intact" in capsys.readouterr().out
    assert len(served.ranges) == 1
    assert main(["models", "download", "xx"]) == 2
    assert "no model 'xx'" in capsys.readouterr().err


def test_wheels_are_downloaded_by_pip_with_their_pinned_hashes(world: World) -> None:
    options = ["--no-index", "--find-links", str(world.wheels), "--quiet"]
    installed = download.download(world.manifest[WHISPER], root=world.root, pip_options=options)
    assert (installed.path / "model.bin").read_bytes() == PART1 + PART2
    assert leftovers(world.root) == []


def test_the_progress_bar_redraws_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    progress = download.Progress("model", 2_000_000, screen)
    progress.start(0)
    progress.advance(2_000_000)
    progress.finish()
    assert "\rmodel [" in screen.getvalue() and "100% 2.0 MB of 2.0 MB" in screen.getvalue()


# Set-up


def test_setup_installs_from_a_shared_folder_then_only_checks(world: World) -> None:
    shared = world.tmp / "shared"
    shared.mkdir()
    world.archive.rename(shared / world.archive.name)
    for wheel in world.wheels.iterdir():
        wheel.rename(shared / wheel.name)
    first = download.setup(manifest=world.manifest, root=world.root, shared=shared)
    assert first == [
        f"{VOSK}: unpacked from {shared / f'{VOSK}.zip'}, sha256 of the published archive checked",
        f"{WHISPER}: assembled from the wheels in {shared}, sha256 of wheels and files checked",
    ]
    again = download.setup(manifest=world.manifest, root=world.root, shared=shared)
    assert again == [f"{VOSK}: installed, ok (6 files checked)", f"{WHISPER}: installed, ok (2 files checked)"]


def test_setup_without_a_shared_folder_installs_only_what_tests_need(world: World) -> None:
    install.install(world.wheels, manifest=world.manifest, root=world.root)
    lines = download.setup(manifest=world.manifest, root=world.root, shared=world.tmp / "no-such-folder")
    assert lines == [f"{WHISPER}: installed, ok (2 files checked)"]
    assert not (world.root / VOSK).exists()


def test_list_shows_what_is_installed(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "install", str(world.wheels)]) == 0
    capsys.readouterr()
    assert main(["models", "list"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert rows[VOSK].endswith(" no") and " de " in rows[VOSK]
    assert rows[WHISPER].endswith(" yes") and " multi " in rows[WHISPER]


def test_install_of_a_missing_path_fails_with_a_message(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "install", str(world.tmp / "nowhere.zip")]) == 2
    assert "nowhere.zip: no such file or folder" in capsys.readouterr().err


def test_kokoro_can_come_as_its_released_file_checked_against_the_manifest(
    world: World, server: tuple[str, Served]
) -> None:
    """Users with internet may fetch Kokoro's one file where its authors publish it, instead of the four PyPI parts."""
    shipped = load_manifest(MODELS_MANIFEST)
    kokoro = shipped["kokoro-82m"]
    checkout = paths.checkout()
    assert checkout is not None
    installed_file = verify.installed_path("kokoro-82m", manifest=shipped, root=checkout / "models")
    assert installed_file is not None, "set-up installs Kokoro (make test)"
    url, served = server
    served.body = (installed_file / "kokoro-v1.0.int8.onnx").read_bytes()
    installed = download.download(kokoro, root=world.root, url=url, stream=io.StringIO())
    assert installed.path == world.root / "kokoro-82m" and verify.check(kokoro, world.root).ok
    served.body = served.body[:-1] + b"\0"  # not the published file: refused, nothing left behind
    with pytest.raises(ModelError, match=re.escape("is not that of kokoro-v1.0.int8.onnx")):
        download.download(kokoro, root=world.tmp / "other", url=url, stream=io.StringIO())
    assert leftovers(world.tmp / "other") == [] and not (world.tmp / "other" / "kokoro-82m").exists()
    with pytest.raises(ModelError, match="made of several files"):
        download.download(world.manifest[WHISPER], root=world.root, url=url)
