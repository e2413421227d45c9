"""TieAudit_ε planning (issue 13, item 7): Bernstein instead of Hoeffding, and the exact
worst-case failure probability of the estimators that the planned copies must meet."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest
from scipy.stats import multinomial

from qring_edu.sign_audit import (
    random_matching,
    signs_with_disagreement,
    tieaudit,
    tieaudit_copies,
    tieaudit_cost,
    tieaudit_failure_probability,
    tieaudit_worst_failure,
)


def test_hoeffding_and_bernstein_numbers():
    # alpha = 0.1, eps = delta = 0.05: the 73,778 and the Bernstein 7,649.
    assert tieaudit_copies(0.1, 0.05, 0.05, bound="hoeffding") == (73778, 0)
    t = 2 * 0.1 * 0.05
    bern = math.ceil(math.log(40) * (2 * 0.1 + 2 * 1.1 * t / 3) / t**2)
    assert bern == 7649 and tieaudit_copies(0.1, 0.05, 0.05) == (bern, 0)
    # The default grows like 1/alpha, not 1/alpha^2 ...
    r = tieaudit_copies(0.01, 0.05, 0.05)[0] / tieaudit_copies(0.1, 0.05, 0.05)[0]
    assert 9.0 < r < 10.5
    # ... and never exceeds Hoeffding's (at alpha = 1 it is Hoeffding's).
    assert tieaudit_copies(1.0, 0.05, 0.05) == tieaudit_copies(1.0, 0.05, 0.05, bound="hoeffding")
    assert tieaudit_cost(2**16, 0.05, alpha=0.1) == 7649 * 16
    assert tieaudit_cost(2**16, 0.05, alpha=0.1, bound="hoeffding") == 73778 * 16


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


def _brute_force_ratio(N, alpha, eta, eps, f):
    h = (1 - eta) * alpha / 2
    d_law = multinomial(N, [eta * alpha * (1 - f) + h, eta * alpha * f + h, 1 - alpha])
    t_law = multinomial(N, [eta * alpha + h, h, 1 - alpha])
    pd, pt = {}, {}
    for a, b in product(range(N + 1), repeat=2):
        if a + b <= N:
            pd[a - b] = pd.get(a - b, 0.0) + d_law.pmf([a, b, N - a - b])
            pt[a - b] = pt.get(a - b, 0.0) + t_law.pmf([a, b, N - a - b])
    fail = 0.0
    for dt, qt in pt.items():
        for dd, qd in pd.items():
            est = 0.5 if dt <= 0 else min(1.0, max(0.0, (1 - dd / dt) / 2))
            if abs(est - f) > eps + 1e-12:
                fail += qt * qd
    return fail


@pytest.mark.parametrize("N,alpha,eps,f", [(25, 0.5, 0.1, 0.3), (30, 1.0, 0.15, 0.5),
                                           (18, 0.25, 0.2, 0.05)])
def test_exact_failure_equals_brute_force(N, alpha, eps, f):
    assert math.isclose(tieaudit_failure_probability(N, alpha, eps, f),
                        _brute_force_noiseless(N, alpha, eps, f), rel_tol=1e-9, abs_tol=1e-13)


@pytest.mark.parametrize("N,alpha,noise,eps,f", [(12, 0.5, 0.3, 0.15, 0.2),
                                                 (10, 1.0, 0.5, 0.2, 0.5)])
def test_exact_ratio_failure_equals_brute_force(N, alpha, noise, eps, f):
    got = tieaudit_failure_probability(N, alpha, eps, f, noise=noise)
    assert math.isclose(got, _brute_force_ratio(N, alpha, 1 - noise, eps, f), rel_tol=1e-9,
                        abs_tol=1e-13)


def test_planned_copies_meet_delta_exactly():
    alpha, eps, delta = 0.1, 0.05, 0.05
    n_exact = tieaudit_copies(alpha, eps, delta, bound="exact")[0]
    n_bern = tieaudit_copies(alpha, eps, delta)[0]
    # The "about 4,000 suffice": the exact requirement is just under 4,000.
    assert 3800 < n_exact < 4000
    assert tieaudit_worst_failure(n_exact, alpha, eps)[0] <= delta
    assert tieaudit_worst_failure(int(0.9 * n_exact), alpha, eps)[0] > delta
    # Bernstein is valid (and about twice the exact need); Hoeffding is ~19 times it.
    p_bern, _ = tieaudit_worst_failure(n_bern, alpha, eps)
    assert p_bern <= delta / 5
    assert 1.8 < n_bern / n_exact < 2.1


@pytest.mark.parametrize("alpha,eps,noise", [(1.0, 0.1, 0.3), (0.5, 0.1, 0.2)])
def test_noisy_planners_meet_delta(alpha, eps, noise):
    delta = 0.05
    n_exact = tieaudit_copies(alpha, eps, delta, noise, bound="exact")
    assert n_exact[0] == n_exact[1]
    n = n_exact[0]
    assert tieaudit_worst_failure(n, alpha, eps, noise=noise)[0] <= delta
    assert tieaudit_worst_failure(int(0.85 * n), alpha, eps, noise=noise)[0] > delta
    for bound in ("bernstein", "hoeffding"):
        nb = tieaudit_copies(alpha, eps, delta, noise, bound=bound)[0]
        assert nb >= n and tieaudit_worst_failure(nb, alpha, eps, noise=noise)[0] <= delta


def test_small_alpha_estimates_within_eps_with_bernstein_copies():
    # At the worst f (1/2) and alpha = 0.1 the Bernstein copies keep the error rate below delta.
    eps, bad = 0.05, 0
    for t in range(30):
        m = random_matching(4096, 0.1, seed=t)
        s = signs_with_disagreement(m, 4096, 0.5, seed=100 + t)
        e = tieaudit(s, m, eps, seed=t)
        assert e.copies == tieaudit_copies(e.alpha, eps)[0] < 7700
        bad += abs(e.value - 0.5) > eps
    assert bad <= 4


def test_bad_bound():
    with pytest.raises(ValueError, match="bound"):
        tieaudit_copies(0.5, 0.1, bound="chebyshev")
    with pytest.raises(ValueError, match="bound"):
        tieaudit(np.ones(8), [[0, 1]], 0.1, bound="chebyshev")
    with pytest.raises(ValueError, match="copies"):
        tieaudit_failure_probability(0, 0.5, 0.1, 0.2)
    with pytest.raises(ValueError, match="f must be"):
        tieaudit_failure_probability(10, 0.5, 0.1, 1.5)
