"""Benchmarks against real peers, for ``bench/run.py``.

    run(out, repeats) -> list of (name, measured, target, ok)
    python bench/bench_peers.py [repeats]

**1. Superdense coding of a stream of random 2-bit symbols at pair fidelity F = 0.95**, with the
library's noise model (qring_edu/superdense.py): each pair is the isotropic state of fidelity F,
i.e. |Phi+> followed by a Pauli X, Y or Z on Alice's half, each with probability (1 - F)/3; the
symbol error rate (SER) is 1 - F. Four implementations:

(a) *per-symbol Aer*: the library's ``superdense_send_qiskit`` (one 2-qubit circuit, one shot per
    symbol, all circuits in one ``AerSimulator.run`` batch), ``AER_SYMBOLS`` symbols per call.
(b) *best Aer usage*: one 4-qubit circuit per run with ``AER_BEST_SHOTS`` shots; each shot draws
    its symbol in-circuit (two ancillas in |+> control X and Z on Alice's qubit; measured at the
    end they give the sent bits, i.e. deferred measurement of "H, measure, if_test"), the pair
    noise is a ``pauli_error`` on Alice's qubit, Bob decodes with CNOT, H. Because all
    measurements are terminal, ``AerSimulator()`` (method "automatic") picks the density-matrix
    method and samples every shot from the final distribution; the decoded symbols are checked
    against the sent ones through the joint (sent, decoded) counts. Variants tried first
    (F = 0.95, this 2-core machine, symbols/s): one circuit with k = 8 pairs and in-circuit
    random symbols via mid-circuit measure + ``if_test`` (stabilizer or automatic): 6.3e4;
    the same with if_test and k = 1: 2.0e4; k = 8 pairs with deferred measurement (stabilizer,
    no shot sampling because of the noise): 8.6e4; k = 1 with the statevector or stabilizer
    method (noise sampled per shot): 0.8e4 - 1.2e4; four fixed-symbol circuits (one per symbol
    value, shots = its count in a given stream, density-matrix sampling, results scattered back
    into the stream): 4.6e5 with ``memory=True``, 8.7e5 from counts; k = 1, 2, 3 pairs with
    deferred measurement and density-matrix sampling: 1.7e6, 1.5e6, 5.7e5. Kept: k = 1 with
    density-matrix sampling (~1.7e6 - 2.0e6 symbols/s), the fastest.
(c) *QuNetSim* (``qunetsim`` 0.1.3.post1, EQSN backend, the default and the only one installed;
    qutip/ProjectQ backends are not installed), used as its documentation and examples show:
    ``Network.get_instance()``, two ``Host`` objects with ``add_connection``, ``start``,
    ``network.add_hosts``, ``Host.send_superdense(receiver, message)`` (which creates an EPR pair,
    encodes, and sends the qubit; the receiver decodes) and ``Host.get_classical`` on Bob's side;
    ``Logger.DISABLED = True``. Noise: ``send_superdense`` has no per-call hook, but QuNetSim's
    quantum connections take a channel model (an object whose ``qubit_func(qubit)`` is applied to
    every qubit in transit; QuNetSim ships ``Fibre`` and ``BinaryErasure`` and its own tests swap
    them in with ``host.quantum_connections[peer].model = ...``). We install a ``_PauliChannel``
    model that applies X, Y or Z with probability (1 - F)/3 each through QuNetSim's qubit gate
    API (``q.X()``, ``q.Y()``, ``q.Z()``) to Alice's half on its way to Bob, i.e. after her
    encoding and before Bob's decoding (the same channel as the library's up to a global phase,
    since Paulis commute up to sign). EPR creation does not pass through the channel (QuNetSim
    creates adjacent pairs directly), so each pair is hit exactly once. Usage kept:
    ``network.delay = 0`` (the default adds a 0.1 s ``sleep`` per packet: ~2.3 symbols/s) and
    ``send_superdense(..., await_ack=True)`` as in QuNetSim's examples, stop-and-wait (the
    next symbol leaves once Bob holds the previous one: QuNetSim acknowledges *before* Bob
    decodes, and overlapping symbols - also with ``await_ack=False``, which is no faster, ~55
    vs ~60 symbols/s - crashed EQSN's worker processes (``KeyError`` in a multiprocessing
    manager's ``incref``) and hung the run); ~50 symbols/s here. Pre-sharing the pairs with
    ``send_epr`` first was slower (~14/s). QuNetSim runs in a child process in its own session
    (JSON lines over a pipe, a timeout per call, its process group killed at the end), so an
    EQSN failure turns into a MISS row instead of a hang; ours is timed in this process,
    alternating with the child's calls.
    *Bit order*: QuNetSim's message ``"ab"`` applies Z if a = 1 and X if b = 1, and decodes
    Alice's qubit (after CNOT, H) into a and Bob's into b; so ``"ab"`` = ``f"{z}{x}"`` in the
    library's notation and the round trip is faithful. The apparent swap of '01' and '10' seen
    earlier is not a decoding bug: ``Host.get_classical`` returns the messages sorted by sequence
    number in *descending* order (newest first). We match messages to symbols by sequence number.
    Checked in every run: at F = 1 the four messages round-trip; at F = 0.95 the channel was
    applied once per symbol and each decoded message is the sent one with exactly its injected
    frame applied (X flips b, Z flips a, Y both; stop-and-wait keeps frames and messages in
    order - without it QuNetSim handles every packet in its own thread, in no fixed order).
(d) *ours*: ``superdense_send`` (one vectorised NumPy noise draw per call), ``FAST_SYMBOLS`` symbols.
    Alone on this machine it sends 2^22 symbols in ~17 ms (~2.2e8 - 2.5e8 symbols/s; ~4.5 ms of
    it is ``check_bit_array`` on the input); inside this benchmark, alternating with the peers
    and with other jobs on the 2 cores, the median was ~1.6e8. Against (b) at ~2e6 symbols/s
    this puts the ratio near the 100x target: 85x - 139x in the runs made while writing this.

Reported: symbols/s of each (min / median / max), the ratio ours / peer (median over the
alternating pairs ours, peer, ours, peer, ... after one warm-up each; symbols per call differ,
so each pair's ratio is ``(n_ours / t_ours) / (n_peer / t_peer)``), and each SER with its
binomial standard deviation sqrt(F (1 - F) / n) pooled over all calls (warm-up included: every
call draws fresh symbols and noise). Targets: ours >= 10,000x per-symbol Aer, >= 100x best Aer,
>= 100x QuNetSim; every SER within 4 s.d. of 1 - F.

**2. Classical ring all-reduce vs torch.distributed gloo**: ``ring_allreduce(grads, bits=16)``
(classical transport) on P = 8 rows of d = 2^20 float32 against ``torch.distributed.all_reduce``
(gloo backend, float32, sum) on the same data, P = 8 processes on this machine (``subprocess``,
MASTER at 127.0.0.1 on a free port, ``init_process_group(timeout=60 s)``, one torch thread each).
mpi4py needs an MPI library, which is not installed; gloo is the issue's named alternative.
The two are not the same computation: ours simulates all P workers' arithmetic in one process
(one core), with b-bit fixed-point words; gloo really moves float32 between P processes (sharing
2 cores). Each gloo sample is one all-reduce, started after a barrier on every rank, timed on
every rank, and the sample is the maximum over ranks; the parent alternates one call of ours
with one gloo sample (the workers wait on stdin in between). Reported: both wall times, the
ratio ours / gloo and the accuracy of both against the float64 sum. "Within a modest factor"
is taken as <= ``TARGET_GLOO_RATIO``.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for _p in (str(ROOT), str(Path(__file__).resolve().parent)):
    if _p not in sys.path:  # run from a checkout without installing; `timing` for the timers
        sys.path.insert(0, _p)

from timing import Timing, pair_ratio, time_pair  # noqa: E402

from qring_edu import ring_allreduce, superdense_send, superdense_send_qiskit  # noqa: E402
from qring_edu.launch import free_port  # noqa: E402
from qring_edu.noise import Link  # noqa: E402

F = 0.95
AER_SYMBOLS = 1_000  # per-symbol Aer: symbols per call
AER_BEST_SHOTS = 2**20  # best Aer usage: shots (= symbols) per call
QUNETSIM_SYMBOLS = 200  # QuNetSim: symbols per call (~50 symbols/s)
QUNETSIM_TIMEOUT_S = 60  # per QuNetSim call (and start-up), in its own process
FAST_SYMBOLS = 2**22  # ours: symbols per call
SER_SIGMAS = 4.0
TARGET_VS_AER = 10_000.0
TARGET_VS_AER_BEST = 100.0
TARGET_VS_QUNETSIM = 100.0

GLOO_P, GLOO_D, GLOO_BITS = 8, 2**20, 16
GLOO_TIMEOUT_S = 60  # init_process_group and every collective
GLOO_WALL_TIMEOUT_S = 120  # per answer from a gloo worker (start-up included)
TARGET_GLOO_RATIO = 2.5  # ours / gloo wall time, at most

Row = tuple[str, str, str, bool]


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _symbols(bits: np.ndarray) -> np.ndarray:
    """Symbol values ``2 x + z`` of a bit stream (``x = bits[2j]``, ``z = bits[2j+1]``)."""
    return (bits[0::2].astype(np.int64) << 1) | bits[1::2]


class _SerTally:
    """Pooled symbol-error count of every call of one implementation."""

    def __init__(self) -> None:
        self.errors = 0
        self.symbols = 0

    def add(self, errors: int, symbols: int) -> None:
        self.errors += int(errors)
        self.symbols += int(symbols)

    @property
    def ser(self) -> float:
        return self.errors / self.symbols

    @property
    def sd(self) -> float:
        """Binomial s.d. of the SER under the model: sqrt(F (1 - F) / n)."""
        return float(np.sqrt(F * (1.0 - F) / self.symbols))

    @property
    def z(self) -> float:
        return (self.ser - (1.0 - F)) / self.sd

    def text(self) -> str:
        return (
            f"SER {self.ser:.4f} +- {self.sd:.4f} over {self.symbols:,} symbols (z = {self.z:+.2f})"
        )


# ------------------------------------------------------------------------------------------------
# (a), (d): the library's two paths


def _bits_send(sender, n_symbols: int, tally: _SerTally, seed0: int):
    """A call that sends ``n_symbols`` fresh random symbols with ``sender`` and tallies errors."""
    calls = [0]

    def call():
        calls[0] += 1
        rng = np.random.default_rng([seed0, calls[0]])
        bits = rng.integers(0, 2, 2 * n_symbols, dtype=np.uint8)
        t0 = time.perf_counter()
        received = sender(bits, link=Link(F), seed=rng)
        elapsed = time.perf_counter() - t0
        tally.add(np.count_nonzero(_symbols(bits) != _symbols(received)), n_symbols)
        return elapsed

    return call


# ------------------------------------------------------------------------------------------------
# (b): best Aer usage


def _aer_best_circuit():
    """Ancillas 0 (x) and 1 (z) in |+>, Alice's qubit 2, Bob's 3; clbits 0..3 receive Bob's
    decoded z, decoded x, sent x, sent z (a count key prints them as "z_s x_s x_r z_r")."""
    from qiskit import QuantumCircuit
    from qiskit_aer.noise import pauli_error

    p = (1.0 - F) / 3.0
    qc = QuantumCircuit(4, 4)
    qc.h(2)
    qc.cx(2, 3)  # |Phi+> on (A, B)
    qc.append(pauli_error([("I", F), ("X", p), ("Y", p), ("Z", p)]), [2])  # isotropic pair
    qc.h([0, 1])
    qc.cx(0, 2)  # X**x, x drawn in-circuit
    qc.cz(1, 2)  # Z**z
    qc.cx(2, 3)
    qc.h(2)  # Bob's Bell measurement
    qc.measure([2, 3, 0, 1], [0, 1, 2, 3])
    return qc


def _aer_best_send(tally: _SerTally, seed0: int):
    from qiskit_aer import AerSimulator

    sim = AerSimulator()
    circuit = _aer_best_circuit()
    calls = [0]
    info: dict = {}

    def call():
        calls[0] += 1
        t0 = time.perf_counter()
        result = sim.run(circuit, shots=AER_BEST_SHOTS, seed_simulator=seed0 + calls[0]).result()
        counts = result.get_counts()
        elapsed = time.perf_counter() - t0
        errors, sent = 0, set()
        for key, c in counts.items():
            z_s, x_s, x_r, z_r = (int(ch) for ch in key)
            sent.add((x_s, z_s))
            errors += c * ((x_s, z_s) != (x_r, z_r))
        tally.add(errors, sum(counts.values()))
        meta = result.results[0].metadata
        info.update(
            method=meta.get("method"), sampling=meta.get("measure_sampling"), symbols_sent=len(sent)
        )
        return elapsed

    return call, info


# ------------------------------------------------------------------------------------------------
# (c): QuNetSim


class _PauliChannel:
    """QuNetSim channel model: X, Y or Z with probability (1 - F)/3 each on every qubit in
    transit; records the frame codes (0 = I, 1 = X, 2 = Z, 3 = Y) in order."""

    def __init__(self, fidelity: float, seed: int) -> None:
        self.p = (1.0 - fidelity) / 3.0
        self.rng = np.random.default_rng(seed)
        self.frames: list[int] = []

    def qubit_func(self, qubit):
        u = self.rng.random()
        if u < self.p:
            qubit.X()
            self.frames.append(1)
        elif u < 2 * self.p:
            qubit.Z()
            self.frames.append(2)
        elif u < 3 * self.p:
            qubit.Y()
            self.frames.append(3)
        else:
            self.frames.append(0)
        return qubit


class _QuNetSim:
    """Alice and Bob in a QuNetSim network (started once; :meth:`stop` at the end)."""

    def __init__(self, seed: int) -> None:
        from qunetsim.components import Host, Network
        from qunetsim.objects import Logger

        Logger.DISABLED = True
        self.network = Network.get_instance()
        self.network.start()
        self.network.delay = 0.0
        self.alice, self.bob = Host("Alice"), Host("Bob")
        self.alice.add_connection("Bob")
        self.bob.add_connection("Alice")
        self.alice.start()
        self.bob.start()
        self.network.add_hosts([self.alice, self.bob])
        self.alice.max_ack_wait = 30  # seconds: a lost ACK must not block the benchmark forever
        self.channel = _PauliChannel(1.0, seed)  # noiseless until a call sets F
        self.alice.quantum_connections["Bob"].model = self.channel
        self.consistent = True  # every decoded message = sent one with its frame, every call

    def send(self, messages: list[str], fidelity: float, wait_s: float = 60.0) -> list[str]:
        """Send ``messages`` ("ab" strings, QuNetSim order: a -> Z, b -> X) by superdense coding;
        return Bob's decoded messages in sending order."""
        self.channel.p = (1.0 - fidelity) / 3.0
        self.channel.frames.clear()
        self.bob.empty_classical()
        self.alice.empty_classical()
        deadline = time.monotonic() + wait_s
        got: list = []
        for k, m in enumerate(messages):
            self.alice.send_superdense("Bob", m, await_ack=True)
            # stop-and-wait: the next symbol leaves once Bob has decoded this one (QuNetSim acks
            # before decoding; overlapping symbols crashed EQSN's worker processes)
            while True:
                got = [
                    x
                    for x in self.bob.get_classical("Alice")
                    if x.content in ("00", "01", "10", "11")
                ]
                if len(got) > k:
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"QuNetSim: {len(got)} of {len(messages)} messages "
                        f"arrived within {wait_s} s"
                    )
                time.sleep(0.0005)
        got.sort(key=lambda m: m.seq_num)  # get_classical lists the newest first
        received = [m.content for m in got]
        # Stop-and-wait: symbol k crossed the channel before Bob held message k and symbol k+1
        # left only then, so frame k belongs to message k. A frame X flips b, Z flips a, Y both:
        # decoded flips (a, b) -> frame code 2 a + b (0 = I, 1 = X, 2 = Z, 3 = Y).
        seen = [2 * (s[0] != r[0]) + (s[1] != r[1]) for s, r in zip(messages, received)]
        self.consistent &= seen == self.channel.frames
        return received

    def stop(self) -> None:
        self.network.stop(True)


def _qunetsim_send(net: _QuNetSim, tally: _SerTally, seed0: int):
    calls = [0]

    def call():
        calls[0] += 1
        rng = np.random.default_rng([seed0, calls[0]])
        xz = rng.integers(0, 2, (QUNETSIM_SYMBOLS, 2))
        messages = [f"{z}{x}" for x, z in xz]  # QuNetSim "ab" = (z, x) in our notation
        t0 = time.perf_counter()
        received = net.send(messages, F)
        elapsed = time.perf_counter() - t0
        tally.add(sum(a != b for a, b in zip(messages, received)), len(messages))
        return elapsed

    return call


def _qunetsim_child_main() -> None:
    """Child process of :class:`_QuNetSimChild`: one network; a JSON line per request."""
    net = _QuNetSim(seed=104)
    check = ["00", "01", "10", "11"]
    print(json.dumps({"roundtrip": net.send(check, 1.0) == check}), flush=True)
    tally = _SerTally()
    call = _qunetsim_send(net, tally, 105)
    for line in sys.stdin:
        if line.strip() != "go":
            break
        before = tally.errors
        t = call()
        print(
            json.dumps(
                {
                    "t": t,
                    "errors": tally.errors - before,
                    "symbols": QUNETSIM_SYMBOLS,
                    "consistent": net.consistent,
                }
            ),
            flush=True,
        )
    net.stop()
    os._exit(0)  # EQSN's worker processes and manager threads must not delay the exit


class _QuNetSimChild:
    """QuNetSim in its own process (own session): EQSN runs worker processes and a
    multiprocessing manager, and a crash there must neither hang nor litter this process.
    :meth:`call` runs one call of ``QUNETSIM_SYMBOLS`` symbols there (timeout
    ``QUNETSIM_TIMEOUT_S``); :meth:`close` stops it and kills its process group."""

    def __init__(self) -> None:
        code = (
            f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); "
            "import bench_peers; bench_peers._qunetsim_child_main()"
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        self.roundtrip = bool(self._read()["roundtrip"])

    def _read(self) -> dict:
        ready, _, _ = select.select([self.proc.stdout], [], [], QUNETSIM_TIMEOUT_S)
        if not ready:
            raise TimeoutError(f"no answer from QuNetSim within {QUNETSIM_TIMEOUT_S} s")
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"QuNetSim process exited (code {self.proc.poll()})")
        return json.loads(line)

    def call(self) -> dict:
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        try:
            self.proc.stdin.write("stop\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # its own session: EQSN's workers too
        except ProcessLookupError:
            pass
        self.proc.wait()


# ------------------------------------------------------------------------------------------------
# 2: torch.distributed gloo

_GLOO_WORKER = r"""
import datetime, json, sys, time
import numpy as np
import torch
import torch.distributed as dist

rank, world, port, path, timeout = (int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]),
                                    sys.argv[4], int(sys.argv[5]))
torch.set_num_threads(1)
dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                        world_size=world, timeout=datetime.timedelta(seconds=timeout))
grads = np.load(path, mmap_mode="r")
mine = torch.from_numpy(np.array(grads[rank]))
buf = mine.clone()
dist.all_reduce(buf)  # warm-up (connections, buffers)
exact = grads.astype(np.float64).sum(axis=0)
err = float(np.max(np.abs(buf.numpy().astype(np.float64) - exact)))
print(json.dumps({"ready": rank, "err": err}), flush=True)
for line in sys.stdin:
    if line.strip() != "go":
        break
    buf.copy_(mine)
    dist.barrier()
    t0 = time.perf_counter()
    dist.all_reduce(buf)
    dt = time.perf_counter() - t0
    print(json.dumps({"t": dt}), flush=True)
dist.destroy_process_group()
"""


class _GlooGroup:
    """``GLOO_P`` worker processes holding one row each of the grads saved at ``path``; each
    :meth:`sample` runs one barrier-synchronised all-reduce and returns the max time over ranks."""

    def __init__(self, path: str) -> None:
        port = free_port()
        env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        self.procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    _GLOO_WORKER,
                    str(r),
                    str(GLOO_P),
                    str(port),
                    path,
                    str(GLOO_TIMEOUT_S),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env=env,
            )
            for r in range(GLOO_P)
        ]
        try:
            ready = [self._read(p) for p in self.procs]
        except Exception:
            self.close()
            raise
        self.max_err = max(r["err"] for r in ready)

    def _read(self, proc: subprocess.Popen) -> dict:
        ready, _, _ = select.select([proc.stdout], [], [], GLOO_WALL_TIMEOUT_S)
        if not ready:
            raise TimeoutError(f"no answer from a gloo worker within {GLOO_WALL_TIMEOUT_S} s")
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"gloo worker exited with code {proc.wait(timeout=10)}")
        return json.loads(line)

    def sample(self) -> float:
        for p in self.procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        return max(self._read(p)["t"] for p in self.procs)

    def close(self) -> None:
        for p in self.procs:
            try:
                p.stdin.write("stop\n")
                p.stdin.close()
            except OSError:
                pass
        deadline = time.monotonic() + 30
        for p in self.procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _gloo_section(out: Callable[[str], None], repeats: int) -> Row:
    rng = np.random.default_rng(20268)
    grads = rng.standard_normal((GLOO_P, GLOO_D), dtype=np.float32)
    exact = grads.astype(np.float64).sum(axis=0)
    out(
        f"### classical ring all-reduce vs torch.distributed gloo, P = {GLOO_P}, "
        f"d = 2^{GLOO_D.bit_length() - 1} float32 ({grads.nbytes / 2**20:.0f} MiB)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "grads.npy")
        np.save(path, grads)
        t0 = time.perf_counter()
        group = _GlooGroup(path)
        startup = time.perf_counter() - t0
        try:
            ours_calls: list = []

            def ours() -> float:
                t = time.perf_counter()
                ours_calls.append(ring_allreduce(grads, bits=GLOO_BITS))
                del ours_calls[:-1]
                return time.perf_counter() - t

            ta, tb = [], []
            ours(), group.sample()  # warm-up of both
            for _ in range(repeats):
                ta.append(ours())
                tb.append(group.sample())
        finally:
            group.close()
    t_ours, t_gloo = Timing(ta), Timing(tb)
    ratio = pair_ratio(t_gloo, t_ours)
    err_ours = float(np.max(np.abs(ours_calls[-1].outputs[0].astype(np.float64) - exact)))
    out(
        f"- ours, ring_allreduce(grads, bits={GLOO_BITS}), classical transport, all {GLOO_P} "
        f"workers simulated in this process (one core, {GLOO_BITS}-bit fixed point): "
        f"{t_ours.text()}; max |error| vs the float64 sum {err_ours:.2e}"
    )
    out(
        f"- torch.distributed.all_reduce, gloo, {GLOO_P} processes on 127.0.0.1 (float32, "
        f"sharing {os.cpu_count()} cores; max over ranks of each barrier-synchronised call): "
        f"{t_gloo.text()}; max |error| {group.max_err:.2e}; worker start-up {startup:.1f} s "
        f"(not timed)"
    )
    out(
        f"- wall-time ratio ours / gloo: median of the {repeats} alternating pairs {ratio:.2f} "
        f"(min/min {t_ours.min / t_gloo.min:.2f}); target <= {TARGET_GLOO_RATIO:g} "
        f'("a modest factor")'
    )
    out(
        f"- per core: gloo's {GLOO_P} processes shared {os.cpu_count()} cores, ours used one; "
        f"ours / gloo per core (median ratio / {os.cpu_count()}): "
        f"{ratio / (os.cpu_count() or 1):.2f} (context, not the target)"
    )
    out(
        "- not the same computation: ours does every worker's arithmetic in one process with "
        f"{GLOO_BITS}-bit words and moves nothing; gloo moves float32 between real processes. "
        "mpi4py's Allreduce needs an MPI library, which is not installed here; torch gloo is "
        "the issue's named alternative."
    )
    out("")
    return (
        f"classical ring_allreduce / torch gloo all_reduce wall time "
        f"(P={GLOO_P}, d=2^{GLOO_D.bit_length() - 1})",
        f"{ratio:.2f}",
        f"<= {TARGET_GLOO_RATIO:g}",
        ratio <= TARGET_GLOO_RATIO,
    )


# ------------------------------------------------------------------------------------------------


def _throughput(n: int, t: Timing) -> str:
    lo, med, hi = n / t.max, n / t.median, n / t.min
    return f"{lo:,.0f} / {med:,.0f} / {hi:,.0f} symbols/s"


def _pair_throughput_ratio(t_ours: Timing, n_ours: int, t_peer: Timing, n_peer: int) -> float:
    # (n_ours / a) / (n_peer / b) = (n_ours / n_peer) * (b / a), pair by pair
    return n_ours / n_peer * pair_ratio(t_ours, t_peer)


def _pair(
    call_ours: Callable[[], float], call_peer: Callable[[], float], repeats: int
) -> tuple[Timing, Timing]:
    """Alternate ours, peer, ours, peer after one warm-up each (``time_pair``); each call
    returns the seconds of its own core (sending and decoding, without drawing the input
    symbols or tallying errors), which replace the outer wall times."""
    inner_a, inner_b = [], []
    time_pair(lambda: inner_a.append(call_ours()), lambda: inner_b.append(call_peer()), repeats)
    return Timing(inner_a[1:]), Timing(inner_b[1:])


def run(out: Callable[[str], None], repeats: int) -> list[Row]:
    """Print the peers section with ``out(text)`` and return the summary rows."""
    repeats = max(1, int(repeats))
    rows: list[Row] = []
    out("## Peers: superdense coding vs Qiskit Aer and QuNetSim; classical ring vs gloo")
    out(
        f"- peers: qiskit-aer {_version('qiskit-aer')}, qunetsim {_version('qunetsim')} "
        f"(EQSN {_version('EQSN')} backend), torch {_version('torch')} (gloo)"
    )
    out("")
    out(
        f"### superdense coding of random 2-bit symbols, pair fidelity F = {F} "
        f"(expected SER 1 - F = {1 - F:.2f})"
    )

    tallies = {k: _SerTally() for k in ("ours", "aer", "aer_best", "qunetsim")}
    ours = _bits_send(superdense_send, FAST_SYMBOLS, tallies["ours"], 101)
    aer = _bits_send(superdense_send_qiskit, AER_SYMBOLS, tallies["aer"], 102)
    aer_best, best_info = _aer_best_send(tallies["aer_best"], 103)

    results = {}
    t_o, t_p = _pair(ours, aer, repeats)
    results["aer"] = (t_o, t_p, AER_SYMBOLS)
    t_o, t_p = _pair(ours, aer_best, repeats)
    results["aer_best"] = (t_o, t_p, AER_BEST_SHOTS)

    roundtrip, consistent, qns_error = False, False, ""
    child = None
    try:
        child = _QuNetSimChild()
        roundtrip = child.roundtrip
        qns_inner = []

        def qns() -> float:
            r = child.call()
            tallies["qunetsim"].add(r["errors"], r["symbols"])
            qns_inner.append(r["consistent"])
            return r["t"]

        t_o, t_p = _pair(ours, qns, repeats)
        results["qunetsim"] = (t_o, t_p, QUNETSIM_SYMBOLS)
        consistent = all(qns_inner)
    except Exception as exc:  # noqa: BLE001 - a failing peer must not hide the other rows
        qns_error = f"{type(exc).__name__}: {exc}"
        out(f"- (c) QuNetSim FAILED: {qns_error}")
    finally:
        if child is not None:
            child.close()
    all_ours = Timing([t for key in results for t in results[key][0].seconds])

    labels = {
        "aer": f"(a) Aer, one circuit per symbol (superdense_send_qiskit), {AER_SYMBOLS:,} "
        "symbols per call",
        "aer_best": f"(b) Aer, best usage: 1 pair per circuit, symbols drawn in-circuit, "
        f"{AER_BEST_SHOTS:,} shots per call (method {best_info.get('method')}, "
        f"measurement sampling {best_info.get('sampling')})",
        "qunetsim": f"(c) QuNetSim send_superdense, EQSN backend, delay 0, await_ack=True, "
        f"Pauli channel model on Alice's qubit, {QUNETSIM_SYMBOLS} symbols per call",
    }
    out(
        f"- (d) ours, superdense_send, {FAST_SYMBOLS:,} symbols per call: "
        f"{_throughput(FAST_SYMBOLS, all_ours)} (all {len(all_ours.seconds)} timed calls); "
        f"{tallies['ours'].text()}"
    )
    ratios = {}
    for key, (t_o, t_p, n) in results.items():
        ratios[key] = _pair_throughput_ratio(t_o, FAST_SYMBOLS, t_p, n)
        out(
            f"- {labels[key]}: {_throughput(n, t_p)}; {tallies[key].text()}; "
            f"ours / this: {ratios[key]:,.0f}x (median of {repeats} alternating pairs)"
        )
    out(
        f"- (b) all four symbol values sent: {best_info.get('symbols_sent') == 4}; (c) the four "
        f"messages round-trip at F = 1: {roundtrip}; every QuNetSim message = the sent one with "
        f"its injected Pauli frame applied (X flips b, Z flips a, Y both): {consistent}"
    )
    out(
        '- QuNetSim bit order: message "ab" encodes Z^a X^b and decodes a from Alice\'s '
        'qubit, b from Bob\'s, i.e. "ab" = (z, x) in our notation, faithful; '
        "Host.get_classical lists messages newest first (sorted by sequence number, descending), "
        "so they are matched to symbols by sequence number"
    )
    ser_ok = all(t.symbols > 0 and abs(t.z) <= SER_SIGMAS for t in tallies.values())
    out(f"- every SER within {SER_SIGMAS:g} s.d. of 1 - F: {ser_ok}")
    out("")

    rows.append(
        (
            f"superdense F={F}: ours / per-symbol Aer throughput",
            f"{ratios['aer']:,.0f}",
            f">= {TARGET_VS_AER:,.0f}",
            ratios["aer"] >= TARGET_VS_AER,
        )
    )
    rows.append(
        (
            f"superdense F={F}: ours / best Aer usage throughput",
            f"{ratios['aer_best']:,.0f}",
            f">= {TARGET_VS_AER_BEST:,.0f}",
            ratios["aer_best"] >= TARGET_VS_AER_BEST and best_info.get("symbols_sent") == 4,
        )
    )
    if "qunetsim" in ratios:
        rows.append(
            (
                f"superdense F={F}: ours / QuNetSim throughput",
                f"{ratios['qunetsim']:,.0f}",
                f">= {TARGET_VS_QUNETSIM:,.0f}",
                ratios["qunetsim"] >= TARGET_VS_QUNETSIM and roundtrip and consistent,
            )
        )
    else:
        rows.append(
            (
                f"superdense F={F}: ours / QuNetSim throughput",
                "failed",
                f">= {TARGET_VS_QUNETSIM:,.0f}",
                False,
            )
        )
    sers = " / ".join(
        f"{tallies[k].ser:.4f}" if tallies[k].symbols else "-"
        for k in ("ours", "aer", "aer_best", "qunetsim")
    )
    zmax = max(abs(t.z) for t in tallies.values() if t.symbols)
    rows.append(
        (
            f"superdense F={F}: SER ours / Aer / best Aer / QuNetSim",
            f"{sers} (largest deviation {zmax:.1f} s.d.)",
            f"each within {SER_SIGMAS:g} s.d. of {1 - F:.2f}",
            ser_ok,
        )
    )

    try:
        rows.append(_gloo_section(out, repeats))
    except Exception as exc:  # noqa: BLE001 - report, do not hang or hide the other rows
        out(f"- torch gloo FAILED: {type(exc).__name__}: {exc}")
        out("")
        rows.append(
            (
                f"classical ring_allreduce / torch gloo all_reduce wall time "
                f"(P={GLOO_P}, d=2^{GLOO_D.bit_length() - 1})",
                "failed",
                f"<= {TARGET_GLOO_RATIO:g}",
                False,
            )
        )
    return rows


if __name__ == "__main__":
    t_start = time.perf_counter()
    result_rows = run(print, repeats=int(sys.argv[1]) if len(sys.argv) > 1 else 3)
    print("| benchmark | measured | target | status |")
    print("|---|---:|---:|---|")
    for name, value, target, ok in result_rows:
        print(f"| {name} | {value} | {target} | {'PASS' if ok else 'MISS'} |")
    print(f"\n(total {time.perf_counter() - t_start:.0f} s)")
    sys.exit(0 if all(ok for *_, ok in result_rows) else 1)
