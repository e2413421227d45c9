"""The ring all-reduce as a PyTorch DDP communication hook (optional extra ``qring_edu[torch]``).

``DistributedDataParallel`` hands every gradient *bucket* (a flat float tensor) to a
communication hook, which must return a ``torch.futures.Future`` of the reduced bucket
(Li et al. 2020, "PyTorch distributed"). :func:`ring_hook` reduces it with the ring schedule of
DESIGN.md §4.2 over the real process group:

1. **Header** (classical side-information). Every rank contributes ``(numel, dtype code, device
   flag, max |g|, non-finite flag)`` to one ``all_gather`` of five float64 words. All ranks then
   hold the same table, so they all take the same decision: either every rank raises the same
   ``ValueError`` (wrong dtype, sizes that differ between ranks, NaN/Inf, a GPU tensor) or every
   rank enters the ring. No rank is left waiting for a message that never comes. The largest
   ``max |g|`` becomes the common clipping bound ``max_abs`` of the fixed-point code
   (:func:`qring_edu.fixedpoint.fixed_point`), so no value is ever clipped. This side-information
   is *classical*, whatever the transport: it is counted per link as the
   ``(P - 1) * 5 * 64`` bits a ring all-gather of the header sends (``side_bits`` of
   :class:`LinkReport`), separately from the ring's :class:`~qring_edu.ledger.Ledger`.
2. **Ring.** The bucket is encoded into ``bits``-bit words (round to nearest, scale
   ``s = floor((2**(bits-1) - 1) / P) / max_abs``), cut into P chunks with
   :func:`~qring_edu.ring.chunk_bounds`, and the 2(P-1) steps of
   :func:`~qring_edu.ring.ring_schedule` are executed with point-to-point messages: at every step
   rank r posts ``isend`` to ``(r+1) % P`` and ``irecv`` from ``(r-1) % P`` and waits for both,
   then adds (reduce-scatter) or overwrites (all-gather) modulo ``2**bits``. Words travel as the
   smallest integer type that holds them (int8, int16 or int32).
3. **Transport.** The *receiving* rank plays Bob for its incoming link ``(r-1, r)`` and records
   that link in its own ledger. ``"classical"``: the message's bits, untouched.
   ``"superdense"``: ``ceil(k/2)`` qubits for a k-bit message over as many pre-shared pairs
   (each distributed offline with one qubit); with pair fidelity F < 1 the receiver samples the
   Pauli frames of the isotropic pairs with the library's fast path
   (:func:`~qring_edu.superdense.pauli_frames`, :func:`~qring_edu.superdense.flipped_bit_positions`)
   and flips those bits of the words (bit p of the stream is bit ``p mod bits`` of word
   ``p div bits``, LSB first, as in :mod:`qring_edu.ring`). The noise generator of each message is
   seeded by ``(seed, iteration, sender, bucket index, ring step)``, so runs are reproducible.
4. **Result.** The decoded sum divided by P (the average DDP expects) is written into the bucket,
   returned as a completed future. Per entry ``|result - exact mean| <= max_abs / (2 m)`` with
   ``m = floor((2**(bits-1) - 1) / P)`` (the fixed-point bound P / (2 s), divided by P), plus the
   rounding of the result to the bucket's dtype.

Use::

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
    model = DistributedDataParallel(net)
    state = RingHookState(transport="superdense", pair_fidelity=0.99, seed=0)
    model.register_comm_hook(state, ring_hook)
    ...                                   # train as usual
    reports = gather_reports(state)       # collective: every rank calls it

Always pass a finite ``timeout`` to ``init_process_group``: if a rank dies, its neighbours stop
waiting after that time instead of hanging forever.

Cost. Per bucket the hook makes 1 + 2(P-1) synchronisations (the header and the ring steps) and a
few NumPy passes over the bucket (encode, add, decode), all on the calling thread, where gloo's
built-in all-reduce runs in C++ on its own threads. On a busy machine each gloo point-to-point
round costs milliseconds whatever its size, so the hook pays most for small, frequent buckets;
``bench/bench_ddp.py`` measures the step time against the built-in all-reduce.

This is the only module of the package that imports torch; ``import qring_edu`` works without it.
"""

from __future__ import annotations

import datetime
import os
import pickle
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import torch
import torch.distributed as dist

from ._validate import check_bits, check_choice, check_fidelity, check_float, check_int, check_seed
from .fixedpoint import fixed_point, word_mask
from .ledger import Ledger
from .ring import TRANSPORTS, chunk_bounds, ring_schedule
from .superdense import flipped_bit_positions, pauli_frames, symbols_needed

__all__ = [
    "RingHookConfig",
    "RingHookState",
    "LinkReport",
    "ring_hook",
    "allreduce_mean_",
    "gather_reports",
    "launch_local",
    "DDPDemo",
    "ddp_demo",
    "HEADER_WORDS",
]

#: Words of the per-bucket header (numel, dtype code, device flag, max |g|, non-finite flag),
#: each sent as a 64-bit float.
HEADER_WORDS = 5
_DTYPE_CODES = {torch.float32: 0, torch.float64: 1}
_DTYPE_NAMES = {0: "float32", 1: "float64"}


@dataclass(frozen=True)
class RingHookConfig:
    """What the ranks agree on before training (validated, immutable).

    ``transport``: ``"classical"`` or ``"superdense"``; ``bits``: word size b in 2..32;
    ``pair_fidelity``: F in [0.25, 1] (superdense only; must be 1 for classical);
    ``seed``: non-negative int seeding the pair noise; ``process_group``: the group whose ranks
    form the ring (``None``: the default group).
    """

    transport: str = "classical"
    bits: int = 16
    pair_fidelity: float = 1.0
    seed: int = 0
    process_group: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_choice(self.transport, "transport", TRANSPORTS)
        object.__setattr__(self, "bits", check_bits(self.bits))
        object.__setattr__(self, "pair_fidelity", check_fidelity(self.pair_fidelity))
        if self.transport == "classical" and self.pair_fidelity != 1.0:
            raise ValueError("pair_fidelity applies only to transport='superdense'; got "
                             f"pair_fidelity={self.pair_fidelity:g} with transport='classical'")
        check_seed(self.seed)
        if isinstance(self.seed, np.random.Generator) or self.seed is None:
            raise TypeError("seed must be a non-negative integer (every rank derives its "
                            f"noise from it), got {self.seed!r}")
        object.__setattr__(self, "seed", int(self.seed))


@dataclass(frozen=True)
class LinkReport:
    """What one rank saw on its incoming link ``(rank - 1, rank)``, accumulated over all buckets.

    ``online_bits`` / ``online_qubits`` / ``ebits`` / ``offline_qubits``: the ring's ledger for
    that link (:class:`~qring_edu.ledger.Ledger` currencies). ``side_bits``: classical
    side-information (the bucket headers, see the module docstring). ``data_bits``: payload
    bits received (= ``online_bits`` for classical; ``<= 2 * online_qubits`` for superdense).
    ``flipped_bits``: payload bits flipped by noisy pairs. ``buckets``: hook calls;
    ``iterations``: training steps (buckets marked last). ``error_bound``: the largest per-entry
    bound ``max_abs / (2 m)`` on |average - exact mean| over the buckets so far.
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

    @property
    def bit_error_rate(self) -> float:
        """``flipped_bits / data_bits`` (0 when nothing was received)."""
        return self.flipped_bits / self.data_bits if self.data_bits else 0.0

    def __repr__(self) -> str:
        return (f"LinkReport(link={self.link}, transport={self.transport!r}, "
                f"online_bits={self.online_bits}, online_qubits={self.online_qubits}, "
                f"ebits={self.ebits}, offline_qubits={self.offline_qubits}, "
                f"side_bits={self.side_bits}, flipped_bits={self.flipped_bits}, "
                f"buckets={self.buckets}, iterations={self.iterations})")


class RingHookState:
    """State of :func:`ring_hook` on one rank: the frozen :class:`RingHookConfig` plus counters.

    ``ledger``: a :class:`~qring_edu.ledger.Ledger` of the P-rank ring in which this rank records
    its incoming link ``(rank - 1, rank)``, accumulated over buckets and steps
    (``step_units`` keeps the largest message of each ring step). ``flipped_bits``,
    ``data_bits``, ``side_bits``, ``buckets``, ``iterations``: see :class:`LinkReport`.

    Requires an initialised process group with the gloo backend (the hook moves CPU tensors).
    """

    def __init__(self, *, transport: str = "classical", bits: int = 16,
                 pair_fidelity: float = 1.0, seed: int = 0, process_group=None):
        self.config = RingHookConfig(transport=transport, bits=bits,
                                     pair_fidelity=pair_fidelity, seed=seed,
                                     process_group=process_group)
        if not dist.is_available() or not dist.is_initialized():
            raise RuntimeError("process_group: torch.distributed is not initialised; call "
                               "dist.init_process_group('gloo', timeout=...) first")
        backend = str(dist.get_backend(process_group))
        if backend != "gloo":
            raise ValueError(f"process_group must use the 'gloo' backend (the hook sends CPU "
                             f"tensors point to point), got backend {backend!r}")
        self.world_size = dist.get_world_size(process_group)
        if self.world_size < 2:
            raise ValueError(f"process_group must have P >= 2 ranks, got P = {self.world_size}")
        fixed_point(self.world_size, self.config.bits, 1.0)  # bits too small for P: fail now
        self.rank = dist.get_rank(process_group)
        P = self.world_size
        self._next = self._global((self.rank + 1) % P)
        self._prev = self._global((self.rank - 1) % P)
        # This rank's messages of the ring schedule, fixed for the run: (sent, received) per step.
        schedule = ring_schedule(P)
        sender = (self.rank - 1) % P
        self._steps = [(schedule[step * P + self.rank], schedule[step * P + sender])
                       for step in range(2 * (P - 1))]
        self.ledger = Ledger(P, self.config.transport, 2 * (P - 1))
        self.side_bits = 0
        self.data_bits = 0
        self.flipped_bits = 0
        self.buckets = 0
        self.iterations = 0
        self.error_bound = 0.0

    def _global(self, group_rank: int) -> int:
        group = self.config.process_group
        return group_rank if group is None else dist.get_global_rank(group, group_rank)

    @property
    def link(self) -> tuple[int, int]:
        """This rank's incoming link ``((rank - 1) % P, rank)``, in group ranks."""
        return ((self.rank - 1) % self.world_size, self.rank)

    def report(self) -> LinkReport:
        """This rank's counters as a :class:`LinkReport` (local, no communication)."""
        sender = self.link[0]
        return LinkReport(
            rank=self.rank, link=self.link, transport=self.config.transport,
            online_bits=self.ledger.online_bits(self.ledger.links[sender]),
            online_qubits=self.ledger.online_qubits(self.ledger.links[sender]),
            ebits=self.ledger.ebits(self.ledger.links[sender]),
            offline_qubits=self.ledger.offline_qubits(self.ledger.links[sender]),
            side_bits=self.side_bits, data_bits=self.data_bits,
            flipped_bits=self.flipped_bits, buckets=self.buckets, iterations=self.iterations,
            error_bound=self.error_bound)

    def __repr__(self) -> str:
        c = self.config
        return (f"RingHookState(rank={self.rank}, P={self.world_size}, transport={c.transport!r}, "
                f"bits={c.bits}, pair_fidelity={c.pair_fidelity:g}, seed={c.seed}, "
                f"buckets={self.buckets}, flipped_bits={self.flipped_bits})")


def ring_hook(state: RingHookState, bucket) -> torch.futures.Future:
    """DDP communication hook: average ``bucket.buffer()`` over the ring (see module docstring).

    ``bucket``: a ``torch.distributed.GradBucket`` (or any object with ``buffer()``, ``index()``
    and ``is_last()``); its buffer must be a 1-D CPU float32/float64 tensor of the same length on
    every rank. The buffer is overwritten with the average and returned as a completed future.
    Raises ``ValueError`` on every rank, after the header exchange, if any rank's bucket is bad.
    """
    if not isinstance(state, RingHookState):
        raise TypeError(f"state must be a RingHookState, got {type(state).__name__}")
    tensor = bucket.buffer()
    allreduce_mean_(state, tensor, bucket_index=int(bucket.index()))
    if bucket.is_last():
        state.iterations += 1
    fut: torch.futures.Future = torch.futures.Future()
    fut.set_result(tensor)
    return fut


# DDP's register_comm_hook compares the annotations with the real objects (this module's
# ``from __future__ import annotations`` would leave strings there).
ring_hook.__annotations__ = {"state": RingHookState, "bucket": dist.GradBucket,
                             "return": torch.futures.Future[torch.Tensor]}


def allreduce_mean_(state: RingHookState, tensor: torch.Tensor, *, bucket_index: int = 0
                    ) -> torch.Tensor:
    """Replace ``tensor`` (1-D, CPU, float32/float64) by its average over the ring, in place.

    A collective: every rank of ``state``'s group must call it with a tensor of the same length.
    ``bucket_index`` enters the noise seed. Returns ``tensor``.
    """
    cfg = state.config
    P = state.world_size
    header = _local_header(tensor)
    table = _exchange_headers(state, header)
    _check_headers(table)
    d = int(table[0, 0])
    state.buckets += 1
    if d == 0:
        return tensor
    max_abs = float(table[:, 3].max())
    codec = fixed_point(P, cfg.bits, max_abs if max_abs > 0 else 1.0)
    state.error_bound = max(state.error_bound, codec.error_bound / P)

    words = codec.encode(tensor.detach().reshape(-1).numpy())  # uint32 residues, (d,)
    _run_ring(state, words, bucket_index)
    mean = codec.decode(words)  # float64, exact
    mean /= P  # one rounding
    with torch.no_grad():
        tensor.copy_(torch.from_numpy(mean).view(tensor.shape))  # rounds to the bucket's dtype
    return tensor


# --------------------------------------------------------------------------------------------
# header: validation that cannot hang
# --------------------------------------------------------------------------------------------

def _local_header(tensor) -> torch.Tensor:
    """(numel, dtype code (-1: not float32/64), CPU flag, max |x| of finite entries, non-finite)."""
    if not isinstance(tensor, torch.Tensor):
        return torch.tensor([-1.0, -2.0, 0.0, 0.0, 0.0], dtype=torch.float64)
    code = _DTYPE_CODES.get(tensor.dtype, -1)
    on_cpu = tensor.device.type == "cpu"
    max_abs, nonfinite = 0.0, 0.0
    if code >= 0 and on_cpu and tensor.numel() > 0:
        # One pass: the maximum of |x| is NaN or Inf exactly when some entry is.
        max_abs = float(tensor.detach().abs().max())
        if not np.isfinite(max_abs):
            max_abs, nonfinite = 0.0, 1.0
    return torch.tensor([float(tensor.numel()), float(code), float(on_cpu), max_abs, nonfinite],
                        dtype=torch.float64)


def _exchange_headers(state: RingHookState, header: torch.Tensor) -> np.ndarray:
    """All-gather the headers: a (P, HEADER_WORDS) float64 table, row k from group rank k."""
    P = state.world_size
    rows = [torch.empty(HEADER_WORDS, dtype=torch.float64) for _ in range(P)]
    dist.all_gather(rows, header, group=state.config.process_group)
    # Counted as a ring all-gather: P - 1 headers of 5 x 64 bits cross every link.
    state.side_bits += (P - 1) * HEADER_WORDS * 64
    return torch.stack(rows).numpy()


def _check_headers(table: np.ndarray) -> None:
    """Raise the same ValueError on every rank if any rank's bucket is unusable."""
    bad_type = [k for k in range(table.shape[0]) if table[k, 1] == -2]
    if bad_type:
        raise ValueError(f"bucket.buffer() must be a torch.Tensor; rank(s) {bad_type} passed "
                         "something else")
    bad_dtype = [k for k in range(table.shape[0]) if table[k, 1] < 0]
    if bad_dtype:
        raise ValueError(f"bucket dtype must be float32 or float64 on every rank; rank(s) "
                         f"{bad_dtype} passed another dtype")
    off_cpu = [k for k in range(table.shape[0]) if table[k, 2] == 0]
    if off_cpu:
        raise ValueError(f"bucket must be a CPU tensor on every rank (gloo backend); rank(s) "
                         f"{off_cpu} passed a tensor on another device")
    sizes = table[:, 0].astype(np.int64)
    if np.any(sizes != sizes[0]):
        raise ValueError("bucket size (numel) must be the same on every rank; got "
                         + ", ".join(f"rank {k}: {int(n)}" for k, n in enumerate(sizes)))
    dtypes = table[:, 1].astype(np.int64)
    if np.any(dtypes != dtypes[0]):
        raise ValueError("bucket dtype must be the same on every rank; got "
                         + ", ".join(f"rank {k}: {_DTYPE_NAMES[int(c)]}"
                                     for k, c in enumerate(dtypes)))
    nonfinite = [k for k in range(table.shape[0]) if table[k, 4] != 0]
    if nonfinite:
        raise ValueError(f"bucket must be finite; rank(s) {nonfinite} hold NaN or Inf gradients")


# --------------------------------------------------------------------------------------------
# the ring over the process group
# --------------------------------------------------------------------------------------------

def _wire_dtype(bits: int) -> tuple[np.dtype, np.dtype]:
    """(unsigned numpy type holding a word, signed type of the same width sent by torch)."""
    if bits <= 8:
        return np.dtype(np.uint8), np.dtype(np.uint8)  # torch has uint8
    if bits <= 16:
        return np.dtype(np.uint16), np.dtype(np.int16)
    return np.dtype(np.uint32), np.dtype(np.int32)


def _run_ring(state: RingHookState, words: np.ndarray, bucket_index: int) -> None:
    """Execute :func:`~qring_edu.ring.ring_schedule` in place on this rank's words (uint32)."""
    cfg = state.config
    P, r, group = state.world_size, state.rank, cfg.process_group
    offsets = chunk_bounds(words.size, P)
    unsigned, signed = _wire_dtype(cfg.bits)
    mask = np.uint32(word_mask(cfg.bits))
    sender = (r - 1) % P
    # out_msg: what this rank sends at this step; in_msg: what it receives from its left neighbour
    for step, (out_msg, in_msg) in enumerate(state._steps):
        slo, shi = offsets[out_msg.chunk], offsets[out_msg.chunk + 1]
        rlo, rhi = offsets[in_msg.chunk], offsets[in_msg.chunk + 1]
        works = []
        if shi > slo:  # empty chunks (d < P) are skipped by both ends alike
            out = torch.from_numpy(words[slo:shi].astype(unsigned).view(signed))
            works.append(dist.isend(out, state._next, group=group, tag=step))
        if rhi > rlo:
            incoming = torch.empty(rhi - rlo, dtype=_torch_dtype(signed))
            works.append(dist.irecv(incoming, state._prev, group=group, tag=step))
        for w in works:
            w.wait()
        if rhi == rlo:
            continue
        received = incoming.numpy().view(unsigned).astype(np.uint32)
        received = _receive(state, received, sender, step, bucket_index)
        target = words[rlo:rhi]
        if in_msg.phase == "reduce-scatter":
            np.add(target, received, out=target)  # wraps modulo 2**32 ...
            if cfg.bits < 32:
                np.bitwise_and(target, mask, out=target)  # ... and the mask reduces mod 2**bits
        else:
            target[...] = received


def _torch_dtype(np_dtype: np.dtype) -> torch.dtype:
    return {np.dtype(np.uint8): torch.uint8, np.dtype(np.int16): torch.int16,
            np.dtype(np.int32): torch.int32}[np.dtype(np_dtype)]


def _receive(state: RingHookState, words: np.ndarray, sender: int, step: int,
             bucket_index: int) -> np.ndarray:
    """Bob's side of link ``(sender, rank)``: record the message, apply the pair noise."""
    cfg = state.config
    n_bits = words.size * cfg.bits
    state.data_bits += n_bits
    if cfg.transport == "classical":
        state.ledger.record(sender, step, bits=n_bits)
        return words
    qubits = symbols_needed(n_bits)
    state.ledger.record(sender, step, qubits=qubits, ebits=qubits, offline_qubits=qubits)
    if cfg.pair_fidelity == 1.0:
        return words  # noiseless dense coding decodes every symbol exactly
    rng = np.random.default_rng([cfg.seed, state.iterations, sender, bucket_index, step])
    positions, frames = pauli_frames(qubits, cfg.pair_fidelity, rng)
    flips = flipped_bit_positions(positions, frames)
    flips = flips[flips < n_bits]  # the padding bit of an odd message carries no data
    state.flipped_bits += int(flips.size)
    if flips.size:
        # Stream bit p is bit (p mod b) of word (p div b): words go LSB first (as qring_edu.ring).
        masks = np.left_shift(np.uint32(1), (flips % cfg.bits).astype(np.uint32))
        np.bitwise_xor.at(words, flips // cfg.bits, masks)
    return words


def gather_reports(state: RingHookState) -> list[LinkReport]:
    """Every rank's :class:`LinkReport`, in group-rank order (a collective: all ranks call it)."""
    reports: list = [None] * state.world_size
    dist.all_gather_object(reports, state.report(), group=state.config.process_group)
    return reports


# --------------------------------------------------------------------------------------------
# launching P local processes (tests, the book, benchmarks)
# --------------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _child_main(payload_path: str, result_path: str) -> None:
    """Entry point of each process started by :func:`launch_local` (``python -c``)."""
    with open(payload_path, "rb") as f:
        payload = pickle.load(f)
    sys.path[:] = payload["sys_path"]  # so that ``fn``'s module imports as in the parent
    fn, args = pickle.loads(payload["call"])
    rank, world_size = payload["rank"], payload["world_size"]
    torch.set_num_threads(1)  # P processes share the machine's cores
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{payload['port']}",
                            rank=rank, world_size=world_size,
                            timeout=datetime.timedelta(seconds=payload["pg_timeout"]))
    try:
        value = fn(rank, world_size, *args)
    finally:
        dist.destroy_process_group()
    tmp = result_path + ".tmp"
    with open(tmp, "wb") as f:
        pickle.dump(value, f)
    os.replace(tmp, result_path)


def launch_local(fn: Callable[..., Any], world_size: int, args: tuple = (), *,
                 timeout: float = 120.0, pg_timeout: float = 30.0) -> list[Any]:
    """Run ``fn(rank, world_size, *args)`` in ``world_size`` fresh Python processes joined by gloo.

    Each process is a new interpreter (``python -c``, so the caller's ``__main__`` is never
    re-executed: this works from scripts, pytest and notebooks alike) with the caller's
    ``sys.path``; it sets one torch thread, joins a gloo process group on a free localhost port
    with a timeout of ``pg_timeout`` seconds, and calls ``fn``. ``fn`` must be a module-level
    function of an importable module; ``args`` and the return value must be picklable.
    Returns the results in rank order. Raises ``RuntimeError`` with the failing rank's output if
    a rank fails, ``TimeoutError`` if the ranks are not all done within ``timeout`` seconds; in
    both cases every remaining process is killed.
    """
    world_size = check_int(world_size, "world_size", 2)
    timeout = check_float(timeout, "timeout", 0.0, lo_open=True)
    pg_timeout = check_float(pg_timeout, "pg_timeout", 0.0, lo_open=True)
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    call = pickle.dumps((fn, tuple(args)))
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="qring_ddp_") as tmp:
        procs, logs, results = [], [], []
        try:
            for rank in range(world_size):
                payload = os.path.join(tmp, f"payload{rank}.pkl")
                with open(payload, "wb") as f:
                    pickle.dump({"sys_path": list(sys.path), "call": call, "rank": rank,
                                 "world_size": world_size, "port": port,
                                 "pg_timeout": pg_timeout}, f)
                results.append(os.path.join(tmp, f"result{rank}.pkl"))
                log = open(os.path.join(tmp, f"log{rank}.txt"), "wb")
                logs.append(log)
                code = (f"from qring_edu.ddp import _child_main; "
                        f"_child_main({payload!r}, {results[rank]!r})")
                procs.append(subprocess.Popen([sys.executable, "-c", code], stdout=log,
                                              stderr=subprocess.STDOUT))
            deadline = time.monotonic() + timeout
            while any(p.poll() is None for p in procs):
                failed = [k for k, p in enumerate(procs) if p.poll() not in (None, 0)]
                if failed:
                    k = failed[0]
                    raise RuntimeError(f"launch_local: rank {k} failed (exit code "
                                       f"{procs[k].returncode}):\n{_tail(logs[k].name)}")
                if time.monotonic() > deadline:
                    late = [k for k, p in enumerate(procs) if p.poll() is None]
                    raise TimeoutError(f"launch_local: rank(s) {late} did not finish within "
                                       f"timeout = {timeout:g} s")
                time.sleep(0.02)
            for k, p in enumerate(procs):
                if p.returncode != 0 or not os.path.exists(results[k]):
                    raise RuntimeError(f"launch_local: rank {k} failed (exit code "
                                       f"{p.returncode}):\n{_tail(logs[k].name)}")
            out = []
            for path in results:
                with open(path, "rb") as f:
                    out.append(pickle.load(f))
            return out
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                p.wait()
            for log in logs:
                log.close()


def _tail(path: str, lines: int = 40) -> str:
    with open(path, "rb") as f:
        text = f.read().decode(errors="replace")
    return "\n".join(text.splitlines()[-lines:])


# --------------------------------------------------------------------------------------------
# a small demonstration: the chapter-3 network trained under DDP with and without the hook
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DDPDemo:
    """Result of :func:`ddp_demo`: the same training run under several all-reduces.

    ``labels``: run names (``"built-in"`` = gloo's all-reduce without a hook, then
    ``"classical"`` and ``"superdense F=..."`` with :func:`ring_hook`). ``losses[label]``: array
    (steps + 1, P), replica k's loss on the whole training set before step 0 and after every step.
    ``reports[label]``: the P :class:`LinkReport` (none for the built-in run).
    ``grad_error[label]``: max |hook average - built-in average| over the first step's gradient.
    ``divergence[label]``: max |w_k - w_0| over replicas and parameters at the end.
    ``n_params``: parameters of the network (one gradient bucket).
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
        return (f"DDPDemo(P={self.world_size}, steps={self.steps}, bits={self.bits}, "
                f"n_params={self.n_params}, runs={list(self.labels)})")


def _moons_model(hidden: int) -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(2, hidden), torch.nn.Tanh(),
                               torch.nn.Linear(hidden, 2)).double()


def _demo_worker(rank: int, world_size: int, runs: list, steps: int, bits: int, hidden: int,
                 n_samples: int, batch_size: int, lr: float, seed: int) -> dict:
    """One rank of :func:`ddp_demo`: train the moons MLP once per entry of ``runs``."""
    from torch.nn.parallel import DistributedDataParallel

    from .training import make_moons

    X, y = make_moons(n_samples, seed=seed)
    X, y = torch.from_numpy(X), torch.from_numpy(y)
    shard = torch.arange(rank, n_samples, world_size)
    loss_fn = torch.nn.CrossEntropyLoss()
    out: dict = {"losses": {}, "reports": {}, "grads": {}, "weights": {}}
    for label, transport, fidelity in runs:
        torch.manual_seed(seed)  # identical initial weights in every run (DDP also broadcasts)
        net = _moons_model(hidden)
        model = DistributedDataParallel(net)
        state = None
        if transport is not None:
            state = RingHookState(transport=transport, bits=bits, pair_fidelity=fidelity,
                                  seed=seed)
            model.register_comm_hook(state, ring_hook)
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        batches = np.random.default_rng([seed, rank])
        losses = []
        for step in range(steps):
            with torch.no_grad():
                losses.append(float(loss_fn(net(X), y)))
            idx = shard[torch.from_numpy(batches.choice(shard.numel(), batch_size,
                                                        replace=False))]
            opt.zero_grad()
            loss_fn(model(X[idx]), y[idx]).backward()
            if step == 0:
                out["grads"][label] = torch.cat([p.grad.reshape(-1) for p in net.parameters()]
                                                ).numpy().copy()
            opt.step()
        with torch.no_grad():
            losses.append(float(loss_fn(net(X), y)))
        out["losses"][label] = losses
        out["weights"][label] = torch.cat([p.detach().reshape(-1)
                                           for p in net.parameters()]).numpy().copy()
        if state is not None:
            out["reports"][label] = state.report()
    out["n_params"] = sum(p.numel() for p in net.parameters())
    return out


def ddp_demo(*, world_size: int = 2, pair_fidelities: tuple[float, ...] = (1.0, 0.99),
             steps: int = 40, bits: int = 16, hidden: int = 16, n_samples: int = 400,
             batch_size: int = 32, lr: float = 0.5, seed: int = 0,
             timeout: float = 300.0) -> DDPDemo:
    """Train the chapter-3 network (2-``hidden``-2 tanh MLP, float64, two moons) under real DDP.

    Spawns ``world_size`` gloo processes (:func:`launch_local`) which train the same network from
    the same weights on the same mini-batches several times: with gloo's built-in all-reduce,
    with :func:`ring_hook` on the classical transport, and with the superdense transport at each
    of ``pair_fidelities``. Worker k holds the points ``k, k + P, ...`` and draws mini-batches of
    ``batch_size`` from them with a generator seeded by ``(seed, k)``. Returns a :class:`DDPDemo`.
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
    runs = [("built-in", None, 1.0), ("classical", "classical", 1.0)]
    runs += [(f"superdense F={f:g}", "superdense", f) for f in fids]
    per_rank = launch_local(_demo_worker, world_size,
                            (runs, steps, bits, hidden, n_samples, batch_size, lr, seed),
                            timeout=timeout)
    labels = tuple(r[0] for r in runs)
    losses = {lab: np.array([pr["losses"][lab] for pr in per_rank]).T for lab in labels}
    reports = {lab: tuple(pr["reports"][lab] for pr in per_rank)
               for lab in labels if lab != "built-in"}
    ref = per_rank[0]["grads"]["built-in"]
    grad_error = {lab: float(max(np.max(np.abs(pr["grads"][lab] - ref)) for pr in per_rank))
                  for lab in labels}
    divergence = {lab: float(max(np.max(np.abs(pr["weights"][lab]
                                               - per_rank[0]["weights"][lab]))
                                 for pr in per_rank))
                  for lab in labels}
    return DDPDemo(world_size=world_size, steps=steps, bits=bits,
                   n_params=int(per_rank[0]["n_params"]), labels=labels, losses=losses,
                   reports=reports, grad_error=grad_error, divergence=divergence)
