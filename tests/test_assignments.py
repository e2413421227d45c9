"""Autograder round trip of every graded assignment (book/assignments/*.ipynb) with otter-grader.

For each assignment, in a temporary directory and with the real tool (no Docker):

1. ``otter assign`` generates the student version and the autograder zip from the single
   authored source notebook (solutions + public and hidden tests, points per test case);
2. the student version must contain no solution line and no hidden test, but every question's
   answer cell (``...``) and its public test;
3. ``otter run`` (otter's non-containerised grader) grades three submissions built from the
   student version: fully solved (full marks), unattempted (zero, graded without crashing) and
   partly wrong (the score listed in ``PARTIAL`` below).

The three gradings of an assignment run in parallel; the four assignments too (about a minute on
two cores).
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "book" / "assignments"
OTTER = [sys.executable, "-m", "otter"]
TIMEOUT = 600  # seconds per otter command (a generous cap, not a target)

# Partly wrong submissions: answer-cell index (question order) -> what the "student" wrote
# (None: left unattempted as in the student version). Every other answer is the solution.
# The comments give the points each question should earn.
PARTIAL: dict[str, tuple[dict[int, str | None], float]] = {
    "a1_ring_ledger": ({
        # q1 1/2: the right sum, but computed with NumPy instead of the ring
        0: "ring_result = None\nsummed = grads.sum(axis=0)",
        # q2 0/3: reduce-scatter only (forgot the all-gather half)
        1: "def link_bits(P, d, bits):\n    return (P - 1) * (d // P) * bits",
        # q3 2/2 (solution); q4 0/3: unattempted
        3: None,
    }, 3.0),
    "a2_superdense_holevo": ({
        # q1 2/2 (solution); q2 2/3: symbol error right, bit error = symbol error (wrong)
        1: "symbol_error = 1 - F\nbit_error = 1 - F",
        # q3 0/2: unattempted
        2: None,
        # q4 1/3: capacity right, threshold at the entanglement threshold F = 1/2 (wrong)
        3: ("def C(f):\n    p = np.array([f, (1 - f) / 3, (1 - f) / 3, (1 - f) / 3])\n"
            "    p = p[p > 0]\n    return 2 + float(np.sum(p * np.log2(p)))\n"
            "capacity = C(F)\nthreshold_F = 0.5"),
    }, 5.0),
    "a3_vga_known_pads": ({
        # q1 0/2: forgot the reduction modulo 2**8
        0: "last_announcement = 5 - (17 + 200)",
        # q2 0/2: 2**-P instead of 2**(1-P)
        1: "def detection(P):\n    return (1 - 2.0 ** -P) / 2",
        # q3 2/3: survival right, tests_needed one short
        2: "survival_40 = (1 - 0.375) ** 40\ntests_needed = 29",
        # q4 0/3: unattempted
        3: None,
    }, 2.0),
    "a4_gapip_tieaudit": ({
        # q1 0/3: fits log y against x instead of log x
        0: ("def fit_slope(x, y):\n    return float(np.polyfit(x, np.log(y), 1)[0])\n\n"
            "gapip_quantum_slope = fit_slope(1 / scan.taus, scan.quantum_cost)\n"
            "gapip_classical_slope = fit_slope(1 / scan.taus, scan.classical_cost)"),
        # q2 2/2 (solution); q3 1/2: slope wrong (through fit_slope), copies right (solution);
        # q4 0/3: unattempted
        3: None,
    }, 3.0),
}

NAMES = sorted(p.stem for p in ASSIGNMENTS.glob("*.ipynb"))


def _otter(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run([*OTTER, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT, env={**os.environ, "PYTHONHASHSEED": "0"})
    assert proc.returncode == 0, f"otter {args[0]} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def _answer_cells(nb, tag: str) -> list[int]:
    return [i for i, c in enumerate(nb.cells) if tag in c.get("metadata", {}).get("tags", [])]


def _solution_lines(source_nb) -> list[str]:
    """Code lines of the authored solutions (the ``# SOLUTION`` lines and the bodies of the
    ``# BEGIN SOLUTION`` blocks), without the markers."""
    lines, inside = [], False
    for cell in source_nb.cells:
        if cell.cell_type != "code":
            continue
        for line in cell.source.splitlines():
            stripped = line.strip()
            if stripped.startswith("# BEGIN SOLUTION"):
                inside = True
            elif stripped.startswith("# END SOLUTION"):
                inside = False
            elif stripped.endswith("# SOLUTION"):
                lines.append(stripped[: -len("# SOLUTION")].strip())
            elif inside and stripped and not stripped.startswith("#"):
                lines.append(stripped)
    return lines


def _tests(source_nb, hidden: bool) -> list[str]:
    """Sources of the public (``hidden=False``) or hidden test cells, test-config header removed."""
    out, inside = [], False
    for cell in source_nb.cells:
        if cell.cell_type == "raw":
            head = cell.source.strip()
            inside = head == "# BEGIN TESTS" or (inside and head != "# END TESTS")
        elif inside and cell.cell_type == "code":
            is_hidden = "hidden: true" in cell.source
            if is_hidden == hidden:
                body = re.sub(r'(?s)^""" # BEGIN TEST CONFIG.*?""" # END TEST CONFIG\n', "",
                              cell.source)
                out.append(body.strip())
    return out


def _normal(code: str) -> str:
    """``code`` as ``ast.unparse`` prints it (otter re-prints test code, e.g. its quotes)."""
    try:
        return ast.unparse(ast.parse(code))
    except SyntaxError:  # a fragment such as `def f(x):` alone
        return code.strip()


def _student_code(student) -> tuple[str, dict[str, list[dict]]]:
    """All code a student receives: the code cells and the test cases stored in the notebook
    metadata (doctest prompts removed), each in raw and normalised form; and those cases."""
    cases = {q: [c for suite in t["suites"] for c in suite["cases"]]
             for q, t in student.metadata["otter"]["tests"].items()}
    chunks = [c.source for c in student.cells if c.cell_type == "code"]
    for qcases in cases.values():
        for case in qcases:
            chunks.append("\n".join(re.sub(r"^(>>> |\.\.\. ?)", "", line)
                                    for line in case["code"].splitlines()))
    return "\n".join(chunks + [_normal(c) for c in chunks]), cases


def _score(results: Path) -> tuple[float, float]:
    tests = json.loads(results.read_text())["tests"]
    graded = [t for t in tests if t.get("max_score") is not None]
    return (sum(t["score"] for t in graded), sum(t["max_score"] for t in graded))


def _grade(zip_path: Path, submission, path: Path) -> tuple[float, float]:
    path.parent.mkdir(parents=True)
    nbformat.write(submission, path)
    _otter("run", "--no-logo", "-a", str(zip_path), "-o", str(path.parent), path.name,
           cwd=path.parent)
    return _score(path.parent / "results.json")


def _round_trip(name: str, tmp: Path) -> dict:
    """Generate, check the student version, grade the three submissions; return what the tests
    assert on."""
    source = ASSIGNMENTS / f"{name}.ipynb"
    dist = tmp / "dist"
    _otter("assign", str(source), str(dist), cwd=tmp)
    student_path = dist / "student" / f"{name}.ipynb"
    (zip_path,) = (dist / "autograder").glob("*.zip")
    student = nbformat.read(student_path, as_version=4)
    solved = nbformat.read(dist / "autograder" / f"{name}.ipynb", as_version=4)

    answer_idx = _answer_cells(student, "otter_answer_cell")
    solution_idx = _answer_cells(solved, "otter_assign_solution_cell")
    assert len(answer_idx) == len(solution_idx) > 0

    def submission(answers: dict[int, str | None]):
        nb = nbformat.from_dict(json.loads(nbformat.writes(student)))
        for q, i in enumerate(answer_idx):
            text = answers.get(q, solved.cells[solution_idx[q]].source)
            if text is not None:
                nb.cells[i].source = text
        return nb

    edits, _ = PARTIAL[name]
    jobs = {"full": submission({}),
            "empty": nbformat.from_dict(json.loads(nbformat.writes(student))),
            "partial": submission(edits)}
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {k: pool.submit(_grade, zip_path, nb, tmp / k / f"{name}.ipynb")
                   for k, nb in jobs.items()}
        scores = {k: f.result() for k, f in futures.items()}

    return {"source": nbformat.read(source, as_version=4), "student": student,
            "extra_files": sorted(p.name for p in (dist / "student").rglob("*")
                                  if p.is_file() and p != student_path),
            "answer_idx": answer_idx, "scores": scores}


@pytest.fixture(scope="module")
def round_trips(tmp_path_factory) -> dict[str, dict]:
    with ThreadPoolExecutor(max_workers=max(2, min(4, os.cpu_count() or 2))) as pool:
        futures = {n: pool.submit(_round_trip, n, tmp_path_factory.mktemp(n)) for n in NAMES}
        return {n: f.result() for n, f in futures.items()}


def test_every_assignment_has_an_expected_partial_score():
    assert NAMES == sorted(PARTIAL), "add the new assignment's partly wrong submission to PARTIAL"
    assert len(NAMES) >= 4


@pytest.mark.parametrize("name", NAMES)
def test_student_version_has_no_solutions_or_hidden_tests(round_trips, name):
    rt = round_trips[name]
    solutions = _solution_lines(rt["source"])
    hidden = _tests(rt["source"], hidden=True)
    public = _tests(rt["source"], hidden=False)
    assert solutions and hidden and public
    text, cases = _student_code(rt["student"])
    assert rt["extra_files"] == [], "the student version is the notebook alone"
    for line in solutions:
        for form in {line, _normal(line)}:
            assert form not in text, f"solution line leaked into the student version: {form!r}"
    for test in hidden:
        for stmt in ast.parse(test).body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                continue  # imports may coincide with the public setup
            code = ast.unparse(stmt)
            assert code not in text, f"hidden test leaked into the student version: {code!r}"
    # the public checks are there (one case per public test), none of them hidden
    assert not any(c["hidden"] for qc in cases.values() for c in qc)
    assert sum(len(qc) for qc in cases.values()) == len(public)
    for test in public:
        assert _normal(test) in text
    for i in rt["answer_idx"]:
        cell = rt["student"].cells[i].source
        assert "..." in cell and "SOLUTION" not in cell


@pytest.mark.parametrize("name", NAMES)
def test_fully_solved_submission_gets_full_marks(round_trips, name):
    score, total = round_trips[name]["scores"]["full"]
    assert total > 0 and score == total


@pytest.mark.parametrize("name", NAMES)
def test_unattempted_submission_gets_zero(round_trips, name):
    score, total = round_trips[name]["scores"]["empty"]
    assert total == round_trips[name]["scores"]["full"][1]
    assert score == 0


@pytest.mark.parametrize("name", NAMES)
def test_partly_wrong_submission_gets_the_expected_partial_score(round_trips, name):
    score, total = round_trips[name]["scores"]["partial"]
    assert total == round_trips[name]["scores"]["full"][1]
    assert score == PARTIAL[name][1]


@pytest.mark.parametrize("name", NAMES)
def test_committed_student_version_matches_its_source(round_trips, name):
    """The student version the book shows (book/assignments/student/, outputs cleared) is what
    otter generates now from the source, so it can hold no solution the generated one does not."""
    committed = nbformat.read(ASSIGNMENTS / "student" / f"{name}.ipynb", as_version=4)
    fresh = round_trips[name]["student"]
    assert [(c.cell_type, c.source) for c in committed.cells] == \
        [(c.cell_type, c.source) for c in fresh.cells], \
        f"book/assignments/student/{name}.ipynb is stale: regenerate it with otter assign"
    assert all(not c.get("outputs") for c in committed.cells if c.cell_type == "code"), \
        "the student version is handed out unexecuted"
