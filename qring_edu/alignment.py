"""GapIP_τ: margin-based alignment testing between a server and a client (DESIGN.md §4.7).

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
    agrees with probability ``1 - arccos(c)/pi``, i.e. ``1/2 ± arcsin(tau)/pi`` on promise
    instances; the client answers "aligned" iff at least half agree. Hoeffding gives
    ``k = ceil(ln(1/delta) / (2 (arcsin(tau)/pi)^2)) = O(log(1/delta) / tau^2)`` bits.
``"vector"``
    Send the quantised vector: ``b`` bits per entry on the grid ``j / L``, ``L = 2^(b-1) - 1``, with
    ``L > sqrt(P) / (2 tau)`` so the rounding moves ``<g, h>`` by less than ``tau`` (the client then
    decides exactly): ``P b`` bits, never wrong.
``"classical"``
    The cheaper of the two above for the given ``(P, tau, delta)`` (what the book calls the
    classical protocol).
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
    estimation (Grinko et al. 2021; Chernoff confidence intervals, all rounds at confidence
    ``delta``) narrows a confidence interval for ``a`` and stops as soon as it lies on one side of
    ``m`` or is narrower than ``tau``: ``O(tau^-1 log(1/delta))`` passes (up to a
    ``log log(1/tau)`` factor), ``O(tau^-1 log P)`` qubits.

Counting (a reconstruction: the paper summary gives neither the amplitude-estimation variant nor
how passes are counted). ``cost`` counts every qubit that crosses between the parties: a shot with
``k`` iterations costs ``n (2k + 1)`` qubits. ``rounds`` counts sequential one-way messages,
assuming the shots of one IAE step travel side by side: ``sum over steps (2 k_step + 1)``. The
classical protocols are one-way, one round.

Simulation paths (DESIGN.md §2): the fast path evolves the 2-D subspace exactly (``a_k`` above,
:func:`gapip_probability` with ``method="subspace"``); ``method="statevector"`` applies the
reflections to the full ``2^n`` state vector with NumPy; :func:`gapip_circuit` builds the Qiskit
circuit (``method="qiskit"`` evolves it with ``Statevector``). Tests check all three agree.
"""

from __future__ import annotations

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
    "n_register_qubits",
    "sketch_bits",
    "vector_bits",
    "classical_bits",
    "sign_sketch",
]

#: Names accepted by ``gapip(protocol=...)``.
GAPIP_PROTOCOLS = ("quantum", "classical", "sketch", "vector")
#: Shots per IAE step (the constant is ours; Grinko et al. leave it free).
IAE_SHOTS = 24
#: Largest k * P for which the sketch is simulated with explicit Gaussian vectors; above it the
#: pairs (<g, r>, <h, r>) are drawn from their exact bivariate normal law (same distribution).
_EXPLICIT_SKETCH_LIMIT = 2**18


@dataclass(frozen=True)
class IAEStep:
    """One step of iterative amplitude estimation: ``shots`` shots with ``k`` iterations, of which
    ``ones`` answered "not a_h"; ``a_lo, a_hi``: the confidence interval for ``a`` after it."""

    k: int
    shots: int
    ones: int
    a_lo: float
    a_hi: float

    def __repr__(self) -> str:
        return (f"IAEStep(k={self.k}, shots={self.shots}, ones={self.ones}, "
                f"a=[{self.a_lo:.4f}, {self.a_hi:.4f}])")


@dataclass(frozen=True)
class Decision:
    """Outcome of :func:`gapip`.

    ``verdict``: ``"aligned"`` or ``"conflicting"``; ``cost``: qubits (quantum) or bits
    (classical) sent in total, both directions; ``rounds``: sequential one-way messages;
    ``protocol``: the protocol actually run (``"classical"`` resolves to ``"sketch"`` or
    ``"vector"``); ``estimate``: the client's estimate of ``<g, h>``; ``steps``: the IAE schedule
    (quantum only).
    """

    verdict: str
    cost: int
    rounds: int
    protocol: str
    unit: str
    estimate: float
    steps: tuple[IAEStep, ...] = field(default=(), repr=False)

    def __repr__(self) -> str:
        return (f"Decision(verdict={self.verdict!r}, cost={self.cost} {self.unit}, "
                f"rounds={self.rounds}, protocol={self.protocol!r}, "
                f"estimate={self.estimate:.4f})")


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
        raise ValueError(f"{name} is the zero vector; its direction (and so the alignment) is "
                         "undefined")
    return arr / norm


def gapip_prepare(g, h) -> tuple[np.ndarray, np.ndarray]:
    """Validate and normalise ``g`` and ``h`` (1-D, same length, finite, non-zero)."""
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
    states are needed: ``|0> .. |P-1>`` for the entries and ``|P>`` for the offset)."""
    P = check_int(P, "P", 1)
    return int(P).bit_length()  # = ceil(log2(P + 1)) for P >= 1


def alignment_state(v) -> np.ndarray:
    """``|a_v> = (|P> + sum_i v_i |i>)/sqrt(2)`` for a unit vector ``v`` of length ``P``, as a real
    array of length ``2^n``, ``n = ceil(log2(P + 1))`` (little-endian basis order)."""
    v = _unit_vector(v, "v")
    P = v.size
    state = np.zeros(2 ** n_register_qubits(P))
    state[:P] = v
    state[P] = 1.0
    return state / math.sqrt(2.0)


def alignment_angle(g, h) -> float:
    """``theta = arccos((1 + <g, h>)/2)`` in ``[0, pi/2]`` for the normalised vectors."""
    gn, hn = gapip_prepare(g, h)
    c = float(np.clip(gn @ hn, -1.0, 1.0))
    return math.acos((1.0 + c) / 2.0)


# --------------------------------------------------------------------------------------------
# The quantum protocol: three simulation paths of one shot
# --------------------------------------------------------------------------------------------

def _reflect(state: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """``(2|a><a| - 1) state`` for a real unit vector ``a``."""
    return 2.0 * axis * (axis @ state) - state


def gapip_probability(g, h, k: int, *, method: str = "subspace") -> float:
    """Probability that a shot with ``k`` iterations ends in "not a_h": ``sin^2((2k+1) theta)``.

    ``method``: ``"subspace"`` (the closed form, O(P) for the inner product), ``"statevector"``
    (NumPy: prepare ``|a_g>``, apply ``R_h`` then ``R_g`` ``k`` times on all ``2^n`` amplitudes,
    project on ``|a_h>``) or ``"qiskit"`` (evolve :func:`gapip_circuit` with ``Statevector``;
    small P only).
    """
    k = check_int(k, "k", 0)
    check_choice(method, "method", ("subspace", "statevector", "qiskit"))
    gn, hn = gapip_prepare(g, h)
    if method == "subspace":
        theta = alignment_angle(gn, hn)
        return float(math.sin((2 * k + 1) * theta) ** 2)
    if method == "statevector":
        ag, ah = alignment_state(gn), alignment_state(hn)
        state = ag.copy()
        for _ in range(k):
            state = _reflect(_reflect(state, ah), ag)
        return float(1.0 - (ah @ state) ** 2)
    from qiskit.quantum_info import Statevector

    probs = Statevector(gapip_circuit(gn, hn, k, measure=False)).probabilities()
    return float(1.0 - probs[0])


def reflection_circuit(v, label: str = "R"):
    """Qiskit circuit of ``2|a_v><a_v| - 1`` (up to a global phase ``-1``):
    ``U^dagger``, reflection about ``|0...0>`` (X on all, multi-controlled Z, X on all), ``U``,
    where ``U = StatePreparation(|a_v>)``. Qubit 0 is the least significant bit."""
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import StatePreparation

    state = alignment_state(v)
    n = int(state.size).bit_length() - 1
    prep = StatePreparation(state, label=f"U_{label[-1] if label else 'a'}")
    qc = QuantumCircuit(n, name=label)
    qc.append(prep.inverse(), range(n))
    qc.x(range(n))
    if n == 1:
        qc.z(0)
    else:
        qc.h(n - 1)                       # multi-controlled Z = H · MCX · H on the target
        qc.mcx(list(range(n - 1)), n - 1)
        qc.h(n - 1)
    qc.x(range(n))
    qc.append(prep, range(n))
    return qc


def gapip_circuit(g, h, k: int, *, measure: bool = True):
    """The whole quantum protocol for one shot with ``k`` iterations, as a Qiskit circuit.

    Server prepares ``|a_g>`` (``U_g``); barriers mark each pass of the register; ``k`` times the
    client applies ``R_h`` and the server ``R_g``; finally the client applies ``U_h^dagger`` and
    measures all ``n`` qubits: outcome ``0...0`` means "a_h" (probability ``cos^2((2k+1) theta)``).
    Intended for small ``P`` (the state preparations are generic).
    """
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import StatePreparation

    k = check_int(k, "k", 0, 64)
    gn, hn = gapip_prepare(g, h)
    if gn.size > 256:
        raise ValueError(f"gapip_circuit builds generic state preparations; P must be <= 256, "
                         f"got {gn.size}")
    ag, ah = alignment_state(gn), alignment_state(hn)
    n = n_register_qubits(gn.size)
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


def gapip_sample_qiskit(g, h, k: int, shots: int = 1000, seed=None) -> int:
    """Run :func:`gapip_circuit` on ``AerSimulator`` for ``shots`` shots; return how many ended in
    "not a_h" (any outcome but ``0...0``). The circuit is first decomposed to ``u``/``cx`` gates
    (Aer does not take the generic state-preparation multiplexers directly)."""
    from qiskit import transpile
    from qiskit_aer import AerSimulator

    shots = check_int(shots, "shots", 1, 10**6)
    check_seed(seed)
    sim_seed = int(np.random.default_rng(seed).integers(2**31))
    qc = transpile(gapip_circuit(g, h, k), basis_gates=["u", "cx"], optimization_level=1,
                   seed_transpiler=0)
    counts = AerSimulator(seed_simulator=sim_seed).run(qc, shots=shots).result().get_counts()
    return shots - int(counts.get("0" * qc.num_clbits, 0))


# --------------------------------------------------------------------------------------------
# Iterative amplitude estimation (Grinko, Gacon, Zoufal, Woerner 2021), Chernoff intervals
# --------------------------------------------------------------------------------------------

def _find_next_k(k: int, upper: bool, t_lo: float, t_hi: float) -> tuple[int, bool]:
    """Largest ``k' >= 2k + 1`` (ratio >= 2 in ``4k+2``) whose scaled interval
    ``(4k'+2) [t_lo, t_hi]`` (theta in units of 2 pi) stays in one half circle."""
    old = 4 * k + 2
    max_scaling = int(1.0 / (2.0 * (t_hi - t_lo)))
    scaling = max_scaling - (max_scaling - 2) % 4
    while scaling >= 2 * old:
        lo = scaling * t_lo - int(scaling * t_lo)
        hi = scaling * t_hi - int(scaling * t_hi)
        if lo <= hi <= 0.5 and lo <= 0.5:
            return (scaling - 2) // 4, True
        if hi >= 0.5 and hi >= lo >= 0.5:
            return (scaling - 2) // 4, False
        scaling -= 4
    return k, upper


def _iae(theta: float, epsilon: float, alpha: float, threshold: float,
         rng: np.random.Generator, shots: int = IAE_SHOTS) -> tuple[float, float, list[IAEStep]]:
    """Run IAE on ``a = sin^2(theta)`` until the interval for ``a`` excludes ``threshold`` or is
    narrower than ``2 epsilon``. Returns ``(a_lo, a_hi, steps)``; the true ``a`` lies in every
    interval with probability ``>= 1 - alpha`` (Chernoff bound, union over ``T`` steps)."""
    # Number of distinct powers the schedule can visit, as in Grinko et al. (min ratio 2).
    T = int(math.log(2 * math.pi / 8 / epsilon) / math.log(2)) + 1
    t_lo, t_hi = 0.0, 0.25            # theta / (2 pi)
    a_lo, a_hi = 0.0, 1.0
    k, upper = 0, True
    steps: list[IAEStep] = []
    acc_k, acc_shots, acc_ones = -1, 0, 0
    for _ in range(10_000):  # the loop ends long before; a guard against a logic error
        if a_hi < threshold or a_lo > threshold or a_hi - a_lo < 2 * epsilon:
            break
        k, upper = _find_next_k(k, upper, t_lo, t_hi)
        p = math.sin((2 * k + 1) * theta) ** 2
        ones = int(rng.binomial(shots, p))
        if k == acc_k:  # same power as before: pool the shots
            acc_shots += shots
            acc_ones += ones
        else:
            acc_k, acc_shots, acc_ones = k, shots, ones
        mean = acc_ones / acc_shots
        half = math.sqrt(3.0 * math.log(2.0 * T / alpha) / acc_shots)
        p_lo, p_hi = max(0.0, mean - half), min(1.0, mean + half)
        if upper:
            th_min = math.acos(1 - 2 * p_lo) / (2 * math.pi)
            th_max = math.acos(1 - 2 * p_hi) / (2 * math.pi)
        else:
            th_min = 1 - math.acos(1 - 2 * p_hi) / (2 * math.pi)
            th_max = 1 - math.acos(1 - 2 * p_lo) / (2 * math.pi)
        scaling = 4 * k + 2
        new_hi = (int(scaling * t_hi) + th_max) / scaling
        new_lo = (int(scaling * t_lo) + th_min) / scaling
        t_lo, t_hi = max(t_lo, new_lo), min(t_hi, new_hi)
        a_lo = math.sin(2 * math.pi * t_lo) ** 2
        a_hi = math.sin(2 * math.pi * t_hi) ** 2
        steps.append(IAEStep(k, shots, ones, a_lo, a_hi))
    return a_lo, a_hi, steps


# --------------------------------------------------------------------------------------------
# Classical protocols
# --------------------------------------------------------------------------------------------

def sketch_bits(tau: float, delta: float = 0.05) -> int:
    """Sign-sketch length ``k = ceil(ln(1/delta) / (2 (arcsin(tau)/pi)^2))`` (Hoeffding)."""
    tau, delta = _check_tau(tau), _check_delta(delta)
    gap = math.asin(tau) / math.pi
    return int(math.ceil(math.log(1.0 / delta) / (2.0 * gap * gap)))


def _vector_word_bits(P: int, tau: float) -> int:
    """``b`` with ``L = 2^(b-1) - 1 > sqrt(P) / (2 tau)``."""
    need = math.sqrt(P) / (2.0 * tau)
    b = 2
    while 2 ** (b - 1) - 1 <= need:
        b += 1
    return b


def vector_bits(P: int, tau: float) -> int:
    """Bits of the send-the-vector protocol: ``P b`` (see the module docstring for ``b``)."""
    P = check_int(P, "P", 1)
    return P * _vector_word_bits(P, _check_tau(tau))


def classical_bits(P: int, tau: float, delta: float = 0.05) -> tuple[str, int]:
    """The cheaper classical protocol and its cost: ``("sketch" | "vector", bits)``."""
    s, v = sketch_bits(tau, delta), vector_bits(P, tau)
    return ("sketch", s) if s <= v else ("vector", v)


def sign_sketch(v, r: np.ndarray) -> np.ndarray:
    """The sketch bits ``sign<v, r_i>`` (as booleans ``<v, r_i> >= 0``) for rows ``r_i`` of ``r``
    (shape ``(k, P)``)."""
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

def gapip(g, h, tau: float, *, protocol: str = "quantum", delta: float = 0.05,
          seed=None) -> Decision:
    """Decide whether ``<g, h> >= tau`` ("aligned") or ``<= -tau`` ("conflicting").

    Parameters
    ----------
    g, h : array-like, shape (P,)
        Server's and client's vectors (normalised here; zero vectors are rejected).
    tau : float in (0, 1)
        The margin of the promise.
    protocol : "quantum" | "classical" | "sketch" | "vector"
        See the module docstring. ``"classical"`` runs the cheaper of ``"sketch"``/``"vector"``.
    delta : float in (0, 0.5)
        Allowed error probability on promise instances.
    seed : None, int or numpy Generator
        Shared randomness (sketch vectors) and measurement outcomes.

    Returns
    -------
    Decision with ``verdict``, ``cost`` (qubits or bits, all directions), ``rounds``.
    """
    gn, hn = gapip_prepare(g, h)
    tau, delta = _check_tau(tau), _check_delta(delta)
    check_choice(protocol, "protocol", GAPIP_PROTOCOLS)
    check_seed(seed)
    rng = np.random.default_rng(seed)
    P = gn.size
    if protocol == "classical":
        protocol = classical_bits(P, tau, delta)[0]
    if protocol == "vector":
        b = _vector_word_bits(P, tau)
        L = 2 ** (b - 1) - 1
        gq = np.round(gn * L) / L
        est = float(gq @ hn)
        return Decision("aligned" if est >= 0 else "conflicting", P * b, 1, "vector", "bits", est)
    if protocol == "sketch":
        k = sketch_bits(tau, delta)
        agree = _run_sketch(gn, hn, k, rng)
        est = math.cos(math.pi * (1.0 - agree))  # invert P(agree) = 1 - arccos(c)/pi
        return Decision("aligned" if agree >= 0.5 else "conflicting", k, 1, "sketch", "bits", est)
    # quantum
    theta = alignment_angle(gn, hn)
    threshold = 0.75 - tau * tau / 4.0
    a_lo, a_hi, steps = _iae(theta, tau / 2.0, delta, threshold, rng)
    a_mid = 0.5 * (a_lo + a_hi)
    n = n_register_qubits(P)
    cost = sum(s.shots * n * (2 * s.k + 1) for s in steps)
    rounds = sum(2 * s.k + 1 for s in steps)
    est = 2.0 * math.sqrt(max(0.0, 1.0 - a_mid)) - 1.0
    verdict = "aligned" if a_mid < threshold else "conflicting"
    return Decision(verdict, int(cost), int(rounds), "quantum", "qubits", est, tuple(steps))
