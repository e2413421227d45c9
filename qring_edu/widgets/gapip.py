"""Widgets of chapter 6, *Alignment and sign auditing* (presentation floor): factories only.

Each factory wires controls to one experiment of :mod:`qring_edu.experiments.alignment` and one
figure of :mod:`qring_edu.figures.alignment` through :class:`~qring_edu.widgets.LiveFigure`;
nothing here computes or displays anything.
"""

from __future__ import annotations

import math

import ipywidgets as widgets

from ..experiments.alignment import (
    MAX_WIDGET_LOG2_P,
    audit_explorer,
    gapip_curves,
    tieaudit_curves,
)
from ..figures.alignment import plot_audit_explorer, plot_gapip_curves, plot_tieaudit_scaling
from ._base import LiveFigure, wide_descriptions

__all__ = ["gapip_widget", "tieaudit_explorer_widget", "tieaudit_scaling_widget"]


def gapip_widget(
    tau: float = 0.05,
    log2_P: int = 12,
    trials: int = 6,
    seed: int = 0,
    *,
    confidence: str = "hoeffding",
    protocol: str = "quantum",
) -> LiveFigure:
    """Sliders for the margin ``tau`` and ``log2 P``, menus for the family of bounds (the same on
    both sides) and the quantum protocol: live cost curves of the quantum and the classical
    GapIP protocols down to ``tau`` and their decision accuracy.

    Examples
    --------
    >>> from qring_edu.widgets.alignment import gapip_widget
    >>> live = gapip_widget(0.1, log2_P=6, trials=2)
    >>> live.result.tau, live.result.scaling.P
    (0.1, 64)
    >>> live.controls["tau"].value = 0.3
    >>> live.result.scaling.taus.round(3).tolist()
    [0.4, 0.356, 0.317, 0.283, 0.252, 0.224, 0.2]
    """
    controls = {
        "tau": widgets.FloatLogSlider(
            value=tau,
            base=10,
            min=-2,
            max=math.log10(0.4),
            step=0.05,
            description="τ (smallest margin)",
            readout_format=".3f",
        ),
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
    w = LiveFigure(
        gapip_curves, plot_gapip_curves, controls, title="GapIP: communication against 1/τ"
    )
    return w.explore(
        gapip_widget,
        dict(
            tau=tau,
            log2_P=log2_P,
            trials=trials,
            seed=seed,
            confidence=confidence,
            protocol=protocol,
        ),
        {"tau": sorted({0.01, 0.02, 0.05, 0.1, 0.2, tau}), "confidence": None},
    )


def tieaudit_explorer_widget(
    log2_P: int = 5,
    alpha: float = 0.75,
    f: float = 0.25,
    eps: float = 0.1,
    noise: float = 0.0,
    seed: int = 0,
    *,
    attack: str = "uniform",
    test_strings: str = "random",
) -> LiveFigure:
    """Pick the size, the matched fraction, the disagreement ``f``, ``eps``, the noise, who
    applies it (every copy, or an adversary sparing the copies it recognises as tests) and
    whether the test strings are fixed or random: the sign pattern with the matching, the
    distribution of ``Y`` and the three estimates.

    Examples
    --------
    >>> from qring_edu.widgets.alignment import tieaudit_explorer_widget
    >>> live = tieaudit_explorer_widget(log2_P=4)
    >>> live.result
    AuditExplorer(P=16, pairs=6, f=0.333, quantum=0.374, entanglement_assisted=0.374, classical=0.333)
    >>> live.controls["eps"].value = 0.0
    >>> live.error
    'eps must be in (0, 1), got 0'
    """
    controls = {
        "log2_P": widgets.IntSlider(value=log2_P, min=2, max=7, description="log₂ P"),
        "alpha": widgets.FloatSlider(
            value=alpha, min=0.05, max=1.0, step=0.05, description="matched fraction α"
        ),
        "f": widgets.FloatSlider(
            value=f, min=0.0, max=1.0, step=0.05, description="disagreement f"
        ),
        "eps": widgets.FloatText(value=eps, step=0.01, description="ε"),
        "noise": widgets.FloatSlider(
            value=noise, min=0.0, max=0.8, step=0.05, description="depolarising noise"
        ),
        "seed": widgets.IntText(value=seed, description="seed"),
        "attack": widgets.Dropdown(
            options=[("noise on every copy", "uniform"), ("data-only attack", "data_only")],
            value=attack,
            description="channel",
        ),
        "test_strings": widgets.Dropdown(
            options=[("random (padded)", "random"), ("fixed (public)", "fixed")],
            value=test_strings,
            description="test strings",
        ),
    }
    wide_descriptions(controls)
    w = LiveFigure(
        audit_explorer,
        plot_audit_explorer,
        controls,
        title="TieAudit: signs, matching, measurement, estimates",
    )
    return w.explore(
        tieaudit_explorer_widget,
        dict(
            log2_P=log2_P,
            alpha=alpha,
            f=f,
            eps=eps,
            noise=noise,
            seed=seed,
            attack=attack,
            test_strings=test_strings,
        ),
        {
            "alpha": sorted({0.1, 0.25, 0.5, 0.75, 1.0, alpha}),
            "f": sorted({0.0, 0.25, 0.5, 0.75, 1.0, f}),
        },
    )


def tieaudit_scaling_widget(
    eps: float = 0.05, alpha: float = 1.0, delta: float = 0.05, *, bound: str = "bernstein"
) -> LiveFigure:
    """Sliders for ``eps``, ``alpha`` and ``delta`` and a menu for the family of bounds
    (Bernstein or Hoeffding; the exact planners take seconds per size): TieAudit cost against
    ``P`` and the crossover.

    Examples
    --------
    >>> from qring_edu.widgets.alignment import tieaudit_scaling_widget
    >>> live = tieaudit_scaling_widget()
    >>> live.result.crossover_P
    65536
    >>> live.controls["alpha"].value = 0.25
    >>> live.result.crossover_P
    262144
    """
    controls = {
        "eps": widgets.FloatLogSlider(
            value=eps, base=10, min=-2.3, max=-0.5, step=0.05, description="ε", readout_format=".3f"
        ),
        "alpha": widgets.FloatSlider(
            value=alpha, min=0.05, max=1.0, step=0.05, description="matched fraction α"
        ),
        "delta": widgets.FloatLogSlider(
            value=delta, base=10, min=-4, max=-0.5, step=0.1, description="δ", readout_format=".4f"
        ),
        "bound": widgets.Dropdown(
            options=[("Bernstein", "bernstein"), ("Hoeffding", "hoeffding")],
            value=bound,
            description="bounds",
        ),
    }
    wide_descriptions(controls)
    w = LiveFigure(
        tieaudit_curves, plot_tieaudit_scaling, controls, title="TieAudit: communication against P"
    )
    return w.explore(
        tieaudit_scaling_widget,
        dict(eps=eps, alpha=alpha, delta=delta, bound=bound),
        {
            "eps": sorted({0.01, 0.02, 0.05, 0.1, 0.2, eps}),
            "alpha": sorted({0.1, 0.25, 0.5, 0.75, 1.0, alpha}),
        },
    )
