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
* **Pauli frames.** A Pauli error on the qubit that carries the two bits ``(x, z)`` of superdense
  coding is coded ``1 = X`` (flips x), ``2 = Z`` (flips z), ``3 = Y`` (flips both); a bit stream
  ``b_0 b_1 ...`` is cut into symbols with ``x = b_{2j}``, ``z = b_{2j+1}``.

Qiskit objects (``Statevector``, ``DensityMatrix``, ``Operator``) are accepted wherever a state or
an operator is, by reading their ``data`` array; Qiskit itself is never imported here.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from ._validate import check_fidelity, check_float, check_int

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
    "FRAME_X",
    "FRAME_Z",
    "FRAME_Y",
    "GAP_BLOCK",
    "frame_blocks",
    "segment_frames",
    "slot_major_frames",
    "bernoulli_positions",
    "pauli_frames",
    "pauli_frames_distribution",
    "flipped_bit_positions",
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

#: Pauli frame codes: bit 0 flips ``x`` (an X component), bit 1 flips ``z`` (a Z component).
FRAME_X, FRAME_Z, FRAME_Y = 1, 2, 3


# ---------------------------------------------------------------------------------------------
# States and operators as arrays
# ---------------------------------------------------------------------------------------------
def as_array(value):
    """``value`` itself, or the ``data`` array of a Qiskit ``quantum_info`` object.

    Examples
    --------
    >>> as_array([1, 0])
    [1, 0]
    """
    data = getattr(value, "data", None)
    if data is not None and type(value).__module__.startswith("qiskit"):
        return np.asarray(data)
    return value


def as_density_matrix(state, name: str = "rho") -> np.ndarray:
    """A valid density matrix (complex, shape (d, d)) from a state vector or a density matrix.

    A vector ``ψ`` (shape (d,), norm 1 within 1e-6) becomes ``|ψ⟩⟨ψ|``; a matrix must be
    Hermitian (:data:`ATOL`), of unit trace and positive semidefinite (both within 1e-6).
    Raises ``ValueError``/``TypeError`` naming ``name`` otherwise.

    Examples
    --------
    >>> as_density_matrix([1, 0]).real
    array([[1., 0.],
           [0., 0.]])
    """
    try:
        arr = np.asarray(as_array(state), dtype=complex)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a state vector or a density matrix of numbers") from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; it contains NaN or Inf")
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
    """Reduced state of the qubits ``keep`` of an n-qubit density matrix (qubit 0 least
    significant, as in Qiskit); the result orders the kept qubits the same way.

    ``rho``: array (2**n, 2**n); ``keep``: distinct qubit indices in 0..n-1. Returns an array of
    shape ``(2**k, 2**k)`` with ``k = len(keep)``. The input is not validated as a state (callers
    pass a checked density matrix).

    Examples
    --------
    >>> phi = bell_state("phi+")
    >>> partial_trace(np.outer(phi, phi), [1]).real          # Bob's half of |Φ+⟩ is I/2
    array([[0.5, 0. ],
           [0. , 0.5]])
    """
    rho = np.asarray(rho)
    n = _n_qubits(rho.shape[0], "rho")
    keep = sorted({check_int(q, "keep", 0, n - 1) for q in keep})
    # Row index bits in C order are (b_{n-1}, ..., b_0): qubit q is axis n-1-q (rows) and
    # 2n-1-q (columns). Traced qubits share one einsum letter between the two axes.
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    rows = [letters[i] for i in range(n)]
    cols = [letters[n + i] if (n - 1 - i) in keep else letters[i] for i in range(n)]
    out = [rows[n - 1 - q] for q in sorted(keep, reverse=True)] + [
        cols[n - 1 - q] for q in sorted(keep, reverse=True)
    ]
    t = np.einsum("".join(rows + cols) + "->" + "".join(out), rho.reshape([2] * (2 * n)))
    k = len(keep)
    return t.reshape(2**k, 2**k)


def embed_operator(u, qargs, n: int) -> np.ndarray:
    """The ``2**n x 2**n`` operator that applies ``u`` to the qubits ``qargs`` of n qubits and the
    identity to the others (Qiskit order; ``qargs[0]`` is the least significant qubit of ``u``,
    as in ``Operator.compose(u, qargs=...)``).

    ``u``: array ``(2**k, 2**k)`` with ``k = len(qargs)``; ``qargs``: distinct indices in 0..n-1.

    Examples
    --------
    >>> embed_operator(PAULIS["X"], [0], 2).real.astype(int)   # X on qubit 0 of two
    array([[0, 1, 0, 0],
           [1, 0, 0, 0],
           [0, 0, 0, 1],
           [0, 0, 1, 0]])
    """
    n = check_int(n, "n", 1)
    qargs = [check_int(q, "qargs", 0, n - 1) for q in qargs]
    k = len(qargs)
    if k == 0 or len(set(qargs)) != k:
        raise ValueError(f"qargs must be distinct qubit indices in 0..{n - 1}, got {qargs}")
    u = np.asarray(as_array(u), dtype=complex)
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


# ---------------------------------------------------------------------------------------------
# Bell pairs and the isotropic state
# ---------------------------------------------------------------------------------------------
_S = 1 / np.sqrt(2)
_BELL = {
    "phi+": np.array([_S, 0, 0, _S], dtype=complex),
    "phi-": np.array([_S, 0, 0, -_S], dtype=complex),
    "psi+": np.array([0, _S, _S, 0], dtype=complex),
    "psi-": np.array([0, -_S, _S, 0], dtype=complex),
}


def bell_state(name: str = "phi+") -> np.ndarray:
    """A Bell state as a vector of shape (4,) (qubit 0 = A): ``"phi+"``, ``"phi-"``, ``"psi+"``
    or ``"psi-"`` (:data:`BELL_LABELS`). ``X^x Z^z`` on A maps ``Φ+`` to them in that order,
    up to a sign (``Z X Φ+ = Ψ-``).

    Examples
    --------
    >>> (bell_state("phi+") * np.sqrt(2)).real
    array([1., 0., 0., 1.])
    """
    if name not in _BELL:
        raise ValueError(f"name must be one of {', '.join(map(repr, BELL_LABELS))}, got {name!r}")
    return _BELL[name].copy()


def isotropic_state(pair_fidelity: float) -> np.ndarray:
    """The two-qubit isotropic (Werner) state of fidelity F, shape (4, 4):
    ``F Φ+ + (1-F)/3 (Φ- + Ψ+ + Ψ-)`` (qubit 0 = A), for F in [1/4, 1]. It equals ``|Φ+⟩``
    followed by a Pauli on A: X, Y, Z each with probability (1-F)/3.

    Examples
    --------
    >>> rho = isotropic_state(0.7)
    >>> round(float((bell_state() @ rho @ bell_state()).real), 12)   # ⟨Φ+|ρ|Φ+⟩ = F
    0.7
    """
    F = check_fidelity(pair_fidelity)
    weights = (F, (1 - F) / 3, (1 - F) / 3, (1 - F) / 3)
    return sum(w * np.outer(_BELL[k], _BELL[k].conj()) for w, k in zip(weights, BELL_LABELS))


# ---------------------------------------------------------------------------------------------
# The Bloch sphere
# ---------------------------------------------------------------------------------------------
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
    r = np.asarray(r, dtype=float)
    if r.shape != (3,):
        raise ValueError(f"r must be a Bloch vector of shape (3,), got shape {r.shape}")
    if np.linalg.norm(r) > 1 + 1e-9:
        raise ValueError(f"r must have length <= 1, got {np.linalg.norm(r):.6g}")
    return 0.5 * (np.eye(2) + np.einsum("a,aij->ij", r, _SIGMA))


def bloch_vector(rho) -> np.ndarray:
    """Bloch vector ``(Tr ρX, Tr ρY, Tr ρZ)`` of a qubit state (vector or density matrix),
    shape (3,), real; its length is 1 for pure states and < 1 for mixed ones.

    Examples
    --------
    >>> np.round(bloch_vector(pure_qubit(np.pi / 2, 0.0)), 12) + 0.0   # |+⟩
    array([1., 0., 0.])
    """
    arr = as_density_matrix(rho, "rho")
    if arr.shape != (2, 2):
        raise ValueError(f"rho must be a qubit state (dimension 2), got dimension {arr.shape[0]}")
    return np.einsum("aij,ji->a", _SIGMA, arr).real


# ---------------------------------------------------------------------------------------------
# Pauli-frame sampling (the fast path of every Clifford protocol of the book)
# ---------------------------------------------------------------------------------------------
#: Uniforms drawn per block by the gap sampler (:func:`frame_blocks`). Part of the random stream:
#: a block that runs past the last trial discards its unused uniforms.
GAP_BLOCK = 1 << 15


class _Workspace:
    """Scratch arrays of one :func:`frame_blocks` run, reused from block to block.

    Why: on the shared machines this book runs on a first touch of fresh memory costs about 2 us
    per 4 KiB page, more than sampling the errors it holds, so the sampler keeps its buffers
    (about 0.9 MB per thread) instead of allocating new ones for every block and call."""

    def __init__(self) -> None:
        self.t = np.empty(GAP_BLOCK)
        self.pos = np.empty(GAP_BLOCK, dtype=np.int64)
        self.frames = np.empty(GAP_BLOCK, dtype=np.uint8)
        self.cmp = np.empty(GAP_BLOCK, dtype=bool)
        self.busy = False


_WORK = threading.local()


def _workspace() -> _Workspace:
    ws = getattr(_WORK, "ws", None)
    if ws is None:
        ws = _WORK.ws = _Workspace()
    return ws if not ws.busy else _Workspace()  # a nested run gets buffers of its own


def _frame_cuts(p_err: float, conditional) -> tuple[float, float]:
    """Thresholds ``(r1, r2)`` on the fractional part of the gap variable T (see
    :func:`frame_blocks`) that give frame codes 1, 2, 3 with the conditional probabilities
    ``conditional = (P(X | error), P(Z | error), P(Y | error))``."""
    cx = float(conditional[0])
    cxz = cx + float(conditional[1])
    log_q = math.log1p(-p_err)
    # P(frac T < r) = (1 - (1 - p)^r) / p, so frac T < r(c) has probability c exactly.
    r1 = 1.0 if cx >= 1.0 else math.log1p(-p_err * cx) / log_q
    r2 = 1.0 if cxz >= 1.0 else math.log1p(-p_err * cxz) / log_q
    return r1, r2


_DEPOLARIZING = (1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0)


def frame_blocks(
    n: int,
    p_err: float,
    rng: np.random.Generator,
    conditional=_DEPOLARIZING,
    *,
    frames: bool = True,
):
    """Sample which of ``n`` independent trials err (probability ``p_err`` each) and, for each
    error, its Pauli frame code; yield the result block by block, in increasing position.

    Yields ``(positions, codes)``: int64 positions ``< n``, strictly increasing across blocks,
    and their uint8 frame codes (1 = X, 2 = Z, 3 = Y, with probabilities ``conditional`` =
    ``(P(X | error), P(Z | error), P(Y | error))``; ``codes`` is ``None`` with ``frames=False``).
    The arrays are views of scratch buffers that the next block overwrites: use or copy them
    before advancing (changing them in place is allowed). :func:`bernoulli_positions`,
    :func:`pauli_frames`, :func:`pauli_frames_distribution` and the fast paths of superdense
    coding and of the superdense ring all draw this one stream.

    The random stream (a fixed function of ``n``, ``p_err``, ``conditional`` and ``rng``):
    blocks of ``m = min(GAP_BLOCK, int(r p + 6 sqrt(r p) + 16))`` uniforms ``U`` (``r`` trials
    left), one per error, each giving ``T = log(1 - U) / log(1 - p)``:

    * the gap to the next error is ``floor(T) + 1``, Geometric(p): ``P(gap > k) = P(1 - U <=
      (1 - p)^k) = (1 - p)^k`` (inversion; ``1 - U`` lies in (0, 1], so T is finite);
    * the frame comes from the fractional part ``f = T - floor(T)``, which for the exponential
      variable ``T`` is independent of ``floor(T)`` (memorylessness) with ``P(f < r) = (1 - (1 -
      p)^r) / p``; code ``1 + [f >= r1] + [f >= r2]`` with ``r1, r2`` chosen so the three codes
      have probabilities ``conditional`` exactly. No uniform is spent on frames.

    A block whose errors run past trial ``n - 1`` ends the stream (its unused uniforms are
    discarded); otherwise the next block starts after the block's last error (memoryless).
    Exact up to float64 rounding (a relative 2^-53, as for any inversion sampler). ``p_err >= 1``:
    every trial errs and the frames take one uniform each (``1 + [U >= c_X] + [U >= c_X +
    c_Z]``); ``p_err <= 0`` or ``n <= 0``: nothing, no draws.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> [(pos.tolist(), codes.tolist()) for pos, codes in frame_blocks(40, 0.1, rng)]
    [([9, 12, 13, 14, 30], [2, 3, 2, 1, 3])]
    """
    if n <= 0 or p_err <= 0.0:
        return
    if p_err >= 1.0:  # every trial errs
        for lo in range(0, n, GAP_BLOCK):
            hi = min(n, lo + GAP_BLOCK)
            pos = np.arange(lo, hi, dtype=np.int64)
            if not frames:
                yield pos, None
                continue
            u = rng.random(hi - lo)
            cx = float(conditional[0])
            codes = (1 + (u >= cx) + (u >= cx + float(conditional[1]))).astype(np.uint8)
            yield pos, codes
        return
    log_q = math.log1p(-p_err)
    inv = 1.0 / log_q
    r1, r2 = _frame_cuts(p_err, conditional) if frames else (1.0, 1.0)
    # T <= 53 ln 2 / -log(1 - p); for a tiny p its cumulative sums could overflow int64, so cap
    # T at n (such a gap runs past the end either way)
    cap = p_err < 1e-12
    ws = _workspace()
    ws.busy = True
    try:
        start = 0
        while start < n:
            mean = (n - start) * p_err
            m = int(min(GAP_BLOCK, mean + 6.0 * math.sqrt(mean) + 16.0))
            t, pos = ws.t[:m], ws.pos[:m]
            rng.random(out=t)
            np.subtract(1.0, t, out=t)
            np.log(t, out=t)
            t *= inv  # T >= 0
            if cap:
                np.minimum(t, float(n), out=t)
            np.copyto(pos, t, casting="unsafe")  # floor(T) (T >= 0: truncation is the floor)
            if frames:
                np.subtract(t, pos, out=t)  # the fractional parts f
            pos += 1  # the gaps
            pos[0] += start - 1
            np.cumsum(pos, out=pos)  # the positions
            k = int(np.searchsorted(pos, n))
            codes = None
            if frames:
                codes, f, above = ws.frames[:k], t[:k], ws.cmp[:k]
                np.greater_equal(f, r1, out=codes.view(bool))
                np.greater_equal(f, r2, out=above)
                codes += above.view(np.uint8)
                codes += 1
            nxt = int(pos[m - 1]) + 1 if k == m else n  # before the caller may touch pos
            yield pos[:k], codes
            start = nxt
    finally:
        ws.busy = False


def segment_frames(lengths, p_err: float, rng: np.random.Generator, conditional=_DEPOLARIZING):
    """The errors of consecutive segments of trials, split by segment.

    The trials are the segments of ``lengths`` (non-negative ints) laid end to end: trial
    ``starts[j] + u`` (``starts`` the cumulative sums) is trial ``u`` of segment ``j``; they are
    drawn as :func:`frame_blocks` ``(sum(lengths), p_err, rng, conditional)``. Yields ``(j,
    units, codes)``, segment by segment in order, with ``units`` the strictly increasing
    in-segment indices of the errors (a segment may come in several pieces, never out of order).
    A piece never holds a repeated index, so one fancy-indexed update per piece is exact. Same
    view semantics as :func:`frame_blocks`.

    Examples
    --------
    >>> [(j, u.tolist()) for j, u, _ in segment_frames([5, 0, 30, 5], 0.1,
    ...                                                np.random.default_rng(0))]
    [(2, [4, 7, 8, 9, 25])]
    """
    starts = np.concatenate([[0], np.cumsum(np.asarray(lengths, dtype=np.int64))])
    for pos, codes in frame_blocks(int(starts[-1]), p_err, rng, conditional):
        if pos.size == 0:
            continue
        j0 = int(np.searchsorted(starts, pos[0], side="right")) - 1
        j1 = int(np.searchsorted(starts, pos[-1], side="right")) - 1
        cuts = [0] + np.searchsorted(pos, starts[j0 + 1 : j1 + 1]).tolist() + [pos.size]
        for j, a, e in zip(range(j0, j1 + 1), cuts[:-1], cuts[1:]):
            if a < e:
                units = pos[a:e]
                if starts[j]:
                    units -= starts[j]
                yield j, units, codes[a:e]


def slot_major_frames(
    n_units: int, n_slots: int, p_err: float, rng: np.random.Generator, conditional=_DEPOLARIZING
):
    """The errors of ``n_units * n_slots`` trials enumerated slot-major, split by slot.

    Trial ``t = s * n_units + u`` is slot ``s`` of unit ``u`` (e.g. symbol ``s`` of byte or word
    ``u`` of a packed stream): :func:`segment_frames` with ``n_slots`` segments of ``n_units``.
    Yields ``(s, units, codes)``; the errors of one unit in different slots arrive in different
    pieces, so a fancy-indexed update with one piece never meets a repeated index.

    Examples
    --------
    >>> [(s, u.tolist()) for s, u, _ in slot_major_frames(10, 4, 0.1, np.random.default_rng(0))]
    [(0, [9]), (1, [2, 3, 4]), (3, [0])]
    """
    return segment_frames([n_units] * n_slots, p_err, rng, conditional)


def _collect(blocks, with_codes: bool):
    pos, codes = [], []
    for p, c in blocks:
        pos.append(p.copy())
        if with_codes:
            codes.append(c.copy())
    positions = np.concatenate(pos) if pos else np.zeros(0, dtype=np.int64)
    if not with_codes:
        return positions
    return positions, (np.concatenate(codes) if codes else np.zeros(0, dtype=np.uint8))


def bernoulli_positions(n: int, p: float, rng: np.random.Generator) -> np.ndarray:
    """Indices ``i < n`` of independent Bernoulli(p) successes, increasing (int64).

    The gaps between successes are Geometric(p), drawn by inversion one uniform per success
    (:func:`frame_blocks`, whose stream this is: the same positions as
    ``pauli_frames(n, 1 - p, rng)`` from the same generator state), so the cost is O(n p), not
    O(n).

    Examples
    --------
    >>> bernoulli_positions(10, 1.0, np.random.default_rng(0)).tolist()
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    >>> bernoulli_positions(40, 0.1, np.random.default_rng(0)).tolist()
    [9, 12, 13, 14, 30]
    """
    return _collect(frame_blocks(int(n), float(p), rng, frames=False), False)


def pauli_frames(n_symbols: int, pair_fidelity: float, rng: np.random.Generator):
    """Sample the Pauli errors of ``n_symbols`` isotropic pairs, sparsely.

    Returns ``(positions, frames)``: increasing symbol indices that suffered an error and their
    frame codes (1 = X flips x, 2 = Z flips z, 3 = Y flips both), each with probability 1/3.
    Each symbol errs independently with probability ``1 - F``. The random stream is
    :func:`frame_blocks` (one uniform per error gives both its position and its frame).

    Examples
    --------
    >>> pos, frames = pauli_frames(1000, 0.9, np.random.default_rng(0))
    >>> pos.size, set(frames.tolist()) <= {1, 2, 3}
    (90, True)
    """
    return _collect(frame_blocks(int(n_symbols), 1.0 - float(pair_fidelity), rng), True)


def pauli_frames_distribution(n_symbols: int, probabilities, rng: np.random.Generator):
    """Like :func:`pauli_frames` for any Pauli error distribution, sparsely.

    ``probabilities``: ``(p_I, p_X, p_Z, p_Y)`` in frame-code order (e.g.
    ``qring_edu.links.link_errors(...).probabilities``). Each symbol errs with probability
    ``1 - p_I``; an erring symbol gets code 1, 2 or 3 with probabilities ``p_X, p_Z, p_Y``
    renormalised. Same stream as :func:`pauli_frames` (:func:`frame_blocks`), with the frame
    thresholds of this distribution.

    Examples
    --------
    >>> pos, frames = pauli_frames_distribution(1000, (0.9, 0.0, 0.1, 0.0),
    ...                                         np.random.default_rng(0))
    >>> pos.size, set(frames.tolist())
    (90, {2})
    """
    p = np.asarray(probabilities, dtype=float)
    p_err = 1.0 - float(p[0])
    conditional = p[1:] / p[1:].sum() if p_err > 0.0 else _DEPOLARIZING
    return _collect(frame_blocks(int(n_symbols), p_err, rng, conditional), True)


def flipped_bit_positions(positions: np.ndarray, frames: np.ndarray) -> np.ndarray:
    """Bit indices in the (padded) stream flipped by the given Pauli frames (``x`` = 2j,
    ``z`` = 2j+1); each index at most once, not sorted.

    Examples
    --------
    >>> flipped_bit_positions(np.array([0, 4]), np.array([FRAME_Y, FRAME_Z])).tolist()
    [0, 1, 9]
    """
    x_flips = 2 * positions[(frames & FRAME_X) != 0]
    z_flips = 2 * positions[(frames & FRAME_Z) != 0] + 1
    return np.concatenate([x_flips, z_flips])
