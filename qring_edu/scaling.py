"""Scaling experiments for GapIP and TieAudit, shared by chapter 5, the tests and ``make bench``.

* :func:`gapip_scaling`: communication of GapIP_τ against ``1/tau`` at fixed ``P`` for the
  quantum protocol (mean over promise instances, half aligned with ``<g, h> = tau``, half
  conflicting with ``<g, h> = -tau`` — the hardest promise instances) and the classical one
  (the cheaper of sketch and send-the-vector), with decision accuracies and fitted log-log slopes.
* :func:`tieaudit_scaling`: communication of TieAudit_ε against ``P`` at fixed ``eps``
  (deterministic planned costs), measured accuracies at the sizes that are run, the log-log slope
  of the classical cost, the quantum cost per ``log2 P`` and the crossover ``P``.

Fits are least squares on ``log(cost)``; a slope ``s`` means ``cost ∝ (1/tau)^s`` or ``P^s``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ._validate import check_float, check_int, check_seed
from .alignment import classical_bits, gapip
from .sign_audit import (
    classical_subset_size,
    random_matching,
    signs_with_disagreement,
    tieaudit,
    tieaudit_copies,
    tieaudit_cost,
)

__all__ = [
    "GapIPScaling",
    "TieAuditScaling",
    "aligned_pair",
    "gapip_scaling",
    "tieaudit_scaling",
    "tieaudit_crossover",
    "loglog_slope",
    "DEFAULT_TAUS",
    "DEFAULT_LOG2_P",
]

#: τ from 0.4 down to 0.02, nine log-spaced values (issue 5).
DEFAULT_TAUS = tuple(float(t) for t in np.geomspace(0.4, 0.02, 9))
#: log2 P = 8, 10, ..., 24 (issue 5).
DEFAULT_LOG2_P = tuple(range(8, 25, 2))


def _rng(*parts: int) -> np.random.Generator:
    """An independent, reproducible stream for one (experiment, size, trial, role)."""
    return np.random.default_rng([int(p) for p in parts])


def loglog_slope(x: Sequence[float], y: Sequence[float]) -> float:
    """Least-squares slope of ``log y`` against ``log x``."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 2 or np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("loglog_slope needs at least two points with positive x and y")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def aligned_pair(P: int, c: float, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Random unit vectors ``g, h`` of length ``P`` with ``<g, h> = c`` exactly (up to rounding)."""
    P = check_int(P, "P", 2)
    c = check_float(c, "c", -1.0, 1.0)
    check_seed(seed)
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(P)
    g /= np.linalg.norm(g)
    u = rng.standard_normal(P)
    u -= (u @ g) * g
    u /= np.linalg.norm(u)
    return g, c * g + math.sqrt(1.0 - c * c) * u


@dataclass(frozen=True)
class GapIPScaling:
    """Result of :func:`gapip_scaling` (arrays indexed like ``taus``)."""

    P: int
    delta: float
    taus: np.ndarray = field(repr=False)
    quantum_cost: np.ndarray = field(repr=False)      # mean qubits per decision
    classical_cost: np.ndarray = field(repr=False)    # bits (deterministic)
    classical_kind: tuple[str, ...] = field(repr=False)
    quantum_accuracy: np.ndarray = field(repr=False)
    classical_accuracy: np.ndarray = field(repr=False)
    trials: int = 0

    @property
    def quantum_slope(self) -> float:
        return loglog_slope(1.0 / self.taus, self.quantum_cost)

    @property
    def classical_slope(self) -> float:
        return loglog_slope(1.0 / self.taus, self.classical_cost)

    @property
    def crossover_tau(self) -> float:
        """τ where the two fitted power laws meet (an extrapolation when it lies outside the
        measured range): ``A tau^-a = B tau^-b``."""
        lx = np.log(1.0 / self.taus)
        a, la = np.polyfit(lx, np.log(self.quantum_cost), 1)
        b, lb = np.polyfit(lx, np.log(self.classical_cost), 1)
        if b <= a:
            return float("nan")
        return float(math.exp(-(la - lb) / (b - a)))

    def __repr__(self) -> str:
        return (f"GapIPScaling(P={self.P}, taus={self.taus[0]:.3g}..{self.taus[-1]:.3g}, "
                f"quantum_slope={self.quantum_slope:.3f}, "
                f"classical_slope={self.classical_slope:.3f}, trials={self.trials})")


def gapip_scaling(taus: Sequence[float] = DEFAULT_TAUS, P: int = 2**16, *, trials: int = 20,
                  delta: float = 0.05, seed: int = 0) -> GapIPScaling:
    """Run GapIP at each ``tau`` on ``trials`` promise instances (alternating ``<g,h> = ±tau``).

    Quantum cost: mean over the trials (IAE stops adaptively). Classical: the cheaper of sketch
    and send-the-vector (its cost is fixed in advance). Accuracies: fraction of correct verdicts.
    """
    taus_arr = np.asarray([float(t) for t in taus])
    if taus_arr.size < 2:
        raise ValueError("taus must hold at least two values")
    P = check_int(P, "P", 2)
    trials = check_int(trials, "trials", 2, 10_000)
    check_seed(seed)
    q_cost, c_cost, kinds, q_acc, c_acc = [], [], [], [], []
    for t_i, tau in enumerate(taus_arr):
        kind, bits = classical_bits(P, tau, delta)
        costs, ok_q, ok_c = [], 0, 0
        for trial in range(trials):
            c = tau if trial % 2 == 0 else -tau
            g, h = aligned_pair(P, c, seed=_rng(seed, t_i, trial))
            truth = "aligned" if c > 0 else "conflicting"
            dq = gapip(g, h, tau, protocol="quantum", delta=delta, seed=_rng(seed, t_i, trial, 1))
            dc = gapip(g, h, tau, protocol="classical", delta=delta, seed=_rng(seed, t_i, trial, 2))
            costs.append(dq.cost)
            ok_q += dq.verdict == truth
            ok_c += dc.verdict == truth
        q_cost.append(float(np.mean(costs)))
        c_cost.append(float(bits))
        kinds.append(kind)
        q_acc.append(ok_q / trials)
        c_acc.append(ok_c / trials)
    return GapIPScaling(P, float(delta), taus_arr, np.array(q_cost), np.array(c_cost),
                        tuple(kinds), np.array(q_acc), np.array(c_acc), trials)


@dataclass(frozen=True)
class TieAuditScaling:
    """Result of :func:`tieaudit_scaling` (arrays indexed like ``Ps``)."""

    eps: float
    alpha: float
    delta: float
    Ps: np.ndarray = field(repr=False)
    quantum_cost: np.ndarray = field(repr=False)      # qubits
    classical_cost: np.ndarray = field(repr=False)    # bits
    quantum_error: np.ndarray = field(repr=False)     # max |f_hat - f| over trials (nan: not run)
    classical_error: np.ndarray = field(repr=False)
    quantum_within: np.ndarray = field(repr=False)    # fraction of trials within eps (nan: not run)
    classical_within: np.ndarray = field(repr=False)
    crossover_P: int = 0
    trials: int = 0

    @property
    def copies(self) -> int:
        """Copies of the quantum protocol (independent of ``P``)."""
        return tieaudit_copies(self.alpha, self.eps, self.delta)[0]

    @property
    def classical_slope(self) -> float:
        """log-log slope of the classical cost over the sizes where it is not capped at ``P``."""
        keep = self.classical_cost < self.Ps
        return loglog_slope(self.Ps[keep], self.classical_cost[keep])

    @property
    def quantum_per_log2P(self) -> np.ndarray:
        """Quantum cost divided by ``log2 P`` (constant = the number of copies)."""
        return self.quantum_cost / np.log2(self.Ps)

    @property
    def quantum_slope_vs_logP(self) -> float:
        """log-log slope of the quantum cost against ``log2 P`` (1 means ``∝ log P``)."""
        return loglog_slope(np.log2(self.Ps), self.quantum_cost)

    def __repr__(self) -> str:
        return (f"TieAuditScaling(eps={self.eps:g}, alpha={self.alpha:g}, "
                f"P=2^{int(np.log2(self.Ps[0]))}..2^{int(np.log2(self.Ps[-1]))}, "
                f"classical_slope={self.classical_slope:.3f}, "
                f"crossover_P=2^{int(np.log2(self.crossover_P))})")


def tieaudit_crossover(eps: float, alpha: float = 1.0, delta: float = 0.05,
                       max_log2_P: int = 60) -> int:
    """Smallest ``P = 2^n`` at which the quantum protocol sends fewer qubits than the classical
    one sends bits (0 if none up to ``2^max_log2_P``)."""
    for n in range(1, max_log2_P + 1):
        P = 2**n
        if tieaudit_cost(P, eps, alpha=alpha, delta=delta) < classical_subset_size(
                P, alpha, eps, delta):
            return P
    return 0


def tieaudit_scaling(log2_P: Sequence[int] = DEFAULT_LOG2_P, eps: float = 0.05, *,
                     alpha: float = 1.0, delta: float = 0.05, f: float = 0.3,
                     run_max_log2_P: int = 16, trials: int = 5, seed: int = 0) -> TieAuditScaling:
    """Planned costs of the quantum and classical TieAudit protocols for ``P = 2^n``, ``n`` in
    ``log2_P``; for ``n <= run_max_log2_P`` both protocols are also run ``trials`` times on random
    instances (matching of fraction ``alpha``, ``round(f m)`` disagreeing pairs) and their errors
    recorded."""
    ns = [check_int(n, "log2_P", 1, 40) for n in log2_P]
    if len(ns) < 2:
        raise ValueError("log2_P must hold at least two sizes")
    eps = check_float(eps, "eps", 0.0, 1.0, lo_open=True, hi_open=True)
    alpha = check_float(alpha, "alpha", 0.0, 1.0, lo_open=True)
    run_max = check_int(run_max_log2_P, "run_max_log2_P", 0, 26)
    trials = check_int(trials, "trials", 1, 10_000)
    check_seed(seed)
    Ps = np.array([2**n for n in ns], dtype=np.int64)
    qc = np.array([tieaudit_cost(int(P), eps, alpha=alpha, delta=delta) for P in Ps], float)
    cc = np.array([tieaudit_cost(int(P), eps, protocol="classical", alpha=alpha, delta=delta)
                   for P in Ps], float)
    q_err, c_err, q_in, c_in = (np.full(len(ns), np.nan) for _ in range(4))
    for idx, n in enumerate(ns):
        if n > run_max:
            continue
        P = 2**n
        eq, ec = [], []
        for trial in range(trials):
            m = random_matching(P, alpha, seed=_rng(seed, n, trial))
            s = signs_with_disagreement(m, P, f, seed=_rng(seed, n, trial, 1))
            truth = float(np.mean(s[m[:, 0]] != s[m[:, 1]]))
            eq.append(abs(tieaudit(s, m, eps, delta=delta, seed=_rng(seed, n, trial, 2)).value
                          - truth))
            ec.append(abs(tieaudit(s, m, eps, protocol="classical", delta=delta,
                                   seed=_rng(seed, n, trial, 3)).value - truth))
        q_err[idx], c_err[idx] = max(eq), max(ec)
        q_in[idx] = float(np.mean(np.array(eq) <= eps))
        c_in[idx] = float(np.mean(np.array(ec) <= eps))
    return TieAuditScaling(eps, alpha, float(delta), Ps, qc, cc, q_err, c_err, q_in, c_in,
                           tieaudit_crossover(eps, alpha, delta), trials)
