"""Widgets of chapter 4, *Verified GHZ aggregation* (presentation floor): factories only.

Each factory wires controls to one experiment of :mod:`qring_edu.experiments.vga` and one figure
of :mod:`qring_edu.figures.vga` through :class:`~qring_edu.widgets.LiveFigure`; nothing here
computes or displays anything.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .._deprecation import forward
from ..experiments import vga as _experiments
from ..figures.vga import plot_attack_sweep, plot_epsilon_grid, plot_transcript_comparison
from ..vga import SOURCES
from ._base import LiveFigure, parse_integers, wide_descriptions

__all__ = ["vga_attack_widget", "vga_privacy_widget", "vga_epsilon_widget"]


def vga_attack_widget(source: str = "known_pads", test_fraction: float = 0.5,
                      entries: int = 8) -> LiveFigure:
    """Attack playground: pick the source, the test fraction and the number of entries (used
    register-copies): acceptance rate, attacker's accuracy and epsilon against the test fraction.

    The test-fraction box accepts any number, so values outside [0, 1) show the library's error.
    """
    controls = {
        "source": widgets.Dropdown(options=list(SOURCES), value=source, description="source"),
        "test_fraction": widgets.FloatText(value=test_fraction, step=0.05,
                                           description="test fraction f"),
        "entries": widgets.IntSlider(value=entries, min=1, max=64, description="used copies d"),
        "eavesdrop_fraction": widgets.FloatSlider(value=0.25, min=0.0, max=1.0, step=0.05,
                                                  description="attacked fraction"),
        "noise": widgets.FloatSlider(value=0.02, min=0.0, max=0.3, step=0.01,
                                     description="dephasing p"),
        "tolerance": widgets.FloatSlider(value=0.0, min=0.0, max=0.5, step=0.01,
                                         description="tolerance"),
    }
    wide_descriptions(controls)

    def compute(source, test_fraction, entries, eavesdrop_fraction, noise, tolerance):
        return _experiments.attack_sweep(source, test_fraction, entries, runs=100,
                            eavesdrop_fraction=eavesdrop_fraction, noise=noise,
                            tolerance=tolerance, seed=0)

    return LiveFigure(compute, plot_attack_sweep, controls, title="VGA attack playground")


def vga_privacy_widget(inputs_a: str = "1, 2, 3", inputs_b: str = "3, 3, 0",
                       bits: int = 2) -> LiveFigure:
    """Privacy explorer: type two input sets (one word per worker) and compare the histograms of
    what the workers broadcast. Equal sums give the same histograms; different sums do not."""
    controls = {
        "inputs_a": widgets.Text(value=inputs_a, description="inputs a"),
        "inputs_b": widgets.Text(value=inputs_b, description="inputs b"),
        "bits": widgets.IntSlider(value=bits, min=2, max=4, description="bits b"),
        "samples": widgets.IntSlider(value=4000, min=500, max=50_000, step=500,
                                     description="runs"),
    }
    wide_descriptions(controls)

    def compute(inputs_a, inputs_b, bits, samples):
        return _experiments.transcript_comparison(parse_integers(inputs_a, "inputs_a"),
                                     parse_integers(inputs_b, "inputs_b"), bits, samples, seed=0)

    return LiveFigure(compute, plot_transcript_comparison, controls,
                      title="VGA privacy explorer")


def vga_epsilon_widget(bad_fraction: float = 0.1, detection: float = 0.5) -> LiveFigure:
    """epsilon against the number of used copies for test fractions 1/4, 1/2, 3/4."""
    controls = {
        "bad_fraction": widgets.FloatSlider(value=bad_fraction, min=0.0, max=0.5, step=0.01,
                                            description="bad fraction β"),
        "detection": widgets.FloatSlider(value=detection, min=0.05, max=1.0, step=0.05,
                                         description="detection per test δ"),
    }
    wide_descriptions(controls)

    def compute(bad_fraction, detection):
        return _experiments.epsilon_grid(bad_fraction, detection)

    return LiveFigure(compute, plot_epsilon_grid, controls, title="VGA soundness error ε")


# Deprecated (0.1): the chapter's results used to be importable from here.
__getattr__, __dir__ = forward(__name__, [_experiments], {
    "parse_words": (lambda text, name="inputs": np.asarray(parse_integers(text, name), dtype=np.int64),
                    "qring_edu.widgets._base.parse_integers"),
})
