"""`bench faults`, files and inputs (faults/inputs.py): every fault made as a user or a disk would make it, met by
the real command as promised, with no traceback and no hang; those that need the installed speech models are the
product's own tests (tests/cli/test_hostile_inputs.py, tests/cli/test_files_written.py)."""

from __future__ import annotations

import pytest

from voicemaster_lab.faults import inputs

pytestmark = pytest.mark.usefixtures("user_folders")


@pytest.mark.slow  # a whole bench run; the default suite keeps its ten minutes
def test_every_file_and_input_fault_is_met_as_promised() -> None:
    figures = inputs.run(models=False)
    assert figures["faults"] == len(inputs.FAULTS)
    wrong = [outcome for outcome in figures["outcomes"] if not outcome["right"]]
    assert (figures["tracebacks"], figures["hung"], wrong) == (0, 0, []), "\n".join(inputs.report(figures))
    assert set(figures["per_kind"]) == {
        "nesting and numbers",
        "special files",
        "sizes",
        "full disk and missing places",
        "kills and races",
    }


def test_a_wrong_answer_is_counted_as_such() -> None:
    """A fault met otherwise than promised is counted wrong, with its first line: the drill can fail to agree."""
    from voicemaster_lab.faults.input_files import line, manifest_line

    wrongly = manifest_line("a line naming no recording there is", line(), "a message it will never say")
    figures = inputs.run_faults((("sizes", wrongly),))
    assert (figures["faults"], figures["right"], figures["wrong"]) == (1, 0, 1)


@pytest.mark.parametrize("fault", ["imports_at_once", "killed_install"])
def test_a_command_of_its_own_that_hangs_is_counted_hung_and_the_drill_goes_on(
    fault: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two imports at once, or the install to be killed, still running at the limit (on a loaded machine, once):
    one fault hung, not the whole drill's figures lost to a TimeoutExpired."""
    from voicemaster_lab.faults import input_places

    monkeypatch.setattr(input_places, "LIMIT_SECONDS", 0.01)
    figures = inputs.run_faults((("kills and races", getattr(input_places, fault)),))
    assert (figures["faults"], figures["hung"], figures["right"]) == (1, 1, 0)
