"""Noisy links and their protection (book/04_noisy_links.ipynb), for ``bench/run.py``.

    run(out, repeats) -> list of (name, measured, target, ok)
    python bench/bench_links.py [repeats] [--no-scale | --scale-only]

* **Protected ring**, P = 8, d = 2^20 float32, 16-bit words, F_pair = F_ch = 0.99,
  ``protection="fec"`` (fast decoder model) against the classical ring on the same data, run
  alternately: wall-time ratio (target <= 3), outputs equal to the noiseless ring, net online
  factor (target >= 1.4; the bound C_E(F_eff) = 1.828); at F = 0.999 the net factor (target >=
  1.8; bound 1.976). The unprotected noisy ring and distill+fec beside it for context.
* **Sweeps for the chapter's figures**: ``depolarizing_capacities``, ``distill`` (both protocols,
  rounds 0..4), ``distillable_yield`` and ``expected_net_factor`` (every scheme) over a grid of F,
  each timed as one sweep (target < 1 s each).
* **Real decoder vs fast model**: the protected ring with ``decoder="galois"`` (galois'
  Reed–Solomon decoder, a Toeplitz checksum) and with the fast model on the same seed: same
  outputs and ledgers; throughput ratio.
* **SeQUeNCe**: its density-matrix simulation of the bilateral-CNOT purification circuit
  (``BBPSSWCircuit``, with the DEJMPS rotations applied as SeQUeNCe circuits) and its
  Bell-diagonal BBPSSW/DEJMPS formulas (``BBPSSW_BDS``) against ``qring_edu.distill``'s
  recurrence, three rounds from several input pairs.
* **Scale**: P = 64, d = 2^24 float32 (4 GiB input) with ``protection="fec"``: traced peak and
  process RSS (target <= 14 GiB), every output entry checked against the noiseless ring's (the
  fixed-point modular sum, recomputed block by block); the unprotected noisy ring beside it.
  Runs only if MemAvailable leaves the budget (otherwise reported as not run).
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))
BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from timing import max_rss, mem_available, time_it, time_pair, traced  # noqa: E402

from qring_edu import ring_allreduce  # noqa: E402
from qring_edu.distillation import distill, distillable_yield  # noqa: E402
from qring_edu.fixedpoint import fixed_point, word_mask  # noqa: E402
from qring_edu.noise import Link, depolarizing, depolarizing_capacities  # noqa: E402
from qring_edu.protection import (  # noqa: E402
    FEC,
    SCHEMES,
    Distill,
    Protection,
    expected_net_factor,
)
from qring_edu.ring import net_online_factor, net_online_factors  # noqa: E402

GiB = 2**30
RING_P, RING_D, RING_BITS = 8, 2**20, 16
F_MAIN, F_HIGH = 0.99, 0.999
TARGET_TIME_RATIO = 3.0
TARGET_FACTOR = {F_MAIN: 1.4, F_HIGH: 1.8}
SWEEP_POINTS = 1000  # fidelities per sweep
TARGET_SWEEP_SECONDS = 1.0
GALOIS_P, GALOIS_D = 4, 2**12  # the real decoder is ~10^4 times slower: a small instance
SEQ_TRIALS = 400  # SeQUeNCe circuit runs per round and input
SCALE_P, SCALE_LOG2_D = 64, 24
SCALE_BUDGET = 14 * GiB
SCALE_RESERVE = 2 * GiB
SCALE_BLOCK = 1 << 18  # columns per block of the reference check


def _fec(grads, F, seed=1, **kw):
    return ring_allreduce(
        grads,
        transport="superdense",
        bits=RING_BITS,
        channel_fidelity=F,
        protection=kw.pop("protection", "fec"),
        seed=seed,
        **kw,
    )


def _ring_section(out, repeats):
    rng = np.random.default_rng(2015)
    grads = rng.standard_normal((RING_P, RING_D), dtype=np.float32)
    out(
        f"## Noisy links: protected ring, P = {RING_P}, d = 2^{RING_D.bit_length() - 1} float32, "
        f"{RING_BITS}-bit words, F_pair = F_ch"
    )
    t_cl, t_fec, res_cl, res_fec = time_pair(
        lambda: ring_allreduce(grads, bits=RING_BITS), lambda: _fec(grads, F_MAIN), repeats
    )
    ratio = statistics.median(b / a for a, b in zip(t_cl.seconds, t_fec.seconds))
    equal = bool(np.array_equal(res_fec.outputs, res_cl.outputs))
    rows = []
    out(f"- classical ring:            {t_cl.text()}")
    out(f"- fec ring, F = {F_MAIN}:      {t_fec.text()}  (decoder: exact fast model)")
    out(f"- wall-time ratio fec / classical: median of {repeats} alternating pairs {ratio:.2f}")
    out(f"- fec outputs equal the noiseless ring entry for entry: {equal}; {res_fec.link_report!r}")
    rows.append(
        (
            f"fec ring / classical ring wall time, P={RING_P}, d=2^20, F={F_MAIN}",
            f"{ratio:.2f}",
            f"<= {TARGET_TIME_RATIO:g}",
            ratio <= TARGET_TIME_RATIO,
        )
    )
    for F, res in ((F_MAIN, res_fec), (F_HIGH, _fec(grads, F_HIGH))):
        factor = net_online_factor(res)
        per_link = net_online_factors(res)
        bound = Link(channel_fidelity=F).errors.capacity()
        want = expected_net_factor("fec", link=Link(channel_fidelity=F))
        same = bool(np.array_equal(res.outputs, res_cl.outputs))
        code = res.link_report.code
        out(
            f"- F = {F}: {code!r}; net online factor {factor:.4f} (links {per_link.min():.4f} .. "
            f"{per_link.max():.4f}; expected {want.online:.4f}) <= C_E(F_eff) = {bound:.4f}; "
            f"online qubits / link {res.ledger.online_qubits():,}, ack bits "
            f"{res.ledger.online_bits():,}; undetected-error bound "
            f"{res.link_report.undetected_bound:.1e}; outputs exact: {same}"
        )
        ok = factor >= TARGET_FACTOR[F] and factor <= bound and same
        rows.append(
            (
                f"fec net online factor, F={F} (bound {bound:.3f})",
                f"{factor:.4f}",
                f">= {TARGET_FACTOR[F]:g}",
                ok,
            )
        )
    noisy = ring_allreduce(
        grads, transport="superdense", bits=RING_BITS, channel_fidelity=F_MAIN, seed=1
    )
    corrupted = float(np.mean(noisy.outputs != res_cl.outputs))
    out(
        f"- unprotected, F = {F_MAIN}: {corrupted:.2%} of the entries differ from the noiseless "
        f"ring (symbol error 1 - F_eff = {Link(channel_fidelity=F_MAIN).errors.error_rate:.4f}); "
        f"net factor "
        f"{net_online_factor(noisy):.4f} but wrong data"
    )
    t_dist, res_dist = time_it(
        lambda: _fec(grads, F_MAIN, protection=Protection(distill=Distill(1), fec=FEC())), 1
    )
    out(
        f"- distill+fec (1 DEJMPS round), F = {F_MAIN}: {t_dist.text()}; net factor "
        f"{net_online_factor(res_dist):.4f} (bound with the distilled pairs "
        f"{res_dist.link_report.errors.capacity():.4f}); offline qubits / online qubits "
        f"{res_dist.ledger.offline_qubits() / res_dist.ledger.online_qubits():.3f}; offline "
        f"bits {res_dist.ledger.offline_bits():,}; exact: "
        f"{bool(np.array_equal(res_dist.outputs, res_cl.outputs))}"
    )
    out("")
    return rows


def _sweep_section(out):
    Fs = np.linspace(0.25, 1.0, SWEEP_POINTS)
    Fd = np.linspace(0.501, 1.0, SWEEP_POINTS)
    Fn = np.linspace(0.97, 1.0, 200)
    sweeps = {
        "depolarizing_capacities": lambda: [depolarizing_capacities(F) for F in Fs],
        "distill (2 protocols x rounds 0..4)": lambda: [
            distill(F, rounds=r, protocol=p)
            for F in Fd
            for r in range(5)
            for p in ("bbpssw", "dejmps")
        ],
        "distillable_yield (dejmps)": lambda: [distillable_yield(F) for F in Fd],
        "expected_net_factor (4 schemes, 200 F)": lambda: [
            expected_net_factor(s, link=Link(channel_fidelity=F)) for F in Fn for s in SCHEMES
        ],
    }
    out(f"## Noisy links: sweeps for the chapter's figures ({SWEEP_POINTS} fidelities unless said)")
    rows = []
    for name, fn in sweeps.items():
        t, res = time_it(fn, 1)
        out(f"- {name}: {len(res):,} calls in {t.median:.3f} s")
        rows.append(
            (
                f"sweep: {name}",
                f"{t.median:.3f} s",
                f"< {TARGET_SWEEP_SECONDS:g} s",
                t.median < TARGET_SWEEP_SECONDS,
            )
        )
    c = depolarizing_capacities(0.9)
    out(f"- at F = 0.9: {c!r}")
    out("")
    return rows


def _galois_section(out):
    try:
        import galois  # noqa: F401
    except ImportError:
        out("## Noisy links: galois decoder not installed (pip install -e '.[bench]'): not run\n")
        return [("galois decoder vs fast model", "not run", "same outputs and ledger", False)]
    g = np.random.default_rng(3).integers(-(2**14), 2**14, size=(GALOIS_P, GALOIS_D))
    kw = dict(transport="superdense", bits=RING_BITS, channel_fidelity=F_MAIN, seed=5)
    ring_allreduce(g[:, :64], protection=Protection(fec=FEC(decoder="galois")), **kw)  # JIT warm-up
    t_model, model = time_it(lambda: ring_allreduce(g, protection="fec", **kw), 1)
    t_real, real = time_it(
        lambda: ring_allreduce(g, protection=Protection(fec=FEC(decoder="galois")), **kw), 1
    )
    same_out = bool(np.array_equal(model.outputs, real.outputs))
    same_led = all(
        np.array_equal(model.ledger.per_link(c), real.ledger.per_link(c))
        for c in ("online_bits", "online_qubits", "ebits", "offline_qubits", "offline_bits")
    )
    exact = bool(np.array_equal(real.outputs, ring_allreduce(g, bits=RING_BITS).outputs))
    rep = real.link_report
    out(
        f"## Noisy links: galois Reed–Solomon decoder vs the fast model, P = {GALOIS_P}, "
        f"d = {GALOIS_D}, F = {F_MAIN}"
    )
    out(
        f"- fast model {t_model.median:.3f} s, galois {t_real.median:.1f} s "
        f"(ratio {t_real.median / t_model.median:,.0f}); {rep.transmissions:,} block "
        f"transmissions, {rep.rejected:,} rejected and retransmitted"
    )
    out(
        f"- same outputs: {same_out}; same ledger: {same_led}; galois outputs equal the noiseless "
        f"ring: {exact}"
    )
    out("")
    return [
        (
            "galois decoder vs fast model (outputs, ledger)",
            f"{same_out and same_led}",
            "identical",
            same_out and same_led and exact,
        )
    ]


# ----------------------------------------------------------------------------------------------
# SeQUeNCe
# ----------------------------------------------------------------------------------------------

_SQ = 2**-0.5
_BELL = {
    "Φ+": np.array([_SQ, 0, 0, _SQ]),
    "Ψ+": np.array([0, _SQ, _SQ, 0]),
    "Φ−": np.array([_SQ, 0, 0, -_SQ]),
    "Ψ−": np.array([0, _SQ, -_SQ, 0]),
}
_ORDER = ("Φ+", "Ψ+", "Φ−", "Ψ−")  # qring_edu's frame-code order (I, X, Z, Y)
#: SeQUeNCe's Bell-diagonal order is (Φ+, Φ−, Ψ+, Ψ−).
_TO_SEQ = [0, 2, 1, 3]


def _bell_diagonal(coeffs):
    return sum(c * np.outer(_BELL[n], _BELL[n]) for c, n in zip(coeffs, _ORDER))


def _bell_coeffs(rho):
    return np.array([float(np.real(_BELL[n] @ rho @ _BELL[n])) for n in _ORDER])


def _reduce(rho, keys, keep):
    """Partial trace of a SeQUeNCe density state (keys[0] the most significant qubit)."""
    n = len(keys)
    t = np.asarray(rho).reshape([2] * (2 * n))
    order = [keys.index(k) for k in keep]
    rest = [i for i in range(n) if i not in order]
    t = np.transpose(t, order + rest + [n + i for i in order] + [n + i for i in rest])
    m = len(keep)
    return np.einsum("ajbj->ab", t.reshape(2**m, 2 ** (n - m), 2**m, 2 ** (n - m)))


def _sequence_setup(formalism, seed):
    from sequence.components.memory import Memory
    from sequence.components.optical_channel import ClassicalChannel
    from sequence.kernel.timeline import Timeline
    from sequence.topology.node import Node

    class _ResourceManager:
        def update(self, protocol, memory, state):
            pass

    class _Node(Node):
        def __init__(self, name, tl):
            super().__init__(name, tl)
            self.resource_manager = _ResourceManager()
            self.gate_fid = self.meas_fid = 1.0  # perfect local operations, as in qring_edu

        def receive_message(self, src, msg):
            for p in self.protocols:
                if p.name == msg.receiver:
                    p.received_message(src, msg)

    tl = Timeline(formalism=formalism)
    tl.show_progress = False
    a1, a2 = _Node("a1", tl), _Node("a2", tl)
    a1.set_seed(2 * seed)
    a2.set_seed(2 * seed + 1)
    for src, dst, name in ((a1, a2, "cc0"), (a2, a1, "cc1")):
        cc = ClassicalChannel(name, tl, 0, 1e5)
        cc.delay = 10**9
        cc.set_ends(src, dst.name)
    mems = [
        Memory(n, tl, fidelity=1.0, frequency=0, efficiency=1, coherence_time=-1, wavelength=500)
        for n in ("kept1", "kept2", "meas1", "meas2")
    ]
    tl.init()
    return tl, a1, a2, mems


def _link(mems, a1, a2, fidelity):
    k1, k2, m1, m2 = mems
    k1.entangled_memory = {"node_id": "a2", "memo_id": "kept2"}
    k2.entangled_memory = {"node_id": "a1", "memo_id": "kept1"}
    m1.entangled_memory = {"node_id": "a2", "memo_id": "meas2"}
    m2.entangled_memory = {"node_id": "a1", "memo_id": "meas1"}
    for m in mems:
        m.fidelity = fidelity


def _sequence_circuit_round(coeffs, protocol, trials, seed0):
    """SeQUeNCe density-matrix runs of one round: success frequency and the kept pair's
    Bell coefficients averaged over successes (exact per outcome)."""
    from sequence.components.circuit import Circuit
    from sequence.constants import DENSITY_MATRIX_FORMALISM
    from sequence.entanglement_management.purification import BBPSSWCircuit

    alice, bob = Circuit(1), Circuit(1)
    alice.h(0), alice.s(0), alice.h(0)  # H S H = Rx(π/2) up to a phase
    bob.h(0), bob.sdg(0), bob.h(0)  # Rx(-π/2)
    succ, acc = 0, np.zeros((4, 4), dtype=complex)
    for trial in range(trials):
        tl, a1, a2, mems = _sequence_setup(DENSITY_MATRIX_FORMALISM, seed0 + trial)
        k1, k2, m1, m2 = mems
        qm = tl.quantum_manager
        rho = _bell_diagonal(coeffs)
        qm.set([k1.qstate_key, k2.qstate_key], rho)
        qm.set([m1.qstate_key, m2.qstate_key], rho)
        if protocol == "dejmps":
            for mem, circ in ((k1, alice), (m1, alice), (k2, bob), (m2, bob)):
                qm.run_circuit(circ, [mem.qstate_key])
        _link(mems, a1, a2, float(coeffs[0]))
        e1, e2 = BBPSSWCircuit(a1, "a1.ep", k1, m1), BBPSSWCircuit(a2, "a2.ep", k2, m2)
        a1.protocols.append(e1)
        a2.protocols.append(e2)
        e1.set_others(e2.name, a2.name, [k2.name, m2.name])
        e2.set_others(e1.name, a1.name, [k1.name, m1.name])
        e1.start()
        e2.start()
        tl.run()
        if e1.meas_res == e2.meas_res:
            succ += 1
            st = qm.get(k1.qstate_key)
            acc += _reduce(st.state, list(st.keys), [k1.qstate_key, k2.qstate_key])
    kept = _bell_coeffs(acc / max(succ, 1))
    if protocol == "bbpssw":  # BBPSSW twirls the kept pair back to Werner form
        kept = np.r_[kept[0], np.full(3, (1 - kept[0]) / 3)]
    return succ / trials, kept


def _sequence_bds_round(coeffs, protocol):
    """SeQUeNCe's Bell-diagonal-state purification formulas (BBPSSW_BDS), one round."""
    from sequence.constants import BELL_DIAGONAL_STATE_FORMALISM
    from sequence.entanglement_management.purification import BBPSSW_BDS

    tl, a1, a2, mems = _sequence_setup(BELL_DIAGONAL_STATE_FORMALISM, 0)
    k1, k2, m1, m2 = mems
    c = np.asarray(coeffs)
    if protocol == "dejmps":
        c = c[[0, 1, 3, 2]]  # the rotations swap Φ− and Ψ− (SeQUeNCe's BDS omits them)
    for a, b in ((k1, k2), (m1, m2)):
        tl.quantum_manager.set([a.qstate_key, b.qstate_key], c[_TO_SEQ])
    _link(mems, a1, a2, float(c[0]))
    ep = BBPSSW_BDS(a1, "a1.ep", k1, m1, is_twirled=protocol == "bbpssw")
    ep.set_others("a2.ep", "a2", [k2.name, m2.name])
    p, bds = ep.purification_res()
    return float(p), np.asarray(bds)[[0, 2, 1, 3]]


def _sequence_section(out):
    try:
        import sequence  # noqa: F401
    except ImportError:
        out("## Noisy links: SeQUeNCe not installed (pip install -e '.[bench]'): not run\n")
        return [("SeQUeNCe BBPSSW/DEJMPS vs qring_edu.distill", "not run", "agree", False)]
    from qring_edu.distillation import _round  # one recurrence round, the formula under test

    out(
        f"## Noisy links: distillation against SeQUeNCe (density-matrix BBPSSWCircuit, "
        f"{SEQ_TRIALS} runs per round; BBPSSW_BDS formulas)"
    )
    rng = np.random.default_rng(17)
    starts = {
        "Werner 0.75": np.array(depolarizing(0.75).probabilities),
        "Werner 0.9": np.array(depolarizing(0.9).probabilities),
        "Bell-diagonal (0.8, 0.1, 0.06, 0.04)": np.array([0.8, 0.1, 0.06, 0.04]),
        "random Bell-diagonal": np.r_[0.7, 0.3 * rng.dirichlet(np.ones(3))],
    }
    worst_state = worst_bds = worst_z = 0.0
    t0 = time.perf_counter()
    case = 0
    for protocol in ("bbpssw", "dejmps"):
        for name, start in starts.items():
            if protocol == "bbpssw" and not np.allclose(start[1:], start[1]):
                continue  # BBPSSW takes Werner pairs
            case += 1
            ours = start.copy()
            line = []
            for r in range(3):
                p_ours, nxt = _round(ours, protocol)
                p_seq, kept_seq = _sequence_circuit_round(
                    ours, protocol, SEQ_TRIALS, 100_000 * case + 1000 * r
                )
                p_bds, kept_bds = _sequence_bds_round(ours, protocol)
                z = abs(p_seq - p_ours) / np.sqrt(p_ours * (1 - p_ours) / SEQ_TRIALS)
                worst_z = max(worst_z, z)
                worst_state = max(worst_state, float(np.abs(kept_seq - nxt).max()))
                worst_bds = max(worst_bds, abs(p_bds - p_ours), float(np.abs(kept_bds - nxt).max()))
                line.append(
                    f"r{r + 1}: F {nxt[0]:.6f} (SeQUeNCe {kept_seq[0]:.6f}), "
                    f"p {p_ours:.4f} (SeQUeNCe {p_seq:.4f}, z {z:.1f})"
                )
                ours = nxt
            out(f"- {protocol}, {name}: " + "; ".join(line))
    seconds = time.perf_counter() - t0
    out(
        f"- largest difference of the kept pair's Bell coefficients: density-matrix runs "
        f"{worst_state:.1e}, BBPSSW_BDS formulas {worst_bds:.1e}; success frequencies within "
        f"{worst_z:.1f} binomial standard deviations; {seconds:.1f} s"
    )
    out("")
    ok = bool(worst_state < 1e-9 and worst_bds < 1e-12 and worst_z < 5)
    return [
        (
            "SeQUeNCe BBPSSW/DEJMPS vs qring_edu.distill (3 rounds)",
            f"max |Δ| {max(worst_state, worst_bds):.0e}, z {worst_z:.1f}",
            "|Δ| < 1e-9, z < 5",
            ok,
        )
    ]


# ----------------------------------------------------------------------------------------------
# Scale
# ----------------------------------------------------------------------------------------------


def _differing_entries(grads: np.ndarray, outputs: np.ndarray, bits: int) -> int:
    """Entries of ``outputs`` (P, d) that differ from the noiseless ring's result, which is the
    fixed-point modular sum of the rows, decoded (recomputed in column blocks)."""
    P, d = grads.shape
    largest = float(max(np.max(grads), -np.min(grads)))
    codec = fixed_point(P, bits, largest if largest > 0 else 1.0)
    mask = np.uint32(word_mask(bits))
    bad = 0
    for lo in range(0, d, SCALE_BLOCK):
        hi = min(lo + SCALE_BLOCK, d)
        acc = np.zeros(hi - lo, dtype=np.uint32)
        for k in range(P):
            acc += codec.encode(grads[k, lo:hi])
        np.bitwise_and(acc, mask, out=acc)
        want = codec.decode(acc, dtype=outputs.dtype)  # as the ring decodes: float32 for float32
        bad += int(np.count_nonzero(outputs[:, lo:hi] != want))
    return bad


def _scale_section(out):
    P, d = SCALE_P, 2**SCALE_LOG2_D
    need = 4 * P * d + 8 * P * d + GiB  # input + outputs + slack
    avail = mem_available()
    out(
        f"## Noisy links at scale: P = {P}, d = 2^{SCALE_LOG2_D} float32 "
        f"({4 * P * d / GiB:.0f} GiB input), F_pair = F_ch = {F_MAIN}"
    )
    if need > min(SCALE_BUDGET, avail - SCALE_RESERVE):
        out(
            f"- not run: needs about {need / GiB:.1f} GiB, MemAvailable {avail / GiB:.1f} GiB "
            f"(reserve {SCALE_RESERVE / GiB:.0f} GiB, budget {SCALE_BUDGET / GiB:.0f} GiB)\n"
        )
        return [
            (
                f"fec ring at P={P}, d=2^{SCALE_LOG2_D}",
                "not run (memory)",
                "<= 14 GiB, exact",
                False,
            )
        ]
    grads = np.random.default_rng(64).standard_normal((P, d), dtype=np.float32)
    sec, peak, res = traced(
        lambda: ring_allreduce(
            grads,
            transport="superdense",
            bits=RING_BITS,
            channel_fidelity=F_MAIN,
            protection="fec",
            seed=1,
        )
    )
    rss = max_rss()
    t_check = time.perf_counter()
    bad = _differing_entries(grads, res.outputs, RING_BITS)
    t_check = time.perf_counter() - t_check
    factor = net_online_factor(res)
    rep = res.link_report
    footprint = grads.nbytes + peak
    out(
        f"- fec: {sec:.1f} s; traced peak {peak / GiB:.2f} GiB (input {grads.nbytes / GiB:.0f} GiB "
        f"beside it: {footprint / GiB:.2f} GiB); process max RSS {rss / GiB:.2f} GiB"
    )
    out(
        f"- fec: entries differing from the noiseless ring: {bad} of {P * d:,} (checked in "
        f"{t_check:.0f} s); net online factor {factor:.4f}; {rep!r}"
    )
    del res
    gc.collect()
    sec_u, _, noisy = traced(
        lambda: ring_allreduce(
            grads, transport="superdense", bits=RING_BITS, channel_fidelity=F_MAIN, seed=1
        )
    )
    bad_u = _differing_entries(grads, noisy.outputs, RING_BITS)
    out(
        f"- unprotected: {sec_u:.1f} s; {bad_u / (P * d):.2%} of the entries differ from the "
        f"noiseless ring (nothing corrects the errors)"
    )
    del noisy, grads
    gc.collect()
    out("")
    ok = bad == 0 and max(rss, footprint) <= SCALE_BUDGET
    return [
        (
            f"fec ring at P={P}, d=2^{SCALE_LOG2_D} (input 4 GiB)",
            f"{sec:.0f} s, RSS {rss / GiB:.1f} GiB, {bad} wrong entries",
            "<= 14 GiB, 0 wrong",
            ok,
        )
    ]


def run(
    out: Callable[[str], None], repeats: int, *, scale: bool = True, light: bool = True
) -> list[tuple[str, str, str, bool]]:
    """Print the noisy-link sections with ``out(text)``; return the summary rows."""
    repeats = max(1, int(repeats))
    rows = []
    if light:
        rows += _ring_section(out, repeats)
        rows += _sweep_section(out)
        rows += _galois_section(out)
        rows += _sequence_section(out)
    if scale:
        rows += _scale_section(out)
    return rows


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    summary = run(
        print,
        int(args[0]) if args else 3,
        scale="--no-scale" not in sys.argv,
        light="--scale-only" not in sys.argv,
    )
    for row in summary:
        print(row)
    sys.exit(0 if all(ok for *_, ok in summary) else 1)
