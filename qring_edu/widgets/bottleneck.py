"""Widgets of chapter 1, *The communication bottleneck*: :mod:`qring_edu.experiments.bottleneck`
and :mod:`qring_edu.figures.bottleneck` wired by :class:`~qring_edu.widgets.LiveFigure`."""

from __future__ import annotations

import ipywidgets as widgets

from ..costmodel import MODEL_SIZES
from ..experiments.bottleneck import RingState, alpha_beta_costs, ring_state
from ..figures.bottleneck import plot_ring_state, plot_time_vs_workers
from ._base import LiveFigure, explorer, parse_number

__all__ = ["ring_schedule_widget", "alpha_beta_widget", "MAX_DRAWN_WORKERS"]

#: Largest ring the schedule widget draws (beyond that the diagram is unreadable).
MAX_DRAWN_WORKERS = 8


@explorer
def ring_schedule_widget(
    workers: int = 4, step: int = 3, d: str = "10", bits: int = 16
) -> LiveFigure:
    """P, the step (its slider's range follows P: 0 .. 2(P-1)) and d (a text box) -> the ring
    all-reduce at that step.

    Examples
    --------
    >>> live = ring_schedule_widget()
    >>> live.result
    RingState(workers=4, d=10, bits=16, step=3, total_steps=6, phase='reduce-scatter')
    >>> live.controls["workers"].value = 3              # the step slider follows P
    >>> live.controls["step"].max, live.result
    (4, RingState(workers=3, d=10, bits=16, step=3, total_steps=4, phase='all-gather'))
    >>> live.controls["d"].value = "ten"
    >>> live.error
    "d must be an integer >= 1, got 'ten'"
    """
    p_slider = widgets.IntSlider(value=workers, min=2, max=MAX_DRAWN_WORKERS, description="P")
    step_slider = widgets.IntSlider(value=step, min=0, max=2 * (workers - 1), description="step")
    d_box = widgets.Text(
        value=str(d), description="d", placeholder="entries per gradient", continuous_update=False
    )

    # Registered before LiveFigure's observer, so the step range is updated first.
    def _follow_workers(change) -> None:
        step_slider.max = 2 * (change["new"] - 1)

    p_slider.observe(_follow_workers, names="value")

    def compute(workers: int, step: int, d: str) -> RingState:
        return ring_state(workers, step, parse_number(d, "d", lo=1, integer=True), bits)

    # Explorer: P = 2..6 and every step of each (steps beyond 2(P-1) have no picture).
    return LiveFigure(
        compute,
        plot_ring_state,
        {"workers": p_slider, "step": step_slider, "d": d_box},
        title="Ring all-reduce, step by step",
        grid={"workers": [2, 3, 4, 5, 6], "step": list(range(11))},
        follows=["step"],
    )


@explorer
def alpha_beta_widget(
    workers: int = 16,
    model: str = "ResNet-50",
    bits: int = 32,
    alpha_us: float = 10.0,
    bandwidth_gbps: str = "100",
) -> LiveFigure:
    """P, model, word size, latency (a number box) and bandwidth (a text box) -> α–β time of
    ring vs parameter server.

    Examples
    --------
    >>> live = alpha_beta_widget()
    >>> live.result
    CostSweep(label='ResNet-50', d=25557032, bits=32, alpha=1e-05, beta=1e-11, chosen=16, workers_range=(2, 128))
    >>> live.controls["bandwidth_gbps"].value = "0"
    >>> live.error, live.result
    ("bandwidth_gbps (link bandwidth in Gbit/s) must be a number > 0, got '0'", None)
    """
    controls = {
        "workers": widgets.IntSlider(value=workers, min=2, max=128, description="P"),
        "model": widgets.Dropdown(options=list(MODEL_SIZES), value=model, description="model"),
        "bits": widgets.Dropdown(options=[8, 16, 32], value=bits, description="bits"),
        "alpha_us": widgets.FloatText(value=alpha_us, description="α (µs)"),
        "bandwidth_gbps": widgets.Text(
            value=str(bandwidth_gbps), description="Gbit/s", continuous_update=False
        ),
    }

    def compute(workers, model, bits, alpha_us, bandwidth_gbps):
        bandwidth = parse_number(
            bandwidth_gbps, "bandwidth_gbps (link bandwidth in Gbit/s)", lo=0.0, lo_open=True
        )
        return alpha_beta_costs(workers, model, bits, alpha_us, bandwidth)

    title = "α–β time: ring vs parameter server"
    grid = {"model": None, "alpha_us": [1.0, 10.0, 100.0, 1000.0, 10000.0]}
    return LiveFigure(compute, plot_time_vs_workers, controls, title=title, grid=grid)
