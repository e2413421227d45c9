"""Chapter 1 experiments, widgets and figures (qring_edu.experiments.bottleneck, widgets.bottleneck, figures.bottleneck)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from qring_edu import chunk_bounds, ring_allreduce, ring_time
from qring_edu.costmodel import MODEL_SIZES, allreduce_lower_bound_bits, parameter_server_time
from qring_edu.experiments.bottleneck import (
    alpha_beta_costs,
    cost_sweep,
    link_bits_sweep,
    model_comm_table,
    ring_state,
)
from qring_edu.figures import bottleneck as figs
from qring_edu.widgets import LiveFigure
from qring_edu.widgets._base import parse_number
from qring_edu.widgets.bottleneck import alpha_beta_widget, ring_schedule_widget


# -- compute functions ------------------------------------------------------------------------
@pytest.mark.parametrize("P", [2, 3, 4, 7])
def test_ring_state_end_of_reduce_scatter_and_of_all_gather(P):
    mid = ring_state(P, P - 1)
    for k in range(P):
        # The ring schedule: after P-1 steps worker k holds the fully reduced chunk (k+1) mod P.
        assert mid.reduced_chunk(k) == (k + 1) % P
    end = ring_state(P, 2 * (P - 1))
    assert end.contains.all()
    start = ring_state(P, 0)
    assert (start.counts == 1).all() and start.messages == ()


def test_ring_state_messages_match_ledger_bits():
    P, d, bits = 4, 10, 8
    res = ring_allreduce(np.zeros((P, d), dtype=np.int64), bits=bits)
    per_link = np.zeros(P, dtype=np.int64)
    for t in range(1, 2 * (P - 1) + 1):
        per_link += ring_state(P, t, d, bits).message_bits()
    assert per_link.tolist() == res.ledger.per_link("online_bits").tolist()
    assert ring_state(P, 0, d, bits).chunk_sizes.tolist() == np.diff(chunk_bounds(d, P)).tolist()


def test_ring_state_bad_input_names_argument():
    with pytest.raises(ValueError, match="step"):
        ring_state(4, 7)
    with pytest.raises(ValueError, match="P"):
        ring_state(1, 0)
    with pytest.raises(TypeError, match="d"):
        ring_state(4, 1, d="ten")


def test_cost_functions_call_the_library():
    sweep = cost_sweep(1000, 16, 1e-6, 1e-9, workers=[2, 4, 8], chosen=5)
    assert sweep.workers.tolist() == [2, 4, 5, 8]
    t = sweep.at(5)
    assert t["ring"] == ring_time(5, 1000, 16, 1e-6, 1e-9)
    assert t["parameter_server"] == parameter_server_time(5, 1000, 16, 1e-6, 1e-9)
    assert t["bound"] == allreduce_lower_bound_bits(5, 1000, 16) * 1e-9
    ab = alpha_beta_costs(16, "BERT-Large", 16, 5.0, 25.0)
    assert (
        ab.d == MODEL_SIZES["BERT-Large"]
        and ab.alpha == pytest.approx(5e-6)
        and ab.beta == 1 / 25e9
    )
    assert ab.speedup == pytest.approx(ab.at(16)["parameter_server"] / ab.at(16)["ring"])


def test_link_bits_sweep_and_model_table():
    sw = link_bits_sweep(60, 16, workers=range(2, 9))
    divides = sw.workers[60 % sw.workers == 0]
    for P in divides:
        i = int(np.flatnonzero(sw.workers == P)[0])
        assert sw.ring[i] == sw.bound[i] == 2 * (P - 1) * (60 // P) * 16
    assert (sw.ring >= sw.bound - 1e-9).all()
    assert (sw.parameter_server == sw.workers * 60 * 16).all()
    rows = model_comm_table(32, (16, 32))
    assert len(rows) == 2 * len(MODEL_SIZES)
    assert rows[0].ring_s == ring_time(32, rows[0].params, rows[0].bits, 10e-6, 1e-11)


def test_parse_number():
    assert parse_number(" 2.5e1 ", "bw", lo=0, lo_open=True) == 25.0
    for bad in ["", "fast", "0", "-3", "nan", "inf"]:
        with pytest.raises(ValueError, match="bw"):
            parse_number(bad, "bw", lo=0, lo_open=True)


# -- figures ----------------------------------------------------------------------------------
def test_figures_are_figures():
    assert isinstance(figs.plot_ring_state(ring_state(4, 3, 10)), Figure)
    assert isinstance(figs.plot_ring_state(ring_state(8, 0, 3)), Figure)
    assert isinstance(figs.plot_ring_states([ring_state(3, s) for s in range(5)]), Figure)
    assert isinstance(figs.plot_topologies(5), Figure)
    assert isinstance(figs.plot_time_vs_workers(alpha_beta_costs()), Figure)
    assert isinstance(figs.plot_link_bits(link_bits_sweep(12, 8, range(2, 6))), Figure)
    assert isinstance(figs.plot_model_comm(model_comm_table()), Figure)
    with pytest.raises(ValueError, match="P"):
        figs.plot_topologies(1)


# -- widgets ----------------------------------------------------------------------------------
def _png(w: LiveFigure) -> bytes:
    return bytes(w.image.value)


def test_ring_schedule_widget_updates_and_reports_errors():
    w = ring_schedule_widget()
    assert isinstance(w, LiveFigure) and w.error == "" and w.result is not None
    first = _png(w)
    assert first.startswith(b"\x89PNG")
    w.controls["step"].value = 5
    assert w.error == "" and w.result.step == 5 and _png(w) != first
    # The step slider follows P: going to P = 3 clamps step to 2(P-1) = 4.
    w.controls["workers"].value = 3
    assert w.controls["step"].max == 4 and w.error == "" and w.result.workers == 3
    w.controls["workers"].value = 8
    assert w.controls["step"].max == 14
    before = _png(w)
    w.controls["d"].value = "twelve"
    assert w.result is None and "d" in w.error and "twelve" in w.error
    w.controls["d"].value = "0"
    assert "d must be" in w.error
    w.controls["d"].value = "24"
    assert w.error == "" and w.result.d == 24 and _png(w) != before
    bundle = w._repr_mimebundle_()
    assert "data:image/png;base64," in bundle["text/html"]


def test_alpha_beta_widget_updates_and_reports_errors():
    w = alpha_beta_widget()
    assert w.error == "" and w.result.chosen == 16
    first = _png(w)
    w.controls["model"].value = "GPT-3"
    assert w.error == "" and w.result.d == MODEL_SIZES["GPT-3"] and _png(w) != first
    second = _png(w)
    w.controls["workers"].value = 64
    assert w.result.chosen == 64 and _png(w) != second
    w.controls["bandwidth_gbps"].value = "fast"
    assert w.result is None and "bandwidth_gbps" in w.error
    w.controls["bandwidth_gbps"].value = "-1"
    assert "bandwidth_gbps" in w.error
    w.controls["bandwidth_gbps"].value = "400"
    assert w.error == "" and w.result.beta == 1 / 400e9
    w.controls["alpha_us"].value = -2.0
    assert w.result is None and "alpha_us" in w.error
    w.controls["alpha_us"].value = 1.0
    assert w.error == "" and w.result.alpha == pytest.approx(1e-6)
