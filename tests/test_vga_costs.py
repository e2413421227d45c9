"""What VGA costs next to its competitors, the published GHZ numbers, and dropout
(qring_edu.experiments.vga_security): counts checked by hand at small P, the grid against the library,
the literature data against the values their sources state."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qring_edu.experiments.vga_security import (
    BONAWITZ_ROUNDS,
    GHZ_EXPERIMENTS,
    PHOTONIC_GHZ,
    aggregation_costs,
    dropout_comparison,
    ghz_distribution,
    scheme_table,
)
from qring_edu.vga import vga_aggregate, vga_copy_counts


def test_costs_by_hand_at_small_P():
    """P = 4, d = 10, b = 16, f = 1/2: 160 qubit GHZ used and 160 tested (320 delivered); all
    pairs of 4 workers are 6 pads of 160 bits (960), a ring of 4 is 4 pads (640)."""
    c = aggregation_costs(workers=(2, 3, 4), entries=(10,), bits=16, test_fraction=0.5)
    i = c.workers.index(4)
    assert (c.ghz_used[i, 0], c.ghz_tested[i, 0], c.ghz_delivered[i, 0]) == (160, 160, 320)
    assert (c.all_pairs_key_bits[i, 0], c.ring_key_bits[i, 0]) == (960, 640)
    assert c.masked_bits_per_worker[i, 0] == 160
    # Bonawitz (our reading): 4 rounds of one upload and one reply per worker; each worker
    # Shamir-shares two secrets with each of the other three
    assert (c.bonawitz_messages[i, 0], c.bonawitz_shares[i, 0]) == (32, 24)
    assert (c.bonawitz_messages[0, 0], c.bonawitz_shares[0, 0]) == (16, 4)
    # P = 2: one pair whichever the topology; P = 3: three pairs either way
    assert c.all_pairs_key_bits[0, 0] == c.ring_key_bits[0, 0] == 160
    assert c.all_pairs_key_bits[1, 0] == c.ring_key_bits[1, 0] == 480
    # f = 1/4, d = 10: N = ceil(10 / 0.75) = 14 registers, 4 tested
    q = aggregation_costs(workers=(4,), entries=(10,), bits=16, test_fraction=0.25)
    assert (q.ghz_tested[0, 0], q.ghz_delivered[0, 0]) == (64, 224)


def test_costs_agree_with_a_run_and_grow_as_the_text_says():
    c = aggregation_costs(workers=(4, 16, 64), entries=(10**6, 10**8), bits=16)
    run = vga_aggregate(np.zeros((4, 1000), dtype=int), bits=16, seed=0)
    small = aggregation_costs(workers=(4,), entries=(1000,), bits=16)
    assert (small.ghz_used[0, 0], small.ghz_tested[0, 0], small.ghz_delivered[0, 0]) == (
        run.ghz_used,
        run.ghz_tested,
        run.ghz_delivered,
    )
    for i, p in enumerate(c.workers):
        for j, d in enumerate(c.entries):
            n, t = vga_copy_counts(d, 0.5)
            assert c.ghz_delivered[i, j] == n * 16 == 2 * d * 16  # independent of P
            assert c.all_pairs_key_bits[i, j] == p * (p - 1) // 2 * d * 16
            assert c.ring_key_bits[i, j] == p * d * 16
            # Bonawitz's counts grow with P (the shares quadratically), not with d
            assert c.bonawitz_messages[i, j] == 2 * BONAWITZ_ROUNDS * p
            assert c.bonawitz_shares[i, j] == 2 * p * (p - 1)
    assert c.all_pairs_key_bits[2, 1] == 3_225_600_000_000  # exact Python ints at any size
    table = c.table()
    assert table.column("P") == (4, 4, 16, 16, 64, 64) and len(table) == 6
    assert "<table" in c._repr_html_()
    with pytest.raises(ValueError, match="workers"):
        aggregation_costs(workers=(1,))
    with pytest.raises(ValueError, match="test_fraction"):
        aggregation_costs(test_fraction=1.0)


def test_scheme_table_states_what_each_scheme_tolerates():
    t = scheme_table()
    rows = {r[0]: r for r in t.rows}
    assert rows["VGA (this book)"][4].startswith("none")
    assert rows["one-time-pad masks, all pairs (QKD keys)"][3] == "P - 2 workers"
    assert "uncancelled" in rows["one-time-pad masks, ring (QKD keys)"][4]
    bonawitz = rows["Bonawitz et al. 2017"]
    assert "our reading" in bonawitz[1] and "1.73x" in bonawitz[1] and "abstract" in bonawitz[4]


def test_ghz_distribution_numbers_are_the_verified_ones():
    assert [n for n, _, _ in PHOTONIC_GHZ] == [2, 4, 6, 8, 10]
    fidelities = [f for _, f, _ in PHOTONIC_GHZ]
    assert fidelities == [0.9720, 0.833, 0.710, 0.644, 0.573]
    assert all(a > b for a, b in zip(fidelities, fidelities[1:]))  # fidelity falls with N
    keys = [e[0] for e in GHZ_EXPERIMENTS]
    assert keys == ["goetting2026tripartite", "wang2016ten", "zhong2018twelve"]
    assert GHZ_EXPERIMENTS[0][2:] == (3, "0.841(17) <= F <= 0.881(17)", 0.095)
    dist = ghz_distribution(entries=10**6, bits=16)
    assert dist.copies == 32_000_000
    assert dist.seconds[0] == pytest.approx(32_000_000 / 0.095)
    assert dist.table().column("N") == (3, 10, 12)
    years = dist.table().column(f"years for {dist.copies:,} copies")[0]
    assert years == pytest.approx(32e6 / 0.095 / (86400 * 365.25))
    assert dist.photonic_table().column("N photons") == (2, 4, 6, 8, 10)


def test_dropout_comparison_loses_the_round_and_the_restart_recovers_it():
    run = dropout_comparison(workers=4, entries=6000, bits=6, dropped=(1,), seed=3)
    assert run.restart_exact and run.dropped == (1,)
    assert abs(run.hit_rate - 2**-6) < 4 * math.sqrt(2**-6 / 6000)
    assert run.uniform_p_value > 1e-4
    assert run.ghz_first == run.ghz_restart == 2 * 6000 * 6
    t = run.table()
    assert t.column("qubit GHZ copies") == (run.ghz_first, run.ghz_restart, None)
    with pytest.raises(ValueError, match="workers"):
        dropout_comparison(workers=2)
