"""GapIP_τ: phase estimation with a travelling control qubit, exact
(controlled) reflections, and one family of bounds on both sides of the comparison."""

from __future__ import annotations

import math

import numpy as np
import pytest
from qiskit.quantum_info import Operator
from scipy.stats import binom

from qring_edu.experiments.gapip import aligned_pair, gapip_probability, gapip_sample_qiskit
from qring_edu.gapip import (
    GAPIP_PROTOCOLS,
    AmplitudeEstimation,
    Classical,
    PhaseEstimation,
    Sketch,
    alignment_angle,
    alignment_state,
    classical_bits,
    controlled_reflection_circuit,
    gapip,
    gapip_circuit,
    n_register_qubits,
    reflection_circuit,
    sketch_bits,
)

FAMILY = {("quantum", c): AmplitudeEstimation(c) for c in ("chernoff", "hoeffding", "exact")} | {
    ("phase_estimation", c): PhaseEstimation(c) for c in ("chernoff", "hoeffding", "exact")
}
FAMILY |= {
    ("classical", c): Classical("exact" if c == "exact" else "hoeffding")
    for c in ("chernoff", "hoeffding", "exact")
}


def _pair(c):
    """Unit vectors of length 4 with <g, h> = c exactly (the protocols only see theta)."""
    return np.array([1.0, 0, 0, 0]), np.array([c, math.sqrt(1 - c * c), 0, 0])


@pytest.mark.parametrize("P", [2, 3, 5])
def test_reflections_are_exact_including_the_controlled_ones(P):
    g, _ = aligned_pair(P, 0.3, seed=P)
    a = alignment_state(g)
    R = 2 * np.outer(a, a) - np.eye(a.size)
    assert np.allclose(Operator(reflection_circuit(g)).data, R)
    want = np.block([[np.eye(a.size), np.zeros_like(R)], [np.zeros_like(R), R]])
    assert np.allclose(Operator(controlled_reflection_circuit(g)).data, want)


@pytest.mark.parametrize("P,c", [(3, 0.2), (5, -0.4), (8, 0.9), (2, 0.0)])
def test_phase_estimation_subspace_statevector_and_qiskit_agree(P, c):
    g, h = aligned_pair(P, c, seed=P)
    theta = alignment_angle(g, h)
    for K in range(1, 5):
        sub = gapip_probability(g, h, K, protocol="phase_estimation")
        assert math.isclose(sub, math.sin(K * theta) ** 2, abs_tol=1e-12)
        sv = gapip_probability(g, h, K, protocol="phase_estimation", method="statevector")
        qk = gapip_probability(g, h, K, protocol="phase_estimation", method="qiskit")
        assert math.isclose(sub, sv, abs_tol=1e-12) and math.isclose(sub, qk, abs_tol=1e-9)


@pytest.mark.parametrize("K", [1, 3])
def test_phase_estimation_aer_counts(K):
    g, h = aligned_pair(3, 0.1, seed=2)
    ones = gapip_sample_qiskit(g, h, K, shots=4000, seed=7, protocol="phase_estimation")
    p = gapip_probability(g, h, K, protocol="phase_estimation")
    assert abs(ones / 4000 - p) <= 4 * math.sqrt(p * (1 - p) / 4000) + 1e-3


def test_phase_estimation_circuit_counts_passes():
    g, h = aligned_pair(4, 0.5, seed=0)
    qc = gapip_circuit(g, h, 3, protocol="phase_estimation")
    labels = [i.operation.label for i in qc.data if i.operation.name == "barrier"]
    assert labels == [
        "server → client",
        "client → server",
        "server → client",
        "client → server",
        "server → client",
    ]  # 2K - 1 passes
    assert qc.num_qubits == n_register_qubits(4) + 1 and qc.num_clbits == 1
    names = [
        i.operation.label for i in qc.data if i.operation.name not in ("barrier", "h", "measure")
    ]
    assert names == ["U_g", "c-R_h", "c-R_g", "c-R_h", "c-R_g", "c-R_h"]


def test_phase_estimation_cost_and_rounds_accounting():
    g, h = aligned_pair(100, 0.2, seed=3)
    d = gapip(g, h, 0.2, protocol=PhaseEstimation("hoeffding"), seed=5)
    n = n_register_qubits(100)
    assert d.protocol == "phase_estimation" and d.unit == "qubits"
    assert d.steps[0].k == 1 and all(s.k >= 1 for s in d.steps)
    assert all(s.qubits == s.shots * (n + 1) * (2 * s.k - 1) for s in d.steps)
    assert d.cost == sum(s.qubits for s in d.steps)
    assert d.rounds == sum(2 * s.k - 1 for s in d.steps)
    # Amplitude estimation records its per-step qubits too.
    q = gapip(g, h, 0.2, seed=5)
    assert (
        q.cost
        == sum(s.qubits for s in q.steps)
        == sum(s.shots * n * (2 * s.k + 1) for s in q.steps)
    )
    assert "phase_estimation" in GAPIP_PROTOCOLS


@pytest.mark.parametrize("confidence", ["chernoff", "hoeffding", "exact"])
@pytest.mark.parametrize("protocol", ["quantum", "phase_estimation", "classical"])
def test_decisions_correct_for_every_family(protocol, confidence):
    tau, wrong = 0.1, 0
    for t in range(40):
        c = tau if t % 2 == 0 else -tau
        g, h = aligned_pair(256, c, seed=t)
        d = gapip(g, h, tau, protocol=FAMILY[protocol, confidence], seed=100 + t)
        wrong += d.verdict != ("aligned" if c > 0 else "conflicting")
    assert wrong <= 6


def _mean_cost(tau, protocol, confidence, trials=20, P=2**10):
    costs = []
    for t in range(trials):
        g, h = aligned_pair(P, tau if t % 2 == 0 else -tau, seed=t)
        value = FAMILY[protocol, confidence]
        costs.append(gapip(g, h, tau, protocol=value, seed=50 + t).cost)
    return float(np.mean(costs))


def test_phase_estimation_costs_about_twice_amplitude_estimation():
    for conf in ("hoeffding", "exact"):
        r = _mean_cost(0.05, "phase_estimation", conf) / _mean_cost(0.05, "quantum", conf)
        assert 1.3 < r < 2.8, (conf, r)


def test_interval_families_order_the_costs():
    # Chernoff's half-width is sqrt(6) times Hoeffding's (6 times the shots per step, fewer
    # steps); Clopper-Pearson is the tightest of the three.
    chernoff = _mean_cost(0.05, "quantum", "chernoff")
    hoeffding = _mean_cost(0.05, "quantum", "hoeffding")
    exact = _mean_cost(0.05, "quantum", "exact")
    assert exact < hoeffding < chernoff and chernoff / hoeffding > 2


def test_exact_sketch_length():
    for tau, delta in [(0.1, 0.05), (0.02, 0.05), (0.3, 0.01)]:
        k = sketch_bits(tau, delta, bound="exact")
        p = 0.5 + math.asin(tau) / math.pi
        assert k % 2 == 1
        assert binom.cdf((k - 1) // 2, k, p) <= delta < binom.cdf((k - 3) // 2, k - 2, p)
        # Hoeffding asks about 2 ln(1/delta) / z_delta^2 times more.
        r = sketch_bits(tau, delta) / k
        assert 1.7 < r < 2.6
    exact_k = sketch_bits(0.02, bound="exact")
    assert classical_bits(2**16, 0.02, bound="exact") == ("sketch", exact_k)
    g, h = aligned_pair(2**16, 0.02, seed=0)
    d = gapip(g, h, 0.02, protocol=Classical("exact"), seed=0)
    assert d.protocol == "sketch" and d.cost == sketch_bits(0.02, bound="exact")


def test_exact_sketch_error_rate_is_at_most_delta():
    tau, delta = 0.1, 0.05
    g, h = _pair(-tau)  # conflicting: an error is "aligned"
    runs = [gapip(g, h, tau, protocol=Sketch("exact"), delta=delta, seed=s) for s in range(2000)]
    assert runs[0].cost == sketch_bits(tau, delta, bound="exact")
    errors = sum(d.verdict == "aligned" for d in runs)
    assert errors / 2000 <= delta + 3 * math.sqrt(delta * (1 - delta) / 2000)


def test_crossover_with_consistent_bounds_at_P_2_16():
    """With one family of bounds on both sides the quantum protocol is cheaper at tau = 0.01
    and dearer at tau = 0.03; with the old mix (Chernoff IAE vs Hoeffding sketch) it is dearer
    even at tau = 0.01."""
    P = 2**16
    for conf in ("hoeffding", "exact"):
        bound = "exact" if conf == "exact" else "hoeffding"
        for tau, cheaper in [(0.01, True), (0.03, False)]:
            q = _mean_cost(tau, "quantum", conf, trials=10, P=P)
            assert (q < classical_bits(P, tau, bound=bound)[1]) == cheaper, (conf, tau, q)
    assert _mean_cost(0.01, "quantum", "chernoff", trials=10, P=P) > classical_bits(P, 0.01)[1]


def test_bad_phase_estimation_input():
    g, h = _pair(0.3)
    with pytest.raises(TypeError):
        gapip(g, h, 0.3, confidence="exact")  # the family is part of the protocol's value
    with pytest.raises(ValueError, match="confidence"):
        AmplitudeEstimation("bayes")
    with pytest.raises(ValueError, match="power K"):
        gapip_probability(g, h, 0, protocol="phase_estimation")
    with pytest.raises(ValueError, match="protocol"):
        gapip_probability(g, h, 1, protocol="sketch")
    with pytest.raises(ValueError, match="bound"):
        sketch_bits(0.1, bound="chernoff")
    with pytest.raises(ValueError, match="power K"):
        gapip_circuit(g, h, 0, protocol="phase_estimation")
