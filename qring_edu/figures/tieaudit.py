"""Figures of the TieAudit chapter (book/08_tieaudit.ipynb; presentation floor).

Pure functions: library results in, a new ``matplotlib.figure.Figure`` out; nothing is displayed
and no pyplot state is touched. The colours and the circuit drawer are the GapIP chapter's
(:mod:`qring_edu.figures.gapip`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from ..experiments.tieaudit import tieaudit_noise_threshold
from ._base import plain_log_x
from .gapip import COLOURS, plot_circuit

if TYPE_CHECKING:  # annotations only: the results come from the floors below
    from ..experiments.tieaudit import AuditExplorer, NoiseThreshold, TieAuditScaling
    from ..experiments.tieaudit_noise import AttackSweep, DephasingSweep, NoiseSweep
    from ..experiments.tieaudit_plans import CopiesCurve

__all__ = [
    "plot_circuit",
    "plot_tieaudit_scaling",
    "plot_audit_explorer",
    "plot_noise_sweep",
    "plot_copies_vs_alpha",
    "plot_attack_sweep",
    "plot_dephasing_sweep",
    "plot_noise_threshold",
]


def plot_tieaudit_scaling(result: TieAuditScaling) -> Figure:
    """Cost of TieAudit against ``P`` (log-log): quantum qubits ``N log2 P``, classical bits
    ``Θ(sqrt P)`` (capped at ``P``), the crossover marked.

    Examples
    --------
    >>> from qring_edu.experiments.tieaudit import tieaudit_curves
    >>> fig = plot_tieaudit_scaling(tieaudit_curves(0.05))
    >>> fig.axes[0].get_xscale()
    'log'
    """
    fig = Figure(figsize=(8, 3.8), layout="constrained")
    ax = fig.subplots()
    quantum = f"quantum: {result.copies:,} copies × log₂P qubits "
    quantum += f"({result.bound.capitalize()} plan)"
    classical = f"classical subset: slope {result.classical_slope:.2f}"
    for values, fmt, key, label in (
        (result.quantum_cost, "o-", "quantum", quantum),
        (result.classical_cost, "s-", "classical", classical),
        (result.Ps, ":", "neutral", "send every sign (P bits)"),
    ):
        ax.loglog(result.Ps, values, fmt, color=COLOURS[key], base=2, label=label)
    if result.crossover_P:
        label = f"crossover P = 2^{int(math.log2(result.crossover_P))}"
        ax.axvline(result.crossover_P, color="k", lw=1, ls="--", label=label)
    ax.set(xlabel="P (coordinates)", ylabel="communication (qubits or bits)")
    ax.set_title(f"TieAudit at ε = {result.eps:g}, α = {result.alpha:g}, δ = {result.delta:g}")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3, which="both")
    return fig


def plot_audit_explorer(ex: AuditExplorer) -> Figure:
    """The TieAudit explorer: the sign pattern with the matching drawn as arcs (green: agree, red:
    disagree), the Born-rule distribution of the client's outcome ``Y``, and the three protocols'
    estimates of ``f`` with the ``±eps`` band.

    Examples
    --------
    >>> from qring_edu.experiments.tieaudit import audit_explorer
    >>> fig = plot_audit_explorer(audit_explorer(log2_P=4, seed=0))
    >>> len(fig.axes)
    3
    """
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
        colour = COLOURS["aligned" if agree else "conflicting"]
        ax.plot(
            mid + half * np.cos(t), 1.1 + np.sin(t) * (0.1 + 0.75 * half / P), color=colour, lw=1.2
        )
    ax.set_ylim(-1.2, 2.0)
    ax.set_yticks([-1, 1])
    ax.set(xlabel="coordinate i", ylabel="sign s_i")
    ax.set_title(f"P = {P}, {len(ex.matching)} pairs (α = {ex.alpha:.3g}), true f = {ex.f:.3f}")
    labels = ["Y = +1", "Y = 0", "Y = −1"]
    vals = [ex.p_plus, 1 - ex.p_plus - ex.p_minus, ex.p_minus]
    ax_y.bar(labels, vals, color=[COLOURS["aligned"], COLOURS["neutral"], COLOURS["conflicting"]])
    ax_y.set(ylim=(0, 1), title=f"one copy: E[Y] = {ex.p_plus - ex.p_minus:+.3f}")
    ax_y.grid(axis="y", alpha=0.3)
    names = [e.protocol.replace("entanglement_assisted", "ent.-assisted") for e in ex.estimates]
    ys = np.arange(len(ex.estimates))
    ax_e.axvspan(ex.f - ex.eps, ex.f + ex.eps, **_BAND)
    ax_e.axvline(ex.f, color="k", lw=1)
    cols = [COLOURS["quantum"], COLOURS["ea"], COLOURS["classical"]]
    for y, e, c in zip(ys, ex.estimates, cols):
        xerr = [[e.value - e.lo], [e.hi - e.value]]
        ax_e.errorbar(e.value, y, xerr=xerr, fmt="o", color=c, ms=8, capsize=3)
        style = dict(textcoords="offset points", xytext=(0, 8), ha="center", fontsize=8)
        ax_e.annotate(f"{e.cost:,} {e.unit}", (e.value, y), **style)
    ax_e.set_yticks(ys, names)
    ax_e.set(ylim=(-0.6, len(ys) - 0.3), xlim=(-0.05, 1.05))
    ax_e.set_xlabel("estimate of f and its interval")
    extra = {"uniform": "", "data_only": ", data-only attack", "knows_twirl": ", twirl known"}
    ax_e.set_title(
        f"estimates (ε = {ex.eps:g}, noise = {ex.noise:g}{extra[ex.attack]})", fontsize=9
    )
    ax_e.legend(fontsize=8, loc="lower right")
    return fig


_BAND = dict(color=COLOURS["neutral"], alpha=0.25, label="f ± ε")  # every estimate's target
_NOISE = "depolarising probability (noise)"


def plot_noise_sweep(sweep: NoiseSweep) -> Figure:
    """Estimates of ``f`` against the depolarising probability: the verified protocol (hidden
    tests, twirl) with its Freedman interval, and the naive reading (assuming no noise), with the
    ``±eps`` band; right: copies sent.

    Examples
    --------
    >>> from qring_edu.experiments.tieaudit_noise import noise_sweep
    >>> fig = plot_noise_sweep(noise_sweep((0.0, 0.2, 0.4), log2_P=8, eps=0.1))
    >>> fig.axes[0].get_xlabel()
    'depolarising probability (noise)'
    """
    fig = Figure(figsize=(10, 3.6), layout="constrained")
    ax, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1]})
    x = sweep.noises
    ax.fill_between(x, sweep.f - sweep.eps, sweep.f + sweep.eps, **_BAND)
    ax.plot(x, sweep.naive, "s--", color=COLOURS["classical"], label="naive: f̂ = (1 − Ȳ/α)/2")
    orange = COLOURS["quantum"]
    ax.fill_between(x, sweep.lo, sweep.hi, color=orange, alpha=0.15, label="Freedman interval")
    label = "hidden tests and twirl: f̂ from q A = (1 − q)(1 − 2f) B"
    ax.plot(x, sweep.calibrated, "o-", color=orange, label=label)
    ax.set(xlabel=_NOISE, ylabel="estimate of f")
    ax.set_title(f"Noise pulls the naive estimate to 1/2 (true f = {sweep.f:.3f})")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
    ax2.semilogy(x, sweep.copies, "o-", color=orange)
    ax2.set(xlabel=_NOISE, ylabel="copies (data + test)", title="price of calibration")
    ax2.grid(alpha=0.3, which="both")
    return fig


def plot_copies_vs_alpha(curve: CopiesCurve) -> Figure:
    """Noiseless TieAudit copies against the coverage ``alpha`` (log-log): Hoeffding's plan
    (slope about -2: it only knows that ``Y`` lies in ``[-1, 1]``), Bernstein's (slope about -1:
    ``Var Y <= alpha``) and the exact plans.

    Examples
    --------
    >>> from qring_edu.experiments.tieaudit_plans import tieaudit_copies_curve
    >>> curve = tieaudit_copies_curve((1.0, 0.3, 0.1, 0.03), 0.2, exact_alphas=(1.0,))
    >>> fig = plot_copies_vs_alpha(curve)
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_yscale()
    ('log', 'log')
    """
    fig = Figure(figsize=(7.5, 3.8), layout="constrained")
    ax = fig.subplots()
    for bound, key in (("hoeffding", "classical"), ("bernstein", "quantum")):
        label = f"{bound.capitalize()} (slope {curve.slope(bound):.2f})"
        ax.loglog(curve.alphas, getattr(curve, bound), "-", color=COLOURS[key], label=label)
    ax.loglog(curve.exact_alphas, curve.exact, "o", color="k", label="exact plan")
    for a, n in zip(curve.exact_alphas, curve.exact):
        ax.annotate(f"{int(n):,}", (a, n), textcoords="offset points", xytext=(6, -10), fontsize=8)
    ax.invert_xaxis()
    plain_log_x(ax)
    ax.set(xlabel="coverage α = 2|M|/P (smaller to the right)", ylabel="copies N")
    ax.set_title(f"Copies for ε = {curve.eps:g}, δ = {curve.delta:g}: the 1/α² is Hoeffding's")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left")
    return fig


_CASE_STYLE = {
    "uniform": ("#2c7fb8", "s--", "noise on every copy"),
    "data_only": ("#1a9641", "o-", "data-only attack, twirl secret"),
    "knows_twirl": ("#d7191c", "o-", "data-only attack, twirl known (fixed tests)"),
}


def plot_attack_sweep(sweep: AttackSweep) -> Figure:
    """Mean estimate of ``f`` against the noise for each channel of the sweep, with the
    ``f ± eps`` band (left), and the tests' estimate of the attenuation with ``1 - noise``.

    Examples
    --------
    >>> from qring_edu.experiments.tieaudit_noise import tieaudit_attack_sweep
    >>> fig = plot_attack_sweep(tieaudit_attack_sweep((0.0, 0.5), log2_P=6, seeds=2))
    >>> len(fig.axes)                                   # estimates, attenuation
    2
    """
    fig = Figure(figsize=(10, 3.8), layout="constrained")
    ax, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.5, 1]})
    x = sweep.noises
    ax.fill_between(x, sweep.f - sweep.eps, sweep.f + sweep.eps, **_BAND)
    for case in sweep.cases:
        colour, style, label = _CASE_STYLE[case]
        ax.plot(x, sweep.mean(case), style, color=colour, ms=5, label=label)
        ax2.plot(x, sweep.mean_attenuation(case), style, color=colour, ms=5, label=label)
    ax2.plot(x, 1 - x, ":", color="k", lw=1, label="1 − noise")
    seeds = sweep.estimates.shape[2]
    ax.set(xlabel=_NOISE, ylabel=f"mean f̂ over {seeds} runs")
    ax.set_title(f"The data-only attack (P = {sweep.P}, true f = {sweep.f:.3f})")
    ax.legend(fontsize=7.5, loc="upper left")
    ax.grid(alpha=0.3)
    ax2.set(xlabel=_NOISE, ylabel="η̂ from the test copies", ylim=(0, 1.08))
    ax2.set_title("what the tests report")
    ax2.legend(fontsize=7, loc="lower left")
    ax2.grid(alpha=0.3)
    return fig


def plot_dephasing_sweep(sweep: DephasingSweep) -> Figure:
    """Estimates of ``f`` under dephasing against its probability: without the twirl (it
    converges to ``f + bias``, drawn as a line) and with the protocol's Clifford twirl
    (unbiased), with the ``f ± eps`` band.

    Examples
    --------
    >>> from qring_edu.experiments.tieaudit_noise import dephasing_sweep
    >>> fig = plot_dephasing_sweep(dephasing_sweep((0.0, 0.1), log2_P=6, min_distance=4, seeds=1))
    >>> fig.axes[0].get_xlabel()
    'dephasing probability p per qubit'
    """
    fig = Figure(figsize=(7.5, 3.6), layout="constrained")
    ax = fig.subplots()
    x = sweep.noises
    ax.fill_between(x, sweep.f - sweep.eps, sweep.f + sweep.eps, **_BAND)
    red, mean = COLOURS["conflicting"], f"(mean of {sweep.seeds})"
    label = "f + ratio bias (many-copies limit)"
    ax.plot(x, sweep.f + sweep.bias, "-", color=red, lw=1, label=label)
    ax.plot(x, sweep.plain, "o", color=red, label=f"without the twirl {mean}")
    label = f"with the Clifford twirl {mean}"
    ax.plot(x, sweep.twirled, "s", color=COLOURS["classical"], label=label)
    ax.set(xlabel="dephasing probability p per qubit", ylabel="estimate of f")
    title = f"Dephasing biases the estimate without the twirl (P = {sweep.P}, distance ≥ "
    ax.set_title(title + f"{sweep.min_distance} disagree)", fontsize=10)
    ax.legend(fontsize=8, loc="lower left")
    ax.grid(alpha=0.3)
    return fig


def plot_noise_threshold(r: NoiseThreshold) -> Figure:
    """Left: qubits of the verified protocol against ``n = log2 P`` under per-pair Werner noise
    (at ``r.fidelity``, 1 and ``F* = 2^(-1/4)``) and the one-way classical bits (log scale).
    Right: the crossover ``n`` against the fidelity, running off at ``F*``.

    Examples
    --------
    >>> from qring_edu.experiments.tieaudit import noise_threshold_curves
    >>> fig = plot_noise_threshold(noise_threshold_curves(0.9, max_log2_P=80))
    >>> fig.axes[1].get_xlabel()
    'per-pair fidelity F'
    """
    f_star = tieaudit_noise_threshold()
    fig = Figure(figsize=(10, 3.8), layout="constrained")
    ax, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.5, 1]})
    n = r.log2_P
    ax.semilogy(n, r.classical, "-", color=COLOURS["classical"], label="classical one-way (bits)")
    ax.semilogy(n, r.noiseless, "--", color=COLOURS["neutral"], label="quantum, F = 1")
    ax.semilogy(n, r.at_threshold, ":", color="k", label=f"quantum, F = F* = {f_star:.3f}")
    label = f"quantum, F = {r.fidelity:g}"
    ax.semilogy(n, r.quantum, "-", color=COLOURS["quantum"], lw=2, label=label)
    cross = r.crossover_log2_P
    if cross:
        ax.axvline(cross, color=COLOURS["quantum"], lw=1, ls="--")
        style = dict(textcoords="offset points", xytext=(6, -14), fontsize=8)
        ax.annotate(f"crossover P = 2^{cross}", (cross, r.classical[cross - 1]), **style)
    ax.set(xlabel="n = log₂ P", ylabel="communication (qubits or bits)")
    ax.set_title(f"Per-pair noise, ε = {r.eps:g}, α = {r.alpha:g}, δ = {r.delta:g}", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3, which="both")
    shown = [(F, c) for F, c in zip(r.fidelities, r.crossovers) if c]
    ax2.semilogy([F for F, _ in shown], [c for _, c in shown], "o-", color=COLOURS["quantum"])
    ax2.axvline(f_star, color="k", ls=":", label=f"F* = 2^(−1/4) ≈ {f_star:.3f}")
    if r.crossover_log2_P:
        ax2.plot([r.fidelity], [r.crossover_log2_P], "s", color="k", ms=8, label="this fidelity")
    ax2.set_yticks([20, 50, 100, 200, 400], ["20", "50", "100", "200", "400"])
    ax2.minorticks_off()
    ax2.set(xlim=(f_star - 0.01, 1.005), xlabel="per-pair fidelity F")
    ax2.set_ylabel("crossover n = log₂ P")
    ax2.set_title("the crossover runs off as F → F*", fontsize=10)
    ax2.legend(fontsize=8, loc="upper right")
    ax2.grid(alpha=0.3, which="both")
    return fig
