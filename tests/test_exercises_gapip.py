"""Chapter 5 exercise checkers (qring_edu.exercises.audit)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qring_edu.alignment import sketch_bits
from qring_edu.exercises._base import Feedback
from qring_edu.exercises.alignment import (
    check_calibrated_estimate,
    check_crossover,
    check_expected_y,
    check_not_ah_probability,
    check_overlap,
    check_sketch_bits,
    check_tieaudit_qubits,
)
from qring_edu.sign_audit import tieaudit_copies

GARBAGE = [
    "three",
    "0.5",
    "",
    [1, 2],
    {"a": 1},
    True,
    float("nan"),
    float("inf"),
    np.array([1.0, 2.0]),
    object(),
    ("x", 3),
]

THETA = math.acos((1 - 0.2) / 2)
CASES = [
    (check_overlap, (0.3,), 0.65),
    (check_not_ah_probability, (-0.2, 2), math.sin(5 * THETA) ** 2),
    (check_sketch_bits, (0.1, 0.05), sketch_bits(0.1, 0.05)),
    (check_expected_y, (0.5, 0.25), 0.25),
    (check_tieaudit_qubits, (1024, 0.1, 0.05), tieaudit_copies(1.0, 0.1, 0.05)[0] * 10),
    (check_crossover, (0.05,), 2**16),
    (check_calibrated_estimate, (0.3, 0.6), 0.25),
]


@pytest.mark.parametrize("check,args,ref", CASES)
def test_reference_passes_none_and_garbage_fail(check, args, ref):
    fb = check(ref, *args)
    assert isinstance(fb, Feedback) and fb.passed, fb.message
    fb = check(None, *args)
    assert not fb.passed and "Not attempted" in fb.message
    for junk in GARBAGE:
        fb = check(junk, *args)
        assert isinstance(fb, Feedback) and not fb.passed and fb.message, junk
    fb = check(ref + 0.37 if isinstance(ref, float) else ref + 3, *args)
    assert not fb.passed


def test_targeted_hints():
    assert "offset" in check_overlap(0.3, 0.3).message
    assert "complement" in check_not_ah_probability(1 - math.sin(5 * THETA) ** 2, -0.2, 2).message
    assert (
        "arcsin"
        in check_sketch_bits(
            math.ceil(math.log(20) / (2 * (0.1 / math.pi) ** 2)), 0.1, 0.05
        ).message
    )
    assert "1 − α" in check_expected_y(0.5, 0.5, 0.25).message
    assert (
        "copies"
        in check_tieaudit_qubits(tieaudit_copies(1.0, 0.1, 0.05)[0], 1024, 0.1, 0.05).message
    )
    assert check_crossover(16, 0.05).passed  # log2 P accepted too
    assert "attenuation" in check_calibrated_estimate(0.35, 0.3, 0.6).message


def test_bad_parameters_do_not_raise():
    assert "invalid" in check_overlap(0.5, 2.0).message
    assert "invalid" in check_sketch_bits(10, 0.0, 0.05).message
    assert "invalid" in check_expected_y(0.1, 0.0, 0.2).message
    assert "invalid" in check_tieaudit_qubits(5, 100, 0.1, 0.05).message
    assert "invalid" in check_crossover(5, 1.5).message
    assert "invalid" in check_calibrated_estimate(0.1, 0.3, 0.0).message


# ---------------------------------------------------------------------------------------------
# Step checkers of the reasoning exercises, and the two code-graded checkers
# ---------------------------------------------------------------------------------------------
from qring_edu.exercises.alignment import (  # noqa: E402
    check_phase_estimation_qubits,
    check_pingpong_probability,
    check_ratio_bias,
    check_test_overlap,
    check_tieaudit_measurement,
    check_vector_bits,
    check_y_variance,
)

STEP_CASES = [
    (check_test_overlap, ([1, 1, -1, 1, 1, -1, 1, 1],), 0.25),
    (check_phase_estimation_qubits, (1000, 4), 77),
    (check_vector_bits, (256, 0.05), 2304),
    (check_y_variance, (0.1, 0.25), 0.0975),
    (check_ratio_bias, ([1, -1, 1, 1, 1, 1, 1, 1], [[0, 1], [2, 5]], 0.1), 0.8 / 1.312 - 0.5),
]


@pytest.mark.parametrize("check,args,ref", STEP_CASES)
def test_step_checkers_reference_none_garbage_and_wrong(check, args, ref):
    test_reference_passes_none_and_garbage_fail(check, args, ref)


def test_step_checker_hints():
    s = [1, 1, -1, 1, 1, -1, 1, 1]
    assert "square" in check_test_overlap(0.5, s).message
    assert "test copy" in check_test_overlap(1.0, s).message
    assert "control qubit" in check_phase_estimation_qubits(70, 1000, 4).message
    assert "2K - 1" in check_phase_estimation_qubits(99, 1000, 4).message
    assert "word size b" in check_vector_bits(9, 256, 0.05).message
    assert "sign bit" in check_vector_bits(2048, 256, 0.05).message
    assert "E[Y]^2" in check_y_variance(0.1, 0.1, 0.25).message
    assert "three values" in check_y_variance(0.09, 0.1, 0.25).message
    m = [[0, 1], [2, 5]]
    assert "f_w itself" in check_ratio_bias(0.8 / 1.312, [1, -1, 1, 1, 1, 1, 1, 1], m, 0.1).message
    assert "sign" in check_ratio_bias(0.5 - 0.8 / 1.312, [1, -1, 1, 1, 1, 1, 1, 1], m, 0.1).message


def test_step_checkers_bad_parameters():
    assert "invalid" in check_test_overlap(0.1, [1, 1, 1]).message
    assert "invalid" in check_phase_estimation_qubits(5, 1000, 0).message
    assert "invalid" in check_vector_bits(5, 256, 1.5).message
    assert "invalid" in check_y_variance(0.1, 0.0, 0.2).message
    assert "invalid" in check_ratio_bias(0.1, [1, -1], [[0, 0]], 0.1).message


# --- build it yourself: the TieAudit measurement ---------------------------------------------


def _outcomes(signs, matching):
    psi = np.asarray(signs, float) / math.sqrt(len(signs))
    a, b = psi[matching[:, 0]], psi[matching[:, 1]]
    return (a + b) ** 2 / 2, (a - b) ** 2 / 2


def test_measurement_checker_accepts_correct_code_in_several_shapes():
    assert check_tieaudit_measurement(_outcomes).passed
    assert check_tieaudit_measurement(lambda s, m: np.array(_outcomes(s, m))).passed
    assert check_tieaudit_measurement(lambda s, m: [list(x) for x in _outcomes(s, m)]).passed
    rows = check_tieaudit_measurement(lambda s, m: np.column_stack(_outcomes(s, m)))
    assert not rows.passed and "one row (plus, minus) per pair" in rows.message


@pytest.mark.parametrize(
    "wrong,hint",
    [
        (lambda s, m: _outcomes(s, m)[::-1], "swapped"),
        (lambda s, m: tuple(2 * x for x in _outcomes(s, m)), "1/sqrt(2)"),
        (lambda s, m: tuple(len(s) * x for x in _outcomes(s, m)), "s_i / sqrt(P)"),
        (lambda s, m: tuple(np.sqrt(x) for x in _outcomes(s, m)), "Born rule"),
        (lambda s, m: (np.full(len(m), 1 / len(s)), np.full(len(m), 1 / len(s))), "amplitude"),
    ],
)
def test_measurement_checker_rejects_wrong_code_with_the_first_failing_case(wrong, hint):
    fb = check_tieaudit_measurement(wrong)
    assert not fb.passed and hint in fb.message and "P = " in fb.message and "pair (" in fb.message


def test_measurement_checker_partial_bug_is_found_on_a_later_instance():
    """Correct on the small hand-made instances, wrong once P > 8: the random instances catch it."""

    def late(signs, matching):
        plus, minus = _outcomes(signs, matching)
        return (plus, minus) if len(signs) <= 8 else (plus, minus + 1e-3)

    fb = check_tieaudit_measurement(late)
    assert not fb.passed and "pairs" in fb.message


def test_measurement_checker_crashing_none_and_malformed():
    fb = check_tieaudit_measurement(lambda s, m: 1 / 0)
    assert not fb.passed and "ZeroDivisionError" in fb.message and "signs =" in fb.message
    assert "Not attempted" in check_tieaudit_measurement(None).message
    assert "Not attempted" in check_tieaudit_measurement(lambda s, m: None).message
    assert "expected a function" in check_tieaudit_measurement("my_outcomes").message
    assert "two arrays" in check_tieaudit_measurement(lambda s, m: [1.0, 2.0, 3.0]).message
    assert "two arrays" in check_tieaudit_measurement(lambda s, m: {"plus": 1}).message
    late_none = check_tieaudit_measurement(lambda s, m: None if len(s) > 4 else _outcomes(s, m))
    assert not late_none.passed and "returned None" in late_none.message

    # The checker passes copies: a function that overwrites its input cannot corrupt the reference.
    def vandal(signs, matching):
        out = _outcomes(signs, matching)
        signs[:] = 1
        return out

    assert check_tieaudit_measurement(vandal).passed


# --- build it yourself: the ping-pong -----------------------------------------------------------


def _pingpong(g, h, k, *, order=("h", "g"), offset=True, comp=False):
    a = {
        "g": np.append(g, 1.0) / math.sqrt(2) if offset else g,
        "h": np.append(h, 1.0) / math.sqrt(2) if offset else h,
    }
    state = a["g"].copy()
    for _ in range(k):
        for who in order:
            state = 2 * a[who] * (a[who] @ state) - state
    p = 1.0 - (a["h"] @ state) ** 2
    return 1.0 - p if comp else p


def test_pingpong_checker_accepts_correct_code():
    assert check_pingpong_probability(_pingpong).passed
    assert check_pingpong_probability(lambda g, h, k: np.float64(_pingpong(g, h, k))).passed


@pytest.mark.parametrize(
    "wrong,hint",
    [
        (lambda g, h, k: _pingpong(g, h, k, comp=True), "complement"),
        (lambda g, h, k: _pingpong(g, h, k, order=("g", "h")), "one iteration short"),
        (lambda g, h, k: _pingpong(g, h, k, offset=False), "offset"),
        (lambda g, h, k: _pingpong(g, h, k + 1), "too many"),
        (lambda g, h, k: 0.5, "Build |a_g>"),
    ],
)
def test_pingpong_checker_rejects_wrong_code_with_hints(wrong, hint):
    fb = check_pingpong_probability(wrong)
    assert not fb.passed and hint in fb.message and "<g,h> =" in fb.message


def test_pingpong_checker_crashing_none_and_malformed():
    fb = check_pingpong_probability(lambda g, h, k: g[100])
    assert not fb.passed and "IndexError" in fb.message and "P = 3" in fb.message
    assert "Not attempted" in check_pingpong_probability(None).message
    assert "Not attempted" in check_pingpong_probability(lambda g, h, k: None).message
    assert "expected a number" in check_pingpong_probability(lambda g, h, k: "0.5").message
    assert "expected a function" in check_pingpong_probability(3).message


def test_call_reader_never_raises_for_the_readers_bugs():
    from qring_edu.exercises._base import call_reader

    assert call_reader(lambda x: x + 1, 1, name="f") == (2, None)
    value, fb = call_reader(None, 1, name="f")
    assert value is None and "Not attempted" in fb.message
    assert "expected a function" in call_reader(3, 1, name="f")[1].message
    fb = call_reader(lambda x: [][x], 1, name="f", case="x = 1")[1]
    assert "IndexError" in fb.message and "x = 1" in fb.message
    with pytest.raises(KeyboardInterrupt):
        call_reader(lambda: (_ for _ in ()).throw(KeyboardInterrupt), name="f")


def test_doctests_of_the_chapter_modules():
    import doctest

    from qring_edu.exercises import _base, alignment
    from qring_edu.experiments import alignment as experiments

    for module in (_base, alignment, experiments):
        result = doctest.testmod(module, raise_on_error=False, verbose=False)
        assert result.failed == 0 and result.attempted > 0, module.__name__
