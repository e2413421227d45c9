"""TieAudit_ε under channels and attacks: the one-copy laws against Qiskit density matrices, the
Clifford twirl, hidden test copies against the data-only attack, dephasing without the twirl."""

from __future__ import annotations

import math

import numpy as np
import pytest
from qiskit.quantum_info import DensityMatrix, Kraus, Operator, random_clifford

from qring_edu.experiments.tieaudit import (
    disagreement_fraction,
    outcome_index,
    random_matching,
    signs_with_disagreement,
)
from qring_edu.experiments.tieaudit_noise import dephasing_sweep, ratio_bias
from qring_edu.tieaudit import (
    DataOnlyAttack,
    Dephasing,
    Depolarizing,
    LocalDepolarizing,
    copy_y_law,
    outcome_probabilities,
    tieaudit,
)


def _z(b, P):
    return np.diag([(-1.0) ** bin(b & i).count("1") for i in range(P)])


def _kraus(P, channel):
    """Kraus operators of the channel on n = log2 P qubits, written out independently."""
    n, eye = P.bit_length() - 1, np.eye(P)
    if isinstance(channel, Dephasing):
        p = channel.noise
        return [
            math.sqrt(p ** bin(e).count("1") * (1 - p) ** (n - bin(e).count("1"))) * _z(e, P)
            for e in range(P)
        ]
    if isinstance(channel, LocalDepolarizing):  # each qubit: Werner of fidelity F
        F = channel.fidelity
        paulis = [
            np.eye(2),
            np.array([[0, 1], [1, 0]]),
            np.diag([1, -1]),
            np.array([[0, -1j], [1j, 0]]),
        ]
        single = [math.sqrt(F) * paulis[0]] + [math.sqrt((1 - F) / 3) * q for q in paulis[1:]]
        ops = [np.eye(1)]
        for _ in range(n):  # qubit 0 is the least significant: kron(new, old)
            ops = [np.kron(k, o) for k in single for o in ops]
        return ops
    p = channel.noise
    ks = [math.sqrt(1 - p) * eye] + [
        math.sqrt(p / P) * np.outer(eye[k], eye[l]) for k in range(P) for l in range(P)
    ]
    if isinstance(channel, DataOnlyAttack):
        one = np.full(P, 1 / math.sqrt(P))
        Pi = np.outer(one, one)
        ks = [Pi] + [k @ (eye - Pi) for k in ks]
    return ks


def _law(x, m, channel, frames):
    """(P(+1), P(-1)) by Qiskit density matrices: frame C, channel, C^dagger, the client's basis
    change, Born rule; averaged over the frames."""
    P = len(x)
    V = np.eye(P)
    for i, j in m:
        r = 1 / math.sqrt(2)
        V[i, i], V[i, j], V[j, i], V[j, j] = r, r, r, -r
    kraus = Kraus([np.asarray(k, complex) for k in _kraus(P, channel)])
    idx = outcome_index(m, P)
    acc = np.zeros(2)
    for C in frames:
        rho = DensityMatrix(C @ (np.asarray(x, float) / math.sqrt(P))).evolve(kraus)
        pr = rho.evolve(Operator(V @ C.conj().T)).probabilities()[idx]
        acc += [pr[0 : 2 * len(m) : 2].sum(), pr[1 : 2 * len(m) : 2].sum()]
    return acc / len(frames)


CHANNELS = [Depolarizing(0.3), Dephasing(0.3), DataOnlyAttack(0.3)]


@pytest.mark.parametrize("channel", CHANNELS, ids=lambda c: type(c).__name__)
def test_untwirled_law_matches_qiskit_density_matrices(channel):
    P, rng = 8, np.random.default_rng(3)
    for alpha, x in [(1.0, np.ones(P, int)), (0.75, rng.choice([-1, 1], P))]:
        m = random_matching(P, alpha, seed=int(10 * alpha))
        probs, y = outcome_probabilities(x, m, channel)
        want = _law(x, m, channel, [np.eye(P)])
        assert np.allclose([probs[y == 1].sum(), probs[y == -1].sum()], want, atol=1e-12)
    # An attack that knows the twirl works in the copy's frame: the untwirled law.
    if isinstance(channel, DataOnlyAttack):
        known = DataOnlyAttack(channel.noise, knows_twirl=True)
        assert np.allclose(copy_y_law(x, m, known), want, atol=1e-12)


def test_clifford_twirl_makes_every_channel_depolarising():
    n, m = 2, np.array([[0, 3], [1, 2]])
    x = np.array([1, -1, -1, 1])  # f = 0
    rng = np.random.default_rng(1)
    frames = [
        random_clifford(n, seed=int(rng.integers(2**31))).to_operator().data for _ in range(1500)
    ]
    for channel in (Dephasing(0.3), DataOnlyAttack(0.3), LocalDepolarizing(0.7)):
        assert np.allclose(copy_y_law(x, m, channel), _law(x, m, channel, frames), atol=0.02)


def test_pads_hide_the_test_strings():
    P = 8
    m = random_matching(P, 1.0, seed=0)
    s = signs_with_disagreement(m, P, 0.5, seed=1)
    for x in (s, np.ones(P)):  # data or test, every copy travels as I/P
        psi = x / math.sqrt(P)
        avg = sum(_z(b, P) @ np.outer(psi, psi) @ _z(b, P) for b in range(P)) / P
        assert np.allclose(avg, np.eye(P) / P)


def test_known_frames_let_the_attack_spare_the_tests():
    P = 2**12
    m = random_matching(P, 1.0, seed=0)
    s = signs_with_disagreement(m, P, 0.3, seed=1)
    known = DataOnlyAttack(0.6, knows_twirl=True)
    p, q = copy_y_law(np.ones(P, int), m, known)  # a test copy is found and passes untouched
    assert math.isclose(p - q, 1.0)
    c2 = (s.sum() / P) ** 2  # a data copy is found with probability (sum s / P)^2 only
    p, q = copy_y_law(s, m, known)
    assert c2 < 1e-3 and abs((p - q) - 0.4 * (1 - 2 * 0.3)) < 2e-3
    # Under the secret twirl the tests see what the data see.
    secret = DataOnlyAttack(0.6)
    assert abs(secret.eta(P) - 0.4) < 1e-3


def _attack_runs(channel, trials, protocol="quantum"):
    P, eps = 2**12, 0.05
    errs, etas, covered = [], [], 0
    for t in range(trials):
        m = random_matching(P, 1.0, seed=t)
        s = signs_with_disagreement(m, P, 0.1 + 0.02 * (t % 10), seed=1000 + t)
        e = tieaudit(s, m, eps, protocol=protocol, channel=channel, seed=t)
        f = disagreement_fraction(s, m)
        errs.append(e.value - f)
        etas.append(e.attenuation)
        covered += e.lo <= f <= e.hi
    return np.array(errs), np.array(etas), covered / trials


def test_a_known_twirl_fools_the_tests():
    errs, etas, covered = _attack_runs(DataOnlyAttack(0.5, knows_twirl=True), 20)
    assert np.all(errs > 0.05) and covered == 0  # f_hat pulled towards 1/2, intervals miss f
    assert np.all(np.abs(etas - 1) < 0.05)  # while the tests report no noise at all


@pytest.mark.parametrize("protocol", ["quantum", "entanglement_assisted"])
def test_the_secret_twirl_resists_the_data_only_attack(protocol):
    errs, etas, covered = _attack_runs(DataOnlyAttack(0.5), 40, protocol)
    assert np.sum(np.abs(errs) > 0.05) <= 6 and covered >= 0.85  # delta = 0.05 per run
    assert np.all(np.abs(etas - 0.5) < 0.1)  # the tests see the same noise as the data


def _correlated_instance(P=2**10, seed=3):
    """Pairs far apart in Hamming distance disagree, near ones agree."""
    m = random_matching(P, 1.0, seed=seed)
    hw = np.array([bin(int(a ^ b)).count("1") for a, b in m])
    s = np.random.default_rng(seed).choice(np.array([-1, 1], np.int8), P)
    s[m[:, 1]] = np.where(hw >= 6, -s[m[:, 0]], s[m[:, 0]])
    return s, m


def test_dephasing_biases_the_untwirled_estimate_and_the_twirl_removes_it():
    s, m = _correlated_instance()
    f = disagreement_fraction(s, m)
    bias = ratio_bias(s, m, Dephasing(0.05))
    assert bias < -0.05  # larger than eps: the estimate leaves the band
    assert ratio_bias(s, m, Depolarizing(0.05)) == 0.0
    twirled = [tieaudit(s, m, 0.05, channel=Dephasing(0.05), seed=t).value for t in range(8)]
    assert abs(np.mean(twirled) - f) < 0.01 and max(abs(v - f) for v in twirled) <= 0.05
    sweep = dephasing_sweep((0.05,), log2_P=10, min_distance=6, seeds=8, seed=3)
    assert abs(sweep.plain[0] - (sweep.f + sweep.bias[0])) < 0.015  # untwirled: f + bias
    assert abs(sweep.twirled[0] - sweep.f) < 0.015


def test_bad_channel_input():
    s, m = np.ones(8), [[0, 1], [2, 3]]
    with pytest.raises(TypeError, match="channel"):
        tieaudit(s, m, 0.1, channel="depolarizing")
    with pytest.raises(ValueError, match="channel"):
        tieaudit(s, m, 0.1, protocol="classical", channel=Depolarizing(0.1))
    with pytest.raises(ValueError, match="channel"):
        tieaudit(s, m, 0.1, protocol="entanglement_assisted", channel=DataOnlyAttack(0.1, True))
    with pytest.raises(ValueError, match="noise"):
        Depolarizing(1.0)
    with pytest.raises(TypeError, match="noise"):
        Dephasing("0.1")
    with pytest.raises(ValueError, match="fidelity"):
        LocalDepolarizing(0.2)
    with pytest.raises(TypeError, match="knows_twirl"):
        DataOnlyAttack(0.1, knows_twirl="yes")
    with pytest.raises(ValueError, match="no signal"):
        tieaudit(np.ones(2**12), [[0, 1]], 0.1, channel=Dephasing(0.8))
    with pytest.raises(TypeError, match="channel"):
        ratio_bias(s, m, DataOnlyAttack(0.1))
