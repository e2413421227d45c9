"""Holevo quantities against the textbook values of book/02_holevo.ipynb."""

import numpy as np
import pytest
from qiskit.quantum_info import DensityMatrix, Statevector, random_density_matrix

from qring_edu.holevo import (
    AccessibleInformation,
    accessible_information,
    dense_coding_capacity,
    holevo_chi,
    isotropic_capacity,
    mutual_information,
    optimal_measurement,
    shannon_entropy,
    von_neumann_entropy,
)
from qring_edu.superdense import isotropic_state

S = 1 / np.sqrt(2)
BB84 = [np.array([1, 0]), np.array([0, 1]), np.array([S, S]), np.array([S, -S])]
TRINE = [np.array([np.cos(t / 2), np.sin(t / 2)]) for t in (0, 2 * np.pi / 3, 4 * np.pi / 3)]
BELL = [
    np.array(v) / np.sqrt(2) for v in ([1, 0, 0, 1], [1, 0, 0, -1], [0, 1, 1, 0], [0, 1, -1, 0])
]


def h2(x):
    return 0.0 if x in (0, 1) else -x * np.log2(x) - (1 - x) * np.log2(1 - x)


def test_entropy_of_pure_and_maximally_mixed_states():
    assert von_neumann_entropy(np.array([1, 0])) == pytest.approx(0, abs=1e-12)
    assert von_neumann_entropy(np.eye(4) / 4) == pytest.approx(2, abs=1e-12)
    assert von_neumann_entropy(DensityMatrix(np.eye(2) / 2)) == pytest.approx(1, abs=1e-12)


def test_entropy_is_unitarily_invariant():
    rho = random_density_matrix(4, seed=7).data
    u, _ = np.linalg.qr(np.random.default_rng(1).standard_normal((4, 4)) + 0j)
    assert von_neumann_entropy(u @ rho @ u.conj().T) == pytest.approx(
        von_neumann_entropy(rho), abs=1e-9
    )


def test_bb84_chi_and_accessible_information():
    assert holevo_chi([0.25] * 4, BB84) == pytest.approx(1.0, abs=1e-12)
    assert accessible_information([0.25] * 4, BB84) == pytest.approx(0.5, abs=1e-4)


def test_trine_chi_and_accessible_information():
    assert holevo_chi([1 / 3] * 3, TRINE) == pytest.approx(1.0, abs=1e-12)
    assert accessible_information([1 / 3] * 3, TRINE) == pytest.approx(np.log2(3) - 1, abs=1e-3)


def test_bell_states_carry_two_bits():
    assert holevo_chi([0.25] * 4, BELL) == pytest.approx(2.0, abs=1e-12)
    assert accessible_information([0.25] * 4, BELL) == pytest.approx(2.0, abs=1e-4)


@pytest.mark.parametrize("c", [0.0, 0.3, 0.6, 0.9])
def test_two_pure_states(c):
    """chi = h((1+c)/2); the optimum (equal priors) is the symmetric Helstrom measurement:
    1 - h((1 - sqrt(1 - c^2)) / 2) (Levitin 1995)."""
    states = [np.array([1, 0]), np.array([c, np.sqrt(1 - c * c)])]
    assert holevo_chi([0.5, 0.5], states) == pytest.approx(h2((1 + c) / 2), abs=1e-10)
    expected = 1 - h2((1 - np.sqrt(1 - c * c)) / 2)
    assert accessible_information([0.5, 0.5], states) == pytest.approx(expected, abs=1e-4)


def test_accessible_information_is_below_chi_and_returns_a_povm():
    rng = np.random.default_rng(5)
    states = [
        Statevector(v / np.linalg.norm(v))
        for v in rng.standard_normal((6, 2)) + 1j * rng.standard_normal((6, 2))
    ]
    probs = rng.dirichlet(np.ones(6))
    res = optimal_measurement(probs, states)
    value = accessible_information(probs, states)
    assert isinstance(value, float) and not isinstance(value, AccessibleInformation)
    assert value == res.value
    assert accessible_information(probs, states) <= holevo_chi(probs, states)
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


# -- ensemble builders --------------------------------------------------------------------------
from qiskit import QuantumCircuit  # noqa: E402

from qring_edu import superdense_circuit  # noqa: E402
from qring_edu.holevo import (  # noqa: E402
    Ensemble,
    bb84_ensemble,
    binary_entropy,
    bloch_ensemble,
    bloch_measurement,
    bloch_vector,
    encoded_ensemble,
    superdense_ensemble,
    trine_ensemble,
    two_state_accessible,
    two_state_chi,
    two_state_ensemble,
)


def test_builders_reproduce_the_known_values():
    bb84, trine, bell = bb84_ensemble(), trine_ensemble(), superdense_ensemble()
    assert holevo_chi(*bb84) == pytest.approx(1.0, abs=1e-12)
    assert accessible_information(*bb84) == pytest.approx(0.5, abs=1e-4)
    assert holevo_chi(*trine) == pytest.approx(1.0, abs=1e-12)
    assert accessible_information(*trine) == pytest.approx(np.log2(3) - 1, abs=1e-4)
    assert holevo_chi(*bell) == pytest.approx(2.0, abs=1e-12)
    assert accessible_information(*bell) == pytest.approx(2.0, abs=1e-4)
    assert isinstance(bb84, Ensemble) and bb84.size == 4 and bb84.dim == 2 and bell.dim == 4
    assert repr(bb84) == "Ensemble(name='BB84', size=4, dim=2)"
    with pytest.raises(ValueError):
        bb84.probs[0] = 1.0  # read-only


def test_builders_match_the_explicit_state_lists():
    for ens, vecs in ((bb84_ensemble(), BB84), (trine_ensemble(), TRINE)):
        for rho, v in zip(ens.states, vecs):
            assert np.allclose(rho, np.outer(v, np.conj(v)), atol=1e-12)
    # Trine Bloch vectors: unit length, 120 degrees apart, in the x-z plane, summing to zero.
    r = trine_ensemble().bloch_vectors()
    assert np.allclose(np.linalg.norm(r, axis=1), 1) and np.allclose(r[:, 1], 0)
    assert np.allclose(r.sum(axis=0), 0, atol=1e-12)
    assert np.allclose(r @ r.T, np.where(np.eye(3) == 1, 1, -0.5))


def test_superdense_ensemble_is_the_bell_basis_in_the_library_bit_order():
    ens = superdense_ensemble()
    assert ens.labels == ("00", "01", "10", "11")
    for m, (x, z) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):
        # Bob's decoding (the second half of superdense_circuit) maps state m to the count key "xz".
        decode = QuantumCircuit(2)
        decode.cx(0, 1)
        decode.h(0)
        out = DensityMatrix(ens.states[m]).evolve(decode).probabilities_dict(decimals=12)
        assert out == {f"{x}{z}": 1.0}
        # ... and the unmeasured superdense_circuit (pair, Alice's X^x Z^z, Bob's decoding) ends
        # in the same state as our encoded state followed by Bob's decoding.
        full = superdense_circuit(x, z, measure=False)
        assert np.allclose(
            DensityMatrix(full).data, DensityMatrix(ens.states[m]).evolve(decode).data, atol=1e-12
        )
    # Bob's half alone is maximally mixed for every message: no signalling without the qubit.
    for rho in ens.states:
        assert np.allclose(rho.reshape(2, 2, 2, 2).trace(axis1=1, axis2=3), np.eye(2) / 2)


@pytest.mark.parametrize("F", [1.0, 0.95, 0.8107, 0.6, 0.25])
def test_noisy_superdense_ensemble_chi_equals_the_capacity(F):
    ens = superdense_ensemble(F)
    assert holevo_chi(*ens) == pytest.approx(isotropic_capacity(F), abs=1e-9)
    assert holevo_chi(*ens) == pytest.approx(dense_coding_capacity(isotropic_state(F)), abs=1e-9)


def test_encoded_ensemble_respects_qubit_order_and_validates():
    zero_plus = np.kron(
        np.array([1, 1]) / np.sqrt(2), np.array([1, 0])
    )  # qubit 0 = |0>, qubit 1 = |+>
    X = np.array([[0, 1], [1, 0]])
    flip0 = encoded_ensemble(zero_plus, [np.eye(2), X], alice_qubits=(0,))
    assert np.allclose(np.diag(flip0.states[1]).real, [0, 0.5, 0, 0.5])  # qubit 0 flipped to |1>
    flip1 = encoded_ensemble(zero_plus, [np.eye(2), X], alice_qubits=[1])
    assert np.allclose(flip1.states[1], flip1.states[0])  # X|+> = |+>
    assert holevo_chi(*flip0) == pytest.approx(1.0) and holevo_chi(*flip1) == pytest.approx(
        0.0, abs=1e-12
    )
    with pytest.raises(ValueError, match="unitary"):
        encoded_ensemble(zero_plus, [2 * np.eye(2)])
    with pytest.raises(ValueError, match=r"encodings\[0\] must have shape \(2, 2\)"):
        encoded_ensemble(zero_plus, [np.eye(4)])
    with pytest.raises(ValueError, match="alice_qubits"):
        encoded_ensemble(zero_plus, [np.eye(2)], alice_qubits=(2,))
    with pytest.raises(ValueError, match="shared_state"):
        encoded_ensemble(np.eye(3) / 3, [np.eye(2)])


def test_bloch_ensemble_and_vectors():
    th, ph = np.array([0.3, 1.2, 2.5]), np.array([0.0, 2.0, -1.0])
    ens = bloch_ensemble(th, ph, [0.2, 0.3, 0.5])
    n = np.stack([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)], axis=1)
    assert np.allclose(ens.bloch_vectors(), n)
    psi = np.array([np.cos(th[1] / 2), np.exp(1j * ph[1]) * np.sin(th[1] / 2)])
    assert np.allclose(ens.states[1], np.outer(psi, psi.conj()))
    mixed = bloch_ensemble(th, ph, [0.2, 0.3, 0.5], radii=[0.5, 1.0, 0.0])
    assert np.allclose(np.linalg.norm(mixed.bloch_vectors(), axis=1), [0.5, 1.0, 0.0])
    assert holevo_chi(*mixed) < holevo_chi(*ens)
    assert np.allclose(bloch_vector(np.eye(2) / 2), 0)
    assert np.allclose(bloch_vector(Statevector([0, 1])), [0, 0, -1])
    # The BB84 states from Bloch angles give the same chi.
    bb = bloch_ensemble([0, np.pi, np.pi / 2, np.pi / 2], [0, 0, 0, np.pi], [0.25] * 4)
    assert holevo_chi(*bb) == pytest.approx(1.0)


def test_bloch_measurement():
    povm = bloch_measurement(np.pi / 2, 0.0)  # measure X
    assert np.allclose(povm.sum(axis=0), np.eye(2))
    assert mutual_information(*bb84_ensemble(), povm) == pytest.approx(0.5, abs=1e-12)
    # Along the Bloch vector of a state: outcome 0 with certainty.
    ens = bloch_ensemble([1.1], [0.4], [1.0])
    assert np.trace(bloch_measurement(1.1, 0.4)[0] @ ens.states[0]).real == pytest.approx(1.0)
    with pytest.raises(ValueError, match="theta"):
        bloch_measurement(np.nan, 0.0)


@pytest.mark.parametrize("c", [0.0, 0.25, 0.5, 0.75, 1.0])
def test_two_state_closed_forms_match_the_numerics(c):
    ens = two_state_ensemble(c)
    assert holevo_chi(*ens) == pytest.approx(two_state_chi(c), abs=1e-10)
    assert accessible_information(*ens) == pytest.approx(two_state_accessible(c), abs=1e-4)
    assert two_state_accessible(c) <= two_state_chi(c) + 1e-12
    assert abs(np.vdot(*[np.linalg.eigh(r)[1][:, -1] for r in ens.states])) == pytest.approx(c)


def test_binary_entropy():
    assert binary_entropy(0.5) == pytest.approx(1.0)
    assert binary_entropy(0.0) == 0.0 and binary_entropy(1.0) == 0.0
    with pytest.raises(ValueError, match="p must be in"):
        binary_entropy(1.5)


def test_bad_builder_input_names_the_argument():
    with pytest.raises(ValueError, match="probs must sum to 1"):
        bloch_ensemble([0, 1], [0, 0], [0.5, 0.6])
    with pytest.raises(ValueError, match="phis has 1 entries but thetas has 2"):
        bloch_ensemble([0, 1], [0], [0.5, 0.5])
    with pytest.raises(ValueError, match="probs has 3 entries"):
        bloch_ensemble([0, 1], [0, 0], [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="radii must be in"):
        bloch_ensemble([0, 1], [0, 0], [0.5, 0.5], radii=[1.0, 1.5])
    with pytest.raises(ValueError, match="thetas must be finite"):
        bloch_ensemble([0, np.inf], [0, 0], [0.5, 0.5])
    with pytest.raises(TypeError, match="thetas"):
        bloch_ensemble(["a", "b"], [0, 0], [0.5, 0.5])
    with pytest.raises(ValueError, match="overlap must be in"):
        two_state_ensemble(1.2)
    with pytest.raises(ValueError, match="pair_fidelity"):
        superdense_ensemble(0.1)
    with pytest.raises(ValueError, match="qubit state"):
        bloch_vector(np.eye(4) / 4)


def test_dense_coding_threshold_is_where_the_isotropic_capacity_crosses_one_bit():
    from qring_edu import dense_coding_threshold

    F = dense_coding_threshold()
    assert f"{F:.4f}" == "0.8107"
    assert isotropic_capacity(F) == pytest.approx(1.0, abs=1e-9)
    assert isotropic_capacity(F - 1e-3) < 1.0 < isotropic_capacity(F + 1e-3)
    assert dense_coding_threshold(1.5) > F and dense_coding_threshold(0.0) == 0.25
    with pytest.raises(ValueError, match="level"):
        dense_coding_threshold(2.5)


def test_holevo_quantities_accept_the_numpy_isotropic_state():
    from qring_edu.states import isotropic_state as iso

    for F in (0.3, 0.9, 1.0):
        assert dense_coding_capacity(iso(F)) == pytest.approx(isotropic_capacity(F), abs=1e-12)
        assert dense_coding_capacity(iso(F)) == pytest.approx(
            dense_coding_capacity(isotropic_state(F)), abs=1e-12
        )
