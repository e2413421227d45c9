"""A variational quantum classifier (VQC) for the two-moons data, with parameter-shift gradients
(book/03_training.ipynb).

The circuit on ``n = qubits`` qubits (qubit ``q`` is bit ``q`` of a basis index, as in Qiskit)
starts in ``|0...0⟩`` and repeats ``L = layers`` times: (1) **encoding** (data re-uploading,
Pérez-Salinas et al. 2020), ``RY(a_{q mod 2}(x))`` on every qubit with the fixed angles of
:func:`vqc_encoding`; (2) **trainable rotations** ``RZ(θ[2(l n + q)])`` then
``RY(θ[2(l n + q) + 1])`` on qubit ``q``; (3) the CNOT ladder ``CNOT(n-1 → n-2), ...,
CNOT(1 → 0)`` towards the readout qubit (pulled back through it ``Z_0`` becomes ``Z_0 Z_1 ...
Z_{n-1}``, so every rotation of the last layer moves the score). ``2 n L`` parameters.

Each parameter enters one gate ``exp(-i θ P / 2)`` with a Pauli P, so the **parameter-shift
rule** ``∂s/∂θ_j = [s(θ + (π/2) e_j) - s(θ - (π/2) e_j)] / 2`` is exact (Mitarai et al. 2018,
Schuld et al. 2019). The **score** is ``s(x) = ⟨Z_0⟩``; ``p(1 | x) = (1 - s) / 2``, the loss the
mean binary cross-entropy ``-mean log(p(y_i | x_i) + 1e-12)``; the class is 1 iff ``s < 0``.

Two paths, cross-checked in the tests: the **fast path** simulates NumPy state vectors
``(M, N, 2**n)`` for M parameter vectors and N samples at once; the **Qiskit path** evaluates
:func:`vqc_circuit` with ``StatevectorEstimator``. Shapes: ``params`` (n_params,) or (M,
n_params), ``X`` raw features (N, 2).
"""

from __future__ import annotations

import math

import numpy as np

from ._validate import as_numeric_array, check_float, check_int

__all__ = [
    "VQC_QUBITS",
    "VQC_LAYERS",
    "vqc_n_parameters",
    "vqc_encoding",
    "vqc_scores",
    "vqc_score_gradient",
    "parameter_shift",
    "vqc_loss_and_grad",
    "vqc_loss_accuracy",
    "vqc_circuit",
    "vqc_scores_qiskit",
    "vqc_score_gradient_qiskit",
]

#: Default size of the classifier: 3 qubits, 3 layers, 18 parameters.
VQC_QUBITS, VQC_LAYERS = 3, 3
#: Accepted sizes: the state vector has 2**qubits amplitudes per (parameter vector, sample).
MAX_QUBITS, MAX_LAYERS = 10, 50
#: Encoding constants: centre and half-width of the noiseless moons' bounding box, per feature.
FEATURE_CENTER = (0.5, 0.25)
FEATURE_HALF_WIDTH = (1.5, 0.75)
#: Parameter-shift for gates exp(-i θ P / 2) with a Pauli P (generator eigenvalues ±1/2).
SHIFT = math.pi / 2
_MAX_AMPLITUDES = 1 << 20  # per simulation chunk (16 MiB of complex128): bounds the memory
_MAX_SCORES_BYTES = 2**30  # the (M, N) scores of one call


def _check_work(M: int, N: int) -> None:
    if 8 * M * N > _MAX_SCORES_BYTES:
        raise ValueError(
            f"{M} parameter vectors x {N} samples: the scores would need {8 * M * N / 2**30:.3g} "
            f"GiB (at most {_MAX_SCORES_BYTES / 2**30:g} GiB); pass fewer rows of X or params"
        )


def _check_size(qubits, layers) -> tuple[int, int]:
    return (check_int(qubits, "qubits", 2, MAX_QUBITS), check_int(layers, "layers", 1, MAX_LAYERS))


def vqc_n_parameters(qubits: int = VQC_QUBITS, layers: int = VQC_LAYERS) -> int:
    """Trainable parameters: ``2 * qubits * layers`` (an RZ and an RY angle per qubit and layer).

    Examples
    --------
    >>> vqc_n_parameters(), vqc_n_parameters(2, 3)
    (18, 12)
    """
    qubits, layers = _check_size(qubits, layers)
    return 2 * qubits * layers


def _check_features(X) -> np.ndarray:
    arr = as_numeric_array(X, "X").astype(np.float64, copy=False)
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] < 1:
        raise ValueError(f"X must have shape (N, 2) with N >= 1, got shape {arr.shape}")
    return arr


def _check_params(params, qubits, layers, *, one: bool = False) -> tuple[np.ndarray, int, int]:
    """``(params as float64, qubits, layers)``; shape (n,) or, unless ``one``, (M, n)."""
    qubits, layers = _check_size(qubits, layers)
    n = 2 * qubits * layers
    arr = as_numeric_array(params, "params").astype(np.float64, copy=False)
    if arr.shape[-1:] != (n,) or arr.ndim > (1 if one else 2) or arr.size == 0:
        shapes = f"({n},)" if one else f"({n},) or (M, {n})"
        raise ValueError(
            f"params must have shape {shapes} (2 * qubits * layers), got shape {arr.shape}"
        )
    return arr, qubits, layers


def vqc_encoding(X) -> np.ndarray:
    """Encoding angles ``a_j = (π/2) (x_j - c_j) / h_j`` of features ``X`` (N, 2), radians, shape
    (N, 2), with ``c = FEATURE_CENTER``, ``h = FEATURE_HALF_WIDTH`` (the noiseless moons' box
    ``[-1, 2] x [-0.5, 1]`` goes to ``[-π/2, π/2]^2``).

    Examples
    --------
    >>> vqc_encoding([[0.5, 0.25], [2.0, 1.0]]).round(4).tolist()
    [[0.0, 0.0], [1.5708, 1.5708]]
    """
    X = _check_features(X)
    return (X - np.asarray(FEATURE_CENTER)) / np.asarray(FEATURE_HALF_WIDTH) * (np.pi / 2)


def _entangler_pairs(qubits: int) -> list[tuple[int, int]]:
    """(control, target) of the layer's CNOTs in the order applied: the ladder towards qubit 0."""
    return [(q + 1, q) for q in reversed(range(qubits - 1))]


def _ry(angles: np.ndarray) -> np.ndarray:
    """RY matrices, shape angles.shape + (2, 2)."""
    c, s = np.cos(angles / 2), np.sin(angles / 2)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


def _simulate(params: np.ndarray, angles: np.ndarray, qubits: int, layers: int) -> np.ndarray:
    """Final states, shape (M, N, 2**qubits), for params (M, n_params) and angles (N, 2)."""
    M, N = params.shape[0], angles.shape[0]
    dim = 2**qubits
    psi = np.zeros((M, N, dim), dtype=np.complex128)
    psi[:, :, 0] = 1.0
    idx = perm = np.arange(dim)  # new_state = state[..., perm] for the layer's CNOTs
    for c, t in _entangler_pairs(qubits):  # CNOT(c -> t): |i⟩ -> |i XOR (bit c of i) << t⟩
        perm = perm[idx ^ (((idx >> c) & 1) << t)]
    enc = _ry(angles)  # (N, 2, 2, 2): feature j's RY, real
    theta = params.reshape(M, layers, qubits, 2)
    for layer in range(layers):
        for q in range(qubits):
            # fused gate U = RY(θ_1) RZ(θ_0) RY(a) for every (parameter vector, sample)
            rz = np.exp(-0.5j * theta[:, layer, q, 0])  # RZ = diag(rz, conj(rz))
            A = _ry(theta[:, layer, q, 1]).astype(np.complex128)
            A[:, :, 0] *= rz[:, None]
            A[:, :, 1] *= rz.conj()[:, None]
            U = A[:, None] @ enc[None, :, q % 2]  # (M, N, 2, 2)
            v = psi.reshape(M, N, dim >> (q + 1), 2, 1 << q)
            a0, a1 = v[:, :, :, 0, :], v[:, :, :, 1, :]
            u = U[:, :, :, :, None, None]
            new0 = u[:, :, 0, 0] * a0 + u[:, :, 0, 1] * a1
            v[:, :, :, 1, :] = u[:, :, 1, 0] * a0 + u[:, :, 1, 1] * a1
            v[:, :, :, 0, :] = new0
        psi = psi[:, :, perm]
    return psi


def _scores(params2d: np.ndarray, angles: np.ndarray, qubits: int, layers: int) -> np.ndarray:
    """⟨Z_0⟩ for every (parameter vector, sample), shape (M, N), in memory-bounded chunks."""
    M, N = params2d.shape[0], angles.shape[0]
    dim = 2**qubits
    _check_work(M, N)
    z = 1.0 - 2.0 * (np.arange(dim) & 1)  # eigenvalue of Z on qubit 0 per basis state
    out = np.empty((M, N))
    n_chunk = max(1, min(N, _MAX_AMPLITUDES // dim))
    m_chunk = max(1, _MAX_AMPLITUDES // (dim * n_chunk))
    for m0 in range(0, M, m_chunk):
        for n0 in range(0, N, n_chunk):
            psi = _simulate(params2d[m0 : m0 + m_chunk], angles[n0 : n0 + n_chunk], qubits, layers)
            out[m0 : m0 + m_chunk, n0 : n0 + n_chunk] = (psi.real**2 + psi.imag**2) @ z
    return out


def vqc_scores(params, X, *, qubits: int = VQC_QUBITS, layers: int = VQC_LAYERS) -> np.ndarray:
    """Scores ``s(x_i) = ⟨Z_0⟩`` in [-1, 1] (fast path), shape (N,) for ``params`` of shape
    (n_params,), (M, N) for (M, n_params).

    Examples
    --------
    >>> theta = np.zeros(vqc_n_parameters(2, 1))  # one layer, zero angles:
    >>> X = [[0.5, 0.25], [1.0, 0.25], [1.0, 1.0]]  # s = <Z_0 Z_1> = cos(a_0) cos(a_1)
    >>> vqc_scores(theta, X, qubits=2, layers=1).round(6).tolist()
    [1.0, 0.866025, 0.0]
    """
    p, qubits, layers = _check_params(params, qubits, layers)
    s = _scores(np.atleast_2d(p), vqc_encoding(X), qubits, layers)
    return s[0] if p.ndim == 1 else s


def _shifted(p: np.ndarray) -> np.ndarray:
    """(2 n, n) parameter vectors: rows j = p + SHIFT e_j, rows n + j = p - SHIFT e_j."""
    eye = SHIFT * np.eye(p.size)
    return np.vstack([p + eye, p - eye])


def _shift_rule(s: np.ndarray) -> np.ndarray:
    """Derivatives (n, ...) from the scores (2 n, ...) of :func:`_shifted` parameter vectors."""
    n = s.shape[0] // 2
    return (s[:n] - s[n:]) / 2


def vqc_score_gradient(
    params, X, *, qubits: int = VQC_QUBITS, layers: int = VQC_LAYERS
) -> np.ndarray:
    """``∂s(x_i)/∂θ_j = [s(θ + (π/2) e_j) - s(θ - (π/2) e_j)] / 2`` (exact: the parameter-shift
    rule), fast path, shape (N, n_params); 2 n_params circuit evaluations per sample.

    Examples
    --------
    >>> theta, x = np.random.default_rng(0).normal(size=18), [[0.3, -0.2]]
    >>> e = 1e-6 * np.eye(18)[4]
    >>> fd = (vqc_scores(theta + e, x) - vqc_scores(theta - e, x))[0] / 2e-6
    >>> bool(abs(vqc_score_gradient(theta, x)[0, 4] - fd) < 1e-8)
    True
    """
    p, qubits, layers = _check_params(params, qubits, layers, one=True)
    return _shift_rule(_scores(_shifted(p), vqc_encoding(X), qubits, layers)).T


def parameter_shift(score, params, index: int, *, shift: float = SHIFT):
    """``∂score/∂θ_index = [score(θ + s e_j) - score(θ - s e_j)] / (2 sin s)`` for any callable
    ``score(params)`` (a float or an array): exact when θ_j enters one gate ``exp(-i θ_j P / 2)``
    with a Pauli P (the score is then ``a cos θ_j + b sin θ_j + c``), for any shift ``s`` not a
    multiple of π. ``params`` (1-D) is not modified.

    Examples
    --------
    >>> theta, X = np.random.default_rng(3).normal(size=18), [[0.2, 0.7], [1.1, -0.4]]
    >>> g = parameter_shift(lambda t: vqc_scores(t, X), theta, 5)
    >>> bool(np.allclose(g, vqc_score_gradient(theta, X)[:, 5], atol=1e-14))
    True
    """
    if not callable(score):
        raise TypeError(f"score must be a callable params -> score, got {type(score).__name__}")
    p = as_numeric_array(params, "params").astype(np.float64)
    if p.ndim != 1:
        raise ValueError(f"params must be 1-D (one parameter vector), got shape {p.shape}")
    if p.size == 0:
        raise ValueError("params must hold at least one parameter, got an empty array")
    index = check_int(index, "index", 0, p.size - 1)
    shift = check_float(shift, "shift")
    if abs(math.sin(shift)) < 1e-12:
        raise ValueError(f"shift must not be a multiple of π (sin(shift) = 0), got {shift:g}")
    plus, minus = p.copy(), p.copy()
    plus[index] += shift
    minus[index] -= shift
    diff = np.asarray(score(plus), dtype=np.float64) - np.asarray(score(minus), dtype=np.float64)
    out = diff / (2 * math.sin(shift))
    return float(out) if out.ndim == 0 else out


def _scores_labels(params2d, X, y, qubits: int, layers: int):
    """Scores (M, N) of the checked features ``X`` and the checked labels ``y`` (N,) in {0, 1}."""
    angles = vqc_encoding(X)
    n = angles.shape[0]
    arr = as_numeric_array(y, "y")
    if arr.shape != (n,) or not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"y must hold one label in {{0, 1}} per row of X, shape ({n},)")
    return _scores(params2d, angles, qubits, layers), arr.astype(np.int64)


def _bce(s: np.ndarray, y: np.ndarray):
    """Loss, dLoss/ds (same shape as s) and accuracy for scores s (..., N) and labels y (N,)."""
    sign = np.where(y == 0, 1.0, -1.0)  # p(y | x) = (1 + sign s) / 2
    p_y = (1.0 + sign * s) / 2.0
    loss = -np.mean(np.log(p_y + 1e-12), axis=-1)
    dlds = -(sign / 2.0) / (p_y + 1e-12) / y.size
    acc = np.mean((s < 0) == (y == 1), axis=-1)
    return loss, dlds, acc


def vqc_loss_and_grad(params, X, y, *, qubits: int = VQC_QUBITS, layers: int = VQC_LAYERS):
    """Mean cross-entropy, its gradient (shape (n_params,)) and accuracy on ``X``, ``y``:
    ``grad_j = sum_i dloss/ds_i ∂s_i/∂θ_j`` over the exact parameter-shift derivatives (``2
    n_params + 1`` circuits per sample). Mirrors :func:`qring_edu.training.mlp_loss_and_grad`.

    Examples
    --------
    >>> loss, grad, acc = vqc_loss_and_grad(np.zeros(18), [[0.0, 0.5], [1.0, -0.2]], [0, 1])
    >>> grad.shape, bool(loss > 0), 0.0 <= acc <= 1.0
    ((18,), True, True)
    """
    p, qubits, layers = _check_params(params, qubits, layers, one=True)
    s, y = _scores_labels(np.vstack([p[None], _shifted(p)]), X, y, qubits, layers)
    loss, dlds, acc = _bce(s[0], y)
    return float(loss), _shift_rule(s[1:]) @ dlds, float(acc)


def vqc_loss_accuracy(params, X, y, *, qubits: int = VQC_QUBITS, layers: int = VQC_LAYERS):
    """Loss and accuracy of M parameter vectors at once: two arrays of shape (M,) (or floats for
    one vector). The same loss as :func:`vqc_loss_and_grad`, without the gradient.

    Examples
    --------
    >>> loss, acc = vqc_loss_accuracy(np.zeros((3, 18)), [[0.0, 0.5], [1.0, -0.2]], [0, 1])
    >>> loss.shape, bool(np.all(loss == loss[0]))
    ((3,), True)
    """
    p, qubits, layers = _check_params(params, qubits, layers)
    loss, _, acc = _bce(*_scores_labels(np.atleast_2d(p), X, y, qubits, layers))
    return (float(loss[0]), float(acc[0])) if p.ndim == 1 else (loss, acc)


# -- Qiskit path -----------------------------------------------------------------------------------


def vqc_circuit(qubits: int = VQC_QUBITS, layers: int = VQC_LAYERS):
    """The classifier as a ``QuantumCircuit`` with parameters ``x`` (2 raw features, encoded as
    in :func:`vqc_encoding`) and ``θ`` (as in :func:`vqc_scores`); a barrier closes every layer;
    no measurement (the score is ``⟨Z_0⟩``).

    Examples
    --------
    >>> qc = vqc_circuit()  # 3 qubits, 3 layers
    >>> qc.num_qubits, qc.num_parameters, dict(qc.count_ops())["cx"]
    (3, 20, 6)
    """
    from qiskit.circuit import ParameterVector, QuantumCircuit  # noqa: PLC0415 (Qiskit path)

    qubits, layers = _check_size(qubits, layers)
    x = ParameterVector("x", 2)
    theta = ParameterVector("θ", 2 * qubits * layers)
    qc = QuantumCircuit(qubits, name=f"vqc({qubits}q, {layers}L)")
    angle = [(x[j] - FEATURE_CENTER[j]) * (math.pi / 2 / FEATURE_HALF_WIDTH[j]) for j in range(2)]
    for layer in range(layers):
        for q in range(qubits):
            qc.ry(angle[q % 2], q)
        for q in range(qubits):
            k = 2 * (layer * qubits + q)
            qc.rz(theta[k], q)
            qc.ry(theta[k + 1], q)
        for c, t in _entangler_pairs(qubits):
            qc.cx(c, t)
        qc.barrier()
    return qc


def _qiskit_expectations(params2d: np.ndarray, X: np.ndarray, qubits: int, layers: int):
    """⟨Z_0⟩ from ``StatevectorEstimator`` per (parameter vector, sample), shape (M, N)."""
    from qiskit.primitives import StatevectorEstimator  # noqa: PLC0415 (Qiskit path)
    from qiskit.quantum_info import SparsePauliOp  # noqa: PLC0415

    qc = vqc_circuit(qubits, layers)
    M, N = params2d.shape[0], X.shape[0]
    _check_work(M * qc.num_parameters, N)
    values = np.empty((M, N, qc.num_parameters))
    for col, par in enumerate(qc.parameters):  # circuit order: sorted by vector name, then index
        src = X[None, :] if par.vector.name == "x" else params2d[:, None]
        values[:, :, col] = src[:, :, par.index]
    z0 = SparsePauliOp("I" * (qubits - 1) + "Z")  # little-endian: the last letter is qubit 0
    job = StatevectorEstimator().run([(qc, z0, values)])
    return np.asarray(job.result()[0].data.evs, dtype=np.float64).reshape(M, N)


def vqc_scores_qiskit(params, X, *, qubits=VQC_QUBITS, layers=VQC_LAYERS) -> np.ndarray:
    """:func:`vqc_scores` on the Qiskit path (``StatevectorEstimator``, :func:`vqc_circuit`).

    Examples
    --------
    >>> theta, X = np.random.default_rng(1).normal(size=18), [[0.1, 0.9], [1.5, -0.3]]
    >>> bool(np.allclose(vqc_scores_qiskit(theta, X), vqc_scores(theta, X), atol=1e-12))
    True
    """
    p, qubits, layers = _check_params(params, qubits, layers)
    s = _qiskit_expectations(np.atleast_2d(p), _check_features(X), qubits, layers)
    return s[0] if p.ndim == 1 else s


def vqc_score_gradient_qiskit(params, X, *, qubits=VQC_QUBITS, layers=VQC_LAYERS) -> np.ndarray:
    """:func:`vqc_score_gradient` on the Qiskit path (the 2 n_params shifted circuits in one
    ``StatevectorEstimator`` pub).

    Examples
    --------
    >>> theta, X = np.random.default_rng(2).normal(size=18), [[0.4, 0.1]]
    >>> g = vqc_score_gradient_qiskit(theta, X)
    >>> bool(np.allclose(g, vqc_score_gradient(theta, X), atol=1e-12))
    True
    """
    p, qubits, layers = _check_params(params, qubits, layers, one=True)
    return _shift_rule(_qiskit_expectations(_shifted(p), _check_features(X), qubits, layers)).T
