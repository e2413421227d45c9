"""Benchmark of the DDP communication hook: a training step with qring_edu's
ring hook vs the same step with gloo's built-in all-reduce.

    from bench import bench_ddp; rows = bench_ddp.run(print, repeats=5)
    python bench/bench_ddp.py [repeats]

Workload: P = 2 processes on this machine (gloo on localhost, one torch thread each), the tanh
MLP of ``examples/ddp_train.py`` (2-64-64-2, float32, 4,482 parameters, one bucket per step) and
a wider one (2-512-512-2, 265,218 parameters, two buckets per step), two moons, mini-batches of
32 per rank, SGD. One *sample* is ``STEPS`` consecutive training steps (forward, backward with
the all-reduce, optimizer step); the figure is its wall time divided by ``STEPS``. The built-in
model (no hook) and the hooked models live side by side in the same processes: the ring hook
with the classical transport, with the superdense transport at F = 0.99 (pair noise sampled),
and in private mode (classical transport, every bucket masked with GHZ pads). Each hooked model
is timed alternately with the built-in one, a, b, a, b, after one warm-up sample each
(bench/timing.py's ``time_pair``); the ratio is the median of the per-pair ratios, on rank 0.
The machine's load average (``os.getloadavg``) is printed before and after each model: this
machine has two logical CPUs, and other processes slow the two ranks unevenly, so the ratios are
only comparable at a similar load. A bucket's first step makes 1 + 2(P-1) = 3 synchronisations
at P = 2: the header, one asynchronous MAX ``all_reduce`` of five float64 words started by the
hook on the autograd thread, then the two ring steps, gloo point-to-point messages posted
straight on the ProcessGroup (receive first). Every later step makes the ring's 2: the scale is
agreed one step ahead, the hook encodes the bucket and posts the first step itself, one float64
rides in each reduce-scatter message (after the chunk's words), and the worker thread does the
rest; a step whose
maximum outgrew the agreed bound runs the ring again (counted as "sent again"). The private
mode's pads are drawn from the generator's raw bits, block by block, into reused buffers.
Targets: classical and superdense hook <= 1.5x the built-in step, private <= 2.5x.
Five context rows per model, without a target, each against the built-in step: a second copy
of it (the spread of the measurement), and three bare hooks of ``_floor_hook``: no
communication (the step's own compute), the ring's two exchanges of 16-bit words and nothing
else (what the messages cost from Python; its row also gives what a 1.5x target leaves for the
hook's own work), a bare ring (the floor of a Python-posted ring on this machine) and the same
bare ring in C++ (``bench/floor_ring.cpp``, built with torch.utils.cpp_extension; what a compiled
transport of this shape reaches; the row says why when the machine cannot build it)."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _p in (str(ROOT), str(Path(__file__).resolve().parent)):
    if _p not in sys.path:  # run from a checkout without installing; bench/ for timing
        sys.path.insert(0, _p)

from timing import Timing, pair_ratio  # noqa: E402  (bench/timing.py)

DDP_P = 2
STEPS = 20  # training steps per timed sample
BATCH = 32  # per rank
WIDTHS = (64, 512)  # hidden width of the 2-w-w-2 MLP (64: the example's model)
FIDELITY = 0.99
#: (label, RingHookState keywords, target ratio hooked step / built-in step)
VARIANTS = (
    ("classical", dict(transport="classical"), 1.5),
    (f"superdense F={FIDELITY}", dict(transport="superdense", pair_fidelity=FIDELITY), 1.5),
    ("private (classical, GHZ pads)", dict(transport="classical", private=True), 2.5),
)


def _compiled_ring():
    """``(module, None)``: ``bench/floor_ring.cpp`` built with ``torch.utils.cpp_extension``
    (once per machine, about half a minute; later calls load the cached build), or ``(None,
    reason)`` when this machine cannot build it (no C++ compiler or ninja)."""
    try:
        from torch.utils.cpp_extension import load

        module = load(
            "qring_bench_floor_ring",
            [str(Path(__file__).resolve().with_name("floor_ring.cpp"))],
            extra_cflags=["-O3", "-march=native", "-fno-math-errno"],
            verbose=False,
        )
    except Exception as exc:  # noqa: BLE001 - the row says why and the bench goes on
        return None, (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
    return module, None


def _floor_hook(rank: int, work: str = "ring"):
    """Bare hooks for P = 2 (context for the targets, not library parts).

    ``work="ring"``: a bare ring all-reduce with the same shape as the library's hook (a worker
    thread completes a pending future, 16-bit fixed-point words, the two ring steps as gloo
    point-to-point exchanges posted from Python) without anything else: no header or agreed
    scale, no ledger, noise, pads or error checks. Its ratio to the built-in all-reduce is the
    floor of that design on this machine. ``work="transport"``: only the two exchanges, of a
    reused buffer of the bucket's 16-bit words (zeros); the bucket is left as it is. What the
    ring's messages cost from Python before a word is encoded. ``work="compiled"``: the bare
    ring with its encoding, sum, decoding and both exchanges in C++ (``bench/floor_ring.cpp``,
    the GIL released), called from the same worker thread: what a compiled transport of this
    shape reaches. ``work="none"``: no communication at all (the future is complete when the
    hook returns): the step's forward, backward and optimizer alone."""
    import queue
    import threading

    import torch
    import torch.distributed as dist

    if work not in ("ring", "transport", "compiled", "none"):
        raise ValueError(f"work must be 'ring', 'transport', 'compiled' or 'none', got {work!r}")
    pg, other, jobs = dist.group.WORLD, 1 - rank, queue.SimpleQueue()
    zeros: dict[int, torch.Tensor] = {}

    def exchange(out, into, tag):
        works = [pg.recv([into], other, tag), pg.send([out], other, tag)]
        for w in works:
            w.wait()

    def halves(n):
        half = n // 2
        lo, hi = slice(0, half), slice(half, None)
        return (lo, hi) if rank == 0 else (hi, lo)  # (this rank's chunk, the other's)

    def ring(t):
        scale = 16383.0 / max(float(t.abs().max()), 1e-30) / 2  # |sum| < 2**15
        words = torch.round(t * scale).to(torch.int16)
        mine, theirs = halves(t.numel())
        inc = torch.empty_like(words[mine])
        exchange(words[theirs], inc, 1)  # reduce-scatter
        words[mine] += inc
        exchange(words[mine], words[theirs], 2)  # all-gather
        t.copy_(words.to(t.dtype) / (2 * scale))
        return t

    def scratch(n):
        """Reused int16 buffers of a bucket of n entries: (words, incoming)."""
        if n not in zeros:
            zeros[n] = torch.zeros(2 * n, dtype=torch.int16)
        return zeros[n][:n], zeros[n][n:]

    def transport(t):
        n = t.numel()
        words, inc = scratch(n)
        mine, theirs = halves(n)
        exchange(words[theirs], inc[mine], 1)
        exchange(words[mine], words[theirs], 2)
        return t

    def compiled(t):
        ext.ring2(pg, t, rank, *scratch(t.numel()))
        return t

    def loop(fn):
        while True:
            t, fut = jobs.get()
            fut.set_result(fn(t))

    if work == "none":

        def hook(_state, bucket):
            fut = torch.futures.Future()
            fut.set_result(bucket.buffer())
            return fut

        return hook

    if work == "compiled":
        ext, why = _compiled_ring()
        if ext is None:
            raise RuntimeError(f"the compiled ring is not available: {why}")
    fn = {"ring": ring, "transport": transport, "compiled": compiled}[work]
    threading.Thread(target=loop, args=(fn,), daemon=True).start()

    def hook(_state, bucket):
        fut = torch.futures.Future()
        jobs.put((bucket.buffer(), fut))
        return fut

    return hook


def _worker(rank: int, world: int, repeats: int, width: int, compiled: bool) -> dict:
    """One rank: DDP copies of the same model, built-in and hooked; alternate their steps."""
    import torch
    from timing import time_pair
    from torch.nn.parallel import DistributedDataParallel

    from qring_edu import make_moons
    from qring_edu.ddp import RingHookState, ring_hook

    X, y = make_moons(4096, seed=0)
    X, y = torch.from_numpy(X).float(), torch.from_numpy(y)
    batches = torch.randint(
        0, X.shape[0], (STEPS, BATCH), generator=torch.Generator().manual_seed(rank)
    )
    loss_fn = torch.nn.CrossEntropyLoss()

    def build(hook_state, hook=None):
        torch.manual_seed(0)
        net = torch.nn.Sequential(
            torch.nn.Linear(2, width),
            torch.nn.Tanh(),
            torch.nn.Linear(width, width),
            torch.nn.Tanh(),
            torch.nn.Linear(width, 2),
        )
        model = DistributedDataParallel(net)
        if hook is not None:
            model.register_comm_hook(hook_state, hook)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)

        def sample():
            for idx in batches:
                opt.zero_grad()
                loss_fn(model(X[idx]), y[idx]).backward()
                opt.step()

        return sample, sum(p.numel() for p in net.parameters())

    builtin, n_params = build(None)
    out: dict = {"n_params": n_params, "rows": [], "context": []}
    # Context rows: the built-in step against itself (a second, identical DDP model: the
    # measurement's own spread) and against the bare hooks of _floor_hook.
    rows = [
        ("built-in, a second copy", build(None)[0]),
        ("no communication (bench only)", build(None, _floor_hook(rank, "none"))[0]),
        ("the ring's messages only (bench only)", build(None, _floor_hook(rank, "transport"))[0]),
        ("bare ring hook (bench only)", build(None, _floor_hook(rank))[0]),
    ]
    if compiled:  # the parent built it: every rank loads the same cached build
        rows.append(
            ("bare ring hook in C++ (bench only)", build(None, _floor_hook(rank, "compiled"))[0])
        )
    for label, other in rows:
        t_b, t_o, _, _ = time_pair(builtin, other, repeats)
        out["context"].append((label, t_b.seconds, t_o.seconds))
    for label, kw, _ in VARIANTS:
        state = RingHookState(bits=16, seed=1, **kw)
        hooked, _ = build(state, ring_hook)
        load_before = os.getloadavg()[0]
        t_b, t_h, _, _ = time_pair(builtin, hooked, repeats)
        load_after = os.getloadavg()[0]
        before = state.buckets  # DDP rebuilds its buckets after the first step: count now
        hooked()
        rep = state.report()
        out["rows"].append(
            dict(
                label=label,
                builtin=t_b.seconds,
                hooked=t_h.seconds,
                buckets=(rep.buckets - before) // STEPS,
                load=(load_before, load_after),
                flipped=rep.flipped_bits,
                data_bits=rep.data_bits,
                ghz_used=rep.ghz_used,
                ghz_tested=rep.ghz_tested,
                steps=rep.iterations,
                rescaled=rep.rescaled,
                all_buckets=rep.buckets,
            )
        )
        state.close()
    return out


def _ms_text(seconds: list[float]) -> str:
    """Per training step, in ms, of samples of ``STEPS`` steps."""
    return Timing(seconds).text(unit=STEPS * 1e-3, suffix="ms", digits=2)


def _budget_text(builtin: list[float], messages: list[float]) -> str:
    """What the classical and superdense target (``VARIANTS``) leaves per step for the hook's
    own work (encoding, decoding, the ledger, noise): the target times the built-in step minus
    the messages-only step, medians, in ms."""
    target = VARIANTS[0][2]
    left = (target * Timing(builtin).median - Timing(messages).median) / STEPS * 1e3
    return f"; left for the hook's own work at {target:g}x the built-in: {left:.2f} ms per step"


def run(out: Callable[[str], None], repeats: int) -> list[tuple[str, str, str, bool]]:
    """Print the DDP-hook section with ``out(text)`` and return the summary rows
    ``(name, measured, target, ok)``."""
    from qring_edu.launch import launch_local

    repeats = max(1, int(repeats))
    worker = importlib.import_module("bench_ddp")._worker  # importable by the child processes
    compiled, why = _compiled_ring()  # built here once, before the ranks start
    out(
        f"## DDP hook: a training step with the ring hook vs gloo's built-in all-reduce, "
        f"P = {DDP_P} processes, batch {BATCH} per rank, {STEPS} steps per sample"
    )
    rows = []
    for width in WIDTHS:
        res = launch_local(
            worker, DDP_P, (repeats, width, compiled is not None), timeout=900.0, pg_timeout=120.0
        )[0]
        out(
            f"- MLP 2-{width}-{width}-2 ({res['n_params']:,} float32 parameters), per step, "
            f"min / median / max:"
        )
        for label, t_b, t_o in res["context"]:
            out(
                f"  - context, {label}: {_ms_text(t_o)} vs built-in {_ms_text(t_b)}; ratio "
                f"(median of {repeats} pairs) {pair_ratio(Timing(t_b), Timing(t_o)):.2f}, "
                f"per pair {min(y / x for x, y in zip(t_b, t_o)):.2f} .. "
                f"{max(y / x for x, y in zip(t_b, t_o)):.2f}"
                + (_budget_text(t_b, t_o) if label.startswith("the ring's messages") else "")
            )
        if compiled is None:
            out(f"  - context, bare ring hook in C++: not available on this machine ({why})")
        for (label, _, target), row in zip(VARIANTS, res["rows"]):
            ratio = pair_ratio(Timing(row["builtin"]), Timing(row["hooked"]))
            extra = ""
            if row["data_bits"] and "superdense" in label:
                extra = (
                    f"; bit error rate on rank 0's link "
                    f"{row['flipped'] / row['data_bits']:.4f}, expected "
                    f"{2 * (1 - FIDELITY) / 3:.4f}"
                )
            if row["ghz_used"]:
                extra = (
                    f"; qubit GHZ copies per step: {row['ghz_used'] // row['steps']:,} "
                    f"used, {row['ghz_tested'] // row['steps']:,} tested"
                )
            out(
                f"  - ring hook, {label}: {_ms_text(row['hooked'])} vs built-in "
                f"{_ms_text(row['builtin'])}; ratio (median of {repeats} pairs) {ratio:.2f}; "
                f"{row['buckets']} bucket(s) per step, {row['rescaled']} of "
                f"{row['all_buckets']} sent again; load average "
                f"{row['load'][0]:.2f} -> {row['load'][1]:.2f}{extra}"
            )
            rows.append(
                (
                    f"DDP step, ring hook {label} / built-in (MLP width {width}, P=2)",
                    f"{ratio:.2f}",
                    f"<= {target:g}",
                    ratio <= target,
                )
            )
    out("")
    return rows


if __name__ == "__main__":
    rows = run(print, repeats=int(sys.argv[1]) if len(sys.argv) > 1 else 5)
    for row in rows:
        print(row)
    sys.exit(0 if all(ok for *_, ok in rows) else 1)
