"""Data-parallel training over the ring (qring_edu.training, DESIGN.md §4.4, chapter 3).

Thresholds were measured on seeds 0-2 with the default 150 steps (exact transport: final
accuracy 0.973-0.978, loss 0.075-0.085; superdense F = 0.95: loss 0.82-1.27, accuracy ~0.85) and
are set with a wide margin.
"""

from __future__ import annotations

import numpy as np
import pytest

from qring_edu.training import make_moons, mlp_loss_and_grad, n_parameters, train_data_parallel

STEPS = 60  # enough for every equality test; convergence tests use the default 150


@pytest.fixture(scope="module")
def classical_run():
    return train_data_parallel(workers=4, steps=STEPS, transport="classical", seed=0)


def test_superdense_at_unit_fidelity_identical_to_classical(classical_run):
    sd = train_data_parallel(workers=4, steps=STEPS, transport="superdense", seed=0)
    assert np.array_equal(sd.weights, classical_run.weights)
    assert np.array_equal(sd.losses, classical_run.losses)
    assert np.array_equal(sd.accuracies, classical_run.accuracies)
    assert sd.divergence == 0.0 and classical_run.divergence == 0.0


def test_history_shapes(classical_run):
    r = classical_run
    assert r.losses.shape == (STEPS + 1, 4)
    assert r.accuracies.shape == (STEPS + 1, 4)
    assert r.weights.shape == (4, n_parameters(16))
    assert r.transport == "classical" and r.steps == STEPS and r.workers == 4


def test_ledger_totals_superdense_is_half(classical_run):
    sd = train_data_parallel(workers=4, steps=STEPS, transport="superdense", seed=0)
    # 16-bit words: every message has an even number of bits, so exactly half as many qubits
    assert classical_run.online_bits > 0
    assert classical_run.online_qubits == 0
    assert sd.online_bits == 0
    assert 2 * sd.online_qubits == classical_run.online_bits
    assert sd.ebits == sd.online_qubits


def test_exact_transport_converges():
    run = train_data_parallel(workers=4, transport="exact", seed=0)
    assert run.losses[0].mean() > 0.4  # untrained: near chance
    assert run.final_accuracy > 0.93
    assert run.final_loss < 0.2
    assert run.divergence == 0.0


def test_classical_ring_tracks_exact_training():
    exact = train_data_parallel(workers=4, steps=STEPS, transport="exact", seed=1)
    ring = train_data_parallel(workers=4, steps=STEPS, transport="classical", seed=1)
    # 16-bit quantisation changes the weights only slightly
    assert np.max(np.abs(exact.weights - ring.weights)) < 1e-2
    assert abs(exact.final_loss - ring.final_loss) < 1e-2


def test_noisy_pairs_degrade_training():
    clean = train_data_parallel(workers=4, transport="superdense", pair_fidelity=1.0, seed=0)
    noisy = train_data_parallel(workers=4, transport="superdense", pair_fidelity=0.95, seed=0)
    assert noisy.final_loss > 2 * clean.final_loss
    assert noisy.final_accuracy < clean.final_accuracy
    assert noisy.divergence > 0.0
    assert clean.divergence == 0.0


def test_determinism():
    kw = dict(workers=3, steps=30, transport="superdense", pair_fidelity=0.97)
    a = train_data_parallel(seed=5, **kw)
    b = train_data_parallel(seed=5, **kw)
    c = train_data_parallel(seed=6, **kw)
    assert np.array_equal(a.weights, b.weights)
    assert np.array_equal(a.losses, b.losses)
    assert not np.array_equal(a.weights, c.weights)
    assert repr(a) == repr(b)


def test_custom_allreduce_is_used():
    calls = []

    def exact_sum(grads, step):
        calls.append((step, grads.shape))
        return np.tile(grads.sum(axis=0), (grads.shape[0], 1))

    run = train_data_parallel(workers=3, steps=12, seed=2, allreduce=exact_sum)
    assert [s for s, _ in calls] == list(range(12))
    assert all(shape == (3, n_parameters(16)) for _, shape in calls)
    assert run.transport == "custom"
    ref = train_data_parallel(workers=3, steps=12, seed=2, transport="exact")
    assert np.array_equal(run.weights, ref.weights)


def test_custom_allreduce_output_drives_the_update():
    # An all-reduce returning zeros freezes the weights: every loss equals the initial one.
    run = train_data_parallel(workers=2, steps=5, seed=0,
                              allreduce=lambda g, t: np.zeros_like(g))
    assert np.array_equal(run.losses, np.tile(run.losses[0], (6, 1)))


def test_custom_allreduce_wrong_shape():
    with pytest.raises(ValueError, match="allreduce"):
        train_data_parallel(workers=2, steps=2, allreduce=lambda g, t: g[:1])


def test_make_moons():
    X, y = make_moons(200, seed=0)
    assert X.shape == (200, 2) and y.shape == (200,)
    assert set(np.unique(y)) == {0, 1}
    assert int(y.sum()) == 100
    X2, y2 = make_moons(200, seed=0)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    hidden = 5
    w = rng.normal(size=n_parameters(hidden))
    X, y = make_moons(30, seed=1)
    _, grad, _ = mlp_loss_and_grad(w, X, y, hidden)
    eps = 1e-6
    num = np.empty_like(w)
    for i in range(w.size):
        e = np.zeros_like(w)
        e[i] = eps
        num[i] = (mlp_loss_and_grad(w + e, X, y, hidden)[0]
                  - mlp_loss_and_grad(w - e, X, y, hidden)[0]) / (2 * eps)
    np.testing.assert_allclose(grad, num, rtol=1e-5, atol=1e-7)


def test_pair_fidelity_with_custom_allreduce_is_refused():
    with pytest.raises(ValueError, match="pair_fidelity"):
        train_data_parallel(steps=2, transport="superdense", pair_fidelity=0.9,
                            allreduce=lambda g, t: np.tile(g.sum(axis=0), (g.shape[0], 1)))
