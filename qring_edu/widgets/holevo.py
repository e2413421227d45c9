"""Widgets of chapter 2, *The Holevo bound*: :mod:`qring_edu.experiments.holevo` and
:mod:`qring_edu.figures.holevo` wired by :class:`~qring_edu.widgets.LiveFigure`."""

from __future__ import annotations

import ipywidgets as widgets

from ..experiments import holevo as _experiments
from ..figures.holevo import plot_dense_coding, plot_ensemble_analysis, plot_ledger_floor
from ._base import LiveFigure, explorer, parse_number, parse_numbers, slider

__all__ = ["ensemble_designer_widget", "dense_coding_widget", "ledger_floor_widget"]


class _PresetLiveFigure(LiveFigure):
    """A LiveFigure whose ``preset`` dropdown rewrites several controls and then redraws once."""

    _hold = False

    def _on_change(self, change) -> None:
        if self._hold or change.get("owner") is self.controls.get("preset"):
            return
        super()._on_change(change)


@explorer
def ensemble_designer_widget(
    preset: str = "trine", meas_theta: float = 0.0, meas_phi: float = 0.0
) -> LiveFigure:
    """Up to four qubit states (``probs``: one probability per state; Bloch angles in degrees,
    ``radius``: their Bloch length) and a measurement direction -> χ, I_acc and the
    measurement's I; ``preset`` loads a :data:`~qring_edu.experiments.holevo.DESIGNER_PRESETS`.

    Examples
    --------
    >>> live = ensemble_designer_widget()
    >>> live.result
    EnsembleAnalysis(chi=1, measured=0.4591, name='your ensemble', accessible_value=0.585)
    >>> live.controls["probs"].value = "0.5, 0.6, 0.1"
    >>> live.error
    'probs must sum to 1 (tolerance 1e-6), got 1.2'
    """
    presets = _experiments.DESIGNER_PRESETS
    if preset not in presets:
        raise ValueError(f"preset must be one of {', '.join(map(repr, presets))}, got {preset!r}")
    probs_text, angles = presets[preset]
    full = list(angles) + [(90.0, 90.0)] * (_experiments.MAX_DESIGNER_STATES - len(angles))
    style = dict(style={"description_width": "initial"}, layout=widgets.Layout(width="230px"))
    controls: dict[str, widgets.ValueWidget] = {
        "preset": widgets.Dropdown(
            options=list(presets) + ["custom"], value=preset, description="load preset"
        ),
        "probs": widgets.Text(
            value=probs_text,
            description="probs",
            continuous_update=False,
            placeholder="e.g. 0.5, 0.25, 0.25",
        ),
    }
    for i, (t, f) in enumerate(full):
        controls[f"theta{i}"] = slider(f"θ{i} (°)", t, 0, 180, 1, ".0f", **style)
        controls[f"phi{i}"] = slider(f"φ{i} (°)", f, 0, 360, 1, ".0f", **style)
    controls["radius"] = slider("Bloch length", 1.0, 0.0, 1.0, 0.05, **style)
    controls["meas_theta"] = slider("measure θ (°)", meas_theta, 0, 180, 1, ".0f", **style)
    controls["meas_phi"] = slider("measure φ (°)", meas_phi, 0, 360, 1, ".0f", **style)

    def compute(preset: str, probs, **values) -> _experiments.EnsembleAnalysis:
        return _experiments.design_ensemble(parse_numbers(probs, "probs"), **values)

    # Explorer: every preset ("custom" is whatever the reader typed, not a setting) and the
    # measurement's polar angle.
    grid = {"preset": list(presets), "meas_theta": [0.0, 45.0, 90.0, 135.0, 180.0]}
    title = "Ensemble designer: χ, accessible information and one measurement"
    w = _PresetLiveFigure(compute, plot_ensemble_analysis, controls, title=title, grid=grid)
    state_controls = [
        c
        for name, c in controls.items()
        if name.startswith(("theta", "phi")) or name in ("probs", "radius")
    ]

    def _load(change) -> None:
        if w._hold or change["new"] not in presets:
            return
        text, angs = presets[change["new"]]
        w._hold = True
        try:
            controls["probs"].value = text
            for i, (t, f) in enumerate(angs):
                controls[f"theta{i}"].value = t
                controls[f"phi{i}"].value = f
            controls["radius"].value = 1.0
        finally:
            w._hold = False
        w.refresh()

    def _to_custom(_change) -> None:
        if not w._hold:  # "custom" loads nothing, and the widget ignores its preset control
            controls["preset"].value = "custom"

    controls["preset"].observe(_load, names="value")
    for c in state_controls:
        c.observe(_to_custom, names="value")
    return w


@explorer
def dense_coding_widget(pair_fidelity: float = 0.9) -> LiveFigure:
    """Pair fidelity -> capacity of dense coding over the isotropic pair against the classical
    1 bit per qubit.

    Examples
    --------
    >>> live = dense_coding_widget()
    >>> live.controls["pair_fidelity"].value = 0.8
    >>> live.result                    # below the threshold: less than one bit per qubit
    DenseCodingSweep(pair_fidelity=0.8, chosen_capacity=0.9611, chosen_chi=0.9611, threshold=0.8107)
    """
    F = slider("pair fidelity F", pair_fidelity, 0.25, 1.0, 0.005, ".3f")
    F.layout.width, F.style = "420px", {"description_width": "initial"}
    grid = {"pair_fidelity": sorted({0.25, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0, pair_fidelity})}
    title = "Dense coding with a noisy pair: bits per qubit sent"
    return LiveFigure(
        _experiments.dense_coding_sweep,
        plot_dense_coding,
        {"pair_fidelity": F},
        title=title,
        grid=grid,
    )


@explorer
def ledger_floor_widget(d: str = "1000", bits: int = 16) -> LiveFigure:
    """Words per gradient (text) and word size -> per-link classical bits, superdense online
    qubits and the Holevo floor for P = 2..12.

    Examples
    --------
    >>> live = ledger_floor_widget(d="100")
    >>> live.result, live.result.online_qubits[:3].tolist()
    (LedgerFloorSweep(d=100, bits=16, cut_floor=800, workers_range=(2, 12)), [800, 1072, 1200])
    """
    controls = {
        "d": widgets.Text(value=str(d), description="d (words)", continuous_update=False),
        "bits": widgets.IntSlider(value=bits, min=2, max=32, description="bits per word"),
    }
    controls["bits"].style = {"description_width": "initial"}

    def compute(d, bits: int) -> _experiments.LedgerFloorSweep:
        return _experiments.ledger_floor_sweep(parse_number(d, "d", lo=1, integer=True), bits)

    grid = {
        "d": sorted({"10", "1000", "100000", str(d)}, key=len),
        "bits": sorted({4, 8, 16, 24, 32, bits}),
    }
    title = "The ring's online ledger against the Holevo floor"
    return LiveFigure(compute, plot_ledger_floor, controls, title=title, grid=grid)
