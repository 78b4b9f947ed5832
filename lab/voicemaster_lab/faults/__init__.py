"""Fault drills: games killed and resumed, fuzzed files, a damaged store, missing devices (`bench faults`)."""
