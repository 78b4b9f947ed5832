# The two commands of the README. Each does all set-up first, idempotently.
.PHONY: demo test setup

setup:
	./scripts/setup.sh

demo: setup
	.venv/bin/voicemaster demo

test: setup
	./scripts/check.sh
