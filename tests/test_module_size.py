"""Modules a newcomer can read whole: none over 450 lines, and no class that is secretly `bytes` (what travels
down the listening path is a `Frame`, a dataclass that says what it holds; issue 46's house rules)."""

from __future__ import annotations

import ast
from pathlib import Path

import voicemaster

PACKAGE = Path(voicemaster.__file__).parent
LONGEST = 450
"""Past this a module holds more than one job; split it by job (docs/architecture.md)."""
BUILTIN_DATA = {"bytes", "bytearray", "str", "int", "float", "tuple", "list", "dict"}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def too_long(paths: list[Path]) -> list[str]:
    return [
        f"{path.relative_to(path.parents[1]).as_posix()}: {count} lines"
        for path in paths
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST
    ]


def data_subclasses(paths: list[Path]) -> list[str]:
    """Classes deriving from a builtin data type, which would carry side data hidden inside plain data: `bytes` as
    well as a typed `tuple[Phrase, ...]`."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = {_named(base) for base in node.bases}
                found += [f"{path.name}: {node.name}({base})" for base in sorted(BUILTIN_DATA.intersection(bases))]
    return found


def _named(base: ast.expr) -> str | None:
    """The name a base class is written with, its type arguments aside: `tuple` for `tuple[Phrase, ...]`."""
    if isinstance(base, ast.Subscript):
        base = base.value
    return base.id if isinstance(base, ast.Name) else None


def test_no_module_is_over_450_lines() -> None:
    assert too_long(_modules()) == []


def test_no_class_hides_in_builtin_data() -> None:
    assert data_subclasses(_modules()) == []


def test_the_checks_see_what_they_look_for(tmp_path: Path) -> None:
    long = tmp_path / "long.py"
    long.write_text("x = 1\n" * 451, encoding="utf-8")
    hidden = tmp_path / "hidden.py"
    hidden.write_text("class CleanedFrame(bytes):\n    echo = None\n", encoding="utf-8")
    typed = tmp_path / "typed.py"
    typed.write_text("class Grammar(tuple[Phrase, ...]):\n    fixed = None\n", encoding="utf-8")
    assert too_long([long]) == [f"{tmp_path.name}/long.py: 451 lines"]
    assert data_subclasses([hidden]) == ["hidden.py: CleanedFrame(bytes)"]
    assert data_subclasses([typed]) == ["typed.py: Grammar(tuple)"]
