"""Stim as a peer for Pauli-frame sampling, for ``bench/run.py``.

    run(out, repeats) -> list of (name, measured, target, ok)
    python bench/bench_stim.py [repeats]

**Task.** Superdense coding of ``SYMBOLS`` = 2^22 random 2-bit symbols over isotropic pairs of
fidelity F = 0.95 (book/03_superdense_ring.ipynb): |Phi+> followed by a Pauli X, Y or Z on Alice's qubit, each
with probability (1 - F)/3; Bob decodes with CNOT(A -> B), H(A) and measures A (z) and B (x).
In Stim this noise is ``DEPOLARIZE1(p)`` with p = 1 - F: Stim's own definition (``stim help
DEPOLARIZE1``, "Pauli Mixture: 1-p: I, p/3: X, p/3: Y, p/3: Z") is exactly this law.

**Stim usages tried** (stim 1.16; its wheel runs the SSE2 build on this AVX2 machine, see
``stim/__init__.py``: AVX2 is disabled upstream). Every variant sends 2^22 symbols per call as a
wide circuit of K pairs x S = 2^22 / K shots; K is chosen per variant from ``WIDTHS`` by a short
sweep in this run (the fastest K is kept and reported). "noise only + XOR" variants sample the
error pattern of a circuit that sends 00 (its noiseless result is all-zero, so Stim's reference
sample can be skipped) and XOR it into the bit-packed symbols afterwards (the XOR is timed);
"in-circuit" variants draw the symbols inside the circuit from two ancillas in |+> (H, then
CX/CZ onto Alice's qubit, measured at the end: deferred measurement of "measure, then classically
controlled X/Z") and return sent and decoded bits together; they do more work (the symbols),
which only makes them slower.

- ``sampler/in-circuit``: ``Circuit.compile_sampler().sample(S, bit_packed=True)``, symbols
  in-circuit;
- ``sampler/feedback``: the same with the ancillas measured mid-circuit and classically
  controlled Paulis (``CX rec[-k] A``, ``CZ rec[-k] A``);
- ``sampler/noise-only``: ``compile_sampler(skip_reference_sample=True)``, bit-packed, XOR;
- ``detector/noise-only``: one ``DETECTOR`` per measurement, ``compile_detector_sampler()``,
  bit-packed, XOR;
- ``dem/noise-only``: the circuit's ``detector_error_model()`` sampled directly
  (``DetectorErrorModel.compile_sampler()``), bit-packed, XOR;
- ``flip/in-circuit``: ``stim.FlipSimulator`` (built once, ``clear()`` per call) running the
  in-circuit circuit; measurement flips bit-packed (shots on the last axis, no transposition);
- ``flip/noise-only``: ``FlipSimulator`` with ``disable_stabilizer_randomization=True`` on the
  noise-only circuit, ``get_measurement_flips(bit_packed=True)``, XOR;
- ``flip/frame``: ``FlipSimulator`` applying only ``DEPOLARIZE1`` to K qubits and reading the
  Pauli frame itself with ``to_numpy(bit_packed=True, output_xs=True, output_zs=True)``: the X
  part flips x, the Z part flips z (what Bob's CNOT, H do to a Pauli on A); XOR;
- ``flip/frame-pc1``: the same with the channel written ``PAULI_CHANNEL_1(p/3, p/3, p/3)``
  (the same law by Stim's definitions; Stim samples it faster than ``DEPOLARIZE1`` here);
- ``flip/frame-xyz``: the same with ``X_ERROR(q)``, ``Y_ERROR(q)``, ``Z_ERROR(q)`` in sequence,
  q (1 - q) = p/3: three independent Pauli channels compose to the depolarizing one (each of
  X, Y, Z results from exactly one or exactly two of the three marks, probability
  q (1 - q)^2 + q^2 (1 - q) = q (1 - q)).

The FlipSimulator variants return the stream in measurement-major order (pair, then shot); the
sampler variants in shot-major order. Both are valid layouts of a stream of i.i.d. symbols; the
timings do not include a transposition to our order (generous to Stim). Not used:
``stim.PauliString.random`` draws uniform Paulis (the F = 1/4 channel only) and
``stim.TableauSimulator`` simulates one shot at a time.

**Ours**: ``qring_edu.superdense_send`` on unpacked bits (one uint8 per bit: 8 MiB in and 8 MiB
out per call, a pass to check the input, one to copy it and one XOR per erring symbol), timed
against every Stim usage. It draws the message's noise in one vectorised call
(``qring_edu.noise.draw_noise``: how many symbols err, which, and which Pauli). Every Stim usage
reads and writes bit-packed data, so this row also charges ours for moving eight times the bytes
(the library has no bit-packed API).

**Reported**: symbols/s of every variant (min / median / max) and ours / it (median over
max(3 x repeats, 15) alternating pairs ours, it, ours, it after one warm-up each: calls take
milliseconds; every call sends 2^22 symbols, the input streams are drawn before the timer
starts); the error statistics pooled over every call of
each code (warm-ups included): SER and the frequencies of X (only x flipped), Z (only z) and Y
(both), each against the model (1 - F and (1 - F)/3, binomial s.d.) and ours against the best
Stim variant (two-sample s.d.); the 1-minute load average before and after. Target: ours >= 2x
the best Stim variant's symbols/s, every frequency within 4 s.d.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for _p in (str(ROOT), str(Path(__file__).resolve().parent)):
    if _p not in sys.path:  # run from a checkout without installing; `timing` for the timers
        sys.path.insert(0, _p)

from timing import Timing, time_pair  # noqa: E402

from qring_edu import superdense_send  # noqa: E402
from qring_edu.noise import Link  # noqa: E402

F = 0.95
SYMBOLS = 2**22
WIDTHS = (64, 1024, 16384)  # pairs per circuit tried for each Stim variant
SWEEP_CALLS = 3  # calls per (variant, K) in the width sweep (median kept)
SIGMAS = 4.0

Row = tuple[str, str, str, bool | None]
PATTERNS = ("X", "Z", "Y")  # x flipped only, z flipped only, both
_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


# ------------------------------------------------------------------------------------------------
# error-pattern counts: [I, X, Z, Y]


def _popcount(a: np.ndarray) -> int:
    return int(_POPCOUNT[a].sum())


def counts_interleaved(err: np.ndarray, n_symbols: int) -> np.ndarray:
    """Counts [I, X, Z, Y] of bit-packed errors (little-endian bits) with x at even and z at odd
    bit positions of every byte (a shot-major record of pairs measured as B (x), A (z))."""
    x = err & 0x55
    z = (err >> 1) & 0x55
    n_x, n_z, n_y = _popcount(x & ~z), _popcount(z & ~x), _popcount(x & z)
    return np.array([n_symbols - n_x - n_z - n_y, n_x, n_z, n_y], dtype=np.int64)


def counts_rows(x_err: np.ndarray, z_err: np.ndarray, n_symbols: int) -> np.ndarray:
    """Counts [I, X, Z, Y] from bit-packed x-error and z-error arrays of the same layout."""
    n_x, n_z, n_y = _popcount(x_err & ~z_err), _popcount(z_err & ~x_err), _popcount(x_err & z_err)
    return np.array([n_symbols - n_x - n_z - n_y, n_x, n_z, n_y], dtype=np.int64)


def counts_bits(sent: np.ndarray, received: np.ndarray) -> np.ndarray:
    """Counts [I, X, Z, Y] of an unpacked stream (x = bits[2j], z = bits[2j+1])."""
    d = sent ^ received
    return np.bincount(d[0::2] + 2 * d[1::2], minlength=4).astype(np.int64)


# ------------------------------------------------------------------------------------------------
# Stim circuits (qubits of pair j: A = 2j, B = 2j + 1; ancillas after the pairs)


def _pairs(a: list[int], b: list[int]) -> list[int]:
    return [q for u, v in zip(a, b) for q in (u, v)]


def noise_only_circuit(k: int, p: float):
    """K pairs sending 00: |Phi+>, DEPOLARIZE1(p) on A, Bob's CNOT, H; measures B (x), A (z)."""
    import stim

    c = stim.Circuit()
    a, b = list(range(0, 2 * k, 2)), list(range(1, 2 * k, 2))
    c.append("H", a)
    c.append("CX", _pairs(a, b))
    c.append("DEPOLARIZE1", a, p)
    c.append("CX", _pairs(a, b))
    c.append("H", a)
    c.append("M", _pairs(b, a))
    return c


def in_circuit_circuit(k: int, p: float, *, feedback: bool = False):
    """K pairs with random symbols drawn in-circuit: ancillas xs_j, zs_j in |+> apply X, Z to A
    (CX/CZ, or measured first and then classically controlled); the record is sent x, z of every
    pair, then decoded x, z of every pair (2K bits each)."""
    import stim

    c = stim.Circuit()
    a, b = list(range(0, 2 * k, 2)), list(range(1, 2 * k, 2))
    xs, zs = list(range(2 * k, 3 * k)), list(range(3 * k, 4 * k))
    c.append("H", a)
    c.append("CX", _pairs(a, b))
    c.append("DEPOLARIZE1", a, p)
    c.append("H", xs + zs)
    if feedback:
        c.append("M", _pairs(xs, zs))
        for j in range(k):
            c.append("CX", [stim.target_rec(-2 * k + 2 * j), a[j]])
            c.append("CZ", [stim.target_rec(-2 * k + 2 * j + 1), a[j]])
    else:
        c.append("CX", _pairs(xs, a))
        c.append("CZ", _pairs(zs, a))
        c.append("M", _pairs(xs, zs))
    c.append("CX", _pairs(a, b))
    c.append("H", a)
    c.append("M", _pairs(b, a))
    return c


class _Inputs:
    """The same random symbol streams in the layouts each code takes (drawn once, untimed)."""

    def __init__(self, seed: int, streams: int = 2) -> None:
        rng = np.random.default_rng(seed)
        self.bits = [rng.integers(0, 2, 2 * SYMBOLS, dtype=np.uint8) for _ in range(streams)]
        self._cache: dict = {}

    def packed(self, i: int, k: int, layout: str) -> np.ndarray:
        """Stream i bit-packed: "shots" = (S, 2K/8) rows of one shot's 2K bits (x, z per pair);
        "measurements" = (2K, S/8) rows of one measurement over all shots."""
        key = (i % len(self.bits), k, layout)
        if key not in self._cache:
            m = self.bits[key[0]].reshape(SYMBOLS // k, 2 * k)
            if layout == "measurements":
                m = np.ascontiguousarray(m.T)
            self._cache[key] = np.packbits(m, axis=1, bitorder="little")
        return self._cache[key]


class _Variant:
    """One Stim usage at width K: ``call(i)`` sends 2^22 symbols, returns (seconds, counts)."""

    def __init__(self, name: str, k: int, inputs: _Inputs, seed: int) -> None:
        self.name, self.k, self.inputs = name, k, inputs
        self.shots = SYMBOLS // k
        self.counts = np.zeros(4, dtype=np.int64)
        self._setup(seed)

    def _setup(self, seed: int) -> None:
        import stim

        k, p, name = self.k, 1.0 - F, self.name
        # All-zero is a noiseless outcome of every circuit here (symbol 00 decodes to 00), so
        # Stim's reference sample (a tableau simulation, 47 s at K = 16384) can be skipped.
        if name == "sampler/in-circuit":
            self.sampler = in_circuit_circuit(k, p).compile_sampler(
                skip_reference_sample=True, seed=seed
            )
        elif name == "sampler/feedback":
            self.sampler = in_circuit_circuit(k, p, feedback=True).compile_sampler(
                skip_reference_sample=True, seed=seed
            )
        elif name == "sampler/noise-only":
            self.sampler = noise_only_circuit(k, p).compile_sampler(
                skip_reference_sample=True, seed=seed
            )
        elif name in ("detector/noise-only", "dem/noise-only"):
            c = noise_only_circuit(k, p)
            for j in range(2 * k):
                c.append("DETECTOR", [stim.target_rec(-2 * k + j)])
            if name == "detector/noise-only":
                self.sampler = c.compile_detector_sampler(seed=seed)
            else:
                self.sampler = c.detector_error_model().compile_sampler(seed=seed)
        elif name == "flip/in-circuit":
            self.circuit = in_circuit_circuit(k, p)
            self.sim = stim.FlipSimulator(batch_size=self.shots, seed=seed)
        elif name == "flip/noise-only":
            self.circuit = noise_only_circuit(k, p)
            self.sim = stim.FlipSimulator(
                batch_size=self.shots, seed=seed, disable_stabilizer_randomization=True
            )
        elif name.startswith("flip/frame"):
            self.circuit = stim.Circuit()
            qubits = list(range(k))
            if name == "flip/frame":
                self.circuit.append("DEPOLARIZE1", qubits, p)
            elif name == "flip/frame-pc1":
                self.circuit.append("PAULI_CHANNEL_1", qubits, [p / 3, p / 3, p / 3])
            else:  # flip/frame-xyz: independent X, Y, Z errors of rate q, q (1 - q) = p / 3
                q = (1.0 - np.sqrt(1.0 - 4.0 * p / 3.0)) / 2.0
                for gate in ("X_ERROR", "Y_ERROR", "Z_ERROR"):
                    self.circuit.append(gate, qubits, q)
            self.sim = stim.FlipSimulator(
                batch_size=self.shots,
                num_qubits=k,
                seed=seed,
                disable_stabilizer_randomization=True,
            )
        else:
            raise ValueError(f"unknown Stim variant {name!r}")

    def call(self, i: int) -> float:
        k, s, n, name = self.k, self.shots, SYMBOLS, self.name
        if name in ("sampler/in-circuit", "sampler/feedback"):
            t0 = time.perf_counter()
            rec = self.sampler.sample(s, bit_packed=True)  # (S, 4K/8): sent, then decoded
            elapsed = time.perf_counter() - t0
            half = 2 * k // 8
            c = counts_interleaved(rec[:, :half] ^ rec[:, half:], n)
        elif name in ("sampler/noise-only", "detector/noise-only", "dem/noise-only"):
            sent = self.inputs.packed(i, k, "shots")
            t0 = time.perf_counter()
            if name == "dem/noise-only":
                flips = self.sampler.sample(s, bit_packed=True)[0]
            else:
                flips = self.sampler.sample(s, bit_packed=True)
            decoded = flips ^ sent
            elapsed = time.perf_counter() - t0
            c = counts_interleaved(decoded ^ sent, n)
        elif name == "flip/in-circuit":
            t0 = time.perf_counter()
            self.sim.clear()
            self.sim.do(self.circuit)
            rec = self.sim.get_measurement_flips(bit_packed=True)  # (4K, S/8)
            elapsed = time.perf_counter() - t0
            err = rec[: 2 * k] ^ rec[2 * k :]
            c = counts_rows(err[0::2], err[1::2], n)
        elif name == "flip/noise-only":
            sent = self.inputs.packed(i, k, "measurements")
            t0 = time.perf_counter()
            self.sim.clear()
            self.sim.do(self.circuit)
            decoded = self.sim.get_measurement_flips(bit_packed=True) ^ sent
            elapsed = time.perf_counter() - t0
            err = decoded ^ sent
            c = counts_rows(err[0::2], err[1::2], n)
        else:  # flip/frame*
            sent = self.inputs.packed(i, k, "measurements")
            t0 = time.perf_counter()
            self.sim.clear()
            self.sim.do(self.circuit)
            xs, zs = self.sim.to_numpy(bit_packed=True, output_xs=True, output_zs=True)[:2]
            dec_x, dec_z = sent[0::2] ^ xs, sent[1::2] ^ zs
            elapsed = time.perf_counter() - t0
            c = counts_rows(dec_x ^ sent[0::2], dec_z ^ sent[1::2], n)
        self.counts += c
        return elapsed


STIM_VARIANTS = (
    "sampler/in-circuit",
    "sampler/feedback",
    "sampler/noise-only",
    "detector/noise-only",
    "dem/noise-only",
    "flip/in-circuit",
    "flip/noise-only",
    "flip/frame",
    "flip/frame-pc1",
    "flip/frame-xyz",
)
FEEDBACK_MAX_K = 1024  # the feedback circuit has 2K classically controlled gates


# ------------------------------------------------------------------------------------------------
# statistics


class _Stats:
    """Pooled counts [I, X, Z, Y] of one code."""

    def __init__(self, counts: np.ndarray) -> None:
        self.counts = np.asarray(counts, dtype=np.int64)
        self.n = int(self.counts.sum())

    def freq(self, what: str) -> float:
        if what == "SER":
            return float(self.counts[1:].sum()) / self.n
        return float(self.counts[1 + PATTERNS.index(what)]) / self.n

    @staticmethod
    def model(what: str) -> float:
        return (1.0 - F) if what == "SER" else (1.0 - F) / 3.0

    def z_model(self, what: str) -> float:
        q = self.model(what)
        return (self.freq(what) - q) / np.sqrt(q * (1 - q) / self.n)

    def z_two(self, other: _Stats, what: str) -> float:
        q = self.model(what)
        return (self.freq(what) - other.freq(what)) / np.sqrt(
            q * (1 - q) * (1 / self.n + 1 / other.n)
        )

    def text(self) -> str:
        worst = max(abs(self.z_model(w)) for w in ("SER",) + PATTERNS)
        return (
            f"SER {self.freq('SER'):.5f}, X / Z / Y "
            + " / ".join(f"{self.freq(w):.5f}" for w in PATTERNS)
            + f" over {self.n:,} symbols (largest deviation from the model {worst:.1f} s.d.)"
        )


def _throughput(t: Timing) -> str:
    return f"{SYMBOLS / t.max:.3g} / {SYMBOLS / t.median:.3g} / {SYMBOLS / t.min:.3g} symbols/s"


def _alternate(
    call_a: Callable[[int], float], call_b: Callable[[int], float], repeats: int
) -> tuple[Timing, Timing]:
    """``time_pair`` over calls that time their own core: a, b, a, b after one warm-up each;
    each call's inner seconds replace the outer wall time (tallies stay outside the timer)."""
    inner_a, inner_b, idx = [], [], [0, 0]

    def a():
        idx[0] += 1
        inner_a.append(call_a(idx[0]))

    def b():
        idx[1] += 1
        inner_b.append(call_b(idx[1]))

    time_pair(a, b, repeats)
    return Timing(inner_a[1:]), Timing(inner_b[1:])


def _ours_call(sender, inputs: _Inputs, counts: np.ndarray, seed0: int) -> Callable[[int], float]:
    calls = [0]  # every call draws fresh noise (a seed of its own), whichever pair it is in

    def call(i: int) -> float:
        calls[0] += 1
        bits = inputs.bits[i % len(inputs.bits)]
        t0 = time.perf_counter()
        received = sender(bits, link=Link(F), seed=100_000 * seed0 + calls[0])
        elapsed = time.perf_counter() - t0
        np.add(counts, counts_bits(bits, received), out=counts)
        return elapsed

    return call


# ------------------------------------------------------------------------------------------------


def run(out: Callable[[str], None], repeats: int) -> list[Row]:
    """Print the Stim section with ``out(text)`` and return the summary rows."""
    import stim

    # Calls take milliseconds: more pairs than run.py's repeats cost nothing and steady the medians
    repeats = max(3 * int(repeats), 15)
    load_start = os.getloadavg()[0]
    out(f"## Stim: superdense coding of 2^22 random symbols at F = {F}, Stim vs ours")
    out(
        f"- stim {stim.__version__} (its {type(stim.Circuit()).__module__} build), numpy "
        f"{np.__version__}; noise DEPOLARIZE1(p = {1 - F:.2f}) on Alice's qubit = X, Y, Z each "
        f"with probability (1 - F)/3; {SYMBOLS:,} symbols per call = K pairs x 2^22/K shots"
    )

    inputs = _Inputs(seed=1701)
    # Width sweep: the fastest K per variant (median of SWEEP_CALLS calls), untabulated calls.
    chosen: dict[str, _Variant] = {}
    sweep_text = []
    for v_i, name in enumerate(STIM_VARIANTS):
        best = None
        parts = []
        for k in WIDTHS:
            if name == "sampler/feedback" and k > FEEDBACK_MAX_K:
                continue
            var = _Variant(name, k, inputs, seed=1000 + 10 * v_i + WIDTHS.index(k))
            var.call(0)
            med = statistics.median(var.call(j) for j in range(1, SWEEP_CALLS + 1))
            parts.append(f"K={k}: {SYMBOLS / med:.2g}")
            if best is None or med < best[0]:
                best = (med, var)
        chosen[name] = best[1]
        sweep_text.append(f"{name} ({', '.join(parts)})")
    out(f"- width sweep, symbols/s per K (median of {SWEEP_CALLS} calls): " + "; ".join(sweep_text))

    ours_counts = np.zeros(4, dtype=np.int64)
    ours = _ours_call(superdense_send, inputs, ours_counts, 17)
    timings: dict[str, tuple[Timing, Timing]] = {}
    for name, var in chosen.items():
        var.counts[:] = 0  # pool the statistics of the timed variant's calls only
        timings[name] = _alternate(ours, var.call, repeats)

    speed = {name: statistics.median(t_v.seconds) for name, (_, t_v) in timings.items()}
    best_name = min(speed, key=speed.get)
    best = chosen[best_name]
    t_ours_best, t_best = timings[best_name]

    def ratio(t_a: Timing, t_b: Timing) -> float:  # a's symbols/s over b's, per pair
        return statistics.median(y / x for x, y in zip(t_a.seconds, t_b.seconds))

    def spread(t_a: Timing, t_b: Timing) -> str:
        r = [y / x for x, y in zip(t_a.seconds, t_b.seconds)]
        return f"pairs {min(r):.2f} .. {max(r):.2f}"

    all_ours = Timing([s for t_o, _ in timings.values() for s in t_o.seconds])
    ours_stats = _Stats(ours_counts)
    out(
        f"- ours, superdense_send (unpacked uint8 bits): {_throughput(all_ours)} (all "
        f"{len(all_ours.seconds)} timed calls); {ours_stats.text()}"
    )
    ok_model = all(abs(ours_stats.z_model(w)) <= SIGMAS for w in ("SER",) + PATTERNS)
    for name, var in chosen.items():
        t_o, t_v = timings[name]
        st = _Stats(var.counts)
        ok_model &= all(abs(st.z_model(w)) <= SIGMAS for w in ("SER",) + PATTERNS)
        out(
            f"- Stim {name}, K = {var.k}: {_throughput(t_v)}; ours (unpacked) / it "
            f"{ratio(t_o, t_v):.2f}x (median of {repeats} pairs); {st.text()}"
        )
    best_stats = _Stats(best.counts)
    z_two = {w: ours_stats.z_two(best_stats, w) for w in ("SER",) + PATTERNS}
    ok_two = all(abs(z) <= SIGMAS for z in z_two.values())
    r_best = ratio(t_ours_best, t_best)
    out(
        f"- best Stim usage: {best_name} (K = {best.k}); ours (unpacked, superdense_send) / it "
        f"{r_best:.2f}x, {spread(t_ours_best, t_best)}"
    )
    out(
        "- ours vs best Stim, two-sample deviation (s.d.): "
        + ", ".join(f"{w} {z_two[w]:+.1f}" for w in ("SER",) + PATTERNS)
    )
    load_end = os.getloadavg()[0]
    out(
        f"- 1-minute load average of this machine (2 logical CPUs, shared): {load_start:.2f} at "
        f"the start of the section, {load_end:.2f} at its end"
    )
    out("")
    return [
        (
            f"superdense F={F}, 2^22 symbols: ours (superdense_send, unpacked bits) / best Stim "
            "usage, symbols per second",
            f"{r_best:.2f} (vs {best_name}, K = {best.k})",
            "none (reported)",
            None,
        ),
        (
            f"superdense F={F}: SER and X/Z/Y frequencies, ours and every Stim usage vs "
            "model, ours vs best Stim",
            f"largest {max(abs(z) for z in z_two.values()):.1f} s.d. (ours vs Stim)",
            f"within {SIGMAS:g} s.d.",
            ok_model and ok_two,
        ),
    ]


if __name__ == "__main__":
    t_start = time.perf_counter()
    result_rows = run(print, repeats=int(sys.argv[1]) if len(sys.argv) > 1 else 5)
    print("| benchmark | measured | target | status |")
    print("|---|---:|---:|---|")
    for row_name, value, target, ok in result_rows:
        print(f"| {row_name} | {value} | {target} | {'PASS' if ok else 'MISS'} |")
    print(f"\n(total {time.perf_counter() - t_start:.0f} s)")
