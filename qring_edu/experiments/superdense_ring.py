"""Experiments of chapter 3, *The superdense ring* (book/03_superdense_ring.ipynb): the state
after each gate of superdense coding, the noisy channel three ways (exact, fast path, Aer), the
two rings' ledgers and their overlapped, bucketed iteration times (the same overlap for
both transports), and chapter 2's cut-set floor. Training: :mod:`qring_edu.experiments.training`.

Times: ``compute_ms`` forward + backward (ms), ``bandwidth_gbps`` the classical link rate
(``beta = 1e-9 / bandwidth_gbps`` s per bit), ``latency_us`` = ``alpha`` (µs per message),
``qubit_cost`` a qubit's link time in bits' (``beta_qubit = qubit_cost * beta``; 2 = the two bits
it carries).

Message order: the two-bit message ``(x, z)`` has index ``m = 2 x + z`` and label ``"xz"`` (the
Qiskit count key of :func:`qring_edu.superdense_circuit`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field

import numpy as np

from .._result import result
from .._validate import as_numeric_array, check_choice, check_float, check_int
from ..costmodel import (
    BACKWARD_FRACTION,
    MODEL_SIZES,
    BucketedIteration,
    bucketed_best_ratio,
    bucketed_iteration_time,
    iteration_time,
)
from ..noise import Link
from ..superdense import (
    superdense_circuit,
    superdense_outcome_probabilities,
    superdense_send,
    superdense_send_qiskit,
)
from ._base import LedgerComparison, Table, Tabular, compare_ledgers
from .holevo import CutSetSweep, cut_set_sweep  # chapter 3 restates chapter 2's cut-set floor

__all__ = [
    "MESSAGE_LABELS",
    "ket_label",
    "superdense_state_table",
    "outcome_table",
    "ChannelStats",
    "channel_statistics",
    "ErrorRateSweep",
    "symbol_error_sweep",
    "LedgerComparison",
    "compare_ledgers",
    "OverlapComparison",
    "overlap_comparison",
    "OverlapSweep",
    "overlap_sweep",
    "CutSetSweep",
    "cut_set_sweep",
]

#: Labels of the messages/outcomes in index order ``m = 2 x + z`` (reads "xz").
MESSAGE_LABELS = ("00", "01", "10", "11")
#: Upper limit on sampled symbols per call, so a typo cannot freeze a kernel.
MAX_SYMBOLS = 10_000_000
MAX_AER_SYMBOLS = 20_000
_ROOTS = ((1.0, "{}"), (1 / np.sqrt(2), "({})/√2"), (0.5, "({})/2"))


def _exact(link: Link) -> np.ndarray:
    """``[m, o]``: P(Bob decodes o | Alice sent m), density-matrix evolution, shape (4, 4)."""
    probs = [superdense_outcome_probabilities(m >> 1, m & 1, link=link) for m in range(4)]
    return np.array([[p[(o >> 1, o & 1)] for o in range(4)] for p in probs])


def outcome_table(pair_fidelity: float = 1.0) -> Table:
    """P(Bob decodes column | Alice sent row) by density-matrix evolution
    (:func:`qring_edu.superdense_outcome_probabilities`).

    Examples
    --------
    >>> print(outcome_table(0.7))
    sent   "00"   "01"   "10"   "11"
    "00"  0.700  0.100  0.100  0.100
    "01"  0.100  0.700  0.100  0.100
    "10"  0.100  0.100  0.700  0.100
    "11"  0.100  0.100  0.100  0.700
    """
    labels = tuple(f'"{o}"' for o in MESSAGE_LABELS)
    rows = tuple((m, *p) for m, p in zip(labels, _exact(Link(pair_fidelity)).tolist()))
    return Table(("sent",) + labels, rows, ("",) + (".3f",) * 4)


def ket_label(amplitudes, tol: float = 1e-9) -> str:
    """A state vector as a sum of Qiskit-labelled kets, e.g. ``"(|00⟩ + |11⟩)/√2"``.

    ``amplitudes``: length 2**n, Qiskit's order (``|q_{n-1} ... q_1 q_0⟩``). A common modulus 1,
    1/√2 or 1/2 is pulled out, each term keeping its phase (``-``, ``i``, ``-i``); otherwise
    amplitudes to 3 decimals. Global phases are kept.

    Examples
    --------
    >>> ket_label([0, -0.5**0.5, 0.5**0.5, 0])
    '(-|01⟩ + |10⟩)/√2'
    """
    amps = np.asarray(amplitudes, dtype=complex).ravel()
    n = int(round(np.log2(amps.size))) if amps.size else 0
    if amps.size == 0 or 2**n != amps.size:
        raise ValueError(f"amplitudes must have length 2**n, got {amps.size}")
    nonzero = [(i, a) for i, a in enumerate(amps) if abs(a) > tol]
    if not nonzero:
        raise ValueError("amplitudes must not all be zero")
    mods = np.array([abs(a) for _, a in nonzero])
    kets = [f"|{i:0{n}b}⟩" for i, _ in nonzero]
    phases = ((1, "+"), (-1, "-"), (1j, "+i"), (-1j, "-i"))
    for modulus, wrap in _ROOTS:
        if not np.allclose(mods, modulus, atol=tol) or len(nonzero) * modulus**2 <= 1 - 1e-6:
            continue
        units = [a / modulus for _, a in nonzero]
        signs = [next((s for v, s in phases if abs(u - v) < 1e-6), None) for u in units]
        if None not in signs:  # every term is ±1 or ±i times the common modulus
            body = " ".join(f"{s} {k}" for s, k in zip(signs, kets))
            body = body[2:] if signs[0] == "+" else body.replace(" ", "", 1)  # "-|0⟩", not "- |0⟩"
            return wrap.format(body) if len(kets) > 1 or modulus != 1 else body
    return " + ".join(
        f"({a.real:.3f}{a.imag:+.3f}i){k}" if abs(a.imag) > tol else f"{a.real:.3f}{k}"
        for k, (_, a) in zip(kets, nonzero)
    )


def superdense_state_table() -> Table:
    """The state after each gate of superdense coding, for each of the four messages.

    One row per gate of :func:`qring_edu.superdense_circuit`, one column per message ``"xz"``;
    states as :func:`ket_label` of the Qiskit ``Statevector``, ``|q1 q0⟩ = |B A⟩``.

    Examples
    --------
    >>> print(superdense_state_table())
    after            "00"              "01"              "10"              "11"
    start            |00⟩              |00⟩              |00⟩              |00⟩
    H on A           (|00⟩ + |01⟩)/√2  (|00⟩ + |01⟩)/√2  (|00⟩ + |01⟩)/√2  (|00⟩ + |01⟩)/√2
    CNOT A→B: |Φ+⟩   (|00⟩ + |11⟩)/√2  (|00⟩ + |11⟩)/√2  (|00⟩ + |11⟩)/√2  (|00⟩ + |11⟩)/√2
    Alice: X^x on A  –                 –                 (|01⟩ + |10⟩)/√2  (|01⟩ + |10⟩)/√2
    Alice: Z^z on A  –                 (|00⟩ - |11⟩)/√2  –                 (-|01⟩ + |10⟩)/√2
    Bob: CNOT A→B    (|00⟩ + |01⟩)/√2  (|00⟩ - |01⟩)/√2  (|10⟩ + |11⟩)/√2  (|10⟩ - |11⟩)/√2
    Bob: H on A      |00⟩              |01⟩              |10⟩              |11⟩
    """
    from qiskit.quantum_info import Statevector

    labels = ("start", "H on A", "CNOT A→B: |Φ+⟩", "Alice: X^x on A", "Alice: Z^z on A")
    labels += ("Bob: CNOT A→B", "Bob: H on A")
    columns = []
    for m in range(4):
        x, z = m >> 1, m & 1
        circuit = superdense_circuit(x, z, measure=False)
        gates = (
            (inst.operation, [circuit.find_bit(q).index for q in inst.qubits])
            for inst in circuit.data
            if inst.operation.name != "barrier"
        )
        state = Statevector.from_label("00")
        cells = [ket_label(state.data)]
        # the circuit's gates in order; Alice's X / Z appear only when x / z is 1
        for name in ("h", "cx", "x" if x else None, "z" if z else None, "cx", "h"):
            if name is not None:
                op, qubits = next(gates)
                if op.name != name:  # the library's circuit no longer has the gates of this table
                    raise RuntimeError(f"superdense_circuit has {op.name!r} where {name!r} was")
                state = state.evolve(op, qargs=qubits)
            cells.append(None if name is None else ket_label(state.data))
        columns.append(cells)
    rows = tuple((label, *(col[i] for col in columns)) for i, label in enumerate(labels))
    return Table(("after",) + tuple(f'"{m}"' for m in MESSAGE_LABELS), rows, ("",) * 5)


@result(show=("exact_error_rate", "fast_error_rate", "fast_symbols", "aer_error_rate"))
class ChannelStats(Tabular):
    """Superdense coding over isotropic pairs of fidelity F: ``exact[m, o]`` = P(decode o |
    sent m), (4, 4); ``fast_counts``, ``aer_counts`` (``None``: not sampled): sampled counts.

    Examples
    --------
    >>> channel_statistics(0.9, 2000, seed=0)
    ChannelStats(pair_fidelity=0.9, exact_error_rate=0.1, fast_error_rate=0.1095, fast_symbols=2000, aer_error_rate=None)
    """

    pair_fidelity: float
    exact: np.ndarray = field(repr=False)
    fast_counts: np.ndarray = field(repr=False)
    aer_counts: np.ndarray | None = field(repr=False, default=None)

    exact_error_rate = property(
        lambda self: float(1.0 - np.mean(np.diag(self.exact))),
        doc="Symbol error rate for uniformly random messages: ``1 - mean_m exact[m, m]``.",
    )

    @staticmethod
    def _rate(counts: np.ndarray | None) -> float | None:
        """Share of the symbols decoded wrongly; ``None`` if none was sampled."""
        if counts is None or counts.sum() == 0:
            return None
        return float(1.0 - np.trace(counts) / counts.sum())

    fast_error_rate = property(lambda self: self._rate(self.fast_counts), doc="Fast path's.")
    aer_error_rate = property(lambda self: self._rate(self.aer_counts), doc="Aer's, or None.")

    fast_symbols = property(lambda self: int(self.fast_counts.sum()), doc="Fast-path symbols.")
    aer_symbols = property(
        lambda self: 0 if self.aer_counts is None else int(self.aer_counts.sum()), doc="Aer's."
    )

    def table(self) -> Table:
        """Symbol error rate of each path, and the sampled ones' distance from the exact rate in
        binomial standard errors ``sqrt(r (1 - r) / n)``."""
        r = self.exact_error_rate
        rows = [("exact", None, r, None)]
        fast = ("fast path", self.fast_error_rate, self.fast_symbols)
        for name, rate, n in (fast, ("Aer", self.aer_error_rate, self.aer_symbols)):
            if rate is None:
                continue
            se = np.sqrt(r * (1 - r) / n)
            rows.append((name, n, rate, (rate - r) / se if se > 0 else None))
        head = ("path", "symbols", "symbol error rate", "standard errors from exact")
        return Table(head, tuple(rows), ("", ",d", ".4f", "+.2f"))


def _count_messages(sent: np.ndarray, received: np.ndarray) -> np.ndarray:
    """(4, 4) counts of (sent message, decoded message) over a symbol stream (x = even bits)."""
    m_sent, m_recv = (2 * b[0::2].astype(np.int64) + b[1::2] for b in (sent, received))
    return np.bincount(4 * m_sent + m_recv, minlength=16).reshape(4, 4)


def channel_statistics(
    pair_fidelity: float = 0.9, n_symbols: int = 2000, seed: int = 0, *, aer_symbols: int = 0
) -> ChannelStats:
    """``n_symbols`` random two-bit symbols through :func:`qring_edu.superdense_send`,
    ``aer_symbols`` through :func:`qring_edu.superdense_send_qiskit`, and the exact table.

    Examples
    --------
    >>> stats = channel_statistics(0.8, n_symbols=4000, seed=3)
    >>> round(stats.exact_error_rate, 4), round(stats.fast_error_rate, 4)
    (0.2, 0.1965)
    """
    link = Link(pair_fidelity)
    n_symbols = check_int(n_symbols, "n_symbols", 1, MAX_SYMBOLS)
    aer_symbols = check_int(aer_symbols, "aer_symbols", 0, MAX_AER_SYMBOLS)
    seed = check_int(seed, "seed", 0)
    rng = np.random.default_rng([seed, 0])
    sent = rng.integers(0, 2, size=2 * n_symbols, dtype=np.uint8)
    received = superdense_send(sent, link=link, seed=np.random.default_rng([seed, 1]))
    aer_counts = None
    if aer_symbols:
        sent_aer = rng.integers(0, 2, size=2 * aer_symbols, dtype=np.uint8)
        received_aer = superdense_send_qiskit(sent_aer, link=link, seed=seed)
        aer_counts = _count_messages(sent_aer, received_aer)
    return ChannelStats(link.pair, _exact(link), _count_messages(sent, received), aer_counts)


@result
class ErrorRateSweep:
    """Measured symbol error rates over a grid of fidelities (fast path, optionally Aer).

    Examples
    --------
    >>> sweep = symbol_error_sweep([0.7, 0.9, 1.0], 2000, seed=0)
    >>> [round(r, 4) for r in sweep.fast_rates.tolist()]                      # close to 1 - F
    [0.313, 0.0965, 0.0]
    """

    fidelities: np.ndarray
    fast_rates: np.ndarray = field(repr=False)
    fast_symbols: int
    aer_fidelities: np.ndarray
    aer_rates: np.ndarray = field(repr=False)
    aer_symbols: int


def symbol_error_sweep(
    fidelities: Sequence[float],
    n_symbols: int = 20_000,
    *,
    aer_fidelities: Sequence[float] = (),
    aer_symbols: int = 0,
    seed: int = 0,
) -> ErrorRateSweep:
    """Fast-path symbol error rate at each F of ``fidelities``, Aer's at each of
    ``aer_fidelities`` (:func:`channel_statistics`, one seed each).

    Examples
    --------
    >>> symbol_error_sweep([0.5, 1.0], 1000).fast_rates.tolist()
    [0.522, 0.0]
    """
    fids = as_numeric_array(fidelities, "fidelities").astype(float).ravel()
    aer_fids = as_numeric_array(aer_fidelities, "aer_fidelities").astype(float).ravel()
    if fids.size + aer_fids.size > 1000:
        raise ValueError("fidelities and aer_fidelities must hold at most 1,000 points together")
    seed = check_int(seed, "seed", 0)
    fast = [channel_statistics(f, n_symbols, seed + i).fast_error_rate for i, f in enumerate(fids)]
    aer = [
        channel_statistics(f, 1, seed + 1000 + i, aer_symbols=aer_symbols).aer_error_rate
        for i, f in enumerate(aer_fids)
    ]
    fast, aer = (np.asarray(rates, dtype=float) for rates in (fast, aer))
    return ErrorRateSweep(fids, fast, int(n_symbols), aer_fids, aer, int(aer_symbols))


def _link_settings(model, bandwidth_gbps, latency_us, qubit_cost):
    """(model, d, beta, alpha, beta_qubit) in seconds and bits from the settings' units."""
    model = check_choice(model, "model", tuple(MODEL_SIZES))
    bandwidth = check_float(bandwidth_gbps, "bandwidth_gbps", 0.0, lo_open=True)
    latency = check_float(latency_us, "latency_us", 0.0)
    qubit_cost = check_float(qubit_cost, "qubit_cost (link time per qubit / per bit)", 0.0)
    beta = 1e-9 / bandwidth
    return model, MODEL_SIZES[model], beta, latency * 1e-6, qubit_cost * beta


@result(show=("ratio", "gain", "binding"))
class OverlapComparison(Tabular):
    """Bucketed, overlapped iterations (:class:`~qring_edu.costmodel.BucketedIteration`, s):
    ``classical``, ``superdense`` and ``halved`` (classical at ``beta_qubit / 2``); superdense
    is ``max(halved.total, online + distribution)``: ``gain = min(critical_path_gain, link_gain)``.

    Examples
    --------
    >>> print(overlap_comparison(20.0, buckets=5).table())
    ResNet-50, P = 8, B = 5, 100 Gbit/s, compute 20 ms
    ring        iteration (ms)  tail (ms)  online link (ms)  distribution (ms)  idle link (ms)
    classical            21.50       1.50              7.51               0.00           14.00
    superdense           20.79       0.79              3.93               3.60           13.25
    """

    model: str
    workers: int
    d: int = field(repr=False)
    bits: int = field(repr=False)
    alpha: float = field(repr=False)
    beta: float = field(repr=False)
    beta_qubit: float = field(repr=False)
    backward_fraction: float = field(repr=False)
    classical: BucketedIteration = field(repr=False)
    superdense: BucketedIteration = field(repr=False)
    halved: BucketedIteration = field(repr=False)

    @property
    def ratio(self) -> float:
        """Superdense iteration time / classical iteration time."""
        return self.superdense.total / self.classical.total if self.classical.total else 1.0

    gain = property(
        lambda self: self.classical.total - self.superdense.total,
        doc="Seconds the superdense ring saves per iteration (negative: it is slower).",
    )
    link_time = property(
        lambda self: self.classical.online, doc="W: the classical busiest link's time."
    )
    critical_path_gain = property(
        lambda self: self.classical.total - self.halved.total, doc="``classical - halved``."
    )
    link_gain = property(
        lambda self: self.classical.total - (self.superdense.online + self.superdense.distribution),
        doc="``classical.total - (online + distribution)`` of the superdense ring.",
    )
    binding = property(
        lambda self: "critical path" if self.critical_path_gain <= self.link_gain else "link time",
        doc='Which bound sets the gain: ``"critical path"`` or ``"link time"``.',
    )

    def table(self) -> Table:
        """Both iterations' times (ms); the setting as the title."""
        names = ("total", "tail", "online", "distribution", "idle")
        rows = tuple(
            (name, *(getattr(it, n) * 1e3 for n in names))
            for name, it in (("classical", self.classical), ("superdense", self.superdense))
        )
        title = (
            f"{self.model}, P = {self.workers}, B = {self.classical.buckets}, "
            f"{1e-9 / self.beta:g} Gbit/s, compute {self.classical.compute * 1e3:g} ms"
        )
        head = ("ring", "iteration (ms)", "tail (ms)", "online link (ms)", "distribution (ms)")
        return Table(head + ("idle link (ms)",), rows, ("",) + (".2f",) * 5, title=title)


def overlap_comparison(
    compute_ms: float = 20.0,
    bandwidth_gbps: float = 100.0,
    latency_us: float = 5.0,
    buckets: int = 5,
    qubit_cost: float = 1.0,
    backward_fraction: float = BACKWARD_FRACTION,
    *,
    workers: int = 8,
    model: str = "ResNet-50",
    bits: int = 16,
) -> OverlapComparison:
    """One iteration of ``MODEL_SIZES[model]`` parameters, ``buckets`` buckets all-reduced as the
    backward pass (``backward_fraction`` of the compute) produces them, both rings
    (:func:`qring_edu.costmodel.bucketed_iteration_time`, simulated; units: module docstring).

    Examples
    --------
    >>> overlap_comparison(20.0)
    OverlapComparison(model='ResNet-50', workers=8, ratio=0.9667, gain=0.0007156, binding='critical path')
    """
    model, d, beta, alpha, beta_q = _link_settings(model, bandwidth_gbps, latency_us, qubit_cost)
    compute = check_float(compute_ms, "compute_ms (compute time in ms)", 0.0) * 1e-3
    backward_fraction = check_float(backward_fraction, "backward_fraction", 0.0, 1.0)
    kw = dict(buckets=buckets, backward_fraction=backward_fraction, method="simulate")
    classical = bucketed_iteration_time(compute, workers, d, bits, alpha, beta, **kw)
    superdense = bucketed_iteration_time(
        compute, workers, d, bits, alpha, beta, transport="superdense", beta_qubit=beta_q, **kw
    )
    halved = bucketed_iteration_time(compute, workers, d, bits, alpha, beta_q / 2, **kw)
    settings = (model, int(workers), d, int(bits), alpha, beta, beta_q, backward_fraction)
    return OverlapComparison(*settings, classical, superdense, halved)


@result(show=("best_ratio",))
class OverlapSweep:
    """Overlapped iteration times (s), shape (nB, n), per bucket count and compute time ``x``
    (units of W, ``link_time``): ``classical``, ``superdense``, ``slow`` (``slow_cost``),
    ``idle``, ``tail_gain`` (classical − superdense tail), ``old_ratio`` (non-overlapped);
    ``best``: :func:`qring_edu.costmodel.bucketed_best_ratio`.

    Examples
    --------
    >>> sw = overlap_sweep([0.0, 1.0, 3.0], buckets=(1, 5))     # one row per bucket count
    >>> [[round(float(r), 3) for r in row] for row in sw.ratio]
    [[1.001, 0.752, 0.876], [1.003, 0.753, 0.97]]
    """

    model: str
    workers: int
    bits: int
    alpha: float = field(repr=False)
    beta: float = field(repr=False)
    slow_cost: float = field(repr=False)
    x: np.ndarray = field(repr=False)
    buckets: tuple = ()
    link_time: np.ndarray = field(repr=False, default=None)
    classical: np.ndarray = field(repr=False, default=None)
    superdense: np.ndarray = field(repr=False, default=None)
    slow: np.ndarray = field(repr=False, default=None)
    idle: np.ndarray = field(repr=False, default=None)
    tail_gain: np.ndarray = field(repr=False, default=None)
    old_ratio: np.ndarray = field(repr=False, default=None)
    best: tuple = field(default=(), repr=False)

    ratio = property(lambda self: self.superdense / self.classical, doc="Superdense / classical.")
    slow_ratio = property(lambda self: self.slow / self.classical, doc="The same, slower qubits.")
    gain = property(lambda self: self.classical - self.superdense, doc="Seconds saved.")

    @property
    def best_ratio(self) -> tuple:
        """``(B, smallest superdense / classical ratio over the grid)`` per bucket count."""
        return tuple((b, float(r.min())) for b, r in zip(self.buckets, self.ratio))


def overlap_sweep(
    x: Sequence[float] | None = None,
    buckets: Sequence[int] = (1, 5, 25),
    *,
    workers: int = 8,
    model: str = "ResNet-50",
    bits: int = 16,
    bandwidth_gbps: float = 100.0,
    latency_us: float = 5.0,
    slow_cost: float = 2.0,
    backward_fraction: float = BACKWARD_FRACTION,
) -> OverlapSweep:
    """Overlapped iteration times of both rings (closed form of
    :func:`qring_edu.costmodel.bucketed_iteration_time`) against compute / W, ``x`` (default 121
    points in [0, 3]); ``slow_cost``: the ``qubit_cost`` of the extra superdense curve.

    Examples
    --------
    >>> sw = overlap_sweep([0.0, 0.9, 3.0], buckets=(5,))
    >>> [round(float(r), 3) for r in sw.ratio[0]]
    [1.003, 0.708, 0.97]
    """
    model, d, beta, alpha, _ = _link_settings(model, bandwidth_gbps, latency_us, 1.0)
    slow_cost = check_float(slow_cost, "slow_cost (link time per qubit / per bit)", 0.0)
    x = np.linspace(0.0, 3.0, 121) if x is None else np.asarray(x, dtype=float)
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)) or np.any(x < 0):
        raise ValueError("x must be a non-empty 1-D sequence of compute times >= 0 (units of W)")
    buckets = tuple(check_int(B, "buckets (each bucket count)", 1, d) for B in buckets)
    if not buckets:
        raise ValueError("buckets must name at least one bucket count")
    kw = dict(backward_fraction=backward_fraction, method="formula")

    def at(c, B, **options):
        return bucketed_iteration_time(c, workers, d, bits, alpha, beta, buckets=B, **kw, **options)

    link_time = np.array([at(0.0, B).online for B in buckets])
    out = np.empty((6, len(buckets), x.size))
    for i, B in enumerate(buckets):
        for j, c in enumerate(x * link_time[i]):
            cl, sd = at(c, B), at(c, B, transport="superdense")
            slow = at(c, B, transport="superdense", beta_qubit=slow_cost * beta)
            old = (
                iteration_time(c, workers, d, bits, alpha, beta, transport="superdense").total
                / iteration_time(c, workers, d, bits, alpha, beta).total
            )
            out[:, i, j] = cl.total, sd.total, slow.total, cl.idle, cl.tail - sd.tail, old
    best = tuple(bucketed_best_ratio(B, backward_fraction) for B in buckets)
    settings = (model, int(workers), int(bits), alpha, beta, slow_cost, x, buckets, link_time)
    return OverlapSweep(*settings, *out, best)
