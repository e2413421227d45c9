"""Figures of chapter 1 (the communication bottleneck; book/01_bottleneck.ipynb): pure functions
``result -> Figure`` of :mod:`qring_edu.experiments.bottleneck` results, built without pyplot;
nothing is displayed here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch, Rectangle

from .._validate import check_int
from ._base import fmt_seconds as _fmt_seconds
from ._base import nonempty

if TYPE_CHECKING:  # annotations only: the results come from the experiments floor
    from ..experiments.bottleneck import CostSweep, LinkBitsSweep, ModelCommRow, RingState

__all__ = [
    "PHASE_COLOURS",
    "plot_ring_state",
    "plot_ring_states",
    "plot_topologies",
    "plot_time_vs_workers",
    "plot_link_bits",
    "plot_model_comm",
]

#: Colour of a message by phase: reduce-scatter adds, all-gather overwrites.
PHASE_COLOURS = {"reduce-scatter": "#d95f02", "all-gather": "#7570b3"}
_FULL = "#1b9e77"  # a chunk that already holds all P gradients
_PARTIAL = LinearSegmentedColormap.from_list("partial", ["#f7f7f7", "#9ecae1"])
_RING_C, _PS_C, _BOUND_C = "#1f78b4", "#e31a1c", "#333333"


def _ring_positions(P: int, radius: float = 1.0) -> np.ndarray:
    """Worker k at angle 90° - 360° k / P (worker 0 on top, clockwise), shape (P, 2)."""
    angles = np.pi / 2 - 2 * np.pi * np.arange(P) / P
    return radius * np.c_[np.cos(angles), np.sin(angles)]


def _cell_text(members: np.ndarray) -> str:
    """Contents of one (worker, chunk) cell: 'Σ' when complete, else the contributors."""
    P = members.size
    who = np.flatnonzero(members)
    if who.size == P:
        return "Σ"
    if P <= 5:
        return "+".join(f"g{j}" for j in who)
    return f"{who.size}/{P}"


def _draw_grid(ax, state: RingState, *, fontsize: float = 9, title: str | None = None) -> None:
    """Worker × chunk table of the state: colour = share of the P gradients already summed in."""
    P = state.workers
    counts = state.counts
    ax.set(xlim=(-0.5, P - 0.5), ylim=(P - 0.5, -0.5))
    for k in range(P):
        for c in range(P):
            full = counts[k, c] == P
            colour = _FULL if full else _PARTIAL((counts[k, c] - 1) / max(P - 1, 1))
            edge = dict(facecolor=colour, edgecolor="white", linewidth=1.5)
            ax.add_patch(Rectangle((c - 0.5, k - 0.5), 1, 1, **edge))
            text = dict(color="white" if full else "black", fontweight="bold" if full else "normal")
            cell = _cell_text(state.contains[k, c])
            ax.text(c, k, cell, ha="center", va="center", fontsize=fontsize, **text)
    for msg in state.messages:  # what just arrived: thick border in the phase colour
        edge = dict(fill=False, edgecolor=PHASE_COLOURS[msg.phase], linewidth=2.5)
        ax.add_patch(Rectangle((msg.chunk - 0.45, msg.receiver - 0.45), 0.9, 0.9, **edge))
    sizes = state.chunk_sizes
    ticks = [f"c{c}" + ("\n(empty)" if sizes[c] == 0 else "") for c in range(P)]
    ax.set_xticks(range(P), ticks, fontsize=fontsize)
    ax.set_yticks(range(P), [f"W{k}" for k in range(P)], fontsize=fontsize)
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)
    ax.set_xlabel("chunk", fontsize=fontsize)
    if title is not None:
        ax.set_title(title, fontsize=fontsize + 1)


def _draw_ring(ax, state: RingState) -> None:
    """Workers on a circle; this step's messages as arrows k -> k+1 labelled with chunk and bits."""
    P = state.workers
    pos = _ring_positions(P)
    node_r = 0.17 if P <= 6 else 0.13
    bits = state.message_bits()
    for msg in state.messages:
        a, b = pos[msg.sender], pos[msg.receiver]
        colour = PHASE_COLOURS[msg.phase]
        empty = bits[msg.sender] == 0  # an empty chunk (d < P): nothing actually crosses
        line = dict(linewidth=1, linestyle=":", alpha=0.5) if empty else dict(linewidth=2)
        ax.add_patch(_ring_arrow(a, b, node_r * 95, 16, color=colour, **line))
        mid = (a + b) / 2
        out = mid / max(np.linalg.norm(mid), 1e-9)
        label = f"c{msg.chunk}\n" + ("empty" if empty else f"{bits[msg.sender]} b")
        ax.text(*(mid + 0.33 * out), label, ha="center", va="center", fontsize=8, color=colour)
    if not state.messages:  # at the start: draw the ring's links without messages
        for k in range(P):
            ax.add_patch(_ring_arrow(pos[k], pos[(k + 1) % P], node_r * 95, 12, color="#bbbbbb"))
    _draw_workers(ax, pos, node_r, 1.6)


def _ring_arrow(a, b, shrink: float, size: float, **style) -> FancyArrowPatch:
    """The curved arrow of the ring link a -> b, ``shrink`` points short of both nodes."""
    arrow = dict(connectionstyle="arc3,rad=-0.3", arrowstyle="-|>", mutation_scale=size)
    return FancyArrowPatch(a, b, shrinkA=shrink, shrinkB=shrink, **arrow, **style)


def _draw_workers(ax, pos: np.ndarray, r: float, lim: float) -> None:
    """Worker k as a labelled circle of radius ``r`` at ``pos[k]``; square axes ±``lim``."""
    for k, p in enumerate(pos):
        ax.add_patch(Circle(p, r, facecolor="white", edgecolor="black", zorder=3))
        ax.text(*p, f"W{k}", ha="center", va="center", fontsize=9, zorder=4)
    ax.set(xlim=(-lim, lim), ylim=(-lim, lim), aspect="equal")
    ax.axis("off")


def plot_ring_state(state: RingState) -> Figure:
    """One :class:`~qring_edu.experiments.bottleneck.RingState`: the ring with this step's
    messages (chunk, bits; orange: reduce-scatter adds, purple: all-gather overwrites) and the
    worker × chunk table of the gradients summed into each copy ('Σ': all P).

    Examples
    --------
    >>> from qring_edu.experiments.bottleneck import ring_state
    >>> fig = plot_ring_state(ring_state(4, 2))
    >>> fig.get_suptitle()
    'P = 4: after step 2 of 6 (reduce-scatter s = 1)'
    """
    fig = Figure(figsize=(10.5, 4.6), layout="constrained")
    ax_ring, ax_grid = fig.subplots(1, 2, width_ratios=[1, 1.25])
    _draw_ring(ax_ring, state)
    sizes = ", ".join(str(int(s)) for s in state.chunk_sizes)
    ax_ring.set_title(f"messages of this step (d = {state.d}, chunk sizes {sizes})", fontsize=10)
    size = 9 if state.workers <= 5 else 8
    _draw_grid(ax_grid, state, fontsize=size, title="what each worker holds")
    title = f"P = {state.workers}: "
    if state.step == 0:
        title += "before the first step"
    else:
        title += f"after step {state.step} of {state.total_steps} "
        title += f"({state.phase} s = {state.phase_step})"
    fig.suptitle(title, fontsize=12)
    return fig


def plot_ring_states(states: Sequence[RingState], ncols: int = 4) -> Figure:
    """Small multiples of the worker × chunk table, one panel per state (e.g. every step).

    Examples
    --------
    >>> from qring_edu.experiments.bottleneck import ring_state
    >>> fig = plot_ring_states([ring_state(3, s) for s in range(5)], ncols=5)
    >>> [ax.get_title() for ax in fig.axes][:3]
    ['start', 'step 1: reduce-scatter s=0', 'step 2: reduce-scatter s=1']
    """
    states = nonempty(states, "states", "RingState")
    ncols = check_int(ncols, "ncols", 1)
    ncols = min(ncols, len(states))
    nrows = -(-len(states) // ncols)
    fig = Figure(figsize=(3.4 * ncols, 3.1 * nrows + 0.4), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols)).ravel()
    for ax, st in zip(axes, states):
        title = f"step {st.step}: {st.phase} s={st.phase_step}" if st.step else "start"
        _draw_grid(ax, st, fontsize=7.5, title=title)
    for ax in axes[len(states) :]:
        ax.axis("off")
    chunks = f"c0..c{states[0].workers - 1}"
    title = f"Ring all-reduce: row Wk = worker k's copy of chunks {chunks}; Σ = fully reduced"
    fig.suptitle(title, fontsize=11)
    return fig


def plot_topologies(workers: int = 6) -> Figure:
    """Parameter server (star, all traffic through the server's link) next to the ring
    (each worker sends only to its successor). ``workers``: P, 2..16.

    Examples
    --------
    >>> plot_topologies(4).get_suptitle()
    'Two ways to sum the gradients of P = 4 workers (d entries of b bits each)'
    """
    P = check_int(workers, "P (number of workers)", 2, 16)
    fig = Figure(figsize=(10, 4.6), layout="constrained")
    ax_ps, ax_ring = fig.subplots(1, 2)
    pos = _ring_positions(P)
    r = 0.15
    # Parameter server: every worker <-> the server.
    style = dict(arrowstyle="<|-|>", mutation_scale=12, color=_PS_C, linewidth=1.3)
    for k in range(P):
        ax_ps.add_patch(FancyArrowPatch((0, 0), pos[k], shrinkA=22, shrinkB=14, **style))
    server = dict(facecolor="#fde0dd", edgecolor=_PS_C, zorder=3)
    ax_ps.add_patch(Rectangle((-0.22, -0.15), 0.44, 0.3, **server))
    ax_ps.text(0, 0, "server", ha="center", va="center", fontsize=9, zorder=4)
    title = "parameter server: the server's link carries\nP·d·b bits in and P·d·b bits out"
    ax_ps.set_title(title, fontsize=10)
    # Ring: k -> k+1.
    for k in range(P):
        ax_ring.add_patch(_ring_arrow(pos[k], pos[(k + 1) % P], 14, 14, color=_RING_C, lw=1.6))
    title = "ring: every link carries 2(P−1)·(d/P)·b bits\n(< 2·d·b, whatever P)"
    ax_ring.set_title(title, fontsize=10)
    for ax in (ax_ps, ax_ring):
        _draw_workers(ax, pos, r, 1.35)
    title = f"Two ways to sum the gradients of P = {P} workers (d entries of b bits each)"
    fig.suptitle(title, fontsize=12)
    return fig


def plot_time_vs_workers(sweep: CostSweep) -> Figure:
    """Log–log α–β time of one all-reduce vs P: ring, parameter server and the bandwidth lower
    bound (lower-bound bits × beta, no latency). The chosen P, if any, is marked and annotated.

    Examples
    --------
    >>> from qring_edu.experiments.bottleneck import cost_sweep
    >>> fig = plot_time_vs_workers(cost_sweep(1000, 16, 1e-6, 1e-9, workers=range(2, 9)))
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_yscale()
    ('log', 'log')
    """
    fig = Figure(figsize=(8, 4.8), layout="constrained")
    ax = fig.subplots()
    P = sweep.workers
    ax.loglog(P, sweep.parameter_server, color=_PS_C, label="parameter server  2(α + P·d·b·β)")
    ax.loglog(P, sweep.ring, color=_RING_C, label="ring  2(P−1)(α + ⌈d/P⌉·b·β)")
    label = "bandwidth lower bound  2(P−1)/P·d·b·β"
    ax.loglog(P, sweep.bound, color=_BOUND_C, linestyle="--", label=label)
    if sweep.chosen is not None:
        t = sweep.at(sweep.chosen)
        ax.axvline(sweep.chosen, color="#999999", linewidth=0.8)
        ax.plot([sweep.chosen] * 2, [t["ring"], t["parameter_server"]], "ko", markersize=4)
        text = (
            f"P = {sweep.chosen}\nring {_fmt_seconds(t['ring'])}\n"
            f"server {_fmt_seconds(t['parameter_server'])}\n"
            f"bound {_fmt_seconds(t['bound'])}\n"
            f"server / ring = {sweep.speedup:.1f}×"
        )
        box = {"facecolor": "white", "edgecolor": "#cccccc"}
        ax.text(0.02, 0.97, text, transform=ax.transAxes, va="top", fontsize=9, bbox=box)
    ax.set(xlabel="workers P", ylabel="time of one all-reduce (s)")
    ax.set_title(
        f"{sweep.label}: d = {sweep.d:,} words of {sweep.bits} bits, "
        f"α = {sweep.alpha * 1e6:g} µs, 1/β = {1 / sweep.beta / 1e9:g} Gbit/s"
        if sweep.beta > 0
        else f"{sweep.label}: d = {sweep.d:,}, β = 0",
        fontsize=10,
    )
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(True, which="major", alpha=0.3)
    return fig


def plot_link_bits(sweep: LinkBitsSweep) -> Figure:
    """Left: bits on the busiest link in units of one gradient (d·b) vs P for the ring (ledger),
    the lower bound 2(P−1)/P and the parameter server's link (P). Right: ring / lower bound, which
    is exactly 1 when P divides d and above 1 otherwise (uneven chunks).

    Examples
    --------
    >>> from qring_edu.experiments.bottleneck import link_bits_sweep
    >>> fig = plot_link_bits(link_bits_sweep(60, 16, workers=range(2, 6)))
    >>> [ax.get_title() for ax in fig.axes]
    ['one all-reduce of d = 60 words of b = 16 bits', 'the ring meets the bound exactly when P | d']
    """
    unit = sweep.d * sweep.bits
    fig = Figure(figsize=(10, 4.2), layout="constrained")
    ax, ax_ratio = fig.subplots(1, 2)
    P = sweep.workers
    label = "parameter server (server link, each way)"
    ax.plot(P, sweep.parameter_server / unit, color=_PS_C, marker=".", label=label)
    ax.plot(P, sweep.bound / unit, color=_BOUND_C, linestyle="--", label="lower bound 2(P−1)/P")
    ax.plot(P, sweep.ring / unit, "o", color=_RING_C, markersize=5, label="ring (ledger)")
    ax.set(yscale="log", xlabel="workers P", ylabel="bits on the busiest link / (d·b)")
    ax.set_title(f"one all-reduce of d = {sweep.d} words of b = {sweep.bits} bits", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    ratio = sweep.ring / sweep.bound
    divides = (sweep.d % P) == 0
    for sel, colour, label in (
        (divides, _RING_C, "P divides d"),
        (~divides, "#a6cee3", "P does not divide d"),
    ):
        ax_ratio.bar(P[sel], ratio[sel] - 1, bottom=1, color=colour, label=label, width=0.6)
    ax_ratio.plot(P[divides], ratio[divides], "o", color=_RING_C, markersize=4)
    ax_ratio.axhline(1, color=_BOUND_C, linestyle="--", linewidth=1)
    ax_ratio.set(xlabel="workers P", ylabel="ring / lower bound")
    ax_ratio.set_title("the ring meets the bound exactly when P | d", fontsize=10)
    ax_ratio.legend(fontsize=8, loc="upper left")
    ax_ratio.set_ylim(0.98, max(1.02, float(ratio.max()) * 1.02))
    ax_ratio.grid(True, axis="y", alpha=0.3)
    return fig


def plot_model_comm(rows: Sequence[ModelCommRow]) -> Figure:
    """Horizontal bars (log scale): α–β time of one ring all-reduce of each model's gradient,
    one bar per word size, annotated with the time; the parameter server as a marker.

    Examples
    --------
    >>> from qring_edu.experiments.bottleneck import model_comm_table
    >>> fig = plot_model_comm(model_comm_table(models=["ResNet-50", "GPT-3"], bits=[16]))
    >>> fig.axes[0].get_xscale(), len(fig.axes[0].patches)        # one bar per row
    ('log', 2)
    """
    rows = nonempty(rows, "rows", "ModelCommRow")
    models = list(dict.fromkeys(r.model for r in rows))
    word_sizes = sorted({r.bits for r in rows})
    fig = Figure(figsize=(9, 0.9 + 0.75 * len(models)), layout="constrained")
    ax = fig.subplots()
    height = 0.8 / len(word_sizes)
    shades = ["#a6cee3", "#1f78b4", "#08306b"]
    for i, b in enumerate(word_sizes):
        sel = [next(r for r in rows if r.model == m and r.bits == b) for m in models]
        y = np.arange(len(models)) + (i - (len(word_sizes) - 1) / 2) * height
        colour, label = shades[i % len(shades)], f"ring, {b}-bit words"
        ax.barh(y, [r.ring_s for r in sel], height=height * 0.9, color=colour, label=label)
        label = "parameter server" if i == 0 else None
        tick = dict(color=_PS_C, markersize=9, markeredgewidth=2)
        ax.plot([r.ps_s for r in sel], y, "|", label=label, **tick)
        for r, yy in zip(sel, y):
            ax.text(r.ring_s * 1.15, yy, _fmt_seconds(r.ring_s), va="center", fontsize=8)
    params = {r.model: r.params for r in reversed(rows)}  # the first row of each model wins
    names = [f"{m}\n({params[m] / 1e9:.3g} B)" for m in models]
    ax.set_yticks(range(len(models)), names, fontsize=9)
    ax.invert_yaxis()
    ax.set(xscale="log", xlabel="seconds per iteration spent in the all-reduce (α–β model)")
    r0 = rows[0]
    title = f"Gradient synchronisation per iteration: P = {r0.workers} workers, "
    ax.set_title(
        title + f"α = {r0.alpha * 1e6:g} µs, {r0.bandwidth_gbps:g} Gbit/s links", fontsize=11
    )
    fig.legend(fontsize=8, loc="outside lower center", ncols=len(word_sizes) + 1)
    ax.grid(True, axis="x", which="major", alpha=0.3)
    return fig
