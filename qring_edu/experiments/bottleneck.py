"""Experiments of chapter 1, *The communication bottleneck* (book/01_bottleneck.ipynb): the ring
schedule replayed step by step, α–β costs of ring vs parameter server, per-link bits from the
ledger, real model sizes and bucketed overlap with the backward pass.

Numbers come from :mod:`qring_edu.ring` and :mod:`qring_edu.costmodel`. Units: ``alpha`` s per
message, ``beta`` s per bit, ``bandwidth_gbps`` Gbit/s (``beta = 1 / (bandwidth 1e9)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field

import numpy as np

from .._result import result
from .._validate import check_bits, check_choice, check_float, check_int
from ..costmodel import (
    MODEL_SIZES,
    allreduce_lower_bound_bits,
    bucketed_iteration_time,
    iteration_time,
    parameter_server_time,
    ring_time,
)
from ..ring import RingStep, chunk_bounds, message_bits, ring_allreduce, ring_schedule
from ._base import Rows, Table, Tabular, worker_counts

__all__ = [
    "MAX_LINK_WORDS",
    "RingState",
    "ring_state",
    "ring_schedule_table",
    "CostSweep",
    "cost_sweep",
    "alpha_beta_costs",
    "LinkBitsSweep",
    "link_bits_sweep",
    "ModelCommRow",
    "ModelCommTable",
    "model_comm_table",
    "OverlapRow",
    "OverlapTable",
    "overlap_table",
]

#: Largest P * d the ledger sweep simulates (zero gradients of shape (P, d)).
MAX_LINK_WORDS = 10**6


@result(show=("total_steps", "phase"))
class RingState:
    """What every worker holds after ``step`` synchronous steps of the ring all-reduce.

    ``contains[k, c, j]`` (bool, (P, P, P)): worker k's copy of chunk c includes worker j's
    gradient. ``messages``: those of the step just completed. ``offsets`` (P + 1,):
    :func:`qring_edu.chunk_bounds`.

    Examples
    --------
    >>> ring_state(4, 3)
    RingState(workers=4, d=4, bits=16, step=3, total_steps=6, phase='reduce-scatter')
    """

    workers: int
    d: int
    bits: int
    step: int
    contains: np.ndarray = field(repr=False)
    messages: tuple[RingStep, ...] = field(repr=False)
    offsets: np.ndarray = field(repr=False)

    total_steps = property(lambda self: 2 * (self.workers - 1), doc="2 (P - 1) steps in all.")
    phase = property(
        lambda self: self.messages[0].phase if self.messages else "start",
        doc='Of the step just completed: "start", "reduce-scatter" or "all-gather".',
    )

    phase_step = property(
        lambda self: self.messages[0].step % (self.workers - 1) if self.messages else None,
        doc="Index s of the step just completed inside its phase (0 .. P-2), None at the start.",
    )

    counts = property(lambda self: self.contains.sum(axis=2), doc="Gradients in [k, c], 1..P.")
    chunk_sizes = property(lambda self: np.diff(self.offsets), doc="Words per chunk, (P,).")

    def message_bits(self) -> np.ndarray:
        """Bits sent on link (k, k+1) in the step just completed, shape (P,) (zeros at the start);
        a column of :func:`qring_edu.ring.message_bits`."""
        if self.step == 0:
            return np.zeros(self.workers, dtype=np.int64)
        return message_bits(self.workers, self.d, self.bits)[:, self.step - 1]

    def reduced_chunk(self, worker: int) -> int | None:
        """The chunk whose copy at ``worker`` holds all P gradients, if exactly one does."""
        full = np.flatnonzero(self.counts[worker] == self.workers)
        return int(full[0]) if full.size == 1 else None


def ring_state(workers: int, step: int, d: int | None = None, bits: int = 16) -> RingState:
    """Replay the first ``step`` (0 .. 2(P-1)) steps of :func:`qring_edu.ring_schedule` on
    gradients of ``d`` entries (default P): reduce-scatter *adds*, all-gather *overwrites*.

    Examples
    --------
    >>> bool(ring_state(3, 4).contains.all())    # after 2(P-1) steps every copy holds everything
    True
    """
    P = check_int(workers, "P (number of workers)", 2)
    step = check_int(step, "step", 0, 2 * (P - 1))
    d = P if d is None else check_int(d, "d", 1)
    bits = check_bits(bits)
    offsets = chunk_bounds(d, P)
    contains = np.zeros((P, P, P), dtype=bool)
    contains[np.arange(P), :, np.arange(P)] = True  # worker k's copies hold gradient k
    schedule = ring_schedule(P)
    batches = [tuple(m for m in schedule if m.step == t) for t in range(step)]
    for batch in batches:
        before = contains.copy()  # all messages of one step leave simultaneously
        for m in batch:
            if m.phase == "reduce-scatter":
                contains[m.receiver, m.chunk] |= before[m.sender, m.chunk]
            else:
                contains[m.receiver, m.chunk] = before[m.sender, m.chunk]
    return RingState(P, d, bits, step, contains, batches[-1] if batches else (), offsets)


def ring_schedule_table(workers: int) -> Table:
    """Every message of :func:`qring_edu.ring_schedule`: one row per synchronous step (global
    step, phase), one column per directed link ``Wk->Wk+1`` naming the chunk it carries.

    Examples
    --------
    >>> print(ring_schedule_table(3))
    step  phase           W0->W1  W1->W2  W2->W0
       0  reduce-scatter  c0      c1      c2
       1  reduce-scatter  c2      c0      c1
       2  all-gather      c1      c2      c0
       3  all-gather      c0      c1      c2
    """
    P = check_int(workers, "P (number of workers)", 2)
    rows = []
    for step in range(2 * (P - 1)):
        msgs = sorted((m for m in ring_schedule(P) if m.step == step), key=lambda m: m.sender)
        rows.append((step, msgs[0].phase, *(f"c{m.chunk}" for m in msgs)))
    links = tuple(f"W{k}->W{(k + 1) % P}" for k in range(P))
    return Table(("step", "phase") + links, tuple(rows), ("d", "") + ("",) * P)


@result(show=("workers_range",))
class CostSweep(Tabular):
    """α–β times (s) of one all-reduce per P in ``workers``: ``ring``, ``parameter_server``,
    ``bound`` (:func:`qring_edu.costmodel.allreduce_lower_bound_bits` × beta), ``latency``.

    Examples
    --------
    >>> sw = cost_sweep(25_557_032, 32, 10e-6, 1e-11, workers=(4, 16))
    >>> print(sw.table())
     P  ring (ms)  server (ms)  server/ring  ring latency (ms)
     4      12.33        65.45          5.3               0.06
    16      15.63       261.72         16.7               0.30
    """

    label: str
    d: int
    bits: int
    alpha: float
    beta: float
    workers: np.ndarray = field(repr=False)
    ring: np.ndarray = field(repr=False)
    parameter_server: np.ndarray = field(repr=False)
    bound: np.ndarray = field(repr=False)
    latency: np.ndarray = field(repr=False)
    chosen: int | None = None

    workers_range = property(lambda self: (int(self.workers[0]), int(self.workers[-1])), doc="P.")

    def at(self, workers: int) -> dict[str, float]:
        """The three times at one P of the sweep."""
        idx = np.flatnonzero(self.workers == workers)
        if idx.size == 0:
            raise ValueError(f"workers must be one of the swept values, got {workers!r}")
        return {k: float(getattr(self, k)[idx[0]]) for k in ("ring", "parameter_server", "bound")}

    @property
    def speedup(self) -> float | None:
        """Parameter-server time / ring time at the chosen P."""
        t = None if self.chosen is None else self.at(self.chosen)
        return None if t is None else t["parameter_server"] / t["ring"]

    def table(self) -> Table:
        """One row per P: ring and server times (ms), their ratio, the ring's latency part (ms)."""
        ps, ring = self.parameter_server, self.ring
        rows = tuple(zip(self.workers, ring * 1e3, ps * 1e3, ps / ring, self.latency * 1e3))
        head = ("P", "ring (ms)", "server (ms)", "server/ring", "ring latency (ms)")
        return Table(head, rows, ("d", ".2f", ".2f", ".1f", ".2f"))


def cost_sweep(
    d: int,
    bits: int,
    alpha: float,
    beta: float,
    workers: Sequence[int] = tuple(range(2, 129)),
    *,
    label: str = "",
    chosen: int | None = None,
) -> CostSweep:
    """Evaluate the α–β model for every P in ``workers`` (each >= 2; ``alpha``, ``beta`` >= 0).

    Examples
    --------
    >>> sw = cost_sweep(1000, 16, 1e-6, 1e-9, chosen=8)
    >>> round(sw.speedup, 2)
    6.14
    """
    d = check_int(d, "d", 1)
    bits = check_bits(bits)
    alpha = check_float(alpha, "alpha", 0.0)
    beta = check_float(beta, "beta", 0.0)
    ps = worker_counts(workers)
    if chosen is not None:
        chosen = check_int(chosen, "P (number of workers)", 2)
        if chosen not in ps:
            ps = sorted(set(ps) | {chosen})
    times = [
        [ring_time(p, d, bits, alpha, beta) for p in ps],
        [parameter_server_time(p, d, bits, alpha, beta) for p in ps],
        [allreduce_lower_bound_bits(p, d, bits) * beta for p in ps],
        [ring_time(p, d, bits, alpha, 0.0) for p in ps],  # the latency term
    ]
    settings = (label or f"d = {d:,}", d, bits, alpha, beta, np.array(ps, dtype=np.int64))
    return CostSweep(*settings, *map(np.array, times), chosen)


def alpha_beta_costs(
    workers: int = 16,
    model: str = "ResNet-50",
    bits: int = 32,
    alpha_us: float = 10.0,
    bandwidth_gbps: float = 100.0,
) -> CostSweep:
    """The α–β widget's computation: a sweep over P = 2..128 for ``model`` (a key of
    :data:`qring_edu.costmodel.MODEL_SIZES`), highlighting ``workers``; ``alpha_us`` in µs.

    Examples
    --------
    >>> round(alpha_beta_costs(workers=16).speedup, 1)
    16.7
    """
    model = check_choice(model, "model", tuple(MODEL_SIZES))
    alpha = check_float(alpha_us, "alpha_us (latency in microseconds)", 0.0) / 1e6
    name = "bandwidth_gbps (link bandwidth in Gbit/s)"
    bandwidth = check_float(bandwidth_gbps, name, 0.0, lo_open=True)
    clock = (MODEL_SIZES[model], bits, alpha, 1.0 / (bandwidth * 1e9))
    return cost_sweep(*clock, workers=tuple(range(2, 129)), label=model, chosen=workers)


@result(show=("workers_range",))
class LinkBitsSweep:
    """Bits on the busiest link of one all-reduce per P in ``workers``: ``ring`` (ledger),
    ``bound`` (:func:`qring_edu.costmodel.allreduce_lower_bound_bits`), ``parameter_server``
    (``P d b`` into the server per direction).

    Examples
    --------
    >>> sw = link_bits_sweep(60, 16, workers=range(2, 6))
    >>> sw.ring.tolist(), sw.bound.tolist()
    ([960, 1280, 1440, 1536], [960.0, 1280.0, 1440.0, 1536.0])
    """

    d: int
    bits: int
    workers: np.ndarray = field(repr=False)
    ring: np.ndarray = field(repr=False)
    bound: np.ndarray = field(repr=False)
    parameter_server: np.ndarray = field(repr=False)

    workers_range = property(lambda self: (int(self.workers[0]), int(self.workers[-1])), doc="P.")


def link_bits_sweep(
    d: int, bits: int, workers: Sequence[int] = tuple(range(2, 17))
) -> LinkBitsSweep:
    """Run the classical ring on zero gradients (P, d) for each P (``P d <=``
    :data:`MAX_LINK_WORDS`) and read the ledger.

    Examples
    --------
    >>> link_bits_sweep(60, 16, workers=range(2, 6)).parameter_server.tolist()
    [1920.0, 2880.0, 3840.0, 4800.0]
    """
    d = check_int(d, "d", 1)
    bits = check_bits(bits)
    ps = worker_counts(workers, max_words=MAX_LINK_WORDS, d=d)
    zeros = (np.zeros((p, d), dtype=np.int64) for p in ps)
    ring = [ring_allreduce(g, bits=bits).ledger.online_bits() for g in zeros]
    bound = np.array([allreduce_lower_bound_bits(p, d, bits) for p in ps])
    server = np.array([parameter_server_time(p, d, bits, 0.0, 1.0) / 2 for p in ps])
    return LinkBitsSweep(d, bits, *(np.array(v, dtype=np.int64) for v in (ps, ring)), bound, server)


@result
class ModelCommRow:
    """One model's gradient synchronisation: ``link_bits`` on the busiest link; ``ring_s`` /
    ``ps_s``: α–β seconds of the ring / a single parameter server.

    Examples
    --------
    >>> row = model_comm_table(models=["ResNet-50"], bits=[16])[0]
    >>> row.model, row.params, round(row.link_bits / 8e9, 3), round(row.ring_s, 4)
    ('ResNet-50', 25557032, 0.099, 0.0085)
    """

    model: str
    params: int
    bits: int
    workers: int
    alpha: float
    bandwidth_gbps: float
    link_bits: float
    ring_s: float
    ps_s: float


@result(show=("models",))
class ModelCommTable(Rows):
    """The rows of :func:`model_comm_table` (:class:`ModelCommRow`).

    Examples
    --------
    >>> print(model_comm_table(models=["ResNet-50", "GPT-2 XL"], bits=[16]).table())
    model         parameters  bits  GB per link  ring (s)  server (s)
    ResNet-50     25,557,032    16         0.10     0.009         0.3
    GPT-2 XL   1,500,000,000    16         5.81     0.466        15.4
    """

    models = property(lambda self: tuple(dict.fromkeys(r.model for r in self.rows)), doc="Models.")

    def row(self, model: str, bits: int) -> ModelCommRow:
        """The row of ``model`` at word size ``bits``."""
        return self._find(model=model, bits=bits)

    def table(self) -> Table:
        """Model, parameters, word size, gigabytes on the busiest link, ring and server seconds."""
        rows = tuple((r.model, r.params, r.bits, r.link_bits / 8e9, r.ring_s, r.ps_s) for r in self)
        head = ("model", "parameters", "bits", "GB per link", "ring (s)", "server (s)")
        return Table(head, rows, ("", ",d", "d", ".2f", ".3f", ".1f"))


def model_comm_table(
    workers: int = 32,
    bits: Sequence[int] = (16, 32),
    alpha: float = 10e-6,
    bandwidth_gbps: float = 100.0,
    models: Sequence[str] | None = None,
) -> ModelCommTable:
    """One row per (model, word size): :data:`MODEL_SIZES` on a ring of ``workers`` workers.

    Examples
    --------
    >>> rows = model_comm_table(models=["GPT-2 XL"], bits=[16])
    >>> round(rows.row("GPT-2 XL", 16).ring_s, 3)
    0.466
    """
    workers = check_int(workers, "P (number of workers)", 2)
    alpha = check_float(alpha, "alpha", 0.0)
    bandwidth = check_float(bandwidth_gbps, "bandwidth_gbps", 0.0, lo_open=True)
    beta = 1.0 / (bandwidth * 1e9)
    names = list(MODEL_SIZES) if models is None else models
    names = [check_choice(m, "models", tuple(MODEL_SIZES)) for m in names]
    rows = []
    for name in names:
        d = MODEL_SIZES[name]
        for b in map(check_bits, bits):
            times = [f(workers, d, b, alpha, beta) for f in (ring_time, parameter_server_time)]
            link_bits = ring_time(workers, d, b, 0.0, 1.0)
            rows.append(ModelCommRow(name, d, b, workers, alpha, bandwidth, link_bits, *times))
    return ModelCommTable(tuple(rows))


@result(show=("hidden",))
class OverlapRow:
    """One iteration of the classical ring with ``buckets`` buckets (``None``: not overlapped),
    in seconds: ``total``, ``tail`` (after the last gradient), ``ring`` (one all-reduce).

    Examples
    --------
    >>> row = overlap_table(buckets=(5,)).row(5)
    >>> round(row.total * 1e3, 2), round(row.tail * 1e3, 2), round(row.hidden, 3)
    (21.5, 1.5, 0.792)
    """

    buckets: int | None
    compute: float
    ring: float
    total: float
    tail: float

    @property
    def hidden(self) -> float:
        """``1 - tail / ring``: the share of the all-reduce run during the backward pass."""
        return 1.0 - self.tail / self.ring if self.ring > 0 else 0.0


@result
class OverlapTable(Rows):
    """The rows of :func:`overlap_table` (:class:`OverlapRow`) of ``model`` on ``workers``.

    Examples
    --------
    >>> print(overlap_table(buckets=(5,)).table())
    schedule    iteration (ms)  after the backward pass (ms)  all-reduce hidden (%)
    no overlap           27.23                          7.23                      0
    5 buckets            21.50                          1.50                     79
    """

    model: str = ""
    workers: int = 0
    bits: int = 0

    def row(self, buckets: int | None) -> OverlapRow:
        """The row with ``buckets`` buckets (``None``: the non-overlapped model)."""
        return self._find(buckets=buckets)

    def table(self) -> Table:
        """Schedule, iteration time, time after the backward pass (ms) and the share hidden."""

        def schedule(b):
            return "no overlap" if b is None else f"{b} bucket{'s' if b > 1 else ''}"

        rows = tuple(
            (schedule(r.buckets), r.total * 1e3, r.tail * 1e3, 100 * r.hidden) for r in self
        )
        head = ("schedule", "iteration (ms)", "after the backward pass (ms)")
        return Table(head + ("all-reduce hidden (%)",), rows, ("", ".2f", ".2f", ".0f"))


def overlap_table(
    model: str = "ResNet-50",
    workers: int = 8,
    bits: int = 16,
    alpha: float = 5e-6,
    bandwidth_gbps: float = 100.0,
    compute: float = 0.02,
    buckets: Sequence[int] = (1, 2, 5, 25),
) -> OverlapTable:
    """The classical ring without overlap (:func:`qring_edu.iteration_time`) and with each
    bucket count (:func:`qring_edu.costmodel.bucketed_iteration_time`); ``compute`` in s.

    Examples
    --------
    >>> t = overlap_table()
    >>> [round(r.total * 1e3, 2) for r in t]
    [27.23, 27.23, 23.65, 21.5, 20.36]
    """
    model = check_choice(model, "model", tuple(MODEL_SIZES))
    workers = check_int(workers, "P (number of workers)", 2)
    bits = check_bits(bits)
    alpha = check_float(alpha, "alpha", 0.0)
    bandwidth = check_float(bandwidth_gbps, "bandwidth_gbps", 0.0, lo_open=True)
    compute = check_float(compute, "compute", 0.0)
    d, beta = MODEL_SIZES[model], 1.0 / (bandwidth * 1e9)
    args = (compute, workers, d, bits, alpha, beta)
    ring, plain = ring_time(*args[1:]), iteration_time(*args)
    rows = [OverlapRow(None, compute, ring, plain.total, plain.total - compute)]
    for b in buckets:
        it = bucketed_iteration_time(*args, buckets=check_int(b, "buckets", 1, d), method="formula")
        rows.append(OverlapRow(int(b), compute, ring, it.total, it.tail))
    return OverlapTable(tuple(rows), model=model, workers=workers, bits=bits)
