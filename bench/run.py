"""Benchmarks of qring_edu (ARCHITECTURE.md): ratios measured in one run, printed and saved.

    python bench/run.py [--repeats N] [--output PATH] [--only SECTION ...]

(a) superdense ring all-reduce vs classical ring on the same data: wall-time ratio;
(b) fast superdense path vs per-symbol Qiskit Aer circuits: symbol-throughput ratio;
(c) peak memory of the superdense all-reduce relative to the input array (tracemalloc), and the
    process's max RSS for context;
(d) accessible_information on random qubit ensembles: slowest call and shortfall vs a reference.

``--only`` runs the named sections alone (a, b, c, d and the modules' names: vga, audit, peers,
stim, alphabeta, ddp, scale, book) and merges them into ``--output``: their ``## `` blocks and
summary rows replace those of the same name, the other sections stay as the last run left them,
and a line under the environment table says what was re-run, when and where.

Absolute times on shared machines are noise; the ratios are what the targets constrain. Every
timing is repeated ``--repeats`` times (after one untimed warm-up call) and reported as
min / median / max; ratios use the medians.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import resource
import statistics
import sys
import time
import tracemalloc
from importlib import metadata
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ modules, also when imported
from timing import Timing, pair_ratio, time_it, time_pair  # noqa: E402,F401  (re-exported)

from qring_edu import (  # noqa: E402
    Link,
    accessible_information,
    ring_allreduce,
    superdense_send,
    superdense_send_qiskit,
)

# Workloads (fixed by the performance targets).
RING_P, RING_D, RING_BITS, RING_F = 8, 2**20, 16, 0.99
SYMBOL_F = 0.9
AER_SYMBOLS = 2_000
FAST_SYMBOLS = 2**22
TARGET_RING_RATIO = 2.0  # superdense / classical wall time, at most
TARGET_THROUGHPUT = 10_000.0  # fast / Aer symbols per second, at least
TARGET_MEMORY = 2.5  # traced peak / input bytes, at most
ACC_ENSEMBLES_PER_SIZE = 3  # random ensembles per size n = 2..8
TARGET_ACC_SECONDS = 1.0  # accessible_information per qubit ensemble (absolute)
TARGET_ACC_GAP = 1e-4  # shortfall against a high-effort reference, bits


# Sections, in running order: the four of this file, then one module bench/bench_<name>.py each.
MODULE_SECTIONS = (
    "vga",
    "audit",
    "vqc",
    "peers",
    "stim",
    "ddp",
    "alphabeta",
    "links",
    "scale",
    "book",
)
SECTIONS = ("a", "b", "c", "d") + MODULE_SECTIONS
RERUN_NOTE = "Re-run alone on "


def _block_key(header: str) -> str:
    """A ``## `` block's name: its first word after the hashes ("## Scale: VGA ..." -> "Scale:",
    "## (a) ring ..." -> "(a)"); consecutive blocks of one section share it."""
    return header.split()[1] if len(header.split()) > 1 else header


def merge_results(previous: str, lines: list[str], note: str) -> str:
    """``previous`` results.md with this run's blocks and summary rows merged in (``--only``).

    Blocks (from one ``## `` line to the next) replace the old blocks of the same name, at the
    place of the first of them; blocks of a new name go before the summary. Summary rows replace
    the rows of the same benchmark name; new names are appended. The lines above the first block
    (title, environment table) stay, with ``note`` after them (replacing an older note)."""

    def split(text_lines):
        head, blocks, summary, cur = [], [], [], None
        for ln in text_lines:
            if ln.startswith("## "):
                cur = summary if ln.strip() == "## Summary" else []
                if cur is not summary:
                    blocks.append(cur)
            (head if cur is None else cur).append(ln)
        return head, blocks, summary

    if not previous.strip():
        return "\n".join(lines) + "\n"
    old_head, old_blocks, old_summary = split(previous.splitlines())
    _, new_blocks, new_summary = split(lines)
    new_keys = {}
    for blk in new_blocks:
        new_keys.setdefault(_block_key(blk[0]), []).append(blk)
    merged, placed = [], set()
    for blk in old_blocks:
        key = _block_key(blk[0])
        if key in new_keys:
            if key not in placed:
                merged += new_keys[key]
                placed.add(key)
        else:
            merged.append(blk)
    merged += [b for key, blks in new_keys.items() if key not in placed for b in blks]

    def row_name(ln: str) -> str | None:
        cells = ln.split(" | ")
        if not ln.startswith("| ") or len(cells) < 4 or set(ln) <= set("|-: "):
            return None
        name = cells[0][2:]
        return None if name == "benchmark" else name

    new_rows = {row_name(ln): ln for ln in new_summary if row_name(ln)}
    summary = []
    for ln in old_summary:
        name = row_name(ln)
        summary.append(new_rows.pop(name) if name in new_rows else ln)
    while summary and not summary[-1].strip():
        summary.pop()
    summary += list(new_rows.values())
    if not old_summary:
        summary = new_summary

    head = [ln for ln in old_head if not ln.startswith(RERUN_NOTE)]
    while head and not head[-1].strip():
        head.pop()
    out = head + ["", note, ""] + [ln for blk in merged for ln in blk] + summary
    return "\n".join(out) + "\n"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def symbol_error_rate(sent: np.ndarray, received: np.ndarray) -> float:
    """Fraction of symbols (bit pairs 2j, 2j+1) in which at least one bit differs."""
    diff = (sent != received).reshape(-1, 2)
    return float(diff.any(axis=1).mean())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per measurement")
    parser.add_argument("--output", type=Path, default=Path(__file__).with_name("results.md"))
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="SECTION",
        choices=SECTIONS,
        help="run only these sections and merge them into --output "
        f"(choices: {', '.join(SECTIONS)})",
    )
    args = parser.parse_args(argv)
    repeats = max(1, args.repeats)
    only = set(args.only or SECTIONS)

    def want(name: str) -> bool:
        return name in only

    lines: list[str] = []

    def out(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    env = [
        ("CPU", f"{cpu_model()} ({_cpu_count()} logical CPUs)"),
        ("Python", platform.python_version()),
        ("numpy", version("numpy")),
        ("qiskit", version("qiskit")),
        ("qiskit-aer", version("qiskit-aer")),
        ("torch", version("torch")),
        ("qunetsim", version("qunetsim")),
        ("stim", version("stim")),
        ("sequence (SeQUeNCe)", version("sequence")),
        ("galois", version("galois")),
        ("qring_edu", version("qring_edu")),
        ("repeats", f"{repeats} timed runs after one warm-up; min / median / max"),
    ]
    out("# qring_edu benchmarks")
    out()
    out("| environment | |")
    out("|---|---|")
    for k, v in env:
        out(f"| {k} | {v} |")
    out()
    rows: list = []

    # ---------------------------------------------------------------------------------------
    # (a) superdense vs classical ring
    rng = np.random.default_rng(20260)
    grads = rng.standard_normal((RING_P, RING_D), dtype=np.float32)
    mib = grads.nbytes / 2**20
    if want("a"):
        load_start = os.getloadavg()[0]
        out(
            f"## (a) ring all-reduce, P = {RING_P}, d = 2^{RING_D.bit_length() - 1} float32 "
            f"({mib:.0f} MiB), {RING_BITS}-bit words"
        )
        # Alternate the two transports so that load from other processes hits both alike; the
        # ratio is the median of the per-pair ratios. Two runs: noisy pairs only (F = 0.99), and
        # a noisy link (channel_fidelity = 0.99, pairs distributed over it: F_eff = 0.9801).
        t_cl, t_sd, res_cl, res_sd = time_pair(
            lambda: ring_allreduce(grads, bits=RING_BITS),
            lambda: ring_allreduce(
                grads, transport="superdense", bits=RING_BITS, pair_fidelity=RING_F, seed=1
            ),
            repeats,
        )
        t_cl2, t_ch, _, res_ch = time_pair(
            lambda: ring_allreduce(grads, bits=RING_BITS),
            lambda: ring_allreduce(
                grads, transport="superdense", bits=RING_BITS, channel_fidelity=RING_F, seed=1
            ),
            repeats,
        )
        load_end = os.getloadavg()[0]
        pair_ratios = [b / a for a, b in zip(t_cl.seconds, t_sd.seconds)]
        ch_ratios = [b / a for a, b in zip(t_cl2.seconds, t_ch.seconds)]
        ratio_a = statistics.median(pair_ratios)
        ratio_ch = statistics.median(ch_ratios)
        corrupted = float(np.mean(res_sd.outputs != res_cl.outputs))
        corrupted_ch = float(np.mean(res_ch.outputs != res_cl.outputs))
        out(f"- classical:              {t_cl.text()}")
        out(f"- superdense F = {RING_F}:    {t_sd.text()}")
        out(
            f"- entries differing from the classical result (noise): {corrupted:.4%}; "
            f"online bits per link {res_cl.ledger.online_bits():,}, "
            f"online qubits per link {res_sd.ledger.online_qubits():,}"
        )
        out(
            f"- wall-time ratio superdense / classical: median of the {repeats} alternating pairs "
            f"{ratio_a:.2f} (pairs {min(pair_ratios):.2f} .. {max(pair_ratios):.2f}; "
            f"min/min {t_sd.min / t_cl.min:.2f})"
        )
        out(f"- classical again:        {t_cl2.text()}")
        out(
            f"- superdense, channel_fidelity = {RING_F} (F_eff = "
            f"{Link(channel_fidelity=RING_F).errors.fidelity:.4f}): {t_ch.text()}; entries differing "
            f"{corrupted_ch:.4%}"
        )
        out(
            f"- wall-time ratio noisy link / classical: median of the {repeats} alternating "
            f"pairs {ratio_ch:.2f} (pairs {min(ch_ratios):.2f} .. {max(ch_ratios):.2f}; "
            f"min/min {t_ch.min / t_cl2.min:.2f})"
        )
        out(
            "- the noise: one vectorised draw per message from its own stream (seed, step, "
            "sender), its bit flips applied with one np.add.at; all on the ring's own thread"
        )
        out(
            f"- 1-minute load average of this machine (2 logical CPUs, shared): "
            f"{load_start:.2f} before, {load_end:.2f} after"
        )
        out()
        del res_cl, res_sd, res_ch

        rows.append(
            (
                "(a) superdense / classical ring wall time",
                f"{ratio_a:.2f} (F = {RING_F})",
                f"<= {TARGET_RING_RATIO:g}",
                ratio_a <= TARGET_RING_RATIO,
            )
        )
        rows.append(
            (
                f"(a) superdense on a noisy link (channel_fidelity={RING_F}) / classical ring "
                "wall time",
                f"{ratio_ch:.2f}",
                f"<= {TARGET_RING_RATIO:g}",
                ratio_ch <= TARGET_RING_RATIO,
            )
        )

    # ---------------------------------------------------------------------------------------
    # (b) fast path vs Aer, same F
    if want("b"):
        out(f"## (b) superdense coding, F = {SYMBOL_F}: fast path vs one Aer circuit per symbol")
        aer_bits = rng.integers(0, 2, 2 * AER_SYMBOLS, dtype=np.uint8)
        fast_bits = rng.integers(0, 2, 2 * FAST_SYMBOLS, dtype=np.uint8)
        t_fast, rx_fast = time_it(
            lambda: superdense_send(fast_bits, link=Link(SYMBOL_F), seed=2), repeats
        )
        t_aer, rx_aer = time_it(
            lambda: superdense_send_qiskit(aer_bits, link=Link(SYMBOL_F), seed=3), repeats
        )
        thr_fast = FAST_SYMBOLS / t_fast.median
        thr_aer = AER_SYMBOLS / t_aer.median
        ratio_b = thr_fast / thr_aer
        ser_fast = symbol_error_rate(fast_bits, rx_fast)
        ser_aer = symbol_error_rate(aer_bits, rx_aer)
        out(
            f"- fast path, {FAST_SYMBOLS:,} symbols: {t_fast.text()}  -> {thr_fast:,.0f} symbols/s, "
            f"symbol error rate {ser_fast:.4f}"
        )
        out(
            f"- Aer, {AER_SYMBOLS:,} symbols:        {t_aer.text()}  -> {thr_aer:,.0f} symbols/s, "
            f"symbol error rate {ser_aer:.4f}"
        )
        out(
            f"- expected symbol error rate 1 - F = {1 - SYMBOL_F:.4f} (Aer binomial s.d. "
            f"{np.sqrt(SYMBOL_F * (1 - SYMBOL_F) / AER_SYMBOLS):.4f})"
        )
        out(f"- throughput ratio fast / Aer (medians): {ratio_b:,.0f}")
        out()
        del fast_bits, rx_fast
        rows.append(
            (
                "(b) fast / Aer symbol throughput",
                f"{ratio_b:,.0f}",
                f">= {TARGET_THROUGHPUT:,.0f}",
                ratio_b >= TARGET_THROUGHPUT,
            )
        )

    # ---------------------------------------------------------------------------------------
    # (c) memory of the superdense all-reduce
    if want("c"):
        out("## (c) memory of the superdense all-reduce of (a)")
        tracemalloc.start()
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        res = ring_allreduce(
            grads, transport="superdense", bits=RING_BITS, pair_fidelity=RING_F, seed=1
        )
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        ratio_c = (peak - base) / grads.nbytes
        maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
        out(
            f"- input {grads.nbytes / 2**20:.1f} MiB; outputs {res.outputs.nbytes / 2**20:.1f} MiB "
            f"(kept in the result, counted in the peak)"
        )
        out(
            f"- traced peak minus baseline: {(peak - base) / 2**20:.1f} MiB = {ratio_c:.2f} x input"
        )
        out(
            f"- process max RSS (interpreter, Qiskit, Aer and all of the above): "
            f"{maxrss / 2**20:.0f} MiB = {maxrss / grads.nbytes:.1f} x input"
        )
        out()
        del res
        rows.append(
            (
                "(c) superdense all-reduce peak memory / input",
                f"{ratio_c:.2f}",
                f"<= {TARGET_MEMORY:g}",
                ratio_c <= TARGET_MEMORY,
            )
        )

    # ---------------------------------------------------------------------------------------
    # (d) accessible information of qubit ensembles: time per call and accuracy
    if want("d"):
        out("## (d) accessible information, random qubit ensembles of 2..8 states")
        acc_rng = np.random.default_rng(7)
        worst_time, worst_gap = 0.0, 0.0
        for n in range(2, 9):
            for _ in range(ACC_ENSEMBLES_PER_SIZE):
                vecs = acc_rng.standard_normal((n, 2)) + 1j * acc_rng.standard_normal((n, 2))
                states = [v / np.linalg.norm(v) for v in vecs]
                probs = acc_rng.dirichlet(np.ones(n))
                t_acc, res_acc = time_it(lambda: accessible_information(probs, states), 1)
                # reference: many more starts and a much tighter stopping rule
                ref = accessible_information(probs, states, starts=60, tol=1e-14, max_iter=20000)
                worst_time = max(worst_time, t_acc.median)
                worst_gap = max(worst_gap, ref - res_acc)
        out(
            f"- {7 * ACC_ENSEMBLES_PER_SIZE} ensembles: slowest call {worst_time:.3f} s; largest "
            f"shortfall against a 60-start reference {worst_gap:.1e} bits"
        )
        out()
        rows.append(
            (
                "(d) accessible information: slowest call (s)",
                f"{worst_time:.3f}",
                f"< {TARGET_ACC_SECONDS:g}",
                worst_time < TARGET_ACC_SECONDS,
            )
        )
        rows.append(
            (
                "(d) accessible information: largest shortfall (bits)",
                f"{worst_gap:.1e}",
                f"<= {TARGET_ACC_GAP:g}",
                worst_gap <= TARGET_ACC_GAP,
            )
        )

    # ---------------------------------------------------------------------------------------
    # (e) protocol benchmarks that live in their own modules (one per protocol); bench/ is the
    # script's folder, hence on sys.path. The heavy sections last: the scale runs allocate
    # ~13 GiB, and the book executes every chapter in fresh kernels.
    for name in MODULE_SECTIONS:
        if want(name):
            rows += importlib.import_module(f"bench_{name}").run(out, repeats)

    # ---------------------------------------------------------------------------------------
    out("## Summary")
    out()
    out("| benchmark | measured | target | status |")
    out("|---|---:|---:|---|")
    for name, value, target, ok in rows:
        status = "-" if ok is None else "PASS" if ok else "MISS"  # None: a model, no target
        out(f"| {name} | {value} | {target} | {status} |")

    if args.only:
        previous = args.output.read_text() if args.output.exists() else ""
        stamp = (
            f"{RERUN_NOTE}{time.strftime('%Y-%m-%d')} with `bench/run.py --only "
            f"{' '.join(args.only)}`: " + "; ".join(f"{k} {v}" for k, v in env) + "."
        )
        text = merge_results(previous, lines, stamp)
    else:
        text = "\n".join(lines) + "\n"
    args.output.write_text(text)
    print(f"\nwrote {args.output}")
    return 0


def _cpu_count() -> int:
    import os

    return os.cpu_count() or 1


if __name__ == "__main__":
    sys.exit(main())
