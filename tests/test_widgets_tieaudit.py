"""TieAudit widgets, compute functions and figures (qring_edu.widgets.tieaudit,
figures.tieaudit)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from qring_edu.experiments import tieaudit_noise as exp_noise
from qring_edu.experiments import tieaudit_plans as exp_plans
from qring_edu.experiments.tieaudit import audit_explorer, tieaudit_curves
from qring_edu.experiments.tieaudit_noise import noise_sweep
from qring_edu.figures import tieaudit as figs
from qring_edu.tieaudit import tieaudit_circuit
from qring_edu.widgets import LiveFigure
from qring_edu.widgets.tieaudit import (
    noise_threshold_widget,
    tieaudit_explorer_widget,
    tieaudit_scaling_widget,
)


def _png(widget: LiveFigure) -> bytes:
    return bytes(widget.image.value)


def test_tieaudit_explorer_widget():
    w = tieaudit_explorer_widget(log2_P=4)
    assert w.error == "" and w.result.signs.size == 16
    before = _png(w)
    w.controls["f"].value = 0.75
    assert _png(w) != before and w.error == ""
    w.controls["eps"].value = 1.5
    assert "eps" in w.error
    w.controls["eps"].value = 0.1
    assert w.error == ""


def test_tieaudit_scaling_widget():
    w = tieaudit_scaling_widget()
    assert w.result.crossover_P == 2**16
    before = _png(w)
    w.controls["eps"].value = 0.02
    assert w.result.crossover_P > 2**16 and _png(w) != before


def test_noise_threshold_widget():
    w = noise_threshold_widget()
    assert w.error == "" and w.result.crossover_log2_P == 53
    before = _png(w)
    w.controls["fidelity"].value = 0.84  # below F*: no crossover
    assert w.result.crossover_log2_P == 0 and _png(w) != before
    w.controls["eps"].value = 0.02  # finer audits move the crossover, not the threshold
    w.controls["fidelity"].value = 0.9
    assert w.result.crossover_log2_P > 53 and w.error == ""


def test_compute_functions():
    ex = audit_explorer(4, 1.0, 0.5, 0.1, seed=2)
    assert ex.f == 0.5 and abs(ex.p_plus - ex.p_minus) < 1e-12
    assert len(ex.estimates) == 3 and len(ex.matching) == 8
    assert all(e.lo <= e.value <= e.hi for e in ex.estimates)
    with pytest.raises(ValueError, match="attack"):
        audit_explorer(4, attack="sneaky")
    with pytest.raises(ValueError, match="noise"):
        audit_explorer(4, noise=1.0)
    t = tieaudit_curves(0.05)
    assert t.Ps[-1] == 2**30 and np.all(np.isnan(t.quantum_error))
    ns = noise_sweep((0.0, 0.4), log2_P=10, seed=0)
    assert np.all(ns.calibrated_error <= ns.eps) and ns.naive_error[1] > ns.eps
    assert ns.copies[1] > ns.copies[0] and np.all((ns.lo <= ns.f) & (ns.f <= ns.hi))


def test_figures_are_figures():
    for fig in (
        figs.plot_circuit(tieaudit_circuit([1, -1, 1, 1], [[0, 1]]), "TieAudit"),
        figs.plot_noise_sweep(noise_sweep((0.0, 0.2), log2_P=8)),
    ):
        assert isinstance(fig, Figure)


def test_explorer_attack_menu_changes_the_quantum_estimate():
    w = tieaudit_explorer_widget(log2_P=6, alpha=1.0, f=0.25, eps=0.1, noise=0.6)
    honest = w.result.estimates[0].value
    w.controls["attack"].value = "knows_twirl"
    fooled = w.result
    assert fooled.attack == "knows_twirl"
    assert fooled.estimates[0].attenuation == 1.0 and fooled.estimates[0].value > honest
    # No source of the entanglement-assisted protocol knows its frame: it meets the attack
    # under the twirl, and the tests see the noise.
    assert fooled.estimates[1].attenuation < 0.6


def test_scaling_widget_bound_menu():
    w = tieaudit_scaling_widget(alpha=0.1)
    assert w.result.bound == "bernstein" and w.result.crossover_P == 2**20
    w.controls["bound"].value = "hoeffding"
    assert w.result.crossover_P == 2**27 and w.result.copies == 73_778


def test_new_figures_are_figures():
    curve = exp_plans.tieaudit_copies_curve(eps=0.1, exact_alphas=(1.0, 0.5))
    for f in (
        figs.plot_copies_vs_alpha(curve),
        figs.plot_attack_sweep(exp_noise.tieaudit_attack_sweep((0.0, 0.4), log2_P=8, seeds=2)),
        figs.plot_dephasing_sweep(
            exp_noise.dephasing_sweep((0.0, 0.05), log2_P=8, seeds=1, min_distance=4)
        ),
        figs.plot_audit_explorer(audit_explorer(4, attack="knows_twirl", noise=0.3)),
        figs.plot_tieaudit_scaling(tieaudit_curves(0.05)),
    ):
        assert isinstance(f, Figure)
