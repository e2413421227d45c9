"""Figures of the chapter *Noisy links* (presentation floor).

Every function takes a result of :mod:`qring_edu.experiments.noisy_links` and returns a new
``matplotlib.figure.Figure``; nothing is computed or displayed here. Capacities and factors are in
classical bits per channel use (per qubit sent).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter, ScalarFormatter

from ..protection import QUBITS_PER_SYMBOL
from ._base import plot_circuits

if TYPE_CHECKING:  # annotations only: the results come from the experiments floor
    from ..experiments.noisy_links import (
        CapacitySweep,
        DistillationSweep,
        LossSweep,
        NetFactorSweep,
        ProtectedTraining,
    )

__all__ = [
    "COLOURS",
    "plot_circuits",
    "plot_capacities",
    "plot_distillation",
    "plot_net_factors",
    "plot_loss",
    "plot_protected_training",
]

#: One colour per scheme / quantity, the same in every figure of the chapter.
COLOURS = {
    "none": "#9e9e9e",
    "distill": "#c77c02",
    "fec": "#1f5fa8",
    "distill+fec": "#2e8b57",
    "bound": "#b22222",
    "assisted": "#7b3fa0",
    "unassisted": "#444444",
    "coded classical": "#6d6d6d",
}


def plot_capacities(sweep: CapacitySweep) -> Figure:
    """Left: C(F), C_E(F) (BSST) and the superdense link's bound C_E(F_eff) against the channel
    fidelity, with the 1-bit line and the fidelities where C_E(F) and C_E(F_eff) cross it.
    Right: the ratio C_E/C, above 2 for every F < 1.

    Examples
    --------
    >>> from qring_edu.experiments.noisy_links import capacity_sweep
    >>> fig = plot_capacities(capacity_sweep([0.9, 0.99]))
    >>> [ax.get_title() for ax in fig.axes]
    ['Capacities of the depolarising qubit channel', 'Gain of entanglement on the same noisy channel']
    """
    F = sweep.fidelities
    fig = Figure(figsize=(10.5, 3.8))
    ax, ax_r = fig.subplots(1, 2)
    bound = r"$C_E(F_\mathrm{eff})$: pairs sent over the same channel"
    for values, key, style, label in (
        (sweep.assisted, "assisted", dict(lw=1.8), "$C_E(F)$ entanglement-assisted (BSST)"),
        (sweep.link_bound, "bound", dict(lw=1.6, ls="--"), bound),
        (sweep.classical, "unassisted", dict(lw=1.8), "$C(F)$ unassisted (Holevo capacity)"),
    ):
        ax.plot(F, values, color=COLOURS[key], label=label, **style)
    ax.axhline(1.0, color="k", lw=0.8, ls=":")
    ax.axvline(sweep.threshold, color=COLOURS["assisted"], lw=0.8, ls=":")
    ax.text(sweep.threshold, 0.05, f" {sweep.threshold:.4f}", color=COLOURS["assisted"], fontsize=8)
    ax.set(ylabel="bits per channel use", ylim=(0, 2.05))
    ax.legend(frameon=False, fontsize=8, loc="upper left")
    ax.set_title("Capacities of the depolarising qubit channel")
    ok = np.isfinite(sweep.ratio) & (F < 1)
    ax_r.plot(F[ok], sweep.ratio[ok], color=COLOURS["assisted"], lw=1.8)
    ax_r.axhline(2.0, color="k", lw=0.8, ls=":")
    ax_r.text(F[ok].min(), 2.03, "2 (noiseless channel)", fontsize=8)
    ax_r.set(ylabel="$C_E / C$", title="Gain of entanglement on the same noisy channel")
    for a in (ax, ax_r):
        a.set(xlabel="channel fidelity $F$", xlim=(F.min(), F.max()))
        a.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def plot_distillation(sweep: DistillationSweep) -> Figure:
    """Left: output fidelity after each number of rounds, BBPSSW (dashed) and DEJMPS (solid),
    against the input fidelity, with the diagonal. Middle: raw pairs consumed per output pair
    (log scale). Right: perfect pairs per raw pair, recurrence then hashing vs hashing alone
    (log scale), positive for every F > ½.

    Examples
    --------
    >>> from qring_edu.experiments.noisy_links import distillation_sweep
    >>> fig = plot_distillation(distillation_sweep([0.75, 0.9], rounds=(1, 2)))
    >>> [ax.get_title() for ax in fig.axes]
    ['Recurrence: two pairs → one', 'Offline cost', 'Distillable yield (asymptotic)']
    """
    F = sweep.fidelities
    fig = Figure(figsize=(11.5, 3.7))
    ax_f, ax_c, ax_y = fig.subplots(1, 3)
    shades = np.linspace(0.45, 1.0, len(sweep.rounds))
    styles = {"bbpssw": "--", "dejmps": "-"}
    for p in sweep.protocols:
        for i, r in enumerate(sweep.rounds):
            colour = (0.1, 0.3 * shades[i], 0.7 * shades[i])
            label = f"{p.upper()}, {r} round{'s' if r > 1 else ''}"
            ax_f.plot(F, sweep.fidelity[p][i], ls=styles[p], color=colour, lw=1.4, label=label)
            ax_c.plot(F, sweep.raw_pairs[p][i], ls=styles[p], color=colour, lw=1.4)
    ax_f.plot(F, F, color="k", lw=0.8, ls=":", label="no distillation")
    ax_f.set(ylabel="output fidelity", title="Recurrence: two pairs → one")
    ax_f.legend(frameon=False, fontsize=7)
    ax_c.set_yscale("log")
    ax_c.yaxis.set_minor_formatter(NullFormatter())
    ax_c.yaxis.set_major_formatter(ScalarFormatter())
    ax_c.set(ylabel="raw pairs per output pair", title="Offline cost")
    pos = sweep.yield_per_pair > 0
    label = "DEJMPS recurrence, then hashing"
    style = dict(color=COLOURS["distill+fec"], lw=1.8)
    ax_y.semilogy(F[pos], sweep.yield_per_pair[pos], label=label, **style)
    hp = sweep.hashing_only > 0
    style = dict(color=COLOURS["bound"], lw=1.4, ls="--")
    ax_y.semilogy(F[hp], sweep.hashing_only[hp], label="hashing alone", **style)
    ax_y.axvline(0.5, color="k", lw=0.8, ls=":")
    if hp.any():
        ax_y.axvline(F[hp].min(), color=COLOURS["bound"], lw=0.8, ls=":")
    ax_y.set(ylabel="perfect pairs per raw pair", title="Distillable yield (asymptotic)")
    ax_y.legend(frameon=False, fontsize=7, loc="lower right")
    for ax in (ax_f, ax_c, ax_y):
        ax.set(xlabel="input fidelity $F$", xlim=(0.5, 1.0))
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


#: The classical baseline that sends the same code as bits over the same channel.
_SAME_CODE = "classical ring, same code, bits over the same channel"
_CODED = dict(color=COLOURS["coded classical"], lw=1.6, ls=(0, (6, 2, 1, 2)))
_LABELS = {
    "none": "none (wrong data)",
    "distill": "distill (wrong data)",
    "fec": "fec: RS code + checksum + retransmission",
    "distill+fec": "distill + fec",
}


def plot_net_factors(sweep: NetFactorSweep) -> Figure:
    """Net online factor (classical ring bits per online channel use) of the four schemes
    against the channel fidelity, with the bound C_E(F_eff), C_E(F), C(F) and both classical
    baselines (noiseless bits: 1; the same code as bits over the same channel); dotted: schemes
    that deliver wrong data; thick: the chosen scheme. Right: the chosen point's numbers.

    Examples
    --------
    >>> from qring_edu.experiments.noisy_links import net_factor_sweep
    >>> fig = plot_net_factors(net_factor_sweep(0.99, "fec", fidelities=[0.95, 0.99]))
    >>> fig.axes[0].get_title()
    'What remains of the factor two (block length n = 255)'
    """
    F = sweep.fidelities
    fig = Figure(figsize=(11.0, 4.8))
    gs = fig.add_gridspec(1, 3)
    ax = fig.add_subplot(gs[0, :2])
    ax_t = fig.add_subplot(gs[0, 2])
    rounds = f"{sweep.rounds} DEJMPS round{'s' * (sweep.rounds > 1)}"
    for values, key, lw, ls, label in (
        (sweep.assisted, "assisted", 1.0, ":", "$C_E(F)$: perfect pairs (BSST)"),
        (sweep.bound, "bound", 1.6, "--", r"bound $C_E(F_\mathrm{eff})$, raw pairs"),
        (sweep.bound_distilled, "bound", 1.0, "-.", f"bound, pairs after {rounds}"),
        (
            sweep.unassisted,
            "unassisted",
            1.0,
            ":",
            "$C(F)$: the qubit channel without entanglement",
        ),
    ):
        ax.plot(F, values, color=COLOURS[key], lw=lw, ls=ls, label=label)
    ax.axhline(1.0, color="k", lw=0.9, label="classical ring, noiseless bits: 1")
    ax.plot(F, sweep.classical, label=_SAME_CODE, **_CODED)
    for s in ("none", "distill", "fec", "distill+fec"):
        lw = 3.0 if s == sweep.scheme else 1.6
        ls = "-" if sweep.reliable[s] else (0, (1, 1.5))
        ax.plot(F, sweep.online[s], color=COLOURS[s], lw=lw, ls=ls, label=_LABELS[s])
    p = sweep.point
    if p is not None:
        style = dict(color=COLOURS[sweep.scheme], ms=8, mec="k")
        ax.plot([sweep.channel_fidelity], [p.online], "o", **style)
    ax.set_ylim(0, 2.1)
    if F.min() < F.max():  # one fidelity: let matplotlib pad the single point
        ax.set_xlim(F.min(), F.max())
    pair = sweep.pair_fidelity
    ax.set_xlabel(
        "channel fidelity $F$ ($F_\\mathrm{pair} = F_\\mathrm{ch} = F$)"
        if pair is None
        else f"channel fidelity $F_\\mathrm{{ch}}$ ($F_\\mathrm{{pair}}$ = {pair:g})"
    )
    ax.set_ylabel("net online factor (bits per online use)")
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    where = dict(loc="lower left", bbox_to_anchor=(-0.05, -0.1))
    ax_t.legend(handles, labels, frameon=False, fontsize=7, **where)
    ax.set_title(f"What remains of the factor two (block length n = {sweep.block_length})")
    ax_t.axis("off")
    lines = [f"scheme: {sweep.scheme}", f"F = {sweep.channel_fidelity:g}"]
    if p is None:
        lines.append("no Reed–Solomon code of this\nlength carries these errors")
    else:
        lines += [
            f"online factor: {p.online:.4f}",
            f"lifetime factor: {p.lifetime:.4f}",
            f"bound C_E: {p.bound:.4f}",
            f"classical baseline: {p.classical:.4f}",
            f"advantage over it: {p.advantage:.4f}",
            f"symbol error: {p.symbol_error:.4g}",
            "data: correct" if p.reliable else "data: WRONG (nothing corrects it)",
        ]
        if p.code is not None:
            c = p.code
            # the code counts wrong bytes: a byte (four symbols) is right iff all four are
            q = c.failure_probability(1.0 - (1.0 - p.symbol_error) ** QUBITS_PER_SYMBOL)
            lines += [
                f"code: RS({c.n}, {c.k}) over GF(2^8)",
                f"corrects t = {c.t} bytes",
                f"checksum {c.hash_bits} bits, {c.data_bytes} payload bytes",
                f"blocks re-sent: {q:.2%}",
            ]
        if p.distillation is not None:
            d = p.distillation
            lines += [f"distilled F: {d.fidelity:.5f}"]
            lines += [f"raw pairs per pair: {d.raw_pairs_per_pair:.2f}"]
    style = dict(va="top", ha="left", fontsize=8.5, family="monospace", transform=ax_t.transAxes)
    ax_t.text(0.0, 1.02, "\n".join(lines), **style)
    fig.tight_layout()
    return fig


def plot_loss(sweep: LossSweep) -> Figure:
    """Net online factor against fibre distance (bottom) and transmission η (top): loss only
    (``2 η`` = ``C_E`` of the erasure channel), "fec" on the lossy depolarising link and its
    bound ``η C_E(F_eff)``, and the two classical baselines, which loss does not touch; dotted:
    the distance where ``2 η = 1``.

    Examples
    --------
    >>> from qring_edu.experiments.noisy_links import loss_sweep
    >>> fig = plot_loss(loss_sweep(0.99, distances=[0.0, 10.0, 20.0]))
    >>> fig.axes[0].get_xlabel()
    'fibre length L (km)'
    """
    L, eta = sweep.distances, sweep.transmissions
    fig = Figure(figsize=(8.0, 4.6))
    ax = fig.add_subplot()
    at_f = f"$F$ = {sweep.channel_fidelity:g}"
    bound = rf"bound $\eta\,C_E(F_\mathrm{{eff}})$, {at_f}"
    for values, key, style, label in (
        (sweep.perfect, "assisted", dict(lw=2.2), r"loss only: $2\eta$ ($= C_E$)"),
        (sweep.bound, "bound", dict(lw=1.4, ls="--"), bound),
        (sweep.fec, "fec", dict(lw=2.2), f"fec on the lossy link, {at_f}"),
    ):
        ax.plot(L, values, color=COLOURS[key], label=label, **style)
    ax.axhline(1.0, color="k", lw=0.9, label="classical ring, noiseless bits: 1")
    ax.axhline(sweep.classical, label=_SAME_CODE, **_CODED)
    if np.isfinite(sweep.break_even_km):
        ax.axvline(sweep.break_even_km, color="k", lw=0.8, ls=":")
        text, xy = rf"$\eta = 1/2$: {sweep.break_even_km:.1f} km", (sweep.break_even_km, 0.08)
        ax.annotate(text, xy, xytext=(4, 0), textcoords="offset points", fontsize=8)
    ax.set(xlim=(L.min(), L.max()), ylim=(0, 2.1), xlabel="fibre length L (km)")
    ax.set_ylabel("net online factor (bits per photon sent)")
    # the top axis: eta at each distance (fibre_transmission, inverted for the tick positions)
    e0, a = sweep.efficiency, sweep.attenuation_db_per_km
    if a > 0 and L.max() > L.min():
        top = ax.secondary_xaxis(
            "top",
            functions=(
                lambda x: e0 * 10.0 ** (-a * np.asarray(x) / 10.0),
                lambda y: -10.0 / a * np.log10(np.clip(np.asarray(y), 1e-300, None) / e0),
            ),
        )
        ticks = [t for t in (1.0, 0.8, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1) if eta.min() <= t <= eta.max()]
        top.set_xticks(ticks)
        top.set_xlabel(r"transmission $\eta$")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title(
        f"Photons get lost: source × detector efficiency {e0:.2f}, {a:g} dB/km", fontsize=10
    )
    fig.tight_layout()
    return fig


def plot_protected_training(result: ProtectedTraining) -> Figure:
    """Loss (mean over replicas, band = replicas' min..max), accuracy and replica disagreement
    (max − min loss over replicas) per step for the classical ring, the protected and the
    unprotected noisy superdense ring; the legend gives each run's final max|w_k − w_0|.

    Examples
    --------
    >>> from qring_edu.experiments.noisy_links import protected_training
    >>> fig = plot_protected_training(protected_training(0.99, "fec", steps=5))
    >>> fig.get_suptitle(), [ax.get_title() for ax in fig.axes]
    ('Training over a noisy link, F_pair = F_ch = 0.99, P = 4', ['Loss', 'Accuracy', 'Replica disagreement'])
    """
    runs = [
        (result.classical, "classical ring", "k", "-"),
        (result.protected, f"superdense, {result.protection}", COLOURS[result.protection], "--"),
        (result.unprotected, "superdense, none", COLOURS["bound"], "-"),
    ]
    if result.protection == "none":
        runs = [runs[0], runs[2]]
    fig = Figure(figsize=(11, 3.6))
    ax_l, ax_a, ax_d = fig.subplots(1, 3)
    for run, label, colour, ls in runs:
        steps = np.arange(run.losses.shape[0])
        ax_l.plot(steps, run.losses.mean(axis=1), ls=ls, color=colour, lw=1.5, label=label)
        lo, hi = run.losses.min(axis=1), run.losses.max(axis=1)
        ax_l.fill_between(steps, lo, hi, color=colour, alpha=0.15, lw=0)
        ax_a.plot(steps, run.accuracies.mean(axis=1), ls=ls, color=colour, lw=1.5)
        label = f"{label}: max|w_k−w_0| = {run.divergence:.3g}"
        ax_d.plot(steps, hi - lo, ls=ls, color=colour, lw=1.5, label=label)
    ax_l.set_ylabel("training loss")
    ax_a.set_ylabel("training accuracy")
    ax_d.set_ylabel("max − min loss over replicas")
    for ax, title in ((ax_l, "Loss"), (ax_a, "Accuracy"), (ax_d, "Replica disagreement")):
        ax.set(xlabel="step", title=title)
        ax.grid(alpha=0.3)
    ax_l.legend(frameon=False, fontsize=8)
    ax_d.legend(frameon=False, fontsize=7, loc="upper left")
    title = f"Training over a noisy link, F_pair = F_ch = {result.channel_fidelity:g}, "
    fig.suptitle(title + f"P = {result.classical.workers}", fontsize=11)
    fig.tight_layout()
    return fig
