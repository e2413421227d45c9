"""Chapter 2 widgets and their pure compute functions: ensembles, χ, accessible information,
dense coding and the Holevo floor of the ring's ledger (presentation layer).

Compute functions (no matplotlib, no ipywidgets; every number comes from :mod:`qring_edu.holevo`
or from :func:`qring_edu.ring_allreduce`):

* :func:`analyse_ensemble` — χ, accessible information (with its optimal POVM) and the mutual
  information of one projective measurement, for a qubit ensemble;
* :func:`design_ensemble` — the same from the ensemble-designer widget's controls (angles in
  degrees, probabilities typed as text);
* :func:`known_ensembles` — χ and I_acc of BB84, the trine, two pure states and the superdense
  (Bell) ensemble, next to their textbook values;
* :func:`two_state_sweep` — χ and I_acc of two pure states against their overlap;
* :func:`dense_coding_sweep` — capacity of the isotropic pair against its fidelity;
* :func:`ledger_floor_sweep` — classical bits, superdense qubits and the Holevo floor per link.

Widget factories (:func:`ensemble_designer_widget`, :func:`dense_coding_widget`,
:func:`ledger_floor_widget`) wire controls to one compute function and one plot function of
:mod:`qring_edu.figures.holevo` through :class:`~qring_edu.widgets.LiveFigure`; they never display
anything.
"""

from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

import ipywidgets as widgets
import numpy as np
from scipy.optimize import brentq

from .._validate import check_bits, check_fidelity, check_float, check_int
from ..holevo import (
    AccessibleInformation,
    Ensemble,
    accessible_information,
    optimal_measurement,
    bb84_ensemble,
    bloch_ensemble,
    bloch_measurement,
    bloch_vector,
    dense_coding_capacity,
    holevo_chi,
    isotropic_capacity,
    mutual_information,
    superdense_ensemble,
    trine_ensemble,
    two_state_accessible,
    two_state_chi,
    two_state_ensemble,
)
from ..ring import ring_allreduce
from ..superdense import isotropic_state
from ._base import LiveFigure

__all__ = [
    "MAX_DESIGNER_STATES",
    "DESIGNER_PRESETS",
    "EnsembleAnalysis",
    "analyse_ensemble",
    "design_ensemble",
    "parse_probabilities",
    "KnownEnsemble",
    "known_ensembles",
    "TwoStateSweep",
    "two_state_sweep",
    "DenseCodingSweep",
    "dense_coding_sweep",
    "capacity_threshold",
    "LedgerFloorSweep",
    "ledger_floor_sweep",
    "ensemble_designer_widget",
    "dense_coding_widget",
    "ledger_floor_widget",
]

#: The ensemble designer offers this many states (one θ and one φ slider each).
MAX_DESIGNER_STATES = 4

#: Presets of the ensemble designer: probabilities (text) and (θ, φ) in degrees per state.
#: The trine's third state at θ = 240° in the x–z plane is (θ, φ) = (120°, 180°).
DESIGNER_PRESETS: dict[str, tuple[str, tuple[tuple[float, float], ...]]] = {
    "trine": ("1/3, 1/3, 1/3", ((0.0, 0.0), (120.0, 0.0), (120.0, 180.0))),
    "BB84": ("1/4, 1/4, 1/4, 1/4", ((0.0, 0.0), (180.0, 0.0), (90.0, 0.0), (90.0, 180.0))),
    "two states, c = 1/2": ("1/2, 1/2", ((0.0, 0.0), (120.0, 0.0))),
    "tetrahedron (SIC)": ("1/4, 1/4, 1/4, 1/4",
                          ((0.0, 0.0), (109.4712206, 0.0), (109.4712206, 120.0),
                           (109.4712206, 240.0))),
}


# ---------------------------------------------------------------------------------------------
# One qubit ensemble: χ, I_acc, and a chosen measurement
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class EnsembleAnalysis:
    """Information quantities of a qubit ensemble (bits).

    ``chi``: :func:`qring_edu.holevo_chi`; ``accessible``: :func:`qring_edu.accessible_information`
    (value and optimal POVM); ``measured``: mutual information of the projective measurement along
    the Bloch direction ``(meas_theta, meas_phi)`` (radians), :func:`qring_edu.holevo.bloch_measurement`.
    ``bloch``: Bloch vectors of the states, shape (n, 3). ``povm_directions`` (m, 3) and
    ``povm_weights`` (m,): the optimal POVM's rank-one elements ``E_k = w_k (I + m_k·σ)/2``
    (elements with ``w_k < 1e-3`` dropped, elements along one direction merged).
    """

    ensemble: Ensemble
    chi: float
    accessible: AccessibleInformation
    measured: float
    meas_theta: float
    meas_phi: float
    bloch: np.ndarray = field(repr=False)
    povm_directions: np.ndarray = field(repr=False)
    povm_weights: np.ndarray = field(repr=False)

    @property
    def measurement_direction(self) -> np.ndarray:
        """Unit Bloch vector of the chosen measurement, shape (3,)."""
        t, p = self.meas_theta, self.meas_phi
        return np.array([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)])

    def __repr__(self) -> str:
        return (f"EnsembleAnalysis({self.ensemble.name!r}, states={self.ensemble.size}, "
                f"chi={self.chi:.4f}, accessible={self.accessible.value:.4f}, "
                f"measured={self.measured:.4f})")


def analyse_ensemble(ensemble: Ensemble, meas_theta: float = 0.0, meas_phi: float = 0.0, *,
                     accessible: AccessibleInformation | None = None) -> EnsembleAnalysis:
    """χ, accessible information and the chosen measurement's mutual information of a qubit
    ``ensemble`` (an :class:`~qring_edu.holevo.Ensemble` of dimension 2); angles in radians.
    ``accessible``: a precomputed :func:`qring_edu.accessible_information` of this ensemble."""
    if not isinstance(ensemble, Ensemble):
        raise TypeError(f"ensemble must be a qring_edu.holevo.Ensemble, got {type(ensemble).__name__}")
    if ensemble.dim != 2:
        raise ValueError(f"ensemble must be a qubit ensemble (dim 2), got dim {ensemble.dim}")
    povm = bloch_measurement(meas_theta, meas_phi)
    acc = optimal_measurement(*ensemble) if accessible is None else accessible
    dirs, weights = _povm_directions(acc.povm)
    return EnsembleAnalysis(
        ensemble=ensemble, chi=holevo_chi(*ensemble), accessible=acc,
        measured=mutual_information(*ensemble, povm),
        meas_theta=float(meas_theta), meas_phi=float(meas_phi),
        bloch=ensemble.bloch_vectors(), povm_directions=dirs, povm_weights=weights)


def _povm_directions(povm: np.ndarray, min_weight: float = 1e-3) -> tuple[np.ndarray, np.ndarray]:
    """Bloch directions (m, 3) and weights (m,) of rank-one qubit POVM elements
    ``E_k = w_k (I + m_k·σ)/2``. Elements lighter than ``min_weight`` are dropped and elements
    along the same direction (the optimiser may split one element in two) are merged."""
    dirs: list[np.ndarray] = []
    weights: list[float] = []
    for e in povm:
        w = float(np.trace(e).real)
        if w < min_weight:
            continue
        m = bloch_vector(e / w)
        for k, other in enumerate(dirs):
            if float(m @ other) > 1 - 1e-4:
                weights[k] += w
                break
        else:
            dirs.append(m)
            weights.append(w)
    return np.array(dirs).reshape(-1, 3), np.array(weights)


def parse_probabilities(text, name: str = "probs") -> list[float]:
    """Probabilities typed as text: numbers or fractions separated by commas or spaces
    (``"0.5, 0.25, 0.25"``, ``"1/3 1/3 1/3"``). Never evaluates code.

    Only the syntax is checked here (``ValueError`` naming ``name``); whether they form a
    probability distribution is checked by the library (:func:`qring_edu.holevo.bloch_ensemble`).
    A sequence of numbers is accepted as is.
    """
    if isinstance(text, str):
        parts = [t for t in text.replace(",", " ").replace(";", " ").split() if t]
        if not parts:
            raise ValueError(f"{name} must list one probability per state, e.g. '0.5, 0.5'; "
                             "got an empty text")
        values = []
        for part in parts:
            try:
                values.append(float(Fraction(part)))
            except (ValueError, ZeroDivisionError):
                raise ValueError(f"{name} must be numbers or fractions such as 1/3 separated by "
                                 f"commas, got {part!r}") from None
        return values
    try:
        return [float(v) for v in text]
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a text such as '0.5, 0.5' or a sequence of numbers, "
                        f"got {type(text).__name__}") from None


def design_ensemble(probs="1/3, 1/3, 1/3",
                    theta0: float = 0.0, phi0: float = 0.0,
                    theta1: float = 120.0, phi1: float = 0.0,
                    theta2: float = 120.0, phi2: float = 180.0,
                    theta3: float = 90.0, phi3: float = 90.0,
                    radius: float = 1.0, meas_theta: float = 0.0,
                    meas_phi: float = 0.0) -> EnsembleAnalysis:
    """The ensemble designer's computation. Angles in **degrees**.

    The number n of entries of ``probs`` (1 to 4) is the number of states; state i has Bloch
    angles ``(theta_i, phi_i)`` and Bloch length ``radius`` (in [0, 1]; 1 = pure). Errors in the
    probabilities (not summing to 1, negative, wrong count) come from
    :func:`qring_edu.holevo.bloch_ensemble`.
    """
    p = parse_probabilities(probs)
    if len(p) > MAX_DESIGNER_STATES:
        raise ValueError(f"probs must have 1 to {MAX_DESIGNER_STATES} entries (one per state), "
                         f"got {len(p)}")
    n = len(p)
    angles = [(theta0, phi0), (theta1, phi1), (theta2, phi2), (theta3, phi3)][:n]
    for i, (t, f) in enumerate(angles):
        check_float(t, f"theta{i}")
        check_float(f, f"phi{i}")
    radius = check_float(radius, "radius", 0.0, 1.0)
    meas = (math.radians(check_float(meas_theta, "meas_theta")),
            math.radians(check_float(meas_phi, "meas_phi")))
    ens, acc = _designed_ensemble(tuple(p), tuple(float(a[0]) for a in angles),
                                  tuple(float(a[1]) for a in angles), radius)
    return analyse_ensemble(ens, *meas, accessible=acc)


@functools.lru_cache(maxsize=64)
def _designed_ensemble(probs: tuple, thetas: tuple, phis: tuple, radius: float):
    """The designer's ensemble and its accessible information, cached: moving only the
    measurement direction must not re-run the POVM optimisation (it is deterministic, seed 0)."""
    ens = bloch_ensemble(np.radians(thetas), np.radians(phis), list(probs),
                         radii=[radius] * len(thetas), name="your ensemble")
    return ens, optimal_measurement(*ens)


# ---------------------------------------------------------------------------------------------
# Known ensembles and two pure states
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KnownEnsemble:
    """χ and accessible information (bits) of a textbook ensemble, computed by the library, next
    to the textbook values ``chi_expected`` and ``accessible_expected``."""

    name: str
    chi: float
    accessible: float
    chi_expected: float
    accessible_expected: float

    def __repr__(self) -> str:
        name = self.name.replace("\n", " ")
        return (f"KnownEnsemble({name!r}, chi={self.chi:.4f}, accessible={self.accessible:.4f}, "
                f"expected=({self.chi_expected:.4f}, {self.accessible_expected:.4f}))")


def known_ensembles(overlap: float = 0.5) -> list[KnownEnsemble]:
    """BB84, the trine, two pure states of overlap ``overlap`` and the four superdense-coded Bell
    states: computed χ and I_acc against the known values (BB84 1 and 1/2; trine 1 and
    log2 3 − 1; two states h((1+c)/2) and 1 − h((1 − sqrt(1−c²))/2); Bell 2 and 2)."""
    c = check_float(overlap, "overlap", 0.0, 1.0)
    cases = [
        ("BB84", bb84_ensemble(), 1.0, 0.5),
        ("trine", trine_ensemble(), 1.0, math.log2(3) - 1),
        (f"two states\nc = {c:g}", two_state_ensemble(c), two_state_chi(c), two_state_accessible(c)),
        ("Bell states\n(superdense)", superdense_ensemble(), 2.0, 2.0),
    ]
    return [KnownEnsemble(name=name, chi=holevo_chi(*ens),
                          accessible=accessible_information(*ens),
                          chi_expected=chi, accessible_expected=acc)
            for name, ens, chi, acc in cases]


@dataclass(frozen=True, eq=False)
class TwoStateSweep:
    """Two equiprobable pure states against their overlap c (shape (n,) each, bits):
    numerical ``chi`` and ``accessible`` from the library; ``chi_formula`` = h((1+c)/2) and
    ``accessible_formula`` = 1 − h((1 − sqrt(1−c²))/2) on a fine grid ``fine``."""

    overlaps: np.ndarray = field(repr=False)
    chi: np.ndarray = field(repr=False)
    accessible: np.ndarray = field(repr=False)
    fine: np.ndarray = field(repr=False)
    chi_formula: np.ndarray = field(repr=False)
    accessible_formula: np.ndarray = field(repr=False)

    def __repr__(self) -> str:
        return f"TwoStateSweep(points={self.overlaps.size})"


def two_state_sweep(overlaps: Sequence[float] = tuple(np.linspace(0.0, 1.0, 11))) -> TwoStateSweep:
    """Numerical χ and I_acc of :func:`qring_edu.holevo.two_state_ensemble` for each overlap."""
    cs = np.array([check_float(c, "overlaps", 0.0, 1.0) for c in overlaps])
    if cs.size == 0:
        raise ValueError("overlaps must contain at least one value")
    ens = [two_state_ensemble(c) for c in cs]
    fine = np.linspace(0.0, 1.0, 201)
    return TwoStateSweep(
        overlaps=cs, chi=np.array([holevo_chi(*e) for e in ens]),
        accessible=np.array([accessible_information(*e) for e in ens]),
        fine=fine, chi_formula=np.array([two_state_chi(c) for c in fine]),
        accessible_formula=np.array([two_state_accessible(c) for c in fine]))


# ---------------------------------------------------------------------------------------------
# Dense coding with a noisy pair
# ---------------------------------------------------------------------------------------------
def capacity_threshold(level: float = 1.0) -> float:
    """The fidelity F at which :func:`qring_edu.isotropic_capacity` equals ``level`` bits
    (default 1: the classical bit per qubit), by ``scipy.optimize.brentq`` on [0.25, 1]
    (``xtol`` 1e-12). ``level`` must be in [0, 2]."""
    level = check_float(level, "level", 0.0, 2.0)
    if level == 0.0:
        return 0.25
    if level == 2.0:
        return 1.0
    return float(brentq(lambda f: isotropic_capacity(f) - level, 0.25, 1.0, xtol=1e-12))


@dataclass(frozen=True, eq=False)
class DenseCodingSweep:
    """Dense-coding capacity of the isotropic pair against its fidelity F (bits per qubit sent).

    ``fidelities``/``capacity``: the curve ``C(F) = 2 − H(F, (1−F)/3 ×3)``
    (:func:`qring_edu.isotropic_capacity`), shape (n,). At the chosen ``pair_fidelity``:
    ``chosen_capacity`` from :func:`qring_edu.dense_coding_capacity` of
    :func:`qring_edu.isotropic_state`, ``chosen_chi`` = χ of the four superdense-coded noisy
    states (:func:`qring_edu.holevo.superdense_ensemble`), equal to it. ``threshold``: F where
    C = 1 (:func:`capacity_threshold`). ``useful`` = max(C, 1): what the link can carry per qubit
    when Alice may also ignore the pair and send one plain bit.
    """

    pair_fidelity: float
    chosen_capacity: float
    chosen_chi: float
    threshold: float
    fidelities: np.ndarray = field(repr=False)
    capacity: np.ndarray = field(repr=False)

    @property
    def useful(self) -> float:
        return max(self.chosen_capacity, 1.0)

    @property
    def helps(self) -> bool:
        """True when the noisy pair beats the plain bit per qubit (F above the threshold)."""
        return self.chosen_capacity > 1.0

    def __repr__(self) -> str:
        return (f"DenseCodingSweep(F={self.pair_fidelity:.4f}, C={self.chosen_capacity:.4f}, "
                f"threshold={self.threshold:.4f})")


def dense_coding_sweep(pair_fidelity: float = 0.9) -> DenseCodingSweep:
    """The dense-coding widget's computation (``pair_fidelity`` in [0.25, 1])."""
    F = check_fidelity(pair_fidelity)
    fs = np.linspace(0.25, 1.0, 301)
    return DenseCodingSweep(
        pair_fidelity=F, chosen_capacity=dense_coding_capacity(isotropic_state(F)),
        chosen_chi=holevo_chi(*superdense_ensemble(F)), threshold=capacity_threshold(1.0),
        fidelities=fs, capacity=np.array([isotropic_capacity(f) for f in fs]))


# ---------------------------------------------------------------------------------------------
# The ring's ledger against the Holevo floor
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class LedgerFloorSweep:
    """Per-link communication of one all-reduce of ``d`` words of ``bits`` bits, for each P in
    ``workers`` (shape (n,) each), read from the ledgers of :func:`qring_edu.ring_allreduce`
    (busiest link): ``classical_bits`` (classical transport), ``online_qubits`` and
    ``offline_qubits`` (superdense transport). ``floor`` = ``classical_bits / 2``: the fewest
    qubits any protocol could send for those bits (entanglement-assisted Holevo bound).
    ``message_floor``: Σ over that link's messages of ⌈k/2⌉ for a k-bit message — the bound
    applied message by message (qubits are whole)."""

    d: int
    bits: int
    workers: np.ndarray = field(repr=False)
    classical_bits: np.ndarray = field(repr=False)
    online_qubits: np.ndarray = field(repr=False)
    offline_qubits: np.ndarray = field(repr=False)
    message_floor: np.ndarray = field(repr=False)

    @property
    def floor(self) -> np.ndarray:
        return self.classical_bits / 2

    def __repr__(self) -> str:
        return (f"LedgerFloorSweep(d={self.d}, bits={self.bits}, "
                f"P={int(self.workers[0])}..{int(self.workers[-1])})")


#: Largest P * d the ledger sweep simulates, so a typo cannot freeze a kernel.
MAX_LEDGER_WORDS = 2_000_000


def ledger_floor_sweep(d: int = 1000, bits: int = 16,
                       workers: Sequence[int] = tuple(range(2, 13))) -> LedgerFloorSweep:
    """Run the classical and the superdense ring on zero gradients of shape (P, d) for each P and
    read their ledgers (``d`` >= 1 words, ``bits`` in 2..32, each P >= 2, P·d <= 2·10**6)."""
    d = check_int(d, "d", 1)
    bits = check_bits(bits)
    ps = [check_int(p, "workers", 2) for p in workers]
    if not ps:
        raise ValueError("workers must list at least one worker count")
    if max(ps) * d > MAX_LEDGER_WORDS:
        raise ValueError(f"workers * d must be <= {MAX_LEDGER_WORDS:,} for this sweep, "
                         f"got {max(ps) * d:,}")
    classical, online, offline, per_msg = [], [], [], []
    for p in ps:
        zeros = np.zeros((p, d), dtype=np.int64)
        cl = ring_allreduce(zeros, bits=bits).ledger
        sd = ring_allreduce(zeros, bits=bits, transport="superdense").ledger
        classical.append(cl.online_bits())
        online.append(sd.online_qubits())
        offline.append(sd.offline_qubits())
        per_msg.append(_message_floor(p, d, bits))
    return LedgerFloorSweep(d=d, bits=bits, workers=np.array(ps, dtype=np.int64),
                            classical_bits=np.array(classical, dtype=np.int64),
                            online_qubits=np.array(online, dtype=np.int64),
                            offline_qubits=np.array(offline, dtype=np.int64),
                            message_floor=np.array(per_msg, dtype=np.int64))


def _message_floor(P: int, d: int, bits: int) -> int:
    """max over links of Σ_messages ⌈k/2⌉, from the ring schedule's chunk sizes."""
    from ..ring import chunk_bounds, ring_schedule

    sizes = np.diff(chunk_bounds(d, P))
    per_link = np.zeros(P, dtype=np.int64)
    for msg in ring_schedule(P):
        per_link[msg.sender] += -(-int(sizes[msg.chunk]) * bits // 2)
    return int(per_link.max())


# ---------------------------------------------------------------------------------------------
# Widget factories
# ---------------------------------------------------------------------------------------------
class _PresetLiveFigure(LiveFigure):
    """A LiveFigure whose ``preset`` dropdown rewrites several controls and then redraws once."""

    _hold = False

    def _on_change(self, change) -> None:
        if self._hold or change.get("owner") is self.controls.get("preset"):
            return
        super()._on_change(change)


def ensemble_designer_widget(preset: str = "trine", meas_theta: float = 0.0,
                             meas_phi: float = 0.0) -> LiveFigure:
    """Up to four qubit states on the Bloch sphere and a measurement direction ->
    :func:`qring_edu.figures.holevo.plot_ensemble_analysis` (χ, I_acc, the measurement's I).

    Controls: ``preset`` (loads angles and probabilities), ``probs`` (text: one probability per
    state, their number sets how many states are used), ``theta0..3``/``phi0..3`` (degrees),
    ``radius`` (Bloch length of every state, 1 = pure), ``meas_theta``/``meas_phi`` (degrees).
    Probabilities that do not form a distribution show the library's error message.
    """
    from ..figures.holevo import plot_ensemble_analysis

    if preset not in DESIGNER_PRESETS:
        raise ValueError(f"preset must be one of {', '.join(map(repr, DESIGNER_PRESETS))}, "
                         f"got {preset!r}")
    probs_text, angles = DESIGNER_PRESETS[preset]
    full = list(angles) + [(90.0, 90.0)] * (MAX_DESIGNER_STATES - len(angles))
    slider = dict(style={"description_width": "initial"},
                  layout=widgets.Layout(width="230px"), readout_format=".0f")
    controls: dict[str, widgets.ValueWidget] = {
        "preset": widgets.Dropdown(options=list(DESIGNER_PRESETS) + ["custom"], value=preset,
                                   description="load preset"),
        "probs": widgets.Text(value=probs_text, description="probs", continuous_update=False,
                              placeholder="e.g. 0.5, 0.25, 0.25"),
    }
    for i, (t, f) in enumerate(full):
        controls[f"theta{i}"] = widgets.FloatSlider(value=t, min=0, max=180, step=1,
                                                    description=f"θ{i} (°)", **slider)
        controls[f"phi{i}"] = widgets.FloatSlider(value=f, min=0, max=360, step=1,
                                                  description=f"φ{i} (°)", **slider)
    controls["radius"] = widgets.FloatSlider(value=1.0, min=0.0, max=1.0, step=0.05,
                                             description="Bloch length",
                                             style={"description_width": "initial"},
                                             layout=widgets.Layout(width="230px"))
    controls["meas_theta"] = widgets.FloatSlider(value=meas_theta, min=0, max=180, step=1,
                                                 description="measure θ (°)", **slider)
    controls["meas_phi"] = widgets.FloatSlider(value=meas_phi, min=0, max=360, step=1,
                                               description="measure φ (°)", **slider)

    def compute(preset: str, **values) -> EnsembleAnalysis:
        return design_ensemble(**values)

    w = _PresetLiveFigure(compute, plot_ensemble_analysis, controls,
                          title="Ensemble designer: χ, accessible information and one measurement")
    state_controls = [c for name, c in controls.items()
                      if name.startswith(("theta", "phi")) or name in ("probs", "radius")]

    def _load(change) -> None:
        if w._hold or change["new"] not in DESIGNER_PRESETS:
            return
        text, angs = DESIGNER_PRESETS[change["new"]]
        w._hold = True
        try:
            controls["probs"].value = text
            for i, (t, f) in enumerate(angs):
                controls[f"theta{i}"].value = t
                controls[f"phi{i}"].value = f
            controls["radius"].value = 1.0
        finally:
            w._hold = False
        w.refresh()

    def _to_custom(_change) -> None:
        if not w._hold:
            w._hold = True
            try:
                controls["preset"].value = "custom"
            finally:
                w._hold = False

    controls["preset"].observe(_load, names="value")
    for c in state_controls:
        c.observe(_to_custom, names="value")
    return w


def dense_coding_widget(pair_fidelity: float = 0.9) -> LiveFigure:
    """Pair-fidelity slider -> capacity of dense coding over the isotropic pair against the
    classical 1 bit per qubit (:func:`qring_edu.figures.holevo.plot_dense_coding`)."""
    from ..figures.holevo import plot_dense_coding

    controls = {"pair_fidelity": widgets.FloatSlider(
        value=pair_fidelity, min=0.25, max=1.0, step=0.005, readout_format=".3f",
        description="pair fidelity F", style={"description_width": "initial"},
        layout=widgets.Layout(width="420px"))}
    return LiveFigure(dense_coding_sweep, plot_dense_coding, controls,
                      title="Dense coding with a noisy pair: bits per qubit sent")


def ledger_floor_widget(d: str = "1000", bits: int = 16) -> LiveFigure:
    """Words per gradient (text) and word size -> per-link classical bits, superdense online
    qubits and the Holevo floor for P = 2..12 (:func:`qring_edu.figures.holevo.plot_ledger_floor`)."""
    from ..figures.holevo import plot_ledger_floor

    controls = {
        "d": widgets.Text(value=str(d), description="d (words)", continuous_update=False),
        "bits": widgets.IntSlider(value=bits, min=2, max=32, description="bits per word",
                                  style={"description_width": "initial"}),
    }

    def compute(d, bits: int) -> LedgerFloorSweep:
        return ledger_floor_sweep(_parse_int(d, "d"), bits)

    return LiveFigure(compute, plot_ledger_floor, controls,
                      title="The ring's online ledger against the Holevo floor")


def _parse_int(text, name: str) -> int:
    """An integer from a text box (``"1000"``, ``"10_000"``); ``ValueError`` naming ``name``."""
    if isinstance(text, numbers.Integral) and not isinstance(text, bool):
        return int(text)
    if not isinstance(text, str):
        raise TypeError(f"{name} must be an integer, got {type(text).__name__}")
    try:
        return int(text.strip().replace("_", "").replace(",", ""))
    except ValueError:
        raise ValueError(f"{name} must be an integer >= 1, got {text!r}") from None
