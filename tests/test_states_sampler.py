"""The Pauli-frame sampler of the core (qring_edu.states.frame_blocks and its users).

The sampler draws one uniform U per error: T = log(1 - U) / log(1 - p) gives the gap to the next
error, floor(T) + 1 ~ Geometric(p), and the frame from the fractional part of T. These tests
check (1) the exact laws against their formulas: the gap histogram against P(G = k) = (1 - p)^(k -
1) p, the frame frequencies against the requested conditional probabilities, and independence of
frame and gap (the fractional-part construction relies on it); (2) the documented stream itself,
replayed from scratch with NumPy primitives; (3) edge cases (p = 0, p = 1, tiny p, many blocks).
Statistical tests use fixed seeds and state their tolerance (chi-squared at level 1e-4, or 5 s.d.).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from qring_edu import states
from qring_edu.states import (
    GAP_BLOCK,
    bernoulli_positions,
    frame_blocks,
    pauli_frames,
    pauli_frames_distribution,
    slot_major_frames,
)

ALPHA = 1e-4


def gaps_of(positions: np.ndarray) -> np.ndarray:
    """Gaps between successive errors, the first counted from trial -1 (so every gap is >= 1)."""
    return np.diff(np.concatenate([[-1], positions]))


def chi2_geometric(gaps: np.ndarray, p: float) -> float:
    """p-value of the chi-squared test of the gaps against Geometric(p) (bins with >= 20
    expected counts, the rest pooled into the tail bin)."""
    n = gaps.size
    kmax = 1
    while n * (1 - p) ** kmax * p >= 20:  # expected count of the bin k = kmax + 1
        kmax += 1
    expected = np.array(
        [n * (1 - p) ** (k - 1) * p for k in range(1, kmax + 1)] + [n * (1 - p) ** kmax]
    )  # tail: G > kmax
    observed = np.bincount(np.minimum(gaps, kmax + 1) - 1, minlength=kmax + 1)
    return float(stats.chisquare(observed, expected).pvalue)


@pytest.mark.parametrize("p", [0.001, 0.0199, 0.05, 0.3, 0.75])
def test_gaps_follow_the_geometric_law(p):
    # Gaps of the complete stream, not the first block only: n spans many blocks for large p.
    n = int(400_000 / p)
    pos = bernoulli_positions(n, p, np.random.default_rng(int(1e6 * p)))
    assert np.all(np.diff(pos) > 0) and pos[0] >= 0 and pos[-1] < n
    k = pos.size
    assert abs(k - n * p) <= 5 * math.sqrt(n * p * (1 - p))
    assert chi2_geometric(gaps_of(pos)[1:], p) > ALPHA


def test_gap_test_rejects_a_wrong_law():
    # The histogram test can fail: gaps of rate 0.0199 tested against 0.0205 (3 % apart).
    pos = bernoulli_positions(40_000_000, 0.0199, np.random.default_rng(5))
    assert chi2_geometric(gaps_of(pos)[1:], 0.0199) > ALPHA
    assert chi2_geometric(gaps_of(pos)[1:], 0.0205) < ALPHA


@pytest.mark.parametrize(
    "probs",
    [
        (0.95, 0.05 / 3, 0.05 / 3, 0.05 / 3),
        (0.9, 0.07, 0.02, 0.01),
        (0.4, 0.1, 0.3, 0.2),
        (0.7, 0.0, 0.3, 0.0),
        (0.5, 0.25, 0.0, 0.25),
    ],
)
def test_frame_codes_follow_the_requested_distribution(probs):
    n = 3_000_000
    pos, codes = pauli_frames_distribution(n, probs, np.random.default_rng(11))
    p_err = 1 - probs[0]
    assert abs(pos.size - n * p_err) <= 5 * math.sqrt(n * p_err * (1 - p_err))
    counts = np.bincount(codes, minlength=4)
    assert counts[0] == 0
    for code in (1, 2, 3):
        q = probs[code]
        want = n * q
        if q == 0:
            assert counts[code] == 0
        else:
            assert abs(counts[code] - want) <= 5 * math.sqrt(want * (1 - q))


def test_frame_is_independent_of_the_gap():
    # The frame is read from the fractional part of the same T whose integer part is the gap:
    # a contingency table of (gap class, frame) must show no dependence.
    p = 0.05
    pos, codes = pauli_frames(4_000_000, 1 - p, np.random.default_rng(3))
    g = gaps_of(pos)
    gap_class = np.digitize(g, [2, 5, 10, 20, 40, 80])
    table = np.zeros((7, 3))
    np.add.at(table, (gap_class, codes - 1), 1)
    assert stats.chi2_contingency(table).pvalue > ALPHA
    # ... and a dependent pairing (frame drawn from the gap's parity) is caught by the same test
    fake = 1 + (g % 3)
    table_fake = np.zeros((7, 3))
    np.add.at(table_fake, (gap_class, fake - 1), 1)
    assert stats.chi2_contingency(table_fake).pvalue < ALPHA


def replay_frame_blocks(n: int, p: float, rng: np.random.Generator, conditional):
    """The documented stream of frame_blocks, from scratch (one uniform per error)."""
    pos_all, codes_all, start = [], [], 0
    cx, cxz = conditional[0], conditional[0] + conditional[1]
    while start < n:
        mean = (n - start) * p
        m = int(min(GAP_BLOCK, mean + 6 * math.sqrt(mean) + 16))
        u = rng.random(m)
        t = np.log(1 - u) / math.log(1 - p)
        gaps = np.floor(t).astype(np.int64) + 1
        pos = start - 1 + np.cumsum(gaps)
        frac = t - np.floor(t)
        # frac < r has probability (1 - (1 - p)^r) / p: map it to a uniform V and cut V
        v = (1 - (1 - p) ** frac) / p
        codes = 1 + (v >= cx).astype(np.uint8) + (v >= cxz)
        inside = pos < n
        pos_all.append(pos[inside])
        codes_all.append(codes[inside])
        if not inside.all():
            break
        start = int(pos[-1]) + 1
    return np.concatenate(pos_all), np.concatenate(codes_all).astype(np.uint8)


@pytest.mark.parametrize(
    "n, p",
    [(1, 0.5), (1000, 0.01), (200_000, 0.05), (5_000_000, 0.02), (100_000, 0.75), (10**12, 1e-9)],
)
@pytest.mark.parametrize("conditional", [(1 / 3, 1 / 3, 1 / 3), (0.6, 0.3, 0.1)])
def test_stream_is_the_documented_one(n, p, conditional):
    p = 1 - (1 - p)  # the error rate the samplers see when given F = 1 - p
    want_pos, want_codes = replay_frame_blocks(n, p, np.random.default_rng(7), conditional)
    probs = (1 - p, *(p * c for c in conditional))
    got_pos, got_codes = pauli_frames_distribution(n, probs, np.random.default_rng(7))
    np.testing.assert_array_equal(got_pos, want_pos)
    # codes: the same up to a last-ulp difference of the thresholds (the replay computes V,
    # the sampler compares the fractional part with precomputed cuts)
    assert np.sum(got_codes != want_codes) <= 1e-6 * got_codes.size
    # pauli_frames and bernoulli_positions are the same stream
    if conditional[0] == 1 / 3:
        pos, codes = pauli_frames(n, 1 - p, np.random.default_rng(7))
        np.testing.assert_array_equal(pos, want_pos)
        assert np.sum(codes != want_codes) <= 1e-6 * codes.size
    np.testing.assert_array_equal(bernoulli_positions(n, p, np.random.default_rng(7)), want_pos)


def test_blocks_are_views_the_caller_may_change():
    # slot_major_frames subtracts in place; the stream must not depend on it
    a = [(p.copy(), c.copy()) for p, c in frame_blocks(3_000_000, 0.05, np.random.default_rng(2))]
    b = []
    for p, c in frame_blocks(3_000_000, 0.05, np.random.default_rng(2)):
        b.append((p.copy(), c.copy()))
        p[:] = -1
        c[:] = 0
    assert len(a) > 3  # several blocks
    for (pa, ca), (pb, cb) in zip(a, b):
        np.testing.assert_array_equal(pa, pb)
        np.testing.assert_array_equal(ca, cb)


def test_nested_runs_do_not_share_buffers():
    outer = frame_blocks(1_000_000, 0.1, np.random.default_rng(4))
    first, _ = next(outer)
    kept = first.copy()
    inner = pauli_frames(1_000_000, 0.9, np.random.default_rng(5))  # runs while outer is live
    np.testing.assert_array_equal(first, kept)
    assert inner[0].size > 0
    outer.close()


def test_edge_cases():
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    assert bernoulli_positions(100, 0.0, rng).size == 0
    assert pauli_frames(0, 0.5, rng)[0].size == 0
    assert pauli_frames(100, 1.0, rng)[0].size == 0
    assert rng.bit_generator.state == state  # nothing drawn
    np.testing.assert_array_equal(
        bernoulli_positions(GAP_BLOCK + 5, 1.0, rng), np.arange(GAP_BLOCK + 5)
    )
    assert rng.bit_generator.state == state
    # every symbol errs (p_I = 0): frames still follow the distribution
    pos, codes = pauli_frames_distribution(90_000, (0.0, 0.5, 0.5, 0.0), rng)
    np.testing.assert_array_equal(pos, np.arange(90_000))
    assert set(codes.tolist()) == {1, 2}
    assert abs(np.mean(codes == 1) - 0.5) < 5 * math.sqrt(0.25 / 90_000)
    # a tiny error rate on a huge stream: no int64 overflow, positions in range
    pos = bernoulli_positions(10**15, 1e-14, np.random.default_rng(1))
    assert np.all((0 <= pos) & (pos < 10**15)) and np.all(np.diff(pos) > 0)
    assert 0 < pos.size < 40  # expected 10
    for F in (1 - 2**-52, 1 - 1e-15):
        assert pauli_frames(10**6, F, np.random.default_rng(2))[0].size <= 1


def test_slot_major_pieces():
    n_units, n_slots, p = 50_000, 8, 0.03
    pieces = list(
        (s, u.copy(), c.copy())
        for s, u, c in slot_major_frames(n_units, n_slots, p, np.random.default_rng(9))
    )
    pos, codes = pauli_frames(n_units * n_slots, 1 - p, np.random.default_rng(9))
    # the pieces are the trials t = s * n_units + u of the same stream, in order, split by slot
    np.testing.assert_array_equal(np.concatenate([s * n_units + u for s, u, _ in pieces]), pos)
    np.testing.assert_array_equal(np.concatenate([c for _, _, c in pieces]), codes)
    for s, u, _ in pieces:
        assert 0 <= s < n_slots and np.all((0 <= u) & (u < n_units)) and np.all(np.diff(u) > 0)
    # units never repeat within a slot: a fancy-indexed update per piece is exact
    for s in range(n_slots):
        u = np.concatenate([u for t, u, _ in pieces if t == s])
        assert np.unique(u).size == u.size


def test_workspace_is_per_thread():
    import threading

    results = {}

    def run(key, seed):
        results[key] = pauli_frames(2_000_000, 0.95, np.random.default_rng(seed))

    threads = [threading.Thread(target=run, args=(i, 100 + i)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(4):
        want = pauli_frames(2_000_000, 0.95, np.random.default_rng(100 + i))
        np.testing.assert_array_equal(results[i][0], want[0])
        np.testing.assert_array_equal(results[i][1], want[1])
    assert states._workspace() is states._workspace()


def test_segment_pieces_cover_the_stream_in_order():
    lengths = [0, 7, 50_000, 0, 0, 123_457, 1, 80_000, 0]
    starts = np.concatenate([[0], np.cumsum(lengths)])
    pieces = [
        (j, u.copy(), c.copy())
        for j, u, c in states.segment_frames(lengths, 0.04, np.random.default_rng(21))
    ]
    pos, codes = pauli_frames(int(starts[-1]), 0.96, np.random.default_rng(21))
    assert [j for j, _, _ in pieces] == sorted(j for j, _, _ in pieces)  # segment order
    assert all(lengths[j] > 0 for j, _, _ in pieces)
    np.testing.assert_array_equal(np.concatenate([starts[j] + u for j, u, _ in pieces]), pos)
    np.testing.assert_array_equal(np.concatenate([c for _, _, c in pieces]), codes)
    for j, u, _ in pieces:
        assert np.all((0 <= u) & (u < lengths[j])) and np.all(np.diff(u) > 0)
