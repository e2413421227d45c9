"""Bucketed, overlapped iteration model (qring_edu.costmodel.bucketed_iteration_time).

Both transports all-reduce gradient buckets as they become ready during the backward pass; the
superdense ring's pairs are distributed over the same links. The event simulation and the closed
form must agree, and the model's consequences (lifetime equality, no gain on a saturated link,
gain = min(critical-path halving, idle link time)) must hold.
"""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qring_edu import costmodel
from qring_edu.costmodel import (
    MODEL_SIZES,
    BucketedIteration,
    bucketed_best_ratio,
    bucketed_iteration_time,
    iteration_time,
    link_units,
    ring_time,
)

RESNET = MODEL_SIZES["ResNet-50"]


def both(compute, P, d, bits, alpha, beta, *, beta_qubit=None, ahead=None, **kw):
    """The classical and the superdense iteration; ``beta_qubit`` and ``ahead`` are the
    superdense ring's own options."""
    cl = bucketed_iteration_time(compute, P, d, bits, alpha, beta, **kw)
    sd = bucketed_iteration_time(
        compute,
        P,
        d,
        bits,
        alpha,
        beta,
        transport="superdense",
        beta_qubit=beta_qubit,
        ahead=ahead,
        **kw,
    )
    return cl, sd


@st.composite
def symmetric_case(draw):
    """P divides every bucket size: every link carries the same messages (formula exact)."""
    P = draw(st.integers(2, 6))
    B = draw(st.integers(1, 5))
    sizes = [P * draw(st.integers(1, 6)) for _ in range(B)]
    compute = draw(st.floats(0.0, 2.0))
    if draw(st.booleans()):
        ready = sorted(draw(st.lists(st.floats(0.0, 1.0), min_size=B, max_size=B)))
        timing = {"ready": [compute * r for r in ready]}
    else:
        timing = {"backward_fraction": draw(st.floats(0.0, 1.0))}
    return dict(
        compute=compute,
        P=P,
        sizes=sizes,
        bits=draw(st.sampled_from([2, 3, 8, 16])),
        alpha=draw(st.floats(0.0, 1e-2)),
        beta=draw(st.floats(1e-6, 1e-3)),
        beta_qubit=draw(st.one_of(st.none(), st.floats(0.0, 2e-3))),
        ahead=draw(st.integers(0, 2)),
        timing=timing,
    )


@settings(max_examples=150, deadline=None)
@given(c=symmetric_case(), transport=st.sampled_from(["classical", "superdense"]))
def test_simulation_agrees_with_the_closed_form(c, transport):
    kw = dict(buckets=c["sizes"], transport=transport, **c["timing"])
    if transport == "superdense":  # the options of the superdense ring only
        kw.update(beta_qubit=c["beta_qubit"], ahead=c["ahead"])
    args = (c["compute"], c["P"], sum(c["sizes"]), c["bits"], c["alpha"], c["beta"])
    sim = bucketed_iteration_time(*args, method="simulate", **kw)
    form = bucketed_iteration_time(*args, method="formula", **kw)
    assert sim.total == pytest.approx(form.total, rel=1e-9)
    assert sim.online == pytest.approx(form.online, rel=1e-12)
    assert sim.distribution == pytest.approx(form.distribution, rel=1e-12)
    assert sim.idle == pytest.approx(form.idle, rel=1e-6, abs=1e-9 * form.total)
    # the link cannot carry more than one iteration's worth per iteration
    assert sim.total >= sim.online + sim.distribution - 1e-9 * sim.total
    assert sim.tail == pytest.approx(sim.total - sim.compute)


def test_classical_buckets_by_hand():
    """P = 2, two buckets of 2 words of 8 bits, alpha = 1, beta = 0.5: a bucket's ring is
    2 steps of (1 + 8 * 0.5) = 10 s. Compute 12 s, backward fraction 1/2: ready at 9 and 12.
    e_0 = 9 + 10 = 19, e_1 = max(12, 19) + 10 = 29."""
    it = bucketed_iteration_time(12.0, 2, 4, 8, 1.0, 0.5, buckets=2, backward_fraction=0.5)
    assert it.ready == (9.0, 12.0)
    assert it.total == pytest.approx(29.0) and it.tail == pytest.approx(17.0)
    assert it.online == pytest.approx(20.0) and it.distribution == 0.0
    assert it.idle == pytest.approx(9.0)
    # superdense: rings of 2 * (1 + 4 * 0.5) = 6 s; distribution blocks 1 + 8 * 0.5 = 5 s each.
    # e_0 = max(9, 5) + 6 = 15, e_1 = max(12, 15, 5 + 5 + 6) + 6 = 22 (the link: 12 + 10 < 22)
    sd = bucketed_iteration_time(
        12.0, 2, 4, 8, 1.0, 0.5, buckets=2, backward_fraction=0.5, transport="superdense"
    )
    assert sd.total == pytest.approx(22.0)
    assert sd.online == pytest.approx(12.0) and sd.distribution == pytest.approx(10.0)
    # link 0's schedule in one steady iteration: online and distribution never overlap
    busy = [(a, b) for a, b, _, _ in sd.schedule]
    assert all(b1 <= a2 + 1e-12 for (_, b1), (a2, _) in zip(busy, busy[1:]))
    assert sum(b - a for a, b, k, _ in sd.schedule if k == "online") == pytest.approx(12.0)
    assert sum(b - a for a, b, k, _ in sd.schedule if k == "distribution") == pytest.approx(10.0)


@pytest.mark.parametrize("transport", ["classical", "superdense"])
@pytest.mark.parametrize("compute", [0.0, 5e-5, 1.12e-4, 3e-3])
def test_one_bucket_without_memory_is_the_non_overlapped_model(transport, compute):
    """B = 1, pairs distributed in the same iteration: iteration_time's model, exactly when
    alpha = 0, and within the distribution's one alpha otherwise."""
    P, d, bits, beta = 8, 8000, 16, 1e-9
    kw = dict(buckets=1, transport=transport, ahead=0 if transport == "superdense" else None)
    old = iteration_time(compute, P, d, bits, 0.0, beta, transport=transport)
    new = bucketed_iteration_time(compute, P, d, bits, 0.0, beta, **kw)
    assert new.total == pytest.approx(old.total, rel=1e-12)
    alpha = 2e-6
    old = iteration_time(compute, P, d, bits, alpha, beta, transport=transport)
    new = bucketed_iteration_time(compute, P, d, bits, alpha, beta, **kw)
    assert old.total - 1e-15 <= new.total <= old.total + alpha + 1e-15


@pytest.mark.parametrize(
    "P,sizes,bits", [(4, [400, 400, 800], 16), (3, [9, 3], 8), (5, [5, 10, 15, 20], 2)]
)
def test_lifetime_link_use_equals_the_classical_bits(P, sizes, bits):
    """Even messages, beta_qubit = beta: online + distribution link time of the superdense ring
    equals the classical ring's link time plus one alpha per distribution block."""
    alpha, beta = 3e-6, 1e-9
    cl, sd = both(0.01, P, sum(sizes), bits, alpha, beta, buckets=sizes)
    assert sd.online + sd.distribution == pytest.approx(cl.online + len(sizes) * alpha, rel=1e-12)


def test_lifetime_with_odd_messages_pays_one_qubit_each():
    """P = 3, one bucket of 7 words of 5 bits: the busiest link's messages have 15, 10, 10, 15
    bits, so the superdense link time exceeds the classical one by 2 qubits (+ one alpha)."""
    beta = 1.0
    cl, sd = both(0.0, 3, 7, 5, 0.0, beta, buckets=1)
    assert cl.online == 50.0
    assert sd.online == 26.0 and sd.distribution == 26.0
    assert sd.online + sd.distribution == cl.online + 2 * beta


@pytest.mark.parametrize("B", [1, 3, 8])
def test_no_gain_when_the_link_is_busy_the_whole_iteration(B):
    """All gradients ready at once at the start (no compute): the classical link never idles, so
    the superdense ring cannot be faster; it loses exactly its B distribution alphas."""
    P, d, bits, alpha, beta = 8, 8 * B * 1000, 16, 5e-6, 1e-10
    cl, sd = both(0.0, P, d, bits, alpha, beta, buckets=B)
    assert cl.idle == pytest.approx(0.0, abs=1e-15)
    assert sd.total == pytest.approx(cl.total + B * alpha, rel=1e-12)
    assert sd.idle == pytest.approx(0.0, abs=1e-12)


@settings(max_examples=120, deadline=None)
@given(
    P=st.integers(2, 8),
    B=st.integers(1, 8),
    m=st.integers(1, 50),
    x=st.floats(0.0, 4.0),
    alpha=st.floats(0.0, 1e-3),
    phi=st.floats(0.0, 1.0),
)
def test_gain_is_critical_path_halving_capped_by_idle_link_time(P, B, m, x, alpha, phi):
    """beta_qubit = beta, even messages: gain = min(e_cl - e_q, idle_cl - B alpha), where e_q
    is the schedule with free pairs (the classical schedule at half the time per bit)."""
    bits, beta = 16, 1e-6
    d = P * B * m
    W = ring_time(P, d, bits, 0.0, beta)
    kw = dict(buckets=B, backward_fraction=phi, method="formula")
    cl, sd = both(x * W, P, d, bits, alpha, beta, **kw)
    free = bucketed_iteration_time(x * W, P, d, bits, alpha, beta / 2, **kw)
    want = min(cl.total - free.total, cl.idle - B * alpha)
    assert cl.total - sd.total == pytest.approx(want, rel=1e-9, abs=1e-12 * cl.total)
    assert cl.total - sd.total <= cl.idle + 1e-12 * cl.total


@settings(max_examples=60, deadline=None)
@given(
    P=st.integers(2, 8),
    B=st.integers(1, 6),
    m=st.integers(1, 30),
    x=st.floats(0.0, 4.0),
    alpha=st.floats(0.0, 1e-3),
    factor=st.floats(2.0, 4.0),
)
def test_a_qubit_costing_two_bits_never_helps(P, B, m, x, alpha, factor):
    d, bits, beta = P * B * m, 16, 1e-6
    W = ring_time(P, d, bits, 0.0, beta)
    cl, sd = both(x * W, P, d, bits, alpha, beta, buckets=B, beta_qubit=factor * beta)
    assert sd.total >= cl.total * (1 - 1e-12)


def test_compute_bound_gain_is_the_halved_tail():
    """Plenty of compute per bucket: every bucket finishes before the next is ready, and the only
    gain is the last bucket's halved bandwidth term, (P-1) (n/P) b beta."""
    P, B, m, bits, alpha, beta = 8, 5, 1000, 16, 5e-6, 1e-10
    d = P * B * m
    cl, sd = both(1.0, P, d, bits, alpha, beta, buckets=B)
    assert cl.tail == pytest.approx(ring_time(P, d // B, bits, alpha, beta))
    assert cl.tail - sd.tail == pytest.approx((P - 1) * m * bits * beta, rel=1e-9)


def test_relative_gain_vanishes_when_communication_dominates():
    P, bits, alpha = 8, 16, 5e-6
    ratios = []
    for beta in (1e-10, 1e-9, 1e-8, 1e-7):  # 10 Gbit/s down to 10 Mbit/s
        cl, sd = both(0.05, P, RESNET, bits, alpha, beta, buckets=5, method="formula")
        assert cl.total - sd.total <= cl.idle
        ratios.append(sd.total / cl.total)
    assert all(a < b for a, b in zip(ratios, ratios[1:]))
    assert ratios[0] < 0.8 and ratios[-1] > 0.999


@pytest.mark.parametrize("ahead", [1, 2])
@pytest.mark.parametrize("x", [0.3, 0.8, 1.5])
def test_pairs_need_not_live_across_iterations(ahead, x):
    """Distributing a whole iteration ahead gives the same steady state as distributing within
    the iteration (the max-plus recursion for ahead = 0 reduces to max(e_q, link time))."""
    P, B, m, bits, beta = 4, 4, 50, 16, 1e-6
    d = P * B * m
    W = ring_time(P, d, bits, 0.0, beta)
    runs = [
        bucketed_iteration_time(
            x * W, P, d, bits, 2e-6, beta, buckets=B, transport="superdense", ahead=a
        )
        for a in (0, ahead)
    ]
    assert runs[0].total == pytest.approx(runs[1].total, rel=1e-12)


def test_with_ahead_zero_each_bucket_waits_for_its_own_pairs():
    P, B, m, bits, beta = 4, 3, 50, 16, 1e-6
    d = P * B * m
    W = ring_time(P, d, bits, 0.0, beta)
    it = bucketed_iteration_time(
        0.4 * W, P, d, bits, 1e-6, beta, buckets=B, transport="superdense", ahead=0
    )
    for j in range(B):
        first_online = min(a for a, _, k, b in it.schedule if k == "online" and b == j)
        last_dist = max(e for _, e, k, b in it.schedule if k == "distribution" and b == j)
        assert last_dist <= first_online + 1e-15
    assert sum(1 for *_, k, _ in it.schedule if k == "online") == B * 2 * (P - 1)


def test_uneven_chunks_formula_is_close_to_the_simulation():
    """ResNet-50 is not divisible into equal chunks: the formula charges each step its largest
    message; the event simulation is exact. They differ by far less than the gains."""
    for P, B in ((8, 5), (16, 3)):
        for tr in ("classical", "superdense"):
            kw = dict(buckets=B, transport=tr)
            sim = bucketed_iteration_time(0.05, P, RESNET, 16, 5e-6, 1e-10, **kw)
            form = bucketed_iteration_time(0.05, P, RESNET, 16, 5e-6, 1e-10, method="formula", **kw)
            assert 0.0 <= form.total - sim.total <= 1e-4 * sim.total


def test_resnet50_like_for_like_example():
    """The chapter's example (P = 8, 16-bit words, 100 Gbit/s, alpha = 5 us, 20 ms compute) with
    DDP-like buckets: the like-for-like ratio is far from the non-overlapped model's."""
    args = (20e-3, 8, RESNET, 16, 5e-6, 1e-11)
    old = iteration_time(*args, transport="superdense").total / iteration_time(*args).total
    cl, sd = both(*args, buckets=5)
    assert round(old, 3) == 0.869
    assert 0.95 < sd.total / cl.total < 0.99
    # the whole gain is the halved tail of the last bucket
    assert cl.total - sd.total == pytest.approx(cl.tail - sd.tail)
    assert cl.total - sd.total == pytest.approx(
        7 * math.ceil(RESNET / 5 / 8) * 16 * 1e-11, rel=1e-3
    )


@pytest.mark.parametrize("B", [1, 2, 3, 8, 24])
@pytest.mark.parametrize("phi", [0.5, 2 / 3, 0.9])
def test_best_ratio_matches_a_search_over_compute(B, phi):
    P, bits, beta = 8, 16, 1e-9
    d = P * B * 100
    W = ring_time(P, d, bits, 0.0, beta)
    h = 1 - phi + phi / B
    x_star = min(1 - 1 / (2 * B), 1 / (2 * h))
    grid = np.concatenate([np.linspace(0.01, 3.0, 300), [x_star]])
    ratios = []
    for x in grid:
        cl, sd = both(
            x * W, P, d, bits, 0.0, beta, buckets=B, backward_fraction=phi, method="formula"
        )
        ratios.append(sd.total / cl.total)
    assert min(ratios) == pytest.approx(bucketed_best_ratio(B, phi), rel=1e-9)
    assert ratios[-1] == pytest.approx(min(ratios), rel=1e-9)  # attained at x*


def test_best_ratio_limits():
    assert bucketed_best_ratio(1) == pytest.approx(2 / 3)
    assert bucketed_best_ratio(10**9) == pytest.approx(0.75, rel=1e-6)
    assert bucketed_best_ratio(10**9, backward_fraction=0.9) == pytest.approx(1 / 1.1, rel=1e-6)
    ratios = [bucketed_best_ratio(b) for b in range(1, 40)]
    assert all(a <= b for a, b in zip(ratios, ratios[1:]))


def test_result_is_frozen_with_short_repr():
    it = bucketed_iteration_time(0.02, 4, 4000, 16, 1e-6, 1e-9, buckets=4, transport="superdense")
    assert isinstance(it, BucketedIteration)
    with pytest.raises(AttributeError):
        it.total = 0.0
    r = repr(it)
    assert r.startswith("BucketedIteration(transport='superdense', buckets=4, ahead=1")
    assert "schedule" not in r and len(r) < 220
    assert r == repr(
        bucketed_iteration_time(0.02, 4, 4000, 16, 1e-6, 1e-9, buckets=4, transport="superdense")
    )


@pytest.mark.parametrize(
    "kwargs,exc,pattern",
    [
        ({"buckets": 0}, ValueError, r"buckets.*1\.\.100"),
        ({"buckets": 101}, ValueError, r"buckets.*1\.\.100"),
        ({"buckets": 2.5}, TypeError, r"buckets"),
        ({"buckets": "4"}, TypeError, r"buckets"),
        ({"buckets": True}, TypeError, r"buckets"),
        ({"buckets": [50, 40]}, ValueError, r"buckets.*sum to d = 100"),
        ({"buckets": [100, 0]}, ValueError, r"bucket size"),
        (
            {
                "buckets": [],
            },
            ValueError,
            r"buckets",
        ),
        ({"buckets": 2, "ready": [0.1]}, ValueError, r"ready.*one time per bucket"),
        ({"buckets": 2, "ready": [0.5, 0.1]}, ValueError, r"ready.*non-decreasing"),
        ({"buckets": 2, "ready": [0.1, 2.0]}, ValueError, r"ready.*\[0, 1\]"),
        ({"buckets": 2, "ready": 0.5}, TypeError, r"ready"),
        (
            {"buckets": 2, "ready": [0.1, 0.2], "backward_fraction": 0.5},
            ValueError,
            r"either ready.*or backward_fraction",
        ),
        ({"buckets": 2, "backward_fraction": 1.5}, ValueError, r"backward_fraction"),
        ({"buckets": 2, "ahead": -1}, ValueError, r"ahead"),
        ({"buckets": 2, "method": "exact"}, ValueError, r"method"),
        ({"buckets": 2, "transport": "quantum"}, ValueError, r"transport"),
        ({"buckets": 2, "beta_qubit": -1.0}, ValueError, r"beta_qubit"),
    ],
)
def test_bad_input(kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        bucketed_iteration_time(1.0, 4, 100, 8, 0.0, 1e-9, **kwargs)


@pytest.mark.parametrize("method", ["simulate", "formula"])
def test_an_iteration_is_never_shorter_than_its_compute(method):
    """Buckets ready early (here all by 20 ms of a 50 ms compute): the next iteration still
    starts only when the compute is over."""
    for transport in ("classical", "superdense"):
        it = bucketed_iteration_time(
            0.05,
            4,
            400,
            16,
            1e-6,
            1e-9,
            buckets=2,
            ready=[0.01, 0.02],
            transport=transport,
            method=method,
        )
        assert it.total >= it.compute and it.tail >= 0.0
        assert it.total == pytest.approx(0.05)


@pytest.mark.parametrize("option", [{"beta_qubit": 1e-9}, {"ahead": 2}])
def test_options_of_the_superdense_ring_are_refused_classically(option):
    with pytest.raises(ValueError, match=f"{next(iter(option))}.*superdense"):
        bucketed_iteration_time(1.0, 4, 100, 8, 0.0, 1e-9, buckets=2, **option)
    if "beta_qubit" in option:
        with pytest.raises(ValueError, match="beta_qubit.*superdense"):
            iteration_time(1.0, 4, 100, 8, 0.0, 1e-9, **option)


def test_simulation_size_is_refused_up_front():
    with pytest.raises(ValueError, match=r"method='simulate'.*formula"):
        bucketed_iteration_time(1.0, 1000, 10**6, 16, 0.0, 1e-9, buckets=4)
    # the closed form takes any ring, in O(B) work
    it = bucketed_iteration_time(1.0, 10**9, 10**12, 16, 0.0, 1e-12, buckets=4, method="formula")
    assert it.online == pytest.approx(link_units(10**9, 10**12, 16) * 1e-12)


def test_bad_input_common_arguments():
    with pytest.raises(ValueError, match="compute"):
        bucketed_iteration_time(-1.0, 4, 100, 8, 0.0, 1e-9, buckets=1)
    with pytest.raises(ValueError, match=r"P.*>= 2"):
        bucketed_iteration_time(1.0, 1, 100, 8, 0.0, 1e-9, buckets=1)
    with pytest.raises(TypeError, match="buckets"):
        bucketed_best_ratio(2.0)
    with pytest.raises(ValueError, match="backward_fraction"):
        bucketed_best_ratio(2, -0.1)


def test_docstring_examples_run():
    result = doctest.testmod(costmodel, raise_on_error=False, verbose=False)
    assert result.attempted >= 4 and result.failed == 0
