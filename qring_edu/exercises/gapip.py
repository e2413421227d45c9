"""Exercise checkers of the GapIP chapter (book/07_gapip.ipynb; presentation floor). The rules every
checker keeps are in :mod:`~qring_edu.exercises._base`.

:func:`check_pingpong_probability` grades *code*: the reader's function on seeded random instances.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..experiments.gapip import aligned_pair, gapip_probability
from ..gapip import alignment_angle, alignment_state, n_register_qubits, sketch_bits, vector_bits
from ._base import (
    Feedback,
    as_integer,
    as_number,
    call_reader,
    checker,
    close,
    compare_integer,
    compare_number,
    failed,
    grade,
    passed,
)

__all__ = [
    "check_overlap",
    "check_not_ah_probability",
    "check_sketch_bits",
    "check_pingpong_probability",
    "check_phase_estimation_qubits",
    "check_vector_bits",
]


@checker
def check_overlap(answer, c: float) -> Feedback:
    """``<a_g|a_h>`` when ``<g, h> = c`` (unit vectors). Reference: the library's states
    (``(1 + c)/2``); absolute tolerance 1e-6.

    Examples
    --------
    >>> check_overlap(0.65, 0.3).passed                         # (1 + c) / 2
    True
    """
    g, h = aligned_pair(4, c, seed=0)
    expected = float(alignment_state(g) @ alignment_state(h))
    what = f"<a_g|a_h> for <g,h> = {c:g}"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    cases = {
        c: f"{c:g} is <g,h> itself; remember the offset state |P> in both "
        "|a_g> and |a_h>, and the 1/sqrt(2) normalisation.",
        (1 + c) / 2 * 2: "you forgot the factor 1/2 from the two 1/sqrt(2) prefactors.",
        expected: f"correct ({value:g}).",
        ...: f"{value:g} is not right (tolerance 1e-06). Check your formula.",
    }
    return grade(value, expected, what, cases, tol=1e-6)


@checker
def check_not_ah_probability(answer, c: float, k: int) -> Feedback:
    """Probability that the client's final measurement says "not a_h" after ``k`` iterations
    when ``<g, h> = c``. Reference: the library's full state-vector simulation on a small
    instance; absolute tolerance 1e-4.

    Examples
    --------
    >>> check_not_ah_probability(0.6836, 0.5, 1).passed         # sin^2(3 theta)
    True
    """
    g, h = aligned_pair(4, c, seed=0)
    expected = gapip_probability(g, h, k, method="statevector")
    what = f'P("not a_h") for <g,h> = {c:g}, k = {k}'
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    theta = math.acos((1 + c) / 2)
    angles = "count the angles again: the state starts at angle θ from |a_h> and each iteration "
    cases = {
        math.cos((2 * k + 1) * theta) ** 2: "that is the probability of the outcome a_h; the "
        "question asks for the complement.",
        (math.sin(2 * k * theta) ** 2, math.sin((k + 1) * theta) ** 2): angles
        + "(two reflections) rotates by 2θ.",
        expected: f"correct ({value:g}).",
        ...: f"{value:g} is not right (tolerance 0.0001). Check your formula.",
    }
    return grade(value, expected, what, cases, tol=1e-4)


@checker
def check_sketch_bits(answer, tau: float, delta: float) -> Feedback:
    """Bits of the sign-sketch protocol for margin ``tau`` and error ``delta`` (the book's
    Hoeffding choice). Reference: :func:`qring_edu.gapip.sketch_bits`; exact integer.

    Examples
    --------
    >>> from qring_edu.gapip import sketch_bits
    >>> check_sketch_bits(sketch_bits(0.1, 0.05), 0.1, 0.05).passed, sketch_bits(0.1, 0.05)
    (True, 1474)
    """
    expected = sketch_bits(tau, delta)
    what = f"sketch bits at τ = {tau:g}, δ = {delta:g}"
    fb = compare_number(answer, expected, tol=0.0, what=what)
    if fb.passed or answer is None:
        return fb
    if close(answer, math.log(1 / delta) / (2 * (tau / math.pi) ** 2), tol=1.0):
        return failed(
            f"{what}: close — the agreement gap is arcsin(τ)/π, not τ/π, and the "
            "count is rounded up."
        )
    if close(answer, math.log(1 / delta) / (2 * (math.asin(tau) / math.pi) ** 2), tol=1.0):
        return failed(f"{what}: round up to the next integer.")
    return fb


_PINGPONG_CASES = (
    (3, 0.3, 0),
    (2, 0.55, 1),
    (3, -0.2, 2),
    (5, 0.1, 3),
    (8, -0.7, 1),
    (16, 0.33, 4),
    (4, 0.05, 2),
    (12, 0.9, 5),
    (7, -0.45, 6),
)


def _pingpong_slips(g: np.ndarray, h: np.ndarray, k: int) -> dict:
    """``{value a common slip produces: hint}``."""
    theta = alignment_angle(g, h)

    def run(a: np.ndarray, b: np.ndarray, kk: int) -> float:
        state = a.copy()
        for _ in range(kk):
            state = 2 * b * (b @ state) - state  # R_h (b need not be a unit vector)
            state = 2 * a * (a @ state) - state  # R_g
        return float(1.0 - (b @ state) ** 2 / (b @ b))

    return {
        math.cos((2 * k + 1) * theta) ** 2: "That is the probability of the outcome a_h; "
        "return its complement.",
        math.sin((2 * k - 1) * theta) ** 2 if k else None: "Each iteration starts with the "
        "client's R_h (R_g first does nothing to |a_g>), then the server's R_g: you are one "
        "iteration short.",
        math.sin((2 * k + 3) * theta) ** 2: "One iteration too many: k iterations are k "
        "applications of R_g R_h.",
        math.sin(2 * k * theta) ** 2: "Count the angles: the state starts at angle θ from |a_h> "
        "and each iteration rotates it by 2θ.",
        run(g, h, k): "Include the offset basis state |P>: |a_g> = (|P> + sum_i g_i |i>)/sqrt(2).",
        run(np.append(g, 1.0), np.append(h, 1.0), k): "Normalise |a_g> and |a_h> (the "
        "1/sqrt(2)); a reflection 2|a><a| - 1 needs a unit vector.",
        ...: "Build |a_g>, |a_h> (length P + 1 is enough), apply R_h then R_g k times to "
        "|a_g>, and return 1 - <a_h|state>^2.",
    }


def check_pingpong_probability(fn) -> Feedback:
    """Code-graded: the reader's ``fn(g, h, k) -> float``, the probability that the client's
    final measurement says "not a_h" after ``k`` iterations (server prepares ``|a_g>``; each
    iteration the client reflects about ``|a_h>``, then the server about ``|a_g>``), computed by
    building ``|a_g>`` and ``|a_h>`` as NumPy vectors and applying ``R = 2|a><a| - 1``. ``g``,
    ``h``: unit vectors of length ``P``. Checked on nine seeded instances (``P = 2 .. 16``,
    ``<g, h>`` from -0.7 to 0.9, ``k = 0 .. 6``) against
    :func:`qring_edu.experiments.gapip.gapip_probability`, absolute tolerance 1e-9.

    Examples
    --------
    >>> check_pingpong_probability(lambda g, h, k: 0.5).passed
    False
    """
    what = 'the ping-pong probability P("not a_h")'
    for idx, (P, c, k) in enumerate(_PINGPONG_CASES):
        g, h = aligned_pair(P, c, seed=idx)
        case = f"P = {P}, <g,h> = {c:g}, k = {k}"
        result, fb = call_reader(fn, g.copy(), h.copy(), k, name=what, case=case)
        if fb is not None:
            return fb
        if result is None:
            if idx == 0:
                return failed(
                    f"Not attempted yet: your function for {what} returns None; write its body."
                )
            return failed(f"{what}: your function returned None on {case}.")
        value, fb = as_number(result, f"{what} on {case}")
        if fb is not None:
            return fb
        want = gapip_probability(g, h, k)
        if abs(value - want) <= 1e-9:
            continue
        said = f"not right on {case}: you gave {value:.9g}, expected {want:.9g}. Hint:"
        cases = {v: f"{said} {hint}" for v, hint in _pingpong_slips(g, h, k).items()}
        return grade(value, None, what, cases, tol=1e-9)
    return passed(
        f"{what}: correct on all {len(_PINGPONG_CASES)} instances (P = 2 to 16, k = 0 to 6)."
    )


@checker
def check_phase_estimation_qubits(answer, P: int, K: int) -> Feedback:
    """Qubits that cross in one phase-estimation shot of power ``K`` for vectors of length ``P``:
    ``(n + 1)(2K - 1)``, ``n = ceil(log2(P + 1))``. Exact integer.

    Examples
    --------
    >>> check_phase_estimation_qubits(77, 1000, 4).passed
    True
    """
    n = n_register_qubits(P)
    if isinstance(K, bool) or not isinstance(K, numbers.Integral) or K < 1:
        raise ValueError(f"K must be an integer >= 1, got {K!r}")
    expected = (n + 1) * (2 * K - 1)
    what = f"qubits of one phase-estimation shot (P = {P}, K = {K})"
    value, fb = as_integer(answer, what)
    if fb is not None:
        return fb
    cases = {
        n * (2 * K - 1): "the control qubit travels with the register: n + 1 qubits per pass.",
        ((n + 1) * (2 * K + 1), (n + 1) * 2 * K, n * (2 * K + 1)): "count the passes again: the "
        "first controlled-R_g acts trivially on |+>|a_g> and is skipped, so a shot is 2K - 1 "
        "passes.",
        expected: f"correct ({expected}: {2 * K - 1} passes of {n + 1} qubits).",
        ...: f"{value} is not right. n = ceil(log2(P + 1)) register qubits plus the "
        "control, times the number of passes.",
    }
    return grade(value, expected, what, cases)


@checker
def check_vector_bits(answer, P: int, tau: float) -> Feedback:
    """Bits of the send-the-vector protocol, ``P b`` with the smallest ``b`` such that
    ``L = 2^(b-1) - 1 > sqrt(P)/(2 tau)``. Reference: :func:`qring_edu.gapip.vector_bits`;
    exact integer.

    Examples
    --------
    >>> check_vector_bits(2304, 2**8, 0.05).passed
    True
    """
    expected = vector_bits(P, tau)
    what = f"send-the-vector bits at P = {P}, τ = {tau:g}"
    b = expected // P
    hint = ""
    value, fb = as_integer(answer, what)
    if fb is not None:
        return fb
    if value == b:
        hint = "That is the word size b; the vector has P entries."
    elif value in (P * (b - 1), P * (b + 1)):
        hint = (
            "Check the word size: b includes the sign bit, L = 2^(b-1) - 1 levels on each "
            "side, and L must exceed sqrt(P)/(2τ)."
        )
    return compare_integer(
        answer,
        expected,
        what=what,
        hint=hint or "P entries of b bits, b the smallest with 2^(b-1) - 1 > sqrt(P)/(2τ).",
    )
