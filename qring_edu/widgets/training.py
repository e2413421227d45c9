"""Widgets of chapter 3's section *Training over the ring*: :mod:`qring_edu.experiments.training`
and :mod:`qring_edu.figures.training` wired by :class:`~qring_edu.widgets.LiveFigure`."""

from __future__ import annotations

from functools import lru_cache

import ipywidgets as widgets

from ..experiments.training import compression_comparison, learner_training, training_comparison
from ..figures.training import plot_compression, plot_learner_training, plot_training_comparison
from ..training import TRAINING_MODELS
from ._base import LiveFigure, explorer, slider, wide_descriptions

__all__ = ["superdense_training_widget", "learner_training_widget", "compression_widget"]

#: The compression runs already trained, by (workers, steps, seed): training takes about a second
#: per step, so a widget trains once and its controls only choose what is drawn.
_compressions = lru_cache(maxsize=4)(compression_comparison)


@explorer
def superdense_training_widget(
    pair_fidelity: float = 0.99, workers: int = 4, bits: int = 16, seed: int = 0, steps: int = 100
) -> LiveFigure:
    """Pair fidelity, workers, word size and seed -> loss, accuracy and replica disagreement of
    the MLP's superdense run against its classical run (about a second per setting).

    Examples
    --------
    >>> live = superdense_training_widget(steps=3)
    >>> live.result
    TrainingComparison(identical=False, classical_loss=0.2811, superdense_loss=0.4187, divergence=1)
    >>> live.controls["pair_fidelity"].value = 1.0
    >>> live.result.identical
    True
    """
    controls = {
        "pair_fidelity": slider("pair fidelity F", pair_fidelity, 0.9, 1.0, 0.001, ".3f"),
        "workers": widgets.IntSlider(value=workers, min=2, max=6, description="workers P"),
        "bits": widgets.IntSlider(value=bits, min=2, max=24, description="bits per word"),
        "seed": widgets.IntText(value=seed, description="seed"),
    }
    wide_descriptions(controls)

    def compute(pair_fidelity, workers, bits, seed):
        return training_comparison(pair_fidelity, workers, bits, steps=steps, seed=seed)

    grid = {"pair_fidelity": sorted({0.95, 0.97, 0.99, 0.995, 0.999, 1.0, pair_fidelity})}
    title = "Training over the superdense ring"
    return LiveFigure(compute, plot_training_comparison, controls, title=title, grid=grid)


@explorer
def learner_training_widget(
    model: str = "vqc", pair_fidelity: float = 0.99, workers: int = 4, seed: int = 0, steps=100
) -> LiveFigure:
    """Learner (MLP or VQC), pair fidelity, workers and seed -> the learner's training curves
    over the superdense ring next to its classical run
    (:func:`~qring_edu.experiments.training.learner_training`; about a second per setting).

    Examples
    --------
    >>> live = learner_training_widget("mlp", steps=3)
    >>> live.result
    LearnerTraining(model='mlp', pair_fidelity=0.99, identical=False, accuracy=0.8222, classical_accuracy=0.8675)
    >>> live.controls["pair_fidelity"].value = 1.0
    >>> live.result.identical                            # perfect pairs: the classical run
    True
    """
    controls = {
        "model": widgets.Dropdown(
            options=list(TRAINING_MODELS), value=model, description="learner"
        ),
        "pair_fidelity": slider("pair fidelity F", pair_fidelity, 0.9, 1.0, 0.001, ".3f"),
        "workers": widgets.IntSlider(value=workers, min=2, max=6, description="workers P"),
        "seed": widgets.IntText(value=seed, description="seed"),
    }
    wide_descriptions(controls)

    def compute(model, pair_fidelity, workers, seed):
        return learner_training(model, pair_fidelity, workers, seed, steps=steps)

    # About two seconds per setting: the learner and five fidelities.
    grid = {"model": None, "pair_fidelity": sorted({0.95, 0.98, 0.99, 0.995, 1.0, pair_fidelity})}
    title = "A learner over the ring: MLP or variational quantum classifier"
    return LiveFigure(compute, plot_learner_training, controls, title=title, grid=grid)


@explorer
def compression_widget(
    baseline: str = "built-in all-reduce (gloo)",
    headers: bool = False,
    workers: int = 2,
    steps: int = 30,
    seed: int = 0,
) -> LiveFigure:
    """Baseline run and whether the classical headers count -> every run of
    :func:`~qring_edu.experiments.training.compression_comparison` with its channel uses per
    link and step and its ratio to the baseline
    (:meth:`~qring_edu.experiments.training.CompressionComparison.against`). The runs are
    trained once, when the widget is made; the controls only redraw.

    Examples
    --------
    >>> live = compression_widget(steps=12)
    >>> round(live.result.ratios[7], 2)             # PowerSGD rank 1 over the superdense ring
    34.88
    >>> live.controls["headers"].value = True       # its 768 header bits are classical
    >>> round(live.result.ratios[7], 1)
    29.4
    """
    cmp = _compressions(workers=workers, steps=steps, seed=seed)
    cmp.run(baseline)  # a bad baseline: a readable error, before a control shows it
    controls = {
        "baseline": widgets.Dropdown(
            options=[r.label for r in cmp.runs], value=baseline, description="baseline"
        ),
        "headers": widgets.Checkbox(value=headers, description="classical headers"),
    }
    wide_descriptions(controls)
    title, grid = "Compression, measured and composed", {"baseline": None, "headers": None}
    return LiveFigure(cmp.against, plot_compression, controls, title=title, grid=grid)
