"""Figures of chapter 0, *Qubits for this book* (presentation floor; book/00_qubits.ipynb).

Every function is pure: it takes a result of :mod:`qring_edu.experiments.qubits` and returns a new
``matplotlib.figure.Figure``; nothing is computed here, nothing is displayed and no pyplot state is
touched. Circuits are drawn by :func:`qring_edu.figures._base.plot_circuits`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from ._base import label_bars

if TYPE_CHECKING:  # annotations only: the results come from the experiments floor
    from ..experiments.qubits import BellPairRun, QubitMeasurement

__all__ = ["COLOURS", "plot_qubit_measurement", "plot_bell_pair", "plot_noisy_pair"]

#: One colour per quantity, used consistently across the chapter.
COLOURS = {
    "state": "#d95f0e",
    "axis": "#2c7fb8",
    "exact": "#2c7fb8",
    "sampled": "#fdae6b",
    "sphere": "#bbbbbb",
}
_BELL_ORDER = ("Φ+", "Φ−", "Ψ+", "Ψ−")
_GATES = {(0, 0): "no gate", (0, 1): "Z", (1, 0): "X", (1, 1): "X, then Z"}


# -- One qubit -------------------------------------------------------------------------------------
def _bloch_sphere(ax, bloch: np.ndarray, basis: str) -> None:
    """Wireframe Bloch sphere with the state's arrow and the measured axis (3-D axes)."""
    t = np.linspace(0, 2 * np.pi, 121)
    c, s, o = np.cos(t), np.sin(t), np.zeros_like(t)
    for xs, ys, zs in ((c, s, o), (c, o, s), (o, c, s)):  # equator and two meridians
        ax.plot(xs, ys, zs, color=COLOURS["sphere"], linewidth=0.8)
    for axis in np.eye(3):
        ax.plot(*np.stack([-axis, axis], axis=1), color="#dddddd", linewidth=0.8)
    places = ((0, 0, 1.18), (0, 0, -1.22), (1.3, 0, 0), (-1.3, 0, 0), (0, 1.25, 0))
    for (px, py, pz), text in zip(places, ("|0⟩", "|1⟩", "|+⟩", "|−⟩", "|+i⟩")):
        ax.text(px, py, pz, text, ha="center", va="center", fontsize=10, color="#444444")
    measured = np.array([0, 0, 1.0]) if basis == "Z" else np.array([1.0, 0, 0])
    style = dict(color=COLOURS["axis"], linewidth=2.5, label=f"measured axis ({basis} basis)")
    ax.plot(*np.stack([-measured, measured], axis=1), **style)
    ax.plot(*np.stack([np.zeros(3), bloch], axis=1), color=COLOURS["state"], linewidth=2.5)
    ax.scatter(*bloch, color=COLOURS["state"], s=40, depthshade=False, label="the state")
    # The Born rule on the sphere: p_0 = (1 + r·n)/2, read off the state's shadow on the axis.
    foot = (bloch @ measured) * measured
    style = dict(color=COLOURS["state"], linestyle=":", linewidth=1.5)
    ax.plot(*np.stack([bloch, foot], axis=1), label="its shadow on the axis", **style)
    ax.set(xlim=(-1, 1), ylim=(-1, 1), zlim=(-1, 1))
    ax.set_box_aspect((1, 1, 1), zoom=1.35)
    ax.view_init(elev=18, azim=-60)
    ax.set_axis_off()
    ax.legend(loc="upper left", fontsize=8, frameon=False)


def plot_qubit_measurement(run: QubitMeasurement) -> Figure:
    """The qubit of ``run`` on the Bloch sphere with the measured axis, and the Born-rule
    probabilities (±2 standard errors) next to the sampled frequencies.

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu.experiments.qubits import measure_qubit
    >>> fig = plot_qubit_measurement(measure_qubit(np.pi / 3, shots=100))
    >>> fig.axes[1].get_title()
    'Z basis, 100 shots'
    """
    fig = Figure(figsize=(10.0, 4.8))
    grid = fig.add_gridspec(1, 2, width_ratios=[1.1, 1])
    ax_sphere = fig.add_subplot(grid[0, 0], projection="3d")
    ax_bar = fig.add_subplot(grid[0, 1])
    _bloch_sphere(ax_sphere, run.bloch, run.basis)

    pos = np.arange(2)
    names = [f"|{label}⟩" for label in run.labels]
    p, freq, err = run.probabilities, run.frequencies, 2 * run.standard_errors
    _pair_bars(ax_bar, pos, p, freq, ("Born rule", f"sampled ({run.shots:,} shots)"))
    ax_bar.errorbar(pos - 0.18, p, yerr=err, fmt="none", ecolor="black", capsize=4, linewidth=1)
    for k in range(2):
        text, y = f"p = {p[k]:.3f}\nfreq. = {freq[k]:.3f}", max(p[k] + err[k], freq[k]) + 0.04
        ax_bar.text(pos[k], y, text, ha="center", va="bottom", fontsize=9)
    ax_bar.set_xticks(pos, [f"outcome {k}: {n}" for k, n in enumerate(names)])
    ax_bar.set(ylim=(0, 1.3), ylabel="probability / frequency")
    ax_bar.legend(loc="upper center", fontsize=8, ncol=2, frameon=False)
    ax_bar.set_title(f"{run.basis} basis, {run.shots:,} shots", fontsize=10)
    deg = 180 / np.pi
    title = f"θ = {run.theta * deg:.0f}°, φ = {run.phi * deg:.0f}°:  "
    title += f"cos(θ/2)|0⟩ + e^(iφ) sin(θ/2)|1⟩ measured in the {run.basis} basis"
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def _pair_bars(ax, pos, exact, sampled, labels: tuple[str, str]) -> None:
    """Exact (blue, left) and sampled (orange, right) bars side by side at ``pos``."""
    ax.bar(pos - 0.18, exact, width=0.36, color=COLOURS["exact"], label=labels[0])
    ax.bar(pos + 0.18, sampled, width=0.36, color=COLOURS["sampled"], label=labels[1])


# -- Two qubits ------------------------------------------------------------------------------------
def _joint_outcomes(ax, run: BellPairRun) -> None:
    """2 x 2 table of the sampled joint outcomes (Alice's bit down, Bob's across)."""
    labels = ("0", "1") if run.basis == "Z" else ("+", "−")
    ax.imshow(run.counts / run.shots, cmap="Blues", vmin=0, vmax=1)
    for a in range(2):
        for b in range(2):
            colour = "white" if run.counts[a, b] / run.shots > 0.6 else "black"
            text = f"{run.counts[a, b]:,} shots\np = {run.probabilities[a, b]:.3f}"
            ax.text(b, a, text, ha="center", va="center", fontsize=9, color=colour)
    ax.set_xticks([0, 1], [f"Bob {v}" for v in labels])
    ax.set_yticks([0, 1], [f"Alice {v}" for v in labels])
    ax.set_title(f"joint outcomes, both in the {run.basis} basis", fontsize=10)


def _agreement(ax, run: BellPairRun) -> None:
    """Bars: how often the bits agree, and each party's bit alone."""
    names = ["bits agree", "Alice's bit = 1", "Bob's bit = 1"]
    p = run.probabilities
    exact = [run.agreement, float(p[1, :].sum()), float(p[:, 1].sum())]
    sampled = [run.sampled_agreement, run.alice_ones, run.bob_ones]
    pos = np.arange(3)
    _pair_bars(ax, pos, exact, sampled, ("exact", "sampled"))
    for k in range(3):
        text = f"{exact[k]:.3f}\n{sampled[k]:.3f}"
        ax.text(pos[k], max(exact[k], sampled[k]) + 0.03, text, ha="center", fontsize=8)
    ax.set_xticks(pos, names, fontsize=8)
    ax.set(ylim=(0, 1.25), ylabel="probability / fraction of shots")
    ax.legend(loc="upper right", fontsize=8, ncol=2, frameon=False)
    ax.set_title(f"{run.shots:,} shots (numbers: exact, then sampled)", fontsize=10)


def plot_bell_pair(run: BellPairRun) -> Figure:
    """A Bell pair after Alice's gates: its weights on the four Bell states (left), the sampled
    joint outcomes when both parties measure in ``run.basis`` (middle) and how often their bits
    agree, next to each party's bit alone (right).

    Examples
    --------
    >>> from qring_edu.experiments.qubits import run_bell_pair
    >>> plot_bell_pair(run_bell_pair(1, 1)).get_suptitle()
    'Alice applies X, then Z to her half of |Φ+⟩: the pair is now |Ψ−⟩'
    """
    fig = Figure(figsize=(11.5, 4.4))
    ax_w, ax_j, ax_a = fig.subplots(1, 3, width_ratios=[1, 1, 1.1])
    weights = run.bell_weights
    colours = [COLOURS["state"] if n == run.name else "#cccccc" for n in _BELL_ORDER]
    ax_w.bar([f"|{n}⟩" for n in _BELL_ORDER], weights, color=colours)
    ax_w.set(ylim=(0, 1.1), ylabel="⟨β|ρ|β⟩")
    ax_w.set_title("which Bell state the pair is in", fontsize=10)
    _joint_outcomes(ax_j, run)
    _agreement(ax_a, run)
    gates = _GATES[(run.x, run.z)]
    fig.suptitle(
        f"Alice applies {gates} to her half of |Φ+⟩: the pair is now |{run.name}⟩", fontsize=11
    )
    fig.tight_layout()
    return fig


def plot_noisy_pair(run: BellPairRun) -> Figure:
    """A noisy pair (the isotropic state of fidelity F): Re ρ in the basis ``|b a⟩`` (Qiskit's
    order), its Bell-state weights (its eigenvalues) with ``S(ρ_AB)`` and ``S(ρ_A)``, and how
    often the bits agree when both parties measure in ``run.basis``.

    Examples
    --------
    >>> from qring_edu.experiments.qubits import run_bell_pair
    >>> plot_noisy_pair(run_bell_pair(pair_fidelity=0.7)).axes[1].get_title()
    'S(ρ_AB) = 1.357 bits,  S(ρ_A) = 1.000 bit'
    """
    fig = Figure(figsize=(11.5, 4.4))
    ax_m, ax_w, ax_a = fig.subplots(1, 3, width_ratios=[1, 1, 1.1])
    real = run.rho.real
    ax_m.imshow(real, cmap="RdBu_r", vmin=-0.5, vmax=0.5)
    for i in range(4):
        for j in range(4):
            ax_m.text(j, i, f"{real[i, j]:.2f}", ha="center", va="center", fontsize=8)
    kets = [f"|{i >> 1}{i & 1}⟩" for i in range(4)]
    ax_m.set_xticks(range(4), kets)
    ax_m.set_yticks(range(4), kets)
    ax_m.set_title("density matrix ρ (real part)", fontsize=10)
    weights = run.bell_weights
    ax_w.bar([f"|{n}⟩" for n in _BELL_ORDER], weights, color=COLOURS["state"])
    label_bars(ax_w, range(4), weights, ".3f", 0.02, fontsize=9)
    ax_w.set(ylim=(0, 1.1), ylabel="⟨β|ρ|β⟩ (the eigenvalues of ρ)")
    title = f"S(ρ_AB) = {run.entropy:.3f} bits,  S(ρ_A) = {run.alice_entropy:.3f} bit"
    ax_w.set_title(title, fontsize=10)
    _agreement(ax_a, run)
    title = f"both measure in the {run.basis} basis, {run.shots:,} shots (exact, sampled)"
    ax_a.set_title(title, fontsize=10)
    title = f"A noisy pair: the isotropic state of fidelity F = {run.pair_fidelity:.2f}"
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig
