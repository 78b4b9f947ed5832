"""Benchmarks that print figures; they never pass or fail on time."""
