"""VGA security statements: the per-register detection of each attack,
epsilon with an explicit detection and its floor, the GHZ test as a fidelity witness, the
Zhu–Hayashi finite-copy guarantee, partially bad copies, privacy amplification and the exact
total-variation distance of the transcript from the ideal.

Independent checks: Qiskit ``quantum_info`` (Pauli expectations, state vectors, circuits) against
the NumPy formulas; an exact linear programme over every adversary against the closed-form
finite-copy guarantee; Monte-Carlo runs of the protocol against the exact probabilities."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from qiskit.circuit.library import QFTGate
from qiskit.quantum_info import DensityMatrix, Operator, Pauli, Statevector
from scipy.optimize import linprog
from scipy.stats import hypergeom

from qring_edu import modular_sum
from qring_edu.vga import (
    Dephasing,
    Eavesdropper,
    Honest,
    KnownPads,
    known_pads_detection,
    vga_aggregate,
    vga_copy_counts,
    zero_sum_pads,
)
from qring_edu.vga_security import (
    DETECTION_ATTACKS,
    TRANSCRIPT_SOURCES,
    KnownPadBits,
    SplitWorker,
    amplified_leak_probability,
    detection_probability,
    ghz_fidelity,
    ghz_state_pass_probability,
    ghz_test_operator,
    ghz_test_pass_probability,
    ghz_verification_tests,
    ghz_verified_infidelity,
    ghz_witness,
    rotated_ghz_leak,
    rotated_ghz_state,
    transcript_distance,
    vga_cheat_probability,
    vga_epsilon,
    vga_epsilon_floor,
    vga_outcome_probabilities,
    vga_state_outcome_probabilities,
)


def _random_density(dim: int, rng: np.random.Generator, rank: int | None = None) -> np.ndarray:
    g = rng.normal(size=(dim, rank or dim)) + 1j * rng.normal(size=(dim, rank or dim))
    rho = g @ g.conj().T
    return rho / np.trace(rho).real


def _even_settings(P: int):
    """Every even-size set of Y's, as bool tuples (worker j = entry j)."""
    return [s for s in itertools.product([False, True], repeat=P) if sum(s) % 2 == 0]


def _qiskit_pass_probability(rho: np.ndarray, P: int) -> float:
    """Average GHZ-test pass probability from Qiskit Pauli expectations (independent path)."""
    dm = DensityMatrix(rho)
    total = 0.0
    settings = _even_settings(P)
    for ys in settings:
        label = "".join("Y" if ys[j] else "X" for j in reversed(range(P)))  # Qiskit: qubit 0 last
        m = sum(ys) // 2
        total += (1 + (-1) ** m * dm.expectation_value(Pauli(label)).real) / 2
    return total / len(settings)


def _ghz_vector(P: int) -> np.ndarray:
    v = np.zeros(2**P)
    v[0] = v[-1] = 2**-0.5
    return v


# -- item 4: the per-register detection is a function of the attack and of P -------------------
def test_epsilon_and_cheat_probability_require_an_explicit_detection():
    for call in (
        lambda: vga_epsilon(800, 0.5, 0.1),
        lambda: vga_cheat_probability(40, 0.5, 4, 0.1),
    ):
        with pytest.raises(TypeError, match="detection_probability"):
            call()
    # Positional names stay: n_copies, test_fraction, bad_fraction.
    assert vga_epsilon(n_copies=40, test_fraction=0.5, bad_fraction=0.1, detection=0.5) > 0


def test_detection_of_each_attack_matches_the_exact_tests():
    all_y = {P: [np.array(s) for s in _even_settings(P)] for P in (2, 3, 4, 5)}
    rng = np.random.default_rng(0)
    for P in (2, 3, 4, 5):
        # Known pads on one qubit GHZ: exact average over the settings of product states.
        pads = zero_sum_pads(P, 1, 6, rng)[:, 0].astype(np.int64)
        phases = 2 * np.pi * ((pads << 2) % 64) / 64
        fail = 1 - np.mean([ghz_test_pass_probability(y, phases=phases)[0] for y in all_y[P]])
        assert abs(fail - detection_probability(KnownPadBits(1), P, bits=6)) < 1e-12
        assert abs(fail - known_pads_detection(P)) < 1e-12
        for b in (2, 5, 8):
            for k in range(1, b + 1):
                kp = detection_probability(KnownPadBits(k), P, bits=b)
                assert abs(kp - (1 - (1 - fail) ** k)) < 1e-12
            whole = detection_probability(KnownPads(), P, bits=b)
            assert whole == detection_probability(KnownPadBits(b), P, bits=b)
            assert whole == detection_probability(Eavesdropper(0.1), P, bits=b)
            assert detection_probability(Dephasing(0.3), P, bits=b) == 1.0
        # Split worker: |+> on worker 0, GHZ on the others; exact from Qiskit Pauli expectations.
        split = np.kron(_ghz_vector(P - 1), np.array([1, 1]) / 2**0.5)
        fail_split = 1 - _qiskit_pass_probability(np.outer(split, split), P)
        assert abs(fail_split - 0.25) < 1e-12
        assert abs(detection_probability(SplitWorker(), P, bits=4) - fail_split) < 1e-12
        assert abs(detection_probability(SplitWorker(4), P, bits=4) - (1 - 0.75**4)) < 1e-12
    # The per-test detection of known pads is below 1/2 for every P: 1/2 is no register's value.
    assert all(known_pads_detection(P) < 0.5 for P in range(2, 40))
    assert detection_probability(KnownPadBits(1), 4, bits=8) == 7 / 16


def test_split_worker_keeps_the_sum_and_leaks_the_lowest_bit():
    """|+> on worker 0's top qubit, GHZ_{P-1} on the others' top qubits, ideal lower qubits:
    the sum is exact, m_0 has the parity of x_0 (the source knows r_0 is even), the rest is
    as uniform as the sum allows. Fast path against a Qiskit state vector."""
    P, b = 3, 2
    n = P * b
    top = np.kron(_ghz_vector(P - 1), np.array([1, 1]) / 2**0.5)
    idx = np.arange(2**n)
    psi = np.ones(2**n)
    for i, s in enumerate([_ghz_vector(P), top]):
        psi = psi * s[sum(((idx >> (b * j + i)) & 1) << j for j in range(P))]
    inverse_qft = Operator(QFTGate(b).inverse())
    for x in ([1, 2, 3], [0, 3, 1], [2, 2, 2]):
        probs = vga_state_outcome_probabilities(psi, x, b)
        sv = Statevector(psi)
        for j in range(P):  # the phases Z^{x_j}, then the inverse QFT, with Qiskit
            phase = np.diag(np.exp(2j * np.pi * x[j] * np.arange(4) / 4))
            sv = sv.evolve(Operator(phase), qargs=[b * j, b * j + 1])
            sv = sv.evolve(inverse_qft, qargs=[b * j, b * j + 1])
        assert np.allclose(probs, sv.probabilities(), atol=1e-12)
        support = np.flatnonzero(probs > 1e-12)
        ms = [[(int(k) >> (b * j)) & 3 for j in range(P)] for k in support]
        assert all(sum(m) % 4 == sum(x) % 4 for m in ms)
        assert {(m[0] - x[0]) % 2 for m in ms} == {0}  # leaked: parity of x_0
        assert {(m[1] - x[1]) % 2 for m in ms} == {0, 1}  # not leaked
        assert len(support) == 2 ** (b * (P - 1)) // 2 and np.allclose(probs[support], 1 / 8)


def test_known_pads_on_the_top_qubit_only_leak_every_lowest_bit():
    """The cheapest known-pads register: product |+>/|-> states (even parity) on qubit GHZ b-1,
    genuine GHZ elsewhere. Sums exact, m_j - x_j has the parity the source chose, for every j;
    one test in b fails, with probability delta_P."""
    P, b = 3, 2
    parities = [1, 0, 1]
    top = np.array([1.0])
    for j in range(P):
        top = np.kron(np.array([1, -1 if parities[j] else 1]) / 2**0.5, top)
    idx = np.arange(2 ** (P * b))
    psi = np.ones(2 ** (P * b))
    for i, s in enumerate([_ghz_vector(P), top]):
        psi = psi * s[sum(((idx >> (b * j + i)) & 1) << j for j in range(P))]
    for x in ([1, 2, 3], [3, 3, 0]):
        probs = vga_state_outcome_probabilities(psi, x, b)
        ms = [[(int(k) >> (b * j)) & 3 for j in range(P)] for k in np.flatnonzero(probs > 1e-12)]
        assert all(sum(m) % 4 == sum(x) % 4 for m in ms)
        assert [{(m[j] - x[j]) % 2 for m in ms} for j in range(P)] == [{1}, {0}, {1}]
    fail = 1 - ghz_state_pass_probability(top)
    assert abs(fail - detection_probability(KnownPadBits(1), P, bits=b)) < 1e-12


def test_a_certain_leak_costs_at_least_one_quarter_per_test():
    """Every state in which one worker's qubit is pure and in a product with the rest (what the
    source needs to predict that worker's pad digit with certainty), and every mixture of such
    states, fails the GHZ test with probability >= 1/4; the split worker attains it."""
    rng = np.random.default_rng(1)
    for P in (2, 3, 4):
        for _ in range(150):
            mix = np.zeros((2**P, 2**P), dtype=complex)
            weights = rng.dirichlet(np.ones(3))
            for w in weights:
                j = int(rng.integers(P))
                v = rng.normal(size=2) + 1j * rng.normal(size=2)
                v /= np.linalg.norm(v)
                rest = _random_density(2 ** (P - 1), rng, rank=int(rng.integers(1, 3)))
                # kron(rest, qubit): the qubit is bit 0 (little endian); move it to bit j.
                full = np.kron(rest, np.outer(v, v.conj()))
                mix += w * _move_qubit(full, P, j)
            fail = 1 - ghz_state_pass_probability(mix)
            assert fail >= 0.25 - 1e-12
            assert ghz_fidelity(mix) <= 0.5 + 1e-12
        split = np.kron(np.outer(_ghz_vector(P - 1), _ghz_vector(P - 1)), np.full((2, 2), 0.5))
        for j in range(P):  # the split worker attains the bound, at every position
            assert abs(1 - ghz_state_pass_probability(_move_qubit(split, P, j)) - 0.25) < 1e-12


def _move_qubit(rho: np.ndarray, P: int, j: int) -> np.ndarray:
    """Move qubit 0 of a P-qubit density matrix to position j (little endian), keeping the
    order of the others: old positions 1..P-1 fill the positions other than j."""
    new_pos = [j] + [p for p in range(P) if p != j]  # new_pos[old position]
    idx = np.arange(2**P)
    new_idx = sum(((idx >> old) & 1) << new for old, new in enumerate(new_pos))
    out = np.empty_like(rho)
    out[np.ix_(new_idx, new_idx)] = rho
    return out


def test_claims_row_epsilon_depends_on_the_detection_and_matches_scipy():
    """epsilon(N = 800, f = 1/2, beta = 0.1) for the detections of the attack classes, against an
    independent scipy.stats.hypergeom evaluation of the same maximum."""
    n, f, beta = 800, 0.5, 0.1
    t = math.ceil(f * n)
    u = n - t
    values = {}
    for delta in (0.25, 7 / 16, 0.5, detection_probability(KnownPads(), 4, bits=8)):
        ref = 0.0
        for bad in range(int(beta * u) + 1, n + 1):
            ks = np.arange(max(0, bad - u), min(bad, t) + 1)
            ks = ks[bad - ks > beta * u]
            ref = max(ref, float(np.sum(hypergeom.pmf(ks, n, bad, t) * (1 - delta) ** ks)))
        values[delta] = vga_epsilon(n, f, beta, detection=delta)
        assert abs(values[delta] - ref) <= 1e-9 * ref
    # Smaller detection, larger epsilon: the old 1/2 understated it ~6x against known pads on
    # one qubit GHZ (P = 4) and ~3000x against a split worker.
    ordered = [values[d] for d in sorted(values)]
    assert all(a > b for a, b in zip(ordered, ordered[1:]))
    assert 5 < values[7 / 16] / values[0.5] < 8 and values[0.25] / values[0.5] > 1000


def test_cheat_probability_matches_monte_carlo_for_a_partial_known_pads_source():
    """known pads on 3 of N = 20 registers (KnownPads(3/20)), P = 3, b = 2, beta = 0."""
    P, bits, d = 3, 2, 10
    n, _ = vga_copy_counts(d, 0.5)
    delta = detection_probability(KnownPads(), P, bits=bits)
    theory = vga_cheat_probability(n, 0.5, 3, 0.0, detection=delta)
    runs, hits = 3000, 0
    x = np.zeros((P, d), dtype=int)
    for seed in range(runs):
        res = vga_aggregate(x, bits=bits, source=KnownPads(3 / n), seed=seed)
        assert res.bad_used + res.bad_tested == 3
        hits += res.accepted and res.bad_used > 0
    assert abs(hits / runs - theory) <= 4 * math.sqrt(theory * (1 - theory) / runs)


# -- item 5(a): with beta = 0 epsilon never falls below 1/2 --------------------------------------
def test_epsilon_floor_half_for_every_n_when_no_entry_may_leak():
    for n in (2, 4, 10, 100, 1000, 5000):
        assert vga_epsilon_floor(n, 0.5, 0.0) == pytest.approx(0.5, abs=1e-12)
        for delta in (0.1, 0.25, 7 / 16, 0.5, 0.9, 1.0):
            assert vga_epsilon(n, 0.5, 0.0, detection=delta) >= 0.5 - 1e-9
    for n, f, beta in ((7, 0.3, 0.0), (50, 0.5, 0.05), (120, 0.75, 0.1), (801, 0.5, 0.1)):
        floor = vga_epsilon_floor(n, f, beta)
        t = math.ceil(f * n - 1e-9)
        b_star = math.floor(beta * (n - t)) + 1
        assert floor == pytest.approx(math.comb(n - b_star, t) / math.comb(n, t), rel=1e-10)
        assert vga_epsilon(n, f, beta, detection=1.0) == pytest.approx(floor, rel=1e-9)
        for delta in (0.25, 0.5):
            assert vga_epsilon(n, f, beta, detection=delta) >= floor * (1 - 1e-9)


def test_one_bad_copy_escapes_half_the_time_in_the_protocol():
    d, runs = 20, 2000
    n, _ = vga_copy_counts(d, 0.5)
    escaped = 0
    for seed in range(runs):
        res = vga_aggregate(
            np.zeros((2, d), dtype=int), bits=2, source=Eavesdropper(1 / n), seed=seed
        )
        escaped += res.accepted and res.bad_used == 1
    assert abs(escaped / runs - 0.5) < 4 * math.sqrt(0.25 / runs)


# -- item 5(b): the GHZ test is a fidelity witness ------------------------------------------------
def test_pass_operator_is_the_average_of_the_explicit_projectors():
    X = np.array([[0, 1], [1, 0]])
    Y = np.array([[0, -1j], [1j, 0]])
    for P in (2, 3, 4, 5):
        avg = np.zeros((2**P, 2**P), dtype=complex)
        settings = _even_settings(P)
        for ys in settings:
            op = np.array([[1.0]])
            for j in range(P):  # little endian: worker j is bit j, so kron from the left
                op = np.kron(Y if ys[j] else X, op)
            avg += (np.eye(2**P) + (-1) ** (sum(ys) // 2) * op) / 2
        avg /= len(settings)
        omega = ghz_test_operator(P)
        assert np.allclose(avg, omega, atol=1e-12)
        eig = np.linalg.eigvalsh(omega)
        assert np.allclose(sorted(set(np.round(eig, 12))), [0, 0.5, 1])
        assert np.isclose(sorted(eig)[-2], 0.5) and np.isclose(eig.min(), 0)


def test_witness_holds_for_random_states_against_qiskit_and_is_tight():
    rng = np.random.default_rng(2)
    for P in (2, 3, 4, 5):
        omega = ghz_test_operator(P)
        plus = _ghz_vector(P)
        minus = plus.copy()
        minus[-1] *= -1
        for rank in (1, 2, 2**P):
            for _ in range(6):
                rho = _random_density(2**P, rng, rank)
                p_pass = ghz_state_pass_probability(rho)
                assert abs(p_pass - _qiskit_pass_probability(rho, P)) < 1e-10
                assert abs(p_pass - np.trace(omega @ rho).real) < 1e-10
                f_plus = ghz_fidelity(rho)
                f_minus = float(np.real(minus @ rho @ minus))
                assert (
                    abs(
                        f_plus
                        - DensityMatrix(rho)
                        .expectation_value(DensityMatrix(np.outer(plus, plus)))
                        .real
                    )
                    < 1e-10
                )
                assert abs(p_pass - (1 + f_plus - f_minus) / 2) < 1e-10
                assert f_plus >= ghz_witness(1 - p_pass).fidelity_bound - 1e-12
        # Tight: no weight on |GHZ->, e.g. GHZ+ mixed with any other basis states.
        for f in (0.0, 0.3, 0.9, 1.0):
            rho = f * np.outer(plus, plus) + (1 - f) * np.diag(np.eye(2**P)[1])
            assert abs(ghz_witness(1 - ghz_state_pass_probability(rho)).fidelity_bound - f) < 1e-12
    w = ghz_witness(0.02)
    assert w.fidelity_bound == pytest.approx(0.96) and w.distance_bound == pytest.approx(0.2)


def _adversarial_worst_infidelity(n: int, delta: float, eigenvalues) -> float:
    """Exact worst case over every adversary: largest infidelity of the untested copy given
    passing probability >= delta, for a strategy whose eigenvalues are 1 (the target,
    non-degenerate) and ``eigenvalues`` (every other eigenvector has fidelity 0).

    The pass operator and the target projector are diagonal in the product eigenbasis, so
    dephasing the adversary's state in it changes nothing: the problem is classical, over the
    numbers of copies with each eigenvalue (the random permutation makes the order irrelevant).
    Points (p, a) per type; maximise a/q over the convex hull at passing probability q >= delta.
    """
    eigenvalues = list(eigenvalues)
    pts = []

    def counts(prefix, left):
        if len(prefix) == len(eigenvalues):
            yield prefix
            return
        for c in range(left + 1):
            yield from counts(prefix + [c], left - c)

    for cnt in counts([], n + 1):
        good = n + 1 - sum(cnt)
        prod_all = math.prod(e**c for e, c in zip(eigenvalues, cnt))
        p = good * prod_all
        a = 0.0
        for i, (_e, c) in enumerate(zip(eigenvalues, cnt)):
            if c:
                rest = math.prod(
                    ee ** (cc - (k == i)) for k, (ee, cc) in enumerate(zip(eigenvalues, cnt))
                )
                p += c * rest
                a += c * rest
        pts.append((p / (n + 1), a / (n + 1)))
    pts = np.array(pts)
    best = 0.0
    for q in np.concatenate([[delta], np.linspace(delta, 1, 60)[1:]]):
        res = linprog(
            -pts[:, 1],
            A_eq=[pts[:, 0], np.ones(len(pts))],
            b_eq=[q, 1],
            bounds=(0, None),
            method="highs",
        )
        if res.status == 0:
            best = max(best, -res.fun / q)
    return min(1.0, best)


@pytest.mark.parametrize("n", [3, 8, 15, 30])
def test_finite_copy_guarantee_is_the_exact_adversarial_worst_case(n):
    for delta in (0.05, 0.2, 0.5, 0.7, 0.95):
        eps = ghz_verified_infidelity(n, delta)
        assert abs(eps - _adversarial_worst_infidelity(n, delta, [0.5, 0.0])) < 1e-7
        if n <= 8:  # a register of b = 2 qubit GHZ tested: eigenvalues 1, 1/2, 1/4, 0
            assert abs(eps - _adversarial_worst_infidelity(n, delta, [0.5, 0.25, 0.0])) < 1e-7


def test_number_of_tests_inverts_the_guarantee():
    for eps in (0.3, 0.05, 0.01):
        for delta in (0.01, 0.05, 0.3, 0.8):
            n = ghz_verification_tests(eps, delta)
            assert ghz_verified_infidelity(n, delta) <= eps * (1 + 1e-9)
            if n > 1:
                assert ghz_verified_infidelity(n - 1, delta) > eps
    # 1/delta scaling of a strategy with a zero eigenvalue: the guarantee is weak.
    assert ghz_verified_infidelity(400, 0.05) > 0.04


# -- item 5(c): partially bad copies ---------------------------------------------------------------
def test_rotated_ghz_leaks_order_t_and_fails_order_t_squared():
    for P, b in ((2, 1), (3, 1), (2, 2), (3, 2)):
        for theta in (0.02, 0.1, 0.3):
            r = rotated_ghz_leak(theta, P, b)
            t = math.sin(theta)
            state = rotated_ghz_state(theta, P)
            assert abs(r.trace_distance - t) < 1e-12
            assert abs(r.fail_probability - t**2 / 2) < 1e-12
            assert (
                abs(r.fail_probability - (1 - _qiskit_pass_probability(np.outer(state, state), P)))
                < 1e-12
            )
            assert abs(r.witness.distance_bound - t) < 1e-9  # the witness is tight here
            assert 0.4 * t < r.leak <= r.trace_distance + 1e-12  # leaks of order t
    small = rotated_ghz_leak(0.01, 2, 1)
    assert small.leak / small.fail_probability > 100  # leak >> detection


def test_fast_outcome_probabilities_match_the_circuits():
    for x, bits in (([1, 2, 3], 2), ([5, 0], 3), ([3, 1, 0, 2], 2)):
        P = len(x)
        ghz = np.zeros(2 ** (P * bits))
        ghz[[sum(g << (bits * j) for j in range(P)) for g in range(2**bits)]] = 2 ** (-bits / 2)
        fast = vga_state_outcome_probabilities(ghz, x, bits)
        for m, p in vga_outcome_probabilities(x, bits).items():
            assert abs(fast[sum(v << (bits * j) for j, v in enumerate(m))] - p) < 1e-12
        assert abs(fast.sum() - 1) < 1e-12


# -- item 5(d): privacy amplification --------------------------------------------------------------
@pytest.mark.parametrize("source", [Honest(), Dephasing(0.0), KnownPads(), Eavesdropper()])
def test_amplified_sums_exact_and_ledgers_k_fold(source):
    rng = np.random.default_rng(3)
    x = rng.integers(-100, 100, (4, 50))
    for k in (1, 2, 3):
        res = vga_aggregate(x, bits=9, source=source, amplification=k, seed=k)
        n, t = vga_copy_counts(50, 0.5, amplification=k)
        assert np.array_equal(res.total, modular_sum(x, 9))
        assert (res.n_copies, res.n_tested, res.amplification) == (n, t, k) == (100 * k, 50 * k, k)
        assert res.ghz_used == k * 50 * 9 and res.ghz_tested == k * 50 * 9
        assert res.tests == res.n_tested * 9
        assert np.array_equal(modular_sum(res.transcript, 9), res.total)
    assert (
        vga_aggregate(x, bits=9, seed=5).transcript.tolist()
        == vga_aggregate(x, bits=9, seed=5, amplification=1).transcript.tolist()
    )


@pytest.mark.parametrize("kind", [Eavesdropper, KnownPads])
def test_leaked_fraction_falls_as_beta_to_the_k(kind):
    P, bits, d, frac = 3, 6, 12_000, 0.3
    x = np.random.default_rng(4).integers(0, 2**bits, (P, d))
    leaked = []
    for k in (1, 2, 3, 4):
        res = vga_aggregate(x, bits=bits, source=kind(frac), amplification=k, seed=10 + k)
        n = res.n_copies
        theory = amplified_leak_probability(n, int(round(frac * n)), k)
        rate = res.attacker_knows.mean()
        assert abs(rate - theory) <= 4 * math.sqrt(theory * (1 - theory) / d) + 1e-12
        known = res.attacker_knows
        assert np.array_equal(res.guess_words[:, known], x[:, known])
        blind = np.mean(res.guess_words[:, ~known] == x[:, ~known])
        assert abs(blind - 2**-bits) < 4 * math.sqrt(2**-bits / ((~known).sum() * P))
        leaked.append(rate)
    assert all(a > b for a, b in zip(leaked, leaked[1:]))
    assert abs(leaked[1] - frac**2) < 0.01 and abs(leaked[2] - frac**3) < 0.005
    # Known pads on every copy: every register is bad, amplification cannot help.
    full = vga_aggregate(x[:, :200], bits=bits, source=KnownPads(), amplification=3, seed=0)
    assert full.attacker_knows.all() and full.attacker_accuracy == 1.0


def test_amplified_leak_probability_by_enumeration_and_by_the_protocol():
    n, bad, k = 8, 3, 2
    subsets = list(itertools.combinations(range(n), k))
    exact = sum(all(i < bad for i in s) for s in subsets) / len(subsets)
    assert abs(amplified_leak_probability(n, bad, k) - exact) < 1e-15 and exact == 3 / 28
    # Protocol: d = 2 entries, k = 2, f = 1/2: N = 8 registers, 3 attacked.
    runs, hits = 6000, 0
    for seed in range(runs):
        res = vga_aggregate(
            np.zeros((2, 2), dtype=int),
            bits=2,
            source=Eavesdropper(3 / 8),
            amplification=2,
            seed=seed,
        )
        hits += bool(res.attacker_knows[0])
    assert abs(hits / runs - exact) < 4 * math.sqrt(exact * (1 - exact) / runs)
    assert amplified_leak_probability(10, 10, 4) == 1.0
    assert amplified_leak_probability(10, 3, 4) == 0


# -- item 5(e): exact total-variation distance of the transcript -----------------------------------
def test_transcript_distance_exact_equals_closed_form():
    for P, bits in ((2, 1), (2, 3), (3, 2), (4, 1), (3, 3)):
        x = list(range(1, P + 1))
        full = 1 - 2.0 ** (-bits * (P - 1))
        for k in (1, 2):
            if (2 ** (bits * (P - 1))) ** k > 4096:
                continue
            for source, value in (
                (Honest(), 0.0),
                (KnownPads(), full),
                (KnownPads(0.4), 0.4**k * full),
                (Eavesdropper(0.4), 0.4**k * full),
            ):
                exact = transcript_distance(x, bits, source=source, amplification=k)
                closed = transcript_distance(
                    x, bits, source=source, amplification=k, method="closed_form"
                )
                assert abs(exact - value) < 1e-12 and abs(closed - value) < 1e-12


def test_transcript_distance_from_the_circuits():
    """Honest circuit: uniform on the right-sum transcripts (TV 0). Known-pads circuits with the
    source's pads as side information: TV 1 - 2**(-b(P-1)), the full leak."""
    x, bits = [1, 2, 3], 2
    P = len(x)
    ideal = 1 / 2 ** (bits * (P - 1))
    honest = vga_outcome_probabilities(x, bits)
    support = [m for m in itertools.product(range(4), repeat=P) if sum(m) % 4 == sum(x) % 4]
    tv_honest = 0.5 * sum(abs(honest.get(m, 0.0) - ideal) for m in support)
    assert tv_honest < 1e-9 and abs(transcript_distance(x, bits)) < 1e-12
    pads = [r for r in itertools.product(range(4), repeat=P) if sum(r) % 4 == 0]
    tv = 0.0
    for r in pads:  # joint law of (transcript, pads): the source picks r uniformly
        probs = vga_outcome_probabilities(x, bits, pads=list(r))
        tv += sum(abs(probs.get(m, 0.0) - ideal) for m in support) / len(pads)
    assert abs(tv / 2 - transcript_distance(x, bits, source=KnownPads())) < 1e-9


# -- bad input -------------------------------------------------------------------------------------
def test_bad_input_of_the_analysis():
    cases = [
        (lambda: detection_probability("known_pads", 3, bits=4), TypeError, "attack"),
        (lambda: detection_probability(Honest(), 3, bits=4), TypeError, "attack"),
        (lambda: detection_probability(KnownPads(), 1, bits=4), ValueError, "workers"),
        (lambda: detection_probability(KnownPadBits(5), 3, bits=4), ValueError, "qubits"),
        (lambda: KnownPadBits(0), ValueError, "KnownPadBits qubits"),
        (lambda: SplitWorker(1.5), TypeError, "SplitWorker qubits"),
        (lambda: vga_epsilon(10, 0.5, 0.1, detection=1.5), ValueError, "detection"),
        (lambda: vga_epsilon(10, 1.0, 0.1, detection=0.5), ValueError, "test_fraction"),
        (lambda: vga_epsilon(0, 0.5, 0.1, detection=0.5), ValueError, "n_copies"),
        (lambda: vga_epsilon(10**6, 0.5, 0.1, detection=0.5), ValueError, "n_copies"),
        (lambda: vga_epsilon(10, 0.5, 1.0, detection=0.5), ValueError, "bad_fraction"),
        (lambda: vga_cheat_probability(10, 0.5, 11, 0.1, detection=0.5), ValueError, "bad_copies"),
        (lambda: vga_epsilon_floor(10, 1.0, 0.1), ValueError, "test_fraction"),
        (lambda: ghz_test_operator(11), ValueError, "workers"),
        (lambda: ghz_state_pass_probability(np.eye(3) / 3), ValueError, "P qubits"),
        (lambda: ghz_state_pass_probability(np.ones((4, 4))), ValueError, "trace"),
        (lambda: ghz_witness(1.2), ValueError, "fail_probability"),
        (lambda: ghz_verified_infidelity(0, 0.05), ValueError, "n_tests"),
        (lambda: ghz_verified_infidelity(10, 1.0), ValueError, "significance"),
        (lambda: ghz_verification_tests(0.0, 0.05), ValueError, "infidelity"),
        (lambda: rotated_ghz_leak(0.1, 4, 3), ValueError, "P \\* bits"),
        (lambda: transcript_distance([1], 2), ValueError, "P >= 2"),
        (lambda: transcript_distance([1, 2], 2, source=Dephasing()), TypeError, "source"),
        (lambda: transcript_distance([1, 2], 2, source="known_pads"), TypeError, "source"),
        (lambda: transcript_distance([1, 2, 3, 4], 8), ValueError, "pad combinations"),
        (lambda: amplified_leak_probability(3, 1, 4), ValueError, "amplification"),
        (lambda: vga_state_outcome_probabilities(np.ones(3), [1, 2], 1), ValueError, "state"),
    ]
    for call, exc, match in cases:
        with pytest.raises(exc, match=match):
            call()
    assert DETECTION_ATTACKS == (KnownPads, Eavesdropper, KnownPadBits, SplitWorker, Dephasing)
    assert TRANSCRIPT_SOURCES == (Honest, KnownPads, Eavesdropper)


# -- large N: no hang, no O(N) array where a closed form exists -------------------------------------
def test_epsilon_by_branch_and_bound_equals_the_brute_force_maximum():
    rng = np.random.default_rng(0)
    for _ in range(120):
        n = int(rng.integers(1, 200))
        f = float(rng.choice([0.0, 0.1, 0.5, 0.9, 0.99]))
        beta = float(rng.choice([0.0, 0.05, 0.3, 0.7]))
        delta = float(rng.choice([0.0, 1e-3, 0.25, 7 / 16, 0.9, 1.0]))
        brute = max(vga_cheat_probability(n, f, b, beta, detection=delta) for b in range(n + 1))
        assert vga_epsilon(n, f, beta, detection=delta) == pytest.approx(min(brute, 1), rel=1e-12)


def test_epsilon_at_the_largest_n_and_the_floor_at_any_n():
    # cases that scanned every B (about a minute each) before the Chernoff bounds pruned them
    for f, beta, delta in ((0.5, 0.5, 1e-3), (0.99, 0.5, 1e-3), (0.9, 0.9, 1e-4)):
        eps = vga_epsilon(100_000, f, beta, detection=delta)
        assert 0 < eps < 1e-3
    assert vga_epsilon(100_000, 0.5, 0.3, detection=0.0) == 1.0  # never above 1
    # the floor is O(1): any N, no loop over the bad copies
    assert vga_epsilon_floor(10**15, 0.5, 0.0) == 0.5
    assert vga_epsilon_floor(10**15, 0.5, 0.1) == 0.0
    n, f, beta = 5000, 0.3, 0.05  # B* = 176 bad copies: the log-gamma branch
    t = math.ceil(f * n)
    b_star = math.floor(beta * (n - t)) + 1
    exact = math.comb(n - b_star, t) / math.comb(n, t)
    assert vga_epsilon_floor(n, f, beta) == pytest.approx(exact, rel=1e-9)
    assert ghz_verified_infidelity(10**15, 0.05) < 1e-13
    assert amplified_leak_probability(10**15, 10**14, 2) == pytest.approx(0.01, rel=1e-9)
