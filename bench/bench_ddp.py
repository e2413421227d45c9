"""Benchmark of the DDP communication hook: a training step with qring_edu's ring hook vs the
same step with gloo's built-in all-reduce.

    from bench import bench_ddp; rows = bench_ddp.run(print, repeats=5)
    python bench/bench_ddp.py [repeats]

Workload: P = 2 processes on this machine (gloo on localhost, one torch thread each), the tanh
MLP of ``examples/ddp_train.py`` (2-64-64-2, float32, 4,482 parameters, one bucket per step) and
a wider one (2-512-512-2, 265,218 parameters, two buckets per step), two moons, mini-batches of
32 per rank, SGD. One *sample* is ``STEPS`` consecutive training steps (forward, backward with
the all-reduce, optimizer step); the figure is its wall time divided by ``STEPS``. The built-in
model (no hook) and a hooked model live side by side in the same processes: the ring hook
(:func:`qring_edu.ddp.ring_hook`) with the classical transport, with the superdense transport
at F = 0.99 (its noise drawn per message) and in private mode (classical transport, zero-sum
pads). Each hooked model is timed alternately with the built-in one, a, b, a, b, after one
warm-up sample each (bench/timing.py's ``time_pair``); the ratio is the median of the per-pair
ratios, on rank 0, so that a burst of load on this shared machine hits both sides of a pair.

The hook is synchronous: per bucket one header all-reduce and 2(P - 1) ring steps, each step an
``isend`` and a ``recv`` from Python, plus the NumPy passes (encode, add, decode, the noise),
while the backward pass waits; gloo's built-in all-reduce runs in C++ and overlaps with it.
Targets: hook <= 3x the built-in step (classical and superdense), <= 3.5x (private)."""

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
    ("classical", dict(transport="classical"), 3.0),
    (f"superdense F={FIDELITY}", dict(transport="superdense", pair_fidelity=FIDELITY), 3.0),
    ("private (classical, zero-sum pads)", dict(transport="classical", private=True), 3.5),
)


def _worker(rank: int, world: int, repeats: int, width: int) -> dict:
    """One rank: DDP copies of the same model, built-in and hooked; alternate their steps."""
    import torch
    from timing import time_pair
    from torch.nn.parallel import DistributedDataParallel

    from qring_edu.ddp import RingHookState, ring_hook
    from qring_edu.training import make_moons

    X, y = make_moons(4096, seed=0)
    X, y = torch.from_numpy(X).float(), torch.from_numpy(y)
    batches = torch.randint(
        0, X.shape[0], (STEPS, BATCH), generator=torch.Generator().manual_seed(rank)
    )
    loss_fn = torch.nn.CrossEntropyLoss()

    def build(state=None):
        torch.manual_seed(0)
        net = torch.nn.Sequential(
            torch.nn.Linear(2, width),
            torch.nn.Tanh(),
            torch.nn.Linear(width, width),
            torch.nn.Tanh(),
            torch.nn.Linear(width, 2),
        )
        model = DistributedDataParallel(net)
        if state is not None:
            model.register_comm_hook(state, ring_hook)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)

        def sample():
            for idx in batches:
                opt.zero_grad()
                loss_fn(model(X[idx]), y[idx]).backward()
                opt.step()

        return sample, sum(p.numel() for p in net.parameters())

    builtin, n_params = build()
    out: dict = {"n_params": n_params, "rows": []}
    for label, kw, _ in VARIANTS:
        state = RingHookState(bits=16, seed=1, **kw)
        hooked, _ = build(state)
        load_before = os.getloadavg()[0]
        t_b, t_h, _, _ = time_pair(builtin, hooked, repeats)
        load_after = os.getloadavg()[0]
        rep = state.report()
        out["rows"].append(
            dict(
                label=label,
                builtin=t_b.seconds,
                hooked=t_h.seconds,
                # round: DDP rebuilds its buckets after the first step (one bucket then)
                buckets=round(rep.buckets / ((repeats + 1) * STEPS)),
                load=(load_before, load_after),
                bit_error_rate=rep.bit_error_rate,
            )
        )
    return out


def _ms_text(seconds: list[float]) -> str:
    """Per training step, in ms, of samples of ``STEPS`` steps."""
    return Timing(seconds).text(unit=STEPS * 1e-3, suffix="ms", digits=2)


def run(out: Callable[[str], None], repeats: int) -> list[tuple[str, str, str, bool]]:
    """Print the DDP-hook section with ``out(text)`` and return the summary rows
    ``(name, measured, target, ok)``."""
    from qring_edu.launch import launch_local

    repeats = max(1, int(repeats))
    worker = importlib.import_module("bench_ddp")._worker  # importable by the child processes
    out(
        f"## DDP hook: a training step with the ring hook vs gloo's built-in all-reduce, "
        f"P = {DDP_P} processes, batch {BATCH} per rank, {STEPS} steps per sample"
    )
    rows = []
    for width in WIDTHS:
        res = launch_local(worker, DDP_P, (repeats, width), timeout=900.0, pg_timeout=120.0)[0]
        out(
            f"- MLP 2-{width}-{width}-2 ({res['n_params']:,} float32 parameters), per step, "
            f"min / median / max:"
        )
        for (label, _, target), row in zip(VARIANTS, res["rows"]):
            ratio = pair_ratio(Timing(row["builtin"]), Timing(row["hooked"]))
            pairs = [y / x for x, y in zip(row["builtin"], row["hooked"])]
            noise = ""
            if "superdense" in label:
                noise = (
                    f"; bit error rate on rank 0's link {row['bit_error_rate']:.4f}, expected "
                    f"{2 * (1 - FIDELITY) / 3:.4f}"
                )
            out(
                f"  - ring hook, {label}: {_ms_text(row['hooked'])} vs built-in "
                f"{_ms_text(row['builtin'])}; ratio (median of {repeats} pairs) {ratio:.2f}, "
                f"per pair {min(pairs):.2f} .. {max(pairs):.2f}; {row['buckets']} bucket(s) "
                f"per step; load average {row['load'][0]:.2f} -> {row['load'][1]:.2f}{noise}"
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
