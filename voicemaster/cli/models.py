"""`voicemaster models ...`: list, install, download, verify and set up the speech models (`models/`)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType


def run(args: argparse.Namespace) -> int:
    """The `models` action asked for. Stopped by Ctrl-C or a TERM signal, it ends as an interrupted install ends:
    the half-made model removed, a half-fetched download kept to be resumed."""
    main_thread = threading.current_thread() is threading.main_thread()  # where Python lets signals be handled
    previous = signal.signal(signal.SIGTERM, _interrupted) if main_thread else None
    try:
        result: int = args.models_action(args)
    except KeyboardInterrupt:
        print("\nvoicemaster: interrupted; run the same command again to resume a download", file=sys.stderr)
        return 130
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
    return result


def _interrupted(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _tidy(root: Path) -> None:
    """What an install stopped by a kill left in the models folder: removed (or put back), and said."""
    from voicemaster.models.staging import leftovers_removed

    for note in leftovers_removed(root):
        print(f"models: {note}", file=sys.stderr)


def list_models(_args: argparse.Namespace) -> int:
    from voicemaster.models.manifest import load_manifest, models_dir
    from voicemaster.models.verify import check

    root = models_dir()
    print(f"{'model':<28} {'engine':<8} {'language':<9} {'download':>8}  installed")
    for spec in load_manifest().values():
        status = check(spec, root, full=False)
        installed = "yes" if status.ok else "incomplete (see: models verify)" if status.present else "no"
        print(f"{spec.name:<28} {spec.engine:<8} {spec.language:<9} {spec.size / 1e6:>5.0f} MB  {installed}")
    print(f"\nModels live in {root}. Install one with: voicemaster models download NAME")
    return 0


def install(args: argparse.Namespace) -> int:
    from voicemaster.models.install import install as install_model
    from voicemaster.models.manifest import load_manifest, models_dir

    _tidy(models_dir())
    installed = install_model(args.path, name=args.name, manifest=load_manifest(), root=models_dir())
    print(f"{installed.spec.name} installed in {installed.path}: {installed.how}")
    for line in make_derived(models_dir(), only=installed.spec.name):
        print(f"models: {line}")
    return 0


def download(args: argparse.Namespace) -> int:
    from voicemaster.models.download import download as download_model
    from voicemaster.models.manifest import load_manifest, models_dir, resolve
    from voicemaster.models.verify import check

    root = models_dir()
    _tidy(root)
    spec = resolve(args.name, load_manifest())
    if not args.force and check(spec, root).installed:
        print(f"{spec.name} is installed and intact in {root / spec.name} (--force downloads it again)")
    else:
        installed = download_model(spec, root=root, url=args.url)
        print(f"{spec.name} installed in {installed.path}: {installed.how}")
    for line in make_derived(root, only=spec.name):
        print(f"models: {line}")
    return 0


def verify(_args: argparse.Namespace) -> int:
    from voicemaster.models.manifest import load_manifest, models_dir
    from voicemaster.models.verify import verify as verify_models

    root = models_dir()
    checks = verify_models(load_manifest(), root)
    for status in checks:
        print(f"{status.spec.name}: {status.describe()}")
    problems = sum(not status.ok for status in checks)
    print(f"{len(checks)} installed model(s) in {root} checked, {problems} with problems.", file=sys.stderr)
    return 1 if problems else 0


def setup(args: argparse.Namespace) -> int:
    from voicemaster.models.download import setup as set_up_models
    from voicemaster.models.manifest import load_manifest, models_dir, shared_dir

    shared = args.shared or shared_dir()
    _tidy(models_dir())
    for line in [
        *set_up_models(manifest=load_manifest(), root=models_dir(), shared=shared),
        *make_derived(models_dir()),
    ]:
        print(f"models: {line}")
    return 0


def make_derived(root: Path, only: str | None = None) -> list[str]:
    """Makes what set-up derives from each installed model (`models/derived.py`) where it is missing, damaged or
    made by another version of its maker; what is intact is left alone (its sums are checked)."""
    from voicemaster.models.derived import unmade
    from voicemaster.models.manifest import load_manifest
    from voicemaster.models.verify import check
    from voicemaster.speech.hearing.whisper import runtime_graphs

    makers = {"whisper": (runtime_graphs.MADE_BY, runtime_graphs.make)}
    lines = []
    for spec in load_manifest().values():
        if not spec.derived or (only is not None and spec.name != only) or spec.engine not in makers:
            continue
        made_by, make = makers[spec.engine]
        status = check(spec, root)
        if not status.installed:
            continue
        if not status.unmade and not unmade(spec, status.path, made_by):
            lines.append(f"{spec.name}: {', '.join(spec.derived)} made, intact")
            continue
        make(spec.derived, status.path)
        lines.append(f"{spec.name}: made {', '.join(spec.derived)} from the model")
    return lines
