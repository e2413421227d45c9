"""GapIP_τ: margin-based alignment testing between a server and a client (book/06_alignment.ipynb).

The server holds ``g`` (e.g. the aggregated gradient), the client its own ``h``; both are real
vectors of length ``P`` and are normalised here (only their directions matter). Promise: the
cosine ``c = <g, h>`` is either ``>= tau`` ("aligned") or ``<= -tau`` ("conflicting"). The client
must output the right verdict with probability ``>= 1 - delta``. Outside the promise
(``|c| < tau``) any verdict is allowed.

Protocols (the ``protocol=`` names of :func:`gapip`)
----------------------------------------------------
``"sketch"``
    Shared-randomness sign sketches (Charikar 2002): for ``k`` Gaussian vectors ``r_i`` the server
    sends the ``k`` bits ``sign<g, r_i>``; the client compares them with ``sign<h, r_i>``. Each
    agrees with probability ``1 - arccos(c)/pi``, i.e. ``1/2 ± gap`` with ``gap = arcsin(tau)/pi``
    on promise instances; the client answers "aligned" iff at least half agree. Hoeffding gives
    ``k = ceil(ln(1/delta) / (2 gap^2)) = O(log(1/delta) / tau^2)`` bits; the exact binomial tail
    gives the smallest odd ``k`` with ``P[Bin(k, 1/2 + gap) <= (k - 1)/2] <= delta``
    (:func:`sketch_bits`, ``bound=``).
``"vector"``
    Send the quantised vector: ``b`` bits per entry on the grid ``j / L``, ``L = 2^(b-1) - 1``, with
    ``L > sqrt(P) / (2 tau)`` so the rounding moves ``<g, h>`` by less than ``tau`` (the client then
    decides exactly): ``P b`` bits, never wrong.
``"classical"``
    The cheaper of the two above for the given ``(P, tau, delta)`` (what the book calls the
    classical protocol). Lower bound: Gap-Hamming (Chakrabarti–Regev 2011: ``Omega(n)`` bits for
    any randomised protocol, any number of rounds, distinguishing Hamming distance
    ``>= n/2 + sqrt(n)`` from ``<= n/2 - sqrt(n)``) embeds in GapIP_τ on ``n = ⌊4/tau^2⌋``
    coordinates, so GapIP_τ needs ``Omega(1/tau^2)`` bits **when** ``P >= 4/tau^2``; for smaller
    ``P`` the embedding gives ``Omega(P)`` and sending the vector (``O(P log(P/tau))`` bits) is the
    cheaper protocol — hence the classical cost ``min(sketch, P b)``.
``"quantum"``
    Interactive, on ``n = ceil(log2(P + 1))`` qubits. Basis state ``|i>`` is the integer ``i`` in
    Qiskit's little-endian order (qubit 0 = least significant bit). The states
    ``|a_g> = (|P> + sum_i g_i |i>)/sqrt(2)`` and ``|a_h>`` have
    ``<a_g|a_h> = (1 + c)/2 = cos(theta)``. The server prepares ``|a_g>`` and sends the register
    to the client (one pass). One *iteration* is: the client reflects about ``|a_h>`` and sends the
    register back, the server reflects about ``|a_g>`` and returns it (two passes). On the plane
    ``span{|a_g>, |a_h>}`` the product ``R_g R_h`` of the two reflections is a rotation by
    ``-2 theta``, so after ``k`` iterations the client's projective measurement
    ``{|a_h><a_h|, 1 - |a_h><a_h|}`` answers "not a_h" with probability
    ``a_k = sin^2((2k + 1) theta)`` — the amplitude-estimation form with ``a = sin^2(theta)
    = 1 - ((1 + c)/2)^2``. Aligned instances have ``a <= m - tau/2``, conflicting ones
    ``a >= m + tau/2`` with ``m = 3/4 - tau^2/4``. Iterative amplitude estimation without phase
    estimation (Grinko et al. 2021) narrows a confidence interval for ``a`` and stops as soon as
    it lies on one side of ``m`` or is narrower than ``tau``: ``O(tau^-1 log(1/delta))`` passes
    (up to a ``log log(1/tau)`` factor), ``O(tau^-1 log P)`` qubits.
``"phase_estimation"``
    Kitaev-style iterative phase estimation with a control qubit that travels with the register:
    ``controlled-(R_h R_g) = controlled-R_h · controlled-R_g``, so each party applies its own
    controlled reflection to (control + register) and passes both on, ``n + 1`` qubits per pass.
    ``G = R_h R_g`` has the eigenphases ``±2 theta`` on the plane and ``|a_g>`` is an equal
    superposition of the two eigenvectors; the control starts in ``|+>``, a shot with power
    ``K >= 1`` applies ``controlled-G^K`` and the client measures the control in the X basis:
    "-" with probability ``(1 - cos(2 K theta))/2 = sin^2(K theta)``. (A Y-basis measurement
    averages ``± sin(2 K theta)`` over the two eigenvectors to ``1/2`` — the sign of the phase is
    not available, and not needed since ``theta in [0, pi/2]``.) The first ``controlled-R_g`` acts
    trivially on ``|+>|a_g>`` and is skipped, so a shot is ``2K - 1`` passes (the first one is the
    preparation pass, the last one ends at the client, who measures): ``(2K - 1)(n + 1)`` qubits.
    The powers ``K`` may be any integer (``"quantum"`` uses only odd ``2k + 1``) and the same
    interval iteration picks them, but a shot reaches the angle ``K theta`` with ``2K - 1`` passes
    where amplitude estimation reaches ``(2k + 1) theta`` with ``2k + 1``: phase estimation is
    possible here, and about twice as expensive.

Confidence intervals (``confidence=`` of :func:`gapip`): ``"chernoff"`` (default, kept for
compatibility: the half-width ``sqrt(3 ln(2T/delta)/N)`` of Qiskit's IAE ``"chernoff"`` option,
with the Hoeffding sketch), ``"hoeffding"`` (half-width ``sqrt(ln(2T/delta)/(2N))``, Grinko et
al.'s Chernoff–Hoeffding interval, with the Hoeffding sketch) and ``"exact"`` (Clopper–Pearson
intervals at level ``delta/T``, Grinko et al.'s "beta" variant, with the exact-binomial sketch).
``T`` bounds the number of distinct powers (union bound over them, as in Grinko et al.; shots at
a repeated power are pooled). Compare quantum and classical costs only within one family
(``"hoeffding"`` or ``"exact"``): ``"chernoff"`` is 6 times more conservative in shots than
the Hoeffding sketch it would be compared with.

Counting (a reconstruction: the paper summary gives neither the amplitude-estimation variant nor
how passes are counted). ``cost`` counts every qubit that crosses between the parties: a shot with
``k`` iterations costs ``n (2k + 1)`` qubits (``"phase_estimation"``: ``(n + 1)(2K - 1)``).
``rounds`` counts sequential one-way messages, assuming the shots of one step travel side by
side: ``sum over steps`` of the passes of one shot. The classical protocols are one-way, one
round.

Simulation paths (ARCHITECTURE.md): the fast path evolves the 2-D subspace exactly (``a_k`` above,
:func:`gapip_probability` with ``method="subspace"``); ``method="statevector"`` applies the
(controlled) reflections to the full state vector with NumPy; :func:`gapip_circuit` builds the
Qiskit circuit (``method="qiskit"`` evolves it with ``Statevector``). Tests check all three agree.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from ._validate import as_numeric_array, check_choice, check_float, check_int, check_seed

__all__ = [
    "Decision",
    "IAEStep",
    "GAPIP_PROTOCOLS",
    "gapip",
    "gapip_prepare",
    "alignment_state",
    "alignment_angle",
    "gapip_probability",
    "gapip_circuit",
    "gapip_sample_qiskit",
    "reflection_circuit",
    "controlled_reflection_circuit",
    "GAPIP_CONFIDENCES",
    "n_register_qubits",
    "sketch_bits",
    "vector_bits",
    "classical_bits",
    "sign_sketch",
]

#: Names accepted by ``gapip(protocol=...)``.
GAPIP_PROTOCOLS = ("quantum", "phase_estimation", "classical", "sketch", "vector")
#: Names accepted by ``gapip(confidence=...)`` (see the module docstring).
GAPIP_CONFIDENCES = ("chernoff", "hoeffding", "exact")
#: Shots per IAE step (the constant is ours; Grinko et al. leave it free).
IAE_SHOTS = 24
#: Largest k * P for which the sketch is simulated with explicit Gaussian vectors; above it the
#: pairs (<g, r>, <h, r>) are drawn from their exact bivariate normal law (same distribution).
_EXPLICIT_SKETCH_LIMIT = 2**18


@dataclass(frozen=True)
class IAEStep:
    """One step of the interval iteration: ``shots`` shots with ``k`` iterations (``"quantum"``;
    probability ``sin^2((2k+1) theta)``) or with power ``K = k`` (``"phase_estimation"``;
    probability ``sin^2(k theta)``), of which ``ones`` answered "not a_h" (control "-");
    ``a_lo, a_hi``: the confidence interval for ``a`` after it; ``qubits``: qubits sent in this
    step (all its shots).

    Examples
    --------
    >>> IAEStep(0, 24, 18, 0.55, 0.95, 72)
    IAEStep(k=0, shots=24, ones=18, a=[0.5500, 0.9500])
    """

    k: int
    shots: int
    ones: int
    a_lo: float
    a_hi: float
    qubits: int = 0

    def __repr__(self) -> str:
        return (
            f"IAEStep(k={self.k}, shots={self.shots}, ones={self.ones}, "
            f"a=[{self.a_lo:.4f}, {self.a_hi:.4f}])"
        )


@dataclass(frozen=True)
class Decision:
    """Outcome of :func:`gapip`.

    ``verdict``: ``"aligned"`` or ``"conflicting"``; ``cost``: qubits (``"quantum"``,
    ``"phase_estimation"``: register and control, every pass) or bits (classical) sent in total,
    both directions; ``rounds``: sequential one-way messages; ``protocol``: the protocol actually
    run (``"classical"`` resolves to ``"sketch"`` or ``"vector"``); ``unit``: ``"qubits"`` or
    ``"bits"``; ``estimate``: the client's estimate of ``<g, h>``; ``steps``: the schedule of the
    interval iteration (quantum protocols only; see :class:`IAEStep` for what ``k`` means).

    Examples
    --------
    >>> Decision("aligned", 120, 1, "sketch", "bits", 0.31)
    Decision(verdict='aligned', cost=120 bits, rounds=1, protocol='sketch', estimate=0.3100)
    """

    verdict: str
    cost: int
    rounds: int
    protocol: str
    unit: str
    estimate: float
    steps: tuple[IAEStep, ...] = field(default=(), repr=False)

    def __repr__(self) -> str:
        return (
            f"Decision(verdict={self.verdict!r}, cost={self.cost} {self.unit}, "
            f"rounds={self.rounds}, protocol={self.protocol!r}, "
            f"estimate={self.estimate:.4f})"
        )


# --------------------------------------------------------------------------------------------
# Input checks and the encoding
# --------------------------------------------------------------------------------------------


def _unit_vector(v, name: str) -> np.ndarray:
    arr = as_numeric_array(v, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector, got shape {arr.shape}")
    if arr.size < 1:
        raise ValueError(f"{name} must have at least 1 entry")
    arr = arr.astype(np.float64)
    norm = float(np.linalg.norm(arr))
    if norm == 0.0:
        raise ValueError(
            f"{name} is the zero vector; its direction (and so the alignment) is undefined"
        )
    return arr / norm


def gapip_prepare(g, h) -> tuple[np.ndarray, np.ndarray]:
    """Validate and normalise ``g`` and ``h`` (1-D, same length, finite, non-zero).

    Returns the two unit vectors (float64, shape ``(P,)``); bad input is a ``ValueError`` or
    ``TypeError`` naming ``g`` or ``h``.

    Examples
    --------
    >>> from qring_edu.alignment import gapip_prepare
    >>> [v.tolist() for v in gapip_prepare([3, 4], [2, 0])]
    [[0.6, 0.8], [1.0, 0.0]]
    >>> gapip_prepare([1, 0], [1, 0, 0])
    Traceback (most recent call last):
    ...
    ValueError: g and h must have the same length, got 2 and 3
    """
    gn = _unit_vector(g, "g")
    hn = _unit_vector(h, "h")
    if gn.size != hn.size:
        raise ValueError(f"g and h must have the same length, got {gn.size} and {hn.size}")
    return gn, hn


def _check_tau(tau) -> float:
    return check_float(tau, "tau", 0.0, 1.0, lo_open=True, hi_open=True)


def _check_delta(delta) -> float:
    return check_float(delta, "delta", 0.0, 0.5, lo_open=True, hi_open=True)


def n_register_qubits(P: int) -> int:
    """Qubits of the quantum protocol's register: ``n = ceil(log2(P + 1))`` (``P + 1`` basis
    states are needed: ``|0>, ..., |P-1>`` for the entries and ``|P>`` for the offset).

    Examples
    --------
    >>> from qring_edu.alignment import n_register_qubits
    >>> n_register_qubits(3), n_register_qubits(4), n_register_qubits(1000)
    (2, 3, 10)
    """
    P = check_int(P, "P", 1)
    return int(P).bit_length()  # = ceil(log2(P + 1)) for P >= 1


def alignment_state(v) -> np.ndarray:
    """``|a_v> = (|P> + sum_i v_i |i>)/sqrt(2)`` for a unit vector ``v`` of length ``P``, as a real
    array of length ``2^n``, ``n = ceil(log2(P + 1))`` (little-endian basis order).

    Amplitude ``i`` is that of the basis state ``|i>`` (qubit 0 least significant); amplitudes
    above ``P`` are 0. ``v`` is normalised first.

    Examples
    --------
    >>> from qring_edu import alignment_state
    >>> alignment_state([3, 4]).round(4).tolist()      # (0.6|0> + 0.8|1> + |2>)/sqrt(2)
    [0.4243, 0.5657, 0.7071, 0.0]
    """
    v = _unit_vector(v, "v")
    P = v.size
    state = np.zeros(2 ** n_register_qubits(P))
    state[:P] = v
    state[P] = 1.0
    return state / math.sqrt(2.0)


def alignment_angle(g, h) -> float:
    """``theta = arccos((1 + <g, h>)/2)`` in ``[0, pi/2]`` for the normalised vectors.

    ``cos theta = <a_g|a_h>`` (:func:`alignment_state`): aligned vectors (``<g, h> >= tau``)
    give ``theta <= arccos((1 + tau)/2)``, conflicting ones ``theta >= arccos((1 - tau)/2)``.
    Radians.

    Examples
    --------
    >>> from qring_edu.alignment import alignment_angle
    >>> [round(alignment_angle([1, 0], h), 6) for h in ([1, 0], [0, 1], [-1, 0])]
    [0.0, 1.047198, 1.570796]
    """
    gn, hn = gapip_prepare(g, h)
    c = float(np.clip(gn @ hn, -1.0, 1.0))
    return math.acos((1.0 + c) / 2.0)


# --------------------------------------------------------------------------------------------
# The quantum protocol: three simulation paths of one shot
# --------------------------------------------------------------------------------------------


def _reflect(state: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """``(2|a><a| - 1) state`` for a real unit vector ``a``."""
    return 2.0 * axis * (axis @ state) - state


def _check_quantum_protocol(protocol: str) -> str:
    return check_choice(protocol, "protocol", ("quantum", "phase_estimation"))


def _check_power(k, protocol: str, hi: int | None = None) -> int:
    if protocol == "phase_estimation":
        return check_int(k, "k (the power K of controlled-G)", 1, hi)
    return check_int(k, "k", 0, hi)


def gapip_probability(
    g, h, k: int, *, method: str = "subspace", protocol: str = "quantum"
) -> float:
    """Probability that a shot ends in "not a_h".

    ``protocol="quantum"``: ``k >= 0`` iterations, ``sin^2((2k+1) theta)``;
    ``protocol="phase_estimation"``: power ``k = K >= 1`` of ``controlled-(R_h R_g)``, the
    control's "-" outcome, ``sin^2(K theta)``.

    ``method``: ``"subspace"`` (the closed form, O(P) for the inner product), ``"statevector"``
    (NumPy on all ``2^n`` amplitudes, times 2 for the control: prepare ``|a_g>`` (and ``|+>``),
    apply the reflections, measure) or ``"qiskit"`` (evolve :func:`gapip_circuit` with
    ``Statevector``; small P only).

    Examples
    --------
    >>> g, h = [1.0, 0.0], [0.6, 0.8]           # <g, h> = 0.6, cos(theta) = 0.8
    >>> round(gapip_probability(g, h, 1), 6)     # sin^2(3 theta)
    0.876096
    >>> round(gapip_probability(g, h, 2, protocol="phase_estimation", method="statevector"), 6)
    0.9216
    """
    check_choice(method, "method", ("subspace", "statevector", "qiskit"))
    protocol = _check_quantum_protocol(protocol)
    k = _check_power(k, protocol)
    gn, hn = gapip_prepare(g, h)
    pe = protocol == "phase_estimation"
    if method == "subspace":
        theta = alignment_angle(gn, hn)
        return float(math.sin((k if pe else 2 * k + 1) * theta) ** 2)
    if method == "statevector":
        ag, ah = alignment_state(gn), alignment_state(hn)
        if pe:
            # control |0> branch keeps |a_g>; |1> branch gets (R_h R_g)^K |a_g> (the first R_g
            # included here: it acts trivially, which is why the protocol skips it).
            branch = ag.copy()
            for _ in range(k):
                branch = _reflect(_reflect(branch, ag), ah)
            return float(np.sum((ag - branch) ** 2) / 4.0)  # X-basis "-" of the control
        state = ag.copy()
        for _ in range(k):
            state = _reflect(_reflect(state, ah), ag)
        return float(1.0 - (ah @ state) ** 2)
    from qiskit.quantum_info import Statevector

    probs = Statevector(gapip_circuit(gn, hn, k, measure=False, protocol=protocol)).probabilities()
    if pe:
        return float(probs.reshape(2, -1)[1].sum())  # control = qubit n, the top bit
    return float(1.0 - probs[0])


def reflection_circuit(v, label: str = "R"):
    """Qiskit circuit of exactly ``R_v = 2|a_v><a_v| - 1``: ``U^dagger``, reflection about
    ``|0...0>`` (X on all, multi-controlled Z, X on all: ``1 - 2|0><0|``), ``U``, and a global
    phase ``pi`` (``-(1 - 2|0><0|) = 2|0><0| - 1``), where ``U = StatePreparation(|a_v>)``.
    Qubit 0 is the least significant bit. (The global phase matters once the reflection is
    controlled; see :func:`controlled_reflection_circuit`.)

    Examples
    --------
    >>> import numpy as np
    >>> from qiskit.quantum_info import Operator
    >>> a = alignment_state([0.6, 0.8])
    >>> np.allclose(Operator(reflection_circuit([0.6, 0.8])).data, 2 * np.outer(a, a) - np.eye(4))
    True
    """
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import StatePreparation

    state = alignment_state(v)
    n = int(state.size).bit_length() - 1
    prep = StatePreparation(state, label=f"U_{label[-1] if label else 'a'}")
    qc = QuantumCircuit(n, name=label, global_phase=math.pi)
    qc.append(prep.inverse(), range(n))
    qc.x(range(n))
    if n == 1:
        qc.z(0)
    else:
        qc.h(n - 1)  # multi-controlled Z = H · MCX · H on the target
        qc.mcx(list(range(n - 1)), n - 1)
        qc.h(n - 1)
    qc.x(range(n))
    qc.append(prep, range(n))
    return qc


def controlled_reflection_circuit(v, label: str = "cR"):
    """Qiskit circuit of exactly ``|0><0| ⊗ 1 + |1><1| ⊗ R_v`` on ``n + 1`` qubits: qubits
    ``0..n-1`` the register, qubit ``n`` the control.

    ``R_v = U (2|0><0| - 1) U^dagger`` and ``U U^dagger = 1``, so only the middle needs the
    control: ``controlled-(2|0><0| - 1) = Z_control · controlled-(1 - 2|0><0|)``, and
    ``controlled-(1 - 2|0><0|)`` flips the sign of ``|1>|0...0>`` (X on the register, a Z
    controlled by all ``n + 1`` qubits, X again). Without the ``Z`` on the control the circuit
    would be ``controlled-(-R_v)``: a global phase of ``R_v`` becomes a relative phase once
    controlled.

    Examples
    --------
    >>> import numpy as np
    >>> from qiskit.quantum_info import Operator
    >>> a = alignment_state([0.6, 0.8])
    >>> R = 2 * np.outer(a, a) - np.eye(4)
    >>> want = np.block([[np.eye(4), np.zeros((4, 4))], [np.zeros((4, 4)), R]])
    >>> np.allclose(Operator(controlled_reflection_circuit([0.6, 0.8])).data, want)
    True
    """
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import StatePreparation

    state = alignment_state(v)
    n = int(state.size).bit_length() - 1
    prep = StatePreparation(state, label=f"U_{label[-1] if label else 'a'}")
    qc = QuantumCircuit(n + 1, name=label)
    reg = list(range(n))
    qc.append(prep.inverse(), reg)
    qc.x(reg)
    qc.h(n)  # Z controlled by the register on the control qubit
    qc.mcx(reg, n)
    qc.h(n)
    qc.x(reg)
    qc.z(n)
    qc.append(prep, reg)
    return qc


def gapip_circuit(g, h, k: int, *, measure: bool = True, protocol: str = "quantum"):
    """The whole quantum protocol for one shot, as a Qiskit circuit (barriers mark each pass).

    ``"quantum"`` (``k`` iterations, ``n`` qubits): the server prepares ``|a_g>`` (``U_g``); ``k``
    times the client applies ``R_h`` and the server ``R_g``; finally the client applies
    ``U_h^dagger`` and measures all ``n`` qubits: outcome ``0...0`` means "a_h" (probability
    ``cos^2((2k+1) theta)``).

    ``"phase_estimation"`` (power ``k = K >= 1``, ``n + 1`` qubits, qubit ``n`` the control): the
    server prepares ``|a_g>`` and ``H`` on the control; the client applies controlled-``R_h``;
    ``K - 1`` times the server applies controlled-``R_g`` and the client controlled-``R_h``;
    the client applies ``H`` to the control and measures it (one clbit): 1 ("-") with
    probability ``sin^2(K theta)``. ``2K - 1`` passes of ``n + 1`` qubits.

    Intended for small ``P`` (the state preparations are generic).

    Examples
    --------
    >>> qc = gapip_circuit([1.0, 0.0], [0.6, 0.8], 2, protocol="phase_estimation")
    >>> qc.num_qubits, qc.num_clbits, sum(i.operation.name == "barrier" for i in qc.data)
    (3, 1, 3)
    """
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import StatePreparation

    protocol = _check_quantum_protocol(protocol)
    k = _check_power(k, protocol, 64)
    gn, hn = gapip_prepare(g, h)
    if gn.size > 256:
        raise ValueError(
            f"gapip_circuit builds generic state preparations; P must be <= 256, got {gn.size}"
        )
    ag, ah = alignment_state(gn), alignment_state(hn)
    n = n_register_qubits(gn.size)
    if protocol == "phase_estimation":
        qc = QuantumCircuit(n + 1, 1 if measure else 0)
        qc.append(StatePreparation(ag, label="U_g"), range(n))
        qc.h(n)
        qc.barrier(label="server → client")
        c_h = controlled_reflection_circuit(hn, "cR_h").to_gate(label="c-R_h")
        c_g = controlled_reflection_circuit(gn, "cR_g").to_gate(label="c-R_g")
        qc.append(c_h, range(n + 1))
        for _ in range(k - 1):
            qc.barrier(label="client → server")
            qc.append(c_g, range(n + 1))
            qc.barrier(label="server → client")
            qc.append(c_h, range(n + 1))
        qc.h(n)
        if measure:
            qc.measure(n, 0)
        return qc
    qc = QuantumCircuit(n, n if measure else 0)
    qc.append(StatePreparation(ag, label="U_g"), range(n))
    qc.barrier(label="server → client")
    r_h = reflection_circuit(hn, "R_h").to_gate(label="R_h")
    r_g = reflection_circuit(gn, "R_g").to_gate(label="R_g")
    for _ in range(k):
        qc.append(r_h, range(n))
        qc.barrier(label="client → server")
        qc.append(r_g, range(n))
        qc.barrier(label="server → client")
    qc.append(StatePreparation(ah, label="U_h").inverse(), range(n))
    if measure:
        qc.measure(range(n), range(n))
    return qc


def gapip_sample_qiskit(
    g, h, k: int, shots: int = 1000, seed=None, *, protocol: str = "quantum"
) -> int:
    """Run :func:`gapip_circuit` on ``AerSimulator`` for ``shots`` shots; return how many ended in
    "not a_h" (``"quantum"``: any outcome but ``0...0``; ``"phase_estimation"``: control "-").
    The circuit is first decomposed to ``u``/``cx`` gates (Aer does not take the generic
    state-preparation multiplexers directly).

    Examples
    --------
    >>> gapip_sample_qiskit([1.0, 0.0], [1.0, 0.0], 0, shots=50, seed=1)   # theta = 0
    0
    """
    from qiskit import transpile
    from qiskit_aer import AerSimulator

    shots = check_int(shots, "shots", 1, 10**6)
    check_seed(seed)
    sim_seed = int(np.random.default_rng(seed).integers(2**31))
    qc = transpile(
        gapip_circuit(g, h, k, protocol=protocol),
        basis_gates=["u", "cx"],
        optimization_level=1,
        seed_transpiler=0,
    )
    counts = AerSimulator(seed_simulator=sim_seed).run(qc, shots=shots).result().get_counts()
    return shots - int(counts.get("0" * qc.num_clbits, 0))


# --------------------------------------------------------------------------------------------
# Iterative amplitude estimation (Grinko, Gacon, Zoufal, Woerner 2021) and its phase-estimation
# twin: confidence intervals, next power, the loop
# --------------------------------------------------------------------------------------------


def _interval(ones: int, shots: int, level: float, confidence: str) -> tuple[float, float]:
    """Confidence interval for a Bernoulli probability from ``ones`` of ``shots``, each side at
    ``level / 2`` (two-sided ``level``)."""
    mean = ones / shots
    if confidence == "exact":  # Clopper-Pearson
        from scipy.stats import beta

        lo = 0.0 if ones == 0 else float(beta.ppf(level / 2.0, ones, shots - ones + 1))
        hi = 1.0 if ones == shots else float(beta.ppf(1.0 - level / 2.0, ones + 1, shots - ones))
        return lo, hi
    if confidence == "hoeffding":  # 2 exp(-2 N e^2) = level
        half = math.sqrt(math.log(2.0 / level) / (2.0 * shots))
    else:  # "chernoff": Qiskit's IAE half-width
        half = math.sqrt(3.0 * math.log(2.0 / level) / shots)
    return max(0.0, mean - half), min(1.0, mean + half)


def _find_next_k(
    k: int, upper: bool, t_lo: float, t_hi: float, *, odd: bool = True
) -> tuple[int, bool]:
    """Next power for an interval ``[t_lo, t_hi]`` of ``theta / (2 pi)``.

    The probability measured with power ``K`` is ``sin^2(K theta)``, a function of the phase
    ``2 K theta``: the scaled interval ``2K [t_lo, t_hi]`` must stay in one half circle (then
    the probability determines the angle). ``odd=True`` (amplitude estimation): ``K = 2k + 1``,
    ``k`` is returned; ``odd=False`` (phase estimation): any ``K``, ``K`` is returned. The new
    ``K`` is the largest one with ``K >= 2 K_old`` that fits; otherwise the old one."""
    old = 2 * (2 * k + 1 if odd else k)
    max_scaling = int(1.0 / (2.0 * (t_hi - t_lo)))
    step = 4 if odd else 2
    scaling = max_scaling - ((max_scaling - 2) % 4 if odd else max_scaling % 2)
    while scaling >= 2 * old:
        lo = scaling * t_lo - int(scaling * t_lo)
        hi = scaling * t_hi - int(scaling * t_hi)
        new = (scaling - 2) // 4 if odd else scaling // 2
        if lo <= hi <= 0.5 and lo <= 0.5:
            return new, True
        if hi >= 0.5 and hi >= lo >= 0.5:
            return new, False
        scaling -= step
    return k, upper


def _iae(
    theta: float,
    epsilon: float,
    alpha: float,
    threshold: float,
    rng: np.random.Generator,
    shots: int = IAE_SHOTS,
    *,
    confidence: str = "chernoff",
    odd: bool = True,
    shot_cost=None,
) -> tuple[float, float, list[IAEStep]]:
    """Run the interval iteration on ``a = sin^2(theta)`` until the interval for ``a`` excludes
    ``threshold`` or is narrower than ``2 epsilon``. Returns ``(a_lo, a_hi, steps)``; the true
    ``a`` lies in every interval with probability ``>= 1 - alpha`` (union bound over the ``T``
    powers; ``confidence``: ``"chernoff"`` | ``"hoeffding"`` | ``"exact"``).

    ``odd=True``: amplitude estimation, powers ``K = 2k + 1`` (step ``k``); ``odd=False``: phase
    estimation, any power ``K >= 1`` (step ``k = K``). ``shot_cost(k)``: qubits of one shot."""
    # Number of distinct powers the schedule can visit, as in Grinko et al. (min ratio 2).
    T = int(math.log(2 * math.pi / 8 / epsilon) / math.log(2)) + 1
    t_lo, t_hi = 0.0, 0.25  # theta / (2 pi)
    a_lo, a_hi = 0.0, 1.0
    k, upper = (0 if odd else 1), True
    steps: list[IAEStep] = []
    acc_k, acc_shots, acc_ones = -1, 0, 0
    for _ in range(10_000):  # the loop ends long before; a guard against a logic error
        if a_hi < threshold or a_lo > threshold or a_hi - a_lo < 2 * epsilon:
            break
        k, upper = _find_next_k(k, upper, t_lo, t_hi, odd=odd)
        K = 2 * k + 1 if odd else k
        p = math.sin(K * theta) ** 2
        ones = int(rng.binomial(shots, p))
        if k == acc_k:  # same power as before: pool the shots
            acc_shots += shots
            acc_ones += ones
        else:
            acc_k, acc_shots, acc_ones = k, shots, ones
        p_lo, p_hi = _interval(acc_ones, acc_shots, alpha / T, confidence)
        if upper:
            th_min = math.acos(1 - 2 * p_lo) / (2 * math.pi)
            th_max = math.acos(1 - 2 * p_hi) / (2 * math.pi)
        else:
            th_min = 1 - math.acos(1 - 2 * p_hi) / (2 * math.pi)
            th_max = 1 - math.acos(1 - 2 * p_lo) / (2 * math.pi)
        scaling = 2 * K
        new_hi = (int(scaling * t_hi) + th_max) / scaling
        new_lo = (int(scaling * t_lo) + th_min) / scaling
        t_lo, t_hi = max(t_lo, new_lo), min(t_hi, new_hi)
        a_lo = math.sin(2 * math.pi * t_lo) ** 2
        a_hi = math.sin(2 * math.pi * t_hi) ** 2
        cost = shots * shot_cost(k) if shot_cost is not None else 0
        steps.append(IAEStep(k, shots, ones, a_lo, a_hi, cost))
    return a_lo, a_hi, steps


# --------------------------------------------------------------------------------------------
# Classical protocols
# --------------------------------------------------------------------------------------------


def _sketch_gap(tau: float) -> float:
    return math.asin(tau) / math.pi


@functools.lru_cache(maxsize=512)
def _exact_sketch_bits(tau: float, delta: float) -> int:
    """Smallest odd ``k`` with ``P[Bin(k, 1/2 + gap) <= (k - 1)/2] <= delta`` (majority error,
    decreasing in odd ``k``)."""
    from scipy.stats import binom

    p = 0.5 + _sketch_gap(tau)

    def err(j: int) -> float:  # k = 2j + 1
        return float(binom.cdf(j, 2 * j + 1, p))

    hi = (_hoeffding_sketch_bits(tau, delta) + 1) // 2 + 1
    while err(hi) > delta:
        hi *= 2
    lo = 0
    if err(lo) <= delta:
        return 1
    while hi - lo > 1:  # err(lo) > delta >= err(hi)
        mid = (lo + hi) // 2
        if err(mid) > delta:
            lo = mid
        else:
            hi = mid
    return 2 * hi + 1


def _hoeffding_sketch_bits(tau: float, delta: float) -> int:
    gap = _sketch_gap(tau)
    return int(math.ceil(math.log(1.0 / delta) / (2.0 * gap * gap)))


def sketch_bits(tau: float, delta: float = 0.05, *, bound: str = "hoeffding") -> int:
    """Sign-sketch length: ``bound="hoeffding"``: ``k = ceil(ln(1/delta) / (2 gap^2))``,
    ``gap = arcsin(tau)/pi``; ``bound="exact"``: the smallest odd ``k`` whose majority vote errs
    with probability ``P[Bin(k, 1/2 + gap) <= (k - 1)/2] <= delta`` on promise instances (odd
    ``k`` has no ties; an even ``k`` with a fair tie-break errs exactly as often as ``k - 1``).

    Examples
    --------
    >>> sketch_bits(0.1, 0.05)
    1474
    >>> sketch_bits(0.1, 0.05, bound="exact")
    665
    """
    tau, delta = _check_tau(tau), _check_delta(delta)
    check_choice(bound, "bound", ("hoeffding", "exact"))
    if bound == "exact":
        return _exact_sketch_bits(tau, delta)
    return _hoeffding_sketch_bits(tau, delta)


def _vector_word_bits(P: int, tau: float) -> int:
    """``b`` with ``L = 2^(b-1) - 1 > sqrt(P) / (2 tau)``."""
    need = math.sqrt(P) / (2.0 * tau)
    b = 2
    while 2 ** (b - 1) - 1 <= need:
        b += 1
    return b


def vector_bits(P: int, tau: float) -> int:
    """Bits of the send-the-vector protocol: ``P b`` (see the module docstring for ``b``).

    ``b`` is the smallest word size with ``2**(b-1) - 1 > sqrt(P) / (2 tau)``.

    Examples
    --------
    >>> from qring_edu.alignment import vector_bits
    >>> vector_bits(8, 0.5), vector_bits(1000, 0.1)      # 3-bit and 9-bit words
    (24, 9000)
    """
    P = check_int(P, "P", 1)
    return P * _vector_word_bits(P, _check_tau(tau))


def classical_bits(
    P: int, tau: float, delta: float = 0.05, *, bound: str = "hoeffding"
) -> tuple[str, int]:
    """The cheaper classical protocol and its cost: ``("sketch" | "vector", bits)``, the sketch
    sized with ``bound`` (:func:`sketch_bits`).

    Examples
    --------
    >>> classical_bits(2**16, 0.02)
    ('sketch', 36954)
    >>> classical_bits(16, 0.02)
    ('vector', 128)
    """
    s, v = sketch_bits(tau, delta, bound=bound), vector_bits(P, tau)
    return ("sketch", s) if s <= v else ("vector", v)


def sign_sketch(v, r: np.ndarray) -> np.ndarray:
    """The sketch bits ``sign<v, r_i>`` (as booleans ``<v, r_i> >= 0``) for rows ``r_i`` of ``r``
    (shape ``(k, P)``).

    Two vectors' bits agree with probability ``1 - arccos(<g, h>)/pi`` for Gaussian rows
    (Charikar 2002). Returns bool of shape ``(k,)``.

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu.alignment import sign_sketch
    >>> r = np.random.default_rng(0).standard_normal((5, 3))
    >>> sign_sketch([1.0, 0.0, 0.0], r).astype(int).tolist()
    [1, 1, 1, 0, 0]
    """

    return np.asarray(r) @ np.asarray(v, dtype=np.float64) >= 0.0


def _run_sketch(gn, hn, k, rng) -> float:
    """Fraction of agreeing sketch bits (server's ``sign<g,r>`` vs client's ``sign<h,r>``)."""
    P = gn.size
    if k * P <= _EXPLICIT_SKETCH_LIMIT:
        r = rng.standard_normal((k, P))
        return float(np.mean(sign_sketch(gn, r) == sign_sketch(hn, r)))
    # (<g,r>, <h,r>) is bivariate normal with unit variances and correlation c: exact in law.
    c = float(np.clip(gn @ hn, -1.0, 1.0))
    u = rng.standard_normal(k)
    w = rng.standard_normal(k)
    x = u
    y = c * u + math.sqrt(max(0.0, 1.0 - c * c)) * w
    return float(np.mean((x >= 0) == (y >= 0)))


# --------------------------------------------------------------------------------------------
# The protocol
# --------------------------------------------------------------------------------------------


def _sketch_bound(confidence: str) -> str:
    return "exact" if confidence == "exact" else "hoeffding"


def gapip(
    g,
    h,
    tau: float,
    *,
    protocol: str = "quantum",
    delta: float = 0.05,
    confidence: str = "chernoff",
    seed=None,
) -> Decision:
    """Decide whether ``<g, h> >= tau`` ("aligned") or ``<= -tau`` ("conflicting").

    Parameters
    ----------
    g, h : array-like, shape (P,)
        Server's and client's vectors (normalised here; zero vectors are rejected).
    tau : float in (0, 1)
        The margin of the promise.
    protocol : "quantum" | "phase_estimation" | "classical" | "sketch" | "vector"
        See the module docstring. ``"classical"`` runs the cheaper of ``"sketch"``/``"vector"``.
    delta : float in (0, 0.5)
        Allowed error probability on promise instances.
    confidence : "chernoff" | "hoeffding" | "exact"
        Family of bounds (module docstring): the intervals of the quantum protocols and the
        sketch length (``"chernoff"`` and ``"hoeffding"``: Hoeffding sketch; ``"exact"``: exact
        binomial sketch). ``"chernoff"`` is the default for compatibility; compare protocols
        with ``"hoeffding"`` or ``"exact"``.
    seed : None, int or numpy Generator
        Shared randomness (sketch vectors) and measurement outcomes.

    Returns
    -------
    Decision with ``verdict``, ``cost`` (qubits or bits, all directions), ``rounds``.

    Examples
    --------
    >>> g = np.array([1.0, 0.0, 0.0, 0.0])
    >>> h = np.array([0.3, 0.95393920141694, 0.0, 0.0])     # <g, h> = 0.3
    >>> gapip(g, h, 0.3, seed=1).verdict
    'aligned'
    >>> d = gapip(g, h, 0.3, protocol="phase_estimation", confidence="exact", seed=1)
    >>> d.verdict, d.unit, d.cost == sum(s.qubits for s in d.steps)
    ('aligned', 'qubits', True)
    """
    gn, hn = gapip_prepare(g, h)
    tau, delta = _check_tau(tau), _check_delta(delta)
    check_choice(protocol, "protocol", GAPIP_PROTOCOLS)
    check_choice(confidence, "confidence", GAPIP_CONFIDENCES)
    check_seed(seed)
    rng = np.random.default_rng(seed)
    P = gn.size
    if protocol == "classical":
        protocol = classical_bits(P, tau, delta, bound=_sketch_bound(confidence))[0]
    if protocol == "vector":
        b = _vector_word_bits(P, tau)
        L = 2 ** (b - 1) - 1
        gq = np.round(gn * L) / L
        est = float(gq @ hn)
        return Decision("aligned" if est >= 0 else "conflicting", P * b, 1, "vector", "bits", est)
    if protocol == "sketch":
        k = sketch_bits(tau, delta, bound=_sketch_bound(confidence))
        agree = _run_sketch(gn, hn, k, rng)
        est = math.cos(math.pi * (1.0 - agree))  # invert P(agree) = 1 - arccos(c)/pi
        return Decision("aligned" if agree >= 0.5 else "conflicting", k, 1, "sketch", "bits", est)
    # quantum protocols
    theta = alignment_angle(gn, hn)
    threshold = 0.75 - tau * tau / 4.0
    n = n_register_qubits(P)
    if protocol == "phase_estimation":

        def passes(k: int) -> int:  # power K = k: 2K - 1 passes
            return 2 * k - 1

        width, odd = n + 1, False
    else:

        def passes(k: int) -> int:  # k iterations: 2k + 1 passes
            return 2 * k + 1

        width, odd = n, True
    a_lo, a_hi, steps = _iae(
        theta,
        tau / 2.0,
        delta,
        threshold,
        rng,
        confidence=confidence,
        odd=odd,
        shot_cost=lambda k: width * passes(k),
    )
    a_mid = 0.5 * (a_lo + a_hi)
    cost = sum(s.qubits for s in steps)
    rounds = sum(passes(s.k) for s in steps)
    est = 2.0 * math.sqrt(max(0.0, 1.0 - a_mid)) - 1.0
    verdict = "aligned" if a_mid < threshold else "conflicting"
    return Decision(verdict, int(cost), int(rounds), protocol, "qubits", est, tuple(steps))
