"""The DDP communication hook (qring_edu.ddp) over real gloo process groups.

One launch of P = 3 local processes (qring_edu.ddp.launch_local) runs every multi-process check
in one session, because process start-up (importing torch, building the first DDP model)
dominates the cost; it includes a 2-rank subgroup (the ``process_group`` argument) and a
2-rank subgroup with a 2 s timeout in which one rank never calls the hook. Each rank returns
plain data; the assertions run here, in the parent.
"""

from __future__ import annotations

import datetime
import math
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch  # the [torch] extra is part of `make venv`
import torch.distributed as dist
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare as chi2_test
from torch.nn.parallel import DistributedDataParallel

from qring_edu import chunk_bounds, make_moons, ring_allreduce
from qring_edu.ddp import (
    HEADER_WORDS,
    RingHookConfig,
    RingHookState,
    _decode_into,
    _encode_into,
    allreduce_mean_,
    ddp_demo,
    launch_local,
    ring_average,
    ring_hook,
)
from qring_edu.fixedpoint import fixed_point, word_mask

P = 3
LEDGER_SIZES = (999, 1000, 7, 2, 1)  # P | d, P does not divide d, d < P (empty chunks)
NOISE_D, NOISE_F = 30_000, 0.9
LOSS_STEPS, LOSS_LR = 5, 0.5
SPARSE_STEPS = 20
OVERLAP_DELAY = 1.0  # seconds the other ranks wait before joining the collective
PRIVATE_STEPS, PRIVATE_BUCKET_MB = 3, 0.002  # 1,218 float32 parameters in 3 buckets
TAP_D, TAP_BUCKETS = 30_000, 3
P_MIN = 1e-4  # chi-squared p-value floor; every input is seeded, so this is a fixed verdict


class _Bucket:
    """Stands in for torch.distributed.GradBucket (buffer / index / is_last)."""

    def __init__(self, tensor, index=0, last=True):
        self._t, self._i, self._last = tensor, index, last

    def buffer(self):
        return self._t

    def index(self):
        return self._i

    def is_last(self):
        return self._last


def _data(rank: int, world: int, n: int = 256, batch: int = 32, seed: int = 1):
    X, y = make_moons(n, seed=seed)
    rows = np.random.default_rng([seed, rank]).choice(
        np.arange(rank, n, world), batch, replace=False
    )
    return torch.from_numpy(X), torch.from_numpy(y), torch.from_numpy(rows)


def _mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(2, 32),
        torch.nn.Tanh(),
        torch.nn.Linear(32, 32),
        torch.nn.Tanh(),
        torch.nn.Linear(32, 2),
    )


def _flat_grads(net):
    return torch.cat([p.grad.reshape(-1) for p in net.parameters()]).detach().numpy().copy()


def _grads_under_ddp(rank, world):
    """Local float32 MLP gradients, and the DDP-averaged ones under each all-reduce."""
    X, y, rows = _data(rank, world)
    X = X.float()
    loss_fn = torch.nn.CrossEntropyLoss()
    net = _mlp()
    loss_fn(net(X[rows]), y[rows]).backward()
    out = {"local": _flat_grads(net)}
    for label, kw in [
        ("built-in", None),
        ("classical16", dict(transport="classical", bits=16)),
        ("superdense16", dict(transport="superdense", bits=16)),
        ("classical8", dict(transport="classical", bits=8)),
        ("classical24", dict(transport="classical", bits=24)),
    ]:
        net = _mlp()
        model = DistributedDataParallel(net)
        if kw is not None:
            state = RingHookState(**kw)
            model.register_comm_hook(state, ring_hook)
        loss_fn(model(X[rows]), y[rows]).backward()
        out[label] = _flat_grads(net)
        if kw is not None:
            out[label + "/report"] = state.report()
    return out


def _losses_under_ddp(rank, world):
    """Softmax regression in float64, LOSS_STEPS SGD steps under each all-reduce."""
    X, y, rows = _data(rank, world)
    loss_fn = torch.nn.CrossEntropyLoss()
    out = {}
    for label, kw in [
        ("built-in", None),
        ("classical", dict(transport="classical")),
        ("superdense", dict(transport="superdense")),
    ]:
        torch.manual_seed(0)
        net = torch.nn.Linear(2, 2).double()
        model = DistributedDataParallel(net)
        if kw is not None:
            state = RingHookState(bits=16, **kw)
            model.register_comm_hook(state, ring_hook)
        opt = torch.optim.SGD(model.parameters(), lr=LOSS_LR)
        losses, gnorms = [], []
        for t in range(LOSS_STEPS + 1):
            full = loss_fn(net(X), y)  # full-data loss and its gradient, outside DDP:
            grads = torch.autograd.grad(full, list(net.parameters()))  # no .grad, no hooks
            gnorms.append(float(torch.cat([g.reshape(-1) for g in grads]).norm()))
            losses.append(float(full))
            if t < LOSS_STEPS:
                opt.zero_grad()
                loss_fn(model(X[rows]), y[rows]).backward()
                opt.step()
        out[label] = dict(
            losses=losses,
            gnorms=gnorms,
            weights=torch.cat([p.detach().reshape(-1) for p in net.parameters()]).numpy().copy(),
            bound=state.report().error_bound if kw is not None else 0.0,
        )
    out["max_norm_x"] = float(X.norm(dim=1).max())
    return out


def _ledgers(rank, world):
    """Hook calls on buckets of known sizes; each rank's report per transport."""
    out = {}
    for transport, bits in [("classical", 16), ("superdense", 15)]:
        state = RingHookState(transport=transport, bits=bits)
        rng = np.random.default_rng([7, rank])
        results = []
        for i, d in enumerate(LEDGER_SIZES):
            t = torch.from_numpy(rng.uniform(-1, 1, d))
            local = t.numpy().copy()
            ring_hook(state, _Bucket(t, i, last=(i == len(LEDGER_SIZES) - 1))).wait()
            results.append((local, t.numpy().copy()))
        out[transport] = dict(report=state.report(), results=results)
    return out


def _noise(rank, world):
    """Superdense F < 1 on one large bucket; the same again (same and other seed); classical."""
    base = np.random.default_rng([11, rank]).uniform(-1, 1, NOISE_D).astype(np.float32)
    out = {}
    for label, kw in [
        ("noisy", dict(transport="superdense", pair_fidelity=NOISE_F, seed=5)),
        ("again", dict(transport="superdense", pair_fidelity=NOISE_F, seed=5)),
        ("other-seed", dict(transport="superdense", pair_fidelity=NOISE_F, seed=6)),
        ("classical", dict(transport="classical")),
    ]:
        state = RingHookState(bits=16, **kw)
        t = torch.from_numpy(base.copy())
        ring_hook(state, _Bucket(t)).wait()
        out[label] = dict(result=t.numpy().copy(), report=state.report())
    # Tiny messages at F = 0.999: almost every message arrives without a flip; one bucket per
    # step, so the worker also prepares the next step's noise ahead.
    state = RingHookState(transport="superdense", pair_fidelity=0.999, seed=2)
    results = []
    for _ in range(SPARSE_STEPS):
        t = torch.full((P,), float(rank + 1))
        ring_hook(state, _Bucket(t, 0, last=True)).wait()
        results.append(t.numpy().copy())
    out["sparse"] = dict(results=np.array(results), report=state.report())
    return out


def _errors(rank, world):
    """Bad buckets on one rank: every rank must raise, nobody may hang, and the group must
    still work afterwards."""
    state = RingHookState()
    out = {}
    cases = {
        "dtype": lambda: torch.zeros(10, dtype=torch.float16 if rank == 1 else torch.float32),
        "size": lambda: torch.zeros(11 if rank == 2 else 10),
        "nan": lambda: torch.full((10,), float("nan") if rank == 0 else 1.0),
        "int": lambda: torch.zeros(10, dtype=torch.int64 if rank == 2 else torch.float32),
    }
    for name, make in cases.items():
        try:
            ring_hook(state, _Bucket(make())).wait()  # the worker's error is on the future
            out[name] = ("no error", "")
        except Exception as exc:  # noqa: BLE001 - the parent checks type and message
            out[name] = (type(exc).__name__, str(exc))
    t = torch.full((10,), float(rank + 1))
    ring_hook(state, _Bucket(t)).wait()
    out["after"] = t.numpy().copy()
    # A strided tensor (a transposed matrix) is averaged in place like its contiguous copy.
    strided = torch.arange(12, dtype=torch.float64).reshape(3, 4).t() * (rank + 1)
    flat = strided.reshape(-1).clone()
    allreduce_mean_(state, strided)
    allreduce_mean_(state, flat)
    out["strided"] = (strided.is_contiguous(), strided.reshape(-1).numpy().copy(), flat.numpy())
    return out


AGREED_D = 10
#: Per step of one hook bucket: the spread of the ranks' entries and the size on each rank
#: (None: AGREED_D everywhere). Step 0 sends the header; the bound of step t is twice the
#: largest maximum of the steps before it (at most 8); step 3 jumps past it, step 5 has the wrong
#: size on rank 1, step 7 a NaN on rank 0, step 9 a new size on every rank.
AGREED_STEPS = [
    (1.0, None),
    (0.7, None),
    (1.5, None),
    (5.0, None),
    (0.5, None),
    (0.5, {1: 11}),
    (0.5, None),
    (0.5, "nan"),
    (0.5, None),
    (0.5, {0: 12, 1: 12, 2: 12}),
    (0.5, {0: 12, 1: 12, 2: 12}),
]


def _agreed(rank, world):
    """One hook bucket over AGREED_STEPS steps: its inputs, outputs (or error) and report after
    each step, and the collectives issued per step."""
    state = RingHookState(seed=0)
    rng = np.random.default_rng([21, rank])
    out = []
    calls = []
    original = dist.all_reduce

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    dist.all_reduce = counting
    try:
        for spread, change in AGREED_STEPS:
            d = change.get(rank, AGREED_D) if isinstance(change, dict) else AGREED_D
            x = rng.uniform(-spread, spread, d)
            x[0] = spread if rank == 0 else x[0]  # the maximum over the ranks is the spread
            if change == "nan" and rank == 0:
                x[1] = float("nan")
            t = torch.from_numpy(x.copy())
            calls.clear()
            try:
                ring_hook(state, _Bucket(t, 0, last=True)).wait()
                result = ("ok", t.numpy().copy())
            except Exception as exc:  # noqa: BLE001 - the parent checks type and message
                result = (type(exc).__name__, str(exc))
            out.append(dict(x=x, result=result, report=state.report(), collectives=len(calls)))
    finally:
        dist.all_reduce = original
    return out


def _exact_scale(rank, world):
    """scale="exact": the header collective before every step's ring, the exact maximum."""
    state = RingHookState(scale="exact")
    rng = np.random.default_rng([22, rank])
    out = []
    original = dist.all_reduce
    calls = []

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    dist.all_reduce = counting
    try:
        for spread in (1.0, 0.7, 1.5):
            x = rng.uniform(-spread, spread, AGREED_D)
            t = torch.from_numpy(x.copy())
            calls.clear()
            ring_hook(state, _Bucket(t, 0, last=True)).wait()
            out.append(dict(x=x, result=t.numpy().copy(), collectives=len(calls)))
    finally:
        dist.all_reduce = original
    return dict(steps=out, report=state.report(), repr=repr(state))


def _subgroups(rank, world):
    """(a) The ring of group [0, 2] only: rank 2 is group rank 1 (global rank mapping).
    (b) Group [1, 2] with a 2 s timeout, in which rank 2 never calls the hook: rank 1 must get
    an error instead of waiting forever."""
    pair = dist.new_group([0, 2])
    slow = dist.new_group([1, 2], timeout=datetime.timedelta(seconds=2))
    out = {}
    if rank in (0, 2):
        state = RingHookState(process_group=pair)
        t = torch.full((5,), float(rank + 1))
        ring_hook(state, _Bucket(t)).wait()
        out["pair"] = (t.numpy().copy(), state.report())
    if rank == 1:
        state = RingHookState(process_group=slow)
        t0 = time.monotonic()
        try:
            ring_hook(state, _Bucket(torch.ones(4))).wait()
            out["slow"] = ("no error", time.monotonic() - t0)
        except Exception as exc:  # noqa: BLE001
            out["slow"] = (type(exc).__name__, time.monotonic() - t0)
    if rank == 2:
        time.sleep(8.0)  # never joins the collective on `slow`
    return out


def _overlap(rank, world):
    """Ranks 1.. join 1 s late: rank 0's hook must return a pending future at once (the ring
    runs on the worker thread), which completes with the average once the peers arrive."""
    state = RingHookState()
    t = torch.full((6,), float(rank + 1))
    if rank != 0:
        time.sleep(OVERLAP_DELAY)
    t0 = time.monotonic()
    fut = ring_hook(state, _Bucket(t))
    returned_after = time.monotonic() - t0
    pending = not fut.done()
    value = fut.wait()
    return dict(
        pending=pending,
        returned_after=returned_after,
        done=fut.done(),
        same_tensor=value is t,
        value=t.numpy().copy(),
    )


def _private_training(rank, world):
    """PRIVATE_STEPS SGD steps of the float32 MLP, several buckets per step, with and without
    the GHZ pads: the gradients of every step and the final weights, and each rank's report."""
    X, y, rows = _data(rank, world)
    X = X.float()
    loss_fn = torch.nn.CrossEntropyLoss()
    out = {}
    for label, kw in [
        ("plain", dict()),
        ("private", dict(private=True)),
        ("plain-sd", dict(transport="superdense")),
        ("private-sd", dict(private=True, transport="superdense")),
        ("private-f0", dict(private=True, test_fraction=0.0)),
    ]:
        net = _mlp()
        model = DistributedDataParallel(net, bucket_cap_mb=PRIVATE_BUCKET_MB)
        state = RingHookState(seed=3, **kw)
        model.register_comm_hook(state, ring_hook)
        opt = torch.optim.SGD(model.parameters(), lr=0.5)
        grads = []
        for _ in range(PRIVATE_STEPS):
            opt.zero_grad()
            loss_fn(model(X[rows]), y[rows]).backward()
            grads.append(_flat_grads(net))
            opt.step()
        out[label] = dict(
            grads=np.array(grads),
            report=state.report(),
            weights=torch.cat([p.detach().reshape(-1) for p in net.parameters()]).numpy().copy(),
        )
    out["n_params"] = sum(p.numel() for p in _mlp().parameters())
    return out


def _ahead(rank, world):
    """Noisy superdense + private DDP training, with the next step's pads and pair noise
    prepared ahead (the default: while a bucket's first ring step is in flight, else by the
    idle worker) and with both switched off."""
    import qring_edu.ddp as ddp_module

    X, y, rows = _data(rank, world)
    X = X.float()
    loss_fn = torch.nn.CrossEntropyLoss()
    out = {}
    original = ddp_module._prepare_ahead, ddp_module._prepare_in_flight
    for label in ("ahead", "inline"):
        if label == "inline":
            ddp_module._prepare_ahead = lambda state: False
            ddp_module._prepare_in_flight = lambda state, job, d: None
        try:
            net = _mlp()
            model = DistributedDataParallel(net, bucket_cap_mb=PRIVATE_BUCKET_MB)
            state = RingHookState(transport="superdense", pair_fidelity=0.9, private=True, seed=8)
            model.register_comm_hook(state, ring_hook)
            grads = []
            for _ in range(PRIVATE_STEPS):
                net.zero_grad()
                loss_fn(model(X[rows]), y[rows]).backward()
                grads.append(_flat_grads(net))
            state.synchronize()
            deadline = time.monotonic() + 10.0  # the idle worker prepares the next step
            while label == "ahead" and state._ahead_todo and time.monotonic() < deadline:
                time.sleep(0.01)
            out[label] = dict(
                grads=np.array(grads), report=state.report(), prepared=sorted(state._ahead)
            )
        finally:
            ddp_module._prepare_ahead, ddp_module._prepare_in_flight = original
    return out


def _tapped(rank, world):
    """The words on this rank's incoming link (RingHookState.tap), with and without the pads:
    bucket 0 is the same constant on every rank, buckets 1 and 2 are Gaussian."""
    out = {}
    for label, private in [("plain", False), ("private", True)]:
        seen = []
        state = RingHookState(private=private, seed=4, tap=seen.append)
        results = []
        for i in range(TAP_BUCKETS):
            if i == 0:
                t = torch.full((TAP_D,), 0.25)
            else:
                t = torch.from_numpy(
                    np.random.default_rng([i, rank]).normal(0, 1, TAP_D).astype(np.float32)
                )
            ring_hook(state, _Bucket(t, i, last=(i == TAP_BUCKETS - 1))).wait()
            results.append(t.numpy().copy())
        out[label] = dict(
            rs=np.concatenate([m.words for m in seen if m.phase == "reduce-scatter"]).astype(
                np.uint16
            ),
            ag=np.concatenate([m.words for m in seen if m.phase == "all-gather"]).astype(np.uint16),
            messages=[(m.bucket_index, m.step, m.phase, m.sender, m.words.size) for m in seen],
            results=results,
            report=state.report(),
        )
    return out


def _ghz_attack(rank, world):
    """A GHZ source that knows the pads: tested, it is caught on every rank before a word is
    sent; untested (test_fraction = 0), nothing catches it (the sum is still right)."""
    out = {}
    for label, f in [("tested", 0.5), ("untested", 0.0)]:
        state = RingHookState(private=True, ghz_source="known_pads", test_fraction=f)
        t = torch.full((50,), float(rank + 1))
        try:
            ring_hook(state, _Bucket(t)).wait()
            out[label] = ("no error", "", t.numpy().copy(), state.report())
        except Exception as exc:  # noqa: BLE001 - the parent checks type and message
            out[label] = (type(exc).__name__, str(exc), t.numpy().copy(), state.report())
    return out


def _ddp_error(rank, world):
    """A NaN gradient on rank 1 under real DDP: backward raises on every rank (no hang)."""
    torch.manual_seed(0)
    net = torch.nn.Linear(3, 2)
    model = DistributedDataParallel(net)
    model.register_comm_hook(RingHookState(), ring_hook)
    x = torch.ones(4, 3)
    if rank == 1:
        x[0, 0] = float("nan")
    t0 = time.monotonic()
    try:
        model(x).sum().backward()
        return ("no error", "", time.monotonic() - t0)
    except Exception as exc:  # noqa: BLE001
        return (type(exc).__name__, str(exc), time.monotonic() - t0)


_COLLECTIVES = (
    "all_reduce",
    "all_gather",
    "all_gather_object",
    "all_gather_into_tensor",
    "broadcast",
    "barrier",
    "reduce_scatter",
    "all_to_all_single",
)
COUNT_BUCKETS = (40, 7, 2)  # d >= P, and d < P (empty chunks) at P = 3


class _CountingGroup:
    """Stands in for a state's ProcessGroup: records every point-to-point message it posts."""

    def __init__(self, pg, log):
        self._pg, self._log = pg, log

    def send(self, tensors, peer, tag):
        self._log.append(("send", peer, tag, tensors[0].numel()))
        return self._pg.send(tensors, peer, tag)

    def recv(self, tensors, peer, tag):
        self._log.append(("recv", peer, tag, tensors[0].numel()))
        return self._pg.recv(tensors, peer, tag)


def _collectives(rank, world):
    """Every collective of torch.distributed counted while the hook reduces buckets (on the
    whole group, and on a 2-rank subgroup): name, words, op, group and whether the hook's own
    thread issued it; and the point-to-point messages the state posts."""
    pair = dist.new_group([0, 1])
    out = {}
    calls = []
    originals = {name: getattr(dist, name) for name in _COLLECTIVES}

    def counting(name):
        def call(*args, **kwargs):
            tensor = args[0] if args else kwargs.get("tensor")
            calls.append(
                (
                    name,
                    tensor.numel() if isinstance(tensor, torch.Tensor) else None,
                    str(tensor.dtype) if isinstance(tensor, torch.Tensor) else None,
                    str(kwargs.get("op", args[1] if len(args) > 1 else None)),
                    kwargs.get("group", args[2] if len(args) > 2 else None) is group,
                    threading.current_thread() is threading.main_thread(),
                )
            )
            return originals[name](*args, **kwargs)

        return call

    for label, group in [("P3", None), ("P2", pair)]:
        if group is pair and rank == 2:
            continue
        state = RingHookState(process_group=group, private=True, seed=2)
        log: list = []
        if hasattr(state, "_pg"):  # (a hook without one sends no message we could count)
            state._pg = _CountingGroup(state._pg, log)
        calls.clear()
        for name in _COLLECTIVES:
            setattr(dist, name, counting(name))
        rounds = []
        try:
            for _ in range(2):  # the second step: every bound agreed one step ahead
                for i, d in enumerate(COUNT_BUCKETS):
                    t = torch.full((d,), float(rank + 1))
                    ring_hook(state, _Bucket(t, i, last=(i == len(COUNT_BUCKETS) - 1))).wait()
                rounds.append(
                    dict(collectives=list(calls), messages=list(log), report=state.report())
                )
                calls.clear()
                log.clear()
        finally:
            for name, fn in originals.items():
                setattr(dist, name, fn)
        out[label] = rounds
        state.close()
    return out


def _session(rank, world):
    return dict(
        collectives=_collectives(rank, world),
        grads=_grads_under_ddp(rank, world),
        losses=_losses_under_ddp(rank, world),
        ledgers=_ledgers(rank, world),
        noise=_noise(rank, world),
        errors=_errors(rank, world),
        overlap=_overlap(rank, world),
        private=_private_training(rank, world),
        ahead=_ahead(rank, world),
        tapped=_tapped(rank, world),
        attack=_ghz_attack(rank, world),
        ddp_error=_ddp_error(rank, world),
        agreed=_agreed(rank, world),
        exact=_exact_scale(rank, world),
        groups=_subgroups(rank, world),
    )


@pytest.fixture(scope="module")
def ranks():
    """One P = 3 gloo session running every check; a list of per-rank result dicts."""
    return launch_local(_session, P, timeout=150.0, pg_timeout=30.0)


# ------------------------------------------------------------------------------------------
# F = 1: the hook gives the built-in average up to the fixed-point bound
# ------------------------------------------------------------------------------------------


def test_f1_gradients_match_builtin_within_fixed_point_bound(ranks):
    local = np.array([r["grads"]["local"] for r in ranks], dtype=np.float64)
    exact = local.mean(axis=0)
    max_abs = float(np.abs(local).max())
    eps32 = 2.0**-24
    f32 = 2 * P * eps32 * max_abs  # rounding of the float32 sum (built-in) and of the results
    builtin = ranks[0]["grads"]["built-in"]
    assert np.max(np.abs(builtin - exact)) <= f32
    for label, bits in [
        ("classical16", 16),
        ("superdense16", 16),
        ("classical8", 8),
        ("classical24", 24),
    ]:  # words sent as int16, uint8 and int32
        cap = (2 ** (bits - 1) - 1) // P
        bound = max_abs / (2 * cap)  # P / (2 s) for the sum, divided by P
        report = ranks[0]["grads"][label + "/report"]
        assert report.error_bound == pytest.approx(bound, rel=1e-12)
        for r in ranks:
            g = r["grads"][label]
            assert np.array_equal(g, ranks[0]["grads"][label])  # replicas agree exactly
            assert np.max(np.abs(g - exact)) <= bound + f32
            assert np.max(np.abs(g - builtin)) <= bound + 2 * f32
    # The 8-bit code really quantises (the comparison is not vacuous): errors reach a good
    # fraction of the bound, far above float32 rounding.
    err8 = np.max(np.abs(ranks[0]["grads"]["classical8"] - exact))
    assert err8 > 0.25 * max_abs / (2 * ((2**7 - 1) // P))
    # Perfect pairs decode exactly: the superdense average is the classical one, bit for bit.
    assert np.array_equal(ranks[0]["grads"]["superdense16"], ranks[0]["grads"]["classical16"])


def test_f1_training_losses_match_builtin_within_derived_tolerance(ranks):
    """Softmax regression: each mean loss L_B has Hessian <= beta I with
    beta = (max |x|^2 + 1) / 2 (softmax Hessian <= 1/2 on the logits, |d logits / d theta|^2 =
    |x|^2 + 1). An SGD step w -> w - lr g(w) is then (1 + lr beta)-Lipschitz and the hook adds an
    error of at most sqrt(n) * bound per step, so the weight gap obeys
    D_{t+1} <= (1 + lr beta) D_t + lr sqrt(n) bound, and the full-data loss gap is at most
    |grad L(w_t)| D_t + beta D_t^2 / 2 (gradient taken on the built-in run)."""
    res = ranks[0]["losses"]
    beta = (res["max_norm_x"] ** 2 + 1) / 2
    n = 6  # 2 x 2 weights + 2 biases
    ref = res["built-in"]
    for label in ("classical", "superdense"):
        run = res[label]
        assert run["bound"] > 0
        gap, tol = 0.0, []
        for t in range(LOSS_STEPS + 1):
            tol.append(ref["gnorms"][t] * gap + beta * gap**2 / 2 + 1e-12)
            gap = (1 + LOSS_LR * beta) * gap + LOSS_LR * math.sqrt(n) * run["bound"]
        diff = np.abs(np.array(run["losses"]) - np.array(ref["losses"]))
        assert np.all(diff <= np.array(tol)), (diff, tol)
        assert run["losses"][-1] < run["losses"][0]  # it does train
    # every replica holds the same weights; superdense with F = 1 equals classical exactly
    for r in ranks:
        assert np.array_equal(
            r["losses"]["classical"]["weights"], ranks[0]["losses"]["classical"]["weights"]
        )
    assert np.array_equal(res["superdense"]["weights"], res["classical"]["weights"])


# ------------------------------------------------------------------------------------------
# the ledger of every link equals the formula of book/01_bottleneck.ipynb, book/03_superdense_ring.ipynb
# ------------------------------------------------------------------------------------------


def _chunk_sizes(d: int, workers: int) -> list[int]:
    return [d // workers + (1 if c < d % workers else 0) for c in range(workers)]


def _link_messages(d: int, workers: int, sender: int, header_words: int = 0) -> list[int]:
    """Words sent by ``sender`` over its link, message by message: reduce-scatter chunks
    (k - s) mod P and all-gather chunks (k + 1 - s) mod P for s = 0..P-2 (empty ones skipped;
    with ``header_words`` > 0, the running header's words follow every reduce-scatter chunk,
    and those messages are sent even when the chunk is empty)."""
    sizes = _chunk_sizes(d, workers)
    rs = [sizes[(sender - s) % workers] + header_words for s in range(workers - 1)]
    ag = [sizes[(sender + 1 - s) % workers] for s in range(workers - 1)]
    return [m for m in rs + ag if m > 0]


def test_ledger_per_link_equals_formula(ranks):
    for r, res in enumerate(ranks):
        sender = (r - 1) % P
        cl = res["ledgers"]["classical"]["report"]
        sd = res["ledgers"]["superdense"]["report"]
        assert cl.link == sd.link == (sender, r)
        bits_cl = sum(16 * m for d in LEDGER_SIZES for m in _link_messages(d, P, sender))
        qubits_sd = sum(
            math.ceil(15 * m / 2) for d in LEDGER_SIZES for m in _link_messages(d, P, sender)
        )
        assert cl.online_bits == bits_cl
        assert (cl.online_qubits, cl.ebits, cl.offline_qubits) == (0, 0, 0)
        assert sd.online_bits == 0
        assert sd.online_qubits == sd.ebits == sd.offline_qubits == qubits_sd
        assert sd.data_bits == sum(
            15 * m for d in LEDGER_SIZES for m in _link_messages(d, P, sender)
        )
        # the header: one all-reduce of 5 float64 words, counted as a ring all-reduce moves them
        header_words = sum(_link_messages(HEADER_WORDS, P, sender))
        assert cl.side_bits == sd.side_bits == len(LEDGER_SIZES) * header_words * 64
        assert cl.buckets == len(LEDGER_SIZES) and cl.iterations == 1
    # at P = 2 that is the whole header once per bucket: 5 x 64 = 320 bits per link
    assert [sum(_link_messages(HEADER_WORDS, 2, k)) for k in range(2)] == [5, 5]
    # P | d: exactly 2 (P - 1) (d / P) b bits per link
    assert sum(16 * m for m in _link_messages(999, P, 0)) == 2 * (P - 1) * (999 // P) * 16
    # The averages themselves: the true mean within the bound on every rank
    locals_ = [
        [res["ledgers"]["classical"]["results"][i][0] for res in ranks]
        for i in range(len(LEDGER_SIZES))
    ]
    for transport, bits in [("classical", 16), ("superdense", 15)]:
        for i, d in enumerate(LEDGER_SIZES):
            stack = np.array(locals_[i])
            bound = np.abs(stack).max() / (2 * ((2 ** (bits - 1) - 1) // P))
            for res in ranks:
                got = res["ledgers"][transport]["results"][i][1]
                assert got.shape == (d,)
                assert np.max(np.abs(got - stack.mean(axis=0))) <= bound * (1 + 1e-9)


def test_averages_equal_the_single_process_ring_bit_for_bit(ranks):
    """The hook's average is exactly the library's single-process ring sum (same fixed-point
    code, max_abs = max |g| over the ranks) divided by P: the same arithmetic, bit for bit."""
    for transport, bits in [("classical", 16), ("superdense", 15)]:
        for i, _d in enumerate(LEDGER_SIZES):
            stack = np.array([res["ledgers"]["classical"]["results"][i][0] for res in ranks])
            ref = ring_allreduce(
                stack, transport=transport, bits=bits, max_abs=float(np.abs(stack).max())
            )
            for res in ranks:
                assert np.array_equal(
                    res["ledgers"][transport]["results"][i][1], ref.outputs[0] / P
                )


# ------------------------------------------------------------------------------------------
# F < 1: bit flips at the rate 2 (1 - F) / 3, reproducibly
# ------------------------------------------------------------------------------------------


def test_noisy_pairs_flip_bits_at_expected_rate(ranks):
    """Per symbol: one bit flips with probability 2(1-F)/3 (X or Z), both with (1-F)/3 (Y).
    Flipped bits per symbol have mean 4(1-F)/3 = 2 p_bit and variance
    2(1-F)/3 + 4(1-F)/3 - (4(1-F)/3)^2; the 4 links are independent; 5-sigma bound."""
    q = 1 - NOISE_F
    mean_sym = 4 * q / 3
    var_sym = 2 * q / 3 + 4 * q / 3 - mean_sym**2
    total_flips = sum(r["noise"]["noisy"]["report"].flipped_bits for r in ranks)
    total_bits = sum(r["noise"]["noisy"]["report"].data_bits for r in ranks)
    symbols = total_bits // 2  # 16-bit words: no padding
    expected = symbols * mean_sym
    assert total_bits == P * 2 * (P - 1) * (NOISE_D // P) * 16
    assert abs(total_flips - expected) <= 5 * math.sqrt(symbols * var_sym)
    for r in ranks:
        rep = r["noise"]["noisy"]["report"]
        assert rep.flipped_bits > 0
        assert rep.bit_error_rate == pytest.approx(2 * q / 3, rel=0.15)
        # same seed -> the same flips and the same (corrupted) result; another seed -> other flips
        assert np.array_equal(r["noise"]["again"]["result"], r["noise"]["noisy"]["result"])
        assert r["noise"]["again"]["report"].flipped_bits == rep.flipped_bits
        assert not np.array_equal(r["noise"]["other-seed"]["result"], r["noise"]["noisy"]["result"])
        # the flips reach the averages: many entries differ from the classical ring
        wrong = np.mean(r["noise"]["noisy"]["result"] != r["noise"]["classical"]["result"])
        assert wrong > 0.5
        assert r["noise"]["classical"]["report"].flipped_bits == 0
    # flips during all-gather leave the replicas disagreeing
    first = ranks[0]["noise"]["noisy"]["result"]
    assert not all(np.array_equal(r["noise"]["noisy"]["result"], first) for r in ranks)


def test_messages_without_flips_at_high_fidelity(ranks):
    """F = 0.999 on 1-word messages (8 qubits): nearly every message has no flip at all; those
    steps give the exact average (here 2.0 up to the 16-bit code), every step completes."""
    for r in ranks:
        res = r["noise"]["sparse"]
        rep = res["report"]
        assert rep.buckets == rep.iterations == SPARSE_STEPS
        assert rep.data_bits == SPARSE_STEPS * 2 * (P - 1) * 16
        assert rep.flipped_bits < SPARSE_STEPS  # most messages carried no flip
        exact = np.all(np.abs(res["results"] - 2.0) < 1e-3, axis=1)
        assert exact.sum() >= SPARSE_STEPS // 2


# ------------------------------------------------------------------------------------------
# bad buckets: a clear ValueError on every rank, no hang, the group still usable
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case, words",
    [
        ("dtype", ["bucket dtype", "float32 or float64", "[1]"]),
        ("size", ["bucket size", "rank 2: 11", "rank 0: 10"]),
        ("nan", ["bucket must be finite", "[0]"]),
        ("int", ["bucket dtype", "[2]"]),
    ],
)
def test_bad_bucket_raises_value_error_on_every_rank(ranks, case, words):
    for r in ranks:
        kind, message = r["errors"][case]
        assert kind == "ValueError", (case, kind, message)
        for w in words:
            assert w in message, (case, message)


def test_worker_error_surfaces_through_ddp_backward_on_every_rank(ranks):
    """Under DDP the future's ValueError comes out of backward() (DDP wraps it in a
    RuntimeError carrying the message) on every rank, within the process-group timeout."""
    for r in ranks:
        kind, message, waited = r["ddp_error"]
        assert kind in ("ValueError", "RuntimeError"), (kind, message)
        assert "bucket must be finite; rank(s) [1]" in message
        assert waited < 20.0


def test_group_still_works_after_errors(ranks):
    for r in ranks:
        np.testing.assert_allclose(r["errors"]["after"], np.full(10, (1 + 2 + 3) / P), rtol=1e-4)
        contiguous, strided, flat = r["errors"]["strided"]
        assert not contiguous
        np.testing.assert_array_equal(strided, flat)
        expected = np.arange(12.0).reshape(3, 4).T.reshape(-1) * (1 + 2 + 3) / P
        np.testing.assert_allclose(strided, expected, atol=33 / (2 * (32767 // P)))  # B / (2m)


def test_hook_on_a_subgroup(ranks):
    (t0, rep0), (t2, rep2) = ranks[0]["groups"]["pair"], ranks[2]["groups"]["pair"]
    np.testing.assert_allclose(t0, np.full(5, (1 + 3) / 2), rtol=1e-4)
    assert np.array_equal(t0, t2)
    assert rep0.link == (1, 0) and rep2.link == (0, 1)
    assert rep0.online_bits == sum(16 * m for m in _link_messages(5, 2, 1))
    assert rep2.online_bits == sum(16 * m for m in _link_messages(5, 2, 0))


def test_process_group_timeout_stops_a_waiting_rank(ranks):
    kind, waited = ranks[1]["groups"]["slow"]
    assert kind != "no error"
    assert waited < 8.0  # it gave up on its own (2 s timeout), before the peer came back


# ------------------------------------------------------------------------------------------
# one collective per bucket (the header), every other message on the ring's links
# ------------------------------------------------------------------------------------------


def test_one_header_collective_per_new_bucket_and_only_ring_messages(ranks):
    """A bucket's first step: exactly one collective of torch.distributed, the header's
    asynchronous MAX all_reduce of five float64 words on the state's group, from the hook's own
    thread (the autograd thread under DDP), in bucket order; side_bits counts the words a ring
    all-reduce of the header moves. The next step: no collective at all (the bound was agreed
    one step ahead); instead every reduce-scatter message carries one float64 after its chunk
    (4 more 16-bit words, sent even for an empty chunk), 64 side bits each. Every
    point-to-point message goes to the next rank or comes from the previous one, with the tag
    (kind * 4096 + bucket index) * 2(P-1) + step of its kind (0: ring words), bucket and ring
    step, carrying the chunks of the schedule (empty ones skipped, except with the header)."""
    header = ("all_reduce", HEADER_WORDS, "torch.float64", str(dist.ReduceOp.MAX), True, True)
    for label, workers in [("P3", 3), ("P2", 2)]:
        n_steps = 2 * (workers - 1)
        for r, res in enumerate(ranks[:workers]):
            first, second = res["collectives"][label]
            assert first["collectives"] == [header] * len(COUNT_BUCKETS), first["collectives"]
            assert second["collectives"] == []
            sender = (r - 1) % workers
            for got, hw in [(first, 0), (second, 4)]:
                messages = got["messages"]
                for kind, peer, tag, _ in messages:
                    assert peer == ((r + 1) % workers if kind == "send" else (r - 1) % workers)
                    slot, step = divmod(tag, n_steps)
                    kind_of, bucket = divmod(slot, 4096)
                    assert kind_of == 0 and bucket < len(COUNT_BUCKETS), tag
                # the bucket's chunks, 2 (P - 1) messages each way; with the header (second
                # step) every reduce-scatter message has hw words more, even for an empty chunk
                # (as multisets: the hook may post a bucket's first step before the worker has
                # posted the previous bucket's last one)
                for way, owner in [("recv", sender), ("send", r)]:
                    assert sorted(m[3] for m in messages if m[0] == way) == sorted(
                        m
                        for d in COUNT_BUCKETS
                        for m in _link_messages(d, workers, owner, header_words=hw)
                    ), (label, way, hw)
            per_kind = (workers - 1) * len(COUNT_BUCKETS)  # even for empty chunks (d < P)
            header_bits = (
                64 * len(COUNT_BUCKETS) * sum(_link_messages(HEADER_WORDS, workers, sender))
            )
            assert first["report"].side_bits == header_bits
            assert second["report"].side_bits == header_bits + 64 * per_kind
            assert first["report"].ghz_used == 16 * sum(COUNT_BUCKETS)
            assert second["report"].ghz_used == 2 * 16 * sum(COUNT_BUCKETS)
            assert second["report"].rescaled == 0


def test_bound_agreed_one_step_ahead(ranks):
    """Step by step, the hook's average is exactly the single-process ring's at the scale a
    reader derives here: the exact maximum on the header step, then the bound
    B = 2 max(maxima of the last 8 steps) agreed one step ahead, and the exact maximum again for
    a step whose maximum outgrew B (sent again, counted in ``rescaled``). A bad bucket on one rank
    raises the same ValueError on every rank without any collective; the next step sends the
    header again; a size change on every rank alike goes through."""
    history: list[float] = []
    agreed = None  # (d, B) every rank agrees on
    rescaled, rescaled_entries = 0, 0
    for t, (spread, change) in enumerate(AGREED_STEPS):
        rows = [r["agreed"][t] for r in ranks]
        xs = [row["x"] for row in rows]
        results = [row["result"] for row in rows]
        collectives = {row["collectives"] for row in rows}
        sizes = {len(x) for x in xs}
        if change == "nan" or len(sizes) > 1:
            words = "bucket must be finite" if change == "nan" else "bucket size"
            for kind, message in results:
                assert kind == "ValueError" and words in message, (t, kind, message)
            assert collectives == {0 if agreed else 1}
            agreed = None
            continue
        stack = np.array(xs)
        h, d = float(np.abs(stack).max()), stack.shape[1]
        assert h == spread
        if agreed is None:
            max_abs, header, history = h, True, [h]
        else:
            header = False
            if d != agreed[0] or h > agreed[1]:
                max_abs = h
                rescaled, rescaled_entries = rescaled + 1, rescaled_entries + agreed[0]
            else:
                max_abs = agreed[1]
            history = (history + [h])[-8:]
        ref = ring_allreduce(stack, transport="classical", bits=16, max_abs=max_abs)
        for kind, value in results:
            assert kind == "ok" and np.array_equal(value, ref.outputs[0] / P), t
        assert collectives == {1 if header else 0}, t
        for row in rows:
            assert (row["report"].rescaled, row["report"].rescaled_entries) == (
                rescaled,
                rescaled_entries,
            )
        agreed = (d, 2 * max(history))
    # the schedule above exercised every branch: agreed, outgrown, bad, changed alike
    assert (rescaled, rescaled_entries) == (2, 2 * AGREED_D)
    assert [t for t, row in enumerate(ranks[0]["agreed"]) if row["collectives"]] == [0, 6, 8]


# ------------------------------------------------------------------------------------------
# the hook overlaps: it returns a pending future, the worker thread completes it
# ------------------------------------------------------------------------------------------


def test_hook_returns_a_pending_future_and_the_worker_completes_it(ranks):
    first = ranks[0]["overlap"]
    assert first["pending"]  # not complete when the hook returned ...
    assert first["returned_after"] < OVERLAP_DELAY / 2  # ... and it did not wait for the peers
    for r in ranks:
        res = r["overlap"]
        assert res["done"] and res["same_tensor"]  # completed with the bucket itself
        np.testing.assert_allclose(res["value"], np.full(6, (1 + 2 + 3) / P), rtol=1e-4)


# ------------------------------------------------------------------------------------------
# private training: GHZ pads change no bit of the result and hide every word on the links
# ------------------------------------------------------------------------------------------


def test_private_training_equals_the_unmasked_hook_bit_for_bit(ranks):
    n_params = ranks[0]["private"]["n_params"]
    for r in ranks:
        res = r["private"]
        for masked, plain in [
            ("private", "plain"),
            ("private-f0", "plain"),
            ("private-sd", "plain-sd"),
            ("plain-sd", "plain"),
        ]:
            assert np.array_equal(res[masked]["grads"], res[plain]["grads"]), (masked, plain)
            assert np.array_equal(res[masked]["weights"], res[plain]["weights"])
        assert res["plain"]["report"].buckets > PRIVATE_STEPS  # several buckets per step
        # the ledger: every entry of every bucket sent used one register-copy of 16 qubit GHZs
        # (a discarded sending too: the bucket sent again used fresh ones), and as many
        # register-copies again were tested (test_fraction 1/2: N = 2 d)
        for label in ("private", "private-sd"):
            rep = res[label]["report"]
            sent = PRIVATE_STEPS * n_params + rep.rescaled_entries
            assert rep.private and rep.ghz_used == sent * 16
            assert rep.ghz_tested == rep.ghz_used and rep.ghz_tests_failed == 0
            assert rep.online_bits == res[label.replace("private", "plain")]["report"].online_bits
        f0 = res["private-f0"]["report"]
        assert f0.ghz_used == (PRIVATE_STEPS * n_params + f0.rescaled_entries) * 16
        assert f0.ghz_tested == 0
        # masked or not, the same buckets outgrew their bounds
        assert len({res[k]["report"].rescaled_entries for k in res if k != "n_params"}) == 1
        plain = res["plain"]["report"]
        assert not plain.private and plain.ghz_used == plain.ghz_tested == 0
        assert "ghz_used" in repr(res["private"]["report"]) and "ghz" not in repr(plain)
    # the replicas agree
    assert all(
        np.array_equal(
            r["private"]["private"]["weights"], ranks[0]["private"]["private"]["weights"]
        )
        for r in ranks
    )


def test_pads_and_noise_prepared_ahead_change_nothing(ranks):
    """The worker samples the next step's GHZ pads and pair noise in advance (the same
    generators): noisy private training is bit for bit the same as preparing them inline."""
    for r in ranks:
        ahead, inline = r["ahead"]["ahead"], r["ahead"]["inline"]
        assert np.array_equal(ahead["grads"], inline["grads"])
        assert ahead["report"] == inline["report"] and ahead["report"].flipped_bits > 0
        assert ahead["prepared"] and not inline["prepared"]  # it did prepare the next step
        assert {k[0] for k in ahead["prepared"]} == {PRIVATE_STEPS}


@pytest.mark.parametrize(
    ("config", "d", "drawn"),
    [
        (dict(transport="superdense", pair_fidelity=0.99), 4482, True),  # 359 errors expected
        (dict(transport="superdense", pair_fidelity=0.99), 51_000, True),  # 4,080
        (dict(transport="superdense", pair_fidelity=0.99), 51_300, False),  # 4,104
        (dict(transport="superdense", pair_fidelity=1.0), 4482, False),  # nothing to draw
        (dict(transport="classical"), 4482, False),
        (dict(transport="classical", private=True), 262_144, True),  # pads only: always
        (dict(transport="superdense", pair_fidelity=0.99, private=True), 262_144, False),
    ],
)
def test_next_step_drawn_in_flight_only_when_short(monkeypatch, config, d, drawn):
    """While a bucket's first ring step is in flight the worker prepares the bucket's next step
    (pads always; pair noise while its expected errors (P-1)/P d bits (1-F) <= 4,096), keyed by
    (iteration + 1, bucket, d); entries of finished steps are dropped, this step's are kept."""
    import types

    import qring_edu.ddp as ddp_module

    calls = []
    monkeypatch.setattr(ddp_module, "_prepare", lambda state, *key: calls.append(key) or key)
    cfg = ddp_module.RingHookConfig(**config)
    old, same_step = (3, 0, d), (5, 1, 77)
    state = types.SimpleNamespace(config=cfg, world_size=2, _ahead={old: 0, same_step: 1})
    job = types.SimpleNamespace(iteration=5, bucket_index=2)
    ddp_module._prepare_in_flight(state, job, d)
    assert calls == ([(6, 2, d)] if drawn else [])
    if drawn:
        assert state._ahead == {same_step: 1, (6, 2, d): (6, 2, d)}
        ddp_module._prepare_in_flight(state, job, d)  # prepared already: not again
        assert len(calls) == 1


def _uniformity_pvalue(words: np.ndarray, bits: int = 16) -> float:
    """Chi-squared test of uniformity on 0 .. 2**bits - 1, applied to the top byte and to the
    low byte of the words (256 bins each): the smaller of the two p-values."""
    p = []
    for byte in (words >> (bits - 8), words & 0xFF):
        counts = np.bincount(byte.astype(np.int64), minlength=256)
        p.append(chi2_test(counts).pvalue)
    return float(min(p))


def test_link_words_are_uniform_with_pads_and_not_without(ranks):
    """Every reduce-scatter message crossing a link is a partial sum of at most P - 1 masked
    words: uniform, whatever the gradients (bucket 0 is one constant on every rank). The same
    detector rejects the unmasked words, so it would catch a word sent without its pad."""
    for r in ranks:
        masked, plain = r["tapped"]["private"], r["tapped"]["plain"]
        n = masked["rs"].size
        assert n == plain["rs"].size == TAP_BUCKETS * (P - 1) * (TAP_D // P)
        assert _uniformity_pvalue(masked["rs"]) > P_MIN
        assert _uniformity_pvalue(plain["rs"]) < 1e-12
        # one unmasked message among the 6 of this link is enough to be caught
        spoiled = masked["rs"].copy()
        spoiled[: TAP_D // P] = plain["rs"][: TAP_D // P]
        assert _uniformity_pvalue(spoiled) < 1e-12
        # bucket 0 without pads: all ranks encode 0.25 as the cap m, so the first message is
        # the single word m (the gradient in clear)
        cap = (2**15 - 1) // P
        assert np.all(plain["rs"][: TAP_D // P] == cap)
        assert np.mean(masked["rs"][: TAP_D // P] == cap) < 0.01
        # the all-gather carries the reduced sum, the same words with or without the pads
        assert np.array_equal(masked["ag"], plain["ag"])
        assert masked["messages"] == plain["messages"]  # same schedule, same sizes
        for a, b in zip(masked["results"], plain["results"]):
            assert np.array_equal(a, b)


def test_ghz_source_that_knows_the_pads_is_caught_on_every_rank(ranks):
    for k, r in enumerate(ranks):
        kind, message, value, rep = r["attack"]["tested"]
        assert kind == "ValueError", (kind, message)
        assert "GHZ verification failed" in message and "no gradient word was sent" in message
        assert message == ranks[0]["attack"]["tested"][1]  # the same verdict on every rank
        assert 0 < rep.ghz_tests_failed <= rep.ghz_tested == 50 * 16
        assert rep.online_bits == 0 and rep.data_bits == 0  # refused before the ring
        np.testing.assert_array_equal(value, np.full(50, float(k + 1)))  # bucket untouched
        # without tests the attack goes unnoticed (and the sum is still right)
        kind, message, value, rep = r["attack"]["untested"]
        assert kind == "no error" and rep.ghz_tested == 0
        np.testing.assert_allclose(value, np.full(50, 2.0), rtol=1e-4)


# ------------------------------------------------------------------------------------------
# in-process checks (no process group needed)
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        (dict(transport="quantum"), ValueError, "transport"),
        (dict(bits=1), ValueError, "bits"),
        (dict(bits=40), ValueError, "bits"),
        (dict(bits=16.0), TypeError, "bits"),
        (dict(transport="superdense", pair_fidelity=0.2), ValueError, "pair_fidelity"),
        (dict(transport="classical", pair_fidelity=0.9), ValueError, "pair_fidelity"),
        (dict(seed=-1), ValueError, "seed"),
        (dict(seed=None), TypeError, "seed"),
        (dict(private=1), TypeError, "private"),
        (dict(private=True, test_fraction=1.0), ValueError, "test_fraction"),
        (dict(private=True, test_fraction=-0.1), ValueError, "test_fraction"),
        (dict(private=True, ghz_source="eavesdropper"), ValueError, "ghz_source"),
        (dict(scale="adaptive"), ValueError, "scale"),
        (dict(test_fraction=0.25), ValueError, "private=True"),
        (dict(ghz_source="known_pads"), ValueError, "private=True"),
    ],
)
def test_config_validation(kwargs, exc, words):
    with pytest.raises(exc, match=words):
        RingHookConfig(**kwargs)
    with pytest.raises(exc, match=words):
        RingHookState(**kwargs)


def test_state_needs_initialised_group():
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="init_process_group"):
        RingHookState()


def test_hook_rejects_wrong_state():
    with pytest.raises(TypeError, match="state"):
        ring_hook(object(), _Bucket(torch.zeros(3)))
    with pytest.raises(TypeError, match="state"):
        allreduce_mean_(object(), torch.zeros(3))


def test_state_rejects_a_tap_that_is_not_callable():
    with pytest.raises(TypeError, match="tap"):
        RingHookState(tap=3)


@settings(max_examples=40)
@given(
    st.integers(2, 8),
    st.integers(2, 32),
    st.integers(1, 300),
    st.integers(0, 2**31 - 1),
    st.sampled_from([np.float32, np.float64]),
)
def test_in_place_encode_and_decode_equal_the_fixed_point_code(P, bits, d, seed, dtype):
    """The worker's buffer-reusing encode/decode are FixedPoint.encode/decode, bit for bit
    (ties included: some entries sit exactly on a half step)."""
    if (2 ** (bits - 1) - 1) // P < 1:
        return
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, d).astype(dtype)
    codec = fixed_point(P, bits, float(np.abs(x).max()) or 1.0)
    half = np.arange(d) % 5 == 0
    x[half] = (
        ((np.round(x[half] * codec.scale) + 0.5) / codec.scale)
        .clip(-codec.max_abs, codec.max_abs)
        .astype(dtype)
    )
    wire = np.dtype(f"u{(8 if bits <= 8 else 16 if bits <= 16 else 32) // 8}")  # as the hook
    for width in {wire, np.dtype(np.uint32)}:
        scratch, words = np.empty(d), np.empty(d, dtype=width)
        _encode_into(codec, x, scratch, words)
        assert np.array_equal(words, codec.encode(x))
        summed = ((words.astype(np.uint64) * 3) & word_mask(bits)).astype(width)  # any residues
        expected = codec.decode(summed.astype(np.uint32))
        out = np.empty(d)
        _decode_into(codec, summed, out)
        assert np.array_equal(out, expected)


def test_launcher_lives_in_its_own_module_and_needs_no_torch_in_the_parent():
    from qring_edu import ddp, launch

    assert ddp.launch_local is launch.launch_local
    assert 0 < launch.free_port() < 65536
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
        "import qring_edu\n"
        "try:\n    import qring_edu.ddp\nexcept ImportError:\n    print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_ddp_demo_private_run_equals_the_classical_run():
    demo = ddp_demo(world_size=2, pair_fidelities=(), steps=4, private=True, seed=1)
    assert demo.labels == ("built-in", "classical", "private")
    assert np.array_equal(demo.losses["private"], demo.losses["classical"])
    assert demo.grad_error["private"] == demo.grad_error["classical"] > 0
    assert demo.divergence["private"] == 0.0
    for rep in demo.reports["private"]:
        assert rep.private and rep.ghz_used == rep.ghz_tested == 4 * demo.n_params * 16
    # the chapter's table of it: one row per (run, link), GHZ copies only in the private run
    from qring_edu.experiments.training import ddp_private_table

    table = ddp_private_table(demo)
    assert [row[0] for row in table.rows] == ["classical"] * 2 + ["private"] * 2
    for (_, link, bits, used, tested, failed), rep in zip(
        table.rows, demo.reports["classical"] + demo.reports["private"]
    ):
        assert link == f"{rep.link[0]}->{rep.link[1]}" and bits == rep.online_bits > 0
        assert (used, tested, failed) == (rep.ghz_used, rep.ghz_tested, 0)
    assert table.rows[0][3] == 0 and table.rows[2][3] == 4 * demo.n_params * 16
    assert table.rows[0][2] == table.rows[2][2]  # the pads cost no online bit
    with pytest.raises(TypeError, match="private"):
        ddp_demo(private="yes")


def test_example_script_trains_and_prints_its_ledger():
    """examples/ddp_train.py --private under torchrun (2 processes, 1 epoch): it trains and each
    rank's ledger equals 6 steps x 2(P-1)(d/P) words x 16 bits, d = 4482 parameters, and
    6 x d x 16 qubit GHZ copies used for pads, as many tested."""
    script = Path(__file__).resolve().parent.parent / "examples" / "ddp_train.py"
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node=2",
        str(script),
        "--epochs",
        "1",
        "--samples",
        "400",
        "--private",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert any(line.startswith("epoch 1: mean training loss") for line in lines), out.stdout
    assert "6 steps per epoch" in lines[0] and "4482 parameters" in lines[0]
    assert "private (GHZ pads)" in lines[0]
    per_link = 6 * 2 * (2 - 1) * (4482 // 2) * 16
    ghz = 6 * 4482 * 16
    ledger = [line for line in lines if line.strip().startswith("rank ")]
    assert len(ledger) == 2
    for line in ledger:
        assert f"online bits {per_link:,}," in line and "flipped bits 0," in line
        assert f"GHZ copies used {ghz:,}, tested {ghz:,} (6 buckets, 6 steps)" in line
    assert "replica divergence max|w_k - w_0| = 0" in out.stdout


# ------------------------------------------------------------------------------------------
# ring_average: one all-reduce over P fresh processes; the docstring examples
# ------------------------------------------------------------------------------------------


def test_ring_average_equals_the_single_process_ring_and_taps_the_links():
    rows = np.random.default_rng(5).normal(size=(3, 10))
    res = ring_average(rows, private=True, tap=True, seed=2)
    plain = ring_average(rows, tap=True)
    expected = ring_allreduce(rows, bits=16, max_abs=float(np.abs(rows).max())).outputs[0] / 3
    for k in range(3):  # every rank holds the single-process ring's average, bit for bit
        assert np.array_equal(res.averages[k], expected)
        assert np.array_equal(plain.averages[k], expected)
    assert [r.link for r in res.reports] == [(2, 0), (0, 1), (1, 2)]
    assert all(r.private and r.ghz_used == r.ghz_tested == 10 * 16 for r in res.reports)
    assert not any(r.private or r.ghz_used for r in plain.reports)
    assert [len(t) for t in res.tapped] == [4, 4, 4] == [len(t) for t in plain.tapped]
    # the first message rank 0 receives is a chunk of rank 2's words: in clear without pads,
    # masked with them
    first, first_plain = res.tapped[0][0], plain.tapped[0][0]
    assert (first.step, first.sender, first.phase) == (0, 2, "reduce-scatter")
    codec = fixed_point(3, 16, float(np.abs(rows).max()))
    bounds = chunk_bounds(10, 3)
    chunk = [
        c
        for c in range(3)
        if bounds[c + 1] - bounds[c] == first.words.size
        and np.array_equal(first_plain.words, codec.encode(rows[2])[bounds[c] : bounds[c + 1]])
    ]
    assert len(chunk) == 1
    assert not np.array_equal(first.words, first_plain.words)
    assert repr(res) == "RingAverage(P=3, d=10, transport='classical', private=True)"


@pytest.mark.parametrize(
    "rows, kwargs, exc, words",
    [
        ([1.0, 2.0], {}, ValueError, "2-D"),
        ([[1.0, 2.0]], {}, ValueError, "number of ranks"),
        ([[1.0]] * 9, {}, ValueError, "number of ranks"),
        (np.zeros((2, 0)), {}, ValueError, "entries per rank"),
        ([[1.0, np.nan], [0.0, 0.0]], {}, ValueError, "finite"),
        ([["a"], ["b"]], {}, TypeError, "real numbers"),
        ([[1.0], [2.0]], dict(tap=1), TypeError, "tap"),
        ([[1.0], [2.0]], dict(transport="quantum"), ValueError, "transport"),
        ([[1.0], [2.0]], dict(timeout=0), ValueError, "timeout"),
    ],
)
def test_ring_average_bad_input(rows, kwargs, exc, words):
    with pytest.raises(exc, match=words):
        ring_average(rows, **kwargs)


def test_doctests_of_ddp_and_launch():
    """The Examples of every public name of qring_edu.ddp and qring_edu.launch run (several
    start processes: ring_average, ddp_demo, launch_local)."""
    import doctest

    from qring_edu import ddp, launch

    for module, at_least in ((ddp, 12), (launch, 2)):
        result = doctest.testmod(module, raise_on_error=False, verbose=False)
        assert result.failed == 0 and result.attempted >= at_least, (module, result)
    public = [getattr(ddp, n) for n in ddp.__all__ if callable(getattr(ddp, n))]
    assert all(">>>" in (obj.__doc__ or "") for obj in public), [
        obj.__name__ for obj in public if ">>>" not in (obj.__doc__ or "")
    ]


@pytest.mark.parametrize("workers, bits", [(3, 12), (2, 16), (4, 8), (3, 32), (5, 7)])
def test_private_pads_are_the_documented_zero_sum_draw_in_pooled_wire_buffers(workers, bits):
    """The pads of a bucket, rebuilt here from the generator's raw 64-bit outputs block by
    block as _own_pads documents (rows 0 .. P-2 the low ``bits`` bits of little-endian wire
    words, row P-1 closing the sum); over the ranks they sum to 0 mod 2**bits, every word is
    in range, each bit of the free rows is fair; the buffer goes back to the state's pool and
    is reused for the next bucket of that size."""
    from types import SimpleNamespace

    from qring_edu.ddp import _PAD_BLOCK, _own_pads, _Prepared, _release_pads, _wire_dtype

    d = 2 * _PAD_BLOCK + 5
    unsigned = _wire_dtype(bits)[0]
    states = [
        SimpleNamespace(world_size=workers, rank=r, config=SimpleNamespace(bits=bits), _pad_pool={})
        for r in range(workers)
    ]
    rows = [_own_pads(st, np.random.default_rng(9), d) for st in states]
    assert all(row.dtype == unsigned and row.shape == (d,) for row in rows)
    assert np.all(np.sum(rows, axis=0, dtype=np.uint64) % 2**bits == 0)
    assert max(int(row.max()) for row in rows) < 2**bits

    rng = np.random.default_rng(9)  # the documented draw, from scratch
    free = []
    for lo in range(0, d, _PAD_BLOCK):
        n = min(_PAD_BLOCK, d - lo)
        per_output = 8 // unsigned.itemsize
        raw = rng.bit_generator.random_raw(-(-(workers - 1) * n // per_output))
        words = raw.astype("<u8").view(unsigned.newbyteorder("<"))[: (workers - 1) * n]
        free.append(words.reshape(workers - 1, n) & (2**bits - 1))
    free = np.concatenate(free, axis=1).astype(np.uint64)
    for r in range(workers - 1):
        assert np.array_equal(rows[r], free[r])
    assert np.array_equal(rows[-1], (-free.sum(axis=0)) % 2**bits)
    ones = np.unpackbits(free.astype(">u4").view(np.uint8)).reshape(-1, 32)[:, 32 - bits :]
    assert np.all(np.abs(ones.mean(axis=0) - 0.5) < 5 * 0.5 / np.sqrt(ones.shape[0]))

    prepared = _Prepared(d, pad=rows[0])
    _release_pads(states[0], prepared)
    assert prepared.pad is None
    again = _own_pads(states[0], np.random.default_rng(9), d)
    assert again is rows[0]  # the same buffer, refilled with the same pads
    assert np.array_equal(again, free[0])


@pytest.mark.parametrize(
    "bits, kind", [(16, np.int16), (8, np.int8), (32, np.int32), (10, np.int16), (7, np.int8)]
)
@pytest.mark.parametrize("n_words, F", [(1, 0.5), (3, 0.9), (1000, 0.99), (132_609, 0.99)])
def test_message_noise_is_the_documented_draw(bits, kind, n_words, F):
    """The superdense hook's noise of one message, from scratch: pauli_frames of ceil(k / 2)
    symbols, their flipped stream bits (x = 2j, z = 2j + 1, the padding bit dropped), one OR
    mask per hit word (stream bit p = bit p mod b of word p div b)."""
    from qring_edu.ddp import _message_noise
    from qring_edu.superdense import flipped_bit_positions, pauli_frames, symbols_needed

    n_bits = n_words * bits
    positions, frames = pauli_frames(symbols_needed(n_bits), F, np.random.default_rng(n_words))
    flips = np.sort(flipped_bit_positions(positions, frames))
    flips = flips[flips < n_bits]
    want = {}
    for f in flips.tolist():
        want[f // bits] = want.get(f // bits, 0) | (1 << (f % bits))
    index, masks, flipped = _message_noise(n_bits, bits, F, np.random.default_rng(n_words), kind)
    assert flipped == flips.size and masks.dtype == kind
    assert index.tolist() == sorted(want)
    assert [int(m) & ((1 << bits) - 1) for m in masks.tolist()] == [want[w] for w in sorted(want)]


def test_exact_scale_sends_the_header_before_every_ring(ranks):
    """With scale="exact" every step issues the header collective and uses the exact maximum:
    the single-process ring at max_abs = max |g| over the ranks, bit for bit, nothing resent."""
    for t in range(3):
        stack = np.array([r["exact"]["steps"][t]["x"] for r in ranks])
        ref = ring_allreduce(
            stack, transport="classical", bits=16, max_abs=float(np.abs(stack).max())
        )
        for r in ranks:
            assert r["exact"]["steps"][t]["collectives"] == 1
            assert np.array_equal(r["exact"]["steps"][t]["result"], ref.outputs[0] / P)
    for r in ranks:
        rep = r["exact"]["report"]
        assert rep.rescaled == 0 and rep.buckets == 3
        assert rep.side_bits == 3 * 64 * sum(_link_messages(HEADER_WORDS, P, rep.link[0]))
        assert "scale='exact'" in r["exact"]["repr"]


def test_workers_stop_before_the_interpreter_finalizes():
    """The hook's atexit handler stops every worker thread: a daemon worker that re-enters Python
    from a torch call (completing a future) while the interpreter finalizes aborts the process.
    The worker finishes what is queued (here a synchronize marker), then ends and unregisters."""
    import queue as queue_module

    from qring_edu import ddp as ddp_module

    jobs: queue_module.SimpleQueue = queue_module.SimpleQueue()
    marker: torch.futures.Future = torch.futures.Future()
    jobs.put(marker)
    thread = threading.Thread(target=ddp_module._worker_loop, args=(jobs,), daemon=True)
    ddp_module._WORKERS[thread] = jobs
    thread.start()
    ddp_module._stop_workers_at_exit()
    assert not thread.is_alive() and marker.done()
    assert thread not in ddp_module._WORKERS
