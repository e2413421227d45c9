"""Superdense coding: fast path vs Qiskit path (qring_edu.superdense, ARCHITECTURE.md, book/03_superdense_ring.ipynb).

Statistical tests use fixed seeds (so they are deterministic) and state their tolerance: counts of
a Binomial(n, p) are accepted within 5 standard deviations, distributions over the four error
types by a chi-squared test at significance 1e-4 (3 degrees of freedom). With the fixed seeds a
correct implementation passes every time; a wrong noise model (e.g. a per-bit instead of a
per-symbol error, or Y not flipping both bits) is off by many standard deviations.
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

from qring_edu.superdense import (
    isotropic_state,
    superdense_circuit,
    superdense_outcome_probabilities,
    superdense_send,
    superdense_send_packed,
    superdense_send_qiskit,
)

CHI2_CRIT_3DOF = stats.chi2.ppf(1 - 1e-4, df=3)  # ~21.1
MESSAGES = [(0, 0), (0, 1), (1, 0), (1, 1)]


def error_types(sent: np.ndarray, received: np.ndarray) -> np.ndarray:
    """Counts of [no error, x flipped only (X), z flipped only (Z), both flipped (Y)] per symbol.

    Symbol j carries x = bit 2j and z = bit 2j + 1 (even-length streams only).
    """
    assert sent.size % 2 == 0
    dx = sent[0::2] != received[0::2]
    dz = sent[1::2] != received[1::2]
    return np.array([np.sum(~dx & ~dz), np.sum(dx & ~dz), np.sum(~dx & dz), np.sum(dx & dz)])


def bell_state() -> Statevector:
    qc = QuantumCircuit(2)
    qc.h(0)
    qc.cx(0, 1)
    return Statevector(qc)


# ------------------------------------------------------------------------------------------------
# Fast path
# ------------------------------------------------------------------------------------------------


@given(bits=st.lists(st.integers(0, 1), max_size=301), seed=st.none() | st.integers(0, 2**32))
def test_fast_path_exact_at_unit_fidelity(bits, seed):
    data = np.array(bits, dtype=np.int64)
    out = superdense_send(data, pair_fidelity=1.0, seed=seed)
    assert out.dtype == np.uint8
    assert out.shape == data.shape
    assert np.array_equal(out, data)


def test_fast_path_accepts_lists_bools_free_ints_and_empty():
    assert superdense_send([]).size == 0
    assert superdense_send([1]).tolist() == [1]
    assert superdense_send([1, 0, 1]).tolist() == [1, 0, 1]
    assert superdense_send(np.array([0, 1], dtype=np.uint8)).tolist() == [0, 1]


def test_fast_path_does_not_modify_input():
    data = np.zeros(1000, dtype=np.uint8)
    superdense_send(data, pair_fidelity=0.5, seed=0)
    assert not data.any()


@pytest.mark.parametrize("F", [0.25, 0.6, 0.9, 0.99])
def test_fast_path_error_statistics(F):
    n_sym = 200_000
    rng = np.random.default_rng(int(F * 1000))
    sent = rng.integers(0, 2, 2 * n_sym).astype(np.uint8)
    received = superdense_send(sent, pair_fidelity=F, seed=7)
    counts = error_types(sent, received)
    p = (1 - F) / 3
    expected = np.array([F, p, p, p])
    # symbol error rate 1 - F
    errors = n_sym - counts[0]
    assert abs(errors - n_sym * (1 - F)) <= 5 * math.sqrt(n_sym * F * (1 - F))
    # each error type (1 - F) / 3
    for c in counts[1:]:
        assert abs(c - n_sym * p) <= 5 * math.sqrt(n_sym * p * (1 - p))
    chi2 = np.sum((counts - n_sym * expected) ** 2 / (n_sym * expected))
    assert chi2 < CHI2_CRIT_3DOF


def test_fast_path_errors_independent_of_message():
    """The Pauli frame does not depend on what is sent: error rates for all-0 and all-1 agree."""
    n_sym, F = 100_000, 0.8
    zeros = np.zeros(2 * n_sym, dtype=np.uint8)
    ones = np.ones(2 * n_sym, dtype=np.uint8)
    c0 = error_types(zeros, superdense_send(zeros, pair_fidelity=F, seed=1))
    c1 = error_types(ones, superdense_send(ones, pair_fidelity=F, seed=2))
    _, pval, _, _ = stats.chi2_contingency(np.vstack([c0, c1]))
    assert pval > 1e-4


def test_fast_path_odd_stream_padding_bit_dropped():
    # 2k+1 bits: the last symbol carries x = last bit and a padding z; only x can be seen flipped.
    n_sym, F = 50_000, 0.7
    sent = np.zeros(2 * n_sym + 1, dtype=np.uint8)
    received = superdense_send(sent, pair_fidelity=F, seed=3)
    assert received.size == sent.size
    # per-bit flip rate (X or Y flips x; Z or Y flips z): 2(1-F)/3
    p_bit = 2 * (1 - F) / 3
    n = sent.size
    assert abs(received.sum() - n * p_bit) <= 5 * math.sqrt(n * p_bit * (1 - p_bit))


def test_fast_path_deterministic_with_seed():
    data = np.random.default_rng(0).integers(0, 2, 10_000)
    a = superdense_send(data, pair_fidelity=0.9, seed=11)
    b = superdense_send(data, pair_fidelity=0.9, seed=11)
    c = superdense_send(data, pair_fidelity=0.9, seed=12)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


# ------------------------------------------------------------------------------------------------
# Qiskit path: circuits, exact density matrices, Aer sampling
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("x,z", MESSAGES)
def test_circuit_decodes_with_certainty_on_aer(x, z):
    qc = superdense_circuit(x, z)
    assert qc.num_qubits == 2 and qc.num_clbits == 2
    counts = AerSimulator().run(qc, shots=256, seed_simulator=1).result().get_counts()
    assert counts == {f"{x}{z}": 256}  # count key reads f"{x}{z}" (clbit 1 = x, clbit 0 = z)


@pytest.mark.parametrize("x,z", MESSAGES)
def test_circuit_statevector_outcome(x, z):
    # Without measurement the final state is the basis state |x>_B |z>_A, i.e. index 2x + z.
    sv = Statevector(superdense_circuit(x, z, measure=False))
    probs = sv.probabilities()
    assert probs[2 * x + z] == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("F", [0.25, 0.5, 0.81, 0.9, 0.99, 1.0])
@pytest.mark.parametrize("x,z", MESSAGES)
def test_exact_distribution_matches_fast_path_model(x, z, F):
    probs = superdense_outcome_probabilities(x, z, pair_fidelity=F)
    assert set(probs) == set(MESSAGES)
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-12)
    for outcome, p in probs.items():
        want = F if outcome == (x, z) else (1 - F) / 3
        assert p == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("F", [0.25, 0.7, 1.0])
def test_isotropic_state(F):
    rho = isotropic_state(F)
    assert isinstance(rho, DensityMatrix)
    assert rho.num_qubits == 2
    assert np.trace(rho.data).real == pytest.approx(1.0, abs=1e-12)
    assert np.allclose(rho.data, rho.data.conj().T)
    assert np.linalg.eigvalsh(rho.data).min() >= -1e-12
    assert state_fidelity(rho, bell_state()) == pytest.approx(F, abs=1e-12)
    # Independent construction: F |Φ+><Φ+| + (1-F)/3 (I - |Φ+><Φ+|)
    phi = bell_state().data
    proj = np.outer(phi, phi.conj())
    want = F * proj + (1 - F) / 3 * (np.eye(4) - proj)
    assert np.allclose(rho.data, want, atol=1e-12)


@pytest.mark.parametrize("x,z", MESSAGES)
def test_noisy_circuit_on_aer_matches_exact_distribution(x, z):
    F, shots = 0.7, 4000
    qc = superdense_circuit(x, z, pair_fidelity=F)
    counts = AerSimulator().run(qc, shots=shots, seed_simulator=17).result().get_counts()
    exact = superdense_outcome_probabilities(x, z, pair_fidelity=F)
    observed = np.array([counts.get(f"{a}{b}", 0) for a, b in MESSAGES])
    expected = shots * np.array([exact[m] for m in MESSAGES])
    chi2 = np.sum((observed - expected) ** 2 / expected)
    assert chi2 < CHI2_CRIT_3DOF


def test_qiskit_path_exact_at_unit_fidelity():
    # all four messages, several times, and an odd-length tail
    sent = np.array([0, 0, 0, 1, 1, 0, 1, 1] * 4 + [1], dtype=np.uint8)
    received = superdense_send_qiskit(sent, pair_fidelity=1.0, seed=0)
    assert received.dtype == np.uint8
    assert np.array_equal(received, sent)
    assert superdense_send_qiskit([], seed=0).size == 0


def test_qiskit_path_agrees_with_fast_path_at_F_08():
    """~2000 symbols through per-symbol Aer circuits vs 200k through the fast path.

    1. Aer's error-type counts fit the model (F, p, p, p): chi-squared < crit(1e-4, 3 dof).
    2. Aer and fast-path counts come from the same distribution: chi-squared contingency
       test, p-value > 1e-4.
    """
    F, n_sym = 0.8, 2000
    rng = np.random.default_rng(2024)
    sent = rng.integers(0, 2, 2 * n_sym).astype(np.uint8)
    aer = error_types(sent, superdense_send_qiskit(sent, pair_fidelity=F, seed=5))
    p = (1 - F) / 3
    expected = n_sym * np.array([F, p, p, p])
    assert np.sum((aer - expected) ** 2 / expected) < CHI2_CRIT_3DOF
    big = rng.integers(0, 2, 400_000).astype(np.uint8)
    fast = error_types(big, superdense_send(big, pair_fidelity=F, seed=5))
    _, pval, _, _ = stats.chi2_contingency(np.vstack([aer, fast]))
    assert pval > 1e-4
    # and the symbol error rates agree with 1 - F (binomial, 5 sigma)
    errs = n_sym - aer[0]
    assert abs(errs - n_sym * (1 - F)) <= 5 * math.sqrt(n_sym * F * (1 - F))


def test_qiskit_path_deterministic_with_seed():
    sent = np.random.default_rng(1).integers(0, 2, 200).astype(np.uint8)
    a = superdense_send_qiskit(sent, pair_fidelity=0.6, seed=4)
    b = superdense_send_qiskit(sent, pair_fidelity=0.6, seed=4)
    assert np.array_equal(a, b)


# ------------------------------------------------------------------------------------------------
# Noisy links (book/04_noisy_links.ipynb)
# ------------------------------------------------------------------------------------------------


def reference_send(bits: np.ndarray, probabilities, seed) -> np.ndarray:
    """superdense_send from its documented stream, one symbol at a time: B = ceil(n / 8) bytes
    of four symbols, 4 B trials slot-major (trial s B + i is symbol 4 i + s), frames of
    pauli_frames_distribution(4 B, probabilities, rng); X flips x = bit 2j, Z flips z = bit 2j+1,
    Y both; flips past the stream are invisible."""
    from qring_edu.superdense import pauli_frames_distribution

    n = bits.size
    B = (n + 7) // 8
    out = bits.copy()
    rng = np.random.default_rng(seed)
    pos, frames = pauli_frames_distribution(4 * B, probabilities, rng)
    for t, f in zip(pos.tolist(), frames.tolist()):
        s, i = divmod(t, B)
        j = 4 * i + s
        for bit, flips in ((2 * j, f & 1), (2 * j + 1, f & 2)):
            if flips and bit < n:
                out[bit] ^= 1
    return out


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 5001, 40_000])
@pytest.mark.parametrize(
    "case",
    [
        dict(pair_fidelity=0.9),
        dict(pair_fidelity=0.5),
        dict(pair_fidelity=0.25),
        dict(pair_fidelity=0.95, channel_fidelity=0.97),
        dict(pair_fidelity=0.99, storage_time=1.0, coherence_time=4.0),
    ],
)
def test_fast_path_draws_the_documented_stream(n, case):
    """The output is the from-scratch replay of the stream stated in the docstring (the
    earlier per-symbol order drew different symbols, so this fails on the old sampler)."""
    from qring_edu.links import link_errors

    bits = np.random.default_rng(n).integers(0, 2, n).astype(np.uint8)
    errors = link_errors(
        case.get("pair_fidelity"),
        case.get("channel_fidelity", 1.0),
        storage_time=case.get("storage_time", 0.0),
        coherence_time=case.get("coherence_time", math.inf),
    )
    probs = (
        (errors.fidelity,) + ((1 - errors.fidelity) / 3,) * 3
        if errors.is_depolarizing
        else errors.probabilities
    )
    got = superdense_send(bits, seed=8, **case)
    np.testing.assert_array_equal(got, reference_send(bits, probs, seed=8))


def test_unit_fidelity_draws_nothing_and_copies():
    bits = np.ones(100, dtype=np.uint8)
    rng = np.random.default_rng(3)
    state = rng.bit_generator.state
    out = superdense_send(bits, pair_fidelity=1.0, seed=rng)
    assert rng.bit_generator.state == state
    out[0] = 0
    assert bits[0] == 1  # a new array, not the input


# ------------------------------------------------------------------------------------------------
# Bit-packed fast path
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 999, 2**15 + 3, 300_001])
@pytest.mark.parametrize(
    "case",
    [
        dict(pair_fidelity=1.0),
        dict(pair_fidelity=0.95),
        dict(pair_fidelity=0.25),
        dict(channel_fidelity=0.99),
        dict(pair_fidelity=0.9, storage_time=2.0, coherence_time=3.0),
    ],
)
def test_packed_path_equals_the_unpacked_path_bit_for_bit(n, case):
    bits = np.random.default_rng(n + 1).integers(0, 2, n).astype(np.uint8)
    packed = np.packbits(bits, bitorder="little")
    got = superdense_send_packed(packed, n, seed=12, **case)
    want = np.packbits(superdense_send(bits, seed=12, **case), bitorder="little")
    assert got.dtype == np.uint8 and got.shape == packed.shape
    np.testing.assert_array_equal(got, want)


def test_packed_path_bit_order_and_padding():
    # byte 0 = 0b00000001: stream bit 0 (x of symbol 0) is its least significant bit
    assert np.unpackbits(np.array([1], dtype=np.uint8), bitorder="little")[0] == 1
    # the padding bits past n_bits are never sent: returned as given, whatever the noise
    data = np.full(1000, 0xFF, dtype=np.uint8)
    data[-1] = 0b10100101
    for n_bits, keep in ((7995, 0b111), (7993, 0b1)):
        out = superdense_send_packed(data, n_bits, pair_fidelity=0.25, seed=1)
        assert (out[-1] & ~np.uint8(keep)) == (data[-1] & ~np.uint8(keep))
    # default n_bits: every bit of every byte
    out = superdense_send_packed(data, pair_fidelity=0.25, seed=2)
    assert np.unpackbits(out ^ data).sum() > 0.4 * 8000 * 0.5
    assert not np.array_equal(data, out) and data[0] == 0xFF  # input untouched


@pytest.mark.parametrize("F", [0.95, 0.7])
def test_packed_path_error_statistics(F):
    n_sym = 400_000
    bits = np.random.default_rng(5).integers(0, 2, 2 * n_sym).astype(np.uint8)
    out = superdense_send_packed(
        np.packbits(bits, bitorder="little"), 2 * n_sym, pair_fidelity=F, seed=9
    )
    received = np.unpackbits(out, bitorder="little")[: 2 * n_sym]
    counts = error_types(bits, received)
    p = (1 - F) / 3
    assert abs((n_sym - counts[0]) - n_sym * (1 - F)) <= 5 * math.sqrt(n_sym * F * (1 - F))
    for c in counts[1:]:
        assert abs(c - n_sym * p) <= 5 * math.sqrt(n_sym * p * (1 - p))
    expected = n_sym * np.array([F, p, p, p])
    assert np.sum((counts - expected) ** 2 / expected) < CHI2_CRIT_3DOF


@pytest.mark.parametrize(
    "args, exc, match",
    [
        ((np.zeros((2, 2), dtype=np.uint8),), ValueError, "data must be 1-D"),
        ((np.array([0.5, 1.0]),), TypeError, "data must hold bytes"),
        ((np.array([0, 256]),), ValueError, r"data must hold bytes, integers 0\.\.255"),
        ((np.array([-1, 3]),), ValueError, r"data must hold bytes"),
        ((np.zeros(3, dtype=np.uint8), 25), ValueError, r"n_bits must be in 17\.\.24"),
        ((np.zeros(3, dtype=np.uint8), 16), ValueError, r"n_bits must be in 17\.\.24"),
        ((np.zeros(3, dtype=np.uint8), 2.5), TypeError, "n_bits must be an integer"),
        ((np.zeros(0, dtype=np.uint8), 1), ValueError, r"n_bits must be in 0\.\.0"),
    ],
)
def test_packed_path_rejects_bad_input(args, exc, match):
    with pytest.raises(exc, match=match):
        superdense_send_packed(*args)


def test_packed_path_accepts_integer_bytes_and_checks_fidelity_and_seed():
    out = superdense_send_packed(np.array([255, 0, 7]), pair_fidelity=1.0)
    assert out.dtype == np.uint8 and out.tolist() == [255, 0, 7]
    with pytest.raises(ValueError, match="pair_fidelity"):
        superdense_send_packed(np.zeros(2, dtype=np.uint8), pair_fidelity=0.2)
    with pytest.raises(ValueError, match="seed"):
        superdense_send_packed(np.zeros(2, dtype=np.uint8), pair_fidelity=0.9, seed=-1)


def test_channel_noise_composes_with_pair_noise():
    # F_eff = F_pair F_ch + (1 - F_pair)(1 - F_ch)/3, and the three Paulis stay equally likely
    n = 60_000
    bits = np.random.default_rng(1).integers(0, 2, 2 * n)
    rx = superdense_send(bits, pair_fidelity=0.95, channel_fidelity=0.9, seed=2)
    Fe = 0.95 * 0.9 + 0.05 * 0.1 / 3
    counts = error_types(bits, rx)
    expected = n * np.array([Fe, (1 - Fe) / 3, (1 - Fe) / 3, (1 - Fe) / 3])
    assert ((counts - expected) ** 2 / expected).sum() < CHI2_CRIT_3DOF
    # without the channel term the error rate would be 0.05: far outside
    assert abs(counts[0] / n - 0.95) > 10 * math.sqrt(0.05 * 0.95 / n)
