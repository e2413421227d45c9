"""Holevo quantities: entropy, χ, mutual information, accessible information, dense-coding capacity
(book/02_holevo.ipynb), and builders of the ensembles the book studies, all in bits (log base 2).

A *state* is a normalised vector (d,) or a density matrix (d, d) (Hermitian, PSD, unit trace),
NumPy or Qiskit, d <= ``MAX_DIM``; an *ensemble* is ``probs`` (n,) (non-negative, summing to 1)
with n ``states`` of one dimension; a *POVM* is a sequence of d x d PSD matrices summing to the
identity. Qiskit's qubit order (qubit 0 least significant; Alice's qubit is qubit 0 by default).

A qubit state is ``ρ = (I + r·σ)/2``, Bloch vector ``r = (Tr ρX, Tr ρY, Tr ρZ)``, ``|r| <= 1``;
polar angle ``θ`` and azimuth ``φ`` (radians) give ``n = (sin θ cos φ, sin θ sin φ, cos θ)`` and
the pure state ``cos(θ/2)|0⟩ + e^{iφ} sin(θ/2)|1⟩``.
"""

from __future__ import annotations

from dataclasses import field

import numpy as np

from ._result import result
from ._validate import (
    as_numeric_array,
    check_fidelity,
    check_float,
    check_int,
    check_name,
    generator,
)
from .states import ATOL, PAULIS, as_density_matrix, bloch_vector, embed_operator, partial_trace
from .states import as_array as _raw
from .states import from_bloch as _from_bloch
from .states import isotropic_state as _isotropic_array

__all__ = [
    "von_neumann_entropy",
    "shannon_entropy",
    "holevo_chi",
    "mutual_information",
    "accessible_information",
    "optimal_measurement",
    "AccessibleInformation",
    "dense_coding_threshold",
    "dense_coding_capacity",
    "isotropic_capacity",
    "binary_entropy",
    "two_state_chi",
    "two_state_accessible",
    "Ensemble",
    "bb84_ensemble",
    "trine_ensemble",
    "two_state_ensemble",
    "superdense_ensemble",
    "encoded_ensemble",
    "bloch_ensemble",
    "bloch_measurement",
]

#: Largest state dimension d (a d x d complex matrix is 16 d² bytes) and largest working memory.
MAX_DIM, MAX_BYTES = 1024, 2**30

# validation


def _check_vector(values, name: str) -> np.ndarray:
    arr = as_numeric_array(values, name).astype(float)
    if arr.ndim != 1 or arr.size < 1:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}")
    return arr


def _check_probs(probs, n: int | None = None, name: str = "probs") -> np.ndarray:
    p = _check_vector(probs, name)
    if np.any(p < -ATOL):
        raise ValueError(f"{name} must be non-negative, got a minimum of {p.min():.3g}")
    if abs(p.sum() - 1) > 1e-6:
        raise ValueError(f"{name} must sum to 1 (tolerance 1e-6), got {p.sum():.6g}")
    if n is not None and p.size != n:
        raise ValueError(f"{name} has {p.size} entries but there are {n} states")
    return np.clip(p, 0, None)


def _check_ensemble(probs, states) -> tuple[np.ndarray, np.ndarray]:
    try:
        seq = list(states)
    except TypeError:
        raise TypeError("states must be a sequence of state vectors or density matrices") from None
    if not seq:
        raise ValueError("states must contain at least one state")
    d = max(max(np.shape(_raw(s)), default=0) for s in seq)
    if d > MAX_DIM or 16 * d * d * len(seq) > MAX_BYTES:
        raise ValueError(
            f"states: {len(seq)} states of dimension {d} would need {16 * d * d * len(seq) / 2**30:.3g}"
            f" GiB as density matrices (at most dimension {MAX_DIM} and 1 GiB)"
        )
    rhos = [as_density_matrix(s, f"states[{i}]") for i, s in enumerate(seq)]
    dims = {r.shape[0] for r in rhos}
    if len(dims) != 1:
        raise ValueError(f"states must all have the same dimension, got dimensions {sorted(dims)}")
    return _check_probs(probs, len(rhos)), np.stack(rhos)


def _check_matrices(values, name: str, d: int) -> list[np.ndarray]:
    """``values``: a non-empty sequence of finite ``d x d`` matrices, as complex arrays."""
    try:
        mats = [np.asarray(_raw(m), dtype=complex) for m in values]
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a sequence of {d} x {d} matrices") from None
    if not mats:
        raise ValueError(f"{name} must contain at least one matrix")
    for i, m in enumerate(mats):
        if m.shape != (d, d):
            raise ValueError(f"{name}[{i}] must have shape ({d}, {d}), got {m.shape}")
        if not np.all(np.isfinite(m)):
            raise ValueError(f"{name}[{i}] must be finite; it contains NaN or Inf")
    return mats


def _check_povm(povm, d: int) -> np.ndarray:
    elems = _check_matrices(povm, "povm", d)
    for i, e in enumerate(elems):
        if not np.allclose(e, e.conj().T, atol=ATOL):
            raise ValueError(f"povm[{i}] must be Hermitian (tolerance {ATOL:g})")
        if np.linalg.eigvalsh(e).min() < -1e-6:
            raise ValueError(f"povm[{i}] must be positive semidefinite (tolerance 1e-6)")
    total = sum(elems)
    dev = np.abs(total - np.eye(d)).max()
    if dev > 1e-6:
        raise ValueError(
            f"povm elements must sum to the identity (tolerance 1e-6); largest deviation {dev:.3g}"
        )
    return np.stack(elems)


# entropies and χ


def shannon_entropy(probs) -> float:
    """``H(p) = -Σ p_i log2 p_i`` in bits, in ``[0, log2 n]`` (0 log 0 = 0); ``probs``: shape
    (n,), non-negative, summing to 1.

    Examples
    --------
    >>> shannon_entropy([0.5, 0.25, 0.25]), shannon_entropy([1.0, 0.0])
    (1.5, 0.0)
    """
    p = _check_probs(probs)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum()) + 0.0  # + 0.0: a certain outcome gives 0.0, not -0.0


def _entropy_of(rho: np.ndarray) -> float:
    w = np.linalg.eigvalsh(rho)
    w = w[w > 1e-15]
    return float(max(0.0, -(w * np.log2(w)).sum()))


def von_neumann_entropy(rho) -> float:
    """``S(ρ) = -Tr ρ log2 ρ`` in bits, in ``[0, log2 d]``, from the eigenvalues; ``rho``: a
    state (module docstring), a pure state vector has ``S = 0``.

    Examples
    --------
    >>> von_neumann_entropy(np.eye(4) / 4), von_neumann_entropy([1, 0])
    (2.0, 0.0)
    """
    return _entropy_of(as_density_matrix(rho, "rho"))


def holevo_chi(probs, states) -> float:
    """Holevo quantity ``χ = S(Σ p_i ρ_i) - Σ p_i S(ρ_i)`` in bits (at most ``log2 d``) of the
    ensemble ``(probs, states)``: it bounds the mutual information of every measurement of the
    ensemble (Holevo 1973).

    Examples
    --------
    >>> round(holevo_chi(*bb84_ensemble()), 6), round(holevo_chi(*superdense_ensemble()), 6)
    (1.0, 2.0)
    >>> round(holevo_chi([0.5, 0.5], [[1, 0], [0, 1]]), 6)
    1.0
    """
    p, rhos = _check_ensemble(probs, states)
    avg = np.einsum("i,ijk->jk", p, rhos)
    return _entropy_of(avg) - float(sum(pi * _entropy_of(r) for pi, r in zip(p, rhos)))


def _mutual_info(p: np.ndarray, cond: np.ndarray) -> float:
    """I(X;Y) in bits from p(x) (n,) and p(y|x) (n, m)."""
    joint = p[:, None] * cond
    q = joint.sum(axis=0)
    mask = joint > 1e-300
    ratio = np.where(mask, cond / np.where(q > 0, q, 1)[None, :], 1.0)
    return float(max(0.0, (joint[mask] * np.log2(ratio[mask])).sum()))


def mutual_information(probs, states, povm) -> float:
    """``I(X;Y)`` in bits (at most :func:`holevo_chi`) when the ensemble ``(probs, states)`` is
    measured with ``povm`` (m elements ``E_y``): ``p(y|x) = Tr(E_y ρ_x)``,
    ``I = Σ_xy p(x) p(y|x) log2(p(y|x) / p(y))``.

    Examples
    --------
    Measuring the BB84 ensemble in the computational basis learns half a bit:

    >>> z_basis = [np.diag([1, 0]), np.diag([0, 1])]
    >>> round(mutual_information(*bb84_ensemble(), z_basis), 6)
    0.5
    """
    p, rhos = _check_ensemble(probs, states)
    elems = _check_povm(povm, rhos.shape[1])
    cond = np.einsum("xij,yji->xy", rhos, elems).real
    return _mutual_info(p, np.clip(cond, 0, None))


# accessible information


@result(show=("outcomes",))
class AccessibleInformation:
    """Result of :func:`optimal_measurement`: ``value`` (bits; also ``float(result)``),
    ``povm`` attaining it (rank-one, shape (d², d, d)), ``iterations`` of the best ascent and
    ``starts`` tried (the states' eigenbases and the random starts).

    Examples
    --------
    >>> optimal_measurement(*bb84_ensemble())
    AccessibleInformation(value=0.5, starts=16, outcomes=4)
    """

    value: float
    povm: np.ndarray = field(repr=False)
    iterations: int = field(repr=False)
    starts: int

    @property
    def outcomes(self) -> int:
        """Number of POVM elements, ``d²``."""
        return int(self.povm.shape[0])

    def __float__(self) -> float:
        return self.value


def _povm_from_vectors(V: np.ndarray) -> np.ndarray:
    """Columns w_k of V (d, m) -> rank-one POVM vectors G^{-1/2} w_k with G = Σ w_k w_k†."""
    G = V @ V.conj().T
    w, U = np.linalg.eigh(G)
    return (U / np.sqrt(w)) @ U.conj().T @ V


def _ascent(p, rhos, V, tol, max_iter):
    """Steepest ascent of I over rank-one POVMs (after Řeháček, Englert & Kaszlikowski 2005):
    ``v_k -> (1 + ε R_k) v_k`` with ``R_k = Σ_x p_x ρ_x ln(p(k|x)/q_k)`` (dI/dΠ_k in nats),
    re-normalised by G^{-1/2}; ε grows after an improving step, shrinks after a failing one."""

    def cond_of(V):
        return np.clip(np.einsum("ik,xij,jk->xk", V.conj(), rhos, V).real, 1e-300, None)

    V = _povm_from_vectors(V)
    cond = cond_of(V)
    value = _mutual_info(p, cond)
    eps = 0.5
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007  (the count is returned)
        q = (p[:, None] * cond).sum(axis=0)
        logs = np.log(cond / q[None, :])  # (x, k)
        R = np.einsum("x,xij,xk->kij", p, rhos, logs)  # (k, d, d)
        while True:
            step = V + eps * np.einsum("kij,jk->ik", R, V)
            Vn = _povm_from_vectors(step)
            cn = cond_of(Vn)
            vn = _mutual_info(p, cn)
            if vn >= value or eps < 1e-12:
                break
            eps *= 0.5
        gain = vn - value
        if vn >= value:
            V, cond, value = Vn, cn, vn
            eps = min(eps * 1.5, 1e3)
        if gain < tol or eps < 1e-12:
            break
    return value, V, it


def accessible_information(
    probs, states, *, starts: int = 12, tol: float = 1e-11, max_iter: int = 3000, seed=0
) -> float:
    """Accessible information ``I_acc = max over POVMs of I(X;Y)`` in bits, numerically: the
    value of :func:`optimal_measurement` (same arguments), ``<= holevo_chi(probs, states)``.

    Examples
    --------
    >>> round(accessible_information(*trine_ensemble()), 4)        # log2(3) - 1
    0.585
    """
    return optimal_measurement(
        probs, states, starts=starts, tol=tol, max_iter=max_iter, seed=seed
    ).value


def optimal_measurement(
    probs, states, *, starts: int = 12, tol: float = 1e-11, max_iter: int = 3000, seed=0
) -> AccessibleInformation:
    """The measurement that attains the accessible information, found numerically.

    Steepest ascent over rank-one POVMs with ``d**2`` outcomes (enough: Davies 1978) from the
    states' eigenbases and ``starts`` (1..10⁴) random POVMs of ``seed``; the best local optimum,
    a lower bound converged to ``tol`` per iteration (``max_iter`` in 1..10⁶; refused up front
    beyond 1 GiB).

    Examples
    --------
    >>> best = optimal_measurement(*trine_ensemble())
    >>> round(best.value, 4), round(mutual_information(*trine_ensemble(), best.povm), 4)
    (0.585, 0.585)
    """
    p, rhos = _check_ensemble(probs, states)
    d, m = rhos.shape[1], rhos.shape[1] ** 2
    starts = check_int(starts, "starts", 1)
    need = 32 * d**3 * (len(p) + starts) + 16 * d**4  # the starts' POVMs and the gradient
    if need > MAX_BYTES:
        raise ValueError(
            f"starts={starts} with {len(p)} states of dimension {d} would need {need / 2**30:.3g}"
            f" GiB (32 d³ (n + starts) + 16 d⁴ bytes, at most 1 GiB)"
        )
    starts = check_int(starts, "starts", 1, 10_000)  # each start is an ascent of its own
    tol = check_float(tol, "tol", 0.0, lo_open=True)
    max_iter = check_int(max_iter, "max_iter", 1, 10**6)
    rng = generator(seed)
    inits = []
    for r in rhos:  # measuring in a state's eigenbasis is often optimal or close to it
        _, U = np.linalg.eigh(r)
        inits.append(np.concatenate([U, 1e-3 * _random_vectors(rng, d, m - d)], axis=1))
    inits += [_random_vectors(rng, d, m) for _ in range(starts)]
    # Coarse ascent from every start, then refine the two best: most starts end on the same
    # optimum, and the slow tail of convergence is only worth paying for the winners.
    coarse = [_ascent(p, rhos, V0, max(tol, 1e-7), min(max_iter, 300)) for V0 in inits]
    coarse.sort(key=lambda r: -r[0])
    refined = [_ascent(p, rhos, V, tol, max_iter) for _, V, _ in coarse[:2]]
    value, V, it = max(refined, key=lambda r: r[0])
    povm = np.einsum("ik,jk->kij", V, V.conj())
    return AccessibleInformation(value=float(value), povm=povm, iterations=it, starts=len(inits))


def _random_vectors(rng, d, m):
    return rng.standard_normal((d, m)) + 1j * rng.standard_normal((d, m))


# dense coding


def dense_coding_capacity(rho_ab, *, alice_qubit: int = 0) -> float:
    """Dense-coding capacity of a shared state, in bits per qubit Alice sends:
    ``C = log2 d_A + S(ρ_B) - S(ρ_AB)`` (Bowen 2001; Hiroshima 2001), with ``d_A = 2``.

    For one scheme (book/02_holevo.ipynb): one copy of ``rho_ab`` (Alice's qubit ``alice_qubit``
    and Bob's n - 1 qubits) per qubit sent, unitary encoding, joint measurement. Below 1 a plain
    bit per qubit does better; distillation can still help (:mod:`qring_edu.distillation`).

    Examples
    --------
    >>> from qring_edu.states import isotropic_state
    >>> round(dense_coding_capacity(isotropic_state(0.9)), 6)    # = isotropic_capacity(0.9)
    1.372508
    """
    rho = as_density_matrix(rho_ab, "rho_ab")
    dim = rho.shape[0]
    n = int(round(np.log2(dim)))
    if 2**n != dim or n < 2:
        raise ValueError(f"rho_ab must be a state of at least 2 qubits, got dimension {dim}")
    alice_qubit = check_int(alice_qubit, "alice_qubit", 0, n - 1)
    bob = [q for q in range(n) if q != alice_qubit]
    rho_b = partial_trace(rho, bob)
    return 1.0 + _entropy_of(rho_b) - _entropy_of(rho)


def isotropic_capacity(pair_fidelity: float) -> float:
    """``2 - H(F, (1-F)/3, (1-F)/3, (1-F)/3)``: dense-coding capacity of the isotropic pair, bits.

    :func:`dense_coding_capacity` of :func:`qring_edu.superdense.isotropic_state` ``(F)``,
    ``F`` in ``[1/4, 1]``: 2 at F = 1, 1 at F ≈ 0.8107 (:func:`dense_coding_threshold`).

    Examples
    --------
    >>> isotropic_capacity(1.0), round(isotropic_capacity(0.9), 6), isotropic_capacity(0.25)
    (2.0, 1.372508, 0.0)
    """
    F = check_fidelity(pair_fidelity)
    p = (1 - F) / 3
    return 2.0 - shannon_entropy([F, p, p, p])


def dense_coding_threshold(level: float = 1.0) -> float:
    """The pair fidelity F at which :func:`isotropic_capacity` equals ``level`` bits per qubit
    (default 1: one plain bit per qubit; below that fidelity one undistilled isotropic pair per
    qubit, with unitary encoding, does not beat a plain qubit).

    ``level`` in [0, 2]; the root of ``C(F) = level`` on [1/4, 1] by ``scipy.optimize.brentq``
    (``xtol`` 1e-12). C rises monotonically from 0 at F = 1/4 to 2 at F = 1.

    Examples
    --------
    >>> round(dense_coding_threshold(), 4)
    0.8107
    >>> round(dense_coding_threshold(1.5), 4), round(isotropic_capacity(0.9256104), 6)
    (0.9256, 1.5)
    """
    from scipy.optimize import brentq

    level = check_float(level, "level", 0.0, 2.0)
    if level == 0.0:
        return 0.25
    if level == 2.0:
        return 1.0
    return float(brentq(lambda f: isotropic_capacity(f) - level, 0.25, 1.0, xtol=1e-12))


def binary_entropy(p: float) -> float:
    """``h(p) = -p log2 p - (1-p) log2(1-p)`` in bits, for ``p`` in [0, 1] (h(0) = h(1) = 0).

    Examples
    --------
    >>> binary_entropy(0.5), round(binary_entropy(0.11), 4)
    (1.0, 0.4999)
    """
    p = check_float(p, "p", 0.0, 1.0)
    return shannon_entropy([p, 1.0 - p])


# two pure states: closed forms


def two_state_chi(overlap: float) -> float:
    """χ of two equiprobable pure states with ``|⟨ψ0|ψ1⟩| = c`` (``overlap`` in [0, 1]):
    ``h((1 + c)/2)`` bits — the eigenvalues of the average state are ``(1 ± c)/2``.

    Examples
    --------
    >>> round(two_state_chi(0.5), 6), round(holevo_chi(*two_state_ensemble(0.5)), 6)
    (0.811278, 0.811278)
    """
    c = check_float(overlap, "overlap", 0.0, 1.0)
    return binary_entropy((1.0 + c) / 2.0)


def two_state_accessible(overlap: float) -> float:
    """Accessible information of two equiprobable pure states with overlap ``c`` in [0, 1]:
    ``1 - h((1 - sqrt(1 - c²))/2)`` bits, reached by the symmetric (Helstrom) projective
    measurement, whose error probability is ``(1 - sqrt(1 - c²))/2`` (Levitin 1995).

    Examples
    --------
    Below :func:`two_state_chi` for ``0 < c < 1``:

    >>> round(two_state_accessible(0.5), 6), round(two_state_chi(0.5), 6)
    (0.645421, 0.811278)
    """
    c = check_float(overlap, "overlap", 0.0, 1.0)
    return 1.0 - binary_entropy((1.0 - np.sqrt(max(0.0, 1.0 - c * c))) / 2.0)


# ensembles


@result(show=("size", "dim"))
class Ensemble:
    """An ensemble ``{p_x, ρ_x}``: ``probs`` (n,), ``states`` (n, d, d) (read-only), one
    ``labels`` string per state and a ``name``; it unpacks as ``(probs, states)``
    (``holevo_chi(*ens)``). Compared by identity.

    Examples
    --------
    >>> bb84 = bb84_ensemble()
    >>> bb84, bb84.labels
    (Ensemble(name='BB84', size=4, dim=2), ('0', '1', '+', '-'))
    >>> bb84.average_state().real.round(3).tolist()       # maximally mixed: S = 1 bit
    [[0.5, 0.0], [0.0, 0.5]]
    """

    name: str
    probs: np.ndarray = field(repr=False)
    states: np.ndarray = field(repr=False)
    labels: tuple[str, ...] = field(default=(), repr=False)
    __eq__ = object.__eq__  # arrays inside: identity, as for any array holder
    __hash__ = object.__hash__

    def __iter__(self):
        return iter((self.probs, self.states))

    @property
    def size(self) -> int:
        """Number of states n."""
        return int(self.probs.size)

    @property
    def dim(self) -> int:
        """Hilbert-space dimension d of each state."""
        return int(self.states.shape[1])

    def average_state(self) -> np.ndarray:
        """``Σ p_x ρ_x``, shape (d, d)."""
        return np.einsum("i,ijk->jk", self.probs, self.states)

    def bloch_vectors(self) -> np.ndarray:
        """Bloch vectors of the states, shape (n, 3) (qubit ensembles only)."""
        return np.array([bloch_vector(r) for r in self.states])


def _make_ensemble(name: str, probs, states, labels) -> Ensemble:
    check_name(name)
    p, rhos = _check_ensemble(probs, states)
    if isinstance(labels, str) or np.ndim(labels) != 1:
        raise TypeError(f"labels must be a sequence of strings, got {labels!r}")
    labels = tuple(str(lab) for lab in labels)
    if len(labels) != p.size:
        raise ValueError(f"labels must have one entry per state ({p.size}), got {len(labels)}")
    p, rhos = p.copy(), rhos.copy()
    p.setflags(write=False)
    rhos.setflags(write=False)
    return Ensemble(name=name, probs=p, states=rhos, labels=labels)


def bb84_ensemble() -> Ensemble:
    """The BB84 ensemble: ``|0⟩, |1⟩, |+⟩, |−⟩`` with probability 1/4 each (labels
    ``"0", "1", "+", "-"``). χ = 1 bit; accessible information 1/2 bit.

    Examples
    --------
    >>> bb84 = bb84_ensemble()
    >>> round(holevo_chi(*bb84), 6), round(accessible_information(*bb84), 4)
    (1.0, 0.5)
    """
    s = 1 / np.sqrt(2)
    states = [np.array([1, 0]), np.array([0, 1]), np.array([s, s]), np.array([s, -s])]
    return _make_ensemble("BB84", [0.25] * 4, states, ("0", "1", "+", "-"))


def trine_ensemble() -> Ensemble:
    """The trine: three real qubit states at 120° on a great circle of the Bloch sphere,
    ``|ψ_k⟩ = cos(πk/3)|0⟩ + sin(πk/3)|1⟩`` (Bloch angles θ = 2πk/3 in the x–z plane),
    k = 0, 1, 2, probability 1/3 each. χ = 1 bit; accessible information log2(3) − 1 bits.

    Examples
    --------
    >>> trine_ensemble().bloch_vectors().round(3).tolist()
    [[0.0, 0.0, 1.0], [0.866, 0.0, -0.5], [-0.866, 0.0, -0.5]]
    """
    states = [np.array([np.cos(np.pi * k / 3), np.sin(np.pi * k / 3)]) for k in range(3)]
    return _make_ensemble("trine", [1 / 3] * 3, states, ("ψ0", "ψ1", "ψ2"))


def two_state_ensemble(overlap: float, prior: float = 0.5) -> Ensemble:
    """Two pure qubit states with real overlap ``c = ⟨ψ0|ψ1⟩`` in [0, 1]:
    ``|ψ0⟩ = |0⟩``, ``|ψ1⟩ = c|0⟩ + sqrt(1 - c²)|1⟩``, with probabilities ``(prior, 1 - prior)``.

    Examples
    --------
    >>> pair = two_state_ensemble(0.5)
    >>> pair, pair.states[1].real.round(3).tolist()
    (Ensemble(name='two states, c = 0.5', size=2, dim=2), [[0.25, 0.433], [0.433, 0.75]])
    """
    c = check_float(overlap, "overlap", 0.0, 1.0)
    prior = check_float(prior, "prior", 0.0, 1.0)
    states = [np.array([1.0, 0.0]), np.array([c, np.sqrt(max(0.0, 1.0 - c * c))])]
    return _make_ensemble(f"two states, c = {c:g}", [prior, 1.0 - prior], states, ("ψ0", "ψ1"))


def encoded_ensemble(
    shared_state, encodings, probs=None, *, alice_qubits=(0,), labels=None, name: str = "encoded"
) -> Ensemble:
    """The ensemble Bob faces when Alice encodes message x by a unitary on her qubits of a
    shared state: ``ρ_x = (U_x ⊗ I) ρ (U_x ⊗ I)†``.

    ``shared_state``: n qubits; ``encodings``: ``2**k x 2**k`` unitaries on the k distinct
    ``alice_qubits`` (as Qiskit's ``qargs``); ``probs`` default uniform; ``labels`` default
    ``"0", "1", ...``.

    Examples
    --------
    Alice applies ``I`` or ``X`` to her half of |Φ+⟩: two orthogonal states, one bit:

    >>> from qring_edu.states import PAULIS, bell_state
    >>> ens = encoded_ensemble(bell_state("phi+"), [np.eye(2), PAULIS["X"]])
    >>> ens, round(holevo_chi(*ens), 6)
    (Ensemble(name='encoded', size=2, dim=4), 1.0)
    """
    rho = as_density_matrix(shared_state, "shared_state")
    n = int(round(np.log2(rho.shape[0])))
    if 2**n != rho.shape[0]:
        raise ValueError(
            f"shared_state must be a state of qubits (dimension a power of 2), "
            f"got dimension {rho.shape[0]}"
        )
    if np.ndim(alice_qubits) != 1:
        raise TypeError(f"alice_qubits must be a sequence of qubit indices, got {alice_qubits!r}")
    qargs = [check_int(q, "alice_qubits", 0, n - 1) for q in alice_qubits]
    if not qargs or len(set(qargs)) != len(qargs):
        raise ValueError(f"alice_qubits must be distinct qubit indices in 0..{n - 1}, got {qargs}")
    k = 2 ** len(qargs)
    mats, states = _check_matrices(encodings, "encodings", k), []
    for i, u in enumerate(mats):
        if not np.allclose(u @ u.conj().T, np.eye(k), atol=1e-8):
            raise ValueError(f"encodings[{i}] must be unitary (tolerance 1e-8)")
        full = embed_operator(u, qargs, n)
        states.append(full @ rho @ full.conj().T)
    probs = [1.0 / len(mats)] * len(mats) if probs is None else probs
    labels = [str(i) for i in range(len(mats))] if labels is None else labels
    return _make_ensemble(name, probs, states, labels)


def superdense_ensemble(pair_fidelity: float = 1.0) -> Ensemble:
    """The four superdense-coded states, equiprobable: Alice applies ``X**x`` then ``Z**z`` to
    her half (qubit 0) of :func:`qring_edu.superdense.isotropic_state` ``(F)``, as in
    :func:`qring_edu.superdense_circuit`; labels ``"xz"`` (m = 2x + z). χ =
    :func:`isotropic_capacity` ``(F)``; at F = 1 the Bell states, χ = I_acc = 2 bits.

    Examples
    --------
    >>> ens = superdense_ensemble()
    >>> ens, ens.labels, round(holevo_chi(*ens), 6)
    (Ensemble(name='superdense (Bell states)', size=4, dim=4), ('00', '01', '10', '11'), 2.0)
    >>> round(holevo_chi(*superdense_ensemble(0.9)), 6)
    1.372508
    """
    pair = _isotropic_array(pair_fidelity)
    msgs = [(x, z) for x in (0, 1) for z in (0, 1)]
    unitaries = [PAULIS["IZ"[z]] @ PAULIS["IX"[x]] for x, z in msgs]
    name = (
        f"superdense, F = {float(pair_fidelity):g}"
        if pair_fidelity != 1
        else "superdense (Bell states)"
    )
    return encoded_ensemble(
        pair, unitaries, alice_qubits=(0,), labels=[f"{x}{z}" for x, z in msgs], name=name
    )


def bloch_ensemble(thetas, phis, probs, radii=None, *, name: str = "custom") -> Ensemble:
    """A qubit ensemble from Bloch angles ``thetas``, ``phis`` (radians, shape (n,)) and Bloch
    lengths ``radii`` in [0, 1] (default 1): ``ρ_x = (I + r_x n_x·σ)/2``, labelled ``"ρx"``.

    Examples
    --------
    ``|0⟩`` and a half-mixed state along +x:

    >>> ens = bloch_ensemble([0, np.pi / 2], [0, 0], [0.5, 0.5], radii=[1, 0.5])
    >>> ens.bloch_vectors().round(3).tolist()
    [[0.0, 0.0, 1.0], [0.5, 0.0, 0.0]]
    >>> round(holevo_chi(*ens), 4)
    0.3554
    """
    th = _check_vector(thetas, "thetas")
    ph = _check_vector(phis, "phis")
    if ph.size != th.size:
        raise ValueError(f"phis has {ph.size} entries but thetas has {th.size}")
    if radii is None:
        r = np.ones(th.size)
    else:
        r = _check_vector(radii, "radii")
        if r.size != th.size:
            raise ValueError(f"radii has {r.size} entries but thetas has {th.size}")
        if np.any(r < 0) or np.any(r > 1):
            raise ValueError(f"radii must be in [0, 1], got values in [{r.min():g}, {r.max():g}]")
    p = _check_probs(probs, th.size)
    n = np.stack([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)], axis=1)
    states = [_from_bloch(r[i] * n[i]) for i in range(th.size)]
    return _make_ensemble(name, p, states, [f"ρ{i}" for i in range(th.size)])


def bloch_measurement(theta: float, phi: float) -> np.ndarray:
    """Projective qubit measurement along the Bloch direction (θ, φ) (radians), shape (2, 2, 2):
    ``(I ± n·σ)/2``; outcome 0 has probability ``(1 + n·r)/2`` for Bloch vector r.

    Examples
    --------
    Measuring along +x (θ = π/2, φ = 0):

    >>> povm = bloch_measurement(np.pi / 2, 0.0)
    >>> povm.shape, povm[0].real.round(3).tolist()
    ((2, 2, 2), [[0.5, 0.5], [0.5, 0.5]])
    """
    theta = check_float(theta, "theta")
    phi = check_float(phi, "phi")
    n = np.array([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)])
    return np.stack([_from_bloch(n), _from_bloch(-n)])
