"""Noisy links, capacities, distillation and error protection (qring_edu.links, book/04_noisy_links.ipynb).

Every quantum part is checked two ways: the fast path (closed forms, recurrences, Pauli-frame and
block-outcome sampling) against the Qiskit path (density matrices, Aer circuits), and the fast
model of the Reed–Solomon decoder against the real decoder of ``galois``. Statistical checks use
fixed seeds and accept counts within 5 standard deviations (chi-squared at significance 1e-4 for
distributions over the four Pauli errors).
"""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from scipy import stats

import qring_edu.links as links
from qring_edu import ring_allreduce, superdense_send
from qring_edu.holevo import dense_coding_capacity, holevo_chi
from qring_edu.links import (
    FECCode,
    PauliErrors,
    depolarizing,
    depolarizing_capacities,
    distill,
    distill_qiskit,
    distill_sample,
    distillable_yield,
    effective_fidelity,
    expected_net_factor,
    fec_code,
    fec_transmit,
    link_errors,
    memory_dephasing,
    net_online_factor,
    net_online_factors,
    noisy_link_probabilities,
    noisy_link_send_qiskit,
    protection,
    ring_link_bits,
    superdense_link_capacity,
    symbol_capacity,
    toeplitz_hash,
)

CHI2_CRIT_3DOF = stats.chi2.ppf(1 - 1e-4, df=3)


def random_errors(rng) -> PauliErrors:
    return PauliErrors(tuple(rng.dirichlet(np.ones(4))))


def pauli_counts(sent: np.ndarray, received: np.ndarray) -> np.ndarray:
    """[I, X, Z, Y] counts per symbol (x = bit 2j, z = bit 2j + 1), frame-code order."""
    dx = sent[0::2] != received[0::2]
    dz = sent[1::2] != received[1::2]
    return np.array([np.sum(~dx & ~dz), np.sum(dx & ~dz), np.sum(~dx & dz), np.sum(dx & dz)])


@pytest.mark.parametrize("module, least", [("links", 30), ("ring", 2), ("superdense", 2)])
def test_docstring_examples_run(module, least):
    import importlib

    mod = importlib.import_module(f"qring_edu.{module}")
    res = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.attempted >= least and res.failed == 0


# ------------------------------------------------------------------------------------------------
# Link model: composition of pair, memory and channel noise
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("Fp, Fc", [(0.99, 0.99), (0.9, 0.97), (1.0, 0.8), (0.6, 1.0), (0.25, 0.5)])
def test_effective_fidelity_formula_and_composition(Fp, Fc):
    e = link_errors(Fp, Fc)
    assert e.fidelity == pytest.approx(Fp * Fc + (1 - Fp) * (1 - Fc) / 3, abs=1e-15)
    assert effective_fidelity(Fp, Fc) == pytest.approx(e.fidelity, abs=1e-15)
    assert e.is_depolarizing  # depolarising composed with depolarising


def test_fresh_pair_has_the_channel_fidelity():
    # a pair whose half crossed the link: F_pair = F_ch, so F_eff = F^2 + (1-F)^2/3
    e = link_errors(channel_fidelity=0.99)
    assert e.fidelity == pytest.approx(0.99**2 + 0.01**2 / 3, abs=1e-15)
    assert link_errors(None, 0.99) == link_errors(0.99, 0.99)


def test_composition_is_pauli_multiplication():
    # brute force over 2x2 Pauli matrices: P_a P_b equals P_(a xor b) up to a phase
    paulis = links._pauli_matrices()
    for a in range(4):
        for b in range(4):
            prod = paulis[a] @ paulis[b]
            target = paulis[a ^ b]
            phase = np.trace(target.conj().T @ prod) / 2
            assert abs(abs(phase) - 1) < 1e-12
            np.testing.assert_allclose(prod, phase * target, atol=1e-12)
    rng = np.random.default_rng(3)
    e1, e2, e3 = (random_errors(rng) for _ in range(3))
    np.testing.assert_allclose(e1.compose(e2).as_array(), e2.compose(e1).as_array(), atol=1e-15)
    np.testing.assert_allclose(
        e1.compose(e2).compose(e3).as_array(), e1.compose(e2.compose(e3)).as_array(), atol=1e-15
    )


def test_memory_dephasing_formula():
    e = memory_dephasing(2.0, 5.0)
    p_half = (1 - math.exp(-2.0 / 5.0)) / 2
    assert e.probabilities[2] == pytest.approx(2 * p_half * (1 - p_half), abs=1e-15)
    assert e.probabilities[1] == e.probabilities[3] == 0.0
    assert memory_dephasing(0.0, 1.0).fidelity == 1.0
    assert memory_dephasing(5.0, math.inf).fidelity == 1.0
    # a long wait: the coherence is gone, Z with probability 1/2
    assert memory_dephasing(1e6, 1.0).fidelity == pytest.approx(0.5)


CASES = [
    dict(pair_fidelity=0.9, channel_fidelity=0.95),
    dict(channel_fidelity=0.9),
    dict(pair_fidelity=1.0, channel_fidelity=0.8, storage_time=0.3, coherence_time=1.0),
    dict(pair_fidelity=0.85, channel_fidelity=1.0, storage_time=1.0, coherence_time=2.0),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("x, z", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_qiskit_density_matrix_matches_composed_errors(case, x, z):
    # Qiskit applies pair noise to B, dephasing to both halves and the channel to A, each where it
    # physically acts; the fast path's single composed Pauli on A must give the same distribution.
    probs = noisy_link_probabilities(x, z, **case)
    err = link_errors(**case).probabilities
    for code in range(4):
        got = probs[(x ^ (code & 1), z ^ (code >> 1))]
        assert got == pytest.approx(err[code], abs=1e-12)


@pytest.mark.parametrize("case", [CASES[0], CASES[2]])
def test_aer_sampling_matches_fast_path(case):
    rng = np.random.default_rng(11)
    n_sym = 3000
    sent = rng.integers(0, 2, 2 * n_sym)
    want = np.array(link_errors(**case).probabilities)
    for received in (
        noisy_link_send_qiskit(sent, seed=2, **case),
        superdense_send(sent, seed=3, **case),
    ):
        counts = pauli_counts(sent, received)
        expected = n_sym * want
        mask = expected > 0
        assert np.all(counts[~mask] == 0)
        chi2 = float(((counts[mask] - expected[mask]) ** 2 / expected[mask]).sum())
        assert chi2 < CHI2_CRIT_3DOF, (counts, expected)


def test_superdense_send_channel_equals_pair_of_effective_fidelity():
    bits = np.random.default_rng(0).integers(0, 2, 20_001)
    Fe = effective_fidelity(0.95, 0.97)
    a = superdense_send(bits, pair_fidelity=0.95, channel_fidelity=0.97, seed=9)
    b = superdense_send(bits, pair_fidelity=Fe, seed=9)
    np.testing.assert_array_equal(a, b)


def test_memory_noise_flips_only_z_bits():
    bits = np.zeros(40_000, dtype=np.uint8)
    rx = superdense_send(bits, pair_fidelity=1.0, storage_time=1.0, coherence_time=3.0, seed=4)
    assert rx[0::2].sum() == 0  # x bits never flip under dephasing
    n = bits.size // 2
    pz = memory_dephasing(1.0, 3.0).probabilities[2]
    assert abs(rx[1::2].sum() - n * pz) < 5 * math.sqrt(n * pz * (1 - pz))


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(channel_fidelity=1.2), "channel_fidelity"),
        (dict(channel_fidelity=0.1), "channel_fidelity"),
        (dict(pair_fidelity=-1.0), "pair_fidelity"),
        (dict(storage_time=-1.0), "storage_time"),
        (dict(storage_time=1.0, coherence_time=0.0), "coherence_time"),
        (dict(storage_time=1.0, coherence_time=float("nan")), "coherence_time"),
    ],
)
def test_link_model_bad_input_names_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        link_errors(**kwargs)
    with pytest.raises(ValueError, match=name):
        superdense_send([0, 1], **kwargs)


# ------------------------------------------------------------------------------------------------
# Capacities
# ------------------------------------------------------------------------------------------------


def test_capacities_at_09_match_the_issue():
    c = depolarizing_capacities(0.9)
    assert round(c.classical, 4) == 0.6466
    assert round(c.entanglement_assisted, 4) == 1.3725
    assert round(c.ratio, 2) == 2.12


def _depolarize(rho: np.ndarray, F: float) -> np.ndarray:
    paulis = links._pauli_matrices()
    q = (1 - F) / 3
    return F * rho + q * sum(p @ rho @ p.conj().T for p in paulis[1:])


@pytest.mark.parametrize("F", [0.3, 0.6, 0.9, 0.99])
def test_classical_capacity_is_holevo_of_orthogonal_inputs_and_an_upper_bound(F):
    c = depolarizing_capacities(F).classical
    outs = [
        _depolarize(np.diag([1.0, 0.0]).astype(complex), F),
        _depolarize(np.diag([0.0, 1.0]).astype(complex), F),
    ]
    assert holevo_chi([0.5, 0.5], outs) == pytest.approx(c, abs=1e-10)
    # no single-use ensemble of inputs does better
    rng = np.random.default_rng(int(F * 100))
    for _ in range(20):
        n = rng.integers(2, 6)
        vecs = rng.standard_normal((n, 2)) + 1j * rng.standard_normal((n, 2))
        states = [_depolarize(np.outer(v, v.conj()) / np.vdot(v, v), F) for v in vecs]
        assert holevo_chi(rng.dirichlet(np.ones(n)), states) <= c + 1e-9


def _depolarize_a(rho: np.ndarray, F: float) -> np.ndarray:
    """The depolarising channel on qubit 0 (A) of a two-qubit density matrix (Qiskit order)."""
    q = (1 - F) / 3
    out = F * rho
    for p in links._pauli_matrices()[1:]:
        op = np.kron(np.eye(2), p)
        out = out + q * op @ rho @ op.conj().T
    return out


@pytest.mark.parametrize("F", [0.4, 0.8, 0.95])
def test_entanglement_assisted_capacity_is_dense_coding_of_the_channel_state(F):
    # BSST: C_E = I(A;B) of (N ⊗ id)(Φ+) = dense-coding capacity of that state
    rho = _depolarize_a(links._bell_pair_density(depolarizing(1.0).as_array()), F)
    assert dense_coding_capacity(rho) == pytest.approx(
        depolarizing_capacities(F).entanglement_assisted, abs=1e-10
    )


def test_ratio_exceeds_two_with_noise_and_tends_to_two():
    Fs = np.linspace(0.3, 0.999, 50)
    ratios = [depolarizing_capacities(F).ratio for F in Fs]
    assert all(r > 2 for r in ratios)
    assert depolarizing_capacities(1.0).ratio == 2.0
    assert depolarizing_capacities(0.9999).ratio < ratios[-1]


def test_superdense_link_bound_numbers_and_dense_coding_crosscheck():
    assert round(superdense_link_capacity(channel_fidelity=0.99), 3) == 1.828
    assert round(superdense_link_capacity(channel_fidelity=0.999), 3) == 1.976
    rng = np.random.default_rng(5)
    for _ in range(5):
        e = random_errors(rng)
        rho = links._bell_pair_density(e.as_array())
        assert symbol_capacity(e) == pytest.approx(dense_coding_capacity(rho), abs=1e-10)
    # with perfect pairs the bound is BSST's C_E of the channel; noisy pairs only lower it
    assert superdense_link_capacity(1.0, 0.95) == pytest.approx(
        depolarizing_capacities(0.95).entanglement_assisted, abs=1e-12
    )
    assert superdense_link_capacity(0.95, 0.95) < superdense_link_capacity(1.0, 0.95)


# ------------------------------------------------------------------------------------------------
# Distillation
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("F", [0.55, 0.7, 0.9, 0.99])
def test_bbpssw_closed_form(F):
    q = (1 - F) / 3
    N = F**2 + 2 * F * (1 - F) / 3 + 5 * q**2
    d = distill(F, protocol="bbpssw")
    assert d.success_probability == pytest.approx(N, abs=1e-15)
    assert d.fidelity == pytest.approx((F**2 + q**2) / N, abs=1e-15)
    assert d.errors.is_depolarizing  # twirled back to Werner
    assert d.raw_pairs_per_pair == pytest.approx(2 / N)


def test_dejmps_formula_on_bell_diagonal_states():
    rng = np.random.default_rng(1)
    for _ in range(10):
        I, X, Z, Y = rng.dirichlet(np.ones(4))
        A, B, C, D = I, Y, X, Z  # DEJMPS order (Φ+, Ψ−, Ψ+, Φ−)
        N = (A + B) ** 2 + (C + D) ** 2
        s, out = links._round(np.array([I, X, Z, Y]), "dejmps")
        assert s == pytest.approx(N)
        np.testing.assert_allclose(
            out, [(A**2 + B**2) / N, (C**2 + D**2) / N, 2 * A * B / N, 2 * C * D / N], atol=1e-14
        )


@pytest.mark.parametrize("protocol", ["bbpssw", "dejmps"])
def test_recurrence_matches_qiskit_bilateral_cnot_circuit(protocol):
    rng = np.random.default_rng(7)
    pairs = [depolarizing(0.8)] + [random_errors(rng) for _ in range(4)]
    for pair in pairs:
        p_q, kept_q = distill_qiskit(protocol=protocol, pair=pair)
        p_f, kept_f = links._round(pair.as_array(), protocol)
        assert p_q == pytest.approx(p_f, abs=1e-12)
        np.testing.assert_allclose(kept_q.as_array(), kept_f, atol=1e-12)


@pytest.mark.parametrize("protocol", ["bbpssw", "dejmps"])
def test_several_rounds_equal_repeated_qiskit_rounds(protocol):
    d = distill(0.75, rounds=3, protocol=protocol)
    pair, succ = depolarizing(0.75), []
    for _ in range(3):
        s, pair = distill_qiskit(protocol=protocol, pair=pair)
        succ.append(s)
    assert d.fidelity == pytest.approx(pair.fidelity, abs=1e-12)
    np.testing.assert_allclose(d.success_probabilities, succ, atol=1e-12)
    assert d.raw_pairs_per_pair == pytest.approx(8 / np.prod(succ))


def test_dejmps_beats_bbpssw_after_two_rounds_and_both_converge():
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
    with pytest.raises(ValueError, match="pair_fidelity"):
        distill_sample(F, 10, rounds=1, protocol=protocol)


def test_distill_bad_input():
    with pytest.raises(ValueError, match="rounds"):
        distill(0.9, rounds=-1)
    with pytest.raises(ValueError, match="protocol"):
        distill(0.9, protocol="hashing")
    with pytest.raises(ValueError, match="pair_fidelity"):
        distill(1.5)
    with pytest.raises(TypeError, match="rounds"):
        distill(0.9, rounds=1.5)
    zero = distill(0.9, rounds=0)
    assert (
        zero.fidelity == 0.9 and zero.raw_pairs_per_pair == 1.0 and zero.offline_bits_per_pair == 0
    )


@pytest.mark.parametrize("protocol", ["bbpssw", "dejmps"])
def test_sampled_production_matches_expectation(protocol):
    d = distill(0.85, rounds=3, protocol=protocol)
    runs = [distill_sample(0.85, 2000, rounds=3, protocol=protocol, seed=s) for s in range(20)]
    raw = np.array([r.raw_pairs for r in runs]) / 2000
    bits = np.array([r.offline_bits for r in runs]) / 2000
    assert abs(raw.mean() - d.raw_pairs_per_pair) < 5 * raw.std(ddof=1) / math.sqrt(raw.size)
    assert abs(bits.mean() - d.offline_bits_per_pair) < 5 * bits.std(ddof=1) / math.sqrt(bits.size)
    assert all(r.fidelity == pytest.approx(d.fidelity) for r in runs)
    # every attempt consumes exactly two pairs of the previous round
    for r in runs:
        assert r.raw_pairs == 2 * r.attempts[0]


def test_hashing_threshold_equals_dense_coding_threshold():
    # 1 - H(Werner F) = 0 exactly where 2 - H = 1: the chapter-2 "0.81"
    from scipy.optimize import brentq

    F0 = brentq(lambda F: depolarizing(F).capacity() - 1.0, 0.6, 0.99)
    assert round(F0, 4) == 0.8107
    assert distillable_yield(F0 + 1e-3, max_rounds=0).yield_per_pair > 0
    assert distillable_yield(F0 - 1e-3, max_rounds=0).yield_per_pair == 0


@pytest.mark.parametrize("F", [0.51, 0.55, 0.6, 0.7, 0.8])
@pytest.mark.parametrize("protocol", ["bbpssw", "dejmps"])
def test_every_fidelity_above_half_has_positive_yield(F, protocol):
    y = distillable_yield(F, protocol=protocol)
    assert y.distillable and y.yield_per_pair > 0
    assert y.rounds >= 1 and y.fidelity > 0.8107 and y.hashing_rate > 0
    # the yield is what the recurrence keeps times the hashing rate of what it keeps
    d = distill(F, rounds=y.rounds, protocol=protocol)
    assert y.recurrence_yield == pytest.approx(1 / d.raw_pairs_per_pair, rel=1e-12)
    assert y.yield_per_pair == pytest.approx(
        (1 - links._entropy(d.errors.probabilities)) / d.raw_pairs_per_pair, rel=1e-9
    )


# ------------------------------------------------------------------------------------------------
# Reed–Solomon protection: code choice, fast model vs galois
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n, p", [(255, 0.07), (64, 0.2), (30, 1e-4), (255, 0.0), (17, 1.0)])
def test_binomial_tail_matches_scipy(n, p):
    want = stats.binom.sf(np.arange(n + 1), n, p)
    np.testing.assert_allclose(links._binom_sf(n, p), want, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("s, n", [(0.0199, 255), (0.002, 255), (0.01, 100), (0.05, 255)])
def test_fec_code_choice_maximises_the_expected_factor(s, n):
    code = fec_code(s, block_length=n)
    p_byte = 1 - (1 - s) ** 4

    def factor(t):
        data = n - 2 * t - 8
        return 8 * data * (1 - stats.binom.sf(t, n, p_byte)) / (4 * n + 1) if data > 0 else 0

    best = max(range((n - 9) // 2 + 1), key=factor)
    assert code.t == best
    assert code.net_factor(s) == pytest.approx(factor(best), rel=1e-9)


def test_fec_factors_at_the_issue_fidelities():
    for F, target in ((0.99, 1.4), (0.999, 1.8)):
        s = link_errors(channel_fidelity=F).error_rate
        code = fec_code(s)
        assert target <= code.net_factor(s) < superdense_link_capacity(channel_fidelity=F)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(block_length=256), "block_length"),
        (dict(block_length=8), "block_length"),
        (dict(block_length=40, correctable=16), "block_length"),
        (dict(hash_bits=12), "hash_bits"),
        (dict(hash_bits=0), "hash_bits"),
        (dict(correctable=-1), "correctable"),
    ],
)
def test_fec_code_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        fec_code(0.01, **kwargs)


def test_fec_code_refuses_a_hopeless_link():
    with pytest.raises(ValueError, match="symbol_error"):
        fec_code(0.3)
    with pytest.raises(ValueError, match="symbol_error"):
        fec_code(0.8)


def test_toeplitz_hash_is_linear_and_almost_xor_universal():
    rng = np.random.default_rng(2)
    data = rng.integers(0, 256, 40, dtype=np.uint8)
    delta = np.zeros(40, dtype=np.uint8)
    delta[[3, 17]] = [5, 200]
    key = rng.integers(0, 2, 8 + 8 * 40 - 1)
    assert np.array_equal(
        toeplitz_hash(data ^ delta, key, 8),
        toeplitz_hash(data, key, 8) ^ toeplitz_hash(delta, key, 8),
    )
    # for a fixed nonzero delta and target, a random key collides with probability 2^-8
    hits = 0
    trials = 40_000
    target = np.array([0x5A], dtype=np.uint8)
    for _ in range(trials):
        k = rng.integers(0, 2, 8 + 8 * 40 - 1)
        hits += bool(np.array_equal(toeplitz_hash(delta, k, 8), target))
    p = 2.0**-8
    assert abs(hits - trials * p) < 5 * math.sqrt(trials * p)


def _payload(rng, n):
    return rng.integers(0, 256, n, dtype=np.uint8)


@pytest.mark.parametrize(
    "n, t, F, n_bytes", [(64, 4, 0.9935, 3000), (255, 30, 0.985, 8000), (40, 0, 0.995, 1000)]
)
def test_galois_decoder_accepts_exactly_the_blocks_the_model_accepts(n, t, F, n_bytes):
    code = FECCode(n=n, t=t)
    errors = link_errors(channel_fidelity=F)
    payload = _payload(np.random.default_rng(1), n_bytes)
    key = np.random.default_rng(2).integers(0, 2, code.hash_bits + 8 * code.data_bytes - 1)
    model = fec_transmit(payload.size, code, errors, np.random.default_rng(5))
    real = fec_transmit(
        payload.size,
        code,
        errors,
        np.random.default_rng(5),
        payload=payload,
        decoder="galois",
        hash_key=key,
        detail_rng=np.random.default_rng(6),
    )
    assert model.rejected > 10  # the instance exercises decoding failures
    for field in ("qubits", "ack_bits", "blocks", "transmissions", "rejected", "rounds"):
        assert getattr(real, field) == getattr(model, field), field
    np.testing.assert_array_equal(real.received, payload)


def test_miscorrections_happen_and_the_checksum_bound_holds():
    """With t = 1, blocks with more errors are often *miscorrected* by the decoder; the checksum
    alone rejects them, and a short 8-bit checksum lets through at most 2^-8 of the rejections."""
    import galois as gl  # a test dependency (pyproject.toml [test])

    rs = gl.ReedSolomon(255, 253)
    rng = np.random.default_rng(3)
    msgs = np.zeros((100, 253), dtype=np.int64)  # shortened to 32 bytes: 223 leading zeros
    msgs[:, 223:] = rng.integers(0, 256, (100, 30))
    words = rs.encode(rs.field(msgs)).view(np.ndarray).astype(np.int64)
    for row in words:  # two random byte errors in each block
        pos = 223 + rng.choice(32, 2, replace=False)
        row[pos] ^= rng.integers(1, 256, 2)
    dec, nerr = rs.decode(rs.field(words), errors=True)
    dec = dec.view(np.ndarray)
    mis = int(np.sum((np.asarray(nerr) >= 0) & np.any(dec != msgs, axis=1)))
    assert mis > 0  # the decoder alone is not enough

    # Over fresh checksum keys (the bound is over the noise and the key), count the blocks
    # accepted with wrong data: at most rejections x 2^-8 on average.
    code = FECCode(n=32, t=1, hash_bits=8)
    errors = link_errors(channel_fidelity=0.9936)  # about half the blocks have > 1 byte error
    wrong_blocks = rejected = 0
    for trial in range(30):
        payload = _payload(np.random.default_rng(trial), 23 * 10)
        key = np.random.default_rng(10_000 + trial).integers(0, 2, 8 + 8 * code.data_bytes - 1)
        out = fec_transmit(
            payload.size,
            code,
            errors,
            np.random.default_rng(20_000 + trial),
            payload=payload,
            decoder="galois",
            hash_key=key,
            detail_rng=np.random.default_rng(30_000 + trial),
        )
        rejected += out.rejected
        wrong_blocks += sum(
            not np.array_equal(out.received[i : i + 23], payload[i : i + 23])
            for i in range(0, payload.size, 23)
        )
    bound = rejected * 2.0**-8
    # (without the checksum nearly every rejection would be a miscorrection accepted wrongly)
    assert rejected > 200
    assert wrong_blocks <= bound + 5 * math.sqrt(bound)


def test_fec_transmit_model_counts():
    code = FECCode(n=255, t=10)
    rng = np.random.default_rng(0)
    out = fec_transmit(10_000, code, depolarizing(1.0), rng)
    full, rest = divmod(10_000, code.data_bytes)
    assert out.blocks == full + 1 and out.rejected == 0 and out.rounds == 1
    assert out.qubits == 4 * (10_000 + out.blocks * code.overhead_bytes)
    assert out.ack_bits == out.blocks
    with pytest.raises(RuntimeError, match="rounds"):
        fec_transmit(1000, FECCode(n=255, t=0), depolarizing(0.5), rng)


# ------------------------------------------------------------------------------------------------
# The protected ring
# ------------------------------------------------------------------------------------------------


def _grads(P, d, seed=0, integer=False):
    rng = np.random.default_rng(seed)
    if integer:
        return rng.integers(-1000, 1000, size=(P, d))
    return rng.standard_normal((P, d))


@pytest.mark.parametrize(
    "P, d, bits", [(2, 1, 16), (3, 10, 7), (5, 333, 12), (8, 4096, 16), (4, 1000, 32)]
)
@pytest.mark.parametrize("scheme", ["fec", "distill+fec"])
@pytest.mark.parametrize("F", [0.97, 0.99, 0.999])
def test_protected_ring_equals_the_noiseless_ring(P, d, bits, scheme, F):
    for integer in (True, False):
        g = _grads(P, d, seed=P + d, integer=integer)
        clean = ring_allreduce(g, bits=bits)
        res = ring_allreduce(
            g, transport="superdense", bits=bits, channel_fidelity=F, protection=scheme, seed=7
        )
        np.testing.assert_array_equal(res.outputs, clean.outputs)
        assert res.undetected_error_bound < 1e-12
        assert res.link_report.code is not None


def test_unprotected_noisy_channel_corrupts_at_the_composed_rate():
    P, d, bits = 4, 20_000, 16
    g = _grads(P, d, integer=True)
    res = ring_allreduce(g, transport="superdense", bits=bits, channel_fidelity=0.98, seed=1)
    same = ring_allreduce(
        g, transport="superdense", bits=bits, pair_fidelity=effective_fidelity(0.98, 0.98), seed=1
    )
    np.testing.assert_array_equal(res.outputs, same.outputs)  # one composed Pauli per symbol
    assert not res.consistent
    assert res.undetected_error_bound == 1.0
    assert res.link_report.symbol_error == pytest.approx(1 - effective_fidelity(0.98, 0.98))


def test_fec_ledger_accounting():
    P, d, bits = 4, 10_000, 16
    g = _grads(P, d, integer=True)
    res = ring_allreduce(
        g, transport="superdense", bits=bits, channel_fidelity=0.99, protection="fec", seed=3
    )
    led, rep = res.ledger, res.link_report
    code = rep.code
    classical = ring_link_bits(P, d, bits)
    q = led.per_link("online_qubits")
    # every payload byte crosses at least once as 4 qubits, plus parity and checksum per block
    assert np.all(q >= 4 * classical // 8)
    assert np.array_equal(led.per_link("ebits"), q)
    assert np.array_equal(led.per_link("offline_qubits"), q)  # one raw pair per consumed pair
    assert led.per_link("online_bits").sum() == rep.transmissions  # one ack per transmission
    key = code.hash_bits + 8 * code.data_bytes - 1
    assert np.all(led.per_link("offline_bits") == key)  # the checksum key, once per link
    assert rep.transmissions == rep.blocks + rep.rejected
    # total qubits = 4 x bytes of all transmitted codewords
    assert q.sum() >= 4 * (classical.sum() // 8 + rep.blocks * code.overhead_bytes)


def test_distill_ledger_and_residual_errors():
    P, d, bits = 4, 40_000, 16
    g = _grads(P, d, integer=True)
    none = ring_allreduce(g, transport="superdense", bits=bits, pair_fidelity=0.9, seed=2)
    res = ring_allreduce(
        g,
        transport="superdense",
        bits=bits,
        pair_fidelity=0.9,
        protection=protection("distill", rounds=2),
        seed=2,
    )
    dist = distill(0.9, rounds=2)
    led = res.ledger
    # online qubits unchanged; pairs consumed = online qubits; raw pairs and announcements grow
    assert np.array_equal(led.per_link("online_qubits"), none.ledger.per_link("online_qubits"))
    assert np.array_equal(led.per_link("ebits"), led.per_link("online_qubits"))
    ratio = led.per_link("offline_qubits").sum() / led.per_link("ebits").sum()
    assert ratio == pytest.approx(dist.raw_pairs_per_pair, rel=0.01)
    bits_ratio = led.per_link("offline_bits").sum() / led.per_link("ebits").sum()
    assert bits_ratio == pytest.approx(dist.offline_bits_per_pair, rel=0.01)
    assert led.online_bits() == 0
    # the pairs are better, so far fewer words are corrupted than without distillation
    clean = ring_allreduce(g, bits=bits).outputs
    assert np.mean(res.outputs != clean) < 0.5 * np.mean(none.outputs != clean)
    assert res.link_report.symbol_error == pytest.approx(1 - dist.fidelity)


def test_distill_cannot_remove_channel_noise():
    g = _grads(4, 20_000, integer=True)
    clean = ring_allreduce(g, bits=16).outputs
    res = ring_allreduce(
        g,
        transport="superdense",
        bits=16,
        pair_fidelity=1.0,
        channel_fidelity=0.99,
        protection=protection("distill", rounds=3),
        seed=1,
    )
    assert res.link_report.symbol_error == pytest.approx(0.01, rel=1e-6)
    assert np.mean(res.outputs != clean) > 0.01


def test_galois_decoder_ring_equals_model_ring():
    g = _grads(3, 600, integer=True)
    kw = dict(transport="superdense", bits=16, channel_fidelity=0.9935, seed=12)
    model = ring_allreduce(g, protection=protection("fec", block_length=64, correctable=4), **kw)
    real = ring_allreduce(
        g, protection=protection("fec", block_length=64, correctable=4, decoder="galois"), **kw
    )
    np.testing.assert_array_equal(real.outputs, model.outputs)
    np.testing.assert_array_equal(real.outputs, ring_allreduce(g, bits=16).outputs)
    for cur in ("online_bits", "online_qubits", "ebits", "offline_qubits", "offline_bits"):
        np.testing.assert_array_equal(real.ledger.per_link(cur), model.ledger.per_link(cur))
    assert model.link_report.rejected > 0


def test_memory_noise_in_the_ring_is_pure_dephasing():
    g = np.zeros((4, 4000), dtype=np.int64)
    res = ring_allreduce(
        g, transport="superdense", bits=16, storage_time=0.5, coherence_time=1.0, seed=3
    )
    words = res.outputs & 0xFFFF
    # z bits are the odd stream bits = odd bit positions of each 16-bit word
    assert np.any(words) and not np.any(words & 0x5555)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(protection="parity"), "protection"),
        (dict(protection=None), "protection"),
        (dict(channel_fidelity=1.5), "channel_fidelity"),
        (dict(channel_fidelity=0.2), "channel_fidelity"),
        (dict(pair_fidelity=0.5, protection="distill"), "pair_fidelity"),
        (dict(storage_time=-1.0), "storage_time"),
        (dict(storage_time=1.0, coherence_time=-2.0), "coherence_time"),
    ],
)
def test_ring_bad_input_names_argument(kwargs, name):
    g = _grads(3, 10)
    with pytest.raises(ValueError, match=name):
        ring_allreduce(g, transport="superdense", **kwargs)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(scheme="distill", rounds=-1), "rounds"),
        (dict(scheme="distill", rounds=0), "rounds"),
        (dict(scheme="fec", block_length=300), "block_length"),
        (dict(scheme="fec", block_length=5), "block_length"),
        (dict(scheme="fec", block_length=20, correctable=8), "block_length"),
        (dict(scheme="fec", decoder="viterbi"), "decoder"),
        (dict(scheme="distill", protocol="xyz"), "protocol"),
        (dict(scheme="fec", hash_bits=7), "hash_bits"),
    ],
)
def test_protection_bad_input_names_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        protection(kwargs.pop("scheme"), **kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(channel_fidelity=0.99),
        dict(protection="fec"),
        dict(storage_time=1.0, coherence_time=1.0),
    ],
)
def test_classical_transport_refuses_link_noise_and_protection(kwargs):
    with pytest.raises(ValueError, match="transport='superdense'"):
        ring_allreduce(_grads(3, 10), **kwargs)


def test_too_noisy_channel_for_the_code_names_the_symbol_error():
    with pytest.raises(ValueError, match="symbol_error"):
        ring_allreduce(
            _grads(3, 10), transport="superdense", channel_fidelity=0.8, protection="fec"
        )


# ------------------------------------------------------------------------------------------------
# Net online factor
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("P, d, bits", [(2, 7, 16), (5, 333, 12), (6, 60, 7), (8, 3, 16)])
def test_ring_link_bits_equal_the_classical_ledger(P, d, bits):
    res = ring_allreduce(_grads(P, d, integer=True), bits=bits)
    np.testing.assert_array_equal(ring_link_bits(P, d, bits), res.ledger.per_link("online_bits"))
    np.testing.assert_array_equal(net_online_factors(res), np.ones(P))


def test_noiseless_superdense_factor_is_two():
    res = ring_allreduce(_grads(4, 64, integer=True), transport="superdense", bits=16)
    assert net_online_factor(res) == 2.0
    assert net_online_factor(res, (1, 2)) == 2.0


@pytest.mark.parametrize(
    "Fp, Fc", [(None, 0.97), (None, 0.99), (None, 0.999), (0.95, 0.995), (1.0, 0.98)]
)
@pytest.mark.parametrize("scheme", ["fec", "distill+fec"])
def test_net_factor_stays_below_the_capacity_bound(Fp, Fc, scheme):
    g = _grads(4, 20_000, integer=True)
    res = ring_allreduce(
        g,
        transport="superdense",
        bits=16,
        pair_fidelity=Fp,
        channel_fidelity=Fc,
        protection=scheme,
        seed=4,
    )
    bound = res.link_report.errors.capacity()  # C_E of the symbol channel of the pairs used
    factors = net_online_factors(res)
    assert np.all(factors <= bound)
    assert net_online_factor(res) <= bound
    assert bound <= depolarizing_capacities(Fc).entanglement_assisted + 1e-12  # BSST caps all
    want = expected_net_factor(scheme, pair_fidelity=Fp, channel_fidelity=Fc)
    assert want.online <= bound
    assert np.all(np.abs(factors - want.online) < 0.02 * want.online)


def test_expected_net_factor_schemes():
    Fs = np.linspace(0.97, 1.0, 13)
    for F in Fs:
        none = expected_net_factor("none", channel_fidelity=F)
        fec = expected_net_factor("fec", channel_fidelity=F)
        assert none.online == 2.0 and not none.reliable and none.lifetime == 1.0
        assert fec.reliable and fec.online <= fec.bound
        assert none.symbol_error == pytest.approx(1 - effective_fidelity(F, F))
        dist = expected_net_factor("distill", channel_fidelity=F, rounds=2)
        assert dist.online == 2.0 and dist.lifetime < 1.0  # lifetime use grows with distillation
    # distillation helps the code when the pairs are the worse part
    a = expected_net_factor("fec", pair_fidelity=0.95, channel_fidelity=0.999)
    b = expected_net_factor("distill+fec", pair_fidelity=0.95, channel_fidelity=0.999, rounds=2)
    assert b.online > a.online and b.bound > a.bound and b.lifetime < a.lifetime
    assert b.offline_bits > 0 and a.offline_bits == 0


def test_links_imports_no_qiskit_or_galois_at_module_level():
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(links))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = {a.name.split(".")[0] for n in top for a in n.names} | {
        (n.module or "").split(".")[0] for n in top if isinstance(n, ast.ImportFrom)
    }
    assert not names & {"qiskit", "qiskit_aer", "galois", "sequence"}
