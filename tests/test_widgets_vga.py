"""Chapter 5 widgets, experiments and figures (qring_edu.widgets/experiments/figures.vga)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from qring_edu import fixed_point
from qring_edu.experiments import vga as exp
from qring_edu.experiments.vga import attack_sweep, epsilon_grid, transcript_comparison
from qring_edu.figures import vga as figs
from qring_edu.vga import (
    amplified_leak_probability,
    detection_probability,
    ghz_test_circuit,
    ghz_verified_infidelity,
    known_pads_detection,
    rotated_ghz_leak,
    transcript_distance,
    vga_aggregate,
    vga_circuit,
    vga_epsilon,
    vga_epsilon_floor,
    vga_outcome_probabilities,
    vga_ring_allreduce,
)
from qring_edu.widgets import LiveFigure
from qring_edu.widgets._base import parse_integers
from qring_edu.widgets.vga import (
    ATTACK_CHOICES,
    vga_attack_widget,
    vga_epsilon_widget,
    vga_privacy_widget,
)


def _png(widget: LiveFigure) -> bytes:
    return bytes(widget.image.value)


# -- compute functions ------------------------------------------------------------------------
def test_attack_sweep_known_pads_and_honest():
    sweep = attack_sweep("known_pads", 0.5, 8, runs=40, seed=1)
    # epsilon uses the detection of the attack the source makes, never a silent 1/2
    assert sweep.attack == "known_pads"
    assert sweep.detection == detection_probability("known_pads", 3, bits=2) != 0.5
    assert 0.5 in sweep.fractions and sweep.fractions[0] == 0.0
    assert sweep.acceptance[0] == 1.0  # no tests: the attack is silent
    assert sweep.at("acceptance") < 0.1 and np.all(sweep.accuracy == 1.0)
    assert abs(sweep.at("fail_rate") - known_pads_detection(3)) < 0.1
    assert np.all(np.diff(sweep.epsilon) <= 1e-12)
    honest = attack_sweep("honest", 0.3, 8, runs=40, seed=1)
    assert np.all(honest.acceptance == 1.0) and np.all(honest.accuracy < 0.6)
    assert 0.3 in honest.fractions
    assert honest.attack == "split_worker" and honest.detection == 0.25
    assert "source='honest'" in repr(honest)
    noisy = attack_sweep("noisy", 0.5, 4, runs=5, seed=1)
    assert noisy.attack == "dephasing" and noisy.detection == 1.0
    chosen = attack_sweep("honest", 0.5, 4, runs=5, attack="known_pads", seed=1)
    # d = 4, f = 0.5: N = 8 register-copies; a larger detection gives a smaller epsilon
    assert chosen.at("epsilon") == vga_epsilon(8, 0.5, 0.1, detection=chosen.detection)
    assert chosen.at("epsilon") < attack_sweep("honest", 0.5, 4, runs=5, seed=1).at("epsilon")
    assert repr(attack_sweep("honest", 0.3, 8, runs=5, seed=2)) == repr(
        attack_sweep("honest", 0.3, 8, runs=5, seed=2)
    )


def test_attack_sweep_bad_input():
    with pytest.raises(ValueError, match="test_fraction"):
        attack_sweep("honest", 1.0)
    with pytest.raises(ValueError, match="source"):
        attack_sweep("nobody")
    with pytest.raises(ValueError, match="too large"):
        attack_sweep("honest", 0.5, 10_000, runs=10_000)
    with pytest.raises(ValueError, match="attack"):
        attack_sweep("honest", attack="telepathy")


def test_transcript_comparison_same_and_different_sums():
    same = transcript_comparison([1, 2, 3], [3, 3, 0], bits=2, samples=3000, seed=0)
    assert same.same_sum and same.p_value > 1e-3
    assert same.joint_a.sum() == 3000 and same.sums_a[2] == 3000 and same.sums_b[2] == 3000
    diff = transcript_comparison([1, 2, 3], [1, 2, 2], bits=2, samples=3000, seed=0)
    assert not diff.same_sum and diff.p_value < 1e-6
    assert "same_sum=False" in repr(diff)
    assert parse_integers("1 2; 3", "inputs") == [1, 2, 3]
    with pytest.raises(ValueError, match="inputs_a"):
        parse_integers("1, x", "inputs_a")
    with pytest.raises(TypeError, match="inputs_a"):
        transcript_comparison([1.5, 2], [1, 2])
    with pytest.raises(ValueError, match="same number"):
        transcript_comparison([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="P >= 2|two honest"):
        transcript_comparison([1], [2])


def test_epsilon_grid_needs_a_named_attack_or_an_explicit_detection():
    grid = epsilon_grid(0.1, 0.5, max_used=200)  # an explicit number is allowed
    assert grid.attack is None and "given" in grid.label
    assert grid.epsilon.shape == (3, grid.used.size)
    assert grid.epsilon[1, -1] == vga_epsilon(2 * int(grid.used[-1]), 0.5, 0.1, detection=0.5)
    assert np.all(grid.epsilon[2] <= grid.epsilon[1] + 1e-15)
    assert np.allclose(grid.overhead, [4 / 3, 2, 4])
    named = epsilon_grid(0.1, attack="known_pads", workers=4, bits=8, attacked_qubits=1)
    assert named.detection == 7 / 16 and named.attack == "known_pads"
    assert f"{named.epsilon[1, -1]:.3e}" == "7.144e-08"  # N = 800, the claims setting
    floor = epsilon_grid(0.1, attack="split_worker")
    assert floor.detection == 0.25 and f"{floor.epsilon[1, -1]:.3e}" == "3.358e-05"
    assert "split worker" in floor.label and "P = 4" in floor.table().title
    with pytest.raises(TypeError, match="no default detection"):
        epsilon_grid(0.1)  # neither: refused
    with pytest.raises(TypeError, match="exactly one"):
        epsilon_grid(0.1, 0.5, attack="split_worker")  # both: refused
    with pytest.raises(ValueError, match="detection"):
        epsilon_grid(0.1, 0.0)
    with pytest.raises(ValueError, match="attack"):
        epsilon_grid(0.1, attack="telepathy")


def test_detection_table_and_the_claims_numbers():
    t = exp.detection_table()
    assert [round(r[4], 4) for r in t.rows] == [0.99, 0.4375, 0.99, 0.25, 1.0]
    assert f"{t.epsilon('split_worker'):.3e}" == "3.358e-05"
    assert f"{t.epsilon('known_pads', 1):.3e}" == "7.144e-08"
    assert f"{t.epsilon('known_pads'):.3e}" == "1.544e-13"
    # the minimum over the attacks that leak with certainty is the split worker's 1/4
    assert min(r[4] for r in t.rows if r[1] != "dephasing") == 0.25
    assert t.table().column("attack")[3].startswith("split worker")
    with pytest.raises(ValueError, match="not in the table"):
        t.epsilon("split_worker", 3)


def test_fraction_sweep_reproduces_why_test_half():
    sw = exp.fraction_sweep()
    assert [sw.best_fraction(i) for i in range(3)] == [0.8, 0.7, 0.6]
    assert [f"{sw.exponent_share(i):.0%}" for i in range(3)] == ["76%", "84%", "94%"]
    for i, det in enumerate(sw.detections):
        assert sw.epsilon[i, 4] == vga_epsilon(800, 0.5, 0.1, detection=float(det))
    assert sw.table().column("best f") == (0.8, 0.7, 0.6)


def test_epsilon_floor_sweep_never_below_one_half_at_beta_zero():
    fl = exp.epsilon_floor_sweep(max_copies=400)
    assert np.all(fl.floor_zero == 0.5) and np.all(fl.n_copies % 2 == 0)
    assert np.all(fl.epsilon_zero >= 0.5 - 1e-9)
    assert np.allclose(fl.epsilon_zero[-1], 0.5)  # detection 1: the floor exactly
    assert abs(fl.epsilon_zero[0, -1] - 0.625) < 1e-3 and abs(fl.epsilon_zero[1, -1] - 0.531) < 1e-3
    assert fl.epsilon_beta[0, -1] < 1e-2 < fl.epsilon_beta[0, 0]  # beta > 0: it decays
    assert fl.floor_beta[-1] == vga_epsilon_floor(int(fl.n_copies[-1]), 0.5, 0.1)


def test_partial_copy_sweep_slopes_and_table():
    sw = exp.partial_copy_sweep()
    assert abs(sw.leak_slope - 1) < 0.01 and abs(sw.fail_slope - 2) < 0.01
    ref = rotated_ghz_leak(0.1)
    t = sw.table()
    assert (
        t.column("leak (TV)")[1] == ref.leak
        and t.column("P(fail) per test")[1] == ref.fail_probability
    )
    assert np.all(sw.leak <= sw.trace_distance + 1e-12)
    assert np.all(sw.trace_distance <= sw.distance_bound + 1e-12)
    with pytest.raises(ValueError, match="angles"):
        exp.partial_copy_sweep([0.0, 0.1])


def test_finite_copy_curve():
    c = exp.finite_copy_curve(max_tests=10_000)
    assert round(c.at(400, 0.05), 3) == 0.95 and round(c.at(400, 0.01), 3) == 0.751
    assert np.all(np.diff(c.fidelity, axis=1) >= -1e-12)  # more tests, no weaker guarantee
    assert np.all(c.fidelity[1] <= c.fidelity[0] + 1e-12)  # smaller significance, weaker
    assert c.fidelity[0, 0] == 1 - ghz_verified_infidelity(1, 0.05) == 0.0


def test_amplification_sweep():
    sw = exp.amplification_sweep(entries=2000)
    assert sw.sums_exact.all() and list(sw.ghz_used) == [16_000, 32_000, 48_000, 64_000]
    for k, measured, exact in zip(sw.ks, sw.measured, sw.exact):
        assert exact == amplified_leak_probability(4000 * int(k), 1000 * int(k), int(k))
        se = np.sqrt(exact * (1 - exact) / 2000)
        assert abs(measured - exact) < 4 * se + 1e-3
    assert np.all(np.diff(sw.measured) < 0)
    assert np.allclose(sw.exact, sw.power, rtol=0.01)
    assert sw.table().column("k") == (1, 2, 3, 4)


def test_exact_privacy_is_exact():
    same = exp.exact_privacy([1, 2, 3], [3, 3, 0], bits=2)
    assert same.same_sum and same.between == 0.0 and same.distance_a == same.distance_b == 0.0
    assert np.allclose(same.joint_a, 1 / 16) and np.allclose(same.sums_a, [0, 0, 1, 0])
    diff = exp.exact_privacy([1, 2, 3], [1, 2, 2], bits=2)
    assert not diff.same_sum and diff.between == 1.0
    # the exact law is the circuit's (Qiskit state vector), summed over m_2
    probs = vga_outcome_probabilities([1, 2, 3], 2)
    joint = np.zeros((4, 4))
    for (m0, m1, _), pr in probs.items():
        joint[m0, m1] += pr
    assert np.allclose(same.joint_a, joint)
    kp = exp.exact_privacy([1, 2, 3], [3, 3, 0], bits=2, source="known_pads")
    assert kp.distance_a == 0.9375 == transcript_distance([1, 2, 3], 2, source="known_pads")
    assert np.allclose(kp.joint_a, same.joint_a)  # the transcript alone looks ideal
    eve = exp.exact_privacy(
        [5, 1, 6], [0, 0, 4], bits=3, source="eavesdropper", eavesdrop_fraction=0.5, amplification=3
    )
    assert eve.method == "closed_form" and abs(eve.distance_a - 0.125 * (1 - 2**-6)) < 1e-12
    small = exp.exact_privacy([1, 0], [0, 1], bits=1, source="eavesdropper", amplification=3)
    assert small.method == "exact" and abs(small.distance_a - 0.25**3 / 2) < 1e-12
    assert "TV between" in kp.table().title
    with pytest.raises(ValueError, match="same number"):
        exp.exact_privacy([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="P >= 2"):
        exp.exact_privacy([1], [2])
    with pytest.raises(ValueError, match="P \\* bits <= 12"):
        exp.exact_privacy([1] * 5, [1] * 5, bits=3)
    with pytest.raises(ValueError, match="source"):
        exp.exact_privacy(source="noisy")


def test_figures_are_figures():
    x = np.random.default_rng(0).normal(size=(3, 50))
    codec = fixed_point(3, 16, 4.0)
    words = np.stack([codec.encode(row) for row in x]).astype(np.int64)
    res = vga_ring_allreduce(words, bits=16, seed=0)
    decoded = codec.decode(res.total.astype(np.int64) & 0xFFFF)
    made = [
        figs.plot_vga_circuits([vga_circuit([1, 2], 2), ghz_test_circuit([1, 1, 0])], ["a", "b"]),
        figs.plot_transcript_comparison(transcript_comparison(samples=200)),
        figs.plot_attack_sweep(attack_sweep("eavesdropper", 0.5, 4, runs=5)),
        figs.plot_epsilon_grid(epsilon_grid(attack="split_worker", max_used=50)),
        figs.plot_vga_timeline(),
        figs.plot_exact_privacy(exp.exact_privacy(source="eavesdropper")),
        figs.plot_epsilon_floor(exp.epsilon_floor_sweep(max_copies=50)),
        figs.plot_partial_copies(exp.partial_copy_sweep([0.01, 0.02, 0.1])),
        figs.plot_finite_copy(exp.finite_copy_curve(max_tests=100)),
        figs.plot_amplification(exp.amplification_sweep(entries=100)),
        figs.plot_source_comparison(
            [
                vga_aggregate(np.ones((3, 4), dtype=int), source=s, seed=0)
                for s in ("honest", "known_pads")
            ]
        ),
        figs.plot_pipeline(res, x.sum(axis=0), decoded),
    ]
    assert all(isinstance(f, Figure) for f in made)
    with pytest.raises(ValueError):
        figs.plot_vga_circuits([])
    with pytest.raises(ValueError):
        figs.plot_source_comparison([])


def test_timeline_names_every_step_and_who_knows_what():
    fig = figs.plot_vga_timeline()
    texts = [t.get_text() for t in fig.axes[0].texts]
    for title, _, what, knows in figs.TIMELINE_STEPS:
        assert title in texts and what in texts and knows in texts
    assert [s[0] for s in figs.TIMELINE_STEPS] == [
        "1. delivery",
        "2. secret split",
        "3. GHZ tests",
        "4. pads",
        "5. broadcast",
        "6. sum",
    ]


# -- widgets ----------------------------------------------------------------------------------
def test_attack_widget_updates_and_reports_errors():
    w = vga_attack_widget(entries=4)
    assert isinstance(w, LiveFigure) and w.error == "" and w.result.source == "known_pads"
    assert w.controls["test_fraction"].max < 1  # a slider: only valid fractions
    first = _png(w)
    w.controls["source"].value = "honest"
    assert w.error == "" and w.result.source == "honest" and _png(w) != first
    assert w.result.attack == "split_worker"
    w.controls["test_fraction"].value = 0.25
    assert w.error == "" and w.result.test_fraction == 0.25
    assert "data:image/png;base64," in w._repr_mimebundle_()["text/html"]


def test_privacy_widget_is_exact_and_reports_errors():
    w = vga_privacy_widget()
    assert w.error == "" and w.result.same_sum and w.result.between == 0.0
    assert w.result.distance_a == 0.0
    first = _png(w)
    w.controls["source"].value = "known_pads"
    assert w.error == "" and w.result.distance_a == 0.9375 and _png(w) != first
    w.controls["source"].value = "eavesdropper"
    w.controls["amplification"].value = 2
    assert abs(w.result.distance_a - 0.25**2 * (1 - 2**-4)) < 1e-12
    w.controls["inputs_b"].value = "0, 0, 0"
    assert w.error == "" and not w.result.same_sum and w.result.between == 1.0
    w.controls["inputs_b"].value = "0, zero"
    assert w.result is None and "inputs_b" in w.error
    w.controls["inputs_b"].value = "1, 2"
    assert w.result is None and "same number" in w.error


def test_epsilon_widget_feeds_the_attack_to_detection_probability():
    w = vga_epsilon_widget()
    assert w.error == "" and w.result.attack == "split_worker" and w.result.detection == 0.25
    first = _png(w)
    values = [v for _, v in ATTACK_CHOICES]
    assert "known_pads/1" in values and all(w.controls["attack"].value in values for _ in [0])
    w.controls["attack"].value = "known_pads/1"
    assert w.result.detection == 7 / 16 and _png(w) != first
    w.controls["workers"].value = 2
    assert w.result.detection == 0.25  # delta_2 = 1/4
    w.controls["attack"].value = "known_pads"
    w.controls["bits"].value = 4
    assert w.result.detection == detection_probability("known_pads", 2, bits=4)
    w.controls["bad_fraction"].value = 0.2
    assert w.error == "" and w.result.bad_fraction == 0.2


@pytest.mark.parametrize("workers", [2, 3, 4, 5])
def test_witness_table_holds_and_is_tight_where_the_theorem_says(workers):
    t = exp.witness_table(workers, seed=1)
    for name, fidelity, _fail, bound in t.rows:
        assert fidelity >= bound - 1e-12, name
    tight = dict((r[0], r[4]) for r in t.table().rows)
    assert tight["known-pads copy (product, zero-sum phases)"] == "yes"
    assert tight["split worker: |+> (x) GHZ on the others"] == "yes"
    assert tight["phase-flipped GHZ (dephased)"] == "no" and tight["maximally mixed"] == "no"
    name, fidelity, fail, _ = t.row("known-pads copy (product, zero-sum phases)")
    assert (
        abs(fail - known_pads_detection(workers)) < 1e-12
        and abs(fidelity - 2.0 ** (1 - workers)) < 1e-12
    )
    assert t.row("split worker: |+> (x) GHZ on the others")[2] == pytest.approx(0.25)
    with pytest.raises(ValueError, match="state must be one of"):
        t.row("nope")
