#!/usr/bin/env bash
# The whole test command: the quality gates, then the test suite with branch coverage of the rules engine.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
"$bin/ruff" check .
"$bin/ruff" format --check .
"$bin/mypy" --strict voicemaster lab/voicemaster_lab
# Two workers: the tests decode and render on one thread each (BLAS is pinned to one), so both cores are used.
"$bin/pytest" -n 2 --cov=voicemaster.rules --cov-branch --cov-report=term-missing:skip-covered "$@"
