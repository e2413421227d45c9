"""Exercise checkers of chapter 3, *The superdense ring* (presentation floor).

Every ``check_<name>(answer, ...)`` compares the student's answer with the library and returns a
:class:`~qring_edu.exercises.Feedback`. ``answer=None`` means "not attempted"; any other input,
however malformed, gives a failing feedback with a hint — nothing raises and nothing is evaluated (numbers follow :func:`~qring_edu.exercises._base.as_number`).
Tolerances are stated in each docstring.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._validate import check_bits, check_int
from ..fixedpoint import fixed_point
from ..ring import message_bits
from ..superdense import superdense_circuit, superdense_outcome_probabilities
from ._base import (
    Feedback,
    as_number,
    bad_parameters,
    compare_number,
    failed,
    not_attempted,
    passed,
)

__all__ = [
    "check_alice_gates",
    "check_symbol_error_rate",
    "check_bit_error_rate",
    "check_superdense_qubits",
    "check_lifetime_uses",
    "check_flip_damage",
]

#: Single-qubit gates a student may name for Alice's encoding (lower case, QuantumCircuit methods).
_GATES = {"i": "id", "id": "id", "identity": "id", "x": "x", "y": "y", "z": "z", "h": "h",
          "s": "s", "sdg": "sdg", "t": "t"}


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


# --------------------------------------------------------------------------------------------
# Superdense coding
# --------------------------------------------------------------------------------------------

def _encoding_reference(x: int, z: int):
    """Alice's encoding unitary on A as the library builds it (the gates between the barriers)."""
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import Operator

    circuit = superdense_circuit(x, z, measure=False)
    body = QuantumCircuit(1)
    inside = False
    for inst in circuit.data:
        if inst.operation.name == "barrier":
            if inside:
                break
            inside = True
            continue
        if inside:
            body.append(inst.operation, [0])
    return Operator(body)


def check_alice_gates(answer, x: int, z: int) -> Feedback:
    """Which gates must Alice apply to her qubit A, in order, to send ``(x, z)``?

    ``answer``: a list of gate names applied first to last, e.g. ``["x", "z"]``; ``[]`` for the
    identity. Names: i/id, x, y, z, h, s, sdg, t (case-insensitive). The answer passes when its
    unitary equals the library's encoding ``Z**z X**x`` up to a global phase (exactly: Frobenius
    distance below 1e-9 after removing the phase), so equivalent sequences such as ``["y"]`` for
    ``(1, 1)`` also pass, with a note.
    """
    try:
        reference = _encoding_reference(x, z)
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    what = f"Alice's gates for (x, z) = ({x}, {z})"
    if answer is None:
        return not_attempted(what)
    if isinstance(answer, str):
        answer = [answer] if answer.strip().lower() in _GATES else None
        if answer is None:
            return failed(f"{what}: give a list of gate names, e.g. [\"x\", \"z\"] "
                          "(one string per gate, in the order Alice applies them).")
    if not isinstance(answer, (list, tuple)):
        return failed(f"{what}: expected a list of gate names such as [\"x\", \"z\"], "
                      f"got {type(answer).__name__}.")
    names = []
    for item in answer:
        key = item.strip().lower() if isinstance(item, str) else None
        if key not in _GATES:
            return failed(f"{what}: {item!r} is not a gate name this checker knows "
                          f"(use {', '.join(sorted(set(_GATES) - {'identity'}))}).")
        names.append(_GATES[key])
    if len(names) > 20:
        return failed(f"{what}: {len(names)} gates is far more than needed (at most two).")
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import Operator

    circuit = QuantumCircuit(1)
    for name in names:
        getattr(circuit, name)(0)
    given = Operator(circuit).data
    ref = reference.data
    # Remove the global phase: align the phase of the largest entry of the reference.
    idx = np.unravel_index(np.argmax(np.abs(ref)), ref.shape)
    if abs(given[idx]) < 1e-9:
        close = False
    else:
        phase = given[idx] / ref[idx]
        close = abs(abs(phase) - 1) < 1e-9 and np.linalg.norm(given - phase * ref) < 1e-9
    if close:
        canonical = ["x"] * x + ["z"] * z
        if [n for n in names if n != "id"] == canonical:
            return passed(f"{what}: correct — X**x then Z**z maps |Φ+⟩ to the Bell state Bob "
                          f"decodes as \"{x}{z}\".")
        return passed(f"{what}: correct up to a global phase (same Bell state, same decoding). "
                      f"The library applies {canonical or 'nothing'}.")
    if any(n in ("h", "s", "sdg", "t") for n in names):
        return failed(f"{what}: not a Pauli encoding. H, S and T do not map |Φ+⟩ to another Bell "
                      "state, so Bob's Bell measurement cannot decode the message with certainty. "
                      "Use only X and Z.")
    flips_x = sum(n in ("x", "y") for n in names) % 2
    flips_z = sum(n in ("z", "y") for n in names) % 2
    return failed(f"{what}: your gates send \"{flips_x}{flips_z}\" instead of \"{x}{z}\". "
                  "X on A flips x (Bob's B outcome), Z flips z (Bob's A outcome), Y flips both.")


def _exact_error_rate(pair_fidelity: float) -> float:
    """Symbol error rate for uniform messages, from the library's density-matrix evolution."""
    probs = [superdense_outcome_probabilities(m >> 1, m & 1, pair_fidelity=pair_fidelity)
             [(m >> 1, m & 1)] for m in range(4)]
    return float(1.0 - np.mean(probs))


def check_symbol_error_rate(answer, pair_fidelity: float) -> Feedback:
    """Probability that Bob decodes the wrong two-bit symbol when the pair has fidelity F.

    Reference: the library's exact outcome distribution (``1 - F``); absolute tolerance 1e-6.
    """
    try:
        expected = _exact_error_rate(pair_fidelity)
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    what = f"symbol error rate at F = {pair_fidelity:g}"
    fb = compare_number(answer, expected, tol=1e-6, what=what)
    value, not_a_number = as_number(answer, what)
    if fb.passed or not_a_number is not None:
        return fb
    p = 1.0 - pair_fidelity
    if abs(value - p / 3) <= 1e-6:
        return failed(f"{what}: (1 − F)/3 is the probability of one particular Pauli. Any of "
                      "X, Y or Z changes the symbol.")
    if abs(value - 2 * p / 3) <= 1e-6:
        return failed(f"{what}: 2(1 − F)/3 is the probability that one given bit (x or z) flips. "
                      "A symbol is wrong if either bit flips.")
    if abs(value - pair_fidelity) <= 1e-6:
        return failed(f"{what}: F is the probability that the symbol arrives intact.")
    return fb


def check_bit_error_rate(answer, pair_fidelity: float) -> Feedback:
    """Probability that one given bit of a symbol (x, say) arrives flipped at fidelity F.

    Reference: the library's exact outcome distribution (``2 (1 - F) / 3``: X or Y flips x);
    absolute tolerance 1e-6.
    """
    try:
        probs = superdense_outcome_probabilities(0, 0, pair_fidelity=pair_fidelity)
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    expected = probs[(1, 0)] + probs[(1, 1)]
    what = f"bit error rate of x at F = {pair_fidelity:g}"
    fb = compare_number(answer, expected, tol=1e-6, what=what)
    value, not_a_number = as_number(answer, what)
    if fb.passed or not_a_number is not None:
        return fb
    p = 1.0 - pair_fidelity
    if abs(value - p) <= 1e-6:
        return failed(f"{what}: 1 − F is the symbol error rate. A Z error leaves x alone.")
    if abs(value - p / 3) <= 1e-6:
        return failed(f"{what}: two of the three Paulis flip x (X and Y), not one.")
    return fb


# --------------------------------------------------------------------------------------------
# The ledger of the superdense ring
# --------------------------------------------------------------------------------------------

def _link_counts(P, d, bits) -> dict[str, int]:
    """Busiest-link counts of one all-reduce from :func:`qring_edu.ring.message_bits`: classical
    bits, superdense online qubits (ceil(k/2) per k-bit message), and lifetime uses (online +
    offline qubits: one offline qubit distributed each consumed pair)."""
    check_int(P, "P", 2)
    check_int(d, "d", 1)
    check_bits(bits)
    m = message_bits(P, d, bits)
    qubits = ((m + 1) // 2).sum(axis=1)
    return {"bits": int(m.sum(axis=1).max()), "qubits": int(qubits.max()),
            "lifetime": int(2 * qubits.max())}


def _count_feedback(answer, expected: int, what: str, hints: dict[int, str]) -> Feedback:
    number, fb = as_number(answer, what)
    if fb is not None:
        return fb
    if number != int(number):
        return failed(f"{what}: channel uses are whole numbers; {number:g} is not. Remember that "
                      "a message of k bits needs ceil(k/2) qubits.")
    value = int(number)
    if value == expected:
        return passed(f"{what}: correct ({expected}).")
    if value in hints:
        return failed(f"{what}: {value} is not right. {hints[value]}")
    return failed(f"{what}: {value} is not right. Count the 2(P − 1) messages a link carries and "
                  "how many qubits each needs.")


def check_superdense_qubits(answer, P: int, d: int, bits: int) -> Feedback:
    """Online qubits on the busiest directed link of the superdense ring all-reduce of a
    length-``d`` vector of ``bits``-bit words on ``P`` workers (exact integer)."""
    try:
        counts = _link_counts(P, d, bits)
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    expected, cl = counts["qubits"], counts["bits"]
    what = f"online qubits per link (P = {P}, d = {d}, bits = {bits})"
    hints = {
        -(-d * bits // 2): "That is half of one worker's whole vector; a link carries 2(P − 1) "
                           "chunk messages of about d/P words each.",
        expected // 2: "That covers only one phase; reduce-scatter and all-gather each take "
                       "P − 1 steps.",
        2 * expected: "That is online plus offline qubits (the lifetime count); the question asks "
                      "only for the qubits sent during the all-reduce.",
        cl: "That is the classical count in bits; each qubit carries two bits.",
    }
    if cl % 2 == 0 and cl // 2 != expected:
        hints[cl // 2] = ("Half the classical bits is almost right, but every message is rounded "
                          "up to whole qubits separately: ceil(k/2) per message of k bits.")
    return _count_feedback(answer, expected, what, hints)


def check_lifetime_uses(answer, P: int, d: int, bits: int) -> Feedback:
    """Channel uses of the busiest directed link over the pairs' whole lifetime (offline qubits
    that distribute the Bell pairs + online qubits of the superdense ring), exact integer."""
    try:
        counts = _link_counts(P, d, bits)
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    expected = counts["lifetime"]
    what = f"lifetime channel uses per link (P = {P}, d = {d}, bits = {bits})"
    hints = {
        counts["bits"]: "That is the classical bit count. It equals the lifetime count "
                        "when every message has an even number of bits; here some messages are "
                        "odd and each needs a padding qubit (online and offline).",
        counts["qubits"]: "That counts only the online qubits. Each consumed Bell pair was "
                          "distributed by sending one qubit over the same link.",
        3 * counts["qubits"]:
            "Ebits are not channel uses of their own: an ebit is the pair that one offline "
            "qubit created.",
    }
    return _count_feedback(answer, expected, what, hints)


def check_flip_damage(answer, P: int, bits: int, max_abs: float, t: int) -> Feedback:
    """Size of the change of a decoded value when bit ``t`` of its fixed-point word flips.

    Reference: decode the word 0 with bit ``t`` set using the library's code
    :func:`qring_edu.fixed_point` (``2**t / s``, the sign bit ``t = bits - 1`` gives the same
    magnitude). Relative tolerance 1e-6; the sign of the answer is ignored.
    """
    try:
        codec = fixed_point(P, bits, max_abs)
        if not _is_int(t) or not 0 <= t < codec.bits:
            raise ValueError(f"t must be an integer in 0..{codec.bits - 1}")
    except (ValueError, TypeError) as exc:
        return bad_parameters(exc)
    flipped = codec.decode(np.array([1 << t], dtype=np.uint32))[0]
    expected = abs(float(flipped - codec.decode(np.array([0], dtype=np.uint32))[0]))
    what = f"change from flipping bit {t} (P = {P}, bits = {bits}, max_abs = {max_abs:g})"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    value = abs(value)
    if abs(value - expected) <= 1e-6 * expected:
        return passed(f"{what}: correct ({expected:.6g}).")
    if abs(value - 2.0 ** t) <= 1e-6 * 2.0 ** t:
        return failed(f"{what}: 2**t is the change of the integer word; divide by the scale s to "
                      "get the change of the decoded value.")
    if abs(value - 2.0 ** t * codec.scale) <= 1e-6 * 2.0 ** t * codec.scale:
        return failed(f"{what}: you multiplied by the scale s; the decoded value is word / s.")
    if t > 0 and abs(value - 2.0 ** (t - 1) / codec.scale) <= 1e-6 * expected:
        return failed(f"{what}: off by a factor of two — bit 0 is the least significant bit, "
                      "worth 2**0.")
    return failed(f"{what}: {value:.6g} is not right (relative tolerance 1e-6). The word encodes "
                  f"value·s with s = cap / max_abs = {codec.scale:.6g}.")
