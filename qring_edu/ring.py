"""Ring all-reduce over any transport (book/01_bottleneck.ipynb, book/03_superdense_ring.ipynb).

P workers sit on a ring; worker k sends only to worker (k+1) mod P, its vector of d words cut
into P chunks (:func:`chunk_bounds`). Reduce-scatter (P-1 steps: the receiver adds the chunk),
then all-gather (P-1 steps: the receiver overwrites its copy), :func:`sent_chunk`. When P divides
d each directed link carries 2(P-1)(d/P)·b bits, the bandwidth-optimal amount (Patarasuk & Yuan
2009). :func:`ring_pass` is the loop, written once: :func:`ring_allreduce` runs it for all P
workers in one process, the DDP hook (:mod:`qring_edu.ddp`) for its own rank. How a message
crosses its link is the transport's business (:mod:`qring_edu.transports`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import field
from typing import NamedTuple

import numpy as np

from ._result import result
from ._validate import as_numeric_array, check_bits, check_float, check_int, seed_sequence
from .fixedpoint import FixedPoint, fixed_point, to_signed, to_words, word_mask
from .ledger import Ledger
from .protection import ProtectionReport
from .protection import protection as protection_of
from .transports import Protected, as_transport

__all__ = [
    "RingStep",
    "ring_schedule",
    "sent_chunk",
    "chunk_bounds",
    "message_bits",
    "ring_pass",
    "ring_allreduce",
    "AllReduceResult",
    "net_online_factors",
    "net_online_factor",
]


class RingStep(NamedTuple):
    """One message of the schedule: at ``step`` (0 .. 2P-3) of ``phase`` (reduce-scatter or
    all-gather), ``sender`` sends ``chunk`` to ``receiver = (sender + 1) % P``.

    Examples
    --------
    >>> ring_schedule(3)[0]
    RingStep(phase='reduce-scatter', step=0, sender=0, receiver=1, chunk=0)
    """

    phase: str
    step: int
    sender: int
    receiver: int
    chunk: int


def sent_chunk(sender: int, step: int, workers: int) -> int:
    """The chunk ``sender`` (k, 0 <= k < P) sends at global ``step`` (s, 0 <= s < 2(P - 1)) of
    the ring of ``workers`` (P): ``(k - s) mod P`` in reduce-scatter, ``(k + 1 - (s - P + 1))
    mod P`` in all-gather.

    Examples
    --------
    >>> [sent_chunk(k, 0, 3) for k in range(3)], [sent_chunk(k, 2, 3) for k in range(3)]
    ([0, 1, 2], [1, 2, 0])
    """
    workers = check_int(workers, "workers", 2, 1 << 16)
    sender = check_int(sender, "sender", 0, workers - 1)
    step = check_int(step, "step", 0, 2 * workers - 3)
    if step < workers - 1:
        return (sender - step) % workers
    return (sender + 1 - (step - workers + 1)) % workers


#: Largest ring (workers) and vector (d entries) the functions of this module accept.
MAX_WORKERS, MAX_D = 1 << 10, 1 << 50


def ring_schedule(workers: int) -> list[RingStep]:
    """Every message of the ring all-reduce of ``workers`` workers, in step order.

    Examples
    --------
    >>> steps = ring_schedule(3)
    >>> len(steps)                                       # 2(P - 1) steps of P messages
    12
    >>> [(s.phase, s.step, s.sender, s.chunk) for s in steps[:3]]
    [('reduce-scatter', 0, 0, 0), ('reduce-scatter', 0, 1, 1), ('reduce-scatter', 0, 2, 2)]
    """
    P = check_int(workers, "workers (the schedule lists 2 P (P - 1) messages)", 2, 256)
    return [
        RingStep(
            "reduce-scatter" if s < P - 1 else "all-gather", s, k, (k + 1) % P, sent_chunk(k, s, P)
        )
        for s in range(2 * (P - 1))
        for k in range(P)
    ]


def chunk_bounds(d: int, workers: int) -> np.ndarray:
    """Offsets of the P chunks of a length-d vector, shape (P + 1,): chunk c is
    ``[offsets[c], offsets[c+1])``. The first ``d mod P`` chunks are one word longer.

    Examples
    --------
    >>> chunk_bounds(10, 4)                              # chunk sizes 3, 3, 2, 2
    array([ 0,  3,  6,  8, 10])
    >>> chunk_bounds(2, 3)                               # d < P: the last chunk is empty
    array([0, 1, 2, 2])
    """
    d = check_int(d, "d", 1, MAX_D)
    workers = check_int(workers, "workers", 2, MAX_WORKERS)
    sizes = np.full(workers, d // workers, dtype=np.int64)
    sizes[: d % workers] += 1
    return np.concatenate([[0], np.cumsum(sizes)])


def message_bits(workers: int, d: int, bits: int) -> np.ndarray:
    """Size in bits of every message of the ring, shape ``(P, 2(P-1))``: entry ``[k, s]`` is
    what worker k sends at step s. Row sums are the classical bits per link,
    ``((m + 1) // 2).sum(axis=1)`` the superdense ring's online qubits per link.

    Examples
    --------
    >>> message_bits(3, 7, 5)          # chunk sizes 3, 2, 2 words of 5 bits
    array([[15, 10, 10, 15],
           [10, 15, 10, 10],
           [10, 10, 15, 10]])
    """
    P = check_int(workers, "workers", 2, MAX_WORKERS)
    sizes = np.diff(chunk_bounds(d, P))
    bits = check_bits(bits)
    chunks = np.array([[sent_chunk(k, s, P) for s in range(2 * (P - 1))] for k in range(P)])
    return sizes[chunks] * bits


Exchange = Callable[[int, dict], dict]


def ring_pass(
    rows: Sequence[np.ndarray], ranks: Sequence[int], workers: int, bits: int, exchange: Exchange
) -> None:
    """The ring all-reduce, as the workers ``ranks`` see it: the one ring loop of the library.

    ``rows[i]``: the words (1-D unsigned array, ``d`` entries) of worker ``ranks[i]``, turned in
    place into that worker's copy of the sum mod ``2**bits``. At every step the chunks sent go to
    ``exchange(step, sends)`` (rank -> words for rank+1), which returns what each worker receives
    from rank-1 (rank -> words), added (reduce-scatter) or copied (all-gather) into its chunk.

    Examples
    --------
    Two workers in one process, a perfect wire:

    >>> rows = [np.array([1, 2], dtype=np.uint32), np.array([10, 20], dtype=np.uint32)]
    >>> wire = lambda step, sends: {k: sends[(k - 1) % 2] for k in sends}
    >>> ring_pass(rows, [0, 1], 2, 8, wire)
    >>> [r.tolist() for r in rows]
    [[11, 22], [11, 22]]
    """
    P = check_int(workers, "workers", 2, MAX_WORKERS)
    bits = check_bits(bits)
    if not (
        isinstance(rows, (list, tuple))
        and rows
        and all(isinstance(r, np.ndarray) and r.ndim == 1 and r.dtype.kind == "u" for r in rows)
        and len({r.size for r in rows}) == 1
    ):
        raise TypeError("rows must be a list of 1-D unsigned integer arrays of one length")
    if np.ndim(ranks) != 1 or len(ranks) != len(rows):
        raise TypeError(f"ranks must be a sequence of {len(rows)} worker indices, got {ranks!r}")
    ranks = [check_int(k, "ranks", 0, P - 1) for k in ranks]
    if not callable(exchange):
        raise TypeError(f"exchange must be a function (step, sends) -> received, got {exchange!r}")
    bounds = chunk_bounds(rows[0].size, P)
    mask = rows[0].dtype.type(word_mask(bits))

    def chunk(c: int) -> slice:
        return slice(bounds[c], bounds[c + 1])

    for step in range(2 * (P - 1)):
        sends = {k: row[chunk(sent_chunk(k, step, P))] for row, k in zip(rows, ranks)}
        received = exchange(step, sends)
        for row, k in zip(rows, ranks):
            mine = row[chunk(sent_chunk((k - 1) % P, step, P))]  # the chunk rank-1 just sent
            if np.shape(received.get(k) if isinstance(received, dict) else None) != mine.shape:
                raise ValueError(
                    f"exchange must return {{rank: words}} with the {mine.size} words rank "
                    f"{k} receives at step {step} of the ring of workers = {P}"
                )
            if step < P - 1:
                mine += received[k]
                mine &= mask  # the sum modulo 2**bits
            else:
                mine[...] = received[k]


@result(show=("consistent",))
class AllReduceResult:
    """Outcome of :func:`ring_allreduce`.

    ``outputs`` (P, d): worker k's copy of the sum (signed int64 residues mod ``2**bits`` for
    integers, the input's float type for floats); ``codec``: the fixed-point code (floats only).

    Examples
    --------
    >>> result = ring_allreduce(np.arange(12).reshape(3, 4), transport="superdense")
    >>> result
    AllReduceResult(transport=Superdense(link=Link(pair_fidelity=None, channel_fidelity=1, storage_time=0, coherence_time=inf, transmission=1)), bits=16, consistent=True)
    >>> result.outputs[0]                               # every row is the column sum
    array([12, 15, 18, 21])
    """

    outputs: np.ndarray = field(repr=False)
    ledger: Ledger = field(repr=False)
    transport: object
    bits: int
    codec: FixedPoint | None = field(repr=False)

    workers = property(lambda self: int(self.outputs.shape[0]), doc="P.")

    @property
    def consistent(self) -> bool:
        """True when every worker ended with the same copy."""
        return bool(np.all(self.outputs == self.outputs[0]))

    @property
    def error_bound(self) -> float | None:
        """Worst-case |output - true sum| per entry for floats: the fixed-point bound ``P/(2s)``
        plus the rounding of the output type (``None`` for integers)."""
        if self.codec is None:
            return None
        eps = float(np.finfo(self.outputs.dtype).eps)
        return self.codec.error_bound + self.workers * self.codec.max_abs * eps

    @property
    def link_report(self) -> ProtectionReport | None:
        """What error protection did (``None`` without protection)."""
        t = self.transport
        return t.report(self.ledger) if isinstance(t, Protected) else None


def ring_allreduce(
    grads,
    *,
    transport="classical",
    bits: int = 16,
    max_abs: float | None = None,
    seed=None,
    protection="none",
    **link,
) -> AllReduceResult:
    """All-reduce (sum) the rows of ``grads`` around the ring, every message over ``transport``.

    Parameters
    ----------
    grads : array-like, shape (P, d)
        Row k is worker k's vector; P >= 2, d >= 1; integers or finite floats.
    transport : transport value or {"classical", "superdense"}
        A value of :mod:`qring_edu.transports`, or the shorthand with the link keywords (the
        parameters of :class:`~qring_edu.noise.Link`) and ``protection`` ("none", "distill",
        "fec", "distill+fec" or a :class:`~qring_edu.protection.Protection`).
    bits : int in 2..32
        Word size b. Integers are summed exactly modulo 2**b and returned signed (two's
        complement); floats are encoded with :func:`~qring_edu.fixedpoint.fixed_point`.
    max_abs : float > 0, optional
        Floats only: the clipping bound agreed in advance (``|x| > max_abs`` is a
        ``ValueError``); default ``max |grads|`` (1 if all zero).
    seed : int, sequence of ints, SeedSequence, Generator or None
        The root of the noise (:func:`~qring_edu.noise.message_rng`).

    Examples
    --------
    >>> g = np.random.default_rng(0).integers(-100, 100, size=(4, 1000))
    >>> clean = ring_allreduce(g)
    >>> noisy = ring_allreduce(g, transport="superdense", channel_fidelity=0.99, seed=1)
    >>> fixed = ring_allreduce(g, transport="superdense", channel_fidelity=0.99,
    ...                        protection="fec", seed=1)
    >>> bool((noisy.outputs == clean.outputs).all()), bool((fixed.outputs == clean.outputs).all())
    (False, True)
    """
    arr = as_numeric_array(grads, "grads")
    if arr.ndim != 2 or arr.shape[0] < 2 or arr.shape[1] < 1:
        raise ValueError(f"grads must have shape (P, d) with P >= 2 and d >= 1, got {arr.shape}")
    protection = protection_of(protection, "protection")
    transport = as_transport(transport, protection_scheme=protection, **link)
    bits = check_bits(bits)
    root = seed_sequence(seed)
    P, d = arr.shape
    is_int = np.issubdtype(arr.dtype, np.integer)
    if is_int and max_abs is not None:
        raise ValueError("max_abs applies to float grads only; integers are summed exactly")
    words = np.empty((P, d), dtype=np.uint32)
    codec = None
    if not is_int:
        if max_abs is None:  # max |grads|, 1 if all zero
            max_abs = float(max(np.max(arr), -np.min(arr))) or 1.0
        codec = fixed_point(P, bits, check_float(max_abs, "max_abs", 0.0, lo_open=True))
    for k in range(P):  # row by row: temporaries of one row, not of the whole input
        words[k] = to_words(arr[k], bits) if is_int else codec.encode(arr[k])
    ledger = Ledger(P, transport.name, 2 * (P - 1))

    def exchange(step: int, sends: dict) -> dict:  # worker j's message goes to j + 1
        return {
            (j + 1) % P: transport.send(w, bits=bits, step=step, sender=j, seed=root, ledger=ledger)
            for j, w in sends.items()
        }

    ring_pass(list(words), range(P), P, bits, exchange)
    if is_int:
        outputs = to_signed(words, bits)
    else:
        outputs = np.empty((P, d), dtype=np.float32 if arr.dtype == np.float32 else np.float64)
        for k in range(P):
            codec.decode(words[k], out=outputs[k])
    return AllReduceResult(outputs, ledger, transport, bits, codec)


def _classical_and_online(result) -> tuple[np.ndarray, np.ndarray]:
    """Per link: the classical ring's bits and the run's online channel uses, shape (P,) each."""
    if not isinstance(result, AllReduceResult):
        raise TypeError(f"result must be an AllReduceResult (of ring_allreduce), got {result!r}")
    P, d = result.outputs.shape
    uses = result.ledger.per_link("online_qubits") + result.ledger.per_link("online_bits")
    return message_bits(P, d, result.bits).sum(axis=1), uses


def net_online_factors(result: AllReduceResult) -> np.ndarray:
    """Per link, shape (P,): classical ring bits (:func:`message_bits`) / the run's online channel
    uses (qubits: payload, parity, checksum, retransmitted, lost; bits: acknowledgements).

    Examples
    --------
    >>> r = ring_allreduce(np.ones((3, 300), dtype=int), transport="superdense")
    >>> net_online_factors(r).tolist()
    [2.0, 2.0, 2.0]
    """
    classical, uses = _classical_and_online(result)
    return classical / np.maximum(uses, 1)


def net_online_factor(result: AllReduceResult) -> float:
    """Net online factor on the critical path: max classical bits / max online uses over links.

    Examples
    --------
    >>> net_online_factor(ring_allreduce(np.ones((4, 400), dtype=int), transport="superdense"))
    2.0
    """
    classical, uses = _classical_and_online(result)
    return float(classical.max() / max(int(uses.max()), 1))
