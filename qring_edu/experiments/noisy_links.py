"""Experiments of the chapter *Noisy links* (experiments floor): what remains of the factor of two.

Pair and channel noise compose into ``F_eff`` (:func:`link_noise_check`); capacities and the
link's bound ``C_E(F_eff)`` (:func:`capacity_sweep`); distillation (:func:`distillation_sweep`);
the net online factor of every protection scheme (:func:`net_factor_sweep`,
:func:`remedy_table`); photon loss: the factor against transmission and distance
(:func:`loss_sweep`, :func:`loss_crossover`) and lost photons on the ring's ledger
(:func:`loss_run`); one ring all-reduce per scheme, the claims-page row
(:func:`scheme_ledger`); training over a protected noisy ring (:func:`protected_training`); Bell
pairs per iteration against published hardware (:mod:`~qring_edu.experiments.noisy_links_reality`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import astuple, field

import numpy as np

from .._result import result
from .._validate import (
    as_numeric_array,
    check_choice,
    check_fidelity,
    check_float,
    check_int,
)
from ..costmodel import link_units
from ..distillation import DISTILL_PROTOCOLS, distill, distillable_yield
from ..holevo import dense_coding_threshold
from ..noise import Link, depolarizing_capacities, effective_fidelity
from ..protection import FEC, SCHEMES, Distill, NetFactor, Protection, expected_net_factor
from ..ring import net_online_factor, ring_allreduce
from ..superdense import superdense_outcome_probabilities, superdense_send, superdense_send_qiskit
from ..training import TrainingRun, train_data_parallel
from ._base import Rows, Table, Tabular
from .noisy_links_reality import (  # noqa: F401  (the chapter imports them from here)
    HARDWARE,
    HardwareFact,
    LossRun,
    LossSweep,
    RealityCheck,
    RealityRow,
    _bisect,
    _net_factor,
    hardware_table,
    loss_crossover,
    loss_run,
    loss_sweep,
    reality_check,
)

__all__ = [
    "LinkNoiseCheck",
    "link_noise_check",
    "CapacitySweep",
    "capacity_sweep",
    "DistillationSweep",
    "distillation_sweep",
    "distillation_table",
    "NetFactorSweep",
    "net_factor_sweep",
    "remedy_table",
    "fec_crossover",
    "link_bound_crossover",
    "SchemeRun",
    "SchemeLedger",
    "scheme_ledger",
    "ProtectedTraining",
    "protected_training",
]


def _scheme(scheme: str, *, rounds: int = 1, block_length: int = 255) -> Protection:
    """The protection ``scheme`` (a name of ``SCHEMES``) with ``rounds`` DEJMPS rounds and
    Reed–Solomon blocks of ``block_length`` bytes."""
    scheme = check_choice(scheme, "scheme", SCHEMES)
    distilled = Distill(rounds=rounds) if "distill" in scheme else None
    return Protection(distilled, FEC(block_length=block_length) if "fec" in scheme else None)


def _bound(link: Link, rounds: int = 0) -> float:
    """``C_E(F_eff)`` of ``link``'s decoded symbols (pairs distilled by ``rounds`` DEJMPS rounds;
    NaN when the pairs cannot be distilled)."""
    if rounds == 0:
        return link.errors.capacity()
    if link.pair <= 0.5:
        return math.nan
    return link.symbol_errors(distill(link.pair, rounds=rounds).errors).capacity()


def _rounds(rounds) -> tuple[int, ...]:
    """Distinct numbers of recurrence rounds, each in 1..20."""
    if isinstance(rounds, (str, bytes)) or not hasattr(rounds, "__iter__"):
        raise TypeError(f"rounds must be a sequence of numbers of rounds, got {rounds!r}")
    out = tuple(check_int(r, "rounds", 1, 20) for r in list(rounds)[:21])
    if not out or len(set(out)) != len(out):
        raise ValueError(f"rounds must list distinct numbers of rounds in 1..20, got {rounds!r}")
    return out


def _fidelity_grid(fidelities, default, name: str = "fidelities") -> np.ndarray:
    grid = as_numeric_array(default if fidelities is None else fidelities, name).ravel()
    if not 0 < grid.size <= 10**5:
        raise ValueError(f"{name} must hold 1 to 100,000 fidelities, got {grid.size:,}")
    for f in grid:
        check_fidelity(float(f), name)
    return grid


# Pair noise and channel noise compose
@result
class LinkNoiseCheck(Tabular):
    """``F_eff`` three (or four) ways for one link (:func:`link_noise_check`).

    ``formula``: ``F_pair F_ch + (1 - F_pair)(1 - F_ch)/3``. ``qiskit_fidelities``: P(Bob decodes
    ``(x, z)`` right) for the four messages, from the Qiskit density matrix with both noises.
    ``fast_error_rate``: symbol error rate of ``superdense_send`` over ``fast_symbols`` random
    symbols; ``aer_error_rate``: the same over ``aer_symbols`` Aer circuits (``None`` if 0).

    Examples
    --------
    >>> check = link_noise_check(0.95, 0.98, symbols=1000, seed=1); check
    LinkNoiseCheck(pair_fidelity=0.95, channel_fidelity=0.98, formula=0.9313, fast_error_rate=0.069)
    >>> round(check.standard_error(1000), 5)       # the fast path is 0.3 standard errors off
    0.008
    """

    pair_fidelity: float
    channel_fidelity: float
    formula: float
    qiskit_fidelities: tuple[float, float, float, float] = field(repr=False)
    fast_symbols: int = field(repr=False)
    fast_error_rate: float
    aer_symbols: int = field(default=0, repr=False)
    aer_error_rate: float | None = field(default=None, repr=False)

    @property
    def qiskit_deviation(self) -> float:
        """Largest |P(right) − formula| over the four messages (0 up to rounding)."""
        return max(abs(p - self.formula) for p in self.qiskit_fidelities)

    def standard_error(self, symbols: int) -> float:
        """Binomial standard error of an error rate from ``symbols`` symbols."""
        p = 1.0 - self.formula
        return math.sqrt(p * (1.0 - p) / max(symbols, 1))

    def table(self) -> Table:
        """The symbol error rate of each path and its distance from the formula."""
        error = 1.0 - self.formula
        worst = 1 - min(self.qiskit_fidelities)
        paths = [
            ("formula F_pair F_ch + (1-F_pair)(1-F_ch)/3", error, None),
            ("Qiskit density matrix, both noises (worst message)", worst, 0),
            ("fast path (Pauli frames)", self.fast_error_rate, self.fast_symbols),
        ]
        if self.aer_error_rate is not None:
            paths.append(("Qiskit Aer circuits", self.aer_error_rate, self.aer_symbols))
        return Table(
            ("path", "symbol error 1 - F_eff", "symbols", "|difference|"),
            tuple((p, e, n or None, None if n is None else abs(e - error)) for p, e, n in paths),
            ("", ".5f", ",d", ".2g"),
            title=f"F_pair = {self.pair_fidelity:g}, F_ch = {self.channel_fidelity:g}",
        )


def link_noise_check(
    pair_fidelity: float = 0.95,
    channel_fidelity: float = 0.98,
    *,
    symbols: int = 20_000,
    aer_symbols: int = 0,
    seed: int = 0,
) -> LinkNoiseCheck:
    """Check ``F_eff`` on one link: formula, Qiskit density matrices, fast path (and Aer).

    ``symbols`` random 2-bit symbols (>= 1) go through the fast path; ``aer_symbols`` (>= 0,
    at most 5000) through one Aer circuit each. Deterministic given ``seed``.

    Examples
    --------
    >>> link_noise_check(0.95, 0.98, symbols=1000, seed=1).qiskit_deviation < 1e-12
    True
    """
    Fp = check_fidelity(pair_fidelity, "pair_fidelity")
    Fc = check_fidelity(channel_fidelity, "channel_fidelity")
    symbols = check_int(symbols, "symbols", 1, 10**7)
    aer_symbols = check_int(aer_symbols, "aer_symbols", 0, 5000)
    seed = check_int(seed, "seed", 0)
    link = Link(Fp, Fc)
    messages = itertools.product((0, 1), repeat=2)  # the four symbols (x, z)
    exact = tuple(float(superdense_outcome_probabilities(*m, link=link)[m]) for m in messages)
    rng = np.random.default_rng([seed, 0])

    def error_rate(n: int, send, stream: int) -> float:
        sent = rng.integers(0, 2, size=2 * n, dtype=np.uint8)
        got = send(sent, link=link, seed=np.random.default_rng([seed, stream]))
        return float(np.mean(np.any((sent != got).reshape(-1, 2), axis=1)))

    fast = error_rate(symbols, superdense_send, 1)
    aer = error_rate(aer_symbols, superdense_send_qiskit, 2) if aer_symbols else None
    formula = float(effective_fidelity(Fp, Fc))
    return LinkNoiseCheck(Fp, Fc, formula, exact, symbols, fast, aer_symbols, aer)


@result
class CapacitySweep:
    """Capacities of the depolarising channel over a grid of fidelities (:func:`capacity_sweep`).

    Bits per channel use over the grid: ``classical`` = ``1 - h(2(1-F)/3)``, ``assisted`` =
    ``2 - H(F, (1-F)/3 ×3)`` (BSST), ``ratio`` = ``assisted / classical`` (NaN where both
    vanish), ``link_bound`` = ``C_E(F_eff)`` per online qubit with pairs distributed over the same
    channel. ``threshold``: where one pair's dense-coding capacity reaches 1 bit (≈ 0.8107).

    Examples
    --------
    >>> sweep = capacity_sweep([0.9, 0.99]); sweep
    CapacitySweep(fidelities=array(2,) float64, threshold=0.8107)
    >>> sweep.link_bound.round(4).tolist(), round(sweep.threshold, 4)
    ([1.0097, 1.8278], 0.8107)
    """

    fidelities: np.ndarray
    classical: np.ndarray = field(repr=False)
    assisted: np.ndarray = field(repr=False)
    ratio: np.ndarray = field(repr=False)
    link_bound: np.ndarray = field(repr=False)
    threshold: float


def capacity_sweep(fidelities: Sequence[float] | None = None) -> CapacitySweep:
    """``C``, ``C_E``, ``C_E / C`` and ``C_E(F_eff)`` on a grid of fidelities (default 301 points
    in [0.25, 1]); closed forms, well under a second.

    Examples
    --------
    >>> capacity_sweep([0.9, 0.99]).ratio.round(4).tolist()
    [2.1225, 2.0201]
    """
    grid = _fidelity_grid(fidelities, np.linspace(0.25, 1.0, 301))
    caps = [depolarizing_capacities(float(F)) for F in grid]
    classical, assisted = np.array([[c.classical, c.entanglement_assisted] for c in caps]).T
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(classical > 0, assisted / np.where(classical > 0, classical, 1.0), np.nan)
    bound = np.array([_bound(Link(channel_fidelity=float(F))) for F in grid])
    return CapacitySweep(grid, classical, assisted, ratio, bound, float(dense_coding_threshold()))


@result
class DistillationSweep:
    """Recurrence distillation over a grid of input fidelities (:func:`distillation_sweep`).

    ``fidelity[protocol]`` and ``raw_pairs[protocol]``: arrays of shape ``(len(rounds), n)``,
    the output fidelity and the expected raw pairs per output pair after each number of rounds.
    ``yield_per_pair``: perfect pairs per raw pair of DEJMPS recurrence followed by hashing (the
    best number of rounds); ``hashing_only``: the yield of hashing alone,
    ``max(0, 1 - H(F, (1-F)/3 ×3))``, zero below ≈ 0.8107 (at 0.75 only recurrence first yields).

    Examples
    --------
    >>> sweep = distillation_sweep([0.75, 0.9], rounds=(1, 2)); sweep
    DistillationSweep(fidelities=array(2,) float64, rounds=(1, 2), protocols=('bbpssw', 'dejmps'))
    >>> sweep.hashing_only.round(4).tolist(), sweep.yield_per_pair.round(4).tolist()
    ([0.0, 0.3725], [0.0504, 0.3725])
    """

    fidelities: np.ndarray
    rounds: tuple[int, ...]
    protocols: tuple[str, ...]
    fidelity: dict = field(repr=False)
    raw_pairs: dict = field(repr=False)
    yield_per_pair: np.ndarray = field(repr=False)
    hashing_only: np.ndarray = field(repr=False)


def distillation_sweep(
    fidelities: Sequence[float] | None = None,
    *,
    rounds: Sequence[int] = (1, 2, 3),
    protocols: Sequence[str] = DISTILL_PROTOCOLS,
) -> DistillationSweep:
    """BBPSSW/DEJMPS output fidelity and raw pairs per pair after each of ``rounds``, and the
    recurrence-plus-hashing yield, on a grid of fidelities (default 200 points in (½, 1)).

    Examples
    --------
    >>> distillation_sweep([0.75, 0.9], rounds=(1, 2)).raw_pairs["dejmps"].round(3).tolist()
    [[2.769, 2.284], [8.034, 5.263]]
    """
    grid = _fidelity_grid(fidelities, np.linspace(0.5025, 0.9975, 199))
    rounds = _rounds(rounds)
    protocols = tuple(check_choice(p, "protocols", DISTILL_PROTOCOLS) for p in protocols)
    fid, raw = {}, {}
    for p in protocols:
        res = [[distill(float(F), rounds=r, protocol=p) for F in grid] for r in rounds]
        fid[p] = np.array([[d.fidelity for d in row] for row in res])
        raw[p] = np.array([[d.raw_pairs_per_pair for d in row] for row in res])
    best = np.array([distillable_yield(float(F)).yield_per_pair for F in grid])
    hashing = np.array([distillable_yield(float(F), max_rounds=0).yield_per_pair for F in grid])
    return DistillationSweep(grid, rounds, protocols, fid, raw, best, hashing)


def distillation_table(
    fidelities: Sequence[float] = (0.75, 0.9), rounds: Sequence[int] = (1, 2, 3)
) -> Table:
    """Output fidelity, success probability of the last round and raw pairs per output pair,
    for both protocols, each input fidelity and each number of rounds.

    Examples
    --------
    >>> [round(f, 6) for f in distillation_table([0.9], [1]).column("fidelity out")]
    [0.926396, 0.926396]
    """
    grid, rounds = _fidelity_grid(fidelities, None), _rounds(rounds)
    if grid.size > 1000:
        raise ValueError(f"fidelities must hold at most 1,000 values, got {grid.size:,}")
    rows = []
    for F, p, r in itertools.product(grid, DISTILL_PROTOCOLS, rounds):
        d = distill(float(F), rounds=r, protocol=p)
        rows.append((float(F), p, r, d.fidelity, d.success_probabilities[-1], d.raw_pairs_per_pair))
    return Table(
        ("F in", "protocol", "rounds", "fidelity out", "last-round success", "raw pairs per pair"),
        tuple(rows),
        ("g", "", "d", ".6f", ".4f", ".2f"),
    )


# Net online factor of each scheme against the bound
@result(show=("factor",))
class NetFactorSweep:
    """Net online factor of every scheme over a grid of channel fidelities (:func:`net_factor_sweep`).

    ``online[scheme]``, ``lifetime[scheme]``: arrays over ``fidelities``, classical ring bits per
    online channel use and per channel use over the pairs' lifetime (NaN where no Reed–Solomon
    code of ``block_length`` carries the errors); ``reliable[scheme]``: the data arrives right.
    Bounds: ``bound`` = ``C_E(F_eff)`` with raw pairs, ``bound_distilled`` with pairs distilled
    by ``rounds`` DEJMPS rounds, ``assisted`` = BSST's ``C_E(F_ch)``, ``unassisted`` =
    ``C(F_ch)``. ``classical``: the fair classical baseline of the coded schemes, the same code
    sent as classical bits over the same channel (bits per use, NaN where no code fits; the
    noiseless classical ring is 1). ``point``: the :class:`~qring_edu.protection.NetFactor` of ``scheme`` at
    ``channel_fidelity`` (``None`` if no code fits; ``factor`` is then NaN).

    Examples
    --------
    >>> sweep = net_factor_sweep(0.99, "fec", fidelities=[0.95, 0.99]); sweep
    NetFactorSweep(scheme='fec', channel_fidelity=0.99, block_length=255, rounds=1, pair_fidelity=None, factor=1.461)
    >>> [round(float(v), 4) for v in sweep.online["fec"]], sweep.online["none"].tolist()
    ([0.4131, 1.4612], [2.0, 2.0])
    >>> sweep.classical.round(4).tolist()             # the same code over classical bits
    [0.3885, 0.7915]
    """

    scheme: str
    channel_fidelity: float
    block_length: int
    rounds: int
    pair_fidelity: float | None
    fidelities: np.ndarray = field(repr=False)
    online: dict = field(repr=False)
    lifetime: dict = field(repr=False)
    reliable: dict = field(repr=False)
    bound: np.ndarray = field(repr=False)
    bound_distilled: np.ndarray = field(repr=False)
    assisted: np.ndarray = field(repr=False)
    unassisted: np.ndarray = field(repr=False)
    classical: np.ndarray = field(repr=False)
    point: NetFactor | None = field(default=None, repr=False)

    @property
    def factor(self) -> float:
        """The chosen scheme's online factor at ``channel_fidelity`` (NaN if no code fits)."""
        return math.nan if self.point is None else self.point.online


def net_factor_sweep(
    channel_fidelity: float = 0.99,
    scheme: str = "fec",
    block_length: int = 255,
    *,
    rounds: int = 1,
    pair_fidelity: float | None = None,
    fidelities: Sequence[float] | None = None,
) -> NetFactorSweep:
    """Online and lifetime factors of the four schemes over ``fidelities`` (default 121 points in
    [0.9, 1]), the bounds, and the chosen ``scheme`` at ``channel_fidelity``.

    ``block_length``: Reed–Solomon codeword bytes (9..255); ``rounds``: DEJMPS rounds of the
    distilling schemes (1..20); ``pair_fidelity``: of the raw pairs (``None``: distributed over
    the same channel). Closed forms (:func:`qring_edu.protection.expected_net_factor`).

    Examples
    --------
    >>> net_factor_sweep(0.99, "fec", fidelities=[0.99]).bound.round(4).tolist()
    [1.8278]
    """
    F0 = check_fidelity(channel_fidelity, "channel_fidelity")
    scheme = check_choice(scheme, "scheme", SCHEMES)
    n = check_int(block_length, "block_length", 9, 255)
    rounds = check_int(rounds, "rounds", 1, 20)
    Fp = None if pair_fidelity is None else check_fidelity(pair_fidelity, "pair_fidelity")
    grid = _fidelity_grid(fidelities, np.linspace(0.9, 1.0, 121))
    if Fp is not None and Fp <= 0.5 and "distill" in scheme:
        raise ValueError(f"pair_fidelity must exceed 1/2 for distillation, got {Fp:g}")
    links = [Link(Fp, float(F)) for F in grid]
    online, lifetime, reliable = {}, {}, {}
    for s in SCHEMES:
        prot = _scheme(s, rounds=rounds, block_length=n)
        factors = [_net_factor(prot, link) for link in links]
        online[s] = np.array([math.nan if f is None else f.online for f in factors])
        lifetime[s] = np.array([math.nan if f is None else f.lifetime for f in factors])
        reliable[s] = prot.fec is not None
    caps = [depolarizing_capacities(float(F)) for F in grid]
    bounds = [np.array([_bound(link, r) for link in links]) for r in (0, rounds)]
    bounds += list(np.array([[c.entanglement_assisted, c.classical] for c in caps]).T)
    fec = _scheme("fec", block_length=n)
    coded = [_net_factor(fec, Link(channel_fidelity=float(F))) for F in grid]
    bounds.append(np.array([math.nan if f is None else f.classical for f in coded]))
    point = _net_factor(_scheme(scheme, rounds=rounds, block_length=n), Link(Fp, F0))
    sweep = (grid, online, lifetime, reliable, *bounds, point)
    return NetFactorSweep(scheme, F0, n, rounds, Fp, *sweep)


def remedy_table(
    pair_fidelity: float = 0.95,
    channel_fidelity: float = 0.999,
    *,
    rounds: Sequence[int] = (1, 2, 3),
) -> Table:
    """What each remedy buys when the pairs are worse than the channel: one row per scheme (and
    per number of DEJMPS rounds for the distilling ones) with the online and lifetime factors,
    the decoded symbol error, the bound ``C_E`` of the pairs used and whether the data is right.

    Examples
    --------
    >>> t = remedy_table(0.95, 0.999, rounds=[2])
    >>> [round(v, 2) for v in t.column("online factor")]
    [2.0, 2.0, 0.97, 1.79]
    """
    Fp = check_fidelity(pair_fidelity, "pair_fidelity")
    Fc = check_fidelity(channel_fidelity, "channel_fidelity")
    rounds, link = _rounds(rounds), Link(Fp, Fc)
    rows = []
    for s in SCHEMES:
        for r in rounds if "distill" in s else (0,):
            f = expected_net_factor(_scheme(s, rounds=max(r, 1)), link=link)
            ok = "yes" if f.reliable else "no"
            rows.append((s, r or None, f.online, f.lifetime, f.symbol_error, f.bound, ok))
    columns = ("scheme", "DEJMPS rounds", "online factor", "lifetime factor", "symbol error")
    return Table(
        (*columns, "bound C_E", "correct data"),
        tuple(rows),
        ("", "d", ".4f", ".4f", ".3g", ".4f", ""),
        title=f"F_pair = {Fp:g}, F_ch = {Fc:g}",
    )


def fec_crossover(
    target: float = 1.0,
    *,
    baseline: str = "noiseless",
    block_length: int = 255,
    scheme: str = "fec",
    rounds: int = 1,
) -> float:
    """The channel fidelity (pairs over the same channel) at which the expected online factor
    of ``scheme`` (``"fec"`` or ``"distill+fec"``) reaches ``target`` (in (0, 2)) times the
    classical ``baseline``: ``"noiseless"`` (one bit per use) or ``"coded"`` (the same code
    sent as classical bits over the same channel, :attr:`NetFactor.advantage
    <qring_edu.protection.NetFactor.advantage>`). Bisection on [0.5, 1]; where no code fits the
    factor counts as 0.

    Examples
    --------
    >>> round(fec_crossover(1.0), 3), round(fec_crossover(1.0, baseline="coded"), 3)
    (0.975, 0.948)
    """
    target = check_float(target, "target", 0.0, 2.0, lo_open=True)
    baseline = check_choice(baseline, "baseline", ("noiseless", "coded"))
    scheme = check_choice(scheme, "scheme", ("fec", "distill+fec"))
    n = check_int(block_length, "block_length", 9, 255)
    rounds = check_int(rounds, "rounds", 1, 20)
    prot = _scheme(scheme, rounds=rounds, block_length=n)

    def f(F):
        nf = _net_factor(prot, Link(channel_fidelity=F))
        if nf is None:
            return -target
        return (nf.online if baseline == "noiseless" else nf.advantage) - target

    if f(1.0) < 0:
        top = f"{f(1.0) + target:.4f} (its value at F = 1, block_length {n})"
        raise ValueError(f"target must be at most {top}, got {target:g}")
    return _bisect(f, 0.5 + 1e-9, 1.0)


def link_bound_crossover(target: float = 1.0) -> float:
    """The channel fidelity at which the bound ``C_E(F_eff)`` (pairs over the same channel)
    reaches ``target`` bits per online qubit (in (0, 2)).

    Examples
    --------
    >>> round(link_bound_crossover(1.0), 3)
    0.898
    """
    target = check_float(target, "target", 0.0, 2.0, lo_open=True)
    return _bisect(lambda F: _bound(Link(channel_fidelity=F)) - target, 0.25, 1.0)


# One ring run per scheme: the ledger, and the claims-page row
@result
class SchemeRun:
    """One all-reduce over the noisy superdense ring with one protection scheme (busiest link).

    The busiest link's ledger (``online_bits`` are acknowledgements, ``offline_bits``
    distillation's announcements and the checksum key) and ``classical_bits``, what the classical
    ring sends there. ``net_factor``: ``classical_bits / (online_qubits + online_bits)``;
    ``expected``: its long-message closed form; ``bound``: ``C_E`` of the pairs used;
    ``wrong_fraction``: output entries that differ from the noiseless ring's;
    ``undetected_bound``: the run's bound on P(some output wrong) (1 without a code).

    Examples
    --------
    >>> scheme_ledger(0.99, workers=4, d=2048, seed=0).run("fec")
    SchemeRun(scheme='fec', net_factor=1.41, wrong_fraction=0)
    """

    scheme: str
    online_qubits: int = field(repr=False)
    online_bits: int = field(repr=False)
    offline_qubits: int = field(repr=False)
    offline_bits: int = field(repr=False)
    classical_bits: int = field(repr=False)
    net_factor: float
    expected: float = field(repr=False)
    bound: float = field(repr=False)
    wrong_fraction: float
    undetected_bound: float = field(repr=False)

    @property
    def reliable(self) -> bool:
        """The scheme corrects errors (``"fec"``, ``"distill+fec"``)."""
        return self.scheme in ("fec", "distill+fec")


@result(show=("net_factors",))
class SchemeLedger(Rows):
    """One :class:`SchemeRun` per scheme on the same data (:func:`scheme_ledger`): what the
    paper's factor two becomes on a noisy link (the claims-page row, :meth:`text`).

    Examples
    --------
    >>> led = scheme_ledger(0.99, workers=4, d=4096); led
    SchemeLedger(channel_fidelity=0.99, workers=4, d=4096, bits=16, net_factors=(('none', 2), ('distill', 2), ('fec', 1.421), ('distill+fec', 1.5)))
    >>> round(led.run("fec").expected, 4), round(led.run("none").bound, 3)
    (1.4612, 1.828)
    """

    channel_fidelity: float = 0.99
    workers: int = 8
    d: int = 0
    bits: int = 16

    @property
    def net_factors(self) -> tuple:
        """``(scheme, measured net factor)`` per run."""
        return tuple((r.scheme, r.net_factor) for r in self.rows)

    def run(self, scheme: str) -> SchemeRun:
        """The run of ``scheme``."""
        return self._find(scheme=scheme)

    def text(self) -> str:
        """The claims-page row in one sentence."""
        none, dist, fec, both = (self.run(s) for s in SCHEMES)
        return (
            f"At F = {self.channel_fidelity:g} the factor two becomes: 2 with wrong data "
            f"without protection ({none.wrong_fraction:.0%} of the entries corrupted) or with "
            f"distilled pairs only ({dist.wrong_fraction:.0%}); {fec.expected:.2f} with error "
            f"correction (fec) and {both.expected:.2f} with distillation and error correction, "
            f"both with outputs equal to the noiseless ring's; no code exceeds "
            f"C_E(F_eff) = {none.bound:.2f}."
        )

    def table(self) -> Table:
        """Every scheme's ledger on the busiest link, its net factor, the bound and the errors."""
        left = ("scheme", "online qubits", "online bits", "offline qubits", "offline bits")
        right = ("classical bits", "net factor", "expected", "bound C_E", "wrong entries")
        return Table(
            (*left, *right, "P(wrong) <="),
            tuple(astuple(r)[:9] + (r.wrong_fraction, r.undetected_bound) for r in self.rows),
            ("", ",d", ",d", ",d", ",d", ",d", ".4f", ".4f", ".4f", ".2%", ".2g"),
            title=f"busiest link, P = {self.workers}, d = {self.d:,}, {self.bits}-bit words, "
            f"F_pair = F_ch = {self.channel_fidelity:g}",
        )


def scheme_ledger(
    channel_fidelity: float = 0.99,
    *,
    workers: int = 8,
    d: int = 2**14,
    bits: int = 16,
    block_length: int = 255,
    rounds: int = 1,
    seed: int = 0,
) -> SchemeLedger:
    """Run the same all-reduce (random ``bits``-bit integers, ``workers`` x ``d``, ``d`` at most
    2**20) over the noisy superdense ring with each protection scheme (pairs distributed over the
    same channel, ``F_pair = F_ch``) and over the classical ring as reference.

    Examples
    --------
    >>> scheme_ledger(0.99, workers=4, d=2048, seed=0).run("none").wrong_fraction > 0.1
    True
    """
    F = check_fidelity(channel_fidelity, "channel_fidelity")
    P = check_int(workers, "workers", 2, 64)
    d = check_int(d, "d", 1, 2**20)
    b = check_int(bits, "bits", 2, 32)
    n = check_int(block_length, "block_length", 9, 255)
    rounds = check_int(rounds, "rounds", 1, 20)
    seed = check_int(seed, "seed", 0)
    rng = np.random.default_rng([seed, 0])
    grads = rng.integers(-(2 ** (b - 1)) // P, 2 ** (b - 1) // P, size=(P, d))
    reference = ring_allreduce(grads, transport="classical", bits=b).outputs
    classical, link, rows = link_units(P, d, b), Link(channel_fidelity=F), []
    noisy = dict(transport="superdense", bits=b, channel_fidelity=F)
    for k, s in enumerate(SCHEMES):
        prot = _scheme(s, rounds=rounds, block_length=n)
        res = ring_allreduce(grads, protection=prot, seed=[seed, 1 + k], **noisy)
        led, exp, rep = res.ledger, expected_net_factor(prot, link=link), res.link_report
        # without protection (rep is None) nothing notices a wrong symbol
        undetected = rep.undetected_bound if rep is not None else float(not link.noiseless)
        ledger = (led.online_qubits(), led.online_bits(), led.offline_qubits(), led.offline_bits())
        wrong = float(np.mean(res.outputs != reference))
        measured = (classical, net_online_factor(res), exp.online, exp.bound, wrong, undetected)
        rows.append(SchemeRun(s, *ledger, *measured))
    return SchemeLedger(rows=tuple(rows), channel_fidelity=F, workers=P, d=d, bits=b)


# Training over a protected and an unprotected noisy ring
@result(show=("identical", "unprotected_loss"))
class ProtectedTraining(Tabular):
    """Three data-parallel runs on the same data and batches (:func:`protected_training`):
    ``classical`` (noiseless reference), ``protected`` (superdense ring, noisy link, with
    ``protection``), ``unprotected`` (same link); ``identical``: protected = classical, bitwise.

    Examples
    --------
    >>> protected_training(0.99, "fec", steps=5)
    ProtectedTraining(channel_fidelity=0.99, protection='fec', identical=True, unprotected_loss=0.5879)
    """

    channel_fidelity: float
    protection: str
    classical: TrainingRun = field(repr=False)
    protected: TrainingRun = field(repr=False)
    unprotected: TrainingRun = field(repr=False)

    @property
    def identical(self) -> bool:
        """The protected run's weights equal the classical run's, bit for bit."""
        return bool(np.array_equal(self.protected.weights, self.classical.weights))

    @property
    def unprotected_loss(self) -> float:
        """Final loss of the unprotected run."""
        return self.unprotected.final_loss

    def table(self) -> Table:
        """Final loss, accuracy, replica divergence and distance from the classical run."""
        runs = {"classical ring": self.classical, f"superdense, {self.protection}": self.protected}
        runs["superdense, none"] = self.unprotected
        w0 = self.classical.weights
        rows = tuple(
            (k, r.final_loss, r.final_accuracy, r.divergence, np.max(np.abs(r.weights - w0)))
            for k, r in runs.items()
        )
        return Table(
            ("run", "final loss", "final accuracy", "max|w_k − w_0|", "max|w − w_classical|"),
            rows,
            ("", ".4f", ".3f", ".3g", ".3g"),
            title=f"F_pair = F_ch = {self.channel_fidelity:g}, "
            f"{self.classical.steps} steps, P = {self.classical.workers}",
        )


def protected_training(
    channel_fidelity: float = 0.99,
    protection: str = "fec",
    *,
    workers: int = 4,
    steps: int = 150,
    seed: int = 0,
) -> ProtectedTraining:
    """Train the two-moons MLP over the classical ring, the superdense ring over a noisy link
    with ``protection`` (a scheme name), and the same link unprotected. About a second per run.

    Examples
    --------
    >>> print(protected_training(0.99, "fec", steps=5).table())
    F_pair = F_ch = 0.99, 5 steps, P = 4
    run               final loss  final accuracy  max|w_k − w_0|  max|w − w_classical|
    classical ring        0.2827           0.877               0                     0
    superdense, fec       0.2827           0.877               0                     0
    superdense, none      0.5879           0.779            1.38                  1.57
    """
    F = check_fidelity(channel_fidelity, "channel_fidelity")
    protection = check_choice(protection, "protection", SCHEMES)
    common = dict(workers=workers, steps=steps, seed=seed)
    classical = train_data_parallel(transport="classical", **common)
    noisy = dict(transport="superdense", channel_fidelity=F, **common)
    unprotected = train_data_parallel(**noisy)
    protected = (
        unprotected if protection == "none" else train_data_parallel(protection=protection, **noisy)
    )
    return ProtectedTraining(F, protection, classical, protected, unprotected)
