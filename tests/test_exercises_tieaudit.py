"""TieAudit exercise checkers (qring_edu.exercises.tieaudit)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qring_edu.exercises._base import Feedback
from qring_edu.exercises.tieaudit import (
    check_calibrated_estimate,
    check_crossover,
    check_expected_y,
    check_ratio_bias,
    check_test_overlap,
    check_tieaudit_measurement,
    check_tieaudit_qubits,
    check_y_variance,
)
from qring_edu.tieaudit import tieaudit_copies

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

CASES = [
    (check_expected_y, (0.5, 0.25), 0.25),
    (check_tieaudit_qubits, (1024, 0.1, 0.05), tieaudit_copies(1.0, 0.1, 0.05) * 10),
    (check_crossover, (0.05,), 2**16),
    (check_calibrated_estimate, (0.3, 0.6), 0.25),
    (check_test_overlap, ([1, 1, -1, 1, 1, -1, 1, 1],), 0.25),
    (check_y_variance, (0.1, 0.25), 0.0975),
    (check_ratio_bias, ([1, -1, 1, 1, 1, 1, 1, 1], [[0, 1], [2, 5]], 0.1), 0.8 / 1.312 - 0.5),
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
    assert "1 − α" in check_expected_y(0.5, 0.5, 0.25).message
    copies = tieaudit_copies(1.0, 0.1, 0.05)
    assert "copies" in check_tieaudit_qubits(copies, 1024, 0.1, 0.05).message
    assert check_crossover(16, 0.05).passed  # log2 P accepted too
    assert "attenuation" in check_calibrated_estimate(0.35, 0.3, 0.6).message
    s = [1, 1, -1, 1, 1, -1, 1, 1]
    assert "square" in check_test_overlap(0.5, s).message
    assert "test copy" in check_test_overlap(1.0, s).message
    assert "E[Y]^2" in check_y_variance(0.1, 0.1, 0.25).message
    assert "three values" in check_y_variance(0.09, 0.1, 0.25).message
    m = [[0, 1], [2, 5]]
    assert "f_w itself" in check_ratio_bias(0.8 / 1.312, [1, -1, 1, 1, 1, 1, 1, 1], m, 0.1).message
    assert "sign" in check_ratio_bias(0.5 - 0.8 / 1.312, [1, -1, 1, 1, 1, 1, 1, 1], m, 0.1).message


def test_bad_parameters_do_not_raise():
    assert "invalid" in check_expected_y(0.1, 0.0, 0.2).message
    assert "invalid" in check_tieaudit_qubits(5, 100, 0.1, 0.05).message
    assert "invalid" in check_crossover(5, 1.5).message
    assert "invalid" in check_calibrated_estimate(0.1, 0.3, 0.0).message
    assert "invalid" in check_test_overlap(0.1, [1, 1, 1]).message
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


def test_doctests_of_the_chapter_modules():
    import doctest

    from qring_edu.exercises import tieaudit
    from qring_edu.experiments import tieaudit as experiments
    from qring_edu.experiments import tieaudit_noise, tieaudit_plans

    for module in (tieaudit, experiments, tieaudit_noise, tieaudit_plans):
        result = doctest.testmod(module, raise_on_error=False, verbose=False)
        assert result.failed == 0 and result.attempted > 0, module.__name__
