"""Experiments of *Training over the ring* (book/03_training.ipynb): both learners (MLP, VQC)
over both rings, their gradients on the α–β clock, the PyTorch DDP demo and PowerSGD composed
with the superdense ring.

Numbers come from :mod:`qring_edu.training` or, for the DDP runs, from :mod:`qring_edu.ddp` in
the processes :mod:`qring_edu.launch` starts (torch is imported inside those functions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field, fields

import numpy as np

from .._result import result
from .._validate import check_bits, check_choice, check_fidelity, check_float, check_int
from ..fixedpoint import fixed_point
from ..noise import Link
from ..ring import message_bits
from ..training import (
    MLP,
    TRAINING_MODELS,
    VQC,
    GradientBudget,
    TrainingRun,
    gradient_budget,
    make_moons,
    train_data_parallel,
)
from ..transports import Classical, Superdense
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
    "DDPDemo",
    "ddp_demo",
    "ddp_loss_table",
    "ddp_ledger_table",
    "ddp_private_table",
    "CompressionRun",
    "CompressionComparison",
    "CompressionView",
    "compression_comparison",
    "COMPRESSION_RUNS",
]


def _pair(run: TrainingRun) -> float | None:
    """The superdense run's pair fidelity; ``None`` for the classical ring."""
    return None if run.link is None else run.link.pair


#: The chapter's pair fidelities for the learner comparison.
LEARNER_FIDELITIES = (1.0, 0.999, 0.99, 0.95)
#: Keywords of :func:`qring_edu.train_data_parallel` that describe the quantum link.
LINK_KEYWORDS = tuple(f.name for f in fields(Link) if f.name != "pair_fidelity") + ("protection",)
#: The runs of :func:`compression_comparison`: (label, PowerSGD rank or None, ring or None).
COMPRESSION_RUNS = (
    ("built-in all-reduce (gloo)", None, None),
    ("PowerSGD rank 1 (gloo)", 1, None),
    ("PowerSGD rank 4 (gloo)", 4, None),
    ("classical ring, 16 bits", None, ("classical", 16)),
    ("classical ring, 8 bits", None, ("classical", 8)),
    ("superdense ring, 16 bits", None, ("superdense", 16)),
    ("PowerSGD rank 1 over the classical ring", 1, ("classical", 16)),
    ("PowerSGD rank 1 over the superdense ring", 1, ("superdense", 16)),
    ("PowerSGD rank 1 over the classical ring, 8 bits", 1, ("classical", 8)),
)


# One learner over the two rings
@result(show=("identical", "classical_loss", "superdense_loss", "divergence"))
class TrainingComparison:
    """The same data-parallel training run over the classical and the superdense ring.

    Examples
    --------
    >>> training_comparison(1.0, 2, steps=3)            # perfect pairs: the same run bit for bit
    TrainingComparison(identical=True, classical_loss=0.2737, superdense_loss=0.2737, divergence=0)
    """

    classical: TrainingRun = field(repr=False)
    superdense: TrainingRun = field(repr=False)

    identical = property(
        lambda self: bool(np.array_equal(self.classical.weights, self.superdense.weights)),
        doc="True when the final weights of the two runs are bit-for-bit equal.",
    )
    classical_loss = property(lambda self: self.classical.final_loss, doc="Final loss.")
    superdense_loss = property(lambda self: self.superdense.final_loss, doc="Final loss.")
    divergence = property(lambda self: self.superdense.divergence, doc="max |w_k - w_0|.")


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
    return TrainingComparison(
        *_both_rings(pair_fidelity, workers=workers, steps=steps, bits=bits, seed=seed)
    )


def _both_rings(pair_fidelity, **common) -> tuple[TrainingRun, TrainingRun]:
    """The same run over the classical ring and over the superdense ring at ``pair_fidelity``."""
    classical = train_data_parallel(transport="classical", **common)
    return classical, train_data_parallel(
        transport="superdense", pair_fidelity=pair_fidelity, **common
    )


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
    head = ("run", "final loss", "final accuracy", "replica divergence max|w_k - w_0|")
    return Table(head, tuple(rows), ("", ".4f", ".3f", ".3g"))


@result(show=("model", "pair_fidelity", "identical", "accuracy", "classical_accuracy"))
class LearnerTraining:
    """One learner trained over the superdense ring next to the same run over the classical ring
    (:func:`learner_training`): ``reference`` (classical) and ``run`` (superdense).

    Examples
    --------
    >>> learner_training("mlp", 0.9, steps=3)
    LearnerTraining(model='mlp', pair_fidelity=0.9, identical=False, accuracy=0.7159, classical_accuracy=0.8675)
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
    """Like :func:`training_comparison`, for the learner ``model`` (``"mlp"`` or ``"vqc"``); at
    F = 1 the two runs are identical.

    Examples
    --------
    >>> learner_training("vqc", 1.0, steps=3).identical
    True
    """
    model = check_choice(model, "model", TRAINING_MODELS)
    return LearnerTraining(
        *_both_rings(pair_fidelity, model=model, workers=workers, steps=steps, seed=seed)
    )


# Both learners over both rings
@result(show=("identical_at_1",))
class LearnerComparison(Tabular):
    """Runs of :func:`learner_comparison`: one :class:`~qring_edu.TrainingRun` per ``(model,
    pair fidelity)`` in ``runs``, per model the classical run, then superdense at each fidelity.

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
        allowed = "None (the classical run) or one of " + ", ".join(
            f"{F:g}" for F in self.fidelities
        )
        raise ValueError(f"pair_fidelity must be {allowed}, got {pair_fidelity!r}")

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

    identical_at_1 = property(
        lambda self: tuple((m, self.identical(m)) for m in self.models), doc="Per model."
    )

    def table(self) -> Table:
        """One row per run: F blank for the classical runs; the busiest link's traffic per step."""
        rows = tuple(
            (r.model, r.n_params, r.transport, _pair(r), r.final_loss, r.final_accuracy)
            + (r.divergence, r.online_bits_per_step, r.online_qubits_per_step)
            for r in self.runs
        )
        left = ("model", "parameters", "transport", "F", "final loss", "final accuracy")
        head = (*left, "divergence", "online bits / step", "online qubits / step")
        return Table(head, rows, ("", "d", "", "g", ".4f", ".3f", ".3g", ",.0f", ",.0f"))


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
    (``LINK_KEYWORDS``: the fields of ``Link`` and ``protection``) go to the superdense runs.

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
    common = {k: v for k, v in train_kw.items() if k not in link}
    common.update(workers=workers, steps=steps, seed=seed)
    link.update(common, transport="superdense")
    runs = []
    for model in learners:
        runs.append(train_data_parallel(model=model, **common))
        runs += [train_data_parallel(model=model, pair_fidelity=F, **link) for F in fidelities]
    P, steps = runs[0].workers, runs[0].steps
    return LearnerComparison(names, fidelities, P, steps, seed, tuple(runs))


# The learners' gradients on the α–β clock
@result(show=("savings",))
class LearnerBudget(Tabular):
    """One :class:`~qring_edu.training.GradientBudget` per model of ``models``
    (:func:`learner_budget`).

    Examples
    --------
    >>> learner_budget()
    LearnerBudget(models=('mlp', 'vqc'), savings=(('mlp', 0.0001679), ('vqc', 4e-05)))
    """

    models: tuple[str, ...]
    budgets: tuple[GradientBudget, ...] = field(repr=False)

    savings = property(
        lambda self: tuple((m, b.saving) for m, b in zip(self.models, self.budgets)),
        doc="``(model, share of the all-reduce time the superdense ring saves)`` per model.",
    )

    def budget(self, model: str) -> GradientBudget:
        """The budget of ``model``."""
        return self.budgets[self.models.index(check_choice(model, "model", self.models))]

    def table(self) -> Table:
        """One row per learner: parameters, busiest link's bits and qubits per step, the
        bandwidth term over the latency term of the classical ring, the superdense saving, and
        the gradient size at which the two terms are equal."""
        names = "n_params link_bits link_qubits bandwidth_ratio saving crossover_params".split()
        rows = tuple(
            (m, *(getattr(b, n) for n in names)) for m, b in zip(self.models, self.budgets)
        )
        left = ("model", "parameters", "link bits / step", "link qubits / step")
        head = (*left, "bandwidth ÷ latency", "superdense saving", "parameters where equal")
        return Table(head, rows, ("", "d", ",d", ",d", ".2g", ".2g", ",.0f"))


def learner_budget(
    models: Sequence[str] = TRAINING_MODELS,
    *,
    workers: int = 4,
    bits: int = 16,
    alpha: float = 10e-6,
    beta: float = 1e-11,
) -> LearnerBudget:
    """:func:`qring_edu.training.gradient_budget` of the MLP (82 parameters) and the VQC (18
    angles); ``alpha``/``beta``: seconds per message and per bit or qubit.

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
    clock = dict(workers=workers, bits=bits, alpha=alpha, beta=beta)
    return LearnerBudget(models, tuple(gradient_budget(sizes[m], **clock) for m in models))


# The DDP hook over real processes (qring_edu.ddp): the demo and the compression comparison
@result
class DDPDemo:
    """Result of :func:`ddp_demo`, per run ``label``: ``losses`` (steps + 1, P: each replica's loss
    on the training set before step 0 and after each step), ``reports`` (the P
    :class:`qring_edu.ddp.LinkReport`; none for ``"built-in"``), ``grad_error`` (max |hook
    average - built-in average| of the first gradient), ``divergence`` (final max |w_k - w_0|).

    Examples
    --------
    >>> DDPDemo(world_size=2, steps=1, bits=16, n_params=82, labels=("built-in", "private"),
    ...         losses={}, reports={}, grad_error={}, divergence={})
    DDPDemo(world_size=2, steps=1, bits=16, n_params=82, labels=('built-in', 'private'))
    """

    world_size: int
    steps: int
    bits: int
    n_params: int
    labels: tuple
    losses: dict = field(repr=False)
    reports: dict = field(repr=False)
    grad_error: dict = field(repr=False)
    divergence: dict = field(repr=False)


def _flat(tensors) -> np.ndarray:
    import torch

    return torch.cat([t.detach().reshape(-1) for t in tensors]).numpy().copy()


def _demo_worker(rank, world_size, runs, steps, bits, hidden, n_samples, batch_size, lr, seed):
    """One rank of :func:`ddp_demo`: train the moons MLP once per entry of ``runs``."""
    import torch
    from torch.nn.parallel import DistributedDataParallel

    from ..ddp import RingHookState, ring_hook

    X, y = make_moons(n_samples, seed=seed)
    X, y = torch.from_numpy(X), torch.from_numpy(y)
    shard = torch.arange(rank, n_samples, world_size)
    loss_fn = torch.nn.CrossEntropyLoss()
    out: dict = {"losses": {}, "reports": {}, "grads": {}, "weights": {}}
    for label, transport, private in runs:
        torch.manual_seed(seed)  # identical initial weights in every run (DDP also broadcasts)
        net = torch.nn.Sequential(
            torch.nn.Linear(2, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 2)
        ).double()
        model = DistributedDataParallel(net)
        state = None
        if transport is not None:
            state = RingHookState(transport=transport, bits=bits, seed=seed, private=private)
            model.register_comm_hook(state, ring_hook)
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        batches = np.random.default_rng([seed, rank])
        losses = []
        for step in range(steps):
            with torch.no_grad():
                losses.append(float(loss_fn(net(X), y)))
            idx = shard[torch.from_numpy(batches.choice(shard.numel(), batch_size, replace=False))]
            opt.zero_grad()
            loss_fn(model(X[idx]), y[idx]).backward()
            if step == 0:
                out["grads"][label] = _flat(p.grad for p in net.parameters())
            opt.step()
        with torch.no_grad():
            losses.append(float(loss_fn(net(X), y)))
        out["losses"][label] = losses
        out["weights"][label] = _flat(net.parameters())
        if state is not None:
            out["reports"][label] = state.report()
    out["n_params"] = sum(p.numel() for p in net.parameters())
    return out


def ddp_demo(
    *,
    world_size: int = 2,
    pair_fidelities: Sequence[float] = (1.0, 0.99),
    steps: int = 40,
    bits: int = 16,
    hidden: int = 16,
    n_samples: int = 400,
    batch_size: int = 32,
    lr: float = 0.5,
    seed: int = 0,
    private: bool = False,
    timeout: float = 300.0,
) -> DDPDemo:
    """Train the 2-``hidden``-2 tanh MLP (float64, two moons) in ``world_size`` gloo processes
    (:func:`qring_edu.launch.launch_local`), from the same weights on the same mini-batches, once
    per all-reduce: gloo's built-in (``"built-in"``), :func:`qring_edu.ddp.ring_hook` on
    ``Classical()`` and on ``Superdense(Link(pair_fidelity=F))`` for each F of
    ``pair_fidelities``, and with ``private=True`` the classical hook with zero-sum pads
    (``"private"``). Worker k holds the points ``k, k + P, ...``, batches seeded by ``(seed, k)``.

    Examples
    --------
    >>> demo = ddp_demo(world_size=3, pair_fidelities=(), steps=2, private=True)
    >>> demo
    DDPDemo(world_size=3, steps=2, bits=16, n_params=82, labels=('built-in', 'classical', 'private'))
    >>> bool((demo.losses["private"] == demo.losses["classical"]).all())
    True
    >>> [r.ghz_copies for r in demo.reports["private"]]
    [2624, 2624, 2624]
    """
    from ..launch import launch_local

    world_size = check_int(world_size, "world_size", 2, 8)
    steps = check_int(steps, "steps", 1)
    bits = check_bits(bits)
    fixed_point(world_size, bits, 1.0)
    hidden = check_int(hidden, "hidden", 1)
    n_samples = check_int(n_samples, "n_samples", 2 * world_size)
    batch_size = check_int(batch_size, "batch_size", 1, n_samples // world_size)
    lr = check_float(lr, "lr", 0.0, lo_open=True)
    seed = check_int(seed, "seed", 0)
    if isinstance(pair_fidelities, (str, bytes)) or not isinstance(pair_fidelities, Sequence):
        raise TypeError("pair_fidelities must be a sequence of fidelities in [0.25, 1]")
    fids = tuple(check_fidelity(f, "pair_fidelities") for f in pair_fidelities)
    if not isinstance(private, (bool, np.bool_)):
        raise TypeError(f"private must be True or False, got {private!r}")
    runs = [("built-in", None, False), ("classical", Classical(), False)]
    runs += [(f"superdense F={f:g}", Superdense(Link(pair_fidelity=f)), False) for f in fids]
    if private:
        runs.append(("private", Classical(), True))
    timeout = check_float(timeout, "timeout", 0.0, lo_open=True)
    settings = (runs, steps, bits, hidden, n_samples, batch_size, lr, seed)
    per_rank = launch_local(_demo_worker, world_size, settings, timeout=timeout)
    labels = tuple(r[0] for r in runs)

    def worst(key, label, reference):  # max |x - reference| over the ranks
        return float(max(np.max(np.abs(pr[key][label] - reference)) for pr in per_rank))

    first, built_in = per_rank[0], per_rank[0]["grads"]["built-in"]
    losses = {lab: np.array([pr["losses"][lab] for pr in per_rank]).T for lab in labels}
    reports = {lab: tuple(pr["reports"][lab] for pr in per_rank) for lab in labels[1:]}
    grad_error = {lab: worst("grads", lab, built_in) for lab in labels}
    divergence = {lab: worst("weights", lab, first["weights"][lab]) for lab in labels}
    run = (losses, reports, grad_error, divergence)
    return DDPDemo(world_size, steps, bits, int(first["n_params"]), labels, *run)


def ddp_loss_table(demo, steps: Sequence[int] = (0, 10, 40)) -> Table:
    """One row per run of a :class:`DDPDemo`: the mean loss over the replicas at the given
    ``steps``, the largest deviation of the averaged gradient from the built-in all-reduce's,
    and the final replica divergence ``max |w_1 - w_0|``.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> demo = NS(labels=("classical",), losses={"classical": np.array([[0.7, 0.7], [0.5, 0.5]])},
    ...           grad_error={"classical": 1e-6}, divergence={"classical": 0.0})
    >>> print(ddp_loss_table(demo, steps=(0, 1)))
    run        mean loss at step 0  mean loss at step 1  max|avg grad - built-in|  max|w_1 - w_0|
    classical               0.7000               0.5000                   1.0e-06               0
    """
    rows = []
    for label in demo.labels:
        loss = demo.losses[label].mean(axis=1)  # mean over the replicas
        errors = (float(demo.grad_error[label]), float(demo.divergence[label]))
        rows.append((label, *(float(loss[s]) for s in steps), *errors))
    head = ("run", *(f"mean loss at step {s}" for s in steps))
    head += ("max|avg grad - built-in|", "max|w_1 - w_0|")
    return Table(head, tuple(rows), ("",) + (".4f",) * len(steps) + (".1e", ".3g"))


def _per_link(demo, names: str, head: tuple, formats: tuple) -> Table:
    """One row per (run, rank) of ``demo``: the rank's incoming link and its report's ``names``."""
    rows = tuple(
        (label, f"{rep.link[0]}->{rep.link[1]}", *(getattr(rep, n) for n in names.split()))
        for label, reports in demo.reports.items()
        for rep in reports
    )
    return Table(("run", "link", *head), rows, ("", "", *formats))


def ddp_ledger_table(demo) -> Table:
    """One row per (run, rank) of a :class:`DDPDemo`: what crossed the rank's incoming link over
    the whole run (side bits: the headers'; flipped bits: by the link's noise).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> rep = NS(link=(0, 1), online_bits=0, online_qubits=48, ebits=48, offline_qubits=48,
    ...          side_bits=32, flipped_bits=0)
    >>> print(ddp_ledger_table(NS(reports={"superdense F=1": (rep,)})))
    run             link  online bits  online qubits  pairs  offline qubits  side bits  flipped bits
    superdense F=1  0->1            0             48     48              48         32             0
    """
    names = "online_bits online_qubits ebits offline_qubits side_bits flipped_bits"
    head = ("online bits", "online qubits", "pairs", "offline qubits", "side bits", "flipped bits")
    return _per_link(demo, names, head, (",d",) * 5 + ("d",))


def ddp_private_table(demo) -> Table:
    """One row per (run, rank) of a :class:`DDPDemo`: the online bits of the rank's incoming
    link and the GHZ copies its pads used (``d x b`` per bucket of d entries of b bits).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> rep = NS(link=(1, 0), online_bits=52_480, ghz_copies=52_480)
    >>> print(ddp_private_table(NS(reports={"private": (rep,)})))
    run      link  online bits  GHZ copies used
    private  1->0       52,480           52,480
    """
    return _per_link(
        demo, "online_bits ghz_copies", ("online bits", "GHZ copies used"), (",d",) * 2
    )


@result
class CompressionRun:
    """One run of :func:`compression_comparison`: ``carried`` (``"bits"`` or ``"qubits"``),
    ``per_link`` and ``header_bits`` (``None`` over gloo) per link and step after the warm-up,
    ``accuracy`` (rank 0 on held-out points), ``identical`` (every replica's final weights).

    Examples
    --------
    >>> CompressionRun("PowerSGD rank 1 (gloo)", "bits", 16448.0, None, 0.99, True)
    CompressionRun(label='PowerSGD rank 1 (gloo)', carried='bits', per_link=1.645e+04, header_bits=None, accuracy=0.99, identical=True)
    """

    label: str
    carried: str
    per_link: float
    header_bits: float | None
    accuracy: float
    identical: bool


@result
class CompressionComparison(Tabular):
    """Result of :func:`compression_comparison`: ``runs`` (one :class:`CompressionRun` each),
    ``weights`` (label -> final weights of each rank, shape (P, n_params); not in the repr).

    Examples
    --------
    >>> run = CompressionRun("built-in all-reduce (gloo)", "bits", 143424.0, None, 0.99, True)
    >>> cmp = CompressionComparison(2, 150, 10, 4482, runs=(run,), weights={})
    >>> print(cmp.table())
    run                         online per link and step  carried as  header bits  accuracy
    built-in all-reduce (gloo)                   143,424  bits                  –     0.990
    """

    workers: int
    steps: int
    warmup: int
    n_params: int
    runs: tuple = field(repr=False)
    weights: dict = field(repr=False)

    def run(self, label: str) -> CompressionRun:
        """The run called ``label``."""
        labels = [r.label for r in self.runs]
        return self.runs[labels.index(check_choice(label, "label", tuple(labels)))]

    def table(self) -> Table:
        """One row per run: online bits or qubits per link and step, headers, accuracy."""
        rows = tuple((r.label, r.per_link, r.carried, r.header_bits, r.accuracy) for r in self.runs)
        head = ("run", "online per link and step", "carried as", "header bits", "accuracy")
        return Table(head, rows, ("", ",.0f", "", ",.0f", ".3f"))

    def against(self, baseline: str, headers: bool = False) -> CompressionView:
        """Every run's traffic next to the run called ``baseline`` (:class:`CompressionView`)."""
        base = self.runs.index(self.run(baseline))
        t = tuple(r.per_link + bool(headers) * (r.header_bits or 0) for r in self.runs)
        return CompressionView(self, baseline, bool(headers), t, tuple(t[base] / x for x in t))


@result
class CompressionView:
    """:meth:`CompressionComparison.against`: ``baseline`` (a run's label), ``headers`` (counted
    or not) and per run ``traffic`` (per link and step, with the headers if counted) and ``ratios``.

    Examples
    --------
    >>> runs = (CompressionRun("gloo", "bits", 1e3, None, 0.9, True), CompressionRun("ring", "qubits", 100.0, 25.0, 0.9, True))
    >>> CompressionComparison(2, 20, 5, 10, runs, {}).against("gloo", headers=True)
    CompressionView(baseline='gloo', headers=True, traffic=(1000, 125), ratios=(1, 8))
    """

    comparison: CompressionComparison = field(repr=False)
    baseline: str
    headers: bool
    traffic: tuple
    ratios: tuple


class _Counted:
    """A real process group that counts the words each all-reduce through it carries."""

    def __init__(self, group):
        self.group, self.sizes = group, []

    def size(self) -> int:
        return self.group.size()

    def allreduce(self, tensors, opts):
        self.sizes += [t.numel() for t in tensors]
        return self.group.allreduce(tensors, opts)


def _link_words_bits(world_size: int, sizes, sender: int) -> int:
    """Bits of 32-bit words a ring all-reduce of vectors of ``sizes`` moves over one link."""
    return sum(int(message_bits(world_size, n, 32)[sender].sum()) for n in sizes if n > 0)


def _traffic(state, group, builtin: int, sender: int) -> tuple[int, int]:
    """(online uses on a rank's incoming link, header bits) so far: from the ring's ledger, from
    the vectors a PowerSGD run over gloo all-reduced, or ``builtin`` (the built-in run)."""
    if state is not None:
        link = state.link
        return state.ledger.online_bits(link) + state.ledger.online_qubits(link), state.side_bits
    if group is not None:
        return _link_words_bits(group.size(), group.sizes, sender), 0
    return builtin, 0


def _compression_worker(
    rank: int, world_size: int, steps: int, warmup: int, hidden: int, seed: int
) -> dict:
    """One rank of :func:`compression_comparison`: every run of ``COMPRESSION_RUNS``."""
    import torch
    import torch.distributed as dist
    from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as psgd
    from torch.nn.parallel import DistributedDataParallel

    from ..ddp import RingGroup, RingHookState, ring_hook

    Linear, Tanh = torch.nn.Linear, torch.nn.Tanh
    X, y = (torch.from_numpy(a) for a in make_moons(4000, noise=0.2, seed=seed))
    Xt, yt = (torch.from_numpy(a) for a in make_moons(2000, noise=0.2, seed=seed + 1))
    X, Xt = X.float(), Xt.float()
    shard = torch.arange(rank, X.shape[0], world_size)
    loss_fn = torch.nn.CrossEntropyLoss()
    sender = (rank - 1) % world_size
    out: dict = {}
    for label, low_rank, ring in COMPRESSION_RUNS:
        torch.manual_seed(seed)
        net = torch.nn.Sequential(
            Linear(2, hidden), Tanh(), Linear(hidden, hidden), Tanh(), Linear(hidden, 2)
        )
        n_params = sum(p.numel() for p in net.parameters())
        builtin = _link_words_bits(world_size, [n_params], sender)  # per step, no hook
        model = DistributedDataParallel(net)
        state = group = None
        if ring is not None:
            state = RingHookState(transport=ring[0], bits=ring[1], seed=seed)
        if low_rank is not None:
            group = RingGroup(state) if state is not None else _Counted(dist.group.WORLD)
            low = dict(matrix_approximation_rank=low_rank, start_powerSGD_iter=warmup)
            options = psgd.PowerSGDState(group, random_seed=seed, **low)
            model.register_comm_hook(options, psgd.powerSGD_hook)
        elif state is not None:
            model.register_comm_hook(state, ring_hook)

        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        batches = np.random.default_rng([seed, rank])
        for step in range(steps):
            if step == warmup:  # PowerSGD compresses from here on
                start = _traffic(state, group, step * builtin, sender)
            idx = shard[torch.from_numpy(batches.choice(shard.numel(), 32, replace=False))]
            opt.zero_grad()
            loss_fn(model(X[idx]), y[idx]).backward()
            opt.step()
        end = _traffic(state, group, steps * builtin, sender)
        with torch.no_grad():
            accuracy = float((net(Xt).argmax(dim=1) == yt).double().mean())
        per_link, header = ((e - s) / (steps - warmup) for e, s in zip(end, start))
        weights = _flat(net.parameters())
        out[label] = dict(per_link=per_link, header=header, accuracy=accuracy, weights=weights)
    out["n_params"] = n_params
    return out


def compression_comparison(
    *,
    workers: int = 2,
    steps: int = 150,
    warmup: int = 10,
    hidden: int = 64,
    seed: int = 0,
    timeout: float = 300.0,
) -> CompressionComparison:
    """Classical compression (torch's PowerSGD, Vogels et al. 2019) measured against and
    composed with the superdense ring (book/03_training.ipynb).

    ``workers`` gloo processes (:func:`qring_edu.launch.launch_local`) train the same 2-hidden-
    hidden-2 tanh MLP (float32) on two moons (4,000 points, noise 0.2; SGD with momentum,
    batches of 32 per worker, the same seeds) once per all-reduce of :data:`COMPRESSION_RUNS`;
    PowerSGD's all-reduces run over gloo or over a ring (:class:`qring_edu.ddp.RingGroup`).
    Traffic per link and step from step ``warmup`` on: the ring's ledger of each rank's incoming
    link, or over gloo what a ring of 32-bit words carries (:func:`qring_edu.ring.message_bits`).

    Examples
    --------
    >>> cmp = compression_comparison(steps=30)
    >>> composed = cmp.run("PowerSGD rank 1 over the superdense ring")
    >>> composed.carried, composed.per_link * 2 == cmp.run("PowerSGD rank 1 over the classical ring").per_link
    ('qubits', True)
    >>> bool((cmp.weights[composed.label] == cmp.weights["PowerSGD rank 1 over the classical ring"]).all())
    True
    """
    from ..launch import launch_local

    workers = check_int(workers, "workers", 2, 8)
    steps = check_int(steps, "steps", 2)
    warmup = check_int(warmup, "warmup", 2, steps - 1)
    hidden = check_int(hidden, "hidden", 1, 4096)
    seed = check_int(seed, "seed", 0)
    timeout = check_float(timeout, "timeout", 0.0, lo_open=True)
    per_rank = launch_local(
        _compression_worker, workers, (steps, warmup, hidden, seed), timeout=timeout
    )
    runs, weights = [], {}
    for label, _, ring in COMPRESSION_RUNS:
        got = [pr[label] for pr in per_rank]
        w = weights[label] = np.stack([g["weights"] for g in got])
        carried = "qubits" if ring is not None and ring[0] == "superdense" else "bits"
        header = None if ring is None else max(g["header"] for g in got)
        per_link, identical = max(g["per_link"] for g in got), bool(np.all(w == w[0]))
        runs.append(CompressionRun(label, carried, per_link, header, got[0]["accuracy"], identical))
    n_params = int(per_rank[0]["n_params"])
    return CompressionComparison(workers, steps, warmup, n_params, tuple(runs), weights)
