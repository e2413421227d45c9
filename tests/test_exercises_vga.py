"""Chapter 5 exercise checkers (qring_edu.exercises.vga): the number checkers, the two code
checkers ("build it yourself": a correct, several wrong and a crashing reader function each), the
step checkers of the reasoning exercises, and the worked solutions the chapter shows."""

from __future__ import annotations

import math
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

from qring_edu.exercises._base import Feedback, call_reader
from qring_edu.exercises.vga import (
    check_amplified_leak,
    check_dropout_sums,
    check_ghz_copies_delivered,
    check_ghz_test,
    check_known_pads_survival,
    check_last_announcement,
    check_phase_angle,
    check_rectangle_pairs,
    check_single_copy_escape,
    check_split_worker_fail,
    check_transcript_count,
    check_zero_sum_pads,
)
from qring_edu.vga import vga_aggregate, vga_circuit, zero_sum_pads
from qring_edu.vga_security import ghz_fidelity, ghz_state_pass_probability, vga_cheat_probability

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "book" / "05_vga.ipynb"

GARBAGE = [
    "three",
    "",
    [1, 2],
    {"a": 1},
    True,
    float("nan"),
    float("inf"),
    np.array([1.0, 2.0]),
    object(),
    ("x", 3),
    -1.5,
]

CASES = [
    (check_phase_angle, (3, 1, 3)),
    (check_last_announcement, ([1, 2], 0, 2)),
    (check_transcript_count, (3, 2)),
    (check_known_pads_survival, (10, 3)),
    (check_ghz_copies_delivered, (100, 8, 0.5)),
    (check_dropout_sums, (4, 8)),
    (check_rectangle_pairs, ()),
    (check_single_copy_escape, (800, 0.5)),
    (check_split_worker_fail, (4,)),
    (check_amplified_leak, (1000, 250, 2)),
]
BAD = {
    check_phase_angle: (3, 3, 2),
    check_last_announcement: ([5], 0, 2),
    check_transcript_count: (1, 2),
    check_known_pads_survival: (10, 1),
    check_ghz_copies_delivered: (100, 8, 1.0),
    check_dropout_sums: (1, 8),
    check_single_copy_escape: (800, 1.0),
    check_split_worker_fail: (1,),
    check_amplified_leak: (10, 20, 2),
}


@pytest.mark.parametrize("check,args", CASES)
def test_none_is_not_attempted_and_garbage_fails_quietly(check, args):
    fb = check(None, *args)
    assert isinstance(fb, Feedback) and not fb.passed and "Not attempted" in fb.message
    for junk in GARBAGE:
        fb = check(junk, *args)
        assert isinstance(fb, Feedback) and not fb.passed and fb.message, junk


@pytest.mark.parametrize("check,args", [c for c in CASES if c[0] in BAD])
def test_bad_exercise_parameters_fail_without_raising(check, args):
    fb = check(0, *BAD[check])
    assert not fb.passed and "parameters are invalid" in fb.message


def test_phase_angle_matches_the_circuit():
    circuit = vga_circuit([3, 0], 3, measure=False)
    angles = [
        inst.operation.params[0]
        for inst in circuit.data
        if inst.operation.name == "p"
        and circuit.find_bit(inst.qubits[0]).registers[0][0].name == "w0"
    ]
    assert check_phase_angle(angles[1], 3, 1, 3).passed  # 2 pi * 6 / 8
    assert check_phase_angle(1.5 * math.pi, 3, 1, 3).passed
    assert check_phase_angle(1.5 * math.pi - 2 * math.pi, 3, 1, 3).passed  # modulo 2 pi
    fb = check_phase_angle(2 * math.pi * 3 / 8, 3, 1, 3)  # forgot the weight 2**i
    assert not fb.passed and "weight" in fb.message


def test_last_announcement_and_transcript_count():
    res = vga_aggregate(np.array([[1], [2], [3]]), bits=2, seed=0)
    m = res.transcript[:, 0].tolist()
    assert check_last_announcement(m[2], m[:2], int(res.total[0]), 2).passed
    assert not check_last_announcement((m[2] + 1) % 4, m[:2], int(res.total[0]), 2).passed
    assert check_transcript_count(16, 3, 2).passed
    assert check_transcript_count(16.0, 3, 2).passed
    assert not check_transcript_count(64, 3, 2).passed  # counted the last worker as free


def test_survival_and_copies():
    assert check_known_pads_survival((5 / 8) ** 10, 10, 3).passed
    assert not check_known_pads_survival(0.5**10, 10, 3).passed
    assert check_ghz_copies_delivered(1600, 100, 8, 0.5).passed
    assert not check_ghz_copies_delivered(800, 100, 8, 0.5).passed
    assert check_ghz_copies_delivered(8 * 134, 100, 8, 0.25).passed


# -- step checkers of the reasoning exercises --------------------------------------------------
def test_step_checkers_right_and_wrong():
    assert check_dropout_sums(256, 4, 8).passed and not check_dropout_sums(1, 4, 8).passed
    assert check_rectangle_pairs(4).passed and not check_rectangle_pairs(2).passed
    # one bad copy among N escapes a random half with probability 1/2: the beta = 0 floor
    assert check_single_copy_escape(0.5, 800, 0.5).passed
    assert check_single_copy_escape(
        vga_cheat_probability(800, 0.5, 1, 0.0, detection=1.0), 800, 0.5
    ).passed
    assert check_single_copy_escape(0.75, 8, 0.25).passed  # T = 2 of 8
    fb = check_single_copy_escape(0.0, 800, 0.5)
    assert not fb.passed and "(N - T)/N" in fb.message
    assert check_split_worker_fail(0.25, 4).passed
    fb = check_split_worker_fail(0.5, 4)
    assert not fb.passed and "witness" in fb.message
    assert check_amplified_leak(250 * 249 / (1000 * 999), 1000, 250, 2).passed
    assert not check_amplified_leak(0.25, 1000, 250, 2).passed  # the leak without the split


@pytest.mark.parametrize("workers", [2, 3, 4, 5])
def test_split_worker_fail_is_the_physics(workers):
    """The answer 1/4 is what the GHZ test does to |+> (x) GHZ_{P-1}, computed independently."""
    plus = np.array([1, 1]) / np.sqrt(2)
    rest = np.zeros(1 << (workers - 1))
    rest[0] = rest[-1] = 1 / np.sqrt(2)
    state = np.kron(rest, plus)  # worker 0 is bit 0 (little endian)
    assert abs(ghz_fidelity(state) - 0.5) < 1e-12
    assert check_split_worker_fail(1 - ghz_state_pass_probability(state), workers).passed


# -- build it yourself: the GHZ test -----------------------------------------------------------
def right_ghz_test(copy, settings):
    qc = copy.copy()
    for j, s in enumerate(settings):
        if s == "Y":
            qc.sdg(j)
        qc.h(j)
    qc.measure(range(len(settings)), range(len(settings)))
    return qc


def right_passes(outcome, settings):
    return sum(outcome) % 2 == (settings.count("Y") // 2) % 2


def s_instead_of_sdg(copy, settings):
    qc = copy.copy()
    for j, s in enumerate(settings):
        if s == "Y":
            qc.s(j)
        qc.h(j)
    qc.measure(range(len(settings)), range(len(settings)))
    return qc


def h_for_everyone(copy, settings):
    qc = copy.copy()
    qc.h(range(len(settings)))
    qc.measure(range(len(settings)), range(len(settings)))
    return qc


def test_ghz_test_checker_passes_a_correct_circuit():
    fb = check_ghz_test(right_ghz_test, right_passes)
    assert fb.passed and "16 cases" in fb.message
    assert check_ghz_test(right_ghz_test, right_passes, cases=40, seed=3).passed
    # numpy booleans and 0/1 integers are accepted as verdicts
    assert check_ghz_test(right_ghz_test, lambda o, s: np.bool_(right_passes(o, s))).passed
    assert check_ghz_test(right_ghz_test, lambda o, s: int(right_passes(o, s))).passed


@pytest.mark.parametrize(
    "circuit, hint",
    [
        (s_instead_of_sdg, "S then H measures −Y"),
        (h_for_everyone, "H alone measures X"),
    ],
)
def test_ghz_test_checker_names_the_wrong_basis_change(circuit, hint):
    fb = check_ghz_test(circuit, right_passes)
    assert not fb.passed and hint in fb.message and "settings '" in fb.message


@pytest.mark.parametrize(
    "rule, hint",
    [
        (lambda o, s: sum(o) % 2 == 0, "not always 0"),
        (lambda o, s: sum(o) % 2 != (s.count("Y") // 2) % 2, "inverted"),
    ],
)
def test_ghz_test_checker_names_the_wrong_pass_rule(rule, hint):
    fb = check_ghz_test(right_ghz_test, rule)
    assert not fb.passed and hint in fb.message and "passes(" in fb.message


def test_ghz_test_checker_survives_broken_functions():
    def crash(copy, settings):
        raise ZeroDivisionError("oops")

    def stub(copy, settings):
        raise NotImplementedError

    fb = check_ghz_test(crash, right_passes)
    assert not fb.passed and "ZeroDivisionError: oops" in fb.message and "settings" in fb.message
    assert "Not attempted" in check_ghz_test(stub, right_passes).message
    assert "Not attempted" in check_ghz_test(None, right_passes).message
    assert "Not attempted" in check_ghz_test(right_ghz_test, None).message
    assert "expected a function" in check_ghz_test(42, right_passes).message
    assert "QuantumCircuit" in check_ghz_test(lambda c, s: None, right_passes).message
    assert "not measured" in check_ghz_test(lambda c, s: c, right_passes).message
    fb = check_ghz_test(right_ghz_test, lambda o, s: "yes")
    assert not fb.passed and "True or False" in fb.message
    fb = check_ghz_test(right_ghz_test, lambda o, s: o[5])
    assert not fb.passed and "IndexError" in fb.message

    def extra_qubit(copy, settings):
        from qiskit import QuantumCircuit

        return QuantumCircuit(len(settings) + 1, len(settings) + 1)

    assert "qubits" in check_ghz_test(extra_qubit, right_passes).message

    def measure_then_gate(copy, settings):
        qc = right_ghz_test(copy, settings)
        qc.h(0)
        return qc

    assert "only at the end" in check_ghz_test(measure_then_gate, right_passes).message
    assert "parameters are invalid" in check_ghz_test(right_ghz_test, right_passes, cases=0).message


# -- build it yourself: zero-sum pads ----------------------------------------------------------
def test_zero_sum_pads_checker():
    assert check_zero_sum_pads(zero_sum_pads).passed  # the library's sampler

    def mine(workers, entries, bits, rng):
        r = rng.integers(0, 2**bits, size=(workers, entries))
        r[-1] = (-r[:-1].sum(axis=0)) % 2**bits
        return r

    assert check_zero_sum_pads(mine).passed
    independent = check_zero_sum_pads(lambda P, d, b, rng: rng.integers(0, 2**b, size=(P, d)))
    assert not independent.passed and "not 0" in independent.message
    zeros = check_zero_sum_pads(lambda P, d, b, rng: np.zeros((P, d), dtype=int))
    assert not zeros.passed and "jointly uniform" in zeros.message

    def copies_worker_0(workers, entries, bits, rng):
        r = mine(workers, entries, bits, rng)
        r[1] = r[0]
        r[-1] = (-r[:-1].sum(axis=0)) % 2**bits
        return r

    fb = check_zero_sum_pads(copies_worker_0)
    assert not fb.passed and "jointly uniform" in fb.message

    def unreduced(workers, entries, bits, rng):
        r = rng.integers(0, 2**bits, size=(workers, entries))
        r[-1] = -r[:-1].sum(axis=0)
        return r

    assert "Reduce modulo" in check_zero_sum_pads(unreduced).message
    own_rng = check_zero_sum_pads(lambda P, d, b, rng: mine(P, d, b, np.random.default_rng()))
    assert not own_rng.passed and "rng you are given" in own_rng.message
    assert "shape" in check_zero_sum_pads(lambda *a: [1, 2]).message
    assert "integer" in check_zero_sum_pads(lambda P, d, b, rng: np.full((P, d), 0.5)).message
    crash = check_zero_sum_pads(lambda *a: {}[1])
    assert not crash.passed and "KeyError" in crash.message
    assert "Not attempted" in check_zero_sum_pads(None).message


def test_call_reader_never_raises():
    assert call_reader(lambda: 3, name="f") == (3, None)
    for bad in (None, 3, "text"):
        value, fb = call_reader(bad, name="f")
        assert value is None and not fb.passed
    _, fb = call_reader(lambda: int("x"), name="f", case="x = 'x'")
    assert "ValueError" in fb.message and "x = 'x'" in fb.message

    def stub():
        raise NotImplementedError

    _, fb = call_reader(stub, name="stub")
    assert not fb.passed and fb.message.startswith(
        "Not attempted yet: in stub, replace the line raising"
    )


# -- the worked solutions the chapter shows pass their checkers ---------------------------------
def _solution_code(label: str) -> str:
    nb = nbformat.read(CHAPTER, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and f"{{solution}} {label}" in cell.source:
            blocks = re.findall(r"```python\n(.*?)```", cell.source, flags=re.DOTALL)
            assert blocks, f"no python block in the solution of {label}"
            return "\n".join(blocks)
    raise AssertionError(f"no solution {label} in {CHAPTER.name}")


def test_the_chapters_ghz_test_solution_passes():
    namespace: dict = {}
    exec(_solution_code("ex-vga-build-test"), namespace)
    assert check_ghz_test(namespace["ghz_test"], namespace["passes"]).passed


def test_the_chapters_zero_sum_pads_solution_passes():
    namespace: dict = {"np": np}
    exec(_solution_code("ex-vga-build-pads"), namespace)
    assert check_zero_sum_pads(namespace["zero_sum_pads"]).passed


def test_the_chapters_stubs_are_not_attempted():
    """The code cells the reader starts from define stubs that the checkers call 'not
    attempted' (and the stored outputs say so)."""
    nb = nbformat.read(CHAPTER, as_version=4)
    calls = [
        c
        for c in nb.cells
        if c.cell_type == "code"
        and ("check_ghz_test(" in c.source or "check_zero_sum_pads(" in c.source)
    ]
    assert len(calls) == 2
    for cell in calls:
        assert "NotImplementedError" in cell.source
        text = "".join(str(o.get("data", {}).get("text/plain", "")) for o in cell.outputs)
        assert "Not attempted" in text
