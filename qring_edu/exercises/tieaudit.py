"""Exercise checkers of the TieAudit chapter (book/08_tieaudit.ipynb; presentation floor). The rules
every checker keeps are in :mod:`~qring_edu.exercises._base`.

:func:`check_tieaudit_measurement` grades *code*: the reader's function on seeded random instances.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_float
from ..experiments.tieaudit import (
    disagreement_fraction,
    random_matching,
    signs_with_disagreement,
    tieaudit_crossover,
)
from ..experiments.tieaudit_noise import ratio_bias
from ..tieaudit import Dephasing, check_matching, check_signs, outcome_probabilities, tieaudit_cost
from ._base import (
    Feedback,
    as_integer,
    as_number,
    call_reader,
    checker,
    close,
    compare_number,
    failed,
    grade,
    passed,
)

__all__ = [
    "check_expected_y",
    "check_tieaudit_qubits",
    "check_crossover",
    "check_calibrated_estimate",
    "check_tieaudit_measurement",
    "check_test_overlap",
    "check_y_variance",
    "check_ratio_bias",
]


@checker
def check_expected_y(answer, alpha: float, f: float) -> Feedback:
    """``E[Y]`` of one copy when a fraction ``alpha`` of coordinates is matched and a fraction
    ``f`` of pairs disagree. Reference ``alpha (1 - 2 f)``; absolute tolerance 1e-6.

    Examples
    --------
    >>> check_expected_y(0.25, 0.5, 0.25).passed                # alpha (1 - 2 f)
    True
    """
    alpha = check_float(alpha, "alpha", 0.0, 1.0, lo_open=True)
    f = check_float(f, "f", 0.0, 1.0)
    expected = alpha * (1 - 2 * f)
    what = f"E[Y] at α = {alpha:g}, f = {f:g}"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    cases = {
        1 - 2 * f if alpha != 1 else None: "unmatched outcomes give Y = 0 and happen with "
        "probability 1 − α.",
        alpha * (1 - f): "that is P(Y = +1); subtract P(Y = −1).",
        expected: f"correct ({value:g}).",
        ...: f"{value:g} is not right (tolerance 1e-06). Check your formula.",
    }
    return grade(value, expected, what, cases, tol=1e-6)


@checker
def check_tieaudit_qubits(answer, P: int, eps: float, delta: float) -> Feedback:
    """Qubits sent by the noiseless quantum TieAudit protocol for ``P`` coordinates, full
    matching. Reference: :func:`qring_edu.tieaudit.tieaudit_cost`; exact integer.

    Examples
    --------
    >>> from qring_edu.tieaudit import tieaudit_copies, tieaudit_cost
    >>> check_tieaudit_qubits(tieaudit_cost(1024, 0.1), 1024, 0.1, 0.05).passed
    True
    """
    expected = tieaudit_cost(P, eps, delta=delta)
    what = f"quantum TieAudit qubits at P = {P}, ε = {eps:g}, δ = {delta:g}"
    fb = compare_number(answer, expected, tol=0.0, what=what)
    if not fb.passed and close(answer, expected // (P.bit_length() - 1), tol=0.0):
        return failed(f"{what}: that is the number of copies; each copy is log₂P qubits.")
    return fb


@checker
def check_crossover(answer, eps: float) -> Feedback:
    """Smallest ``P = 2^n`` where quantum TieAudit (full matching, δ = 0.05) sends fewer qubits
    than the classical protocol sends bits. The answer may be ``P`` or ``n = log2 P``.
    Reference: :func:`qring_edu.experiments.tieaudit.tieaudit_crossover`.

    Examples
    --------
    >>> check_crossover(2**16, 0.05).passed, check_crossover(16, 0.05).passed   # P or log2 P
    (True, True)
    """
    expected = tieaudit_crossover(eps)
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


@checker
def check_calibrated_estimate(answer, mean_data: float, mean_test: float) -> Feedback:
    """``f_hat`` from the mean ``Y`` of the data copies and of the hidden all-agree test copies
    (ratio estimator ``(1 - mean_data/mean_test)/2``); absolute tolerance 1e-6.

    Examples
    --------
    >>> check_calibrated_estimate(0.25, 0.3, 0.6).passed        # (1 - 0.3 / 0.6) / 2
    True
    """
    mean_data = check_float(mean_data, "mean_data")
    mean_test = check_float(mean_test, "mean_test", 0.0, lo_open=True)
    expected = (1 - mean_data / mean_test) / 2
    what = f"f̂ from Ȳ_data = {mean_data:g}, Ȳ_test = {mean_test:g}"
    fb = compare_number(answer, expected, tol=1e-6, what=what)
    if not fb.passed and close(answer, (1 - mean_data) / 2, tol=1e-6):
        return failed(
            f"{what}: that ignores the attenuation; divide by the test copies' mean "
            "(which estimates α η)."
        )
    return fb


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


def _match(got, plus, minus) -> bool:
    return np.allclose(got[0], plus, atol=1e-9) and np.allclose(got[1], minus, atol=1e-9)


def check_tieaudit_measurement(fn, *, cases: int = 12, seed: int = 0) -> Feedback:
    """Code-graded: the reader's ``fn(signs, matching) -> (plus, minus)``.

    For one copy of the server's state ``|psi_s> = sum_i s_i |i> / sqrt(P)`` and each pair
    ``r = (i, j)`` of the matching (rows of an integer array of shape ``(m, 2)``), ``plus[r]`` is
    the probability of the client's outcome ``(|i> + |j>)/sqrt(2)`` and ``minus[r]`` that of
    ``(|i> - |j>)/sqrt(2)`` (two arrays of length ``m``). Checked on ``cases`` seeded instances
    (``P = 2 .. 64``) against :func:`qring_edu.tieaudit.outcome_probabilities` (1e-9).

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
                return failed(
                    f"Not attempted yet: your function for {what} returns None; write its body."
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
        if _match(got, want_p, want_m):
            continue
        P = s.size
        ok = np.isclose(gp, want_p, atol=1e-9) & np.isclose(gm, want_m, atol=1e-9)
        r = int(np.flatnonzero(~ok)[0])
        i, j = (int(v) for v in m[r])
        detail = (
            f"{case}: pair ({i}, {j}) with s_{i} = {int(s[i]):+d}, s_{j} = {int(s[j]):+d}: "
            f"you gave plus = {gp[r]:.6g}, minus = {gm[r]:.6g}; expected plus = "
            f"{want_p[r]:.6g}, minus = {want_m[r]:.6g}."
        )
        if _match(got, want_m, want_p):
            hint = (
                "Plus and minus are swapped: an agreeing pair (s_i = s_j) can only give the "
                "'+' outcome (|i> + |j>)/sqrt(2)."
            )
        elif _match(got, 2 * want_p, 2 * want_m):
            hint = "Remember the 1/sqrt(2) of the client's basis vectors: |(s_i ± s_j)|^2 / (2P)."
        elif _match(got, P * want_p, P * want_m):
            hint = "Normalise the server's state: its amplitudes are s_i / sqrt(P)."
        elif _match(got, np.sqrt(want_p), np.sqrt(want_m)):
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


@checker
def check_test_overlap(answer, signs) -> Feedback:
    """Probability that the adversary's projection onto the public test state
    ``|psi_1> = |+>^n`` accepts a data copy ``|psi_s>``: ``<psi_1|psi_s>^2 = (sum_i s_i / P)^2``
    (unpadded copies). Absolute tolerance 1e-6.

    Examples
    --------
    >>> check_test_overlap(0.25, [1, 1, -1, 1, 1, -1, 1, 1]).passed
    True
    """
    s = check_signs(signs)
    P = s.size
    expected = float((s.astype(float).sum() / P) ** 2)
    what = f"|<psi_1|psi_s>|^2 for s = {s.tolist() if P <= 16 else f'{P} signs'}"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    cases = {
        abs(s.sum()) / P: "that is the overlap itself; the probability is its square.",
        1.0: "1 is the probability for a test copy (s = all +1); this copy carries other signs.",
        expected: f"correct ({value:g}).",
        ...: "not right. <psi_1|psi_s> = sum_i (1/sqrt(P)) (s_i/sqrt(P)).",
    }
    return grade(value, expected, what, cases, tol=1e-6)


@checker
def check_y_variance(answer, alpha: float, f: float) -> Feedback:
    """``Var Y`` of one TieAudit copy (``Y`` = +1 with probability ``alpha (1 - f)``, -1 with
    ``alpha f``, 0 otherwise): ``alpha - alpha^2 (1 - 2f)^2``. Absolute tolerance 1e-6.

    Examples
    --------
    >>> check_y_variance(0.0975, 0.1, 0.25).passed
    True
    """
    alpha = check_float(alpha, "alpha", 0.0, 1.0, lo_open=True)
    f = check_float(f, "f", 0.0, 1.0)
    expected = alpha - alpha**2 * (1 - 2 * f) ** 2
    what = f"Var Y at α = {alpha:g}, f = {f:g}"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    cases = {
        alpha: "that is E[Y^2]; subtract E[Y]^2.",
        alpha * (1 - alpha): "that is the variance of the indicator 'a pair outcome'; Y takes "
        "three values, -1, 0 and +1.",
        expected: f"correct ({value:g}).",
        ...: f"{value:g} is not right (tolerance 1e-06). Check your formula.",
    }
    return grade(value, expected, what, cases, tol=1e-6)


@checker
def check_ratio_bias(answer, signs, matching, noise: float) -> Feedback:
    """Many-copies bias ``f_w - f`` of the ratio estimator under dephasing ``noise`` (each pair
    ``(i, j)`` weighted by ``(1 - 2 noise)^|i XOR j|``). Reference:
    :func:`qring_edu.experiments.tieaudit_noise.ratio_bias`; absolute tolerance 1e-4.

    Examples
    --------
    >>> check_ratio_bias(0.1098, [1, -1, 1, 1, 1, 1, 1, 1], [[0, 1], [2, 5]], 0.1).passed
    True
    """
    s = check_signs(signs)
    m = check_matching(matching, s.size)
    expected = ratio_bias(s, m, Dephasing(noise))
    f = disagreement_fraction(s, m)
    what = f"ratio bias under dephasing p = {noise:g}"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    cases = {
        expected + f: "that is the weighted fraction f_w itself; the bias is f_w - f.",
        -expected: "check the sign: bias = f_w - f.",
        expected: f"correct ({value:g}).",
        ...: "not right. Weight each pair by w = (1 - 2p)^(Hamming distance of i "
        "and j), f_w = sum w d / sum w with d = 1 for a disagreeing pair.",
    }
    return grade(value, expected, what, cases, tol=1e-4)
