"""Exercise checkers of chapter 1, *The communication bottleneck* (presentation floor). The rules
every checker keeps are in :mod:`~qring_edu.exercises._base`.

The library's own computation is :func:`qring_edu.ring_schedule`, the ledger of
:func:`qring_edu.ring_allreduce` and :mod:`qring_edu.costmodel`. The code-graded
:func:`check_ring_code` and :func:`check_ring_time_code` take the reader's *function*.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._validate import check_bits, check_choice, check_float, check_int
from ..costmodel import (
    MODEL_SIZES,
    allreduce_lower_bound_bits,
    bucketed_iteration_time,
    parameter_server_time,
    ring_time,
)
from ..ring import chunk_bounds, message_bits, ring_allreduce, ring_schedule
from ._base import Feedback, as_integer, as_number, call_reader, failed, grade, passed

__all__ = [
    "check_chunk_sent",
    "check_link_bits",
    "check_ring_vs_ps_speedup",
    "check_model_comm_time",
    "check_ring_code",
    "check_ring_time_code",
    "check_overlap_tail",
    "check_bidirectional_link_bits",
    "check_latency_crossover",
    "RING_CODE_CASES",
    "RING_TIME_CASES",
    "RELATIVE_TOLERANCE",
]

#: Relative tolerance of the checkers whose answers are real numbers (1 %: rounding is fine,
#: a wrong formula is not).
RELATIVE_TOLERANCE = 0.01

#: Largest P * d for which :func:`check_link_bits` runs the ring itself (zeros of shape (P, d)).
_MAX_RUN_SIZE = 4_000_000


def check_chunk_sent(
    answer, P: int = 5, k: int = 3, s: int = 2, phase: str = "reduce-scatter"
) -> Feedback:
    """Which chunk does worker ``k`` send at step ``s`` (0 .. P-2) of ``phase``? Reduce-scatter:
    (k - s) mod P; all-gather: (k + 1 - s) mod P (:func:`qring_edu.ring_schedule`). Exact.

    Examples
    --------
    >>> check_chunk_sent(2, P=4, k=3, s=1).passed
    True
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
    expected = next(m.chunk for m in ring_schedule(P) if m.sender == k and m.step == global_step)
    if value != expected and not 0 <= value < P:
        return failed(f"{what}: chunks are numbered 0 .. {P - 1}; reduce your answer mod P.")
    rs = phase == "reduce-scatter"
    hints = {
        (k + s) % P if rs else None: f"{value} is not right. Chunks travel forward (k -> k+1), "
        "so the chunk a worker forwards moves *backwards* in index as s grows.",
        (k + 1 - s) % P if rs else None: f"{value} is the all-gather chunk. In reduce-scatter "
        "worker k starts by sending its own-index chunk k.",
        None if rs else (k - s) % P: f"{value} is the reduce-scatter chunk. In all-gather "
        "worker k starts by sending the chunk it has fully reduced, (k + 1) mod P.",
        expected: f"correct, chunk {expected}.",
        ...: f"{value} is not right. Hint: worker k sends at step 0 the chunk it "
        "owns for this phase, then passes on each step what it received the step before.",
    }
    return grade(value, expected, what, hints)


def check_link_bits(answer, P: int = 6, d: int = 1200, bits: int = 16) -> Feedback:
    """Bits sent over the busiest directed link in one classical ring all-reduce of ``d`` words of
    ``bits`` bits on ``P`` workers: ``ledger.online_bits()`` of :func:`qring_edu.ring_allreduce`
    on zeros (P * d <= 4e6); 2 (P-1) (d/P) b when P | d. Exact.

    Examples
    --------
    >>> check_link_bits(960, P=4, d=40, bits=16)
    Feedback(passed=True, message='bits on the busiest link (P = 4, d = 40, b = 16): correct, 960 bits.')
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
    expected = ring_allreduce(np.zeros((P, d), dtype=np.int64), bits=bits).ledger.online_bits()
    if value == expected:
        return passed(f"{what}: correct, {expected} bits.")
    chunk = -(-d // P)
    one_phase = f"{value:g} counts only one phase; there are P-1 reduce-scatter steps and P-1 "
    words = f"{value:g} looks like words, not bits: multiply by b = {bits}."
    hints = {
        2 * (P - 1) * d * bits: f"{value:g} counts whole vectors. Each message is one chunk of "
        "about d/P words, not the whole gradient.",
        (P - 1) * chunk * bits: one_phase + "all-gather steps.",
        (P - 1) * d / P * bits: one_phase + "all-gather steps.",
        2 * (P - 1) * chunk: words,
        2 * (P - 1) * d / P: words,
        allreduce_lower_bound_bits(P, d, bits) if d % P else None: f"{value:g} is the lower "
        "bound 2(P-1)/P·d·b, but P does not divide d: chunk sizes differ by one, and the "
        "busiest link sends some of the longer chunks.",
        ...: f"{value:g} is not right. Count the 2(P-1) messages one link sends "
        "and the size of each (see chunk_bounds).",
    }
    return grade(value, None, what, hints, rel=1e-9)


def check_ring_vs_ps_speedup(
    answer,
    P: int = 16,
    d: int = 25_557_032,
    bits: int = 32,
    alpha: float = 10e-6,
    beta: float = 1e-11,
) -> Feedback:
    """Speed-up of the ring over one parameter server in the α–β model,
    ``parameter_server_time / ring_time`` (:mod:`qring_edu.costmodel`; α in s per message, β in s
    per bit). Relative tolerance 1 %.

    Examples
    --------
    >>> setting = dict(P=8, d=1000, bits=16, alpha=1e-6, beta=1e-9)
    >>> check_ring_vs_ps_speedup(6.143, **setting).passed
    True
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
    expected = parameter_server_time(P, d, bits, alpha, beta) / ring_time(P, d, bits, alpha, beta)
    no_latency = parameter_server_time(P, d, bits, 0.0, beta) / ring_time(P, d, bits, 0.0, beta)
    hints = {
        1 / expected: f"{value:.4g} is the inverse ratio: divide the server's time by the ring's.",
        no_latency if alpha > 0 else None: f"{value:.4g} ignores the latency α: the ring pays "
        "it 2(P-1) times, the server only twice.",
        (P / 2, float(P)): f"{value:.4g} is a large-d limit. Use the exact formulas "
        "2(α + P·d·b·β) and 2(P-1)(α + ⌈d/P⌉·b·β).",
        expected: f"correct, {expected:.3f} (your {value:.4g}; tolerance 1 %).",
        ...: f"{value:.4g} is not right (tolerance 1 %). Server: 2(α + P·d·b·β); "
        "ring: 2(P-1)(α + ⌈d/P⌉·b·β).",
    }
    return grade(value, expected, what, hints, rel=RELATIVE_TOLERANCE)


def check_model_comm_time(
    answer,
    model: str = "GPT-2 XL",
    P: int = 32,
    bits: int = 16,
    alpha: float = 10e-6,
    bandwidth_gbps: float = 100.0,
) -> Feedback:
    """Seconds of one ring all-reduce of ``model``'s gradient (:func:`qring_edu.ring_time`,
    d = ``MODEL_SIZES[model]``, β = 1 / (bandwidth · 1e9), α in s). Relative tolerance 1 %.

    Examples
    --------
    >>> check_model_comm_time(0.0073, model="ResNet-50", P=8).passed
    True
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
    units = f"{value:.4g} looks like bytes instead of bits (or bits instead of bytes)."
    hints = {
        expected * 1e3: f"{value:.4g} looks like milliseconds; the answer is in seconds.",
        expected / 8: units,
        expected * 8: units,
        parameter_server_time(P, d, bits, alpha, beta): f"{value:.4g} is the parameter "
        "server's time, not the ring's.",
        (d * bits * beta, d * bits * beta + alpha): f"{value:.4g} sends one copy of the "
        "gradient; each link carries 2(P-1) chunks of d/P words.",
        expected: f"correct, {expected:.4g} s (your {value:.4g}; tolerance 1 %).",
        ...: f"{value:.4g} is not right (tolerance 1 %). Use "
        "T = 2(P-1)(α + ⌈d/P⌉·b·β) with β = 1/bandwidth in s/bit.",
    }
    return grade(value, expected, what, hints, rel=RELATIVE_TOLERANCE)


# -- Code-graded exercises: the reader's own ring --------------------------------------------------
#: The instances :func:`check_ring_code` runs, in order, as (P, d, bits): small readable rings
#: first, then uneven chunks (P does not divide d), empty chunks (d < P), odd word sizes and a
#: larger ring. Every instance's words are uniform in 0 .. 2**bits - 1, so sums overflow.
RING_CODE_CASES = (
    (2, 4, 8),
    (3, 6, 8),
    (4, 10, 8),
    (5, 3, 4),
    (4, 12, 16),
    (7, 23, 5),
    (6, 1000, 16),
)


class _Stop(Exception):
    """Raised inside the checker's ``send`` to stop a reader's function with a readable reason."""


def _reference_trace(grads: np.ndarray, bits: int, *, gather_adds: bool = False):
    """The ring of :func:`qring_edu.ring_schedule` replayed on ``grads`` (words mod 2**bits):
    ``(messages, before, final)`` with ``messages[k]`` the list of (global step, chunk, words)
    that worker k sends, ``before[s]`` every worker's copy just before global step s and
    ``final`` the copies at the end. ``gather_adds``: the all-gather receivers add instead of
    overwriting (a common slip, for the hint)."""
    P, d = grads.shape
    bounds = chunk_bounds(d, P)
    mod = 1 << bits
    state = grads.copy()
    messages: list[list] = [[] for _ in range(P)]
    before = []
    for step in range(2 * (P - 1)):
        before.append(state.copy())
        snapshot = before[-1]
        for m in (m for m in ring_schedule(P) if m.step == step):
            lo, hi = bounds[m.chunk], bounds[m.chunk + 1]
            words = snapshot[m.sender, lo:hi].copy()
            messages[m.sender].append((step, m.chunk, words))
            if m.phase == "reduce-scatter" or gather_adds:
                state[m.receiver, lo:hi] = (state[m.receiver, lo:hi] + words) % mod
            else:
                state[m.receiver, lo:hi] = words
    return messages, before, state


def _show(words: np.ndarray, limit: int = 6) -> str:
    return f"[{', '.join(str(int(v)) for v in words[:limit])}{', ...' * (words.size > limit)}]"


def _diagnose_message(P, bits, bounds, k, step, chunk, got, want, before, messages) -> str:
    """Why worker k's message at global step ``step`` differs from the ring's."""
    mod = 1 << bits
    rs = step < P - 1
    s = step if rs else step - (P - 1)
    phase = "reduce-scatter" if rs else "all-gather"
    formula = "(k - s) mod P" if rs else "(k + 1 - s) mod P"
    lo, hi = bounds[chunk], bounds[chunk + 1]
    expect = (
        f"at {phase} step s = {s}, worker k = {k} sends chunk {formula} = {chunk} "
        f"(words {lo} .. {hi - 1})"
    )
    if got.shape == want.shape and np.array_equal(got % mod, want):
        return (
            f"{expect}; its values are right modulo 2^b but not reduced (e.g. {_show(got)}): "
            f"the sums overflow b = {bits} bits. Take % 2**bits after each addition."
        )
    own = before[step][k]
    for c in range(P):
        clo, chi = bounds[c], bounds[c + 1]
        if (
            c != chunk
            and chi > clo
            and got.shape == (chi - clo,)
            and np.array_equal(got, own[clo:chi])
        ):
            hint = ""
            if rs and c == (k + s) % P:
                hint = (
                    " The chunk index must go *down* by one each step: the chunk worker k "
                    "forwards is the one it received from k - 1."
                )
            elif rs and c == (k + 1 - s) % P:
                hint = " That is the all-gather formula; reduce-scatter starts with chunk k."
            elif not rs and c == (k - s) % P:
                hint = (
                    " That is the reduce-scatter formula; the all-gather starts with the "
                    "chunk worker k has just completed, (k + 1) mod P."
                )
            return f"worker {k} sent chunk {c}, but {expect}.{hint}"
    if step >= 1:
        prev = next(w for (st, c, w) in messages[(k - 1) % P] if st == step - 1)
        old = before[step - 1][k, lo:hi]
        if got.shape == want.shape and step - 1 < P - 1:  # the chunk arrived in reduce-scatter
            if np.array_equal(got, prev):
                return (
                    f"{expect}. Its values are the words worker {k} received one step "
                    "earlier, not their sum with its own copy: in reduce-scatter the "
                    "receiver *adds* the message into its copy (mod 2^b)."
                )
            if np.array_equal(got, old):
                return (
                    f"{expect}. Its values are worker {k}'s copy from before the previous "
                    "step: the receiver of a reduce-scatter message must add it into its "
                    "copy."
                )
        elif got.shape == want.shape:  # the chunk arrived in the all-gather
            if np.array_equal(got, (old + prev) % mod) or np.array_equal(got, old + prev):
                return (
                    f"{expect}. Its values are the received chunk *plus* the old copy: in "
                    "the all-gather the receiver *overwrites* its copy with the finished "
                    "chunk."
                )
            if np.array_equal(got, old):
                return (
                    f"{expect}. Its values are worker {k}'s copy from before the previous "
                    "step: the receiver of an all-gather message must store it."
                )
    if got.size != want.size:
        return (
            f"worker {k} sent {got.size} words, but {expect}: {want.size} words of "
            "chunk_bounds(d, P)."
        )
    return (
        f"worker {k} sent {_show(got)} but the ring sends {_show(want)}: {expect}. "
        "Check the receivers' updates in the earlier steps."
    )


def _ring_case(fn, grads: np.ndarray, bits: int) -> Feedback | str | None:
    """Run the reader's ring on one instance: ``None`` if right, else a message or Feedback."""
    P, d = grads.shape
    mod = 1 << bits
    limit = 2 * (P - 1)
    sent: list[list[np.ndarray]] = [[] for _ in range(P)]

    def send(k, words):
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 0 <= k < P:
            raise _Stop(f"send(k, words) was called with k = {k!r}; the workers are 0 .. {P - 1}.")
        try:
            arr = np.array(words, dtype=np.int64).reshape(-1)
        except (TypeError, ValueError, OverflowError):
            raise _Stop(
                "send(k, words): words must be an array of integers (a chunk of "
                f"worker k's copy), got {type(words).__name__}."
            ) from None
        if len(sent[k]) >= limit:
            raise _Stop(
                f"worker {k} sent more than 2(P - 1) = {limit} messages; in the ring "
                "every worker sends exactly one message per step."
            )
        sent[k].append(arr)
        return arr.copy()

    out, crash = call_reader(
        fn, grads.copy(), bits, send, stop=(_Stop,), forbid=("ring_allreduce", "ring_pass")
    )
    if crash is not None:
        return crash.message
    if out is None:
        return failed(
            "Not attempted yet: your function returns None. Write the reduce-scatter "
            "and all-gather loops, then return data (every worker's copy, shape (P, d))."
        )
    messages, before, _ = _reference_trace(grads, bits)
    bounds = chunk_bounds(d, P)
    if not any(sent):
        return (
            "your function never called send: in a ring all-reduce every word travels over a "
            "link, one chunk per worker and step (a shortcut such as grads.sum(axis=0) is not "
            "a ring)."
        )
    mine = [[w for w in sent[k] if w.size] for k in range(P)]
    refs = [[m for m in messages[k] if m[2].size] for k in range(P)]  # empty chunks may be skipped
    order = sorted((m[0], w, j) for w in range(P) for j, m in enumerate(refs[w]))
    for step, k, j in order:
        ref = refs[k]
        _, chunk, want = ref[j]
        if j >= len(mine[k]):
            n_rs = sum(1 for m in ref if m[0] < P - 1)
            if len(mine[k]) == n_rs:
                return (
                    f"worker {k} stopped after its reduce-scatter messages. Each "
                    f"worker now holds only the finished chunk (k + 1) mod P; the all-gather "
                    f"(P - 1 more steps, worker k sends chunk (k + 1 - s) mod P and the "
                    f"receiver overwrites its copy) gives every worker every chunk."
                )
            return (
                f"worker {k} sent {len(mine[k])} non-empty messages; the ring sends "
                f"{len(ref)}: one per step, P - 1 steps of reduce-scatter and P - 1 of "
                "all-gather."
            )
        got = mine[k][j]
        if got.shape != want.shape or not np.array_equal(got, want):
            return _diagnose_message(P, bits, bounds, k, step, chunk, got, want, before, messages)
    for k in range(P):
        if len(mine[k]) > len(refs[k]):
            return (
                f"worker {k} sent {len(mine[k])} non-empty messages; the ring sends "
                f"{len(refs[k])} (one chunk per step, 2(P - 1) steps)."
            )
    try:
        arr = np.asarray(out)
        numeric = arr.dtype != object and np.issubdtype(arr.dtype, np.number)
    except Exception:  # a ragged list or an object NumPy cannot read
        numeric = False
    if not numeric:
        return (
            f"your function returned {type(out).__name__}; return every worker's copy as an "
            "array of integers of shape (P, d)."
        )
    if arr.shape != (P, d):
        extra = " (one vector: return every worker's copy)" if arr.shape == (d,) else ""
        return f"your function returned shape {arr.shape}{extra}; expected (P, d) = ({P}, {d})."
    if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
        return "your function returned non-integer values; words are integers mod 2^b."
    arr = arr.astype(np.int64)
    signed = ring_allreduce(grads, bits=bits).outputs
    expected = signed % mod
    if np.array_equal(arr, expected) or np.array_equal(arr, signed):
        return None
    if np.array_equal(arr % mod, expected):
        return (
            f"every message is right, but the final words are not reduced modulo 2^b (e.g. "
            f"{_show(arr[arr >= mod] if np.any(arr >= mod) else arr.ravel())}): the sums "
            f"overflow b = {bits} bits. Take % 2**bits after each addition."
        )
    _, _, added = _reference_trace(grads, bits, gather_adds=True)
    if np.array_equal(arr % mod, added):
        return (
            "every message is right, but the all-gather receivers *add* the finished chunk to "
            "their copy; they must overwrite it (the chunk already holds every gradient)."
        )
    k, j = (int(i) for i in np.argwhere(arr != expected)[0])
    c = int(np.searchsorted(bounds, j, side="right") - 1)
    return (
        f"every message is right, but worker {k}'s final copy of chunk {c} is wrong (word "
        f"{j}: {int(arr[k, j])}, expected {int(expected[k, j])}). Does the receiver of the "
        "last all-gather message store it (overwrite its copy)?"
    )


def check_ring_code(fn, *, seed: int = 0) -> Feedback:
    """Grade the reader's ring all-reduce ``fn(grads, bits, send) -> array (P, d)``.

    ``grads``: int64 (P, d), row k worker k's words in 0 .. 2**bits - 1 (a copy). ``send(k,
    words)``: worker k sends a 1-D chunk of its copy to (k + 1) mod P and gets back what arrives.
    The function must run the ring of :func:`qring_edu.ring_schedule` (every message through
    ``send``, one per worker and step; empty chunks may be skipped) and return every worker's final
    copy (words mod 2**bits, or the signed residues of :func:`qring_edu.ring_allreduce`). On
    :data:`RING_CODE_CASES` (seeded words) every message and the result are compared with the
    library's; the first difference gets a hint. ``ring_allreduce`` and ``ring_pass`` are switched
    off while ``fn`` runs.

    Examples
    --------
    >>> check_ring_code(None).passed
    False
    """
    what = "the ring all-reduce exercise (my_ring_allreduce)"
    if fn is None:
        return failed(
            "Not attempted yet: write my_ring_allreduce(grads, bits, send) and pass the "
            "function (not a call of it) to the checker."
        )
    if not callable(fn):
        return failed(
            f"{what}: expected a function fn(grads, bits, send), got {type(fn).__name__}."
        )
    seed = check_int(seed, "seed", 0)
    n = len(RING_CODE_CASES)
    for i, (P, d, bits) in enumerate(RING_CODE_CASES):
        grads = np.random.default_rng([seed, i]).integers(0, 1 << bits, size=(P, d), dtype=np.int64)
        verdict = _ring_case(fn, grads, bits)
        if isinstance(verdict, Feedback):
            return verdict
        if verdict is not None:
            case = f"case {i + 1} of {n} (P = {P}, d = {d}, b = {bits})"
            if P * d <= 12:
                case += f", grads = {grads.tolist()}"
            return failed(f"{what}, {case}: {verdict}")
    return passed(
        f"{what}: correct. All {n} cases (P = 2 .. 7, uneven and empty chunks, word "
        "sizes 4 .. 16) agree with qr.ring_allreduce, message by message and in the "
        "final sums."
    )


#: The instances :func:`check_ring_time_code` runs, as (P, d, bits, alpha, beta) in seconds:
#: the first one has P dividing d, the second does not (the largest chunk sets the pace).
RING_TIME_CASES = (
    (4, 1000, 16, 1e-5, 1e-9),
    (3, 10, 8, 2e-6, 1e-9),
    (16, 25_557_032, 32, 1e-5, 1e-11),
    (8, 8000, 16, 5e-6, 0.0),
    (128, 1000, 32, 1e-4, 1e-10),
)


def check_ring_time_code(fn) -> Feedback:
    """Grade the reader's α–β time ``fn(P, d, bits, alpha, beta) -> seconds`` of one ring all-reduce
    against :func:`qring_edu.ring_time` (switched off while it runs) on :data:`RING_TIME_CASES`
    (relative tolerance 1e-9), with hints for the common slips.

    Examples
    --------
    >>> import qring_edu as qr
    >>> check_ring_time_code(lambda P, d, b, a, be: 2 * (P - 1) * (a + -(-d // P) * b * be)).passed
    True
    >>> check_ring_time_code(qr.ring_time).passed       # the library's own function is off
    False
    """
    what = "the α–β exercise (my_ring_time)"
    if fn is None:
        return failed(
            "Not attempted yet: write my_ring_time(P, d, bits, alpha, beta) and pass the "
            "function (not a call of it) to the checker."
        )
    if not callable(fn):
        return failed(
            f"{what}: expected a function fn(P, d, bits, alpha, beta), got {type(fn).__name__}."
        )
    for i, (P, d, b, alpha, beta) in enumerate(RING_TIME_CASES):
        case = f"case {i + 1} (P = {P}, d = {d}, b = {b}, α = {alpha:g} s, β = {beta:g} s/bit)"
        value, crash = call_reader(fn, P, d, b, alpha, beta, forbid=("ring_time",))
        if crash is not None:
            return failed(f"{what}, {case}: {crash.message}")
        if value is None and i == 0:
            return failed(
                "Not attempted yet: your function returns None; return the time in seconds."
            )
        t, fb = as_number(value, f"{what}, {case}")
        if fb is not None:
            return fb
        expected = ring_time(P, d, b, alpha, beta)
        if math.isclose(t, expected, rel_tol=1e-9, abs_tol=1e-18):
            continue
        n = -(-d // P)
        pays = "every one of the 2(P - 1) steps is a message and pays α"
        slips = {
            2 * (P - 1) * (alpha + d / P * b * beta): "uses d/P words per message; the chunks "
            "have at most ⌈d/P⌉ words and the largest one sets the pace of every step",
            (P - 1) * (alpha + n * b * beta): "counts one phase; there are P - 1 reduce-scatter "
            "and P - 1 all-gather steps",
            2 * alpha + 2 * (P - 1) * n * b * beta: f"pays the latency α once per phase; {pays}",
            alpha + 2 * (P - 1) * n * b * beta: f"pays the latency α once; {pays}",
            2 * (P - 1) * (alpha + d * b * beta): "sends the whole vector at every step; each "
            "message is one chunk of about d/P words",
            2 * (P - 1) * (alpha + n * beta): "counts words, not bits: multiply by b",
            2 * P * (alpha + n * b * beta): "has 2P steps; each phase has P - 1",
        }
        returns = f"your function returns {t:.6g} s"
        cases = {k: f"{returns}, which {h}. Expected {expected:.6g} s." for k, h in slips.items()}
        cases[...] = f"{returns}, expected {expected:.6g} s = 2(P - 1)(α + ⌈d/P⌉·b·β)."
        return grade(t, None, f"{what}, {case}", cases, tol=1e-18, rel=1e-9)
    return passed(
        f"{what}: correct on all {len(RING_TIME_CASES)} cases: "
        "T = 2(P - 1)(α + ⌈d/P⌉·b·β), as qr.ring_time."
    )


# -- Step checkers of the reasoning exercises ------------------------------------------------------
def check_overlap_tail(
    answer,
    model: str = "BERT-Large",
    P: int = 16,
    bits: int = 16,
    alpha: float = 50e-6,
    bandwidth_gbps: float = 100.0,
    compute: float = 0.2,
    buckets: int = 10,
) -> Feedback:
    """Milliseconds of all-reduce left after the backward pass when ``model``'s gradient is
    all-reduced in ``buckets`` buckets as they become ready (``tail`` of
    :func:`qring_edu.costmodel.bucketed_iteration_time`; ``compute`` in s, 2/3 of it backward).
    Relative tolerance 1 %.

    Examples
    --------
    >>> setting = dict(model="ResNet-50", P=8, alpha=5e-6, compute=0.02, buckets=5)
    >>> check_overlap_tail(0.001501, **setting).passed             # seconds, not ms
    False
    """
    model = check_choice(model, "model", tuple(MODEL_SIZES))
    P = check_int(P, "P (number of workers)", 2)
    bits = check_bits(bits)
    alpha = check_float(alpha, "alpha", 0.0)
    bandwidth = check_float(bandwidth_gbps, "bandwidth_gbps", 0.0, lo_open=True)
    compute = check_float(compute, "compute", 0.0)
    d = MODEL_SIZES[model]
    B = check_int(buckets, "buckets", 1, d)
    what = (
        f"ms of all-reduce after the backward pass ({model}, P = {P}, B = {B} buckets, "
        f"{compute * 1e3:g} ms of compute)"
    )
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    beta = 1.0 / (bandwidth * 1e9)
    it = bucketed_iteration_time(compute, P, d, bits, alpha, beta, buckets=B, method="formula")
    expected = it.tail * 1e3
    whole = ring_time(P, d, bits, alpha, beta) * 1e3
    hints = {
        whole: f"{value:.4g} ms is the whole all-reduce, as if nothing overlapped. "
        "Only the buckets still in flight when the backward pass ends count.",
        whole / B: f"{value:.4g} ms is the whole all-reduce divided by B. Each bucket's "
        "all-reduce is a ring of its own and pays all 2(P - 1) latencies α: use "
        "ring_time for d/B words.",
        it.total * 1e3: f"{value:.4g} ms is the whole iteration; the question asks for the "
        "part after the compute.",
        0.0: "0 would mean perfect hiding, but the last bucket is ready only at "
        "the end of the backward pass, and its all-reduce starts then.",
        expected: f"correct, {expected:.3f} ms (the whole all-reduce would take "
        f"{whole:.2f} ms; {1 - expected / whole:.0%} of it is hidden).",
        ...: f"{value:.4g} ms is not right (tolerance 1 %). Is the link free when "
        "the last bucket becomes ready? Then what is left is that bucket's ring.",
    }
    return grade(value, expected, what, hints, rel=RELATIVE_TOLERANCE, tol=1e-9)


def check_bidirectional_link_bits(answer, P: int = 6, d: int = 1200, bits: int = 16) -> Feedback:
    """Bits on the busiest *directed* link when ⌈d/2⌉ words are all-reduced clockwise and ⌊d/2⌋
    counter-clockwise at once over full-duplex links (:func:`qring_edu.ring.message_bits`). Exact.

    Examples
    --------
    >>> check_bidirectional_link_bits(480, P=4, d=40).passed
    True
    """
    P = check_int(P, "P (number of workers)", 2)
    d = check_int(d, "d", 2)
    bits = check_bits(bits)
    what = f"bits on the busiest directed link of the bidirectional ring (P = {P}, d = {d}, b = {bits})"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    expected = max(int(message_bits(P, h, bits).sum(axis=1).max()) for h in ((d + 1) // 2, d // 2))
    one_way = int(message_bits(P, d, bits).sum(axis=1).max())
    hints = {
        one_way: f"{value:g} is the one-way ring. Each direction now carries only "
        "half of the vector. (Per worker, the bits *sent* are unchanged: it sends "
        "on both of its links.)",
        2 * one_way: f"{value:g} counts both directions of a link pair; the question asks "
        "for one directed link.",
        (expected // 2, one_way // 4): f"{value:g} halves twice. Each ring all-reduces d/2 "
        "words: 2(P - 1) messages of (d/2)/P words.",
        expected: f"correct, {expected} bits, half of the one-way ring's {one_way}.",
        ...: f"{value:g} is not right. Each direction runs a ring on half the vector: "
        "2(P - 1) messages of ⌈(d/2)/P⌉ words of b bits.",
    }
    return grade(value, expected, what, hints)


def check_latency_crossover(
    answer, P: int = 16, bits: int = 32, alpha: float = 10e-6, beta: float = 1e-11
) -> Feedback:
    """Gradient size d* (words) where the ring's latency term ``2(P-1) α`` equals its bandwidth term
    ``2(P-1) (d/P) b β``: ``d* = P α / (b β)``. Relative tolerance 1 %.

    Examples
    --------
    >>> setting = dict(P=8, bits=16, alpha=1e-6, beta=1e-9)
    >>> check_latency_crossover(500, **setting).passed
    True
    """
    P = check_int(P, "P (number of workers)", 2)
    bits = check_bits(bits)
    alpha = check_float(alpha, "alpha", 0.0, lo_open=True)
    beta = check_float(beta, "beta", 0.0, lo_open=True)
    what = f"gradient size d* where latency = bandwidth time (P = {P}, b = {bits})"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    chunk = alpha / (bits * beta)
    expected = P * chunk
    hints = {
        chunk: f"{value:,.6g} is the chunk size at the crossover; the gradient has P chunks.",
        (alpha / beta, P * alpha / beta): f"{value:,.6g} counts bits; divide by b = {bits} "
        "bits per word.",
        ((P - 1) * chunk, expected / (P - 1)): f"{value:,.6g}: both terms carry the factor "
        "2(P - 1), which cancels; what remains is α = (d/P) b β.",
        expected: f"correct, d* = P α / (b β) = {expected:,.0f} words: below it the "
        f"ring is latency-bound (chunks shorter than {chunk:,.0f} words).",
        ...: f"{value:,.6g} is not right (tolerance 1 %). Set α = (d/P)·b·β and solve for d.",
    }
    return grade(value, expected, what, hints, rel=RELATIVE_TOLERANCE)
