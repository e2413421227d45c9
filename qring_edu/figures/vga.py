"""Figures of chapter 5, *Verified GHZ aggregation* (presentation floor; book/05_vga.ipynb).

Every function is pure: it takes results computed by the library (or by
:mod:`qring_edu.experiments.vga`) and returns a new ``matplotlib.figure.Figure``; nothing is
displayed and no pyplot state is touched.

Bit order in circuits: register ``w{j}`` is worker j's b qubits, ``w{j}_i`` has weight ``2**i``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from ..experiments.vga import attack_label
from ._base import label_bars, nonempty, plot_circuits

if TYPE_CHECKING:  # annotations only: the results come from the floors below
    from qiskit import QuantumCircuit

    from ..experiments.vga import AttackSweep, EpsilonFloor, EpsilonGrid, ExactPrivacy
    from ..vga import VGAResult

__all__ = [
    "COLOURS",
    "TIMELINE_STEPS",
    "source_colour",
    "plot_vga_timeline",
    "plot_vga_circuits",
    "plot_exact_privacy",
    "plot_epsilon_floor",
    "plot_attack_sweep",
    "plot_epsilon_grid",
    "plot_source_comparison",
]

COLOURS = {
    "Honest": "#1a9850",
    "Dephasing": "#91bfdb",
    "KnownPads": "#d73027",
    "Eavesdropper": "#fc8d59",
    "a": "#1f77b4",
    "b": "#ff7f0e",
    "ring": "#d95f0e",
    "offline": "#abd9e9",
    "ghz_used": "#762a83",
    "ghz_tested": "#c2a5cf",
    "source": "#f4a582",
    "workers": "#d8daeb",
    "channel": "#e0e0e0",
}

#: The steps of one VGA run, as :func:`plot_vga_timeline` draws them: (title, lane, what happens,
#: who knows what afterwards). Lanes: "source", "workers", "channel".
TIMELINE_STEPS = (
    (
        "1. delivery",
        "source",
        "sends N register copies\n(b qubit GHZ states each),\none register per worker",
        "source: the states it made (and any\nmemory entangled with them)",
    ),
    (
        "2. secret split",
        "workers",
        "fresh randomness picks\nT = fN copies to test;\nthe other N − T are used",
        "everyone, afterwards: which copies\nare tested, too late to change them",
    ),
    (
        "3. GHZ tests",
        "workers",
        "every worker measures\nX or Y (an even number\nof Y's), announces its bit",
        "everyone: settings, outcomes, verdict\n(go on only if every test passes)",
    ),
    (
        "4. pads",
        "workers",
        "Fourier measurement of\neach used register:\nzero-sum pads r_j",
        "worker j alone: r_j (genuine GHZ:\nnobody else, not even the source)",
    ),
    (
        "5. broadcast",
        "channel",
        "worker j announces\nm_j = x_j + r_j mod 2^b",
        "everyone, eavesdropper included:\nevery m_j, uniform given their sum",
    ),
    (
        "6. sum",
        "channel",
        "everyone adds:\nΣ m_j ≡ Σ x_j mod 2^b",
        "everyone: the sum, and nothing else",
    ),
)


def source_colour(source) -> str:
    """The colour of a source of :mod:`qring_edu.vga` (by its class name; black otherwise).

    Examples
    --------
    >>> from qring_edu.vga import KnownPads
    >>> source_colour(KnownPads(0.5))
    '#d73027'
    """
    return COLOURS.get(type(source).__name__, "k")


def plot_vga_timeline() -> Figure:
    """The VGA protocol as a timeline (a diagram; nothing is computed), time running down: the
    steps of :data:`TIMELINE_STEPS` on their lanes, arrows for what travels, who knows what.

    Examples
    --------
    >>> fig = plot_vga_timeline()                       # a diagram; nothing is computed
    >>> len(fig.axes)
    1
    """
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    steps = TIMELINE_STEPS
    n = len(steps)
    width_in, row = 8.6, 1.0
    fig = Figure(figsize=(width_in, 1.0 + row * n))
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    height = 0.9 + row * n
    ax.set(xlim=(0, width_in), ylim=(0, height))
    ax.axis("off")
    lanes = {"source": 1.25, "workers": 3.0, "channel": 4.75}  # lane centres (inches)
    lane_names = ("GHZ source\n(untrusted)", "P workers", "broadcast channel\n(public)")
    box_w, box_h, lane_w = 1.62, 0.78, 1.72
    knows_x = 5.75
    top = height - 0.7
    bold = dict(va="center", fontsize=9.5, fontweight="bold")
    for (lane, x), name in zip(lanes.items(), lane_names):
        style = dict(
            boxstyle="round,pad=0.02", facecolor=COLOURS[lane], alpha=0.35, edgecolor="none"
        )
        ax.add_patch(FancyBboxPatch((x - lane_w / 2, 0.05), lane_w, top - 0.02, **style))
        ax.text(x, top + 0.3, name, ha="center", **bold)
    ax.text(knows_x + 0.05, top + 0.3, "who knows what afterwards", ha="left", **bold)
    arrow = dict(arrowstyle="-|>", color="#444444", lw=1.2)
    ax.annotate("", xy=(0.18, 0.15), xytext=(0.18, top - 0.05), arrowprops=arrow)
    style = dict(fontsize=8.5, color="#444444", rotation=90, va="top", ha="right")
    ax.text(0.1, top - 0.1, "time", **style)
    centres = []
    bold_step = dict(va="center", fontweight="bold")
    for i, (title, lane, what, knows) in enumerate(steps):
        y = top - row * (i + 0.5)
        x = lanes[lane]
        centres.append((x, y))
        style = dict(boxstyle="round,pad=0.03", facecolor="white", edgecolor="#333333", lw=1.0)
        ax.add_patch(FancyBboxPatch((x - box_w / 2, y - box_h / 2), box_w, box_h, **style))
        ax.text(x, y + box_h / 2 - 0.14, title, ha="center", fontsize=9, **bold_step)
        ax.text(x, y - 0.1, what, ha="center", va="center", fontsize=7.8, linespacing=1.1)
        box = dict(boxstyle="round,pad=0.3", facecolor="#fff7bc", edgecolor="#cccccc")
        ax.text(knows_x, y, knows, va="center", fontsize=8, linespacing=1.15, bbox=box)

    def arrow(a, b, colour="#666666", label=None):
        style = dict(arrowstyle="-|>", mutation_scale=11, lw=1.2, shrinkA=0, shrinkB=0)
        ax.add_patch(FancyArrowPatch(a, b, color=colour, **style))
        if label:
            x, y = (a[0] + b[0]) / 2 + 0.08, (a[1] + b[1]) / 2 + 0.06
            ax.text(x, y, label, fontsize=7.8, color=colour, ha="left", va="bottom")

    for i in range(n - 1):
        (x1, y1), (x2, y2) = centres[i], centres[i + 1]
        colour = COLOURS["KnownPads"] if i == 0 else "#666666"
        label = {0: "N copies", 3: "m_j"}.get(i)
        if x1 == x2:
            arrow((x1, y1 - box_h / 2), (x2, y2 + box_h / 2), colour)
        else:
            a, b = (x1 + box_w / 2 - 0.1, y1 - box_h / 2), (x2 - box_w / 2 + 0.1, y2 + box_h / 2)
            arrow(a, b, colour, label)
    # the test outcomes travel on the channel too
    x3, y3 = centres[2]
    cx = lanes["channel"]
    style = dict(facecolor="white", edgecolor="#999999", lw=0.8, linestyle="--")
    ax.add_patch(
        FancyBboxPatch((cx - 0.7, y3 - 0.25), 1.4, 0.5, boxstyle="round,pad=0.03", **style)
    )
    ax.text(cx, y3, "settings, outcomes,\nverdict", ha="center", va="center", fontsize=7.8)
    arrow((x3 + box_w / 2, y3), (cx - 0.7, y3))
    return fig


def plot_vga_circuits(
    circuits: Sequence[QuantumCircuit], titles: Sequence[str] | None = None, *, height: float = 3.2
) -> Figure:
    """Draw VGA circuits (:func:`qring_edu.vga.vga_circuit`,
    :func:`qring_edu.vga_security.ghz_test_circuit`) one under the other, unfolded
    (:func:`~qring_edu.figures._base.plot_circuits`); ``height``: inches per circuit.

    Examples
    --------
    >>> from qring_edu.vga import vga_circuit
    >>> fig = plot_vga_circuits([vga_circuit([1, 2, 3], 2)], ["inputs 1, 2, 3 (b = 2)"])
    >>> fig.axes[0].get_title()
    'inputs 1, 2, 3 (b = 2)'
    """
    return plot_circuits(circuits, titles, width=10, height=height, fold=-1)


def plot_attack_sweep(sweep: AttackSweep) -> Figure:
    """Acceptance rate and the source's accuracy against the test fraction (left), epsilon for
    the same copy counts (right); the chosen fraction is marked.

    Examples
    --------
    >>> from qring_edu.experiments.vga import attack_sweep
    >>> from qring_edu.vga import KnownPads
    >>> fig = plot_attack_sweep(attack_sweep(KnownPads(), 0.5, 4, runs=10))
    >>> fig.axes[0].get_xlabel()
    'test fraction f'
    """
    fig = Figure(figsize=(10, 3.8))
    ax, ax_eps = fig.subplots(1, 2)
    colour = source_colour(sweep.source)
    f = sweep.fractions
    ax.plot(f, sweep.acceptance, "o-", color=colour, label="acceptance rate")
    ax.plot(f, sweep.accuracy, "s--", color="#4d4d4d", label="source's accuracy on inputs")
    ax.plot(f, sweep.fail_rate, "^:", color="#7b3294", label="failed tests / tests")
    ax.axhline(2.0**-sweep.bits, color="#999999", lw=0.8)
    ax.text(0.0, 2.0**-sweep.bits + 0.01, "blind guess $2^{-b}$", fontsize=8, color="#666666")
    ax.set(xlim=(-0.03, 1.0), ylim=(-0.03, 1.05), ylabel="rate")
    ax.legend(fontsize=8, frameon=False, loc="center right")
    title = f"source {sweep.source!r}: P = {sweep.workers}, b = {sweep.bits}, "
    ax.set_title(title + f"d = {sweep.entries}, {sweep.runs} runs per point", fontsize=10)
    eps = np.clip(sweep.epsilon, 1e-300, None)
    ax_eps.semilogy(f, eps, "o-", color="#2c7bb6")
    for a in (ax, ax_eps):
        a.axvline(sweep.test_fraction, color=colour, alpha=0.3, lw=6)
        a.set_xlabel("test fraction f")
    ax_eps.set_ylabel(r"$\varepsilon$")
    ax_eps.set_title(
        rf"$\varepsilon$ ($\beta$ = {sweep.bad_fraction:g}, "
        f"{attack_label(sweep.attack)}, "
        rf"$\delta$ = {sweep.detection:.3g}); "
        rf"at f = {sweep.test_fraction:g}: {sweep.at('epsilon'):.2g}",
        fontsize=9,
    )
    fig.tight_layout()
    return fig


def plot_epsilon_grid(grid: EpsilonGrid) -> Figure:
    """epsilon against used copies (left) and against delivered copies (right), one curve per
    test fraction.

    Examples
    --------
    >>> from qring_edu.experiments.vga import epsilon_grid
    >>> from qring_edu.vga_security import SplitWorker
    >>> fig = plot_epsilon_grid(epsilon_grid(0.1, SplitWorker(), max_used=100))
    >>> len(fig.axes[0].lines)                          # one curve per test fraction
    3
    """
    fig = Figure(figsize=(10, 3.8))
    ax_u, ax_n = fig.subplots(1, 2, sharey=True)
    for f, row, over in zip(grid.fractions, grid.epsilon, grid.overhead):
        eps = np.clip(row, 1e-300, None)
        label = f"f = {f:g} ({over:.3g}x copies)"
        ax_u.semilogy(grid.used, eps, "o-", ms=3, label=label)
        ax_n.semilogy(np.ceil(grid.used * over), eps, "o-", ms=3, label=label)
    ax_u.set(xlabel="used copies d", ylabel=r"$\varepsilon$")
    ax_n.set_xlabel("delivered copies N")
    ax_u.legend(fontsize=8, frameon=False)
    ax_u.set_title(f"{grid.label}, " rf"$\beta$ = {grid.bad_fraction:g}", fontsize=9)
    ax_n.set_title("the same, against what the source must deliver", fontsize=10)
    fig.tight_layout()
    return fig


def plot_source_comparison(results: Sequence[VGAResult]) -> Figure:
    """One bar group per result: failed-test rate, acceptance, the source's accuracy.

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu import vga_aggregate
    >>> inputs = np.random.default_rng(0).integers(0, 256, size=(3, 20))
    >>> from qring_edu.vga import Honest, KnownPads
    >>> runs = [vga_aggregate(inputs, source=s, seed=1) for s in (Honest(), KnownPads())]
    >>> fig = plot_source_comparison(runs)
    >>> len(fig.axes)
    1
    """
    results = nonempty(results, "results", "VGAResult")
    fig = Figure(figsize=(9, 3.4))
    ax = fig.subplots()
    x = np.arange(len(results))
    fail = [r.tests_failed / r.tests if r.tests else 0.0 for r in results]
    acc = [float(r.accepted) for r in results]
    guess = [r.attacker_accuracy for r in results]
    for dx, values, colour, label in (
        (-0.25, fail, "#7b3294", "failed tests / tests"),
        (0, acc, "#1a9850", "accepted (1 = yes)"),
        (0.25, guess, "#4d4d4d", "source's accuracy on inputs"),
    ):
        ax.bar(x + dx, values, 0.25, color=colour, label=label)
    ticks = []  # the source's class, then its parameters and the test fraction
    for r in results:
        params = [f"{k} = {v:g}" for k, v in vars(r.source).items()] + [f"f = {r.test_fraction:g}"]
        ticks.append(f"{type(r.source).__name__}\n" + ", ".join(params))
    ax.set_xticks(x, ticks, fontsize=9)
    ax.set(ylim=(0, 1.25), ylabel="rate")
    ax.legend(fontsize=8, frameon=False, loc="upper left", ncols=3)
    fig.tight_layout()
    return fig


def plot_exact_privacy(result: ExactPrivacy) -> Figure:
    """Exact laws of the first two announcements ``(m_0, m_1)`` for both input sets and of the
    announced sum, and the exact total-variation distances (between the transcripts; of each,
    joint with the attacker's holdings, from the ideal).

    Examples
    --------
    >>> from qring_edu.experiments.vga import exact_privacy
    >>> from qring_edu.vga import KnownPads
    >>> fig = plot_exact_privacy(exact_privacy(source=KnownPads()))
    >>> len(fig.axes) >= 1
    True
    """
    fig = Figure(figsize=(12, 4.0), layout="constrained")
    axes = fig.subplots(1, 4, gridspec_kw={"width_ratios": [1, 1, 1.1, 1.1]})
    size = 1 << result.bits
    vmax = max(result.joint_a.max(), result.joint_b.max(), 1e-12)
    for ax, joint, inputs in (
        (axes[0], result.joint_a, result.inputs_a),
        (axes[1], result.joint_b, result.inputs_b),
    ):
        im = ax.imshow(joint, cmap="viridis", vmin=0, vmax=vmax, origin="lower")
        ax.set_xticks(range(size))
        ax.set_yticks(range(size))
        ax.set(xlabel="$m_1$", ylabel="$m_0$")
        ax.set_title(f"inputs ({', '.join(str(int(v)) for v in inputs)})", fontsize=10)
    fig.colorbar(im, ax=axes[1], shrink=0.8, label="probability of $(m_0, m_1)$")
    s = np.arange(size)
    axes[2].bar(s - 0.2, result.sums_a, width=0.4, color=COLOURS["a"], label="a")
    axes[2].bar(s + 0.2, result.sums_b, width=0.4, color=COLOURS["b"], label="b")
    axes[2].set_xticks(s)
    axes[2].set(xlabel=r"announced sum $\sum_j m_j$ mod $2^b$", ylabel="probability")
    axes[2].set_ylim(0, 1.05)
    axes[2].legend(frameon=False)
    axes[2].set_title(f"TV(transcripts a, b) = {result.between:.3g}", fontsize=10)
    values = [result.distance_a, result.distance_b]
    axes[3].bar(range(2), values, color=source_colour(result.source))
    label_bars(axes[3], range(2), values, ".4g", 0.02, fontsize=9)
    axes[3].set_xticks(range(2), ["a from ideal", "b from ideal"])
    axes[3].set(ylim=(0, 1.1), ylabel="total-variation distance")
    title = f"source {result.source!r}, k = {result.amplification}:\n"
    axes[3].set_title(title + "transcript and attacker's holdings", fontsize=9)
    title = f"Exact transcript laws, P = {result.inputs_a.size}, b = {result.bits} (no sampling)"
    fig.suptitle(title, fontsize=11)
    return fig


def plot_epsilon_floor(result: EpsilonFloor) -> Figure:
    """epsilon against the delivered copies, for beta = 0 (left: never below 1 - f) and a bad
    fraction beta (right), one curve per detection, the detection-free floor dashed.

    Examples
    --------
    >>> from qring_edu.experiments.vga import epsilon_floor_sweep
    >>> fig = plot_epsilon_floor(epsilon_floor_sweep(max_copies=200))
    >>> fig.axes[0].get_yscale()
    'linear'
    """
    fig = Figure(figsize=(10, 3.8), layout="constrained")
    ax0, ax1 = fig.subplots(1, 2)
    n = result.n_copies
    for label, det, zero, beta in zip(
        result.labels, result.detections, result.epsilon_zero, result.epsilon_beta
    ):
        name = rf"{label}, $\delta$ = {det:.3g}"
        ax0.semilogx(n, zero, "o-", ms=3, label=name)
        ax1.loglog(n, np.clip(beta, 1e-300, None), "o-", ms=3, label=name)
    floor = dict(lw=1, label="floor (every detection)")
    ax0.semilogx(n, result.floor_zero, "k--", **floor)
    ax1.loglog(n, np.clip(result.floor_beta, 1e-300, None), "k--", **floor)
    ax0.set_ylim(0, 1.02)
    ax0.axhline(1 - result.test_fraction, color="#999999", lw=0.6)
    f = f"f = {result.test_fraction:g}"
    for ax, beta in ((ax0, "0 (no used copy may be bad)"), (ax1, f"{result.bad_fraction:g}")):
        ax.set_xlabel("delivered copies N")
        ax.set_title(rf"$\beta$ = {beta}, {f}", fontsize=10)
    ax0.set_ylabel(r"$\varepsilon$")
    ax1.set_ylim(1e-16, 2)
    ax0.legend(fontsize=7.5, frameon=False, loc="lower left")
    return fig
