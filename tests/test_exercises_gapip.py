"""GapIP exercise checkers (qring_edu.exercises.gapip)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qring_edu.exercises._base import Feedback
from qring_edu.exercises.gapip import (
    check_not_ah_probability,
    check_overlap,
    check_phase_estimation_qubits,
    check_pingpong_probability,
    check_sketch_bits,
    check_vector_bits,
)
from qring_edu.gapip import sketch_bits

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
    (check_phase_estimation_qubits, (1000, 4), 77),
    (check_vector_bits, (256, 0.05), 2304),
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
    arcsin_free = math.ceil(math.log(20) / (2 * (0.1 / math.pi) ** 2))
    assert "arcsin" in check_sketch_bits(arcsin_free, 0.1, 0.05).message
    assert "control qubit" in check_phase_estimation_qubits(70, 1000, 4).message
    assert "2K - 1" in check_phase_estimation_qubits(99, 1000, 4).message
    assert "word size b" in check_vector_bits(9, 256, 0.05).message
    assert "sign bit" in check_vector_bits(2048, 256, 0.05).message


def test_bad_parameters_do_not_raise():
    assert "invalid" in check_overlap(0.5, 2.0).message
    assert "invalid" in check_sketch_bits(10, 0.0, 0.05).message
    assert "invalid" in check_phase_estimation_qubits(5, 1000, 0).message
    assert "invalid" in check_vector_bits(5, 256, 1.5).message


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

    from qring_edu.exercises import _base, gapip
    from qring_edu.experiments import gapip as experiments

    for module in (_base, gapip, experiments):
        result = doctest.testmod(module, raise_on_error=False, verbose=False)
        assert result.failed == 0 and result.attempted > 0, module.__name__
