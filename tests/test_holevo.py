"""Holevo quantities against the textbook values of DESIGN.md §4.5 and issue 3."""

import numpy as np
import pytest
from qiskit.quantum_info import DensityMatrix, Statevector, random_density_matrix

from qring_edu import isotropic_state
from qring_edu.holevo import (
    accessible_information,
    dense_coding_capacity,
    holevo_chi,
    isotropic_capacity,
    mutual_information,
    shannon_entropy,
    von_neumann_entropy,
)

S = 1 / np.sqrt(2)
BB84 = [np.array([1, 0]), np.array([0, 1]), np.array([S, S]), np.array([S, -S])]
TRINE = [np.array([np.cos(t / 2), np.sin(t / 2)]) for t in (0, 2 * np.pi / 3, 4 * np.pi / 3)]
BELL = [np.array(v) / np.sqrt(2) for v in ([1, 0, 0, 1], [1, 0, 0, -1], [0, 1, 1, 0], [0, 1, -1, 0])]


def h2(x):
    return 0.0 if x in (0, 1) else -x * np.log2(x) - (1 - x) * np.log2(1 - x)


def test_entropy_of_pure_and_maximally_mixed_states():
    assert von_neumann_entropy(np.array([1, 0])) == pytest.approx(0, abs=1e-12)
    assert von_neumann_entropy(np.eye(4) / 4) == pytest.approx(2, abs=1e-12)
    assert von_neumann_entropy(DensityMatrix(np.eye(2) / 2)) == pytest.approx(1, abs=1e-12)


def test_entropy_is_unitarily_invariant():
    rho = random_density_matrix(4, seed=7).data
    u, _ = np.linalg.qr(np.random.default_rng(1).standard_normal((4, 4)) + 0j)
    assert von_neumann_entropy(u @ rho @ u.conj().T) == pytest.approx(von_neumann_entropy(rho), abs=1e-9)


def test_bb84_chi_and_accessible_information():
    assert holevo_chi([0.25] * 4, BB84) == pytest.approx(1.0, abs=1e-12)
    assert accessible_information([0.25] * 4, BB84).value == pytest.approx(0.5, abs=1e-4)


def test_trine_chi_and_accessible_information():
    assert holevo_chi([1 / 3] * 3, TRINE) == pytest.approx(1.0, abs=1e-12)
    assert accessible_information([1 / 3] * 3, TRINE).value == pytest.approx(np.log2(3) - 1, abs=1e-3)


def test_bell_states_carry_two_bits():
    assert holevo_chi([0.25] * 4, BELL) == pytest.approx(2.0, abs=1e-12)
    assert accessible_information([0.25] * 4, BELL).value == pytest.approx(2.0, abs=1e-4)


@pytest.mark.parametrize("c", [0.0, 0.3, 0.6, 0.9])
def test_two_pure_states(c):
    """chi = h((1+c)/2); the optimum (equal priors) is the symmetric Helstrom measurement:
    1 - h((1 - sqrt(1 - c^2)) / 2) (Levitin 1995)."""
    states = [np.array([1, 0]), np.array([c, np.sqrt(1 - c * c)])]
    assert holevo_chi([0.5, 0.5], states) == pytest.approx(h2((1 + c) / 2), abs=1e-10)
    expected = 1 - h2((1 - np.sqrt(1 - c * c)) / 2)
    assert accessible_information([0.5, 0.5], states).value == pytest.approx(expected, abs=1e-4)


def test_accessible_information_is_below_chi_and_returns_a_povm():
    rng = np.random.default_rng(5)
    states = [Statevector(v / np.linalg.norm(v)) for v in
              rng.standard_normal((6, 2)) + 1j * rng.standard_normal((6, 2))]
    probs = rng.dirichlet(np.ones(6))
    res = accessible_information(probs, states)
    assert res.value <= holevo_chi(probs, states) + 1e-9
    assert np.allclose(res.povm.sum(axis=0), np.eye(2), atol=1e-8)
    assert mutual_information(probs, states, res.povm) == pytest.approx(res.value, abs=1e-9)


def test_mutual_information_of_computational_measurement():
    z = [np.diag([1, 0]), np.diag([0, 1])]
    assert mutual_information([0.5, 0.5], BB84[:2], z) == pytest.approx(1.0, abs=1e-12)
    # BB84 measured in Z: the X states give a coin flip -> I = 0.5
    assert mutual_information([0.25] * 4, BB84, z) == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("F", [1.0, 0.95, 0.9, 0.81, 0.5, 0.25])
def test_dense_coding_capacity_of_isotropic_pairs(F):
    p = (1 - F) / 3
    expected = 2 - shannon_entropy([F, p, p, p])
    assert dense_coding_capacity(isotropic_state(F)) == pytest.approx(expected, abs=1e-9)
    assert isotropic_capacity(F) == pytest.approx(expected, abs=1e-12)


def test_isotropic_capacity_threshold_near_0_8107():
    from scipy.optimize import brentq

    threshold = brentq(lambda f: isotropic_capacity(f) - 1.0, 0.5, 1.0)
    assert threshold == pytest.approx(0.8107, abs=5e-5)


def test_capacity_depends_on_which_qubit_is_alice():
    # Alice holds a maximally mixed qubit, Bob a pure one: product state, no help: 1 + 0 - 1 = 0
    rho = np.kron(np.diag([1.0, 0.0]), np.eye(2) / 2)  # qubit 1 pure |0>, qubit 0 mixed
    assert dense_coding_capacity(rho, alice_qubit=0) == pytest.approx(0.0, abs=1e-12)
    assert dense_coding_capacity(rho, alice_qubit=1) == pytest.approx(1.0 + 1.0 - 1.0, abs=1e-12)


@pytest.mark.parametrize(
    "rho, match",
    [
        (np.array([[0.5, 0.2], [0.1, 0.5]]), "Hermitian"),
        (np.array([[1.2, 0], [0, -0.2]]), "positive semidefinite"),
        (np.eye(2), "unit trace"),
        (np.array([1.0, 1.0]), "norm 1"),
        (np.ones((2, 3)) / 3, "square"),
        (np.array([[np.nan, 0], [0, 1]]), "finite"),
    ],
)
def test_bad_density_matrices(rho, match):
    with pytest.raises(ValueError, match=match):
        von_neumann_entropy(rho)


def test_bad_ensembles_and_povms():
    with pytest.raises(ValueError, match="probs must sum to 1"):
        holevo_chi([0.5, 0.6], BB84[:2])
    with pytest.raises(ValueError, match="probs must be non-negative"):
        holevo_chi([1.5, -0.5], BB84[:2])
    with pytest.raises(ValueError, match="same dimension"):
        holevo_chi([0.5, 0.5], [BB84[0], BELL[0]])
    with pytest.raises(ValueError, match="2 states"):
        holevo_chi([1.0], BB84[:2])
    with pytest.raises(ValueError, match="sum to the identity"):
        mutual_information([0.5, 0.5], BB84[:2], [np.diag([1, 0]), np.diag([0, 0.5])])
    with pytest.raises(ValueError, match="positive semidefinite"):
        mutual_information([0.5, 0.5], BB84[:2], [np.diag([2, 0]), np.diag([-1, 1])])
    with pytest.raises(ValueError, match=r"povm\[0\] must have shape \(2, 2\)"):
        mutual_information([0.5, 0.5], BB84[:2], [np.eye(4)])
    with pytest.raises(ValueError, match="at least 2 qubits"):
        dense_coding_capacity(np.eye(2) / 2)
