"""The DDP communication hook (qring_edu.ddp) over real gloo process groups.

One launch of P local processes per ring size (P = 2 and P = 3, qring_edu.launch.launch_local)
runs every multi-process check of that size, because process start-up dominates the cost. Each
rank returns plain data (what entered and left each bucket, what crossed its incoming link, its
report, the errors it raised); the assertions run here, in the parent, against the library's
single-process ring (qring_edu.ring.ring_allreduce) with the seed the hook documents.
"""

import dataclasses
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.distributed as dist
from scipy.stats import chisquare
from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as psgd
from torch.nn.parallel import DistributedDataParallel

from qring_edu.ddp import RingGroup, RingHookState, allreduce_mean_, ring_average, ring_hook
from qring_edu.fixedpoint import fixed_point
from qring_edu.launch import launch_local
from qring_edu.noise import Link
from qring_edu.ring import chunk_bounds, message_bits, ring_allreduce, sent_chunk
from qring_edu.training import make_moons
from qring_edu.transports import Classical, Superdense

SEED = 7
STEPS = 3
BUCKET_MB = 0.002  # the 2-32-32-2 MLP's 1,218 float32 gradients in several buckets
LEDGER_SIZES = (999, 1000, 7, 2, 1)  # P | d, P does not divide d, d < P (empty chunks)
LEDGER_BITS = 5  # odd: messages of an odd number of bits, ceil(k/2) qubits
P_MIN = 1e-4  # chi-squared p-value floor; every input is seeded, so the verdict is fixed


@dataclasses.dataclass(frozen=True)
class Tap(Classical):
    """The classical transport, keeping a copy of every message that crossed the link."""

    seen: list = dataclasses.field(default_factory=list, compare=False, repr=False)

    def send(self, words, *, bits, step, sender, seed, ledger):
        self.seen.append((step, sender, words.copy()))
        return super().send(words, bits=bits, step=step, sender=sender, seed=seed, ledger=ledger)


#: Hook runs: label -> (transport the ranks use, the same transport for ring_allreduce, private)
RUNS = {
    "classical": (Tap, Classical(), False),
    "superdense": (Superdense, Superdense(), False),
    "pair": (lambda: Superdense(Link(pair_fidelity=0.99)), Superdense(Link(0.99)), False),
    "channel": (
        lambda: Superdense(Link(channel_fidelity=0.99)),
        Superdense(Link(channel_fidelity=0.99)),
        False,
    ),
    "private": (Tap, Classical(), True),
    "private superdense": (Superdense, Superdense(), True),
}


def _mlp(hidden: int = 32) -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(2, hidden),
        torch.nn.Tanh(),
        torch.nn.Linear(hidden, hidden),
        torch.nn.Tanh(),
        torch.nn.Linear(hidden, 2),
    )


def _batches(rank: int, world: int, steps: int):
    X, y = make_moons(400, seed=1)
    X, y = torch.from_numpy(X).float(), torch.from_numpy(y)
    rng = np.random.default_rng([1, rank])
    shard = np.arange(rank, 400, world)
    for _ in range(steps):
        idx = torch.from_numpy(rng.choice(shard, 32, replace=False))
        yield X[idx], y[idx]


def _flat(tensors) -> np.ndarray:
    return torch.cat([t.detach().reshape(-1) for t in tensors]).numpy().copy()


def _recording_hook(state, bucket):
    """ring_hook, keeping (bucket index, call, input, output) of every call."""
    index, before = bucket.index(), bucket.buffer().detach().clone().numpy()
    call = state.calls.get(index, 0)
    future = ring_hook(state, bucket)
    state.record.append((index, call, before, bucket.buffer().detach().clone().numpy()))
    return future


def _hook_runs(rank, world):
    out = {}
    loss_fn = torch.nn.CrossEntropyLoss()
    for label, (make, _, private) in RUNS.items():
        net = _mlp()
        model = DistributedDataParallel(net, bucket_cap_mb=BUCKET_MB)
        transport = make()
        state = RingHookState(transport=transport, seed=SEED, private=private)
        state.record = []
        model.register_comm_hook(state, _recording_hook)
        opt = torch.optim.SGD(model.parameters(), lr=0.5)
        for X, y in _batches(rank, world, STEPS):
            opt.zero_grad()
            loss_fn(model(X), y).backward()
            opt.step()
        out[label] = dict(
            record=state.record,
            weights=_flat(net.parameters()),
            report=state.report(),
            tapped=getattr(transport, "seen", None),
        )
    return out


def _outcome(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the test compares what each rank raised
        return type(exc).__name__, str(exc)
    return "no error", ""


def _errors(rank, world):
    out = {}
    state = RingHookState(seed=SEED)

    def nan_gradient():
        model = DistributedDataParallel(_mlp())
        model.register_comm_hook(state, ring_hook)
        X = torch.ones(4, 2)
        if rank == world - 1:
            X[0, 0] = float("nan")
        model(X).sum().backward()

    out["nan"] = _outcome(nan_gradient)
    out["inf"] = _outcome(
        lambda: allreduce_mean_(state, torch.tensor([1.0, float("inf") if rank == 0 else 2.0]))
    )
    out["length"] = _outcome(lambda: allreduce_mean_(state, torch.zeros(5 + (rank == 0))))
    wrong = torch.zeros(4, dtype=torch.int64 if rank == world - 1 else torch.float32)
    out["dtype"] = _outcome(lambda: allreduce_mean_(state, wrong))
    out["bits 40"] = _outcome(lambda: RingHookState(bits=40))
    out["bits 2"] = _outcome(lambda: RingHookState(bits=2))  # 2**(b-1) - 1 = 1 < P
    out["max"] = _outcome(
        lambda: dist.all_reduce(
            torch.ones(3), op=dist.ReduceOp.MAX, group=RingGroup(state), async_op=True
        ).wait()
    )
    after = torch.full((6,), float(rank))
    allreduce_mean_(state, after)  # the group still works after every error
    out["after"] = after.numpy()
    return out


def _ledgers(rank, world):
    out = {}
    for name in ("classical", "superdense"):
        state = RingHookState(transport=name, bits=LEDGER_BITS, seed=SEED)
        for b, d in enumerate(LEDGER_SIZES):
            allreduce_mean_(state, torch.linspace(-1, 1, d, dtype=torch.float64), bucket_index=b)
        out[name] = state.report()
    return out


def _powersgd(rank, world):
    out = {}
    loss_fn = torch.nn.CrossEntropyLoss()
    for name in ("classical", "superdense"):
        net = _mlp()
        model = DistributedDataParallel(net)
        state = RingHookState(transport=name, seed=SEED)
        options = psgd.PowerSGDState(
            RingGroup(state), matrix_approximation_rank=1, start_powerSGD_iter=2, random_seed=0
        )
        model.register_comm_hook(options, psgd.powerSGD_hook)
        opt = torch.optim.SGD(model.parameters(), lr=0.5)
        grads = []
        for X, y in _batches(rank, world, 5):
            opt.zero_grad()
            loss_fn(model(X), y).backward()
            grads.append(_flat(p.grad for p in net.parameters()))
            opt.step()
        out[name] = dict(grads=grads, report=state.report())
    return out


def _session(rank, world):
    return dict(
        hooks=_hook_runs(rank, world),
        errors=_errors(rank, world),
        ledgers=_ledgers(rank, world),
        powersgd=_powersgd(rank, world),
    )


@pytest.fixture(scope="module", params=[2, 3], ids=["P=2", "P=3"])
def ranks(request):
    """One gloo session of P processes running every check; a list of per-rank result dicts."""
    return launch_local(_session, request.param, timeout=300.0, pg_timeout=60.0)


def _calls(ranks, label):
    """Per call: (bucket index, call, G = the ranks' inputs stacked, the ranks' outputs)."""
    records = [r["hooks"][label]["record"] for r in ranks]
    assert len({len(rec) for rec in records}) == 1
    for calls in zip(*records):
        assert len({(b, c) for b, c, _, _ in calls}) == 1  # every rank in the same order
        b, c = calls[0][:2]
        yield b, c, np.stack([x for _, _, x, _ in calls]), [out for *_, out in calls]


# ------------------------------------------------------------------------------------------
# the hook's average is the single-process ring's, with the seed it documents
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("label", ["classical", "superdense", "pair", "channel"])
def test_hook_equals_ring_allreduce_bit_for_bit(ranks, label):
    """Rank r's average of the c-th call of bucket b is ring_allreduce(G, transport, seed=[seed,
    c, b]).outputs[r] / P, noise included (the same noise wherever a message is simulated)."""
    P = len(ranks)
    transport = RUNS[label][1]
    calls = list(_calls(ranks, label))
    assert len({b for b, *_ in calls}) >= 2 and len(calls) > STEPS  # several buckets
    assert sorted({c for _, c, *_ in calls}) == list(range(STEPS))
    for b, c, G, outs in calls:
        expected = ring_allreduce(G, transport=transport, bits=16, seed=[SEED, c, b]).outputs / P
        for r in range(P):
            assert outs[r].dtype == np.float32
            assert np.array_equal(outs[r], expected[r]), (label, b, c, r)
    flipped = [r["hooks"][label]["report"].flipped_bits for r in ranks]
    if label in ("pair", "channel"):  # the noise was there, and it moved the averages
        assert min(flipped) > 0
        clean = {(b, c): outs for b, c, _, outs in _calls(ranks, "superdense")}
        assert any(not np.array_equal(outs[0], clean[b, c][0]) for b, c, _, outs in calls)
    else:
        assert flipped == [0] * P


def test_perfect_rings_train_identical_replicas(ranks):
    """Classical ring, superdense ring at F = 1 and both with pads: every replica ends with the
    same weights, and the four runs with the same weights bit for bit."""
    runs = ("classical", "superdense", "private", "private superdense")
    reference = ranks[0]["hooks"]["classical"]["weights"]
    for label in runs:
        for r in ranks:
            assert np.array_equal(r["hooks"][label]["weights"], reference), label
    for *_, G, outs in _calls(ranks, "classical"):  # and within the fixed-point bound
        bound = fixed_point(len(ranks), 16, float(np.abs(G).max())).error_bound / len(ranks)
        assert np.max(np.abs(outs[0] - G.mean(axis=0))) <= bound + 1e-6


def test_private_averages_equal_the_unmasked_ones(ranks):
    for masked, plain in (("private", "classical"), ("private superdense", "superdense")):
        for (_, _, Gm, om), (_, _, Gp, op) in zip(_calls(ranks, masked), _calls(ranks, plain)):
            assert np.array_equal(Gm, Gp)
            assert all(np.array_equal(a, b) for a, b in zip(om, op))
        for r in ranks:
            rep = r["hooks"][masked]["report"]
            n_entries = sum(x.size for _, _, x, _ in r["hooks"][masked]["record"])
            assert rep.ghz_copies == 16 * n_entries
            assert r["hooks"][plain]["report"].ghz_copies == 0


def _uniformity_pvalue(words: np.ndarray, bits: int = 16) -> float:
    """Chi-squared test of uniformity of the top 6 bits of the words (64 bins)."""
    counts = np.bincount((words >> (bits - 6)).astype(np.int64), minlength=64)
    return float(chisquare(counts).pvalue)


def test_no_link_carries_a_gradient_word_in_clear(ranks):
    """What crossed each link (a tap on the transport): without pads the first reduce-scatter
    message is a chunk of the sender's encoded gradient; with pads no word of it is, and every
    reduce-scatter word is uniform whatever the gradients; the all-gather carries the sum."""
    P = len(ranks)
    calls = list(_calls(ranks, "classical"))
    for k, r in enumerate(ranks):
        masked, plain = r["hooks"]["private"]["tapped"], r["hooks"]["classical"]["tapped"]
        assert [m[:2] for m in masked] == [m[:2] for m in plain]  # same schedule and senders
        rs_masked, rs_plain, clear, n_clear = [], [], 0, 0
        for i, (*_, G, _outs) in enumerate(calls):
            sender = (k - 1) % P
            codec = fixed_point(P, 16, float(np.abs(G).max()))
            bounds = chunk_bounds(G.shape[1], P)
            chunk = sent_chunk(sender, 0, P)
            own = codec.encode(G[sender])[bounds[chunk] : bounds[chunk + 1]]
            messages = slice(i * 2 * (P - 1), (i + 1) * 2 * (P - 1))
            (step, _, first_plain), (_, _, first_masked) = plain[messages][0], masked[messages][0]
            assert step == 0 and np.array_equal(first_plain, own)  # in clear without pads
            clear += int(np.sum(first_masked == own))
            n_clear += own.size
            for (s, _, wm), (_, _, wp) in zip(masked[messages], plain[messages]):
                if s < P - 1:
                    rs_masked.append(wm)
                    rs_plain.append(wp)
                else:
                    assert np.array_equal(wm, wp)  # the all-gather: the reduced sum
        assert clear / n_clear < 0.01
        assert _uniformity_pvalue(np.concatenate(rs_masked)) > P_MIN
        assert _uniformity_pvalue(np.concatenate(rs_plain)) < 1e-12


# ------------------------------------------------------------------------------------------
# errors: the same on every rank; ledgers: the ring's formula
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case, kind, words",
    [
        ("nan", "ValueError", "finite"),
        ("inf", "ValueError", "finite"),
        ("length", "ValueError", "length"),
        ("dtype", "TypeError", "float32 or float64"),
        ("bits 40", "ValueError", "bits"),
        ("bits 2", "ValueError", "bits"),
        ("max", "ValueError", "reduceOp"),
    ],
)
def test_bad_input_raises_the_same_error_on_every_rank(ranks, case, kind, words):
    seen = {r["errors"][case] for r in ranks}
    assert len(seen) == 1, seen
    got_kind, message = seen.pop()
    assert got_kind == kind and words in message, (got_kind, message)


def test_group_still_works_after_errors(ranks):
    P = len(ranks)
    for r in ranks:
        assert np.allclose(r["errors"]["after"], (P - 1) / 2, atol=1e-4)


def test_ledger_of_each_link_equals_the_ring_formula(ranks):
    P = len(ranks)
    for k, r in enumerate(ranks):
        sender = (k - 1) % P
        sizes = [message_bits(P, d, LEDGER_BITS)[sender] for d in LEDGER_SIZES]
        classical, superdense = r["ledgers"]["classical"], r["ledgers"]["superdense"]
        assert classical.link == superdense.link == (sender, k)
        assert classical.online_bits == sum(int(m.sum()) for m in sizes)
        assert classical.online_qubits == classical.ebits == 0
        qubits = sum(int(((m + 1) // 2).sum()) for m in sizes)  # ceil(k/2) per message
        assert superdense.online_bits == 0
        assert superdense.online_qubits == superdense.ebits == superdense.offline_qubits == qubits
        assert superdense.data_bits == classical.data_bits == classical.online_bits
        header = 2 * int(message_bits(P, 4, 32)[sender].sum())  # four 64-bit words
        assert classical.side_bits == superdense.side_bits == len(LEDGER_SIZES) * header
        assert classical.buckets == len(LEDGER_SIZES)
        # the same as the single-process ring's ledger of that link
        G = np.zeros((P, 1000), dtype=np.int64)
        ref = ring_allreduce(G, bits=LEDGER_BITS).ledger.per_link("online_bits")[sender]
        assert int(sizes[1].sum()) == ref


# ------------------------------------------------------------------------------------------
# PowerSGD's factors over the ring
# ------------------------------------------------------------------------------------------


def test_powersgd_factors_over_the_superdense_ring_equal_the_classical_ring(ranks):
    """torch's PowerSGD hook with RingGroup: at F = 1 the factors over the superdense ring give
    the classical ring's averaged gradients bit for bit, at every step, on every rank, over
    half as many qubits as bits (16-bit words: no padding)."""
    for r in ranks:
        cl, sd = r["powersgd"]["classical"], r["powersgd"]["superdense"]
        assert len(cl["grads"]) == 5
        for a, b in zip(cl["grads"], sd["grads"]):
            assert np.array_equal(a, b)
        assert np.array_equal(cl["grads"][-1], ranks[0]["powersgd"]["classical"]["grads"][-1])
        # 2 plain all-reduces, then 3 per step: uncompressed tensors, P factors, Q factors
        assert cl["report"].buckets == sd["report"].buckets == 2 + 3 * 3
        assert sd["report"].online_qubits * 2 == cl["report"].online_bits > 0
        assert sd["report"].online_bits == 0


# ------------------------------------------------------------------------------------------
# in-process checks (no process group needed)
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        (dict(transport="quantum"), ValueError, "transport"),
        (dict(transport=3), TypeError, "transport"),
        (dict(bits=1), ValueError, "bits"),
        (dict(bits=16.0), TypeError, "bits"),
        (dict(transport="superdense", pair_fidelity=0.2), ValueError, "pair_fidelity"),
        (dict(transport="classical", pair_fidelity=0.9), ValueError, "pair_fidelity"),
        (dict(transport=Superdense(), pair_fidelity=0.9), TypeError, "pair_fidelity"),
        (dict(transport="superdense", fidelity=0.9), TypeError, "fidelity"),
        (dict(seed=-1), ValueError, "seed"),
        (dict(seed=None), TypeError, "seed"),
        (dict(private=1), TypeError, "private"),
    ],
)
def test_state_validation(kwargs, exc, words):
    with pytest.raises(exc, match=words):
        RingHookState(**kwargs)


def test_state_needs_an_initialised_group():
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="init_process_group"):
        RingHookState()


def test_hook_and_group_refuse_another_state():
    with pytest.raises(TypeError, match="state"):
        ring_hook(object(), None)
    with pytest.raises(TypeError, match="state"):
        RingGroup("state")


@pytest.mark.parametrize(
    "rows, kwargs, exc, words",
    [
        ([1.0, 2.0], {}, ValueError, "2-D"),
        ([[1.0, 2.0]], {}, ValueError, "number of ranks"),
        ([[1.0]] * 9, {}, ValueError, "number of ranks"),
        (np.zeros((2, 0)), {}, ValueError, "entries per rank"),
        ([[1.0, np.nan], [0.0, 0.0]], {}, ValueError, "finite"),
        ([["a"], ["b"]], {}, TypeError, "rows"),
        ([[1.0], [2.0]], dict(private="yes"), TypeError, "private"),
        ([[1.0], [2.0]], dict(transport="quantum"), ValueError, "transport"),
        ([[1.0], [2.0]], dict(bits=2), ValueError, "bits"),
        ([[1.0], [2.0]], dict(timeout=0), ValueError, "timeout"),
    ],
)
def test_ring_average_bad_input(rows, kwargs, exc, words):
    with pytest.raises(exc, match=words):
        ring_average(rows, **kwargs)


def test_launcher_needs_no_torch_in_the_parent():
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from qring_edu.launch import free_port, launch_local\n"
        "print(free_port() > 0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_import_qring_edu_without_torch():
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import qring_edu, qring_edu.experiments.training\n"
        "try:\n    import qring_edu.ddp\nexcept ImportError:\n    print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


# ------------------------------------------------------------------------------------------
# the experiments and the example script (each starts its own processes)
# ------------------------------------------------------------------------------------------


def test_ddp_demo_perfect_rings_match_the_builtin_all_reduce():
    from qring_edu.experiments.training import ddp_demo, ddp_ledger_table, ddp_loss_table

    demo = ddp_demo(world_size=2, pair_fidelities=(1.0, 0.99), steps=4, seed=1)
    assert demo.labels == ("built-in", "classical", "superdense F=1", "superdense F=0.99")
    assert np.array_equal(demo.losses["classical"], demo.losses["superdense F=1"])
    for label in ("classical", "superdense F=1"):
        bound = max(rep.error_bound for rep in demo.reports[label])
        assert 0 < demo.grad_error[label] <= bound
        assert demo.divergence[label] == 0.0
        assert all(rep.flipped_bits == 0 and rep.buckets == 4 for rep in demo.reports[label])
    assert min(rep.flipped_bits for rep in demo.reports["superdense F=0.99"]) > 0
    per_link = 4 * int(message_bits(2, demo.n_params, 16)[0].sum())
    assert [rep.online_bits for rep in demo.reports["classical"]] == [per_link] * 2
    assert [rep.online_qubits for rep in demo.reports["superdense F=1"]] == [per_link // 2] * 2
    assert len(ddp_loss_table(demo, steps=(0, 4))) == 4 and len(ddp_ledger_table(demo)) == 6
    with pytest.raises(TypeError, match="private"):
        ddp_demo(private="yes")
    with pytest.raises(ValueError, match="pair_fidelities"):
        ddp_demo(pair_fidelities=(0.1,))


def test_compression_comparison_meets_its_targets():
    """The book's run: PowerSGD's factors over the superdense ring train as over the classical
    ring (bit for bit), as accurately as PowerSGD over gloo (within 1 point), over half as many
    qubits as the classical ring's bits."""
    from qring_edu.experiments.training import COMPRESSION_RUNS, compression_comparison

    cmp = compression_comparison()
    assert [r.label for r in cmp.runs] == [label for label, *_ in COMPRESSION_RUNS]
    assert all(r.identical for r in cmp.runs)
    composed = cmp.run("PowerSGD rank 1 over the superdense ring")
    classical = cmp.run("PowerSGD rank 1 over the classical ring")
    gloo = cmp.run("PowerSGD rank 1 (gloo)")
    assert np.array_equal(cmp.weights[composed.label], cmp.weights[classical.label])
    assert abs(composed.accuracy - gloo.accuracy) <= 0.01
    assert (composed.carried, classical.carried) == ("qubits", "bits")
    assert composed.per_link * 2 == classical.per_link
    # the classical competitor of the halving: the same factors in 8-bit words
    assert cmp.run("PowerSGD rank 1 over the classical ring, 8 bits").per_link == composed.per_link
    assert composed.per_link < cmp.run("superdense ring, 16 bits").per_link / 4
    assert (
        cmp.run("superdense ring, 16 bits").per_link * 2
        == cmp.run("classical ring, 16 bits").per_link
    )
    n = cmp.n_params  # the built-in all-reduce: a ring of 32-bit words, d/P per message
    assert cmp.run("built-in all-reduce (gloo)").per_link == int(message_bits(2, n, 32)[0].sum())
    assert cmp.table().columns[0] == "run" and "<table" in cmp._repr_html_()


def test_example_script_trains_and_prints_its_ledger():
    """examples/ddp_train.py --private under torchrun (2 processes, 1 epoch): it trains and each
    rank's ledger equals 6 steps x 2(P-1)(d/P) words x 16 bits, d = 4482 parameters."""
    script = Path(__file__).resolve().parent.parent / "examples" / "ddp_train.py"
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    cmd += [str(script), "--epochs", "1", "--samples", "400", "--private"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert any(line.startswith("epoch 1: mean training loss") for line in lines), out.stdout
    assert "6 steps per epoch" in lines[0] and "4482 parameters" in lines[0]
    assert "private (zero-sum pads)" in lines[0]
    per_link = 6 * 2 * (2 - 1) * (4482 // 2) * 16
    ledger = [line for line in lines if line.strip().startswith("rank ")]
    assert len(ledger) == 2
    for line in ledger:
        assert f"online bits {per_link:,}," in line and "flipped bits 0" in line
        assert f"GHZ copies {6 * 4482 * 16:,}" in line
    assert "replica divergence max|w_k - w_0| = 0" in out.stdout
