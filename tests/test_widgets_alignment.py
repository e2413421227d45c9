"""Chapter 5 widgets, compute functions and figures (qring_edu.widgets/figures.audit)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from qring_edu.figures import alignment as figs
from qring_edu.alignment import gapip, gapip_circuit
from qring_edu.experiments.alignment import aligned_pair
from qring_edu.sign_audit import tieaudit_circuit
from qring_edu.widgets import LiveFigure
from qring_edu.experiments.alignment import (
    audit_explorer,
    gapip_curves,
    noise_sweep,
    tieaudit_curves,
)
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
    for fig in (figs.plot_rotation(0.1), figs.plot_iae_run(d, 0.1),
                figs.plot_circuit(gapip_circuit(g[:3], h[:3], 1), "GapIP"),
                figs.plot_circuit(tieaudit_circuit([1, -1, 1, 1], [[0, 1]]), "TieAudit"),
                figs.plot_noise_sweep(noise_sweep((0.0, 0.2), log2_P=8))):
        assert isinstance(fig, Figure)
    with pytest.raises(ValueError, match="IAE"):
        figs.plot_iae_run(gapip(g, h, 0.1, protocol="sketch", seed=0), 0.1)
