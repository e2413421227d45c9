"""The paper's headline claims (book/claims.ipynb), each checked by a library computation:
:func:`reproduce_claims` returns one :class:`~qring_edu.experiments.claims_verdicts.Claim` per
row of :data:`CLAIM_KEYS`, each row a function registered with
:func:`~qring_edu.experiments.claims_verdicts.claim_row` and judged from its numbers
(:func:`~qring_edu.experiments.claims_verdicts.judge`; the verdicts are in
:mod:`qring_edu.experiments.claims_verdicts`, the GapIP and TieAudit rows in
:mod:`qring_edu.experiments.claims_audits`). The page draws the table with
:func:`qring_edu.figures.claims.claims_table_html`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from .._validate import check_choice, check_float, check_int
from ..costmodel import allreduce_cut_bound
from ..holevo import (
    dense_coding_capacity,
    encoded_ensemble,
    holevo_chi,
    mutual_information,
    superdense_ensemble,
)
from ..noise import Link, depolarizing_capacities
from ..protection import expected_net_factor
from ..ring import message_bits, ring_allreduce
from ..states import isotropic_state
from ..training import gradient_budget
from ..vga import KnownPads, vga_aggregate
from ..vga_security import (
    KnownPadBits,
    SplitWorker,
    detection_probability,
    ghz_verified_infidelity,
    transcript_distance,
    vga_epsilon,
    vga_epsilon_floor,
)
from .claims_audits import gapip_claim, tieaudit_claim  # noqa: F401  (registered on import)
from .claims_verdicts import (  # noqa: F401  (the page imports them from here)
    CLAIM_ROWS,
    VERDICTS,
    Claim,
    _make,
    _pow2,
    _sci,
    claim_row,
    judge,
    verdict_from,
)
from .noisy_links import scheme_ledger
from .training import learner_comparison

__all__ = [
    "CLAIM_KEYS",
    "EVEN_RING",
    "ODD_RING",
    "judge_optimal",
    "reproduce_claims",
    "halving_claim",
    "optimality_claim",
    "lifetime_claim",
    "vga_claim",
    "learner_claim",
    "noisy_claim",
    "odd_messages_per_link",
]

# Ring sizes of the halving and lifetime rows: a realistic even case and chapter 3's odd case
# (P = 3 workers, d = 7 entries, b = 5 bits: messages of 15 and 10 bits).
EVEN_RING = (8, 2**16, 16)
ODD_RING = (3, 7, 5)


def odd_messages_per_link(workers: int, d: int, bits: int) -> np.ndarray:
    """Messages of odd bit length sent over each link ``(k, k+1)`` by the ring all-reduce, shape
    ``(P,)``: each needs one padding bit to fill its last qubit (``ceil(n/2)`` qubits for ``n``
    bits). From :func:`qring_edu.ring.message_bits`.

    Examples
    --------
    >>> odd_messages_per_link(3, 7, 5).tolist()       # messages of 15, 10, 10, 15 bits on link 0
    [2, 1, 1]
    """
    return (message_bits(workers, d, bits) % 2).sum(axis=1)


def _ring_links(workers: int, d: int, bits: int, seed: int):
    """Classical and superdense ring all-reduce of the same random b-bit integers: per-link
    classical online bits and superdense online qubits, offline qubits and ebits (shape
    ``(P,)`` each), and whether both return the exact sum."""
    gen = np.random.default_rng([seed, workers, d, bits])
    grads = gen.integers(-(2 ** (bits - 1)), 2 ** (bits - 1), size=(workers, d))
    classical = ring_allreduce(grads, transport="classical", bits=bits)
    quantum = ring_allreduce(grads, transport="superdense", bits=bits)
    exact = (grads.sum(axis=0) + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1)
    correct = bool(
        np.array_equal(quantum.outputs, classical.outputs) and np.all(quantum.outputs == exact)
    )
    q = quantum.ledger.per_link
    bits_ = classical.ledger.per_link("online_bits")
    return bits_, q("online_qubits"), q("offline_qubits"), q("ebits"), correct


# -- 1. Halving ------------------------------------------------------------------------------------
def _judge_halving(v: Mapping[str, float]) -> tuple[str, str]:
    failed = []
    if not (v["links_exactly_half"] == v["P"] and 2 * v["qubits_per_link"] == v["bits_per_link"]):
        failed.append(
            "online qubits are not half the classical bits on every link of the even ring"
        )
    if v["odd_links_padded"] != v["odd_P"] or v["odd_padding"] != v["odd_messages"]:
        failed.append("2 × qubits − bits is not one padding bit per odd message")
    if v["odd_messages"] > v["messages_per_link"]:
        failed.append("more padding bits than messages")
    if not (v["sums_exact"] and v["odd_sums_exact"]):
        failed.append("the superdense ring's sum is not the exact sum")
    return verdict_from(failed, [])


@claim_row("halving", _judge_halving)
def halving_claim(seed: int = 0) -> Claim:
    """Per-link online qubits (superdense) against bits (classical) at :data:`EVEN_RING` and
    :data:`ODD_RING`: holds iff ``2 qubits - bits`` = the odd-length messages on every link and
    both rings return the exact sum.

    Examples
    --------
    >>> row = halving_claim()
    >>> row.verdict, row.computed.split(": ")[1]
    ('holds', '1,835,008 bits vs 917,504 qubits on every link (ratio 0.5000). P = 3, d = 7, b = 5')
    """
    seed = check_int(seed, "seed", 0)
    (P, d, b), (Po, do, bo) = EVEN_RING, ODD_RING
    bits, qubits, _, _, ok_even = _ring_links(P, d, b, seed)
    bits_o, qubits_o, _, _, ok_odd = _ring_links(Po, do, bo, seed)
    odd = odd_messages_per_link(Po, do, bo)
    pad_o = 2 * qubits_o - bits_o  # padding bits per link
    busiest = int(np.argmax(bits_o))
    ratio = float(np.max(qubits / bits))
    computed = (
        f"P = {P}, d = {_pow2(math.log2(d))}, b = {b}: {int(bits.max()):,} bits vs "
        f"{int(qubits.max()):,} qubits on every link (ratio {ratio:.4f}). "
        f"P = {Po}, d = {do}, b = {bo}: busiest link {int(bits_o[busiest])} bits vs "
        f"{int(qubits_o[busiest])} qubits = ½ × {int(bits_o[busiest])} + ½ × "
        f"{int(odd[busiest])} padding bits ({int(odd[busiest])} odd messages of "
        f"{2 * (Po - 1)})"
    )
    values = dict(
        P=P,
        d=d,
        b=b,
        bits_per_link=int(bits.max()),
        qubits_per_link=int(qubits.max()),
        ratio=ratio,
        links_exactly_half=int(np.sum(2 * qubits == bits)),
        sums_exact=ok_even,
        odd_P=Po,
        odd_d=do,
        odd_b=bo,
        odd_bits=int(bits_o[busiest]),
        odd_qubits=int(qubits_o[busiest]),
        odd_padding=int(pad_o[busiest]),
        odd_messages=int(odd[busiest]),
        odd_links_padded=int(np.sum(pad_o == odd)),
        messages_per_link=2 * (Po - 1),
        odd_sums_exact=ok_odd,
    )
    return _make(
        "halving",
        values,
        claim="Superdense coding halves the per-link online communication of ring all-reduce",
        paper_figure="online qubits per link = ½ × classical bits per link, exactly (up to one "
        "padding bit per message)",
        computed=computed,
        chapter="03_superdense_ring",
        caveat="The sums are also exact (noiseless pairs). The halving is of the bandwidth term; "
        "the per-message latency is unchanged.",
    )


# -- 2. Optimality of the factor two ---------------------------------------------------------------
#: Ring sizes at which the optimality row compares the superdense ring with the cut-set floor.
CUT_WORKERS = (2, 8, 64)


def judge_optimal(v: Mapping[str, float]) -> tuple[str, str]:
    """The judge of the optimality row (:func:`optimality_claim`): ``(verdict, reason)`` from
    its ``values``.

    Examples
    --------
    >>> v = dict(optimality_claim(trials=2).values)
    >>> judge_optimal(v)[0]
    'partly'
    >>> judge_optimal({**v, "chi_max": 2.1})[0]
    'does not hold'
    """
    failed, limits = [], []
    if not (
        abs(v["chi"] - 2) < 1e-9
        and abs(v["bell_information"] - 2) < 1e-9
        and abs(v["capacity"] - 2) < 1e-9
    ):
        failed.append("superdense coding does not reach 2 bits per qubit")
    if v["chi_max"] > 2 + 1e-9:
        failed.append(f"an encoding of one qubit carries χ = {v['chi_max']:.4f} > 2 bits")
    ratios = [v[f"cut_ratio_P{P}"] for P in CUT_WORKERS]
    if min(ratios) < 1 - 1e-12:
        failed.append("a ring below the cut-set floor")
    if max(ratios) > 1 + 1e-12:
        above = ", ".join(
            f"{v[f'cut_ratio_P{P}']:.3f} at P = {P}"
            for P in CUT_WORKERS
            if v[f"cut_ratio_P{P}"] > 1 + 1e-12
        )
        met = [P for P in CUT_WORKERS if abs(v[f"cut_ratio_P{P}"] - 1) <= 1e-12]
        where = f"meets only at P = {', '.join(map(str, met))}" if met else "meets at no P shown"
        limits.append(
            "optimal among transports of the ring's messages (message by message, the "
            "entanglement-assisted Holevo bound). For arbitrary all-reduce protocols the book "
            "proves only the cut-set floor d·b/2 qubits into (and out of) every worker, which the "
            f"superdense ring {where} (2(P − 1)/P times the floor: {above}); whether another "
            "protocol beats the ring for P > 2 is open. Missing: a lower bound above the floor "
            "for P > 2, or a protocol that meets it"
        )
    return verdict_from(failed, limits)


@claim_row("optimal", judge_optimal)
def optimality_claim(seed: int = 0, trials: int = 100) -> Claim:
    """χ of the four superdense-coded Bell states, the bits a Bell measurement extracts, the dense
    coding capacity of |Φ+⟩, the largest χ over ``trials`` random encodings of one qubit (8
    random unitaries on qubit 0 of a random 3-qubit shared state), and the cut-set floor of
    :func:`~qring_edu.costmodel.allreduce_cut_bound` against the superdense ring at P in
    :data:`CUT_WORKERS` (d = 2^16, b = 16), which it meets only at P = 2.

    Examples
    --------
    >>> row = optimality_claim(trials=5)
    >>> row.verdict, "meets only at P = 2" in row.reason
    ('partly', True)
    """
    from qiskit.quantum_info import random_statevector, random_unitary

    trials = check_int(trials, "trials", 1, 10_000)
    seed = check_int(seed, "seed", 0)
    ens = superdense_ensemble()
    chi = holevo_chi(ens.probs, ens.states)
    bell_info = mutual_information(ens.probs, ens.states, ens.states)  # Bell-basis measurement
    capacity = dense_coding_capacity(isotropic_state(1.0))
    chis = []
    for t in range(trials):
        shared = random_statevector(8, seed=seed * 100_003 + t)
        encodings = [random_unitary(2, seed=(seed * 100_003 + t) * 8 + m) for m in range(8)]
        chis.append(holevo_chi(*encoded_ensemble(shared, encodings, alice_qubits=(0,))))
    chi_max = float(max(chis))
    _, d, b = EVEN_RING
    cuts = {P: allreduce_cut_bound(P, d, b) for P in CUT_WORKERS}
    floor = cuts[CUT_WORKERS[0]].qubits
    ratios = ", ".join(f"{cuts[P].superdense_ratio:.3f}×" for P in CUT_WORKERS)
    ratio_text = f"{ratios} the floor at P = {', '.join(map(str, CUT_WORKERS))}"
    computed = (
        f"χ(four Bell states) = {chi:.4f} bits, Bell measurement extracts "
        f"{bell_info:.4f} bits, dense-coding capacity of |Φ+⟩ = {capacity:.4f}; largest χ "
        f"over {trials} random one-qubit encodings = {chi_max:.4f} ≤ 2. Cut-set floor of "
        f"any all-reduce (d = {_pow2(math.log2(d))}, b = {b}): {floor:,.0f} qubits into "
        f"each worker; the superdense ring sends {ratio_text}"
    )
    values = dict(
        chi=chi,
        bell_information=bell_info,
        capacity=capacity,
        chi_max=chi_max,
        trials=trials,
        d=d,
        b=b,
        floor_qubits=floor,
        **{f"ring_qubits_P{P}": cuts[P].superdense_ring for P in CUT_WORKERS},
        **{f"cut_ratio_P{P}": cuts[P].superdense_ratio for P in CUT_WORKERS},
    )
    return _make(
        "optimal",
        values,
        claim="The factor two is optimal",
        paper_figure="entanglement-assisted Holevo bound: at most 2 classical bits per qubit sent",
        computed=computed,
        chapter="02_holevo",
        caveat="The Holevo bound and the cut-set floor are theorems (Holevo; Bennett et al.; the "
        "cut-set argument of chapter 2); the numbers show that superdense coding attains "
        "the per-message bound and that random encodings stay below it.",
    )


# -- 3. Lifetime channel use -----------------------------------------------------------------------
def _judge_lifetime(v: Mapping[str, float]) -> tuple[str, str]:
    failed = []
    if not (
        v["links_equal"] == v["P"]
        and v["lifetime"] == v["classical_bits"]
        and v["online_qubits"] + v["offline_qubits"] == v["lifetime"]
    ):
        failed.append("online + offline qubits differ from the classical bits on the even ring")
    if v["odd_links_padded"] != v["odd_P"] or v["odd_lifetime"] - v["odd_bits"] != v["odd_padding"]:
        failed.append("on the odd ring lifetime use is not classical bits + one per odd message")
    if v["ebits_equal_online"] != 1:
        failed.append("ebits consumed differ from online qubits")
    return verdict_from(failed, [])


@claim_row("lifetime", _judge_lifetime)
def lifetime_claim(seed: int = 0) -> Claim:
    """Lifetime channel use per link: superdense online + offline qubits against classical bits;
    holds iff they are equal on every link of the even ring and differ by one qubit per odd
    message on every link of the odd ring.

    Examples
    --------
    >>> row = lifetime_claim()
    >>> row.verdict, row.computed.split(". ")[1]
    ('holds', 'Odd case (P = 3, d = 7, b = 5): 26 + 26 = 52 = 50 bits + 2 (one per odd message)')
    """
    seed = check_int(seed, "seed", 0)
    (P, d, b), (Po, do, bo) = EVEN_RING, ODD_RING
    bits, on, off, ebits, _ = _ring_links(P, d, b, seed)
    bits_o, online_o, off_o, ebits_o, _ = _ring_links(Po, do, bo, seed)
    life, life_o = on + off, online_o + off_o
    odd = odd_messages_per_link(Po, do, bo)
    busiest = int(np.argmax(bits_o))
    online, offline = int(on.max()), int(off.max())
    ebits_ok = bool(np.all(ebits == on) and np.all(ebits_o == online_o))
    computed = (
        f"P = {P}, d = {_pow2(math.log2(d))}, b = {b}: {online:,} online + {offline:,} "
        f"offline qubits = {int(life.max()):,} = classical bits on every link. "
        f"Odd case (P = {Po}, d = {do}, b = {bo}): {int(online_o[busiest])} + "
        f"{int(life_o[busiest] - online_o[busiest])} = {int(life_o[busiest])} = "
        f"{int(bits_o[busiest])} bits + {int(odd[busiest])} (one per odd message)"
    )
    values = dict(
        P=P,
        online_qubits=online,
        offline_qubits=offline,
        lifetime=int(life.max()),
        classical_bits=int(bits.max()),
        links_equal=int(np.sum(life == bits)),
        odd_P=Po,
        odd_online=int(online_o[busiest]),
        odd_lifetime=int(life_o[busiest]),
        odd_bits=int(bits_o[busiest]),
        odd_padding=int(odd[busiest]),
        odd_links_padded=int(np.sum(life_o - bits_o == odd)),
        ebits_equal_online=int(ebits_ok),
    )
    return _make(
        "lifetime",
        values,
        claim="Total lifetime channel use is unchanged",
        paper_figure="online qubits + qubits spent distributing the Bell pairs = classical bits",
        computed=computed,
        chapter="03_superdense_ring",
        caveat="Exactly equal when every message has an even number of bits (b even, or every "
        "chunk an even number of words); otherwise online + offline = classical bits + one "
        "per odd-length message. The saving is on the critical path: the pairs are "
        "distributed offline, one qubit each (the book's model); a link that is busy the "
        "whole iteration gains nothing (chapter 3).",
    )


# -- 4. VGA ----------------------------------------------------------------------------------------
#: What the book's VGA guarantees do not cover (the module docstring of qring_edu.vga_security).
VGA_NOT_COVERED = (
    "partially bad copies",
    "attacks across copies",
    "all used copies jointly",
    "dishonest workers in the tests",
    "integrity of the sum",
    "authenticity of the broadcast channel",
    "workers that drop out (one worker that drops before announcing loses the round's sum for "
    "everyone, where Bonawitz et al.'s secure aggregation recovers from dropouts)",
)


def _judge_vga(v: Mapping[str, float]) -> tuple[str, str]:
    failed = []
    if v["ratio"] != 2 or v["ghz_tested"] != v["ghz_used"]:
        failed.append("the copies tested are not half of those delivered")
    if not (v["honest_accepted"] and v["sum_exact"]):
        failed.append("the honest source is rejected or the sum is wrong")
    if v["cheat_accepted"]:
        failed.append("the known-pads source is accepted")
    if v["honest_tv"] > 1e-12:
        failed.append("genuine GHZ states give a transcript different from the ideal one")
    if not v["epsilon_split"] < 1e-4:
        failed.append(f"ε = {v['epsilon_split']:.2g} at the ¼ detection floor is not small")
    unestablished = [
        "composable ε-security is not established here, not even against coherent attacks on "
        "the source: missing is a proof in a composable framework that covers a source acting on "
        "all copies at once (the verification results of Yehia et al. and Colisson et al. would "
        "be its starting point)"
    ]
    limits = [
        "what the book proves: the transcript is exactly the ideal one (total-variation "
        "distance 0) when the GHZ states are genuine, a sampling bound ε for sources whose bad "
        "registers are independent and caught with probability ≥ δ per test (ε depends on δ"
        + (
            f"; with β = 0, ε ≥ {v['epsilon_floor_beta0']:.1f} for every N"
            if v["epsilon_floor_beta0"] >= 0.5
            else ""
        )
        + "), and a fidelity bound for one random used register. Not covered: "
        + ", ".join(VGA_NOT_COVERED)
    ]
    return verdict_from(failed, limits, unestablished)


@claim_row("vga", _judge_vga)
def vga_claim(seed: int = 0) -> Claim:
    """VGA with half of the delivered GHZ copies tested (P = 4, d = 400 entries, b = 8): copies
    used and tested, acceptance of an honest and of a known-pads source, the soundness error
    ε(N = 2d, f = ½, β = 0.1) of :func:`~qring_edu.vga_epsilon` for three attacks
    (:func:`~qring_edu.vga_security.detection_probability`), its floor at β = 0, the fidelity
    that N·f passed register tests guarantee at 5 % significance
    (:func:`~qring_edu.vga_security.ghz_verified_infidelity`) and the transcript distance of an
    honest run (:func:`~qring_edu.vga_security.transcript_distance`).

    Examples
    --------
    >>> row = vga_claim()
    >>> row.verdict, row.reason.startswith("Composable ε-security is not established here")
    ('not established', True)
    """
    seed = check_int(seed, "seed", 0)
    P, d, b, beta, f, significance = 4, 400, 8, 0.1, 0.5, 0.05
    gen = np.random.default_rng([seed, P, d, b])
    x = gen.integers(0, 2**b, size=(P, d))
    honest = vga_aggregate(x, bits=b, test_fraction=f, seed=gen)
    cheat = vga_aggregate(x, bits=b, test_fraction=f, source=KnownPads(), seed=gen)
    exact = (x.sum(axis=0) + 2 ** (b - 1)) % 2**b - 2 ** (b - 1)
    ratio = honest.ghz_delivered / honest.ghz_used
    N = honest.n_copies
    attacks = {"split": SplitWorker(), "one_qubit": KnownPadBits(1), "register": KnownPads()}
    det = {k: detection_probability(attack, P, bits=b) for k, attack in attacks.items()}
    eps = {k: vga_epsilon(N, f, beta, detection=v) for k, v in det.items()}
    floor0 = vga_epsilon_floor(N, f, 0.0)
    tested = N - int(round((1 - f) * N))
    fidelity = 1.0 - ghz_verified_infidelity(tested, significance)
    # Exact total-variation distance of an honest run's transcript from the ideal one (exact
    # enumeration needs a small register: P = 4, b = 2).
    tv = transcript_distance(x[:, 0] % 4, 2)
    computed = (
        f"P = {P}, d = {d}, b = {b}: {honest.ghz_used:,} GHZ copies used + "
        f"{honest.ghz_tested:,} tested = {ratio:.1f}× the copies used; honest source "
        f"{'accepted' if honest.accepted else 'rejected'} with the exact sum, known-pads "
        f"source {'accepted' if cheat.accepted else 'rejected'} "
        f"({cheat.tests_failed:,} of {cheat.tests:,} tests failed). "
        f"ε(N = {N}, f = ½, β = {beta:g}) = {_sci(eps['split'])} (split worker, δ = ¼, "
        f"the floor for any certain leak), {_sci(eps['one_qubit'])} (known pads on one "
        f"qubit GHZ, δ = 7/16), {_sci(eps['register'])} (whole register, δ = "
        f"{det['register']:.3f}); with β = 0, ε ≥ {floor0:.1f} for every N. "
        f"{tested} passed register tests give F ≥ {fidelity:.3f} for a random used "
        f"register at {significance:.0%} significance"
    )
    values = dict(
        ghz_used=honest.ghz_used,
        ghz_tested=honest.ghz_tested,
        ghz_delivered=honest.ghz_delivered,
        ratio=ratio,
        n_copies=N,
        beta=beta,
        honest_accepted=honest.accepted,
        sum_exact=bool(np.array_equal(honest.total, exact)),
        cheat_accepted=cheat.accepted,
        cheat_failed=cheat.tests_failed,
        cheat_tests=cheat.tests,
        **{f"detection_{k}": d for k, d in det.items()},
        **{f"epsilon_{k}": e for k, e in eps.items()},
        epsilon_floor_beta0=floor0,
        tested_registers=tested,
        significance=significance,
        fidelity_bound=fidelity,
        honest_tv=tv,
    )
    return _make(
        "vga",
        values,
        claim="Composable ε-secure aggregation via verified entanglement (VGA)",
        paper_figure="a secret random half of the GHZ copies tested: 2× GHZ copies",
        computed=computed,
        chapter="05_vga",
        caveat="The 2× copy overhead holds by construction: the test fraction f = ½ is chosen "
        "(any f costs 1/(1 − f) copies per used one). The test (after Pappa et al. 2012), the "
        "split over whole registers and ε as 'all tests pass yet more than a fraction β of the "
        "used copies are bad' are the book's reconstruction; the finite-copy fidelity statement "
        "follows Zhu & Hayashi 2019.",
    )


# -- 7. The learner --------------------------------------------------------------------------------
def _judge_learner(v: Mapping[str, float]) -> tuple[str, str]:
    failed = []
    for m in ("mlp", "vqc"):
        if not v[f"{m}_identical"]:
            failed.append(f"{m.upper()}: superdense training at F = 1 differs from classical")
        if 2 * v[f"{m}_qubits_per_step"] != v[f"{m}_bits_per_step"]:
            failed.append(f"{m.upper()}: online qubits per step are not half the bits")
        if v[f"{m}_qubits_per_step"] != v[f"{m}_budget_qubits"]:
            failed.append(f"{m.upper()}: qubits per step differ from the gradient budget")
    return verdict_from(failed, [])


@claim_row("learner", _judge_learner)
def learner_claim(seed: int = 0, steps: int = 100) -> Claim:
    """An MLP and the variational quantum classifier (:mod:`qring_edu.vqc`) trained on P = 4
    workers for ``steps`` steps over the classical ring and the superdense ring at F = 1 and
    0.95 (:func:`~qring_edu.experiments.training.learner_comparison`): bit-identity at F = 1,
    bits and qubits per link and step against :func:`~qring_edu.training.gradient_budget`,
    accuracies, and the time the halving saves.

    Examples
    --------
    >>> row = learner_claim(steps=3)
    >>> row.verdict, row.computed[:59]
    ('holds', 'P = 4: MLP (82 parameters) 1,984 bits → 992 qubits per link')
    """
    seed = check_int(seed, "seed", 0)
    steps = check_int(steps, "steps", 1, 100_000)
    noisy, alpha, beta = 0.95, 10e-6, 1e-11  # the book's link: 10 µs, 100 Gbit/s
    cmp = learner_comparison(fidelities=(1.0, noisy), workers=4, steps=steps, seed=seed)
    v = dict(workers=cmp.workers, steps=cmp.steps, noisy_fidelity=noisy, alpha=alpha, beta=beta)
    for m in ("mlp", "vqc"):
        cl, sd = cmp.run(m), cmp.run(m, 1.0)
        budget = gradient_budget(
            cl.n_params, workers=cmp.workers, bits=cl.bits, alpha=alpha, beta=beta
        )
        v.update(
            {
                f"{m}_params": cl.n_params,
                f"{m}_identical": cmp.identical(m),
                f"{m}_bits_per_step": cl.online_bits_per_step,
                f"{m}_qubits_per_step": sd.online_qubits_per_step,
                f"{m}_budget_qubits": budget.link_qubits,
                f"{m}_accuracy": cl.final_accuracy,
                f"{m}_accuracy_noisy": cmp.run(m, noisy).final_accuracy,
                f"{m}_saving": budget.saving,
                f"{m}_crossover_params": budget.crossover_params,
            }
        )
    same = "both bit-identical" if v["mlp_identical"] and v["vqc_identical"] else "NOT identical"
    computed = (
        f"P = {cmp.workers}: MLP ({v['mlp_params']} parameters) "
        f"{v['mlp_bits_per_step']:,.0f} bits → {v['mlp_qubits_per_step']:,.0f} qubits per "
        f"link and step; VQC (3 qubits × 3 layers, {v['vqc_params']} angles) "
        f"{v['vqc_bits_per_step']:,.0f} → {v['vqc_qubits_per_step']:,.0f}; {same} at "
        f"F = 1 after {cmp.steps} steps (accuracy {v['mlp_accuracy']:.3f} and "
        f"{v['vqc_accuracy']:.3f})"
    )
    return _make(
        "learner",
        v,
        claim="The advantage does not depend on the learner (classical or quantum model)",
        paper_figure="“without altering the underlying learning model”: the same halving for a "
        "classical and a quantum model",
        computed=computed,
        chapter="03_training",
        caveat=f"Noise tolerance depends on the learner: at F = {noisy:g} the MLP reaches "
        f"accuracy {v['mlp_accuracy_noisy']:.3f}, the VQC {v['vqc_accuracy_noisy']:.3f}. "
        f"At {v['vqc_params']} parameters the ring is latency-bound: the halving saves "
        f"{_sci(v['vqc_saving'])} of the all-reduce time at α = {alpha * 1e6:g} µs, "
        f"{1e-9 / beta:g} Gbit/s "
        f"(bandwidth and latency terms are equal at {v['vqc_crossover_params']:,.0f} "
        "parameters).",
    )


# -- 8. The factor two on a noisy link -------------------------------------------------------------
def _judge_noisy(v: Mapping[str, float]) -> tuple[str, str]:
    failed, limits = [], []
    for scheme in ("fec", "distill+fec"):
        if not v[f"{scheme}_reliable"] or v[f"{scheme}_wrong"] > 0:
            failed.append(f"{scheme} delivered wrong entries")
        if v[f"{scheme}_factor"] > v[f"{scheme}_bound"] + 1e-9:
            failed.append(f"{scheme} exceeds the capacity bound C_E(F_eff)")
    for scheme in ("none", "distill"):
        if v[f"{scheme}_wrong"] == 0:
            failed.append(f"{scheme} left every entry right (no noise reached the data)")
    if v["fec_factor"] < 2 or v["distill+fec_factor"] < 2:
        limits.append(
            f"the factor two is a statement about noiseless links: at F = "
            f"{v['fidelity']:g} the schemes that deliver the right data reach "
            f"{v['fec_factor']:.2f} (fec) and {v['distill+fec_factor']:.2f} "
            f"(distill+fec), below the capacity bound C_E(F_eff) = {v['fec_bound']:.2f} "
            f"({v['distill+fec_bound']:.2f} with distilled pairs); without "
            "coding the factor stays 2 but the sums are wrong; against the same code sent as "
            f"classical bits over the same channel the advantage is "
            f"{v['fec_factor'] / v['fec_classical']:.2f} (fec). Missing: a code whose rate "
            "reaches C_E(F_eff) (the book's does not)"
        )
    return verdict_from(failed, limits)


@claim_row("noisy", _judge_noisy)
def noisy_claim(seed: int = 0, fidelity: float = 0.99) -> Claim:
    """The factor two on a noisy link (chapter 4), pairs and online qubits over one depolarising
    channel of ``fidelity``: each scheme's online factor, the fraction of entries one all-reduce
    corrupts and the bound C_E(F_eff) (:func:`~qring_edu.experiments.noisy_links.scheme_ledger`).

    Examples
    --------
    >>> row = noisy_claim(fidelity=0.99)
    >>> row.verdict, row.chapter
    ('partly', '04_noisy_links')
    """
    seed = check_int(seed, "seed", 0)
    fidelity = check_float(fidelity, "fidelity", 0.5, 1.0, lo_open=True)
    c = scheme_ledger(fidelity, d=2**16, seed=seed)
    caps = depolarizing_capacities(fidelity)
    v = {"fidelity": fidelity, "assisted": caps.entanglement_assisted}
    for r in c:
        v[f"{r.scheme}_factor"] = r.expected
        v[f"{r.scheme}_reliable"] = r.reliable
        v[f"{r.scheme}_wrong"] = r.wrong_fraction
        v[f"{r.scheme}_bound"] = r.bound
    # the fair baseline: the same code sent as classical bits over the same depolarising channel
    link = Link(pair_fidelity=fidelity, channel_fidelity=fidelity)
    for scheme in ("fec", "distill+fec"):
        v[f"{scheme}_classical"] = expected_net_factor(scheme, link=link).classical
    baseline = (
        f" Against the same code sent as classical bits over the same channel "
        f"({v['fec_classical']:.2f} payload bits per use) the advantage is "
        f"{v['fec_factor'] / v['fec_classical']:.2f} (fec) and "
        f"{v['distill+fec_factor'] / v['distill+fec_classical']:.2f} (distill+fec)."
    )
    return _make(
        "noisy",
        v,
        claim="The factor two on a real (noisy) link",
        source="book",
        paper_figure="online qubits per link = ½ × classical bits (proven on noiseless links)",
        computed=c.text() + baseline,
        chapter="04_noisy_links",
        caveat=f"Pairs distributed over the same channel (F_pair = F_ch = {fidelity:g}); the code "
        "is the book's choice (Reed–Solomon over GF(2⁸), bounded-distance decoding, a "
        "checksum and retransmission), so the reliable factors are what this code "
        "achieves, not the largest possible; relative to the same channel without "
        f"entanglement the gain exceeds two (C_E/C at F = {fidelity:g}: "
        f"{caps.entanglement_assisted / caps.classical:.3f}, Bennett–Shor–"
        "Smolin–Thapliyal).",
    )


#: The table's order (rows register on import; the audit rows come from claims_audits).
_ORDER = ("halving", "optimal", "lifetime", "vga", "gapip", "tieaudit", "learner", "noisy")
for _key in _ORDER:
    CLAIM_ROWS[_key] = CLAIM_ROWS.pop(_key)

#: Keys of the rows, in table order.
CLAIM_KEYS = tuple(CLAIM_ROWS)


def reproduce_claims(
    seed: int = 0,
    *,
    keys: Sequence[str] | None = None,
    options: Mapping[str, Mapping] | None = None,
) -> list[Claim]:
    """The claims of every registered row (:data:`CLAIM_ROWS`; or of ``keys``), in table order,
    each computed by its row function with ``seed`` (10–15 s; GapIP and the training runs
    dominate).

    ``options[key]`` holds keyword arguments for that row's function, e.g.
    ``{"gapip": {"trials": 4}}``.

    Examples
    --------
    >>> from qring_edu.experiments.claims import reproduce_claims
    >>> rows = reproduce_claims(keys=["halving", "lifetime", "vga"])
    >>> [(r.key, r.verdict) for r in rows]
    [('halving', 'holds'), ('lifetime', 'holds'), ('vga', 'not established')]
    """
    seed = check_int(seed, "seed", 0)
    options = dict(options or {})
    registered = tuple(CLAIM_ROWS)
    if isinstance(keys, str):
        keys = (keys,)
    wanted = registered if keys is None else tuple(keys)
    for key in wanted:
        check_choice(key, "keys", registered)
    for key in options:
        check_choice(key, "options (a row key)", registered)
    return [CLAIM_ROWS[k].compute(seed, **options.get(k, {})) for k in registered if k in wanted]
