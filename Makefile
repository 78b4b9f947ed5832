# The two commands of the README. Each does all set-up first, idempotently.
.PHONY: demo test test-fast test-slow coverage setup

setup:
	./scripts/setup.sh

demo: setup
	.venv/bin/voicemaster demo

test: setup
	./scripts/check.sh

# The pure tier, for a developer between two edits (after one `make setup`): no speech model, no sound, no
# browser, nothing slow; under a minute (docs/benchmarks.md, "Tests"). Its files go to memory (/dev/shm) where
# there is one: the store flushes every step to disk, which a developer's loop need not wait for; `make test`
# writes to the disk, as a game does. Python keeps its bytecode even where the shell says not to
# (PYTHONDONTWRITEBYTECODE): many of its tests start the command line in a new process, which compiles it anew.
test-fast:
	PYTHONDONTWRITEBYTECODE= TMPDIR="$$(test -w /dev/shm && echo /dev/shm || echo "$${TMPDIR:-/tmp}")" \
		.venv/bin/pytest -n 2 -m "not model and not audio and not browser and not slow"

# The long real-time games the default suite leaves out (CI runs them too), two at a time as the default suite
# runs: none of them may depend on an idle machine. Each worker takes the next test when it is free (worksteal),
# so that the longest games do not queue behind one worker while the other waits.
test-slow: setup
	.venv/bin/pytest -m slow -n 2 --dist worksteal --durations=25

# The default suite again under coverage's tracer, with branch coverage of the whole product package and its floor
# (just below what the suite covered when the floor was set: docs/benchmarks.md, "Tests"). CI runs it after the slow
# suite; `make test` leaves the tracer out, as it makes the recognizer's search (pure Python) half as slow again.
coverage: setup
	.venv/bin/pytest -n 2 --dist worksteal --cov=voicemaster --cov-branch --cov-report=term:skip-covered \
		--cov-fail-under=88
