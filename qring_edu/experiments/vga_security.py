"""Experiments of the VGA security chapter (book/06_vga_security.ipynb): the finite-copy
fidelity guarantee, partially bad copies, privacy amplification, dropout, VGA's costs next to its
competitors and the published GHZ distribution numbers (from :mod:`qring_edu.vga_security` and
:mod:`qring_edu.vga`). Literature numbers are quoted as their sources state them, each with its
reference key; where we only read a protocol ourselves, the text says "our reading".
"""

from __future__ import annotations

from dataclasses import field, fields

import numpy as np
from scipy.stats import chisquare

from .._result import result
from .._validate import check_bits, check_float, check_int, check_seed
from ..fixedpoint import modular_sum
from ..vga import KnownPads, vga_aggregate, vga_copy_counts, vga_restart
from ..vga_security import amplified_leak_probability, ghz_verified_infidelity, rotated_ghz_leak
from ._base import Table, Tabular, loglog_slope

__all__ = [
    "PartialCopySweep",
    "partial_copy_sweep",
    "FiniteCopyCurve",
    "finite_copy_curve",
    "AmplificationSweep",
    "amplification_sweep",
    "DropoutComparison",
    "dropout_comparison",
    "AggregationCosts",
    "aggregation_costs",
    "BONAWITZ_ROUNDS",
    "scheme_table",
    "PHOTONIC_GHZ",
    "GHZ_EXPERIMENTS",
    "GHZDistribution",
    "ghz_distribution",
]


@result(show=("leak_slope", "fail_slope"))
class PartialCopySweep(Tabular):
    """:func:`qring_edu.vga_security.rotated_ghz_leak` per rotation angle: ``trace_distance``
    t, ``fail_probability``, ``leak`` (largest TV distance from the ideal transcript),
    ``distance_bound = sqrt(2 P(fail))``; slopes against t for angles <= 0.05 (1 and 2).

    Examples
    --------
    >>> sw = partial_copy_sweep([0.01, 0.1])
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
        return self._slope(self.leak)

    @property
    def fail_slope(self) -> float:
        return self._slope(self.fail_probability)

    def _slope(self, y: np.ndarray) -> float:
        small = self.angles <= 0.05
        return loglog_slope(self.trace_distance[small], y[small])

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
    check_int(len(angles), "len(angles)", 1, 200)  # each angle enumerates every input
    th = np.asarray([check_float(a, "angles", 0.0, 1.0, lo_open=True) for a in angles])
    runs = [rotated_ghz_leak(float(a), workers, bits) for a in th]
    cols = [(r.trace_distance, r.fail_probability, r.leak, r.witness.distance_bound) for r in runs]
    return PartialCopySweep(workers, bits, th, *map(np.array, zip(*cols)))


@result
class FiniteCopyCurve:
    """``fidelity[i, k] = 1 -`` :func:`qring_edu.vga_security.ghz_verified_infidelity` after
    ``tests[k]`` passed tests, at significance ``significances[i]``.

    Examples
    --------
    >>> curve = finite_copy_curve(max_tests=1000)
    >>> curve.fidelity.shape, round(curve.at(400, 0.05), 4), round(curve.at(400, 0.01), 4)
    ((2, 35), 0.9501, 0.7506)
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
    opts = dict(lo_open=True, hi_open=True)
    sig = [check_float(s, "significances", 0.0, 1.0, **opts) for s in significances]
    tests = np.unique(np.round(np.geomspace(1, max_tests, 40)).astype(int))
    fid = [[1.0 - ghz_verified_infidelity(int(t), s) for t in tests] for s in sig]
    return FiniteCopyCurve(tests, np.array(sig), np.array(fid))


@result
class AmplificationSweep(Tabular):
    """Leaked entries against the amplification k (each entry's pad the sum of k registers'):
    per k ``measured`` (one :func:`qring_edu.vga_aggregate` run with
    ``KnownPads(attack_fraction)``), ``exact``
    (:func:`qring_edu.vga_security.amplified_leak_probability`), ``power = attack_fraction**k``,
    ``ghz_used``, ``sums_exact``.

    Examples
    --------
    >>> sw = amplification_sweep(ks=(1, 2), entries=200); sw
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
        columns = ("k", "leaked entries (measured)", "exact C(B,k)/C(N,k)", "β^k")
        columns += ("qubit GHZ used", "sums exact")
        title = f"P = {self.workers}, d = {self.entries}, b = {self.bits}, "
        title += f"{self.attack_fraction:.0%} of the registers attacked"
        return Table(columns, rows, ("d", ".4f", ".4f", ".4f", ",d", ""), title=title)


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
    """:class:`AmplificationSweep`: one run per k on seeded random inputs (the leak is not
    conditioned on the verdict).

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
    check_int(len(ks), "len(ks)", 1, 16)
    kk = np.asarray([check_int(k, "ks", 1, 16) for k in ks])
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1 << bits, size=(workers, entries))
    truth = modular_sum(x, bits)
    measured, exact, used, right = [], [], [], []
    for k in kk.tolist():
        kw = dict(bits=bits, test_fraction=test_fraction, source=source, seed=rng)
        res = vga_aggregate(x, amplification=k, **kw)
        n, _ = vga_copy_counts(entries, test_fraction, amplification=k)
        measured.append(float(res.attacker_knows.mean()))
        exact.append(amplified_leak_probability(n, round(source.fraction * n), k))
        used.append(res.ghz_used)
        right.append(bool(np.array_equal(res.total, truth)))
    power = source.fraction ** kk.astype(float)
    per_k = (np.array(measured), np.array(exact), power, np.array(used), np.array(right))
    setting = (workers, bits, entries, source.fraction, float(test_fraction))
    return AmplificationSweep(*setting, kk, *per_k)


@result(show=("hit_rate",))
class DropoutComparison(Tabular):
    """A VGA round with dropped workers, and its restart among the survivors.

    ``lost_totals`` (int64, (d,)): what the survivors compute; ``hit_rate``: fraction equal to
    ``survivors_sum`` (``2**-bits`` expected); ``uniform_p_value``: chi-squared test of the
    difference against uniform; ``ghz_first``, ``ghz_restart``: qubit GHZ copies of each round.

    Examples
    --------
    >>> run = dropout_comparison(entries=2000)
    >>> run.restart_exact, run.ghz_first, run.ghz_restart
    (True, 32000, 32000)
    """

    workers: int
    bits: int
    dropped: tuple[int, ...]
    restart_exact: bool
    uniform_p_value: float
    ghz_first: int
    ghz_restart: int
    lost_totals: np.ndarray = field(repr=False)
    survivors_sum: np.ndarray = field(repr=False)

    @property
    def hit_rate(self) -> float:
        return float(np.mean(self.lost_totals == self.survivors_sum))

    def table(self) -> Table:
        """What the survivors end up with, in VGA and (our reading) in Bonawitz et al. 2017."""
        lost = f"a uniformly random word (hit rate {self.hit_rate:.2%})"
        restart = "their sum" if self.restart_exact else "wrong sum"
        bonawitz = "their sum in the same round, if at least t of n remain (our reading)"
        rows = (
            ("VGA, the round with the dropout", lost, self.ghz_first),
            ("VGA, restart among the survivors", restart, self.ghz_restart),
            ("Bonawitz et al. 2017", bonawitz, None),
        )
        columns = ("round", "what the survivors get", "qubit GHZ copies")
        title = f"P = {self.workers}, worker(s) {list(self.dropped)} drop out before announcing"
        return Table(columns, rows, ("", "", ",d"), title=title)


def dropout_comparison(
    workers: int = 4, entries: int = 2000, bits: int = 8, dropped=(3,), seed: int = 0
) -> DropoutComparison:
    """Drop ``dropped`` before they announce (:func:`qring_edu.vga.vga_restart`, honest source) on
    random inputs: the lost round's totals against the survivors' sum, and the restart.

    Examples
    --------
    >>> run = dropout_comparison(entries=4000, seed=1)
    >>> abs(run.hit_rate - 2**-8) < 0.01, run.uniform_p_value > 1e-3
    (True, True)
    """
    workers = check_int(workers, "workers", 3, 64)
    entries = check_int(entries, "entries", 1, 200_000)
    bits = check_bits(bits)
    check_seed(seed)
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1 << bits, size=(workers, entries))
    run = vga_restart(x, dropped=dropped, bits=bits, seed=rng)
    survivors = modular_sum(x[list(run.survivors)], bits)
    offsets = (run.first.total - survivors) % (1 << bits)
    p = float(chisquare(np.bincount(offsets, minlength=1 << bits)).pvalue)
    dropped_rows = tuple(int(j) for j in np.flatnonzero(~run.first.announced))
    exact = bool(np.array_equal(run.total, survivors))
    ghz = (run.first.ghz_delivered, run.restart.ghz_delivered, run.first.total)
    return DropoutComparison(workers, bits, dropped_rows, exact, p, *ghz, survivors)


#: Rounds of Bonawitz et al. 2017's honest-but-curious protocol (AdvertiseKeys, ShareKeys,
#: MaskedInputCollection, Unmasking); our reading of the paper, not stated in its abstract.
BONAWITZ_ROUNDS = 4


@result
class AggregationCosts(Tabular):
    """Resources (not their production cost) of one aggregation of d b-bit values over P
    workers, arrays of shape (len(workers), len(entries)):

    * VGA: ``ghz_used = d b`` qubit GHZ copies (P qubits each), ``ghz_tested = T b``,
      ``ghz_delivered = N b``, ``(N, T) =`` :func:`qring_edu.vga.vga_copy_counts`;
    * QKD one-time-pad masks (:func:`scheme_table`): ``all_pairs_key_bits = P (P - 1)/2 d b``,
      ``ring_key_bits = P d b`` (one pair when P = 2);
    * ``masked_bits_per_worker = d b``, in every scheme;
    * Bonawitz et al. 2017 (our reading, honest-but-curious): :data:`BONAWITZ_ROUNDS` rounds of
      upload and reply, ``bonawitz_messages = 8 P``; ``bonawitz_shares = 2 P (P - 1)`` Shamir
      shares; independent of d (masks from seeds by a PRG).

    Examples
    --------
    >>> costs = aggregation_costs(workers=(4,), entries=(10,), bits=16)
    >>> int(costs.bonawitz_messages[0, 0]), int(costs.bonawitz_shares[0, 0])
    (32, 24)
    """

    bits: int
    test_fraction: float
    workers: tuple[int, ...]
    entries: tuple[int, ...]
    ghz_used: np.ndarray = field(repr=False)
    ghz_tested: np.ndarray = field(repr=False)
    ghz_delivered: np.ndarray = field(repr=False)
    all_pairs_key_bits: np.ndarray = field(repr=False)
    ring_key_bits: np.ndarray = field(repr=False)
    masked_bits_per_worker: np.ndarray = field(repr=False)
    bonawitz_messages: np.ndarray = field(repr=False)
    bonawitz_shares: np.ndarray = field(repr=False)

    def table(self) -> Table:
        """One row per (P, d): the counts above."""
        counts = [getattr(self, f.name) for f in fields(self)[4:]]  # the eight count arrays
        rows = tuple(
            (p, d, *(int(c[i, j]) for c in counts))
            for i, p in enumerate(self.workers)
            for j, d in enumerate(self.entries)
        )
        columns = ("P", "d", "VGA: GHZ copies used", "tested", "delivered")
        columns += ("QKD key bits, all pairs", "QKD key bits, ring of masks")
        columns += ("masked bits sent per worker", f"Bonawitz: messages ({BONAWITZ_ROUNDS} rounds)")
        columns += ("Shamir shares",)
        title = f"one aggregation of d {self.bits}-bit values, "
        title += f"VGA test fraction {self.test_fraction:g}"
        return Table(columns, rows, ("d", ",d") + (".3g",) * 6 + (",d", ",d"), title=title)


def aggregation_costs(
    workers=(4, 16, 64), entries=(10**6, 10**8), bits: int = 16, test_fraction: float = 0.5
) -> AggregationCosts:
    """The resource counts of :class:`AggregationCosts` on the grid ``workers`` x ``entries``.
    The arrays hold Python ints (object dtype): exact at any size.

    Examples
    --------
    >>> print(aggregation_costs(workers=(4,), entries=(10,)).table())
    one aggregation of d 16-bit values, VGA test fraction 0.5
    P   d  VGA: GHZ copies used  tested  delivered  QKD key bits, all pairs  QKD key bits, ring of masks  masked bits sent per worker  Bonawitz: messages (4 rounds)  Shamir shares
    4  10                   160     160        320                      960                          640                          160                             32             24
    """
    ps = tuple(check_int(p, "workers", 2, 10**6) for p in np.atleast_1d(workers).tolist())
    ds = tuple(check_int(d, "entries", 1, 10**15) for d in np.atleast_1d(entries).tolist())
    bits = check_bits(bits)
    f = check_float(test_fraction, "test_fraction", 0.0, 1.0, hi_open=True)
    grid = np.zeros((8, len(ps), len(ds)), dtype=object)
    for i, p in enumerate(ps):
        for j, d in enumerate(ds):
            n, t = vga_copy_counts(d, f)
            pairs, ring_pairs = p * (p - 1) // 2, p if p >= 3 else 1
            keys = (pairs * d * bits, ring_pairs * d * bits, d * bits)
            bonawitz = (2 * BONAWITZ_ROUNDS * p, 2 * p * (p - 1))
            grid[:, i, j] = (d * bits, t * bits, n * bits, *keys, *bonawitz)
    return AggregationCosts(bits, f, ps, ds, *grid)


def scheme_table() -> Table:
    """What each way of summing privately rests on and what it tolerates (a fixed table).

    Sources: Bonawitz et al., CCS 2017 (``bonawitz2017practical``; the abstract says "privacy is
    preserved even if an arbitrarily chosen subset of users drop out at any time" and gives the
    16-bit expansions 1.73x for 2^10 users and 2^20-dimensional vectors, 1.98x for 2^14 users and
    2^24); the round structure, t-of-n recovery and complexity are our reading of the protocol.
    Huang et al., npj Quantum Inf. 2022 (``huang2022experimental``) ran information-theoretic
    anonymity protocols on an eight-user QKD network, secure with at most n - 2 colluding users.

    Examples
    --------
    >>> scheme_table().column("scheme")
    ('VGA (this book)', 'one-time-pad masks, all pairs (QKD keys)', 'one-time-pad masks, ring (QKD keys)', 'Bonawitz et al. 2017')
    """
    rows = (
        (
            "VGA (this book)",
            "d b GHZ copies used + about d b f/(1-f) tested",
            "information-theoretic for genuine GHZ; against the source a sampling bound ε, not composable",
            "P - 2 workers",
            "none: the round is lost; restart on fresh copies",
        ),
        (
            "one-time-pad masks, all pairs (QKD keys)",
            "P(P-1)/2 d b key bits ((P-1) d b per worker); QKD overhead out of scope",
            "information-theoretic given the keys",
            "P - 2 workers",
            "none: the dropped worker's pads stay uncancelled",
        ),
        (
            "one-time-pad masks, ring (QKD keys)",
            "P d b key bits (2 d b per worker); QKD overhead out of scope",
            "information-theoretic given the keys",
            "one worker: a worker's two ring neighbours together learn its input",
            "none: the dropped worker's pads stay uncancelled",
        ),
        (
            "Bonawitz et al. 2017",
            "4 rounds per client, O(P + d b) bits per client (our reading); 1.73x-1.98x "
            "expansion at 16 bits (abstract)",
            "computational (key agreement + PRG, our reading)",
            "fewer than the threshold t (our reading)",
            "survives drop-outs at any time (abstract); t-of-n recovery (our reading)",
        ),
    )
    columns = ("scheme", "resource per aggregation", "security", "collusion tolerated", "dropout")
    return Table(columns, rows, ("",) * 5)


#: Photonic N-photon GHZ states, post-selected on N-fold coincidences (they exist only when
#: detected, so they cannot be stored for later use): ``(N, fidelity, count rate in Hz)``, pump
#: 0.57 W. Wang et al., PRL 117, 210502 (2016), Table I (``wang2016ten``).
PHOTONIC_GHZ = (
    (2, 0.9720, 1_200_000.0),
    (4, 0.833, 6000.0),
    (6, 0.710, 39.0),
    (8, 0.644, 0.2),
    (10, 0.573, 0.0011),
)

#: Published GHZ distributions: ``(reference key, what, parties N, fidelity, rate in 1/s)``;
#: fidelity as published (a bound where the source gives one).
GHZ_EXPERIMENTS = (
    (
        "goetting2026tripartite",
        "3 separate trapped-ion nodes (138Ba+), photonic links; Goetting et al., arXiv:2606.17173",
        3,
        "0.841(17) <= F <= 0.881(17)",
        0.095,
    ),
    (
        "wang2016ten",
        "10 photons, post-selected; Wang et al., PRL 117, 210502 (2016)",
        10,
        "0.573(23)",
        0.0011,
    ),
    (
        "zhong2018twelve",
        "12 photons, post-selected; Zhong et al., PRL 121, 250505 (2018)",
        12,
        "0.572(24)",
        1 / 3600,
    ),
)


@result
class GHZDistribution(Tabular):
    """The published GHZ rates and fidelities, and how long one aggregation's copies would take.

    ``copies``: ``ghz_delivered`` of :func:`aggregation_costs`; ``seconds[i] = copies / rate``
    at experiment i's rate (our arithmetic; photonic states cannot be stored, a 3-party rate
    says nothing about P > 3); ``photonic``: :data:`PHOTONIC_GHZ`.

    Examples
    --------
    >>> dist = ghz_distribution(entries=10**6)
    >>> dist.copies, f"{dist.seconds[0]:.2e}"
    (32000000, '3.37e+08')
    """

    entries: int
    bits: int
    test_fraction: float
    copies: int
    seconds: tuple = field(repr=False)
    photonic: tuple = field(repr=False)

    def table(self) -> Table:
        rows = tuple(
            (key, what, n, fid, rate, s / 86400 / 365.25)
            for (key, what, n, fid, rate), s in zip(GHZ_EXPERIMENTS, self.seconds)
        )
        columns = ("reference", "what", "N", "fidelity", "rate (1/s)")
        years = f"years for {self.copies:,} copies"
        return Table((*columns, years), rows, ("", "", "d", "", ".3g", ".3g"))

    def photonic_table(self) -> Table:
        """Fidelity and rate of post-selected N-photon GHZ states against N (Wang et al. 2016)."""
        heads = ("N photons", "fidelity", "count rate (Hz)")
        return Table(heads, self.photonic, ("d", ".3f", ".3g"))


def ghz_distribution(
    entries: int = 10**6, bits: int = 16, test_fraction: float = 0.5
) -> GHZDistribution:
    """The published GHZ numbers (:data:`GHZ_EXPERIMENTS`, :data:`PHOTONIC_GHZ`) next to what one
    aggregation of ``entries`` b-bit values needs.

    Examples
    --------
    >>> [n for n, _, _ in ghz_distribution().photonic]
    [2, 4, 6, 8, 10]
    """
    copies = int(aggregation_costs((2,), (entries,), bits, test_fraction).ghz_delivered[0, 0])
    seconds = tuple(copies / rate for *_, rate in GHZ_EXPERIMENTS)
    return GHZDistribution(int(entries), bits, float(test_fraction), copies, seconds, PHOTONIC_GHZ)
