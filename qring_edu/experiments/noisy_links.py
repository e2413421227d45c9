"""Experiments of the chapter *Noisy links* (experiments floor): what remains of the factor of two.

Every function here is a seeded sweep or comparison built on :mod:`qring_edu.noise` (the link and
its noise, capacities), :mod:`qring_edu.distillation`, :mod:`qring_edu.protection` and
:mod:`qring_edu.ring`; results are frozen dataclasses with a short ``repr`` and, where they are
tables, ``table()`` / ``_repr_html_``.

* :func:`link_noise_check` — pair noise and channel noise compose into ``F_eff``: the formula, the
  Qiskit density-matrix circuit with both noises, the fast path (and optionally Aer);
* :func:`capacity_sweep` — unassisted ``C`` and entanglement-assisted ``C_E`` of the depolarising
  channel (BSST), their ratio, and the superdense link's bound ``C_E(F_eff)``;
* :func:`distillation_sweep`, :func:`distillation_table` — BBPSSW and DEJMPS recurrences, the
  raw pairs they consume, and the recurrence-plus-hashing yield (positive for every F > ½);
* :func:`net_factor_sweep`, :func:`fec_crossover`, :func:`link_bound_crossover` — the net online
  factor of every protection scheme against the bound (the chapter's main figure and widget);
* :func:`scheme_ledger` — one ring all-reduce per scheme, its ledger, its net factor and the
  entries it corrupts; :func:`noisy_factor_claim` — the claims-page row at F = 0.99;
* :func:`protected_training` — training over a protected and an unprotected noisy ring;
* :data:`HARDWARE`, :func:`hardware_table`, :func:`reality_check` — Bell pairs per link per
  iteration for real models against published entanglement rates and memory coherence times.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import field

import numpy as np

from .._result import result
from .._validate import (
    as_numeric_array,
    check_bits,
    check_choice,
    check_fidelity,
    check_float,
    check_int,
)
from ..costmodel import MODEL_SIZES, link_units
from ..distillation import DISTILL_PROTOCOLS, distill, distillable_yield
from ..holevo import dense_coding_threshold
from ..noise import Link, depolarizing_capacities, effective_fidelity, memory_dephasing
from ..protection import FEC, SCHEMES, Distill, NetFactor, Protection, expected_net_factor
from ..ring import net_online_factor, ring_allreduce
from ..superdense import superdense_outcome_probabilities, superdense_send, superdense_send_qiskit
from ..training import TrainingRun, train_data_parallel
from ._base import Rows, Table, Tabular

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
    "NoisyFactorClaim",
    "noisy_factor_claim",
    "ProtectedTraining",
    "protected_training",
    "HardwareFact",
    "HARDWARE",
    "hardware_table",
    "RealityRow",
    "RealityCheck",
    "reality_check",
]


def _scheme(scheme: str, *, rounds: int = 1, block_length: int = 255) -> Protection:
    """The protection ``scheme`` (a name of ``SCHEMES``) with ``rounds`` DEJMPS rounds and
    Reed–Solomon blocks of ``block_length`` bytes."""
    scheme = check_choice(scheme, "scheme", SCHEMES)
    return Protection(
        distill=Distill(rounds=rounds) if "distill" in scheme else None,
        fec=FEC(block_length=block_length) if "fec" in scheme else None,
    )


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
    if grid.size == 0:
        raise ValueError(f"{name} must contain at least one fidelity")
    if grid.size > 10**5:
        raise ValueError(f"{name} must hold at most 100,000 fidelities, got {grid.size:,}")
    for f in grid:
        check_fidelity(float(f), name)
    return grid


# ---------------------------------------------------------------------------------------------
# Pair noise and channel noise compose
# ---------------------------------------------------------------------------------------------
@result
class LinkNoiseCheck(Tabular):
    """``F_eff`` three (or four) ways for one link (:func:`link_noise_check`).

    ``formula``: ``F_pair F_ch + (1 - F_pair)(1 - F_ch)/3``. ``qiskit_fidelities``: for each of
    the four messages ``(x, z)`` the probability that Bob decodes it right, from the Qiskit
    density-matrix circuit in which the pair's noise hits Bob's half and the channel's noise the
    travelling qubit (:func:`qring_edu.superdense.superdense_outcome_probabilities`). ``fast_error_rate``:
    symbol error rate of the fast path (``superdense_send``) over ``fast_symbols`` random
    symbols; ``aer_error_rate``: the same over ``aer_symbols`` Aer circuits (``None`` if 0).

    Attributes
    ----------
    pair_fidelity, channel_fidelity, formula, fast_error_rate : float
    qiskit_fidelities : tuple of 4 float
    fast_symbols, aer_symbols : int
    aer_error_rate : float or None

    Examples
    --------
    >>> from qring_edu.experiments.noisy_links import link_noise_check
    >>> check = link_noise_check(0.95, 0.98, symbols=1000, seed=1)
    >>> check
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
        rows = [
            ("formula F_pair F_ch + (1-F_pair)(1-F_ch)/3", 1.0 - self.formula, None, None),
            (
                "Qiskit density matrix, both noises (worst message)",
                1.0 - min(self.qiskit_fidelities),
                None,
                self.qiskit_deviation,
            ),
            (
                "fast path (Pauli frames)",
                self.fast_error_rate,
                self.fast_symbols,
                abs(self.fast_error_rate - (1.0 - self.formula)),
            ),
        ]
        if self.aer_error_rate is not None:
            rows.append(
                (
                    "Qiskit Aer circuits",
                    self.aer_error_rate,
                    self.aer_symbols,
                    abs(self.aer_error_rate - (1.0 - self.formula)),
                )
            )
        return Table(
            ("path", "symbol error 1 - F_eff", "symbols", "|difference|"),
            tuple(rows),
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
    >>> c = link_noise_check(0.95, 0.98, symbols=1000, seed=1)
    >>> round(c.formula, 6), c.qiskit_deviation < 1e-12
    (0.931333, True)
    """
    Fp = check_fidelity(pair_fidelity, "pair_fidelity")
    Fc = check_fidelity(channel_fidelity, "channel_fidelity")
    symbols = check_int(symbols, "symbols", 1, 10**7)
    aer_symbols = check_int(aer_symbols, "aer_symbols", 0, 5000)
    seed = check_int(seed, "seed", 0)
    formula = effective_fidelity(Fp, Fc)
    link = Link(Fp, Fc)
    exact = tuple(
        superdense_outcome_probabilities(x, z, link=link)[(x, z)] for x in (0, 1) for z in (0, 1)
    )
    rng = np.random.default_rng([seed, 0])
    sent = rng.integers(0, 2, size=2 * symbols, dtype=np.uint8)
    got = superdense_send(sent, link=link, seed=np.random.default_rng([seed, 1]))
    fast = float(np.mean(np.any((sent != got).reshape(-1, 2), axis=1)))
    aer = None
    if aer_symbols:
        sent_a = rng.integers(0, 2, size=2 * aer_symbols, dtype=np.uint8)
        got_a = superdense_send_qiskit(sent_a, link=link, seed=np.random.default_rng([seed, 2]))
        aer = float(np.mean(np.any((sent_a != got_a).reshape(-1, 2), axis=1)))
    return LinkNoiseCheck(
        Fp, Fc, float(formula), tuple(float(p) for p in exact), symbols, fast, aer_symbols, aer
    )


# ---------------------------------------------------------------------------------------------
# Capacities
# ---------------------------------------------------------------------------------------------
@result(show=("min_ratio",))
class CapacitySweep:
    """Capacities of the depolarising channel over a grid of fidelities (:func:`capacity_sweep`).

    Arrays of the grid's shape, bits per channel use: ``classical`` (unassisted,
    ``1 - h(2(1-F)/3)``), ``assisted`` (entanglement-assisted, ``2 - H(F, (1-F)/3 ×3)``, BSST),
    ``ratio`` (``assisted / classical``, NaN where both vanish), ``link_bound`` (``C_E(F_eff)``
    per online qubit of a superdense link whose pairs were distributed over the same channel,
    ``F_pair = F_ch = F``). ``threshold``: the fidelity where a single pair's dense-coding
    capacity reaches 1 bit (chapter 2, ≈ 0.8107).

    Attributes
    ----------
    fidelities, classical, assisted, ratio, link_bound : numpy.ndarray, shape (n,)
    threshold : float

    Examples
    --------
    >>> from qring_edu.experiments.noisy_links import capacity_sweep
    >>> sweep = capacity_sweep([0.9, 0.99])
    >>> sweep
    CapacitySweep(fidelities=array(2,) float64, threshold=0.8107, min_ratio=2.02)
    >>> sweep.link_bound.round(4).tolist(), round(sweep.threshold, 4)
    ([1.0097, 1.8278], 0.8107)
    """

    fidelities: np.ndarray
    classical: np.ndarray = field(repr=False)
    assisted: np.ndarray = field(repr=False)
    ratio: np.ndarray = field(repr=False)
    link_bound: np.ndarray = field(repr=False)
    threshold: float

    @property
    def min_ratio(self) -> float:
        """Smallest ``C_E / C`` over the fidelities below 1 (NaN if there are none)."""
        below = self.ratio[(self.fidelities < 1) & np.isfinite(self.ratio)]
        return float(below.min()) if below.size else math.nan


def capacity_sweep(fidelities: Sequence[float] | None = None) -> CapacitySweep:
    """``C``, ``C_E``, ``C_E / C`` and ``C_E(F_eff)`` on a grid of fidelities (default 301 points
    in [0.25, 1]); closed forms, well under a second.

    Examples
    --------
    >>> s = capacity_sweep([0.9, 0.99])
    >>> [round(float(v), 4) for v in s.ratio]
    [2.1225, 2.0201]
    """
    grid = _fidelity_grid(fidelities, np.linspace(0.25, 1.0, 301))
    caps = [depolarizing_capacities(float(F)) for F in grid]
    classical = np.array([c.classical for c in caps])
    assisted = np.array([c.entanglement_assisted for c in caps])
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(classical > 0, assisted / np.where(classical > 0, classical, 1.0), np.nan)
    bound = np.array([_bound(Link(channel_fidelity=float(F))) for F in grid])
    return CapacitySweep(grid, classical, assisted, ratio, bound, float(dense_coding_threshold()))


# ---------------------------------------------------------------------------------------------
# Distillation
# ---------------------------------------------------------------------------------------------
@result
class DistillationSweep:
    """Recurrence distillation over a grid of input fidelities (:func:`distillation_sweep`).

    ``fidelity[protocol]`` and ``raw_pairs[protocol]``: arrays of shape ``(len(rounds), n)``,
    the output fidelity and the expected raw pairs per output pair after each number of rounds.
    ``yield_per_pair``: perfect pairs per raw pair of DEJMPS recurrence followed by hashing (the
    best number of rounds, ``yield_rounds``); ``hashing_only``: the yield of hashing alone,
    ``max(0, 1 - H(F, (1-F)/3 ×3))``, zero below ≈ 0.8107.

    Attributes
    ----------
    fidelities : numpy.ndarray, shape (n,)
    rounds : tuple of int
    protocols : tuple of str
    fidelity, raw_pairs : dict of str to numpy.ndarray, shape (len(rounds), n)
    yield_per_pair, yield_rounds, hashing_only : numpy.ndarray, shape (n,)

    Examples
    --------
    At F = 0.75 hashing alone yields nothing, recurrence first does:

    >>> from qring_edu.experiments.noisy_links import distillation_sweep
    >>> sweep = distillation_sweep([0.75, 0.9], rounds=(1, 2))
    >>> sweep
    DistillationSweep(fidelities=array(2,) float64, rounds=(1, 2), protocols=('bbpssw', 'dejmps'))
    >>> sweep.raw_pairs["dejmps"].round(3).tolist()
    [[2.769, 2.284], [8.034, 5.263]]
    >>> sweep.hashing_only.round(4).tolist(), sweep.yield_per_pair.round(4).tolist()
    ([0.0, 0.3725], [0.0504, 0.3725])
    """

    fidelities: np.ndarray
    rounds: tuple[int, ...]
    protocols: tuple[str, ...]
    fidelity: dict = field(repr=False)
    raw_pairs: dict = field(repr=False)
    yield_per_pair: np.ndarray = field(repr=False)
    yield_rounds: np.ndarray = field(repr=False)
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
    >>> s = distillation_sweep([0.75, 0.9], rounds=(1, 2))
    >>> [round(float(f), 6) for f in s.fidelity["dejmps"][1]]
    [0.902361, 0.988764]
    """
    grid = _fidelity_grid(fidelities, np.linspace(0.5025, 0.9975, 199))
    rounds = _rounds(rounds)
    protocols = tuple(check_choice(p, "protocols", DISTILL_PROTOCOLS) for p in protocols)
    fid, raw = {}, {}
    for p in protocols:
        res = [[distill(float(F), rounds=r, protocol=p) for F in grid] for r in rounds]
        fid[p] = np.array([[d.fidelity for d in row] for row in res])
        raw[p] = np.array([[d.raw_pairs_per_pair for d in row] for row in res])
    ys = [distillable_yield(float(F)) for F in grid]
    hashing = np.array([distillable_yield(float(F), max_rounds=0).yield_per_pair for F in grid])
    return DistillationSweep(
        grid,
        rounds,
        protocols,
        fid,
        raw,
        np.array([y.yield_per_pair for y in ys]),
        np.array([y.rounds for y in ys]),
        hashing,
    )


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
        raise ValueError(
            f"fidelities must hold at most 1,000 values for a table, got {grid.size:,}"
        )
    rows = []
    for F in grid:
        for p in DISTILL_PROTOCOLS:
            for r in rounds:
                d = distill(float(F), rounds=r, protocol=p)
                rows.append(
                    (float(F), p, r, d.fidelity, d.success_probabilities[-1], d.raw_pairs_per_pair)
                )
    return Table(
        ("F in", "protocol", "rounds", "fidelity out", "last-round success", "raw pairs per pair"),
        tuple(rows),
        ("g", "", "d", ".6f", ".4f", ".2f"),
    )


# ---------------------------------------------------------------------------------------------
# Net online factor of each scheme against the bound
# ---------------------------------------------------------------------------------------------
def _net_factor(prot: Protection, link: Link) -> NetFactor | None:
    """Expected factors of ``prot`` on ``link``; ``None`` where no code of that length carries
    the link's errors."""
    try:
        return expected_net_factor(prot, link=link)
    except ValueError:
        return None


@result(show=("factor",))
class NetFactorSweep:
    """Net online factor of every scheme over a grid of channel fidelities (:func:`net_factor_sweep`).

    ``online[scheme]``, ``lifetime[scheme]``: arrays over ``fidelities`` (classical ring bits per
    online channel use, and per channel use over the pairs' lifetime, distillation's
    announcements included; NaN where no Reed–Solomon code of ``block_length`` carries the
    errors). ``bound``: ``C_E(F_eff)`` with raw pairs (no code on these pairs can beat it);
    ``bound_distilled``: the same with the pairs distilled by ``rounds`` DEJMPS rounds;
    ``assisted``: BSST's ``C_E(F_ch)`` (unlimited perfect entanglement); ``unassisted``:
    ``C(F_ch)``, the same noisy qubit channel without entanglement. ``reliable[scheme]``: whether
    the scheme delivers the right data. ``point``: the :class:`~qring_edu.protection.NetFactor`
    of ``scheme`` at ``channel_fidelity`` (``None`` if no code fits); ``factor`` its online
    factor (NaN then).

    Examples
    --------
    >>> sweep = net_factor_sweep(0.99, "fec", fidelities=[0.95, 0.99])
    >>> sweep
    NetFactorSweep(scheme='fec', channel_fidelity=0.99, block_length=255, rounds=1, pair_fidelity=None, factor=1.461)
    >>> [round(float(v), 4) for v in sweep.online["fec"]], sweep.online["none"].tolist()
    ([0.4131, 1.4612], [2.0, 2.0])
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

    ``block_length``: the Reed–Solomon codeword length in bytes (9 .. 255); ``rounds``: DEJMPS
    rounds of the distilling schemes (1..20); ``pair_fidelity``: fidelity of the raw pairs
    (``None``: distributed over the same channel, ``F_pair = F_ch``). Closed forms
    (:func:`qring_edu.protection.expected_net_factor`), about 0.1 s for the default grid.

    Examples
    --------
    >>> s = net_factor_sweep(0.99, "fec", fidelities=[0.99])
    >>> round(s.point.online, 4), round(float(s.bound[0]), 4)
    (1.4612, 1.8278)
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
    return NetFactorSweep(
        scheme=scheme,
        channel_fidelity=F0,
        block_length=n,
        rounds=rounds,
        pair_fidelity=Fp,
        fidelities=grid,
        online=online,
        lifetime=lifetime,
        reliable=reliable,
        bound=np.array([_bound(link) for link in links]),
        bound_distilled=np.array([_bound(link, rounds) for link in links]),
        assisted=np.array([c.entanglement_assisted for c in caps]),
        unassisted=np.array([c.classical for c in caps]),
        point=_net_factor(_scheme(scheme, rounds=rounds, block_length=n), Link(Fp, F0)),
    )


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
            nf = expected_net_factor(_scheme(s, rounds=max(r, 1)), link=link)
            rows.append(
                (
                    s,
                    r if r else None,
                    nf.online,
                    nf.lifetime,
                    nf.symbol_error,
                    nf.bound,
                    "yes" if nf.reliable else "no",
                )
            )
    return Table(
        (
            "scheme",
            "DEJMPS rounds",
            "online factor",
            "lifetime factor",
            "symbol error",
            "bound C_E",
            "correct data",
        ),
        tuple(rows),
        ("", "d", ".4f", ".4f", ".3g", ".4f", ""),
        title=f"F_pair = {Fp:g}, F_ch = {Fc:g}",
    )


def _bisect(f, lo: float, hi: float, iters: int = 60) -> float:
    """Root of an increasing ``f`` on [lo, hi] with f(lo) < 0 <= f(hi)."""
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        if f(mid) < 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def fec_crossover(
    target: float = 1.0, *, block_length: int = 255, scheme: str = "fec", rounds: int = 1
) -> float:
    """The channel fidelity (pairs over the same channel) at which the expected online factor
    of ``scheme`` (``"fec"`` or ``"distill+fec"``) reaches ``target`` (in (0, 2)), by bisection on
    [0.5, 1]; where no code fits the factor counts as 0.

    Examples
    --------
    >>> round(fec_crossover(1.0), 3)
    0.975
    """
    target = check_float(target, "target", 0.0, 2.0, lo_open=True)
    scheme = check_choice(scheme, "scheme", ("fec", "distill+fec"))
    n = check_int(block_length, "block_length", 9, 255)
    rounds = check_int(rounds, "rounds", 1, 20)

    prot = _scheme(scheme, rounds=rounds, block_length=n)

    def f(F):
        nf = _net_factor(prot, Link(channel_fidelity=F))
        return (0.0 if nf is None else nf.online) - target

    if f(1.0) < 0:
        raise ValueError(
            f"target must be at most the noiseless factor {f(1.0) + target:.4f} "
            f"of block_length {n}, got {target:g}"
        )
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


# ---------------------------------------------------------------------------------------------
# One ring run per scheme: the ledger
# ---------------------------------------------------------------------------------------------
@result
class SchemeRun:
    """One all-reduce over the noisy superdense ring with one protection scheme (busiest link).

    Ledger of the busiest link: ``online_qubits``, ``online_bits`` (acknowledgements),
    ``offline_qubits`` (pair distribution), ``offline_bits`` (distillation announcements and the
    checksum key). ``classical_bits``: what the classical ring sends on that link.
    ``net_factor``: measured ``classical_bits / (online_qubits + online_bits)``; ``expected``:
    the long-message closed form; ``bound``: ``C_E`` of the pairs actually used.
    ``wrong_fraction``: output entries that differ from the noiseless ring's;
    ``undetected_bound``: the run's bound on P(some output wrong) (1 without a code).

    Attributes
    ----------
    scheme : str
    online_qubits, online_bits, offline_qubits, offline_bits, classical_bits : int
    net_factor, expected, bound, wrong_fraction, undetected_bound : float
    rejected, transmissions : int
        Rejected block transmissions, and all block transmissions.
    reliable : bool
        The scheme corrects errors (``"fec"``, ``"distill+fec"``).

    Examples
    --------
    >>> from qring_edu.experiments.noisy_links import scheme_ledger
    >>> fec = scheme_ledger(0.99, workers=4, d=2048, seed=0).run("fec")
    >>> fec, fec.reliable
    (SchemeRun(scheme='fec', net_factor=1.41, wrong_fraction=0), True)
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
    rejected: int = field(default=0, repr=False)
    transmissions: int = field(default=0, repr=False)

    @property
    def reliable(self) -> bool:
        """The scheme corrects errors (``"fec"``, ``"distill+fec"``)."""
        return self.scheme in ("fec", "distill+fec")


@result(show=("net_factors",))
class SchemeLedger(Rows):
    """One :class:`SchemeRun` per scheme plus the classical ring, same data (:func:`scheme_ledger`).

    Attributes
    ----------
    rows : tuple of SchemeRun
    channel_fidelity : float
    workers, d, bits : int

    Examples
    --------
    >>> from qring_edu.experiments.noisy_links import scheme_ledger
    >>> scheme_ledger(0.99, workers=4, d=2048, seed=0)
    SchemeLedger(channel_fidelity=0.99, workers=4, d=2048, bits=16, net_factors=(('none', 2), ('distill', 2), ('fec', 1.41), ('distill+fec', 1.491)))
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
        for r in self.rows:
            if r.scheme == scheme:
                return r
        raise ValueError(
            f"scheme must be one of {', '.join(r.scheme for r in self.rows)}, got {scheme!r}"
        )

    def table(self) -> Table:
        """Every scheme's ledger on the busiest link, its net factor, the bound and the errors."""
        rows = [
            (
                r.scheme,
                r.online_qubits,
                r.online_bits,
                r.offline_qubits,
                r.offline_bits,
                r.net_factor,
                r.expected,
                r.bound,
                r.wrong_fraction,
                r.undetected_bound,
            )
            for r in self.rows
        ]
        return Table(
            (
                "scheme",
                "online qubits",
                "online bits",
                "offline qubits",
                "offline bits",
                "net factor",
                "expected",
                "bound C_E",
                "wrong entries",
                "P(wrong) <=",
            ),
            tuple(rows),
            ("", ",d", ",d", ",d", ",d", ".4f", ".4f", ".4f", ".2%", ".2g"),
            title=(
                f"busiest link, P = {self.workers}, d = {self.d:,}, "
                f"{self.bits}-bit words, F_pair = F_ch = {self.channel_fidelity:g}"
            ),
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
    """Run the same all-reduce (random ``bits``-bit integers, ``workers`` x ``d``) over the noisy
    superdense ring with each protection scheme, and over the classical ring as reference.

    Pairs are distributed over the same channel (``F_pair = F_ch``). ``d`` at most 2**20.
    Deterministic given ``seed``.

    Examples
    --------
    >>> led = scheme_ledger(0.99, workers=4, d=2048, seed=0)
    >>> led.run("fec").wrong_fraction, led.run("none").wrong_fraction > 0.1
    (0.0, True)
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
    reference = ring_allreduce(grads, transport="classical", bits=b)
    classical = link_units(P, d, b)
    link = Link(channel_fidelity=F)
    rows = []
    for k, s in enumerate(SCHEMES):
        prot = _scheme(s, rounds=rounds, block_length=n)
        res = ring_allreduce(
            grads,
            transport="superdense",
            bits=b,
            channel_fidelity=F,
            protection=prot,
            seed=[seed, 1 + k],
        )
        led = res.ledger
        exp = expected_net_factor(prot, link=link)
        rep = res.link_report  # None without protection: nothing corrects a wrong symbol
        undetected = rep.undetected_bound if rep is not None else float(not link.noiseless)
        rows.append(
            SchemeRun(
                s,
                led.online_qubits(),
                led.online_bits(),
                led.offline_qubits(),
                led.offline_bits(),
                classical,
                net_online_factor(res),
                exp.online,
                exp.bound,
                float(np.mean(res.outputs != reference.outputs)),
                undetected,
                int(rep.rejected) if rep is not None else 0,
                int(rep.transmissions) if rep is not None else 0,
            )
        )
    return SchemeLedger(rows=tuple(rows), channel_fidelity=F, workers=P, d=d, bits=b)


# ---------------------------------------------------------------------------------------------
# The claims-page row
# ---------------------------------------------------------------------------------------------
@result
class NoisyFactorClaim(Tabular):
    """What the paper's factor two becomes on a noisy link (:func:`noisy_factor_claim`).

    ``factors``: ``(scheme, online factor, reliable, wrong_fraction)`` per scheme — the expected
    long-message online factor and, from one measured all-reduce, the fraction of output entries
    that differ from the noiseless ring. ``bound``: ``C_E(F_eff)`` with raw pairs;
    ``bound_distilled``: with one DEJMPS round; ``assisted``: BSST's ``C_E(F_ch)``;
    ``measured``: the measured net factors of the same run, per scheme.

    Attributes
    ----------
    channel_fidelity, bound, bound_distilled, assisted : float
    factors : tuple of (str, float, bool, float)
    measured : tuple
    ledger : SchemeLedger or None

    Examples
    --------
    >>> from qring_edu.experiments.noisy_links import noisy_factor_claim
    >>> claim = noisy_factor_claim(0.99, workers=4, d=4096)
    >>> claim
    NoisyFactorClaim(channel_fidelity=0.99, factors=(('none', 2, False, 0.4926), ('distill', 2, False, 0.4436), ('fec', 1.461, True, 0), ('distill+fec', 1.519, True, 0)), bound=1.828, bound_distilled=1.855, assisted=1.903)
    >>> claim.wrong_fraction("fec"), claim.wrong_fraction("none") > 0.1
    (0.0, True)
    """

    channel_fidelity: float
    factors: tuple
    bound: float
    bound_distilled: float
    assisted: float
    measured: tuple = field(repr=False)
    ledger: SchemeLedger | None = field(default=None, repr=False, compare=False)

    def factor(self, scheme: str) -> float:
        """The expected long-message online factor of ``scheme``."""
        for s, v, _, _ in self.factors:
            if s == scheme:
                return v
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, got {scheme!r}")

    def wrong_fraction(self, scheme: str) -> float:
        """The fraction of output entries of the measured run that ``scheme`` got wrong."""
        for s, _, _, w in self.factors:
            if s == scheme:
                return w
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, got {scheme!r}")

    def text(self) -> str:
        """The claims-page row in one sentence."""
        none, dist = self.wrong_fraction("none"), self.wrong_fraction("distill")
        return (
            f"At F = {self.channel_fidelity:g} the factor two becomes: 2 with wrong data "
            f"without protection ({none:.0%} of the entries corrupted) or with distilled "
            f"pairs only ({dist:.0%}); {self.factor('fec'):.2f} with error correction "
            f"(fec) and {self.factor('distill+fec'):.2f} with distillation and error "
            f"correction, both with outputs equal to the noiseless ring's; no code exceeds "
            f"C_E(F_eff) = {self.bound:.2f}."
        )

    def table(self) -> Table:
        rows = [(s, v, "yes" if ok else "no", w) for s, v, ok, w in self.factors]
        return Table(
            ("scheme", "online factor", "correct data", "wrong entries"),
            tuple(rows),
            ("", ".4f", "", ".1%"),
            title=f"F_pair = F_ch = {self.channel_fidelity:g}; bound C_E(F_eff) = {self.bound:.4f}",
        )


def noisy_factor_claim(
    channel_fidelity: float = 0.99,
    *,
    workers: int = 8,
    d: int = 2**16,
    bits: int = 16,
    seed: int = 0,
) -> NoisyFactorClaim:
    """The claims row: at ``channel_fidelity`` (pairs over the same channel), the online factor
    of each scheme (expected, long messages), whether it delivers the right data, and the
    fraction of entries one measured all-reduce (``workers`` x ``d`` random words) corrupts.

    Examples
    --------
    >>> c = noisy_factor_claim(0.99, workers=4, d=4096)
    >>> round(c.factor("fec"), 2), round(c.factor("distill+fec"), 2), round(c.bound, 2)
    (1.46, 1.52, 1.83)
    """
    F = check_fidelity(channel_fidelity, "channel_fidelity")
    led = scheme_ledger(F, workers=workers, d=d, bits=bits, seed=seed)
    factors = tuple((r.scheme, r.expected, r.reliable, r.wrong_fraction) for r in led.rows)
    return NoisyFactorClaim(
        F,
        factors,
        _bound(Link(channel_fidelity=F)),
        _bound(Link(channel_fidelity=F), rounds=1),
        depolarizing_capacities(F).entanglement_assisted,
        tuple((r.scheme, r.net_factor) for r in led.rows),
        led,
    )


# ---------------------------------------------------------------------------------------------
# Training over a protected and an unprotected noisy ring
# ---------------------------------------------------------------------------------------------
@result(show=("identical", "unprotected_loss"))
class ProtectedTraining(Tabular):
    """Three data-parallel runs on the same data and batches (:func:`protected_training`):
    ``classical`` (the noiseless reference), ``protected`` (superdense ring over the noisy link
    with ``protection``) and ``unprotected`` (same link, no protection). ``identical``: the
    protected run's weights equal the classical run's, bit for bit.

    Attributes
    ----------
    channel_fidelity : float
    protection : str
    classical, protected, unprotected : qring_edu.TrainingRun
    identical : bool

    Examples
    --------
    >>> from qring_edu.experiments.noisy_links import protected_training
    >>> runs = protected_training(0.99, "fec", steps=5)
    >>> runs
    ProtectedTraining(channel_fidelity=0.99, protection='fec', identical=True, unprotected_loss=0.455)
    >>> print(runs.table())
    F_pair = F_ch = 0.99, 5 steps, P = 4
    run               final loss  final accuracy  max|w_k − w_0|  max|w − w_classical|
    classical ring        0.2827           0.877               0                     0
    superdense, fec       0.2827           0.877               0                     0
    superdense, none      0.4550           0.827            1.51                  1.41
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
        rows = [
            (
                label,
                r.final_loss,
                r.final_accuracy,
                r.divergence,
                float(np.max(np.abs(r.weights - self.classical.weights))),
            )
            for label, r in (
                ("classical ring", self.classical),
                (f"superdense, {self.protection}", self.protected),
                ("superdense, none", self.unprotected),
            )
        ]
        return Table(
            ("run", "final loss", "final accuracy", "max|w_k − w_0|", "max|w − w_classical|"),
            tuple(rows),
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
    with ``protection``, and the same link unprotected (``train_data_parallel`` with the link
    options ``channel_fidelity`` and ``protection``). About a second per run.

    Examples
    --------
    >>> t = protected_training(0.99, "fec", steps=20)
    >>> t.identical, t.unprotected.divergence > 0
    (True, True)
    """
    F = check_fidelity(channel_fidelity, "channel_fidelity")
    protection = check_choice(protection, "protection", SCHEMES)
    common = dict(workers=workers, steps=steps, seed=seed)
    classical = train_data_parallel(transport="classical", **common)
    unprotected = train_data_parallel(transport="superdense", channel_fidelity=F, **common)
    protected = (
        unprotected
        if protection == "none"
        else train_data_parallel(
            transport="superdense", channel_fidelity=F, protection=protection, **common
        )
    )
    return ProtectedTraining(F, protection, classical, protected, unprotected)


# ---------------------------------------------------------------------------------------------
# Reality check: pairs per iteration against published hardware
# ---------------------------------------------------------------------------------------------
@result
class HardwareFact:
    """One published hardware number (``source``: its key in ``references.bib``).

    Attributes
    ----------
    quantity : str
    value : float
    unit, platform, source, note : str

    Examples
    --------
    >>> from qring_edu.experiments.noisy_links import HARDWARE
    >>> fact = HARDWARE[0]
    >>> fact.quantity, fact.value, fact.unit, fact.source
    ('remote entanglement rate', 39.0, 'pairs/s', 'humphreys2018deterministic')
    """

    quantity: str
    value: float
    unit: str
    platform: str
    source: str
    note: str = ""


#: Published numbers the chapter compares with (each checked against the paper's abstract).
HARDWARE = (
    HardwareFact(
        "remote entanglement rate",
        39.0,
        "pairs/s",
        "NV centres in diamond, 2 m apart",
        "humphreys2018deterministic",
        "heralded, 'entangling rates up to 39 Hz'",
    ),
    HardwareFact(
        "remote entanglement fidelity",
        0.97,
        "",
        "trapped ions, time-bin photons",
        "saha2025high",
        "entanglement fidelity of 97 %",
    ),
    HardwareFact(
        "storage of remotely entangled memory qubits",
        10.0,
        "s",
        "trapped ions (Sr+ network, Ca+ memory)",
        "main2025multipartite",
        "about 10 s, more than 100 times the creation time",
    ),
    HardwareFact(
        "single-qubit memory coherence time",
        3600.0,
        "s",
        "one 171Yb+ ion",
        "wang2021single",
        "estimated coherence time exceeding one hour",
    ),
    HardwareFact(
        "matter qubits entangled with photons in one node",
        10.0,
        "qubits",
        "trapped-ion register",
        "canteri2024photon",
        "ten ions, each entangled with its own photon",
    ),
)


def hardware_table() -> Table:
    """:data:`HARDWARE` as a table (quantity, value, unit, platform, the paper's wording).

    Examples
    --------
    >>> from qring_edu.experiments.noisy_links import hardware_table
    >>> table = hardware_table()
    >>> len(table), table.column("unit")
    (5, ('pairs/s', '', 's', 's', 'qubits'))
    """

    return Table(
        ("quantity", "value", "unit", "platform", "as the paper states it"),
        tuple((h.quantity, h.value, h.unit, h.platform, h.note) for h in HARDWARE),
        ("", "g", "", "", ""),
    )


def _fact(source: str) -> HardwareFact:
    for h in HARDWARE:
        if h.source == source:
            return h
    raise ValueError(
        f"source must be one of {', '.join(h.source for h in HARDWARE)}, got {source!r}"
    )


@result
class RealityRow:
    """One model on the superdense ring (busiest link, one iteration, :func:`reality_check`).

    ``pairs``: Bell pairs per iteration without protection (= online qubits); ``pairs_fec``:
    with ``"fec"`` at the chosen fidelity (classical bits / its online factor); ``rate_needed``:
    pairs per second to supply ``pairs_fec`` within one iteration; ``days_at_rate``: days the
    demonstrated rate needs for one iteration's pairs; ``orders``: ``log10(rate_needed /
    demonstrated rate)``.

    Attributes
    ----------
    model : str
    params, pairs : int
    pairs_fec, rate_needed, days_at_rate, orders : float

    Examples
    --------
    >>> from qring_edu.experiments.noisy_links import reality_check
    >>> reality_check(["ResNet-50"]).row("ResNet-50")
    RealityRow(model='ResNet-50', pairs=357798448, orders=8.099)
    """

    model: str
    params: int = field(repr=False)
    pairs: int
    pairs_fec: float = field(repr=False)
    rate_needed: float = field(repr=False)
    days_at_rate: float = field(repr=False)
    orders: float


@result(show=("orders",))
class RealityCheck(Rows):
    """Pairs per link per iteration for real models against a demonstrated rate.

    ``iteration_time`` (s): the assumed training step, which the pairs must not outlive;
    ``pair_rate`` (pairs/s): the demonstrated remote-entanglement rate; ``fec_factor``: the
    online factor of ``"fec"`` at ``channel_fidelity``; ``memory_error``: the probability that a
    pair dephases while it waits one iteration in memories of coherence time
    ``coherence_time`` (s); ``memory_qubits``: qubits of the largest demonstrated node.

    Attributes
    ----------
    rows : tuple of RealityRow
    workers, bits : int
    iteration_time, pair_rate, channel_fidelity, fec_factor, coherence_time, memory_error : float
    memory_qubits : float

    Examples
    --------
    ResNet-50 needs about 10⁸ times the demonstrated remote-entanglement rate:

    >>> from qring_edu.experiments.noisy_links import reality_check
    >>> check = reality_check(["ResNet-50"])
    >>> check
    RealityCheck(workers=8, bits=16, iteration_time=0.1, pair_rate=39, channel_fidelity=0.99, orders=(('ResNet-50', 8.099),))
    """

    workers: int = 8
    bits: int = 16
    iteration_time: float = 0.1
    pair_rate: float = 39.0
    channel_fidelity: float = 0.99
    fec_factor: float = field(default=0.0, repr=False)
    coherence_time: float = field(default=3600.0, repr=False)
    memory_error: float = field(default=0.0, repr=False)
    memory_qubits: float = field(default=10.0, repr=False)

    @property
    def orders(self) -> tuple:
        """``(model, orders of magnitude)`` per row: how far the demonstrated rate falls short."""
        return tuple((r.model, r.orders) for r in self.rows)

    def row(self, model: str) -> RealityRow:
        """The row of ``model``."""
        for r in self.rows:
            if r.model == model:
                return r
        raise ValueError(
            f"model must be one of {', '.join(r.model for r in self.rows)}, got {model!r}"
        )

    def table(self) -> Table:
        """Pairs per iteration (with fec too), the rate needed and its distance from the demonstrated
        rate in orders of magnitude."""
        rows = [
            (r.model, r.params, r.pairs, r.pairs_fec, r.rate_needed, r.days_at_rate, r.orders)
            for r in self.rows
        ]
        return Table(
            (
                "model",
                "parameters",
                "pairs per iteration",
                "with fec",
                "pairs/s needed",
                f"days at {self.pair_rate:g}/s",
                "orders of magnitude",
            ),
            tuple(rows),
            ("", ",d", ".3g", ".3g", ".3g", ",.0f", ".1f"),
            title=(
                f"busiest link, P = {self.workers}, {self.bits}-bit words, "
                f"iteration {self.iteration_time:g} s, fec at F = "
                f"{self.channel_fidelity:g} (factor {self.fec_factor:.3f})"
            ),
        )


def reality_check(
    models: Sequence[str] = ("ResNet-50", "GPT-2 XL"),
    *,
    workers: int = 8,
    bits: int = 16,
    iteration_time: float = 0.1,
    pair_rate: float | None = None,
    channel_fidelity: float = 0.99,
    coherence_time: float | None = None,
) -> RealityCheck:
    """Bell pairs the busiest link needs per iteration for each model of
    :data:`~qring_edu.costmodel.MODEL_SIZES`, and how far the demonstrated rate is from it.

    ``pair_rate`` and ``coherence_time`` default to the published numbers of :data:`HARDWARE`
    (39 pairs/s, 3600 s). ``iteration_time`` (s, > 0): the training step the pairs of one
    iteration must be produced in (storing them longer gains nothing, chapter 3).

    Examples
    --------
    >>> r = reality_check(["ResNet-50"])
    >>> r.row("ResNet-50").pairs, round(r.row("ResNet-50").orders, 1)
    (357798448, 8.1)
    """
    P = check_int(workers, "workers", 2)
    b = check_bits(bits)
    T = check_float(iteration_time, "iteration_time", 0.0, lo_open=True)
    rate = (
        _fact("humphreys2018deterministic").value
        if pair_rate is None
        else check_float(pair_rate, "pair_rate", 0.0, lo_open=True)
    )
    T2 = (
        _fact("wang2021single").value
        if coherence_time is None
        else check_float(coherence_time, "coherence_time", 0.0, lo_open=True)
    )
    F = check_fidelity(channel_fidelity, "channel_fidelity")
    fec = expected_net_factor("fec", link=Link(channel_fidelity=F)).online
    rows = []
    for m in models:
        if m not in MODEL_SIZES:
            raise ValueError(
                f"models must be names in MODEL_SIZES ({', '.join(MODEL_SIZES)}), got {m!r}"
            )
        d = int(MODEL_SIZES[m])
        pairs = link_units(P, d, b, transport="superdense")
        pairs_fec = link_units(P, d, b) / fec
        need = pairs_fec / T
        rows.append(
            RealityRow(
                m,
                d,
                int(pairs),
                pairs_fec,
                need,
                pairs_fec / rate / 86400.0,
                math.log10(need / rate),
            )
        )
    return RealityCheck(
        rows=tuple(rows),
        workers=P,
        bits=b,
        iteration_time=T,
        pair_rate=rate,
        channel_fidelity=F,
        fec_factor=fec,
        coherence_time=T2,
        memory_error=memory_dephasing(T, T2).error_rate,
        memory_qubits=_fact("canteri2024photon").value,
    )
