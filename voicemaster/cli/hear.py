"""`voicemaster hear` and `voicemaster devices`: what the recognizer makes of recordings, and the microphones and
speakers there are: what to check when a game does not hear the players."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from voicemaster.cli.settings import settings_for
from voicemaster.dialogue.meaning import ContextName

if TYPE_CHECKING:
    from voicemaster.config.settings import Settings
    from voicemaster.dialogue.meaning import Heard
    from voicemaster.speech.audio import Audio

HEAR_SECONDS = 30
"""What `hear` decodes of a recording: one utterance is far shorter, and an hour of audio took gigabytes."""


def hear(args: argparse.Namespace) -> int:
    if args.manifest is not None:
        if args.files:
            print("voicemaster: give recordings or --manifest, not both", file=sys.stderr)
            return 2
        return hear_manifest(args)
    if not args.files or args.context is None:
        print("voicemaster: hear needs recordings and --context, or --manifest FILE.jsonl", file=sys.stderr)
        return 2
    from voicemaster.dialogue.meaning import Context
    from voicemaster.speech.hearing.engines import open_recognizer

    language = args.lang or settings_for(args).game.language
    options = tuple(text.strip() for text in args.options.split("|") if text.strip())
    names = tuple(text.strip() for text in args.names.split("|") if text.strip())
    context = Context(ContextName(args.context), language, options, names)
    try:  # every recording checked (its header) before the model loads; each read only when it is heard
        for path in args.files:
            _check(path)
    except (OSError, ValueError) as error:
        print(f"voicemaster: cannot read a recording: {_said(error)}", file=sys.stderr)
        return 2
    recognizer = open_recognizer(args.engine, language)
    for path in args.files:
        try:
            audio = _read(path)
        except (OSError, ValueError) as error:  # changed or removed since it was checked
            print(f"voicemaster: cannot read a recording: {_said(error)}", file=sys.stderr)
            return 2
        heard = recognizer.recognize(audio, context)
        if args.json:
            print(json.dumps(_as_json(heard), ensure_ascii=False), flush=True)
        else:
            meaning = heard.intent + (f" {heard.value}" if heard.value else "")
            print(
                f"{path}: {meaning} (heard {heard.text!r}, confidence {heard.confidence:.2f}, {heard.decode_ms:.0f} ms)"
            )
    return 0


def hear_manifest(args: argparse.Namespace) -> int:
    """Every recording of a manifest in its own context, the models loaded once; a wrong line or an unreadable
    recording stops before any model is loaded, with one line that names the manifest's line. Each recording is
    checked by its header first and read only when it is heard, so that a manifest naming one long recording on
    many lines holds one of them in memory at a time."""
    from voicemaster.cli.manifest import ManifestError, read_manifest
    from voicemaster.speech.hearing.engines import recognizers

    try:
        entries = read_manifest(args.manifest)
        told: set[Path] = set()
        for entry in entries:
            _checked_entry(args.manifest, entry.line, entry.file, told)
    except ManifestError as error:
        print(f"voicemaster: {error}", file=sys.stderr)
        return 2
    recognizer_for = recognizers(args.engine)
    for entry in entries:
        try:
            audio = _read_entry(args.manifest, entry.line, entry.file)
        except ManifestError as error:  # changed or removed since it was checked
            print(f"voicemaster: {error}", file=sys.stderr)
            return 2
        heard = recognizer_for(entry.context.language).recognize(audio, entry.context)
        if args.json:
            print(json.dumps({"file": entry.said, **_as_json(heard)}, ensure_ascii=False), flush=True)
        else:
            meaning = heard.intent + (f" {heard.value}" if heard.value else "")
            print(f"{entry.said}: {meaning} (heard {heard.text!r}, confidence {heard.confidence:.2f})", flush=True)
    return 0


def _checked_entry(manifest: Path, line: int, file: Path, told: set[Path]) -> None:
    from voicemaster.cli.manifest import ManifestError

    try:
        _check(file, told)
    except (OSError, ValueError) as error:
        raise ManifestError(f"{manifest}:{line}: field 'file': cannot read it: {_said(error)}") from None


def _read_entry(manifest: Path, line: int, file: Path) -> Audio:
    from voicemaster.cli.manifest import ManifestError

    try:
        return _read(file)
    except (OSError, ValueError) as error:
        raise ManifestError(f"{manifest}:{line}: field 'file': cannot read it: {_said(error)}") from None


def _said(error: OSError | ValueError) -> str:
    """An error reading a recording, in one line: a ValueError names the file already; an OSError its file too."""
    if isinstance(error, OSError):
        from voicemaster.file_reading import problem

        return f"{error.filename}: {problem(error)}" if error.filename else problem(error)
    return str(error)


def _check(path: Path, told: set[Path] | None = None) -> None:
    """A recording checked by its header (no sample read), saying on stderr when more than `HEAR_SECONDS` of it
    will be left unheard (once a recording, for those in `told`); a ValueError or OSError for one that cannot be
    heard."""
    from voicemaster.speech.sound_file import recording_seconds

    seconds = recording_seconds(path)
    if told is not None:
        if path in told:
            return
        told.add(path)
    if seconds > HEAR_SECONDS + 0.01:
        print(
            f"voicemaster: {path} is {seconds:.0f} s long; only its first {HEAR_SECONDS} s are heard (one "
            "utterance: cut the recording to the part that matters).",
            file=sys.stderr,
        )


def _read(path: Path) -> Audio:
    """A recording's first `HEAR_SECONDS`."""
    from voicemaster.speech.sound_file import read_recording

    return read_recording(path, HEAR_SECONDS)[0]


def _as_json(heard: Heard) -> dict[str, object]:
    fields = ("intent", "value", "text", "confidence", "decode_ms")
    return {field: getattr(heard, field) for field in fields}


def devices(args: argparse.Namespace) -> int:
    from voicemaster.speech.devices.capture import hears_only_itself, look
    from voicemaster.speech.devices.portaudio import NO_DEVICE_HINT, divert_native_stderr, list_devices

    divert_native_stderr()
    found = list_devices(probe=True)
    microphones = [(device, device.inputs, device.default_input) for device in found if device.inputs]
    if hears_only_itself(look()):  # ALSA's pulse/default open, but would record only what the speaker plays
        microphones = []
    speakers = [(device, device.outputs, device.default_output) for device in found if device.outputs]
    for title, usable in (("Microphones (input)", microphones), ("Speakers (output)", speakers)):
        print(f"{title}:" if usable else f"{title}: none")
        for device, channels, default in usable:
            print(
                f"  {'*' if default else ' '} {device.index:>2}  {device.name} ({device.host_api}), "
                f"{channels} channel(s), {device.default_rate:.0f} Hz"
            )
    print(front_end_line(settings_for(args)))
    if not microphones or not speakers:
        print(f"voicemaster: a game needs a microphone and a speaker: {NO_DEVICE_HINT}.", file=sys.stderr)
        return 1
    print("* the default device")
    return 0


def front_end_line(settings: Settings) -> str:
    """What the acoustic front end does between the microphone and hearing, as the settings and what is installed
    make it, and how to turn each part on or off."""
    from voicemaster.speech.frontend import usable_front_end

    wanted = settings.front_end
    parts = asdict(wanted)
    front_end, why_not = usable_front_end(**parts)
    switches = ", ".join(f"{key} = {str(on).lower()}" for key, on in parts.items())
    if why_not is not None:
        return f"Between microphone and hearing: nothing ({why_not}); [speech] {switches}"
    return f"Between microphone and hearing: {front_end.name}; [speech] {switches}"
