"""Start P local processes joined by a gloo process group (tests, the book, ``bench/``): the only
module that starts processes. Only the children import torch (``pip install "qring_edu[torch]"``).
"""

from __future__ import annotations

import os
import pickle
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._validate import check_float, check_int

__all__ = ["free_port", "launch_local"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it: bind to port 0); if
    another process takes it first, the rendezvous fails ("address in use"), never joins the
    wrong group.

    Examples
    --------
    >>> 0 < free_port() < 65536
    True
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _child_main(payload_path: str, result_path: str) -> None:
    """Entry point of each process started by :func:`launch_local` (``python -c``)."""
    import datetime  # noqa: PLC0415

    import torch  # noqa: PLC0415  (only the children need torch)
    import torch.distributed as dist  # noqa: PLC0415

    payload = pickle.loads(Path(payload_path).read_bytes())
    sys.path[:] = payload["sys_path"]  # so that ``fn``'s module imports as in the parent
    fn, args = pickle.loads(payload["call"])
    rank, world_size = payload["rank"], payload["world_size"]
    torch.set_num_threads(1)  # P processes share the machine's cores
    dist.init_process_group(
        "gloo",
        init_method=f"tcp://127.0.0.1:{payload['port']}",
        rank=rank,
        world_size=world_size,
        timeout=datetime.timedelta(seconds=payload["pg_timeout"]),
    )
    try:
        value = fn(rank, world_size, *args)
    finally:
        dist.destroy_process_group()
    tmp = result_path + ".tmp"
    Path(tmp).write_bytes(pickle.dumps(value))
    os.replace(tmp, result_path)  # the parent never reads a half-written result


def launch_local(
    fn: Callable[..., Any],
    world_size: int,
    args: tuple = (),
    *,
    timeout: float = 120.0,
    pg_timeout: float = 30.0,
) -> list[Any]:
    """Run ``fn(rank, world_size, *args)`` in ``world_size`` (>= 2) fresh Python processes
    joined by gloo; return the results in rank order.

    Each rank is a new interpreter (``python -c``: the caller's ``__main__`` is never re-run, so
    this works from scripts, pytest and notebooks) with the caller's ``sys.path`` and one torch
    thread, joined on a :func:`free_port` (peers time out after ``pg_timeout`` s). ``fn``: a
    module-level function of an importable module; ``args`` and results must pickle. A failing
    rank raises ``RuntimeError`` with its output, a late one (``timeout`` s) ``TimeoutError``;
    either way every remaining process is killed.

    Examples
    --------
    >>> launch_local(pow, 3, (10,))  # rank r returns pow(r, 3, 10) = r**3 mod 10
    [0, 1, 8]
    """
    world_size = check_int(world_size, "world_size", 2)
    timeout = check_float(timeout, "timeout", 0.0, lo_open=True)
    pg_timeout = check_float(pg_timeout, "pg_timeout", 0.0, lo_open=True)
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    common = {
        "sys_path": list(sys.path),
        "call": pickle.dumps((fn, tuple(args))),
        "world_size": world_size,
        "port": free_port(),
        "pg_timeout": pg_timeout,
    }
    with tempfile.TemporaryDirectory(prefix="qring_ddp_") as tmp:
        procs, logs, results = [], [], []
        try:
            for rank in range(world_size):
                payload = os.path.join(tmp, f"payload{rank}.pkl")
                Path(payload).write_bytes(pickle.dumps({**common, "rank": rank}))
                results.append(os.path.join(tmp, f"result{rank}.pkl"))
                log = open(os.path.join(tmp, f"log{rank}.txt"), "wb")
                logs.append(log)
                code = (
                    f"from qring_edu.launch import _child_main; "
                    f"_child_main({payload!r}, {results[rank]!r})"
                )
                cmd = [sys.executable, "-c", code]
                procs.append(subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT))
            deadline = time.monotonic() + timeout
            while any(p.poll() is None for p in procs):
                failed = [k for k, p in enumerate(procs) if p.poll() not in (None, 0)]
                if failed:
                    raise _failure(failed[0], procs, logs)
                if time.monotonic() > deadline:
                    late = [k for k, p in enumerate(procs) if p.poll() is None]
                    raise TimeoutError(
                        f"launch_local: rank(s) {late} did not finish within "
                        f"timeout = {timeout:g} s"
                    )
                time.sleep(0.02)
            for k, p in enumerate(procs):
                if p.returncode != 0 or not os.path.exists(results[k]):
                    raise _failure(k, procs, logs)
            return [pickle.loads(Path(path).read_bytes()) for path in results]
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                p.wait()
            for log in logs:
                log.close()


def _failure(k: int, procs, logs, lines: int = 40) -> RuntimeError:
    """The error of rank ``k``: its exit code and the last ``lines`` lines of its output."""
    with open(logs[k].name, "rb") as f:
        tail = "\n".join(f.read().decode(errors="replace").splitlines()[-lines:])
    return RuntimeError(f"launch_local: rank {k} failed (exit code {procs[k].returncode}):\n{tail}")
