"""Cut-set lower bound for any all-reduce protocol (qring_edu.costmodel.allreduce_cut_bound),
compared with the rings' ledgers and with VGA's transcript."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qring_edu import ring_allreduce, vga_aggregate
from qring_edu.costmodel import MODEL_SIZES, CutSetBound, allreduce_cut_bound, link_units


@given(P=st.integers(2, 64), d=st.integers(1, 10**6), bits=st.integers(2, 32))
def test_exact_bound_is_db_bits_or_half_as_many_qubits(P, d, bits):
    cut = allreduce_cut_bound(P, d, bits)
    assert cut.information == d * bits
    assert cut.qubits == d * bits / 2
    assert cut.classical_bits == d * bits
    assert cut.vga_bits_in == (P - 1) * d * bits and cut.vga_bits_out == d * bits
    # the ring's busiest worker never receives less than the bound
    assert cut.allows(qubits=cut.superdense_ring) and cut.allows(bits=cut.classical_ring)
    assert cut.superdense_ring >= cut.qubits and cut.classical_ring >= cut.classical_bits


@pytest.mark.parametrize("P", [2, 3, 5, 8])
@pytest.mark.parametrize("d", [1, 7, 40])
@pytest.mark.parametrize("bits", [3, 8])
def test_ring_counts_are_the_ledgers_busiest_link(P, d, bits):
    """On the ring each worker's only incoming link is (w-1, w): per worker = per link."""
    cut = allreduce_cut_bound(P, d, bits)
    zeros = np.zeros((P, d), dtype=np.int64)
    sd = ring_allreduce(zeros, bits=bits, transport="superdense").ledger
    cl = ring_allreduce(zeros, bits=bits).ledger
    assert (
        cut.superdense_ring == sd.online_qubits() == link_units(P, d, bits, transport="superdense")
    )
    assert cut.classical_ring == cl.online_bits()


@pytest.mark.parametrize("P", [2, 3, 4, 8, 16, 64])
def test_ratios_when_P_divides_d(P):
    d, bits = 12 * P, 16
    cut = allreduce_cut_bound(P, d, bits)
    assert cut.superdense_ratio == pytest.approx(2 * (P - 1) / P)
    assert cut.classical_ratio == pytest.approx(2 * (P - 1) / P)
    assert cut.superdense_ring * 2 == cut.classical_ring
    # the bound alone leaves room down to P / (4 (P-1)) of the classical ring's bits
    assert cut.qubits / cut.classical_ring == pytest.approx(P / (4 * (P - 1)))


def test_two_workers_meet_the_bound_exactly():
    cut = allreduce_cut_bound(2, 1000, 16)
    assert cut.superdense_ring == cut.qubits == 8000
    assert cut.classical_ring == cut.classical_bits == 16000


def test_resnet50_numbers():
    cut = allreduce_cut_bound(8, MODEL_SIZES["ResNet-50"], 16)
    assert cut.information == 408_912_512
    assert cut.qubits == 204_456_256
    assert cut.superdense_ring == 357_798_448 and cut.classical_ring == 715_596_896
    assert round(cut.superdense_ratio, 4) == 1.75
    assert cut.vga_bits_in == 7 * 408_912_512


def test_mixed_budgets():
    cut = allreduce_cut_bound(4, 100, 8)  # 800 bits of information
    assert cut.allows(qubits=200, bits=400)
    assert not cut.allows(qubits=200, bits=399)
    assert cut.allows(qubits=400) and not cut.allows(qubits=399)
    assert cut.allows(bits=800) and not cut.allows(bits=799)
    assert not cut.allows()


def test_vga_sends_no_qubit_and_broadcasts_db_bits_per_worker():
    P, d, bits = 4, 6, 8
    x = np.arange(P * d).reshape(P, d) % 2**bits
    res = vga_aggregate(x, bits=bits, seed=1)
    cut = allreduce_cut_bound(P, d, bits)
    # each worker broadcasts its row of d words of b bits and hears the P - 1 others
    assert res.transcript.shape == (P, d)
    assert cut.vga_bits_out == res.transcript[0].size * bits
    assert cut.vga_bits_in == (P - 1) * res.transcript[0].size * bits
    assert cut.allows(qubits=0, bits=cut.vga_bits_in)


@given(eps=st.floats(1e-6, 0.5))
def test_fano_relaxation_for_protocols_with_errors(eps):
    d, bits = 1000, 16
    cut = allreduce_cut_bound(4, d, bits, error=eps)
    h = -(eps * math.log2(eps) + (1 - eps) * math.log2(1 - eps))
    assert cut.information == pytest.approx((1 - eps) * d * bits - h)
    assert cut.information < d * bits and cut.qubits == cut.information / 2


def test_result_and_errors():
    cut = allreduce_cut_bound(8, 8000, 16)
    assert isinstance(cut, CutSetBound)
    with pytest.raises(AttributeError):
        cut.qubits = 0
    assert repr(cut).startswith("CutSetBound(workers=8, d=8000, bits=16, error=0,")
    with pytest.raises(ValueError, match="error"):
        allreduce_cut_bound(8, 10, 16, error=1.0)
    with pytest.raises(ValueError, match="error"):
        allreduce_cut_bound(8, 10, 16, error=-0.1)
    with pytest.raises(ValueError, match=r"P.*>= 2"):
        allreduce_cut_bound(1, 10, 16)
    with pytest.raises(ValueError, match="bits"):
        allreduce_cut_bound(2, 10, 1)
    with pytest.raises(ValueError, match="qubits"):
        cut.allows(qubits=-1)
    with pytest.raises(TypeError, match="bits"):
        cut.allows(bits="3")
