"""Chapter 6 experiments: the pass schedule, the GapIP
comparison with one family of bounds on both sides and its windows, the TieAudit copy plans,
copies against coverage, crossovers per family, the data-only attack sweep and the dephasing
sweep (qring_edu.experiments.alignment)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from qring_edu import alignment as gp
from qring_edu import sign_audit as ta
from qring_edu.experiments import alignment as exp
from qring_edu.experiments.alignment import aligned_pair

# ---------------------------------------------------------------------------------------------
# GapIP
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "protocol,power",
    [("quantum", 0), ("quantum", 3), ("phase_estimation", 1), ("phase_estimation", 4)],
)
def test_schedule_matches_gapips_accounting(protocol, power):
    """The diagram's passes and qubits are the ones gapip charges for a shot of that power."""
    P = 100
    sc = exp.gapip_schedule(P, power, protocol)
    n = gp.n_register_qubits(P)
    g, h = aligned_pair(P, 0.2, seed=1)
    d = gp.gapip(g, h, 0.2, protocol=protocol, confidence="hoeffding", seed=5)
    per_shot = {s.k: s.qubits // s.shots for s in d.steps}
    if protocol == "quantum":
        assert (sc.passes, sc.width, sc.multiple) == (2 * power + 1, n, 2 * power + 1)
    else:
        assert (sc.passes, sc.width, sc.multiple) == (2 * power - 1, n + 1, power)
    if power in per_shot:  # same count as the protocol's own bookkeeping
        assert per_shot[power] == sc.qubits
    ops = [(party, label) for kind, party, label in sc.events if kind == "op"]
    assert ops[0][0] == "server" and ops[-1][0] == "client" and "measure" in ops[-1][1]
    passes = [party for kind, party, _ in sc.events if kind == "pass"]
    assert passes[0] == "server" and all(a != b for a, b in zip(passes, passes[1:]))
    theta = gp.alignment_angle(g, h)
    assert math.isclose(
        gp.gapip_probability(g, h, power, protocol=protocol),
        math.sin(sc.multiple * theta) ** 2,
        abs_tol=1e-12,
    )


def test_schedule_rejects_bad_input():
    with pytest.raises(ValueError, match="power"):
        exp.gapip_schedule(8, 0, "phase_estimation")
    with pytest.raises(ValueError, match="protocol"):
        exp.gapip_schedule(8, 1, "sketch")
    with pytest.raises(ValueError, match="P"):
        exp.gapip_schedule(0, 1)


def test_gapip_paths_for_phase_estimation():
    g, h = aligned_pair(3, 0.2, seed=7)
    r = exp.gapip_paths(g, h, (1, 2), shots=2000, protocol="phase_estimation")
    theta = gp.alignment_angle(g, h)
    assert np.allclose(r.subspace, [math.sin(K * theta) ** 2 for K in (1, 2)])
    assert np.allclose(r.qiskit, r.subspace, atol=1e-9) and "K" == r.table().columns[0]
    with pytest.raises(ValueError, match="ks"):
        exp.gapip_paths(g, h, (0, 1), protocol="phase_estimation")


def test_gapip_scaling_families():
    taus = (0.3, 0.1)
    old = exp.gapip_scaling(taus, 2**10, trials=4, seed=0)
    same = exp.gapip_scaling(taus, 2**10, trials=4, seed=0, confidence="chernoff")
    assert np.array_equal(old.quantum_cost, same.quantum_cost) and old.confidence == "chernoff"
    ex = exp.gapip_scaling(
        taus, 2**10, trials=4, seed=0, confidence="exact", protocol="phase_estimation"
    )
    assert ex.protocol == "phase_estimation" and ex.confidence == "exact"
    assert list(ex.classical_cost) == [gp.sketch_bits(t, bound="exact") for t in taus]
    with pytest.raises(ValueError, match="confidence"):
        exp.gapip_scaling(taus, 2**10, trials=4, confidence="tight")
    with pytest.raises(ValueError, match="taus"):
        exp.gapip_scaling((0.3, 1.5), 2**10, trials=4)


@pytest.fixture(scope="module")
def comparison():
    """A medium version of the full sweep (report of audit13: 25 margins, 20 instances)."""
    return exp.gapip_comparison(
        np.geomspace(0.4, 1e-4, 25),
        2**16,
        trials=12,
        seed=1,
        families=exp.GAPIP_FAMILIES + (("quantum", "chernoff"),),
    )


def test_windows_with_one_family_on_both_sides(comparison):
    """Upper crossover tau ~ 0.014-0.018 for amplitude estimation (a range over the families),
    lower for phase estimation; a lower end where the vector wins again; the old Chernoff mix
    never wins."""
    lo_h, hi_h = comparison.window("quantum", "hoeffding")
    lo_e, hi_e = comparison.window("quantum", "exact")
    assert 0.015 <= hi_h <= 0.022 and 0.011 <= hi_e <= 0.017 and hi_e < hi_h
    assert 3e-4 <= lo_h <= 1e-3 and 2e-4 <= lo_e <= 6e-4
    for conf, hi in (("hoeffding", hi_h), ("exact", hi_e)):
        lo_p, hi_p = comparison.window("phase_estimation", conf)
        assert hi_p < hi and lo_p > (lo_h if conf == "hoeffding" else lo_e)
        ratio = comparison.quantum("phase_estimation", conf) / comparison.quantum("quantum", conf)
        assert 1.5 <= np.median(ratio) <= 2.3
    assert np.all(comparison.ratio("quantum", "chernoff") > 1)
    assert math.isnan(comparison.window("quantum", "chernoff")[0])
    assert "never" in comparison.table().rows[-1][2]


def test_comparison_costs_and_accuracy(comparison):
    c = comparison
    assert np.array_equal(c.classical_cost("exact"), np.minimum(c.sketch("exact"), c.vector_bits))
    assert np.array_equal(c.sketch("chernoff"), c.sketch("hoeffding"))
    # The vector takes over well below the Gap-Hamming boundary 2/sqrt(P).
    assert np.all(c.vector_bits[c.taus > 2 / 256] > c.sketch("hoeffding")[c.taus > 2 / 256])
    # Each decision errs with probability <= delta: the error counts stay below the binomial
    # 99.9 % quantile of Bin(decisions, delta).
    decisions = c.taus.size * c.trials
    limit = binom.ppf(0.999, decisions, c.delta)
    assert np.all(np.round((1 - c.quantum_accuracy) * c.trials).sum(axis=1) <= limit)
    assert np.all(np.round((1 - c.classical_accuracy) * c.trials).sum(axis=1) <= limit)
    assert 1.0 < c.slope("quantum", "hoeffding") < 1.4
    assert abs(c.slope(confidence="exact", classical=True) - 2) < 0.05
    with pytest.raises(ValueError, match="protocol, confidence"):
        c.quantum("phase_estimation", "chernoff")


def test_comparison_window_interpolation():
    """Windows from a hand-made ratio: crossings interpolated in log tau."""
    taus = np.array([0.1, 0.01, 0.001, 0.0001])
    c = exp.GapIPComparison(
        2**16,
        0.05,
        1,
        taus,
        (("quantum", "hoeffding"),),
        np.array([[10.0, 1.0, 1.0, 1000.0]]),
        np.ones((1, 4)),
        ("hoeffding",),
        np.array([[100.0, 10.0, 10.0, 10.0]]),
        np.array([1e9, 1e9, 1e9, 10.0]),
        np.full((1, 4), np.nan),
    )
    lo, hi = c.window()
    # ratio 0.1 -> 0.1 -> 100: below 1 from the start, back above between 1e-3 and 1e-4.
    assert math.isnan(hi) and math.isclose(lo, 10 ** (-3 - 1 / 3), rel_tol=1e-9)
    assert "≥ 0.1" in c.table().rows[0][2]


def test_comparison_bad_input():
    with pytest.raises(ValueError, match="confidence"):
        exp.gapip_comparison((0.2, 0.1), 2**8, trials=2, families=(("quantum", "loose"),))
    with pytest.raises(ValueError, match="families"):
        exp.gapip_comparison((0.2, 0.1), 2**8, trials=2, families=())
    with pytest.raises(TypeError, match="taus"):
        exp.gapip_comparison(0.1, 2**8)


def test_classical_cost_table_exact_column():
    t = exp.classical_cost_table(2**16, (0.1,), exact=True)
    assert t.column("sketch (exact)") == (665,) and t.column("sketch (Hoeffding)") == (1474,)


# ---------------------------------------------------------------------------------------------
# TieAudit: plans and crossovers
# ---------------------------------------------------------------------------------------------


def test_copy_plans_rows_are_the_planners_and_exact_failures():
    """At a cheap size: every row's copies come from its planner and its failure is the exact
    worst case (the chapter's alpha = 0.1 numbers are asserted in its hidden cells and in
    tests/test_sign_audit_bounds.py)."""
    plans = exp.tieaudit_copy_plans(0.5, 0.1, 0.05)
    by = {r.method: r for r in plans}
    for name, bound in (
        ("Hoeffding", "hoeffding"),
        ("Bernstein", "bernstein"),
        ("exact plan", "exact"),
    ):
        assert by[name].copies == ta.tieaudit_copies(0.5, 0.1, 0.05, bound=bound)[0]
    n_e = by["exact plan"].copies
    assert by["0.9 × exact plan"].copies == int(0.9 * n_e)
    assert by["normal approximation"].copies == math.ceil(1.959963984540054**2 / (4 * 0.5 * 0.01))
    assert math.isclose(
        by["Hoeffding"].failure,
        ta.tieaudit_failure_probability(by["Hoeffding"].copies, 0.5, 0.1, 0.5),
    )
    assert math.isnan(by["Hoeffding"].worst_f)
    for name in ("Bernstein", "exact plan", "0.9 × exact plan"):
        assert (by[name].failure, by[name].worst_f) == ta.tieaudit_worst_failure(
            by[name].copies, 0.5, 0.1
        )
    assert by["exact plan"].failure <= 0.05 < by["0.9 × exact plan"].failure
    assert by["Bernstein"].failure < by["exact plan"].failure
    assert len(plans.table()) == 5 and f"exact plan={n_e}" in repr(plans)
    with pytest.raises(ValueError, match="method"):
        plans.plan("chernoff")


def test_copies_curve_slopes():
    c = exp.tieaudit_copies_curve(eps=0.1, exact_alphas=(1.0, 0.5))
    assert abs(c.slope("hoeffding") + 2) < 0.01 and abs(c.slope("bernstein") + 1) < 0.02
    assert list(c.exact) == [ta.tieaudit_copies(a, 0.1, bound="exact")[0] for a in (1.0, 0.5)]
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
        q = ta.tieaudit_cost(P, 0.05, bound="exact")
        k = ta.classical_subset_size(P, 1.0, 0.05, bound="exact")
        fails = ta.classical_worst_failure(P, 1.0, q, 0.05)[0] > 0.05
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
    with pytest.raises(ValueError, match="bound"):
        exp.tieaudit_scaling((10, 20), 0.05, bound="exact")


# ---------------------------------------------------------------------------------------------
# TieAudit: attack and dephasing sweeps
# ---------------------------------------------------------------------------------------------


def test_attack_sweep_fixed_strings_fooled_random_strings_hold():
    s = exp.tieaudit_attack_sweep((0.0, 0.3, 0.6), log2_P=10, seeds=6)
    assert np.allclose(s.mean_attenuation("fixed", "data_only"), 1.0)
    assert np.all(s.within("fixed", "data_only")[1:] == 0)
    assert np.all(s.mean("fixed", "data_only")[1:] > s.f + s.eps)
    for case in (("random", "data_only"), ("random", "uniform"), ("fixed", "uniform")):
        assert np.all(s.within(*case) >= 5 / 6), case
    assert np.allclose(s.mean_attenuation("random", "data_only"), 1 - s.noises, atol=0.03)
    # The adversary's acceptance of a data copy: the squared overlap with |psi_1>.
    m = ta.random_matching(2**10, 1.0, seed=0)
    sig = ta.signs_with_disagreement(m, 2**10, 0.2, seed=1)
    assert math.isclose(s.data_overlap, (sig.sum() / 2**10) ** 2)
    assert len(s.table()) == 3 and len(s.table().columns) == 7
    with pytest.raises(ValueError, match="attack"):
        exp.tieaudit_attack_sweep((0.1,), cases=(("fixed", "sneaky"),))


def test_dephasing_sweep_bias_and_twirl():
    d = exp.dephasing_sweep((0.0, 0.05, 0.1), log2_P=10, seeds=3)
    assert d.bias[0] == 0 and d.bias[1] < -0.05 and d.bias[2] < d.bias[1]
    assert np.all(np.abs(d.twirled - d.f) <= d.eps)
    assert np.all(np.abs(d.plain[1:] - (d.f + d.bias[1:])) < 0.03)
    assert 0.3 < d.f < 0.45 and len(d.table()) == 3
    with pytest.raises(ValueError, match="min_distance"):
        exp.dephasing_sweep((0.1,), log2_P=4, min_distance=5)
