"""Figures of chapter 5, *Alignment and sign auditing* (presentation floor).

Pure functions: library results in, a new ``matplotlib.figure.Figure`` out; nothing is displayed
and no pyplot state is touched.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from ._base import plot_circuits

if TYPE_CHECKING:  # annotations only: the results come from the floors below
    from qiskit import QuantumCircuit

    from ..alignment import Decision
    from ..experiments.alignment import (
        AuditExplorer,
        GapIPCurves,
        GapIPScaling,
        NoiseSweep,
        TieAuditScaling,
    )

__all__ = [
    "COLOURS",
    "plot_circuit",
    "plot_rotation",
    "plot_iae_run",
    "plot_gapip_scaling",
    "plot_gapip_curves",
    "plot_tieaudit_scaling",
    "plot_audit_explorer",
    "plot_noise_sweep",
]

COLOURS = {
    "quantum": "#d95f0e",
    "classical": "#2c7fb8",
    "ea": "#7b3294",
    "aligned": "#1a9641",
    "conflicting": "#d7191c",
    "neutral": "#969696",
}


def _plain_log_x(ax) -> None:
    """Log x axis labelled with plain numbers (no 3×10⁰ minor labels)."""
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def plot_circuit(circuit: "QuantumCircuit", title: str = "", *, width: float = 10.0,
                 fold: int = -1) -> Figure:
    """Draw one Qiskit circuit on a fresh figure, qubit 0 on top
    (:func:`~qring_edu.figures._base.plot_circuits`)."""
    return plot_circuits([circuit], [title], width=width, fold=fold)


def plot_rotation(tau: float, k_max: int = 12) -> Figure:
    """Probability of the outcome "not a_h" after ``k`` iterations, ``sin^2((2k+1) theta)``, for
    an aligned (``<g,h> = tau``) and a conflicting (``<g,h> = -tau``) instance: the two angles
    ``theta = arccos((1 ± tau)/2)`` drift apart linearly in ``k``."""
    ks = np.arange(k_max + 1)
    fine = np.linspace(0, k_max, 400)
    fig = Figure(figsize=(8, 3.4), layout="constrained")
    ax = fig.subplots()
    for c, key in ((tau, "aligned"), (-tau, "conflicting")):
        theta = math.acos((1 + c) / 2)
        ax.plot(fine, np.sin((2 * fine + 1) * theta) ** 2, color=COLOURS[key], alpha=0.35)
        ax.plot(ks, np.sin((2 * ks + 1) * theta) ** 2, "o", color=COLOURS[key],
                label=f"{key}: <g,h> = {c:+.2f}, θ = {theta:.4f}")
    ax.set_xlabel("iterations k (each = 2 passes of the register)")
    ax.set_ylabel('P("not a_h")')
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"Amplification separates the two promise cases (τ = {tau:g})")
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def plot_iae_run(decision: "Decision", tau: float) -> Figure:
    """The confidence interval for ``a = sin^2 theta`` after each IAE step of a quantum
    :func:`~qring_edu.gapip` decision, against the qubits sent so far, with the decision
    threshold ``3/4 - tau^2/4`` and the two promise values ``threshold ± tau/2``."""
    steps = decision.steps
    if not steps:
        raise ValueError("decision has no IAE steps (was it run with protocol='quantum'?)")
    n = decision.cost // max(1, sum(s.shots * (2 * s.k + 1) for s in steps))
    cum = np.cumsum([s.shots * n * (2 * s.k + 1) for s in steps])
    lo = np.array([s.a_lo for s in steps])
    hi = np.array([s.a_hi for s in steps])
    thr = 0.75 - tau * tau / 4
    fig = Figure(figsize=(8, 3.4), layout="constrained")
    ax = fig.subplots()
    ax.fill_between(cum, lo, hi, step="post", color=COLOURS["quantum"], alpha=0.3,
                    label="confidence interval for a")
    ax.axhline(thr, color="k", lw=1, label="threshold 3/4 − τ²/4")
    ax.axhline(thr - tau / 2, color=COLOURS["aligned"], ls="--", lw=1, label="aligned (⟨g,h⟩ = τ)")
    ax.axhline(thr + tau / 2, color=COLOURS["conflicting"], ls="--", lw=1,
               label="conflicting (⟨g,h⟩ = −τ)")
    ax.set_xscale("log")
    ax.set_ylim(max(0.0, thr - 3 * tau), min(1.0, thr + 3 * tau))
    ax.set_xlabel("qubits sent so far")
    ax.set_ylabel("a = sin²θ")
    ax.set_title(f"Iterative amplitude estimation: verdict {decision.verdict!r} after "
                 f"{decision.cost:,} qubits, {len(steps)} steps")
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(alpha=0.3)
    return fig


def plot_gapip_scaling(result: "GapIPScaling", *, highlight_tau: float | None = None) -> Figure:
    """Left: cost against ``1/tau`` (log-log) with the fitted power laws; right: decision accuracy
    of both protocols on promise instances."""
    x = 1.0 / result.taus
    fig = Figure(figsize=(10, 3.8), layout="constrained")
    ax, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [2.2, 1]})
    for cost, slope, key, label in (
            (result.quantum_cost, result.quantum_slope, "quantum", "quantum (qubits, mean)"),
            (result.classical_cost, result.classical_slope, "classical",
             "classical: cheaper of sketch / vector (bits)")):
        ax.loglog(x, cost, "o", color=COLOURS[key], label=f"{label}, slope {slope:.2f}")
        fit = np.polyfit(np.log(x), np.log(cost), 1)
        ax.loglog(x, np.exp(np.polyval(fit, np.log(x))), "-", color=COLOURS[key], alpha=0.6)
    if highlight_tau is not None:
        ax.axvline(1.0 / highlight_tau, color=COLOURS["neutral"], ls=":", lw=1.2,
                   label=f"τ = {highlight_tau:g}")
    _plain_log_x(ax)
    ax.set_xlabel("1/τ")
    ax.set_ylabel("communication per decision")
    ax.set_title(f"GapIP at P = 2^{int(round(math.log2(result.P)))}, δ = {result.delta:g}")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3, which="both")
    ax2.plot(x, result.quantum_accuracy, "o-", color=COLOURS["quantum"], label="quantum")
    ax2.plot(x, result.classical_accuracy, "s--", color=COLOURS["classical"], label="classical",
             alpha=0.8)
    ax2.axhline(1 - result.delta, color="k", lw=0.8, ls=":", label="1 − δ")
    ax2.set_xscale("log")
    _plain_log_x(ax2)
    ax2.set_ylim(0.5, 1.03)
    ax2.set_xlabel("1/τ")
    ax2.set_ylabel(f"fraction correct ({result.trials} instances)")
    ax2.set_title("decision accuracy")
    ax2.legend(fontsize=8, loc="lower left")
    ax2.grid(alpha=0.3)
    return fig


def plot_gapip_curves(result: "GapIPCurves") -> Figure:
    """:func:`plot_gapip_scaling` of a :class:`~qring_edu.experiments.alignment.GapIPCurves`,
    with its ``tau`` marked."""
    return plot_gapip_scaling(result.scaling, highlight_tau=result.tau)


def plot_tieaudit_scaling(result: "TieAuditScaling") -> Figure:
    """Cost of TieAudit against ``P`` (log-log): quantum qubits ``N log2 P``, classical bits
    ``Θ(sqrt P)`` (capped at ``P``), the crossover marked."""
    fig = Figure(figsize=(8, 3.8), layout="constrained")
    ax = fig.subplots()
    ax.loglog(result.Ps, result.quantum_cost, "o-", color=COLOURS["quantum"], base=2,
              label=f"quantum: {result.copies} copies × log₂P qubits")
    ax.loglog(result.Ps, result.classical_cost, "s-", color=COLOURS["classical"], base=2,
              label=f"classical subset: slope {result.classical_slope:.2f}")
    ax.loglog(result.Ps, result.Ps, ":", color=COLOURS["neutral"], base=2,
              label="send every sign (P bits)")
    if result.crossover_P:
        ax.axvline(result.crossover_P, color="k", lw=1, ls="--",
                   label=f"crossover P = 2^{int(math.log2(result.crossover_P))}")
    ax.set_xlabel("P (coordinates)")
    ax.set_ylabel("communication (qubits or bits)")
    ax.set_title(f"TieAudit at ε = {result.eps:g}, α = {result.alpha:g}, δ = {result.delta:g}")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3, which="both")
    return fig


def plot_audit_explorer(ex: "AuditExplorer") -> Figure:
    """The TieAudit explorer: the sign pattern with the matching drawn as arcs (green: agree, red:
    disagree), the Born-rule distribution of the client's outcome ``Y``, and the three protocols'
    estimates of ``f`` with the ``±eps`` band."""
    P = ex.signs.size
    fig = Figure(figsize=(11, 3.9), layout="constrained")
    gs = fig.add_gridspec(1, 3, width_ratios=[2.3, 1, 1.2])
    ax, ax_y, ax_e = (fig.add_subplot(gs[0, i]) for i in range(3))
    colours = np.where(ex.signs > 0, "#4575b4", "#fdae61")
    ax.bar(np.arange(P), ex.signs, color=colours, width=0.8)
    for i, j in ex.matching:
        lo, hi = sorted((int(i), int(j)))
        agree = ex.signs[lo] == ex.signs[hi]
        mid, half = (lo + hi) / 2, (hi - lo) / 2
        t = np.linspace(0, np.pi, 40)
        ax.plot(mid + half * np.cos(t), 1.1 + np.sin(t) * (0.1 + 0.75 * half / P),
                color=COLOURS["aligned" if agree else "conflicting"], lw=1.2)
    ax.set_ylim(-1.2, 2.0)
    ax.set_yticks([-1, 1])
    ax.set_xlabel("coordinate i")
    ax.set_ylabel("sign s_i")
    ax.set_title(f"P = {P}, {len(ex.matching)} pairs (α = {ex.alpha:.3g}), true f = {ex.f:.3f}")
    labels = ["Y = +1", "Y = 0", "Y = −1"]
    vals = [ex.p_plus, 1 - ex.p_plus - ex.p_minus, ex.p_minus]
    ax_y.bar(labels, vals, color=[COLOURS["aligned"], COLOURS["neutral"],
                                  COLOURS["conflicting"]])
    ax_y.set_ylim(0, 1)
    ax_y.set_title(f"one copy: E[Y] = {ex.p_plus - ex.p_minus:+.3f}")
    ax_y.grid(axis="y", alpha=0.3)
    names = [e.protocol.replace("entanglement_assisted", "ent.-assisted") for e in ex.estimates]
    ys = np.arange(len(ex.estimates))
    ax_e.axvspan(ex.f - ex.eps, ex.f + ex.eps, color=COLOURS["neutral"], alpha=0.25,
                 label="f ± ε")
    ax_e.axvline(ex.f, color="k", lw=1)
    cols = [COLOURS["quantum"], COLOURS["ea"], COLOURS["classical"]]
    for y, e, c in zip(ys, ex.estimates, cols):
        ax_e.plot(e.value, y, "o", color=c, ms=8)
        ax_e.annotate(f"{e.cost:,} {e.unit}", (e.value, y), textcoords="offset points",
                      xytext=(0, 8), ha="center", fontsize=8)
    ax_e.set_yticks(ys, names)
    ax_e.set_ylim(-0.6, len(ys) - 0.3)
    ax_e.set_xlim(-0.05, 1.05)
    ax_e.set_xlabel("estimate of f")
    ax_e.set_title(f"estimates (ε = {ex.eps:g}, noise = {ex.noise:g})")
    ax_e.legend(fontsize=8, loc="lower right")
    return fig


def plot_noise_sweep(sweep: "NoiseSweep") -> Figure:
    """Estimates of ``f`` against the depolarising probability: with hidden test copies (ratio
    estimator) and naive (assuming no noise), with the ``±eps`` band; right: copies needed."""
    fig = Figure(figsize=(10, 3.6), layout="constrained")
    ax, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1]})
    x = sweep.noises
    ax.fill_between(x, sweep.f - sweep.eps, sweep.f + sweep.eps, color=COLOURS["neutral"],
                    alpha=0.25, label="f ± ε")
    ax.plot(x, sweep.naive, "s--", color=COLOURS["classical"],
            label="naive: f̂ = (1 − Ȳ/α)/2")
    ax.plot(x, sweep.calibrated, "o-", color=COLOURS["quantum"],
            label="hidden test copies: f̂ = (1 − Ȳ_data/Ȳ_test)/2")
    ax.set_xlabel("depolarising probability (noise)")
    ax.set_ylabel("estimate of f")
    ax.set_title(f"Noise pulls the naive estimate to 1/2 (true f = {sweep.f:.3f})")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
    ax2.semilogy(x, sweep.copies, "o-", color=COLOURS["quantum"])
    ax2.set_xlabel("depolarising probability (noise)")
    ax2.set_ylabel("copies (data + test)")
    ax2.set_title("price of calibration")
    ax2.grid(alpha=0.3, which="both")
    return fig
