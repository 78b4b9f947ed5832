# The two commands of the README. Each does all set-up first, idempotently.
.PHONY: demo test test-slow setup

setup:
	./scripts/setup.sh

demo: setup
	.venv/bin/voicemaster demo

test: setup
	./scripts/check.sh

# The long real-time games the default suite leaves out (CI runs them too).
test-slow: setup
	.venv/bin/pytest -m slow
