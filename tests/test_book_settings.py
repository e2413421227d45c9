"""Library behaviour at the settings the chapters use (moved out of the chapters' hidden cells).

A chapter's hidden cells assert only the numbers its prose states. What the prose relies on from
the library — defaults, a widget's first state, the checkers' verdicts on the worked answers, the
library's refusals — is checked here, where a failure names the function and not a page.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import qring_edu as qr
from qring_edu import dense_coding_threshold, isotropic_capacity
from qring_edu.exercises import alignment as ex5
from qring_edu.exercises import bottleneck as ex1
from qring_edu.exercises import superdense_ring as ex3
from qring_edu.exercises import vga as ex4
from qring_edu.holevo import binary_entropy, superdense_ensemble, two_state_chi, two_state_ensemble
from qring_edu.widgets.holevo import dense_coding_widget, ensemble_designer_widget, ledger_floor_widget


# ---------------------------------------------------------------------------------------------
# Chapter 2
# ---------------------------------------------------------------------------------------------
def test_chapter2_widgets_start_where_the_prose_says():
    designer = ensemble_designer_widget(preset="trine")
    assert designer.error == "" and abs(designer.result.chi - 1) < 1e-9
    assert abs(designer.result.accessible.value - (math.log2(3) - 1)) < 1e-4
    designer.controls["probs"].value = "0.5, 0.6, 0.1"
    assert designer.result is None and "probs must sum to 1" in designer.error
    ledger = ledger_floor_widget(d="1000", bits=16)
    assert ledger.error == "" and np.all(ledger.result.online_qubits * 2 == ledger.result.classical_bits)
    dense = dense_coding_widget(pair_fidelity=0.9)
    assert dense.error == "" and dense.result.helps
    assert abs(dense.result.chosen_capacity - isotropic_capacity(0.9)) < 1e-9
    assert dense.result.threshold == dense_coding_threshold()


def test_chapter2_ensembles():
    bb84 = qr.bb84_ensemble()
    assert bb84.size == 4 and bb84.dim == 2
    bell = superdense_ensemble()
    assert bell.labels == ("00", "01", "10", "11") and bell.dim == 4
    assert abs(two_state_chi(0.5) - binary_entropy(0.75)) < 1e-12
    assert abs(qr.holevo_chi(*two_state_ensemble(0.5)) - two_state_chi(0.5)) < 1e-12
    trine = qr.trine_ensemble()
    best = qr.optimal_measurement(*trine)
    assert np.allclose(best.povm.sum(axis=0), np.eye(2), atol=1e-8)
    assert abs(qr.mutual_information(*trine, best.povm) - best.value) < 1e-9


# ---------------------------------------------------------------------------------------------
# Chapter 3
# ---------------------------------------------------------------------------------------------
def test_chapter3_training_defaults():
    """The prose: 800 two-moons points, P = 4, 2-16-2 network, mini-batches of 16, gradients
    clipped to [-1, 1], 16-bit fixed point, 150 steps."""
    defaults = {k: v.default for k, v in inspect.signature(qr.train_data_parallel).parameters.items()}
    assert defaults["n_samples"] == 800 and defaults["batch_size"] == 16 and defaults["hidden"] == 16
    assert defaults["clip"] == 1.0 and defaults["bits"] == 16 and defaults["workers"] == 4
    assert defaults["steps"] == 150


def test_chapter3_ddp_demo_defaults():
    from qring_edu.ddp import ddp_demo  # needs torch: the Makefile installs the torch extra

    defaults = {k: v.default for k, v in inspect.signature(ddp_demo).parameters.items()}
    assert defaults["n_samples"] == 400 and defaults["batch_size"] == 32 and defaults["hidden"] == 16


@pytest.mark.parametrize("check, right, wrong, args", [
    (ex3.check_alice_gates, ["x", "z"], ["x"], (1, 1)),
    (ex3.check_alice_gates, ["y"], ["z"], (1, 1)),
    (ex3.check_bit_error_rate, 0.02, 0.03, (0.97,)),
    (ex3.check_superdense_qubits, 26, 25, (3, 7, 5)),
    (ex3.check_lifetime_uses, 52, 50, (3, 7, 5)),
    (ex3.check_flip_damage, 2**12 / 8190, 2**12, (8, 16, 0.5, 12)),
])
def test_chapter3_worked_answers(check, right, wrong, args):
    assert check(right, *args).passed and not check(wrong, *args).passed


# ---------------------------------------------------------------------------------------------
# Chapter 5 (Verified GHZ aggregation)
# ---------------------------------------------------------------------------------------------
def test_chapter5_refuses_a_single_worker():
    """The prose: privacy needs two honest workers, and the library refuses a single worker."""
    with pytest.raises(ValueError, match="two honest workers"):
        qr.vga_aggregate(np.array([[3, 1, 4]]), bits=4)


def test_chapter5_widgets_start_where_the_prose_says():
    from qring_edu.widgets.vga import vga_attack_widget, vga_epsilon_widget, vga_privacy_widget

    eps = vga_epsilon_widget()
    assert eps.error == "" and eps.result.attack == "split_worker" and eps.result.detection == 0.25
    assert eps.result.workers == 4 and eps.result.bits == 8 and eps.result.bad_fraction == 0.1
    privacy = vga_privacy_widget()
    assert privacy.error == "" and privacy.result.source == "honest" and privacy.result.between == 0
    attack = vga_attack_widget()
    assert attack.error == "" and attack.result.source == "known_pads"
    assert attack.result.workers == 3 and attack.result.bits == 2 and attack.result.runs == 100


def test_chapter5_no_silent_detection():
    """Every epsilon of the chapter names its detection: the library refuses to guess one."""
    from qring_edu.experiments.vga import epsilon_grid

    with pytest.raises(TypeError, match="detection_probability"):
        qr.vga_epsilon(800, 0.5, 0.1)
    with pytest.raises(TypeError, match="no default detection"):
        epsilon_grid(0.1)


@pytest.mark.parametrize("check, right, wrong, args", [
    (ex4.check_phase_angle, math.pi / 2, 5 * math.pi / 4, (5, 1, 3)),
    (ex4.check_last_announcement, 1, 7, ([3, 6], 2, 3)),
    (ex4.check_transcript_count, 512, 4096, (4, 3)),
    (ex4.check_known_pads_survival, (9 / 16) ** 20, 0.5**20, (20, 4)),
    (ex4.check_ghz_copies_delivered, 32_000, 16_000, (1000, 16, 0.5)),
    (ex4.check_dropout_sums, 256, 1, (4, 8)),
    (ex4.check_rectangle_pairs, 4, 3, ()),
    (ex4.check_single_copy_escape, 0.5, 0.25, (800, 0.5)),
    (ex4.check_split_worker_fail, 0.25, 0.5, (4,)),
    (ex4.check_amplified_leak, 250 * 249 / (1000 * 999), 1 / 16, (1000, 250, 2)),
])
def test_chapter5_worked_answers(check, right, wrong, args):
    assert check(right, *args).passed and not check(wrong, *args).passed


# ---------------------------------------------------------------------------------------------
# Chapters 1 and 5
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("check, right, wrong, args, kwargs", [
    (ex1.check_chunk_sent, 1, 2, (), dict(P=5, k=3, s=2)),
    (ex1.check_chunk_sent, 2, 1, (), dict(P=5, k=3, s=2, phase="all-gather")),
    (ex1.check_link_bits, 32000, 32001, (), dict(P=6, d=1200, bits=16)),
    (ex1.check_link_bits, 128, 120, (), dict(P=4, d=10, bits=8)),
    (ex5.check_overlap, 0.65, 0.3, (0.3,), {}),
    (ex5.check_not_ah_probability, math.sin(5 * math.acos(0.4)) ** 2, 0.5, (-0.2, 2), {}),
    (ex5.check_sketch_bits, 1474, 1473, (0.1, 0.05), {}),
    (ex5.check_expected_y, 0.25, 0.5, (0.5, 0.25), {}),
    (ex5.check_tieaudit_qubits, 1850, 185, (1024, 0.1, 0.05), {}),
    (ex5.check_crossover, 8192, 4096, (0.1,), {}),
    (ex5.check_crossover, 13, 12, (0.1,), {}),
    (ex5.check_calibrated_estimate, 0.25, 0.35, (0.3, 0.6), {}),
])
def test_chapters_1_and_5_worked_answers(check, right, wrong, args, kwargs):
    assert check(right, *args, **kwargs).passed and not check(wrong, *args, **kwargs).passed
