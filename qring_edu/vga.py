"""VGA — Verified GHZ Aggregation (protocols layer; book/05_vga.ipynb).

P workers hold b-bit words ``x_j`` (one per entry of a vector of length d) and want ``sum_j x_j
mod 2**b`` and nothing else, from an *untrusted* GHZ source and a public authenticated channel.

**The honest protocol.** A GHZ state over Z_{2^b}, ``2**(-b/2) sum_g |g>|g>...|g>`` (one b-qubit
register per worker), is b qubit GHZ states side by side: qubit i of every register (weight
``2**i``, little endian as in Qiskit) belongs to qubit GHZ i. *Phase form*: worker j applies
``Z^{x_j}: |g> -> w^{x_j g}`` (``w = exp(2 pi i/2**b)``), measures in the Fourier basis and
broadcasts ``m_j``, uniform on ``{m : sum_j m_j = sum_j x_j}``. *Pads form*: measuring first
gives zero-sum pads ``r_j`` (:func:`zero_sum_pads`); ``m_j = x_j + r_j`` has the same law.
Everyone adds the announcements. :func:`vga_aggregate` runs the pads form, :func:`vga_circuit`
draws the phase form.

**Verification** (the GHZ test after Pappa et al. 2012). The source delivers ``N = ceil(k d/(1 -
f))`` register-copies (:func:`vga_copy_counts`); with randomness drawn after delivery the
workers test a secret random ``T = N - k d`` of them and use the rest, k per entry. On every
qubit GHZ of a tested register each worker measures X or Y (an even number 2m of Y's); the test
passes iff the XOR of the outcome bits is ``m mod 2``; the run is accepted iff at most
``tolerance * tests`` fail. Sources: :class:`Honest`, :class:`Dephasing`, :class:`KnownPads`,
:class:`Eavesdropper`.

**Dropout** before announcing loses the round for everyone (the other announcements sum to a
uniformly random word); the survivors restart on fresh copies (:func:`vga_restart`). Bonawitz et
al. 2017 tolerate dropout; VGA does not. What the tests prove: :mod:`qring_edu.vga_security`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ._result import result
from ._validate import (
    as_numeric_array,
    check_bits,
    check_fidelity,
    check_float,
    check_int,
    generator,
    seed_sequence,
)
from .fixedpoint import to_signed, word_mask
from .ring import AllReduceResult, ring_allreduce

__all__ = [
    "Honest",
    "Dephasing",
    "KnownPads",
    "Eavesdropper",
    "VGAResult",
    "VGALedger",
    "VGARingResult",
    "VGARestart",
    "zero_sum_pads",
    "vga_copy_counts",
    "vga_aggregate",
    "vga_restart",
    "vga_ring_allreduce",
    "known_pads_detection",
    "sample_sum_shift",
    "vga_circuit",
    "vga_aggregate_qiskit",
]

#: Largest memory one simulated run may need (bytes); larger runs are refused up front.
MAX_RUN_BYTES = 16 << 30
#: Qiskit path limit: P * b qubits per circuit.
MAX_QUBITS = 16
#: Largest privacy amplification (registers summed into one entry's pad).
MAX_AMPLIFICATION = 64


# -- Sources ---------------------------------------------------------------------------------
class _Source:
    """What every source tells :func:`vga_aggregate`; the sources below override it."""

    knows_pads: ClassVar[bool] = False  # it holds the pads of the registers it spoiled
    shifts_sum: ClassVar[bool] = False  # its spoiled qubit GHZs are phase flips

    def deliver(self, n_copies: int, bits: int, rng: np.random.Generator) -> np.ndarray:
        """uint64 (N,): bit i of entry n set where qubit GHZ i of register-copy n is spoiled."""
        return np.zeros(n_copies, dtype=np.uint64)

    def fail_probability(self, workers: int) -> float:
        """Probability that a spoiled qubit GHZ fails one test."""
        return 0.0


@dataclass(frozen=True)
class Honest(_Source):
    """The ideal source: genuine GHZ registers (tests pass, sums exact, pads secret from all).

    Examples
    --------
    >>> vga_aggregate([[1, 2], [3, 4]], bits=4, source=Honest(), seed=0).accepted
    True
    """


@dataclass(frozen=True)
class Dephasing(_Source):
    """Noise, not an attack: each qubit GHZ copy independently arrives phase-flipped,
    ``(|0..0> - |1..1>)/sqrt 2``, with probability ``p`` (default 0.02). A flipped qubit GHZ fails
    every test and, if used, shifts its entry's sum (:func:`sample_sum_shift`); it reveals nothing.

    Examples
    --------
    >>> Dephasing(0.05)
    Dephasing(p=0.05)
    """

    p: float = 0.02
    shifts_sum: ClassVar[bool] = True

    def __post_init__(self):
        object.__setattr__(self, "p", check_float(self.p, "Dephasing p", 0.0, 1.0))

    def deliver(self, n_copies, bits, rng):
        flips = rng.random((n_copies, bits)) < self.p  # flips[n, i]: qubit GHZ i of copy n
        return (flips << np.arange(bits, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)

    def fail_probability(self, workers):
        return 1.0


@dataclass(frozen=True)
class KnownPads(_Source):
    """The known-pads attack on ``round(fraction * N)`` register-copies (default all), chosen
    before the secret split; the others are genuine. An attacked copy is the product
    ``F|r_1> ... F|r_P>`` with zero-sum pads the source chose: the sums stay exact,
    ``m_j - r_j = x_j`` hands it every input of the entry, and each qubit GHZ test fails with
    probability :func:`known_pads_detection` ``(1 - 2**(1-P))/2`` (below 1/2 for every P).

    Examples
    --------
    >>> KnownPads(), KnownPads(0.1)
    (KnownPads(fraction=1.0), KnownPads(fraction=0.1))
    """

    fraction: float = 1.0
    knows_pads: ClassVar[bool] = True

    def __post_init__(self):
        name = f"{type(self).__name__} fraction"
        object.__setattr__(self, "fraction", check_float(self.fraction, name, 0.0, 1.0))

    def deliver(self, n_copies, bits, rng):
        chosen = rng.choice(n_copies, size=round(self.fraction * n_copies), replace=False)
        bad = np.zeros(n_copies, dtype=np.uint64)
        bad[chosen] = word_mask(bits)  # every qubit GHZ of the register
        return bad

    def fail_probability(self, workers):
        return known_pads_detection(workers)


@dataclass(frozen=True)
class Eavesdropper(KnownPads):
    """An eavesdropping source on a fraction (default 1/4) of the register-copies: it sends
    ``sum_r |F r_1 .. F r_P>|r>_E`` and keeps E. The workers' reduced state is the known-pads
    mixture, so tests, sums and announcements are those of :class:`KnownPads` with the same
    fraction; measuring E later hands the attacker those pads.

    Examples
    --------
    >>> Eavesdropper(), Eavesdropper(0.5).fraction
    (Eavesdropper(fraction=0.25), 0.5)
    """

    fraction: float = 0.25


def _as_source(source) -> _Source:
    if isinstance(source, _Source):
        return source
    if isinstance(source, str) and source == "honest":
        return Honest()
    raise (ValueError if isinstance(source, str) else TypeError)(
        "source must be Honest(), Dephasing(p), KnownPads(fraction) or Eavesdropper(fraction) "
        f"from qring_edu.vga ('honest' is short for Honest()), got {source!r}"
    )


# -- Results ---------------------------------------------------------------------------------
@result
class VGAResult:
    """Outcome of :func:`~qring_edu.vga.vga_aggregate` (settings as there; ``workers`` P, ``entries`` d):
    ``accepted`` iff ``tests_failed <= tolerance * tests`` (qubit GHZ tests; ``tests_passed``);
    ``total`` (int64 (d,)), the announcements received summed mod ``2**bits``, signed (the
    aggregate if ``complete``: every worker ``announced``, else uniformly random); ``transcript``
    (int64 (P, d)), the words ``m_j`` broadcast in ``0 .. 2**bits - 1`` (-1: dropped out);
    register-copies ``n_copies`` delivered, ``n_tested``, spoiled ``bad_used`` and
    ``bad_tested``; qubit GHZ copies ``ghz_delivered``, ``ghz_used``, ``ghz_tested`` (b per
    copy); the source's guess of every input, ``guess_words`` (uint32 (P, d); signed int64:
    ``attacker_guess``): ``m_j`` minus the pad where it holds every pad of the entry
    (``attacker_knows``, bool (d,)), the bare ``m_j`` elsewhere, and ``attacker_accuracy``, the
    fraction of announced inputs it gets right.

    Examples
    --------
    >>> x = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    >>> vga_aggregate(x, bits=4, seed=0)
    VGAResult(source=Honest(), bits=4, accepted=True, tests_failed=0, attacker_accuracy=0.3333, workers=3, entries=3, ghz_used=12, ghz_tested=12, complete=True)
    """

    source: _Source
    bits: int
    accepted: bool
    tests_failed: int
    attacker_accuracy: float
    workers: int
    entries: int
    ghz_used: int
    ghz_tested: int
    complete: bool
    total: np.ndarray = field(repr=False)
    transcript: np.ndarray = field(repr=False)
    announced: np.ndarray = field(repr=False)
    test_fraction: float = field(repr=False)
    tolerance: float = field(repr=False)
    amplification: int = field(repr=False)
    n_copies: int = field(repr=False)
    n_tested: int = field(repr=False)
    tests: int = field(repr=False)
    tests_passed: int = field(repr=False)
    ghz_delivered: int = field(repr=False)
    bad_used: int = field(repr=False)
    bad_tested: int = field(repr=False)
    guess_words: np.ndarray = field(repr=False)
    attacker_knows: np.ndarray = field(repr=False)

    @property
    def attacker_guess(self) -> np.ndarray:
        return to_signed(self.guess_words, self.bits)


@result
class VGALedger:
    """Resources of verified pads + superdense ring (all int): ``ring_online_qubits``,
    ``ring_ebits``, ``ring_offline_qubits`` on the busiest directed link, and ``ghz_delivered``,
    ``ghz_used``, ``ghz_tested`` qubit GHZ copies (each shared by all ``workers``).

    Examples
    --------
    >>> vga_ring_allreduce(np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), bits=4, seed=0).ledger
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
        return {k: v for k, v in vars(self).items() if k != "workers"}


@result
class VGARingResult:
    """Outcome of :func:`vga_ring_allreduce`: the pads' verdict ``accepted``, ``consistent``
    (every worker holds the same output), the resources ``ledger`` (:class:`VGALedger`),
    ``total`` (worker 0's output, int64 (d,), signed mod ``2**bits``), and the two runs: ``vga``
    (:class:`VGAResult`, the pads) and ``ring`` (the superdense ring on the masked values).

    Examples
    --------
    >>> run = vga_ring_allreduce(np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), bits=4, seed=0)
    >>> run.accepted, run.consistent, run.total.tolist()
    (True, True, [-4, -1, 2])
    """

    accepted: bool
    consistent: bool
    ledger: VGALedger
    total: np.ndarray = field(repr=False)
    vga: VGAResult = field(repr=False)
    ring: AllReduceResult = field(repr=False)


@result
class VGARestart:
    """A round lost to dropouts and its restart (:func:`vga_restart`): ``survivors`` (rows of
    ``inputs`` in the restart), ``ghz_delivered`` (qubit GHZ copies of both rounds), ``total``
    (the survivors' sum, int64 (d,)), and the two :class:`VGAResult` ``first`` (the lost round)
    and ``restart`` (the survivors' round on fresh GHZ copies).

    Examples
    --------
    >>> run = vga_restart(np.array([[1, 2], [3, 4], [5, 6]]), dropped=[2], bits=4, seed=0)
    >>> run.total.tolist(), run.ghz_delivered, run.restart.ghz_delivered
    ([4, 6], 32, 16)
    """

    survivors: tuple[int, ...]
    ghz_delivered: int
    total: np.ndarray = field(repr=False)
    first: VGAResult = field(repr=False)
    restart: VGAResult = field(repr=False)


# -- Pads, copy counts, input checks ----------------------------------------------------------
def zero_sum_pads(workers: int, d: int, bits: int, seed=None, *, worker: int | None = None):
    """Uniformly random pads that sum to zero: uint32 (P, d), or worker ``worker``'s row (d,).

    Rows ``0 .. P-2`` are independent and uniform on ``0 .. 2**bits - 1`` (bits in 1..32), row j
    drawn from child j of one :class:`numpy.random.SeedSequence` made from ``seed``; the last
    row closes the sum, ``r_{P-1} = -(r_0 + ... + r_{P-2}) mod 2**bits``: uniform on the zero-sum
    tuples (any P - 1 rows jointly uniform). Every worker passing the same ``seed`` (not None; a
    Generator must be in the same state everywhere) draws *its own* row alone: worker ``j <
    P-1`` in O(d), worker ``P-1`` in O((P-1) d) time and O(d) memory (it redraws the other rows).

    Examples
    --------
    >>> pads = zero_sum_pads(3, 4, 4, seed=8)
    >>> pads.tolist(), (pads.sum(axis=0) % 16).tolist()
    ([[13, 8, 12, 4], [12, 6, 2, 6], [7, 2, 2, 6]], [0, 0, 0, 0])
    >>> zero_sum_pads(3, 4, 4, seed=8, worker=2).tolist()     # one row from the shared seed
    [7, 2, 2, 6]
    """
    workers = check_int(workers, "workers", 2, 100_000)  # the loop below runs P - 1 times
    d = check_int(d, "d", 1)
    bits = check_int(bits, "bits", 1, 32)  # b = 1: XOR pads (GHZ over Z_2)
    if (need := (workers if worker is None else 2) * d * 4) > MAX_RUN_BYTES:
        raise ValueError(f"d = {d:,} pads for {workers} workers need {need / 2**30:,.1f} GiB")
    if worker is not None:
        worker = check_int(worker, "worker", 0, workers - 1)
        if seed is None:
            raise ValueError("worker= needs a shared seed (seed=None draws fresh pads each call)")
    ss = seed_sequence(seed)
    mask = np.uint32(word_mask(bits))

    def row(j: int) -> np.ndarray:
        child = np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, j))
        rng = np.random.default_rng(child)
        return rng.integers(0, mask, size=d, dtype=np.uint32, endpoint=True)

    if worker is not None and worker < workers - 1:
        return row(worker)
    out = np.zeros((workers if worker is None else 1, d), dtype=np.uint32)
    last = out[-1]
    for j in range(workers - 1):
        r = row(j)
        last -= r  # uint32 wraps modulo 2**32: exact modulo 2**bits
        if worker is None:
            out[j] = r
    last &= mask
    return out if worker is None else last


def vga_copy_counts(entries: int, test_fraction: float, *, amplification: int = 1):
    """Register-copies delivered and tested for ``entries`` entries: ``(N, T)``, with ``U = k d``
    used registers, ``N = ceil(U / (1 - f))``, ``T = N - U = ceil(f N)``.

    Examples
    --------
    >>> vga_copy_counts(400, 0.5), vga_copy_counts(400, 0.5, amplification=3)
    ((800, 400), (2400, 1200))
    """
    entries = check_int(entries, "entries", 1)
    f = check_float(test_fraction, "test_fraction", 0.0, 1.0, hi_open=True)
    used = entries * check_int(amplification, "amplification", 1, MAX_AMPLIFICATION)
    n = max(used, math.ceil(used / (1.0 - f) - 1e-9))
    return n, n - used


def _check_inputs(inputs, bits: int) -> np.ndarray:
    """(P, d) integer words in ``-2**(b-1) .. 2**b - 1`` (signed or unsigned reading) -> int64."""
    arr = as_numeric_array(inputs, "inputs")
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"inputs must be integer words (see fixed_point), got {arr.dtype}")
    if arr.ndim != 2 or arr.shape[0] < 2 or arr.shape[1] < 1:
        raise ValueError(
            f"inputs must be 2-D, P >= 2 workers by d >= 1 entries (privacy needs two honest "
            f"workers: a lone worker's announcement is its input), got shape {arr.shape}"
        )
    lo, hi = -(1 << (bits - 1)), (1 << bits) - 1
    if (low := int(arr.min())) < lo or (high := int(arr.max())) > hi:
        bad = low if low < lo else high
        raise ValueError(f"inputs must be words of bits = {bits} bits, in {lo}..{hi}, got {bad}")
    return arr.astype(np.int64, copy=False)


def _check_size(P: int, d: int, n_copies: int, bits: int, test_fraction: float) -> None:
    # per copy: the dephasing draws (9 b bytes), masks, index; per word: pads, words, transcript
    if (need := n_copies * (9 * bits + 24) + P * d * 20) > MAX_RUN_BYTES:
        raise ValueError(
            f"test_fraction = {test_fraction:g} needs N = {n_copies:,} register-copies for {P} x "
            f"{d:,} words: about {need / 2**30:,.1f} GiB (at most 16 GiB); lower it or d"
        )


# -- The protocol ----------------------------------------------------------------------------
def vga_aggregate(
    inputs,
    *,
    bits: int = 8,
    test_fraction: float = 0.5,
    source=Honest(),  # noqa: B008  (a frozen value: a safe default)
    tolerance: float = 0.0,
    amplification: int = 1,
    dropped=(),
    seed=None,
) -> VGAResult:
    """Aggregate the rows of ``inputs`` with verified GHZ states (pads form; module docstring):
    a :class:`VGAResult`, in O(P d + N b) time and memory (runs over 16 GiB are refused).

    ``inputs``: int (P, d), worker j's b-bit words (signed or unsigned reading) in row j, P >= 2;
    ``bits`` in 2..32; ``test_fraction`` f in [0, 1): ``N = ceil(k d / (1 - f))`` register-copies
    delivered, ``T = N - k d`` tested; ``source``: ``Honest()`` (or "honest"), ``Dephasing(p)``,
    ``KnownPads(fraction)``, ``Eavesdropper(fraction)``; ``tolerance`` in [0, 1): accept iff
    ``tests_failed <= tolerance * tests``; ``amplification`` k in 1..64: each entry's pad sums k
    used registers' pads (secretly assigned), so it leaks only if all k are attacked
    (:func:`~qring_edu.vga_security.amplified_leak_probability`); ``dropped``: workers that drop
    out before announcing, losing the round (:func:`vga_restart`); ``seed``: int, sequence,
    SeedSequence, Generator or None.

    Examples
    --------
    >>> x = np.array([[1, 2, 3], [4, 5, 6]])
    >>> res = vga_aggregate(x, bits=4, seed=0)
    >>> res.total.tolist(), res.accepted, res.ghz_used, res.ghz_tested
    ([5, 7, -7], True, 12, 12)
    """
    bits = check_bits(bits)
    x = _check_inputs(inputs, bits)
    source = _as_source(source)
    f = check_float(test_fraction, "test_fraction", 0.0, 1.0, hi_open=True)
    tolerance = check_float(tolerance, "tolerance", 0.0, 1.0, hi_open=True)
    k = check_int(amplification, "amplification", 1, MAX_AMPLIFICATION)
    rng = generator(seed)
    P, d = x.shape
    announced = np.ones(P, dtype=bool)
    announced[[check_int(j, "dropped", 0, P - 1) for j in np.atleast_1d(dropped).tolist()]] = 0
    if not announced.any():
        raise ValueError(f"dropped must leave at least one of the {P} workers, got {dropped}")
    n, t = vga_copy_counts(d, f, amplification=k)
    _check_size(P, d, n, bits, f)
    mask = np.uint32(word_mask(bits))

    # 1. Delivery: N register-copies; only the source knows which qubit GHZ states it spoiled.
    spoiled = source.deliver(n, bits, rng)  # uint64 (N,): bit i = qubit GHZ i spoiled
    # 2. The secret split, drawn after delivery: T copies tested, the rest serve the entries.
    order = rng.permutation(n)
    tested, used = spoiled[order[:t]], spoiled[order[t:]].reshape(d, k)
    # 3. The GHZ tests on every qubit GHZ of every tested register (a good one always passes).
    failed = int(rng.binomial(int(np.bitwise_count(tested).sum()), source.fail_probability(P)))
    accepted = failed <= tolerance * t * bits
    # 4. Fourier measurement of the used registers: zero-sum pads (shifted where dephased).
    pads = zero_sum_pads(P, d, bits, rng)
    if source.shifts_sum:
        pads[-1] += _sum_shift(used, bits, rng).astype(np.uint32)
        pads[-1] &= mask
    # 5. Worker j announces m_j = x_j + r_j mod 2**b; everyone adds what was announced.
    words = x.astype(np.uint32) & mask  # two's complement; uint32 wraps exactly modulo 2**b
    m = (words + pads) & mask
    total = to_signed(np.sum(m, axis=0, dtype=np.uint32, where=announced[:, None]) & mask, bits)

    # What the source learns: where it holds every pad of an entry, m_j - r_j = x_j exactly.
    transcript = m.astype(np.int64)
    transcript[~announced] = -1
    knows = (used == word_mask(bits)).all(axis=1) & source.knows_pads
    guess = m  # the announcements, where the source holds no pad (m is not used below)
    guess[:, knows] = (m[:, knows] - pads[:, knows]) & mask
    accuracy = float(np.mean(np.mean(guess == words, axis=1)[announced]))
    return VGAResult(
        source=source,
        bits=bits,
        accepted=bool(accepted),
        tests_failed=failed,
        attacker_accuracy=accuracy,
        workers=P,
        entries=d,
        ghz_used=(n - t) * bits,
        ghz_tested=t * bits,
        complete=bool(announced.all()),
        total=total,
        transcript=transcript,
        announced=announced,
        test_fraction=f,
        tolerance=tolerance,
        amplification=k,
        n_copies=n,
        n_tested=t,
        tests=t * bits,
        tests_passed=t * bits - failed,
        ghz_delivered=n * bits,
        bad_used=int(np.count_nonzero(used)),
        bad_tested=int(np.count_nonzero(tested)),
        guess_words=guess,
        attacker_knows=knows,
    )


def _sum_shift(used: np.ndarray, bits: int, rng: np.random.Generator) -> np.ndarray:
    """Per entry, the sum shift of its k used registers' phase flips (``used``: uint64 (d, k))."""
    hit = used != 0
    shift = np.zeros(used.shape, dtype=np.int64)
    if hit.any():
        flips = (used[hit][:, None] >> np.arange(bits, dtype=np.uint64)) & np.uint64(1)
        shift[hit] = sample_sum_shift(flips.astype(bool), rng)
    return shift.sum(axis=1)


def vga_restart(
    inputs,
    *,
    dropped,
    bits: int = 8,
    test_fraction: float = 0.5,
    source=Honest(),  # noqa: B008
    tolerance: float = 0.0,
    seed=None,
) -> VGARestart:
    """A round lost to ``dropped`` workers (module docstring), then the survivors' round on fresh
    GHZ copies: their sum, never the dropped inputs (Bonawitz et al. 2017 recover them with t-of-n
    secret sharing). Keywords as in :func:`vga_aggregate`.

    Examples
    --------
    >>> run = vga_restart(np.array([[1, 2], [3, 4], [5, 6]]), dropped=[0], bits=4, seed=1)
    >>> run.first.complete, run.survivors, run.total.tolist()      # (8, 10) mod 16, signed
    (False, (1, 2), [-8, -6])
    """
    rng = generator(seed)
    options = dict(bits=bits, test_fraction=test_fraction, source=source, tolerance=tolerance)
    first = vga_aggregate(inputs, dropped=dropped, seed=rng, **options)
    if first.announced.sum() < 2:
        raise ValueError(f"dropped must leave at least 2 workers, got dropped = {list(dropped)}")
    again = vga_aggregate(np.asarray(inputs)[first.announced], seed=rng, **options)
    survivors = tuple(int(j) for j in np.flatnonzero(first.announced))
    return VGARestart(
        survivors, first.ghz_delivered + again.ghz_delivered, again.total, first, again
    )


def vga_ring_allreduce(
    inputs,
    *,
    bits: int = 8,
    test_fraction: float = 0.5,
    source=Honest(),  # noqa: B008
    tolerance: float = 0.0,
    amplification: int = 1,
    pair_fidelity: float = 1.0,
    seed=None,
) -> VGARingResult:
    """Verified pads + superdense ring: :func:`qring_edu.ring_allreduce` (superdense transport)
    sums the masked values ``x_j + r_j``: ``sum_j x_j mod 2**bits`` (exact at ``pair_fidelity =
    1``), every message a masked partial sum. Other keywords as in :func:`vga_aggregate`.

    Examples
    --------
    >>> run = vga_ring_allreduce(np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), bits=4, seed=0)
    >>> run.accepted, run.total.tolist(), run.ledger.ring_online_qubits
    (True, [-4, -1, 2], 8)
    """
    rng = generator(seed)
    check_fidelity(pair_fidelity, "pair_fidelity")
    options = dict(bits=bits, test_fraction=test_fraction, source=source, tolerance=tolerance)
    vga = vga_aggregate(inputs, amplification=amplification, seed=rng, **options)
    ring = ring_allreduce(
        vga.transcript, transport="superdense", bits=bits, seed=rng, pair_fidelity=pair_fidelity
    )
    led = ring.ledger
    links = (led.online_qubits(), led.ebits(), led.offline_qubits())
    ledger = VGALedger(vga.workers, *links, vga.ghz_delivered, vga.ghz_used, vga.ghz_tested)
    return VGARingResult(vga.accepted, bool(ring.consistent), ledger, ring.outputs[0], vga, ring)


# -- Known pads under test, the dephased sum ---------------------------------------------------
def known_pads_detection(workers: int) -> float:
    """Probability that one GHZ test fails on a known-pads qubit GHZ: ``(1 - 2**(1-P)) / 2``
    (equator states pass with probability ``(1 + cos(sum_j phi_j) / 2**(P-1)) / 2``, and
    zero-sum pads make ``sum_j phi_j = 0``).

    Examples
    --------
    >>> known_pads_detection(2), known_pads_detection(3), known_pads_detection(10)
    (0.25, 0.375, 0.4990234375)
    """
    workers = check_int(workers, "workers", 2)
    return (1.0 - 2.0 ** (1 - workers)) / 2.0


def sample_sum_shift(flips, seed=None) -> np.ndarray:
    """Shift ``t = sum_j m_j - sum_j x_j mod 2**b`` from dephased qubit GHZs: int64 (n,), exact.

    ``flips[e, i]`` (bool (n, b)): qubit GHZ i of entry e arrived phase-flipped (theta_i = pi).
    The law ``prod_i |1 + exp(i (theta_i - 2 pi 2**i t/2**b))|**2 / 4`` is sampled bit by bit from
    the least significant (semiclassical Fourier measurement): qubit ``i = b-1-k`` fixes bit k
    with ``P(t_k = 1 | lower bits) = sin**2((theta_i - pi t_low / 2**k) / 2)``.

    Examples
    --------
    A flip of qubit GHZ i shifts the sum by ``2**(b-1-i)`` (b = 2: no flip, GHZ 0, GHZ 1):

    >>> sample_sum_shift(np.array([[0, 0], [1, 0], [0, 1]], dtype=bool), seed=0).tolist()
    [0, 2, 1]
    """
    flips, rng = np.asarray(flips), generator(seed)
    if flips.ndim != 2 or flips.dtype.kind not in "biu" or np.any((flips != 0) & (flips != 1)):
        raise ValueError(f"flips must be a 2-D array of booleans (n, bits), got {flips!r}")
    flips = flips.astype(bool)
    n, b = flips.shape
    t = np.zeros(n, dtype=np.int64)
    for k in range(b):
        angle = np.pi * flips[:, b - 1 - k] - np.pi * t / float(1 << k)
        t += (rng.random(n) < np.sin(angle / 2.0) ** 2).astype(np.int64) << k
    return t


# -- Qiskit path (small P and b) -------------------------------------------------------------
def _words_of(values, bits: int, name: str, P: int | None = None) -> list[int]:
    arr = np.asarray(values).reshape(-1)
    if not np.issubdtype(arr.dtype, np.integer) or arr.size < 2 or P not in (None, arr.size):
        want = "P >= 2" if P is None else f"P = {P}"
        raise ValueError(f"{name} must be {want} integer words, got {values!r}")
    if arr.size * bits > MAX_QUBITS:
        raise ValueError(f"P * bits must be <= {MAX_QUBITS} qubits, got {arr.size} * {bits}")
    return [int(v) & word_mask(bits) for v in arr]


def vga_circuit(x, bits: int, *, pads=None, flips=None, measure: bool = True):
    """The VGA circuit for one entry: source, phases ``Z^{x_j}`` (``x``: P ints), Fourier
    measurement of register ``w{j}`` (qubit i of weight ``2**i``) into ``m{j}``. Source: ideal
    GHZ; ``flips`` (b bools): a Z on ``w0[i]`` (dephased); ``pads`` (P zero-sum ints): the
    known-pads product ``F|r_1> ... F|r_P>``; not both.

    Examples
    --------
    >>> qc = vga_circuit([1, 2, 3], bits=2)
    >>> qc.num_qubits, [r.name for r in qc.qregs], [r.name for r in qc.cregs]
    (6, ['w0', 'w1', 'w2'], ['m0', 'm1', 'm2'])
    """
    from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister
    from qiskit.circuit.library import QFTGate

    bits = check_bits(bits)
    if not isinstance(measure, (bool, np.bool_)):
        raise TypeError(f"measure must be True or False, got {measure!r}")
    xs = _words_of(x, bits, "x")
    P = len(xs)
    if pads is not None and flips is not None:
        raise ValueError("give pads (a known-pads copy) or flips (a dephased GHZ), not both")
    regs = [QuantumRegister(bits, f"w{j}") for j in range(P)]
    cregs = [ClassicalRegister(bits, f"m{j}") for j in range(P)] if measure else []
    qc = QuantumCircuit(*regs, *cregs)
    qft, inverse_qft = QFTGate(bits), QFTGate(bits).inverse()
    qft.label, inverse_qft.label = "QFT", "QFT†"
    if pads is None:
        for i in range(bits):
            qc.h(regs[0][i])
            for j in range(1, P):
                qc.cx(regs[0][i], regs[j][i])
        flips = np.zeros(bits, bool) if flips is None else np.asarray(flips, dtype=bool)
        if flips.shape != (bits,):
            raise ValueError(f"flips must be {bits} bools (one per qubit GHZ), got {flips.shape}")
        for i in np.flatnonzero(flips):
            qc.z(regs[0][int(i)])
    else:
        rs = _words_of(pads, bits, "pads", P)
        if sum(rs) % (1 << bits):
            raise ValueError(f"pads must sum to 0 mod 2**bits, got {rs}")
        for j, rj in enumerate(rs):
            for qubit in (regs[j][i] for i in range(bits) if (rj >> i) & 1):
                qc.x(qubit)
            qc.append(qft, regs[j])
    qc.barrier()
    for j, xj in enumerate(xs):  # Z^{x_j}: phase 2 pi x_j 2**i / 2**b on |1> of qubit i
        for i in range(bits):
            if (xj << i) % (1 << bits):
                qc.p(2 * math.pi * ((xj << i) % (1 << bits)) / (1 << bits), regs[j][i])
    qc.barrier()
    for j in range(P):
        qc.append(inverse_qft, regs[j])
        if measure:
            qc.measure(regs[j], cregs[j])
    return qc


def vga_aggregate_qiskit(inputs, *, bits: int = 2, source=Honest(), seed=None):  # noqa: B008
    """Transcript of the aggregation as Qiskit circuits on Aer, one shot per entry: int64 (P, d).
    Each entry's register comes from ``source.deliver`` (dephased: its flips; known pads: random
    zero-sum pads); entries with the same circuit share one Aer job. ``P * bits <= 16``, ``d <=
    20 000``.

    Examples
    --------
    >>> x = np.array([[1, 2], [3, 0], [2, 2]])
    >>> (vga_aggregate_qiskit(x, bits=2, seed=0).sum(axis=0) % 4).tolist()       # (6, 4) mod 4
    [2, 0]
    """
    from qiskit import transpile
    from qiskit_aer import AerSimulator

    bits = check_bits(bits)
    x = _check_inputs(inputs, bits)
    source = _as_source(source)
    rng = generator(seed)
    P, d = x.shape
    check_int(d, "d (entries)", 1, 20_000)
    _words_of(x[:, 0], bits, "inputs")
    spoiled = source.deliver(d, bits, rng)
    groups: dict = {}
    for e in range(d):
        flips = pads = None
        if source.knows_pads and spoiled[e] == word_mask(bits):
            pads = tuple(int(v) for v in zero_sum_pads(P, 1, bits, rng)[:, 0])
        elif source.shifts_sum:
            flips = tuple(bool((int(spoiled[e]) >> i) & 1) for i in range(bits))
        key = (tuple(int(v) & word_mask(bits) for v in x[:, e]), flips, pads)
        groups.setdefault(key, []).append(e)
    sim = AerSimulator()
    circuits = [vga_circuit(list(k[0]), bits, flips=k[1], pads=k[2]) for k in groups]
    out = np.zeros((P, d), dtype=np.int64)
    for circ, members in zip(transpile(circuits, sim, optimization_level=0), groups.values()):
        # A fresh simulator seed per job: reusing one seed would correlate the groups' shots.
        job = sim.run(
            circ, shots=len(members), memory=True, seed_simulator=int(rng.integers(2**31))
        )
        for e, word in zip(members, job.result().get_memory()):
            out[:, e] = [int(s, 2) for s in word.split()[::-1]]  # Qiskit prints m{P-1} first
    return out
