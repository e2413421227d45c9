"""GapIP experiments (qring_edu.experiments.gapip): the pass schedule, the simulation paths, the
scaling families and the comparison with one family of bounds on both sides and its windows."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest
from scipy.stats import binom

from qring_edu.experiments import gapip as exp
from qring_edu.experiments.gapip import aligned_pair

# the module (qring_edu.gapip, the package attribute, is the function)
gp = importlib.import_module("qring_edu.gapip")

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
    value = gp.PhaseEstimation() if protocol == "phase_estimation" else gp.AmplitudeEstimation()
    d = gp.gapip(g, h, 0.2, protocol=value, seed=5)
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
        exp.gapip_probability(g, h, power, protocol=protocol),
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
    default = exp.gapip_scaling(taus, 2**10, trials=4, seed=0)
    same = exp.gapip_scaling(taus, 2**10, trials=4, seed=0, confidence="hoeffding")
    assert np.array_equal(default.quantum_cost, same.quantum_cost)
    assert default.confidence == "hoeffding"
    ex = exp.gapip_scaling(
        taus, 2**10, trials=4, seed=0, confidence="exact", protocol="phase_estimation"
    )
    assert ex.protocol == "phase_estimation" and ex.confidence == "exact"
    assert list(ex.classical_cost) == [gp.sketch_bits(t, bound="exact") for t in taus]
    with pytest.raises(ValueError, match="confidence"):
        exp.gapip_scaling(taus, 2**10, trials=4, confidence="tight")
    with pytest.raises(ValueError, match="confidence"):  # no sketch is sized with Chernoff
        exp.gapip_scaling(taus, 2**10, trials=4, confidence="chernoff")
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
        families=exp.GAPIP_FAMILIES,
    )


def test_windows_with_one_family_on_both_sides(comparison):
    """Upper crossover tau ~ 0.014-0.018 for amplitude estimation (a range over the families),
    lower for phase estimation; a lower end where the vector wins again."""
    lo_h, hi_h = comparison.window("quantum", "hoeffding")
    lo_e, hi_e = comparison.window("quantum", "exact")
    assert 0.015 <= hi_h <= 0.022 and 0.011 <= hi_e <= 0.017 and hi_e < hi_h
    assert 3e-4 <= lo_h <= 1e-3 and 2e-4 <= lo_e <= 6e-4
    for conf, hi in (("hoeffding", hi_h), ("exact", hi_e)):
        lo_p, hi_p = comparison.window("phase_estimation", conf)
        assert hi_p < hi and lo_p > (lo_h if conf == "hoeffding" else lo_e)
        ratio = comparison.quantum("phase_estimation", conf) / comparison.quantum("quantum", conf)
        assert 1.5 <= np.median(ratio) <= 2.3


def test_comparison_costs_and_accuracy(comparison):
    c = comparison
    assert np.array_equal(c.classical_cost("exact"), np.minimum(c.sketch("exact"), c.vector_bits))
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
    with pytest.raises(ValueError, match="confidence"):
        c.sketch("chernoff")
    with pytest.raises(ValueError, match="confidence"):
        exp.gapip_comparison((0.3, 0.1), 2**8, trials=2, families=(("quantum", "chernoff"),))


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
