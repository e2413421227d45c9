"""The ring all-reduce as a PyTorch DDP communication hook (book/appendix_ddp.ipynb).

:func:`ring_hook` averages each gradient bucket (a flat float tensor; Li et al. 2020, "PyTorch
distributed") with the library's ring, synchronously, over gloo, and returns a completed future.
On rank r of P, per bucket:

1. **Header**: one ``all_reduce`` (MAX) of four float64 words, ``[max |x| (inf for NaN/Inf),
   length, -length, not-a-float-CPU-tensor flag]``, so every rank raises the same error or none.
   Classical side information, counted apart from the ledger (``side_bits``).
2. **Code**: :func:`~qring_edu.fixedpoint.fixed_point` ``(P, bits, M)``, M the header's maximum
   (1 if all zero), the code :func:`~qring_edu.ring.ring_allreduce` picks for the stacked buckets.
3. **Pads** (``private=True``, book/05_vga.ipynb): rank r adds its row of
   :func:`~qring_edu.vga.zero_sum_pads` (rows sum to 0 mod ``2**bits``), *simulated* from a
   stream of the shared seed (GHZ tests not simulated). The sum is unchanged bit for bit; every
   reduce-scatter message is uniform on ``0 .. 2**bits - 1`` without the pads (against a curious
   rank, P >= 3).
4. **Ring**: :func:`~qring_edu.ring.ring_pass`; its ``exchange`` sends to r+1, receives from
   r-1, then plays Bob on the incoming link (``transport.send``: ledger and noise, from the
   message's own stream, as :func:`~qring_edu.ring.ring_allreduce` draws it).
5. **Result**: ``decode(words) / P`` in the bucket's dtype.

**Seeds.** Call c (0, 1, ...) of bucket index b uses ``[seed, c, b]``: rank r's result equals
``ring_allreduce(G, transport=..., bits=..., seed=[seed, c, b]).outputs[r] / P`` bit for bit (G
the buckets stacked in rank order; with ``private=True``, for a noiseless transport).

**Cost.** 1 + 2(P - 1) synchronisations per bucket, not overlapped with the backward pass
(``bench/bench_ddp.py``). :class:`RingGroup` carries torch's PowerSGD hook over the ring. Use
(every rank, after ``dist.init_process_group("gloo", timeout=...)``)::

    state = RingHookState(transport="superdense", pair_fidelity=0.99, seed=0)
    model.register_comm_hook(state, ring_hook)  # model: a DistributedDataParallel
    reports = gather_reports(state)             # after training; a collective

The only protocol module that imports torch; ``import qring_edu`` works without it.
"""

import math
from dataclasses import field

import numpy as np
import torch
import torch.distributed as dist

from ._result import result
from ._validate import as_numeric_array, check_bits, check_float, check_int
from .fixedpoint import fixed_point, word_mask
from .launch import launch_local
from .ledger import Ledger
from .ring import chunk_bounds, message_bits, ring_pass, sent_chunk
from .transports import as_transport
from .vga import zero_sum_pads

__all__ = [
    "RingHookState",
    "ring_hook",
    "allreduce_mean_",
    "LinkReport",
    "gather_reports",
    "RingGroup",
    "RingAverage",
    "ring_average",
]

#: Words of the header all-reduce: max |x|, length, -length, bad-tensor flag (float64 each).
_HEADER_WORDS = 4
#: Spawn key of the pads' stream: one entry, where every message's stream has two (step, sender).
_PAD_STREAM = 1 << 31


@result
class LinkReport:
    """What one rank saw on its incoming link ``(rank - 1, rank)``, summed over its calls.

    ``online_bits`` .. ``offline_bits``: the link's :class:`~qring_edu.ledger.Ledger`;
    ``side_bits``: the headers (module docstring, item 1); ``data_bits`` received, of which
    ``flipped_bits`` flipped by noise; ``buckets``: calls; ``error_bound``: the largest bound on
    ``|result - exact mean|`` per entry, ``M / (2 m)``, ``m = floor((2**(bits-1) - 1) / P)``;
    ``ghz_copies``: qubit GHZ copies the pads consumed (``bits`` per entry and call).

    Examples
    --------
    >>> rep = LinkReport(rank=0, link=(1, 0), transport="superdense", online_bits=0,
    ...                  online_qubits=32, ebits=32, offline_qubits=32, offline_bits=0,
    ...                  side_bits=256, data_bits=64, flipped_bits=1)
    >>> rep.bit_error_rate
    0.015625
    """

    rank: int
    link: tuple
    transport: str
    online_bits: int
    online_qubits: int
    ebits: int
    offline_qubits: int
    offline_bits: int = field(repr=False)
    side_bits: int = field(repr=False)
    data_bits: int = field(repr=False)
    flipped_bits: int = 0
    buckets: int = 0
    error_bound: float = field(default=0.0, repr=False)
    ghz_copies: int = field(default=0, repr=False)

    @property
    def bit_error_rate(self) -> float:
        """``flipped_bits / data_bits`` (0 when nothing was received)."""
        return self.flipped_bits / self.data_bits if self.data_bits else 0.0


class RingHookState:
    """What :func:`ring_hook` keeps on one rank: options, process group, calls per bucket index
    (``calls``, the seed's c) and the P-rank ``ledger`` (this rank records its incoming link).

    ``transport``: a transport value, "classical" or "superdense" (``**link`` with the latter;
    :func:`~qring_edu.transports.as_transport`); ``bits`` in 2..32 with ``2**(bits-1) - 1 >=
    P``; ``private``: zero-sum pads (module docstring, item 3); ``seed`` >= 0, the same on every
    rank; ``process_group``: the gloo group forming the ring (default: the whole world).

    Examples
    --------
    :func:`ring_average` builds one on each of P processes; with noisy pairs each rank's report
    counts the bits flipped on its incoming link (about 2 (1 - F) / 3 of them):

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
        transport="classical",
        bits: int = 16,
        private: bool = False,
        seed: int = 0,
        process_group=None,
        **link,
    ):
        self.transport = as_transport(transport, **link)
        self.bits = check_bits(bits)
        if not isinstance(private, (bool, np.bool_)):
            raise TypeError(f"private must be True or False, got {private!r}")
        self.private = bool(private)
        self.seed = check_int(seed, "seed", 0)  # every rank must derive the same streams
        if not dist.is_available() or not dist.is_initialized():
            raise RuntimeError(
                "process_group: torch.distributed is not initialised; call "
                "dist.init_process_group('gloo', timeout=...) first"
            )
        self.group = process_group if process_group is not None else dist.group.WORLD
        backend = str(dist.get_backend(self.group))
        if backend != "gloo":
            raise ValueError(f"process_group must use the 'gloo' backend, got {backend!r}")
        P = self.world_size = dist.get_world_size(self.group)
        if P < 2:
            raise ValueError(f"process_group must have P >= 2 ranks, got P = {P}")
        fixed_point(P, self.bits, 1.0)  # bits too small for P: every rank raises here
        self.rank = dist.get_rank(self.group)
        self.ledger = Ledger(P, self.transport.name, 2 * (P - 1))
        # What a ring all-reduce of the header's 64-bit words moves over the incoming link.
        self.header_bits = 2 * int(message_bits(P, _HEADER_WORDS, 32).sum(axis=1)[self.link[0]])
        self.calls: dict[int, int] = {}
        self.side_bits = self.data_bits = self.flipped_bits = self.ghz_copies = 0
        self.error_bound = 0.0

    @property
    def link(self) -> tuple[int, int]:
        """This rank's incoming link ``((rank - 1) % P, rank)``, in group ranks."""
        return ((self.rank - 1) % self.world_size, self.rank)

    def report(self) -> LinkReport:
        """This rank's counters as a :class:`LinkReport` (local, no communication)."""
        return LinkReport(
            rank=self.rank,
            link=self.link,
            transport=self.transport.name,
            **self.ledger.as_dict(self.link),
            side_bits=self.side_bits,
            data_bits=self.data_bits,
            flipped_bits=self.flipped_bits,
            buckets=sum(self.calls.values()),
            error_bound=self.error_bound,
            ghz_copies=self.ghz_copies,
        )

    def __repr__(self) -> str:
        return (
            f"RingHookState(rank={self.rank}, P={self.world_size}, transport={self.transport!r}, "
            f"bits={self.bits}, private={self.private}, seed={self.seed})"
        )


def _local_header(tensor) -> list[float]:
    """[max |x| (inf if NaN or Inf), length, -length, 1 if not a float32/64 CPU tensor]."""
    if not (
        isinstance(tensor, torch.Tensor)
        and tensor.dtype in (torch.float32, torch.float64)
        and tensor.device.type == "cpu"
    ):
        return [0.0, 0.0, 0.0, 1.0]
    largest = 0.0
    if tensor.numel():
        lo, hi = (float(v) for v in torch.aminmax(tensor.detach()))
        largest = max(-lo, hi) if math.isfinite(lo) and math.isfinite(hi) else math.inf
    return [largest, float(tensor.numel()), -float(tensor.numel()), 0.0]


def _check_header(header: list[float]) -> None:
    """The same error on every rank: every rank holds the same MAX-reduced header."""
    largest, n_max, minus_n_min, bad = header
    if bad:
        raise TypeError(
            "tensor (the bucket) must be a float32 or float64 CPU tensor on every rank "
            "(gloo); some rank's is not"
        )
    if n_max != -minus_n_min:
        raise ValueError(
            "tensor (the bucket) must have the same length on every rank; lengths range "
            f"from {int(-minus_n_min)} to {int(n_max)}"
        )
    if math.isinf(largest):
        raise ValueError("gradients must be finite: some rank's bucket holds NaN or Inf")


def _reduce(state: RingHookState, tensor, bucket_index: int, *, mean: bool) -> None:
    """The sum (``mean``: the average) of ``tensor`` over the ring, in place (module docstring)."""
    P, r, bits = state.world_size, state.rank, state.bits
    header = torch.tensor(_local_header(tensor), dtype=torch.float64)
    dist.all_reduce(header, op=dist.ReduceOp.MAX, group=state.group)
    state.side_bits += state.header_bits
    _check_header(header.tolist())
    c = state.calls.get(bucket_index, 0)
    state.calls[bucket_index] = c + 1
    d = tensor.numel()
    if d == 0:
        return
    root = np.random.SeedSequence([state.seed, c, bucket_index])
    codec = fixed_point(P, bits, float(header[0]) or 1.0)  # max |x| over the ranks, 1 if all 0
    x = tensor.detach().reshape(-1).numpy()
    words = codec.encode(x, out=x.view(np.uint32) if x.dtype == np.float32 else None)
    if state.private:
        # every rank derives the same pad seed and draws its own row of the zero-sum pads
        pad_seed = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, _PAD_STREAM))
        words += zero_sum_pads(P, d, bits, pad_seed, worker=r)
        words &= np.uint32(word_mask(bits))  # the sum wrapped modulo 2**32; reduce mod 2**b
        state.ghz_copies += d * bits
    ring_pass([words], [r], P, bits, _exchange(state, root, d))
    codec.decode(words, out=x)  # into the bucket itself when it is contiguous (x is a view)
    if mean:
        x /= P  # in the bucket's dtype, as ring_allreduce(...).outputs / P
    with torch.no_grad():
        tensor.copy_(torch.from_numpy(x).view(tensor.shape))
    state.error_bound = max(state.error_bound, codec.error_bound / (P if mean else 1))


def _exchange(state: RingHookState, root: np.random.SeedSequence, d: int):
    """The ``exchange`` of :func:`~qring_edu.ring.ring_pass` for this rank: send to r+1, receive
    from r-1 (gloo point-to-point), then the incoming link's transport (noise and ledger)."""
    P, r = state.world_size, state.rank
    prev, nxt = (r - 1) % P, (r + 1) % P
    bounds = chunk_bounds(d, P)

    def exchange(step: int, sends: dict) -> dict:
        out = sends[r]
        c = sent_chunk(prev, step, P)
        inc = np.empty(bounds[c + 1] - bounds[c], dtype=np.uint32)
        sending = None
        if out.size:  # an empty chunk (d < P) is skipped by both ends alike
            wire = torch.from_numpy(out.view(np.int32))  # gloo has no uint32
            sending = dist.isend(wire, group=state.group, group_dst=nxt)
        if inc.size:
            dist.recv(torch.from_numpy(inc.view(np.int32)), group=state.group, group_src=prev)
        if sending is not None:
            sending.wait()
        got = state.transport.send(
            inc, bits=state.bits, step=step, sender=prev, seed=root, ledger=state.ledger
        )
        state.data_bits += inc.size * state.bits
        if got is not inc:
            state.flipped_bits += int(np.bitwise_count(got ^ inc).sum())
        return {r: got}

    return exchange


def ring_hook(state: RingHookState, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    """DDP communication hook: average ``bucket.buffer()`` over the ring (module docstring).

    ``bucket``: a ``GradBucket`` (or anything with ``buffer()`` and ``index()``) holding a
    float32/float64 CPU tensor of the same length on every rank. Returns a completed future of
    the averaged buffer; a bad bucket on any rank raises the same error on every rank.

    Examples
    --------
    :func:`ring_average` runs it on one bucket over P processes; every rank gets
    ``decode(sum of the encoded rows) / P``:

    >>> ring_average([[1.0, 2.0], [3.0, 4.0]], transport="superdense").averages.round(3).tolist()
    [[2.0, 3.0], [2.0, 3.0]]
    """
    if not isinstance(state, RingHookState):
        raise TypeError(f"state must be a RingHookState, got {type(state).__name__}")
    tensor = bucket.buffer()
    _reduce(state, tensor, int(bucket.index()), mean=True)
    future: torch.futures.Future = torch.futures.Future()
    future.set_result(tensor)
    return future


def allreduce_mean_(state: RingHookState, tensor, *, bucket_index: int = 0):
    """Replace ``tensor`` (float32/float64, CPU) by its average over the ring, in place.

    A collective (every rank, same length): what :func:`ring_hook` does with a bucket;
    ``bucket_index`` is the seed's ``b``. Returns ``tensor``.

    Examples
    --------
    8-bit words at P = 2: m = floor(127 / 2) = 63 levels, max_abs = 1; 0.3 and 0.1 are sent as 19
    and 6, and their mean 0.2 comes back as 25 / 63 / 2, within 1 / (2 m) = 0.0079:

    >>> ring_average([[1.0, 0.3], [-1.0, 0.1]], bits=8).averages[0].round(4).tolist()
    [0.0, 0.1984]
    """
    if not isinstance(state, RingHookState):
        raise TypeError(f"state must be a RingHookState, got {type(state).__name__}")
    _reduce(state, tensor, check_int(bucket_index, "bucket_index", 0), mean=True)
    return tensor


def gather_reports(state: RingHookState) -> list[LinkReport]:
    """Every rank's :class:`LinkReport`, in group-rank order (a collective: all ranks call it).

    Examples
    --------
    :func:`ring_average` returns what it gathered: at P = 3 rank r reports link (r - 1, r),
    which carries 2 (P - 1) = 4 messages of one 16-bit word.

    >>> [(r.rank, r.link, r.online_bits) for r in ring_average([[1.0] * 3] * 3).reports]
    [(0, (2, 0), 64), (1, (0, 1), 64), (2, (1, 2), 64)]
    """
    reports: list = [None] * state.world_size
    dist.all_gather_object(reports, state.report(), group=state.group)
    return reports


class _Done:
    """Finished work of a synchronous all-reduce: its future holds the tensors or the error."""

    def __init__(self, tensors, error: Exception | None = None):
        self._future: torch.futures.Future = torch.futures.Future()
        if error is None:
            self._future.set_result(list(tensors))
        else:
            self._future.set_exception(error)

    def wait(self, timeout=None) -> bool:
        self._future.wait()
        return True

    def is_completed(self) -> bool:
        return True

    def get_future(self) -> torch.futures.Future:
        return self._future


class RingGroup:
    """A process-group stand-in whose all-reduce (SUM only) runs over the ring of ``state``.

    ``dist.all_reduce(tensor, group=RingGroup(state))`` sums over the ranks as
    :func:`ring_hook` does (call c is the c-th call of bucket 0 of ``state``), so torch's
    PowerSGD hook runs over the ring with ``PowerSGDState(process_group=RingGroup(state), ...)``.

    Examples
    --------
    Two processes, a 64 x 64 linear layer, 4 steps of PowerSGD at rank 1 over the superdense
    ring: 2 steps all-reduce the 4,096 gradients, 2 only the factors P and Q (64 words each).
    At P = 2 each link carries every word once: 2 x 4,096 + 4 x 64 words of 16 bits, as half as
    many qubits.

    >>> [r.online_qubits for r in launch_local(_powersgd_worker, 2)[0]]
    [67584, 67584]
    >>> (2 * 4096 + 4 * 64) * 16 // 2
    67584
    """

    def __init__(self, state: RingHookState):
        if not isinstance(state, RingHookState):
            raise TypeError(f"state must be a RingHookState, got {type(state).__name__}")
        self.state = state

    def size(self) -> int:
        return self.state.world_size

    def rank(self) -> int:
        return self.state.rank

    def allreduce(self, tensors, opts=None) -> _Done:
        """Sum each tensor over the ring, in place. An error travels in the work's future, as a
        process group's does (torch's wrapper would replace an error raised here)."""
        try:
            if opts is not None and opts.reduceOp != dist.ReduceOp.SUM:
                raise ValueError("opts.reduceOp must be SUM: the ring only sums")
            for tensor in tensors:
                _reduce(self.state, tensor, 0, mean=False)
        except Exception as error:  # noqa: BLE001 - handed to the caller through the future
            return _Done(tensors, error)
        return _Done(tensors)

    def __repr__(self) -> str:
        return f"RingGroup({self.state!r})"


def _powersgd_worker(rank: int, world_size: int) -> LinkReport:
    """One rank of :class:`RingGroup`'s example: its reports after 4 steps."""
    from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as psgd
    from torch.nn.parallel import DistributedDataParallel

    torch.manual_seed(0)
    model = DistributedDataParallel(torch.nn.Linear(64, 64, bias=False))
    state = RingHookState(transport="superdense", seed=0)
    options = psgd.PowerSGDState(
        RingGroup(state), matrix_approximation_rank=1, start_powerSGD_iter=2
    )
    model.register_comm_hook(options, psgd.powerSGD_hook)
    x = torch.randn(8, 64, generator=torch.Generator().manual_seed(rank))
    for _ in range(4):
        model.zero_grad()
        model(x).square().sum().backward()
    return gather_reports(state)


@result
class RingAverage:
    """Result of :func:`ring_average`: ``averages`` (shape (P, d), the rows' dtype): row k is
    what rank k holds after the all-reduce; ``reports``: the P :class:`LinkReport` in rank
    order.

    Examples
    --------
    >>> RingAverage(averages=np.zeros((2, 3)), reports=())
    RingAverage(averages=array(2, 3) float64)
    """

    averages: np.ndarray
    reports: tuple = field(repr=False)


def _average_worker(rank: int, world_size: int, rows: np.ndarray, options: dict) -> tuple:
    """One rank of :func:`ring_average`: its row through :func:`allreduce_mean_`."""
    state = RingHookState(**options)
    out = allreduce_mean_(state, torch.from_numpy(rows[rank].copy()))
    return out.numpy(), gather_reports(state)


def ring_average(
    rows,
    *,
    transport="classical",
    bits: int = 16,
    private: bool = False,
    seed: int = 0,
    timeout: float = 120.0,
    **link,
) -> RingAverage:
    """Average the rows of ``rows`` over a ring of P = ``len(rows)`` real processes.

    Rank k of P gloo processes (:func:`~qring_edu.launch.launch_local`) builds a
    :class:`RingHookState` from the keywords and calls :func:`allreduce_mean_` on row k (bucket
    0), then :func:`gather_reports`. Row k of the result is rank k's average (the same on every
    rank unless noise hit an all-gather message).

    ``rows``: finite, shape (P, d), 2 <= P <= 8, d >= 1 (float32 stays float32, else float64);
    ``timeout`` > 0: seconds to wait for the processes; the rest as :class:`RingHookState`.

    Examples
    --------
    Zero-sum pads change the words on every link, not the averages: the single-process ring's
    (:func:`~qring_edu.ring.ring_allreduce`, seed ``[seed, 0, 0]``) divided by P:

    >>> from qring_edu.ring import ring_allreduce
    >>> x = np.array([[0.5, -0.25, 1.0], [0.25, 0.25, -1.0], [0.0, 1.0, 0.5]])
    >>> masked = ring_average(x, private=True)
    >>> bool((masked.averages == ring_allreduce(x).outputs / 3).all())
    True
    >>> [r.ghz_copies for r in masked.reports]  # 3 entries x 16 bits per rank
    [48, 48, 48]
    """
    arr = as_numeric_array(rows, "rows")
    if arr.ndim != 2:
        raise ValueError(f"rows must be a 2-D array (P ranks x d entries), got shape {arr.shape}")
    P = check_int(arr.shape[0], "rows (number of ranks P = len(rows))", 2, 8)
    check_int(arr.shape[1], "rows (entries per rank d)", 1)
    arr = np.ascontiguousarray(arr, dtype=np.float32 if arr.dtype == np.float32 else np.float64)
    seed = check_int(seed, "seed", 0)
    options = dict(transport=as_transport(transport, **link), bits=check_bits(bits), seed=seed)
    if not isinstance(private, (bool, np.bool_)):
        raise TypeError(f"private must be True or False, got {private!r}")
    fixed_point(P, options["bits"], 1.0)  # bits too small for P: fail before any process starts
    timeout = check_float(timeout, "timeout", 0.0, lo_open=True)
    options["private"] = private
    per_rank = launch_local(_average_worker, P, (arr, options), timeout=timeout)
    return RingAverage(
        averages=np.stack([out for out, _ in per_rank]), reports=tuple(per_rank[0][1])
    )
