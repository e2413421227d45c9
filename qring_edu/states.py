"""NumPy state helpers shared by the protocols (core floor: NumPy only, no Qiskit).

Conventions (the same as Qiskit's, so results compare directly with ``qiskit.quantum_info``):

* **Qubit order.** A state of n qubits is a vector of length ``2**n`` (or a ``2**n x 2**n``
  density matrix) whose index is ``i = Σ_q b_q 2**q``: qubit 0 is the *least* significant bit.
  In two-party states of this book qubit 0 is Alice's A and qubit 1 Bob's B, so the amplitude of
  ``|a⟩_A |b⟩_B`` sits at index ``a + 2 b``.
* **Bell states** (labels in A-then-B order): ``Φ± = (|00⟩ ± |11⟩)/√2``,
  ``Ψ± = (|01⟩ ± |10⟩)/√2`` — as vectors ``Φ+ = [1, 0, 0, 1]/√2``, ``Ψ- = [0, -1, 1, 0]/√2``.
* **Bloch sphere.** ``ρ = (I + r·σ)/2`` with ``r = (Tr ρX, Tr ρY, Tr ρZ)``; the direction with
  polar angle θ and azimuth φ (radians) is ``n = (sin θ cos φ, sin θ sin φ, cos θ)``.

Qiskit objects are accepted wherever a state or an operator is (:func:`as_array`).
"""

from __future__ import annotations

import numpy as np

from ._validate import as_numeric_array, check_fidelity, check_float, check_int, check_name

__all__ = [
    "ATOL",
    "PAULIS",
    "BELL_LABELS",
    "as_array",
    "as_density_matrix",
    "partial_trace",
    "embed_operator",
    "bell_state",
    "isotropic_state",
    "pure_qubit",
    "from_bloch",
    "bloch_vector",
]

#: Absolute tolerance of the Hermiticity checks (positivity and traces use 1e-6).
ATOL = 1e-8

#: The single-qubit Paulis as complex 2 x 2 arrays, keyed "I", "X", "Y", "Z".
PAULIS = {
    "I": np.eye(2, dtype=complex),
    "X": np.array([[0, 1], [1, 0]], dtype=complex),
    "Y": np.array([[0, -1j], [1j, 0]], dtype=complex),
    "Z": np.array([[1, 0], [0, -1]], dtype=complex),
}
_SIGMA = np.stack([PAULIS["X"], PAULIS["Y"], PAULIS["Z"]])

#: Labels of :func:`bell_state`, in the order of the superdense messages (x, z) = 00, 01, 10, 11.
BELL_LABELS = ("phi+", "phi-", "psi+", "psi-")


def as_array(value):
    """``value``, or the ``data`` array of a Qiskit ``Statevector``, ``DensityMatrix`` or
    ``Operator`` (without importing Qiskit).

    Examples
    --------
    >>> as_array([1, 0])
    [1, 0]
    """
    data = getattr(value, "data", None)
    if data is not None and type(value).__module__.startswith("qiskit"):
        return np.asarray(data)
    return value


def _complex_array(value, name: str, what: str) -> np.ndarray:
    """``value`` (or a Qiskit object's data) as a finite complex array; else "name must be what"."""
    try:
        arr = np.asarray(as_array(value), dtype=complex)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be {what}") from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; it contains NaN or Inf")
    return arr


def as_density_matrix(state, name: str = "state") -> np.ndarray:
    """A valid density matrix (complex, (d, d)): a vector ``ψ`` (d,) of norm 1 becomes
    ``|ψ⟩⟨ψ|``; a matrix must be Hermitian (:data:`ATOL`), of unit trace and positive
    semidefinite (norm, trace and eigenvalues within 1e-6).

    Examples
    --------
    >>> as_density_matrix([1, 0]).real
    array([[1., 0.],
           [0., 0.]])
    """
    arr = _complex_array(state, check_name(name), "a state vector or a density matrix of numbers")
    if arr.ndim == 1:
        norm = np.linalg.norm(arr)
        if arr.size < 1 or abs(norm - 1) > 1e-6:
            raise ValueError(
                f"{name} as a state vector must have norm 1 (tolerance 1e-6), got norm {norm:.6g}"
            )
        return np.outer(arr, arr.conj())
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] < 1:
        raise ValueError(
            f"{name} must be a vector (d,) or a square matrix (d, d), got shape {arr.shape}"
        )
    if not np.allclose(arr, arr.conj().T, atol=ATOL):
        raise ValueError(f"{name} must be Hermitian (tolerance {ATOL:g})")
    tr = np.trace(arr).real
    if abs(tr - 1) > 1e-6:
        raise ValueError(f"{name} must have unit trace (tolerance 1e-6), got trace {tr:.6g}")
    low = np.linalg.eigvalsh(arr).min()
    if low < -1e-6:
        raise ValueError(
            f"{name} must be positive semidefinite (tolerance 1e-6), got an eigenvalue {low:.3g}"
        )
    return arr


def _n_qubits(dim: int, name: str) -> int:
    n = int(round(np.log2(dim))) if dim > 0 else 0
    if 2**n != dim or n < 1:
        raise ValueError(
            f"{name} must be a state of qubits (dimension a power of 2), got dimension {dim}"
        )
    return n


def partial_trace(rho, keep) -> np.ndarray:
    """Reduced state, ``(2**k, 2**k)``, of the k qubits ``keep`` (distinct, in 0..n-1) of an
    n-qubit matrix ``rho`` (not validated as a state), the kept qubits in the same order.

    Examples
    --------
    >>> phi = bell_state("phi+")
    >>> partial_trace(np.outer(phi, phi), [1]).real          # Bob's half of |Φ+⟩ is I/2
    array([[0.5, 0. ],
           [0. , 0.5]])
    """
    rho = np.asarray(as_array(rho))
    if rho.ndim != 2 or rho.shape[0] != rho.shape[1] or rho.dtype.kind not in "iufc":
        raise ValueError(
            f"rho must be a square matrix of numbers, got {rho.dtype} shape {rho.shape}"
        )
    if not np.all(np.isfinite(rho)):
        raise ValueError("rho must be finite; it contains NaN or Inf")
    n = _n_qubits(rho.shape[0], "rho")
    if np.ndim(keep) != 1:
        raise TypeError(f"keep must be a sequence of qubit indices, got {keep!r}")
    keep = sorted({check_int(q, "keep", 0, n - 1) for q in keep})
    # Row index bits in C order are (b_{n-1}, ..., b_0): qubit q is axis n-1-q (rows) and
    # 2n-1-q (columns). Traced qubits share one einsum letter between the two axes.
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    rows = [letters[i] for i in range(n)]
    cols = [letters[n + i] if (n - 1 - i) in keep else letters[i] for i in range(n)]
    kept = [n - 1 - q for q in reversed(keep)]
    out = [rows[i] for i in kept] + [cols[i] for i in kept]
    t = np.einsum("".join(rows + cols) + "->" + "".join(out), rho.reshape([2] * (2 * n)))
    return t.reshape(2 ** len(keep), 2 ** len(keep))


def embed_operator(u, qargs, n: int) -> np.ndarray:
    """The ``2**n x 2**n`` operator that applies ``u`` ``(2**k, 2**k)`` to the k distinct qubits
    ``qargs`` of n and the identity to the others (``qargs[0]`` is the least significant qubit of
    ``u``, as in Qiskit's ``Operator.compose(u, qargs=...)``).

    Examples
    --------
    >>> embed_operator(PAULIS["X"], [0], 2).real.astype(int)   # X on qubit 0 of two
    array([[0, 1, 0, 0],
           [1, 0, 0, 0],
           [0, 0, 0, 1],
           [0, 0, 1, 0]])
    """
    n = check_int(n, "n", 1, 12)  # the result takes 16 * 4**n bytes: 256 MiB at n = 12
    if np.ndim(qargs) != 1:
        raise TypeError(f"qargs must be a sequence of qubit indices, got {qargs!r}")
    qargs = [check_int(q, "qargs", 0, n - 1) for q in qargs]
    k = len(qargs)
    if k == 0 or len(set(qargs)) != k:
        raise ValueError(f"qargs must be distinct qubit indices in 0..{n - 1}, got {qargs}")
    u = _complex_array(u, "u", f"a matrix of numbers, got {u!r}")
    if u.shape != (2**k, 2**k):
        raise ValueError(f"u must have shape ({2**k}, {2**k}) for {k} qubit(s), got {u.shape}")
    # Axes of the identity tensor: outputs (q_{n-1} .. q_0), then inputs; axis j of u's output
    # (and of its input) belongs to qubit qargs[k-1-j]. Contract u's inputs with the identity's
    # outputs on those qubits, then put u's outputs back in their places.
    targets = [n - 1 - qargs[k - 1 - j] for j in range(k)]
    t = np.tensordot(
        u.reshape([2] * (2 * k)),
        np.eye(2**n).reshape([2] * (2 * n)),
        axes=(list(range(k, 2 * k)), targets),
    )
    return np.moveaxis(t, list(range(k)), targets).reshape(2**n, 2**n)


_S = 1 / np.sqrt(2)
_BELL = {
    "phi+": np.array([_S, 0, 0, _S], dtype=complex),
    "phi-": np.array([_S, 0, 0, -_S], dtype=complex),
    "psi+": np.array([0, _S, _S, 0], dtype=complex),
    "psi-": np.array([0, -_S, _S, 0], dtype=complex),
}


def bell_state(name: str = "phi+") -> np.ndarray:
    """A Bell state (4,) by its name in :data:`BELL_LABELS`; ``X^x Z^z`` on A maps ``Φ+`` to them
    in that order, up to a sign (``Z X Φ+ = Ψ-``).

    Examples
    --------
    >>> (bell_state("phi+") * np.sqrt(2)).real
    array([1., 0., 0., 1.])
    """
    if name not in _BELL:
        raise ValueError(f"name must be one of {', '.join(map(repr, BELL_LABELS))}, got {name!r}")
    return _BELL[name].copy()


def isotropic_state(pair_fidelity: float) -> np.ndarray:
    """The isotropic (Werner) state of fidelity F in [1/4, 1], (4, 4): ``F Φ+ + (1-F)/3 (Φ- + Ψ+
    + Ψ-)``, i.e. ``|Φ+⟩`` followed by X, Y, Z on A each with probability (1-F)/3.

    Examples
    --------
    >>> rho = isotropic_state(0.7)
    >>> round(float((bell_state() @ rho @ bell_state()).real), 12)   # ⟨Φ+|ρ|Φ+⟩ = F
    0.7
    """
    F = check_fidelity(pair_fidelity)
    weights = (F, (1 - F) / 3, (1 - F) / 3, (1 - F) / 3)
    return sum(w * np.outer(_BELL[k], _BELL[k].conj()) for w, k in zip(weights, BELL_LABELS))


def pure_qubit(theta: float, phi: float) -> np.ndarray:
    """``cos(θ/2)|0⟩ + e^{iφ} sin(θ/2)|1⟩``: the pure state with Bloch angles (θ, φ), radians.

    Examples
    --------
    >>> np.round(pure_qubit(np.pi, 0.0).real, 12) + 0.0
    array([0., 1.])
    """
    theta = check_float(theta, "theta")
    phi = check_float(phi, "phi")
    return np.array([np.cos(theta / 2), np.exp(1j * phi) * np.sin(theta / 2)])


def from_bloch(r) -> np.ndarray:
    """The qubit density matrix ``(I + r·σ)/2`` of a Bloch vector r (shape (3,), ``|r| <= 1``).

    Examples
    --------
    >>> from_bloch([0, 0, 1]).real
    array([[1., 0.],
           [0., 0.]])
    """
    r = as_numeric_array(r, "r").astype(float)
    if r.shape != (3,):
        raise ValueError(f"r must be a Bloch vector of shape (3,), got shape {r.shape}")
    if np.linalg.norm(r) > 1 + 1e-9:
        raise ValueError(f"r must have length <= 1, got {np.linalg.norm(r):.6g}")
    return 0.5 * (np.eye(2) + np.einsum("a,aij->ij", r, _SIGMA))


def bloch_vector(rho) -> np.ndarray:
    """Bloch vector ``(Tr ρX, Tr ρY, Tr ρZ)``, (3,), of a qubit state (vector or density matrix):
    length 1 for pure states, < 1 for mixed ones.

    Examples
    --------
    >>> np.round(bloch_vector(pure_qubit(np.pi / 2, 0.0)), 12) + 0.0   # |+⟩
    array([1., 0., 0.])
    """
    arr = as_density_matrix(rho, "rho")
    if arr.shape != (2, 2):
        raise ValueError(f"rho must be a qubit state (dimension 2), got dimension {arr.shape[0]}")
    return np.einsum("aij,ji->a", _SIGMA, arr).real
