"""VGA — Verified GHZ Aggregation (qring_edu.vga): sums, privacy statistics, verification,
sources as values, the one pad generator, dropout, circuits vs fast path, bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from qiskit.quantum_info import Statevector
from scipy.stats import chi2_contingency, chisquare

from qring_edu import modular_sum
from qring_edu.vga import (
    Dephasing,
    Eavesdropper,
    Honest,
    KnownPads,
    known_pads_detection,
    sample_sum_shift,
    vga_aggregate,
    vga_aggregate_qiskit,
    vga_circuit,
    vga_copy_counts,
    vga_restart,
    vga_ring_allreduce,
    zero_sum_pads,
)
from qring_edu.vga_security import (
    detection_probability,
    even_y_settings,
    ghz_test_circuit,
    ghz_test_pass_probability,
    vga_outcome_probabilities,
)

P_MIN = 1e-4  # chi-squared p-value floor; every test is seeded, so this is a fixed verdict


def _codes(transcript: np.ndarray, bits: int, workers: int | None = None) -> np.ndarray:
    """Encode the first ``workers`` announcements of each entry as one integer (worker 0 lowest)."""
    rows = transcript if workers is None else transcript[:workers]
    return sum(rows[j].astype(np.int64) << (bits * j) for j in range(rows.shape[0]))


# -- exact sums ---------------------------------------------------------------------------------
@given(
    P=st.integers(2, 9),
    d=st.integers(1, 40),
    bits=st.integers(2, 32),
    seed=st.integers(0, 2**32 - 1),
    source=st.sampled_from([Honest(), KnownPads(), KnownPads(0.3), Eavesdropper(0.6), "honest"]),
)
def test_sum_is_exact_for_every_non_dephasing_source(P, d, bits, seed, source):
    rng = np.random.default_rng(seed)
    x = rng.integers(-(1 << (bits - 1)), 1 << (bits - 1), size=(P, d), dtype=np.int64)
    res = vga_aggregate(x, bits=bits, source=source, seed=seed)
    assert np.array_equal(res.total, modular_sum(x, bits))
    assert res.transcript.shape == (P, d) and res.transcript.min() >= 0
    assert res.transcript.max() < 2**bits
    assert np.array_equal(modular_sum(res.transcript, bits), res.total)
    assert res.ghz_used == d * bits and res.complete
    if source in (Honest(), "honest"):
        assert res.accepted and res.tests_failed == 0 and res.bad_used == 0
        assert res.source == Honest()


def test_unsigned_and_signed_words_give_the_same_sum():
    x = np.array([[250, 3], [10, 255]])
    signed = np.array([[-6, 3], [10, -1]])
    a = vga_aggregate(x, bits=8, seed=1)
    b = vga_aggregate(signed, bits=8, seed=1)
    assert np.array_equal(a.total, b.total) and a.total.tolist() == [4, 2]
    assert np.array_equal(a.transcript, b.transcript)


def test_copy_accounting_and_default_overhead():
    res = vga_aggregate(np.zeros((3, 100), dtype=int), bits=5, seed=0)
    assert (res.n_copies, res.n_tested) == (200, 100)
    assert res.ghz_used == 500 and res.ghz_tested == 500 and res.ghz_delivered == 1000
    assert res.tests == 500 == res.tests_passed
    for d in range(1, 60):
        for f in (0.0, 0.1, 0.25, 0.3, 0.5, 0.6, 0.75, 0.9, 0.95):
            n, t = vga_copy_counts(d, f)
            assert n - t == d and t == math.ceil(f * n - 1e-9) and t >= f * n - 1e-9
    none = vga_aggregate(np.ones((2, 7), dtype=int), bits=4, test_fraction=0.0, seed=0)
    assert none.n_tested == 0 and none.ghz_tested == 0 and none.accepted


def test_deterministic_given_seed_and_repr():
    x = np.arange(12).reshape(3, 4)
    a = vga_aggregate(x, bits=6, source=Eavesdropper(0.5), seed=7)
    b = vga_aggregate(x, bits=6, source=Eavesdropper(0.5), seed=7)
    assert np.array_equal(a.transcript, b.transcript) and a.tests_failed == b.tests_failed
    assert repr(a) == repr(b)
    assert repr(a).startswith("VGAResult(source=Eavesdropper(fraction=0.5), bits=6,")
    assert "0x" not in repr(a) and "array" not in repr(a)


# -- sources are values ----------------------------------------------------------------------------
def test_sources_are_values_and_strings_other_than_honest_are_refused():
    x = np.ones((2, 3), dtype=int)
    assert vga_aggregate(x, bits=4, source="honest", seed=0).source == Honest()
    for name in ("known_pads", "eavesdropper", "noisy", "Honest"):
        with pytest.raises(ValueError, match="source"):
            vga_aggregate(x, bits=4, source=name)
    for bad in (None, 0.5, KnownPads):
        with pytest.raises(TypeError, match="source"):
            vga_aggregate(x, bits=4, source=bad)
    with pytest.raises(ValueError, match="Dephasing p"):
        Dephasing(1.5)
    with pytest.raises(ValueError, match="KnownPads fraction"):
        KnownPads(-0.1)
    with pytest.raises(ValueError, match="Eavesdropper fraction"):
        Eavesdropper(2.0)
    with pytest.raises(TypeError, match="Dephasing p"):
        Dephasing("0.1")
    # the parameters travel with the source: no keyword of vga_aggregate is valid for one source
    for keyword in ("noise", "eavesdrop_fraction", "attack_fraction"):
        with pytest.raises(TypeError, match=keyword):
            vga_aggregate(x, bits=4, **{keyword: 0.1})
    assert Eavesdropper(0.25) != KnownPads(0.25) and Dephasing(0.1) == Dephasing(0.1)


# -- privacy: uniform announcements, independent of the inputs given the sum --------------------
def test_each_announcement_is_uniform():
    bits, d = 3, 16_000
    x = np.tile(np.array([[5], [1], [6]]), d)
    res = vga_aggregate(x, bits=bits, seed=11)
    for j in range(3):
        counts = np.bincount(res.transcript[j], minlength=2**bits)
        assert chisquare(counts).pvalue > P_MIN
    # Any P - 1 announcements are jointly uniform (the last one is fixed by the sum).
    joint = np.bincount(_codes(res.transcript, bits, 2), minlength=4**bits)
    assert chisquare(joint).pvalue > P_MIN


def test_transcripts_of_equal_sum_inputs_are_indistinguishable():
    bits, d = 2, 12_000
    x_a = np.tile(np.array([[0], [0], [3]]), d)  # sum 3
    x_b = np.tile(np.array([[3], [2], [2]]), d)  # sum 7 = 3 mod 4
    t_a = vga_aggregate(x_a, bits=bits, seed=1).transcript
    t_b = vga_aggregate(x_b, bits=bits, seed=2).transcript
    table = np.vstack(
        [
            np.bincount(_codes(t_a, bits), minlength=4**3),
            np.bincount(_codes(t_b, bits), minlength=4**3),
        ]
    )
    table = table[:, table.sum(axis=0) > 0]
    assert table.shape[1] == 16  # the 16 transcripts with sum 3
    assert chi2_contingency(table).pvalue > P_MIN


def test_exact_circuit_distribution_is_uniform_on_the_sum_set():
    for x, bits in (([1, 2, 3], 2), ([5, 0], 3), ([3, 1, 0, 2], 2)):
        probs = vga_outcome_probabilities(x, bits)
        P, s = len(x), sum(x) % 2**bits
        assert len(probs) == 2 ** (bits * (P - 1))
        for m, p in probs.items():
            assert sum(m) % 2**bits == s
            assert abs(p - 2.0 ** (-bits * (P - 1))) < 1e-9


def test_known_pads_circuit_is_deterministic():
    probs = vga_outcome_probabilities([1, 2, 3], 2, pads=[1, 2, 1])
    assert probs.keys() == {(2, 0, 0)} and abs(probs[(2, 0, 0)] - 1) < 1e-9


# -- the one pad generator --------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 7, [3, 1, 4], np.random.SeedSequence(11)])
def test_each_worker_draws_its_own_row_of_the_same_pads(seed):
    for P, d, bits in ((2, 5, 2), (5, 300, 16), (7, 40, 32)):
        pads = zero_sum_pads(P, d, bits, seed)
        assert pads.shape == (P, d) and pads.dtype == np.uint32
        assert int(pads.max()) < 2**bits
        assert np.all(pads.astype(np.uint64).sum(axis=0) % 2**bits == 0)
        for j in range(P):
            row = zero_sum_pads(P, d, bits, seed, worker=j)
            assert row.shape == (d,) and np.array_equal(row, pads[j])
        assert np.array_equal(zero_sum_pads(P, d, bits, seed), pads)  # the seed is not consumed


def test_zero_sum_pads_are_uniform_on_the_zero_sum_tuples():
    P, bits, d = 3, 2, 20_000
    pads = zero_sum_pads(P, d, bits, seed=5)
    for rows in itertools.combinations(range(P), P - 1):  # any P - 1 rows jointly uniform
        codes = sum(pads[r].astype(np.int64) << (bits * k) for k, r in enumerate(rows))
        assert chisquare(np.bincount(codes, minlength=4 ** (P - 1))).pvalue > P_MIN
    rng = np.random.default_rng(3)  # a Generator gives up some of its stream, reproducibly
    a = zero_sum_pads(4, 10, 8, rng)
    b = zero_sum_pads(4, 10, 8, rng)
    assert not np.array_equal(a, b)
    assert np.array_equal(a, zero_sum_pads(4, 10, 8, np.random.default_rng(3)))


def test_zero_sum_pads_bad_input():
    with pytest.raises(ValueError, match="worker"):
        zero_sum_pads(3, 4, 8, None, worker=0)  # fresh pads per call: rows would not match
    with pytest.raises(ValueError, match="worker"):
        zero_sum_pads(3, 4, 8, 1, worker=3)
    with pytest.raises(ValueError, match="workers"):
        zero_sum_pads(1, 4, 8, 1)
    with pytest.raises(ValueError, match="bits"):
        zero_sum_pads(2, 4, 33, 1)
    with pytest.raises(ValueError, match="bits"):
        zero_sum_pads(2, 4, 0, 1)
    with pytest.raises(ValueError, match="seed"):
        zero_sum_pads(2, 4, 8, -1)
    with pytest.raises(TypeError, match="d"):
        zero_sum_pads(2, 4.0, 8, 1)
    with pytest.raises(ValueError, match="GiB"):  # refused before any allocation
        zero_sum_pads(1000, 10**9, 16, 1)
    with pytest.raises(ValueError, match="workers"):  # the last row's loop is capped
        zero_sum_pads(10**9, 1, 16, 1, worker=0)
    with pytest.raises(ValueError, match="n_tests"):
        even_y_settings(10**8, 4, seed=0)


# -- the Qiskit path and the fast path sample the same distribution -----------------------------
def _noisy_exact(x, bits, p):
    """Exact transcript distribution over codes for a noisy source (mixture over flip patterns)."""
    P = len(x)
    dist = np.zeros(2 ** (bits * P))
    for flips in itertools.product([0, 1], repeat=bits):
        w = p ** sum(flips) * (1 - p) ** (bits - sum(flips))
        for m, q in vga_outcome_probabilities(x, bits, flips=flips).items():
            dist[sum(v << (bits * j) for j, v in enumerate(m))] += w * q
    return dist


@pytest.mark.parametrize("source", [Honest(), KnownPads(), Dephasing(0.3)])
def test_aer_and_fast_path_agree(source):
    P, bits, d = 3, 2, 3000
    col = np.array([[2], [3], [1]])
    x = np.tile(col, d)
    aer = vga_aggregate_qiskit(x, bits=bits, source=source, seed=5)
    fast = vga_aggregate(x, bits=bits, source=source, seed=6).transcript
    size = 2 ** (bits * P)
    if isinstance(source, Dephasing):
        exact = _noisy_exact(col[:, 0].tolist(), bits, 0.3)
    else:
        exact = np.zeros(size)
        for m, q in vga_outcome_probabilities(col[:, 0].tolist(), bits).items():
            exact[sum(v << (bits * j) for j, v in enumerate(m))] += q
    support = exact > 1e-12
    for sample in (aer, fast):
        counts = np.bincount(_codes(sample, bits), minlength=size)
        assert counts[~support].sum() == 0
        assert chisquare(counts[support], exact[support] * d).pvalue > P_MIN
    table = np.vstack([np.bincount(_codes(s, bits), minlength=size)[support] for s in (aer, fast)])
    assert chi2_contingency(table[:, table.sum(axis=0) > 0]).pvalue > P_MIN


def test_aer_sums_are_exact_for_honest_and_known_pads_sources():
    rng = np.random.default_rng(3)
    for P, bits in ((2, 3), (3, 3), (4, 3), (4, 2)):
        x = rng.integers(0, 2**bits, size=(P, 25))
        for source in (Honest(), Eavesdropper(0.5)):
            t = vga_aggregate_qiskit(x, bits=bits, source=source, seed=P)
            assert np.array_equal(modular_sum(t, bits), modular_sum(x, bits))


def test_sum_shift_sampler_matches_the_exact_distribution():
    bits = 3
    for flips in itertools.product([0, 1], repeat=bits):
        probs = vga_outcome_probabilities([0, 0], bits, flips=list(flips))
        shift_exact = np.zeros(2**bits)
        for m, q in probs.items():
            shift_exact[sum(m) % 2**bits] += q
        n = 4000
        t = sample_sum_shift(np.tile(np.array(flips, dtype=bool), (n, 1)), seed=sum(flips))
        counts = np.bincount(t, minlength=2**bits)
        sup = shift_exact > 1e-12
        assert counts[~sup].sum() == 0
        if sup.sum() > 1:
            assert chisquare(counts[sup], shift_exact[sup] * n).pvalue > P_MIN
        else:
            assert counts[sup][0] == n


# -- GHZ tests ----------------------------------------------------------------------------------
def _circuit_pass_probability(y, **kw) -> float:
    qc = ghz_test_circuit(y, **kw)
    qc.remove_final_measurements()
    probs = Statevector(qc).probabilities()
    target = (sum(y) // 2) % 2
    return float(sum(p for k, p in enumerate(probs) if bin(k).count("1") % 2 == target))


def test_ghz_test_pass_probability_matches_circuits():
    rng = np.random.default_rng(2)
    for P in (2, 3, 4, 5):
        for y in even_y_settings(6, P, rng):
            assert abs(_circuit_pass_probability(y) - 1.0) < 1e-9
            assert abs(_circuit_pass_probability(y, flip=True)) < 1e-9
            assert abs(ghz_test_pass_probability(y)[0] - 1.0) < 1e-12
            assert abs(ghz_test_pass_probability(y, ghz_phase=np.pi)[0]) < 1e-12
            phases = rng.uniform(0, 2 * np.pi, P)
            circuit = _circuit_pass_probability(y, phases=phases)
            assert abs(circuit - ghz_test_pass_probability(y, phases=phases)[0]) < 1e-9


def test_even_y_settings_are_uniform_on_even_weights():
    y = even_y_settings(40_000, 4, seed=4)
    assert np.all(y.sum(axis=1) % 2 == 0)
    counts = np.bincount(y.astype(int) @ (1 << np.arange(4)), minlength=16)
    even = [k for k in range(16) if bin(k).count("1") % 2 == 0]
    assert counts[[k for k in range(16) if k not in even]].sum() == 0
    assert chisquare(counts[even]).pvalue > P_MIN


def test_known_pads_average_pass_probability_is_the_formula():
    for P, bits in ((2, 2), (3, 3), (4, 5)):
        pads = zero_sum_pads(P, 1, bits, seed=8)[:, 0].astype(np.int64)
        all_y = [
            np.array(s, dtype=bool) for s in itertools.product([0, 1], repeat=P) if sum(s) % 2 == 0
        ]
        for i in range(bits):
            phases = 2 * np.pi * ((pads << i) % 2**bits) / 2**bits
            mean = np.mean([ghz_test_pass_probability(y, phases=phases)[0] for y in all_y])
            assert abs(1 - mean - known_pads_detection(P)) < 1e-12


def test_known_pads_detection_per_test_matches_theory():
    for P in (2, 3, 6):
        res = vga_aggregate(np.zeros((P, 5000), dtype=int), bits=4, source=KnownPads(), seed=P)
        rate = res.tests_failed / res.tests
        delta = known_pads_detection(P)
        assert abs(rate - delta) <= 4 * math.sqrt(delta * (1 - delta) / res.tests)
        assert not res.accepted and res.attacker_accuracy == 1.0
    assert known_pads_detection(2) == 0.25 and abs(known_pads_detection(20) - 0.5) < 1e-5
    assert abs(detection_probability(KnownPads(), 2, bits=2) - 7 / 16) < 1e-15


def test_known_pads_without_tests_is_silent_and_leaks_everything():
    x = np.random.default_rng(0).integers(-8, 8, (4, 300))
    res = vga_aggregate(x, bits=4, source=KnownPads(), test_fraction=0.0, seed=3)
    assert res.accepted and res.tests == 0
    assert np.array_equal(res.total, modular_sum(x, 4))
    assert np.array_equal(res.attacker_guess, x) and res.attacker_accuracy == 1.0


def test_honest_source_leaks_nothing_and_eavesdropper_leaks_its_fraction():
    x = np.random.default_rng(1).integers(0, 256, (4, 20_000))
    honest = vga_aggregate(x, bits=8, seed=1)
    assert abs(honest.attacker_accuracy - 2**-8) < 4 * math.sqrt(2**-8 / x.size)
    eve = vga_aggregate(x, bits=8, source=Eavesdropper(0.3), seed=2)
    known = eve.attacker_knows
    assert eve.bad_used == int(known.sum()) and eve.bad_used + eve.bad_tested == 12_000
    assert abs(known.mean() - 0.3) < 0.02
    assert np.array_equal(eve.attacker_guess[:, known], np.where(x >= 128, x - 256, x)[:, known])
    expected = known.mean() + (1 - known.mean()) * 2**-8
    assert abs(eve.attacker_accuracy - expected) < 0.01
    assert not eve.accepted


def test_dephasing_source_and_tolerance():
    x = np.zeros((3, 2000), dtype=int)
    strict = vga_aggregate(x, bits=4, source=Dephasing(0.05), seed=0)
    assert not strict.accepted
    assert abs(strict.tests_failed / strict.tests - 0.05) < 4 * math.sqrt(0.05 * 0.95 / 8000)
    lenient = vga_aggregate(x, bits=4, source=Dephasing(0.05), tolerance=0.08, seed=0)
    assert lenient.accepted and lenient.tests_failed == strict.tests_failed
    wrong = int(np.count_nonzero(strict.total != 0))  # only entries with a dephased copy
    assert 0 < wrong <= strict.bad_used
    clean = vga_aggregate(x, bits=4, source=Dephasing(0.0), seed=0)
    assert clean.accepted and np.all(clean.total == 0)
    attack = vga_aggregate(x, bits=4, source=KnownPads(), tolerance=0.08, seed=0)
    assert not attack.accepted  # about half its tests fail: far above an 8% tolerance


# -- dropout ------------------------------------------------------------------------------------------
def test_a_dropout_loses_the_round_and_a_restart_recovers_the_survivors_sum():
    P, bits, d = 4, 6, 6000
    x = np.random.default_rng(9).integers(0, 2**bits, size=(P, d))
    lost = vga_aggregate(x, bits=bits, dropped=[2], seed=1)
    survivors = modular_sum(x[[0, 1, 3]], bits)
    assert not lost.complete and lost.announced.tolist() == [True, True, False, True]
    assert np.all(lost.transcript[2] == -1)
    # the received announcements sum to the survivors' sum minus the missing pad: uniform
    offsets = (lost.total - survivors) % 2**bits
    assert chisquare(np.bincount(offsets, minlength=2**bits)).pvalue > P_MIN
    assert abs(np.mean(lost.total == survivors) - 2**-bits) < 4 * math.sqrt(2**-bits / d)
    assert not np.array_equal(lost.total, modular_sum(x, bits))
    run = vga_restart(x, dropped=2, bits=bits, seed=1)
    assert run.survivors == (0, 1, 3) and np.array_equal(run.total, survivors)
    assert run.restart.workers == 3 and run.restart.complete and run.restart.accepted
    assert run.ghz_delivered == run.first.ghz_delivered + run.restart.ghz_delivered == 4 * d * bits
    # the dropped worker's input never reaches anyone: nothing of it in the round's transcript
    assert run.first.attacker_accuracy == pytest.approx(2**-bits, abs=0.01)


def test_dropout_bad_input():
    x = np.ones((3, 4), dtype=int)
    with pytest.raises(ValueError, match="dropped"):
        vga_aggregate(x, bits=4, dropped=[3])
    with pytest.raises(ValueError, match="dropped"):
        vga_aggregate(x, bits=4, dropped=[0, 1, 2])
    with pytest.raises(TypeError, match="dropped"):
        vga_aggregate(x, bits=4, dropped=["a"])
    with pytest.raises(ValueError, match="dropped"):
        vga_restart(x, dropped=[0, 1], bits=4)


# -- composition with the superdense ring --------------------------------------------------------
def test_vga_ring_allreduce_exact_sum_and_ledger():
    rng = np.random.default_rng(5)
    x = rng.integers(-2000, 2000, (5, 37))
    res = vga_ring_allreduce(x, bits=12, seed=3)
    assert np.array_equal(res.total, modular_sum(x, 12)) and res.consistent and res.accepted
    led = res.ledger
    assert led.ring_online_qubits == res.ring.ledger.online_qubits()
    assert led.ring_ebits == led.ring_online_qubits == led.ring_offline_qubits
    assert led.ghz_used == 37 * 12 and led.ghz_tested == 37 * 12
    assert led.ghz_delivered == led.ghz_used + led.ghz_tested
    assert set(led.as_dict()) == {
        "ring_online_qubits",
        "ring_ebits",
        "ring_offline_qubits",
        "ghz_delivered",
        "ghz_used",
        "ghz_tested",
    }
    assert "accepted=True" in repr(res)
    attacked = vga_ring_allreduce(x, bits=12, source=KnownPads(), seed=3)
    assert np.array_equal(attacked.total, modular_sum(x, 12)) and not attacked.accepted


# -- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "inputs,kwargs,exc,match",
    [
        (np.ones((3, 4)), {}, TypeError, "integer"),
        ([[1, 2], [3]], {}, ValueError, "rectangular"),
        (np.ones((1, 4), dtype=int), {}, ValueError, "two honest workers"),
        (np.ones(4, dtype=int), {}, ValueError, "2-D"),
        (np.ones((2, 0), dtype=int), {}, ValueError, "d >= 1"),
        (np.array([[256, 0], [0, 0]]), {"bits": 8}, ValueError, "-128..255"),
        (np.array([[-129, 0], [0, 0]]), {"bits": 8}, ValueError, "-128..255"),
        (np.array([[2**63 + 5, 0], [0, 0]], dtype=np.uint64), {"bits": 8}, ValueError, "inputs"),
        (np.ones((2, 2), dtype=int), {"test_fraction": 1.0}, ValueError, "test_fraction"),
        (np.ones((2, 2), dtype=int), {"test_fraction": -0.1}, ValueError, "test_fraction"),
        (np.ones((2, 2), dtype=int), {"tolerance": 1.0}, ValueError, "tolerance"),
        (np.ones((2, 2), dtype=int), {"amplification": 0}, ValueError, "amplification"),
        (np.ones((2, 2), dtype=int), {"bits": 1}, ValueError, "bits"),
        (np.ones((2, 2), dtype=int), {"seed": -1}, ValueError, "seed"),
        (np.ones((2, 2), dtype=int), {"bits": 2.5}, TypeError, "bits"),
        (np.array([[True, False], [False, True]]), {}, TypeError, "inputs"),
    ],
)
def test_bad_input_is_named(inputs, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        vga_aggregate(inputs, **kwargs)


def test_a_test_fraction_near_one_is_refused_with_the_memory_it_needs():
    """N = ceil(d / (1 - f)) copies: f = 1 - 1e-12 would need terabytes; refused up front."""
    for f in (1 - 1e-12, 1 - 1e-9):
        with pytest.raises(ValueError, match=r"test_fraction.*GiB"):
            vga_aggregate(np.ones((2, 2), dtype=int), bits=8, test_fraction=f)
    assert vga_copy_counts(2, 1 - 1e-12)[0] > 10**12  # the count itself is O(1), no allocation


def test_circuit_builders_refuse_two_sources_at_once():
    with pytest.raises(ValueError, match="not both"):
        vga_circuit([1, 2], 2, pads=[1, 3], flips=[True, False])
    with pytest.raises(ValueError, match="not both"):
        vga_outcome_probabilities([1, 2], 2, pads=[1, 3], flips=[True, False])
    with pytest.raises(ValueError, match="flip"):
        ghz_test_circuit([True, True], phases=[0.1, 0.2], flip=True)
    with pytest.raises(ValueError, match="not both"):
        ghz_test_pass_probability([True, True], phases=[0.1, 0.2], ghz_phase=0.3)
    with pytest.raises(ValueError, match="flips"):
        vga_circuit([1, 2], 2, flips=[True])
    with pytest.raises(ValueError, match="qubits"):
        vga_circuit([1, 2, 3, 4, 5], 4)
    with pytest.raises(ValueError, match="pads"):
        vga_circuit([1, 2], 2, pads=[1, 1])
    with pytest.raises(ValueError, match="even number"):
        ghz_test_circuit([1, 0, 0])
    with pytest.raises(ValueError, match="even number"):
        ghz_test_pass_probability([True, False])
    with pytest.raises(ValueError, match="workers"):
        known_pads_detection(1)
    with pytest.raises(ValueError, match="source"):
        vga_aggregate_qiskit(np.ones((2, 2), dtype=int), source="eavesdropper")
