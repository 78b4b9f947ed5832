#!/usr/bin/env bash
# The whole test command: the quality gates, then the test suite with branch coverage of the whole product package.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
"$bin/ruff" check .
"$bin/ruff" format --check .
"$bin/mypy" --strict voicemaster lab/voicemaster_lab tests
# Two workers: the tests decode and render on one thread each (BLAS is pinned to one), so both cores are used;
# a worker that is free takes the next test (worksteal), so that the long ones do not queue behind one worker.
# The floor sits just below what the default suite covered when it was set (docs/benchmarks.md, "Tests").
"$bin/pytest" -n 2 --dist worksteal --cov=voicemaster --cov-branch --cov-report=term:skip-covered --cov-fail-under=88 --durations=15 "$@"
