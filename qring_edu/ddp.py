"""The ring all-reduce as a PyTorch DDP communication hook (optional extra ``qring_edu[torch]``).

``DistributedDataParallel`` hands every gradient *bucket* (a flat float tensor) to a
communication hook, which must return a ``torch.futures.Future`` of the reduced bucket
(Li et al. 2020, "PyTorch distributed"). :func:`ring_hook` returns a *pending* future at once and
reduces the bucket off the autograd thread, so the ring of one bucket runs while the backward
pass computes the next one (as gloo's built-in all-reduce does). The ring is the schedule of
book/01_bottleneck.ipynb over the real process group.

Threads and order. Each :class:`RingHookState` owns one worker thread with a FIFO queue. The hook
(on the autograd thread, called by DDP once per bucket, in bucket order) computes the bucket's
local header and either starts the header collective (asynchronous) or, for a bucket whose
bound was agreed one step ahead (item 1), encodes it and posts its first ring step; it puts the
bucket on the queue and returns the future. The worker takes buckets in queue order, which is
the order of the hook calls, so every rank runs the rings in the same order; every
point-to-point message carries a tag made of its kind, the bucket index and the ring step, so
the messages of two buckets in flight, or of two kinds, never meet. Only the headers are
collectives and only the hook issues them, so they too are issued in the same order on every
rank. Whatever the worker raises (a bad bucket, a peer that timed out) is set on the bucket's
future (``set_exception``): DDP's ``backward`` (or ``future.wait()``) raises it; the next bucket
proceeds normally. What does not depend on the gradients (the GHZ pads of the private mode, the
Pauli frames of noisy pairs) is sampled while the header is in flight, or ahead for the same
bucket of the next step: while the bucket's first ring step is in flight (the autograd thread
then waits for it), or when the queue is empty; always from the same generators, so the
outputs do not depend on when it was sampled (in the real protocol these resources are
delivered before the step anyway).

1. **Header** (classical side-information). The first time the hook sees a bucket (and after
   an error in it), every rank contributes ``(max |g|, numel, -numel, code, -code)`` to one
   ``all_reduce`` with ``MAX`` of five float64 words, where ``code`` packs the dtype, the device
   and a non-finite flag. Every rank then holds the same five numbers: the common clipping bound
   ``max_abs`` (the largest ``max |g|``, so no value is ever clipped) and the largest and
   smallest ``numel`` and ``code`` over the ranks. If they differ, or the code is not "finite
   float32/float64 on the CPU", every rank knows it; they all gather the ranks' headers point
   to point (only then) and raise the same ``ValueError`` naming the ranks at fault. No rank is
   left waiting for a message that never comes. This side-information is *classical*, whatever
   the transport; it is counted per link as the bits a ring all-reduce of the five 64-bit words
   sends (``side_bits`` of :class:`LinkReport`; ``5 * 64`` per bucket at P = 2), separately
   from the ring's :class:`~qring_edu.ledger.Ledger`. It reveals the maximum of ``max |g|``
   over the ranks.

   **Bound agreed one step ahead** (delayed scaling, as FP8 training recipes scale by the largest
   magnitude of past steps; this schedule is the library's, not the paper summary's). After a
   bucket's ring every rank knows the same maximum ``h`` of ``max |g|`` over the ranks, and so
   agrees, with no message, on the bucket's next size, header code and bound ``B = 2 * max(h over
   the bucket's last 8 steps)``. At the next step the hook encodes the bucket at the scale of ``B``
   and posts the first ring step at once: no header round. Each reduce-scatter message carries,
   after the chunk's words, one float64 (its 8 bytes, in the same message): the running maximum
   of ``max |g|`` over the ranks whose words it carries (infinity from a rank whose bucket is not
   the agreed one: another size or dtype, a NaN or Inf; such a rank, and one whose
   ``max |g| > B``, sends zeros), so after the P - 1 reduce-scatter steps every rank
   holds the maximum ``h`` over all ranks. If ``h <= B`` the all-gather completes the ring.
   Otherwise every rank knows it, discards the partial sums and runs the whole ring again at the
   exact scale of ``h`` (``rescaled`` in :class:`LinkReport`; fresh pairs and GHZ copies); if ``h``
   is infinite the ranks first gather their local headers and raise the same ``ValueError`` as
   above, unless every rank's bucket changed alike. So no value is ever clipped either way; the
   price of skipping the round is resolution: ``|result - exact mean| <= B / (2 m)`` (item 5) with
   ``B`` in place of the current maximum, which costs ``log2(B / max |g|)`` of the ``bits``: about
   one when the gradients are steady, less while they grow, more after a step with an unusually
   large maximum. These header words are side bits too: 64 per reduce-scatter message, ``64 (P -
   1)`` per bucket and link. Each reveals the largest ``max |g|`` of its contributors (the first
   one, its sender's own) to the next rank and to anyone on the link. ``scale="exact"``
   (:class:`RingHookConfig`) keeps the header collective before every ring instead.
2. **Ring.** The bucket is encoded into ``bits``-bit words (round to nearest, scale
   ``s = floor((2**(bits-1) - 1) / P) / max_abs``, :func:`qring_edu.fixedpoint.fixed_point`), cut
   into P chunks with :func:`~qring_edu.ring.chunk_bounds`, and the 2(P-1) steps of
   :func:`~qring_edu.ring.ring_schedule` are executed with point-to-point messages: at every step
   rank r posts a receive from ``(r-1) % P`` and a send to ``(r+1) % P`` (straight on the
   group's ``ProcessGroup``) and waits for both,
   then adds (reduce-scatter) or overwrites (all-gather) modulo ``2**bits``. Words travel as the
   smallest integer type that holds them (int8, int16 or int32). The buffers (float64 scratch,
   uint32 words, send and receive wire buffers) are allocated once per bucket size and reused.
3. **Transport.** The *receiving* rank plays Bob for its incoming link ``(r-1, r)`` and records
   that link in its own ledger. ``"classical"``: the message's bits, untouched.
   ``"superdense"``: ``ceil(k/2)`` qubits for a k-bit message over as many pre-shared pairs
   (each distributed offline with one qubit); with pair fidelity F < 1 the receiver samples the
   Pauli frames of the isotropic pairs with the library's fast path
   (:func:`~qring_edu.superdense.pauli_frames`, :func:`~qring_edu.superdense.flipped_bit_positions`)
   and flips those bits of the words (bit p of the stream is bit ``p mod bits`` of word
   ``p div bits``, LSB first, as in :mod:`qring_edu.ring`). The noise generator of each message is
   seeded by ``(seed, iteration, sender, bucket index, ring step)``, so runs are reproducible.
4. **Private mode** (``private=True``, book/05_vga.ipynb, pads form of VGA). Before the ring every
   rank adds to its words its own row ``r_rank`` of zero-sum pads (``sum_j r_j = 0 mod 2**bits``)
   from verified GHZ states over Z_{2^bits}: one register-copy per entry, ``bits`` qubit GHZ
   copies each, and a further ``ceil(d / (1 - f)) - d`` register-copies (``f = test_fraction``,
   default 1/2: the 2x overhead) tested by GHZ tests, counted by
   :func:`qring_edu.vga.vga_copy_counts`. **This is a simulation**: the GHZ source is simulated
   deterministically from ``(seed, iteration, bucket index)``, so every rank derives the same
   source (uniformly random zero-sum pads, distributed as :func:`qring_edu.vga.zero_sum_pads`,
   which is what Fourier-measuring ideal GHZ registers gives, drawn from the generator's raw
   bits by :func:`_own_pads`, and the test outcomes), and each rank uses
   only its own register's outcomes; in the real protocol each rank holds one register and
   nobody else's pads exist anywhere. With ``ghz_source="honest"`` every test passes (an ideal
   GHZ always passes); ``"known_pads"`` simulates a source that chose the pads (product states):
   each qubit GHZ test fails with probability :func:`qring_edu.vga.known_pads_detection`, failed
   tests are sampled as a binomial count, and if any fails every rank raises the same
   ``ValueError`` before a word is sent. A source that treats every copy alike makes the choice
   of the secret test subset irrelevant to the outcome, so that choice is not simulated.
   The masked words, summed over the ring, give exactly the unmasked sum (the pads cancel), so
   the averages equal the unmasked hook's bit for bit; every reduce-scatter message is a partial
   sum of at most P - 1 masked words and hence uniform on ``0 .. 2**bits - 1`` and independent of
   the gradients for anyone without the pads (an eavesdropper on any link); the all-gather
   messages carry the reduced sum, which every rank learns anyway. Against a curious *rank* the
   VGA guarantee needs P >= 3 (a coalition of up to P - 2 ranks learns only the sum of the
   others); at P = 2 the other rank can subtract its own gradient from the sum. The ledger
   counts the qubit GHZ copies used (``d * bits`` per bucket) and tested.
5. **Result.** The decoded sum divided by P (the average DDP expects) is written into the bucket
   and set on the future. Per entry ``|result - exact mean| <= max_abs / (2 m)`` with
   ``m = floor((2**(bits-1) - 1) / P)`` (the fixed-point bound P / (2 s), divided by P; ``B`` in
   place of ``max_abs`` for a bucket sent at its agreed bound), plus the rounding of the result
   to the bucket's dtype. ``error_bound`` of :class:`LinkReport` is the largest such bound.

Use::

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
    model = DistributedDataParallel(net)
    state = RingHookState(transport="superdense", pair_fidelity=0.99, seed=0)
    model.register_comm_hook(state, ring_hook)
    ...                                   # train as usual
    reports = gather_reports(state)       # collective: every rank calls it

Always pass a finite ``timeout`` to ``init_process_group``: if a rank dies, its neighbours stop
waiting after that time (the bucket's future then holds the error) instead of hanging forever.

Cost. A bucket's first step makes 1 + 2(P-1) synchronisations (the header and the ring steps);
every later step 2(P-1), the ring's own, unless its maximum outgrew the bound (then 2(P-1) more).
A few NumPy passes over the bucket (encode on the hook's thread; add and decode on the worker)
stay in Python; gloo's built-in all-reduce runs in C++ on its own threads. Each hook bucket keeps
its own buffers (about 11 bytes per entry at 16 bits), so the hook can fill one bucket while the
worker still reduces another. The private mode's pads are drawn from the generator's raw
64-bit outputs, tens of thousands of entries at a time, into reused buffers (fresh large arrays
cost page faults, bucket after bucket). ``bench/bench_ddp.py`` measures the step time against
the built-in all-reduce.

This is the only module of the package that imports torch; ``import qring_edu`` works without it.
"""

from __future__ import annotations

import atexit
import math
import queue
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.distributed as dist

from ._validate import (
    check_bits,
    check_choice,
    check_fidelity,
    check_float,
    check_int,
    check_seed,
)
from .fixedpoint import FixedPoint, fixed_point, word_mask
from .launch import launch_local
from .ledger import Ledger
from .ring import TRANSPORTS, chunk_bounds, ring_schedule
from .states import frame_blocks
from .superdense import flipped_bit_positions, pauli_frames, symbols_needed
from .vga import known_pads_detection, vga_copy_counts

__all__ = [
    "RingHookConfig",
    "RingHookState",
    "LinkReport",
    "TappedMessage",
    "ring_hook",
    "allreduce_mean_",
    "gather_reports",
    "RingAverage",
    "ring_average",
    "launch_local",
    "DDPDemo",
    "ddp_demo",
    "HEADER_WORDS",
    "GHZ_SOURCES",
    "SCALES",
]

#: Words of the per-bucket header all-reduce (max |g|, numel, -numel, code, -code), each a
#: 64-bit float.
HEADER_WORDS = 5
#: GHZ sources the private mode can simulate (see the module docstring, item 4).
GHZ_SOURCES = ("honest", "known_pads")
#: How a hook bucket's scale is chosen (module docstring, item 1): agreed one step ahead after
#: its first step, or the exact maximum from a header collective before every ring.
SCALES = ("agreed", "exact")
_DTYPE_CODES = {torch.float32: 0, torch.float64: 1}
_DTYPE_NAMES = {0: "float32", 1: "float64"}
#: Header codes of a usable bucket: float32 / float64, on the CPU, finite (see _header_code).
_GOOD_CODES = (8.0, 12.0)
#: The clipping bound agreed one step ahead: a bucket's next bound is _HEADROOM times the
#: largest max |g| over the ranks in its last _HISTORY steps (module docstring, item 1).
_HEADROOM = 2.0
_HISTORY = 8
#: Kinds of point-to-point message, each with its own tags (see _tag): the ring's words (with
#: the running header after them on the reduce-scatter steps of a bucket whose bound was agreed
#: ahead), the words of a bucket sent again at a larger scale, and the local headers gathered
#: on the error path. (Kind 2, a separate message for the running header, is no longer used.)
_KIND_RING, _KIND_RESEND, _KIND_DETAIL = 0, 1, 3
#: Bucket indices are taken modulo this in tags (buckets in flight at once have other indices).
_TAG_BUCKETS = 1 << 12
#: Largest ring: every tag of _tag must fit a 32-bit signed int.
_MAX_RANKS = 1 << 16
#: Spawn key separating the GHZ source's random stream from the pair-noise streams.
_GHZ_STREAM = 0x6E7
#: Largest expected number of pair errors of a bucket's next step that the worker draws while
#: the bucket's first ring step is in flight (about 0.1 ms of sampling on the bench machine,
#: what the message's flight hides; a larger draw waits until the worker is idle).
_IN_FLIGHT_ERRORS = 4096
#: Bucket sizes whose buffers a state keeps (DDP uses a few fixed sizes).
_MAX_BUFFERS = 8
#: Entries per call of zero_sum_pads when a bucket's pads are drawn (see _own_pads).
_PAD_BLOCK = 32768


@dataclass(frozen=True)
class RingHookConfig:
    """What the ranks agree on before training (validated, immutable).

    ``transport``: ``"classical"`` or ``"superdense"``; ``bits``: word size b in 2..32;
    ``pair_fidelity``: F in [0.25, 1] (superdense only; must be 1 for classical);
    ``seed``: non-negative int seeding the pair noise and the simulated GHZ source;
    ``private``: mask every bucket with zero-sum pads from verified GHZ copies (module
    docstring, item 4); ``test_fraction``: f in [0, 1), the fraction of delivered GHZ
    register-copies that are tested (private only); ``ghz_source``: ``"honest"`` or
    ``"known_pads"`` (private only); ``scale``: ``"agreed"`` (after a bucket's first step, the
    bound agreed one step ahead, no header round) or ``"exact"`` (a header collective before
    every ring, the scale of the exact maximum: one more synchronisation per bucket, up to a bit
    more resolution; module docstring, item 1); ``process_group``: the group whose ranks form
    the ring (``None``: the default group).

    Examples
    --------
    >>> RingHookConfig(transport="superdense", pair_fidelity=0.99)
    RingHookConfig(transport='superdense', bits=16, pair_fidelity=0.99, seed=0, private=False, test_fraction=0.5, ghz_source='honest', scale='agreed')
    >>> RingHookConfig(pair_fidelity=0.99)
    Traceback (most recent call last):
    ...
    ValueError: pair_fidelity applies only to transport='superdense'; got pair_fidelity=0.99 with transport='classical'
    """

    transport: str = "classical"
    bits: int = 16
    pair_fidelity: float = 1.0
    seed: int = 0
    private: bool = False
    test_fraction: float = 0.5
    ghz_source: str = "honest"
    scale: str = "agreed"
    process_group: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_choice(self.transport, "transport", TRANSPORTS)
        object.__setattr__(self, "bits", check_bits(self.bits))
        object.__setattr__(self, "pair_fidelity", check_fidelity(self.pair_fidelity))
        if self.transport == "classical" and self.pair_fidelity != 1.0:
            raise ValueError(
                "pair_fidelity applies only to transport='superdense'; got "
                f"pair_fidelity={self.pair_fidelity:g} with transport='classical'"
            )
        check_seed(self.seed)
        if isinstance(self.seed, np.random.Generator) or self.seed is None:
            raise TypeError(
                "seed must be a non-negative integer (every rank derives its "
                f"noise from it), got {self.seed!r}"
            )
        object.__setattr__(self, "seed", int(self.seed))
        if not isinstance(self.private, (bool, np.bool_)):
            raise TypeError(f"private must be True or False, got {self.private!r}")
        object.__setattr__(self, "private", bool(self.private))
        f = check_float(self.test_fraction, "test_fraction", 0.0, 1.0, hi_open=True)
        object.__setattr__(self, "test_fraction", f)
        check_choice(self.ghz_source, "ghz_source", GHZ_SOURCES)
        check_choice(self.scale, "scale", SCALES)
        if not self.private and (f != 0.5 or self.ghz_source != "honest"):
            raise ValueError(
                "test_fraction and ghz_source apply only to private=True; got "
                f"test_fraction={f:g}, ghz_source={self.ghz_source!r} with "
                "private=False"
            )


@dataclass(frozen=True)
class LinkReport:
    """What one rank saw on its incoming link ``(rank - 1, rank)``, accumulated over all buckets.

    ``online_bits`` / ``online_qubits`` / ``ebits`` / ``offline_qubits``: the ring's ledger for
    that link (:class:`~qring_edu.ledger.Ledger` currencies). ``side_bits``: classical
    side-information (the bucket headers, see the module docstring). ``data_bits``: payload
    bits received (= ``online_bits`` for classical; ``<= 2 * online_qubits`` for superdense).
    ``flipped_bits``: payload bits flipped by noisy pairs. ``buckets``: buckets reduced;
    ``iterations``: training steps (buckets marked last). ``error_bound``: the largest per-entry
    bound ``max_abs / (2 m)`` on |average - exact mean| over the buckets so far.
    ``private``: the buckets were masked with GHZ pads; ``ghz_used`` / ``ghz_tested``: qubit
    GHZ copies consumed by the pads / spent on GHZ tests (each copy has one qubit per rank, so
    every rank counts the same); ``ghz_tests_failed``: failed qubit GHZ tests.
    ``rescaled``: buckets whose max |g| exceeded the bound agreed one step ahead (or whose size
    or dtype changed on every rank), so that every rank discarded the first sending and ran the
    ring again at the exact scale (module docstring, item 1); ``rescaled_entries``: the entries
    of those discarded sendings (the agreed sizes). Their reduce-scatter messages are counted
    in the ledger, ``data_bits`` and ``ghz_used`` too, because they crossed the links.

    Examples
    --------
    One bucket of 4 entries at P = 2, 16-bit words, superdense: 2 (P - 1) = 2 messages of 2 words
    arrive, 64 bits in 32 qubits; the header adds 5 x 64 = 320 side bits.

    >>> rep = LinkReport(rank=0, link=(1, 0), transport="superdense", online_bits=0,
    ...                  online_qubits=32, ebits=32, offline_qubits=32, side_bits=320,
    ...                  data_bits=64, flipped_bits=1, buckets=1, iterations=1, error_bound=1e-4)
    >>> rep.bit_error_rate
    0.015625
    """

    rank: int
    link: tuple[int, int]
    transport: str
    online_bits: int
    online_qubits: int
    ebits: int
    offline_qubits: int
    side_bits: int
    data_bits: int
    flipped_bits: int
    buckets: int
    iterations: int
    error_bound: float
    private: bool = False
    ghz_used: int = 0
    ghz_tested: int = 0
    ghz_tests_failed: int = 0
    rescaled: int = 0
    rescaled_entries: int = 0

    @property
    def bit_error_rate(self) -> float:
        """``flipped_bits / data_bits`` (0 when nothing was received)."""
        return self.flipped_bits / self.data_bits if self.data_bits else 0.0

    def __repr__(self) -> str:
        ghz = f", ghz_used={self.ghz_used}, ghz_tested={self.ghz_tested}" if self.private else ""
        return (
            f"LinkReport(link={self.link}, transport={self.transport!r}, "
            f"online_bits={self.online_bits}, online_qubits={self.online_qubits}, "
            f"ebits={self.ebits}, offline_qubits={self.offline_qubits}, "
            f"side_bits={self.side_bits}, flipped_bits={self.flipped_bits}, "
            f"buckets={self.buckets}, iterations={self.iterations}{ghz})"
        )


@dataclass(frozen=True)
class TappedMessage:
    """One message as it crossed this rank's incoming link (what an eavesdropper on the wire
    reads): ``words`` are the sender's ``bits``-bit words (uint32 copy, before the receiver's
    pair noise), at ring ``step`` (0 .. 2P-3) of ``phase`` (``"reduce-scatter"`` |
    ``"all-gather"``), for bucket ``bucket_index`` of training step ``iteration``; ``resent``:
    the bucket's second ring, at the exact scale, after its max |g| exceeded the bound agreed
    one step ahead (module docstring, item 1).

    Examples
    --------
    >>> TappedMessage(0, 1, 0, "reduce-scatter", 2, np.zeros(3, dtype=np.uint32))
    TappedMessage(iteration=0, bucket_index=1, step=0, phase='reduce-scatter', sender=2, words=3)

    ``RingHookState(tap=...)`` collects them on a real ring (here through :func:`ring_average`):
    at P = 2 rank 0 receives one reduce-scatter and one all-gather message of 2 words each.

    >>> ring_average([[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 0.0]], tap=True).tapped[0]
    (TappedMessage(iteration=0, bucket_index=0, step=0, phase='reduce-scatter', sender=1, words=2), TappedMessage(iteration=0, bucket_index=0, step=1, phase='all-gather', sender=1, words=2))
    """

    iteration: int
    bucket_index: int
    step: int
    phase: str
    sender: int
    words: np.ndarray = field(repr=False)
    resent: bool = False

    def __repr__(self) -> str:
        return (
            f"TappedMessage(iteration={self.iteration}, bucket_index={self.bucket_index}, "
            f"step={self.step}, phase={self.phase!r}, sender={self.sender}, "
            f"words={self.words.size}{', resent=True' if self.resent else ''})"
        )


class _Buffers:
    """Everything the worker needs for one bucket size d, allocated once and reused.

    ``words`` hold the bucket's residues in the wire type (uint8 / uint16 / uint32, the
    smallest that holds ``bits``): chunks are sent straight from it and all-gather messages are
    received straight into it; ``inc`` receives the reduce-scatter messages. A reduce-scatter
    message of a bucket whose bound was agreed one step ahead carries the running header too:
    ``out`` holds the chunk followed by the header's 8 bytes (``header_words`` wire words), and
    ``inc`` has room for them after the longest chunk (``out`` is allocated with ``header`` only:
    the buffers of a hook bucket).
    """

    def __init__(self, d: int, workers: int, bits: int, header: bool = False) -> None:
        unsigned, wire = _wire_dtype(bits)
        self.offsets = [int(v) for v in chunk_bounds(d, workers)]
        longest = max(b - a for a, b in zip(self.offsets, self.offsets[1:]))
        self.scratch = np.empty(d, dtype=np.float64)  # x * s, then the decoded mean
        self.words = np.empty(d, dtype=unsigned)
        self.header_words = 8 // unsigned.itemsize  # one float64
        self.inc = np.empty(longest + self.header_words, dtype=unsigned)
        self.words_t = torch.from_numpy(self.words.view(wire))  # the same memory
        self.inc_t = torch.from_numpy(self.inc.view(wire))
        # The running header of a bucket whose bound was agreed ahead (its maximum so far, and
        # the one received), and the outgoing message that carries it after the chunk.
        self.header = np.zeros(1, dtype=np.float64)
        self.header_in = np.zeros(1, dtype=np.float64)
        self.out = np.empty(longest + self.header_words if header else 0, dtype=unsigned)
        self.out_t = torch.from_numpy(self.out.view(wire))


class _Job:
    """One bucket on its way through the worker."""

    __slots__ = (
        "state",
        "tensor",
        "bucket_index",
        "iteration",
        "local",
        "header",
        "work",
        "future",
        "from_hook",
        "agreed",
        "buf",
        "posted",
    )

    def __init__(
        self, state, tensor, bucket_index, iteration, local, header, work, future, from_hook
    ):
        self.state, self.tensor = state, tensor
        self.bucket_index, self.iteration = bucket_index, iteration
        self.local, self.header, self.work, self.future = local, header, work, future
        self.from_hook = from_hook
        self.agreed = None  # (d, code, bound) agreed one step ahead, or None: header first
        self.buf = None  # the bucket's own buffers (agreed bound only)
        self.posted = None  # step 0's messages, posted by the hook (agreed bound only)


#: Worker threads still running, with their queues (see _stop_workers_at_exit).
_WORKERS: dict[threading.Thread, queue.SimpleQueue] = {}
#: Seconds the interpreter's exit waits for each worker to finish its queued buckets.
_EXIT_JOIN_TIMEOUT = 10.0


def _stop_workers_at_exit() -> None:
    """Stop every worker thread before the interpreter finalizes (``atexit``): a daemon thread
    that re-enters Python from a torch call (completing a bucket's future) while the
    interpreter finalizes is ended inside C++ code, which aborts the process ("terminate called
    without an active exception"). Each worker finishes the buckets already queued, then
    stops; one still waiting for a peer after ``_EXIT_JOIN_TIMEOUT`` seconds is left behind."""
    for thread, jobs in list(_WORKERS.items()):
        jobs.put(None)
        thread.join(timeout=_EXIT_JOIN_TIMEOUT)


atexit.register(_stop_workers_at_exit)


def _worker_loop(jobs: queue.SimpleQueue) -> None:
    """The worker thread of one RingHookState: run the jobs in queue order until ``None``; when
    the queue is empty, prepare the next step's pads and pair noise (:func:`_prepare_ahead`)."""
    try:
        _run_jobs(jobs)
    finally:
        _WORKERS.pop(threading.current_thread(), None)


def _run_jobs(jobs: queue.SimpleQueue) -> None:
    """The loop of :func:`_worker_loop`."""
    owner = None  # weak reference to the state, kept only while it has preparation to do
    while True:
        if owner is not None and jobs.empty():
            state = owner()
            try:
                busy = state is not None and _prepare_ahead(state)
            except Exception:  # noqa: BLE001 - never kill the worker: the bucket itself will
                busy = False  # prepare inline and put any error on its future
                state._ahead_todo.clear()
            del state
            if busy:
                continue
            owner = None
        job = jobs.get()
        if job is None:
            return
        if isinstance(job, torch.futures.Future):  # RingHookState.synchronize's marker
            job.set_result(None)
            continue
        try:
            result = _reduce_bucket(job)
        except BaseException as exc:  # noqa: BLE001 - every error goes to the bucket's future
            # The bucket's next step sends its header first again (on every rank: the errors
            # that reach here after the header are raised by every rank alike).
            job.state._agreed.pop(job.bucket_index, None)
            job.future.set_exception(exc)
        else:
            job.future.set_result(result)
            if job.state._ahead_todo:
                owner = weakref.ref(job.state)
        del job  # drop the reference to the state and the bucket while idle


class RingHookState:
    """State of :func:`ring_hook` on one rank: the frozen :class:`RingHookConfig`, counters and
    the worker thread that runs the ring.

    ``ledger``: a :class:`~qring_edu.ledger.Ledger` of the P-rank ring in which this rank records
    its incoming link ``(rank - 1, rank)``, accumulated over buckets and steps
    (``step_units`` keeps the largest message of each ring step). ``flipped_bits``,
    ``data_bits``, ``side_bits``, ``buckets``, ``iterations``, ``ghz_used``, ``ghz_tested``,
    ``ghz_tests_failed``: see :class:`LinkReport` (the worker updates them; read them after the
    buckets' futures are done, or through :meth:`report`, which waits).

    ``tap``: optional callable, called on the worker thread with a :class:`TappedMessage` for
    every message this rank receives (an eavesdropper on its incoming link; for teaching and
    tests, it costs a copy of every message).

    Requires an initialised process group with the gloo backend (the hook moves CPU tensors).
    Every rank of the group creates its state the same way; the worker thread stops when the
    state is closed (:meth:`close`) or garbage-collected.

    Examples
    --------
    On each rank, after ``dist.init_process_group("gloo", ...)``::

        state = RingHookState(transport="superdense", pair_fidelity=0.99, seed=0)
        model.register_comm_hook(state, ring_hook)

    :func:`ring_average` does this on P fresh processes for one bucket; with noisy pairs each
    rank's report counts the flipped bits of its incoming link (about 2 (1 - F) / 3 of them):

    >>> res = ring_average([[0.1] * 3000, [0.2] * 3000], transport="superdense",
    ...                    pair_fidelity=0.99, seed=0)
    >>> [(r.link, r.data_bits, r.online_qubits) for r in res.reports]
    [((1, 0), 48000, 24000), ((0, 1), 48000, 24000)]
    >>> [0.003 < r.bit_error_rate < 0.011 for r in res.reports]
    [True, True]
    """

    def __init__(
        self,
        *,
        transport: str = "classical",
        bits: int = 16,
        pair_fidelity: float = 1.0,
        seed: int = 0,
        private: bool = False,
        test_fraction: float = 0.5,
        ghz_source: str = "honest",
        scale: str = "agreed",
        process_group=None,
        tap: Callable[[TappedMessage], Any] | None = None,
    ):
        self.config = RingHookConfig(
            transport=transport,
            bits=bits,
            pair_fidelity=pair_fidelity,
            seed=seed,
            private=private,
            test_fraction=test_fraction,
            ghz_source=ghz_source,
            scale=scale,
            process_group=process_group,
        )
        if tap is not None and not callable(tap):
            raise TypeError(f"tap must be None or a callable, got {type(tap).__name__}")
        if not dist.is_available() or not dist.is_initialized():
            raise RuntimeError(
                "process_group: torch.distributed is not initialised; call "
                "dist.init_process_group('gloo', timeout=...) first"
            )
        backend = str(dist.get_backend(process_group))
        if backend != "gloo":
            raise ValueError(
                f"process_group must use the 'gloo' backend (the hook sends CPU "
                f"tensors point to point), got backend {backend!r}"
            )
        self.world_size = dist.get_world_size(process_group)
        if self.world_size < 2:
            raise ValueError(f"process_group must have P >= 2 ranks, got P = {self.world_size}")
        fixed_point(self.world_size, self.config.bits, 1.0)  # bits too small for P: fail now
        if self.world_size > _MAX_RANKS:
            raise ValueError(
                f"process_group must have at most {_MAX_RANKS} ranks (message tags), got "
                f"P = {self.world_size}"
            )
        self.rank = dist.get_rank(process_group)
        self.tap = tap
        P = self.world_size
        # Point-to-point messages go straight to the group's ProcessGroup object, in group ranks
        # (dist.isend / irecv add tens of microseconds of Python checks per message).
        self._pg = process_group if process_group is not None else dist.group.WORLD
        self._next = (self.rank + 1) % P
        self._prev = (self.rank - 1) % P
        self._n_steps = 2 * (P - 1)
        # This rank's messages of the ring schedule, fixed for the run: (sent, received) per step.
        schedule = ring_schedule(P)
        sender = (self.rank - 1) % P
        self._steps = [
            (schedule[step * P + self.rank], schedule[step * P + sender])
            for step in range(2 * (P - 1))
        ]
        # Header bits on the incoming link: the words a ring all-reduce of the header moves.
        hb = chunk_bounds(HEADER_WORDS, P)
        self._header_bits = 64 * sum(int(hb[m.chunk + 1] - hb[m.chunk]) for _, m in self._steps)
        self.ledger = Ledger(P, self.config.transport, 2 * (P - 1))
        self.side_bits = 0
        self.data_bits = 0
        self.flipped_bits = 0
        self.buckets = 0
        self.iterations = 0
        self.error_bound = 0.0
        self.ghz_used = 0
        self.ghz_tested = 0
        self.ghz_tests_failed = 0
        self.rescaled = 0
        self.rescaled_entries = 0
        self._buffers: OrderedDict[int, _Buffers] = OrderedDict()
        # Hook buckets: (d, header code, bound) agreed one step ahead, the bucket's own buffers
        # (the hook fills them while the worker may still use another bucket's) and the last
        # future handed out per tag slot. Written by the worker before it completes a bucket's
        # future, read by the hook after that future is done, so every rank reads the same.
        self._agreed: dict[int, tuple[int, float, float, tuple[float, ...]]] = {}
        self._own: dict[int, _Buffers] = {}
        self._last: dict[int, torch.futures.Future] = {}
        self._pad_pool: dict[int, list[np.ndarray]] = {}  # pad buffers per size, worker only
        # Pads and pair noise prepared ahead for (iteration, bucket index, d), worker only.
        self._ahead: dict[tuple[int, int, int], _Prepared] = {}
        self._ahead_todo: list[tuple[int, int, int]] = []
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(
            target=_worker_loop, args=(self._jobs,), daemon=True, name=f"qring-ring-rank{self.rank}"
        )
        self._closed = False
        _WORKERS[self._thread] = self._jobs
        self._thread.start()
        self._finalizer = weakref.finalize(self, self._jobs.put, None)

    @property
    def link(self) -> tuple[int, int]:
        """This rank's incoming link ``((rank - 1) % P, rank)``, in group ranks."""
        return ((self.rank - 1) % self.world_size, self.rank)

    # -- the worker ---------------------------------------------------------------------------
    def _submit(
        self, tensor, bucket_index: int, iteration: int, from_hook: bool
    ) -> torch.futures.Future:
        """Queue ``tensor`` for the worker (hook side). A hook bucket whose bound was agreed one
        step ahead is encoded here and its first ring step posted; any other bucket starts
        its header collective."""
        if self._closed:
            raise RuntimeError("this RingHookState is closed; create a new one")
        local = _local_header(tensor)
        fut: torch.futures.Future = torch.futures.Future()
        agreed = None
        if from_hook and self.config.scale == "agreed":
            slot = bucket_index % _TAG_BUCKETS
            last = self._last.get(slot)
            if last is not None and not last.done():
                # Under DDP the previous step's futures are done; a direct caller's may not
                # be, and the agreed bound is only the same on every rank once it is.
                try:
                    last.wait()
                except Exception:  # noqa: BLE001 - that bucket's caller gets its error
                    pass
            self._last[slot] = fut
            agreed = self._agreed.get(bucket_index)
        if agreed is None:
            code = _header_code(local)
            header = torch.tensor([local[3], local[0], -local[0], code, -code], dtype=torch.float64)
            work = dist.all_reduce(
                header, op=dist.ReduceOp.MAX, group=self.config.process_group, async_op=True
            )
            job = _Job(self, tensor, bucket_index, iteration, local, header, work, fut, from_hook)
        else:
            job = _Job(self, tensor, bucket_index, iteration, local, None, None, fut, True)
            job.agreed = agreed
            job.buf = self._own_buffers(bucket_index, agreed[0])
            if not self.config.private:  # pads are the worker's; the rest can start now
                _start_agreed(self, job, None)
        self._jobs.put(job)
        return fut

    def synchronize(self) -> None:
        """Wait until the worker has finished every bucket submitted so far (local)."""
        if self._closed or threading.current_thread() is self._thread:
            return
        marker: torch.futures.Future = torch.futures.Future()
        self._jobs.put(marker)
        marker.wait()

    def close(self) -> None:
        """Finish the queued buckets and stop the worker thread (idempotent)."""
        if not self._closed:
            self.synchronize()
            self._closed = True
            self._finalizer()
            self._thread.join()

    def _own_buffers(self, bucket_index: int, d: int) -> _Buffers:
        """The buffers of hook bucket ``bucket_index`` (``d`` entries), kept per bucket."""
        buf = self._own.get(bucket_index)
        if buf is None or buf.words.size != d:
            buf = self._own[bucket_index] = _Buffers(
                d, self.world_size, self.config.bits, header=True
            )
        return buf

    def _buffers_for(self, d: int) -> _Buffers:
        buf = self._buffers.get(d)
        if buf is None:
            buf = _Buffers(d, self.world_size, self.config.bits)
            self._buffers[d] = buf
            if len(self._buffers) > _MAX_BUFFERS:
                self._buffers.popitem(last=False)
        else:
            self._buffers.move_to_end(d)
        return buf

    # -- reporting ----------------------------------------------------------------------------
    def report(self) -> LinkReport:
        """This rank's counters as a :class:`LinkReport` (local, no communication; waits for
        the buckets already submitted)."""
        self.synchronize()
        sender = self.link[0]
        link = self.ledger.links[sender]
        return LinkReport(
            rank=self.rank,
            link=self.link,
            transport=self.config.transport,
            online_bits=self.ledger.online_bits(link),
            online_qubits=self.ledger.online_qubits(link),
            ebits=self.ledger.ebits(link),
            offline_qubits=self.ledger.offline_qubits(link),
            side_bits=self.side_bits,
            data_bits=self.data_bits,
            flipped_bits=self.flipped_bits,
            buckets=self.buckets,
            iterations=self.iterations,
            error_bound=self.error_bound,
            private=self.config.private,
            ghz_used=self.ghz_used,
            ghz_tested=self.ghz_tested,
            ghz_tests_failed=self.ghz_tests_failed,
            rescaled=self.rescaled,
            rescaled_entries=self.rescaled_entries,
        )

    def __repr__(self) -> str:
        c = self.config
        private = (
            f", private=True, ghz_source={c.ghz_source!r}, test_fraction={c.test_fraction:g}"
            if c.private
            else ""
        )
        return (
            f"RingHookState(rank={self.rank}, P={self.world_size}, transport={c.transport!r}, "
            f"bits={c.bits}, pair_fidelity={c.pair_fidelity:g}, seed={c.seed}{private}"
            f"{', scale=' + repr(c.scale) if c.scale != 'agreed' else ''}, "
            f"buckets={self.buckets}, flipped_bits={self.flipped_bits})"
        )


def ring_hook(state: RingHookState, bucket) -> torch.futures.Future:
    """DDP communication hook: average ``bucket.buffer()`` over the ring (see module docstring).

    ``bucket``: a ``torch.distributed.GradBucket`` (or any object with ``buffer()``, ``index()``
    and ``is_last()``); its buffer must be a 1-D CPU float32/float64 tensor of the same length on
    every rank. Returns at once a pending future; the worker thread overwrites the buffer with
    the average and sets it on the future. If any rank's bucket is bad, the future of that
    bucket holds the same ``ValueError`` on every rank (``future.wait()`` raises it).

    Examples
    --------
    Registered on a ``DistributedDataParallel`` model (every rank)::

        model.register_comm_hook(RingHookState(transport="superdense", seed=0), ring_hook)

    :func:`ddp_demo` does that on two processes: with perfect pairs the hook trains the network
    as gloo's built-in all-reduce does, up to the fixed-point rounding of the averages.

    >>> demo = ddp_demo(world_size=2, pair_fidelities=(1.0,), steps=3)
    >>> demo.labels
    ('built-in', 'classical', 'superdense F=1')
    >>> bool(abs(demo.losses["superdense F=1"] - demo.losses["built-in"]).max() < 1e-5)
    True
    """
    if not isinstance(state, RingHookState):
        raise TypeError(f"state must be a RingHookState, got {type(state).__name__}")
    fut = state._submit(bucket.buffer(), int(bucket.index()), state.iterations, True)
    if bucket.is_last():
        state.iterations += 1
    return fut


# DDP's register_comm_hook compares the annotations with the real objects (this module's
# ``from __future__ import annotations`` would leave strings there).
ring_hook.__annotations__ = {
    "state": RingHookState,
    "bucket": dist.GradBucket,
    "return": torch.futures.Future[torch.Tensor],
}


def allreduce_mean_(
    state: RingHookState, tensor: torch.Tensor, *, bucket_index: int = 0
) -> torch.Tensor:
    """Replace ``tensor`` (1-D, CPU, float32/float64) by its average over the ring, in place.

    A collective: every rank of ``state``'s group must call it with a tensor of the same length.
    It runs on the state's worker thread like a hook call and waits for the result; unlike a hook
    call it always starts with the header collective (its scale is the exact maximum, never a
    bound agreed one step ahead).
    ``bucket_index`` enters the noise seed. Returns ``tensor``; raises what the worker raised.

    Examples
    --------
    :func:`ring_average` calls it on every rank. With 8-bit words at P = 2 the code has
    m = floor(127 / 2) = 63 levels per rank and max_abs = 1: 0.3 and 0.1 are sent as 19 and 6,
    and their mean 0.2 comes back as 25 / 63 / 2, within max_abs / (2 m) = 0.0079 of it:

    >>> ring_average([[1.0, 0.3], [-1.0, 0.1]], bits=8).averages[0].round(4).tolist()
    [0.0, 0.1984]
    """
    if not isinstance(state, RingHookState):
        raise TypeError(f"state must be a RingHookState, got {type(state).__name__}")
    bucket_index = check_int(bucket_index, "bucket_index", 0)
    state._submit(tensor, bucket_index, state.iterations, False).wait()
    return tensor


# --------------------------------------------------------------------------------------------
# one bucket (on the worker thread)
# --------------------------------------------------------------------------------------------


def _reduce_bucket(job: _Job) -> torch.Tensor:
    """One bucket on the worker thread, by the header (module docstring, item 1) or by the
    bound agreed one step ahead (:func:`_reduce_agreed`); returns the bucket tensor."""
    if job.agreed is not None:
        return _reduce_agreed(job)
    state, tensor = job.state, job.tensor
    # While the header is in flight (and the other ranks may still be computing): what does not
    # depend on the gradients, the GHZ pads and the pairs' Pauli frames. In the real protocol
    # both are fixed before the step (GHZ copies and Bell pairs are delivered offline).
    d_local = int(job.local[0]) if _header_code(job.local) in _GOOD_CODES else 0
    prepared = _take_prepared(state, job.iteration, job.bucket_index, d_local)
    job.work.wait()
    state.side_bits += state._header_bits
    max_abs, n_max, n_min, c_max, c_min = job.header.tolist()
    n_min, c_min = -n_min, -c_min
    if not (n_max == n_min and c_max == c_min and c_max in _GOOD_CODES):
        table = _gather_local_headers(state, job)  # every rank takes this branch
        _check_headers(table)
        raise ValueError(f"bucket headers disagree between ranks: {table.tolist()}")  # unreached
    d = int(n_max)
    state.buckets += 1
    if d == 0:
        return tensor
    _exact_ring(state, job, prepared, d, max_abs, resent=False)
    if job.from_hook and state.config.scale == "agreed":  # no header round next step
        _agree(state, job.bucket_index, d, c_max, (max_abs,))
    _plan_ahead(state, job, d)
    return tensor


def _reduce_agreed(job: _Job) -> torch.Tensor:
    """A hook bucket whose (size, header code, bound B) every rank agreed one step ahead.

    Step 0 of the ring is already posted (by the hook, or here after the pads are added). Each
    reduce-scatter message travels with the running maximum ``h`` of its contributors' max |g|
    (infinity from a rank whose bucket is not what was agreed: another size or dtype, a
    non-finite entry), so after the P - 1 reduce-scatter steps every rank holds
    the same ``h``, the maximum over all ranks. ``h <= B``: the all-gather completes the ring
    at the scale of B, and the next bound is ``_HEADROOM * h``. ``h > B``: every rank
    discards the partial sums and runs the ring again at the exact scale (the header path
    without its collective: ``h`` is the common maximum); ``h`` infinite: the ranks gather
    their local headers, which raise the same ``ValueError`` everywhere unless every rank's
    bucket changed alike (then the ring runs again at the new size).
    """
    state, tensor = job.state, job.tensor
    cfg, P = state.config, state.world_size
    d, code, bound, history = job.agreed
    buf = job.buf
    prepared = _take_prepared(state, job.iteration, job.bucket_index, d)
    if job.posted is None:  # private: the worker adds the pads, then posts step 0
        if cfg.private:
            _account_ghz(state, job, prepared)  # raises on every rank before a word is sent
        _start_agreed(state, job, prepared)
    _prepare_in_flight(state, job, d)
    _ring_steps(state, buf, job, prepared.noise, range(P - 1), _KIND_RING, header=True)
    state.side_bits += 64 * (P - 1)
    h = float(buf.header[0])
    if h <= bound:
        codec = fixed_point(P, cfg.bits, bound)
        state.error_bound = max(state.error_bound, codec.error_bound / P)
        _ring_steps(state, buf, job, prepared.noise, range(P - 1, 2 * (P - 1)), _KIND_RING)
        _finish(state, job, codec, buf)
        state.buckets += 1
        _agree(state, job.bucket_index, d, code, (*history, h))
        _plan_ahead(state, job, d)
        return tensor
    max_abs, discarded = h, d
    if math.isinf(h):  # some rank's bucket is not the agreed one: every rank knows
        table = _gather_local_headers(state, job)
        _check_headers(table)  # the same ValueError on every rank, unless all changed alike
        d, code, max_abs = int(table[0, 0]), _header_code(list(table[0])), float(table[:, 3].max())
    state.buckets += 1
    state.rescaled += 1
    state.rescaled_entries += discarded  # the first sending, at the agreed size
    if d != discarded:  # the next step prepared in flight at the agreed size will not come
        state._ahead.pop((job.iteration + 1, job.bucket_index, discarded), None)
    if d == 0:
        state._agreed.pop(job.bucket_index, None)
        return tensor
    fresh = _prepare(state, job.iteration, job.bucket_index, d, resent=True)
    _exact_ring(state, job, fresh, d, max_abs, resent=True)
    _agree(state, job.bucket_index, d, code, (*history, max_abs))
    _plan_ahead(state, job, d)
    return tensor


def _agree(state: RingHookState, bucket_index: int, d: int, code: float, history: tuple) -> None:
    """Record what every rank agrees for the bucket's next step: its size, header code, the
    maxima over the ranks of its last ``_HISTORY`` steps and the bound B they give."""
    history = history[-_HISTORY:]
    top = max(history)
    state._agreed[bucket_index] = (d, code, _HEADROOM * (top if top > 0 else 1.0), history)


def _start_agreed(state: RingHookState, job: _Job, prepared: _Prepared | None) -> None:
    """Encode a bucket at its agreed bound (zeros if it is not the agreed bucket or exceeds the
    bound), add the pads (``prepared``, private mode) and post ring step 0 with its header
    message."""
    d, code, bound, _ = job.agreed
    buf, local = job.buf, job.local
    agreed = local[0] == d and _header_code(local) == code
    buf.header[0] = local[3] if agreed else math.inf
    if agreed and local[3] <= bound:
        codec = fixed_point(state.world_size, state.config.bits, bound)
        _encode_into(codec, job.tensor.detach().reshape(-1).numpy(), buf.scratch, buf.words)
    else:
        buf.words.fill(0)  # messages of the agreed sizes keep every rank in step
    if prepared is not None and prepared.pad is not None:
        _mask(state, buf, prepared)
    job.posted = _post_step(state, buf, job, 0, _KIND_RING, header=True)


def _exact_ring(
    state: RingHookState, job: _Job, prepared: _Prepared, d: int, max_abs: float, resent: bool
) -> None:
    """Encode at the scale of ``max_abs`` (the maximum over the ranks), (mask,) run the whole
    ring and write the average into the bucket."""
    cfg, P = state.config, state.world_size
    codec = fixed_point(P, cfg.bits, max_abs if max_abs > 0 else 1.0)
    state.error_bound = max(state.error_bound, codec.error_bound / P)
    if cfg.private:
        _account_ghz(state, job, prepared)  # raises on every rank if a GHZ test failed
    buf = state._buffers_for(d)
    _encode_into(codec, job.tensor.detach().reshape(-1).numpy(), buf.scratch, buf.words)
    if prepared.pad is not None:
        _mask(state, buf, prepared)
    kind = _KIND_RESEND if resent else _KIND_RING
    _ring_steps(state, buf, job, prepared.noise, range(2 * (P - 1)), kind)
    _finish(state, job, codec, buf)


def _mask(state: RingHookState, buf: _Buffers, prepared: _Prepared) -> None:
    """Add the bucket's pads to its words (private mode) and give the pad buffer back."""
    # Words and pads in the wire type: the sum wraps modulo 2**width, which is exact modulo
    # 2**bits; the mask reduces.
    np.add(buf.words, prepared.pad, out=buf.words)
    if state.config.bits < 8 * buf.words.itemsize:
        buf.words &= buf.words.dtype.type(word_mask(state.config.bits))
    _release_pads(state, prepared)


def _finish(state: RingHookState, job: _Job, codec: FixedPoint, buf: _Buffers) -> None:
    """Decode the ring's sum, divide by P and write it into the bucket."""
    _decode_into(codec, buf.words, buf.scratch)
    # One rounding, as FixedPoint.decode(...) / P, then one to the bucket's dtype: for a
    # contiguous tensor (every DDP bucket) in the same pass, numpy casting the float64 quotient
    # as tensor.copy_ would.
    tensor = job.tensor
    if tensor.is_contiguous():
        out = tensor.detach().view(-1).numpy()
        np.divide(buf.scratch, state.world_size, out=out, casting="same_kind")
        return
    buf.scratch /= state.world_size
    with torch.no_grad():
        tensor.copy_(torch.from_numpy(buf.scratch).view(tensor.shape))


def _take_prepared(state: RingHookState, iteration: int, bucket_index: int, d: int) -> _Prepared:
    """The bucket's pads and pair noise: prepared ahead by the worker, or now."""
    prepared = state._ahead.pop((iteration, bucket_index, d), None)
    return prepared if prepared is not None else _prepare(state, iteration, bucket_index, d)


def _noisy_pairs(cfg: RingHookConfig) -> bool:
    """Whether the transport's pairs flip bits (superdense, F < 1): pair noise to sample."""
    return cfg.transport == "superdense" and cfg.pair_fidelity < 1.0


def _plan_ahead(state: RingHookState, job: _Job, d: int) -> None:
    """DDP hands the same buckets every step: prepare this one for the next step when idle."""
    cfg = state.config
    if job.from_hook and (cfg.private or _noisy_pairs(cfg)):
        ahead = (job.iteration + 1, job.bucket_index, d)
        if ahead not in state._ahead and ahead not in state._ahead_todo:
            state._ahead_todo.append(ahead)


def _prepare_in_flight(state: RingHookState, job: _Job, d: int) -> None:
    """While the bucket's first ring step is in flight: its pads and pair noise for the next
    step (what :func:`_prepare_ahead` would do later, when the worker is idle). Now the
    autograd thread is waiting for this bucket, so the work does not compete with it for the
    interpreter or for a core; the same generators give the same draws either way. Pair noise
    is drawn here only while its expected number of errors, ``(P - 1) / P * d * bits * (1 -
    F)``, is at most ``_IN_FLIGHT_ERRORS`` (a longer draw would delay the ring itself)."""
    cfg = state.config
    noisy = _noisy_pairs(cfg)
    if not (cfg.private or noisy):
        return
    P = state.world_size
    if noisy and (P - 1) / P * d * cfg.bits * (1.0 - cfg.pair_fidelity) > _IN_FLIGHT_ERRORS:
        return  # a long draw would outlast the message: it waits for the idle worker
    key = (job.iteration + 1, job.bucket_index, d)
    if key not in state._ahead:  # steps already over are dropped, this step's other buckets kept
        _store_ahead(state, key, drop_before=job.iteration)


def _store_ahead(state: RingHookState, key: tuple[int, int, int], drop_before: int) -> None:
    """Prepare ``key`` = (iteration, bucket index, d) into ``state._ahead`` after dropping the
    entries of iterations before ``drop_before``; at most ``_MAX_BUFFERS`` entries are kept."""
    for old in [k for k in state._ahead if k[0] < drop_before]:
        del state._ahead[old]
    if len(state._ahead) < _MAX_BUFFERS:
        state._ahead[key] = _prepare(state, *key)


def _prepare_ahead(state: RingHookState) -> bool:
    """Prepare one bucket of the next step (worker thread, queue empty). Returns whether it
    did anything. Entries of past steps are dropped, and at most ``_MAX_BUFFERS`` are kept."""
    while state._ahead_todo:
        key = state._ahead_todo[0]
        if key[0] > state.iterations:
            return False  # this step's last bucket is still to come: it goes first
        state._ahead_todo.pop(0)
        if key[0] < state.iterations:
            continue  # a step that has begun already
        _store_ahead(state, key, drop_before=key[0])
        return True
    return False


def _encode_into(codec: FixedPoint, x: np.ndarray, scratch: np.ndarray, words: np.ndarray) -> None:
    """``words[:] = codec.encode(x)`` without temporaries (the same operations, bit for bit).

    No range check here: ``codec.max_abs`` is the maximum of every rank's ``max |x|`` (the
    header) and the header refused NaN/Inf, so ``|x| <= max_abs`` holds by construction.
    """
    np.multiply(x, codec.scale, out=scratch, dtype=np.float64)
    np.rint(scratch, out=scratch)
    # = scratch.astype(np.int32) cut to the width of ``words``: |x s| <= cap < 2**(bits-1), so
    # the signed integer of that width holds it and its two's-complement bits are the residue.
    signed = words.view(np.dtype(f"i{words.itemsize}"))
    np.copyto(signed, scratch, casting="unsafe")
    if codec.bits < 8 * words.itemsize:
        words &= words.dtype.type(word_mask(codec.bits))


def _decode_into(codec: FixedPoint, words: np.ndarray, out: np.ndarray) -> None:
    """``out[:] = codec.decode(words)`` in place (``words``, unsigned of any width, is consumed):
    sign-extend as :func:`~qring_edu.fixedpoint.to_signed` does (shift the word's top bit to
    the top of the type, shift back arithmetically), then divide by the scale."""
    shift = 8 * words.itemsize - codec.bits
    signed = words.view(np.dtype(f"i{words.itemsize}"))
    if shift:
        words <<= words.dtype.type(shift)
        signed >>= signed.dtype.type(shift)
    np.divide(signed, codec.scale, out=out)


def _header_code(local: list[float]) -> float:
    """One number for dtype, device and finiteness: ``(dtype code + 2) * 4 + 2 * off_cpu +
    nonfinite``; 8 (float32) and 12 (float64) are the usable buckets."""
    numel, dtype_code, on_cpu, _, nonfinite = local
    return (dtype_code + 2.0) * 4.0 + 2.0 * (1.0 - on_cpu) + nonfinite


def _local_header(tensor) -> list[float]:
    """[numel, dtype code (-1: not float32/64, -2: not a tensor), CPU flag, max |x| of a finite
    bucket (else 0), non-finite flag]."""
    if not isinstance(tensor, torch.Tensor):
        return [-1.0, -2.0, 0.0, 0.0, 0.0]
    code = _DTYPE_CODES.get(tensor.dtype, -1)
    on_cpu = tensor.device.type == "cpu"
    max_abs, nonfinite = 0.0, 0.0
    if code >= 0 and on_cpu and tensor.numel() > 0:
        # One pass, no temporary: NaN or Inf anywhere makes the min or the max non-finite.
        lo, hi = torch.aminmax(tensor.detach())
        max_abs = max(-float(lo), float(hi))
        if not math.isfinite(max_abs):
            max_abs, nonfinite = 0.0, 1.0
    return [float(tensor.numel()), float(code), float(on_cpu), max_abs, nonfinite]


def _gather_local_headers(state: RingHookState, job: _Job) -> np.ndarray:
    """Ring all-gather of the local headers, point to point (the error path only): a
    (P, HEADER_WORDS) float64 table, row k from group rank k."""
    P, r, pg = state.world_size, state.rank, state._pg
    table = np.zeros((P, HEADER_WORDS), dtype=np.float64)
    table[r] = job.local
    for s in range(P - 1):  # at step s rank r forwards row r - s and receives row r - 1 - s
        out = torch.from_numpy(table[(r - s) % P].copy())
        inc = torch.empty(HEADER_WORDS, dtype=torch.float64)
        tag = _tag(state, _KIND_DETAIL, job.bucket_index, s)
        works = [pg.recv([inc], state._prev, tag), pg.send([out], state._next, tag)]
        for w in works:
            w.wait()
        table[(r - 1 - s) % P] = inc.numpy()
    state.side_bits += (P - 1) * HEADER_WORDS * 64
    return table


def _check_headers(table: np.ndarray) -> None:
    """Raise the same ValueError on every rank if any rank's bucket is unusable."""
    bad_type = [k for k in range(table.shape[0]) if table[k, 1] == -2]
    if bad_type:
        raise ValueError(
            f"bucket.buffer() must be a torch.Tensor; rank(s) {bad_type} passed something else"
        )
    bad_dtype = [k for k in range(table.shape[0]) if table[k, 1] < 0]
    if bad_dtype:
        raise ValueError(
            f"bucket dtype must be float32 or float64 on every rank; rank(s) "
            f"{bad_dtype} passed another dtype"
        )
    off_cpu = [k for k in range(table.shape[0]) if table[k, 2] == 0]
    if off_cpu:
        raise ValueError(
            f"bucket must be a CPU tensor on every rank (gloo backend); rank(s) "
            f"{off_cpu} passed a tensor on another device"
        )
    sizes = table[:, 0].astype(np.int64)
    if np.any(sizes != sizes[0]):
        raise ValueError(
            "bucket size (numel) must be the same on every rank; got "
            + ", ".join(f"rank {k}: {int(n)}" for k, n in enumerate(sizes))
        )
    dtypes = table[:, 1].astype(np.int64)
    if np.any(dtypes != dtypes[0]):
        raise ValueError(
            "bucket dtype must be the same on every rank; got "
            + ", ".join(f"rank {k}: {_DTYPE_NAMES[int(c)]}" for k, c in enumerate(dtypes))
        )
    nonfinite = [k for k in range(table.shape[0]) if table[k, 4] != 0]
    if nonfinite:
        raise ValueError(f"bucket must be finite; rank(s) {nonfinite} hold NaN or Inf gradients")


class _Prepared:
    """What a bucket needs that does not depend on the gradients (see :func:`_prepare`)."""

    __slots__ = ("d", "pad", "ghz_tests", "ghz_failed", "noise")

    def __init__(self, d, pad=None, ghz_tests=0, ghz_failed=0, noise=None):
        self.d, self.pad, self.ghz_tests, self.ghz_failed = d, pad, ghz_tests, ghz_failed
        self.noise = noise if noise is not None else {}


def _prepare(
    state: RingHookState, iteration: int, bucket_index: int, d: int, resent: bool = False
) -> _Prepared:
    """The GHZ pads (private mode) and the pair noise of every incoming message (superdense,
    F < 1) of a bucket of d entries; nothing is counted here (see :func:`_account_ghz`).

    The GHZ source is simulated from ``(seed, iteration, bucket index)``: every rank derives
    the same source and keeps only its own register's outcomes (module docstring, item 4).
    The noise of each message comes from its own generator, seeded by ``(seed, iteration,
    sender, bucket index, ring step)``. A bucket sent again (``resent``) uses fresh GHZ
    copies and pairs: the same seeds with a further 1 appended.
    """
    cfg = state.config
    P, bits = state.world_size, cfg.bits
    prepared = _Prepared(d)
    if d <= 0:
        return prepared
    again = [1] if resent else []
    if cfg.private:
        rng = np.random.default_rng(
            np.random.SeedSequence(
                [cfg.seed, iteration, bucket_index, *again], spawn_key=(_GHZ_STREAM,)
            )
        )
        _, n_tested = vga_copy_counts(d, cfg.test_fraction)
        prepared.ghz_tests = n_tested * bits  # every qubit GHZ of a tested register-copy
        if cfg.ghz_source == "known_pads" and prepared.ghz_tests:
            prepared.ghz_failed = int(rng.binomial(prepared.ghz_tests, known_pads_detection(P)))
        prepared.pad = _own_pads(state, rng, d)  # own register only
    if _noisy_pairs(cfg):
        offsets = [int(v) for v in chunk_bounds(d, P)]
        kind = _wire_dtype(bits)[0].type
        sender = (state.rank - 1) % P
        for step, (_, in_msg) in enumerate(state._steps):
            n_bits = (offsets[in_msg.chunk + 1] - offsets[in_msg.chunk]) * bits
            if n_bits == 0:
                continue
            rng = np.random.default_rng([cfg.seed, iteration, sender, bucket_index, step, *again])
            prepared.noise[step] = _message_noise(n_bits, bits, cfg.pair_fidelity, rng, kind)
    return prepared


def _message_noise(n_bits: int, bits: int, fidelity: float, rng, kind):
    """The flips of one k-bit message of ``bits``-bit words over pairs of fidelity F:
    ``(word indices, XOR masks of the wire type, number of flipped bits)``, one mask per hit
    word, indices increasing. The draw is :func:`~qring_edu.superdense.pauli_frames` of
    ``ceil(k / 2)`` symbols from ``rng``; stream bit p is bit ``p mod bits`` of word
    ``p div bits`` (LSB first, as :mod:`qring_edu.ring`), symbol j carrying bits 2j (x) and
    2j + 1 (z). For even ``bits`` the symbols of a word are consecutive, so each error maps to
    its word and bit by one division; for odd ``bits`` through the flipped bit positions (a
    symbol may straddle two words; the padding bit of an odd message carries no data)."""
    if bits % 2 == 0:
        S = bits // 2
        words, masks, flipped = [], [], 0
        for pos, codes in frame_blocks(symbols_needed(n_bits), 1.0 - float(fidelity), rng):
            word, slot = np.divmod(pos, S)
            words.append(word)
            masks.append(codes.astype(kind) << (2 * slot).astype(kind))
            flipped += pos.size + int(np.count_nonzero(codes == 3))  # Y flips two bits
        if flipped == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=kind), 0
        index, mask = np.concatenate(words), np.concatenate(masks)
    else:
        positions, frames = pauli_frames(symbols_needed(n_bits), fidelity, rng)
        flips = flipped_bit_positions(positions, frames)
        flips = flips[flips < n_bits]  # the padding bit of an odd message carries no data
        flipped = int(flips.size)
        if flips.size == 0:
            return flips, np.zeros(0, dtype=kind), 0
        flips.sort()
        index = flips // bits
        mask = np.left_shift(kind(1), (flips % bits).astype(kind))
    # One XOR mask per hit word: its flipped bits are distinct, so OR = XOR.
    starts = np.flatnonzero(np.r_[True, index[1:] != index[:-1]])
    return index[starts], np.bitwise_or.reduceat(mask, starts), flipped


def _own_pads(state: RingHookState, rng: np.random.Generator, d: int) -> np.ndarray:
    """This rank's row of uniformly random zero-sum pads for d entries (the distribution of
    :func:`qring_edu.vga.zero_sum_pads`: rows 0 .. P-2 uniform on ``0 .. 2**bits - 1``, row
    P - 1 closing the sum modulo ``2**bits``), in the wire type, block by block.

    The draw, per block of ``n = min(_PAD_BLOCK, entries left)`` entries: ``ceil((P - 1) n /
    w)`` raw 64-bit outputs of the generator (``rng.bit_generator.random_raw``), read as
    little-endian wire words (``w`` = 8 / 4 / 2 words of 8 / 16 / 32 bits per output), the
    first ``(P - 1) n`` of them as rows 0 .. P-2 of n words each, each word masked to its
    low ``bits`` bits (uniform bits stay uniform). Every rank draws the same blocks and keeps
    its own row. No call allocates more than a few tens of kB (fresh large arrays cost page
    faults, bucket after bucket); the buffer comes from the state's pool (returned by
    :func:`_release_pads` once the pads are added)."""
    P, r, bits = state.world_size, state.rank, state.config.bits
    unsigned = _wire_dtype(bits)[0]
    mask = unsigned.type(word_mask(bits))
    per_output = 8 // unsigned.itemsize
    pool = state._pad_pool.get(d)
    pad = pool.pop() if pool else np.empty(d, dtype=unsigned)
    raw = rng.bit_generator.random_raw
    for lo in range(0, d, _PAD_BLOCK):
        n = min(d - lo, _PAD_BLOCK)
        words = raw(-(-(P - 1) * n // per_output)).view(unsigned)[: (P - 1) * n]
        out = pad[lo : lo + n]
        if r < P - 1:
            np.bitwise_and(words[r * n : (r + 1) * n], mask, out=out)
        else:  # the sum of the unmasked rows is the same modulo 2**bits
            np.sum(words.reshape(P - 1, n), axis=0, dtype=unsigned, out=out)
            np.negative(out, out=out)
            out &= mask
    return pad


def _release_pads(state: RingHookState, prepared: _Prepared) -> None:
    """Give the bucket's pad buffer back to the pool (it keeps two per bucket size)."""
    pool = state._pad_pool.setdefault(prepared.d, [])
    if len(pool) < 2 and len(state._pad_pool) <= _MAX_BUFFERS:
        pool.append(prepared.pad)
    prepared.pad = None


def _account_ghz(state: RingHookState, job: _Job, prepared: _Prepared) -> None:
    """Count the bucket's GHZ copies; raise ``ValueError`` (the same on every rank) if a GHZ
    test failed."""
    cfg = state.config
    state.ghz_used += prepared.d * cfg.bits
    state.ghz_tested += prepared.ghz_tests
    state.ghz_tests_failed += prepared.ghz_failed
    if prepared.ghz_failed:
        raise ValueError(
            f"GHZ verification failed for bucket {job.bucket_index} of step "
            f"{job.iteration}: {prepared.ghz_failed} of {prepared.ghz_tests} qubit "
            f"GHZ tests failed (ghz_source={cfg.ghz_source!r}); the pads are not "
            "used and no gradient word was sent"
        )


# --------------------------------------------------------------------------------------------
# the ring over the process group
# --------------------------------------------------------------------------------------------


def _wire_dtype(bits: int) -> tuple[np.dtype, np.dtype]:
    """(unsigned numpy type holding a word, numpy type of the same width that torch sends:
    uint8, int16 or int32)."""
    if bits <= 8:
        return np.dtype(np.uint8), np.dtype(np.uint8)
    if bits <= 16:
        return np.dtype(np.uint16), np.dtype(np.int16)
    return np.dtype(np.uint32), np.dtype(np.int32)


def _tag(state: RingHookState, kind: int, bucket_index: int, step: int) -> int:
    """The tag of a point-to-point message: its kind (``_KIND_*``), the bucket index (modulo
    ``_TAG_BUCKETS``) and the ring step, so that messages of two buckets in flight at once, or
    of two kinds, never meet."""
    return (kind * _TAG_BUCKETS + bucket_index % _TAG_BUCKETS) * state._n_steps + step


def _post_step(
    state: RingHookState, buf: _Buffers, job: _Job, step: int, kind: int, header: bool = False
) -> list:
    """Post ring step ``step`` of the bucket in ``buf``: the receive from the previous rank
    first, then the send to the next (straight on the ProcessGroup). With ``header`` (a
    reduce-scatter step of a bucket whose bound was agreed ahead) each message is the chunk
    followed by the running header, and is sent even when the chunk is empty (the maximum must
    go round). Returns the works to wait for."""
    pg = state._pg
    out_msg, in_msg = state._steps[step]
    offsets = buf.offsets
    slo, shi = offsets[out_msg.chunk], offsets[out_msg.chunk + 1]
    rlo, rhi = offsets[in_msg.chunk], offsets[in_msg.chunk + 1]
    tag = _tag(state, kind, job.bucket_index, step)
    if header:  # one message each way: one gloo call fewer per message than a separate header
        n, hw = shi - slo, buf.header_words
        buf.out[:n] = buf.words[slo:shi]
        buf.out.view(np.uint8)[n * buf.out.itemsize :][:8] = buf.header.view(np.uint8)
        return [
            pg.recv([buf.inc_t[: rhi - rlo + hw]], state._prev, tag),
            pg.send([buf.out_t[: n + hw]], state._next, tag),
        ]
    works = []
    if rhi > rlo:  # all-gather overwrites: receive straight into the chunk
        into = buf.words_t[rlo:rhi] if in_msg.phase == "all-gather" else buf.inc_t[: rhi - rlo]
        works.append(pg.recv([into], state._prev, tag))
    if shi > slo:  # empty chunks (d < P) are skipped by both ends alike
        works.append(pg.send([buf.words_t[slo:shi]], state._next, tag))
    return works


def _ring_steps(
    state: RingHookState,
    buf: _Buffers,
    job: _Job,
    noise: dict,
    steps: range,
    kind: int,
    header: bool = False,
) -> None:
    """Execute ``steps`` of :func:`~qring_edu.ring.ring_schedule` in place on ``buf.words``
    (with the running header: its maximum with the one received, after each step)."""
    cfg = state.config
    words = buf.words
    mask = words.dtype.type(word_mask(cfg.bits))
    reduce_mod = cfg.bits < 8 * words.itemsize
    sender = state._prev
    for step in steps:
        if step == 0 and kind == _KIND_RING and job.posted is not None:
            works, job.posted = job.posted, None
        else:
            works = _post_step(state, buf, job, step, kind, header)
        for w in works:
            w.wait()
        in_msg = state._steps[step][1]
        # in_msg is always another chunk than the one this rank sends, so sending from
        # ``words`` while receiving is safe.
        rlo, rhi = buf.offsets[in_msg.chunk], buf.offsets[in_msg.chunk + 1]
        if header:  # the running header: after the received chunk
            buf.header_in.view(np.uint8)[:] = buf.inc.view(np.uint8)[
                (rhi - rlo) * buf.inc.itemsize :
            ][:8]
            np.maximum(buf.header, buf.header_in, out=buf.header)
        if rhi == rlo:
            continue
        gather = in_msg.phase == "all-gather"
        received = words[rlo:rhi] if gather else buf.inc[: rhi - rlo]
        if state.tap is not None:
            state.tap(
                TappedMessage(
                    job.iteration,
                    job.bucket_index,
                    step,
                    in_msg.phase,
                    sender,
                    received.astype(np.uint32),
                    kind == _KIND_RESEND,
                )
            )
        _receive(state, received, sender, step, noise.get(step))
        if not gather:
            target = words[rlo:rhi]
            np.add(target, received, out=target)  # wraps modulo 2**width ...
            if reduce_mod:
                np.bitwise_and(target, mask, out=target)  # ... and the mask reduces mod 2**bits


def _receive(
    state: RingHookState,
    words: np.ndarray,
    sender: int,
    step: int,
    noise: tuple[np.ndarray, np.ndarray, int] | None,
) -> None:
    """Bob's side of link ``(sender, rank)``: record the message, apply the pair noise in place
    (``words``: the received words in their wire type; ``noise``: the hit words, their XOR
    masks and the number of flipped bits that :func:`_prepare` sampled, or None)."""
    cfg = state.config
    n_bits = words.size * cfg.bits
    state.data_bits += n_bits
    if cfg.transport == "classical":
        state.ledger.record(sender, step, bits=n_bits)
        return
    qubits = symbols_needed(n_bits)
    state.ledger.record(sender, step, qubits=qubits, ebits=qubits, offline_qubits=qubits)
    if noise is None:
        return  # noiseless dense coding decodes every symbol exactly
    index, masks, n_flips = noise
    state.flipped_bits += n_flips
    if n_flips:
        words[index] ^= masks  # each word at most once in ``index``


def gather_reports(state: RingHookState) -> list[LinkReport]:
    """Every rank's :class:`LinkReport`, in group-rank order (a collective: all ranks call it).

    Examples
    --------
    :func:`ring_average` returns what it gathered: at P = 3, rank r reports link (r - 1, r), and
    each link carries 2 (P - 1) = 4 messages of one 16-bit word.

    >>> [(r.rank, r.link, r.online_bits) for r in ring_average([[1.0] * 3] * 3).reports]
    [(0, (2, 0), 64), (1, (0, 1), 64), (2, (1, 2), 64)]
    """
    reports: list = [None] * state.world_size
    dist.all_gather_object(reports, state.report(), group=state.config.process_group)
    return reports


# --------------------------------------------------------------------------------------------
# one all-reduce over P real processes (a call that needs no torch.distributed setup)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RingAverage:
    """Result of :func:`ring_average`: ``averages`` (float64, shape (P, d)): row k is what rank
    k holds after the all-reduce; ``reports``: the P :class:`LinkReport` in rank order (from
    :func:`gather_reports`); ``tapped``: per rank, the :class:`TappedMessage` of every message
    it received (empty tuples unless ``tap=True``).

    Examples
    --------
    >>> res = ring_average([[1.0, 2.0], [3.0, 4.0]])
    >>> res
    RingAverage(P=2, d=2, transport='classical', private=False)
    >>> res.averages.round(3).tolist()
    [[2.0, 3.0], [2.0, 3.0]]
    """

    averages: np.ndarray = field(repr=False)
    reports: tuple = field(repr=False)
    tapped: tuple = field(repr=False)

    def __repr__(self) -> str:
        rep = self.reports[0]
        return (
            f"RingAverage(P={self.averages.shape[0]}, d={self.averages.shape[1]}, "
            f"transport={rep.transport!r}, private={rep.private})"
        )


def _average_worker(rank: int, world_size: int, rows: np.ndarray, config: dict, tap: bool) -> tuple:
    """One rank of :func:`ring_average`: its row through :func:`allreduce_mean_`."""
    seen: list = []
    state = RingHookState(**config, tap=seen.append if tap else None)
    try:
        out = allreduce_mean_(state, torch.from_numpy(rows[rank].copy()))
        reports = gather_reports(state)
    finally:
        state.close()
    return out.numpy(), reports, tuple(seen)


def ring_average(
    rows,
    *,
    transport: str = "classical",
    bits: int = 16,
    pair_fidelity: float = 1.0,
    seed: int = 0,
    private: bool = False,
    test_fraction: float = 0.5,
    ghz_source: str = "honest",
    tap: bool = False,
    timeout: float = 120.0,
) -> RingAverage:
    """Average the rows of ``rows`` over the ring of P = ``len(rows)`` real processes.

    Starts P gloo processes (:func:`launch_local`); rank k holds row k (float64, length d) and
    calls :func:`allreduce_mean_` on it with a :class:`RingHookState` built from the keywords
    (the same as :class:`RingHookConfig`'s), exactly as :func:`ring_hook` reduces one bucket;
    then :func:`gather_reports`. Row k of the result is rank k's average
    ``decode(sum_j encode(x_j)) / P``: within ``max_abs / (2 m)`` of the exact mean per entry
    (``m = floor((2**(bits-1) - 1) / P)``), the same on every rank unless noisy pairs flipped an
    all-gather bit. ``tap=True`` records every message each rank received
    (:class:`TappedMessage`, the words as they crossed the link).

    Parameters
    ----------
    rows : array_like, shape (P, d)
        Finite floats; 2 <= P <= 8 ranks, d >= 1.

    Returns
    -------
    RingAverage

    Examples
    --------
    With GHZ pads the words on every link change and the averages do not:

    >>> x = [[0.5, -0.25, 1.0], [0.25, 0.25, -1.0], [0.0, 1.0, 0.5]]
    >>> plain = ring_average(x)
    >>> masked = ring_average(x, private=True)
    >>> bool((plain.averages == masked.averages).all())
    True
    >>> masked.averages[0].round(4).tolist()
    [0.25, 0.3333, 0.1667]
    >>> [(r.ghz_used, r.ghz_tested) for r in masked.reports]  # 3 entries x 16 bits, f = 1/2
    [(48, 48), (48, 48), (48, 48)]
    """
    arr = np.asarray(rows)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"rows must hold real numbers (int or float), got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"rows must be a 2-D array (P ranks x d entries), got shape {arr.shape}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    check_int(arr.shape[0], "rows (number of ranks P = len(rows))", 2, 8)
    check_int(arr.shape[1], "rows (entries per rank d)", 1)
    if not np.all(np.isfinite(arr)):
        raise ValueError("rows must be finite (no NaN or Inf)")
    if not isinstance(tap, (bool, np.bool_)):
        raise TypeError(f"tap must be True or False, got {tap!r}")
    timeout = check_float(timeout, "timeout", 0.0, lo_open=True)
    config = dict(
        transport=transport,
        bits=bits,
        pair_fidelity=pair_fidelity,
        seed=seed,
        private=private,
        test_fraction=test_fraction,
        ghz_source=ghz_source,
    )
    RingHookConfig(**config)  # bad keywords fail here, before any process starts
    fixed_point(arr.shape[0], bits, 1.0)
    per_rank = launch_local(
        _average_worker, arr.shape[0], (arr, config, bool(tap)), timeout=timeout
    )
    return RingAverage(
        averages=np.stack([r[0] for r in per_rank]),
        reports=tuple(per_rank[0][1]),
        tapped=tuple(r[2] for r in per_rank),
    )


# --------------------------------------------------------------------------------------------
# a small demonstration: the chapter-3 network trained under DDP with and without the hook
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DDPDemo:
    """Result of :func:`ddp_demo`: the same training run under several all-reduces.

    ``labels``: run names (``"built-in"`` = gloo's all-reduce without a hook, then
    ``"classical"`` and ``"superdense F=..."`` with :func:`ring_hook`, and ``"private"``, the
    classical transport with GHZ pads, if asked for). ``losses[label]``: array
    (steps + 1, P), replica k's loss on the whole training set before step 0 and after every step.
    ``reports[label]``: the P :class:`LinkReport` (none for the built-in run).
    ``grad_error[label]``: max |hook average - built-in average| over the first step's gradient.
    ``divergence[label]``: max |w_k - w_0| over replicas and parameters at the end.
    ``n_params``: parameters of the network (one gradient bucket).

    Examples
    --------
    >>> DDPDemo(world_size=2, steps=1, bits=16, n_params=82, labels=("built-in", "private"),
    ...         losses={}, reports={}, grad_error={}, divergence={})
    DDPDemo(P=2, steps=1, bits=16, n_params=82, runs=['built-in', 'private'])
    """

    world_size: int
    steps: int
    bits: int
    n_params: int
    labels: tuple[str, ...]
    losses: dict = field(repr=False)
    reports: dict = field(repr=False)
    grad_error: dict = field(repr=False)
    divergence: dict = field(repr=False)

    def __repr__(self) -> str:
        return (
            f"DDPDemo(P={self.world_size}, steps={self.steps}, bits={self.bits}, "
            f"n_params={self.n_params}, runs={list(self.labels)})"
        )


def _moons_model(hidden: int) -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Linear(2, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 2)
    ).double()


def _demo_worker(
    rank: int,
    world_size: int,
    runs: list,
    steps: int,
    bits: int,
    hidden: int,
    n_samples: int,
    batch_size: int,
    lr: float,
    seed: int,
) -> dict:
    """One rank of :func:`ddp_demo`: train the moons MLP once per entry of ``runs``."""
    from torch.nn.parallel import DistributedDataParallel

    from .training import make_moons

    X, y = make_moons(n_samples, seed=seed)
    X, y = torch.from_numpy(X), torch.from_numpy(y)
    shard = torch.arange(rank, n_samples, world_size)
    loss_fn = torch.nn.CrossEntropyLoss()
    out: dict = {"losses": {}, "reports": {}, "grads": {}, "weights": {}}
    for label, transport, fidelity, private in runs:
        torch.manual_seed(seed)  # identical initial weights in every run (DDP also broadcasts)
        net = _moons_model(hidden)
        model = DistributedDataParallel(net)
        state = None
        if transport is not None:
            state = RingHookState(
                transport=transport, bits=bits, pair_fidelity=fidelity, seed=seed, private=private
            )
            model.register_comm_hook(state, ring_hook)
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        batches = np.random.default_rng([seed, rank])
        losses = []
        for step in range(steps):
            with torch.no_grad():
                losses.append(float(loss_fn(net(X), y)))
            idx = shard[torch.from_numpy(batches.choice(shard.numel(), batch_size, replace=False))]
            opt.zero_grad()
            loss_fn(model(X[idx]), y[idx]).backward()
            if step == 0:
                out["grads"][label] = (
                    torch.cat([p.grad.reshape(-1) for p in net.parameters()]).numpy().copy()
                )
            opt.step()
        with torch.no_grad():
            losses.append(float(loss_fn(net(X), y)))
        out["losses"][label] = losses
        out["weights"][label] = (
            torch.cat([p.detach().reshape(-1) for p in net.parameters()]).numpy().copy()
        )
        if state is not None:
            out["reports"][label] = state.report()
            state.close()
    out["n_params"] = sum(p.numel() for p in net.parameters())
    return out


def ddp_demo(
    *,
    world_size: int = 2,
    pair_fidelities: tuple[float, ...] = (1.0, 0.99),
    steps: int = 40,
    bits: int = 16,
    hidden: int = 16,
    n_samples: int = 400,
    batch_size: int = 32,
    lr: float = 0.5,
    seed: int = 0,
    private: bool = False,
    timeout: float = 300.0,
) -> DDPDemo:
    """Train the chapter-3 network (2-``hidden``-2 tanh MLP, float64, two moons) under real DDP.

    Spawns ``world_size`` gloo processes (:func:`launch_local`) which train the same network from
    the same weights on the same mini-batches several times: with gloo's built-in all-reduce,
    with :func:`ring_hook` on the classical transport, and with the superdense transport at each
    of ``pair_fidelities``; with ``private=True`` also with the classical transport in private
    mode (GHZ pads, ``RingHookState(private=True)``), whose losses equal the classical run's
    exactly. Worker k holds the points ``k, k + P, ...`` and draws mini-batches of
    ``batch_size`` from them with a generator seeded by ``(seed, k)``. Returns a :class:`DDPDemo`.

    Examples
    --------
    The private run (GHZ pads) trains exactly as the classical hook, and uses
    ``steps x n_params x bits`` qubit GHZ copies per rank (as many again tested):

    >>> demo = ddp_demo(world_size=3, pair_fidelities=(), steps=2, private=True)
    >>> demo
    DDPDemo(P=3, steps=2, bits=16, n_params=82, runs=['built-in', 'classical', 'private'])
    >>> bool((demo.losses["private"] == demo.losses["classical"]).all())
    True
    >>> [(r.ghz_used, r.ghz_tested) for r in demo.reports["private"]]
    [(2624, 2624), (2624, 2624), (2624, 2624)]
    """
    world_size = check_int(world_size, "world_size", 2, 8)
    steps = check_int(steps, "steps", 1)
    bits = check_bits(bits)
    fixed_point(world_size, bits, 1.0)
    hidden = check_int(hidden, "hidden", 1)
    n_samples = check_int(n_samples, "n_samples", 2 * world_size)
    batch_size = check_int(batch_size, "batch_size", 1, n_samples // world_size)
    lr = check_float(lr, "lr", 0.0, lo_open=True)
    seed = check_int(seed, "seed", 0)
    if not isinstance(pair_fidelities, (tuple, list)):
        raise TypeError("pair_fidelities must be a tuple of fidelities in [0.25, 1]")
    fids = tuple(check_fidelity(f, "pair_fidelities") for f in pair_fidelities)
    if not isinstance(private, (bool, np.bool_)):
        raise TypeError(f"private must be True or False, got {private!r}")
    runs = [("built-in", None, 1.0, False), ("classical", "classical", 1.0, False)]
    runs += [(f"superdense F={f:g}", "superdense", f, False) for f in fids]
    if private:
        runs.append(("private", "classical", 1.0, True))
    per_rank = launch_local(
        _demo_worker,
        world_size,
        (runs, steps, bits, hidden, n_samples, batch_size, lr, seed),
        timeout=timeout,
    )
    labels = tuple(r[0] for r in runs)
    losses = {lab: np.array([pr["losses"][lab] for pr in per_rank]).T for lab in labels}
    reports = {
        lab: tuple(pr["reports"][lab] for pr in per_rank) for lab in labels if lab != "built-in"
    }
    ref = per_rank[0]["grads"]["built-in"]
    grad_error = {
        lab: float(max(np.max(np.abs(pr["grads"][lab] - ref)) for pr in per_rank)) for lab in labels
    }
    divergence = {
        lab: float(
            max(np.max(np.abs(pr["weights"][lab] - per_rank[0]["weights"][lab])) for pr in per_rank)
        )
        for lab in labels
    }
    return DDPDemo(
        world_size=world_size,
        steps=steps,
        bits=bits,
        n_params=int(per_rank[0]["n_params"]),
        labels=labels,
        losses=losses,
        reports=reports,
        grad_error=grad_error,
        divergence=divergence,
    )
