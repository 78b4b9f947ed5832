"""Hypothesis runs derandomized, so a test run is reproducible and the coverage figure does not wander."""

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True)
settings.load_profile("repeatable")
