"""Widgets of chapter 3, *The superdense ring* (presentation layer).

Each factory returns a :class:`~qring_edu.widgets.LiveFigure` wired to a pure compute function
(below, also used directly by the chapter) and a pure plot function from
:mod:`qring_edu.figures.superdense`. Nothing here displays anything.

Message order: the two-bit message ``(x, z)`` has index ``m = 2 x + z`` and label ``"xz"``
(the Qiskit count key of :func:`qring_edu.superdense_circuit`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import ipywidgets as widgets
import numpy as np

from .._validate import check_choice, check_float, check_int
from ..costmodel import MODEL_SIZES, IterationTime, iteration_time
from ..superdense import superdense_outcome_probabilities, superdense_send, superdense_send_qiskit
from ..training import TrainingRun, train_data_parallel
from ..figures.superdense import (
    plot_iteration_timeline,
    plot_outcome_distributions,
    plot_training_runs,
)
from ._base import LiveFigure

__all__ = [
    "ChannelStats",
    "ErrorRateSweep",
    "TrainingComparison",
    "IterationComparison",
    "channel_statistics",
    "symbol_error_sweep",
    "training_comparison",
    "iteration_comparison",
    "plot_training_comparison",
    "plot_iteration_comparison",
    "superdense_channel_widget",
    "superdense_training_widget",
    "iteration_time_widget",
]

#: Upper limit on sampled symbols per call, so a typo cannot freeze a kernel.
MAX_SYMBOLS = 10_000_000
MAX_AER_SYMBOLS = 20_000


# --------------------------------------------------------------------------------------------
# The channel: exact vs fast path vs Aer
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ChannelStats:
    """Decoded-outcome statistics of superdense coding over isotropic pairs of fidelity F.

    ``exact[m, o]``: P(Bob decodes o | Alice sent m), from density-matrix evolution, shape (4, 4).
    ``fast_counts[m, o]``: counts from the fast path on uniformly random symbols, shape (4, 4).
    ``aer_counts``: the same from one Aer circuit per symbol, or ``None`` if not sampled.
    Indices ``m, o = 2 x + z`` (labels "00", "01", "10", "11" read "xz").
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

    Seeds derive from ``seed``; every point uses its own seed, so points are independent."""
    fast = [channel_statistics(f, n_symbols, seed + i).fast_error_rate
            for i, f in enumerate(fidelities)]
    aer = [channel_statistics(f, 1, seed + 1000 + i, aer_symbols=aer_symbols).aer_error_rate
           for i, f in enumerate(aer_fidelities)]
    return ErrorRateSweep(np.asarray(fidelities, dtype=float), np.asarray(fast, dtype=float),
                          int(n_symbols), np.asarray(aer_fidelities, dtype=float),
                          np.asarray(aer, dtype=float), int(aer_symbols))


def superdense_channel_widget(pair_fidelity: float = 0.9, n_symbols: int = 2000,
                              seed: int = 0) -> LiveFigure:
    """Type a pair fidelity F, pick the number of symbols and a seed: decoded-outcome histograms
    (fast path, optionally Aer) against the exact distribution, with the symbol error rates.

    The fidelity box accepts any number, so values outside [0.25, 1] show the library's error.
    """
    controls = {
        "pair_fidelity": widgets.FloatText(value=pair_fidelity, step=0.01,
                                           description="pair fidelity F"),
        "n_symbols": widgets.IntSlider(value=n_symbols, min=100, max=50_000, step=100,
                                       description="symbols"),
        "seed": widgets.IntText(value=seed, description="seed"),
        "aer": widgets.Checkbox(value=False, description="also run Aer (≤ 2000 symbols)"),
    }
    _style(controls)

    def compute(pair_fidelity, n_symbols, seed, aer):
        return channel_statistics(pair_fidelity, n_symbols, seed,
                                  aer_symbols=min(n_symbols, 2000) if aer else 0)

    return LiveFigure(compute, plot_outcome_distributions, controls,
                      title="Superdense coding over noisy pairs")


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


def plot_training_comparison(result: TrainingComparison):
    """Training curves of a :class:`TrainingComparison` (pure; see :func:`plot_training_runs`)."""
    return plot_training_runs(
        [result.classical, result.superdense],
        ["classical ring", f"superdense ring, F = {result.superdense.pair_fidelity:g}"])


def superdense_training_widget(pair_fidelity: float = 0.99, workers: int = 4, bits: int = 16,
                               seed: int = 0, steps: int = 100) -> LiveFigure:
    """Pair fidelity, workers, word size and seed -> loss, accuracy and replica disagreement of
    the superdense run against the classical run (about a second per setting).

    Word sizes too small for the number of workers show the library's error.
    """
    controls = {
        "pair_fidelity": widgets.FloatSlider(value=pair_fidelity, min=0.9, max=1.0, step=0.001,
                                             readout_format=".3f", description="pair fidelity F"),
        "workers": widgets.IntSlider(value=workers, min=2, max=6, description="workers P"),
        "bits": widgets.IntSlider(value=bits, min=2, max=24, description="bits per word"),
        "seed": widgets.IntText(value=seed, description="seed"),
    }
    _style(controls)

    def compute(pair_fidelity, workers, bits, seed):
        return training_comparison(pair_fidelity, workers, bits, steps=steps, seed=seed)

    return LiveFigure(compute, plot_training_comparison, controls,
                      title="Training over the superdense ring")


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


def plot_iteration_comparison(result: IterationComparison):
    """Timeline of an :class:`IterationComparison` (pure; see :func:`plot_iteration_timeline`)."""
    return plot_iteration_timeline(result.classical, result.superdense, unit="ms")


def iteration_time_widget(compute_ms: float = 100.0, workers: int = 8,
                          model: str = "ResNet-50") -> LiveFigure:
    """Compute time, workers, model, word size, link rate and the cost of a qubit relative to a
    bit -> one iteration as a timeline, classical vs superdense ring.

    The qubit-cost box accepts any number; a negative value shows the error.
    """
    controls = {
        "compute_ms": widgets.FloatLogSlider(value=compute_ms, base=10, min=0, max=4, step=0.05,
                                             readout_format=".3g",
                                             description="compute (ms)"),
        "workers": widgets.IntSlider(value=workers, min=2, max=64, description="workers P"),
        "model": widgets.Dropdown(options=list(MODEL_SIZES), value=model, description="model"),
        "bits": widgets.Dropdown(options=[8, 16, 32], value=16, description="bits per word"),
        "bandwidth_gbps": widgets.FloatLogSlider(value=100.0, base=10, min=0, max=3, step=0.05,
                                                 readout_format=".3g",
                                                 description="link Gbit/s"),
        "qubit_cost": widgets.FloatText(value=1.0, step=0.25,
                                        description="β qubit / β bit"),
    }
    _style(controls)
    return LiveFigure(iteration_comparison, plot_iteration_comparison,
                      controls, title="Iteration time: classical vs superdense ring")


def _style(controls: dict) -> None:
    """Wide enough descriptions for the labels used above."""
    for control in controls.values():
        control.style = {"description_width": "initial"}
