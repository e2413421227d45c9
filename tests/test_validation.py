"""Bad input (ARCHITECTURE.md): every public function raises ValueError/TypeError naming the argument.

Each case is (callable, exception type, regex the message must match). The regex names the
argument (and, where useful, the accepted range) so that a message that does not tell the user
what to fix fails the test. This file: the ring, fixed point, superdense coding and the ledger;
the cost model, training, Holevo and VQC modules and the chapters' experiments are in
``tests/test_validation_protocols.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from qring_edu.fixedpoint import fixed_point, modular_sum, to_signed, to_words
from qring_edu.noise import Link
from qring_edu.ring import chunk_bounds, ring_allreduce, ring_schedule
from qring_edu.superdense import (
    isotropic_state,
    superdense_circuit,
    superdense_outcome_probabilities,
    superdense_send,
    superdense_send_qiskit,
)

G = np.ones((3, 4))  # good float grads
GI = np.ones((3, 4), dtype=np.int64)  # good integer grads
NAN = float("nan")
INF = float("inf")


def ring(**kw):
    grads = kw.pop("grads", G)
    return lambda: ring_allreduce(grads, **kw)


def sd_ring(**kw):
    return ring(transport="superdense", **kw)


CASES = {
    # ---------------- ring_allreduce: grads
    "ring P<2": (ring(grads=np.ones((1, 4))), ValueError, r"grads.*P >= 2"),
    "ring 1-D": (ring(grads=np.ones(4)), ValueError, r"grads.*shape \(P, d\)"),
    "ring 3-D": (ring(grads=np.ones((2, 2, 2))), ValueError, r"grads.*shape \(P, d\)"),
    "ring 0-D": (ring(grads=3.0), ValueError, r"grads.*shape \(P, d\)"),
    "ring d=0": (ring(grads=np.ones((2, 0))), ValueError, r"grads.*d >= 1"),
    "ring ragged": (ring(grads=[[1.0, 2.0], [3.0]]), ValueError, r"grads.*(ragged|rectangular)"),
    "ring NaN": (
        ring(grads=np.array([[1.0, NAN], [0.0, 1.0]])),
        ValueError,
        r"grads.*(NaN|finite)",
    ),
    "ring Inf": (
        ring(grads=np.array([[1.0, -INF], [0.0, 1.0]])),
        ValueError,
        r"grads.*(Inf|finite)",
    ),
    "ring str grads": (ring(grads=np.array([["a", "b"], ["c", "d"]])), TypeError, r"grads"),
    "ring bool grads": (ring(grads=np.ones((2, 2), dtype=bool)), TypeError, r"grads"),
    "ring complex grads": (ring(grads=np.ones((2, 2), dtype=complex)), TypeError, r"grads"),
    "ring int beyond int64": (ring(grads=[[2**70, 1], [1, 1]]), ValueError, r"grads.*int64"),
    # ---------------- ring_allreduce: bits
    "ring bits=1": (ring(bits=1), ValueError, r"bits.*2\.\.32"),
    "ring bits=33": (ring(bits=33), ValueError, r"bits.*2\.\.32"),
    "ring bits=0": (ring(grads=GI, bits=0), ValueError, r"bits.*2\.\.32"),
    "ring bits bool": (ring(bits=True), TypeError, r"bits"),
    "ring bits str": (ring(bits="16"), TypeError, r"bits"),
    "ring bits float": (ring(bits=16.0), TypeError, r"bits"),
    "ring bits too small for P (floats)": (
        ring(grads=np.ones((4, 2)), bits=3),
        ValueError,
        r"bits.*too small.*P = 4",
    ),
    # ---------------- ring_allreduce: transport, fidelity, max_abs, seed
    "ring transport name": (
        ring(transport="quantum"),
        ValueError,
        r"transport.*classical.*superdense",
    ),
    "ring transport bool": (ring(transport=True), (ValueError, TypeError), r"transport"),
    "ring F<0.25": (sd_ring(pair_fidelity=0.2), ValueError, r"pair_fidelity.*\[0\.25, 1\]"),
    "ring F>1": (sd_ring(pair_fidelity=1.01), ValueError, r"pair_fidelity.*\[0\.25, 1\]"),
    "ring F NaN": (sd_ring(pair_fidelity=NAN), ValueError, r"pair_fidelity"),
    "ring F str": (sd_ring(pair_fidelity="0.9"), TypeError, r"pair_fidelity"),
    "ring F bool": (sd_ring(pair_fidelity=True), TypeError, r"pair_fidelity"),
    "ring F with classical": (ring(pair_fidelity=0.9), ValueError, r"pair_fidelity.*classical"),
    "ring value beyond max_abs": (ring(max_abs=0.5), ValueError, r"max_abs"),
    "ring max_abs=0": (ring(max_abs=0.0), ValueError, r"max_abs"),
    "ring max_abs<0": (ring(max_abs=-1.0), ValueError, r"max_abs"),
    "ring max_abs inf": (ring(max_abs=INF), ValueError, r"max_abs"),
    "ring max_abs str": (ring(max_abs="1"), TypeError, r"max_abs"),
    "ring max_abs with int grads": (ring(grads=GI, max_abs=2.0), ValueError, r"max_abs.*float"),
    "ring max_abs str (int grads)": (ring(grads=GI, max_abs="1"), ValueError, r"max_abs"),
    "ring seed<0": (ring(seed=-1), ValueError, r"seed"),
    "ring seed str": (ring(seed="a"), TypeError, r"seed"),
    "ring seed float": (ring(seed=1.5), TypeError, r"seed"),
    # ---------------- schedule helpers
    "schedule P<2": (lambda: ring_schedule(1), ValueError, r"workers.*2\.\.256"),
    "schedule P huge": (lambda: ring_schedule(10**30), ValueError, r"workers.*2\.\.256"),
    "schedule P bool": (lambda: ring_schedule(True), TypeError, r"workers"),
    "schedule P float": (lambda: ring_schedule(3.0), TypeError, r"workers"),
    "chunk_bounds d=0": (lambda: chunk_bounds(0, 3), ValueError, r"\bd\b.* 1\.\."),
    "chunk_bounds P<2": (lambda: chunk_bounds(5, 1), ValueError, r"workers.* 2\.\."),
    # ---------------- fixed point
    "fixed_point P<2": (lambda: fixed_point(1, 8, 1.0), ValueError, r"P.* 2\.\."),
    "fixed_point bits": (lambda: fixed_point(2, 40, 1.0), ValueError, r"bits.*2\.\.32"),
    "fixed_point bits too small": (lambda: fixed_point(8, 4, 1.0), ValueError, r"bits.*too small"),
    "fixed_point max_abs<=0": (lambda: fixed_point(2, 8, 0.0), ValueError, r"max_abs"),
    "fixed_point max_abs NaN": (lambda: fixed_point(2, 8, NAN), ValueError, r"max_abs"),
    "fixed_point max_abs str": (lambda: fixed_point(2, 8, "1"), TypeError, r"max_abs"),
    "encode beyond max_abs": (
        lambda: fixed_point(2, 8, 1.0).encode(np.array([2.0])),
        ValueError,
        r"max_abs",
    ),
    "encode NaN": (
        lambda: fixed_point(2, 8, 1.0).encode(np.array([0.0, NAN])),
        ValueError,
        r"(NaN|finite)",
    ),
    "to_words floats": (lambda: to_words(np.array([1.5]), 8), TypeError, r"values.*integer"),
    "to_words NaN": (lambda: to_words(np.array([NAN]), 8), TypeError, r"values.*integer"),
    "to_words bits": (lambda: to_words(np.array([1]), 1), ValueError, r"bits.*2\.\.32"),
    "to_words bits bool": (lambda: to_words(np.array([1]), True), TypeError, r"bits"),
    "to_signed floats": (lambda: to_signed(np.array([1.5]), 8), TypeError, r"words.*integer"),
    "to_signed bits": (lambda: to_signed(np.array([1]), 33), ValueError, r"bits.*2\.\.32"),
    "modular_sum floats": (lambda: modular_sum(np.ones((2, 2)), 8), TypeError, r"values.*integer"),
    "modular_sum 1-D": (lambda: modular_sum(np.ones(3, dtype=int), 8), ValueError, r"values.*2-D"),
    "modular_sum ragged": (lambda: modular_sum([[1, 2], [3]], 8), ValueError, r"values"),
    "modular_sum bits": (lambda: modular_sum(np.ones((2, 2), dtype=int), 1), ValueError, r"bits"),
    # ---------------- superdense
    "send 2-D": (lambda: superdense_send(np.zeros((2, 2))), ValueError, r"bits.*1-D"),
    "send value 2": (lambda: superdense_send([0, 2]), ValueError, r"bits.*0 and 1"),
    "send value -1": (lambda: superdense_send([0, -1, 1]), ValueError, r"bits.*0 and 1"),
    "send value 0.5": (lambda: superdense_send([0.5]), ValueError, r"bits.*0 and 1"),
    "send NaN": (lambda: superdense_send([0, NAN]), ValueError, r"bits"),
    "send str": (lambda: superdense_send(["0", "1"]), TypeError, r"bits"),
    "send F": (
        lambda: superdense_send([0, 1], link=Link(0.1)),
        ValueError,
        r"pair_fidelity.*\[0\.25, 1\]",
    ),
    "send F str": (lambda: superdense_send([0, 1], link=Link("1")), TypeError, r"pair_fidelity"),
    "send link float": (lambda: superdense_send([0, 1], link=0.9), TypeError, r"link"),
    "send seed": (lambda: superdense_send([0, 1], seed=-3), ValueError, r"seed"),
    "qiskit send value 2": (lambda: superdense_send_qiskit([0, 2]), ValueError, r"bits.*0 and 1"),
    "qiskit send 2-D": (lambda: superdense_send_qiskit(np.zeros((1, 2))), ValueError, r"bits.*1-D"),
    "qiskit send link": (
        lambda: superdense_send_qiskit([0, 1], link="0.9"),
        TypeError,
        r"link",
    ),
    "qiskit send seed": (lambda: superdense_send_qiskit([0, 1], seed="x"), TypeError, r"seed"),
    "circuit x=2": (lambda: superdense_circuit(2, 0), ValueError, r"\bx\b.*0\.\.1"),
    "circuit z=-1": (lambda: superdense_circuit(0, -1), ValueError, r"\bz\b.*0\.\.1"),
    "circuit z bool": (lambda: superdense_circuit(0, True), TypeError, r"\bz\b"),
    "circuit x str": (lambda: superdense_circuit("1", 0), TypeError, r"\bx\b"),
    "circuit link": (lambda: superdense_circuit(0, 0, link=1.0), TypeError, r"link"),
    "circuit measure str": (
        lambda: superdense_circuit(0, 0, measure="False"),
        TypeError,
        r"measure",
    ),
    "outcome link": (
        lambda: superdense_outcome_probabilities(0, 0, link=None),
        TypeError,
        r"link",
    ),
    "outcome x": (lambda: superdense_outcome_probabilities(3, 0), ValueError, r"\bx\b"),
    "isotropic F>1": (lambda: isotropic_state(1.01), ValueError, r"pair_fidelity.*\[0\.25, 1\]"),
    "isotropic F<0.25": (lambda: isotropic_state(0.0), ValueError, r"pair_fidelity"),
    "isotropic F str": (lambda: isotropic_state("1"), TypeError, r"pair_fidelity"),
    # ---------------- ledger
    "ledger link not on ring": (
        lambda: ring_allreduce(G).ledger.online_bits((0, 2)),
        ValueError,
        r"link",
    ),
    "ledger link type": (lambda: ring_allreduce(G).ledger.ebits("01"), TypeError, r"link"),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_bad_input_raises_naming_the_argument(case):
    fn, exc, pattern = CASES[case]
    with pytest.raises(exc, match=pattern):
        fn()


def test_good_input_of_the_same_calls_passes():
    """The cases above fail because of the one bad argument, not because the call is broken."""
    ring_allreduce(G)
    ring_allreduce(GI)
    ring_allreduce(G, transport="superdense", pair_fidelity=0.9, seed=0)
    ring_allreduce(np.ones((4, 2)), bits=4)
    fixed_point(8, 5, 1.0)
    superdense_send([0, 1, 1], link=Link(0.25), seed=0)
    superdense_circuit(1, 1, link=Link(0.25))
    modular_sum(np.ones((2, 2), dtype=np.uint8), 8)


def test_none_grads_is_a_type_error():
    with pytest.raises(TypeError, match="grads"):
        ring_allreduce(None)
