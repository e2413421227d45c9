"""Experiments of the TieAudit chapter (book/06_alignment.ipynb): instances, the exact failure
probabilities and plans, scaling and crossovers per family of bounds, one-way against
two-message communication, the noise threshold's crossover, the explorer, the noise, attack and
dephasing sweeps, and the coverage of the intervals against adaptive sources.

Pure: every number comes from :mod:`qring_edu.tieaudit`; results are frozen dataclasses
(figures: :mod:`qring_edu.figures.tieaudit`). Shared by the chapter, the claims page, the tests
and ``make bench``.

* :func:`random_matching`, :func:`signs_with_disagreement`: instances with a given ``f``.
* :func:`tieaudit_failure_probability`, :func:`tieaudit_worst_failure`, :func:`exact_copies`,
  :func:`classical_worst_failure`, :func:`exact_subset_size`: exact laws of the estimators and
  the exact plans (independent copies, noiseless).
* :func:`tieaudit_scaling`, :func:`tieaudit_crossover`, :func:`tieaudit_crossover_table`,
  :func:`tieaudit_copy_plans`, :func:`tieaudit_copies_curve`: costs and crossovers per family.
* :func:`message_comparison`: one-way quantum and classical against the two-message protocol.
* :func:`tieaudit_noise_crossover`: where quantum wins under per-pair Werner noise.
* :func:`noise_sweep`, :func:`tieaudit_attack_sweep`, :func:`dephasing_sweep`, :func:`ratio_bias`:
  the verified protocol against noise and attacks, and what goes wrong without the twirl.
* :func:`adaptive_coverage`: the Freedman interval and an independent-copies interval against
  sources that adapt copy by copy (:class:`ConstantSource`, :class:`OutcomeWalk`,
  :class:`LabelWalk`).
* :func:`audit_explorer`, :func:`tieaudit_curves`: what the chapter's widgets compute.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import field

import numpy as np

from .._result import result
from .._validate import check_choice, check_float, check_int, check_seed
from ..tieaudit import (
    TEST_FRACTION,
    DataOnlyAttack,
    Dephasing,
    Depolarizing,
    Estimate,
    LocalDepolarizing,
    check_matching,
    check_signs,
    classical_subset_size,
    copy_y_law,
    outcome_probabilities,
    tieaudit,
    tieaudit_circuit,
    tieaudit_copies,
    tieaudit_cost,
    tieaudit_interval,
)
from ._base import Rows, Table, loglog_slope, rng

__all__ = [
    "random_matching",
    "signs_with_disagreement",
    "disagreement_fraction",
    "outcome_index",
    "ratio_bias",
    "tieaudit_sample_qiskit",
    "tieaudit_failure_probability",
    "tieaudit_worst_failure",
    "exact_copies",
    "classical_worst_failure",
    "exact_subset_size",
    "DEFAULT_LOG2_P",
    "TieAuditScaling",
    "tieaudit_crossover",
    "tieaudit_scaling",
    "tieaudit_curves",
    "MessageComparison",
    "message_comparison",
    "tieaudit_noise_threshold",
    "tieaudit_noise_crossover",
    "AuditExplorer",
    "audit_explorer",
    "NoiseSweep",
    "noise_sweep",
    "CopyPlan",
    "CopyPlans",
    "tieaudit_copy_plans",
    "CopiesCurve",
    "tieaudit_copies_curve",
    "TieAuditCrossovers",
    "tieaudit_crossover_table",
    "ATTACK_CASES",
    "AttackSweep",
    "tieaudit_attack_sweep",
    "DephasingSweep",
    "dephasing_sweep",
    "ConstantSource",
    "OutcomeWalk",
    "LabelWalk",
    "PoolTracking",
    "AdaptiveCoverage",
    "adaptive_coverage",
    "wald_ratio_interval",
]

#: log2 P = 8, 10, ..., 24.
DEFAULT_LOG2_P = tuple(range(8, 25, 2))


def _check_eps(eps) -> float:
    return check_float(eps, "eps", 0.0, 1.0, lo_open=True, hi_open=True)


def _check_delta(delta) -> float:
    return check_float(delta, "delta", 0.0, 0.5, lo_open=True, hi_open=True)


def _check_alpha(alpha) -> float:
    return check_float(alpha, "alpha", 0.0, 1.0, lo_open=True)


def _truth(s: np.ndarray, m: np.ndarray) -> float:
    return float(np.mean(s[m[:, 0]] != s[m[:, 1]]))


# --------------------------------------------------------------------------------------------
# Instances
# --------------------------------------------------------------------------------------------


def random_matching(P: int, alpha: float = 1.0, seed=None) -> np.ndarray:
    """A uniformly random matching of ``round(alpha P / 2)`` pairs (at least one) of ``P = 2^n``
    coordinates, shape ``(m, 2)``.

    Examples
    --------
    >>> random_matching(16, 0.5, seed=0).shape
    (4, 2)
    """
    P = check_int(P, "P", 2, 2**30)
    if P & (P - 1):
        raise ValueError(f"P must be a power of two, got {P}")
    alpha = _check_alpha(alpha)
    check_seed(seed)
    m = max(1, int(round(alpha * P / 2)))
    perm = np.random.default_rng(seed).permutation(P)[: 2 * m]
    return perm.reshape(m, 2).astype(np.int64)


def signs_with_disagreement(matching, P: int, f: float, seed=None) -> np.ndarray:
    """Random signs of length ``P`` such that exactly ``round(f m)`` matched pairs disagree.

    Examples
    --------
    >>> m = random_matching(64, 1.0, seed=1)
    >>> disagreement_fraction(signs_with_disagreement(m, 64, 0.25, seed=2), m)
    0.25
    """
    P = check_int(P, "P", 2, 2**30)
    m = check_matching(matching, P)
    f = check_float(f, "f", 0.0, 1.0)
    check_seed(seed)
    gen = np.random.default_rng(seed)
    s = gen.choice(np.array([-1, 1], dtype=np.int8), size=P)
    flip = np.zeros(len(m), dtype=bool)
    flip[gen.permutation(len(m))[: int(round(f * len(m)))]] = True
    s[m[:, 1]] = np.where(flip, -s[m[:, 0]], s[m[:, 0]])
    return s


def disagreement_fraction(signs, matching) -> float:
    """The true ``f``: fraction of pairs ``(i, j)`` of the matching with ``s_i != s_j``.

    Examples
    --------
    >>> disagreement_fraction([1, -1, 1, 1], [[0, 1], [2, 3]])
    0.5
    """
    s = check_signs(signs)
    m = check_matching(matching, s.size)
    return float(np.mean(s[m[:, 0]] != s[m[:, 1]]))


def outcome_index(matching, P: int) -> np.ndarray:
    """Computational-basis index that the circuits of :func:`qring_edu.tieaudit_circuit` report
    for each outcome of :func:`qring_edu.tieaudit.outcome_probabilities`: ``i`` for "+" of pair
    ``(i, j)``, ``j`` for "-", ``k`` for unmatched ``k``.

    Examples
    --------
    >>> outcome_index([[0, 3]], 4).tolist()
    [0, 3, 1, 2]
    """
    m = check_matching(matching, P)
    unmatched = np.ones(P, dtype=bool)
    unmatched[m.ravel()] = False
    return np.concatenate([m.ravel(), np.flatnonzero(unmatched)])


def ratio_bias(signs, matching, channel) -> float:
    """Many-copies limit of ``f_hat - f`` *without* the twirl: ``f_w - f`` with ``f_w = sum_e w_e
    d_e / sum_e w_e``, ``w_e`` the coherence pair ``e`` keeps (``(1 - 2 noise)^|i XOR j|`` under
    :class:`~qring_edu.tieaudit.Dephasing`; a constant under
    :class:`~qring_edu.tieaudit.Depolarizing`, where the bias is 0) and ``d_e = [s_i != s_j]``:
    equivalently ``cov_M(w, d) / mean_M(w)``. The protocol's twirl removes it.

    Examples
    --------
    >>> from qring_edu.tieaudit import Dephasing
    >>> s = [1, -1, 1, 1, 1, 1, 1, 1]            # pair (0, 1) disagrees, Hamming distance 1
    >>> m = [[0, 1], [2, 5]]                      # pair (2, 5): 2 XOR 5 = 7, distance 3
    >>> round(ratio_bias(s, m, Dephasing(0.1)), 4)   # f = 1/2, f_w = 0.8 / (0.8 + 0.512)
    0.1098
    """
    s = check_signs(signs)
    m = check_matching(matching, s.size)
    if isinstance(channel, Depolarizing):
        return 0.0
    if not isinstance(channel, Dephasing):
        raise TypeError(f"channel must be Depolarizing or Dephasing, got {channel!r}")
    w = (1.0 - 2.0 * channel.noise) ** np.bitwise_count(m[:, 0] ^ m[:, 1]).astype(np.float64)
    if w.sum() == 0.0:
        raise ValueError("channel dephases every pair completely: the ratio is undefined")
    d = (s[m[:, 0]] != s[m[:, 1]]).astype(np.float64)
    return float((w @ d) / w.sum() - d.mean())


def tieaudit_sample_qiskit(
    signs, matching, shots: int = 1000, *, protocol: str = "quantum", seed=None
) -> np.ndarray:
    """Sample the client's outcomes of :func:`qring_edu.tieaudit_circuit` on ``AerSimulator``
    (decomposed to ``u``/``cx`` first); counts in the order of
    :func:`qring_edu.tieaudit.outcome_probabilities`.

    Examples
    --------
    >>> tieaudit_sample_qiskit([1, 1], [[0, 1]], 100, seed=0).tolist()   # agree: always "+"
    [100, 0]
    """
    from qiskit import transpile
    from qiskit_aer import AerSimulator

    s = check_signs(signs)
    m = check_matching(matching, s.size)
    shots = check_int(shots, "shots", 1, 10**6)
    check_seed(seed)
    n = s.size.bit_length() - 1
    sim_seed = int(np.random.default_rng(seed).integers(2**31))
    qc = transpile(
        tieaudit_circuit(s, m, protocol=protocol),
        basis_gates=["u", "cx"],
        optimization_level=1,
        seed_transpiler=0,
    )
    counts = AerSimulator(seed_simulator=sim_seed).run(qc, shots=shots).result().get_counts()
    by_index = np.zeros(s.size, dtype=np.int64)
    for key, c in counts.items():
        by_index[int(key, 2) >> (n if protocol != "quantum" else 0)] += c  # client's clbits
    return by_index[outcome_index(m, s.size)]


# --------------------------------------------------------------------------------------------
# Exact failure probabilities and the exact plans (independent copies, noiseless channel)
# --------------------------------------------------------------------------------------------
#: Largest ``copies * alpha`` of the exact worst-case search (it visits every lattice jump).
MAX_EXACT_MEAN = 10**5


def _fail_noiseless(N: int, alpha: float, eps: float, fs: np.ndarray) -> np.ndarray:
    """``P(|f_hat - f| > eps)`` of the noiseless estimator for each ``f`` in ``fs``.

    ``D = N_+ - N_-`` with ``K = N_+ + N_- ~ Bin(N, alpha)`` and ``N_+ | K ~ Bin(K, 1 - f)``;
    ``f_hat > f + eps`` iff ``D < N alpha (1 - 2f - 2 eps)``, ``f_hat < f - eps`` iff
    ``D > N alpha (1 - 2f + 2 eps)`` (the clip to ``[0, 1]`` can only help)."""
    from scipy.stats import binom

    mu, sd = N * alpha, math.sqrt(N * alpha * (1.0 - alpha))
    K = np.arange(max(0, int(mu - 9 * sd) - 1), min(N, int(math.ceil(mu + 9 * sd)) + 1) + 1)
    pK = binom.pmf(K, N, alpha)
    f = np.asarray(fs, dtype=float)[:, None]
    lo = N * alpha * (1.0 - 2.0 * f - 2.0 * eps)
    hi = N * alpha * (1.0 - 2.0 * f + 2.0 * eps)
    tol = 1e-9 * max(1.0, N * alpha)  # D exactly on the boundary is not a failure
    below = np.ceil((lo + K) / 2.0 - tol) - 1.0  # N_+ <= below  <=>  D < lo
    above = np.floor((hi + K) / 2.0 + tol)  # N_+ > above   <=>  D > hi
    q = np.clip(1.0 - f, 0.0, 1.0)
    p = np.where(f + eps < 1.0, binom.cdf(below, K, q), 0.0)
    p = p + np.where(f - eps > 0.0, binom.sf(above, K, q), 0.0)
    return p @ pK


def tieaudit_failure_probability(copies: int, alpha: float, eps: float, f: float) -> float:
    """Exact probability that the noiseless quantum estimate ``f_hat = (1 - mean(Y)/alpha)/2``
    (clipped to ``[0, 1]``) from ``copies`` independent copies misses ``f`` by more than ``eps``,
    from the trinomial law of the counts; ``|f_hat - f| = eps`` exactly counts as success.

    Examples
    --------
    >>> round(tieaudit_failure_probability(4000, 0.1, 0.05, 0.5), 4)
    0.0429
    """
    copies = check_int(copies, "copies", 1, 10**10)
    alpha, eps = _check_alpha(alpha), _check_eps(eps)
    f = check_float(f, "f", 0.0, 1.0)
    return float(_fail_noiseless(copies, alpha, eps, np.array([f]))[0])


def _noiseless_candidates(N: int, alpha: float, eps: float) -> np.ndarray:
    """Every ``f in [0, 1/2]`` where the noiseless failure probability can peak: a grid, both
    one-sided limits at each lattice jump (a boundary ``N alpha (1 - 2f ∓ 2 eps)`` crossing an
    integer) and the midpoints between consecutive points."""
    a = N * alpha
    parts = [np.linspace(0.0, 0.5, 101)]
    for c in (1.0 - 2.0 * eps, 1.0 + 2.0 * eps):
        d = np.arange(math.floor(a * (c - 1.0)) - 1, math.ceil(a * c) + 2)
        fj = (c - d / a) / 2.0
        fj = fj[(fj >= 0.0) & (fj <= 0.5)]
        parts += [fj - 1e-10, fj + 1e-10]
    f = np.unique(np.clip(np.concatenate(parts), 0.0, 0.5))
    return np.concatenate([f, (f[1:] + f[:-1]) / 2.0])


def tieaudit_worst_failure(copies: int, alpha: float, eps: float) -> tuple[float, float]:
    """``(max_f P(|f_hat - f| > eps), argmax f)`` of :func:`tieaudit_failure_probability` over
    ``f in [0, 1]``: the maximum over every lattice jump (exact up to rounding; by the symmetry
    ``f -> 1 - f`` only ``f <= 1/2`` is searched). ``copies * alpha <= 10^5``.

    Examples
    --------
    >>> p, f = tieaudit_worst_failure(4000, 0.1, 0.05)
    >>> round(p, 4), round(f, 3)
    (0.0455, 0.499)
    """
    copies = check_int(copies, "copies", 1)
    alpha, eps = _check_alpha(alpha), _check_eps(eps)
    if copies * alpha > MAX_EXACT_MEAN:
        raise ValueError(
            f"copies * alpha must be <= {MAX_EXACT_MEAN:,} for the exact worst-case search (it "
            f"visits every lattice jump), got {copies * alpha:.4g}"
        )
    fs = _noiseless_candidates(copies, alpha, eps)
    ps = _fail_noiseless(copies, alpha, eps, fs)
    i = int(np.argmax(ps))
    return float(ps[i]), float(fs[i])


def _bisect(fails, lo: int, hi: int) -> int:
    """Smallest ``k`` in ``(lo, hi]`` with ``not fails(k)``, given ``fails(lo)`` and not
    ``fails(hi)`` (the failure decreases with the size)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fails(mid) else (lo, mid)
    return hi


@functools.lru_cache(maxsize=256)
def _exact_copies(alpha: float, eps: float, delta: float) -> int:
    from scipy.stats import norm

    def fails(N: int) -> bool:
        return tieaudit_worst_failure(N, alpha, eps)[0] > delta

    guess = norm.isf(delta / 2.0) ** 2 / (4.0 * alpha * eps * eps)  # worst f = 1/2: Var Y = alpha
    hi = max(2, int(math.ceil(1.15 * guess)))
    if fails(hi):
        hi = tieaudit_copies(alpha, eps, delta)  # Bernstein's plan holds
    lo = max(1, int(0.85 * guess))
    while lo > 1 and not fails(lo):
        lo //= 2
    return lo if not fails(lo) else _bisect(fails, lo, hi)


def exact_copies(alpha: float, eps: float, delta: float = 0.05) -> int:
    """The exact noiseless plan: the smallest ``N`` whose exact worst-case failure probability
    (:func:`tieaudit_worst_failure`) is ``<= delta`` (bisection around the normal approximation;
    seconds, cached). Independent copies, like Hoeffding's and Bernstein's plans.

    Examples
    --------
    >>> exact_copies(1.0, 0.2)
    25
    """
    alpha, eps, delta = _check_alpha(alpha), _check_eps(eps), _check_delta(delta)
    if 1.8 / (eps * eps) > MAX_EXACT_MEAN:
        raise ValueError(
            f"eps = {eps:g} needs more than {MAX_EXACT_MEAN:,} matched copies for the exact "
            "plan; use tieaudit_copies (Bernstein) instead"
        )
    return _exact_copies(alpha, eps, delta)


def _log_choose(n, k):
    from scipy.special import gammaln

    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def _pairs_inside_law(P: int, m: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Law of ``J``, the number of the ``m`` pairs with both ends in a uniformly random
    ``k``-subset of ``P`` coordinates: ``(j, P(J = j))`` on a window of ``±14 sd`` around the mean
    (the mass outside is below 1e-30).

    The subset takes ``T ~ Hypergeom(P, 2m, k)`` matched coordinates, uniformly among the ``2m``;
    given ``T = t``, ``P(J = j) = C(m, j) C(m - j, t - 2j) 2^(t - 2j) / C(2m, t)`` (``j`` full
    pairs, ``t - 2j`` pairs with one end inside)."""
    from scipy.stats import hypergeom

    if 2 * m == P:
        ts, pt = np.array([k]), np.array([1.0])
    else:
        T = hypergeom(P, 2 * m, k)
        mu, sd = float(T.mean()), float(T.std())
        ts = np.arange(
            max(0, k - (P - 2 * m), int(mu - 12 * sd) - 1),
            min(2 * m, k, int(math.ceil(mu + 12 * sd)) + 1) + 1,
        )
        pt = T.pmf(ts)
    mu_j = m * k * (k - 1) / (P * (P - 1))
    w = 14.0 * math.sqrt(mu_j + 1.0)
    j = np.arange(max(0, int(mu_j - w) - 2), min(m, k // 2, int(mu_j + w) + 3) + 1)
    J, TT = np.meshgrid(j, ts, indexing="ij")
    h = TT - 2 * J
    ok = (h >= 0) & (h <= m - J)
    hh = np.where(ok, h, 0)
    lp = _log_choose(m, J) + _log_choose(m - J, hh) + hh * math.log(2.0) - _log_choose(2 * m, TT)
    pj = np.where(ok, np.exp(np.where(ok, lp, 0.0)), 0.0) @ pt
    return j, pj


def _classical_fail(j: np.ndarray, pj: np.ndarray, m: int, D: int, eps: float) -> float:
    """Failure of the classical estimate when ``D`` of the ``m`` pairs disagree: given ``J = j``
    the client sees ``X ~ Hypergeom(m, D, j)`` disagreeing pairs, ``f_hat = X / j`` (``1/2``
    when ``j = 0``). The hypergeometric laws are evaluated in log space on ``±16 sd`` around
    ``j f`` (the mass outside is below 1e-50)."""
    f = D / m
    p = float(pj[j == 0].sum()) if abs(0.5 - f) > eps else 0.0
    keep = (j > 0) & (pj > 1e-300)
    jj, pp = j[keep], pj[keep]
    if not jj.size:
        return p
    if D == 0 or D == m:  # every sampled pair tells the truth
        return p
    sd = math.sqrt(jj.max() * f * (1.0 - f)) + 1.0
    lo_x = max(0, int(jj.min() * f - 16 * sd) - 1)
    hi_x = min(int(jj.max()), int(jj.max() * f + 16 * sd) + 1)
    x = np.arange(lo_x, hi_x + 1)
    X, JJ = np.meshgrid(x, jj)
    ok = (X <= JJ) & (X <= D) & (JJ - X <= m - D)
    # log C(D, x) + log C(m - D, j - x) - log C(m, j) from 1-D tables (gammaln is the cost)
    a = _log_choose(D, np.minimum(x, D))
    r = np.arange(0, int(jj.max()) - lo_x + 1)
    b = _log_choose(m - D, np.minimum(r, m - D))
    c = _log_choose(m, jj)
    lp = a[None, :] + b[np.clip(JJ - X, 0, r.size - 1)] - c[:, None]
    pmf = np.where(ok, np.exp(np.where(ok, lp, -np.inf)), 0.0)
    tol = 1e-9
    fail = (X < JJ * (f - eps) - tol) | (X > JJ * (f + eps) + tol)
    return p + float(pp @ np.where(fail, pmf, 0.0).sum(axis=1))


def classical_worst_failure(P: int, alpha: float, k: int, eps: float) -> tuple[float, float]:
    """Exact ``max_f P(|f_hat - f| > eps)`` of the classical protocol with subset size ``k``, over
    the ``f = D/m`` of a matching of ``m = round(alpha P / 2)`` pairs; returns ``(probability,
    argmax f)``. Exact law of the number of pairs inside the subset (``_pairs_inside_law``),
    hypergeometric sampling of the pairs; ``D`` on a grid of 26 values in ``[0, m/2]`` refined to
    steps of ``m/1000`` around the largest.

    Examples
    --------
    >>> p, f = classical_worst_failure(2**16, 1.0, 7065, 0.05)    # the exact plan
    >>> round(p, 4), round(f, 3)
    (0.05, 0.479)
    """
    P = check_int(P, "P", 2, 2**30)
    alpha, eps = _check_alpha(alpha), _check_eps(eps)
    k = check_int(k, "k", 1, P)
    m = max(1, int(round(alpha * P / 2.0)))
    if m * k * (k - 1) / (P * (P - 1)) > MAX_EXACT_MEAN:
        raise ValueError(
            f"k = {k} puts about {m * k * (k - 1) / (P * (P - 1)):.3g} pairs in the subset, more "
            f"than the exact computation's {MAX_EXACT_MEAN:,}"
        )
    j, pj = _pairs_inside_law(P, m, k)
    grid = np.unique(np.round(np.linspace(0.0, 0.5, 26) * m).astype(np.int64))
    ps = [_classical_fail(j, pj, m, int(D), eps) for D in grid]
    D0 = int(grid[int(np.argmax(ps))])
    step = max(1, m // 1000)
    fine = np.unique(np.clip(np.arange(D0 - 10 * step, D0 + 10 * step + 1, step), 0, m // 2))
    pf = [_classical_fail(j, pj, m, int(D), eps) for D in fine]
    allD = np.concatenate([grid, fine])
    allp = np.array(ps + pf)
    i = int(np.argmax(allp))
    return float(allp[i]), float(allD[i] / m)


@functools.lru_cache(maxsize=256)
def _exact_subset_size(P: int, alpha: float, eps: float, delta: float) -> int:
    from scipy.stats import norm

    def fails(k: int) -> bool:
        return k < P and classical_worst_failure(P, alpha, k, eps)[0] > delta

    m = max(1, int(round(alpha * P / 2.0)))
    # Normal guess: about z^2 / (4 eps^2) pairs (fewer by the finite-population factor).
    need = norm.isf(delta / 2.0) ** 2 / (4.0 * eps * eps)
    need = need / (1.0 + need / m)
    guess = math.sqrt(need * P * (P - 1) / m)
    hi = min(P, int(math.ceil(1.15 * guess)) + 2)
    if fails(hi):
        hi = classical_subset_size(P, alpha, eps, delta)  # Hoeffding's plan holds
    lo = max(1, int(0.85 * guess))
    while lo > 1 and not fails(lo):
        lo //= 2
    return lo if not fails(lo) else _bisect(fails, lo, hi)


def exact_subset_size(P: int, alpha: float, eps: float, delta: float = 0.05) -> int:
    """The exact plan of the one-way classical protocol: the smallest subset size ``k`` whose
    exact worst-case failure probability (:func:`classical_worst_failure`) is ``<= delta``
    (bisection; seconds, cached), about 2.1 times fewer bits than
    :func:`qring_edu.tieaudit.classical_subset_size`.

    Examples
    --------
    >>> exact_subset_size(2**12, 0.5, 0.05)
    2145
    """
    P = check_int(P, "P", 2, 2**30)
    if P & (P - 1):
        raise ValueError(f"P must be a power of two, got {P}")
    alpha, eps, delta = _check_alpha(alpha), _check_eps(eps), _check_delta(delta)
    if 1.8 / (eps * eps) > MAX_EXACT_MEAN:
        raise ValueError(f"eps = {eps:g} is too small for the exact plan; use the Hoeffding plan")
    return _exact_subset_size(P, alpha, eps, delta)


# --------------------------------------------------------------------------------------------
# Costs against P: scaling, crossovers per family, one-way against two messages
# --------------------------------------------------------------------------------------------
#: Families of bounds of the crossovers: how the quantum copies and the classical subset are
#: planned (Bernstein gives the classical side nothing beyond Hoeffding).
TIEAUDIT_FAMILIES = ("hoeffding", "bernstein", "exact")


def _quantum_plan(alpha: float, eps: float, delta: float, bound: str) -> int:
    """Noiseless copies of one family (a trusted channel, independent copies)."""
    if bound == "exact":
        return exact_copies(alpha, eps, delta)
    return tieaudit_copies(alpha, eps, delta, bound=bound)


@result(show=("copies", "classical_slope"))
class TieAuditScaling:
    """Result of :func:`tieaudit_scaling` (arrays indexed like ``Ps``): planned costs (qubits,
    bits), and for the sizes that were run the largest error and the fraction within ``eps``
    (nan where not run).

    Examples
    --------
    >>> s = tieaudit_scaling((8, 10), 0.1, trials=1)
    >>> s
    TieAuditScaling(eps=0.1, alpha=1, delta=0.05, crossover_P=8192, trials=1, bound='bernstein', copies=185, classical_slope=nan)
    >>> s.Ps.tolist(), s.quantum_cost.tolist()
    ([256, 1024], [1480.0, 1850.0])
    """

    eps: float
    alpha: float
    delta: float
    Ps: np.ndarray = field(repr=False)
    quantum_cost: np.ndarray = field(repr=False)
    classical_cost: np.ndarray = field(repr=False)
    quantum_error: np.ndarray = field(repr=False)
    classical_error: np.ndarray = field(repr=False)
    quantum_within: np.ndarray = field(repr=False)
    classical_within: np.ndarray = field(repr=False)
    crossover_P: int = 0
    trials: int = 0
    bound: str = "bernstein"

    @property
    def copies(self) -> int:
        """Copies of the quantum protocol (independent of ``P``)."""
        return _quantum_plan(self.alpha, self.eps, self.delta, self.bound)

    @property
    def classical_slope(self) -> float:
        """log-log slope of the classical cost where it is below ``P`` (nan: fewer than 2 sizes)."""
        keep = self.classical_cost < self.Ps
        if keep.sum() < 2:
            return float("nan")
        return loglog_slope(self.Ps[keep], self.classical_cost[keep])

    @property
    def quantum_per_log2P(self) -> np.ndarray:
        """Quantum cost divided by ``log2 P`` (constant = the number of copies)."""
        return self.quantum_cost / np.log2(self.Ps)

    @property
    def quantum_slope_vs_logP(self) -> float:
        """log-log slope of the quantum cost against ``log2 P`` (1 means ``∝ log P``)."""
        return loglog_slope(np.log2(self.Ps), self.quantum_cost)


def tieaudit_crossover(
    eps: float,
    alpha: float = 1.0,
    delta: float = 0.05,
    max_log2_P: int = 60,
    *,
    bound: str = "bernstein",
) -> int:
    """Smallest ``P = 2^n`` at which the quantum protocol (noiseless channel) sends fewer qubits
    than the one-way classical protocol sends bits, both planned with the family ``bound`` (0 if
    none up to ``2^max_log2_P``).

    ``"hoeffding"``: Hoeffding copies against the Hoeffding subset; ``"bernstein"``: Bernstein
    copies against the same subset; ``"exact"``: :func:`exact_copies` against the exact subset
    plan. In the exact family, ``q = N log2 P`` qubits win iff a classical subset of ``q``
    coordinates still fails the guarantee, ``classical_worst_failure(P, alpha, q, eps) > delta``
    (sizes with ``q >= P`` are skipped: sending every sign is cheaper).

    Examples
    --------
    >>> tieaudit_crossover(0.05)
    65536
    >>> tieaudit_crossover(0.05, alpha=0.1, bound="hoeffding") == 2**27
    True
    """
    eps, alpha, delta = _check_eps(eps), _check_alpha(alpha), _check_delta(delta)
    max_log2_P = check_int(max_log2_P, "max_log2_P", 1, 60)
    check_choice(bound, "bound", TIEAUDIT_FAMILIES)
    copies = _quantum_plan(alpha, eps, delta, bound)
    for n in range(1, max_log2_P + 1):
        P, q = 2**n, copies * n
        if bound == "exact":
            if q < min(P, 2**30) and classical_worst_failure(P, alpha, q, eps)[0] > delta:
                return P
        elif q < classical_subset_size(P, alpha, eps, delta):
            return P
    return 0


def tieaudit_scaling(
    log2_P: Sequence[int] = DEFAULT_LOG2_P,
    eps: float = 0.05,
    *,
    alpha: float = 1.0,
    delta: float = 0.05,
    f: float = 0.3,
    run_max_log2_P: int = 16,
    trials: int = 5,
    seed: int = 0,
    bound: str = "bernstein",
) -> TieAuditScaling:
    """Planned costs of the quantum and the one-way classical protocols for ``P = 2^n``, ``n`` in
    ``log2_P`` (``bound``: ``"hoeffding"`` or ``"bernstein"`` plans both sides as
    :func:`tieaudit_crossover` does). For ``n <= run_max_log2_P`` both protocols are also run
    (:func:`qring_edu.tieaudit.tieaudit`, with its own Bernstein plan) ``trials`` times on random
    instances (coverage ``alpha``, ``round(f m)`` disagreeing pairs) and their errors recorded.

    Examples
    --------
    >>> s = tieaudit_scaling((8, 10, 30), 0.1, run_max_log2_P=8, trials=2)
    >>> s.classical_cost.tolist(), s.crossover_P
    ([256.0, 950.0, 972057.0], 8192)
    """
    ns = [check_int(n, "log2_P", 1, 40) for n in log2_P]
    if len(ns) < 2:
        raise ValueError("log2_P must hold at least two sizes")
    eps, alpha, delta = _check_eps(eps), _check_alpha(alpha), _check_delta(delta)
    run_max = check_int(run_max_log2_P, "run_max_log2_P", 0, 26)
    trials = check_int(trials, "trials", 1, 10_000)
    check_choice(bound, "bound", ("hoeffding", "bernstein"))
    check_seed(seed)
    Ps = np.array([2**n for n in ns], dtype=np.int64)
    copies = _quantum_plan(alpha, eps, delta, bound)
    qc = np.array([copies * n for n in ns], float)
    cc = np.array([classical_subset_size(int(P), alpha, eps, delta) for P in Ps], float)
    q_err, c_err, q_in, c_in = (np.full(len(ns), np.nan) for _ in range(4))
    for idx, n in enumerate(ns):
        if n > run_max:
            continue
        eq, ec = [], []
        for trial in range(trials):
            m = random_matching(2**n, alpha, seed=rng(seed, n, trial))
            s = signs_with_disagreement(m, 2**n, f, seed=rng(seed, n, trial, 1))
            e_q = tieaudit(s, m, eps, delta=delta, seed=rng(seed, n, trial, 2))
            e_c = tieaudit(
                s, m, eps, protocol="classical", delta=delta, seed=rng(seed, n, trial, 3)
            )
            eq.append(abs(e_q.value - _truth(s, m)))
            ec.append(abs(e_c.value - _truth(s, m)))
        q_err[idx], c_err[idx] = max(eq), max(ec)
        q_in[idx], c_in[idx] = np.mean(np.array(eq) <= eps), np.mean(np.array(ec) <= eps)
    cross = tieaudit_crossover(eps, alpha, delta, bound=bound)
    return TieAuditScaling(
        eps, alpha, delta, Ps, qc, cc, q_err, c_err, q_in, c_in, cross, trials, bound
    )


def tieaudit_curves(
    eps: float = 0.05, alpha: float = 1.0, delta: float = 0.05, bound: str = "bernstein"
) -> TieAuditScaling:
    """Planned costs for ``P = 2^8 .. 2^30`` (nothing is run), both sides planned with
    ``bound`` (``"hoeffding"`` or ``"bernstein"``).

    Examples
    --------
    >>> curves = tieaudit_curves(0.05)
    >>> int(curves.Ps[0]), int(curves.Ps[-1]), curves.crossover_P
    (256, 1073741824, 65536)
    """
    return tieaudit_scaling(
        range(8, 31, 2), eps, alpha=alpha, delta=delta, run_max_log2_P=0, bound=bound
    )


@result(show=("quantum_over_two_message",))
class MessageComparison:
    """Result of :func:`message_comparison` (arrays indexed like ``Ps``): bits or qubits of the
    quantum protocol (trusted noiseless channel, Bernstein plan), the one-way classical protocol
    and the two-message classical protocol.

    Examples
    --------
    >>> c = message_comparison((16, 24), alpha=0.25)
    >>> c
    MessageComparison(eps=0.05, delta=0.05, alpha=0.25, quantum_over_two_message=(2.02, 2.041))
    >>> c.quantum.tolist(), c.two_message.tolist()
    ([49200, 73800], [24354, 36162])
    """

    eps: float
    delta: float
    alpha: float
    Ps: np.ndarray = field(repr=False)
    quantum: np.ndarray = field(repr=False)
    one_way: np.ndarray = field(repr=False)
    two_message: np.ndarray = field(repr=False)

    @property
    def quantum_over_two_message(self) -> tuple[float, ...]:
        return tuple(float(x) for x in self.quantum / self.two_message)

    def table(self) -> Table:
        rows = tuple(
            (f"2^{int(P).bit_length() - 1}", int(q), int(c), int(t))
            for P, q, c, t in zip(self.Ps, self.quantum, self.one_way, self.two_message)
        )
        return Table(
            ("P", "quantum (qubits)", "one-way classical (bits)", "two messages (bits)"),
            rows,
            ("", ",d", ",d", ",d"),
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()


def message_comparison(
    log2_P: Sequence[int] = DEFAULT_LOG2_P,
    eps: float = 0.05,
    delta: float = 0.05,
    *,
    alpha: float = 1.0,
) -> MessageComparison:
    """The quantum protocol and the one-way classical protocol (:func:`qring_edu.tieaudit_cost`)
    against the two-message classical protocol (:func:`qring_edu.tieaudit.two_message_bits`), for
    ``P = 2^n``: the exponential separation holds for one-way communication only.

    Examples
    --------
    >>> print(message_comparison((24,), alpha=0.25).table())
    P     quantum (qubits)  one-way classical (bits)  two messages (bits)
    2^24            73,800                   485,200               36,162
    """
    ns = [check_int(n, "log2_P", 1, 500) for n in log2_P]
    if not ns:
        raise ValueError("log2_P must hold at least one size")
    eps, delta, alpha = _check_eps(eps), _check_delta(delta), _check_alpha(alpha)
    Ps = np.array([2**n for n in ns], dtype=object if max(ns) > 62 else np.int64)
    cost = {
        p: np.array([tieaudit_cost(2**n, eps, protocol=p, alpha=alpha, delta=delta) for n in ns])
        for p in ("quantum", "classical", "two_message")
    }
    return MessageComparison(
        eps, delta, alpha, Ps, cost["quantum"], cost["classical"], cost["two_message"]
    )


def tieaudit_noise_threshold() -> float:
    """Per-pair fidelity ``F* = 2^(-1/4) ≈ 0.8409`` above which the quantum protocols keep an
    advantage over one-way classical ones, asymptotically (``P -> ∞`` at fixed ``eps, delta,
    alpha``).

    Derivation. Each copy uses ``n = log2 P`` qubits or pairs. With per-pair Werner noise of
    fidelity ``F`` (:class:`~qring_edu.tieaudit.LocalDepolarizing`) the twirled attenuation is
    ``eta = ((4F)^n - 1)/(4^n - 1) ≈ F^n``. A copy has signal-to-noise ratio ``alpha eta^2``
    (``E[Y] = alpha eta g``, ``E[Y^2] = alpha``), so ``N ∝ log(1/delta)/(alpha eta^2 eps^2)``
    copies. The quantum cost is then ``n N ∝ log2(P) F^(-2n) = log2(P) P^(-2 log2 F)``. One-way
    classical protocols need ``Theta(sqrt(P))`` bits at constant ``eps``. Their ratio
    ``log2(P) P^(-2 log2 F - 1/2)`` tends to 0 iff ``-2 log2 F < 1/2``, i.e. ``F > 2^(-1/4)``. At
    the threshold quantum loses by a ``log P`` factor; ``eps, delta, alpha`` move only the
    crossover (:func:`tieaudit_noise_crossover`), which near the
    threshold lies at astronomically large ``P``.

    Examples
    --------
    >>> round(tieaudit_noise_threshold(), 4)
    0.8409
    """
    return 2.0**-0.25


def tieaudit_noise_crossover(
    fidelity: float,
    eps: float = 0.1,
    delta: float = 0.05,
    alpha: float = 1.0,
    max_log2_P: int = 400,
) -> int:
    """Smallest ``n = log2 P`` at which the verified quantum protocol under per-pair Werner noise
    of ``fidelity`` (:class:`~qring_edu.tieaudit.LocalDepolarizing`: ``n`` times the Freedman plan
    for the twirled ``eta``) sends less than the one-way classical protocol
    (:func:`~qring_edu.tieaudit.classical_subset_size`); 0 if none up to ``max_log2_P``. Below
    :func:`~qring_edu.tieaudit.tieaudit_noise_threshold` the answer is 0 for every large enough
    ``max_log2_P``.

    Examples
    --------
    >>> [tieaudit_noise_crossover(F) for F in (1.0, 0.95, 0.9, 0.84)]
    [18, 27, 53, 0]
    """
    fidelity = check_float(fidelity, "fidelity", 0.25, 1.0)
    eps, delta, alpha = _check_eps(eps), _check_delta(delta), _check_alpha(alpha)
    max_log2_P = check_int(max_log2_P, "max_log2_P", 1, 500)
    channel = LocalDepolarizing(fidelity)
    for n in range(1, max_log2_P + 1):
        eta = channel.eta(2**n)
        if eta <= 0.0:
            continue
        try:
            copies = tieaudit_copies(alpha, eps, delta, eta=eta, bound="freedman")
        except ValueError:  # more than MAX_COPIES: the signal is gone for good
            return 0
        if n * copies < classical_subset_size(2**n, alpha, eps, delta):
            return n
    return 0


# --------------------------------------------------------------------------------------------
# The explorer and the noise sweep
# --------------------------------------------------------------------------------------------
#: Channels of the explorer and the attack sweep, by name: noise on every copy, the data-only
#: attack under the secret twirl, and the same attack with the twirl known (or fixed tests).
ATTACK_CASES = ("uniform", "data_only", "knows_twirl")


def _channel(case: str, noise: float):
    """The channel of an attack case at strength ``noise`` (``None``: trusted, noiseless)."""
    check_choice(case, "attack", ATTACK_CASES)
    noise = check_float(noise, "noise", 0.0, 1.0, hi_open=True)
    if case == "uniform":
        return None if noise == 0.0 else Depolarizing(noise)
    return DataOnlyAttack(noise, knows_twirl=case == "knows_twirl")


@result(show=("values",))
class AuditExplorer:
    """One TieAudit instance and the three one-way protocols' estimates on it; ``p_plus``,
    ``p_minus``: the law of ``Y`` on one data copy through the channel.

    Examples
    --------
    >>> ex = audit_explorer(log2_P=5, alpha=0.75, f=0.25, eps=0.1, seed=0)
    >>> ex
    AuditExplorer(eps=0.1, noise=0, f=0.25, alpha=0.75, attack='uniform', values=(0.2164, 0.2164, 0.25))
    >>> len(ex.signs), len(ex.matching), [e.protocol for e in ex.estimates]
    (32, 12, ['quantum', 'entanglement_assisted', 'classical'])
    """

    signs: np.ndarray = field(repr=False)
    matching: np.ndarray = field(repr=False)
    eps: float = 0.1
    noise: float = 0.0
    f: float = 0.0
    alpha: float = 1.0
    p_plus: float = field(default=0.0, repr=False)
    p_minus: float = field(default=0.0, repr=False)
    estimates: tuple[Estimate, ...] = field(default=(), repr=False)
    attack: str = "uniform"

    @property
    def values(self) -> tuple[float, ...]:
        """The estimates of ``f``, one per protocol."""
        return tuple(e.value for e in self.estimates)


def audit_explorer(
    log2_P: int = 5,
    alpha: float = 0.75,
    f: float = 0.25,
    eps: float = 0.1,
    noise: float = 0.0,
    seed: int = 0,
    *,
    attack: str = "uniform",
) -> AuditExplorer:
    """Build an instance (random matching of coverage ``alpha``, ``round(f m)`` disagreeing
    pairs) and run the quantum, entanglement-assisted and classical protocols at accuracy
    ``eps``. The quantum protocols go through the channel of ``attack`` (:data:`ATTACK_CASES`)
    at strength ``noise``; ``"uniform"`` at noise 0 is the trusted noiseless channel. The
    entanglement-assisted protocol meets the attack under its twirl (no source can know its
    frame) and the classical one a noiseless classical channel.

    Examples
    --------
    >>> ex = audit_explorer(log2_P=4, f=0.5, eps=0.2, noise=0.1, seed=3)
    >>> [round(v, 3) for v in ex.values], round(ex.f, 3)
    ([0.543, 0.543, 0.5], 0.5)
    """
    log2_P, seed = check_int(log2_P, "log2_P", 1, 12), check_int(seed, "seed", 0)
    P = 2**log2_P
    m = random_matching(P, alpha, seed=seed)
    s = signs_with_disagreement(m, P, f, seed=seed + 1)
    channel = _channel(attack, noise)
    ea_channel = _channel("data_only", noise) if attack == "knows_twirl" else channel
    p_plus, p_minus = copy_y_law(s, m, channel)
    ests = (
        tieaudit(s, m, eps, channel=channel, seed=seed),
        tieaudit(
            s, m, eps, protocol="entanglement_assisted", channel=ea_channel, seed=seed
        ),
        tieaudit(s, m, eps, protocol="classical", seed=seed),
    )
    return AuditExplorer(
        s, m, float(eps), float(noise), _truth(s, m), 2 * len(m) / P, p_plus, p_minus, ests, attack
    )


@result(show=("max_calibrated_error", "max_naive_error"))
class NoiseSweep:
    """Quantum TieAudit on one instance at several depolarising strengths: the verified estimate
    and interval (hidden tests, twirl, Freedman) and the naive reading (the noiseless estimator
    on as many noisy copies).

    Examples
    --------
    >>> sw = noise_sweep((0.0, 0.3), log2_P=8, eps=0.1)
    >>> sw.noises.tolist(), sw.copies.tolist()
    ([0.0, 0.3], [185, 1541])
    """

    noises: np.ndarray = field(repr=False)
    naive: np.ndarray = field(repr=False)  # f_hat ignoring the noise
    calibrated: np.ndarray = field(repr=False)  # f_hat with hidden test copies
    lo: np.ndarray = field(repr=False)
    hi: np.ndarray = field(repr=False)
    copies: np.ndarray = field(repr=False)  # data + test copies
    f: float = 0.0
    eps: float = 0.05

    @property
    def naive_error(self) -> np.ndarray:
        return np.abs(self.naive - self.f)

    @property
    def calibrated_error(self) -> np.ndarray:
        return np.abs(self.calibrated - self.f)

    @property
    def max_calibrated_error(self) -> float:
        return float(self.calibrated_error.max())

    @property
    def max_naive_error(self) -> float:
        return float(self.naive_error.max())

    def table(self) -> Table:
        """One row per noise level: naive and verified estimates, the interval, copies sent."""
        rows = zip(self.noises, self.naive, self.calibrated, self.lo, self.hi, self.copies)
        return Table(
            ("noise", "naive f̂", "f̂ with test copies", "lo", "hi", "copies"),
            tuple(rows),
            (".1f", ".4f", ".4f", ".4f", ".4f", ",d"),
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()


def noise_sweep(
    noises: Sequence[float] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5),
    *,
    log2_P: int = 12,
    alpha: float = 1.0,
    f: float = 0.2,
    eps: float = 0.05,
    seed: int = 0,
) -> NoiseSweep:
    """For each noise level: :func:`qring_edu.tieaudit.tieaudit` through ``Depolarizing(noise)``
    (at noise 0 the trusted channel) and the naive estimate ``(1 - mean(Y)/alpha)/2`` of as many copies,
    read as if ``eta = 1``.

    Examples
    --------
    >>> sw = noise_sweep((0.0, 0.4), log2_P=8, f=0.2, eps=0.1)
    >>> [round(float(x), 3) for x in sw.naive], [round(float(x), 3) for x in sw.calibrated]
    ([0.222, 0.306], [0.189, 0.189])
    """
    log2_P = check_int(log2_P, "log2_P", 1, 22)
    seed = check_int(seed, "seed", 0)
    P = 2**log2_P
    m = random_matching(P, alpha, seed=seed)
    s = signs_with_disagreement(m, P, f, seed=seed + 1)
    a = 2 * len(m) / P
    naive, cal, lo, hi, copies = [], [], [], [], []
    nz = np.asarray([check_float(x, "noises", 0.0, 1.0, hi_open=True) for x in noises])
    for i, noise in enumerate(nz):
        e = tieaudit(s, m, eps, channel=_channel("uniform", noise), seed=rng(seed, 2, i))
        cal.append(e.value)
        lo.append(e.lo)
        hi.append(e.hi)
        copies.append(e.copies)
        probs, y = outcome_probabilities(s, m, Depolarizing(noise))
        law = [probs[y == 1].sum(), probs[y == -1].sum(), probs[y == 0].sum()]
        c = rng(seed, 3, i).multinomial(e.copies, np.array(law) / sum(law))
        naive.append(float(np.clip((1 - (c[0] - c[1]) / e.copies / a) / 2, 0, 1)))
    arrays = (np.array(x) for x in (naive, cal, lo, hi, copies))
    return NoiseSweep(nz, *arrays, _truth(s, m), float(eps))


# --------------------------------------------------------------------------------------------
# Copy plans, copies against alpha, crossovers per family
# --------------------------------------------------------------------------------------------
@result
class CopyPlan:
    """One way of planning the noiseless copies: ``copies`` and the exact probability that the
    estimate misses by more than ``eps`` (``failure``), maximised over ``f`` (``worst_f`` the
    maximiser) or, where that search is too slow, at ``f = 1/2`` (``worst_f = nan``).

    Examples
    --------
    >>> plan = tieaudit_copy_plans(1.0, 0.2)[0]
    >>> plan.method, plan.copies, round(plan.failure, 4)      # exact miss probability <= delta
    ('Hoeffding', 47, 0.0079)
    """

    method: str
    copies: int
    failure: float
    worst_f: float


@result
class CopyPlans(Rows):
    """The copy plans of :func:`tieaudit_copy_plans` at one ``(alpha, eps, delta)``.

    Examples
    --------
    >>> plans = tieaudit_copy_plans(1.0, 0.2)
    >>> [(r.method, r.copies) for r in plans]
    [('Hoeffding', 47), ('Bernstein', 47), ('exact plan', 25), ('0.9 × exact plan', 22), ('normal approximation', 25)]
    """

    alpha: float = 1.0
    eps: float = 0.05
    delta: float = 0.05

    def plan(self, method: str) -> CopyPlan:
        for r in self.rows:
            if r.method == method:
                return r
        raise ValueError(f"method must be one of {[r.method for r in self.rows]}, got {method!r}")

    def table(self) -> Table:
        rows = tuple(
            (
                r.method,
                r.copies,
                r.failure,
                "½ (largest variance)" if math.isnan(r.worst_f) else f"{r.worst_f:.3f}",
            )
            for r in self.rows
        )
        return Table(
            ("plan", "copies N", "exact failure probability", "at f ="), rows, ("", ",d", ".2g", "")
        )


def tieaudit_copy_plans(alpha: float = 0.1, eps: float = 0.05, delta: float = 0.05) -> CopyPlans:
    """Noiseless copy plans and their exact failure probabilities
    (:func:`tieaudit_failure_probability`, :func:`tieaudit_worst_failure`):

    * ``"Hoeffding"``: range-only bound (failure at ``f = 1/2``: the worst-case search over the
      lattice of ``f`` is too slow at this size, and the variance of ``Y`` peaks there);
    * ``"Bernstein"``: ``Var Y <= alpha`` (the library's plan);
    * ``"exact plan"``: the smallest ``N`` with worst-case failure ``<= delta``;
    * ``"0.9 × exact plan"``: 10 % fewer copies (its failure exceeds ``delta``);
    * ``"normal approximation"``: ``N = z^2 / (4 alpha eps^2)``, ``z`` the two-sided normal
      quantile at ``delta``, the usual CLT sizing.

    Examples
    --------
    >>> [r.copies for r in tieaudit_copy_plans(1.0, 0.2)]   # Hoeffding, Bernstein, exact, 0.9x, CLT
    [47, 47, 25, 22, 25]
    """
    from scipy.stats import norm

    alpha, eps, delta = _check_alpha(alpha), _check_eps(eps), _check_delta(delta)
    n_h = tieaudit_copies(alpha, eps, delta, bound="hoeffding")
    rows = [
        CopyPlan("Hoeffding", n_h, tieaudit_failure_probability(n_h, alpha, eps, 0.5), math.nan)
    ]
    n_e = exact_copies(alpha, eps, delta)
    n_clt = int(math.ceil(norm.isf(delta / 2.0) ** 2 / (4.0 * alpha * eps * eps)))
    for name, n in (
        ("Bernstein", tieaudit_copies(alpha, eps, delta)),
        ("exact plan", n_e),
        ("0.9 × exact plan", int(0.9 * n_e)),
        ("normal approximation", n_clt),
    ):
        rows.append(CopyPlan(name, n, *tieaudit_worst_failure(n, alpha, eps)))
    return CopyPlans(tuple(rows), alpha, eps, delta)


@result(show=("hoeffding_slope", "bernstein_slope"))
class CopiesCurve:
    """Noiseless copies against the coverage ``alpha``: Hoeffding and Bernstein on the grid
    ``alphas``, the exact plan at ``exact_alphas``.

    Examples
    --------
    >>> curve = tieaudit_copies_curve((1.0, 0.5), 0.2, exact_alphas=(1.0,))
    >>> curve.bernstein.tolist(), curve.exact.tolist()
    ([47.0, 111.0], [25.0])
    """

    eps: float
    delta: float
    alphas: np.ndarray = field(repr=False)
    hoeffding: np.ndarray = field(repr=False)
    bernstein: np.ndarray = field(repr=False)
    exact_alphas: np.ndarray = field(repr=False)
    exact: np.ndarray = field(repr=False)

    def slope(self, which: str = "hoeffding") -> float:
        """log-log slope of copies against ``alpha`` (Hoeffding about -2, Bernstein about -1),
        over ``alpha <= 1/4`` where Bernstein's variance term dominates (nan: fewer than two)."""
        check_choice(which, "which", ("hoeffding", "bernstein", "exact"))
        if which == "exact":
            return loglog_slope(self.exact_alphas, self.exact)
        keep = self.alphas <= 0.25
        if keep.sum() < 2:
            return float("nan")
        return loglog_slope(self.alphas[keep], getattr(self, which)[keep])

    @property
    def hoeffding_slope(self) -> float:
        return self.slope("hoeffding")

    @property
    def bernstein_slope(self) -> float:
        return self.slope("bernstein")


def tieaudit_copies_curve(
    alphas: Sequence[float] = tuple(np.geomspace(1.0, 0.01, 21)),
    eps: float = 0.05,
    delta: float = 0.05,
    *,
    exact_alphas: Sequence[float] = (1.0, 0.25, 0.1),
) -> CopiesCurve:
    """Noiseless copies for each coverage: Hoeffding, Bernstein (cheap) and exact (seconds per
    value, cached) at ``exact_alphas``.

    Examples
    --------
    >>> tieaudit_copies_curve((1.0, 0.5), 0.2, exact_alphas=(1.0,)).hoeffding.tolist()
    [47.0, 185.0]
    """
    a = np.asarray([_check_alpha(x) for x in alphas])
    ea = np.asarray([_check_alpha(x) for x in exact_alphas])
    if a.size < 2:
        raise ValueError("alphas must hold at least two values")
    hoe = np.array([tieaudit_copies(x, eps, delta, bound="hoeffding") for x in a], float)
    ber = np.array([tieaudit_copies(x, eps, delta) for x in a], float)
    ex = np.array([exact_copies(x, eps, delta) for x in ea], float)
    return CopiesCurve(float(eps), float(delta), a, hoe, ber, ea, ex)


@result
class TieAuditCrossovers:
    """Crossover ``P`` (smallest power of two where quantum TieAudit is cheaper, 0 if none)
    for each coverage in ``alphas`` and each family in ``bounds``: ``crossovers[i][j]``.

    Examples
    --------
    >>> t = tieaudit_crossover_table((1.0, 0.5), bounds=("hoeffding", "bernstein"))
    >>> t.crossovers
    ((65536, 65536), (524288, 131072))
    """

    eps: float
    delta: float
    alphas: tuple[float, ...]
    bounds: tuple[str, ...]
    crossovers: tuple[tuple[int, ...], ...] = field(repr=False)

    def crossover(self, alpha: float, bound: str) -> int:
        if alpha not in self.alphas or bound not in self.bounds:
            raise ValueError(
                f"alpha must be one of {self.alphas} and bound one of "
                f"{self.bounds}, got {alpha!r}, {bound!r}"
            )
        return self.crossovers[self.alphas.index(alpha)][self.bounds.index(bound)]

    def table(self) -> Table:
        def p2(P: int) -> str:
            return f"2^{P.bit_length() - 1}" if P else "none"

        rows = tuple(
            (a,) + tuple(p2(P) for P in row) for a, row in zip(self.alphas, self.crossovers)
        )
        names = {"hoeffding": "Hoeffding", "bernstein": "Bernstein", "exact": "exact"}
        return Table(
            ("coverage α",) + tuple(names[b] for b in self.bounds),
            rows,
            ("g",) + ("",) * len(self.bounds),
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()


def tieaudit_crossover_table(
    alphas: Sequence[float] = (1.0, 0.25, 0.1),
    eps: float = 0.05,
    delta: float = 0.05,
    *,
    bounds: Sequence[str] = TIEAUDIT_FAMILIES,
) -> TieAuditCrossovers:
    """:func:`tieaudit_crossover` for every coverage and family (the exact family takes a few
    seconds per coverage).

    Examples
    --------
    >>> print(tieaudit_crossover_table((1.0, 0.5), bounds=("hoeffding", "bernstein")).table())
    coverage α  Hoeffding  Bernstein
             1  2^16       2^16
           0.5  2^19       2^17
    """
    al = tuple(_check_alpha(a) for a in alphas)
    bs = tuple(check_choice(b, "bounds", TIEAUDIT_FAMILIES) for b in bounds)
    if not al or not bs:
        raise ValueError("alphas and bounds must each hold at least one value")
    table = tuple(tuple(tieaudit_crossover(eps, a, delta, bound=b) for b in bs) for a in al)
    return TieAuditCrossovers(float(eps), float(delta), al, bs, table)


# --------------------------------------------------------------------------------------------
# The data-only attack, and dephasing without the twirl
# --------------------------------------------------------------------------------------------
@result
class AttackSweep:
    """Quantum TieAudit on one instance through the channel of each case of :data:`ATTACK_CASES`,
    for each noise level and seed: ``estimates[c, i, r]`` (``f_hat``), ``lo``/``hi`` (the
    interval), ``attenuation[c, i, r]`` (the tests' ``eta_hat``; 1 without tests, at noise 0 in
    the ``"uniform"`` case). ``data_overlap``: probability that the projection onto the public
    test state catches one data copy of this instance in its own frame, ``(sum_i s_i/P)^2``.

    Examples
    --------
    >>> s = tieaudit_attack_sweep((0.0, 0.5), log2_P=6, seeds=2)
    >>> s.cases, s.estimates.shape                                    # (cases, noises, seeds)
    (('uniform', 'data_only', 'knows_twirl'), (3, 2, 2))
    """

    P: int
    f: float
    eps: float
    noises: np.ndarray = field(repr=False)
    cases: tuple[str, ...] = field(repr=False)
    estimates: np.ndarray = field(repr=False)
    lo: np.ndarray = field(repr=False)
    hi: np.ndarray = field(repr=False)
    attenuation: np.ndarray = field(repr=False)
    data_overlap: float = 0.0

    def _case(self, case: str) -> int:
        return self.cases.index(check_choice(case, "case", self.cases))

    def mean(self, case: str) -> np.ndarray:
        """Mean ``f_hat`` over the seeds, per noise level."""
        return self.estimates[self._case(case)].mean(axis=1)

    def within(self, case: str) -> np.ndarray:
        """Fraction of seeds with ``|f_hat - f| <= eps``, per noise level."""
        err = np.abs(self.estimates[self._case(case)] - self.f)
        return (err <= self.eps + 1e-12).mean(axis=1)

    def covered(self, case: str) -> np.ndarray:
        """Fraction of seeds whose interval ``[lo, hi]`` holds ``f``, per noise level."""
        c = self._case(case)
        return ((self.lo[c] <= self.f) & (self.f <= self.hi[c])).mean(axis=1)

    def mean_attenuation(self, case: str) -> np.ndarray:
        return self.attenuation[self._case(case)].mean(axis=1)

    def table(self) -> Table:
        """Per noise level and case: mean estimate, fraction within ±ε, fraction of intervals
        holding ``f``, the tests' attenuation."""
        rows = []
        for i, noise in enumerate(self.noises):
            for case in self.cases:
                c = self._case(case)
                rows.append(
                    (
                        float(noise),
                        case,
                        float(self.estimates[c, i].mean()),
                        float(self.within(case)[i]),
                        float(self.covered(case)[i]),
                        float(self.attenuation[c, i].mean()),
                    )
                )
        return Table(
            ("noise", "channel", "mean f̂", "within ±ε", "f in [lo, hi]", "η̂"),
            tuple(rows),
            (".1f", "", ".3f", ".0%", ".0%", ".3f"),
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()


def tieaudit_attack_sweep(
    noises: Sequence[float] = (0.0, 0.2, 0.4, 0.6, 0.8),
    *,
    log2_P: int = 12,
    alpha: float = 1.0,
    f: float = 0.2,
    eps: float = 0.05,
    delta: float = 0.05,
    seeds: int = 10,
    seed: int = 0,
    cases: Sequence[str] = ATTACK_CASES,
) -> AttackSweep:
    """Run :func:`qring_edu.tieaudit.tieaudit` on one instance (coverage ``alpha``, ``round(f m)``
    disagreeing pairs) for each case, noise level and seed ``rng(seed, i, r)``: depolarising noise
    on every copy (``"uniform"``), the data-only attack under the secret twirl (``"data_only"``)
    or with the twirl known (``"knows_twirl"``: what fixed public test strings allow).

    Examples
    --------
    >>> s = tieaudit_attack_sweep((0.5,), log2_P=6, seeds=2)
    >>> s.mean_attenuation("knows_twirl").tolist()      # the tests see no noise at all
    [1.0]
    """
    log2_P = check_int(log2_P, "log2_P", 1, 20)
    seeds = check_int(seeds, "seeds", 1, 10_000)
    seed = check_int(seed, "seed", 0)
    cs = tuple(check_choice(c, "cases", ATTACK_CASES) for c in cases)
    nz = np.asarray([check_float(x, "noises", 0.0, 1.0, hi_open=True) for x in noises])
    P = 2**log2_P
    m = random_matching(P, alpha, seed=seed)
    s = signs_with_disagreement(m, P, f, seed=seed + 1)
    out = np.zeros((4, len(cs), nz.size, seeds))
    for c, case in enumerate(cs):
        for i, noise in enumerate(nz):
            for r in range(seeds):
                channel = _channel(case, float(noise))
                e = tieaudit(s, m, eps, delta=delta, channel=channel, seed=rng(seed, i, r))
                out[:, c, i, r] = e.value, e.lo, e.hi, e.attenuation
    overlap = float((s.astype(float).sum() / P) ** 2)
    return AttackSweep(P, _truth(s, m), float(eps), nz, cs, *out, overlap)


@result(show=("largest_bias",))
class DephasingSweep:
    """Dephasing on one instance whose far pairs (Hamming distance ``|i XOR j| >=
    min_distance``) disagree: ``bias`` (:func:`ratio_bias`, the many-copies limit of ``f_hat -
    f`` without the twirl), the mean ``f_hat`` over ``seeds`` runs without the twirl (``plain``)
    and of the protocol, which twirls (``twirled``).

    Examples
    --------
    >>> s = dephasing_sweep((0.0, 0.1), log2_P=6, min_distance=4, seeds=1)
    >>> round(s.f, 4), s.bias.round(4).tolist()
    (0.4062, [0.0, -0.1214])
    """

    P: int
    f: float
    eps: float
    min_distance: int
    noises: np.ndarray = field(repr=False)
    bias: np.ndarray = field(repr=False)
    plain: np.ndarray = field(repr=False)
    twirled: np.ndarray = field(repr=False)
    seeds: int = 1

    @property
    def largest_bias(self) -> float:
        return float(np.abs(self.bias).max())

    def table(self) -> Table:
        rows = zip(self.noises, self.bias, self.plain, self.twirled)
        return Table(
            ("dephasing p", "ratio bias", "mean f̂ (no twirl)", "mean f̂ (Clifford twirl)"),
            tuple(rows),
            (".3f", "+.4f", ".4f", ".4f"),
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()


def dephasing_sweep(
    noises: Sequence[float] = (0.0, 0.02, 0.04, 0.06, 0.08, 0.1),
    *,
    log2_P: int = 10,
    min_distance: int = 6,
    eps: float = 0.05,
    delta: float = 0.05,
    seeds: int = 4,
    seed: int = 0,
) -> DephasingSweep:
    """A perfect random matching on ``P = 2^log2_P`` coordinates with random signs whose pairs
    disagree exactly when ``|i XOR j| >= min_distance``; for each dephasing probability: the
    ratio bias, the estimate of the protocol (``tieaudit(channel=Dephasing(p))``, twirled) and
    the same run without the twirl (hidden tests, the untwirled law of
    :func:`qring_edu.tieaudit.outcome_probabilities`, the same estimator).

    Examples
    --------
    >>> s = dephasing_sweep((0.0, 0.1), log2_P=6, min_distance=4, seeds=1)
    >>> [round(float(x), 3) for x in s.plain], [round(float(x), 3) for x in s.twirled]
    ([0.393, 0.296], [0.431, 0.405])
    """
    log2_P = check_int(log2_P, "log2_P", 2, 16)
    min_distance = check_int(min_distance, "min_distance", 1, log2_P)
    seeds = check_int(seeds, "seeds", 1, 10_000)
    seed = check_int(seed, "seed", 0)
    nz = np.asarray([check_float(x, "noises", 0.0, 0.5, hi_open=True) for x in noises])
    P = 2**log2_P
    m = random_matching(P, 1.0, seed=seed)
    s = np.random.default_rng(seed + 1).choice(np.array([-1, 1], dtype=np.int8), size=P)
    far = np.bitwise_count(m[:, 0] ^ m[:, 1]) >= min_distance
    s[m[:, 1]] = np.where(far, -s[m[:, 0]], s[m[:, 0]])
    ones = np.ones(P, dtype=np.int8)
    bias, plain, twirled = [], [], []
    for i, p in enumerate(nz):
        channel = Dephasing(float(p)) if p > 0 else None
        bias.append(ratio_bias(s, m, Dephasing(float(p))))
        twirled.append(
            np.mean(
                [
                    tieaudit(s, m, eps, delta=delta, channel=channel, seed=rng(seed, i, r)).value
                    for r in range(seeds)
                ]
            )
        )
        # Without the twirl: the same copies and hidden tests, each with its own pair weights.
        N = tieaudit_copies(1.0, eps, delta, eta=Dephasing(float(p)).eta(P), bound="freedman")
        runs = []
        for r in range(seeds):
            gen = rng(seed, i, r, 1)
            test = int(gen.binomial(N, TEST_FRACTION))
            sums = []
            for x, k in ((s, N - test), (ones, test)):
                probs, y = outcome_probabilities(x, m, Dephasing(float(p)))
                c = gen.multinomial(k, probs)
                sums.append(int(c[y == 1].sum() - c[y == -1].sum()))
            runs.append(tieaudit_interval(sums[0], N - test, sums[1], test, 1.0, delta)[0])
        plain.append(float(np.mean(runs)))
    return DephasingSweep(
        P,
        float(far.mean()),
        float(eps),
        min_distance,
        nz,
        np.array(bias),
        np.array(plain),
        np.array(twirled, float),
        seeds,
    )


# --------------------------------------------------------------------------------------------
# Adaptive sources: the Freedman interval against an independent-copies interval
# --------------------------------------------------------------------------------------------
@result
class ConstantSource:
    """Attenuation ``eta`` on every copy (the independent-copies model).

    Examples
    --------
    >>> ConstantSource(0.5)({"plus": np.zeros(2)}).tolist()
    [0.5, 0.5]
    """

    eta: float = 1.0

    def __call__(self, past) -> np.ndarray:
        return np.full(past["plus"].shape, float(self.eta))


@result
class OutcomeWalk:
    """Attenuation ``high`` on the next copy while the client's ``+1`` outcomes so far are at
    least its ``-1`` outcomes, ``low`` otherwise: it sees outcomes only, never a label (the
    threat model of the hidden tests).

    Examples
    --------
    >>> OutcomeWalk()({"plus": np.array([2, 0]), "minus": np.array([0, 1])}).tolist()
    [1.0, 0.0]
    """

    high: float = 1.0
    low: float = 0.0

    def __call__(self, past) -> np.ndarray:
        return np.where(past["plus"] >= past["minus"], float(self.high), float(self.low))


@result
class LabelWalk:
    """Attenuation ``high`` on the next copy while the past copies held at most as many tests as
    data, ``low`` otherwise: past labels leak (announced after each copy), the next one's stays
    secret.

    Examples
    --------
    >>> LabelWalk()({"tests": np.array([1, 2]), "data": np.array([2, 1])}).tolist()
    [1.0, 0.0]
    """

    high: float = 1.0
    low: float = 0.0

    def __call__(self, past) -> np.ndarray:
        return np.where(past["tests"] <= past["data"], float(self.high), float(self.low))


@result
class PoolTracking:
    """Against a fixed number of tests (``fixed_tests=True`` of :func:`adaptive_coverage`):
    attenuation ``high`` while the tests still to come are at least the data still to come, so
    that the next copy is a test with probability ``>= 1/2``, and ``low`` otherwise. Past labels
    leak.

    Examples
    --------
    >>> PoolTracking()({"tests_left": np.array([5, 3]), "data_left": np.array([4, 4])}).tolist()
    [1.0, 0.0]
    """

    high: float = 1.0
    low: float = 0.0

    def __call__(self, past) -> np.ndarray:
        return np.where(past["tests_left"] >= past["data_left"], float(self.high), float(self.low))


_SOURCES = (ConstantSource, OutcomeWalk, LabelWalk, PoolTracking)


def wald_ratio_interval(
    data_sum, data_landed, data_copies, test_sum, test_landed, test_copies, delta: float = 0.05
):
    """The interval an independent-copies analysis gives the ratio estimator (arrays allowed):
    ``f_hat = (1 - r)/2`` with ``r = mean(Y_data)/mean(Y_test)`` from the realised group sizes,
    and ``f_hat ± z se/2``, ``se^2 = (s_D^2/N_D + r^2 s_T^2/N_T)/mean(Y_test)^2`` (delta method,
    sample variances, ``z`` the two-sided normal quantile at ``delta``; ``Y^2`` sums to the
    landed count). Returns ``(value, lo, hi)``; ``(1/2, 0, 1)`` where ``mean(Y_test) <= 0``.
    Valid only asymptotically and for independent copies.

    Examples
    --------
    >>> [round(float(x), 3) for x in wald_ratio_interval(60, 100, 100, 100, 100, 100)]
    [0.2, 0.121, 0.279]
    """
    from scipy.stats import norm

    A, KA, ND, B, KB, NT = (
        np.asarray(x, dtype=float)
        for x in (data_sum, data_landed, data_copies, test_sum, test_landed, test_copies)
    )
    z = norm.isf(_check_delta(delta) / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        md, mt = A / ND, B / NT
        vd = (KA / ND - md**2) * ND / np.maximum(ND - 1, 1)
        vt = (KB / NT - mt**2) * NT / np.maximum(NT - 1, 1)
        r = md / mt
        se = np.sqrt(vd / ND + r**2 * vt / NT) / np.abs(mt)
        ok = (mt > 0) & (ND > 1) & (NT > 1)
        value = np.where(ok, np.clip((1 - r) / 2, 0, 1), 0.5)
        half = np.where(ok, z * se / 2, 1.0)
    return value, np.clip(value - half, 0, 1), np.clip(value + half, 0, 1)


@result(show=("freedman", "wald_ratio"))
class AdaptiveCoverage:
    """Result of :func:`adaptive_coverage`: per trial the sums of one run (``data_sum``,
    ``test_sum``, the landed counts and group sizes); :attr:`freedman` and :attr:`wald_ratio`
    are the fractions of trials whose interval holds ``f``.

    Examples
    --------
    >>> c = adaptive_coverage(OutcomeWalk(), copies=100, trials=50, seed=0)
    >>> c.trials, 0.0 <= c.freedman <= 1.0
    (50, True)
    """

    source: object
    copies: int
    alpha: float
    f: float
    delta: float
    trials: int
    data_sum: np.ndarray = field(repr=False)
    test_sum: np.ndarray = field(repr=False)
    data_landed: np.ndarray = field(repr=False)
    test_landed: np.ndarray = field(repr=False)
    test_copies: np.ndarray = field(repr=False)

    def intervals(self, which: str = "freedman") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(value, lo, hi)`` per trial of :func:`qring_edu.tieaudit.tieaudit_interval`
        (``"freedman"``) or :func:`wald_ratio_interval` (``"wald_ratio"``)."""
        check_choice(which, "which", ("freedman", "wald_ratio"))
        if which == "wald_ratio":
            nd = self.copies - self.test_copies
            return wald_ratio_interval(
                self.data_sum,
                self.data_landed,
                nd,
                self.test_sum,
                self.test_landed,
                self.test_copies,
                self.delta,
            )
        out = [
            tieaudit_interval(
                int(a), self.copies - int(nt), int(b), int(nt), self.alpha, self.delta
            )
            for a, b, nt in zip(self.data_sum, self.test_sum, self.test_copies)
        ]
        return tuple(np.array(x) for x in zip(*out))

    def coverage(self, which: str = "freedman") -> float:
        _, lo, hi = self.intervals(which)
        return float(np.mean((lo <= self.f) & (self.f <= hi)))

    @property
    def freedman(self) -> float:
        return self.coverage("freedman")

    @property
    def wald_ratio(self) -> float:
        return self.coverage("wald_ratio")


def adaptive_coverage(
    source,
    *,
    copies: int = 270,
    alpha: float = 1.0,
    f: float = 0.9,
    delta: float = 0.05,
    trials: int = 2000,
    seed: int = 0,
    fixed_tests: bool = False,
) -> AdaptiveCoverage:
    """Run the verified protocol ``trials`` times against a ``source`` that picks each copy's
    attenuation from the past (:class:`ConstantSource`, :class:`OutcomeWalk`,
    :class:`LabelWalk`, :class:`PoolTracking`), copy by copy, vectorised over the trials.

    Per copy ``t``: a secret label, then ``Y != 0`` with probability ``alpha`` and ``Y = ±1``
    with ``P(+1) = (1 + eta_t h)/2`` (``h = 1 - 2f`` for data, 1 for tests). ``eta_t`` is
    ``source(past)``, from the counts before ``t``: ``plus``, ``minus`` (outcomes), ``tests``,
    ``data``, ``tests_left``, ``data_left``. This is exact in distribution for a twirled copy
    whose channel the source picks from the past (:mod:`qring_edu.tieaudit`). Labels: tests with
    probability 1/2 each (the protocol), or with ``fixed_tests`` exactly ``copies // 2`` tests
    at secret random positions (an earlier design; ``tests_left`` is then known).

    Examples
    --------
    >>> c = adaptive_coverage(ConstantSource(0.5), copies=200, trials=100, f=0.3, seed=1)
    >>> c.freedman >= 0.95
    True
    """
    if not isinstance(source, _SOURCES):
        names = ", ".join(s.__name__ for s in _SOURCES)
        raise TypeError(f"source must be one of {names}, got {source!r}")
    copies = check_int(copies, "copies", 2, 100_000)
    trials = check_int(trials, "trials", 1, 100_000)
    alpha, delta = _check_alpha(alpha), _check_delta(delta)
    f = check_float(f, "f", 0.0, 1.0)
    check_seed(seed)
    if not isinstance(fixed_tests, (bool, np.bool_)):
        raise TypeError(f"fixed_tests must be True or False, got {fixed_tests!r}")
    gen = np.random.default_rng(seed)
    if fixed_tests:  # exactly copies // 2 tests, at positions uniformly at random
        labels = np.argsort(gen.random((trials, copies)), axis=1) < copies // 2
    zero = np.zeros(trials, dtype=np.int64)
    past = {k: zero.copy() for k in ("plus", "minus", "tests", "data")}
    sums = {k: zero.copy() for k in ("A", "B", "KA", "KB")}
    for t in range(copies):
        left = copies - t
        if fixed_tests:
            past["tests_left"] = copies // 2 - past["tests"]
            past["data_left"] = left - past["tests_left"]
            is_test = labels[:, t]
        else:
            past["tests_left"] = past["data_left"] = np.full(trials, left * TEST_FRACTION)
            is_test = gen.random(trials) < TEST_FRACTION
        eta = np.clip(source(past), -1.0, 1.0)
        landed = gen.random(trials) < alpha
        h = np.where(is_test, 1.0, 1.0 - 2.0 * f)
        y = np.where(landed, np.where(gen.random(trials) < (1.0 + eta * h) / 2.0, 1, -1), 0)
        past["plus"] += y == 1
        past["minus"] += y == -1
        past["tests"] += is_test
        past["data"] += ~is_test
        sums["A"] += np.where(is_test, 0, y)
        sums["B"] += np.where(is_test, y, 0)
        sums["KA"] += landed & ~is_test
        sums["KB"] += landed & is_test
    return AdaptiveCoverage(
        source,
        copies,
        alpha,
        f,
        delta,
        trials,
        sums["A"],
        sums["B"],
        sums["KA"],
        sums["KB"],
        past["tests"],
    )
