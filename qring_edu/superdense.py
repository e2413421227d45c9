"""Superdense coding over a noisy link (book/03_superdense_ring.ipynb, book/04_noisy_links.ipynb).

Alice (qubit A) and Bob (qubit B) share |Φ+⟩. To send ``(x, z)`` Alice applies ``X**x`` then
``Z**z`` to A and sends A; Bob applies CNOT(A→B) and H(A) and measures: A gives ``z``, B ``x``.
Stream bits ``b_{2j}``, ``b_{2j+1}`` are symbol j's ``x``, ``z`` (an odd stream is padded with
one zero bit). The link's noise (:class:`~qring_edu.noise.Link`) is a Pauli on A: X flips ``x``,
Z flips ``z``, Y both; a lost photon is sent again on a fresh pair, never a wrong bit.

Two paths, cross-checked in the tests (and against Stim): the **fast path**
(:func:`superdense_send`) draws each symbol's composed Pauli and flips the bits it hits; the
**Qiskit path** puts every noise where it physically acts (:func:`superdense_circuit`) and
evolves density matrices exactly (:func:`superdense_outcome_probabilities`) or samples them
with Aer (:func:`superdense_send_qiskit`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ._validate import check_bit_array, check_int, generator
from .noise import PAULI_NAMES, Link, PauliErrors, depolarizing, draw_noise, flip_bits
from .states import PAULIS
from .states import isotropic_state as _isotropic_array

if TYPE_CHECKING:  # Qiskit is imported inside the functions of the Qiskit path only
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import DensityMatrix

__all__ = [
    "superdense_send",
    "superdense_circuit",
    "superdense_outcome_probabilities",
    "superdense_send_qiskit",
    "isotropic_state",
]


def _check_link(link) -> Link:
    if not isinstance(link, Link):
        raise TypeError(f"link must be a qring_edu.noise.Link, got {link!r}")
    return link


def superdense_send(bits, *, link: Link = Link(), seed=None) -> np.ndarray:
    """The ``uint8`` bits Bob decodes from a bit stream (1-D 0/1, length n) sent by superdense
    coding over ``link`` (fast path): one :func:`~qring_edu.noise.draw_noise` from
    ``default_rng(seed)`` (a ring's message with ``seed=SeedSequence(root.entropy, spawn_key=(step,
    sender))``, :func:`~qring_edu.noise.message_rng`).

    Examples
    --------
    >>> bits = np.array([1, 0, 1, 1, 0, 0, 1, 0], dtype=np.uint8)
    >>> superdense_send(bits).tolist()                          # perfect pairs: unchanged
    [1, 0, 1, 1, 0, 0, 1, 0]
    >>> noisy = superdense_send(np.zeros(100_000, np.uint8), link=Link(0.9), seed=1)
    >>> round(float(noisy.mean()), 3)                           # bit error 2(1 - F)/3
    0.067
    """
    data = check_bit_array(bits, "bits")
    link = _check_link(link)
    rng = generator(seed)
    if link.noiseless or data.size == 0:
        return data.copy()
    noise = draw_noise(-(-data.size // 2), link.errors, rng, link.transmission)
    out = data.copy()
    flip_bits(out, 1, noise.positions, noise.codes)
    return out


# -- Qiskit path -----------------------------------------------------------------------------------


def _aer_error(errors: PauliErrors):
    from qiskit_aer.noise import pauli_error  # Aer is only needed for sampling noisy circuits

    return pauli_error([(PAULI_NAMES[c], p) for c, p in enumerate(errors.probabilities) if p > 0])


def _link_noises(link: Link) -> tuple[PauliErrors, PauliErrors | None, PauliErrors]:
    """(pair error on B, each half's memory error or None, channel error on A)."""
    t, T2 = link.storage_time, link.coherence_time
    half = 0.0 if T2 == math.inf else 0.5 * (1.0 - math.exp(-t / T2))
    memory = PauliErrors((1.0 - half, 0.0, half, 0.0)) if half > 0 else None
    return depolarizing(link.pair), memory, depolarizing(link.channel_fidelity)


def superdense_circuit(
    x: int, z: int, *, link: Link = Link(), measure: bool = True
) -> QuantumCircuit:
    """The superdense-coding circuit sending ``(x, z)`` over ``link``.

    Qubit 0 is Alice's A, qubit 1 Bob's B. The pair's noise acts on the half that crossed the
    link (B), each half dephases in memory, the encoded A crosses the depolarising channel, each
    an Aer Pauli error. A is measured into clbit 0 (``z``), B into clbit 1 (``x``), so a count
    key reads ``f"{x}{z}"``.

    Examples
    --------
    >>> qc = superdense_circuit(1, 0)
    >>> qc.num_qubits, qc.num_clbits, dict(qc.count_ops())
    (2, 2, {'h': 2, 'cx': 2, 'barrier': 2, 'measure': 2, 'x': 1})
    >>> superdense_circuit(1, 0, link=Link(channel_fidelity=0.9)).count_ops()["quantum_channel"]
    2
    """
    from qiskit import QuantumCircuit

    x = check_int(x, "x", 0, 1)
    z = check_int(z, "z", 0, 1)
    link = _check_link(link)
    if not isinstance(measure, bool):
        raise TypeError(f"measure must be True or False, got {measure!r}")
    pair, memory, channel = _link_noises(link)
    qc = QuantumCircuit(2, 2 if measure else 0, name=f"superdense({x},{z})")
    qc.h(0)
    qc.cx(0, 1)
    if pair.error_rate > 0:
        qc.append(_aer_error(pair), [1])  # B's half crossed the link
    if memory is not None:
        qc.append(_aer_error(memory), [0])
        qc.append(_aer_error(memory), [1])
    qc.barrier(label="pair shared")
    if x:
        qc.x(0)
    if z:
        qc.z(0)
    if channel.error_rate > 0:
        qc.append(_aer_error(channel), [0])  # the online qubit crosses
    qc.barrier(label="A sent")
    qc.cx(0, 1)
    qc.h(0)
    if measure:
        qc.measure(0, 0)
        qc.measure(1, 1)
    return qc


def _kraus(errors: PauliErrors):
    from qiskit.quantum_info import Kraus

    return Kraus(
        [math.sqrt(p) * PAULIS[PAULI_NAMES[c]] for c, p in enumerate(errors.probabilities) if p]
    )


def isotropic_state(pair_fidelity: float) -> DensityMatrix:
    """The two-qubit isotropic state ``F Φ+ + (1-F)/3 (Φ- + Ψ+ + Ψ-)`` (qubit 0 = A, qubit 1 = B)
    as a Qiskit ``DensityMatrix``; the NumPy array is :func:`qring_edu.states.isotropic_state`.

    Examples
    --------
    >>> rho = isotropic_state(0.9)
    >>> rho.dim, round(float(rho.purity().real), 4)
    (4, 0.8133)
    """
    from qiskit.quantum_info import DensityMatrix

    return DensityMatrix(_isotropic_array(pair_fidelity))


def superdense_outcome_probabilities(x: int, z: int, *, link: Link = Link()) -> dict:
    """Exact distribution ``{(x', z'): probability}`` of Bob's decoded symbol: ``DensityMatrix``
    evolution, the noises of :func:`superdense_circuit` as Kraus channels (no sampling).

    Examples
    --------
    >>> p = superdense_outcome_probabilities(1, 0, link=Link(0.9))
    >>> {k: round(v, 4) for k, v in sorted(p.items())}  # right with probability F
    {(0, 0): 0.0333, (0, 1): 0.0333, (1, 0): 0.9, (1, 1): 0.0333}
    """
    from qiskit.quantum_info import DensityMatrix

    circuit = superdense_circuit(x, z, link=Link(), measure=False)  # validates x, z
    link = _check_link(link)
    pair, memory, channel = _link_noises(link)
    rho = DensityMatrix.from_label("00")
    shared = [(pair, 1)] + ([] if memory is None else [(memory, 0), (memory, 1)])
    noises = iter([shared, [(channel, 0)]])  # at the barriers: pair shared, then A sent
    for inst in circuit.data:
        if inst.operation.name == "barrier":
            for errors, qubit in next(noises):
                rho = rho.evolve(_kraus(errors), [qubit])
        else:
            rho = rho.evolve(inst.operation, [circuit.find_bit(q).index for q in inst.qubits])
    probs = rho.probabilities_dict(decimals=15)  # key "q1 q0" = "x z"
    return {(int(k[0]), int(k[1])): float(probs.get(k, 0.0)) for k in ("00", "01", "10", "11")}


def superdense_send_qiskit(bits, *, link: Link = Link(), seed=None) -> np.ndarray:
    """:func:`superdense_send` with one :func:`superdense_circuit` per symbol, run for one shot
    on ``AerSimulator`` (one batch, ``seed_simulator`` derived from ``seed``): the slow reference.

    Examples
    --------
    >>> bits = np.array([1, 0, 1, 1, 0], dtype=np.uint8)
    >>> superdense_send_qiskit(bits, seed=1).tolist()               # perfect pairs
    [1, 0, 1, 1, 0]
    """
    from qiskit_aer import AerSimulator

    data = check_bit_array(bits, "bits")
    link = _check_link(link)
    rng = generator(seed)
    if data.size == 0:
        return data.copy()
    padded = np.concatenate([data, np.zeros(data.size % 2, dtype=np.uint8)])
    circuits = [superdense_circuit(int(x), int(z), link=link) for x, z in padded.reshape(-1, 2)]
    sim_seed = int(rng.integers(2**31 - 1))
    result = AerSimulator().run(circuits, shots=1, seed_simulator=sim_seed).result()
    keys = [next(iter(result.get_counts(j))) for j in range(len(circuits))]  # one shot: "xz"
    return np.array([int(b) for key in keys for b in key], dtype=np.uint8)[: data.size]
