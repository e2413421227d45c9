"""Experiments of the chapter *Noisy links* (book/04_noisy_links.ipynb): what remains of the
factor of two under pair and channel noise, distillation, error correction and photon loss (Bell
pairs against published hardware: :mod:`~qring_edu.experiments.noisy_links_reality`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import astuple, field

import numpy as np

from .._result import result
from .._validate import as_numeric_array, check_choice, check_fidelity, check_float, check_int
from ..costmodel import link_units
from ..distillation import DISTILL_PROTOCOLS, distill, distillable_yield
from ..holevo import dense_coding_threshold
from ..noise import Link, depolarizing_capacities, effective_fidelity, fibre_transmission
from ..protection import FEC, SCHEMES, Distill, NetFactor, Protection, expected_net_factor
from ..ring import net_online_factor, ring_allreduce
from ..superdense import superdense_outcome_probabilities, superdense_send, superdense_send_qiskit
from ..training import TrainingRun, train_data_parallel
from ._base import Rows, Table, Tabular
from .noisy_links_reality import HARDWARE, hardware_table, reality_check  # noqa: F401 (chapter)

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
    "LossSweep",
    "loss_sweep",
    "loss_crossover",
    "LossRun",
    "loss_run",
    "ProtectedTraining",
    "protected_training",
]


def _scheme(scheme: str, *, rounds: int = 1, block_length: int = 255) -> Protection:
    """``scheme`` (a name of ``SCHEMES``) with ``rounds`` DEJMPS rounds, ``block_length`` bytes."""
    scheme = check_choice(scheme, "scheme", SCHEMES)
    distilled = Distill(rounds=rounds) if "distill" in scheme else None
    return Protection(distilled, FEC(block_length=block_length) if "fec" in scheme else None)


def _bound(link: Link, rounds: int = 0) -> float:
    """``C_E(F_eff)`` of ``link``'s symbols, pairs distilled by ``rounds`` rounds (NaN: cannot)."""
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


def _net_factor(prot: Protection, link: Link) -> NetFactor | None:
    """Expected factors of ``prot`` on ``link``; ``None`` where no code of that length fits."""
    try:
        return expected_net_factor(prot, link=link)
    except ValueError:
        return None


def _attr(factors, name: str) -> np.ndarray:
    """``factor.name`` per factor, NaN where no code fits (``None``)."""
    return np.array([math.nan if f is None else getattr(f, name) for f in factors])


def _bisect(f, lo: float, hi: float, iters: int = 60) -> float:
    """Root of an increasing ``f`` on [lo, hi] with f(lo) < 0 <= f(hi)."""
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return 0.5 * (lo + hi)


def _fidelity_grid(fidelities, default, name: str = "fidelities") -> np.ndarray:
    grid = as_numeric_array(default if fidelities is None else fidelities, name).ravel()
    if not 0 < grid.size <= 10**5:
        raise ValueError(f"{name} must hold 1 to 100,000 fidelities, got {grid.size:,}")
    for f in grid:
        check_fidelity(float(f), name)
    return grid


# -- Pair noise and channel noise compose ---------------------------------------------------------
@result
class LinkNoiseCheck(Tabular):
    """``F_eff = F_pair F_ch + (1 - F_pair)(1 - F_ch)/3`` (``formula``) three or four ways.

    ``qiskit_fidelities``: P(Bob decodes ``(x, z)`` right) per message from the Qiskit density
    matrix; ``fast_error_rate``, ``aer_error_rate``: symbol error rates of ``superdense_send``
    over ``fast_symbols`` random symbols and of ``aer_symbols`` Aer circuits (``None`` if 0).

    Examples
    --------
    >>> check = link_noise_check(0.95, 0.98, symbols=1000, seed=1); check
    LinkNoiseCheck(pair_fidelity=0.95, channel_fidelity=0.98, formula=0.9313, fast_error_rate=0.065)
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
        """Largest |P(right) − formula| over the four messages."""
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
    """Check ``F_eff`` on one link: ``symbols`` (>= 1) random 2-bit symbols through the fast
    path, ``aer_symbols`` (0..5000) through one Aer circuit each (:class:`LinkNoiseCheck`).

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
    """Capacities of the depolarising channel in bits per use over ``fidelities``.

    ``classical = 1 - h(2(1-F)/3)``, ``assisted = 2 - H(F, (1-F)/3 ×3)`` (BSST), ``ratio`` their
    quotient (NaN where both vanish), ``link_bound = C_E(F_eff)`` with pairs sent over the same
    channel; ``threshold``: where one pair's dense-coding capacity reaches 1 bit (≈ 0.8107).

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
    """:class:`CapacitySweep` on ``fidelities`` (default 301 points in [0.25, 1]).

    Examples
    --------
    >>> capacity_sweep([0.9, 0.99]).ratio.round(4).tolist()
    [2.1225, 2.0201]
    """
    grid = _fidelity_grid(fidelities, np.linspace(0.25, 1.0, 301))
    caps = [depolarizing_capacities(float(F)) for F in grid]
    classical, assisted = np.array([[c.classical, c.entanglement_assisted] for c in caps]).T
    ratio = np.where(classical > 0, assisted / np.where(classical > 0, classical, 1.0), np.nan)
    bound = np.array([_bound(Link(channel_fidelity=float(F))) for F in grid])
    return CapacitySweep(grid, classical, assisted, ratio, bound, float(dense_coding_threshold()))


@result
class DistillationSweep:
    """Recurrence distillation over input ``fidelities``.

    ``fidelity[protocol]``, ``raw_pairs[protocol]``: shape ``(len(rounds), n)``, output fidelity
    and raw pairs per output pair after each number of rounds; ``yield_per_pair``: perfect pairs
    per raw pair of DEJMPS then hashing (best number of rounds); ``hashing_only``:
    ``max(0, 1 - H(F, (1-F)/3 ×3))``, zero below ≈ 0.8107.

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
    """:class:`DistillationSweep` on ``fidelities`` (default 199 points in (½, 1)).

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
    """Output fidelity, last round's success probability and raw pairs per output pair, per
    protocol, input fidelity and number of rounds.

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


# -- Net online factor of each scheme against the bound -------------------------------------------
@result(show=("factor",))
class NetFactorSweep:
    """Net online factor of every scheme over channel ``fidelities``.

    ``online[scheme]``, ``lifetime[scheme]``: classical ring bits per online channel use and per
    use over the pairs' lifetime (NaN where no Reed–Solomon code of ``block_length`` fits);
    ``reliable[scheme]``: the data arrives right. Bounds: ``bound = C_E(F_eff)`` (raw pairs),
    ``bound_distilled`` (``rounds`` DEJMPS rounds), ``assisted = C_E(F_ch)`` (BSST),
    ``unassisted = C(F_ch)``; ``classical``: the same code sent as classical bits over the same
    channel (the noiseless classical ring is 1). ``point``: the
    :class:`~qring_edu.protection.NetFactor` of ``scheme`` at ``channel_fidelity`` (``None``
    if no code fits, ``factor`` then NaN).

    Examples
    --------
    >>> sweep = net_factor_sweep(0.99, "fec", fidelities=[0.95, 0.99]); sweep
    NetFactorSweep(scheme='fec', channel_fidelity=0.99, block_length=255, rounds=1, pair_fidelity=None, factor=1.461)
    >>> sweep.online["fec"].round(4).tolist(), sweep.classical.round(4).tolist()
    ([0.4131, 1.4612], [0.3885, 0.7915])
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
    """:class:`NetFactorSweep` over ``fidelities`` (default 121 points in [0.9, 1]):
    ``block_length`` Reed–Solomon bytes (9..255), ``rounds`` DEJMPS rounds (1..20), raw pairs of
    ``pair_fidelity`` (``None``: sent over the same channel). Closed forms
    (:func:`qring_edu.protection.expected_net_factor`).

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
        online[s], lifetime[s] = _attr(factors, "online"), _attr(factors, "lifetime")
        reliable[s] = prot.fec is not None
    caps = [depolarizing_capacities(float(F)) for F in grid]
    bounds = [np.array([_bound(link, r) for link in links]) for r in (0, rounds)]
    bounds += list(np.array([[c.entanglement_assisted, c.classical] for c in caps]).T)
    fec = _scheme("fec", block_length=n)
    bounds.append(
        _attr([_net_factor(fec, Link(channel_fidelity=float(F))) for F in grid], "classical")
    )
    point = _net_factor(_scheme(scheme, rounds=rounds, block_length=n), Link(Fp, F0))
    sweep = (grid, online, lifetime, reliable, *bounds, point)
    return NetFactorSweep(scheme, F0, n, rounds, Fp, *sweep)


def remedy_table(
    pair_fidelity: float = 0.95,
    channel_fidelity: float = 0.999,
    *,
    rounds: Sequence[int] = (1, 2, 3),
) -> Table:
    """Per scheme (and number of DEJMPS rounds): online and lifetime factors, decoded symbol
    error, the bound ``C_E`` of the pairs used and whether the data is right.

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
    """The channel fidelity (pairs over the same channel) at which ``scheme``'s online factor
    reaches ``target`` (in (0, 2)) times the ``baseline``: ``"noiseless"`` (one bit per use) or
    ``"coded"`` (:attr:`NetFactor.advantage <qring_edu.protection.NetFactor.advantage>`).
    Bisection on [0.5, 1]; where no code fits the factor counts as 0.

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
    """The channel fidelity at which ``C_E(F_eff)`` (pairs over the same channel) reaches
    ``target`` (in (0, 2)) bits per online qubit.

    Examples
    --------
    >>> round(link_bound_crossover(1.0), 3)
    0.898
    """
    target = check_float(target, "target", 0.0, 2.0, lo_open=True)
    return _bisect(lambda F: _bound(Link(channel_fidelity=F)) - target, 0.25, 1.0)


# -- One ring run per scheme: the ledger, and the claims-page row ---------------------------------
@result
class SchemeRun:
    """One all-reduce over the noisy superdense ring with one scheme: the busiest link's ledger
    (``online_bits``: acknowledgements; ``offline_bits``: distillation's announcements and the
    checksum key) and what the classical ring sends there (``classical_bits``).

    ``net_factor = classical_bits / (online_qubits + online_bits)``, ``expected`` its closed form,
    ``bound`` the ``C_E`` of the pairs used; ``wrong_fraction``: outputs unlike the noiseless
    ring's; ``undetected_bound``: bound on P(some output wrong) (1 without a code).

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
    """One :class:`SchemeRun` per scheme on the same data: the paper's factor two on a noisy
    link (:meth:`text`: the claims-page row).

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
    """The same all-reduce of random ``bits``-bit integers (``workers`` x ``d``, ``d`` <= 2**20)
    over the noisy superdense ring (``F_pair = F_ch``) with each scheme, and the classical ring.

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


# -- Photon loss: the factor against transmission and distance, and a lossy run's ledger ----------
@result(show=("break_even_km",))
class LossSweep:
    """The net online factor of a lossy link over ``distances`` (km of fibre).

    ``transmissions``: ``η = source_efficiency · 10^(−attenuation L/10) · detector_efficiency``;
    ``perfect = 2 η`` (loss only: each symbol resent until its photon arrives; ``C_E`` of the
    pure erasure channel); ``fec``: the "fec" scheme's factor on the lossy depolarising link
    (NaN where no code fits); ``bound = η C_E(F_eff)``; ``classical``: the same code sent as
    classical bits (a bright pulse: loss dims it, never erases it, so no η); ``break_even_km``:
    where ``perfect`` falls to 1 (η = 1/2), NaN if η <= 1/2 already at zero distance.

    Examples
    --------
    >>> s = loss_sweep(0.99, distances=[0.0, 10.0, 20.0]); s
    LossSweep(channel_fidelity=0.99, source_efficiency=1, detector_efficiency=1, attenuation_db_per_km=0.2, break_even_km=15.05)
    >>> s.transmissions.round(3).tolist(), s.perfect.round(3).tolist()
    ([1.0, 0.631, 0.398], [2.0, 1.262, 0.796])
    """

    channel_fidelity: float
    source_efficiency: float
    detector_efficiency: float
    attenuation_db_per_km: float
    distances: np.ndarray = field(repr=False)
    transmissions: np.ndarray = field(repr=False)
    perfect: np.ndarray = field(repr=False)
    fec: np.ndarray = field(repr=False)
    bound: np.ndarray = field(repr=False)
    classical: float = field(repr=False)

    @property
    def efficiency(self) -> float:
        """η at zero distance: source times detector efficiency."""
        return self.source_efficiency * self.detector_efficiency

    @property
    def break_even_km(self) -> float:
        """Distance at which ``2 η = 1`` (NaN if ``2 η <= 1`` already at zero distance)."""
        if 2.0 * self.efficiency <= 1.0:
            return math.nan
        return 10.0 * math.log10(2.0 * self.efficiency) / self.attenuation_db_per_km


def loss_sweep(
    channel_fidelity: float = 0.99,
    *,
    source_efficiency: float = 1.0,
    detector_efficiency: float = 1.0,
    attenuation_db_per_km: float = 0.2,
    distances: Sequence[float] | None = None,
) -> LossSweep:
    """:class:`LossSweep` over 1..10,000 ``distances`` (km; default 0..40, 81 points).

    Examples
    --------
    >>> s = loss_sweep(0.99, source_efficiency=0.5, detector_efficiency=0.9, distances=[0.0])
    >>> round(float(s.perfect[0]), 2), round(float(s.fec[0]), 3), round(s.classical, 4)
    (0.9, 0.658, 0.7915)
    """
    F = check_fidelity(channel_fidelity, "channel_fidelity")
    src = check_float(source_efficiency, "source_efficiency", 0.0, 1.0, lo_open=True)
    det = check_float(detector_efficiency, "detector_efficiency", 0.0, 1.0, lo_open=True)
    alpha = check_float(attenuation_db_per_km, "attenuation_db_per_km", 0.0)
    default = np.linspace(0.0, 40.0, 81)
    grid = as_numeric_array(default if distances is None else distances, "distances").ravel()
    if not 0 < grid.size <= 10_000:
        raise ValueError(f"distances must hold 1 to 10,000 distances, got {grid.size:,}")
    kw = dict(attenuation_db_per_km=alpha, source_efficiency=src, detector_efficiency=det)
    eta = np.array([fibre_transmission(float(L), **kw) for L in grid])
    if eta.min() <= 0.0:
        raise ValueError(f"distances must leave some light (η > 0), got up to {grid.max():g} km")
    fec, link = _scheme("fec"), Link(channel_fidelity=F)
    factors = [_net_factor(fec, Link(channel_fidelity=F, transmission=float(e))) for e in eta]
    classical = _net_factor(fec, link)
    classical = 0.0 if classical is None else classical.classical
    bound = eta * link.errors.capacity()
    return LossSweep(
        F, src, det, alpha, grid, eta, 2.0 * eta, _attr(factors, "online"), bound, classical
    )


def loss_crossover(channel_fidelity: float = 0.99, *, baseline: str = "noiseless") -> float:
    """The transmission η at which the "fec" scheme's online factor equals the ``baseline`` (as
    :func:`fec_crossover`). Bisection on (0, 1]; ``ValueError`` if η = 1 does not reach it.

    Examples
    --------
    >>> round(loss_crossover(0.99), 3), round(loss_crossover(0.99, baseline="coded"), 3)
    (0.684, 0.541)
    """
    F = check_fidelity(channel_fidelity, "channel_fidelity")
    baseline = check_choice(baseline, "baseline", ("noiseless", "coded"))
    fec = _scheme("fec")
    top = _net_factor(fec, Link(channel_fidelity=F))
    if top is None:
        raise ValueError(f"channel_fidelity = {F:g}: no Reed–Solomon code carries these errors")
    target = 1.0 if baseline == "noiseless" else top.classical
    if top.online < target:
        raise ValueError(
            f"channel_fidelity = {F:g}: the link stays below the {baseline} baseline "
            f"({top.online:.4f} < {target:.4f}) even without loss"
        )

    def f(eta):
        nf = _net_factor(fec, Link(channel_fidelity=F, transmission=eta))
        return (0.0 if nf is None else nf.online) - target

    return _bisect(f, 1e-6, 1.0)


@result(show=("arrival_rate",))
class LossRun(Tabular):
    """One all-reduce over a lossy superdense ring: where the lost photons go (ring totals).

    ``symbols`` that arrived (with a code: parity, checksums, resent blocks too), ``photons``
    sent (a lost photon burns its pair; resent on a fresh one), ``lost = photons − symbols``
    (heralded), ``offline_qubits`` (pair halves, each sent until it arrived); ``arrival_rate =
    symbols / photons`` (the simulated η) with ``standard_error = η sqrt((1 − η)/symbols)``;
    ``net_factor``: busiest link's classical bits per online use (expected ``2 η``); ``exact``:
    the outputs equal the classical ring's.

    Examples
    --------
    >>> loss_run(0.5, workers=4, d=1024, seed=0)
    LossRun(transmission=0.5, exact=True, arrival_rate=0.4985)
    """

    transmission: float
    channel_fidelity: float = field(repr=False)
    workers: int = field(repr=False)
    d: int = field(repr=False)
    symbols: int = field(repr=False)
    photons: int = field(repr=False)
    lost: int = field(repr=False)
    offline_qubits: int = field(repr=False)
    net_factor: float = field(repr=False)
    exact: bool

    @property
    def arrival_rate(self) -> float:
        """Symbols delivered per photon sent: the simulated transmission."""
        return self.symbols / self.photons

    @property
    def standard_error(self) -> float:
        """Standard deviation of :attr:`arrival_rate` around η (delta method)."""
        eta = self.transmission
        return eta * math.sqrt((1.0 - eta) / self.symbols)

    def table(self) -> Table:
        """The ring's photons, losses and pairs, and the simulated η against the set one."""
        return Table(
            ("symbols", "photons sent", "lost (heralded)", "offline qubits", "η set",
             "photons arrived / sent", "± s.d.", "net factor"),
            ((self.symbols, self.photons, self.lost, self.offline_qubits, self.transmission,
              self.arrival_rate, self.standard_error, self.net_factor),),
            (",d", ",d", ",d", ",d", "g", ".4f", ".4f", ".3f"),
            title=f"whole ring, P = {self.workers}, d = {self.d:,}, 16-bit words, "
            f"F_ch = {self.channel_fidelity:g}, outputs exact: {'yes' if self.exact else 'no'}",
        )  # fmt: skip


def loss_run(
    transmission: float = 0.5,
    *,
    channel_fidelity: float = 1.0,
    workers: int = 8,
    d: int = 2**14,
    seed: int = 0,
) -> LossRun:
    """:class:`LossRun` of random 16-bit integers (``workers`` x ``d``, ``d`` <= 2**20) on
    ``Link(channel_fidelity=F, transmission=η)``, "fec" when ``F < 1``.

    Examples
    --------
    >>> loss_run(0.9, workers=4, d=512, seed=1).exact
    True
    """
    eta = check_float(transmission, "transmission", 0.0, 1.0, lo_open=True)
    F = check_fidelity(channel_fidelity, "channel_fidelity")
    P = check_int(workers, "workers", 2, 64)
    d = check_int(d, "d", 1, 2**20)
    seed = check_int(seed, "seed", 0)
    grads = np.random.default_rng([seed, 0]).integers(-(2**15) // P, 2**15 // P, size=(P, d))
    reference = ring_allreduce(grads, transport="classical", bits=16).outputs
    res = ring_allreduce(
        grads, transport="superdense", bits=16, channel_fidelity=F, transmission=eta,
        protection="fec" if F < 1.0 else "none", seed=[seed, 1],
    )  # fmt: skip
    led = res.ledger
    photons, lost = int(led.per_link("online_qubits").sum()), led.events("lost")
    return LossRun(
        eta, F, P, d, photons - lost, photons, lost, int(led.per_link("offline_qubits").sum()),
        net_online_factor(res), bool(np.array_equal(res.outputs, reference)),
    )  # fmt: skip


# -- Training over a protected and an unprotected noisy ring --------------------------------------
@result(show=("identical", "unprotected_loss"))
class ProtectedTraining(Tabular):
    """Three data-parallel runs on the same data and batches: ``classical``, ``protected``
    (superdense ring, noisy link, ``protection``) and ``unprotected``.

    Examples
    --------
    >>> protected_training(0.99, "fec", steps=5)
    ProtectedTraining(channel_fidelity=0.99, protection='fec', identical=True, unprotected_loss=0.3756)
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
    """Train the two-moons MLP over the classical ring and the noisy superdense ring with and
    without ``protection`` (a scheme name); about a second per run.

    Examples
    --------
    >>> print(protected_training(0.99, "fec", steps=5).table())
    F_pair = F_ch = 0.99, 5 steps, P = 4
    run               final loss  final accuracy  max|w_k − w_0|  max|w − w_classical|
    classical ring        0.2827           0.877               0                     0
    superdense, fec       0.2827           0.877               0                     0
    superdense, none      0.3756           0.839            1.06                   2.1
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
