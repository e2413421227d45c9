"""TieAudit_ε (qring_edu.tieaudit): Born rule against circuits, protocols, channels, costs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from qiskit.quantum_info import Statevector

from qring_edu.experiments.tieaudit import (
    disagreement_fraction,
    outcome_index,
    random_matching,
    signs_with_disagreement,
    tieaudit_sample_qiskit,
)
from qring_edu.tieaudit import (
    DataOnlyAttack,
    Dephasing,
    Depolarizing,
    Estimate,
    LocalDepolarizing,
    classical_subset_size,
    copy_y_law,
    outcome_probabilities,
    tieaudit,
    tieaudit_circuit,
    tieaudit_copies,
    tieaudit_cost,
    two_message_bits,
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
    assert math.isclose(probs[y == 1].sum(), a * (1 - ff))
    assert math.isclose(probs[y == -1].sum(), a * ff)
    idx = outcome_index(m, P)
    sv = Statevector(tieaudit_circuit(s, m, measure=False)).probabilities()
    assert np.allclose(sv[idx], probs, atol=1e-10)
    n = P.bit_length() - 1
    for pad in (0, P - 1):  # the twirl's Pauli part Z^b cancels in both protocols
        ea = Statevector(
            tieaudit_circuit(s, m, protocol="entanglement_assisted", measure=False, pad=pad)
        )
        assert np.allclose(ea.probabilities(list(range(n, 2 * n)))[idx], probs, atol=1e-10)
        assert np.allclose(ea.probabilities(list(range(n))), 1 / P)  # the server's bits: uniform
        sv = Statevector(tieaudit_circuit(s, m, measure=False, pad=pad)).probabilities()
        assert np.allclose(sv[idx], probs, atol=1e-10)


@pytest.mark.parametrize("protocol", ["quantum", "entanglement_assisted"])
def test_aer_sampling_agrees_with_born_rule(protocol):
    s, m = _instance(8, 0.75, 0.5, 3)
    probs, _ = outcome_probabilities(s, m)
    counts = tieaudit_sample_qiskit(s, m, 4000, protocol=protocol, seed=11)
    assert counts.sum() == 4000
    assert np.max(np.abs(counts / 4000 - probs)) < 0.04


def test_channels_attenuate_by_their_eta():
    s, m = _instance(16, 1.0, 0.25, 1)
    p0, y = outcome_probabilities(s, m)
    p1, _ = outcome_probabilities(s, m, Depolarizing(0.4))
    assert math.isclose(float(p1 @ y), 0.6 * float(p0 @ y))
    g = 1 - 2 * disagreement_fraction(s, m)
    for channel in (Depolarizing(0.4), Dephasing(0.1), LocalDepolarizing(0.9), DataOnlyAttack(0.3)):
        plus, minus = copy_y_law(s, m, channel)  # twirled: alpha (1 ± eta g)/2
        assert math.isclose(plus + minus, 1.0) and math.isclose(plus - minus, channel.eta(16) * g)
    # Twirled depolarising noise is depolarising noise: eta = 1 - noise exactly.
    assert Depolarizing(0.4).eta(16) == 0.6
    assert math.isclose(Dephasing(0.1).eta(16), (256 * 0.9**4 - 1) / 255)
    assert math.isclose(LocalDepolarizing(0.9).eta(16), ((4 * 0.9) ** 4 - 1) / (4**4 - 1))


@pytest.mark.parametrize(
    "protocol,channel",
    [
        ("quantum", None),
        ("entanglement_assisted", None),
        ("classical", None),
        ("two_message", None),
        ("quantum", Depolarizing(0.3)),
        ("entanglement_assisted", Dephasing(0.02)),
    ],
)
def test_estimates_within_eps_and_intervals_hold_f(protocol, channel):
    eps, outside, uncovered = 0.05, 0, 0
    for t in range(20):
        s, m = _instance(4096, 0.5, 0.1 + 0.04 * t, 10 * t)
        e = tieaudit(s, m, eps, protocol=protocol, channel=channel, seed=t)
        f = disagreement_fraction(s, m)
        outside += abs(e.value - f) > eps
        uncovered += not e.lo <= f <= e.hi
        assert 0.0 <= e.lo <= e.value <= e.hi <= 1.0
    assert outside <= 4 and uncovered <= 4  # delta = 0.05 per run


def test_costs_and_copies():
    N = tieaudit_copies(1.0, 0.05, 0.05)
    assert N == math.ceil(math.log(40) / (2 * 0.05**2)) == 738
    s, m = _instance(1024, 1.0, 0.3, 0)
    e = tieaudit(s, m, 0.05, seed=0)
    assert e.cost == N * 10 == tieaudit_cost(1024, 0.05) and e.unit == "qubits"
    assert e.test_copies == 0 and e.attenuation == 1.0 and e.hi - e.lo <= 0.1 + 1e-12
    ea = tieaudit(s, m, 0.05, protocol="entanglement_assisted", seed=0)
    assert ea.cost == ea.ebits == N * 10 and ea.unit == "bits"
    c = tieaudit(s, m, 0.05, protocol="classical", seed=0)
    assert c.cost == classical_subset_size(1024, 1.0, 0.05) == 1024  # small P: every sign
    assert c.value == c.lo == c.hi == disagreement_fraction(s, m)  # so f is exact
    t = tieaudit(s, m, 0.05, protocol="two_message", seed=0)
    assert t.cost == two_message_bits(1024, 0.05) == 512 * 21  # fewer than 738 pairs: all of them
    assert t.value == t.lo == t.hi == c.value
    noisy = tieaudit(s, m, 0.05, channel=Depolarizing(0.2), seed=0)
    assert noisy.copies == tieaudit_copies(1.0, 0.05, eta=0.8, bound="freedman")
    assert noisy.cost == tieaudit_cost(1024, 0.05, channel=Depolarizing(0.2)) == noisy.copies * 10
    assert abs(noisy.test_copies - noisy.copies / 2) < 4 * math.sqrt(noisy.copies / 4)
    assert abs(noisy.attenuation - 0.8) < 0.05
    assert repr(e) == repr(tieaudit(s, m, 0.05, seed=0))  # deterministic for a seed


def test_one_way_against_two_messages():
    """The issue's numbers: at P = 2^24, eps = delta = 0.05, the two-message protocol asks
    ceil(ln(2/delta)/(2 eps^2)) = 738 pairs, 738 (2 x 24 + 1) = 36,162 bits; the quantum protocol
    at coverage 1/4 plans 3,075 copies (Bernstein), 3,075 x 24 = 73,800 qubits."""
    assert math.ceil(math.log(2 / 0.05) / (2 * 0.05**2)) == 738
    assert two_message_bits(2**24, 0.05, 0.05) == 36_162 == 738 * 49
    assert tieaudit_copies(0.25, 0.05, 0.05) == 3075
    assert tieaudit_cost(2**24, 0.05, alpha=0.25) == 73_800
    # One-way classical needs ~sqrt(P): two messages undercut both one-way protocols there.
    assert tieaudit_cost(2**24, 0.05, protocol="classical", alpha=0.25) > 73_800
    # Small matchings: the client asks for every pair and learns f exactly.
    assert two_message_bits(2**10, 0.05, alpha=1 / 512) == 1 * 21


def test_classical_subset_size_grows_like_sqrt_P():
    k1 = classical_subset_size(2**20, 1.0, 0.05)
    k2 = classical_subset_size(2**22, 1.0, 0.05)
    assert abs(k2 / k1 - 2.0) < 0.01
    assert classical_subset_size(256, 1.0, 0.05) == 256  # too small: send everything
    assert abs(classical_subset_size(2**22, 0.25, 0.05) / k2 - 2.0) < 0.01  # k ∝ 1/sqrt(alpha)


def test_large_P_is_fast():
    s, m = _instance(2**20, 1.0, 0.3, 0)
    e = tieaudit(s, m, 0.05, seed=0)
    assert abs(e.value - 0.3) <= 0.05


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
    probs, y = outcome_probabilities(s, m, Depolarizing(noise))
    a, ff = 2 * len(m) / P, disagreement_fraction(s, m)
    assert abs(probs.sum() - 1) < 1e-12 and np.all(probs >= 0)
    assert abs(float(probs @ y) - (1 - noise) * a * (1 - 2 * ff)) < 1e-12
