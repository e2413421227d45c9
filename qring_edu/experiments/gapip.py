"""Experiments of the GapIP chapter (book/07_gapip.ipynb): promise instances
(:func:`aligned_pair`), cost against ``1/tau`` (:func:`gapip_scaling`, :func:`gapip_curves`),
the probability of "not a_h" four ways (:func:`gapip_paths`), the passes of one shot
(:func:`gapip_schedule`) and quantum against classical with one family of bounds on both sides
(:func:`gapip_comparison`). Figures in :mod:`qring_edu.figures.gapip`.

Fits are least squares on ``log(cost)``; a slope ``s`` means ``cost ∝ (1/tau)^s``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import field

import numpy as np

from .._result import result
from .._validate import check_choice, check_delta, check_float, check_int, check_seed
from ..gapip import (
    AmplitudeEstimation,
    Classical,
    PhaseEstimation,
    alignment_angle,
    alignment_state,
    classical_bits,
    gapip,
    gapip_circuit,
    gapip_prepare,
    n_register_qubits,
    sketch_bits,
    vector_bits,
)
from ._base import Table, Tabular, loglog_slope, rng

__all__ = [
    "GapIPScaling",
    "aligned_pair",
    "gapip_scaling",
    "DEFAULT_TAUS",
    "classical_cost_table",
    "gapip_probability",
    "gapip_sample_qiskit",
    "GapIPPaths",
    "gapip_paths",
    "MAX_WIDGET_LOG2_P",
    "GapIPCurves",
    "gapip_curves",
    "QUANTUM_GAPIP_PROTOCOLS",
    "GAPIP_FAMILIES",
    "GapIPSchedule",
    "gapip_schedule",
    "COMPARISON_TAUS",
    "GapIPComparison",
    "gapip_comparison",
]

#: τ from 0.4 down to 0.02, nine log-spaced values.
DEFAULT_TAUS = tuple(float(t) for t in np.geomspace(0.4, 0.02, 9))


def aligned_pair(P: int, c: float, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Random unit vectors ``g, h`` of length ``P`` with ``<g, h> = c`` exactly (up to rounding).

    Examples
    --------
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


@result(show=("quantum_slope", "classical_slope"))
class GapIPScaling:
    """Result of :func:`gapip_scaling` (arrays indexed like ``taus``).

    Examples
    --------
    >>> s = gapip_scaling((0.4, 0.2), 2**8, trials=2, confidence="hoeffding")
    >>> round(s.quantum_slope, 6), round(s.classical_slope, 3), s.classical_kind
    (0.0, 2.052, ('sketch', 'sketch'))
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
    confidence: str = "hoeffding"  # family of bounds (quantum intervals and sketch length)
    protocol: str = "quantum"  # "quantum" (amplitude estimation) or "phase_estimation"

    @property
    def quantum_slope(self) -> float:
        return loglog_slope(1.0 / self.taus, self.quantum_cost)

    @property
    def classical_slope(self) -> float:
        return loglog_slope(1.0 / self.taus, self.classical_cost)


#: The two quantum GapIP protocols (``gapip(protocol=...)``).
QUANTUM_GAPIP_PROTOCOLS = ("quantum", "phase_estimation")


def _quantum(protocol: str, confidence: str):
    """The protocol value of a family ``(protocol, confidence)``; its bound sizes the sketch."""
    check_choice(protocol, "protocol", QUANTUM_GAPIP_PROTOCOLS)
    value = AmplitudeEstimation if protocol == "quantum" else PhaseEstimation
    return value(check_choice(confidence, "confidence", ("hoeffding", "exact")))


def _check_taus(taus, at_least: int = 2) -> np.ndarray:
    if isinstance(taus, (str, bytes)) or not hasattr(taus, "__iter__"):
        raise TypeError(f"taus must be a sequence of margins, got {type(taus).__name__}")
    values = [check_float(t, "taus", 0.0, 1.0, lo_open=True, hi_open=True) for t in taus]
    if len(values) < at_least:
        raise ValueError(f"taus must hold at least {at_least} values")
    return np.asarray(values)


def _decide(P: int, tau: float, delta: float, trials: int, seed, i: int, protocols):
    """Costs and correct verdicts, shape ``(len(protocols), trials)``, of each ``(protocol value,
    seed tag)`` on the same ``trials`` promise instances at margin ``tau`` (alternating ``<g, h>
    = ±tau``; instance seed ``rng(seed, i, trial)``, protocol seed ``rng(seed, i, trial, tag)``)."""
    cost, ok = np.zeros((2, len(protocols), trials))
    for trial in range(trials):
        c = tau if trial % 2 == 0 else -tau
        g, h = aligned_pair(P, c, seed=rng(seed, i, trial))
        truth = "aligned" if c > 0 else "conflicting"
        for f, (value, tag) in enumerate(protocols):
            d = gapip(g, h, tau, protocol=value, delta=delta, seed=rng(seed, i, trial, tag))
            cost[f, trial], ok[f, trial] = d.cost, d.verdict == truth
    return cost, ok


def gapip_scaling(
    taus: Sequence[float] = DEFAULT_TAUS,
    P: int = 2**16,
    *,
    trials: int = 20,
    delta: float = 0.05,
    seed: int = 0,
    confidence: str = "hoeffding",
    protocol: str = "quantum",
) -> GapIPScaling:
    """Mean cost and accuracy of the quantum ``protocol`` (``confidence`` intervals) and the
    classical cost ``min(sketch, vector)`` (sketch sized with the same family) at each ``tau``,
    on ``trials`` promise instances (alternating ``<g,h> = ±tau``).

    Examples
    --------
    >>> s = gapip_scaling((0.4, 0.1), 2**8, trials=2, confidence="hoeffding")
    >>> bool(s.quantum_cost[1] > s.quantum_cost[0])          # a smaller margin costs more qubits
    True
    """
    taus_arr = _check_taus(taus)
    P = check_int(P, "P", 2)
    trials = check_int(trials, "trials", 2, 10_000)
    quantum = _quantum(protocol, confidence)
    check_seed(seed)
    protocols = ((quantum, 1), (Classical(confidence), 2))
    kinds, rows = [], []
    for i, tau in enumerate(taus_arr):
        kind, bits = classical_bits(P, tau, delta, bound=confidence)
        cost, ok = _decide(P, tau, delta, trials, seed, i, protocols)
        kinds.append(kind)
        rows.append((float(cost[0].mean()), float(bits), ok[0].mean(), ok[1].mean()))
    q_cost, c_cost, q_acc, c_acc = (np.array(x) for x in zip(*rows))
    args = (P, float(delta), taus_arr, q_cost, c_cost, tuple(kinds), q_acc, c_acc)
    return GapIPScaling(*args, trials, confidence, protocol)


def classical_cost_table(
    P: int = 2**16,
    taus: Sequence[float] = (0.4, 0.1, 0.02),
    delta: float = 0.05,
    *,
    exact: bool = False,
) -> Table:
    """Bits of the sign sketch (:func:`qring_edu.gapip.sketch_bits`, Hoeffding; ``exact=True``
    adds the exact binomial length) and the quantised vector (:func:`qring_edu.gapip.vector_bits`)
    at each τ, and the one :func:`qring_edu.gapip.classical_bits` uses.

    Examples
    --------
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
    sketch = ("sketch (Hoeffding)", "sketch (exact)") if exact else ("sketch bits",)
    columns = ("τ", *sketch, "vector bits", "classical uses")
    return Table(columns, tuple(rows), ("g",) + (",d",) * (len(sketch) + 1) + ("",))


def _reflect(state: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """``(2|a><a| - 1) state`` for a real unit vector ``a``."""
    return 2.0 * axis * (axis @ state) - state


def gapip_probability(
    g, h, k: int, *, method: str = "subspace", protocol: str = "quantum"
) -> float:
    """P("not a_h") of a shot of :func:`qring_edu.gapip.gapip`: ``sin^2((2k+1) theta)``, ``k >= 0``
    (``"quantum"``), or ``sin^2(K theta)``, ``k = K >= 1`` (``"phase_estimation"``, control "-").

    ``method``: ``"subspace"`` (closed form, ``k <= 10^15``), ``"statevector"`` (NumPy on all
    amplitudes, ``k <= 10^4``) or ``"qiskit"`` (``Statevector`` of the circuit, ``k <= 64``).

    Examples
    --------
    >>> g, h = [1.0, 0.0], [0.6, 0.8]           # <g, h> = 0.6, cos(theta) = 0.8
    >>> round(gapip_probability(g, h, 2, protocol="phase_estimation", method="statevector"), 6)
    0.9216
    """
    method = check_choice(method, "method", ("subspace", "statevector", "qiskit"))
    pe = check_choice(protocol, "protocol", QUANTUM_GAPIP_PROTOCOLS) == "phase_estimation"
    hi = {"subspace": 10**15, "statevector": 10**4}.get(method, 64)
    k = check_int(k, "k (the power K of controlled-G)" if pe else "k", int(pe), hi)
    gn, hn = gapip_prepare(g, h)
    if method == "subspace":
        return float(math.sin((k if pe else 2 * k + 1) * alignment_angle(gn, hn)) ** 2)
    if method == "statevector":
        ag, ah = alignment_state(gn), alignment_state(hn)
        state = ag.copy()
        for _ in range(k):  # phase estimation: the |1> branch of the control (first R_g included)
            state = _reflect(_reflect(state, ag), ah) if pe else _reflect(_reflect(state, ah), ag)
        return float(np.sum((ag - state) ** 2) / 4.0 if pe else 1.0 - (ah @ state) ** 2)
    from qiskit.quantum_info import Statevector

    probs = Statevector(gapip_circuit(gn, hn, k, measure=False, protocol=protocol)).probabilities()
    return float(probs.reshape(2, -1)[1].sum() if pe else 1.0 - probs[0])  # control: qubit n


def gapip_sample_qiskit(
    g, h, k: int, shots: int = 1000, seed=None, *, protocol: str = "quantum"
) -> int:
    """Run :func:`qring_edu.gapip.gapip_circuit` on ``AerSimulator`` (decomposed to ``u``/``cx``
    first) for ``shots`` shots; return how many ended in "not a_h" (``"quantum"``: any outcome
    but ``0...0``; ``"phase_estimation"``: control "-").

    Examples
    --------
    >>> gapip_sample_qiskit([1.0, 0.0], [1.0, 0.0], 0, shots=50, seed=1)   # theta = 0
    0
    """
    from qiskit import transpile
    from qiskit_aer import AerSimulator

    shots = check_int(shots, "shots", 1, 10**6)
    check_seed(seed)
    sim_seed = int(np.random.default_rng(seed).integers(2**31))
    circuit = gapip_circuit(g, h, k, protocol=protocol)
    qc = transpile(circuit, basis_gates=["u", "cx"], optimization_level=1, seed_transpiler=0)
    counts = AerSimulator(seed_simulator=sim_seed).run(qc, shots=shots).result().get_counts()
    return shots - int(counts.get("0" * qc.num_clbits, 0))


@result(show=("max_exact_gap",))
class GapIPPaths(Tabular):
    """:func:`gapip_probability` for each k in ``ks`` by each method, and the Aer frequency over
    ``shots`` shots (shape (n,) each).

    Examples
    --------
    >>> g, h = aligned_pair(4, 0.5, seed=1)
    >>> paths = gapip_paths(g, h, ks=(0, 1), shots=200)
    >>> paths.subspace.round(4).tolist(), paths.aer.tolist()          # sampled: close, not equal
    ([0.4375, 0.6836], [0.44, 0.665])
    """

    ks: np.ndarray = field(repr=False)
    subspace: np.ndarray = field(repr=False)
    statevector: np.ndarray = field(repr=False)
    qiskit: np.ndarray = field(repr=False)
    aer: np.ndarray = field(repr=False)
    shots: int = 0
    protocol: str = "quantum"

    def table(self) -> Table:
        """One row per k (or K): the three exact values and the Aer frequency."""
        rows = zip(self.ks, self.subspace, self.statevector, self.qiskit, self.aer)
        key = "K" if self.protocol == "phase_estimation" else "k"
        heads = (key, "subspace", "statevector", "qiskit", f"Aer ({self.shots} shots)")
        return Table(heads, tuple(rows), ("d", ".6f", ".6f", ".6f", ".4f"))

    @property
    def max_exact_gap(self) -> float:
        """Largest difference between the subspace and the Qiskit path."""
        return float(np.max(np.abs(self.subspace - self.qiskit)))


def gapip_paths(
    g, h, ks: Sequence[int] = range(4), *, shots: int = 4000, protocol: str = "quantum"
) -> GapIPPaths:
    """:func:`gapip_probability` by each method and :func:`gapip_sample_qiskit` (``seed = k``)
    for each k (small P only: ``ceil(log2(P + 1))`` qubits, +1 control for phase estimation).

    Examples
    --------
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
    paths = (np.array(x) for x in (ks, *exact.values(), aer))  # subspace, statevector, qiskit
    return GapIPPaths(*paths, shots, protocol)


#: Largest log2(P) the interactive GapIP curves simulate, so a widget stays responsive.
MAX_WIDGET_LOG2_P = 18


@result
class GapIPCurves:
    """GapIP cost curves over ``tau`` in ``[tau_min, 0.4]`` with the selected ``tau`` marked.

    Examples
    --------
    >>> curves = gapip_curves(0.1, log2_P=8, trials=2, points=3)
    >>> curves.tau, curves.scaling.taus.round(3).tolist()
    (0.1, [0.4, 0.2, 0.1])
    """

    tau: float
    scaling: GapIPScaling = field(repr=False)


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
    """:func:`gapip_scaling` on ``points`` log-spaced τ from 0.4 down to ``min(tau, 0.2)`` (at
    least a factor 2) at ``P = 2^log2_P``.

    Examples
    --------
    >>> curves = gapip_curves(0.3, log2_P=8, trials=2, points=3)
    >>> curves.scaling.taus.round(3).tolist()                # spans a factor of 2 at least
    [0.4, 0.283, 0.2]
    """
    tau = check_float(tau, "tau", 0.0, 1.0, lo_open=True, hi_open=True)
    log2_P = check_int(log2_P, "log2_P", 1, MAX_WIDGET_LOG2_P)
    trials = check_int(trials, "trials", 2, 200)
    points = check_int(points, "points", 2, 20)
    taus = np.geomspace(0.4, min(tau, 0.2), points)
    kw = dict(trials=trials, seed=seed, confidence=confidence, protocol=protocol)
    return GapIPCurves(tau, gapip_scaling(taus, 2**log2_P, **kw))


@result(show=("passes", "qubits"))
class GapIPSchedule:
    """What happens in one shot of a quantum GapIP protocol, in order.

    ``events``: ``(kind, party, label)``, ``kind`` ``"op"`` (``party`` applies ``label``) or
    ``"pass"`` (``party`` sends ``label`` qubits). ``register``: ``n = ceil(log2(P + 1))``;
    ``width``: qubits per pass (``n``, +1 control for phase estimation); the shot measures
    ``sin^2(multiple · theta)``.

    Examples
    --------
    >>> gapip_schedule(3, 1)
    GapIPSchedule(protocol='quantum', P=3, power=1, register=2, width=2, multiple=3, passes=3, qubits=6)
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


def gapip_schedule(P: int, power: int, protocol: str = "quantum") -> GapIPSchedule:
    """The pass schedule of one shot (:func:`qring_edu.gapip.gapip`'s counting rule;
    book/07_gapip.ipynb): ``"quantum"``, ``power = k`` in 0..12: ``2k + 1`` passes of ``n``
    qubits; ``"phase_estimation"``, ``power = K`` in 1..12: ``2K - 1`` passes of ``n + 1``
    (the first controlled-``R_g`` acts trivially on ``|+>`` and is skipped).

    Examples
    --------
    >>> gapip_schedule(3, 2, "phase_estimation")
    GapIPSchedule(protocol='phase_estimation', P=3, power=2, register=2, width=3, multiple=2, passes=3, qubits=9)
    """
    P = check_int(P, "P", 1)
    check_choice(protocol, "protocol", QUANTUM_GAPIP_PROTOCOLS)
    pe = protocol == "phase_estimation"
    name = "power (K of phase estimation)" if pe else "power (k iterations)"
    power = check_int(power, name, int(pe), 12)
    n = n_register_qubits(P)
    width, c = (n + 1, "c-") if pe else (n, "")
    sent = f"{width} qubits"
    ping = [("op", "client", c + "R_h"), ("pass", "client", sent), ("op", "server", c + "R_g")]
    prepare = "prepare |a_g⟩, control |+⟩" if pe else "prepare |a_g⟩"
    events = [("op", "server", prepare), ("pass", "server", sent)]
    events += (ping + [("pass", "server", sent)]) * (power - pe) + [("op", "client", "c-R_h")] * pe
    events.append(("op", "client", "measure control (X basis)" if pe else "measure {|a_h⟩, rest}"))
    multiple = power if pe else 2 * power + 1
    return GapIPSchedule(protocol, P, power, n, width, multiple, tuple(events))


#: (protocol, confidence) of the comparison; each family sizes the sketch with its own bound.
GAPIP_FAMILIES = (
    ("quantum", "hoeffding"),
    ("quantum", "exact"),
    ("phase_estimation", "hoeffding"),
    ("phase_estimation", "exact"),
)

#: τ grid of the comparison (book/07_gapip.ipynb, claims): 19 log-spaced margins, 0.4 to 1e-4.
COMPARISON_TAUS = tuple(float(t) for t in np.geomspace(0.4, 1e-4, 19))

_PROTOCOL_NAMES = {"quantum": "amplitude estimation", "phase_estimation": "phase estimation"}
_FAMILY_NAMES = {"hoeffding": "Hoeffding", "exact": "exact"}


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


@result
class GapIPComparison(Tabular):
    """Result of :func:`gapip_comparison` (arrays indexed like ``taus``).

    ``quantum_cost[i]``, ``quantum_accuracy[i]``: family ``families[i] = (protocol,
    confidence)``; ``sketch_bits[j]``, ``classical_accuracy[j]`` (nan when not run): bound
    ``bounds[j]``.

    Examples
    --------
    >>> c = gapip_comparison((0.3, 0.1), 2**8, trials=2, families=(("quantum", "hoeffding"),))
    >>> c, c.quantum_cost.shape
    (GapIPComparison(P=256, delta=0.05, trials=2), (1, 2))
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
        """Sketch bits with the family's bound."""
        if confidence not in self.bounds:
            raise ValueError(f"confidence must be one of {self.bounds}, got {confidence!r}")
        return self.sketch_bits[self.bounds.index(confidence)]

    def classical_cost(self, confidence: str = "hoeffding") -> np.ndarray:
        """The classical protocol's bits in a family: ``min(sketch, vector)``."""
        return np.minimum(self.sketch(confidence), self.vector_bits)

    def ratio(self, protocol: str = "quantum", confidence: str = "hoeffding") -> np.ndarray:
        """Quantum qubits / classical bits, same family on both sides (< 1: quantum cheaper)."""
        return self.quantum(protocol, confidence) / self.classical_cost(confidence)

    def window(
        self, protocol: str = "quantum", confidence: str = "hoeffding"
    ) -> tuple[float, float]:
        """``(lower, upper)`` τ where the quantum protocol is cheaper, interpolated log-log;
        ``nan`` for an end outside the grid, both ``nan`` when it is never cheaper."""
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
        columns = ("quantum protocol", "bounds (both sides)", "quantum cheaper for")
        return Table((*columns, "best quantum/classical"), tuple(rows), ("", "", "", ".2f"))


def gapip_comparison(
    taus: Sequence[float] = COMPARISON_TAUS,
    P: int = 2**16,
    *,
    trials: int = 8,
    delta: float = 0.05,
    seed: int = 0,
    families: Sequence[tuple[str, str]] = GAPIP_FAMILIES,
    run_classical: bool = True,
) -> GapIPComparison:
    """Every family ``(protocol, confidence)`` decides the same ``trials`` promise instances per
    ``tau`` (alternating ``<g, h> = ±tau``); classical side ``min(sketch, P b)``, run on the
    instances too if ``run_classical``. Seeds: instance ``rng(seed, i, trial)``, family ``f``
    ``rng(seed, i, trial, 1 + f)``, classical ``100 + j``.

    Examples
    --------
    >>> c = gapip_comparison((0.3, 0.1), 2**8, trials=2, families=(("quantum", "hoeffding"),))
    >>> c.classical_cost("hoeffding").tolist(), c.window()      # large margins: never cheaper
    ([160.0, 1474.0], (nan, nan))
    """
    taus_arr = _check_taus(taus)
    P = check_int(P, "P", 2)
    trials = check_int(trials, "trials", 1, 10_000)
    delta = check_delta(delta)
    check_seed(seed)
    fams = tuple((p, c) for p, c in families)
    values = [_quantum(p, c) for p, c in fams]
    if not fams:
        raise ValueError("families must list at least one (protocol, confidence) pair")
    bounds = tuple(b for b in ("hoeffding", "exact") if any(c == b for _, c in fams))
    F, T = len(fams), taus_arr.size
    q_cost, q_acc = np.zeros((2, F, T))
    sk = np.array([[sketch_bits(t, delta, bound=b) for t in taus_arr] for b in bounds], float)
    vec = np.array([vector_bits(P, t) for t in taus_arr], float)
    c_acc = np.full((len(bounds), T), np.nan)
    protocols = [(value, 1 + f) for f, value in enumerate(values)]
    protocols += [(Classical(b), 100 + j) for j, b in enumerate(bounds)] if run_classical else []
    for i, tau in enumerate(taus_arr):
        cost, ok = _decide(P, tau, delta, trials, seed, i, protocols)
        q_cost[:, i], q_acc[:, i] = cost[:F].mean(axis=1), ok[:F].mean(axis=1)
        if run_classical:
            c_acc[:, i] = ok[F:].mean(axis=1)
    args = (taus_arr, fams, q_cost, q_acc, bounds, sk, vec, c_acc)
    return GapIPComparison(P, float(delta), trials, *args)
