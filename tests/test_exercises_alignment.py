"""Chapter 5 exercise checkers (qring_edu.exercises.audit)."""

from __future__ import annotations

import math

import numpy as np
import pytest

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
from qring_edu.alignment import sketch_bits
from qring_edu.sign_audit import tieaudit_copies

GARBAGE = ["three", "0.5", "", [1, 2], {"a": 1}, True, float("nan"), float("inf"),
           np.array([1.0, 2.0]), object(), ("x", 3)]

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
    assert "arcsin" in check_sketch_bits(math.ceil(math.log(20) / (2 * (0.1 / math.pi) ** 2)),
                                         0.1, 0.05).message
    assert "1 − α" in check_expected_y(0.5, 0.5, 0.25).message
    assert "copies" in check_tieaudit_qubits(tieaudit_copies(1.0, 0.1, 0.05)[0], 1024, 0.1,
                                             0.05).message
    assert check_crossover(16, 0.05).passed  # log2 P accepted too
    assert "attenuation" in check_calibrated_estimate(0.35, 0.3, 0.6).message


def test_bad_parameters_do_not_raise():
    assert "invalid" in check_overlap(0.5, 2.0).message
    assert "invalid" in check_sketch_bits(10, 0.0, 0.05).message
    assert "invalid" in check_expected_y(0.1, 0.0, 0.2).message
    assert "invalid" in check_tieaudit_qubits(5, 100, 0.1, 0.05).message
    assert "invalid" in check_crossover(5, 1.5).message
    assert "invalid" in check_calibrated_estimate(0.1, 0.3, 0.0).message
