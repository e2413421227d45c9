"""Exercise checkers of chapter 1, *The communication bottleneck* (presentation floor).

Each ``check_<name>(answer, ...)`` compares a student's answer with the library's own computation
(:func:`qring_edu.ring_schedule`, the ledger of :func:`qring_edu.ring_allreduce`,
:mod:`qring_edu.costmodel`) and returns a :class:`~qring_edu.exercises._base.Feedback`.
``answer=None`` means "not attempted"; strings, booleans, arrays and other non-numbers fail with a
hint and never raise. The *other* arguments describe the exercise (set by the book or the
instructor) and are validated like library arguments (``ValueError``/``TypeError``).
"""

from __future__ import annotations

import numpy as np

from .._validate import check_bits, check_choice, check_float, check_int
from ..costmodel import MODEL_SIZES, allreduce_lower_bound_bits, parameter_server_time, ring_time
from ..ring import ring_allreduce, ring_schedule
from ._base import Feedback, as_integer, as_number, close, failed, passed

__all__ = [
    "check_chunk_sent",
    "check_link_bits",
    "check_ring_vs_ps_speedup",
    "check_model_comm_time",
    "RELATIVE_TOLERANCE",
]

#: Relative tolerance of the checkers whose answers are real numbers (1 %: rounding is fine,
#: a wrong formula is not).
RELATIVE_TOLERANCE = 0.01

#: Largest P * d for which :func:`check_link_bits` runs the ring itself (zeros of shape (P, d)).
_MAX_RUN_SIZE = 4_000_000


def _close(value: float, expected: float, rel: float = RELATIVE_TOLERANCE) -> bool:
    return close(value, expected, rel=rel)


# ---------------------------------------------------------------------------------------------
def check_chunk_sent(answer, P: int = 5, k: int = 3, s: int = 2,
                     phase: str = "reduce-scatter") -> Feedback:
    """Which chunk does worker ``k`` send at step ``s`` (0 .. P-2) of ``phase``?

    Reference: the message of :func:`qring_edu.ring_schedule` with that sender and step
    (reduce-scatter: (k - s) mod P; all-gather: (k + 1 - s) mod P). Exact integer answer.
    """
    P = check_int(P, "P (number of workers)", 2)
    k = check_int(k, "k", 0, P - 1)
    s = check_int(s, "s", 0, P - 2)
    phase = check_choice(phase, "phase", ("reduce-scatter", "all-gather"))
    what = f"chunk sent by worker {k} at {phase} step {s} (P = {P})"
    value, fb = as_integer(answer, what)
    if fb is not None:
        return fb
    global_step = s if phase == "reduce-scatter" else P - 1 + s
    expected = next(m.chunk for m in ring_schedule(P)
                    if m.sender == k and m.step == global_step)
    if value == expected:
        return passed(f"{what}: correct, chunk {expected}.")
    if not 0 <= value < P:
        return failed(f"{what}: chunks are numbered 0 .. {P - 1}; reduce your answer mod P.")
    if phase == "reduce-scatter" and value == (k + s) % P:
        return failed(f"{what}: {value} is not right. Chunks travel forward (k -> k+1), so the "
                      "chunk a worker forwards moves *backwards* in index as s grows.")
    if phase == "reduce-scatter" and value == (k + 1 - s) % P:
        return failed(f"{what}: {value} is the all-gather chunk. In reduce-scatter worker k "
                      "starts by sending its own-index chunk k.")
    if phase == "all-gather" and value == (k - s) % P:
        return failed(f"{what}: {value} is the reduce-scatter chunk. In all-gather worker k "
                      "starts by sending the chunk it has fully reduced, (k + 1) mod P.")
    return failed(f"{what}: {value} is not right. Hint: worker k sends at step 0 the chunk it "
                  "owns for this phase, then passes on each step what it received the step before.")


# ---------------------------------------------------------------------------------------------
def check_link_bits(answer, P: int = 6, d: int = 1200, bits: int = 16) -> Feedback:
    """Bits sent over the busiest directed link during one classical ring all-reduce of
    ``d`` words of ``bits`` bits on ``P`` workers.

    Reference: ``ledger.online_bits()`` of :func:`qring_edu.ring_allreduce` run on zero
    gradients of shape (P, d) (P * d <= 4e6). Exact integer answer (tolerance 0).
    When P | d it equals 2 (P-1) (d/P) bits.
    """
    P = check_int(P, "P (number of workers)", 2)
    d = check_int(d, "d", 1)
    bits = check_bits(bits)
    if P * d > _MAX_RUN_SIZE:
        raise ValueError(f"P * d must be <= {_MAX_RUN_SIZE} for this checker, got {P * d}")
    what = f"bits on the busiest link (P = {P}, d = {d}, b = {bits})"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    ledger = ring_allreduce(np.zeros((P, d), dtype=np.int64), bits=bits).ledger
    expected = ledger.online_bits()
    if value == expected:
        return passed(f"{what}: correct, {expected} bits.")
    chunk = -(-d // P)
    if _close(value, 2 * (P - 1) * d * bits, 1e-9):
        return failed(f"{what}: {value:g} counts whole vectors. Each message is one chunk of "
                      "about d/P words, not the whole gradient.")
    if _close(value, (P - 1) * chunk * bits, 1e-9) or _close(value, (P - 1) * d / P * bits, 1e-9):
        return failed(f"{what}: {value:g} counts only one phase; there are P-1 reduce-scatter "
                      "steps and P-1 all-gather steps.")
    if _close(value, 2 * (P - 1) * chunk, 1e-9) or _close(value, 2 * (P - 1) * d / P, 1e-9):
        return failed(f"{what}: {value:g} looks like words, not bits: multiply by b = {bits}.")
    if d % P and _close(value, allreduce_lower_bound_bits(P, d, bits), 1e-9):
        return failed(f"{what}: {value:g} is the lower bound 2(P-1)/P·d·b, but P does not "
                      "divide d: chunk sizes differ by one, and the busiest link sends some "
                      "of the longer chunks.")
    return failed(f"{what}: {value:g} is not right. Count the 2(P-1) messages one link sends "
                  "and the size of each (see chunk_bounds).")


# ---------------------------------------------------------------------------------------------
def check_ring_vs_ps_speedup(answer, P: int = 16, d: int = 25_557_032, bits: int = 32,
                             alpha: float = 10e-6, beta: float = 1e-11) -> Feedback:
    """Speed-up of the ring over a single parameter server in the α–β model:
    ``parameter_server_time / ring_time`` (:mod:`qring_edu.costmodel`).

    ``alpha`` in seconds per message, ``beta`` in seconds per bit. Relative tolerance 1 %.
    """
    P = check_int(P, "P (number of workers)", 2)
    d = check_int(d, "d", 1)
    bits = check_bits(bits)
    alpha = check_float(alpha, "alpha", 0.0)
    beta = check_float(beta, "beta", 0.0, lo_open=True)
    what = f"parameter-server time / ring time (P = {P})"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    t_ps = parameter_server_time(P, d, bits, alpha, beta)
    t_ring = ring_time(P, d, bits, alpha, beta)
    expected = t_ps / t_ring
    if _close(value, expected):
        return passed(f"{what}: correct, {expected:.3f} (your {value:.4g}; tolerance 1 %).")
    if value > 0 and _close(1 / value, expected):
        return failed(f"{what}: {value:.4g} is the inverse ratio: divide the server's time by "
                      "the ring's.")
    no_latency = (parameter_server_time(P, d, bits, 0.0, beta)
                  / ring_time(P, d, bits, 0.0, beta))
    if alpha > 0 and _close(value, no_latency):
        return failed(f"{what}: {value:.4g} ignores the latency α: the ring pays it 2(P-1) "
                      "times, the server only twice.")
    if _close(value, P / 2) or _close(value, float(P)):
        return failed(f"{what}: {value:.4g} is a large-d limit. Use the exact formulas "
                      "2(α + P·d·b·β) and 2(P-1)(α + ⌈d/P⌉·b·β).")
    return failed(f"{what}: {value:.4g} is not right (tolerance 1 %). Server: 2(α + P·d·b·β); "
                  "ring: 2(P-1)(α + ⌈d/P⌉·b·β).")


# ---------------------------------------------------------------------------------------------
def check_model_comm_time(answer, model: str = "GPT-2 XL", P: int = 32, bits: int = 16,
                          alpha: float = 10e-6, bandwidth_gbps: float = 100.0) -> Feedback:
    """Seconds one ring all-reduce of ``model``'s gradient takes (α–β model,
    :func:`qring_edu.ring_time`, d = ``MODEL_SIZES[model]``, beta = 1 / (bandwidth · 1e9)).

    ``alpha`` in seconds; answer in seconds; relative tolerance 1 %.
    """
    model = check_choice(model, "model", tuple(MODEL_SIZES))
    P = check_int(P, "P (number of workers)", 2)
    bits = check_bits(bits)
    alpha = check_float(alpha, "alpha", 0.0)
    bandwidth_gbps = check_float(bandwidth_gbps, "bandwidth_gbps", 0.0, lo_open=True)
    what = f"ring all-reduce time of {model} in seconds (P = {P}, {bits}-bit words)"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    d = MODEL_SIZES[model]
    beta = 1.0 / (bandwidth_gbps * 1e9)
    expected = ring_time(P, d, bits, alpha, beta)
    if _close(value, expected):
        return passed(f"{what}: correct, {expected:.4g} s (your {value:.4g}; tolerance 1 %).")
    for factor, hint in ((1e3, "milliseconds; the answer is in seconds"),
                         (1 / 8, "bytes instead of bits (or bits instead of bytes)"),
                         (8, "bytes instead of bits (or bits instead of bytes)")):
        if _close(value, expected * factor):
            return failed(f"{what}: {value:.4g} looks like {hint}.")
    if _close(value, parameter_server_time(P, d, bits, alpha, beta)):
        return failed(f"{what}: {value:.4g} is the parameter server's time, not the ring's.")
    if _close(value, d * bits * beta) or _close(value, d * bits * beta + alpha):
        return failed(f"{what}: {value:.4g} sends one copy of the gradient; each link carries "
                      "2(P-1) chunks of d/P words.")
    return failed(f"{what}: {value:.4g} is not right (tolerance 1 %). Use "
                  "T = 2(P-1)(α + ⌈d/P⌉·b·β) with β = 1/bandwidth in s/bit.")
