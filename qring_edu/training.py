"""Data-parallel training with a pluggable all-reduce (book/03_superdense_ring.ipynb, chapter 3).

Two learners classify a synthetic two-moons data set (NumPy only): a one-hidden-layer tanh
network (``model="mlp"``) and a variational quantum classifier (``model="vqc"``,
:mod:`qring_edu.vqc`, gradients by the parameter-shift rule). Each of the P workers keeps its own
replica of the parameters and its own shard of the data. At every step worker k computes the
gradient of the cross-entropy on a mini-batch of its shard, clips each entry to ``[-clip, clip]``
(the ``max_abs`` bound all workers agree on in advance), the P gradients are summed by the
all-reduce, and worker k updates its replica with *its own copy* of the sum divided by P. With an
exact transport all replicas stay identical; noisy pairs can make them drift apart. The ring
moves a vector of numbers and never looks at what produced it: the learner is interchangeable.

:func:`gradient_budget` puts a model's gradient on the α–β clock (when does the halving of
the superdense ring shorten the all-reduce?). The sweeps over learners and fidelities that the
chapter shows (``learner_comparison``, formerly ``compare_learners`` here) are experiments:
:mod:`qring_edu.experiments.training`.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ._validate import check_bits, check_choice, check_fidelity, check_float, check_int, check_seed
from .costmodel import pairs_per_link, ring_time
from .ring import chunk_bounds, ring_allreduce
from .vqc import VQC_LAYERS, VQC_QUBITS, vqc_loss_accuracy, vqc_loss_and_grad, vqc_n_parameters

__all__ = [
    "train_data_parallel",
    "TrainingRun",
    "make_moons",
    "mlp_loss_and_grad",
    "n_parameters",
    "TRAINING_MODELS",
    "ring_link_options",
    "GradientBudget",
    "gradient_budget",
]

#: Learners :func:`train_data_parallel` trains.
TRAINING_MODELS = ("mlp", "vqc")
#: Arguments of :func:`ring_allreduce` that :func:`train_data_parallel` sets itself.
_RING_OWN = frozenset({"grads", "transport", "bits", "max_abs", "pair_fidelity", "seed"})
_DEFAULT_HIDDEN = 16


def make_moons(n_samples: int, *, noise: float = 0.15, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaving half circles in 2-D: ``X`` shape (n, 2) float64, ``y`` shape (n,) in {0, 1}.

    Class 0 lies on the upper circle ``(cos t, sin t)``, class 1 on the lower one
    ``(1 - cos t, 0.5 - sin t)``, ``t`` uniform in ``[0, pi]``; Gaussian noise of standard
    deviation ``noise`` is added, and the samples are shuffled (seeded).

    Examples
    --------
    >>> from qring_edu import make_moons
    >>> X, y = make_moons(6, seed=0)
    >>> X.shape, y.tolist()
    ((6, 2), [0, 1, 1, 0, 1, 0])
    >>> X[0].round(3).tolist()
    [0.898, 0.135]
    """
    n_samples = check_int(n_samples, "n_samples", 2)
    noise = check_float(noise, "noise", 0.0)
    check_seed(seed)
    rng = np.random.default_rng(seed)
    n0 = n_samples // 2
    t0 = rng.uniform(0, np.pi, n0)
    t1 = rng.uniform(0, np.pi, n_samples - n0)
    X = np.concatenate([np.c_[np.cos(t0), np.sin(t0)], np.c_[1 - np.cos(t1), 0.5 - np.sin(t1)]])
    X += noise * rng.standard_normal(X.shape)
    y = np.r_[np.zeros(n0, dtype=np.int64), np.ones(n_samples - n0, dtype=np.int64)]
    order = rng.permutation(n_samples)
    return X[order], y[order]


def _unpack(w: np.ndarray, hidden: int):
    i = 0
    W1 = w[i : i + 2 * hidden].reshape(2, hidden)
    i += 2 * hidden
    b1 = w[i : i + hidden]
    i += hidden
    W2 = w[i : i + 2 * hidden].reshape(hidden, 2)
    i += 2 * hidden
    b2 = w[i : i + 2]
    return W1, b1, W2, b2


def n_parameters(hidden: int) -> int:
    """Parameters of the 2 -> hidden -> 2 network: ``5 hidden + 2``.

    Examples
    --------
    >>> from qring_edu.training import n_parameters
    >>> n_parameters(16)
    82
    """
    return 5 * hidden + 2


def mlp_loss_and_grad(w: np.ndarray, X: np.ndarray, y: np.ndarray, hidden: int):
    """Mean cross-entropy, its gradient (same shape as ``w``) and accuracy of the 2-hidden-2 MLP.

    ``w``: the flat parameters ``(W1 (2, hidden), b1, W2 (hidden, 2), b2)``, shape
    ``(5 hidden + 2,)``; ``X``: shape (n, 2); ``y``: labels in {0, 1}, shape (n,). The network is
    ``softmax(tanh(X W1 + b1) W2 + b2)``; the loss is in nats. Returns ``(loss, grad, accuracy)``.

    Examples
    --------
    All-zero parameters predict ½ for each class: loss ``ln 2``.

    >>> import numpy as np
    >>> from qring_edu import make_moons
    >>> from qring_edu.training import mlp_loss_and_grad, n_parameters
    >>> X, y = make_moons(6, seed=0)
    >>> loss, grad, acc = mlp_loss_and_grad(np.zeros(n_parameters(4)), X, y, 4)
    >>> round(loss, 6), grad.shape
    (0.693147, (22,))
    """
    W1, b1, W2, b2 = _unpack(w, hidden)
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    n = X.shape[0]
    loss = -np.mean(np.log(p[np.arange(n), y] + 1e-12))
    acc = float(np.mean(p.argmax(axis=1) == y))
    dlogits = p.copy()
    dlogits[np.arange(n), y] -= 1.0
    dlogits /= n
    gW2 = h.T @ dlogits
    gb2 = dlogits.sum(axis=0)
    dh = (dlogits @ W2.T) * (1 - h**2)
    gW1 = X.T @ dh
    gb1 = dh.sum(axis=0)
    grad = np.concatenate([gW1.ravel(), gb1, gW2.ravel(), gb2])
    return float(loss), grad, acc


@dataclass(frozen=True)
class TrainingRun:
    """History of :func:`train_data_parallel`.

    ``losses``/``accuracies``: shape (steps + 1, P), replica k's loss/accuracy on the whole
    training set before step 0 and after every step. ``weights``: (P, n_params) final replicas
    (the MLP's weights or the VQC's angles). ``online_bits``/``online_qubits``/``ebits``/
    ``offline_qubits``: totals over all steps on the busiest link (0 for ``"exact"`` and custom
    all-reduces). ``ledger_totals``: every currency the ring's :class:`~qring_edu.Ledger` reports,
    summed over the steps, as ``(currency, total)`` pairs. ``step_units``: sum over all ring
    steps of the largest message (bits or qubits), for :meth:`communication_time`.
    ``link_options``: the extra :func:`ring_allreduce` arguments (``channel_fidelity``, ...)
    the run forwarded, as ``(name, value)`` pairs.

    Attributes
    ----------
    workers, steps : int
    transport, model : str
    pair_fidelity : float
    losses, accuracies : numpy.ndarray, shape (steps + 1, P)
    weights : numpy.ndarray, shape (P, n_params)
    online_bits, online_qubits, ebits, offline_qubits, bits, step_units : int
    ledger_totals, link_options : tuple of (str, value) pairs
    final_loss, final_accuracy, divergence : float
    n_params : int
        See the properties.

    Examples
    --------
    >>> from qring_edu import train_data_parallel
    >>> run = train_data_parallel(workers=2, steps=3, seed=0)
    >>> run
    TrainingRun(model='mlp', workers=2, steps=3, transport='classical', pair_fidelity=1, final_loss=0.2737, final_accuracy=0.873, divergence=0)
    >>> run.losses.shape, run.n_params, run.online_bits      # 3 steps of 82 16-bit entries
    ((4, 2), 82, 3936)
    """

    workers: int
    steps: int
    transport: str
    pair_fidelity: float
    losses: np.ndarray = field(repr=False)
    accuracies: np.ndarray = field(repr=False)
    weights: np.ndarray = field(repr=False)
    online_bits: int = field(repr=False)
    online_qubits: int = field(repr=False)
    ebits: int = field(repr=False)
    model: str = "mlp"
    bits: int = field(default=16, repr=False)
    offline_qubits: int = field(default=0, repr=False)
    ledger_totals: tuple = field(default=(), repr=False)
    step_units: int = field(default=0, repr=False)
    link_options: tuple = field(default=(), repr=False)

    @property
    def final_loss(self) -> float:
        """Mean over replicas of the final training loss."""
        return float(self.losses[-1].mean())

    @property
    def final_accuracy(self) -> float:
        """Mean over replicas of the final training accuracy."""
        return float(self.accuracies[-1].mean())

    @property
    def divergence(self) -> float:
        """Largest |w_k - w_0| over replicas and parameters: 0 when the replicas agree exactly."""
        return float(np.max(np.abs(self.weights - self.weights[0])))

    @property
    def n_params(self) -> int:
        """Trainable parameters of the model (entries of the gradient the ring sums per step)."""
        return int(self.weights.shape[1])

    @property
    def gradient_bits(self) -> int:
        """Bits of one worker's fixed-point gradient per step: ``n_params * bits``."""
        return self.n_params * self.bits

    @property
    def online_bits_per_step(self) -> float:
        """Online classical bits on the busiest link per step (all-reduce)."""
        return self.online_bits / self.steps

    @property
    def online_qubits_per_step(self) -> float:
        """Online qubits on the busiest link per step (all-reduce)."""
        return self.online_qubits / self.steps

    def communication_time(self, alpha: float, beta: float) -> float:
        """α–β time of all the run's all-reduces, seconds:
        ``steps * 2 (P - 1) * alpha + beta * step_units`` (the ledger's ``ring_time`` summed
        over steps; ``beta`` per bit on the classical ring, per qubit on the superdense ring)."""
        alpha = check_float(alpha, "alpha", 0.0)
        beta = check_float(beta, "beta", 0.0)
        if self.transport not in ("classical", "superdense"):
            raise ValueError(
                "communication_time needs a ring run (transport 'classical' or "
                f"'superdense'), this run used transport={self.transport!r}"
            )
        return float(self.steps * 2 * (self.workers - 1) * alpha + beta * self.step_units)

    def __repr__(self) -> str:
        extra = "".join(
            f", {k}={v:g}" if isinstance(v, float) else f", {k}={v!r}" for k, v in self.link_options
        )
        return (
            f"TrainingRun(model={self.model!r}, workers={self.workers}, steps={self.steps}, "
            f"transport={self.transport!r}, pair_fidelity={self.pair_fidelity:g}{extra}, "
            f"final_loss={self.final_loss:.4f}, final_accuracy={self.final_accuracy:.3f}, "
            f"divergence={self.divergence:.3g})"
        )


def ring_link_options() -> tuple[str, ...]:
    """Names of the :func:`ring_allreduce` arguments that :func:`train_data_parallel` forwards
    from its ``**link_options`` (all but ``grads, transport, bits, max_abs, pair_fidelity,
    seed``, which it sets itself). Read from the ring's signature at call time, so the
    noisy-link options (``channel_fidelity``, ``protection``, ...) are accepted exactly when
    this version of :func:`ring_allreduce` has them.

    Examples
    --------
    >>> "grads" in ring_link_options(), "pair_fidelity" in ring_link_options()
    (False, False)
    """
    return tuple(
        name for name in inspect.signature(ring_allreduce).parameters if name not in _RING_OWN
    )


def _check_link_options(options: dict, transport: str, custom: bool) -> tuple:
    accepted = ring_link_options()
    unknown = [k for k in options if k not in accepted]
    if unknown:
        names = ", ".join(map(repr, unknown))
        raise TypeError(
            f"train_data_parallel got unexpected keyword argument(s) {names}; besides its own "
            "arguments it forwards only ring_allreduce's link options, which in this version "
            f"are: {', '.join(accepted) if accepted else 'none'}"
        )
    if options and (custom or transport == "exact"):
        name = next(iter(options))
        got = f"transport={transport!r}" + (" with a custom allreduce" if custom else "")
        raise ValueError(
            f"{name} is a link option of ring_allreduce; it applies only to "
            "transport='classical' or 'superdense' without a custom allreduce, got " + got
        )
    return tuple(options.items())


def train_data_parallel(
    *,
    workers: int = 4,
    steps: int = 150,
    transport: str = "classical",
    pair_fidelity: float | None = None,
    bits: int = 16,
    lr: float = 1.0,
    batch_size: int = 16,
    hidden: int = _DEFAULT_HIDDEN,
    clip: float = 1.0,
    n_samples: int = 800,
    seed: int = 0,
    allreduce: Callable[[np.ndarray, int], np.ndarray] | None = None,
    model: str = "mlp",
    qubits: int | None = None,
    layers: int | None = None,
    **link_options,
) -> TrainingRun:
    """Train a two-moons classifier data-parallel over ``workers`` replicas.

    Parameters
    ----------
    workers, steps : int
        P >= 2 replicas; ``steps`` >= 1 synchronous updates.
    transport : {"classical", "superdense", "exact"}
        The ring of :func:`ring_allreduce` with ``bits``-bit words and ``max_abs = clip``, or
        ``"exact"`` (float64 ``sum``, no quantisation, a reference).
    pair_fidelity : float in [0.25, 1], optional
        Fidelity of the superdense ring's pre-shared pairs. ``None`` (default) leaves it to
        :func:`ring_allreduce` (perfect pairs; with a noisy-link ``channel_fidelity``, pairs
        distributed fresh over that link); the run records the value the ring used.
    model : {"mlp", "vqc"}
        ``"mlp"``: the 2-``hidden``-2 tanh network (:func:`mlp_loss_and_grad`, ``5 hidden + 2``
        parameters). ``"vqc"``: the variational quantum classifier of :mod:`qring_edu.vqc` on
        ``qubits`` (default 3) qubits with ``layers`` (default 3) layers, ``2 qubits layers``
        angles, gradients by the parameter-shift rule (:func:`qring_edu.vqc.vqc_loss_and_grad`).
        ``hidden`` is the MLP's only, ``qubits``/``layers`` the VQC's only.
    lr, batch_size, clip, n_samples, seed
        Step size (update ``w -= lr * sum / P``), mini-batch per worker, gradient clipping bound
        (= the ring's ``max_abs``), data-set size, seed.
    allreduce : callable, optional
        ``(grads (P, n_params), step) -> (P, n_params)`` replacing the built-in transports
        (recorded as ``"custom"``).
    **link_options
        Further keyword arguments of :func:`ring_allreduce` (see :func:`ring_link_options`;
        e.g. ``channel_fidelity=`` and ``protection=`` of the noisy-link model), forwarded to
        every all-reduce. An argument the ring does not accept is a ``TypeError``; the ring
        validates the values.

    The data, the initial parameters (``0.5 N(0, 1)`` per entry, for both models) and the
    mini-batches depend only on ``seed``, never on the transport or the model's internals, so runs
    are comparable; ``model="mlp"`` reproduces earlier versions bit for bit.

    Examples
    --------
    >>> a = train_data_parallel(model="vqc", steps=5, transport="classical", seed=0)
    >>> b = train_data_parallel(model="vqc", steps=5, transport="superdense", seed=0)
    >>> bool(np.array_equal(a.weights, b.weights)), a.n_params, 2 * b.online_qubits == a.online_bits
    (True, 18, True)
    """
    workers = check_int(workers, "workers", 2)
    steps = check_int(steps, "steps", 1)
    transport = check_choice(transport, "transport", ("classical", "superdense", "exact"))
    if pair_fidelity is not None:
        pair_fidelity = check_fidelity(pair_fidelity)
    bits = check_bits(bits)
    lr = check_float(lr, "lr", 0.0, lo_open=True)
    batch_size = check_int(batch_size, "batch_size", 1)
    hidden = check_int(hidden, "hidden", 1)
    clip = check_float(clip, "clip", 0.0, lo_open=True)
    n_samples = check_int(n_samples, "n_samples", 2 * workers)
    seed = check_int(seed, "seed", 0)
    model = check_choice(model, "model", TRAINING_MODELS)
    if allreduce is not None and not callable(allreduce):
        raise TypeError(f"allreduce must be callable or None, got {type(allreduce).__name__}")
    if pair_fidelity not in (None, 1.0) and (transport != "superdense" or allreduce is not None):
        raise ValueError(
            "pair_fidelity applies only to transport='superdense' without a custom "
            f"allreduce; got pair_fidelity={pair_fidelity:g}"
        )
    link_items = _check_link_options(link_options, transport, allreduce is not None)

    if model == "mlp":
        for name, value in (("qubits", qubits), ("layers", layers)):
            if value is not None:
                raise ValueError(
                    f"{name} applies only to model='vqc', got {name}={value!r} with model='mlp'"
                )
        n_params = n_parameters(hidden)

        def loss_and_grad(w, Xb, yb):
            return mlp_loss_and_grad(w, Xb, yb, hidden)
    else:
        if hidden != _DEFAULT_HIDDEN:
            raise ValueError(
                f"hidden applies only to model='mlp', got hidden={hidden} with "
                "model='vqc' (size the VQC with qubits= and layers=)"
            )
        qubits = VQC_QUBITS if qubits is None else qubits
        layers = VQC_LAYERS if layers is None else layers
        n_params = vqc_n_parameters(qubits, layers)  # validates qubits and layers

        def loss_and_grad(w, Xb, yb):
            return vqc_loss_and_grad(w, Xb, yb, qubits=qubits, layers=layers)

    data_rng = np.random.default_rng([seed, 0])
    batch_rng = np.random.default_rng([seed, 1])
    noise_rng = np.random.default_rng([seed, 2])
    X, y = make_moons(n_samples, seed=data_rng)
    shards = np.array_split(np.arange(n_samples), workers)
    w0 = 0.5 * data_rng.standard_normal(n_params)
    W = np.tile(w0, (workers, 1))

    losses = np.empty((steps + 1, workers))
    accs = np.empty((steps + 1, workers))
    totals = {"online_bits": 0, "online_qubits": 0, "ebits": 0, "offline_qubits": 0}
    ledger_totals: dict[str, int] = {}
    step_units = 0
    ring_pair_fidelity = None

    def evaluate(t):
        if model == "mlp":
            for k in range(workers):
                losses[t, k], _, accs[t, k] = mlp_loss_and_grad(W[k], X, y, hidden)
            return
        # The VQC's replicas are usually identical: simulate each distinct one once.
        distinct, which = np.unique(W, axis=0, return_inverse=True)
        loss, acc = vqc_loss_accuracy(distinct, X, y, qubits=qubits, layers=layers)
        losses[t], accs[t] = loss[which.ravel()], acc[which.ravel()]

    evaluate(0)
    ring_kwargs = dict(link_items)
    if pair_fidelity is not None:
        ring_kwargs["pair_fidelity"] = pair_fidelity
    for t in range(steps):
        grads = np.empty_like(W)
        for k in range(workers):
            batch = batch_rng.choice(
                shards[k], size=batch_size, replace=False if batch_size <= shards[k].size else True
            )
            _, g, _ = loss_and_grad(W[k], X[batch], y[batch])
            grads[k] = np.clip(g, -clip, clip)
        if allreduce is not None:
            summed = np.asarray(allreduce(grads, t), dtype=np.float64)
            if summed.shape != grads.shape:
                raise ValueError(f"allreduce must return shape {grads.shape}, got {summed.shape}")
        elif transport == "exact":
            summed = np.tile(grads.sum(axis=0), (workers, 1))
        else:
            res = ring_allreduce(
                grads, transport=transport, bits=bits, max_abs=clip, seed=noise_rng, **ring_kwargs
            )
            summed = res.outputs
            ring_pair_fidelity = res.pair_fidelity
            for key in totals:
                totals[key] += getattr(res.ledger, key)()
            for key, value in res.ledger.as_dict().items():
                ledger_totals[key] = ledger_totals.get(key, 0) + int(value)
            step_units += int(res.ledger.step_units.sum())
        W -= lr * summed / workers
        evaluate(t + 1)

    if ring_pair_fidelity is None:
        ring_pair_fidelity = 1.0 if pair_fidelity is None else pair_fidelity
    return TrainingRun(
        workers=workers,
        steps=steps,
        transport="custom" if allreduce is not None else transport,
        pair_fidelity=float(ring_pair_fidelity),
        losses=losses,
        accuracies=accs,
        weights=W,
        model=model,
        bits=bits,
        ledger_totals=tuple(ledger_totals.items()),
        step_units=step_units,
        link_options=link_items,
        **totals,
    )


# --------------------------------------------------------------------------------------------
# The gradient on the α–β clock


@dataclass(frozen=True)
class GradientBudget:
    """What one all-reduce of a model's gradient costs on the ring (:func:`gradient_budget`).

    Sizes per all-reduce (one training step) on the busiest directed link: ``link_bits``
    (classical ring) and ``link_qubits`` (superdense ring, = Bell pairs consumed). Times in
    seconds from :func:`qring_edu.costmodel.ring_time`: ``latency = 2 (P-1) alpha``,
    ``classical_time = 2 (P-1) (alpha + ceil(d/P) b beta)``, ``superdense_time`` with
    ``ceil(ceil(d/P) b / 2)`` qubits per message. ``saving = 1 - superdense_time /
    classical_time``. ``bandwidth_ratio``: the classical ring's bandwidth term over its latency
    term, ``ceil(d/P) b beta / alpha``. ``crossover_params = P alpha / (b beta)``: the gradient
    size at which the two terms are equal (for P | d); there the superdense ring saves about a
    quarter of the time, far above it about half, far below it almost nothing.

    Attributes
    ----------
    n_params, workers, bits : int
    alpha, beta : float
        Seconds per message and per bit (or qubit).
    gradient_bits, link_bits, link_qubits : int
    latency, classical_time, superdense_time : float
        Seconds.
    saving, bandwidth_ratio, crossover_params : float
        See the properties.

    Examples
    --------
    A million 16-bit gradient entries over 4 workers (default link: 10 µs, 10 Gbit/s):

    >>> from qring_edu import gradient_budget
    >>> budget = gradient_budget(10**6, workers=4)
    >>> budget
    GradientBudget(n_params=1000000, workers=4, bits=16, link_bits=24000000, link_qubits=12000000, bandwidth_ratio=4, saving=0.4, crossover_params=2.5e+05)
    >>> round(budget.params_for_saving(0.25))          # where it saves a quarter
    250000
    """

    n_params: int
    workers: int
    bits: int
    alpha: float
    beta: float
    gradient_bits: int = field(repr=False)
    link_bits: int = field(repr=False)
    link_qubits: int = field(repr=False)
    latency: float = field(repr=False)
    classical_time: float = field(repr=False)
    superdense_time: float = field(repr=False)

    @property
    def saving(self) -> float:
        """Fraction of the classical ring's time the superdense ring saves (0 .. 1/2)."""
        return 1.0 - self.superdense_time / self.classical_time

    @property
    def bandwidth_ratio(self) -> float:
        """Classical bandwidth / latency term, ``ceil(d/P) b beta / alpha`` (inf if alpha = 0)."""
        band = self.classical_time - self.latency
        return math.inf if self.latency == 0 else band / self.latency

    @property
    def crossover_params(self) -> float:
        """``P alpha / (b beta)``: gradient entries where bandwidth and latency terms are equal."""
        return math.inf if self.beta == 0 else self.workers * self.alpha / (self.bits * self.beta)

    def params_for_saving(self, fraction: float) -> float:
        """Gradient entries at which the superdense ring saves ``fraction`` (in (0, 1/2)) of the
        classical ring's time, in the continuous model (P | d, no padding qubit):
        ``saving = r / (2 (1 + r))`` with ``r = d b beta / (P alpha)``, so
        ``d = crossover_params * 2 f / (1 - 2 f)``."""
        f = check_float(fraction, "fraction", 0.0, 0.5, lo_open=True, hi_open=True)
        return self.crossover_params * 2 * f / (1 - 2 * f)

    def __repr__(self) -> str:
        return (
            f"GradientBudget(n_params={self.n_params}, workers={self.workers}, "
            f"bits={self.bits}, link_bits={self.link_bits}, link_qubits={self.link_qubits}, "
            f"bandwidth_ratio={self.bandwidth_ratio:.3g}, saving={self.saving:.3g}, "
            f"crossover_params={self.crossover_params:.4g})"
        )


def gradient_budget(
    n_params: int, *, workers: int = 4, bits: int = 16, alpha: float = 10e-6, beta: float = 1e-11
) -> GradientBudget:
    """Per-step communication of a ``n_params``-entry gradient on the classical and superdense
    rings, and whether the halving shortens the all-reduce.

    Parameters
    ----------
    n_params : int >= 1
        Gradient entries d (the model's parameter count: 82 for the 2-16-2 MLP, 18 for the
        default VQC).
    workers, bits
        P and the word size b.
    alpha, beta : float >= 0 (not both 0)
        Seconds per message and per bit (classical) or qubit (superdense). Defaults: the book's
        10 µs and 100 Gb/s (chapter 1).

    Busiest link: worker k sends every chunk but (k+1) mod P in reduce-scatter and every chunk
    but (k+2) mod P in all-gather, ``2 d - n_{k+1} - n_{k+2}`` words (chunk sizes n_c).

    Examples
    --------
    >>> vqc, mlp = gradient_budget(18), gradient_budget(82)
    >>> vqc.link_bits, vqc.link_qubits, mlp.link_bits, mlp.link_qubits
    (448, 224, 1984, 992)
    >>> round(vqc.crossover_params), vqc.saving < 1e-4
    (250000, True)
    """
    d = check_int(n_params, "n_params", 1)
    P = check_int(workers, "workers", 2)
    bits = check_bits(bits)
    alpha = check_float(alpha, "alpha", 0.0)
    beta = check_float(beta, "beta", 0.0)
    if alpha == 0.0 and beta == 0.0:
        raise ValueError("alpha and beta must not both be 0 (a ring that takes no time)")
    sizes = np.diff(chunk_bounds(d, P))
    words = 2 * sizes.sum() - np.roll(sizes, -1) - np.roll(sizes, -2)
    return GradientBudget(
        n_params=d,
        workers=P,
        bits=bits,
        alpha=alpha,
        beta=beta,
        gradient_bits=d * bits,
        link_bits=int(words.max()) * bits,
        link_qubits=pairs_per_link(P, d, bits),
        latency=2 * (P - 1) * alpha,
        classical_time=ring_time(P, d, bits, alpha, beta),
        superdense_time=ring_time(P, d, bits, alpha, beta, transport="superdense"),
    )
