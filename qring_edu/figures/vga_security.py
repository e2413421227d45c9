"""Figures of the VGA security chapter (book/06_vga_security.ipynb; presentation floor).

Every function is pure: it takes results computed by the library (or by
:mod:`qring_edu.experiments.vga_security`) and returns a new ``matplotlib.figure.Figure``;
nothing is displayed and no pyplot state is touched. Colours: :data:`qring_edu.figures.vga.COLOURS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from .vga import COLOURS

if TYPE_CHECKING:  # annotations only: the results come from the floors below
    from ..experiments.vga_security import AmplificationSweep, FiniteCopyCurve, PartialCopySweep
    from ..vga import VGARingResult

__all__ = ["plot_partial_copies", "plot_finite_copy", "plot_amplification", "plot_pipeline"]


def plot_pipeline(result: VGARingResult, true_sum: np.ndarray, decoded: np.ndarray) -> Figure:
    """Verified pads + superdense ring on a gradient: decoded vs true sum (left) and the combined
    ledger (right: qubits per directed link of the ring, GHZ copies shared by all workers).

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu import fixed_point
    >>> from qring_edu.vga import vga_ring_allreduce
    >>> grads = np.random.default_rng(0).uniform(-1, 1, size=(4, 16))
    >>> codec = fixed_point(4, 16, 1.0)
    >>> words = np.stack([codec.encode(g) for g in grads]).astype(np.int64)
    >>> pipe = vga_ring_allreduce(words, bits=16, seed=2)
    >>> fig = plot_pipeline(pipe, grads.sum(axis=0), codec.decode(pipe.total))
    >>> fig.axes[0].get_xlabel()
    'true sum of the gradients'
    """
    fig = Figure(figsize=(10, 3.8))
    ax, ax_l = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.2]})
    true_sum = np.asarray(true_sum, dtype=float)
    decoded = np.asarray(decoded, dtype=float)
    lim = float(np.max(np.abs(true_sum))) * 1.05 or 1.0
    ax.plot([-lim, lim], [-lim, lim], color="#999999", lw=0.8)
    ax.plot(true_sum, decoded, ".", ms=3, color=COLOURS["ring"])
    ax.set(xlabel="true sum of the gradients", ylabel="VGA + superdense ring")
    ax.set_title(f"max error {np.max(np.abs(decoded - true_sum)):.2e}", fontsize=10)
    led = result.ledger
    names = ["ring online\nqubits / link", "ring offline\nqubits / link"]
    names += ["GHZ copies\nused", "GHZ copies\ntested"]
    values = [led.ring_online_qubits, led.ring_offline_qubits, led.ghz_used, led.ghz_tested]
    colours = [COLOURS["ring"], COLOURS["offline"], COLOURS["ghz_used"], COLOURS["ghz_tested"]]
    ax_l.bar(range(4), values, color=colours)
    for i, v in enumerate(values):
        ax_l.text(i, v, f"{v:,}", ha="center", va="bottom", fontsize=8)
    ax_l.set_xticks(range(4), names, fontsize=8)
    ax_l.set_ylabel("count")
    ax_l.set_title(f"combined ledger, P = {led.workers}, accepted = {result.accepted}", fontsize=10)
    fig.tight_layout()
    return fig


def plot_partial_copies(result: PartialCopySweep) -> Figure:
    """Log-log: the leak (TV distance of the transcript from the ideal) and the test's failure
    probability of a slightly rotated GHZ copy against its trace distance t, with the witness
    bound sqrt(2 P(fail)) and the fitted slopes (1 and 2).

    Examples
    --------
    >>> from qring_edu.experiments.vga_security import partial_copy_sweep
    >>> fig = plot_partial_copies(partial_copy_sweep([0.01, 0.03, 0.1]))
    >>> fig.axes[0].get_xscale()
    'log'
    """
    fig = Figure(figsize=(6.6, 4.2), layout="constrained")
    ax = fig.subplots()
    t = result.trace_distance
    label = f"leak (TV of the transcript), slope {result.leak_slope:.2f}"
    ax.loglog(t, result.leak, "o-", color=COLOURS["KnownPads"], ms=4, label=label)
    label = f"P(test fails), slope {result.fail_slope:.2f}"
    ax.loglog(t, result.fail_probability, "s-", color=COLOURS["ghz_used"], ms=4, label=label)
    label = r"witness bound $\sqrt{2\,P(\mathrm{fail})}$ on t"
    ax.loglog(t, result.distance_bound, ":", color="#4d4d4d", label=label)
    ax.set(xlabel="trace distance t of the copy from GHZ", ylabel="probability / distance")
    ax.legend(fontsize=8, frameon=False)
    where = f"(P = {result.workers}, b = {result.bits})"
    ax.set_title(f"a partially bad copy: leaks ~ t, caught ~ t²/2 {where}", fontsize=10)
    return fig


def plot_finite_copy(result: FiniteCopyCurve) -> Figure:
    """The finite-copy guarantee: fidelity bound of one untested register against the number of
    passed register tests, one curve per significance level.

    Examples
    --------
    >>> from qring_edu.experiments.vga_security import finite_copy_curve
    >>> fig = plot_finite_copy(finite_copy_curve(max_tests=1000))
    >>> len(fig.axes[0].lines) >= 2                     # one curve per significance
    True
    """
    fig = Figure(figsize=(6.6, 4.0), layout="constrained")
    ax = fig.subplots()
    for sig, fid in zip(result.significances, result.fidelity):
        ax.semilogx(result.tests, fid, "-", lw=1.8, label=f"significance {sig:.0%}")
    ax.set(ylim=(0, 1.02), xlabel="passed register tests T")
    ax.set_ylabel("guaranteed fidelity of one used register")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, frameon=False, loc="lower right")
    ax.set_title("any source, entangled across copies (after Zhu & Hayashi 2019)", fontsize=10)
    return fig


def plot_amplification(result: AmplificationSweep) -> Figure:
    """Fraction of leaked entries against the amplification k (log scale): measured, exact
    C(B, k)/C(N, k) and beta**k; the GHZ copies used, k-fold, on the right axis.

    Examples
    --------
    >>> from qring_edu.experiments.vga_security import amplification_sweep
    >>> fig = plot_amplification(amplification_sweep(ks=(1, 2, 3), entries=200))
    >>> fig.axes[0].get_xlabel()
    'amplification k (registers per entry)'
    """
    fig = Figure(figsize=(6.8, 4.0), layout="constrained")
    ax = fig.subplots()
    k = result.ks
    label = "measured (one run each)"
    ax.semilogy(k, result.measured, "o", color=COLOURS["KnownPads"], ms=7, label=label)
    ax.semilogy(k, result.exact, "-", color="#4d4d4d", label="exact C(B, k) / C(N, k)")
    label = rf"$\beta^k$, $\beta$ = {result.attack_fraction:g}"
    ax.semilogy(k, result.power, ":", color="#2c7bb6", lw=2, label=label)
    ax.set_xticks(k)
    ax.set(xlabel="amplification k (registers per entry)", ylabel="fraction of entries leaked")
    ax.legend(fontsize=8, frameon=False, loc="lower left")
    ax2 = ax.twinx()
    ax2.bar(k, result.ghz_used, width=0.25, color=COLOURS["ghz_tested"], alpha=0.5)
    ax2.set_ylabel("qubit GHZ copies used (bars)")
    ax.set_zorder(ax2.get_zorder() + 1)
    ax.patch.set_visible(False)
    title = f"privacy amplification: P = {result.workers}, d = {result.entries}, b = {result.bits}"
    ax.set_title(title, fontsize=10)
    return fig
