#!/usr/bin/env bash
# The whole test command: the quality gates, then the default test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
"$bin/ruff" check .
"$bin/ruff" format --check .
"$bin/mypy" --strict voicemaster lab/voicemaster_lab tests
# Two workers: the tests decode and render on one thread each (BLAS is pinned to one), so both cores are used;
# a worker that is free takes the next test (worksteal), so that the long ones do not queue behind one worker.
# Without coverage's tracer, which slows the recognizer's search (pure Python) by half again: `make coverage` runs
# the same suite under it, with its floor, and CI runs that too (docs/benchmarks.md, "Tests").
"$bin/pytest" -n 2 --dist worksteal --durations=15 "$@"
