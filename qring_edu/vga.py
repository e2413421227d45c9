"""VGA — Verified GHZ Aggregation (protocols layer; book/05_vga.ipynb).

P workers hold b-bit integers ``x_j`` (one per entry of a vector of length d) and want the sum
``sum_j x_j mod 2**b`` without revealing anything else, using an *untrusted* GHZ source and an
authenticated public broadcast channel.

Resource and bit order
----------------------
A GHZ state over Z_{2^b} is ``2**(-b/2) sum_g |g>|g>...|g>`` (one b-qubit register per worker);
it is b qubit GHZ states side by side: qubit ``i`` of every register (weight ``2**i``, little
endian, as in Qiskit) belongs to qubit-GHZ number ``i``. One register-copy therefore costs b qubit
GHZ copies; ``ghz_used``/``ghz_tested`` count qubit GHZ copies.

Aggregation (phase form)
------------------------
Worker j applies ``Z^{x_j}``: ``|g> -> w^{x_j g}`` with ``w = exp(2 pi i / 2**b)``, i.e. the phase
``exp(2 pi i x_j 2**i / 2**b)`` on ``|1>`` of its qubit i; then it measures in the Fourier basis
``F|m> = 2**(-b/2) sum_g w^{m g}|g>`` (inverse QFT, then the computational basis) and broadcasts
``m_j``. The outcome is uniform on ``{m : sum_j m_j = sum_j x_j mod 2**b}``: everybody learns the
sum, and the announcements are a uniformly random split of it.

Pads form
---------
Measuring first (no phases) gives zero-sum pads ``r_j`` (uniform with ``sum r_j = 0``); announcing
``x_j + r_j`` has exactly the same distribution. Masked values can also travel through the
superdense ring (:func:`vga_ring_allreduce`).

Verification (GHZ test after Pappa et al. 2012)
-----------------------------------------------
The source delivers ``N`` register-copies; using randomness drawn after delivery the workers pick a
secret uniformly random subset of ``T`` of them to test and use the other ``N - T`` for the entries
(in delivery order). Every qubit GHZ of a tested register is tested: each worker measures X or Y,
with a uniformly random even-weight choice of Y's (2m of them); the test passes iff the XOR of the
outcome bits is ``m mod 2``. An ideal GHZ always passes. The protocol accepts iff the number of
failed tests is at most ``tolerance * tests``. Reconstructed details (not in the paper summary):
the split is over register-copies (a register is what a pad needs), ``N = ceil(d / (1 - f))`` so
that exactly d registers are used and ``T = N - d`` tested, and the tolerance rule.

Sources
-------
``"honest"``: ideal GHZ registers. ``"noisy"``: each qubit GHZ independently dephased with
probability ``noise`` (it arrives as ``(|0..0> - |1..1>)/sqrt 2``: such a copy fails every test and
shifts the sum). ``"known_pads"``: product states ``F|r_1> ... F|r_P>`` with zero-sum pads the
source chose, on every copy: sums stay right, ``m_j - r_j = x_j`` leaks every input, and each
test fails with probability ``(1 - 2**(1-P)) / 2`` (about one half). ``"eavesdropper"``: on a
fraction ``eavesdrop_fraction`` of the copies the source sends ``sum_r |F r_1..F r_P>|r>_E`` and
keeps E; the workers' reduced state is then the known-pads mixture (same statistics), and measuring
E later gives the attacker those pads. ``"known_pads"`` with ``attack_fraction`` attacks only that
fraction of the copies.

Privacy amplification
---------------------
``vga_aggregate(..., amplification=k)``: each entry's pad is the sum of the pads of k used
registers, assigned by a secret random permutation drawn after delivery; an entry leaks only if
all k are bad (:func:`amplified_leak_probability`, about ``beta**k``). k-fold GHZ copies.

What is proven here, and what is not
------------------------------------
* Privacy of the ideal protocol: with genuine GHZ registers the transcript is uniform on the
  tuples with the right sum (exactly: :func:`transcript_distance` is 0), against a coalition of up
  to P - 2 workers and an eavesdropper on every link.
* Detection, attack by attack (:func:`detection_probability`): per tested register
  ``1 - (1 - delta_P)**k`` for known pads / an eavesdropper on k of its b qubit GHZ states
  (``delta_P = (1 - 2**(1-P))/2 < 1/2``), at least 1/4 for every attack that lets the source
  predict a worker's pad digit with certainty (attained by a split worker), 1 for dephasing.
* Soundness of the sampling (:func:`vga_epsilon`): for sources whose bad registers are bad
  *independently*, each exposed with probability at least ``detection`` when tested, the
  probability of accepting while more than a fraction beta of the used registers are bad. With
  beta = 0 it never falls below about 1 - f (:func:`vga_epsilon_floor`: 1/2 at f = 1/2).
* The test is a fidelity witness: ``F >= 1 - 2 P(fail)`` for every state
  (:func:`ghz_test_operator`), and against *any* source (entangled across copies)
  N passed register tests guarantee, at significance delta, fidelity ``1 - eps(N, delta)`` for
  the reduced state of one random untested register (:func:`ghz_verified_infidelity`, after
  Zhu & Hayashi 2019).

Not covered: composable security (no simulator, no statement about the pads used inside a larger
protocol); partially bad copies (trace distance t leaks ~t but fails only ~t**2/2,
:func:`rotated_ghz_leak`), which the sampling bound misses and the witness bounds only by
``sqrt(2 P(fail))``; attacks correlated across copies (except through the single-copy fidelity
guarantee); all used copies jointly; dishonest workers taking part in the tests (lying about
outcomes or settings); the integrity of the sum (a source can shift sums, as dephasing does);
the authenticity of the classical channel (assumed).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import gammaln

from ._validate import (
    as_numeric_array,
    check_bits,
    check_choice,
    check_float,
    check_int,
    check_seed,
)
from .fixedpoint import to_signed, word_mask
from .holevo import as_density_matrix
from .ring import AllReduceResult, ring_allreduce

__all__ = [
    "SOURCES",
    "DETECTION_ATTACKS",
    "TRANSCRIPT_SOURCES",
    "VGAResult",
    "VGALedger",
    "VGARingResult",
    "GHZWitness",
    "RotatedGHZLeak",
    "vga_aggregate",
    "vga_ring_allreduce",
    "vga_epsilon",
    "vga_epsilon_floor",
    "vga_cheat_probability",
    "vga_copy_counts",
    "amplified_leak_probability",
    "known_pads_detection",
    "register_detection",
    "detection_probability",
    "ghz_test_operator",
    "ghz_state_pass_probability",
    "ghz_fidelity",
    "ghz_witness",
    "ghz_verified_infidelity",
    "ghz_verification_tests",
    "rotated_ghz_state",
    "rotated_ghz_leak",
    "vga_state_outcome_probabilities",
    "transcript_distance",
    "zero_sum_pads",
    "even_y_settings",
    "ghz_test_pass_probability",
    "sample_sum_shift",
    "vga_circuit",
    "ghz_test_circuit",
    "vga_aggregate_qiskit",
    "vga_outcome_probabilities",
]

SOURCES = ("honest", "noisy", "known_pads", "eavesdropper")
#: Defaults of the source parameters (used when the keyword is left as None).
DEFAULT_NOISE = 0.02
DEFAULT_EAVESDROP_FRACTION = 0.25
#: Qiskit path limits: P * b qubits per circuit.
MAX_CIRCUIT_QUBITS = 16
#: vga_epsilon scans every number of bad copies; keep the scan bounded.
MAX_EPSILON_COPIES = 100_000
#: Largest privacy amplification (registers summed into one entry's pad).
MAX_AMPLIFICATION = 64


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VGAResult:
    """Outcome of :func:`vga_aggregate`.

    ``total``: int64 (d,), the aggregate ``sum_j m_j mod 2**bits`` as signed two's complement.
    ``transcript``: int64 (P, d), the values ``m_j`` broadcast, in ``0 .. 2**bits - 1``.
    ``accepted``: the verification verdict (``tests_failed <= tolerance * tests``).
    ``ghz_used`` / ``ghz_tested``: qubit GHZ copies consumed by the entries / spent on tests
    (``bits`` per register-copy). ``tests_passed`` / ``tests_failed``: qubit GHZ tests.
    ``n_copies`` / ``n_tested``: register-copies delivered / tested.
    ``bad_used`` / ``bad_tested``: attacked or dephased register-copies among those used / tested.
    ``attacker_guess``: int64 (P, d), the source's guess of every input (signed): ``m_j`` minus
    the pad where it holds the pads (exact), the bare ``m_j`` (uniform, independent of the
    input: accuracy ``2**-bits`` on average) elsewhere. ``guess_words``: the same as uint32 words.
    ``attacker_knows``: bool (d,), entries whose pads the source holds (with privacy
    amplification: every one of the entry's k pads). ``amplification``: k, registers per entry.
    ``attacker_accuracy``: fraction of the inputs the source's guess gets right.

    Attributes
    ----------
    total : numpy.ndarray of int64, shape (d,)
    transcript : numpy.ndarray of int64, shape (P, d)
    accepted : bool
    source : str
    bits : int
    test_fraction, tolerance, attacker_accuracy : float
    n_copies, n_tested, tests_passed, tests_failed, bad_used, bad_tested, amplification : int
    guess_words : numpy.ndarray of uint32, shape (P, d)
    attacker_knows : numpy.ndarray of bool, shape (d,)
    attacker_guess : numpy.ndarray of int64, shape (P, d)
    workers, entries, ghz_used, ghz_tested, ghz_delivered, tests : int
        ``P``, ``d`` and the counts of the properties below.

    Examples
    --------
    Three workers sum 4-bit words; each announcement alone is uniform, the announcements sum to
    the total (mod 16), and half of the delivered register-copies were tested:

    >>> import numpy as np
    >>> from qring_edu import vga_aggregate
    >>> x = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    >>> res = vga_aggregate(x, bits=4, seed=0)
    >>> res
    VGAResult(P=3, d=3, bits=4, source='honest', accepted=True, ghz_used=12, ghz_tested=12, tests_failed=0, attacker_accuracy=0.2222)
    >>> res.total.tolist(), (res.transcript.sum(axis=0) % 16).tolist()
    ([-4, -1, 2], [12, 15, 2])
    >>> res.transcript.tolist()
    [[1, 3, 3], [6, 2, 0], [5, 10, 15]]

    The known-pads source learns every input, and its copies fail the tests:

    >>> bad = vga_aggregate(x, bits=4, source="known_pads", seed=0)
    >>> bad.accepted, bad.tests_failed, bad.attacker_guess.tolist()
    (False, 5, [[1, 2, 3], [4, 5, 6], [7, -8, -7]])
    """

    total: np.ndarray = field(repr=False)
    transcript: np.ndarray = field(repr=False)
    accepted: bool
    source: str
    bits: int
    test_fraction: float
    tolerance: float
    n_copies: int
    n_tested: int
    tests_passed: int
    tests_failed: int
    bad_used: int
    bad_tested: int
    guess_words: np.ndarray = field(repr=False)
    attacker_knows: np.ndarray = field(repr=False)
    attacker_accuracy: float
    amplification: int = 1

    @property
    def attacker_guess(self) -> np.ndarray:
        """The source's guess of every input, int64 (P, d), signed."""
        return to_signed(self.guess_words, self.bits)

    @property
    def workers(self) -> int:
        """``P``, the number of workers."""
        return int(self.transcript.shape[0])

    @property
    def entries(self) -> int:
        """``d``, the entries of each input."""
        return int(self.transcript.shape[1])

    @property
    def ghz_used(self) -> int:
        """Qubit GHZ copies consumed by the aggregation: ``k * d * bits`` (k = amplification)."""
        return (self.n_copies - self.n_tested) * self.bits

    @property
    def ghz_tested(self) -> int:
        """Qubit GHZ copies spent on tests: ``n_tested * bits``."""
        return self.n_tested * self.bits

    @property
    def ghz_delivered(self) -> int:
        """Qubit GHZ copies the source delivered: ``n_copies * bits``."""
        return self.n_copies * self.bits

    @property
    def tests(self) -> int:
        """Qubit GHZ tests run: ``tests_passed + tests_failed``."""
        return self.tests_passed + self.tests_failed

    def __repr__(self) -> str:
        amp = f", amplification={self.amplification}" if self.amplification != 1 else ""
        return (
            f"VGAResult(P={self.workers}, d={self.entries}, bits={self.bits}, "
            f"source={self.source!r}{amp}, accepted={self.accepted}, "
            f"ghz_used={self.ghz_used}, ghz_tested={self.ghz_tested}, "
            f"tests_failed={self.tests_failed}, "
            f"attacker_accuracy={self.attacker_accuracy:.4f})"
        )


@dataclass(frozen=True)
class VGALedger:
    """Combined resources of verified pads + superdense ring (counts; per link = max over links).

    ``ring_online_qubits``, ``ring_ebits``, ``ring_offline_qubits``: from the ring's
    :class:`~qring_edu.Ledger` (maximum over directed links). ``ghz_delivered``, ``ghz_used``,
    ``ghz_tested``: qubit GHZ copies (all workers share each copy; one qubit of it per worker).

    Attributes
    ----------
    workers, ring_online_qubits, ring_ebits, ring_offline_qubits : int
    ghz_delivered, ghz_used, ghz_tested : int

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu import vga_ring_allreduce
    >>> run = vga_ring_allreduce(np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), bits=4, seed=0)
    >>> run.ledger
    VGALedger(workers=3, ring_online_qubits=8, ring_ebits=8, ring_offline_qubits=8, ghz_delivered=24, ghz_used=12, ghz_tested=12)
    """

    workers: int
    ring_online_qubits: int
    ring_ebits: int
    ring_offline_qubits: int
    ghz_delivered: int
    ghz_used: int
    ghz_tested: int

    def as_dict(self) -> dict[str, int]:
        """The counts by name (``workers`` left out)."""
        return {
            "ring_online_qubits": self.ring_online_qubits,
            "ring_ebits": self.ring_ebits,
            "ring_offline_qubits": self.ring_offline_qubits,
            "ghz_delivered": self.ghz_delivered,
            "ghz_used": self.ghz_used,
            "ghz_tested": self.ghz_tested,
        }


@dataclass(frozen=True)
class VGARingResult:
    """Outcome of :func:`vga_ring_allreduce`: the pads' verification, the ring run, the ledger.

    ``total``: int64 (d,), signed sum mod ``2**bits`` (worker 0's copy of the ring output).

    Attributes
    ----------
    vga : VGAResult
        The pads' aggregation and verification.
    ring : qring_edu.AllReduceResult
        The superdense ring run on the masked values.
    ledger : VGALedger
    total : numpy.ndarray of int64, shape (d,)
    accepted : bool
        ``vga.accepted``.

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu import vga_ring_allreduce
    >>> run = vga_ring_allreduce(np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), bits=4, seed=0)
    >>> run
    VGARingResult(P=3, d=3, bits=4, accepted=True, consistent=True, ring_online_qubits=8, ghz_used=12, ghz_tested=12)
    >>> run.total.tolist()            # (12, 15, 18) mod 16, signed
    [-4, -1, 2]
    """

    vga: VGAResult
    ring: AllReduceResult = field(repr=False)
    ledger: VGALedger

    @property
    def total(self) -> np.ndarray:
        """The aggregate, int64 (d,), signed: worker 0's copy of the ring output."""
        return self.ring.outputs[0]

    @property
    def accepted(self) -> bool:
        """The pads passed verification (``vga.accepted``)."""
        return self.vga.accepted

    def __repr__(self) -> str:
        return (
            f"VGARingResult(P={self.vga.workers}, d={self.vga.entries}, bits={self.vga.bits}, "
            f"accepted={self.accepted}, consistent={self.ring.consistent}, "
            f"ring_online_qubits={self.ledger.ring_online_qubits}, "
            f"ghz_used={self.ledger.ghz_used}, ghz_tested={self.ledger.ghz_tested})"
        )


# --------------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------------


def _check_inputs(inputs, bits: int) -> np.ndarray:
    """(P, d) integer words in ``-2**(b-1) .. 2**b - 1`` (signed or unsigned reading) -> int64."""
    arr = as_numeric_array(inputs, "inputs")
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(
            f"inputs must be integers (b-bit words), got dtype {arr.dtype}; encode "
            "floats first, e.g. with qring_edu.fixed_point(P, bits, max_abs).encode"
        )
    if arr.ndim != 2:
        raise ValueError(f"inputs must be 2-D with shape (P, d), got shape {arr.shape}")
    P, d = arr.shape
    if P < 2:
        raise ValueError(
            f"inputs must have P >= 2 rows (workers), got P = {P}: privacy needs at "
            "least two honest workers (a lone worker's announcement is its input)"
        )
    if d < 1:
        raise ValueError(f"inputs must have d >= 1 columns (entries), got d = {d}")
    lo, hi = -(1 << (bits - 1)), (1 << bits) - 1
    if arr.dtype == np.uint64 and arr.size and int(arr.max()) > hi:
        raise ValueError(f"inputs must be {bits}-bit words in {lo}..{hi}, got {int(arr.max())}")
    arr = arr.astype(np.int64, copy=False)
    if arr.size and (int(arr.min()) < lo or int(arr.max()) > hi):
        bad = int(arr.min()) if int(arr.min()) < lo else int(arr.max())
        raise ValueError(
            f"inputs must be {bits}-bit words in {lo}..{hi} (signed or unsigned), got {bad}"
        )
    return arr


def _check_fraction(value, name: str) -> float:
    return check_float(value, name, 0.0, 1.0, hi_open=True)


def vga_copy_counts(
    entries: int, test_fraction: float, *, amplification: int = 1
) -> tuple[int, int]:
    """Register-copies delivered and tested for ``entries`` entries: ``(N, T)``.

    With ``U = k d`` used registers (``k = amplification`` registers per entry),
    ``N = ceil(U / (1 - f))`` and ``T = N - U`` (so ``T = ceil(f N)``): exactly U copies are
    used. With the default ``f = 1/2`` and ``k = 1``, ``N = 2 d``: the 2x overhead.

    Examples
    --------
    >>> vga_copy_counts(400, 0.5), vga_copy_counts(400, 0.5, amplification=3)
    ((800, 400), (2400, 1200))
    """
    entries = check_int(entries, "entries", 1)
    f = _check_fraction(test_fraction, "test_fraction")
    used = entries * check_int(amplification, "amplification", 1, MAX_AMPLIFICATION)
    n = max(used, math.ceil(used / (1.0 - f) - 1e-9))
    return n, n - used


def amplified_leak_probability(n_copies: int, bad_copies: int, amplification: int) -> float:
    """Exact probability that one entry leaks under privacy amplification: ``C(B, k)/C(N, k)``.

    The source attacks ``B`` of the ``N`` delivered registers (any B positions it likes); the
    workers' secret split (drawn after delivery) and their secret assignment of the used
    registers to the entries (a uniformly random permutation, also drawn after delivery) make
    the k registers of an entry a uniformly random k-subset of the N. The entry's pad is the sum
    of their k pads, so it is known to the source only if all k are attacked: probability
    ``prod_{i<k} (B - i)/(N - i)`` (about ``beta**k`` with ``beta = B/N``), also the expected
    fraction of leaked entries. Unconditioned on the verdict (the tests still catch the
    attacked copies they hit). Without the secret assignment (entries served in delivery
    order) a source attacking consecutive registers would leak about a fraction beta, whatever
    k.

    Examples
    --------
    >>> [round(amplified_leak_probability(1000, 250, k), 5) for k in (1, 2, 3)]
    [0.25, 0.06231, 0.01548]
    """
    n = check_int(n_copies, "n_copies", 1)
    b = check_int(bad_copies, "bad_copies", 0, n)
    k = check_int(amplification, "amplification", 1, MAX_AMPLIFICATION)
    if k > n:
        raise ValueError(f"amplification must be at most n_copies = {n}, got {k}")
    return float(math.prod((b - i) / (n - i) for i in range(k)))


def _tested_count(n_copies: int, f: float) -> int:
    """``T = ceil(f N)`` (tolerant of float round-off), consistent with :func:`vga_copy_counts`."""
    return min(n_copies, math.ceil(f * n_copies - 1e-9))


# --------------------------------------------------------------------------------------------
# Fast-path building blocks
# --------------------------------------------------------------------------------------------


def zero_sum_pads(
    workers: int, entries: int, bits: int, rng: np.random.Generator, shift: np.ndarray | None = None
) -> np.ndarray:
    """Uniformly random pads ``r`` (uint32, shape (P, d), in ``0..2**bits-1``) with
    ``sum_j r_j = shift mod 2**bits`` per entry (``shift=None``: zero-sum pads).

    Uniform on that set: ``r_0 .. r_{P-2}`` are free and uniform, ``r_{P-1}`` closes the sum.
    Arithmetic wraps modulo ``2**32``, which is exact modulo ``2**bits`` (``bits <= 32``).

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu.vga import zero_sum_pads
    >>> pads = zero_sum_pads(3, 4, 4, np.random.default_rng(0))
    >>> pads.tolist()
    [[13, 10, 8, 4], [4, 0, 1, 0], [15, 6, 7, 12]]
    >>> (pads.sum(axis=0) % 16).tolist()
    [0, 0, 0, 0]
    """

    mask = np.uint32(word_mask(bits))
    r = np.empty((workers, entries), dtype=np.uint32)
    r[:-1] = rng.integers(0, int(mask), size=(workers - 1, entries), dtype=np.uint32, endpoint=True)
    last = np.sum(r[:-1], axis=0, dtype=np.uint32)
    np.negative(last, out=last)  # two's complement: -sum mod 2**32
    if shift is not None:
        last += np.asarray(shift).astype(np.uint32)
    r[-1] = last & mask
    return r


def even_y_settings(n_tests: int, workers: int, rng: np.random.Generator) -> np.ndarray:
    """Random GHZ-test settings: bool (n_tests, P), True = measure Y, uniform on even weights.

    The first ``P - 1`` columns are uniform; the last closes the parity, so every row has an
    even number ``2m`` of Y's.

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu.vga import even_y_settings
    >>> settings = even_y_settings(3, 4, np.random.default_rng(0))
    >>> settings.astype(int).tolist()
    [[0, 1, 1, 0], [1, 1, 0, 0], [0, 1, 1, 0]]
    >>> (settings.sum(axis=1) % 2).tolist()
    [0, 0, 0]
    """
    y = rng.integers(0, 2, size=(n_tests, workers), dtype=np.int8).astype(bool)
    y[:, -1] = np.logical_xor.reduce(y[:, :-1], axis=1)  # close the parity: even number of Y's
    return y


def ghz_test_pass_probability(y_settings, *, phases=None, ghz_phase: float = 0.0) -> np.ndarray:
    """Exact pass probability of GHZ tests with the given settings.

    ``y_settings``: bool (n, P) (or (P,)), an even number of True (= Y) per row; 2m Y's.
    Pass iff XOR of outcome bits = m mod 2, i.e. the +-1 product has sign ``(-1)^m``:
    ``P(pass) = (1 + (-1)^m <prod sigma>) / 2``.

    * GHZ with relative phase theta (``(|0..0> + e^{i theta}|1..1>)/sqrt 2``, ``phases=None``):
      ``<X^{P-2m} Y^{2m}> = (-1)^m cos theta``, so ``P(pass) = (1 + cos theta) / 2``.
    * Product of equator states ``(|0> + e^{i phi_j}|1>)/sqrt 2`` (``phases``: (n, P) or (P,)):
      ``<X> = cos phi``, ``<Y> = sin phi``.

    Returns float64 of shape (n,).

    Examples
    --------
    An ideal GHZ always passes; a quarter turn of its phase passes half the time:

    >>> import numpy as np
    >>> from qring_edu.vga import ghz_test_pass_probability
    >>> ghz_test_pass_probability([[True, True, False], [False, False, False]]).tolist()
    [1.0, 1.0]
    >>> ghz_test_pass_probability([True, True, False], ghz_phase=np.pi / 2).round(6).tolist()
    [0.5]
    """
    y = np.atleast_2d(np.asarray(y_settings, dtype=bool))
    two_m = y.sum(axis=1)
    if np.any(two_m % 2):
        raise ValueError("y_settings must have an even number of Y's in every row")
    sign = np.where((two_m // 2) % 2 == 0, 1.0, -1.0)
    if phases is None:
        return np.full(y.shape[0], (1.0 + math.cos(ghz_phase)) / 2.0)
    phi = np.broadcast_to(np.atleast_2d(np.asarray(phases, dtype=float)), y.shape)
    prod = np.prod(np.where(y, np.sin(phi), np.cos(phi)), axis=1)
    return np.clip((1.0 + sign * prod) / 2.0, 0.0, 1.0)


def known_pads_detection(workers: int) -> float:
    """Probability that one GHZ test fails on a known-pads copy: ``(1 - 2**(1-P)) / 2``.

    Averaged over the random even-weight settings, a product of equator states with phases
    ``phi_j`` passes with probability ``(1 + cos(sum_j phi_j) / 2**(P-1)) / 2``; zero-sum pads make
    ``sum_j phi_j = 0 mod 2 pi`` on every qubit, whatever pads the source picked.

    Examples
    --------
    >>> from qring_edu.vga import known_pads_detection
    >>> known_pads_detection(2), known_pads_detection(3), known_pads_detection(10)
    (0.25, 0.375, 0.4990234375)
    """
    workers = check_int(workers, "workers", 2)
    return (1.0 - 2.0 ** (1 - workers)) / 2.0


def register_detection(workers: int, bits: int) -> float:
    """Probability that testing one known-pads register-copy (b independent qubit GHZ tests)
    finds at least one failure: ``1 - (1 - delta_P)**b``.

    The same as ``detection_probability("known_pads", workers, bits=bits)`` (every qubit GHZ of
    the register attacked); see :func:`detection_probability` for the other attacks.

    Examples
    --------
    ``1 - (1 - 0.375)**4`` for 3 workers and 4-bit registers:

    >>> from qring_edu.vga import register_detection
    >>> register_detection(3, 4)
    0.847412109375
    """
    bits = check_bits(bits)
    return 1.0 - (1.0 - known_pads_detection(workers)) ** bits


#: Attacks whose per-register detection :func:`detection_probability` gives.
DETECTION_ATTACKS = ("known_pads", "eavesdropper", "split_worker", "dephasing")
#: Per-test failure probability of a qubit GHZ copy one of whose workers holds a pure state
#: (product with the others, e.g. ``|+> (x) GHZ_{P-1}``): exactly 1/4 for every P.
SPLIT_WORKER_DETECTION = 0.25


def detection_probability(
    attack: str, workers: int, *, bits: int, attacked_qubits: int | None = None
) -> float:
    """Probability that testing one bad register-copy exposes it, for a given attack.

    A tested register is tested on all its ``b`` qubit GHZ states (independent settings); it is
    exposed if at least one of those tests fails. An attacked qubit GHZ fails its test with
    probability ``delta_1`` (below), an untouched one never, so attacking ``k`` of the ``b``
    qubit GHZ states gives ``1 - (1 - delta_1)**k``. This is the ``detection`` that
    :func:`vga_epsilon` needs: its copies are registers.

    Parameters
    ----------
    attack : "known_pads" | "eavesdropper" | "split_worker" | "dephasing"
        * ``"known_pads"``: on each attacked qubit GHZ the source sends a product of equator
          states with zero-sum phases it chose; ``delta_1 = delta_P = (1 - 2**(1-P))/2``
          (:func:`known_pads_detection`; 1/4 at P = 2, 7/16 at P = 4, below 1/2 for every P).
          ``k = b`` (the default) is the whole-register attack of :func:`vga_aggregate`, which
          leaks the entry; ``k = 1`` on qubit ``b - 1`` (weight ``2**(b-1)``) leaks the lowest
          bit of every input of the entry and is caught with only ``delta_P``.
        * ``"eavesdropper"``: the source keeps a memory entangled with the attacked qubit GHZs;
          the workers' reduced state is the known-pads mixture, so the same numbers.
        * ``"split_worker"``: on each attacked qubit GHZ one worker's qubit is a pure state
          the source chose (e.g. ``|+>``) and the other ``P - 1`` share a GHZ state; on qubit
          ``b - 1`` this gives the source that worker's lowest pad bit, on all ``b`` qubits its
          whole pad (so its input), while the sum stays exact. ``delta_1 = 1/4`` exactly, for
          every P. **This is the minimum** over every attack after which the source can
          predict with certainty a digit of a worker's pad: the lowest digit is the X outcome of
          qubit ``b - 1`` (and every higher digit an equator outcome given the lower ones), so
          conditioned on the source's memory that worker's qubit is pure and in a product with
          the rest; then the copy's fidelity with GHZ is at most 1/2, and by the witness
          ``P(fail) >= (1 - F)/2`` (:func:`ghz_test_operator`) the test fails with probability
          at least 1/4.
        * ``"dephasing"``: a register with at least one phase-flipped qubit GHZ
          ``(|0..0> - |1..1>)/sqrt 2``, which fails every test: detection 1 (``k`` ignored).
    workers : int >= 2
        P.
    bits : int in 2..32
        b, qubit GHZ states per register.
    attacked_qubits : int in 1..bits, optional
        k, attacked qubit GHZ states per bad register. Default: ``bits`` for ``"known_pads"``
        and ``"eavesdropper"`` (the library's sources), 1 for ``"split_worker"``.

    Returns
    -------
    float in (0, 1]. Attacks that change a copy only slightly (trace distance t from GHZ) are
    caught with probability of order t**2 and are *not* in this list: see
    :func:`rotated_ghz_leak`.

    Examples
    --------
    >>> detection_probability("known_pads", 4, bits=8, attacked_qubits=1)
    0.4375
    >>> round(detection_probability("known_pads", 4, bits=8), 4)
    0.99
    >>> detection_probability("split_worker", 4, bits=8)
    0.25
    """
    attack = check_choice(attack, "attack", DETECTION_ATTACKS)
    workers = check_int(workers, "workers", 2)
    bits = check_bits(bits)
    if attacked_qubits is None:
        k = 1 if attack == "split_worker" else bits
    else:
        k = check_int(attacked_qubits, "attacked_qubits", 1, bits)
    if attack == "dephasing":
        return 1.0
    delta_1 = SPLIT_WORKER_DETECTION if attack == "split_worker" else known_pads_detection(workers)
    return 1.0 - (1.0 - delta_1) ** k


def sample_sum_shift(flips: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Shift ``t = sum_j m_j - sum_j x_j mod 2**b`` caused by dephased qubit GHZs (exact sampling).

    ``flips``: bool (n, b); ``flips[e, i]`` means qubit GHZ i of entry e arrived as
    ``(|0..0> - |1..1>)/sqrt 2`` (relative phase ``theta_i = pi``). The sum's distribution is
    ``prod_i |1 + exp(i (theta_i - 2 pi 2**i t / 2**b))|**2 / 4``; its bits are sampled from the
    least significant up (semiclassical Fourier measurement): qubit ``i = b-1-k`` fixes bit k with
    ``P(t_k = 1 | lower bits) = sin**2((theta_i - pi t_low / 2**k) / 2)``. Returns int64 (n,).

    Examples
    --------
    A flip of qubit GHZ ``i`` shifts the sum by ``2**(b-1-i)`` exactly (it is the Fourier
    conjugate of bit ``b-1-i``): no flip, a flip of GHZ 0 and a flip of GHZ 1, for ``b = 2``:

    >>> import numpy as np
    >>> from qring_edu.vga import sample_sum_shift
    >>> flips = np.array([[False, False], [True, False], [False, True]])
    >>> sample_sum_shift(flips, np.random.default_rng(0)).tolist()
    [0, 2, 1]
    """
    flips = np.asarray(flips, dtype=bool)
    n, b = flips.shape
    t = np.zeros(n, dtype=np.int64)
    for k in range(b):
        angle = np.pi * flips[:, b - 1 - k] - np.pi * t / float(1 << k)
        bit = rng.random(n) < np.sin(angle / 2.0) ** 2
        t += bit.astype(np.int64) << k
    return t


# --------------------------------------------------------------------------------------------
# The GHZ test as a fidelity witness; a finite-copy guarantee (Zhu & Hayashi)
# --------------------------------------------------------------------------------------------

#: Largest P for the explicit 2**P x 2**P operators of this section.
MAX_WITNESS_WORKERS = 10
#: Spectral gap nu = 1 - beta of the GHZ test (beta = 1/2, its second-largest eigenvalue).
GHZ_TEST_SPECTRAL_GAP = 0.5


def _ghz_pair(workers: int) -> tuple[np.ndarray, np.ndarray]:
    """|GHZ+> and |GHZ-> = (|0..0> +- |1..1>)/sqrt 2 as real vectors of length 2**P."""
    plus = np.zeros(1 << workers)
    minus = np.zeros(1 << workers)
    plus[0] = plus[-1] = minus[0] = 1 / math.sqrt(2)
    minus[-1] = -1 / math.sqrt(2)
    return plus, minus


def ghz_test_operator(workers: int) -> np.ndarray:
    """The GHZ test's pass operator, averaged over its random settings (the "strategy" Omega).

    Each worker measures X or Y, the set of Y's is uniform among the ``2**(P-1)`` even-size
    subsets (2m Y's), and the test passes iff the XOR of the outcome bits is ``m mod 2``; the
    pass projector of one setting is ``(1 + (-1)**m X..Y..)/2``. On a basis state ``|x>``
    (``S_x`` = the workers with bit 1) ``Y|b> = i (-1)**b |1-b>`` gives
    ``(-1)**m X..Y.. |x> = (-1)**|Y cap S_x| |x bar>``, and the average of
    ``(-1)**|Y cap S|`` over uniform even subsets Y is 1 for ``S`` empty or all workers and 0
    otherwise (toggle one worker inside S and one outside: a parity-preserving bijection that
    flips ``|Y cap S|``). Hence

    ``Omega = (1 + |GHZ+><GHZ+| - |GHZ-><GHZ-|) / 2``

    with eigenvalues 1 (``|GHZ+>``), 1/2 (the other ``2**P - 2`` basis states) and 0
    (``|GHZ->``). For every P-qubit state ``P(pass) = (1 + F+ - F-)/2 <= (1 + F)/2``, i.e. the
    **fidelity witness** ``F = <GHZ+|rho|GHZ+> >= 1 - 2 P(fail)``, tight exactly when
    ``<GHZ-|rho|GHZ-> = 0``. Second-largest eigenvalue 1/2: spectral gap ``nu = 1/2``, smallest
    eigenvalue 0 (the numbers :func:`ghz_verified_infidelity` needs).

    Returns a real array (2**P, 2**P); basis index ``sum_j bit_j 2**j`` (worker j's qubit is
    bit j, little endian as in Qiskit). P in 2..10.

    Examples
    --------
    >>> omega = ghz_test_operator(3)
    >>> sorted({float(v) for v in np.round(np.linalg.eigvalsh(omega), 12)})
    [0.0, 0.5, 1.0]
    """
    workers = check_int(workers, "workers", 2, MAX_WITNESS_WORKERS)
    plus, minus = _ghz_pair(workers)
    return (np.eye(1 << workers) + np.outer(plus, plus) - np.outer(minus, minus)) / 2.0


def _as_state(state, name: str = "state") -> tuple[np.ndarray, int]:
    """A density matrix of P qubits (from a vector or a matrix) and its P."""
    rho = as_density_matrix(state, name)
    dim = rho.shape[0]
    workers = dim.bit_length() - 1
    if dim != 1 << workers or not 2 <= workers <= MAX_WITNESS_WORKERS:
        raise ValueError(
            f"{name} must be a state of P qubits, 2 <= P <= {MAX_WITNESS_WORKERS} "
            f"(dimension 2**P), got dimension {dim}"
        )
    return rho, workers


def ghz_state_pass_probability(state) -> float:
    """Probability that the GHZ test passes on an arbitrary P-qubit state, averaged over the
    test's uniformly random even-Y settings, computed setting by setting.

    For each of the ``2**(P-1)`` settings (2m Y's) ``P(pass) = (1 + (-1)**m <X..Y..>)/2`` with the
    Pauli expectation evaluated from the density matrix (``X..Y.. |x> = i**(2m) (-1)**|Y cap S_x|
    |x bar>``); no use of the closed form of :func:`ghz_test_operator`, so the two check each
    other. ``state``: vector (2**P,) or density matrix (2**P, 2**P), worker j = bit j (little
    endian), P in 2..10.

    Examples
    --------
    >>> ghz = np.zeros(8); ghz[[0, 7]] = 2 ** -0.5
    >>> ghz_state_pass_probability(ghz)
    1.0
    >>> ghz_state_pass_probability(np.eye(4) / 4)  # maximally mixed: fails half the time
    0.5
    """
    rho, workers = _as_state(state)
    dim = 1 << workers
    idx = np.arange(dim)
    anti = rho[idx, idx ^ (dim - 1)]  # <x| rho |x bar>
    odd = np.array([int(v).bit_count() & 1 for v in idx], dtype=bool)  # parity of a bit mask
    total = 0.0
    settings = 0
    for y in range(dim):  # y: the set of workers measuring Y, as a bit mask
        two_m = y.bit_count()
        if two_m % 2:
            continue
        # sigma|x> = i**2m (-1)**|Y cap S_x| |x bar>, so tr(rho sigma) = sum_x c(x) <x|rho|x bar>
        expectation = (-1) ** (two_m // 2) * np.sum(np.where(odd[y & idx], -1.0, 1.0) * anti)
        total += (1.0 + (-1) ** (two_m // 2) * expectation.real) / 2.0
        settings += 1
    return float(total / settings)


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


@dataclass(frozen=True)
class GHZWitness:
    """What a GHZ-test failure probability certifies about one copy (:func:`ghz_witness`).

    ``fidelity_bound = max(0, 1 - 2 p)`` (``F >= 1 - 2 P(fail)``); ``distance_bound =
    min(1, sqrt(2 p))``, a bound on the trace distance from ``|GHZ+>`` (``D <= sqrt(1 - F)``,
    Fuchs–van de Graaf for a pure target), hence on how far any measurement statistics of the
    copy — its transcript included — can be from the ideal ones.

    Attributes
    ----------
    fail_probability, fidelity_bound, distance_bound : float

    Examples
    --------
    >>> from qring_edu import ghz_witness
    >>> ghz_witness(0.02)
    GHZWitness(fail_probability=0.02, fidelity_bound=0.96, distance_bound=0.2)
    """

    fail_probability: float
    fidelity_bound: float
    distance_bound: float

    def __repr__(self) -> str:
        return (
            f"GHZWitness(fail_probability={self.fail_probability:.4g}, "
            f"fidelity_bound={self.fidelity_bound:.4g}, "
            f"distance_bound={self.distance_bound:.4g})"
        )


def ghz_witness(fail_probability: float) -> GHZWitness:
    """The fidelity and trace-distance bounds that a GHZ-test failure probability implies.

    ``fail_probability``: the copy's probability of failing one test (exact, e.g.
    ``1 - ghz_state_pass_probability(rho)``; an estimate from a finite sample is not covered).

    Examples
    --------
    >>> ghz_witness(0.005)
    GHZWitness(fail_probability=0.005, fidelity_bound=0.99, distance_bound=0.1)
    """
    p = check_float(fail_probability, "fail_probability", 0.0, 1.0)
    return GHZWitness(
        fail_probability=p,
        fidelity_bound=max(0.0, 1.0 - 2.0 * p),
        distance_bound=min(1.0, math.sqrt(2.0 * p)),
    )


def _check_significance(significance) -> float:
    return check_float(significance, "significance", 0.0, 1.0, lo_open=True, hi_open=True)


def ghz_verified_infidelity(n_tests: int, significance: float) -> float:
    """Infidelity that ``n_tests`` passed GHZ tests guarantee for one untested copy against an
    adversarial source (Zhu & Hayashi 2019), for this test (spectral gap 1/2, smallest
    eigenvalue 0).

    The theorem (H. Zhu and M. Hayashi, PRL 123, 260504 (2019) and PRA 100, 062335 (2019), in the
    form restated by Zhu & Hayashi, Phys. Rev. Applied 12, 054047 (2019), Eq. (26), the sentence
    after it, and Eq. (C37)): the adversary prepares *any* state of ``N + 1`` systems
    (entangled across them and with itself); the verifier applies a uniformly random
    permutation, tests N systems with a strategy Omega and keeps the remaining one, whose
    reduced state conditioned on all N tests passing is ``sigma``. "Verified within infidelity
    eps at significance level delta" means: whenever the passing probability is at least
    delta, ``1 - <psi|sigma|psi> <= eps``. For Omega with smallest eigenvalue 0 and spectral gap
    nu the number of tests needed satisfies
    ``min{ceil((1 - delta)/(nu delta eps)), ceil(1/(delta eps) - 1)} <= N <=
    ceil((1 - delta)/(nu delta eps))``, and for nu = 1/2 the lower bound is attained. The GHZ
    test has eigenvalues {1, 1/2, 0} (:func:`ghz_test_operator`), and a register's test (all b
    qubit GHZ tested) the eigenvalues {1, 1/2, ..., 2**-b, 0}: nu = 1/2 and smallest eigenvalue 0
    in both cases, so N passed tests give

    ``eps(N, delta) = min{1, (1 - delta)/(nu delta N), 1/(delta (N + 1))}``, ``nu = 1/2``

    (the tests of this library check it against an exact optimisation over every adversary
    for both spectra). For VGA, N is the number of tested *registers* (the random split is over
    registers) and the guarantee is for the register GHZ state.

    What it covers: a single copy chosen uniformly at random among the untested ones, and only
    its reduced state (fidelity of its marginal). What it does **not** cover: all used copies
    jointly (the d registers of a run can be correlated with each other and with the source),
    the privacy of every entry (a fidelity ``1 - eps`` copy can still leak up to
    ``sqrt(eps)`` in trace distance, :func:`rotated_ghz_leak`), dishonest workers taking part
    in the tests (the theorem trusts the measurements), the integrity of the sum, and
    composability. Note the 1/delta scaling: with smallest eigenvalue 0 the guarantee is weak;
    the source's "hedged" strategies (a trivial test with some probability) reach
    ``ln(1/delta)/eps`` but change the protocol, and are not implemented here.

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
    """Number of passed GHZ tests (tested copies) needed to verify one untested copy within
    ``infidelity`` at ``significance`` against an adversarial source: Zhu & Hayashi's
    ``min{ceil((1 - delta)/(nu delta eps)), ceil(1/(delta eps) - 1)}`` with ``nu = 1/2`` (exact
    for this test; see :func:`ghz_verified_infidelity` for the theorem and what it covers).

    Examples
    --------
    >>> ghz_verification_tests(0.01, 0.01)
    9999
    """
    eps = check_float(infidelity, "infidelity", 0.0, 1.0, lo_open=True, hi_open=True)
    delta = _check_significance(significance)
    nu = GHZ_TEST_SPECTRAL_GAP
    first = math.ceil((1.0 - delta) / (nu * delta * eps) - 1e-9)
    second = math.ceil(1.0 / (delta * eps) - 1.0 - 1e-9)
    return max(1, min(first, second))


# --------------------------------------------------------------------------------------------
# Exact transcript distributions: partially bad copies, distance from the ideal transcript
# --------------------------------------------------------------------------------------------

#: Exact enumeration limits: P * b qubits for state vectors, and pad tuples enumerated.
MAX_EXACT_QUBITS = 12
MAX_EXACT_PADS = 1 << 16


def vga_state_outcome_probabilities(state, x, bits: int) -> np.ndarray:
    """Exact distribution of the announcements of one entry when the workers' registers are in
    an arbitrary pure ``state`` (NumPy fast path of the phase form; no Qiskit).

    ``state``: vector of length ``2**(P b)``, basis index ``sum_j g_j 2**(b j)`` (worker j's
    register value ``g_j``, qubit i of weight ``2**i``, little endian as in
    :func:`vga_circuit`). ``x``: P ints (read mod ``2**bits``). Worker j applies
    ``|g> -> w**(x_j g)`` and the inverse QFT ``|g> -> 2**(-b/2) sum_m w**(-m g) |m>``
    (``w = exp(2 pi i / 2**b)``). Returns float (``2**(P b)``,): probability of the transcript
    ``m`` at index ``sum_j m_j 2**(b j)``. ``bits`` in 1..12 here (b = 1 is the XOR sum) and
    ``P b <= 12``.

    Examples
    --------
    >>> ghz = np.zeros(16); ghz[[0, 5, 10, 15]] = 0.5  # P = 2, b = 2: sum_g |g>|g> / 2
    >>> p = vga_state_outcome_probabilities(ghz, [1, 2], 2)
    >>> sorted({(int(k) & 3, int(k) >> 2) for k in np.flatnonzero(p > 1e-12)})  # sum 3 mod 4
    [(0, 3), (1, 2), (2, 1), (3, 0)]
    """
    bits = check_int(bits, "bits", 1, MAX_EXACT_QUBITS)
    xs = [int(v) for v in np.asarray(x, dtype=np.int64).reshape(-1)]
    workers = len(xs)
    if workers < 2 or workers * bits > MAX_EXACT_QUBITS:
        raise ValueError(
            f"x must name P >= 2 workers with P * bits <= {MAX_EXACT_QUBITS}, "
            f"got P = {workers}, bits = {bits}"
        )
    psi = np.asarray(state, dtype=complex).reshape(-1)
    if psi.size != 1 << (workers * bits) or abs(np.linalg.norm(psi) - 1) > 1e-6:
        raise ValueError(
            f"state must be a unit vector of length 2**(P*bits) = "
            f"{1 << (workers * bits)}, got length {psi.size}"
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
    """Uniform distribution on the transcripts with ``sum_j m_j = sum_j x_j mod 2**bits``."""
    workers = len(x)
    q = 1 << bits
    codes = np.arange(1 << (workers * bits))
    sums = sum((codes >> (bits * j)) & (q - 1) for j in range(workers)) % q
    ideal = (sums == sum(int(v) for v in x) % q).astype(float)
    return ideal / ideal.sum()


def _product_register_state(qubit_states, workers: int, bits: int) -> np.ndarray:
    """P registers of b qubits from b P-qubit states (qubit GHZ i <- qubit_states[i]).

    ``qubit_states[i]``: vector (2**P,), index ``sum_j bit_j 2**j``; the register state puts
    worker j's qubit i at position ``b j + i``.
    """
    n = workers * bits
    idx = np.arange(1 << n)
    psi = np.ones(1 << n, dtype=complex)
    for i, s in enumerate(qubit_states):
        sub = sum(((idx >> (bits * j + i)) & 1) << j for j in range(workers))
        psi *= np.asarray(s)[sub]
    return psi


@dataclass(frozen=True)
class RotatedGHZLeak:
    """A partially bad copy and what it leaks (:func:`rotated_ghz_leak`).

    ``fidelity`` ``cos(theta)**2`` and ``trace_distance`` ``|sin theta|`` of the attacked qubit
    GHZ from ``|GHZ+>`` (pure states, so ``D = sqrt(1 - F)``), exactly the register's fidelity and
    trace distance from the ideal register too; ``fail_probability``: probability that the
    register's test fails (``sin(theta)**2 / 2``, the witness bound attained); ``leak``: the
    largest total-variation distance, over all inputs x of the entry, between the transcript
    distribution and the ideal one (uniform on the transcripts with the right sum) — how much
    better than chance anyone who knows the state (the source) can tell inputs apart;
    ``witness``: the bounds :func:`ghz_witness` gives from ``fail_probability`` (``leak <=
    trace_distance <= witness.distance_bound``).

    Attributes
    ----------
    angle : float
        ``theta``, radians.
    workers, bits : int
    fidelity, trace_distance, fail_probability, leak : float
    witness : GHZWitness

    Examples
    --------
    >>> from qring_edu import rotated_ghz_leak
    >>> leak = rotated_ghz_leak(0.1)
    >>> leak
    RotatedGHZLeak(angle=0.1, P=2, bits=1, trace_distance=0.09983, fail_probability=0.004983, leak=0.07273)
    >>> leak.leak < leak.trace_distance           # the source's advantage is below D
    True
    >>> round(leak.trace_distance, 9) == round(leak.witness.distance_bound, 9)   # bound attained
    True
    """

    angle: float
    workers: int
    bits: int
    fidelity: float
    trace_distance: float
    fail_probability: float
    leak: float
    witness: GHZWitness

    def __repr__(self) -> str:
        return (
            f"RotatedGHZLeak(angle={self.angle:.4g}, P={self.workers}, bits={self.bits}, "
            f"trace_distance={self.trace_distance:.4g}, "
            f"fail_probability={self.fail_probability:.4g}, leak={self.leak:.4g})"
        )


def rotated_ghz_state(angle: float, workers: int) -> np.ndarray:
    """``cos(theta) |GHZ+> + sin(theta) |1 0 .. 0>`` (worker 0's qubit flipped), a P-qubit
    vector (index ``sum_j bit_j 2**j``).

    The admixed basis state is orthogonal to both ``|GHZ+>`` and ``|GHZ->``, so the GHZ test
    fails with probability ``sin(theta)**2 / 2 = (1 - F)/2``: the witness of
    :func:`ghz_test_operator` is tight on this family. It illustrates the gap between trace
    distance t and failure probability of order t**2 for GHZ tests (raised after McCutcheon et
    al., Nat. Commun. 7, 13251 (2016), who verify GHZ states from an untrusted source); the
    family and every number computed from it are this library's own.

    Examples
    --------
    >>> psi = rotated_ghz_state(0.1, 2)
    >>> round(ghz_fidelity(psi), 6), round(1 - ghz_state_pass_probability(psi), 6)
    (0.990033, 0.004983)
    """
    theta = check_float(angle, "angle", -math.pi, math.pi)
    workers = check_int(workers, "workers", 2, MAX_WITNESS_WORKERS)
    plus, _ = _ghz_pair(workers)
    flipped = np.zeros(1 << workers)
    flipped[1] = 1.0
    return math.cos(theta) * plus + math.sin(theta) * flipped


def rotated_ghz_leak(angle: float, workers: int = 2, bits: int = 1) -> RotatedGHZLeak:
    """Exact leak and detection of a slightly rotated GHZ copy: leaks ~ t, fails ~ t**2/2.

    The source delivers registers whose qubit GHZ ``b - 1`` (weight ``2**(b-1)``) is
    :func:`rotated_ghz_state` and whose other qubit GHZ states are ideal. Everything is exact:
    the fidelity, the trace distance t, the failure probability of the register's test
    (``1 - ghz_state_pass_probability``), and the leak: the transcript distribution of every
    input tuple (:func:`vga_state_outcome_probabilities`) against the ideal one, maximised
    over the inputs. For small theta: ``t = theta``, ``P(fail) = t**2/2``, leak about
    ``t/sqrt 2`` (P = 2, b = 1). Such a copy is bad — its entry's transcript depends on the
    individual inputs — yet it survives a test with probability ``1 - t**2/2``: the
    sampling bound of :func:`vga_epsilon`, which needs a detection bounded away from 0, does
    not cover it; the witness does, but only as ``leak <= t <= sqrt(2 P(fail))``.

    ``workers`` P and ``bits`` b (1 allowed: the XOR sum) with ``P b <= 10``.

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
            f"rotated_ghz_leak enumerates every input: needs P * bits <= 10, got "
            f"P = {workers}, bits = {bits}"
        )
    plus, _ = _ghz_pair(workers)
    rotated = rotated_ghz_state(theta, workers)
    psi = _product_register_state([plus] * (bits - 1) + [rotated], workers, bits)
    fidelity = float(abs(np.vdot(plus, rotated)) ** 2)
    fail = 1.0 - ghz_state_pass_probability(rotated)
    q = 1 << bits
    leak = 0.0
    for x in np.ndindex(*(q,) * workers):
        real = vga_state_outcome_probabilities(psi, x, bits)
        leak = max(leak, 0.5 * float(np.abs(real - _ideal_transcript(x, bits)).sum()))
    return RotatedGHZLeak(
        angle=theta,
        workers=workers,
        bits=bits,
        fidelity=fidelity,
        trace_distance=math.sqrt(max(0.0, 1.0 - fidelity)),
        fail_probability=fail,
        leak=leak,
        witness=ghz_witness(fail),
    )


#: Sources for :func:`transcript_distance`.
TRANSCRIPT_SOURCES = ("honest", "known_pads", "eavesdropper")


def _zero_sum_tuples(workers: int, bits: int) -> np.ndarray:
    """Every pad tuple (P ints in 0..2**b-1) with zero sum mod 2**b: int64 (2**(b(P-1)), P)."""
    q = 1 << bits
    free = np.array(np.unravel_index(np.arange(q ** (workers - 1)), (q,) * (workers - 1))).T
    last = (-free.sum(axis=1)) % q
    return np.column_stack([free, last]).astype(np.int64)


def transcript_distance(
    x,
    bits: int,
    *,
    source: str = "honest",
    eavesdrop_fraction: float | None = None,
    amplification: int = 1,
    method: str = "exact",
) -> float:
    """Total-variation distance of one entry's broadcast transcript, joint with what the
    attacker holds, from the ideal: exact privacy instead of a p-value.

    Setting: one entry, inputs ``x`` (P words mod ``2**bits``), its pad the sum of the pads of
    ``amplification`` = k registers (pads form; each register's pads uniform among the zero-sum
    tuples). The attacker's side information K:

    * ``"honest"``: nothing (K constant);
    * ``"known_pads"``: the pads of all k registers (the source chose them; their law does not
      matter);
    * ``"eavesdropper"``: each of the k registers is attacked independently with probability
      ``eavesdrop_fraction`` = q (default 0.25); K = which registers were attacked and their
      pads (measured from the kept memory).

    Real: the joint law of (m, K) with ``m_j = x_j + r_j``. Ideal: ``m`` uniform on
    ``S_x = {m : sum_j m_j = sum_j x_j}``, independent of K (the sum and nothing else).
    ``TV = 1/2 sum_{m, K} |P_real(m, K) - P_ideal(m, K)|``: the best advantage any test on
    (transcript, K) has in telling the run from the ideal functionality. Every other entry
    and every other run is outside this number.

    Closed forms (``|S_x| = 2**(b(P-1))``): honest 0; known pads ``1 - 2**(-b(P-1))`` (the
    attacker reads x exactly: the most a transcript of given sum can reveal); eavesdropper
    ``q**k (1 - 2**(-b(P-1)))`` (an entry leaks only if all its k registers are attacked).

    Parameters
    ----------
    method : "exact" | "closed_form"
        ``"exact"`` enumerates every pad tuple of every register (at most ``2**16``
        combinations) and every attack pattern; ``"closed_form"`` evaluates the formulas.

    Examples
    --------
    >>> transcript_distance([1, 2, 3], 2)
    0.0
    >>> transcript_distance([1, 2, 3], 2, source="known_pads")
    0.9375
    >>> transcript_distance([1, 2, 3], 2, source="eavesdropper", eavesdrop_fraction=0.5,
    ...                     amplification=2)
    0.234375
    """
    bits = check_int(bits, "bits", 1, MAX_EXACT_QUBITS)
    xs = [int(v) % (1 << bits) for v in np.asarray(x, dtype=np.int64).reshape(-1)]
    workers = len(xs)
    if workers < 2:
        raise ValueError(f"x must name P >= 2 workers, got {workers}")
    source = check_choice(source, "source", TRANSCRIPT_SOURCES)
    if eavesdrop_fraction is not None and source != "eavesdropper":
        raise ValueError(
            f"eavesdrop_fraction applies only to source='eavesdropper', got source={source!r}"
        )
    q = check_float(
        DEFAULT_EAVESDROP_FRACTION if eavesdrop_fraction is None else eavesdrop_fraction,
        "eavesdrop_fraction",
        0.0,
        1.0,
    )
    k = check_int(amplification, "amplification", 1, MAX_AMPLIFICATION)
    method = check_choice(method, "method", ("exact", "closed_form"))
    attack_q = {"honest": 0.0, "known_pads": 1.0, "eavesdropper": q}[source]
    full = 1.0 - 2.0 ** (-bits * (workers - 1))
    if method == "closed_form":
        return float(attack_q**k * full)
    combinations = (1 << (bits * (workers - 1))) ** k
    if combinations > MAX_EXACT_PADS:
        raise ValueError(
            f"method='exact' enumerates (2**(bits*(P-1)))**amplification = "
            f"{combinations} pad combinations; at most {MAX_EXACT_PADS} (use "
            "method='closed_form')"
        )
    pads = _zero_sum_tuples(workers, bits)
    mask = (1 << bits) - 1
    weight = 1.0 / pads.shape[0] ** k
    n_ideal = pads.shape[0]  # |S_x| = number of zero-sum tuples
    tv = 0.0
    for flags in itertools.product((False, True), repeat=k):
        p_flags = math.prod(attack_q if f else 1.0 - attack_q for f in flags)
        if p_flags == 0.0:
            continue
        # Group the real mass by K (the attacked registers' pads); ideal mass per K is
        # P(K) / |S_x| on every m of S_x.
        by_k: dict = {}
        for combo in itertools.product(range(pads.shape[0]), repeat=k):
            total = np.sum(pads[list(combo)], axis=0) & mask
            m = tuple(int(v) for v in (np.asarray(xs) + total) & mask)
            key = tuple(c for c, f in zip(combo, flags) if f)
            cell = by_k.setdefault(key, {})
            cell[m] = cell.get(m, 0.0) + p_flags * weight
        for cell in by_k.values():
            p_k = sum(cell.values())
            ideal = p_k / n_ideal
            # m outside S_x never occurs (the pads sum to zero), so the cells cover S_x at most
            tv += sum(abs(v - ideal) for v in cell.values()) + ideal * (n_ideal - len(cell))
    return float(tv / 2.0)


# --------------------------------------------------------------------------------------------
# The protocol (fast path)
# --------------------------------------------------------------------------------------------


def vga_aggregate(
    inputs,
    *,
    bits: int = 8,
    test_fraction: float = 0.5,
    source: str = "honest",
    seed=None,
    noise: float | None = None,
    eavesdrop_fraction: float | None = None,
    attack_fraction: float | None = None,
    tolerance: float = 0.0,
    amplification: int = 1,
) -> VGAResult:
    """Aggregate the rows of ``inputs`` with verified GHZ states (fast path; see module docstring).

    Parameters
    ----------
    inputs : int array (P, d)
        Worker j's b-bit words in row j, read modulo ``2**bits`` (signed ``-2**(b-1)..`` or
        unsigned ``..2**b - 1``). P >= 2 (privacy needs two honest workers), d >= 1.
    bits : int in 2..32
        b: the GHZ states live over Z_{2^b}; each register consumes b qubit GHZ copies.
    test_fraction : float in [0, 1)
        Fraction f of the delivered register-copies that are tested
        (``N = ceil(k d/(1-f))``, :func:`vga_copy_counts`).
    source : "honest" | "noisy" | "known_pads" | "eavesdropper"
    noise : float in [0, 1], only for ``source="noisy"`` (default 0.02)
        Dephasing probability of each qubit GHZ copy.
    eavesdrop_fraction : float in [0, 1], only for ``source="eavesdropper"`` (default 0.25)
        Fraction of the delivered register-copies the attacker entangles with its memory
        (``round(fraction * N)`` copies, chosen before the secret split).
    attack_fraction : float in [0, 1], only for ``source="known_pads"`` (default 1: every copy)
        Fraction of the delivered register-copies replaced by known pads (``round(fraction *
        N)`` copies, chosen before the split; the others are genuine). Same statistics as the
        eavesdropper on that fraction.
    tolerance : float in [0, 1)
        Accept iff ``tests_failed <= tolerance * tests`` (0: every test must pass).
    amplification : int in 1..64 (default 1)
        k, privacy amplification: each entry's pad is the sum (mod ``2**bits``) of the pads of k
        independent used registers, so an entry leaks only if all k of them are attacked
        (:func:`amplified_leak_probability`, about ``beta**k``); sums stay exact. The k d used
        registers are assigned to the entries by a secret uniformly random permutation drawn
        after delivery (so clustering the attack does not help); the copies delivered and
        tested grow k-fold (``ghz_used = k d b``). ``k = 1`` is the plain protocol (entries
        served in delivery order), bit for bit the same outputs for the same seed.
    seed : int or numpy Generator, optional

    Returns
    -------
    VGAResult. Cost O(k P d) time, O(P d) memory; the tests are sampled as counts (exact
    distribution: each test on a bad copy fails independently with its exact probability).

    Examples
    --------
    >>> x = np.array([[1, 2, 3], [4, 5, 6]])
    >>> res = vga_aggregate(x, bits=4, seed=0)
    >>> res.total.tolist(), res.accepted, res.ghz_used, res.ghz_tested
    ([5, 7, -7], True, 12, 12)
    >>> vga_aggregate(x, bits=4, amplification=3, seed=0).ghz_used
    36
    """
    bits = check_bits(bits)
    x = _check_inputs(inputs, bits)
    f = _check_fraction(test_fraction, "test_fraction")
    source = check_choice(source, "source", SOURCES)
    tolerance = _check_fraction(tolerance, "tolerance")
    k = check_int(amplification, "amplification", 1, MAX_AMPLIFICATION)
    check_seed(seed)
    if noise is not None and source != "noisy":
        raise ValueError(f"noise applies only to source='noisy', got source={source!r}")
    if eavesdrop_fraction is not None and source != "eavesdropper":
        raise ValueError(
            f"eavesdrop_fraction applies only to source='eavesdropper', got source={source!r}"
        )
    if attack_fraction is not None and source != "known_pads":
        raise ValueError(
            f"attack_fraction applies only to source='known_pads', got source={source!r}"
        )
    p = check_float(DEFAULT_NOISE if noise is None else noise, "noise", 0.0, 1.0)
    q = check_float(
        DEFAULT_EAVESDROP_FRACTION if eavesdrop_fraction is None else eavesdrop_fraction,
        "eavesdrop_fraction",
        0.0,
        1.0,
    )
    a = (
        None
        if attack_fraction is None
        else check_float(attack_fraction, "attack_fraction", 0.0, 1.0)
    )
    rng = np.random.default_rng(seed)
    P, d = x.shape
    mask = word_mask(bits)
    n_copies, n_tested = vga_copy_counts(d, f, amplification=k)
    n_used = n_copies - n_tested  # k d

    # Which delivered copies are bad (attacked) — fixed by the source before the secret split.
    bad = np.zeros(n_copies, dtype=bool)
    if source == "known_pads":
        if a is None:
            bad[:] = True
        else:
            bad[rng.choice(n_copies, size=int(round(a * n_copies)), replace=False)] = True
    elif source == "eavesdropper":
        bad[rng.choice(n_copies, size=int(round(q * n_copies)), replace=False)] = True
    # The secret split, drawn after delivery; with k = 1 the used copies serve the entries in
    # delivery order, with k > 1 through a secret random assignment (entry e <- k registers).
    tested = np.zeros(n_copies, dtype=bool)
    if n_tested:
        tested[rng.choice(n_copies, size=n_tested, replace=False)] = True
    used_bad = bad[~tested]  # (k d,) in delivery order
    if k > 1:
        used_bad = used_bad[rng.permutation(n_used)]
    attacked = used_bad.reshape(d, k).all(axis=1)  # (d,): entries whose every pad is known
    bad_tested = int(bad[tested].sum())

    # Aggregation: m = x + r with r uniform given sum r = t (t = 0 unless dephased copies);
    # with k > 1, r is the sum of k such pads (and t the sum of their shifts).
    shift = None
    dephased_used = 0
    if source == "noisy" and p > 0:
        flips = rng.random((n_used, bits)) < p  # used register e*k + l serves entry e
        hit = flips.any(axis=1)
        dephased_used = int(hit.sum())
        if dephased_used:
            reg_shift = np.zeros(n_used, dtype=np.int64)
            reg_shift[hit] = sample_sum_shift(flips[hit], rng)
            shift = reg_shift.reshape(d, k).sum(axis=1) & mask
    r = zero_sum_pads(P, d, bits, rng, shift)
    for _ in range(k - 1):
        r += zero_sum_pads(P, d, bits, rng)
        r &= np.uint32(mask)
    m32 = x.astype(np.uint32)  # two's-complement words; uint32 wraparound is exact mod 2**bits
    m32 += r
    m32 &= np.uint32(mask)
    total = to_signed(np.sum(m32, axis=0, dtype=np.uint32) & np.uint32(mask), bits)
    transcript = m32.astype(np.int64)

    # Verification: qubit GHZ tests on every qubit of every tested register.
    n_tests = n_tested * bits
    if source == "noisy":
        flips_tested = rng.random((n_tested, bits)) < p  # a dephased qubit GHZ fails every test
        failed = int(flips_tested.sum())
        bad_tested = int(flips_tested.any(axis=1).sum())
    elif source in ("known_pads", "eavesdropper"):
        failed = int(rng.binomial(bad_tested * bits, known_pads_detection(P)))
    else:
        failed = 0
    accepted = bool(failed <= tolerance * n_tests)

    # What the source learns: guess_j = m_j - (its knowledge of r_j): exact where it holds
    # every pad of the entry, the bare announcement (a uniformly random word, independent of
    # x_j: one unknown pad in the sum suffices) elsewhere.
    # m32 is not used below (total and transcript are copies), so guess reuses its buffer.
    guess = m32
    if attacked.any():
        guess[:, attacked] -= r[:, attacked]
        guess &= np.uint32(mask)
    del r
    x_words = x.astype(np.uint32)
    x_words &= np.uint32(mask)
    accuracy = float(np.count_nonzero(guess == x_words)) / x.size
    return VGAResult(
        total=total,
        transcript=transcript,
        accepted=accepted,
        source=source,
        bits=bits,
        test_fraction=f,
        tolerance=tolerance,
        n_copies=n_copies,
        n_tested=n_tested,
        tests_passed=n_tests - failed,
        tests_failed=failed,
        bad_used=int(used_bad.sum()) if source != "noisy" else dephased_used,
        bad_tested=bad_tested,
        guess_words=guess,
        attacker_knows=attacked.copy(),
        attacker_accuracy=accuracy,
        amplification=k,
    )


def vga_ring_allreduce(
    inputs,
    *,
    bits: int = 8,
    test_fraction: float = 0.5,
    source: str = "honest",
    pair_fidelity: float = 1.0,
    seed=None,
    **source_options,
) -> VGARingResult:
    """Verified pads + superdense ring: the masked values ``x_j + r_j`` (the VGA transcript, pads
    form) are summed by :func:`qring_edu.ring_allreduce` with ``transport="superdense"``.

    The pads sum to zero, so the ring's output is ``sum_j x_j mod 2**bits`` exactly (with
    ``pair_fidelity = 1``); every message on a link is a masked partial sum. ``source_options``
    are passed to :func:`vga_aggregate` (``noise``, ``eavesdrop_fraction``, ``attack_fraction``,
    ``tolerance``, ``amplification``).
    Returns a :class:`VGARingResult` whose ledger combines ring qubits and GHZ copies.

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu import vga_ring_allreduce
    >>> x = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    >>> run = vga_ring_allreduce(x, bits=4, seed=0)
    >>> run.accepted, run.total.tolist(), run.ledger.ring_online_qubits
    (True, [-4, -1, 2], 8)
    """
    check_seed(seed)
    rng = np.random.default_rng(seed)
    vga = vga_aggregate(
        inputs, bits=bits, test_fraction=test_fraction, source=source, seed=rng, **source_options
    )
    ring = ring_allreduce(
        vga.transcript, transport="superdense", bits=bits, pair_fidelity=pair_fidelity, seed=rng
    )
    led = ring.ledger
    ledger = VGALedger(
        workers=vga.workers,
        ring_online_qubits=led.online_qubits(),
        ring_ebits=led.ebits(),
        ring_offline_qubits=led.offline_qubits(),
        ghz_delivered=vga.ghz_delivered,
        ghz_used=vga.ghz_used,
        ghz_tested=vga.ghz_tested,
    )
    return VGARingResult(vga=vga, ring=ring, ledger=ledger)


# --------------------------------------------------------------------------------------------
# Soundness: epsilon
# --------------------------------------------------------------------------------------------


def _log_comb(n, k):
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def _cheat(n: int, t: int, bad: int, bad_fraction: float, detection: float) -> float:
    """P(all tests pass and more than bad_fraction * U used copies are bad), bad copies fixed."""
    u = n - t
    limit = bad_fraction * u
    k_lo = max(0, bad - u)
    k_hi = min(bad, t)
    ks = np.arange(k_lo, k_hi + 1)
    ks = ks[(bad - ks) > limit + 1e-12]
    if ks.size == 0:
        return 0.0
    log_h = _log_comb(bad, ks) + _log_comb(n - bad, t - ks) - _log_comb(n, t)
    log_pass = ks * math.log1p(-detection) if detection < 1 else np.where(ks == 0, 0.0, -np.inf)
    return float(np.exp(log_h + log_pass).sum())


_DETECTION_HELP = (
    "the probability that testing one bad register-copy exposes it. It depends on the attack "
    "and on P (e.g. 7/16 for known pads on one qubit GHZ at P = 4, 1/4 for a split worker), so "
    "there is no default: take it from qring_edu.vga.detection_probability(attack, workers, "
    "bits=bits), or give a number in [0, 1]"
)


def _require_detection(detection, function: str) -> float:
    if detection is None:
        raise TypeError(f"{function}() needs detection=...: {_DETECTION_HELP}")
    return check_float(detection, "detection", 0.0, 1.0)


def vga_cheat_probability(
    n_copies: int,
    test_fraction: float,
    bad_copies: int,
    bad_fraction: float,
    *,
    detection: float | None = None,
) -> float:
    """Probability that a source delivering ``bad_copies`` bad copies among ``n_copies`` passes
    every test *and* more than ``bad_fraction`` of the used copies are bad.

    ``sum_k Hyp(k; N, B, T) (1 - detection)**k`` over ``k`` (bad tested copies) with
    ``B - k > bad_fraction * (N - T)``; ``T = ceil(test_fraction * N)``. ``detection`` (required,
    keyword): the probability that testing one bad register-copy exposes it
    (:func:`detection_probability`).

    Examples
    --------
    >>> vga_cheat_probability(2, 0.5, 1, 0.0, detection=1.0)  # the bad copy is used w.p. 1/2
    0.5
    """
    n = check_int(n_copies, "n_copies", 1, MAX_EPSILON_COPIES)
    f = _check_fraction(test_fraction, "test_fraction")
    b = check_int(bad_copies, "bad_copies", 0, n)
    beta = _check_fraction(bad_fraction, "bad_fraction")
    delta = _require_detection(detection, "vga_cheat_probability")
    return _cheat(n, _tested_count(n, f), b, beta, delta)


def vga_epsilon(
    n_copies: int, test_fraction: float, bad_fraction: float, *, detection: float | None = None
) -> float:
    """Soundness error: the largest probability, over the number B of bad copies the source
    plants, that every test passes while more than ``bad_fraction`` of the used copies are bad.

    ``epsilon = max_B sum_k Hyp(k; N, B, T) (1 - detection)**k [B - k > bad_fraction (N - T)]``
    with ``N = n_copies`` register-copies, ``T = ceil(test_fraction N)`` tested copies chosen
    uniformly at random (hypergeometric), acceptance only if every test passes (tolerance 0), and
    ``detection`` the probability that testing one bad register-copy exposes it,
    *independently* for each bad copy. Exact; the scan over B stops once
    ``E[(1 - detection)**K]`` (which decreases with B) falls below the best value.
    ``n_copies`` up to 100 000.

    ``detection`` is required (keyword only): it depends on the attack and on P, and the bound
    covers an attack class only if ``detection`` is that class's *minimum*. From
    :func:`detection_probability`: whole-register known pads or eavesdropper
    ``1 - (1 - delta_P)**b`` (0.990 at P = 4, b = 8); known pads on one qubit GHZ
    ``delta_P = (1 - 2**(1-P))/2`` (7/16 at P = 4); a split worker (the minimum over every
    attack that lets the source predict a pad digit with certainty) 1/4. The old default 1/2
    was the supremum of ``delta_P`` over P (never attained), not the minimum detection of any
    attack class.

    What it does not cover: bad copies whose detection is below ``detection`` (partially bad
    copies, :func:`rotated_ghz_leak`, are caught with probability of order t**2), attacks
    correlated across copies, dishonest workers in the tests, the integrity of the sum, and
    composability. With ``bad_fraction = 0`` it never falls below about ``1 - f``
    (:func:`vga_epsilon_floor`).

    Examples
    --------
    >>> f"{vga_epsilon(800, 0.5, 0.1, detection=7 / 16):.3e}"
    '7.144e-08'
    >>> round(vga_epsilon(800, 0.5, 0.0, detection=1.0), 12)  # beta = 0: never below 1/2
    0.5
    """
    n = check_int(n_copies, "n_copies", 1, MAX_EPSILON_COPIES)
    f = _check_fraction(test_fraction, "test_fraction")
    beta = _check_fraction(bad_fraction, "bad_fraction")
    delta = _require_detection(detection, "vga_epsilon")
    t = _tested_count(n, f)
    u = n - t
    best = 0.0
    for bad in range(int(math.floor(beta * u)) + 1, n + 1):
        best = max(best, _cheat(n, t, bad, beta, delta))
        bound = _cheat(n, t, bad, -1.0, delta)  # E[(1-delta)^K], no condition on used copies
        if bound <= best:
            break
    return best


def vga_epsilon_floor(n_copies: int, test_fraction: float, bad_fraction: float) -> float:
    """A lower bound on :func:`vga_epsilon` that holds for *every* detection in [0, 1].

    The source plants the fewest bad copies that exceed the threshold,
    ``B* = floor(bad_fraction * U) + 1`` with ``U = N - T`` used copies; with probability
    ``C(N - B*, T) / C(N, T)`` none of them is tested, every test passes (there is nothing to
    catch) and all ``B*`` are used. So ``epsilon >= C(N - B*, T) / C(N, T)``, with equality when
    ``detection = 1``.

    With ``bad_fraction = 0`` (no entry may leak) this is ``(N - T)/N``: exactly 1/2 at the
    default test fraction 1/2 with N even (the protocol's ``N = 2 d``), *whatever N*. A sampling
    bound can only promise that few used copies are bad, never that none is.

    Examples
    --------
    >>> [vga_epsilon_floor(n, 0.5, 0.0) for n in (2, 200, 20000)]
    [0.5, 0.5, 0.5]
    >>> vga_epsilon_floor(800, 0.5, 0.1) < 1e-12
    True
    """
    n = check_int(n_copies, "n_copies", 1, MAX_EPSILON_COPIES)
    f = _check_fraction(test_fraction, "test_fraction")
    beta = _check_fraction(bad_fraction, "bad_fraction")
    t = _tested_count(n, f)
    u = n - t
    b_star = int(math.floor(beta * u)) + 1  # the same threshold as vga_epsilon's scan
    if b_star > u:
        return 0.0
    # C(N - B, T) / C(N, T) = prod_{i < B} (U - i) / (N - i), as a product (no log-gamma)
    return float(math.prod((u - i) / (n - i) for i in range(b_star)))


# --------------------------------------------------------------------------------------------
# Qiskit path (small P and b)
# --------------------------------------------------------------------------------------------


def _check_column(x, bits: int) -> list[int]:
    arr = _check_inputs(np.asarray(x).reshape(-1, 1) if np.ndim(x) == 1 else x, bits)
    if arr.shape[1] != 1:
        raise ValueError(f"x must be one entry per worker, shape (P,), got shape {np.shape(x)}")
    P = arr.shape[0]
    if P * bits > MAX_CIRCUIT_QUBITS:
        raise ValueError(
            f"the Qiskit path needs P * bits <= {MAX_CIRCUIT_QUBITS} qubits, "
            f"got P = {P}, bits = {bits}"
        )
    return [int(v) & word_mask(bits) for v in arr[:, 0]]


def vga_circuit(x, bits: int, *, pads=None, flips=None, measure: bool = True):
    """The VGA circuit for one entry: source, phases ``Z^{x_j}``, Fourier measurement.

    ``x``: P ints (one per worker; all zeros gives the pads form). Register ``w{j}`` holds
    worker j's b qubits, qubit i of weight ``2**i`` (little endian); classical register ``m{j}``
    receives ``m_j``. Source: ideal GHZ (qubit GHZ i = H on ``w0[i]`` and CNOTs to every
    ``wj[i]``); ``flips`` (b bools) puts a Z on ``w0[i]`` (a dephased copy); ``pads`` (P ints,
    zero-sum) replaces the GHZ by the known-pads product ``F|r_1> ... F|r_P>``.

    Returns a ``qiskit.QuantumCircuit`` of ``P * bits`` qubits.

    Examples
    --------
    >>> from qring_edu import vga_circuit
    >>> qc = vga_circuit([1, 2, 3], bits=2)
    >>> qc.num_qubits, [r.name for r in qc.qregs], [r.name for r in qc.cregs]
    (6, ['w0', 'w1', 'w2'], ['m0', 'm1', 'm2'])
    """
    from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister
    from qiskit.circuit.library import QFTGate

    bits = check_bits(bits)
    xs = _check_column(x, bits)
    P = len(xs)
    regs = [QuantumRegister(bits, f"w{j}") for j in range(P)]
    cregs = [ClassicalRegister(bits, f"m{j}") for j in range(P)] if measure else []
    qc = QuantumCircuit(*regs, *cregs)
    if pads is None:
        for i in range(bits):
            qc.h(regs[0][i])
            for j in range(1, P):
                qc.cx(regs[0][i], regs[j][i])
        if flips is not None:
            for i, flip in enumerate(np.asarray(flips, dtype=bool).reshape(bits)):
                if flip:
                    qc.z(regs[0][i])
    else:
        rs = _check_column(pads, bits)
        if len(rs) != P or sum(rs) % (1 << bits):
            raise ValueError("pads must be P words summing to 0 mod 2**bits")
        for j, rj in enumerate(rs):
            for i in range(bits):
                if (rj >> i) & 1:
                    qc.x(regs[j][i])
            qft = QFTGate(bits)
            qft.label = "QFT"
            qc.append(qft, regs[j])
    qc.barrier()
    for j, xj in enumerate(xs):  # Z^{x_j}: phase 2 pi x_j 2^i / 2^b on |1> of qubit i
        for i in range(bits):
            angle = 2 * math.pi * ((xj << i) % (1 << bits)) / (1 << bits)
            if angle:
                qc.p(angle, regs[j][i])
    qc.barrier()
    for j in range(P):
        inverse_qft = QFTGate(bits).inverse()
        inverse_qft.label = "QFT†"
        qc.append(inverse_qft, regs[j])
        if measure:
            qc.measure(regs[j], cregs[j])
    return qc


def ghz_test_circuit(y_settings, *, phases=None, flip: bool = False):
    """One qubit GHZ test: prepare the copy, measure each qubit in X (H) or Y (S-dagger, H).

    ``y_settings``: P bools (True = Y), even number of True. Source: GHZ (``flip``: a Z on
    qubit 0, the dephased copy) or, with ``phases``, the product ``(|0> + e^{i phi_j}|1>)/sqrt 2``.
    Outcome bit j = 0 means eigenvalue +1. Pass iff XOR of the bits = (number of Y's / 2) mod 2.

    Returns a ``qiskit.QuantumCircuit`` of P qubits and P classical bits (bit j: qubit j).

    Examples
    --------
    >>> from qring_edu import ghz_test_circuit
    >>> qc = ghz_test_circuit([True, True, False])
    >>> qc.num_qubits, qc.num_clbits, qc.count_ops()["sdg"]
    (3, 3, 2)
    """
    from qiskit import QuantumCircuit

    y = [bool(v) for v in np.asarray(y_settings).reshape(-1)]
    P = len(y)
    if P < 2 or sum(y) % 2:
        raise ValueError("y_settings must name P >= 2 workers with an even number of Y's")
    qc = QuantumCircuit(P, P)
    if phases is None:
        qc.h(0)
        for j in range(1, P):
            qc.cx(0, j)
        if flip:
            qc.z(0)
    else:
        for j, phi in enumerate(np.asarray(phases, dtype=float).reshape(P)):
            qc.h(j)
            qc.p(float(phi), j)
    qc.barrier()
    for j, is_y in enumerate(y):
        if is_y:
            qc.sdg(j)
        qc.h(j)
    qc.measure(range(P), range(P))
    return qc


def vga_aggregate_qiskit(
    inputs, *, bits: int = 2, source: str = "honest", noise=None, seed=None
) -> np.ndarray:
    """Transcript of the aggregation run as Qiskit circuits on Aer, one shot per entry.

    Same sources as :func:`vga_aggregate` for the *used* copies (``"eavesdropper"`` is
    ``"known_pads"`` on its attacked copies, so it is not repeated here). Entries with the same
    circuit share one Aer job (shots = their number). Returns int64 (P, d) in ``0..2**bits-1``.
    For small instances: ``P * bits <= 16``, ``d <= 20 000``.

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu import vga_aggregate_qiskit
    >>> x = np.array([[1, 2], [3, 0], [2, 2]])
    >>> transcript = vga_aggregate_qiskit(x, bits=2, seed=0)
    >>> (transcript.sum(axis=0) % 4).tolist()       # (6, 4) mod 4
    [2, 0]
    """
    from qiskit import transpile
    from qiskit_aer import AerSimulator

    bits = check_bits(bits)
    x = _check_inputs(inputs, bits)
    source = check_choice(source, "source", ("honest", "noisy", "known_pads"))
    check_seed(seed)
    if noise is not None and source != "noisy":
        raise ValueError(f"noise applies only to source='noisy', got source={source!r}")
    p = check_float(DEFAULT_NOISE if noise is None else noise, "noise", 0.0, 1.0)
    P, d = x.shape
    check_int(d, "d (entries)", 1, 20_000)
    _check_column(x[:, 0], bits)
    rng = np.random.default_rng(seed)
    mask = word_mask(bits)
    keys = []
    for e in range(d):
        flips = pads = None
        if source == "noisy":
            flips = tuple(bool(v) for v in rng.random(bits) < p)
        elif source == "known_pads":
            pads = tuple(int(v) for v in zero_sum_pads(P, 1, bits, rng)[:, 0])
        keys.append((tuple(int(v) & mask for v in x[:, e]), flips, pads))
    groups: dict = {}
    for e, key in enumerate(keys):
        groups.setdefault(key, []).append(e)
    sim = AerSimulator()
    out = np.zeros((P, d), dtype=np.int64)
    circuits = [vga_circuit(list(k[0]), bits, flips=k[1], pads=k[2]) for k in groups]
    compiled = transpile(circuits, sim, optimization_level=0)
    for circ, (_key, members) in zip(compiled, groups.items()):
        # A fresh simulator seed per job: reusing one seed would correlate the groups' shots.
        memory = (
            sim.run(
                circ, shots=len(members), memory=True, seed_simulator=int(rng.integers(0, 2**31))
            )
            .result()
            .get_memory()
        )
        for e, word in zip(members, memory):
            regs = word.split()[::-1]  # Qiskit prints the last register first
            out[:, e] = [int(s, 2) for s in regs]
    return out


def vga_outcome_probabilities(x, bits: int, *, flips=None, pads=None) -> dict:
    """Exact distribution of the announcements ``(m_0, ..., m_{P-1})`` for one entry, from the
    circuit's state vector (Qiskit ``Statevector``). Keys: tuples of ints; zero entries omitted.

    Examples
    --------
    Uniform over the 16 announcements of 3 workers with 2-bit words that sum to ``6 mod 4``:

    >>> from qring_edu import vga_outcome_probabilities
    >>> probs = vga_outcome_probabilities([1, 2, 3], bits=2)
    >>> len(probs), {sum(m) % 4 for m in probs}, round(max(probs.values()), 6)
    (16, {2}, 0.0625)
    """
    from qiskit.quantum_info import Statevector

    bits = check_bits(bits)
    qc = vga_circuit(x, bits, flips=flips, pads=pads, measure=False)
    probs = np.abs(Statevector(qc).data) ** 2
    P = qc.num_qubits // bits
    mask = word_mask(bits)
    out = {}
    for index in np.flatnonzero(probs > 1e-12):
        out[tuple(int((index >> (bits * j)) & mask) for j in range(P))] = float(probs[index])
    return out
