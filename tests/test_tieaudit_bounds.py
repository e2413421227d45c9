"""TieAudit_ε planning: Bernstein instead of Hoeffding, and the exact
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


@pytest.mark.parametrize(
    "N,alpha,noise,eps,f", [(12, 0.5, 0.3, 0.15, 0.2), (10, 1.0, 0.5, 0.2, 0.5)]
)
def test_exact_ratio_failure_equals_brute_force(N, alpha, noise, eps, f):
    got = tieaudit_failure_probability(N, alpha, eps, f, noise=noise)
    assert math.isclose(
        got, _brute_force_ratio(N, alpha, 1 - noise, eps, f), rel_tol=1e-9, abs_tol=1e-13
    )


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


def test_pairs_inside_law_by_enumeration():
    from itertools import combinations

    from qring_edu.sign_audit import _pairs_inside_law

    P, pairs = 10, [(0, 1), (2, 3), (4, 5)]
    for k in (3, 5, 8):
        counts = np.zeros(4)
        subsets = list(combinations(range(P), k))
        for S in subsets:
            counts[sum(a in S and b in S for a, b in pairs)] += 1
        j, pj = _pairs_inside_law(P, len(pairs), k)
        got = np.zeros(4)
        got[j[j <= 3]] = pj[j <= 3]
        assert np.allclose(got, counts / len(subsets), atol=1e-12)


def test_classical_exact_failure_against_monte_carlo():
    from qring_edu.sign_audit import _classical_fail, _pairs_inside_law

    P, m, k, D, eps = 128, 32, 60, 13, 0.1
    j, pj = _pairs_inside_law(P, m, k)
    exact = _classical_fail(j, pj, m, D, eps)
    rng = np.random.default_rng(0)
    pairs = rng.permutation(P)[: 2 * m].reshape(m, 2)
    dis = np.zeros(m, bool)
    dis[:D] = True
    trials, fails = 20000, 0
    for _ in range(trials):
        inside = np.zeros(P, bool)
        inside[rng.permutation(P)[:k]] = True
        both = inside[pairs[:, 0]] & inside[pairs[:, 1]]
        est = dis[both].mean() if both.any() else 0.5
        fails += abs(est - D / m) > eps + 1e-12
    assert abs(fails / trials - exact) < 4 * math.sqrt(exact * (1 - exact) / trials)


def test_classical_exact_subset_size():
    from qring_edu.sign_audit import classical_subset_size, classical_worst_failure

    P, alpha, eps, delta = 2**12, 0.5, 0.05, 0.05
    k = classical_subset_size(P, alpha, eps, delta, bound="exact")
    assert classical_subset_size(P, alpha, eps, delta) == P  # Hoeffding: send every sign
    assert k < P and classical_worst_failure(P, alpha, k, eps)[0] <= delta
    assert classical_worst_failure(P, alpha, int(0.9 * k), eps)[0] > delta
    assert tieaudit_cost(P, eps, protocol="classical", alpha=alpha, bound="exact") == k
    # The Hoeffding plan is valid, with a lot of room.
    k_h = classical_subset_size(2**16, 1.0, eps, delta)
    assert classical_worst_failure(2**16, 1.0, k_h, eps)[0] < 1e-3
    e = tieaudit(
        np.ones(P),
        random_matching(P, alpha, seed=0),
        eps,
        protocol="classical",
        bound="exact",
        seed=0,
    )
    assert e.cost == k and e.value == 0.0
