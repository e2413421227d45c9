"""α–β time models for gradient synchronisation (book/01_bottleneck.ipynb, book/03_superdense_ring.ipynb).

A message of n units over one link takes ``alpha + n * beta`` seconds (Hockney's model): ``alpha``
per message, ``beta`` per unit (a bit, or a qubit on a quantum link). ``workers`` P >= 2; sizes
are per worker, ``d`` >= 1 entries of ``bits`` in 2..32; ``alpha``, ``beta`` >= 0. Closed forms,
O(1) in P and d (only :func:`bucketed_iteration_time`'s simulation walks the messages).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import field
from itertools import islice

import numpy as np

from ._result import result
from ._validate import check_bits, check_choice, check_float, check_int
from .ring import MAX_D, message_bits

__all__ = [
    "ring_time",
    "parameter_server_time",
    "allreduce_lower_bound_bits",
    "link_units",
    "IterationTime",
    "iteration_time",
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
TRANSPORTS = ("classical", "superdense")
#: Largest event simulation (messages per simulated iteration, 2 (P - 1) P B) and bucket count.
MAX_SIMULATED_MESSAGES, MAX_BUCKETS = 10**6, 10**5


def _check_ring(workers, d, bits) -> tuple[int, int, int]:
    return (
        check_int(workers, "P (number of workers)", 2),
        check_int(d, "d", 1, MAX_D),
        check_bits(bits),
    )


def _check_common(workers, d, bits, alpha, beta):
    return (
        *_check_ring(workers, d, bits),
        check_float(alpha, "alpha", 0.0),
        check_float(beta, "beta", 0.0),
    )


def _units(words: int, bits: int, transport: str) -> int:
    """Units of one message of ``words`` words: bits, or ``ceil(words bits / 2)`` qubits."""
    n = words * bits
    return (n + 1) // 2 if transport == "superdense" else n


def link_units(workers: int, d: int, bits: int, *, transport: str = "classical") -> int:
    """Units the busiest directed link carries in one ring all-reduce of ``d`` words of ``bits``
    bits: classical bits, or qubits (= Bell pairs consumed) for ``transport="superdense"``.

    Chunk c of ``n_c`` words costs ``u_c = n_c b`` bits or ``ceil(n_c b / 2)`` qubits; link k
    carries ``2 U - u_{k+1} - u_{k+2}`` (``U = sum_c u_c``), largest for link ``(P - 3) mod P``
    (larger chunks first): ``2 (P-1) ceil(d b / (2P))`` qubits when P divides d. O(1) memory.

    Examples
    --------
    >>> link_units(4, 1000, 16), link_units(4, 1000, 16, transport="superdense")
    (24000, 12000)
    >>> link_units(10**9, 10**12, 16)                   # 2 (P - 1) (d / P) b, no array of size P
    31999999968000
    """
    P, d, bits = _check_ring(workers, d, bits)
    transport = check_choice(transport, "transport", TRANSPORTS)
    q, r = divmod(d, P)  # chunks 0 .. r-1 have q + 1 words, the others q
    big, small = _units(q + 1, bits, transport), _units(q, bits, transport)
    # r < P, so the last chunk is a small one; the one before it is big when r = P - 1.
    return 2 * (r * big + (P - r) * small) - small - (big if r == P - 1 else small)


def ring_time(
    workers: int, d: int, bits: int, alpha: float, beta: float, *, transport: str = "classical"
) -> float:
    """Seconds for one ring all-reduce: ``2 (P-1) (alpha + n beta)``, with ``n`` the largest
    chunk message: ``ceil(d/P) * bits`` bits (classical) or ``ceil(ceil(d/P) * bits / 2)``
    qubits (superdense).

    Examples
    --------
    6 steps of 1 µs plus 4000 bits or 2000 qubits at 1 ns each:

    >>> round(ring_time(4, 1000, 16, 1e-6, 1e-9), 9)
    3e-05
    >>> round(ring_time(4, 1000, 16, 1e-6, 1e-9, transport="superdense"), 9)
    1.8e-05
    """
    P, d, bits, alpha, beta = _check_common(workers, d, bits, alpha, beta)
    transport = check_choice(transport, "transport", TRANSPORTS)
    return 2 * (P - 1) * (alpha + _units(-(-d // P), bits, transport) * beta)


def parameter_server_time(workers: int, d: int, bits: int, alpha: float, beta: float) -> float:
    """Seconds for a single parameter server: it receives P vectors and sends P back over its own
    link, ``2 (alpha + P d bits beta)`` (``alpha`` per message, ``beta`` per bit).

    Examples
    --------
    >>> round(parameter_server_time(4, 1000, 16, 1e-6, 1e-9), 9)   # the ring: 3e-05
    0.00013
    """
    P, d, bits, alpha, beta = _check_common(workers, d, bits, alpha, beta)
    return 2 * (alpha + P * d * bits * beta)


def allreduce_lower_bound_bits(workers: int, d: int, bits: int) -> float:
    """Bits each worker must send in any all-reduce: ``2 (P-1)/P * d * bits`` (Patarasuk & Yuan),
    the bandwidth lower bound of classical all-reduce, which the ring meets when P divides d.

    Examples
    --------
    >>> allreduce_lower_bound_bits(4, 1000, 16)
    24000.0
    """
    P, d, bits = _check_ring(workers, d, bits)
    return 2 * (P - 1) / P * d * bits


@result
class IterationTime:
    """One training iteration of the non-overlapped model (:func:`iteration_time`), seconds:
    ``total = max(compute, distribution) + ring`` for the quantum ring (pairs are distributed
    during the compute), ``compute + ring`` classically.

    Examples
    --------
    >>> iteration_time(1.12e-4, 8, 8000, 16, 0.0, 1e-9)
    IterationTime(transport='classical', compute=0.000112, distribution=0, ring=0.000224, total=0.000336)
    """

    transport: str
    compute: float
    distribution: float
    ring: float
    total: float


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
    """Non-overlapped iteration time (book/03_superdense_ring.ipynb), seconds.

    classical: ``compute + ring_time(classical, beta)``; superdense: ``max(compute,
    distribution) + ring_time(superdense, beta_qubit)``, ``distribution = link_units(P, d, bits,
    "superdense") * beta_qubit`` (one half of each pair the busiest link consumes, sent during
    the compute). ``compute`` >= 0; ``beta_qubit`` (superdense only) defaults to ``beta``. The
    classical ring overlaps nothing here; the like-for-like model is
    :func:`bucketed_iteration_time`.

    Examples
    --------
    The best case: the compute lasts exactly as long as the distribution (112 µs here).

    >>> cl = iteration_time(1.12e-4, 8, 8000, 16, 0.0, 1e-9)
    >>> sd = iteration_time(1.12e-4, 8, 8000, 16, 0.0, 1e-9, transport="superdense")
    >>> round(sd.distribution, 7), round(sd.total / cl.total, 4)
    (0.000112, 0.6667)
    """
    compute = check_float(compute, "compute", 0.0)
    transport = check_choice(transport, "transport", TRANSPORTS)
    bq = _beta_qubit(beta_qubit, transport, beta)
    if transport == "classical":
        ring = ring_time(workers, d, bits, alpha, beta)
        return IterationTime(transport, compute, 0.0, ring, compute + ring)
    ring = ring_time(workers, d, bits, alpha, bq, transport="superdense")
    distribution = link_units(workers, d, bits, transport="superdense") * bq
    return IterationTime(transport, compute, distribution, ring, max(compute, distribution) + ring)


def _beta_qubit(beta_qubit, transport: str, beta):
    if beta_qubit is None:
        return beta
    if transport != "superdense":
        raise ValueError("beta_qubit applies only to transport='superdense' (a qubit's link time)")
    return check_float(beta_qubit, "beta_qubit", 0.0)


#: Default share of the compute spent in the backward pass (backward ≈ 2 × forward in FLOPs,
#: the usual rule of thumb; Kaplan et al. 2020). Gradients become ready only during it.
BACKWARD_FRACTION = 2 / 3

_METHODS = ("simulate", "formula")


@result
class BucketedIteration:
    """Steady-state iteration of :func:`bucketed_iteration_time`, seconds.

    ``total``: the period; ``tail = total - compute``; ``online`` / ``distribution``: the
    busiest link's time per iteration for the ring's messages / for one half of every pair (0
    classically); ``idle = total - online - distribution``; ``ready``: the buckets' ready times;
    ``schedule`` (``method="simulate"``): link 0's busy intervals in one steady iteration,
    ``(start, end, kind, bucket)``, kind ``"online"`` or ``"distribution"``, from its start.

    Examples
    --------
    >>> bucketed_iteration_time(1.12e-4, 8, 8000, 16, 0.0, 1e-9, buckets=4)
    BucketedIteration(transport='classical', buckets=4, ahead=0, compute=0.000112, total=0.00028, tail=0.000168, online=0.000224, distribution=0, idle=5.6e-05)
    """

    transport: str
    buckets: int
    ahead: int
    compute: float
    total: float
    tail: float
    online: float
    distribution: float
    idle: float
    method: str = field(repr=False)
    ready: tuple = field(default=(), repr=False, compare=False)
    schedule: tuple = field(default=(), repr=False, compare=False)


def _check_buckets(buckets, d: int) -> list[int]:
    if isinstance(buckets, numbers.Integral) and not isinstance(buckets, bool):
        B = check_int(buckets, "buckets", 1, min(d, MAX_BUCKETS))
        return [d // B + (j < d % B) for j in range(B)]  # near-equal, larger first
    if isinstance(buckets, (str, bytes, bool)) or not hasattr(buckets, "__iter__"):
        raise TypeError(f"buckets must be a number or a sequence of sizes, got {buckets!r}")
    sizes = [check_int(n, "buckets (each bucket size)", 1, d) for n in islice(buckets, d + 1)]
    if not sizes or sum(sizes) != d:
        raise ValueError(f"buckets (a sequence of sizes) must sum to d = {d}, got {sum(sizes)}")
    return sizes


def _phi(backward_fraction) -> float:
    if backward_fraction is None:
        return BACKWARD_FRACTION
    return check_float(backward_fraction, "backward_fraction", 0.0, 1.0)


def _check_ready(ready, compute: float, B: int, backward_fraction) -> list[float]:
    if ready is None:
        phi = _phi(backward_fraction)
        return [compute * (1.0 - phi) + compute * phi * (j + 1) / B for j in range(B)]
    if backward_fraction is not None:
        raise ValueError("give either ready or backward_fraction, not both")
    if isinstance(ready, (str, bytes)) or not hasattr(ready, "__iter__"):
        raise TypeError(f"ready must be a sequence of {B} times in seconds, got {ready!r}")
    times = [check_float(t, "ready (each ready time)", 0.0, compute) for t in ready]
    if len(times) != B:
        raise ValueError(f"ready must give one time per bucket ({B}), got {len(times)}")
    if any(b < a for a, b in zip(times, times[1:])):
        raise ValueError("ready must be non-decreasing (buckets are all-reduced in ready order)")
    return times


class _Distribution:
    """Pair distribution on every link: block (iteration i, bucket j) of link k costs
    ``work[j, k]`` of link time, may start with iteration ``i - ahead`` at worker k, and runs
    while the link carries no online message (preemptive-resume; alpha paid once)."""

    def __init__(self, work: np.ndarray, ahead: int, starts: list):
        self.work, self.ahead, self.starts = work, ahead, starts  # work: (B, P)
        self.B, self.P = work.shape
        self.block = [0] * self.P  # next block (global index i * B + j) per link
        self.left = [float(w) for w in work[0]]  # link time left of that block
        self.log: list = []  # (link, start, end, global block)

    def run(self, k: int, t: float, until: float, current: int, target: int | None = None) -> float:
        """Distribute on link k from time t until ``until`` or, with ``target``, until block
        ``target`` is complete. Returns the stop time."""
        stop = math.inf if target is not None else until
        while target is None or self.block[k] <= target:
            g = self.block[k]
            i = g // self.B - self.ahead
            if i > current:  # released only with an iteration not begun yet
                return t
            t = max(t, 0.0 if i < 0 else float(self.starts[i][k]))
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
    """The period once the per-worker start times repeat: the smallest cycle c whose last three
    c-iteration advances agree for every worker; ``None`` while still in the transient."""
    n = len(starts) - 1
    for c in range(1, n // 3 + 1):
        adv = [starts[n - m * c] - starts[n - (m + 1) * c] for m in range(3)]
        scale = rtol * max(float(adv[0].max()), 1e-300)
        if all(float(np.abs(adv[m] - adv[0]).max()) <= scale for m in (1, 2)):
            return float(adv[0].mean()) / c
    return None


def _simulate(P, sizes, ready, compute, bits, alpha, beta_u, transport, ahead):
    """Event simulation of :func:`bucketed_iteration_time`'s model to its steady state (at most
    500 iterations): ``(period, schedule)``; each link serves its messages in (iteration,
    bucket, step) order."""
    B = len(sizes)
    units = [message_bits(P, n, bits).T for n in sizes]  # (2(P-1), P): step s, sender k
    starts, dist = [np.zeros(P)], None
    if transport == "superdense":
        units = [(u + 1) // 2 for u in units]
        work = np.array([alpha + u.sum(axis=0) * beta_u for u in units])
        dist = _Distribution(work, ahead, starts)
    dur = [alpha + u * beta_u for u in units]
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
        starts.append(np.maximum(fin[prev], starts[i] + compute))
        if steady is not None:
            break  # one more iteration run, so that the steady one's trailing gap is filled
        period = _steady_period(starts, 1e-11)
        if period is not None or i + 1 >= 500:
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
    return period, tuple(sched)


def _formula(P, sizes, ready, compute, bits, alpha, beta_u, transport, ahead, D) -> float:
    """Closed form of the steady state (see :func:`bucketed_iteration_time`); ``D``: the
    distribution blocks' link times (zeros classically)."""
    R = [2 * (P - 1) * (alpha + beta_u * _units(-(-n // P), bits, transport)) for n in sizes]
    e = before = 0.0  # before: D_0 + .. + D_j + R_0 + .. + R_{j-1}, the link's work up to j
    for r, rj, dj in zip(ready, R, D):
        before += dj
        e = max(r, e, before if ahead == 0 else 0.0) + rj
        before += rj
    return max(e, before, compute)


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
    ahead: int | None = None,
    method: str = "simulate",
) -> BucketedIteration:
    """Steady-state iteration time with bucketed all-reduce overlapping the backward pass, for
    either transport under the same assumptions (book/03_superdense_ring.ipynb; our model).

    Arguments as :func:`iteration_time`; ``buckets``: a number in 1..d of near-equal buckets,
    or their sizes, in ready order. Bucket j is ready at ``ready[j]`` (B non-decreasing times in
    [0, compute]), by default ``compute (1 - phi) + (j + 1) compute phi / B`` (``phi =
    backward_fraction`` in [0, 1], default 2/3), and is all-reduced as soon as its links are
    free (a message of n units holds its link ``alpha + n beta_unit``; bucket order; a chunk
    forwarded after it arrived). Superdense: bucket j's pairs cross each link as one block of
    ``D_j = alpha + Q_j beta_qubit`` (``Q_j``: its online qubits there) while the link carries
    no online message, before the bucket's first one, from ``ahead`` >= 0 iterations earlier
    (default 1; superdense only).

    ``method="simulate"``: the event simulation to its steady state (2 (P - 1) P B messages per
    iteration, at most ``MAX_SIMULATED_MESSAGES``); ``"formula"``: the closed form, exact when P
    divides every bucket size. With ``R_j`` bucket j's ring time and ``e_j = max(ready[j],
    e_{j-1}) + R_j``: classical ``total = e_{B-1}``; superdense, ``ahead >= 1``:
    ``max(e_{B-1}, sum_j (R_j + D_j))``; ``ahead = 0``: ``e_j = max(ready[j], e_{j-1}, D_0 + ..
    + D_j + R_0 + .. + R_{j-1}) + R_j``; always at least ``compute``.

    Examples
    --------
    ResNet-50, 8 workers, 10 Gbit/s links, 4 buckets: 71.6 ms of link time per iteration, more
    than the 50 ms of compute; the superdense ring saves what the classical link leaves idle.

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
    transport = check_choice(transport, "transport", TRANSPORTS)
    method = check_choice(method, "method", _METHODS)
    if ahead is not None and transport != "superdense":
        raise ValueError("ahead applies only to transport='superdense' (pair distribution)")
    ahead = 1 if ahead is None else check_int(ahead, "ahead", 0)
    beta_u = _beta_qubit(beta_qubit, transport, beta)
    sizes = _check_buckets(buckets, d)
    ready = _check_ready(ready, compute, len(sizes), backward_fraction)
    messages = 2 * (P - 1) * P * len(sizes)
    if method == "simulate" and messages > MAX_SIMULATED_MESSAGES:
        raise ValueError(
            f"workers * buckets too large for method='simulate': 2 (P-1) P B = {messages:,} "
            f"messages per iteration (at most {MAX_SIMULATED_MESSAGES:,}); use method='formula'"
        )
    # Link (P - 3) mod P is the busiest for every bucket (see link_units).
    units = [link_units(P, n, bits, transport=transport) for n in sizes]
    online = sum(2 * (P - 1) * alpha + beta_u * u for u in units)
    D = [alpha + beta_u * u if transport == "superdense" else 0.0 for u in units]
    if not math.isfinite(compute + max(ready) + online + sum(D)):
        raise ValueError("compute, alpha, beta, beta_qubit: the iteration time overflows")
    args = (P, sizes, ready, compute, bits, alpha, beta_u, transport, ahead)
    schedule: tuple = ()
    if method == "simulate":
        total, schedule = _simulate(*args)
        if total is None:
            raise ValueError(
                f"method='simulate' found no steady state in 500 iterations for workers = {P}, "
                f"buckets = {len(sizes)}; use method='formula'"
            )
    else:
        total = _formula(*args, D)
    dist = sum(D)
    return BucketedIteration(
        transport=transport,
        buckets=len(sizes),
        ahead=ahead if transport == "superdense" else 0,
        compute=compute,
        total=float(total),
        tail=float(total - compute),
        online=float(online),
        distribution=float(dist),
        idle=max(0.0, float(total - online - dist)),
        method=method,
        ready=tuple(float(r) for r in ready),
        schedule=schedule,
    )


def bucketed_best_ratio(buckets: int, backward_fraction: float | None = None) -> float:
    """Smallest superdense / classical ratio of :func:`bucketed_iteration_time` over all compute
    times, in the ideal case: B equal buckets ready evenly over the backward pass, ``alpha = 0``,
    ``beta_qubit = beta``, even messages.

    With ``W`` the classical link time of one iteration, ``h = 1 - phi + phi / B`` the share of
    the compute before the first bucket is ready and ``x = compute / W``, the classical iteration
    takes ``(1 + h x) W`` while the link is the bottleneck and the superdense one
    ``max(1, x + 1/(2B), h x + 1/2) W``; the smallest ratio, at ``x* = min(1 - 1/(2B), 1/(2h))``,
    is ``1 / (1 + min(h (1 - 1/(2B)), 1/2))``: 2/3 (the non-overlapped best case) only when the
    classical link idles long enough, ``1 / (2 - phi)`` for B -> infinity.

    Examples
    --------
    >>> [round(bucketed_best_ratio(b), 4) for b in (1, 3, 8, 10**6)]
    [0.6667, 0.6835, 0.7191, 0.75]
    """
    B, phi = check_int(buckets, "buckets", 1), _phi(backward_fraction)
    h = 1.0 - phi + phi / B
    return 1.0 / (1.0 + min(h * (1.0 - 1.0 / (2 * B)), 0.5))


@result
class CutSetBound:
    """The cut around one worker (:func:`allreduce_cut_bound`) next to what the rings and VGA use.

    ``information``: bits that must enter (and leave) each worker; ``qubits`` (= information / 2)
    and ``classical_bits`` (= information): the fewest that carry them in (:meth:`allows`);
    ``superdense_ring`` / ``classical_ring``: into the ring's busiest worker; ``vga_bits_in`` /
    ``vga_bits_out``: bits a worker receives / broadcasts in VGA (``(P-1) d b`` / ``d b``).

    Examples
    --------
    >>> allreduce_cut_bound(8, 8000, 16)
    CutSetBound(workers=8, d=8000, bits=16, error=0, information=1.28e+05, qubits=6.4e+04, superdense_ring=112000, classical_ring=224000, vga_bits_in=896000)
    """

    workers: int
    d: int
    bits: int
    error: float
    information: float
    qubits: float
    classical_bits: float = field(repr=False)
    superdense_ring: int = 0
    classical_ring: int = 0
    vga_bits_in: int = 0
    vga_bits_out: int = field(default=0, repr=False)

    @property
    def superdense_ratio(self) -> float:
        """Superdense ring's qubits into the busiest worker / the bound (2(P-1)/P if P | d)."""
        return self.superdense_ring / self.qubits if self.qubits else math.inf

    @property
    def classical_ratio(self) -> float:
        """Classical ring's bits into the busiest worker / the classical bound."""
        return self.classical_ring / self.classical_bits if self.classical_bits else math.inf

    def allows(self, qubits: float = 0, bits: float = 0) -> bool:
        """Whether ``qubits`` qubits and ``bits`` classical bits into a worker can meet the bound:
        ``2 qubits + bits >= information``."""
        q = check_float(qubits, "qubits", 0.0)
        c = check_float(bits, "bits", 0.0)
        return 2 * q + c >= self.information * (1 - 1e-12)


def allreduce_cut_bound(workers: int, d: int, bits: int, *, error: float = 0.0) -> CutSetBound:
    """Cut-set lower bound on the communication into (and out of) each worker of *any* all-reduce
    protocol, classical or quantum (theorem and proof: book/02_holevo.ipynb).

    P workers each hold d words of b bits and must output the word-wise sum mod ``2**b``; any
    rounds, topology, message kinds (sizes fixed in advance) and input-independent pre-shared
    entanglement. A worker receiving q qubits and c bits needs ``2 q + c >= d b``, or
    ``(1 - eps) d b - h(eps)`` with error probability ``eps`` per worker (Fano); the same for
    what leaves it (the entanglement-assisted Holevo bound on the whole interaction; cf. Cleve,
    van Dam, Nielsen & Tapp 1998; Nayak & Salzman 2006). The superdense ring sends ``(P-1)/P d
    b`` qubits into each worker (P | d, b even), ``2 (P-1)/P`` times the bound; the bound does
    not decide whether some protocol beats the ring for P > 2.

    ``workers`` >= 2, ``d`` >= 1, ``bits`` in 2..32, ``error`` in [0, 1) (0: exact). O(1) memory.

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
    P, d, bits = _check_ring(workers, d, bits)
    error = check_float(error, "error", 0.0, 1.0, hi_open=True)
    n = d * bits
    h = 0.0 if error == 0.0 else -(error * math.log2(error) + (1 - error) * math.log2(1 - error))
    info = max(0.0, (1 - error) * n - h)
    return CutSetBound(
        workers=P,
        d=d,
        bits=bits,
        error=error,
        information=float(info),
        qubits=info / 2,
        classical_bits=float(info),
        superdense_ring=link_units(P, d, bits, transport="superdense"),
        classical_ring=link_units(P, d, bits),
        vga_bits_in=(P - 1) * n,
        vga_bits_out=n,
    )
