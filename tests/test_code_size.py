"""The library stays small enough to read: line budgets, and no speed machinery.

A student opens a protocol module and learns the protocol from it, so the sizes are part of the
product (docstrings with their examples count: they stay). Budgets, in lines:

* ``ring.py`` at most 500, ``ddp.py`` at most 650, every other module at most 900;
* core and protocols together (the modules directly in ``qring_edu/``) at most 9,000, and the
  whole package at most 28,000. A feature that would cross a budget brings its room with it:
  fold or trim elsewhere first.

And the machinery a plain library does without: no threads, processes, shared memory, fork or
exit handlers anywhere but ``launch.py`` (which starts the DDP worker processes).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "qring_edu"
MODULES = sorted(PACKAGE.rglob("*.py"))
CORE_AND_PROTOCOLS = [p for p in MODULES if p.parent == PACKAGE]
BUDGET = {"ring.py": 500, "ddp.py": 650}
DEFAULT_BUDGET = 900
MACHINERY = {"threading", "multiprocessing", "subprocess", "mmap", "concurrent", "atexit", "queue"}


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


#: Budgets of core + protocols and of the whole package (lines).
BUDGET_CORE_AND_PROTOCOLS, BUDGET_PACKAGE = 9_000, 28_000


def test_core_and_protocols_stay_within_their_budget():
    total = sum(_lines(p) for p in CORE_AND_PROTOCOLS)
    sizes = sorted(((_lines(p), p.name) for p in CORE_AND_PROTOCOLS), reverse=True)
    limit = BUDGET_CORE_AND_PROTOCOLS
    assert total <= limit, f"core + protocols: {total} lines > {limit}; largest: {sizes[:6]}"


def test_the_package_stays_within_its_budget():
    total = sum(_lines(p) for p in MODULES)
    assert total <= BUDGET_PACKAGE, f"qring_edu: {total} lines > {BUDGET_PACKAGE}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_exceeds_its_budget(path):
    budget = BUDGET.get(path.name, DEFAULT_BUDGET) if path.parent == PACKAGE else DEFAULT_BUDGET
    assert _lines(path) <= budget, f"{path.name}: {_lines(path)} lines > {budget}"


@pytest.mark.parametrize(
    "path", [p for p in MODULES if p.name != "launch.py"], ids=lambda p: p.name
)
def test_no_concurrency_machinery_outside_the_launcher(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            used |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            used.add(node.module.split(".")[0])
        elif isinstance(node, ast.Attribute) and node.attr == "register_at_fork":
            used.add("os.register_at_fork")
    assert not used & (MACHINERY | {"os.register_at_fork"}), (
        f"{path.name} imports {sorted(used & (MACHINERY | {'os.register_at_fork'}))}"
    )
