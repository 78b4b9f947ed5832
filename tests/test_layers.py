"""The packages' arrows run one way: a package imports only from the layers below it (docs/architecture.md).

A newcomer can then read the tree bottom-up, and the pure parts (rules, the dialogue in host/) stay testable without
devices, models or a store. The lab sits beside the product: it imports the product, never the other way. The maps
here are the ones docs/architecture.md draws; change both together.
"""

from __future__ import annotations

import ast
from pathlib import Path

import voicemaster
import voicemaster_lab

PACKAGE = Path(voicemaster.__file__).parent
LAB = Path(voicemaster_lab.__file__).parent

LAYERS: tuple[tuple[str, ...], ...] = (
    # What everything may use: where files are, what to install, reading TOML, what text may be spoken; and the
    # rules engine, which is pure.
    (
        "voicemaster",
        "voicemaster.paths",
        "voicemaster.hints",
        "voicemaster.speakable",
        "voicemaster.config.files",
        "voicemaster.config.voice",
        "voicemaster.rules",
    ),
    # The dialogue's vocabulary: what may be said and what it meant, the quizmaster's effects. Pure data.
    ("voicemaster.dialogue",),
    # The question bank, the speech models on disk, the game store; the audio clip every speech part passes around.
    (
        "voicemaster.questions",
        "voicemaster.models",
        "voicemaster.store",
        "voicemaster.speech.audio",
        "voicemaster.speech.cores",
        "voicemaster.speech.signal",
        "voicemaster.speech.sound_file",
        # What travels down the listening path (a frame and what the front end judged of it), barge-in (its numbers
        # and its stage), and the acoustic front end: frames and their reference in, judged frames out; the devices
        # feed it.
        "voicemaster.speech.frame",
        "voicemaster.speech.barge_in",
        "voicemaster.speech.frontend",
    ),
    ("voicemaster.speech.devices",),
    # Hearing and the voice use the devices and the models; neither needs the other.
    ("voicemaster.speech.hearing", "voicemaster.speech.voice"),
    # The settings schema names voices and rules.
    ("voicemaster.config.settings", "voicemaster.config"),
    # The quizmaster's dialogue: pure, fed what was heard.
    ("voicemaster.host",),
    # Its I/O shell: live play, the demo, the simulated players; the screen for the room, which watches them.
    ("voicemaster.play", "voicemaster.screen", "voicemaster.phones"),
    # The always-ready quizmaster: waits, and plays each game asked for through live play.
    ("voicemaster.serve",),
    ("voicemaster.cli", "voicemaster.__main__"),
)
LAB_LAYERS: tuple[tuple[str, ...], ...] = (
    # What is measured on (recordings of people, voices saying what players say) and the private sound bus.
    ("voicemaster_lab", "voicemaster_lab.corpora"),
    ("voicemaster_lab.harness",),
    # The measurements and drills, each on its own; timing reuses how asr samples and the harness's player.
    ("voicemaster_lab.asr", "voicemaster_lab.faults"),
    ("voicemaster_lab.timing",),
    ("voicemaster_lab.cli",),
)
SIBLINGS_APART = {("voicemaster.speech.hearing", "voicemaster.speech.voice")}
NOT_YET: set[str] = set()
"""Arrows that still run up, each to be removed by the work named; none may be added."""


def _unit(module: str, layers: tuple[tuple[str, ...], ...] = LAYERS) -> tuple[int, str]:
    """The layer of a module and the unit (package or module) it belongs to: the longest name in the map."""
    best: tuple[int, str] | None = None
    for layer, units in enumerate(layers):
        for unit in units:
            if (module == unit or module.startswith(unit + ".")) and (best is None or len(unit) > len(best[1])):
                best = (layer, unit)
    assert best is not None, f"{module} is in no layer of the map"
    return best


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("voicemaster"):
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                is_module = any(
                    (root.parent / candidate.replace(".", "/")).with_suffix(".py").is_file() for root in (PACKAGE, LAB)
                )
                found.add(candidate if is_module else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("voicemaster"))
    return found


def _arrows(package: Path = PACKAGE) -> list[tuple[str, str]]:
    arrows = []
    for path in sorted(package.rglob("*.py")):
        module = ".".join(path.relative_to(package.parent).with_suffix("").parts).removesuffix(".__init__")
        arrows += [(module, imported) for imported in _imports(path)]
    return arrows


def test_every_module_is_on_the_map() -> None:
    for module, _ in _arrows():
        _unit(module)


def test_no_import_runs_back_up_a_layer() -> None:
    upward = []
    for module, imported in _arrows():
        (low, low_unit), (high, high_unit) = _unit(imported), _unit(module)
        if low > high or (
            low == high and (low_unit, high_unit) in SIBLINGS_APART | {(b, a) for a, b in SIBLINGS_APART}
        ):
            upward.append(f"{module} -> {imported}")
    assert sorted(set(upward) - NOT_YET) == []
    assert sorted(NOT_YET - set(upward)) == [], "an arrow fixed: take it off NOT_YET"


def test_no_product_module_imports_the_lab() -> None:
    assert [f"{m} -> {i}" for m, i in _arrows() if i.startswith("voicemaster_lab")] == []


def test_the_labs_arrows_run_one_way() -> None:
    upward = []
    for module, imported in _arrows(LAB):
        if imported.startswith("voicemaster_lab") and _unit(imported, LAB_LAYERS)[0] > _unit(module, LAB_LAYERS)[0]:
            upward.append(f"{module} -> {imported}")
    assert upward == []


def _patches(path: Path) -> list[str]:
    """Where a file changes the product at run time: an attribute of an imported product module assigned, `setattr`
    on one, or a `mock.patch` of a product name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("voicemaster."):
            for alias in node.names:
                if (PACKAGE.parent / f"{node.module}.{alias.name}".replace(".", "/")).with_suffix(".py").is_file():
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules.update(alias.asname or alias.name for alias in node.names if alias.name.startswith("voicemaster."))
    found = []
    for node in ast.walk(tree):
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        )
        for target in targets:
            if isinstance(target, ast.Attribute) and ast.unparse(target.value) in modules:
                found.append(f"{path.name}:{target.lineno} assigns {ast.unparse(target)}")
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            first = ast.unparse(node.args[0]) if node.args else ""
            if name == "setattr" and first in modules:
                found.append(f"{path.name}:{node.lineno} setattr on {first}")
            if name.endswith("patch") and first.strip("'\"").startswith("voicemaster."):
                found.append(f"{path.name}:{node.lineno} patches {first}")
    return found


def test_no_bench_patches_the_product_at_run_time() -> None:
    """A bench measures the game's own pipeline, built through the constructor a game uses with its sources and
    sinks passed in: one that swapped the product's functions would measure something else."""
    assert [found for path in sorted(LAB.rglob("*.py")) for found in _patches(path)] == []


def test_a_patch_of_the_product_is_seen(tmp_path: Path) -> None:
    patched = tmp_path / "bench.py"
    patched.write_text("from voicemaster.play import live\nlive.open_ear = print\nsetattr(live, 'x', 1)\n")
    assert _patches(patched) == ["bench.py:2 assigns live.open_ear", "bench.py:3 setattr on live"]


def _circles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The groups of nodes that reach each other (strongly connected, more than one node)."""
    graph: dict[str, set[str]] = {}
    for start, end in edges:
        if start != end:
            graph.setdefault(start, set()).add(end)
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for after in sorted(graph.get(node, ())):
            if after not in order:
                visit(after)
                low[node] = min(low[node], low[after])
            elif after in stack:
                low[node] = min(low[node], order[after])
        if low[node] == order[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return found


def _speech_part(module: str) -> str | None:
    """The part of speech/ a module belongs to (`voicemaster.speech.hearing` for the whisper engine too); None
    outside its folders."""
    parts = module.split(".")
    folder = ".".join(parts[:3])
    is_folder = len(parts) >= 3 and parts[1] == "speech" and (PACKAGE.parent / folder.replace(".", "/")).is_dir()
    return folder if is_folder else None


def test_no_circle_between_modules_nor_between_the_parts_of_speech() -> None:
    """A module's imports never lead back to it, nor those of one part of speech/ (devices, front end, barge-in,
    hearing, voice) to that part: each can be read knowing only what it imports. (Elsewhere a folder's modules may
    sit on different layers, as `config/` does, and the layer map orders them one by one.)"""
    arrows = set(_arrows())
    assert _circles(arrows) == []
    parts = {(_speech_part(a), _speech_part(b)) for a, b in arrows}
    assert _circles({(a, b) for a, b in parts if a is not None and b is not None}) == []


def test_a_circle_is_found() -> None:
    assert _circles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}) == [["a", "b", "c"]]
