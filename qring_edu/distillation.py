"""Entanglement distillation: two noisy pairs in, one better pair out (book/04_noisy_links.ipynb).

Recurrence protocols on Bell-diagonal pairs, by frame code (:mod:`qring_edu.noise`): BBPSSW
(Bennett, Brassard, Popescu, Schumacher, Smolin, Wootters 1996; twirled back to Werner form every
round) and DEJMPS (Deutsch, Ekert, Jozsa, Macchiavello, Popescu, Sanpera 1996; stays
Bell-diagonal). A round: bilateral CNOT from a source pair to a target pair, target halves
measured in Z and announced, the source pair kept when they coincide. Then hashing (Bennett,
DiVincenzo, Smolin, Wootters 1996; :func:`distillable_yield`). Input pairs are Werner pairs of
``pair_fidelity`` F in [0.25, 1]; ``protocol`` is "dejmps" or "bbpssw"; ``rounds`` in 0..64.

Offline: it costs raw pairs and classical announcements, never online qubits, and cannot remove
the noise of the channel the online qubit crosses. :func:`distill_qiskit` cross-checks one round.
"""

from __future__ import annotations

from dataclasses import field

import numpy as np

from ._result import result
from ._validate import as_numeric_array, check_choice, check_fidelity, check_int
from .noise import PAULI_NAMES, PauliErrors, depolarizing, entropy
from .states import PAULIS

__all__ = [
    "DISTILL_PROTOCOLS",
    "ANNOUNCE_BITS",
    "TWIRL_BITS",
    "Distillation",
    "distill",
    "sample_production",
    "HashingYield",
    "distillable_yield",
    "distill_qiskit",
]

DISTILL_PROTOCOLS = ("bbpssw", "dejmps")

#: Classical bits announced per attempt (two pairs in, one out): each side's target outcome.
ANNOUNCE_BITS = 2
#: Bits to twirl one pair to Werner form in BBPSSW: Alice's choice among the three bilateral
#: rotations that permute X, Y, Z cyclically (enough for a Bell-diagonal state), ceil(log2 3).
TWIRL_BITS = 2


def _bilateral_cnot(p: np.ndarray) -> tuple[float, np.ndarray]:
    """``(success probability, kept pair's coefficients)`` of a bilateral CNOT on two copies of
    ``p``: frames (x1, z1), (x2, z2) become (x1, z1 ^ z2), (x1 ^ x2, z2); kept iff x1 ^ x2 = 0."""
    out = np.zeros(4)
    for a in range(4):
        for b in range(4):
            if (a ^ b) & 1 == 0:  # x parts equal: coincidence
                out[(a & 1) | ((a ^ b) & 2)] += p[a] * p[b]
    success = float(out.sum())
    return success, out / success


def _round(p: np.ndarray, protocol: str) -> tuple[float, np.ndarray]:
    if protocol == "dejmps":
        # Alice Rx(π/2), Bob Rx(-π/2) on every pair first: Z ↔ Y (Φ− ↔ Ψ−), then bilateral CNOT.
        p = p[[0, 1, 3, 2]]
        return _bilateral_cnot(p)
    success, out = _bilateral_cnot(p)  # bbpssw: bilateral CNOT on Werner pairs, then twirl
    err = (1.0 - out[0]) / 3.0
    return success, np.array([out[0], err, err, err])


@result
class Distillation:
    """Outcome of :func:`distill`: ``rounds`` recurrence rounds from Werner pairs.

    ``input_fidelity``, ``fidelity``: of a raw and an output pair with |Φ+⟩; ``errors``: the
    output's Bell-diagonal coefficients ``(Φ+, Ψ+, Φ−, Ψ−)``; ``success_probabilities``: per
    round, P(an attempt, two pairs in, keeps a pair), ``success_probability`` their product;
    ``raw_pairs_per_pair``: ``2**rounds / success_probability``; ``offline_bits_per_pair``:
    expected bits announced (``ANNOUNCE_BITS`` per attempt, plus ``TWIRL_BITS`` per kept pair
    for BBPSSW); ``distillable``: F > ½ (at or below, a Werner pair is separable);
    ``improved``: output fidelity above the input's.

    Examples
    --------
    >>> run = distill(0.9, rounds=2)
    >>> run
    Distillation(protocol='dejmps', rounds=2, input_fidelity=0.9, fidelity=0.9888, success_probability=0.76, raw_pairs_per_pair=5.263, distillable=True)
    >>> [round(p, 4) for p in run.success_probabilities], round(run.errors.error_rate, 6)
    ([0.8756, 0.868], 0.011236)
    """

    protocol: str
    rounds: int
    input_fidelity: float
    fidelity: float
    errors: PauliErrors = field(repr=False)
    success_probabilities: tuple[float, ...] = field(repr=False)
    success_probability: float
    raw_pairs_per_pair: float
    offline_bits_per_pair: float = field(repr=False)
    distillable: bool
    improved: bool = field(repr=False)


def _recurrence(F: float, rounds: int, protocol: str):
    """Coefficients after each round and the rounds' success probabilities."""
    p = np.array(depolarizing(F, "pair_fidelity").probabilities)
    succ = []
    for _ in range(rounds):
        s, p = _round(p, protocol)
        succ.append(s)
    return p, succ


def distill(pair_fidelity: float, *, rounds: int = 1, protocol: str = "dejmps") -> Distillation:
    """Entanglement distillation by recurrence: ``rounds`` rounds of two pairs → one (module
    docstring). On Bell-diagonal coefficients ``(A, B, C, D) = (Φ+, Ψ−, Ψ+, Φ−)``:

    * ``"dejmps"`` (Deutsch et al. 1996; Alice Rx(π/2), Bob Rx(−π/2) on every pair first):
      ``N = (A+B)² + (C+D)²``, ``A' = (A²+B²)/N``, ``B' = 2CD/N``, ``C' = (C²+D²)/N``,
      ``D' = 2AB/N``; the state stays Bell-diagonal;
    * ``"bbpssw"`` (Bennett et al. 1996): the bilateral CNOT on Werner pairs, then a twirl back to
      Werner form: ``F' = (F² + ((1-F)/3)²) / N``, ``N = F² + 2F(1-F)/3 + 5((1-F)/3)²``.

    A round succeeds with probability ``N``. At ``pair_fidelity <= 1/2``: ``distillable=False``
    and ``fidelity`` is the recurrence value, never an improvement. ``rounds=0``: the input.

    Examples
    --------
    >>> distill(0.9)
    Distillation(protocol='dejmps', rounds=1, input_fidelity=0.9, fidelity=0.9264, success_probability=0.8756, raw_pairs_per_pair=2.284, distillable=True)
    >>> round(distill(0.9, rounds=2, protocol="bbpssw").fidelity, 6)
    0.947208
    """
    F = check_fidelity(pair_fidelity, "pair_fidelity")
    rounds = check_int(rounds, "rounds", 0, 64)
    protocol = check_choice(protocol, "protocol", DISTILL_PROTOCOLS)
    p, succ = _recurrence(F, rounds, protocol)
    # Expected attempts per output pair, from the last round backwards.
    pairs_out, bits = 1.0, 0.0  # pairs_out: pairs the current round must deliver per final pair
    for s in reversed(succ):
        attempts = pairs_out / s
        bits += ANNOUNCE_BITS * attempts + (TWIRL_BITS * pairs_out if protocol == "bbpssw" else 0)
        pairs_out = 2.0 * attempts
    total = float(np.prod(succ)) if succ else 1.0
    errors = PauliErrors(tuple(p))
    return Distillation(
        protocol=protocol,
        rounds=rounds,
        input_fidelity=F,
        fidelity=errors.fidelity,
        errors=errors,
        success_probabilities=tuple(float(s) for s in succ),
        success_probability=total,
        raw_pairs_per_pair=float(pairs_out),
        offline_bits_per_pair=float(bits),
        distillable=F > 0.5,
        improved=errors.fidelity > F + 1e-15,
    )


def sample_production(output_pairs: int, succ, protocol: str, rng) -> tuple[int, list[int], int]:
    """Sampled cost of ``output_pairs`` distilled pairs: ``(raw pairs, attempts per round, bits)``.

    ``succ``: ``Distillation.success_probabilities``; ``rng``: a ``numpy.random.Generator``.
    Backwards from the last round, a round delivering N pairs makes ``N + NegativeBinomial(N,
    p)`` attempts of two pairs each (bits as ``Distillation.offline_bits_per_pair``); the raw
    pairs average ``output_pairs * raw_pairs_per_pair``.

    Examples
    --------
    >>> raw, attempts, bits = sample_production(10, [1.0], "dejmps", np.random.default_rng(0))
    >>> raw, attempts, bits                     # a certain round: 10 attempts, 20 raw pairs
    (20, [10], 20)
    """
    need = check_int(output_pairs, "output_pairs", 0)
    succ = as_numeric_array(succ, "succ")
    if succ.ndim != 1 or not np.all((succ > 0) & (succ <= 1)):
        raise ValueError(f"succ must be 1-D success probabilities in (0, 1], got {succ!r}")
    protocol = check_choice(protocol, "protocol", DISTILL_PROTOCOLS)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {rng!r}")
    if need * 2.0 ** len(succ) / max(np.prod(succ), 1e-300) > 2**60:
        raise ValueError(
            f"output_pairs = {need} over {len(succ)} rounds needs more than 2**60 raw pairs"
        )
    attempts, bits = [], 0
    for s in reversed(succ):
        tries = need + (int(rng.negative_binomial(need, s)) if need > 0 and s < 1.0 else 0)
        attempts.append(tries)
        bits += ANNOUNCE_BITS * tries + (TWIRL_BITS * need if protocol == "bbpssw" else 0)
        need = 2 * tries
    return need, attempts[::-1], bits


@result(show=("distillable",))
class HashingYield:
    """Recurrence followed by hashing (:func:`distillable_yield`).

    ``rounds`` (the best found) then hashing from ``fidelity``; ``hashing_rate``:
    ``1 - H(coefficients)`` (asymptotic, one-way communication); ``recurrence_yield``:
    ``success / 2**rounds``; ``yield_per_pair``: their product, perfect pairs per raw pair.

    Examples
    --------
    At F = 0.9 hashing right away is best, ``1 - H(0.9, 0.1/3, 0.1/3, 0.1/3)``:

    >>> distillable_yield(0.9)
    HashingYield(protocol='dejmps', pair_fidelity=0.9, rounds=0, fidelity=0.9, hashing_rate=0.3725, recurrence_yield=1, yield_per_pair=0.3725, distillable=True)
    """

    protocol: str
    pair_fidelity: float
    rounds: int
    fidelity: float
    hashing_rate: float
    recurrence_yield: float
    yield_per_pair: float

    @property
    def distillable(self) -> bool:
        """Some perfect pairs per raw pair: ``yield_per_pair > 0``."""
        return self.yield_per_pair > 0.0


def distillable_yield(
    pair_fidelity: float, *, protocol: str = "dejmps", max_rounds: int = 100
) -> HashingYield:
    """Perfect pairs per raw Werner pair from recurrence rounds followed by hashing.

    Hashing alone yields ``1 - H(F, (1-F)/3 ×3)``, positive only for F > 0.8107; recurrence
    first lifts any F > ½ above it, so every F > ½ has a positive (asymptotic) yield. The best
    ``(success / 2**r) * max(0, 1 - H)`` over ``r = 0 .. max_rounds``; 0 at F <= ½.

    Examples
    --------
    >>> y = distillable_yield(0.7)
    >>> y.rounds > 0 and y.yield_per_pair > 0
    True
    """
    F = check_fidelity(pair_fidelity, "pair_fidelity")
    protocol = check_choice(protocol, "protocol", DISTILL_PROTOCOLS)
    max_rounds = check_int(max_rounds, "max_rounds", 0, 10_000)
    p = np.array(depolarizing(F, "pair_fidelity").probabilities)
    rec = 1.0
    # (rounds, fidelity, hashing_rate, recurrence_yield, yield_per_pair) of the best so far
    best = (0, float(p[0]), 1.0 - entropy(p), 1.0, 0.0)
    if F > 0.5:
        for r in range(max_rounds + 1):
            rate = 1.0 - entropy(p)
            y = rec * max(0.0, rate)
            if y > best[-1]:
                best = (r, float(p[0]), rate, rec, y)
            if r == max_rounds or p[0] > 1 - 1e-15:
                break
            s, p = _round(p, protocol)
            rec *= s / 2.0
    return HashingYield(protocol, F, *best)


def _bell_vectors() -> list[np.ndarray]:
    """The Bell states ``(I ⊗ σ) |Φ+⟩`` in frame-code order I, X, Z, Y (Qiskit order: the Pauli
    acts on qubit 0 = A, least significant)."""
    phi = np.array([1, 0, 0, 1], dtype=complex) / np.sqrt(2)
    return [np.kron(np.eye(2), PAULIS[name]) @ phi for name in PAULI_NAMES]


def distill_qiskit(
    pair: float | PauliErrors = 1.0, *, protocol: str = "dejmps"
) -> tuple[float, PauliErrors]:
    """One distillation round simulated on Qiskit density matrices (the Qiskit path).

    ``pair``: a Werner fidelity in [0.25, 1] or a Bell-diagonal
    :class:`~qring_edu.noise.PauliErrors`; two copies on qubits (A1, B1, A2, B2) = (0, 1, 2, 3).
    DEJMPS first applies Rx(π/2) to A1, A2 and Rx(−π/2) to B1, B2; then bilateral CNOT (A1→A2,
    B1→B2), projection onto equal Z outcomes of A2, B2, partial trace; BBPSSW then averages over
    the bilateral rotations ``C ⊗ C*``, ``C = SH`` (cycles X, Y, Z). Returns ``(success
    probability, kept pair's Bell coefficients)``.

    Examples
    --------
    >>> p, kept = distill_qiskit(0.9)
    >>> round(p, 4), round(kept.fidelity, 6)
    (0.8756, 0.926396)
    """
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import DensityMatrix, Operator, partial_trace

    protocol = check_choice(protocol, "protocol", DISTILL_PROTOCOLS)
    if not isinstance(pair, PauliErrors):
        pair = depolarizing(pair, "pair")
    bell = _bell_vectors()
    one = sum(c * np.outer(v, v.conj()) for c, v in zip(pair.probabilities, bell) if c > 0)
    rho = DensityMatrix(np.kron(one, one))  # qubits 0,1 = pair 1 (A1, B1); 2,3 = pair 2 (A2, B2)
    qc = QuantumCircuit(4)
    if protocol == "dejmps":
        qc.rx(np.pi / 2, [0, 2])
        qc.rx(-np.pi / 2, [1, 3])
    qc.cx(0, 2)
    qc.cx(1, 3)
    full = rho.evolve(Operator(qc)).data
    # Projector onto equal outcomes of qubits 2 and 3 (Qiskit index bits: q3 q2 q1 q0).
    idx = np.arange(16)
    keep = ((idx >> 2) & 1) == ((idx >> 3) & 1)
    proj = np.diag(keep.astype(float))
    kept = proj @ full @ proj
    success = float(np.real(np.trace(kept)))
    reduced = partial_trace(DensityMatrix(kept / success), [2, 3]).data
    if protocol == "bbpssw":
        cyclic = QuantumCircuit(1)
        cyclic.h(0)
        cyclic.s(0)  # C = S H: X -> Z -> Y -> X under conjugation
        c = Operator(cyclic).data
        bil = np.kron(c.conj(), c)  # qubit 0 (A) gets C, qubit 1 (B) gets C*
        once = bil @ reduced @ bil.conj().T
        reduced = (reduced + once + bil @ once @ bil.conj().T) / 3.0
    return success, PauliErrors(tuple(float(np.real(v.conj() @ reduced @ v)) for v in bell))
