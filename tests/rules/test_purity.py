"""The rules engine is a plain library: importing it loads only the standard library."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
before = set(sys.modules)
import voicemaster.rules, voicemaster.rules.moneydrop, voicemaster.rules.simulate
loaded = set(sys.modules) - before
print("\\n".join(sorted(m for m in loaded
    if m.split('.')[0] not in sys.stdlib_module_names and not m.startswith('voicemaster.rules')
    and m != 'voicemaster')))
"""


def test_importing_the_rules_loads_nothing_from_outside_the_standard_library() -> None:
    shown = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == ""


def test_the_rules_read_no_clock_and_no_global_random() -> None:
    from pathlib import Path

    import voicemaster.rules

    for source in Path(voicemaster.rules.__file__).parent.glob("*.py"):
        text = source.read_text(encoding="utf-8")
        for forbidden in ("import time", "datetime", "random.random(", "random.choice(", "open(", "print("):
            assert forbidden not in text, (source.name, forbidden)
