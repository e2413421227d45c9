"""GapIP widgets, compute functions and figures (qring_edu.widgets.gapip, figures.gapip)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from qring_edu.experiments import gapip as exp
from qring_edu.experiments.gapip import aligned_pair, gapip_curves
from qring_edu.figures import gapip as figs
from qring_edu.gapip import PhaseEstimation, gapip, gapip_circuit, reflection_circuit
from qring_edu.widgets import LiveFigure
from qring_edu.widgets.gapip import gapip_widget


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


def test_compute_functions():
    c = gapip_curves(0.05, 8, 4, seed=1)
    assert c.scaling.taus[-1] == pytest.approx(0.05) and "tau=0.05" in repr(c)
    with pytest.raises(ValueError, match="tau"):
        gapip_curves(1.5)
    with pytest.raises(ValueError, match="log2_P"):
        gapip_curves(0.1, 30)


def test_figures_are_figures():
    g, h = aligned_pair(64, 0.1, seed=0)
    d = gapip(g, h, 0.1, seed=0)
    for fig in (
        figs.plot_rotation(0.1),
        figs.plot_iae_run(d, 0.1),
        figs.plot_circuit(gapip_circuit(g[:3], h[:3], 1), "GapIP"),
    ):
        assert isinstance(fig, Figure)
    with pytest.raises(ValueError, match="IAE"):
        figs.plot_iae_run(gapip(g, h, 0.1, protocol="sketch", seed=0), 0.1)


def test_gapip_widget_family_and_protocol_menus():
    w = gapip_widget(tau=0.1, log2_P=8, trials=4)
    assert w.result.scaling.confidence == "hoeffding" and w.result.scaling.protocol == "quantum"
    before = _png(w)
    w.controls["protocol"].value = "phase_estimation"
    assert w.error == "" and w.result.scaling.protocol == "phase_estimation" and _png(w) != before
    w.controls["confidence"].value = "exact"
    assert w.result.scaling.confidence == "exact"


def test_plot_iae_run_uses_each_steps_recorded_qubits():
    """The x axis is the cumulative IAEStep.qubits; the old formula n (2k + 1) is wrong for
    phase-estimation runs ((n + 1)(2K - 1) per shot)."""
    g, h = aligned_pair(256, 0.1, seed=3)
    for protocol in ("quantum", PhaseEstimation()):
        d = gapip(g, h, 0.1, protocol=protocol, seed=2)
        fig = figs.plot_iae_run(d, 0.1)
        xs = np.concatenate([p.vertices[:, 0] for p in fig.axes[0].collections[0].get_paths()])
        assert xs.max() == pytest.approx(d.cost) and d.cost == sum(s.qubits for s in d.steps)
        assert ("phase" in fig.axes[0].get_title()) == (d.protocol == "phase_estimation")


def test_circuits_with_a_global_phase_draw_it_on_their_own_axes():
    """Qiskit's mpl drawer writes the global phase with pyplot.text (a stray pyplot figure);
    plot_circuit labels it on the circuit's own axes instead."""
    import matplotlib.pyplot as plt

    plt.close("all")
    fig = figs.plot_circuit(reflection_circuit([0.6, 0.8], "R_h"), "R")
    assert plt.get_fignums() == []
    assert any(t.get_text() == "global phase: π" for t in fig.axes[0].texts)
    plain = figs.plot_circuit(gapip_circuit([1.0, 0.0], [0.6, 0.8], 1), "no phase")
    assert not any("phase" in t.get_text() for t in plain.axes[0].texts)


def test_new_figures_are_figures():
    pp = figs.plot_gapip_pingpong(
        [exp.gapip_schedule(2**16, 2), exp.gapip_schedule(2**16, 2, "phase_estimation")]
    )
    texts = [t.get_text() for ax in pp.axes for t in ax.texts]
    assert sum(t.startswith("pass ") for t in texts) == 5 + 3
    assert "R_h" in texts and "c-R_g" in texts and len(pp.axes) == 2
    cmp_ = exp.gapip_comparison((0.3, 0.05, 0.01), 2**10, trials=2, families=exp.GAPIP_FAMILIES)
    fig = figs.plot_gapip_comparison(cmp_)
    assert len(fig.axes) == 2 and fig.legends and isinstance(fig, Figure)
    with pytest.raises(ValueError, match="schedules"):
        figs.plot_gapip_pingpong([])
    with pytest.raises(ValueError, match="confidences"):
        figs.plot_gapip_comparison(cmp_, ())
