"""TieAudit_ε's Freedman interval (qring_edu.tieaudit.tieaudit_interval): coverage against
adaptive and independent sources, exact endpoints, the plan, the noise threshold.

Coverage tests are statistical: ``trials`` seeded runs, asserted against ``1 - delta`` minus
three binomial standard deviations ``sqrt(delta (1 - delta)/trials)`` (the runs are seeded, so
each assertion is deterministic; the tolerance says how far chance alone could move it)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qring_edu.experiments.tieaudit import (
    disagreement_fraction,
    noise_threshold_curves,
    random_matching,
    signs_with_disagreement,
    tieaudit_noise_crossover,
    tieaudit_noise_threshold,
)
from qring_edu.experiments.tieaudit_noise import (
    ConstantSource,
    LabelWalk,
    OutcomeWalk,
    PoolTracking,
    adaptive_coverage,
    wald_ratio_interval,
)
from qring_edu.tieaudit import (
    Depolarizing,
    LocalDepolarizing,
    tieaudit,
    tieaudit_copies,
    tieaudit_interval,
)

DELTA, TRIALS = 0.05, 4000
FLOOR = 1 - DELTA - 3 * math.sqrt(DELTA * (1 - DELTA) / TRIALS)  # 0.9397


def test_freedman_covers_against_adaptive_sources_and_the_independent_interval_does_not():
    """(a) Sources that pick each copy's noise from the past. PoolTracking (the notes' S2)
    sees the past labels of a design with a fixed number of tests and starves the signal
    whenever the next copy is more likely data: the independent-copies interval (Wald, the
    ratio of realised group means, delta method) covers only about 0.89 of the time, while
    Freedman still covers on the same transcripts. With the protocol's fresh Bernoulli labels
    the independent-copies interval loses much less: against a source that sees only outcomes
    (OutcomeWalk, the notes' S4) it holds here (0.97, counting runs without test signal as
    vacuous intervals), and against leaked past labels (LabelWalk) it under-covers mildly
    (0.936). Freedman covers in every case, with no independence assumption."""
    pool = adaptive_coverage(
        PoolTracking(), copies=270, f=0.1, trials=TRIALS, seed=1, fixed_tests=True
    )
    assert pool.freedman >= FLOOR
    assert pool.wald_ratio < 0.92  # 0.8875: more than 18 standard deviations below 0.95
    outcome = adaptive_coverage(OutcomeWalk(), copies=270, f=0.9, trials=TRIALS, seed=1)
    labels = adaptive_coverage(LabelWalk(), copies=270, f=0.9, trials=TRIALS, seed=1)
    assert outcome.freedman >= FLOOR and labels.freedman >= FLOOR
    assert outcome.wald_ratio >= FLOOR  # it holds against outcomes only
    assert 0.92 < labels.wald_ratio < 0.945  # 0.936: a mild under-coverage
    # The adaptive sources really starve the signal: the tests' mean attenuation varies wildly.
    eta_hat = pool.test_sum / np.maximum(pool.test_copies, 1)
    assert np.std(eta_hat) > 0.2


def test_control_constant_source():
    """Without adaptivity both intervals cover (the failure above is adaptivity's)."""
    c = adaptive_coverage(
        ConstantSource(0.5), copies=1070, f=0.1, trials=TRIALS, seed=2, fixed_tests=True
    )
    assert c.freedman >= FLOOR and c.wald_ratio >= FLOOR


def test_freedman_covers_iid_depolarising_noise():
    """(b) The protocol end to end: i.i.d. depolarising noise, hidden tests, the interval."""
    trials, covered, widths = 400, 0, []
    floor = 1 - DELTA - 3 * math.sqrt(DELTA * (1 - DELTA) / trials)
    for t in range(trials):
        m = random_matching(256, 0.75, seed=t)
        s = signs_with_disagreement(m, 256, (t % 11) / 10, seed=10_000 + t)
        e = tieaudit(s, m, 0.1, channel=Depolarizing(0.3), seed=t)
        covered += e.lo <= disagreement_fraction(s, m) <= e.hi
        widths.append(e.hi - e.lo)
    assert covered / trials >= floor
    # The plan: half-width about eps at the budgeted attenuation.
    assert 0.12 < np.median(widths) < 0.2


@pytest.mark.parametrize("channel", [None, Depolarizing(0.0)])
def test_endpoints_contain_f_for_the_noiseless_channel(channel):
    """(c) Trusted (None: planned f_hat ± eps) and untrusted but noiseless (Freedman)."""
    trials, covered = 400, 0
    floor = 1 - DELTA - 3 * math.sqrt(DELTA * (1 - DELTA) / trials)
    for t in range(trials):
        m = random_matching(64, 1.0, seed=t)
        s = signs_with_disagreement(m, 64, (t % 33) / 32, seed=7 + t)
        e = tieaudit(s, m, 0.1, channel=channel, seed=t)
        covered += e.lo <= disagreement_fraction(s, m) <= e.hi
    assert covered / trials >= floor
    # All pairs agree and nothing is lost: every copy says so, and f = 0 is inside.
    e = tieaudit(np.ones(64), random_matching(64, 1.0, seed=0), 0.1, channel=channel, seed=0)
    assert e.lo == 0.0 <= e.hi < 0.2 and e.value == 0.0


def _grid_interval(A, B, N, alpha, delta, q):
    f = np.linspace(0.0, 1.0, 400_001)
    g = 1 - 2 * f
    L = math.log(2 / delta)
    D = q * A - (1 - q) * g * B
    R = np.maximum(q, (1 - q) * np.abs(g))
    V = N * q * (1 - q) * alpha * (q + (1 - q) * g * g)
    inside = np.abs(D) <= R * L / 3 + np.sqrt((R * L / 3) ** 2 + 2 * V * L)
    return (f[inside].min(), f[inside].max()) if inside.any() else None


def test_endpoints_are_exact():
    rng = np.random.default_rng(0)
    for _ in range(300):
        N = int(rng.integers(1, 3000))
        q = float(rng.choice([0.5, 0.2, 0.8, 0.05]))
        alpha = float(rng.uniform(0.01, 1.0))
        NT = int(rng.integers(0, N + 1))
        A = int(rng.integers(-(N - NT), N - NT + 1))
        B = int(rng.integers(-NT, NT + 1))
        value, lo, hi = tieaudit_interval(A, N - NT, B, NT, alpha, DELTA, test_fraction=q)
        grid = _grid_interval(A, B, N, alpha, DELTA, q)
        if grid is None:  # empty set: the vacuous interval
            assert (lo, hi) == (0.0, 1.0)
        else:
            assert abs(lo - grid[0]) <= 3e-6 and abs(hi - grid[1]) <= 3e-6
        assert 0.0 <= lo <= value <= hi <= 1.0


def test_freedman_plan():
    """N = ceil(2L/(alpha eta^2 eps^2) + 2L/(3 alpha eta eps)), L = ln(2/delta)."""
    L = math.log(40)
    for alpha, eta, eps in [(1.0, 0.5, 0.1), (0.25, 0.9, 0.05), (0.1, 1.0, 0.2)]:
        want = math.ceil(2 * L / (alpha * eta**2 * eps**2) + 2 * L / (3 * alpha * eta * eps))
        assert tieaudit_copies(alpha, eps, eta=eta, bound="freedman") == want
    assert tieaudit_copies(1.0, 0.1, eta=0.5, bound="freedman") == 3001


def test_wald_ratio_interval_formula():
    # mean(Y_D) = 0.6, mean(Y_T) = 1 (every test +1: no variance): se^2 = 0.64 (100/99)/100.
    value, lo, hi = wald_ratio_interval(60, 100, 100, 100, 100, 100)
    se = math.sqrt(0.64 * 100 / 99 / 100)
    assert math.isclose(value, 0.2) and math.isclose(hi - value, 1.959963984540054 * se / 2)
    assert wald_ratio_interval(5, 10, 10, -2, 4, 10) == (0.5, 0.0, 1.0)  # no test signal


def test_noise_threshold_and_crossover():
    """F > 2^(-1/4): the quantum cost n N ∝ log2(P) P^(-2 log2 F) grows slower than sqrt(P)."""
    F = tieaudit_noise_threshold()
    assert math.isclose(F, 2**-0.25) and math.isclose(-2 * math.log2(F), 0.5)
    # Werner pairs: eta = ((4F)^n - 1)/(4^n - 1) ≈ F^n
    assert math.isclose(LocalDepolarizing(0.9).eta(2**20), ((3.6**20) - 1) / (4**20 - 1))
    got = [tieaudit_noise_crossover(f) for f in (1.0, 0.95, 0.9, 0.86, 0.85, 0.84)]
    assert got == [18, 27, 53, 189, 0, 0]  # log2 P; 0: none below 2^400
    # A smaller eps pushes every crossover out (quantum ∝ 1/eps^2, classical ∝ 1/eps).
    assert tieaudit_noise_crossover(0.9, eps=0.05) > 53


def test_threshold_curves_grow_like_the_derivation_says():
    """The costs behind the chapter's figure: above F* the quantum curve's slope in log2(cost)
    per doubling of P tends to -2 log2 F < 1/2 (the classical slope), so it crosses; at F* the
    two slopes agree and quantum stays above by its log P factor; below F* it is steeper."""
    r = noise_threshold_curves(0.9, max_log2_P=400)
    n = r.log2_P
    assert r.crossover_log2_P == tieaudit_noise_crossover(0.9) == 53
    assert np.all(r.quantum[n >= 53] < r.classical[n >= 53])
    assert np.all(r.quantum[n < 53] >= r.classical[n < 53])

    def slope(cost):  # log2(cost) per unit of n, over n = 300 ... 400
        return (math.log2(cost[399]) - math.log2(cost[299])) / 100

    assert abs(slope(r.classical) - 0.5) < 0.01
    assert abs(slope(r.quantum) + 2 * math.log2(0.9)) < 0.01  # 0.304
    assert abs(slope(r.at_threshold) - 0.5) < 0.01 and np.all(r.at_threshold > r.classical)
    assert slope(r.noiseless) < 0.01  # log2 P only
    assert slope(noise_threshold_curves(0.8, max_log2_P=400).quantum) > 0.6  # -2 log2 0.8 = 0.64
    # The crossover runs off as F falls to F*: none at 0.845 up to 2^500.
    assert list(r.crossovers) == sorted(r.crossovers, reverse=True)
    assert dict(zip(r.fidelities, r.crossovers))[0.85] == 431
    assert tieaudit_noise_crossover(0.845, max_log2_P=500) == 0
    with pytest.raises(ValueError, match="fidelity"):
        noise_threshold_curves(0.2)


def test_bad_interval_input():
    with pytest.raises(ValueError, match="data_sum"):
        tieaudit_interval(11, 10, 0, 10, 1.0)
    with pytest.raises(ValueError, match="test_sum"):
        tieaudit_interval(5, 10, -11, 10, 1.0)
    with pytest.raises(ValueError, match="copies"):
        tieaudit_interval(0, 0, 0, 0, 1.0)
    with pytest.raises(ValueError, match="test_copies"):
        tieaudit_interval(0, 5, 0, -1, 1.0)
    with pytest.raises(TypeError, match="test_sum"):
        tieaudit_interval(1, 5, 2.5, 5, 1.0)
    with pytest.raises(ValueError, match="test_fraction"):
        tieaudit_interval(1, 5, 2, 5, 1.0, test_fraction=1.0)
    with pytest.raises(ValueError, match="alpha"):
        tieaudit_interval(1, 5, 2, 5, 0.0)
    with pytest.raises(ValueError, match="delta"):
        tieaudit_interval(1, 5, 2, 5, 1.0, 0.5)
    with pytest.raises(TypeError, match="source"):
        adaptive_coverage(lambda past: 1.0)
    with pytest.raises(TypeError, match="fixed_tests"):
        adaptive_coverage(OutcomeWalk(), fixed_tests="yes")
