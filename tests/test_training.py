"""Data-parallel training over the ring (qring_edu.training, book/03_training.ipynb).

Thresholds were measured on seeds 0-2 with the default 150 steps (exact transport: final
accuracy 0.973-0.978, loss 0.075-0.085; superdense F = 0.95: the loss more than doubles) and are
set with a wide margin.
"""

from __future__ import annotations

import numpy as np
import pytest

from qring_edu.noise import Link
from qring_edu.protection import protection
from qring_edu.training import (
    MLP,
    VQC,
    gradient_budget,
    make_moons,
    mlp_loss_and_grad,
    n_parameters,
    train_data_parallel,
)
from qring_edu.transports import Classical, Protected, Superdense
from qring_edu.vqc import vqc_n_parameters

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
    assert sd.link == Link() and classical_run.link is None


def test_history_shapes(classical_run):
    r = classical_run
    assert r.losses.shape == (STEPS + 1, 4)
    assert r.accuracies.shape == (STEPS + 1, 4)
    assert r.weights.shape == (4, n_parameters(16))
    assert r.transport == "classical" and r.steps == STEPS and r.workers == 4
    assert r.model == "mlp" and r.protection == "none"


def test_ledger_totals_superdense_is_half(classical_run):
    sd = train_data_parallel(workers=4, steps=STEPS, transport="superdense", seed=0)
    # 16-bit words: every message has an even number of bits, so exactly half as many qubits
    assert classical_run.online_bits > 0
    assert classical_run.online_qubits == 0
    assert sd.online_bits == 0
    assert 2 * sd.online_qubits == classical_run.online_bits
    assert sd.ebits == sd.online_qubits == sd.offline_qubits
    assert sd.offline_bits == 0


def test_exact_transport_converges():
    run = train_data_parallel(workers=4, transport="exact", seed=0)
    assert run.losses[0].mean() > 0.4  # untrained: near chance
    assert run.final_accuracy > 0.93
    assert run.final_loss < 0.2
    assert run.divergence == 0.0
    assert run.online_bits == run.online_qubits == 0


def test_classical_ring_tracks_exact_training():
    exact = train_data_parallel(workers=4, steps=STEPS, transport="exact", seed=1)
    ring = train_data_parallel(workers=4, steps=STEPS, transport="classical", seed=1)
    # 16-bit quantisation changes the weights only slightly
    assert np.max(np.abs(exact.weights - ring.weights)) < 1e-2
    assert abs(exact.final_loss - ring.final_loss) < 1e-2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_noisy_pairs_degrade_training(seed):
    clean = train_data_parallel(workers=4, transport="superdense", pair_fidelity=1.0, seed=seed)
    noisy = train_data_parallel(workers=4, transport="superdense", pair_fidelity=0.95, seed=seed)
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


def test_transport_values_and_shorthand_are_the_same_run():
    kw = dict(workers=3, steps=10, seed=3)
    short = train_data_parallel(transport="superdense", pair_fidelity=0.97, **kw)
    value = train_data_parallel(transport=Superdense(Link(0.97)), **kw)
    assert np.array_equal(short.weights, value.weights) and short.link == value.link
    classical = train_data_parallel(transport=Classical(), **kw)
    assert classical.transport == "classical" and classical.link is None


def test_a_protected_noisy_link_trains_exactly_like_the_classical_ring():
    """Error correction on a noisy link: the sums are exact, so the run is the classical run bit
    for bit; the same link unprotected corrupts the sums and the replicas drift apart."""
    kw = dict(workers=3, steps=8, seed=0)
    classical = train_data_parallel(transport="classical", **kw)
    protected = train_data_parallel(
        transport="superdense", channel_fidelity=0.99, protection="fec", **kw
    )
    unprotected = train_data_parallel(transport="superdense", channel_fidelity=0.99, **kw)
    assert np.array_equal(protected.weights, classical.weights)
    assert protected.protection == "fec" and protected.link == Link(channel_fidelity=0.99)
    assert protected.online_bits > 0  # acknowledgements of the code blocks
    assert protected.online_qubits > classical.online_bits // 2  # parity and checksum qubits
    assert unprotected.divergence > 0 and not np.array_equal(unprotected.weights, classical.weights)
    value = Protected(Superdense(Link(channel_fidelity=0.99)), protection("fec"))
    assert np.array_equal(train_data_parallel(transport=value, **kw).weights, classical.weights)


def test_custom_allreduce_is_used():
    calls = []

    def exact_sum(grads, step):
        calls.append((step, grads.shape))
        return np.tile(grads.sum(axis=0), (grads.shape[0], 1))

    run = train_data_parallel(workers=3, steps=12, seed=2, transport=exact_sum)
    assert [s for s, _ in calls] == list(range(12))
    assert all(shape == (3, n_parameters(16)) for _, shape in calls)
    assert run.transport == "custom" and run.link is None
    ref = train_data_parallel(workers=3, steps=12, seed=2, transport="exact")
    assert np.array_equal(run.weights, ref.weights)


def test_custom_allreduce_output_drives_the_update():
    # An all-reduce returning zeros freezes the weights: every loss equals the initial one.
    run = train_data_parallel(workers=2, steps=5, seed=0, transport=lambda g, t: np.zeros_like(g))
    assert np.array_equal(run.losses, np.tile(run.losses[0], (6, 1)))


def test_custom_allreduce_wrong_shape():
    with pytest.raises(ValueError, match="transport"):
        train_data_parallel(workers=2, steps=2, transport=lambda g, t: g[:1])


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


def test_model_values():
    run = train_data_parallel(model=MLP(hidden=5), steps=3, seed=0)
    assert run.n_params == n_parameters(5) == 27 and run.model == "mlp"
    run = train_data_parallel(model=VQC(qubits=2, layers=2), steps=2, seed=0)
    assert run.weights.shape == (4, vqc_n_parameters(2, 2)) == (4, 8) and run.model == "vqc"
    assert train_data_parallel(model=VQC(4, 3), steps=2, seed=0).n_params == 24


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
    # next to the MLP's 82 parameters (chunks 21, 21, 20, 20: busiest link 124 words)
    mlp = train_data_parallel(steps=2, transport="classical", seed=0)
    assert mlp.online_bits_per_step == gradient_budget(82).link_bits == 124 * 16


def test_vqc_trains(vqc_runs):
    # measured on seeds 0-2 (default 3 qubits x 3 layers, 100 steps): exact transport final
    # accuracy 0.976-0.988, loss 0.15-0.23; untrained loss 0.70-0.98, accuracy 0.34-0.54.
    for run in vqc_runs.values():
        assert run.losses[0].mean() > 0.5
        assert run.final_accuracy > 0.93
        assert run.final_loss < 0.35
    exact, ring = vqc_runs["exact"], vqc_runs["classical"]
    # 16-bit fixed point moves the angles only slightly
    assert np.max(np.abs(exact.weights - ring.weights)) < 1e-2
    assert abs(exact.final_loss - ring.final_loss) < 1e-2


def test_vqc_noisy_pairs_degrade_training(vqc_runs):
    clean = vqc_runs["superdense"]
    noisy = train_data_parallel(
        model="vqc", steps=VQC_STEPS, transport="superdense", pair_fidelity=0.95, seed=0
    )
    assert noisy.final_accuracy < clean.final_accuracy - 0.1
    assert noisy.final_loss > 2 * clean.final_loss
    assert noisy.divergence > 0.0


def test_vqc_custom_allreduce_receives_the_clipped_gradients():
    seen = []

    def record(grads, step):
        seen.append(grads.copy())
        return np.zeros_like(grads)  # freezes the replicas at the initial angles

    kw = dict(model="vqc", workers=2, steps=2, seed=4, batch_size=400, clip=0.05)
    run = train_data_parallel(transport=record, **kw)
    assert run.transport == "custom" and len(seen) == 2 and seen[0].shape == (2, 18)
    # each worker's mini-batch is its whole shard (in another order): with frozen replicas the
    # two steps see the same gradients, up to the order of the sums; clipped to [-clip, clip]
    np.testing.assert_allclose(seen[1], seen[0], atol=1e-15, rtol=0)
    assert np.abs(seen[0]).max() == 0.05 and np.any(np.abs(seen[0]) < 0.05)
    assert not np.allclose(seen[0][0], seen[0][1])  # the two shards differ


def test_vqc_is_deterministic_and_seeded():
    kw = dict(model="vqc", workers=3, steps=15, transport="superdense", pair_fidelity=0.97)
    a, b, c = (train_data_parallel(seed=s, **kw) for s in (5, 5, 6))
    assert np.array_equal(a.weights, b.weights) and repr(a) == repr(b)
    assert not np.array_equal(a.weights, c.weights)
    assert repr(a).startswith(
        "TrainingRun(model='vqc', workers=3, steps=15, transport='superdense', "
        "link=Link(pair_fidelity=0.97"
    )


@pytest.mark.parametrize(
    "kw,exc,pattern",
    [
        (dict(model="qnn"), ValueError, r"model must be one of 'mlp', 'vqc'"),
        (dict(model=None), ValueError, r"model"),
        (dict(model="True"), ValueError, r"model"),
        (dict(transport="quantum"), ValueError, r"transport must be one of"),
        (dict(transport="False"), ValueError, r"transport"),
        (dict(transport=True), TypeError, r"transport"),
        (dict(transport="classical", pair_fidelity=0.9), ValueError, r"pair_fidelity"),
        (dict(transport="exact", channel_fidelity=0.9), ValueError, r"channel_fidelity"),
        (dict(transport="exact", protection="fec"), ValueError, r"protection"),
        (dict(transport=lambda g, t: g, pair_fidelity=0.9), ValueError, r"pair_fidelity"),
        (dict(transport=Superdense(), pair_fidelity=0.9), TypeError, r"pair_fidelity"),
        (dict(transport="superdense", pair_fidelity=1.5), ValueError, r"pair_fidelity"),
        (dict(transport="superdense", protection="ecc"), ValueError, r"protection"),
        (dict(qubits=3), TypeError, r"'qubits'"),
        (dict(hidden=8), TypeError, r"'hidden'"),
        (dict(grads=np.zeros((2, 2))), TypeError, r"'grads'"),
        (dict(workers=1), ValueError, r"workers"),
        (dict(workers=2.0), TypeError, r"workers"),
        (dict(steps=0), ValueError, r"steps"),
        (dict(steps=10**6, workers=1024), ValueError, r"GiB"),
        (dict(bits=1), ValueError, r"bits"),
        (dict(lr=0.0), ValueError, r"lr"),
        (dict(clip=float("nan")), ValueError, r"clip"),
        (dict(batch_size=0), ValueError, r"batch_size"),
        (dict(n_samples=5), ValueError, r"n_samples"),
        (dict(seed=-1), ValueError, r"seed"),
        (dict(seed="0"), TypeError, r"seed"),
    ],
    ids=lambda v: str(v) if not isinstance(v, dict) else ",".join(v),
)
def test_bad_arguments(kw, exc, pattern):
    with pytest.raises(exc, match=pattern):
        train_data_parallel(steps=kw.pop("steps", 1), **kw)


@pytest.mark.parametrize(
    "make,exc,pattern",
    [
        (lambda: VQC(qubits=1), ValueError, r"qubits must be in 2\.\.10"),
        (lambda: VQC(qubits=2.0), TypeError, r"qubits"),
        (lambda: VQC(layers=0), ValueError, r"layers must be in 1\.\."),
        (lambda: MLP(hidden=0), ValueError, r"hidden"),
        (lambda: MLP(hidden=True), TypeError, r"hidden"),
        (lambda: make_moons(1), ValueError, r"n_samples"),
        (lambda: make_moons(10, noise=-1.0), ValueError, r"noise"),
    ],
)
def test_bad_learners(make, exc, pattern):
    with pytest.raises(exc, match=pattern):
        make()


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
    # closed forms: a billion workers cost no array of that size
    huge = gradient_budget(10**12, workers=10**9)
    assert huge.link_bits == 2 * (10**9 - 1) * 1000 * 16 == 2 * huge.link_qubits


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
    with pytest.raises(ValueError, match="fraction"):
        gradient_budget(12).params_for_saving(0.5)
