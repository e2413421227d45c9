"""The training section's exercise checkers (qring_edu.exercises.training)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qring_edu.exercises._base import Feedback
from qring_edu.exercises.training import (
    check_bandwidth_ratio,
    check_circuits_per_step,
    check_crossover_params,
    check_parameter_shift,
    check_update_jump,
)
from qring_edu.fixedpoint import fixed_point
from qring_edu.training import gradient_budget
from qring_edu.vqc import parameter_shift


def shift_gradient(score, theta, j):
    plus, minus = theta.copy(), theta.copy()
    plus[j] += math.pi / 2
    minus[j] -= math.pi / 2
    return (score(plus) - score(minus)) / 2


def _shifted(s, *, half=True):
    def f(score, theta, j):
        plus, minus = theta.copy(), theta.copy()
        plus[j] += s
        minus[j] -= s
        return (score(plus) - score(minus)) / (2 if half else 1)

    return f


def test_parameter_shift_passes_the_rule_and_the_library():
    assert check_parameter_shift(shift_gradient).passed
    assert check_parameter_shift(shift_gradient, seed=7, samples=5).passed
    # any shift s with the factor 1 / (2 sin s) is exact too
    assert check_parameter_shift(
        lambda sc, t, j: _shifted(1.0, half=False)(sc, t, j) / (2 * math.sin(1.0))
    ).passed
    assert check_parameter_shift(lambda sc, t, j: parameter_shift(sc, t, j)).passed


@pytest.mark.parametrize(
    "wrong, words",
    [
        (_shifted(math.pi / 2, half=False), "½ is missing"),
        (_shifted(1.0), "sin(s)"),
        (_shifted(1e-6, half=False), "finite difference"),  # even when accurate enough
        (lambda sc, t, j: shift_gradient(sc, t, (j + 1) % t.size), "not θ_0"),
        (lambda sc, t, j: np.zeros(3), "never called score"),
        (lambda sc, t, j: 0.0, "expected shape (3,)"),
        (lambda sc, t, j: "grad", "array of 3 numbers"),
    ],
)
def test_parameter_shift_names_the_mistake(wrong, words):
    fb = check_parameter_shift(wrong)
    assert not fb.passed and words in fb.message


def test_parameter_shift_refuses_a_function_that_moves_theta():
    def in_place(score, theta, j):
        theta[j] += math.pi / 2
        a = score(theta)
        theta[j] -= math.pi
        b = score(theta)
        theta[j] += math.pi / 2 + 1e-3  # does not restore theta exactly
        return (a - b) / 2

    fb = check_parameter_shift(in_place)
    assert not fb.passed and "in place" in fb.message


def test_parameter_shift_crash_and_not_attempted():
    fb = check_parameter_shift(lambda sc, t, j: sc(t)[99])
    assert not fb.passed and "raised IndexError" in fb.message and "Traceback" not in fb.message
    assert "Not attempted" in check_parameter_shift(None).message
    assert "expected your function" in check_parameter_shift(3).message
    assert "parameters are invalid" in check_parameter_shift(shift_gradient, samples=0).message


def test_circuits_per_step_counts_shifts_and_the_loss():
    assert check_circuits_per_step(592).passed and check_circuits_per_step(592.0).passed
    assert 16 * (2 * 18 + 1) == 592
    assert "gradient alone" in check_circuits_per_step(576).message
    assert "two shifted" in check_circuits_per_step(288).message
    assert "one input" in check_circuits_per_step(37).message
    assert check_circuits_per_step(5 * 13, batch_size=5, n_params=6).passed
    assert not check_circuits_per_step(True).passed


def test_alpha_beta_checkers():
    b = gradient_budget(18)
    assert check_crossover_params(250_000).passed and b.crossover_params == pytest.approx(250_000)
    assert "chunk" in check_crossover_params(62_500).message
    assert "bits" in check_crossover_params(4_000_000).message
    assert check_crossover_params(1_000_000, workers=16).passed
    assert check_bandwidth_ratio(b.bandwidth_ratio).passed and b.bandwidth_ratio == pytest.approx(
        8e-5
    )
    assert "ceil(d/P) = 5" in check_bandwidth_ratio(7.2e-5).message
    assert "whole gradient" in check_bandwidth_ratio(18 * 16 * 1e-11 / 1e-5).message
    assert (
        check_bandwidth_ratio(
            gradient_budget_ratio := gradient_budget(82).bandwidth_ratio, n_params=82
        ).passed
        and gradient_budget_ratio > 3e-4
    )


def test_update_jump_is_the_top_bit_over_p():
    codec = fixed_point(4, 16, 1.0)
    ref = 2**15 / codec.scale / 4
    assert check_update_jump(ref).passed and check_update_jump(-ref).passed
    assert abs(ref - 1.0) < 1e-3
    assert "divides the sum" in check_update_jump(4 * ref).message
    assert "2**(b−1)" in check_update_jump(2 * ref).message
    assert check_update_jump(
        0.5 * 2**15 / fixed_point(8, 16, 0.5).scale / 8, workers=8, clip=0.5, lr=0.5
    ).passed


@pytest.mark.parametrize(
    "check, args",
    [
        (check_circuits_per_step, ()),
        (check_crossover_params, ()),
        (check_bandwidth_ratio, ()),
        (check_update_jump, ()),
    ],
)
def test_numeric_checkers_never_raise(check, args):
    for junk in (None, "1", [1], float("nan"), object()):
        fb = check(junk, *args)
        assert isinstance(fb, Feedback) and not fb.passed
