"""Scale beyond one machine, on paper and by simulation, for ``bench/run.py``.

    run(out, repeats) -> list of (name, measured, target, ok)
    python bench/bench_alphabeta.py [repeats]

**1. This machine's gloo point-to-point alpha and beta.** Two processes (``torch.multiprocessing``,
spawn, one torch thread each) join a gloo group on 127.0.0.1 and play ping-pong with blocking
``dist.send`` / ``dist.recv`` of uint8 tensors of n = 4 B .. 64 MiB (factor 4). The sizes are
visited round-robin, ``ROUNDS`` rounds after two untimed round trips per size, so background load
hits every size alike (the spirit of bench/timing.py's alternating pairs); a sample is rank 0's
round-trip time / 2, and t(n) is the median of a size's samples. Hockney's model
t(n) = alpha + n beta is fitted by least squares on the relative residuals (weights 1/t(n)), so
that 4 B and 64 MiB count alike; the largest relative residual is reported. This is loopback TCP
between two processes sharing 2 cores: alpha is mostly software (gloo, the kernel's TCP stack,
Python), beta a memory-copy rate, not a network's.

**2. The alpha-beta model at P = 1,024** (``qring_edu.costmodel.ring_time``, book/01_bottleneck.ipynb, book/03_superdense_ring.ipynb):
T = 2 (P - 1) (alpha + n beta) with n the largest chunk message (``ceil(d/P) b`` bits classical,
half as many qubits superdense, a qubit costing the link time of a bit), for the two MLPs of the
DDP bench and published model sizes (``costmodel.MODEL_SIZES``), with b = 32-bit words (at
P = 1,024 a 16-bit word leaves each rank floor((2^15 - 1)/1024) = 31 levels of its gradient's
range; 32 bits leave 2,097,151), next to the same model with NCCL's published ring figures:
beta from the bus bandwidth of NCCL's all-reduce tests and alpha per ring step from their
small-message ring time (see ``NCCL`` below; the bus bandwidth is defined so that an all-reduce
of S bytes takes S / busbw x 2 (n - 1) / n, exactly the ring model's bandwidth term).

**3. The hook's per-bucket CPU cost.** What one rank of ``qring_edu.ddp``'s hook computes per
bucket besides waiting for the wire, replayed in one process with the library's own pieces and
without communication: the header's max |x|, ``fixed_point(P, b, max_abs).encode``, then for each
of the 2 (P - 1) ring steps the received chunk of ceil(d/P) words (the wire-type views and
copies, for the superdense transport ``Superdense(Link(F)).send``: the message's own noise
stream, its one noise draw and the bit flips, the modular add and mask or the overwrite), and ``decode`` / P. It is timed at P = 1,024
for buckets of the two MLPs (one bucket each) and of DDP's default 25 MiB bucket (6,553,600
float32), classical and superdense at F = 0.99, and fitted as C(d) = c_0 + c_1 d (c_0: the
2 (P - 1) per-step overheads). Per model, the hook's CPU per all-reduce is
C = n_buckets c_0 + c_1 d (25 MiB buckets), next to the wire time of those buckets. Where
C exceeds the wire time, the per-bucket CPU work dominates: the table says where, for both
fabrics. (The hook runs these steps on a worker thread, so they overlap the backward pass,
but within a bucket each step's CPU work waits for its message: the bucket pays their sum, where
a pipelined ring would pay max(CPU, wire).)
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for _p in (str(ROOT), str(Path(__file__).resolve().parent)):
    if _p not in sys.path:  # run from a checkout without installing; `timing` for the timers
        sys.path.insert(0, _p)

from timing import Timing  # noqa: E402

from qring_edu import chunk_bounds, fixed_point, ring_time  # noqa: E402
from qring_edu.costmodel import MODEL_SIZES  # noqa: E402
from qring_edu.launch import free_port  # noqa: E402
from qring_edu.ledger import Ledger  # noqa: E402
from qring_edu.noise import Link  # noqa: E402
from qring_edu.transports import Superdense  # noqa: E402

SIZES = [4**k for k in range(1, 14)]  # 4 B .. 64 MiB
ROUNDS = 100  # timed round trips per size
QUANTILE = 0.1  # the uncontended time of a size: its 10th percentile
PINGPONG_TIMEOUT_S = 300
P_MODEL = 1024
BITS = 32
HOOK_F = 0.99
BUCKET_BYTES = 25 * 2**20  # DDP's default bucket_cap_mb = 25
MLP_SIZES = {"MLP 2-64-64-2 (DDP bench)": 4_482, "MLP 2-512-512-2 (DDP bench)": 265_218}
HOOK_BUCKETS = (4_482, 265_218, BUCKET_BYTES // 4)

#: NCCL's published ring figures (cited in the section's text and in the report):
#: bus bandwidth of the all-reduce, GB/s, and ring time of an 8-byte all-reduce on 16 ranks.
NCCL = {
    "busbw_GBps": 190.0,  # NVIDIA/nccl#1368: 5 x 8 H100, 4 x 400G RoCE, NCCL_ALGO=Ring
    "small_us": 93.1,  # NVIDIA/nccl#812: 2 DGX-A100 (16 ranks), ring, 8 B all-reduce
    "small_ranks": 16,
}

Row = tuple[str, str, str, bool]


# ------------------------------------------------------------------------------------------------
# 1. ping-pong


def _pingpong_worker(rank: int, port: int, sizes: list[int], rounds: int, queue) -> None:
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo",
        init_method=f"tcp://127.0.0.1:{port}",
        rank=rank,
        world_size=2,
        timeout=timedelta(seconds=60),
    )
    try:
        bufs = {n: torch.zeros(n, dtype=torch.uint8) for n in sizes}
        peer = 1 - rank
        samples: dict[int, list[float]] = {n: [] for n in sizes}
        for r in range(-2, rounds):  # two untimed rounds first
            order = sizes[r % len(sizes) :] + sizes[: r % len(sizes)]  # rotate the visiting order
            for n in order:
                t0 = time.perf_counter()
                if rank == 0:
                    dist.send(bufs[n], peer)
                    dist.recv(bufs[n], peer)
                else:
                    dist.recv(bufs[n], peer)
                    dist.send(bufs[n], peer)
                if r >= 0:
                    samples[n].append((time.perf_counter() - t0) / 2)
        if rank == 0:
            queue.put(samples)
    finally:
        dist.destroy_process_group()


def measure_pingpong(rounds: int = ROUNDS) -> dict[int, list[float]]:
    """One-way times (round trip / 2) of every size, ``rounds`` samples each (rank 0)."""
    import torch.multiprocessing as mp

    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    port = free_port()
    procs = [
        ctx.Process(target=_pingpong_worker, args=(r, port, SIZES, rounds, queue)) for r in range(2)
    ]
    for p in procs:
        p.start()
    try:
        samples = queue.get(timeout=PINGPONG_TIMEOUT_S)
        for p in procs:
            p.join(timeout=60)
        if any(p.exitcode != 0 for p in procs):
            raise RuntimeError(f"ping-pong workers exited with {[p.exitcode for p in procs]}")
        return samples
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
                p.join()


def fit_alpha_beta(sizes, times) -> tuple[float, float, float]:
    """Least squares of alpha + n beta on relative residuals; (alpha, beta, max |residual|)."""
    n = np.asarray(sizes, dtype=float)
    t = np.asarray(times, dtype=float)
    a = np.stack([1 / t, n / t], axis=1)
    (alpha, beta), *_ = np.linalg.lstsq(a, np.ones_like(t), rcond=None)
    resid = (alpha + n * beta - t) / t
    return float(alpha), float(beta), float(np.max(np.abs(resid)))


# ------------------------------------------------------------------------------------------------
# 3. the hook's CPU work per bucket, replayed without communication


def hook_cpu_work(d: int, workers: int, bits: int, transport: str, rng_seed: int = 0) -> None:
    """One rank's per-bucket computation in ``qring_edu.ddp``'s hook (see the module text)."""
    rng = np.random.default_rng(rng_seed)
    x = rng.standard_normal(d).astype(np.float32)
    max_abs = float(np.abs(x).max())  # the header
    codec = fixed_point(workers, bits, max_abs)
    words = codec.encode(x)
    bounds = chunk_bounds(d, workers)
    mask = np.uint32((1 << bits) - 1) if bits < 32 else None
    unsigned = np.uint16 if bits <= 16 else np.uint32
    signed = np.int16 if bits <= 16 else np.int32
    link = Superdense(Link(HOOK_F))
    root = np.random.SeedSequence(rng_seed)
    ledger = Ledger(workers, "superdense", 2 * (workers - 1))
    for step in range(2 * (workers - 1)):
        # rank 0 of the ring schedule (book/01_bottleneck.ipynb): reduce-scatter sends chunk -s, receives
        # -1-s; all-gather sends 1-s, receives -s (mod P)
        s_ = step if step < workers - 1 else step - (workers - 1)
        shift = 0 if step < workers - 1 else 1
        c_out = (shift - s_) % workers
        c_in = (shift - 1 - s_) % workers
        out = words[bounds[c_out] : bounds[c_out + 1]].astype(unsigned).view(signed)  # to send
        lo, hi = bounds[c_in], bounds[c_in + 1]
        incoming = np.empty(hi - lo, dtype=signed)
        incoming[...] = out[: hi - lo] if out.size >= hi - lo else 0  # stands in for the wire
        received = incoming.view(unsigned).astype(np.uint32)
        if transport == "superdense":  # the message from rank P - 1, with its own noise
            received = link.send(
                received, bits=bits, step=step, sender=workers - 1, seed=root, ledger=ledger
            )
        target = words[lo:hi]
        if step < workers - 1:
            np.add(target, received, out=target)
            if mask is not None:
                np.bitwise_and(target, mask, out=target)
        else:
            target[...] = received
    mean = codec.decode(words)
    mean /= workers


def measure_hook_cpu(repeats: int) -> dict[tuple[str, int], Timing]:
    """Per-bucket CPU time at P_MODEL, each transport alternating over the bucket sizes."""
    timings: dict[tuple[str, int], list[float]] = {}
    for rep in range(repeats + 1):  # the first round is the warm-up
        for transport in ("classical", "superdense"):
            for d in HOOK_BUCKETS:
                t0 = time.perf_counter()
                hook_cpu_work(d, P_MODEL, BITS, transport, rng_seed=rep)
                if rep:
                    timings.setdefault((transport, d), []).append(time.perf_counter() - t0)
    return {k: Timing(v) for k, v in timings.items()}


def fit_cpu(timings: dict[tuple[str, int], Timing], transport: str) -> tuple[float, float]:
    """C(d) = c0 + c1 d through the medians (least squares on relative residuals)."""
    ds = [d for (tr, d) in timings if tr == transport]
    t = [timings[(transport, d)].median for d in ds]
    c0, c1, _ = fit_alpha_beta(ds, t)
    return c0, c1


# ------------------------------------------------------------------------------------------------


def _fmt_s(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def run(out: Callable[[str], None], repeats: int) -> list[Row]:
    """Print the section with ``out(text)`` and return the summary rows."""
    repeats = max(1, int(repeats))
    rows: list[Row] = []
    out(f"## Alpha-beta: gloo point-to-point on this machine, and the rings at P = {P_MODEL:,}")

    # 1 ---------------------------------------------------------------------------------------
    samples = measure_pingpong()
    t_low = [float(np.quantile(samples[n], QUANTILE)) for n in SIZES]
    t_med = [statistics.median(samples[n]) for n in SIZES]
    alpha, beta, resid = fit_alpha_beta(SIZES, t_low)
    alpha_m, beta_m, resid_m = fit_alpha_beta(SIZES, t_med)
    out(
        f"- gloo ping-pong, 2 processes on 127.0.0.1, {ROUNDS} round trips per size, one-way "
        f"time = round trip / 2, {QUANTILE:.0%} quantile (median): "
        + ", ".join(f"{_size(n)} {_fmt_s(t)} ({_fmt_s(m)})" for n, t, m in zip(SIZES, t_low, t_med))
    )
    out(
        f"- fit t(n) = alpha + n beta to the {QUANTILE:.0%} quantiles (this machine when the "
        f"other jobs let both processes run): alpha = {alpha * 1e6:.1f} us, beta = "
        f"{beta * 1e9:.3f} ns/B ({1 / beta / 1e9:.2f} GB/s; {beta / 8 * 1e12:.1f} ps per bit), "
        f"largest relative residual {resid:.0%}. To the medians: alpha = {alpha_m * 1e6:.1f} us, "
        f"{1 / beta_m / 1e9:.2f} GB/s (residual {resid_m:.0%}): a ping-pong whose process is "
        "not running waits for a core (2 cores, other jobs), so the medians measure the load, "
        "the quantiles the software path. The model below uses the quantile fit."
    )
    rows.append(
        (
            "gloo point-to-point alpha, beta (this machine, loopback, 10% quantile fit)",
            f"alpha {alpha * 1e6:.1f} us, {1 / beta / 1e9:.2f} GB/s (residual {resid:.0%})",
            "measured, no target",
            None,
        )
    )

    # 3 (measured before the tables that use it) -------------------------------------------
    cpu = measure_hook_cpu(repeats)
    fits = {tr: fit_cpu(cpu, tr) for tr in ("classical", "superdense")}
    out(
        f"- hook CPU work per bucket at P = {P_MODEL:,}, {BITS}-bit words (one rank, no wire; "
        f"min / median / max of {repeats}): "
        + "; ".join(
            f"{tr} d = {d:,}: {cpu[(tr, d)].text(1e-3, 'ms', 1)}"
            for tr in ("classical", "superdense")
            for d in HOOK_BUCKETS
        )
    )
    out(
        "- fit C(d) = c_0 + c_1 d: "
        + "; ".join(
            f"{tr} c_0 = {c0 * 1e3:.1f} ms ({c0 / (2 * (P_MODEL - 1)) * 1e6:.1f} us per "
            f"ring step), c_1 = {c1 * 1e9:.1f} ns per entry"
            for tr, (c0, c1) in fits.items()
        )
    )

    # 2 ---------------------------------------------------------------------------------------
    nccl_beta = 1.0 / (NCCL["busbw_GBps"] * 1e9)  # s per byte on each ring link
    nccl_alpha = NCCL["small_us"] * 1e-6 / (2 * (NCCL["small_ranks"] - 1))
    fabrics = {"gloo here": (alpha, beta / 8), "NCCL ring": (nccl_alpha, nccl_beta / 8)}
    out(
        f"- NCCL's ring figures: bus bandwidth {NCCL['busbw_GBps']:g} GB/s (all_reduce_perf, "
        f"NCCL_ALGO=Ring, 5 nodes x 8 H100, 4 x 400G RoCE: NVIDIA/nccl issue 1368); busbw = "
        "algbw x 2 (n - 1)/n (nccl-tests doc/PERFORMANCE.md), i.e. beta = 1/busbw per byte in "
        f"T = 2 (P - 1)(alpha + (d/P) b beta); alpha = {NCCL['small_us']:g} us for an 8-byte "
        f"ring all-reduce on {NCCL['small_ranks']} ranks (2 DGX-A100: NVIDIA/nccl issue 812) / "
        f"2 ({NCCL['small_ranks']} - 1) steps = {nccl_alpha * 1e6:.1f} us per ring step "
        "(derived here; NCCL's ring latency grows linearly with the ranks, NVIDIA/nccl issue "
        "1712)"
    )
    out("")
    out(
        f"Ring all-reduce at P = {P_MODEL:,}, {BITS}-bit words, alpha-beta model "
        "(ring_time; superdense: a qubit costs a bit's link time); the hook's CPU per "
        "all-reduce from the fit above (25 MiB buckets), and which side dominates:"
    )
    out("")
    out(
        "| model | d | gloo: classical | gloo: superdense | gloo: alpha share | "
        "NCCL: classical | NCCL: superdense | hook CPU classical / superdense | "
        "superdense CPU / gloo wire | superdense CPU / NCCL wire |"
    )
    out("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    models = dict(MLP_SIZES)
    models.update(MODEL_SIZES)
    dominate = {}
    c0, c1 = fits["superdense"]
    for name, d in models.items():
        times = {}
        for fab, (a, b) in fabrics.items():
            for tr in ("classical", "superdense"):
                times[(fab, tr)] = ring_time(P_MODEL, d, BITS, a, b, transport=tr)
        a_share = 2 * (P_MODEL - 1) * alpha / times[("gloo here", "classical")]
        n_buckets = max(1, math.ceil(d * 4 / BUCKET_BYTES))
        d_b = math.ceil(d / n_buckets)
        wire = {
            fab: n_buckets * ring_time(P_MODEL, d_b, BITS, a, b, transport="superdense")
            for fab, (a, b) in fabrics.items()
        }
        cpu_total = n_buckets * c0 + c1 * d
        cpu_classical = n_buckets * fits["classical"][0] + fits["classical"][1] * d
        ratios = {fab: cpu_total / w for fab, w in wire.items()}
        dominate[name] = ratios
        out(
            f"| {name} | {d:,} | {_fmt_s(times[('gloo here', 'classical')])} | "
            f"{_fmt_s(times[('gloo here', 'superdense')])} | {a_share:.0%} | "
            f"{_fmt_s(times[('NCCL ring', 'classical')])} | "
            f"{_fmt_s(times[('NCCL ring', 'superdense')])} | "
            f"{_fmt_s(cpu_classical)} / {_fmt_s(cpu_total)} | "
            f"{ratios['gloo here']:.2g} | {ratios['NCCL ring']:.2g} |"
        )
    out("")
    # Per bucket of d entries: wire ~ 2 (P-1) alpha + w d with w = (P-1)/P b beta_bit classically
    # and half that superdense (2 (P-1) ceil(d/P) b / 2 qubits); the hook's CPU c0 + c1 d.
    for (fab, (a, b)), tr in ((f, t) for f in fabrics.items() for t in fits):
        c0, c1 = fits[tr]
        lat = 2 * (P_MODEL - 1) * a
        w = (P_MODEL - 1) / P_MODEL * BITS * b * (0.5 if tr == "superdense" else 1.0)
        per_step = c0 / (2 * (P_MODEL - 1))
        head = (
            f"- {fab}, {tr} hook: per ring step {per_step * 1e6:.1f} us of CPU vs alpha "
            f"{a * 1e6:.1f} us; per entry {c1 * 1e9:.1f} ns of CPU vs {w * 1e9:.3f} ns of "
            "wire: "
        )
        if c0 >= lat and c1 >= w:
            out(head + "the hook's CPU dominates at every bucket size")
        elif c0 < lat and c1 > w:
            d_star = (lat - c0) / (c1 - w)
            out(
                head + f"the wire's latency dominates up to buckets of {d_star:.3g} entries "
                f"({d_star * 4 / 2**20:,.0f} MiB of float32), the hook's CPU above"
            )
        elif c0 >= lat:
            d_star = (c0 - lat) / (w - c1)
            out(
                head + f"the hook's CPU dominates up to buckets of {d_star:.3g} entries, "
                "the wire above"
            )
        else:
            out(head + "the wire dominates at every bucket size")
    out("")
    gpt2 = MODEL_SIZES["GPT-2 XL"]
    sd_ratio = ring_time(
        P_MODEL, gpt2, BITS, *fabrics["gloo here"], transport="superdense"
    ) / ring_time(P_MODEL, gpt2, BITS, *fabrics["gloo here"])
    rows.append(
        (
            f"alpha-beta model, P={P_MODEL}, b={BITS}, gloo here: superdense / classical "
            "ring time (GPT-2 XL)",
            f"{sd_ratio:.3f}",
            "model, no target",
            None,
        )
    )
    worst = {fab: min(dominate.items(), key=lambda kv: kv[1][fab]) for fab in fabrics}
    rows.append(
        (
            f"alpha-beta model, P={P_MODEL}: hook CPU / wire time per all-reduce "
            "(superdense), smallest over the models",
            f"gloo {worst['gloo here'][1]['gloo here']:.2g} ({worst['gloo here'][0]}), "
            f"NCCL {worst['NCCL ring'][1]['NCCL ring']:.2g} ({worst['NCCL ring'][0]})",
            "model, no target",
            None,
        )
    )
    return rows


def _size(n: int) -> str:
    for unit, k in (("MiB", 2**20), ("KiB", 2**10)):
        if n >= k:
            return f"{n // k} {unit}"
    return f"{n} B"


if __name__ == "__main__":
    t_start = time.perf_counter()
    result_rows = run(print, repeats=int(sys.argv[1]) if len(sys.argv) > 1 else 3)
    print("| benchmark | measured | target | status |")
    print("|---|---:|---:|---|")
    for row_name, value, target, ok in result_rows:
        status = "-" if ok is None else "PASS" if ok else "MISS"
        print(f"| {row_name} | {value} | {target} | {status} |")
    print(f"\n(total {time.perf_counter() - t_start:.0f} s)")
