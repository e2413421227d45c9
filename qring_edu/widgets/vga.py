"""Widgets of chapter 4, *Verified GHZ aggregation* (presentation layer).

Each factory returns a :class:`~qring_edu.widgets.LiveFigure` wired to a pure compute function
(below, also used directly by the chapter) and a pure plot function from
:mod:`qring_edu.figures.vga`. Nothing here displays anything.

Transcript order: worker j's announcement ``m_j`` is a word in ``0 .. 2**bits - 1``; joint
histograms index ``(m_0, m_1)`` as (row, column).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import ipywidgets as widgets
import numpy as np
from scipy.stats import chi2_contingency

from .._validate import check_bits, check_choice, check_float, check_int, check_seed
from ..vga import (
    SOURCES,
    register_detection,
    vga_aggregate,
    vga_copy_counts,
    vga_epsilon,
)
from ..figures.vga import plot_attack_sweep, plot_epsilon_grid, plot_transcript_comparison
from ._base import LiveFigure

__all__ = [
    "AttackSweep",
    "TranscriptComparison",
    "EpsilonGrid",
    "attack_sweep",
    "transcript_comparison",
    "epsilon_grid",
    "parse_words",
    "vga_attack_widget",
    "vga_privacy_widget",
    "vga_epsilon_widget",
]

#: Largest amount of simulated work per widget call (runs * fractions * entries * workers).
MAX_WORK = 2_000_000
MAX_SAMPLES = 200_000


# --------------------------------------------------------------------------------------------
# Attack playground
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AttackSweep:
    """Acceptance rate, attacker accuracy and epsilon against the test fraction for one source.

    ``fractions``: test fractions f (sorted; includes ``test_fraction``). Per fraction:
    ``acceptance[i]`` (fraction of ``runs`` runs accepted), ``accuracy[i]`` (mean fraction of
    inputs the source guessed exactly), ``fail_rate[i]`` (failed / run tests, pooled),
    ``epsilon[i]`` (:func:`qring_edu.vga_epsilon` for ``n_copies(f)`` register-copies,
    ``bad_fraction``, detection per register :func:`qring_edu.register_detection`).
    """

    source: str
    workers: int
    bits: int
    entries: int
    runs: int
    test_fraction: float
    bad_fraction: float
    fractions: np.ndarray = field(repr=False)
    acceptance: np.ndarray = field(repr=False)
    accuracy: np.ndarray = field(repr=False)
    fail_rate: np.ndarray = field(repr=False)
    epsilon: np.ndarray = field(repr=False)

    def at(self, name: str) -> float:
        """Value of ``name`` ("acceptance", "accuracy", "fail_rate", "epsilon") at test_fraction."""
        i = int(np.argmin(np.abs(self.fractions - self.test_fraction)))
        return float(getattr(self, name)[i])

    def __repr__(self) -> str:
        return (f"AttackSweep(source={self.source!r}, P={self.workers}, bits={self.bits}, "
                f"d={self.entries}, runs={self.runs}, f={self.test_fraction:g}: "
                f"acceptance={self.at('acceptance'):.3f}, accuracy={self.at('accuracy'):.3f}, "
                f"epsilon={self.at('epsilon'):.3g})")


def attack_sweep(source: str = "known_pads", test_fraction: float = 0.5, entries: int = 8, *,
                 workers: int = 3, bits: int = 2, runs: int = 200,
                 eavesdrop_fraction: float = 0.25, noise: float = 0.02, tolerance: float = 0.0,
                 bad_fraction: float = 0.1, seed: int = 0) -> AttackSweep:
    """Run :func:`qring_edu.vga_aggregate` ``runs`` times per test fraction in
    ``{0, 0.1, ..., 0.9} + {test_fraction}`` on random inputs (P = ``workers``, d = ``entries``).

    ``eavesdrop_fraction`` and ``noise`` are used only by their source. Deterministic in ``seed``.
    """
    source = check_choice(source, "source", SOURCES)
    f = check_float(test_fraction, "test_fraction", 0.0, 1.0, hi_open=True)
    entries = check_int(entries, "entries", 1, 10_000)
    workers = check_int(workers, "workers", 2, 64)
    bits = check_bits(bits)
    runs = check_int(runs, "runs", 1, 100_000)
    beta = check_float(bad_fraction, "bad_fraction", 0.0, 1.0, hi_open=True)
    check_seed(seed)
    fractions = np.unique(np.round(np.append(np.arange(10) / 10, f), 6))
    if runs * fractions.size * entries * workers > MAX_WORK:
        raise ValueError(f"runs * entries * workers is too large for a live widget "
                         f"(at most {MAX_WORK // fractions.size} per fraction)")
    options = {"noisy": {"noise": noise}, "eavesdropper": {"eavesdrop_fraction": eavesdrop_fraction}}
    kw = options.get(source, {})
    rng = np.random.default_rng(seed)
    detection = register_detection(workers, bits)
    acc, guess, fail, eps = [], [], [], []
    for frac in fractions:
        accepted = correct = failed = tests = 0
        for _ in range(runs):
            x = rng.integers(0, 2**bits, size=(workers, entries))
            res = vga_aggregate(x, bits=bits, test_fraction=float(frac), source=source, seed=rng,
                                tolerance=tolerance, **kw)
            accepted += res.accepted
            correct += res.attacker_accuracy
            failed += res.tests_failed
            tests += res.tests
        acc.append(accepted / runs)
        guess.append(correct / runs)
        fail.append(failed / tests if tests else 0.0)
        n_copies = vga_copy_counts(entries, float(frac))[0]
        eps.append(vga_epsilon(n_copies, float(frac), beta, detection=detection))
    return AttackSweep(source=source, workers=workers, bits=bits, entries=entries, runs=runs,
                       test_fraction=f, bad_fraction=beta, fractions=fractions,
                       acceptance=np.array(acc), accuracy=np.array(guess),
                       fail_rate=np.array(fail), epsilon=np.array(eps))


# --------------------------------------------------------------------------------------------
# Privacy explorer
# --------------------------------------------------------------------------------------------

def parse_words(text, name: str = "inputs") -> np.ndarray:
    """``"1, 2, 3"`` (or a sequence of ints) -> int64 array; a clear ValueError otherwise."""
    if isinstance(text, str):
        parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p]
        try:
            values = [int(p) for p in parts]
        except ValueError:
            raise ValueError(f"{name} must be integers separated by commas, got {text!r}") from None
    else:
        values = list(np.asarray(text).reshape(-1))
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
            raise TypeError(f"{name} must be integers")
    return np.asarray(values, dtype=np.int64)


@dataclass(frozen=True)
class TranscriptComparison:
    """Transcripts of two input sets, ``samples`` independent runs of one entry each.

    ``joint_a[u, v]``: how often ``(m_0, m_1) = (u, v)`` for inputs a (shape (2**b, 2**b));
    ``sums_a[s]``: how often ``sum m_j = s mod 2**b``. ``p_value``: chi-squared homogeneity test
    of the full transcripts of a and b (large when they are indistinguishable).
    """

    bits: int
    inputs_a: np.ndarray = field(repr=False)
    inputs_b: np.ndarray = field(repr=False)
    samples: int
    joint_a: np.ndarray = field(repr=False)
    joint_b: np.ndarray = field(repr=False)
    sums_a: np.ndarray = field(repr=False)
    sums_b: np.ndarray = field(repr=False)
    p_value: float

    @property
    def same_sum(self) -> bool:
        m = (1 << self.bits) - 1
        return int(self.inputs_a.sum()) & m == int(self.inputs_b.sum()) & m

    def __repr__(self) -> str:
        return (f"TranscriptComparison(P={self.inputs_a.size}, bits={self.bits}, "
                f"samples={self.samples}, same_sum={self.same_sum}, p_value={self.p_value:.3f})")


def _transcript_counts(inputs: np.ndarray, bits: int, samples: int, seed):
    res = vga_aggregate(np.tile(inputs[:, None], samples), bits=bits, seed=seed)
    t = res.transcript
    size = 1 << bits
    joint = np.bincount(t[0] * size + t[1], minlength=size * size).reshape(size, size)
    sums = np.bincount(res.total & (size - 1), minlength=size)
    codes = sum(t[j] << (bits * j) for j in range(t.shape[0]))
    return joint, sums, codes


def transcript_comparison(inputs_a="1, 2, 3", inputs_b="3, 3, 0", bits: int = 2,
                          samples: int = 4000, seed: int = 0) -> TranscriptComparison:
    """Run VGA (honest source) ``samples`` times on each input set and compare the transcripts.

    ``inputs_a``, ``inputs_b``: one word per worker (a string ``"1, 2, 3"`` or a sequence), the
    same number P >= 2 of workers; ``bits``: 2..6 (histograms have ``2**(bits P)`` cells).
    """
    bits = check_int(bits, "bits", 2, 6)
    samples = check_int(samples, "samples", 10, MAX_SAMPLES)
    check_seed(seed)
    a = parse_words(inputs_a, "inputs_a")
    b = parse_words(inputs_b, "inputs_b")
    if a.size != b.size:
        raise ValueError(f"inputs_a and inputs_b must name the same number of workers, "
                         f"got {a.size} and {b.size}")
    if a.size * bits > 24:
        raise ValueError(f"too many cells for the histogram: P * bits must be <= 24, "
                         f"got {a.size} * {bits}")
    rng = np.random.default_rng(seed)
    joint_a, sums_a, codes_a = _transcript_counts(a, bits, samples, rng)
    joint_b, sums_b, codes_b = _transcript_counts(b, bits, samples, rng)
    cells = np.union1d(codes_a, codes_b)
    count_a = np.bincount(np.searchsorted(cells, codes_a), minlength=cells.size)
    count_b = np.bincount(np.searchsorted(cells, codes_b), minlength=cells.size)
    table = np.vstack([count_a, count_b])
    p_value = float(chi2_contingency(table).pvalue) if cells.size > 1 else 1.0
    return TranscriptComparison(bits=bits, inputs_a=a, inputs_b=b, samples=samples,
                                joint_a=joint_a, joint_b=joint_b, sums_a=sums_a, sums_b=sums_b,
                                p_value=p_value)


# --------------------------------------------------------------------------------------------
# Epsilon against copies and test fraction
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class EpsilonGrid:
    """``epsilon[i, k]`` = :func:`qring_edu.vga_epsilon` for ``used[k]`` used copies at test
    fraction ``fractions[i]`` (``n_copies = ceil(used / (1 - f))``); ``overhead[i] = 1/(1-f)``."""

    bad_fraction: float
    detection: float
    used: np.ndarray = field(repr=False)
    fractions: np.ndarray = field(repr=False)
    epsilon: np.ndarray = field(repr=False)

    @property
    def overhead(self) -> np.ndarray:
        return 1.0 / (1.0 - self.fractions)

    def __repr__(self) -> str:
        return (f"EpsilonGrid(bad_fraction={self.bad_fraction:g}, detection={self.detection:g}, "
                f"used={self.used.size} sizes up to {int(self.used.max())}, "
                f"fractions={self.fractions.size})")


def epsilon_grid(bad_fraction: float = 0.1, detection: float = 0.5, max_used: int = 400,
                 fractions=(0.25, 0.5, 0.75)) -> EpsilonGrid:
    """epsilon for 20 used-copy counts from 10 to ``max_used`` (log-spaced) and each fraction."""
    beta = check_float(bad_fraction, "bad_fraction", 0.0, 1.0, hi_open=True)
    delta = check_float(detection, "detection", 0.0, 1.0, lo_open=True)
    max_used = check_int(max_used, "max_used", 10, 5000)
    fr = np.asarray([check_float(v, "fractions", 0.0, 0.95) for v in fractions])
    used = np.unique(np.round(np.geomspace(10, max_used, 20)).astype(int))
    eps = np.array([[vga_epsilon(vga_copy_counts(int(u), float(f))[0], float(f), beta,
                                 detection=delta) for u in used] for f in fr])
    return EpsilonGrid(bad_fraction=beta, detection=delta, used=used, fractions=fr, epsilon=eps)


# --------------------------------------------------------------------------------------------
# Widget factories
# --------------------------------------------------------------------------------------------

def _style(controls: dict) -> None:
    for c in controls.values():
        c.style = {"description_width": "initial"}


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
    _style(controls)

    def compute(source, test_fraction, entries, eavesdrop_fraction, noise, tolerance):
        return attack_sweep(source, test_fraction, entries, runs=100,
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
    _style(controls)

    def compute(inputs_a, inputs_b, bits, samples):
        return transcript_comparison(inputs_a, inputs_b, bits, samples, seed=0)

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
    _style(controls)

    def compute(bad_fraction, detection):
        return epsilon_grid(bad_fraction, detection)

    return LiveFigure(compute, plot_epsilon_grid, controls, title="VGA soundness error ε")
