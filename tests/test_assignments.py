"""Autograder round trip of every graded assignment (instructor/assignments/*.ipynb) with
otter-grader.

In a temporary directory and with the real tool (no Docker):

1. the instructor bundle is built (``book/_tools/instructor_bundle.py``, what ``make instructor``
   runs): ``otter assign`` generates, from each single authored source notebook (solutions +
   public and hidden tests, points per test case), the student version and the autograder zip;
2. the student version must contain no solution line and no hidden test, but every question's
   answer cell (``...``) and its public test, and the committed student version the book shows
   (``book/assignments/student/``) must be the one generated now;
3. ``otter run`` (otter's non-containerised grader) grades, with the bundle's autograder zip,
   five submissions built from the student version: fully solved (full marks), unattempted
   (zero, graded without crashing), shortcut (the questions that forbid a library function
   answered by calling it: those points are lost, ``SHORTCUT`` below), bypass (the same
   shortcuts hidden from the guard: the library function as a default argument or in a closure,
   after rebinding ``qring_edu.exercises._base.forbidden`` to ``contextlib.nullcontext``; they
   lose the same points, ``BYPASS``) and partly wrong (the score listed in ``PARTIAL`` below);
4. every assignment has one written question (otter ``manual: true``) with a rubric for the
   student and a grading rubric and model answer that stay out of the student version.

Written answers are graded by hand, so the scores above count the autograded tests only. The
gradings of an assignment run in parallel; the four assignments too (a few minutes on two
cores).
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "instructor" / "assignments"  # the sources (the instructors')
STUDENT = ROOT / "book" / "assignments" / "student"  # what the public book shows
BUNDLE = ROOT / "book" / "_tools" / "instructor_bundle.py"
OTTER = [sys.executable, "-m", "otter"]
TIMEOUT = 600  # seconds per otter command (a generous cap, not a target)

# Partly wrong submissions: answer-cell index (question order) -> what the "student" wrote
# (None: left unattempted as in the student version). Every other answer is the solution.
# The comments give the points each question should earn.
PARTIAL: dict[str, tuple[dict[int, str | None], float]] = {
    "a1_ring_ledger": (
        {
            # q1 1/2: the right sum, but computed with NumPy instead of the ring
            0: "ring_result = None\nsummed = grads.sum(axis=0)",
            # q2 2/3: right when P divides d, wrong for uneven chunks
            1: "def link_bits(P, d, bits):\n    return 2 * (P - 1) * (d // P) * bits",
            # q3 2/2 (solution); q4 0/3: unattempted
            3: None,
        },
        5.0,
    ),
    "a2_superdense_holevo": (
        {
            # q1 2/2 (solution); q2 2/3: symbol error right, bit error = symbol error (wrong)
            1: "def symbol_error(F):\n    return 1 - F\n\ndef bit_error(F):\n    return 1 - F",
            # q3 0/2: unattempted
            2: None,
            # q4 1/3: capacity right, the inversion returns the entanglement threshold F = 1/2
            3: (
                "def capacity(f):\n"
                "    p = np.array([f, (1 - f) / 3, (1 - f) / 3, (1 - f) / 3])\n"
                "    p = p[p > 0]\n    return 2 + float(np.sum(p * np.log2(p)))\n\n"
                "def fidelity_for(level):\n    return 0.5\n\nF_15 = fidelity_for(1.5)"
            ),
        },
        5.0,
    ),
    "a3_vga_known_pads": (
        {
            # q1 0/2: forgot the reduction modulo 2**10
            0: "last_announcement = 200 - (613 + 998 + 77)",
            # q2 0/2: 2**-P instead of 2**(1-P)
            1: "def detection(P):\n    return (1 - 2.0 ** -P) / 2",
            # q3 1/3: survival right with the right detection, tests_needed one short (floor)
            2: (
                "survival_20 = (1 - (1 - 2.0 ** -4) / 2) ** 20\n\n"
                "def tests_needed(P, target):\n"
                "    return math.floor(math.log(target) / math.log(1 - (1 - 2.0 ** (1 - P)) / 2))"
            ),
            # q4 2/3: the attack read right, the honest total summed without the protocol
            3: (
                "attack = vga_aggregate(inputs, bits=BITS, test_fraction=0.3, source=KnownPads(),"
                " seed=21)\nattack_detected = not attack.accepted\n"
                "failed_tests = attack.tests_failed\nhonest_total = inputs.sum(axis=0)"
            ),
        },
        3.0,
    ),
    "a4_gapip_tieaudit": (
        {
            # q1 0/3: fits log y against x instead of log x
            0: (
                "def fit_slope(x, y):\n    return float(np.polyfit(x, np.log(y), 1)[0])\n\n"
                "gapip_quantum_slope = fit_slope(1 / scan.taus, scan.quantum_cost)\n"
                "gapip_classical_slope = fit_slope(1 / scan.taus, scan.classical_cost)"
            ),
            # q2 2/2 (solution); q3 0/2: the solution, but through the wrong fit_slope;
            # q4 2/3: crossover right, the second one at the wrong ε
            3: (
                "def crossover_P(audit):\n"
                "    return int(audit.Ps[np.argmax(audit.quantum_cost < audit.classical_cost)])\n\n"
                "crossover_eps_003 = tieaudit_crossover(0.07)"
            ),
        },
        4.0,
    ),
}

# Shortcut submissions: the answer cells of the questions that forbid a library function,
# answered by calling it (every other answer is the solution), and the score that leaves.
SHORTCUT: dict[str, tuple[dict[int, str], float]] = {
    "a1_ring_ledger": (
        {
            # q2 0/3 and q3 0/2: read the ledger of a real run instead of the schedule
            1: (
                "def link_bits(P, d, bits):\n"
                "    return ring_allreduce(np.zeros((P, d), dtype=int), bits=bits)"
                ".ledger.online_bits()"
            ),
            2: (
                "def superdense_link_use(P, d, bits):\n"
                "    led = ring_allreduce(np.zeros((P, d), dtype=int), bits=bits,\n"
                "                         transport='superdense').ledger\n"
                "    return {'online_qubits': led.online_qubits(), 'ebits': led.ebits(),\n"
                "            'offline_qubits': led.offline_qubits()}"
            ),
            # q4 1/3: the library's timing functions (the number is right, the function is not)
            3: (
                "from qring_edu.costmodel import parameter_server_time, ring_time\n"
                "def speedup(P, d, bits, alpha, beta):\n"
                "    return (parameter_server_time(P, d, bits, alpha, beta)\n"
                "            / ring_time(P, d, bits, alpha, beta))\n\n"
                "speedup_bert = speedup(24, 340_000_000, 16, 20e-6, 4e-11)"
            ),
        },
        3.0,
    ),
    "a2_superdense_holevo": (
        {
            # q2 0/3: error rates read off the library's outcome table
            1: (
                "from qring_edu import superdense_outcome_probabilities\n"
                "def symbol_error(F):\n"
                "    return 1 - superdense_outcome_probabilities(0, 0, link=Link(F))[(0, 0)]\n\n"
                "def bit_error(F):\n"
                "    p = superdense_outcome_probabilities(0, 0, link=Link(F))\n"
                "    return p[(0, 1)] + p[(1, 1)]"
            ),
            # q4 0/3: the library's capacity and threshold
            3: (
                "from qring_edu import dense_coding_threshold, isotropic_capacity\n"
                "def capacity(f):\n    return isotropic_capacity(f)\n\n"
                "def fidelity_for(level):\n    return dense_coding_threshold(level)\n\n"
                "F_15 = fidelity_for(1.5)"
            ),
        },
        4.0,
    ),
    "a3_vga_known_pads": (
        {
            # q2 0/2: the library's detection probability
            1: (
                "from qring_edu.vga import known_pads_detection\n"
                "def detection(P):\n    return known_pads_detection(P)"
            ),
            # q3 1/3: survival right (a number), tests_needed through the library (0/2)
            2: (
                "from qring_edu.vga import known_pads_detection\n"
                "survival_20 = (1 - known_pads_detection(5)) ** 20\n\n"
                "def tests_needed(P, target):\n"
                "    return math.ceil(math.log(target) / math.log(1 - known_pads_detection(P)))"
            ),
        },
        6.0,
    ),
    "a4_gapip_tieaudit": (
        {
            # q1 1/3: the library's fit (the two slopes are right, the function is not)
            0: (
                "from qring_edu.experiments._base import loglog_slope\n"
                "def fit_slope(x, y):\n    return loglog_slope(x, y)\n\n"
                "gapip_quantum_slope = fit_slope(1 / scan.taus, scan.quantum_cost)\n"
                "gapip_classical_slope = fit_slope(1 / scan.taus, scan.classical_cost)"
            ),
            # q2 0/2: the library's sketch length
            1: (
                "from qring_edu.gapip import sketch_bits\n"
                "def sign_sketch_bits(tau, delta):\n    return sketch_bits(tau, delta)\n\n"
                "sketch_bits_007 = sign_sketch_bits(0.07, 0.01)"
            ),
            # q3 1/2 and q4 1/3: the scan's precomputed fields (fail on arrays-only scans)
            2: "def tieaudit_laws(audit):\n    return audit.classical_slope, audit.copies",
            3: (
                "def crossover_P(audit):\n    return audit.crossover_P\n\n"
                "crossover_eps_003 = tieaudit_crossover(0.03)"
            ),
        },
        3.0,
    ),
}

# Bypass submissions: the shortcuts of SHORTCUT hidden from the guard (a cell rebinds the guard
# to a no-op, the library function sits in a default argument, a keyword default or a closure).
# They must lose exactly the points the plain shortcuts lose.
_REBIND = (
    "import contextlib\nimport qring_edu.exercises._base as _b\n"
    "_b.forbidden = contextlib.nullcontext\n"
)
BYPASS: dict[str, dict[int, str]] = {
    "a1_ring_ledger": {
        1: _REBIND
        + (
            "def link_bits(P, d, bits, _ra=ring_allreduce):\n"
            "    return _ra(np.zeros((P, d), dtype=int), bits=bits).ledger.online_bits()"
        ),
        2: (
            "def _make():\n"
            "    ra = ring_allreduce\n"
            "    def superdense_link_use(P, d, bits):\n"
            "        led = ra(np.zeros((P, d), dtype=int), bits=bits, transport='superdense').ledger\n"
            "        return {'online_qubits': led.online_qubits(), 'ebits': led.ebits(),\n"
            "                'offline_qubits': led.offline_qubits()}\n"
            "    return superdense_link_use\n\n"
            "superdense_link_use = _make()"
        ),
        3: (
            "import qring_edu.costmodel as _cm\n"
            "def speedup(P, d, bits, alpha, beta, _ps=_cm.parameter_server_time, _rt=_cm.ring_time):\n"
            "    return _ps(P, d, bits, alpha, beta) / _rt(P, d, bits, alpha, beta)\n\n"
            "speedup_bert = speedup(24, 340_000_000, 16, 20e-6, 4e-11)"
        ),
    },
    "a2_superdense_holevo": {
        1: _REBIND
        + (
            "from qring_edu import superdense_outcome_probabilities\n"
            "def symbol_error(F, _p=superdense_outcome_probabilities):\n"
            "    return 1 - _p(0, 0, link=Link(F))[(0, 0)]\n\n"
            "def bit_error(F, *, _p=superdense_outcome_probabilities):\n"
            "    p = _p(0, 0, link=Link(F))\n"
            "    return p[(0, 1)] + p[(1, 1)]"
        ),
        3: (
            "def _make():\n"
            "    from qring_edu import dense_coding_threshold as t, isotropic_capacity as c\n"
            "    return (lambda f: c(f)), (lambda level: t(level))\n\n"
            "capacity, fidelity_for = _make()\n"
            "F_15 = fidelity_for(1.5)"
        ),
    },
    "a3_vga_known_pads": {
        1: _REBIND
        + (
            "from qring_edu.vga import known_pads_detection\n"
            "def detection(P, _d=known_pads_detection):\n    return _d(P)"
        ),
        2: (
            "from qring_edu.vga import known_pads_detection\n"
            "survival_20 = (1 - known_pads_detection(5)) ** 20\n\n"
            "def _make(d=known_pads_detection):\n"
            "    def tests_needed(P, target):\n"
            "        return math.ceil(math.log(target) / math.log(1 - d(P)))\n"
            "    return tests_needed\n\n"
            "tests_needed = _make()"
        ),
    },
    "a4_gapip_tieaudit": {
        0: _REBIND
        + (
            "from qring_edu.experiments._base import loglog_slope\n"
            "def fit_slope(x, y, _f=loglog_slope):\n    return _f(x, y)\n\n"
            "gapip_quantum_slope = fit_slope(1 / scan.taus, scan.quantum_cost)\n"
            "gapip_classical_slope = fit_slope(1 / scan.taus, scan.classical_cost)"
        ),
        1: (
            "from qring_edu.gapip import sketch_bits\n"
            "def sign_sketch_bits(tau, delta, *, _s=sketch_bits):\n    return _s(tau, delta)\n\n"
            "sketch_bits_007 = sign_sketch_bits(0.07, 0.01)"
        ),
        2: SHORTCUT["a4_gapip_tieaudit"][0][2],
        3: SHORTCUT["a4_gapip_tieaudit"][0][3],
    },
}

NAMES = sorted(p.stem for p in ASSIGNMENTS.glob("*.ipynb"))


def _otter(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [*OTTER, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    assert proc.returncode == 0, f"otter {args[0]} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def _answer_cells(nb, tag: str, cell_type: str = "code") -> list[int]:
    return [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == cell_type and tag in c.get("metadata", {}).get("tags", [])
    ]


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
                body = re.sub(
                    r'(?s)^"""\s*# BEGIN TEST CONFIG.*?"""\s*# END TEST CONFIG\n', "", cell.source
                )
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
    cases = {
        q: [c for suite in t["suites"] for c in suite["cases"]]
        for q, t in student.metadata["otter"]["tests"].items()
    }
    chunks = [c.source for c in student.cells if c.cell_type == "code"]
    for qcases in cases.values():
        for case in qcases:
            chunks.append(
                "\n".join(
                    re.sub(r"^(>>> |\.\.\. ?)", "", line) for line in case["code"].splitlines()
                )
            )
    return "\n".join(chunks + [_normal(c) for c in chunks]), cases


def _score(results: Path) -> tuple[float, float]:
    tests = json.loads(results.read_text())["tests"]
    graded = [t for t in tests if t.get("max_score") is not None]
    return (sum(t["score"] for t in graded), sum(t["max_score"] for t in graded))


def _grade(zip_path: Path, submission, path: Path) -> tuple[float, float]:
    path.parent.mkdir(parents=True)
    nbformat.write(submission, path)
    _otter(
        "run", "--no-logo", "-a", str(zip_path), "-o", str(path.parent), path.name, cwd=path.parent
    )
    return _score(path.parent / "results.json")


def _round_trip(name: str, dist: Path, tmp: Path) -> dict:
    """Check the student version the bundle holds in ``dist``, grade the five submissions with
    its autograder zip; return what the tests assert on."""
    source = ASSIGNMENTS / f"{name}.ipynb"
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

    jobs = {
        "full": submission({}),
        "empty": nbformat.from_dict(json.loads(nbformat.writes(student))),
        "shortcut": submission(SHORTCUT[name][0]),
        "bypass": submission(BYPASS[name]),
        "partial": submission(PARTIAL[name][0]),
    }
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {
            k: pool.submit(_grade, zip_path, nb, tmp / k / f"{name}.ipynb")
            for k, nb in jobs.items()
        }
        scores = {k: f.result() for k, f in futures.items()}

    return {
        "source": nbformat.read(source, as_version=4),
        "student": student,
        "extra_files": sorted(
            p.name for p in (dist / "student").rglob("*") if p.is_file() and p != student_path
        ),
        "answer_idx": answer_idx,
        "scores": scores,
        "written_idx": _answer_cells(student, "otter_answer_cell", "markdown"),
        "solved": solved,
    }


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    """The instructor bundle, built as ``make instructor`` builds it, and unpacked."""
    out = tmp_path_factory.mktemp("bundle")
    proc = subprocess.run(
        [sys.executable, str(BUNDLE), "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    assert proc.returncode == 0, f"the bundle build failed:\n{proc.stdout}\n{proc.stderr}"
    (archive,) = out.glob("qring_edu-instructor-*.zip")
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(out / "unpacked")
    (top,) = (out / "unpacked").iterdir()
    return top


@pytest.fixture(scope="module")
def round_trips(bundle, tmp_path_factory) -> dict[str, dict]:
    with ThreadPoolExecutor(max_workers=max(2, min(4, os.cpu_count() or 2))) as pool:
        futures = {
            n: pool.submit(_round_trip, n, bundle / "autograders" / n, tmp_path_factory.mktemp(n))
            for n in NAMES
        }
        return {n: f.result() for n, f in futures.items()}


def test_every_assignment_has_an_expected_partial_score():
    assert NAMES == sorted(PARTIAL), "add the new assignment's partly wrong submission to PARTIAL"
    assert NAMES == sorted(SHORTCUT), "add the new assignment's shortcut submission to SHORTCUT"
    assert NAMES == sorted(BYPASS), "add the new assignment's bypass submission to BYPASS"
    assert len(NAMES) >= 4
    assert sorted(p.stem for p in STUDENT.glob("*.ipynb")) == NAMES


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
    committed = nbformat.read(STUDENT / f"{name}.ipynb", as_version=4)
    fresh = round_trips[name]["student"]
    assert [(c.cell_type, c.source) for c in committed.cells] == [
        (c.cell_type, c.source) for c in fresh.cells
    ], f"book/assignments/student/{name}.ipynb is stale: regenerate it with `make assignments`"
    assert all(not c.get("outputs") for c in committed.cells if c.cell_type == "code"), (
        "the student version is handed out unexecuted"
    )


@pytest.mark.parametrize("name", NAMES)
def test_shortcut_submission_loses_the_points_of_the_forbidden_calls(round_trips, name):
    """Calling the library function a question forbids costs that question's function points:
    the hidden tests re-run the student's function with it switched off."""
    score, total = round_trips[name]["scores"]["shortcut"]
    assert total == round_trips[name]["scores"]["full"][1]
    assert score == SHORTCUT[name][1] < total


@pytest.mark.parametrize("name", NAMES)
def test_bypass_submission_loses_the_same_points_as_the_shortcut(round_trips, name):
    """Hiding the forbidden function from the guard (a default argument, a closure, the guard
    rebound to ``contextlib.nullcontext``) earns nothing more than calling it openly."""
    scores = round_trips[name]["scores"]
    assert scores["bypass"] == scores["shortcut"]
    assert scores["bypass"][0] == SHORTCUT[name][1] < scores["full"][1]


@pytest.mark.parametrize("name", NAMES)
def test_one_written_question_with_a_rubric(round_trips, name):
    """One hand-graded question: the student sees its rubric (criteria and points) and an answer
    cell; the grading rubric and the model answer are only in the instructor's version."""
    rt = round_trips[name]
    source_cfgs = [
        c.source
        for c in rt["source"].cells
        if c.cell_type == "raw" and c.source.startswith("# BEGIN QUESTION")
    ]
    assert sum("manual: true" in c for c in source_cfgs) == 1
    (i,) = rt["written_idx"]
    prompt = rt["student"].cells[i - 1].source
    assert "Rubric" in prompt and "graded by hand" in prompt
    text = "\n".join(c.source for c in rt["student"].cells)
    assert "Grading rubric" not in text and "Model answer" not in text
    solved = "\n".join(c.source for c in rt["solved"].cells)
    assert "Grading rubric" in solved and "Model answer" in solved


@pytest.mark.parametrize("name", NAMES)
def test_assignment_header_states_points_and_an_estimated_time(round_trips, name):
    """The time is called an estimate: nobody timed students (the bundle's guide says how it was
    set)."""
    header = next(c.source for c in round_trips[name]["student"].cells if c.cell_type == "markdown")
    assert re.search(r"\*\*Points:\*\* \d+ — 10 autograded", header)
    assert re.search(r"\*\*Time:\*\* about \d+ minutes, an estimate", header)
    assert "pilot" not in header.lower() and "measured" not in header.lower()
    assert round_trips[name]["scores"]["full"][1] == 10
