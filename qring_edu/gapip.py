"""GapIP_τ: margin-based alignment testing between a server and a client (book/07_gapip.ipynb).

The server holds ``g`` (e.g. the aggregated gradient), the client its own ``h``: real vectors of
length ``P``, normalised here. Promise: ``c = <g, h>`` is either ``>= tau`` ("aligned") or
``<= -tau`` ("conflicting"); the client must answer right with probability ``>= 1 - delta``.

Protocols (``protocol=`` of :func:`gapip`: a name, or a value that carries its bounds)
-------------------------------------------------------------------------------------
``"sketch"`` (:class:`Sketch`)
    The server sends ``sign<g, r_i>`` for ``k`` shared Gaussian vectors (Charikar 2002); each
    bit agrees with ``sign<h, r_i>`` with probability ``1 - arccos(c)/pi = 1/2 ± gap``, ``gap >=
    arcsin(tau)/pi``; the majority decides: ``k = O(log(1/delta)/tau^2)`` (:func:`sketch_bits`).
``"vector"``
    ``g`` quantised to ``b`` bits per entry, ``2^(b-1) - 1 > sqrt(P)/(2 tau)``: ``P b`` bits,
    never wrong (:func:`vector_bits`).
``"classical"`` (:class:`Classical`)
    The cheaper of the two. Gap-Hamming (Chakrabarti–Regev 2011: ``Omega(n)`` bits, any rounds)
    embeds on ``n = ⌊4/tau^2⌋`` coordinates: ``Omega(1/tau^2)`` bits are needed when ``P >=
    4/tau^2``, ``Omega(P)`` otherwise.
``"quantum"`` (:class:`AmplitudeEstimation`)
    On ``n = ceil(log2(P + 1))`` qubits (qubit 0 least significant), ``|a_v> = (|P> + sum_i v_i
    |i>)/sqrt(2)`` gives ``<a_g|a_h> = (1 + c)/2 = cos(theta)``. The server sends ``|a_g>``; an
    *iteration* is the client's reflection about ``|a_h>`` and the server's about ``|a_g>``;
    after ``k`` of them the client's ``{|a_h><a_h|, 1 - |a_h><a_h|}`` says "not a_h" with
    probability ``sin^2((2k+1) theta)``. Iterative amplitude estimation (Grinko et al. 2021) of
    ``a = sin^2 theta`` (``<= m - tau/2`` aligned, ``>= m + tau/2`` conflicting, ``m = 3/4 -
    tau^2/4``) stops once its interval excludes ``m`` or is narrower than ``tau``:
    ``O(tau^-1 log(1/delta))`` passes, up to a ``log log`` factor.
``"phase_estimation"`` (:class:`PhaseEstimation`)
    A control qubit in ``|+>`` travels with the register, each party applies its controlled
    reflection: at power ``K`` the control reads "-" with probability ``sin^2(K theta)``, in
    ``2K - 1`` passes of ``n + 1`` qubits: about twice the cost above.

Bounds (one family on both sides in a fair comparison): the quantum intervals at level
``delta/T`` (``T`` powers; shots at a repeated power pooled) are ``"hoeffding"`` (half-width
``sqrt(ln(2T/delta)/(2N))``), ``"exact"`` (Clopper–Pearson) or ``"chernoff"`` (Qiskit's
``sqrt(3 ln(2T/delta)/N)``: 6 times the shots); the sketch is sized by Hoeffding or the exact
binomial tail. ``cost`` counts every qubit that crosses, ``n (2k + 1)`` per shot (phase
estimation ``(n + 1)(2K - 1)``), ``rounds`` the sequential one-way messages (our
reconstruction). The simulation evolves the 2-D subspace
(:func:`qring_edu.experiments.gapip.gapip_probability` checks it against the circuits).
"""

from __future__ import annotations

import functools
import math
from dataclasses import field

import numpy as np

from ._result import result
from ._validate import (
    as_numeric_array,
    check_choice,
    check_delta,
    check_float,
    check_int,
    check_name,
    generator,
)

__all__ = [
    "Decision",
    "IAEStep",
    "AmplitudeEstimation",
    "PhaseEstimation",
    "Sketch",
    "Classical",
    "GAPIP_PROTOCOLS",
    "GAPIP_CONFIDENCES",
    "IAE_SHOTS",
    "MIN_TAU",
    "gapip",
    "gapip_prepare",
    "alignment_state",
    "alignment_angle",
    "gapip_circuit",
    "reflection_circuit",
    "controlled_reflection_circuit",
    "n_register_qubits",
    "sketch_bits",
    "vector_bits",
    "classical_bits",
]

#: Names accepted by ``gapip(protocol=...)``; each means its value with the default bounds.
GAPIP_PROTOCOLS = ("quantum", "phase_estimation", "classical", "sketch", "vector")
#: Families of confidence intervals of the quantum protocols (module docstring).
GAPIP_CONFIDENCES = ("hoeffding", "exact", "chernoff")
#: Shots per IAE step (the constant is ours; Grinko et al. leave it free).
IAE_SHOTS = 24
#: Smallest margin: below it no simulation resolves the angle (16 digits).
MIN_TAU = 1e-12
#: Largest k P for which the sketch uses explicit Gaussian rows; above, one binomial draw.
_EXPLICIT_SKETCH_LIMIT = 2**18


@result
class _Quantum:
    confidence: str = "hoeffding"

    def __post_init__(self):
        check_choice(self.confidence, "confidence", GAPIP_CONFIDENCES)


@result
class AmplitudeEstimation(_Quantum):
    """``protocol="quantum"`` with its confidence intervals (``GAPIP_CONFIDENCES``).

    Examples
    --------
    >>> AmplitudeEstimation("exact")
    AmplitudeEstimation(confidence='exact')
    """


@result
class PhaseEstimation(_Quantum):
    """``protocol="phase_estimation"`` with its confidence intervals (``GAPIP_CONFIDENCES``).

    Examples
    --------
    >>> PhaseEstimation()
    PhaseEstimation(confidence='hoeffding')
    """


@result
class _Classical:
    bound: str = "hoeffding"

    def __post_init__(self):
        check_choice(self.bound, "bound", ("hoeffding", "exact"))


@result
class Sketch(_Classical):
    """``protocol="sketch"`` sized with ``bound``: ``"hoeffding"`` or ``"exact"``.

    Examples
    --------
    >>> Sketch("exact")
    Sketch(bound='exact')
    """


@result
class Classical(_Classical):
    """``protocol="classical"``: the cheaper of the vector and the sketch sized with ``bound``.

    Examples
    --------
    >>> Classical()
    Classical(bound='hoeffding')
    """


def _protocol_value(protocol):
    named = {"quantum": AmplitudeEstimation(), "phase_estimation": PhaseEstimation()}
    named.update(sketch=Sketch(), classical=Classical(), vector="vector")
    if isinstance(protocol, (_Quantum, _Classical)):
        return protocol
    if isinstance(protocol, str) and protocol in named:
        return named[protocol]
    raise ValueError(
        f"protocol must be one of {', '.join(map(repr, GAPIP_PROTOCOLS))} or an "
        f"AmplitudeEstimation, PhaseEstimation, Sketch or Classical value, got {protocol!r}"
    )


@result
class IAEStep:
    """One step of the interval iteration: ``shots`` shots at power ``k`` (``k`` iterations, or
    ``K = k`` for phase estimation), ``ones`` of them "not a_h"; ``[a_lo, a_hi]``: the interval
    for ``a`` after it; ``qubits``: what its shots sent.

    Examples
    --------
    >>> IAEStep(0, 24, 18, 0.55, 0.95, 72)
    IAEStep(k=0, shots=24, ones=18, a_lo=0.55, a_hi=0.95, qubits=72)
    """

    k: int
    shots: int
    ones: int
    a_lo: float
    a_hi: float
    qubits: int = 0

    def __post_init__(self):
        check_int(self.k, "k", 0)
        check_int(self.ones, "ones (<= shots)", 0, check_int(self.shots, "shots", 1))
        check_float(self.a_lo, "a_lo (<= a_hi)", 0.0, check_float(self.a_hi, "a_hi", 0.0, 1.0))
        check_int(self.qubits, "qubits", 0)


@result
class Decision:
    """Outcome of :func:`gapip`: ``verdict``, ``cost`` (every direction) in ``unit``, ``rounds``,
    ``protocol`` (the one run: ``"classical"`` resolves to ``"sketch"`` or ``"vector"``), the
    client's ``estimate`` of ``<g, h>`` and the quantum protocols' ``steps``.

    Examples
    --------
    >>> Decision("aligned", 120, 1, "sketch", "bits", 0.31)
    Decision(verdict='aligned', cost=120, rounds=1, protocol='sketch', unit='bits', estimate=0.31)
    """

    verdict: str
    cost: int
    rounds: int
    protocol: str
    unit: str
    estimate: float
    steps: tuple[IAEStep, ...] = field(default=(), repr=False)

    def __post_init__(self):
        check_choice(self.verdict, "verdict", ("aligned", "conflicting"))
        check_int(self.cost, "cost", 0)
        check_int(self.rounds, "rounds", 0)
        check_choice(self.protocol, "protocol", GAPIP_PROTOCOLS)
        check_choice(self.unit, "unit", ("bits", "qubits"))
        check_float(self.estimate, "estimate")
        if not isinstance(self.steps, tuple) or not all(isinstance(s, IAEStep) for s in self.steps):
            raise TypeError(f"steps must be a tuple of IAEStep, got {self.steps!r}")


# -- Input checks and the encoding -----------------------------------------------------------
def _unit_vector(v, name: str) -> np.ndarray:
    arr = as_numeric_array(v, name)
    if arr.ndim != 1 or arr.size < 1:
        raise ValueError(
            f"{name} must be a 1-D vector with at least 1 entry, got shape {arr.shape}"
        )
    arr = arr.astype(np.float64)
    norm = float(np.linalg.norm(arr))
    if norm == 0.0 or not math.isfinite(norm):
        raise ValueError(f"{name} must be a non-zero vector of finite norm (its direction matters)")
    return arr / norm


def gapip_prepare(g, h) -> tuple[np.ndarray, np.ndarray]:
    """``g`` and ``h`` validated (1-D, same length, finite, non-zero) and normalised (float64).

    Examples
    --------
    >>> [v.tolist() for v in gapip_prepare([3, 4], [2, 0])]
    [[0.6, 0.8], [1.0, 0.0]]
    """
    gn, hn = _unit_vector(g, "g"), _unit_vector(h, "h")
    if gn.size != hn.size:
        raise ValueError(f"g and h must have the same length, got {gn.size} and {hn.size}")
    return gn, hn


def _check_tau(tau) -> float:
    return check_float(tau, "tau", MIN_TAU, 1.0, hi_open=True)


def n_register_qubits(P: int) -> int:
    """Qubits of the register: ``n = ceil(log2(P + 1))`` (entries ``|0> .. |P-1>``, offset ``|P>``).

    Examples
    --------
    >>> n_register_qubits(3), n_register_qubits(4), n_register_qubits(1000)
    (2, 3, 10)
    """
    return check_int(P, "P", 1).bit_length()


def alignment_state(v) -> np.ndarray:
    """``|a_v> = (|P> + sum_i v_i |i>)/sqrt(2)`` for the normalised ``v`` of length ``P``: a real
    array of length ``2^n``, ``n = ceil(log2(P + 1))``, amplitude ``i`` that of ``|i>``.

    Examples
    --------
    >>> alignment_state([3, 4]).round(4).tolist()      # (0.6|0> + 0.8|1> + |2>)/sqrt(2)
    [0.4243, 0.5657, 0.7071, 0.0]
    """
    v = _unit_vector(v, "v")
    state = np.zeros(2 ** n_register_qubits(v.size))
    state[: v.size], state[v.size] = v, 1.0
    return state / math.sqrt(2.0)


def alignment_angle(g, h) -> float:
    """``theta = arccos((1 + <g, h>)/2)`` in ``[0, pi/2]`` (radians): ``cos theta =
    <a_g|a_h>``, at most ``arccos((1 + tau)/2)`` when aligned, at least ``arccos((1 - tau)/2)``
    when conflicting.

    Examples
    --------
    >>> [round(alignment_angle([1, 0], h), 6) for h in ([1, 0], [0, 1], [-1, 0])]
    [0.0, 1.047198, 1.570796]
    """
    gn, hn = gapip_prepare(g, h)
    return math.acos((1.0 + float(np.clip(gn @ hn, -1.0, 1.0))) / 2.0)


# -- The quantum protocols as circuits (one shot) --------------------------------------------
def _reflection(v, label: str, controlled: bool):
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import StatePreparation

    check_name(label, "label")
    state = alignment_state(v)
    n = int(state.size).bit_length() - 1
    prep = StatePreparation(state, label=f"U_{label[-1] if label else 'a'}")
    reg = list(range(n))
    qc = QuantumCircuit(n + controlled, name=label, global_phase=0.0 if controlled else math.pi)
    qc.append(prep.inverse(), reg)
    qc.x(reg)
    if n == 1 and not controlled:
        qc.z(0)
    else:  # multi-controlled Z = H · MCX · H on the target (controlled: Z on |1>|0...0>)
        target = n if controlled else n - 1
        qc.h(target)
        qc.mcx(reg[:target], target)
        qc.h(target)
    qc.x(reg)
    if controlled:  # then Z on the control: controlled-(2|0><0| - 1)
        qc.z(n)
    qc.append(prep, reg)
    return qc


def reflection_circuit(v, label: str = "R"):
    """Qiskit circuit of exactly ``R_v = 2|a_v><a_v| - 1``: ``U^dagger``, ``1 - 2|0><0|`` (X on
    all, multi-controlled Z, X on all), ``U = StatePreparation(|a_v>)``, global phase ``pi``.

    Examples
    --------
    >>> from qiskit.quantum_info import Operator
    >>> a = alignment_state([0.6, 0.8])
    >>> np.allclose(Operator(reflection_circuit([0.6, 0.8])).data, 2 * np.outer(a, a) - np.eye(4))
    True
    """
    return _reflection(v, label, False)


def controlled_reflection_circuit(v, label: str = "cR"):
    """Qiskit circuit of exactly ``|0><0| ⊗ 1 + |1><1| ⊗ R_v`` (register: qubits ``0..n-1``,
    control: qubit ``n``): only the middle of ``R_v = U (2|0><0| - 1) U^dagger`` is controlled,
    ``controlled-(2|0><0| - 1) = Z_control · controlled-(1 - 2|0><0|)`` (the ``Z`` keeps the
    global phase of :func:`reflection_circuit` from becoming a relative one).

    Examples
    --------
    >>> controlled_reflection_circuit([0.6, 0.8]).num_qubits          # n = 2, and the control
    3
    """
    return _reflection(v, label, True)


def gapip_circuit(g, h, k: int, *, measure: bool = True, protocol: str = "quantum"):
    """One shot as a Qiskit circuit, a barrier at each pass (``P <= 256``, ``k <= 64``).
    ``"quantum"``: ``|a_g>``, ``k`` times ``R_h`` then ``R_g``, ``U_h^dagger`` and measurement
    (``0...0`` means "a_h"). ``"phase_estimation"`` (power ``k = K >= 1``, control qubit ``n``):
    ``|a_g>`` and ``H`` on the control, controlled-``R_h``, ``K - 1`` times controlled-``R_g``
    then controlled-``R_h``, ``H`` and one clbit.

    Examples
    --------
    >>> qc = gapip_circuit([1.0, 0.0], [0.6, 0.8], 2, protocol="phase_estimation")
    >>> qc.num_qubits, qc.num_clbits, sum(i.operation.name == "barrier" for i in qc.data)
    (3, 1, 3)
    """
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import StatePreparation

    pe = check_choice(protocol, "protocol", ("quantum", "phase_estimation")) == "phase_estimation"
    k = check_int(k, "k (the power K of controlled-G)" if pe else "k", int(pe), 64)
    gn, hn = gapip_prepare(g, h)
    if gn.size > 256:
        raise ValueError(
            f"gapip_circuit: P must be <= 256 (generic state preparations), got {gn.size}"
        )
    n = n_register_qubits(gn.size)
    if not isinstance(measure, (bool, np.bool_)):
        raise TypeError(f"measure must be True or False, got {measure!r}")
    qc = QuantumCircuit(n + pe, (1 if pe else n) if measure else 0)
    qc.append(StatePreparation(alignment_state(gn), label="U_g"), range(n))
    if pe:
        qc.h(n)
    qc.barrier(label="server → client")
    make = controlled_reflection_circuit if pe else reflection_circuit
    r_h = make(hn, "cR_h" if pe else "R_h").to_gate(label="c-R_h" if pe else "R_h")
    r_g = make(gn, "cR_g" if pe else "R_g").to_gate(label="c-R_g" if pe else "R_g")
    passes = [r_h] + [r_g, r_h] * (k - 1) if pe else [r_h, r_g] * k
    for i, gate in enumerate(passes):
        qc.append(gate, range(n + pe))
        if not pe or i < len(passes) - 1:  # phase estimation: the client keeps the last pass
            qc.barrier(label="client → server" if gate is r_h else "server → client")
    if pe:
        qc.h(n)
    else:
        qc.append(StatePreparation(alignment_state(hn), label="U_h").inverse(), range(n))
    if measure:
        qc.measure([n] if pe else range(n), range(1 if pe else n))
    return qc


# -- Iterative amplitude estimation (Grinko, Gacon, Zoufal, Woerner 2021) and its twin -------
def _interval(ones: int, shots: int, level: float, confidence: str) -> tuple[float, float]:
    """Two-sided ``level`` confidence interval for a Bernoulli probability (``ones``/``shots``)."""
    mean = ones / shots
    if confidence == "exact":  # Clopper-Pearson
        from scipy.stats import beta

        lo = 0.0 if ones == 0 else float(beta.ppf(level / 2.0, ones, shots - ones + 1))
        hi = 1.0 if ones == shots else float(beta.ppf(1.0 - level / 2.0, ones + 1, shots - ones))
        return lo, hi
    # Hoeffding: 2 exp(-2 N e^2) = level; "chernoff": Qiskit's IAE half-width, 6 times wider^2
    half = math.sqrt((3.0 if confidence == "chernoff" else 0.5) * math.log(2.0 / level) / shots)
    return max(0.0, mean - half), min(1.0, mean + half)


def _find_next_k(k: int, upper: bool, t_lo: float, t_hi: float, odd: bool) -> tuple[int, bool]:
    """Next power for an interval ``[t_lo, t_hi]`` of ``theta/(2 pi)``: the largest ``K >= 2
    K_old`` whose scaled interval ``2K [t_lo, t_hi]`` stays in one half circle, else the old one
    (``odd``: ``K = 2k + 1``, ``k`` returned; else ``K`` itself)."""
    old = 2 * (2 * k + 1 if odd else k)
    max_scaling = int(1.0 / (2.0 * (t_hi - t_lo)))
    scaling = max_scaling - ((max_scaling - 2) % 4 if odd else max_scaling % 2)
    while scaling >= 2 * old:
        lo = scaling * t_lo - int(scaling * t_lo)
        hi = scaling * t_hi - int(scaling * t_hi)
        new = (scaling - 2) // 4 if odd else scaling // 2
        if lo <= hi <= 0.5 and lo <= 0.5:
            return new, True
        if hi >= 0.5 and hi >= lo >= 0.5:
            return new, False
        scaling -= 4 if odd else 2
    return k, upper


def _iae(theta, epsilon, delta, threshold, rng, confidence, odd, width):
    """The interval iteration on ``a = sin^2(theta)`` until the interval excludes ``threshold``
    or is narrower than ``2 epsilon``: ``(a_lo, a_hi, steps)``; ``width``: qubits per pass (a
    shot at power ``K`` makes ``K`` passes if ``odd``, else ``2K - 1``)."""
    T = int(math.log(2 * math.pi / 8 / epsilon) / math.log(2)) + 1  # Grinko et al.'s bound
    t_lo, t_hi, a_lo, a_hi = 0.0, 0.25, 0.0, 1.0  # t = theta/(2 pi)
    k, upper = (0 if odd else 1), True
    steps: list[IAEStep] = []
    acc_k, acc_shots, acc_ones = -1, 0, 0
    for _ in range(10_000):  # ends after O(log(1/epsilon)) steps; a guard against a logic error
        if a_hi < threshold or a_lo > threshold or a_hi - a_lo < 2 * epsilon:
            break
        k, upper = _find_next_k(k, upper, t_lo, t_hi, odd)
        K = 2 * k + 1 if odd else k
        ones = int(rng.binomial(IAE_SHOTS, math.sin(K * theta) ** 2))
        if k == acc_k:  # same power as before: pool the shots
            acc_shots, acc_ones = acc_shots + IAE_SHOTS, acc_ones + ones
        else:
            acc_k, acc_shots, acc_ones = k, IAE_SHOTS, ones
        p_lo, p_hi = _interval(acc_ones, acc_shots, delta / T, confidence)
        th = sorted(math.acos(1 - 2 * p) / (2 * math.pi) for p in (p_lo, p_hi))
        th_min, th_max = th if upper else (1 - th[1], 1 - th[0])
        t_hi = min(t_hi, (int(2 * K * t_hi) + th_max) / (2 * K))
        t_lo = max(t_lo, (int(2 * K * t_lo) + th_min) / (2 * K))
        a_lo, a_hi = math.sin(2 * math.pi * t_lo) ** 2, math.sin(2 * math.pi * t_hi) ** 2
        passes = K if odd else 2 * K - 1
        steps.append(IAEStep(k, IAE_SHOTS, ones, a_lo, a_hi, IAE_SHOTS * width * passes))
    return a_lo, a_hi, steps


# -- The classical protocols -----------------------------------------------------------------
def _gap(tau: float) -> float:
    return math.asin(tau) / math.pi


def _hoeffding_sketch_bits(tau: float, delta: float) -> int:
    return int(math.ceil(math.log(1.0 / delta) / (2.0 * _gap(tau) ** 2)))


@functools.lru_cache(maxsize=512)
def _exact_sketch_bits(tau: float, delta: float) -> int:
    from scipy.stats import binom

    def err(j: int) -> bool:  # majority of k = 2j + 1 bits errs too often
        return float(binom.cdf(j, 2 * j + 1, 0.5 + _gap(tau))) > delta

    if not err(0):
        return 1
    lo, hi = 0, (_hoeffding_sketch_bits(tau, delta) + 1) // 2 + 1  # Hoeffding's k holds
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if err(mid) else (lo, mid)
    return 2 * hi + 1


def sketch_bits(tau: float, delta: float = 0.05, *, bound: str = "hoeffding") -> int:
    """Sign-sketch length, ``gap = arcsin(tau)/pi``: ``"hoeffding"``, ``k = ceil(ln(1/delta)/(2
    gap^2))``; ``"exact"``, the smallest odd ``k`` with ``P[Bin(k, 1/2 + gap) <= (k - 1)/2] <=
    delta`` (an even ``k`` with a fair tie-break errs as often as ``k - 1``).

    Examples
    --------
    >>> sketch_bits(0.1, 0.05), sketch_bits(0.1, 0.05, bound="exact")
    (1474, 665)
    """
    tau, delta = _check_tau(tau), check_delta(delta)
    if check_choice(bound, "bound", ("hoeffding", "exact")) == "exact":
        return _exact_sketch_bits(tau, delta)
    return _hoeffding_sketch_bits(tau, delta)


def _vector_word_bits(P: int, tau: float) -> int:
    """The smallest ``b`` with ``L = 2^(b-1) - 1 > sqrt(P)/(2 tau)``."""
    need = math.sqrt(P) / (2.0 * tau)
    b = max(2, int(math.log2(need + 1.0)))
    while 2 ** (b - 1) - 1 <= need:
        b += 1
    return b


def vector_bits(P: int, tau: float) -> int:
    """Bits of the send-the-vector protocol: ``P b``, ``b`` the smallest word size with
    ``2^(b-1) - 1 > sqrt(P)/(2 tau)``.

    Examples
    --------
    >>> vector_bits(8, 0.5), vector_bits(1000, 0.1)      # 3-bit and 9-bit words
    (24, 9000)
    """
    P = check_int(P, "P", 1, 2**62)
    return P * _vector_word_bits(P, _check_tau(tau))


def classical_bits(
    P: int, tau: float, delta: float = 0.05, *, bound: str = "hoeffding"
) -> tuple[str, int]:
    """The cheaper classical protocol and its bits: ``("sketch" | "vector", bits)``.

    Examples
    --------
    >>> classical_bits(2**16, 0.02), classical_bits(16, 0.02)
    (('sketch', 36954), ('vector', 128))
    """
    s, v = sketch_bits(tau, delta, bound=bound), vector_bits(P, tau)
    return ("sketch", s) if s <= v else ("vector", v)


def _run_sketch(gn: np.ndarray, hn: np.ndarray, k: int, rng) -> float:
    """Fraction of sketch bits that agree: explicit Gaussian rows for small ``k P``, else one
    binomial draw (the bits agree independently with probability ``1 - arccos(c)/pi``)."""
    if k * gn.size <= _EXPLICIT_SKETCH_LIMIT:
        r = rng.standard_normal((k, gn.size))
        return float(np.mean((r @ gn >= 0.0) == (r @ hn >= 0.0)))
    if k > 2**62:
        raise ValueError(f"tau: the sketch would need {k:.3g} bits, more than can be simulated")
    return float(rng.binomial(k, 1.0 - math.acos(float(np.clip(gn @ hn, -1, 1))) / math.pi)) / k


# -- The protocol ----------------------------------------------------------------------------
def gapip(g, h, tau: float, *, protocol="quantum", delta: float = 0.05, seed=None) -> Decision:
    """Decide whether ``<g, h> >= tau`` ("aligned") or ``<= -tau`` ("conflicting").

    ``g``, ``h``: the server's and the client's vectors, shape (P,), non-zero; ``tau`` in
    ``[MIN_TAU, 1)``; ``protocol``: a name of ``GAPIP_PROTOCOLS`` (Hoeffding bounds) or a value
    carrying its bounds; ``delta`` in (0, 0.5): the allowed error probability; ``seed``: shared
    randomness (sketch vectors) and measurement outcomes.

    Examples
    --------
    >>> g = np.array([1.0, 0.0, 0.0, 0.0])
    >>> h = np.array([0.3, 0.95393920141694, 0.0, 0.0])     # <g, h> = 0.3
    >>> d = gapip(g, h, 0.3, protocol=PhaseEstimation("exact"), seed=1)
    >>> d.verdict, d.unit, d.cost == sum(s.qubits for s in d.steps)
    ('aligned', 'qubits', True)
    """
    gn, hn = gapip_prepare(g, h)
    tau, delta = _check_tau(tau), check_delta(delta)
    proto = _protocol_value(protocol)
    rng = generator(seed)
    P = gn.size
    if isinstance(proto, Classical):
        kind = classical_bits(P, tau, delta, bound=proto.bound)[0]
        proto = "vector" if kind == "vector" else Sketch(proto.bound)
    if proto == "vector":
        b = _vector_word_bits(P, tau)
        L = 2 ** (b - 1) - 1
        est = float((np.round(gn * L) / L) @ hn)
        return Decision("aligned" if est >= 0 else "conflicting", P * b, 1, "vector", "bits", est)
    if isinstance(proto, Sketch):
        k = sketch_bits(tau, delta, bound=proto.bound)
        agree = _run_sketch(gn, hn, k, rng)
        est = math.cos(math.pi * (1.0 - agree))  # invert P(agree) = 1 - arccos(c)/pi
        return Decision("aligned" if agree >= 0.5 else "conflicting", k, 1, "sketch", "bits", est)
    theta = alignment_angle(gn, hn)
    threshold = 0.75 - tau * tau / 4.0
    pe = isinstance(proto, PhaseEstimation)
    width = n_register_qubits(P) + pe  # qubits per pass
    a_lo, a_hi, steps = _iae(theta, tau / 2, delta, threshold, rng, proto.confidence, not pe, width)
    a_mid = 0.5 * (a_lo + a_hi)
    est = 2.0 * math.sqrt(max(0.0, 1.0 - a_mid)) - 1.0
    verdict = "aligned" if a_mid < threshold else "conflicting"
    qubits = sum(s.qubits for s in steps)
    rounds = qubits // (IAE_SHOTS * width)  # the passes: a step's shots travel side by side
    name = "phase_estimation" if pe else "quantum"
    return Decision(verdict, qubits, rounds, name, "qubits", est, tuple(steps))
