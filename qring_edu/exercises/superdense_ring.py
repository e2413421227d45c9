"""Exercise checkers of chapter 3, *The superdense ring* (presentation floor). The rules every
checker keeps are in :mod:`~qring_edu.exercises._base`.

The code-graded :func:`check_superdense_coding` runs the reader's functions on every message and
on seeded Aer runs.
"""

from __future__ import annotations

import functools

import numpy as np

from .._validate import check_bits, check_choice, check_int
from ..costmodel import BACKWARD_FRACTION, link_units
from ..experiments.superdense_ring import overlap_comparison
from ..fixedpoint import fixed_point
from ..noise import Link
from ..ring import ring_schedule
from ..superdense import superdense_circuit, superdense_outcome_probabilities
from ._base import (
    Feedback,
    as_number,
    call_reader,
    checker,
    failed,
    grade,
    not_attempted,
    passed,
)

__all__ = [
    "check_superdense_coding",
    "check_alice_gates",
    "check_symbol_error_rate",
    "check_bit_error_rate",
    "check_superdense_qubits",
    "check_lifetime_uses",
    "check_flip_damage",
    "check_link_busy_time",
    "check_idle_head",
    "check_flip_reach",
    "check_bidirectional_qubits",
]

# Build it yourself: superdense coding in raw Qiskit
_BELL_NAMES = {(0, 0): "|Φ+⟩", (0, 1): "|Φ−⟩", (1, 0): "|Ψ+⟩", (1, 1): "|Ψ−⟩"}


def _sections(x: int, z: int, first: int, qubits: int):
    """The gates of the library's circuit for ``(x, z)`` from barrier ``first`` to the next one
    (``first = 0``: from the start), on its first ``qubits`` qubits, as a new circuit."""
    from qiskit import QuantumCircuit

    circuit = superdense_circuit(x, z, measure=False)
    body, barriers = QuantumCircuit(qubits), 0
    for inst in circuit.data:
        if inst.operation.name == "barrier":
            barriers += 1
        elif first <= barriers <= 1:
            body.append(inst.operation, [circuit.find_bit(q).index for q in inst.qubits])
    return body


@functools.lru_cache(maxsize=1)
def _encoded_states():
    """The four states Alice's encoding makes from |Φ+⟩ (the library's circuit up to its second
    barrier), as Qiskit Statevectors, keyed by the message (x, z)."""
    from qiskit.quantum_info import Statevector

    return {(x, z): Statevector(_sections(x, z, 0, 2)) for x in (0, 1) for z in (0, 1)}


def _same_state(a, b) -> bool:  # equal up to a global phase
    return abs(abs(np.vdot(a.data, b.data)) - 1.0) < 1e-9


def _as_circuit(value, before, what: str):
    """The circuit a reader's function produced: its return value, or the circuit it was given
    (modified in place) when it returned None. ``(circuit, None)`` or ``(None, Feedback)``."""
    from qiskit import QuantumCircuit

    circuit = before if value is None and before is not None else value
    if not isinstance(circuit, QuantumCircuit):
        return None, failed(f"{what} must return a QuantumCircuit, got {type(value).__name__}.")
    if circuit.num_qubits != 2:
        return None, failed(
            f"{what} returned a circuit of {circuit.num_qubits} qubits; use "
            "QuantumCircuit(2, 2): qubit 0 is Alice's A, qubit 1 is Bob's B."
        )
    return circuit, None


def _circuit_state(value, before, what: str):
    """:func:`_as_circuit`, then the circuit's state before Bob measures:
    ``(circuit, Statevector, None)`` or ``(None, None, Feedback)``."""
    from qiskit.quantum_info import Statevector

    circuit, fb = _as_circuit(value, before, what)
    if fb is None and any(inst.operation.name in ("measure", "reset") for inst in circuit.data):
        fb = failed(
            f"{what}: the circuit measures (or resets) a qubit before Bob's "
            "decoding; only decode_message measures."
        )
    if fb is not None:
        return None, None, fb
    try:
        return circuit, Statevector(circuit.remove_final_measurements(inplace=False)), None
    except Exception as exc:  # noqa: BLE001 - e.g. unbound parameters in the reader's circuit
        fb = failed(f"{what}: its state cannot be simulated ({type(exc).__name__}: {exc}).")
        return None, None, fb


def _key_distribution(circuit):
    """Exact distribution of the Qiskit count key (``"c1 c0"``) of a circuit whose measurements
    are final, or ``None`` if it has mid-circuit measurements or does not measure two clbits."""
    from qiskit.quantum_info import Statevector

    measured = {
        circuit.find_bit(inst.clbits[0]).index: circuit.find_bit(inst.qubits[0]).index
        for inst in circuit.data
        if inst.operation.name == "measure"
    }
    if sorted(measured) != [0, 1] or circuit.num_clbits != 2:
        return None
    try:
        body = circuit.remove_final_measurements(inplace=False)
        if any(inst.operation.name == "measure" for inst in body.data):
            return None
        probs = Statevector(body).probabilities_dict(qargs=[measured[0], measured[1]])
    except Exception:  # noqa: BLE001 - mid-circuit measurements, classical control, ...
        return None
    return {k: float(v) for k, v in probs.items() if v > 1e-12}


def _run_aer(circuits, seed: int, shots: int) -> list[dict]:
    """Counts of each circuit in one Aer batch (transpiled only if Aer lacks a gate)."""
    from qiskit_aer import AerSimulator

    sim = AerSimulator(seed_simulator=seed)
    try:
        result = sim.run(circuits, shots=shots).result()
    except Exception:  # noqa: BLE001 - a gate Aer does not simulate directly
        from qiskit import transpile

        result = sim.run(transpile(circuits, sim, seed_transpiler=seed), shots=shots).result()
    return [dict(result.get_counts(i)) for i in range(len(circuits))]


def _bell_feedback(state, states) -> Feedback:
    wrong = next((m for m, ref in states.items() if _same_state(state, ref)), None)
    amps = np.count_nonzero(np.round(state.data, 6))
    if wrong is not None:
        hint = f"prepares {_BELL_NAMES[wrong]}: an extra X or Z on one qubit"
    elif amps == 1:
        hint = "leaves a basis state (no superposition): start with H on qubit 0"
    elif amps == 2 and abs(state.data[3]) < 1e-6:
        hint = "makes a product state: after H on qubit 0 the CNOT entangles the two qubits"
    else:
        hint = "does not prepare |Φ+⟩"
    return failed(
        f"create_bell_pair {hint}. |Φ+⟩ = (|00⟩ + |11⟩)/√2 needs H on qubit 0, then CNOT with "
        "control 0 and target 1."
    )


@checker
def check_superdense_coding(answer, *, seeds=(0, 1, 2), shots: int = 64) -> Feedback:
    """Grade superdense coding in raw Qiskit: ``answer = (create_bell_pair, encode_message,
    decode_message)``.

    ``create_bell_pair()`` returns a new ``QuantumCircuit(2, 2)`` preparing |Φ+⟩ (qubit 0 = Alice's
    A, qubit 1 = Bob's B); ``encode_message(qc, x, z)`` applies Alice's gates to qubit 0;
    ``decode_message(qc)`` applies Bob's Bell measurement, A into clbit 0 (z) and B into clbit 1
    (x), so the count key reads ``"xz"``. Each may return ``qc`` or modify it in place and return
    ``None``. For each message, stage by stage: the states against the library's circuit
    (:func:`qring_edu.superdense_circuit`, up to a global phase), gates on qubit 0 only, and the
    exact count-key law against :func:`qring_edu.superdense_outcome_probabilities` (1e-9); then
    ``shots`` Aer shots per seed in ``seeds`` must all read ``"xz"``. The first failure is
    reported with a hint.

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> def create_bell_pair():
    ...     qc = QuantumCircuit(2, 2)
    ...     qc.h(0)
    ...     qc.cx(0, 1)
    ...     return qc
    >>> def encode_message(qc, x, z):
    ...     if x:
    ...         qc.x(0)
    ...     if z:
    ...         qc.z(0)
    ...     return qc
    >>> def decode_message(qc):
    ...     qc.cx(0, 1)
    ...     qc.h(0)
    ...     qc.measure(0, 0)
    ...     qc.measure(1, 1)
    ...     return qc
    >>> check_superdense_coding((create_bell_pair, encode_message, decode_message), seeds=(0,),
    ...                         shots=8).passed
    True
    """
    what = "superdense coding in raw Qiskit"
    if answer is None:
        return not_attempted(
            f"{what} (answer = (create_bell_pair, encode_message, decode_message))"
        )
    if not isinstance(answer, (tuple, list)) or len(answer) != 3:
        return failed(
            f"{what}: give the three functions as a tuple "
            "(create_bell_pair, encode_message, decode_message)."
        )
    create, encode, decode = answer
    names = ("create_bell_pair", "encode_message", "decode_message")
    for fn, name in zip(answer, names):
        if not callable(fn):
            return failed(
                f"{what}: {name} must be a function (write its name without calling "
                f"it), got {type(fn).__name__}."
            )
    seeds = [check_int(s, "seeds (each seed)", 0) for s in seeds]
    shots = check_int(shots, "shots", 1, 10_000)
    states = _encoded_states()

    def build(x, z):
        """The reader's circuit for (x, z), checked stage by stage, or (None, Feedback)."""
        out, fb = call_reader(create, name="create_bell_pair")
        if fb is None:
            qc, state, fb = _circuit_state(out, None, "create_bell_pair()")
        if fb is not None:
            return None, fb
        if not _same_state(state, states[(0, 0)]):
            return None, _bell_feedback(state, states)
        before = len(qc.data)
        out, fb = call_reader(encode, qc, x, z, name="encode_message")
        if fb is None:
            qc, state, fb = _circuit_state(out, qc, f"encode_message(qc, {x}, {z})")
        if fb is not None:
            return None, fb
        added = [inst for inst in qc.data[before:] if inst.operation.name != "barrier"]
        if any(qc.find_bit(q).index != 0 for inst in added for q in inst.qubits):  # B: Bob's lab
            return None, failed(
                f"Message (x, z) = ({x}, {z}): encode_message acts on qubit 1, Bob's B. "
                "Alice holds only qubit 0 and only it crosses the link; the same Pauli on B "
                "may make the same Bell state, but Alice cannot reach B."
            )
        if not _same_state(state, states[(x, z)]):
            sent = next((m for m, ref in states.items() if _same_state(state, ref)), None)
            if sent is None:
                return None, failed(
                    f"Message (x, z) = ({x}, {z}): after encode_message the pair is no longer a "
                    "Bell state. Alice may use only X and Z on qubit 0: X**x, then Z**z."
                )
            hint = (
                " You swapped the roles: X must follow x and Z must follow z."
                if sent == (z, x)
                else " X on A flips x, Z on A flips z."
            )
            return None, failed(
                f"Message (x, z) = ({x}, {z}): encode_message makes "
                f"{_BELL_NAMES[sent]}, the state of message {sent}, not "
                f"{_BELL_NAMES[(x, z)]}.{hint}"
            )
        out, fb = call_reader(decode, qc, name="decode_message")
        if fb is not None:
            return None, fb
        qc, fb = _as_circuit(out, qc, "decode_message(qc)")
        if fb is not None:
            return None, fb
        if qc.num_clbits != 2:
            return None, failed(
                f"decode_message(qc) returned a circuit with {qc.num_clbits} "
                "classical bits; Bob needs two (QuantumCircuit(2, 2))."
            )
        return qc, None

    for x, z in ((0, 0), (0, 1), (1, 0), (1, 1)):
        qc, fb = build(x, z)
        if fb is not None:
            return fb
        key = f"{x}{z}"
        dist = _key_distribution(qc)
        if dist is None:
            continue  # no exact check for mid-circuit measurements: Aer below decides
        ref = {
            f"{a}{b}": p for (a, b), p in superdense_outcome_probabilities(x, z).items() if p > 0
        }
        if all(abs(dist.get(k, 0.0) - ref.get(k, 0.0)) <= 1e-9 for k in set(dist) | set(ref)):
            continue
        top = max(dist, key=dist.get)
        if dist[top] > 1 - 1e-9 and top == key[::-1]:
            return failed(
                f'Message (x, z) = ({x}, {z}): Bob\'s count key reads "{top}", i.e. '
                '"zx": the bit-order mistake. Qiskit count keys are little-endian '
                "(clbit 1 is printed first): measure A (qubit 0) into clbit 0, which "
                "holds z, and B (qubit 1) into clbit 1, which holds x, so the key "
                'reads "xz".'
            )
        if dist[top] > 1 - 1e-9:
            return failed(
                f'Message (x, z) = ({x}, {z}): Bob always reads "{top}" instead of '
                f'"{key}". Bob\'s Bell measurement: CNOT with control 0 (A) and '
                "target 1 (B), then H on A, then the two measurements."
            )
        spread = ", ".join(f'"{k}": {v:.2f}' for k, v in sorted(dist.items()))
        return failed(
            f"Message (x, z) = ({x}, {z}): Bob's outcome is random ({spread}); his "
            "circuit does not undo the Bell-pair preparation. Apply CNOT 0 → 1, then H "
            "on 0, before measuring."
        )
    order_rng = np.random.default_rng([int(s) for s in seeds] or [0])
    for seed in seeds:
        messages = [(int(m) >> 1, int(m) & 1) for m in order_rng.permutation(4)]
        circuits = []
        for x, z in messages:
            qc, fb = build(x, z)
            if fb is not None:
                return fb
            circuits.append(qc)
        try:
            all_counts = _run_aer(circuits, seed, shots)
        except Exception as exc:  # noqa: BLE001 - the reader's circuit does not run
            return failed(f"Aer cannot run your circuits ({type(exc).__name__}: {exc}).")
        for (x, z), counts in zip(messages, all_counts):
            wrong = {k: v for k, v in counts.items() if k.replace(" ", "") != f"{x}{z}"}
            if wrong:
                return failed(
                    f"Message (x, z) = ({x}, {z}), Aer seed {seed}: {sum(wrong.values())}"
                    f' of {shots} shots read {sorted(wrong)} instead of "{x}{z}".'
                )
    return passed(
        f"{what}: correct. All four messages decode exactly (state by state against "
        f"the library) and on Aer ({len(seeds)} seeds × {shots} shots each); the count "
        'key reads "xz".'
    )


#: Single-qubit gates a student may name for Alice's encoding (lower case, QuantumCircuit methods).
_GATES = {"i": "id", "identity": "id"} | {g: g for g in ("id", "x", "y", "z", "h", "s", "sdg", "t")}


# Superdense coding
def _encoding_reference(x: int, z: int):
    """Alice's encoding unitary on A as the library builds it (the gates between the barriers)."""
    from qiskit.quantum_info import Operator

    return Operator(_sections(x, z, 1, 1))


@checker
def check_alice_gates(answer, x: int, z: int, *, pair: tuple[int, int] = (0, 0)) -> Feedback:
    """Which gates must Alice apply to her qubit A, in order, so that Bob decodes ``(x, z)``?

    ``pair``: the shared Bell state, named by its message (``Z**pz X**px`` on A applied to |Φ+⟩).
    ``answer``: gate names first to last (i/id, x, y, z, h, s, sdg, t; ``[]`` for none). Passes when
    the unitary equals ``Z**z X**x (Z**pz X**px)^-1`` up to a global phase (``Operator.equiv``,
    atol 1e-9), so ``["y"]`` for ``(1, 1)`` passes too, with a note.

    Examples
    --------
    >>> check_alice_gates(["x", "z"], 1, 1).passed
    True
    >>> check_alice_gates(["z"], 1, 1, pair=(1, 0)).passed   # |Ψ+⟩ already carries the X
    True
    """
    if pair not in _BELL_NAMES:
        raise ValueError(f"pair must be a tuple (px, pz) of bits 0 or 1, got {pair!r}")
    reference = _encoding_reference(*pair).adjoint().compose(_encoding_reference(x, z))
    px, pz = pair
    shared = "" if pair == (0, 0) else f" from the pair {_BELL_NAMES[pair]}"
    what = f"Alice's gates for (x, z) = ({x}, {z}){shared}"
    if answer is None:
        return not_attempted(what)
    answer = [answer] if isinstance(answer, str) else answer  # one gate name: a list of one
    if not isinstance(answer, (list, tuple)):
        return failed(
            f'{what}: expected a list of gate names such as ["x", "z"], '
            f"got {type(answer).__name__}."
        )
    names = []
    for item in answer:
        key = item.strip().lower() if isinstance(item, str) else None
        if key not in _GATES:
            return failed(
                f"{what}: {item!r} is not a gate name this checker knows "
                f"(use {', '.join(sorted(set(_GATES) - {'identity'}))})."
            )
        names.append(_GATES[key])
    if len(names) > 20:
        return failed(f"{what}: {len(names)} gates is far more than needed (at most two).")
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import Operator

    circuit = QuantumCircuit(1)
    for name in names:
        getattr(circuit, name)(0)
    if Operator(circuit).equiv(reference, atol=1e-9):  # equal up to a global phase
        canonical = ["x"] * (x ^ px) + ["z"] * (z ^ pz)
        if [n for n in names if n != "id"] == canonical:
            return passed(f'{what}: correct — Bob receives the Bell state he decodes as "{x}{z}".')
        return passed(
            f"{what}: correct up to a global phase (same Bell state, same decoding). "
            f"The shortest answer is {canonical or 'nothing'}."
        )
    if any(n in ("h", "s", "sdg", "t") for n in names):
        return failed(
            f"{what}: not a Pauli encoding. H, S and T do not map a Bell state to another Bell "
            "state, so Bob's Bell measurement cannot decode the message with certainty. "
            "Use only X and Z."
        )
    flips_x = (sum(n in ("x", "y") for n in names) + px) % 2  # the pair's own flips count too
    flips_z = (sum(n in ("z", "y") for n in names) + pz) % 2
    return failed(
        f'{what}: your gates make Bob read "{flips_x}{flips_z}" instead of "{x}{z}". '
        "X on A flips x (Bob's B outcome), Z flips z (Bob's A outcome), Y flips both."
    )


@checker
def check_symbol_error_rate(answer, pair_fidelity: float) -> Feedback:
    """Probability that Bob decodes the wrong two-bit symbol at pair fidelity F: ``1 - F``, from the
    library's outcome law. Tolerance 1e-6.

    Examples
    --------
    >>> check_symbol_error_rate(0.03, 0.97).passed
    True
    """
    link = Link(pair_fidelity)
    right = [superdense_outcome_probabilities(*m, link=link)[m] for m in _BELL_NAMES]  # (x, z)
    expected = float(1.0 - np.mean(right))  # uniform messages
    what = f"symbol error rate at F = {pair_fidelity:g}"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    p = 1.0 - pair_fidelity
    cases = {
        p / 3: "(1 − F)/3 is the probability of one particular Pauli. Any of "
        "X, Y or Z changes the symbol.",
        2 * p / 3: "2(1 − F)/3 is the probability that one given bit (x or z) flips. "
        "A symbol is wrong if either bit flips.",
        pair_fidelity: "F is the probability that the symbol arrives intact.",
        expected: f"correct ({value:g}).",
        ...: f"{value:g} is not right (tolerance 1e-06). Check your formula.",
    }
    return grade(value, expected, what, cases, tol=1e-6)


@checker
def check_bit_error_rate(answer, pair_fidelity: float) -> Feedback:
    """Probability that one given bit of a symbol (x, say) arrives flipped at fidelity F:
    ``2 (1 - F) / 3`` (X or Y flips x), from the library's outcome law. Tolerance 1e-6.

    Examples
    --------
    >>> check_bit_error_rate(0.02, 0.97).passed         # 2 (1 - F) / 3
    True
    """
    probs = superdense_outcome_probabilities(0, 0, link=Link(pair_fidelity))
    expected = probs[(1, 0)] + probs[(1, 1)]
    what = f"bit error rate of x at F = {pair_fidelity:g}"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    p = 1.0 - pair_fidelity
    cases = {
        p: "1 − F is the symbol error rate. A Z error leaves x alone.",
        p / 3: "two of the three Paulis flip x (X and Y), not one.",
        expected: f"correct ({value:g}).",
        ...: f"{value:g} is not right (tolerance 1e-06). Check your formula.",
    }
    return grade(value, expected, what, cases, tol=1e-6)


# The ledger of the superdense ring
def _link_counts(P, d, bits) -> dict[str, int]:
    """Busiest-link counts of one all-reduce (:func:`qring_edu.costmodel.link_units`): classical
    bits, superdense online qubits (ceil(k/2) per k-bit message), and lifetime uses (online +
    offline qubits: one offline qubit distributed each consumed pair)."""
    check_int(P, "P", 2)
    check_int(d, "d", 1)
    q = link_units(P, d, check_bits(bits), transport="superdense")
    return {"bits": link_units(P, d, bits), "qubits": q, "lifetime": 2 * q}


def _count_feedback(answer, expected: int, what: str, hints: dict[int, str]) -> Feedback:
    number, fb = as_number(answer, what)
    if fb is not None:
        return fb
    if number != int(number):
        return failed(
            f"{what}: channel uses are whole numbers; {number:g} is not. Remember that "
            "a message of k bits needs ceil(k/2) qubits."
        )
    value = int(number)
    if value == expected:
        return passed(f"{what}: correct ({expected}).")
    if value in hints:
        return failed(f"{what}: {value} is not right. {hints[value]}")
    return failed(
        f"{what}: {value} is not right. Count the 2(P − 1) messages a link carries and "
        "how many qubits each needs."
    )


@checker
def check_superdense_qubits(answer, P: int, d: int, bits: int) -> Feedback:
    """Online qubits on the busiest directed link of the superdense ring all-reduce of a
    length-``d`` vector of ``bits``-bit words on ``P`` workers (exact integer).

    Examples
    --------
    >>> check_superdense_qubits(1200, 4, 100, 16).passed   # 2 (P - 1) x 25 words x 16 bits / 2
    True
    """
    counts = _link_counts(P, d, bits)
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
        hints[cl // 2] = (
            "Half the classical bits is almost right, but every message is rounded "
            "up to whole qubits separately: ceil(k/2) per message of k bits."
        )
    return _count_feedback(answer, expected, what, hints)


@checker
def check_lifetime_uses(answer, P: int, d: int, bits: int) -> Feedback:
    """Channel uses of the busiest directed link over the pairs' whole lifetime (offline qubits that
    distribute the pairs + online qubits), exact integer.

    Examples
    --------
    >>> check_lifetime_uses(52, 3, 7, 5).passed          # 26 online + 26 offline qubits
    True
    """
    counts = _link_counts(P, d, bits)
    expected, online = counts["lifetime"], counts["qubits"]
    what = f"lifetime channel uses per link (P = {P}, d = {d}, bits = {bits})"
    hints = {
        counts["bits"]: "That is the classical bit count. It equals the lifetime count "
        "when every message has an even number of bits; here some messages are "
        "odd and each needs a padding qubit (online and offline).",
        online: "That counts only the online qubits. Each consumed Bell pair was "
        "distributed by sending one qubit over the same link.",
        3 * online: "Ebits are not channel uses of their own: an ebit is the pair that one "
        "offline qubit created.",
    }
    return _count_feedback(answer, expected, what, hints)


@checker
def check_flip_damage(answer, P: int, bits: int, max_abs: float, t: int) -> Feedback:
    """Size of the change of a decoded value when bit ``t`` of its fixed-point word flips: ``2**t / s``
    (:func:`qring_edu.fixed_point`; the sign bit gives the same magnitude). Relative tolerance 1e-6,
    sign ignored.

    Examples
    --------
    >>> from qring_edu import fixed_point
    >>> s = fixed_point(8, 16, 0.5).scale
    >>> check_flip_damage(2**12 / s, 8, 16, 0.5, 12).passed
    True
    """
    codec = fixed_point(P, bits, max_abs)
    check_int(t, "t", 0, codec.bits - 1)
    flipped, zero = codec.decode(np.array([1 << t, 0], dtype=np.uint32))
    expected = abs(float(flipped - zero))
    what = f"change from flipping bit {t} (P = {P}, bits = {bits}, max_abs = {max_abs:g})"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    value, s = abs(value), codec.scale
    cases = {
        2.0**t: "2**t is the change of the integer word; divide by the scale s to "
        "get the change of the decoded value.",
        2.0**t * s: "you multiplied by the scale s; the decoded value is word / s.",
        2.0 ** (t - 1) / s if t > 0 else None: "off by a factor of two — bit 0 is the least "
        "significant bit, worth 2**0.",
        expected: f"correct ({expected:.6g}).",
        ...: f"{value:.6g} is not right (relative tolerance 1e-6). The word encodes "
        f"value·s with s = cap / max_abs = {s:.6g}.",
    }
    return grade(value, expected, what, cases, rel=1e-6)


# Step checkers of the reasoning exercises
@checker
def check_link_busy_time(
    answer,
    bandwidth_gbps: float = 10.0,
    buckets: int = 5,
    *,
    latency_us: float = 5.0,
    workers: int = 8,
    model: str = "ResNet-50",
    bits: int = 16,
) -> Feedback:
    """Link time (ms) per iteration of the superdense ring's busiest link, online qubits plus the
    distribution of one half of every pair they consume, with ``buckets`` buckets
    (:func:`~qring_edu.experiments.superdense_ring.overlap_comparison`: ``online + distribution``).
    Relative tolerance 1e-4.

    Examples
    --------
    >>> check_link_busy_time(71.9347, 10.0, 5).passed    # online 36.13 ms + distribution 35.81 ms
    True
    """
    res = overlap_comparison(
        0.0, bandwidth_gbps, latency_us, buckets, workers=workers, model=model, bits=bits
    )
    sd = res.superdense
    expected = (sd.online + sd.distribution) * 1e3
    what = (
        f"superdense link time per iteration (ms) for {model}, P = {workers}, "
        f"{bandwidth_gbps:g} Gbit/s, B = {buckets}"
    )
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    cases = {
        res.link_time * 1e3: f"{value:g} ms is the classical link time W. Almost: every "
        "distribution block also pays a latency α, B of them per iteration.",
        sd.online * 1e3: f"{value:g} ms counts only the online qubits. One half of every "
        "pair they consume crosses the same link too.",
        sd.distribution * 1e3: f"{value:g} ms is only the pair distribution; add the online "
        "qubits.",
        expected: f"correct ({expected:.3f} ms). It is the classical link time "
        f"W = {res.link_time * 1e3:.3f} ms plus one α per distribution block.",
        ...: f"{value:g} ms is not right (relative tolerance 1e-4). A k-bit message "
        "crosses as k/2 qubits, and each of those qubits consumed a pair whose half "
        "crossed the link before.",
    }
    return grade(value, expected, what, cases, rel=1e-4)


@checker
def check_idle_head(
    answer, compute_ms: float = 20.0, buckets: int = 5, backward_fraction: float = BACKWARD_FRACTION
) -> Feedback:
    """How long (ms) the link idles before the first gradient bucket is ready,
    ``compute (1 - phi + phi / B)`` (``ready[0]`` of
    :func:`qring_edu.costmodel.bucketed_iteration_time`). Relative tolerance 1e-6.

    Examples
    --------
    >>> check_idle_head(20 * (1 / 3 + 2 / 3 / 5), 20.0, 5).passed
    True
    """
    res = overlap_comparison(compute_ms, buckets=buckets, backward_fraction=backward_fraction)
    expected = res.classical.ready[0] * 1e3
    what = f"idle link time before the first bucket (ms), compute {compute_ms:g} ms, B = {buckets}"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    cases = {
        compute_ms * (1 - backward_fraction): f"{value:g} ms is the forward pass only. The "
        "first bucket is ready only after its share of the backward pass, (φ/B) of the compute.",
        compute_ms * backward_fraction / buckets: f"{value:g} ms is the first bucket's "
        "backward only; the forward pass comes first.",
        expected: f"correct ({expected:.4g} ms).",
        ...: f"{value:g} ms is not right (relative tolerance 1e-6). The backward "
        "pass is the share φ of the compute, and its B buckets are ready at even "
        "intervals after the forward pass.",
    }
    return grade(value, expected, what, cases, rel=1e-6, tol=1e-12)


_PHASES = ("reduce-scatter", "all-gather")


def _flip_reach(P: int, phase: str, step: int) -> int:
    """Workers whose final copy of the corrupted chunk is wrong after one bit flip in the message
    of link 0 -> 1 at ``step`` of ``phase``: a data-flow trace of :func:`qring_edu.ring_schedule`
    (a received chunk taints the receiver's copy; an addition keeps a taint, an overwrite
    replaces it by the sender's)."""
    schedule = ring_schedule(P)
    first = P - 1 if phase == "all-gather" else 0
    target = next(m for m in schedule if m.step == first + step and m.sender == 0)
    tainted = {(target.receiver, target.chunk)}
    for s in range(first + step + 1, 2 * (P - 1)):
        sent = {
            (m.receiver, m.chunk): (m.sender, m.chunk) in tainted for m in schedule if m.step == s
        }
        for (receiver, chunk), bad in sent.items():
            if bad:
                tainted.add((receiver, chunk))
            elif s >= P - 1:
                tainted.discard((receiver, chunk))  # all-gather overwrites with a good copy
            # reduce-scatter adds: a corrupted term stays corrupted
    return sum((k, target.chunk) in tainted for k in range(P))


@checker
def check_flip_reach(answer, P: int = 6, phase: str = "all-gather", step: int = 1) -> Feedback:
    """How many workers end with a wrong value when one bit of the message on link 0 → 1 flips at
    ``step`` (from 0 within ``phase``)? A data-flow trace of :func:`qring_edu.ring_schedule`; exact.

    Examples
    --------
    >>> check_flip_reach(4, 6, "all-gather", 1).passed   # the copies downstream of link 0 -> 1
    True
    """
    P = check_int(P, "P (number of workers)", 2)
    phase = check_choice(phase, "phase", _PHASES)
    step = check_int(step, "step", 0, P - 2)
    expected = _flip_reach(P, phase, step)
    what = f"workers holding a wrong value (P = {P}, flip in {phase} step {step})"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    gather = phase == "all-gather"
    extra = (
        " The receiver and the workers downstream of it hold the wrong copy; the "
        "others kept the right one, so the replicas disagree."
        if gather
        else " Every worker ends with the same wrong value: the corrupted partial sum is "
        "completed and then broadcast."
    )
    cases = {
        P if gather else None: f"{value:g} would be right for a flip during reduce-scatter. In "
        "all-gather a message only overwrites copies downstream of it.",
        (P - step, P - 2 - step) if gather else None: f"{value:g} is off by one. Count the "
        "receiver of the flipped message and every worker it forwards the chunk to in the "
        "remaining all-gather steps (the last all-gather step is P − 2).",
        expected: f"correct ({expected}).{extra}",
        ...: f"{value:g} is not right. Follow the corrupted chunk through the "
        "remaining steps of ring_schedule.",
    }
    return grade(value, expected, what, cases)


@checker
def check_bidirectional_qubits(answer, P: int = 4, d: int = 8000, bits: int = 16) -> Feedback:
    """Online qubits on the busiest directed link when two superdense rings run at once, clockwise over
    the first ceil(d/2) words and counter-clockwise over the rest (full-duplex links). Reference:
    :func:`qring_edu.ring.message_bits` of each half; exact integer.

    Examples
    --------
    >>> check_bidirectional_qubits(48_000, 4, 8000, 16).passed
    True
    """
    P = check_int(P, "P (number of workers)", 2)
    d = check_int(d, "d", 2)
    bits = check_bits(bits)
    # the busiest directed link: one ring per direction, over ceil(d/2) and floor(d/2) words
    expected = max(link_units(P, n, bits, transport="superdense") for n in ((d + 1) // 2, d // 2))
    one_ring = link_units(P, d, bits, transport="superdense")
    what = f"online qubits per directed link, bidirectional superdense ring (P = {P}, d = {d})"
    hints = {
        expected // 2: "That halves twice: the two directions are different links, each "
        "carrying half the vector as qubits.",
        2 * expected: "That is the classical bit count of one direction; each qubit carries two "
        "bits.",
    }
    also = " (It is also the bits of one direction: each qubit carries two.)"
    hints[one_ring] = (
        "That is one ring carrying the whole vector over every link; with two rings each "
        "direction carries only half of it." + (also if one_ring == 2 * expected else "")
    )
    return _count_feedback(answer, expected, what, hints)
