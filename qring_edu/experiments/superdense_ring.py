"""Experiments of chapter 3, *The superdense ring*: the noisy superdense channel three ways, the
two rings' ledgers, training over both rings, and the iteration-time model.

Pure: every number comes from :mod:`qring_edu.superdense`, :mod:`qring_edu.ring`,
:mod:`qring_edu.training` and :mod:`qring_edu.costmodel`; results are frozen dataclasses
(figures: :mod:`qring_edu.figures.superdense_ring`).

Message order: the two-bit message ``(x, z)`` has index ``m = 2 x + z`` and label ``"xz"`` (the
Qiskit count key of :func:`qring_edu.superdense_circuit`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from .._validate import check_choice, check_float, check_int
from ..costmodel import MODEL_SIZES, IterationTime, iteration_time
from ..superdense import superdense_outcome_probabilities, superdense_send, superdense_send_qiskit
from ..training import TrainingRun, train_data_parallel
from ._base import LedgerComparison, Table, compare_ledgers

__all__ = [
    "MESSAGE_LABELS",
    "outcome_table",
    "ChannelStats",
    "channel_statistics",
    "ErrorRateSweep",
    "symbol_error_sweep",
    "LedgerComparison",
    "compare_ledgers",
    "TrainingComparison",
    "training_comparison",
    "training_table",
    "IterationComparison",
    "iteration_comparison",
    "ddp_loss_table",
    "ddp_ledger_table",
]

#: Labels of the messages/outcomes in index order ``m = 2 x + z`` (reads "xz").
MESSAGE_LABELS = ("00", "01", "10", "11")
#: Upper limit on sampled symbols per call, so a typo cannot freeze a kernel.
MAX_SYMBOLS = 10_000_000
MAX_AER_SYMBOLS = 20_000


# --------------------------------------------------------------------------------------------
# The channel: exact vs fast path vs Aer
# --------------------------------------------------------------------------------------------
def outcome_table(pair_fidelity: float = 1.0) -> Table:
    """Exact distribution of Bob's decoded message for each message Alice sends, from the Qiskit
    density-matrix evolution (:func:`qring_edu.superdense_outcome_probabilities`): one row per
    sent ``"xz"``, one column per decoded ``"xz"``, 3 decimals.

    Examples
    --------
    >>> print(outcome_table(0.7))
    sent   "00"   "01"   "10"   "11"
    "00"  0.700  0.100  0.100  0.100
    "01"  0.100  0.700  0.100  0.100
    "10"  0.100  0.100  0.700  0.100
    "11"  0.100  0.100  0.100  0.700
    """
    rows = []
    for m, label in enumerate(MESSAGE_LABELS):
        probs = superdense_outcome_probabilities(m >> 1, m & 1, pair_fidelity=pair_fidelity)
        rows.append((f'"{label}"', *(probs[(o >> 1, o & 1)] for o in range(4))))
    return Table(("sent",) + tuple(f'"{o}"' for o in MESSAGE_LABELS), tuple(rows),
                 ("",) + (".3f",) * 4)


@dataclass(frozen=True)
class ChannelStats:
    """Decoded-outcome statistics of superdense coding over isotropic pairs of fidelity F.

    ``exact[m, o]``: P(Bob decodes o | Alice sent m), from density-matrix evolution, shape (4, 4).
    ``fast_counts[m, o]``: counts from the fast path on uniformly random symbols, shape (4, 4).
    ``aer_counts``: the same from one Aer circuit per symbol, or ``None`` if not sampled.
    Indices ``m, o = 2 x + z`` (labels "00", "01", "10", "11" read "xz").

    Examples
    --------
    >>> channel_statistics(0.9, 2000, seed=0)
    ChannelStats(F=0.9, exact=0.1000, fast=0.0995 (2000 symbols), aer=None (0 symbols))
    """

    pair_fidelity: float
    exact: np.ndarray = field(repr=False)
    fast_counts: np.ndarray = field(repr=False)
    aer_counts: np.ndarray | None = field(repr=False, default=None)

    @property
    def exact_error_rate(self) -> float:
        """Symbol error rate for uniformly random messages: ``1 - mean_m exact[m, m]``."""
        return float(1.0 - np.mean(np.diag(self.exact)))

    @staticmethod
    def _rate(counts: np.ndarray | None) -> float | None:
        if counts is None or counts.sum() == 0:
            return None
        return float(1.0 - np.trace(counts) / counts.sum())

    @property
    def fast_error_rate(self) -> float:
        """Fraction of fast-path symbols decoded wrongly."""
        return self._rate(self.fast_counts)

    @property
    def aer_error_rate(self) -> float | None:
        """Fraction of Aer symbols decoded wrongly (``None`` if Aer was not run)."""
        return self._rate(self.aer_counts)

    @property
    def fast_symbols(self) -> int:
        return int(self.fast_counts.sum())

    @property
    def aer_symbols(self) -> int:
        return 0 if self.aer_counts is None else int(self.aer_counts.sum())

    def table(self) -> Table:
        """Symbol error rate of each path: exact, fast path, Aer (if run), with the sampled paths'
        distance from the exact rate in binomial standard errors ``sqrt(r (1 - r) / n)``."""
        r = self.exact_error_rate
        rows = [("exact", None, r, None)]
        for name, rate, n in (("fast path", self.fast_error_rate, self.fast_symbols),
                              ("Aer", self.aer_error_rate, self.aer_symbols)):
            if rate is None:
                continue
            se = np.sqrt(r * (1 - r) / n)
            rows.append((name, n, rate, (rate - r) / se if se > 0 else None))
        return Table(("path", "symbols", "symbol error rate", "standard errors from exact"),
                     tuple(rows), ("", ",d", ".4f", "+.2f"))

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        aer = "None" if self.aer_error_rate is None else f"{self.aer_error_rate:.4f}"
        return (f"ChannelStats(F={self.pair_fidelity:g}, exact={self.exact_error_rate:.4f}, "
                f"fast={self.fast_error_rate:.4f} ({self.fast_symbols} symbols), "
                f"aer={aer} ({self.aer_symbols} symbols))")


def _count_messages(sent: np.ndarray, received: np.ndarray) -> np.ndarray:
    """(4, 4) counts of (sent message, decoded message) over a symbol stream (x = even bits)."""
    m_sent = 2 * sent[0::2].astype(np.int64) + sent[1::2]
    m_recv = 2 * received[0::2].astype(np.int64) + received[1::2]
    return np.bincount(4 * m_sent + m_recv, minlength=16).reshape(4, 4)


def channel_statistics(pair_fidelity: float = 0.9, n_symbols: int = 2000, seed: int = 0, *,
                       aer_symbols: int = 0) -> ChannelStats:
    """Send uniformly random symbols three ways and tabulate what Bob decodes.

    ``n_symbols`` random two-bit symbols go through the fast path
    (:func:`qring_edu.superdense_send`), ``aer_symbols`` others through one Aer circuit each
    (:func:`qring_edu.superdense_send_qiskit`); the exact table comes from
    :func:`qring_edu.superdense_outcome_probabilities`. Deterministic given ``seed``.
    """
    exact = np.array([[superdense_outcome_probabilities(m >> 1, m & 1, pair_fidelity=pair_fidelity)
                       [(o >> 1, o & 1)] for o in range(4)] for m in range(4)])
    n_symbols = check_int(n_symbols, "n_symbols", 1, MAX_SYMBOLS)
    aer_symbols = check_int(aer_symbols, "aer_symbols", 0, MAX_AER_SYMBOLS)
    seed = check_int(seed, "seed", 0)
    rng = np.random.default_rng([seed, 0])
    sent = rng.integers(0, 2, size=2 * n_symbols, dtype=np.uint8)
    received = superdense_send(sent, pair_fidelity=pair_fidelity,
                               seed=np.random.default_rng([seed, 1]))
    aer_counts = None
    if aer_symbols:
        sent_aer = rng.integers(0, 2, size=2 * aer_symbols, dtype=np.uint8)
        received_aer = superdense_send_qiskit(sent_aer, pair_fidelity=pair_fidelity, seed=seed)
        aer_counts = _count_messages(sent_aer, received_aer)
    return ChannelStats(pair_fidelity=float(pair_fidelity), exact=exact,
                        fast_counts=_count_messages(sent, received), aer_counts=aer_counts)


@dataclass(frozen=True)
class ErrorRateSweep:
    """Measured symbol error rates over a grid of fidelities (fast path, optionally Aer)."""

    fidelities: np.ndarray
    fast_rates: np.ndarray
    fast_symbols: int
    aer_fidelities: np.ndarray
    aer_rates: np.ndarray
    aer_symbols: int

    def __repr__(self) -> str:
        return (f"ErrorRateSweep({len(self.fidelities)} fast points x {self.fast_symbols} symbols, "
                f"{len(self.aer_fidelities)} Aer points x {self.aer_symbols} symbols)")


def symbol_error_sweep(fidelities: Sequence[float], n_symbols: int = 20_000, *,
                       aer_fidelities: Sequence[float] = (), aer_symbols: int = 0,
                       seed: int = 0) -> ErrorRateSweep:
    """Symbol error rate of the fast path at each F in ``fidelities`` (``n_symbols`` each) and of
    the Aer path at each F in ``aer_fidelities`` (``aer_symbols`` each).

    Seeds derive from ``seed``; every point uses its own seed, so points are independent.

    Examples
    --------
    >>> symbol_error_sweep([0.5, 1.0], 1000).fast_rates.tolist()
    [0.482, 0.0]
    """
    fast = [channel_statistics(f, n_symbols, seed + i).fast_error_rate
            for i, f in enumerate(fidelities)]
    aer = [channel_statistics(f, 1, seed + 1000 + i, aer_symbols=aer_symbols).aer_error_rate
           for i, f in enumerate(aer_fidelities)]
    return ErrorRateSweep(np.asarray(fidelities, dtype=float), np.asarray(fast, dtype=float),
                          int(n_symbols), np.asarray(aer_fidelities, dtype=float),
                          np.asarray(aer, dtype=float), int(aer_symbols))


# --------------------------------------------------------------------------------------------
# Training over the two rings
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TrainingComparison:
    """The same data-parallel training run over the classical and the superdense ring."""

    classical: TrainingRun
    superdense: TrainingRun

    @property
    def identical(self) -> bool:
        """True when the final weights of the two runs are bit-for-bit equal."""
        return bool(np.array_equal(self.classical.weights, self.superdense.weights))

    def __repr__(self) -> str:
        return (f"TrainingComparison(identical={self.identical}, "
                f"classical_loss={self.classical.final_loss:.4f}, "
                f"superdense_loss={self.superdense.final_loss:.4f}, "
                f"divergence={self.superdense.divergence:.3g})")


def training_comparison(pair_fidelity: float = 0.99, workers: int = 4, bits: int = 16, *,
                        steps: int = 100, seed: int = 0) -> TrainingComparison:
    """Train twice with :func:`qring_edu.train_data_parallel` (same data, initial weights and
    batches): over the classical ring and over the superdense ring with pairs of fidelity F."""
    classical = train_data_parallel(workers=workers, steps=steps, transport="classical",
                                    bits=bits, seed=seed)
    superdense = train_data_parallel(workers=workers, steps=steps, transport="superdense",
                                     pair_fidelity=pair_fidelity, bits=bits, seed=seed)
    return TrainingComparison(classical, superdense)


def training_table(runs: Mapping[str, TrainingRun]) -> Table:
    """One row per labelled run: final loss, final accuracy (mean over replicas) and the replica
    divergence ``max |w_k - w_0|``.

    Examples
    --------
    >>> run = train_data_parallel(steps=5, seed=0)
    >>> training_table({"classical": run}).columns
    ('run', 'final loss', 'final accuracy', 'replica divergence max|w_k - w_0|')
    """
    rows = []
    for label, run in runs.items():
        if not isinstance(run, TrainingRun):
            raise TypeError(f"runs must map labels to TrainingRun, got {type(run).__name__}")
        rows.append((str(label), run.final_loss, run.final_accuracy, run.divergence))
    return Table(("run", "final loss", "final accuracy", "replica divergence max|w_k - w_0|"),
                 tuple(rows), ("", ".4f", ".3f", ".3g"))


# --------------------------------------------------------------------------------------------
# Iteration time
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class IterationComparison:
    """Iteration-time model (:func:`qring_edu.iteration_time`) for both transports."""

    classical: IterationTime
    superdense: IterationTime

    @property
    def speedup(self) -> float:
        """Classical iteration time divided by superdense iteration time."""
        return self.classical.total / self.superdense.total

    def __repr__(self) -> str:
        return (f"IterationComparison(classical={self.classical.total:.4g} s, "
                f"superdense={self.superdense.total:.4g} s, ratio={self.speedup:.3f})")


def iteration_comparison(compute_ms: float = 100.0, workers: int = 8,
                         model: str = "ResNet-50", bits: int = 16, *,
                         bandwidth_gbps: float = 100.0, latency_us: float = 5.0,
                         qubit_cost: float = 1.0) -> IterationComparison:
    """Iteration time of a model of ``MODEL_SIZES[model]`` parameters on ``workers`` workers.

    ``compute_ms``: forward + backward time (ms); ``bandwidth_gbps``: classical link rate, so
    ``beta = 1e-9 / bandwidth_gbps`` seconds per bit; ``latency_us``: ``alpha`` in µs;
    ``qubit_cost``: link time of one qubit in units of one bit's (``beta_qubit = qubit_cost *
    beta``; 1 = a qubit is as cheap as a bit, 2 = it costs as much as the two bits it carries).

    Examples
    --------
    >>> iteration_comparison(20.0)
    IterationComparison(classical=0.02723 s, superdense=0.02365 s, ratio=1.151)
    """
    model = check_choice(model, "model", tuple(MODEL_SIZES))
    compute_ms = check_float(compute_ms, "compute_ms (compute time in ms)", 0.0)
    bandwidth = check_float(bandwidth_gbps, "bandwidth_gbps", 0.0, lo_open=True)
    latency = check_float(latency_us, "latency_us", 0.0)
    qubit_cost = check_float(qubit_cost, "qubit_cost (link time per qubit / per bit)", 0.0)
    beta = 1e-9 / bandwidth
    args = (compute_ms * 1e-3, workers, MODEL_SIZES[model], bits, latency * 1e-6, beta)
    return IterationComparison(
        iteration_time(*args, transport="classical"),
        iteration_time(*args, transport="superdense", beta_qubit=qubit_cost * beta))


# --------------------------------------------------------------------------------------------
# The DDP hook's demo run (qring_edu.ddp.ddp_demo) as tables
# --------------------------------------------------------------------------------------------
def ddp_loss_table(demo, steps: Sequence[int] = (0, 10, 40)) -> Table:
    """One row per run of a :class:`qring_edu.ddp.DDPDemo`: the mean loss over the replicas at
    the given ``steps``, the largest deviation of the averaged gradient from the built-in
    all-reduce's, and the final replica divergence ``max |w_1 - w_0|``."""
    rows = []
    for label in demo.labels:
        loss = demo.losses[label].mean(axis=1)  # mean over the replicas
        rows.append((label, *(float(loss[s]) for s in steps), float(demo.grad_error[label]),
                     float(demo.divergence[label])))
    head = ("run",) + tuple(f"mean loss at step {s}" for s in steps) + \
        ("max|avg grad - built-in|", "max|w_1 - w_0|")
    return Table(head, tuple(rows), ("",) + (".4f",) * len(steps) + (".1e", ".3g"))


def ddp_ledger_table(demo) -> Table:
    """One row per (run, rank) of a :class:`qring_edu.ddp.DDPDemo`: what crossed that rank's
    incoming link over the whole run (online bits and qubits, pairs, offline qubits, side bits of
    the message headers, bits flipped by noisy pairs)."""
    rows = []
    for label, reports in demo.reports.items():
        for rep in reports:
            rows.append((label, f"{rep.link[0]}->{rep.link[1]}", rep.online_bits, rep.online_qubits,
                         rep.ebits, rep.offline_qubits, rep.side_bits, rep.flipped_bits))
    return Table(("run", "link", "online bits", "online qubits", "pairs", "offline qubits",
                  "side bits", "flipped bits"), tuple(rows),
                 ("", "", ",d", ",d", ",d", ",d", ",d", "d"))
