"""TieAudit_ε (qring_edu.sign_audit): Born rule vs circuits, protocols, noise, costs, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from qiskit.quantum_info import Statevector

from qring_edu.sign_audit import (
    Estimate,
    classical_subset_size,
    disagreement_fraction,
    outcome_index,
    outcome_probabilities,
    random_matching,
    signs_with_disagreement,
    tieaudit,
    tieaudit_circuit,
    tieaudit_copies,
    tieaudit_cost,
    tieaudit_sample_qiskit,
)


def _instance(P, alpha, f, seed):
    m = random_matching(P, alpha, seed=seed)
    return signs_with_disagreement(m, P, f, seed=seed + 1), m


def test_instances_have_requested_f():
    s, m = _instance(64, 0.5, 0.25, 0)
    assert len(m) == 16 and disagreement_fraction(s, m) == 0.25
    assert set(np.unique(s)) <= {-1, 1}


@pytest.mark.parametrize("P,alpha,f", [(4, 1.0, 0.5), (8, 0.75, 0.34), (16, 0.5, 0.0)])
def test_born_rule_matches_qiskit_circuits(P, alpha, f):
    s, m = _instance(P, alpha, f, P)
    probs, y = outcome_probabilities(s, m)
    ff = disagreement_fraction(s, m)
    a = 2 * len(m) / P
    assert math.isclose(probs[y == 1].sum(), a * (1 - ff)) and math.isclose(
        probs[y == -1].sum(), a * ff
    )
    idx = outcome_index(m, P)
    sv = Statevector(tieaudit_circuit(s, m, measure=False)).probabilities()
    assert np.allclose(sv[idx], probs, atol=1e-10)
    n = P.bit_length() - 1
    ea = Statevector(tieaudit_circuit(s, m, protocol="entanglement_assisted", measure=False))
    client = ea.probabilities(list(range(n, 2 * n)))
    assert np.allclose(client[idx], probs, atol=1e-10)
    # The server's n bits are uniform (they carry no information about s on their own).
    assert np.allclose(ea.probabilities(list(range(n))), 1 / P)


@pytest.mark.parametrize("protocol", ["quantum", "entanglement_assisted"])
def test_aer_sampling_agrees_with_born_rule(protocol):
    s, m = _instance(8, 0.75, 0.5, 3)
    probs, _ = outcome_probabilities(s, m)
    counts = tieaudit_sample_qiskit(s, m, 4000, protocol=protocol, seed=11)
    assert counts.sum() == 4000
    assert np.max(np.abs(counts / 4000 - probs)) < 0.04


def test_noise_attenuates_by_eta():
    s, m = _instance(16, 1.0, 0.25, 1)
    p0, y = outcome_probabilities(s, m)
    p1, _ = outcome_probabilities(s, m, noise=0.4)
    assert math.isclose(float(p1 @ y), 0.6 * float(p0 @ y))


@pytest.mark.parametrize(
    "protocol,noise",
    [
        ("quantum", 0.0),
        ("entanglement_assisted", 0.0),
        ("classical", 0.0),
        ("quantum", 0.3),
        ("entanglement_assisted", 0.2),
    ],
)
def test_estimates_within_eps(protocol, noise):
    eps, bad = 0.05, 0
    for t in range(20):
        s, m = _instance(4096, 0.5, 0.1 + 0.04 * t, 10 * t)
        e = tieaudit(s, m, eps, protocol=protocol, noise=noise, seed=t)
        bad += abs(e.value - disagreement_fraction(s, m)) > eps
    assert bad <= 4  # delta = 0.05 per run


def test_costs_and_copies():
    data, test = tieaudit_copies(1.0, 0.05, 0.05)
    assert data == math.ceil(math.log(40) / (2 * 0.05**2)) and test == 0
    s, m = _instance(1024, 1.0, 0.3, 0)
    e = tieaudit(s, m, 0.05, seed=0)
    assert e.cost == data * 10 == tieaudit_cost(1024, 0.05) and e.unit == "qubits"
    ea = tieaudit(s, m, 0.05, protocol="entanglement_assisted", seed=0)
    assert ea.cost == ea.ebits == data * 10 and ea.unit == "bits"
    c = tieaudit(s, m, 0.05, protocol="classical", seed=0)
    assert (
        c.cost
        == classical_subset_size(1024, 1.0, 0.05)
        == tieaudit_cost(1024, 0.05, protocol="classical")
    )
    noisy = tieaudit(s, m, 0.05, noise=0.2, seed=0)
    d2, t2 = tieaudit_copies(1.0, 0.05, 0.05, noise=0.2)
    assert noisy.copies == d2 + t2 and noisy.test_copies == t2 == d2
    assert abs(noisy.attenuation - 0.8) < 0.05
    assert repr(e) == repr(tieaudit(s, m, 0.05, seed=0))
    assert "test_copies" in repr(noisy) and "ebits" in repr(ea)


def test_classical_subset_size_grows_like_sqrt_P():
    k1 = classical_subset_size(2**20, 1.0, 0.05)
    k2 = classical_subset_size(2**22, 1.0, 0.05)
    assert abs(k2 / k1 - 2.0) < 0.01
    assert classical_subset_size(256, 1.0, 0.05) == 256  # too small: send everything
    # Fewer matched coordinates need more samples: k ∝ 1/sqrt(alpha).
    assert abs(classical_subset_size(2**22, 0.25, 0.05) / k2 - 2.0) < 0.01


def test_large_P_is_fast():
    s, m = _instance(2**20, 1.0, 0.3, 0)
    e = tieaudit(s, m, 0.05, seed=0)
    assert abs(e.value - 0.3) <= 0.05


def test_bad_input():
    s = np.ones(8)
    m = [[0, 1], [2, 3]]
    with pytest.raises(ValueError, match="power of two"):
        tieaudit(np.ones(6), [[0, 1]], 0.1)
    with pytest.raises(ValueError, match="only \\+1 and -1"):
        tieaudit([1, 0, 1, 1], [[0, 1]], 0.1)
    with pytest.raises(ValueError, match="disjoint"):
        tieaudit(s, [[0, 1], [1, 2]], 0.1)
    with pytest.raises(ValueError, match="disjoint"):
        tieaudit(s, [[3, 3]], 0.1)
    with pytest.raises(ValueError, match="0..7"):
        tieaudit(s, [[0, 8]], 0.1)
    with pytest.raises(ValueError, match="0..7"):
        tieaudit(s, [[-1, 2]], 0.1)
    with pytest.raises(ValueError, match="shape"):
        tieaudit(s, [0, 1, 2], 0.1)
    with pytest.raises(ValueError, match="at least one pair"):
        tieaudit(s, [], 0.1)
    with pytest.raises(TypeError, match="integer"):
        tieaudit(s, [[0.5, 1]], 0.1)
    for eps in (0.0, 1.0, -0.1, 2.0):
        with pytest.raises(ValueError, match="eps"):
            tieaudit(s, m, eps)
    with pytest.raises(ValueError, match="noise"):
        tieaudit(s, m, 0.1, noise=1.0)
    with pytest.raises(ValueError, match="quantum protocols only"):
        tieaudit(s, m, 0.1, protocol="classical", noise=0.1)
    with pytest.raises(ValueError, match="protocol"):
        tieaudit(s, m, 0.1, protocol="telepathy")
    with pytest.raises(ValueError, match="power of two"):
        tieaudit_cost(100, 0.1)
    with pytest.raises(ValueError, match="P must be <= 64"):
        tieaudit_circuit(np.ones(128), [[0, 1]])


def test_estimate_is_frozen():
    e = tieaudit(np.ones(4), [[0, 1]], 0.2, seed=0)
    assert isinstance(e, Estimate) and abs(e.value) <= 0.2
    with pytest.raises(AttributeError):
        e.value = 1.0


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st


@given(
    n=st.integers(1, 7),
    alpha=st.floats(0.05, 1.0),
    f=st.floats(0.0, 1.0),
    noise=st.floats(0.0, 0.9),
    seed=st.integers(0, 2**16),
)
def test_property_born_rule_law(n, alpha, f, noise, seed):
    P = 2**n
    m = random_matching(P, alpha, seed=seed)
    s = signs_with_disagreement(m, P, f, seed=seed + 1)
    probs, y = outcome_probabilities(s, m, noise)
    a, ff = 2 * len(m) / P, disagreement_fraction(s, m)
    assert abs(probs.sum() - 1) < 1e-12 and np.all(probs >= 0)
    assert abs(float(probs @ y) - (1 - noise) * a * (1 - 2 * ff)) < 1e-12
