"""Widgets of the chapter *Noisy links*: :mod:`qring_edu.experiments.noisy_links` and
:mod:`qring_edu.figures.noisy_links` wired by :class:`~qring_edu.widgets.LiveFigure`."""

from __future__ import annotations

import ipywidgets as widgets

from ..experiments.noisy_links import loss_sweep, net_factor_sweep, protected_training
from ..figures.noisy_links import plot_loss, plot_net_factors, plot_protected_training
from ..protection import SCHEMES
from ._base import LiveFigure, explorer, slider, wide_descriptions

__all__ = ["net_factor_widget", "loss_widget", "protected_training_widget"]


@explorer
def net_factor_widget(
    channel_fidelity: float = 0.99, scheme: str = "fec", block_length: int = 255, rounds: int = 1
) -> LiveFigure:
    """Channel fidelity, scheme, Reed–Solomon block length (32–255 bytes) and distillation
    rounds -> every scheme's net online factor against the bound C_E(F_eff), and the chosen
    scheme's at the chosen F (:func:`~qring_edu.experiments.noisy_links.net_factor_sweep`).

    Examples
    --------
    >>> live = net_factor_widget()
    >>> live.result
    NetFactorSweep(scheme='fec', channel_fidelity=0.99, block_length=255, rounds=1, pair_fidelity=None, factor=1.461)
    >>> live.controls["scheme"].value = "distill+fec"
    >>> live.result
    NetFactorSweep(scheme='distill+fec', channel_fidelity=0.99, block_length=255, rounds=1, pair_fidelity=None, factor=1.519)
    """
    controls = {
        "channel_fidelity": slider("fidelity F", channel_fidelity, 0.9, 1.0, 0.001, ".3f"),
        "scheme": widgets.Dropdown(options=list(SCHEMES), value=scheme, description="scheme"),
        "block_length": widgets.IntSlider(
            value=block_length, min=32, max=255, step=1, description="block length n (bytes)"
        ),
        "rounds": widgets.IntSlider(value=rounds, min=1, max=3, description="distillation rounds"),
    }
    wide_descriptions(controls)
    grid = {
        "channel_fidelity": sorted({0.95, 0.97, 0.98, 0.99, 0.999, channel_fidelity}),
        "scheme": None,
    }
    title = "Net online factor of each protection scheme"
    return LiveFigure(net_factor_sweep, plot_net_factors, controls, title=title, grid=grid)


@explorer
def loss_widget(channel_fidelity: float = 0.99, efficiency: float = 1.0) -> LiveFigure:
    """Channel fidelity and source × detector efficiency (η at zero distance) -> the net
    online factor against fibre length (0.2 dB/km) and η, with both classical baselines.

    Examples
    --------
    >>> live = loss_widget()
    >>> live.result
    LossSweep(channel_fidelity=0.99, source_efficiency=1, detector_efficiency=1, attenuation_db_per_km=0.2, break_even_km=15.05)
    >>> live.controls["efficiency"].value = 0.45
    >>> live.result.break_even_km
    nan
    """
    controls = {
        "channel_fidelity": slider("fidelity F", channel_fidelity, 0.98, 1.0, 0.001, ".3f"),
        "efficiency": slider("source × detector efficiency", efficiency, 0.05, 1.0, 0.01),
    }
    wide_descriptions(controls)

    def compute(channel_fidelity, efficiency):
        return loss_sweep(channel_fidelity, source_efficiency=efficiency)

    grid = {
        "channel_fidelity": sorted({0.98, 0.99, 0.995, 0.999, 1.0, channel_fidelity}),
        "efficiency": sorted({0.1, 0.25, 0.45, 0.6, 0.8, 1.0, efficiency}),
    }
    title = "Net online factor of a lossy link"
    return LiveFigure(compute, plot_loss, controls, title=title, grid=grid)


@explorer
def protected_training_widget(
    channel_fidelity: float = 0.99, protection: str = "fec", steps: int = 150, seed: int = 0
) -> LiveFigure:
    """Channel fidelity and protection -> training over the classical, the protected and the
    unprotected noisy superdense ring (a few seconds per setting).

    Examples
    --------
    >>> live = protected_training_widget(steps=5)
    >>> live.result
    ProtectedTraining(channel_fidelity=0.99, protection='fec', identical=True, unprotected_loss=0.3756)
    """
    controls = {
        "channel_fidelity": slider("fidelity F", channel_fidelity, 0.95, 1.0, 0.001, ".3f"),
        "protection": widgets.Dropdown(
            options=list(SCHEMES), value=protection, description="protection"
        ),
    }
    wide_descriptions(controls)

    def compute(channel_fidelity, protection):
        return protected_training(channel_fidelity, protection, steps=steps, seed=seed)

    title = "Training over a protected and an unprotected noisy ring"
    grid = {"protection": None}  # a few seconds per setting: every protection at the chosen F
    return LiveFigure(compute, plot_protected_training, controls, title=title, grid=grid)
