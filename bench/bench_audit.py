"""Benchmarks of GapIP and TieAudit, for ``bench/run.py``.

    run(out, repeats) -> list of (name, measured, target, ok)

* one quantum GapIP decision at P = 2^20, tau = 0.02 (target: within 5 s), and the ratio to the
  classical protocol's simulation time on the same instance;
* one quantum TieAudit estimate at P = 2^20, eps = 0.05 (target: within 5 s), and the ratio to
  the classical subset protocol's simulation time; the verified protocol (hidden tests, twirl,
  Freedman interval) through a depolarising channel;
* the scaling experiments shared with chapters 7 and 8 and the tests: GapIP log-log slopes at P = 2^16
  (quantum near 1, classical near 2; Hoeffding bounds on both sides) and the TieAudit crossover
  and classical slope;
* the full GapIP comparison (the chapter shows a smaller grid): P = 2^16, 25 margins from 0.4 to
  1e-4, 20 instances each, amplitude and phase estimation with Hoeffding and with exact bounds on
  both sides; the windows where the quantum protocol is cheaper.

Each timing: one untimed warm-up call, then ``repeats`` timed calls; min / median / max reported,
targets checked on the median. Instance generation is not timed.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from timing import time_it  # noqa: E402  (bench/ is on sys.path: run.py's folder)

from qring_edu.experiments.gapip import (  # noqa: E402
    DEFAULT_TAUS,
    GAPIP_FAMILIES,
    aligned_pair,
    gapip_comparison,
    gapip_scaling,
)
from qring_edu.experiments.tieaudit import (  # noqa: E402
    random_matching,
    signs_with_disagreement,
    tieaudit_scaling,
)
from qring_edu.gapip import gapip  # noqa: E402
from qring_edu.tieaudit import Depolarizing, tieaudit  # noqa: E402

P_LARGE = 2**20
GAPIP_TAU = 0.02
TIEAUDIT_EPS = 0.05
TARGET_SECONDS = 5.0
QUANTUM_SLOPE = (0.85, 1.35)  # "near 1"
CLASSICAL_SLOPE = (1.85, 2.15)  # "near 2"


def run(out: Callable[[str], None], repeats: int) -> list[tuple[str, str, str, bool]]:
    repeats = max(1, int(repeats))
    rows: list[tuple[str, str, str, bool]] = []
    out("## (e) alignment and sign auditing")

    # GapIP at P = 2^20, tau = 0.02 (a conflicting instance at the promise boundary).
    g, h = aligned_pair(P_LARGE, -GAPIP_TAU, seed=5)
    tq, dq = time_it(lambda: gapip(g, h, GAPIP_TAU, protocol="quantum", seed=1), repeats)
    tc, dc = time_it(lambda: gapip(g, h, GAPIP_TAU, protocol="classical", seed=1), repeats)
    med_q, med_c = tq.median, tc.median
    out(
        f"- GapIP quantum, P = 2^20, tau = {GAPIP_TAU}: {tq.text()}; verdict {dq.verdict}, "
        f"{dq.cost:,} qubits in {dq.rounds} rounds"
    )
    out(
        f"- GapIP classical ({dc.protocol}), same instance: {tc.text()}; verdict {dc.verdict}, "
        f"{dc.cost:,} bits"
    )
    out(f"- simulation-time ratio quantum / classical: {med_q / med_c:.2f}")
    rows.append(
        (
            "GapIP quantum decision, P=2^20, tau=0.02",
            f"{med_q:.3f} s (x{med_q / med_c:.2f} classical sim)",
            f"<= {TARGET_SECONDS:g} s",
            med_q <= TARGET_SECONDS and dq.verdict == "conflicting",
        )
    )

    # TieAudit at P = 2^20, eps = 0.05.
    m = random_matching(P_LARGE, 1.0, seed=6)
    s = signs_with_disagreement(m, P_LARGE, 0.3, seed=7)
    tq2, eq = time_it(lambda: tieaudit(s, m, TIEAUDIT_EPS, seed=2), repeats)
    tc2, ec = time_it(lambda: tieaudit(s, m, TIEAUDIT_EPS, protocol="classical", seed=2), repeats)
    med_q2, med_c2 = tq2.median, tc2.median
    out(
        f"- TieAudit quantum, P = 2^20, eps = {TIEAUDIT_EPS}: {tq2.text()}; estimate "
        f"{eq.value:.4f} (true 0.3000), {eq.cost:,} qubits"
    )
    out(
        f"- TieAudit classical, same instance: {tc2.text()}; estimate {ec.value:.4f}, "
        f"{ec.cost:,} bits"
    )
    out(f"- simulation-time ratio quantum / classical: {med_q2 / med_c2:.2f}")
    tv, ev = time_it(lambda: tieaudit(s, m, TIEAUDIT_EPS, channel=Depolarizing(0.3), seed=2), 1)
    out(
        f"- TieAudit verified, Depolarizing(0.3): {tv.text()}; estimate {ev.value:.4f} in "
        f"[{ev.lo:.4f}, {ev.hi:.4f}], {ev.copies:,} copies ({ev.test_copies:,} tests)"
    )
    rows.append(
        (
            "TieAudit quantum estimate, P=2^20, eps=0.05",
            f"{med_q2:.3f} s (x{med_q2 / med_c2:.2f} classical sim)",
            f"<= {TARGET_SECONDS:g} s",
            med_q2 <= TARGET_SECONDS and abs(eq.value - 0.3) <= TIEAUDIT_EPS,
        )
    )

    # Scaling experiments (shared with the chapters and tests/test_gapip_scaling.py).
    t0 = time.perf_counter()
    gs = gapip_scaling(DEFAULT_TAUS, 2**16, trials=20, seed=0, confidence="hoeffding")
    ts = tieaudit_scaling(eps=TIEAUDIT_EPS, run_max_log2_P=16, trials=5, seed=0)
    elapsed = time.perf_counter() - t0
    out(
        f"- GapIP slopes at P = 2^16, tau 0.4 .. 0.02 (20 instances each, Hoeffding bounds on "
        f"both sides): quantum {gs.quantum_slope:.3f}, classical {gs.classical_slope:.3f}"
    )
    out(
        f"- TieAudit, eps = {TIEAUDIT_EPS}: classical slope {ts.classical_slope:.3f}, quantum cost "
        f"= {ts.copies} x log2 P, crossover P = 2^{ts.crossover_P.bit_length() - 1}; "
        f"at 2^24 classical/quantum = {ts.classical_cost[-1] / ts.quantum_cost[-1]:.1f}"
    )
    out(f"- scaling experiments took {elapsed:.1f} s")
    out()
    rows.append(
        (
            "GapIP slope quantum / classical",
            f"{gs.quantum_slope:.2f} / {gs.classical_slope:.2f}",
            "near 1 / near 2",
            QUANTUM_SLOPE[0] <= gs.quantum_slope <= QUANTUM_SLOPE[1]
            and CLASSICAL_SLOPE[0] <= gs.classical_slope <= CLASSICAL_SLOPE[1],
        )
    )
    rows.append(
        (
            "TieAudit crossover (eps=0.05), classical slope",
            f"P = 2^{ts.crossover_P.bit_length() - 1}, {ts.classical_slope:.3f}",
            "log P vs sqrt P",
            abs(ts.classical_slope - 0.5) < 0.02 and ts.crossover_P > 0,
        )
    )

    # The full comparison (chapter 7 shows 19 margins x 10 instances).
    t0 = time.perf_counter()
    cmp_ = gapip_comparison(
        np.geomspace(0.4, 1e-4, 25),
        2**16,
        trials=20,
        seed=0,
        families=GAPIP_FAMILIES,
    )
    elapsed = time.perf_counter() - t0
    out(
        "- GapIP comparison, P = 2^16, 25 margins 0.4 .. 1e-4, 20 instances each "
        f"({elapsed:.1f} s):"
    )
    for row in cmp_.table().rows:
        out(f"  - {row[0]}, {row[1]}: quantum cheaper for {row[2]} (best ratio {row[3]:.2f})")
    uppers = [cmp_.window("quantum", c)[1] for c in ("hoeffding", "exact")]
    out()
    rows.append(
        (
            "GapIP crossover tau (amplitude est., exact..Hoeffding)",
            f"{min(uppers):.3f} .. {max(uppers):.3f}",
            "a range near 0.013 .. 0.02",
            0.011 <= min(uppers) <= max(uppers) <= 0.022,
        )
    )
    return rows


if __name__ == "__main__":
    summary = run(print, 3)
    for row in summary:
        print(row)
