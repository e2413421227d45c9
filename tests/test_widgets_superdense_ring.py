"""Chapter 3 widgets, compute functions and figures (qring_edu.widgets/figures.superdense)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from qring_edu import (
    MODEL_SIZES,
    fixed_point,
    iteration_time,
    ring_allreduce,
    superdense_circuit,
    train_data_parallel,
)
from qring_edu.figures import superdense_ring as figs
from qring_edu.widgets import LiveFigure
from qring_edu.experiments.superdense_ring import (
    channel_statistics,
    iteration_comparison,
    symbol_error_sweep,
    training_comparison,
)
from qring_edu.widgets.superdense_ring import (
    iteration_time_widget,
    superdense_channel_widget,
    superdense_training_widget,
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
    assert channel_statistics(F, 100, seed=3).fast_counts.tolist() == \
        channel_statistics(F, 100, seed=3).fast_counts.tolist()  # deterministic given the seed
    perfect = channel_statistics(1.0, 500, seed=0)
    assert perfect.fast_error_rate == 0.0 and np.trace(perfect.fast_counts) == 500
    assert "F=0.8" in repr(st)


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


def test_training_comparison_identical_at_f1_and_not_below():
    same = training_comparison(1.0, 2, 16, steps=5)
    assert same.identical and np.array_equal(same.classical.weights, same.superdense.weights)
    ref = train_data_parallel(workers=2, steps=5, transport="classical")
    assert np.array_equal(same.classical.weights, ref.weights)
    noisy = training_comparison(0.9, 2, 16, steps=5)
    assert not noisy.identical and noisy.superdense.pair_fidelity == 0.9


def test_iteration_comparison_calls_the_cost_model():
    res = iteration_comparison(20.0, 8, "ResNet-50", 16, bandwidth_gbps=100.0, latency_us=5.0,
                               qubit_cost=2.0)
    beta = 1e-9 / 100.0
    args = (20e-3, 8, MODEL_SIZES["ResNet-50"], 16, 5e-6, beta)
    assert res.classical == iteration_time(*args)
    assert res.superdense == iteration_time(*args, transport="superdense", beta_qubit=2 * beta)
    assert res.speedup == pytest.approx(res.classical.total / res.superdense.total)
    with pytest.raises(ValueError, match="qubit_cost"):
        iteration_comparison(qubit_cost=-1.0)
    with pytest.raises(ValueError, match="model"):
        iteration_comparison(model="AlexNet")


# -- figures ------------------------------------------------------------------------------------
def test_figures_are_figures():
    st = channel_statistics(0.9, 200, 0, aer_symbols=20)
    cl = ring_allreduce(np.arange(12).reshape(3, 4), bits=8)
    sd = ring_allreduce(np.arange(12).reshape(3, 4), bits=8, transport="superdense")
    t_cl = iteration_time(0.01, 4, 1000, 16, 1e-6, 1e-9)
    t_sd = iteration_time(0.01, 4, 1000, 16, 1e-6, 1e-9, transport="superdense")
    x = np.random.default_rng(0).uniform(-1, 1, (3, 8))
    noisy = ring_allreduce(x, transport="superdense", pair_fidelity=0.9, seed=0)
    run = train_data_parallel(workers=2, steps=3)
    made = [
        figs.plot_superdense_circuits([superdense_circuit(1, 1)]),
        figs.plot_outcome_distributions(st),
        figs.plot_outcome_distributions(channel_statistics(0.9, 200, 0)),
        figs.plot_symbol_error_rate(symbol_error_sweep([0.5, 1.0], 100)),
        figs.plot_ledgers(cl.ledger, sd.ledger),
        figs.plot_iteration_timeline(t_cl, t_sd),
        figs.plot_iteration_time_vs_compute([t_cl, t_cl], [t_sd, t_sd], [t_sd, t_sd]),
        figs.plot_bit_flip_damage(fixed_point(4, 16, 1.0)),
        figs.plot_noisy_allreduce(noisy, x.sum(axis=0)),
        figs.plot_training_runs([run, run], ["a", "b"]),
    ]
    assert all(isinstance(f, Figure) for f in made)
    with pytest.raises(ValueError, match="unit"):
        figs.plot_iteration_timeline(t_cl, t_sd, unit="h")
    with pytest.raises(ValueError, match="labels"):
        figs.plot_training_runs([run], ["a", "b"])
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


def test_training_widget_updates_and_reports_errors():
    w = superdense_training_widget(steps=5)
    assert w.error == "" and w.result.superdense.pair_fidelity == 0.99
    first = _png(w)
    w.controls["pair_fidelity"].value = 1.0
    assert w.error == "" and w.result.identical and _png(w) != first
    w.controls["workers"].value = 4
    w.controls["bits"].value = 3  # 2**(3-1) - 1 = 3 < P = 4: no fixed-point level per worker
    assert w.result is None and "bits" in w.error
    w.controls["bits"].value = 16
    assert w.error == "" and w.result.classical.workers == 4


def test_iteration_time_widget_updates_and_reports_errors():
    w = iteration_time_widget(compute_ms=20.0)
    assert w.error == "" and w.result.classical.compute == pytest.approx(0.02)
    first = _png(w)
    w.controls["model"].value = "GPT-3"
    assert w.error == "" and _png(w) != first
    second = _png(w)
    w.controls["qubit_cost"].value = 2.0
    assert w.error == "" and w.result.speedup <= 1.0 + 1e-12 and _png(w) != second
    w.controls["qubit_cost"].value = -1.0
    assert w.result is None and "qubit_cost" in w.error
    w.controls["qubit_cost"].value = 1.0
    assert w.error == "" and w.result.speedup >= 1.0
