"""Chapter 5 widgets, experiments and figures (qring_edu.widgets/experiments/figures.vga)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from qring_edu import fixed_point
from qring_edu.experiments import vga as exp
from qring_edu.experiments import vga_security as exp_security
from qring_edu.experiments.vga import attack_sweep, epsilon_grid
from qring_edu.figures import vga as figs
from qring_edu.figures import vga_security as figs_security
from qring_edu.vga import (
    Dephasing,
    Eavesdropper,
    Honest,
    KnownPads,
    known_pads_detection,
    vga_aggregate,
    vga_circuit,
    vga_ring_allreduce,
)
from qring_edu.vga_security import (
    KnownPadBits,
    SplitWorker,
    amplified_leak_probability,
    detection_probability,
    ghz_test_circuit,
    ghz_verified_infidelity,
    rotated_ghz_leak,
    transcript_distance,
    vga_epsilon,
    vga_epsilon_floor,
    vga_outcome_probabilities,
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
    sweep = attack_sweep(KnownPads(), 0.5, 8, runs=40, seed=1)
    # epsilon uses the detection of the attack the source makes, never a silent 1/2
    assert sweep.attack == KnownPads()
    assert sweep.detection == detection_probability(KnownPads(), 3, bits=2) != 0.5
    assert 0.5 in sweep.fractions and sweep.fractions[0] == 0.0
    assert sweep.acceptance[0] == 1.0  # no tests: the attack is silent
    assert sweep.at("acceptance") < 0.1 and np.all(sweep.accuracy == 1.0)
    assert abs(sweep.at("fail_rate") - known_pads_detection(3)) < 0.1
    assert np.all(np.diff(sweep.epsilon) <= 1e-12)
    honest = attack_sweep("honest", 0.3, 8, runs=40, seed=1)
    assert np.all(honest.acceptance == 1.0) and np.all(honest.accuracy < 0.6)
    assert 0.3 in honest.fractions
    assert honest.attack == SplitWorker() and honest.detection == 0.25
    assert "source=Honest()" in repr(honest)
    noisy = attack_sweep(Dephasing(0.02), 0.5, 4, runs=5, seed=1)
    assert noisy.attack == Dephasing(0.02) and noisy.detection == 1.0
    chosen = attack_sweep(Honest(), 0.5, 4, runs=5, attack=KnownPads(), seed=1)
    # d = 4, f = 0.5: N = 8 register-copies; a larger detection gives a smaller epsilon
    assert chosen.at("epsilon") == vga_epsilon(8, 0.5, 0.1, detection=chosen.detection)
    assert chosen.at("epsilon") < attack_sweep(Honest(), 0.5, 4, runs=5, seed=1).at("epsilon")
    assert repr(attack_sweep(Honest(), 0.3, 8, runs=5, seed=2)) == repr(
        attack_sweep(Honest(), 0.3, 8, runs=5, seed=2)
    )
    eve = attack_sweep(Eavesdropper(0.1), 0.5, 8, runs=40, seed=0)
    assert eve.at("acceptance") > sweep.at("acceptance")


def test_attack_sweep_bad_input():
    with pytest.raises(ValueError, match="test_fraction"):
        attack_sweep(Honest(), 1.0)
    with pytest.raises(TypeError, match="source"):
        attack_sweep("known_pads")
    with pytest.raises(ValueError, match="too large"):
        attack_sweep(Honest(), 0.5, 10_000, runs=10_000)
    with pytest.raises(TypeError, match="attack"):
        attack_sweep(Honest(), attack="telepathy")


def test_epsilon_grid_needs_a_named_attack():
    grid = epsilon_grid(0.1, KnownPadBits(1), workers=4, bits=8)
    assert grid.detection == 7 / 16 and grid.attack == KnownPadBits(1)
    assert grid.epsilon.shape == (3, grid.used.size)
    assert grid.epsilon[1, -1] == vga_epsilon(800, 0.5, 0.1, detection=7 / 16)
    assert f"{grid.epsilon[1, -1]:.3e}" == "7.144e-08"  # N = 800, the claims setting
    assert np.all(grid.epsilon[2] <= grid.epsilon[1] + 1e-15)
    assert np.allclose(grid.overhead, [4 / 3, 2, 4])
    floor = epsilon_grid(0.1, SplitWorker())
    assert floor.detection == 0.25 and f"{floor.epsilon[1, -1]:.3e}" == "3.358e-05"
    assert "split worker" in floor.label and "P = 4" in floor.table().title
    with pytest.raises(TypeError, match="attack"):
        epsilon_grid(0.1)  # no attack: refused, no detection is assumed
    with pytest.raises(TypeError, match="attack"):
        epsilon_grid(0.1, 0.5)  # a bare number is not an attack
    with pytest.raises(TypeError, match="attack"):
        epsilon_grid(0.1, "split_worker")


def test_detection_table_and_the_claims_numbers():
    t = exp.detection_table()
    assert [round(r[2], 4) for r in t.rows] == [0.99, 0.4375, 0.99, 0.25, 1.0]
    assert f"{t.epsilon(SplitWorker()):.3e}" == "3.358e-05"
    assert f"{t.epsilon(KnownPadBits(1)):.3e}" == "7.144e-08"
    assert f"{t.epsilon(KnownPads()):.3e}" == "1.544e-13"
    # the minimum over the attacks that leak with certainty is the split worker's 1/4
    assert min(r[2] for r in t.rows if not isinstance(r[0], Dephasing)) == 0.25
    assert t.table().column("attack")[3].startswith("split worker")
    with pytest.raises(ValueError, match="attack"):
        t.epsilon(SplitWorker(3))


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
    sw = exp_security.partial_copy_sweep()
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
        exp_security.partial_copy_sweep([0.0, 0.1])
    with pytest.raises(ValueError, match="len\\(angles\\)"):
        exp_security.partial_copy_sweep(np.full(201, 0.1))
    with pytest.raises(ValueError, match="len\\(ks\\)"):
        exp_security.amplification_sweep(ks=[1] * 17)
    with pytest.raises(TypeError, match="ks"):
        exp_security.amplification_sweep(ks=[1.0])


def test_finite_copy_curve():
    c = exp_security.finite_copy_curve(max_tests=10_000)
    assert round(c.at(400, 0.05), 3) == 0.95 and round(c.at(400, 0.01), 3) == 0.751
    assert np.all(np.diff(c.fidelity, axis=1) >= -1e-12)  # more tests, no weaker guarantee
    assert np.all(c.fidelity[1] <= c.fidelity[0] + 1e-12)  # smaller significance, weaker
    assert c.fidelity[0, 0] == 1 - ghz_verified_infidelity(1, 0.05) == 0.0


def test_amplification_sweep():
    sw = exp_security.amplification_sweep(entries=2000)
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
    kp = exp.exact_privacy([1, 2, 3], [3, 3, 0], bits=2, source=KnownPads())
    assert kp.distance_a == 0.9375 == transcript_distance([1, 2, 3], 2, source=KnownPads())
    assert np.allclose(kp.joint_a, same.joint_a)  # the transcript alone looks ideal
    eve = exp.exact_privacy([5, 1, 6], [0, 0, 4], bits=3, source=Eavesdropper(0.5), amplification=3)
    assert eve.method == "closed_form" and abs(eve.distance_a - 0.125 * (1 - 2**-6)) < 1e-12
    small = exp.exact_privacy([1, 0], [0, 1], bits=1, source=Eavesdropper(), amplification=3)
    assert small.method == "exact" and abs(small.distance_a - 0.25**3 / 2) < 1e-12
    assert "TV between" in kp.table().title
    with pytest.raises(ValueError, match="same number"):
        exp.exact_privacy([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="P >= 2"):
        exp.exact_privacy([1], [2])
    with pytest.raises(ValueError, match="P \\* bits <= 12"):
        exp.exact_privacy([1] * 5, [1] * 5, bits=3)
    with pytest.raises(TypeError, match="source"):
        exp.exact_privacy(source=Dephasing())
    with pytest.raises(TypeError, match="inputs_a"):
        exp.exact_privacy([1.5, 2], [1, 2])
    assert parse_integers("1 2; 3", "inputs") == [1, 2, 3]


def test_figures_are_figures():
    x = np.random.default_rng(0).normal(size=(3, 50))
    codec = fixed_point(3, 16, 4.0)
    words = np.stack([codec.encode(row) for row in x]).astype(np.int64)
    res = vga_ring_allreduce(words, bits=16, seed=0)
    decoded = codec.decode(res.total.astype(np.int64) & 0xFFFF)
    made = [
        figs.plot_vga_circuits([vga_circuit([1, 2], 2), ghz_test_circuit([1, 1, 0])], ["a", "b"]),
        figs.plot_attack_sweep(attack_sweep(Eavesdropper(), 0.5, 4, runs=5)),
        figs.plot_epsilon_grid(epsilon_grid(0.1, SplitWorker(), max_used=50)),
        figs.plot_vga_timeline(),
        figs.plot_exact_privacy(exp.exact_privacy(source=Eavesdropper())),
        figs.plot_epsilon_floor(exp.epsilon_floor_sweep(max_copies=50)),
        figs_security.plot_partial_copies(exp_security.partial_copy_sweep([0.01, 0.02, 0.1])),
        figs_security.plot_finite_copy(exp_security.finite_copy_curve(max_tests=100)),
        figs_security.plot_amplification(exp_security.amplification_sweep(entries=100)),
        figs.plot_source_comparison(
            [
                vga_aggregate(np.ones((3, 4), dtype=int), source=s, seed=0)
                for s in (Honest(), KnownPads())
            ]
        ),
        figs_security.plot_pipeline(res, x.sum(axis=0), decoded),
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
    assert isinstance(w, LiveFigure) and w.error == "" and w.result.source == KnownPads()
    assert w.controls["test_fraction"].max < 1  # a slider: only valid fractions
    first = _png(w)
    w.controls["source"].value = "honest"
    assert w.error == "" and w.result.source == Honest() and _png(w) != first
    assert w.result.attack == SplitWorker()
    w.controls["source"].value = "eavesdropper"
    w.controls["eavesdrop_fraction"].value = 0.5
    assert w.result.source == Eavesdropper(0.5)
    w.controls["source"].value = "dephasing"
    assert w.result.source == Dephasing(0.02) and w.result.detection == 1.0
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
    assert w.error == "" and w.result.attack == SplitWorker() and w.result.detection == 0.25
    first = _png(w)
    values = [v for _, v in ATTACK_CHOICES]
    assert "known_pads/1" in values and all(w.controls["attack"].value in values for _ in [0])
    w.controls["attack"].value = "known_pads/1"
    assert w.result.detection == 7 / 16 and _png(w) != first
    w.controls["workers"].value = 2
    assert w.result.detection == 0.25  # delta_2 = 1/4
    w.controls["attack"].value = "known_pads"
    w.controls["bits"].value = 4
    assert w.result.detection == detection_probability(KnownPads(), 2, bits=4)
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
