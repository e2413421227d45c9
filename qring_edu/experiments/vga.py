"""Experiments of chapter 4, *Verified GHZ aggregation*: the attack playground, the privacy of the
transcripts, the circuits against the fast path, the sources side by side and the soundness
error ε.

Pure: every number comes from :mod:`qring_edu.vga`; results are frozen dataclasses (figures:
:mod:`qring_edu.figures.vga`). Transcript order: worker j's announcement ``m_j`` is a word in
``0 .. 2**bits - 1``; joint histograms index ``(m_0, m_1)`` as (row, column).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
from scipy.stats import chi2_contingency, chisquare

from .._validate import as_numeric_array, check_bits, check_choice, check_float, check_int, check_seed
from ..fixedpoint import modular_sum
from ..vga import (
    SOURCES,
    VGAResult,
    register_detection,
    vga_aggregate,
    vga_aggregate_qiskit,
    vga_copy_counts,
    vga_epsilon,
    vga_outcome_probabilities,
)
from ._base import Table

__all__ = [
    "AttackSweep",
    "attack_sweep",
    "TranscriptComparison",
    "transcript_comparison",
    "TranscriptPaths",
    "transcript_paths",
    "sources_table",
    "EpsilonGrid",
    "epsilon_grid",
]

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
    ``bad_fraction``, detection per register :func:`qring_edu.register_detection`).
    """

    source: str
    workers: int
    bits: int
    entries: int
    runs: int
    test_fraction: float
    bad_fraction: float
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
        return (f"AttackSweep(source={self.source!r}, P={self.workers}, bits={self.bits}, "
                f"d={self.entries}, runs={self.runs}, f={self.test_fraction:g}: "
                f"acceptance={self.at('acceptance'):.3f}, accuracy={self.at('accuracy'):.3f}, "
                f"epsilon={self.at('epsilon'):.3g})")


def attack_sweep(source: str = "known_pads", test_fraction: float = 0.5, entries: int = 8, *,
                 workers: int = 3, bits: int = 2, runs: int = 200,
                 eavesdrop_fraction: float = 0.25, noise: float = 0.02, tolerance: float = 0.0,
                 bad_fraction: float = 0.1, seed: int = 0) -> AttackSweep:
    """Run :func:`qring_edu.vga_aggregate` ``runs`` times per test fraction in
    ``{0, 0.1, ..., 0.9} + {test_fraction}`` on random inputs (P = ``workers``, d = ``entries``).

    ``eavesdrop_fraction`` and ``noise`` are used only by their source. Deterministic in ``seed``.

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
        raise ValueError(f"runs * entries * workers is too large for a live widget "
                         f"(at most {MAX_WORK // fractions.size} per fraction)")
    options = {"noisy": {"noise": noise}, "eavesdropper": {"eavesdrop_fraction": eavesdrop_fraction}}
    kw = options.get(source, {})
    rng = np.random.default_rng(seed)
    detection = register_detection(workers, bits)
    acc, guess, fail, eps = [], [], [], []
    for frac in fractions:
        accepted = correct = failed = tests = 0
        for _ in range(runs):
            x = rng.integers(0, 2**bits, size=(workers, entries))
            res = vga_aggregate(x, bits=bits, test_fraction=float(frac), source=source, seed=rng,
                                tolerance=tolerance, **kw)
            accepted += res.accepted
            correct += res.attacker_accuracy
            failed += res.tests_failed
            tests += res.tests
        acc.append(accepted / runs)
        guess.append(correct / runs)
        fail.append(failed / tests if tests else 0.0)
        n_copies = vga_copy_counts(entries, float(frac))[0]
        eps.append(vga_epsilon(n_copies, float(frac), beta, detection=detection))
    return AttackSweep(source=source, workers=workers, bits=bits, entries=entries, runs=runs,
                       test_fraction=f, bad_fraction=beta, fractions=fractions,
                       acceptance=np.array(acc), accuracy=np.array(guess),
                       fail_rate=np.array(fail), epsilon=np.array(eps))


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
        return (f"TranscriptComparison(P={self.inputs_a.size}, bits={self.bits}, "
                f"samples={self.samples}, same_sum={self.same_sum}, p_value={self.p_value:.3f})")


def _transcript_counts(inputs: np.ndarray, bits: int, samples: int, seed):
    res = vga_aggregate(np.tile(inputs[:, None], samples), bits=bits, seed=seed)
    t = res.transcript
    size = 1 << bits
    joint = np.bincount(t[0] * size + t[1], minlength=size * size).reshape(size, size)
    sums = np.bincount(res.total & (size - 1), minlength=size)
    codes = sum(t[j] << (bits * j) for j in range(t.shape[0]))
    return joint, sums, codes


def transcript_comparison(inputs_a: Sequence[int] = (1, 2, 3), inputs_b: Sequence[int] = (3, 3, 0),
                          bits: int = 2, samples: int = 4000, seed: int = 0) -> TranscriptComparison:
    """Run VGA (honest source) ``samples`` times on each input set and compare the transcripts.

    ``inputs_a``, ``inputs_b``: one integer word per worker, the same number P >= 2 of workers;
    ``bits``: 2..6 (histograms have ``2**(bits P)`` cells).
    """
    bits = check_int(bits, "bits", 2, 6)
    samples = check_int(samples, "samples", 10, MAX_SAMPLES)
    check_seed(seed)
    a = _words(inputs_a, "inputs_a")
    b = _words(inputs_b, "inputs_b")
    if a.size != b.size:
        raise ValueError(f"inputs_a and inputs_b must name the same number of workers, "
                         f"got {a.size} and {b.size}")
    if a.size * bits > 24:
        raise ValueError(f"too many cells for the histogram: P * bits must be <= 24, "
                         f"got {a.size} * {bits}")
    rng = np.random.default_rng(seed)
    joint_a, sums_a, codes_a = _transcript_counts(a, bits, samples, rng)
    joint_b, sums_b, codes_b = _transcript_counts(b, bits, samples, rng)
    cells = np.union1d(codes_a, codes_b)
    count_a = np.bincount(np.searchsorted(cells, codes_a), minlength=cells.size)
    count_b = np.bincount(np.searchsorted(cells, codes_b), minlength=cells.size)
    table = np.vstack([count_a, count_b])
    p_value = float(chi2_contingency(table).pvalue) if cells.size > 1 else 1.0
    return TranscriptComparison(bits=bits, inputs_a=a, inputs_b=b, samples=samples,
                                joint_a=joint_a, joint_b=joint_b, sums_a=sums_a, sums_b=sums_b,
                                p_value=p_value)


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
    """

    inputs: tuple[int, ...]
    bits: int
    samples: int
    exact: np.ndarray = field(repr=False)
    aer_counts: np.ndarray = field(repr=False)
    fast_counts: np.ndarray = field(repr=False)

    def _fit(self, counts: np.ndarray) -> tuple[int, float]:
        support = self.exact > 0
        return (int(counts[~support].sum()),
                float(chisquare(counts[support], self.exact[support] * self.samples).pvalue))

    @property
    def aer_p_value(self) -> float:
        return self._fit(self.aer_counts)[1]

    @property
    def fast_p_value(self) -> float:
        return self._fit(self.fast_counts)[1]

    def table(self) -> Table:
        """Per path: transcripts off the sum and the chi-squared p-value against the exact law."""
        rows = [(name, *self._fit(c)) for name, c in
                (("Aer circuits", self.aer_counts), ("fast path", self.fast_counts))]
        return Table(("path", "transcripts off the sum", "chi-squared p vs exact"), tuple(rows),
                     ("", "d", ".3f"))

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return (f"TranscriptPaths(inputs={self.inputs}, bits={self.bits}, samples={self.samples}, "
                f"aer_p={self.aer_p_value:.3f}, fast_p={self.fast_p_value:.3f})")


def transcript_paths(inputs: Sequence[int] = (2, 3, 1), bits: int = 2, samples: int = 4000, *,
                     aer_seed: int = 1, fast_seed: int = 2) -> TranscriptPaths:
    """Sample the transcripts of one entry per worker (``inputs``, P = len(inputs) <= 4) with both
    paths, ``samples`` times each; ``bits`` b with ``b P <= 12``."""
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

    return TranscriptPaths(tuple(int(v) for v in x), bits, samples, exact, counts(aer), counts(fast))


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
        rows.append((str(label), r.tests_failed / r.tests if r.tests else None, str(r.accepted),
                     float(np.mean(r.total == truth)), float(r.attacker_accuracy)))
    return Table(("source", "failed tests", "accepted", "exact sums", "source's accuracy"),
                 tuple(rows), ("", ".2%", "", ".2%", ".2%"))


# --------------------------------------------------------------------------------------------
# Epsilon against copies and test fraction
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EpsilonGrid:
    """``epsilon[i, k]`` = :func:`qring_edu.vga_epsilon` for ``used[k]`` used copies at test
    fraction ``fractions[i]`` (``n_copies = ceil(used / (1 - f))``); ``overhead[i] = 1/(1-f)``.

    Examples
    --------
    >>> print(epsilon_grid(0.1, 0.5, max_used=400).table())
       f  delivered per used copy  ε at d = 400 used copies
    0.25                     1.33                  8.47e-04
    0.50                     2.00                  1.13e-08
    0.75                     4.00                  2.74e-18
    """

    bad_fraction: float
    detection: float
    used: np.ndarray = field(repr=False)
    fractions: np.ndarray = field(repr=False)
    epsilon: np.ndarray = field(repr=False)

    @property
    def overhead(self) -> np.ndarray:
        return 1.0 / (1.0 - self.fractions)

    def table(self) -> Table:
        """Per test fraction: the copy overhead and ε at the largest number of used copies."""
        d = int(self.used[-1])
        rows = tuple(zip(self.fractions, self.overhead, self.epsilon[:, -1]))
        return Table(("f", "delivered per used copy", f"ε at d = {d} used copies"), rows,
                     (".2f", ".2f", ".2e"))

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()

    def __repr__(self) -> str:
        return (f"EpsilonGrid(bad_fraction={self.bad_fraction:g}, detection={self.detection:g}, "
                f"used={self.used.size} sizes up to {int(self.used.max())}, "
                f"fractions={self.fractions.size})")


def epsilon_grid(bad_fraction: float = 0.1, detection: float = 0.5, max_used: int = 400,
                 fractions=(0.25, 0.5, 0.75)) -> EpsilonGrid:
    """epsilon for 20 used-copy counts from 10 to ``max_used`` (log-spaced) and each fraction."""
    beta = check_float(bad_fraction, "bad_fraction", 0.0, 1.0, hi_open=True)
    delta = check_float(detection, "detection", 0.0, 1.0, lo_open=True)
    max_used = check_int(max_used, "max_used", 10, 5000)
    fr = np.asarray([check_float(v, "fractions", 0.0, 0.95) for v in fractions])
    used = np.unique(np.round(np.geomspace(10, max_used, 20)).astype(int))
    eps = np.array([[vga_epsilon(vga_copy_counts(int(u), float(f))[0], float(f), beta,
                                 detection=delta) for u in used] for f in fr])
    return EpsilonGrid(bad_fraction=beta, detection=delta, used=used, fractions=fr, epsilon=eps)
