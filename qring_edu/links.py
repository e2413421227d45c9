"""Noisy links: what remains of the factor of two, and what protection costs (book/04_noisy_links.ipynb).

Link model
----------
A directed link ``(k, k+1)`` of the ring is a **depolarising qubit channel** of fidelity ``F_ch``:
every qubit that crosses it suffers X, Y or Z, each with probability ``(1 - F_ch)/3``. Two kinds
of qubit cross it:

* **offline**, one half of each Bell pair (distribution). A pair whose half crossed the link fresh
  is the isotropic (Werner) state of fidelity ``F_pair = F_ch`` — the channel acting on one half of
  |Φ+⟩ is the same Pauli channel acting on the other half, because ``(1 ⊗ σ)|Φ+⟩ = (σᵀ ⊗ 1)|Φ+⟩``
  and ``σᵀ = ±σ``. Pairs may be better (distilled, :func:`distill`) or worse (another source);
  ``pair_fidelity`` says which. While they wait, both halves may dephase in memories of coherence
  time ``T2`` for ``storage_time`` ``t`` (each half suffers Z with probability
  ``(1 - exp(-t/T2))/2``; since ``Z_B|Φ+⟩ = Z_A|Φ+⟩`` the pair suffers a net Z on Alice's half with
  probability ``(1 - exp(-2t/T2))/2``);
* **online**, the encoded qubit of superdense coding.

All these errors are Paulis on Alice's qubit up to a phase, so they **compose** by multiplying
Paulis: the decoded 2-bit symbol suffers the error ``E = E_pair · E_memory · E_channel``.
With a Werner pair and no memory the composed error is again depolarising, of fidelity

    F_eff = F_pair F_ch + (1 - F_pair)(1 - F_ch)/3            (F_pair = F_ch = F: F² + (1-F)²/3)

(no error when both are trivial or both are the same Pauli). :class:`PauliErrors` holds such a
distribution; :func:`link_errors` composes the link's.

Pauli codes and bit order. A Pauli error is stored by its *frame code* (as in
:mod:`qring_edu.superdense`): bit 0 flips the decoded ``x``, bit 1 flips ``z``; 0 = I, 1 = X,
2 = Z, 3 = Y. Probabilities are listed in that order ``(I, X, Z, Y)``, which is also the order of
the Bell-diagonal coefficients of the pair ``(Φ+, Ψ+, Φ−, Ψ−)`` (X, Z, Y applied to Alice's half
of |Φ+⟩). Composition is the XOR of codes.

Module map
----------
* noise: :class:`PauliErrors`, :func:`depolarizing`, :func:`memory_dephasing`,
  :func:`effective_fidelity`, :func:`link_errors`;
* capacities: :class:`Capacities`, :func:`depolarizing_capacities` (Holevo and
  entanglement-assisted), :func:`symbol_capacity`, :func:`superdense_link_capacity` (the bound
  ``C_E(F_eff)`` per online qubit);
* distillation: :class:`Distillation`, :func:`distill` (BBPSSW, DEJMPS recurrences),
  :class:`DistillationRun`, :func:`distill_sample` (sampled successes and the offline cost),
  :class:`HashingYield`, :func:`distillable_yield` (recurrence then hashing: every F > ½ is useful),
  :func:`distill_qiskit` (the bilateral-CNOT circuit on Qiskit density matrices);
* error protection: :class:`FECCode`, :func:`fec_code` (Reed–Solomon over GF(2⁸) with a checksum
  and retransmission), :func:`fec_transmit` (the exact fast model of the decoder's outcome, or a
  real ``galois`` decoder), :class:`Protection`, :func:`protection`;
* accounting: :func:`ring_link_bits`, :func:`net_online_factors`, :func:`net_online_factor`,
  :class:`NetFactor`, :func:`expected_net_factor`;
* Qiskit path of the link: :func:`noisy_link_circuit`, :func:`noisy_link_probabilities`,
  :func:`noisy_link_send_qiskit`.

Qiskit and galois are imported only inside the functions that need them.
"""

from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from ._validate import (
    check_bit_array,
    check_choice,
    check_fidelity,
    check_float,
    check_int,
    check_seed,
)

__all__ = [
    "PauliErrors",
    "depolarizing",
    "memory_dephasing",
    "effective_fidelity",
    "link_errors",
    "Capacities",
    "depolarizing_capacities",
    "symbol_capacity",
    "superdense_link_capacity",
    "DISTILL_PROTOCOLS",
    "Distillation",
    "distill",
    "DistillationRun",
    "distill_sample",
    "HashingYield",
    "distillable_yield",
    "distill_qiskit",
    "FECCode",
    "fec_code",
    "FECOutcome",
    "fec_transmit",
    "toeplitz_hash",
    "PROTECTIONS",
    "DECODERS",
    "Protection",
    "protection",
    "ProtectionReport",
    "ring_link_bits",
    "net_online_factors",
    "net_online_factor",
    "NetFactor",
    "expected_net_factor",
    "noisy_link_circuit",
    "noisy_link_probabilities",
    "noisy_link_send_qiskit",
]

#: Frame codes (bit 0 flips x, bit 1 flips z) and their Pauli names, in probability order.
PAULI_NAMES = ("I", "X", "Z", "Y")
#: The Bell state that each code turns |Φ+⟩ into (Pauli on Alice's half).
BELL_NAMES = ("Φ+", "Ψ+", "Φ−", "Ψ−")

_ATOL = 1e-9


def _entropy(p) -> float:
    """Shannon entropy in bits of a probability vector (0 log 0 = 0)."""
    p = np.asarray(p, dtype=float)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def _h2(p: float) -> float:
    return _entropy([p, 1.0 - p])


# --------------------------------------------------------------------------------------------
# Pauli error distributions
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PauliErrors:
    """A Pauli error on one qubit (equivalently a Bell-diagonal pair), by frame code.

    ``probabilities``: ``(p_I, p_X, p_Z, p_Y)`` — the probability of each frame code 0, 1, 2, 3
    (bit 0 flips the decoded ``x``, bit 1 flips ``z``), non-negative, summing to 1. As a pair,
    the same numbers are the Bell-diagonal coefficients on ``(Φ+, Ψ+, Φ−, Ψ−)``.

    Examples
    --------
    >>> e = depolarizing(0.99).compose(depolarizing(0.99))
    >>> round(e.fidelity, 6)
    0.980133
    >>> e.is_depolarizing
    True
    """

    probabilities: tuple[float, float, float, float]

    def __post_init__(self):
        p = np.asarray(self.probabilities, dtype=float)
        if p.shape != (4,) or not np.all(np.isfinite(p)):
            raise ValueError("probabilities must be 4 finite numbers (p_I, p_X, p_Z, p_Y)")
        if np.any(p < -_ATOL) or abs(p.sum() - 1.0) > 1e-9:
            raise ValueError(
                f"probabilities must be non-negative and sum to 1, got {tuple(float(v) for v in p)}"
            )
        object.__setattr__(self, "probabilities", tuple(float(max(v, 0.0)) for v in p))

    @property
    def fidelity(self) -> float:
        """``p_I``: the probability that the decoded symbol is right (the pair's fidelity)."""
        return self.probabilities[0]

    @property
    def error_rate(self) -> float:
        """``1 - p_I``: the symbol error rate of superdense coding through this error."""
        return 1.0 - self.probabilities[0]

    @property
    def is_depolarizing(self) -> bool:
        """True when X, Y and Z are equally likely (a depolarising channel / Werner pair)."""
        _, px, pz, py = self.probabilities
        return abs(px - pz) <= 1e-15 and abs(px - py) <= 1e-15

    def as_array(self) -> np.ndarray:
        """The probabilities as a float array of shape (4,), frame-code order."""
        return np.array(self.probabilities)

    def compose(self, other: PauliErrors) -> PauliErrors:
        """The error of applying ``self`` and ``other`` (independent; the order is irrelevant):
        ``p[a ^ b] += self[a] * other[b]``."""
        a, b = self.probabilities, other.probabilities
        out = [0.0] * 4
        for i in range(4):
            for j in range(4):
                out[i ^ j] += a[i] * b[j]
        return PauliErrors(tuple(out))

    def capacity(self) -> float:
        """Capacity of the decoded 4-ary symbol channel, bits per qubit: ``2 - H(p)``."""
        return 2.0 - _entropy(self.probabilities)

    def __repr__(self) -> str:
        pi, px, pz, py = self.probabilities
        return f"PauliErrors(I={pi:.6g}, X={px:.6g}, Z={pz:.6g}, Y={py:.6g})"


def _check_channel_fidelity(value, name: str = "channel_fidelity") -> float:
    return check_fidelity(value, name)


def depolarizing(fidelity: float, name: str = "fidelity") -> PauliErrors:
    """The depolarising error of fidelity ``F`` in [0.25, 1]: X, Y, Z each with ``(1 - F)/3``.

    Examples
    --------
    >>> depolarizing(0.97)
    PauliErrors(I=0.97, X=0.01, Z=0.01, Y=0.01)
    """
    F = check_fidelity(fidelity, name)
    q = (1.0 - F) / 3.0
    return PauliErrors((F, q, q, q))


def _check_times(storage_time, coherence_time) -> tuple[float, float]:
    storage_time = check_float(storage_time, "storage_time", 0.0)
    if (
        isinstance(coherence_time, numbers.Real)
        and not isinstance(coherence_time, bool)
        and coherence_time == math.inf
    ):
        return storage_time, math.inf
    coherence_time = check_float(coherence_time, "coherence_time", 0.0, lo_open=True)
    return storage_time, coherence_time


def memory_dephasing(storage_time: float = 0.0, coherence_time: float = math.inf) -> PauliErrors:
    """Net error of a pair whose two halves each wait ``storage_time`` in a memory of coherence
    time ``coherence_time`` (same unit, e.g. seconds; ``inf`` = a perfect memory).

    Each half dephases: Z with probability ``p = (1 - exp(-t/T2))/2`` (off-diagonal elements decay
    as ``exp(-t/T2)``). ``Z_B|Φ+⟩ = Z_A|Φ+⟩``, so the pair suffers a net Z on Alice's half with
    probability ``2p(1-p) = (1 - exp(-2t/T2))/2``.

    Examples
    --------
    >>> round(memory_dephasing(1.0, 10.0).probabilities[2], 6)  # Z
    0.090635
    """
    t, T2 = _check_times(storage_time, coherence_time)
    if t == 0.0 or T2 == math.inf:
        return PauliErrors((1.0, 0.0, 0.0, 0.0))
    pz = 0.5 * (1.0 - math.exp(-2.0 * t / T2))
    return PauliErrors((1.0 - pz, 0.0, pz, 0.0))


def effective_fidelity(pair_fidelity: float, channel_fidelity: float) -> float:
    """``F_eff = F_pair F_ch + (1 - F_pair)(1 - F_ch)/3``: the probability that a superdense
    symbol through a Werner pair of fidelity ``F_pair`` and a depolarising channel of fidelity
    ``F_ch`` on the travelling qubit decodes right.

    Examples
    --------
    >>> round(effective_fidelity(0.99, 0.99), 6)
    0.980133
    """
    Fp = check_fidelity(pair_fidelity, "pair_fidelity")
    Fc = _check_channel_fidelity(channel_fidelity)
    return Fp * Fc + (1.0 - Fp) * (1.0 - Fc) / 3.0


def link_errors(
    pair_fidelity: float | None = None,
    channel_fidelity: float = 1.0,
    *,
    storage_time: float = 0.0,
    coherence_time: float = math.inf,
    pair: PauliErrors | None = None,
) -> PauliErrors:
    """The composed Pauli error of one decoded superdense symbol on a noisy link.

    ``pair_fidelity``: Werner fidelity of the pre-shared pair, in [0.25, 1]; ``None`` means the
    pair's half crossed this link fresh, so ``F_pair = channel_fidelity``. ``pair``: the pair's
    Bell-diagonal error instead (e.g. ``distill(...).errors``); give one of the two.
    ``channel_fidelity``: the depolarising channel the encoded qubit crosses. ``storage_time``,
    ``coherence_time``: memory dephasing of the waiting pair (:func:`memory_dephasing`).

    Returns the distribution of ``E_pair · E_memory · E_channel`` (frame codes, see the module
    docstring). Without memory noise and with a Werner pair it is depolarising of fidelity
    :func:`effective_fidelity`.

    Examples
    --------
    >>> link_errors(channel_fidelity=0.99)          # pair distributed over the same link
    PauliErrors(I=0.980133, X=0.00662222, Z=0.00662222, Y=0.00662222)
    >>> link_errors(1.0, 0.99).fidelity              # a perfect pair: only the channel
    0.99
    """
    Fc = _check_channel_fidelity(channel_fidelity)
    if pair is not None:
        if pair_fidelity is not None:
            raise ValueError("give pair_fidelity or pair, not both")
        if not isinstance(pair, PauliErrors):
            raise TypeError(f"pair must be a PauliErrors, got {type(pair).__name__}")
        pair_err = pair
    else:
        Fp = Fc if pair_fidelity is None else check_fidelity(pair_fidelity, "pair_fidelity")
        pair_err = depolarizing(Fp, "pair_fidelity")
    errors = pair_err
    memory = memory_dephasing(storage_time, coherence_time)
    if memory.fidelity < 1.0:
        errors = errors.compose(memory)
    if Fc < 1.0:
        errors = errors.compose(depolarizing(Fc, "channel_fidelity"))
    return errors


# --------------------------------------------------------------------------------------------
# Capacities
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Capacities:
    """Capacities of the depolarising qubit channel of fidelity ``channel_fidelity``, bits per use.

    ``classical``: unassisted classical (Holevo) capacity ``1 - h(2(1 - F)/3)``; additive for
    this channel (King 2003), so it is the capacity. ``entanglement_assisted``:
    ``2 - H(F, (1-F)/3, (1-F)/3, (1-F)/3)`` (Bennett–Shor–Smolin–Thapliyal 2002), with unlimited
    perfect pre-shared entanglement. ``ratio``: their quotient (``inf`` where ``classical`` is 0).

    Attributes
    ----------
    channel_fidelity : float
        ``F`` of the depolarising channel, in ``[1/4, 1]``.
    classical : float
        Bits per channel use without entanglement.
    entanglement_assisted : float
        Bits per channel use with unlimited perfect entanglement.
    ratio : float
        ``entanglement_assisted / classical``: 2 on a noiseless channel, more with noise.

    Examples
    --------
    >>> from qring_edu import depolarizing_capacities
    >>> caps = depolarizing_capacities(0.9)
    >>> round(caps.classical, 4), round(caps.entanglement_assisted, 4), round(caps.ratio, 4)
    (0.6466, 1.3725, 2.1225)
    >>> depolarizing_capacities(1.0).ratio
    2.0
    """

    channel_fidelity: float
    classical: float
    entanglement_assisted: float

    @property
    def ratio(self) -> float:
        """``entanglement_assisted / classical`` (``inf`` where only the assisted one is > 0)."""
        if self.classical <= 0.0:
            return math.inf if self.entanglement_assisted > 0 else math.nan
        return self.entanglement_assisted / self.classical

    def __repr__(self) -> str:
        return (
            f"Capacities(F={self.channel_fidelity:g}, classical={self.classical:.4f}, "
            f"entanglement_assisted={self.entanglement_assisted:.4f}, ratio={self.ratio:.4f})"
        )


def depolarizing_capacities(channel_fidelity: float) -> Capacities:
    """Unassisted and entanglement-assisted classical capacities of the depolarising channel.

    Parametrisation: X, Y, Z each with probability ``(1 - F)/3`` (``F`` in [0.25, 1]), i.e.
    ``ρ ↦ λρ + (1 - λ) I/2`` with ``λ = (4F - 1)/3``. The Holevo capacity is reached with two
    orthogonal inputs, each flipped with probability ``(1 - λ)/2 = 2(1 - F)/3``:
    ``C = 1 - h(2(1 - F)/3)`` (additive: King 2003). The entanglement-assisted capacity is
    ``C_E = max_ρ I(ρ, N) = 2 - H(F, (1-F)/3 ×3)`` (BSST 2002, maximally mixed input). With noise
    ``C_E / C > 2``: the factor two holds on noiseless channels only.

    Examples
    --------
    >>> depolarizing_capacities(0.9)
    Capacities(F=0.9, classical=0.6466, entanglement_assisted=1.3725, ratio=2.1225)
    """
    F = _check_channel_fidelity(channel_fidelity)
    q = (1.0 - F) / 3.0
    return Capacities(
        channel_fidelity=F,
        classical=1.0 - _h2(2.0 * q),
        entanglement_assisted=2.0 - _entropy([F, q, q, q]),
    )


def symbol_capacity(errors: PauliErrors) -> float:
    """Capacity in bits per online qubit of the decoded 2-bit symbol channel with Pauli
    ``errors``: ``2 - H(p_I, p_X, p_Z, p_Y)`` (an additive-noise channel over Z₂², whose
    capacity is log 4 minus the noise entropy). It equals the dense-coding capacity
    ``1 + S(ρ_B) - S(ρ_AB)`` of the Bell-diagonal state with those coefficients.

    Examples
    --------
    >>> round(symbol_capacity(depolarizing(0.9)), 4)
    1.3725
    """
    if not isinstance(errors, PauliErrors):
        raise TypeError(f"errors must be a PauliErrors, got {type(errors).__name__}")
    return errors.capacity()


def superdense_link_capacity(
    pair_fidelity: float | None = None,
    channel_fidelity: float = 1.0,
    *,
    storage_time: float = 0.0,
    coherence_time: float = math.inf,
    pair: PauliErrors | None = None,
) -> float:
    """The bound ``C_E(F_eff)`` in bits per online qubit of a superdense link: the capacity of the
    decoded symbol channel (:func:`symbol_capacity`) with the composed error of
    :func:`link_errors` (same arguments). No code over the decoded stream, with any checksum or
    retransmission, delivers more classical bits per online channel use (qubit or classical side
    bit) using these pairs, one per online qubit.

    Examples
    --------
    >>> round(superdense_link_capacity(channel_fidelity=0.99), 3)     # F_pair = F_ch = 0.99
    1.828
    >>> round(superdense_link_capacity(channel_fidelity=0.999), 3)
    1.976
    """
    return link_errors(
        pair_fidelity,
        channel_fidelity,
        storage_time=storage_time,
        coherence_time=coherence_time,
        pair=pair,
    ).capacity()


# --------------------------------------------------------------------------------------------
# Distillation (recurrence protocols)
# --------------------------------------------------------------------------------------------

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


@dataclass(frozen=True)
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
    >>> from qring_edu import distill
    >>> run = distill(0.9, rounds=2)
    >>> run
    Distillation(dejmps, rounds=2, F=0.9 -> 0.988764, success=0.7600, raw_pairs_per_pair=5.2635, distillable=True)
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
    improved: bool

    def __repr__(self) -> str:
        return (
            f"Distillation({self.protocol}, rounds={self.rounds}, F={self.input_fidelity:g} -> "
            f"{self.fidelity:.6f}, success={self.success_probability:.4f}, "
            f"raw_pairs_per_pair={self.raw_pairs_per_pair:.4f}, distillable={self.distillable})"
        )


def _check_protocol(protocol: str) -> str:
    return check_choice(protocol, "protocol", DISTILL_PROTOCOLS)


def _recurrence(F: float, rounds: int, protocol: str):
    """Coefficients after each round and the rounds' success probabilities."""
    p = depolarizing(F, "pair_fidelity").as_array()
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
    Distillation(dejmps, rounds=1, F=0.9 -> 0.926396, success=0.8756, raw_pairs_per_pair=2.2843, distillable=True)
    >>> round(distill(0.9, rounds=2, protocol="bbpssw").fidelity, 6)
    0.947208
    >>> distill(0.5).improved
    False
    """
    F = check_fidelity(pair_fidelity, "pair_fidelity")
    rounds = check_int(rounds, "rounds", 0)
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


@dataclass(frozen=True)
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

    >>> from qring_edu import distill_sample
    >>> run = distill_sample(0.9, 10, rounds=1, seed=1)
    >>> run
    DistillationRun(output_pairs=10, raw_pairs=20, offline_bits=20, fidelity=0.926396)
    >>> run.attempts
    (10,)
    """

    output_pairs: int
    raw_pairs: int
    attempts: tuple[int, ...] = field(repr=False)
    offline_bits: int
    fidelity: float

    def __repr__(self) -> str:
        return (
            f"DistillationRun(output_pairs={self.output_pairs}, raw_pairs={self.raw_pairs}, "
            f"offline_bits={self.offline_bits}, fidelity={self.fidelity:.6f})"
        )


def _sample_production(output_pairs: int, succ, protocol: str, rng) -> tuple[int, list[int], int]:
    """Backwards: round r needs N successes, i.e. N + NegBin(N, p_r) attempts of 2 pairs each."""
    need = output_pairs
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
    rounds = check_int(rounds, "rounds", 0)
    protocol = _check_protocol(protocol)
    check_seed(seed)
    if rounds > 0 and F <= 0.5:
        raise ValueError(
            f"pair_fidelity must exceed 1/2 for distillation, got {F:g}: a Werner "
            "state with F <= 1/2 is separable and no recurrence raises its fidelity"
        )
    p, succ = _recurrence(F, rounds, protocol)
    raw, attempts, bits = _sample_production(
        output_pairs, succ, protocol, np.random.default_rng(seed)
    )
    return DistillationRun(
        output_pairs=output_pairs,
        raw_pairs=int(raw),
        attempts=tuple(attempts),
        offline_bits=int(bits),
        fidelity=float(p[0]),
    )


@dataclass(frozen=True)
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

    >>> from qring_edu import distillable_yield
    >>> distillable_yield(0.9)
    HashingYield(dejmps, F=0.9, rounds=0, fidelity=0.9000, hashing_rate=0.3725, yield=3.725e-01)
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

    def __repr__(self) -> str:
        return (
            f"HashingYield({self.protocol}, F={self.pair_fidelity:g}, rounds={self.rounds}, "
            f"fidelity={self.fidelity:.4f}, hashing_rate={self.hashing_rate:.4f}, "
            f"yield={self.yield_per_pair:.3e})"
        )


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
    p = depolarizing(F, "pair_fidelity").as_array()
    rec = 1.0
    best = (0.0, 0, float(p[0]), 1.0 - _entropy(p), 1.0)
    if F > 0.5:
        for r in range(max_rounds + 1):
            rate = 1.0 - _entropy(p)
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


@functools.lru_cache(maxsize=1)
def _pauli_matrices():
    I = np.eye(2, dtype=complex)
    X = np.array([[0, 1], [1, 0]], dtype=complex)
    Z = np.diag([1, -1]).astype(complex)
    Y = np.array([[0, -1j], [1j, 0]])
    return (I, X, Z, Y)  # frame-code order


def distill_qiskit(
    pair_fidelity: float | None = None, *, protocol: str = "dejmps", pair: PauliErrors | None = None
) -> tuple[float, PauliErrors]:
    """One distillation round simulated on Qiskit density matrices (the Qiskit path).

    Two copies of the pair (Werner of ``pair_fidelity``, or the Bell-diagonal ``pair``) on qubits
    (A1, B1, A2, B2) = (0, 1, 2, 3). DEJMPS first applies Rx(π/2) to A1, A2 and Rx(−π/2) to B1, B2.
    Then the bilateral CNOT (A1→A2, B1→B2), the projection of A2, B2 onto equal Z outcomes, and
    the partial trace over them. BBPSSW then twirls the kept pair: the average over the three
    bilateral rotations ``C ⊗ C*`` with ``C = SH`` (a cyclic permutation of X, Y, Z).

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
    if pair is None:
        coeffs = depolarizing(
            1.0 if pair_fidelity is None else pair_fidelity, "pair_fidelity"
        ).as_array()
    else:
        if not isinstance(pair, PauliErrors):
            raise TypeError(f"pair must be a PauliErrors, got {type(pair).__name__}")
        coeffs = pair.as_array()
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


# --------------------------------------------------------------------------------------------
# Forward error correction: Reed–Solomon over GF(2^8), checksum, retransmission
# --------------------------------------------------------------------------------------------

#: Bits per RS symbol (one byte) and superdense symbols (qubits) per RS symbol.
SYMBOL_BITS = 8
QUBITS_PER_SYMBOL = SYMBOL_BITS // 2
MAX_BLOCK_LENGTH = 2**SYMBOL_BITS - 1
#: Classical bits the receiver returns per block transmission (accept / retransmit).
ACK_BITS = 1
#: Hash lengths allowed (bits, whole bytes inside the codeword).
HASH_BITS_RANGE = (8, 64)
DEFAULT_HASH_BITS = 64
#: Cap on retransmission rounds of one message (a failure probability this high is a usage error).
MAX_ROUNDS = 10_000


def _binom_sf(n: int, p: float) -> np.ndarray:
    """``P(Bin(n, p) > t)`` for t = 0 .. n, as an array of length n + 1 (exact, log space)."""
    if p <= 0.0:
        return np.zeros(n + 1)
    if p >= 1.0:
        out = np.ones(n + 1)
        out[n] = 0.0
        return out
    k = np.arange(n + 1)
    lg = np.array([math.lgamma(v + 1.0) for v in range(n + 1)])
    logpmf = lg[n] - lg - lg[::-1] + k * math.log(p) + (n - k) * math.log1p(-p)
    pmf = np.exp(logpmf)
    tail = np.cumsum(pmf[::-1])[::-1]  # tail[j] = P(X >= j), smallest terms summed first
    sf = np.zeros(n + 1)
    sf[:-1] = tail[1:]
    return np.minimum(sf, 1.0)


@dataclass(frozen=True)
class FECCode:
    """A Reed–Solomon code over GF(2⁸) with a checksum inside, for the decoded superdense stream.

    Codeword: ``n`` bytes = ``data_bytes`` of payload, ``hash_bits/8`` bytes of checksum, ``2t``
    parity bytes (systematic, in that order; a message's last block is shortened: fewer payload
    bytes, same checksum and parity). Byte ``j`` of a codeword crosses the link as the four
    superdense symbols (qubits) ``4j .. 4j+3``: stream bit ``8j + i`` is bit ``i`` of the byte
    (little-endian), symbol ``s`` of the byte carries bits ``2s`` (x) and ``2s+1`` (z). So a Pauli
    error on one qubit corrupts exactly one byte, whichever of X, Y, Z it is.

    Decoding is bounded-distance: up to ``t`` byte errors are corrected exactly. More errors are
    either detected by the decoder or *miscorrected* to another codeword; the checksum — a
    Toeplitz hash of the payload bits with a random key shared offline — then rejects the block
    except with probability at most ``2**-hash_bits`` (the hash family is ε-almost-XOR-universal
    and a miscorrection adds a codeword that depends on the noise only, not on the key). The
    receiver returns ``ACK_BITS`` per block transmission; rejected blocks are sent again.

    Attributes
    ----------
    n : int
        Block length in bytes (at most 255).
    t : int
        Correctable byte errors per block.
    hash_bits : int
        Checksum bits (a multiple of 8).
    k, data_bytes, overhead_bytes : int
        Message bytes ``n - 2t``, payload bytes ``n - 2t - hash_bits/8`` and checksum plus
        parity bytes ``hash_bits/8 + 2t`` per full block.
    rate : float
        ``data_bytes / n``.

    Examples
    --------
    The code :func:`fec_code` picks for a symbol error rate of 1 %:

    >>> from qring_edu import fec_code
    >>> code = fec_code(0.01)
    >>> code
    FECCode(RS(255, 221) over GF(2^8), t=17, hash_bits=64, data_bytes=213)
    >>> code.k, code.overhead_bytes, round(code.rate, 4)
    (221, 42, 0.8353)
    >>> round(code.byte_error(0.01), 6), round(code.failure_probability(0.01), 4)
    (0.039404, 0.0131)
    >>> round(code.net_factor(0.01), 4)          # payload bits per online channel use
    1.6471
    """

    n: int
    t: int
    hash_bits: int = DEFAULT_HASH_BITS

    @property
    def k(self) -> int:
        """Message bytes (payload + checksum) per full block: ``n - 2t``."""
        return self.n - 2 * self.t

    @property
    def hash_bytes(self) -> int:
        """Checksum bytes per block: ``hash_bits / 8``."""
        return self.hash_bits // 8

    @property
    def data_bytes(self) -> int:
        """Payload bytes per full block: ``n - 2t - hash_bits/8``."""
        return self.k - self.hash_bytes

    @property
    def overhead_bytes(self) -> int:
        """Checksum and parity bytes per block: ``hash_bits/8 + 2t``."""
        return self.hash_bytes + 2 * self.t

    @property
    def rate(self) -> float:
        """Payload bits per coded bit of a full block: ``data_bytes / n``."""
        return self.data_bytes / self.n

    def byte_error(self, symbol_error: float) -> float:
        """Probability that a byte (4 superdense symbols) arrives wrong: ``1 - (1 - s)**4``."""
        return 1.0 - (1.0 - float(symbol_error)) ** QUBITS_PER_SYMBOL

    def failure_probability(self, symbol_error: float) -> float:
        """Probability that a full block is rejected: more than ``t`` of its ``n`` bytes wrong."""
        return float(_binom_sf(self.n, self.byte_error(symbol_error))[self.t])

    def expected_transmissions(self, symbol_error: float) -> float:
        """Expected transmissions per full block, ``1 / (1 - failure_probability)``."""
        q = self.failure_probability(symbol_error)
        return math.inf if q >= 1.0 else 1.0 / (1.0 - q)

    def net_factor(self, symbol_error: float) -> float:
        """Expected payload bits per online channel use on a long message:
        ``8 data_bytes (1 - q) / (4n + ACK_BITS)`` (q the failure probability)."""
        q = self.failure_probability(symbol_error)
        return SYMBOL_BITS * self.data_bytes * (1.0 - q) / (QUBITS_PER_SYMBOL * self.n + ACK_BITS)

    def __repr__(self) -> str:
        return (
            f"FECCode(RS({self.n}, {self.k}) over GF(2^8), t={self.t}, "
            f"hash_bits={self.hash_bits}, data_bytes={self.data_bytes})"
        )


def _check_hash_bits(hash_bits) -> int:
    hb = check_int(hash_bits, "hash_bits", *HASH_BITS_RANGE)
    if hb % 8:
        raise ValueError(
            f"hash_bits must be a multiple of 8 in {HASH_BITS_RANGE[0]}.."
            f"{HASH_BITS_RANGE[1]} (whole bytes of the codeword), got {hb}"
        )
    return hb


def _check_symbol_error(symbol_error) -> float:
    return check_float(symbol_error, "symbol_error", 0.0, 0.75)


def fec_code(
    symbol_error: float,
    *,
    block_length: int = MAX_BLOCK_LENGTH,
    correctable: int | None = None,
    hash_bits: int = DEFAULT_HASH_BITS,
) -> FECCode:
    """Choose the Reed–Solomon code for a decoded stream of superdense symbols.

    ``symbol_error``: probability that a decoded 2-bit symbol is wrong (``1 - p_I`` of
    :func:`link_errors`), in [0, 0.75]. ``block_length``: codeword length n in bytes, at most 255
    (shortened codes below). ``correctable``: the number t of byte errors corrected; ``None``
    picks the t that maximises :meth:`FECCode.net_factor` — payload per channel use, counting
    parity, checksum, acknowledgements and expected retransmissions. ``hash_bits``: checksum
    length (multiple of 8, 8..64).

    Why this code: a Pauli error on a qubit flips one or both bits of one 2-bit symbol, so
    errors come in symbols, not independent bits; packing four symbols per byte makes each qubit
    error exactly one byte error, and a Reed–Solomon code corrects byte errors whatever their
    bit pattern, with the largest distance a length-n code allows (MDS: d = n - k + 1). Its
    bounded-distance decoder is exact up to t errors, which is what makes an exact fast model of
    its outcome possible (:func:`fec_transmit`).

    Raises ``ValueError`` naming ``block_length`` when no t leaves room for payload, or naming
    ``symbol_error`` when the link is too noisy for any code of that length to deliver data.

    Examples
    --------
    >>> fec_code(link_errors(channel_fidelity=0.99).error_rate)
    FECCode(RS(255, 199) over GF(2^8), t=28, hash_bits=64, data_bytes=191)
    >>> fec_code(0.0)
    FECCode(RS(255, 255) over GF(2^8), t=0, hash_bits=64, data_bytes=247)
    """
    s = _check_symbol_error(symbol_error)
    hb = _check_hash_bits(hash_bits)
    hbytes = hb // 8
    lo = hbytes + 1
    n = check_int(block_length, "block_length", lo, MAX_BLOCK_LENGTH)
    t_max = (n - hbytes - 1) // 2  # at least one payload byte
    if correctable is not None:
        t = check_int(correctable, "correctable", 0)
        if t > t_max:
            raise ValueError(
                f"block_length {n} cannot correct {t} byte errors with a "
                f"{hb}-bit checksum: block_length must be at least "
                f"{2 * t + hbytes + 1} (2t + checksum bytes + 1), got {n}"
            )
        return FECCode(n=n, t=t, hash_bits=hb)
    p_byte = 1.0 - (1.0 - s) ** QUBITS_PER_SYMBOL
    sf = _binom_sf(n, p_byte)[: t_max + 1]
    ts = np.arange(t_max + 1)
    factor = SYMBOL_BITS * (n - 2 * ts - hbytes) * (1.0 - sf) / (QUBITS_PER_SYMBOL * n + ACK_BITS)
    best = int(np.argmax(factor))
    if factor[best] <= 1e-3 or sf[best] > 0.5:
        raise ValueError(
            f"symbol_error {s:.4g} is too high for a Reed–Solomon code of "
            f"block_length {n}: even the best t ({best}) rejects "
            f"{sf[best]:.1%} of the blocks; use a higher fidelity or distillation"
        )
    return FECCode(n=n, t=best, hash_bits=hb)


def _block_lengths(n_bytes: int, code: FECCode) -> np.ndarray:
    """Codeword lengths (bytes) of the blocks carrying ``n_bytes`` payload bytes."""
    if n_bytes == 0:
        return np.zeros(0, dtype=np.int64)
    full, rest = divmod(n_bytes, code.data_bytes)
    sizes = np.full(full + (rest > 0), code.n, dtype=np.int64)
    if rest:
        sizes[-1] = rest + code.overhead_bytes
    return sizes


@dataclass(frozen=True)
class FECOutcome:
    """What one message cost over a protected link (:func:`fec_transmit`).

    ``qubits``: superdense symbols sent (= Bell pairs consumed), retransmissions included;
    ``ack_bits``: classical bits returned by the receiver (one per block transmission);
    ``blocks``: blocks of the message; ``transmissions``: block transmissions;
    ``rejected``: transmissions the receiver rejected (more than t byte errors);
    ``rounds``: retransmission rounds (1 = everything accepted at once);
    ``received``: the payload bytes the receiver accepted (``None`` for the fast model, whose
    accepted blocks are the sent ones by construction).

    Attributes
    ----------
    qubits, ack_bits, blocks, transmissions, rejected, rounds : int
        As above.
    received : numpy.ndarray of uint8 or None
        The accepted payload (real decoder only).

    Examples
    --------
    A 100-byte message over a link of fidelity 0.98 (fast model, seeded):

    >>> import numpy as np
    >>> from qring_edu.links import depolarizing, fec_code, fec_transmit
    >>> fec_transmit(100, fec_code(0.02), depolarizing(0.98), np.random.default_rng(0))
    FECOutcome(qubits=656, ack_bits=1, blocks=1, transmissions=1, rejected=0, rounds=1)
    """

    qubits: int
    ack_bits: int
    blocks: int
    transmissions: int
    rejected: int
    rounds: int
    received: np.ndarray | None = field(default=None, repr=False)


def fec_transmit(
    n_bytes: int,
    code: FECCode,
    errors: PauliErrors,
    rng,
    *,
    payload: np.ndarray | None = None,
    decoder: str = "model",
    hash_key: np.ndarray | None = None,
    detail_rng=None,
) -> FECOutcome:
    """Send ``n_bytes`` payload bytes over a protected superdense link until every block is in.

    Round by round, each pending block (codeword length n') crosses as ``4 n'`` qubits; the
    number of its bytes that arrive wrong is drawn as ``Binomial(n', 1 - p_I**4)`` from ``rng``
    (``errors`` is the composed :func:`link_errors` of one symbol). Then

    * ``decoder="model"`` (exact fast model of bounded-distance decoding): a block with at most t
      wrong bytes is corrected and accepted; with more it is rejected and sent again. (A rejected
      block would be accepted wrongly only if the decoder miscorrects *and* the checksum
      collides, probability <= ``2**-hash_bits`` per rejection; the fast model counts those
      rejections so the caller can state the bound.)
    * ``decoder="galois"`` (real decoder, small instances): ``payload`` (uint8 bytes) is encoded
      with a checksum (Toeplitz hash keyed by ``hash_key`` bits) and ``galois.ReedSolomon``; the
      wrong bytes get their positions and their XOR patterns (four Paulis drawn from ``errors``,
      conditioned on not all I) from ``detail_rng``; the receiver decodes, checks the hash and
      accepts or asks again. Both decoders draw the same numbers from ``rng``, so with the same
      seed they send the same blocks — the tests check that galois accepts exactly the blocks
      the model accepts.

    Returns an :class:`FECOutcome`; raises ``RuntimeError`` after ``MAX_ROUNDS`` rounds.

    Examples
    --------
    >>> code = fec_code(0.02)
    >>> out = fec_transmit(10_000, code, depolarizing(0.98), np.random.default_rng(0))
    >>> out.blocks, out.transmissions >= out.blocks, out.qubits >= 4 * 10_000
    (53, True, True)
    """
    decoder = check_choice(decoder, "decoder", DECODERS)
    sizes = _block_lengths(int(n_bytes), code)
    p_byte = 1.0 - errors.fidelity**QUBITS_PER_SYMBOL
    real = decoder == "galois"
    if real:
        if payload is None or hash_key is None or detail_rng is None:
            raise ValueError("decoder='galois' needs payload, hash_key and detail_rng")
        rs = _galois_rs(code.n, code.k)
        sent = _encode_blocks(rs, code, payload, hash_key)
        received = np.zeros(int(n_bytes), dtype=np.uint8)
    pending = np.arange(sizes.size)
    qubits = acks = transmissions = rejected = rounds = 0
    while pending.size:
        rounds += 1
        if rounds > MAX_ROUNDS:
            raise RuntimeError(
                f"blocks still rejected after {MAX_ROUNDS} rounds: the code "
                f"({code!r}) cannot carry this link's error rate"
            )
        n_pend = sizes[pending]
        qubits += QUBITS_PER_SYMBOL * int(n_pend.sum())
        acks += ACK_BITS * pending.size
        transmissions += pending.size
        wrong = rng.binomial(n_pend, p_byte) if p_byte > 0 else np.zeros(pending.size, np.int64)
        if real:
            ok = _galois_receive(
                rs, code, sent, pending, wrong, errors, hash_key, detail_rng, received
            )
        else:
            ok = wrong <= code.t
        rejected += int(np.count_nonzero(~ok))
        pending = pending[~ok]
    return FECOutcome(
        qubits=qubits,
        ack_bits=acks,
        blocks=int(sizes.size),
        transmissions=transmissions,
        rejected=rejected,
        rounds=rounds,
        received=received if real else None,
    )


@functools.lru_cache(maxsize=8)
def _galois_rs(n: int, k: int):
    """The primitive RS(255, 255 - (n - k)) code over GF(2^8); shorter blocks are shortened."""
    import galois  # the real decoder: optional dependency, small instances only

    return galois.ReedSolomon(MAX_BLOCK_LENGTH, MAX_BLOCK_LENGTH - (n - k))


def toeplitz_hash(data: np.ndarray, key: np.ndarray, hash_bits: int) -> np.ndarray:
    """Toeplitz hash of the bytes ``data``: ``T · bits(data)`` over GF(2), packed to bytes.

    ``key``: 0/1 array of at least ``hash_bits + 8 len(data) - 1`` bits; ``T[i, j] =
    key[i - j + 8 len - 1]`` (constant diagonals). For any fixed nonzero change of the data and
    any change of the hash, a uniformly random key makes them consistent with probability
    ``2**-hash_bits`` (Krawczyk 1994): the bound the protocol states.

    Parameters
    ----------
    data : array_like of uint8, shape (m,)
        The bytes; bit ``i`` of byte ``j`` is bit ``8j + i`` of the hashed string (little-endian).
    key : numpy.ndarray of 0/1, shape (>= hash_bits + 8m - 1,)
    hash_bits : int
        Length of the hash (a multiple of 8).

    Returns
    -------
    numpy.ndarray of uint8, shape (hash_bits / 8,)

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu.links import toeplitz_hash
    >>> key = np.random.default_rng(0).integers(0, 2, 16 + 24 - 1)
    >>> toeplitz_hash(np.array([1, 2, 3], dtype=np.uint8), key, 16).tolist()
    [87, 173]
    >>> toeplitz_hash(np.array([1, 2, 2], dtype=np.uint8), key, 16).tolist()
    [171, 114]
    """

    bits = np.unpackbits(np.asarray(data, dtype=np.uint8), bitorder="little").astype(np.int64)
    m = bits.size
    i = np.arange(hash_bits)[:, None]
    j = np.arange(m)[None, :]
    T = key[i - j + m - 1]
    h = (T @ bits) & 1
    return np.packbits(h.astype(np.uint8), bitorder="little")


def _encode_blocks(rs, code: FECCode, payload: np.ndarray, key: np.ndarray) -> list:
    """The codewords of the payload's blocks (payload, checksum, parity), encoded in one batch;
    the last block is shortened (left-padded with zeros to the primitive code's k, which are
    not sent)."""
    msgs = np.zeros((-(-payload.size // code.data_bytes), rs.k), dtype=np.uint8)
    lengths = []
    for i, lo in enumerate(range(0, payload.size, code.data_bytes)):
        data = payload[lo : lo + code.data_bytes]
        msg = np.concatenate([data, toeplitz_hash(data, key, code.hash_bits)])
        msgs[i, rs.k - msg.size :] = msg
        lengths.append(msg.size + 2 * code.t)
    words = np.asarray(rs.encode(rs.field(msgs)).view(np.ndarray), dtype=np.uint8)
    words = words.reshape(len(lengths), MAX_BLOCK_LENGTH)
    return [words[i, MAX_BLOCK_LENGTH - n :] for i, n in enumerate(lengths)]


def _byte_patterns(count: int, errors: PauliErrors, rng) -> np.ndarray:
    """``count`` XOR patterns of a byte whose 4 symbols suffered Paulis from ``errors``,
    conditioned on at least one not being I (rejection sampling)."""
    out = np.zeros(count, dtype=np.uint8)
    probs = errors.as_array()
    filled = 0
    while filled < count:
        need = count - filled
        codes = rng.choice(4, size=(2 * need + 8, QUBITS_PER_SYMBOL), p=probs)
        pats = (codes << (2 * np.arange(QUBITS_PER_SYMBOL))).sum(axis=1).astype(np.uint8)
        pats = pats[pats != 0][:need]
        out[filled : filled + pats.size] = pats
        filled += pats.size
    return out


def _galois_receive(
    rs,
    code: FECCode,
    sent: list,
    pending: np.ndarray,
    wrong: np.ndarray,
    errors: PauliErrors,
    key: np.ndarray,
    rng,
    received: np.ndarray,
) -> np.ndarray:
    """One round of the real receiver: corrupt the pending codewords (``wrong[i]`` byte errors at
    positions and with patterns from ``rng``), decode them in one batch (each left-padded with
    zeros to the primitive length: a shortened code), check the checksums and store accepted
    payloads in ``received``. Returns the accept flags."""
    words = np.zeros((pending.size, MAX_BLOCK_LENGTH), dtype=np.uint8)
    shorten = np.empty(pending.size, dtype=np.int64)
    for i, (blk, w) in enumerate(zip(pending, wrong)):
        word = sent[int(blk)].copy()
        if w:
            pos = rng.choice(word.size, size=int(w), replace=False)
            word[pos] ^= _byte_patterns(int(w), errors, rng)
        shorten[i] = MAX_BLOCK_LENGTH - word.size
        words[i, shorten[i] :] = word
    decoded, n_err = rs.decode(rs.field(words), errors=True)
    decoded = np.asarray(decoded.view(np.ndarray), dtype=np.uint8).reshape(pending.size, -1)
    n_err = np.atleast_1d(np.asarray(n_err))
    ok = np.zeros(pending.size, dtype=bool)
    for i, blk in enumerate(pending):
        if n_err[i] < 0:
            continue  # the decoder itself detected too many errors
        msg = decoded[i, shorten[i] :]
        data, tag = msg[: -code.hash_bytes], msg[-code.hash_bytes :]
        if np.array_equal(toeplitz_hash(data, key, code.hash_bits), tag):
            ok[i] = True
            lo = int(blk) * code.data_bytes
            received[lo : lo + data.size] = data
    return ok


# --------------------------------------------------------------------------------------------
# Protection schemes
# --------------------------------------------------------------------------------------------

PROTECTIONS = ("none", "distill", "fec", "distill+fec")
DECODERS = ("model", "galois")


@dataclass(frozen=True)
class Protection:
    """How a superdense link is protected (:func:`protection`; ``ring_allreduce(protection=)``).

    ``scheme``: ``"none"``, ``"distill"`` (pairs distilled offline with ``rounds`` rounds of
    ``protocol``), ``"fec"`` (Reed–Solomon, checksum, retransmission; ``block_length``,
    ``correctable`` (None: chosen for the link), ``hash_bits``; ``decoder`` "model" or
    "galois"), or ``"distill+fec"`` (both).

    Attributes
    ----------
    scheme : str
        One of ``PROTECTIONS``.
    rounds : int
        Distillation rounds (``>= 1`` when distilling).
    protocol : str
        ``"bbpssw"`` or ``"dejmps"``.
    block_length : int
        Reed–Solomon block length in bytes.
    correctable : int or None
        Byte errors corrected per block; ``None``: chosen for the link's error rate.
    hash_bits : int
        Checksum bits.
    decoder : str
        ``"model"`` (the exact fast model) or ``"galois"`` (a real decoder).
    distills, codes : bool
        The scheme distils the pairs; it codes the stream.

    Examples
    --------
    >>> from qring_edu import Protection
    >>> Protection("fec", block_length=64, correctable=4)
    Protection('fec', n=64, t=4, hash=64, model)
    >>> both = Protection("distill+fec", rounds=2)
    >>> both.distills, both.codes
    (True, True)
    >>> Protection("distill", rounds=0)
    Traceback (most recent call last):
    ...
    ValueError: rounds must be >= 1 for protection='distill', got 0
    """

    scheme: str = "none"
    rounds: int = 1
    protocol: str = "dejmps"
    block_length: int = MAX_BLOCK_LENGTH
    correctable: int | None = None
    hash_bits: int = DEFAULT_HASH_BITS
    decoder: str = "model"

    def __post_init__(self):  # validated however it is built
        scheme = check_choice(self.scheme, "protection", PROTECTIONS)
        rounds = check_int(self.rounds, "rounds", 0)
        if scheme in ("distill", "distill+fec") and rounds == 0:
            raise ValueError(f"rounds must be >= 1 for protection={scheme!r}, got 0")
        _check_protocol(self.protocol)
        check_choice(self.decoder, "decoder", DECODERS)
        hash_bits = _check_hash_bits(self.hash_bits)
        n = check_int(self.block_length, "block_length", hash_bits // 8 + 1, MAX_BLOCK_LENGTH)
        if self.correctable is not None:
            fec_code(0.0, block_length=n, correctable=self.correctable, hash_bits=hash_bits)

    @property
    def distills(self) -> bool:
        """The pairs are distilled offline (``"distill"``, ``"distill+fec"``)."""
        return self.scheme in ("distill", "distill+fec")

    @property
    def codes(self) -> bool:
        """The decoded stream is coded (``"fec"``, ``"distill+fec"``)."""
        return self.scheme in ("fec", "distill+fec")

    def __repr__(self) -> str:
        parts = [repr(self.scheme)]
        if self.distills:
            parts.append(f"{self.protocol} x{self.rounds}")
        if self.codes:
            t = "auto" if self.correctable is None else self.correctable
            parts.append(f"n={self.block_length}, t={t}, hash={self.hash_bits}, {self.decoder}")
        return f"Protection({', '.join(parts)})"


def protection(
    scheme: str | Protection = "none",
    *,
    rounds: int = 1,
    protocol: str = "dejmps",
    block_length: int = MAX_BLOCK_LENGTH,
    correctable: int | None = None,
    hash_bits: int = DEFAULT_HASH_BITS,
    decoder: str = "model",
) -> Protection:
    """A validated :class:`Protection` (a ``Protection`` passes through unchanged).

    Errors name the argument: ``scheme`` not one of :data:`PROTECTIONS`, ``rounds`` < 0 (or 0
    with distillation), unknown ``protocol`` or ``decoder``, ``block_length`` outside
    ``[hash_bits/8 + 1, 255]``, ``correctable`` too large for ``block_length``, ``hash_bits`` not
    a multiple of 8 in 8..64.

    Examples
    --------
    >>> protection("distill+fec", rounds=2, block_length=128)
    Protection('distill+fec', dejmps x2, n=128, t=auto, hash=64, model)
    """
    if isinstance(scheme, Protection):
        return scheme
    return Protection(
        scheme=scheme,
        rounds=rounds,
        protocol=protocol,
        block_length=block_length,
        correctable=correctable,
        hash_bits=hash_bits,
        decoder=decoder,
    )


@dataclass(frozen=True)
class ProtectionReport:
    """What a noisy or protected ring run did on its links (``AllReduceResult.link_report``).

    ``protection``: the scheme; ``errors``: the composed Pauli error of one online symbol (with
    distilled pairs when distilling); ``distillation``, ``code``: the parts used (or ``None``);
    ``blocks``, ``transmissions``, ``rejected``: code blocks over all messages, their
    transmissions and the rejected ones; ``max_rounds``: most rounds any message needed.

    Attributes
    ----------
    protection : Protection
    errors : PauliErrors
    distillation : Distillation or None
    code : FECCode or None
    blocks, transmissions, rejected, max_rounds : int
    symbol_error, undetected_bound : float
        See the properties.

    Examples
    --------
    A superdense ring over links of fidelity 0.99, without and with error protection (seeded):

    >>> import numpy as np
    >>> import qring_edu as qr
    >>> grads = np.arange(24).reshape(3, 8)
    >>> noisy = qr.ring_allreduce(grads, bits=8, transport="superdense",
    ...                           channel_fidelity=0.99, seed=0)
    >>> noisy.link_report, noisy.link_report.undetected_bound
    (ProtectionReport('none', symbol_error=0.01987), 1.0)
    >>> coded = qr.ring_allreduce(grads, bits=8, transport="superdense",
    ...                           channel_fidelity=0.99, protection="fec", seed=0)
    >>> coded.link_report
    ProtectionReport('fec', symbol_error=0.01987, blocks=12, transmissions=12, rejected=0, undetected_bound=0)
    """

    protection: Protection
    errors: PauliErrors = field(repr=False)
    distillation: Distillation | None = field(repr=False)
    code: FECCode | None
    blocks: int
    transmissions: int
    rejected: int
    max_rounds: int

    @property
    def symbol_error(self) -> float:
        """Probability that an online symbol decodes wrong (before any code)."""
        return self.errors.error_rate

    @property
    def undetected_bound(self) -> float:
        """Bound on the probability that some output differs from the noiseless ring.

        With a code: ``rejected * 2**-hash_bits``. A block with at most t wrong bytes is always
        corrected; one with more is accepted only if the decoder miscorrects it *and* the
        checksum, keyed by bits drawn afresh for each run, collides — probability at most
        ``2**-hash_bits`` per such transmission over the key (the miscorrection depends on the
        noise only). So P(some output wrong) <= 2**-hash_bits x E[rejected transmissions]; the
        realised count here estimates that expectation. Without a code: 1 if a symbol can err
        (nothing corrects it), else 0.
        """
        if self.code is None:
            return 1.0 if self.errors.error_rate > 0 else 0.0
        return min(1.0, self.rejected * 2.0 ** (-self.code.hash_bits))

    def __repr__(self) -> str:
        extra = ""
        if self.code is not None:
            extra = (
                f", blocks={self.blocks}, transmissions={self.transmissions}, "
                f"rejected={self.rejected}, undetected_bound={self.undetected_bound:.2g}"
            )
        return (
            f"ProtectionReport({self.protection.scheme!r}, "
            f"symbol_error={self.symbol_error:.4g}{extra})"
        )


# --------------------------------------------------------------------------------------------
# Accounting: classical bits of the ring per link, net online factor
# --------------------------------------------------------------------------------------------


def ring_link_bits(workers: int, d: int, bits: int) -> np.ndarray:
    """Classical bits the ring all-reduce sends over each directed link, shape (P,).

    Link ``(k, k+1)`` carries every chunk but ``k+1`` in reduce-scatter and every chunk but
    ``k+2`` in all-gather: ``bits * (2d - |c_{k+1}| - |c_{k+2}|)`` (chunk sizes of
    :func:`qring_edu.ring.chunk_bounds`).

    Examples
    --------
    >>> ring_link_bits(4, 8, 16).tolist()   # 2 (P-1) (d/P) b = 192 on each link
    [192, 192, 192, 192]
    """
    P = check_int(workers, "workers", 2)
    d = check_int(d, "d", 1)
    b = check_int(bits, "bits", 1)
    sizes = np.full(P, d // P, dtype=np.int64)
    sizes[: d % P] += 1
    k = np.arange(P)
    return b * (2 * d - sizes[(k + 1) % P] - sizes[(k + 2) % P])


def net_online_factors(result) -> np.ndarray:
    """Per link: classical ring bits / (online qubits + online classical bits), shape (P,).

    ``result``: an :class:`~qring_edu.ring.AllReduceResult`. The classical ring's bits on each
    link (:func:`ring_link_bits`) over the channel uses the run spent online on it (payload,
    parity, checksum and retransmitted qubits, plus acknowledgements).

    Examples
    --------
    Short messages pay a whole code block's checksum and parity, so the factor of a tiny
    protected ring is far below 1 (:func:`expected_net_factor` gives the long-message value):

    >>> import numpy as np
    >>> import qring_edu as qr
    >>> from qring_edu.links import net_online_factors
    >>> run = qr.ring_allreduce(np.arange(24).reshape(3, 8), bits=8, transport="superdense",
    ...                         channel_fidelity=0.99, protection="fec", seed=0)
    >>> net_online_factors(run).round(4).tolist()
    [0.0821, 0.0821, 0.0749]
    """
    P, d = result.outputs.shape
    classical = ring_link_bits(P, d, result.bits)
    led = result.ledger
    uses = led.per_link("online_qubits") + led.per_link("online_bits")
    return classical / np.maximum(uses, 1)


def net_online_factor(result, link=None) -> float:
    """Net online factor of a run: classical ring bits on ``link`` / online channel uses on it.

    ``link=None``: the critical path, ``max`` classical bits over ``max`` uses over the links
    (the busiest link sets the all-reduce's time). The classical ring has factor 1, the
    noiseless superdense ring 2 (up to one padding bit per odd message); a reliable scheme on a
    noisy link stays below :func:`superdense_link_capacity`.

    Examples
    --------
    >>> from qring_edu import ring_allreduce
    >>> g = np.arange(64, dtype=np.int64).reshape(4, 16)
    >>> net_online_factor(ring_allreduce(g, transport="superdense"))
    2.0
    """
    P, d = result.outputs.shape
    classical = ring_link_bits(P, d, result.bits)
    led = result.ledger
    uses = led.per_link("online_qubits") + led.per_link("online_bits")
    if link is None:
        return float(classical.max() / max(int(uses.max()), 1))
    led.online_bits(link)  # validates the link
    k = int(link[0])
    return float(classical[k] / max(int(uses[k]), 1))


@dataclass(frozen=True)
class NetFactor:
    """Expected cost of a protection scheme on a long message (:func:`expected_net_factor`).

    ``online``: payload bits per online channel use (qubits + classical side bits);
    ``lifetime``: payload bits per channel use over the pairs' lifetime (online + the offline
    qubits that distributed the raw pairs); ``bound``: ``C_E`` of the decoded symbol channel of
    the pairs actually used (:func:`symbol_capacity`); ``reliable``: the scheme corrects errors
    (``online <= bound`` then); ``symbol_error``: the decoded symbol error rate (what corrupts
    data when not reliable); ``offline_bits``: distillation's classical bits per payload bit;
    ``code``, ``distillation``: the parts used.

    Attributes
    ----------
    scheme : str
        ``"none"``, ``"distill"``, ``"fec"`` or ``"distill+fec"``.
    online, lifetime, bound, symbol_error, offline_bits : float
        As above (bits per channel use, a probability, bits per payload bit).
    reliable : bool
        The scheme corrects errors.
    code : FECCode or None
    distillation : Distillation or None

    Examples
    --------
    >>> from qring_edu import expected_net_factor
    >>> fec = expected_net_factor("fec", channel_fidelity=0.99)
    >>> fec
    NetFactor('fec', online=1.4612, lifetime=0.7309, bound=1.8278, reliable=True, symbol_error=0.0199)
    >>> fec.code
    FECCode(RS(255, 199) over GF(2^8), t=28, hash_bits=64, data_bytes=191)
    """

    scheme: str
    online: float
    lifetime: float
    bound: float
    reliable: bool
    symbol_error: float
    offline_bits: float = field(repr=False)
    code: FECCode | None = field(repr=False)
    distillation: Distillation | None = field(repr=False)

    def __repr__(self) -> str:
        return (
            f"NetFactor({self.scheme!r}, online={self.online:.4f}, lifetime={self.lifetime:.4f}, "
            f"bound={self.bound:.4f}, reliable={self.reliable}, "
            f"symbol_error={self.symbol_error:.3g})"
        )


def expected_net_factor(
    scheme: str | Protection = "fec",
    *,
    pair_fidelity: float | None = None,
    channel_fidelity: float = 1.0,
    storage_time: float = 0.0,
    coherence_time: float = math.inf,
    rounds: int = 1,
    protocol: str = "dejmps",
    block_length: int = MAX_BLOCK_LENGTH,
    correctable: int | None = None,
    hash_bits: int = DEFAULT_HASH_BITS,
) -> NetFactor:
    """Closed-form online and lifetime factors of a protection scheme (cheap: sweep it over F).

    * ``"none"``: online 2, lifetime 1, not reliable (symbol error ``1 - F_eff``);
    * ``"distill"``: online 2, lifetime ``2 / (1 + raw_pairs_per_pair)``, not reliable (the
      channel's noise on the online qubit stays);
    * ``"fec"``: online :meth:`FECCode.net_factor` (the code chosen as in :func:`fec_code`),
      reliable;
    * ``"distill+fec"``: the same on distilled pairs.

    Arguments as in :func:`link_errors`, :func:`distill` and :func:`fec_code`.

    Examples
    --------
    >>> expected_net_factor("fec", channel_fidelity=0.99)
    NetFactor('fec', online=1.4612, lifetime=0.7309, bound=1.8278, reliable=True, symbol_error=0.0199)
    """
    prot = protection(
        scheme,
        rounds=rounds,
        protocol=protocol,
        block_length=block_length,
        correctable=correctable,
        hash_bits=hash_bits,
    )
    Fc = _check_channel_fidelity(channel_fidelity)
    Fp = Fc if pair_fidelity is None else check_fidelity(pair_fidelity, "pair_fidelity")
    dist = None
    if prot.distills:
        if Fp <= 0.5:
            raise ValueError(f"pair_fidelity must exceed 1/2 for distillation, got {Fp:g}")
        dist = distill(Fp, rounds=prot.rounds, protocol=prot.protocol)
        errors = link_errors(
            None, Fc, storage_time=storage_time, coherence_time=coherence_time, pair=dist.errors
        )
        raw_per_qubit, bits_per_qubit = dist.raw_pairs_per_pair, dist.offline_bits_per_pair
    else:
        errors = link_errors(Fp, Fc, storage_time=storage_time, coherence_time=coherence_time)
        raw_per_qubit, bits_per_qubit = 1.0, 0.0
    bound = errors.capacity()
    s = errors.error_rate
    if prot.codes:
        code = fec_code(
            s,
            block_length=prot.block_length,
            correctable=prot.correctable,
            hash_bits=prot.hash_bits,
        )
        online = code.net_factor(s)
        q = code.failure_probability(s)
        payload = SYMBOL_BITS * code.data_bytes * (1.0 - q)  # per block transmission
        qubits = QUBITS_PER_SYMBOL * code.n
        lifetime = payload / (qubits * (1.0 + raw_per_qubit) + ACK_BITS)
        offline_bits = bits_per_qubit * qubits / payload
        return NetFactor(prot.scheme, online, lifetime, bound, True, s, offline_bits, code, dist)
    return NetFactor(
        prot.scheme,
        2.0,
        2.0 / (1.0 + raw_per_qubit),
        bound,
        False,
        s,
        bits_per_qubit / 2.0,
        None,
        dist,
    )


# --------------------------------------------------------------------------------------------
# Qiskit path of the link model
# --------------------------------------------------------------------------------------------


def _aer_pauli_error(errors: PauliErrors):
    return _aer_pauli_error_cached(errors.probabilities)


@functools.lru_cache(maxsize=64)
def _aer_pauli_error_cached(probabilities: tuple):
    """One Aer ``QuantumError`` per distribution: circuits of a batch then share the object,
    which keeps Aer's batch run linear in the number of circuits."""
    from qiskit_aer.noise import pauli_error

    return pauli_error(
        [(PAULI_NAMES[c], probabilities[c]) for c in range(4) if probabilities[c] > 0]
    )


def _memory_half(storage_time, coherence_time) -> float:
    t, T2 = _check_times(storage_time, coherence_time)
    return 0.0 if (t == 0.0 or T2 == math.inf) else 0.5 * (1.0 - math.exp(-t / T2))


def noisy_link_circuit(
    x: int,
    z: int,
    *,
    pair_fidelity: float | None = None,
    channel_fidelity: float = 1.0,
    storage_time: float = 0.0,
    coherence_time: float = math.inf,
    measure: bool = True,
):
    """Superdense coding of ``(x, z)`` over a noisy link, as a Qiskit circuit with Aer noise.

    Qubit 0 is Alice's A, qubit 1 Bob's B. |Φ+⟩ is prepared; the pair's noise acts as a Pauli
    error on the half that crossed the link (B: the Werner channel of ``pair_fidelity``, default
    ``channel_fidelity``); each half dephases in memory (Z on A and on B, each with probability
    ``(1 - exp(-t/T2))/2``); Alice encodes X**x then Z**z; the encoded qubit A crosses the
    depolarising channel; Bob decodes with CNOT(A→B), H(A) and measures A into clbit 0 (``z``) and
    B into clbit 1 (``x``), so a count key reads ``f"{x}{z}"`` (as in
    :func:`qring_edu.superdense_circuit`). Every noise is a separate instruction, on the qubit it
    physically hits — the fast path's composition into one Pauli on A is what the tests check.

    Examples
    --------
    >>> qc = noisy_link_circuit(1, 0, channel_fidelity=0.9)
    >>> qc.num_qubits, qc.num_clbits
    (2, 2)
    """
    from qiskit import QuantumCircuit

    x = check_int(x, "x", 0, 1)
    z = check_int(z, "z", 0, 1)
    Fc = _check_channel_fidelity(channel_fidelity)
    Fp = Fc if pair_fidelity is None else check_fidelity(pair_fidelity, "pair_fidelity")
    p_half = _memory_half(storage_time, coherence_time)
    qc = QuantumCircuit(2, 2 if measure else 0, name=f"noisy_link({x},{z})")
    qc.h(0)
    qc.cx(0, 1)
    if Fp < 1.0:
        qc.append(_aer_pauli_error(depolarizing(Fp)), [1])  # B's half crossed the link
    if p_half > 0.0:
        mem = PauliErrors((1.0 - p_half, 0.0, p_half, 0.0))
        qc.append(_aer_pauli_error(mem), [0])
        qc.append(_aer_pauli_error(mem), [1])
    qc.barrier(label="pair stored")
    if x:
        qc.x(0)
    if z:
        qc.z(0)
    if Fc < 1.0:
        qc.append(_aer_pauli_error(depolarizing(Fc)), [0])  # the online qubit crosses
    qc.barrier(label="A sent")
    qc.cx(0, 1)
    qc.h(0)
    if measure:
        qc.measure(0, 0)
        qc.measure(1, 1)
    return qc


def _kraus(errors: PauliErrors):
    from qiskit.quantum_info import Kraus

    paulis = _pauli_matrices()
    return Kraus(
        [
            np.sqrt(errors.probabilities[c]) * paulis[c]
            for c in range(4)
            if errors.probabilities[c] > 0
        ]
    )


def noisy_link_probabilities(
    x: int,
    z: int,
    *,
    pair_fidelity: float | None = None,
    channel_fidelity: float = 1.0,
    storage_time: float = 0.0,
    coherence_time: float = math.inf,
) -> dict:
    """Exact distribution ``{(x', z'): probability}`` of Bob's decoded symbol on a noisy link
    (Qiskit ``DensityMatrix``: the noises of :func:`noisy_link_circuit` as Kraus channels on the
    qubits they hit, no sampling).

    Examples
    --------
    >>> pr = noisy_link_probabilities(0, 0, channel_fidelity=0.99)
    >>> round(pr[(0, 0)], 6)
    0.980133
    """
    from qiskit import QuantumCircuit
    from qiskit.quantum_info import DensityMatrix, Operator

    x = check_int(x, "x", 0, 1)
    z = check_int(z, "z", 0, 1)
    Fc = _check_channel_fidelity(channel_fidelity)
    Fp = Fc if pair_fidelity is None else check_fidelity(pair_fidelity, "pair_fidelity")
    p_half = _memory_half(storage_time, coherence_time)
    bell = QuantumCircuit(2)
    bell.h(0)
    bell.cx(0, 1)
    rho = DensityMatrix(bell)
    if Fp < 1.0:
        rho = rho.evolve(_kraus(depolarizing(Fp)), qargs=[1])
    if p_half > 0.0:
        mem = _kraus(PauliErrors((1.0 - p_half, 0.0, p_half, 0.0)))
        rho = rho.evolve(mem, qargs=[0]).evolve(mem, qargs=[1])
    enc = QuantumCircuit(2)
    if x:
        enc.x(0)
    if z:
        enc.z(0)
    rho = rho.evolve(Operator(enc))
    if Fc < 1.0:
        rho = rho.evolve(_kraus(depolarizing(Fc)), qargs=[0])
    dec = QuantumCircuit(2)
    dec.cx(0, 1)
    dec.h(0)
    probs = rho.evolve(Operator(dec)).probabilities_dict(decimals=15)  # key "q1 q0" = "x z"
    return {(int(k[0]), int(k[1])): float(probs.get(k, 0.0)) for k in ("00", "01", "10", "11")}


def run_symbol_circuits(data: np.ndarray, circuit_for, seed) -> np.ndarray:
    """Run one circuit per two-bit symbol of ``data`` for one shot on Aer; the decoded bits.

    The Qiskit reference paths share this: symbol j carries ``x = data[2j]``, ``z = data[2j+1]``
    (an odd stream is padded with a zero bit, dropped on return); ``circuit_for(x, z)`` builds
    its circuit, whose measured key ``"x z"`` gives the two received bits. All circuits are
    submitted in one batch with ``seed_simulator`` derived from ``seed``.

    Examples
    --------
    >>> bits = np.array([1, 0, 1], dtype=np.uint8)
    >>> run_symbol_circuits(bits, lambda x, z: noisy_link_circuit(x, z), seed=0).tolist()
    [1, 0, 1]
    """
    from qiskit_aer import AerSimulator

    if data.size == 0:
        return data.copy()
    padded = np.concatenate([data, np.zeros(data.size % 2, dtype=np.uint8)])
    circuits = [
        circuit_for(int(padded[2 * j]), int(padded[2 * j + 1])) for j in range(padded.size // 2)
    ]
    sim_seed = int(np.random.default_rng(seed).integers(2**31 - 1))
    result = AerSimulator().run(circuits, shots=1, seed_simulator=sim_seed).result()
    received = np.empty_like(padded)
    for j in range(len(circuits)):
        (key,) = result.get_counts(j).keys()
        received[2 * j], received[2 * j + 1] = int(key[0]), int(key[1])
    return received[: data.size]


def noisy_link_send_qiskit(
    bits,
    *,
    pair_fidelity: float | None = None,
    channel_fidelity: float = 1.0,
    storage_time: float = 0.0,
    coherence_time: float = math.inf,
    seed=None,
) -> np.ndarray:
    """Send a bit stream over a noisy link with one Aer circuit per symbol (reference path).

    Same bit order as :func:`qring_edu.superdense_send` (symbol j carries ``x = bits[2j]``,
    ``z = bits[2j+1]``; an odd stream is padded with a zero bit, dropped on return); every
    symbol is a :func:`noisy_link_circuit` run once on ``AerSimulator``.

    Examples
    --------
    >>> noisy_link_send_qiskit([1, 0, 1, 1], seed=1).tolist()
    [1, 0, 1, 1]
    """
    data = check_bit_array(bits, "bits")
    check_seed(seed)
    return run_symbol_circuits(
        data,
        lambda x, z: noisy_link_circuit(
            x,
            z,
            pair_fidelity=pair_fidelity,
            channel_fidelity=channel_fidelity,
            storage_time=storage_time,
            coherence_time=coherence_time,
        ),
        seed,
    )
