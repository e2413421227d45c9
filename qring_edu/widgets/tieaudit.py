"""Widgets of the TieAudit chapter (book/08_tieaudit.ipynb): :mod:`qring_edu.experiments.tieaudit`
and :mod:`qring_edu.figures.tieaudit` wired by :class:`~qring_edu.widgets.LiveFigure`."""

from __future__ import annotations

import ipywidgets as widgets

from ..experiments.tieaudit import audit_explorer, noise_threshold_curves, tieaudit_curves
from ..figures.tieaudit import plot_audit_explorer, plot_noise_threshold, plot_tieaudit_scaling
from ._base import LiveFigure, explorer, slider, wide_descriptions

__all__ = ["tieaudit_explorer_widget", "tieaudit_scaling_widget", "noise_threshold_widget"]


@explorer
def tieaudit_explorer_widget(
    log2_P: int = 5,
    alpha: float = 0.75,
    f: float = 0.25,
    eps: float = 0.1,
    noise: float = 0.0,
    seed: int = 0,
    *,
    attack: str = "uniform",
) -> LiveFigure:
    """Size, matched fraction, disagreement ``f``, ``eps``, noise and who applies it (every
    copy, or an adversary sparing the copies it recognises as tests) -> the sign pattern with
    the matching, the distribution of ``Y`` and the three estimates with their intervals.

    Examples
    --------
    >>> live = tieaudit_explorer_widget(log2_P=4)
    >>> len(live.result.matching), round(live.result.f, 3)
    (6, 0.333)
    >>> live.controls["eps"].value = 0.0
    >>> live.error
    'eps must be in (0, 1), got 0'
    """
    controls = {
        "log2_P": widgets.IntSlider(value=log2_P, min=2, max=7, description="log₂ P"),
        "alpha": slider("matched fraction α", alpha, 0.05, 1.0, 0.05),
        "f": slider("disagreement f", f, 0.0, 1.0, 0.05),
        "eps": widgets.FloatText(value=eps, step=0.01, description="ε"),
        "noise": slider("depolarising noise", noise, 0.0, 0.8, 0.05),
        "seed": widgets.IntText(value=seed, description="seed"),
        "attack": widgets.Dropdown(
            options=[
                ("noise on every copy", "uniform"),
                ("data-only attack, twirl secret", "data_only"),
                ("data-only attack, twirl known", "knows_twirl"),
            ],
            value=attack,
            description="channel",
        ),
    }
    wide_descriptions(controls)
    grid = {
        "alpha": sorted({0.1, 0.25, 0.5, 0.75, 1.0, alpha}),
        "f": sorted({0.0, 0.25, 0.5, 0.75, 1.0, f}),
    }
    title = "TieAudit: signs, matching, measurement, estimates"
    return LiveFigure(audit_explorer, plot_audit_explorer, controls, title=title, grid=grid)


@explorer
def tieaudit_scaling_widget(
    eps: float = 0.05, alpha: float = 1.0, delta: float = 0.05, *, bound: str = "bernstein"
) -> LiveFigure:
    """``eps``, ``alpha``, ``delta`` and the family of bounds (Bernstein or Hoeffding; the
    exact planners take seconds per size) -> TieAudit's cost against ``P`` and the crossover.

    Examples
    --------
    >>> live = tieaudit_scaling_widget()
    >>> live.result.crossover_P
    65536
    >>> live.controls["alpha"].value = 0.25
    >>> live.result.crossover_P
    262144
    """
    controls = {
        "eps": slider("ε", eps, -2.3, -0.5, 0.05, ".3f", log=True),
        "alpha": slider("matched fraction α", alpha, 0.05, 1.0, 0.05),
        "delta": slider("δ", delta, -4, -0.5, 0.1, ".4f", log=True),
        "bound": widgets.Dropdown(
            options=[("Bernstein", "bernstein"), ("Hoeffding", "hoeffding")],
            value=bound,
            description="bounds",
        ),
    }
    wide_descriptions(controls)
    grid = {
        "eps": sorted({0.01, 0.02, 0.05, 0.1, 0.2, eps}),
        "alpha": sorted({0.1, 0.25, 0.5, 0.75, 1.0, alpha}),
    }
    title = "TieAudit: communication against P"
    return LiveFigure(tieaudit_curves, plot_tieaudit_scaling, controls, title=title, grid=grid)


@explorer
def noise_threshold_widget(fidelity: float = 0.9, eps: float = 0.1) -> LiveFigure:
    """Per-pair fidelity ``F`` and ``eps`` -> the verified protocol's qubits against ``log2 P``
    beside the classical bits, and the crossover against ``F`` (infinite at ``F* = 2^(-1/4)``).

    Examples
    --------
    >>> live = noise_threshold_widget()
    >>> live.result.crossover_log2_P
    53
    >>> live.controls["fidelity"].value = 0.95
    >>> live.result.crossover_log2_P
    27
    """
    controls = {
        "fidelity": slider("per-pair fidelity F", fidelity, 0.8, 1.0, 0.01),
        "eps": widgets.Dropdown(
            options=sorted({0.02, 0.05, 0.1, 0.2, eps}), value=eps, description="ε"
        ),
    }
    wide_descriptions(controls)
    grid = {
        "fidelity": sorted({0.8, 0.84, 0.86, 0.88, 0.9, 0.95, 1.0, fidelity}),
        "eps": sorted({0.02, 0.05, 0.1, 0.2, eps}),
    }
    title = "TieAudit under per-pair noise: the threshold F*"
    return LiveFigure(
        noise_threshold_curves, plot_noise_threshold, controls, title=title, grid=grid
    )
