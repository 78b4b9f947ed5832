"""Which instructions this CPU has, for the few readings that depend on them.

Whisper's runtimes (CTranslate2, onnxruntime) choose their kernels by the CPU: with AVX-512 they add in another order
than with AVX2 alone, and a clip that lies within a hair of a decision's margin is read otherwise. The suite's
clips were chosen on an AVX2 machine (AMD EPYC); on 2026-12-04 the machine became an Intel Xeon with AVX-512, where
some of them read otherwise (docs/benchmarks.md, "Tests"). A test pinned to such a reading says, strictly, what
each kind of CPU reads: a change on either still fails it.
"""

from __future__ import annotations

from pathlib import Path


def _flags() -> frozenset[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    line = next((line for line in text.splitlines() if line.startswith("flags")), "")
    return frozenset(line.partition(":")[2].split())


AVX512 = "avx512f" in _flags()
"""Whether this CPU has AVX-512, on which the pinned readings come out otherwise."""
