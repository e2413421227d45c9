"""Chapter 2 additions: the cut-set sweep and its figure, the diagram of the entanglement-assisted
proof, the cut-set floor in the ledger sweep, and the step checkers of the reasoning exercises
(qring_edu.experiments.holevo, figures.holevo, exercises.holevo)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from qring_edu import dense_coding_capacity, isotropic_capacity, ring_allreduce
from qring_edu.costmodel import MODEL_SIZES, allreduce_cut_bound
from qring_edu.exercises._base import Feedback
from qring_edu.exercises.holevo import (
    check_cut_set_qubits,
    check_dephased_capacity,
    check_ea_entropy_bound,
    check_pair_entropy,
    check_vga_bits_in,
)
from qring_edu.experiments.holevo import cut_set_sweep, ledger_floor_sweep
from qring_edu.figures import holevo as figs
from qring_edu.holevo import binary_entropy, encoded_ensemble, holevo_chi, von_neumann_entropy
from qring_edu.states import bell_state, isotropic_state, partial_trace


# -- the cut-set sweep --------------------------------------------------------------------------
def test_cut_set_sweep_matches_the_ledgers_and_the_bound():
    sw = cut_set_sweep(d=1000, bits=16, workers=(2, 4, 5))
    for p, cl, sd in zip(sw.workers, sw.classical_ring, sw.superdense_ring):
        zeros = np.zeros((p, 1000), dtype=np.int64)
        assert cl == ring_allreduce(zeros, bits=16).ledger.online_bits()
        assert sd == ring_allreduce(zeros, bits=16, transport="superdense").ledger.online_qubits()
    assert sw.information == 16_000 and sw.cut_qubits == 8_000
    assert sw.vga_bits_in.tolist() == [(p - 1) * 16_000 for p in (2, 4, 5)]
    # every protocol shown meets 2q + c >= d b; the rings exceed it by 2(P-1)/P
    for which in ("classical", "superdense", "vga"):
        assert np.all(sw.capacity_in(which) >= sw.information)
    assert np.allclose(
        sw.capacity_in("superdense") / sw.information, 2 * (sw.workers - 1) / sw.workers
    )
    assert np.array_equal(sw.ring_message_floor, sw.classical_ring / 2)
    with pytest.raises(ValueError, match="which"):
        sw.capacity_in("server")
    with pytest.raises(ValueError, match="workers"):
        cut_set_sweep(workers=(2, 1))
    with pytest.raises(ValueError, match="workers"):  # counts beyond int64
        cut_set_sweep(d=10**12, workers=(2, 10**9))
    big = cut_set_sweep(d=10**9, bits=16, workers=(2, 10**6))  # closed forms: no P x P table
    assert big.superdense_ring[1] == 2 * (10**6 - 1) * 1000 * 8


def test_cut_set_sweep_resnet50_numbers():
    sw = cut_set_sweep()
    assert sw.d == MODEL_SIZES["ResNet-50"] and sw.bits == 16
    ratio = sw.superdense_ring / sw.cut_qubits
    assert ratio[0] == 1.0 and ratio[list(sw.workers).index(8)] == pytest.approx(1.75)
    assert np.all(np.diff(ratio) > 0) and ratio[-1] < 2


def test_ledger_floor_sweep_has_the_cut_floor():
    sw = ledger_floor_sweep(d=1001, bits=5, workers=(2, 3))
    assert sw.cut_floor == 1001 * 5 / 2
    assert np.all(sw.online_qubits >= sw.cut_floor)  # the ring sits above the cut-set floor
    assert sw.online_qubits[0] == pytest.approx(sw.cut_floor, abs=1)  # and meets it at P = 2


# -- figures -------------------------------------------------------------------------------------
def test_plot_cut_set_and_ea_diagram_are_figures():
    fig = figs.plot_cut_set(cut_set_sweep(d=8000, bits=16, workers=(2, 4, 8)))
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    labels = " ".join(t for ax in fig.axes for t in ax.get_legend_handles_labels()[1])
    assert (
        "floor for the ring's messages" in labels and "cut-set floor" in labels and "VGA" in labels
    )
    diagram = figs.plot_ea_systems()
    assert isinstance(diagram, Figure)
    text = " ".join(t.get_text() for t in diagram.axes[0].texts)
    for word in ("A'", "Q", "B", "subadditivity", "Araki", "2n"):
        assert word in text


def test_ledger_floor_figure_is_scoped_to_the_rings_messages():
    fig = figs.plot_ledger_floor(ledger_floor_sweep(d=1001, bits=5, workers=(2, 3)))
    labels = " ".join(t for ax in fig.axes for t in ax.get_legend_handles_labels()[1])
    assert "floor for the ring's messages" in labels and "cut-set floor" in labels
    assert "no protocol goes below" not in labels


# -- step checkers ------------------------------------------------------------------------------
GARBAGE = ["three", "", [1, 2], True, float("nan"), np.array([1.0, 2.0]), object(), 1j]


@pytest.mark.parametrize(
    "check, kwargs, right, wrong",
    [
        (check_ea_entropy_bound, dict(n_qubits=3, bob_entropy=5), 8, 5),
        (check_ea_entropy_bound, dict(n_qubits=3, bob_entropy=5, which="each"), 2, 5),
        (check_ea_entropy_bound, dict(n_qubits=3, bob_entropy=1, which="each"), 0, -2),
        (check_pair_entropy, dict(pair_fidelity=0.85), 0.8476, 1.1524),
        (check_dephased_capacity, dict(pair_fidelity=0.7), 1.1187, 0.6432),
        (check_cut_set_qubits, {}, 2.72e9, 5.1e9),
        (check_vga_bits_in, {}, 15 * 340e6 * 16, 340e6 * 16),
    ],
)
def test_step_checkers(check, kwargs, right, wrong):
    assert check(right, **kwargs).passed
    fb = check(wrong, **kwargs)
    assert not fb.passed and fb.message
    assert check(None, **kwargs).message.startswith("Not attempted")
    for junk in GARBAGE:
        fb = check(junk, **kwargs)
        assert isinstance(fb, Feedback) and not fb.passed


def test_step_checker_references_are_the_physics():
    # S(rho_AB) of the isotropic pair, and C = 1 + S(B) - S(AB)
    rho = isotropic_state(0.9)
    assert von_neumann_entropy(partial_trace(rho, [1])) == pytest.approx(1.0)
    assert 2 - von_neumann_entropy(rho) == pytest.approx(isotropic_capacity(0.9))
    # the dephased pair: C = 2 - h(F) >= 1, equality only at F = 1/2
    for F in (0.0, 0.3, 0.5, 0.7, 1.0):
        plus, minus = bell_state("phi+"), bell_state("phi-")
        r = F * np.outer(plus, plus.conj()) + (1 - F) * np.outer(minus, minus.conj())
        assert dense_coding_capacity(r) == pytest.approx(2 - binary_entropy(F))
    # the Araki-Lieb step is tight for superdense coding: S(sigma_x) = S(B) - n = 0
    x = encoded_ensemble(bell_state("phi+"), [np.eye(2)], alice_qubits=(0,))
    assert von_neumann_entropy(x.states[0]) == pytest.approx(0.0, abs=1e-9)
    assert holevo_chi(*x) == pytest.approx(0.0, abs=1e-9)
    cut = allreduce_cut_bound(16, 340_000_000, 16)
    assert cut.qubits == 2.72e9 and cut.vga_bits_in == 81_600_000_000


def test_step_checkers_refuse_bad_parameters_without_raising():
    assert "invalid" in check_ea_entropy_bound(1, n_qubits=0).message
    assert "invalid" in check_ea_entropy_bound(1, which="both").message
    assert "invalid" in check_pair_entropy(1, pair_fidelity=2).message
    assert "invalid" in check_dephased_capacity(1, pair_fidelity=-0.1).message
    assert "invalid" in check_cut_set_qubits(1, P=1).message


def test_docstring_examples_of_the_chapter_1_and_2_modules():
    import doctest

    from qring_edu.exercises import bottleneck as ex1
    from qring_edu.exercises import holevo as ex2
    from qring_edu.experiments import bottleneck as xp1
    from qring_edu.experiments import holevo as xp2

    for module in (xp1, xp2, ex1, ex2, figs):
        result = doctest.testmod(module, raise_on_error=False, verbose=False)
        assert result.failed == 0, module.__name__
