"""Experiments of the chapter *Noisy links*: the physical link (experiments floor).

Bell pairs per training iteration against published hardware: :data:`HARDWARE` (each rate with
the fidelity it was delivered at, each number with its source) and :func:`reality_check` (how many
orders of magnitude the pair rate falls short for a model). Photon loss: the net online factor
against transmission and fibre length (:func:`loss_sweep`, :func:`loss_crossover`) and the ledger
of a lossy all-reduce (:func:`loss_run`). Re-exported by :mod:`qring_edu.experiments.noisy_links`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import astuple, field

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
from ..noise import Link, fibre_transmission, memory_dephasing
from ..protection import NetFactor, Protection, expected_net_factor, protection
from ..ring import net_online_factor, ring_allreduce
from ._base import Rows, Table, Tabular

__all__ = [
    "HardwareFact",
    "HARDWARE",
    "hardware_table",
    "RealityRow",
    "RealityCheck",
    "reality_check",
    "LossSweep",
    "loss_sweep",
    "loss_crossover",
    "LossRun",
    "loss_run",
]


# Reality check: pairs per iteration against published hardware
@result
class HardwareFact:
    """One published hardware number (``source``: its key in ``references.bib``); a rate comes
    with ``fidelity``, the fidelity its pairs were delivered at, as the source states it.

    Examples
    --------
    >>> HARDWARE[0].quantity, HARDWARE[0].value, HARDWARE[0].unit, HARDWARE[0].fidelity
    ('remote entanglement rate', 182.0, 'pairs/s', '0.940(5)')
    """

    quantity: str
    value: float
    unit: str
    platform: str
    source: str
    note: str = ""
    fidelity: str = ""


#: Published numbers the chapter compares with, each rate with the fidelity it was delivered at
#: (the trapped-ion rate checked in the lead author's thesis on the same experiment and in a citing
#: paper, the others against the papers' abstracts).
HARDWARE = (
    HardwareFact(
        "remote entanglement rate",
        182.0,
        "pairs/s",
        "88Sr+ ions in two traps about 2 m apart",
        "stephenson2020high",
        "'fidelity is 94.0(5) %, and is generated at a rate of 182 s-1'",
        "0.940(5)",
    ),
    HardwareFact(
        "remote entanglement rate",
        39.0,
        "pairs/s",
        "NV centres in diamond, 2 m apart",
        "humphreys2018deterministic",
        "'entangling rates up to 39 Hz'; 'average entanglement fidelity exceeding 0.5'",
        "> 0.5",
    ),
    HardwareFact(
        "decoherence rate of a remote entangled state",
        5.0,
        "Hz",
        "NV centres in diamond, dynamical decoupling",
        "humphreys2018deterministic",
        "'decoherence rate of remote entangled states to 5 Hz'",
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
        "one 171Yb+ ion, no network",
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
_FACT = {(h.source, h.unit): h.value for h in HARDWARE}


def hardware_table() -> Table:
    """:data:`HARDWARE` as a table (quantity, value, unit, the fidelity a rate was delivered
    at, platform, the paper's wording).

    Examples
    --------
    >>> hardware_table().column("unit")
    ('pairs/s', 'pairs/s', 'Hz', '', 's', 's', 'qubits')
    """
    return Table(
        ("quantity", "value", "unit", "at fidelity", "platform", "as the source states it"),
        tuple((h.quantity, h.value, h.unit, h.fidelity, h.platform, h.note) for h in HARDWARE),
        ("", "g", "", "", "", ""),
    )


@result
class RealityRow:
    """One model on the superdense ring (busiest link, one iteration, :func:`reality_check`).

    ``pairs``: Bell pairs per iteration unprotected (= online qubits), ``pairs_fec`` with
    ``"fec"``; ``rate_needed``: pairs/s to supply ``pairs_fec`` within one iteration;
    ``days_at_rate``: days at the demonstrated rate; ``orders``: ``log10(rate_needed / rate)``.

    Examples
    --------
    >>> reality_check(["ResNet-50"]).row("ResNet-50")
    RealityRow(model='ResNet-50', pairs=357798448, orders=7.43)
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

    ``iteration_time`` (s): the training step the pairs must not outlive; ``pair_rate``
    (pairs/s): the demonstrated rate; ``fec_factor``: the online factor of ``"fec"`` at
    ``channel_fidelity``; ``memory_error``: P(a pair dephases while it waits one iteration in a
    memory of coherence time ``coherence_time`` (s)).

    Examples
    --------
    >>> reality_check(["ResNet-50"])  # 10**7 times the demonstrated rate
    RealityCheck(workers=8, bits=16, iteration_time=0.1, pair_rate=182, channel_fidelity=0.99, orders=(('ResNet-50', 7.43),))
    """

    workers: int = 8
    bits: int = 16
    iteration_time: float = 0.1
    pair_rate: float = 182.0
    channel_fidelity: float = 0.99
    fec_factor: float = field(default=0.0, repr=False)
    coherence_time: float = field(default=3600.0, repr=False)
    memory_error: float = field(default=0.0, repr=False)

    @property
    def orders(self) -> tuple:
        """``(model, orders of magnitude)`` per row: how far the demonstrated rate falls short."""
        return tuple((r.model, r.orders) for r in self.rows)

    def row(self, model: str) -> RealityRow:
        """The row of ``model``."""
        return self._find(model=model)

    def table(self) -> Table:
        """Pairs per iteration (with fec too), the rate needed and its distance from the
        demonstrated rate in orders of magnitude."""
        columns = ("model", "parameters", "pairs per iteration", "with fec", "pairs/s needed")
        return Table(
            (*columns, f"days at {self.pair_rate:g}/s", "orders of magnitude"),
            tuple(astuple(r) for r in self.rows),
            ("", ",d", ".3g", ".3g", ".3g", ",.0f", ".1f"),
            title=f"busiest link, P = {self.workers}, {self.bits}-bit words, iteration "
            f"{self.iteration_time:g} s, fec at F = {self.channel_fidelity:g} "
            f"(factor {self.fec_factor:.3f})",
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
    (182 pairs/s, delivered at F = 0.94, below the ``channel_fidelity`` the pair count assumes;
    3600 s, an isolated ion's memory). ``iteration_time`` (s, > 0): the training step the pairs of one
    iteration must be produced in (storing them longer gains nothing, chapter 3).

    Examples
    --------
    >>> round(reality_check(["GPT-2 XL"]).row("GPT-2 XL").orders, 1)
    9.2
    """
    P = check_int(workers, "workers", 2)
    b = check_bits(bits)
    T = check_float(iteration_time, "iteration_time", 0.0, lo_open=True)
    rate = _FACT["stephenson2020high", "pairs/s"] if pair_rate is None else pair_rate
    T2 = _FACT["wang2021single", "s"] if coherence_time is None else coherence_time
    rate = check_float(rate, "pair_rate", 0.0, lo_open=True)
    T2 = check_float(T2, "coherence_time", 0.0, lo_open=True)
    F = check_fidelity(channel_fidelity, "channel_fidelity")
    fec = expected_net_factor("fec", link=Link(channel_fidelity=F)).online
    rows = []
    for m in models:
        d = int(MODEL_SIZES[check_choice(m, "models", tuple(MODEL_SIZES))])
        pairs_fec = link_units(P, d, b) / fec
        need = pairs_fec / T
        pairs = int(link_units(P, d, b, transport="superdense"))
        days = pairs_fec / rate / 86400.0
        rows.append(RealityRow(m, d, pairs, pairs_fec, need, days, math.log10(need / rate)))
    memory_error = memory_dephasing(T, T2).error_rate
    return RealityCheck(tuple(rows), P, b, T, rate, F, fec, T2, memory_error)


def _net_factor(prot: Protection, link: Link) -> NetFactor | None:
    """Expected factors of ``prot`` on ``link``; ``None`` where no code of that length carries
    the link's errors."""
    try:
        return expected_net_factor(prot, link=link)
    except ValueError:
        return None


def _bisect(f, lo: float, hi: float, iters: int = 60) -> float:
    """Root of an increasing ``f`` on [lo, hi] with f(lo) < 0 <= f(hi)."""
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return 0.5 * (lo + hi)


# Photon loss: the net factor against transmission and distance, and the ledger of a lossy run
@result(show=("break_even_km",))
class LossSweep:
    """The net online factor of a lossy link against distance and transmission
    (:func:`loss_sweep`).

    Over ``distances`` (km of fibre at ``attenuation_db_per_km``), ``transmissions`` =
    ``source_efficiency · 10^(−attenuation L/10) · detector_efficiency`` (η). ``perfect``: the
    factor of a link whose only imperfection is loss, ``2 η`` (each symbol is sent until its
    photon arrives; also ``C_E = 2 η`` of the pure erasure channel); ``fec``: the "fec" scheme's
    online factor on the lossy depolarising link of ``channel_fidelity`` (NaN where no code
    fits); ``bound``: ``η C_E(F_eff)``; ``classical``: the same code sent as classical bits
    over the same channel (a bright pulse: loss dims it, never erases it, so it does not depend
    on η; the noiseless classical ring is 1). ``break_even_km``: the distance at which
    ``perfect`` falls to 1 (η = 1/2), NaN if the efficiencies already put η at or below 1/2.

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
        """Source times detector efficiency: η at zero distance."""
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
    """Net online factors of a lossy link over ``distances`` (km; default 0..40 km, 81 points;
    at most 10,000). Closed forms (:func:`qring_edu.protection.expected_net_factor` on
    ``Link(channel_fidelity=F, transmission=η)``); η from
    :func:`qring_edu.noise.fibre_transmission`. See :class:`LossSweep`.

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
    grid = as_numeric_array(
        np.linspace(0.0, 40.0, 81) if distances is None else distances, "distances"
    ).ravel()
    if not 0 < grid.size <= 10_000:
        raise ValueError(f"distances must hold 1 to 10,000 distances, got {grid.size:,}")
    kw = dict(attenuation_db_per_km=alpha, source_efficiency=src, detector_efficiency=det)
    eta = np.array([fibre_transmission(float(L), **kw) for L in grid])
    if eta.min() <= 0.0:
        raise ValueError(f"distances must leave some light (η > 0), got up to {grid.max():g} km")
    fec = protection("fec")
    factors = [_net_factor(fec, Link(channel_fidelity=F, transmission=float(e))) for e in eta]
    online = np.array([math.nan if f is None else f.online for f in factors])
    bound = eta * Link(channel_fidelity=F).errors.capacity()
    classical = _net_factor(fec, Link(channel_fidelity=F))
    return LossSweep(
        F, src, det, alpha, grid, eta, 2.0 * eta, online, bound,
        0.0 if classical is None else classical.classical,
    )  # fmt: skip


def loss_crossover(channel_fidelity: float = 0.99, *, baseline: str = "noiseless") -> float:
    """The transmission η at which the "fec" scheme's online factor on
    ``Link(channel_fidelity=F, transmission=η)`` equals the classical ``baseline``:
    ``"noiseless"`` (one bit per use) or ``"coded"`` (the same code sent as classical bits over
    the same channel). Bisection on (0, 1]; ``ValueError`` if the link does not reach the
    baseline even at η = 1.

    Examples
    --------
    >>> round(loss_crossover(0.99), 3), round(loss_crossover(0.99, baseline="coded"), 3)
    (0.684, 0.541)
    """
    F = check_fidelity(channel_fidelity, "channel_fidelity")
    baseline = check_choice(baseline, "baseline", ("noiseless", "coded"))
    fec = protection("fec")
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
    """One all-reduce over a lossy superdense ring (:func:`loss_run`): where the lost photons go.

    Whole-ring totals from the ledger: ``symbols`` (superdense symbols that arrived: the
    messages', and with a code its parity, checksums and retransmitted blocks),
    ``photons`` (online qubits sent; every lost photon burnt its pair and was sent again on a
    fresh one), ``lost`` (the ledger's heralded losses, ``photons − symbols``),
    ``offline_qubits`` (halves sent to distribute the pairs, each until it arrived).
    ``arrival_rate``: ``symbols / photons``, the simulated η; ``standard_error``: its standard
    deviation ``η sqrt((1 − η)/symbols)`` (each photon arrives independently with probability
    η); ``net_factor``: the busiest link's classical bits per online use (expected ``2 η``);
    ``exact``: the outputs equal the classical ring's.

    Examples
    --------
    >>> r = loss_run(0.5, workers=4, d=1024, seed=0); r
    LossRun(transmission=0.5, exact=True, arrival_rate=0.4985)
    >>> abs(r.arrival_rate - 0.5) <= 4 * r.standard_error, r.lost == r.photons - r.symbols
    (True, True)
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
    """Run one all-reduce of random 16-bit integers (``workers`` x ``d``, ``d`` at most 2**20)
    over the superdense ring on ``Link(channel_fidelity=F, transmission=η)`` with the "fec"
    protection when ``F < 1`` (none on a loss-only link) and total the ledger. See
    :class:`LossRun`.

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
