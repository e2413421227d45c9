"""Experiments of chapter 6, *Alignment and sign auditing*: scaling laws of GapIP_τ and
TieAudit_ε, the simulation paths of GapIP, the pass schedule of the ping-pong, the cost windows
with one family of bounds on both sides, TieAudit's copy plans and crossovers, the explorer, the
noise, attack and dephasing sweeps.

Pure: every number comes from :mod:`qring_edu.alignment` (GapIP) and :mod:`qring_edu.sign_audit`
(TieAudit); results are frozen dataclasses (figures: :mod:`qring_edu.figures.alignment`). Shared
by chapter 6, the claims page, the tests and ``make bench``.

* :func:`gapip_scaling`: communication of GapIP_τ against ``1/tau`` at fixed ``P`` for the
  quantum protocol (mean over promise instances, half aligned with ``<g, h> = tau``, half
  conflicting with ``<g, h> = -tau`` — the hardest promise instances) and the classical one
  (the cheaper of sketch and send-the-vector), with decision accuracies and fitted log-log slopes.
* :func:`tieaudit_scaling`: communication of TieAudit_ε against ``P`` at fixed ``eps``
  (deterministic planned costs), measured accuracies at the sizes that are run, the log-log slope
  of the classical cost, the quantum cost per ``log2 P`` and the crossover ``P``.
* :func:`classical_cost_table`, :func:`gapip_paths`: the classical protocols' costs, and the
  probability of "not a_h" computed four ways (amplitude or phase estimation).
* :func:`gapip_schedule`: the passes of one shot (who applies what, how many qubits cross).
* :func:`gapip_comparison`: quantum (amplitude / phase estimation) against classical cost over a
  grid of τ, one family of bounds on both sides, with the window where quantum is cheaper.
* :func:`tieaudit_copy_plans`, :func:`tieaudit_copies_curve`, :func:`tieaudit_crossover_table`:
  how many copies each bound plans and their exact failure probabilities; crossovers per family.
* :func:`tieaudit_attack_sweep`, :func:`dephasing_sweep`: the data-only attack against fixed and
  random test strings; the ratio estimator's bias under dephasing, with and without the twirl.
* :func:`gapip_curves`, :func:`audit_explorer`, :func:`tieaudit_curves`, :func:`noise_sweep`:
  what the chapter's widgets compute.

Fits are least squares on ``log(cost)``; a slope ``s`` means ``cost ∝ (1/tau)^s`` or ``P^s``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .._validate import check_choice, check_float, check_int, check_seed
from ..alignment import (
    GAPIP_CONFIDENCES,
    classical_bits,
    gapip,
    gapip_probability,
    gapip_sample_qiskit,
    n_register_qubits,
    sketch_bits,
    vector_bits,
)
from ..sign_audit import (
    TIEAUDIT_ATTACKS,
    TIEAUDIT_BOUNDS,
    TIEAUDIT_TEST_STRINGS,
    Estimate,
    check_matching,
    check_signs,
    classical_subset_size,
    classical_worst_failure,
    copy_y_law,
    outcome_probabilities,
    random_matching,
    ratio_bias,
    signs_with_disagreement,
    tieaudit,
    tieaudit_copies,
    tieaudit_cost,
    tieaudit_failure_probability,
    tieaudit_worst_failure,
)
from ._base import Rows, Table, loglog_slope, rng

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
    "QUANTUM_GAPIP_PROTOCOLS",
    "GAPIP_FAMILIES",
    "GapIPSchedule",
    "gapip_schedule",
    "GapIPComparison",
    "gapip_comparison",
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
]

#: τ from 0.4 down to 0.02, nine log-spaced values.
DEFAULT_TAUS = tuple(float(t) for t in np.geomspace(0.4, 0.02, 9))
#: log2 P = 8, 10, ..., 24.
DEFAULT_LOG2_P = tuple(range(8, 25, 2))


def aligned_pair(P: int, c: float, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Random unit vectors ``g, h`` of length ``P`` with ``<g, h> = c`` exactly (up to rounding).

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu.experiments.alignment import aligned_pair
    >>> g, h = aligned_pair(16, 0.3, seed=0)
    >>> g.shape, round(float(np.linalg.norm(g)), 12), round(float(g @ h), 12)
    ((16,), 1.0, 0.3)
    """
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
    """Result of :func:`gapip_scaling` (arrays indexed like ``taus``).

    Examples
    --------
    >>> from qring_edu.experiments.alignment import gapip_scaling
    >>> s = gapip_scaling((0.4, 0.2), 2**8, trials=2, confidence="hoeffding")
    >>> s
    GapIPScaling(P=256, taus=0.4..0.2, quantum_slope=0.000, classical_slope=2.052, trials=2)
    >>> s.classical_kind, [round(float(a), 2) for a in s.quantum_accuracy]
    (('sketch', 'sketch'), [1.0, 1.0])
    """

    P: int
    delta: float
    taus: np.ndarray = field(repr=False)
    quantum_cost: np.ndarray = field(repr=False)  # mean qubits per decision
    classical_cost: np.ndarray = field(repr=False)  # bits (deterministic)
    classical_kind: tuple[str, ...] = field(repr=False)
    quantum_accuracy: np.ndarray = field(repr=False)
    classical_accuracy: np.ndarray = field(repr=False)
    trials: int = 0
    confidence: str = "chernoff"  # family of bounds (quantum intervals and sketch length)
    protocol: str = "quantum"  # "quantum" (amplitude estimation) or "phase_estimation"

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
        return (
            f"GapIPScaling(P={self.P}, taus={self.taus[0]:.3g}..{self.taus[-1]:.3g}, "
            f"quantum_slope={self.quantum_slope:.3f}, "
            f"classical_slope={self.classical_slope:.3f}, trials={self.trials})"
        )


#: The two quantum GapIP protocols (``gapip(protocol=...)``).
QUANTUM_GAPIP_PROTOCOLS = ("quantum", "phase_estimation")


def _sketch_bound(confidence: str) -> str:
    """The sketch bound of a family (``gapip``'s rule: ``"exact"`` -> exact, else Hoeffding)."""
    return "exact" if confidence == "exact" else "hoeffding"


def _check_taus(taus, at_least: int = 2) -> np.ndarray:
    if isinstance(taus, (str, bytes)) or not hasattr(taus, "__iter__"):
        raise TypeError(f"taus must be a sequence of margins, got {type(taus).__name__}")
    values = [check_float(t, "taus", 0.0, 1.0, lo_open=True, hi_open=True) for t in taus]
    if len(values) < at_least:
        raise ValueError(f"taus must hold at least {at_least} values")
    return np.asarray(values)


def gapip_scaling(
    taus: Sequence[float] = DEFAULT_TAUS,
    P: int = 2**16,
    *,
    trials: int = 20,
    delta: float = 0.05,
    seed: int = 0,
    confidence: str = "chernoff",
    protocol: str = "quantum",
) -> GapIPScaling:
    """Run GapIP at each ``tau`` on ``trials`` promise instances (alternating ``<g,h> = ±tau``).

    Quantum cost: mean over the trials of ``gapip(protocol=protocol, confidence=confidence)``
    (the interval iteration stops adaptively). Classical: the cheaper of sketch and
    send-the-vector, the sketch sized with the same family (``"exact"``: exact binomial tail;
    otherwise Hoeffding), fixed in advance. Accuracies: fraction of correct verdicts.
    ``confidence="chernoff"`` (the default, kept for compatibility) pairs conservative Chernoff
    intervals with the Hoeffding sketch: compare within ``"hoeffding"`` or ``"exact"``.

    Examples
    --------
    >>> from qring_edu.experiments.alignment import gapip_scaling
    >>> s = gapip_scaling((0.4, 0.1), 2**8, trials=2, confidence="hoeffding")
    >>> s.taus.tolist(), s.quantum_cost.shape
    ([0.4, 0.1], (2,))
    >>> bool(s.quantum_cost[1] > s.quantum_cost[0])          # a smaller margin costs more qubits
    True
    """
    taus_arr = _check_taus(taus)
    P = check_int(P, "P", 2)
    trials = check_int(trials, "trials", 2, 10_000)
    check_choice(confidence, "confidence", GAPIP_CONFIDENCES)
    check_choice(protocol, "protocol", QUANTUM_GAPIP_PROTOCOLS)
    check_seed(seed)
    bound = _sketch_bound(confidence)
    q_cost, c_cost, kinds, q_acc, c_acc = [], [], [], [], []
    for t_i, tau in enumerate(taus_arr):
        kind, bits = classical_bits(P, tau, delta, bound=bound)
        costs, ok_q, ok_c = [], 0, 0
        for trial in range(trials):
            c = tau if trial % 2 == 0 else -tau
            g, h = aligned_pair(P, c, seed=rng(seed, t_i, trial))
            truth = "aligned" if c > 0 else "conflicting"
            dq = gapip(
                g,
                h,
                tau,
                protocol=protocol,
                delta=delta,
                confidence=confidence,
                seed=rng(seed, t_i, trial, 1),
            )
            dc = gapip(
                g,
                h,
                tau,
                protocol="classical",
                delta=delta,
                confidence=confidence,
                seed=rng(seed, t_i, trial, 2),
            )
            costs.append(dq.cost)
            ok_q += dq.verdict == truth
            ok_c += dc.verdict == truth
        q_cost.append(float(np.mean(costs)))
        c_cost.append(float(bits))
        kinds.append(kind)
        q_acc.append(ok_q / trials)
        c_acc.append(ok_c / trials)
    return GapIPScaling(
        P,
        float(delta),
        taus_arr,
        np.array(q_cost),
        np.array(c_cost),
        tuple(kinds),
        np.array(q_acc),
        np.array(c_acc),
        trials,
        confidence,
        protocol,
    )


@dataclass(frozen=True)
class TieAuditScaling:
    """Result of :func:`tieaudit_scaling` (arrays indexed like ``Ps``).

    Examples
    --------
    >>> from qring_edu.experiments.alignment import tieaudit_scaling
    >>> s = tieaudit_scaling((8, 10), 0.1, trials=1)
    >>> s
    TieAuditScaling(eps=0.1, alpha=1, P=2^8..2^10, classical_slope=n/a, crossover_P=2^13, bound='bernstein')
    >>> s.Ps.tolist(), s.quantum_cost.tolist()
    ([256, 1024], [1480.0, 1850.0])
    """

    eps: float
    alpha: float
    delta: float
    Ps: np.ndarray = field(repr=False)
    quantum_cost: np.ndarray = field(repr=False)  # qubits
    classical_cost: np.ndarray = field(repr=False)  # bits
    quantum_error: np.ndarray = field(repr=False)  # max |f_hat - f| over trials (nan: not run)
    classical_error: np.ndarray = field(repr=False)
    quantum_within: np.ndarray = field(repr=False)  # fraction of trials within eps (nan: not run)
    classical_within: np.ndarray = field(repr=False)
    crossover_P: int = 0
    trials: int = 0
    bound: str = "bernstein"  # how the copies and the subset are planned

    @property
    def copies(self) -> int:
        """Copies of the quantum protocol (independent of ``P``)."""
        return tieaudit_copies(self.alpha, self.eps, self.delta, bound=self.bound)[0]

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
        uncapped = int(np.sum(self.classical_cost < self.Ps))
        slope = f"{self.classical_slope:.3f}" if uncapped >= 2 else "n/a"
        return (
            f"TieAuditScaling(eps={self.eps:g}, alpha={self.alpha:g}, "
            f"P=2^{int(np.log2(self.Ps[0]))}..2^{int(np.log2(self.Ps[-1]))}, "
            f"classical_slope={slope}, "
            f"crossover_P=2^{int(np.log2(self.crossover_P)) if self.crossover_P else 0}, "
            f"bound={self.bound!r})"
        )


def _classical_bound(bound: str) -> str:
    """The classical subset plan of a family: ``"exact"`` or Hoeffding's (for the disagreement
    indicators Bernstein's bound is Hoeffding's: their worst-case variance is 1/4)."""
    return "exact" if bound == "exact" else "hoeffding"


def tieaudit_crossover(
    eps: float,
    alpha: float = 1.0,
    delta: float = 0.05,
    max_log2_P: int = 60,
    *,
    bound: str = "bernstein",
) -> int:
    """Smallest ``P = 2^n`` at which the quantum protocol sends fewer qubits than the classical
    one sends bits, both planned with the family ``bound`` (0 if none up to ``2^max_log2_P``).

    ``"hoeffding"``: Hoeffding copies against the Hoeffding subset; ``"bernstein"`` (default):
    Bernstein copies against the same subset (Bernstein gives the classical side nothing more);
    ``"exact"``: the exact copy plan against the exact subset plan. For ``"exact"`` the quantum
    message of ``q = N log2 P`` qubits wins iff a classical subset of ``q`` coordinates still
    fails the guarantee, ``classical_worst_failure(P, alpha, q, eps) > delta`` (the failure
    decreases with the subset size, as the exact planner's bisection assumes), so each size costs
    one exact evaluation; sizes with ``q >= P`` are skipped (sending all ``P`` signs is cheaper).

    Examples
    --------
    >>> tieaudit_crossover(0.05)
    65536
    >>> tieaudit_crossover(0.05, alpha=0.1, bound="hoeffding") == 2**27
    True
    """
    eps = check_float(eps, "eps", 0.0, 1.0, lo_open=True, hi_open=True)
    alpha = check_float(alpha, "alpha", 0.0, 1.0, lo_open=True)
    delta = check_float(delta, "delta", 0.0, 0.5, lo_open=True, hi_open=True)
    max_log2_P = check_int(max_log2_P, "max_log2_P", 1, 60)
    check_choice(bound, "bound", TIEAUDIT_BOUNDS)
    if bound == "exact":
        copies = tieaudit_copies(alpha, eps, delta, bound="exact")[0]
        for n in range(1, max_log2_P + 1):
            P, q = 2**n, copies * n
            if q < P and classical_worst_failure(P, alpha, q, eps)[0] > delta:
                return P
        return 0
    for n in range(1, max_log2_P + 1):
        P = 2**n
        if tieaudit_cost(P, eps, alpha=alpha, delta=delta, bound=bound) < classical_subset_size(
            P, alpha, eps, delta, bound="hoeffding"
        ):
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
    """Planned costs of the quantum and classical TieAudit protocols for ``P = 2^n``, ``n`` in
    ``log2_P``; for ``n <= run_max_log2_P`` both protocols are also run ``trials`` times on random
    instances (matching of fraction ``alpha``, ``round(f m)`` disagreeing pairs) and their errors
    recorded. ``bound``: ``"hoeffding"`` or ``"bernstein"`` plan both sides as
    :func:`tieaudit_crossover` does (the exact planners take seconds per size: use
    :func:`tieaudit_crossover_table` for the exact family).

    Examples
    --------
    >>> from qring_edu.experiments.alignment import tieaudit_scaling
    >>> s = tieaudit_scaling((8, 10, 30), 0.1, run_max_log2_P=8, trials=2)
    >>> s.classical_cost.tolist()
    [256.0, 950.0, 972057.0]
    >>> s.crossover_P
    8192
    """
    ns = [check_int(n, "log2_P", 1, 40) for n in log2_P]
    if len(ns) < 2:
        raise ValueError("log2_P must hold at least two sizes")
    eps = check_float(eps, "eps", 0.0, 1.0, lo_open=True, hi_open=True)
    alpha = check_float(alpha, "alpha", 0.0, 1.0, lo_open=True)
    run_max = check_int(run_max_log2_P, "run_max_log2_P", 0, 26)
    trials = check_int(trials, "trials", 1, 10_000)
    check_choice(bound, "bound", ("hoeffding", "bernstein"))
    check_seed(seed)
    Ps = np.array([2**n for n in ns], dtype=np.int64)
    qc = np.array(
        [tieaudit_cost(int(P), eps, alpha=alpha, delta=delta, bound=bound) for P in Ps], float
    )
    cc = np.array(
        [
            tieaudit_cost(
                int(P), eps, protocol="classical", alpha=alpha, delta=delta, bound="hoeffding"
            )
            for P in Ps
        ],
        float,
    )
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
            eq.append(
                abs(
                    tieaudit(s, m, eps, delta=delta, bound=bound, seed=rng(seed, n, trial, 2)).value
                    - truth
                )
            )
            ec.append(
                abs(
                    tieaudit(
                        s,
                        m,
                        eps,
                        protocol="classical",
                        delta=delta,
                        bound="hoeffding",
                        seed=rng(seed, n, trial, 3),
                    ).value
                    - truth
                )
            )
        q_err[idx], c_err[idx] = max(eq), max(ec)
        q_in[idx] = float(np.mean(np.array(eq) <= eps))
        c_in[idx] = float(np.mean(np.array(ec) <= eps))
    return TieAuditScaling(
        eps,
        alpha,
        float(delta),
        Ps,
        qc,
        cc,
        q_err,
        c_err,
        q_in,
        c_in,
        tieaudit_crossover(eps, alpha, delta, bound=bound),
        trials,
        bound,
    )


# --------------------------------------------------------------------------------------------
# GapIP: the classical protocols' costs, and the four simulation paths
# --------------------------------------------------------------------------------------------
def classical_cost_table(
    P: int = 2**16,
    taus: Sequence[float] = (0.4, 0.1, 0.02),
    delta: float = 0.05,
    *,
    exact: bool = False,
) -> Table:
    """Bits of the two classical GapIP protocols at each margin τ: the sign sketch
    (:func:`qring_edu.alignment.sketch_bits`, Hoeffding; with ``exact=True`` also the exact
    binomial length), sending the quantised vector (:func:`qring_edu.alignment.vector_bits`), and
    which one the classical protocol uses (:func:`qring_edu.alignment.classical_bits`, the
    cheaper, Hoeffding family).

    Examples
    --------
    >>> print(classical_cost_table(2**16, [0.4]))
      τ  sketch bits  vector bits  classical uses
    0.4           88      655,360  sketch
    >>> print(classical_cost_table(2**16, [0.1], exact=True))
      τ  sketch (Hoeffding)  sketch (exact)  vector bits  classical uses
    0.1               1,474             665      786,432  sketch
    """
    P = check_int(P, "P", 2)
    rows = []
    for tau in _check_taus(taus, at_least=1):
        kind, _ = classical_bits(P, tau, delta)
        extra = (sketch_bits(tau, delta, bound="exact"),) if exact else ()
        rows.append((float(tau), sketch_bits(tau, delta)) + extra + (vector_bits(P, tau), kind))
    if exact:
        return Table(
            ("τ", "sketch (Hoeffding)", "sketch (exact)", "vector bits", "classical uses"),
            tuple(rows),
            ("g", ",d", ",d", ",d", ""),
        )
    return Table(
        ("τ", "sketch bits", "vector bits", "classical uses"), tuple(rows), ("g", ",d", ",d", "")
    )


@dataclass(frozen=True, eq=False)
class GapIPPaths:
    """``P("not a_h")`` after k iterations (``protocol="phase_estimation"``: ``P(control "-")``
    with power ``K = k``), for each k in ``ks``, computed four ways: the exact 2-D subspace (fast
    path), the full state vector, the Qiskit circuit evolved as a ``Statevector``, and Aer
    sampling ``shots`` shots (shape (n,) each).

    Examples
    --------
    >>> from qring_edu.experiments.alignment import aligned_pair, gapip_paths
    >>> g, h = aligned_pair(4, 0.5, seed=1)
    >>> paths = gapip_paths(g, h, ks=(0, 1), shots=200)
    >>> paths.subspace.round(4).tolist(), paths.statevector.round(4).tolist()
    ([0.4375, 0.6836], [0.4375, 0.6836])
    >>> paths.aer.tolist()                                             # sampled: close, not equal
    [0.44, 0.665]
    """

    ks: np.ndarray = field(repr=False)
    subspace: np.ndarray = field(repr=False)
    statevector: np.ndarray = field(repr=False)
    qiskit: np.ndarray = field(repr=False)
    aer: np.ndarray = field(repr=False)
    shots: int = 0
    protocol: str = "quantum"

    def table(self) -> Table:
        """One row per k (or K): the three exact values (6 decimals) and the Aer frequency (4)."""
        rows = zip(self.ks, self.subspace, self.statevector, self.qiskit, self.aer)
        key = "K" if self.protocol == "phase_estimation" else "k"
        return Table(
            (key, "subspace", "statevector", "qiskit", f"Aer ({self.shots} shots)"),
            tuple(rows),
            ("d", ".6f", ".6f", ".6f", ".4f"),
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        gap = float(np.max(np.abs(self.subspace - self.qiskit)))
        return (
            f"GapIPPaths(k={int(self.ks[0])}..{int(self.ks[-1])}, shots={self.shots}, "
            f"protocol={self.protocol!r}, max exact gap={gap:.1e})"
        )


def gapip_paths(
    g, h, ks: Sequence[int] = range(4), *, shots: int = 4000, protocol: str = "quantum"
) -> GapIPPaths:
    """Run :func:`qring_edu.alignment.gapip_probability` with each method and
    :func:`qring_edu.alignment.gapip_sample_qiskit` (``seed = k``) for each k (small P only:
    the circuits have ``ceil(log2(P + 1))`` qubits, one more for phase estimation's control;
    ``protocol="phase_estimation"`` takes powers ``K >= 1``).

    Examples
    --------
    >>> from qring_edu.experiments.alignment import aligned_pair, gapip_paths
    >>> g, h = aligned_pair(6, -0.2, seed=2)
    >>> paths = gapip_paths(g, h, ks=(1, 2), shots=100, protocol="phase_estimation")
    >>> bool(abs(paths.subspace - paths.qiskit).max() < 1e-9)         # exact paths agree
    True
    """
    check_choice(protocol, "protocol", QUANTUM_GAPIP_PROTOCOLS)
    lo = 1 if protocol == "phase_estimation" else 0
    ks = [check_int(k, "ks", lo) for k in ks]
    shots = check_int(shots, "shots", 1)
    exact = {
        m: [gapip_probability(g, h, k, method=m, protocol=protocol) for k in ks]
        for m in ("subspace", "statevector", "qiskit")
    }
    aer = [gapip_sample_qiskit(g, h, k, shots=shots, seed=k, protocol=protocol) / shots for k in ks]
    return GapIPPaths(
        np.array(ks),
        np.array(exact["subspace"]),
        np.array(exact["statevector"]),
        np.array(exact["qiskit"]),
        np.array(aer),
        shots,
        protocol,
    )


# --------------------------------------------------------------------------------------------
# GapIP: cost curves and accuracy (the GapIP widget)
# --------------------------------------------------------------------------------------------
#: Largest P the interactive GapIP curves simulate (each point runs the protocols on ``trials``
#: instances), so a widget stays responsive.
MAX_WIDGET_LOG2_P = 18


@dataclass(frozen=True)
class GapIPCurves:
    """GapIP cost curves over ``tau`` in ``[tau_min, 0.4]`` with the selected ``tau`` marked.

    Examples
    --------
    >>> from qring_edu.experiments.alignment import gapip_curves
    >>> curves = gapip_curves(0.1, log2_P=8, trials=2, points=3)
    >>> curves.tau, curves.scaling.taus.round(3).tolist()
    (0.1, [0.4, 0.2, 0.1])
    """

    tau: float
    scaling: GapIPScaling = field(repr=False)

    def __repr__(self) -> str:
        return f"GapIPCurves(tau={self.tau:g}, {self.scaling!r})"


def gapip_curves(
    tau: float = 0.05,
    log2_P: int = 16,
    trials: int = 8,
    seed: int = 0,
    *,
    points: int = 7,
    confidence: str = "hoeffding",
    protocol: str = "quantum",
) -> GapIPCurves:
    """Run :func:`gapip_scaling` on ``points`` log-spaced values from 0.4 down to
    ``min(tau, 0.4 / 2)`` (so the curve always spans at least a factor 2) at ``P = 2^log2_P``,
    with the family ``confidence`` on both sides and the quantum ``protocol``.

    Examples
    --------
    >>> from qring_edu.experiments.alignment import gapip_curves
    >>> curves = gapip_curves(0.3, log2_P=8, trials=2, points=3)
    >>> curves.scaling.taus.round(3).tolist()                          # spans a factor of 2 at least
    [0.4, 0.283, 0.2]
    """
    tau = check_float(tau, "tau", 0.0, 1.0, lo_open=True, hi_open=True)
    log2_P = check_int(log2_P, "log2_P", 1, MAX_WIDGET_LOG2_P)
    trials = check_int(trials, "trials", 2, 200)
    points = check_int(points, "points", 2, 20)
    tau_min = min(tau, 0.2)
    taus = np.geomspace(0.4, tau_min, points) if tau_min < 0.4 else np.array([0.4, 0.2])
    return GapIPCurves(
        tau,
        gapip_scaling(
            taus, 2**log2_P, trials=trials, seed=seed, confidence=confidence, protocol=protocol
        ),
    )


# --------------------------------------------------------------------------------------------
# TieAudit: matching / sign-pattern explorer
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AuditExplorer:
    """One TieAudit instance and the three protocols' estimates on it.

    Examples
    --------
    >>> from qring_edu.experiments.alignment import audit_explorer
    >>> ex = audit_explorer(log2_P=5, alpha=0.75, f=0.25, eps=0.1, seed=0)
    >>> ex
    AuditExplorer(P=32, pairs=12, f=0.250, quantum=0.216, entanglement_assisted=0.216, classical=0.250)
    >>> len(ex.signs), len(ex.matching), len(ex.estimates)
    (32, 12, 3)
    """

    signs: np.ndarray = field(repr=False)
    matching: np.ndarray = field(repr=False)
    eps: float = 0.1
    noise: float = 0.0
    f: float = 0.0
    alpha: float = 1.0
    p_plus: float = 0.0  # P(Y = +1) on one copy (with noise)
    p_minus: float = 0.0  # P(Y = -1)
    estimates: tuple[Estimate, ...] = field(default=(), repr=False)
    attack: str = "uniform"
    test_strings: str = "random"

    def __repr__(self) -> str:
        est = ", ".join(f"{e.protocol}={e.value:.3f}" for e in self.estimates)
        return (
            f"AuditExplorer(P={self.signs.size}, pairs={len(self.matching)}, f={self.f:.3f}, {est})"
        )


def audit_explorer(
    log2_P: int = 5,
    alpha: float = 0.75,
    f: float = 0.25,
    eps: float = 0.1,
    noise: float = 0.0,
    seed: int = 0,
    *,
    signs=None,
    matching=None,
    attack: str = "uniform",
    test_strings: str = "random",
) -> AuditExplorer:
    """Build an instance (random matching of fraction ``alpha`` with ``round(f m)`` disagreeing
    pairs, or the given ``signs``/``matching``) and run the quantum, entanglement-assisted and
    classical protocols at accuracy ``eps`` (the classical one ignores ``noise``).

    ``attack`` and ``test_strings`` (:func:`qring_edu.tieaudit`) apply to the quantum protocol;
    the entanglement-assisted one is always padded by its random outcome bits, so it runs with
    ``test_strings="random"``. The one-copy law shown (``p_plus``, ``p_minus``) is that of a data
    copy through the channel (:func:`qring_edu.sign_audit.copy_y_law`).

    Examples
    --------
    >>> from qring_edu.experiments.alignment import audit_explorer
    >>> ex = audit_explorer(log2_P=4, f=0.5, eps=0.2, noise=0.1, seed=3)
    >>> ex
    AuditExplorer(P=16, pairs=6, f=0.500, quantum=0.497, entanglement_assisted=0.497, classical=0.500)
    >>> round(ex.f, 3), round(ex.alpha, 3)
    (0.5, 0.75)
    """
    log2_P = check_int(log2_P, "log2_P", 1, 12)
    P = 2**log2_P
    if matching is None:
        matching = random_matching(P, alpha, seed=seed)
    m = check_matching(matching, P if signs is None else np.asarray(signs).size)
    if signs is None:
        signs = signs_with_disagreement(m, P, f, seed=seed + 1 if isinstance(seed, int) else seed)
    s = check_signs(signs)
    check_choice(attack, "attack", TIEAUDIT_ATTACKS)
    check_choice(test_strings, "test_strings", TIEAUDIT_TEST_STRINGS)
    p_plus, p_minus = copy_y_law(s, m, noise=noise, attack=attack, test_strings=test_strings)
    ests = (
        tieaudit(s, m, eps, noise=noise, attack=attack, test_strings=test_strings, seed=seed),
        tieaudit(
            s, m, eps, protocol="entanglement_assisted", noise=noise, attack=attack, seed=seed
        ),
        tieaudit(s, m, eps, protocol="classical", seed=seed),
    )
    return AuditExplorer(
        s,
        m,
        float(eps),
        float(noise),
        float(np.mean(s[m[:, 0]] != s[m[:, 1]])),
        2 * len(m) / s.size,
        float(p_plus),
        float(p_minus),
        ests,
        attack,
        test_strings,
    )


def tieaudit_curves(
    eps: float = 0.05, alpha: float = 1.0, delta: float = 0.05, bound: str = "bernstein"
) -> TieAuditScaling:
    """Planned costs for ``P = 2^8 .. 2^30`` (nothing is run; the costs are fixed in advance),
    both sides planned with ``bound`` (``"hoeffding"`` or ``"bernstein"``).

    Examples
    --------
    >>> from qring_edu.experiments.alignment import tieaudit_curves
    >>> curves = tieaudit_curves(0.05)
    >>> int(curves.Ps[0]), int(curves.Ps[-1]), curves.trials          # planned only: nothing is run
    (256, 1073741824, 5)
    >>> curves.crossover_P
    65536
    """
    return tieaudit_scaling(
        range(8, 31, 2), eps, alpha=alpha, delta=delta, run_max_log2_P=0, bound=bound
    )


# --------------------------------------------------------------------------------------------
# TieAudit under noise
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class NoiseSweep:
    """Quantum TieAudit estimates of one instance at several noise levels.

    Examples
    --------
    >>> from qring_edu.experiments.alignment import noise_sweep
    >>> sw = noise_sweep((0.0, 0.3), log2_P=8, eps=0.1)
    >>> sw
    NoiseSweep(f=0.203, eps=0.1, max_calibrated_error=0.0131, max_naive_error=0.0874)
    >>> sw.noises.tolist(), sw.copies.tolist()
    ([0.0, 0.3], [185, 4330])
    """

    noises: np.ndarray = field(repr=False)
    naive: np.ndarray = field(repr=False)  # f_hat ignoring the noise
    calibrated: np.ndarray = field(repr=False)  # f_hat with hidden test copies
    copies: np.ndarray = field(repr=False)  # data + test copies of the calibrated protocol
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
        return Table(
            ("noise", "naive f̂", "f̂ with test copies", "copies"),
            tuple(rows),
            (".1f", ".4f", ".4f", ",d"),
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return (
            f"NoiseSweep(f={self.f:.3f}, eps={self.eps:g}, "
            f"max_calibrated_error={self.calibrated_error.max():.4f}, "
            f"max_naive_error={self.naive_error.max():.4f})"
        )


def noise_sweep(
    noises=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5),
    *,
    log2_P: int = 12,
    alpha: float = 1.0,
    f: float = 0.2,
    eps: float = 0.05,
    seed: int = 0,
) -> NoiseSweep:
    """For each noise level: the calibrated estimate (:func:`qring_edu.tieaudit` with hidden test
    copies) and the naive one (the noiseless estimator on noisy copies: the data half of the
    same protocol read as if ``eta = 1``).

    Examples
    --------
    >>> from qring_edu.experiments.alignment import noise_sweep
    >>> sw = noise_sweep((0.0, 0.4), log2_P=8, f=0.2, eps=0.1)
    >>> [round(float(x), 3) for x in sw.naive], [round(float(x), 3) for x in sw.calibrated]
    ([0.184, 0.32], [0.216, 0.204])
    """
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
        counts = gen.multinomial(
            data, [probs[y == 1].sum(), probs[y == -1].sum(), max(0.0, 1 - probs[y != 0].sum())]
        )
        naive.append(float(np.clip((1 - (counts[0] - counts[1]) / data / a) / 2, 0, 1)))
    truth = float(np.mean(s[m[:, 0]] != s[m[:, 1]]))
    return NoiseSweep(
        np.asarray(noises, float),
        np.array(naive),
        np.array(cal),
        np.array(copies),
        truth,
        float(eps),
    )


# --------------------------------------------------------------------------------------------
# GapIP: the passes of one shot (the ping-pong diagram)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GapIPSchedule:
    """What happens in one shot of a quantum GapIP protocol, in order.

    ``events``: tuples ``(kind, party, label)``; ``kind`` is ``"op"`` (``party`` acts on the
    register: ``label`` names the operation) or ``"pass"`` (``party`` sends the register to the
    other one; ``label`` is the qubit count). ``register``: ``n = ceil(log2(P + 1))``;
    ``width``: qubits per pass (``n``, or ``n + 1`` with phase estimation's control qubit);
    ``multiple``: the shot measures ``sin^2(multiple · theta)``.

    Examples
    --------
    >>> gapip_schedule(3, 1)
    GapIPSchedule(protocol='quantum', P=3, power=1, passes=3, qubits=6, angle=3θ)
    """

    protocol: str
    P: int
    power: int
    register: int
    width: int
    multiple: int
    events: tuple[tuple[str, str, str], ...] = field(repr=False)

    @property
    def passes(self) -> int:
        return sum(kind == "pass" for kind, _, _ in self.events)

    @property
    def qubits(self) -> int:
        """Qubits that cross in this shot: every pass, the whole register (and control)."""
        return self.passes * self.width

    def __repr__(self) -> str:
        return (
            f"GapIPSchedule(protocol={self.protocol!r}, P={self.P}, power={self.power}, "
            f"passes={self.passes}, qubits={self.qubits}, angle={self.multiple}θ)"
        )


def gapip_schedule(P: int, power: int, protocol: str = "quantum") -> GapIPSchedule:
    """The pass schedule of one shot (:func:`qring_edu.gapip`'s counting rule).

    ``"quantum"`` (amplitude estimation, ``power = k >= 0`` iterations): the server prepares
    ``|a_g>`` and sends it; ``k`` times the client applies ``R_h`` and sends the register back
    and the server applies ``R_g`` and returns it; the client applies ``U_h^dagger`` and measures:
    ``2k + 1`` passes of ``n`` qubits, probability ``sin^2((2k + 1) theta)``.
    ``"phase_estimation"`` (``power = K >= 1``): the server prepares ``|a_g>`` and a control in
    ``|+>`` (its first controlled-``R_g`` acts trivially and is skipped); the client applies
    controlled-``R_h``; ``K - 1`` times the server controlled-``R_g`` and the client
    controlled-``R_h``; the client measures the control in the X basis: ``2K - 1`` passes of
    ``n + 1`` qubits, probability ``sin^2(K theta)``. At most 12 for drawing.

    Examples
    --------
    >>> from qring_edu.experiments.alignment import gapip_schedule
    >>> s = gapip_schedule(3, 1)                        # P = 3, one amplitude-estimation iteration
    >>> s
    GapIPSchedule(protocol='quantum', P=3, power=1, passes=3, qubits=6, angle=3θ)
    >>> gapip_schedule(3, 2, "phase_estimation")
    GapIPSchedule(protocol='phase_estimation', P=3, power=2, passes=3, qubits=9, angle=2θ)
    """
    P = check_int(P, "P", 1)
    check_choice(protocol, "protocol", QUANTUM_GAPIP_PROTOCOLS)
    n = n_register_qubits(P)
    events: list[tuple[str, str, str]] = []
    if protocol == "phase_estimation":
        K = check_int(power, "power (K of phase estimation)", 1, 12)
        width = n + 1
        events.append(("op", "server", "prepare |a_g⟩, control |+⟩"))
        events.append(("pass", "server", f"{width} qubits"))
        events.append(("op", "client", "c-R_h"))
        for _ in range(K - 1):
            events += [
                ("pass", "client", f"{width} qubits"),
                ("op", "server", "c-R_g"),
                ("pass", "server", f"{width} qubits"),
                ("op", "client", "c-R_h"),
            ]
        events.append(("op", "client", "measure control (X basis)"))
        return GapIPSchedule(protocol, P, K, n, width, K, tuple(events))
    k = check_int(power, "power (k iterations)", 0, 12)
    events.append(("op", "server", "prepare |a_g⟩"))
    events.append(("pass", "server", f"{n} qubits"))
    for _ in range(k):
        events += [
            ("op", "client", "R_h"),
            ("pass", "client", f"{n} qubits"),
            ("op", "server", "R_g"),
            ("pass", "server", f"{n} qubits"),
        ]
    events.append(("op", "client", "measure {|a_h⟩, rest}"))
    return GapIPSchedule(protocol, P, k, n, n, 2 * k + 1, tuple(events))


# --------------------------------------------------------------------------------------------
# GapIP: quantum against classical, one family of bounds on both sides
# --------------------------------------------------------------------------------------------
#: (protocol, confidence) of the comparison: amplitude and phase estimation, each with
#: Hoeffding intervals (against the Hoeffding sketch) and exact intervals (against the exact
#: binomial sketch).
GAPIP_FAMILIES = (
    ("quantum", "hoeffding"),
    ("quantum", "exact"),
    ("phase_estimation", "hoeffding"),
    ("phase_estimation", "exact"),
)

_PROTOCOL_NAMES = {"quantum": "amplitude estimation", "phase_estimation": "phase estimation"}
_FAMILY_NAMES = {
    "hoeffding": "Hoeffding",
    "exact": "exact",
    "chernoff": "old mix (Chernoff vs Hoeffding sketch)",
}


def _crossings(taus: np.ndarray, log_ratio: np.ndarray) -> list[float]:
    """Margins where ``log_ratio`` changes sign between neighbouring grid points, linearly
    interpolated in ``log tau`` (the grid may run in either direction)."""
    out = []
    for i in range(len(taus) - 1):
        a, b = log_ratio[i], log_ratio[i + 1]
        if (a < 0) != (b < 0):
            x0, x1 = math.log(taus[i]), math.log(taus[i + 1])
            out.append(float(math.exp(x0 + (x1 - x0) * a / (a - b))))
    return out


@dataclass(frozen=True, eq=False)
class GapIPComparison:
    """Result of :func:`gapip_comparison` (arrays indexed like ``taus``).

    ``quantum_cost[i]``: mean qubits per decision of family ``families[i] = (protocol,
    confidence)``; ``quantum_accuracy[i]``: fraction of correct verdicts. ``sketch_bits[j]``:
    the sketch length with ``bounds[j]`` (``"hoeffding"`` or ``"exact"``), ``vector_bits``: the
    send-the-vector cost; the classical cost of a family is the cheaper of the two
    (:meth:`classical_cost`). ``classical_accuracy[j]``: the classical protocol's fraction of
    correct verdicts (nan when it was not run).

    Examples
    --------
    >>> from qring_edu.experiments.alignment import gapip_comparison
    >>> c = gapip_comparison((0.3, 0.1), 2**8, trials=2, families=(("quantum", "hoeffding"),))
    >>> c
    GapIPComparison(P=256, taus=0.3..0.1 (2), trials=2, families=1)
    >>> c.families, c.quantum_cost.shape
    ((('quantum', 'hoeffding'),), (1, 2))
    """

    P: int
    delta: float
    trials: int
    taus: np.ndarray = field(repr=False)
    families: tuple[tuple[str, str], ...] = field(repr=False)
    quantum_cost: np.ndarray = field(repr=False)
    quantum_accuracy: np.ndarray = field(repr=False)
    bounds: tuple[str, ...] = field(repr=False)
    sketch_bits: np.ndarray = field(repr=False)
    vector_bits: np.ndarray = field(repr=False)
    classical_accuracy: np.ndarray = field(repr=False)

    def _family(self, protocol: str, confidence: str) -> int:
        key = (protocol, confidence)
        if key not in self.families:
            raise ValueError(f"(protocol, confidence) must be one of {self.families}, got {key}")
        return self.families.index(key)

    def quantum(self, protocol: str = "quantum", confidence: str = "hoeffding") -> np.ndarray:
        """Mean qubits per decision of one family."""
        return self.quantum_cost[self._family(protocol, confidence)]

    def sketch(self, confidence: str = "hoeffding") -> np.ndarray:
        """Sketch bits with the family's bound (``"chernoff"`` uses the Hoeffding sketch)."""
        bound = _sketch_bound(confidence)
        if bound not in self.bounds:
            raise ValueError(f"bound must be one of {self.bounds}, got {bound!r}")
        return self.sketch_bits[self.bounds.index(bound)]

    def classical_cost(self, confidence: str = "hoeffding") -> np.ndarray:
        """The classical protocol's bits in a family: ``min(sketch, vector)``."""
        return np.minimum(self.sketch(confidence), self.vector_bits)

    def ratio(self, protocol: str = "quantum", confidence: str = "hoeffding") -> np.ndarray:
        """Quantum qubits / classical bits, same family on both sides (< 1: quantum cheaper)."""
        return self.quantum(protocol, confidence) / self.classical_cost(confidence)

    def window(
        self, protocol: str = "quantum", confidence: str = "hoeffding"
    ) -> tuple[float, float]:
        """``(lower, upper)`` ends of the range of τ where the quantum protocol is cheaper,
        interpolated between grid points (log-log). ``nan`` for an end outside the grid (quantum
        already cheaper at the grid's edge) or when it is never cheaper (both ``nan``)."""
        order = np.argsort(self.taus)[::-1]  # largest tau first
        taus = self.taus[order]
        lr = np.log(self.ratio(protocol, confidence)[order])
        if np.all(lr >= 0):
            return float("nan"), float("nan")
        cross = _crossings(taus, lr)
        upper = max(cross) if lr[0] >= 0 else float("nan")
        lower = min(cross) if lr[-1] >= 0 else float("nan")
        return lower, upper

    def slope(
        self,
        protocol: str = "quantum",
        confidence: str = "hoeffding",
        *,
        tau_min: float = 0.02,
        classical: bool = False,
    ) -> float:
        """log-log slope of cost against ``1/tau`` over the grid points with ``tau >= tau_min``
        (the classical side: the family's sketch)."""
        keep = self.taus >= tau_min
        y = self.sketch(confidence) if classical else self.quantum(protocol, confidence)
        return loglog_slope(1.0 / self.taus[keep], y[keep])

    def table(self) -> Table:
        """One row per family: where the quantum protocol is cheaper, and the best ratio."""
        rows = []
        for protocol, confidence in self.families:
            lo, hi = self.window(protocol, confidence)
            r = self.ratio(protocol, confidence)
            if math.isnan(hi) and math.isnan(lo) and np.all(r >= 1):
                where = "never on this grid"
            else:
                left = f"{lo:.2g}" if not math.isnan(lo) else f"≤ {self.taus.min():.2g}"
                right = f"{hi:.2g}" if not math.isnan(hi) else f"≥ {self.taus.max():.2g}"
                where = f"{left} < τ < {right}"
            rows.append(
                (_PROTOCOL_NAMES[protocol], _FAMILY_NAMES[confidence], where, float(r.min()))
            )
        return Table(
            (
                "quantum protocol",
                "bounds (both sides)",
                "quantum cheaper for",
                "best quantum/classical",
            ),
            tuple(rows),
            ("", "", "", ".2f"),
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return (
            f"GapIPComparison(P={self.P}, taus={self.taus.max():.3g}..{self.taus.min():.3g}"
            f" ({self.taus.size}), trials={self.trials}, families={len(self.families)})"
        )


def gapip_comparison(
    taus: Sequence[float],
    P: int = 2**16,
    *,
    trials: int = 8,
    delta: float = 0.05,
    seed: int = 0,
    families: Sequence[tuple[str, str]] = GAPIP_FAMILIES,
    run_classical: bool = True,
) -> GapIPComparison:
    """Quantum against classical GapIP over the margins ``taus`` at dimension ``P``.

    For each ``tau`` the same ``trials`` promise instances (alternating ``<g, h> = ±tau``) are
    decided by every family ``(protocol, confidence)``: its mean cost (every qubit that crosses)
    and accuracy. The classical side of a family is ``min(sketch, P b)``, the sketch sized with the
    family's bound (``"exact"``: exact binomial tail; ``"hoeffding"`` and the old ``"chernoff"``:
    Hoeffding); with ``run_classical`` the classical protocol is run on the same instances too.
    Seeds: instance ``rng(seed, i, trial)``, family ``f`` ``rng(seed, i, trial, 1 + f)``,
    classical ``rng(seed, i, trial, 100 + j)``.

    Examples
    --------
    >>> c = gapip_comparison((0.3, 0.1), 2**8, trials=2, families=(("quantum", "hoeffding"),))
    >>> c.classical_cost("hoeffding").tolist(), c.window()      # large margins: never cheaper
    ([160.0, 1474.0], (nan, nan))
    """
    taus_arr = _check_taus(taus)
    P = check_int(P, "P", 2)
    trials = check_int(trials, "trials", 1, 10_000)
    delta = check_float(delta, "delta", 0.0, 0.5, lo_open=True, hi_open=True)
    check_seed(seed)
    fams = tuple(
        (
            check_choice(p, "protocol", QUANTUM_GAPIP_PROTOCOLS),
            check_choice(c, "confidence", GAPIP_CONFIDENCES),
        )
        for p, c in families
    )
    if not fams:
        raise ValueError("families must list at least one (protocol, confidence) pair")
    bounds = tuple(b for b in ("hoeffding", "exact") if any(_sketch_bound(c) == b for _, c in fams))
    T = taus_arr.size
    q_cost = np.zeros((len(fams), T))
    q_acc = np.zeros((len(fams), T))
    sk = np.array([[sketch_bits(t, delta, bound=b) for t in taus_arr] for b in bounds], float)
    vec = np.array([vector_bits(P, t) for t in taus_arr], float)
    c_acc = np.full((len(bounds), T), np.nan)
    for i, tau in enumerate(taus_arr):
        costs = np.zeros((len(fams), trials))
        ok = np.zeros((len(fams), trials))
        ok_c = np.zeros((len(bounds), trials))
        for trial in range(trials):
            c = tau if trial % 2 == 0 else -tau
            g, h = aligned_pair(P, c, seed=rng(seed, i, trial))
            truth = "aligned" if c > 0 else "conflicting"
            for f, (protocol, confidence) in enumerate(fams):
                d = gapip(
                    g,
                    h,
                    tau,
                    protocol=protocol,
                    confidence=confidence,
                    delta=delta,
                    seed=rng(seed, i, trial, 1 + f),
                )
                costs[f, trial] = d.cost
                ok[f, trial] = d.verdict == truth
            if run_classical:
                for j, b in enumerate(bounds):
                    d = gapip(
                        g,
                        h,
                        tau,
                        protocol="classical",
                        confidence=b,
                        delta=delta,
                        seed=rng(seed, i, trial, 100 + j),
                    )
                    ok_c[j, trial] = d.verdict == truth
        q_cost[:, i] = costs.mean(axis=1)
        q_acc[:, i] = ok.mean(axis=1)
        if run_classical:
            c_acc[:, i] = ok_c.mean(axis=1)
    return GapIPComparison(
        P, float(delta), trials, taus_arr, fams, q_cost, q_acc, bounds, sk, vec, c_acc
    )


# --------------------------------------------------------------------------------------------
# TieAudit: copy plans, copies against alpha, crossovers per family
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CopyPlan:
    """One way of planning the quantum copies: ``copies`` and the exact probability that the
    estimate misses by more than ``eps`` (``failure``), maximised over ``f`` (``worst_f`` the
    maximiser) or, where that search is too slow, at ``f = 1/2`` (``worst_f = nan``).

    Examples
    --------
    >>> from qring_edu.experiments.alignment import tieaudit_copy_plans
    >>> plan = tieaudit_copy_plans(1.0, 0.2)[0]
    >>> plan.method, plan.copies, round(plan.failure, 4)      # exact miss probability <= delta
    ('Hoeffding', 47, 0.0079)
    """

    method: str
    copies: int
    failure: float
    worst_f: float


@dataclass(frozen=True)
class CopyPlans(Rows):
    """The copy plans of :func:`tieaudit_copy_plans` at one ``(alpha, eps, delta)``.

    Examples
    --------
    >>> from qring_edu.experiments.alignment import tieaudit_copy_plans
    >>> plans = tieaudit_copy_plans(1.0, 0.2)
    >>> plans
    CopyPlans(alpha=1, eps=0.2, delta=0.05: Hoeffding=47, Bernstein=47, exact plan=25, 0.9 × exact plan=22, normal approximation=25)
    >>> [r.method for r in plans]
    ['Hoeffding', 'Bernstein', 'exact plan', '0.9 × exact plan', 'normal approximation']
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

    def __repr__(self) -> str:
        plans = ", ".join(f"{r.method}={r.copies}" for r in self.rows)
        return f"CopyPlans(alpha={self.alpha:g}, eps={self.eps:g}, delta={self.delta:g}: {plans})"


def tieaudit_copy_plans(alpha: float = 0.1, eps: float = 0.05, delta: float = 0.05) -> CopyPlans:
    """Noiseless copy plans and their exact failure probabilities
    (:func:`qring_edu.sign_audit.tieaudit_failure_probability`, ``tieaudit_worst_failure``):

    * ``"Hoeffding"``: range-only bound (failure at ``f = 1/2``: the worst-case search over the
      lattice of ``f`` takes a minute at this size, and the variance of ``Y`` peaks there);
    * ``"Bernstein"``: ``Var Y <= alpha`` (the library's default);
    * ``"exact plan"``: the smallest ``N`` with worst-case failure ``<= delta``;
    * ``"0.9 × exact plan"``: 10 % fewer copies (its failure exceeds ``delta``);
    * ``"normal approximation"``: ``N = z^2 / (4 alpha eps^2)``, ``z`` the two-sided normal
      quantile at ``delta``, the usual CLT sizing.

    The exact plan takes a few seconds (cached per process).

    Examples
    --------
    >>> [r.copies for r in tieaudit_copy_plans(1.0, 0.2)]   # Hoeffding, Bernstein, exact, 0.9x, CLT
    [47, 47, 25, 22, 25]
    """
    from scipy.stats import norm

    alpha = check_float(alpha, "alpha", 0.0, 1.0, lo_open=True)
    eps = check_float(eps, "eps", 0.0, 1.0, lo_open=True, hi_open=True)
    delta = check_float(delta, "delta", 0.0, 0.5, lo_open=True, hi_open=True)
    nan = float("nan")
    n_h = tieaudit_copies(alpha, eps, delta, bound="hoeffding")[0]
    rows = [CopyPlan("Hoeffding", n_h, tieaudit_failure_probability(n_h, alpha, eps, 0.5), nan)]
    n_e = tieaudit_copies(alpha, eps, delta, bound="exact")[0]
    n_clt = int(math.ceil(norm.isf(delta / 2.0) ** 2 / (4.0 * alpha * eps * eps)))
    for name, n in (
        ("Bernstein", tieaudit_copies(alpha, eps, delta, bound="bernstein")[0]),
        ("exact plan", n_e),
        ("0.9 × exact plan", int(0.9 * n_e)),
        ("normal approximation", n_clt),
    ):
        p, f = tieaudit_worst_failure(n, alpha, eps)
        rows.append(CopyPlan(name, n, p, f))
    return CopyPlans(tuple(rows), alpha, eps, delta)


@dataclass(frozen=True, eq=False)
class CopiesCurve:
    """Copies against the coverage ``alpha``: Hoeffding and Bernstein on the grid ``alphas``,
    the exact plan at ``exact_alphas``.

    Examples
    --------
    >>> from qring_edu.experiments.alignment import tieaudit_copies_curve
    >>> curve = tieaudit_copies_curve((1.0, 0.5), 0.2, exact_alphas=(1.0,))
    >>> curve
    CopiesCurve(eps=0.2, delta=0.05, alpha=0.5..1, exact at 1)
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
        """log-log slope of copies against ``alpha`` (Hoeffding about -2, Bernstein about -1)."""
        y = {"hoeffding": self.hoeffding, "bernstein": self.bernstein}
        if which == "exact":
            return loglog_slope(self.exact_alphas, self.exact)
        if which not in y:
            raise ValueError(f"which must be 'hoeffding', 'bernstein' or 'exact', got {which!r}")
        keep = self.alphas <= 0.25  # where Bernstein's term dominates
        return loglog_slope(self.alphas[keep], y[which][keep])

    def __repr__(self) -> str:
        return (
            f"CopiesCurve(eps={self.eps:g}, delta={self.delta:g}, "
            f"alpha={self.alphas.min():g}..{self.alphas.max():g}, "
            f"exact at {', '.join(f'{a:g}' for a in self.exact_alphas)})"
        )


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
    a = np.asarray([check_float(x, "alphas", 0.0, 1.0, lo_open=True) for x in alphas])
    ea = np.asarray([check_float(x, "exact_alphas", 0.0, 1.0, lo_open=True) for x in exact_alphas])
    if a.size < 2:
        raise ValueError("alphas must hold at least two values")
    hoe = np.array([tieaudit_copies(x, eps, delta, bound="hoeffding")[0] for x in a], float)
    ber = np.array([tieaudit_copies(x, eps, delta, bound="bernstein")[0] for x in a], float)
    ex = np.array([tieaudit_copies(x, eps, delta, bound="exact")[0] for x in ea], float)
    return CopiesCurve(float(eps), float(delta), a, hoe, ber, ea, ex)


@dataclass(frozen=True)
class TieAuditCrossovers:
    """Crossover ``P`` (smallest power of two where quantum TieAudit is cheaper, 0 if none)
    for each coverage in ``alphas`` and each family in ``bounds``: ``crossover[i][j]``.

    Examples
    --------
    >>> from qring_edu.experiments.alignment import tieaudit_crossover_table
    >>> t = tieaudit_crossover_table((1.0, 0.5), bounds=("hoeffding", "bernstein"))
    >>> t
    TieAuditCrossovers(eps=0.05, alphas=(1.0, 0.5), bounds=('hoeffding', 'bernstein'))
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

    def __repr__(self) -> str:
        return f"TieAuditCrossovers(eps={self.eps:g}, alphas={self.alphas}, bounds={self.bounds})"


def tieaudit_crossover_table(
    alphas: Sequence[float] = (1.0, 0.25, 0.1),
    eps: float = 0.05,
    delta: float = 0.05,
    *,
    bounds: Sequence[str] = ("hoeffding", "bernstein", "exact"),
) -> TieAuditCrossovers:
    """:func:`tieaudit_crossover` for every coverage and family (the exact family takes a few
    seconds per coverage: one exact copy plan, one exact classical evaluation per size).

    Examples
    --------
    >>> print(tieaudit_crossover_table((1.0, 0.5), bounds=("hoeffding", "bernstein")).table())
    coverage α  Hoeffding  Bernstein
             1  2^16       2^16
           0.5  2^19       2^17
    """
    al = tuple(check_float(a, "alphas", 0.0, 1.0, lo_open=True) for a in alphas)
    bs = tuple(check_choice(b, "bounds", TIEAUDIT_BOUNDS) for b in bounds)
    if not al or not bs:
        raise ValueError("alphas and bounds must each hold at least one value")
    table = tuple(tuple(tieaudit_crossover(eps, a, delta, bound=b) for b in bs) for a in al)
    return TieAuditCrossovers(float(eps), float(delta), al, bs, table)


# --------------------------------------------------------------------------------------------
# TieAudit: the data-only attack, fixed against random test strings
# --------------------------------------------------------------------------------------------
#: (test_strings, attack) of the attack sweep.
ATTACK_CASES = (
    ("fixed", "uniform"),
    ("fixed", "data_only"),
    ("random", "uniform"),
    ("random", "data_only"),
)


@dataclass(frozen=True, eq=False)
class AttackSweep:
    """Quantum TieAudit on one instance under a noise channel, for each case ``(test_strings,
    attack)`` of ``cases``, noise level and seed: ``estimates[c, i, r]`` (``f_hat``) and
    ``attenuation[c, i, r]`` (the tests' estimate ``lambda_hat = mean(Y_test)/alpha`` of the
    attenuation; 1 when no test copies are sent, at noise 0). ``data_overlap``: probability that
    the adversary's projection onto the public test state ``|psi_1>`` catches one (unpadded) data
    copy of this instance, ``(sum_i s_i / P)^2``.

    Examples
    --------
    >>> from qring_edu.experiments.alignment import tieaudit_attack_sweep
    >>> s = tieaudit_attack_sweep((0.0, 0.5), log2_P=6, seeds=2)
    >>> s
    AttackSweep(P=64, f=0.188, eps=0.05, noises=2, seeds=2, bound='bernstein')
    >>> s.cases[:2], s.estimates.shape                                 # (cases, noises, seeds)
    ((('fixed', 'uniform'), ('fixed', 'data_only')), (4, 2, 2))
    """

    P: int
    f: float
    eps: float
    bound: str
    noises: np.ndarray = field(repr=False)
    cases: tuple[tuple[str, str], ...] = field(repr=False)
    estimates: np.ndarray = field(repr=False)
    attenuation: np.ndarray = field(repr=False)
    data_overlap: float = 0.0

    def _case(self, test_strings: str, attack: str) -> int:
        key = (test_strings, attack)
        if key not in self.cases:
            raise ValueError(f"(test_strings, attack) must be one of {self.cases}, got {key}")
        return self.cases.index(key)

    def mean(self, test_strings: str, attack: str) -> np.ndarray:
        """Mean ``f_hat`` over the seeds, per noise level."""
        return self.estimates[self._case(test_strings, attack)].mean(axis=1)

    def within(self, test_strings: str, attack: str) -> np.ndarray:
        """Fraction of seeds with ``|f_hat - f| <= eps``, per noise level."""
        err = np.abs(self.estimates[self._case(test_strings, attack)] - self.f)
        return (err <= self.eps + 1e-12).mean(axis=1)

    def mean_attenuation(self, test_strings: str, attack: str) -> np.ndarray:
        return self.attenuation[self._case(test_strings, attack)].mean(axis=1)

    def table(self) -> Table:
        """Per noise level: mean estimate, fraction within ±ε and the tests' attenuation for the
        data-only attack against fixed and against random test strings."""
        rows = []
        for i, noise in enumerate(self.noises):
            row = [float(noise)]
            for ts in ("fixed", "random"):
                c = self._case(ts, "data_only")
                row += [
                    float(self.estimates[c, i].mean()),
                    float((np.abs(self.estimates[c, i] - self.f) <= self.eps + 1e-12).mean()),
                    float(self.attenuation[c, i].mean()),
                ]
            rows.append(tuple(row))
        return Table(
            ("noise", "fixed: mean f̂", "within ±ε", "λ̂", "random: mean f̂", "within ±ε", "λ̂"),
            tuple(rows),
            (".1f", ".3f", ".0%", ".3f", ".3f", ".0%", ".3f"),
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return (
            f"AttackSweep(P={self.P}, f={self.f:.3f}, eps={self.eps:g}, "
            f"noises={self.noises.size}, seeds={self.estimates.shape[2]}, "
            f"bound={self.bound!r})"
        )


def tieaudit_attack_sweep(
    noises: Sequence[float] = (0.0, 0.2, 0.4, 0.6, 0.8),
    *,
    log2_P: int = 12,
    alpha: float = 1.0,
    f: float = 0.2,
    eps: float = 0.05,
    delta: float = 0.05,
    seeds: int = 10,
    bound: str = "bernstein",
    seed: int = 0,
    cases: Sequence[tuple[str, str]] = ATTACK_CASES,
) -> AttackSweep:
    """Run :func:`qring_edu.tieaudit` on one instance (random matching of coverage ``alpha``,
    ``round(f m)`` disagreeing pairs) for each case, noise level and seed ``rng(seed, i, r)``:
    a depolarising channel of strength ``noise`` on every copy (``attack="uniform"``) or only on
    the copies an adversary does not identify as tests (``"data_only"``); ``test_strings``
    ``"fixed"`` (public all-agree tests) or ``"random"`` (fresh pads from shared randomness).

    Examples
    --------
    >>> s = tieaudit_attack_sweep((0.5,), log2_P=6, seeds=2)
    >>> s.mean_attenuation("fixed", "data_only").tolist()      # the tests see no noise at all
    [1.0]
    """
    log2_P = check_int(log2_P, "log2_P", 1, 20)
    seeds = check_int(seeds, "seeds", 1, 10_000)
    check_choice(bound, "bound", TIEAUDIT_BOUNDS)
    check_seed(seed)
    cs = tuple(
        (
            check_choice(t, "test_strings", TIEAUDIT_TEST_STRINGS),
            check_choice(a, "attack", TIEAUDIT_ATTACKS),
        )
        for t, a in cases
    )
    nz = np.asarray([check_float(x, "noises", 0.0, 1.0, hi_open=True) for x in noises])
    P = 2**log2_P
    m = random_matching(P, alpha, seed=seed)
    s = signs_with_disagreement(m, P, f, seed=seed + 1)
    est = np.zeros((len(cs), nz.size, seeds))
    att = np.zeros_like(est)
    for c, (ts, a) in enumerate(cs):
        for i, noise in enumerate(nz):
            for r in range(seeds):
                e = tieaudit(
                    s,
                    m,
                    eps,
                    delta=delta,
                    noise=float(noise),
                    attack=a,
                    test_strings=ts,
                    bound=bound,
                    seed=rng(seed, i, r),
                )
                est[c, i, r] = e.value
                att[c, i, r] = e.attenuation
    truth = float(np.mean(s[m[:, 0]] != s[m[:, 1]]))
    overlap = float((s.astype(float).sum() / P) ** 2)
    return AttackSweep(P, truth, float(eps), bound, nz, cs, est, att, overlap)


# --------------------------------------------------------------------------------------------
# TieAudit: the ratio estimator under dephasing
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class DephasingSweep:
    """The ratio estimator under dephasing on one instance whose far pairs (Hamming distance
    ``|i XOR j| >= min_distance``) disagree: ``bias`` (:func:`qring_edu.sign_audit.ratio_bias`,
    the many-copies limit of ``f_hat - f``), and the mean ``f_hat`` over ``seeds`` runs without
    the twirl (``plain``) and with ``twirl="clifford"`` (``twirled``).

    Examples
    --------
    >>> from qring_edu.experiments.alignment import dephasing_sweep
    >>> s = dephasing_sweep((0.0, 0.1), log2_P=6, min_distance=4, seeds=1)
    >>> s
    DephasingSweep(P=64, f=0.4062, min_distance=4, largest |bias|=0.1214)
    >>> [round(float(x), 4) for x in s.plain], [round(float(x), 4) for x in s.twirled]
    ([0.4309, 0.3009], [0.4309, 0.4163])
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

    def table(self) -> Table:
        rows = zip(self.noises, self.bias, self.plain, self.twirled)
        return Table(
            ("dephasing p", "ratio bias", "mean f̂ (pads)", "mean f̂ (Clifford twirl)"),
            tuple(rows),
            (".3f", "+.4f", ".4f", ".4f"),
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return (
            f"DephasingSweep(P={self.P}, f={self.f:.4f}, min_distance={self.min_distance}, "
            f"largest |bias|={np.abs(self.bias).max():.4f})"
        )


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
    """Build a perfect random matching on ``P = 2^log2_P`` coordinates with random signs whose
    pairs disagree exactly when ``|i XOR j| >= min_distance``, then, for each dephasing
    probability, the ratio bias and the quantum estimates (padded test strings; copies planned
    for the twirled attenuation) without and with the Clifford twirl.

    Examples
    --------
    >>> dephasing_sweep((0.0, 0.1), log2_P=6, min_distance=4, seeds=1).bias.round(4).tolist()
    [0.0, -0.1214]
    """
    log2_P = check_int(log2_P, "log2_P", 2, 16)
    min_distance = check_int(min_distance, "min_distance", 1, log2_P)
    seeds = check_int(seeds, "seeds", 1, 10_000)
    check_seed(seed)
    nz = np.asarray([check_float(x, "noises", 0.0, 0.5, hi_open=True) for x in noises])
    P = 2**log2_P
    m = random_matching(P, 1.0, seed=seed)
    gen = np.random.default_rng(seed + 1)
    s = gen.choice(np.array([-1, 1], dtype=np.int8), size=P)
    far = np.array([bin(int(d)).count("1") >= min_distance for d in (m[:, 0] ^ m[:, 1])])
    s[m[:, 1]] = np.where(far, -s[m[:, 0]], s[m[:, 0]])
    bias, plain, twirled = [], [], []
    for i, p in enumerate(nz):
        bias.append(ratio_bias(s, m, float(p)) if p > 0 else 0.0)
        runs = {
            tw: [
                tieaudit(
                    s,
                    m,
                    eps,
                    delta=delta,
                    noise=float(p),
                    noise_model="dephasing",
                    twirl=tw,
                    seed=rng(seed, i, r),
                ).value
                for r in range(seeds)
            ]
            for tw in ("none", "clifford")
        }
        plain.append(float(np.mean(runs["none"])))
        twirled.append(float(np.mean(runs["clifford"])))
    return DephasingSweep(
        P,
        float(far.mean()),
        float(eps),
        min_distance,
        nz,
        np.array(bias),
        np.array(plain),
        np.array(twirled),
        seeds,
    )
