"""The variational quantum classifier (qring_edu.vqc): fast path vs Qiskit, parameter shift vs
finite differences, an analytic one-layer formula, memory chunking and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from qring_edu.training import make_moons
from qring_edu.vqc import (
    parameter_shift,
    vqc_circuit,
    vqc_encoding,
    vqc_loss_accuracy,
    vqc_loss_and_grad,
    vqc_n_parameters,
    vqc_score_gradient,
    vqc_score_gradient_qiskit,
    vqc_scores,
    vqc_scores_qiskit,
)

SIZES = [(2, 1), (2, 3), (3, 2), (4, 3)]


def _instance(qubits, layers, n=6, seed=0):
    rng = np.random.default_rng([seed, qubits, layers])
    theta = rng.uniform(-np.pi, np.pi, vqc_n_parameters(qubits, layers))
    X = rng.normal([0.5, 0.25], [1.0, 0.6], size=(n, 2))
    return theta, X


@pytest.mark.parametrize("qubits,layers", SIZES)
def test_scores_match_qiskit_statevectors(qubits, layers):
    """Each score is <Z_0> of Qiskit's Statevector of the bound circuit (no estimator)."""
    from qiskit.quantum_info import SparsePauliOp, Statevector

    theta, X = _instance(qubits, layers, n=3)
    qc = vqc_circuit(qubits, layers)
    z0 = SparsePauliOp("I" * (qubits - 1) + "Z")
    for x, s in zip(X, vqc_scores(theta, X, qubits=qubits, layers=layers)):
        values = {
            p: (x[p.index] if p.vector.name == "x" else theta[p.index]) for p in qc.parameters
        }
        ref = Statevector(qc.assign_parameters(values)).expectation_value(z0).real
        assert s == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("qubits,layers", SIZES)
def test_scores_and_gradients_match_statevector_estimator(qubits, layers):
    theta, X = _instance(qubits, layers)
    kw = dict(qubits=qubits, layers=layers)
    np.testing.assert_allclose(
        vqc_scores(theta, X, **kw), vqc_scores_qiskit(theta, X, **kw), atol=1e-10, rtol=0
    )
    np.testing.assert_allclose(
        vqc_score_gradient(theta, X, **kw),
        vqc_score_gradient_qiskit(theta, X, **kw),
        atol=1e-10,
        rtol=0,
    )
    # several parameter vectors at once on both paths
    thetas = np.stack([theta, -theta, theta + 1.0])
    np.testing.assert_allclose(
        vqc_scores(thetas, X, **kw), vqc_scores_qiskit(thetas, X, **kw), atol=1e-10, rtol=0
    )


@pytest.mark.parametrize("qubits,layers", SIZES)
def test_parameter_shift_matches_central_differences(qubits, layers):
    theta, X = _instance(qubits, layers, seed=1)
    kw = dict(qubits=qubits, layers=layers)
    grad = vqc_score_gradient(theta, X, **kw)
    assert grad.shape == (X.shape[0], theta.size)
    eps = 1e-5
    num = np.empty_like(grad)
    for j in range(theta.size):
        e = np.zeros_like(theta)
        e[j] = eps
        num[:, j] = (vqc_scores(theta + e, X, **kw) - vqc_scores(theta - e, X, **kw)) / (2 * eps)
    np.testing.assert_allclose(grad, num, atol=1e-8, rtol=0)
    assert np.max(np.abs(grad)) > 0.1  # the comparison is not between two zeros


def test_loss_gradient_matches_central_differences():
    theta, _ = _instance(3, 3, seed=2)  # the default size
    X, y = make_moons(40, seed=3)
    loss, grad, acc = vqc_loss_and_grad(theta, X, y)
    eps = 1e-6
    num = np.array(
        [
            (
                vqc_loss_and_grad(theta + eps * e, X, y)[0]
                - vqc_loss_and_grad(theta - eps * e, X, y)[0]
            )
            / (2 * eps)
            for e in np.eye(theta.size)
        ]
    )
    np.testing.assert_allclose(grad, num, rtol=1e-6, atol=1e-9)
    # loss and accuracy follow the stated definitions: p(1|x) = (1 - s)/2, class 1 iff s < 0
    s = vqc_scores(theta, X)
    p_y = np.where(y == 1, (1 - s) / 2, (1 + s) / 2)
    assert loss == pytest.approx(-np.mean(np.log(p_y + 1e-12)), rel=1e-12)
    assert acc == np.mean((s < 0) == (y == 1))
    assert vqc_loss_accuracy(theta, X, y) == (loss, acc)


@pytest.mark.parametrize("qubits", [2, 3, 5])
def test_one_layer_matches_bloch_sphere_formula(qubits):
    # One layer: qubit q is RY(t1) RZ(t0) RY(a)|0> with <Z_q> = cos t1 cos a - sin t1 sin a cos t0
    # (Bloch sphere), and the CNOT ladder towards qubit 0 pulls Z_0 back to Z_0 Z_1 ... Z_{n-1}:
    # on the product state the score is the product of the n single-qubit expectations.
    rng = np.random.default_rng([4, qubits])
    theta = rng.uniform(-np.pi, np.pi, 2 * qubits)
    X = rng.normal(size=(20, 2))
    a = vqc_encoding(X)
    t0, t1 = theta[0::2], theta[1::2]
    z = [
        np.cos(t1[q]) * np.cos(a[:, q % 2]) - np.sin(t1[q]) * np.sin(a[:, q % 2]) * np.cos(t0[q])
        for q in range(qubits)
    ]
    np.testing.assert_allclose(
        vqc_scores(theta, X, qubits=qubits, layers=1), np.prod(z, axis=0), atol=1e-13
    )


@pytest.mark.parametrize("qubits,layers", SIZES)
def test_every_parameter_moves_the_score(qubits, layers):
    # The ladder keeps every rotation inside the backward light cone of Z_0: no parameter has an
    # identically zero gradient (a CNOT(0 -> 1) or a CNOT ring would leave two dead angles).
    theta, X = _instance(qubits, layers, n=20, seed=7)
    grad = vqc_score_gradient(theta, X, qubits=qubits, layers=layers)
    assert np.all(np.max(np.abs(grad), axis=0) > 1e-3)


def test_scores_are_expectations_and_2pi_periodic():
    theta, X = _instance(3, 2, n=30, seed=5)
    s = vqc_scores(theta, X, qubits=3, layers=2)
    assert np.all(np.abs(s) <= 1 + 1e-12)
    shifted = theta.copy()
    shifted[[1, 6]] += 2 * np.pi  # RY(t + 2π) = -RY(t): a global sign, same expectation
    np.testing.assert_allclose(vqc_scores(shifted, X, qubits=3, layers=2), s, atol=1e-12)
    shifted[1] += np.pi  # a half turn is not a symmetry
    assert np.max(np.abs(vqc_scores(shifted, X, qubits=3, layers=2) - s)) > 1e-3


def test_encoding_maps_the_bounding_box_to_half_turns():
    np.testing.assert_allclose(
        vqc_encoding([[-1.0, -0.5], [0.5, 0.25], [2.0, 1.0]]),
        np.pi / 2 * np.array([[-1, -1], [0, 0], [1, 1]]),
        atol=1e-15,
    )


def test_a_large_batch_equals_its_pieces():
    """2,500 samples of 2^10 amplitudes each exceed one simulation block: the scores of the whole
    batch equal those of small batches (a misplaced block would be off by O(1))."""
    theta, X = _instance(10, 1, n=2500, seed=6)
    thetas = np.stack([theta, -theta])
    whole = vqc_scores(thetas, X, qubits=10, layers=1)
    parts = np.hstack(
        [vqc_scores(thetas, X[i : i + 100], qubits=10, layers=1) for i in range(0, 2500, 100)]
    )
    np.testing.assert_allclose(whole, parts, atol=1e-12)


def test_sizes_that_cannot_fit_are_refused():
    with pytest.raises(ValueError, match=r"GiB"):
        vqc_scores(np.zeros((20_000, 18)), np.zeros((20_000, 2)))


@pytest.mark.parametrize("qubits,layers", [(2, 3), (3, 3), (4, 2)])
def test_circuit_structure(qubits, layers):
    qc = vqc_circuit(qubits, layers)
    ops = dict(qc.count_ops())
    assert qc.num_qubits == qubits
    assert qc.num_parameters == 2 + vqc_n_parameters(qubits, layers)
    assert ops["ry"] == 2 * qubits * layers  # encoding + trainable
    assert ops["rz"] == qubits * layers
    assert ops["cx"] == (qubits - 1) * layers
    # the ladder: CNOT(n-1 -> n-2), ..., CNOT(1 -> 0) in every layer
    cx = [
        tuple(qc.find_bit(b).index for b in inst.qubits)
        for inst in qc.data
        if inst.operation.name == "cx"
    ]
    assert cx[: qubits - 1] == [(q + 1, q) for q in reversed(range(qubits - 1))]
    assert {p.vector.name for p in qc.parameters} == {"x", "θ"}


BAD = {
    "qubits 1": (lambda: vqc_n_parameters(1, 3), ValueError, r"qubits.*2\.\.10"),
    "qubits 11": (lambda: vqc_scores(np.zeros(66), [[0, 0]], qubits=11), ValueError, r"qubits"),
    "qubits float": (lambda: vqc_n_parameters(2.5, 3), TypeError, r"qubits"),
    "qubits bool": (lambda: vqc_circuit(True, 3), TypeError, r"qubits"),
    "layers 0": (lambda: vqc_n_parameters(2, 0), ValueError, r"layers"),
    "layers qiskit": (lambda: vqc_circuit(2, 0), ValueError, r"layers"),
    "params shape": (lambda: vqc_scores(np.zeros(17), [[0, 0]]), ValueError, r"params.*\(18,\)"),
    "params for other size": (
        lambda: vqc_scores(np.zeros(18), [[0, 0]], qubits=2),
        ValueError,
        r"params.*\(12,\)",
    ),
    "params 3-D": (lambda: vqc_scores(np.zeros((1, 1, 18)), [[0, 0]]), ValueError, r"params"),
    "params NaN": (lambda: vqc_scores(np.full(18, np.nan), [[0, 0]]), ValueError, r"params"),
    "params batch for gradient": (
        lambda: vqc_score_gradient(np.zeros((2, 18)), [[0, 0]]),
        ValueError,
        r"params",
    ),
    "X shape": (lambda: vqc_scores(np.zeros(18), [0.0, 0.0]), ValueError, r"X.*\(N, 2\)"),
    "X 3 features": (lambda: vqc_scores(np.zeros(18), np.zeros((4, 3))), ValueError, r"X"),
    "X inf": (lambda: vqc_scores(np.zeros(18), [[np.inf, 0]]), ValueError, r"X"),
    "X strings": (lambda: vqc_scores(np.zeros(18), [["a", "b"]]), TypeError, r"X"),
    "y labels": (
        lambda: vqc_loss_and_grad(np.zeros(18), np.zeros((3, 2)), [0, 1, 2]),
        ValueError,
        r"\by\b.*\{0, 1\}",
    ),
    "y length": (
        lambda: vqc_loss_and_grad(np.zeros(18), np.zeros((3, 2)), [0, 1]),
        ValueError,
        r"y must hold .*\(3,\)",
    ),
    "qiskit params": (lambda: vqc_scores_qiskit(np.zeros(5), [[0, 0]]), ValueError, r"params"),
    "qiskit X": (lambda: vqc_score_gradient_qiskit(np.zeros(18), [1, 2, 3]), ValueError, r"X"),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_bad_input_names_the_argument(case):
    fn, exc, pattern = BAD[case]
    with pytest.raises(exc, match=pattern):
        fn()


def test_generic_parameter_shift_rule():
    theta, X = _instance(3, 3, n=4, seed=8)
    ref = vqc_score_gradient(theta, X)
    before = theta.copy()
    for j in (0, 7, 17):
        for shift in (np.pi / 2, np.pi / 4, 2.0):  # exact for every shift not a multiple of π
            g = parameter_shift(lambda t: vqc_scores(t, X), theta, j, shift=shift)
            np.testing.assert_allclose(g, ref[:, j], atol=1e-13)
    assert np.array_equal(theta, before)  # params are not modified
    # the naive /2 with a shift other than π/2 is wrong by sin(shift)
    naive = (
        vqc_scores(theta + np.pi / 4 * np.eye(18)[3], X)
        - vqc_scores(theta - np.pi / 4 * np.eye(18)[3], X)
    ) / 2
    np.testing.assert_allclose(naive, np.sin(np.pi / 4) * ref[:, 3], atol=1e-13)
    # a parameter entering with frequency 2 (cos 2θ) breaks the two-term rule
    assert parameter_shift(lambda t: np.cos(2 * t[0]), np.array([0.3]), 0) != pytest.approx(
        -2 * np.sin(0.6)
    )
    assert isinstance(parameter_shift(lambda t: float(np.sin(t[0])), np.array([0.1]), 0), float)


@pytest.mark.parametrize(
    "kw,exc,pattern",
    [
        (dict(score=3), TypeError, r"score must be a callable"),
        (dict(index=18), ValueError, r"index must be in 0\.\.17"),
        (dict(index=-1), ValueError, r"index"),
        (dict(shift=np.pi), ValueError, r"shift must not be a multiple of π"),
        (dict(shift=0.0), ValueError, r"shift"),
        (dict(params=np.zeros((2, 18))), ValueError, r"params must be 1-D"),
    ],
)
def test_parameter_shift_bad_input(kw, exc, pattern):
    args = dict(score=lambda t: vqc_scores(t, [[0.0, 0.0]]), params=np.zeros(18), index=0)
    args.update(kw)
    shift = args.pop("shift", np.pi / 2)
    with pytest.raises(exc, match=pattern):
        parameter_shift(args["score"], args["params"], args["index"], shift=shift)
