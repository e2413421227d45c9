"""The noise of a quantum link (qring_edu.noise, book/04_noisy_links.ipynb).

Pauli errors and their composition are checked against matrices; the link value against its
formulas and its validation; the capacities against the Holevo quantities of qring_edu.holevo
(an independent computation from density matrices); the one noise draw by its statistics
(stated tolerances: counts within 4 standard deviations of their binomial or negative-binomial
law) and by its determinism per message stream; ``flip_bits`` bit for bit against a plain
per-bit reference written here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qring_edu.holevo import dense_coding_capacity, holevo_chi
from qring_edu.noise import (
    PAULI_NAMES,
    Link,
    PauliErrors,
    depolarizing,
    depolarizing_capacities,
    draw_noise,
    effective_fidelity,
    flip_bits,
    memory_dephasing,
    message_rng,
)
from qring_edu.states import PAULIS, bell_state, embed_operator

SIGMAS = 4.0
MATRICES = [PAULIS[name] for name in PAULI_NAMES]  # frame-code order I, X, Z, Y


def random_errors(rng) -> PauliErrors:
    return PauliErrors(tuple(rng.dirichlet(np.ones(4))))


def bell_coefficients(rho: np.ndarray) -> np.ndarray:
    """Weights of the Bell-diagonal pair ``rho`` on (Φ+, Ψ+, Φ−, Ψ−) = P_code on A of Φ+."""
    phi = bell_state("phi+")
    out = []
    for m in MATRICES:
        v = embed_operator(m, [0], 2) @ phi
        out.append(float(np.real(v.conj() @ rho @ v)))
    return np.array(out)


def pauli_channel_on_a(rho: np.ndarray, errors: PauliErrors) -> np.ndarray:
    """``sum_c p_c P_c rho P_c`` with P_c on qubit 0 (A) of a two-qubit state."""
    out = np.zeros_like(rho)
    for p, m in zip(errors.probabilities, MATRICES):
        op = embed_operator(m, [0], 2)
        out = out + p * op @ rho @ op.conj().T
    return out


def phi_plus() -> np.ndarray:
    phi = bell_state("phi+")
    return np.outer(phi, phi.conj())


# ------------------------------------------------------------------------------------------------
# Pauli errors and their composition
# ------------------------------------------------------------------------------------------------


def test_frame_codes_multiply_like_paulis():
    # P_a P_b = phase * P_(a xor b): composing errors is XOR of frame codes
    for a in range(4):
        for b in range(4):
            prod = MATRICES[a] @ MATRICES[b]
            target = MATRICES[a ^ b]
            phase = np.trace(target.conj().T @ prod) / 2
            assert abs(abs(phase) - 1) < 1e-12
            np.testing.assert_allclose(prod, phase * target, atol=1e-12)


def test_compose_is_the_channel_composition():
    """compose() against the two Pauli channels applied one after the other to |Φ+⟩⟨Φ+|."""
    rng = np.random.default_rng(3)
    for _ in range(10):
        e1, e2 = random_errors(rng), random_errors(rng)
        rho = pauli_channel_on_a(pauli_channel_on_a(phi_plus(), e1), e2)
        np.testing.assert_allclose(e1.compose(e2).probabilities, bell_coefficients(rho), atol=1e-12)
        np.testing.assert_allclose(
            e1.compose(e2).probabilities, e2.compose(e1).probabilities, atol=1e-15
        )
    e1, e2, e3 = (random_errors(rng) for _ in range(3))
    np.testing.assert_allclose(
        e1.compose(e2).compose(e3).probabilities,
        e1.compose(e2.compose(e3)).probabilities,
        atol=1e-15,
    )
    identity = PauliErrors((1.0, 0.0, 0.0, 0.0))
    assert e1.compose(identity) == e1


def test_pauli_errors_properties_and_validation():
    e = PauliErrors((0.7, 0.1, 0.15, 0.05))
    assert e.fidelity == 0.7 and e.error_rate == pytest.approx(0.3)
    assert depolarizing(0.97).probabilities == pytest.approx((0.97, 0.01, 0.01, 0.01))
    for bad in [(0.5, 0.5, 0.1, 0.0), (1.0, 0.0, 0.0), (1.1, -0.1, 0.0, 0.0), (np.nan, 1, 0, 0)]:
        with pytest.raises(ValueError, match="probabilities"):
            PauliErrors(bad)
    with pytest.raises(ValueError, match="fidelity"):
        depolarizing(0.2)


@pytest.mark.parametrize("Fp, Fc", [(0.99, 0.99), (0.9, 0.97), (1.0, 0.8), (0.6, 1.0), (0.25, 0.5)])
def test_effective_fidelity_formula_and_composition(Fp, Fc):
    e = Link(pair_fidelity=Fp, channel_fidelity=Fc).errors
    want = Fp * Fc + (1 - Fp) * (1 - Fc) / 3
    assert e.fidelity == pytest.approx(want, abs=1e-15)
    assert effective_fidelity(Fp, Fc) == pytest.approx(want, abs=1e-15)
    # depolarising composed with depolarising stays depolarising
    assert e.probabilities[1:] == pytest.approx(((1 - want) / 3,) * 3, abs=1e-15)
    # and it is the channel composition of the two Werner errors
    np.testing.assert_allclose(
        e.probabilities, depolarizing(Fp).compose(depolarizing(Fc)).probabilities, atol=1e-15
    )


def test_a_pair_distributed_over_the_link_has_the_channel_fidelity():
    link = Link(channel_fidelity=0.99)
    assert link.pair_fidelity is None and link.pair == 0.99
    assert link.errors.fidelity == pytest.approx(0.99**2 + 0.01**2 / 3, abs=1e-15)
    assert link.errors == Link(pair_fidelity=0.99, channel_fidelity=0.99).errors


def test_symbol_errors_with_other_pairs():
    pair = PauliErrors((0.9, 0.02, 0.05, 0.03))
    link = Link(pair_fidelity=0.5, channel_fidelity=0.95)  # its own pairs are ignored
    assert link.symbol_errors(pair) == pair.compose(depolarizing(0.95))
    assert link.symbol_errors() == link.errors


def test_memory_dephasing_formula():
    e = memory_dephasing(2.0, 5.0)
    p_half = (1 - math.exp(-2.0 / 5.0)) / 2  # each half dephases
    assert e.probabilities[2] == pytest.approx(2 * p_half * (1 - p_half), abs=1e-15)
    assert e.probabilities[1] == e.probabilities[3] == 0.0
    assert memory_dephasing(0.0, 1.0).fidelity == 1.0
    assert memory_dephasing(5.0, math.inf).fidelity == 1.0
    assert memory_dephasing(1e6, 1.0).fidelity == pytest.approx(0.5)  # coherence gone
    # the link composes it between the pair and the channel
    link = Link(pair_fidelity=0.95, channel_fidelity=0.98, storage_time=2.0, coherence_time=5.0)
    want = depolarizing(0.95).compose(e).compose(depolarizing(0.98))
    np.testing.assert_allclose(link.errors.probabilities, want.probabilities, atol=1e-15)


def test_link_noiseless():
    assert Link().noiseless
    assert Link(storage_time=3.0).noiseless  # a perfect memory
    assert Link(pair_fidelity=1.0, channel_fidelity=1.0).noiseless
    assert not Link(0.99).noiseless
    assert not Link(storage_time=1.0, coherence_time=1.0).noiseless
    assert not Link(transmission=0.9).noiseless  # lost photons cost pairs


@pytest.mark.parametrize(
    "kwargs, exc, name",
    [
        (dict(pair_fidelity=1.2), ValueError, "pair_fidelity"),
        (dict(pair_fidelity=0.1), ValueError, "pair_fidelity"),
        (dict(pair_fidelity=float("nan")), ValueError, "pair_fidelity"),
        (dict(pair_fidelity="0.9"), TypeError, "pair_fidelity"),
        (dict(channel_fidelity=1.5), ValueError, "channel_fidelity"),
        (dict(channel_fidelity=0.2), ValueError, "channel_fidelity"),
        (dict(channel_fidelity=None), TypeError, "channel_fidelity"),
        (dict(storage_time=-1.0), ValueError, "storage_time"),
        (dict(storage_time=math.inf), ValueError, "storage_time"),
        (dict(coherence_time=0.0), ValueError, "coherence_time"),
        (dict(coherence_time=-2.0), ValueError, "coherence_time"),
        (dict(coherence_time=float("nan")), ValueError, "coherence_time"),
        (dict(transmission=0.0), ValueError, "transmission"),
        (dict(transmission=1.5), ValueError, "transmission"),
        (dict(transmission=True), TypeError, "transmission"),
    ],
)
def test_link_bad_input_names_the_argument(kwargs, exc, name):
    with pytest.raises(exc, match=name):
        Link(**kwargs)


def test_memory_dephasing_bad_input():
    with pytest.raises(ValueError, match="storage_time"):
        memory_dephasing(-1.0, 2.0)
    with pytest.raises(ValueError, match="coherence_time"):
        memory_dephasing(1.0, 0.0)


# ------------------------------------------------------------------------------------------------
# Capacities
# ------------------------------------------------------------------------------------------------


def test_capacities_at_09():
    c = depolarizing_capacities(0.9)
    assert round(c.classical, 4) == 0.6466
    assert round(c.entanglement_assisted, 4) == 1.3725
    assert round(c.ratio, 2) == 2.12


@pytest.mark.parametrize("F", [0.3, 0.6, 0.9, 0.99])
def test_classical_capacity_is_holevo_of_orthogonal_inputs_and_an_upper_bound(F):
    c = depolarizing_capacities(F).classical
    e = depolarizing(F)

    def channel(rho):  # the depolarising channel on one qubit
        return sum(p * m @ rho @ m.conj().T for p, m in zip(e.probabilities, MATRICES))

    outs = [channel(np.diag([1.0, 0.0]).astype(complex)), channel(np.diag([0.0, 1.0]))]
    assert holevo_chi([0.5, 0.5], outs) == pytest.approx(c, abs=1e-10)
    rng = np.random.default_rng(int(F * 100))
    for _ in range(20):  # no single-use ensemble of inputs does better
        n = rng.integers(2, 6)
        vecs = rng.standard_normal((n, 2)) + 1j * rng.standard_normal((n, 2))
        states = [channel(np.outer(v, v.conj()) / np.vdot(v, v)) for v in vecs]
        assert holevo_chi(rng.dirichlet(np.ones(n)), states) <= c + 1e-9


@pytest.mark.parametrize("F", [0.4, 0.8, 0.95, 1.0])
def test_entanglement_assisted_capacity_is_dense_coding_of_the_channel_state(F):
    # BSST: C_E = I(A;B) of (N ⊗ id)(Φ+) = the dense-coding capacity of that state
    rho = pauli_channel_on_a(phi_plus(), depolarizing(F))
    want = depolarizing_capacities(F).entanglement_assisted
    assert dense_coding_capacity(rho) == pytest.approx(want, abs=1e-10)
    # a perfect pair over the channel: the link's symbol capacity is the same number
    assert Link(pair_fidelity=1.0, channel_fidelity=F).errors.capacity() == pytest.approx(
        want, abs=1e-12
    )


def test_symbol_capacity_is_the_dense_coding_capacity_of_the_pair():
    rng = np.random.default_rng(5)
    for _ in range(5):
        e = random_errors(rng)
        rho = pauli_channel_on_a(phi_plus(), e)
        assert e.capacity() == pytest.approx(dense_coding_capacity(rho), abs=1e-10)
    assert round(Link(channel_fidelity=0.99).errors.capacity(), 3) == 1.828
    assert round(Link(channel_fidelity=0.999).errors.capacity(), 3) == 1.976
    # noisy pairs only lower the bound of a channel
    assert Link(0.95, 0.95).errors.capacity() < Link(1.0, 0.95).errors.capacity()


def test_ratio_exceeds_two_with_noise_and_tends_to_two():
    ratios = [depolarizing_capacities(F).ratio for F in np.linspace(0.3, 0.999, 50)]
    assert all(r > 2 for r in ratios)
    assert depolarizing_capacities(1.0).ratio == 2.0
    assert depolarizing_capacities(0.9999).ratio < ratios[-1]


@pytest.mark.parametrize("F", [1.0, 0.99, 0.9])
@pytest.mark.parametrize("eta", [1.0, 0.7, 0.5, 0.1])
def test_loss_scales_both_capacities_by_eta(F, eta):
    lossless, lossy = depolarizing_capacities(F), depolarizing_capacities(F, transmission=eta)
    assert lossy.classical == pytest.approx(eta * lossless.classical, abs=1e-15)
    assert lossy.entanglement_assisted == pytest.approx(
        eta * lossless.entanglement_assisted, abs=1e-15
    )
    if F == 1.0:  # a noiseless lossy link: C_E = 2 eta, break-even with one bit at eta = 1/2
        assert lossy.entanglement_assisted == pytest.approx(2 * eta)
        assert (lossy.entanglement_assisted > 1.0) == (eta > 0.5)


def test_capacities_bad_input():
    with pytest.raises(ValueError, match="channel_fidelity"):
        depolarizing_capacities(0.1)
    with pytest.raises(ValueError, match="transmission"):
        depolarizing_capacities(0.9, transmission=0.0)


# ------------------------------------------------------------------------------------------------
# The noise draw
# ------------------------------------------------------------------------------------------------

LINKS = [
    Link(pair_fidelity=0.9),
    Link(channel_fidelity=0.97),
    Link(pair_fidelity=0.99, storage_time=1.0, coherence_time=4.0),  # not depolarising
    Link(pair_fidelity=0.6, channel_fidelity=0.8),
]


def within(count: float, mean: float, var: float, sigmas: float = SIGMAS) -> bool:
    return abs(count - mean) <= sigmas * math.sqrt(var) + 1e-9


@pytest.mark.parametrize("link", LINKS, ids=repr)
def test_error_count_and_paulis_follow_the_link(link):
    """Over 50 messages of 20 000 symbols: erring symbols within 4 s.d. of n(1 - p_I); among
    them X, Z, Y within 4 s.d. of their conditional multinomial law."""
    e = link.errors
    p = np.array(e.probabilities)
    root = np.random.SeedSequence(11)
    n, messages = 20_000, 50
    k_total, codes = 0, np.zeros(4, dtype=np.int64)
    for step in range(messages):
        noise = draw_noise(n, e, message_rng(root, step, 0))
        assert noise.sent == n
        assert noise.positions.size == noise.codes.size
        assert np.all(np.diff(noise.positions) > 0)  # distinct symbols, ascending
        assert noise.positions.size == 0 or (
            noise.positions.min() >= 0 and noise.positions.max() < n
        )
        k_total += noise.positions.size
        codes += np.bincount(noise.codes, minlength=4)
    N, q = n * messages, 1 - p[0]
    assert within(k_total, N * q, N * q * (1 - q))
    assert codes[0] == 0
    for c in (1, 2, 3):
        share = p[c] / q
        if share == 0:
            assert codes[c] == 0
        else:
            assert within(codes[c], k_total * share, k_total * share * (1 - share))


def test_symbols_err_independently_and_uniformly():
    """The erring symbols behave as independent symbols: adjacent symbols both err
    with probability q² (4 s.d.), and the positions fill every tenth of the message alike
    (chi-squared, 9 degrees of freedom, level 1e-4)."""
    from scipy import stats

    e, n = depolarizing(0.8), 10_000
    q = e.error_rate
    both, hist = 0, np.zeros(10)
    for step in range(100):
        noise = draw_noise(n, e, message_rng(np.random.SeedSequence(2), step, 3))
        hit = np.zeros(n, dtype=bool)
        hit[noise.positions] = True
        both += int(np.sum(hit[1:] & hit[:-1]))
        hist += np.bincount(noise.positions * 10 // n, minlength=10)
    pairs = 100 * (n - 1)
    # adjacent pairs overlap, so the variance is at most 3 pairs * q²(1 - q²) each
    assert within(both, pairs * q**2, 3 * pairs * q**2 * (1 - q**2))
    assert stats.chisquare(hist).pvalue > 1e-4


def test_messages_draw_independent_noise():
    """Error counts of neighbouring (step, sender) streams are uncorrelated: Pearson r within
    4 / sqrt(N) of 0 over a grid of 40 x 40 messages."""
    e, n = depolarizing(0.9), 2000
    root = np.random.SeedSequence(7)
    K = np.array(
        [
            [draw_noise(n, e, message_rng(root, s, k)).positions.size for k in range(40)]
            for s in range(40)
        ],
        dtype=float,
    )
    for a, b in [(K[:, :-1], K[:, 1:]), (K[:-1, :], K[1:, :]), (K, K.T)]:
        r = np.corrcoef(a.ravel(), b.ravel())[0, 1]
        assert abs(r) < SIGMAS / math.sqrt(a.size), r
    assert within(K.sum(), K.size * n * 0.1, K.size * n * 0.1 * 0.9)


def test_message_streams_are_determined_by_seed_step_and_sender():
    e = depolarizing(0.9)
    root = np.random.SeedSequence(5)

    def draw(root, step, sender):
        noise = draw_noise(5000, e, message_rng(root, step, sender))
        return noise.positions.tolist(), noise.codes.tolist()

    assert draw(root, 3, 2) == draw(np.random.SeedSequence(5), 3, 2)
    others = [draw(root, 2, 3), draw(root, 3, 1), draw(root, 4, 2), draw(root, 2, 2)]
    others.append(draw(np.random.SeedSequence(6), 3, 2))
    assert all(o != draw(root, 3, 2) for o in others)
    # a child root (spawn_key) names its own streams
    child = root.spawn(1)[0]
    assert draw(child, 3, 2) != draw(root, 3, 2)
    assert draw(child, 3, 2) == draw(np.random.SeedSequence(5, spawn_key=(0,)), 3, 2)


@pytest.mark.parametrize("eta", [0.9, 0.5, 0.2])
def test_lost_photons_follow_the_negative_binomial(eta):
    """sent - n ~ NegativeBinomial(n, eta): mean n(1 - eta)/eta, variance n(1 - eta)/eta²."""
    n, messages = 1000, 200
    lost = [
        draw_noise(n, depolarizing(1.0), message_rng(np.random.SeedSequence(3), s, 0), eta).sent - n
        for s in range(messages)
    ]
    total = float(np.sum(lost))
    N = n * messages
    assert within(total, N * (1 - eta) / eta, N * (1 - eta) / eta**2)
    assert min(lost) >= 0


def test_noiseless_and_empty_draws():
    rng = np.random.default_rng(0)
    noise = draw_noise(1000, depolarizing(1.0), rng)
    assert noise.sent == 1000 and noise.positions.size == 0 and noise.codes.size == 0
    assert draw_noise(0, depolarizing(0.5), rng, 0.5).sent == 0
    every = draw_noise(500, PauliErrors((0.0, 0.5, 0.5, 0.0)), rng)
    assert sorted(every.positions.tolist()) == list(range(500))
    assert set(every.codes.tolist()) == {1, 2}


def test_draw_noise_bad_input():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n_symbols"):
        draw_noise(-1, depolarizing(0.9), rng)
    with pytest.raises(TypeError, match="errors"):
        draw_noise(10, 0.9, rng)
    with pytest.raises(ValueError, match="transmission"):
        draw_noise(10, depolarizing(0.9), rng, 0.0)


# ------------------------------------------------------------------------------------------------
# flip_bits: Paulis to bit flips
# ------------------------------------------------------------------------------------------------


def reference_flip(words: np.ndarray, bits: int, positions, codes) -> np.ndarray:
    """Bit by bit: stream bit p is bit p % b of word p // b; X or Y flips bit 2j, Z or Y flips
    bit 2j + 1; a bit past the stream (the padding of an odd stream) does not exist."""
    stream = [(int(words[p // bits]) >> (p % bits)) & 1 for p in range(words.size * bits)]
    for j, c in zip(positions, codes):
        for bit, flips in ((2 * j, c & 1), (2 * j + 1, c & 2)):
            if flips and bit < len(stream):
                stream[bit] ^= 1
    out = np.zeros_like(words)
    for p, v in enumerate(stream):
        out[p // bits] |= words.dtype.type(v << (p % bits))
    return out


@given(
    bits=st.integers(2, 32),
    n_words=st.integers(1, 40),
    data=st.data(),
)
def test_flip_bits_matches_the_per_bit_reference(bits, n_words, data):
    n_symbols = (n_words * bits + 1) // 2
    positions = data.draw(st.sets(st.integers(0, n_symbols - 1), max_size=n_symbols))
    positions = np.array(sorted(positions), dtype=np.int64)
    data.draw(st.randoms()).shuffle(positions)  # any order
    codes = np.array(
        data.draw(st.lists(st.integers(1, 3), min_size=positions.size, max_size=positions.size)),
        dtype=np.uint8,
    )
    seed = data.draw(st.integers(0, 2**32 - 1))
    words = np.random.default_rng(seed).integers(0, 1 << bits, n_words, dtype=np.uint64)
    words = words.astype(np.uint32)
    want = reference_flip(words, bits, positions.tolist(), codes.tolist())
    got = words.copy()
    flip_bits(got, bits, positions, codes)
    np.testing.assert_array_equal(got, want)


def test_flip_bits_bit_order_by_hand():
    # 16-bit words: symbol j is bits 2j (x) and 2j+1 (z) of the stream
    w = np.zeros(2, dtype=np.uint32)
    flip_bits(w, 16, np.array([0, 9]), np.array([1, 2]))  # X on symbol 0, Z on symbol 9
    assert w.tolist() == [1, 1 << 3]  # stream bit 0; stream bit 19 = bit 3 of word 1
    # 3-bit words: symbol 1 straddles (stream bits 2, 3 = bit 2 of word 0, bit 0 of word 1)
    w = np.zeros(2, dtype=np.uint32)
    flip_bits(w, 3, np.array([1]), np.array([3]))
    assert w.tolist() == [0b100, 0b001]
    # one 3-bit word: 2 symbols, symbol 1's z bit is the padding bit, which does not exist
    w = np.zeros(1, dtype=np.uint32)
    flip_bits(w, 3, np.array([1]), np.array([2]))
    assert w.tolist() == [0]
    flip_bits(w, 3, np.array([1]), np.array([3]))
    assert w.tolist() == [0b100]
    # the full-width word
    w = np.zeros(1, dtype=np.uint32)
    flip_bits(w, 32, np.array([15]), np.array([3]))
    assert w.tolist() == [0b11 << 30]


def test_flip_bits_on_a_bit_array():
    # superdense_send's use: uint8 0/1 entries, one bit per word; an odd stream drops its padding
    bits = np.zeros(7, dtype=np.uint8)
    flip_bits(bits, 1, np.array([3, 0, 2]), np.array([2, 3, 1]))
    assert bits.tolist() == [1, 1, 0, 0, 1, 0, 0]  # symbol 3's z would be bit 7: padding
    ones = np.ones(8, dtype=np.uint8)
    flip_bits(ones, 1, np.array([1, 2]), np.array([3, 2]))
    assert ones.tolist() == [1, 1, 0, 0, 1, 0, 1, 1]


def test_flip_bits_applies_a_noise_draw():
    """The draw and the flip together: every flipped bit belongs to an erring symbol, and an
    erring symbol changes exactly the bits its Pauli names."""
    for bits in (5, 16):
        words = np.random.default_rng(bits).integers(0, 1 << bits, 3001).astype(np.uint32)
        n = (words.size * bits + 1) // 2
        noise = draw_noise(n, depolarizing(0.7), np.random.default_rng(bits + 1))
        got = words.copy()
        flip_bits(got, bits, noise.positions, noise.codes)
        want = reference_flip(words, bits, noise.positions.tolist(), noise.codes.tolist())
        np.testing.assert_array_equal(got, want)
