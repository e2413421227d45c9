"""Chapter 1 exercise checkers (qring_edu.exercises.bottleneck)."""

from __future__ import annotations

import numpy as np
import pytest

from qring_edu import ring_allreduce, ring_time
from qring_edu.costmodel import MODEL_SIZES, parameter_server_time
from qring_edu.exercises._base import Feedback
from qring_edu.exercises.bottleneck import (
    check_chunk_sent,
    check_link_bits,
    check_model_comm_time,
    check_ring_vs_ps_speedup,
)

GARBAGE = ["three", "", [1, 2], {"a": 1}, True, float("nan"), np.array([1.0, 2.0]), object()]


def _all_fail_quietly(check, **kwargs):
    for junk in GARBAGE:
        fb = check(junk, **kwargs)
        assert isinstance(fb, Feedback) and not fb.passed and fb.message


@pytest.mark.parametrize(
    "check", [check_chunk_sent, check_link_bits, check_ring_vs_ps_speedup, check_model_comm_time]
)
def test_none_is_not_attempted(check):
    fb = check(None)
    assert not fb.passed and "Not attempted" in fb.message
    _all_fail_quietly(check)


def test_chunk_sent():
    P, k, s = 5, 3, 2
    assert check_chunk_sent((k - s) % P, P, k, s).passed
    assert check_chunk_sent(float((k - s) % P), P, k, s).passed
    assert check_chunk_sent((k + 1 - s) % P, P, k, s, phase="all-gather").passed
    wrong = check_chunk_sent((k + s) % P, P, k, s)
    assert not wrong.passed and "forward" in wrong.message
    assert "all-gather" in check_chunk_sent((k + 1 - s) % P, P, k, s).message
    assert "0 .. 4" in check_chunk_sent(7, P, k, s).message
    assert not check_chunk_sent(1.5, P, k, s).passed
    assert not check_chunk_sent("1", P, k, s).passed  # strings are never parsed
    with pytest.raises(ValueError, match="s"):
        check_chunk_sent(0, P, k, 4)


def test_link_bits():
    P, d, b = 6, 1200, 16
    ref = 2 * (P - 1) * (d // P) * b
    assert ref == ring_allreduce(np.zeros((P, d), dtype=np.int64), bits=b).ledger.online_bits()
    assert check_link_bits(ref, P, d, b).passed
    assert "whole vectors" in check_link_bits(2 * (P - 1) * d * b, P, d, b).message
    assert "one phase" in check_link_bits((P - 1) * (d // P) * b, P, d, b).message
    assert "words" in check_link_bits(2 * (P - 1) * (d // P), P, d, b).message
    # Uneven chunks: the busiest link carries more than the lower bound.
    uneven = ring_allreduce(np.zeros((4, 10), dtype=np.int64), bits=8).ledger.online_bits()
    assert check_link_bits(uneven, 4, 10, 8).passed
    fb = check_link_bits(2 * 3 / 4 * 10 * 8, 4, 10, 8)
    assert not fb.passed and "lower bound" in fb.message
    assert not check_link_bits(ref + 1, P, d, b).passed


def test_ring_vs_ps_speedup():
    args = dict(P=16, d=25_557_032, bits=32, alpha=10e-6, beta=1e-11)
    ref = parameter_server_time(16, 25_557_032, 32, 10e-6, 1e-11) / ring_time(
        16, 25_557_032, 32, 10e-6, 1e-11
    )
    assert check_ring_vs_ps_speedup(ref, **args).passed
    assert check_ring_vs_ps_speedup(ref * 1.005, **args).passed  # within 1 %
    assert not check_ring_vs_ps_speedup(ref * 1.05, **args).passed
    assert "inverse" in check_ring_vs_ps_speedup(1 / ref, **args).message
    big_alpha = dict(args, alpha=1e-3)
    no_lat = parameter_server_time(16, 25_557_032, 32, 0.0, 1e-11) / ring_time(
        16, 25_557_032, 32, 0.0, 1e-11
    )
    assert "latency" in check_ring_vs_ps_speedup(no_lat, **big_alpha).message


def test_model_comm_time():
    d = MODEL_SIZES["GPT-2 XL"]
    ref = ring_time(32, d, 16, 10e-6, 1e-11)
    assert check_model_comm_time(ref).passed
    assert "milliseconds" in check_model_comm_time(ref * 1e3).message
    assert "bytes" in check_model_comm_time(ref / 8).message
    assert (
        "parameter server"
        in check_model_comm_time(parameter_server_time(32, d, 16, 10e-6, 1e-11)).message
    )
    assert "one copy" in check_model_comm_time(d * 16 * 1e-11).message
    with pytest.raises(ValueError, match="model"):
        check_model_comm_time(1.0, model="GPT-5")
