"""Train a small network data-parallel with PyTorch DDP over the (quantum) ring all-reduce.

One machine, four processes (CPU, gloo backend)::

    torchrun --nproc_per_node=4 examples/ddp_train.py
    torchrun --nproc_per_node=4 examples/ddp_train.py --transport superdense --fidelity 0.99
    torchrun --nproc_per_node=4 examples/ddp_train.py --transport builtin  # gloo's all-reduce
    torchrun --nproc_per_node=4 examples/ddp_train.py --private  # gradients masked by pads
    torchrun --nproc_per_node=4 examples/ddp_train.py --powersgd 1 --transport superdense

(From a checkout with ``make venv`` done, call ``.venv/bin/torchrun``.) Several machines: run the
same command on every machine, adding where the rendezvous is and which machine this is, e.g. two
machines with four processes each, the first at 10.0.0.1::

    # on machine 0                                  # on machine 1
    torchrun --nnodes=2 --node_rank=0 \\             torchrun --nnodes=2 --node_rank=1 \\
      --master_addr=10.0.0.1 --master_port=29500 \\    --master_addr=10.0.0.1 --master_port=29500 \\
      --nproc_per_node=4 examples/ddp_train.py         --nproc_per_node=4 examples/ddp_train.py

(set ``GLOO_SOCKET_IFNAME`` to the network interface if the machines have several). The ring
then spans all eight processes: rank r sends to r + 1 and receives from r - 1, across machines
where the ring crosses them.

What it does. Every rank builds the same 2-64-64-2 tanh MLP (same seed; DDP also broadcasts rank
0's weights), generates the same two-moons data set (``qring_edu.make_moons``) and keeps every
P-th point. Each epoch it shuffles its shard (seed, epoch, rank) and takes SGD steps on
mini-batches; DDP hands each gradient bucket to ``qring_edu.ddp.ring_hook``, which averages it
over the ring in fixed point with the chosen transport (``--transport builtin`` skips the hook).
Rank 0 prints the mean training loss over all ranks and the accuracy of its replica after every
epoch, then every rank's ledger for its incoming link and how far the replicas drifted apart
(0 unless noisy pairs corrupted the all-gather).

``--private`` masks every bucket with zero-sum pads before it enters the ring
(``RingHookState(private=True)``; the pads stand for what GHZ registers give and are *simulated*
from the shared seed, each rank using only its own row): no link carries a rank's gradient words
in clear, and the training is bit for bit the unmasked one. The ledger then also lists the qubit
GHZ copies each rank's pads used.

``--powersgd RANK`` registers torch's own PowerSGD hook instead, its low-rank factors carried
over the ring (``PowerSGDState(process_group=RingGroup(state), ...)``; over gloo with
``--transport builtin``).
"""

from __future__ import annotations

import argparse
import datetime
import time

import numpy as np
import torch
import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powerSGD
from torch.nn.parallel import DistributedDataParallel

from qring_edu.ddp import RingGroup, RingHookState, gather_reports, ring_hook
from qring_edu.training import make_moons


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--transport",
        choices=("classical", "superdense", "builtin"),
        default="classical",
        help="all-reduce of the gradients (default classical)",
    )
    p.add_argument(
        "--fidelity",
        type=float,
        default=None,
        help="pair fidelity F in [0.25, 1] (superdense only; default: perfect pairs)",
    )
    p.add_argument("--bits", type=int, default=16, help="fixed-point word size (default 16)")
    p.add_argument(
        "--private",
        action="store_true",
        help="mask the gradients with zero-sum pads (simulated GHZ states)",
    )
    p.add_argument(
        "--powersgd",
        type=int,
        default=None,
        metavar="RANK",
        help="torch's PowerSGD hook at this rank, its factors over the ring",
    )
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--samples", type=int, default=4000, help="two-moons points in total")
    p.add_argument("--batch-size", type=int, default=32, help="per rank")
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="process-group timeout in seconds: no rank waits longer for a peer",
    )
    args = p.parse_args(argv)
    if args.private and (args.transport == "builtin" or args.powersgd is not None):
        p.error("--private needs the ring hook: --transport classical or superdense")
    if args.fidelity is not None and args.transport != "superdense":
        p.error("--fidelity goes with --transport superdense only")
    return args


def build_model(seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(2, 64),
        torch.nn.Tanh(),
        torch.nn.Linear(64, 64),
        torch.nn.Tanh(),
        torch.nn.Linear(64, 2),
    )


def main(argv=None) -> None:
    args = parse_args(argv)
    # torchrun provides RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT in the environment.
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(1)

    X, y = make_moons(args.samples, noise=0.15, seed=args.seed)
    X, y = torch.from_numpy(X).float(), torch.from_numpy(y)
    shard = torch.arange(rank, args.samples, world)[: args.samples // world]  # equal sizes

    net = build_model(args.seed)
    model = DistributedDataParallel(net)
    state = None
    if args.transport != "builtin":
        link = {} if args.fidelity is None else {"pair_fidelity": args.fidelity}
        state = RingHookState(
            transport=args.transport, bits=args.bits, seed=args.seed, private=args.private, **link
        )
    if args.powersgd is not None:  # torch's own PowerSGD, its all-reduces over the ring
        group = RingGroup(state) if state is not None else dist.group.WORLD
        options = powerSGD.PowerSGDState(
            group, matrix_approximation_rank=args.powersgd, start_powerSGD_iter=10
        )
        model.register_comm_hook(options, powerSGD.powerSGD_hook)
    elif state is not None:
        model.register_comm_hook(state, ring_hook)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    steps = shard.numel() // args.batch_size

    if rank == 0:
        print(
            f"P = {world} ranks, transport {args.transport}"
            + (f", F = {args.fidelity:g}" if args.fidelity is not None else "")
            + (f", {args.bits}-bit words" if state is not None else "")
            + (", private (zero-sum pads)" if args.private else "")
            + (f", PowerSGD rank {args.powersgd}" if args.powersgd is not None else "")
            + f", {sum(p.numel() for p in net.parameters())} parameters, "
            f"{steps} steps per epoch",
            flush=True,
        )
    t0 = time.perf_counter()
    for epoch in range(args.epochs):
        order = np.random.default_rng([args.seed, epoch, rank]).permutation(shard.numel())
        total = torch.zeros(1, dtype=torch.float64)
        for i in range(steps):
            idx = shard[torch.from_numpy(order[i * args.batch_size : (i + 1) * args.batch_size])]
            opt.zero_grad()
            loss = loss_fn(model(X[idx]), y[idx])
            loss.backward()  # DDP all-reduces the gradient buckets here (through the hook)
            opt.step()
            total += loss.item()
        dist.all_reduce(total)  # reporting only, outside the hook: sum of the ranks' losses
        with torch.no_grad():
            acc = float((net(X).argmax(dim=1) == y).double().mean())
        if rank == 0:
            print(
                f"epoch {epoch + 1}: mean training loss {float(total) / (world * steps):.4f}, "
                f"accuracy of rank 0's replica {acc:.3f}",
                flush=True,
            )
    elapsed = time.perf_counter() - t0

    # How far the replicas drifted apart (reporting only).
    flat = torch.cat([p.detach().reshape(-1) for p in net.parameters()])
    replicas = [torch.empty_like(flat) for _ in range(world)]
    dist.all_gather(replicas, flat)
    drift = max(float((r - replicas[0]).abs().max()) for r in replicas)
    reports = gather_reports(state) if state is not None else None
    if rank == 0:
        print(f"training took {elapsed:.2f} s; replica divergence max|w_k - w_0| = {drift:.3g}")
        if reports is not None:
            print("ledger per incoming link (whole run):")
            for rep in reports:
                print(
                    f"  rank {rep.rank} link {rep.link}: online bits {rep.online_bits:,}, "
                    f"online qubits {rep.online_qubits:,}, Bell pairs {rep.ebits:,}, "
                    f"offline qubits {rep.offline_qubits:,}, side-information bits "
                    f"{rep.side_bits:,}, flipped bits {rep.flipped_bits:,}"
                    + (f", GHZ copies {rep.ghz_copies:,}" if args.private else "")
                    + f" ({rep.buckets} all-reduces)"
                )
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
