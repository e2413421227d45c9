"""Experiments of the section *Training over the ring* of chapter 3: the same data-parallel run
over the classical and the superdense ring, both learners (the MLP and the variational quantum
classifier) over both rings at several pair fidelities, their gradients on the α–β clock, and
the PyTorch DDP demo's tables.

Pure: every number comes from :mod:`qring_edu.training` (and :mod:`qring_edu.vqc` through it);
results are frozen dataclasses (figures: :mod:`qring_edu.figures.training`). No matplotlib, no
ipywidgets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field, fields

import numpy as np

from .._result import result
from .._validate import check_choice, check_fidelity, check_int
from ..noise import Link
from ..training import (
    MLP,
    TRAINING_MODELS,
    VQC,
    GradientBudget,
    TrainingRun,
    gradient_budget,
    train_data_parallel,
)
from ._base import Table, Tabular

__all__ = [
    "TrainingComparison",
    "training_comparison",
    "training_table",
    "LearnerComparison",
    "learner_comparison",
    "LearnerBudget",
    "learner_budget",
    "LearnerTraining",
    "learner_training",
    "ddp_loss_table",
    "ddp_ledger_table",
    "ddp_private_table",
]


def _pair(run: TrainingRun) -> float | None:
    """The superdense run's pair fidelity; ``None`` for the classical ring."""
    return None if run.link is None else run.link.pair


#: The chapter's pair fidelities for the learner comparison.
LEARNER_FIDELITIES = (1.0, 0.999, 0.99, 0.95)
#: Keywords of :func:`qring_edu.train_data_parallel` that describe the quantum link.
LINK_KEYWORDS = tuple(f.name for f in fields(Link) if f.name != "pair_fidelity") + ("protection",)


# --------------------------------------------------------------------------------------------
# One learner over the two rings
# --------------------------------------------------------------------------------------------
@result(show=("identical", "classical_loss", "superdense_loss", "divergence"))
class TrainingComparison:
    """The same data-parallel training run over the classical and the superdense ring.

    Examples
    --------
    >>> cmp = training_comparison(1.0, 2, steps=3)
    >>> cmp                                             # perfect pairs: the same run bit for bit
    TrainingComparison(identical=True, classical_loss=0.2737, superdense_loss=0.2737, divergence=0)
    """

    classical: TrainingRun = field(repr=False)
    superdense: TrainingRun = field(repr=False)

    @property
    def identical(self) -> bool:
        """True when the final weights of the two runs are bit-for-bit equal."""
        return bool(np.array_equal(self.classical.weights, self.superdense.weights))

    @property
    def classical_loss(self) -> float:
        """Final loss over the classical ring."""
        return self.classical.final_loss

    @property
    def superdense_loss(self) -> float:
        """Final loss over the superdense ring."""
        return self.superdense.final_loss

    @property
    def divergence(self) -> float:
        """Replica divergence of the superdense run, ``max |w_k - w_0|``."""
        return self.superdense.divergence


def training_comparison(
    pair_fidelity: float = 0.99,
    workers: int = 4,
    bits: int = 16,
    *,
    steps: int = 100,
    seed: int = 0,
) -> TrainingComparison:
    """Train twice with :func:`qring_edu.train_data_parallel` (same data, initial weights and
    batches): over the classical ring and over the superdense ring with pairs of fidelity F.

    Examples
    --------
    >>> training_comparison(1.0, 2, steps=3).identical
    True
    """
    common = dict(workers=workers, steps=steps, bits=bits, seed=seed)
    classical = train_data_parallel(transport="classical", **common)
    superdense = train_data_parallel(transport="superdense", pair_fidelity=pair_fidelity, **common)
    return TrainingComparison(classical, superdense)


def training_table(runs: Mapping[str, TrainingRun]) -> Table:
    """One row per labelled run: final loss, final accuracy (mean over replicas) and the replica
    divergence ``max |w_k - w_0|``.

    Examples
    --------
    >>> run = train_data_parallel(steps=5, seed=0)
    >>> training_table({"classical": run}).columns
    ('run', 'final loss', 'final accuracy', 'replica divergence max|w_k - w_0|')
    """
    if not isinstance(runs, Mapping):
        raise TypeError(f"runs must map labels to TrainingRun, got {type(runs).__name__}")
    rows = []
    for label, run in runs.items():
        if not isinstance(run, TrainingRun):
            raise TypeError(f"runs must map labels to TrainingRun, got {type(run).__name__}")
        rows.append((str(label), run.final_loss, run.final_accuracy, run.divergence))
    return Table(
        ("run", "final loss", "final accuracy", "replica divergence max|w_k - w_0|"),
        tuple(rows),
        ("", ".4f", ".3f", ".3g"),
    )


@result(show=("model", "pair_fidelity", "identical", "accuracy", "classical_accuracy"))
class LearnerTraining:
    """One learner trained over the superdense ring next to the same run over the classical ring
    (:func:`learner_training`): ``reference`` (classical) and ``run`` (superdense).

    Examples
    --------
    >>> t = learner_training("mlp", 0.9, steps=3)
    >>> t
    LearnerTraining(model='mlp', pair_fidelity=0.9, identical=False, accuracy=0.8278, classical_accuracy=0.8675)
    """

    reference: TrainingRun = field(repr=False)
    run: TrainingRun = field(repr=False)

    model = property(lambda self: self.run.model, doc="The learner's name.")
    pair_fidelity = property(lambda self: self.run.link.pair, doc="The superdense ring's F.")
    accuracy = property(lambda self: self.run.final_accuracy, doc="Final accuracy, superdense.")
    classical_accuracy = property(
        lambda self: self.reference.final_accuracy, doc="Final accuracy, classical ring."
    )

    @property
    def identical(self) -> bool:
        """True when ``run`` ends with bit-for-bit the reference's parameters."""
        return bool(np.array_equal(self.reference.weights, self.run.weights))


def learner_training(
    model: str = "vqc", pair_fidelity: float = 0.99, workers: int = 4, seed: int = 0, *, steps=100
) -> LearnerTraining:
    """Train ``model`` (``"mlp"`` or ``"vqc"``) over the superdense ring with pairs of fidelity
    ``pair_fidelity`` and over the classical ring, with the same data, initial parameters and
    batches (:func:`qring_edu.train_data_parallel`); at F = 1 the two runs are identical.

    Examples
    --------
    >>> learner_training("vqc", 1.0, steps=3).identical
    True
    """
    model = check_choice(model, "model", TRAINING_MODELS)
    common = dict(model=model, workers=workers, steps=steps, seed=seed)
    reference = train_data_parallel(**common)
    run = train_data_parallel(transport="superdense", pair_fidelity=pair_fidelity, **common)
    return LearnerTraining(reference, run)


# --------------------------------------------------------------------------------------------
# Both learners over both rings
# --------------------------------------------------------------------------------------------
@result(show=("identical_at_1",))
class LearnerComparison(Tabular):
    """Training runs of several learners over the classical ring and the superdense ring at
    several pair fidelities, with the same data, initial parameters and batches per learner
    (:func:`learner_comparison`).

    ``runs``: one :class:`~qring_edu.TrainingRun` per ``(model, pair fidelity)``, in the order
    ``for model in models: classical, then superdense at each of fidelities``.

    Examples
    --------
    >>> cmp = learner_comparison(models=("mlp",), fidelities=(1.0, 0.9), steps=3)
    >>> cmp
    LearnerComparison(models=('mlp',), fidelities=(1, 0.9), workers=4, steps=3, seed=0, identical_at_1=(('mlp', True),))
    >>> [(r.transport, r.link) for r in cmp.runs][:2]     # classical first, then each F
    [('classical', None), ('superdense', Link(pair_fidelity=1, channel_fidelity=1, storage_time=0, coherence_time=inf, transmission=1))]
    """

    models: tuple[str, ...]
    fidelities: tuple[float, ...]
    workers: int
    steps: int
    seed: int
    runs: tuple[TrainingRun, ...] = field(repr=False)

    def run(self, model: str, pair_fidelity: float | None = None) -> TrainingRun:
        """The run of ``model`` over the classical ring (``pair_fidelity=None``) or over the
        superdense ring at ``pair_fidelity``."""
        model = check_choice(model, "model", self.models)
        for r in self.runs:
            if r.model == model and _pair(r) == pair_fidelity:
                return r
        allowed = ", ".join(f"{F:g}" for F in self.fidelities)
        raise ValueError(
            f"pair_fidelity must be None (the classical run) or one of {allowed} (the "
            f"fidelities of this comparison), got {pair_fidelity!r}"
        )

    def runs_of(self, model: str) -> tuple[TrainingRun, ...]:
        """``model``'s runs: the classical one, then the superdense ones in ``fidelities`` order."""
        model = check_choice(model, "model", self.models)
        return tuple(r for r in self.runs if r.model == model)

    def identical(self, model: str) -> bool:
        """True when ``model``'s classical run and its superdense run at F = 1 have bit-identical
        parameters and loss histories (False if F = 1 is not among the fidelities)."""
        if 1.0 not in self.fidelities:
            return False
        a, b = self.run(model), self.run(model, 1.0)
        return bool(np.array_equal(a.weights, b.weights) and np.array_equal(a.losses, b.losses))

    @property
    def identical_at_1(self) -> tuple:
        """``(model, identical(model))`` per model."""
        return tuple((m, self.identical(m)) for m in self.models)

    def table(self) -> Table:
        """One row per run: model, parameters, transport, F (blank for the classical runs),
        final loss and accuracy, divergence ``max |w_k - w_0|``, the busiest link's online bits
        and qubits per step."""
        rows = tuple(
            (
                r.model,
                r.n_params,
                r.transport,
                _pair(r),
                r.final_loss,
                r.final_accuracy,
                r.divergence,
                r.online_bits_per_step,
                r.online_qubits_per_step,
            )
            for r in self.runs
        )
        return Table(
            (
                "model",
                "parameters",
                "transport",
                "F",
                "final loss",
                "final accuracy",
                "divergence",
                "online bits / step",
                "online qubits / step",
            ),
            rows,
            ("", "d", "", "g", ".4f", ".3f", ".3g", ",.0f", ",.0f"),
        )


def learner_comparison(
    *,
    models=TRAINING_MODELS,
    fidelities=LEARNER_FIDELITIES,
    workers: int = 4,
    steps: int = 100,
    seed: int = 0,
    **train_kw,
) -> LearnerComparison:
    """Train every model of ``models`` (names or :class:`~qring_edu.training.MLP` /
    :class:`~qring_edu.training.VQC` values) over the classical ring and over the superdense ring
    at every pair fidelity of ``fidelities`` (:func:`qring_edu.train_data_parallel`, same
    ``seed``: the same data, initial parameters and batches for every run of a model).

    ``train_kw`` go to every run (e.g. ``bits``, ``lr``), except the link keywords
    (``channel_fidelity``, ``storage_time``, ``coherence_time``, ``transmission``,
    ``protection``), which describe the quantum link and go to the superdense runs.
    ``len(models) * (1 + len(fidelities))`` runs (the chapter's default: 10 runs of 100 steps,
    a few seconds).

    Examples
    --------
    >>> cmp = learner_comparison(fidelities=(1.0, 0.95), steps=10)
    >>> cmp.identical("mlp"), cmp.identical("vqc"), len(cmp.runs)
    (True, True, 6)
    """
    if isinstance(models, (str, MLP, VQC)):
        models = (models,)
    learners = tuple(
        m if isinstance(m, (MLP, VQC)) else check_choice(m, "models", TRAINING_MODELS)
        for m in models
    )
    names = tuple(m if isinstance(m, str) else m.name for m in learners)
    if not names or len(set(names)) != len(names):
        raise ValueError(f"models must be distinct learners from {TRAINING_MODELS}, got {models!r}")
    if isinstance(fidelities, (int, float)):
        fidelities = (fidelities,)
    fidelities = tuple(check_fidelity(F, "fidelities") for F in fidelities)
    if not fidelities or len(set(fidelities)) != len(fidelities):
        raise ValueError(f"fidelities must be distinct values in [0.25, 1], got {fidelities!r}")
    for key in ("model", "transport", "pair_fidelity"):
        if key in train_kw:
            raise TypeError(f"learner_comparison sets {key} itself; do not pass it")
    link = {k: v for k, v in train_kw.items() if k in LINK_KEYWORDS}
    common = dict(
        {k: v for k, v in train_kw.items() if k not in link},
        workers=workers,
        steps=steps,
        seed=seed,
    )
    runs = []
    for model in learners:
        runs.append(train_data_parallel(model=model, **common))
        runs += [
            train_data_parallel(
                model=model, transport="superdense", pair_fidelity=F, **common, **link
            )
            for F in fidelities
        ]
    return LearnerComparison(
        models=names,
        fidelities=fidelities,
        workers=runs[0].workers,
        steps=runs[0].steps,
        seed=seed,
        runs=tuple(runs),
    )


# --------------------------------------------------------------------------------------------
# The learners' gradients on the α–β clock
# --------------------------------------------------------------------------------------------
@result(show=("savings",))
class LearnerBudget(Tabular):
    """:func:`qring_edu.training.gradient_budget` of each learner's gradient
    (:func:`learner_budget`): ``models`` and one :class:`~qring_edu.training.GradientBudget` per
    model in ``budgets``.

    Examples
    --------
    >>> b = learner_budget()
    >>> b
    LearnerBudget(models=('mlp', 'vqc'), savings=(('mlp', 0.0001679), ('vqc', 4e-05)))
    >>> b.budget("mlp")
    GradientBudget(n_params=82, workers=4, bits=16, link_bits=1984, link_qubits=992, bandwidth_ratio=0.000336, saving=0.0001679, crossover_params=2.5e+05)
    """

    models: tuple[str, ...]
    budgets: tuple[GradientBudget, ...] = field(repr=False)

    @property
    def savings(self) -> tuple:
        """``(model, fraction of the all-reduce time the superdense ring saves)`` per model."""
        return tuple((m, b.saving) for m, b in zip(self.models, self.budgets))

    def budget(self, model: str) -> GradientBudget:
        """The budget of ``model``."""
        model = check_choice(model, "model", self.models)
        return self.budgets[self.models.index(model)]

    def table(self) -> Table:
        """One row per learner: parameters, busiest link's bits and qubits per step, the
        bandwidth term over the latency term of the classical ring, the superdense saving, and
        the gradient size at which the two terms are equal."""
        rows = tuple(
            (
                m,
                b.n_params,
                b.link_bits,
                b.link_qubits,
                b.bandwidth_ratio,
                b.saving,
                b.crossover_params,
            )
            for m, b in zip(self.models, self.budgets)
        )
        return Table(
            (
                "model",
                "parameters",
                "link bits / step",
                "link qubits / step",
                "bandwidth ÷ latency",
                "superdense saving",
                "parameters where equal",
            ),
            rows,
            ("", "d", ",d", ",d", ".2g", ".2g", ",.0f"),
        )


def learner_budget(
    models: Sequence[str] = TRAINING_MODELS,
    *,
    workers: int = 4,
    bits: int = 16,
    alpha: float = 10e-6,
    beta: float = 1e-11,
) -> LearnerBudget:
    """Per-step ring cost of each learner's gradient (:func:`qring_edu.training.gradient_budget`): the
    MLP of :func:`qring_edu.train_data_parallel` (2-16-2, 82 parameters) and the default VQC
    (3 qubits x 3 layers, 18 angles). ``alpha``/``beta``: seconds per message and per bit
    (classical) or qubit (superdense), by default the book's 10 µs and 100 Gbit/s.

    Examples
    --------
    >>> b = learner_budget()
    >>> b.budget("vqc").link_qubits, b.budget("mlp").link_bits
    (224, 1984)
    """
    if isinstance(models, str):
        models = (models,)
    models = tuple(check_choice(m, "models", TRAINING_MODELS) for m in models)
    sizes = {"mlp": MLP().n_params, "vqc": VQC().n_params}
    check_int(workers, "workers", 2)
    return LearnerBudget(
        models,
        tuple(
            gradient_budget(sizes[m], workers=workers, bits=bits, alpha=alpha, beta=beta)
            for m in models
        ),
    )


# --------------------------------------------------------------------------------------------
# The DDP hook's demo run (qring_edu.ddp.ddp_demo) as tables
# --------------------------------------------------------------------------------------------
def ddp_loss_table(demo, steps: Sequence[int] = (0, 10, 40)) -> Table:
    """One row per run of a :class:`qring_edu.ddp.DDPDemo`: the mean loss over the replicas at
    the given ``steps``, the largest deviation of the averaged gradient from the built-in
    all-reduce's, and the final replica divergence ``max |w_1 - w_0|``.

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu.ddp import DDPDemo
    >>> from qring_edu.experiments.training import ddp_loss_table
    >>> losses = {"built-in": np.array([[0.7, 0.7], [0.5, 0.5]]),
    ...           "classical": np.array([[0.7, 0.7], [0.5, 0.5]])}
    >>> demo = DDPDemo(world_size=2, steps=1, bits=16, n_params=3, labels=("built-in", "classical"),
    ...                losses=losses, reports={}, grad_error={"built-in": 0.0, "classical": 1e-6},
    ...                divergence={"built-in": 0.0, "classical": 0.0})
    >>> print(ddp_loss_table(demo, steps=(0, 1)))       # a hand-made demo; ddp_demo runs processes
    run        mean loss at step 0  mean loss at step 1  max|avg grad - built-in|  max|w_1 - w_0|
    built-in                0.7000               0.5000                   0.0e+00               0
    classical               0.7000               0.5000                   1.0e-06               0
    """
    rows = []
    for label in demo.labels:
        loss = demo.losses[label].mean(axis=1)  # mean over the replicas
        rows.append(
            (
                label,
                *(float(loss[s]) for s in steps),
                float(demo.grad_error[label]),
                float(demo.divergence[label]),
            )
        )
    head = (
        ("run",)
        + tuple(f"mean loss at step {s}" for s in steps)
        + ("max|avg grad - built-in|", "max|w_1 - w_0|")
    )
    return Table(head, tuple(rows), ("",) + (".4f",) * len(steps) + (".1e", ".3g"))


def ddp_ledger_table(demo) -> Table:
    """One row per (run, rank) of a :class:`qring_edu.ddp.DDPDemo`: what crossed that rank's
    incoming link over the whole run (online bits and qubits, pairs, offline qubits, side bits of
    the message headers, bits flipped by noisy pairs).

    Examples
    --------
    >>> from qring_edu.ddp import DDPDemo, LinkReport
    >>> from qring_edu.experiments.training import ddp_ledger_table
    >>> report = LinkReport(rank=1, link=(0, 1), transport="superdense", online_bits=0,
    ...                     online_qubits=48, ebits=48, offline_qubits=48, side_bits=32,
    ...                     data_bits=96, flipped_bits=0, buckets=1, iterations=1, error_bound=0.0)
    >>> demo = DDPDemo(world_size=2, steps=1, bits=16, n_params=3, labels=("superdense F=1",),
    ...                losses={}, reports={"superdense F=1": (report,)}, grad_error={}, divergence={})
    >>> print(ddp_ledger_table(demo))                    # a hand-made demo; ddp_demo runs processes
    run             link  online bits  online qubits  pairs  offline qubits  side bits  flipped bits
    superdense F=1  0->1            0             48     48              48         32             0
    """
    rows = []
    for label, reports in demo.reports.items():
        for rep in reports:
            rows.append(
                (
                    label,
                    f"{rep.link[0]}->{rep.link[1]}",
                    rep.online_bits,
                    rep.online_qubits,
                    rep.ebits,
                    rep.offline_qubits,
                    rep.side_bits,
                    rep.flipped_bits,
                )
            )
    return Table(
        (
            "run",
            "link",
            "online bits",
            "online qubits",
            "pairs",
            "offline qubits",
            "side bits",
            "flipped bits",
        ),
        tuple(rows),
        ("", "", ",d", ",d", ",d", ",d", ",d", "d"),
    )


def ddp_private_table(demo) -> Table:
    """One row per (run, rank) of a :class:`qring_edu.ddp.DDPDemo`: the online bits of that
    rank's incoming link and the qubit GHZ copies the rank used for its pads, tested, and found
    failing (:class:`qring_edu.ddp.LinkReport`; zero for runs without ``private=True``).

    Per rank and bucket of d entries with b-bit words a private run uses ``d * b`` qubit GHZ
    copies (one register of b copies per entry) and tests ``(N - d) * b`` more, with
    ``N = ceil(d / (1 - f))`` register-copies for test fraction f (:func:`qring_edu.vga.vga_copy_counts`).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> rep = NS(link=(1, 0), online_bits=52_480, ghz_used=52_480, ghz_tested=52_480,
    ...          ghz_tests_failed=0)
    >>> print(ddp_private_table(NS(reports={"private": (rep,)})))
    run      link  online bits  GHZ copies used  GHZ copies tested  failed GHZ tests
    private  1->0       52,480           52,480             52,480                 0
    """
    rows = []
    for label, reports in demo.reports.items():
        for rep in reports:
            rows.append(
                (
                    label,
                    f"{rep.link[0]}->{rep.link[1]}",
                    rep.online_bits,
                    rep.ghz_used,
                    rep.ghz_tested,
                    rep.ghz_tests_failed,
                )
            )
    return Table(
        ("run", "link", "online bits", "GHZ copies used", "GHZ copies tested", "failed GHZ tests"),
        tuple(rows),
        ("", "", ",d", ",d", ",d", "d"),
    )
