"""Chapter 3 exercise checkers (qring_edu.exercises.superdense)."""

from __future__ import annotations

import numpy as np
import pytest

from qring_edu import fixed_point, ring_allreduce
from qring_edu.exercises._base import Feedback
from qring_edu.exercises.superdense_ring import (
    check_alice_gates,
    check_bit_error_rate,
    check_flip_damage,
    check_lifetime_uses,
    check_superdense_qubits,
    check_symbol_error_rate,
)

GARBAGE = ["three", "", [1, 2], {"a": 1}, True, float("nan"), float("inf"),
           np.array([1.0, 2.0]), object(), ("x", 3)]

CASES = [
    (check_alice_gates, (1, 1)),
    (check_symbol_error_rate, (0.9,)),
    (check_bit_error_rate, (0.9,)),
    (check_superdense_qubits, (3, 7, 5)),
    (check_lifetime_uses, (3, 7, 5)),
    (check_flip_damage, (8, 16, 0.5, 12)),
]


@pytest.mark.parametrize("check,args", CASES)
def test_none_is_not_attempted_and_garbage_fails_quietly(check, args):
    fb = check(None, *args)
    assert isinstance(fb, Feedback) and not fb.passed and "Not attempted" in fb.message
    for junk in GARBAGE:
        fb = check(junk, *args)
        assert isinstance(fb, Feedback) and not fb.passed and fb.message, junk


@pytest.mark.parametrize("check,args", CASES)
def test_bad_exercise_parameters_fail_without_raising(check, args):
    bad = {check_alice_gates: (2, 0), check_symbol_error_rate: (1.5,),
           check_bit_error_rate: (0.1,), check_superdense_qubits: (1, 7, 5),
           check_lifetime_uses: (3, 7, 40), check_flip_damage: (8, 16, 0.5, 16)}[check]
    fb = check(0, *bad)
    assert not fb.passed and "parameters are invalid" in fb.message


def test_alice_gates():
    assert check_alice_gates([], 0, 0).passed
    assert check_alice_gates(["id"], 0, 0).passed
    assert check_alice_gates(["z"], 0, 1).passed
    assert check_alice_gates("z", 0, 1).passed  # a single gate name is accepted as a list
    assert check_alice_gates(["X"], 1, 0).passed  # case-insensitive
    assert check_alice_gates(("x", "z"), 1, 1).passed
    # Equivalent up to a global phase: pass, with a note on the library's order.
    for equivalent in (["z", "x"], ["y"], ["x", "z", "z", "z"]):
        fb = check_alice_gates(equivalent, 1, 1)
        assert fb.passed and "global phase" in fb.message
    # Realistic mistakes: swapped roles of X and Z, forgotten gate, non-Pauli gates.
    fb = check_alice_gates(["x"], 0, 1)
    assert not fb.passed and '"10" instead of "01"' in fb.message and "Z flips z" in fb.message
    assert not check_alice_gates(["z"], 1, 1).passed
    assert not check_alice_gates([], 1, 0).passed
    fb = check_alice_gates(["h"], 0, 1)
    assert not fb.passed and "not a Pauli" in fb.message
    assert "gate name" in check_alice_gates(["cnot"], 1, 1).message
    assert not check_alice_gates(["x"] * 50, 1, 0).passed


def test_error_rates():
    F = 0.97
    assert check_symbol_error_rate(1 - F, F).passed
    assert check_symbol_error_rate(1 - F + 5e-7, F).passed  # tolerance 1e-6
    assert not check_symbol_error_rate(1 - F + 1e-5, F).passed
    assert "one particular Pauli" in check_symbol_error_rate((1 - F) / 3, F).message
    assert "one given bit" in check_symbol_error_rate(2 * (1 - F) / 3, F).message
    assert "intact" in check_symbol_error_rate(F, F).message
    assert check_bit_error_rate(0.02, F).passed
    assert "Z error leaves x alone" in check_bit_error_rate(1 - F, F).message
    assert "X and Y" in check_bit_error_rate((1 - F) / 3, F).message
    assert check_symbol_error_rate(0.0, 1.0).passed and check_symbol_error_rate(0.75, 0.25).passed


def _ledgers(P, d, b):
    zeros = np.zeros((P, d), dtype=np.int64)
    return (ring_allreduce(zeros, bits=b).ledger,
            ring_allreduce(zeros, transport="superdense", bits=b).ledger)


def test_superdense_qubits_even_messages():
    P, d, b = 4, 100, 16
    cl, sd = _ledgers(P, d, b)
    ref = sd.online_qubits()
    assert ref == 2 * (P - 1) * (d // P) * b // 2 == 1200
    assert check_superdense_qubits(ref, P, d, b).passed
    assert check_superdense_qubits(float(ref), P, d, b).passed
    assert "classical count" in check_superdense_qubits(cl.online_bits(), P, d, b).message
    assert "one phase" in check_superdense_qubits(ref // 2, P, d, b).message
    assert "whole numbers" in check_superdense_qubits(ref + 0.5, P, d, b).message
    assert not check_superdense_qubits(ref + 1, P, d, b).passed


def test_superdense_qubits_and_lifetime_with_padding():
    P, d, b = 3, 7, 5
    cl, sd = _ledgers(P, d, b)
    assert sd.online_qubits() == 26 and cl.online_bits() == 50
    assert check_superdense_qubits(26, P, d, b).passed
    assert "rounded up" in check_superdense_qubits(25, P, d, b).message
    assert check_lifetime_uses(sd.lifetime_uses(), P, d, b).passed
    assert sd.lifetime_uses() == 52
    assert "padding" in check_lifetime_uses(50, P, d, b).message
    assert "only the online qubits" in check_lifetime_uses(26, P, d, b).message
    assert "Ebits" in check_lifetime_uses(78, P, d, b).message


def test_lifetime_equals_classical_for_even_messages():
    P, d, b = 4, 100, 16
    cl, sd = _ledgers(P, d, b)
    assert check_lifetime_uses(cl.online_bits(), P, d, b).passed
    assert not check_lifetime_uses(sd.online_qubits(), P, d, b).passed


def test_flip_damage():
    codec = fixed_point(8, 16, 0.5)
    for t in (0, 5, 12, 15):
        ref = 2.0 ** t / codec.scale
        assert check_flip_damage(ref, 8, 16, 0.5, t).passed
        assert check_flip_damage(-ref, 8, 16, 0.5, t).passed  # the sign is ignored
        assert check_flip_damage(ref * (1 + 5e-7), 8, 16, 0.5, t).passed  # relative tol 1e-6
        assert not check_flip_damage(ref * 1.01, 8, 16, 0.5, t).passed
    assert "divide by the scale" in check_flip_damage(2.0 ** 12, 8, 16, 0.5, 12).message
    assert "multiplied by the scale" in check_flip_damage(2.0 ** 12 * codec.scale, 8, 16, 0.5,
                                                          12).message
    assert "factor of two" in check_flip_damage(2.0 ** 11 / codec.scale, 8, 16, 0.5, 12).message
