"""Data-parallel training with a pluggable all-reduce (DESIGN.md §4.4, chapter 3).

A one-hidden-layer tanh network classifies a synthetic two-moons data set (NumPy only). Each of
the P workers keeps its own replica of the weights and its own shard of the data. At every step
worker k computes the gradient of the cross-entropy on a mini-batch of its shard, clips each entry
to ``[-clip, clip]`` (the ``max_abs`` bound all workers agree on in advance), the P gradients are
summed by the all-reduce, and worker k updates its replica with *its own copy* of the sum divided
by P. With an exact transport all replicas stay identical; noisy pairs can make them drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ._validate import check_bits, check_choice, check_fidelity, check_float, check_int, check_seed
from .ring import ring_allreduce

__all__ = ["train_data_parallel", "TrainingRun", "make_moons", "mlp_loss_and_grad"]


def make_moons(n_samples: int, *, noise: float = 0.15, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaving half circles in 2-D: ``X`` shape (n, 2) float64, ``y`` shape (n,) in {0, 1}."""
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
    W1 = w[i:i + 2 * hidden].reshape(2, hidden); i += 2 * hidden
    b1 = w[i:i + hidden]; i += hidden
    W2 = w[i:i + 2 * hidden].reshape(hidden, 2); i += 2 * hidden
    b2 = w[i:i + 2]
    return W1, b1, W2, b2


def n_parameters(hidden: int) -> int:
    """Parameters of the 2 -> hidden -> 2 network: ``5 hidden + 2``."""
    return 5 * hidden + 2


def mlp_loss_and_grad(w: np.ndarray, X: np.ndarray, y: np.ndarray, hidden: int):
    """Mean cross-entropy, its gradient (same shape as ``w``) and accuracy of the 2-hidden-2 MLP."""
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
    training set before step 0 and after every step. ``weights``: (P, n_params) final replicas.
    ``online_bits``/``online_qubits``/``ebits``: totals over all steps on the busiest link.
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

    def __repr__(self) -> str:
        return (f"TrainingRun(workers={self.workers}, steps={self.steps}, "
                f"transport={self.transport!r}, pair_fidelity={self.pair_fidelity:g}, "
                f"final_loss={self.final_loss:.4f}, final_accuracy={self.final_accuracy:.3f}, "
                f"divergence={self.divergence:.3g})")


def train_data_parallel(*, workers: int = 4, steps: int = 150, transport: str = "classical",
                        pair_fidelity: float = 1.0, bits: int = 16, lr: float = 1.0,
                        batch_size: int = 16, hidden: int = 16, clip: float = 1.0,
                        n_samples: int = 800, seed: int = 0,
                        allreduce: Callable[[np.ndarray, int], np.ndarray] | None = None
                        ) -> TrainingRun:
    """Train the two-moons MLP data-parallel over ``workers`` replicas.

    ``transport``: ``"classical"`` or ``"superdense"`` (the ring of :func:`ring_allreduce` with
    ``bits``-bit words and ``max_abs = clip``) or ``"exact"`` (float64 ``sum``, no quantisation,
    a reference). ``allreduce``: optional callable ``(grads (P, n_params), step) -> (P, n_params)``
    replacing the built-in transports (recorded as ``"custom"``). The data, the initial weights and
    the mini-batches depend only on ``seed``, never on the transport, so runs are comparable.
    """
    workers = check_int(workers, "workers", 2)
    steps = check_int(steps, "steps", 1)
    transport = check_choice(transport, "transport", ("classical", "superdense", "exact"))
    pair_fidelity = check_fidelity(pair_fidelity)
    bits = check_bits(bits)
    lr = check_float(lr, "lr", 0.0, lo_open=True)
    batch_size = check_int(batch_size, "batch_size", 1)
    hidden = check_int(hidden, "hidden", 1)
    clip = check_float(clip, "clip", 0.0, lo_open=True)
    n_samples = check_int(n_samples, "n_samples", 2 * workers)
    seed = check_int(seed, "seed", 0)
    if allreduce is not None and not callable(allreduce):
        raise TypeError(f"allreduce must be callable or None, got {type(allreduce).__name__}")
    if pair_fidelity != 1.0 and (transport != "superdense" or allreduce is not None):
        raise ValueError("pair_fidelity applies only to transport='superdense' without a custom "
                         f"allreduce; got pair_fidelity={pair_fidelity:g}")

    data_rng = np.random.default_rng([seed, 0])
    batch_rng = np.random.default_rng([seed, 1])
    noise_rng = np.random.default_rng([seed, 2])
    X, y = make_moons(n_samples, seed=data_rng)
    shards = np.array_split(np.arange(n_samples), workers)
    w0 = 0.5 * data_rng.standard_normal(n_parameters(hidden))
    W = np.tile(w0, (workers, 1))

    losses = np.empty((steps + 1, workers))
    accs = np.empty((steps + 1, workers))
    totals = {"online_bits": 0, "online_qubits": 0, "ebits": 0}

    def evaluate(t):
        for k in range(workers):
            losses[t, k], _, accs[t, k] = mlp_loss_and_grad(W[k], X, y, hidden)

    evaluate(0)
    for t in range(steps):
        grads = np.empty_like(W)
        for k in range(workers):
            batch = batch_rng.choice(shards[k], size=batch_size, replace=False
                                     if batch_size <= shards[k].size else True)
            _, g, _ = mlp_loss_and_grad(W[k], X[batch], y[batch], hidden)
            grads[k] = np.clip(g, -clip, clip)
        if allreduce is not None:
            summed = np.asarray(allreduce(grads, t), dtype=np.float64)
            if summed.shape != grads.shape:
                raise ValueError(f"allreduce must return shape {grads.shape}, got {summed.shape}")
        elif transport == "exact":
            summed = np.tile(grads.sum(axis=0), (workers, 1))
        else:
            res = ring_allreduce(grads, transport=transport, bits=bits, max_abs=clip,
                                 pair_fidelity=pair_fidelity, seed=noise_rng)
            summed = res.outputs
            for key in totals:
                totals[key] += getattr(res.ledger, key)()
        W -= lr * summed / workers
        evaluate(t + 1)

    return TrainingRun(workers=workers, steps=steps,
                       transport="custom" if allreduce is not None else transport,
                       pair_fidelity=pair_fidelity, losses=losses, accuracies=accs, weights=W,
                       **totals)
