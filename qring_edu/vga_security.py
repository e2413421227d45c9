"""What VGA's verification proves, and what it does not (protocols layer; book/05_vga.ipynb for
the GHZ test and the sampling bound, book/06_vga_security.ipynb beyond it).

The analysis of :mod:`qring_edu.vga`. Attacks are values: its sources (whole registers) and, on
part of a register, :class:`KnownPadBits` and :class:`SplitWorker`. Proven here, each in its
function: privacy of the ideal protocol against a coalition of up to P - 2 workers and an
eavesdropper on every link (:func:`transcript_distance` is 0); each attack's detection
(:func:`detection_probability`: at least 1/4 for every attack that predicts a pad digit with
certainty); the soundness of the sampling when bad registers are bad *independently*
(:func:`vga_epsilon`, :func:`vga_epsilon_floor`); the fidelity witness ``F >= 1 - 2 P(fail)``
(:func:`ghz_test_operator`) and, against *any* source, the fidelity of one random untested
register (:func:`ghz_verified_infidelity`, after Zhu & Hayashi 2019).

Not covered: composable security (see Yehia, Diamanti & Kerenidis 2020 and Colisson, Markham &
Yehia 2024 for composable GHZ verification); partially bad copies (trace distance t leaks about
t but fails only about t**2/2, :func:`rotated_ghz_leak`); attacks correlated across copies
(except through the single-copy fidelity guarantee); all used copies jointly; dishonest workers
in the tests; the integrity of the sum; the authenticity of the classical channel (assumed).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from ._result import result
from ._validate import check_bits, check_choice, check_float, check_int, generator
from .holevo import as_density_matrix
from .vga import (
    MAX_AMPLIFICATION,
    Dephasing,
    Eavesdropper,
    Honest,
    KnownPads,
    known_pads_detection,
    vga_circuit,
)

__all__ = [
    "KnownPadBits",
    "SplitWorker",
    "DETECTION_ATTACKS",
    "TRANSCRIPT_SOURCES",
    "GHZWitness",
    "RotatedGHZLeak",
    "even_y_settings",
    "ghz_test_pass_probability",
    "ghz_test_circuit",
    "ghz_test_operator",
    "ghz_state_pass_probability",
    "ghz_fidelity",
    "ghz_witness",
    "detection_probability",
    "ghz_verified_infidelity",
    "ghz_verification_tests",
    "vga_cheat_probability",
    "vga_epsilon",
    "vga_epsilon_floor",
    "amplified_leak_probability",
    "vga_outcome_probabilities",
    "vga_state_outcome_probabilities",
    "rotated_ghz_state",
    "rotated_ghz_leak",
    "transcript_distance",
]

#: Largest P for the explicit 2**P x 2**P operators.
MAX_WITNESS_WORKERS = 10
#: Spectral gap nu = 1 - beta of the GHZ test (beta = 1/2, its second-largest eigenvalue).
GHZ_TEST_SPECTRAL_GAP = 0.5
#: Per-test failure probability of a qubit GHZ one of whose workers holds a pure state.
SPLIT_WORKER_DETECTION = 0.25
#: vga_epsilon and vga_cheat_probability take at most this many register-copies.
MAX_EPSILON_COPIES = 100_000
#: Exact enumeration limits: P * b qubits for state vectors, pad tuples enumerated.
MAX_EXACT_QUBITS = 12
MAX_EXACT_PADS = 1 << 16


# -- Attacks on part of a register -----------------------------------------------------------
@dataclass(frozen=True)
class _PartialAttack:
    qubits: int = 1  # attacked qubit GHZ states per register, 1..32

    def __post_init__(self):
        name = f"{type(self).__name__} qubits"
        object.__setattr__(self, "qubits", check_int(self.qubits, name, 1, 32))


@dataclass(frozen=True)
class KnownPadBits(_PartialAttack):
    """Known pads on the top ``qubits`` qubit GHZ states of each attacked register (weights
    ``2**(b-qubits) .. 2**(b-1)``), genuine GHZ below: the source learns the lowest ``qubits``
    bits of every pad (so of every input) of the entry, the sum stays exact, and a tested
    register fails with probability ``1 - (1 - delta_P)**qubits`` only.

    Examples
    --------
    >>> detection_probability(KnownPadBits(1), 4, bits=8)
    0.4375
    """


@dataclass(frozen=True)
class SplitWorker(_PartialAttack):
    """On ``qubits`` qubit GHZ states of each attacked register, one worker's qubit is a pure
    state the source chose and the other P - 1 share a GHZ state: the source learns that
    worker's lowest ``qubits`` pad bits, the sum stays exact. Each attacked qubit GHZ fails a
    test with probability exactly 1/4 for every P, the minimum over every attack that predicts a
    pad digit with certainty (the copy's fidelity with GHZ is then at most 1/2, and ``P(fail) >=
    (1 - F)/2``, :func:`ghz_test_operator`).

    Examples
    --------
    >>> detection_probability(SplitWorker(), 4, bits=8)
    0.25
    """


#: The attacks :func:`detection_probability` knows.
DETECTION_ATTACKS = (KnownPads, Eavesdropper, KnownPadBits, SplitWorker, Dephasing)
#: The sources :func:`transcript_distance` covers.
TRANSCRIPT_SOURCES = (Honest, KnownPads, Eavesdropper)


def detection_probability(attack, workers: int, *, bits: int) -> float:
    """Probability that testing one bad register-copy exposes it (``detection`` of
    :func:`vga_epsilon`): ``1 - (1 - delta_1)**k``, k attacked qubit GHZ states each failing with
    probability ``delta_1``: ``(1 - 2**(1-P))/2`` (:func:`~qring_edu.vga.known_pads_detection`)
    for :class:`~qring_edu.vga.KnownPads`, :class:`~qring_edu.vga.Eavesdropper` (k = b) and
    :class:`KnownPadBits` (k = ``qubits``); 1/4 for :class:`SplitWorker`; 1 for
    :class:`~qring_edu.vga.Dephasing`.

    Examples
    --------
    >>> from qring_edu.vga import KnownPads
    >>> round(detection_probability(KnownPads(), 4, bits=8), 4)
    0.99
    """
    workers = check_int(workers, "workers", 2)
    bits = check_bits(bits)
    if isinstance(attack, Dephasing):
        return 1.0
    if isinstance(attack, KnownPads):
        return 1.0 - (1.0 - known_pads_detection(workers)) ** bits
    if not isinstance(attack, (KnownPadBits, SplitWorker)):
        raise TypeError(
            "attack must be KnownPads(), Eavesdropper(), Dephasing() (qring_edu.vga), "
            f"KnownPadBits(qubits) or SplitWorker(qubits), got {attack!r}"
        )
    if attack.qubits > bits:
        raise ValueError(f"attack.qubits must be at most bits = {bits}, got {attack.qubits}")
    split = isinstance(attack, SplitWorker)
    per_test = SPLIT_WORKER_DETECTION if split else known_pads_detection(workers)
    return 1.0 - (1.0 - per_test) ** attack.qubits


# -- The GHZ test ----------------------------------------------------------------------------
def even_y_settings(n_tests: int, workers: int, seed=None) -> np.ndarray:
    """Random GHZ-test settings: bool (n_tests, P), True = measure Y, uniform on even weights
    (the first P - 1 columns uniform, the last closes the parity).

    Examples
    --------
    >>> settings = even_y_settings(3, 4, seed=0)
    >>> (settings.sum(axis=1) % 2).tolist()
    [0, 0, 0]
    """
    workers = check_int(workers, "workers", 2, 10**4)
    n_tests = check_int(n_tests, "n_tests (at most 10**8 settings in all)", 0, 10**8 // workers)
    y = generator(seed).integers(0, 2, (n_tests, workers), dtype=np.int8).astype(bool)
    y[:, -1] = np.logical_xor.reduce(y[:, :-1], axis=1)
    return y


def _y_settings(y_settings) -> np.ndarray:
    y = np.asarray(y_settings)
    if y.dtype.kind not in "biu" or np.any((y != 0) & (y != 1)):
        raise TypeError(f"y_settings must be booleans (True = measure Y), got {y_settings!r}")
    return y.astype(bool)


def ghz_test_pass_probability(y_settings, *, phases=None, ghz_phase=None) -> np.ndarray:
    """Exact pass probability of GHZ tests with the given settings; float64 (n,).

    ``y_settings``: bool (n, P) or (P,), an even number 2m of True (= Y) per row; ``P(pass) =
    (1 + (-1)**m <X..Y..>) / 2``. The copy is ``(|0..0> + e^{i theta}|1..1>)/sqrt 2``
    (``ghz_phase`` theta, default 0: ``P(pass) = (1 + cos theta)/2``) or, with ``phases`` ((n, P)
    or (P,)), the product of equator states ``(|0> + e^{i phi_j}|1>)/sqrt 2``; not both.

    Examples
    --------
    >>> ghz_test_pass_probability([[True, True, False], [False, False, False]]).tolist()
    [1.0, 1.0]
    """
    if phases is not None and ghz_phase is not None:
        raise ValueError("give phases (a product copy) or ghz_phase (a GHZ copy), not both")
    y = np.atleast_2d(_y_settings(y_settings))
    two_m = y.sum(axis=1)
    if np.any(two_m % 2):
        raise ValueError("y_settings must have an even number of Y's in every row")
    if phases is None:
        theta = check_float(0.0 if ghz_phase is None else ghz_phase, "ghz_phase")
        return np.full(y.shape[0], (1.0 + math.cos(theta)) / 2.0)
    sign = np.where((two_m // 2) % 2 == 0, 1.0, -1.0)
    phi = np.reshape([check_float(p, "phases") for p in np.ravel(phases)], np.shape(phases))
    if phi.ndim > 2 or (phi.ndim and phi.shape[-1] != y.shape[1]):
        raise ValueError(f"phases must have one angle per worker ({y.shape[1]}), got {phases!r}")
    prod = np.prod(np.where(y, np.sin(phi), np.cos(phi)), axis=1)
    return np.clip((1.0 + sign * prod) / 2.0, 0.0, 1.0)


def ghz_test_circuit(y_settings, *, phases=None, flip: bool = False):
    """One qubit GHZ test as a Qiskit circuit: the copy (GHZ; ``flip``: a Z on qubit 0; or with
    ``phases`` the product of equator states, as in :func:`ghz_test_pass_probability`), then
    X (H) or Y (S-dagger, H) on each qubit per ``y_settings`` and measurement (bit 0 = +1). It
    passes iff the XOR of the bits is (number of Y's / 2) mod 2.

    Examples
    --------
    >>> qc = ghz_test_circuit([True, True, False])
    >>> qc.num_qubits, qc.num_clbits, qc.count_ops()["sdg"]
    (3, 3, 2)
    """
    from qiskit import QuantumCircuit

    y = [bool(v) for v in _y_settings(y_settings).reshape(-1)]
    if len(y) < 2 or sum(y) % 2:
        raise ValueError("y_settings must name P >= 2 workers with an even number of Y's")
    if not isinstance(flip, (bool, np.bool_)):
        raise TypeError(f"flip must be True or False, got {flip!r}")
    if phases is not None and np.size(phases) != len(y):
        raise ValueError(f"phases must have one angle per worker ({len(y)}), got {phases!r}")
    if phases is not None and flip:
        raise ValueError("flip applies to a GHZ copy: give phases (a product copy) or flip")
    P = len(y)
    qc = QuantumCircuit(P, P)
    if phases is None:
        qc.h(0)
        for j in range(1, P):
            qc.cx(0, j)
        if flip:
            qc.z(0)
    else:
        for j, phi in enumerate(np.ravel(phases)):
            qc.h(j)
            qc.p(check_float(phi, "phases"), j)
    qc.barrier()
    for j, is_y in enumerate(y):
        if is_y:
            qc.sdg(j)
        qc.h(j)
    qc.measure(range(P), range(P))
    return qc


def _ghz_pair(workers: int) -> tuple[np.ndarray, np.ndarray]:
    """|GHZ+> and |GHZ-> = (|0..0> +- |1..1>)/sqrt 2 as real vectors of length 2**P."""
    plus, minus = np.zeros(1 << workers), np.zeros(1 << workers)
    plus[0] = plus[-1] = minus[0] = 1 / math.sqrt(2)
    minus[-1] = -1 / math.sqrt(2)
    return plus, minus


def ghz_test_operator(workers: int) -> np.ndarray:
    """The GHZ test's pass operator averaged over its settings: ``Omega = (1 + |GHZ+><GHZ+| -
    |GHZ-><GHZ-|) / 2``, a real (2**P, 2**P) array (worker j = bit j, little endian), P in 2..10.
    Eigenvalues 1 (``|GHZ+>``), 1/2 and 0 (``|GHZ->``): ``P(pass) = (1 + F+ - F-)/2``, hence
    the **fidelity witness** ``F >= 1 - 2 P(fail)`` (tight when ``<GHZ-|rho|GHZ-> = 0``);
    spectral gap 1/2.

    Examples
    --------
    >>> sorted({float(v) for v in np.round(np.linalg.eigvalsh(ghz_test_operator(3)), 12)})
    [0.0, 0.5, 1.0]
    """
    workers = check_int(workers, "workers", 2, MAX_WITNESS_WORKERS)
    plus, minus = _ghz_pair(workers)
    return (np.eye(1 << workers) + np.outer(plus, plus) - np.outer(minus, minus)) / 2.0


def _as_state(state, name: str = "state") -> tuple[np.ndarray, int]:
    """A density matrix of P qubits (from a vector or a matrix) and its P."""
    rho = as_density_matrix(state, name)
    workers = rho.shape[0].bit_length() - 1
    if rho.shape[0] != 1 << workers or not 2 <= workers <= MAX_WITNESS_WORKERS:
        raise ValueError(
            f"{name} must be a state of P qubits, 2 <= P <= {MAX_WITNESS_WORKERS} (dimension "
            f"2**P), got dimension {rho.shape[0]}"
        )
    return rho, workers


def ghz_state_pass_probability(state) -> float:
    """Probability that the GHZ test passes on a P-qubit state (vector or density matrix, P in
    2..10), averaged over the settings from Pauli expectations (independent of
    :func:`ghz_test_operator`, so the two check each other).

    Examples
    --------
    >>> ghz = np.zeros(8); ghz[[0, 7]] = 2 ** -0.5
    >>> ghz_state_pass_probability(ghz), ghz_state_pass_probability(np.eye(4) / 4)
    (1.0, 0.5)
    """
    rho, workers = _as_state(state)
    dim = 1 << workers
    idx = np.arange(dim)
    anti = rho[idx, idx ^ (dim - 1)]  # <x| rho |x bar>
    odd = np.array([int(v).bit_count() & 1 for v in idx], dtype=bool)
    passes = []
    for y in (y for y in range(dim) if y.bit_count() % 2 == 0):  # y: the Y's, as a bit mask
        sign = (-1) ** (y.bit_count() // 2)
        # sigma|x> = i**2m (-1)**|Y cap S_x| |x bar>: tr(rho sigma) = sum_x c(x) <x|rho|x bar>
        expectation = sign * np.sum(np.where(odd[y & idx], -1.0, 1.0) * anti)
        passes.append((1.0 + sign * expectation.real) / 2.0)
    return float(np.mean(passes))


def ghz_fidelity(state) -> float:
    """``F = <GHZ+|rho|GHZ+>`` for a P-qubit state (vector or density matrix; P in 2..10).

    Examples
    --------
    >>> round(ghz_fidelity(np.eye(4) / 4), 12)
    0.25
    """
    rho, workers = _as_state(state)
    plus, _ = _ghz_pair(workers)
    return float(np.real(plus @ rho @ plus))


@result
class GHZWitness:
    """What a GHZ-test failure probability p certifies about one copy (:func:`ghz_witness`):
    ``fidelity_bound = max(0, 1 - 2 p)`` and ``distance_bound = min(1, sqrt(2 p))``, a bound on
    the trace distance from ``|GHZ+>`` (``D <= sqrt(1 - F)``, Fuchs–van de Graaf for a pure
    target), hence on how far any statistics of the copy, its transcript included, can move.

    Examples
    --------
    >>> ghz_witness(0.02)
    GHZWitness(fail_probability=0.02, fidelity_bound=0.96, distance_bound=0.2)
    """

    fail_probability: float
    fidelity_bound: float
    distance_bound: float


def ghz_witness(fail_probability: float) -> GHZWitness:
    """The bounds that an exact GHZ-test failure probability implies (an estimate from a finite
    sample is not covered).

    Examples
    --------
    >>> ghz_witness(0.005).fidelity_bound
    0.99
    """
    p = check_float(fail_probability, "fail_probability", 0.0, 1.0)
    return GHZWitness(p, max(0.0, 1.0 - 2.0 * p), min(1.0, math.sqrt(2.0 * p)))


# -- The finite-copy guarantee (Zhu & Hayashi) -----------------------------------------------
def _check_significance(significance) -> float:
    return check_float(significance, "significance", 1e-300, 1.0, hi_open=True)


def ghz_verified_infidelity(n_tests: int, significance: float) -> float:
    """Infidelity that ``n_tests`` passed GHZ tests guarantee for one untested copy against an
    adversarial source: ``eps(N, delta) = min{1, (1 - delta)/(nu delta N), 1/(delta (N + 1))}``,
    ``nu = 1/2`` (H. Zhu and M. Hayashi, PRL 123, 260504 and PRA 100, 062335 (2019); Phys. Rev.
    Applied 12, 054047 (2019), Eqs. (26) and (C37)): for *any* state of N + 1 systems, randomly
    permuted, N tested, the last kept (state sigma given N passes, which occur with probability
    at least delta), ``1 - <psi|sigma|psi> <= eps``. The GHZ test ({1, 1/2, 0}) and a register's
    test ({1, 1/2, ..., 2**-b, 0}) both have nu = 1/2; N counts tested registers. It covers one
    random untested copy only, **not** all used copies jointly, the privacy of every entry (a
    fidelity ``1 - eps`` copy can leak up to ``sqrt(eps)``, :func:`rotated_ghz_leak`), dishonest
    workers in the tests, the sum's integrity, composability.

    Examples
    --------
    >>> round(ghz_verified_infidelity(400, 0.05), 4)  # T = 400 tested registers, delta = 5%
    0.0499
    """
    n = check_int(n_tests, "n_tests", 1)
    delta = _check_significance(significance)
    nu = GHZ_TEST_SPECTRAL_GAP
    return float(min(1.0, (1.0 - delta) / (nu * delta * n), 1.0 / (delta * (n + 1))))


def ghz_verification_tests(infidelity: float, significance: float) -> int:
    """Passed tests needed to verify one untested copy within ``infidelity`` at ``significance``:
    ``min{ceil((1 - delta)/(nu delta eps)), ceil(1/(delta eps) - 1)}``, nu = 1/2 (the lower end
    of Zhu & Hayashi's range; what it covers: :func:`ghz_verified_infidelity`).

    Examples
    --------
    >>> ghz_verification_tests(0.01, 0.01)
    9999
    """
    eps = check_float(infidelity, "infidelity", 0.0, 1.0, lo_open=True, hi_open=True)
    delta = _check_significance(significance)
    if delta * eps < 1e-300:
        raise ValueError(f"infidelity {eps:g} at significance {delta:g} needs over 1e300 tests")
    first = math.ceil((1.0 - delta) / (GHZ_TEST_SPECTRAL_GAP * delta * eps) - 1e-9)
    return max(1, min(first, math.ceil(1.0 / (delta * eps) - 1.0 - 1e-9)))


# -- Soundness of the sampling ---------------------------------------------------------------
def _log_comb(n, k):
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def _counts(n_copies, test_fraction, bad_fraction, cap=MAX_EPSILON_COPIES):
    """``(N, T, j_min)``: ``T = ceil(f N)`` and ``j_min`` the fewest bad used copies that exceed
    ``bad_fraction * (N - T)``."""
    n = check_int(n_copies, "n_copies", 1, cap)
    f = check_float(test_fraction, "test_fraction", 0.0, 1.0, hi_open=True)
    beta = check_float(bad_fraction, "bad_fraction", 0.0, 1.0, hi_open=True)
    t = min(n, math.ceil(f * n - 1e-9))
    return n, t, math.floor(beta * (n - t) + 1e-12) + 1


def _cheat(n: int, t: int, bad: int, j_min: int, detection: float) -> float:
    """``sum_k Hyp(k; N, B, T) (1 - detection)**k`` over ``B - k >= j_min`` (k tested bad)."""
    ks = np.arange(max(0, bad - (n - t)), min(bad, t, bad - j_min) + 1)
    if ks.size == 0:
        return 0.0
    log_h = _log_comb(bad, ks) + _log_comb(n - bad, t - ks) - _log_comb(n, t)
    log_pass = ks * math.log1p(-detection) if detection < 1 else np.where(ks == 0, 0.0, -np.inf)
    return float(np.exp(log_h + log_pass).sum())


def _detection(detection, function: str) -> float:
    if detection is None:
        raise TypeError(
            f"{function}() needs detection=...: the probability that testing one bad "
            "register-copy exposes it; it depends on the attack and on P, so there is no "
            "default: take it from qring_edu.vga_security.detection_probability(attack, workers, "
            "bits=bits)"
        )
    return check_float(detection, "detection", 0.0, 1.0)


def vga_cheat_probability(n_copies, test_fraction, bad_copies, bad_fraction, *, detection=None):
    """Probability that a source planting ``bad_copies`` bad copies among ``n_copies`` passes every
    test *and* more than ``bad_fraction`` of the used copies are bad:
    ``sum_k Hyp(k; N, B, T) (1 - detection)**k`` over ``B - k > bad_fraction (N - T)``,
    ``T = ceil(f N)``. ``detection`` (required): :func:`detection_probability`. N <= 100 000.

    Examples
    --------
    >>> vga_cheat_probability(2, 0.5, 1, 0.0, detection=1.0)  # the bad copy is used w.p. 1/2
    0.5
    """
    n, t, j_min = _counts(n_copies, test_fraction, bad_fraction)
    bad = check_int(bad_copies, "bad_copies", 0, n)
    return _cheat(n, t, bad, j_min, _detection(detection, "vga_cheat_probability"))


def vga_epsilon(n_copies, test_fraction, bad_fraction, *, detection=None) -> float:
    """Soundness error: the largest probability, over the number B of bad copies the source
    plants, that every test passes while more than ``bad_fraction`` of the used copies are bad:
    ``max_B sum_k Hyp(k; N, B, T) (1 - detection)**k [B - k > bad_fraction (N - T)]``, with N
    register-copies, ``T = ceil(f N)`` tested at random and each tested bad copy exposed
    *independently* with probability ``detection``, the attack class's *minimum* (required;
    :func:`detection_probability`: 1/4 for a split worker, the floor of every certain leak).
    Exact, by branch and bound over B with Chernoff bounds (Hoeffding 1963). N <= 100 000. Not
    covered: module docstring. With ``bad_fraction = 0`` it never falls below about ``1 - f``
    (:func:`vga_epsilon_floor`).

    Examples
    --------
    >>> f"{vga_epsilon(800, 0.5, 0.1, detection=7 / 16):.3e}"
    '7.144e-08'
    """
    n, t, j_min = _counts(n_copies, test_fraction, bad_fraction)
    delta = _detection(detection, "vga_epsilon")
    if j_min > n - t:
        return 0.0
    if delta == 1.0:  # only an untested plant passes: fewest bad copies is best
        return _cheat(n, t, j_min, j_min, delta)
    bad, log_ub = _log_cheat_bounds(n, t, j_min, delta)
    best = 0.0
    for i in np.argsort(-log_ub):
        if log_ub[i] <= (math.log(best) if best > 0 else -745.2):  # exp(-745.2) rounds to 0
            break
        best = max(best, _cheat(n, t, int(bad[i]), j_min, delta))
    return min(best, 1.0)


def _log_cheat_bounds(n: int, t: int, j_min: int, delta: float):
    """``(B, log bound)`` for ``B = j_min .. N``: Chernoff bounds on :func:`_cheat`, from the
    tested side (``K <= B - j_min``) and from the used side (``J = B - K >= j_min``), each with
    the optimal exponent; the binomial mgf bounds the hypergeometric one (Hoeffding 1963)."""
    u, keep = n - t, math.log1p(-delta)
    bad = np.arange(j_min, n + 1)
    p, m = bad / n, np.minimum(bad - j_min, t).astype(float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = np.where(m >= t, 1 - delta, np.minimum(m * (1 - p) / (p * (t - m)), 1 - delta))
        tested = m * (keep - np.log(z)) + t * np.log1p(-p * (1 - z))
        w = np.maximum(j_min * (1 - p) / (p * (u - j_min)), 1 / (1 - delta))
        used = (bad - j_min) * keep - j_min * np.log(w) + u * np.log1p(p * (w - 1))
        bound = np.fmin(tested, used)
    return bad, np.where(np.isnan(bound), np.inf, bound)  # no bound: evaluate exactly


def vga_epsilon_floor(n_copies, test_fraction, bad_fraction) -> float:
    """A lower bound on :func:`vga_epsilon` for *every* detection: the source plants the fewest
    bad copies that exceed the threshold, ``B* = floor(bad_fraction * U) + 1``, and with
    probability ``C(N - B*, T)/C(N, T)`` none of them is tested (equality at detection 1). With
    ``bad_fraction = 0``: ``(N - T)/N``, 1/2 at f = 1/2 whatever N. O(1).

    Examples
    --------
    >>> [vga_epsilon_floor(n, 0.5, 0.0) for n in (2, 200, 20000)]
    [0.5, 0.5, 0.5]
    """
    n, t, b_star = _counts(n_copies, test_fraction, bad_fraction, cap=None)
    if b_star > n - t:
        return 0.0
    if b_star <= 64:  # C(N - B, T) / C(N, T) = prod_{i < B} (U - i) / (N - i)
        return float(math.prod((n - t - i) / (n - i) for i in range(b_star)))
    return float(np.exp(_log_comb(n - b_star, t) - _log_comb(n, t)))


def amplified_leak_probability(n_copies: int, bad_copies: int, amplification: int) -> float:
    """Probability that one entry leaks under privacy amplification (all k of its secretly
    assigned registers attacked, B of N): ``C(B, k)/C(N, k) = prod_{i<k} (B - i)/(N - i)``, about
    ``beta**k`` (also the expected fraction of leaked entries, unconditioned on the verdict).

    Examples
    --------
    >>> [round(amplified_leak_probability(1000, 250, k), 5) for k in (1, 2, 3)]
    [0.25, 0.06231, 0.01548]
    """
    n = check_int(n_copies, "n_copies", 1)
    b = check_int(bad_copies, "bad_copies (<= n_copies)", 0, n)
    k = check_int(amplification, "amplification (<= n_copies)", 1, min(n, MAX_AMPLIFICATION))
    return float(math.prod((b - i) / (n - i) for i in range(k)))


# -- Exact transcript laws: partially bad copies, distance from the ideal transcript ---------
def vga_outcome_probabilities(x, bits: int, *, flips=None, pads=None) -> dict:
    """Exact law of the announcements ``(m_0, ..., m_{P-1})`` of one entry, from the state vector
    of :func:`qring_edu.vga.vga_circuit` (Qiskit ``Statevector``; ``flips``, ``pads`` as there);
    keys are tuples of ints, zero entries omitted.

    Examples
    --------
    >>> probs = vga_outcome_probabilities([1, 2, 3], bits=2)
    >>> len(probs), {sum(m) % 4 for m in probs}, round(max(probs.values()), 6)
    (16, {2}, 0.0625)
    """
    from qiskit.quantum_info import Statevector

    bits = check_bits(bits)
    qc = vga_circuit(x, bits, flips=flips, pads=pads, measure=False)
    probs = np.abs(Statevector(qc).data) ** 2
    P, mask = qc.num_qubits // bits, (1 << bits) - 1
    return {
        tuple(int((i >> (bits * j)) & mask) for j in range(P)): float(probs[i])
        for i in np.flatnonzero(probs > 1e-12)
    }


def vga_state_outcome_probabilities(state, x, bits: int) -> np.ndarray:
    """Exact law of the announcements of one entry when the registers are in an arbitrary pure
    ``state`` (NumPy; no Qiskit): float (``2**(P b)``,), transcript ``m`` at ``sum_j m_j 2**(b j)``.
    ``state``: length ``2**(P b)``, index ``sum_j g_j 2**(b j)`` (as in
    :func:`qring_edu.vga.vga_circuit`); worker j applies ``w**(x_j g)`` and the inverse QFT
    ``|g> -> 2**(-b/2) sum_m w**(-m g) |m>``. ``bits`` in 1..12, ``P b <= 12``.

    Examples
    --------
    >>> ghz = np.zeros(16); ghz[[0, 5, 10, 15]] = 0.5  # P = 2, b = 2: sum_g |g>|g> / 2
    >>> p = vga_state_outcome_probabilities(ghz, [1, 2], 2)
    >>> sorted({(int(k) & 3, int(k) >> 2) for k in np.flatnonzero(p > 1e-12)})  # sum 3 mod 4
    [(0, 3), (1, 2), (2, 1), (3, 0)]
    """
    bits = check_int(bits, "bits", 1, MAX_EXACT_QUBITS)
    xs = [check_int(v, "x") for v in np.ravel(x)]
    workers = len(xs)
    if workers < 2 or workers * bits > MAX_EXACT_QUBITS:
        raise ValueError(
            f"x must name P >= 2 workers with P * bits <= {MAX_EXACT_QUBITS}, got P = "
            f"{workers}, bits = {bits}"
        )
    psi = np.asarray(state).reshape(-1)
    norm = np.linalg.norm(psi) if psi.dtype.kind in "iufc" else np.nan
    if psi.size != 1 << (workers * bits) or not abs(norm - 1) <= 1e-6:
        raise ValueError(
            f"state must be a unit vector of length 2**(P*bits) = {1 << (workers * bits)}, "
            f"got length {psi.size}"
        )
    q = 1 << bits
    g = np.arange(q)
    w = np.exp(2j * np.pi / q)
    dft = w ** (-np.outer(g, g) % q) / math.sqrt(q)
    tensor = psi.reshape((q,) * workers)  # axis 0 is worker P-1 (the most significant)
    for j, xj in enumerate(xs):
        axis = workers - 1 - j
        shape = [1] * workers
        shape[axis] = q
        tensor = tensor * (w ** ((xj * g) % q)).reshape(shape)
        tensor = np.moveaxis(np.tensordot(dft, tensor, axes=([1], [axis])), 0, axis)
    return (np.abs(tensor) ** 2).reshape(-1)


def _ideal_transcript(x, bits: int) -> np.ndarray:
    """Uniform law on the transcripts with ``sum_j m_j = sum_j x_j mod 2**bits``."""
    q = 1 << bits
    codes = np.arange(1 << (len(x) * bits))
    sums = sum((codes >> (bits * j)) & (q - 1) for j in range(len(x))) % q
    ideal = (sums == sum(int(v) for v in x) % q).astype(float)
    return ideal / ideal.sum()


def _product_register_state(qubit_states, workers: int, bits: int) -> np.ndarray:
    """P registers of b qubits from b P-qubit states (qubit GHZ i <- ``qubit_states[i]``, index
    ``sum_j bit_j 2**j``; worker j's qubit i sits at position ``b j + i``)."""
    idx = np.arange(1 << (workers * bits))
    psi = np.ones(idx.size, dtype=complex)
    for i, s in enumerate(qubit_states):
        psi *= np.asarray(s)[sum(((idx >> (bits * j + i)) & 1) << j for j in range(workers))]
    return psi


@result
class RotatedGHZLeak:
    """A partially bad copy and what it leaks (:func:`rotated_ghz_leak`): ``angle`` theta
    (radians), ``workers`` P, ``bits`` b; ``fidelity = cos(theta)**2``,
    ``trace_distance = |sin theta|``, ``fail_probability = sin(theta)**2 / 2`` (the witness
    bound attained); ``leak``: the largest total-variation distance, over the entry's inputs, of
    the transcript law from the ideal; ``witness``: :class:`GHZWitness` of ``fail_probability``
    (``leak <= trace_distance <= distance_bound``).

    Examples
    --------
    >>> rotated_ghz_leak(0.1)
    RotatedGHZLeak(angle=0.1, workers=2, bits=1, fidelity=0.99, trace_distance=0.09983, fail_probability=0.004983, leak=0.07273, witness=GHZWitness(fail_probability=0.004983, fidelity_bound=0.99, distance_bound=0.09983))
    """

    angle: float
    workers: int
    bits: int
    fidelity: float
    trace_distance: float
    fail_probability: float
    leak: float
    witness: GHZWitness


def rotated_ghz_state(angle: float, workers: int) -> np.ndarray:
    """``cos(theta) |GHZ+> + sin(theta) |1 0 .. 0>`` (worker 0's qubit flipped), a P-qubit vector:
    the test fails with probability ``sin(theta)**2 / 2 = (1 - F)/2`` (the witness is tight).
    After McCutcheon et al., Nat. Commun. 7, 13251 (2016); the family is this library's own.

    Examples
    --------
    >>> psi = rotated_ghz_state(0.1, 2)
    >>> round(ghz_fidelity(psi), 6), round(1 - ghz_state_pass_probability(psi), 6)
    (0.990033, 0.004983)
    """
    theta = check_float(angle, "angle", -math.pi, math.pi)
    workers = check_int(workers, "workers", 2, MAX_WITNESS_WORKERS)
    plus, _ = _ghz_pair(workers)
    return math.cos(theta) * plus + math.sin(theta) * (np.arange(1 << workers) == 1)


def rotated_ghz_leak(angle: float, workers: int = 2, bits: int = 1) -> RotatedGHZLeak:
    """Exact leak and detection of a register whose qubit GHZ ``b - 1`` is
    :func:`rotated_ghz_state` (the others ideal): leaks ~ t, fails ~ t**2/2 (P = 2, b = 1:
    ``t = theta``, leak about ``t/sqrt 2``). :func:`vga_epsilon` does not cover such a copy; the
    witness bounds it only as ``leak <= t <= sqrt(2 P(fail))``. ``P * bits <= 10``.

    Examples
    --------
    >>> r = rotated_ghz_leak(0.1)
    >>> round(r.trace_distance, 4), round(r.fail_probability, 5), round(r.leak, 4)
    (0.0998, 0.00498, 0.0727)
    """
    theta = check_float(angle, "angle", -math.pi, math.pi)
    workers = check_int(workers, "workers", 2, MAX_WITNESS_WORKERS)
    bits = check_int(bits, "bits", 1, MAX_EXACT_QUBITS)
    if workers * bits > 10:
        raise ValueError(
            f"rotated_ghz_leak enumerates every input: needs P * bits <= 10, got P = "
            f"{workers}, bits = {bits}"
        )
    plus, _ = _ghz_pair(workers)
    rotated = rotated_ghz_state(theta, workers)
    psi = _product_register_state([plus] * (bits - 1) + [rotated], workers, bits)
    fidelity = float(abs(np.vdot(plus, rotated)) ** 2)
    fail = 1.0 - ghz_state_pass_probability(rotated)
    leak = 0.0
    for x in np.ndindex(*(1 << bits,) * workers):
        real = vga_state_outcome_probabilities(psi, x, bits)
        leak = max(leak, 0.5 * float(np.abs(real - _ideal_transcript(x, bits)).sum()))
    distance = math.sqrt(max(0.0, 1.0 - fidelity))
    return RotatedGHZLeak(theta, workers, bits, fidelity, distance, fail, leak, ghz_witness(fail))


def _zero_sum_tuples(workers: int, bits: int) -> np.ndarray:
    """Every pad tuple with zero sum mod 2**b: int64 (2**(b(P-1)), P)."""
    q = 1 << bits
    free = np.array(np.unravel_index(np.arange(q ** (workers - 1)), (q,) * (workers - 1))).T
    return np.column_stack([free, (-free.sum(axis=1)) % q]).astype(np.int64)


def transcript_distance(
    x,
    bits: int,
    *,
    source=Honest(),  # noqa: B008  (a frozen value)
    amplification: int = 1,
    method: str = "exact",
) -> float:
    """Total-variation distance of one entry's transcript, jointly with what the attacker holds,
    from the ideal (the sum and nothing else): ``q**k (1 - 2**(-b(P-1)))``.

    Inputs ``x`` (P words mod ``2**bits``); the pad is the sum of k = ``amplification``
    registers' pads, each register attacked independently with probability q (``source``:
    :class:`~qring_edu.vga.Honest`, q = 0; :class:`~qring_edu.vga.KnownPads`,
    :class:`~qring_edu.vga.Eavesdropper`: their ``fraction``); the attacker holds which it
    attacked and their pads K. Real: the law of ``(m, K)``, ``m_j = x_j + r_j``; ideal: m uniform
    on ``{m : sum m = sum x}``, independent of K. ``method``: ``"exact"`` enumerates every pad
    tuple (at most ``2**16`` combinations) and attack pattern; ``"closed_form"``, the formula.

    Examples
    --------
    >>> from qring_edu.vga import Eavesdropper
    >>> transcript_distance([1, 2, 3], 2, source=Eavesdropper(0.5), amplification=2)
    0.234375
    """
    bits = check_int(bits, "bits", 1, MAX_EXACT_QUBITS)
    xs = [check_int(v, "x") % (1 << bits) for v in np.ravel(x)]
    workers = len(xs)
    if workers < 2:
        raise ValueError(f"x must name P >= 2 workers, got {workers}")
    if source == "honest":
        source = Honest()
    if type(source) not in TRANSCRIPT_SOURCES:
        raise TypeError(f"source must be Honest(), KnownPads() or Eavesdropper(), got {source!r}")
    k = check_int(amplification, "amplification", 1, MAX_AMPLIFICATION)
    method = check_choice(method, "method", ("exact", "closed_form"))
    q = getattr(source, "fraction", 0.0)
    if method == "closed_form":
        return float(q**k * (1.0 - 2.0 ** (-bits * (workers - 1))))
    combinations = (1 << (bits * (workers - 1))) ** k
    if combinations > MAX_EXACT_PADS:
        raise ValueError(
            f"method='exact' enumerates (2**(bits*(P-1)))**amplification = {combinations} pad "
            f"combinations; at most {MAX_EXACT_PADS} (use method='closed_form')"
        )
    pads = _zero_sum_tuples(workers, bits)
    n_ideal = pads.shape[0]  # |S_x| = the number of zero-sum tuples
    tv = 0.0
    for flags in itertools.product((False, True), repeat=k):
        p_flags = math.prod(q if f else 1.0 - q for f in flags)
        if p_flags == 0.0:
            continue
        # The real mass grouped by K (the attacked registers' pads); the ideal mass per K is
        # P(K) / |S_x| on every m of S_x (a real m outside S_x never occurs).
        by_k: dict = {}
        for combo in itertools.product(range(n_ideal), repeat=k):
            m = tuple((np.asarray(xs) + pads[list(combo)].sum(axis=0)) % (1 << bits))
            cell = by_k.setdefault(tuple(c for c, f in zip(combo, flags) if f), {})
            cell[m] = cell.get(m, 0.0) + p_flags / n_ideal**k
        for cell in by_k.values():
            ideal = sum(cell.values()) / n_ideal
            tv += sum(abs(v - ideal) for v in cell.values()) + ideal * (n_ideal - len(cell))
    return float(tv / 2.0)
