"""Experiments of chapter 2, *The Holevo bound* (book/02_holevo.ipynb): χ and accessible
information of qubit ensembles, dense coding over the isotropic pair, the ring's ledger against
the Holevo floor and the cut-set bound (:func:`qring_edu.costmodel.allreduce_cut_bound`).

Numbers come from :mod:`qring_edu.holevo` and :func:`qring_edu.ring_allreduce`; information in
bits, angles in radians unless a name says degrees.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import field

import numpy as np

from .._result import result
from .._validate import check_bits, check_choice, check_fidelity, check_float, check_int
from ..costmodel import MODEL_SIZES, allreduce_cut_bound
from ..holevo import (
    AccessibleInformation,
    Ensemble,
    accessible_information,
    bb84_ensemble,
    bloch_ensemble,
    bloch_measurement,
    dense_coding_capacity,
    dense_coding_threshold,
    holevo_chi,
    isotropic_capacity,
    mutual_information,
    optimal_measurement,
    superdense_ensemble,
    trine_ensemble,
    two_state_accessible,
    two_state_chi,
    two_state_ensemble,
    von_neumann_entropy,
)
from ..ring import message_bits, ring_allreduce
from ..states import bloch_vector, isotropic_state, partial_trace
from ._base import LedgerComparison, Rows, Table, Tabular, compare_ledgers, worker_counts

__all__ = [
    "MAX_DESIGNER_STATES",
    "DESIGNER_PRESETS",
    "EnsembleAnalysis",
    "analyse_ensemble",
    "design_ensemble",
    "ensemble_table",
    "ensembles_table",
    "KnownEnsemble",
    "KnownEnsembles",
    "known_ensembles",
    "TwoStateSweep",
    "two_state_sweep",
    "DenseCodingSweep",
    "dense_coding_sweep",
    "dense_coding_table",
    "LedgerFloorSweep",
    "ledger_floor_sweep",
    "LedgerComparison",
    "compare_ledgers",
    "CutSetSweep",
    "cut_set_sweep",
]

#: The ensemble designer offers this many states (one θ and one φ slider each).
MAX_DESIGNER_STATES = 4
#: Largest P * d the ledger sweep simulates, so a typo cannot freeze a kernel.
MAX_LEDGER_WORDS = 2_000_000
#: Largest ``(P - 1) d b`` of :func:`cut_set_sweep`: its counts are int64 arrays.
MAX_CUT_BITS = 2**62

#: Presets of the ensemble designer: probabilities (text) and (θ, φ) in degrees per state.
#: The trine's third state at θ = 240° in the x–z plane is (θ, φ) = (120°, 180°).
DESIGNER_PRESETS: dict[str, tuple[str, tuple[tuple[float, float], ...]]] = {
    "trine": ("1/3, 1/3, 1/3", ((0.0, 0.0), (120.0, 0.0), (120.0, 180.0))),
    "BB84": ("1/4, 1/4, 1/4, 1/4", ((0.0, 0.0), (180.0, 0.0), (90.0, 0.0), (90.0, 180.0))),
    "two states, c = 1/2": ("1/2, 1/2", ((0.0, 0.0), (120.0, 0.0))),
    "tetrahedron (SIC)": (
        "1/4, 1/4, 1/4, 1/4",
        ((0.0, 0.0), (109.4712206, 0.0), (109.4712206, 120.0), (109.4712206, 240.0)),
    ),
}


# -- One qubit ensemble: χ, I_acc, and a chosen measurement ----------------------------------------
@result(show=("name", "accessible_value"))
class EnsembleAnalysis:
    """Information quantities of a qubit ensemble (bits): ``chi`` (:func:`qring_edu.holevo_chi`),
    ``accessible`` (:func:`qring_edu.optimal_measurement`), ``measured`` (mutual information of
    :func:`qring_edu.holevo.bloch_measurement` ``(meas_theta, meas_phi)``), ``bloch`` (n, 3), and
    the optimal POVM as ``E_k = w_k (I + m_k·σ)/2``: ``povm_directions`` (m, 3), ``povm_weights``
    (m,) (weights below 1e-3 dropped, elements along one direction merged).

    Examples
    --------
    >>> analyse_ensemble(bb84_ensemble())
    EnsembleAnalysis(chi=1, measured=0.5, name='BB84', accessible_value=0.5)
    """

    ensemble: Ensemble = field(repr=False)
    chi: float
    accessible: AccessibleInformation = field(repr=False)
    measured: float
    meas_theta: float = field(repr=False)
    meas_phi: float = field(repr=False)
    bloch: np.ndarray = field(repr=False)
    povm_directions: np.ndarray = field(repr=False)
    povm_weights: np.ndarray = field(repr=False)

    name = property(lambda self: self.ensemble.name, doc="The ensemble's name.")
    accessible_value = property(lambda self: self.accessible.value, doc="I_acc, bits.")

    @property
    def measurement_direction(self) -> np.ndarray:
        """Unit Bloch vector of the chosen measurement, shape (3,)."""
        t, p = self.meas_theta, self.meas_phi
        return np.array([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)])


def analyse_ensemble(
    ensemble: Ensemble,
    meas_theta: float = 0.0,
    meas_phi: float = 0.0,
    *,
    accessible: AccessibleInformation | None = None,
) -> EnsembleAnalysis:
    """:class:`EnsembleAnalysis` of a qubit :class:`~qring_edu.holevo.Ensemble`;
    ``accessible``: its :func:`qring_edu.optimal_measurement` if already computed.

    Examples
    --------
    >>> analyse_ensemble(bb84_ensemble(), np.pi / 2, 0.0)      # measured along +x
    EnsembleAnalysis(chi=1, measured=0.5, name='BB84', accessible_value=0.5)
    """
    if _ensemble(ensemble).dim != 2:
        raise ValueError(f"ensemble must be a qubit ensemble (dim 2), got dim {ensemble.dim}")
    povm = bloch_measurement(meas_theta, meas_phi)
    acc = optimal_measurement(*ensemble) if accessible is None else accessible
    angles, bloch = (float(meas_theta), float(meas_phi)), ensemble.bloch_vectors()
    chi, measured = holevo_chi(*ensemble), mutual_information(*ensemble, povm)
    return EnsembleAnalysis(
        ensemble, chi, acc, measured, *angles, bloch, *_povm_directions(acc.povm)
    )


def _ensemble(ensemble, name: str = "ensemble") -> Ensemble:
    if not isinstance(ensemble, Ensemble):
        raise TypeError(
            f"{name} must be a qring_edu.holevo.Ensemble, got {type(ensemble).__name__}"
        )
    return ensemble


def _povm_directions(povm: np.ndarray, min_weight: float = 1e-3) -> tuple[np.ndarray, np.ndarray]:
    """``povm_directions`` and ``povm_weights`` of :class:`EnsembleAnalysis` (the optimiser may
    split one element in two along the same direction)."""
    dirs, weights = [], []
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


def design_ensemble(
    probs: Sequence[float] = (1 / 3, 1 / 3, 1 / 3),
    theta0: float = 0.0,
    phi0: float = 0.0,
    theta1: float = 120.0,
    phi1: float = 0.0,
    theta2: float = 120.0,
    phi2: float = 180.0,
    theta3: float = 90.0,
    phi3: float = 90.0,
    radius: float = 1.0,
    meas_theta: float = 0.0,
    meas_phi: float = 0.0,
) -> EnsembleAnalysis:
    """The ensemble designer's computation, angles in **degrees**: one state per entry of
    ``probs`` (1 to 4), state i at Bloch angles ``(theta_i, phi_i)`` and length ``radius`` in
    [0, 1] (:func:`qring_edu.holevo.bloch_ensemble`).

    Examples
    --------
    >>> round(design_ensemble([0.5, 0.5], 0, 0, 90, 0).chi, 4)     # |0> and |+>
    0.6009
    """
    try:
        p = [float(v) for v in probs]
    except (TypeError, ValueError):
        raise TypeError(f"probs must be numbers, got {type(probs).__name__}") from None
    if not 1 <= len(p) <= MAX_DESIGNER_STATES:
        raise ValueError(f"probs must have 1 to {MAX_DESIGNER_STATES} entries, got {len(p)}")
    angles = [(theta0, phi0), (theta1, phi1), (theta2, phi2), (theta3, phi3)][: len(p)]
    thetas = tuple(check_float(t, f"theta{i}") for i, (t, _) in enumerate(angles))
    phis = tuple(check_float(f, f"phi{i}") for i, (_, f) in enumerate(angles))
    radius = check_float(radius, "radius", 0.0, 1.0)
    meas = {"meas_theta": meas_theta, "meas_phi": meas_phi}
    meas = [math.radians(check_float(v, name)) for name, v in meas.items()]
    ens, acc = _designed_ensemble(tuple(p), thetas, phis, radius)
    return analyse_ensemble(ens, *meas, accessible=acc)


@functools.lru_cache(maxsize=64)
def _designed_ensemble(probs: tuple, thetas: tuple, phis: tuple, radius: float):
    """The designer's ensemble and its optimal measurement, cached: moving only the measurement
    direction must not re-run the POVM optimisation (it is deterministic, seed 0)."""
    radii = [radius] * len(thetas)
    ens = bloch_ensemble(
        np.radians(thetas), np.radians(phis), list(probs), radii=radii, name="your ensemble"
    )
    return ens, optimal_measurement(*ens)


def ensemble_table(ensemble: Ensemble, *, keep: Sequence[int] | None = None) -> Table:
    """One row per state of a qubit ensemble: label, probability and Bloch vector (rounded to
    1e-9). With ``keep = [q]``: the Bloch vector of qubit q's reduced state (Qiskit order).

    Examples
    --------
    >>> print(ensemble_table(bb84_ensemble()))
    state     p   x   y   z
    |0>    0.25  +0  +0  +1
    |1>    0.25  +0  +0  -1
    |+>    0.25  +1  +0  +0
    |->    0.25  -1  +0  +0
    """
    _ensemble(ensemble)
    if keep is not None:
        keep = [check_int(q, "keep", 0) for q in keep]
        if len(keep) != 1:
            raise ValueError(f"keep must name exactly one qubit, got {keep}")
    elif ensemble.dim != 2:
        raise ValueError(f"ensemble must be a qubit ensemble (or keep set), got dim {ensemble.dim}")
    rows = []
    for label, p, rho in zip(ensemble.labels, ensemble.probs, ensemble.states):
        r = bloch_vector(partial_trace(rho, keep) if keep else rho)
        r = np.round(r, 9) + 0.0  # + 0.0 turns -0.0 into 0.0
        rows.append((f"|{label}>", float(p), *(float(v) for v in r)))
    q = "" if keep is None else f" (qubit {keep[0]})"
    head = ("state" if keep is None else "message", "p", *(f"{a}{q}" for a in "xyz"))
    return Table(head, tuple(rows), ("", ".2f", "+.0f", "+.0f", "+.0f"))


def ensembles_table(ensembles: Sequence[Ensemble], *, accessible: bool = False) -> Table:
    """One row per ensemble: states, ``S(average state)``, χ and with ``accessible`` I_acc
    (:func:`qring_edu.accessible_information`).

    Examples
    --------
    >>> print(ensembles_table([bb84_ensemble(), trine_ensemble()], accessible=True))
    ensemble  states  S(average)       χ   I_acc
    BB84           4      1.0000  1.0000  0.5000
    trine          3      1.0000  1.0000  0.5850
    """
    if not isinstance(accessible, (bool, np.bool_)):  # "False" is a truthy string
        raise TypeError(f"accessible must be True or False, got {accessible!r}")
    rows = []
    for ens in ensembles:
        _ensemble(ens, "ensembles")
        row = (ens.name, ens.size, von_neumann_entropy(ens.average_state()), holevo_chi(*ens))
        rows.append(row + ((accessible_information(*ens),) if accessible else ()))
    head = ("ensemble", "states", "S(average)", "χ") + (("I_acc",) if accessible else ())
    return Table(head, tuple(rows), ("", "d", ".4f", ".4f") + ((".4f",) if accessible else ()))


# -- Known ensembles and two pure states -----------------------------------------------------------
@result
class KnownEnsemble:
    """χ and accessible information (bits) of a textbook ensemble, computed by the library, next
    to the textbook values ``chi_expected`` and ``accessible_expected``.

    Examples
    --------
    >>> known_ensembles()[0]
    KnownEnsemble(name='BB84', chi=1, accessible=0.5, chi_expected=1, accessible_expected=0.5)
    """

    name: str
    chi: float
    accessible: float
    chi_expected: float
    accessible_expected: float


@result(show=("names",))
class KnownEnsembles(Rows):
    """The rows of :func:`known_ensembles` (:class:`KnownEnsemble`).

    Examples
    --------
    >>> rows = known_ensembles()
    >>> rows
    KnownEnsembles(names=('BB84', 'trine', 'two states c = 0.5', 'Bell states (superdense)'))
    >>> print(rows.table())
    ensemble                       χ   I_acc
    BB84                      1.0000  0.5000
    trine                     1.0000  0.5850
    two states c = 0.5        0.8113  0.6454
    Bell states (superdense)  2.0000  2.0000
    """

    names = property(
        lambda self: tuple(r.name.replace("\n", " ") for r in self.rows), doc="One line each."
    )

    def table(self) -> Table:
        """Name, χ and I_acc (computed)."""
        rows = tuple(zip(self.names, (r.chi for r in self), (r.accessible for r in self)))
        return Table(("ensemble", "χ", "I_acc"), rows, ("", ".4f", ".4f"))


def known_ensembles(overlap: float = 0.5) -> KnownEnsembles:
    """BB84, the trine, two pure states of overlap ``overlap`` and the four superdense-coded Bell
    states: computed χ and I_acc against the known values (BB84 1 and 1/2; trine 1 and
    log2 3 − 1; two states h((1+c)/2) and 1 − h((1 − sqrt(1−c²))/2); Bell 2 and 2).

    Examples
    --------
    >>> [round(r.accessible, 3) for r in known_ensembles()]
    [0.5, 0.585, 0.645, 2.0]
    """
    c = check_float(overlap, "overlap", 0.0, 1.0)
    two = (two_state_ensemble(c), two_state_chi(c), two_state_accessible(c))
    cases = [
        ("BB84", bb84_ensemble(), 1.0, 0.5),
        ("trine", trine_ensemble(), 1.0, math.log2(3) - 1),
        (f"two states\nc = {c:g}", *two),
        ("Bell states\n(superdense)", superdense_ensemble(), 2.0, 2.0),
    ]
    rows = [
        (name, holevo_chi(*ens), accessible_information(*ens), *known)
        for name, ens, *known in cases
    ]
    return KnownEnsembles(tuple(KnownEnsemble(*row) for row in rows))


@result(show=("points",))
class TwoStateSweep:
    """Two equiprobable pure states against their overlap c (bits): numerical ``chi`` and
    ``accessible`` at ``overlaps`` (n,); ``chi_formula`` = h((1+c)/2) and ``accessible_formula``
    = 1 − h((1 − sqrt(1−c²))/2) on the grid ``fine`` (201,).

    Examples
    --------
    >>> sweep = two_state_sweep([0.0, 0.5, 1.0])
    >>> sweep
    TwoStateSweep(points=3)
    >>> sweep.chi.round(4).tolist(), sweep.accessible.round(4).tolist()
    ([1.0, 0.8113, 0.0], [1.0, 0.6454, 0.0])
    """

    overlaps: np.ndarray = field(repr=False)
    chi: np.ndarray = field(repr=False)
    accessible: np.ndarray = field(repr=False)
    fine: np.ndarray = field(repr=False)
    chi_formula: np.ndarray = field(repr=False)
    accessible_formula: np.ndarray = field(repr=False)

    points = property(lambda self: int(self.overlaps.size), doc="Number of overlaps.")


def two_state_sweep(overlaps: Sequence[float] = tuple(np.linspace(0.0, 1.0, 11))) -> TwoStateSweep:
    """Numerical χ and I_acc of :func:`qring_edu.holevo.two_state_ensemble` for each overlap.

    Examples
    --------
    >>> two_state_sweep([0.0, 1.0]).chi.round(6).tolist()
    [1.0, 0.0]
    """
    cs = np.array([check_float(c, "overlaps", 0.0, 1.0) for c in overlaps])
    if cs.size == 0:
        raise ValueError("overlaps must contain at least one value")
    ens, fine = [two_state_ensemble(c) for c in cs], np.linspace(0.0, 1.0, 201)
    numeric = [np.array([f(*e) for e in ens]) for f in (holevo_chi, accessible_information)]
    formula = [np.array([f(c) for c in fine]) for f in (two_state_chi, two_state_accessible)]
    return TwoStateSweep(cs, *numeric, fine, *formula)


# -- Dense coding with a noisy pair ----------------------------------------------------------------
@result
class DenseCodingSweep:
    """Dense-coding capacity of the isotropic pair against its fidelity F (bits per qubit sent).

    ``fidelities``/``capacity`` (n,): ``C(F) = 2 − H(F, (1−F)/3 ×3)``. At ``pair_fidelity``:
    ``chosen_capacity`` (:func:`qring_edu.dense_coding_capacity`) and ``chosen_chi`` (χ of the
    four encoded states), equal. ``threshold``: F where C = 1.

    Examples
    --------
    >>> dense_coding_sweep(0.9)
    DenseCodingSweep(pair_fidelity=0.9, chosen_capacity=1.373, chosen_chi=1.373, threshold=0.8107)
    """

    pair_fidelity: float
    chosen_capacity: float
    chosen_chi: float
    threshold: float
    fidelities: np.ndarray = field(repr=False)
    capacity: np.ndarray = field(repr=False)

    useful = property(
        lambda self: max(self.chosen_capacity, 1.0),
        doc="max(C, 1): bits per qubit when Alice may also send one plain bit instead.",
    )
    helps = property(lambda self: self.chosen_capacity > 1.0, doc="C > 1: the pair beats a bit.")


def dense_coding_sweep(pair_fidelity: float = 0.9) -> DenseCodingSweep:
    """The dense-coding widget's computation: the curve on 301 fidelities from 1/4 to 1 and the
    values at ``pair_fidelity`` in [0.25, 1].

    Examples
    --------
    >>> dense_coding_sweep(0.9).fidelities.size
    301
    """
    F, fs = check_fidelity(pair_fidelity), np.linspace(0.25, 1.0, 301)
    chosen = (dense_coding_capacity(isotropic_state(F)), holevo_chi(*superdense_ensemble(F)))
    curve = np.array([isotropic_capacity(f) for f in fs])
    return DenseCodingSweep(F, *chosen, dense_coding_threshold(1.0), fs, curve)


def dense_coding_table(fidelities: Sequence[float] = (1.0, 0.95, 0.9, 0.8, 0.7, 0.5)) -> Table:
    """Four equal ways to the dense-coding rate of the isotropic pair, one row per fidelity F:
    :func:`qring_edu.dense_coding_capacity`, :func:`qring_edu.isotropic_capacity`, χ of the four
    encoded states and the mutual information of Bob's Bell measurement on them.

    Examples
    --------
    >>> print(dense_coding_table([1.0, 0.5]))
       F  C = dense_coding_capacity  2 - H(F, (1-F)/3 x3)  χ(encoded)  I(Bell measurement)
    1.00                     2.0000                2.0000      2.0000               2.0000
    0.50                     0.2075                0.2075      0.2075               0.2075
    """
    bell = superdense_ensemble().states  # projectors onto the four Bell states
    rows = []
    for F in (check_fidelity(F, "fidelities") for F in fidelities):
        noisy = superdense_ensemble(F)
        exact = (dense_coding_capacity(isotropic_state(F)), isotropic_capacity(F))
        rows.append((F, *exact, holevo_chi(*noisy), mutual_information(*noisy, bell)))
    head = ("F", "C = dense_coding_capacity", "2 - H(F, (1-F)/3 x3)", "χ(encoded)")
    return Table(head + ("I(Bell measurement)",), tuple(rows), (".2f",) + (".4f",) * 4)


# -- The ring's ledger against the Holevo floor ----------------------------------------------------
@result(show=("workers_range",))
class LedgerFloorSweep:
    """The busiest link of one all-reduce of ``d`` words of ``bits`` bits, per P in ``workers``
    (n,), from the ledgers of :func:`qring_edu.ring_allreduce`: ``classical_bits``,
    ``online_qubits`` and ``offline_qubits``. ``floor`` = ``classical_bits / 2`` (the
    entanglement-assisted Holevo bound); ``message_floor``: Σ ⌈k/2⌉ over the k-bit messages;
    ``cut_floor`` = d·b/2, the cut-set bound (:func:`qring_edu.costmodel.allreduce_cut_bound`).

    Examples
    --------
    >>> sw = ledger_floor_sweep(d=1001, bits=5, workers=(2, 4))
    >>> sw.online_qubits.tolist(), sw.floor.tolist()
    ([2503, 3756], [2502.5, 3755.0])
    """

    d: int
    bits: int
    workers: np.ndarray = field(repr=False)
    classical_bits: np.ndarray = field(repr=False)
    online_qubits: np.ndarray = field(repr=False)
    offline_qubits: np.ndarray = field(repr=False)
    message_floor: np.ndarray = field(repr=False)
    cut_floor: float = 0.0

    floor = property(lambda self: self.classical_bits / 2, doc="``classical_bits / 2`` per P.")
    workers_range = property(lambda self: (int(self.workers[0]), int(self.workers[-1])), doc="P.")


def ledger_floor_sweep(
    d: int = 1000, bits: int = 16, workers: Sequence[int] = tuple(range(2, 13))
) -> LedgerFloorSweep:
    """Run the classical and the superdense ring on zero gradients of shape (P, d) for each P and
    read their ledgers (``d`` >= 1 words, ``bits`` in 2..32, each P >= 2, P·d <= 2·10**6).

    Examples
    --------
    >>> sweep = ledger_floor_sweep(d=10, bits=5, workers=[2, 3, 4])
    >>> sweep.message_floor.tolist(), sweep.cut_floor
    ([26, 36, 42], 25.0)
    """

    d = check_int(d, "d", 1)
    bits = check_bits(bits)
    ps = worker_counts(workers, max_words=MAX_LEDGER_WORDS, d=d)
    counts = []
    for p in ps:
        zeros = np.zeros((p, d), dtype=np.int64)
        cl = ring_allreduce(zeros, bits=bits).ledger
        sd = ring_allreduce(zeros, bits=bits, transport="superdense").ledger
        per_msg = int(((message_bits(p, d, bits) + 1) // 2).sum(axis=1).max())
        counts.append((p, cl.online_bits(), sd.online_qubits(), sd.offline_qubits(), per_msg))
    columns = [np.array(c, dtype=np.int64) for c in zip(*counts)]
    return LedgerFloorSweep(d, bits, *columns, allreduce_cut_bound(2, d, bits).qubits)


# -- The cut-set bound for every all-reduce protocol -----------------------------------------------
@result(show=("workers_range",))
class CutSetSweep(Tabular):
    """What enters a worker in one all-reduce of ``d`` words of ``bits`` bits, per P in
    ``workers`` (n,) (:func:`qring_edu.costmodel.allreduce_cut_bound`): ``classical_ring`` bits,
    ``superdense_ring`` online qubits, ``vga_bits_in`` = ``(P-1) d b`` bits of VGA's GHZ sum;
    ``information`` (d·b): ``2 q + c >= information`` for the q qubits and c bits into a worker in
    any all-reduce protocol (any rounds, topology and pre-shared entanglement).

    Examples
    --------
    >>> sw = cut_set_sweep(d=8000, bits=16, workers=(2, 8))
    >>> sw.superdense_ring.tolist(), sw.cut_qubits, sw.vga_bits_in.tolist()
    ([64000, 112000], 64000.0, [128000, 896000])
    """

    d: int
    bits: int
    information: float
    workers: np.ndarray = field(repr=False)
    classical_ring: np.ndarray = field(repr=False)
    superdense_ring: np.ndarray = field(repr=False)
    vga_bits_in: np.ndarray = field(repr=False)

    cut_qubits = floor_qubits = property(
        lambda self: self.information / 2, doc="The cut-set floor with qubits only."
    )
    floor_bits = property(lambda self: float(self.information), doc="The floor with bits only.")
    superdense_ratio = property(
        lambda self: self.superdense_ring / self.floor_qubits,
        doc="Superdense ring's qubits in / the floor (2 (P-1)/P when P | d).",
    )
    ring_message_floor = property(
        lambda self: self.classical_ring / 2, doc="The floor for transports of the ring's messages."
    )
    workers_range = property(lambda self: (int(self.workers[0]), int(self.workers[-1])), doc="P.")

    def table(self) -> Table:
        """One row per P: the rings' bits and qubits into the busiest worker, the floor in
        qubits, the ratio, and the GHZ sum's classical bits in."""
        columns = (self.workers, self.classical_ring, self.superdense_ring, self.superdense_ratio)
        rows = tuple(
            (int(P), int(c), int(q), self.floor_qubits, float(r), int(v))
            for P, c, q, r, v in zip(*columns, self.vga_bits_in)
        )
        head = ("P", "classical ring (bits)", "superdense ring (qubits)", "cut-set floor (qubits)")
        head += ("ring ÷ floor", "GHZ sum (bits in)")
        return Table(head, rows, ("d", ",d", ",d", ",.0f", ".3f", ",d"))

    def capacity_in(self, which: str) -> np.ndarray:
        """``2 q + c`` entering the busiest worker (bits), per P, for ``which`` of
        ``"classical"``, ``"superdense"``, ``"vga"``."""
        counts = {
            "classical": self.classical_ring,
            "superdense": 2 * self.superdense_ring,
            "vga": self.vga_bits_in,
        }
        return counts[check_choice(which, "which", tuple(counts))].astype(float)


def cut_set_sweep(
    d: int = MODEL_SIZES["ResNet-50"],
    bits: int = 16,
    workers: Sequence[int] = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64),
) -> CutSetSweep:
    """:func:`qring_edu.costmodel.allreduce_cut_bound` for each P in ``workers`` (each >= 2,
    d >= 1 words of ``bits`` bits; default ResNet-50 with 16-bit words). Closed forms
    (:func:`qring_edu.costmodel.link_units`), no ring simulated: real model sizes are cheap.

    Examples
    --------
    >>> sweep = cut_set_sweep(d=8000, workers=[2, 4, 8])
    >>> sweep, sweep.information
    (CutSetSweep(d=8000, bits=16, information=1.28e+05, workers_range=(2, 8)), 128000.0)
    """
    d = check_int(d, "d", 1)
    bits = check_bits(bits)
    ps = worker_counts(workers)
    if (max(ps) - 1) * d * bits >= MAX_CUT_BITS:
        raise ValueError(f"workers * d * bits must be < 2**62 (int64), got P = {max(ps)}")
    cuts = [allreduce_cut_bound(p, d, bits) for p in ps]
    names = ("classical_ring", "superdense_ring", "vga_bits_in")
    counts = [np.array([getattr(c, n) for c in cuts], dtype=np.int64) for n in names]
    return CutSetSweep(d, bits, cuts[0].information, np.array(ps, dtype=np.int64), *counts)
