"""Superdense coding over noisy pre-shared Bell pairs (book/03_superdense_ring.ipynb).

Protocol. Alice (qubit A) and Bob (qubit B) share |Φ+⟩ = (|00⟩ + |11⟩)/√2. To send the two bits
``(x, z)`` Alice applies ``X**x`` then ``Z**z`` to A and sends A to Bob; Bob applies CNOT(A→B) and
H(A) and measures: A gives ``z``, B gives ``x``.

Bit order. A stream of bits ``b_0 b_1 b_2 ...`` is cut into symbols ``j = 0, 1, ...`` with
``x = b_{2j}`` and ``z = b_{2j+1}``; an odd stream is padded with one zero bit. In the Qiskit
circuits qubit 0 is A and qubit 1 is B, clbit 0 receives ``z`` and clbit 1 receives ``x``, so a
Qiskit count key (little-endian, clbit 1 printed first) reads ``f"{x}{z}"``.

Noise. Each pair is the isotropic (Werner) state of fidelity F,
``F |Φ+⟩⟨Φ+| + (1-F)/3 (|Φ-⟩⟨Φ-| + |Ψ+⟩⟨Ψ+| + |Ψ-⟩⟨Ψ-|)``, which equals |Φ+⟩ followed by a random
Pauli on A: X, Y, Z each with probability (1-F)/3. X flips ``x``, Z flips ``z``, Y flips both; the
symbol error rate is ``1 - F``.

Two simulation paths (ARCHITECTURE.md):

* the **fast path** samples those Pauli frames with NumPy (:func:`superdense_send`);
* the **Qiskit path** builds the circuits (:func:`superdense_circuit`), evolves density matrices
  exactly (:func:`superdense_outcome_probabilities`) or samples them with Aer
  (:func:`superdense_send_qiskit`). Tests check that both paths give the same statistics.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

import numpy as np

from ._validate import check_bit_array, check_fidelity, check_int, check_packed_bits, check_seed
from .links import link_errors, run_symbol_circuits

# The Pauli-frame helpers live in the core (states.py); re-exported here for existing callers.
from .states import (  # noqa: F401
    FRAME_X,
    FRAME_Y,
    FRAME_Z,
    flipped_bit_positions,
    pauli_frames,
    pauli_frames_distribution,
    slot_major_frames,
)
from .states import bernoulli_positions as _bernoulli_positions  # noqa: F401
from .states import isotropic_state as _isotropic_array

if TYPE_CHECKING:  # Qiskit is imported inside the functions of the Qiskit path only
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import DensityMatrix

__all__ = [
    "superdense_circuit",
    "superdense_send",
    "superdense_send_packed",
    "superdense_send_qiskit",
    "superdense_outcome_probabilities",
    "isotropic_state",
    "pauli_frames",
    "pauli_frames_distribution",
    "symbols_needed",
]


def symbols_needed(n_bits: int) -> int:
    """Qubits (= Bell pairs) needed to send ``n_bits`` classical bits: ``ceil(n_bits / 2)``.

    Examples
    --------
    >>> from qring_edu.superdense import symbols_needed
    >>> symbols_needed(16), symbols_needed(17)
    (8, 9)
    """
    return (int(n_bits) + 1) // 2


def _link_noise(pair_fidelity, channel_fidelity, storage_time, coherence_time):
    """(p_err, conditional frame probabilities) of one decoded symbol on the link."""
    errors = link_errors(
        pair_fidelity, channel_fidelity, storage_time=storage_time, coherence_time=coherence_time
    )
    if errors.is_depolarizing:  # the noiseless-channel model: X, Z, Y equally likely
        return 1.0 - errors.fidelity, _THIRDS
    probs = np.asarray(errors.probabilities, dtype=float)
    p_err = 1.0 - float(probs[0])
    return p_err, (probs[1:] / probs[1:].sum() if p_err > 0.0 else _THIRDS)


_THIRDS = (1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0)
#: Frame code -> flips of one symbol's two bytes (x, z) read as a little-endian uint16.
_SYMBOL_FLIPS = np.array([0x0000, 0x0001, 0x0100, 0x0101], dtype="<u2")


def superdense_send(
    bits,
    *,
    pair_fidelity: float | None = None,
    channel_fidelity: float = 1.0,
    storage_time: float = 0.0,
    coherence_time: float = math.inf,
    seed=None,
) -> np.ndarray:
    """Send a bit stream by superdense coding (fast path); return the bits Bob decodes.

    ``bits``: 1-D array of 0/1 of length n. It travels as ``ceil(n/2)`` qubits over as many
    isotropic pairs of fidelity ``pair_fidelity`` (in [0.25, 1]); symbol ``j`` carries
    ``x = bits[2j]``, ``z = bits[2j+1]``. Returns a ``uint8`` array of length n (the padding bit
    of an odd stream is dropped). At F = 1 the output equals the input exactly.

    Noisy link (book/04_noisy_links.ipynb, :mod:`qring_edu.links`): ``channel_fidelity`` is the depolarising
    channel (in [0.25, 1]) that every encoded qubit crosses; ``pair_fidelity=None`` (the
    default) means each pair was distributed fresh over that same channel, ``F_pair =
    channel_fidelity`` (so 1 on a noiseless link). ``storage_time`` and ``coherence_time`` add
    the dephasing of both halves while the pair waits in memory. The errors compose into one
    Pauli per symbol (:func:`qring_edu.links.link_errors`); without memory noise the symbol error
    rate is ``1 - F_eff``, ``F_eff = F_pair F_ch + (1 - F_pair)(1 - F_ch)/3``, and the output is
    bit for bit that of ``superdense_send(bits, pair_fidelity=F_eff, seed=seed)``.

    Random stream: the same as :func:`superdense_send_packed` on ``np.packbits(bits,
    bitorder="little")``, so the two agree bit for bit for one seed. The symbols are grouped
    four to a byte of the packed stream (symbol ``j`` is slot ``j mod 4`` of byte ``j div 4``,
    ``B = ceil(n / 8)`` bytes) and the ``4 B`` trials are enumerated slot-major: trial ``s B +
    i`` is symbol ``4 i + s`` (:func:`qring_edu.states.slot_major_frames`, one uniform per
    error); trials past the last symbol are discarded.

    Examples
    --------
    >>> rx = superdense_send(np.ones(20_000, dtype=np.uint8), channel_fidelity=0.99, seed=0)
    >>> bool(0.005 < (rx == 0).mean() < 0.02)       # each symbol errs with 1 - F_eff = 0.0199
    True
    """
    data = check_bit_array(bits, "bits")
    p_err, conditional = _link_noise(pair_fidelity, channel_fidelity, storage_time, coherence_time)
    check_seed(seed)
    n = data.size
    n_bytes = (n + 7) // 8
    if p_err <= 0.0 or n == 0:
        return data.copy()
    rng = np.random.default_rng(seed)
    # 8 B bytes = 4 B symbols (x, z): the last byte's missing symbols and an odd stream's padding
    # bit land past n and are cut off on return.
    out = np.empty(8 * n_bytes, dtype=np.uint8)
    out[:n] = data
    out[n:] = 0
    symbols = out.view("<u2")  # symbol j: x in its low byte, z in its high byte
    for slot, byte, codes in slot_major_frames(n_bytes, 4, p_err, rng, conditional):
        byte <<= 2
        byte += slot  # the symbol index 4 i + s
        symbols[byte] ^= _SYMBOL_FLIPS[codes]
    return out[:n]


def superdense_send_packed(
    data,
    n_bits: int | None = None,
    *,
    pair_fidelity: float | None = None,
    channel_fidelity: float = 1.0,
    storage_time: float = 0.0,
    coherence_time: float = math.inf,
    seed=None,
) -> np.ndarray:
    """:func:`superdense_send` on a bit-packed stream: ``n_bits`` bits in ``ceil(n_bits / 8)``
    bytes in, the decoded bits packed the same way out.

    Bit order: stream bit ``i`` is bit ``i mod 8`` (least significant first) of byte ``i div
    8``, as ``np.packbits(bits, bitorder="little")`` packs and ``np.unpackbits(...,
    bitorder="little")`` unpacks. Symbol ``j`` carries ``x`` = bit ``2 (j mod 4)`` and ``z`` =
    bit ``2 (j mod 4) + 1`` of byte ``j div 4``. ``n_bits`` (default ``8 * len(data)``) must
    satisfy ``8 (len(data) - 1) < n_bits <= 8 len(data)``; the bits of the last byte at
    positions ``>= n_bits`` are not sent and are returned as they came.

    Same noise model, arguments and random stream as :func:`superdense_send`: for one seed,
    ``superdense_send_packed(np.packbits(bits, bitorder="little"), len(bits), ...)`` equals
    ``np.packbits(superdense_send(bits, ...), bitorder="little")``. This path moves one eighth
    of the bytes (no per-bit array): the copy of the input and one XOR per erring symbol.
    Returns a new uint8 array of the same length as ``data``.

    Examples
    --------
    >>> bits = np.random.default_rng(1).integers(0, 2, 999).astype(np.uint8)
    >>> packed = superdense_send_packed(np.packbits(bits, bitorder="little"), 999,
    ...                                 pair_fidelity=0.9, seed=2)
    >>> unpacked = superdense_send(bits, pair_fidelity=0.9, seed=2)
    >>> bool(np.array_equal(np.unpackbits(packed, bitorder="little")[:999], unpacked))
    True
    """
    data, n_bits = check_packed_bits(data, n_bits, "data")
    p_err, conditional = _link_noise(pair_fidelity, channel_fidelity, storage_time, coherence_time)
    check_seed(seed)
    out = data.copy()
    n_bytes = out.size
    if p_err <= 0.0 or n_bits == 0:
        return out
    rng = np.random.default_rng(seed)
    for slot, byte, codes in slot_major_frames(n_bytes, 4, p_err, rng, conditional):
        codes <<= 2 * slot  # X -> bit 2s (x), Z -> bit 2s + 1 (z) of the byte
        out[byte] ^= codes  # the bytes of one piece are distinct
    tail = n_bits % 8
    if tail:  # bits past n_bits (the last byte's padding, missing symbols) were never sent
        keep = np.uint8((1 << tail) - 1)
        out[-1] = (out[-1] & keep) | (data[-1] & ~keep)
    return out


# --------------------------------------------------------------------------------------------
# Qiskit path
# --------------------------------------------------------------------------------------------


def _check_message_bit(value, name: str) -> int:
    return check_int(value, name, 0, 1)


def superdense_circuit(
    x: int, z: int, *, pair_fidelity: float = 1.0, measure: bool = True
) -> QuantumCircuit:
    """The superdense-coding circuit sending ``(x, z)``.

    Qubit 0 is Alice's A, qubit 1 is Bob's B. Steps (separated by barriers): make |Φ+⟩ with H and
    CNOT; if ``pair_fidelity < 1``, the isotropic-noise channel on A (a Pauli error instruction
    for Aer); Alice encodes X**x then Z**z; Bob decodes with CNOT(A→B), H(A); measurement of A into
    clbit 0 (``z``) and of B into clbit 1 (``x``), so the Qiskit count key reads ``f"{x}{z}"``.

    Examples
    --------
    >>> from qring_edu import superdense_circuit
    >>> qc = superdense_circuit(1, 0)
    >>> qc.num_qubits, qc.num_clbits
    (2, 2)
    >>> dict(qc.count_ops())
    {'h': 2, 'cx': 2, 'barrier': 2, 'measure': 2, 'x': 1}
    """
    from qiskit import QuantumCircuit

    x = _check_message_bit(x, "x")
    z = _check_message_bit(z, "z")
    pair_fidelity = check_fidelity(pair_fidelity)
    qc = QuantumCircuit(2, 2 if measure else 0, name=f"superdense({x},{z})")
    qc.h(0)
    qc.cx(0, 1)
    qc.barrier(label="pair shared")
    if pair_fidelity < 1.0:
        qc.append(_pair_noise_error(pair_fidelity), [0])
    if x:
        qc.x(0)
    if z:
        qc.z(0)
    qc.barrier(label="A sent")
    qc.cx(0, 1)
    qc.h(0)
    if measure:
        qc.measure(0, 0)
        qc.measure(1, 1)
    return qc


@functools.lru_cache(maxsize=32)
def _pair_noise_error(pair_fidelity: float):
    """The isotropic-pair noise as a Qiskit Aer ``QuantumError`` acting on Alice's qubit.

    Cached per fidelity: every circuit of a batch then shares one error object, which keeps
    Aer's batch run linear in the number of circuits (distinct copies made it superlinear).
    """
    from qiskit_aer.noise import pauli_error  # Aer is only needed for sampling noisy circuits

    p = (1.0 - pair_fidelity) / 3.0
    return pauli_error([("I", pair_fidelity), ("X", p), ("Y", p), ("Z", p)])


def isotropic_state(pair_fidelity: float) -> DensityMatrix:
    """The two-qubit isotropic state ``F Φ+ + (1-F)/3 (Φ- + Ψ+ + Ψ-)`` (qubit 0 = A, qubit 1 = B)
    as a Qiskit ``DensityMatrix``; the NumPy array is :func:`qring_edu.states.isotropic_state`.

    Examples
    --------
    >>> from qring_edu.superdense import isotropic_state
    >>> rho = isotropic_state(0.9)
    >>> rho.dim, round(float(rho.purity().real), 4)
    (4, 0.8133)
    """
    from qiskit.quantum_info import DensityMatrix

    return DensityMatrix(_isotropic_array(pair_fidelity))


def superdense_outcome_probabilities(x: int, z: int, *, pair_fidelity: float = 1.0) -> dict:
    """Exact distribution of Bob's decoded ``(x', z')`` (Qiskit ``DensityMatrix`` evolution).

    Returns ``{(x', z'): probability}`` over all four outcomes, from the isotropic state, Alice's
    encoding and Bob's Bell measurement evolved as density matrices (no sampling).

    Examples
    --------
    >>> from qring_edu import superdense_outcome_probabilities
    >>> p = superdense_outcome_probabilities(1, 0, pair_fidelity=0.9)
    >>> {k: round(v, 4) for k, v in sorted(p.items())}  # right with probability F
    {(0, 0): 0.0333, (0, 1): 0.0333, (1, 0): 0.9, (1, 1): 0.0333}
    """
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import Operator

    rho = isotropic_state(pair_fidelity)
    circuit = superdense_circuit(x, z, measure=False)
    # Skip the circuit's own pair preparation: start from the (noisy) shared pair instead.
    body = QuantumCircuit(2)
    started = False
    for inst in circuit.data:
        if inst.operation.name == "barrier":
            started = True
            continue
        if started:
            body.append(inst.operation, inst.qubits)
    rho = rho.evolve(Operator(body))
    probs = rho.probabilities_dict(decimals=15)  # key "q1 q0" = "x z"
    return {(int(k[0]), int(k[1])): float(probs.get(k, 0.0)) for k in ("00", "01", "10", "11")}


def superdense_send_qiskit(bits, *, pair_fidelity: float = 1.0, seed=None) -> np.ndarray:
    """Send a bit stream with one Qiskit Aer circuit per symbol (the slow reference path).

    Same interface, bit order and noise model as :func:`superdense_send`; every symbol is a
    :func:`superdense_circuit` run for one shot on ``AerSimulator`` (all circuits submitted in
    one batch, ``seed_simulator`` derived from ``seed``).

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu import superdense_send, superdense_send_qiskit
    >>> bits = np.array([1, 0, 1, 1, 0, 0], dtype=np.uint8)
    >>> superdense_send_qiskit(bits, seed=1)             # perfect pairs: the bits arrive
    array([1, 0, 1, 1, 0, 0], dtype=uint8)
    >>> bool((superdense_send_qiskit(bits, seed=1) == superdense_send(bits, seed=1)).all())
    True
    """
    data = check_bit_array(bits, "bits")
    pair_fidelity = check_fidelity(pair_fidelity)
    check_seed(seed)
    return run_symbol_circuits(
        data, lambda x, z: superdense_circuit(x, z, pair_fidelity=pair_fidelity), seed
    )
