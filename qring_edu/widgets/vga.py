"""Widgets of chapter 5, *Verified GHZ aggregation*: :mod:`qring_edu.experiments.vga` and
:mod:`qring_edu.figures.vga` wired by :class:`~qring_edu.widgets.LiveFigure`."""

from __future__ import annotations

import ipywidgets as widgets

from ..experiments import vga as _experiments
from ..figures.vga import plot_attack_sweep, plot_epsilon_grid, plot_exact_privacy
from ..vga import Dephasing, Eavesdropper, Honest, KnownPads
from ..vga_security import KnownPadBits, SplitWorker
from ._base import LiveFigure, explorer, parse_integers, slider, wide_descriptions

__all__ = [
    "SOURCE_CHOICES",
    "ATTACK_CHOICES",
    "vga_attack_widget",
    "vga_privacy_widget",
    "vga_epsilon_widget",
]

#: The source drop-downs: label -> name (:func:`_source` makes the value).
SOURCE_CHOICES = (
    ("honest", "honest"),
    ("dephasing", "dephasing"),
    ("known pads (every copy)", "known_pads"),
    ("eavesdropper", "eavesdropper"),
)

#: The epsilon widget's attack drop-down: label -> name of an attack value (:data:`_ATTACKS`).
ATTACK_CHOICES = (
    ("split worker: the floor of every certain leak (δ = 1/4)", "split_worker"),
    ("known pads on one qubit GHZ (δ = δ_P)", "known_pads/1"),
    ("known pads, whole register", "known_pads"),
    ("eavesdropper, whole register", "eavesdropper"),
    ("dephasing (δ = 1)", "dephasing"),
)
_ATTACKS = {
    "split_worker": SplitWorker(),
    "known_pads/1": KnownPadBits(1),
    "known_pads": KnownPads(),
    "eavesdropper": Eavesdropper(),
    "dephasing": Dephasing(),
}


def _source(name: str, fraction: float = 0.25, p: float = 0.02):
    """The source value of a drop-down name (``fraction``: the eavesdropper's, ``p``: the
    dephasing probability)."""
    return {
        "honest": Honest,
        "dephasing": lambda: Dephasing(p),
        "known_pads": KnownPads,
        "eavesdropper": lambda: Eavesdropper(fraction),
    }[name]()


@explorer
def vga_attack_widget(
    source: str = "known_pads", test_fraction: float = 0.5, entries: int = 8
) -> LiveFigure:
    """Source, test fraction and used register-copies -> acceptance rate, attacker's accuracy
    and epsilon against the test fraction (:func:`qring_edu.experiments.vga.attack_sweep`).

    Examples
    --------
    >>> live = vga_attack_widget(entries=2)
    >>> live.result.source, live.result.runs
    (KnownPads(fraction=1.0), 100)
    >>> live.controls["source"].value = "honest"
    >>> round(float(live.result.acceptance.min()), 2)
    1.0
    """
    controls = {
        "source": widgets.Dropdown(
            options=list(SOURCE_CHOICES), value=source, description="source"
        ),
        "test_fraction": slider("test fraction f", test_fraction, 0.0, 0.9, 0.05),
        "entries": widgets.IntSlider(value=entries, min=1, max=64, description="used copies d"),
        "eavesdrop_fraction": slider("attacked fraction", 0.25, 0.0, 1.0, 0.05),
        "noise": slider("dephasing p", 0.02, 0.0, 0.3, 0.01),
        "tolerance": slider("tolerance", 0.0, 0.0, 0.5, 0.01),
    }
    wide_descriptions(controls)

    def compute(source, test_fraction, entries, eavesdrop_fraction, noise, tolerance):
        return _experiments.attack_sweep(
            _source(source, eavesdrop_fraction, noise),
            test_fraction,
            entries,
            runs=100,
            tolerance=tolerance,
            seed=0,
        )

    grid = {"source": None, "entries": sorted({1, 4, 8, 16, 64, entries})}
    return LiveFigure(
        compute, plot_attack_sweep, controls, title="VGA attack playground", grid=grid
    )


@explorer
def vga_privacy_widget(
    inputs_a: str = "1, 2, 3", inputs_b: str = "3, 3, 0", bits: int = 2, source: str = "honest"
) -> LiveFigure:
    """Two input sets (one word per worker) and a source -> the exact laws of the broadcasts and
    each set's distance from the ideal transcript (:func:`qring_edu.experiments.vga.exact_privacy`):
    0 for GHZ states, ``q**k (1 - 2**(-b(P-1)))`` for an eavesdropper on a fraction q of the
    registers, k registers per entry.

    Examples
    --------
    >>> live = vga_privacy_widget()
    >>> live.result
    ExactPrivacy(bits=2, source=Honest(), amplification=1, between=0, distance_a=0, distance_b=0, same_sum=True)
    >>> live.controls["inputs_b"].value = "3, 3"
    >>> live.error
    'inputs_a and inputs_b must name the same number of workers, got 3 and 2'
    """
    controls = {
        "inputs_a": widgets.Text(value=inputs_a, description="inputs a"),
        "inputs_b": widgets.Text(value=inputs_b, description="inputs b"),
        "bits": widgets.IntSlider(value=bits, min=1, max=3, description="bits b"),
        "source": widgets.Dropdown(
            options=[c for c in SOURCE_CHOICES if c[1] != "dephasing"],
            value=source,
            description="source",
        ),
        "eavesdrop_fraction": slider("eavesdropped fraction q", 0.25, 0.0, 1.0, 0.05),
        "amplification": widgets.IntSlider(
            value=1, min=1, max=3, description="registers per entry k"
        ),
    }
    wide_descriptions(controls)

    def compute(inputs_a, inputs_b, bits, source, eavesdrop_fraction, amplification):
        return _experiments.exact_privacy(
            parse_integers(inputs_a, "inputs_a"),
            parse_integers(inputs_b, "inputs_b"),
            bits,
            source=_source(source, eavesdrop_fraction),
            amplification=amplification,
        )

    # Second input set: the same sum as "1, 2, 3" modulo 4 twice, another sum once.
    others = [inputs_b] + [t for t in ("0, 0, 2", "1, 1, 1") if t != inputs_b]
    title, grid = "VGA privacy explorer (exact)", {"inputs_b": others, "source": None}
    return LiveFigure(compute, plot_exact_privacy, controls, title=title, grid=grid)


@explorer
def vga_epsilon_widget(
    attack: str = "split_worker", workers: int = 4, bits: int = 8, bad_fraction: float = 0.1
) -> LiveFigure:
    """An attack (:data:`ATTACK_CHOICES`), P, b and the bad fraction -> epsilon against the used
    copies for test fractions 1/4, 1/2, 3/4 (:func:`qring_edu.experiments.vga.epsilon_grid`).

    Examples
    --------
    >>> live = vga_epsilon_widget()
    >>> live.result
    EpsilonGrid(bad_fraction=0.1, attack=SplitWorker(qubits=1), detection=0.25, workers=4, bits=8)
    """
    controls = {
        "attack": widgets.Dropdown(
            options=list(ATTACK_CHOICES), value=attack, description="attack"
        ),
        "workers": widgets.IntSlider(value=workers, min=2, max=8, description="workers P"),
        "bits": widgets.IntSlider(value=bits, min=2, max=16, description="bits b"),
        "bad_fraction": slider("bad fraction β", bad_fraction, 0.0, 0.5, 0.01),
    }
    wide_descriptions(controls)

    def compute(attack, workers, bits, bad_fraction):
        return _experiments.epsilon_grid(bad_fraction, _ATTACKS[attack], workers=workers, bits=bits)

    grid = {"attack": None, "bad_fraction": sorted({0.0, 0.05, 0.1, 0.2, 0.3, bad_fraction})}
    return LiveFigure(
        compute, plot_epsilon_grid, controls, title="VGA soundness error ε", grid=grid
    )
