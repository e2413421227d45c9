"""Ring all-reduce with a classical or a superdense transport (book/01_bottleneck.ipynb, book/03_superdense_ring.ipynb).

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

Noisy links and protection (book/04_noisy_links.ipynb, :mod:`qring_edu.links`): ``channel_fidelity`` puts a
depolarising channel on every qubit that crosses a link (the distributed half of each pair, so
by default ``F_pair = F_ch``, and the encoded qubit), ``storage_time``/``coherence_time`` add
memory dephasing, and ``protection`` buys the errors back with distillation (offline) and/or a
Reed–Solomon code with checksum and retransmission (online), every extra qubit, pair and bit on
the ledger.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import math
import multiprocessing.connection
import os
import pickle
import queue
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
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
from .links import (
    SYMBOL_BITS,
    ProtectionReport,
    _recurrence,  # _recurrence, _sample_production: the sampled offline cost of distillation
    _sample_production,
    distill,
    fec_code,
    fec_transmit,
    link_errors,
)
from .links import protection as _protection
from .states import GAP_BLOCK, frame_blocks
from .superdense import symbols_needed

__all__ = [
    "ring_allreduce",
    "AllReduceResult",
    "ring_schedule",
    "RingStep",
    "chunk_bounds",
    "message_bits",
    "TRANSPORTS",
]

TRANSPORTS = ("classical", "superdense")


class RingStep(NamedTuple):
    """One message of the schedule: at ``step`` (0 .. 2P-3) of ``phase``, ``sender`` sends
    ``chunk`` to ``receiver = (sender + 1) % P``, which adds it (reduce-scatter) or overwrites
    its copy (all-gather).

    Examples
    --------
    >>> from qring_edu.ring import ring_schedule
    >>> ring_schedule(3)[0]
    RingStep(phase='reduce-scatter', step=0, sender=0, receiver=1, chunk=0)
    """

    phase: str  # "reduce-scatter" | "all-gather"
    step: int
    sender: int
    receiver: int
    chunk: int


def chunk_bounds(d: int, workers: int) -> np.ndarray:
    """Offsets of the P chunks of a length-d vector, shape (P + 1,): chunk c is
    ``[offsets[c], offsets[c+1])``. Sizes differ by at most one; chunks may be empty when d < P.

    Examples
    --------
    >>> from qring_edu.ring import chunk_bounds
    >>> chunk_bounds(10, 4)                              # chunk sizes 3, 3, 2, 2
    array([ 0,  3,  6,  8, 10])
    >>> chunk_bounds(2, 3)                               # d < P: the last chunk is empty
    array([0, 1, 2, 2])
    """
    d = check_int(d, "d", 1)
    workers = check_int(workers, "P (number of workers)", 2)
    sizes = np.full(workers, d // workers, dtype=np.int64)
    sizes[: d % workers] += 1
    return np.concatenate([[0], np.cumsum(sizes)])


def ring_schedule(workers: int) -> list[RingStep]:
    """Every message of the ring all-reduce of ``workers`` workers, in step order.

    Examples
    --------
    >>> from qring_edu.ring import ring_schedule
    >>> steps = ring_schedule(3)
    >>> len(steps)                                       # 2(P - 1) steps of P messages
    12
    >>> [(s.phase, s.step, s.sender, s.receiver, s.chunk) for s in steps[:3]]
    [('reduce-scatter', 0, 0, 1, 0), ('reduce-scatter', 0, 1, 2, 1), ('reduce-scatter', 0, 2, 0, 2)]
    """
    workers = check_int(workers, "P (number of workers)", 2)
    P = workers
    sched = []
    for s in range(P - 1):
        sched += [RingStep("reduce-scatter", s, k, (k + 1) % P, (k - s) % P) for k in range(P)]
    for s in range(P - 1):
        sched += [
            RingStep("all-gather", P - 1 + s, k, (k + 1) % P, (k + 1 - s) % P) for k in range(P)
        ]
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
    ``channel_fidelity``, ``protection``: the link model and protection scheme (book/04_noisy_links.ipynb);
    ``link_report``: what protection did (:class:`qring_edu.links.ProtectionReport`; ``None``
    without channel noise, memory noise or protection).

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu import ring_allreduce
    >>> grads = np.arange(12).reshape(3, 4)             # P = 3 workers, d = 4
    >>> result = ring_allreduce(grads, transport="superdense", bits=16)
    >>> result.outputs[0]                               # every row is the column sum
    array([12, 15, 18, 21])
    >>> bool((result.outputs == grads.sum(axis=0)).all())
    True
    >>> result.transport, result.bits, result.codec is None
    ('superdense', 16, True)
    """

    outputs: np.ndarray = field(repr=False)
    ledger: Ledger = field(repr=False)
    transport: str
    bits: int
    pair_fidelity: float
    codec: FixedPoint | None = field(repr=False)
    channel_fidelity: float = 1.0
    protection: str = "none"
    link_report: ProtectionReport | None = field(default=None, repr=False)

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

    @property
    def undetected_error_bound(self) -> float:
        """Upper bound on the probability that a protected run's outputs differ from the
        noiseless ring's (0 for a noiseless link; 1 when nothing corrects the errors and
        some symbol can err). See :class:`qring_edu.links.ProtectionReport`."""
        if self.link_report is None:
            return 0.0 if self.pair_fidelity == 1.0 else 1.0
        return self.link_report.undetected_bound

    def __repr__(self) -> str:
        P, d = self.outputs.shape
        # channel and protection only when set, so the repr of earlier runs is unchanged
        link = (
            "" if self.channel_fidelity == 1.0 else f"channel_fidelity={self.channel_fidelity:g}, "
        )
        prot = "" if self.protection == "none" else f"protection={self.protection!r}, "
        return (
            f"AllReduceResult(P={P}, d={d}, transport={self.transport!r}, bits={self.bits}, "
            f"pair_fidelity={self.pair_fidelity:g}, {link}{prot}consistent={self.consistent}, "
            f"online_bits={self.ledger.online_bits()}, "
            f"online_qubits={self.ledger.online_qubits()})"
        )


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
    """Messages cross as ceil(k/2) qubits over pre-shared pairs: the ledger counts qubits and
    pairs; the noise of noisy pairs is applied per step by ``noise`` (a :class:`_StepNoise`,
    ``None`` at F = 1: noiseless dense coding decodes every symbol exactly)."""

    def __init__(self, ledger: Ledger, bits: int, noise: _StepNoise | None):
        self.ledger, self.bits, self.noise = ledger, bits, noise

    def send(self, words: np.ndarray, sender: int, step: int) -> np.ndarray:
        qubits = symbols_needed(words.size * self.bits)
        self.ledger.record(sender, step, qubits=qubits, ebits=qubits, offline_qubits=qubits)
        return words


class _StepNoise:
    """The Pauli errors of the superdense symbols of one synchronous step.

    Stream (stated in :func:`ring_allreduce`): the step's messages, senders in order, are cut
    into groups of ``g`` words (1 for even b, 2 for odd b) of ``S = g b / 2`` symbols, numbered
    ``0 .. G - 1`` across the step (message k holds groups ``start_k .. start_k + G_k - 1``).
    One :func:`qring_edu.states.frame_blocks` draw of ``S G`` trials per step, in stream order:
    trial ``u S + i`` is symbol i of group u.

    :meth:`flips` turns a step's draw into ``(index, mask)`` pairs of the flat word buffer whose
    indices are distinct, so one fancy-indexed XOR applies a pair; they increase within each
    message, so applying them is one pass over the step's chunks in memory order. The flips do
    not depend on the words: :func:`_run_schedule` draws them a few steps ahead on a second
    thread when there are many.
    """

    def __init__(self, p_err: float, conditional, rng: np.random.Generator, bits: int):
        self.p_err, self.conditional, self.rng, self.bits = p_err, conditional, rng, bits

    def expected_errors(self, d: int, P: int) -> float:
        """Mean number of erring symbols of one :func:`ring_allreduce` (all 2(P - 1) steps)."""
        return (P - 1) * d * self.bits * self.p_err

    def flips(self, msgs, reduce: bool, stride: int, col0: int, out: _FlipBuffer) -> list:
        """The step's flips as ``(index, mask)`` pairs into the flat uint32 buffer whose word
        ``(r, c)`` of the (P, d) words is at ``r * stride + col0 + c``: sender rows in
        reduce-scatter (the flips hit the sender's chunk before the receiver adds it; the sender
        never reads it again, all-gather overwrites it), receiver rows in all-gather (after the
        copy). ``msgs``: ``(sender, receiver, lo, hi)`` of the non-empty messages, in sender
        order; ``out``: where the pairs are written (views of it are returned). Indices within
        one pair are distinct except flat word 0 (see :func:`_merge_runs`); flips past a
        message's end are dropped."""
        if not msgs:
            return []
        b = self.bits
        g = 1 if b % 2 == 0 else 2
        S = g * b // 2
        m = np.array(msgs, dtype=np.int64)
        n_words = m[:, 3] - m[:, 2]
        starts = np.zeros(len(msgs) + 1, dtype=np.int64)
        np.cumsum(-(-n_words // g), out=starts[1:])
        first = m[:, 0 if reduce else 1] * stride + col0 + m[:, 2]  # flat index of word 0
        shift = first - g * starts[:-1]  # group u of message k starts at flat g u + shift_k
        blocks = frame_blocks(S * int(starts[-1]), self.p_err, self.rng, self.conditional)
        if g == 2:
            return [self._odd(pos, codes, starts, shift, first + n_words) for pos, codes in blocks]
        pow2 = S & (S - 1) == 0
        n = 0
        for pos, codes in blocks:
            k = pos.size
            idx, mask, slot = out.reserve(n, k)
            if pow2:  # group = trial div S, slot = trial mod S
                np.right_shift(pos, S.bit_length() - 1, out=idx)
                np.bitwise_and(pos, S - 1, out=slot)
            else:
                np.floor_divide(pos, S, out=idx)
                np.remainder(pos, S, out=slot)
            slot <<= 1  # symbol i carries bits 2i (x) and 2i + 1 (z) of its word
            np.copyto(mask, codes)
            np.left_shift(mask, slot, out=mask, casting="unsafe")
            n += k
        if n == 0:
            return []
        idx, mask = out.idx[:n], out.mask[:n]
        cuts = np.searchsorted(idx, starts).tolist()  # the groups increase over the step
        for k, (a, e) in enumerate(zip(cuts[:-1], cuts[1:])):
            if a < e:
                idx[a:e] += shift[k]  # now the flat word index
        _merge_runs(idx, mask)
        return [(idx, mask)]

    def _odd(self, pos, codes, starts, shift, end):
        """Odd b: a group is two words (2b <= 62 bits); each group's errors are merged into
        one 2b-bit value, split into its two words; a missing second word drops its flips."""
        b = self.bits
        group, slot = np.divmod(pos, b)
        heads = np.flatnonzero(np.diff(group, prepend=-1))
        value = codes.astype(np.uint64) << (2 * slot).astype(np.uint64)
        value = np.bitwise_or.reduceat(value, heads)
        msg = np.searchsorted(starts, group[heads], side="right") - 1
        idx = 2 * group[heads] + shift[msg]
        low = (value & np.uint64(word_mask(b))).astype(np.uint32)
        high = (value >> np.uint64(b)).astype(np.uint32)
        keep = (idx + 1 < end[msg]) & (high != 0)  # an odd message's last group has one word
        return np.concatenate([idx, idx[keep] + 1]), np.concatenate([low, high[keep]])


class _FlipBuffer:
    """Growable scratch for one step's flips (indices, masks, slots), reused across steps and
    calls: on these machines a first touch of fresh memory costs more than the flips it holds
    (see :class:`qring_edu.states._Workspace`)."""

    def __init__(self, size: int = 1 << 16, views=None, slot=None):
        if views is None:
            self.idx = np.empty(size, dtype=np.int64)
            self.mask = np.empty(size, dtype=np.uint32)
        else:  # given arrays (shared memory); a step that outgrows them moves to private ones
            self.idx, self.mask = views
        self.shared = views is not None
        self.slot = np.empty(GAP_BLOCK, dtype=np.int64) if slot is None else slot

    @property
    def nbytes(self) -> int:
        return self.idx.nbytes + self.mask.nbytes + self.slot.nbytes

    def reserve(self, n: int, k: int):
        """Views for elements ``n .. n + k`` (grown, keeping the first n, if too short)."""
        if n + k > self.idx.size:
            self.shared = False
            size = max(n + k, 2 * self.idx.size)
            for name in ("idx", "mask"):
                old = getattr(self, name)
                new = np.empty(size, dtype=old.dtype)
                new[:n] = old[:n]
                setattr(self, name, new)
        return self.idx[n : n + k], self.mask[n : n + k], self.slot[:k]


def _merge_runs(idx: np.ndarray, mask: np.ndarray) -> None:
    """Make the indices of ``(idx, mask)`` distinct in place, equal indices being adjacent
    runs: each run's masks are ORed into its first element (the flips of one
    word are on different bits, so OR = XOR) and the others are sent to flat word 0. Word 0 is
    ``buf[0, 0]``, in the half of the output buffer that holds no words during the ring, so
    whatever lands there is overwritten by the decoding. Runs are rare (the errors of one
    word), so the merging touches few elements."""
    same = np.flatnonzero(idx[1:] == idx[:-1])  # idx[j + 1] == idx[j]
    if same.size == 0:
        return
    follows = np.zeros(idx.size, dtype=bool)
    follows[same] = True  # idx[j + 1] == idx[j]
    cur, r = same, 1
    while cur.size:  # round r: every j whose run reaches j + r takes mask[j + r]
        mask[cur] |= mask[cur + r]
        cur = cur[follows[cur + r]]
        r += 1
    idx[same + 1] = 0


class _NoisyLink:
    """A superdense link with channel noise, memory noise and/or protection (book/04_noisy_links.ipynb).

    Without a code each message crosses as ceil(k/2) qubits whose composed Pauli errors flip its
    bits. With a code (``fec``) the message's bytes cross in Reed–Solomon blocks that are sent
    again until the receiver accepts them (:func:`qring_edu.links.fec_transmit`): the fast model
    returns the words unchanged (accepted blocks are the sent ones), the ``galois`` decoder
    returns what it decoded. Distillation replaces each consumed pair by the raw pairs and
    announcements its sampled production cost.
    """

    def __init__(self, ledger: Ledger, bits: int, errors, prot, code, dist, rng):
        self.ledger, self.bits, self.errors, self.prot, self.code = ledger, bits, errors, prot, code
        self.rng = rng
        self.noise = None if code is not None else _step_noise(errors, rng, bits)
        # Child streams for everything that is not the online noise itself, so the model and the
        # galois decoder draw the same online noise from ``rng`` (spawning leaves it untouched).
        self.offline_rng, self.detail_rng, self.key_rng = rng.spawn(3)
        self.succ = None
        if dist is not None:
            self.succ = _recurrence(dist.input_fidelity, dist.rounds, dist.protocol)[1]
        self.keyed: set[int] = set()
        self.keys: dict[int, np.ndarray] = {}
        self.blocks = self.transmissions = self.rejected = self.max_rounds = 0

    def _offline(self, pairs: int) -> tuple[int, int]:
        """Raw pairs and offline bits to supply ``pairs`` pairs."""
        if self.succ is None:
            return pairs, 0
        raw, _, bits = _sample_production(pairs, self.succ, self.prot.protocol, self.offline_rng)
        return raw, bits

    def send(self, words: np.ndarray, sender: int, step: int) -> np.ndarray:
        n_bits = words.size * self.bits
        if self.code is None:
            qubits = symbols_needed(n_bits)
            raw, off_bits = self._offline(qubits)
            self.ledger.record(
                sender, step, qubits=qubits, ebits=qubits, offline_qubits=raw, offline_bits=off_bits
            )
            return words  # the online noise: self.noise, per step
        code = self.code
        n_bytes = -(-n_bits // SYMBOL_BITS)
        key_bits = 0
        if sender not in self.keyed:  # the checksum key of this link, agreed offline once
            self.keyed.add(sender)
            key_bits = code.hash_bits + SYMBOL_BITS * code.data_bytes - 1
        if self.prot.decoder == "galois":
            if sender not in self.keys:
                self.keys[sender] = self.key_rng.integers(
                    0, 2, code.hash_bits + SYMBOL_BITS * code.data_bytes - 1
                )
            payload = _words_to_bytes(words, self.bits)
            out = fec_transmit(
                n_bytes,
                code,
                self.errors,
                self.rng,
                payload=payload,
                decoder="galois",
                hash_key=self.keys[sender],
                detail_rng=self.detail_rng,
            )
        else:
            out = fec_transmit(n_bytes, code, self.errors, self.rng)
        raw, off_bits = self._offline(out.qubits)
        self.ledger.record(
            sender,
            step,
            bits=out.ack_bits,
            qubits=out.qubits,
            ebits=out.qubits,
            offline_qubits=raw,
            offline_bits=off_bits + key_bits,
        )
        self.blocks += out.blocks
        self.transmissions += out.transmissions
        self.rejected += out.rejected
        self.max_rounds = max(self.max_rounds, out.rounds)
        if out.received is None:
            return words  # the fast model: every accepted block is the block that was sent
        return _bytes_to_words(out.received, words.size, self.bits)


def _words_to_bytes(words: np.ndarray, bits: int) -> np.ndarray:
    """The message's bit stream (bit p = bit p mod b of word p div b) packed into bytes,
    bit i of byte j = stream bit 8j + i; the last byte padded with zeros."""
    stream = ((words[:, None] >> np.arange(bits, dtype=np.uint32)) & 1).astype(np.uint8).ravel()
    return np.packbits(stream, bitorder="little")


def _bytes_to_words(data: np.ndarray, n_words: int, bits: int) -> np.ndarray:
    stream = np.unpackbits(data, bitorder="little")[: n_words * bits].reshape(n_words, bits)
    return (stream.astype(np.uint32) << np.arange(bits, dtype=np.uint32)).sum(
        axis=1, dtype=np.uint32
    )


def ring_allreduce(
    grads,
    *,
    transport: str = "classical",
    bits: int = 16,
    max_abs: float | None = None,
    pair_fidelity: float | None = None,
    channel_fidelity: float = 1.0,
    protection="none",
    storage_time: float = 0.0,
    coherence_time: float = math.inf,
    seed=None,
) -> AllReduceResult:
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
    pair_fidelity : float in [0.25, 1], optional
        Fidelity F of each pre-shared pair (superdense only; must be 1 for classical). Default:
        the pairs were distributed fresh over the link, ``F_pair = channel_fidelity`` (1 on a
        noiseless link).
    channel_fidelity : float in [0.25, 1]
        Depolarising channel on every qubit that crosses a link (superdense only). The decoded
        symbol errs with probability ``1 - F_eff``, ``F_eff = F_pair F_ch + (1 - F_pair)(1 -
        F_ch)/3`` (:func:`qring_edu.links.link_errors`).
    protection : {"none", "distill", "fec", "distill+fec"} or qring_edu.links.Protection
        ``"distill"``: pairs distilled offline (default one DEJMPS round; needs F_pair > 1/2):
        more raw pairs (``offline_qubits``) and announcements (``offline_bits``), the same
        online qubits, and the channel's errors stay. ``"fec"``: each message's bytes travel in
        Reed–Solomon blocks over GF(2^8) with a 64-bit checksum, sent again until accepted
        (:func:`qring_edu.links.fec_code` picks t for the link unless ``Protection`` fixes
        it): parity, checksum and retransmitted qubits are ``online_qubits`` (and ``ebits``),
        acknowledgements ``online_bits``, the checksum key ``offline_bits``.
        ``"distill+fec"``: both. With a code the outputs equal the noiseless ring's entry for
        entry except with probability at most 2**-hash_bits x E[rejected block transmissions]
        (``result.undetected_error_bound`` evaluates it with the realised count; about 3e-14 at
        P = 64, d = 2**24, F = 0.99): a block with more than t wrong bytes is accepted only if the
        decoder miscorrects it and the checksum, keyed afresh for each call, collides.
    storage_time, coherence_time : float
        Both halves of each pair dephase while they wait (``coherence_time`` = T2, same unit as
        ``storage_time``; default a perfect memory).
    seed : int or numpy Generator, optional
        Seeds the online noise. The stream: at each synchronous step the step's
        messages, senders in order 0 .. P-1 (empty chunks send nothing), are cut into groups of
        ``g`` words, ``g = 1`` for even b and 2 for odd b, each group holding ``S = g b / 2``
        symbols (symbol i of a group carries its bits 2i = x and 2i + 1 = z, stream bit p being
        bit p mod b of word p div b); message k has ``G_k = ceil(n_k / g)`` groups. One draw
        ``pauli_frames(S G, F_eff, rng)`` per step, ``G = sum G_k`` (``pauli_frames_distribution``
        with the composed error when it is not depolarising; :func:`qring_edu.states.frame_blocks`),
        gives the Pauli frames in stream order: the groups are numbered across the step's
        messages (message k holds ``G_k`` consecutive groups) and trial ``u S + i`` is symbol i
        of group u. A flip of a bit past a message's
        end (odd b: the padding bit and the missing word of an odd message's last group) has no
        effect. With ``protection="fec"`` the noise is that of
        :func:`qring_edu.links.fec_transmit`, message by message. A large draw runs a few
        steps ahead of the ring when the process may use two CPUs (on a second thread from
        2**15 expected errors, in a helper process, started once per session, from 2**20);
        the stream, hence the outputs and the generator's state afterwards, is the same.

    Returns
    -------
    AllReduceResult with ``outputs`` (P, d), the ``ledger`` and, on a noisy or protected
    link, the ``link_report``.

    Examples
    --------
    >>> g = np.random.default_rng(0).integers(-100, 100, size=(4, 1000))
    >>> clean = ring_allreduce(g, bits=16)
    >>> res = ring_allreduce(g, transport="superdense", channel_fidelity=0.99, protection="fec",
    ...                      seed=1)
    >>> bool(np.array_equal(res.outputs, clean.outputs)), res.undetected_error_bound < 1e-15
    (True, True)
    """
    arr = _check_grads(grads)
    transport = check_choice(transport, "transport", TRANSPORTS)
    bits = check_bits(bits)
    channel_fidelity = check_fidelity(channel_fidelity, "channel_fidelity")
    pair_fidelity = channel_fidelity if pair_fidelity is None else check_fidelity(pair_fidelity)
    prot = _protection(protection)
    if transport == "classical" and pair_fidelity != 1.0:
        raise ValueError(
            "pair_fidelity applies only to transport='superdense'; "
            f"got pair_fidelity={pair_fidelity:g} with transport='classical'"
        )
    if transport == "classical" and channel_fidelity != 1.0:
        raise ValueError(
            "channel_fidelity applies only to transport='superdense' (the classical "
            f"network is error-free); got channel_fidelity={channel_fidelity:g}"
        )
    if transport == "classical" and prot.scheme != "none":
        raise ValueError(
            "protection applies only to transport='superdense'; "
            f"got protection={prot.scheme!r} with transport='classical'"
        )
    errors = link_errors(
        pair_fidelity, channel_fidelity, storage_time=storage_time, coherence_time=coherence_time
    )
    if transport == "classical" and errors.fidelity != 1.0:
        raise ValueError(
            "storage_time applies only to transport='superdense'; got "
            f"storage_time={storage_time:g}"
        )
    dist = None
    if prot.distills:
        if pair_fidelity <= 0.5:
            raise ValueError(
                f"pair_fidelity must exceed 1/2 for protection={prot.scheme!r}, got "
                f"{pair_fidelity:g}: a Werner pair with F <= 1/2 is separable and "
                "distillation cannot raise its fidelity"
            )
        dist = distill(pair_fidelity, rounds=prot.rounds, protocol=prot.protocol)
        errors = link_errors(
            None,
            channel_fidelity,
            storage_time=storage_time,
            coherence_time=coherence_time,
            pair=dist.errors,
        )
    code = None
    if prot.codes:
        code = fec_code(
            errors.error_rate,
            block_length=prot.block_length,
            correctable=prot.correctable,
            hash_bits=prot.hash_bits,
        )
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
    ledger = Ledger(P, transport, 2 * (P - 1))
    noisy = (
        channel_fidelity != 1.0 or prot.scheme != "none" or not errors.is_depolarizing
    )  # memory noise
    if transport == "classical":
        link = _ClassicalLink(ledger, bits)
    elif not noisy:  # noiseless link or noisy pairs only
        link = _SuperdenseLink(ledger, bits, _step_noise(errors, np.random.default_rng(seed), bits))
    else:
        link = _NoisyLink(ledger, bits, errors, prot, code, dist, np.random.default_rng(seed))
    # The noise does not depend on the words: drawing it may start before they are encoded.
    flips = _noise_stream(getattr(link, "noise", None), P, d)
    try:
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
        _run_schedule(outputs.view(np.uint32), d, link, bits, flips)
    finally:
        flips.close()

    for k, sl in _blocks(P, d):  # in place, front to back (see above)
        outputs[k, sl] = to_signed(words[k, sl], bits) if is_int else codec.decode(words[k, sl])
    report = None
    if isinstance(link, _NoisyLink):
        report = ProtectionReport(
            protection=prot,
            errors=errors,
            distillation=dist,
            code=code,
            blocks=link.blocks,
            transmissions=link.transmissions,
            rejected=link.rejected,
            max_rounds=link.max_rounds,
        )
    return AllReduceResult(
        outputs=outputs,
        ledger=ledger,
        transport=transport,
        bits=bits,
        pair_fidelity=pair_fidelity,
        codec=codec,
        channel_fidelity=channel_fidelity,
        protection=prot.scheme,
        link_report=report,
    )


_BLOCK = 1 << 16  # entries per encode/decode block: big enough to amortise NumPy's call overhead


def _blocks(P: int, d: int):
    """(row, column slice) pairs covering a (P, d) array in blocks of at most ``_BLOCK`` entries."""
    for k in range(P):
        for lo in range(0, d, _BLOCK):
            yield k, slice(lo, min(lo + _BLOCK, d))


def _step_noise(errors, rng: np.random.Generator, bits: int) -> _StepNoise | None:
    """The per-step noise of a superdense link with these symbol errors (None if noiseless)."""
    if errors.fidelity >= 1.0:
        return None
    if errors.is_depolarizing:  # X, Z, Y equally likely
        return _StepNoise(1.0 - errors.fidelity, (1 / 3, 1 / 3, 1 / 3), rng, bits)
    p = np.asarray(errors.probabilities, dtype=float)
    return _StepNoise(1.0 - float(p[0]), p[1:] / p[1:].sum(), rng, bits)


def _run_schedule(buf: np.ndarray, d: int, link, bits: int, flips) -> None:
    """Execute :func:`ring_schedule` in place on the words ``buf[:, d:]`` (uint32, (P, 2d)).

    Within one synchronous step every receiver updates a chunk that no sender of that step reads,
    so processing the messages of a step one after another equals sending them simultaneously.
    ``flips`` (:func:`_noise_stream`) gives each step's bit flips: applied in reduce-scatter to
    the senders' chunks before the additions, in all-gather to the receivers' copies after the
    copies.
    """
    P = buf.shape[0]
    words = buf[:, d:]
    flat = buf.reshape(-1)
    mask = np.uint32(word_mask(bits))
    for step, msgs in enumerate(_step_messages(P, d)):
        reduce = step < P - 1
        fl = next(flips)
        if reduce:
            _apply(flat, fl)
        for j in range(len(msgs)):
            _deliver(words, link, msgs, step, reduce, bits, mask, j)
        if not reduce:
            _apply(flat, fl)


def _apply(flat: np.ndarray, flips) -> None:
    for idx, m in flips:  # distinct indices (but the scratch word 0): one XOR per word
        flat[idx] ^= m


#: Draw the noise of a large superdense ring on a second thread (:class:`_Prefetch`) when the
#: machine has a second CPU; below this many expected errors a thread costs more than it saves.
_PIPELINE = True
_PIPELINE_MIN_ERRORS = 1 << 15
_PREFETCH_BYTES = 1 << 26  # flip buffers the noise thread may fill ahead of the ring


def _noise_stream(noise, P: int, d: int):
    """Iterator over the 2(P - 1) steps' flips (lists of ``(index, mask)``, empty without
    noise), with ``close()``. The flips of a step stay valid until the next ``next``. When
    ``_PIPELINE`` and the process may run on two CPUs they are drawn ahead of the ring: by the
    helper process (:class:`_ProcessStream`) from ``_PROCESS_MIN_ERRORS`` expected errors, by
    a worker thread (:class:`_Prefetch`) from ``_PIPELINE_MIN_ERRORS``; otherwise here. Always
    the same stream, so the outputs do not depend on where it was drawn."""
    n = 2 * (P - 1)
    if noise is None:
        return _Inline(lambda step, out: [], n, None)
    steps = _step_messages(P, d)

    def fn(step, out):
        return noise.flips(steps[step], step < P - 1, 2 * d, d, out)

    errors = noise.expected_errors(d, P)
    if not (_PIPELINE and errors >= _PIPELINE_MIN_ERRORS and _cpus() > 1):
        return _Inline(fn, n, 1)
    if _PROCESS and errors >= _PROCESS_MIN_ERRORS:
        server = _NoiseProcess.get()
        if server.lock.acquire(blocking=False):  # else another thread's ring is using it
            try:
                return _ProcessStream(server, noise, steps, P, d)
            except BaseException:
                server.lock.release()
                raise
    return _Prefetch(fn, n, _depth(n, errors / n))


def _depth(n_steps: int, per_step: float) -> int:
    """Steps that may be drawn ahead: as many as ``_PREFETCH_BYTES`` of flip buffers hold
    (12 bytes per error: int64 index, uint32 mask), at least 3, at most all."""
    return int(min(n_steps, max(3, _PREFETCH_BYTES // max(12 * per_step, 1.0))))


#: Above this many expected errors the flips are drawn in a helper *process* (:class:`_NoiseProcess`)
#: rather than a thread: measured here, a sampling thread slows the ring's own NumPy calls by
#: 11-16 % through the interpreter lock they share, a sampling process by nothing. Below it, the
#: process's start-up (once per session, about a second) and the copies do not pay.
_PROCESS_MIN_ERRORS = 1 << 20
_PROCESS = True


def _noise_main() -> None:  # pragma: no cover - the helper process's entry point
    address, key = pickle.loads(sys.stdin.buffer.read())
    _noise_server(multiprocessing.connection.Client(address, authkey=key))


def _noise_server(conn) -> None:  # pragma: no cover - runs in the helper process
    """The helper process: for each job, draw the flips of every step with the job's generator
    state into the shared buffers the parent frees, then hand back the generator's state."""
    mapped: dict = {}
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job[0] == "exit":
            return
        if job[0] != "job":  # a late "free" or "stop" of a finished job
            continue
        _, state, p_err, cond, bits, steps, reduce_steps, stride, col0, paths, cap = job
        bitgen = getattr(np.random, state["bit_generator"])()
        bitgen.state = state
        rng = np.random.Generator(bitgen)
        noise = _StepNoise(p_err, cond, rng, bits)
        for p in list(mapped):  # files the parent has removed
            if p not in paths:
                del mapped[p]
        for p in paths:  # mapped once and kept: a fresh mapping faults on every page again
            if p not in mapped or mapped[p][0].size != cap:
                mapped[p] = (
                    np.memmap(p, dtype=np.int64, mode="r+", shape=(cap,)),
                    np.memmap(p, dtype=np.uint32, mode="r+", offset=8 * cap, shape=(cap,)),
                )
        maps = [mapped[p] for p in paths]
        free = list(range(len(paths)))
        slot = np.empty(GAP_BLOCK, dtype=np.int64)
        stopped = False
        try:
            for step, msgs in enumerate(steps):
                while not free and not stopped:
                    msg = conn.recv()
                    if msg[0] == "free":
                        free.append(msg[1])
                    else:
                        stopped = True
                if stopped:
                    break
                k = free.pop()
                out = _FlipBuffer(views=maps[k], slot=slot)  # straight into the shared buffer
                flips = noise.flips(msgs, reduce_steps[step], stride, col0, out)
                if len(flips) == 1 and out.shared and np.shares_memory(flips[0][0], out.idx):
                    conn.send(("step", k, flips[0][0].size))
                else:  # odd b (several pairs), no errors, or more than the buffer holds
                    free.append(k)
                    conn.send(("pairs", [(np.array(i), np.array(m)) for i, m in flips]))
            conn.send(("done", None if stopped else rng.bit_generator.state))
        except BaseException as exc:
            try:
                conn.send(("error", exc))
            except Exception:  # an exception that does not pickle
                conn.send(("error", RuntimeError(repr(exc))))


class _NoiseProcess:
    """The persistent helper process of this interpreter (spawned on first use) and its
    shared buffers: files in ``/dev/shm`` (memory, not disk) mapped by both processes,
    kept for the next job and removed at exit. One job at a time (``lock``)."""

    _instance = None

    def __init__(self):
        # A subprocess running this module, not multiprocessing's spawn: spawn re-imports the
        # caller's __main__, which would re-run a user's unguarded script.
        key = secrets.token_bytes(32)
        family = "AF_UNIX" if hasattr(socket, "AF_UNIX") else "AF_INET"
        with multiprocessing.connection.Listener(family=family, authkey=key) as listener:
            root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
            self.proc = subprocess.Popen(
                [sys.executable, "-c", "from qring_edu.ring import _noise_main; _noise_main()"],
                stdin=subprocess.PIPE,
                env=env,
            )
            self.proc.stdin.write(pickle.dumps((listener.address, key)))
            self.proc.stdin.close()
            self.conn = listener.accept()
        self.pid = os.getpid()
        self.lock = threading.Lock()
        self.files: list = []  # (path, cap, index map, mask map)
        atexit.register(self.shutdown)

    @classmethod
    def get(cls):
        inst = cls._instance
        if inst is None or inst.pid != os.getpid() or inst.proc.poll() is not None:
            inst = cls._instance = cls()
        return inst

    def buffers(self, n: int, cap: int) -> list:
        """``n`` shared buffers of at least ``cap`` entries (index + mask)."""
        keep = [f for f in self.files if f[1] >= cap][:n]
        for f in self.files:
            if f not in keep:
                os.unlink(f[0])
        self.files = keep
        while len(self.files) < n:
            d = "/dev/shm" if os.path.isdir("/dev/shm") else None
            fd, path = tempfile.mkstemp(prefix="qring-noise-", dir=d)
            os.ftruncate(fd, 12 * cap)
            os.close(fd)
            idx = np.memmap(path, dtype=np.int64, mode="r+", shape=(cap,))
            mask = np.memmap(path, dtype=np.uint32, mode="r+", offset=8 * cap, shape=(cap,))
            self.files.append((path, cap, idx, mask))
        return self.files

    def shutdown(self) -> None:
        if self.pid != os.getpid():  # a forked child: the helper and its files are the parent's
            return
        try:
            self.conn.send(("exit",))
            self.proc.wait(timeout=5)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            self.proc.kill()
        for f in self.files:
            try:
                os.unlink(f[0])
            except OSError:
                pass
        self.files = []


class _ProcessStream:
    """The steps' flips drawn by :class:`_NoiseProcess` into shared buffers (same stream as
    :class:`_Inline`); on completion the caller's generator takes the helper's final state,
    so it continues exactly as if the flips had been drawn here."""

    def __init__(self, server, noise, steps, P: int, d: int):
        self.server, self.rng, self._held, self._done = server, noise.rng, None, False
        n = len(steps)
        cap = int(
            1.25 * noise.expected_errors(d, P) / n + 64 * math.sqrt(noise.p_err * d * P) + 4096
        )
        self.files = server.buffers(_depth(n, cap), cap)
        server.conn.send(
            (
                "job",
                noise.rng.bit_generator.state,
                noise.p_err,
                tuple(float(c) for c in noise.conditional),
                noise.bits,
                steps,
                [s < P - 1 for s in range(n)],
                2 * d,
                d,
                [f[0] for f in self.files],
                self.files[0][1],
            )
        )

    def _recv(self):
        try:
            msg = self.server.conn.recv()
        except (EOFError, OSError) as exc:
            self._done = True
            raise RuntimeError(
                "the helper process that draws the superdense noise stopped; set "
                "qring_edu.ring._PROCESS = False to draw it in this process"
            ) from exc
        if msg[0] == "error":
            self._done = True
            raise msg[1]
        return msg

    def __next__(self):
        if self._held is not None:
            self.server.conn.send(("free", self._held))
            self._held = None
        msg = self._recv()
        if msg[0] == "pairs":
            return msg[1]
        _, k, n = msg
        self._held = k
        _, _, idx, mask = self.files[k]
        return [(idx[:n], mask[:n])]

    def close(self) -> None:
        try:
            if not self._done:
                self.server.conn.send(("stop",))
                while True:
                    msg = self._recv()
                    if msg[0] == "done":
                        if msg[1] is not None:
                            self.rng.bit_generator.state = msg[1]
                        break
        finally:
            self.server.lock.release()


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


_POOL_LOCK = threading.Lock()
_POOL: list = []  # idle flip buffers, kept for the next call (at most _PREFETCH_BYTES)
_EXECUTOR = None


def _after_fork_in_child() -> None:
    """A forked child has none of the parent's threads: it starts its own executor (the
    parent's would queue tasks no thread runs) with a fresh lock (the parent's may have been
    held by another thread at the fork)."""
    global _EXECUTOR, _POOL_LOCK
    _EXECUTOR = None
    _POOL_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _take_buffers(n: int) -> list:
    with _POOL_LOCK:
        got = [_POOL.pop() for _ in range(min(n, len(_POOL)))]
    return got + [_FlipBuffer() for _ in range(n - len(got))]


def _give_buffers(bufs) -> None:
    with _POOL_LOCK:
        held = sum(b.nbytes for b in _POOL)
        for b in bufs:
            if held + b.nbytes <= _PREFETCH_BYTES:
                _POOL.append(b)
                held += b.nbytes


class _Inline:
    """The flips computed on demand, on the caller's thread, in ``n_buffers`` reused buffers."""

    def __init__(self, fn, n: int, n_buffers):
        self._fn, self._n, self._step = fn, n, 0
        self._bufs = _take_buffers(n_buffers) if n_buffers else [None]

    def __next__(self):
        if self._step >= self._n:
            raise StopIteration
        self._step += 1
        return self._fn(self._step - 1, self._bufs[0])

    def close(self) -> None:
        if self._bufs[0] is not None:
            _give_buffers(self._bufs)
            self._bufs = [None]


class _Prefetch:
    """``fn(step, buffer)`` for steps ``0 .. n - 1``, in order, on a worker thread at most
    ``depth`` steps ahead of the consumer (one buffer per step in flight; the consumer's
    ``next`` returns the previous step's buffer). An exception of ``fn`` is raised by the
    ``next`` that would have returned its step; :meth:`close` stops the worker (the consumer
    may stop early) and waits for it."""

    def __init__(self, fn, n: int, depth: int):
        global _EXECUTOR
        self._bufs = _take_buffers(depth)
        self._free: queue.Queue = queue.Queue()
        for b in self._bufs:
            self._free.put(b)
        self._ready: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._held = None
        with _POOL_LOCK:
            if _EXECUTOR is None:
                _EXECUTOR = concurrent.futures.ThreadPoolExecutor(
                    max_workers=2, thread_name_prefix="qring-noise"
                )
        self._task = _EXECUTOR.submit(self._run, fn, n)

    def _run(self, fn, n: int) -> None:
        for step in range(n):
            buf = None
            while buf is None:
                if self._stop.is_set():
                    return
                try:
                    buf = self._free.get(timeout=0.05)
                except queue.Empty:
                    continue
            try:
                item = (True, buf, fn(step, buf))
            except BaseException as exc:  # handed to the consumer, raised there
                self._ready.put((False, buf, exc))
                return
            self._ready.put(item)

    def __next__(self):
        if self._held is not None:
            self._free.put(self._held)
        ok, self._held, value = self._ready.get()
        if not ok:
            raise value
        return value

    def close(self) -> None:
        self._stop.set()
        self._task.result()  # the worker stops within one buffer wait
        _give_buffers(self._bufs)


def _step_messages(P: int, d: int) -> list:
    """Per synchronous step, ``(sender, receiver, lo, hi)`` of its non-empty messages in sender
    order (an empty chunk, d < P, sends nothing)."""
    offsets = chunk_bounds(d, P).tolist()
    sched = ring_schedule(P)
    steps = []
    for step in range(2 * (P - 1)):
        msgs = []
        for msg in sched[step * P : (step + 1) * P]:
            lo, hi = offsets[msg.chunk], offsets[msg.chunk + 1]
            if lo < hi:
                msgs.append((msg.sender, msg.receiver, lo, hi))
        steps.append(msgs)
    return steps


def _apply(flat: np.ndarray, flips) -> None:
    for idx, m in flips:  # the indices of one pair are distinct: one XOR per word
        flat[idx] ^= m


def _deliver(words, link, msgs, step: int, reduce: bool, bits: int, mask, j: int) -> None:
    """Message j of the step crosses its link and is added into (reduce-scatter) or copied over
    (all-gather) the receiver's chunk."""
    sender, receiver, lo, hi = msgs[j]
    received = link.send(words[sender, lo:hi], sender, step)
    target = words[receiver, lo:hi]
    if reduce:
        np.add(target, received, out=target)  # uint32 wraps modulo 2**32 ...
        if bits < 32:
            np.bitwise_and(target, mask, out=target)  # ... and the mask reduces mod 2**bits
    else:
        target[...] = received
