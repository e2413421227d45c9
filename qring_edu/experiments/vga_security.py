"""Experiments of the VGA security chapter (slug ``vga_security``, after book/05_vga.ipynb):
beyond the sampling bound — the finite-copy fidelity guarantee, partially bad copies, privacy
amplification.

Pure: every number comes from :mod:`qring_edu.vga_security` and :mod:`qring_edu.vga`; results
are frozen dataclasses (figures: :mod:`qring_edu.figures.vga_security`).
"""

from __future__ import annotations

from dataclasses import field

import numpy as np

from .._result import result
from .._validate import check_float, check_int, check_seed
from ..fixedpoint import modular_sum
from ..vga import KnownPads, vga_aggregate, vga_copy_counts
from ..vga_security import amplified_leak_probability, ghz_verified_infidelity, rotated_ghz_leak
from ._base import Table, loglog_slope

__all__ = [
    "PartialCopySweep",
    "partial_copy_sweep",
    "FiniteCopyCurve",
    "finite_copy_curve",
    "AmplificationSweep",
    "amplification_sweep",
]


# --------------------------------------------------------------------------------------------
# Partially bad copies: leak ~ t, failure ~ t**2 / 2
# --------------------------------------------------------------------------------------------
@result(show=("leak_slope", "fail_slope"))
class PartialCopySweep:
    """:func:`qring_edu.rotated_ghz_leak` over a range of rotation angles.

    Per angle: ``trace_distance`` t from the GHZ state, ``fail_probability`` of the register's
    test, ``leak`` (largest TV distance of the entry's transcript from the ideal over all inputs)
    and the witness bound ``distance_bound = sqrt(2 P(fail))``. ``leak_slope``, ``fail_slope``:
    log-log slopes against t over the angles up to 0.05 (1 and 2 for small t).

    Examples
    --------
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
    def leak_slope(self) -> float:
        small = self.angles <= 0.05
        return loglog_slope(self.trace_distance[small], self.leak[small])

    @property
    def fail_slope(self) -> float:
        small = self.angles <= 0.05
        return loglog_slope(self.trace_distance[small], self.fail_probability[small])

    def table(self, angles=(0.01, 0.1)) -> Table:
        """Rows at the angles closest to ``angles``."""
        rows = []
        for a in angles:
            i = int(np.argmin(np.abs(self.angles - a)))
            fail, leak = float(self.fail_probability[i]), float(self.leak[i])
            rows.append((float(self.trace_distance[i]), fail, leak, fail / leak))
        columns = ("trace distance t", "P(fail) per test", "leak (TV)", "P(fail) / leak")
        title = f"rotated GHZ copy, P = {self.workers}, b = {self.bits}"
        return Table(columns, tuple(rows), (".4f", ".2e", ".4f", ".4f"), title=title)

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()


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
    runs = [rotated_ghz_leak(float(a), workers, bits) for a in th]
    return PartialCopySweep(
        workers,
        bits,
        th,
        np.array([r.trace_distance for r in runs]),
        np.array([r.fail_probability for r in runs]),
        np.array([r.leak for r in runs]),
        np.array([r.witness.distance_bound for r in runs]),
    )


# --------------------------------------------------------------------------------------------
# The finite-copy fidelity guarantee (Zhu & Hayashi)
# --------------------------------------------------------------------------------------------
@result
class FiniteCopyCurve:
    """Fidelity that ``tests[k]`` passed register tests guarantee for one random untested
    register at significance ``significances[i]``: ``fidelity[i, k] = 1 -``
    :func:`qring_edu.ghz_verified_infidelity`.

    Examples
    --------
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
        """The guarantee for any number of tests and significance."""
        return 1.0 - ghz_verified_infidelity(int(tests), float(significance))


def finite_copy_curve(max_tests: int = 100_000, significances=(0.05, 0.01)) -> FiniteCopyCurve:
    """The guarantee for 40 log-spaced numbers of tests from 1 to ``max_tests``.

    Examples
    --------
    >>> round(finite_copy_curve().at(400, 0.05), 3)
    0.95
    """
    max_tests = check_int(max_tests, "max_tests", 2, 10**9)
    sig = [
        check_float(s, "significances", 0.0, 1.0, lo_open=True, hi_open=True) for s in significances
    ]
    tests = np.unique(np.round(np.geomspace(1, max_tests, 40)).astype(int))
    fid = [[1.0 - ghz_verified_infidelity(int(t), s) for t in tests] for s in sig]
    return FiniteCopyCurve(tests, np.array(sig), np.array(fid))


# --------------------------------------------------------------------------------------------
# Privacy amplification
# --------------------------------------------------------------------------------------------
@result
class AmplificationSweep:
    """Leaked entries against the amplification k (each entry's pad the sum of k registers').

    Per k: ``measured[i]`` (fraction of entries whose every pad the source knows, one run of
    :func:`qring_edu.vga_aggregate` with ``source=KnownPads(attack_fraction)``), ``exact[i]``
    (:func:`qring_edu.amplified_leak_probability` with the run's N and B), ``power[i] =
    attack_fraction**k``, ``ghz_used[i]`` (qubit GHZ copies used), ``sums_exact[i]``.

    Examples
    --------
    >>> sw = amplification_sweep(ks=(1, 2), entries=200)
    >>> sw
    AmplificationSweep(workers=4, bits=8, entries=200, attack_fraction=0.25, test_fraction=0.5)
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
        rights = (str(bool(v)) for v in self.sums_exact)
        rows = tuple(zip(self.ks, self.measured, self.exact, self.power, self.ghz_used, rights))
        columns = (
            "k",
            "leaked entries (measured)",
            "exact C(B,k)/C(N,k)",
            "β^k",
            "qubit GHZ used",
            "sums exact",
        )
        title = (
            f"P = {self.workers}, d = {self.entries}, b = {self.bits}, "
            f"{self.attack_fraction:.0%} of the registers attacked"
        )
        return Table(columns, rows, ("d", ".4f", ".4f", ".4f", ",d", ""), title=title)

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()


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
    """One run per k on random inputs (seeded); the leak is unconditioned on the verdict.

    Examples
    --------
    >>> sw = amplification_sweep(entries=200)
    >>> [round(float(v), 4) for v in sw.exact][:2], bool(sw.sums_exact.all())
    ([0.25, 0.0623], True)
    """
    workers = check_int(workers, "workers", 2, 64)
    entries = check_int(entries, "entries", 1, 20_000)
    source = KnownPads(attack_fraction)
    check_seed(seed)
    kk = np.asarray([check_int(int(k), "ks", 1, 16) for k in ks])
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1 << bits, size=(workers, entries))
    truth = modular_sum(x, bits)
    measured, exact, used, right = [], [], [], []
    for k in kk.tolist():
        res = vga_aggregate(
            x, bits=bits, test_fraction=test_fraction, source=source, amplification=k, seed=rng
        )
        n, _ = vga_copy_counts(entries, test_fraction, amplification=k)
        measured.append(float(res.attacker_knows.mean()))
        exact.append(amplified_leak_probability(n, round(source.fraction * n), k))
        used.append(res.ghz_used)
        right.append(bool(np.array_equal(res.total, truth)))
    return AmplificationSweep(
        workers,
        bits,
        entries,
        source.fraction,
        float(test_fraction),
        kk,
        np.array(measured),
        np.array(exact),
        source.fraction ** kk.astype(float),
        np.array(used),
        np.array(right),
    )
