"""TieAudit_ε noise and verification: hidden test copies that a
channel cannot recognise, the data-only attack, dephasing and the bias of the ratio estimator."""

from __future__ import annotations

import math

import numpy as np
import pytest
from qiskit.quantum_info import DensityMatrix, Kraus, Operator, Statevector, random_clifford

from qring_edu.sign_audit import (
    _measurement_unitary,
    copy_y_law,
    disagreement_fraction,
    outcome_index,
    outcome_probabilities,
    random_matching,
    ratio_bias,
    signs_with_disagreement,
    tieaudit,
    tieaudit_circuit,
    walsh_hadamard,
)


def _z(b, P):
    return np.diag([(-1.0) ** bin(b & i).count("1") for i in range(P)])


def _noise_kraus(P, noise, model):
    n = P.bit_length() - 1
    if model == "depolarizing":
        eye = np.eye(P)
        return [math.sqrt(1 - noise) * eye] + [
            math.sqrt(noise / P) * np.outer(eye[k], eye[l]) for k in range(P) for l in range(P)
        ]
    return [
        math.sqrt(noise ** bin(e).count("1") * (1 - noise) ** (n - bin(e).count("1"))) * _z(e, P)
        for e in range(P)
    ]


def _qiskit_law(x, m, noise, model, attack, padded, clifford=None):
    """(P(+1), P(-1)) by Qiskit density matrices: pad (or Clifford), Kraus channel of the
    attack, unpad, the client's basis change, Born rule; averaged over every pad."""
    P = len(x)
    psi = np.asarray(x, float) / math.sqrt(P)
    one = np.full(P, 1 / math.sqrt(P))
    Pi = np.outer(one, one)
    ks = _noise_kraus(P, noise, model)
    if attack == "data_only":
        ks = [Pi] + [k @ (np.eye(P) - Pi) for k in ks]
    channel = Kraus([np.asarray(k, complex) for k in ks])
    V = _measurement_unitary(np.asarray(m), P)
    idx = outcome_index(m, P)
    frames = clifford if clifford is not None else [_z(b, P) for b in (range(P) if padded else [0])]
    acc = np.zeros(2)
    for C in frames:
        out = DensityMatrix(C @ psi).evolve(channel).evolve(Operator(V @ C.conj().T))
        pr = out.probabilities()[idx]
        acc += [pr[0 : 2 * len(m) : 2].sum(), pr[1 : 2 * len(m) : 2].sum()]
    return acc / len(frames)


def test_walsh_hadamard_is_the_hadamard_matrix():
    H = np.array([[(-1) ** bin(b & k).count("1") for k in range(16)] for b in range(16)])
    v = np.random.default_rng(0).standard_normal(16)
    assert np.allclose(walsh_hadamard(v), H @ v)
    with pytest.raises(ValueError, match="2\\^n"):
        walsh_hadamard(np.ones(6))


@pytest.mark.parametrize("model", ["depolarizing", "dephasing"])
@pytest.mark.parametrize("attack", ["uniform", "data_only"])
@pytest.mark.parametrize("strings", ["random", "fixed"])
def test_copy_law_matches_qiskit_density_matrices(model, attack, strings):
    P = 8
    rng = np.random.default_rng(3)
    for alpha, x in [
        (1.0, np.ones(P, int)),
        (0.75, rng.choice([-1, 1], P)),
        (0.5, rng.choice([-1, 1], P)),
    ]:
        m = random_matching(P, alpha, seed=int(10 * alpha))
        got = copy_y_law(x, m, noise=0.3, noise_model=model, attack=attack, test_strings=strings)
        want = _qiskit_law(x, m, 0.3, model, attack, strings == "random")
        assert np.allclose(got, want, atol=1e-12)


def test_pads_hide_the_test_strings():
    P = 8
    m = random_matching(P, 1.0, seed=0)
    s = signs_with_disagreement(m, P, 0.5, seed=1)
    for x in (s, np.ones(P)):
        psi = x / math.sqrt(P)
        avg = sum(_z(b, P) @ np.outer(psi, psi) @ _z(b, P) for b in range(P)) / P
        assert np.allclose(avg, np.eye(P) / P)  # every copy travels as I/P
    # The padded circuit gives the client exactly the unpadded outcome law.
    probs, _ = outcome_probabilities(s, m)
    idx = outcome_index(m, P)
    for b in range(P):
        sv = Statevector(tieaudit_circuit(s, m, measure=False, pad=b)).probabilities()
        assert np.allclose(sv[idx], probs, atol=1e-10)


def test_fixed_test_state_is_recognised_without_disturbance():
    P = 2**12
    m = random_matching(P, 1.0, seed=0)
    s = signs_with_disagreement(m, P, 0.3, seed=1)
    ones = np.ones(P, int)
    # A fixed test copy is found with certainty and passes untouched: eta_hat would read 1.
    p, q = copy_y_law(ones, m, noise=0.6, attack="data_only", test_strings="fixed")
    assert math.isclose(p - q, 1.0)
    # A data copy is found with probability (sum s / P)^2 (small) and otherwise depolarised.
    c2 = (s.sum() / P) ** 2
    assert c2 < 1e-3
    p, q = copy_y_law(s, m, noise=0.6, attack="data_only", test_strings="fixed")
    assert abs((p - q) - 0.4 * (1 - 2 * 0.3)) < 2e-3
    # With pads a test copy is found only when its pad is b = 0 (probability 1/P).
    p, q = copy_y_law(ones, m, noise=0.6, attack="data_only")
    assert math.isclose(p - q, 0.4 + 0.6 / P)


def _run_attack(strings, trials, protocol="quantum"):
    P, eps, noise = 2**12, 0.05, 0.5
    errs, etas = [], []
    for t in range(trials):
        m = random_matching(P, 1.0, seed=t)
        s = signs_with_disagreement(m, P, 0.1 + 0.02 * (t % 10), seed=1000 + t)
        e = tieaudit(
            s,
            m,
            eps,
            protocol=protocol,
            noise=noise,
            attack="data_only",
            test_strings=strings,
            bound="exact",
            seed=t,
        )
        errs.append(e.value - disagreement_fraction(s, m))
        etas.append(e.attenuation)
    return np.array(errs), np.array(etas)


def test_fixed_test_strings_are_fooled_by_the_data_only_attack():
    errs, etas = _run_attack("fixed", 20)
    assert np.all(errs > 0.05)  # every estimate pushed up, outside ±eps ...
    assert np.all(np.abs(etas - 1) < 0.05)  # ... while the tests report no noise at all
    assert abs(np.mean(errs) - np.mean(0.25 - (0.1 + 0.02 * (np.arange(20) % 10)) / 2)) < 0.02


@pytest.mark.parametrize("protocol", ["quantum", "entanglement_assisted"])
def test_random_test_strings_resist_the_data_only_attack(protocol):
    errs, etas = _run_attack("random", 40, protocol)
    assert np.sum(np.abs(errs) > 0.05) <= 6  # delta = 0.05 per run
    assert np.all(np.abs(etas - 0.5) < 0.1)  # the tests see the same noise as the data


def test_dephasing_law_and_expected_y():
    P = 8
    m = random_matching(P, 0.75, seed=4)
    s = signs_with_disagreement(m, P, 0.34, seed=5)
    probs, y = outcome_probabilities(s, m, 0.2, noise_model="dephasing")
    channel = Kraus([np.asarray(k, complex) for k in _noise_kraus(P, 0.2, "dephasing")])
    rho = DensityMatrix(s / math.sqrt(P)).evolve(channel)
    got = rho.evolve(Operator(_measurement_unitary(m, P))).probabilities()[outcome_index(m, P)]
    assert np.allclose(probs, got, atol=1e-12)
    hw = np.array([bin(int(a ^ b)).count("1") for a, b in m])
    ey = 2 / P * np.sum(s[m[:, 0]] * s[m[:, 1]] * 0.6**hw)
    assert math.isclose(float(probs @ y), ey, abs_tol=1e-12)
    assert math.isclose(probs[y != 0].sum(), 2 * len(m) / P)  # dephasing keeps the pair weight


def _correlated_instance(P=2**10, seed=3):
    """Pairs far apart in Hamming distance disagree, near ones agree."""
    m = random_matching(P, 1.0, seed=seed)
    hw = np.array([bin(int(a ^ b)).count("1") for a, b in m])
    s = np.random.default_rng(seed).choice(np.array([-1, 1], np.int8), P)
    s[m[:, 1]] = np.where(hw >= 6, -s[m[:, 0]], s[m[:, 0]])
    return s, m


def test_ratio_is_biased_under_dephasing_and_the_clifford_twirl_removes_it():
    s, m = _correlated_instance()
    f = disagreement_fraction(s, m)
    bias = ratio_bias(s, m, 0.05)
    assert bias < -0.05  # larger than eps: the estimate leaves the band
    assert abs(ratio_bias(s, m, 0.05, noise_model="depolarizing")) < 1e-12
    deph = [
        tieaudit(s, m, 0.05, noise=0.05, noise_model="dephasing", seed=t).value for t in range(8)
    ]
    assert abs(np.mean(deph) - (f + bias)) < 0.01
    twirled = [
        tieaudit(s, m, 0.05, noise=0.05, noise_model="dephasing", twirl="clifford", seed=t).value
        for t in range(8)
    ]
    assert abs(np.mean(twirled) - f) < 0.01 and max(abs(v - f) for v in twirled) <= 0.05


def test_clifford_twirl_law_against_random_cliffords():
    n = 2  # P = 4 coordinates
    m = np.array([[0, 3], [1, 2]])
    x = np.array([1, -1, -1, 1])  # f = 0
    rng = np.random.default_rng(1)
    frames = [
        random_clifford(n, seed=int(rng.integers(2**31))).to_operator().data for _ in range(1500)
    ]
    for model, attack in [("dephasing", "uniform"), ("depolarizing", "data_only")]:
        want = _qiskit_law(x, m, 0.3, model, attack, True, clifford=frames)
        got = copy_y_law(x, m, noise=0.3, noise_model=model, attack=attack, twirl="clifford")
        assert np.allclose(got, want, atol=0.02)


def test_bad_attack_input():
    s, m = np.ones(8), [[0, 1], [2, 3]]
    with pytest.raises(ValueError, match="attack"):
        tieaudit(s, m, 0.1, attack="smart")
    with pytest.raises(ValueError, match="test_strings"):
        tieaudit(s, m, 0.1, test_strings="secret")
    with pytest.raises(ValueError, match="noise_model"):
        tieaudit(s, m, 0.1, noise_model="amplitude_damping")
    with pytest.raises(ValueError, match="twirl"):
        tieaudit(s, m, 0.1, twirl="pauli")
    with pytest.raises(ValueError, match="test_strings='random'"):
        tieaudit(s, m, 0.1, twirl="clifford", test_strings="fixed")
    with pytest.raises(ValueError, match="entanglement_assisted"):
        tieaudit(s, m, 0.1, protocol="entanglement_assisted", test_strings="fixed")
    with pytest.raises(ValueError, match="quantum protocols only"):
        tieaudit(s, m, 0.1, protocol="classical", attack="data_only")
    with pytest.raises(ValueError, match="pad"):
        tieaudit_circuit(s, m, pad=8)
    with pytest.raises(ValueError, match="no signal"):
        tieaudit(np.ones(2**12), [[0, 1]], 0.1, noise=0.8, noise_model="dephasing")
