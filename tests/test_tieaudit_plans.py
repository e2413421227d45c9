"""TieAudit experiments (qring_edu.experiments.tieaudit): copy plans, copies against coverage,
crossovers per family, one-way against two messages, the attack and dephasing sweeps."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from qring_edu.experiments import tieaudit as exp
from qring_edu.experiments import tieaudit_noise as exp_noise
from qring_edu.experiments import tieaudit_plans as exp_plans

# the module (qring_edu.tieaudit, the package attribute, is the function)
ta = importlib.import_module("qring_edu.tieaudit")

# ---------------------------------------------------------------------------------------------
# TieAudit: plans and crossovers
# ---------------------------------------------------------------------------------------------


def test_copy_plans_rows_are_the_planners_and_exact_failures():
    """At a cheap size: every row's copies come from its planner and its failure is the exact
    worst case (the chapter's alpha = 0.1 numbers are asserted in its hidden cells and in
    tests/test_tieaudit_bounds.py)."""
    plans = exp_plans.tieaudit_copy_plans(0.5, 0.1, 0.05)
    by = {r.method: r for r in plans}
    for name, bound in (
        ("Hoeffding", "hoeffding"),
        ("Bernstein", "bernstein"),
        ("exact plan", "exact"),
    ):
        planned = exp_plans.exact_copies(0.5, 0.1, 0.05) if bound == "exact" else None
        assert by[name].copies == (planned or ta.tieaudit_copies(0.5, 0.1, 0.05, bound=bound))
    n_e = by["exact plan"].copies
    assert by["0.9 × exact plan"].copies == int(0.9 * n_e)
    assert by["normal approximation"].copies == math.ceil(1.959963984540054**2 / (4 * 0.5 * 0.01))
    assert math.isclose(
        by["Hoeffding"].failure,
        exp_plans.tieaudit_failure_probability(by["Hoeffding"].copies, 0.5, 0.1, 0.5),
    )
    assert math.isnan(by["Hoeffding"].worst_f)
    for name in ("Bernstein", "exact plan", "0.9 × exact plan"):
        assert (by[name].failure, by[name].worst_f) == exp_plans.tieaudit_worst_failure(
            by[name].copies, 0.5, 0.1
        )
    assert by["exact plan"].failure <= 0.05 < by["0.9 × exact plan"].failure
    assert by["Bernstein"].failure < by["exact plan"].failure
    assert len(plans.table()) == 5


def test_copies_curve_slopes():
    c = exp_plans.tieaudit_copies_curve(eps=0.1, exact_alphas=(1.0, 0.5))
    assert abs(c.slope("hoeffding") + 2) < 0.01 and abs(c.slope("bernstein") + 1) < 0.02
    assert list(c.exact) == [exp_plans.exact_copies(a, 0.1) for a in (1.0, 0.5)]
    assert -1.2 < c.slope("exact") < -0.8
    with pytest.raises(ValueError, match="which"):
        c.slope("chernoff")


def test_crossover_families():
    assert exp.tieaudit_crossover(0.05) == 2**16 == exp.tieaudit_crossover(0.05, bound="exact")
    assert exp.tieaudit_crossover(0.05, 0.1, bound="hoeffding") == 2**27
    assert exp.tieaudit_crossover(0.05, 0.1) == 2**20
    assert exp.tieaudit_crossover(0.02) == 2**19 == exp.tieaudit_crossover(0.02, bound="hoeffding")
    with pytest.raises(ValueError, match="bound"):
        exp.tieaudit_crossover(0.05, bound="chernoff")


def test_exact_crossover_equals_the_comparison_of_exact_plans():
    """The one-evaluation test (does a classical subset of the quantum size fail?) agrees with
    comparing the exact plans themselves around the crossover."""
    for n in (15, 16):
        P = 2**n
        q = exp_plans.exact_copies(1.0, 0.05) * n
        k = exp_plans.exact_subset_size(P, 1.0, 0.05)
        fails = exp_plans.classical_worst_failure(P, 1.0, q, 0.05)[0] > 0.05
        assert (q < k) == fails == (n == 16)


def test_crossover_table_at_the_theorems_boundary():
    """The alpha = 1/4 row of the audit13 report's table (eps = delta = 0.05; the chapter shows
    the rows alpha = 1 and 0.1): Hoeffding 2^23, Bernstein and exact 2^18. Seconds (exact plan)."""
    t = exp.tieaudit_crossover_table((0.25,))
    assert t.crossovers == ((2**23, 2**18, 2**18),)
    assert t.table().rows[0] == (0.25, "2^23", "2^18", "2^18")
    assert t.crossover(0.25, "exact") == 2**18
    with pytest.raises(ValueError, match="alpha"):
        t.crossover(0.5, "exact")
    with pytest.raises(ValueError, match="bounds"):
        exp.tieaudit_crossover_table((1.0,), bounds=("chernoff",))


def test_tieaudit_scaling_bound():
    h = exp.tieaudit_scaling((10, 20), 0.05, alpha=0.25, run_max_log2_P=0, bound="hoeffding")
    b = exp.tieaudit_scaling((10, 20), 0.05, alpha=0.25, run_max_log2_P=0)
    assert h.copies == 11_805 and b.copies == 3_075 and b.bound == "bernstein"
    assert np.array_equal(h.classical_cost, b.classical_cost)
    assert np.all(b.quantum_cost < h.quantum_cost) and "bound='hoeffding'" in repr(h)
    # One-way against two messages (alpha = 1/4: 3,075 copies; 738 asked pairs).
    c = {
        p: [ta.tieaudit_cost(2**n, 0.05, protocol=p, alpha=0.25) for n in (16, 24)]
        for p in ("quantum", "classical", "two_message")
    }
    assert c["quantum"] == [3075 * 16, 73_800] and c["two_message"] == [24_354, 36_162]
    assert c["two_message"][1] < c["quantum"][1] < c["classical"][1]  # crossover: 2^18
    with pytest.raises(ValueError, match="bound"):
        exp.tieaudit_scaling((10, 20), 0.05, bound="exact")


# ---------------------------------------------------------------------------------------------
# TieAudit: attack and dephasing sweeps
# ---------------------------------------------------------------------------------------------


def test_attack_sweep_known_twirl_fooled_secret_twirl_holds():
    s = exp_noise.tieaudit_attack_sweep((0.0, 0.3, 0.6), log2_P=10, seeds=6)
    assert np.allclose(s.mean_attenuation("knows_twirl"), 1.0)
    assert np.all(s.within("knows_twirl")[1:] == 0) and np.all(s.covered("knows_twirl")[1:] == 0)
    assert np.all(s.mean("knows_twirl")[1:] > s.f + s.eps)
    for case in ("data_only", "uniform"):
        assert np.all(s.within(case) >= 5 / 6) and np.all(s.covered(case) >= 5 / 6), case
    assert np.allclose(s.mean_attenuation("data_only")[1:], 1 - s.noises[1:], atol=0.05)
    # The adversary's acceptance of a data copy in its own frame: the squared overlap.
    m = exp.random_matching(2**10, 1.0, seed=0)
    sig = exp.signs_with_disagreement(m, 2**10, 0.2, seed=1)
    assert math.isclose(s.data_overlap, (sig.sum() / 2**10) ** 2)
    assert len(s.table()) == 9 and len(s.table().columns) == 6
    with pytest.raises(ValueError, match="cases"):
        exp_noise.tieaudit_attack_sweep((0.1,), cases=("sneaky",))


def test_dephasing_sweep_bias_and_twirl():
    d = exp_noise.dephasing_sweep((0.0, 0.05, 0.1), log2_P=10, seeds=3)
    assert d.bias[0] == 0 and d.bias[1] < -0.05 and d.bias[2] < d.bias[1]
    assert np.all(np.abs(d.twirled - d.f) <= d.eps)
    assert np.all(np.abs(d.plain[1:] - (d.f + d.bias[1:])) < 0.04)
    assert 0.3 < d.f < 0.45 and len(d.table()) == 3
    with pytest.raises(ValueError, match="min_distance"):
        exp_noise.dephasing_sweep((0.1,), log2_P=4, min_distance=5)
