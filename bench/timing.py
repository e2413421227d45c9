"""Timing helpers shared by every benchmark module in bench/.

Absolute times on shared machines are noise; the figures we report are ratios measured in one
run. Each measurement makes one untimed warm-up call (imports, caches, allocator), then
``repeats`` timed calls; two functions being compared are called alternately (a, b, a, b, ...) so
that load from other processes hits both alike, and their ratio is the median of the per-pair
ratios.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable


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
        return (f"{self.min / unit:.{digits}f} / {self.median / unit:.{digits}f} / "
                f"{self.max / unit:.{digits}f} {suffix}")


def time_it(fn: Callable[[], object], repeats: int) -> tuple[Timing, object]:
    """Run ``fn`` once untimed (imports, caches), then ``repeats`` timed runs."""
    result = fn()
    times = []
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return Timing(times), result


def time_pair(fn_a: Callable[[], object], fn_b: Callable[[], object],
              repeats: int) -> tuple[Timing, Timing, object, object]:
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
