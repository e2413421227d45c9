"""Widgets of chapter 0, *Qubits for this book*: :mod:`qring_edu.experiments.qubits` and
:mod:`qring_edu.figures.qubits` wired by :class:`~qring_edu.widgets.LiveFigure` (angles in
degrees)."""

from __future__ import annotations

import math

import ipywidgets as widgets

from ..experiments import qubits as _experiments
from ..figures.qubits import plot_bell_pair, plot_noisy_pair, plot_qubit_measurement
from ._base import LiveFigure, explorer, slider, wide_descriptions

__all__ = ["qubit_measurement_widget", "bell_pair_widget", "noisy_pair_widget"]

_BASIS_OPTIONS = [("Z: |0⟩ or |1⟩", "Z"), ("X: |+⟩ or |−⟩", "X")]


@explorer
def qubit_measurement_widget(
    theta: float = 60.0, phi: float = 0.0, basis: str = "Z", shots: int = 100
) -> LiveFigure:
    """Bloch angles θ, φ, a basis and a number of shots -> the state on the Bloch sphere, the
    Born-rule probabilities and the frequencies of ``shots`` sampled outcomes (seed 0).

    Examples
    --------
    >>> live = qubit_measurement_widget()
    >>> live.result
    QubitMeasurement(theta=1.047, phi=0, basis='Z', shots=100, p0=0.75, f0=0.69)
    >>> live.controls["basis"].value = "X"
    >>> round(live.result.p0, 4)                 # (1 + sin 60° cos 0°)/2
    0.933
    """
    width = dict(layout=widgets.Layout(width="300px"))
    controls = {
        "theta": slider("θ (°)", theta, 0, 180, 15, ".0f", **width),
        "phi": slider("φ (°)", phi, 0, 270, 90, ".0f", **width),
        "basis": widgets.Dropdown(options=_BASIS_OPTIONS, value=basis, description="measure in"),
        "shots": widgets.ToggleButtons(options=[100, 10_000], value=shots, description="shots"),
    }
    wide_descriptions(controls)

    def compute(theta: float, phi: float, basis: str, shots: int) -> _experiments.QubitMeasurement:
        return _experiments.measure_qubit(
            math.radians(theta), math.radians(phi), basis=basis, shots=shots, seed=0
        )

    # Explorer: the angles and the basis (40 settings); the number of shots stays at its
    # default in the HTML book, to keep the build small.
    grid = {
        "theta": sorted({0.0, 60.0, 90.0, 120.0, 180.0, float(theta)}),
        "phi": None,
        "basis": None,
    }
    title = "Measuring one qubit: the Born rule and sampled outcomes"
    return LiveFigure(compute, plot_qubit_measurement, controls, title=title, grid=grid)


@explorer
def bell_pair_widget(x: bool = False, z: bool = False, basis: str = "Z") -> LiveFigure:
    """Alice's gates on her half of ``|Φ+⟩`` (X, then Z) and the basis both measure in -> the
    Bell state, the joint outcomes of 1,000 shots (seed 0) and how often the two bits agree.

    Examples
    --------
    >>> live = bell_pair_widget()
    >>> live.result.name, live.result.agreement
    ('Φ+', 1.0)
    >>> live.controls["z"].value = True
    >>> live.controls["basis"].value = "X"
    >>> live.result.name, live.result.agreement   # |Φ−⟩: opposite bits in the X basis
    ('Φ−', 0.0)
    """
    controls = {
        "x": widgets.Checkbox(value=x, description="Alice applies X", indent=False),
        "z": widgets.Checkbox(value=z, description="then Z", indent=False),
        "basis": widgets.Dropdown(
            options=_BASIS_OPTIONS, value=basis, description="both measure in"
        ),
    }
    wide_descriptions(controls)

    def compute(x: bool, z: bool, basis: str) -> _experiments.BellPairRun:
        return _experiments.run_bell_pair(int(x), int(z), basis=basis, shots=1000, seed=0)

    title, grid = "A Bell pair after Alice's gates", {"x": None, "z": None, "basis": None}
    return LiveFigure(compute, plot_bell_pair, controls, title=title, grid=grid)


@explorer
def noisy_pair_widget(pair_fidelity: float = 0.8, basis: str = "Z") -> LiveFigure:
    """Pair fidelity F and the basis both measure in -> the isotropic state's density matrix,
    its eigenvalues and entropies, and how often the two bits of 1,000 shots agree (seed 0).

    Examples
    --------
    >>> live = noisy_pair_widget()
    >>> round(live.result.agreement, 4)          # F + (1 − F)/3
    0.8667
    >>> live.controls["pair_fidelity"].value = 0.25
    >>> round(live.result.entropy, 4)            # the maximally mixed pair: 2 bits
    2.0
    """
    controls = {
        "pair_fidelity": slider(
            "pair fidelity F", pair_fidelity, 0.25, 1.0, 0.05, layout=widgets.Layout(width="360px")
        ),
        "basis": widgets.Dropdown(
            options=_BASIS_OPTIONS, value=basis, description="both measure in"
        ),
    }
    wide_descriptions(controls)

    def compute(pair_fidelity: float, basis: str) -> _experiments.BellPairRun:
        return _experiments.run_bell_pair(
            pair_fidelity=pair_fidelity, basis=basis, shots=1000, seed=0
        )

    grid = {
        "pair_fidelity": sorted({0.25, 0.5, 0.7, 0.8, 1.0, float(pair_fidelity)}),
        "basis": None,
    }
    title = "A noisy pair: the isotropic state"
    return LiveFigure(compute, plot_noisy_pair, controls, title=title, grid=grid)
