#!/usr/bin/env bash
# The whole test command: the quality gates, then the test suite with branch coverage of the rules engine.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
"$bin/ruff" check .
"$bin/ruff" format --check .
"$bin/mypy" --strict voicemaster
"$bin/pytest" --cov=voicemaster.rules --cov-branch --cov-report=term-missing:skip-covered "$@"
