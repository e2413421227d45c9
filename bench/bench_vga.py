"""Benchmark of VGA: verified GHZ aggregation vs the superdense ring on the same data.

    from bench import bench_vga; rows = bench_vga.run(print, repeats=5)

Workload: P = 16 workers, d = 10^5 entries, b = 16-bit words, honest source, default test
fraction 1/2. Target: ``vga_aggregate`` takes under 5x the wall time of ``ring_allreduce`` with
the superdense transport (F = 1) on the same integers. The two calls are run alternately (after one
untimed warm-up each) so that load from other processes hits both alike; the ratio is the median of
the per-pair ratios.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from timing import time_pair  # noqa: E402  (bench/ is on sys.path: run.py's folder)

from qring_edu import modular_sum, ring_allreduce  # noqa: E402
from qring_edu.vga import vga_aggregate  # noqa: E402

VGA_P, VGA_D, VGA_BITS = 16, 100_000, 16
TARGET_VGA_RATIO = 5.0  # vga_aggregate / superdense ring wall time, at most


def run(out: Callable[[str], None], repeats: int) -> list[tuple[str, str, str, bool]]:
    """Print the VGA section with ``out(text)`` and return the summary rows
    ``(name, measured, target, ok)``."""
    repeats = max(1, int(repeats))
    rng = np.random.default_rng(20264)
    words = rng.integers(0, 2**VGA_BITS, size=(VGA_P, VGA_D), dtype=np.int64)
    out(
        f"## VGA: vga_aggregate vs superdense ring, P = {VGA_P}, d = {VGA_D:,}, "
        f"{VGA_BITS}-bit words, honest source, test fraction 1/2"
    )
    t_vga, t_ring, res_vga, res_ring = time_pair(
        lambda: vga_aggregate(words, bits=VGA_BITS, seed=1),
        lambda: ring_allreduce(words, transport="superdense", bits=VGA_BITS, seed=1),
        repeats,
    )
    ratios = [a / b for a, b in zip(t_vga.seconds, t_ring.seconds)]
    ratio = statistics.median(ratios)
    exact = bool(
        np.array_equal(res_vga.total, res_ring.outputs[0])
        and np.array_equal(res_vga.total, modular_sum(words, VGA_BITS))
    )
    out(
        f"- vga_aggregate:          {t_vga.text(1e-3, 'ms')} (accepted {res_vga.accepted}, "
        f"GHZ copies used {res_vga.ghz_used:,}, tested {res_vga.ghz_tested:,})"
    )
    out(
        f"- ring_allreduce (superdense, F = 1): {t_ring.text(1e-3, 'ms')} "
        f"(online qubits per link {res_ring.ledger.online_qubits():,})"
    )
    out(f"- same exact sum from both: {exact}")
    out(
        f"- wall-time ratio VGA / superdense ring: median of the {repeats} alternating pairs "
        f"{ratio:.2f} (pairs {min(ratios):.2f} .. {max(ratios):.2f}); target < "
        f"{TARGET_VGA_RATIO:g}"
    )
    out("")
    ok = ratio < TARGET_VGA_RATIO and exact
    return [
        (
            "VGA / superdense ring wall time (P=16, d=1e5, b=16)",
            f"{ratio:.2f}",
            f"< {TARGET_VGA_RATIO:g}",
            ok,
        )
    ]


if __name__ == "__main__":
    rows = run(print, repeats=int(sys.argv[1]) if len(sys.argv) > 1 else 5)
    sys.exit(0 if all(ok for *_, ok in rows) else 1)
