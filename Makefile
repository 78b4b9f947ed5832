# The two commands of the README. Each does all set-up first, idempotently.
.PHONY: demo test test-fast test-slow setup

setup:
	./scripts/setup.sh

demo: setup
	.venv/bin/voicemaster demo

test: setup
	./scripts/check.sh

# The pure tier, for a developer between two edits (after one `make setup`): no speech model, no sound, no
# browser, nothing slow; under a minute (docs/benchmarks.md, "Tests").
test-fast:
	.venv/bin/pytest -n 2 -m "not model and not audio and not browser and not slow"

# The long real-time games the default suite leaves out (CI runs them too).
test-slow: setup
	.venv/bin/pytest -m slow
