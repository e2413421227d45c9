"""Figures of the GapIP chapter (book/07_gapip.ipynb; presentation floor).

Pure functions: library results in, a new ``matplotlib.figure.Figure`` out; nothing is displayed
and no pyplot state is touched.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from ._base import nonempty, plain_log_x, plot_circuits

if TYPE_CHECKING:  # annotations only: the results come from the floors below
    from qiskit import QuantumCircuit

    from ..experiments.gapip import GapIPComparison, GapIPCurves, GapIPScaling, GapIPSchedule
    from ..gapip import Decision

__all__ = [
    "COLOURS",
    "plot_circuit",
    "plot_rotation",
    "plot_iae_run",
    "plot_gapip_scaling",
    "plot_gapip_curves",
    "plot_gapip_pingpong",
    "plot_gapip_comparison",
]

#: Colours of the two chapters (GapIP and TieAudit).
COLOURS = {
    "quantum": "#d95f0e",
    "classical": "#2c7fb8",
    "ea": "#7b3294",
    "aligned": "#1a9641",
    "conflicting": "#d7191c",
    "neutral": "#969696",
}


def plot_circuit(
    circuit: QuantumCircuit, title: str = "", *, width: float = 10.0, fold: int = -1
) -> Figure:
    """Draw one Qiskit circuit on a fresh figure, qubit 0 on top
    (:func:`~qring_edu.figures._base.plot_circuits`).

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu.gapip import gapip_circuit
    >>> g = h = np.ones(3) / np.sqrt(3)
    >>> fig = plot_circuit(gapip_circuit(g, h, 1), "GapIP, k = 1")
    >>> fig.axes[0].get_title()
    'GapIP, k = 1'
    """
    return plot_circuits([circuit], [title], width=width, fold=fold)


def plot_rotation(tau: float, k_max: int = 12) -> Figure:
    """Probability of the outcome "not a_h" after ``k`` iterations, ``sin^2((2k+1) theta)``, for
    an aligned (``<g,h> = tau``) and a conflicting (``<g,h> = -tau``) instance: the two angles
    ``theta = arccos((1 ± tau)/2)`` drift apart linearly in ``k``.

    Examples
    --------
    >>> fig = plot_rotation(0.2, k_max=6)
    >>> len(fig.axes[0].lines) >= 2                     # tau = +0.2 and -0.2
    True
    """
    ks = np.arange(k_max + 1)
    fine = np.linspace(0, k_max, 400)
    fig = Figure(figsize=(8, 3.4), layout="constrained")
    ax = fig.subplots()
    for c, key in ((tau, "aligned"), (-tau, "conflicting")):
        theta = math.acos((1 + c) / 2)
        ax.plot(fine, np.sin((2 * fine + 1) * theta) ** 2, color=COLOURS[key], alpha=0.35)
        label = f"{key}: <g,h> = {c:+.2f}, θ = {theta:.4f}"
        ax.plot(ks, np.sin((2 * ks + 1) * theta) ** 2, "o", color=COLOURS[key], label=label)
    ax.set(xlabel="iterations k (each = 2 passes of the register)", ylabel='P("not a_h")')
    ax.set(ylim=(-0.02, 1.02), title=f"Amplification separates the two promise cases (τ = {tau:g})")
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def plot_iae_run(decision: Decision, tau: float) -> Figure:
    """The confidence interval for ``a = sin^2 theta`` after each step of a quantum
    :func:`~qring_edu.gapip.gapip` decision against the qubits sent so far, with the threshold
    ``3/4 - tau^2/4`` and the two promise values ``threshold ± tau/2``.

    Examples
    --------
    >>> from qring_edu import gapip
    >>> from qring_edu.experiments.gapip import aligned_pair
    >>> g, h = aligned_pair(64, 0.3, seed=0)
    >>> fig = plot_iae_run(gapip(g, h, 0.3, seed=1), 0.3)
    >>> len(fig.axes) >= 1
    True
    """
    steps = decision.steps
    if not steps:
        why = "(was it run with protocol='quantum' or 'phase_estimation'?)"
        raise ValueError(f"decision has no IAE steps {why}")
    cum = np.cumsum([s.qubits for s in steps])
    lo = np.array([s.a_lo for s in steps])
    hi = np.array([s.a_hi for s in steps])
    thr = 0.75 - tau * tau / 4
    fig = Figure(figsize=(8, 3.4), layout="constrained")
    ax = fig.subplots()
    style = dict(color=COLOURS["quantum"], alpha=0.3, label="confidence interval for a")
    ax.fill_between(cum, lo, hi, step="post", **style)
    ax.axhline(thr, color="k", lw=1, label="threshold 3/4 − τ²/4")
    for y, key, label in (
        (thr - tau / 2, "aligned", "aligned (⟨g,h⟩ = τ)"),
        (thr + tau / 2, "conflicting", "conflicting (⟨g,h⟩ = −τ)"),
    ):
        ax.axhline(y, color=COLOURS[key], ls="--", lw=1, label=label)
    ax.set(xscale="log", ylim=(max(0.0, thr - 3 * tau), min(1.0, thr + 3 * tau)))
    ax.set(xlabel="qubits sent so far", ylabel="a = sin²θ")
    name = "phase" if decision.protocol == "phase_estimation" else "amplitude"
    verdict = f"verdict {decision.verdict!r} after {decision.cost:,} qubits, {len(steps)} steps"
    ax.set_title(f"Iterative {name} estimation: {verdict}")
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(alpha=0.3)
    return fig


def plot_gapip_scaling(result: GapIPScaling, *, highlight_tau: float | None = None) -> Figure:
    """Left: cost against ``1/tau`` (log-log) with the fitted power laws; right: decision accuracy
    of both protocols on promise instances.

    Examples
    --------
    >>> from qring_edu.experiments.gapip import gapip_scaling
    >>> result = gapip_scaling((0.4, 0.2, 0.1), 2**8, trials=2, confidence="hoeffding")
    >>> fig = plot_gapip_scaling(result, highlight_tau=0.2)
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_yscale()
    ('log', 'log')
    """
    x = 1.0 / result.taus
    fig = Figure(figsize=(10, 3.8), layout="constrained")
    ax, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [2.2, 1]})
    for key, label in (
        ("quantum", "quantum (qubits, mean)"),
        ("classical", "classical: cheaper of sketch / vector (bits)"),
    ):
        cost, slope = getattr(result, f"{key}_cost"), getattr(result, f"{key}_slope")
        ax.loglog(x, cost, "o", color=COLOURS[key], label=f"{label}, slope {slope:.2f}")
        fit = np.polyfit(np.log(x), np.log(cost), 1)
        ax.loglog(x, np.exp(np.polyval(fit, np.log(x))), "-", color=COLOURS[key], alpha=0.6)
    if highlight_tau is not None:
        label = f"τ = {highlight_tau:g}"
        ax.axvline(1.0 / highlight_tau, color=COLOURS["neutral"], ls=":", lw=1.2, label=label)
    plain_log_x(ax)
    ax.set(xlabel="1/τ", ylabel="communication per decision")
    ax.set_title(f"GapIP at P = 2^{int(round(math.log2(result.P)))}, δ = {result.delta:g}")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3, which="both")
    ax2.plot(x, result.quantum_accuracy, "o-", color=COLOURS["quantum"], label="quantum")
    style = dict(color=COLOURS["classical"], label="classical", alpha=0.8)
    ax2.plot(x, result.classical_accuracy, "s--", **style)
    ax2.axhline(1 - result.delta, color="k", lw=0.8, ls=":", label="1 − δ")
    ax2.set_xscale("log")
    plain_log_x(ax2)
    ax2.set(ylim=(0.5, 1.03), xlabel="1/τ", ylabel=f"fraction correct ({result.trials} instances)")
    ax2.set_title("decision accuracy")
    ax2.legend(fontsize=8, loc="lower left")
    ax2.grid(alpha=0.3)
    return fig


def plot_gapip_curves(result: GapIPCurves) -> Figure:
    """:func:`plot_gapip_scaling` of a :class:`~qring_edu.experiments.gapip.GapIPCurves`,
    with its ``tau`` marked.

    Examples
    --------
    >>> from qring_edu.experiments.gapip import gapip_curves
    >>> fig = plot_gapip_curves(gapip_curves(0.1, log2_P=8, trials=2, points=3))
    >>> len(fig.axes) >= 1
    True
    """
    return plot_gapip_scaling(result.scaling, highlight_tau=result.tau)


_LANES = {"server": 1.0, "client": 0.0}
_PARTY_COLOURS = {"server": "#2c7fb8", "client": "#1a9641"}


def plot_gapip_pingpong(schedules: Sequence[GapIPSchedule]) -> Figure:
    """The ping-pong of quantum GapIP, one panel per schedule
    (:func:`~qring_edu.experiments.gapip.gapip_schedule`): server (holds ``g``) and client (holds
    ``h``) lanes, time running right; boxes are operations, arrows passes of the register.

    Examples
    --------
    >>> from qring_edu.experiments.gapip import gapip_schedule
    >>> fig = plot_gapip_pingpong([gapip_schedule(3, 1), gapip_schedule(3, 2, "phase_estimation")])
    >>> len(fig.axes)                                   # one panel per schedule
    2
    """
    items = nonempty(schedules, "schedules", "schedule")

    def slot(kind: str, label: str) -> float:  # horizontal room of one event
        return 1.1 if kind == "pass" else max(0.9, 0.105 * len(label) + 0.35)

    layouts = []
    for sc in items:
        xs, cur = [], 0.0
        for kind, _, label in sc.events:
            w = slot(kind, label)
            xs.append(cur + w / 2)
            cur += w
        layouts.append((xs, cur))
    span = max(total for _, total in layouts)
    fig = Figure(figsize=(min(13.0, 0.62 * span + 2.2), 2.1 * len(items)), layout="constrained")
    axes = fig.subplots(len(items), 1, squeeze=False)[:, 0]
    for ax, sc, (xs, total) in zip(axes, items, layouts):
        for party, y in _LANES.items():
            ax.plot([0, total], [y, y], color=_PARTY_COLOURS[party], lw=0.8, alpha=0.4, zorder=0)
            text = f"{party}\n(holds {'g' if party == 'server' else 'h'})"
            style = dict(fontsize=9, color=_PARTY_COLOURS[party], fontweight="bold")
            ax.text(-0.25, y, text, ha="right", va="center", **style)
        n_pass = 0
        for x, (kind, party, label) in zip(xs, sc.events):
            if kind == "op":
                box = dict(boxstyle="round,pad=0.3", fc="white", ec=_PARTY_COLOURS[party], lw=1.2)
                style = dict(ha="center", va="center", fontsize=8.5, bbox=box, zorder=3)
                ax.text(x, _LANES[party], label, **style)
                continue
            n_pass += 1
            y0, y1 = _LANES[party], 1.0 - _LANES[party]
            sgn = 1.0 if y1 > y0 else -1.0
            ends = dict(xy=(x + 0.35, y1 - 0.14 * sgn), xytext=(x - 0.35, y0 + 0.14 * sgn))
            arrow = dict(arrowstyle="-|>", color=COLOURS["quantum"], lw=1.6)
            ax.annotate("", arrowprops=arrow, zorder=2, **ends)
            style = dict(ha="left", va="center", fontsize=7.5, color=COLOURS["quantum"])
            ax.text(x + 0.1, 0.5, f"pass {n_pass}\n{label}", **style)
        name = "phase estimation, power K"
        name = name if sc.protocol == "phase_estimation" else "amplitude estimation, k iterations"
        size = f"2^{sc.P.bit_length() - 1}" if sc.P & (sc.P - 1) == 0 and sc.P > 2 else f"{sc.P}"
        title = f"{name} = {sc.power} (P = {size}): {sc.passes} passes × {sc.width} qubits "
        title += f"= {sc.qubits} qubits per shot; the shot measures sin²({sc.multiple}θ)"
        ax.set_title(title, fontsize=9.5)
        ax.set(xlim=(-2.0, span + 0.1), ylim=(-0.4, 1.4))
        ax.axis("off")
    return fig


def plot_gapip_comparison(
    result: GapIPComparison, confidences: Sequence[str] = ("hoeffding", "exact")
) -> Figure:
    """Cost of GapIP against ``1/tau`` (log-log), one panel per family of bounds (the same on
    both sides): amplitude and phase estimation (mean qubits), the classical ``min(sketch, P b)``
    (sketch and vector drawn thin), the windows where each quantum protocol is cheaper shaded,
    and the Gap-Hamming boundary ``P = 4/tau^2`` (to its right the ``Omega(1/tau^2)`` lower
    bound does not apply).

    Examples
    --------
    >>> from qring_edu.experiments.gapip import gapip_comparison
    >>> families = (("quantum", "hoeffding"), ("quantum", "exact"))
    >>> result = gapip_comparison((0.3, 0.1), 2**8, trials=2, families=families)
    >>> fig = plot_gapip_comparison(result)
    >>> fig.axes[0].get_xscale()
    'log'
    """
    confs = list(confidences)
    if not confs:
        raise ValueError("confidences must name at least one family")
    x = 1.0 / result.taus
    fig = Figure(figsize=(5.2 * len(confs), 5.0), layout="constrained")
    axes = fig.subplots(1, len(confs), sharey=True, squeeze=False)[0]
    for ax, conf in zip(axes, confs):
        for protocol, colour, marker in (
            ("quantum", COLOURS["quantum"], "o"),
            ("phase_estimation", COLOURS["ea"], "s"),
        ):
            if (protocol, conf) not in result.families:
                continue
            name = "amplitude est." if protocol == "quantum" else "phase est."
            label = f"quantum, {name} (qubits)"
            ax.loglog(
                x, result.quantum(protocol, conf), marker + "-", color=colour, ms=4, label=label
            )
            lo, hi = result.window(protocol, conf)
            if not (math.isnan(lo) and math.isnan(hi)):  # shade the window; nan ends: x's range
                left = x.min() if math.isnan(hi) else 1.0 / hi
                right = x.max() if math.isnan(lo) else 1.0 / lo
                ax.axvspan(left, right, color=colour, alpha=0.12, label=f"{name} cheaper")
        blue = COLOURS["classical"]
        for values, fmt, colour, lw, label in (
            (result.classical_cost(conf), "-", blue, 2.4, "classical: min(sketch, vector) (bits)"),
            (result.sketch(conf), "--", blue, 0.9, "sketch alone"),
            (result.vector_bits, ":", "k", 1, "send the vector, P·b"),
        ):
            ax.loglog(x, values, fmt, color=colour, lw=lw, label=label)
        label = "P = 4/τ² (Gap-Hamming boundary)"
        ax.axvline(math.sqrt(result.P) / 2.0, color=COLOURS["neutral"], lw=1, ls="-.", label=label)
        plain_log_x(ax)
        ax.set_xlabel("1/τ")
        bounds = "Hoeffding" if conf == "hoeffding" else "exact"
        where = f"P = 2^{int(round(math.log2(result.P)))}, δ = {result.delta:g}"
        ax.set_title(f"{bounds} bounds on both sides ({where})", fontsize=10)
        ax.grid(alpha=0.3, which="both")
    handles = {}
    for ax in axes:  # one legend for both panels, below them
        for hnd, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, hnd)
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncol=4, fontsize=8)
    axes[0].set_ylabel(f"communication per decision (mean of {result.trials})")
    return fig
