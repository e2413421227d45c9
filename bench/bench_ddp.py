"""Benchmark of the DDP communication hook (issue 9): a training step with qring_edu's ring
hook vs the same step with gloo's built-in all-reduce.

    from bench import bench_ddp; rows = bench_ddp.run(print, repeats=5)
    python bench/bench_ddp.py [repeats]

Workload: P = 2 processes on this machine (gloo on localhost, one torch thread each), the tanh
MLP of ``examples/ddp_train.py`` (2-64-64-2, float32) and a wider one (2-512-512-2), two moons,
mini-batches of 32 per rank, SGD. One *sample* is ``STEPS`` consecutive training steps
(forward, backward with the all-reduce, optimizer step); the figure is its wall time divided by
``STEPS``. The built-in model (no hook) and the hooked model (classical transport; superdense
transport at F = 0.99, i.e. with pair noise sampled) live side by side in the same processes
and are timed alternately a, b, a, b after one warm-up sample each (bench/run.py's
``time_pair``); the ratio is the median of the per-pair ratios, on rank 0.
Targets: classical hook <= 3x the built-in step, superdense hook <= 4x.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
for _p in (str(ROOT), str(Path(__file__).resolve().parent)):
    if _p not in sys.path:  # run from a checkout without installing; bench/ for timing
        sys.path.insert(0, _p)

from timing import Timing, pair_ratio  # noqa: E402  (bench/timing.py)

DDP_P = 2
STEPS = 20                      # training steps per timed sample
BATCH = 32                      # per rank
WIDTHS = (64, 512)              # hidden width of the 2-w-w-2 MLP (64: the example's model)
FIDELITY = 0.99
TARGET_CLASSICAL = 3.0          # hooked step / built-in step, at most
TARGET_SUPERDENSE = 4.0


def _worker(rank: int, world: int, repeats: int, width: int) -> dict:
    """One rank: three DDP copies of the same model; alternate built-in and hooked steps."""
    import torch
    from torch.nn.parallel import DistributedDataParallel

    from qring_edu import make_moons
    from qring_edu.ddp import RingHookState, ring_hook
    from timing import time_pair

    X, y = make_moons(4096, seed=0)
    X, y = torch.from_numpy(X).float(), torch.from_numpy(y)
    batches = torch.randint(0, X.shape[0], (STEPS, BATCH),
                            generator=torch.Generator().manual_seed(rank))
    loss_fn = torch.nn.CrossEntropyLoss()

    def build(hook_state):
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(2, width), torch.nn.Tanh(),
                                  torch.nn.Linear(width, width), torch.nn.Tanh(),
                                  torch.nn.Linear(width, 2))
        model = DistributedDataParallel(net)
        if hook_state is not None:
            model.register_comm_hook(hook_state, ring_hook)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)

        def sample():
            for idx in batches:
                opt.zero_grad()
                loss_fn(model(X[idx]), y[idx]).backward()
                opt.step()
        return sample, sum(p.numel() for p in net.parameters())

    builtin, n_params = build(None)
    classical_state = RingHookState(transport="classical", bits=16)
    superdense_state = RingHookState(transport="superdense", bits=16, pair_fidelity=FIDELITY,
                                     seed=1)
    classical, _ = build(classical_state)
    superdense, _ = build(superdense_state)
    t_b1, t_cl, _, _ = time_pair(builtin, classical, repeats)
    t_b2, t_sd, _, _ = time_pair(builtin, superdense, repeats)
    before = classical_state.buckets  # DDP rebuilds its buckets after the first step: count now
    classical()
    return dict(n_params=n_params, builtin_cl=t_b1.seconds, classical=t_cl.seconds,
                builtin_sd=t_b2.seconds, superdense=t_sd.seconds,
                buckets=(classical_state.buckets - before) // STEPS,
                flipped=superdense_state.flipped_bits, data_bits=superdense_state.data_bits)


def _ms_text(seconds: list[float]) -> str:
    """Per training step, in ms, of samples of ``STEPS`` steps."""
    return Timing(seconds).text(unit=STEPS * 1e-3, suffix="ms", digits=2)


def run(out: Callable[[str], None], repeats: int) -> list[tuple[str, str, str, bool]]:
    """Print the DDP-hook section with ``out(text)`` and return the summary rows
    ``(name, measured, target, ok)``."""
    from qring_edu.ddp import launch_local

    repeats = max(1, int(repeats))
    worker = importlib.import_module("bench_ddp")._worker  # importable by the child processes
    out(f"## DDP hook: a training step with the ring hook vs gloo's built-in all-reduce, "
        f"P = {DDP_P} processes, batch {BATCH} per rank, {STEPS} steps per sample")
    rows = []
    for width in WIDTHS:
        res = launch_local(worker, DDP_P, (repeats, width), timeout=600.0, pg_timeout=120.0)[0]
        r_cl = pair_ratio(Timing(res["builtin_cl"]), Timing(res["classical"]))
        r_sd = pair_ratio(Timing(res["builtin_sd"]), Timing(res["superdense"]))
        rate = res["flipped"] / res["data_bits"] if res["data_bits"] else 0.0
        out(f"- MLP 2-{width}-{width}-2 ({res['n_params']:,} float32 parameters, "
            f"{res['buckets']} bucket(s) per step), per step, min / median / max:")
        out(f"  - built-in: {_ms_text(res['builtin_cl'])}; ring hook, classical: "
            f"{_ms_text(res['classical'])}; ratio (median of {repeats} pairs) {r_cl:.2f}")
        out(f"  - built-in: {_ms_text(res['builtin_sd'])}; ring hook, superdense F = {FIDELITY}: "
            f"{_ms_text(res['superdense'])}; ratio {r_sd:.2f} (bit error rate on rank 0's "
            f"link {rate:.4f}, expected {2 * (1 - FIDELITY) / 3:.4f})")
        rows.append((f"DDP step, ring hook classical / built-in (MLP width {width}, P=2)",
                     f"{r_cl:.2f}", f"<= {TARGET_CLASSICAL:g}", r_cl <= TARGET_CLASSICAL))
        rows.append((f"DDP step, ring hook superdense F={FIDELITY} / built-in (MLP width "
                     f"{width}, P=2)", f"{r_sd:.2f}", f"<= {TARGET_SUPERDENSE:g}",
                     r_sd <= TARGET_SUPERDENSE))
    out("")
    return rows


if __name__ == "__main__":
    rows = run(print, repeats=int(sys.argv[1]) if len(sys.argv) > 1 else 5)
    for row in rows:
        print(row)
    sys.exit(0 if all(ok for *_, ok in rows) else 1)
