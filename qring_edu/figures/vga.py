"""Figures of chapter 4, *Verified GHZ aggregation* (presentation floor).

Every function is pure: it takes results computed by the library (or by
:mod:`qring_edu.experiments.vga`) and returns a new ``matplotlib.figure.Figure``; nothing is
displayed and no pyplot state is touched.

Bit order in circuits: register ``w{j}`` is worker j's b qubits, ``w{j}_i`` has weight ``2**i``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np
from matplotlib.figure import Figure

from ._base import nonempty, plot_circuits

if TYPE_CHECKING:  # annotations only: the results come from the floors below
    from qiskit import QuantumCircuit

    from ..experiments.vga import AttackSweep, EpsilonGrid, TranscriptComparison
    from ..vga import VGAResult, VGARingResult

__all__ = [
    "COLOURS",
    "plot_vga_circuits",
    "plot_transcript_comparison",
    "plot_attack_sweep",
    "plot_epsilon_grid",
    "plot_source_comparison",
    "plot_pipeline",
]

COLOURS = {
    "honest": "#1a9850",
    "noisy": "#91bfdb",
    "known_pads": "#d73027",
    "eavesdropper": "#fc8d59",
    "a": "#1f77b4",
    "b": "#ff7f0e",
    "ring": "#d95f0e",
    "offline": "#abd9e9",
    "ghz_used": "#762a83",
    "ghz_tested": "#c2a5cf",
}


def plot_vga_circuits(circuits: Sequence["QuantumCircuit"],
                      titles: Sequence[str] | None = None, *, height: float = 3.2) -> Figure:
    """Draw VGA circuits (:func:`qring_edu.vga.vga_circuit`, :func:`ghz_test_circuit`) one under
    the other, unfolded (:func:`~qring_edu.figures._base.plot_circuits`); ``titles``: one per
    circuit; ``height``: inches per circuit."""
    return plot_circuits(circuits, titles, width=10, height=height, fold=-1)


def _heat(ax, counts: np.ndarray, title: str, vmax: float) -> None:
    size = counts.shape[0]
    freq = counts / max(counts.sum(), 1)
    im = ax.imshow(freq, cmap="viridis", vmin=0, vmax=vmax, origin="lower")
    ax.set_xticks(range(size))
    ax.set_yticks(range(size))
    ax.set_xlabel("$m_1$")
    ax.set_ylabel("$m_0$")
    ax.set_title(title, fontsize=10)
    return im


def plot_transcript_comparison(comp: "TranscriptComparison") -> Figure:
    """Joint histogram of the first two announcements ``(m_0, m_1)`` for both input sets, and
    the histogram of the announced sum. Uniform squares and one spike at the same sum = nothing
    but the sum is revealed."""
    fig = Figure(figsize=(11, 4.0), layout="constrained")
    axes = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 1.3]})
    size = 1 << comp.bits
    vmax = max(comp.joint_a.max() / comp.samples, comp.joint_b.max() / comp.samples, 1e-9)
    a_txt = ", ".join(str(int(v)) for v in comp.inputs_a)
    b_txt = ", ".join(str(int(v)) for v in comp.inputs_b)
    _heat(axes[0], comp.joint_a, f"inputs a = ({a_txt})", vmax)
    im = _heat(axes[1], comp.joint_b, f"inputs b = ({b_txt})", vmax)
    fig.colorbar(im, ax=axes[1], shrink=0.8, label="frequency of $(m_0, m_1)$")
    s = np.arange(size)
    axes[2].bar(s - 0.2, comp.sums_a / comp.samples, width=0.4, color=COLOURS["a"], label="a")
    axes[2].bar(s + 0.2, comp.sums_b / comp.samples, width=0.4, color=COLOURS["b"], label="b")
    axes[2].set_xticks(s)
    axes[2].set_xlabel(r"announced sum $\sum_j m_j$ mod $2^b$")
    axes[2].set_ylabel("frequency")
    axes[2].set_ylim(0, 1.05)
    axes[2].legend(frameon=False)
    verdict = ("same sum" if comp.same_sum else "different sums")
    axes[2].set_title(f"{verdict}; homogeneity p = {comp.p_value:.3f}", fontsize=10)
    fig.suptitle(f"What the workers broadcast, {comp.samples} runs each (b = {comp.bits}, "
                 f"P = {comp.inputs_a.size})", fontsize=11)
    return fig


def plot_attack_sweep(sweep: "AttackSweep") -> Figure:
    """Acceptance rate and the source's accuracy against the test fraction (left), epsilon for
    the same copy counts (right); the chosen fraction is marked."""
    fig = Figure(figsize=(10, 3.8))
    ax, ax_eps = fig.subplots(1, 2)
    colour = COLOURS.get(sweep.source, "k")
    f = sweep.fractions
    ax.plot(f, sweep.acceptance, "o-", color=colour, label="acceptance rate")
    ax.plot(f, sweep.accuracy, "s--", color="#4d4d4d", label="source's accuracy on inputs")
    ax.plot(f, sweep.fail_rate, "^:", color="#7b3294", label="failed tests / tests")
    ax.axhline(2.0 ** -sweep.bits, color="#999999", lw=0.8)
    ax.text(0.0, 2.0 ** -sweep.bits + 0.01, "blind guess $2^{-b}$", fontsize=8, color="#666666")
    ax.axvline(sweep.test_fraction, color=colour, alpha=0.3, lw=6)
    ax.set_xlim(-0.03, 1.0)
    ax.set_ylim(-0.03, 1.05)
    ax.set_xlabel("test fraction f")
    ax.set_ylabel("rate")
    ax.legend(fontsize=8, frameon=False, loc="center right")
    ax.set_title(f"source = {sweep.source!r}: P = {sweep.workers}, b = {sweep.bits}, "
                 f"d = {sweep.entries}, {sweep.runs} runs per point", fontsize=10)
    eps = np.clip(sweep.epsilon, 1e-300, None)
    ax_eps.semilogy(f, eps, "o-", color="#2c7bb6")
    ax_eps.axvline(sweep.test_fraction, color=colour, alpha=0.3, lw=6)
    ax_eps.set_xlabel("test fraction f")
    ax_eps.set_ylabel(r"$\varepsilon$")
    ax_eps.set_title(rf"soundness $\varepsilon$ (bad fraction $\beta$ = {sweep.bad_fraction:g}); "
                     rf"at f = {sweep.test_fraction:g}: {sweep.at('epsilon'):.2g}", fontsize=10)
    fig.tight_layout()
    return fig


def plot_epsilon_grid(grid: "EpsilonGrid") -> Figure:
    """epsilon against used copies (left) and against delivered copies (right), one curve per
    test fraction."""
    fig = Figure(figsize=(10, 3.8))
    ax_u, ax_n = fig.subplots(1, 2, sharey=True)
    for f, row, over in zip(grid.fractions, grid.epsilon, grid.overhead):
        eps = np.clip(row, 1e-300, None)
        label = f"f = {f:g} ({over:.3g}x copies)"
        ax_u.semilogy(grid.used, eps, "o-", ms=3, label=label)
        ax_n.semilogy(np.ceil(grid.used * over), eps, "o-", ms=3, label=label)
    ax_u.set_xlabel("used copies d")
    ax_n.set_xlabel("delivered copies N")
    ax_u.set_ylabel(r"$\varepsilon$")
    ax_u.legend(fontsize=8, frameon=False)
    ax_u.set_title(rf"bad fraction $\beta$ = {grid.bad_fraction:g}, "
                   rf"detection per test $\delta$ = {grid.detection:g}", fontsize=10)
    ax_n.set_title("the same, against what the source must deliver", fontsize=10)
    fig.tight_layout()
    return fig


def plot_source_comparison(results: Sequence["VGAResult"]) -> Figure:
    """One bar group per result: failed-test rate, acceptance, the source's accuracy."""
    results = nonempty(results, "results", "VGAResult")
    fig = Figure(figsize=(9, 3.4))
    ax = fig.subplots()
    x = np.arange(len(results))
    fail = [r.tests_failed / r.tests if r.tests else 0.0 for r in results]
    acc = [float(r.accepted) for r in results]
    guess = [r.attacker_accuracy for r in results]
    ax.bar(x - 0.25, fail, 0.25, color="#7b3294", label="failed tests / tests")
    ax.bar(x, acc, 0.25, color="#1a9850", label="accepted (1 = yes)")
    ax.bar(x + 0.25, guess, 0.25, color="#4d4d4d", label="source's accuracy on inputs")
    ax.set_xticks(x)
    ax.set_xticklabels([f"{r.source}\nf = {r.test_fraction:g}" for r in results])
    ax.set_ylim(0, 1.25)
    ax.legend(fontsize=8, frameon=False, loc="upper left", ncols=3)
    ax.set_ylabel("rate")
    fig.tight_layout()
    return fig


def plot_pipeline(result: "VGARingResult", true_sum: np.ndarray, decoded: np.ndarray) -> Figure:
    """Verified pads + superdense ring on a gradient: decoded vs true sum (left) and the combined
    ledger (right: qubits per directed link of the ring, GHZ copies shared by all workers)."""
    fig = Figure(figsize=(10, 3.8))
    ax, ax_l = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.2]})
    true_sum = np.asarray(true_sum, dtype=float)
    decoded = np.asarray(decoded, dtype=float)
    lim = float(np.max(np.abs(true_sum))) * 1.05 or 1.0
    ax.plot([-lim, lim], [-lim, lim], color="#999999", lw=0.8)
    ax.plot(true_sum, decoded, ".", ms=3, color=COLOURS["ring"])
    ax.set_xlabel("true sum of the gradients")
    ax.set_ylabel("VGA + superdense ring")
    ax.set_title(f"max error {np.max(np.abs(decoded - true_sum)):.2e}", fontsize=10)
    led = result.ledger
    names = ["ring online\nqubits / link", "ring offline\nqubits / link", "GHZ copies\nused",
             "GHZ copies\ntested"]
    values = [led.ring_online_qubits, led.ring_offline_qubits, led.ghz_used, led.ghz_tested]
    colours = [COLOURS["ring"], COLOURS["offline"], COLOURS["ghz_used"], COLOURS["ghz_tested"]]
    ax_l.bar(range(4), values, color=colours)
    for i, v in enumerate(values):
        ax_l.text(i, v, f"{v:,}", ha="center", va="bottom", fontsize=8)
    ax_l.set_xticks(range(4))
    ax_l.set_xticklabels(names, fontsize=8)
    ax_l.set_ylabel("count")
    ax_l.set_title(f"combined ledger, P = {led.workers}, accepted = {result.accepted}",
                   fontsize=10)
    fig.tight_layout()
    return fig
