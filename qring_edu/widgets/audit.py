"""Widgets of chapter 5, *Alignment and sign auditing* (presentation layer).

Each factory returns a :class:`~qring_edu.widgets.LiveFigure` wired to a pure compute function
(below, also used directly by the chapter) and a pure plot function from
:mod:`qring_edu.figures.audit`. Nothing here displays anything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import ipywidgets as widgets
import numpy as np

from .._validate import check_float, check_int
from ..figures.audit import (
    plot_audit_explorer,
    plot_gapip_scaling,
    plot_noise_sweep,
    plot_tieaudit_scaling,
)
from ..scaling import GapIPScaling, TieAuditScaling, gapip_scaling, tieaudit_scaling
from ..sign_audit import (
    Estimate,
    check_matching,
    check_signs,
    outcome_probabilities,
    random_matching,
    signs_with_disagreement,
    tieaudit,
    tieaudit_copies,
)
from ._base import LiveFigure

__all__ = [
    "GapIPCurves",
    "AuditExplorer",
    "NoiseSweep",
    "gapip_curves",
    "audit_explorer",
    "noise_sweep",
    "tieaudit_curves",
    "plot_gapip_curves",
    "plot_noise_sweep",
    "gapip_widget",
    "tieaudit_explorer_widget",
    "tieaudit_scaling_widget",
]

#: Largest P the interactive GapIP curves simulate (each point runs the protocols on ``trials``
#: instances), so a widget stays responsive.
MAX_WIDGET_LOG2_P = 18


# --------------------------------------------------------------------------------------------
# GapIP: cost curves and accuracy
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GapIPCurves:
    """GapIP cost curves over ``tau`` in ``[tau_min, 0.4]`` with the selected ``tau`` marked."""

    tau: float
    scaling: GapIPScaling = field(repr=False)

    def __repr__(self) -> str:
        return f"GapIPCurves(tau={self.tau:g}, {self.scaling!r})"


def gapip_curves(tau: float = 0.05, log2_P: int = 16, trials: int = 8, seed: int = 0, *,
                 points: int = 7) -> GapIPCurves:
    """Run :func:`qring_edu.scaling.gapip_scaling` on ``points`` log-spaced values from 0.4 down
    to ``min(tau, 0.4 / 2)`` (so the curve always spans at least a factor 2) at
    ``P = 2^log2_P``."""
    tau = check_float(tau, "tau", 0.0, 1.0, lo_open=True, hi_open=True)
    log2_P = check_int(log2_P, "log2_P", 1, MAX_WIDGET_LOG2_P)
    trials = check_int(trials, "trials", 2, 200)
    points = check_int(points, "points", 2, 20)
    tau_min = min(tau, 0.2)
    taus = np.geomspace(0.4, tau_min, points) if tau_min < 0.4 else np.array([0.4, 0.2])
    return GapIPCurves(tau, gapip_scaling(taus, 2**log2_P, trials=trials, seed=seed))


def plot_gapip_curves(result: GapIPCurves):
    return plot_gapip_scaling(result.scaling, highlight_tau=result.tau)


def gapip_widget(tau: float = 0.05, log2_P: int = 12, trials: int = 6,
                 seed: int = 0) -> LiveFigure:
    """Sliders for the margin ``tau`` and ``log2 P``: live cost curves of the quantum and the
    classical GapIP protocols down to ``tau`` and their decision accuracy."""
    controls = {
        "tau": widgets.FloatLogSlider(value=tau, base=10, min=-2, max=math.log10(0.4),
                                      step=0.05, description="τ (smallest margin)",
                                      readout_format=".3f"),
        "log2_P": widgets.IntSlider(value=log2_P, min=4, max=MAX_WIDGET_LOG2_P,
                                    description="log₂ P"),
        "trials": widgets.IntSlider(value=trials, min=2, max=40, step=2,
                                    description="instances per τ"),
        "seed": widgets.IntText(value=seed, description="seed"),
    }
    _style(controls)
    return LiveFigure(gapip_curves, plot_gapip_curves, controls,
                      title="GapIP: communication against 1/τ")


# --------------------------------------------------------------------------------------------
# TieAudit: matching / sign-pattern explorer
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AuditExplorer:
    """One TieAudit instance and the three protocols' estimates on it."""

    signs: np.ndarray = field(repr=False)
    matching: np.ndarray = field(repr=False)
    eps: float = 0.1
    noise: float = 0.0
    f: float = 0.0
    alpha: float = 1.0
    p_plus: float = 0.0        # P(Y = +1) on one copy (with noise)
    p_minus: float = 0.0       # P(Y = -1)
    estimates: tuple[Estimate, ...] = field(default=(), repr=False)

    def __repr__(self) -> str:
        est = ", ".join(f"{e.protocol}={e.value:.3f}" for e in self.estimates)
        return (f"AuditExplorer(P={self.signs.size}, pairs={len(self.matching)}, f={self.f:.3f}, "
                f"{est})")


def audit_explorer(log2_P: int = 5, alpha: float = 0.75, f: float = 0.25, eps: float = 0.1,
                   noise: float = 0.0, seed: int = 0, *, signs=None,
                   matching=None) -> AuditExplorer:
    """Build an instance (random matching of fraction ``alpha`` with ``round(f m)`` disagreeing
    pairs, or the given ``signs``/``matching``) and run the quantum, entanglement-assisted and
    classical protocols at accuracy ``eps`` (the classical one ignores ``noise``)."""
    log2_P = check_int(log2_P, "log2_P", 1, 12)
    P = 2**log2_P
    if matching is None:
        matching = random_matching(P, alpha, seed=seed)
    m = check_matching(matching, P if signs is None else np.asarray(signs).size)
    if signs is None:
        signs = signs_with_disagreement(m, P, f, seed=seed + 1 if isinstance(seed, int) else seed)
    s = check_signs(signs)
    probs, y = outcome_probabilities(s, m, noise)
    ests = tuple(tieaudit(s, m, eps, protocol=p, noise=noise if p != "classical" else 0.0,
                          seed=seed)
                 for p in ("quantum", "entanglement_assisted", "classical"))
    return AuditExplorer(s, m, float(eps), float(noise),
                         float(np.mean(s[m[:, 0]] != s[m[:, 1]])), 2 * len(m) / s.size,
                         float(probs[y == 1].sum()), float(probs[y == -1].sum()), ests)


def tieaudit_explorer_widget(log2_P: int = 5, alpha: float = 0.75, f: float = 0.25,
                             eps: float = 0.1, noise: float = 0.0, seed: int = 0) -> LiveFigure:
    """Pick the size, the matched fraction, the disagreement ``f``, ``eps`` and the noise: the
    sign pattern with the matching, the distribution of ``Y`` and the three estimates."""
    controls = {
        "log2_P": widgets.IntSlider(value=log2_P, min=2, max=7, description="log₂ P"),
        "alpha": widgets.FloatSlider(value=alpha, min=0.05, max=1.0, step=0.05,
                                     description="matched fraction α"),
        "f": widgets.FloatSlider(value=f, min=0.0, max=1.0, step=0.05,
                                 description="disagreement f"),
        "eps": widgets.FloatText(value=eps, step=0.01, description="ε"),
        "noise": widgets.FloatSlider(value=noise, min=0.0, max=0.8, step=0.05,
                                     description="depolarising noise"),
        "seed": widgets.IntText(value=seed, description="seed"),
    }
    _style(controls)
    return LiveFigure(audit_explorer, plot_audit_explorer, controls,
                      title="TieAudit: signs, matching, measurement, estimates")


# --------------------------------------------------------------------------------------------
# TieAudit: cost against P, noise sweep
# --------------------------------------------------------------------------------------------

def tieaudit_curves(eps: float = 0.05, alpha: float = 1.0, delta: float = 0.05) -> TieAuditScaling:
    """Planned costs for ``P = 2^8 .. 2^30`` (nothing is run; the costs are fixed in advance)."""
    return tieaudit_scaling(range(8, 31, 2), eps, alpha=alpha, delta=delta, run_max_log2_P=0)


def tieaudit_scaling_widget(eps: float = 0.05, alpha: float = 1.0,
                            delta: float = 0.05) -> LiveFigure:
    """Sliders for ``eps``, ``alpha`` and ``delta``: TieAudit cost against ``P`` and the
    crossover."""
    controls = {
        "eps": widgets.FloatLogSlider(value=eps, base=10, min=-2.3, max=-0.5, step=0.05,
                                      description="ε", readout_format=".3f"),
        "alpha": widgets.FloatSlider(value=alpha, min=0.05, max=1.0, step=0.05,
                                     description="matched fraction α"),
        "delta": widgets.FloatLogSlider(value=delta, base=10, min=-4, max=-0.5, step=0.1,
                                        description="δ", readout_format=".4f"),
    }
    _style(controls)
    return LiveFigure(tieaudit_curves, plot_tieaudit_scaling, controls,
                      title="TieAudit: communication against P")


@dataclass(frozen=True)
class NoiseSweep:
    """Quantum TieAudit estimates of one instance at several noise levels."""

    noises: np.ndarray = field(repr=False)
    naive: np.ndarray = field(repr=False)        # f_hat ignoring the noise
    calibrated: np.ndarray = field(repr=False)   # f_hat with hidden test copies
    copies: np.ndarray = field(repr=False)       # data + test copies of the calibrated protocol
    f: float = 0.0
    eps: float = 0.05

    @property
    def naive_error(self) -> np.ndarray:
        return np.abs(self.naive - self.f)

    @property
    def calibrated_error(self) -> np.ndarray:
        return np.abs(self.calibrated - self.f)

    def __repr__(self) -> str:
        return (f"NoiseSweep(f={self.f:.3f}, eps={self.eps:g}, "
                f"max_calibrated_error={self.calibrated_error.max():.4f}, "
                f"max_naive_error={self.naive_error.max():.4f})")


def noise_sweep(noises=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5), *, log2_P: int = 12, alpha: float = 1.0,
                f: float = 0.2, eps: float = 0.05, seed: int = 0) -> NoiseSweep:
    """For each noise level: the calibrated estimate (:func:`qring_edu.tieaudit` with hidden test
    copies) and the naive one (the noiseless estimator on noisy copies: the data half of the
    same protocol read as if ``eta = 1``)."""
    log2_P = check_int(log2_P, "log2_P", 1, 22)
    P = 2**log2_P
    m = random_matching(P, alpha, seed=seed)
    s = signs_with_disagreement(m, P, f, seed=seed + 1)
    a = 2 * len(m) / P
    rng = np.random.default_rng(seed + 2)
    naive, cal, copies = [], [], []
    for noise in noises:
        e = tieaudit(s, m, eps, noise=noise, seed=rng)
        cal.append(e.value)
        copies.append(e.copies)
        # Naive reading: same number of data copies, E[Y] = eta alpha (1 - 2f) taken as alpha(1-2f).
        probs, y = outcome_probabilities(s, m, noise)
        data = tieaudit_copies(a, eps, noise=noise)[0]
        counts = rng.multinomial(data, [probs[y == 1].sum(), probs[y == -1].sum(),
                                        max(0.0, 1 - probs[y != 0].sum())])
        naive.append(float(np.clip((1 - (counts[0] - counts[1]) / data / a) / 2, 0, 1)))
    truth = float(np.mean(s[m[:, 0]] != s[m[:, 1]]))
    return NoiseSweep(np.asarray(noises, float), np.array(naive), np.array(cal),
                      np.array(copies), truth, float(eps))


def _style(controls: dict) -> None:
    for control in controls.values():
        control.style = {"description_width": "initial"}

