"""Chapter 6 widgets, compute functions and figures (qring_edu.widgets/figures.alignment)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from qring_edu.alignment import gapip, gapip_circuit
from qring_edu.experiments.alignment import (
    aligned_pair,
    audit_explorer,
    gapip_curves,
    noise_sweep,
    tieaudit_curves,
)
from qring_edu.figures import alignment as figs
from qring_edu.sign_audit import tieaudit_circuit
from qring_edu.widgets import LiveFigure
from qring_edu.widgets.alignment import (
    gapip_widget,
    tieaudit_explorer_widget,
    tieaudit_scaling_widget,
)


def _png(widget: LiveFigure) -> bytes:
    return bytes(widget.image.value)


def test_gapip_widget_changes_and_reports_errors():
    w = gapip_widget(tau=0.1, log2_P=8, trials=4)
    assert isinstance(w, LiveFigure) and w.error == "" and _png(w)
    before = _png(w)
    w.controls["log2_P"].value = 10
    assert w.error == "" and _png(w) != before
    assert w.result.scaling.P == 2**10
    w.controls["seed"].value = -3
    assert "seed" in w.error and w.result is None
    html = w._repr_mimebundle_()["text/html"]
    assert "<img" in html


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


def test_compute_functions():
    c = gapip_curves(0.05, 8, 4, seed=1)
    assert c.scaling.taus[-1] == pytest.approx(0.05) and "tau=0.05" in repr(c)
    with pytest.raises(ValueError, match="tau"):
        gapip_curves(1.5)
    with pytest.raises(ValueError, match="log2_P"):
        gapip_curves(0.1, 30)
    ex = audit_explorer(4, 1.0, 0.5, 0.1, seed=2)
    assert ex.f == 0.5 and abs(ex.p_plus - ex.p_minus) < 1e-12
    assert len(ex.estimates) == 3 and "pairs=8" in repr(ex)
    ex2 = audit_explorer(2, signs=[1, -1, 1, 1], matching=[[0, 1]], eps=0.2)
    assert ex2.f == 1.0 and ex2.alpha == 0.5
    with pytest.raises(ValueError, match="disjoint"):
        audit_explorer(2, signs=[1, -1, 1, 1], matching=[[0, 1], [1, 2]])
    t = tieaudit_curves(0.05)
    assert t.Ps[-1] == 2**30 and np.all(np.isnan(t.quantum_error))
    ns = noise_sweep((0.0, 0.4), log2_P=10, seed=0)
    assert np.all(ns.calibrated_error <= ns.eps) and ns.naive_error[1] > ns.eps
    assert ns.copies[1] > ns.copies[0]


def test_figures_are_figures():
    g, h = aligned_pair(64, 0.1, seed=0)
    d = gapip(g, h, 0.1, seed=0)
    for fig in (
        figs.plot_rotation(0.1),
        figs.plot_iae_run(d, 0.1),
        figs.plot_circuit(gapip_circuit(g[:3], h[:3], 1), "GapIP"),
        figs.plot_circuit(tieaudit_circuit([1, -1, 1, 1], [[0, 1]]), "TieAudit"),
        figs.plot_noise_sweep(noise_sweep((0.0, 0.2), log2_P=8)),
    ):
        assert isinstance(fig, Figure)
    with pytest.raises(ValueError, match="IAE"):
        figs.plot_iae_run(gapip(g, h, 0.1, protocol="sketch", seed=0), 0.1)


# ---------------------------------------------------------------------------------------------
# New controls, the ping-pong diagram, the comparison, attack and
# dephasing figures, the per-step cost of phase-estimation runs, exact circuit drawings.
# ---------------------------------------------------------------------------------------------


def test_gapip_widget_family_and_protocol_menus():
    w = gapip_widget(tau=0.1, log2_P=8, trials=4)
    assert w.result.scaling.confidence == "hoeffding" and w.result.scaling.protocol == "quantum"
    before = _png(w)
    w.controls["protocol"].value = "phase_estimation"
    assert w.error == "" and w.result.scaling.protocol == "phase_estimation" and _png(w) != before
    w.controls["confidence"].value = "exact"
    assert w.result.scaling.confidence == "exact"


def test_explorer_attack_menus_change_the_quantum_estimate():
    w = tieaudit_explorer_widget(log2_P=6, alpha=1.0, f=0.25, eps=0.1, noise=0.6)
    honest = w.result.estimates[0].value
    w.controls["attack"].value = "data_only"
    w.controls["test_strings"].value = "fixed"
    fooled = w.result
    assert fooled.attack == "data_only" and fooled.test_strings == "fixed"
    assert fooled.estimates[0].attenuation == 1.0 and fooled.estimates[0].value > honest
    # The entanglement-assisted copies are padded by the server's random bits: not fooled.
    assert fooled.estimates[1].attenuation < 0.6


def test_scaling_widget_bound_menu():
    w = tieaudit_scaling_widget(alpha=0.1)
    assert w.result.bound == "bernstein" and w.result.crossover_P == 2**20
    w.controls["bound"].value = "hoeffding"
    assert w.result.crossover_P == 2**27 and w.result.copies == 73_778


def test_plot_iae_run_uses_each_steps_recorded_qubits():
    """The x axis is the cumulative IAEStep.qubits; the old formula n (2k + 1) is wrong for
    phase-estimation runs ((n + 1)(2K - 1) per shot)."""
    g, h = aligned_pair(256, 0.1, seed=3)
    for protocol in ("quantum", "phase_estimation"):
        d = gapip(g, h, 0.1, protocol=protocol, confidence="hoeffding", seed=2)
        fig = figs.plot_iae_run(d, 0.1)
        xs = np.concatenate([p.vertices[:, 0] for p in fig.axes[0].collections[0].get_paths()])
        assert xs.max() == pytest.approx(d.cost) and d.cost == sum(s.qubits for s in d.steps)
        assert ("phase" in fig.axes[0].get_title()) == (protocol == "phase_estimation")


def test_circuits_with_a_global_phase_draw_it_on_their_own_axes():
    """Qiskit's mpl drawer writes the global phase with pyplot.text (a stray pyplot figure);
    plot_circuit labels it on the circuit's own axes instead."""
    import matplotlib.pyplot as plt

    from qring_edu.alignment import reflection_circuit

    plt.close("all")
    fig = figs.plot_circuit(reflection_circuit([0.6, 0.8], "R_h"), "R")
    assert plt.get_fignums() == []
    assert any(t.get_text() == "global phase: π" for t in fig.axes[0].texts)
    plain = figs.plot_circuit(gapip_circuit([1.0, 0.0], [0.6, 0.8], 1), "no phase")
    assert not any("phase" in t.get_text() for t in plain.axes[0].texts)


def test_new_figures_are_figures():
    from qring_edu.experiments import alignment as exp

    pp = figs.plot_gapip_pingpong(
        [exp.gapip_schedule(2**16, 2), exp.gapip_schedule(2**16, 2, "phase_estimation")]
    )
    texts = [t.get_text() for ax in pp.axes for t in ax.texts]
    assert sum(t.startswith("pass ") for t in texts) == 5 + 3
    assert "R_h" in texts and "c-R_g" in texts and len(pp.axes) == 2
    cmp_ = exp.gapip_comparison(
        (0.3, 0.05, 0.01), 2**10, trials=2, families=exp.GAPIP_FAMILIES + (("quantum", "chernoff"),)
    )
    fig = figs.plot_gapip_comparison(cmp_)
    assert len(fig.axes) == 2 and fig.legends
    curve = exp.tieaudit_copies_curve(eps=0.1, exact_alphas=(1.0, 0.5))
    for f in (
        fig,
        figs.plot_copies_vs_alpha(curve),
        figs.plot_attack_sweep(exp.tieaudit_attack_sweep((0.0, 0.4), log2_P=8, seeds=2)),
        figs.plot_dephasing_sweep(
            exp.dephasing_sweep((0.0, 0.05), log2_P=8, seeds=1, min_distance=4)
        ),
        figs.plot_audit_explorer(
            audit_explorer(4, attack="data_only", test_strings="fixed", noise=0.3)
        ),
    ):
        assert isinstance(f, Figure)
    with pytest.raises(ValueError, match="schedules"):
        figs.plot_gapip_pingpong([])
    with pytest.raises(ValueError, match="confidences"):
        figs.plot_gapip_comparison(cmp_, ())
