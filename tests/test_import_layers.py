"""The four floors of ARCHITECTURE.md: every import inside ``qring_edu`` points downward, and there is
no import cycle.

Floors, lowest first:

0. **core** — ``_validate``, ``_result``, ``fixedpoint``, ``ledger``, ``states``;
1. **protocols** — every other module directly in ``qring_edu/`` (``ring``, ``superdense``,
   ``holevo``, ``vga``, ``gapip``, ``tieaudit``, ``costmodel``, ``training``, ``ddp``, and
   any protocol module added later);
2. **experiments** — ``qring_edu.experiments.*``;
3. **presentation** — ``qring_edu.figures.*``, ``qring_edu.widgets.*``, ``qring_edu.exercises.*``.

The package root ``qring_edu/__init__.py`` is the public facade: it may re-export any floor below
presentation, and no module inside the package imports it.

Every ``import`` and ``from ... import`` statement counts, wherever it stands: at module level, in a
function body, or under ``if TYPE_CHECKING:``. The import graph also contains the implicit import of
a subpackage's ``__init__`` (importing ``qring_edu.figures.vga`` runs ``qring_edu/figures/__init__.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "qring_edu"

CORE = {"_validate", "_result", "fixedpoint", "ledger", "states"}
PRESENTATION = ("figures", "widgets", "exercises")
FLOOR_NAMES = ("core", "protocols", "experiments", "presentation")


# ---------------------------------------------------------------------------------------------
# Reading the package
# ---------------------------------------------------------------------------------------------
def module_names(package: Path) -> dict[str, Path]:
    """``{"qring_edu.ring": path, "qring_edu.figures": .../figures/__init__.py, ...}``."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return modules[name].name == "__init__.py"


def imports_of(name: str, modules: dict[str, Path]) -> set[str]:
    """Modules of the package that module ``name`` imports, in any statement anywhere in it
    (relative imports resolved; ``from pkg import sub`` counts as importing ``pkg.sub``)."""
    root = name.split(".")[0]
    tree = ast.parse(modules[name].read_text(encoding="utf-8"), filename=str(modules[name]))
    here = name if _is_package(name, modules) else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
            found.update(t for t in targets if t == root or t.startswith(root + "."))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if not (module == root or module.startswith(root + ".")):
                continue
            found.add(module)
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                if sub in modules:
                    found.add(sub)
    out = set()
    for target in found:
        while target not in modules and "." in target:  # e.g. a name imported from a module
            target = target.rpartition(".")[0]
        if target in modules and target != name:
            out.add(target)
    return out


def explicit_graph(package: Path) -> dict[str, set[str]]:
    """Edges module -> the modules its import statements name."""
    modules = module_names(package)
    return {name: imports_of(name, modules) for name in modules}


def import_graph(package: Path) -> dict[str, set[str]]:
    """:func:`explicit_graph` plus the implicit edge to each enclosing subpackage ``__init__`` of
    an imported module (not to the package root: that is the facade)."""
    root = package.name
    graph = {}
    for name, targets in explicit_graph(package).items():
        edges = set()
        for target in targets:
            edges.add(target)
            parent = target.rpartition(".")[0]
            while parent and parent != root:
                if parent != name and not name.startswith(parent + "."):
                    edges.add(parent)
                parent = parent.rpartition(".")[0]
        graph[name] = edges
    return graph


def floor(name: str) -> int | None:
    """The floor of a module (0 core .. 3 presentation); ``None`` for the facade."""
    parts = name.split(".")
    if len(parts) == 1:
        return None
    if parts[1] in PRESENTATION:
        return 3
    if parts[1] == "experiments":
        return 2
    if len(parts) == 2 and parts[1] in CORE:
        return 0
    return 1


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Upward imports, imports of the facade from inside the package, and presentation modules
    re-exported by the facade; one line each."""
    out = []
    for name, targets in sorted(graph.items()):
        for target in sorted(targets):
            f_from, f_to = floor(name), floor(target)
            if f_to is None:
                out.append(f"{name} imports the package facade {target} (import the module itself)")
            elif f_from is None:
                if f_to == 3:
                    out.append(f"the facade {name} imports the presentation module {target}")
            elif f_to > f_from:
                out.append(
                    f"{name} ({FLOOR_NAMES[f_from]}) imports {target} "
                    f"({FLOOR_NAMES[f_to]}): an upward import"
                )
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


# ---------------------------------------------------------------------------------------------
# The package itself
# ---------------------------------------------------------------------------------------------
GRAPH = import_graph(PACKAGE)


def test_the_graph_sees_every_kind_of_import():
    """Sanity: module-level, function-level and TYPE_CHECKING imports are all in the graph."""
    assert len(GRAPH) >= 30
    assert "qring_edu.ring" in GRAPH["qring_edu.vga"]  # module level
    assert "qring_edu.ddp" in GRAPH["qring_edu"]  # inside __getattr__
    assert (
        "qring_edu.experiments.bottleneck" in GRAPH["qring_edu.figures.bottleneck"]
    )  # TYPE_CHECKING


def test_no_import_cycle():
    # the import statements themselves (the clearest report), then with the implicit imports of
    # subpackage __init__ files
    for graph in (explicit_graph(PACKAGE), GRAPH):
        found = cycles(graph)
        assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_every_import_points_downward():
    bad = layer_violations(GRAPH)
    assert not bad, "\n".join(bad)


def test_modules_sit_on_the_floor_their_place_says():
    floors = {name: floor(name) for name in GRAPH}
    assert floors["qring_edu.states"] == 0 and floors["qring_edu.ledger"] == 0
    assert floors["qring_edu._result"] == 0
    assert floors["qring_edu.ring"] == 1 and floors["qring_edu.ddp"] == 1
    assert floors["qring_edu.experiments.claims"] == 2
    assert floors["qring_edu.widgets._base"] == 3 and floors["qring_edu"] is None


# ---------------------------------------------------------------------------------------------
# The checker on packages built to break the rules
# ---------------------------------------------------------------------------------------------
def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    pkg = tmp_path / "qring_edu"
    for rel, text in files.items():
        path = pkg / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for sub in {p.parent for p in pkg.rglob("*.py")}:
        (sub / "__init__.py").touch()
    return pkg


def test_checker_finds_a_cycle_through_a_type_checking_import(tmp_path):
    pkg = _package(
        tmp_path,
        {
            "figures/ring.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from ..widgets.ring import RingState\n",
            "widgets/ring.py": "def f():\n    from ..figures.ring import plot\n",
        },
    )
    assert cycles(import_graph(pkg)) == [["qring_edu.figures.ring", "qring_edu.widgets.ring"]]


def test_checker_finds_upward_and_facade_imports(tmp_path):
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "from .figures import plots\n",
            "ring.py": "def f():\n    import qring_edu.experiments.sweep\n",
            "states.py": "from .ring import x\n",
            "experiments/sweep.py": "from .. import ring_allreduce\n",
            "figures/plots.py": "from ..experiments.sweep import S\n",
        },
    )
    bad = layer_violations(import_graph(pkg))
    assert any("qring_edu.ring (protocols) imports qring_edu.experiments.sweep" in b for b in bad)
    assert any("qring_edu.states (core) imports qring_edu.ring" in b for b in bad)
    assert any("qring_edu.experiments.sweep imports the package facade" in b for b in bad)
    assert any("the facade qring_edu imports the presentation module" in b for b in bad)
    assert not any(b.startswith("qring_edu.figures.plots") for b in bad)  # downward is fine
    # importing the facade from below closes a loop through everything it re-exports
    assert cycles(import_graph(pkg)) == [
        ["qring_edu", "qring_edu.experiments.sweep", "qring_edu.figures.plots"]
    ]


@pytest.mark.parametrize(
    "name, expected",
    [
        ("qring_edu.links", 1),
        ("qring_edu.experiments", 2),
        ("qring_edu.exercises.vga", 3),
        ("qring_edu._validate", 0),
    ],
)
def test_floor_of_new_modules_follows_their_place(name, expected):
    assert floor(name) == expected
