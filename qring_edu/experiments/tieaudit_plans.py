"""TieAudit's exact plans (book/08_tieaudit.ipynb): the exact failure probability of the
quantum estimate (:func:`tieaudit_worst_failure`, :func:`exact_copies`) and of the one-way
classical one (:func:`classical_worst_failure`, :func:`exact_subset_size`), against Hoeffding's
and Bernstein's plans (:func:`tieaudit_copy_plans`, :func:`tieaudit_copies_curve`). Independent
copies, a trusted noiseless channel; figures in :mod:`qring_edu.figures.tieaudit`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import field

import numpy as np

from .._result import result
from .._validate import check_choice, check_delta, check_float, check_int
from ..tieaudit import _check_alpha, _check_eps, classical_subset_size, tieaudit_copies
from ._base import Rows, Table, loglog_slope

__all__ = [
    "MAX_EXACT_MEAN",
    "tieaudit_failure_probability",
    "tieaudit_worst_failure",
    "exact_copies",
    "classical_worst_failure",
    "exact_subset_size",
    "CopyPlan",
    "CopyPlans",
    "tieaudit_copy_plans",
    "CopiesCurve",
    "tieaudit_copies_curve",
]


# -- Exact failure probabilities and the exact plans (independent copies, noiseless channel) -------
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


def _smallest(fails, guess: float, hi: int, fallback) -> int:
    """Smallest size ``k`` with ``not fails(k)`` (the failure decreases with the size): ``hi``
    (else ``fallback()``, a plan that holds) bounds it above, halving from ``0.85 guess`` below,
    then bisection."""
    if fails(hi):
        hi = fallback()
    lo = max(1, int(0.85 * guess))
    while lo > 1 and not fails(lo):
        lo //= 2
    if not fails(lo):
        return lo
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
    return _smallest(fails, guess, hi, lambda: tieaudit_copies(alpha, eps, delta))  # Bernstein


def exact_copies(alpha: float, eps: float, delta: float = 0.05) -> int:
    """The exact noiseless plan: the smallest ``N`` whose exact worst-case failure probability
    (:func:`tieaudit_worst_failure`) is ``<= delta`` (bisection around the normal approximation;
    seconds, cached). Independent copies, like Hoeffding's and Bernstein's plans.

    Examples
    --------
    >>> exact_copies(1.0, 0.2)
    25
    """
    alpha, eps, delta = _check_alpha(alpha), _check_eps(eps), check_delta(delta)
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
    if not jj.size or D in (0, m):  # no pair sampled, or every sampled pair tells the truth
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
    return _smallest(fails, guess, hi, lambda: classical_subset_size(P, alpha, eps, delta))


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
    alpha, eps, delta = _check_alpha(alpha), _check_eps(eps), check_delta(delta)
    if 1.8 / (eps * eps) > MAX_EXACT_MEAN:
        raise ValueError(f"eps = {eps:g} is too small for the exact plan; use the Hoeffding plan")
    return _exact_subset_size(P, alpha, eps, delta)


# -- Copy plans, copies against alpha, crossovers per family ---------------------------------------
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

    def table(self) -> Table:
        def at(f):
            return "½ (largest variance)" if math.isnan(f) else f"{f:.3f}"

        rows = tuple((r.method, r.copies, r.failure, at(r.worst_f)) for r in self.rows)
        heads = ("plan", "copies N", "exact failure probability", "at f =")
        return Table(heads, rows, ("", ",d", ".2g", ""))


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

    alpha, eps, delta = _check_alpha(alpha), _check_eps(eps), check_delta(delta)
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

    hoeffding_slope = property(lambda self: self.slope("hoeffding"), doc="``slope('hoeffding')``.")
    bernstein_slope = property(lambda self: self.slope("bernstein"), doc="``slope('bernstein')``.")


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
