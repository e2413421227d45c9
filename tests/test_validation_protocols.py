"""Bad input, as a careless user would type it, into the cost model, training, Holevo and VQC
modules and the experiments of chapters 1-4: every public function raises ValueError/TypeError
naming the argument (and, where useful, the accepted range or the memory it would need).

Each case is (callable, exception type, regex the message must match).
"""

from __future__ import annotations

import numpy as np
import pytest

from qring_edu import costmodel
from qring_edu.experiments import bottleneck as xb
from qring_edu.experiments import holevo as xh
from qring_edu.experiments import noisy_links as xn
from qring_edu.experiments import superdense_ring as xs
from qring_edu.experiments import training as xt
from qring_edu.holevo import (
    accessible_information,
    bb84_ensemble,
    bloch_ensemble,
    dense_coding_threshold,
    holevo_chi,
    isotropic_capacity,
    optimal_measurement,
    shannon_entropy,
    two_state_ensemble,
)
from qring_edu.training import MLP, gradient_budget, make_moons, train_data_parallel
from qring_edu.vqc import parameter_shift, vqc_scores

NAN = float("nan")
INF = float("inf")
BB84 = bb84_ensemble()


def train(**kw):
    kw.setdefault("steps", 1)
    return lambda: train_data_parallel(**kw)


CASES = {
    # ---------------- cost model: formulas
    "ring_time P": (lambda: costmodel.ring_time(1, 10, 8, 0, 0), ValueError, r"P.*>= 2"),
    "ring_time d": (lambda: costmodel.ring_time(2, 0, 8, 0, 0), ValueError, r"\bd\b"),
    "ring_time bits": (lambda: costmodel.ring_time(2, 10, 64, 0, 0), ValueError, r"bits"),
    "ring_time alpha<0": (lambda: costmodel.ring_time(2, 10, 8, -1e-6, 0), ValueError, r"alpha"),
    "ring_time beta NaN": (lambda: costmodel.ring_time(2, 10, 8, 0, NAN), ValueError, r"beta"),
    "ring_time alpha str": (lambda: costmodel.ring_time(2, 10, 8, "0", 0), TypeError, r"alpha"),
    "ring_time transport": (
        lambda: costmodel.ring_time(2, 10, 8, 0, 0, transport="x"),
        ValueError,
        r"transport",
    ),
    "ring_time transport bool": (
        lambda: costmodel.ring_time(2, 10, 8, 0, 0, transport=True),
        ValueError,
        r"transport",
    ),
    "ps_time bits": (lambda: costmodel.parameter_server_time(2, 10, 0, 0, 0), ValueError, r"bits"),
    "ps_time P bool": (lambda: costmodel.parameter_server_time(True, 10, 8, 0, 0), TypeError, r"P"),
    "lower bound d": (lambda: costmodel.allreduce_lower_bound_bits(2, -1, 8), ValueError, r"\bd\b"),
    "link_units P str": (lambda: costmodel.link_units("8", 10, 8), TypeError, r"P"),
    "cut bound error": (
        lambda: costmodel.allreduce_cut_bound(2, 10, 8, error=1.0),
        ValueError,
        r"error",
    ),
    "iteration compute": (
        lambda: costmodel.iteration_time(-1, 2, 10, 8, 0, 0),
        ValueError,
        r"compute",
    ),
    "iteration beta_qubit": (
        lambda: costmodel.iteration_time(1, 2, 10, 8, 0, 0, transport="superdense", beta_qubit=-1),
        ValueError,
        r"beta_qubit",
    ),
    "iteration beta_qubit (classical)": (
        lambda: costmodel.iteration_time(1, 2, 10, 8, 0, 0, beta_qubit=1e-9),
        ValueError,
        r"beta_qubit.*superdense",
    ),
    "iteration transport": (
        lambda: costmodel.iteration_time(1, 2, 10, 8, 0, 0, transport="q"),
        ValueError,
        r"transport",
    ),
    # ---------------- cost model: bucketed iterations
    "bucketed buckets huge": (
        lambda: costmodel.bucketed_iteration_time(1, 2, 10**12, 8, 0, 0, buckets=10**9),
        ValueError,
        r"buckets.*1\.\.100000",
    ),
    "bucketed buckets generator": (
        lambda: costmodel.bucketed_iteration_time(1, 2, 10, 8, 0, 0, buckets=iter([5, 5, 5])),
        ValueError,
        r"buckets.*sum to d = 10",
    ),
    "bucketed simulate too large": (
        lambda: costmodel.bucketed_iteration_time(1, 10**4, 10**6, 8, 0, 0, buckets=2),
        ValueError,
        r"method='simulate'.*formula",
    ),
    "bucketed ahead classical": (
        lambda: costmodel.bucketed_iteration_time(1, 2, 10, 8, 0, 0, buckets=1, ahead=1),
        ValueError,
        r"ahead.*superdense",
    ),
    "best ratio buckets str": (lambda: costmodel.bucketed_best_ratio("3"), TypeError, r"buckets"),
    # ---------------- training
    "train workers<2": (train(workers=1), ValueError, r"workers.*2\.\.1024"),
    "train workers bool": (train(workers=True), TypeError, r"workers"),
    "train transport": (train(transport="quantum"), ValueError, r"transport"),
    "train transport number": (train(transport=3), TypeError, r"transport"),
    "train F with classical": (train(pair_fidelity=0.9), ValueError, r"pair_fidelity.*superdense"),
    "train F with exact": (
        train(transport="exact", pair_fidelity=0.9),
        ValueError,
        r"pair_fidelity",
    ),
    "train F range": (
        train(transport="superdense", pair_fidelity=0.1),
        ValueError,
        r"pair_fidelity",
    ),
    "train bits": (train(bits=33), ValueError, r"bits.*2\.\.32"),
    "train bits too small for P": (train(bits=3, workers=4), ValueError, r"bits.*too small"),
    "train steps": (train(steps=0), ValueError, r"steps"),
    "train memory": (train(steps=10**6, workers=1000), ValueError, r"GiB"),
    "train seed<0": (train(seed=-1), ValueError, r"seed"),
    "train seed float": (train(seed=0.5), TypeError, r"seed"),
    "train lr": (train(lr=0.0), ValueError, r"\blr\b"),
    "train clip": (train(clip=INF), ValueError, r"clip"),
    "train batch_size": (train(batch_size=0), ValueError, r"batch_size"),
    "train hidden": (
        lambda: train_data_parallel(steps=1, model=MLP(hidden=0)),
        ValueError,
        r"hidden",
    ),
    "train n_samples": (train(n_samples=3, workers=2), ValueError, r"n_samples"),
    "train unknown keyword": (train(allreduce=sum), TypeError, r"'allreduce'"),
    "moons n": (lambda: make_moons(1), ValueError, r"n_samples"),
    "moons n huge": (lambda: make_moons(10**12), ValueError, r"n_samples"),
    "moons noise": (lambda: make_moons(10, noise=-1.0), ValueError, r"noise"),
    "moons seed": (lambda: make_moons(10, seed=-1), ValueError, r"seed"),
    "budget n_params": (lambda: gradient_budget(0), ValueError, r"n_params"),
    # ---------------- Holevo quantities
    "probs str": (lambda: shannon_entropy(["0.5", "0.5"]), TypeError, r"probs"),
    "probs bool": (lambda: shannon_entropy([True, False]), TypeError, r"probs"),
    "probs sum": (lambda: shannon_entropy([0.5, 0.4]), ValueError, r"probs.*sum to 1"),
    "chi states": (lambda: holevo_chi([1.0], 3), TypeError, r"states"),
    "chi huge state": (
        lambda: holevo_chi([1.0], [np.eye(1, 2**13)[0]]),
        ValueError,
        r"states.*GiB",
    ),
    "accessible starts huge": (
        lambda: accessible_information(*BB84, starts=10**30),
        ValueError,
        r"starts.*GiB",
    ),
    "accessible starts above the cap": (
        lambda: accessible_information(*BB84, starts=10**5),
        ValueError,
        r"starts.*1\.\.10000",
    ),
    "accessible starts str": (lambda: optimal_measurement(*BB84, starts="4"), TypeError, r"starts"),
    "accessible max_iter": (
        lambda: optimal_measurement(*BB84, max_iter=10**9),
        ValueError,
        r"max_iter",
    ),
    "accessible tol": (lambda: optimal_measurement(*BB84, tol=0.0), ValueError, r"tol"),
    "accessible seed": (lambda: optimal_measurement(*BB84, seed=-1), ValueError, r"seed"),
    "capacity F": (lambda: isotropic_capacity(1.5), ValueError, r"pair_fidelity"),
    "threshold level": (lambda: dense_coding_threshold(3.0), ValueError, r"level"),
    "two states overlap": (lambda: two_state_ensemble(-0.1), ValueError, r"overlap"),
    "bloch thetas str": (
        lambda: bloch_ensemble(["0"], [0.0], [1.0]),
        TypeError,
        r"thetas",
    ),
    "bloch radii": (lambda: bloch_ensemble([0.0], [0.0], [1.0], radii=[2.0]), ValueError, r"radii"),
    # ---------------- VQC
    "vqc scores memory": (
        lambda: vqc_scores(np.zeros((20_000, 18)), np.zeros((20_000, 2))),
        ValueError,
        r"GiB",
    ),
    "shift score": (lambda: parameter_shift(3, np.zeros(2), 0), TypeError, r"score"),
    "shift index": (lambda: parameter_shift(np.sum, np.zeros(2), 5), ValueError, r"index"),
    # ---------------- experiments
    "ensembles_table accessible str": (
        lambda: xh.ensembles_table([BB84], accessible="False"),
        TypeError,
        r"accessible",
    ),
    "cut_set_sweep int64": (
        lambda: xh.cut_set_sweep(d=10**12, workers=(2, 10**9)),
        ValueError,
        r"workers",
    ),
    "capacity_sweep strings": (lambda: xn.capacity_sweep(["0.9"]), TypeError, r"fidelities"),
    "capacity_sweep huge grid": (
        lambda: xn.capacity_sweep(np.full(10**6, 0.9)),
        ValueError,
        r"fidelities.*100,000",
    ),
    "distillation rounds str": (
        lambda: xn.distillation_sweep([0.9], rounds="12"),
        TypeError,
        r"rounds",
    ),
    "distillation rounds repeated": (
        lambda: xn.distillation_table([0.9], rounds=[1, 1]),
        ValueError,
        r"rounds",
    ),
    "net_factor scheme": (lambda: xn.net_factor_sweep(0.99, "ecc"), ValueError, r"scheme"),
    "net_factor block_length": (
        lambda: xn.net_factor_sweep(0.99, "fec", block_length=300),
        ValueError,
        r"block_length",
    ),
    "scheme_ledger seed float": (
        lambda: xn.scheme_ledger(0.99, workers=2, d=8, seed=0.5),
        TypeError,
        r"seed",
    ),
    "reality bits": (lambda: xn.reality_check(bits=64), ValueError, r"bits"),
    "reality model": (lambda: xn.reality_check(["AlexNet"]), ValueError, r"models"),
    "link_noise_check seed": (
        lambda: xn.link_noise_check(0.9, 0.9, symbols=10, seed=-1),
        ValueError,
        r"seed",
    ),
    "symbol sweep too many points": (
        lambda: xs.symbol_error_sweep(np.full(2000, 0.9), 1),
        ValueError,
        r"fidelities",
    ),
    "channel stats F": (lambda: xs.channel_statistics(1.5, 10), ValueError, r"pair_fidelity"),
    "learner comparison transport": (
        lambda: xt.learner_comparison(steps=1, transport="exact"),
        TypeError,
        r"transport",
    ),
    "cost_sweep workers": (
        lambda: xb.cost_sweep(100, 16, 1e-6, 1e-9, workers=[1]),
        ValueError,
        r"workers",
    ),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_bad_input_raises_naming_the_argument(case):
    fn, exc, pattern = CASES[case]
    with pytest.raises(exc, match=pattern):
        fn()


def test_good_input_of_the_same_calls_passes():
    """The cases above fail because of the one bad argument, not because the call is broken."""
    costmodel.iteration_time(1, 2, 10, 8, 0, 0, transport="superdense", beta_qubit=0.0)
    costmodel.bucketed_iteration_time(1, 2, 10, 8, 0, 0, buckets=iter([5, 5]))
    costmodel.bucketed_iteration_time(1, 2, 10**12, 8, 0, 0, buckets=10**5, method="formula")
    train_data_parallel(steps=1, bits=4, workers=4)
    accessible_information(*BB84, starts=100)
    xh.ensembles_table([BB84], accessible=np.bool_(False))
    xn.capacity_sweep([0.9])
    xn.distillation_table([0.9], rounds=[1, 2])
