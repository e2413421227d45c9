"""Exercise checkers of chapter 0, *Qubits for this book* (presentation floor). The rules every
checker keeps are in :mod:`~qring_edu.exercises._base`.

Three checkers grade code the reader wrote ("build it yourself"): a gate on one qubit of two, the
partial trace and the von Neumann entropy, with the library's own function switched off
(:func:`~qring_edu.exercises._base.forbidden`). Qubit order as in :mod:`qring_edu.states`:
qubit 0 is the least significant.
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import check_fidelity, check_float, check_int
from ..experiments.qubits import BASES, measure_qubit, run_bell_pair
from ..holevo import binary_entropy, von_neumann_entropy
from ..states import PAULIS, bell_state, embed_operator, isotropic_state, partial_trace
from ._base import (
    Feedback,
    as_number,
    call_reader,
    checker,
    compare_integer,
    failed,
    grade,
    nan_entropy,
    not_a_function,
    not_attempted,
    passed,
    random_density,
)

__all__ = [
    "check_plus_probability",
    "check_basis_index",
    "check_on_qubit",
    "check_partial_trace",
    "check_entropy",
    "check_mixture_entropy",
    "check_agreement",
]

_H = np.array([[1, 1], [1, -1]], dtype=complex) / np.sqrt(2)


def _call_without(name: str, fn, *args, what: str, case: str):
    """Call the reader's ``fn(*args)`` with the library's ``name`` switched off."""
    return call_reader(fn, *args, name=what, case=case, forbid=(name,))


def _matrix(result, shape: tuple[int, int]) -> np.ndarray | None:
    """``result`` as a finite complex array of ``shape`` (a Qiskit object by its data), or None."""
    data = getattr(result, "data", result)
    try:
        arr = np.asarray(data, dtype=complex)
    except (TypeError, ValueError):
        return None
    if arr.shape != shape or not np.all(np.isfinite(arr)):
        return None
    return arr


def _random_unitary(rng: np.random.Generator) -> np.ndarray:
    """A random 2 x 2 unitary (QR of a complex Gaussian matrix)."""
    q, r = np.linalg.qr(rng.normal(size=(2, 2)) + 1j * rng.normal(size=(2, 2)))
    return q * (np.diag(r) / np.abs(np.diag(r)))


def _show(m: np.ndarray) -> str:
    """A small matrix, rounded, as nested lists (real if it is real)."""
    m = np.round(m, 4) + 0.0
    if np.allclose(m.imag, 0):
        m = m.real
    return str(m.tolist())


# -- One qubit -------------------------------------------------------------------------------------
@checker
def check_plus_probability(answer, theta: float = 100.0, phi: float = 60.0) -> Feedback:
    """Probability of ``|+⟩`` when ``cos(θ/2)|0⟩ + e^{iφ} sin(θ/2)|1⟩`` (angles in **degrees**) is
    measured in the X basis: ``(1 + sin θ cos φ)/2``
    (:func:`qring_edu.experiments.qubits.measure_qubit`). Tolerance 1e-3.

    Examples
    --------
    >>> check_plus_probability(0.75, theta=90, phi=60).passed
    True
    """
    t = check_float(theta, "theta", 0.0, 180.0)
    f = check_float(phi, "phi", 0.0, 360.0)
    expected = measure_qubit(math.radians(t), math.radians(f), basis="X", shots=1).p0
    what = f"P(+) for θ = {t:g}°, φ = {f:g}°"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    r = math.radians(t)
    cases = {
        math.cos(r / 2) ** 2: f"{value:g} is cos²(θ/2), the probability of |0⟩ in the Z basis. "
        "In the X basis the amplitude is ⟨+|ψ⟩ = (cos(θ/2) + e^{iφ} sin(θ/2))/√2.",
        (1 + math.sin(r)) / 2: f"{value:g} is what you get with φ = 0: the phase e^{{iφ}} changes "
        "the X-basis probabilities.",
        1 - expected: f"{value:g} is the probability of |−⟩, the other outcome.",
        (1 + math.sin(t) * math.cos(f)) / 2: f"{value:g} is the formula with the angles read as "
        "radians; they are in degrees.",
        expected: f"correct, (1 + sin θ cos φ)/2 = {expected:.4f}. The phase φ is invisible "
        "in the Z basis but not in the X basis.",
        ...: f"{value:g} is not right (tolerance 1e-3). Compute |⟨+|ψ⟩|² with "
        "⟨+| = (⟨0| + ⟨1|)/√2.",
    }
    return grade(value, expected, what, cases, tol=1e-3)


# -- Several qubits: the book's order --------------------------------------------------------------
@checker
def check_basis_index(answer, bits=(1, 0, 1, 1)) -> Feedback:
    """Index of the basis state in which qubit q is ``bits[q]``, in a state vector of length
    ``2**n`` with the book's order (qubit 0 least significant): ``Σ_q bits[q] 2**q``. Exact.

    Examples
    --------
    >>> check_basis_index(6, bits=(0, 1, 1)).passed
    True
    """
    items = [check_int(b, "bits", 0, 1) for b in bits]
    if not 1 <= len(items) <= 20:
        raise ValueError(f"bits must list 1 to 20 qubits, got {len(items)}")
    n = len(items)
    expected = sum(b << q for q, b in enumerate(items))
    reversed_ = sum(b << (n - 1 - q) for q, b in enumerate(items))
    what = f"index of the basis state with qubits 0..{n - 1} = {tuple(items)}"
    hint = "Qubit q contributes b_q · 2^q."
    if reversed_ != expected:
        hint = (
            f"{reversed_} reads qubit 0 as the most significant bit; in this book (and in "
            "Qiskit) qubit 0 is the least significant: index = Σ_q b_q 2^q."
        )
    fb = compare_integer(answer, expected, what=what, hint=hint)
    if fb.passed:
        label = "".join(str(b) for b in reversed(items))
        return passed(f"{what}: correct, {expected}; Qiskit labels it |{label}⟩ (qubit 0 last).")
    return fb


#: The gates :func:`check_on_qubit` tries first, by name.
_NAMED_GATES = {"X": PAULIS["X"], "Z": PAULIS["Z"], "H": _H}


@checker
def check_on_qubit(fn, *, trials: int = 3, seed: int = 0) -> Feedback:
    """Code-graded: the reader's ``on_qubit(u, qubit) -> array (4, 4)``, the 2 x 2 gate ``u`` on
    ``qubit`` (0 or 1) of two qubits, on X, Z, H and ``trials`` seeded random unitaries, against
    :func:`qring_edu.states.embed_operator` (1e-9; switched off while it runs).

    Examples
    --------
    >>> import numpy as np
    >>> def on_qubit(u, qubit):
    ...     return np.kron(np.eye(2), u) if qubit == 0 else np.kron(u, np.eye(2))
    >>> check_on_qubit(on_qubit).passed
    True
    """
    what = "on_qubit(u, qubit)"
    fb = not_a_function(fn, what)
    if fb is not None:
        return fb
    trials = check_int(trials, "trials", 0, 100)
    rng = np.random.default_rng(check_int(seed, "seed", 0))
    gates = list(_NAMED_GATES.items())
    gates += [(f"a random unitary ({i + 1})", _random_unitary(rng)) for i in range(trials)]
    n = 0
    for name, u in gates:
        for qubit in (0, 1):
            case = f"u = {name} on qubit {qubit}"
            want = embed_operator(u, [qubit], 2)
            got, fb = _call_without("embed_operator", fn, u.copy(), qubit, what=what, case=case)
            if fb is not None:
                return fb
            if got is None and n == 0:
                return not_attempted(what + " (your function returns None)")
            arr = _matrix(got, (4, 4))
            if arr is None:
                return failed(
                    f"{what}: for {case} expected a 4 x 4 matrix of numbers, got "
                    f"{type(got).__name__} of shape {np.shape(getattr(got, 'data', got))}."
                )
            if np.allclose(arr, want, atol=1e-9):
                n += 1
                continue
            other = embed_operator(u, [1 - qubit], 2)
            if np.allclose(arr, other, atol=1e-9):
                return failed(
                    f"{what}: for {case} your matrix acts on the wrong qubit: it equals the "
                    f"operator for qubit {1 - qubit}. Qubit 0 is the least significant bit of "
                    "the index, so it is the *right* factor of np.kron: np.kron(I, u) for "
                    "qubit 0."
                )
            return failed(
                f"{what}: for {case} your matrix is {_show(arr)}, expected {_show(want)}. "
                "Use np.kron with the identity on the other qubit."
            )
    return passed(
        f"{what}: correct on {n} cases (X, Z, H and {trials} random unitaries, both qubits)."
    )


# -- Density matrices ------------------------------------------------------------------------------
def _partial_trace_cases(trials: int, seed: int) -> list[tuple[str, np.ndarray]]:
    """Named two-qubit density matrices for :func:`check_partial_trace`."""
    rng = np.random.default_rng(seed)
    zero_plus = np.kron(np.array([1, 1]) / np.sqrt(2), np.array([1, 0]))  # |0⟩_A |+⟩_B
    cases = [
        ("|Φ+⟩", np.outer(bell_state("phi+"), bell_state("phi+").conj())),
        ("|0⟩_A |+⟩_B", np.outer(zero_plus, zero_plus).astype(complex)),
        ("the isotropic state at F = 0.8", isotropic_state(0.8)),
    ]
    cases += [(f"a random mixed state ({i + 1})", random_density(rng, 4)) for i in range(trials)]
    return cases


@checker
def check_partial_trace(fn, *, trials: int = 3, seed: int = 0) -> Feedback:
    """Code-graded: the reader's ``my_partial_trace(rho, keep) -> array (2, 2)``, the state of qubit
    ``keep`` (0 = A, 1 = B) of a 4 x 4 two-qubit ``rho`` (index ``a + 2 b``), on ``|Φ+⟩``,
    ``|0⟩_A|+⟩_B``, the isotropic pair at F = 0.8 and ``trials`` seeded random states, against
    :func:`qring_edu.states.partial_trace` (1e-9; switched off while it runs).

    Examples
    --------
    >>> import numpy as np
    >>> def reduced(rho, keep):
    ...     t = np.asarray(rho).reshape(2, 2, 2, 2)        # axes (b, a, b', a')
    ...     return np.einsum("bxbz->xz", t) if keep == 0 else np.einsum("xaza->xz", t)
    >>> check_partial_trace(reduced).passed
    True
    """
    what = "my_partial_trace(rho, keep)"
    fb = not_a_function(fn, what)
    if fb is not None:
        return fb
    cases = _partial_trace_cases(check_int(trials, "trials", 0, 100), check_int(seed, "seed", 0))
    n = 0
    for name, rho in cases:
        for keep in (0, 1):
            case = f"{name}, keep = {keep}"
            want = partial_trace(rho, [keep])
            got, fb = _call_without("partial_trace", fn, rho.copy(), keep, what=what, case=case)
            if fb is not None:
                return fb
            if got is None and n == 0:
                return not_attempted(what + " (your function returns None)")
            arr = _matrix(got, (2, 2))
            if arr is None:
                return failed(
                    f"{what}: on {case} expected a 2 x 2 matrix of numbers, got "
                    f"{type(got).__name__} of shape {np.shape(getattr(got, 'data', got))}."
                )
            if np.allclose(arr, want, atol=1e-9):
                n += 1
                continue
            if np.allclose(arr, partial_trace(rho, [1 - keep]), atol=1e-9):
                return failed(
                    f"{what}: on {name} keeping qubit {keep} you returned {_show(arr)}, the "
                    f"state of qubit {1 - keep}. Index i = a + 2 b: Alice's bit a is i % 2, "
                    "Bob's bit b is i // 2; reshape(2, 2, 2, 2) puts b first."
                )
            if np.allclose(arr, want.T, atol=1e-9):
                return failed(
                    f"{what}: on {case} you returned the transpose of the reduced state: "
                    "row index = the kept qubit's bit in the row of rho, column index = its bit "
                    "in the column."
                )
            return failed(
                f"{what}: on {case} you returned {_show(arr)}, expected {_show(want)}. Sum the "
                "entries of rho whose row and column agree on the traced-out qubit."
            )
    return passed(f"{what}: correct on {n} cases, keeping each qubit of {len(cases)} states.")


def _entropy_cases(trials: int, seed: int) -> list[tuple[str, np.ndarray]]:
    """Named density matrices for :func:`check_entropy`: pure, diagonal, rank-deficient, mixed."""
    rng = np.random.default_rng(seed)
    plus = np.full((2, 2), 0.5, dtype=complex)
    phi = bell_state("phi+")
    cases = [
        ("|0⟩⟨0|", np.diag([1.0, 0.0]).astype(complex)),
        ("I/2", np.eye(2, dtype=complex) / 2),
        ("diag(0.9, 0.1)", np.diag([0.9, 0.1]).astype(complex)),
        ("|+⟩⟨+|", plus),
        ("|Φ+⟩⟨Φ+|", np.outer(phi, phi.conj())),
        ("I/4", np.eye(4, dtype=complex) / 4),
        ("the isotropic state at F = 0.9", isotropic_state(0.9)),
    ]
    cases += [
        (f"a random rank-2 state of 2 qubits ({i + 1})", random_density(rng, 4, 2))
        for i in range(trials)
    ]
    cases.append(("a random state of 3 qubits", random_density(rng, 8)))
    return cases


@checker
def check_entropy(fn, *, trials: int = 2, seed: int = 0) -> Feedback:
    """Code-graded: the reader's ``my_entropy(rho) -> float``, ``S(ρ) = −Σ λ log2 λ`` in bits, on pure,
    maximally mixed, diagonal, rank-deficient and random states of 1 to 3 qubits (``trials``
    seeded), against :func:`qring_edu.von_neumann_entropy` (1e-6; switched off while it runs).

    Examples
    --------
    >>> import numpy as np
    >>> def entropy(rho):
    ...     lam = np.linalg.eigvalsh(rho)
    ...     lam = lam[lam > 1e-12]
    ...     return float(-(lam * np.log2(lam)).sum())
    >>> check_entropy(entropy).passed
    True
    """
    what = "my_entropy(rho)"
    fb = not_a_function(fn, what)
    if fb is not None:
        return fb
    cases = _entropy_cases(check_int(trials, "trials", 0, 100), check_int(seed, "seed", 0))
    for i, (name, rho) in enumerate(cases):
        want = von_neumann_entropy(rho)
        got, fb = _call_without("von_neumann_entropy", fn, rho.copy(), what=what, case=name)
        if fb is not None:
            return fb
        if got is None and i == 0:
            return not_attempted(what + " (your function returns None)")
        fb = nan_entropy(got, what, name)
        if fb is not None:
            return fb
        value, fb = as_number(got, f"{what} on {name}")
        if fb is not None:
            return fb
        if abs(value - want) <= 1e-6:
            continue
        diag = np.clip(np.diag(rho).real, 0, None)
        diag = diag[diag > 1e-12]
        said = f"on {name} you returned {value:.6g}, expected {want:.6g}"
        slips = {
            want * math.log(2): "in nats: use np.log2, entropies in this book are in bits.",
            float(-(diag * np.log2(diag)).sum()): "the entropy of the diagonal of ρ (the Z-basis "
            "outcome probabilities); S(ρ) uses the eigenvalues (np.linalg.eigvalsh).",
            -want: "the sum without its minus sign: S = −Σ λ log2 λ ≥ 0.",
        }
        slips = {k: f"{said}. That is {h}" for k, h in slips.items()}
        slips[...] = f"{said} bits. S(ρ) = −Σ λ log2 λ over the eigenvalues λ of ρ."
        return grade(value, None, what, slips, tol=1e-6)
    return passed(
        f"{what}: correct on {len(cases)} states (pure, maximally mixed, rank-deficient and "
        "mixed, 1 to 3 qubits)."
    )


@checker
def check_mixture_entropy(answer, weight: float = 0.75) -> Feedback:
    """``S(ρ)`` in bits of the mixture ``ρ = w|0⟩⟨0| + (1 − w)|+⟩⟨+|`` with ``w = weight``.
    Reference: :func:`qring_edu.von_neumann_entropy`. Tolerance 1e-3.

    Examples
    --------
    >>> check_mixture_entropy(0.6009, weight=0.5).passed
    True
    """
    w = check_float(weight, "weight", 0.0, 1.0)
    rho = w * np.diag([1.0, 0.0]) + (1 - w) * np.full((2, 2), 0.5)
    expected = von_neumann_entropy(rho)
    what = f"S(ρ) of {w:g}|0⟩⟨0| + {1 - w:g}|+⟩⟨+|"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    lam = np.linalg.eigvalsh(rho)
    cases = {
        binary_entropy(w) if 0 < w < 1 else None: f"{value:g} is h(w), the entropy of the "
        "weights. The weights are the eigenvalues only when the states are orthogonal; |0⟩ and "
        "|+⟩ overlap, so compute the eigenvalues of ρ.",
        expected: f"correct, {expected:.4f} bit (eigenvalues {lam[1]:.4f} and {lam[0]:.4f}): "
        "less than the entropy of the weights, because the two states overlap.",
        ...: f"{value:g} is not right (tolerance 1e-3). Write ρ as a 2 x 2 matrix and use its "
        "eigenvalues.",
    }
    return grade(value, expected, what, cases, tol=1e-3)


@checker
def check_agreement(answer, pair_fidelity: float = 0.85, basis: str = "X") -> Feedback:
    """Probability that Alice's and Bob's bits agree when both measure their half of the isotropic
    pair of fidelity F in ``basis`` (``"Z"`` or ``"X"``): ``F + (1 − F)/3``
    (:func:`qring_edu.experiments.qubits.run_bell_pair`). Tolerance 1e-3.

    Examples
    --------
    >>> check_agreement(0.8, pair_fidelity=0.7).passed
    True
    """
    F = check_fidelity(pair_fidelity)
    if basis not in BASES:
        raise ValueError(f"basis must be one of {', '.join(map(repr, BASES))}, got {basis!r}")
    expected = run_bell_pair(pair_fidelity=F, basis=basis, shots=1).agreement
    what = f"P(bits agree) for the isotropic pair at F = {F:g}, both measuring in the {basis} basis"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    test = "X⊗X" if basis == "X" else "Z⊗Z"
    cases = {
        F: f"{value:g} counts only |Φ+⟩. One of the three other Bell states also gives "
        f"equal bits in the {basis} basis: which one? (Apply {test} to each.)",
        1 - expected: f"{value:g} is the probability that the bits differ.",
        expected: f"correct, F + (1 − F)/3 = {expected:.4f}: two of the four Bell states give "
        f"equal bits in the {basis} basis.",
        ...: f"{value:g} is not right (tolerance 1e-3). ρ_F is |Φ+⟩ with probability F and "
        "each other Bell state with (1 − F)/3: add the weights of the Bell states whose bits "
        f"agree in the {basis} basis.",
    }
    return grade(value, expected, what, cases, tol=1e-3)
