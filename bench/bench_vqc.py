"""Benchmark of the variational quantum classifier on the ring.

    from bench import bench_vqc; rows = bench_vqc.run(print, repeats=5)

Workload: the chapter's figure, ``train_data_parallel(model="vqc")`` with P = 4 workers and 100
steps (3 qubits x 3 layers, 18 angles, parameter-shift gradients on the NumPy state vector),
over the classical ring and the superdense ring at F = 1. Target (absolute): one
training run in under 10 s on this machine. Also reported, as ratios measured in one run: the
superdense / classical training time, the VQC / MLP training time (same steps, batches and ring),
and the throughput of the fast path against Qiskit's ``StatevectorEstimator`` for the gradient
of one mini-batch. The load average is printed because other processes share the machine.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from timing import pair_ratio, time_pair  # noqa: E402  (bench/ is on sys.path: run.py's folder)

from qring_edu.training import make_moons, train_data_parallel  # noqa: E402
from qring_edu.vqc import (  # noqa: E402
    vqc_n_parameters,
    vqc_score_gradient,
    vqc_score_gradient_qiskit,
)

VQC_WORKERS, VQC_STEPS = 4, 100
TARGET_VQC_SECONDS = 10.0  # one training run of the chapter's figure, at most (absolute)
GRAD_BATCH = 16  # one worker's mini-batch


def _load() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average unavailable"
    return (
        f"load average {one:.2f} / {five:.2f} / {fifteen:.2f} (1 / 5 / 15 min) on "
        f"{os.cpu_count()} CPUs"
    )


def run(out: Callable[[str], None], repeats: int) -> list[tuple[str, str, str, bool]]:
    """Print the VQC section with ``out(text)`` and return the summary rows
    ``(name, measured, target, ok)``."""
    repeats = max(1, int(repeats))
    kw = dict(model="vqc", workers=VQC_WORKERS, steps=VQC_STEPS, seed=0)
    out(
        f"## VQC data-parallel training: P = {VQC_WORKERS}, {VQC_STEPS} steps, "
        f"{vqc_n_parameters()} parameters (3 qubits x 3 layers), parameter-shift gradients"
    )
    out(f"- before: {_load()}")
    t_cl, t_sd, run_cl, run_sd = time_pair(
        lambda: train_data_parallel(transport="classical", **kw),
        lambda: train_data_parallel(transport="superdense", pair_fidelity=1.0, **kw),
        repeats,
    )
    identical = bool(
        np.array_equal(run_cl.weights, run_sd.weights)
        and np.array_equal(run_cl.losses, run_sd.losses)
    )
    out(
        f"- VQC over the classical ring:           {t_cl.text()} (final accuracy "
        f"{run_cl.final_accuracy:.3f}, loss {run_cl.final_loss:.4f})"
    )
    out(
        f"- VQC over the superdense ring, F = 1:   {t_sd.text()} (parameters bit-identical to "
        f"the classical run: {identical})"
    )
    out(f"- wall-time ratio superdense / classical: {pair_ratio(t_cl, t_sd):.2f}")
    t_mlp, t_vqc, run_mlp, _ = time_pair(
        lambda: train_data_parallel(model="mlp", workers=VQC_WORKERS, steps=VQC_STEPS, seed=0),
        lambda: train_data_parallel(transport="classical", **kw),
        repeats,
    )
    out(
        f"- MLP (2-16-2, {run_mlp.n_params} parameters), same ring and steps: {t_mlp.text()}; "
        f"VQC / MLP wall time {pair_ratio(t_mlp, t_vqc):.2f}"
    )
    out(
        f"- ledger per step, busiest link: VQC {run_cl.online_bits_per_step:g} bits or "
        f"{run_sd.online_qubits_per_step:g} qubits; MLP {run_mlp.online_bits_per_step:g} bits"
    )

    rng = np.random.default_rng(19)
    theta = rng.uniform(-np.pi, np.pi, vqc_n_parameters())
    X, _ = make_moons(GRAD_BATCH, seed=20)
    t_fast, t_qk, g_fast, g_qk = time_pair(
        lambda: vqc_score_gradient(theta, X), lambda: vqc_score_gradient_qiskit(theta, X), repeats
    )
    agree = float(np.max(np.abs(g_fast - g_qk)))
    out(
        f"- gradient of one {GRAD_BATCH}-sample batch ({2 * theta.size} shifted circuits per "
        f"sample): fast path {t_fast.text(1e-3, 'ms')}, StatevectorEstimator "
        f"{t_qk.text(1e-3, 'ms')}; fast / Qiskit throughput {pair_ratio(t_fast, t_qk):,.0f}; "
        f"largest difference {agree:.1e}"
    )
    out(f"- after: {_load()}")
    out("")
    worst = max(t_cl.max, t_sd.max)
    return [
        (
            f"VQC training, P={VQC_WORKERS}, {VQC_STEPS} steps: slowest run (s)",
            f"{worst:.2f}",
            f"< {TARGET_VQC_SECONDS:g}",
            worst < TARGET_VQC_SECONDS,
        ),
        (
            "VQC: classical and superdense (F=1) parameters bit-identical",
            str(identical),
            "True",
            identical,
        ),
        (
            "VQC gradient: fast path vs StatevectorEstimator (max abs diff)",
            f"{agree:.1e}",
            "<= 1e-10",
            agree <= 1e-10,
        ),
    ]


if __name__ == "__main__":
    rows = run(print, repeats=int(sys.argv[1]) if len(sys.argv) > 1 else 5)
    sys.exit(0 if all(ok for *_, ok in rows) else 1)
