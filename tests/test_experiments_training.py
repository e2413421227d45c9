"""The training section's experiments (qring_edu.experiments.training): one learner over both
rings, both learners over both rings at several pair fidelities, their gradient budgets."""

from __future__ import annotations

import numpy as np
import pytest

import qring_edu.training as protocol
from qring_edu.experiments.training import (
    learner_budget,
    learner_comparison,
    learner_training,
    training_comparison,
    training_table,
)
from qring_edu.noise import Link
from qring_edu.training import VQC, gradient_budget, train_data_parallel


def test_the_sweep_lives_on_the_experiments_floor():
    assert not hasattr(protocol, "learner_comparison") and not hasattr(
        protocol, "LearnerComparison"
    )


def test_learner_comparison_runs_and_lookups():
    cmp = learner_comparison(fidelities=(1.0, 0.9), steps=12, seed=1)
    pairs = [None if r.link is None else r.link.pair for r in cmp.runs]
    assert [(r.model, r.transport) for r in cmp.runs] == [
        ("mlp", "classical"),
        ("mlp", "superdense"),
        ("mlp", "superdense"),
        ("vqc", "classical"),
        ("vqc", "superdense"),
        ("vqc", "superdense"),
    ]
    assert pairs == [None, 1.0, 0.9] * 2
    assert cmp.identical("mlp") and cmp.identical("vqc")
    assert cmp.identical_at_1 == (("mlp", True), ("vqc", True))
    assert cmp.run("vqc", 0.9).divergence > 0
    direct = train_data_parallel(
        model="vqc", steps=12, seed=1, transport="superdense", pair_fidelity=0.9
    )
    assert np.array_equal(cmp.run("vqc", 0.9).weights, direct.weights)
    assert cmp.run("mlp").transport == "classical"
    assert repr(cmp) == (
        "LearnerComparison(models=('mlp', 'vqc'), fidelities=(1, 0.9), "
        "workers=4, steps=12, seed=1, identical_at_1=(('mlp', True), ('vqc', True)))"
    )
    html = cmp._repr_html_()
    assert html.startswith('<table class="qring-table">') and html.count("<tr>") == 7
    table = cmp.table()
    assert table.column("parameters") == (82,) * 3 + (18,) * 3
    assert table.column("F") == (None, 1.0, 0.9, None, 1.0, 0.9)
    assert table.column("online bits / step")[0] == 1984
    assert table.column("online qubits / step")[4] == 224
    assert [r.model for r in cmp.runs_of("vqc")] == ["vqc"] * 3


def test_learner_values_and_link_keywords():
    only = learner_comparison(models=VQC(qubits=3, layers=1), fidelities=0.95, steps=3)
    assert len(only.runs) == 2 and only.runs[0].n_params == 6  # 2 * 3 qubits * 1 layer
    assert not only.identical("vqc")  # F = 1 was not run
    # link keywords describe the quantum link: they go to the superdense runs only
    noisy = learner_comparison(models="mlp", fidelities=1.0, steps=3, channel_fidelity=0.99)
    assert noisy.run("mlp").link is None
    assert noisy.run("mlp", 1.0).link == Link(1.0, channel_fidelity=0.99)


def test_learner_comparison_defaults_are_the_chapters():
    cmp = learner_comparison(models="vqc", steps=2)
    assert cmp.fidelities == (1.0, 0.999, 0.99, 0.95) and cmp.workers == 4 and len(cmp.runs) == 5


@pytest.mark.parametrize(
    "kw,exc,pattern",
    [
        (dict(models=("mlp", "cnn")), ValueError, r"models"),
        (dict(models=("vqc", "vqc")), ValueError, r"models must be distinct"),
        (dict(models=("vqc", VQC(2, 2))), ValueError, r"models must be distinct"),
        (dict(fidelities=(1.0, 0.1)), ValueError, r"fidelities"),
        (dict(fidelities=()), ValueError, r"fidelities"),
        (dict(fidelities=(0.9, 0.9)), ValueError, r"fidelities"),
        (dict(transport="exact"), TypeError, r"transport"),
        (dict(model="vqc"), TypeError, r"model"),
        (dict(pair_fidelity=0.9), TypeError, r"pair_fidelity"),
        (dict(qubits=3), TypeError, r"qubits"),
    ],
)
def test_learner_comparison_bad_input(kw, exc, pattern):
    with pytest.raises(exc, match=pattern):
        learner_comparison(steps=1, **kw)


def test_learner_comparison_run_lookup_errors():
    cmp = learner_comparison(models=("vqc",), fidelities=(1.0,), steps=1)
    with pytest.raises(ValueError, match=r"pair_fidelity must be None .* or one of 1"):
        cmp.run("vqc", 0.99)
    with pytest.raises(ValueError, match=r"model"):
        cmp.run("mlp")


def test_learner_training_against_its_classical_reference():
    res = learner_training("vqc", 0.95, workers=2, seed=1, steps=6)
    ref = train_data_parallel(model="vqc", workers=2, seed=1, steps=6)
    assert np.array_equal(res.reference.weights, ref.weights)
    assert res.pair_fidelity == 0.95 and not res.identical
    assert learner_training("mlp", 1.0, steps=3).identical
    assert repr(res).startswith("LearnerTraining(model='vqc', pair_fidelity=0.95, identical=False")
    with pytest.raises(ValueError, match="model"):
        learner_training("cnn")
    with pytest.raises(ValueError, match="pair_fidelity"):
        learner_training(pair_fidelity=0.1)


def test_learner_budget_is_gradient_budget_of_each_model():
    b = learner_budget()
    assert b.models == ("mlp", "vqc")
    assert b.budget("mlp") == gradient_budget(82) and b.budget("vqc") == gradient_budget(18)
    assert b.table().column("link qubits / step") == (992, 224)
    assert learner_budget("vqc", workers=16).budget("vqc").workers == 16
    with pytest.raises(ValueError, match="model"):
        b.budget("cnn")
    with pytest.raises(ValueError, match="workers"):
        learner_budget(workers=1)


def test_training_comparison_identical_at_f1_and_not_below():
    same = training_comparison(1.0, 2, 16, steps=5)
    assert same.identical and np.array_equal(same.classical.weights, same.superdense.weights)
    ref = train_data_parallel(workers=2, steps=5, transport="classical")
    assert np.array_equal(same.classical.weights, ref.weights)
    noisy = training_comparison(0.9, 2, 16, steps=5)
    assert not noisy.identical and noisy.superdense.link.pair == 0.9
    table = training_table({"a": same.classical, "b": noisy.superdense})
    assert table.column("run") == ("a", "b")
    with pytest.raises(TypeError, match="TrainingRun"):
        training_table({"x": 3})
    with pytest.raises(TypeError, match="runs"):
        training_table([same.classical])
