"""Chapter 1 widgets and their pure compute functions: the ring schedule and the α–β costs.

Compute functions (no matplotlib, no ipywidgets; every number comes from the library):

* :func:`ring_state` replays :func:`qring_edu.ring_schedule` symbolically and records, for every
  worker and chunk, *whose* gradients that worker's copy of the chunk already contains;
* :func:`cost_sweep` and :func:`alpha_beta_costs` evaluate :mod:`qring_edu.costmodel` for a range
  of worker counts (ring vs parameter server vs the bandwidth lower bound);
* :func:`link_bits_sweep` runs :func:`qring_edu.ring_allreduce` and reads its ledger;
* :func:`model_comm_table` tabulates the per-iteration communication of :data:`MODEL_SIZES`.

Widget factories (:func:`ring_schedule_widget`, :func:`alpha_beta_widget`) wire controls to one
compute function and one plot function of :mod:`qring_edu.figures.ring` through
:class:`~qring_edu.widgets.LiveFigure`; they never display anything.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Sequence

import ipywidgets as widgets
import numpy as np

from .._validate import check_bits, check_choice, check_float, check_int
from ..costmodel import (
    MODEL_SIZES,
    allreduce_lower_bound_bits,
    parameter_server_time,
    ring_time,
)
from ..ring import RingStep, chunk_bounds, ring_allreduce, ring_schedule
from ._base import LiveFigure

__all__ = [
    "RingState",
    "ring_state",
    "CostSweep",
    "cost_sweep",
    "alpha_beta_costs",
    "LinkBitsSweep",
    "link_bits_sweep",
    "ModelCommRow",
    "model_comm_table",
    "ring_schedule_widget",
    "alpha_beta_widget",
    "parse_positive_number",
]

#: Largest ring the schedule widget draws (beyond that the diagram is unreadable).
MAX_DRAWN_WORKERS = 8


# ---------------------------------------------------------------------------------------------
# The ring schedule, replayed step by step
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RingState:
    """What every worker holds after ``step`` synchronous steps of the ring all-reduce.

    ``contains[k, c, j]`` (bool, shape (P, P, P)) is True when worker k's copy of chunk c already
    includes worker j's gradient. Initially ``contains[k, c, j] = (j == k)``; after the
    2(P-1) steps every entry is True. ``messages`` are the messages of the step just completed
    (global step ``step - 1``; empty when ``step == 0``). ``offsets`` (shape (P + 1,)) are the
    chunk boundaries of a length-``d`` vector from :func:`qring_edu.chunk_bounds`, so chunk c has
    ``offsets[c+1] - offsets[c]`` words of ``bits`` bits.
    """

    workers: int
    d: int
    bits: int
    step: int
    contains: np.ndarray = field(repr=False)
    messages: tuple[RingStep, ...] = field(repr=False)
    offsets: np.ndarray = field(repr=False)

    @property
    def total_steps(self) -> int:
        """2 (P - 1) synchronous steps in all."""
        return 2 * (self.workers - 1)

    @property
    def phase(self) -> str:
        """Phase of the step just completed: ``"start"``, ``"reduce-scatter"`` or ``"all-gather"``."""
        return self.messages[0].phase if self.messages else "start"

    @property
    def phase_step(self) -> int | None:
        """Index s of the step just completed inside its phase (0 .. P-2), None at the start."""
        if not self.messages:
            return None
        s = self.messages[0].step
        return s if s < self.workers - 1 else s - (self.workers - 1)

    @property
    def counts(self) -> np.ndarray:
        """Number of gradients in worker k's copy of chunk c, shape (P, P), values 1..P."""
        return self.contains.sum(axis=2)

    @property
    def chunk_sizes(self) -> np.ndarray:
        """Words per chunk, shape (P,)."""
        return np.diff(self.offsets)

    def message_bits(self) -> np.ndarray:
        """Bits sent on link (k, k+1) in the step just completed, shape (P,) (zeros at the start)."""
        out = np.zeros(self.workers, dtype=np.int64)
        for msg in self.messages:
            out[msg.sender] = int(self.chunk_sizes[msg.chunk]) * self.bits
        return out

    def reduced_chunk(self, worker: int) -> int | None:
        """The chunk whose copy at ``worker`` holds all P gradients, if exactly one does."""
        full = np.flatnonzero(self.counts[worker] == self.workers)
        return int(full[0]) if full.size == 1 else None

    def __repr__(self) -> str:
        return (f"RingState(P={self.workers}, d={self.d}, bits={self.bits}, "
                f"step={self.step}/{self.total_steps}, phase={self.phase!r})")


def ring_state(workers: int, step: int, d: int | None = None, bits: int = 16) -> RingState:
    """Replay the first ``step`` synchronous steps of :func:`qring_edu.ring_schedule`.

    ``workers``: P >= 2; ``step``: 0 .. 2(P-1); ``d``: entries per gradient (default P, one word
    per chunk); ``bits``: word size b (2..32), used only for the message sizes.
    Reduce-scatter messages *add* the sender's partial sum into the receiver's copy (set union of
    the contributions); all-gather messages *overwrite* it.
    """
    P = check_int(workers, "P (number of workers)", 2)
    step = check_int(step, "step", 0, 2 * (P - 1))
    d = P if d is None else check_int(d, "d", 1)
    bits = check_bits(bits)
    offsets = chunk_bounds(d, P)
    contains = np.zeros((P, P, P), dtype=bool)
    for k in range(P):
        contains[k, :, k] = True
    schedule = ring_schedule(P)
    last: tuple[RingStep, ...] = ()
    for t in range(step):
        batch = tuple(m for m in schedule if m.step == t)
        before = contains.copy()  # all messages of one step leave simultaneously
        for m in batch:
            if m.phase == "reduce-scatter":
                contains[m.receiver, m.chunk] |= before[m.sender, m.chunk]
            else:
                contains[m.receiver, m.chunk] = before[m.sender, m.chunk]
        last = batch
    return RingState(workers=P, d=d, bits=bits, step=step, contains=contains, messages=last,
                     offsets=offsets)


# ---------------------------------------------------------------------------------------------
# α–β costs: ring vs parameter server vs the lower bound
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CostSweep:
    """α–β times (seconds) of one all-reduce of ``d`` words of ``bits`` bits, for each P in
    ``workers`` (shape (n,)): ``ring`` (:func:`qring_edu.ring_time`), ``parameter_server``
    (:func:`qring_edu.parameter_server_time`) and ``bound`` = lower-bound bits × beta (bandwidth
    only, :func:`qring_edu.allreduce_lower_bound_bits`). ``chosen`` is the highlighted P (or None).
    ``alpha`` in seconds per message, ``beta`` in seconds per bit."""

    label: str
    d: int
    bits: int
    alpha: float
    beta: float
    workers: np.ndarray = field(repr=False)
    ring: np.ndarray = field(repr=False)
    parameter_server: np.ndarray = field(repr=False)
    bound: np.ndarray = field(repr=False)
    chosen: int | None = None

    def at(self, workers: int) -> dict[str, float]:
        """The three times at one P of the sweep."""
        idx = np.flatnonzero(self.workers == workers)
        if idx.size == 0:
            raise ValueError(f"workers must be one of the swept values, got {workers!r}")
        i = int(idx[0])
        return {"ring": float(self.ring[i]), "parameter_server": float(self.parameter_server[i]),
                "bound": float(self.bound[i])}

    @property
    def speedup(self) -> float | None:
        """Parameter-server time / ring time at the chosen P."""
        if self.chosen is None:
            return None
        t = self.at(self.chosen)
        return t["parameter_server"] / t["ring"]

    def __repr__(self) -> str:
        return (f"CostSweep({self.label!r}, d={self.d}, bits={self.bits}, alpha={self.alpha:.3g}, "
                f"beta={self.beta:.3g}, P={int(self.workers[0])}..{int(self.workers[-1])})")


def cost_sweep(d: int, bits: int, alpha: float, beta: float,
               workers: Sequence[int] = tuple(range(2, 129)), *, label: str = "",
               chosen: int | None = None) -> CostSweep:
    """Evaluate the α–β model for every P in ``workers`` (each an integer >= 2).

    ``alpha``: seconds per message (>= 0); ``beta``: seconds per bit (>= 0).
    """
    d = check_int(d, "d", 1)
    bits = check_bits(bits)
    alpha = check_float(alpha, "alpha", 0.0)
    beta = check_float(beta, "beta", 0.0)
    ps = [check_int(p, "workers", 2) for p in workers]
    if not ps:
        raise ValueError("workers must list at least one worker count")
    if chosen is not None:
        chosen = check_int(chosen, "P (number of workers)", 2)
        if chosen not in ps:
            ps = sorted(set(ps) | {chosen})
    return CostSweep(
        label=label or f"d = {d:,}", d=d, bits=bits, alpha=alpha, beta=beta,
        workers=np.array(ps, dtype=np.int64),
        ring=np.array([ring_time(p, d, bits, alpha, beta) for p in ps]),
        parameter_server=np.array([parameter_server_time(p, d, bits, alpha, beta) for p in ps]),
        bound=np.array([allreduce_lower_bound_bits(p, d, bits) * beta for p in ps]),
        chosen=chosen,
    )


def parse_positive_number(text, name: str) -> float:
    """Read a finite number > 0 from a text box (``"100"``, ``"2.5e1"``); never evaluates code.

    Raises ``ValueError`` naming ``name`` for anything else (empty text, words, zero, negatives).
    """
    if isinstance(text, numbers.Real) and not isinstance(text, bool):
        value = float(text)
    elif isinstance(text, str):
        try:
            value = float(text.strip().replace("_", ""))
        except ValueError:
            raise ValueError(f"{name} must be a number > 0, got {text!r}") from None
    else:
        raise TypeError(f"{name} must be a number or a numeric string, got {type(text).__name__}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {text!r}")
    return value


def alpha_beta_costs(workers: int = 16, model: str = "ResNet-50", bits: int = 32,
                     alpha_us: float = 10.0, bandwidth_gbps="100") -> CostSweep:
    """The α–β widget's computation: a sweep over P = 2..128 for ``model`` (a key of
    :data:`qring_edu.MODEL_SIZES`), highlighting ``workers``.

    ``alpha_us``: per-message latency in microseconds (>= 0); ``bandwidth_gbps``: link bandwidth
    in Gbit/s (> 0; a number or the text of a text box), so ``beta = 1 / (bandwidth * 1e9)`` s/bit.
    """
    model = check_choice(model, "model", tuple(MODEL_SIZES))
    alpha = check_float(alpha_us, "alpha_us (latency in microseconds)", 0.0) / 1e6
    bandwidth = parse_positive_number(bandwidth_gbps, "bandwidth_gbps (link bandwidth in Gbit/s)")
    beta = 1.0 / (bandwidth * 1e9)
    return cost_sweep(MODEL_SIZES[model], bits, alpha, beta, workers=tuple(range(2, 129)),
                      label=model, chosen=workers)


# ---------------------------------------------------------------------------------------------
# Per-link bits from the ledger
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LinkBitsSweep:
    """Bits on the busiest link for one all-reduce of ``d`` words of ``bits`` bits.

    ``ring``: measured by running :func:`qring_edu.ring_allreduce` (ledger, maximum over links);
    ``bound``: :func:`qring_edu.allreduce_lower_bound_bits`; ``parameter_server``: bits into the
    server per direction, ``P d b`` (from :func:`qring_edu.parameter_server_time` with alpha = 0,
    beta = 1, which counts both directions). All shape (n,), one entry per P in ``workers``.
    """

    d: int
    bits: int
    workers: np.ndarray = field(repr=False)
    ring: np.ndarray = field(repr=False)
    bound: np.ndarray = field(repr=False)
    parameter_server: np.ndarray = field(repr=False)

    def __repr__(self) -> str:
        return (f"LinkBitsSweep(d={self.d}, bits={self.bits}, "
                f"P={int(self.workers[0])}..{int(self.workers[-1])})")


def link_bits_sweep(d: int, bits: int, workers: Sequence[int] = tuple(range(2, 17))
                    ) -> LinkBitsSweep:
    """Run the classical ring on zero gradients of shape (P, d) for each P and read the ledger.

    ``P * d`` is capped at 10**6 so the sweep stays fast.
    """
    d = check_int(d, "d", 1)
    bits = check_bits(bits)
    ps = [check_int(p, "workers", 2) for p in workers]
    if not ps:
        raise ValueError("workers must list at least one worker count")
    if max(ps) * d > 10**6:
        raise ValueError(f"workers * d must be <= 10**6 for this sweep, got {max(ps) * d}")
    ring = [ring_allreduce(np.zeros((p, d), dtype=np.int64), bits=bits).ledger.online_bits()
            for p in ps]
    return LinkBitsSweep(
        d=d, bits=bits, workers=np.array(ps, dtype=np.int64), ring=np.array(ring, dtype=np.int64),
        bound=np.array([allreduce_lower_bound_bits(p, d, bits) for p in ps]),
        parameter_server=np.array([parameter_server_time(p, d, bits, 0.0, 1.0) / 2 for p in ps]),
    )


# ---------------------------------------------------------------------------------------------
# Real model sizes
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ModelCommRow:
    """Per-iteration gradient synchronisation of one model on a ring of ``workers`` workers.

    ``link_bits``: bits on the busiest link (``ring_time`` with alpha = 0, beta = 1 s/bit);
    ``ring_s`` / ``ps_s``: α–β seconds of the ring / a single parameter server with latency
    ``alpha`` (s) and bandwidth ``bandwidth_gbps`` (Gbit/s).
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


def model_comm_table(workers: int = 32, bits: Sequence[int] = (16, 32), alpha: float = 10e-6,
                     bandwidth_gbps: float = 100.0, models: Sequence[str] | None = None
                     ) -> list[ModelCommRow]:
    """One row per (model, word size): :data:`MODEL_SIZES` on a ring of ``workers`` workers.

    ``alpha`` in seconds per message, ``bandwidth_gbps`` in Gbit/s (beta = 1 / (bandwidth 1e9)).
    """
    workers = check_int(workers, "P (number of workers)", 2)
    alpha = check_float(alpha, "alpha", 0.0)
    bandwidth = parse_positive_number(bandwidth_gbps, "bandwidth_gbps")
    beta = 1.0 / (bandwidth * 1e9)
    names = list(MODEL_SIZES) if models is None else [check_choice(m, "models", tuple(MODEL_SIZES))
                                                      for m in models]
    rows = []
    for name in names:
        d = MODEL_SIZES[name]
        for b in bits:
            b = check_bits(b)
            rows.append(ModelCommRow(
                model=name, params=d, bits=b, workers=workers, alpha=alpha,
                bandwidth_gbps=bandwidth,
                link_bits=ring_time(workers, d, b, 0.0, 1.0),
                ring_s=ring_time(workers, d, b, alpha, beta),
                ps_s=parameter_server_time(workers, d, b, alpha, beta)))
    return rows


# ---------------------------------------------------------------------------------------------
# Widget factories
# ---------------------------------------------------------------------------------------------
def ring_schedule_widget(workers: int = 4, step: int = 3, d: str = "10",
                         bits: int = 16) -> LiveFigure:
    """P slider, step slider and a text box for d -> :func:`qring_edu.figures.ring.plot_ring_state`.

    The step slider's range follows P (0 .. 2(P-1)). Typing something that is not an integer
    >= 1 into the d box shows the library's error message instead of the figure.
    """
    from ..figures.ring import plot_ring_state

    p_slider = widgets.IntSlider(value=workers, min=2, max=MAX_DRAWN_WORKERS, description="P")
    step_slider = widgets.IntSlider(value=step, min=0, max=2 * (workers - 1),
                                    description="step")
    d_box = widgets.Text(value=str(d), description="d", placeholder="entries per gradient",
                         continuous_update=False)

    # Registered before LiveFigure's observer, so the step range is updated first.
    def _follow_workers(change) -> None:
        step_slider.max = 2 * (change["new"] - 1)

    p_slider.observe(_follow_workers, names="value")

    def compute(workers: int, step: int, d: str) -> RingState:
        return ring_state(workers, step, _parse_int_text(d, "d"), bits)

    return LiveFigure(compute, plot_ring_state,
                      {"workers": p_slider, "step": step_slider, "d": d_box},
                      title="Ring all-reduce, step by step")


def alpha_beta_widget(workers: int = 16, model: str = "ResNet-50", bits: int = 32,
                      alpha_us: float = 10.0, bandwidth_gbps: str = "100") -> LiveFigure:
    """P, model, word size, latency and bandwidth -> α–β time of ring vs parameter server
    (:func:`qring_edu.figures.ring.plot_time_vs_workers`). The bandwidth is a text box and the
    latency a number box: invalid values show the error message."""
    from ..figures.ring import plot_time_vs_workers

    controls = {
        "workers": widgets.IntSlider(value=workers, min=2, max=128, description="P"),
        "model": widgets.Dropdown(options=list(MODEL_SIZES), value=model, description="model"),
        "bits": widgets.Dropdown(options=[8, 16, 32], value=bits, description="bits"),
        "alpha_us": widgets.FloatText(value=alpha_us, description="α (µs)"),
        "bandwidth_gbps": widgets.Text(value=str(bandwidth_gbps), description="Gbit/s",
                                       continuous_update=False),
    }
    return LiveFigure(alpha_beta_costs, plot_time_vs_workers, controls,
                      title="α–β time: ring vs parameter server")


def _parse_int_text(text, name: str) -> int:
    """An integer from a text box (``"12"``); ``ValueError`` naming ``name`` otherwise."""
    if isinstance(text, numbers.Integral) and not isinstance(text, bool):
        return int(text)
    if not isinstance(text, str):
        raise TypeError(f"{name} must be an integer, got {type(text).__name__}")
    try:
        return int(text.strip().replace("_", ""))
    except ValueError:
        raise ValueError(f"{name} must be an integer >= 1, got {text!r}") from None
