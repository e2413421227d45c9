"""Chapter 3 exercise checkers (qring_edu.exercises.superdense_ring)."""

from __future__ import annotations

import numpy as np
import pytest

from qring_edu import fixed_point, ring_allreduce
from qring_edu.costmodel import MODEL_SIZES, bucketed_iteration_time
from qring_edu.exercises._base import Feedback, call_reader
from qring_edu.exercises.superdense_ring import (
    check_alice_gates,
    check_bidirectional_qubits,
    check_bit_error_rate,
    check_flip_damage,
    check_flip_reach,
    check_idle_head,
    check_lifetime_uses,
    check_link_busy_time,
    check_superdense_coding,
    check_superdense_qubits,
    check_symbol_error_rate,
)

GARBAGE = [
    "three",
    "",
    [1, 2],
    {"a": 1},
    True,
    float("nan"),
    float("inf"),
    np.array([1.0, 2.0]),
    object(),
    ("x", 3),
]

CASES = [
    (check_alice_gates, (1, 1)),
    (check_symbol_error_rate, (0.9,)),
    (check_bit_error_rate, (0.9,)),
    (check_superdense_qubits, (3, 7, 5)),
    (check_lifetime_uses, (3, 7, 5)),
    (check_flip_damage, (8, 16, 0.5, 12)),
    (check_link_busy_time, (10.0, 5)),
    (check_idle_head, (20.0, 5)),
    (check_flip_reach, (6, "all-gather", 1)),
    (check_bidirectional_qubits, (4, 8000, 16)),
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
    bad = {
        check_alice_gates: (2, 0),
        check_symbol_error_rate: (1.5,),
        check_bit_error_rate: (0.1,),
        check_superdense_qubits: (1, 7, 5),
        check_lifetime_uses: (3, 7, 40),
        check_flip_damage: (8, 16, 0.5, 16),
        check_link_busy_time: (0.0, 5),
        check_idle_head: (20.0, 0),
        check_flip_reach: (6, "broadcast", 1),
        check_bidirectional_qubits: (4, 1, 16),
    }[check]
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
    return (
        ring_allreduce(zeros, bits=b).ledger,
        ring_allreduce(zeros, transport="superdense", bits=b).ledger,
    )


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
        ref = 2.0**t / codec.scale
        assert check_flip_damage(ref, 8, 16, 0.5, t).passed
        assert check_flip_damage(-ref, 8, 16, 0.5, t).passed  # the sign is ignored
        assert check_flip_damage(ref * (1 + 5e-7), 8, 16, 0.5, t).passed  # relative tol 1e-6
        assert not check_flip_damage(ref * 1.01, 8, 16, 0.5, t).passed
    assert "divide by the scale" in check_flip_damage(2.0**12, 8, 16, 0.5, 12).message
    assert (
        "multiplied by the scale"
        in check_flip_damage(2.0**12 * codec.scale, 8, 16, 0.5, 12).message
    )
    assert "factor of two" in check_flip_damage(2.0**11 / codec.scale, 8, 16, 0.5, 12).message


# -- build it yourself: superdense coding in raw Qiskit -----------------------------------------
def _reader(
    *,
    swap_clbits=False,
    swap_roles=False,
    skip_h=False,
    no_cnot=False,
    in_place=False,
    crash=None,
    phi_minus=False,
    on_bob=False,
):
    """A reader's three functions, right or with one realistic mistake."""
    from qiskit import QuantumCircuit

    def create_bell_pair():
        if crash == "create":
            raise RuntimeError("forgot to write this")
        qc = QuantumCircuit(2, 2)
        qc.h(0)
        if not no_cnot:
            qc.cx(0, 1)
        if phi_minus:
            qc.z(0)
        return qc

    def encode_message(qc, x, z):
        if crash == "encode":
            return qc.nonexistent_gate(0)
        a, b = (z, x) if swap_roles else (x, z)
        if a:
            qc.x(1 if on_bob else 0)
        if b:
            qc.z(1 if on_bob else 0)
        return None if in_place else qc

    def decode_message(qc):
        if crash == "decode":
            raise ZeroDivisionError("division by zero")
        qc.cx(0, 1)
        if not skip_h:
            qc.h(0)
        qc.measure(0, 1 if swap_clbits else 0)
        qc.measure(1, 0 if swap_clbits else 1)
        return qc

    return create_bell_pair, encode_message, decode_message


def test_encoding_on_bobs_qubit_makes_the_same_states_but_fails():
    """(X⊗I)|Φ+⟩ = (I⊗X)|Φ+⟩ and likewise for Z: the states cannot tell, the checker must."""
    from qiskit.quantum_info import Statevector

    create, encode, _ = _reader()
    create_b, encode_b, _ = _reader(on_bob=True)
    for x, z in ((0, 1), (1, 0), (1, 1)):
        alice, bob = encode(create(), x, z), encode_b(create_b(), x, z)
        assert abs(abs(Statevector(alice).inner(Statevector(bob))) - 1) < 1e-12
    fb = check_superdense_coding(_reader(on_bob=True), seeds=(0,), shots=8)
    assert not fb.passed and "qubit 1" in fb.message


def test_alice_gates_from_another_bell_pair():
    # |Ψ+⟩ = (X⊗I)|Φ+⟩ already carries an X: to send (1, 1) Alice needs only Z
    assert check_alice_gates(["z"], 1, 1, pair=(1, 0)).passed
    assert check_alice_gates(["x"], 1, 1, pair=(0, 1)).passed
    assert check_alice_gates([], 1, 1, pair=(1, 1)).passed
    assert check_alice_gates(["y"], 0, 0, pair=(1, 1)).passed  # Y = iXZ: a global phase
    fb = check_alice_gates(["x", "z"], 1, 1, pair=(1, 0))
    assert not fb.passed and '"01"' in fb.message  # the pair's X and Alice's X cancel
    for bad in ((2, 0), [1, 0], "10"):
        assert not check_alice_gates(["z"], 1, 1, pair=bad).passed


def test_superdense_coding_checker_passes_correct_code():
    fb = check_superdense_coding(_reader())
    assert fb.passed and "Aer" in fb.message
    assert check_superdense_coding(_reader(in_place=True)).passed  # returns None: in place
    assert check_superdense_coding(list(_reader()), seeds=(5,), shots=8).passed


@pytest.mark.parametrize(
    "mistake, first_case, words",
    [
        (dict(swap_clbits=True), "(0, 1)", ["little-endian", '"zx"']),
        (dict(swap_roles=True), "(0, 1)", ["swapped the roles"]),
        (dict(skip_h=True), "(0, 0)", ["random"]),
        (dict(no_cnot=True), "create_bell_pair", ["product state"]),
        (dict(phi_minus=True), "create_bell_pair", ["|Φ−⟩"]),
        (dict(on_bob=True), "(0, 1)", ["qubit 1", "Bob"]),
    ],
)
def test_superdense_coding_checker_names_the_first_failing_message(mistake, first_case, words):
    fb = check_superdense_coding(_reader(**mistake))
    assert not fb.passed and first_case in fb.message
    for w in words:
        assert w in fb.message


@pytest.mark.parametrize("where", ["create", "encode", "decode"])
def test_superdense_coding_checker_reports_a_crash_readably(where):
    fb = check_superdense_coding(_reader(crash=where))
    assert not fb.passed and "raised" in fb.message and "Traceback" not in fb.message


def test_superdense_coding_checker_refuses_what_is_not_three_functions():
    assert "Not attempted" in check_superdense_coding(None).message
    assert "tuple" in check_superdense_coding(_reader()[:2]).message
    create, encode, decode = _reader()
    assert "must be a function" in check_superdense_coding((create, encode, 3)).message
    fb = check_superdense_coding((lambda: "circuit", encode, decode))
    assert not fb.passed and "QuantumCircuit" in fb.message
    assert "parameters are invalid" in check_superdense_coding(_reader(), shots=0).message


def test_call_reader_never_raises():
    assert call_reader(len, [1, 2]) == (2, None)
    _, fb = call_reader(3)
    assert not fb.passed and "expected a function" in fb.message
    _, fb = call_reader(lambda: [][1], name="f")
    assert fb.message.startswith("f: line 1 of your function") and "raised IndexError" in fb.message


# -- step checkers of the reasoning exercises ---------------------------------------------------
def test_link_busy_time_is_online_plus_distribution():
    d = MODEL_SIZES["ResNet-50"]
    sd = bucketed_iteration_time(
        0.0, 8, d, 16, 5e-6, 1e-10, buckets=5, transport="superdense", method="simulate"
    )
    cl = bucketed_iteration_time(0.0, 8, d, 16, 5e-6, 1e-10, buckets=5, method="simulate")
    ref = (sd.online + sd.distribution) * 1e3
    assert check_link_busy_time(ref).passed and check_link_busy_time(ref * (1 + 5e-5)).passed
    assert "latency α" in check_link_busy_time(cl.online * 1e3).message
    assert "only the online" in check_link_busy_time(sd.online * 1e3).message
    assert not check_link_busy_time(ref * 1.01).passed


def test_idle_head_is_the_first_ready_time():
    assert check_idle_head(20 * (1 / 3 + 2 / 3 / 5), 20.0, 5).passed
    assert "forward pass only" in check_idle_head(20 / 3, 20.0, 5).message
    assert check_idle_head(20.0, 20.0, 1).passed  # one bucket: ready after the backward
    assert check_idle_head(20.0, 20.0, 4, 0.0).passed  # phi = 0: all ready at the compute's end


@pytest.mark.parametrize("P", [2, 3, 5, 8])
def test_flip_reach_follows_the_schedule(P):
    for s in range(P - 1):
        assert check_flip_reach(P, P, "reduce-scatter", s).passed  # the same wrong value
        assert check_flip_reach(P - 1 - s, P, "all-gather", s).passed  # the downstream copies
    assert "reduce-scatter" in check_flip_reach(P, P, "all-gather", 0).message


def test_bidirectional_ring_halves_each_direction():
    assert check_bidirectional_qubits(48_000, 4, 8000, 16).passed
    assert "one ring" in check_bidirectional_qubits(96_000, 4, 8000, 16).message
    # odd halves: ceil(d/2) words clockwise; the busier direction counts
    # (4 words: chunks of 2, 1, 1 -> messages of 10, 5, 5, 10 bits -> 5 + 3 + 3 + 5 qubits)
    assert check_bidirectional_qubits(16, 3, 7, 5).passed
    assert not check_bidirectional_qubits(15, 3, 7, 5).passed


def test_docstring_examples_of_the_checkers_helpers():
    import doctest

    from qring_edu.exercises import _base

    result = doctest.testmod(_base, raise_on_error=False, verbose=False)
    assert result.attempted > 0 and result.failed == 0
