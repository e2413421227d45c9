"""The exact lifetime statement of notation.md / chapter 3: per directed link,
online + offline qubits = classical bits + the number of odd-length messages on that link."""

from __future__ import annotations

import numpy as np
import pytest

from qring_edu import chunk_bounds, ring_allreduce


def odd_messages(P: int, d: int, bits: int, k: int) -> int:
    """Link k -> k+1 sends every chunk but (k+1) mod P in reduce-scatter and every chunk but
    (k+2) mod P in all-gather; a message of n words has n * bits bits."""
    n = np.diff(chunk_bounds(d, P))
    odd = (n * bits) % 2 == 1
    return int(odd.sum() - odd[(k + 1) % P] + odd.sum() - odd[(k + 2) % P])


@pytest.mark.parametrize("P", [2, 3, 4, 7])
@pytest.mark.parametrize("d", [1, 5, 7, 12, 33])
@pytest.mark.parametrize("bits", [2, 3, 5, 8])
def test_lifetime_is_classical_bits_plus_one_per_odd_message(P, d, bits):
    zeros = np.zeros((P, d), dtype=np.int64)
    cl = ring_allreduce(zeros, bits=bits).ledger
    sd = ring_allreduce(zeros, bits=bits, transport="superdense").ledger
    for k, link in enumerate(sd.links):
        b, extra = cl.online_bits(link), odd_messages(P, d, bits, k)
        assert sd.online_qubits(link) == sd.ebits(link) == sd.offline_qubits(link)
        assert 2 * sd.online_qubits(link) == b + extra
        assert sd.lifetime_uses(link) == b + extra
        if bits % 2 == 0:
            assert extra == 0


def test_examples_of_the_statement():
    # chapter 3: P = 3, d = 7, b = 5 -> busiest link 15, 10, 10, 15 bits: 50 bits, 52 uses
    assert odd_messages(3, 7, 5, 0) == 2
    # P | d with d/P and b odd: all 2(P-1) messages odd, lifetime 2(P-1)(d b / P + 1)
    P, d, b = 4, 12, 5
    sd = ring_allreduce(np.zeros((P, d), dtype=np.int64), bits=b, transport="superdense").ledger
    assert sd.lifetime_uses() == 2 * (P - 1) * (d * b // P + 1) == 96
