"""Data-parallel training over the ring (qring_edu.training, book/03_superdense_ring.ipynb, chapter 3).

Thresholds were measured on seeds 0-2 with the default 150 steps (exact transport: final
accuracy 0.973-0.978, loss 0.075-0.085; superdense F = 0.95: loss 0.82-1.27, accuracy ~0.85) and
are set with a wide margin.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from qring_edu.training import (
    gradient_budget,
    make_moons,
    mlp_loss_and_grad,
    n_parameters,
    ring_link_options,
    train_data_parallel,
)
from qring_edu.vqc import vqc_loss_and_grad, vqc_n_parameters

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
    run = train_data_parallel(workers=2, steps=5, seed=0, allreduce=lambda g, t: np.zeros_like(g))
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
        num[i] = (
            mlp_loss_and_grad(w + e, X, y, hidden)[0] - mlp_loss_and_grad(w - e, X, y, hidden)[0]
        ) / (2 * eps)
    np.testing.assert_allclose(grad, num, rtol=1e-5, atol=1e-7)


def test_pair_fidelity_with_custom_allreduce_is_refused():
    with pytest.raises(ValueError, match="pair_fidelity"):
        train_data_parallel(
            steps=2,
            transport="superdense",
            pair_fidelity=0.9,
            allreduce=lambda g, t: np.tile(g.sum(axis=0), (g.shape[0], 1)),
        )


# ------------------------------------------------------------------------------------------
# model="mlp" is today's training loop, bit for bit


def _reference_train_mlp(
    *,
    workers=4,
    steps=150,
    transport="classical",
    pair_fidelity=1.0,
    bits=16,
    lr=1.0,
    batch_size=16,
    hidden=16,
    clip=1.0,
    n_samples=800,
    seed=0,
):
    """The MLP training loop of qring_edu 0.1.0 before the VQC (a02377c), verbatim in what it
    computes: the same generators, draws and updates in the same order."""
    from qring_edu import ring_allreduce

    data_rng = np.random.default_rng([seed, 0])
    batch_rng = np.random.default_rng([seed, 1])
    noise_rng = np.random.default_rng([seed, 2])
    X, y = make_moons(n_samples, seed=data_rng)
    shards = np.array_split(np.arange(n_samples), workers)
    w0 = 0.5 * data_rng.standard_normal(n_parameters(hidden))
    W = np.tile(w0, (workers, 1))
    losses = np.empty((steps + 1, workers))
    bits_total = 0
    for k in range(workers):
        losses[0, k] = mlp_loss_and_grad(W[k], X, y, hidden)[0]
    for t in range(steps):
        grads = np.empty_like(W)
        for k in range(workers):
            batch = batch_rng.choice(
                shards[k], size=batch_size, replace=False if batch_size <= shards[k].size else True
            )
            grads[k] = np.clip(mlp_loss_and_grad(W[k], X[batch], y[batch], hidden)[1], -clip, clip)
        if transport == "exact":
            summed = np.tile(grads.sum(axis=0), (workers, 1))
        else:
            res = ring_allreduce(
                grads,
                transport=transport,
                bits=bits,
                max_abs=clip,
                pair_fidelity=pair_fidelity,
                seed=noise_rng,
            )
            summed = res.outputs
            bits_total += res.ledger.online_bits()
        W -= lr * summed / workers
        for k in range(workers):
            losses[t + 1, k] = mlp_loss_and_grad(W[k], X, y, hidden)[0]
    return W, losses, bits_total


@pytest.mark.parametrize(
    "kw",
    [
        dict(steps=40),
        dict(steps=30, transport="superdense", pair_fidelity=0.97, workers=3, seed=3),
        dict(steps=25, transport="exact", hidden=5, lr=0.5, batch_size=500, seed=1),
    ],
    ids=["classical", "superdense-noisy", "exact-hidden5"],
)
def test_mlp_model_reproduces_the_previous_training_bit_for_bit(kw):
    W, losses, bits_total = _reference_train_mlp(**kw)
    run = train_data_parallel(model="mlp", **kw)
    default = train_data_parallel(**kw)
    for r in (run, default):
        assert np.array_equal(r.weights, W)
        assert np.array_equal(r.losses, losses)
        assert r.online_bits == bits_total
        assert r.model == "mlp"


# ------------------------------------------------------------------------------------------
# model="vqc": the variational quantum classifier of qring_edu.vqc over the same rings

VQC_STEPS = 100  # the chapter's figure: 4 workers, 100 steps


@pytest.fixture(scope="module")
def vqc_runs():
    kw = dict(model="vqc", workers=4, steps=VQC_STEPS, seed=0)
    return {
        "classical": train_data_parallel(transport="classical", **kw),
        "superdense": train_data_parallel(transport="superdense", pair_fidelity=1.0, **kw),
        "exact": train_data_parallel(transport="exact", **kw),
    }


def test_vqc_bit_identical_over_classical_and_superdense_ring(vqc_runs):
    cl, sd = vqc_runs["classical"], vqc_runs["superdense"]
    assert np.array_equal(cl.weights, sd.weights)
    assert np.array_equal(cl.losses, sd.losses)
    assert np.array_equal(cl.accuracies, sd.accuracies)
    assert cl.divergence == 0.0 == sd.divergence
    assert cl.model == sd.model == "vqc" and cl.n_params == vqc_n_parameters() == 18
    # the angles moved: identity is not the trivial identity of untrained parameters
    assert not np.allclose(cl.losses[0], cl.losses[-1], atol=0.05)


def test_vqc_ledger_is_the_ring_of_18_words(vqc_runs):
    cl, sd = vqc_runs["classical"], vqc_runs["superdense"]
    budget = gradient_budget(18, workers=4, bits=16)
    # d = 18, P = 4: chunks 5, 5, 4, 4; worker k skips chunk k+1 in reduce-scatter and chunk k+2
    # in all-gather: the busiest link carries 2 * 18 - 4 - 4 = 28 words per step
    assert cl.online_bits_per_step == budget.link_bits == 28 * 16 == 448
    assert sd.online_qubits_per_step == budget.link_qubits == 224
    assert cl.online_qubits == 0 and sd.online_bits == 0
    assert sd.ebits == sd.offline_qubits == sd.online_qubits
    assert cl.gradient_bits == 18 * 16
    totals = dict(sd.ledger_totals)
    assert totals["online_qubits"] == sd.online_qubits and totals["ebits"] == sd.ebits
    # next to the MLP's 82 parameters (chunks 21, 21, 20, 20: busiest link 124 words)
    mlp = train_data_parallel(steps=2, transport="classical", seed=0)
    assert mlp.online_bits_per_step == gradient_budget(82).link_bits == 124 * 16


def test_vqc_trains(vqc_runs):
    # measured on seeds 0-2 (default 3 qubits x 3 layers, 100 steps): exact transport final
    # accuracy 0.976-0.988, loss 0.15-0.23; untrained loss 0.70-0.98, accuracy 0.34-0.54.
    # Thresholds with a margin.
    for run in vqc_runs.values():
        assert run.losses[0].mean() > 0.5
        assert run.final_accuracy > 0.93
        assert run.final_loss < 0.35
    exact, ring = vqc_runs["exact"], vqc_runs["classical"]
    # 16-bit fixed point moves the angles only slightly
    assert np.max(np.abs(exact.weights - ring.weights)) < 1e-2
    assert abs(exact.final_loss - ring.final_loss) < 1e-2


def test_vqc_noisy_pairs_degrade_training(vqc_runs):
    # measured (seeds 0-2, 100 steps): F = 0.999 accuracy 0.963-0.983, F = 0.99 0.57-0.73,
    # F = 0.95 0.34-0.58, against 0.976-0.988 at F = 1
    clean = vqc_runs["superdense"]
    noisy = train_data_parallel(
        model="vqc", steps=VQC_STEPS, transport="superdense", pair_fidelity=0.95, seed=0
    )
    assert noisy.final_accuracy < clean.final_accuracy - 0.1
    assert noisy.final_loss > 2 * clean.final_loss
    assert noisy.divergence > 0.0


def test_vqc_custom_allreduce_receives_the_clipped_parameter_shift_gradients():
    seen = []

    def record(grads, step):
        seen.append(grads.copy())
        return np.zeros_like(grads)  # freezes the replicas at the initial angles w0

    kw = dict(model="vqc", workers=2, steps=2, seed=4, batch_size=400, clip=0.05)
    run = train_data_parallel(allreduce=record, **kw)
    w0 = run.weights[0]
    assert run.transport == "custom" and len(seen) == 2 and seen[0].shape == (2, 18)
    # batch_size = shard size: each worker's gradient is the parameter-shift gradient of its
    # whole shard's loss at w0, clipped to [-clip, clip]. The data follow the documented recipe
    # (make_moons from the generator default_rng([seed, 0]), contiguous shards).
    X, y = make_moons(800, seed=np.random.default_rng([4, 0]))
    for k, shard in enumerate(np.array_split(np.arange(800), 2)):
        g = np.clip(vqc_loss_and_grad(w0, X[shard], y[shard])[1], -0.05, 0.05)
        # the batch is the shard in another order: equal up to the order of the sums
        np.testing.assert_allclose(seen[0][k], g, atol=1e-15, rtol=0)
        np.testing.assert_allclose(seen[1][k], g, atol=1e-15, rtol=0)  # frozen replicas
    assert np.any(np.abs(seen[0]) == 0.05) and np.any(np.abs(seen[0]) < 0.05)


def test_vqc_is_deterministic_and_seeded():
    kw = dict(model="vqc", workers=3, steps=15, transport="superdense", pair_fidelity=0.97)
    a, b, c = (train_data_parallel(seed=s, **kw) for s in (5, 5, 6))
    assert np.array_equal(a.weights, b.weights) and repr(a) == repr(b)
    assert not np.array_equal(a.weights, c.weights)
    assert repr(a).startswith(
        "TrainingRun(model='vqc', workers=3, steps=15, transport='superdense', pair_fidelity=0.97"
    )


def test_vqc_size_options():
    run = train_data_parallel(model="vqc", qubits=2, layers=2, steps=2, seed=0)
    assert run.weights.shape == (4, vqc_n_parameters(2, 2)) == (4, 8)
    run = train_data_parallel(model="vqc", qubits=4, layers=3, steps=2, seed=0)
    assert run.n_params == 24


@pytest.mark.parametrize(
    "kw,exc,pattern",
    [
        (dict(model="qnn"), ValueError, r"model must be one of 'mlp', 'vqc'"),
        (dict(model=None), ValueError, r"model"),
        (dict(model="vqc", qubits=1), ValueError, r"qubits must be in 2\.\.10"),
        (dict(model="vqc", qubits=2.0), TypeError, r"qubits"),
        (dict(model="vqc", layers=0), ValueError, r"layers must be in 1\.\."),
        (dict(model="mlp", qubits=3), ValueError, r"qubits applies only to model='vqc'"),
        (dict(layers=2), ValueError, r"layers applies only to model='vqc'"),
        (dict(model="vqc", hidden=8), ValueError, r"hidden applies only to model='mlp'"),
        (dict(model="vqc", transport="classical", pair_fidelity=0.9), ValueError, r"pair_fidelity"),
        (dict(model="vqc", no_such_option=1), TypeError, r"'no_such_option'"),
        (dict(grads=np.zeros((2, 2))), TypeError, r"'grads'"),
    ],
    ids=lambda v: str(v) if not isinstance(v, dict) else ",".join(v),
)
def test_bad_model_arguments(kw, exc, pattern):
    with pytest.raises(exc, match=pattern):
        train_data_parallel(steps=1, **kw)


# ------------------------------------------------------------------------------------------
# link options: whatever extra arguments ring_allreduce accepts are forwarded


def test_link_options_are_read_from_the_ring_signature():
    import inspect

    from qring_edu.ring import ring_allreduce

    own = {"grads", "transport", "bits", "max_abs", "pair_fidelity", "seed"}
    assert set(ring_link_options()) == set(inspect.signature(ring_allreduce).parameters) - own


def test_link_options_are_forwarded_to_every_allreduce(monkeypatch):
    import qring_edu.training as training

    real = training.ring_allreduce
    calls = []

    def ring_with_option(
        grads,
        *,
        transport="classical",
        bits=16,
        max_abs=None,
        pair_fidelity=1.0,
        link_gain=1.0,
        seed=None,
    ):
        calls.append(link_gain)
        res = real(
            grads,
            transport=transport,
            bits=bits,
            max_abs=max_abs,
            pair_fidelity=pair_fidelity,
            seed=seed,
        )
        return dataclasses.replace(res, outputs=res.outputs * link_gain)

    monkeypatch.setattr(training, "ring_allreduce", ring_with_option)
    assert ring_link_options() == ("link_gain",)
    base = train_data_parallel(model="vqc", steps=4, transport="superdense", seed=0)
    same = train_data_parallel(model="vqc", steps=4, transport="superdense", seed=0, link_gain=1.0)
    frozen = train_data_parallel(
        model="vqc", steps=4, transport="superdense", seed=0, link_gain=0.0
    )
    assert calls == [1.0] * 8 + [0.0] * 4
    assert np.array_equal(base.weights, same.weights)
    assert np.array_equal(frozen.losses, np.tile(frozen.losses[0], (5, 1)))
    assert dict(frozen.link_options) == {"link_gain": 0.0}
    assert "link_gain=0" in repr(frozen)
    with pytest.raises(ValueError, match=r"link_gain.*transport='exact'"):
        train_data_parallel(steps=1, transport="exact", link_gain=0.5)
    with pytest.raises(ValueError, match=r"link_gain.*custom allreduce"):
        train_data_parallel(steps=1, link_gain=0.5, allreduce=lambda g, t: g)
    with pytest.raises(TypeError, match=r"'channel_fidelty'.*link_gain"):
        train_data_parallel(steps=1, channel_fidelty=0.9)


def test_pair_fidelity_default_leaves_it_to_the_ring():
    run = train_data_parallel(model="vqc", steps=2, transport="superdense", seed=0)
    explicit = train_data_parallel(
        model="vqc", steps=2, transport="superdense", pair_fidelity=1.0, seed=0
    )
    assert run.pair_fidelity == 1.0 and np.array_equal(run.weights, explicit.weights)
    assert train_data_parallel(steps=1, transport="exact", pair_fidelity=1.0).pair_fidelity == 1.0


def test_communication_time_is_the_ledger_time_summed_over_steps(vqc_runs):
    from qring_edu import ring_allreduce

    alpha, beta = 1e-5, 1e-9
    for transport in ("classical", "superdense"):
        run = vqc_runs[transport]
        one = ring_allreduce(np.zeros((4, 18)), transport=transport, bits=16, max_abs=1.0)
        assert run.communication_time(alpha, beta) == pytest.approx(
            VQC_STEPS * one.ledger.ring_time(alpha, beta), rel=1e-12
        )
    sd, cl = vqc_runs["superdense"], vqc_runs["classical"]
    assert sd.communication_time(0, 1) == cl.communication_time(0, 1) / 2
    with pytest.raises(ValueError, match="communication_time"):
        vqc_runs["exact"].communication_time(alpha, beta)


# ------------------------------------------------------------------------------------------
# gradient_budget: the gradient on the α–β clock


@pytest.mark.parametrize("d,P,b", [(12, 4, 16), (82, 4, 16), (7, 3, 5), (5, 8, 16), (100, 2, 9)])
def test_gradient_budget_matches_the_ring_ledger_and_cost_model(d, P, b):
    from qring_edu import ring_allreduce, ring_time

    budget = gradient_budget(d, workers=P, bits=b, alpha=2e-6, beta=3e-10)
    zeros = np.zeros((P, d), dtype=np.int64)
    assert budget.link_bits == ring_allreduce(zeros, bits=b).ledger.online_bits()
    assert (
        budget.link_qubits
        == ring_allreduce(zeros, transport="superdense", bits=b).ledger.online_qubits()
    )
    assert budget.classical_time == ring_time(P, d, b, 2e-6, 3e-10)
    assert budget.superdense_time == ring_time(P, d, b, 2e-6, 3e-10, transport="superdense")
    assert budget.gradient_bits == d * b
    assert budget.latency == pytest.approx(2 * (P - 1) * 2e-6)


def test_gradient_budget_crossover_and_saving():
    small, mlp = gradient_budget(18), gradient_budget(82)  # alpha 10 us, 100 Gb/s, P 4, b 16
    assert small.crossover_params == pytest.approx(250_000)
    # chunks of ceil(18/4) = 5 words of 16 bits at 1e-11 s per bit next to 10 us per message
    assert small.bandwidth_ratio == pytest.approx(5 * 16 * 1e-11 / 1e-5)
    assert 0 < small.saving < mlp.saving < 1e-3
    at = gradient_budget(250_000)  # P | d: bandwidth term = latency term
    assert at.bandwidth_ratio == pytest.approx(1.0)
    assert at.saving == pytest.approx(0.25, abs=1e-9)
    big = gradient_budget(10**9)
    assert 0.49 < big.saving < 0.5
    for f in (0.05, 0.25, 0.4):
        d = round(small.params_for_saving(f) / 4) * 4
        assert gradient_budget(d).saving == pytest.approx(f, abs=1e-4)
    assert gradient_budget(18, alpha=0.0).saving == pytest.approx(0.5)


@pytest.mark.parametrize(
    "kw,exc,pattern",
    [
        (dict(n_params=0), ValueError, r"n_params"),
        (dict(n_params=12, workers=1), ValueError, r"workers"),
        (dict(n_params=12, bits=40), ValueError, r"bits"),
        (dict(n_params=12, alpha=-1.0), ValueError, r"alpha"),
        (dict(n_params=12, beta=float("nan")), ValueError, r"beta"),
        (dict(n_params=12, alpha=0.0, beta=0.0), ValueError, r"alpha and beta"),
    ],
)
def test_gradient_budget_bad_input(kw, exc, pattern):
    with pytest.raises(exc, match=pattern):
        gradient_budget(**kw)
    if "n_params" in kw and len(kw) == 1:
        return
    with pytest.raises(ValueError, match="fraction"):
        gradient_budget(12).params_for_saving(0.5)
