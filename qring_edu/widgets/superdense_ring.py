"""Widgets of chapter 3, *The superdense ring*: :mod:`qring_edu.experiments.superdense_ring` and
:mod:`qring_edu.figures.superdense_ring` wired by :class:`~qring_edu.widgets.LiveFigure` (the
training section's: :mod:`qring_edu.widgets.training`)."""

from __future__ import annotations

import ipywidgets as widgets

from ..costmodel import BACKWARD_FRACTION
from ..experiments.superdense_ring import (
    channel_statistics,
    overlap_comparison,
)
from ..figures.superdense_ring import (
    plot_outcome_distributions,
    plot_overlap_timeline,
)
from ._base import LiveFigure, explorer, slider, wide_descriptions

__all__ = ["superdense_channel_widget", "overlap_widget"]


@explorer
def superdense_channel_widget(
    pair_fidelity: float = 0.9, n_symbols: int = 2000, seed: int = 0
) -> LiveFigure:
    """Pair fidelity F (a box: outside [0.25, 1] shows the library's message), symbols and seed
    -> decoded-outcome histograms (fast path, optionally Aer) against the exact distribution.

    Examples
    --------
    >>> live = superdense_channel_widget(0.9, n_symbols=400)
    >>> live.result
    ChannelStats(pair_fidelity=0.9, exact_error_rate=0.1, fast_error_rate=0.1225, fast_symbols=400, aer_error_rate=None)
    >>> live.controls["pair_fidelity"].value = 1.5
    >>> live.error
    'pair_fidelity must be in [0.25, 1], got 1.5'
    """
    controls = {
        "pair_fidelity": widgets.FloatText(
            value=pair_fidelity, step=0.01, description="pair fidelity F"
        ),
        "n_symbols": widgets.IntSlider(
            value=n_symbols, min=100, max=50_000, step=100, description="symbols"
        ),
        "seed": widgets.IntText(value=seed, description="seed"),
        "aer": widgets.Checkbox(value=False, description="also run Aer (≤ 2000 symbols)"),
    }
    wide_descriptions(controls)

    def compute(pair_fidelity, n_symbols, seed, aer):
        return channel_statistics(
            pair_fidelity, n_symbols, seed, aer_symbols=min(n_symbols, 2000) if aer else 0
        )

    grid = {
        "pair_fidelity": sorted({0.25, 0.5, 0.6, 0.9, 1.0, pair_fidelity}),
        "n_symbols": sorted({100, 500, 2000, 5000, 20000, n_symbols}),
    }
    title = "Superdense coding over noisy pairs"
    return LiveFigure(compute, plot_outcome_distributions, controls, title=title, grid=grid)


@explorer
def overlap_widget(
    compute_ms: float = 20.0,
    bandwidth_gbps: float = 100.0,
    latency_us: float = 5.0,
    buckets: int = 5,
    qubit_cost: float = 1.0,
    backward_fraction: float = BACKWARD_FRACTION,
) -> LiveFigure:
    """Compute time, link rate, latency, buckets, qubit cost and backward share -> one iteration
    of ResNet-50 on 8 workers, the same bucketed overlap for both rings
    (:func:`~qring_edu.experiments.superdense_ring.overlap_comparison`).

    Examples
    --------
    >>> live = overlap_widget(20.0)
    >>> round(live.result.ratio, 4)
    0.9667
    >>> live.controls["buckets"].value = 1
    >>> round(live.result.ratio, 4), live.result.binding
    (0.8686, 'critical path')
    """
    controls = {
        "compute_ms": slider("compute (ms)", compute_ms, 0, 3, 0.05, ".3g", log=True),
        "bandwidth_gbps": slider("link Gbit/s", bandwidth_gbps, 0, 3, 0.05, ".3g", log=True),
        "latency_us": slider("α (µs)", latency_us, 0, 3, 0.1, ".3g", log=True),
        "buckets": widgets.IntSlider(value=buckets, min=1, max=25, description="buckets B"),
        "qubit_cost": widgets.ToggleButtons(
            options=[("β_q = β", 1.0), ("β_q = 2β", 2.0)],
            value=qubit_cost,
            description="qubit time",
        ),
        "backward_fraction": slider("backward share", backward_fraction, 0.0, 1.0, 0.05),
    }
    wide_descriptions(controls)
    grid = {
        "compute_ms": sorted({1.0, 5.0, 20.0, 100.0, 1000.0, compute_ms}),
        "bandwidth_gbps": sorted({1.0, 10.0, 100.0, 300.0, 1000.0, bandwidth_gbps}),
    }
    title = "One iteration, the same overlap for both rings (ResNet-50, P = 8)"
    return LiveFigure(overlap_comparison, plot_overlap_timeline, controls, title=title, grid=grid)
