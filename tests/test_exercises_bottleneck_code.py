"""Chapter 1 code-graded exercises ("build it yourself") and the step checkers of its reasoning
exercises (qring_edu.exercises.bottleneck). Each code checker is run on a correct, several wrong
and a crashing reader function."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from qring_edu import chunk_bounds, ring_allreduce, ring_time
from qring_edu.costmodel import MODEL_SIZES, bucketed_iteration_time
from qring_edu.exercises._base import Feedback
from qring_edu.exercises.bottleneck import (
    RING_CODE_CASES,
    check_bidirectional_link_bits,
    check_latency_crossover,
    check_overlap_tail,
    check_ring_code,
    check_ring_time_code,
)

ROOT = Path(__file__).resolve().parents[1]


# -- reader functions -------------------------------------------------------------------------
def _ring(
    rs=lambda k, s, P: (k - s) % P,
    ag=lambda k, s, P: (k + 1 - s) % P,
    *,
    mod=True,
    gather=True,
    gather_adds=False,
    scatter_overwrites=False,
    skip_empty=False,
):
    """A reader's ring, correct by default; the keywords switch on one classic slip each."""

    def fn(grads, bits, send):
        P, d = grads.shape
        bounds = chunk_bounds(d, P)
        data = grads.copy()
        for s in range(P - 1):
            for k in range(P):
                lo, hi = bounds[rs(k, s, P)], bounds[rs(k, s, P) + 1]
                if skip_empty and lo == hi:
                    continue
                r = (k + 1) % P
                m = send(k, data[k, lo:hi])
                if scatter_overwrites:
                    data[r, lo:hi] = m
                else:
                    data[r, lo:hi] = (data[r, lo:hi] + m) % 2**bits if mod else data[r, lo:hi] + m
        if gather:
            for s in range(P - 1):
                for k in range(P):
                    lo, hi = bounds[ag(k, s, P)], bounds[ag(k, s, P) + 1]
                    if skip_empty and lo == hi:
                        continue
                    m = send(k, data[k, lo:hi])
                    if gather_adds:
                        data[(k + 1) % P, lo:hi] = (data[(k + 1) % P, lo:hi] + m) % 2**bits
                    else:
                        data[(k + 1) % P, lo:hi] = m
        return data

    return fn


def _crashing(grads, bits, send):
    P, d = grads.shape
    bounds = chunk_bounds(d, P)
    return grads[P, bounds[0]]  # IndexError on the third line


# -- check_ring_code --------------------------------------------------------------------------
def test_ring_code_passes_a_correct_ring_and_its_variants():
    assert check_ring_code(_ring()).passed
    assert check_ring_code(_ring(skip_empty=True)).passed  # empty chunks may be skipped
    assert check_ring_code(_ring(), seed=7).passed

    def signed(grads, bits, send):  # the signed residues ring_allreduce returns are fine too
        out = _ring()(grads, bits, send)
        return np.where(out >= 2 ** (bits - 1), out - 2**bits, out)

    assert check_ring_code(signed).passed


def test_ring_code_cases_cover_uneven_and_empty_chunks_and_overflow():
    assert any(d % P for P, d, _ in RING_CODE_CASES) and any(d < P for P, d, _ in RING_CODE_CASES)
    assert len({b for _, _, b in RING_CODE_CASES}) >= 3


@pytest.mark.parametrize(
    "fn, words",
    [
        (_ring(rs=lambda k, s, P: (k + s) % P), "go *down*"),
        (_ring(ag=lambda k, s, P: (k - s) % P), "reduce-scatter formula"),
        (_ring(rs=lambda k, s, P: (k + 1 - s) % P), "all-gather formula"),
        (_ring(mod=False), "overflow"),
        (_ring(gather=False), "stopped after its reduce-scatter"),
        (_ring(gather_adds=True), "overwrite"),
        (_ring(scatter_overwrites=True), "*adds*"),
    ],
)
def test_ring_code_names_the_slip(fn, words):
    fb = check_ring_code(fn)
    assert isinstance(fb, Feedback) and not fb.passed
    assert words in fb.message and re.search(r"case \d of \d+ \(P = \d+", fb.message)


def test_ring_code_reports_the_first_failing_step():
    fb = check_ring_code(_ring(rs=lambda k, s, P: (k + s) % P))
    # P = 2 cannot tell (k + s) from (k - s); the first failing case is P = 3 at step s = 1.
    assert "case 2 of" in fb.message and "reduce-scatter step s = 1" in fb.message


def test_ring_code_refuses_shortcuts_and_bad_returns():
    shortcut = check_ring_code(lambda g, b, send: np.tile(g.sum(axis=0) % 2**b, (len(g), 1)))
    assert not shortcut.passed and "never called send" in shortcut.message
    one = check_ring_code(lambda g, b, send: _ring()(g, b, send)[0])
    assert not one.passed and "one vector" in one.message
    text = check_ring_code(lambda g, b, send: (_ring()(g, b, send), "done")[1])
    assert not text.passed and "str" in text.message

    def library(grads, bits, send):  # sends the right messages, returns the library's result
        _ring()(grads, bits, send)
        return ring_allreduce(grads, bits=bits).outputs

    refused = check_ring_code(library)
    assert not refused.passed and "ring_allreduce" in refused.message

    def chatty(grads, bits, send):
        while True:
            send(0, grads[0, :1])

    assert "more than 2(P - 1)" in check_ring_code(chatty).message
    bad_k = check_ring_code(lambda g, b, send: send(len(g), g[0]))
    assert not bad_k.passed and "workers are 0 .." in bad_k.message


def test_ring_code_crash_is_a_readable_message():
    fb = check_ring_code(_crashing)
    assert not fb.passed and "IndexError" in fb.message and "line 4 of your function" in fb.message
    assert "Traceback" not in fb.message


def test_ring_code_not_attempted():
    for fn in (None, lambda g, b, send: None):
        fb = check_ring_code(fn)
        assert not fb.passed and fb.message.startswith("Not attempted")
    assert not check_ring_code(3).passed and "function" in check_ring_code(3).message
    with pytest.raises(ValueError, match="seed"):
        check_ring_code(_ring(), seed=-1)


def test_the_books_worked_solution_passes():
    """The solution printed in chapter 1 (the {solution} block of the ring exercise) is graded by
    the checker as correct, so the page cannot drift from the checker."""
    nb = json.loads((ROOT / "book" / "01_bottleneck.ipynb").read_text(encoding="utf-8"))
    texts = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    sol = next(t for t in texts if re.search(r"\{solution\}\s+ex-bottleneck-ring-code", t))
    code = re.search(r"```python\n(.*?)```", sol, flags=re.DOTALL).group(1)
    names: dict = {"chunk_bounds": chunk_bounds, "np": np}
    exec(compile(code, "solution", "exec"), names)  # noqa: S102 - the book's own code
    assert check_ring_code(names["my_ring_allreduce"]).passed
    sol_t = next(t for t in texts if re.search(r"\{solution\}\s+ex-bottleneck-ring-time", t))
    code_t = re.search(r"```python\n(.*?)```", sol_t, flags=re.DOTALL).group(1)
    names_t: dict = {"math": math}
    exec(compile(code_t, "solution", "exec"), names_t)  # noqa: S102
    assert check_ring_time_code(names_t["my_ring_time"]).passed


# -- check_ring_time_code ---------------------------------------------------------------------
def _time(P, d, bits, alpha, beta):
    return 2 * (P - 1) * (alpha + math.ceil(d / P) * bits * beta)


@pytest.mark.parametrize(
    "fn, words",
    [
        (lambda P, d, b, a, be: 2 * (P - 1) * (a + d / P * b * be), "⌈d/P⌉"),
        (lambda P, d, b, a, be: (P - 1) * (a + math.ceil(d / P) * b * be), "one phase"),
        (lambda P, d, b, a, be: a + 2 * (P - 1) * math.ceil(d / P) * b * be, "latency α once"),
        (lambda P, d, b, a, be: 2 * (P - 1) * (a + d * b * be), "whole vector"),
        (lambda P, d, b, a, be: 2 * (P - 1) * (a + math.ceil(d / P) * be), "words, not bits"),
        (lambda P, d, b, a, be: 2 * P * (a + math.ceil(d / P) * b * be), "2P steps"),
        (lambda P, d, b, a, be: 1.0, "expected"),
    ],
)
def test_ring_time_code_names_the_slip(fn, words):
    fb = check_ring_time_code(fn)
    assert not fb.passed and words in fb.message


def test_ring_time_code_correct_crashing_and_not_attempted():
    assert check_ring_time_code(_time).passed
    calls = check_ring_time_code(lambda *a: ring_time(*a))  # the library's function is off
    assert not calls.passed and "ring_time" in calls.message
    assert not check_ring_time_code(ring_time).passed

    def crashing(P, d, bits, alpha, beta):
        chunk = d // (P - P)
        return chunk

    fb = check_ring_time_code(crashing)
    assert not fb.passed and "ZeroDivisionError" in fb.message and "line 2" in fb.message
    assert check_ring_time_code(None).message.startswith("Not attempted")
    assert check_ring_time_code(lambda *a: None).message.startswith("Not attempted")
    assert "without quotes" in check_ring_time_code(lambda *a: "0.1").message


# -- step checkers of the reasoning exercises -------------------------------------------------
def test_overlap_tail():
    d = MODEL_SIZES["BERT-Large"]
    it = bucketed_iteration_time(0.2, 16, d, 16, 50e-6, 1e-11, buckets=10, method="formula")
    ring_b = ring_time(16, -(-d // 10), 16, 50e-6, 1e-11)  # one bucket's own ring
    assert it.tail == pytest.approx(ring_b, rel=1e-6)  # the link is free: the tail is that ring
    assert check_overlap_tail(it.tail * 1e3).passed
    assert check_overlap_tail(round(it.tail * 1e3, 2)).passed
    whole = ring_time(16, d, 16, 50e-6, 1e-11) * 1e3
    assert "as if nothing overlapped" in check_overlap_tail(whole).message
    assert "divided by B" in check_overlap_tail(whole / 10).message
    assert "whole iteration" in check_overlap_tail(it.total * 1e3).message
    assert "perfect hiding" in check_overlap_tail(0).message
    assert check_overlap_tail(None).message.startswith("Not attempted")


def test_bidirectional_link_bits():
    one_way = ring_allreduce(np.zeros((6, 1200), dtype=np.int64), bits=16).ledger.online_bits()
    half = ring_allreduce(np.zeros((6, 600), dtype=np.int64), bits=16).ledger.online_bits()
    assert half * 2 == one_way == 32000
    assert check_bidirectional_link_bits(half).passed
    assert "one-way ring" in check_bidirectional_link_bits(one_way).message
    assert not check_bidirectional_link_bits(half + 1).passed
    # odd d: the halves differ by one word, the busier direction counts
    odd = max(
        ring_allreduce(np.zeros((4, h), dtype=np.int64), bits=8).ledger.online_bits()
        for h in (6, 5)
    )
    assert check_bidirectional_link_bits(odd, P=4, d=11, bits=8).passed


def test_latency_crossover():
    d_star = 16 * 10e-6 / (32 * 1e-11)
    assert d_star == pytest.approx(500_000)
    # at d*, the ring's latency and bandwidth terms are equal
    lat = ring_time(16, int(d_star), 32, 10e-6, 0.0)
    bw = ring_time(16, int(d_star), 32, 0.0, 1e-11)
    assert lat == pytest.approx(bw)
    assert check_latency_crossover(d_star).passed
    assert "chunk size" in check_latency_crossover(d_star / 16).message
    assert "counts bits" in check_latency_crossover(10e-6 / 1e-11).message
    assert not check_latency_crossover(2 * d_star).passed
