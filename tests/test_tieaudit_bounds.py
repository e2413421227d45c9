"""TieAudit_ε planning: Bernstein instead of Hoeffding, and the exact
worst-case failure probability of the estimators that the planned copies must meet."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest
from scipy.stats import multinomial

from qring_edu.experiments.tieaudit import random_matching, signs_with_disagreement
from qring_edu.experiments.tieaudit_plans import (
    classical_worst_failure,
    exact_copies,
    exact_subset_size,
    tieaudit_failure_probability,
    tieaudit_worst_failure,
)
from qring_edu.tieaudit import (
    classical_subset_size,
    tieaudit,
    tieaudit_copies,
    tieaudit_cost,
)


def test_hoeffding_and_bernstein_numbers():
    # alpha = 0.1, eps = delta = 0.05: the 73,778 and the Bernstein 7,649.
    assert tieaudit_copies(0.1, 0.05, 0.05, bound="hoeffding") == 73778
    t = 2 * 0.1 * 0.05
    bern = math.ceil(math.log(40) * (2 * 0.1 + 2 * 1.1 * t / 3) / t**2)
    assert bern == 7649 and tieaudit_copies(0.1, 0.05, 0.05) == bern
    # The default grows like 1/alpha, not 1/alpha^2 ...
    r = tieaudit_copies(0.01, 0.05, 0.05) / tieaudit_copies(0.1, 0.05, 0.05)
    assert 9.0 < r < 10.5
    # ... and never exceeds Hoeffding's (at alpha = 1 it is Hoeffding's).
    assert tieaudit_copies(1.0, 0.05, 0.05) == tieaudit_copies(1.0, 0.05, 0.05, bound="hoeffding")
    assert tieaudit_cost(2**16, 0.05, alpha=0.1) == 7649 * 16
    # A known attenuation eta costs 1/eta^2 (t = 2 alpha eta eps).
    assert tieaudit_copies(1.0, 0.05, eta=0.5, bound="hoeffding") == math.ceil(
        math.log(40) / (2 * 0.25 * 0.05**2)
    )


def _brute_force_noiseless(N, alpha, eps, f):
    """Enumerate every (N_+, N_-) of the trinomial."""
    law = multinomial(N, [alpha * (1 - f), alpha * f, 1 - alpha])
    fail = 0.0
    for a, b in product(range(N + 1), repeat=2):
        if a + b <= N:
            est = min(1.0, max(0.0, (1 - (a - b) / N / alpha) / 2))
            if abs(est - f) > eps + 1e-12:
                fail += law.pmf([a, b, N - a - b])
    return fail


@pytest.mark.parametrize(
    "N,alpha,eps,f", [(25, 0.5, 0.1, 0.3), (30, 1.0, 0.15, 0.5), (18, 0.25, 0.2, 0.05)]
)
def test_exact_failure_equals_brute_force(N, alpha, eps, f):
    assert math.isclose(
        tieaudit_failure_probability(N, alpha, eps, f),
        _brute_force_noiseless(N, alpha, eps, f),
        rel_tol=1e-9,
        abs_tol=1e-13,
    )


def test_planned_copies_meet_delta_exactly():
    alpha, eps, delta = 0.1, 0.05, 0.05
    n_exact = exact_copies(alpha, eps, delta)
    n_bern = tieaudit_copies(alpha, eps, delta)
    # The "about 4,000 suffice": the exact requirement is just under 4,000.
    assert 3800 < n_exact < 4000
    assert tieaudit_worst_failure(n_exact, alpha, eps)[0] <= delta
    assert tieaudit_worst_failure(int(0.9 * n_exact), alpha, eps)[0] > delta
    # Bernstein is valid (and about twice the exact need); Hoeffding is ~19 times it.
    p_bern, _ = tieaudit_worst_failure(n_bern, alpha, eps)
    assert p_bern <= delta / 5
    assert 1.8 < n_bern / n_exact < 2.1


def test_small_alpha_estimates_within_eps_with_bernstein_copies():
    # At the worst f (1/2) and alpha = 0.1 the Bernstein copies keep the error rate below delta.
    eps, bad = 0.05, 0
    for t in range(30):
        m = random_matching(4096, 0.1, seed=t)
        s = signs_with_disagreement(m, 4096, 0.5, seed=100 + t)
        e = tieaudit(s, m, eps, seed=t)
        assert e.copies == tieaudit_copies(e.alpha, eps) < 7700
        bad += abs(e.value - 0.5) > eps
    assert bad <= 4


def test_bad_bound():
    with pytest.raises(ValueError, match="bound"):
        tieaudit_copies(0.5, 0.1, bound="chebyshev")
    with pytest.raises(TypeError, match="bound"):
        tieaudit(np.ones(8), [[0, 1]], 0.1, bound="hoeffding")  # tieaudit plans its own copies
    with pytest.raises(ValueError, match="copies"):
        tieaudit_failure_probability(0, 0.5, 0.1, 0.2)
    with pytest.raises(ValueError, match="f must be"):
        tieaudit_failure_probability(10, 0.5, 0.1, 1.5)
    with pytest.raises(ValueError, match="copies \\* alpha"):
        tieaudit_worst_failure(10**7, 1.0, 0.1)
    with pytest.raises(ValueError, match="eps"):
        exact_copies(1.0, 0.001)


def test_classical_exact_failure_against_monte_carlo():
    """The exact worst case, at its maximiser f, against the protocol run many times."""
    P, alpha, eps = 128, 0.5, 0.1
    k = 60
    p, f_star = classical_worst_failure(P, alpha, k, eps)
    m = random_matching(P, alpha, seed=0)
    s = signs_with_disagreement(m, P, f_star, seed=1)
    f = float(np.mean(s[m[:, 0]] != s[m[:, 1]]))
    trials, fails = 20000, 0
    rng = np.random.default_rng(0)
    inside = np.zeros((trials, P), bool)
    order = np.argsort(rng.random((trials, P)), axis=1)[:, :k]
    np.put_along_axis(inside, order, True, axis=1)
    both = inside[:, m[:, 0]] & inside[:, m[:, 1]]
    seen = both.sum(axis=1)
    dis = (both & (s[m[:, 0]] != s[m[:, 1]])).sum(axis=1)
    est = np.where(seen > 0, dis / np.maximum(seen, 1), 0.5)
    fails = np.sum(np.abs(est - f) > eps + 1e-12)
    assert abs(fails / trials - p) < 4 * math.sqrt(p * (1 - p) / trials) + 1e-3


def test_classical_exact_subset_size():
    P, alpha, eps, delta = 2**12, 0.5, 0.05, 0.05
    k = exact_subset_size(P, alpha, eps, delta)
    assert classical_subset_size(P, alpha, eps, delta) == P  # Hoeffding: send every sign
    assert k < P and classical_worst_failure(P, alpha, k, eps)[0] <= delta
    assert classical_worst_failure(P, alpha, int(0.9 * k), eps)[0] > delta
    # The Hoeffding plan is valid, with a lot of room.
    k_h = classical_subset_size(2**16, 1.0, eps, delta)
    assert classical_worst_failure(2**16, 1.0, k_h, eps)[0] < 1e-3
