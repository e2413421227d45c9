"""α–β time models for gradient synchronisation (book/01_bottleneck.ipynb, book/03_superdense_ring.ipynb).

A message of n units over one link takes ``alpha + n * beta`` seconds (Hockney's model): ``alpha``
is the per-message latency, ``beta`` the time per unit (a bit on a classical link, a qubit on a
quantum link). All sizes are per worker: ``d`` entries of ``bits`` bits each.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from ._validate import check_bits, check_choice, check_float, check_int
from .ring import chunk_bounds, message_bits

__all__ = [
    "ring_time",
    "parameter_server_time",
    "allreduce_lower_bound_bits",
    "IterationTime",
    "iteration_time",
    "pairs_per_link",
    "MODEL_SIZES",
    "BACKWARD_FRACTION",
    "BucketedIteration",
    "bucketed_iteration_time",
    "bucketed_best_ratio",
    "CutSetBound",
    "allreduce_cut_bound",
]

#: Parameter counts of well-known models (published figures), for the "real sizes" tables.
MODEL_SIZES = {
    "ResNet-50": 25_557_032,  # He et al. 2016; torchvision's count
    "BERT-Large": 340_000_000,  # Devlin et al. 2019
    "GPT-2 XL": 1_500_000_000,  # Radford et al. 2019
    "Llama 2 70B": 70_000_000_000,  # Touvron et al. 2023
    "GPT-3": 175_000_000_000,  # Brown et al. 2020
}


def _check_common(workers, d, bits, alpha, beta):
    return (
        check_int(workers, "P (number of workers)", 2),
        check_int(d, "d", 1),
        check_bits(bits),
        check_float(alpha, "alpha", 0.0),
        check_float(beta, "beta", 0.0),
    )


def ring_time(
    workers: int, d: int, bits: int, alpha: float, beta: float, *, transport: str = "classical"
) -> float:
    """Seconds for one ring all-reduce: ``2 (P-1) (alpha + n beta)``.

    ``n`` is the largest chunk message: ``ceil(d/P) * bits`` bits (classical) or
    ``ceil(ceil(d/P) * bits / 2)`` qubits (superdense), ``beta`` the time per unit sent.

    Parameters
    ----------
    workers, d, bits : int
        ``P >= 2`` workers, ``d >= 1`` words of ``bits`` bits.
    alpha, beta : float
        Seconds per message (latency) and per bit or qubit, ``>= 0``.
    transport : {"classical", "superdense"}

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    6 steps of 1 µs plus 4000 bits or 2000 qubits at 1 ns each:

    >>> from qring_edu import ring_time
    >>> round(ring_time(4, 1000, 16, 1e-6, 1e-9), 9)
    3e-05
    >>> round(ring_time(4, 1000, 16, 1e-6, 1e-9, transport="superdense"), 9)
    1.8e-05
    """

    P, d, bits, alpha, beta = _check_common(workers, d, bits, alpha, beta)
    transport = check_choice(transport, "transport", ("classical", "superdense"))
    units = int(message_bits(P, d, bits).max())  # the largest chunk message, ceil(d/P) words
    if transport == "superdense":
        units = (units + 1) // 2
    return 2 * (P - 1) * (alpha + units * beta)


def parameter_server_time(workers: int, d: int, bits: int, alpha: float, beta: float) -> float:
    """Seconds for a single parameter server: it receives P vectors and sends P back over its own
    link, ``2 (alpha + P d bits beta)`` (the server's link is the bottleneck).

    ``alpha``: seconds per message; ``beta``: seconds per bit.

    Examples
    --------
    >>> from qring_edu import parameter_server_time, ring_time
    >>> round(parameter_server_time(4, 1000, 16, 1e-6, 1e-9), 9)
    0.00013
    >>> round(ring_time(4, 1000, 16, 1e-6, 1e-9), 9)           # 2.6 times faster
    3e-05
    """
    P, d, bits, alpha, beta = _check_common(workers, d, bits, alpha, beta)
    return 2 * (alpha + P * d * bits * beta)


def allreduce_lower_bound_bits(workers: int, d: int, bits: int) -> float:
    """Bits each worker must send in any all-reduce: ``2 (P-1)/P * d * bits`` (Patarasuk & Yuan).

    The bandwidth lower bound of classical all-reduce, which the ring meets when P divides d.

    Examples
    --------
    >>> from qring_edu import allreduce_lower_bound_bits
    >>> allreduce_lower_bound_bits(4, 1000, 16)
    24000.0
    """
    P = check_int(workers, "P (number of workers)", 2)
    return 2 * (P - 1) / P * check_int(d, "d", 1) * check_bits(bits)


def pairs_per_link(workers: int, d: int, bits: int) -> int:
    """Bell pairs the busiest link of the superdense ring consumes in one all-reduce.

    Chunk c of ``n_c`` words travels as ``u_c = ceil(n_c * bits / 2)`` qubits. Worker k sends every
    chunk but (k+1) mod P in reduce-scatter and every chunk but (k+2) mod P in all-gather, so its
    link uses ``2 U - u_{k+1} - u_{k+2}`` pairs with ``U = sum_c u_c``; this returns the maximum
    over k, equal to ``2 (P-1) ceil(d bits / (2P))`` when P divides d.

    Examples
    --------
    >>> from qring_edu.costmodel import pairs_per_link
    >>> pairs_per_link(4, 1000, 16)          # 2 * 3 * 250 * 16 / 2
    12000
    >>> pairs_per_link(3, 10, 5)             # chunks of 4, 3, 3 words: 10, 8, 8 qubits
    36
    """
    units = (message_bits(workers, d, bits) + 1) // 2  # ceil(k/2) qubits per k-bit message
    return int(units.sum(axis=1).max())


@dataclass(frozen=True)
class IterationTime:
    """One training iteration of the non-overlapped model (:func:`iteration_time`), in seconds:
    ``total = max(compute, distribution) + ring`` for the quantum ring (pairs are distributed
    during the compute), ``compute + ring`` classically (no overlap with the backward pass).

    Attributes
    ----------
    transport : str
    compute, distribution, ring, total : float
        Seconds.

    Examples
    --------
    >>> from qring_edu import iteration_time
    >>> iteration_time(1.12e-4, 8, 8000, 16, 0.0, 1e-9)
    IterationTime(transport='classical', compute=0.000112, distribution=0, ring=0.000224, total=0.000336)
    >>> iteration_time(1.12e-4, 8, 8000, 16, 0.0, 1e-9, transport="superdense")
    IterationTime(transport='superdense', compute=0.000112, distribution=0.000112, ring=0.000112, total=0.000224)
    """

    transport: str
    compute: float
    distribution: float
    ring: float
    total: float

    def __repr__(self) -> str:
        return (
            f"IterationTime(transport={self.transport!r}, compute={self.compute:.4g}, "
            f"distribution={self.distribution:.4g}, ring={self.ring:.4g}, "
            f"total={self.total:.4g})"
        )


def iteration_time(
    compute: float,
    workers: int,
    d: int,
    bits: int,
    alpha: float,
    beta: float,
    *,
    transport: str = "classical",
    beta_qubit: float | None = None,
) -> IterationTime:
    """Non-overlapped iteration-time model of book/03_superdense_ring.ipynb (one all-reduce after the compute).

    classical: ``compute + ring_time(classical, beta)``;
    superdense: ``max(compute, distribution) + ring_time(superdense, beta_qubit)`` where
    ``distribution = pairs_per_link(P, d, bits) * beta_qubit`` sends one half of each Bell pair
    the busiest link consumes (= its online qubits) and overlaps the compute.
    ``beta_qubit`` defaults to ``beta`` (a qubit costs as much link time as a bit).

    The two sides are *not* treated alike: the classical ring never overlaps the backward pass
    (no gradient buckets), while the superdense ring's pair distribution does use the link during
    the compute. For the like-for-like model, in which both transports all-reduce gradient
    buckets as they become ready and the distribution shares the link with the online traffic,
    see :func:`bucketed_iteration_time` (with one bucket and ``ahead=0`` it reproduces this model,
    up to one ``alpha`` for the distribution message).

    Examples
    --------
    The best case: the compute lasts exactly as long as the distribution (112 µs here).

    >>> cl = iteration_time(1.12e-4, 8, 8000, 16, 0.0, 1e-9)
    >>> sd = iteration_time(1.12e-4, 8, 8000, 16, 0.0, 1e-9, transport="superdense")
    >>> round(sd.distribution, 7), round(sd.total / cl.total, 4)
    (0.000112, 0.6667)
    """
    compute = check_float(compute, "compute", 0.0)
    transport = check_choice(transport, "transport", ("classical", "superdense"))
    if beta_qubit is not None:  # checked for both transports (ignored classically)
        beta_qubit = check_float(beta_qubit, "beta_qubit", 0.0)
    if transport == "classical":
        ring = ring_time(workers, d, bits, alpha, beta)
        return IterationTime(transport, compute, 0.0, ring, compute + ring)
    bq = beta if beta_qubit is None else beta_qubit
    ring = ring_time(workers, d, bits, alpha, bq, transport="superdense")
    distribution = pairs_per_link(workers, d, bits) * bq
    return IterationTime(transport, compute, distribution, ring, max(compute, distribution) + ring)


# ---------------------------------------------------------------------------------------------
# Bucketed, overlapped iteration (both transports alike)
# ---------------------------------------------------------------------------------------------

#: Default share of the compute spent in the backward pass (backward ≈ 2 × forward in FLOPs,
#: the usual rule of thumb; Kaplan et al. 2020). Gradients become ready only during it.
BACKWARD_FRACTION = 2 / 3

_METHODS = ("simulate", "formula")


@dataclass(frozen=True)
class BucketedIteration:
    """Steady-state training iteration with bucketed, overlapped gradient all-reduce (seconds).

    ``total``: the steady-state iteration time (the period: from the start of one forward pass
    to the next). ``tail = total - compute``: how long the iteration waits for communication
    after the last gradient is ready. ``online`` / ``distribution``: link time per iteration of
    the ring's messages / of sending one half of every Bell pair (0 classically), on the busiest
    link; ``idle = total - (online + distribution)`` on that link (never negative).
    ``schedule`` (``method="simulate"`` only, not in the repr): link 0's busy intervals in one
    steady-state iteration, ``(start, end, kind, bucket)`` with times from the iteration's start
    and ``kind`` ``"online"`` or ``"distribution"`` (of the pairs that ``bucket`` will consume);
    ``ready``: the buckets' ready times.

    Attributes
    ----------
    transport : str
    compute, total, tail, online, distribution, idle : float
        Seconds, as above.
    buckets, ahead : int
    method : str
        ``"simulate"`` or ``"formula"``.
    ready : tuple of float
    schedule : tuple of (float, float, str, int)

    Examples
    --------
    8 workers, 8000 words of 16 bits, 1 ns per bit, no latency, 112 µs of compute, 4 buckets:

    >>> from qring_edu import bucketed_iteration_time
    >>> args = (1.12e-4, 8, 8000, 16, 0.0, 1e-9)
    >>> bucketed_iteration_time(*args, buckets=4)
    BucketedIteration(transport='classical', buckets=4, ahead=0, compute=0.000112, total=0.00028, tail=0.000168, online=0.000224, distribution=0, idle=5.6e-05)
    >>> quantum = bucketed_iteration_time(*args, buckets=4, transport="superdense")
    >>> round(quantum.total, 9), round(quantum.online, 9), round(quantum.distribution, 9)
    (0.000224, 0.000112, 0.000112)
    >>> quantum.schedule[0]
    (0.0, 2.800000000000003e-05, 'distribution', 0)
    """

    transport: str
    compute: float
    buckets: int
    ahead: int
    total: float
    tail: float
    online: float
    distribution: float
    idle: float
    method: str
    ready: tuple = field(default=(), repr=False, compare=False)
    schedule: tuple = field(default=(), repr=False, compare=False)

    def __repr__(self) -> str:
        return (
            f"BucketedIteration(transport={self.transport!r}, buckets={self.buckets}, "
            f"ahead={self.ahead}, compute={self.compute:.4g}, total={self.total:.4g}, "
            f"tail={self.tail:.4g}, online={self.online:.4g}, "
            f"distribution={self.distribution:.4g}, idle={self.idle:.4g})"
        )


def _message_units(entries: int, P: int, bits: int, transport: str) -> np.ndarray:
    """Units (bits or qubits) of every message of one all-reduce of ``entries`` words:
    ``U[s, k]`` = message of sender k at step s, shape (2(P-1), P) (:func:`~qring_edu.ring.message_bits`
    transposed; a k-bit message crosses the superdense link as ceil(k/2) qubits)."""
    units = message_bits(P, entries, bits).T
    return (units + 1) // 2 if transport == "superdense" else units


def _check_buckets(buckets, d: int) -> np.ndarray:
    if isinstance(buckets, numbers.Integral) and not isinstance(buckets, bool):
        B = check_int(buckets, "buckets", 1, d)
        return np.diff(chunk_bounds(d, B)) if B > 1 else np.array([d], dtype=np.int64)
    if isinstance(buckets, (str, bytes, bool)) or buckets is None:
        raise TypeError(
            "buckets must be a number of buckets (int) or a sequence of bucket sizes, "
            f"got {buckets!r}"
        )
    try:
        sizes = [check_int(n, "buckets (each bucket size)", 1) for n in buckets]
    except TypeError as exc:
        if "not iterable" in str(exc):
            raise TypeError(
                "buckets must be a number of buckets (int) or a sequence of bucket "
                f"sizes, got {buckets!r}"
            ) from None
        raise
    if not sizes or sum(sizes) != d:
        raise ValueError(
            f"buckets (a sequence of sizes) must sum to d = {d}, got "
            f"{sum(sizes)} over {len(sizes)} buckets"
        )
    return np.array(sizes, dtype=np.int64)


def _check_ready(ready, compute: float, B: int, backward_fraction) -> np.ndarray:
    if ready is None:
        phi = (
            BACKWARD_FRACTION
            if backward_fraction is None
            else check_float(backward_fraction, "backward_fraction", 0.0, 1.0)
        )
        forward = compute * (1.0 - phi)
        return forward + compute * phi * np.arange(1, B + 1) / B
    if backward_fraction is not None:
        raise ValueError(
            "give either ready (the buckets' ready times) or backward_fraction, not both"
        )
    if isinstance(ready, (str, bytes)):
        raise TypeError(f"ready must be a sequence of {B} times in seconds, got {ready!r}")
    try:
        times = [check_float(t, "ready (each ready time)", 0.0, compute) for t in ready]
    except TypeError as exc:
        if "not iterable" in str(exc):
            raise TypeError(
                f"ready must be a sequence of {B} times in seconds, got {ready!r}"
            ) from None
        raise
    if len(times) != B:
        raise ValueError(f"ready must give one time per bucket ({B}), got {len(times)}")
    if any(b < a for a, b in zip(times, times[1:])):
        raise ValueError(
            "ready must be non-decreasing (buckets are all-reduced in the order they become ready)"
        )
    return np.array(times, dtype=float)


class _Distribution:
    """Pair distribution on every link: a queue of blocks, one per (iteration, bucket), the
    pairs that bucket will consume on that link; block (i, j) of link k costs
    ``alpha + Q[j, k] * beta_qubit`` of link time and may be sent from the start of iteration
    ``i - ahead`` at worker k on. It runs whenever its link carries no online message
    (preemptive-resume: an online message that is ready interrupts it; a block pays its alpha
    once). An online message of bucket j waits until block (i, j) of its link is complete."""

    def __init__(self, work: np.ndarray, ahead: int, starts: list):
        self.work, self.ahead, self.starts = work, ahead, starts  # work: (B, P)
        self.B, self.P = work.shape
        self.block = [0] * self.P  # next block (global index i * B + j) per link
        self.left = [float(w) for w in work[0]]  # link time left of that block
        self.log: list = []  # (link, start, end, global block)

    def _release(self, g: int, k: int, current: int) -> float | None:
        i = g // self.B - self.ahead
        if i > current:
            return None  # may start only with an iteration not begun yet
        return 0.0 if i < 0 else float(self.starts[i][k])

    def run(self, k: int, t: float, until: float, current: int, target: int | None = None) -> float:
        """Distribute on link k from time t; stop at ``until`` or, with ``target``, as soon as
        block ``target`` is complete (``until`` is then ignored). Returns the stop time."""
        stop = math.inf if target is not None else until
        while target is None or self.block[k] <= target:
            g = self.block[k]
            rel = self._release(g, k, current)
            if rel is None:  # nothing released yet (never the case for a target block)
                return t
            t = max(t, rel)
            if t >= stop:
                return stop
            if t + self.left[k] > stop:  # interrupted by the next online message
                self.log.append((k, t, stop, g))
                self.left[k] -= stop - t
                return stop
            if self.left[k] > 0.0:
                self.log.append((k, t, t + self.left[k], g))
            t += self.left[k]
            self.block[k] = g + 1
            self.left[k] = float(self.work[(g + 1) % self.B, k])
        return t


def _steady_period(starts: list, rtol: float) -> float | None:
    """The steady-state period once the per-worker start times repeat: the smallest cycle c for
    which the last three c-iteration advances agree for every worker (unequal chunks make
    iterations alternate slightly between workers); ``None`` while still in the transient."""
    n = len(starts) - 1
    for c in range(1, n // 3 + 1):
        adv = [starts[n - m * c] - starts[n - (m + 1) * c] for m in range(3)]
        scale = rtol * max(float(adv[0].max()), 1e-300)
        if all(float(np.abs(adv[m] - adv[0]).max()) <= scale for m in (1, 2)):
            return float(adv[0].mean()) / c
    return None


def _simulate(
    P, sizes, ready, bits, alpha, beta_u, transport, ahead, *, max_iterations=500, rtol=1e-11
):
    """Event simulation of the per-link schedule, iterated to its steady state.

    Each link serves its online messages in the order (iteration, bucket, step), one at a time,
    each taking ``alpha + units * beta_u``; message (bucket j, step s >= 1) of sender k can start
    only after message (j, s - 1) of sender k - 1 has arrived (it forwards that chunk), step 0
    only once bucket j is ready at worker k (``ready[j]`` after worker k started the iteration).
    Worker k starts the next iteration when its last message of this one has arrived.
    Cost O(iterations * B * P^2) Python steps: use ``method="formula"`` for sweeps.
    """
    B = len(sizes)
    units = [_message_units(int(n), P, bits, transport) for n in sizes]
    dur = [alpha + u * beta_u for u in units]
    starts = [np.zeros(P)]
    dist = None
    if transport == "superdense":
        work = np.array([alpha + u.sum(axis=0) * beta_u for u in units])  # (B, P)
        dist = _Distribution(work, ahead, starts)
    free = np.zeros(P)
    online_log: list = []
    prev = np.roll(np.arange(P), 1)  # sender k - 1
    period, steady, i = None, None, 0
    while True:
        for j in range(B):
            fin = starts[i] + ready[j]
            for s in range(2 * (P - 1)):
                e = np.maximum(free, fin if s == 0 else fin[prev])
                if dist is not None:
                    for k in range(P):
                        if e[k] > free[k]:  # a gap before this message: distribute in it
                            dist.run(k, free[k], e[k], i)
                        if s == 0 and dist.block[k] <= i * B + j:  # pairs not all there yet
                            e[k] = max(e[k], dist.run(k, e[k], math.inf, i, target=i * B + j))
                free = fin = e + dur[j][s]
                online_log.append((e[0], fin[0], j))
        starts.append(fin[prev])  # worker k: its last incoming message (from k - 1)
        if steady is not None:
            break  # one more iteration run, so that the steady one's trailing gap is filled
        period = _steady_period(starts, rtol)
        if period is not None or i + 1 >= max_iterations:
            steady = i
        i += 1
    t0, t1 = float(starts[steady][0]), float(starts[steady + 1][0])
    sched = [(a, b, "online", j) for a, b, j in online_log]
    if dist is not None:
        sched += [(a, b, "distribution", g % B) for k, a, b, g in dist.log if k == 0]
    sched = sorted(
        (float(max(a, t0) - t0), float(min(b, t1) - t0), kind, j)
        for a, b, kind, j in sched
        if b > t0 and a < t1
    )
    online_k = sum(x.sum(axis=0) for x in dur)
    dist_k = dist.work.sum(axis=0) if dist is not None else np.zeros(P)
    return period, online_k, dist_k, tuple(sched)


def _formula(P, sizes, ready, bits, alpha, beta_u, transport, ahead):
    """Closed form of the steady state; exact when every link carries the same messages
    (P divides every bucket size), else it charges each step its largest message."""
    units = [_message_units(int(n), P, bits, transport) for n in sizes]
    R = np.array([2 * (P - 1) * alpha + beta_u * u.max(axis=1).sum() for u in units])
    online_k = sum(2 * (P - 1) * alpha + beta_u * u.sum(axis=0) for u in units)
    if transport == "classical":
        e = 0.0
        for r, rj in zip(ready, R):
            e = max(r, e) + rj
        return e, online_k, np.zeros(P)
    D = np.array([alpha + beta_u * u.sum(axis=0).max() for u in units])
    dist_k = sum(alpha + beta_u * u.sum(axis=0) for u in units)
    e = 0.0
    if ahead == 0:
        # s_j = max(r_j, e_{j-1}, D_0 + .. + D_j + R_0 + .. + R_{j-1}): the link distributes
        # whenever it carries no online message, blocks in bucket order from the iteration's start
        for j, (r, rj) in enumerate(zip(ready, R)):
            e = max(r, e, D[: j + 1].sum() + R[:j].sum()) + rj
        return e, online_k, dist_k
    for r, rj in zip(ready, R):
        e = max(r, e) + rj
    return max(e, R.sum() + D.sum()), online_k, dist_k


def bucketed_iteration_time(
    compute: float,
    workers: int,
    d: int,
    bits: int,
    alpha: float,
    beta: float,
    *,
    buckets,
    transport: str = "classical",
    beta_qubit: float | None = None,
    backward_fraction: float | None = None,
    ready=None,
    ahead: int = 1,
    method: str = "simulate",
) -> BucketedIteration:
    """Steady-state iteration time with bucketed all-reduce overlapping the backward pass, for
    either transport under the same assumptions (the like-for-like model; compare
    :func:`iteration_time`, which overlaps nothing classically).

    Model (our reconstruction; the paper summary gives no iteration model). One iteration is
    ``compute`` seconds of forward + backward pass. The gradient is cut into B buckets (in the
    order they become ready, as PyTorch DDP does); bucket j is ready at ``ready[j]`` seconds
    after the iteration starts, by default at ``compute * (1 - phi) + (j + 1) * compute * phi / B``
    (evenly spaced over the backward pass, ``phi = backward_fraction``). Each bucket is all-reduced
    by the ring of book/01_bottleneck.ipynb as soon as it is ready and its messages' links are free: every
    directed link is a serial resource, a message of n units holds it ``alpha + n * beta_unit``
    seconds (``beta_unit = beta`` per bit classically, ``beta_qubit`` per qubit over superdense
    coding, ``ceil(k / 2)`` qubits for a k-bit message), messages of bucket j after those of
    bucket j - 1 on every link, and a forwarded chunk only after it has arrived. The next
    iteration starts when the last bucket's all-reduce has delivered its last message.

    Superdense: the Bell pairs bucket j consumes on a link are distributed over *that same link*
    (one qubit per pair) as one block of ``alpha + Q_j * beta_qubit`` link time (``Q_j``: the
    bucket's online qubits on that link), which must be complete before the bucket's first online
    message on the link. Blocks are sent whenever the link carries no online message (online
    messages preempt them; a preempted block resumes), in bucket order, from the start of the
    iteration ``ahead`` iterations earlier (``ahead=0``: only during the iteration that uses them,
    i.e. during its forward and backward pass; ``ahead=1``: also during the previous iteration,
    quantum memories holding pairs for one iteration).

    Steady state. ``method="simulate"`` runs the event simulation above until the per-worker
    start times repeat; ``method="formula"`` evaluates the closed form below, which is exact when
    P divides every bucket size (every link then carries the same messages; the tests check the
    two against each other) and otherwise charges every ring step its largest message (for
    ResNet-50 buckets 1e-6 to 1e-4 relative above the simulation). With ``R_j`` the ring time of
    bucket j, ``D_j = alpha + Q_j beta_qubit`` and ``e_j = max(ready[j], e_{j-1}) + R_j``
    (``e_{-1} = 0``):

    * classical: ``total = e_{B-1}``;
    * superdense, ``ahead >= 1``: ``total = max(e_{B-1}, sum_j (R_j + D_j))`` with the superdense
      ``R_j`` — the link must carry the online qubits *and* the distribution qubits of every
      iteration, which together equal the classical bits (plus one per odd-length message);
    * superdense, ``ahead = 0``: ``e_j = max(ready[j], e_{j-1}, D_0 + .. + D_j + R_0 + .. +
      R_{j-1}) + R_j``, whose last term is the same number: pairs never need to be kept longer
      than one iteration (the link's idle time before each bucket always suffices).

    Hence, with ``beta_qubit = beta`` and even messages, the superdense ring saves
    ``min(e_cl - e_q, idle_cl - B alpha)``: the shortening of the critical path by the halved
    messages (in compute-bound iterations only the tail after the last bucket), but never more
    than the link time the classical schedule leaves idle (at least the forward pass and the
    first bucket's backward). If the link is busy the whole iteration, nothing is saved.
    :func:`bucketed_best_ratio` gives the best case over all compute times.

    Parameters
    ----------
    compute : float >= 0
        Seconds of forward + backward computation per iteration.
    workers, d, bits, alpha, beta
        P >= 2 workers, d >= 1 words of ``bits`` bits, alpha >= 0 seconds per message,
        beta >= 0 seconds per bit.
    buckets : int in 1..d, or sequence of positive ints summing to d
        Number of (near-)equal buckets, or the bucket sizes in words in ready order.
    transport : "classical" | "superdense"
    beta_qubit : float >= 0, optional
        Seconds per qubit on a link (online and distribution); default ``beta``.
    backward_fraction : float in [0, 1], optional
        Share of ``compute`` in the backward pass (default :data:`BACKWARD_FRACTION` = 2/3);
        not with ``ready``.
    ready : sequence of B floats in [0, compute], non-decreasing, optional
        The buckets' ready times (seconds after the iteration starts).
    ahead : int >= 0
        How many iterations ahead the pairs may be distributed (superdense; ignored
        classically, where the result reports 0).
    method : "simulate" | "formula"

    Returns
    -------
    BucketedIteration

    Examples
    --------
    ResNet-50, 8 workers, 16-bit words, 10 Gbit/s links, 4 buckets: the ring needs 71.6 ms of
    link time per iteration, more than the 50 ms of compute. The superdense iteration is exactly
    that link time (online + distribution qubits = classical bits), and it saves what the
    classical link leaves idle: the forward pass and the first bucket's backward (25 ms).

    >>> d = MODEL_SIZES["ResNet-50"]
    >>> cl = bucketed_iteration_time(0.05, 8, d, 16, 5e-6, 1e-10, buckets=4)
    >>> sd = bucketed_iteration_time(0.05, 8, d, 16, 5e-6, 1e-10, buckets=4, transport="superdense")
    >>> round(cl.total * 1e3, 2), round(sd.total * 1e3, 2), round(sd.total / cl.total, 3)
    (96.84, 71.86, 0.742)
    >>> round((sd.online + sd.distribution) * 1e3, 2), round(cl.idle * 1e3, 2)
    (71.86, 25.0)
    """
    compute = check_float(compute, "compute", 0.0)
    P, d, bits, alpha, beta = _check_common(workers, d, bits, alpha, beta)
    transport = check_choice(transport, "transport", ("classical", "superdense"))
    method = check_choice(method, "method", _METHODS)
    ahead = check_int(ahead, "ahead", 0)
    if beta_qubit is not None:
        beta_qubit = check_float(beta_qubit, "beta_qubit", 0.0)
    sizes = _check_buckets(buckets, d)
    ready = _check_ready(ready, compute, len(sizes), backward_fraction)
    beta_u = beta if (transport == "classical" or beta_qubit is None) else beta_qubit
    args = (P, sizes, ready, bits, alpha, beta_u, transport, ahead)
    sched: tuple = ()
    if method == "simulate":
        total, online_k, dist_k, sched = _simulate(*args)
        if total is None:  # pragma: no cover - a periodic steady state is reached in few steps
            raise RuntimeError("the schedule did not reach a steady state")
    else:
        total, online_k, dist_k = _formula(*args)
    busy = online_k + dist_k
    k = int(np.argmax(busy))
    return BucketedIteration(
        transport=transport,
        compute=compute,
        buckets=len(sizes),
        ahead=ahead if transport == "superdense" else 0,
        total=float(total),
        tail=float(total - compute),
        online=float(online_k.max()),
        distribution=float(dist_k.max()),
        idle=max(0.0, float(total - busy[k])),
        method=method,
        ready=tuple(float(r) for r in ready),
        schedule=sched,
    )


def bucketed_best_ratio(buckets: int, backward_fraction: float | None = None) -> float:
    """Smallest superdense / classical ratio of :func:`bucketed_iteration_time` over all compute
    times, in the ideal case: B equal buckets ready at evenly spaced times over the backward pass,
    ``alpha = 0``, ``beta_qubit = beta`` and even messages (P divides the bucket sizes).

    With ``W`` the classical link time of one iteration, ``h = 1 - phi + phi / B`` the share of
    the compute before the first bucket is ready and ``x = compute / W``, the classical iteration
    takes ``(1 + h x) W`` while the link is the bottleneck and the superdense one
    ``max(1, x + 1/(2B), h x + 1/2) W``; the ratio is smallest at
    ``x* = min(1 - 1/(2B), 1/(2h))``::

        best ratio = 1 / (1 + min(h (1 - 1/(2B)), 1/2)).

    It is 2/3 (the non-overlapped model's best case) only when the classical link idles long
    enough (``h (1 - 1/(2B)) >= 1/2``, e.g. B = 1 or ``phi <= 1/2``); for B -> infinity it tends
    to ``1 / (2 - phi)`` (3/4 for ``phi = 2/3``).

    Examples
    --------
    >>> [round(bucketed_best_ratio(b), 4) for b in (1, 3, 8, 10**6)]
    [0.6667, 0.6835, 0.7191, 0.75]
    """
    B = check_int(buckets, "buckets", 1)
    phi = (
        BACKWARD_FRACTION
        if backward_fraction is None
        else check_float(backward_fraction, "backward_fraction", 0.0, 1.0)
    )
    h = 1.0 - phi + phi / B
    return 1.0 / (1.0 + min(h * (1.0 - 1.0 / (2 * B)), 0.5))


# ---------------------------------------------------------------------------------------------
# Cut-set lower bound for any all-reduce protocol
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CutSetBound:
    """What the cut around one worker forces on *any* all-reduce protocol, next to what the rings
    and VGA actually use per worker (counts per worker and per all-reduce of d words of b bits).

    ``information``: bits of information that must enter each worker, and also leave it
    (``d b`` for exact computation). ``qubits``: the fewest qubits that can carry it in (and out),
    with any pre-shared entanglement, ``information / 2`` (whole qubits: its ceiling).
    ``classical_bits``: the fewest classical bits, ``information`` (entanglement does not help
    classical messages). A worker receiving q qubits and c bits needs ``2 q + c >= information``
    (:meth:`allows`). ``superdense_ring`` / ``classical_ring``: qubits / bits the ring delivers to
    its busiest worker (over its one incoming link). ``vga_bits_in`` / ``vga_bits_out``: classical
    bits a worker receives / broadcasts in VGA's GHZ sum (``(P-1) d b`` / ``d b``), which sends no
    online qubit at all.

    Attributes
    ----------
    workers, d, bits : int
    error : float
        The error allowed (0: exact computation).
    information, qubits, classical_bits : float
        Bits that must cross the cut; qubits and classical bits that can carry them.
    superdense_ring, classical_ring, vga_bits_in, vga_bits_out : int
    superdense_ratio, classical_ratio : float
        See the properties.

    Examples
    --------
    >>> from qring_edu import allreduce_cut_bound
    >>> allreduce_cut_bound(8, 8000, 16)
    CutSetBound(P=8, d=8000, bits=16, error=0, information=128000, qubits=64000, superdense_ring=112000, classical_ring=224000, vga_bits_in=896000)
    """

    workers: int
    d: int
    bits: int
    error: float
    information: float
    qubits: float
    classical_bits: float
    superdense_ring: int
    classical_ring: int
    vga_bits_in: int
    vga_bits_out: int

    @property
    def superdense_ratio(self) -> float:
        """Superdense ring's qubits into the busiest worker / the cut-set bound (2(P-1)/P if P | d,
        b even)."""
        return self.superdense_ring / self.qubits if self.qubits else math.inf

    @property
    def classical_ratio(self) -> float:
        """Classical ring's bits into the busiest worker / the classical cut-set bound."""
        return self.classical_ring / self.classical_bits if self.classical_bits else math.inf

    def allows(self, qubits: float = 0, bits: float = 0) -> bool:
        """Whether a worker receiving ``qubits`` qubits and ``bits`` classical bits in total can
        meet the bound: ``2 qubits + bits >= information``."""
        q = check_float(qubits, "qubits", 0.0)
        c = check_float(bits, "bits", 0.0)
        return 2 * q + c >= self.information * (1 - 1e-12)

    def __repr__(self) -> str:
        return (
            f"CutSetBound(P={self.workers}, d={self.d}, bits={self.bits}, "
            f"error={self.error:.3g}, information={self.information:.6g}, "
            f"qubits={self.qubits:.6g}, superdense_ring={self.superdense_ring}, "
            f"classical_ring={self.classical_ring}, vga_bits_in={self.vga_bits_in})"
        )


def allreduce_cut_bound(workers: int, d: int, bits: int, *, error: float = 0.0) -> CutSetBound:
    """Cut-set lower bound on the communication into (and out of) each worker of *any* all-reduce
    protocol, classical or quantum.

    Setting: P workers; worker w holds ``x_w``, d words of b bits; every worker must output the
    word-wise sum ``S = sum_w x_w mod 2**b``. The protocol may use any number of rounds, any
    topology, quantum or classical messages, and any entangled state shared in advance (not
    depending on the inputs). Its message sizes are fixed in advance (worst case over inputs).
    Evaluate it on independent uniform inputs (the hard distribution; the bound then holds for
    every protocol that is correct on all inputs).

    Into worker w: ``S`` and ``x_w`` determine ``Y = sum_{v != w} x_v``, which is uniform and
    independent of ``x_w``, so at the end ``I(X_rest ; worker w's systems) >= H(Y) = d b``
    (with error probability ``eps`` per worker, Fano gives ``(1 - eps) d b - h(eps)``).
    Initially that mutual information is 0; the others' local operations do not change the joint
    state of ``X_rest`` and w's systems (no signalling); w's own operations, including sending
    systems away, cannot increase it (data processing); receiving a q-qubit system Q raises it by
    ``I(X_rest ; Q | B) <= 2 q`` (``|S(Q|.)| <= q``) and a c-bit classical message by at most c.
    Hence ``2 q_in + c_in >= d b``: at least ``d b / 2`` qubits or ``d b`` bits into every worker
    (the entanglement-assisted Holevo bound, applied to the whole interaction; cf. Cleve, van Dam,
    Nielsen & Tapp 1998; Nayak & Salzman 2006). Out of worker w: the others together must learn
    S, which with ``X_rest`` determines ``x_w``: the same bound for what leaves w.

    On the ring every worker has one incoming link, so the bound is ``d b / 2`` qubits per
    directed link. The superdense ring sends ``(P-1)/P d b`` qubits into each worker (P | d, b
    even), ``2 (P-1)/P`` times the bound (1 at P = 2, towards 2 for large P); the classical ring
    sends ``2 (P-1)/P d b`` bits, the same multiple of the classical bound ``d b``. This bound
    does not decide whether some protocol beats the superdense ring for P > 2.

    Parameters
    ----------
    workers : int >= 2
    d : int >= 1
    bits : int in 2..32
    error : float in [0, 1)
        Allowed probability that a worker's output is wrong (0: exact).

    Returns
    -------
    CutSetBound

    Examples
    --------
    >>> cut = allreduce_cut_bound(8, 8000, 16)
    >>> cut.information, cut.qubits, cut.superdense_ring, cut.classical_ring
    (128000.0, 64000.0, 112000, 224000)
    >>> cut.superdense_ratio, cut.classical_ratio, cut.allows(qubits=63999)
    (1.75, 1.75, False)
    >>> cut.vga_bits_in, cut.allows(bits=cut.vga_bits_in)
    (896000, True)
    """
    P, d, bits = (
        check_int(workers, "P (number of workers)", 2),
        check_int(d, "d", 1),
        check_bits(bits),
    )
    error = check_float(error, "error", 0.0, 1.0, hi_open=True)
    n = d * bits
    h = 0.0 if error == 0.0 else -(error * math.log2(error) + (1 - error) * math.log2(1 - error))
    info = max(0.0, (1 - error) * n - h)
    sd_in = int(_message_units(d, P, bits, "superdense").sum(axis=0).max())
    cl_in = int(_message_units(d, P, bits, "classical").sum(axis=0).max())
    return CutSetBound(
        workers=P,
        d=d,
        bits=bits,
        error=error,
        information=float(info),
        qubits=info / 2,
        classical_bits=float(info),
        superdense_ring=sd_in,
        classical_ring=cl_in,
        vga_bits_in=(P - 1) * n,
        vga_bits_out=n,
    )
