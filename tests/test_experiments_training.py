"""The training section's experiments (qring_edu.experiments.training): one learner over both
rings, both learners over both rings at several pair fidelities, their gradient budgets, the DDP
tables. ``compare_learners`` / ``LearnerComparison`` moved here from qring_edu.training (a sweep
is an experiment); the package root still exports them."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import qring_edu
import qring_edu.training as protocol
from qring_edu.experiments import training as experiments
from qring_edu.experiments.training import (
    compare_learners,
    learner_budget,
    learner_comparison,
    learner_training,
    training_comparison,
    training_table,
)
from qring_edu.training import gradient_budget, train_data_parallel


def test_the_sweep_moved_out_of_the_protocol_floor():
    assert not hasattr(protocol, "compare_learners") and not hasattr(protocol, "LearnerComparison")
    assert qring_edu.compare_learners is compare_learners
    assert qring_edu.LearnerComparison is experiments.LearnerComparison


def test_compare_learners_runs_and_lookups():
    cmp = compare_learners(fidelities=(1.0, 0.9), steps=12, seed=1)
    assert [(r.model, r.transport, r.pair_fidelity) for r in cmp.runs] == [
        ("mlp", "classical", 1.0),
        ("mlp", "superdense", 1.0),
        ("mlp", "superdense", 0.9),
        ("vqc", "classical", 1.0),
        ("vqc", "superdense", 1.0),
        ("vqc", "superdense", 0.9),
    ]
    assert cmp.identical("mlp") and cmp.identical("vqc")
    assert cmp.run("vqc", "superdense", 0.9).divergence > 0
    direct = train_data_parallel(
        model="vqc", steps=12, seed=1, transport="superdense", pair_fidelity=0.9
    )
    assert np.array_equal(cmp.run("vqc", "superdense", 0.9).weights, direct.weights)
    rows = cmp.rows()
    assert [r["n_params"] for r in rows] == [82] * 3 + [18] * 3
    assert rows[0]["online_bits_per_step"] == 1984 and rows[4]["online_qubits_per_step"] == 224
    assert repr(cmp) == (
        "LearnerComparison(models=('mlp', 'vqc'), fidelities=(1, 0.9), "
        "workers=4, steps=12, seed=1, identical_at_F1: mlp=True, vqc=True)"
    )
    html = cmp._repr_html_()
    assert html.startswith('<table class="qring-table">') and html.count("<tr>") == 7
    table = cmp.table()
    assert table.column("F") == (None, 1.0, 0.9, None, 1.0, 0.9)
    assert table.column("online qubits / step")[4] == 224
    assert [r.model for r in cmp.runs_of("vqc")] == ["vqc"] * 3
    only = compare_learners(models="vqc", fidelities=0.95, steps=3, qubits=3, layers=1)
    assert len(only.runs) == 2 and only.runs[0].n_params == 6  # 2 * 3 qubits * 1 layer
    assert not only.identical("vqc")  # F = 1 was not run


def test_learner_comparison_defaults_are_the_chapters():
    assert compare_learners(models="vqc", steps=1).fidelities == (1.0, 0.99, 0.95)
    cmp = learner_comparison(models="vqc", steps=2)
    assert cmp.fidelities == (1.0, 0.999, 0.99, 0.95) and cmp.workers == 4 and len(cmp.runs) == 5


@pytest.mark.parametrize(
    "kw,exc,pattern",
    [
        (dict(models=("mlp", "cnn")), ValueError, r"models"),
        (dict(models=("vqc", "vqc")), ValueError, r"models must be distinct"),
        (dict(fidelities=(1.0, 0.1)), ValueError, r"fidelities"),
        (dict(fidelities=()), ValueError, r"fidelities"),
        (dict(transport="exact"), TypeError, r"transport"),
        (dict(model="vqc"), TypeError, r"model"),
    ],
)
def test_compare_learners_bad_input(kw, exc, pattern):
    with pytest.raises(exc, match=pattern):
        compare_learners(steps=1, **kw)


def test_learner_comparison_run_lookup_errors():
    cmp = compare_learners(models=("vqc",), fidelities=(1.0,), steps=1)
    with pytest.raises(ValueError, match=r"pair_fidelity must be one of 1"):
        cmp.run("vqc", "superdense", 0.99)
    with pytest.raises(ValueError, match=r"model"):
        cmp.run("mlp")


def test_learner_training_against_its_classical_reference():
    res = learner_training("vqc", "superdense", 0.95, workers=2, seed=1, steps=6)
    ref = train_data_parallel(model="vqc", workers=2, seed=1, steps=6)
    assert np.array_equal(res.reference.weights, ref.weights)
    assert res.run.pair_fidelity == 0.95 and not res.identical
    same = learner_training("mlp", "classical", 0.9, steps=3)
    assert same.run is same.reference and same.identical
    assert learner_training("mlp", "superdense", 1.0, steps=3).identical
    assert "model='vqc'" in repr(res)
    with pytest.raises(ValueError, match="model"):
        learner_training("cnn")
    with pytest.raises(ValueError, match="transport"):
        learner_training(transport="exact")
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
    assert not noisy.identical and noisy.superdense.pair_fidelity == 0.9
    table = training_table({"a": same.classical, "b": noisy.superdense})
    assert table.column("run") == ("a", "b")
    with pytest.raises(TypeError, match="TrainingRun"):
        training_table({"x": 3})


def test_docstring_examples():
    result = doctest.testmod(experiments, raise_on_error=False, verbose=False)
    assert result.attempted > 0 and result.failed == 0
