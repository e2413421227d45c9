"""Data-parallel training over the ring (book/01_bottleneck.ipynb, book/03_training.ipynb).

Two learners of the two-moons data, :class:`MLP` and :class:`VQC` (:mod:`qring_edu.vqc`). Each of
the P workers keeps its own replica and shard; at every step worker k clips its mini-batch
gradient to ``[-clip, clip]`` (the ring's ``max_abs``), the all-reduce sums the P gradients, and
worker k updates its replica with *its own copy* of the sum / P, so noisy links can make the
replicas drift apart. :func:`gradient_budget` puts a gradient on the α–β clock.
"""

from __future__ import annotations

import math
from dataclasses import field
from typing import ClassVar

import numpy as np

from ._result import result
from ._validate import as_numeric_array, check_bits, check_choice, check_float, check_int, generator
from .costmodel import link_units, ring_time
from .noise import Link
from .protection import protection as protection_of
from .ring import MAX_D, ring_allreduce
from .transports import Protected, Superdense, as_transport
from .vqc import VQC_LAYERS, VQC_QUBITS, vqc_loss_accuracy, vqc_loss_and_grad, vqc_n_parameters

__all__ = [
    "TRAINING_MODELS",
    "MLP",
    "VQC",
    "make_moons",
    "mlp_loss_and_grad",
    "n_parameters",
    "train_data_parallel",
    "TrainingRun",
    "GradientBudget",
    "gradient_budget",
]

#: Learners :func:`train_data_parallel` trains, by name.
TRAINING_MODELS = ("mlp", "vqc")
#: Largest loss and accuracy history a run keeps (16 bytes per step and worker), 1 GiB.
MAX_HISTORY_BYTES = 2**30


def make_moons(n_samples: int, *, noise: float = 0.15, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaving half circles: ``X`` (n, 2) float64, ``y`` (n,) in {0, 1}. Class 0 on
    ``(cos t, sin t)``, class 1 on ``(1 - cos t, 0.5 - sin t)``, ``t`` uniform in ``[0, pi]``,
    plus Gaussian noise of standard deviation ``noise``; shuffled (seeded).

    Examples
    --------
    >>> X, y = make_moons(6, seed=0)
    >>> X.shape, y.tolist()
    ((6, 2), [0, 1, 1, 0, 1, 0])
    """
    n_samples = check_int(n_samples, "n_samples", 2, 10**8)
    noise = check_float(noise, "noise", 0.0)
    rng = generator(seed)
    n0 = n_samples // 2
    t0 = rng.uniform(0, np.pi, n0)
    t1 = rng.uniform(0, np.pi, n_samples - n0)
    X = np.concatenate([np.c_[np.cos(t0), np.sin(t0)], np.c_[1 - np.cos(t1), 0.5 - np.sin(t1)]])
    X += noise * rng.standard_normal(X.shape)
    y = np.r_[np.zeros(n0, dtype=np.int64), np.ones(n_samples - n0, dtype=np.int64)]
    order = rng.permutation(n_samples)
    return X[order], y[order]


def n_parameters(hidden: int) -> int:
    """Parameters of the 2 -> hidden -> 2 network: ``5 hidden + 2``.

    Examples
    --------
    >>> n_parameters(16)
    82
    """
    return 5 * check_int(hidden, "hidden", 1, 10**6) + 2


def mlp_loss_and_grad(w: np.ndarray, X: np.ndarray, y: np.ndarray, hidden: int):
    """Mean cross-entropy (nats), its gradient (shape of ``w``) and accuracy of the network
    ``softmax(tanh(X W1 + b1) W2 + b2)``; ``w = (W1 (2, hidden), b1, W2 (hidden, 2), b2)`` flat,
    ``X`` (n, 2), ``y`` (n,) in {0, 1}.

    Examples
    --------
    >>> X, y = make_moons(6, seed=0)
    >>> loss, grad, acc = mlp_loss_and_grad(np.zeros(n_parameters(4)), X, y, 4)
    >>> round(loss, 6), grad.shape                 # zero parameters predict 1/2: ln 2
    (0.693147, (22,))
    """
    w, X = as_numeric_array(w, "w"), as_numeric_array(X, "X")
    if w.shape != (n_parameters(hidden),):
        raise ValueError(
            f"w must have shape ({n_parameters(hidden)},) for hidden = {hidden}, got {w.shape}"
        )
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have shape (n, 2), got {X.shape}")
    y = np.asarray(y)
    if y.shape != X.shape[:1] or y.dtype.kind not in "iu" or np.any((y != 0) & (y != 1)):
        raise ValueError(f"y must be {X.shape[0]} labels 0 or 1 (integers), one per row of X")
    h2 = 2 * hidden
    W1, b1 = w[:h2].reshape(2, hidden), w[h2 : h2 + hidden]
    W2, b2 = w[h2 + hidden : 2 * h2 + hidden].reshape(hidden, 2), w[2 * h2 + hidden :]
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    n = X.shape[0]
    loss = -np.mean(np.log(p[np.arange(n), y] + 1e-12))
    acc = float(np.mean(p.argmax(axis=1) == y))
    dlogits = (p - np.eye(2)[y]) / n
    dh = (dlogits @ W2.T) * (1 - h**2)
    grad = np.concatenate(
        [(X.T @ dh).ravel(), dh.sum(axis=0), (h.T @ dlogits).ravel(), dlogits.sum(axis=0)]
    )
    return float(loss), grad, acc


@result
class MLP:
    """The 2-``hidden``-2 tanh network (:func:`mlp_loss_and_grad`), ``5 hidden + 2`` parameters.

    Examples
    --------
    >>> MLP(), MLP(8).n_params
    (MLP(hidden=16), 42)
    """

    hidden: int = 16
    name: ClassVar[str] = "mlp"

    def __post_init__(self):
        n_parameters(self.hidden)  # validates hidden

    n_params = property(lambda self: n_parameters(self.hidden), doc="``5 hidden + 2``.")

    def loss_and_grad(self, w, X, y):
        return mlp_loss_and_grad(w, X, y, self.hidden)

    def evaluate(self, W, X, y) -> tuple[np.ndarray, np.ndarray]:
        """Loss and accuracy of every replica (rows of ``W``)."""
        out = np.array([mlp_loss_and_grad(w, X, y, self.hidden)[::2] for w in W])
        return out[:, 0], out[:, 1]


@result
class VQC:
    """The variational quantum classifier of :mod:`qring_edu.vqc`: ``qubits`` qubits, ``layers``
    layers, ``2 qubits layers`` angles, gradients by the parameter-shift rule.

    Examples
    --------
    >>> VQC(), VQC(2, 2).n_params
    (VQC(qubits=3, layers=3), 8)
    """

    qubits: int = VQC_QUBITS
    layers: int = VQC_LAYERS
    name: ClassVar[str] = "vqc"

    def __post_init__(self):
        vqc_n_parameters(self.qubits, self.layers)  # validates both

    n_params = property(lambda self: vqc_n_parameters(self.qubits, self.layers), doc="2 n L.")

    def loss_and_grad(self, w, X, y):
        return vqc_loss_and_grad(w, X, y, qubits=self.qubits, layers=self.layers)

    def evaluate(self, W, X, y) -> tuple[np.ndarray, np.ndarray]:
        """Loss and accuracy of every replica; identical replicas are simulated once."""
        distinct, which = np.unique(W, axis=0, return_inverse=True)
        loss, acc = vqc_loss_accuracy(distinct, X, y, qubits=self.qubits, layers=self.layers)
        return loss[which.ravel()], acc[which.ravel()]


@result(show=("final_loss", "final_accuracy", "divergence"))
class TrainingRun:
    """History of :func:`train_data_parallel`. ``transport``: ``"classical"``, ``"superdense"``,
    ``"exact"`` or ``"custom"``; ``link``, ``protection``: the superdense ring's (or ``None``,
    ``"none"``). ``losses``/``accuracies`` (steps + 1, P): replica k's on the training set,
    before step 0 and after every step; ``weights`` (P, n_params): the final replicas;
    ``online_bits`` .. ``offline_bits``: the busiest link's ledger, summed over the steps.

    Examples
    --------
    >>> run = train_data_parallel(workers=2, steps=3, seed=0)
    >>> run
    TrainingRun(model='mlp', workers=2, steps=3, transport='classical', link=None, protection='none', final_loss=0.2737, final_accuracy=0.8725, divergence=0)
    >>> run.losses.shape, run.n_params, run.online_bits      # 3 steps of 82 16-bit entries
    ((4, 2), 82, 3936)
    """

    model: str
    workers: int
    steps: int
    transport: str
    link: Link | None
    protection: str
    losses: np.ndarray = field(repr=False)
    accuracies: np.ndarray = field(repr=False)
    weights: np.ndarray = field(repr=False)
    bits: int = field(repr=False)
    online_bits: int = field(repr=False)
    online_qubits: int = field(repr=False)
    ebits: int = field(repr=False)
    offline_qubits: int = field(repr=False)
    offline_bits: int = field(repr=False)

    final_loss = property(lambda self: float(self.losses[-1].mean()), doc="Mean final loss.")
    final_accuracy = property(
        lambda self: float(self.accuracies[-1].mean()), doc="Mean final accuracy."
    )

    @property
    def divergence(self) -> float:
        """Largest |w_k - w_0| over replicas and parameters: 0 when the replicas agree exactly."""
        return float(np.max(np.abs(self.weights - self.weights[0])))

    n_params = property(lambda self: int(self.weights.shape[1]), doc="Trainable parameters.")
    gradient_bits = property(
        lambda self: self.n_params * self.bits, doc="``n_params * bits``: one worker's gradient."
    )
    online_bits_per_step = property(lambda self: self.online_bits / self.steps, doc="Per step.")
    online_qubits_per_step = property(lambda self: self.online_qubits / self.steps, doc="Per step.")


def train_data_parallel(
    *,
    workers: int = 4,
    steps: int = 150,
    transport="classical",
    bits: int = 16,
    model="mlp",
    lr: float = 1.0,
    batch_size: int = 16,
    clip: float = 1.0,
    n_samples: int = 800,
    seed: int = 0,
    protection="none",
    **link,
) -> TrainingRun:
    """Train a two-moons classifier data-parallel over ``workers`` replicas.

    Parameters
    ----------
    workers, steps : int
        P in 2..1024 replicas; ``steps`` in 1..10⁶ synchronous updates.
    transport : transport value, {"classical", "superdense", "exact"} or callable
        A ring transport with its link keywords and ``protection``, as for
        :func:`~qring_edu.ring.ring_allreduce` (``bits``-bit words, ``max_abs = clip``);
        ``"exact"`` (float64 ``sum``); or an all-reduce ``(grads (P, n), step) -> (P, n)``.
    model : {"mlp", "vqc"}, MLP or VQC
        The learner (defaults: 16 hidden units, 82 parameters; 3 qubits, 3 layers, 18 angles).
    lr, batch_size, clip, n_samples, seed
        Step size (``w -= lr * sum / P``), mini-batch per worker, clipping bound, data-set size
        (>= 2 P), seed (int >= 0).

    Data, initial parameters (``0.5 N(0, 1)`` each) and mini-batches depend only on ``seed``,
    never on the transport; the ring of step t draws its noise from the stream ``[seed, 2, t]``.

    Examples
    --------
    >>> a = train_data_parallel(model="vqc", steps=5, transport="classical", seed=0)
    >>> b = train_data_parallel(model="vqc", steps=5, transport="superdense", seed=0)
    >>> bool(np.array_equal(a.weights, b.weights)), a.n_params, 2 * b.online_qubits == a.online_bits
    (True, 18, True)
    """
    workers = check_int(workers, "workers", 2, 1024)
    steps = check_int(steps, "steps", 1, 10**6)
    if 16 * (steps + 1) * workers > MAX_HISTORY_BYTES:  # the loss and accuracy histories
        gib = 16 * (steps + 1) * workers / 2**30
        raise ValueError(
            f"steps * workers too large: the histories would need {gib:.1f} GiB (<= 1)"
        )
    protection = protection_of(protection, "protection")
    if callable(transport) or (isinstance(transport, str) and transport == "exact"):
        # Nothing crosses a link: link keywords only at their noiseless values (as "classical").
        as_transport("classical", protection_scheme=protection, **link)
        name = "custom" if callable(transport) else "exact"
    else:
        transport = as_transport(transport, protection_scheme=protection, **link)
        name = transport.name
    bits = check_bits(bits)
    learner = model if isinstance(model, (MLP, VQC)) else None
    if learner is None:
        learner = MLP() if check_choice(model, "model", TRAINING_MODELS) == "mlp" else VQC()
    lr = check_float(lr, "lr", 0.0, lo_open=True)
    batch_size = check_int(batch_size, "batch_size", 1, 10**6)
    clip = check_float(clip, "clip", 0.0, lo_open=True)
    n_samples = check_int(n_samples, "n_samples", 2 * workers, 10**7)
    seed = check_int(seed, "seed", 0)

    data_rng = np.random.default_rng([seed, 0])
    batch_rng = np.random.default_rng([seed, 1])
    X, y = make_moons(n_samples, seed=data_rng)
    shards = np.array_split(np.arange(n_samples), workers)
    W = np.tile(0.5 * data_rng.standard_normal(learner.n_params), (workers, 1))
    losses, accs = np.empty((2, steps + 1, workers))
    losses[0], accs[0] = learner.evaluate(W, X, y)
    totals = dict.fromkeys(
        ("online_bits", "online_qubits", "ebits", "offline_qubits", "offline_bits"), 0
    )
    for t in range(steps):
        grads = np.empty_like(W)
        for k in range(workers):
            replace = batch_size > shards[k].size
            batch = batch_rng.choice(shards[k], size=batch_size, replace=replace)
            grads[k] = np.clip(learner.loss_and_grad(W[k], X[batch], y[batch])[1], -clip, clip)
        if name == "custom":
            summed = np.asarray(transport(grads, t), dtype=np.float64)
            if summed.shape != grads.shape:
                raise ValueError(
                    f"transport (a custom all-reduce) must return shape {grads.shape}, got {summed.shape}"
                )
        elif name == "exact":
            summed = np.tile(grads.sum(axis=0), (workers, 1))
        else:
            res = ring_allreduce(
                grads, transport=transport, bits=bits, max_abs=clip, seed=[seed, 2, t]
            )
            summed = res.outputs
            for key, value in res.ledger.as_dict().items():
                totals[key] += value
        W -= lr * summed / workers
        losses[t + 1], accs[t + 1] = learner.evaluate(W, X, y)

    inner = transport.inner if isinstance(transport, Protected) else transport
    return TrainingRun(
        model=learner.name,
        workers=workers,
        steps=steps,
        transport=name,
        link=inner.link if isinstance(inner, Superdense) else None,
        protection=transport.protection.scheme if isinstance(transport, Protected) else "none",
        losses=losses,
        accuracies=accs,
        weights=W,
        bits=bits,
        **totals,
    )


@result(show=("bandwidth_ratio", "saving", "crossover_params"))
class GradientBudget:
    """One all-reduce of a gradient on the ring (:func:`gradient_budget`): ``link_bits`` /
    ``link_qubits`` on the busiest link; seconds (:func:`~qring_edu.ring_time`): ``latency = 2
    (P-1) alpha``, ``classical_time``, ``superdense_time``.

    Examples
    --------
    >>> budget = gradient_budget(10**6, workers=4)
    >>> budget
    GradientBudget(n_params=1000000, workers=4, bits=16, link_bits=24000000, link_qubits=12000000, bandwidth_ratio=4, saving=0.4, crossover_params=2.5e+05)
    >>> round(budget.params_for_saving(0.25))          # where it saves a quarter
    250000
    """

    n_params: int
    workers: int
    bits: int
    link_bits: int
    link_qubits: int
    alpha: float = field(repr=False)
    beta: float = field(repr=False)
    gradient_bits: int = field(repr=False)
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


def gradient_budget(
    n_params: int, *, workers: int = 4, bits: int = 16, alpha: float = 10e-6, beta: float = 1e-11
) -> GradientBudget:
    """Per-step communication of a ``n_params``-entry gradient (>= 1) on the classical and
    superdense rings of ``workers`` workers and ``bits``-bit words; ``alpha``, ``beta`` >= 0 (not
    both 0): seconds per message and per bit or qubit, by default the book's 10 µs and
    100 Gbit/s. Closed forms (:func:`qring_edu.costmodel.link_units`), O(1) memory.

    Examples
    --------
    >>> vqc = gradient_budget(18)
    >>> vqc.link_bits, vqc.link_qubits, vqc.saving < 1e-4
    (448, 224, True)
    """
    d = check_int(n_params, "n_params", 1, MAX_D)
    P = check_int(workers, "workers", 2)
    bits = check_bits(bits)
    alpha = check_float(alpha, "alpha", 0.0)
    beta = check_float(beta, "beta", 0.0)
    if alpha == 0.0 and beta == 0.0:
        raise ValueError("alpha and beta must not both be 0 (a ring that takes no time)")
    return GradientBudget(
        n_params=d,
        workers=P,
        bits=bits,
        link_bits=link_units(P, d, bits),
        link_qubits=link_units(P, d, bits, transport="superdense"),
        alpha=alpha,
        beta=beta,
        gradient_bits=d * bits,
        latency=2 * (P - 1) * alpha,
        classical_time=ring_time(P, d, bits, alpha, beta),
        superdense_time=ring_time(P, d, bits, alpha, beta, transport="superdense"),
    )
