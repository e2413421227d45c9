"""The NumPy state helpers of the core (qring_edu.states) against Qiskit's quantum_info."""

import numpy as np
import pytest
from qiskit import QuantumCircuit
from qiskit.quantum_info import (
    DensityMatrix,
    Operator,
    Statevector,
    random_density_matrix,
    random_unitary,
)
from qiskit.quantum_info import partial_trace as qk_ptrace

from qring_edu import superdense
from qring_edu.states import (
    BELL_LABELS,
    PAULIS,
    as_array,
    as_density_matrix,
    bell_state,
    bloch_vector,
    embed_operator,
    from_bloch,
    isotropic_state,
    partial_trace,
    pure_qubit,
)


def test_bell_states_are_x_then_z_on_alice_applied_to_phi_plus():
    for (x, z), label in zip([(0, 0), (0, 1), (1, 0), (1, 1)], BELL_LABELS):
        qc = QuantumCircuit(2)
        qc.h(0)
        qc.cx(0, 1)
        if x:
            qc.x(0)
        if z:
            qc.z(0)
        assert np.allclose(Statevector(qc).data, bell_state(label), atol=1e-12)
    with pytest.raises(ValueError, match="name must be one of"):
        bell_state("phi")


@pytest.mark.parametrize("F", [0.25, 0.5, 0.81, 0.99, 1.0])
def test_isotropic_state_is_a_pauli_mixture_with_fidelity_F(F):
    rho = isotropic_state(F)
    phi = Statevector(bell_state("phi+"))
    assert DensityMatrix(rho).is_valid()
    assert float(np.real(phi.data.conj() @ rho @ phi.data)) == pytest.approx(F, abs=1e-12)
    p = (1 - F) / 3
    mix = F * np.outer(phi.data, phi.data.conj())
    for P in ("X", "Y", "Z"):
        on_a = embed_operator(PAULIS[P], [0], 2)
        mix = mix + p * on_a @ np.outer(phi.data, phi.data.conj()) @ on_a.conj().T
    assert np.allclose(rho, mix, atol=1e-12)
    # the Qiskit-path wrapper is the same matrix
    assert np.allclose(superdense.isotropic_state(F).data, rho, atol=1e-15)


@pytest.mark.parametrize("F", [0.2, 1.01, float("nan")])
def test_isotropic_state_refuses_fidelities_outside_the_model(F):
    with pytest.raises(ValueError, match="pair_fidelity"):
        isotropic_state(F)


@pytest.mark.parametrize("keep", [[0], [1], [2], [0, 2], [1, 2], [0, 1, 2]])
def test_partial_trace_matches_qiskit(keep):
    rho = random_density_matrix(8, seed=3)
    traced = [q for q in range(3) if q not in keep]
    expected = qk_ptrace(rho, traced).data if traced else rho.data
    assert np.allclose(partial_trace(rho.data, keep), expected, atol=1e-12)


@pytest.mark.parametrize("n, qargs", [(1, [0]), (2, [1]), (3, [2, 0]), (4, [1, 3, 0])])
def test_embed_operator_matches_qiskit_compose(n, qargs):
    u = random_unitary(2 ** len(qargs), seed=n).data
    ref = Operator(np.eye(2**n)).compose(Operator(u), qargs=qargs).data
    assert np.allclose(embed_operator(u, qargs, n), ref, atol=1e-12)
    with pytest.raises(ValueError, match="qargs must be distinct"):
        embed_operator(np.eye(4), [0, 0], 2)
    with pytest.raises(ValueError, match="u must have shape"):
        embed_operator(np.eye(2), [0, 1], 2)


def test_density_matrix_checks_name_the_argument():
    assert np.allclose(as_density_matrix(Statevector([0, 1])), np.diag([0, 1]))
    with pytest.raises(ValueError, match="rho_x must have unit trace"):
        as_density_matrix(np.eye(2), "rho_x")
    with pytest.raises(ValueError, match="positive semidefinite"):
        as_density_matrix(np.diag([1.5, -0.5]))
    with pytest.raises(ValueError, match="norm 1"):
        as_density_matrix([1, 1])


def test_bloch_round_trip():
    rng = np.random.default_rng(0)
    for _ in range(20):
        theta, phi = rng.uniform(0, np.pi), rng.uniform(0, 2 * np.pi)
        psi = pure_qubit(theta, phi)
        n = [np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)]
        assert np.allclose(bloch_vector(psi), n, atol=1e-12)
        assert np.allclose(from_bloch(n), np.outer(psi, psi.conj()), atol=1e-12)
    with pytest.raises(ValueError, match="length <= 1"):
        from_bloch([1, 1, 0])


def test_as_array_reads_qiskit_objects_only():
    assert as_array([1, 0]) == [1, 0]
    np.testing.assert_array_equal(as_array(Statevector([0, 1])), [0, 1])
    np.testing.assert_array_equal(as_array(DensityMatrix(np.eye(2) / 2)), np.eye(2) / 2)


def test_isotropic_state_is_a_pauli_error_on_alice():
    """The Werner pair of fidelity F is |Φ+⟩ followed by X, Y, Z on A each with (1 - F)/3: the
    model qring_edu.noise draws its errors from (Bell coefficients in frame-code order)."""
    from qring_edu.noise import PAULI_NAMES, depolarizing

    F = 0.8
    rho = isotropic_state(F)
    phi = bell_state("phi+")
    for p, name in zip(depolarizing(F).probabilities, PAULI_NAMES):
        v = embed_operator(PAULIS[name], [0], 2) @ phi
        assert float(np.real(v.conj() @ rho @ v)) == pytest.approx(p, abs=1e-12)
