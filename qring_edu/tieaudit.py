"""TieAudit_ε: sign-consistency auditing over a hidden matching (book/06_alignment.ipynb).

The server holds signs ``s in {±1}^P`` with ``P = 2^n`` (e.g. the signs of the aggregated
gradient); the client holds a private matching ``M``: ``m`` disjoint pairs ``(i, j)`` of
coordinates (e.g. parameters it expects to move together), covering the fraction
``alpha = 2 m / P`` of the coordinates (``alpha`` is the *coverage*; the hidden-matching papers
count edges instead, ``m = alpha_BHM P``, so ``alpha = 2 alpha_BHM``). The client wants ``f``,
the fraction of matched pairs with ``s_i != s_j``, to within ``±eps`` with probability
``>= 1 - delta``. Communication is one-way, server to client.

Protocols (the ``protocol=`` names of :func:`tieaudit`)
------------------------------------------------------
``"quantum"``
    Per copy the server sends ``|psi_s> = sum_i s_i |i> / sqrt(P)`` on ``n`` qubits (basis state
    ``|i>`` = the integer ``i``, qubit 0 least significant). The client measures in the basis
    ``{(|i> ± |j>)/sqrt(2) : (i, j) in M} ∪ {|k> : k unmatched}`` and records ``Y = +1`` ("+"
    outcome of a pair), ``Y = -1`` ("-" outcome) or ``Y = 0`` (unmatched). Since
    ``|<psi_s|(|i> ± |j>)/sqrt(2)>|^2 = (s_i ± s_j)^2 / (2P)``, ``P(Y = +1) = alpha (1 - f)``,
    ``P(Y = -1) = alpha f`` and ``E[Y] = alpha (1 - 2 f)``; the estimate is
    ``f_hat = (1 - mean(Y)/alpha)/2`` (clipped to ``[0, 1]``). ``N`` copies cost ``n N`` qubits;
    how ``N`` is planned is ``bound=`` (below).
``"entanglement_assisted"``
    The parties pre-share ``n`` Bell pairs per copy (``sum_i |i>|i>/sqrt(P)``). The server applies
    ``diag(s)`` to its half, measures it in the X basis and sends the ``n`` outcome bits ``x``;
    the client applies ``Z^x`` (the phases ``(-1)^(x·i)``) and holds ``|psi_s>`` exactly, then
    measures as above. Cost: ``n`` classical bits and ``n`` ebits per copy, same ``N``.
``"classical"``
    Shared randomness picks ``k`` coordinates; the server sends their ``k`` signs (``k`` bits; the
    positions are free). The client uses the matched pairs with both ends inside the subset, a
    uniformly random sample of ``M``; ``k`` is the smallest integer with
    ``m k (k - 1) / (P (P - 1)) >= 2 m_0`` (expected number of such pairs), with
    ``m_0 = ceil(ln(4/delta) / (2 eps^2))`` (Hoeffding at ``delta/2``, valid for sampling without
    replacement; fewer than ``m_0`` pairs appear with probability ``<= exp(-m_0/4)``, a Chernoff
    bound for the negatively associated pair indicators). So ``k ≈ sqrt(4 m_0 P / alpha)
    = O(sqrt(P/alpha)/eps)`` bits, capped at ``P`` (then the server sends everything and ``f``
    is exact). This plan is valid with much room (its exact failure probability at
    ``P = 2^16, alpha = 1, eps = delta = 0.05`` is below 1e-3); ``bound="exact"``
    (:func:`classical_subset_size`) takes the smallest ``k`` whose exact worst-case failure —
    exact law of the number of pairs inside the subset, hypergeometric sampling of the pairs —
    is ``<= delta``, about 2.1 times fewer bits.

How many copies (``bound=`` of :func:`tieaudit_copies`)
------------------------------------------------------
``Y`` takes values in ``{-1, 0, 1}`` with ``E[Y^2] = alpha``, so ``Var Y <= alpha``: the
``1/alpha^2`` of a range-only (Hoeffding) bound is an artefact. With ``t = 2 alpha eps``:

* ``"hoeffding"``: ``N = ceil(ln(2/delta) / (2 alpha^2 eps^2))`` (range 2);
* ``"bernstein"`` (default): Bernstein's inequality with ``sigma^2 = alpha`` and
  ``|Y - E Y| <= 1 + alpha``, ``N = ceil(ln(2/delta) (2 alpha + 2 (1 + alpha) t / 3) / t^2)
  = O(log(1/delta) / (alpha eps^2))``; both bounds are valid, so the planner returns the
  smaller of the two (at ``alpha = 1`` that is Hoeffding's);
* ``"exact"``: the smallest ``N`` (found by bisection) whose exact failure probability
  ``max_f P(|f_hat - f| > eps)`` — trinomial law of the counts, worst case over ``f in [0, 1]``
  (:func:`tieaudit_worst_failure`) — is at most ``delta``.

At ``alpha = 0.1, eps = delta = 0.05`` these are 73,778 (Hoeffding), 7,649 (Bernstein) and
about 3,900 (exact). Quantum cost: ``O(eps^-2 alpha^-1 log(1/delta) log P)`` qubits.

What is proven about the classical side
---------------------------------------
The classical protocol above sends ``O(sqrt(P/alpha)/eps)`` bits (an upper bound). The lower
bound that is proven holds at *constant* accuracy and for small coverage only. Boolean hidden
matching (Gavinsky, Kempe, Kerenidis, Raz, de Wolf 2007/2008): Alice has ``x in {0,1}^P``, Bob
a matching of ``alpha_BHM P`` edges and ``w`` with one bit per edge, with the promise
``x_i ⊕ x_j ⊕ w_ij = b`` on every edge; for ``alpha_BHM in (0, 1/4]`` every bounded-error
classical one-way protocol (shared randomness allowed) sends ``Omega(sqrt(P/alpha_BHM))``
bits. It reduces to TieAudit: with ``s_i = (-1)^(x_i)`` the client keeps the edges with
``w_e = 0`` or those with ``w_e = 1``, whichever set is larger, truncated to exactly
``alpha_BHM P / 2`` edges; on them ``f = b`` or ``f = 1 - b``, so any estimate within
``eps < 1/2`` reveals ``b``. Hence classical one-way TieAudit with coverage ``alpha <= 1/4`` and
constant ``eps < 1/2`` needs ``Omega(sqrt(P/alpha))`` bits; a ``1/eps`` factor in the lower
bound is not established, and neither is a ``Theta(sqrt(P)/eps)``. (The restriction to partial
matchings matters: for a perfect matching with ``P/2`` odd the XOR over the matching of
``x_i ⊕ x_j ⊕ w_ij`` is ``(P/2) b = b mod 2``, so the single bit ``parity(x)`` decides ``b``.)

Noise, test copies and what the channel can see (quantum protocols)
-------------------------------------------------------------------
``noise_model="depolarizing"`` replaces a copy by ``I/P`` with probability ``noise``,
attenuating ``E[Y]`` by ``eta = 1 - noise``; ``"dephasing"`` applies ``Z`` to each qubit with
probability ``noise``, which multiplies the coherence of pair ``(i, j)`` by
``(1 - 2 noise)^|i XOR j|`` (Hamming weight), so
``E[Y] = (2/P) sum_{(i,j) in M} s_i s_j (1 - 2 noise)^|i XOR j|``.

With ``noise > 0`` the server hides as many test copies as data copies, carrying the all-agree
string (``f = 0``), at positions from shared randomness. Their mean estimates ``eta alpha``
(reported as ``attenuation = eta_hat``) and ``f_hat = (1 - mean(Y_data)/mean(Y_test))/2``.
The copies per group are planned for ``eta = 1 - noise`` (depolarising; for dephasing for the
attenuation ``(P^2 (1 - noise)^n - 1)/(P^2 - 1)`` of a Clifford-twirled copy):
``noise`` is both the channel's strength in the simulation and the worst noise budgeted for.
Bounds (each group at ``delta/2``, ``t = eps alpha eta/(1 + eps)``): ``"hoeffding"``
``N = ceil(2 ln(4/delta)/t^2)``, ``"bernstein"`` ``N = ceil(ln(4/delta)(2 alpha + 2(1 + alpha)
t/3)/t^2)`` (the smaller of the two), ``"exact"`` the exact worst-case failure of the ratio
estimator (two independent trinomials, worst ``f`` on a grid).

``test_strings="random"`` (default): every copy, data or test, is sent with a fresh pad
``Z^b``, ``b in {0,1}^n`` from shared randomness (``n`` bits per copy, no communication); the
client applies ``Z^b`` again before its measurement. A test copy therefore travels as the
random character ``(-1)^(b·i)`` (whose disagreement pattern on ``M`` the client knows) and, since
``|psi_s>`` has flat amplitudes, every copy travels as ``I/P`` averaged over its pad; with
independent pads the copies are jointly ``(I/P)^(⊗N)`` wherever the tests are. No channel, even
one acting on all copies at once, can tell tests from data. ``test_strings="fixed"``: no pads,
the tests travel as the public ``|psi_1> = |+>^n``.

``attack="uniform"`` (default): every copy goes through the noise channel. ``attack="data_only"``:
an adversary measures each copy with ``{|psi_1><psi_1|, 1 - |psi_1><psi_1|}``, passes the
copies it finds in ``|psi_1>`` untouched and applies the noise channel to the rest. Fixed test
strings are always found (``<psi_1|psi_1> = 1``) while a data copy is found with probability
``(sum_i s_i / P)^2`` (``1/P`` on average for uniformly random signs, 0 for exactly balanced
ones): ``eta_hat = 1`` while the data are attenuated, and ``f_hat`` moves towards ``1/2``. With
random test strings the attack acts on every copy alike (up to ``O(1/P)``) and the ratio stays
calibrated.

Ratio bias. The ratio is exact when data and tests are attenuated alike, which holds for
depolarising noise (per-copy, any strength). Under dephasing it converges to the weighted
fraction ``f_w = sum_e w_e d_e / sum_e w_e`` with ``w_e = (1 - 2 noise)^|i XOR j|`` and
``d_e = [s_i != s_j]``: bias ``f_w - f = cov_M(w, d) / mean_M(w)`` (population covariance over
the pairs of ``M``), non-zero when disagreement correlates with the pairs' Hamming distance
(:func:`ratio_bias`). ``twirl="clifford"`` removes it: a fresh random ``n``-qubit Clifford ``C``
from shared randomness on every copy (the client applies ``C^dagger`` before measuring; it
replaces the ``Z`` pad) turns every per-copy channel into a depolarising one with
``eta = (P^2 F_e - 1)/(P^2 - 1)`` (``F_e`` the channel's entanglement fidelity; the Clifford group
is a unitary 2-design), so the ratio is unbiased for any channel acting independently and
identically on the copies. Channels that act on many copies coherently are not covered by these
statements.

These constants (half test copies, the bounds) are the book's reconstruction; the paper
summary gives only the orders of growth.

Simulation paths: the fast path computes the client's outcome law on one copy exactly (Born
rule from the state vector; for ``attack="data_only"`` the post-measurement states, averaged over
the pads with Walsh–Hadamard transforms, ``O(P log P)``) and samples all copies at once: copies
are independent, so the counts are multinomial (exact in distribution).
:func:`tieaudit_circuit` builds the Qiskit circuits (one-way, padded, entanglement-assisted) for
small ``n``; tests check that they give the same distribution and check the attack law against
a Qiskit density-matrix simulation.

References: Bar-Yossef, Jayram, Kerenidis, STOC 2004 / SIAM J. Comput. 38 (2008) 366–384
(hidden matching); Gavinsky, Kempe, Kerenidis, Raz, de Wolf, STOC 2007 / SIAM J. Comput. 38
(2008) 1695–1708 (Boolean hidden matching, ``alpha_BHM <= 1/4``); Kerenidis, Raz,
arXiv:quant-ph/0607173 (2006).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ._validate import as_numeric_array, check_choice, check_float, check_int, check_seed

__all__ = [
    "Estimate",
    "TIEAUDIT_PROTOCOLS",
    "TIEAUDIT_BOUNDS",
    "TIEAUDIT_ATTACKS",
    "TIEAUDIT_TEST_STRINGS",
    "TIEAUDIT_NOISE_MODELS",
    "TIEAUDIT_TWIRLS",
    "tieaudit",
    "tieaudit_copies",
    "tieaudit_cost",
    "tieaudit_failure_probability",
    "tieaudit_worst_failure",
    "classical_subset_size",
    "classical_worst_failure",
    "check_signs",
    "check_matching",
    "disagreement_fraction",
    "outcome_probabilities",
    "outcome_index",
    "copy_y_law",
    "ratio_bias",
    "walsh_hadamard",
    "tieaudit_circuit",
    "tieaudit_sample_qiskit",
    "random_matching",
    "signs_with_disagreement",
]

#: Names accepted by ``tieaudit(protocol=...)``.
TIEAUDIT_PROTOCOLS = ("quantum", "entanglement_assisted", "classical")
#: Names accepted by ``bound=`` (how the copies are planned).
TIEAUDIT_BOUNDS = ("bernstein", "hoeffding", "exact")
#: Names accepted by ``tieaudit(attack=...)``.
TIEAUDIT_ATTACKS = ("uniform", "data_only")
#: Names accepted by ``tieaudit(test_strings=...)``.
TIEAUDIT_TEST_STRINGS = ("random", "fixed")
#: Names accepted by ``noise_model=``.
TIEAUDIT_NOISE_MODELS = ("depolarizing", "dephasing")
#: Names accepted by ``tieaudit(twirl=...)``.
TIEAUDIT_TWIRLS = ("none", "clifford")


@dataclass(frozen=True)
class Estimate:
    """Outcome of :func:`tieaudit`.

    ``value``: the estimate of ``f``; ``cost``: qubits (quantum) or bits (entanglement-assisted,
    classical) sent in total; ``unit``: ``"qubits"`` or ``"bits"``; ``ebits``: Bell pairs consumed
    (entanglement-assisted only); ``copies``: quantum copies sent (data + test); ``test_copies``:
    hidden test copies among them; ``attenuation``: ``eta_hat = mean(Y_test)/alpha``, the
    estimated attenuation of ``E[Y]`` (1 when not estimated); ``alpha``: the matched fraction.

    Examples
    --------
    >>> Estimate(0.25, 100, "qubits", "quantum", copies=10)
    Estimate(value=0.2500, cost=100 qubits, protocol='quantum')
    """

    value: float
    cost: int
    unit: str
    protocol: str
    copies: int = 0
    test_copies: int = 0
    ebits: int = 0
    attenuation: float = 1.0
    alpha: float = 1.0

    def __repr__(self) -> str:
        extra = f", ebits={self.ebits}" if self.ebits else ""
        if self.test_copies:
            extra += f", test_copies={self.test_copies}, attenuation={self.attenuation:.4f}"
        return (
            f"Estimate(value={self.value:.4f}, cost={self.cost} {self.unit}, "
            f"protocol={self.protocol!r}{extra})"
        )


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------


def check_signs(signs) -> np.ndarray:
    """``signs``: 1-D array of ±1 of length ``P = 2^n >= 2``; returned as ``int8``.

    Examples
    --------
    >>> from qring_edu.sign_audit import check_signs
    >>> check_signs([1, -1, -1, 1]).tolist()
    [1, -1, -1, 1]
    >>> check_signs([1, -1, 1])
    Traceback (most recent call last):
    ...
    ValueError: len(signs) must be a power of two P = 2^n >= 2 (the server's state lives on n qubits), got 3
    """
    arr = as_numeric_array(signs, "signs")
    if arr.ndim != 1:
        raise ValueError(f"signs must be a 1-D vector of ±1, got shape {arr.shape}")
    P = arr.size
    if P < 2 or P & (P - 1):
        raise ValueError(
            f"len(signs) must be a power of two P = 2^n >= 2 (the server's state "
            f"lives on n qubits), got {P}"
        )
    if not np.all((arr == 1) | (arr == -1)):
        raise ValueError("signs must contain only +1 and -1")
    return arr.astype(np.int8)


def check_matching(matching, P: int) -> np.ndarray:
    """Check a hidden matching of ``P`` coordinates; returned as ``int64`` of shape ``(m, 2)``.

    ``matching``: pairs ``(i, j)`` of distinct coordinates in ``0, ..., P-1``, no index used
    twice, at least one pair.

    Examples
    --------
    >>> from qring_edu.sign_audit import check_matching
    >>> check_matching([(0, 1), (2, 3)], 4).tolist()
    [[0, 1], [2, 3]]
    >>> check_matching([(0, 1), (1, 2)], 4)
    Traceback (most recent call last):
    ...
    ValueError: matching pairs must be disjoint: index 1 is used 2 times (or paired with itself)
    """

    arr = as_numeric_array(matching, "matching")
    if arr.size == 0:
        raise ValueError("matching must contain at least one pair (i, j)")
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"matching must have shape (m, 2) (a list of pairs), got {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        if not np.all(arr == np.round(arr)):
            raise TypeError("matching must contain integer indices")
    arr = arr.astype(np.int64)
    if arr.min() < 0 or arr.max() >= P:
        bad = int(arr[(arr < 0) | (arr >= P)][0])
        raise ValueError(f"matching indices must be in 0..{P - 1} (P = {P}), got {bad}")
    counts = np.bincount(arr.ravel(), minlength=P)
    if counts.max() > 1:
        rep = int(np.flatnonzero(counts > 1)[0])
        raise ValueError(
            f"matching pairs must be disjoint: index {rep} is used {counts[rep]} "
            "times (or paired with itself)"
        )
    return arr


def _check_eps(eps) -> float:
    return check_float(eps, "eps", 0.0, 1.0, lo_open=True, hi_open=True)


def _check_delta(delta) -> float:
    return check_float(delta, "delta", 0.0, 0.5, lo_open=True, hi_open=True)


def _check_noise(noise) -> float:
    return check_float(noise, "noise", 0.0, 1.0, hi_open=True)


def _check_alpha(alpha) -> float:
    return check_float(alpha, "alpha", 0.0, 1.0, lo_open=True)


# --------------------------------------------------------------------------------------------
# Instances
# --------------------------------------------------------------------------------------------


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


def random_matching(P: int, alpha: float = 1.0, seed=None) -> np.ndarray:
    """A uniformly random matching of ``round(alpha P / 2)`` pairs (at least one), shape (m, 2).

    Examples
    --------
    >>> random_matching(16, 0.5, seed=0).shape
    (4, 2)
    """
    P = check_int(P, "P", 2)
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
    P = check_int(P, "P", 2)
    m = check_matching(matching, P)
    f = check_float(f, "f", 0.0, 1.0)
    check_seed(seed)
    rng = np.random.default_rng(seed)
    s = rng.choice(np.array([-1, 1], dtype=np.int8), size=P)
    n_dis = int(round(f * len(m)))
    flip = np.zeros(len(m), dtype=bool)
    flip[rng.permutation(len(m))[:n_dis]] = True
    s[m[:, 1]] = np.where(flip, -s[m[:, 0]], s[m[:, 0]])
    return s


# --------------------------------------------------------------------------------------------
# Exact failure probability of the estimators (the "exact" planner)
# --------------------------------------------------------------------------------------------


def _sum_pmf(N: int, p_plus: float, p_minus: float) -> np.ndarray:
    """Law of ``D = sum of N iid Y`` with ``P(Y = ±1) = p_±``: array over ``D = -N .. N``
    (index ``D + N``), by the discrete Fourier transform of the characteristic function
    (exact up to floating-point rounding, ~1e-15 per entry)."""
    L = 1 << int(math.ceil(math.log2(2 * N + 1)))
    w = np.exp(-2j * np.pi * np.arange(L) / L)
    z = (1.0 - p_plus - p_minus) + p_plus * w + p_minus * np.conj(w)
    pmf = np.fft.ifft(z**N).real[np.arange(-N, N + 1) % L]
    pmf = np.clip(pmf, 0.0, None)
    return pmf / pmf.sum()


def _fail_noiseless(N: int, alpha: float, eps: float, fs: np.ndarray) -> np.ndarray:
    """``P(|f_hat - f| > eps)`` of the noiseless estimator for each ``f`` in ``fs``.

    ``D = N_+ - N_-`` with ``K = N_+ + N_- ~ Bin(N, alpha)`` and ``N_+ | K ~ Bin(K, 1 - f)``;
    ``f_hat > f + eps`` iff ``D < N alpha (1 - 2f - 2 eps)``, ``f_hat < f - eps`` iff
    ``D > N alpha (1 - 2f + 2 eps)`` (the clip to ``[0, 1]`` can only help: a side with
    ``f + eps >= 1`` or ``f - eps <= 0`` cannot fail)."""
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


def _fail_ratio(
    N_data: int, N_test: int, alpha: float, eta: float, eps: float, fs: np.ndarray
) -> np.ndarray:
    """``P(|f_hat - f| > eps)`` of the ratio estimator under depolarising attenuation ``eta``:
    data copies with ``P(±1) = eta alpha (1-f | f) + (1 - eta) alpha/2``, test copies with
    ``f = 0``; ``f_hat = (1 - D_d/D_t)/2`` clipped, ``1/2`` when ``D_t <= 0``."""
    half = (1.0 - eta) * alpha / 2.0
    pt = _sum_pmf(N_test, eta * alpha + half, half)
    t = np.arange(-N_test, N_test + 1, dtype=float)
    keep = pt > 1e-18
    t, pt = t[keep], pt[keep]
    pos = t > 0
    out = []
    for f in np.asarray(fs, dtype=float):
        pd = _sum_pmf(N_data, eta * alpha * (1.0 - f) + half, eta * alpha * f + half)
        cdf = np.concatenate([[0.0], np.cumsum(pd)])  # cdf[k] = P(D_d <= k - N_data - 1)
        tol = 1e-9 * max(1.0, N_data)
        p = float(pt[~pos].sum()) if abs(0.5 - f) > eps else 0.0
        tp, pp = t[pos], pt[pos]
        if f + eps < 1.0:  # f_hat > f + eps  <=>  D_d < t (1 - 2f - 2 eps)
            k = np.ceil(tp * (1.0 - 2.0 * f - 2.0 * eps) - tol) - 1.0  # D_d <= k
            idx = np.clip(k + N_data + 1, 0, 2 * N_data + 1).astype(np.int64)
            p += float(pp @ cdf[idx])
        if f - eps > 0.0:  # f_hat < f - eps  <=>  D_d > t (1 - 2f + 2 eps)
            k = np.floor(tp * (1.0 - 2.0 * f + 2.0 * eps) + tol)  # D_d > k
            idx = np.clip(k + N_data + 1, 0, 2 * N_data + 1).astype(np.int64)
            p += float(pp @ (1.0 - cdf[idx]))
        out.append(p)
    return np.array(out)


def tieaudit_failure_probability(
    copies: int,
    alpha: float,
    eps: float,
    f: float,
    *,
    noise: float = 0.0,
    test_copies: int | None = None,
) -> float:
    """Exact probability that the quantum TieAudit estimate misses ``f`` by more than ``eps``.

    Noiseless (``noise = 0``): ``copies`` data copies, ``f_hat = (1 - mean(Y)/alpha)/2``.
    Noisy: ``copies`` data copies and ``test_copies`` (default: as many) all-agree test copies
    through a depolarising channel of strength ``noise``, ratio estimator
    ``f_hat = (1 - mean(Y_data)/mean(Y_test))/2`` (``1/2`` when ``mean(Y_test) <= 0``). Computed
    from the exact trinomial laws of the counts (the estimates are clipped to ``[0, 1]`` as in
    :func:`tieaudit`); ``|f_hat - f| = eps`` exactly counts as success.

    Examples
    --------
    >>> round(tieaudit_failure_probability(4000, 0.1, 0.05, 0.5), 4)
    0.0429
    """
    copies = check_int(copies, "copies", 1)
    alpha, eps = _check_alpha(alpha), _check_eps(eps)
    f = check_float(f, "f", 0.0, 1.0)
    noise = _check_noise(noise)
    if noise == 0.0 and test_copies is None:
        return float(_fail_noiseless(copies, alpha, eps, np.array([f]))[0])
    nt = copies if test_copies is None else check_int(test_copies, "test_copies", 1)
    return float(_fail_ratio(copies, nt, alpha, 1.0 - noise, eps, np.array([f]))[0])


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


def tieaudit_worst_failure(
    copies: int, alpha: float, eps: float, *, noise: float = 0.0, test_copies: int | None = None
) -> tuple[float, float]:
    """``(max_f P(|f_hat - f| > eps), argmax f)`` over ``f in [0, 1]`` (see
    :func:`tieaudit_failure_probability`; by the symmetry ``f -> 1 - f``, ``Y -> -Y`` only
    ``f <= 1/2`` is searched).

    Noiseless: the maximum over the lattice-jump points of ``_noiseless_candidates``
    (exact up to rounding). Noisy: a grid of 51 values refined to steps of ``5e-4`` around the
    largest one (the ratio's jumps are dense, the curve is smooth at that scale).

    Examples
    --------
    >>> p, f = tieaudit_worst_failure(4000, 0.1, 0.05)
    >>> round(p, 4), round(f, 3)
    (0.0455, 0.499)
    """
    copies = check_int(copies, "copies", 1)
    alpha, eps = _check_alpha(alpha), _check_eps(eps)
    noise = _check_noise(noise)
    if noise == 0.0 and test_copies is None:
        fs = _noiseless_candidates(copies, alpha, eps)
        ps = _fail_noiseless(copies, alpha, eps, fs)
    else:
        nt = copies if test_copies is None else check_int(test_copies, "test_copies", 1)
        eta = 1.0 - noise
        coarse = np.linspace(0.0, 0.5, 51)
        pc = _fail_ratio(copies, nt, alpha, eta, eps, coarse)
        f0 = coarse[int(np.argmax(pc))]
        fine = np.clip(np.arange(f0 - 0.01, f0 + 0.01 + 1e-12, 5e-4), 0.0, 0.5)
        fs = np.concatenate([coarse, fine])
        ps = np.concatenate([pc, _fail_ratio(copies, nt, alpha, eta, eps, fine)])
    i = int(np.argmax(ps))
    return float(ps[i]), float(fs[i])


# --------------------------------------------------------------------------------------------
# Planning: copies, subset size, costs
# --------------------------------------------------------------------------------------------


def _hoeffding_copies(alpha: float, eps: float, delta: float, eta: float | None) -> int:
    if eta is None:
        return int(math.ceil(math.log(2.0 / delta) / (2.0 * alpha**2 * eps**2)))
    t = eps * alpha * eta / (1.0 + eps)
    return int(math.ceil(2.0 * math.log(4.0 / delta) / t**2))


def _bernstein_copies(alpha: float, eps: float, delta: float, eta: float | None) -> int:
    # P(|mean - mu| >= t) <= 2 exp(-N t^2 / (2 sigma^2 + 2 b t / 3)), sigma^2 <= alpha,
    # b = max |Y - mu| <= 1 + alpha.
    if eta is None:
        t, log_term = 2.0 * alpha * eps, math.log(2.0 / delta)
    else:
        t, log_term = eps * alpha * eta / (1.0 + eps), math.log(4.0 / delta)
    return int(math.ceil(log_term * (2.0 * alpha + 2.0 * (1.0 + alpha) * t / 3.0) / t**2))


@functools.lru_cache(maxsize=256)
def _exact_copies(alpha: float, eps: float, delta: float, noise: float) -> int:
    """Smallest ``N`` (bisection; per group when noisy) with worst-case exact failure <= delta."""
    noisy = noise > 0.0
    eta = 1.0 - noise

    def fails(N: int) -> bool:
        if noisy:
            return tieaudit_worst_failure(N, alpha, eps, noise=noise, test_copies=N)[0] > delta
        return tieaudit_worst_failure(N, alpha, eps)[0] > delta

    from scipy.stats import norm

    # Bracket around the normal approximation (worst f = 1/2: Var Y = alpha; noisy: the delta
    # method for the ratio at f = 0 or 1/2), then bisect.
    z = norm.isf(delta / 2.0)
    if noisy:
        # Var(Y_d) + (1 - 2f)^2 Var(Y_t) at f = 0 and at f = 1/2
        v = max(2.0 * (alpha - eta**2 * alpha**2), alpha)
        guess = z * z * v / (2.0 * eps * eta * alpha) ** 2
    else:
        guess = z * z / (4.0 * alpha * eps * eps)
    hi = max(2, int(math.ceil(1.15 * guess)))
    analytic = min(
        _hoeffding_copies(alpha, eps, delta, eta if noisy else None),
        _bernstein_copies(alpha, eps, delta, eta if noisy else None),
    )
    if fails(hi):
        hi = analytic
        while fails(hi):  # (never seen: the analytic bounds hold) — grow until it holds
            hi *= 2
    lo = max(1, int(0.85 * guess))
    while lo > 1 and not fails(lo):
        lo //= 2
    if not fails(lo):
        return lo
    while hi - lo > 1:  # invariant: fails(lo), not fails(hi)
        mid = (lo + hi) // 2
        if fails(mid):
            lo = mid
        else:
            hi = mid
    return hi


def tieaudit_copies(
    alpha: float, eps: float, delta: float = 0.05, noise: float = 0.0, *, bound: str = "bernstein"
) -> tuple[int, int]:
    """Copies ``(data, test)`` of the quantum protocols (see the module docstring).

    Noiseless: ``N`` data copies, no test copies. With ``noise > 0``: ``N`` data and ``N``
    hidden test copies planned for ``eta = 1 - noise``. ``bound``: ``"bernstein"`` (default; the
    smaller of the Bernstein and Hoeffding sample sizes, both valid), ``"hoeffding"``
    (``N = ceil(ln(2/delta)/(2 alpha^2 eps^2))``; noisy ``ceil(2 ln(4/delta)/t^2)`` with
    ``t = eps alpha (1 - noise)/(1 + eps)``) or ``"exact"`` (smallest ``N`` whose exact
    worst-case failure probability, :func:`tieaudit_worst_failure`, is ``<= delta``; seconds
    to compute, cached).

    Examples
    --------
    >>> tieaudit_copies(0.1, 0.05, 0.05, bound="hoeffding")
    (73778, 0)
    >>> tieaudit_copies(0.1, 0.05, 0.05)
    (7649, 0)
    >>> tieaudit_copies(1.0, 0.05, 0.05)   # alpha = 1: Hoeffding's is the smaller
    (738, 0)
    """
    alpha = _check_alpha(alpha)
    eps, delta, noise = _check_eps(eps), _check_delta(delta), _check_noise(noise)
    check_choice(bound, "bound", TIEAUDIT_BOUNDS)
    eta = None if noise == 0.0 else 1.0 - noise
    if bound == "hoeffding":
        n = _hoeffding_copies(alpha, eps, delta, eta)
    elif bound == "bernstein":
        n = min(
            _hoeffding_copies(alpha, eps, delta, eta), _bernstein_copies(alpha, eps, delta, eta)
        )
    else:
        n = _exact_copies(alpha, eps, delta, noise)
    return (n, 0) if noise == 0.0 else (n, n)


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
    P = check_int(P, "P", 2)
    alpha, eps = _check_alpha(alpha), _check_eps(eps)
    k = check_int(k, "k", 1, P)
    m = max(1, int(round(alpha * P / 2.0)))
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
        hi = _hoeffding_subset_size(P, alpha, eps, delta)
        while fails(hi):
            hi = min(P, 2 * hi)
    lo = max(1, int(0.85 * guess))
    while lo > 1 and not fails(lo):
        lo //= 2
    if not fails(lo):
        return lo
    while hi - lo > 1:  # fails(lo), not fails(hi)
        mid = (lo + hi) // 2
        if fails(mid):
            lo = mid
        else:
            hi = mid
    return hi


def _hoeffding_subset_size(P: int, alpha: float, eps: float, delta: float) -> int:
    m = alpha * P / 2.0
    m0 = math.ceil(math.log(4.0 / delta) / (2.0 * eps**2))
    if m < 2 * m0:
        return P
    target = 2 * m0 * P * (P - 1) / m  # need k (k - 1) >= target
    k = int(math.ceil((1.0 + math.sqrt(1.0 + 4.0 * target)) / 2.0))
    return min(P, k)


def classical_subset_size(
    P: int, alpha: float, eps: float, delta: float = 0.05, *, bound: str = "hoeffding"
) -> int:
    """Subset size ``k`` of the classical protocol, capped at ``P`` (send every sign).

    ``bound="hoeffding"`` (default; ``"bernstein"`` is the same: the disagreement indicator's
    worst-case variance 1/4 is already Hoeffding's): the smallest ``k`` with
    ``m k (k-1) / (P (P-1)) >= 2 m_0``, ``m = alpha P / 2``,
    ``m_0 = ceil(ln(4/delta)/(2 eps^2))``; ``k ≈ sqrt(4 m_0 P / alpha)``. ``bound="exact"``:
    the smallest ``k`` whose exact worst-case failure probability
    (:func:`classical_worst_failure`) is ``<= delta`` (bisection; seconds, cached).

    Examples
    --------
    >>> classical_subset_size(2**20, 1.0, 0.05)
    60651
    >>> classical_subset_size(2**12, 0.5, 0.05)          # Hoeffding: send every sign
    4096
    >>> classical_subset_size(2**12, 0.5, 0.05, bound="exact")
    2145
    """
    P = check_int(P, "P", 2)
    alpha = _check_alpha(alpha)
    eps, delta = _check_eps(eps), _check_delta(delta)
    check_choice(bound, "bound", TIEAUDIT_BOUNDS)
    if bound == "exact":
        return _exact_subset_size(P, alpha, eps, delta)
    return _hoeffding_subset_size(P, alpha, eps, delta)


def tieaudit_cost(
    P: int,
    eps: float,
    *,
    protocol: str = "quantum",
    alpha: float = 1.0,
    delta: float = 0.05,
    noise: float = 0.0,
    bound: str = "bernstein",
) -> int:
    """Communication of :func:`tieaudit` without running it (deterministic): qubits for
    ``"quantum"``, classical bits for ``"entanglement_assisted"`` (plus as many ebits) and
    ``"classical"`` (``bound`` sizes both: :func:`tieaudit_copies`, :func:`classical_subset_size`).

    Examples
    --------
    >>> tieaudit_cost(2**16, 0.05)
    11808
    >>> tieaudit_cost(2**16, 0.05, protocol="classical")
    15163
    """
    P = check_int(P, "P", 2)
    if P & (P - 1):
        raise ValueError(f"P must be a power of two P = 2^n, got {P}")
    check_choice(protocol, "protocol", TIEAUDIT_PROTOCOLS)
    if protocol == "classical":
        return classical_subset_size(P, alpha, eps, delta, bound=bound)
    data, test = tieaudit_copies(alpha, eps, delta, noise, bound=bound)
    return (data + test) * (P.bit_length() - 1)


# --------------------------------------------------------------------------------------------
# The quantum measurement: Born rule, noise models, the attack, circuits
# --------------------------------------------------------------------------------------------


def walsh_hadamard(v) -> np.ndarray:
    """Unnormalised Walsh–Hadamard transform ``(H v)(b) = sum_k v_k (-1)^popcount(b & k)``
    of a vector of length ``2^n`` (``O(P log P)``; bit ``q`` of an index is qubit ``q``).

    Examples
    --------
    >>> walsh_hadamard([1, 0, 0, 0]).tolist()
    [1.0, 1.0, 1.0, 1.0]
    >>> walsh_hadamard([0, 1, 0, 0]).tolist()
    [1.0, -1.0, 1.0, -1.0]
    """
    a = np.array(v, dtype=np.float64)
    P = a.size
    if a.ndim != 1 or P < 1 or P & (P - 1):
        raise ValueError(f"walsh_hadamard needs a 1-D vector of length 2^n, got shape {a.shape}")
    h = 1
    while h < P:
        a = a.reshape(-1, 2, h)
        a = np.stack([a[:, 0] + a[:, 1], a[:, 0] - a[:, 1]], axis=1).reshape(P)
        h *= 2
    return a


def _pair_weights(m: np.ndarray, noise: float, noise_model: str) -> np.ndarray:
    """Attenuation of each pair's coherence: 1 - noise (depolarising) or
    ``(1 - 2 noise)^|i XOR j|`` (dephasing)."""
    if noise_model == "depolarizing":
        return np.full(len(m), 1.0 - noise)
    hw = np.array([bin(int(d)).count("1") for d in (m[:, 0] ^ m[:, 1])], dtype=np.int64)
    return (1.0 - 2.0 * noise) ** hw


def outcome_probabilities(
    signs, matching, noise: float = 0.0, *, noise_model: str = "depolarizing"
) -> tuple[np.ndarray, np.ndarray]:
    """Born-rule distribution of the client's measurement on one copy.

    Returns ``(probs, y)``: ``probs`` has ``2 m + (P - 2 m)`` entries — for pair ``r`` the "+"
    outcome at ``2 r`` and the "-" outcome at ``2 r + 1``, then the unmatched coordinates in
    increasing order — and ``y`` the value of ``Y`` for each outcome (+1, -1, 0). With ``noise``
    the copy is depolarised, ``(1 - noise) probs + noise / P``, or dephased: pair ``r = (i, j)``
    gives ``(psi_i^2 + psi_j^2 ± 2 psi_i psi_j (1 - 2 noise)^|i XOR j|)/2``, unmatched ones are
    unchanged.

    Examples
    --------
    >>> probs, y = outcome_probabilities([1, 1, 1, -1], [[0, 1], [2, 3]])
    >>> probs.round(3).tolist(), y.tolist()
    ([0.5, 0.0, 0.0, 0.5], [1, -1, 1, -1])
    """
    s = check_signs(signs)
    m = check_matching(matching, s.size)
    noise = _check_noise(noise)
    check_choice(noise_model, "noise_model", TIEAUDIT_NOISE_MODELS)
    if noise_model == "depolarizing":
        return _outcome_probabilities(s, m, noise)
    P = s.size
    psi = s.astype(np.float64) / math.sqrt(P)
    a, b = psi[m[:, 0]], psi[m[:, 1]]
    w = _pair_weights(m, noise, "dephasing")
    plus = (a * a + b * b + 2.0 * w * a * b) / 2.0
    minus = (a * a + b * b - 2.0 * w * a * b) / 2.0
    unmatched = np.ones(P, dtype=bool)
    unmatched[m.ravel()] = False
    probs = np.concatenate([np.column_stack([plus, minus]).ravel(), psi[unmatched] ** 2])
    y = np.concatenate([np.tile([1, -1], len(m)), np.zeros(int(unmatched.sum()))]).astype(np.int8)
    return probs / probs.sum(), y


def outcome_index(matching, P: int) -> np.ndarray:
    """Computational-basis index that the circuits of :func:`tieaudit_circuit` report for each
    outcome of :func:`outcome_probabilities`: ``i`` for "+" of pair ``(i, j)``, ``j`` for "-",
    ``k`` for unmatched ``k``.

    Examples
    --------
    >>> outcome_index([[0, 3]], 4).tolist()
    [0, 3, 1, 2]
    """
    m = check_matching(matching, P)
    unmatched = np.ones(P, dtype=bool)
    unmatched[m.ravel()] = False
    return np.concatenate([m.ravel(), np.flatnonzero(unmatched)])


def _outcome_probabilities(s: np.ndarray, m: np.ndarray, noise: float):
    """Born rule on validated input (see :func:`outcome_probabilities`): O(P) work."""
    P = s.size
    psi = s.astype(np.float64) / math.sqrt(P)  # the server's state vector
    a, b = psi[m[:, 0]], psi[m[:, 1]]
    plus = (a + b) ** 2 / 2.0  # |<psi|(|i> + |j>)/sqrt 2>|^2
    minus = (a - b) ** 2 / 2.0
    unmatched = np.ones(P, dtype=bool)
    unmatched[m.ravel()] = False
    rest = psi[unmatched] ** 2
    probs = np.concatenate([np.column_stack([plus, minus]).ravel(), rest])
    if noise:
        probs = (1.0 - noise) * probs + noise / P
    y = np.concatenate([np.tile([1, -1], len(m)), np.zeros(int(unmatched.sum()))]).astype(np.int8)
    return probs / probs.sum(), y


def _entanglement_fidelity(P: int, noise: float, noise_model: str, attack: str) -> float:
    """``F_e = sum_K |Tr K|^2 / P^2`` of the channel a copy goes through (Kraus operators K)."""
    n = P.bit_length() - 1
    if attack == "uniform":
        if noise_model == "depolarizing":
            return 1.0 - noise + noise / P**2
        return (1.0 - noise) ** n
    # data_only: Kraus {Pi, K_j (1 - Pi)} with Pi = |psi_1><psi_1|, K_j those of the noise.
    # Tr(1 - Pi) = P - 1; depolarising K_j: sqrt(1-p) 1 and sqrt(p/P) |k><l|; dephasing K_j:
    # Z^e with Tr(Z^e (1 - Pi)) = (P - 1) [e = 0].
    if noise_model == "depolarizing":
        rest = (1.0 - noise) * (P - 1) ** 2 + noise * (P - 1) / P
    else:
        rest = (1.0 - noise) ** n * (P - 1) ** 2
    return (1.0 + rest) / P**2


def _copy_law(
    x: np.ndarray,
    m: np.ndarray,
    noise: float,
    noise_model: str,
    attack: str,
    padded: bool,
    twirl: str,
) -> tuple[float, float]:
    """``(P(Y = +1), P(Y = -1))`` for one copy carrying the ±1 string ``x`` (after the client
    has removed its pad), on validated input. See :func:`copy_y_law`."""
    P = x.size
    mm = len(m)
    xf = x.astype(np.float64)
    i, j = m[:, 0], m[:, 1]
    S1 = float(np.sum(xf[i] * xf[j]))  # sum_e x_i x_j = m (1 - 2 f_x)
    if twirl == "clifford":
        # Clifford twirl: depolarising with eta = (P^2 F_e - 1)/(P^2 - 1) on every copy.
        Fe = _entanglement_fidelity(P, noise, noise_model, attack)
        eta = (P * P * Fe - 1.0) / (P * P - 1.0)
        return ((mm + eta * S1) / P, (mm - eta * S1) / P)
    dep = noise if noise_model == "depolarizing" else 0.0
    w = np.ones(mm) if noise_model == "depolarizing" else _pair_weights(m, noise, noise_model)
    Sw = float(np.sum(w * xf[i] * xf[j]))
    if attack == "uniform":
        # The pads Z^b commute with both noise channels: the law is the unpadded one. Both keep
        # the pair-outcome weight alpha = 2m/P; E[Y] = (1 - dep) 2 Sw / P.
        return ((mm + (1.0 - dep) * Sw) / P, (mm - (1.0 - dep) * Sw) / P)
    # data_only. In the padded frame the copy is Z^b|psi_x>; the adversary finds |psi_1> with
    # probability c_b^2, c_b = <psi_chi_b|psi_x> = (H x)(b)/P, and the client (after removing
    # the pad) then holds |psi_chi_b>; otherwise it holds the noisy
    # phi_b = (psi_x - c_b psi_chi_b)/sqrt(1 - c_b^2). Sums over pairs of products with chi_b
    # are Walsh-Hadamard transforms, so all pads are handled at once.
    matched = np.zeros(P)
    matched[i], matched[j] = xf[i], xf[j]
    partner_w = np.zeros(P)
    partner_w[i], partner_w[j] = w * xf[j], w * xf[i]
    hist1 = np.bincount(i ^ j, minlength=P).astype(np.float64)
    histw = np.bincount(i ^ j, weights=w, minlength=P)
    if padded:
        c = walsh_hadamard(xf) / P
        U = walsh_hadamard(matched)  # sum_{k matched} x_k chi_b(k)
        V = walsh_hadamard(partner_w)  # sum_e w_e (x_i chi_b(j) + x_j chi_b(i))
        G1 = walsh_hadamard(hist1)  # sum_e chi_b(i XOR j)
        Gw = walsh_hadamard(histw)
    else:  # b = 0 only: chi_0 = 1
        c = np.array([xf.sum() / P])
        U = np.array([matched.sum()])
        V = np.array([partner_w.sum()])
        G1 = np.array([float(mm)])
        Gw = np.array([w.sum()])
    c2 = c * c
    caught_plus = c2 * (mm + G1) / P
    caught_minus = c2 * (mm - G1) / P
    # (1 - c^2) times the law of phi_b: matched weight D and coherence E_w of phi_b.
    D = (2.0 * mm - 2.0 * c * U + 2.0 * mm * c2) / P
    E = 2.0 * (Sw - c * V + c2 * Gw) / P
    rest_plus = (1.0 - dep) * (D + E) / 2.0 + dep * (1.0 - c2) * mm / P
    rest_minus = (1.0 - dep) * (D - E) / 2.0 + dep * (1.0 - c2) * mm / P
    return (float(np.mean(caught_plus + rest_plus)), float(np.mean(caught_minus + rest_minus)))


def copy_y_law(
    signs,
    matching,
    *,
    noise: float = 0.0,
    noise_model: str = "depolarizing",
    attack: str = "uniform",
    test_strings: str = "random",
    twirl: str = "none",
) -> tuple[float, float]:
    """``(P(Y = +1), P(Y = -1))`` of one copy carrying ``signs`` as the client sees it, exact.

    The copy is sent padded (``test_strings="random"``: averaged over the ``P`` pads ``Z^b``) or
    not (``"fixed"``), passes the channel of ``attack`` (see the module docstring), and the
    client removes its pad and measures. ``E[Y] = P(+1) - P(-1)``; ``P(+1) + P(-1)`` is the
    probability of a pair outcome. For the all-agree test copies pass ``signs = ones(P)``.

    Examples
    --------
    >>> ones = [1] * 8
    >>> copy_y_law(ones, [[0, 1], [2, 3]], noise=0.5)      # depolarised: E[Y] = 0.5 * 0.5
    (0.375, 0.125)
    >>> copy_y_law(ones, [[0, 1], [2, 3]], noise=0.5, attack="data_only", test_strings="fixed")
    (0.5, 0.0)
    """
    s = check_signs(signs)
    m = check_matching(matching, s.size)
    noise = _check_noise(noise)
    check_choice(noise_model, "noise_model", TIEAUDIT_NOISE_MODELS)
    check_choice(attack, "attack", TIEAUDIT_ATTACKS)
    check_choice(test_strings, "test_strings", TIEAUDIT_TEST_STRINGS)
    check_choice(twirl, "twirl", TIEAUDIT_TWIRLS)
    _check_twirl_strings(twirl, test_strings)
    return _copy_law(s, m, noise, noise_model, attack, test_strings == "random", twirl)


def _check_twirl_strings(twirl: str, test_strings: str) -> None:
    if twirl == "clifford" and test_strings != "random":
        raise ValueError(
            "twirl='clifford' replaces the Z pads by random Cliffords, which already "
            "hide the test strings; use test_strings='random' with it"
        )


def ratio_bias(signs, matching, noise: float, *, noise_model: str = "dephasing") -> float:
    """Limit (many copies) of ``f_hat - f`` for the ratio estimator: ``f_w - f`` with
    ``f_w = sum_e w_e d_e / sum_e w_e``, ``w_e`` the attenuation of pair ``e`` (``(1 - 2 noise)^
    |i XOR j|`` under dephasing, ``1 - noise`` under depolarising noise, where the bias is 0) and
    ``d_e = [s_i != s_j]``; equivalently ``cov_M(w, d) / mean_M(w)``.

    Examples
    --------
    >>> s = [1, -1, 1, 1, 1, 1, 1, 1]            # pair (0, 1) disagrees, Hamming distance 1
    >>> m = [[0, 1], [2, 5]]                      # pair (2, 5): 2 XOR 5 = 7, distance 3
    >>> round(ratio_bias(s, m, 0.1), 4)          # f = 1/2, f_w = 0.8 / (0.8 + 0.512)
    0.1098
    """
    s = check_signs(signs)
    m = check_matching(matching, s.size)
    noise = _check_noise(noise)
    check_choice(noise_model, "noise_model", TIEAUDIT_NOISE_MODELS)
    w = _pair_weights(m, noise, noise_model)
    d = (s[m[:, 0]] != s[m[:, 1]]).astype(np.float64)
    if w.sum() == 0.0:
        raise ValueError(
            "every pair is fully dephased (noise = 0.5 and odd distances): the ratio is undefined"
        )
    return float((w @ d) / w.sum() - d.mean())


def _measurement_unitary(matching: np.ndarray, P: int) -> np.ndarray:
    """Real orthogonal V mapping the client's basis to the computational one:
    ``(|i> + |j>)/sqrt2 -> |i>``, ``(|i> - |j>)/sqrt2 -> |j>``, ``|k> -> |k>`` (unmatched)."""
    V = np.eye(P)
    r = 1.0 / math.sqrt(2.0)
    for i, j in matching:
        V[i, i], V[i, j], V[j, i], V[j, j] = r, r, r, -r
    return V


def tieaudit_circuit(
    signs, matching, *, protocol: str = "quantum", measure: bool = True, pad: int | None = None
):
    """Qiskit circuit of one copy (small ``n`` only, ``P <= 64``).

    ``"quantum"``: qubits ``0..n-1`` carry the server's state (``StatePreparation``), then the
    client's basis change ``V`` (a ``UnitaryGate`` labelled "M") and measurement; classical
    outcome ``i`` (first index of a pair) means "+" of that pair, ``j`` means "-". With
    ``pad = b`` (an integer ``0 <= b < P``, bit ``q`` for qubit ``q``) the server applies ``Z``
    to the qubits of ``b`` before sending and the client applies them again before ``V``
    (the random test strings of the module docstring).

    ``"entanglement_assisted"``: qubits ``0..n-1`` are the server's halves, ``n..2n-1`` the
    client's. Bell pairs (H, CX), ``diag(s)`` on the server's halves, H and measurement of the
    server's halves into clbits ``0..n-1`` (the ``n`` bits sent); the client's ``Z^x`` correction
    is written in deferred-measurement form as CZ gates from the server's qubits; then ``V`` and
    measurement of the client's qubits into clbits ``n..2n-1``.

    Examples
    --------
    >>> qc = tieaudit_circuit([1, -1, 1, 1], [[0, 1]], pad=3)
    >>> qc.num_qubits, qc.count_ops()["z"]
    (2, 4)
    """
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import DiagonalGate, StatePreparation, UnitaryGate

    s = check_signs(signs)
    m = check_matching(matching, s.size)
    check_choice(protocol, "protocol", ("quantum", "entanglement_assisted"))
    P = s.size
    if P > 64:
        raise ValueError(f"tieaudit_circuit is for small registers: P must be <= 64, got {P}")
    n = P.bit_length() - 1
    if pad is not None:
        pad = check_int(pad, "pad", 0, P - 1)
        if protocol != "quantum":
            raise ValueError("pad applies to protocol='quantum' only")
    V = UnitaryGate(_measurement_unitary(m, P), label="M")
    if protocol == "quantum":
        qc = QuantumCircuit(n, n if measure else 0)
        qc.append(StatePreparation(s / math.sqrt(P), label="ψ_s"), range(n))
        pad_qubits = [q for q in range(n) if pad is not None and (pad >> q) & 1]
        if pad_qubits:
            qc.z(pad_qubits)
        qc.barrier(label="server → client")
        if pad_qubits:
            qc.z(pad_qubits)
        qc.append(V, range(n))
        if measure:
            qc.measure(range(n), range(n))
        return qc
    server, client = list(range(n)), list(range(n, 2 * n))
    qc = QuantumCircuit(2 * n, 2 * n if measure else 0)
    for a, b in zip(server, client):
        qc.h(a)
        qc.cx(a, b)
    qc.barrier(label="shared pairs")
    qc.append(DiagonalGate([complex(x) for x in s]), server)
    qc.h(server)
    if measure:
        qc.measure(server, range(n))
    qc.barrier(label="n bits → client")
    for a, b in zip(server, client):
        qc.cz(a, b)
    qc.append(V, client)
    if measure:
        qc.measure(client, range(n, 2 * n))
    return qc


def tieaudit_sample_qiskit(
    signs, matching, shots: int = 1000, *, protocol: str = "quantum", seed=None
) -> np.ndarray:
    """Sample the client's outcomes of :func:`tieaudit_circuit` on ``AerSimulator``.

    Returns counts in the order of :func:`outcome_probabilities` (pair "+", pair "-", ...,
    unmatched). The circuit is decomposed to ``u``/``cx`` gates first (Aer does not take the
    generic state-preparation multiplexers directly).

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
# The protocol
# --------------------------------------------------------------------------------------------


def _sample_mean_y(p_plus: float, p_minus: float, copies: int, rng: np.random.Generator) -> float:
    """Mean of ``Y`` over ``copies`` independent measurements (multinomial over +1, -1, 0)."""
    p = np.clip(np.array([p_plus, p_minus, 1.0 - p_plus - p_minus]), 0.0, None)
    counts = rng.multinomial(copies, p / p.sum())
    return float(counts[0] - counts[1]) / copies


def _planning_noise(P: int, noise: float, noise_model: str) -> float:
    """The depolarising-equivalent ``1 - eta`` the copies are planned for."""
    if noise_model == "depolarizing" or noise == 0.0:
        return noise
    n = P.bit_length() - 1
    eta = (P * P * (1.0 - noise) ** n - 1.0) / (P * P - 1.0)
    if eta <= 0.0:
        raise ValueError(
            f"dephasing noise = {noise:g} on n = {n} qubits leaves no signal to "
            "plan for (twirled attenuation <= 0); lower the noise"
        )
    return 1.0 - eta


def tieaudit(
    signs,
    matching,
    eps: float,
    *,
    protocol: str = "quantum",
    delta: float = 0.05,
    noise: float = 0.0,
    attack: str = "uniform",
    test_strings: str = "random",
    noise_model: str = "depolarizing",
    twirl: str = "none",
    bound: str = "bernstein",
    seed=None,
) -> Estimate:
    """Estimate ``f``, the fraction of matched pairs with different signs, to ``±eps``.

    Parameters
    ----------
    signs : array-like of ±1, shape (P,), ``P = 2^n``
        The server's signs.
    matching : array-like of ints, shape (m, 2)
        The client's disjoint pairs; ``alpha = 2 m / P``.
    eps : float in (0, 1)
        Additive accuracy; the estimate is within ``eps`` of ``f`` with probability ``>= 1-delta``.
    protocol : "quantum" | "entanglement_assisted" | "classical"
        See the module docstring.
    delta : float in (0, 0.5)
    noise : float in [0, 1)
        Strength of the channel on the copies (quantum protocols only), also the noise the copies
        are planned for. ``noise > 0`` switches on the hidden test copies.
    attack : "uniform" | "data_only"
        ``"uniform"``: every copy goes through the noise channel; ``"data_only"``: an adversary
        spares every copy it identifies as a test by projecting onto the public ``|psi_1>``.
    test_strings : "random" | "fixed"
        ``"random"``: every copy carries a fresh pad ``Z^b`` from shared randomness (tests travel
        as random characters, indistinguishable from data); ``"fixed"``: no pads.
    noise_model : "depolarizing" | "dephasing"
    twirl : "none" | "clifford"
        ``"clifford"``: a random Clifford per copy instead of the ``Z`` pad, making any
        per-copy channel depolarising (the ratio becomes unbiased under dephasing too).
    bound : "bernstein" | "hoeffding" | "exact"
        How the copies are planned (:func:`tieaudit_copies`).
    seed : None, int or numpy Generator
        Shared randomness and measurement outcomes.

    Returns
    -------
    Estimate
        ``value`` (``f_hat``), ``cost``, ``copies``, ``test_copies``, ``attenuation``
        (``eta_hat``).

    Examples
    --------
    >>> m = random_matching(1024, 1.0, seed=0)
    >>> s = signs_with_disagreement(m, 1024, 0.3, seed=1)
    >>> e = tieaudit(s, m, 0.05, seed=2)
    >>> abs(e.value - 0.3) <= 0.05, e.cost == 738 * 10
    (True, True)
    """
    s = check_signs(signs)
    m = check_matching(matching, s.size)
    eps, delta, noise = _check_eps(eps), _check_delta(delta), _check_noise(noise)
    check_choice(protocol, "protocol", TIEAUDIT_PROTOCOLS)
    check_choice(attack, "attack", TIEAUDIT_ATTACKS)
    check_choice(test_strings, "test_strings", TIEAUDIT_TEST_STRINGS)
    check_choice(noise_model, "noise_model", TIEAUDIT_NOISE_MODELS)
    check_choice(twirl, "twirl", TIEAUDIT_TWIRLS)
    check_choice(bound, "bound", TIEAUDIT_BOUNDS)
    _check_twirl_strings(twirl, test_strings)
    if protocol == "entanglement_assisted" and test_strings == "fixed":
        raise ValueError(
            "test_strings='fixed' does not apply to protocol='entanglement_assisted':"
            " its n uniformly random outcome bits already pad every copy"
        )
    check_seed(seed)
    rng = np.random.default_rng(seed)
    P, n_pairs = s.size, len(m)
    n = P.bit_length() - 1
    alpha = 2.0 * n_pairs / P

    if protocol == "classical":
        if noise or attack != "uniform":
            raise ValueError(
                "noise and attack apply to the quantum protocols only; use "
                "noise=0.0, attack='uniform' with protocol='classical'"
            )
        k = classical_subset_size(P, alpha, eps, delta, bound=bound)
        inside = np.zeros(P, dtype=bool)
        inside[rng.permutation(P)[:k]] = True  # shared randomness: the subset
        both = inside[m[:, 0]] & inside[m[:, 1]]
        if not both.any():  # (probability <= exp(-m_0/4)) the client has no data: a fair guess
            return Estimate(0.5, k, "bits", "classical", alpha=alpha)
        sub = m[both]
        value = float(np.mean(s[sub[:, 0]] != s[sub[:, 1]]))
        return Estimate(value, k, "bits", "classical", alpha=alpha)

    data, test = tieaudit_copies(
        alpha, eps, delta, _planning_noise(P, noise, noise_model), bound=bound
    )
    # Entanglement-assisted: the server's uniformly random outcome bits x act as the pad Z^x
    # (the client's halves were distributed before x existed), so its copies are always padded.
    padded = test_strings == "random" or protocol == "entanglement_assisted"
    # Copies are independent (fresh pads, secret test positions): the counts are multinomial
    # with the exact per-copy law, whatever the positions of the tests.
    mean_data = _sample_mean_y(
        *_copy_law(s, m, noise, noise_model, attack, padded, twirl), data, rng
    )
    eta_hat = 1.0
    if test:
        ones = np.ones(P, dtype=np.int8)  # the all-agree string (under the pad)
        law = _copy_law(ones, m, noise, noise_model, attack, padded, twirl)
        mean_test = _sample_mean_y(*law, test, rng)
        eta_hat = mean_test / alpha
        ratio = mean_data / mean_test if mean_test > 0 else 0.0
    else:
        ratio = mean_data / alpha
    value = float(np.clip((1.0 - ratio) / 2.0, 0.0, 1.0))
    copies = data + test
    if protocol == "quantum":
        return Estimate(
            value,
            copies * n,
            "qubits",
            "quantum",
            copies,
            test,
            attenuation=float(eta_hat),
            alpha=alpha,
        )
    # Entanglement-assisted: after the Z^x correction the client holds |psi_s> whatever the
    # server's (uniform) outcome bits x were, so the outcome law is the one above.
    return Estimate(
        value,
        copies * n,
        "bits",
        "entanglement_assisted",
        copies,
        test,
        ebits=copies * n,
        attenuation=float(eta_hat),
        alpha=alpha,
    )
