"""Experiments of chapter 5, *Verified GHZ aggregation* (book/05_vga.ipynb): attacks, exact
privacy, circuits against the fast path, the GHZ test as a witness, and the soundness error ε.

Numbers come from :mod:`qring_edu.vga` and :mod:`qring_edu.vga_security`. Worker j announces a
word ``m_j`` in ``0 .. 2**bits - 1``. Every ε comes from
:func:`qring_edu.vga_security.detection_probability` of a named attack (no detection assumed);
``bad_fraction`` is β, ``test_fraction`` f, ``n_copies`` N (GHZ copies delivered).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import field

import numpy as np
from scipy.stats import chisquare

from .._result import result
from .._validate import as_numeric_array, check_bits, check_float, check_int, check_seed
from ..fixedpoint import modular_sum
from ..vga import (
    Dephasing,
    Eavesdropper,
    Honest,
    KnownPads,
    VGAResult,
    vga_aggregate,
    vga_aggregate_qiskit,
    vga_copy_counts,
)
from ..vga_security import (
    KnownPadBits,
    SplitWorker,
    detection_probability,
    ghz_fidelity,
    ghz_state_pass_probability,
    ghz_witness,
    rotated_ghz_state,
    transcript_distance,
    vga_epsilon,
    vga_epsilon_floor,
    vga_outcome_probabilities,
    vga_state_outcome_probabilities,
)
from ._base import Table, Tabular

__all__ = [
    "source_attack",
    "attack_label",
    "AttackSweep",
    "attack_sweep",
    "ExactPrivacy",
    "exact_privacy",
    "TranscriptPaths",
    "transcript_paths",
    "sources_table",
    "WitnessTable",
    "witness_table",
    "DETECTION_ROWS",
    "DetectionTable",
    "detection_table",
    "EpsilonGrid",
    "epsilon_grid",
    "FractionSweep",
    "fraction_sweep",
    "EpsilonFloor",
    "epsilon_floor_sweep",
]

#: Largest amount of simulated work per call (runs * fractions * entries * workers).
MAX_WORK = 2_000_000
MAX_SAMPLES = 200_000
#: The attacks of :func:`detection_table` and what each leaks.
DETECTION_ROWS = (
    (KnownPads(), "every input of the entry"),
    (KnownPadBits(1), "the lowest bit of every input"),
    (Eavesdropper(), "every input of the entry (later)"),
    (SplitWorker(), "one worker's lowest input bit"),
    (Dephasing(), "nothing (the sum is shifted)"),
)


def source_attack(source):
    """The attack whose detection bounds ε for a source of :func:`qring_edu.vga_aggregate`: the
    source itself (whole-register known pads or eavesdropper, dephasing) and, for the honest
    source, the split worker (the cheapest certain leak, detection 1/4).

    Examples
    --------
    >>> source_attack(Honest()), source_attack(KnownPads(0.5))
    (SplitWorker(qubits=1), KnownPads(fraction=0.5))
    """
    return SplitWorker() if isinstance(source, Honest) else source


def _source(source):
    """The source value (``"honest"`` is short for ``Honest()``), or a TypeError naming it."""
    if isinstance(source, str) and source == "honest":
        return Honest()
    if not isinstance(source, (Honest, Dephasing, KnownPads)):
        raise TypeError(
            f"source must be Honest(), Dephasing(p), KnownPads(fraction) or Eavesdropper("
            f"fraction) from qring_edu.vga, got {source!r}"
        )
    return source


def attack_label(attack) -> str:
    """A readable name of an attack value.

    Examples
    --------
    >>> attack_label(KnownPadBits(1)), attack_label(SplitWorker(2))
    ('known pads on one qubit GHZ', 'split worker (2 qubit GHZ)')
    """
    if isinstance(attack, Dephasing):
        return "dephasing"
    if isinstance(attack, KnownPads):
        return f"{'eavesdropper' if isinstance(attack, Eavesdropper) else 'known pads'}, whole register"
    count = "one" if attack.qubits == 1 else str(attack.qubits)
    if isinstance(attack, SplitWorker):
        return f"split worker ({count} qubit GHZ)"
    return f"known pads on {count} qubit GHZ"


# -- Attack playground ---------------------------------------------------------------------------
@result(show=("acceptance_at_f", "accuracy_at_f", "epsilon_at_f"))
class AttackSweep:
    """Per test fraction ``fractions[i]``: ``acceptance`` (share of runs accepted), ``accuracy``
    (share of inputs the source guessed), ``fail_rate`` (failed / run tests) and ``epsilon``
    (:func:`qring_edu.vga_epsilon` with the ``detection`` of ``attack``).

    Examples
    --------
    >>> attack_sweep(KnownPads(), 0.5, 4, runs=20)
    AttackSweep(source=KnownPads(fraction=1.0), workers=3, bits=2, entries=4, runs=20, test_fraction=0.5, attack=KnownPads(fraction=1.0), detection=0.6094, acceptance_at_f=0, accuracy_at_f=1, epsilon_at_f=0.5)
    """

    source: object
    workers: int
    bits: int
    entries: int
    runs: int
    test_fraction: float
    attack: object
    detection: float
    bad_fraction: float = field(repr=False)
    fractions: np.ndarray = field(repr=False)
    acceptance: np.ndarray = field(repr=False)
    accuracy: np.ndarray = field(repr=False)
    fail_rate: np.ndarray = field(repr=False)
    epsilon: np.ndarray = field(repr=False)

    def at(self, name: str) -> float:
        """Value of ``name`` ("acceptance", "accuracy", "fail_rate", "epsilon") at test_fraction."""
        i = int(np.argmin(np.abs(self.fractions - self.test_fraction)))
        return float(getattr(self, name)[i])

    acceptance_at_f = property(lambda self: self.at("acceptance"), doc="At test_fraction.")
    accuracy_at_f = property(lambda self: self.at("accuracy"), doc="At test_fraction.")
    epsilon_at_f = property(lambda self: self.at("epsilon"), doc="At test_fraction.")


def attack_sweep(
    source=KnownPads(),  # noqa: B008  (a frozen value)
    test_fraction: float = 0.5,
    entries: int = 8,
    *,
    workers: int = 3,
    bits: int = 2,
    runs: int = 200,
    tolerance: float = 0.0,
    bad_fraction: float = 0.1,
    attack=None,
    seed: int = 0,
) -> AttackSweep:
    """Run :func:`qring_edu.vga_aggregate` ``runs`` times per test fraction in
    ``{0, 0.1, ..., 0.9} + {test_fraction}`` on random inputs (P = ``workers``, d = ``entries``);
    ε uses the detection of ``attack`` (default :func:`source_attack`).

    Examples
    --------
    >>> sw = attack_sweep(KnownPads(), 0.5, 4, runs=20)
    >>> float(sw.acceptance[0]), float(sw.accuracy[0])   # f = 0: never caught, learns every input
    (1.0, 1.0)
    """
    source = _source(source)
    f = check_float(test_fraction, "test_fraction", 0.0, 1.0, hi_open=True)
    entries = check_int(entries, "entries", 1, 10_000)
    workers = check_int(workers, "workers", 2, 64)
    bits = check_bits(bits)
    runs = check_int(runs, "runs", 1, 100_000)
    beta = check_float(bad_fraction, "bad_fraction", 0.0, 1.0, hi_open=True)
    check_seed(seed)
    fractions = np.unique(np.round(np.append(np.arange(10) / 10, f), 6))
    if runs * fractions.size * entries * workers > MAX_WORK:
        limit = MAX_WORK // fractions.size
        raise ValueError(f"runs * entries * workers is too large (at most {limit} per fraction)")
    attack = source_attack(source) if attack is None else attack
    detection = detection_probability(attack, workers, bits=bits)
    rng = np.random.default_rng(seed)
    options = dict(bits=bits, source=source, tolerance=tolerance, seed=rng)

    def run(frac):
        x = rng.integers(0, 2**bits, size=(workers, entries))
        return vga_aggregate(x, test_fraction=frac, **options)

    acc, guess, fail, eps = [], [], [], []
    for frac in map(float, fractions):
        res = [run(frac) for _ in range(runs)]
        tests = sum(r.tests for r in res)
        acc.append(sum(r.accepted for r in res) / runs)
        guess.append(sum(r.attacker_accuracy for r in res) / runs)
        fail.append(sum(r.tests_failed for r in res) / tests if tests else 0.0)
        n_copies = vga_copy_counts(entries, frac)[0]
        eps.append(vga_epsilon(n_copies, frac, beta, detection=detection))
    curves = [np.array(v) for v in (acc, guess, fail, eps)]
    settings = (source, workers, bits, entries, runs, f, attack, detection, beta)
    return AttackSweep(*settings, fractions, *curves)


# -- Privacy, exactly ----------------------------------------------------------------------------
def _words(values, name: str) -> np.ndarray:
    arr = as_numeric_array(values, name).reshape(-1)
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integers (one word per worker), got dtype {arr.dtype}")
    return arr.astype(np.int64)


def _ghz_register_state(workers: int, bits: int) -> np.ndarray:
    """``2**(-b/2) sum_g |g>_1 ... |g>_P`` as a vector (index ``sum_j g_j 2**(b j)``)."""
    psi = np.zeros(1 << (workers * bits))
    psi[[sum(g << (bits * j) for j in range(workers)) for g in range(1 << bits)]] = 2 ** (-bits / 2)
    return psi


@result(show=("same_sum",))
class ExactPrivacy(Tabular):
    """Transcript laws of input sets a and b from the GHZ state (what an outsider sees for every
    source, :func:`qring_edu.vga_security.vga_state_outcome_probabilities`): ``joint_a[u, v]`` =
    P((m_0, m_1) = (u, v)), ``sums_a[s]`` = P(Σ m_j = s mod 2**b); ``between``: their
    total-variation distance; ``distance_a``: :func:`qring_edu.vga_security.transcript_distance`.

    Examples
    --------
    >>> exact_privacy([1, 2, 3], [3, 3, 0], bits=2)
    ExactPrivacy(bits=2, source=Honest(), amplification=1, between=0, distance_a=0, distance_b=0, same_sum=True)
    >>> exact_privacy([1, 2, 3], [3, 3, 0], bits=2, source=KnownPads()).distance_a
    0.9375
    """

    bits: int
    source: object
    amplification: int
    between: float
    distance_a: float
    distance_b: float
    method: str = field(repr=False)
    inputs_a: np.ndarray = field(repr=False)
    inputs_b: np.ndarray = field(repr=False)
    joint_a: np.ndarray = field(repr=False)
    joint_b: np.ndarray = field(repr=False)
    sums_a: np.ndarray = field(repr=False)
    sums_b: np.ndarray = field(repr=False)

    same_sum = property(
        lambda self: (int(self.inputs_a.sum()) - int(self.inputs_b.sum())) % (1 << self.bits) == 0,
        doc="Both sets have the same sum mod 2**b.",
    )

    def table(self) -> Table:
        """Per input set: the announced sum and the distance from the ideal for the source."""
        m = (1 << self.bits) - 1
        sets = (("a", self.inputs_a, self.distance_a), ("b", self.inputs_b, self.distance_b))
        rows = tuple(
            (name, ", ".join(str(int(v)) for v in x), int(x.sum()) & m, dist)
            for name, x, dist in sets
        )
        head = ("inputs", "words", "sum mod 2^b")
        head += (f"TV from ideal ({type(self.source).__name__}, joint with attacker)",)
        title = f"TV between the transcripts of a and b: {self.between:.6f}"
        return Table(head, rows, ("", "", "d", ".6f"), title=title)


def exact_privacy(
    inputs_a: Sequence[int] = (1, 2, 3),
    inputs_b: Sequence[int] = (3, 3, 0),
    bits: int = 2,
    *,
    source=Honest(),  # noqa: B008
    amplification: int = 1,
) -> ExactPrivacy:
    """:class:`ExactPrivacy` of one entry for two input sets, ``source`` one of
    :class:`~qring_edu.vga.Honest`, :class:`~qring_edu.vga.KnownPads`,
    :class:`~qring_edu.vga.Eavesdropper`: P >= 2 words per set, ``P * bits <= 12``, ``bits`` in
    1..6, ``amplification`` k in 1..8. Nothing is sampled.

    Examples
    --------
    >>> exact_privacy((1, 2, 3), (1, 2, 2), bits=2).between
    1.0
    """
    bits = check_int(bits, "bits", 1, 6)
    a, b = _words(inputs_a, "inputs_a"), _words(inputs_b, "inputs_b")
    if a.size != b.size:
        raise ValueError(
            f"inputs_a and inputs_b must name the same number of workers, got {a.size} and {b.size}"
        )
    if a.size < 2:
        raise ValueError(f"inputs_a must name P >= 2 workers (two honest workers), got {a.size}")
    if a.size * bits > 12:
        raise ValueError(f"the exact laws need P * bits <= 12, got {a.size} * {bits}")
    k = check_int(amplification, "amplification", 1, 8)
    method = "exact" if (1 << (bits * (a.size - 1))) ** k <= 1 << 16 else "closed_form"
    dist = [
        transcript_distance(x, bits, source=source, amplification=k, method=method) for x in (a, b)
    ]
    psi, size = _ghz_register_state(a.size, bits), 1 << bits
    codes = np.arange(1 << (a.size * bits))
    digits = [(codes >> (bits * j)) & (size - 1) for j in range(a.size)]
    total = sum(digits) % size
    laws = [vga_state_outcome_probabilities(psi, x.tolist(), bits) for x in (a, b)]
    pairs = digits[0] * size + digits[1]  # (m_0, m_1)
    joints = [np.bincount(pairs, weights=w, minlength=size**2).reshape(size, size) for w in laws]
    sums = [np.bincount(total, weights=w, minlength=size) for w in laws]
    between = round(0.5 * float(np.abs(laws[0] - laws[1]).sum()), 12)
    return ExactPrivacy(bits, source, k, between, dist[0], dist[1], method, a, b, *joints, *sums)


# -- The circuits against the fast path ----------------------------------------------------------
@result(show=("aer_p_value", "fast_p_value"))
class TranscriptPaths(Tabular):
    """Transcripts of one column of inputs, ``samples`` runs each on the Aer circuits
    (:func:`qring_edu.vga.vga_aggregate_qiskit`) and on the fast path, against the exact law
    (:func:`qring_edu.vga_security.vga_outcome_probabilities`): ``exact``, ``aer_counts``,
    ``fast_counts`` (2**(b P),), transcript at code ``sum_j m_j 2**(b j)``.

    Examples
    --------
    >>> paths = transcript_paths((2, 3, 1), bits=2, samples=200)
    >>> paths.exact.shape, int(paths.fast_counts.sum()), int(paths.aer_counts.sum())
    ((64,), 200, 200)
    """

    inputs: tuple[int, ...]
    bits: int
    samples: int
    exact: np.ndarray = field(repr=False)
    aer_counts: np.ndarray = field(repr=False)
    fast_counts: np.ndarray = field(repr=False)

    def _fit(self, counts: np.ndarray) -> tuple[int, float]:
        support = self.exact > 0
        expected = self.exact[support] * self.samples
        return int(counts[~support].sum()), float(chisquare(counts[support], expected).pvalue)

    aer_p_value = property(lambda self: self._fit(self.aer_counts)[1], doc="Aer's p-value.")
    fast_p_value = property(lambda self: self._fit(self.fast_counts)[1], doc="Fast path's.")

    def table(self) -> Table:
        """Per path: transcripts off the sum and the chi-squared p-value against the exact law."""
        rows = [
            (name, *self._fit(c))
            for name, c in (("Aer circuits", self.aer_counts), ("fast path", self.fast_counts))
        ]
        columns = ("path", "transcripts off the sum", "chi-squared p vs exact")
        return Table(columns, tuple(rows), ("", "d", ".3f"))


def transcript_paths(
    inputs: Sequence[int] = (2, 3, 1),
    bits: int = 2,
    samples: int = 4000,
    *,
    aer_seed: int = 1,
    fast_seed: int = 2,
) -> TranscriptPaths:
    """Sample the transcripts of one entry (``inputs``: one word per worker) with both paths,
    ``samples`` times each; ``P * bits <= 12``.

    Examples
    --------
    >>> transcript_paths((1, 2), bits=2, samples=100).samples
    100
    """
    x = _words(inputs, "inputs")
    bits = check_bits(bits)
    samples = check_int(samples, "samples", 10, MAX_SAMPLES)
    if x.size * bits > 12:
        raise ValueError(f"P * bits must be <= 12 for the circuits, got {x.size} * {bits}")
    tile = np.tile(x[:, None], samples)
    aer = vga_aggregate_qiskit(tile, bits=bits, seed=aer_seed)
    fast = vga_aggregate(tile, bits=bits, seed=fast_seed).transcript
    size = 1 << (bits * x.size)
    exact = np.zeros(size)
    for m, p in vga_outcome_probabilities(x.tolist(), bits).items():
        exact[sum(int(v) << (bits * j) for j, v in enumerate(m))] = p

    def counts(t):
        return np.bincount(sum(t[j] << (bits * j) for j in range(x.size)), minlength=size)

    inputs = tuple(int(v) for v in x)
    return TranscriptPaths(inputs, bits, samples, exact, counts(aer), counts(fast))


# -- Sources side by side ------------------------------------------------------------------------
def sources_table(results: Mapping[str, VGAResult], inputs) -> Table:
    """One row per labelled :class:`~qring_edu.VGAResult` of the same ``inputs`` (P, d): the
    fraction of failed tests (– when none was run), acceptance, the fraction of entries whose
    sum is exact, and the fraction of inputs the source guessed exactly.

    Examples
    --------
    >>> x = np.arange(8).reshape(2, 4)
    >>> print(sources_table({"honest": vga_aggregate(x, bits=4, seed=0)}, x))
    source  failed tests  accepted  exact sums  source's accuracy
    honest         0.00%  True         100.00%              0.00%
    """
    x = as_numeric_array(inputs, "inputs")
    rows = []
    for label, r in results.items():
        if not isinstance(r, VGAResult):
            raise TypeError(f"results must map labels to VGAResult, got {type(r).__name__}")
        failed = r.tests_failed / r.tests if r.tests else None
        exact = float(np.mean(r.total == modular_sum(x, r.bits)))
        rows.append((str(label), failed, str(r.accepted), exact, float(r.attacker_accuracy)))
    columns = ("source", "failed tests", "accepted", "exact sums", "source's accuracy")
    return Table(columns, tuple(rows), ("", ".2%", "", ".2%", ".2%"))


# -- The GHZ test as a fidelity witness, on named states -----------------------------------------
def _row(rows: tuple, key, name: str) -> tuple:
    """The first row whose first entry equals ``key``; a ValueError naming ``name`` otherwise."""
    for r in rows:
        if r[0] == key:
            return r
    raise ValueError(f"{name} must be one of {', '.join(repr(r[0]) for r in rows)}, got {key!r}")


def _witness_states(workers: int, rng: np.random.Generator) -> list[tuple[str, np.ndarray]]:
    """Named P-qubit states (vectors, or a density matrix), worker j = bit j."""
    dim, ghz = 1 << workers, _ghz_register_state(workers, 1)
    flipped = ghz * np.where(np.arange(dim) == dim - 1, -1, 1)  # |GHZ->
    phases = rng.uniform(0, 2 * np.pi, workers)
    phases[-1] = -phases[:-1].sum()  # zero-sum phases: a known-pads copy
    product = np.ones(1)
    for phi in phases:  # kron puts later workers on higher bits
        product = np.kron(np.array([1.0, np.exp(1j * phi)]) / np.sqrt(2), product)
    split = np.kron(_ghz_register_state(workers - 1, 1), np.array([1.0, 1.0]) / np.sqrt(2))
    pure = rng.normal(size=dim) + 1j * rng.normal(size=dim)
    return [
        ("genuine GHZ", ghz),
        ("phase-flipped GHZ (dephased)", flipped),
        ("known-pads copy (product, zero-sum phases)", product),
        ("split worker: |+> (x) GHZ on the others", split),
        ("rotated GHZ, angle 0.3", rotated_ghz_state(0.3, workers)),
        ("maximally mixed", np.eye(dim) / dim),
        ("random pure state", pure / np.linalg.norm(pure)),
    ]


@result
class WitnessTable(Tabular):
    """``rows``: ``(state, fidelity, fail_probability, bound)`` of named P-qubit states: the
    fidelity with GHZ, the GHZ test's failure probability and the witness bound
    ``max(0, 1 - 2 P(fail))`` (:mod:`qring_edu.vga_security`); equal to F without a ``|GHZ->``
    component.

    Examples
    --------
    >>> witness_table(4)
    WitnessTable(workers=4)
    """

    workers: int
    rows: tuple = field(repr=False)

    def row(self, state: str) -> tuple:
        """The row of one named state."""
        return _row(self.rows, state, "state")

    def table(self) -> Table:
        # tight: F = 1 - 2 P(fail) exactly (the unclipped witness), i.e. no |GHZ-> component
        rows = tuple(
            (name, f, p, b, "yes" if abs(f - (1 - 2 * p)) < 1e-9 else "no")
            for name, f, p, b in self.rows
        )
        columns = ("state", "fidelity F", "P(test fails)", "witness 1 - 2 P(fail)", "tight")
        formats, title = ("", ".4f", ".4f", ".4f", ""), f"P = {self.workers} qubits"
        return Table(columns, rows, formats, title=title)


def witness_table(workers: int = 4, seed: int = 0) -> WitnessTable:
    """The witness ``F >= 1 - 2 P(fail)`` on seven named states of ``workers`` qubits (P in
    2..10; the random phases and the random pure state are seeded).

    Examples
    --------
    >>> print(witness_table(3).table())
    P = 3 qubits
    state                                       fidelity F  P(test fails)  witness 1 - 2 P(fail)  tight
    genuine GHZ                                     1.0000         0.0000                 1.0000  yes
    phase-flipped GHZ (dephased)                    0.0000         1.0000                 0.0000  no
    known-pads copy (product, zero-sum phases)      0.2500         0.3750                 0.2500  yes
    split worker: |+> (x) GHZ on the others         0.5000         0.2500                 0.5000  yes
    rotated GHZ, angle 0.3                          0.9127         0.0437                 0.9127  yes
    maximally mixed                                 0.1250         0.5000                 0.0000  no
    random pure state                               0.0174         0.5036                 0.0000  no
    """
    workers = check_int(workers, "workers", 2, 10)
    check_seed(seed)
    rows = []
    for name, state in _witness_states(workers, np.random.default_rng(seed)):
        fail = max(0.0, 1.0 - ghz_state_pass_probability(state))
        rows.append((name, ghz_fidelity(state), fail, ghz_witness(min(fail, 1.0)).fidelity_bound))
    return WitnessTable(workers=workers, rows=tuple(rows))


# -- Detection, attack by attack, and the ε each gives -------------------------------------------
@result
class DetectionTable(Tabular):
    """``rows``: ``(attack, leaks, detection, epsilon)`` per attack: what it leaks, its
    per-register detection and :func:`qring_edu.vga_epsilon` at the table's setting.

    Examples
    --------
    >>> [round(r[2], 4) for r in detection_table().rows]
    [0.99, 0.4375, 0.99, 0.25, 1.0]
    """

    workers: int
    bits: int
    n_copies: int
    test_fraction: float
    bad_fraction: float
    rows: tuple = field(repr=False)

    def epsilon(self, attack) -> float:
        """ε of one attack of the table (an attack value, e.g. ``SplitWorker()``)."""
        return _row(self.rows, attack, "attack")[3]

    def table(self) -> Table:
        rows = tuple((attack_label(a), leaks, det, eps) for a, leaks, det, eps in self.rows)
        eps = f"ε (N = {self.n_copies}, f = {self.test_fraction:g}, β = {self.bad_fraction:g})"
        columns = ("attack", "what the source learns", "detection per register δ", eps)
        title = f"P = {self.workers} workers, b = {self.bits} bits"
        return Table(columns, rows, ("", "", ".4f", ".3e"), title=title)


def detection_table(
    workers: int = 4,
    bits: int = 8,
    n_copies: int = 800,
    test_fraction: float = 0.5,
    bad_fraction: float = 0.1,
) -> DetectionTable:
    """Detection and ε for each attack of :data:`DETECTION_ROWS` at one setting.

    Examples
    --------
    >>> print(detection_table(n_copies=400).table())
    P = 4 workers, b = 8 bits
    attack                        what the source learns            detection per register δ  ε (N = 400, f = 0.5, β = 0.1)
    known pads, whole register    every input of the entry                            0.9900                      2.741e-07
    known pads on one qubit GHZ   the lowest bit of every input                       0.4375                      1.558e-04
    eavesdropper, whole register  every input of the entry (later)                    0.9900                      2.741e-07
    split worker (one qubit GHZ)  one worker's lowest input bit                       0.2500                      3.861e-03
    dephasing                     nothing (the sum is shifted)                        1.0000                      2.741e-07
    """
    workers = check_int(workers, "workers", 2, 64)
    bits = check_bits(bits)
    rows = []
    for attack, leaks in DETECTION_ROWS:
        det = detection_probability(attack, workers, bits=bits)
        eps = vga_epsilon(n_copies, test_fraction, bad_fraction, detection=det)
        rows.append((attack, leaks, det, eps))
    setting = (workers, bits, n_copies, float(test_fraction), float(bad_fraction))
    return DetectionTable(*setting, tuple(rows))


# -- ε against copies and test fraction ----------------------------------------------------------
@result
class EpsilonGrid(Tabular):
    """``epsilon[i, k]``: :func:`qring_edu.vga_epsilon` for ``used[k]`` used copies
    (``n_copies = ceil(used / (1 - f))``) at test fraction ``fractions[i]``, with the
    ``detection`` of ``attack``.

    Examples
    --------
    >>> print(epsilon_grid(0.1, KnownPadBits(1)).table())
    known pads on one qubit GHZ: δ = 0.4375 (P = 4, b = 8), β = 0.1
       f  delivered per used copy  ε at d = 400 used copies
    0.25                     1.33                  1.90e-03
    0.50                     2.00                  7.14e-08
    0.75                     4.00                  7.43e-17
    """

    bad_fraction: float
    attack: object
    detection: float
    workers: int
    bits: int
    used: np.ndarray = field(repr=False)
    fractions: np.ndarray = field(repr=False)
    epsilon: np.ndarray = field(repr=False)

    overhead = property(lambda self: 1.0 / (1.0 - self.fractions), doc="1 / (1 - f).")

    @property
    def label(self) -> str:
        """The attack and its detection."""
        where = f"(P = {self.workers}, b = {self.bits})"
        return f"{attack_label(self.attack)}: δ = {self.detection:.4g} {where}"

    def table(self) -> Table:
        """Per test fraction: the copy overhead and ε at the largest number of used copies."""
        rows = tuple(zip(self.fractions, self.overhead, self.epsilon[:, -1]))
        columns = ("f", "delivered per used copy", f"ε at d = {int(self.used[-1])} used copies")
        title = f"{self.label}, β = {self.bad_fraction:g}"
        return Table(columns, rows, (".2f", ".2f", ".2e"), title=title)


def epsilon_grid(
    bad_fraction: float,
    attack,
    *,
    workers: int = 4,
    bits: int = 8,
    max_used: int = 400,
    fractions=(0.25, 0.5, 0.75),
) -> EpsilonGrid:
    """ε for 20 used-copy counts from 10 to ``max_used`` (log-spaced) and each test fraction.

    Examples
    --------
    >>> epsilon_grid(0.1, SplitWorker(), max_used=100).epsilon.shape
    (3, 20)
    """
    beta = check_float(bad_fraction, "bad_fraction", 0.0, 1.0, hi_open=True)
    workers = check_int(workers, "workers", 2, 64)
    bits = check_bits(bits)
    delta = detection_probability(attack, workers, bits=bits)
    max_used = check_int(max_used, "max_used", 10, 5000)
    fr = np.asarray([check_float(v, "fractions", 0.0, 0.95) for v in fractions])
    used = np.unique(np.round(np.geomspace(10, max_used, 20)).astype(int))
    eps = [
        [vga_epsilon(vga_copy_counts(int(u), f)[0], f, beta, detection=delta) for u in used]
        for f in fr.tolist()
    ]
    return EpsilonGrid(beta, attack, delta, workers, bits, used, fr, np.array(eps))


@result
class FractionSweep(Tabular):
    """``epsilon[i, j]``: ε for ``attacks[i]`` (detection ``detections[i]``) at test fraction
    ``fractions[j]``, with ``n_copies`` delivered copies.

    Examples
    --------
    >>> sw = fraction_sweep(n_copies=400)
    >>> sw.best_fraction(0), round(sw.exponent_share(0, 0.5), 2)
    (0.8, 0.73)
    """

    n_copies: int
    bad_fraction: float
    attacks: tuple = field(repr=False)
    detections: np.ndarray = field(repr=False)
    fractions: np.ndarray = field(repr=False)
    epsilon: np.ndarray = field(repr=False)

    def best_fraction(self, i: int) -> float:
        """The test fraction with the smallest ε for ``attacks[i]``."""
        return float(self.fractions[int(np.argmin(self.epsilon[i]))])

    def exponent_share(self, i: int, fraction: float = 0.5) -> float:
        """``log ε(fraction) / log ε(best)``: the share of the best error exponent reached."""
        j = int(np.argmin(np.abs(self.fractions - fraction)))
        return float(math.log(self.epsilon[i, j]) / math.log(self.epsilon[i].min()))

    def table(self) -> Table:
        j = int(np.argmin(np.abs(self.fractions - 0.5)))
        eps = [(float(e.min()), float(e[j])) for e in self.epsilon]
        rows = tuple(
            (attack_label(a), float(d), self.best_fraction(i), *eps[i], self.exponent_share(i))
            for i, (a, d) in enumerate(zip(self.attacks, self.detections))
        )
        columns = ("attack", "δ", "best f", "ε at best f", "ε at f = 1/2")
        columns += ("f = 1/2: share of best exponent",)
        title = f"N = {self.n_copies} delivered copies, β = {self.bad_fraction:g}"
        return Table(columns, rows, ("", ".4f", ".1f", ".2e", ".2e", ".0%"), title=title)


def fraction_sweep(
    n_copies: int = 800,
    bad_fraction: float = 0.1,
    *,
    attacks=(SplitWorker(), KnownPadBits(1), KnownPads()),  # noqa: B008 (frozen values)
    workers: int = 4,
    bits: int = 8,
    fractions=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
) -> FractionSweep:
    """ε(n_copies, f, bad_fraction) for each f and each attack's detection.

    Examples
    --------
    >>> sw = fraction_sweep()
    >>> [sw.best_fraction(i) for i in range(3)], [round(sw.exponent_share(i), 2) for i in range(3)]
    ([0.8, 0.7, 0.6], [0.76, 0.84, 0.94])
    """
    n = check_int(n_copies, "n_copies", 2, 100_000)
    beta = check_float(bad_fraction, "bad_fraction", 0.0, 1.0, hi_open=True)
    fr = [check_float(v, "fractions", 0.0, 1.0, lo_open=True, hi_open=True) for v in fractions]
    fr = np.asarray(fr)
    dets = [detection_probability(a, workers, bits=bits) for a in attacks]
    eps = [[vga_epsilon(n, f, beta, detection=d) for f in fr.tolist()] for d in dets]
    return FractionSweep(n, beta, tuple(attacks), np.array(dets), fr, np.array(eps))


# -- β = 0: the floor 1 - f ----------------------------------------------------------------------
@result
class EpsilonFloor:
    """``epsilon_zero[i, k]``: :func:`qring_edu.vga_epsilon` at ``(n_copies[k], test_fraction,
    0)`` for ``attacks[i]``; ``epsilon_beta``: the same at ``bad_fraction``; ``floor_zero``,
    ``floor_beta``: :func:`qring_edu.vga_security.vga_epsilon_floor`, the bound for every
    detection.

    Examples
    --------
    >>> fl = epsilon_floor_sweep(max_copies=200)
    >>> fl.n_copies.shape, fl.epsilon_zero.shape          # (attacks, copy counts)
    ((14,), (3, 14))
    """

    test_fraction: float
    bad_fraction: float
    attacks: tuple = field(repr=False)
    detections: np.ndarray = field(repr=False)
    n_copies: np.ndarray = field(repr=False)
    epsilon_zero: np.ndarray = field(repr=False)
    epsilon_beta: np.ndarray = field(repr=False)
    floor_zero: np.ndarray = field(repr=False)
    floor_beta: np.ndarray = field(repr=False)

    labels = property(lambda self: tuple(map(attack_label, self.attacks)), doc="Attack labels.")


def epsilon_floor_sweep(
    test_fraction: float = 0.5,
    bad_fraction: float = 0.1,
    *,
    max_copies: int = 2000,
    attacks=(SplitWorker(), KnownPadBits(1), Dephasing()),  # noqa: B008 (frozen values)
    workers: int = 4,
    bits: int = 8,
) -> EpsilonFloor:
    """ε at β = 0 and at ``bad_fraction`` for 16 even copy counts from 2 to ``max_copies``.

    Examples
    --------
    >>> fl = epsilon_floor_sweep(max_copies=200)
    >>> float(fl.floor_zero.min()), bool(fl.epsilon_zero.min() >= 0.5 - 1e-9)
    (0.5, True)
    """
    f = check_float(test_fraction, "test_fraction", 0.0, 1.0, hi_open=True)
    beta = check_float(bad_fraction, "bad_fraction", 0.0, 1.0, hi_open=True)
    max_copies = check_int(max_copies, "max_copies", 4, 20_000)
    ns = np.unique(2 * np.round(np.geomspace(1, max_copies // 2, 16)).astype(int)).tolist()
    dets = [detection_probability(a, workers, bits=bits) for a in attacks]
    eps = [
        np.array([[vga_epsilon(n, f, b, detection=d) for n in ns] for d in dets])
        for b in (0.0, beta)
    ]
    floors = [np.array([vga_epsilon_floor(n, f, b) for n in ns]) for b in (0.0, beta)]
    return EpsilonFloor(f, beta, tuple(attacks), np.array(dets), np.array(ns), *eps, *floors)
