"""Chapter 2 exercise checkers (qring_edu.exercises.holevo)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qring_edu import isotropic_capacity
from qring_edu.exercises._base import Feedback
from qring_edu.exercises.holevo import (
    check_chi_bb84,
    check_dense_capacity,
    check_max_bits,
    check_povm,
    check_two_state_chi,
)
from qring_edu.holevo import trine_ensemble, two_state_chi

GARBAGE = [
    "three",
    "",
    [1, 2],
    {"a": 1},
    True,
    float("nan"),
    float("inf"),
    np.array([1.0, 2.0]),
    object(),
    1j,
]


def _all_fail_quietly(check, **kwargs):
    for junk in GARBAGE:
        fb = check(junk, **kwargs)
        assert isinstance(fb, Feedback) and not fb.passed and fb.message


CHECKS = [
    (check_chi_bb84, {}),
    (check_two_state_chi, {"overlap": 0.6}),
    (check_max_bits, {"n_qubits": 3}),
    (check_dense_capacity, {"pair_fidelity": 0.9}),
    (check_povm, {}),
    (check_povm, {"ensemble": "trine", "optimal": True}),
]


@pytest.mark.parametrize("check, kwargs", CHECKS)
def test_none_is_not_attempted_and_garbage_fails_quietly(check, kwargs):
    fb = check(None, **kwargs)
    assert not fb.passed and "Not attempted" in fb.message
    _all_fail_quietly(check, **kwargs)


def test_chi_bb84():
    assert check_chi_bb84(1.0).passed and check_chi_bb84(np.float64(0.9999)).passed
    assert "H(X)" in check_chi_bb84(2.0).message
    assert "accessible information" in check_chi_bb84(0.5).message
    assert not check_chi_bb84(0.0).passed and not check_chi_bb84(0.8).passed


def test_two_state_chi():
    c = 0.6
    assert check_two_state_chi(two_state_chi(c), overlap=c).passed
    helstrom = 1 - (
        -(lambda p: p * math.log2(p) + (1 - p) * math.log2(1 - p))((1 - math.sqrt(1 - c * c)) / 2)
    )
    assert "accessible information" in check_two_state_chi(helstrom, overlap=c).message
    assert "eigenvalue" in check_two_state_chi(0.8, overlap=c).message
    assert not check_two_state_chi(0.5, overlap=c).passed
    assert "invalid" in check_two_state_chi(0.5, overlap=1.5).message


def test_max_bits():
    assert check_max_bits(6, n_qubits=3).passed and check_max_bits(6.0, n_qubits=3).passed
    assert "without" in check_max_bits(3, n_qubits=3).message
    assert "basis states" in check_max_bits(8, n_qubits=3).message
    assert "messages" in check_max_bits(64, n_qubits=3).message
    assert "exceeds" in check_max_bits(7, n_qubits=3).message
    assert check_max_bits(2, n_qubits=1).passed
    assert not check_max_bits(2, n_qubits=0).passed


def test_dense_capacity():
    assert check_dense_capacity(isotropic_capacity(0.9), pair_fidelity=0.9).passed
    H = 2 - isotropic_capacity(0.9)
    assert "S(ρ_AB)" in check_dense_capacity(H, pair_fidelity=0.9).message
    h = -(0.9 * math.log2(0.9) + 0.1 * math.log2(0.1))
    assert "binary entropy" in check_dense_capacity(2 - h, pair_fidelity=0.9).message
    assert not check_dense_capacity(1.5, pair_fidelity=0.9).passed
    assert "invalid" in check_dense_capacity(1.0, pair_fidelity=0.1).message


def _anti_trine():
    ens = trine_ensemble()
    return [2 / 3 * (np.eye(2) - rho) for rho in ens.states]


def test_povm_validity_messages():
    z = [np.diag([1, 0]), np.diag([0, 1])]
    assert check_povm(z).passed and check_povm(np.array(z)).passed
    assert check_povm([np.eye(4)], d=4).passed
    fb = check_povm([np.array([[1, 1], [0, 0]]), np.diag([0, 1])])
    assert not fb.passed and "element 0 is not Hermitian" in fb.message
    fb = check_povm([np.diag([1.5, 0]), np.diag([-0.5, 1])])
    assert not fb.passed and "element 1 has a negative eigenvalue" in fb.message
    fb = check_povm([np.diag([1, 0]), np.diag([0, 0.5])])
    assert not fb.passed and "identity" in fb.message and "Rescale" in fb.message
    fb = check_povm([np.eye(3)])
    assert not fb.passed and "2x2" in fb.message
    assert "empty" in check_povm([]).message
    assert not check_povm([[1, 0], [0, 1]]).passed  # a single matrix, not a list of matrices
    assert "invalid" in check_povm(z, d=0).message
    assert "invalid" in check_povm(z, ensemble="GHZ").message


def test_povm_on_the_trine():
    anti = _anti_trine()
    fb = check_povm(anti, ensemble="trine", optimal=True)
    assert fb.passed and "optimal" in fb.message
    z = [np.diag([1, 0]), np.diag([0, 1])]
    assert check_povm(z, ensemble="trine").passed  # valid, reports I
    fb = check_povm(z, ensemble="trine", optimal=True)
    assert not fb.passed and "only" in fb.message
    # The trine POVM's own elements (2/3)|ψ_k><ψ_k| also sum to I but are not optimal.
    pretty_good = [2 / 3 * rho for rho in trine_ensemble().states]
    assert not check_povm(pretty_good, ensemble="trine", optimal=True).passed
    assert check_povm(pretty_good).passed


# --- ex-holevo-1 with unequal probabilities, ex-holevo-chi-code (χ from eigenvalues) ---------

SKEWED = (1 / 2, 1 / 6, 1 / 6, 1 / 6)


def test_chi_bb84_with_unequal_probabilities():
    from qring_edu.holevo import binary_entropy

    # average state diag(2/3, 1/3): χ = h(1/3)
    assert check_chi_bb84(binary_entropy(1 / 3), probs=SKEWED).passed
    wrong_uniform = check_chi_bb84(1.0, probs=SKEWED)
    assert not wrong_uniform.passed and "equal probabilities" in wrong_uniform.message
    assert "H(X)" in check_chi_bb84(1 + 0.5 * math.log2(3), probs=SKEWED).message
    assert "invalid" in check_chi_bb84(0.9, probs=(0.5, 0.5, 0.5, 0.5)).message
    assert "invalid" in check_chi_bb84(0.9, probs=(1.0, 0.0)).message
    # a non-diagonal average state: the entropy of the diagonal is a recognised slip
    tilted = (0.5, 1 / 6, 1 / 3, 0.0)
    diag_h = binary_entropy(1 / 3)
    fb = check_chi_bb84(diag_h, probs=tilted)
    assert not fb.passed and "eigenvalues" in fb.message


def _entropy(rho):
    lam = np.linalg.eigvalsh(rho)
    lam = lam[lam > 1e-12]
    return float(-(lam * np.log2(lam)).sum())


def _my_chi(probs, states):
    average = np.einsum("x,xij->ij", probs, states)
    return _entropy(average) - sum(p * _entropy(r) for p, r in zip(probs, states))


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_chi_code_correct_answer_passes(seed):
    from qring_edu.exercises.holevo import check_chi_code

    fb = check_chi_code(_my_chi, seed=seed)
    assert fb.passed, fb.message


def test_chi_code_wrong_answers_fail_with_a_hint():
    from qring_edu.exercises.holevo import check_chi_code

    def nats(probs, states):
        return _my_chi(probs, states) * math.log(2)

    def average_only(probs, states):
        return _entropy(np.einsum("x,xij->ij", probs, states))

    def unweighted(probs, states):
        s = [_entropy(r) for r in states]
        return _entropy(np.einsum("x,xij->ij", probs, states)) - float(np.mean(s))

    def diagonal(probs, states):
        def h(rho):
            q = np.diag(rho).real
            q = q[q > 1e-12]
            return float(-(q * np.log2(q)).sum())

        return h(np.einsum("x,xij->ij", probs, states)) - sum(
            p * h(r) for p, r in zip(probs, states)
        )

    def no_zero_guard(probs, states):
        def h(rho):
            lam = np.linalg.eigvalsh(rho)
            return float(-(lam * np.log2(lam)).sum())

        return h(np.einsum("x,xij->ij", probs, states)) - sum(
            p * h(r) for p, r in zip(probs, states)
        )

    for fn, hint in (
        (nats, "np.log2"),
        (average_only, "alone"),
        (unweighted, "weight"),
        (diagonal, "eigenvalues"),
        (no_zero_guard, "0 · log 0"),
    ):
        with np.errstate(all="ignore"):
            fb = check_chi_code(fn)
        assert not fb.passed and hint in fb.message, (fn.__name__, fb.message)
    assert not check_chi_code(lambda probs, states: 0.5).passed


def test_chi_code_refuses_the_library_and_restores_it():
    import qring_edu as qr
    from qring_edu.exercises.holevo import check_chi_code

    def calls_entropy(probs, states):
        average = np.einsum("x,xij->ij", probs, states)
        return qr.von_neumann_entropy(average) - sum(
            p * qr.von_neumann_entropy(r) for p, r in zip(probs, states)
        )

    def alias(probs, states, _chi=qr.holevo_chi):
        return _chi(probs, states)

    for fn, name in (
        (qr.holevo_chi, "holevo_chi"),
        (calls_entropy, "von_neumann_entropy"),
        (alias, "holevo_chi"),
        (lambda p, s: qr.holevo_chi(p, s), "holevo_chi"),
    ):
        fb = check_chi_code(fn)
        assert not fb.passed and f"{name} is not allowed" in fb.message, fb.message
    # switched off only while the reader's function runs
    assert abs(qr.holevo_chi([0.5, 0.5], [[1, 0], [0, 1]]) - 1.0) < 1e-12
    assert qr.von_neumann_entropy(np.eye(2) / 2) == 1.0


def test_chi_code_not_attempted_and_bad_input():
    from qring_edu.exercises.holevo import check_chi_code

    def stub(probs, states):
        raise NotImplementedError

    for answer in (None, stub, lambda p, s: None):
        fb = check_chi_code(answer)
        assert not fb.passed and "Not attempted" in fb.message
    assert "expected your function" in check_chi_code(0.5).message
    assert "invalid" in check_chi_code(_my_chi, seed=-1).message
    crash = check_chi_code(lambda p, s: 1 / 0)
    assert not crash.passed and "ZeroDivisionError" in crash.message
    assert "expected a number" in check_chi_code(lambda p, s: "0.5").message
