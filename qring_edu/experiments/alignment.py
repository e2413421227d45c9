"""Experiments of chapter 5, *Alignment and sign auditing*: scaling laws of GapIP_τ and
TieAudit_ε, the three simulation paths of GapIP, the TieAudit explorer and the noise sweep.

Pure: every number comes from :mod:`qring_edu.alignment` (GapIP) and :mod:`qring_edu.sign_audit`
(TieAudit); results are frozen dataclasses (figures: :mod:`qring_edu.figures.alignment`). Shared
by chapter 5, the claims page, the tests and ``make bench``.

* :func:`gapip_scaling`: communication of GapIP_τ against ``1/tau`` at fixed ``P`` for the
  quantum protocol (mean over promise instances, half aligned with ``<g, h> = tau``, half
  conflicting with ``<g, h> = -tau`` — the hardest promise instances) and the classical one
  (the cheaper of sketch and send-the-vector), with decision accuracies and fitted log-log slopes.
* :func:`tieaudit_scaling`: communication of TieAudit_ε against ``P`` at fixed ``eps``
  (deterministic planned costs), measured accuracies at the sizes that are run, the log-log slope
  of the classical cost, the quantum cost per ``log2 P`` and the crossover ``P``.
* :func:`classical_cost_table`, :func:`gapip_paths`: the classical protocols' costs, and the
  probability of "not a_h" computed four ways.
* :func:`gapip_curves`, :func:`audit_explorer`, :func:`tieaudit_curves`, :func:`noise_sweep`:
  what the chapter's widgets compute.

Fits are least squares on ``log(cost)``; a slope ``s`` means ``cost ∝ (1/tau)^s`` or ``P^s``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .._validate import check_float, check_int, check_seed
from ..alignment import (
    classical_bits,
    gapip,
    gapip_probability,
    gapip_sample_qiskit,
    sketch_bits,
    vector_bits,
)
from ..sign_audit import (
    Estimate,
    check_matching,
    check_signs,
    classical_subset_size,
    outcome_probabilities,
    random_matching,
    signs_with_disagreement,
    tieaudit,
    tieaudit_copies,
    tieaudit_cost,
)
from ._base import Table, loglog_slope, rng

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
    "classical_cost_table",
    "GapIPPaths",
    "gapip_paths",
    "GapIPCurves",
    "gapip_curves",
    "AuditExplorer",
    "audit_explorer",
    "tieaudit_curves",
    "NoiseSweep",
    "noise_sweep",
]

#: τ from 0.4 down to 0.02, nine log-spaced values (issue 5).
DEFAULT_TAUS = tuple(float(t) for t in np.geomspace(0.4, 0.02, 9))
#: log2 P = 8, 10, ..., 24 (issue 5).
DEFAULT_LOG2_P = tuple(range(8, 25, 2))


def aligned_pair(P: int, c: float, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Random unit vectors ``g, h`` of length ``P`` with ``<g, h> = c`` exactly (up to rounding)."""
    P = check_int(P, "P", 2)
    c = check_float(c, "c", -1.0, 1.0)
    check_seed(seed)
    gen = np.random.default_rng(seed)
    g = gen.standard_normal(P)
    g /= np.linalg.norm(g)
    u = gen.standard_normal(P)
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
            g, h = aligned_pair(P, c, seed=rng(seed, t_i, trial))
            truth = "aligned" if c > 0 else "conflicting"
            dq = gapip(g, h, tau, protocol="quantum", delta=delta, seed=rng(seed, t_i, trial, 1))
            dc = gapip(g, h, tau, protocol="classical", delta=delta, seed=rng(seed, t_i, trial, 2))
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
            m = random_matching(P, alpha, seed=rng(seed, n, trial))
            s = signs_with_disagreement(m, P, f, seed=rng(seed, n, trial, 1))
            truth = float(np.mean(s[m[:, 0]] != s[m[:, 1]]))
            eq.append(abs(tieaudit(s, m, eps, delta=delta, seed=rng(seed, n, trial, 2)).value
                          - truth))
            ec.append(abs(tieaudit(s, m, eps, protocol="classical", delta=delta,
                                   seed=rng(seed, n, trial, 3)).value - truth))
        q_err[idx], c_err[idx] = max(eq), max(ec)
        q_in[idx] = float(np.mean(np.array(eq) <= eps))
        c_in[idx] = float(np.mean(np.array(ec) <= eps))
    return TieAuditScaling(eps, alpha, float(delta), Ps, qc, cc, q_err, c_err, q_in, c_in,
                           tieaudit_crossover(eps, alpha, delta), trials)


# --------------------------------------------------------------------------------------------
# GapIP: the classical protocols' costs, and the four simulation paths
# --------------------------------------------------------------------------------------------
def classical_cost_table(P: int = 2**16, taus: Sequence[float] = (0.4, 0.1, 0.02),
                         delta: float = 0.05) -> Table:
    """Bits of the two classical GapIP protocols at each margin τ: the sign sketch
    (:func:`qring_edu.alignment.sketch_bits`), sending the quantised vector
    (:func:`qring_edu.alignment.vector_bits`), and which one the classical protocol uses
    (:func:`qring_edu.alignment.classical_bits`, the cheaper).

    Examples
    --------
    >>> print(classical_cost_table(2**16, [0.4]))
      τ  sketch bits  vector bits  classical uses
    0.4           88      655,360  sketch
    """
    P = check_int(P, "P", 2)
    rows = []
    for tau in taus:
        kind, _ = classical_bits(P, tau, delta)
        rows.append((float(tau), sketch_bits(tau, delta), vector_bits(P, tau), kind))
    return Table(("τ", "sketch bits", "vector bits", "classical uses"), tuple(rows),
                 ("g", ",d", ",d", ""))


@dataclass(frozen=True, eq=False)
class GapIPPaths:
    """``P("not a_h")`` after k iterations, for each k in ``ks``, computed four ways: the exact
    2-D subspace (fast path), the full state vector, the Qiskit circuit evolved as a
    ``Statevector``, and Aer sampling ``shots`` shots (shape (n,) each)."""

    ks: np.ndarray = field(repr=False)
    subspace: np.ndarray = field(repr=False)
    statevector: np.ndarray = field(repr=False)
    qiskit: np.ndarray = field(repr=False)
    aer: np.ndarray = field(repr=False)
    shots: int = 0

    def table(self) -> Table:
        """One row per k: the three exact values (6 decimals) and the Aer frequency (4)."""
        rows = zip(self.ks, self.subspace, self.statevector, self.qiskit, self.aer)
        return Table(("k", "subspace", "statevector", "qiskit", f"Aer ({self.shots} shots)"),
                     tuple(rows), ("d", ".6f", ".6f", ".6f", ".4f"))

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        gap = float(np.max(np.abs(self.subspace - self.qiskit)))
        return f"GapIPPaths(k=0..{int(self.ks[-1])}, shots={self.shots}, max exact gap={gap:.1e})"


def gapip_paths(g, h, ks: Sequence[int] = range(4), *, shots: int = 4000) -> GapIPPaths:
    """Run :func:`qring_edu.alignment.gapip_probability` with each method and
    :func:`qring_edu.alignment.gapip_sample_qiskit` (``seed = k``) for each k (small P only:
    the circuits have ``ceil(log2(P + 1))`` qubits)."""
    ks = [check_int(k, "ks", 0) for k in ks]
    shots = check_int(shots, "shots", 1)
    exact = {m: [gapip_probability(g, h, k, method=m) for k in ks]
             for m in ("subspace", "statevector", "qiskit")}
    aer = [gapip_sample_qiskit(g, h, k, shots=shots, seed=k) / shots for k in ks]
    return GapIPPaths(np.array(ks), np.array(exact["subspace"]), np.array(exact["statevector"]),
                      np.array(exact["qiskit"]), np.array(aer), shots)


# --------------------------------------------------------------------------------------------
# GapIP: cost curves and accuracy (the GapIP widget)
# --------------------------------------------------------------------------------------------
#: Largest P the interactive GapIP curves simulate (each point runs the protocols on ``trials``
#: instances), so a widget stays responsive.
MAX_WIDGET_LOG2_P = 18


@dataclass(frozen=True)
class GapIPCurves:
    """GapIP cost curves over ``tau`` in ``[tau_min, 0.4]`` with the selected ``tau`` marked."""

    tau: float
    scaling: GapIPScaling = field(repr=False)

    def __repr__(self) -> str:
        return f"GapIPCurves(tau={self.tau:g}, {self.scaling!r})"


def gapip_curves(tau: float = 0.05, log2_P: int = 16, trials: int = 8, seed: int = 0, *,
                 points: int = 7) -> GapIPCurves:
    """Run :func:`gapip_scaling` on ``points`` log-spaced values from 0.4 down to
    ``min(tau, 0.4 / 2)`` (so the curve always spans at least a factor 2) at ``P = 2^log2_P``."""
    tau = check_float(tau, "tau", 0.0, 1.0, lo_open=True, hi_open=True)
    log2_P = check_int(log2_P, "log2_P", 1, MAX_WIDGET_LOG2_P)
    trials = check_int(trials, "trials", 2, 200)
    points = check_int(points, "points", 2, 20)
    tau_min = min(tau, 0.2)
    taus = np.geomspace(0.4, tau_min, points) if tau_min < 0.4 else np.array([0.4, 0.2])
    return GapIPCurves(tau, gapip_scaling(taus, 2**log2_P, trials=trials, seed=seed))


# --------------------------------------------------------------------------------------------
# TieAudit: matching / sign-pattern explorer
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AuditExplorer:
    """One TieAudit instance and the three protocols' estimates on it."""

    signs: np.ndarray = field(repr=False)
    matching: np.ndarray = field(repr=False)
    eps: float = 0.1
    noise: float = 0.0
    f: float = 0.0
    alpha: float = 1.0
    p_plus: float = 0.0        # P(Y = +1) on one copy (with noise)
    p_minus: float = 0.0       # P(Y = -1)
    estimates: tuple[Estimate, ...] = field(default=(), repr=False)

    def __repr__(self) -> str:
        est = ", ".join(f"{e.protocol}={e.value:.3f}" for e in self.estimates)
        return (f"AuditExplorer(P={self.signs.size}, pairs={len(self.matching)}, f={self.f:.3f}, "
                f"{est})")


def audit_explorer(log2_P: int = 5, alpha: float = 0.75, f: float = 0.25, eps: float = 0.1,
                   noise: float = 0.0, seed: int = 0, *, signs=None,
                   matching=None) -> AuditExplorer:
    """Build an instance (random matching of fraction ``alpha`` with ``round(f m)`` disagreeing
    pairs, or the given ``signs``/``matching``) and run the quantum, entanglement-assisted and
    classical protocols at accuracy ``eps`` (the classical one ignores ``noise``)."""
    log2_P = check_int(log2_P, "log2_P", 1, 12)
    P = 2**log2_P
    if matching is None:
        matching = random_matching(P, alpha, seed=seed)
    m = check_matching(matching, P if signs is None else np.asarray(signs).size)
    if signs is None:
        signs = signs_with_disagreement(m, P, f, seed=seed + 1 if isinstance(seed, int) else seed)
    s = check_signs(signs)
    probs, y = outcome_probabilities(s, m, noise)
    ests = tuple(tieaudit(s, m, eps, protocol=p, noise=noise if p != "classical" else 0.0,
                          seed=seed)
                 for p in ("quantum", "entanglement_assisted", "classical"))
    return AuditExplorer(s, m, float(eps), float(noise),
                         float(np.mean(s[m[:, 0]] != s[m[:, 1]])), 2 * len(m) / s.size,
                         float(probs[y == 1].sum()), float(probs[y == -1].sum()), ests)


def tieaudit_curves(eps: float = 0.05, alpha: float = 1.0, delta: float = 0.05) -> TieAuditScaling:
    """Planned costs for ``P = 2^8 .. 2^30`` (nothing is run; the costs are fixed in advance)."""
    return tieaudit_scaling(range(8, 31, 2), eps, alpha=alpha, delta=delta, run_max_log2_P=0)


# --------------------------------------------------------------------------------------------
# TieAudit under noise
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class NoiseSweep:
    """Quantum TieAudit estimates of one instance at several noise levels."""

    noises: np.ndarray = field(repr=False)
    naive: np.ndarray = field(repr=False)        # f_hat ignoring the noise
    calibrated: np.ndarray = field(repr=False)   # f_hat with hidden test copies
    copies: np.ndarray = field(repr=False)       # data + test copies of the calibrated protocol
    f: float = 0.0
    eps: float = 0.05

    @property
    def naive_error(self) -> np.ndarray:
        return np.abs(self.naive - self.f)

    @property
    def calibrated_error(self) -> np.ndarray:
        return np.abs(self.calibrated - self.f)

    def table(self) -> Table:
        """One row per noise level: naive and calibrated estimates of f, copies sent."""
        rows = zip(self.noises, self.naive, self.calibrated, self.copies)
        return Table(("noise", "naive f̂", "f̂ with test copies", "copies"), tuple(rows),
                     (".1f", ".4f", ".4f", ",d"))

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return (f"NoiseSweep(f={self.f:.3f}, eps={self.eps:g}, "
                f"max_calibrated_error={self.calibrated_error.max():.4f}, "
                f"max_naive_error={self.naive_error.max():.4f})")


def noise_sweep(noises=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5), *, log2_P: int = 12, alpha: float = 1.0,
                f: float = 0.2, eps: float = 0.05, seed: int = 0) -> NoiseSweep:
    """For each noise level: the calibrated estimate (:func:`qring_edu.tieaudit` with hidden test
    copies) and the naive one (the noiseless estimator on noisy copies: the data half of the
    same protocol read as if ``eta = 1``)."""
    log2_P = check_int(log2_P, "log2_P", 1, 22)
    P = 2**log2_P
    m = random_matching(P, alpha, seed=seed)
    s = signs_with_disagreement(m, P, f, seed=seed + 1)
    a = 2 * len(m) / P
    gen = np.random.default_rng(seed + 2)
    naive, cal, copies = [], [], []
    for noise in noises:
        e = tieaudit(s, m, eps, noise=noise, seed=gen)
        cal.append(e.value)
        copies.append(e.copies)
        # Naive reading: same number of data copies, E[Y] = eta alpha (1 - 2f) taken as alpha(1-2f).
        probs, y = outcome_probabilities(s, m, noise)
        data = tieaudit_copies(a, eps, noise=noise)[0]
        counts = gen.multinomial(data, [probs[y == 1].sum(), probs[y == -1].sum(),
                                        max(0.0, 1 - probs[y != 0].sum())])
        naive.append(float(np.clip((1 - (counts[0] - counts[1]) / data / a) / 2, 0, 1)))
    truth = float(np.mean(s[m[:, 0]] != s[m[:, 1]]))
    return NoiseSweep(np.asarray(noises, float), np.array(naive), np.array(cal),
                      np.array(copies), truth, float(eps))
