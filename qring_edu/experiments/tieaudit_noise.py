"""TieAudit on untrusted channels (book/08_tieaudit.ipynb): the verified protocol (hidden
tests, twirl, Freedman interval) against depolarising noise, the data-only attack and dephasing
(:func:`noise_sweep`, :func:`tieaudit_attack_sweep`, :func:`dephasing_sweep`,
:func:`ratio_bias`), and the coverage of its interval against sources that adapt copy by copy
(:func:`adaptive_coverage`). Figures in :mod:`qring_edu.figures.tieaudit`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field

import numpy as np

from .._result import result
from .._validate import check_choice, check_delta, check_float, check_int, check_seed
from ..tieaudit import (
    TEST_FRACTION,
    Dephasing,
    Depolarizing,
    _check_alpha,
    check_matching,
    check_signs,
    outcome_probabilities,
    tieaudit,
    tieaudit_copies,
    tieaudit_interval,
)
from ._base import Table, Tabular, rng
from .tieaudit import ATTACK_CASES, _truth, attack_channel, random_matching, signs_with_disagreement

__all__ = [
    "ratio_bias",
    "NoiseSweep",
    "noise_sweep",
    "AttackSweep",
    "tieaudit_attack_sweep",
    "DephasingSweep",
    "dephasing_sweep",
    "ConstantSource",
    "OutcomeWalk",
    "LabelWalk",
    "PoolTracking",
    "wald_ratio_interval",
    "AdaptiveCoverage",
    "adaptive_coverage",
]


def ratio_bias(signs, matching, channel) -> float:
    """Many-copies limit of ``f_hat - f`` *without* the twirl: ``f_w - f``, ``f_w = sum_e w_e
    d_e / sum_e w_e``, ``d_e = [s_i != s_j]``, ``w_e = (1 - 2 noise)^|i XOR j|`` under
    :class:`~qring_edu.tieaudit.Dephasing` (0 under :class:`~qring_edu.tieaudit.Depolarizing`).

    Examples
    --------
    >>> from qring_edu.tieaudit import Dephasing
    >>> s = [1, -1, 1, 1, 1, 1, 1, 1]            # pair (0, 1) disagrees, Hamming distance 1
    >>> m = [[0, 1], [2, 5]]                      # pair (2, 5): 2 XOR 5 = 7, distance 3
    >>> round(ratio_bias(s, m, Dephasing(0.1)), 4)   # f = 1/2, f_w = 0.8 / (0.8 + 0.512)
    0.1098
    """
    s = check_signs(signs)
    m = check_matching(matching, s.size)
    if isinstance(channel, Depolarizing):
        return 0.0
    if not isinstance(channel, Dephasing):
        raise TypeError(f"channel must be Depolarizing or Dephasing, got {channel!r}")
    w = (1.0 - 2.0 * channel.noise) ** np.bitwise_count(m[:, 0] ^ m[:, 1]).astype(np.float64)
    if w.sum() == 0.0:
        raise ValueError("channel dephases every pair completely: the ratio is undefined")
    d = (s[m[:, 0]] != s[m[:, 1]]).astype(np.float64)
    return float((w @ d) / w.sum() - d.mean())


@result(show=("max_calibrated_error", "max_naive_error"))
class NoiseSweep(Tabular):
    """Result of :func:`noise_sweep` (arrays indexed like ``noises``).

    Examples
    --------
    >>> sw = noise_sweep((0.0, 0.3), log2_P=8, eps=0.1)
    >>> sw.noises.tolist(), sw.copies.tolist()
    ([0.0, 0.3], [185, 1541])
    """

    noises: np.ndarray = field(repr=False)
    naive: np.ndarray = field(repr=False)  # f_hat ignoring the noise
    calibrated: np.ndarray = field(repr=False)  # f_hat with hidden test copies
    lo: np.ndarray = field(repr=False)
    hi: np.ndarray = field(repr=False)
    copies: np.ndarray = field(repr=False)  # data + test copies
    f: float = 0.0
    eps: float = 0.05

    @property
    def naive_error(self) -> np.ndarray:
        return np.abs(self.naive - self.f)

    @property
    def calibrated_error(self) -> np.ndarray:
        return np.abs(self.calibrated - self.f)

    @property
    def max_calibrated_error(self) -> float:
        return float(self.calibrated_error.max())

    @property
    def max_naive_error(self) -> float:
        return float(self.naive_error.max())

    def table(self) -> Table:
        """One row per noise level: naive and verified estimates, the interval, copies sent."""
        rows = zip(self.noises, self.naive, self.calibrated, self.lo, self.hi, self.copies)
        heads = ("noise", "naive f̂", "f̂ with test copies", "lo", "hi", "copies")
        return Table(heads, tuple(rows), (".1f", ".4f", ".4f", ".4f", ".4f", ",d"))


def noise_sweep(
    noises: Sequence[float] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5),
    *,
    log2_P: int = 12,
    alpha: float = 1.0,
    f: float = 0.2,
    eps: float = 0.05,
    seed: int = 0,
) -> NoiseSweep:
    """Per noise level: :func:`qring_edu.tieaudit.tieaudit` through ``Depolarizing(noise)`` and
    the naive estimate ``(1 - mean(Y)/alpha)/2`` of as many copies, read as if ``eta = 1``.

    Examples
    --------
    >>> sw = noise_sweep((0.0, 0.4), log2_P=8, f=0.2, eps=0.1)
    >>> [round(float(x), 3) for x in sw.naive], [round(float(x), 3) for x in sw.calibrated]
    ([0.222, 0.306], [0.189, 0.189])
    """
    log2_P = check_int(log2_P, "log2_P", 1, 22)
    seed = check_int(seed, "seed", 0)
    P = 2**log2_P
    m = random_matching(P, alpha, seed=seed)
    s = signs_with_disagreement(m, P, f, seed=seed + 1)
    a = 2 * len(m) / P
    rows = []  # per noise level: naive, calibrated, lo, hi, copies
    nz = np.asarray([check_float(x, "noises", 0.0, 1.0, hi_open=True) for x in noises])
    for i, noise in enumerate(nz):
        e = tieaudit(s, m, eps, channel=attack_channel("uniform", noise), seed=rng(seed, 2, i))
        probs, y = outcome_probabilities(s, m, Depolarizing(noise))
        law = [probs[y == 1].sum(), probs[y == -1].sum(), probs[y == 0].sum()]
        c = rng(seed, 3, i).multinomial(e.copies, np.array(law) / sum(law))
        naive = float(np.clip((1 - (c[0] - c[1]) / e.copies / a) / 2, 0, 1))
        rows.append((naive, e.value, e.lo, e.hi, e.copies))
    columns = zip(*rows) if rows else [()] * 5  # no noise level: empty columns
    return NoiseSweep(nz, *(np.array(x) for x in columns), _truth(s, m), float(eps))


@result
class AttackSweep(Tabular):
    """Result of :func:`tieaudit_attack_sweep`: ``estimates[c, i, r]``, ``lo``, ``hi`` and
    ``attenuation`` (the tests' ``eta_hat``) per case, noise level and seed;
    ``data_overlap = (sum_i s_i/P)^2``, the chance the public test state catches a data copy.

    Examples
    --------
    >>> s = tieaudit_attack_sweep((0.0, 0.5), log2_P=6, seeds=2)
    >>> s.cases, s.estimates.shape                                    # (cases, noises, seeds)
    (('uniform', 'data_only', 'knows_twirl'), (3, 2, 2))
    """

    P: int
    f: float
    eps: float
    noises: np.ndarray = field(repr=False)
    cases: tuple[str, ...] = field(repr=False)
    estimates: np.ndarray = field(repr=False)
    lo: np.ndarray = field(repr=False)
    hi: np.ndarray = field(repr=False)
    attenuation: np.ndarray = field(repr=False)
    data_overlap: float = 0.0

    def _case(self, case: str) -> int:
        return self.cases.index(check_choice(case, "case", self.cases))

    def mean(self, case: str) -> np.ndarray:
        """Mean ``f_hat`` over the seeds, per noise level."""
        return self.estimates[self._case(case)].mean(axis=1)

    def within(self, case: str) -> np.ndarray:
        """Fraction of seeds with ``|f_hat - f| <= eps``, per noise level."""
        err = np.abs(self.estimates[self._case(case)] - self.f)
        return (err <= self.eps + 1e-12).mean(axis=1)

    def covered(self, case: str) -> np.ndarray:
        """Fraction of seeds whose interval ``[lo, hi]`` holds ``f``, per noise level."""
        c = self._case(case)
        return ((self.lo[c] <= self.f) & (self.f <= self.hi[c])).mean(axis=1)

    def mean_attenuation(self, case: str) -> np.ndarray:
        return self.attenuation[self._case(case)].mean(axis=1)

    def table(self) -> Table:
        """Per noise level and case: mean estimate, fraction within ±ε, fraction of intervals
        holding ``f``, the tests' attenuation."""
        rows = [
            (float(noise), case, float(self.mean(case)[i]), float(self.within(case)[i]))
            + (float(self.covered(case)[i]), float(self.mean_attenuation(case)[i]))
            for i, noise in enumerate(self.noises)
            for case in self.cases
        ]
        heads = ("noise", "channel", "mean f̂", "within ±ε", "f in [lo, hi]", "η̂")
        return Table(heads, tuple(rows), (".1f", "", ".3f", ".0%", ".0%", ".3f"))


def tieaudit_attack_sweep(
    noises: Sequence[float] = (0.0, 0.2, 0.4, 0.6, 0.8),
    *,
    log2_P: int = 12,
    alpha: float = 1.0,
    f: float = 0.2,
    eps: float = 0.05,
    delta: float = 0.05,
    seeds: int = 10,
    seed: int = 0,
    cases: Sequence[str] = ATTACK_CASES,
) -> AttackSweep:
    """:func:`qring_edu.tieaudit.tieaudit` on one instance (coverage ``alpha``, ``round(f m)``
    disagreeing pairs) through :func:`attack_channel` of each case, noise level and seed
    ``rng(seed, i, r)``.

    Examples
    --------
    >>> s = tieaudit_attack_sweep((0.5,), log2_P=6, seeds=2)
    >>> s.mean_attenuation("knows_twirl").tolist()      # the tests see no noise at all
    [1.0]
    """
    log2_P = check_int(log2_P, "log2_P", 1, 20)
    seeds = check_int(seeds, "seeds", 1, 10_000)
    seed = check_int(seed, "seed", 0)
    cs = tuple(check_choice(c, "cases", ATTACK_CASES) for c in cases)
    nz = np.asarray([check_float(x, "noises", 0.0, 1.0, hi_open=True) for x in noises])
    P = 2**log2_P
    m = random_matching(P, alpha, seed=seed)
    s = signs_with_disagreement(m, P, f, seed=seed + 1)
    out = np.zeros((4, len(cs), nz.size, seeds))
    for c, case in enumerate(cs):
        for i, noise in enumerate(nz):
            for r in range(seeds):
                channel = attack_channel(case, float(noise))
                e = tieaudit(s, m, eps, delta=delta, channel=channel, seed=rng(seed, i, r))
                out[:, c, i, r] = e.value, e.lo, e.hi, e.attenuation
    overlap = float((s.astype(float).sum() / P) ** 2)
    return AttackSweep(P, _truth(s, m), float(eps), nz, cs, *out, overlap)


@result(show=("largest_bias",))
class DephasingSweep(Tabular):
    """Result of :func:`dephasing_sweep`: ``bias`` (:func:`ratio_bias`) and the mean ``f_hat``
    over ``seeds`` runs without the twirl (``plain``) and with it (``twirled``).

    Examples
    --------
    >>> s = dephasing_sweep((0.0, 0.1), log2_P=6, min_distance=4, seeds=1)
    >>> round(s.f, 4), s.bias.round(4).tolist()
    (0.4062, [0.0, -0.1214])
    """

    P: int
    f: float
    eps: float
    min_distance: int
    noises: np.ndarray = field(repr=False)
    bias: np.ndarray = field(repr=False)
    plain: np.ndarray = field(repr=False)
    twirled: np.ndarray = field(repr=False)
    seeds: int = 1

    @property
    def largest_bias(self) -> float:
        return float(np.abs(self.bias).max())

    def table(self) -> Table:
        rows = zip(self.noises, self.bias, self.plain, self.twirled)
        heads = ("dephasing p", "ratio bias", "mean f̂ (no twirl)", "mean f̂ (Clifford twirl)")
        return Table(heads, tuple(rows), (".3f", "+.4f", ".4f", ".4f"))


def dephasing_sweep(
    noises: Sequence[float] = (0.0, 0.02, 0.04, 0.06, 0.08, 0.1),
    *,
    log2_P: int = 10,
    min_distance: int = 6,
    eps: float = 0.05,
    delta: float = 0.05,
    seeds: int = 4,
    seed: int = 0,
) -> DephasingSweep:
    """A perfect random matching on ``P = 2^log2_P`` coordinates whose pairs disagree exactly
    when ``|i XOR j| >= min_distance``, run through ``Dephasing(p)`` for each ``p`` with the
    twirl and without it (the untwirled law of :func:`qring_edu.tieaudit.outcome_probabilities`).

    Examples
    --------
    >>> s = dephasing_sweep((0.0, 0.1), log2_P=6, min_distance=4, seeds=1)
    >>> [round(float(x), 3) for x in s.plain], [round(float(x), 3) for x in s.twirled]
    ([0.393, 0.296], [0.431, 0.405])
    """
    log2_P = check_int(log2_P, "log2_P", 2, 16)
    min_distance = check_int(min_distance, "min_distance", 1, log2_P)
    seeds = check_int(seeds, "seeds", 1, 10_000)
    seed = check_int(seed, "seed", 0)
    nz = np.asarray([check_float(x, "noises", 0.0, 0.5, hi_open=True) for x in noises])
    P = 2**log2_P
    m = random_matching(P, 1.0, seed=seed)
    s = np.random.default_rng(seed + 1).choice(np.array([-1, 1], dtype=np.int8), size=P)
    far = np.bitwise_count(m[:, 0] ^ m[:, 1]) >= min_distance
    s[m[:, 1]] = np.where(far, -s[m[:, 0]], s[m[:, 0]])
    ones = np.ones(P, dtype=np.int8)
    bias, plain, twirled = [], [], []
    for i, p in enumerate(nz):
        dephasing = Dephasing(float(p))
        channel = dephasing if p > 0 else None
        bias.append(ratio_bias(s, m, dephasing))
        gens = (rng(seed, i, r) for r in range(seeds))
        est = [tieaudit(s, m, eps, delta=delta, channel=channel, seed=g).value for g in gens]
        twirled.append(np.mean(est))
        # Without the twirl: the same copies and hidden tests, each with its own pair weights.
        N = tieaudit_copies(1.0, eps, delta, eta=dephasing.eta(P), bound="freedman")
        laws = [outcome_probabilities(x, m, dephasing) for x in (s, ones)]  # data, tests
        est = []
        for r in range(seeds):
            gen = rng(seed, i, r, 1)
            test = int(gen.binomial(N, TEST_FRACTION))
            sums = []
            for (probs, y), k in zip(laws, (N - test, test)):
                c = gen.multinomial(k, probs)
                sums.append(int(c[y == 1].sum() - c[y == -1].sum()))
            est.append(tieaudit_interval(sums[0], N - test, sums[1], test, 1.0, delta)[0])
        plain.append(float(np.mean(est)))
    arrays = np.array(bias), np.array(plain), np.array(twirled, float)
    return DephasingSweep(P, float(far.mean()), float(eps), min_distance, nz, *arrays, seeds)


@result
class ConstantSource:
    """Attenuation ``eta`` on every copy (the independent-copies model).

    Examples
    --------
    >>> ConstantSource(0.5)({"plus": np.zeros(2)}).tolist()
    [0.5, 0.5]
    """

    eta: float = 1.0

    def __call__(self, past) -> np.ndarray:
        return np.full(past["plus"].shape, float(self.eta))


@result
class OutcomeWalk:
    """Attenuation ``high`` on the next copy while the ``+1`` outcomes so far are at least the
    ``-1`` outcomes, ``low`` otherwise (sees outcomes, never a label).

    Examples
    --------
    >>> OutcomeWalk()({"plus": np.array([2, 0]), "minus": np.array([0, 1])}).tolist()
    [1.0, 0.0]
    """

    high: float = 1.0
    low: float = 0.0

    def __call__(self, past) -> np.ndarray:
        return np.where(past["plus"] >= past["minus"], float(self.high), float(self.low))


@result
class LabelWalk:
    """Attenuation ``high`` on the next copy while past copies held at most as many tests as
    data, ``low`` otherwise (past labels leak, the next one's stays secret).

    Examples
    --------
    >>> LabelWalk()({"tests": np.array([1, 2]), "data": np.array([2, 1])}).tolist()
    [1.0, 0.0]
    """

    high: float = 1.0
    low: float = 0.0

    def __call__(self, past) -> np.ndarray:
        return np.where(past["tests"] <= past["data"], float(self.high), float(self.low))


@result
class PoolTracking:
    """Against ``fixed_tests=True`` of :func:`adaptive_coverage`: attenuation ``high`` while the
    tests still to come are at least the data still to come, ``low`` otherwise.

    Examples
    --------
    >>> PoolTracking()({"tests_left": np.array([5, 3]), "data_left": np.array([4, 4])}).tolist()
    [1.0, 0.0]
    """

    high: float = 1.0
    low: float = 0.0

    def __call__(self, past) -> np.ndarray:
        return np.where(past["tests_left"] >= past["data_left"], float(self.high), float(self.low))


_SOURCES = (ConstantSource, OutcomeWalk, LabelWalk, PoolTracking)


def wald_ratio_interval(
    data_sum, data_landed, data_copies, test_sum, test_landed, test_copies, delta: float = 0.05
):
    """Independent-copies (delta method) interval of the ratio estimator, arrays allowed:
    ``f_hat = (1 - r)/2``, ``r = mean(Y_data)/mean(Y_test)``, ``f_hat ± z se/2``, ``se^2 =
    (s_D^2/N_D + r^2 s_T^2/N_T)/mean(Y_test)^2`` (``z``: two-sided normal quantile at
    ``delta``). Returns ``(value, lo, hi)``; ``(1/2, 0, 1)`` where ``mean(Y_test) <= 0``.

    Examples
    --------
    >>> [round(float(x), 3) for x in wald_ratio_interval(60, 100, 100, 100, 100, 100)]
    [0.2, 0.121, 0.279]
    """
    from scipy.stats import norm

    A, KA, ND, B, KB, NT = (
        np.asarray(x, dtype=float)
        for x in (data_sum, data_landed, data_copies, test_sum, test_landed, test_copies)
    )
    z = norm.isf(check_delta(delta) / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        md, mt = A / ND, B / NT
        vd = (KA / ND - md**2) * ND / np.maximum(ND - 1, 1)
        vt = (KB / NT - mt**2) * NT / np.maximum(NT - 1, 1)
        r = md / mt
        se = np.sqrt(vd / ND + r**2 * vt / NT) / np.abs(mt)
        ok = (mt > 0) & (ND > 1) & (NT > 1)
        value = np.where(ok, np.clip((1 - r) / 2, 0, 1), 0.5)
        half = np.where(ok, z * se / 2, 1.0)
    return value, np.clip(value - half, 0, 1), np.clip(value + half, 0, 1)


@result(show=("freedman", "wald_ratio"))
class AdaptiveCoverage:
    """Result of :func:`adaptive_coverage` (per-trial sums); :attr:`freedman` and
    :attr:`wald_ratio`: fractions of trials whose interval holds ``f``.

    Examples
    --------
    >>> c = adaptive_coverage(OutcomeWalk(), copies=100, trials=50, seed=0)
    >>> c.trials, 0.0 <= c.freedman <= 1.0
    (50, True)
    """

    source: object
    copies: int
    alpha: float
    f: float
    delta: float
    trials: int
    data_sum: np.ndarray = field(repr=False)
    test_sum: np.ndarray = field(repr=False)
    data_landed: np.ndarray = field(repr=False)
    test_landed: np.ndarray = field(repr=False)
    test_copies: np.ndarray = field(repr=False)

    def intervals(self, which: str = "freedman") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(value, lo, hi)`` per trial of :func:`qring_edu.tieaudit.tieaudit_interval`
        (``"freedman"``) or :func:`wald_ratio_interval` (``"wald_ratio"``)."""
        check_choice(which, "which", ("freedman", "wald_ratio"))
        if which == "wald_ratio":
            nd, nt = self.copies - self.test_copies, self.test_copies
            a, ka, b, kb = self.data_sum, self.data_landed, self.test_sum, self.test_landed
            return wald_ratio_interval(a, ka, nd, b, kb, nt, self.delta)
        a, d, N = self.alpha, self.delta, self.copies
        rows = zip(*(map(int, c) for c in (self.data_sum, self.test_sum, self.test_copies)))
        out = [tieaudit_interval(x, N - n, y, n, a, d) for x, y, n in rows]
        return tuple(np.array(x) for x in zip(*out))

    def coverage(self, which: str = "freedman") -> float:
        _, lo, hi = self.intervals(which)
        return float(np.mean((lo <= self.f) & (self.f <= hi)))

    @property
    def freedman(self) -> float:
        return self.coverage("freedman")

    @property
    def wald_ratio(self) -> float:
        return self.coverage("wald_ratio")


def adaptive_coverage(
    source,
    *,
    copies: int = 270,
    alpha: float = 1.0,
    f: float = 0.9,
    delta: float = 0.05,
    trials: int = 2000,
    seed: int = 0,
    fixed_tests: bool = False,
) -> AdaptiveCoverage:
    """Run the verified protocol ``trials`` times (vectorised) against a ``source``
    (:class:`ConstantSource`, :class:`OutcomeWalk`, :class:`LabelWalk`, :class:`PoolTracking`).

    Per copy ``t``: a secret label, ``Y != 0`` with probability ``alpha``, ``P(Y = +1) = (1 +
    eta_t h)/2`` (``h = 1 - 2f`` for data, 1 for tests), ``eta_t = source(past)`` from the
    counts ``plus``, ``minus``, ``tests``, ``data``, ``tests_left``, ``data_left`` before ``t``
    (exact in distribution for twirled copies). Tests with probability 1/2 each, or with
    ``fixed_tests`` exactly ``copies // 2`` at secret random positions.

    Examples
    --------
    >>> c = adaptive_coverage(ConstantSource(0.5), copies=200, trials=100, f=0.3, seed=1)
    >>> c.freedman >= 0.95
    True
    """
    if not isinstance(source, _SOURCES):
        names = ", ".join(s.__name__ for s in _SOURCES)
        raise TypeError(f"source must be one of {names}, got {source!r}")
    copies = check_int(copies, "copies", 2, 100_000)
    trials = check_int(trials, "trials", 1, 100_000)
    alpha, delta = _check_alpha(alpha), check_delta(delta)
    f = check_float(f, "f", 0.0, 1.0)
    check_seed(seed)
    if not isinstance(fixed_tests, (bool, np.bool_)):
        raise TypeError(f"fixed_tests must be True or False, got {fixed_tests!r}")
    gen = np.random.default_rng(seed)
    if fixed_tests:  # exactly copies // 2 tests, at positions uniformly at random
        labels = np.argsort(gen.random((trials, copies)), axis=1) < copies // 2
    zero = np.zeros(trials, dtype=np.int64)
    past = {k: zero.copy() for k in ("plus", "minus", "tests", "data")}
    sums = {k: zero.copy() for k in ("A", "B", "KA", "KB")}
    for t in range(copies):
        left = copies - t
        if fixed_tests:
            past["tests_left"] = copies // 2 - past["tests"]
            past["data_left"] = left - past["tests_left"]
            is_test = labels[:, t]
        else:
            past["tests_left"] = past["data_left"] = np.full(trials, left * TEST_FRACTION)
            is_test = gen.random(trials) < TEST_FRACTION
        eta = np.clip(source(past), -1.0, 1.0)
        landed = gen.random(trials) < alpha
        h = np.where(is_test, 1.0, 1.0 - 2.0 * f)
        y = np.where(landed, np.where(gen.random(trials) < (1.0 + eta * h) / 2.0, 1, -1), 0)
        past["plus"] += y == 1
        past["minus"] += y == -1
        past["tests"] += is_test
        past["data"] += ~is_test
        sums["A"] += np.where(is_test, 0, y)
        sums["B"] += np.where(is_test, y, 0)
        sums["KA"] += landed & ~is_test
        sums["KB"] += landed & is_test
    counts = (sums[k] for k in ("A", "B", "KA", "KB"))
    return AdaptiveCoverage(source, copies, alpha, f, delta, trials, *counts, past["tests"])
