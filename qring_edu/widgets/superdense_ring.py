"""Widgets of chapter 3, *The superdense ring* (presentation floor): factories only.

Each factory wires controls to one experiment of :mod:`qring_edu.experiments.superdense_ring`
and one figure of :mod:`qring_edu.figures.superdense_ring` through
:class:`~qring_edu.widgets.LiveFigure`; nothing here computes or displays anything.
"""

from __future__ import annotations

import ipywidgets as widgets

from ..costmodel import MODEL_SIZES
from ..experiments.superdense_ring import (
    channel_statistics,
    iteration_comparison,
    training_comparison,
)
from ..figures.superdense_ring import (
    plot_iteration_comparison,
    plot_outcome_distributions,
    plot_training_comparison,
)
from ._base import LiveFigure, wide_descriptions

__all__ = ["superdense_channel_widget", "superdense_training_widget", "iteration_time_widget"]


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
    wide_descriptions(controls)

    def compute(pair_fidelity, n_symbols, seed, aer):
        return channel_statistics(pair_fidelity, n_symbols, seed,
                                  aer_symbols=min(n_symbols, 2000) if aer else 0)

    return LiveFigure(compute, plot_outcome_distributions, controls,
                      title="Superdense coding over noisy pairs")


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
    wide_descriptions(controls)

    def compute(pair_fidelity, workers, bits, seed):
        return training_comparison(pair_fidelity, workers, bits, steps=steps, seed=seed)

    return LiveFigure(compute, plot_training_comparison, controls,
                      title="Training over the superdense ring")


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
    wide_descriptions(controls)
    return LiveFigure(iteration_comparison, plot_iteration_comparison,
                      controls, title="Iteration time: classical vs superdense ring")
