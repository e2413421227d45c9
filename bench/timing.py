"""Timing helpers shared by every benchmark module in bench/.

Absolute times on shared machines are noise; the figures we report are ratios measured in one
run. Each measurement makes one untimed warm-up call (imports, caches, allocator), then
``repeats`` timed calls; two functions being compared are called alternately (a, b, a, b, ...) so
that load from other processes hits both alike, and their ratio is the median of the per-pair
ratios.
"""

from __future__ import annotations

import gc
import resource
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Timing:
    """Wall times of repeated calls, in seconds."""

    seconds: list[float]

    @property
    def min(self) -> float:
        return min(self.seconds)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def max(self) -> float:
        return max(self.seconds)

    def text(self, unit: float = 1.0, suffix: str = "s", digits: int = 3) -> str:
        """``"min / median / max suffix"``, each divided by ``unit`` (1e-3 with "ms" for ms)."""
        return (
            f"{self.min / unit:.{digits}f} / {self.median / unit:.{digits}f} / "
            f"{self.max / unit:.{digits}f} {suffix}"
        )


def time_it(fn: Callable[[], object], repeats: int) -> tuple[Timing, object]:
    """Run ``fn`` once untimed (imports, caches), then ``repeats`` timed runs."""
    result = fn()
    times = []
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return Timing(times), result


def time_pair(
    fn_a: Callable[[], object], fn_b: Callable[[], object], repeats: int
) -> tuple[Timing, Timing, object, object]:
    """Like :func:`time_it` for two functions, run alternately a, b, a, b, ..."""
    res_a, res_b = fn_a(), fn_b()
    ta, tb = [], []
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        res_a = fn_a()
        ta.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        res_b = fn_b()
        tb.append(time.perf_counter() - t0)
    return Timing(ta), Timing(tb), res_a, res_b


def pair_ratio(a: Timing, b: Timing) -> float:
    """Median over the alternating pairs of ``b / a`` (how many times slower b is than a)."""
    return statistics.median(y / x for x, y in zip(a.seconds, b.seconds))


def mem_available() -> int:
    """MemAvailable from /proc/meminfo in bytes (a large number where it is unreadable)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 1 << 50


def max_rss() -> int:
    """The process's peak resident set size so far, bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def traced(fn: Callable[[], object]) -> tuple[float, int, object]:
    """Run ``fn`` once under ``tracemalloc``: (wall seconds, peak minus baseline bytes, result)."""
    gc.collect()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    t0 = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak - base, result
