"""Ring all-reduce with a classical or a superdense transport (DESIGN.md §4.2, §4.4).

P workers sit on a ring; worker k sends only to worker (k+1) mod P. Each worker's vector of d
words is cut into P chunks whose sizes differ by at most one (the first ``d mod P`` chunks are one
word longer).

* Reduce-scatter, steps s = 0 .. P-2: worker k sends chunk (k - s) mod P to worker k+1, which adds
  it into its own copy. Afterwards worker k holds the fully reduced chunk (k + 1) mod P.
* All-gather, steps s = 0 .. P-2: worker k sends chunk (k + 1 - s) mod P to worker k+1, which
  overwrites its copy.

2(P-1) synchronous steps; when P divides d each directed link carries 2(P-1)(d/P)·b bits, the
bandwidth-optimal amount (Patarasuk & Yuan 2009).

Transports. ``"classical"`` sends the message's bits. ``"superdense"`` sends each message of k bits
as ceil(k/2) qubits over as many Bell pairs pre-shared on that directed link (each distributed
earlier by sending one qubit over the same link), decoded by Bob's Bell measurement; with pair
fidelity F < 1 the Pauli errors of :mod:`qring_edu.superdense` flip bits of the words in flight.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ._validate import (
    as_numeric_array,
    check_bits,
    check_choice,
    check_fidelity,
    check_float,
    check_int,
    check_seed,
)
from .fixedpoint import FixedPoint, fixed_point, to_signed, to_words, word_mask
from .ledger import Ledger
from .superdense import flipped_bit_positions, pauli_frames, symbols_needed

__all__ = ["ring_allreduce", "AllReduceResult", "ring_schedule", "RingStep", "chunk_bounds",
           "message_bits", "TRANSPORTS"]

TRANSPORTS = ("classical", "superdense")


class RingStep(NamedTuple):
    """One message of the schedule: at ``step`` (0 .. 2P-3) of ``phase``, ``sender`` sends
    ``chunk`` to ``receiver = (sender + 1) % P``, which adds it (reduce-scatter) or overwrites
    its copy (all-gather)."""

    phase: str  # "reduce-scatter" | "all-gather"
    step: int
    sender: int
    receiver: int
    chunk: int


def chunk_bounds(d: int, workers: int) -> np.ndarray:
    """Offsets of the P chunks of a length-d vector, shape (P + 1,): chunk c is
    ``[offsets[c], offsets[c+1])``. Sizes differ by at most one; chunks may be empty when d < P."""
    d = check_int(d, "d", 1)
    workers = check_int(workers, "P (number of workers)", 2)
    sizes = np.full(workers, d // workers, dtype=np.int64)
    sizes[: d % workers] += 1
    return np.concatenate([[0], np.cumsum(sizes)])


def ring_schedule(workers: int) -> list[RingStep]:
    """Every message of the ring all-reduce of ``workers`` workers, in step order."""
    workers = check_int(workers, "P (number of workers)", 2)
    P = workers
    sched = []
    for s in range(P - 1):
        sched += [RingStep("reduce-scatter", s, k, (k + 1) % P, (k - s) % P) for k in range(P)]
    for s in range(P - 1):
        sched += [RingStep("all-gather", P - 1 + s, k, (k + 1) % P, (k + 1 - s) % P)
                  for k in range(P)]
    return sched


def message_bits(workers: int, d: int, bits: int) -> np.ndarray:
    """Size in bits of every message of the ring all-reduce, per directed link: the one place the
    library computes per-link message sizes (cost model, Holevo floor, claims, checkers).

    Returns an int64 array of shape ``(P, 2(P-1))``: entry ``[k, s]`` is what worker k sends to
    worker (k+1) mod P at global step s, ``len(chunk) * bits`` with the chunk of
    :func:`ring_schedule` ((k - s) mod P in reduce-scatter, (k + 1 - (s - P + 1)) mod P in
    all-gather) and the chunk sizes of :func:`chunk_bounds`. Row sums are the classical bits per
    link; ``((m + 1) // 2).sum(axis=1)`` the online qubits per link of the superdense ring (a
    message of k bits crosses as ceil(k/2) qubits).

    Examples
    --------
    >>> message_bits(3, 7, 5)          # chunk sizes 3, 2, 2 words of 5 bits
    array([[15, 10, 10, 15],
           [10, 15, 10, 10],
           [10, 10, 15, 10]])
    >>> int(message_bits(4, 1000, 16).sum(axis=1).max())   # = 2 (P-1) (d/P) b when P | d
    24000
    """
    P = check_int(workers, "P (number of workers)", 2)
    sizes = np.diff(chunk_bounds(d, P))
    bits = check_bits(bits)
    k = np.arange(P)[:, None]
    s = np.arange(P - 1)[None, :]
    chunks = np.concatenate([(k - s) % P, (k + 1 - s) % P], axis=1)
    return sizes[chunks] * bits


@dataclass(frozen=True)
class AllReduceResult:
    """Outcome of :func:`ring_allreduce`.

    ``outputs``: array (P, d), worker k's final copy of the sum (identical rows unless noisy pairs
    corrupted a message). Integer input gives signed int64 residues modulo 2**bits; float input
    gives float64 (a float32 result would round away the precision of words above 24 bits). ``ledger``: channel use per link.
    ``codec``: the fixed-point code used for float input (``None`` for integers).
    """

    outputs: np.ndarray = field(repr=False)
    ledger: Ledger = field(repr=False)
    transport: str
    bits: int
    pair_fidelity: float
    codec: FixedPoint | None = field(repr=False)

    @property
    def workers(self) -> int:
        return int(self.outputs.shape[0])

    @property
    def consistent(self) -> bool:
        """True when every worker ended with the same copy."""
        return bool(np.all(self.outputs == self.outputs[0]))

    @property
    def error_bound(self) -> float | None:
        """Worst-case |decoded sum - true sum| per entry for float input (P / (2 s)); None for ints.
        Float outputs are float64, in which the decoded fixed-point sum is exact."""
        return None if self.codec is None else self.codec.error_bound

    def __repr__(self) -> str:
        P, d = self.outputs.shape
        return (f"AllReduceResult(P={P}, d={d}, transport={self.transport!r}, bits={self.bits}, "
                f"pair_fidelity={self.pair_fidelity:g}, consistent={self.consistent}, "
                f"online_bits={self.ledger.online_bits()}, "
                f"online_qubits={self.ledger.online_qubits()})")


def _check_grads(grads) -> np.ndarray:
    arr = as_numeric_array(grads, "grads")
    if arr.ndim != 2:
        raise ValueError(f"grads must be 2-D with shape (P, d), got {arr.ndim}-D shape {arr.shape}")
    P, d = arr.shape
    if P < 2:
        raise ValueError(f"grads must have P >= 2 rows (workers), got P = {P}")
    if d < 1:
        raise ValueError(f"grads must have d >= 1 columns (entries), got d = {d}")
    return arr


class _ClassicalLink:
    """Messages cross as bits: nothing happens to them, the ledger counts bits."""

    def __init__(self, ledger: Ledger, bits: int):
        self.ledger, self.bits = ledger, bits

    def send(self, words: np.ndarray, sender: int, step: int) -> np.ndarray:
        self.ledger.record(sender, step, bits=words.size * self.bits)
        return words


class _SuperdenseLink:
    """Messages cross as ceil(k/2) qubits over pre-shared pairs; noisy pairs flip bits."""

    def __init__(self, ledger: Ledger, bits: int, pair_fidelity: float, rng: np.random.Generator):
        self.ledger, self.bits, self.fidelity, self.rng = ledger, bits, pair_fidelity, rng

    def send(self, words: np.ndarray, sender: int, step: int) -> np.ndarray:
        n_bits = words.size * self.bits
        qubits = symbols_needed(n_bits)
        self.ledger.record(sender, step, qubits=qubits, ebits=qubits, offline_qubits=qubits)
        if self.fidelity == 1.0:
            return words  # noiseless dense coding decodes every symbol exactly
        positions, frames = pauli_frames(qubits, self.fidelity, self.rng)
        flips = flipped_bit_positions(positions, frames)
        flips = flips[flips < n_bits]  # the padding bit carries no data
        if flips.size == 0:
            return words
        received = words.copy()  # one message-sized buffer, dropped after the step
        # Stream bit p is bit (p mod b) of word (p div b): words go LSB first.
        masks = np.left_shift(np.uint32(1), (flips % self.bits).astype(np.uint32))
        np.bitwise_xor.at(received, flips // self.bits, masks)
        return received


def ring_allreduce(grads, *, transport: str = "classical", bits: int = 16,
                   max_abs: float | None = None, pair_fidelity: float = 1.0,
                   seed=None) -> AllReduceResult:
    """All-reduce (sum) the rows of ``grads`` with the ring schedule.

    Parameters
    ----------
    grads : array-like, shape (P, d)
        Row k is worker k's vector; P >= 2, d >= 1; integers or finite floats.
    transport : {"classical", "superdense"}
        How each message crosses its link (see module docstring).
    bits : int in 2..32
        Word size b. Integers are summed exactly modulo 2**b and returned signed (two's
        complement). Floats are encoded with :func:`qring_edu.fixedpoint.fixed_point`.
    max_abs : float > 0, optional
        Clipping bound agreed in advance for float input; default ``max |grads|`` (or 1 if all
        zero). Values with ``|x| > max_abs`` raise ``ValueError``. Ignored for integers.
    pair_fidelity : float in [0.25, 1]
        Fidelity F of each pre-shared pair (superdense only; must be 1 for classical).
    seed : int or numpy Generator, optional
        Seeds the pair noise.

    Returns
    -------
    AllReduceResult with ``outputs`` (P, d) and the ``ledger``.
    """
    arr = _check_grads(grads)
    transport = check_choice(transport, "transport", TRANSPORTS)
    bits = check_bits(bits)
    pair_fidelity = check_fidelity(pair_fidelity)
    if transport == "classical" and pair_fidelity != 1.0:
        raise ValueError("pair_fidelity applies only to transport='superdense'; "
                         f"got pair_fidelity={pair_fidelity:g} with transport='classical'")
    check_seed(seed)
    if max_abs is not None:  # validated even for integers (ignored there, but never silently bad)
        max_abs = check_float(max_abs, "max_abs", 0.0, lo_open=True)
    P, d = arr.shape
    is_int = np.issubdtype(arr.dtype, np.integer)

    # Encode and decode in blocks so temporaries stay O(block), not O(P d). The uint32 words live
    # inside the outputs buffer (8 bytes per entry), in the upper half of each row's bytes: word j
    # of a row at byte 4d + 4j, output j at bytes [8j, 8j + 8). Decoding a row front to back in
    # blocks [lo, hi) reads the block's words first and then writes bytes below 8 hi <= 4d + 4 hi,
    # so it never overwrites a word not yet read. Peak memory is therefore the outputs alone
    # (8 bytes per entry; a separate word buffer would add 4 more).
    outputs = np.empty((P, d), dtype=np.int64 if is_int else np.float64)
    words = outputs.view(np.uint32)[:, d:]
    codec = None
    if is_int:
        for k, sl in _blocks(P, d):
            words[k, sl] = to_words(arr[k, sl], bits)
    else:
        if max_abs is None:
            largest = float(max(np.max(arr), -np.min(arr)))  # max |x| without an |arr| copy
            max_abs = largest if largest > 0 else 1.0
        codec = fixed_point(P, bits, max_abs)
        for k, sl in _blocks(P, d):
            words[k, sl] = codec.encode(arr[k, sl])

    ledger = Ledger(P, transport, 2 * (P - 1))
    if transport == "classical":
        link = _ClassicalLink(ledger, bits)
    else:
        link = _SuperdenseLink(ledger, bits, pair_fidelity, np.random.default_rng(seed))
    _run_schedule(words, link, bits)

    for k, sl in _blocks(P, d):  # in place, front to back (see above)
        outputs[k, sl] = to_signed(words[k, sl], bits) if is_int else codec.decode(words[k, sl])
    return AllReduceResult(outputs=outputs, ledger=ledger, transport=transport, bits=bits,
                           pair_fidelity=pair_fidelity, codec=codec)


_BLOCK = 1 << 16  # entries per encode/decode block: big enough to amortise NumPy's call overhead


def _blocks(P: int, d: int):
    """(row, column slice) pairs covering a (P, d) array in blocks of at most ``_BLOCK`` entries."""
    for k in range(P):
        for lo in range(0, d, _BLOCK):
            yield k, slice(lo, min(lo + _BLOCK, d))


def _run_schedule(words: np.ndarray, link, bits: int) -> None:
    """Execute :func:`ring_schedule` in place on the (P, d) ``uint32`` word buffers.

    Within one synchronous step every receiver updates a chunk that no sender of that step reads,
    so processing the messages of a step one after another equals sending them simultaneously.
    """
    P, d = words.shape
    offsets = chunk_bounds(d, P)
    mask = np.uint32(word_mask(bits))
    for msg in ring_schedule(P):
        lo, hi = offsets[msg.chunk], offsets[msg.chunk + 1]
        if lo == hi:
            continue  # an empty chunk (d < P) sends nothing
        received = link.send(words[msg.sender, lo:hi], msg.sender, msg.step)
        target = words[msg.receiver, lo:hi]
        if msg.phase == "reduce-scatter":
            np.add(target, received, out=target)  # uint32 wraps modulo 2**32 ...
            if bits < 32:
                np.bitwise_and(target, mask, out=target)  # ... and the mask reduces mod 2**bits
        else:
            target[...] = received
