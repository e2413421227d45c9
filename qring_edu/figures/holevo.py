"""Figures of chapter 2, *The Holevo bound* (presentation floor).

Every function is pure: it takes results computed by the library (or by
:mod:`qring_edu.experiments.holevo`) and returns a new ``matplotlib.figure.Figure``; nothing is
displayed and no pyplot state is touched. Information quantities are in bits.

Bloch pictures. A qubit state ``ρ = (I + r·σ)/2`` is drawn by its Bloch vector r, projected on two
great discs: the x–z disc (|0⟩ up, |+⟩ right) and the x–y disc (|+⟩ right, |+i⟩ up).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch

from ._base import label_bars, legend_below, nonempty, plot_circuits

if TYPE_CHECKING:  # annotations only: the results come from the experiments floor
    from ..experiments.holevo import (
        CutSetSweep,
        DenseCodingSweep,
        EnsembleAnalysis,
        KnownEnsemble,
        LedgerFloorSweep,
        TwoStateSweep,
    )

__all__ = [
    "COLOURS",
    "plot_circuits",
    "plot_ensemble_analysis",
    "plot_known_ensembles",
    "plot_two_state_sweep",
    "plot_dense_coding",
    "plot_ledger_floor",
    "plot_cut_set",
    "plot_ea_systems",
]

#: One colour per quantity, used consistently across the chapter.
COLOURS = {
    "chi": "#2c7fb8",
    "accessible": "#d95f0e",
    "measured": "#7fbf7b",
    "classical": "#2c7fb8",
    "superdense": "#d95f0e",
    "offline": "#abd9e9",
    "floor": "#000000",
    "capacity": "#6a3d9a",
    "useless": "#fdf0f0",
    "cut": "#555555",
    "vga": "#1b9e77",
}
_STATE_COLOURS = "#1b9e77 #7570b3 #e7298a #e6ab02 #66a61e #a6761d #666666 #d95f02".split()
_FLOOR_TICK = dict(linestyle="none", marker="_", mew=2.5, color=COLOURS["floor"])


# -- Bloch discs -----------------------------------------------------------------------------------
def _disc(ax, labels: tuple[str, str, str, str], title: str) -> None:
    """An empty Bloch disc; ``labels``: its right, left, top and bottom ends."""
    ax.add_patch(Circle((0, 0), 1.0, fill=False, edgecolor="#888888", linewidth=1))
    ax.axhline(0, color="#dddddd", linewidth=0.8, zorder=0)
    ax.axvline(0, color="#dddddd", linewidth=0.8, zorder=0)
    for (x, y), text in zip(((1.13, 0), (-1.13, 0), (0, 1.12), (0, -1.12)), labels):
        ax.text(x, y, text, ha="center", va="center", fontsize=9, color="#555555")
    ax.set(xlim=(-1.32, 1.32), ylim=(-1.32, 1.32), aspect="equal", xticks=[], yticks=[])
    ax.spines[:].set_visible(False)
    ax.set_title(title, fontsize=10)


def _draw_projection(ax, a: EnsembleAnalysis, axes: tuple[int, int], legend: bool) -> None:
    i, j = axes
    n = a.measurement_direction
    label = "your measurement (+ end)" if legend else None
    ax.plot([-n[i], n[i]], [-n[j], n[j]], "k--", linewidth=1.2, label=label, zorder=2)
    ax.plot([n[i]], [n[j]], marker="+", color="black", markersize=11, mew=2, zorder=2)
    for k, (m, w) in enumerate(zip(a.povm_directions, a.povm_weights)):
        ax.plot([0, m[i]], [0, m[j]], color="#999999", linewidth=0.8, linestyle=":", zorder=1)
        label = "optimal POVM element" if legend and k == 0 else None
        square = dict(marker="s", markerfacecolor="none", markeredgecolor="#777777", zorder=1)
        ax.plot([m[i]], [m[j]], markersize=3 + 6 * w, linestyle="none", label=label, **square)
    probs = a.ensemble.probs
    for k, r in enumerate(a.bloch):
        colour = _STATE_COLOURS[k % len(_STATE_COLOURS)]
        arrow = dict(arrowstyle="-|>", color=colour, linewidth=1.6)
        ax.annotate("", xy=(r[i], r[j]), xytext=(0, 0), arrowprops=arrow, zorder=3)
        label = f"{a.ensemble.labels[k]}  p = {probs[k]:.3f}" if legend else None
        size = 4 + 14 * np.sqrt(probs[k])
        ax.plot(
            [r[i]], [r[j]], "o", color=colour, markersize=size, alpha=0.85, zorder=4, label=label
        )


def plot_ensemble_analysis(a: EnsembleAnalysis) -> Figure:
    """A qubit ensemble on the x–z and x–y Bloch discs (states as arrows, dot area ∝ probability;
    the measurement as a dashed axis, ``+`` at outcome 0; the optimal POVM's elements as grey
    squares) and its χ, I_acc and the measurement's I against the 1-bit limit of one qubit.

    Examples
    --------
    >>> from qring_edu import bb84_ensemble
    >>> from qring_edu.experiments.holevo import analyse_ensemble
    >>> fig = plot_ensemble_analysis(analyse_ensemble(bb84_ensemble()))
    >>> fig.get_suptitle()
    'BB84 (4 states): χ = 1.0000,  I_acc = 0.5000,  I(your measurement) = 0.5000 bits'
    """
    fig = Figure(figsize=(12.5, 5.0))
    ax_xz, ax_xy, ax_bar = fig.subplots(1, 3, width_ratios=[1, 1, 1.05])
    _disc(ax_xz, ("|+⟩  x", "|−⟩", "z  |0⟩", "|1⟩"), "x–z disc (seen from −y)")
    _disc(ax_xy, ("|+⟩  x", "|−⟩", "y  |+i⟩", "|−i⟩"), "x–y disc (seen from +z)")
    _draw_projection(ax_xz, a, (0, 2), legend=True)
    _draw_projection(ax_xy, a, (0, 1), legend=False)
    handles, labels = ax_xz.get_legend_handles_labels()
    where = dict(loc="lower left", bbox_to_anchor=(0.02, 0.0), ncol=3, markerscale=0.6)
    fig.legend(handles, labels, fontsize=8, frameon=False, **where)

    names = ["χ (Holevo)", "I_acc (best\nmeasurement)", "I (your\nmeasurement)"]
    values = [a.chi, a.accessible.value, a.measured]
    colours = [COLOURS["chi"], COLOURS["accessible"], COLOURS["measured"]]
    bars = ax_bar.bar(names, values, color=colours, width=0.6)
    xs = [bar.get_x() + bar.get_width() / 2 for bar in bars]
    label_bars(ax_bar, xs, values, ".4f", 0.02, va="bottom", fontsize=9)
    ax_bar.axhline(1.0, color="black", linewidth=1, linestyle="--")
    ax_bar.text(2.3, 1.015, "one qubit: at most 1 bit", ha="right", va="bottom", fontsize=8)
    ax_bar.set(ylim=(0, 1.18), ylabel="bits")
    ax_bar.tick_params(axis="x", labelsize=8)
    ax_bar.set_title("information about the label x", fontsize=10)
    fig.suptitle(
        f"{a.ensemble.name} ({a.ensemble.size} states): χ = {a.chi:.4f},  "
        f"I_acc = {a.accessible.value:.4f},  I(your measurement) = {a.measured:.4f} bits",
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig


# -- Known ensembles and two pure states -----------------------------------------------------------
def plot_known_ensembles(rows: Sequence[KnownEnsemble]) -> Figure:
    """χ and accessible information of each ensemble (bars, computed by the library) with the
    textbook values (black ticks). The gap between the two bars is information that no
    measurement can extract.

    Examples
    --------
    >>> from qring_edu.experiments.holevo import known_ensembles
    >>> fig = plot_known_ensembles(known_ensembles())
    >>> len(fig.axes[0].patches)                  # χ and I_acc bars of 4 ensembles
    8
    """
    rows = nonempty(rows, "rows", "ensemble")
    fig = Figure(figsize=(8.5, 4.0))
    ax = fig.subplots()
    x = np.arange(len(rows))
    w = 0.36
    for offset, key, label in ((-w / 2, "chi", "χ"), (w / 2, "accessible", "I_acc")):
        vals = [getattr(r, key) for r in rows]
        ax.bar(x + offset, vals, width=w, color=COLOURS[key], label=label)
        label_bars(ax, x + offset, vals, ".3f", 0.03, va="bottom", fontsize=8)
        expected = [getattr(r, f"{key}_expected") for r in rows]
        label = "textbook value" if key == "chi" else None
        tick = dict(linestyle="none", marker="_", markersize=22, mew=2, color="black")
        ax.plot(x + offset, expected, label=label, **tick)
    ax.axhline(1.0, color="#777777", linewidth=0.8, linestyle="--")
    ax.set_xticks(x, [r.name for r in rows], fontsize=9)
    ax.set(ylabel="bits", ylim=(0, 2.3))
    ax.legend(loc="upper left", fontsize=9)
    ax.set_title(
        "Holevo quantity χ vs accessible information (one use of the ensemble)", fontsize=11
    )
    fig.tight_layout()
    return fig


def plot_two_state_sweep(sweep: TwoStateSweep) -> Figure:
    """χ = h((1+c)/2) and I_acc = 1 − h((1 − sqrt(1−c²))/2) of two equiprobable pure states
    against their overlap c: closed forms (lines) and the library's numerics (dots).

    Examples
    --------
    >>> from qring_edu.experiments.holevo import two_state_sweep
    >>> plot_two_state_sweep(two_state_sweep([0.0, 0.5, 1.0])).axes[0].get_title()
    'Two pure states, equal priors'
    """
    fig = Figure(figsize=(7.0, 4.0))
    ax = fig.subplots()
    chi, acc = COLOURS["chi"], COLOURS["accessible"]
    ax.plot(sweep.fine, sweep.chi_formula, color=chi, label="χ = h((1+c)/2)")
    ax.plot(sweep.fine, sweep.accessible_formula, color=acc, label="I_acc = 1 − h((1 − √(1−c²))/2)")
    ax.plot(sweep.overlaps, sweep.chi, "o", color=chi, markersize=5, label="holevo_chi (numerical)")
    label = "accessible_information (numerical)"
    style = dict(color=acc, markersize=5, markerfacecolor="none")
    ax.plot(sweep.overlaps, sweep.accessible, "s", label=label, **style)
    gap = dict(color="#dddddd", alpha=0.6, label="gap χ − I_acc")
    ax.fill_between(sweep.fine, sweep.accessible_formula, sweep.chi_formula, **gap)
    ax.set(xlabel="overlap c = |⟨ψ0|ψ1⟩|", ylabel="bits", xlim=(0, 1), ylim=(0, 1.05))
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title("Two pure states, equal priors", fontsize=11)
    fig.tight_layout()
    return fig


# -- Dense coding with noisy pairs -----------------------------------------------------------------
def plot_dense_coding(sweep: DenseCodingSweep) -> Figure:
    """Capacity C(F) = 2 − H(F, (1−F)/3, (1−F)/3, (1−F)/3) of dense coding over the isotropic pair
    (bits per qubit sent) against the fidelity F, with the 1- and 2-bit lines, the threshold F*
    where C = 1 (shaded below it), F = 1/2 (entangled above) and the chosen F.

    Examples
    --------
    >>> from qring_edu.experiments.holevo import dense_coding_sweep
    >>> plot_dense_coding(dense_coding_sweep(0.9)).axes[0].get_title()
    'Dense coding over an isotropic pair'
    """
    fig = Figure(figsize=(9.0, 5.4))
    ax = fig.subplots()
    F, C = sweep.fidelities, sweep.capacity
    t = sweep.threshold
    ax.axvspan(0.25, t, color=COLOURS["useless"], zorder=0)
    text = "C < 1: one pair per qubit (unitary encoding) loses to a plain qubit"
    ax.text(0.26, 1.94, text, fontsize=8, va="top", color="#a40000")
    cap = COLOURS["capacity"]
    ax.plot(F, C, color=cap, linewidth=2, label="C(F) = 2 − H(F, (1−F)/3, (1−F)/3, (1−F)/3)")
    label = "best of dense coding and plain bits, max(C, 1)"
    ax.plot(F, np.maximum(C, 1.0), color=cap, linewidth=1, linestyle=":", label=label)
    ax.axhline(1.0, color="black", linewidth=1, linestyle="--", label="classical: 1 bit per qubit")
    label = "entanglement-assisted limit: 2 bits per qubit"
    ax.axhline(2.0, color="#777777", linewidth=1, linestyle="-.", label=label)
    ax.axvline(t, color="#a40000", linewidth=1)
    ax.text(t + 0.006, 0.08, f"F* = {t:.4f}", color="#a40000", fontsize=9)
    ax.axvline(0.5, color="#555555", linewidth=0.8, linestyle=":")
    ax.text(0.505, 0.08, "entangled (and\ndistillable)\nfor F > 1/2", fontsize=8, color="#555555")
    f0, c0 = sweep.pair_fidelity, sweep.chosen_capacity
    ax.plot([f0], [c0], "o", color="black", markersize=7, zorder=5)
    verdict = "beats the plain bit" if sweep.helps else "does not beat the plain bit"
    verdict += "" if sweep.helps else "\n(without distillation)"
    text = f"F = {f0:.3f}\nC = {c0:.4f} bits per qubit\n"
    text += f"χ of the 4 encoded states = {sweep.chosen_chi:.4f}\n{verdict}"
    box = dict(boxstyle="round", facecolor="white", edgecolor="#999999")
    ax.text(0.04, 0.86, text, transform=ax.transAxes, va="top", fontsize=9, bbox=box)
    ax.set(xlim=(0.25, 1.0), ylim=(0, 2.1), xlabel="pair fidelity F = ⟨Φ+|ρ|Φ+⟩")
    ax.set_ylabel("bits per qubit sent")
    legend_below(ax, y=-0.13)
    ax.set_title("Dense coding over an isotropic pair", fontsize=11)
    fig.tight_layout()
    return fig


# -- The ring's ledger against the Holevo floor ----------------------------------------------------
def plot_ledger_floor(sweep: LedgerFloorSweep) -> Figure:
    """Per busiest link (ledgers of :func:`qring_edu.ring_allreduce`): classical bits, online
    (+ offline) qubits, the ring-message floor ½ × classical bits and the cut-set floor d·b/2
    (left); online qubits ÷ the ring-message floor, never below 1 (right).

    Examples
    --------
    >>> from qring_edu.experiments.holevo import ledger_floor_sweep
    >>> fig = plot_ledger_floor(ledger_floor_sweep(d=10, bits=5, workers=[2, 3, 4]))
    >>> [ax.get_title() for ax in fig.axes]
    ['One all-reduce of d = 10 words of 5 bits', 'Excess above the floor = padding qubits']
    """
    fig = Figure(figsize=(12, 5.0))
    ax, ax_ratio = fig.subplots(1, 2, width_ratios=[1.5, 1])
    P = sweep.workers
    x = np.arange(P.size)
    w = 0.38
    scale, unit = (
        (1e3, "kbit / kqubit") if sweep.classical_bits.max() >= 1e4 else (1, "bits / qubits")
    )
    on, off = sweep.online_qubits / scale, sweep.offline_qubits / scale
    for dx, key, values, bottom, label in (
        (-w / 2, "classical", sweep.classical_bits / scale, 0, "classical ring: online bits"),
        (w / 2, "superdense", on, 0, "superdense ring: online qubits"),
        (w / 2, "offline", off, on, "  + offline qubits (pair distribution)"),
    ):
        ax.bar(x + dx, values, width=w, bottom=bottom, color=COLOURS[key], label=label)
    label = "floor for the ring's messages (½ × classical)"
    ax.plot(x + w / 2, sweep.floor / scale, markersize=18, label=label, **_FLOOR_TICK)
    if sweep.cut_floor > 0:
        label = "cut-set floor, any protocol, qubits only: d·b/2"
        ax.axhline(
            sweep.cut_floor / scale, color=COLOURS["cut"], linewidth=1, linestyle="--", label=label
        )
    ax.set_xticks(x, [str(p) for p in P])
    ax.set(xlabel="workers P", ylabel=f"per busiest link ({unit})")
    legend_below(ax)
    ax.set_title(f"One all-reduce of d = {sweep.d:,} words of {sweep.bits} bits", fontsize=11)

    ratio = sweep.online_qubits / sweep.floor
    margin = max(0.005, 1.5 * float(ratio.max() - 1.0))
    ax_ratio.plot(P, ratio, "o-", color=COLOURS["superdense"], label="online qubits / floor")
    label = "no transport of these messages goes below 1"
    ax_ratio.axhline(1.0, color="black", linewidth=1, linestyle="--", label=label)
    ax_ratio.axhspan(1.0 - margin, 1.0, color="#dddddd", alpha=0.7)
    text = " forbidden by the Holevo bound, message by message"
    ax_ratio.text(P[0], 1.0 - margin / 2, text, fontsize=8, va="center")
    ax_ratio.set(ylim=(1.0 - margin, 1.0 + margin), xlabel="workers P")
    ax_ratio.set(ylabel="online qubits ÷ (classical bits / 2)", xticks=P)
    ax_ratio.ticklabel_format(axis="y", useOffset=False)
    legend_below(ax_ratio)
    ax_ratio.set_title("Excess above the floor = padding qubits", fontsize=11)
    fig.tight_layout()
    return fig


# -- The cut-set bound for every all-reduce protocol -----------------------------------------------
def plot_cut_set(sweep: CutSetSweep) -> Figure:
    """What enters each worker in one all-reduce, in units of one gradient d·b, against P.

    Left: online qubits (superdense ring, the ring-message floor ½ × classical bits, the cut-set
    floor d·b/2 for qubits only, VGA's 0). Right, log scale: 2 × qubits + classical bits into a
    worker (classical ring, superdense ring, VGA's (P − 1)·d·b) against the floor d·b of every
    all-reduce protocol.

    Examples
    --------
    >>> from qring_edu.experiments.holevo import cut_set_sweep
    >>> fig = plot_cut_set(cut_set_sweep(d=8000, workers=[2, 4, 8]))
    >>> [ax.get_title() for ax in fig.axes]
    ['Online qubits', 'What the cut-set bound counts']
    """
    P = sweep.workers
    unit = float(sweep.d * sweep.bits)
    fig = Figure(figsize=(12.0, 5.0))
    ax, ax2 = fig.subplots(1, 2)
    cut = dict(color=COLOURS["cut"], linestyle="--", linewidth=1.2)
    label = "superdense ring: online qubits"
    ax.plot(P, sweep.superdense_ring / unit, "o-", color=COLOURS["superdense"], label=label)
    label = "floor for the ring's messages (½ × classical)"
    ax.plot(P, sweep.ring_message_floor / unit, markersize=16, label=label, **_FLOOR_TICK)
    label = "cut-set floor, any protocol receiving only qubits: d·b/2"
    ax.axhline(sweep.cut_qubits / unit, label=label, **cut)
    label = "VGA's GHZ sum (chapter 5): no online qubits"
    ax.plot(P, np.zeros(P.size), "s-", color=COLOURS["vga"], markersize=4, label=label)
    ax.set(ylim=(-0.06, 1.12), ylabel="online qubits into each worker  (units of d·b)")
    ax.set_title("Online qubits", fontsize=11)

    for key, fmt, size, label in (
        ("classical", "o-", None, "classical ring: bits"),
        ("superdense", "x--", 8, "superdense ring: 2 × qubits"),
        ("vga", "s-", 4, "VGA: classical bits, (P − 1)·d·b"),
    ):
        ax2.plot(
            P, sweep.capacity_in(key) / unit, fmt, color=COLOURS[key], markersize=size, label=label
        )
    label = "cut-set floor for every protocol: 2q + c ≥ d·b"
    ax2.axhline(sweep.information / unit, label=label, **cut)
    ax2.axhspan(1e-3, sweep.information / unit, color="#eeeeee", zorder=0)
    ax2.set(yscale="log", ylim=(0.5, 2.0 * float(sweep.capacity_in("vga").max()) / unit))
    ax2.set_ylabel("2 × qubits + bits into each worker  (units of d·b)")
    ax2.set_title("What the cut-set bound counts", fontsize=11)
    for a in (ax, ax2):
        a.set_xscale("log", base=2)
        a.set_xticks(P, [str(p) for p in P])
        a.minorticks_off()
        a.set_xlabel("workers P")
        legend_below(a, ncol=1)
    title = f"One all-reduce of d = {sweep.d:,} words of {sweep.bits} bits: what must enter"
    fig.suptitle(title + " each worker", fontsize=11)
    fig.tight_layout()
    return fig


# -- The systems of the entanglement-assisted proof ------------------------------------------------
def _party(ax, x: float, y: float, w: float, h: float, name: str, colour: str) -> None:
    style = dict(facecolor=colour, edgecolor="#666666", linewidth=1)
    ax.add_patch(
        FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.06", **style)
    )
    ax.text(x + w / 2, y + h + 0.05, name, ha="center", va="bottom", fontsize=12, fontweight="bold")


def _system(ax, x: float, y: float, label: str, colour: str, r: float = 0.17) -> None:
    ax.add_patch(Circle((x, y), r, facecolor=colour, edgecolor="black", linewidth=1, zorder=3))
    ax.text(x, y, label, ha="center", va="center", fontsize=13, zorder=4)


def _link(ax, a: tuple, b: tuple, label: str) -> None:
    xs = np.linspace(a[0], b[0], 60)
    ys = np.linspace(a[1], b[1], 60) + 0.05 * np.sin(np.linspace(0, 6 * np.pi, 60))
    ax.plot(xs, ys, color="#7570b3", linewidth=1.5, zorder=2)
    x, y = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2 + 0.13
    ax.text(x, y, label, ha="center", va="bottom", fontsize=11, color="#7570b3")


def _note(ax, x: float, y: float, text: str, size: float, colour: str, **kw) -> None:
    ax.text(x, y, text, ha="center", fontsize=size, color=colour, **kw)


def plot_ea_systems() -> Figure:
    """Who holds what in the entanglement-assisted Holevo bound χ ≤ 2n, before and after Alice
    sends the n qubits Q (a diagram; nothing is computed; the proof is in book/02_holevo.ipynb):
    the shared state ρ^{A'B}, Alice's encoding E_x: A' → Q, Bob's σ_x^{QB} with σ_x^B = ρ^B,
    and the three facts of the proof (no signalling, subadditivity, Araki–Lieb).

    Examples
    --------
    >>> len(plot_ea_systems().axes)
    1
    """
    fig = Figure(figsize=(10.5, 5.2))
    ax = fig.subplots()
    ax.set(xlim=(0, 12), ylim=(-2.45, 3.15))
    ax.set_aspect("equal")
    ax.axis("off")
    alice, bob, carrier = "#fde0c5", "#d7e8f5", "#fdae61"
    for x, title, (xa, wa), (xb, wb) in (
        (1.9, "1. before: a shared state", (0.2, 1.4), (2.3, 1.4)),
        (6.0, "2. Alice encodes x and sends Q", (4.3, 1.4), (6.4, 1.4)),
        (10.1, "3. after: Bob holds Q and B", (8.5, 0.9), (9.8, 1.9)),
    ):
        ax.text(x, 2.85, title, ha="center", fontsize=13)
        _party(ax, xa, 0.55, wa, 1.6, "Alice", alice)
        _party(ax, xb, 0.55, wb, 1.6, "Bob", bob)
    # 1. before
    _system(ax, 0.9, 1.35, "A'", "white")
    _system(ax, 3.0, 1.35, "B", "white")
    _link(ax, (1.08, 1.35), (2.82, 1.35), r"$\rho^{A'B}$")
    _note(ax, 1.95, 0.2, "any finite dimension,\nany entanglement", 11, "#555555", va="top")
    # 2. encoding
    _system(ax, 5.0, 1.75, "A'", "white")
    arrow = dict(arrowstyle="-|>", color="black", linewidth=1.2)
    ax.annotate("", xy=(5.0, 1.05), xytext=(5.0, 1.55), arrowprops=arrow)
    ax.text(5.22, 1.3, r"$\mathcal{E}_x$", fontsize=13, va="center")
    _system(ax, 5.0, 0.85, "Q", carrier)
    _system(ax, 7.1, 1.75, "B", "white")
    arrow = dict(arrowstyle="-|>", mutation_scale=14, connectionstyle="arc3,rad=-0.3")
    ax.add_patch(
        FancyArrowPatch((5.2, 0.75), (6.55, 0.75), color="#d95f0e", linewidth=1.5, **arrow)
    )
    _note(ax, 5.9, 0.15, "n qubits cross\nthe link", 11, "#d95f0e", va="top")
    _note(ax, 7.1, 1.45, "B untouched:\n" + r"$\sigma_x^B = \rho^B$", 11, "#2c7fb8", va="top")
    # 3. after
    _system(ax, 10.3, 1.35, "Q", carrier)
    _system(ax, 11.2, 1.35, "B", "white")
    ax.plot([10.47, 11.03], [1.35, 1.35], color="#7570b3", linewidth=1.5, zorder=2)
    ax.text(10.75, 0.72, r"$\sigma_x^{QB}$", ha="center", fontsize=13)
    _note(ax, 8.95, 1.35, "(what Alice\nkept does\nnot reach\nBob)", 9, "#777777", va="center")
    # the inequalities
    lines = (
        r"$\sigma = \sum_x p_x \sigma_x^{QB}$ (Bob's average state);  "
        r"$\chi = S(\sigma) - \sum_x p_x\, S(\sigma_x) \geq I(X;Y)$  (Holevo)",
        r"subadditivity:  $S(\sigma) \leq S(\sigma^Q) + S(\sigma^B) \leq n + S(\rho^B)$",
        r"Araki–Lieb:  $S(\sigma_x) \geq S(\sigma_x^B) - S(\sigma_x^Q) \geq S(\rho^B) - n$  "
        "for every x",
        r"together:  $\chi \leq (n + S(\rho^B)) - (S(\rho^B) - n) = 2n$",
    )
    box = dict(boxstyle="round,pad=0.02", facecolor="#f7f7f7", edgecolor="#bbbbbb")
    ax.add_patch(FancyBboxPatch((0.3, -2.35), 11.4, 1.95, **box))
    for i, (text, colour) in enumerate(zip(lines, ("black", "#2c7fb8", "#d95f0e", "black"))):
        ax.text(0.55, -0.72 - 0.43 * i, text, fontsize=12, va="center", color=colour)
    fig.tight_layout()
    return fig
