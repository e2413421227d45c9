"""Entanglement distillation: two noisy pairs in, one better pair out (book/04_noisy_links.ipynb).

Recurrence protocols on Bell-diagonal pairs, by frame code (:mod:`qring_edu.noise`): BBPSSW
(Bennett, Brassard, Popescu, Schumacher, Smolin, Wootters 1996; twirled back to Werner form every
round) and DEJMPS (Deutsch, Ekert, Jozsa, Macchiavello, Popescu, Sanpera 1996; stays
Bell-diagonal). A round is a bilateral CNOT from a source pair to a target pair, both target
halves measured in Z, the outcomes announced; the source pair is kept when they coincide.

* :func:`distill`: fidelity, success probability and expected offline cost per output pair;
* :func:`distill_sample`: the sampled cost of producing a number of pairs (what a ring run pays);
* :func:`distillable_yield`: recurrence then hashing (Bennett, DiVincenzo, Smolin, Wootters
  1996): every F > 1/2 is distillable, asymptotically;
* :func:`distill_qiskit`: one round on Qiskit density matrices, the cross-check of the formulas
  (SeQUeNCe's BBPSSW is a second one, in the tests).

Distillation happens offline: it costs raw pairs and classical announcements, never online
qubits, and it cannot remove the noise of the channel the online qubit crosses.
"""

from __future__ import annotations

from dataclasses import field

import numpy as np

from ._result import result
from ._validate import as_numeric_array, check_choice, check_fidelity, check_int, generator
from .noise import PAULI_NAMES, PauliErrors, depolarizing, entropy
from .states import PAULIS

__all__ = [
    "DISTILL_PROTOCOLS",
    "ANNOUNCE_BITS",
    "TWIRL_BITS",
    "Distillation",
    "distill",
    "DistillationRun",
    "distill_sample",
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
    """One bilateral CNOT round on two copies of the Bell-diagonal state ``p`` (frame codes).

    Pair 1 (source) and pair 2 (target) with Pauli frames (x1, z1), (x2, z2): the bilateral CNOT
    gives (x1, z1 ^ z2), (x1 ^ x2, z2). Both sides measure the target in Z; the parities agree iff
    x1 ^ x2 = 0, and then the kept pair has frame (x1, z1 ^ z2).
    Returns (success probability, coefficients of the kept pair).
    """
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

    ``fidelity``: fidelity of an output pair with |Φ+⟩. ``errors``: its Bell-diagonal
    coefficients as a :class:`PauliErrors` (``(Φ+, Ψ+, Φ−, Ψ−)``). ``success_probabilities``:
    per round, the probability that an attempt (two pairs in) keeps a pair.
    ``success_probability``: their product. ``raw_pairs_per_pair``: expected raw pairs consumed
    per output pair, ``2**rounds / success_probability`` (failed attempts' pairs are lost,
    survivors are paired again). ``offline_bits_per_pair``: expected classical bits announced
    offline per output pair (``ANNOUNCE_BITS`` per attempt, plus ``TWIRL_BITS`` per kept pair for
    BBPSSW). ``distillable``: the input fidelity exceeds ½ (at or below ½ a Werner state is
    separable and no round raises the fidelity; ``improved`` is then False). ``improved``: the
    output fidelity is above the input's.

    Attributes
    ----------
    protocol : str
        ``"bbpssw"`` or ``"dejmps"``.
    rounds : int
        Recurrence rounds.
    input_fidelity, fidelity : float
        Fidelity with |Φ+⟩ of a raw pair and of an output pair.
    errors : PauliErrors
        The output pair's Bell-diagonal coefficients ``(Φ+, Ψ+, Φ−, Ψ−)``.
    success_probabilities : tuple of float
        Per round, the probability that an attempt keeps a pair.
    success_probability : float
        Their product.
    raw_pairs_per_pair : float
        ``2**rounds / success_probability``, expected raw pairs per output pair.
    offline_bits_per_pair : float
        Expected classical bits announced offline per output pair.
    distillable, improved : bool
        Input fidelity above ½; output fidelity above the input's.

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


def _check_protocol(protocol: str) -> str:
    return check_choice(protocol, "protocol", DISTILL_PROTOCOLS)


def _recurrence(F: float, rounds: int, protocol: str):
    """Coefficients after each round and the rounds' success probabilities."""
    p = np.array(depolarizing(F, "pair_fidelity").probabilities)
    succ = []
    for _ in range(rounds):
        s, p = _round(p, protocol)
        succ.append(s)
    return p, succ


def distill(pair_fidelity: float, *, rounds: int = 1, protocol: str = "dejmps") -> Distillation:
    """Entanglement distillation by recurrence: ``rounds`` rounds of two pairs → one.

    Input: Werner pairs of fidelity ``pair_fidelity`` (in [0.25, 1]). One round: both parties
    apply CNOT from their half of a source pair to their half of a target pair (bilateral CNOT),
    measure the target halves in Z, announce the outcomes, and keep the source pair when they
    coincide. On Bell-diagonal coefficients ``(A, B, C, D) = (Φ+, Ψ−, Ψ+, Φ−)``:

    * ``"dejmps"`` (Deutsch et al. 1996; Alice Rx(π/2), Bob Rx(−π/2) on every pair first):
      ``N = (A+B)² + (C+D)²``, ``A' = (A²+B²)/N``, ``B' = 2CD/N``, ``C' = (C²+D²)/N``,
      ``D' = 2AB/N``; the state stays Bell-diagonal;
    * ``"bbpssw"`` (Bennett et al. 1996): the bilateral CNOT on Werner pairs, then a twirl back to
      Werner form: ``F' = (F² + ((1-F)/3)²) / N``, ``N = F² + 2F(1-F)/3 + 5((1-F)/3)²``.

    The success probability of a round is ``N``. Distillation happens offline: it costs raw pairs
    (``raw_pairs_per_pair``) and classical announcements (``offline_bits_per_pair``), never online
    qubits — and it cannot remove the noise of the channel the online qubit crosses.

    At ``pair_fidelity <= 1/2`` the result says so (``distillable=False``; the recurrence does not
    raise the fidelity, and the returned ``fidelity`` is the honest recurrence value, never an
    improvement). ``rounds`` >= 0 (0: the input unchanged).

    Examples
    --------
    >>> distill(0.9)
    Distillation(protocol='dejmps', rounds=1, input_fidelity=0.9, fidelity=0.9264, success_probability=0.8756, raw_pairs_per_pair=2.284, distillable=True)
    >>> round(distill(0.9, rounds=2, protocol="bbpssw").fidelity, 6)
    0.947208
    >>> distill(0.5).improved
    False
    """
    F = check_fidelity(pair_fidelity, "pair_fidelity")
    rounds = check_int(rounds, "rounds", 0, 64)
    protocol = _check_protocol(protocol)
    p, succ = _recurrence(F, rounds, protocol)
    # Expected attempts per output pair, from the last round backwards.
    pairs_out = 1.0  # pairs that must come out of the current round, per final pair
    bits = 0.0
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


@result
class DistillationRun:
    """A sampled production of ``output_pairs`` distilled pairs (:func:`distill_sample`).

    ``raw_pairs``: raw pairs distributed (one qubit each over the link); ``attempts``: attempts per
    round (round 1 first); ``offline_bits``: classical bits announced; ``fidelity``: of each output
    pair (the recurrence value).

    Attributes
    ----------
    output_pairs : int
        Distilled pairs produced.
    raw_pairs : int
        Raw pairs distributed.
    attempts : tuple of int
        Attempts per round, round 1 first.
    offline_bits : int
        Classical bits announced.
    fidelity : float
        Fidelity of each output pair.

    Examples
    --------
    One round on 10 output pairs of raw fidelity 0.9 (seeded):

    >>> run = distill_sample(0.9, 10, rounds=1, seed=1)
    >>> run
    DistillationRun(output_pairs=10, raw_pairs=20, offline_bits=20, fidelity=0.9264)
    >>> run.attempts
    (10,)
    """

    output_pairs: int
    raw_pairs: int
    attempts: tuple[int, ...] = field(repr=False)
    offline_bits: int
    fidelity: float


def sample_production(output_pairs: int, succ, protocol: str, rng) -> tuple[int, list[int], int]:
    """Sampled cost of ``output_pairs`` distilled pairs: ``(raw pairs, attempts per round, bits)``.

    ``succ``: the rounds' success probabilities (``Distillation.success_probabilities``).
    Backwards from the last round: a round that must deliver N pairs makes ``N +
    NegativeBinomial(N, p)`` attempts of two pairs each, announcing ``ANNOUNCE_BITS`` per attempt
    (and ``TWIRL_BITS`` per kept pair for BBPSSW).

    Examples
    --------
    >>> raw, attempts, bits = sample_production(10, [1.0], "dejmps", np.random.default_rng(0))
    >>> raw, attempts, bits                     # a certain round: 10 attempts, 20 raw pairs
    (20, [10], 20)
    """
    need = check_int(output_pairs, "output_pairs", 0)
    succ = as_numeric_array(succ, "succ")
    if succ.ndim != 1 or not np.all((succ > 0) & (succ <= 1)):
        raise ValueError(
            f"succ must be a 1-D array of success probabilities in (0, 1], got {succ!r}"
        )
    protocol = _check_protocol(protocol)
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


def distill_sample(
    pair_fidelity: float, output_pairs: int, *, rounds: int = 1, protocol: str = "dejmps", seed=None
) -> DistillationRun:
    """Sample the offline cost of producing ``output_pairs`` distilled pairs.

    Each round keeps attempting until it has the pairs the next round needs: the attempts of a
    round that must deliver N pairs are ``N + NegativeBinomial(N, p)`` (p its success
    probability); each attempt consumes two pairs of the previous round. ``raw_pairs`` averages
    ``output_pairs * distill(...).raw_pairs_per_pair``. Needs ``pair_fidelity > 1/2`` when
    ``rounds >= 1`` (below, distillation cannot raise the fidelity: ``ValueError``).

    Examples
    --------
    >>> run = distill_sample(0.9, 1000, rounds=2, seed=1)
    >>> run.output_pairs, run.raw_pairs > 4000
    (1000, True)
    """
    F = check_fidelity(pair_fidelity, "pair_fidelity")
    output_pairs = check_int(output_pairs, "output_pairs", 0)
    rounds = check_int(rounds, "rounds", 0, 64)
    protocol = _check_protocol(protocol)
    rng = generator(seed)
    if rounds > 0 and F <= 0.5:
        raise ValueError(
            f"pair_fidelity must exceed 1/2 for distillation, got {F:g}: a Werner "
            "state with F <= 1/2 is separable and no recurrence raises its fidelity"
        )
    p, succ = _recurrence(F, rounds, protocol)
    raw, attempts, bits = sample_production(output_pairs, succ, protocol, rng)
    return DistillationRun(
        output_pairs=output_pairs,
        raw_pairs=int(raw),
        attempts=tuple(attempts),
        offline_bits=int(bits),
        fidelity=float(p[0]),
    )


@result(show=("distillable",))
class HashingYield:
    """Recurrence followed by hashing (:func:`distillable_yield`).

    ``rounds``: recurrence rounds before hashing (the best found); ``fidelity``: the pairs'
    fidelity when hashing starts; ``hashing_rate``: ``1 - H(coefficients)`` (Bennett, DiVincenzo,
    Smolin, Wootters 1996; asymptotic, many copies, one-way classical communication);
    ``recurrence_yield``: output pairs per raw pair of the recurrence (``success/2**rounds``);
    ``yield_per_pair``: their product, perfect pairs per raw pair (> 0 iff distillable).

    Attributes
    ----------
    protocol : str
        The recurrence protocol.
    pair_fidelity, fidelity : float
        Raw fidelity, and fidelity when hashing starts.
    rounds : int
        Recurrence rounds before hashing.
    hashing_rate, recurrence_yield, yield_per_pair : float
        As above; ``yield_per_pair = recurrence_yield * hashing_rate``.
    distillable : bool
        ``yield_per_pair > 0``.

    Examples
    --------
    At F = 0.9 hashing right away is best: ``1 - H(0.9, 0.1/3, 0.1/3, 0.1/3)`` perfect pairs
    per raw pair:

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

    Hashing alone yields ``1 - H(F, (1-F)/3 ×3)`` per pair, positive only for F > 0.8107 — the
    same threshold below which a single noisy pair gives no dense-coding advantage (chapter 2).
    Two-way recurrence first raises any F > ½ above it, so every F > ½ gives a positive yield
    (asymptotic, in the limit of many copies): pairs of fidelity ½ < F < 0.81 are *not* worthless
    for dense coding once two-way distillation is allowed. Tries ``r = 0 .. max_rounds`` rounds
    and returns the best ``(success / 2**r) * max(0, 1 - H)``. At F <= ½ the yield is 0.

    Examples
    --------
    >>> y = distillable_yield(0.7)
    >>> y.rounds > 0 and y.yield_per_pair > 0
    True
    >>> distillable_yield(0.5).yield_per_pair
    0.0
    """
    F = check_fidelity(pair_fidelity, "pair_fidelity")
    protocol = _check_protocol(protocol)
    max_rounds = check_int(max_rounds, "max_rounds", 0, 10_000)
    p = np.array(depolarizing(F, "pair_fidelity").probabilities)
    rec = 1.0
    best = (0.0, 0, float(p[0]), 1.0 - entropy(p), 1.0)
    if F > 0.5:
        for r in range(max_rounds + 1):
            rate = 1.0 - entropy(p)
            y = rec * max(0.0, rate)
            if y > best[0]:
                best = (y, r, float(p[0]), rate, rec)
            if r == max_rounds or p[0] > 1 - 1e-15:
                break
            s, p = _round(p, protocol)
            rec *= s / 2.0
    y, r, fid, rate, rec = best
    return HashingYield(
        protocol=protocol,
        pair_fidelity=F,
        rounds=r,
        fidelity=fid,
        hashing_rate=rate,
        recurrence_yield=rec,
        yield_per_pair=y,
    )


def _bell_pair_density(errors: np.ndarray) -> np.ndarray:
    """4x4 density matrix (Qiskit order: qubit 0 = A, least significant) of a Bell-diagonal pair."""
    phi = np.array([1, 0, 0, 1], dtype=complex) / np.sqrt(2)
    paulis = _pauli_matrices()
    rho = np.zeros((4, 4), dtype=complex)
    for code in range(4):
        if errors[code] > 0:
            v = np.kron(np.eye(2), paulis[code]) @ phi  # Pauli on qubit 0 (A)
            rho += errors[code] * np.outer(v, v.conj())
    return rho


def _pauli_matrices() -> tuple[np.ndarray, ...]:
    return tuple(PAULIS[name] for name in PAULI_NAMES)  # frame-code order I, X, Z, Y


def distill_qiskit(
    pair: float | PauliErrors = 1.0, *, protocol: str = "dejmps"
) -> tuple[float, PauliErrors]:
    """One distillation round simulated on Qiskit density matrices (the Qiskit path).

    ``pair``: the input pair, a Werner fidelity in [0.25, 1] or a Bell-diagonal
    :class:`~qring_edu.noise.PauliErrors`. Two copies on qubits (A1, B1, A2, B2) = (0, 1, 2, 3).
    DEJMPS first applies Rx(π/2) to A1, A2 and Rx(−π/2) to B1, B2. Then the bilateral CNOT (A1→A2,
    B1→B2), the projection of A2, B2 onto equal Z outcomes, and the partial trace over them. BBPSSW
    then twirls the kept pair: the average over the three bilateral rotations ``C ⊗ C*`` with
    ``C = SH`` (a cyclic permutation of X, Y, Z).

    Returns ``(success probability, Bell coefficients of the kept pair)``, checked against
    :func:`distill` in the tests.

    Examples
    --------
    >>> p, kept = distill_qiskit(0.9)
    >>> round(p, 4), round(kept.fidelity, 6)
    (0.8756, 0.926396)
    """
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import DensityMatrix, Operator, partial_trace

    protocol = _check_protocol(protocol)
    if not isinstance(pair, PauliErrors):
        pair = depolarizing(pair, "pair")
    coeffs = np.array(pair.probabilities)
    one = _bell_pair_density(coeffs)
    rho = DensityMatrix(np.kron(one, one))  # qubits 0,1 = pair 1 (A1, B1); 2,3 = pair 2 (A2, B2)
    qc = QuantumCircuit(4)
    if protocol == "dejmps":
        qc.rx(np.pi / 2, [0, 2])
        qc.rx(-np.pi / 2, [1, 3])
    qc.cx(0, 2)
    qc.cx(1, 3)
    rho = rho.evolve(Operator(qc))
    full = rho.data
    # Projector onto equal outcomes of qubits 2 and 3 (Qiskit index bits: q3 q2 q1 q0).
    idx = np.arange(16)
    keep = ((idx >> 2) & 1) == ((idx >> 3) & 1)
    proj = np.diag(keep.astype(float))
    kept = proj @ full @ proj
    success = float(np.real(np.trace(kept)))
    reduced = partial_trace(DensityMatrix(kept / success), [2, 3]).data
    if protocol == "bbpssw":
        c = Operator(QuantumCircuit(1).compose(_cyclic_clifford())).data
        bil = np.kron(c.conj(), c)  # qubit 0 (A) gets C, qubit 1 (B) gets C*
        tw = reduced.copy()
        acc = reduced.copy()
        for _ in range(2):
            tw = bil @ tw @ bil.conj().T
            acc += tw
        reduced = acc / 3.0
    phi = np.array([1, 0, 0, 1], dtype=complex) / np.sqrt(2)
    paulis = _pauli_matrices()
    out = []
    for code in range(4):
        v = np.kron(np.eye(2), paulis[code]) @ phi
        out.append(float(np.real(v.conj() @ reduced @ v)))
    return success, PauliErrors(tuple(out))


def _cyclic_clifford():
    from qiskit import QuantumCircuit

    qc = QuantumCircuit(1)
    qc.h(0)
    qc.s(0)  # C = S H: X -> Z -> Y -> X under conjugation
    return qc
