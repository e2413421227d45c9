"""Exercise checkers of chapter 2, *The Holevo bound* (presentation floor). The rules every checker
keeps are in :mod:`~qring_edu.exercises._base`. Information is in bits.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._validate import check_choice, check_int
from ..costmodel import allreduce_cut_bound
from ..holevo import (
    accessible_information,
    bb84_ensemble,
    binary_entropy,
    dense_coding_capacity,
    holevo_chi,
    isotropic_capacity,
    mutual_information,
    shannon_entropy,
    trine_ensemble,
    two_state_accessible,
    two_state_chi,
    von_neumann_entropy,
)
from ..states import bell_state, isotropic_state
from ._base import (
    Feedback,
    as_number,
    bad_parameters,
    call_reader,
    checker,
    failed,
    grade,
    nan_entropy,
    not_a_function,
    not_attempted,
    passed,
    random_density,
)

__all__ = [
    "check_chi_bb84",
    "check_chi_code",
    "check_two_state_chi",
    "check_max_bits",
    "check_dense_capacity",
    "check_povm",
    "check_ea_entropy_bound",
    "check_pair_entropy",
    "check_dephased_capacity",
    "check_cut_set_qubits",
    "check_vga_bits_in",
]

#: Named ensembles a POVM exercise may be graded against.
_ENSEMBLES = {"BB84": bb84_ensemble, "trine": trine_ensemble}


# -- χ ---------------------------------------------------------------------------------------------
@checker
def check_chi_bb84(answer, probs=(0.25, 0.25, 0.25, 0.25)) -> Feedback:
    """χ in bits of the BB84 states |0⟩, |1⟩, |+⟩, |−⟩ sent with probabilities ``probs`` (four
    non-negative numbers summing to 1), by :func:`qring_edu.holevo_chi`. Tolerance 1e-3.

    Examples
    --------
    >>> check_chi_bb84(1.0).passed
    True
    >>> check_chi_bb84(0.9183, probs=(1 / 2, 1 / 6, 1 / 6, 1 / 6)).passed
    True
    """
    p = np.asarray(probs, dtype=float)
    if p.shape != (4,) or not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"probs must be four non-negative numbers, got {probs!r}")
    if abs(p.sum() - 1) > 1e-9:
        raise ValueError(f"probs must sum to 1, got {p.sum():g}")
    uniform = np.allclose(p, 0.25)
    what = "χ of the BB84 ensemble" + (
        "" if uniform else " with probabilities (" + ", ".join(f"{x:.4g}" for x in p) + ")"
    )
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    states = bb84_ensemble().states
    expected = holevo_chi(p, states)
    label_entropy = shannon_entropy(p)
    avg = np.einsum("i,ijk->jk", p, states)
    diag = np.clip(np.diag(avg).real, 0, None)
    cases = {
        label_entropy: f"{value:g} is H(X) = {'log2 4' if uniform else f'{label_entropy:.4g}'}, "
        "the entropy of the label. χ uses the entropy of the average *quantum* state, which is "
        "at most log2 d = 1 for a qubit.",
        0.5 if uniform else None: f"{value:g} is the accessible information (the best "
        "measurement), not χ. χ = S(Σ p_x ρ_x) − Σ p_x S(ρ_x).",
        None if uniform else 1.0: "1 is χ for equal probabilities, where the average state is "
        "I/2. Compute the average state Σ p_x ρ_x with these probabilities and its eigenvalues.",
        0.0: f"{value:g} — the states are pure (S(ρ_x) = 0), but the average "
        "state is not. Compute S(Σ p_x ρ_x).",
        shannon_entropy(diag / diag.sum()): f"{value:g} is the entropy of the diagonal of the "
        "average state; S uses its eigenvalues (the average state is not diagonal here).",
        expected: f"correct, {expected:.4f} bit. Every state is pure, so χ = "
        f"S({'I/2' if uniform else 'Σ p_x ρ_x'}) − 0 = {expected:.4f}.",
        ...: f"{value:g} is not right (tolerance 1e-3). Compute the average state "
        "Σ p_x ρ_x, its eigenvalues, and subtract the (zero) entropies of the pure states.",
    }
    return grade(value, expected, what, cases, tol=1e-3)


def _chi_cases(seed: int) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """The ensembles :func:`check_chi_code` tries: ``(description, probs, states)``."""
    rng = np.random.default_rng(seed)
    cases = [
        (
            "two orthogonal qubit states |0⟩, |1⟩ with p = (0.5, 0.5)",
            np.array([0.5, 0.5]),
            np.array([np.diag([1.0, 0.0]), np.diag([0.0, 1.0])], dtype=complex),
        ),
        ("one state only (p = 1)", np.array([1.0]), np.array([np.eye(2) / 2], dtype=complex)),
    ]
    for name, d, ranks in (
        ("three random pure qubit states", 2, (1, 1, 1)),
        ("four random mixed qubit states", 2, (2, 2, 2, 2)),
        ("three random two-qubit states of ranks 1, 2 and 3", 4, (1, 2, 3)),
        ("five random qutrit states, pure and mixed", 3, (1, 3, 2, 1, 3)),
    ):
        p = rng.dirichlet(np.ones(len(ranks)))
        cases.append((name, p, np.array([random_density(rng, d, r) for r in ranks])))
    return cases


def _entropy_slip(rho: np.ndarray, *, log=np.log2, diagonal: bool = False) -> float:
    """Entropy of ``rho``'s eigenvalues (or its diagonal) with the logarithm ``log``."""
    lam = np.diag(rho).real if diagonal else np.linalg.eigvalsh(rho)
    lam = lam[lam > 1e-12]
    return float(-(lam * log(lam)).sum())


def check_chi_code(fn, *, seed: int = 0) -> Feedback:
    """Code-graded: the reader's ``my_chi(probs, states) -> float``, the Holevo quantity
    ``χ = S(Σ_x p_x ρ_x) − Σ_x p_x S(ρ_x)`` in bits (``probs``: shape (m,); ``states``: shape
    (m, d, d)), on six seeded ensembles (d = 2 to 4, pure and mixed), against
    :func:`qring_edu.holevo_chi` (1e-6). :func:`qring_edu.holevo_chi` and
    :func:`qring_edu.von_neumann_entropy` are switched off while it runs.

    Examples
    --------
    >>> import numpy as np
    >>> def entropy(rho):
    ...     lam = np.linalg.eigvalsh(rho)
    ...     lam = lam[lam > 1e-12]
    ...     return float(-(lam * np.log2(lam)).sum())
    >>> def my_chi(probs, states):
    ...     average = np.einsum("x,xij->ij", probs, states)
    ...     return entropy(average) - sum(p * entropy(r) for p, r in zip(probs, states))
    >>> check_chi_code(my_chi).passed
    True
    """
    what = "my_chi(probs, states)"
    fb = not_a_function(fn, what)
    if fb is not None:
        return fb
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        return bad_parameters(ValueError(f"seed must be an integer >= 0, got {seed!r}"))
    for i, (name, p, rhos) in enumerate(_chi_cases(int(seed))):
        want = holevo_chi(p, rhos)
        off = ("holevo_chi", "von_neumann_entropy")
        got, fb = call_reader(fn, p.copy(), rhos.copy(), name=what, case=name, forbid=off)
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
        avg = np.einsum("x,xij->ij", p, rhos)
        mean_s = [_entropy_slip(r) for r in rhos]
        s_avg = _entropy_slip(avg)
        slips = {
            want * math.log(2): "χ in nats: use np.log2, information in this book is in bits.",
            _entropy_slip(avg, diagonal=True)
            - sum(px * _entropy_slip(r, diagonal=True) for px, r in zip(p, rhos)): "computed "
            "from the diagonals of the matrices; S(ρ) uses the eigenvalues (np.linalg.eigvalsh), "
            "and a diagonal is a spectrum only in the eigenbasis.",
            s_avg: "S(Σ p_x ρ_x) alone: subtract the average entropy of the states, Σ p_x S(ρ_x) "
            "(it is 0 only for pure states).",
            s_avg - float(np.mean(mean_s)): "subtracts the plain mean of the S(ρ_x); weight each "
            "by its probability p_x.",
            _entropy_slip(rhos.mean(axis=0)) - float(np.dot(p, mean_s)): "uses the plain mean "
            "of the states; the average state is Σ p_x ρ_x, weighted.",
            shannon_entropy(p): "H(X), the entropy of the probabilities, not of the states.",
            -want: "χ with the wrong sign: χ = S(average) − Σ p_x S(ρ_x) ≥ 0.",
        }
        said = f"on {name} you returned {value:.6g}, expected {want:.6g}."
        cases = {k: f"{said} That is {h}" for k, h in slips.items()}
        cases[...] = (
            f"{said} Form the average state Σ p_x ρ_x, take the entropy of its eigenvalues, "
            "and subtract Σ p_x S(ρ_x)."
        )
        return grade(value, None, what, cases, tol=1e-6)
    return passed(
        f"{what}: correct on all six ensembles (up to {max(len(c[1]) for c in _chi_cases(0))} "
        "states, dimensions 2 to 4)."
    )


@checker
def check_two_state_chi(answer, overlap: float = 0.6) -> Feedback:
    """χ of two equiprobable pure states with overlap ``c = |⟨ψ0|ψ1⟩|`` (bits), tolerance 1e-3.
    Reference: :func:`qring_edu.holevo.two_state_chi` = h((1 + c)/2).

    Examples
    --------
    >>> check_two_state_chi(0.8113, overlap=0.5).passed
    True
    """
    expected = two_state_chi(overlap)
    acc = two_state_accessible(overlap)
    what = f"χ of two pure states with overlap c = {overlap:g}"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    c = float(overlap)
    eigen = f"{value:g} is an eigenvalue of the average state, not its entropy."
    cases = {
        acc: f"{value:g} is the accessible information (Helstrom measurement), "
        "which is smaller than χ.",
        (1 - c) / 2: eigen,
        (1 + c) / 2: eigen,
        1 - c: f"{value:g} is 1 − c is not an entropy; the eigenvalues of the average state "
        "are (1 ± c)/2.",
        1.0: f"{value:g} is the entropy of the label, H(X); χ is smaller when the states overlap.",
        expected: f"correct, h((1 + c)/2) = {expected:.4f} bit.",
        ...: f"{value:g} is not right (tolerance 1e-3). The average state has "
        "eigenvalues (1 ± c)/2.",
    }
    return grade(value, expected, what, cases, tol=1e-3)


# -- The entanglement-assisted bound ---------------------------------------------------------------
@checker
def check_max_bits(answer, n_qubits: int) -> Feedback:
    """The most classical bits ``n_qubits`` qubits sent can carry (error-free) when the parties
    may share any entanglement in advance: ``2 n`` (exact integer answer).

    Examples
    --------
    >>> check_max_bits(4, 2).passed
    True
    """
    n = check_int(n_qubits, "n_qubits", 1)
    what = f"bits carried by {n} qubit{'s' if n > 1 else ''} with pre-shared entanglement"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    if value > 2 * n and value not in (2**n, 4**n):
        return failed(
            f"{what}: {value:g} exceeds the entanglement-assisted Holevo bound: "
            "χ ≤ S(Q) + S(B) − (S(B) − S(Q)) ≤ 2n."
        )
    cases = {
        n: f"{value:g} is the limit *without* entanglement (Holevo). "
        "Pre-shared pairs help: think of superdense coding.",
        2**n if n > 1 else None: f"{value:g} counts basis states of n qubits, not bits; bits "
        "are the log2 of the number of distinguishable messages.",
        4**n: f"{value:g} is the number of messages (4^n), not the number of bits.",
        2 * n: f"correct, 2n = {2 * n} bits (superdense coding reaches it; the "
        "entanglement-assisted Holevo bound forbids more).",
        ...: f"{value:g} is not right. How many bits does one qubit carry in superdense coding?",
    }
    return grade(value, 2 * n, what, cases)


# -- Dense coding with noisy pairs -----------------------------------------------------------------
@checker
def check_dense_capacity(answer, pair_fidelity: float = 0.9) -> Feedback:
    """Dense-coding capacity (bits per qubit sent) of the isotropic pair of fidelity
    ``pair_fidelity``: ``2 − H(F, (1−F)/3, (1−F)/3, (1−F)/3)``. Tolerance 1e-3.

    Examples
    --------
    >>> check_dense_capacity(1.6344, pair_fidelity=0.95).passed
    True
    """
    expected = isotropic_capacity(pair_fidelity)
    F = float(pair_fidelity)
    what = f"dense-coding capacity at F = {F:g}"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    p = (1 - F) / 3
    wrong_h = -(F * math.log2(F) if F > 0 else 0.0) - (3 * p * math.log2(p) if p > 0 else 0.0)
    h = -F * math.log2(F) - (1 - F) * math.log2(1 - F) if 0 < F < 1 else 0.0
    cases = {
        wrong_h: f"{value:g} is the entropy H(F, (1−F)/3 ×3) = S(ρ_AB); the capacity "
        "is log2 d_A + S(ρ_B) − S(ρ_AB) = 2 − H.",
        2 - h: f"{value:g} uses the binary entropy h(F); the noise has four "
        "outcomes (I, X, Y, Z), so use H(F, (1−F)/3, (1−F)/3, (1−F)/3).",
        expected: f"correct, {expected:.4f} bits per qubit.",
        ...: f"{value:g} is not right (tolerance 1e-3). Use "
        "C = 2 − H(F, (1−F)/3, (1−F)/3, (1−F)/3).",
    }
    return grade(value, expected, what, cases, tol=1e-3)


# -- POVMs -----------------------------------------------------------------------------------------
def _povm_elements(answer, d: int) -> tuple[list[np.ndarray] | None, str]:
    """Turn the answer into a list of d x d complex arrays, or explain why not."""
    if isinstance(answer, (str, bytes, dict, set)) or isinstance(answer, bool):
        return None, (
            f"expected a list of {d}x{d} matrices (NumPy arrays or nested lists), "
            f"got {type(answer).__name__}."
        )
    if isinstance(answer, np.ndarray):
        if answer.ndim != 3:
            return None, (
                f"expected an array of shape (m, {d}, {d}) — m matrices — got shape {answer.shape}."
            )
        items = list(answer)
    else:
        try:
            items = list(answer)
        except TypeError:
            return None, f"expected a list of {d}x{d} matrices, got {type(answer).__name__}."
    if not items:
        return None, "a POVM needs at least one element; the list is empty."
    elems = []
    for i, item in enumerate(items):
        data = getattr(item, "data", item)  # Qiskit Operator / DensityMatrix
        try:
            arr = np.asarray(data, dtype=complex)
        except (TypeError, ValueError):
            return None, f"element {i} is not a matrix of numbers."
        if arr.shape != (d, d):
            return None, f"element {i} has shape {arr.shape}; every element must be {d}x{d}."
        if not np.all(np.isfinite(arr)):
            return None, f"element {i} contains NaN or Inf."
        elems.append(arr)
    return elems, ""


@checker
def check_povm(
    answer, d: int = 2, *, ensemble: str | None = None, optimal: bool = False
) -> Feedback:
    """Is ``answer`` a POVM on ``C^d``: a list (or array of shape (m, d, d)) of Hermitian, positive
    semidefinite d x d matrices summing to the identity (tolerance 1e-6)?

    With ``ensemble`` (``"BB84"`` or ``"trine"``) it also reports the mutual information the POVM
    extracts (:func:`qring_edu.mutual_information`); with ``optimal=True`` it must reach the
    accessible information (:func:`qring_edu.accessible_information`) to within 1e-3.

    Examples
    --------
    >>> import numpy as np
    >>> z_basis = [np.diag([1, 0]), np.diag([0, 1])]
    >>> check_povm(z_basis)
    Feedback(passed=True, message='POVM on C^2: valid, 2 Hermitian positive elements summing to I.')
    >>> check_povm(z_basis, ensemble="BB84", optimal=True).passed
    True
    """
    d = check_int(d, "d", 1)
    if ensemble is not None:
        check_choice(ensemble, "ensemble", tuple(_ENSEMBLES))
    what = f"POVM on C^{d}" + (f" for the {ensemble} ensemble" if ensemble else "")
    if answer is None:
        return not_attempted(what)
    elems, why = _povm_elements(answer, int(d))
    if elems is None:
        return failed(f"{what}: {why}")
    for i, e in enumerate(elems):
        dev = float(np.abs(e - e.conj().T).max())
        if dev > 1e-6:
            return failed(
                f"{what}: element {i} is not Hermitian (E = E† fails by {dev:.2g}); "
                "POVM elements are Hermitian."
            )
        low = float(np.linalg.eigvalsh((e + e.conj().T) / 2).min())
        if low < -1e-6:
            return failed(
                f"{what}: element {i} has a negative eigenvalue ({low:.3g}); POVM "
                "elements must be positive semidefinite, or some outcome would have "
                "negative probability."
            )
    total = sum(elems)
    dev = float(np.abs(total - np.eye(d)).max())
    if dev > 1e-6:
        tr = float(np.trace(total).real)
        return failed(
            f"{what}: the elements sum to a matrix that differs from the identity by "
            f"up to {dev:.3g} (trace {tr:.4g}, should be {d}); probabilities would not "
            "add up to 1. Rescale the elements."
        )
    if ensemble is None:
        return passed(f"{what}: valid, {len(elems)} Hermitian positive elements summing to I.")
    ens = _ENSEMBLES[ensemble]()
    if ens.dim != d:
        return bad_parameters(
            ValueError(f"the {ensemble} ensemble lives in dimension {ens.dim}, not d = {d}")
        )
    info = mutual_information(*ens, np.stack(elems))
    if not optimal:
        return passed(
            f"{what}: valid; it extracts I = {info:.4f} bit from the {ensemble} ensemble."
        )
    best = accessible_information(*ens)
    if info >= best - 1e-3:
        return passed(
            f"{what}: valid and optimal, I = {info:.4f} bit = the accessible information."
        )
    return failed(
        f"{what}: valid, but it extracts only I = {info:.4f} bit; the best POVM reaches "
        f"{best:.4f}. Hint: for the trine, let each outcome rule out one state."
    )


# -- Step checkers of the reasoning exercises ------------------------------------------------------
@checker
def check_ea_entropy_bound(
    answer, n_qubits: int = 3, bob_entropy: float = 5.0, *, which: str = "average"
) -> Feedback:
    """A step of the entanglement-assisted bound: Alice sends ``n_qubits`` qubits Q to Bob, whose half
    B has ``S(ρ^B) = bob_entropy`` bits. ``which="average"``: the largest ``S(σ)`` of Bob's average
    state, ``n + S(ρ^B)`` (subadditivity); ``which="each"``: the smallest ``S(σ_x)``,
    ``max(S(ρ^B) − n, 0)`` (Araki–Lieb). Tolerance 1e-6.

    Examples
    --------
    >>> check_ea_entropy_bound(7, n_qubits=2, bob_entropy=5).passed
    True
    >>> check_ea_entropy_bound(3, n_qubits=2, bob_entropy=5, which="each").passed
    True
    """
    n = int(n_qubits)
    if isinstance(n_qubits, bool) or n != n_qubits or n < 1:
        raise ValueError(f"n_qubits must be an integer >= 1, got {n_qubits!r}")
    sb = float(bob_entropy)
    if not math.isfinite(sb) or sb < 0:
        raise ValueError(f"bob_entropy must be a finite number >= 0, got {bob_entropy!r}")
    if which not in ("average", "each"):
        raise ValueError(f"which must be 'average' or 'each', got {which!r}")
    if which == "average":
        what = f"largest S(σ) of Bob's average state (n = {n}, S(ρ^B) = {sb:g})"
        expected = n + sb
    else:
        what = f"smallest S(σ_x) of Bob's state for one message (n = {n}, S(ρ^B) = {sb:g})"
        expected = max(sb - n, 0.0)
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    if which == "average":
        cases = {
            sb: f"{value:g} is S(ρ^B) alone; Q adds up to n more bits.",
            2 * n + sb: f"{value:g}: n qubits have entropy at most n (not 2n).",
            n: f"{value:g} forgets B: σ lives on Q and B, so S(σ) ≤ S(σ^Q) + S(σ^B).",
            expected: f"correct, S(σ) ≤ S(σ^Q) + S(σ^B) ≤ n + S(ρ^B) = {expected:g} "
            "(subadditivity; Alice cannot change B).",
        }
    else:
        cases = {
            sb + n: f"{value:g} is the upper bound of the average state; here you "
            "need a lower bound: S(QB) ≥ |S(B) − S(Q)|.",
            sb: f"{value:g} assumes Q adds no correlation. Entanglement between "
            "Q and B can lower the joint entropy by up to n: S(QB) ≥ S(B) − S(Q).",
            0.0: "0 is the trivial bound; Araki–Lieb gives more, S(σ_x) ≥ S(σ_x^B) − S(σ_x^Q).",
            expected: f"correct, S(σ_x) ≥ S(σ_x^B) − S(σ_x^Q) ≥ S(ρ^B) − n = "
            f"{expected:g} (Araki–Lieb).",
        }
    cases[...] = f"{value:g} is not right (tolerance 1e-6)."
    return grade(value, expected, what, cases, tol=1e-6)


@checker
def check_pair_entropy(answer, pair_fidelity: float = 0.85) -> Feedback:
    """``S(ρ_AB)`` in bits of the isotropic pair of fidelity F: its eigenvalues are
    ``F, (1−F)/3, (1−F)/3, (1−F)/3``. Reference: :func:`qring_edu.von_neumann_entropy` of
    :func:`qring_edu.states.isotropic_state`. Tolerance 1e-3.

    Examples
    --------
    >>> check_pair_entropy(0.3656, pair_fidelity=0.95).passed
    True
    """
    expected = von_neumann_entropy(isotropic_state(pair_fidelity))
    F = float(pair_fidelity)
    what = f"S(ρ_AB) of the isotropic pair at F = {F:g}"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    cases = {
        2 - expected: f"{value:g} is the capacity C = 2 − S(ρ_AB), not the entropy.",
        binary_entropy(F) if 0 < F < 1 else None: f"{value:g} is h(F): the state has four "
        "eigenvalues, F and (1−F)/3 three times.",
        1.0: "1 is S(ρ_B) (Bob's half is I/2); the question asks for the entropy of the pair.",
        expected: f"correct, {expected:.4f} bit. With S(ρ_B) = 1 the capacity is "
        f"C = 1 + 1 − {expected:.4f} = {2 - expected:.4f} bits per qubit.",
        ...: f"{value:g} is not right (tolerance 1e-3). Use H(F, (1−F)/3, (1−F)/3, (1−F)/3).",
    }
    return grade(value, expected, what, cases, tol=1e-3)


def _dephased_pair(F: float) -> np.ndarray:
    """``F Φ+ + (1 − F) Φ−``: a Bell pair whose qubit suffered Z with probability 1 − F."""
    plus, minus = bell_state("phi+"), bell_state("phi-")
    return F * np.outer(plus, plus.conj()) + (1 - F) * np.outer(minus, minus.conj())


@checker
def check_dephased_capacity(answer, pair_fidelity: float = 0.7) -> Feedback:
    """Dense-coding capacity (bits per qubit sent) of the dephased pair
    ``F Φ+ + (1 − F) Φ−`` (Z errors only): ``2 − h(F)``. Reference:
    :func:`qring_edu.dense_coding_capacity` of that state. Tolerance 1e-3.

    Examples
    --------
    >>> check_dephased_capacity(1.531, pair_fidelity=0.9).passed
    True
    """
    F = float(pair_fidelity)
    if not 0.0 <= F <= 1.0:
        raise ValueError(f"pair_fidelity must be in [0, 1], got {pair_fidelity!r}")
    expected = dense_coding_capacity(_dephased_pair(F))
    what = f"dense-coding capacity of the dephased pair at F = {F:g}"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    cases = {
        isotropic_capacity(F) if 0.25 <= F else None: f"{value:g} is the isotropic pair's "
        "capacity; this pair has only two eigenvalues, F and 1 − F.",
        binary_entropy(F): f"{value:g} is S(ρ_AB) = h(F); the capacity is 1 + S(ρ_B) − S(ρ_AB).",
        expected: f"correct, 2 − h(F) = {expected:.4f} bits per qubit: never below 1, "
        "and equal to 1 only at F = 1/2, where the pair is separable.",
        ...: f"{value:g} is not right (tolerance 1e-3). C = log2 d_A + S(ρ_B) − "
        "S(ρ_AB), with S(ρ_B) = 1.",
    }
    return grade(value, expected, what, cases, tol=1e-3)


@checker
def check_cut_set_qubits(answer, P: int = 16, d: int = 340_000_000, bits: int = 16) -> Feedback:
    """The fewest qubits that must enter each worker in *any* all-reduce of ``d`` words of
    ``bits`` bits on ``P`` workers that receives no classical bits: ``d b / 2``
    (:func:`qring_edu.costmodel.allreduce_cut_bound`, ``.qubits``). Relative tolerance 1e-6.

    Examples
    --------
    >>> check_cut_set_qubits(8000, P=4, d=1000).passed
    True
    """
    cut = allreduce_cut_bound(P, d, bits)
    what = f"qubits into each worker, any protocol (P = {P}, d = {d:,}, b = {bits})"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    ring = f"{value:,.0f} comes from the ring's schedule; the cut-set bound holds for any "
    cases = {
        cut.superdense_ring: f"{value:,.0f} is what the superdense ring sends, (P−1)/P·d·b; the "
        "bound asks what *every* protocol must send, and is lower.",
        cut.information: f"{value:,.0f} is the information d·b the worker must learn; with "
        "entanglement each qubit carries up to 2 bits.",
        (cut.classical_ring / 2, cut.classical_ring): ring + "protocol: count what the worker "
        "must learn.",
        cut.qubits: f"correct, d·b/2 = {cut.qubits:,.0f}: the worker must learn d·b "
        "bits about the others' inputs and each qubit brings at most 2. The "
        f"superdense ring sends {cut.superdense_ring:,} "
        f"({cut.superdense_ratio:.3f} times as many).",
        ...: f"{value:,.6g} is not right. How many bits must the worker learn about "
        "the others' inputs, and how many can one qubit bring?",
    }
    return grade(value, cut.qubits, what, cases, rel=1e-6)


@checker
def check_vga_bits_in(answer, P: int = 16, d: int = 340_000_000, bits: int = 16) -> Feedback:
    """Classical bits each worker receives in VGA's GHZ sum (every worker broadcasts its d
    announcements of b bits): ``(P − 1) d b`` (:func:`qring_edu.costmodel.allreduce_cut_bound`,
    ``.vga_bits_in``). Relative tolerance 1e-6.

    Examples
    --------
    >>> check_vga_bits_in(48000, P=4, d=1000).passed
    True
    """
    cut = allreduce_cut_bound(P, d, bits)
    what = f"classical bits into each worker in VGA (P = {P}, d = {d:,}, b = {bits})"
    value, fb = as_number(answer, what)
    if fb is not None:
        return fb
    cases = {
        cut.vga_bits_out: f"{value:,.0f} is what a worker broadcasts (d·b); it hears the "
        "other P − 1 workers' announcements.",
        P * cut.information: f"{value:,.0f} counts the worker's own announcement too.",
        cut.vga_bits_in: f"correct, (P − 1)·d·b = {cut.vga_bits_in:,} bits, "
        f"{cut.vga_bits_in / cut.information:g} times the cut-set floor d·b: no "
        "online qubit, and far more classical bits than the floor.",
        ...: f"{value:,.6g} is not right. Each of the other P − 1 workers announces "
        "d words of b bits.",
    }
    return grade(value, cut.vga_bits_in, what, cases, rel=1e-6)
