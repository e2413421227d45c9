"""Superdense coding over a link: fast path vs Qiskit path (qring_edu.superdense,
ARCHITECTURE.md, book/03_superdense_ring.ipynb, book/04_noisy_links.ipynb).

Statistical tests use fixed seeds and state their tolerance: counts of a Binomial(n, p) within
4 standard deviations, distributions over the four error types by a chi-squared test at
significance 1e-4 (3 degrees of freedom). A wrong noise model (a per-bit instead of a per-symbol
error, Y not flipping both bits, the channel drawn separately from the pair) is off by many
standard deviations.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from qiskit import QuantumCircuit
from qiskit.quantum_info import DensityMatrix, Statevector, state_fidelity
from qiskit_aer import AerSimulator
from scipy import stats

from qring_edu import states
from qring_edu.noise import Link, effective_fidelity, memory_dephasing
from qring_edu.superdense import (
    isotropic_state,
    superdense_circuit,
    superdense_outcome_probabilities,
    superdense_send,
    superdense_send_qiskit,
)

CHI2_CRIT_3DOF = stats.chi2.ppf(1 - 1e-4, df=3)  # ~21.1
MESSAGES = [(0, 0), (0, 1), (1, 0), (1, 1)]
SIGMAS = 4.0

LINKS = [
    Link(pair_fidelity=0.7),
    Link(channel_fidelity=0.9),
    Link(pair_fidelity=0.9, channel_fidelity=0.95),
    Link(pair_fidelity=1.0, channel_fidelity=0.8, storage_time=0.3, coherence_time=1.0),
    Link(pair_fidelity=0.85, storage_time=1.0, coherence_time=2.0, transmission=0.6),
]


def error_types(sent: np.ndarray, received: np.ndarray) -> np.ndarray:
    """Counts of [I, X, Z, Y] (frame-code order) per symbol: X flips x = bit 2j only, Z flips
    z = bit 2j + 1 only, Y both (even-length streams)."""
    assert sent.size % 2 == 0
    dx = sent[0::2] != received[0::2]
    dz = sent[1::2] != received[1::2]
    return np.array([np.sum(~dx & ~dz), np.sum(dx & ~dz), np.sum(~dx & dz), np.sum(dx & dz)])


def chi2(counts: np.ndarray, probabilities) -> float:
    expected = counts.sum() * np.asarray(probabilities)
    mask = expected > 0
    assert np.all(counts[~mask] == 0)
    return float(((counts[mask] - expected[mask]) ** 2 / expected[mask]).sum())


def bell() -> Statevector:
    qc = QuantumCircuit(2)
    qc.h(0)
    qc.cx(0, 1)
    return Statevector(qc)


# ------------------------------------------------------------------------------------------------
# Fast path
# ------------------------------------------------------------------------------------------------


@given(bits=st.lists(st.integers(0, 1), max_size=301), seed=st.none() | st.integers(0, 2**32))
def test_fast_path_exact_on_a_noiseless_link(bits, seed):
    data = np.array(bits, dtype=np.int64)
    for link in (Link(), Link(1.0, 1.0), Link(transmission=0.3)):  # loss never flips a bit
        out = superdense_send(data, link=link, seed=seed)
        assert out.dtype == np.uint8 and out.shape == data.shape
        np.testing.assert_array_equal(out, data)


def test_fast_path_accepts_lists_and_empty_and_leaves_the_input_alone():
    assert superdense_send([]).size == 0
    assert superdense_send([1]).tolist() == [1]
    assert superdense_send([1, 0, 1]).tolist() == [1, 0, 1]
    data = np.zeros(1000, dtype=np.uint8)
    out = superdense_send(data, link=Link(0.5), seed=0)
    assert not data.any() and out.any()
    same = superdense_send(data)
    same[0] = 1
    assert data[0] == 0  # a new array even when nothing erred


@pytest.mark.parametrize("link", LINKS, ids=repr)
def test_fast_path_error_statistics_follow_the_link(link):
    n_sym = 100_000
    sent = np.random.default_rng(1).integers(0, 2, 2 * n_sym).astype(np.uint8)
    counts = error_types(sent, superdense_send(sent, link=link, seed=7))
    e = link.errors
    q = e.error_rate
    assert abs((n_sym - counts[0]) - n_sym * q) <= SIGMAS * math.sqrt(n_sym * q * (1 - q))
    assert chi2(counts, e.probabilities) < CHI2_CRIT_3DOF


def test_errors_do_not_depend_on_the_message():
    """All-0 and all-1 streams see the same error distribution (contingency test, 1e-4)."""
    n_sym, link = 100_000, Link(0.8)
    zeros, ones = np.zeros(2 * n_sym, np.uint8), np.ones(2 * n_sym, np.uint8)
    c0 = error_types(zeros, superdense_send(zeros, link=link, seed=1))
    c1 = error_types(ones, superdense_send(ones, link=link, seed=2))
    assert stats.chi2_contingency(np.vstack([c0, c1])).pvalue > 1e-4


def test_channel_noise_composes_with_pair_noise():
    """F_eff = F_pair F_ch + (1 - F_pair)(1 - F_ch)/3, three Paulis equally likely; the same
    stream as a pair of fidelity F_eff (one composed draw per symbol, not two)."""
    n = 60_000
    bits = np.random.default_rng(1).integers(0, 2, 2 * n)
    rx = superdense_send(bits, link=Link(0.95, 0.9), seed=2)
    Fe = effective_fidelity(0.95, 0.9)
    assert chi2(error_types(bits, rx), [Fe, (1 - Fe) / 3, (1 - Fe) / 3, (1 - Fe) / 3]) < (
        CHI2_CRIT_3DOF
    )
    np.testing.assert_array_equal(rx, superdense_send(bits, link=Link(Fe), seed=2))
    assert abs(error_types(bits, rx)[0] / n - 0.95) > 10 * math.sqrt(0.05 * 0.95 / n)


def test_memory_noise_flips_only_z_bits():
    bits = np.zeros(40_000, dtype=np.uint8)
    link = Link(pair_fidelity=1.0, storage_time=1.0, coherence_time=3.0)
    rx = superdense_send(bits, link=link, seed=4)
    assert rx[0::2].sum() == 0  # x bits never flip under dephasing
    n, pz = bits.size // 2, memory_dephasing(1.0, 3.0).probabilities[2]
    assert abs(rx[1::2].sum() - n * pz) <= SIGMAS * math.sqrt(n * pz * (1 - pz))


def test_odd_stream_drops_the_padding_bit():
    # 2k + 1 bits: the last symbol's z is padding; every real bit flips with 2(1 - F)/3
    n_sym, F = 50_000, 0.7
    sent = np.zeros(2 * n_sym + 1, dtype=np.uint8)
    received = superdense_send(sent, link=Link(F), seed=3)
    assert received.size == sent.size
    p_bit, n = 2 * (1 - F) / 3, sent.size
    assert abs(received.sum() - n * p_bit) <= SIGMAS * math.sqrt(n * p_bit * (1 - p_bit))


def test_every_seed_form_and_determinism():
    data = np.random.default_rng(0).integers(0, 2, 10_000)
    link = Link(0.9)
    a = superdense_send(data, link=link, seed=11)
    np.testing.assert_array_equal(a, superdense_send(data, link=link, seed=11))
    np.testing.assert_array_equal(
        a, superdense_send(data, link=link, seed=np.random.SeedSequence(11))
    )
    np.testing.assert_array_equal(
        a, superdense_send(data, link=link, seed=np.random.default_rng(11))
    )
    assert not np.array_equal(a, superdense_send(data, link=link, seed=12))
    b = superdense_send(data, link=link, seed=[11, 3])
    np.testing.assert_array_equal(b, superdense_send(data, link=link, seed=[11, 3]))
    assert not np.array_equal(a, b)
    # a Generator advances; a noiseless link draws nothing from it
    gen = np.random.default_rng(5)
    state = gen.bit_generator.state
    superdense_send(data, seed=gen)
    assert gen.bit_generator.state == state
    superdense_send(data, link=link, seed=gen)
    assert gen.bit_generator.state != state


# ------------------------------------------------------------------------------------------------
# Qiskit path: circuits, exact density matrices, Aer sampling
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("x,z", MESSAGES)
def test_noiseless_circuit_decodes_every_message(x, z):
    qc = superdense_circuit(x, z)
    assert qc.num_qubits == 2 and qc.num_clbits == 2
    counts = AerSimulator().run(qc, shots=256, seed_simulator=1).result().get_counts()
    assert counts == {f"{x}{z}": 256}  # count key reads f"{x}{z}" (clbit 1 = x, clbit 0 = z)
    # without measurement the final state is |z>_A |x>_B, index 2x + z
    probs = Statevector(superdense_circuit(x, z, measure=False)).probabilities()
    assert probs[2 * x + z] == pytest.approx(1.0, abs=1e-12)
    assert superdense_outcome_probabilities(x, z) == {
        m: (1.0 if m == (x, z) else 0.0) for m in MESSAGES
    }


@pytest.mark.parametrize("link", LINKS + [Link(0.25), Link(0.5, 0.5)], ids=repr)
@pytest.mark.parametrize("x,z", MESSAGES)
def test_exact_distribution_equals_the_composed_pauli_model(link, x, z):
    """Qiskit applies the pair noise to B, dephasing to both halves and the channel to A, each
    where it physically acts; the fast path's one composed Pauli on A gives the same law."""
    probs = superdense_outcome_probabilities(x, z, link=link)
    assert set(probs) == set(MESSAGES)
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-12)
    for code, p in enumerate(link.errors.probabilities):
        assert probs[(x ^ (code & 1), z ^ (code >> 1))] == pytest.approx(p, abs=1e-12)


@pytest.mark.parametrize("link", [LINKS[0], LINKS[3]], ids=repr)
def test_aer_circuit_counts_match_the_exact_distribution(link):
    shots, x, z = 4000, 1, 0
    qc = superdense_circuit(x, z, link=link)
    counts = AerSimulator().run(qc, shots=shots, seed_simulator=17).result().get_counts()
    exact = superdense_outcome_probabilities(x, z, link=link)
    observed = np.array([counts.get(f"{a}{b}", 0) for a, b in MESSAGES])
    assert chi2(observed, [exact[m] for m in MESSAGES]) < CHI2_CRIT_3DOF


def test_aer_sampling_agrees_with_the_fast_path():
    """400 symbols through one Aer circuit each (pair, memory and channel noise) vs 200 000
    through the fast path: Aer's error-type counts fit the link's law (chi-squared) and the two
    samples come from the same distribution (contingency test, p > 1e-4)."""
    link = Link(pair_fidelity=0.9, channel_fidelity=0.9, storage_time=0.3, coherence_time=1.0)
    n_sym = 400
    rng = np.random.default_rng(2024)
    sent = rng.integers(0, 2, 2 * n_sym).astype(np.uint8)
    aer = error_types(sent, superdense_send_qiskit(sent, link=link, seed=5))
    assert chi2(aer, link.errors.probabilities) < CHI2_CRIT_3DOF
    big = rng.integers(0, 2, 400_000).astype(np.uint8)
    fast = error_types(big, superdense_send(big, link=link, seed=5))
    table = np.vstack([aer, fast])
    table = table[:, table.sum(axis=0) > 0]
    assert stats.chi2_contingency(table).pvalue > 1e-4


def test_qiskit_path_exact_on_a_perfect_link_and_deterministic():
    sent = np.array([0, 0, 0, 1, 1, 0, 1, 1] * 4 + [1], dtype=np.uint8)  # an odd tail
    received = superdense_send_qiskit(sent, seed=0)
    assert received.dtype == np.uint8
    np.testing.assert_array_equal(received, sent)
    assert superdense_send_qiskit([], seed=0).size == 0
    noisy = np.random.default_rng(1).integers(0, 2, 200).astype(np.uint8)
    a = superdense_send_qiskit(noisy, link=Link(0.6), seed=4)
    np.testing.assert_array_equal(a, superdense_send_qiskit(noisy, link=Link(0.6), seed=4))
    np.testing.assert_array_equal(
        a, superdense_send_qiskit(noisy, link=Link(0.6), seed=np.random.SeedSequence(4))
    )


@pytest.mark.parametrize("F", [0.25, 0.7, 1.0])
def test_isotropic_state(F):
    rho = isotropic_state(F)
    assert isinstance(rho, DensityMatrix) and rho.num_qubits == 2
    assert rho.is_valid()
    assert state_fidelity(rho, bell()) == pytest.approx(F, abs=1e-12)
    # independent construction: F |Φ+><Φ+| + (1-F)/3 (I - |Φ+><Φ+|)
    phi = bell().data
    proj = np.outer(phi, phi.conj())
    np.testing.assert_allclose(rho.data, F * proj + (1 - F) / 3 * (np.eye(4) - proj), atol=1e-12)
    np.testing.assert_allclose(rho.data, states.isotropic_state(F), atol=1e-15)


# ------------------------------------------------------------------------------------------------
# Bad input
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, exc, pattern",
    [
        (lambda: superdense_send(np.zeros((2, 2))), ValueError, r"bits.*1-D"),
        (lambda: superdense_send([0, 2]), ValueError, r"bits.*0 and 1"),
        (lambda: superdense_send([0, -1, 1]), ValueError, r"bits.*0 and 1"),
        (lambda: superdense_send([0.5]), ValueError, r"bits.*0 and 1"),
        (lambda: superdense_send([0, float("nan")]), ValueError, r"bits"),
        (lambda: superdense_send(["0", "1"]), TypeError, r"bits"),
        (lambda: superdense_send([0, 1], link=0.9), TypeError, r"link"),
        (lambda: superdense_send([0, 1], pair_fidelity=0.9), TypeError, r"pair_fidelity"),
        (lambda: superdense_send([0, 1], seed=-3), ValueError, r"seed"),
        (lambda: superdense_send([0, 1], seed=1.5), TypeError, r"seed"),
        (lambda: superdense_send_qiskit([0, 2]), ValueError, r"bits.*0 and 1"),
        (lambda: superdense_send_qiskit(np.zeros((1, 2))), ValueError, r"bits.*1-D"),
        (lambda: superdense_send_qiskit([0, 1], link="noisy"), TypeError, r"link"),
        (lambda: superdense_send_qiskit([0, 1], seed="x"), TypeError, r"seed"),
        (lambda: superdense_circuit(2, 0), ValueError, r"\bx\b.*0\.\.1"),
        (lambda: superdense_circuit(0, -1), ValueError, r"\bz\b.*0\.\.1"),
        (lambda: superdense_circuit(0, True), TypeError, r"\bz\b"),
        (lambda: superdense_circuit("1", 0), TypeError, r"\bx\b"),
        (lambda: superdense_circuit(0, 0, link=None), TypeError, r"link"),
        (lambda: superdense_circuit(0, 0, measure="yes"), TypeError, r"measure"),
        (lambda: superdense_outcome_probabilities(3, 0), ValueError, r"\bx\b"),
        (lambda: superdense_outcome_probabilities(0, 0, link=0.2), TypeError, r"link"),
        (lambda: isotropic_state(1.01), ValueError, r"pair_fidelity.*\[0\.25, 1\]"),
        (lambda: isotropic_state("1"), TypeError, r"pair_fidelity"),
    ],
)
def test_bad_input_names_the_argument(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()
