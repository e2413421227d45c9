"""Ring all-reduce, classical and superdense transports (qring_edu.ring, book/01_bottleneck.ipynb, book/03_superdense_ring.ipynb).

Every expected value here is computed independently of the implementation: modular sums with
Python integers, the schedule's meaning by a synchronous symbolic simulation, per-link channel use
by summing chunk sizes over the messages each worker sends, and the noise statistics from the
Pauli model of book/03_superdense_ring.ipynb.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from qring_edu import costmodel
from qring_edu.ring import chunk_bounds, ring_allreduce, ring_schedule

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64]


def py_signed(v: int, bits: int) -> int:
    r = v % (1 << bits)
    return r - (1 << bits) if r >= 1 << (bits - 1) else r


def python_modular_sum(grads: np.ndarray, bits: int) -> list[int]:
    """Column sums with unbounded Python ints, reduced to signed `bits`-bit words."""
    P, d = grads.shape
    return [py_signed(sum(int(grads[k, j]) for k in range(P)), bits) for j in range(d)]


def chunk_sizes(d: int, P: int) -> list[int]:
    bounds = chunk_bounds(d, P)
    return [int(bounds[c + 1] - bounds[c]) for c in range(P)]


# ------------------------------------------------------------------------------------------------
# Integer sums: exact modulo 2**bits on every worker
# ------------------------------------------------------------------------------------------------


@st.composite
def int_grads(draw, max_P=16, max_d=24):
    P = draw(st.integers(2, max_P))
    d = draw(st.integers(1, max_d))
    dtype = draw(st.sampled_from(INT_DTYPES))
    return draw(hnp.arrays(dtype, (P, d)))


@given(
    grads=int_grads(),
    bits=st.integers(2, 32),
    transport=st.sampled_from(["classical", "superdense"]),
)
def test_integer_ring_equals_modular_sum(grads, bits, transport):
    res = ring_allreduce(grads, transport=transport, bits=bits)
    P, d = grads.shape
    want = np.array(python_modular_sum(grads, bits), dtype=np.int64)
    assert res.outputs.shape == (P, d)
    assert res.outputs.dtype == np.int64
    for k in range(P):  # every worker's copy is the sum
        np.testing.assert_array_equal(res.outputs[k], want)
    assert res.consistent
    assert res.error_bound is None


@given(grads=int_grads(), bits=st.integers(2, 32))
def test_superdense_at_unit_fidelity_is_bit_identical_to_classical(grads, bits):
    a = ring_allreduce(grads, transport="classical", bits=bits)
    b = ring_allreduce(grads, transport="superdense", bits=bits, pair_fidelity=1.0, seed=3)
    assert np.array_equal(a.outputs, b.outputs)
    assert a.outputs.dtype == b.outputs.dtype


def test_values_beyond_word_range_wrap():
    # 8-bit words: 200 + 100 = 300 = 44 (mod 256); -300 + 0 = -300 = -44 (mod 256).
    grads = np.array([[200, -300, 2**40 + 5], [100, 0, -(2**40)]], dtype=np.int64)
    res = ring_allreduce(grads, bits=8)
    assert res.outputs[0].tolist() == [44, -44, 5]
    assert res.outputs[1].tolist() == [44, -44, 5]


@pytest.mark.parametrize("P", range(2, 17))
def test_every_P_including_d_below_P(P):
    rng = np.random.default_rng(P)
    for d in sorted({1, P - 1 or 1, P, P + 1, 3 * P + 2}):
        grads = rng.integers(-(2**40), 2**40, size=(P, d))
        for bits in (2, 7, 16, 32):
            want = np.array(python_modular_sum(grads, bits))
            for transport in ("classical", "superdense"):
                out = ring_allreduce(grads, transport=transport, bits=bits).outputs
                assert (out == want).all(), (P, d, bits, transport)


# ------------------------------------------------------------------------------------------------
# Float sums: fixed point, error <= P / (2 s), identical copies
# ------------------------------------------------------------------------------------------------


@st.composite
def float_grads(draw, max_P=16, max_d=24):
    P = draw(st.integers(2, max_P))
    d = draw(st.integers(1, max_d))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    mag = draw(st.sampled_from([2.0**-10, 1.0, 2.0**14]))  # exact in float32
    grads = draw(hnp.arrays(dtype, (P, d), elements=st.floats(-mag, mag, width=32)))
    bits = draw(st.integers(2, 32).filter(lambda b: (1 << (b - 1)) - 1 >= P))
    return grads, bits


@given(
    case=float_grads(),
    transport=st.sampled_from(["classical", "superdense"]),
    explicit_max=st.booleans(),
)
def test_float_ring_error_within_documented_bound(case, transport, explicit_max):
    grads, bits = case
    P, d = grads.shape
    largest = float(np.max(np.abs(grads)))
    max_abs = (2.0 * largest + 0.5) if explicit_max else (largest if largest > 0 else 1.0)
    res = ring_allreduce(
        grads, transport=transport, bits=bits, max_abs=max_abs if explicit_max else None
    )
    # The documented code: integer cap per worker, s = cap / max_abs.
    cap = ((1 << (bits - 1)) - 1) // P
    s = cap / max_abs
    bound = P / (2 * s)
    assert res.error_bound == pytest.approx(bound, rel=1e-12)
    true = grads.astype(np.float64).sum(axis=0)
    # Outputs are float64 whatever the input width, so the fixed-point bound holds for every
    # word size; the only slack is float64 rounding of the decode and of the reference sum.
    assert res.outputs.dtype == np.float64
    err = np.abs(res.outputs - true)
    assert np.all(err <= bound * (1 + 1e-9) + 4 * np.finfo(np.float64).eps * np.abs(true))
    assert res.consistent
    for k in range(1, P):
        assert np.array_equal(res.outputs[k], res.outputs[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("P,bits", [(2, 32), (2, 3), (4, 4), (8, 16), (16, 32), (7, 11)])
def test_float_worst_case_all_workers_at_max_abs(P, bits, dtype):
    """The reason for the integer cap: P workers at +-max_abs must not wrap around."""
    for sign in (1.0, -1.0):
        grads = np.full((P, 5), sign * 0.3, dtype=dtype)
        res = ring_allreduce(grads, bits=bits)
        true = sign * P * float(dtype(0.3))
        assert np.all(np.sign(res.outputs) == sign)
        assert np.all(np.abs(res.outputs - true) <= res.error_bound * (1 + 1e-6) + 1e-6 * abs(true))


def test_all_zero_floats():
    res = ring_allreduce(np.zeros((3, 4)), bits=8)
    assert np.array_equal(res.outputs, np.zeros((3, 4)))


# ------------------------------------------------------------------------------------------------
# The schedule
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("P", range(2, 17))
def test_schedule_shape(P):
    sched = ring_schedule(P)
    assert len(sched) == 2 * (P - 1) * P
    assert sorted({m.step for m in sched}) == list(range(2 * (P - 1)))
    for step in range(2 * (P - 1)):
        msgs = [m for m in sched if m.step == step]
        assert sorted(m.sender for m in msgs) == list(range(P))  # every worker sends once
        assert all(m.receiver == (m.sender + 1) % P for m in msgs)  # only to its successor
        phase = "reduce-scatter" if step < P - 1 else "all-gather"
        assert all(m.phase == phase for m in msgs)
    # book/01_bottleneck.ipynb chunk formulas
    for m in sched:
        if m.phase == "reduce-scatter":
            assert m.chunk == (m.sender - m.step) % P
        else:
            assert m.chunk == (m.sender + 1 - (m.step - (P - 1))) % P


@pytest.mark.parametrize("P", range(2, 17))
def test_schedule_semantics_synchronous_simulation(P):
    """Simulate the schedule symbolically with simultaneous sends per step.

    held[k][c] is the set of workers whose chunk c is summed into worker k's copy.
    """
    held = [[frozenset({k}) for _ in range(P)] for k in range(P)]
    sched = ring_schedule(P)
    for step in range(2 * (P - 1)):
        msgs = [m for m in sched if m.step == step]
        payloads = [(m, held[m.sender][m.chunk]) for m in msgs]  # read everything first
        written = {(m.receiver, m.chunk) for m in msgs}
        read = {(m.sender, m.chunk) for m in msgs}
        # within a step no chunk is both written and read: sequential == simultaneous
        assert not (written & read)
        for m, payload in payloads:
            if m.phase == "reduce-scatter":
                assert not (held[m.receiver][m.chunk] & payload)  # nothing is added twice
                held[m.receiver][m.chunk] = held[m.receiver][m.chunk] | payload
            else:
                held[m.receiver][m.chunk] = payload
        if step == P - 2:  # end of reduce-scatter
            everyone = frozenset(range(P))
            for k in range(P):
                assert held[k][(k + 1) % P] == everyone
                others = [c for c in range(P) if c != (k + 1) % P]
                assert all(held[k][c] != everyone for c in others)
    assert all(held[k][c] == frozenset(range(P)) for k in range(P) for c in range(P))


def test_schedule_P3_by_hand():
    """Spelled out for P = 3 (reduce-scatter: chunk k - s; all-gather: chunk k + 1 - s)."""
    got = [(m.phase[0], m.step, m.sender, m.receiver, m.chunk) for m in ring_schedule(3)]
    assert got == [
        ("r", 0, 0, 1, 0),
        ("r", 0, 1, 2, 1),
        ("r", 0, 2, 0, 2),
        ("r", 1, 0, 1, 2),
        ("r", 1, 1, 2, 0),
        ("r", 1, 2, 0, 1),
        ("a", 2, 0, 1, 1),
        ("a", 2, 1, 2, 2),
        ("a", 2, 2, 0, 0),
        ("a", 3, 0, 1, 0),
        ("a", 3, 1, 2, 1),
        ("a", 3, 2, 0, 2),
    ]


@given(d=st.integers(1, 500), P=st.integers(2, 40))
def test_chunk_bounds_partition(d, P):
    b = chunk_bounds(d, P)
    assert b.shape == (P + 1,)
    assert b[0] == 0 and b[-1] == d
    sizes = np.diff(b)
    assert np.all(sizes >= 0)
    assert sizes.max() - sizes.min() <= 1
    assert sizes.max() == math.ceil(d / P)


# ------------------------------------------------------------------------------------------------
# Ledger: per-link channel use
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("P", [2, 3, 4, 5, 8, 16])
@pytest.mark.parametrize("m", [1, 3])
@pytest.mark.parametrize("bits", [2, 5, 16, 32])
def test_classical_ledger_when_P_divides_d(P, m, bits):
    d = m * P
    res = ring_allreduce(np.ones((P, d), dtype=np.int64), bits=bits)
    led = res.ledger
    assert led.steps == 2 * (P - 1)
    assert led.links == [(k, (k + 1) % P) for k in range(P)]
    expected = 2 * (P - 1) * (d // P) * bits  # bandwidth-optimal amount on every link
    for link in led.links:
        assert led.online_bits(link) == expected
        assert led.online_qubits(link) == 0
        assert led.ebits(link) == 0
        assert led.offline_qubits(link) == 0
    assert led.online_bits() == expected


@pytest.mark.parametrize("P", [2, 3, 4, 8, 16])
@pytest.mark.parametrize("m", [1, 2, 3])
@pytest.mark.parametrize("bits", [3, 8, 16])
def test_superdense_ledger_when_P_divides_d(P, m, bits):
    d = m * P
    res = ring_allreduce(np.ones((P, d), dtype=np.int64), transport="superdense", bits=bits)
    led = res.ledger
    per_msg = math.ceil(m * bits / 2)
    for link in led.links:
        assert led.online_bits(link) == 0
        assert led.online_qubits(link) == 2 * (P - 1) * per_msg
        assert led.ebits(link) == led.online_qubits(link)
        assert led.offline_qubits(link) == led.online_qubits(link)
        classical = 2 * (P - 1) * m * bits
        lifetime = led.online_qubits(link) + led.offline_qubits(link)
        if (m * bits) % 2 == 0:  # online qubits are exactly half the classical bits
            assert 2 * led.online_qubits(link) == classical
            assert lifetime == classical
        else:
            assert classical < lifetime <= classical + 2 * (P - 1)


def expected_link_units(d: int, P: int, bits: int, transport: str) -> list[int]:
    """Per-link channel use summed over the messages each sender sends (test's own arithmetic)."""
    sizes = chunk_sizes(d, P)
    per_link = [0] * P
    for msg in ring_schedule(P):
        n = sizes[msg.chunk] * bits
        per_link[msg.sender] += n if transport == "classical" else (n + 1) // 2
    return per_link


@given(P=st.integers(2, 16), d=st.integers(1, 60), bits=st.integers(2, 32))
def test_ledger_uneven_chunks(P, d, bits):
    grads = np.zeros((P, d), dtype=np.int64)
    cl = ring_allreduce(grads, bits=bits).ledger
    sd = ring_allreduce(grads, transport="superdense", bits=bits).ledger
    want_bits = expected_link_units(d, P, bits, "classical")
    want_qubits = expected_link_units(d, P, bits, "superdense")
    np.testing.assert_array_equal(cl.per_link("online_bits"), want_bits)
    np.testing.assert_array_equal(sd.per_link("online_qubits"), want_qubits)
    for k, link in enumerate(cl.links):
        assert cl.online_bits(link) == want_bits[k]
        assert sd.online_qubits(link) == want_qubits[k]
        assert sd.ebits(link) == want_qubits[k]
        assert sd.offline_qubits(link) == want_qubits[k]
        # lifetime use: at least the classical bits, at most one padding bit per odd message
        odd = sum(
            1
            for m in ring_schedule(P)
            if m.sender == k and (chunk_sizes(d, P)[m.chunk] * bits) % 2 == 1
        )
        lifetime = sd.online_qubits(link) + sd.offline_qubits(link)
        assert want_bits[k] <= lifetime <= want_bits[k] + odd
        if odd == 0:
            assert lifetime == want_bits[k]
    # link=None is the critical path: the busiest link
    assert cl.online_bits() == max(want_bits)
    assert sd.online_qubits() == max(want_qubits)
    assert sd.ebits() == max(want_qubits)


def test_uneven_ledger_example_by_hand():
    # P = 3, d = 4: chunks of sizes [2, 1, 1]. 8-bit words.
    # Worker 0 sends chunks 0, 2 (reduce-scatter) and 1, 0 (all-gather): 2+1+1+2 = 6 words.
    # Worker 1 sends chunks 1, 0 and 2, 1: 1+2+1+1 = 5 words; worker 2 sends 2, 1, 0, 2: 5 words.
    led = ring_allreduce(np.zeros((3, 4), dtype=np.int64), bits=8).ledger
    assert [led.online_bits((k, (k + 1) % 3)) for k in range(3)] == [48, 40, 40]
    assert led.online_bits() == 48


@pytest.mark.parametrize("transport", ["classical", "superdense"])
@pytest.mark.parametrize("P,d,bits", [(2, 2, 16), (4, 8, 16), (8, 64, 7), (5, 15, 32), (16, 16, 3)])
def test_ledger_ring_time_equals_costmodel_when_P_divides_d(transport, P, d, bits):
    res = ring_allreduce(np.zeros((P, d), dtype=np.int64), transport=transport, bits=bits)
    for alpha, beta in [(1e-6, 1e-9), (0.0, 1.0), (3.0, 0.0), (2.5e-5, 4e-10)]:
        want = costmodel.ring_time(P, d, bits, alpha, beta, transport=transport)
        assert res.ledger.ring_time(alpha, beta) == pytest.approx(want, rel=1e-12, abs=1e-300)
        # and it is the alpha-beta formula of book/01_bottleneck.ipynb with this transport's unit count
        units = (d // P) * bits if transport == "classical" else math.ceil((d // P) * bits / 2)
        assert want == pytest.approx(2 * (P - 1) * (alpha + units * beta), rel=1e-12, abs=1e-300)


def test_ledger_is_unaffected_by_noise():
    grads = np.arange(24, dtype=np.int64).reshape(3, 8)
    a = ring_allreduce(grads, transport="superdense", bits=16).ledger
    b = ring_allreduce(grads, transport="superdense", bits=16, pair_fidelity=0.5, seed=1).ledger
    assert a.as_dict() == b.as_dict()


# ------------------------------------------------------------------------------------------------
# Noisy pairs
# ------------------------------------------------------------------------------------------------


def test_noisy_run_is_deterministic_given_seed():
    rng = np.random.default_rng(0)
    grads = rng.normal(size=(4, 1000))
    kw = dict(transport="superdense", bits=12, pair_fidelity=0.9)
    a = ring_allreduce(grads, seed=42, **kw).outputs
    b = ring_allreduce(grads, seed=42, **kw).outputs
    c = ring_allreduce(grads, seed=43, **kw).outputs
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    # a Generator seed is consumed like an int seed
    g = ring_allreduce(grads, seed=np.random.default_rng(42), **kw).outputs
    assert np.array_equal(a, g)


def test_noise_corrupts_and_desynchronises_copies():
    grads = np.zeros((4, 2000), dtype=np.int64)
    res = ring_allreduce(grads, transport="superdense", bits=16, pair_fidelity=0.9, seed=5)
    assert np.any(res.outputs != 0)
    assert not res.consistent


def word_corruption_probability(n_words: int, bits: int, F: float) -> np.ndarray:
    """P(word w of one message is changed in one hop), from the Pauli model of book/03_superdense_ring.ipynb.

    The message is a stream of n_words*bits bits (word w = stream bits [w b, (w+1) b), LSB first),
    padded to even length; symbol j carries x = bit 2j, z = bit 2j+1 and suffers X, Y, Z with
    probability (1-F)/3 each. A symbol with both bits in the word corrupts it with probability
    1 - F; one with a single bit in the word (x or z) with 2(1-F)/3 (two Paulis of three flip it).
    Symbols are independent.
    """
    n = n_words * bits
    p = np.empty(n_words)
    for w in range(n_words):
        keep = 1.0
        lo, hi = w * bits, (w + 1) * bits
        for j in range(lo // 2, (hi - 1) // 2 + 1):
            inside = sum(1 for b in (2 * j, 2 * j + 1) if lo <= b < hi and b < n)
            keep *= F if inside == 2 else 1 - 2 * (1 - F) / 3
        p[w] = 1 - keep
    return p


@pytest.mark.parametrize("bits,F", [(8, 0.99), (16, 0.995), (7, 0.97), (5, 0.9), (2, 0.8)])
def test_corrupted_word_rate_matches_pauli_model(bits, F):
    """P = 2: worker 1's chunk 0 (and worker 0's chunk 1) crossed exactly one noisy hop.

    Worker 1 ends with g1 + noisy(g0) on chunk 0: a word differs from the true sum iff the
    message word was flipped. The count of corrupted words over several runs is compared with
    its expectation sum_w p_w. Adjacent words can share a symbol (odd bits) and are then
    positively correlated, so we bound the variance by 3 * sum_w p_w (1 - p_w) (Cauchy-Schwarz
    over neighbours) and accept within 5 standard deviations.
    """
    d, runs = 4000, 6
    rng = np.random.default_rng(bits)
    observed, expected, var = 0, 0.0, 0.0
    bounds = chunk_bounds(d, 2)
    for r in range(runs):
        grads = rng.integers(-(2**20), 2**20, size=(2, d))
        want = np.array(python_modular_sum(grads, bits))
        out = ring_allreduce(
            grads, transport="superdense", bits=bits, pair_fidelity=F, seed=1000 + r
        ).outputs
        for worker, chunk in ((1, 0), (0, 1)):
            lo, hi = bounds[chunk], bounds[chunk + 1]
            observed += int(np.sum(out[worker, lo:hi] != want[lo:hi]))
            p = word_corruption_probability(hi - lo, bits, F)
            expected += p.sum()
            var += 3 * np.sum(p * (1 - p))
    sigma = math.sqrt(var)
    assert abs(observed - expected) <= 5 * sigma, (observed, expected, sigma)


def test_two_hop_words_are_corrupted_more_often():
    # Worker 0's chunk 0 crossed two hops (reduce-scatter then all-gather), chunk 1 only one.
    d, bits, F = 20000, 8, 0.98
    grads = np.zeros((2, d), dtype=np.int64)
    out = ring_allreduce(grads, transport="superdense", bits=bits, pair_fidelity=F, seed=9).outputs
    b = chunk_bounds(d, 2)
    one_hop = np.mean(out[0, b[1] : b[2]] != 0)
    two_hop = np.mean(out[0, b[0] : b[1]] != 0)
    p1 = 1 - F ** (bits // 2)
    assert one_hop == pytest.approx(p1, abs=5 * math.sqrt(p1 / (d / 2)))
    assert two_hop > one_hop


def test_result_repr_is_short_and_deterministic():
    res = ring_allreduce(np.ones((2, 4), dtype=np.int64), bits=8)
    r = repr(res)
    assert r == repr(ring_allreduce(np.ones((2, 4), dtype=np.int64), bits=8))
    assert "0x" not in r and len(r) < 300


@pytest.mark.parametrize("P, d, bits", [(2, 1, 2), (3, 7, 5), (4, 10, 8), (5, 3, 16), (8, 1001, 5)])
def test_message_bits_is_what_the_ledgers_record(P, d, bits):
    from qring_edu.ring import message_bits

    m = message_bits(P, d, bits)
    assert m.shape == (P, 2 * (P - 1))
    zeros = np.zeros((P, d), dtype=np.int64)
    classical = ring_allreduce(zeros, bits=bits).ledger
    superdense = ring_allreduce(zeros, bits=bits, transport="superdense").ledger
    assert np.array_equal(m.sum(axis=1), classical.per_link("online_bits"))
    assert np.array_equal(((m + 1) // 2).sum(axis=1), superdense.per_link("online_qubits"))
    sizes = np.diff(chunk_bounds(d, P))
    for msg in ring_schedule(P):
        assert m[msg.sender, msg.step] == sizes[msg.chunk] * bits


# ------------------------------------------------------------------------------------------------
# The noise stream, replayed from scratch
# ------------------------------------------------------------------------------------------------


def reference_superdense_ring(grads: np.ndarray, bits: int, probabilities, seed) -> np.ndarray:
    """The superdense ring from scratch with the noise stream documented in ring_allreduce:
    integer words, the schedule of book/01_bottleneck.ipynb, and per synchronous step one draw of
    pauli_frames_distribution(S G, probabilities, rng) over the step's messages cut into groups
    of g words (g = 1 for even b, 2 for odd b) of S = g b / 2 symbols, the groups numbered
    across the step (message k, senders in order, holds G_k consecutive groups): trial u S + i
    is symbol i of group u (bits 2i = x, 2i + 1 = z of the group). Every message is copied, corrupted bit by bit and then
    delivered; flips past a message's end are dropped."""
    from qring_edu.fixedpoint import to_signed, to_words
    from qring_edu.superdense import pauli_frames_distribution

    P, d = grads.shape
    words = np.array([to_words(row, bits) for row in grads], dtype=np.uint32)
    bounds = chunk_bounds(d, P)
    rng = np.random.default_rng(seed)
    g = 1 if bits % 2 == 0 else 2
    S = g * bits // 2
    sched = ring_schedule(P)
    for step in range(2 * (P - 1)):
        msgs = [
            m for m in sched[step * P : (step + 1) * P] if bounds[m.chunk] < bounds[m.chunk + 1]
        ]
        sent = [words[m.sender, bounds[m.chunk] : bounds[m.chunk + 1]].copy() for m in msgs]
        groups = [-(-w.size // g) for w in sent]
        G = sum(groups)
        if probabilities[0] < 1.0 and G:
            pos, frames = pauli_frames_distribution(S * G, probabilities, rng)
            for t, f in zip(pos.tolist(), frames.tolist()):
                u, slot = divmod(t, S)  # stream order: group u of the step, its symbol slot
                k = 0
                while u >= groups[k]:  # message k holds G_k consecutive groups
                    u -= groups[k]
                    k += 1
                w = sent[k]
                j = u * S + slot  # the symbol's index in message k's stream
                for bit, flips in ((2 * j, f & 1), (2 * j + 1, f & 2)):
                    if flips and bit < w.size * bits:
                        w[bit // bits] ^= np.uint32(1 << (bit % bits))
        for m, w in zip(msgs, sent):
            lo, hi = bounds[m.chunk], bounds[m.chunk + 1]
            if m.phase == "reduce-scatter":
                total = words[m.receiver, lo:hi].astype(np.uint64) + w
                words[m.receiver, lo:hi] = (total % (1 << bits)).astype(np.uint32)
            else:
                words[m.receiver, lo:hi] = w
    return np.array([to_signed(row, bits) for row in words])


def depolarizing_probabilities(F: float) -> tuple:
    return (F, (1 - F) / 3, (1 - F) / 3, (1 - F) / 3)


@pytest.mark.parametrize(
    "P, d, bits, F",
    [
        (4, 300, 16, 0.9),
        (5, 77, 7, 0.97),
        (3, 2, 12, 1.0),
        (6, 500, 32, 0.99),
        (3, 31, 5, 0.6),
        (7, 5, 9, 0.5),
        (2, 1, 2, 0.3),
        (4, 2001, 13, 0.95),
        (8, 64, 31, 0.8),
        (3, 10, 3, 0.25),
        (16, 7, 8, 0.7),
        (2, 40_000, 16, 0.99),
    ],
)
def test_noise_stream_is_the_documented_one(P, d, bits, F):
    """Bit for bit the from-scratch replay (even and odd b, uneven chunks, d < P, several
    blocks of the sampler); the earlier streams (per message; slot-major within a message) fail
    this test."""
    grads = np.random.default_rng(P * d).integers(-(2**30), 2**30, size=(P, d))
    want = reference_superdense_ring(grads, bits, depolarizing_probabilities(F), seed=17)
    plain = ring_allreduce(grads, transport="superdense", bits=bits, pair_fidelity=F, seed=17)
    explicit = ring_allreduce(
        grads,
        transport="superdense",
        bits=bits,
        pair_fidelity=F,
        channel_fidelity=1.0,
        protection="none",
        storage_time=0.0,
        seed=17,
    )
    np.testing.assert_array_equal(plain.outputs, want)
    np.testing.assert_array_equal(explicit.outputs, want)
    assert plain.link_report is None and plain.protection == "none"
    assert plain.channel_fidelity == 1.0


@pytest.mark.parametrize(
    "P, d, bits, F", [(4, 2001, 13, 0.95), (6, 500, 32, 0.9), (5, 77, 7, 0.97), (3, 4000, 16, 0.8)]
)
def test_noise_drawn_on_the_noise_thread_is_the_same_stream(P, d, bits, F, monkeypatch):
    """With the threshold at 0 every noisy ring draws its flips on the noise thread
    (ring._Prefetch); the outputs are still the documented stream, bit for bit."""
    from qring_edu import ring

    monkeypatch.setattr(ring, "_PIPELINE_MIN_ERRORS", 0)
    monkeypatch.setattr(ring, "_cpus", lambda: 2)
    made = []
    original = ring._Prefetch

    class Counted(original):
        def __init__(self, fn, n, depth):
            made.append(depth)
            original.__init__(self, fn, n, depth)

    monkeypatch.setattr(ring, "_Prefetch", Counted)
    grads = np.random.default_rng(P * d).integers(-(2**30), 2**30, size=(P, d))
    want = reference_superdense_ring(grads, bits, depolarizing_probabilities(F), seed=5)
    got = ring_allreduce(grads, transport="superdense", bits=bits, pair_fidelity=F, seed=5)
    np.testing.assert_array_equal(got.outputs, want)
    assert len(made) == 1


@pytest.mark.parametrize("P, d, bits, F", [(4, 2001, 13, 0.95), (6, 5000, 16, 0.9)])
def test_noise_drawn_in_the_helper_process_is_the_same_stream(P, d, bits, F, monkeypatch):
    """With the threshold at 0 the flips come from the helper process (shared buffers for even
    b, the pipe for odd b): the documented stream bit for bit, and a seed Generator continues
    exactly as if the flips had been drawn in this process."""
    from qring_edu import ring

    monkeypatch.setattr(ring, "_PROCESS_MIN_ERRORS", 0)
    monkeypatch.setattr(ring, "_PIPELINE_MIN_ERRORS", 0)
    monkeypatch.setattr(ring, "_cpus", lambda: 2)
    made = []
    original = ring._ProcessStream

    class Counted(original):
        def __init__(self, *args):
            made.append(1)
            original.__init__(self, *args)

    monkeypatch.setattr(ring, "_ProcessStream", Counted)
    grads = np.random.default_rng(P * d).integers(-(2**30), 2**30, size=(P, d))
    want = reference_superdense_ring(grads, bits, depolarizing_probabilities(F), seed=5)
    got = ring_allreduce(grads, transport="superdense", bits=bits, pair_fidelity=F, seed=5)
    np.testing.assert_array_equal(got.outputs, want)
    gen = np.random.default_rng(9)
    ring_allreduce(grads, transport="superdense", bits=bits, pair_fidelity=F, seed=gen)
    after = gen.random()
    monkeypatch.setattr(ring, "_PROCESS", False)
    monkeypatch.setattr(ring, "_PIPELINE", False)
    gen_here = np.random.default_rng(9)
    ring_allreduce(grads, transport="superdense", bits=bits, pair_fidelity=F, seed=gen_here)
    assert after == gen_here.random()
    assert len(made) == 2


def test_helper_process_survives_a_stopped_job(monkeypatch):
    """A ring stopped after its first step (the caller raised) stops the helper's job; the
    next ring gets the helper and the right outputs."""
    from qring_edu import ring

    monkeypatch.setattr(ring, "_PROCESS_MIN_ERRORS", 0)
    monkeypatch.setattr(ring, "_PIPELINE_MIN_ERRORS", 0)
    monkeypatch.setattr(ring, "_cpus", lambda: 2)
    grads = np.random.default_rng(4).integers(-(2**20), 2**20, size=(5, 4000))
    calls = []
    original = ring._deliver

    def failing(*args):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt("stopped")
        return original(*args)

    monkeypatch.setattr(ring, "_deliver", failing)
    with pytest.raises(KeyboardInterrupt):
        ring_allreduce(grads, transport="superdense", pair_fidelity=0.9, seed=2)
    monkeypatch.setattr(ring, "_deliver", original)
    assert not ring._NoiseProcess.get().lock.locked()
    want = reference_superdense_ring(grads, 16, depolarizing_probabilities(0.9), seed=2)
    got = ring_allreduce(grads, transport="superdense", pair_fidelity=0.9, seed=2)
    np.testing.assert_array_equal(got.outputs, want)


def test_noise_thread_hands_on_errors_and_stops_early():
    """An exception of the step function is raised by the consumer's next for that step; a
    consumer that stops early gets the worker stopped by close (it would wait forever for a
    free buffer otherwise)."""
    from qring_edu import ring

    def fn(step, out):
        if step == 2:
            raise ValueError("step 2 failed")
        return [step]

    pre = ring._Prefetch(fn, 5, 1)
    assert next(pre) == [0] and next(pre) == [1]
    with pytest.raises(ValueError, match="step 2 failed"):
        next(pre)
    pre.close()
    early = ring._Prefetch(lambda step, out: [step], 1000, 2)
    assert next(early) == [0]
    early.close()
    assert early._task.done()


def _ring_in_child(queue):
    grads = np.random.default_rng(2).integers(-1000, 1000, size=(4, 30_000))
    res = ring_allreduce(grads, transport="superdense", pair_fidelity=0.9, seed=3)
    queue.put(int(res.outputs.sum()))


def test_noise_thread_works_in_a_forked_child(monkeypatch):
    """After the parent has used the noise thread, a forked child (multiprocessing's default
    on Linux) runs its own: the parent's executor has no thread in the child, and using it
    would wait forever."""
    import multiprocessing

    from qring_edu import ring

    monkeypatch.setattr(ring, "_cpus", lambda: 2)
    grads = np.random.default_rng(2).integers(-1000, 1000, size=(4, 30_000))
    want = int(
        ring_allreduce(grads, transport="superdense", pair_fidelity=0.9, seed=3).outputs.sum()
    )
    assert ring._EXECUTOR is not None  # the parent used the noise thread
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_ring_in_child, args=(queue,))
    child.start()
    child.join(timeout=120)
    alive = child.is_alive()
    if alive:
        child.kill()
    assert not alive and child.exitcode == 0
    assert queue.get(timeout=5) == want


def test_merge_runs_gives_distinct_indices_with_the_same_flips():
    """Runs of equal indices (the errors of one word) merge into one XOR per word; the rest go
    to the scratch word 0. Checked against a dictionary of XORs over random runs."""
    from qring_edu.ring import _merge_runs

    rng = np.random.default_rng(1)
    for _ in range(500):
        n = int(rng.integers(1, 80))
        pos = np.sort(rng.choice(8 * 12, n, replace=False))  # trials of 12 words x 8 symbols
        idx = (pos // 8 + 1).astype(np.int64)
        mask = rng.integers(1, 4, n).astype(np.uint32) << (2 * (pos % 8)).astype(np.uint32)
        want = np.zeros(14, dtype=np.uint32)
        np.bitwise_xor.at(want, idx, mask)
        _merge_runs(idx, mask)
        real = idx != 0
        assert np.unique(idx[real]).size == real.sum()
        got = np.zeros(14, dtype=np.uint32)
        got[idx[real]] ^= mask[real]
        np.testing.assert_array_equal(got[1:], want[1:])


@pytest.mark.parametrize("P, d, bits", [(4, 301, 16), (3, 50, 7)])
@pytest.mark.parametrize(
    "link",
    [
        dict(channel_fidelity=0.97),
        dict(pair_fidelity=0.98, storage_time=1.0, coherence_time=5.0),
        dict(channel_fidelity=0.95, protection="distill"),
    ],
)
def test_noisy_link_stream_is_the_documented_one(P, d, bits, link):
    """Channel noise, memory noise (not depolarising: pauli_frames_distribution) and distilled
    pairs draw the same per-step stream with the composed symbol error."""
    from qring_edu.links import distill, link_errors

    grads = np.random.default_rng(d).integers(-(2**20), 2**20, size=(P, d))
    res = ring_allreduce(grads, transport="superdense", bits=bits, seed=23, **link)
    Fc = link.get("channel_fidelity", 1.0)
    if link.get("protection") == "distill":
        errors = link_errors(None, Fc, pair=distill(Fc).errors)
    else:
        errors = link_errors(
            link.get("pair_fidelity"),
            Fc,
            storage_time=link.get("storage_time", 0.0),
            coherence_time=link.get("coherence_time", math.inf),
        )
    probs = (
        depolarizing_probabilities(errors.fidelity)
        if errors.is_depolarizing
        else errors.probabilities
    )
    np.testing.assert_array_equal(res.outputs, reference_superdense_ring(grads, bits, probs, 23))


def test_default_pair_fidelity_is_the_channel_fidelity():
    grads = np.random.default_rng(1).integers(-100, 100, size=(4, 400))
    a = ring_allreduce(grads, transport="superdense", channel_fidelity=0.97, seed=2)
    b = ring_allreduce(
        grads, transport="superdense", pair_fidelity=0.97, channel_fidelity=0.97, seed=2
    )
    assert a.pair_fidelity == 0.97
    np.testing.assert_array_equal(a.outputs, b.outputs)
    assert ring_allreduce(grads).pair_fidelity == 1.0  # the noiseless default


def test_repr_mentions_the_link_only_when_it_is_set():
    g = np.ones((2, 4), dtype=np.int64)
    plain = repr(ring_allreduce(g, transport="superdense", bits=8))
    assert "channel" not in plain and "protection" not in plain
    noisy = repr(
        ring_allreduce(
            g, transport="superdense", bits=8, channel_fidelity=0.99, protection="fec", seed=0
        )
    )
    assert "channel_fidelity=0.99" in noisy and "protection='fec'" in noisy
