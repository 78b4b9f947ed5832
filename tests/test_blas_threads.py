"""The numpy decoder runs on one BLAS thread unless the user says otherwise (issue 27: the default threads spun and
made a decision several times slower on a busy two-core machine; `voicemaster bench live` shows the figures)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

COUNT_THREADS = """
import voicemaster.cli.app  # the entry point, as `voicemaster` and `python -m voicemaster` import it
import numpy as np
a = np.ones((256, 256), dtype=np.float32)
for _ in range(20):
    a = a @ a / 256
threads = next(line for line in open("/proc/self/status") if line.startswith("Threads:"))
print(os.environ.get("OPENBLAS_NUM_THREADS"), int(threads.split()[1]))
"""


def _run(environment: dict[str, str]) -> tuple[str, int]:
    shown = subprocess.run(
        [sys.executable, "-c", "import os\n" + COUNT_THREADS], env=environment, capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    setting, threads = shown.stdout.split()
    return setting, int(threads)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="counts threads in /proc")
def test_the_program_multiplies_matrices_on_one_thread_and_the_user_may_say_more() -> None:
    environment = {name: value for name, value in os.environ.items() if name != "OPENBLAS_NUM_THREADS"}
    assert _run(environment) == ("1", 1)  # no BLAS worker beside the main thread
    setting, threads = _run({**environment, "OPENBLAS_NUM_THREADS": "2"})
    assert setting == "2" and threads == min(2, os.cpu_count() or 1)  # OpenBLAS takes no more threads than cores
