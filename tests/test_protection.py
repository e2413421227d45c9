"""Error protection of a superdense link (qring_edu.protection, book/04_noisy_links.ipynb).

The code choice is checked against SciPy's binomial tail, the fast model of the Reed–Solomon
decoder against the real decoder of ``galois`` (the same blocks accepted, the same counts), the
checksum against its universality bound (within 5 standard deviations of 2^-h), and the
closed-form factors against the numbers the chapter states. Statistical checks use fixed seeds
and state their tolerance.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from qring_edu.distillation import distill
from qring_edu.noise import Link, depolarizing
from qring_edu.protection import (
    DECODERS,
    FEC,
    SCHEMES,
    Distill,
    FECCode,
    Protection,
    ProtectionReport,
    byte_error,
    classical_byte_error,
    expected_net_factor,
    fec_code,
    fec_transmit,
    protection,
    toeplitz_hash,
)
from qring_edu.ring import ring_allreduce

# ------------------------------------------------------------------------------------------------
# Reed–Solomon code choice
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n, t, p", [(255, 17, 0.07), (64, 10, 0.2), (30, 3, 1e-4), (255, 0, 0.0)])
def test_failure_probability_is_the_binomial_tail(n, t, p):
    code = FECCode(n=n, t=t, hash_bits=8)
    assert code.failure_probability(p) == pytest.approx(
        stats.binom.sf(t, n, p), rel=1e-9, abs=1e-300
    )
    assert FECCode(n=17, t=3, hash_bits=8).failure_probability(1.0) == 1.0


def test_byte_error_rates():
    assert byte_error(depolarizing(0.99)) == pytest.approx(1 - 0.99**4)  # four symbols a byte
    # classical bits over the same channel: X or Y flips a bit, 2(1 - F)/3, eight bits a byte
    assert classical_byte_error(0.99) == pytest.approx(1 - (1 - 0.02 / 3) ** 8)


@pytest.mark.parametrize("p, n", [(0.077, 255), (0.008, 255), (0.04, 100), (0.18, 255)])
@pytest.mark.parametrize("uses", [4, 8])
def test_fec_code_maximises_the_expected_factor(p, n, uses):
    code = fec_code(p, block_length=n, uses_per_byte=uses)

    def factor(t):
        data = n - 2 * t - 8
        return 8 * data * (1 - stats.binom.sf(t, n, p)) / (uses * n + 1) if data > 0 else 0

    best = max(range((n - 9) // 2 + 1), key=factor)
    assert code.t == best and code.n == n and code.hash_bits == 64
    assert code.net_factor(p, uses) == pytest.approx(factor(best), rel=1e-9)
    assert code.k == n - 2 * code.t and code.data_bytes == code.k - 8
    assert code.overhead_bytes == 8 + 2 * code.t and code.rate == code.data_bytes / n


def test_fec_factors_at_the_chapter_fidelities():
    for F, target in ((0.99, 1.4), (0.999, 1.8)):
        e = Link(channel_fidelity=F).errors
        code = fec_code(byte_error(e))
        assert target <= code.net_factor(byte_error(e)) < e.capacity()


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(block_length=256), "block_length"),
        (dict(block_length=8), "block_length"),
        (dict(block_length=40, correctable=16), "correctable"),
        (dict(hash_bits=12), "hash_bits"),
        (dict(hash_bits=0), "hash_bits"),
        (dict(correctable=-1), "correctable"),
        (dict(uses_per_byte=0), "uses_per_byte"),
    ],
)
def test_fec_code_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        fec_code(0.01, **kwargs)


def test_fec_code_refuses_a_hopeless_stream():
    for p in (0.7, 0.9):
        with pytest.raises(ValueError, match="byte_error"):
            fec_code(p)
    with pytest.raises(ValueError, match="byte_error"):
        fec_code(1.0)


# ------------------------------------------------------------------------------------------------
# The checksum
# ------------------------------------------------------------------------------------------------


def test_toeplitz_hash_is_linear_and_almost_xor_universal():
    rng = np.random.default_rng(2)
    data = rng.integers(0, 256, 40, dtype=np.uint8)
    delta = np.zeros(40, dtype=np.uint8)
    delta[[3, 17]] = [5, 200]
    key = rng.integers(0, 2, 8 + 8 * 40 - 1)
    np.testing.assert_array_equal(
        toeplitz_hash(data ^ delta, key, 8),
        toeplitz_hash(data, key, 8) ^ toeplitz_hash(delta, key, 8),
    )
    # for a fixed nonzero delta and target, a random key collides with probability 2^-8
    hits, trials = 0, 20_000
    target = np.array([0x5A], dtype=np.uint8)
    for _ in range(trials):
        k = rng.integers(0, 2, 8 + 8 * 40 - 1)
        hits += bool(np.array_equal(toeplitz_hash(delta, k, 8), target))
    p = 2.0**-8
    assert abs(hits - trials * p) < 5 * math.sqrt(trials * p)


def test_toeplitz_hash_matrix_by_hand():
    # T[i, j] = key[i - j + m - 1], m = 8 data bits, 8 hash bits: key bits 0..14
    identity = np.zeros(8 + 8 - 1, dtype=np.int64)
    identity[7] = 1  # T[i, j] = 1 iff i = j: the hash is the data byte
    for byte in (0b01, 0b10, 0xA5):
        assert toeplitz_hash(np.array([byte], dtype=np.uint8), identity, 8).tolist() == [byte]
    shift = np.zeros(8 + 8 - 1, dtype=np.int64)
    shift[6] = 1  # T[i, i + 1] = 1: hash bit i is data bit i + 1
    assert toeplitz_hash(np.array([0b110], dtype=np.uint8), shift, 8).tolist() == [0b011]


# ------------------------------------------------------------------------------------------------
# The fast model against the real decoder
# ------------------------------------------------------------------------------------------------


def _payload(rng, n):
    return rng.integers(0, 256, n, dtype=np.uint8)


@pytest.mark.usefixtures("one_numba_thread")
@pytest.mark.parametrize(
    "n, t, F, n_bytes", [(64, 4, 0.9935, 3000), (255, 30, 0.985, 8000), (40, 0, 0.9995, 3000)]
)
def test_galois_decoder_accepts_exactly_the_blocks_the_model_accepts(n, t, F, n_bytes):
    code = FECCode(n=n, t=t)
    errors = Link(channel_fidelity=F).errors
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
    assert model.received is None


@pytest.mark.usefixtures("one_numba_thread")
def test_miscorrections_happen_and_the_checksum_bound_holds():
    """With t = 1, blocks with more errors are often *miscorrected* by the decoder; the
    checksum alone rejects them, and an 8-bit checksum lets through at most 2^-8 of the
    rejections (on average over the noise and fresh keys; 5 s.d. of slack)."""
    import galois

    rs = galois.ReedSolomon(255, 253)
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

    code = FECCode(n=32, t=1, hash_bits=8)
    errors = Link(channel_fidelity=0.9936).errors  # about half the blocks have > 1 byte error
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
    assert rejected > 200
    assert wrong_blocks <= bound + 5 * math.sqrt(bound)


def test_fec_transmit_counts():
    code = FECCode(n=255, t=10)
    out = fec_transmit(10_000, code, depolarizing(1.0), np.random.default_rng(0))
    full, rest = divmod(10_000, code.data_bytes)
    assert out.blocks == full + 1 and out.rejected == 0 and out.rounds == 1
    assert out.qubits == 4 * (10_000 + out.blocks * code.overhead_bytes)
    assert out.ack_bits == out.blocks == out.transmissions
    empty = fec_transmit(0, code, depolarizing(0.99), np.random.default_rng(0))
    assert empty.blocks == empty.qubits == 0
    # over a noisy link: every transmission is one block, 4 qubits a byte, one ack each
    noisy = fec_transmit(50_000, fec_code(0.077), depolarizing(0.98), np.random.default_rng(1))
    assert noisy.transmissions == noisy.blocks + noisy.rejected == noisy.ack_bits
    assert noisy.rejected > 0 and noisy.rounds > 1


def test_fec_transmit_refuses_what_it_cannot_finish():
    with pytest.raises(ValueError, match="correctable"):  # rejects nearly every block
        fec_transmit(1000, FECCode(n=255, t=0), depolarizing(0.5), np.random.default_rng(0))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="galois"):
        fec_transmit(10, FECCode(n=64, t=2), depolarizing(0.99), rng, payload=np.zeros(10))
    with pytest.raises(ValueError, match="decoder"):
        fec_transmit(10, FECCode(n=64, t=2), depolarizing(0.99), rng, decoder="viterbi")
    with pytest.raises(ValueError, match="payload"):
        fec_transmit(10, FECCode(n=64, t=2), depolarizing(0.99), rng, decoder="galois")


# ------------------------------------------------------------------------------------------------
# Schemes as values
# ------------------------------------------------------------------------------------------------


def test_scheme_values_and_shorthand():
    assert SCHEMES == ("none", "distill", "fec", "distill+fec") and DECODERS == ("model", "galois")
    for name in SCHEMES:
        assert protection(name).scheme == name
    assert protection("distill+fec") == Protection(distill=Distill(), fec=FEC())
    p = Protection(fec=FEC(block_length=64, correctable=4))
    assert protection(p) is p
    assert Protection().scheme == "none"
    assert FEC().code(0.0) == FECCode(n=255, t=0)
    assert FEC(block_length=64, correctable=4).code(0.3) == FECCode(n=64, t=4)
    assert Distill(rounds=2).of(Link(0.9)) == distill(0.9, rounds=2)
    assert Distill().of(Link(channel_fidelity=0.9)) == distill(0.9)  # pairs over the channel


@pytest.mark.parametrize(
    "call, exc, name",
    [
        (lambda: protection("parity"), ValueError, "protection"),
        (lambda: protection(None), ValueError, "protection"),
        (lambda: Protection(distill="yes"), TypeError, "distill"),
        (lambda: Protection(fec=FECCode(n=255, t=4)), TypeError, "fec"),
        (lambda: FEC(block_length=300), ValueError, "block_length"),
        (lambda: FEC(block_length=5), ValueError, "block_length"),
        (lambda: FEC(block_length=20, correctable=8), ValueError, "correctable"),
        (lambda: FEC(decoder="viterbi"), ValueError, "decoder"),
        (lambda: FEC(hash_bits=7), ValueError, "hash_bits"),
        (lambda: FEC(correctable=1.5), TypeError, "correctable"),
        (lambda: Distill(rounds=0), ValueError, "rounds"),
        (lambda: Distill(protocol="xyz"), ValueError, "protocol"),
        (lambda: Distill().of(Link(0.5)), ValueError, "pair_fidelity"),
        (lambda: Distill().of(Link(channel_fidelity=0.45)), ValueError, "channel_fidelity"),
        (lambda: expected_net_factor("fec", link=0.99), TypeError, "link"),
        (lambda: expected_net_factor("ecc"), ValueError, "protection"),
    ],
)
def test_bad_input_names_the_argument(call, exc, name):
    with pytest.raises(exc, match=name):
        call()


# ------------------------------------------------------------------------------------------------
# Expected factors on a long message
# ------------------------------------------------------------------------------------------------


def test_the_chapter_numbers_at_channel_fidelity_099():
    """Pairs distributed over the link at F_ch = 0.99: the coded superdense stream delivers
    ≈ 1.461 payload bits per online use, the same code as classical bits over the same channel
    ≈ 0.792, an advantage ≈ 1.85; both below their capacities."""
    nf = expected_net_factor("fec", link=Link(channel_fidelity=0.99))
    assert round(nf.online, 3) == 1.461
    assert round(nf.classical, 3) == 0.792
    assert round(nf.advantage, 2) == 1.85
    assert nf.reliable and nf.online <= nf.bound
    assert nf.bound == pytest.approx(Link(channel_fidelity=0.99).errors.capacity())
    assert nf.classical < 1 - stats.entropy([1 - 0.02 / 3, 0.02 / 3], base=2)  # Shannon


def test_break_even_points():
    """Against the classical baseline on the same channel between F = 0.94 and 0.95; against
    noiseless classical bits (factor 1) near F = 0.975."""
    adv = {
        F: expected_net_factor("fec", link=Link(channel_fidelity=F)).advantage for F in (0.94, 0.95)
    }
    assert adv[0.94] < 1 < adv[0.95]
    online = {
        F: expected_net_factor("fec", link=Link(channel_fidelity=F)).online
        for F in (0.974, 0.975, 0.976)
    }
    assert online[0.974] < 1 < online[0.976]
    assert online[0.975] == pytest.approx(1.0, abs=0.01)


def test_distill_then_code_lifetime_counts_the_announcements():
    link = Link(pair_fidelity=0.95, channel_fidelity=0.999)
    scheme = Protection(distill=Distill(rounds=3), fec=FEC())
    nf = expected_net_factor(scheme, link=link)
    assert round(nf.lifetime, 2) == 0.07
    d = distill(0.95, rounds=3)
    # online payload over (online photons) x (1 + raw pairs + announced bits per pair) + acks
    code = nf.code
    q = code.failure_probability(byte_error(link.symbol_errors(d.errors)))
    payload = 8 * code.data_bytes * (1 - q)
    photons = 4 * code.n
    assert nf.lifetime == pytest.approx(
        payload / (photons * (1 + d.raw_pairs_per_pair + d.offline_bits_per_pair) + 1)
    )
    assert nf.online == pytest.approx(payload / (photons + 1))
    # without counting the announcements it would be much larger
    assert payload / (photons * (1 + d.raw_pairs_per_pair) + 1) > 1.5 * nf.lifetime
    # distillation helps the code where the pairs are the worse part
    plain = expected_net_factor("fec", link=link)
    assert nf.online > plain.online and nf.bound > plain.bound and nf.lifetime < plain.lifetime


def test_unreliable_schemes():
    for F in np.linspace(0.97, 1.0, 7):
        link = Link(channel_fidelity=F)
        none = expected_net_factor("none", link=link)
        assert none.online == 2.0 and none.lifetime == 1.0 and not none.reliable
        assert none.classical == 1.0 and none.advantage == 2.0
        assert none.symbol_error == pytest.approx(link.errors.error_rate)
        dist = expected_net_factor(Protection(distill=Distill(rounds=2)), link=link)
        assert dist.online == 2.0 and dist.lifetime < 1.0 and not dist.reliable


@pytest.mark.parametrize("eta", [1.0, 0.8, 0.5])
def test_loss_in_the_expected_factors(eta):
    none = expected_net_factor("none", link=Link(transmission=eta))
    assert none.online == pytest.approx(2 * eta)
    assert none.lifetime == pytest.approx(2 * eta / (1 + 1 / eta))
    assert none.bound == pytest.approx(2 * eta)
    fec = expected_net_factor("fec", link=Link(channel_fidelity=0.99, transmission=eta))
    lossless = expected_net_factor("fec", link=Link(channel_fidelity=0.99))
    code = fec.code
    q = code.failure_probability(byte_error(Link(channel_fidelity=0.99).errors))
    assert fec.online == pytest.approx(8 * code.data_bytes * (1 - q) / (4 * code.n / eta + 1))
    assert fec.online == pytest.approx(eta * lossless.online, rel=0.01)
    assert fec.classical == lossless.classical  # a bright classical pulse is not erased


def test_classical_baseline_that_no_code_carries_is_zero():
    # perfect pairs over a channel of 0.88: the superdense stream can be coded, classical bits
    # (byte error 0.49) cannot with a 255-byte block
    nf = expected_net_factor("fec", link=Link(pair_fidelity=1.0, channel_fidelity=0.88))
    assert nf.online > 0 and nf.classical == 0.0 and nf.advantage == math.inf


# ------------------------------------------------------------------------------------------------
# The report of a protected ring
# ------------------------------------------------------------------------------------------------


def test_undetected_bound_of_the_report():
    """The bound's rejection term blocks q/(1-q) is at least the mean realised rejections of
    runs (within 4 standard errors), so the bound covers 2^-h times what happened; at most 1;
    1 without a code on a noisy link, 0 on a perfect one."""
    g = np.random.default_rng(0).integers(-1000, 1000, size=(4, 8000))
    link = Link(channel_fidelity=0.97)
    rejected, bounds = [], []
    for seed in range(8):
        res = ring_allreduce(
            g, transport="superdense", channel_fidelity=0.97, protection="fec", seed=seed
        )
        rep = res.link_report
        assert isinstance(rep, ProtectionReport)
        rejected.append(rep.rejected)
        bounds.append(rep.undetected_bound)
        assert rep.undetected_bound <= 1.0
        assert rep.errors == link.errors and rep.code == FEC().code(byte_error(link.errors))
    rep_code, blocks = rep.code, rep.blocks
    q = rep_code.failure_probability(byte_error(link.errors))
    expected = blocks * q / (1 - q)
    assert bounds[0] == pytest.approx(expected * 2.0**-rep_code.hash_bits)
    r = np.array(rejected, dtype=float)
    assert r.mean() <= expected + 4 * r.std(ddof=1) / math.sqrt(r.size)
    assert r.mean() > 0
    noisy = ring_allreduce(g, transport="superdense", pair_fidelity=0.99, seed=1)
    assert noisy.link_report is None  # no protection
    dist = ring_allreduce(
        g, transport="superdense", pair_fidelity=0.99, protection="distill", seed=1
    )
    assert dist.link_report.undetected_bound == 1.0
    clean = ring_allreduce(g, transport="superdense", protection="distill", seed=1)
    assert clean.link_report.undetected_bound == 0.0


@pytest.mark.parametrize("module", ["protection", "distillation", "superdense", "noise"])
def test_optional_simulators_are_imported_inside_functions_only(module):
    """galois and Qiskit are imported by the functions that use them, never at module level
    (``import qring_edu`` needs NumPy and SciPy only)."""
    import ast
    import importlib
    import inspect

    tree = ast.parse(inspect.getsource(importlib.import_module(f"qring_edu.{module}")))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = {a.name.split(".")[0] for n in top for a in n.names} | {
        (n.module or "").split(".")[0] for n in top if isinstance(n, ast.ImportFrom)
    }
    assert not names & {"qiskit", "qiskit_aer", "galois", "stim"}
