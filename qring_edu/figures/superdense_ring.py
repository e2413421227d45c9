"""Figures of chapter 3, *The superdense ring* (presentation floor; book/03_superdense_ring.ipynb).
The training section's figures are in :mod:`qring_edu.figures.training`.

Every function is pure: it takes results computed by the library (or by
:mod:`qring_edu.experiments.superdense_ring`) and returns a new ``matplotlib.figure.Figure``;
nothing is displayed and no pyplot state is touched. ``unit``: ``"s"``, ``"ms"`` or ``"us"``
for a time axis.

Message and outcome order. The four two-bit messages ``(x, z)`` are indexed ``m = 2 x + z`` and
labelled ``"xz"``: ``"00", "01", "10", "11"`` — the same string as a Qiskit count key of
:func:`qring_edu.superdense_circuit` (clbit 1 = ``x`` printed first, clbit 0 = ``z``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from ..experiments.superdense_ring import MESSAGE_LABELS
from ._base import nonempty, plot_circuits

if TYPE_CHECKING:  # annotations only: the results come from the floors below
    from qiskit import QuantumCircuit

    from ..costmodel import IterationTime
    from ..experiments.superdense_ring import (
        ChannelStats,
        ErrorRateSweep,
        OverlapComparison,
        OverlapSweep,
    )
    from ..fixedpoint import FixedPoint
    from ..ledger import Ledger
    from ..ring import AllReduceResult

__all__ = [
    "MESSAGE_LABELS",
    "plot_superdense_circuits",
    "plot_outcome_distributions",
    "plot_symbol_error_rate",
    "plot_ledgers",
    "plot_iteration_timeline",
    "plot_bit_flip_damage",
    "plot_noisy_allreduce",
    "plot_overlap_timelines",
    "plot_overlap_timeline",
    "plot_overlap_ratio",
]

# One colour per source of numbers, used consistently across the chapter.
COLOURS = {
    "exact": "#4d4d4d",
    "fast": "#1f77b4",
    "aer": "#ff7f0e",
    "classical": "#2c7fb8",
    "superdense": "#d95f0e",
    "compute": "#7fbf7b",
    "distribution": "#af8dc3",
    "offline": "#abd9e9",
}
_HATCHED = dict(facecolor="white", edgecolor=COLOURS["distribution"], hatch="////")


def plot_superdense_circuits(
    circuits: Sequence[QuantumCircuit], titles: Sequence[str] | None = None
) -> Figure:
    """Draw superdense-coding circuits one under the other
    (:func:`~qring_edu.figures._base.plot_circuits`); qubit 0 (top wire) is Alice's A.

    Examples
    --------
    >>> from qring_edu import superdense_circuit
    >>> circuits = [superdense_circuit(1, 0), superdense_circuit(1, 1)]
    >>> fig = plot_superdense_circuits(circuits, ["10", "11"])
    >>> len(fig.axes), fig.axes[0].get_title()
    (2, '10')
    """
    return plot_circuits(circuits, titles, width=8.5, height=2.3)


def _scale(unit: str) -> float:
    """Seconds -> ``unit``; ``ValueError`` naming ``unit`` otherwise."""
    scale = {"s": 1.0, "ms": 1e3, "us": 1e6}.get(unit)
    if scale is None:
        raise ValueError(f"unit must be one of 's', 'ms', 'us', got {unit!r}")
    return scale


def _row_normalise(counts: np.ndarray) -> np.ndarray:
    totals = counts.sum(axis=1, keepdims=True)
    return np.divide(counts, totals, out=np.zeros(counts.shape, dtype=float), where=totals > 0)


def plot_outcome_distributions(stats: ChannelStats) -> Figure:
    """P(decoded = o | sent = m) of a
    :class:`~qring_edu.experiments.superdense_ring.ChannelStats`, one panel per sent message m:
    exact vs fast path vs Aer, sampled bars with ±2 standard errors ``2 sqrt(p (1 - p) / n_m)``
    (``n_m``: the symbols of that message).

    Examples
    --------
    >>> from qring_edu.experiments.superdense_ring import channel_statistics
    >>> fig = plot_outcome_distributions(channel_statistics(0.9, 400, seed=0))
    >>> len(fig.axes)                                   # one panel per sent message
    4
    """
    sources = [("exact (density matrix)", stats.exact, None, COLOURS["exact"])]
    for name, counts, key in (
        ("fast path", stats.fast_counts, "fast"),
        ("Aer circuits", stats.aer_counts, "aer"),
    ):
        if counts is not None:
            label = f"{name} ({counts.sum()} symbols)"
            sources.append((label, _row_normalise(counts), counts.sum(axis=1), COLOURS[key]))
    fig = Figure(figsize=(10, 3.6), layout="constrained")
    axes = fig.subplots(1, 4, sharey=True)
    width = 0.8 / len(sources)
    positions = np.arange(4)
    for m, ax in enumerate(axes):
        for i, (label, probs, n_per_msg, colour) in enumerate(sources):
            p = probs[m]
            err = None
            if n_per_msg is not None and n_per_msg[m] > 0:
                err = 2 * np.sqrt(p * (1 - p) / n_per_msg[m])
            x = positions + (i - (len(sources) - 1) / 2) * width
            style = dict(capsize=2, error_kw={"elinewidth": 0.8})
            ax.bar(x, p, width, yerr=err, color=colour, label=label, **style)
        ax.set_xticks(positions, MESSAGE_LABELS)
        ax.set(title=f'sent "{MESSAGE_LABELS[m]}"', xlabel='decoded "xz"', ylim=(0, 1.05))
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("probability")
    handles, labels = axes[0].get_legend_handles_labels()
    where = dict(loc="outside lower center", ncol=len(sources))
    fig.legend(handles, labels, frameon=False, fontsize=9, **where)
    ser = f"symbol error rate: exact {stats.exact_error_rate:.4f}, fast {stats.fast_error_rate:.4f}"
    if stats.aer_error_rate is not None:
        ser += f", Aer {stats.aer_error_rate:.4f}"
    title = f"Superdense coding over isotropic pairs, F = {stats.pair_fidelity:g}"
    fig.suptitle(f"{title}\n{ser}", fontsize=11)
    return fig


def plot_symbol_error_rate(sweep: ErrorRateSweep) -> Figure:
    """Measured symbol error rate of an
    :class:`~qring_edu.experiments.superdense_ring.ErrorRateSweep` against the pair fidelity F
    and the prediction ``1 - F``; ±2 standard errors ``2 sqrt(r (1 - r) / n)``.

    Examples
    --------
    >>> from qring_edu.experiments.superdense_ring import symbol_error_sweep
    >>> fig = plot_symbol_error_rate(symbol_error_sweep([0.8, 0.9, 1.0], 500))
    >>> fig.axes[0].get_xlabel()
    'pair fidelity F'
    """
    fig = Figure(figsize=(6.2, 4.2))
    ax = fig.subplots()
    grid = np.linspace(0.25, 1.0, 200)
    ax.plot(grid, 1 - grid, color=COLOURS["exact"], lw=1.2, label="prediction 1 − F")
    for name, f, r, n, marker, key in (
        ("fast path", sweep.fidelities, sweep.fast_rates, sweep.fast_symbols, "o", "fast"),
        ("Aer circuits", sweep.aer_fidelities, sweep.aer_rates, sweep.aer_symbols, "s", "aer"),
    ):
        if len(f) == 0:
            continue
        r = np.asarray(r)
        err = 2 * np.sqrt(r * (1 - r) / n)
        label = f"{name} ({n} symbols per point)"
        style = dict(fmt=marker, ms=5, capsize=3, color=COLOURS[key])
        ax.errorbar(f, r, yerr=err, label=label, **style)
    ax.set(xlabel="pair fidelity F", ylabel="symbol error rate", xlim=(0.23, 1.02))
    ax.set(ylim=(-0.02, 0.78), title="A symbol is wrong exactly when the pair suffered X, Y or Z")
    ax.grid(alpha=0.3)
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig


def plot_ledgers(classical: Ledger, superdense: Ledger) -> Figure:
    """The classical and the superdense ledgers per directed link: online bits vs qubits (left);
    lifetime use, online qubits stacked on the offline pair-distribution qubits, ebits marked.

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu import ring_allreduce
    >>> words = np.arange(12).reshape(3, 4)
    >>> classical = ring_allreduce(words, bits=8).ledger
    >>> superdense = ring_allreduce(words, transport="superdense", bits=8).ledger
    >>> fig = plot_ledgers(classical, superdense)
    >>> len(fig.axes)                                   # online use, lifetime use
    2
    """
    if classical.workers != superdense.workers:
        raise ValueError("classical and superdense ledgers must have the same number of workers")
    links = classical.links
    x = np.arange(len(links))
    labels = [f"{a}→{b}" for a, b in links]
    bits = classical.per_link("online_bits")
    qubits = superdense.per_link("online_qubits")
    ebits = superdense.per_link("ebits")
    offline = superdense.per_link("offline_qubits")

    fig = Figure(figsize=(10, 3.8))
    ax_on, ax_life = fig.subplots(1, 2, sharey=True)
    w = 0.38
    for ax, bit_label, qubit_label in (
        (ax_on, "classical: online bits", "superdense: online qubits"),
        (ax_life, "classical: bits", "online qubits"),
    ):
        ax.bar(x - w / 2, bits, w, color=COLOURS["classical"], label=bit_label)
        ax.bar(x + w / 2, qubits, w, color=COLOURS["superdense"], label=qubit_label)
    ax_on.set_title("Online (on the synchronisation critical path)")
    label = "offline qubits (pair distribution)"
    ax_life.bar(x + w / 2, offline, w, bottom=qubits, color=COLOURS["offline"], label=label)
    tick = dict(marker="_", s=300, color="k", zorder=3)
    ax_life.scatter(x + w / 2, ebits, label="ebits consumed", **tick)
    ax_life.set_title("Lifetime channel uses")
    for ax in (ax_on, ax_life):
        ax.set_xticks(x, labels)
        ax.set_xlabel("directed link")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(frameon=False, fontsize=8, loc="upper left", ncol=2)
    ax_on.set_ylim(0, 1.4 * max(int(bits.max()), int((qubits + offline).max()), 1))
    ax_on.set_ylabel("channel uses (bits or qubits)")
    fig.suptitle(f"Ring all-reduce ledger, P = {classical.workers}", fontsize=11)
    fig.tight_layout()
    return fig


def plot_iteration_timeline(
    classical: IterationTime, quantum: IterationTime, *, unit: str = "ms"
) -> Figure:
    """One training iteration as a timeline: classical (compute, then the ring) vs superdense
    (compute and pair distribution in parallel, then the ring).

    Examples
    --------
    >>> from qring_edu import iteration_time
    >>> args = (0.02, 8, 25_000_000, 16, 5e-6, 1e-11)   # compute (s), P, d, b, alpha, beta
    >>> fig = plot_iteration_timeline(iteration_time(*args),
    ...                               iteration_time(*args, transport="superdense"))
    >>> fig.axes[0].get_xlabel()
    'time (ms)'
    """
    scale = _scale(unit)
    fig = Figure(figsize=(8.5, 3.0))
    ax = fig.subplots()
    h = 0.35
    c, q = classical, quantum
    start = max(q.compute, q.distribution)
    for begin, length, lane, key in (
        (0, c.compute, (2 - h, 2 * h), "compute"),
        (c.compute, c.ring, (2 - h, 2 * h), "classical"),
        (0, q.compute, (1 + 0.02, h), "compute"),
        (0, q.distribution, (1 - h - 0.02, h), "distribution"),
        (start, q.ring, (1 - h, 2 * h), "superdense"),
    ):
        ax.broken_barh([(begin * scale, length * scale)], lane, color=COLOURS[key])
    for y, total in ((2, c.total), (1, q.total)):
        ax.text(total * scale, y, f"  {total * scale:.3g} {unit}", va="center", fontsize=9)
    ax.set_yticks([1, 2], ["superdense", "classical"])
    ax.set(ylim=(0.4, 2.6), xlim=(0, max(c.total, q.total) * scale * 1.18), xlabel=f"time ({unit})")
    handles = [
        ax.bar(0, 0, color=COLOURS[key], label=label)
        for key, label in (
            ("compute", "compute (forward + backward)"),
            ("distribution", "pair distribution (overlaps compute)"),
            ("classical", "classical ring"),
            ("superdense", "superdense ring"),
        )
    ]
    where = dict(loc="upper left", bbox_to_anchor=(0, -0.28))
    ax.legend(handles=handles, frameon=False, fontsize=8, ncol=2, **where)
    ax.grid(axis="x", alpha=0.3)
    ratio = q.total / c.total if c.total > 0 else 1.0
    ax.set_title(
        f"One iteration: classical {c.total * scale:.3g} {unit}, superdense "
        f"{q.total * scale:.3g} {unit} (ratio superdense/classical {ratio:.3f})",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


def plot_bit_flip_damage(codec: FixedPoint) -> Figure:
    """Change ``2**t / s`` of a decoded value when bit t of its word (``codec``:
    :class:`qring_edu.fixedpoint.FixedPoint`) flips, against ``P / (2 s)`` and ``P * max_abs``.

    Examples
    --------
    >>> from qring_edu import fixed_point
    >>> fig = plot_bit_flip_damage(fixed_point(4, 16, 1.0))
    >>> fig.axes[0].get_xlabel()
    'bit index t (0 = least significant, b−1 = sign bit)'
    """
    t = np.arange(codec.bits)
    damage = 2.0**t / codec.scale
    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    ax.semilogy(t, damage, "o-", color=COLOURS["superdense"], label="|change| from flipping bit t")
    label = f"rounding error bound P/(2s) = {codec.error_bound:.2g}"
    ax.axhline(codec.error_bound, color=COLOURS["exact"], ls="--", label=label)
    largest = codec.workers * codec.max_abs
    label = f"largest |sum| P·max_abs = {largest:g}"
    ax.axhline(largest, color=COLOURS["classical"], ls=":", label=label)
    ax.set_xlabel("bit index t (0 = least significant, b−1 = sign bit)")
    ax.set_ylabel("change of the decoded value")
    ax.set_xticks(t)
    ax.grid(alpha=0.3, which="both")
    ax.legend(frameon=False, fontsize=9)
    title = f"One bit flip in a {codec.bits}-bit word (P = {codec.workers}, "
    ax.set_title(title + f"max_abs = {codec.max_abs:g})", fontsize=10)
    fig.tight_layout()
    return fig


def plot_noisy_allreduce(result: AllReduceResult, exact_sum: np.ndarray) -> Figure:
    """Error of every worker's copy of the sum after a (noisy) :func:`qring_edu.ring_allreduce`;
    ``exact_sum``: shape (d,). Symmetric-log y axis, linear up to the rounding bound P/(2s).

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu import ring_allreduce
    >>> grads = np.random.default_rng(0).uniform(-1, 1, size=(4, 32))
    >>> result = ring_allreduce(grads, transport="superdense", bits=16, pair_fidelity=0.99, seed=1)
    >>> fig = plot_noisy_allreduce(result, grads.sum(axis=0))
    >>> fig.axes[0].get_yscale()
    'symlog'
    """
    out = np.asarray(result.outputs, dtype=float)
    exact_sum = np.asarray(exact_sum, dtype=float)
    if exact_sum.shape != out.shape[1:]:
        raise ValueError(f"exact_sum must have shape {out.shape[1:]}, got {exact_sum.shape}")
    err = np.abs(out - exact_sum)
    bound = result.error_bound if result.error_bound is not None else 0.5
    fig = Figure(figsize=(9, 4.0), layout="constrained")
    ax = fig.subplots()
    entries = np.arange(out.shape[1])
    markers = "os^vD<>p*h"
    for k in range(out.shape[0]):
        marker = markers[k % len(markers)]
        ax.scatter(entries, err[k], s=18, marker=marker, alpha=0.75, label=f"worker {k}")
    ax.axhline(bound, color=COLOURS["exact"], ls="--", lw=1, label="rounding bound P/(2s)")
    ax.set_yscale("symlog", linthresh=bound)
    ax.set(ylim=(0, max(err.max(), bound) * 3), xlabel="entry of the summed vector")
    ax.set_ylabel("|copy − true sum|")
    ax.grid(alpha=0.3)
    where = dict(loc="outside lower center", ncol=min(out.shape[0] + 1, 6))
    fig.legend(*ax.get_legend_handles_labels(), frameon=False, fontsize=8, **where)
    disagree = int(np.sum(np.any(out != out[0], axis=0)))
    link = getattr(result.transport, "link", None)
    if link is None and hasattr(result.transport, "inner"):  # a protected superdense link
        link = result.transport.inner.link
    where = f", F = {link.pair:g}" if link is not None else ""
    title = f"{result.transport.name} ring{where}: {disagree} of {out.shape[1]} entries differ"
    ax.set_title(title + " between workers", fontsize=10)
    return fig


# -- Overlapped, bucketed iterations ---------------------------------------------------------------
def _draw_overlap(ax, result: OverlapComparison) -> None:
    cl, sd = result.classical, result.superdense
    ms = 1e3
    h = 0.32
    start_bwd = cl.compute * (1 - result.backward_fraction)  # the forward pass ends here
    y_comp, y_cl, y_sd = 2.0, 1.0, 0.0
    lane = (y_comp - h, 2 * h)
    ax.broken_barh([(0, start_bwd * ms)], lane, color=COLOURS["compute"], alpha=0.55)
    ax.broken_barh(
        [(start_bwd * ms, (cl.compute - start_bwd) * ms)], lane, color=COLOURS["compute"]
    )
    for j, r in enumerate(cl.ready):
        ax.plot([r * ms] * 2, [y_comp - h, y_comp + h], color="k", lw=0.8)
        if cl.buckets <= 8:
            ax.text(r * ms, y_comp + h + 0.05, f"b{j}", ha="center", va="bottom", fontsize=7)
    for y, it, colour in ((y_cl, cl, COLOURS["classical"]), (y_sd, sd, COLOURS["superdense"])):
        online = [(a * ms, (b - a) * ms) for a, b, kind, _ in it.schedule if kind == "online"]
        dist = [(a * ms, (b - a) * ms) for a, b, kind, _ in it.schedule if kind != "online"]
        ax.broken_barh(online, (y - h, 2 * h), facecolor=colour, edgecolor="none")
        if dist:
            ax.broken_barh(dist, (y - h, 2 * h), lw=0.6, **_HATCHED)
        ax.axvline(it.total * ms, ymin=0, ymax=1, color=colour, ls="--", lw=1)
        text = f" {it.total * ms:.2f} ms"
        ax.text(it.total * ms, y + h + 0.05, text, color=colour, fontsize=8, va="bottom")
    ax.set_yticks([y_sd, y_cl, y_comp], ["superdense\nlink 0→1", "classical\nlink 0→1", "compute"])
    ax.set(ylim=(-0.6, 2.75), xlim=(0, max(cl.total, sd.total) * ms * 1.12))
    ax.set_xlabel("time within one steady-state iteration (ms)")
    ax.grid(axis="x", alpha=0.3)


def plot_overlap_timelines(
    results: Sequence[OverlapComparison], titles: Sequence[str] | None = None
) -> Figure:
    """One steady-state iteration per transport, one panel per
    :class:`~qring_edu.experiments.superdense_ring.OverlapComparison` in ``results``: the
    compute (forward pale, backward solid, ticks: bucket j ready), then link 0→1 of each ring
    (online messages solid, pair distribution hatched, dashed: the iteration's end).
    ``titles``: one per panel (default: the setting, the ratio and what sets the gain).

    Examples
    --------
    >>> from qring_edu.experiments.superdense_ring import overlap_comparison
    >>> results = [overlap_comparison(20.0, buckets=1), overlap_comparison(20.0, buckets=5)]
    >>> fig = plot_overlap_timelines(results, ["B = 1", "B = 5"])
    >>> [ax.get_title() for ax in fig.axes]
    ['B = 1', 'B = 5']
    """
    results = nonempty(results, "results", "OverlapComparison")
    if titles is not None and len(titles) != len(results):
        raise ValueError(
            f"titles must have one entry per result ({len(results)}), got {len(titles)}"
        )
    fig = Figure(figsize=(10, 2.9 * len(results) + 0.6), layout="constrained")
    axes = fig.subplots(len(results), 1, squeeze=False)[:, 0]
    for i, (ax, res) in enumerate(zip(axes, results)):
        _draw_overlap(ax, res)
        title = (
            f"{res.model}, P = {res.workers}, B = {res.classical.buckets} buckets, "
            f"{1e-9 / res.beta:g} Gbit/s, compute {res.classical.compute * 1e3:g} ms: "
            f"ratio {res.ratio:.3f}, gain {res.gain * 1e3:.2f} ms (set by the {res.binding})"
        )
        ax.set_title(title if titles is None else titles[i], fontsize=10)
    handles = [
        axes[0].bar(0, 0, label=label, **style)
        for label, style in (
            ("forward pass", dict(color=COLOURS["compute"], alpha=0.55)),
            ("backward pass (ticks: bucket ready)", dict(color=COLOURS["compute"])),
            ("classical ring messages", dict(color=COLOURS["classical"])),
            ("superdense ring messages (qubits)", dict(color=COLOURS["superdense"])),
            ("pair distribution (one qubit per pair)", _HATCHED),
        )
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=3, frameon=False, fontsize=8)
    return fig


def plot_overlap_timeline(result: OverlapComparison) -> Figure:
    """:func:`plot_overlap_timelines` of one setting (the widget's figure).

    Examples
    --------
    >>> from qring_edu.experiments.superdense_ring import overlap_comparison
    >>> fig = plot_overlap_timeline(overlap_comparison(20.0))
    >>> len(fig.axes)
    1
    """
    return plot_overlap_timelines([result])


def plot_overlap_ratio(sweep: OverlapSweep, slow_buckets: int | None = None) -> Figure:
    """Superdense / classical iteration time against compute / W, one solid line per bucket
    count B of an :class:`~qring_edu.experiments.superdense_ring.OverlapSweep` (β_q = β), dotted:
    its ideal best ratio (:func:`qring_edu.costmodel.bucketed_best_ratio`); grey bands: savings
    ≥ 5 % and ≥ 10 %; dashed: qubits ``slow_cost`` times as slow as bits, for ``slow_buckets``
    buckets (default: B = 5 if swept, else the first B).

    Examples
    --------
    >>> from qring_edu.experiments.superdense_ring import overlap_sweep
    >>> fig = plot_overlap_ratio(overlap_sweep([0.0, 0.5, 1.0, 2.0], buckets=(1, 5)))
    >>> fig.axes[0].get_ylabel()
    'superdense / classical iteration time'
    """
    if slow_buckets is None:
        slow_buckets = 5 if 5 in sweep.buckets else sweep.buckets[0]
    if slow_buckets not in sweep.buckets:
        raise ValueError(
            f"slow_buckets must be one of the swept bucket counts {sweep.buckets}, "
            f"got {slow_buckets!r}"
        )
    fig = Figure(figsize=(10.5, 4.4), layout="constrained")
    ax = fig.subplots()
    ax.axhspan(0.9, 0.95, color="0.92", lw=0)
    ax.axhspan(0.0, 0.9, color="0.84", lw=0)
    x0 = sweep.x[0] + 0.01 * (sweep.x[-1] - sweep.x[0])
    for y, text in ((0.947, "saves ≥ 5 %"), (0.897, "saves ≥ 10 %")):
        ax.text(x0, y, text, ha="left", va="top", fontsize=8, color="0.35")
    ax.axhline(1.0, color="k", lw=0.8)
    colours = ["#d95f0e", "#2c7fb8", "#31a354", "#756bb1", "#636363"]
    ratio = sweep.ratio
    for i, B in enumerate(sweep.buckets):
        c = colours[i % len(colours)]
        label = f"B = {B} bucket" + ("s" if B > 1 else " (= the non-overlapped model)")
        ax.plot(sweep.x, ratio[i], color=c, lw=1.6, label=label + ", β_q = β")
        label = f"ideal best, B = {B}: {sweep.best[i]:.3f}"
        ax.axhline(sweep.best[i], color=c, ls=":", lw=1, label=label)
    i = sweep.buckets.index(slow_buckets)
    label = f"B = {slow_buckets}, β_q = {sweep.slow_cost:g}β (a qubit's link time / a bit's)"
    style = dict(color=colours[i % len(colours)], lw=1.2, label=label)
    ax.plot(sweep.x, sweep.slow_ratio[i], "--", **style)
    ax.set_xlabel("compute per iteration / W (W: classical link time of one iteration)")
    ax.set_ylabel("superdense / classical iteration time")
    lo = min(float(ratio.min()), min(sweep.best))
    ax.set(ylim=(max(0.0, lo - 0.05), 1.25), xlim=(sweep.x[0], sweep.x[-1]))
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, frameon=False, fontsize=7.5, loc="outside right center")
    title = f"{sweep.model}, P = {sweep.workers}, {1e-9 / sweep.beta:g} Gbit/s, "
    title += f"α = {sweep.alpha * 1e6:g} µs: the same overlap for both rings"
    ax.set_title(title, fontsize=10)
    return fig
