"""Figures of the section *Training over the ring* of chapter 3 (presentation floor;
book/03_training.ipynb) and the DDP hook diagram of book/appendix_ddp.ipynb.

Every function is pure: it takes results computed by the library (or by
:mod:`qring_edu.experiments.training`) and returns a new ``matplotlib.figure.Figure``; nothing is
displayed and no pyplot state is touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from .._validate import check_int
from ._base import nonempty, plot_circuits

if TYPE_CHECKING:  # annotations only: the results come from the floors below
    from qiskit import QuantumCircuit

    from ..experiments import training as experiments
    from ..experiments.training import LearnerComparison, LearnerTraining, TrainingComparison
    from ..training import TrainingRun

__all__ = [
    "plot_training_runs",
    "plot_training_comparison",
    "plot_learner_comparison",
    "plot_learner_training",
    "plot_vqc_circuit",
    "plot_ddp_hook_flow",
    "plot_compression",
]

#: One colour per transport / role, as in :mod:`qring_edu.figures.superdense_ring`.
COLOURS = {
    "classical": "#2c7fb8",
    "superdense": "#d95f0e",
    "header": "#7f7f7f",
    "compute": "#7fbf7b",
    "hook": "#fdae61",
    "future": "#abd9e9",
}
_STYLES = ["-", "--", "-.", ":"]


def _label(run: TrainingRun) -> str:
    return f"superdense F={run.link.pair:g}" if run.link is not None else run.transport


def _draw_runs(ax_loss, ax_acc, ax_div, runs, labels, *, legend_loss: bool = True) -> None:
    """Loss (mean, band = replicas' min..max), accuracy (mean) and the replicas' loss spread."""
    for i, (run, label) in enumerate(zip(runs, labels)):
        steps = np.arange(run.losses.shape[0])
        style = _STYLES[i % len(_STYLES)] if i < 2 else "-"
        mean = run.losses.mean(axis=1)
        (line,) = ax_loss.plot(steps, mean, style, lw=1.4, label=label)
        colour = line.get_color()
        lo, hi = run.losses.min(axis=1), run.losses.max(axis=1)
        ax_loss.fill_between(steps, lo, hi, color=colour, alpha=0.15, lw=0)
        ax_acc.plot(steps, run.accuracies.mean(axis=1), style, lw=1.4, color=colour)
        label = f"{label}: final spread {(hi - lo)[-1]:.3g}"  # the plotted quantity's value
        ax_div.plot(steps, hi - lo, style, lw=1.4, color=colour, label=label)
    for ax, ylabel in (
        (ax_loss, "training loss (cross-entropy)"),
        (ax_acc, "training accuracy"),
        (ax_div, "max − min loss over replicas"),
    ):
        ax.set(xlabel="step", ylabel=ylabel)
        ax.grid(alpha=0.3)
    if legend_loss:
        ax_loss.legend(frameon=False, fontsize=8)
    ax_div.legend(frameon=False, fontsize=7, loc="upper left")


def plot_training_runs(runs: Sequence[TrainingRun], labels: Sequence[str] | None = None) -> Figure:
    """Training curves of data-parallel runs (e.g. classical vs superdense at several F): loss
    (mean over replicas, band = their min..max), accuracy (mean) and the replicas' loss spread
    max − min per step (zero while their weights agree; the legend gives the final spread).

    Examples
    --------
    >>> from qring_edu import train_data_parallel
    >>> runs = [train_data_parallel(transport=t, steps=3) for t in ("classical", "superdense")]
    >>> fig = plot_training_runs(runs, ["classical", "superdense"])
    >>> len(fig.axes)                                   # loss, accuracy, replica disagreement
    3
    """
    runs = nonempty(runs, "runs", "TrainingRun")
    labels = [_label(r) for r in runs] if labels is None else list(labels)
    if len(labels) != len(runs):
        raise ValueError(f"labels must have one entry per run ({len(runs)}), got {len(labels)}")
    fig = Figure(figsize=(11, 3.6))
    ax_loss, ax_acc, ax_div = fig.subplots(1, 3)
    _draw_runs(ax_loss, ax_acc, ax_div, runs, labels)
    ax_loss.set_title("Loss")
    ax_acc.set_title("Accuracy")
    ax_div.set_title("Replica disagreement: loss spread")
    fig.suptitle(f"Data-parallel training, P = {runs[0].workers} workers", fontsize=11)
    fig.tight_layout()
    return fig


def plot_training_comparison(result: TrainingComparison) -> Figure:
    """Training curves of a :class:`~qring_edu.experiments.training.TrainingComparison`
    (see :func:`plot_training_runs`).

    Examples
    --------
    >>> from qring_edu.experiments.training import training_comparison
    >>> fig = plot_training_comparison(training_comparison(0.99, steps=3))
    >>> [ax.get_title() for ax in fig.axes][:1]
    ['Loss']
    """
    return _against_classical(result.classical, result.superdense)


def _against_classical(classical: TrainingRun, superdense: TrainingRun) -> Figure:
    label = f"superdense ring, F = {superdense.link.pair:g}"
    return plot_training_runs([classical, superdense], ["classical ring", label])


_MODEL_NAMES = {"mlp": "MLP (2–16–2 tanh network)", "vqc": "VQC (variational quantum classifier)"}


def plot_learner_comparison(result: LearnerComparison) -> Figure:
    """Both learners over both rings (:class:`~qring_edu.experiments.training.LearnerComparison`):
    one row of :func:`plot_training_runs` panels per model, titled with its parameters and its
    classical bits → superdense qubits per link and step.

    Examples
    --------
    >>> from qring_edu.experiments.training import learner_comparison
    >>> cmp = learner_comparison(fidelities=(1.0, 0.95), steps=3)
    >>> fig = plot_learner_comparison(cmp)
    >>> len(fig.axes)                                   # one row of three panels per model
    6
    """
    models = nonempty(result.models, "result.models", "model")
    fig = Figure(figsize=(11, 3.5 * len(models) + 0.3), layout="constrained")
    grid = fig.subplots(len(models), 3, squeeze=False)
    for i, (row, model) in enumerate(zip(grid, models)):
        runs = result.runs_of(model)
        _draw_runs(*row, runs, [_label(r) for r in runs], legend_loss=i == 0)  # same colours
        cl = runs[0]
        sd = next((r for r in runs if r.transport == "superdense"), cl)
        title = (
            f"{_MODEL_NAMES.get(model, model)}: {cl.n_params} parameters, "
            f"{cl.online_bits_per_step:,.0f} bits → {sd.online_qubits_per_step:,.0f} qubits "
            "per link and step"
        )
        row[0].set_title(f"{title}\nLoss", fontsize=9, loc="left")
        row[1].set_title("Accuracy", fontsize=9)
        row[2].set_title("Replica disagreement: loss spread", fontsize=9)
    title = f"Both learners over both rings, P = {result.workers} workers, "
    fig.suptitle(title + f"{result.steps} steps, seed {result.seed}", fontsize=11)
    return fig


def plot_learner_training(result: LearnerTraining) -> Figure:
    """The widget's figure: one learner over the superdense ring next to the classical ring
    (:class:`~qring_edu.experiments.training.LearnerTraining`).

    Examples
    --------
    >>> from qring_edu.experiments.training import learner_training
    >>> fig = plot_learner_training(learner_training("mlp", 0.95, steps=3))
    >>> len(fig.axes)
    3
    """
    run, ref = result.run, result.reference
    fig = _against_classical(ref, run)
    verdict = f"final accuracy {run.final_accuracy:.3f} (classical {ref.final_accuracy:.3f})"
    verdict = "identical to the classical run" if result.identical else verdict
    title = f"{_MODEL_NAMES.get(run.model, run.model)}, {run.n_params} parameters"
    fig.suptitle(f"{title}, P = {run.workers}: {verdict}", fontsize=11)
    return fig


def plot_vqc_circuit(circuit: QuantumCircuit, title: str = "") -> Figure:
    """Draw the variational classifier's circuit (:func:`qring_edu.vqc.vqc_circuit`) with Qiskit's
    ``"mpl"`` drawer on one line (:func:`~qring_edu.figures._base.plot_circuits`).

    Examples
    --------
    >>> from qring_edu.vqc import vqc_circuit
    >>> fig = plot_vqc_circuit(vqc_circuit(2, 1), "2 qubits, 1 layer")
    >>> fig.axes[0].get_title()
    '2 qubits, 1 layer'
    """
    height = 1.4 + 0.55 * circuit.num_qubits
    return plot_circuits([circuit], [title], width=12, height=height, fold=-1)


# --------------------------------------------------------------------------------------------
# The DDP communication hook as a diagram
# --------------------------------------------------------------------------------------------
def _box(ax, x, y, w, h, text, colour, *, fontsize=10, style="round,pad=0.02"):
    edge = dict(facecolor=colour, edgecolor="0.25", lw=0.9)
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle=style, **edge))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fontsize, wrap=True)


def _arrow(ax, start, end, text="", *, offset=(0.0, 0.08)):
    colour = "0.2"
    style = dict(arrowstyle="-|>", mutation_scale=11, connectionstyle="arc3,rad=0.0")
    ax.add_patch(FancyArrowPatch(start, end, lw=1.1, color=colour, **style))
    if text:
        x, y = (start[0] + end[0]) / 2 + offset[0], (start[1] + end[1]) / 2 + offset[1]
        ax.text(x, y, text, ha="center", va="bottom", fontsize=9, color=colour)


def plot_ddp_hook_flow(workers: int = 4) -> Figure:
    """The data flow of :func:`qring_edu.ddp.ring_hook` inside one DDP training step, on rank r
    of ``workers`` ranks, 2..16 (a diagram; nothing is computed; book/appendix_ddp.ipynb): bucket
    -> header all-reduce (MAX) -> fixed-point encoding -> 2(P − 1) ring steps -> decode, ÷ P ->
    the future DDP waits on -> optimizer step.

    Examples
    --------
    >>> fig = plot_ddp_hook_flow(4)
    >>> len(fig.axes), fig.axes[0].get_title()
    (1, 'The ring as a DDP communication hook: one bucket on rank r of P = 4')
    """
    P = check_int(workers, "workers", 2, 16)
    fig = Figure(figsize=(11.5, 5.0))
    ax = fig.subplots()
    ax.set(xlim=(0, 11), ylim=(0, 4.6))
    ax.axis("off")
    # 1. backward pass -> buckets
    text = "backward pass\n(autograd, last layer first)"
    _box(ax, 0.15, 3.45, 2.1, 0.75, text, COLOURS["compute"])
    for j in range(3):
        _box(ax, 0.35 + 0.62 * j, 2.25, 0.52, 0.7, f"bucket\n{j}", "#e5f5e0", fontsize=9)
    text = "flat tensors of gradients,\nfilled as autograd produces them"
    ax.text(1.2, 2.05, text, ha="center", va="top", fontsize=9)
    _arrow(ax, (1.2, 3.45), (1.2, 2.98))
    # 2. DDP -> hook
    _arrow(ax, (2.25, 2.6), (3.05, 2.6), "full bucket", offset=(0, 0.05))
    style = dict(boxstyle="round,pad=0.03", facecolor="#fff7ec", edgecolor=COLOURS["hook"], lw=1.5)
    ax.add_patch(FancyBboxPatch((3.1, 0.35), 5.35, 3.95, **style))
    text = "ring_hook(state, bucket) on rank r"
    ax.text(5.78, 4.1, text, ha="center", va="center", fontsize=11.5, weight="bold")
    # the hook's boxes and what follows them: (x, y, width, height, colour), then the texts
    grey = "#f0f0f0"
    for (x, y, w, h, colour), text in zip(
        (
            (3.3, 3.05, 2.3, 0.75, grey),
            (3.3, 1.45, 2.3, 0.75, grey),
            (8.75, 3.3, 2.05, 0.8, grey),
            (8.75, 1.95, 2.05, 0.8, COLOURS["future"]),
            (8.75, 0.6, 2.05, 0.8, COLOURS["compute"]),
        ),
        (
            "1. header: an all-reduce\n(MAX) of 4 numbers\nper bucket",
            "2. encode: b-bit words at\nthe scale of the largest |g|,\nP chunks",
            "4. decode, ÷ P:\nthe averaged bucket\n(error ≤ M/(2m), M: the scale)",
            "Future of the bucket\n→ DDP copies it into\nthe .grad tensors",
            "optimizer.step()\n(model, loss, optimizer\nunchanged)",
        ),
    ):
        _box(ax, x, y, w, h, text, colour, fontsize=9)
    text = "classical side information:\n≤ 2·4·64 = 512 bits per link and bucket"
    ax.text(4.45, 2.93, text, ha="center", va="top", fontsize=8.5, color=COLOURS["header"])
    _arrow(ax, (4.45, 2.45), (4.45, 2.22))
    # the ring of P ranks
    cx, cy, rad = 7.05, 2.45, 0.75
    angles = np.pi / 2 - 2 * np.pi * np.arange(P) / P
    pts = np.c_[cx + rad * np.cos(angles), cy + rad * np.sin(angles)]
    for k, (px, py) in enumerate(pts):
        colour = COLOURS["hook"] if k == 0 else "white"
        style = dict(boxstyle="round,pad=0.02", facecolor=colour, edgecolor="0.3", lw=0.8)
        ax.add_patch(FancyBboxPatch((px - 0.2, py - 0.14), 0.4, 0.28, **style))
        ax.text(px, py, "r" if k == 0 else f"r+{k}", ha="center", va="center", fontsize=8.5)
    for k in range(P):
        a, b = pts[k], pts[(k + 1) % P]
        u = (b - a) / np.linalg.norm(b - a)
        style = dict(arrowstyle="-|>", mutation_scale=9, connectionstyle="arc3,rad=-0.25")
        ends = tuple(a + 0.27 * u), tuple(b - 0.27 * u)
        ax.add_patch(FancyArrowPatch(*ends, lw=1.0, color=COLOURS["superdense"], **style))
    text = f"3. 2(P − 1) = {2 * (P - 1)}\nring steps"
    ax.text(cx, cy, text, ha="center", va="center", fontsize=9)
    text = (
        "each step: isend a chunk to r+1, recv one from r−1,\n"
        "add (reduce-scatter) or overwrite (all-gather);\nrank r simulates its incoming "
        "link: bits, or qubits\nover pre-shared pairs (noise: the fast path)"
    )
    ax.text(cx, 0.45, text, ha="center", va="bottom", fontsize=8.2)
    _arrow(ax, (5.6, 1.82), (cx - rad - 0.3, cy - 0.2))
    # 4. decode -> future -> optimizer
    _arrow(ax, (cx + rad + 0.25, cy + 0.2), (8.72, 3.6))
    _arrow(ax, (9.78, 3.28), (9.78, 2.78))
    _arrow(ax, (9.78, 1.93), (9.78, 1.43))
    title = f"The ring as a DDP communication hook: one bucket on rank r of P = {P}"
    ax.set_title(title, fontsize=12.5)
    fig.tight_layout()
    return fig


def plot_compression(view: experiments.CompressionView) -> Figure:
    """One :class:`~qring_edu.experiments.training.CompressionView`: online channel uses per link
    and step of each run (log scale; bits blue, qubits orange, headers a grey tail if they
    count), labelled with the ratio to the outlined baseline and the held-out accuracy.

    Examples
    --------
    >>> from qring_edu.experiments.training import CompressionComparison, CompressionRun
    >>> run = CompressionRun("superdense", "qubits", 2.5e4, 256.0, 0.97, True)
    >>> view = CompressionComparison(2, 20, 5, 4482, (run,), {}).against(run.label)
    >>> plot_compression(view).axes[0].get_xscale()
    'log'
    """
    cmp = view.comparison
    runs = nonempty(cmp.runs, "view.comparison.runs", "CompressionRun")
    fig = Figure(figsize=(10, 0.4 * len(runs) + 1.4), layout="constrained")
    ax = fig.subplots()
    for y, k in enumerate(reversed(range(len(runs)))):
        run, total, ratio = runs[k], view.traffic[k], view.ratios[k]
        colour = COLOURS["superdense" if run.carried == "qubits" else "classical"]
        base = run.label == view.baseline
        ax.barh(y, run.per_link, color=colour, edgecolor="black" if base else colour, lw=1.5)
        ax.barh(y, total - run.per_link, left=run.per_link, color=COLOURS["header"])
        header = f" + {total - run.per_link:,.0f} header bits" if total > run.per_link else ""
        times = f"{ratio:.1f}× fewer" if ratio >= 1 else f"{1 / ratio:.1f}× more"
        times = "baseline" if base else "as many" if round(ratio, 3) == 1 else times
        text = f"{run.per_link:,.0f} {run.carried}{header} ({times}), accuracy {run.accuracy:.3f}"
        ax.text(total * 1.05, y, text, va="center", fontsize=8)
    ax.set_yticks(range(len(runs)), [r.label for r in runs[::-1]], fontsize=8)
    ax.set(xscale="log", xlim=(min(view.traffic) / 2, max(view.traffic) * 30))
    counted = "online bits or qubits + classical headers" if view.headers else "online channel uses"
    ax.set_xlabel(f"{counted} per link and step (after {cmp.warmup} warm-up steps)")
    title = f"{cmp.n_params:,} parameters, P = {cmp.workers}, {cmp.steps} steps, same seeds; "
    ax.set_title(title + f"ratios against {view.baseline}", fontsize=10)
    return fig
