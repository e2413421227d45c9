"""α–β cost model (qring_edu.costmodel, book/01_bottleneck.ipynb, book/03_superdense_ring.ipynb)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qring_edu import costmodel
from qring_edu.costmodel import (
    MODEL_SIZES,
    allreduce_lower_bound_bits,
    iteration_time,
    parameter_server_time,
    ring_time,
)
from qring_edu.ring import ring_allreduce

P_ = st.integers(2, 64)
D_ = st.integers(1, 10**7)
BITS_ = st.integers(2, 32)
TIME_ = st.floats(0, 1e-2, allow_nan=False)


@given(P=P_, m=st.integers(1, 10**5), bits=BITS_, alpha=TIME_, beta=TIME_)
def test_ring_time_formula_when_P_divides_d(P, m, bits, alpha, beta):
    d = m * P
    want = 2 * (P - 1) * (alpha + (d / P) * bits * beta)
    assert ring_time(P, d, bits, alpha, beta) == pytest.approx(want, rel=1e-12, abs=1e-300)


@given(P=P_, d=D_, bits=BITS_, alpha=TIME_, beta=TIME_)
def test_ring_time_uses_largest_chunk(P, d, bits, alpha, beta):
    units = math.ceil(d / P) * bits
    got_c = ring_time(P, d, bits, alpha, beta)
    got_q = ring_time(P, d, bits, alpha, beta, transport="superdense")
    assert got_c == pytest.approx(2 * (P - 1) * (alpha + units * beta), rel=1e-12, abs=1e-300)
    assert got_q == pytest.approx(
        2 * (P - 1) * (alpha + math.ceil(units / 2) * beta), rel=1e-12, abs=1e-300
    )
    assert got_q <= got_c


def test_superdense_halves_the_bandwidth_term():
    # alpha = 0 and an even message: exactly half
    assert ring_time(8, 8000, 16, 0.0, 1e-9, transport="superdense") == pytest.approx(
        ring_time(8, 8000, 16, 0.0, 1e-9) / 2
    )


def test_ring_time_example_by_hand():
    # P = 4, d = 1000, 16-bit words, alpha = 1 us, beta = 1 ns/bit:
    # 6 steps of (1e-6 + 250*16*1e-9) = 6 * 5e-6 = 3e-5 s
    assert ring_time(4, 1000, 16, 1e-6, 1e-9) == pytest.approx(3e-5)
    assert ring_time(4, 1000, 16, 1e-6, 1e-9, transport="superdense") == pytest.approx(
        6 * (1e-6 + 2000e-9)
    )


@given(P=P_, d=D_, bits=BITS_, alpha=TIME_, beta=TIME_)
def test_parameter_server_time(P, d, bits, alpha, beta):
    want = 2 * (alpha + P * d * bits * beta)
    assert parameter_server_time(P, d, bits, alpha, beta) == pytest.approx(
        want, rel=1e-12, abs=1e-300
    )


@given(P=P_, d=D_, bits=BITS_)
def test_lower_bound(P, d, bits):
    assert allreduce_lower_bound_bits(P, d, bits) == pytest.approx(2 * (P - 1) / P * d * bits)


@pytest.mark.parametrize("P,m,bits", [(2, 3, 8), (4, 5, 16), (7, 2, 32), (16, 1, 3)])
def test_ring_meets_lower_bound_when_P_divides_d(P, m, bits):
    """Bandwidth optimality: each worker's link carries exactly the lower bound."""
    d = m * P
    led = ring_allreduce(np.zeros((P, d), dtype=np.int64), bits=bits).ledger
    for link in led.links:
        assert led.online_bits(link) == pytest.approx(allreduce_lower_bound_bits(P, d, bits))


def test_ring_beats_parameter_server_for_large_messages():
    P, d, bits = 16, 10**6, 32
    assert ring_time(P, d, bits, 1e-6, 1e-10) < parameter_server_time(P, d, bits, 1e-6, 1e-10)


@given(
    compute=st.floats(0, 1.0),
    P=st.integers(2, 32),
    m=st.integers(1, 10**4),
    bits=st.sampled_from([8, 16, 32]),
    alpha=TIME_,
    beta=st.floats(1e-12, 1e-6),
)
def test_iteration_time(compute, P, m, bits, alpha, beta):
    d = m * P
    cl = iteration_time(compute, P, d, bits, alpha, beta)
    assert cl.transport == "classical"
    assert cl.distribution == 0.0
    assert cl.ring == pytest.approx(ring_time(P, d, bits, alpha, beta))
    assert cl.total == pytest.approx(compute + cl.ring)

    q = iteration_time(compute, P, d, bits, alpha, beta, transport="superdense")
    qubits_per_link = 2 * (P - 1) * (m * bits // 2)  # even messages here
    assert q.distribution == pytest.approx(qubits_per_link * beta)
    # online ring: same latency, half the bandwidth term
    assert q.ring == pytest.approx(2 * (P - 1) * (alpha + (m * bits / 2) * beta))
    assert q.ring == pytest.approx(cl.ring - (P - 1) * m * bits * beta)
    assert q.total == pytest.approx(max(compute, q.distribution) + q.ring)
    # distribution hides behind compute when compute is long enough
    if compute >= q.distribution:
        assert q.total <= cl.total + 1e-15


def test_iteration_time_distribution_matches_ledger():
    P, d, bits = 4, 4000, 16
    led = ring_allreduce(np.zeros((P, d), dtype=np.int64), transport="superdense", bits=bits).ledger
    beta_q = 2e-9
    it = iteration_time(0.0, P, d, bits, 1e-6, 1e-9, transport="superdense", beta_qubit=beta_q)
    assert it.distribution == pytest.approx(led.offline_qubits() * beta_q)
    assert it.ring == pytest.approx(led.ring_time(1e-6, beta_q))


def test_iteration_time_beta_qubit():
    a = iteration_time(0.1, 4, 400, 16, 1e-6, 1e-9, transport="superdense")
    b = iteration_time(0.1, 4, 400, 16, 1e-6, 1e-9, transport="superdense", beta_qubit=1e-9)
    c = iteration_time(0.1, 4, 400, 16, 1e-6, 1e-9, transport="superdense", beta_qubit=1e-8)
    assert a == b
    assert c.ring > a.ring and c.distribution > a.distribution
    assert "IterationTime(transport='superdense'" in repr(a)


def test_model_sizes():
    assert MODEL_SIZES["ResNet-50"] == 25_557_032
    assert all(isinstance(v, int) and v > 0 for v in MODEL_SIZES.values())
    sizes = list(MODEL_SIZES.values())
    assert sizes == sorted(sizes)


def test_module_exports():
    for name in costmodel.__all__:
        assert hasattr(costmodel, name)


@pytest.mark.parametrize("P", [2, 3, 5, 8])
@pytest.mark.parametrize("d", [1, 4, 10, 33])
@pytest.mark.parametrize("bits", [3, 8])
def test_link_units_is_the_ledgers_busiest_link(P, d, bits):
    """Uneven chunks included: the closed form is the ledger's busiest link, in both currencies."""
    from qring_edu.costmodel import link_units

    zeros = np.zeros((P, d), dtype=np.int64)
    sd = ring_allreduce(zeros, bits=bits, transport="superdense").ledger
    cl = ring_allreduce(zeros, bits=bits).ledger
    assert link_units(P, d, bits, transport="superdense") == sd.online_qubits() == sd.ebits()
    assert link_units(P, d, bits) == cl.online_bits()


@given(P=st.integers(2, 40), d=st.integers(1, 500), bits=BITS_)
def test_link_units_against_message_bits(P, d, bits):
    from qring_edu.costmodel import link_units
    from qring_edu.ring import message_bits

    m = message_bits(P, d, bits)
    assert link_units(P, d, bits) == m.sum(axis=1).max()
    assert link_units(P, d, bits, transport="superdense") == ((m + 1) // 2).sum(axis=1).max()


def test_formulas_take_a_billion_workers_in_constant_memory():
    """No array of size P: a billion workers (and a trillion words) cost no memory."""
    import tracemalloc

    from qring_edu.costmodel import allreduce_cut_bound, link_units

    P, d = 10**9, 10**12
    tracemalloc.start()
    values = (
        ring_time(P, d, 16, 1e-6, 1e-9),
        ring_time(P, d, 16, 1e-6, 1e-9, transport="superdense"),
        parameter_server_time(P, d, 16, 1e-6, 1e-9),
        allreduce_lower_bound_bits(P, d, 16),
        link_units(P, d, 16),
        allreduce_cut_bound(P, d, 16).superdense_ring,
        iteration_time(1.0, P, d, 16, 1e-6, 1e-9, transport="superdense").total,
    )
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 100_000 and all(v > 0 for v in values)
    assert link_units(P, d, 16) == 2 * (P - 1) * (d // P) * 16  # P divides d
