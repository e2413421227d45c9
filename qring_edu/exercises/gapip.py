"""Exercise checkers of chapter 6, *Alignment and sign auditing* (presentation floor).

Every ``check_<name>(answer, ...)`` compares the student's answer with the library and returns a
:class:`~qring_edu.exercises.Feedback`. ``answer=None`` means "not attempted"; any other input,
however malformed, gives a failing feedback with a hint — nothing raises and nothing is
evaluated (numbers follow :func:`~qring_edu.exercises._base.as_number`). Tolerances are stated in
each docstring.

Two checkers grade *code* ("build it yourself"): :func:`check_tieaudit_measurement` and
:func:`check_pingpong_probability` take the reader's function, call it
(:func:`~qring_edu.exercises._base.call_reader`) on seeded random instances and compare with the
library, reporting the first failing instance with a hint.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..alignment import (
    alignment_angle,
    alignment_state,
    gapip_probability,
    n_register_qubits,
    sketch_bits,
    vector_bits,
)
from ..experiments.alignment import aligned_pair, tieaudit_crossover
from ..sign_audit import (
    check_matching,
    check_signs,
    disagreement_fraction,
    outcome_probabilities,
    random_matching,
    ratio_bias,
    signs_with_disagreement,
    tieaudit_cost,
)
from ._base import (
    Feedback,
    as_integer,
    as_number,
    bad_parameters,
    call_reader,
    close,
    compare_integer,
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
    "check_tieaudit_measurement",
    "check_pingpong_probability",
    "check_test_overlap",
    "check_phase_estimation_qubits",
    "check_vector_bits",
    "check_y_variance",
    "check_ratio_bias",
]


def _close(answer, value: float, tol: float) -> bool:
    return close(answer, value, tol=tol)


# --------------------------------------------------------------------------------------------
# GapIP
# --------------------------------------------------------------------------------------------


def check_overlap(answer, c: float) -> Feedback:
    """``<a_g|a_h>`` when ``<g, h> = c`` (unit vectors). Reference: the library's states
    (``(1 + c)/2``); absolute tolerance 1e-6.

    Examples
    --------
    >>> from qring_edu.exercises.alignment import check_overlap
    >>> check_overlap(0.65, 0.3).passed                         # (1 + c) / 2
    True
    >>> print(check_overlap(0.3, 0.3).message)
    <a_g|a_h> for <g,h> = 0.3: 0.3 is <g,h> itself; remember the offset state |P> in both |a_g> and |a_h>, and the 1/sqrt(2) normalisation.
    """
    try:
        g, h = aligned_pair(4, c, seed=0)
        expected = float(alignment_state(g) @ alignment_state(h))
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    what = f"<a_g|a_h> for <g,h> = {c:g}"
    fb = compare_number(answer, expected, tol=1e-6, what=what)
    if not fb.passed and _close(answer, c, 1e-6):
        return failed(
            f"{what}: {c:g} is <g,h> itself; remember the offset state |P> in both "
            "|a_g> and |a_h>, and the 1/sqrt(2) normalisation."
        )
    if not fb.passed and _close(answer, (1 + c) / 2 * 2, 1e-6):
        return failed(f"{what}: you forgot the factor 1/2 from the two 1/sqrt(2) prefactors.")
    return fb


def check_not_ah_probability(answer, c: float, k: int) -> Feedback:
    """Probability that the client's final measurement says "not a_h" after ``k`` iterations
    when ``<g, h> = c``. Reference: the library's full state-vector simulation on a small
    instance; absolute tolerance 1e-4.

    Examples
    --------
    >>> from qring_edu.exercises.alignment import check_not_ah_probability
    >>> check_not_ah_probability(0.6836, 0.5, 1).passed         # sin^2(3 theta)
    True
    >>> print(check_not_ah_probability(1 - 0.6836, 0.5, 1).message)
    P("not a_h") for <g,h> = 0.5, k = 1: that is the probability of the outcome a_h; the question asks for the complement.
    """
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
        return failed(
            f"{what}: that is the probability of the outcome a_h; the question asks "
            "for the complement."
        )
    if _close(answer, math.sin(2 * k * theta) ** 2, 1e-4) or _close(
        answer, math.sin((k + 1) * theta) ** 2, 1e-4
    ):
        return failed(
            f"{what}: count the angles again: the state starts at angle θ from "
            "|a_h> and each iteration (two reflections) rotates by 2θ."
        )
    return fb


def check_sketch_bits(answer, tau: float, delta: float) -> Feedback:
    """Bits of the sign-sketch protocol for margin ``tau`` and error ``delta`` (the book's
    Hoeffding choice). Reference: :func:`qring_edu.alignment.sketch_bits`; exact integer.

    Examples
    --------
    >>> from qring_edu.alignment import sketch_bits
    >>> from qring_edu.exercises.alignment import check_sketch_bits
    >>> check_sketch_bits(sketch_bits(0.1, 0.05), 0.1, 0.05).passed, sketch_bits(0.1, 0.05)
    (True, 1474)
    >>> print(check_sketch_bits(1000, 0.1, 0.05).message)
    sketch bits at τ = 0.1, δ = 0.05: 1000 is not right (tolerance 0). Check your formula.
    """
    try:
        expected = sketch_bits(tau, delta)
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    what = f"sketch bits at τ = {tau:g}, δ = {delta:g}"
    fb = compare_number(answer, expected, tol=0.0, what=what)
    if fb.passed or answer is None:
        return fb
    if _close(answer, math.log(1 / delta) / (2 * (tau / math.pi) ** 2), 1.0):
        return failed(
            f"{what}: close — the agreement gap is arcsin(τ)/π, not τ/π, and the "
            "count is rounded up."
        )
    if _close(answer, math.log(1 / delta) / (2 * (math.asin(tau) / math.pi) ** 2), 1.0):
        return failed(f"{what}: round up to the next integer.")
    return fb


# --------------------------------------------------------------------------------------------
# TieAudit
# --------------------------------------------------------------------------------------------


def check_expected_y(answer, alpha: float, f: float) -> Feedback:
    """``E[Y]`` of one copy when a fraction ``alpha`` of coordinates is matched and a fraction
    ``f`` of pairs disagree. Reference ``alpha (1 - 2 f)``; absolute tolerance 1e-6.

    Examples
    --------
    >>> from qring_edu.exercises.alignment import check_expected_y
    >>> check_expected_y(0.25, 0.5, 0.25).passed                # alpha (1 - 2 f)
    True
    >>> print(check_expected_y(0.5, 0.5, 0.25).message)
    E[Y] at α = 0.5, f = 0.25: unmatched outcomes give Y = 0 and happen with probability 1 − α.
    """
    if (
        not all(isinstance(v, numbers.Real) for v in (alpha, f))
        or not (0 < alpha <= 1)
        or not (0 <= f <= 1)
    ):
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
    matching. Reference: :func:`qring_edu.sign_audit.tieaudit_cost`; exact integer.

    Examples
    --------
    >>> from qring_edu.sign_audit import tieaudit_copies, tieaudit_cost
    >>> from qring_edu.exercises.alignment import check_tieaudit_qubits
    >>> check_tieaudit_qubits(tieaudit_cost(1024, 0.1), 1024, 0.1, 0.05).passed
    True
    >>> print(check_tieaudit_qubits(tieaudit_copies(1.0, 0.1, 0.05)[0], 1024, 0.1, 0.05).message)
    quantum TieAudit qubits at P = 1024, ε = 0.1, δ = 0.05: that is the number of copies; each copy is log₂P qubits.
    """
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
    Reference: :func:`qring_edu.experiments.alignment.tieaudit_crossover`.

    Examples
    --------
    >>> from qring_edu.exercises.alignment import check_crossover
    >>> check_crossover(2**16, 0.05).passed, check_crossover(16, 0.05).passed   # P or log2 P
    (True, True)
    >>> print(check_crossover(2**10, 0.05).message)
    crossover at ε = 0.05: 1024 is not right. Compare N·log₂P with the classical subset size k for P = 2^n, n = 1, 2, ...
    """
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
    return failed(
        f"{what}: {value} is not right. Compare N·log₂P with the classical subset size "
        "k for P = 2^n, n = 1, 2, ..."
    )


def check_calibrated_estimate(answer, mean_data: float, mean_test: float) -> Feedback:
    """``f_hat`` from the mean ``Y`` of the data copies and of the hidden all-agree test copies
    (ratio estimator ``(1 - mean_data/mean_test)/2``); absolute tolerance 1e-6.

    Examples
    --------
    >>> from qring_edu.exercises.alignment import check_calibrated_estimate
    >>> check_calibrated_estimate(0.25, 0.3, 0.6).passed        # (1 - 0.3 / 0.6) / 2
    True
    >>> print(check_calibrated_estimate(0.35, 0.3, 0.6).message)
    f̂ from Ȳ_data = 0.3, Ȳ_test = 0.6: that ignores the attenuation; divide by the test copies' mean (which estimates α η).
    """
    if not all(isinstance(v, numbers.Real) for v in (mean_data, mean_test)) or mean_test <= 0:
        return bad_parameters(ValueError("mean_test must be a positive number"))
    expected = (1 - mean_data / mean_test) / 2
    what = f"f̂ from Ȳ_data = {mean_data:g}, Ȳ_test = {mean_test:g}"
    fb = compare_number(answer, expected, tol=1e-6, what=what)
    if not fb.passed and _close(answer, (1 - mean_data) / 2, 1e-6):
        return failed(
            f"{what}: that ignores the attenuation; divide by the test copies' mean "
            "(which estimates α η)."
        )
    return fb


# --------------------------------------------------------------------------------------------
# Build it yourself: the TieAudit measurement
# --------------------------------------------------------------------------------------------


def _tieaudit_cases(count: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Seeded instances: two tiny hand-made ones, then random sizes 2..64, coverages from one
    pair to a perfect matching and disagreement fractions from 0 to 1 (pairs in random order,
    so ``i > j`` occurs)."""
    cases = [
        (np.array([1, -1, -1, 1]), np.array([[0, 1]])),
        (np.array([1, 1, -1, 1]), np.array([[3, 1], [0, 2]])),
    ]
    gen = np.random.default_rng(seed)
    for _ in range(max(0, count - len(cases))):
        P = 2 ** int(gen.integers(1, 7))
        alpha = float(gen.choice([2.0 / P, 0.5, 1.0]))
        m = random_matching(P, alpha, seed=int(gen.integers(2**31)))
        s = signs_with_disagreement(
            m, P, float(gen.choice([0.0, 0.25, 0.5, 1.0])), seed=int(gen.integers(2**31))
        )
        cases.append((s.astype(np.int64), m))
    return cases[:count]


def _describe(signs: np.ndarray, matching: np.ndarray) -> str:
    P = signs.size
    if P <= 8:
        return f"P = {P}, signs = {signs.tolist()}, matching = {matching.tolist()}"
    return f"P = {P} with {len(matching)} pairs"


def _two_arrays(result, m: int):
    """``(plus, minus)`` as float arrays of length ``m``; ``"rows"`` for one row per pair
    (shape ``(m, 2)``, ``m != 2``); ``None`` for anything else."""
    try:
        arr = np.asarray(result, dtype=float)
    except (TypeError, ValueError):
        return None
    if arr.shape == (2, m):
        return arr[0], arr[1]
    if arr.shape == (m, 2):
        return "rows"
    return None


def check_tieaudit_measurement(fn, *, cases: int = 12, seed: int = 0) -> Feedback:
    """Code-graded: the reader's ``fn(signs, matching) -> (plus, minus)``.

    For one copy of the server's state ``|psi_s> = sum_i s_i |i> / sqrt(P)`` and each pair
    ``r = (i, j)`` of the matching (rows of an integer array of shape ``(m, 2)``), ``plus[r]`` is
    the probability of the client's outcome ``(|i> + |j>)/sqrt(2)`` and ``minus[r]`` that of
    ``(|i> - |j>)/sqrt(2)`` (two arrays of length ``m``). Checked on ``cases`` seeded instances
    (``P = 2 .. 64``) against :func:`qring_edu.sign_audit.outcome_probabilities`, absolute
    tolerance 1e-9; the first failing instance is reported with a hint. A function that returns
    ``None`` counts as not attempted.

    Examples
    --------
    >>> def swapped(signs, matching):
    ...     psi = np.asarray(signs) / np.sqrt(len(signs))
    ...     a, b = psi[matching[:, 0]], psi[matching[:, 1]]
    ...     return (a - b) ** 2 / 2, (a + b) ** 2 / 2
    >>> "swapped" in check_tieaudit_measurement(swapped).message
    True
    """
    what = "the TieAudit measurement"
    for idx, (s, m) in enumerate(_tieaudit_cases(cases, seed)):
        case = _describe(s, m)
        result, fb = call_reader(fn, s.copy(), m.copy(), name=what, case=case)
        if fb is not None:
            return fb
        if result is None:
            if idx == 0:
                return Feedback(
                    False,
                    f"Not attempted yet: your function for {what} returns None; write its body.",
                )
            return failed(f"{what}: your function returned None on {case}.")
        got = _two_arrays(result, len(m))
        if isinstance(got, str):
            return failed(
                f"{what}: on {case} your function returned one row (plus, minus) per "
                "pair; return the two arrays plus and minus instead, each of length "
                f"{len(m)} (for example plus, minus = ...; return plus, minus)."
            )
        if got is None:
            shape = f" of shape {np.shape(result)}" if hasattr(result, "__len__") else ""
            return failed(
                f"{what}: on {case} expected two arrays (plus, minus) of length "
                f"{len(m)}, one entry per pair; got {type(result).__name__}{shape}."
            )
        probs, _ = outcome_probabilities(s, m)
        want_p, want_m = probs[0 : 2 * len(m) : 2], probs[1 : 2 * len(m) : 2]
        gp, gm = got
        if np.allclose(gp, want_p, atol=1e-9) and np.allclose(gm, want_m, atol=1e-9):
            continue
        P = s.size
        r = int(
            np.flatnonzero(
                ~(np.isclose(gp, want_p, atol=1e-9) & np.isclose(gm, want_m, atol=1e-9))
            )[0]
        )
        i, j = (int(v) for v in m[r])
        detail = (
            f"{case}: pair ({i}, {j}) with s_{i} = {int(s[i]):+d}, s_{j} = {int(s[j]):+d}: "
            f"you gave plus = {gp[r]:.6g}, minus = {gm[r]:.6g}; expected plus = "
            f"{want_p[r]:.6g}, minus = {want_m[r]:.6g}."
        )
        if np.allclose(gp, want_m, atol=1e-9) and np.allclose(gm, want_p, atol=1e-9):
            hint = (
                "Plus and minus are swapped: an agreeing pair (s_i = s_j) can only give the "
                "'+' outcome (|i> + |j>)/sqrt(2)."
            )
        elif np.allclose(gp, 2 * want_p, atol=1e-9) and np.allclose(gm, 2 * want_m, atol=1e-9):
            hint = "Remember the 1/sqrt(2) of the client's basis vectors: |(s_i ± s_j)|^2 / (2P)."
        elif np.allclose(gp, P * want_p, atol=1e-9) and np.allclose(gm, P * want_m, atol=1e-9):
            hint = "Normalise the server's state: its amplitudes are s_i / sqrt(P)."
        elif np.allclose(gp, np.sqrt(want_p), atol=1e-9) and np.allclose(
            gm, np.sqrt(want_m), atol=1e-9
        ):
            hint = "The Born rule squares the amplitude <b|psi_s>."
        else:
            hint = (
                "The amplitude of outcome (|i> ± |j>)/sqrt(2) is (psi_i ± psi_j)/sqrt(2); "
                "its probability is the square."
            )
        return failed(f"{what}: not right on {detail} Hint: {hint}")
    return passed(
        f"{what}: correct on all {cases} instances (P = 2 to 64), including agreeing, "
        "disagreeing and partial matchings."
    )


# --------------------------------------------------------------------------------------------
# Build it yourself: the GapIP ping-pong in NumPy
# --------------------------------------------------------------------------------------------
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


def _pingpong_variants(g: np.ndarray, h: np.ndarray, k: int) -> dict[str, float]:
    """Values that common slips produce (for the hints)."""
    theta = alignment_angle(g, h)

    def run(a: np.ndarray, b: np.ndarray, kk: int) -> float:
        state = a.copy()
        for _ in range(kk):
            state = 2 * b * (b @ state) - state  # R_h (b need not be a unit vector)
            state = 2 * a * (a @ state) - state  # R_g
        return float(1.0 - (b @ state) ** 2 / (b @ b))

    raw_g, raw_h = np.append(g, 1.0), np.append(h, 1.0)
    return {
        "complement": math.cos((2 * k + 1) * theta) ** 2,
        "order": math.sin((2 * k - 1) * theta) ** 2 if k else float("nan"),
        "extra": math.sin((2 * k + 3) * theta) ** 2,
        "angle": math.sin(2 * k * theta) ** 2,
        "offset": run(g, h, k),
        "norm": run(raw_g, raw_h, k),
    }


def check_pingpong_probability(fn) -> Feedback:
    """Code-graded: the reader's ``fn(g, h, k) -> float``, the probability that the client's
    final measurement says "not a_h" after ``k`` iterations (server prepares ``|a_g>``; each
    iteration the client reflects about ``|a_h>``, then the server about ``|a_g>``), computed by
    building ``|a_g>`` and ``|a_h>`` as NumPy vectors and applying ``R = 2|a><a| - 1``. ``g``,
    ``h``: unit vectors of length ``P``. Checked on nine seeded instances (``P = 2 .. 16``,
    ``<g, h>`` from -0.7 to 0.9, ``k = 0 .. 6``) against
    :func:`qring_edu.alignment.gapip_probability`, absolute tolerance 1e-9; the first failing
    instance is reported with a hint.

    Examples
    --------
    >>> check_pingpong_probability(lambda g, h, k: 0.5).passed
    False
    >>> check_pingpong_probability(None).message[:19]
    'Not attempted yet: '
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
                return Feedback(
                    False,
                    f"Not attempted yet: your function for {what} returns None; write its body.",
                )
            return failed(f"{what}: your function returned None on {case}.")
        value, fb = as_number(result, f"{what} on {case}")
        if fb is not None:
            return fb
        want = gapip_probability(g, h, k)
        if abs(value - want) <= 1e-9:
            continue
        variants = _pingpong_variants(g, h, k)
        hints = {
            "complement": "That is the probability of the outcome a_h; return its complement.",
            "order": "Each iteration starts with the client's R_h (R_g first does nothing to "
            "|a_g>), then the server's R_g: you are one iteration short.",
            "extra": "One iteration too many: k iterations are k applications of R_g R_h.",
            "angle": "Count the angles: the state starts at angle θ from |a_h> and each "
            "iteration rotates it by 2θ.",
            "offset": "Include the offset basis state |P>: |a_g> = (|P> + sum_i g_i |i>)/sqrt(2).",
            "norm": "Normalise |a_g> and |a_h> (the 1/sqrt(2)); a reflection 2|a><a| - 1 needs a "
            "unit vector.",
        }
        hint = next(
            (
                hints[name]
                for name, v in variants.items()
                if not math.isnan(v) and abs(value - v) <= 1e-9
            ),
            "Build |a_g>, |a_h> (length P + 1 is enough), apply R_h then R_g k times to "
            "|a_g>, and return 1 - <a_h|state>^2.",
        )
        return failed(
            f"{what}: not right on {case}: you gave {value:.9g}, expected {want:.9g}. Hint: {hint}"
        )
    return passed(
        f"{what}: correct on all {len(_PINGPONG_CASES)} instances (P = 2 to 16, k = 0 to 6)."
    )


# --------------------------------------------------------------------------------------------
# Step checkers of the reasoning exercises
# --------------------------------------------------------------------------------------------


def check_test_overlap(answer, signs) -> Feedback:
    """Probability that the adversary's projection onto the public test state
    ``|psi_1> = |+>^n`` accepts a data copy ``|psi_s>``: ``<psi_1|psi_s>^2 = (sum_i s_i / P)^2``
    (unpadded copies). Absolute tolerance 1e-6.

    Examples
    --------
    >>> check_test_overlap(0.25, [1, 1, -1, 1, 1, -1, 1, 1]).passed
    True
    """
    try:
        s = check_signs(signs)
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    P = s.size
    expected = float((s.astype(float).sum() / P) ** 2)
    what = f"|<psi_1|psi_s>|^2 for s = {s.tolist() if P <= 16 else f'{P} signs'}"
    fb = compare_number(answer, expected, tol=1e-6, what=what)
    if fb.passed or answer is None:
        return fb
    if close(answer, abs(s.sum()) / P, tol=1e-6):
        return failed(f"{what}: that is the overlap itself; the probability is its square.")
    if close(answer, 1.0, tol=1e-6):
        return failed(
            f"{what}: 1 is the probability for a test copy (s = all +1); this copy "
            "carries other signs."
        )
    return failed(f"{what}: not right. <psi_1|psi_s> = sum_i (1/sqrt(P)) (s_i/sqrt(P)).")


def check_phase_estimation_qubits(answer, P: int, K: int) -> Feedback:
    """Qubits that cross in one phase-estimation shot of power ``K`` for vectors of length ``P``:
    ``(n + 1)(2K - 1)``, ``n = ceil(log2(P + 1))``. Exact integer.

    Examples
    --------
    >>> check_phase_estimation_qubits(77, 1000, 4).passed
    True
    """
    try:
        n = n_register_qubits(P)
        if isinstance(K, bool) or not isinstance(K, numbers.Integral) or K < 1:
            raise ValueError(f"K must be an integer >= 1, got {K!r}")
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    expected = (n + 1) * (2 * K - 1)
    what = f"qubits of one phase-estimation shot (P = {P}, K = {K})"
    value, fb = as_integer(answer, what)
    if fb is not None:
        return fb
    if value == expected:
        return passed(f"{what}: correct ({expected}: {2 * K - 1} passes of {n + 1} qubits).")
    if value == n * (2 * K - 1):
        return failed(
            f"{what}: the control qubit travels with the register: n + 1 qubits per pass."
        )
    if value in ((n + 1) * (2 * K + 1), (n + 1) * 2 * K, n * (2 * K + 1)):
        return failed(
            f"{what}: count the passes again: the first controlled-R_g acts trivially "
            "on |+>|a_g> and is skipped, so a shot is 2K - 1 passes."
        )
    return failed(
        f"{what}: {value} is not right. n = ceil(log2(P + 1)) register qubits plus the "
        "control, times the number of passes."
    )


def check_vector_bits(answer, P: int, tau: float) -> Feedback:
    """Bits of the send-the-vector protocol, ``P b`` with the smallest ``b`` such that
    ``L = 2^(b-1) - 1 > sqrt(P)/(2 tau)``. Reference: :func:`qring_edu.alignment.vector_bits`;
    exact integer.

    Examples
    --------
    >>> check_vector_bits(2304, 2**8, 0.05).passed
    True
    """
    try:
        expected = vector_bits(P, tau)
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
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


def check_y_variance(answer, alpha: float, f: float) -> Feedback:
    """``Var Y`` of one TieAudit copy (``Y`` = +1 with probability ``alpha (1 - f)``, -1 with
    ``alpha f``, 0 otherwise): ``alpha - alpha^2 (1 - 2f)^2``. Absolute tolerance 1e-6.

    Examples
    --------
    >>> check_y_variance(0.0975, 0.1, 0.25).passed
    True
    """
    if (
        not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in (alpha, f))
        or not (0 < alpha <= 1)
        or not (0 <= f <= 1)
    ):
        return bad_parameters(ValueError("need 0 < alpha <= 1 and 0 <= f <= 1"))
    expected = alpha - alpha**2 * (1 - 2 * f) ** 2
    what = f"Var Y at α = {alpha:g}, f = {f:g}"
    fb = compare_number(answer, expected, tol=1e-6, what=what)
    if fb.passed or answer is None:
        return fb
    if close(answer, alpha, tol=1e-6):
        return failed(f"{what}: that is E[Y^2]; subtract E[Y]^2.")
    if close(answer, alpha * (1 - alpha), tol=1e-6):
        return failed(
            f"{what}: that is the variance of the indicator 'a pair outcome'; Y takes "
            "three values, -1, 0 and +1."
        )
    return fb


def check_ratio_bias(answer, signs, matching, noise: float) -> Feedback:
    """Many-copies bias ``f_w - f`` of the ratio estimator under dephasing ``noise`` (each pair
    ``(i, j)`` weighted by ``(1 - 2 noise)^|i XOR j|``). Reference:
    :func:`qring_edu.sign_audit.ratio_bias`; absolute tolerance 1e-4.

    Examples
    --------
    >>> check_ratio_bias(0.1098, [1, -1, 1, 1, 1, 1, 1, 1], [[0, 1], [2, 5]], 0.1).passed
    True
    """
    try:
        s = check_signs(signs)
        m = check_matching(matching, s.size)
        expected = ratio_bias(s, m, noise)
        f = disagreement_fraction(s, m)
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    what = f"ratio bias under dephasing p = {noise:g}"
    fb = compare_number(answer, expected, tol=1e-4, what=what)
    if fb.passed or answer is None:
        return fb
    if close(answer, expected + f, tol=1e-4):
        return failed(f"{what}: that is the weighted fraction f_w itself; the bias is f_w - f.")
    if close(answer, -expected, tol=1e-4):
        return failed(f"{what}: check the sign: bias = f_w - f.")
    return failed(
        f"{what}: not right. Weight each pair by w = (1 - 2p)^(Hamming distance of i "
        "and j), f_w = sum w d / sum w with d = 1 for a disagreeing pair."
    )
