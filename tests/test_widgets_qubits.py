"""Chapter 0 experiments, figures and widgets (qring_edu.experiments/figures/widgets .qubits)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from qring_edu.experiments.qubits import MAX_SHOTS, measure_qubit, run_bell_pair
from qring_edu.figures import qubits as figs
from qring_edu.holevo import von_neumann_entropy
from qring_edu.states import bell_state, isotropic_state
from qring_edu.widgets import LiveFigure
from qring_edu.widgets._base import ExplorerSpec
from qring_edu.widgets.qubits import bell_pair_widget, noisy_pair_widget, qubit_measurement_widget


def _png(w: LiveFigure) -> bytes:
    return bytes(w.image.value)


# -- measure_qubit ------------------------------------------------------------------------------
@pytest.mark.parametrize("theta, phi", [(0.0, 0.0), (math.pi / 3, 0.0), (2.0, 1.0), (math.pi, 4.0)])
def test_born_rule_in_both_bases(theta, phi):
    z = measure_qubit(theta, phi, basis="Z", shots=1)
    x = measure_qubit(theta, phi, basis="X", shots=1)
    assert z.probabilities == pytest.approx([math.cos(theta / 2) ** 2, math.sin(theta / 2) ** 2])
    p_plus = (1 + math.sin(theta) * math.cos(phi)) / 2
    assert x.probabilities == pytest.approx([p_plus, 1 - p_plus])
    assert np.linalg.norm(z.state) == pytest.approx(1.0)
    assert z.bloch == pytest.approx(
        [math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi), math.cos(theta)]
    )


def test_sampled_frequencies_follow_the_probabilities():
    run = measure_qubit(math.pi / 3, 0.5, basis="X", shots=200_000, seed=11)
    assert run.counts.sum() == run.shots
    assert np.all(np.abs(run.frequencies - run.probabilities) <= 4 * run.standard_errors)


def test_measure_qubit_is_deterministic_for_a_seed_and_checks_its_arguments():
    a = measure_qubit(1.0, 2.0, shots=500, seed=4)
    assert np.array_equal(a.counts, measure_qubit(1.0, 2.0, shots=500, seed=4).counts)
    assert not np.array_equal(a.counts, measure_qubit(1.0, 2.0, shots=500, seed=5).counts)
    with pytest.raises(ValueError, match="basis"):
        measure_qubit(1.0, basis="Y")
    with pytest.raises(ValueError, match="shots"):
        measure_qubit(1.0, shots=MAX_SHOTS + 1)
    with pytest.raises(ValueError, match="shots"):
        measure_qubit(1.0, shots=0)
    with pytest.raises(TypeError, match="theta"):
        measure_qubit("1.0")
    with pytest.raises(ValueError, match="seed"):
        measure_qubit(1.0, seed=-1)


# -- run_bell_pair ------------------------------------------------------------------------------
#: (x, z) -> (Bell state, bits agree in Z, bits agree in X)
BELL = {
    (0, 0): ("phi+", 1.0, 1.0),
    (0, 1): ("phi-", 1.0, 0.0),
    (1, 0): ("psi+", 0.0, 1.0),
    (1, 1): ("psi-", 0.0, 0.0),
}


@pytest.mark.parametrize("xz", list(BELL))
def test_alice_gates_make_the_four_bell_states(xz):
    label, agree_z, agree_x = BELL[xz]
    z_run = run_bell_pair(*xz, basis="Z", shots=2000, seed=1)
    x_run = run_bell_pair(*xz, basis="X", shots=2000, seed=1)
    beta = bell_state(label)
    assert z_run.label == label
    assert np.allclose(z_run.rho, np.outer(beta, beta.conj()))
    assert z_run.agreement == pytest.approx(agree_z) and x_run.agreement == pytest.approx(agree_x)
    assert z_run.sampled_agreement == agree_z and x_run.sampled_agreement == agree_x
    # each bit alone is a fair coin, and Bob's half is I/2 whatever Alice did
    assert np.allclose(z_run.bob_state, np.eye(2) / 2) and np.allclose(
        z_run.alice_state, np.eye(2) / 2
    )
    assert abs(z_run.alice_ones - 0.5) <= 4 * math.sqrt(0.25 / 2000)
    assert z_run.entropy == pytest.approx(0.0, abs=1e-9) and z_run.alice_entropy == pytest.approx(
        1.0
    )


@pytest.mark.parametrize("F", [0.25, 0.6, 0.8, 1.0])
def test_noisy_pair(F):
    for basis in ("Z", "X"):
        run = run_bell_pair(pair_fidelity=F, basis=basis, shots=20_000, seed=2)
        assert run.agreement == pytest.approx((1 + 2 * F) / 3)
        assert abs(run.sampled_agreement - run.agreement) <= 4 * math.sqrt(0.25 / 20_000)
        assert run.bell_weights == pytest.approx([F] + [(1 - F) / 3] * 3)
        assert run.entropy == pytest.approx(von_neumann_entropy(isotropic_state(F)))
        assert run.alice_entropy == pytest.approx(1.0)


def test_run_bell_pair_checks_its_arguments():
    with pytest.raises(ValueError, match="x"):
        run_bell_pair(2, 0)
    with pytest.raises(ValueError, match="pair_fidelity"):
        run_bell_pair(pair_fidelity=0.2)
    with pytest.raises(ValueError, match="basis"):
        run_bell_pair(basis="x")
    assert np.array_equal(run_bell_pair(seed=9).counts, run_bell_pair(seed=9).counts)


# -- figures ------------------------------------------------------------------------------------
def test_figures_are_figures():
    assert isinstance(figs.plot_qubit_measurement(measure_qubit(1.0, basis="X")), Figure)
    assert isinstance(figs.plot_bell_pair(run_bell_pair(1, 1, basis="X")), Figure)
    assert isinstance(figs.plot_noisy_pair(run_bell_pair(pair_fidelity=0.4)), Figure)


# -- widgets ------------------------------------------------------------------------------------
def test_qubit_measurement_widget_updates():
    w = qubit_measurement_widget()
    assert isinstance(w, LiveFigure) and w.error == "" and w.result.basis == "Z"
    first, p0 = _png(w), w.result.p0
    w.controls["phi"].value = 90.0
    assert w.result.p0 == pytest.approx(p0)  # the phase is invisible in the Z basis
    w.controls["basis"].value = "X"
    assert w.result.p0 == pytest.approx(0.5) and _png(w) != first  # |ψ⟩ on the y side: fair coin
    w.controls["theta"].value = 0.0
    assert w.result.p0 == pytest.approx(0.5)
    w.controls["shots"].value = 10_000
    assert w.result.shots == 10_000
    assert isinstance(w.explorer, ExplorerSpec)


def test_bell_pair_widget_updates():
    w = bell_pair_widget()
    assert w.error == "" and w.result.name == "Φ+"
    first = _png(w)
    w.controls["x"].value = True
    assert w.result.name == "Ψ+" and w.result.agreement == 0.0 and _png(w) != first
    w.controls["z"].value = True
    assert w.result.name == "Ψ−"
    assert len(w.explorer.settings()) == 8


def test_noisy_pair_widget_updates_and_reports_errors():
    w = noisy_pair_widget()
    assert w.error == "" and w.result.pair_fidelity == pytest.approx(0.8)
    first = _png(w)
    w.controls["pair_fidelity"].value = 0.5
    assert w.result.agreement == pytest.approx(2 / 3) and _png(w) != first
    w.controls["basis"].value = "X"
    assert w.result.agreement == pytest.approx(2 / 3)
    w.controls["pair_fidelity"].min = 0.0
    w.controls["pair_fidelity"].value = 0.1  # a script may set what the slider never offers
    assert w.result is None and "pair_fidelity" in w.error
