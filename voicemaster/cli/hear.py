"""`voicemaster hear` and `voicemaster devices`: what the recognizer makes of recordings, and the microphones and
speakers there are: what to check when a game does not hear the players."""

from __future__ import annotations

import argparse
import json
import sys

from voicemaster.cli.settings import settings_for
from voicemaster.dialogue.meaning import ContextName

HEAR_SECONDS = 30
"""What `hear` decodes of a recording: one utterance is far shorter, and an hour of audio took gigabytes."""


def hear(args: argparse.Namespace) -> int:
    from voicemaster.dialogue.meaning import Context
    from voicemaster.speech.hearing.engines import open_recognizer
    from voicemaster.speech.sound_file import read_recording

    language = args.lang or settings_for(args).game.language
    options = tuple(text.strip() for text in args.options.split("|") if text.strip())
    names = tuple(text.strip() for text in args.names.split("|") if text.strip())
    context = Context(ContextName(args.context), language, options, names)
    try:
        heads = [read_recording(path, HEAR_SECONDS) for path in args.files]
    except (OSError, ValueError) as error:
        print(f"voicemaster: cannot read a recording: {error}", file=sys.stderr)
        return 2
    recordings = [audio for audio, _ in heads]
    for path, (audio, seconds) in zip(args.files, heads, strict=True):
        if seconds > audio.seconds + 0.01:
            print(
                f"voicemaster: {path} is {seconds:.0f} s long; only its first {HEAR_SECONDS} s are heard (one "
                "utterance: cut the recording to the part that matters).",
                file=sys.stderr,
            )
    recognizer = open_recognizer(args.engine, language)
    for path, audio in zip(args.files, recordings, strict=True):
        heard = recognizer.recognize(audio, context)
        if args.json:
            fields = ("intent", "value", "text", "confidence", "decode_ms")
            print(json.dumps({field: getattr(heard, field) for field in fields}, ensure_ascii=False), flush=True)
        else:
            meaning = heard.intent + (f" {heard.value}" if heard.value else "")
            print(
                f"{path}: {meaning} (heard {heard.text!r}, confidence {heard.confidence:.2f}, {heard.decode_ms:.0f} ms)"
            )
    return 0


def devices(_args: argparse.Namespace) -> int:
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
    if not microphones or not speakers:
        print(f"voicemaster: a game needs a microphone and a speaker: {NO_DEVICE_HINT}.", file=sys.stderr)
        return 1
    print("* the default device")
    return 0
