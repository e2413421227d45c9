"""Exercise checkers of chapter 5, *Alignment and sign auditing* (presentation floor).

Every ``check_<name>(answer, ...)`` compares the student's answer with the library and returns a
:class:`~qring_edu.exercises.Feedback`. ``answer=None`` means "not attempted"; any other input,
however malformed, gives a failing feedback with a hint — nothing raises and nothing is evaluated (numbers follow :func:`~qring_edu.exercises._base.as_number`).
Tolerances are stated in each docstring.
"""

from __future__ import annotations

import math
import numbers

from ..alignment import alignment_state, gapip_probability, sketch_bits
from ..experiments.alignment import aligned_pair, tieaudit_crossover
from ..sign_audit import tieaudit_cost
from ._base import (
    Feedback,
    as_integer,
    bad_parameters,
    close,
    compare_number,
    failed,
    passed,
)

__all__ = [
    "check_overlap",
    "check_not_ah_probability",
    "check_sketch_bits",
    "check_expected_y",
    "check_tieaudit_qubits",
    "check_crossover",
    "check_calibrated_estimate",
]


def _close(answer, value: float, tol: float) -> bool:
    return close(answer, value, tol=tol)


# --------------------------------------------------------------------------------------------
# GapIP
# --------------------------------------------------------------------------------------------

def check_overlap(answer, c: float) -> Feedback:
    """``<a_g|a_h>`` when ``<g, h> = c`` (unit vectors). Reference: the library's states
    (``(1 + c)/2``); absolute tolerance 1e-6."""
    try:
        g, h = aligned_pair(4, c, seed=0)
        expected = float(alignment_state(g) @ alignment_state(h))
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    what = f"<a_g|a_h> for <g,h> = {c:g}"
    fb = compare_number(answer, expected, tol=1e-6, what=what)
    if not fb.passed and _close(answer, c, 1e-6):
        return failed(f"{what}: {c:g} is <g,h> itself; remember the offset state |P> in both "
                      "|a_g> and |a_h>, and the 1/sqrt(2) normalisation.")
    if not fb.passed and _close(answer, (1 + c) / 2 * 2, 1e-6):
        return failed(f"{what}: you forgot the factor 1/2 from the two 1/sqrt(2) prefactors.")
    return fb


def check_not_ah_probability(answer, c: float, k: int) -> Feedback:
    """Probability that the client's final measurement says "not a_h" after ``k`` iterations
    when ``<g, h> = c``. Reference: the library's full state-vector simulation on a small
    instance; absolute tolerance 1e-4."""
    try:
        g, h = aligned_pair(4, c, seed=0)
        expected = gapip_probability(g, h, k, method="statevector")
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    what = f'P("not a_h") for <g,h> = {c:g}, k = {k}'
    fb = compare_number(answer, expected, tol=1e-4, what=what)
    if fb.passed or answer is None:
        return fb
    theta = math.acos((1 + c) / 2)
    if _close(answer, math.cos((2 * k + 1) * theta) ** 2, 1e-4):
        return failed(f"{what}: that is the probability of the outcome a_h; the question asks "
                      "for the complement.")
    if _close(answer, math.sin(2 * k * theta) ** 2, 1e-4) or \
            _close(answer, math.sin((k + 1) * theta) ** 2, 1e-4):
        return failed(f"{what}: count the angles again: the state starts at angle θ from "
                      "|a_h> and each iteration (two reflections) rotates by 2θ.")
    return fb


def check_sketch_bits(answer, tau: float, delta: float) -> Feedback:
    """Bits of the sign-sketch protocol for margin ``tau`` and error ``delta`` (the book's
    Hoeffding choice). Reference: :func:`qring_edu.alignment.sketch_bits`; exact integer."""
    try:
        expected = sketch_bits(tau, delta)
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    what = f"sketch bits at τ = {tau:g}, δ = {delta:g}"
    fb = compare_number(answer, expected, tol=0.0, what=what)
    if fb.passed or answer is None:
        return fb
    if _close(answer, math.log(1 / delta) / (2 * (tau / math.pi) ** 2), 1.0):
        return failed(f"{what}: close — the agreement gap is arcsin(τ)/π, not τ/π, and the "
                      "count is rounded up.")
    if _close(answer, math.log(1 / delta) / (2 * (math.asin(tau) / math.pi) ** 2), 1.0):
        return failed(f"{what}: round up to the next integer.")
    return fb


# --------------------------------------------------------------------------------------------
# TieAudit
# --------------------------------------------------------------------------------------------

def check_expected_y(answer, alpha: float, f: float) -> Feedback:
    """``E[Y]`` of one copy when a fraction ``alpha`` of coordinates is matched and a fraction
    ``f`` of pairs disagree. Reference ``alpha (1 - 2 f)``; absolute tolerance 1e-6."""
    if not all(isinstance(v, numbers.Real) for v in (alpha, f)) or not (0 < alpha <= 1) or \
            not (0 <= f <= 1):
        return bad_parameters(ValueError("need 0 < alpha <= 1 and 0 <= f <= 1"))
    expected = alpha * (1 - 2 * f)
    what = f"E[Y] at α = {alpha:g}, f = {f:g}"
    fb = compare_number(answer, expected, tol=1e-6, what=what)
    if not fb.passed and _close(answer, 1 - 2 * f, 1e-6) and alpha != 1:
        return failed(f"{what}: unmatched outcomes give Y = 0 and happen with probability 1 − α.")
    if not fb.passed and _close(answer, alpha * (1 - f), 1e-6):
        return failed(f"{what}: that is P(Y = +1); subtract P(Y = −1).")
    return fb


def check_tieaudit_qubits(answer, P: int, eps: float, delta: float) -> Feedback:
    """Qubits sent by the noiseless quantum TieAudit protocol for ``P`` coordinates, full
    matching. Reference: :func:`qring_edu.sign_audit.tieaudit_cost`; exact integer."""
    try:
        expected = tieaudit_cost(P, eps, delta=delta)
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    what = f"quantum TieAudit qubits at P = {P}, ε = {eps:g}, δ = {delta:g}"
    fb = compare_number(answer, expected, tol=0.0, what=what)
    if not fb.passed and _close(answer, expected // (P.bit_length() - 1), 0.0):
        return failed(f"{what}: that is the number of copies; each copy is log₂P qubits.")
    return fb


def check_crossover(answer, eps: float) -> Feedback:
    """Smallest ``P = 2^n`` where quantum TieAudit (full matching, δ = 0.05) sends fewer qubits
    than the classical protocol sends bits. The answer may be ``P`` or ``n = log2 P``.
    Reference: :func:`qring_edu.experiments.alignment.tieaudit_crossover`."""
    try:
        expected = tieaudit_crossover(eps)
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    what = f"crossover at ε = {eps:g}"
    value, fb = as_integer(answer, what)
    if fb is not None:
        return fb
    n = expected.bit_length() - 1
    if value == expected:
        return passed(f"{what}: correct, P = 2^{n} = {expected:,}.")
    if value == n:
        return passed(f"{what}: correct, log₂ P = {n} (P = {expected:,}).")
    return failed(f"{what}: {value} is not right. Compare N·log₂P with the classical subset size "
                  "k for P = 2^n, n = 1, 2, ...")


def check_calibrated_estimate(answer, mean_data: float, mean_test: float) -> Feedback:
    """``f_hat`` from the mean ``Y`` of the data copies and of the hidden all-agree test copies
    (ratio estimator ``(1 - mean_data/mean_test)/2``); absolute tolerance 1e-6."""
    if not all(isinstance(v, numbers.Real) for v in (mean_data, mean_test)) or mean_test <= 0:
        return bad_parameters(ValueError("mean_test must be a positive number"))
    expected = (1 - mean_data / mean_test) / 2
    what = f"f̂ from Ȳ_data = {mean_data:g}, Ȳ_test = {mean_test:g}"
    fb = compare_number(answer, expected, tol=1e-6, what=what)
    if not fb.passed and _close(answer, (1 - mean_data) / 2, 1e-6):
        return failed(f"{what}: that ignores the attenuation; divide by the test copies' mean "
                      "(which estimates α η).")
    return fb

