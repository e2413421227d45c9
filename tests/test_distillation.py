"""Entanglement distillation (qring_edu.distillation, book/04_noisy_links.ipynb).

The recurrence formulas are checked against their closed forms, against the Qiskit path
(``distill_qiskit``: the bilateral CNOT circuit on density matrices) round by round, and the
sampled production cost against its expectation (within 5 standard errors over 20 seeded
runs). The hashing threshold is checked against the dense-coding threshold of qring_edu.holevo.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from qring_edu.distillation import (
    Distillation,
    distill,
    distill_qiskit,
    distillable_yield,
    sample_production,
)
from qring_edu.holevo import dense_coding_threshold, shannon_entropy
from qring_edu.noise import PauliErrors, depolarizing
from qring_edu.protection import Distill


def random_errors(rng) -> PauliErrors:
    return PauliErrors(tuple(rng.dirichlet(np.ones(4))))


@pytest.mark.parametrize("F", [0.55, 0.7, 0.9, 0.99])
def test_bbpssw_closed_form(F):
    q = (1 - F) / 3
    N = F**2 + 2 * F * (1 - F) / 3 + 5 * q**2
    d = distill(F, protocol="bbpssw")
    assert isinstance(d, Distillation)
    assert d.success_probability == pytest.approx(N, abs=1e-15)
    assert d.fidelity == pytest.approx((F**2 + q**2) / N, abs=1e-15)
    e = d.errors.probabilities
    assert e[1] == pytest.approx(e[2]) and e[2] == pytest.approx(e[3])  # twirled to Werner
    assert d.raw_pairs_per_pair == pytest.approx(2 / N)
    # announcements: 2 bits per attempt (1/N attempts per pair) + 2 twirl bits per kept pair
    assert d.offline_bits_per_pair == pytest.approx(2 / N + 2)


def test_dejmps_formula_on_bell_diagonal_states():
    """The Qiskit circuit against the DEJMPS formula on random Bell-diagonal pairs:
    (A, B, C, D) = (Φ+, Ψ−, Ψ+, Φ−), N = (A+B)² + (C+D)², A' = (A²+B²)/N, B' = 2CD/N,
    C' = (C²+D²)/N, D' = 2AB/N."""
    rng = np.random.default_rng(1)
    for _ in range(6):
        e = random_errors(rng)
        I, X, Z, Y = e.probabilities
        A, B, C, D = I, Y, X, Z
        N = (A + B) ** 2 + (C + D) ** 2
        s, kept = distill_qiskit(e, protocol="dejmps")
        assert s == pytest.approx(N, abs=1e-12)
        want = [(A**2 + B**2) / N, (C**2 + D**2) / N, 2 * A * B / N, 2 * C * D / N]
        np.testing.assert_allclose(kept.probabilities, want, atol=1e-12)


@pytest.mark.parametrize("protocol", ["bbpssw", "dejmps"])
@pytest.mark.parametrize("F", [0.75, 0.92])
def test_recurrence_equals_repeated_qiskit_rounds(protocol, F):
    """distill(F, rounds=3) against three rounds of the circuit, each fed the previous output
    (after the first DEJMPS round the pairs are Bell-diagonal, not Werner)."""
    d = distill(F, rounds=3, protocol=protocol)
    pair, succ = depolarizing(F), []
    for _ in range(3):
        s, pair = distill_qiskit(pair, protocol=protocol)
        succ.append(s)
    np.testing.assert_allclose(d.errors.probabilities, pair.probabilities, atol=1e-12)
    np.testing.assert_allclose(d.success_probabilities, succ, atol=1e-12)
    assert d.success_probability == pytest.approx(np.prod(succ))
    assert d.raw_pairs_per_pair == pytest.approx(8 / np.prod(succ))
    # a Werner fidelity and the same Werner error give the same circuit
    a, b = distill_qiskit(F, protocol=protocol), distill_qiskit(depolarizing(F), protocol=protocol)
    assert a[0] == pytest.approx(b[0]) and a[1].fidelity == pytest.approx(b[1].fidelity)


def test_expected_costs_of_several_rounds():
    # backwards from the last round: pairs needed per attempt and bits announced per attempt
    d = distill(0.8, rounds=2)
    s1, s2 = d.success_probabilities
    attempts2 = 1 / s2
    attempts1 = 2 * attempts2 / s1
    assert d.raw_pairs_per_pair == pytest.approx(2 * attempts1)
    assert d.offline_bits_per_pair == pytest.approx(2 * (attempts1 + attempts2))


def test_dejmps_beats_bbpssw_after_two_rounds_and_both_improve_monotonically():
    for F in (0.6, 0.8, 0.95):
        assert distill(F, rounds=2).fidelity > distill(F, rounds=2, protocol="bbpssw").fidelity
        for protocol in ("bbpssw", "dejmps"):
            fids = [distill(F, rounds=r, protocol=protocol).fidelity for r in range(6)]
            assert all(b > a for a, b in zip(fids, fids[1:]))


@pytest.mark.parametrize("F", [0.25, 0.4, 0.5])
@pytest.mark.parametrize("protocol", ["bbpssw", "dejmps"])
def test_no_improvement_at_or_below_one_half(F, protocol):
    for r in (1, 2, 5):
        d = distill(F, rounds=r, protocol=protocol)
        assert not d.distillable and not d.improved
        assert max(d.errors.probabilities) <= 0.5 + 1e-12  # still separable-looking
        assert d.fidelity <= F + 1e-12


def test_zero_rounds_is_the_input():
    zero = distill(0.9, rounds=0)
    assert zero.fidelity == 0.9 and zero.raw_pairs_per_pair == 1.0
    assert zero.offline_bits_per_pair == 0 and zero.success_probabilities == ()
    assert sample_production(7, [], "dejmps", np.random.default_rng(1)) == (7, [], 0)


@pytest.mark.parametrize("protocol", ["bbpssw", "dejmps"])
def test_sampled_production_matches_the_expectation(protocol):
    d = distill(0.85, rounds=3, protocol=protocol)
    succ = d.success_probabilities
    runs = [sample_production(2000, succ, protocol, np.random.default_rng(s)) for s in range(20)]
    raw = np.array([r[0] for r in runs]) / 2000
    bits = np.array([r[2] for r in runs]) / 2000
    assert abs(raw.mean() - d.raw_pairs_per_pair) < 5 * raw.std(ddof=1) / math.sqrt(raw.size)
    assert abs(bits.mean() - d.offline_bits_per_pair) < 5 * bits.std(ddof=1) / math.sqrt(bits.size)
    for raw_pairs, attempts, _ in runs:
        assert len(attempts) == 3
        assert raw_pairs == 2 * attempts[0]  # every attempt consumes two pairs
        assert attempts[2] >= 2000 and attempts[1] >= 2 * attempts[2]


def test_sample_production_is_deterministic_for_a_seed():
    succ = distill(0.9, rounds=2).success_probabilities
    a = sample_production(1000, succ, "dejmps", np.random.default_rng(4))
    assert a == sample_production(1000, succ, "dejmps", np.random.default_rng(4))
    assert a != sample_production(1000, succ, "dejmps", np.random.default_rng(5))


def test_hashing_threshold_equals_the_dense_coding_threshold():
    # 1 - H(Werner F) = 0 exactly where the dense-coding capacity 2 - H = 1 (chapter 2)
    F0 = dense_coding_threshold()
    assert round(F0, 4) == 0.8107
    assert depolarizing(F0).capacity() == pytest.approx(1.0, abs=1e-9)
    assert distillable_yield(F0 + 1e-3, max_rounds=0).yield_per_pair > 0
    assert distillable_yield(F0 - 1e-3, max_rounds=0).yield_per_pair == 0


@pytest.mark.parametrize("F", [0.51, 0.55, 0.6, 0.7, 0.8])
@pytest.mark.parametrize("protocol", ["bbpssw", "dejmps"])
def test_every_fidelity_above_one_half_is_distillable(F, protocol):
    y = distillable_yield(F, protocol=protocol)
    assert y.distillable and y.yield_per_pair > 0
    assert y.rounds >= 1 and y.fidelity > 0.8107 and y.hashing_rate > 0
    # the recurrence's kept fraction times the hashing rate of what it keeps
    d = distill(F, rounds=y.rounds, protocol=protocol)
    assert y.recurrence_yield == pytest.approx(1 / d.raw_pairs_per_pair, rel=1e-12)
    assert y.yield_per_pair == pytest.approx(
        (1 - shannon_entropy(d.errors.probabilities)) / d.raw_pairs_per_pair, rel=1e-9
    )
    assert distillable_yield(0.5).yield_per_pair == 0.0


@pytest.mark.parametrize(
    "call, exc, name",
    [
        (lambda: distill(0.9, rounds=-1), ValueError, "rounds"),
        (lambda: distill(0.9, rounds=1.5), TypeError, "rounds"),
        (lambda: distill(0.9, protocol="hashing"), ValueError, "protocol"),
        (lambda: distill(1.5), ValueError, "pair_fidelity"),
        (
            lambda: sample_production(-1, [0.9], "dejmps", np.random.default_rng()),
            ValueError,
            "output_pairs",
        ),
        (
            lambda: sample_production(1, [1.5], "dejmps", np.random.default_rng()),
            ValueError,
            "succ",
        ),
        (lambda: sample_production(1, [0.9], "dejmps", 0), TypeError, "rng"),
        (lambda: distillable_yield(0.9, max_rounds=-1), ValueError, "max_rounds"),
        (lambda: distill_qiskit(0.9, protocol="x"), ValueError, "protocol"),
        (lambda: distill_qiskit(0.1), ValueError, "pair"),
        (lambda: Distill(rounds=0), ValueError, "rounds"),
        (lambda: Distill(rounds=65), ValueError, "rounds"),
        (lambda: Distill(rounds=True), TypeError, "rounds"),
        (lambda: Distill(protocol="xyz"), ValueError, "protocol"),
    ],
)
def test_bad_input_names_the_argument(call, exc, name):
    with pytest.raises(exc, match=name):
        call()
