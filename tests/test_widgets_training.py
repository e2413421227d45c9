"""The training section's widgets and figures (qring_edu.widgets.training,
qring_edu.figures.training)."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure

import qring_edu as qr
from qring_edu.experiments.training import learner_comparison, learner_training
from qring_edu.figures import training as figs
from qring_edu.vqc import vqc_circuit
from qring_edu.widgets import LiveFigure
from qring_edu.widgets.training import learner_training_widget, superdense_training_widget


def _png(widget: LiveFigure) -> bytes:
    return bytes(widget.image.value)


def test_training_widget_updates_and_reports_errors():
    w = superdense_training_widget(steps=5)
    assert w.error == "" and w.result.superdense.link.pair == 0.99
    first = _png(w)
    w.controls["pair_fidelity"].value = 1.0
    assert w.error == "" and w.result.identical and _png(w) != first
    w.controls["workers"].value = 4
    w.controls["bits"].value = 3  # 2**(3-1) - 1 = 3 < P = 4: no fixed-point level per worker
    assert w.result is None and "bits" in w.error
    w.controls["bits"].value = 16
    assert w.error == "" and w.result.classical.workers == 4


def test_learner_widget_updates_on_every_control():
    w = learner_training_widget(steps=4)
    assert isinstance(w, LiveFigure) and w.error == ""
    assert w.result.model == "vqc" and w.result.pair_fidelity == 0.99
    assert "transport" not in w.controls  # the classical run is the reference of every setting
    seen = {_png(w)}
    for name, value in (
        ("pair_fidelity", 1.0),
        ("model", "mlp"),
        ("workers", 3),
        ("seed", 2),
    ):
        w.controls[name].value = value
        assert w.error == "", name
        seen.add(_png(w))
    assert len(seen) == 5
    assert w.result.identical and w.result.run.workers == 3
    w.controls["seed"].value = -1
    assert w.result is None and "seed" in w.error
    assert all(not getattr(c, "continuous_update", False) for c in w.controls.values())


def test_figures_are_figures():
    run = qr.train_data_parallel(workers=2, steps=3)
    cmp = learner_comparison(fidelities=(1.0, 0.95), steps=3)
    made = [
        figs.plot_training_runs([run, run], ["a", "b"]),
        figs.plot_learner_comparison(cmp),
        figs.plot_learner_training(learner_training(steps=3)),
        figs.plot_learner_training(learner_training(pair_fidelity=1.0, steps=3)),
        figs.plot_vqc_circuit(vqc_circuit(), "VQC"),
        figs.plot_ddp_hook_flow(),
        figs.plot_ddp_hook_flow(8),
    ]
    assert all(isinstance(f, Figure) for f in made)
    titles = [ax.get_title(loc="left") for ax in made[1].axes]
    assert any("82 parameters, 1,984 bits → 992 qubits" in t for t in titles)
    assert any("18 parameters, 448 bits → 224 qubits" in t for t in titles)
    assert "P = 8" in made[6].axes[0].get_title()
    with pytest.raises(ValueError, match="labels"):
        figs.plot_training_runs([run], ["a", "b"])
    with pytest.raises(ValueError, match="workers"):
        figs.plot_ddp_hook_flow(1)


def test_disagreement_panel_legend_reports_the_plotted_loss_spread():
    """The right panel plots the replicas' loss spread; its legend must give that curve's final
    value, not the weight divergence (which can differ by orders of magnitude)."""
    runs = [
        qr.train_data_parallel(transport="superdense", pair_fidelity=0.95, steps=20, seed=0),
        qr.train_data_parallel(transport="classical", steps=20, seed=0),
    ]
    fig = figs.plot_training_runs(runs, ["noisy", "classical"])
    ax = fig.axes[2]
    for line, text, run in zip(ax.get_lines(), ax.get_legend().get_texts(), runs):
        spread = run.losses.max(axis=1) - run.losses.min(axis=1)
        assert line.get_ydata()[-1] == spread[-1]
        assert text.get_text().endswith(f"{spread[-1]:.3g}")
    noisy_spread = runs[0].losses[-1].max() - runs[0].losses[-1].min()
    assert runs[0].divergence > 0 and f"{runs[0].divergence:.3g}" != f"{noisy_spread:.3g}"


def test_compression_explorer_selects_from_one_training():
    """The compression explorer trains once; each of its settings (baseline run x headers
    counted or not) is a different picture of the same runs. The superdense ring halves the
    composed run's channel uses exactly, and its classical headers, which it does not halve,
    erode that factor of two."""
    from qring_edu.widgets.training import compression_widget

    w = compression_widget(steps=12)
    cmp = w.result.comparison
    assert w.error == "" and w.result.baseline == cmp.runs[0].label and cmp.steps == 12
    pngs = set()
    for setting in w.explorer.settings():
        for name, value in setting.items():
            w.controls[name].value = value
        assert w.error == "" and w.result.comparison is cmp  # selected, never retrained
        pngs.add(_png(w))
    assert len(pngs) == len(w.explorer.settings()) == len(cmp.runs) * 2
    w.controls["headers"].value = False
    w.controls["baseline"].value = "PowerSGD rank 1 over the classical ring"
    ratio = dict(zip([r.label for r in cmp.runs], w.result.ratios))
    w.controls["headers"].value = True
    with_headers = dict(zip([r.label for r in cmp.runs], w.result.ratios))
    composed = "PowerSGD rank 1 over the superdense ring"
    assert ratio[composed] == 2.0 and 1.5 < with_headers[composed] < 2.0
    header = cmp.run(composed).header_bits
    assert with_headers[composed] == (8_224 + header) / (4_112 + header)
    gloo = "built-in all-reduce (gloo)"  # no ring, no headers: its traffic does not move
    assert w.result.traffic[0] == cmp.run(gloo).per_link
    with pytest.raises(ValueError, match="PowerSGD rank 1 \\(gloo\\)"):  # names the options
        compression_widget(baseline="gloo", steps=12)
    with pytest.raises(ValueError, match="steps"):
        compression_widget(steps=1)
