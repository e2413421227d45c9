"""TieAudit_ε: sign-consistency auditing over a hidden matching (DESIGN.md §4.8).

The server holds signs ``s in {±1}^P`` with ``P = 2^n`` (e.g. the signs of the aggregated
gradient); the client holds a private matching ``M``: ``m`` disjoint pairs ``(i, j)`` of
coordinates (e.g. parameters it expects to move together), covering the fraction
``alpha = 2 m / P``. The client wants ``f``, the fraction of matched pairs with ``s_i != s_j``,
to within ``±eps`` with probability ``>= 1 - delta``. Communication is one-way, server to client.

Protocols (the ``protocol=`` names of :func:`tieaudit`)
------------------------------------------------------
``"quantum"``
    Per copy the server sends ``|psi_s> = sum_i s_i |i> / sqrt(P)`` on ``n`` qubits (basis state
    ``|i>`` = the integer ``i``, qubit 0 least significant). The client measures in the basis
    ``{(|i> ± |j>)/sqrt(2) : (i, j) in M} ∪ {|k> : k unmatched}`` and records ``Y = +1`` ("+"
    outcome of a pair), ``Y = -1`` ("-" outcome) or ``Y = 0`` (unmatched). Since
    ``|<psi_s|(|i> ± |j>)/sqrt(2)>|^2 = (s_i ± s_j)^2 / (2P)``, ``P(Y = +1) = alpha (1 - f)``,
    ``P(Y = -1) = alpha f`` and ``E[Y] = alpha (1 - 2 f)``; the estimate is
    ``f_hat = (1 - mean(Y)/alpha)/2``. Hoeffding (``Y`` in ``[-1, 1]``) gives
    ``N = ceil(ln(2/delta) / (2 alpha^2 eps^2))`` copies, ``n N = O(eps^-2 log P)`` qubits.
``"entanglement_assisted"``
    The parties pre-share ``n`` Bell pairs per copy (``sum_i |i>|i>/sqrt(P)``). The server applies
    ``diag(s)`` to its half, measures it in the X basis and sends the ``n`` outcome bits ``x``;
    the client applies ``Z^x`` (the phases ``(-1)^(x·i)``) and holds ``|psi_s>`` exactly, then
    measures as above. Cost: ``n`` classical bits and ``n`` ebits per copy, same ``N``.
``"classical"``
    Shared randomness picks ``k`` coordinates; the server sends their ``k`` signs (``k`` bits; the
    positions are free). The client uses the matched pairs with both ends inside the subset, a
    uniformly random sample of ``M``; ``k`` is chosen so that their expected number is
    ``2 m_0`` with ``m_0 = ceil(ln(4/delta) / (2 eps^2))`` (enough for Hoeffding at ``delta/2``;
    fewer than ``m_0`` appear with probability ``<= exp(-m_0/4)``). So
    ``k ≈ sqrt(2 m_0 P / alpha) = Θ(sqrt(P/alpha)/eps)`` bits (capped at ``P``: then the server
    sends everything and ``f`` is exact). ``Ω(sqrt(P))`` bits are necessary for any classical
    one-way protocol (Boolean hidden matching; Bar-Yossef, Jayram, Kerenidis 2004).

Noise (quantum protocols). A depolarising channel with probability ``noise`` replaces a copy by
the maximally mixed state, attenuating ``E[Y]`` by ``eta = 1 - noise``. The server then hides
test copies carrying the all-agree string ``s = (1, ..., 1)`` (``f = 0``) among the data copies
— half of all copies, at positions from shared randomness, so the channel cannot treat them
differently. Their mean estimates ``alpha eta`` and ``f_hat = (1 - mean(Y_data)/mean(Y_test))/2``.
The number of copies per group, ``N = ceil(2 ln(4/delta) / t^2)`` with
``t = eps alpha eta / (1 + eps)``, is planned for ``eta = 1 - noise``: ``noise`` is both the
channel's depolarising probability in the simulation and the worst noise the parties budget for.
These constants (Hoeffding everywhere, half test copies) are the book's reconstruction; the paper
summary gives only the orders of growth.

Simulation paths: the fast path computes the outcome distribution by the Born rule from the state
vector (``2 m + (P - 2 m)`` outcomes) and samples all copies at once (exact in distribution).
:func:`tieaudit_circuit` builds the Qiskit circuits (one-way and entanglement-assisted) for small
``n``; tests check that they give the same distribution.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._validate import as_numeric_array, check_choice, check_float, check_int, check_seed

__all__ = [
    "Estimate",
    "TIEAUDIT_PROTOCOLS",
    "tieaudit",
    "tieaudit_copies",
    "tieaudit_cost",
    "classical_subset_size",
    "check_signs",
    "check_matching",
    "disagreement_fraction",
    "outcome_probabilities",
    "outcome_index",
    "tieaudit_circuit",
    "tieaudit_sample_qiskit",
    "random_matching",
    "signs_with_disagreement",
]

#: Names accepted by ``tieaudit(protocol=...)``.
TIEAUDIT_PROTOCOLS = ("quantum", "entanglement_assisted", "classical")


@dataclass(frozen=True)
class Estimate:
    """Outcome of :func:`tieaudit`.

    ``value``: the estimate of ``f``; ``cost``: qubits (quantum) or bits (entanglement-assisted,
    classical) sent in total; ``unit``: ``"qubits"`` or ``"bits"``; ``ebits``: Bell pairs consumed
    (entanglement-assisted only); ``copies``: quantum copies sent (data + test); ``test_copies``:
    hidden all-agree copies among them; ``attenuation``: the estimated ``eta`` (1 when not
    estimated); ``alpha``: the matched fraction.
    """

    value: float
    cost: int
    unit: str
    protocol: str
    copies: int = 0
    test_copies: int = 0
    ebits: int = 0
    attenuation: float = 1.0
    alpha: float = 1.0

    def __repr__(self) -> str:
        extra = f", ebits={self.ebits}" if self.ebits else ""
        if self.test_copies:
            extra += f", test_copies={self.test_copies}, attenuation={self.attenuation:.4f}"
        return (f"Estimate(value={self.value:.4f}, cost={self.cost} {self.unit}, "
                f"protocol={self.protocol!r}{extra})")


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------

def check_signs(signs) -> np.ndarray:
    """``signs``: 1-D array of ±1 of length ``P = 2^n >= 2``; returned as ``int8``."""
    arr = as_numeric_array(signs, "signs")
    if arr.ndim != 1:
        raise ValueError(f"signs must be a 1-D vector of ±1, got shape {arr.shape}")
    P = arr.size
    if P < 2 or P & (P - 1):
        raise ValueError(f"len(signs) must be a power of two P = 2^n >= 2 (the server's state "
                         f"lives on n qubits), got {P}")
    if not np.all((arr == 1) | (arr == -1)):
        raise ValueError("signs must contain only +1 and -1")
    return arr.astype(np.int8)


def check_matching(matching, P: int) -> np.ndarray:
    """``matching``: pairs ``(i, j)`` of distinct coordinates in ``0 .. P-1``, no index used twice,
    at least one pair. Returned as an ``int64`` array of shape ``(m, 2)``."""
    arr = as_numeric_array(matching, "matching")
    if arr.size == 0:
        raise ValueError("matching must contain at least one pair (i, j)")
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"matching must have shape (m, 2) (a list of pairs), got {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        if not np.all(arr == np.round(arr)):
            raise TypeError("matching must contain integer indices")
    arr = arr.astype(np.int64)
    if arr.min() < 0 or arr.max() >= P:
        bad = int(arr[(arr < 0) | (arr >= P)][0])
        raise ValueError(f"matching indices must be in 0..{P - 1} (P = {P}), got {bad}")
    counts = np.bincount(arr.ravel(), minlength=P)
    if counts.max() > 1:
        rep = int(np.flatnonzero(counts > 1)[0])
        raise ValueError(f"matching pairs must be disjoint: index {rep} is used {counts[rep]} "
                         "times (or paired with itself)")
    return arr


def _check_eps(eps) -> float:
    return check_float(eps, "eps", 0.0, 1.0, lo_open=True, hi_open=True)


def _check_delta(delta) -> float:
    return check_float(delta, "delta", 0.0, 0.5, lo_open=True, hi_open=True)


def _check_noise(noise) -> float:
    return check_float(noise, "noise", 0.0, 1.0, hi_open=True)


# --------------------------------------------------------------------------------------------
# Instances
# --------------------------------------------------------------------------------------------

def disagreement_fraction(signs, matching) -> float:
    """The true ``f``: fraction of pairs ``(i, j)`` of the matching with ``s_i != s_j``."""
    s = check_signs(signs)
    m = check_matching(matching, s.size)
    return float(np.mean(s[m[:, 0]] != s[m[:, 1]]))


def random_matching(P: int, alpha: float = 1.0, seed=None) -> np.ndarray:
    """A uniformly random matching of ``round(alpha P / 2)`` pairs (at least one), shape (m, 2)."""
    P = check_int(P, "P", 2)
    if P & (P - 1):
        raise ValueError(f"P must be a power of two, got {P}")
    alpha = check_float(alpha, "alpha", 0.0, 1.0, lo_open=True)
    check_seed(seed)
    m = max(1, int(round(alpha * P / 2)))
    perm = np.random.default_rng(seed).permutation(P)[: 2 * m]
    return perm.reshape(m, 2).astype(np.int64)


def signs_with_disagreement(matching, P: int, f: float, seed=None) -> np.ndarray:
    """Random signs of length ``P`` such that exactly ``round(f m)`` matched pairs disagree."""
    P = check_int(P, "P", 2)
    m = check_matching(matching, P)
    f = check_float(f, "f", 0.0, 1.0)
    check_seed(seed)
    rng = np.random.default_rng(seed)
    s = rng.choice(np.array([-1, 1], dtype=np.int8), size=P)
    n_dis = int(round(f * len(m)))
    flip = np.zeros(len(m), dtype=bool)
    flip[rng.permutation(len(m))[:n_dis]] = True
    s[m[:, 1]] = np.where(flip, -s[m[:, 0]], s[m[:, 0]])
    return s


# --------------------------------------------------------------------------------------------
# Planning: copies, subset size, costs
# --------------------------------------------------------------------------------------------

def tieaudit_copies(alpha: float, eps: float, delta: float = 0.05,
                    noise: float = 0.0) -> tuple[int, int]:
    """Copies ``(data, test)`` of the quantum protocols (see the module docstring).

    Noiseless: ``N = ceil(ln(2/delta) / (2 alpha^2 eps^2))``, no test copies. With noise: ``N``
    data and ``N`` hidden test copies, ``N = ceil(2 ln(4/delta) / t^2)``,
    ``t = eps alpha (1 - noise) / (1 + eps)``.
    """
    alpha = check_float(alpha, "alpha", 0.0, 1.0, lo_open=True)
    eps, delta, noise = _check_eps(eps), _check_delta(delta), _check_noise(noise)
    if noise == 0.0:
        return int(math.ceil(math.log(2.0 / delta) / (2.0 * alpha**2 * eps**2))), 0
    t = eps * alpha * (1.0 - noise) / (1.0 + eps)
    n = int(math.ceil(2.0 * math.log(4.0 / delta) / t**2))
    return n, n


def classical_subset_size(P: int, alpha: float, eps: float, delta: float = 0.05) -> int:
    """Subset size ``k`` of the classical protocol: the smallest ``k`` with
    ``m k (k-1) / (P (P-1)) >= 2 m_0``, ``m = alpha P / 2``, ``m_0 = ceil(ln(4/delta)/(2 eps^2))``,
    capped at ``P`` (send every sign)."""
    P = check_int(P, "P", 2)
    alpha = check_float(alpha, "alpha", 0.0, 1.0, lo_open=True)
    eps, delta = _check_eps(eps), _check_delta(delta)
    m = alpha * P / 2.0
    m0 = math.ceil(math.log(4.0 / delta) / (2.0 * eps**2))
    if m < 2 * m0:
        return P
    target = 2 * m0 * P * (P - 1) / m          # need k (k - 1) >= target
    k = int(math.ceil((1.0 + math.sqrt(1.0 + 4.0 * target)) / 2.0))
    return min(P, k)


def tieaudit_cost(P: int, eps: float, *, protocol: str = "quantum", alpha: float = 1.0,
                  delta: float = 0.05, noise: float = 0.0) -> int:
    """Communication of :func:`tieaudit` without running it (deterministic): qubits for
    ``"quantum"``, classical bits for ``"entanglement_assisted"`` (plus as many ebits) and
    ``"classical"``."""
    P = check_int(P, "P", 2)
    if P & (P - 1):
        raise ValueError(f"P must be a power of two P = 2^n, got {P}")
    check_choice(protocol, "protocol", TIEAUDIT_PROTOCOLS)
    if protocol == "classical":
        return classical_subset_size(P, alpha, eps, delta)
    data, test = tieaudit_copies(alpha, eps, delta, noise)
    return (data + test) * (P.bit_length() - 1)


# --------------------------------------------------------------------------------------------
# The quantum measurement: Born rule and circuits
# --------------------------------------------------------------------------------------------

def outcome_probabilities(signs, matching, noise: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Born-rule distribution of the client's measurement on one copy.

    Returns ``(probs, y)``: ``probs`` has ``2 m + (P - 2 m)`` entries — for pair ``r`` the "+"
    outcome at ``2 r`` and the "-" outcome at ``2 r + 1``, then the unmatched coordinates in
    increasing order — and ``y`` the value of ``Y`` for each outcome (+1, -1, 0). With ``noise``
    the copy is depolarised: ``(1 - noise) probs + noise / P``.
    """
    s = check_signs(signs)
    m = check_matching(matching, s.size)
    return _outcome_probabilities(s, m, _check_noise(noise))


def outcome_index(matching, P: int) -> np.ndarray:
    """Computational-basis index that the circuits of :func:`tieaudit_circuit` report for each
    outcome of :func:`outcome_probabilities`: ``i`` for "+" of pair ``(i, j)``, ``j`` for "-",
    ``k`` for unmatched ``k``."""
    m = check_matching(matching, P)
    unmatched = np.ones(P, dtype=bool)
    unmatched[m.ravel()] = False
    return np.concatenate([m.ravel(), np.flatnonzero(unmatched)])


def _outcome_probabilities(s: np.ndarray, m: np.ndarray, noise: float):
    """Born rule on validated input (see :func:`outcome_probabilities`): O(P) work."""
    P = s.size
    psi = s.astype(np.float64) / math.sqrt(P)       # the server's state vector
    a, b = psi[m[:, 0]], psi[m[:, 1]]
    plus = (a + b) ** 2 / 2.0                       # |<psi|(|i> + |j>)/sqrt 2>|^2
    minus = (a - b) ** 2 / 2.0
    unmatched = np.ones(P, dtype=bool)
    unmatched[m.ravel()] = False
    rest = psi[unmatched] ** 2
    probs = np.concatenate([np.column_stack([plus, minus]).ravel(), rest])
    if noise:
        probs = (1.0 - noise) * probs + noise / P
    y = np.concatenate([np.tile([1, -1], len(m)), np.zeros(int(unmatched.sum()))]).astype(np.int8)
    return probs / probs.sum(), y


def _measurement_unitary(matching: np.ndarray, P: int) -> np.ndarray:
    """Real orthogonal V mapping the client's basis to the computational one:
    ``(|i> + |j>)/sqrt2 -> |i>``, ``(|i> - |j>)/sqrt2 -> |j>``, ``|k> -> |k>`` (unmatched)."""
    V = np.eye(P)
    r = 1.0 / math.sqrt(2.0)
    for i, j in matching:
        V[i, i], V[i, j], V[j, i], V[j, j] = r, r, r, -r
    return V


def tieaudit_circuit(signs, matching, *, protocol: str = "quantum", measure: bool = True):
    """Qiskit circuit of one copy (small ``n`` only, ``P <= 64``).

    ``"quantum"``: qubits ``0..n-1`` carry the server's state (``StatePreparation``), then the
    client's basis change ``V`` (a ``UnitaryGate`` labelled "M") and measurement; classical
    outcome ``i`` (first index of a pair) means "+" of that pair, ``j`` means "-".

    ``"entanglement_assisted"``: qubits ``0..n-1`` are the server's halves, ``n..2n-1`` the
    client's. Bell pairs (H, CX), ``diag(s)`` on the server's halves, H and measurement of the
    server's halves into clbits ``0..n-1`` (the ``n`` bits sent); the client's ``Z^x`` correction
    is written in deferred-measurement form as CZ gates from the server's qubits; then ``V`` and
    measurement of the client's qubits into clbits ``n..2n-1``.
    """
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import DiagonalGate, StatePreparation, UnitaryGate

    s = check_signs(signs)
    m = check_matching(matching, s.size)
    check_choice(protocol, "protocol", ("quantum", "entanglement_assisted"))
    P = s.size
    if P > 64:
        raise ValueError(f"tieaudit_circuit is for small registers: P must be <= 64, got {P}")
    n = P.bit_length() - 1
    V = UnitaryGate(_measurement_unitary(m, P), label="M")
    if protocol == "quantum":
        qc = QuantumCircuit(n, n if measure else 0)
        qc.append(StatePreparation(s / math.sqrt(P), label="ψ_s"), range(n))
        qc.barrier(label="server → client")
        qc.append(V, range(n))
        if measure:
            qc.measure(range(n), range(n))
        return qc
    server, client = list(range(n)), list(range(n, 2 * n))
    qc = QuantumCircuit(2 * n, 2 * n if measure else 0)
    for a, b in zip(server, client):
        qc.h(a)
        qc.cx(a, b)
    qc.barrier(label="shared pairs")
    qc.append(DiagonalGate([complex(x) for x in s]), server)
    qc.h(server)
    if measure:
        qc.measure(server, range(n))
    qc.barrier(label="n bits → client")
    for a, b in zip(server, client):
        qc.cz(a, b)
    qc.append(V, client)
    if measure:
        qc.measure(client, range(n, 2 * n))
    return qc


def tieaudit_sample_qiskit(signs, matching, shots: int = 1000, *,
                           protocol: str = "quantum", seed=None) -> np.ndarray:
    """Sample the client's outcomes of :func:`tieaudit_circuit` on ``AerSimulator``.

    Returns counts in the order of :func:`outcome_probabilities` (pair "+", pair "-", ...,
    unmatched). The circuit is decomposed to ``u``/``cx`` gates first (Aer does not take the
    generic state-preparation multiplexers directly)."""
    from qiskit import transpile
    from qiskit_aer import AerSimulator

    s = check_signs(signs)
    m = check_matching(matching, s.size)
    shots = check_int(shots, "shots", 1, 10**6)
    check_seed(seed)
    n = s.size.bit_length() - 1
    sim_seed = int(np.random.default_rng(seed).integers(2**31))
    qc = transpile(tieaudit_circuit(s, m, protocol=protocol), basis_gates=["u", "cx"],
                   optimization_level=1, seed_transpiler=0)
    counts = AerSimulator(seed_simulator=sim_seed).run(qc, shots=shots).result().get_counts()
    by_index = np.zeros(s.size, dtype=np.int64)
    for key, c in counts.items():
        by_index[int(key, 2) >> (n if protocol != "quantum" else 0)] += c  # client's clbits
    return by_index[outcome_index(m, s.size)]


# --------------------------------------------------------------------------------------------
# The protocol
# --------------------------------------------------------------------------------------------

def _sample_mean_y(probs: np.ndarray, y: np.ndarray, copies: int,
                   rng: np.random.Generator) -> float:
    """Mean of ``Y`` over ``copies`` independent measurements (multinomial over outcomes)."""
    p_plus = float(probs[y == 1].sum())
    p_minus = float(probs[y == -1].sum())
    p_zero = max(0.0, 1.0 - p_plus - p_minus)
    counts = rng.multinomial(copies, np.array([p_plus, p_minus, p_zero]) /
                             (p_plus + p_minus + p_zero))
    return float(counts[0] - counts[1]) / copies


def tieaudit(signs, matching, eps: float, *, protocol: str = "quantum", delta: float = 0.05,
             noise: float = 0.0, seed=None) -> Estimate:
    """Estimate ``f``, the fraction of matched pairs with different signs, to ``±eps``.

    Parameters
    ----------
    signs : array-like of ±1, shape (P,), ``P = 2^n``
        The server's signs.
    matching : array-like of ints, shape (m, 2)
        The client's disjoint pairs; ``alpha = 2 m / P``.
    eps : float in (0, 1)
        Additive accuracy; the estimate is within ``eps`` of ``f`` with probability ``>= 1-delta``.
    protocol : "quantum" | "entanglement_assisted" | "classical"
        See the module docstring.
    delta : float in (0, 0.5)
    noise : float in [0, 1)
        Depolarising probability per copy (quantum protocols only). ``noise > 0`` switches on the
        hidden all-agree test copies that estimate the attenuation.
    seed : None, int or numpy Generator
        Shared randomness and measurement outcomes.
    """
    s = check_signs(signs)
    m = check_matching(matching, s.size)
    eps, delta, noise = _check_eps(eps), _check_delta(delta), _check_noise(noise)
    check_choice(protocol, "protocol", TIEAUDIT_PROTOCOLS)
    check_seed(seed)
    rng = np.random.default_rng(seed)
    P, n_pairs = s.size, len(m)
    n = P.bit_length() - 1
    alpha = 2.0 * n_pairs / P

    if protocol == "classical":
        if noise:
            raise ValueError("noise applies to the quantum protocols only; use noise=0.0 with "
                             "protocol='classical'")
        k = classical_subset_size(P, alpha, eps, delta)
        inside = np.zeros(P, dtype=bool)
        inside[rng.permutation(P)[:k]] = True          # shared randomness: the subset
        both = inside[m[:, 0]] & inside[m[:, 1]]
        if not both.any():  # (probability <= exp(-m_0/4)) the client has no data: a fair guess
            return Estimate(0.5, k, "bits", "classical", alpha=alpha)
        sub = m[both]
        value = float(np.mean(s[sub[:, 0]] != s[sub[:, 1]]))
        return Estimate(value, k, "bits", "classical", alpha=alpha)

    data, test = tieaudit_copies(alpha, eps, delta, noise)
    probs, y = _outcome_probabilities(s, m, noise)
    mean_data = _sample_mean_y(probs, y, data, rng)
    eta_hat = 1.0
    if test:
        ones = np.ones(P, dtype=np.int8)               # the all-agree test string
        t_probs, t_y = _outcome_probabilities(ones, m, noise)
        mean_test = _sample_mean_y(t_probs, t_y, test, rng)
        eta_hat = mean_test / alpha
        ratio = mean_data / mean_test if mean_test > 0 else 0.0
    else:
        ratio = mean_data / alpha
    value = float(np.clip((1.0 - ratio) / 2.0, 0.0, 1.0))
    copies = data + test
    if protocol == "quantum":
        return Estimate(value, copies * n, "qubits", "quantum", copies, test,
                        attenuation=float(eta_hat), alpha=alpha)
    # Entanglement-assisted: after the Z^x correction the client holds |psi_s> whatever the
    # server's (uniform) outcome bits x were, so the outcome law is the one above.
    return Estimate(value, copies * n, "bits", "entanglement_assisted", copies, test,
                    ebits=copies * n, attenuation=float(eta_hat), alpha=alpha)
