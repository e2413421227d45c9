"""VGA — Verified GHZ Aggregation (protocols layer; DESIGN.md §4.6).

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
E later gives the attacker those pads.
"""

from __future__ import annotations

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
from .ring import AllReduceResult, ring_allreduce

__all__ = [
    "SOURCES",
    "VGAResult",
    "VGALedger",
    "VGARingResult",
    "vga_aggregate",
    "vga_ring_allreduce",
    "vga_epsilon",
    "vga_cheat_probability",
    "vga_copy_counts",
    "known_pads_detection",
    "register_detection",
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
    ``attacker_knows``: bool (d,), entries whose pads the source holds.
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

    @property
    def attacker_guess(self) -> np.ndarray:
        """The source's guess of every input, int64 (P, d), signed."""
        return to_signed(self.guess_words, self.bits)

    @property
    def workers(self) -> int:
        return int(self.transcript.shape[0])

    @property
    def entries(self) -> int:
        return int(self.transcript.shape[1])

    @property
    def ghz_used(self) -> int:
        """Qubit GHZ copies consumed by the aggregation: ``d * bits``."""
        return (self.n_copies - self.n_tested) * self.bits

    @property
    def ghz_tested(self) -> int:
        """Qubit GHZ copies spent on tests: ``n_tested * bits``."""
        return self.n_tested * self.bits

    @property
    def ghz_delivered(self) -> int:
        return self.n_copies * self.bits

    @property
    def tests(self) -> int:
        return self.tests_passed + self.tests_failed

    def __repr__(self) -> str:
        return (f"VGAResult(P={self.workers}, d={self.entries}, bits={self.bits}, "
                f"source={self.source!r}, accepted={self.accepted}, ghz_used={self.ghz_used}, "
                f"ghz_tested={self.ghz_tested}, tests_failed={self.tests_failed}, "
                f"attacker_accuracy={self.attacker_accuracy:.4f})")


@dataclass(frozen=True)
class VGALedger:
    """Combined resources of verified pads + superdense ring (counts; per link = max over links).

    ``ring_online_qubits``, ``ring_ebits``, ``ring_offline_qubits``: from the ring's
    :class:`~qring_edu.Ledger` (maximum over directed links). ``ghz_delivered``, ``ghz_used``,
    ``ghz_tested``: qubit GHZ copies (all workers share each copy; one qubit of it per worker).
    """

    workers: int
    ring_online_qubits: int
    ring_ebits: int
    ring_offline_qubits: int
    ghz_delivered: int
    ghz_used: int
    ghz_tested: int

    def as_dict(self) -> dict[str, int]:
        return {"ring_online_qubits": self.ring_online_qubits, "ring_ebits": self.ring_ebits,
                "ring_offline_qubits": self.ring_offline_qubits,
                "ghz_delivered": self.ghz_delivered, "ghz_used": self.ghz_used,
                "ghz_tested": self.ghz_tested}


@dataclass(frozen=True)
class VGARingResult:
    """Outcome of :func:`vga_ring_allreduce`: the pads' verification, the ring run, the ledger.

    ``total``: int64 (d,), signed sum mod ``2**bits`` (worker 0's copy of the ring output).
    """

    vga: VGAResult
    ring: AllReduceResult = field(repr=False)
    ledger: VGALedger

    @property
    def total(self) -> np.ndarray:
        return self.ring.outputs[0]

    @property
    def accepted(self) -> bool:
        return self.vga.accepted

    def __repr__(self) -> str:
        return (f"VGARingResult(P={self.vga.workers}, d={self.vga.entries}, bits={self.vga.bits}, "
                f"accepted={self.accepted}, consistent={self.ring.consistent}, "
                f"ring_online_qubits={self.ledger.ring_online_qubits}, "
                f"ghz_used={self.ledger.ghz_used}, ghz_tested={self.ledger.ghz_tested})")


# --------------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------------

def _check_inputs(inputs, bits: int) -> np.ndarray:
    """(P, d) integer words in ``-2**(b-1) .. 2**b - 1`` (signed or unsigned reading) -> int64."""
    arr = as_numeric_array(inputs, "inputs")
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"inputs must be integers (b-bit words), got dtype {arr.dtype}; encode "
                        "floats first, e.g. with qring_edu.fixed_point(P, bits, max_abs).encode")
    if arr.ndim != 2:
        raise ValueError(f"inputs must be 2-D with shape (P, d), got shape {arr.shape}")
    P, d = arr.shape
    if P < 2:
        raise ValueError(f"inputs must have P >= 2 rows (workers), got P = {P}: privacy needs at "
                         "least two honest workers (a lone worker's announcement is its input)")
    if d < 1:
        raise ValueError(f"inputs must have d >= 1 columns (entries), got d = {d}")
    lo, hi = -(1 << (bits - 1)), (1 << bits) - 1
    if arr.dtype == np.uint64 and arr.size and int(arr.max()) > hi:
        raise ValueError(f"inputs must be {bits}-bit words in {lo}..{hi}, got {int(arr.max())}")
    arr = arr.astype(np.int64, copy=False)
    if arr.size and (int(arr.min()) < lo or int(arr.max()) > hi):
        bad = int(arr.min()) if int(arr.min()) < lo else int(arr.max())
        raise ValueError(f"inputs must be {bits}-bit words in {lo}..{hi} (signed or unsigned), "
                         f"got {bad}")
    return arr


def _check_fraction(value, name: str) -> float:
    return check_float(value, name, 0.0, 1.0, hi_open=True)


def vga_copy_counts(entries: int, test_fraction: float) -> tuple[int, int]:
    """Register-copies delivered and tested for ``entries`` entries: ``(N, T)``.

    ``N = ceil(d / (1 - f))`` and ``T = N - d`` (so ``T = ceil(f N)``): exactly d copies are
    used. With the default ``f = 1/2``, ``N = 2 d``: the 2x overhead.
    """
    entries = check_int(entries, "entries", 1)
    f = _check_fraction(test_fraction, "test_fraction")
    n = max(entries, math.ceil(entries / (1.0 - f) - 1e-9))
    return n, n - entries


def _tested_count(n_copies: int, f: float) -> int:
    """``T = ceil(f N)`` (tolerant of float round-off), consistent with :func:`vga_copy_counts`."""
    return min(n_copies, math.ceil(f * n_copies - 1e-9))


# --------------------------------------------------------------------------------------------
# Fast-path building blocks
# --------------------------------------------------------------------------------------------

def zero_sum_pads(workers: int, entries: int, bits: int, rng: np.random.Generator,
                  shift: np.ndarray | None = None) -> np.ndarray:
    """Uniformly random pads ``r`` (uint32, shape (P, d), in ``0..2**bits-1``) with
    ``sum_j r_j = shift mod 2**bits`` per entry (``shift=None``: zero-sum pads).

    Uniform on that set: ``r_0 .. r_{P-2}`` are free and uniform, ``r_{P-1}`` closes the sum.
    Arithmetic wraps modulo ``2**32``, which is exact modulo ``2**bits`` (``bits <= 32``).
    """
    mask = np.uint32(word_mask(bits))
    r = np.empty((workers, entries), dtype=np.uint32)
    r[:-1] = rng.integers(0, int(mask), size=(workers - 1, entries), dtype=np.uint32,
                          endpoint=True)
    last = np.sum(r[:-1], axis=0, dtype=np.uint32)
    np.negative(last, out=last)  # two's complement: -sum mod 2**32
    if shift is not None:
        last += np.asarray(shift).astype(np.uint32)
    r[-1] = last & mask
    return r


def even_y_settings(n_tests: int, workers: int, rng: np.random.Generator) -> np.ndarray:
    """Random GHZ-test settings: bool (n_tests, P), True = measure Y, uniform on even weights."""
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
    """
    workers = check_int(workers, "workers", 2)
    return (1.0 - 2.0 ** (1 - workers)) / 2.0


def register_detection(workers: int, bits: int) -> float:
    """Probability that testing one known-pads register-copy (b independent qubit GHZ tests)
    finds at least one failure: ``1 - (1 - delta_P)**b``."""
    bits = check_bits(bits)
    return 1.0 - (1.0 - known_pads_detection(workers)) ** bits


def sample_sum_shift(flips: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Shift ``t = sum_j m_j - sum_j x_j mod 2**b`` caused by dephased qubit GHZs (exact sampling).

    ``flips``: bool (n, b); ``flips[e, i]`` means qubit GHZ i of entry e arrived as
    ``(|0..0> - |1..1>)/sqrt 2`` (relative phase ``theta_i = pi``). The sum's distribution is
    ``prod_i |1 + exp(i (theta_i - 2 pi 2**i t / 2**b))|**2 / 4``; its bits are sampled from the
    least significant up (semiclassical Fourier measurement): qubit ``i = b-1-k`` fixes bit k with
    ``P(t_k = 1 | lower bits) = sin**2((theta_i - pi t_low / 2**k) / 2)``. Returns int64 (n,).
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
# The protocol (fast path)
# --------------------------------------------------------------------------------------------

def vga_aggregate(inputs, *, bits: int = 8, test_fraction: float = 0.5, source: str = "honest",
                  seed=None, noise: float | None = None, eavesdrop_fraction: float | None = None,
                  tolerance: float = 0.0) -> VGAResult:
    """Aggregate the rows of ``inputs`` with verified GHZ states (fast path; see module docstring).

    Parameters
    ----------
    inputs : int array (P, d)
        Worker j's b-bit words in row j, read modulo ``2**bits`` (signed ``-2**(b-1)..`` or
        unsigned ``..2**b - 1``). P >= 2 (privacy needs two honest workers), d >= 1.
    bits : int in 2..32
        b: the GHZ states live over Z_{2^b}; each entry consumes b qubit GHZ copies.
    test_fraction : float in [0, 1)
        Fraction f of the delivered register-copies that are tested (``N = ceil(d/(1-f))``).
    source : "honest" | "noisy" | "known_pads" | "eavesdropper"
    noise : float in [0, 1], only for ``source="noisy"`` (default 0.02)
        Dephasing probability of each qubit GHZ copy.
    eavesdrop_fraction : float in [0, 1], only for ``source="eavesdropper"`` (default 0.25)
        Fraction of the delivered register-copies the attacker entangles with its memory
        (``round(fraction * N)`` copies, chosen before the secret split).
    tolerance : float in [0, 1)
        Accept iff ``tests_failed <= tolerance * tests`` (0: every test must pass).
    seed : int or numpy Generator, optional

    Returns
    -------
    VGAResult. Cost O(P d) time and memory; the tests are sampled as counts (exact
    distribution: each test on a bad copy fails independently with its exact probability).
    """
    bits = check_bits(bits)
    x = _check_inputs(inputs, bits)
    f = _check_fraction(test_fraction, "test_fraction")
    source = check_choice(source, "source", SOURCES)
    tolerance = _check_fraction(tolerance, "tolerance")
    check_seed(seed)
    if noise is not None and source != "noisy":
        raise ValueError(f"noise applies only to source='noisy', got source={source!r}")
    if eavesdrop_fraction is not None and source != "eavesdropper":
        raise ValueError("eavesdrop_fraction applies only to source='eavesdropper', "
                         f"got source={source!r}")
    p = check_float(DEFAULT_NOISE if noise is None else noise, "noise", 0.0, 1.0)
    q = check_float(DEFAULT_EAVESDROP_FRACTION if eavesdrop_fraction is None
                    else eavesdrop_fraction, "eavesdrop_fraction", 0.0, 1.0)
    rng = np.random.default_rng(seed)
    P, d = x.shape
    mask = word_mask(bits)
    n_copies, n_tested = vga_copy_counts(d, f)

    # Which delivered copies are bad (attacked) — fixed by the source before the secret split.
    bad = np.zeros(n_copies, dtype=bool)
    if source == "known_pads":
        bad[:] = True
    elif source == "eavesdropper":
        bad[rng.choice(n_copies, size=int(round(q * n_copies)), replace=False)] = True
    # The secret split, drawn after delivery; used copies serve the entries in delivery order.
    tested = np.zeros(n_copies, dtype=bool)
    if n_tested:
        tested[rng.choice(n_copies, size=n_tested, replace=False)] = True
    attacked = bad[~tested]                     # (d,): entries served by an attacked register
    bad_tested = int(bad[tested].sum())

    # Aggregation: m = x + r with r uniform given sum r = t (t = 0 unless dephased copies).
    shift = None
    dephased_used = 0
    if source == "noisy" and p > 0:
        flips = rng.random((d, bits)) < p
        hit = flips.any(axis=1)
        dephased_used = int(hit.sum())
        if dephased_used:
            shift = np.zeros(d, dtype=np.int64)
            shift[hit] = sample_sum_shift(flips[hit], rng)
    r = zero_sum_pads(P, d, bits, rng, shift)
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

    # What the source learns: guess_j = m_j - (its knowledge of r_j): exact where it holds the
    # pads, the bare announcement (a uniformly random word, independent of x_j) elsewhere.
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
        total=total, transcript=transcript, accepted=accepted, source=source, bits=bits,
        test_fraction=f, tolerance=tolerance, n_copies=n_copies, n_tested=n_tested,
        tests_passed=n_tests - failed, tests_failed=failed,
        bad_used=int(attacked.sum()) if source != "noisy" else dephased_used,
        bad_tested=bad_tested, guess_words=guess,
        attacker_knows=attacked.copy(), attacker_accuracy=accuracy,
    )


def vga_ring_allreduce(inputs, *, bits: int = 8, test_fraction: float = 0.5,
                       source: str = "honest", pair_fidelity: float = 1.0, seed=None,
                       **source_options) -> VGARingResult:
    """Verified pads + superdense ring: the masked values ``x_j + r_j`` (the VGA transcript, pads
    form) are summed by :func:`qring_edu.ring_allreduce` with ``transport="superdense"``.

    The pads sum to zero, so the ring's output is ``sum_j x_j mod 2**bits`` exactly (with
    ``pair_fidelity = 1``); every message on a link is a masked partial sum. ``source_options``
    are passed to :func:`vga_aggregate` (``noise``, ``eavesdrop_fraction``, ``tolerance``).
    Returns a :class:`VGARingResult` whose ledger combines ring qubits and GHZ copies.
    """
    check_seed(seed)
    rng = np.random.default_rng(seed)
    vga = vga_aggregate(inputs, bits=bits, test_fraction=test_fraction, source=source,
                        seed=rng, **source_options)
    ring = ring_allreduce(vga.transcript, transport="superdense", bits=bits,
                          pair_fidelity=pair_fidelity, seed=rng)
    led = ring.ledger
    ledger = VGALedger(workers=vga.workers, ring_online_qubits=led.online_qubits(),
                       ring_ebits=led.ebits(), ring_offline_qubits=led.offline_qubits(),
                       ghz_delivered=vga.ghz_delivered, ghz_used=vga.ghz_used,
                       ghz_tested=vga.ghz_tested)
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


def vga_cheat_probability(n_copies: int, test_fraction: float, bad_copies: int,
                          bad_fraction: float, *, detection: float = 0.5) -> float:
    """Probability that a source delivering ``bad_copies`` bad copies among ``n_copies`` passes
    every test *and* more than ``bad_fraction`` of the used copies are bad.

    ``sum_k Hyp(k; N, B, T) (1 - detection)**k`` over ``k`` (bad tested copies) with
    ``B - k > bad_fraction * (N - T)``; ``T = ceil(test_fraction * N)``.
    """
    n = check_int(n_copies, "n_copies", 1, MAX_EPSILON_COPIES)
    f = _check_fraction(test_fraction, "test_fraction")
    b = check_int(bad_copies, "bad_copies", 0, n)
    beta = _check_fraction(bad_fraction, "bad_fraction")
    delta = check_float(detection, "detection", 0.0, 1.0)
    return _cheat(n, _tested_count(n, f), b, beta, delta)


def vga_epsilon(n_copies: int, test_fraction: float, bad_fraction: float, *,
                detection: float = 0.5) -> float:
    """Soundness error: the largest probability, over the number B of bad copies the source
    plants, that every test passes while more than ``bad_fraction`` of the used copies are bad.

    ``epsilon = max_B sum_k Hyp(k; N, B, T) (1 - detection)**k [B - k > bad_fraction (N - T)]``
    with ``N = n_copies``, ``T = ceil(test_fraction N)`` tested copies chosen uniformly at random
    (hypergeometric), and ``detection`` the probability that testing one bad copy exposes it
    (1/2 for one qubit GHZ test of a known-pads copy, up to ``2**-P``;
    :func:`register_detection` for a register tested qubit by qubit). Exact; the scan over B
    stops once ``E[(1 - detection)**K]`` (which decreases with B) falls below the best value.
    ``n_copies`` up to 100 000.
    """
    n = check_int(n_copies, "n_copies", 1, MAX_EPSILON_COPIES)
    f = _check_fraction(test_fraction, "test_fraction")
    beta = _check_fraction(bad_fraction, "bad_fraction")
    delta = check_float(detection, "detection", 0.0, 1.0)
    t = _tested_count(n, f)
    u = n - t
    best = 0.0
    for bad in range(int(math.floor(beta * u)) + 1, n + 1):
        best = max(best, _cheat(n, t, bad, beta, delta))
        bound = _cheat(n, t, bad, -1.0, delta)  # E[(1-delta)^K], no condition on used copies
        if bound <= best:
            break
    return best


# --------------------------------------------------------------------------------------------
# Qiskit path (small P and b)
# --------------------------------------------------------------------------------------------

def _check_column(x, bits: int) -> list[int]:
    arr = _check_inputs(np.asarray(x).reshape(-1, 1) if np.ndim(x) == 1 else x, bits)
    if arr.shape[1] != 1:
        raise ValueError(f"x must be one entry per worker, shape (P,), got shape {np.shape(x)}")
    P = arr.shape[0]
    if P * bits > MAX_CIRCUIT_QUBITS:
        raise ValueError(f"the Qiskit path needs P * bits <= {MAX_CIRCUIT_QUBITS} qubits, "
                         f"got P = {P}, bits = {bits}")
    return [int(v) & word_mask(bits) for v in arr[:, 0]]


def vga_circuit(x, bits: int, *, pads=None, flips=None, measure: bool = True):
    """The VGA circuit for one entry: source, phases ``Z^{x_j}``, Fourier measurement.

    ``x``: P ints (one per worker; all zeros gives the pads form). Register ``w{j}`` holds
    worker j's b qubits, qubit i of weight ``2**i`` (little endian); classical register ``m{j}``
    receives ``m_j``. Source: ideal GHZ (qubit GHZ i = H on ``w0[i]`` and CNOTs to every
    ``wj[i]``); ``flips`` (b bools) puts a Z on ``w0[i]`` (a dephased copy); ``pads`` (P ints,
    zero-sum) replaces the GHZ by the known-pads product ``F|r_1> ... F|r_P>``.
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


def vga_aggregate_qiskit(inputs, *, bits: int = 2, source: str = "honest", noise=None,
                         seed=None) -> np.ndarray:
    """Transcript of the aggregation run as Qiskit circuits on Aer, one shot per entry.

    Same sources as :func:`vga_aggregate` for the *used* copies (``"eavesdropper"`` is
    ``"known_pads"`` on its attacked copies, so it is not repeated here). Entries with the same
    circuit share one Aer job (shots = their number). Returns int64 (P, d) in ``0..2**bits-1``.
    For small instances: ``P * bits <= 16``, ``d <= 20 000``.
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
    for circ, (key, members) in zip(compiled, groups.items()):
        # A fresh simulator seed per job: reusing one seed would correlate the groups' shots.
        memory = sim.run(circ, shots=len(members), memory=True,
                         seed_simulator=int(rng.integers(0, 2**31))).result().get_memory()
        for e, word in zip(members, memory):
            regs = word.split()[::-1]  # Qiskit prints the last register first
            out[:, e] = [int(s, 2) for s in regs]
    return out


def vga_outcome_probabilities(x, bits: int, *, flips=None, pads=None) -> dict:
    """Exact distribution of the announcements ``(m_0, ..., m_{P-1})`` for one entry, from the
    circuit's state vector (Qiskit ``Statevector``). Keys: tuples of ints; zero entries omitted."""
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
