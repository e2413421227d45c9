"""Experiments of chapter 5, *Verified GHZ aggregation*: the attack playground, the exact privacy
of the transcripts, the circuits against the fast path, the sources side by side, the detection
of each attack and the soundness error ε it gives, the β = 0 floor, partially bad copies, the
finite-copy fidelity guarantee and privacy amplification.

Pure: every number comes from :mod:`qring_edu.vga`; results are frozen dataclasses (figures:
:mod:`qring_edu.figures.vga`). Transcript order: worker j's announcement ``m_j`` is a word in
``0 .. 2**bits - 1``; joint histograms index ``(m_0, m_1)`` as (row, column).

No detection probability is ever assumed: every ε is computed from
:func:`qring_edu.vga.detection_probability` for a named attack (or from a number the caller
gives explicitly).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import chi2_contingency, chisquare

from .._validate import (
    as_numeric_array,
    check_bits,
    check_choice,
    check_float,
    check_int,
    check_seed,
)
from ..fixedpoint import modular_sum
from ..vga import (
    DETECTION_ATTACKS,
    SOURCES,
    TRANSCRIPT_SOURCES,
    VGAResult,
    amplified_leak_probability,
    detection_probability,
    ghz_fidelity,
    ghz_state_pass_probability,
    ghz_verified_infidelity,
    ghz_witness,
    rotated_ghz_leak,
    rotated_ghz_state,
    transcript_distance,
    vga_aggregate,
    vga_aggregate_qiskit,
    vga_copy_counts,
    vga_epsilon,
    vga_epsilon_floor,
    vga_outcome_probabilities,
    vga_state_outcome_probabilities,
)
from ._base import Table, loglog_slope

__all__ = [
    "SOURCE_ATTACK",
    "ATTACK_LABELS",
    "AttackSweep",
    "attack_sweep",
    "TranscriptComparison",
    "transcript_comparison",
    "ExactPrivacy",
    "exact_privacy",
    "TranscriptPaths",
    "transcript_paths",
    "sources_table",
    "WitnessTable",
    "witness_table",
    "DetectionTable",
    "detection_table",
    "EpsilonGrid",
    "epsilon_grid",
    "FractionSweep",
    "fraction_sweep",
    "EpsilonFloor",
    "epsilon_floor_sweep",
    "PartialCopySweep",
    "partial_copy_sweep",
    "FiniteCopyCurve",
    "finite_copy_curve",
    "AmplificationSweep",
    "amplification_sweep",
]

#: The attack whose detection bounds epsilon for each source of :func:`qring_edu.vga_aggregate`:
#: the library's known-pads and eavesdropper sources attack whole registers; a noisy register
#: is caught like a dephased one; for the honest source the sweep shows the bound against the
#: cheapest certain leak (a split worker, detection 1/4).
SOURCE_ATTACK = {
    "honest": "split_worker",
    "noisy": "dephasing",
    "known_pads": "known_pads",
    "eavesdropper": "eavesdropper",
}

#: Readable names of the attacks of :func:`qring_edu.vga.detection_probability` (with the number
#: of attacked qubit GHZ states per register where it matters: None = the attack's default).
ATTACK_LABELS = {
    ("known_pads", None): "known pads, whole register",
    ("known_pads", 1): "known pads on one qubit GHZ",
    ("eavesdropper", None): "eavesdropper, whole register",
    ("eavesdropper", 1): "eavesdropper on one qubit GHZ",
    ("split_worker", None): "split worker (one qubit GHZ)",
    ("dephasing", None): "dephasing",
}


def _attack_label(attack: str, attacked_qubits: int | None) -> str:
    key = (attack, attacked_qubits if attack in ("known_pads", "eavesdropper") else None)
    if key in ATTACK_LABELS:
        return ATTACK_LABELS[key]
    return f"{attack.replace('_', ' ')} on {attacked_qubits} qubit GHZ"


#: Largest amount of simulated work per call (runs * fractions * entries * workers).
MAX_WORK = 2_000_000
MAX_SAMPLES = 200_000


# --------------------------------------------------------------------------------------------
# Attack playground
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AttackSweep:
    """Acceptance rate, attacker accuracy and epsilon against the test fraction for one source.

    ``fractions``: test fractions f (sorted; includes ``test_fraction``). Per fraction:
    ``acceptance[i]`` (fraction of ``runs`` runs accepted), ``accuracy[i]`` (mean fraction of
    inputs the source guessed exactly), ``fail_rate[i]`` (failed / run tests, pooled),
    ``epsilon[i]`` (:func:`qring_edu.vga_epsilon` for ``n_copies(f)`` register-copies,
    ``bad_fraction``, and the per-register ``detection`` of ``attack``,
    :func:`qring_edu.vga.detection_probability`).

    Examples
    --------
    >>> from qring_edu.experiments.vga import attack_sweep
    >>> sw = attack_sweep("known_pads", 0.5, 4, runs=20)
    >>> sw
    AttackSweep(source='known_pads', P=3, bits=2, d=4, runs=20, f=0.5: acceptance=0.000, accuracy=1.000, epsilon=0.5)
    >>> len(sw.fractions) == len(sw.acceptance) == len(sw.epsilon)
    True
    """

    source: str
    workers: int
    bits: int
    entries: int
    runs: int
    test_fraction: float
    bad_fraction: float
    attack: str
    detection: float
    fractions: np.ndarray = field(repr=False)
    acceptance: np.ndarray = field(repr=False)
    accuracy: np.ndarray = field(repr=False)
    fail_rate: np.ndarray = field(repr=False)
    epsilon: np.ndarray = field(repr=False)

    def at(self, name: str) -> float:
        """Value of ``name`` ("acceptance", "accuracy", "fail_rate", "epsilon") at test_fraction."""
        i = int(np.argmin(np.abs(self.fractions - self.test_fraction)))
        return float(getattr(self, name)[i])

    def __repr__(self) -> str:
        return (
            f"AttackSweep(source={self.source!r}, P={self.workers}, bits={self.bits}, "
            f"d={self.entries}, runs={self.runs}, f={self.test_fraction:g}: "
            f"acceptance={self.at('acceptance'):.3f}, accuracy={self.at('accuracy'):.3f}, "
            f"epsilon={self.at('epsilon'):.3g})"
        )


def attack_sweep(
    source: str = "known_pads",
    test_fraction: float = 0.5,
    entries: int = 8,
    *,
    workers: int = 3,
    bits: int = 2,
    runs: int = 200,
    eavesdrop_fraction: float = 0.25,
    noise: float = 0.02,
    tolerance: float = 0.0,
    bad_fraction: float = 0.1,
    attack: str | None = None,
    seed: int = 0,
) -> AttackSweep:
    """Run :func:`qring_edu.vga_aggregate` ``runs`` times per test fraction in
    ``{0, 0.1, ..., 0.9} + {test_fraction}`` on random inputs (P = ``workers``, d = ``entries``).

    ``eavesdrop_fraction`` and ``noise`` are used only by their source. ``attack``: the attack of
    :func:`qring_edu.vga.detection_probability` whose per-register detection the epsilon curve
    uses (default :data:`SOURCE_ATTACK` of the source: the attack that source makes, and for the
    honest source the split worker, the cheapest certain leak). Deterministic in ``seed``.

    Examples
    --------
    >>> sw = attack_sweep("known_pads", 0.5, 4, runs=20)
    >>> float(sw.acceptance[0]), float(sw.accuracy[0])   # f = 0: never caught, learns every input
    (1.0, 1.0)
    """
    source = check_choice(source, "source", SOURCES)
    f = check_float(test_fraction, "test_fraction", 0.0, 1.0, hi_open=True)
    entries = check_int(entries, "entries", 1, 10_000)
    workers = check_int(workers, "workers", 2, 64)
    bits = check_bits(bits)
    runs = check_int(runs, "runs", 1, 100_000)
    beta = check_float(bad_fraction, "bad_fraction", 0.0, 1.0, hi_open=True)
    check_seed(seed)
    fractions = np.unique(np.round(np.append(np.arange(10) / 10, f), 6))
    if runs * fractions.size * entries * workers > MAX_WORK:
        raise ValueError(
            f"runs * entries * workers is too large for a live widget "
            f"(at most {MAX_WORK // fractions.size} per fraction)"
        )
    options = {
        "noisy": {"noise": noise},
        "eavesdropper": {"eavesdrop_fraction": eavesdrop_fraction},
    }
    kw = options.get(source, {})
    attack = (
        SOURCE_ATTACK[source]
        if attack is None
        else check_choice(attack, "attack", DETECTION_ATTACKS)
    )
    rng = np.random.default_rng(seed)
    detection = detection_probability(attack, workers, bits=bits)
    acc, guess, fail, eps = [], [], [], []
    for frac in fractions:
        accepted = correct = failed = tests = 0
        for _ in range(runs):
            x = rng.integers(0, 2**bits, size=(workers, entries))
            res = vga_aggregate(
                x,
                bits=bits,
                test_fraction=float(frac),
                source=source,
                seed=rng,
                tolerance=tolerance,
                **kw,
            )
            accepted += res.accepted
            correct += res.attacker_accuracy
            failed += res.tests_failed
            tests += res.tests
        acc.append(accepted / runs)
        guess.append(correct / runs)
        fail.append(failed / tests if tests else 0.0)
        n_copies = vga_copy_counts(entries, float(frac))[0]
        eps.append(vga_epsilon(n_copies, float(frac), beta, detection=detection))
    return AttackSweep(
        source=source,
        workers=workers,
        bits=bits,
        entries=entries,
        runs=runs,
        test_fraction=f,
        bad_fraction=beta,
        attack=attack,
        detection=detection,
        fractions=fractions,
        acceptance=np.array(acc),
        accuracy=np.array(guess),
        fail_rate=np.array(fail),
        epsilon=np.array(eps),
    )


# --------------------------------------------------------------------------------------------
# Privacy: transcripts of two input sets
# --------------------------------------------------------------------------------------------
def _words(values, name: str) -> np.ndarray:
    arr = as_numeric_array(values, name).reshape(-1)
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integers (one word per worker), got dtype {arr.dtype}")
    return arr.astype(np.int64)


@dataclass(frozen=True)
class TranscriptComparison:
    """Transcripts of two input sets, ``samples`` independent runs of one entry each.

    ``joint_a[u, v]``: how often ``(m_0, m_1) = (u, v)`` for inputs a (shape (2**b, 2**b));
    ``sums_a[s]``: how often ``sum m_j = s mod 2**b``. ``p_value``: chi-squared homogeneity test
    of the full transcripts of a and b (large when they are indistinguishable).

    Examples
    --------
    >>> transcript_comparison([1, 2, 3], [3, 3, 0], samples=2000).same_sum
    True
    """

    bits: int
    inputs_a: np.ndarray = field(repr=False)
    inputs_b: np.ndarray = field(repr=False)
    samples: int
    joint_a: np.ndarray = field(repr=False)
    joint_b: np.ndarray = field(repr=False)
    sums_a: np.ndarray = field(repr=False)
    sums_b: np.ndarray = field(repr=False)
    p_value: float

    @property
    def same_sum(self) -> bool:
        m = (1 << self.bits) - 1
        return int(self.inputs_a.sum()) & m == int(self.inputs_b.sum()) & m

    def __repr__(self) -> str:
        return (
            f"TranscriptComparison(P={self.inputs_a.size}, bits={self.bits}, "
            f"samples={self.samples}, same_sum={self.same_sum}, p_value={self.p_value:.3f})"
        )


def _transcript_counts(inputs: np.ndarray, bits: int, samples: int, seed):
    res = vga_aggregate(np.tile(inputs[:, None], samples), bits=bits, seed=seed)
    t = res.transcript
    size = 1 << bits
    joint = np.bincount(t[0] * size + t[1], minlength=size * size).reshape(size, size)
    sums = np.bincount(res.total & (size - 1), minlength=size)
    codes = sum(t[j] << (bits * j) for j in range(t.shape[0]))
    return joint, sums, codes


def transcript_comparison(
    inputs_a: Sequence[int] = (1, 2, 3),
    inputs_b: Sequence[int] = (3, 3, 0),
    bits: int = 2,
    samples: int = 4000,
    seed: int = 0,
) -> TranscriptComparison:
    """Run VGA (honest source) ``samples`` times on each input set and compare the transcripts.

    ``inputs_a``, ``inputs_b``: one integer word per worker, the same number P >= 2 of workers;
    ``bits``: 2..6 (histograms have ``2**(bits P)`` cells).

    Examples
    --------
    >>> from qring_edu.experiments.vga import transcript_comparison
    >>> cmp = transcript_comparison((1, 2, 3), (3, 3, 0), bits=2, samples=500)
    >>> cmp
    TranscriptComparison(P=3, bits=2, samples=500, same_sum=True, p_value=0.098)
    """
    bits = check_int(bits, "bits", 2, 6)
    samples = check_int(samples, "samples", 10, MAX_SAMPLES)
    check_seed(seed)
    a = _words(inputs_a, "inputs_a")
    b = _words(inputs_b, "inputs_b")
    if a.size != b.size:
        raise ValueError(
            f"inputs_a and inputs_b must name the same number of workers, got {a.size} and {b.size}"
        )
    if a.size * bits > 24:
        raise ValueError(
            f"too many cells for the histogram: P * bits must be <= 24, got {a.size} * {bits}"
        )
    rng = np.random.default_rng(seed)
    joint_a, sums_a, codes_a = _transcript_counts(a, bits, samples, rng)
    joint_b, sums_b, codes_b = _transcript_counts(b, bits, samples, rng)
    cells = np.union1d(codes_a, codes_b)
    count_a = np.bincount(np.searchsorted(cells, codes_a), minlength=cells.size)
    count_b = np.bincount(np.searchsorted(cells, codes_b), minlength=cells.size)
    table = np.vstack([count_a, count_b])
    p_value = float(chi2_contingency(table).pvalue) if cells.size > 1 else 1.0
    return TranscriptComparison(
        bits=bits,
        inputs_a=a,
        inputs_b=b,
        samples=samples,
        joint_a=joint_a,
        joint_b=joint_b,
        sums_a=sums_a,
        sums_b=sums_b,
        p_value=p_value,
    )


def _ghz_register_state(workers: int, bits: int) -> np.ndarray:
    """``2**(-b/2) sum_g |g>_1 ... |g>_P`` as a vector (index ``sum_j g_j 2**(b j)``)."""
    q = 1 << bits
    psi = np.zeros(1 << (workers * bits))
    psi[[sum(g << (bits * j) for j in range(workers)) for g in range(q)]] = q**-0.5
    return psi


@dataclass(frozen=True)
class ExactPrivacy:
    """The exact transcript laws of two input sets, and their exact distance from the ideal.

    ``joint_a[u, v]``: probability that ``(m_0, m_1) = (u, v)`` for inputs a (shape
    ``(2**b, 2**b)``), ``sums_a[s]``: probability that ``sum_j m_j = s mod 2**b``; both from the
    genuine GHZ state (:func:`qring_edu.vga.vga_state_outcome_probabilities`). What an outsider
    sees is this law for every source here: the known-pads and eavesdropping sources draw their
    pads uniformly, so the transcript *alone* is the ideal one. ``between``: total-variation
    distance of the two input sets' transcript laws (0 when the sums agree, 1 when they differ).
    ``distance_a``, ``distance_b``: :func:`qring_edu.vga.transcript_distance` of each input set
    for ``source``, i.e. of the transcript *joint with what the attacker holds* from the ideal
    (``method``: ``"exact"`` enumeration, or ``"closed_form"`` when the enumeration would exceed
    the library's limit).

    Examples
    --------
    >>> r = exact_privacy([1, 2, 3], [3, 3, 0], bits=2)
    >>> r.same_sum, r.between, r.distance_a
    (True, 0.0, 0.0)
    """

    bits: int
    source: str
    eavesdrop_fraction: float
    amplification: int
    method: str
    inputs_a: np.ndarray = field(repr=False)
    inputs_b: np.ndarray = field(repr=False)
    joint_a: np.ndarray = field(repr=False)
    joint_b: np.ndarray = field(repr=False)
    sums_a: np.ndarray = field(repr=False)
    sums_b: np.ndarray = field(repr=False)
    between: float
    distance_a: float
    distance_b: float

    @property
    def same_sum(self) -> bool:
        m = (1 << self.bits) - 1
        return int(self.inputs_a.sum()) & m == int(self.inputs_b.sum()) & m

    def table(self) -> Table:
        """Per input set: the announced sum and the distance from the ideal for the source."""
        m = (1 << self.bits) - 1
        rows = tuple(
            (name, ", ".join(str(int(v)) for v in x), int(x.sum()) & m, dist)
            for name, x, dist in (
                ("a", self.inputs_a, self.distance_a),
                ("b", self.inputs_b, self.distance_b),
            )
        )
        return Table(
            (
                "inputs",
                "words",
                "sum mod 2^b",
                f"TV from ideal ({self.source}, joint with attacker)",
            ),
            rows,
            ("", "", "d", ".6f"),
            title=f"TV between the transcripts of a and b: {self.between:.6f}",
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return (
            f"ExactPrivacy(P={self.inputs_a.size}, bits={self.bits}, source={self.source!r}, "
            f"same_sum={self.same_sum}, between={self.between:.6g}, "
            f"distance_a={self.distance_a:.6g}, distance_b={self.distance_b:.6g})"
        )


def exact_privacy(
    inputs_a: Sequence[int] = (1, 2, 3),
    inputs_b: Sequence[int] = (3, 3, 0),
    bits: int = 2,
    *,
    source: str = "honest",
    eavesdrop_fraction: float = 0.25,
    amplification: int = 1,
) -> ExactPrivacy:
    """Exact privacy of one entry for two input sets: their transcript laws (from the GHZ state),
    the distance between them, and each set's distance from the ideal for ``source``.

    ``inputs_a``, ``inputs_b``: one integer word per worker, the same number P >= 2 of workers,
    ``P * bits <= 12``; ``bits`` in 1..6; ``source`` in ``"honest"``, ``"known_pads"``,
    ``"eavesdropper"`` (``eavesdrop_fraction`` q used by the last only); ``amplification`` k in
    1..8 registers per entry. Nothing is sampled.

    Examples
    --------
    >>> from qring_edu.experiments.vga import exact_privacy
    >>> honest = exact_privacy((1, 2, 3), (3, 3, 0), bits=2)
    >>> honest
    ExactPrivacy(P=3, bits=2, source='honest', same_sum=True, between=0, distance_a=0, distance_b=0)
    >>> exact_privacy((1, 2, 3), (3, 3, 0), bits=2, source="known_pads")
    ExactPrivacy(P=3, bits=2, source='known_pads', same_sum=True, between=0, distance_a=0.9375, distance_b=0.9375)
    """
    bits = check_int(bits, "bits", 1, 6)
    a = _words(inputs_a, "inputs_a")
    b = _words(inputs_b, "inputs_b")
    if a.size != b.size:
        raise ValueError(
            f"inputs_a and inputs_b must name the same number of workers, got {a.size} and {b.size}"
        )
    if a.size < 2:
        raise ValueError(
            f"inputs_a must name P >= 2 workers (privacy needs two honest workers), got {a.size}"
        )
    if a.size * bits > 12:
        raise ValueError(f"the exact laws need P * bits <= 12, got {a.size} * {bits}")
    source = check_choice(source, "source", TRANSCRIPT_SOURCES)
    q = check_float(eavesdrop_fraction, "eavesdrop_fraction", 0.0, 1.0)
    k = check_int(amplification, "amplification", 1, 8)
    psi = _ghz_register_state(a.size, bits)
    size = 1 << bits
    laws, joints, sums = [], [], []
    codes = np.arange(1 << (a.size * bits))
    digits = [(codes >> (bits * j)) & (size - 1) for j in range(a.size)]
    total = sum(digits) % size
    for x in (a, b):
        law = vga_state_outcome_probabilities(psi, x.tolist(), bits)
        laws.append(law)
        joints.append(
            np.bincount(digits[0] * size + digits[1], weights=law, minlength=size * size).reshape(
                size, size
            )
        )
        sums.append(np.bincount(total, weights=law, minlength=size))
    between = 0.5 * float(np.abs(laws[0] - laws[1]).sum())
    options = {"eavesdrop_fraction": q} if source == "eavesdropper" else {}
    method = "exact" if (1 << (bits * (a.size - 1))) ** k <= 1 << 16 else "closed_form"
    dist = [
        transcript_distance(x, bits, source=source, amplification=k, method=method, **options)
        for x in (a, b)
    ]
    return ExactPrivacy(
        bits=bits,
        source=source,
        eavesdrop_fraction=q,
        amplification=k,
        method=method,
        inputs_a=a,
        inputs_b=b,
        joint_a=joints[0],
        joint_b=joints[1],
        sums_a=sums[0],
        sums_b=sums[1],
        between=round(between, 12),
        distance_a=dist[0],
        distance_b=dist[1],
    )


# --------------------------------------------------------------------------------------------
# The circuits against the fast path
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class TranscriptPaths:
    """Transcripts of one column of inputs, ``samples`` runs each on the Aer circuits
    (:func:`qring_edu.vga.vga_aggregate_qiskit`) and on the fast path
    (:func:`qring_edu.vga_aggregate`), against the exact distribution
    (:func:`qring_edu.vga.vga_outcome_probabilities`).

    ``exact[c]``, ``aer_counts[c]``, ``fast_counts[c]``: shape ``(2**(b P),)``, transcript
    ``(m_0, ..., m_{P-1})`` at code ``c = Σ_j m_j 2**(b j)``. ``*_p_value``: chi-squared goodness
    of fit on the exact support; ``*_off_sum``: transcripts outside it (announcements whose sum is
    not the inputs' sum).

    Examples
    --------
    >>> from qring_edu.experiments.vga import transcript_paths
    >>> paths = transcript_paths((2, 3, 1), bits=2, samples=200)
    >>> paths.exact.shape, int(paths.fast_counts.sum()), int(paths.aer_counts.sum())
    ((64,), 200, 200)
    >>> round(float(paths.exact.sum()), 6)
    1.0
    """

    inputs: tuple[int, ...]
    bits: int
    samples: int
    exact: np.ndarray = field(repr=False)
    aer_counts: np.ndarray = field(repr=False)
    fast_counts: np.ndarray = field(repr=False)

    def _fit(self, counts: np.ndarray) -> tuple[int, float]:
        support = self.exact > 0
        return (
            int(counts[~support].sum()),
            float(chisquare(counts[support], self.exact[support] * self.samples).pvalue),
        )

    @property
    def aer_p_value(self) -> float:
        return self._fit(self.aer_counts)[1]

    @property
    def fast_p_value(self) -> float:
        return self._fit(self.fast_counts)[1]

    def table(self) -> Table:
        """Per path: transcripts off the sum and the chi-squared p-value against the exact law."""
        rows = [
            (name, *self._fit(c))
            for name, c in (("Aer circuits", self.aer_counts), ("fast path", self.fast_counts))
        ]
        return Table(
            ("path", "transcripts off the sum", "chi-squared p vs exact"),
            tuple(rows),
            ("", "d", ".3f"),
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return (
            f"TranscriptPaths(inputs={self.inputs}, bits={self.bits}, samples={self.samples}, "
            f"aer_p={self.aer_p_value:.3f}, fast_p={self.fast_p_value:.3f})"
        )


def transcript_paths(
    inputs: Sequence[int] = (2, 3, 1),
    bits: int = 2,
    samples: int = 4000,
    *,
    aer_seed: int = 1,
    fast_seed: int = 2,
) -> TranscriptPaths:
    """Sample the transcripts of one entry per worker (``inputs``, P = len(inputs) <= 4) with both
    paths, ``samples`` times each; ``bits`` b with ``b P <= 12``.

    Examples
    --------
    >>> from qring_edu.experiments.vga import transcript_paths
    >>> paths = transcript_paths((1, 2), bits=2, samples=100)
    >>> paths
    TranscriptPaths(inputs=(1, 2), bits=2, samples=100, aer_p=0.849, fast_p=0.641)
    """
    x = _words(inputs, "inputs")
    bits = check_bits(bits)
    samples = check_int(samples, "samples", 10, MAX_SAMPLES)
    if x.size * bits > 12:
        raise ValueError(f"P * bits must be <= 12 for the circuits, got {x.size} * {bits}")
    col = x[:, None]
    tile = np.tile(col, samples)
    aer = vga_aggregate_qiskit(tile, bits=bits, seed=aer_seed)
    fast = vga_aggregate(tile, bits=bits, seed=fast_seed).transcript
    size = 1 << (bits * x.size)
    exact = np.zeros(size)
    for m, p in vga_outcome_probabilities(x.tolist(), bits).items():
        exact[sum(int(v) << (bits * j) for j, v in enumerate(m))] = p

    def counts(t):
        return np.bincount(sum(t[j] << (bits * j) for j in range(x.size)), minlength=size)

    return TranscriptPaths(
        tuple(int(v) for v in x), bits, samples, exact, counts(aer), counts(fast)
    )


# --------------------------------------------------------------------------------------------
# Sources side by side
# --------------------------------------------------------------------------------------------
def sources_table(results: Mapping[str, VGAResult], inputs) -> Table:
    """One row per labelled :class:`~qring_edu.vga.VGAResult` of the same ``inputs`` (shape
    (P, d)): the fraction of failed tests (– when none was run), acceptance, the fraction of
    entries whose sum is exact, and the fraction of inputs the source guessed exactly.

    Examples
    --------
    >>> x = np.arange(8).reshape(2, 4)
    >>> print(sources_table({"honest": vga_aggregate(x, bits=4, seed=0)}, x))
    source  failed tests  accepted  exact sums  source's accuracy
    honest         0.00%  True         100.00%             25.00%
    """
    x = as_numeric_array(inputs, "inputs")
    rows = []
    for label, r in results.items():
        if not isinstance(r, VGAResult):
            raise TypeError(f"results must map labels to VGAResult, got {type(r).__name__}")
        truth = modular_sum(x, r.bits)
        rows.append(
            (
                str(label),
                r.tests_failed / r.tests if r.tests else None,
                str(r.accepted),
                float(np.mean(r.total == truth)),
                float(r.attacker_accuracy),
            )
        )
    return Table(
        ("source", "failed tests", "accepted", "exact sums", "source's accuracy"),
        tuple(rows),
        ("", ".2%", "", ".2%", ".2%"),
    )


# --------------------------------------------------------------------------------------------
# The GHZ test as a fidelity witness, on named states
# --------------------------------------------------------------------------------------------
def _witness_states(workers: int, rng: np.random.Generator) -> list[tuple[str, np.ndarray]]:
    """Named P-qubit states (vectors, or a density matrix), worker j = bit j."""
    dim = 1 << workers
    ghz = np.zeros(dim)
    ghz[0] = ghz[-1] = 2**-0.5
    flipped = ghz.copy()
    flipped[-1] = -flipped[-1]
    phases = rng.uniform(0, 2 * np.pi, workers)
    phases[-1] = -phases[:-1].sum()  # zero-sum phases: a known-pads copy
    product = np.ones(1)
    for phi in phases:  # kron puts later workers on higher bits
        product = np.kron(np.array([1.0, np.exp(1j * phi)]) / np.sqrt(2), product)
    rest = np.zeros(dim >> 1)
    rest[0] = rest[-1] = 2**-0.5
    split = np.kron(rest, np.array([1.0, 1.0]) / np.sqrt(2))  # worker 0 holds |+>
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


@dataclass(frozen=True)
class WitnessTable:
    """Fidelity with GHZ and failure probability of the GHZ test for named P-qubit states.

    ``rows``: ``(state, fidelity, fail_probability, bound)`` with ``fidelity`` =
    :func:`qring_edu.vga.ghz_fidelity`, ``fail_probability`` = 1 -
    :func:`qring_edu.vga.ghz_state_pass_probability` (setting by setting, not from the closed
    form) and ``bound`` = :func:`qring_edu.vga.ghz_witness` ``.fidelity_bound`` = max(0, 1 - 2
    P(fail)). The witness theorem says ``fidelity >= bound`` for every state, with equality when
    the state has no ``|GHZ->`` component.

    Examples
    --------
    >>> t = witness_table(4)
    >>> all(f >= b - 1e-12 for _, f, _, b in t.rows)
    True
    """

    workers: int
    rows: tuple = field(repr=False)

    def row(self, state: str) -> tuple:
        for r in self.rows:
            if r[0] == state:
                return r
        raise ValueError(
            f"state must be one of {', '.join(repr(r[0]) for r in self.rows)}, got {state!r}"
        )

    def table(self) -> Table:
        # tight: F = 1 - 2 P(fail) exactly (the unclipped witness), i.e. no |GHZ-> component
        rows = tuple(
            (name, f, p, b, "yes" if abs(f - (1 - 2 * p)) < 1e-9 else "no")
            for name, f, p, b in self.rows
        )
        return Table(
            ("state", "fidelity F", "P(test fails)", "witness 1 - 2 P(fail)", "tight"),
            rows,
            ("", ".4f", ".4f", ".4f", ""),
            title=f"P = {self.workers} qubits",
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return f"WitnessTable(P={self.workers}, {len(self.rows)} states)"


def witness_table(workers: int = 4, seed: int = 0) -> WitnessTable:
    """The witness ``F >= 1 - 2 P(fail)`` on seven named states of ``workers`` qubits (P in
    2..10; the random phases and the random pure state are seeded).

    Examples
    --------
    >>> from qring_edu.experiments.vga import witness_table
    >>> table = witness_table(3)
    >>> print(table.table())
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


# --------------------------------------------------------------------------------------------
# Detection, attack by attack, and the epsilon each gives
# --------------------------------------------------------------------------------------------
def _detection(detection, attack, workers, bits, attacked_qubits) -> tuple[float, str | None]:
    """The per-register detection: an explicit number, or that of a named attack (never both,
    never neither)."""
    if (detection is None) == (attack is None):
        raise TypeError(
            "give exactly one of detection= (a probability in (0, 1]) and attack= "
            f"(one of {', '.join(map(repr, DETECTION_ATTACKS))}, computed by "
            "qring_edu.vga.detection_probability): there is no default detection"
        )
    if attack is not None:
        attack = check_choice(attack, "attack", DETECTION_ATTACKS)
        return detection_probability(
            attack, workers, bits=bits, attacked_qubits=attacked_qubits
        ), attack
    return check_float(detection, "detection", 0.0, 1.0, lo_open=True), None


@dataclass(frozen=True)
class DetectionTable:
    """Per attack: what it leaks, its per-register detection and the epsilon it gives.

    ``rows``: tuples ``(label, attack, attacked_qubits, leaks, detection, epsilon)`` with
    ``detection`` from :func:`qring_edu.vga.detection_probability` (P = ``workers``, b =
    ``bits``) and ``epsilon`` = :func:`qring_edu.vga_epsilon` at ``(n_copies, test_fraction,
    bad_fraction)`` with that detection.

    Examples
    --------
    >>> t = detection_table()
    >>> [round(r[4], 4) for r in t.rows]
    [0.99, 0.4375, 0.99, 0.25, 1.0]
    """

    workers: int
    bits: int
    n_copies: int
    test_fraction: float
    bad_fraction: float
    rows: tuple = field(repr=False)

    def epsilon(self, attack: str, attacked_qubits: int | None = None) -> float:
        """epsilon of one attack of the table."""
        for _, a, k, _, _, eps in self.rows:
            if a == attack and k == attacked_qubits:
                return eps
        raise ValueError(
            f"attack {attack!r} with attacked_qubits={attacked_qubits} is not in the table"
        )

    def table(self) -> Table:
        rows = tuple((label, leaks, det, eps) for label, _, _, leaks, det, eps in self.rows)
        return Table(
            (
                "attack",
                "what the source learns",
                "detection per register δ",
                f"ε (N = {self.n_copies}, f = {self.test_fraction:g}, β = {self.bad_fraction:g})",
            ),
            rows,
            ("", "", ".4f", ".3e"),
            title=f"P = {self.workers} workers, b = {self.bits} bits",
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return (
            f"DetectionTable(P={self.workers}, bits={self.bits}, N={self.n_copies}, "
            f"f={self.test_fraction:g}, beta={self.bad_fraction:g}, {len(self.rows)} attacks)"
        )


#: The attacks of :func:`detection_table`: (attack, attacked qubit GHZ states, what it leaks).
DETECTION_ROWS = (
    ("known_pads", None, "every input of the entry"),
    ("known_pads", 1, "the lowest bit of every input"),
    ("eavesdropper", None, "every input of the entry (later)"),
    ("split_worker", None, "one worker's lowest input bit"),
    ("dephasing", None, "nothing (the sum is shifted)"),
)


def detection_table(
    workers: int = 4,
    bits: int = 8,
    n_copies: int = 800,
    test_fraction: float = 0.5,
    bad_fraction: float = 0.1,
) -> DetectionTable:
    """Detection and epsilon for each attack of :data:`DETECTION_ROWS` at one setting.

    Examples
    --------
    >>> from qring_edu.experiments.vga import detection_table
    >>> table = detection_table(n_copies=400)
    >>> table
    DetectionTable(P=4, bits=8, N=400, f=0.5, beta=0.1, 5 attacks)
    >>> print(table.table())
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
    for attack, k, leaks in DETECTION_ROWS:
        det = detection_probability(attack, workers, bits=bits, attacked_qubits=k)
        eps = vga_epsilon(n_copies, test_fraction, bad_fraction, detection=det)
        rows.append((_attack_label(attack, k), attack, k, leaks, det, eps))
    return DetectionTable(
        workers=workers,
        bits=bits,
        n_copies=n_copies,
        test_fraction=float(test_fraction),
        bad_fraction=float(bad_fraction),
        rows=tuple(rows),
    )


# --------------------------------------------------------------------------------------------
# Epsilon against copies and test fraction
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EpsilonGrid:
    """``epsilon[i, k]`` = :func:`qring_edu.vga_epsilon` for ``used[k]`` used copies at test
    fraction ``fractions[i]`` (``n_copies = ceil(used / (1 - f))``); ``overhead[i] = 1/(1-f)``.
    ``detection``: the per-register detection used, that of ``attack`` (P = ``workers``, b =
    ``bits``) or an explicit number (``attack`` None).

    Examples
    --------
    >>> print(epsilon_grid(0.1, attack="known_pads", attacked_qubits=1).table())
    known pads on one qubit GHZ: δ = 0.4375 (P = 4, b = 8), β = 0.1
       f  delivered per used copy  ε at d = 400 used copies
    0.25                     1.33                  1.90e-03
    0.50                     2.00                  7.14e-08
    0.75                     4.00                  7.43e-17
    """

    bad_fraction: float
    detection: float
    used: np.ndarray = field(repr=False)
    fractions: np.ndarray = field(repr=False)
    epsilon: np.ndarray = field(repr=False)
    attack: str | None = None
    attacked_qubits: int | None = None
    workers: int | None = None
    bits: int | None = None

    @property
    def overhead(self) -> np.ndarray:
        return 1.0 / (1.0 - self.fractions)

    @property
    def label(self) -> str:
        """What the detection is: the attack and its setting, or "given"."""
        if self.attack is None:
            return f"δ = {self.detection:.4g} (given)"
        return (
            f"{_attack_label(self.attack, self.attacked_qubits)}: δ = {self.detection:.4g} "
            f"(P = {self.workers}, b = {self.bits})"
        )

    def table(self) -> Table:
        """Per test fraction: the copy overhead and ε at the largest number of used copies."""
        d = int(self.used[-1])
        rows = tuple(zip(self.fractions, self.overhead, self.epsilon[:, -1]))
        return Table(
            ("f", "delivered per used copy", f"ε at d = {d} used copies"),
            rows,
            (".2f", ".2f", ".2e"),
            title=f"{self.label}, β = {self.bad_fraction:g}",
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return (
            f"EpsilonGrid(bad_fraction={self.bad_fraction:g}, detection={self.detection:.4g}, "
            f"attack={self.attack!r}, used={self.used.size} sizes up to "
            f"{int(self.used.max())}, fractions={self.fractions.size})"
        )


def epsilon_grid(
    bad_fraction: float = 0.1,
    detection: float | None = None,
    max_used: int = 400,
    fractions=(0.25, 0.5, 0.75),
    *,
    attack: str | None = None,
    workers: int = 4,
    bits: int = 8,
    attacked_qubits: int | None = None,
) -> EpsilonGrid:
    """epsilon for 20 used-copy counts from 10 to ``max_used`` (log-spaced) and each fraction.

    The per-register detection is either ``detection`` (a number in (0, 1]) or that of
    ``attack`` (:func:`qring_edu.vga.detection_probability` with ``workers``, ``bits`` and
    ``attacked_qubits``); exactly one of the two must be given (``TypeError`` otherwise: no
    detection is assumed).

    Examples
    --------
    >>> from qring_edu.experiments.vga import epsilon_grid
    >>> grid = epsilon_grid(0.1, detection=0.5, max_used=100)
    >>> grid
    EpsilonGrid(bad_fraction=0.1, detection=0.5, attack=None, used=20 sizes up to 100, fractions=3)
    """
    beta = check_float(bad_fraction, "bad_fraction", 0.0, 1.0, hi_open=True)
    workers = check_int(workers, "workers", 2, 64)
    bits = check_bits(bits)
    delta, attack = _detection(detection, attack, workers, bits, attacked_qubits)
    max_used = check_int(max_used, "max_used", 10, 5000)
    fr = np.asarray([check_float(v, "fractions", 0.0, 0.95) for v in fractions])
    used = np.unique(np.round(np.geomspace(10, max_used, 20)).astype(int))
    eps = np.array(
        [
            [
                vga_epsilon(vga_copy_counts(int(u), float(f))[0], float(f), beta, detection=delta)
                for u in used
            ]
            for f in fr
        ]
    )
    named = attack is not None
    return EpsilonGrid(
        bad_fraction=beta,
        detection=delta,
        used=used,
        fractions=fr,
        epsilon=eps,
        attack=attack,
        attacked_qubits=attacked_qubits if named else None,
        workers=workers if named else None,
        bits=bits if named else None,
    )


@dataclass(frozen=True)
class FractionSweep:
    """epsilon against the test fraction at a fixed budget of ``n_copies`` delivered copies.

    ``epsilon[i, j]`` for detection ``detections[i]`` (named ``labels[i]``) and test fraction
    ``fractions[j]``. ``best_fraction(i)``: the fraction with the smallest epsilon;
    ``exponent_share(i, f)``: ``log eps(f) / log eps(best)``, the share of the best error
    exponent that fraction f reaches.

    Examples
    --------
    >>> from qring_edu.experiments.vga import fraction_sweep
    >>> sw = fraction_sweep(n_copies=400)
    >>> sw.labels
    ('split worker (one qubit GHZ)', 'known pads on one qubit GHZ', 'known pads, whole register')
    >>> sw.best_fraction(0), round(sw.exponent_share(0, 0.5), 2)
    (0.8, 0.73)
    """

    n_copies: int
    bad_fraction: float
    labels: tuple[str, ...]
    detections: np.ndarray = field(repr=False)
    fractions: np.ndarray = field(repr=False)
    epsilon: np.ndarray = field(repr=False)

    def best_fraction(self, i: int) -> float:
        return float(self.fractions[int(np.argmin(self.epsilon[i]))])

    def exponent_share(self, i: int, fraction: float = 0.5) -> float:
        j = int(np.argmin(np.abs(self.fractions - fraction)))
        return float(math.log(self.epsilon[i, j]) / math.log(self.epsilon[i].min()))

    def table(self) -> Table:
        rows = []
        for i, label in enumerate(self.labels):
            j = int(np.argmin(np.abs(self.fractions - 0.5)))
            rows.append(
                (
                    label,
                    float(self.detections[i]),
                    self.best_fraction(i),
                    float(self.epsilon[i].min()),
                    float(self.epsilon[i, j]),
                    self.exponent_share(i),
                )
            )
        return Table(
            (
                "attack",
                "δ",
                "best f",
                "ε at best f",
                "ε at f = 1/2",
                "f = 1/2: share of best exponent",
            ),
            tuple(rows),
            ("", ".4f", ".1f", ".2e", ".2e", ".0%"),
            title=f"N = {self.n_copies} delivered copies, β = {self.bad_fraction:g}",
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return (
            f"FractionSweep(N={self.n_copies}, beta={self.bad_fraction:g}, "
            f"{len(self.labels)} detections, {self.fractions.size} fractions)"
        )


def fraction_sweep(
    n_copies: int = 800,
    bad_fraction: float = 0.1,
    *,
    attacks=(("split_worker", None), ("known_pads", 1), ("known_pads", None)),
    workers: int = 4,
    bits: int = 8,
    # a tuple, built once: immutable, so a safe default
    fractions=tuple(np.round(np.arange(1, 10) / 10, 1)),  # noqa: B008
) -> FractionSweep:
    """epsilon(n_copies, f, bad_fraction) for each f and each attack's detection (pairs
    ``(attack, attacked_qubits)``, :func:`qring_edu.vga.detection_probability`).

    Examples
    --------
    >>> sw = fraction_sweep()
    >>> [sw.best_fraction(i) for i in range(3)], [round(sw.exponent_share(i), 2) for i in range(3)]
    ([0.8, 0.7, 0.6], [0.76, 0.84, 0.94])
    """
    n = check_int(n_copies, "n_copies", 2, 100_000)
    beta = check_float(bad_fraction, "bad_fraction", 0.0, 1.0, hi_open=True)
    fr = np.asarray(
        [check_float(v, "fractions", 0.0, 1.0, lo_open=True, hi_open=True) for v in fractions]
    )
    labels, dets = [], []
    for attack, k in attacks:
        dets.append(detection_probability(attack, workers, bits=bits, attacked_qubits=k))
        labels.append(_attack_label(attack, k))
    eps = np.array([[vga_epsilon(n, float(f), beta, detection=d) for f in fr] for d in dets])
    return FractionSweep(
        n_copies=n,
        bad_fraction=beta,
        labels=tuple(labels),
        detections=np.array(dets),
        fractions=fr,
        epsilon=eps,
    )


# --------------------------------------------------------------------------------------------
# beta = 0: the floor 1 - f
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EpsilonFloor:
    """epsilon against the number of delivered copies, with no bad used copy allowed (beta = 0)
    and with ``bad_fraction``, for several detections; and the detection-free floor.

    ``epsilon_zero[i, k]``: :func:`qring_edu.vga_epsilon` at ``(n_copies[k], test_fraction, 0)``
    for ``detections[i]``; ``epsilon_beta[i, k]``: the same at ``bad_fraction``;
    ``floor_zero[k]`` / ``floor_beta[k]``: :func:`qring_edu.vga_epsilon_floor` (the bound that
    holds for every detection: one bad copy more than allowed, never tested).

    Examples
    --------
    >>> from qring_edu.experiments.vga import epsilon_floor_sweep
    >>> fl = epsilon_floor_sweep(max_copies=200)
    >>> fl.labels
    ('split worker (one qubit GHZ)', 'known pads on one qubit GHZ', 'dephasing')
    >>> fl.n_copies.shape, fl.epsilon_zero.shape          # (attacks, copy counts)
    ((14,), (3, 14))
    """

    test_fraction: float
    bad_fraction: float
    labels: tuple[str, ...]
    detections: np.ndarray = field(repr=False)
    n_copies: np.ndarray = field(repr=False)
    epsilon_zero: np.ndarray = field(repr=False)
    epsilon_beta: np.ndarray = field(repr=False)
    floor_zero: np.ndarray = field(repr=False)
    floor_beta: np.ndarray = field(repr=False)

    def __repr__(self) -> str:
        return (
            f"EpsilonFloor(f={self.test_fraction:g}, beta={self.bad_fraction:g}, "
            f"N from {int(self.n_copies[0])} to {int(self.n_copies[-1])}: "
            f"min eps at beta=0 = {float(self.epsilon_zero.min()):.4f})"
        )


def epsilon_floor_sweep(
    test_fraction: float = 0.5,
    bad_fraction: float = 0.1,
    *,
    max_copies: int = 2000,
    attacks=(("split_worker", None), ("known_pads", 1), ("dephasing", None)),
    workers: int = 4,
    bits: int = 8,
) -> EpsilonFloor:
    """epsilon at beta = 0 and at ``bad_fraction`` for 16 even copy counts from 2 to
    ``max_copies``, for each attack's detection.

    Examples
    --------
    >>> fl = epsilon_floor_sweep(max_copies=200)
    >>> float(fl.floor_zero.min()), bool(fl.epsilon_zero.min() >= 0.5 - 1e-9)
    (0.5, True)
    """
    f = check_float(test_fraction, "test_fraction", 0.0, 1.0, hi_open=True)
    beta = check_float(bad_fraction, "bad_fraction", 0.0, 1.0, hi_open=True)
    max_copies = check_int(max_copies, "max_copies", 4, 20_000)
    ns = np.unique(2 * np.round(np.geomspace(1, max_copies // 2, 16)).astype(int))
    labels, dets = [], []
    for attack, k in attacks:
        dets.append(detection_probability(attack, workers, bits=bits, attacked_qubits=k))
        labels.append(_attack_label(attack, k))
    zero = np.array([[vga_epsilon(int(n), f, 0.0, detection=d) for n in ns] for d in dets])
    at_beta = np.array([[vga_epsilon(int(n), f, beta, detection=d) for n in ns] for d in dets])
    return EpsilonFloor(
        test_fraction=f,
        bad_fraction=beta,
        labels=tuple(labels),
        detections=np.array(dets),
        n_copies=ns,
        epsilon_zero=zero,
        epsilon_beta=at_beta,
        floor_zero=np.array([vga_epsilon_floor(int(n), f, 0.0) for n in ns]),
        floor_beta=np.array([vga_epsilon_floor(int(n), f, beta) for n in ns]),
    )


# --------------------------------------------------------------------------------------------
# Partially bad copies: leak ~ t, failure ~ t**2 / 2
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PartialCopySweep:
    """:func:`qring_edu.vga.rotated_ghz_leak` over a range of rotation angles.

    Per angle: ``trace_distance`` t from the GHZ state, ``fail_probability`` of the register's
    test, ``leak`` (largest TV distance of the entry's transcript from the ideal over all inputs)
    and the witness bound ``distance_bound`` = sqrt(2 P(fail)). ``leak_slope`` and
    ``fail_slope``: log-log slopes against t over the angles up to 0.05 (1 and 2 for small t).

    Examples
    --------
    >>> from qring_edu.experiments.vga import partial_copy_sweep
    >>> sw = partial_copy_sweep([0.01, 0.1])
    >>> [round(float(t), 4) for t in sw.trace_distance]
    [0.01, 0.0998]
    >>> bool((sw.leak <= sw.distance_bound + 1e-12).all())           # the witness bound holds
    True
    """

    workers: int
    bits: int
    angles: np.ndarray = field(repr=False)
    trace_distance: np.ndarray = field(repr=False)
    fail_probability: np.ndarray = field(repr=False)
    leak: np.ndarray = field(repr=False)
    distance_bound: np.ndarray = field(repr=False)

    @property
    def _small(self) -> np.ndarray:
        return self.angles <= 0.05

    @property
    def leak_slope(self) -> float:
        return loglog_slope(self.trace_distance[self._small], self.leak[self._small])

    @property
    def fail_slope(self) -> float:
        return loglog_slope(self.trace_distance[self._small], self.fail_probability[self._small])

    def table(self, angles=(0.01, 0.1)) -> Table:
        """Rows at the angles closest to ``angles``."""
        rows = []
        for a in angles:
            i = int(np.argmin(np.abs(self.angles - a)))
            rows.append(
                (
                    float(self.trace_distance[i]),
                    float(self.fail_probability[i]),
                    float(self.leak[i]),
                    float(self.fail_probability[i] / self.leak[i]),
                )
            )
        return Table(
            ("trace distance t", "P(fail) per test", "leak (TV)", "P(fail) / leak"),
            tuple(rows),
            (".4f", ".2e", ".4f", ".4f"),
            title=f"rotated GHZ copy, P = {self.workers}, b = {self.bits}",
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return (
            f"PartialCopySweep(P={self.workers}, bits={self.bits}, {self.angles.size} angles, "
            f"leak_slope={self.leak_slope:.3f}, fail_slope={self.fail_slope:.3f})"
        )


def partial_copy_sweep(angles=None, workers: int = 2, bits: int = 1) -> PartialCopySweep:
    """Exact leak and failure probability of rotated GHZ copies (default: 13 angles from 1e-3 to
    0.3, log-spaced, plus 0.01 and 0.1).

    Examples
    --------
    >>> sw = partial_copy_sweep()
    >>> round(sw.leak_slope, 2), round(sw.fail_slope, 2)
    (1.0, 2.0)
    """
    if angles is None:
        angles = np.union1d(np.geomspace(1e-3, 0.3, 13), [0.01, 0.1])
    th = np.asarray([check_float(a, "angles", 0.0, 1.0, lo_open=True) for a in angles])
    results = [rotated_ghz_leak(float(a), workers, bits) for a in th]
    return PartialCopySweep(
        workers=workers,
        bits=bits,
        angles=th,
        trace_distance=np.array([r.trace_distance for r in results]),
        fail_probability=np.array([r.fail_probability for r in results]),
        leak=np.array([r.leak for r in results]),
        distance_bound=np.array([r.witness.distance_bound for r in results]),
    )


# --------------------------------------------------------------------------------------------
# The finite-copy fidelity guarantee (Zhu & Hayashi)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FiniteCopyCurve:
    """Fidelity that ``tests[k]`` passed register tests guarantee for one random untested
    register at significance ``significances[i]``: ``fidelity[i, k] = 1 -``
    :func:`qring_edu.vga.ghz_verified_infidelity`.

    Examples
    --------
    >>> from qring_edu.experiments.vga import finite_copy_curve
    >>> curve = finite_copy_curve(max_tests=1000)
    >>> curve.fidelity.shape                              # (significances, numbers of tests)
    (2, 35)
    >>> round(curve.at(400, 0.05), 4), round(curve.at(400, 0.01), 4)
    (0.9501, 0.7506)
    """

    tests: np.ndarray = field(repr=False)
    significances: np.ndarray = field(repr=False)
    fidelity: np.ndarray = field(repr=False)

    def at(self, tests: int, significance: float) -> float:
        return 1.0 - ghz_verified_infidelity(int(tests), float(significance))

    def __repr__(self) -> str:
        return (
            f"FiniteCopyCurve(tests from {int(self.tests[0])} to {int(self.tests[-1])}, "
            f"significances={[float(s) for s in self.significances]})"
        )


def finite_copy_curve(max_tests: int = 100_000, significances=(0.05, 0.01)) -> FiniteCopyCurve:
    """The guarantee for 40 log-spaced numbers of tests from 1 to ``max_tests``.

    Examples
    --------
    >>> round(finite_copy_curve().at(400, 0.05), 3)
    0.95
    """
    max_tests = check_int(max_tests, "max_tests", 2, 10**9)
    sig = np.asarray(
        [
            check_float(s, "significances", 0.0, 1.0, lo_open=True, hi_open=True)
            for s in significances
        ]
    )
    tests = np.unique(np.round(np.geomspace(1, max_tests, 40)).astype(int))
    fid = np.array([[1.0 - ghz_verified_infidelity(int(t), float(s)) for t in tests] for s in sig])
    return FiniteCopyCurve(tests=tests, significances=sig, fidelity=fid)


# --------------------------------------------------------------------------------------------
# Privacy amplification
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AmplificationSweep:
    """Leaked entries against the amplification k (each entry's pad the sum of k registers').

    Per k: ``measured[i]`` (fraction of entries whose every pad the source knows, one run of
    :func:`qring_edu.vga_aggregate` with ``source="known_pads"`` on a fraction
    ``attack_fraction`` of the delivered registers), ``exact[i]``
    (:func:`qring_edu.amplified_leak_probability` with the run's N and B), ``power[i]`` =
    ``attack_fraction**k``,
    ``ghz_used[i]`` (qubit GHZ copies used), ``sums_exact[i]`` (every sum right).

    Examples
    --------
    >>> from qring_edu.experiments.vga import amplification_sweep
    >>> sw = amplification_sweep(ks=(1, 2), entries=200)
    >>> sw
    AmplificationSweep(P=4, d=200, bits=8, attack_fraction=0.25, k=[1, 2])
    >>> sw.ks.tolist(), [round(float(p), 4) for p in sw.power]       # attack_fraction ** k
    ([1, 2], [0.25, 0.0625])
    """

    workers: int
    bits: int
    entries: int
    attack_fraction: float
    test_fraction: float
    ks: np.ndarray = field(repr=False)
    measured: np.ndarray = field(repr=False)
    exact: np.ndarray = field(repr=False)
    power: np.ndarray = field(repr=False)
    ghz_used: np.ndarray = field(repr=False)
    sums_exact: np.ndarray = field(repr=False)

    def table(self) -> Table:
        rows = tuple(
            zip(
                self.ks,
                self.measured,
                self.exact,
                self.power,
                self.ghz_used,
                (str(bool(v)) for v in self.sums_exact),
            )
        )
        return Table(
            (
                "k",
                "leaked entries (measured)",
                "exact C(B,k)/C(N,k)",
                "β^k",
                "qubit GHZ used",
                "sums exact",
            ),
            rows,
            ("d", ".4f", ".4f", ".4f", ",d", ""),
            title=f"P = {self.workers}, d = {self.entries}, b = {self.bits}, "
            f"{self.attack_fraction:.0%} of the registers attacked",
        )

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return (
            f"AmplificationSweep(P={self.workers}, d={self.entries}, bits={self.bits}, "
            f"attack_fraction={self.attack_fraction:g}, k={[int(k) for k in self.ks]})"
        )


def amplification_sweep(
    ks=(1, 2, 3, 4),
    attack_fraction: float = 0.25,
    *,
    workers: int = 4,
    entries: int = 2000,
    bits: int = 8,
    test_fraction: float = 0.5,
    seed: int = 6,
) -> AmplificationSweep:
    """One run per k on random 8-bit inputs (seeded); the leak is unconditioned on the verdict.

    Examples
    --------
    >>> sw = amplification_sweep(entries=200)
    >>> [round(float(v), 4) for v in sw.exact][:2], bool(sw.sums_exact.all())
    ([0.25, 0.0623], True)
    """
    workers = check_int(workers, "workers", 2, 64)
    entries = check_int(entries, "entries", 1, 20_000)
    a = check_float(attack_fraction, "attack_fraction", 0.0, 1.0)
    check_seed(seed)
    kk = np.asarray([check_int(int(k), "ks", 1, 16) for k in ks])
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1 << bits, size=(workers, entries))
    truth = modular_sum(x, bits)
    measured, exact, used, right = [], [], [], []
    for k in kk:
        res = vga_aggregate(
            x,
            bits=bits,
            test_fraction=test_fraction,
            source="known_pads",
            attack_fraction=a,
            amplification=int(k),
            seed=rng,
        )
        n, _ = vga_copy_counts(entries, test_fraction, amplification=int(k))
        measured.append(float(res.attacker_knows.mean()))
        exact.append(amplified_leak_probability(n, int(round(a * n)), int(k)))
        used.append(res.ghz_used)
        right.append(bool(np.array_equal(res.total, truth)))
    return AmplificationSweep(
        workers=workers,
        bits=bits,
        entries=entries,
        attack_fraction=a,
        test_fraction=float(test_fraction),
        ks=kk,
        measured=np.array(measured),
        exact=np.array(exact),
        power=a ** kk.astype(float),
        ghz_used=np.array(used),
        sums_exact=np.array(right),
    )
