"""Ring all-reduce over any transport (qring_edu.ring, book/01_bottleneck.ipynb,
book/03_superdense_ring.ipynb, book/04_noisy_links.ipynb).

Every expected value here is computed independently of the implementation: modular sums with
Python integers, the schedule's meaning by a synchronous symbolic simulation, per-link channel
use by summing chunk sizes over the messages each worker sends, the corrupted-word rates from
the Pauli model of book/04_noisy_links.ipynb. The noise is checked by statistics (stated
tolerances, fixed seeds) and by equalities between public paths that promise the same stream:
``ring_allreduce``, ``ring_pass`` wired by hand in another order or one rank at a time, and
``superdense_send`` with a message's own seed.
"""

from __future__ import annotations

import math
import queue
import threading

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from qring_edu import costmodel
from qring_edu.distillation import distill
from qring_edu.fixedpoint import to_signed, to_words
from qring_edu.ledger import Ledger
from qring_edu.noise import Link, PauliErrors, depolarizing, effective_fidelity
from qring_edu.protection import FEC, Distill, Protection, ProtectionReport, expected_net_factor
from qring_edu.ring import (
    AllReduceResult,
    chunk_bounds,
    message_bits,
    net_online_factor,
    net_online_factors,
    ring_allreduce,
    ring_pass,
    ring_schedule,
    sent_chunk,
)
from qring_edu.superdense import superdense_send
from qring_edu.transports import Classical, Protected, Superdense

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64]
CURRENCIES = ("online_bits", "online_qubits", "ebits", "offline_qubits", "offline_bits")
SIGMAS = 4.0


def py_signed(v: int, bits: int) -> int:
    r = v % (1 << bits)
    return r - (1 << bits) if r >= 1 << (bits - 1) else r


def python_modular_sum(grads: np.ndarray, bits: int) -> list[int]:
    """Column sums with unbounded Python ints, reduced to signed ``bits``-bit words."""
    P, d = grads.shape
    return [py_signed(sum(int(grads[k, j]) for k in range(P)), bits) for j in range(d)]


def chunk_sizes(d: int, P: int) -> list[int]:
    bounds = chunk_bounds(d, P)
    return [int(bounds[c + 1] - bounds[c]) for c in range(P)]


def int_grads(P, d, seed=0, lo=-(2**20), hi=2**20):
    return np.random.default_rng(seed).integers(lo, hi, size=(P, d))


# ------------------------------------------------------------------------------------------------
# Integer sums: exact modulo 2**bits on every worker
# ------------------------------------------------------------------------------------------------


@st.composite
def int_cases(draw, max_P=16, max_d=24):
    P = draw(st.integers(2, max_P))
    d = draw(st.integers(1, max_d))  # d < P included: empty chunks
    dtype = draw(st.sampled_from(INT_DTYPES))
    return draw(hnp.arrays(dtype, (P, d)))


@given(
    grads=int_cases(),
    bits=st.integers(2, 32),
    transport=st.sampled_from(["classical", "superdense"]),
)
def test_integer_ring_equals_modular_sum(grads, bits, transport):
    res = ring_allreduce(grads, transport=transport, bits=bits)
    want = np.array(python_modular_sum(grads, bits), dtype=np.int64)
    assert res.outputs.shape == grads.shape and res.outputs.dtype == np.int64
    for k in range(grads.shape[0]):  # every worker's copy is the sum
        np.testing.assert_array_equal(res.outputs[k], want)
    assert res.consistent and res.error_bound is None and res.codec is None


@given(grads=int_cases(), bits=st.integers(2, 32))
def test_perfect_superdense_is_bit_identical_to_classical(grads, bits):
    a = ring_allreduce(grads, transport="classical", bits=bits)
    b = ring_allreduce(grads, transport="superdense", bits=bits, pair_fidelity=1.0, seed=3)
    c = ring_allreduce(grads, transport=Superdense(Link(1.0, 1.0)), bits=bits, seed=4)
    np.testing.assert_array_equal(a.outputs, b.outputs)
    np.testing.assert_array_equal(a.outputs, c.outputs)


def test_values_beyond_word_range_wrap():
    # 8-bit words: 200 + 100 = 300 = 44 (mod 256); -300 + 0 = -300 = -44 (mod 256).
    grads = np.array([[200, -300, 2**40 + 5], [100, 0, -(2**40)]], dtype=np.int64)
    res = ring_allreduce(grads, bits=8)
    assert res.outputs.tolist() == [[44, -44, 5], [44, -44, 5]]


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
# Float sums: fixed point, error within the documented bound, the input's float type out
# ------------------------------------------------------------------------------------------------


@st.composite
def float_cases(draw, max_P=16, max_d=24):
    P = draw(st.integers(2, max_P))
    d = draw(st.integers(1, max_d))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    mag = draw(st.sampled_from([2.0**-10, 1.0, 2.0**14]))  # exact in float32
    grads = draw(hnp.arrays(dtype, (P, d), elements=st.floats(-mag, mag, width=32)))
    bits = draw(st.integers(2, 32).filter(lambda b: (1 << (b - 1)) - 1 >= P))
    return grads, bits


@given(
    case=float_cases(),
    transport=st.sampled_from(["classical", "superdense"]),
    explicit_max=st.booleans(),
)
def test_float_ring_error_within_documented_bound(case, transport, explicit_max):
    grads, bits = case
    P = grads.shape[0]
    largest = float(np.max(np.abs(grads)))
    max_abs = (2.0 * largest + 0.5) if explicit_max else (largest if largest > 0 else 1.0)
    res = ring_allreduce(
        grads, transport=transport, bits=bits, max_abs=max_abs if explicit_max else None
    )
    # the documented code: integer cap per worker, s = cap / max_abs, error P / (2 s)
    cap = ((1 << (bits - 1)) - 1) // P
    assert res.codec.error_bound == pytest.approx(P / (2 * cap / max_abs), rel=1e-12)
    # the output keeps the input's float type; its rounding is part of error_bound
    assert res.outputs.dtype == grads.dtype
    eps = float(np.finfo(grads.dtype).eps)
    assert res.error_bound == pytest.approx(res.codec.error_bound + P * max_abs * eps)
    true = grads.astype(np.float64).sum(axis=0)
    err = np.abs(res.outputs.astype(np.float64) - true)
    assert np.all(err <= res.error_bound * (1 + 1e-9) + 4 * np.finfo(np.float64).eps * abs(true))
    assert res.consistent


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("P,bits", [(2, 32), (2, 3), (4, 4), (8, 16), (16, 32), (7, 11)])
def test_float_worst_case_all_workers_at_max_abs(P, bits, dtype):
    """The reason for the integer cap: P workers at +-max_abs must not wrap around."""
    for sign in (1.0, -1.0):
        grads = np.full((P, 5), sign * 0.3, dtype=dtype)
        res = ring_allreduce(grads, bits=bits)
        true = sign * P * float(dtype(0.3))
        assert np.all(np.sign(res.outputs) == sign)
        assert np.all(np.abs(res.outputs - true) <= res.error_bound * (1 + 1e-6))


def test_all_zero_floats_and_float32_output():
    res = ring_allreduce(np.zeros((3, 4), dtype=np.float32), bits=8)
    assert res.outputs.dtype == np.float32 and not res.outputs.any()
    assert ring_allreduce(np.ones((2, 3)), bits=8).outputs.dtype == np.float64


# ------------------------------------------------------------------------------------------------
# The schedule
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("P", range(2, 17))
def test_schedule_shape(P):
    sched = ring_schedule(P)
    assert len(sched) == 2 * (P - 1) * P
    for step in range(2 * (P - 1)):
        msgs = [m for m in sched if m.step == step]
        assert sorted(m.sender for m in msgs) == list(range(P))  # every worker sends once
        assert all(m.receiver == (m.sender + 1) % P for m in msgs)  # only to its successor
        phase = "reduce-scatter" if step < P - 1 else "all-gather"
        assert all(m.phase == phase for m in msgs)
    for m in sched:  # book/01_bottleneck.ipynb chunk formulas
        if m.phase == "reduce-scatter":
            assert m.chunk == (m.sender - m.step) % P
        else:
            assert m.chunk == (m.sender + 1 - (m.step - (P - 1))) % P
        assert m.chunk == sent_chunk(m.sender, m.step, P)


@pytest.mark.parametrize("P", range(2, 17))
def test_schedule_semantics_synchronous_simulation(P):
    """held[k][c]: the set of workers whose chunk c is summed into worker k's copy."""
    held = [[frozenset({k}) for _ in range(P)] for k in range(P)]
    sched = ring_schedule(P)
    for step in range(2 * (P - 1)):
        msgs = [m for m in sched if m.step == step]
        payloads = [(m, held[m.sender][m.chunk]) for m in msgs]  # read everything first
        written = {(m.receiver, m.chunk) for m in msgs}
        read = {(m.sender, m.chunk) for m in msgs}
        assert not (written & read)  # within a step sequential == simultaneous
        for m, payload in payloads:
            if m.phase == "reduce-scatter":
                assert not (held[m.receiver][m.chunk] & payload)  # nothing is added twice
                held[m.receiver][m.chunk] = held[m.receiver][m.chunk] | payload
            else:
                held[m.receiver][m.chunk] = payload
        if step == P - 2:  # after reduce-scatter worker k holds chunk (k + 1) mod P, reduced
            everyone = frozenset(range(P))
            for k in range(P):
                assert held[k][(k + 1) % P] == everyone
                assert all(held[k][c] != everyone for c in range(P) if c != (k + 1) % P)
    assert all(held[k][c] == frozenset(range(P)) for k in range(P) for c in range(P))


def test_schedule_P3_by_hand():
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
    assert b.shape == (P + 1,) and b[0] == 0 and b[-1] == d
    sizes = np.diff(b)
    assert np.all(sizes >= 0) and sizes.max() - sizes.min() <= 1
    assert sizes.max() == math.ceil(d / P)


def test_ring_pass_after_reduce_scatter_and_with_a_perfect_wire():
    """Stopping the exchange after reduce-scatter shows worker k holding chunk (k+1) mod P."""
    P, d, bits = 5, 13, 8
    grads = int_grads(P, d, lo=0, hi=50)
    rows = [to_words(g, bits) for g in grads]
    want = np.array(python_modular_sum(grads, bits)) % (1 << bits)
    bounds = chunk_bounds(d, P)

    class Stop(Exception):
        pass

    def wire(step, sends):
        if step == P - 1:
            raise Stop
        return {k: sends[(k - 1) % P] for k in sends}

    with pytest.raises(Stop):
        ring_pass(rows, list(range(P)), P, bits, wire)
    for k in range(P):
        c = (k + 1) % P
        np.testing.assert_array_equal(
            rows[k][bounds[c] : bounds[c + 1]], want[bounds[c] : bounds[c + 1]]
        )
    rows = [to_words(g, bits) for g in grads]
    ring_pass(
        rows, list(range(P)), P, bits, lambda s, sends: {k: sends[(k - 1) % P] for k in sends}
    )
    assert all(np.array_equal(r, want) for r in rows)


# ------------------------------------------------------------------------------------------------
# The ledger: per-link channel use
# ------------------------------------------------------------------------------------------------


def odd_messages(P: int, d: int, bits: int, k: int) -> int:
    """Odd-length messages on link k -> k+1: it sends every chunk but (k+1) mod P in
    reduce-scatter and every chunk but (k+2) mod P in all-gather."""
    n = np.diff(chunk_bounds(d, P))
    odd = (n * bits) % 2 == 1
    return int(odd.sum() - odd[(k + 1) % P] + odd.sum() - odd[(k + 2) % P])


@pytest.mark.parametrize("P, d, bits", [(2, 1, 2), (3, 7, 5), (4, 10, 8), (5, 3, 16), (8, 1001, 5)])
def test_message_bits_is_what_the_ledgers_record(P, d, bits):
    m = message_bits(P, d, bits)
    assert m.shape == (P, 2 * (P - 1))
    zeros = np.zeros((P, d), dtype=np.int64)
    classical = ring_allreduce(zeros, bits=bits).ledger
    superdense = ring_allreduce(zeros, bits=bits, transport="superdense").ledger
    np.testing.assert_array_equal(m.sum(axis=1), classical.per_link("online_bits"))
    np.testing.assert_array_equal(((m + 1) // 2).sum(axis=1), superdense.per_link("online_qubits"))
    sizes = np.diff(chunk_bounds(d, P))
    for msg in ring_schedule(P):
        assert m[msg.sender, msg.step] == sizes[msg.chunk] * bits
    for s in range(2 * (P - 1)):  # the α–β model's unit per step: the largest message
        assert classical.step_units[s] == m[:, s].max()
        assert superdense.step_units[s] == ((m[:, s] + 1) // 2).max()


@given(P=st.integers(2, 16), d=st.integers(1, 60), bits=st.integers(2, 32))
def test_ledger_per_link_from_the_schedule(P, d, bits):
    zeros = np.zeros((P, d), dtype=np.int64)
    cl = ring_allreduce(zeros, bits=bits).ledger
    sd = ring_allreduce(zeros, transport="superdense", bits=bits).ledger
    sizes = chunk_sizes(d, P)
    want_bits, want_qubits = [0] * P, [0] * P
    for msg in ring_schedule(P):
        n = sizes[msg.chunk] * bits
        want_bits[msg.sender] += n
        want_qubits[msg.sender] += (n + 1) // 2  # ceil(bits / 2) qubits per message
    np.testing.assert_array_equal(cl.per_link("online_bits"), want_bits)
    np.testing.assert_array_equal(sd.per_link("online_qubits"), want_qubits)
    np.testing.assert_array_equal(sd.per_link("ebits"), want_qubits)
    np.testing.assert_array_equal(sd.per_link("offline_qubits"), want_qubits)
    assert cl.online_bits() == max(want_bits) and sd.online_qubits() == max(want_qubits)
    assert cl.messages == sd.messages == 2 * (P - 1) * P


@pytest.mark.parametrize("P", [2, 3, 4, 7])
@pytest.mark.parametrize("d", [1, 5, 7, 12, 33])
@pytest.mark.parametrize("bits", [2, 3, 5, 8])
def test_lifetime_is_classical_bits_plus_one_per_odd_message(P, d, bits):
    """The exact lifetime statement of chapter 3: per directed link, online + offline qubits =
    classical bits + the number of odd-length messages on that link (each pads one bit)."""
    zeros = np.zeros((P, d), dtype=np.int64)
    cl = ring_allreduce(zeros, bits=bits).ledger
    sd = ring_allreduce(zeros, bits=bits, transport="superdense").ledger
    for k, link in enumerate(sd.links):
        b, extra = cl.online_bits(link), odd_messages(P, d, bits, k)
        assert sd.online_qubits(link) == sd.ebits(link) == sd.offline_qubits(link)
        assert 2 * sd.online_qubits(link) == b + extra
        assert sd.lifetime_uses(link) == sd.online_qubits(link) + sd.offline_qubits(link)
        assert sd.lifetime_uses(link) == b + extra
        if bits % 2 == 0:
            assert extra == 0


def test_lifetime_examples():
    # chapter 3: P = 3, d = 7, b = 5 -> the busiest link sends 15, 10, 10, 15 bits: 2 odd
    assert odd_messages(3, 7, 5, 0) == 2
    # P | d with d/P and b odd: all 2(P-1) messages odd, lifetime 2(P-1)(d b / P + 1)
    P, d, b = 4, 12, 5
    sd = ring_allreduce(np.zeros((P, d), dtype=np.int64), bits=b, transport="superdense").ledger
    assert sd.lifetime_uses() == 2 * (P - 1) * (d * b // P + 1) == 96


def test_uneven_ledger_example_by_hand():
    # P = 3, d = 4: chunks of sizes [2, 1, 1], 8-bit words. Worker 0 sends chunks 0, 2 then
    # 1, 0 (6 words); worker 1 chunks 1, 0, 2, 1 (5 words); worker 2 chunks 2, 1, 0, 2 (5).
    led = ring_allreduce(np.zeros((3, 4), dtype=np.int64), bits=8).ledger
    assert led.per_link("online_bits").tolist() == [48, 40, 40]
    assert led.online_bits() == 48


@pytest.mark.parametrize("transport", ["classical", "superdense"])
@pytest.mark.parametrize("P,d,bits", [(2, 2, 16), (4, 8, 16), (8, 64, 7), (5, 15, 32), (16, 16, 3)])
def test_ledger_ring_time_equals_costmodel_when_P_divides_d(transport, P, d, bits):
    res = ring_allreduce(np.zeros((P, d), dtype=np.int64), transport=transport, bits=bits)
    for alpha, beta in [(1e-6, 1e-9), (0.0, 1.0), (3.0, 0.0)]:
        want = costmodel.ring_time(P, d, bits, alpha, beta, transport=transport)
        assert res.ledger.ring_time(alpha, beta) == pytest.approx(want, rel=1e-12, abs=1e-300)
        units = (d // P) * bits if transport == "classical" else math.ceil((d // P) * bits / 2)
        assert want == pytest.approx(2 * (P - 1) * (alpha + units * beta), rel=1e-12, abs=1e-300)


def test_pauli_noise_leaves_the_ledger_alone():
    grads = np.arange(24, dtype=np.int64).reshape(3, 8)
    a = ring_allreduce(grads, transport="superdense", bits=16).ledger
    b = ring_allreduce(grads, transport="superdense", pair_fidelity=0.5, seed=1).ledger
    assert a.as_dict() == b.as_dict()
    for c in CURRENCIES:
        np.testing.assert_array_equal(a.per_link(c), b.per_link(c))


# ------------------------------------------------------------------------------------------------
# Noise: determinism, and the same noise for the same message wherever it is simulated
# ------------------------------------------------------------------------------------------------


def test_noisy_run_is_deterministic_given_seed():
    grads = np.random.default_rng(0).normal(size=(4, 1000))
    kw = dict(transport="superdense", bits=12, pair_fidelity=0.9)
    a = ring_allreduce(grads, seed=42, **kw).outputs
    np.testing.assert_array_equal(a, ring_allreduce(grads, seed=42, **kw).outputs)
    np.testing.assert_array_equal(
        a, ring_allreduce(grads, seed=np.random.SeedSequence(42), **kw).outputs
    )
    assert not np.array_equal(a, ring_allreduce(grads, seed=43, **kw).outputs)
    # a list of ints is a seed of its own (e.g. [seed, iteration])
    b = ring_allreduce(grads, seed=[42, 1], **kw).outputs
    np.testing.assert_array_equal(b, ring_allreduce(grads, seed=[42, 1], **kw).outputs)
    assert not np.array_equal(a, b)
    # a Generator: the same state gives the same run, and the generator advances
    g1, g2 = np.random.default_rng(9), np.random.default_rng(9)
    c = ring_allreduce(grads, seed=g1, **kw).outputs
    np.testing.assert_array_equal(c, ring_allreduce(grads, seed=g2, **kw).outputs)
    assert not np.array_equal(c, ring_allreduce(grads, seed=g1, **kw).outputs)


def test_noise_corrupts_and_desynchronises_copies():
    res = ring_allreduce(
        np.zeros((4, 2000), dtype=np.int64), transport="superdense", pair_fidelity=0.9, seed=5
    )
    assert np.any(res.outputs != 0) and not res.consistent
    assert res.link_report is None  # no protection, no report


TRANSPORTS_UNDER_TEST = [
    Superdense(Link(channel_fidelity=0.97)),
    Superdense(Link(pair_fidelity=0.9, storage_time=1.0, coherence_time=4.0, transmission=0.8)),
    Protected(Superdense(Link(channel_fidelity=0.99)), Protection(fec=FEC())),
    Protected(
        Superdense(Link(pair_fidelity=0.9, channel_fidelity=0.995, transmission=0.9)),
        Protection(distill=Distill(rounds=2), fec=FEC()),
    ),
    Protected(Superdense(Link(pair_fidelity=0.9)), Protection(distill=Distill())),
]


def _ledger_arrays(ledgers) -> dict:
    return {c: sum(led.per_link(c) for led in ledgers) for c in CURRENCIES}


@pytest.mark.parametrize("transport", TRANSPORTS_UNDER_TEST, ids=repr)
@pytest.mark.parametrize("P, d, bits", [(5, 997, 13), (3, 2, 16)])
def test_ring_pass_in_a_shuffled_order_gives_the_same_run(transport, P, d, bits):
    """ring_pass with the workers listed in a shuffled order and an exchange that sends the
    messages of each step in another shuffled order: bit-identical outputs and ledger."""
    grads = int_grads(P, d, seed=P * d)
    want = ring_allreduce(grads, transport=transport, bits=bits, seed=21)
    root = np.random.SeedSequence(21)
    rng = np.random.default_rng(0)
    ledger = Ledger(P, transport.name, 2 * (P - 1))
    order = [int(k) for k in rng.permutation(P)]
    rows = [to_words(grads[k], bits) for k in order]

    def exchange(step, sends):
        out = {}
        for k in rng.permutation(list(sends)):
            sender = (int(k) - 1) % P
            out[int(k)] = transport.send(
                sends[sender], bits=bits, step=step, sender=sender, seed=root, ledger=ledger
            )
        return out

    ring_pass(rows, order, P, bits, exchange)
    for row, k in zip(rows, order):
        np.testing.assert_array_equal(to_signed(row, bits), want.outputs[k])
    for c in CURRENCIES:
        np.testing.assert_array_equal(ledger.per_link(c), want.ledger.per_link(c), err_msg=c)


@pytest.mark.parametrize("transport", TRANSPORTS_UNDER_TEST[:3], ids=repr)
def test_one_ring_pass_per_rank_gives_the_same_run(transport):
    """P separate ring_pass calls, one row each, as the DDP hook runs them (each rank with its
    own ledger), wired through a dict of mailboxes; each rank runs in its own thread because a
    rank waits for its predecessor's message. Bit-identical outputs and per-link ledger."""
    P, d, bits = 4, 2001, 16
    grads = int_grads(P, d, seed=3)
    want = ring_allreduce(grads, transport=transport, bits=bits, seed=8)
    root = np.random.SeedSequence(8)
    mail = {(s, k): queue.Queue() for s in range(2 * (P - 1)) for k in range(P)}
    ledgers = [Ledger(P, transport.name, 2 * (P - 1)) for _ in range(P)]
    rows = [to_words(g, bits) for g in grads]
    errors = []

    def rank(k):
        def exchange(step, sends):
            got = transport.send(
                sends[k], bits=bits, step=step, sender=k, seed=root, ledger=ledgers[k]
            )
            mail[(step, (k + 1) % P)].put(got.copy())  # a message leaves its sender's memory
            return {k: mail[(step, k)].get(timeout=60)}

        try:
            ring_pass([rows[k]], [k], P, bits, exchange)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=rank, args=(k,)) for k in range(P)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors and not any(t.is_alive() for t in threads)
    for k in range(P):
        np.testing.assert_array_equal(to_signed(rows[k], bits), want.outputs[k])
    got = _ledger_arrays(ledgers)
    for c in CURRENCIES:
        np.testing.assert_array_equal(got[c], want.ledger.per_link(c), err_msg=c)


def stream_bits(words: np.ndarray, bits: int) -> np.ndarray:
    """The message as its bit stream: bit p is bit p % b of word p // b."""
    return (
        ((words[:, None].astype(np.uint64) >> np.arange(bits, dtype=np.uint64)) & 1)
        .astype(np.uint8)
        .ravel()
    )


def stream_words(stream: np.ndarray, bits: int) -> np.ndarray:
    return (stream.reshape(-1, bits).astype(np.uint64) << np.arange(bits, dtype=np.uint64)).sum(
        axis=1
    )


@pytest.mark.parametrize(
    "link",
    [
        Link(pair_fidelity=0.9),
        Link(channel_fidelity=0.97, transmission=0.7),
        Link(pair_fidelity=0.95, storage_time=1.0, coherence_time=3.0),
    ],
    ids=repr,
)
@pytest.mark.parametrize("bits", [16, 7])
def test_superdense_send_with_the_message_seed_is_the_ring_message(link, bits):
    """P = 2, all four messages. At step 0 worker k sends its chunk k, which worker 1 - k adds
    to its own; at step 1 (all-gather) worker 1 - k sends the reduced chunk k back and worker k
    copies it. Each received message equals superdense_send of the sent bit stream with that
    message's seed SeedSequence(root.entropy, spawn_key=(step, sender))."""
    d, seed = 3001, 12
    grads = int_grads(2, d, seed=bits)
    res = ring_allreduce(grads, transport=Superdense(link), bits=bits, seed=seed)
    out = to_words(res.outputs, bits)
    words = to_words(grads, bits)
    bounds = chunk_bounds(d, 2)
    mask = (1 << bits) - 1

    def via_superdense_send(sent, step, sender):
        ss = np.random.SeedSequence(seed, spawn_key=(step, sender))
        received = superdense_send(stream_bits(sent, bits), link=link, seed=ss)
        return stream_words(received, bits)

    for k in (0, 1):
        c = slice(bounds[k], bounds[k + 1])
        # step 0, sender k: worker 1 - k adds the received chunk k to its own
        received = (out[1 - k, c].astype(np.int64) - words[1 - k, c]) & mask
        np.testing.assert_array_equal(received, via_superdense_send(words[k, c], 0, k))
        assert np.any(received != words[k, c])  # the message was hit
        # step 1, sender 1 - k: the reduced chunk k back to worker k, which copies it
        np.testing.assert_array_equal(out[k, c], via_superdense_send(out[1 - k, c], 1, 1 - k))


# ------------------------------------------------------------------------------------------------
# Noise: the corrupted-word rate of the Pauli model, hop by hop
# ------------------------------------------------------------------------------------------------


def word_corruption_probability(n_words: int, bits: int, e: PauliErrors) -> np.ndarray:
    """P(word w of one message changes in one hop with symbol error ``e``).

    The message is a stream of ``n_words * bits`` bits padded to even length; symbol j carries
    x = bit 2j (flipped by X, Y) and z = bit 2j + 1 (flipped by Z, Y). A symbol with both bits
    in the word leaves it intact with probability p_I, one with only its x (z) bit there with
    1 - p_X - p_Y (1 - p_Z - p_Y). Symbols are independent. For depolarising errors and even b
    this is ``1 - F**(b/2)``.
    """
    pI, pX, pZ, pY = e.probabilities
    n = n_words * bits
    p = np.empty(n_words)
    for w in range(n_words):
        keep, lo, hi = 1.0, w * bits, (w + 1) * bits
        for j in range(lo // 2, (hi - 1) // 2 + 1):
            x_in, z_in = lo <= 2 * j < hi, lo <= 2 * j + 1 < hi and 2 * j + 1 < n
            keep *= pI if (x_in and z_in) else (1 - pX - pY) if x_in else (1 - pZ - pY)
        p[w] = 1 - keep
    return p


@pytest.mark.parametrize(
    "link, bits",
    [
        (Link(pair_fidelity=0.99), 8),
        (Link(channel_fidelity=0.995), 16),
        (Link(pair_fidelity=0.97), 7),
        (Link(pair_fidelity=1.0, storage_time=0.5, coherence_time=5.0), 5),
        (Link(pair_fidelity=0.9, channel_fidelity=0.95), 2),
    ],
    ids=repr,
)
def test_corrupted_word_rate_matches_the_pauli_model_hop_by_hop(link, bits):
    """P = 2 on zeros: worker 1's chunk 0 and worker 0's chunk 1 crossed one hop (the words
    hold exactly that hop's flips), worker 0's chunk 0 and worker 1's chunk 1 two hops (the
    XOR of both hops' flips, i.e. the composed Pauli ``e.compose(e)``). Counts of corrupted
    words are compared with sum_w p_w within 4 s.d.; neighbouring words share a symbol for odd
    b, so the variance is bounded by 3 sum_w p_w (1 - p_w) (Cauchy–Schwarz over neighbours)."""
    d, runs = 8000, 4
    e = link.errors
    bounds = chunk_bounds(d, 2)
    chunks = [slice(bounds[c], bounds[c + 1]) for c in range(2)]
    one, two = [0, 0.0, 0.0], [0, 0.0, 0.0]  # observed, expected, variance bound
    for r in range(runs):
        res = ring_allreduce(
            np.zeros((2, d), dtype=np.int64), transport=Superdense(link), bits=bits, seed=100 + r
        )
        for acc, cells, err in (
            (one, [(1, 0), (0, 1)], e),
            (two, [(0, 0), (1, 1)], e.compose(e)),
        ):
            for worker, c in cells:
                acc[0] += int(np.count_nonzero(res.outputs[worker, chunks[c]]))
                p = word_corruption_probability(chunks[c].stop - chunks[c].start, bits, err)
                acc[1] += p.sum()
                acc[2] += 3 * np.sum(p * (1 - p))
    for observed, expected, var in (one, two):
        assert abs(observed - expected) <= SIGMAS * math.sqrt(var), (observed, expected)
    assert two[0] > one[0]
    if bits % 2 == 0 and e.probabilities[1] == e.probabilities[3]:  # depolarising, even b
        p = word_corruption_probability(10, bits, e)
        np.testing.assert_allclose(p, 1 - e.fidelity ** (bits // 2), rtol=1e-12)


def test_channel_noise_is_one_composed_pauli_per_symbol():
    """The corrupted-word rate of a pair of fidelity 0.98 over a channel of 0.98 is that of
    F_eff = F² + (1-F)²/3, not of either alone (the composed error, not two draws)."""
    d, bits = 40_000, 16
    res = ring_allreduce(
        np.zeros((2, d), dtype=np.int64), transport="superdense", channel_fidelity=0.98, seed=2
    )
    half = chunk_bounds(d, 2)[1]
    observed = np.count_nonzero(res.outputs[1, :half])
    p = 1 - effective_fidelity(0.98, 0.98) ** (bits // 2)
    assert abs(observed - half * p) <= SIGMAS * math.sqrt(half * p * (1 - p))
    assert abs(observed - half * (1 - 0.98**8)) > 10 * math.sqrt(half * p)  # not the pair alone


def test_memory_noise_in_the_ring_is_pure_dephasing():
    res = ring_allreduce(
        np.zeros((4, 4000), dtype=np.int64),
        transport="superdense",
        storage_time=0.5,
        coherence_time=1.0,
        seed=3,
    )
    words = res.outputs & 0xFFFF
    # z bits are the odd stream bits = odd bit positions of each 16-bit word
    assert np.any(words) and not np.any(words & 0x5555)


# ------------------------------------------------------------------------------------------------
# Loss, protection, distillation on the ring
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("eta", [0.9, 0.5])
def test_loss_costs_pairs_never_a_wrong_bit(eta):
    """A lossy but otherwise perfect link: outputs exact; online qubits per link ~ n + NB(n, eta)
    (mean n/eta, 4 s.d.), one pair consumed per photon sent, and each pair's half sent offline
    until it arrived (mean n/eta²)."""
    P, d, bits = 4, 3001, 13
    grads = int_grads(P, d, seed=1)
    res = ring_allreduce(grads, transport="superdense", transmission=eta, bits=bits, seed=4)
    np.testing.assert_array_equal(res.outputs, ring_allreduce(grads, bits=bits).outputs)
    n = ((message_bits(P, d, bits) + 1) // 2).sum(axis=1)
    led = res.ledger
    online, offline = led.per_link("online_qubits"), led.per_link("offline_qubits")
    for k in range(P):
        assert abs(online[k] - n[k] / eta) <= SIGMAS * math.sqrt(n[k] * (1 - eta)) / eta
        assert abs(offline[k] - online[k] / eta) <= SIGMAS * math.sqrt(online[k] * (1 - eta)) / eta
    np.testing.assert_array_equal(led.per_link("ebits"), online)
    assert led.events("lost") == int((online - n).sum())
    # the net online factor pays the lost photons: about 2 eta
    np.testing.assert_array_equal(
        net_online_factors(res), message_bits(P, d, bits).sum(axis=1) / online
    )
    assert net_online_factor(res) == pytest.approx(2 * eta, rel=0.05)


@pytest.mark.parametrize(
    "P, d, bits", [(2, 1, 16), (3, 10, 7), (5, 333, 12), (8, 4096, 16), (4, 1000, 32)]
)
@pytest.mark.parametrize("scheme", ["fec", "distill+fec"])
@pytest.mark.parametrize("F", [0.97, 0.999])
def test_protected_ring_equals_the_noiseless_ring(P, d, bits, scheme, F):
    for grads in (int_grads(P, d, seed=P + d), np.random.default_rng(d).standard_normal((P, d))):
        clean = ring_allreduce(grads, bits=bits)
        res = ring_allreduce(
            grads, transport="superdense", bits=bits, channel_fidelity=F, protection=scheme, seed=7
        )
        np.testing.assert_array_equal(res.outputs, clean.outputs)
        report = res.link_report
        assert isinstance(report, ProtectionReport) and report.code is not None
        assert report.undetected_bound < 1e-12


def test_fec_ledger_accounting():
    P, d, bits = 4, 10_000, 16
    res = ring_allreduce(
        int_grads(P, d),
        transport="superdense",
        bits=bits,
        channel_fidelity=0.99,
        protection="fec",
        seed=3,
    )
    led, rep = res.ledger, res.link_report
    code = rep.code
    classical = message_bits(P, d, bits).sum(axis=1)
    q = led.per_link("online_qubits")
    assert np.all(q >= 4 * classical // 8)  # every payload byte crosses at least once
    np.testing.assert_array_equal(led.per_link("ebits"), q)
    np.testing.assert_array_equal(led.per_link("offline_qubits"), q)  # one raw pair each
    assert led.per_link("online_bits").sum() == rep.transmissions  # one ack per transmission
    key = code.hash_bits + 8 * code.data_bytes - 1
    assert np.all(led.per_link("offline_bits") == key)  # the checksum key, once per link
    assert rep.transmissions == rep.blocks + rep.rejected
    # every block crosses at least once: payload, checksum and parity bytes, 4 qubits each
    assert q.sum() >= 4 * (classical.sum() // 8 + rep.blocks * code.overhead_bytes)
    assert q.sum() % 4 == 0


def test_distillation_ledger_and_residual_errors():
    """Online qubits unchanged; offline qubits per pair and announcement bits per pair within
    0.3 % of distill()'s expectations (the sampled ratios' standard deviation over the 1.9
    million pairs of this run is below 0.05 %)."""
    P, d, bits = 4, 40_000, 16
    g = int_grads(P, d)
    none = ring_allreduce(g, transport="superdense", bits=bits, pair_fidelity=0.9, seed=2)
    prot = Protection(distill=Distill(rounds=2))
    res = ring_allreduce(
        g, transport="superdense", bits=bits, pair_fidelity=0.9, protection=prot, seed=2
    )
    dist = distill(0.9, rounds=2)
    led = res.ledger
    np.testing.assert_array_equal(
        led.per_link("online_qubits"), none.ledger.per_link("online_qubits")
    )
    np.testing.assert_array_equal(led.per_link("ebits"), led.per_link("online_qubits"))
    ebits = led.per_link("ebits").sum()
    assert led.per_link("offline_qubits").sum() / ebits == pytest.approx(
        dist.raw_pairs_per_pair, rel=3e-3
    )
    assert led.per_link("offline_bits").sum() / ebits == pytest.approx(
        dist.offline_bits_per_pair, rel=3e-3
    )
    assert led.online_bits() == 0
    clean = ring_allreduce(g, bits=bits).outputs
    assert np.mean(res.outputs != clean) < 0.5 * np.mean(none.outputs != clean)
    assert res.link_report.errors.error_rate == pytest.approx(1 - dist.fidelity)
    assert res.link_report.undetected_bound == 1.0  # nothing corrects what is left


def test_distillation_cannot_remove_channel_noise():
    g = int_grads(2, 20_000)
    clean = ring_allreduce(g, bits=16).outputs
    link = Link(pair_fidelity=0.9, channel_fidelity=0.99)
    res = ring_allreduce(
        g, transport=Protected(Superdense(link), Protection(distill=Distill(rounds=3))), seed=1
    )
    e = res.link_report.errors
    assert e == distill(0.9, rounds=3).errors.compose(depolarizing(0.99))
    assert e.error_rate >= 0.01
    # the one-hop words: at least the channel's 1 - 0.99**8, however good the pairs
    half = chunk_bounds(20_000, 2)[1]
    p = 1 - 0.99**8
    observed = np.count_nonzero(res.outputs[1, :half] != clean[1, :half])
    assert observed >= half * p - SIGMAS * math.sqrt(half * p)


@pytest.mark.usefixtures("one_numba_thread")
def test_galois_decoder_ring_equals_model_ring():
    g = int_grads(3, 600)
    link = Link(channel_fidelity=0.9935)

    def run(decoder):
        fec = FEC(block_length=64, correctable=4, decoder=decoder)
        t = Protected(Superdense(link), Protection(fec=fec))
        return ring_allreduce(g, transport=t, bits=16, seed=12)

    model, real = run("model"), run("galois")
    np.testing.assert_array_equal(real.outputs, model.outputs)
    np.testing.assert_array_equal(real.outputs, ring_allreduce(g, bits=16).outputs)
    for c in CURRENCIES:
        np.testing.assert_array_equal(real.ledger.per_link(c), model.ledger.per_link(c))
    assert model.link_report.rejected > 0


# ------------------------------------------------------------------------------------------------
# Net online factor
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("P, d, bits", [(2, 7, 16), (5, 333, 12), (6, 60, 7), (8, 3, 16)])
def test_classical_net_factor_is_one(P, d, bits):
    res = ring_allreduce(int_grads(P, d), bits=bits)
    np.testing.assert_array_equal(net_online_factors(res), np.ones(P))


def test_noiseless_superdense_factor_is_two():
    res = ring_allreduce(int_grads(4, 64), transport="superdense", bits=16)
    assert net_online_factor(res) == 2.0
    np.testing.assert_array_equal(net_online_factors(res), [2.0] * 4)


def expected_coded_uses(message_bits_row, code, p_byte) -> tuple[float, float]:
    """Mean and variance of the online uses (qubits + acknowledgements) of one link's messages
    under the code: each block of n' bytes costs 4 n' + 1 per transmission and is sent until
    accepted, a geometric number of times with failure P(Bin(n', p_byte) > t)."""
    from qring_edu.protection import FECCode

    mean = var = 0.0
    for m in message_bits_row:
        n_bytes = -(-int(m) // 8)
        full, rest = divmod(n_bytes, code.data_bytes)
        lengths = [code.n] * full + ([rest + code.overhead_bytes] if rest else [])
        for n in lengths:
            q = FECCode(n=n, t=code.t, hash_bits=code.hash_bits).failure_probability(p_byte)
            cost = 4 * n + 1
            mean += cost / (1 - q)
            var += cost**2 * q / (1 - q) ** 2
    return mean, var


@pytest.mark.parametrize(
    "Fp, Fc", [(None, 0.97), (None, 0.99), (None, 0.999), (0.95, 0.995), (1.0, 0.98)]
)
@pytest.mark.parametrize("scheme", ["fec", "distill+fec"])
def test_reliable_net_factor_stays_below_the_capacity_bound(Fp, Fc, scheme):
    """Per link, the online uses within 4 s.d. of their expectation for these messages (whose
    last blocks are shortened), the factor below C_E of the symbol channel, and close to the
    long-message factor of expected_net_factor (within 3 %: the shortened blocks)."""
    from qring_edu.protection import byte_error

    P, d, bits = 4, 20_000, 16
    link = Link(pair_fidelity=Fp, channel_fidelity=Fc)
    res = ring_allreduce(
        int_grads(P, d),
        transport="superdense",
        bits=bits,
        pair_fidelity=Fp,
        channel_fidelity=Fc,
        protection=scheme,
        seed=4,
    )
    report = res.link_report
    bound = report.errors.capacity()  # C_E of the symbol channel of the pairs used
    factors = net_online_factors(res)
    assert np.all(factors <= bound) and net_online_factor(res) <= bound
    assert bound <= Link(1.0, Fc).errors.capacity() + 1e-12  # BSST caps every scheme
    uses = res.ledger.per_link("online_qubits") + res.ledger.per_link("online_bits")
    classical = message_bits(P, d, bits)
    for k in range(P):
        mean, var = expected_coded_uses(classical[k], report.code, byte_error(report.errors))
        assert abs(uses[k] - mean) <= SIGMAS * math.sqrt(var), (k, uses[k], mean)
        exact = classical[k].sum() / mean
        want = expected_net_factor(scheme, link=link)
        assert want.bound == pytest.approx(bound)
        assert exact <= want.online <= bound and exact == pytest.approx(want.online, rel=0.03)


# ------------------------------------------------------------------------------------------------
# The result, and bad input
# ------------------------------------------------------------------------------------------------


def test_result_fields_and_repr():
    g = np.ones((2, 4), dtype=np.int64)
    res = ring_allreduce(g, bits=8)
    assert isinstance(res, AllReduceResult) and res.transport == Classical()
    assert res.transport.name == "classical" and res.workers == 2 and res.bits == 8
    r = repr(res)
    assert r == repr(ring_allreduce(g, bits=8)) and "0x" not in r and len(r) < 300
    noisy = ring_allreduce(
        g, transport="superdense", channel_fidelity=0.99, protection="fec", bits=8, seed=0
    )
    assert noisy.transport.inner.link == Link(channel_fidelity=0.99)
    assert noisy.transport.protection == Protection(fec=FEC())
    assert noisy.transport.name == "superdense"


G = np.ones((3, 4))
GI = np.ones((3, 4), dtype=np.int64)


@pytest.mark.parametrize(
    "kwargs, exc, pattern",
    [
        (dict(grads=np.ones(4)), ValueError, r"grads.*shape"),
        (dict(grads=np.ones((1, 4))), ValueError, r"grads.*P >= 2"),
        (dict(grads=np.ones((2, 0))), ValueError, r"grads.*d >= 1"),
        (dict(grads=np.ones((2, 2), dtype=bool)), TypeError, r"grads"),
        (dict(grads=np.array([["a", "b"], ["c", "d"]])), TypeError, r"grads"),
        (dict(grads=np.array([[1.0, np.nan], [0.0, 1.0]])), ValueError, r"grads.*(NaN|finite)"),
        (dict(grads=[[1.0, 2.0], [3.0]]), ValueError, r"grads"),
        (dict(bits=1), ValueError, r"bits.*2\.\.32"),
        (dict(bits=33), ValueError, r"bits.*2\.\.32"),
        (dict(bits=16.0), TypeError, r"bits"),
        (dict(transport="quantum"), ValueError, r"transport.*classical.*superdense"),
        (dict(transport=3), TypeError, r"transport"),
        (dict(pair_fidelity=0.9), ValueError, r"pair_fidelity=0\.9.*superdense"),
        (dict(storage_time=1.0, coherence_time=1.0), ValueError, r"storage_time.*superdense"),
        (dict(protection="fec"), ValueError, r"protection.*superdense"),
        (dict(transport="superdense", fidelity=0.9), TypeError, r"fidelity"),
        (dict(transport="superdense", pair_fidelity=0.2), ValueError, r"pair_fidelity"),
        (dict(transport="superdense", protection="parity"), ValueError, r"protection"),
        (dict(transport=Superdense(), channel_fidelity=0.9), TypeError, r"channel_fidelity"),
        (dict(transport=Classical(), protection="fec"), TypeError, r"protection"),
        (dict(grads=GI, max_abs=2.0), ValueError, r"max_abs"),
        (dict(max_abs=0.5), ValueError, r"max_abs"),
        (dict(max_abs=0.0), ValueError, r"max_abs"),
        (dict(seed=-1), ValueError, r"seed"),
        (dict(seed=1.5), TypeError, r"seed"),
        (
            dict(transport="superdense", pair_fidelity=0.5, protection="distill"),
            ValueError,
            r"pair_fidelity.*1/2",
        ),
        (
            dict(transport="superdense", channel_fidelity=0.8, protection="fec"),
            ValueError,
            r"byte_error",
        ),
    ],
)
def test_bad_input_names_the_argument(kwargs, exc, pattern):
    grads = kwargs.pop("grads", G)
    with pytest.raises(exc, match=pattern):
        ring_allreduce(grads, **kwargs)


def test_classical_with_channel_noise_names_channel_fidelity_only():
    with pytest.raises(ValueError, match="channel_fidelity") as info:
        ring_allreduce(G, channel_fidelity=0.9)
    assert "pair_fidelity" not in str(info.value)
    # noiseless link keywords are accepted with the classical transport
    ring_allreduce(G, pair_fidelity=1.0, channel_fidelity=1.0, transmission=1.0)


def test_a_code_the_link_cannot_carry_is_refused_up_front():
    """FEC(correctable=0) on a link with a 7.7 % byte error rejects nearly every block: the
    transport refuses it when it is built (ValueError naming correctable), before any message."""
    prot = Protection(fec=FEC(correctable=0))
    with pytest.raises(ValueError, match="correctable"):
        Protected(Superdense(Link(channel_fidelity=0.99)), prot)
    with pytest.raises(ValueError, match="correctable"):
        ring_allreduce(G, transport="superdense", channel_fidelity=0.99, protection=prot)
    # the same code is fine where the link is clean enough
    Protected(Superdense(Link(channel_fidelity=0.99999)), prot)


def test_good_input_of_the_same_calls_passes():
    ring_allreduce(G)
    ring_allreduce(GI)
    ring_allreduce(G, max_abs=2.0)
    ring_allreduce(G, transport="superdense", pair_fidelity=0.9, seed=0)
    ring_allreduce(G, transport="superdense", pair_fidelity=0.6, protection="distill", seed=0)
    ring_allreduce(G, transport=Superdense(Link(0.9)), seed=[1, 2])
