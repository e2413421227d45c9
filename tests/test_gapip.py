"""GapIP_τ (qring_edu.gapip): encoding, three simulation paths, protocols, costs, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qring_edu.experiments.gapip import aligned_pair, gapip_probability, gapip_sample_qiskit
from qring_edu.gapip import (
    MIN_TAU,
    AmplitudeEstimation,
    Classical,
    Decision,
    PhaseEstimation,
    Sketch,
    alignment_angle,
    alignment_state,
    classical_bits,
    gapip,
    gapip_circuit,
    n_register_qubits,
    sketch_bits,
    vector_bits,
)


def test_register_and_encoding_overlap():
    assert [n_register_qubits(P) for P in (1, 2, 3, 4, 7, 8, 2**16)] == [1, 2, 2, 3, 3, 4, 17]
    g, h = aligned_pair(6, 0.3, seed=1)
    ag, ah = alignment_state(g), alignment_state(h)
    assert ag.shape == (8,) and math.isclose(ag @ ag, 1.0)
    assert math.isclose(ag @ ah, (1 + 0.3) / 2, abs_tol=1e-12)
    assert math.isclose(math.cos(alignment_angle(g, h)), 0.65, abs_tol=1e-12)
    # Normalisation is done for the caller: scaling a vector changes nothing.
    assert math.isclose(alignment_angle(3 * g, 0.5 * h), alignment_angle(g, h))


@pytest.mark.parametrize("P,c", [(3, 0.2), (5, -0.4), (8, 0.9)])
def test_subspace_statevector_and_qiskit_agree(P, c):
    g, h = aligned_pair(P, c, seed=P)
    for k in range(4):
        sub = gapip_probability(g, h, k)
        assert math.isclose(sub, gapip_probability(g, h, k, method="statevector"), abs_tol=1e-12)
        assert math.isclose(sub, gapip_probability(g, h, k, method="qiskit"), abs_tol=1e-9)


def test_statevector_path_at_moderate_size():
    g, h = aligned_pair(1000, -0.05, seed=4)
    for k in (0, 3, 11):
        assert math.isclose(
            gapip_probability(g, h, k),
            gapip_probability(g, h, k, method="statevector"),
            abs_tol=1e-10,
        )


def test_circuit_structure_counts_passes():
    g, h = aligned_pair(4, 0.5, seed=0)
    qc = gapip_circuit(g, h, 2)
    labels = [inst.operation.label for inst in qc.data if inst.operation.name == "barrier"]
    assert labels == [
        "server → client",
        "client → server",
        "server → client",
        "client → server",
        "server → client",
    ]  # 2k + 1 passes
    assert qc.num_qubits == 3 and qc.num_clbits == 3


@pytest.mark.parametrize("k", [0, 2])
def test_aer_counts_match_probability(k):
    g, h = aligned_pair(3, 0.1, seed=2)
    ones = gapip_sample_qiskit(g, h, k, shots=4000, seed=7)
    p = gapip_probability(g, h, k)
    assert abs(ones / 4000 - p) <= 4 * math.sqrt(p * (1 - p) / 4000) + 1e-3


@pytest.mark.parametrize("protocol", ["quantum", "classical", "sketch", "vector"])
def test_decisions_correct_on_promise_instances(protocol):
    tau, trials, wrong = 0.1, 40, 0
    for t in range(trials):
        c = tau if t % 2 == 0 else -tau
        g, h = aligned_pair(256, c, seed=t)
        d = gapip(g, h, tau, protocol=protocol, delta=0.05, seed=100 + t)
        wrong += d.verdict != ("aligned" if c > 0 else "conflicting")
    # delta = 0.05: more than 6 errors in 40 has probability < 1e-2 even at the bound.
    assert wrong <= 6


def test_quantum_cost_and_rounds_accounting():
    g, h = aligned_pair(100, 0.2, seed=3)
    d = gapip(g, h, 0.2, seed=5)
    n = n_register_qubits(100)
    assert d.cost == sum(s.shots * n * (2 * s.k + 1) for s in d.steps)
    assert d.rounds == sum(2 * s.k + 1 for s in d.steps)
    assert d.unit == "qubits" and d.protocol == "quantum"
    assert d.steps[0].k == 0 and all(b.k >= a.k for a, b in zip(d.steps, d.steps[1:]))
    # Deterministic given the seed, short repr.
    assert repr(d) == repr(gapip(g, h, 0.2, seed=5))
    assert repr(d).startswith("Decision(verdict='aligned', cost=")
    # A name means its value with the default (Hoeffding) intervals.
    assert repr(gapip(g, h, 0.2, protocol=AmplitudeEstimation(), seed=5)) == repr(d)


def test_classical_costs():
    assert sketch_bits(0.1, 0.05) == math.ceil(math.log(20) / (2 * (math.asin(0.1) / math.pi) ** 2))
    # Send-the-vector: L = 2^(b-1) - 1 > sqrt(P)/(2 tau).
    b = vector_bits(2**16, 0.02) // 2**16
    assert 2 ** (b - 1) - 1 > 256 / 0.04 >= 2 ** (b - 2) - 1
    assert classical_bits(2**16, 0.02) == ("sketch", sketch_bits(0.02))
    assert classical_bits(16, 0.02)[0] == "vector"
    g, h = aligned_pair(16, -0.02, seed=1)
    d = gapip(g, h, 0.02, protocol="classical")
    assert d.protocol == "vector" and d.verdict == "conflicting" and d.cost == vector_bits(16, 0.02)
    assert d.rounds == 1 and abs(d.estimate + 0.02) < 0.02


@pytest.mark.parametrize("P", [16, 2**14])  # explicit Gaussian rows, and one binomial draw
def test_sketch_estimate_follows_the_agreement_probability(P):
    # The estimate inverts P(agree) = 1 - arccos(c)/pi; at tau = 0.05 the sketch has 5,909 bits.
    g, h = aligned_pair(P, 0.5, seed=0)
    ests = [gapip(g, h, 0.05, protocol="sketch", seed=s).estimate for s in range(20)]
    assert abs(np.mean(ests) - 0.5) < 0.01
    # Far beyond explicit rows: tau = 1e-4 needs 1.5e9 bits and takes one draw.
    d = gapip(g, h, 1e-4, protocol=Sketch(), seed=1)
    assert d.cost == sketch_bits(1e-4) > 10**9 and d.verdict == "aligned"


def test_large_P_is_fast():
    g, h = aligned_pair(2**20, 0.02, seed=0)
    d = gapip(g, h, 0.02, seed=1)
    assert d.verdict == "aligned" and d.cost > 0


def test_bad_input():
    g = np.ones(4)
    with pytest.raises(ValueError, match="same length"):
        gapip(g, np.ones(5), 0.1)
    with pytest.raises(ValueError, match="g must be a non-zero"):
        gapip(np.zeros(4), g, 0.1)
    with pytest.raises(ValueError, match="h must be a non-zero"):
        gapip(g, np.zeros(4), 0.1)
    with pytest.raises(ValueError, match="confidence"):
        PhaseEstimation("bayes")
    with pytest.raises(ValueError, match="bound"):
        Classical("chernoff")
    with pytest.raises(ValueError, match="protocol"):
        gapip(g, g, 0.1, protocol=("quantum", "exact"))
    for tau in (0.0, 1.0, -0.2, 1.5, 1e-300, MIN_TAU / 2):
        with pytest.raises(ValueError, match="tau"):
            gapip(g, g, tau)
    with pytest.raises(TypeError, match="tau"):
        gapip(g, g, "0.1")
    with pytest.raises(ValueError, match="delta"):
        gapip(g, g, 0.1, delta=0.7)
    with pytest.raises(ValueError, match="protocol"):
        gapip(g, g, 0.1, protocol="magic")
    with pytest.raises(ValueError, match="1-D"):
        gapip(np.ones((2, 2)), np.ones((2, 2)), 0.1)
    with pytest.raises(ValueError, match="finite"):
        gapip([1.0, np.nan], [1.0, 0.0], 0.1)
    with pytest.raises(ValueError, match="seed"):
        gapip(g, g, 0.1, seed=-1)
    with pytest.raises(ValueError, match="at least 1"):
        gapip([], [], 0.1)
    with pytest.raises(ValueError, match="k"):
        gapip_probability(g, g, 10**16)
    with pytest.raises(ValueError, match="k"):
        gapip_probability(g, g, 10**5, method="statevector")


def test_decision_is_frozen():
    d = gapip(np.ones(4), np.ones(4), 0.5, seed=0)
    assert isinstance(d, Decision)
    with pytest.raises(AttributeError):
        d.verdict = "conflicting"


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st


@given(P=st.integers(1, 40), k=st.integers(0, 20), seed=st.integers(0, 2**16))
def test_property_subspace_equals_statevector(P, k, seed):
    rng = np.random.default_rng(seed)
    g, h = rng.standard_normal(P), rng.standard_normal(P)
    assert abs(gapip_probability(g, h, k) - gapip_probability(g, h, k, method="statevector")) < 1e-9
