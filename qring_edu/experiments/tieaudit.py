"""Experiments of the TieAudit chapter (book/08_tieaudit.ipynb): instances
(:func:`random_matching`, :func:`signs_with_disagreement`), costs against ``P`` and the
crossovers per family of bounds (:func:`tieaudit_scaling`, :func:`tieaudit_crossover_table`),
the noise threshold (:func:`noise_threshold_curves`) and the widgets' computations; one-way
against two messages is :func:`qring_edu.tieaudit.tieaudit_cost`. The exact plans are in
:mod:`qring_edu.experiments.tieaudit_plans`, untrusted channels in
:mod:`qring_edu.experiments.tieaudit_noise`; figures in :mod:`qring_edu.figures.tieaudit`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import field

import numpy as np

from .._result import result
from .._validate import check_choice, check_delta, check_float, check_int, check_seed
from ..tieaudit import (  # the protocol's own checks of eps and alpha
    DataOnlyAttack,
    Depolarizing,
    Estimate,
    LocalDepolarizing,
    _check_alpha,
    _check_eps,
    check_matching,
    check_signs,
    classical_subset_size,
    copy_y_law,
    tieaudit,
    tieaudit_circuit,
    tieaudit_copies,
)
from ._base import Table, Tabular, loglog_slope, rng
from .tieaudit_plans import classical_worst_failure, exact_copies

__all__ = [
    "random_matching",
    "signs_with_disagreement",
    "disagreement_fraction",
    "outcome_index",
    "tieaudit_sample_qiskit",
    "DEFAULT_LOG2_P",
    "TIEAUDIT_FAMILIES",
    "TieAuditScaling",
    "tieaudit_crossover",
    "tieaudit_scaling",
    "tieaudit_curves",
    "TieAuditCrossovers",
    "tieaudit_crossover_table",
    "tieaudit_noise_threshold",
    "tieaudit_noise_crossover",
    "THRESHOLD_FIDELITIES",
    "NoiseThreshold",
    "noise_threshold_curves",
    "ATTACK_CASES",
    "attack_channel",
    "AuditExplorer",
    "audit_explorer",
]

#: log2 P = 8, 10, ..., 24.
DEFAULT_LOG2_P = tuple(range(8, 25, 2))


def _truth(s: np.ndarray, m: np.ndarray) -> float:
    return float(np.mean(s[m[:, 0]] != s[m[:, 1]]))


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
    return _truth(s, check_matching(matching, s.size))


def outcome_index(matching, P: int) -> np.ndarray:
    """Basis index the circuits report per outcome of
    :func:`qring_edu.tieaudit.outcome_probabilities`: ``i`` for "+" of pair ``(i, j)``, ``j`` for
    "-", ``k`` for unmatched ``k``.

    Examples
    --------
    >>> outcome_index([[0, 3]], 4).tolist()
    [0, 3, 1, 2]
    """
    m = check_matching(matching, P)
    unmatched = np.ones(P, dtype=bool)
    unmatched[m.ravel()] = False
    return np.concatenate([m.ravel(), np.flatnonzero(unmatched)])


def tieaudit_sample_qiskit(
    signs, matching, shots: int = 1000, *, protocol: str = "quantum", seed=None
) -> np.ndarray:
    """Sample the client's outcomes of :func:`qring_edu.tieaudit.tieaudit_circuit` on
    ``AerSimulator`` (decomposed to ``u``/``cx`` first); counts in the order of
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
    circuit = tieaudit_circuit(s, m, protocol=protocol)
    qc = transpile(circuit, basis_gates=["u", "cx"], optimization_level=1, seed_transpiler=0)
    counts = AerSimulator(seed_simulator=sim_seed).run(qc, shots=shots).result().get_counts()
    by_index = np.zeros(s.size, dtype=np.int64)
    for key, c in counts.items():
        by_index[int(key, 2) >> (n if protocol != "quantum" else 0)] += c  # client's clbits
    return by_index[outcome_index(m, s.size)]


#: Families of bounds of the crossovers (Bernstein gives the classical side only Hoeffding).
TIEAUDIT_FAMILIES = ("hoeffding", "bernstein", "exact")


def _quantum_plan(alpha: float, eps: float, delta: float, bound: str) -> int:
    """Noiseless copies of one family (a trusted channel, independent copies)."""
    if bound == "exact":
        return exact_copies(alpha, eps, delta)
    return tieaudit_copies(alpha, eps, delta, bound=bound)


@result(show=("copies", "classical_slope"))
class TieAuditScaling:
    """Result of :func:`tieaudit_scaling` (arrays indexed like ``Ps``; errors and fractions
    within ``eps`` nan where not run).

    Examples
    --------
    >>> tieaudit_scaling((8, 10), 0.1, trials=1)
    TieAuditScaling(eps=0.1, alpha=1, delta=0.05, crossover_P=8192, trials=1, bound='bernstein', copies=185, classical_slope=nan)
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
    """Smallest ``P = 2^n`` where the quantum protocol (noiseless) sends fewer qubits than the
    one-way classical one sends bits, both planned with ``bound`` (0 if none up to
    ``2^max_log2_P``); ``"exact"``: ``q = N log2 P`` qubits win iff
    ``classical_worst_failure(P, alpha, q, eps) > delta``, ``q < P``.

    Examples
    --------
    >>> tieaudit_crossover(0.05)
    65536
    >>> tieaudit_crossover(0.05, alpha=0.1, bound="hoeffding") == 2**27
    True
    """
    eps, alpha, delta = _check_eps(eps), _check_alpha(alpha), check_delta(delta)
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
    """Planned quantum and one-way classical costs at ``P = 2^n``, ``n`` in ``log2_P``
    (``bound``: ``"hoeffding"`` or ``"bernstein"``); for ``n <= run_max_log2_P`` both protocols
    also run ``trials`` times on random instances (coverage ``alpha``, ``round(f m)``
    disagreeing pairs).

    Examples
    --------
    >>> s = tieaudit_scaling((8, 10, 30), 0.1, run_max_log2_P=8, trials=2)
    >>> s.classical_cost.tolist(), s.crossover_P
    ([256.0, 950.0, 972057.0], 8192)
    """
    ns = [check_int(n, "log2_P", 1, 40) for n in log2_P]
    if len(ns) < 2:
        raise ValueError("log2_P must hold at least two sizes")
    eps, alpha, delta = _check_eps(eps), _check_alpha(alpha), check_delta(delta)
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
        err = np.zeros((2, trials))  # |f_hat - f| of the quantum and the classical protocol
        for trial in range(trials):
            m = random_matching(2**n, alpha, seed=rng(seed, n, trial))
            s = signs_with_disagreement(m, 2**n, f, seed=rng(seed, n, trial, 1))
            for k, p in enumerate(("quantum", "classical")):
                e = tieaudit(s, m, eps, protocol=p, delta=delta, seed=rng(seed, n, trial, 2 + k))
                err[k, trial] = abs(e.value - _truth(s, m))
        q_err[idx], c_err[idx] = err.max(axis=1)
        q_in[idx], c_in[idx] = (err <= eps).mean(axis=1)
    cross = tieaudit_crossover(eps, alpha, delta, bound=bound)
    costs = (Ps, qc, cc, q_err, c_err, q_in, c_in)
    return TieAuditScaling(eps, alpha, delta, *costs, cross, trials, bound)


def tieaudit_curves(
    eps: float = 0.05, alpha: float = 1.0, delta: float = 0.05, bound: str = "bernstein"
) -> TieAuditScaling:
    """:func:`tieaudit_scaling` for ``P = 2^8 .. 2^30``, planned only (nothing is run).

    Examples
    --------
    >>> curves = tieaudit_curves(0.05)
    >>> int(curves.Ps[0]), int(curves.Ps[-1]), curves.crossover_P
    (256, 1073741824, 65536)
    """
    kw = dict(alpha=alpha, delta=delta, run_max_log2_P=0, bound=bound)
    return tieaudit_scaling(range(8, 31, 2), eps, **kw)


def tieaudit_noise_threshold() -> float:
    """Per-pair fidelity ``F* = 2^(-1/4) ≈ 0.8409`` above which quantum keeps an advantage as
    ``P -> ∞`` (book/08_tieaudit.ipynb): with Werner noise ``eta ≈ F^n``, quantum
    ``n N ∝ log2(P) P^(-2 log2 F)`` against ``Theta(sqrt(P))`` classical bits.

    Examples
    --------
    >>> round(tieaudit_noise_threshold(), 4)
    0.8409
    """
    return 2.0**-0.25


def _noisy_qubits(fidelity: float, n: int, eps: float, delta: float, alpha: float) -> float:
    """Qubits of the verified protocol at ``P = 2^n`` under per-pair Werner noise: ``n`` times
    the Freedman plan for the twirled ``eta``; ``inf`` where no plan exists (no signal, or more
    than ``10^300`` copies)."""
    eta = LocalDepolarizing(fidelity).eta(2**n)
    try:
        return n * float(tieaudit_copies(alpha, eps, delta, eta=eta, bound="freedman"))
    except ValueError:  # eta <= 0, or the plan is astronomically large
        return math.inf


def tieaudit_noise_crossover(
    fidelity: float,
    eps: float = 0.1,
    delta: float = 0.05,
    alpha: float = 1.0,
    max_log2_P: int = 400,
) -> int:
    """Smallest ``n = log2 P`` at which the verified quantum protocol under per-pair Werner noise
    of ``fidelity`` (``n`` times the Freedman plan for the twirled ``eta``) sends less than the
    one-way classical protocol; 0 if none up to ``max_log2_P`` (always 0 below
    :func:`tieaudit_noise_threshold`).

    Examples
    --------
    >>> [tieaudit_noise_crossover(F) for F in (1.0, 0.95, 0.9, 0.84)]
    [18, 27, 53, 0]
    """
    fidelity = check_float(fidelity, "fidelity", 0.25, 1.0)
    eps, delta, alpha = _check_eps(eps), check_delta(delta), _check_alpha(alpha)
    max_log2_P = check_int(max_log2_P, "max_log2_P", 1, 500)
    bits = (classical_subset_size(2**n, alpha, eps, delta) for n in range(1, max_log2_P + 1))
    return _first_cheaper(fidelity, bits, eps, delta, alpha)


def _first_cheaper(fidelity: float, bits, eps: float, delta: float, alpha: float) -> int:
    """First ``n`` (from 1) where the noisy quantum qubits are below ``bits[n - 1]`` (classical
    bits at ``P = 2^n``, read lazily); 0 if none."""
    for n, b in enumerate(bits, start=1):
        if _noisy_qubits(fidelity, n, eps, delta, alpha) < b:
            return n
    return 0


#: Fidelities of the crossover panel of :func:`noise_threshold_curves`.
THRESHOLD_FIDELITIES = (0.85, 0.855, 0.86, 0.87, 0.88, 0.9, 0.92, 0.95, 0.98, 1.0)


@result(show=("crossover_log2_P",))
class NoiseThreshold:
    """Result of :func:`noise_threshold_curves`: float costs against ``n = log2 P`` (``inf``: no
    plan) of the verified protocol at ``fidelity``, at 1 (``noiseless``) and at ``F*``
    (``at_threshold``), of the classical protocol (bits); ``crossovers[i]`` at ``fidelities[i]``
    (0: none up to ``n = 500``).

    Examples
    --------
    >>> r = noise_threshold_curves(0.9, max_log2_P=60)
    >>> r.crossover_log2_P, int(r.quantum[52]) < int(r.classical[52])
    (53, True)
    """

    fidelity: float
    eps: float
    delta: float
    alpha: float
    log2_P: np.ndarray = field(repr=False)
    quantum: np.ndarray = field(repr=False)
    noiseless: np.ndarray = field(repr=False)
    at_threshold: np.ndarray = field(repr=False)
    classical: np.ndarray = field(repr=False)
    fidelities: tuple[float, ...] = field(repr=False)
    crossovers: tuple[int, ...] = field(repr=False)

    @property
    def crossover_log2_P(self) -> int:
        """First ``n`` where ``quantum < classical`` on the grid (0 if none)."""
        below = np.flatnonzero(self.quantum < self.classical)
        return int(self.log2_P[below[0]]) if below.size else 0


def noise_threshold_curves(
    fidelity: float = 0.9,
    eps: float = 0.1,
    delta: float = 0.05,
    alpha: float = 1.0,
    *,
    max_log2_P: int = 200,
) -> NoiseThreshold:
    """The costs of :class:`NoiseThreshold` for ``n = 1 … max_log2_P`` (quantum: ``n N``, ``N``
    the Freedman plan for ``eta ≈ P^(log2 F)``) and the crossovers at
    :data:`THRESHOLD_FIDELITIES`.

    Examples
    --------
    >>> r = noise_threshold_curves(0.95, max_log2_P=40)
    >>> r.crossover_log2_P, dict(zip(r.fidelities, r.crossovers))[0.86]
    (27, 189)
    """
    fidelity = check_float(fidelity, "fidelity", 0.25, 1.0)
    eps, delta, alpha = _check_eps(eps), check_delta(delta), _check_alpha(alpha)
    max_log2_P = check_int(max_log2_P, "max_log2_P", 1, 500)
    ns = np.arange(1, max_log2_P + 1)
    bits = [classical_subset_size(2**n, alpha, eps, delta) for n in range(1, 501)]
    crossovers = tuple(_first_cheaper(F, bits, eps, delta, alpha) for F in THRESHOLD_FIDELITIES)
    quantum = (
        np.array([_noisy_qubits(F, int(n), eps, delta, alpha) for n in ns])
        for F in (fidelity, 1.0, tieaudit_noise_threshold())
    )
    classical = np.array([float(b) for b in bits[:max_log2_P]])
    args = (fidelity, eps, delta, alpha, ns, *quantum, classical)
    return NoiseThreshold(*args, THRESHOLD_FIDELITIES, crossovers)


@result
class TieAuditCrossovers(Tabular):
    """:func:`tieaudit_crossover` at ``alphas[i]`` and ``bounds[j]``: ``crossovers[i][j]``.

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
        rows = tuple(
            (a, *(f"2^{P.bit_length() - 1}" if P else "none" for P in row))
            for a, row in zip(self.alphas, self.crossovers)
        )
        names = tuple(b if b == "exact" else b.capitalize() for b in self.bounds)
        return Table(("coverage α", *names), rows, ("g",) + ("",) * len(names))


def tieaudit_crossover_table(
    alphas: Sequence[float] = (1.0, 0.25, 0.1),
    eps: float = 0.05,
    delta: float = 0.05,
    *,
    bounds: Sequence[str] = TIEAUDIT_FAMILIES,
) -> TieAuditCrossovers:
    """:func:`tieaudit_crossover` for every coverage and family (exact: seconds per coverage).

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


#: Channels of the explorer and the attack sweep: noise on every copy, the data-only attack
#: under the secret twirl, and the same attack with the twirl known (or fixed tests).
ATTACK_CASES = ("uniform", "data_only", "knows_twirl")


def attack_channel(case: str, noise: float):
    """The channel of an attack case of :data:`ATTACK_CASES` at strength ``noise`` in ``[0, 1)``:
    ``"uniform"``, :class:`~qring_edu.tieaudit.Depolarizing` (``None``, the trusted channel, at
    noise 0); ``"data_only"`` and ``"knows_twirl"``, :class:`~qring_edu.tieaudit.DataOnlyAttack`.

    Examples
    --------
    >>> attack_channel("knows_twirl", 0.3), attack_channel("uniform", 0.0)
    (DataOnlyAttack(noise=0.3, knows_twirl=True), None)
    """
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
    >>> audit_explorer(log2_P=5, alpha=0.75, f=0.25, eps=0.1, seed=0)
    AuditExplorer(eps=0.1, noise=0, f=0.25, alpha=0.75, attack='uniform', values=(0.2164, 0.2164, 0.25))
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
    """A random instance (coverage ``alpha``, ``round(f m)`` disagreeing pairs) and the three
    estimates at accuracy ``eps``; the quantum ones through :func:`attack_channel` ``(attack,
    noise)`` (entanglement-assisted: under its twirl), the classical one noiseless.

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
    channel = attack_channel(attack, noise)
    ea_channel = attack_channel("data_only", noise) if attack == "knows_twirl" else channel
    p_plus, p_minus = copy_y_law(s, m, channel)
    ests = (
        tieaudit(s, m, eps, channel=channel, seed=seed),
        tieaudit(s, m, eps, protocol="entanglement_assisted", channel=ea_channel, seed=seed),
        tieaudit(s, m, eps, protocol="classical", seed=seed),
    )
    law = (p_plus, p_minus, ests, attack)
    return AuditExplorer(s, m, float(eps), float(noise), _truth(s, m), 2 * len(m) / P, *law)
