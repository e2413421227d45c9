"""Chapter 3 widgets, experiments and figures (qring_edu.{experiments,figures,widgets}.superdense_ring).

The training section's are in tests/test_widgets_training.py.
"""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from qring_edu import fixed_point, iteration_time, ring_allreduce, superdense_circuit
from qring_edu.costmodel import (
    MODEL_SIZES,
    allreduce_cut_bound,
    bucketed_best_ratio,
    bucketed_iteration_time,
)
from qring_edu.experiments import superdense_ring as experiments
from qring_edu.experiments.superdense_ring import (
    channel_statistics,
    cut_set_sweep,
    ket_label,
    overlap_comparison,
    overlap_sweep,
    superdense_state_table,
    symbol_error_sweep,
)
from qring_edu.figures import holevo as holevo_figs
from qring_edu.figures import superdense_ring as figs
from qring_edu.widgets import LiveFigure
from qring_edu.widgets.superdense_ring import (
    overlap_widget,
    superdense_channel_widget,
)


def _png(widget: LiveFigure) -> bytes:
    return bytes(widget.image.value)


# -- compute functions ------------------------------------------------------------------------
def test_channel_statistics_three_paths_agree():
    F = 0.8
    st = channel_statistics(F, 20_000, seed=3, aer_symbols=400)
    expected = np.full((4, 4), (1 - F) / 3) + np.eye(4) * (F - (1 - F) / 3)
    assert np.allclose(st.exact, expected, atol=1e-12)
    assert st.fast_symbols == 20_000 and st.aer_symbols == 400
    # Four standard errors (binomial) around 1 - F.
    for rate, n in ((st.fast_error_rate, 20_000), (st.aer_error_rate, 400)):
        assert abs(rate - (1 - F)) <= 4 * np.sqrt(F * (1 - F) / n)
    assert (
        channel_statistics(F, 100, seed=3).fast_counts.tolist()
        == channel_statistics(F, 100, seed=3).fast_counts.tolist()
    )  # deterministic given the seed
    perfect = channel_statistics(1.0, 500, seed=0)
    assert perfect.fast_error_rate == 0.0 and np.trace(perfect.fast_counts) == 500
    assert repr(st).startswith("ChannelStats(pair_fidelity=0.8, exact_error_rate=0.2,")


def test_channel_statistics_bad_input_names_argument():
    with pytest.raises(ValueError, match="pair_fidelity"):
        channel_statistics(1.2, 10, 0)
    with pytest.raises(ValueError, match="n_symbols"):
        channel_statistics(0.9, 0, 0)
    with pytest.raises(ValueError, match="seed"):
        channel_statistics(0.9, 10, -1)
    with pytest.raises(TypeError, match="n_symbols"):
        channel_statistics(0.9, 2.5, 0)


def test_symbol_error_sweep_follows_one_minus_f():
    sw = symbol_error_sweep([0.25, 0.5, 1.0], 10_000, aer_fidelities=[0.7], aer_symbols=300)
    for f, r in zip(sw.fidelities, sw.fast_rates):
        assert abs(r - (1 - f)) <= 4 * np.sqrt(f * (1 - f) / 10_000) + 1e-12
    assert sw.fast_rates[-1] == 0.0
    assert abs(sw.aer_rates[0] - 0.3) <= 4 * np.sqrt(0.21 / 300)


# -- figures ------------------------------------------------------------------------------------
def test_figures_are_figures():
    st = channel_statistics(0.9, 200, 0, aer_symbols=20)
    cl = ring_allreduce(np.arange(12).reshape(3, 4), bits=8)
    sd = ring_allreduce(np.arange(12).reshape(3, 4), bits=8, transport="superdense")
    t_cl = iteration_time(0.01, 4, 1000, 16, 1e-6, 1e-9)
    t_sd = iteration_time(0.01, 4, 1000, 16, 1e-6, 1e-9, transport="superdense")
    x = np.random.default_rng(0).uniform(-1, 1, (3, 8))
    noisy = ring_allreduce(x, transport="superdense", pair_fidelity=0.9, seed=0)
    made = [
        figs.plot_superdense_circuits([superdense_circuit(1, 1)]),
        figs.plot_outcome_distributions(st),
        figs.plot_outcome_distributions(channel_statistics(0.9, 200, 0)),
        figs.plot_symbol_error_rate(symbol_error_sweep([0.5, 1.0], 100)),
        figs.plot_ledgers(cl.ledger, sd.ledger),
        figs.plot_iteration_timeline(t_cl, t_sd),
        figs.plot_bit_flip_damage(fixed_point(4, 16, 1.0)),
        figs.plot_noisy_allreduce(noisy, x.sum(axis=0)),
    ]
    assert all(isinstance(f, Figure) for f in made)
    with pytest.raises(ValueError, match="unit"):
        figs.plot_iteration_timeline(t_cl, t_sd, unit="h")
    with pytest.raises(ValueError, match="exact_sum"):
        figs.plot_noisy_allreduce(noisy, np.zeros(3))


# -- widgets ------------------------------------------------------------------------------------
def test_channel_widget_updates_and_reports_errors():
    w = superdense_channel_widget(n_symbols=500)
    assert isinstance(w, LiveFigure) and w.error == "" and w.result.fast_symbols == 500
    first = _png(w)
    w.controls["pair_fidelity"].value = 0.6
    assert w.error == "" and w.result.pair_fidelity == 0.6 and _png(w) != first
    second = _png(w)
    w.controls["aer"].value = True
    assert w.error == "" and w.result.aer_symbols == 500 and _png(w) != second
    w.controls["aer"].value = False
    w.controls["pair_fidelity"].value = 1.7  # typed into the FloatText: outside [0.25, 1]
    assert w.result is None and "pair_fidelity" in w.error and "[0.25, 1]" in w.error
    assert "Cannot compute" in w.message.value
    w.controls["pair_fidelity"].value = 0.9
    assert w.error == "" and w.result is not None
    w.controls["seed"].value = -3
    assert w.result is None and "seed" in w.error
    bundle = w._repr_mimebundle_()
    assert "data:image/png;base64," in bundle["text/html"]


# -- the state after each gate ------------------------------------------------------------------
def test_ket_label_writes_qiskit_labels_with_phases():
    r = 1 / math.sqrt(2)
    assert ket_label([r, 0, 0, r]) == "(|00⟩ + |11⟩)/√2"
    assert ket_label([0, -r, r, 0]) == "(-|01⟩ + |10⟩)/√2"
    assert ket_label([0, 1j * r, 0, r]) == "(+i|01⟩ + |11⟩)/√2"
    assert ket_label([0.5, 0.5, -0.5, 0.5]) == "(|00⟩ + |01⟩ - |10⟩ + |11⟩)/2"
    assert ket_label([0, 0, 0, -1]) == "-|11⟩"
    assert ket_label([0.6, 0.8]) == "0.600|0⟩ + 0.800|1⟩"  # no common modulus
    with pytest.raises(ValueError, match="2\\*\\*n"):
        ket_label([1, 0, 0])
    with pytest.raises(ValueError, match="zero"):
        ket_label([0, 0])


def test_state_table_follows_the_library_circuit_and_ends_on_the_count_key():
    from qiskit.quantum_info import Statevector

    table = superdense_state_table()
    assert table.columns == ("after", '"00"', '"01"', '"10"', '"11"') and len(table) == 7
    last = dict(zip(table.columns[1:], table.rows[-1][1:]))
    assert last == {'"00"': "|00⟩", '"01"': "|01⟩", '"10"': "|10⟩", '"11"': "|11⟩"}
    assert set(table.rows[2][1:]) == {"(|00⟩ + |11⟩)/√2"}  # |Φ+⟩ for every message
    assert table.rows[3][1:3] == (None, None) and table.rows[4][1] is None  # no X / Z gate
    for m in range(4):  # the row before Bob's gates is the library's encoded state
        x, z = m >> 1, m & 1
        qc = superdense_circuit(x, z, measure=False)
        qc.remove_final_measurements()
        encoded = qc.copy_empty_like()
        for inst in qc.data[: [i.operation.name for i in qc.data].index("barrier", 3)]:
            encoded.append(inst)
        shown = table.rows[4][1 + m] or table.rows[3][1 + m] or table.rows[2][1 + m]
        assert shown == ket_label(Statevector(encoded).data)


# -- overlapped, bucketed iterations ------------------------------------------------------------
def test_overlap_comparison_is_the_cost_model_and_its_gain_is_the_smaller_bound():
    res = overlap_comparison(20.0, 100.0, 5.0, 5)
    d, beta = MODEL_SIZES["ResNet-50"], 1e-11
    kw = dict(buckets=5, method="simulate")
    cl = bucketed_iteration_time(0.02, 8, d, 16, 5e-6, beta, **kw)
    assert res.classical.total == pytest.approx(cl.total, rel=1e-12)
    assert res.superdense.total == pytest.approx(
        bucketed_iteration_time(0.02, 8, d, 16, 5e-6, beta, transport="superdense", **kw).total,
        rel=1e-12,
    )
    assert res.superdense.schedule and res.classical.ready == cl.ready
    for compute, bw in ((20.0, 100.0), (20.0, 10.0), (50.0, 10.0), (30.0, 25.0), (0.0, 100.0)):
        r = overlap_comparison(compute, bw)
        assert r.gain == pytest.approx(min(r.critical_path_gain, r.link_gain), abs=1e-12)
        assert r.link_gain == pytest.approx(r.classical.idle - 5 * 5e-6, abs=1e-12)
    assert overlap_comparison(20.0, 100.0).binding == "critical path"
    assert overlap_comparison(50.0, 10.0).binding == "link time"
    # all gradients at once (no compute): the link is busy the whole iteration, B alpha lost
    busy = overlap_comparison(0.0, 100.0)
    assert busy.gain == pytest.approx(-5 * 5e-6, abs=1e-8)  # (unequal chunks: ns)
    slow = overlap_comparison(20.0, 100.0, qubit_cost=2.0)
    assert slow.gain <= 1e-12 and slow.beta_qubit == 2 * slow.beta
    assert "ratio=0.9667" in repr(res) and res.table().columns[0] == "ring"
    with pytest.raises(ValueError, match="bandwidth_gbps"):
        overlap_comparison(bandwidth_gbps=0.0)
    with pytest.raises(ValueError, match="backward_fraction"):
        overlap_comparison(backward_fraction=1.5)
    with pytest.raises(ValueError, match="buckets"):
        overlap_comparison(buckets=0)


def test_overlap_sweep_matches_the_cost_model_and_its_bounds():
    sw = overlap_sweep(np.linspace(0, 3, 31), (1, 5, 25))
    d = MODEL_SIZES["ResNet-50"]
    assert sw.classical.shape == sw.superdense.shape == (3, 31)
    for i, B in enumerate((1, 5, 25)):
        W = sw.link_time[i]
        assert W == pytest.approx(
            bucketed_iteration_time(0.0, 8, d, 16, 5e-6, 1e-11, buckets=B, method="formula").online
        )
        j = 12
        sd = bucketed_iteration_time(
            sw.x[j] * W, 8, d, 16, 5e-6, 1e-11, buckets=B, transport="superdense", method="formula"
        )
        assert sw.superdense[i, j] == pytest.approx(sd.total, rel=1e-12)
        assert sw.best[i] == bucketed_best_ratio(B)
        assert np.all(sw.slow_ratio[i] >= 1 - 1e-12)  # beta_q = 2 beta never wins
        assert np.all(sw.ratio[i] >= sw.best[i] - 2e-3)  # alpha > 0: a hair above ideal
    assert np.allclose(sw.old_ratio[0], sw.ratio[0], atol=1e-3)  # B = 1 = non-overlapped
    with pytest.raises(ValueError, match="x must"):
        overlap_sweep([-1.0])
    with pytest.raises(ValueError, match="buckets"):
        overlap_sweep(buckets=())


def test_cut_set_sweep_is_the_library_bound():
    sw = cut_set_sweep(workers=(2, 3, 8, 64), d=1000, bits=16)
    for P, cl, sd, vga in zip(sw.workers, sw.classical_ring, sw.superdense_ring, sw.vga_bits_in):
        cut = allreduce_cut_bound(int(P), 1000, 16)
        assert (cl, sd, vga) == (cut.classical_ring, cut.superdense_ring, cut.vga_bits_in)
    assert sw.floor_qubits == 8000 and sw.floor_bits == 16000
    assert sw.superdense_ratio[0] == 1.0 and sw.table().column("P") == (2, 3, 8, 64)
    with pytest.raises(ValueError, match="workers"):
        cut_set_sweep(workers=(1,))


def test_new_figures_are_figures_and_refuse_bad_arguments():
    a, b = overlap_comparison(20.0, 100.0), overlap_comparison(50.0, 10.0)
    made = [
        figs.plot_overlap_timelines([a, b]),
        figs.plot_overlap_timeline(a),
        figs.plot_overlap_ratio(overlap_sweep(np.linspace(0, 3, 7))),
        holevo_figs.plot_cut_set(cut_set_sweep(workers=(2, 4, 8), d=800)),
    ]
    assert all(isinstance(f, Figure) for f in made)
    assert len(made[0].axes) == 2 and "ratio 0.967" in made[0].axes[0].get_title()
    with pytest.raises(ValueError, match="titles"):
        figs.plot_overlap_timelines([a], ["x", "y"])
    with pytest.raises(ValueError, match="results"):
        figs.plot_overlap_timelines([])
    with pytest.raises(ValueError, match="slow_buckets"):
        figs.plot_overlap_ratio(overlap_sweep([0.0, 1.0], (1,)), slow_buckets=7)


def test_overlap_widget_updates():
    w = overlap_widget()
    assert (
        isinstance(w, LiveFigure)
        and w.error == ""
        and w.result.ratio == pytest.approx(0.9667, abs=1e-4)
    )
    first = _png(w)
    w.controls["bandwidth_gbps"].value = 10.0
    assert w.error == "" and w.result.binding == "link time" and _png(w) != first
    w.controls["qubit_cost"].value = 2.0
    assert w.error == "" and w.result.gain <= 1e-12
    w.controls["buckets"].value = 1
    assert w.error == "" and w.result.classical.buckets == 1
    w.controls["backward_fraction"].value = 0.0
    assert w.error == "" and w.result.classical.ready == (w.result.classical.compute,)


# -- what moved, and the docstrings -------------------------------------------------------------
@pytest.mark.parametrize("module", [experiments, figs])
def test_docstring_examples(module):
    result = doctest.testmod(module, raise_on_error=False, verbose=False)
    assert result.attempted > 0 or module is figs
    assert result.failed == 0
