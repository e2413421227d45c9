"""``qring_edu.exercises._base.forbidden``: the switch the assignments' hidden tests use to grade
"compute it without calling X" (tests/test_assignments.py runs it inside otter)."""

from __future__ import annotations

import numpy as np
import pytest

import qring_edu as qr
import qring_edu.costmodel
import qring_edu.ring
from qring_edu.exercises._base import Forbidden, forbidden


def _ledger_bits(P, d, bits):
    return qr.ring_allreduce(np.zeros((P, d), dtype=int), bits=bits).ledger.online_bits()


def test_switches_the_function_off_everywhere_and_restores_it():
    original = qr.ring_allreduce
    namespace = {"alias": original, "other": len}
    with forbidden("ring_allreduce", namespace=namespace):
        with pytest.raises(Forbidden, match="ring_allreduce is not allowed"):
            _ledger_bits(4, 8, 8)  # through the package attribute
        with pytest.raises(Forbidden):
            qring_edu.ring.ring_allreduce(np.zeros((2, 2), dtype=int))  # its home module
        with pytest.raises(Forbidden):
            namespace["alias"](np.zeros((2, 2), dtype=int))  # an alias in the notebook
        assert namespace["other"] is len  # other bindings untouched
        assert qr.chunk_bounds(8, 4).tolist() == [0, 2, 4, 6, 8]  # allowed helpers still work
    assert qr.ring_allreduce is original and namespace["alias"] is original
    assert _ledger_bits(4, 8, 8) == 96


def test_restores_after_an_error_inside_the_block():
    original = qr.ring_time
    with pytest.raises(ZeroDivisionError):
        with forbidden("ring_time", "parameter_server_time"):
            1 / 0
    assert qr.ring_time is original and qring_edu.costmodel.ring_time is original


def test_own_code_passes_a_shortcut_fails():
    def own(P, d, bits):
        return 2 * (P - 1) * (d // P) * bits

    with forbidden("ring_allreduce", "message_bits", namespace=own.__globals__):
        assert own(4, 8, 8) == 96
        with pytest.raises(Forbidden):
            _ledger_bits(4, 8, 8)


def test_unknown_name_is_a_clear_error():
    with pytest.raises(ValueError, match="not a function of any loaded qring_edu module"):
        with forbidden("no_such_function"):
            pass
