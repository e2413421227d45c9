"""Chapter 4 widgets, compute functions and figures (qring_edu.widgets/figures.vga)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from qring_edu import fixed_point
from qring_edu.figures import vga as figs
from qring_edu.vga import (
    ghz_test_circuit,
    known_pads_detection,
    vga_aggregate,
    vga_circuit,
    vga_epsilon,
    vga_ring_allreduce,
)
from qring_edu.widgets import LiveFigure
from qring_edu.experiments.vga import attack_sweep, epsilon_grid, transcript_comparison
from qring_edu.widgets._base import parse_integers
from qring_edu.widgets.vga import vga_attack_widget, vga_epsilon_widget, vga_privacy_widget


def _png(widget: LiveFigure) -> bytes:
    return bytes(widget.image.value)


# -- compute functions ------------------------------------------------------------------------
def test_attack_sweep_known_pads_and_honest():
    sweep = attack_sweep("known_pads", 0.5, 8, runs=40, seed=1)
    assert 0.5 in sweep.fractions and sweep.fractions[0] == 0.0
    assert sweep.acceptance[0] == 1.0           # no tests: the attack is silent
    assert sweep.at("acceptance") < 0.1 and np.all(sweep.accuracy == 1.0)
    assert abs(sweep.at("fail_rate") - known_pads_detection(3)) < 0.1
    assert np.all(np.diff(sweep.epsilon) <= 1e-12)
    honest = attack_sweep("honest", 0.3, 8, runs=40, seed=1)
    assert np.all(honest.acceptance == 1.0) and np.all(honest.accuracy < 0.6)
    assert 0.3 in honest.fractions
    assert "source='honest'" in repr(honest)
    assert repr(attack_sweep("honest", 0.3, 8, runs=5, seed=2)) == \
        repr(attack_sweep("honest", 0.3, 8, runs=5, seed=2))


def test_attack_sweep_bad_input():
    with pytest.raises(ValueError, match="test_fraction"):
        attack_sweep("honest", 1.0)
    with pytest.raises(ValueError, match="source"):
        attack_sweep("nobody")
    with pytest.raises(ValueError, match="too large"):
        attack_sweep("honest", 0.5, 10_000, runs=10_000)


def test_transcript_comparison_same_and_different_sums():
    same = transcript_comparison([1, 2, 3], [3, 3, 0], bits=2, samples=3000, seed=0)
    assert same.same_sum and same.p_value > 1e-3
    assert same.joint_a.sum() == 3000 and same.sums_a[2] == 3000 and same.sums_b[2] == 3000
    diff = transcript_comparison([1, 2, 3], [1, 2, 2], bits=2, samples=3000, seed=0)
    assert not diff.same_sum and diff.p_value < 1e-6
    assert "same_sum=False" in repr(diff)
    assert parse_integers("1 2; 3", "inputs") == [1, 2, 3]
    with pytest.raises(ValueError, match="inputs_a"):
        parse_integers("1, x", "inputs_a")
    with pytest.raises(TypeError, match="inputs_a"):
        transcript_comparison([1.5, 2], [1, 2])
    with pytest.raises(ValueError, match="same number"):
        transcript_comparison([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="P >= 2|two honest"):
        transcript_comparison([1], [2])


def test_epsilon_grid():
    grid = epsilon_grid(0.1, 0.5, max_used=200)
    assert grid.epsilon.shape == (3, grid.used.size)
    assert grid.epsilon[1, -1] == vga_epsilon(2 * int(grid.used[-1]), 0.5, 0.1, detection=grid.detection)
    assert np.all(grid.epsilon[2] <= grid.epsilon[1] + 1e-15)
    assert np.allclose(grid.overhead, [4 / 3, 2, 4])
    with pytest.raises(ValueError, match="detection"):
        epsilon_grid(0.1, 0.0)


def test_figures_are_figures():
    x = np.random.default_rng(0).normal(size=(3, 50))
    codec = fixed_point(3, 16, 4.0)
    words = np.stack([codec.encode(row) for row in x]).astype(np.int64)
    res = vga_ring_allreduce(words, bits=16, seed=0)
    decoded = codec.decode(res.total.astype(np.int64) & 0xFFFF)
    made = [
        figs.plot_vga_circuits([vga_circuit([1, 2], 2), ghz_test_circuit([1, 1, 0])], ["a", "b"]),
        figs.plot_transcript_comparison(transcript_comparison(samples=200)),
        figs.plot_attack_sweep(attack_sweep("eavesdropper", 0.5, 4, runs=5)),
        figs.plot_epsilon_grid(epsilon_grid(max_used=50)),
        figs.plot_source_comparison([vga_aggregate(np.ones((3, 4), dtype=int), source=s, seed=0)
                                     for s in ("honest", "known_pads")]),
        figs.plot_pipeline(res, x.sum(axis=0), decoded),
    ]
    assert all(isinstance(f, Figure) for f in made)
    with pytest.raises(ValueError):
        figs.plot_vga_circuits([])
    with pytest.raises(ValueError):
        figs.plot_source_comparison([])


# -- widgets ----------------------------------------------------------------------------------
def test_attack_widget_updates_and_reports_errors():
    w = vga_attack_widget(entries=4)
    assert isinstance(w, LiveFigure) and w.error == "" and w.result.source == "known_pads"
    first = _png(w)
    w.controls["source"].value = "honest"
    assert w.error == "" and w.result.source == "honest" and _png(w) != first
    w.controls["test_fraction"].value = 1.2
    assert w.result is None and "test_fraction" in w.error and "Cannot compute" in w.message.value
    w.controls["test_fraction"].value = 0.25
    assert w.error == "" and w.result.test_fraction == 0.25
    assert "data:image/png;base64," in w._repr_mimebundle_()["text/html"]


def test_privacy_widget_updates_and_reports_errors():
    w = vga_privacy_widget()
    assert w.error == "" and w.result.same_sum
    first = _png(w)
    w.controls["inputs_b"].value = "0, 0, 0"
    assert w.error == "" and not w.result.same_sum and _png(w) != first
    w.controls["inputs_b"].value = "0, zero"
    assert w.result is None and "inputs_b" in w.error
    w.controls["inputs_b"].value = "1, 2"
    assert w.result is None and "same number" in w.error


def test_epsilon_widget_updates():
    w = vga_epsilon_widget()
    assert w.error == ""
    first = _png(w)
    w.controls["bad_fraction"].value = 0.2
    assert w.error == "" and w.result.bad_fraction == 0.2 and _png(w) != first
