"""Widget of the GapIP chapter (book/07_gapip.ipynb): :mod:`qring_edu.experiments.gapip` and
:mod:`qring_edu.figures.gapip` wired by :class:`~qring_edu.widgets.LiveFigure`."""

from __future__ import annotations

import math

import ipywidgets as widgets

from ..experiments.gapip import MAX_WIDGET_LOG2_P, gapip_curves
from ..figures.gapip import plot_gapip_curves
from ._base import LiveFigure, explorer, slider, wide_descriptions

__all__ = ["gapip_widget"]


@explorer
def gapip_widget(
    tau: float = 0.05,
    log2_P: int = 12,
    trials: int = 6,
    seed: int = 0,
    *,
    confidence: str = "hoeffding",
    protocol: str = "quantum",
) -> LiveFigure:
    """Margin ``tau``, ``log2 P``, the family of bounds (the same on both sides) and the quantum
    protocol -> cost curves of the quantum and the classical GapIP protocols down to ``tau`` and
    their decision accuracy.

    Examples
    --------
    >>> live = gapip_widget(0.1, log2_P=6, trials=2)
    >>> live.result.tau, live.result.scaling.P
    (0.1, 64)
    >>> live.controls["tau"].value = 0.3
    >>> live.result.scaling.taus.round(3).tolist()
    [0.4, 0.356, 0.317, 0.283, 0.252, 0.224, 0.2]
    """
    controls = {
        "tau": slider("τ (smallest margin)", tau, -2, math.log10(0.4), 0.05, ".3f", log=True),
        "log2_P": widgets.IntSlider(
            value=log2_P, min=4, max=MAX_WIDGET_LOG2_P, description="log₂ P"
        ),
        "trials": widgets.IntSlider(
            value=trials, min=2, max=40, step=2, description="instances per τ"
        ),
        "seed": widgets.IntText(value=seed, description="seed"),
        "confidence": widgets.Dropdown(
            options=[("Hoeffding", "hoeffding"), ("exact", "exact")],
            value=confidence,
            description="bounds (both sides)",
        ),
        "protocol": widgets.Dropdown(
            options=[("amplitude estimation", "quantum"), ("phase estimation", "phase_estimation")],
            value=protocol,
            description="quantum protocol",
        ),
    }
    wide_descriptions(controls)
    title = "GapIP: communication against 1/τ"
    grid = {"tau": sorted({0.01, 0.02, 0.05, 0.1, 0.2, tau}), "confidence": None}
    return LiveFigure(gapip_curves, plot_gapip_curves, controls, title=title, grid=grid)
