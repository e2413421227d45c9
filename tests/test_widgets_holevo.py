"""Chapter 2 widgets, compute functions and figures (qring_edu.widgets.holevo, figures.holevo)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from qring_edu import dense_coding_capacity, isotropic_capacity, ring_allreduce
from qring_edu.experiments.holevo import (
    DESIGNER_PRESETS,
    analyse_ensemble,
    dense_coding_sweep,
    design_ensemble,
    known_ensembles,
    ledger_floor_sweep,
    two_state_sweep,
)
from qring_edu.figures import holevo as figs
from qring_edu.holevo import (
    bb84_ensemble,
    bloch_measurement,
    dense_coding_threshold,
    holevo_chi,
    mutual_information,
    trine_ensemble,
)
from qring_edu.superdense import isotropic_state
from qring_edu.widgets import LiveFigure
from qring_edu.widgets._base import parse_numbers
from qring_edu.widgets.holevo import (
    dense_coding_widget,
    ensemble_designer_widget,
    ledger_floor_widget,
)


def _png(w: LiveFigure) -> bytes:
    return bytes(w.image.value)


# -- compute functions ------------------------------------------------------------------------
def test_analyse_ensemble_matches_the_library():
    a = analyse_ensemble(trine_ensemble(), 0.0, 0.0)
    assert a.chi == pytest.approx(1.0) and a.accessible.value == pytest.approx(
        math.log2(3) - 1, abs=1e-4
    )
    assert a.measured == pytest.approx(
        mutual_information(*trine_ensemble(), bloch_measurement(0, 0))
    )
    # The optimal trine POVM: three "anti-trine" directions, weight 2/3 each.
    assert a.povm_weights.size == 3 and np.allclose(a.povm_weights, 2 / 3, atol=1e-3)
    assert np.allclose(np.sort(a.povm_directions @ a.bloch.T, axis=1)[:, 0], -1, atol=1e-3)
    with pytest.raises(ValueError, match="qubit ensemble"):
        from qring_edu.holevo import superdense_ensemble

        analyse_ensemble(superdense_ensemble())


def test_design_ensemble_uses_degrees_and_the_number_of_probabilities():
    a = design_ensemble([1 / 4] * 4, 0, 0, 180, 0, 90, 0, 90, 180, meas_theta=90)
    assert a.ensemble.size == 4 and a.chi == pytest.approx(holevo_chi(*bb84_ensemble()))
    assert a.measured == pytest.approx(0.5, abs=1e-9)  # BB84 measured along x
    two = design_ensemble([0.5, 0.5], theta1=180)
    assert (
        two.ensemble.size == 2
        and two.chi == pytest.approx(1.0)
        and two.measured == pytest.approx(1.0)
    )
    mixed = design_ensemble([0.5, 0.5], theta1=180, radius=0.5)
    assert mixed.chi < two.chi
    with pytest.raises(ValueError, match="probs must sum to 1"):
        design_ensemble([0.5, 0.6])
    with pytest.raises(ValueError, match="probs must have 1 to 4 entries"):
        design_ensemble([0.2] * 5)
    with pytest.raises(TypeError, match="probs"):
        design_ensemble("0.5, 0.5")  # text is the widget's job (parse_numbers)
    with pytest.raises(ValueError, match="radius"):
        design_ensemble(radius=1.5)


def test_parse_numbers():
    assert parse_numbers("1/3, 1/3; 1/3", "probs") == pytest.approx([1 / 3] * 3)
    assert parse_numbers([0.5, 0.5], "probs") == [0.5, 0.5]
    for bad in ["", "half, half", "1/0", "0.5,,x"]:
        with pytest.raises(ValueError, match="probs"):
            parse_numbers(bad, "probs")
    with pytest.raises(TypeError, match="probs"):
        parse_numbers(3, "probs")


def test_known_ensembles_match_textbook_values():
    rows = known_ensembles()
    assert [r.name.split("\n")[0] for r in rows] == ["BB84", "trine", "two states", "Bell states"]
    for r in rows:
        assert r.chi == pytest.approx(r.chi_expected, abs=1e-9)
        assert r.accessible == pytest.approx(r.accessible_expected, abs=1e-4)


def test_two_state_sweep():
    sw = two_state_sweep([0.0, 0.5, 1.0])
    assert np.allclose(sw.chi, [1.0, 0.8112781, 0.0], atol=1e-6)
    assert np.all(sw.accessible <= sw.chi + 1e-9)
    assert sw.fine.size == sw.chi_formula.size == sw.accessible_formula.size


def test_dense_coding_sweep_and_threshold():
    t = dense_coding_threshold()
    assert isotropic_capacity(t) == pytest.approx(1.0, abs=1e-10) and round(t, 4) == 0.8107
    dc = dense_coding_sweep(0.9)
    assert dc.chosen_capacity == pytest.approx(dense_coding_capacity(isotropic_state(0.9)))
    assert dc.chosen_chi == pytest.approx(dc.chosen_capacity, abs=1e-9) and dc.helps
    low = dense_coding_sweep(0.7)
    assert not low.helps and low.useful == 1.0
    assert dense_coding_threshold(0.0) == 0.25 and dense_coding_threshold(2.0) == 1.0
    with pytest.raises(ValueError, match="pair_fidelity"):
        dense_coding_sweep(0.2)


@pytest.mark.parametrize("d, bits", [(1000, 16), (1001, 5), (7, 3)])
def test_ledger_floor_sweep_never_below_half(d, bits):
    sw = ledger_floor_sweep(d, bits, workers=range(2, 8))
    assert np.all(sw.online_qubits >= sw.floor)
    assert np.all(sw.online_qubits == sw.message_floor)
    assert np.all(sw.online_qubits + sw.offline_qubits >= sw.classical_bits)
    for P, bits_p in zip(sw.workers, sw.classical_bits):
        assert (
            bits_p
            == ring_allreduce(np.zeros((P, d), dtype=np.int64), bits=bits).ledger.online_bits()
        )
    if bits % 2 == 0:
        assert np.all(sw.online_qubits * 2 == sw.classical_bits)
    with pytest.raises(ValueError, match="workers \\* d"):
        ledger_floor_sweep(10**6, 16, workers=[4])


# -- figures ----------------------------------------------------------------------------------
def test_figures_are_figures():
    assert isinstance(figs.plot_ensemble_analysis(design_ensemble()), Figure)
    assert isinstance(figs.plot_known_ensembles(known_ensembles()), Figure)
    assert isinstance(figs.plot_two_state_sweep(two_state_sweep([0, 0.5, 1])), Figure)
    assert isinstance(figs.plot_dense_coding(dense_coding_sweep(0.6)), Figure)
    assert isinstance(figs.plot_ledger_floor(ledger_floor_sweep(12, 3, range(2, 5))), Figure)
    with pytest.raises(ValueError, match="rows"):
        figs.plot_known_ensembles([])


# -- widgets ----------------------------------------------------------------------------------
def test_ensemble_designer_widget_updates_and_reports_errors():
    w = ensemble_designer_widget()
    assert isinstance(w, LiveFigure) and w.error == "" and w.result.ensemble.size == 3
    first = _png(w)
    assert first.startswith(b"\x89PNG")
    w.controls["meas_theta"].value = 90.0
    assert w.error == "" and w.result.meas_theta == pytest.approx(math.pi / 2) and _png(w) != first
    w.controls["theta0"].value = 30.0
    assert w.controls["preset"].value == "custom"
    second = _png(w)
    # Invalid probabilities: the library's message, naming the argument, replaces the figure.
    w.controls["probs"].value = "0.5, 0.6, 0.1"
    assert w.result is None and "probs must sum to 1" in w.error
    w.controls["probs"].value = "0.5, x"
    assert w.result is None and "probs" in w.error
    w.controls["probs"].value = "0.2, 0.2, 0.2, 0.2, 0.2"
    assert "probs must have 1 to 4 entries" in w.error
    w.controls["probs"].value = "1/2, 1/2"
    assert w.error == "" and w.result.ensemble.size == 2 and _png(w) != second
    # Loading a preset rewrites the controls and redraws once with them.
    w.controls["preset"].value = "BB84"
    assert w.error == "" and w.result.ensemble.size == 4
    assert w.result.chi == pytest.approx(1.0) and w.result.accessible.value == pytest.approx(
        0.5, abs=1e-4
    )
    assert w.controls["probs"].value == DESIGNER_PRESETS["BB84"][0]
    w.controls["radius"].value = 0.5
    assert w.result.chi < 1.0 and w.controls["preset"].value == "custom"
    bundle = w._repr_mimebundle_()
    assert "data:image/png;base64," in bundle["text/html"]
    with pytest.raises(ValueError, match="preset"):
        ensemble_designer_widget(preset="nope")


def test_dense_coding_widget_updates():
    w = dense_coding_widget()
    assert w.error == "" and w.result.pair_fidelity == 0.9 and w.result.helps
    first = _png(w)
    w.controls["pair_fidelity"].value = 0.7
    assert w.error == "" and not w.result.helps and _png(w) != first
    assert w.controls["pair_fidelity"].continuous_update is False
    # Direct, out-of-range values (as a script could set them) show the library's message.
    w.controls["pair_fidelity"].min = 0.0
    w.controls["pair_fidelity"].value = 0.1
    assert w.result is None and "pair_fidelity" in w.error


def test_ledger_floor_widget_updates_and_reports_errors():
    w = ledger_floor_widget()
    assert w.error == "" and w.result.d == 1000
    first = _png(w)
    w.controls["bits"].value = 5
    assert w.error == "" and w.result.bits == 5 and _png(w) != first
    w.controls["d"].value = "many"
    assert w.result is None and "d" in w.error and "many" in w.error
    w.controls["d"].value = "0"
    assert "d must be" in w.error
    w.controls["d"].value = "99"
    assert w.error == "" and w.result.d == 99
