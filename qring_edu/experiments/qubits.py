"""Experiments of chapter 0, *Qubits for this book* (book/00_qubits.ipynb): one qubit measured
in the Z or the X basis, and a Bell pair after Alice's gates, measured by both parties.

Conventions of :mod:`qring_edu.states`: qubit 0 is Alice's A and the least significant bit
(``|a⟩_A |b⟩_B`` at index ``a + 2 b``); in the X basis outcome 0 is ``|+⟩`` and 1 is ``|−⟩``.
Angles in radians; ``shots``: 1 to :data:`MAX_SHOTS` draws of a generator seeded by ``seed``.
"""

from __future__ import annotations

from dataclasses import field

import numpy as np

from .._result import result
from .._validate import check_choice, check_fidelity, check_float, check_int, seed_sequence
from ..holevo import von_neumann_entropy
from ..states import (
    BELL_LABELS,
    PAULIS,
    bell_state,
    embed_operator,
    isotropic_state,
    partial_trace,
    pure_qubit,
)

__all__ = [
    "BASES",
    "OUTCOME_LABELS",
    "BELL_NAMES",
    "MAX_SHOTS",
    "QubitMeasurement",
    "measure_qubit",
    "BellPairRun",
    "run_bell_pair",
]

#: The measurement bases of the chapter: the computational basis and the Hadamard basis.
BASES = ("Z", "X")
#: What outcome 0 and outcome 1 mean in each basis.
OUTCOME_LABELS = {"Z": ("0", "1"), "X": ("+", "−")}
#: Printed names of the Bell states of :data:`qring_edu.states.BELL_LABELS`.
BELL_NAMES = {"phi+": "Φ+", "phi-": "Φ−", "psi+": "Ψ+", "psi-": "Ψ−"}
#: Most shots one call samples (each shot is one draw of the generator).
MAX_SHOTS = 1_000_000
# Rows are the bras of each basis: ⟨0|, ⟨1| and ⟨+|, ⟨−| (H).
_BRAS = {"Z": np.eye(2, dtype=complex), "X": np.array([[1, 1], [1, -1]], dtype=complex) / 2**0.5}


def _shots_and_rng(shots, seed) -> tuple[int, np.random.Generator]:
    shots = check_int(shots, "shots", 1, MAX_SHOTS)
    return shots, np.random.default_rng(seed_sequence(seed))


# -- One qubit -------------------------------------------------------------------------------------
@result(show=("p0", "f0"))
class QubitMeasurement:
    """One qubit ``cos(θ/2)|0⟩ + e^{iφ} sin(θ/2)|1⟩`` (``state``, (2,)) measured ``shots`` times
    in ``basis``: ``probabilities`` (2,) by the Born rule and sampled ``counts`` (2,).

    Examples
    --------
    >>> import numpy as np
    >>> measure_qubit(np.pi / 3, 0.0, shots=1000, seed=1)
    QubitMeasurement(theta=1.047, phi=0, basis='Z', shots=1000, p0=0.75, f0=0.73)
    """

    theta: float
    phi: float
    basis: str
    shots: int
    state: np.ndarray = field(repr=False)
    probabilities: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)

    p0 = property(lambda self: float(self.probabilities[0]), doc="Probability of outcome 0.")
    f0 = property(lambda self: float(self.counts[0] / self.shots), doc="Frequency of outcome 0.")
    frequencies = property(lambda self: self.counts / self.shots, doc="Sampled, shape (2,).")
    labels = property(lambda self: OUTCOME_LABELS[self.basis], doc="The outcomes' names.")

    standard_errors = property(
        lambda self: np.sqrt(self.probabilities * (1 - self.probabilities) / self.shots),
        doc="Standard error ``sqrt(p(1 − p)/shots)`` of each sampled frequency, shape (2,).",
    )

    @property
    def bloch(self) -> np.ndarray:
        """The Bloch vector ``(sin θ cos φ, sin θ sin φ, cos θ)``, shape (3,)."""
        t, f = self.theta, self.phi
        return np.array([np.sin(t) * np.cos(f), np.sin(t) * np.sin(f), np.cos(t)])


def measure_qubit(
    theta: float, phi: float = 0.0, *, basis: str = "Z", shots: int = 1000, seed=0
) -> QubitMeasurement:
    """Measure :func:`qring_edu.states.pure_qubit` ``(theta, phi)`` ``shots`` times in ``basis``
    (``"Z"`` or ``"X"``): ``p_k = |⟨e_k|ψ⟩|²``, so ``p_0 = cos²(θ/2)`` in Z and
    ``p_0 = (1 + sin θ cos φ)/2`` in X; independent draws.

    Examples
    --------
    >>> import numpy as np
    >>> run = measure_qubit(np.pi / 2, np.pi / 2, basis="X", shots=100, seed=0)
    >>> run.probabilities.round(12) + 0.0     # |+i⟩ gives a fair coin in the X basis
    array([0.5, 0.5])
    """
    theta = check_float(theta, "theta")
    phi = check_float(phi, "phi")
    basis = check_choice(basis, "basis", BASES)
    shots, rng = _shots_and_rng(shots, seed)
    psi = pure_qubit(theta, phi)
    probs = np.abs(_BRAS[basis] @ psi) ** 2
    probs = probs / probs.sum()  # rounding only: the basis is orthonormal and ψ has norm 1
    counts = np.bincount(rng.choice(2, size=shots, p=probs), minlength=2)
    return QubitMeasurement(theta, phi, basis, shots, psi, probs, counts)


# -- A Bell pair after Alice's gates ---------------------------------------------------------------
@result(show=("name", "agreement", "sampled_agreement"))
class BellPairRun:
    """The isotropic pair of fidelity ``pair_fidelity`` after Alice applies ``X^x`` then ``Z^z``
    to her qubit A (``rho``, (4, 4)), both qubits measured ``shots`` times in ``basis``:
    ``probabilities[a, b]`` and sampled ``counts[a, b]`` of Alice's a and Bob's b.

    Examples
    --------
    >>> run_bell_pair(1, 0, shots=1000, seed=0)      # X on A: |Φ+⟩ becomes |Ψ+⟩
    BellPairRun(x=1, z=0, pair_fidelity=1, basis='Z', shots=1000, name='Ψ+', agreement=0, sampled_agreement=0)
    """

    x: int
    z: int
    pair_fidelity: float
    basis: str
    shots: int
    rho: np.ndarray = field(repr=False)
    probabilities: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)

    label = property(
        lambda self: BELL_LABELS[2 * self.x + self.z], doc="The Bell state ``Z^z X^x |Φ+⟩``."
    )
    name = property(lambda self: BELL_NAMES[self.label], doc="``label`` printed (``Φ+`` …).")

    @property
    def bell_weights(self) -> np.ndarray:
        """``⟨β|ρ|β⟩`` for the four Bell states in the order of ``BELL_LABELS``, shape (4,)."""
        return np.array(
            [(bell_state(k).conj() @ self.rho @ bell_state(k)).real for k in BELL_LABELS]
        )

    agreement = property(lambda self: float(np.trace(self.probabilities)), doc="P(a = b).")
    sampled_agreement = property(
        lambda self: float(np.trace(self.counts) / self.shots), doc="Share of shots with a = b."
    )
    alice_ones = property(
        lambda self: float(self.counts[1, :].sum() / self.shots), doc="Share of shots with a = 1."
    )
    bob_ones = property(
        lambda self: float(self.counts[:, 1].sum() / self.shots), doc="Share of shots with b = 1."
    )
    alice_state = property(lambda self: partial_trace(self.rho, [0]), doc="``Tr_B ρ``, (2, 2).")
    bob_state = property(lambda self: partial_trace(self.rho, [1]), doc="``Tr_A ρ``, (2, 2).")
    entropy = property(lambda self: von_neumann_entropy(self.rho), doc="``S(ρ_AB)``, bits.")
    alice_entropy = property(
        lambda self: von_neumann_entropy(self.alice_state), doc="``S(ρ_A)``: 1 bit, always."
    )


def run_bell_pair(
    x: int = 0,
    z: int = 0,
    *,
    pair_fidelity: float = 1.0,
    basis: str = "Z",
    shots: int = 1000,
    seed=0,
) -> BellPairRun:
    """Alice applies ``X^x`` then ``Z^z`` (x, z in {0, 1}) to her half of the isotropic pair
    ``ρ_F`` (``pair_fidelity`` F in [1/4, 1]); both measure in ``basis``, ``shots`` times: the
    joint probabilities are the diagonal of ``(B ⊗ B) ρ (B ⊗ B)†``, ``B = I`` (Z) or ``H`` (X).

    Examples
    --------
    >>> run = run_bell_pair(shots=1000, seed=3)
    >>> run.name, run.agreement, run.sampled_agreement      # |Φ+⟩: equal bits, always
    ('Φ+', 1.0, 1.0)
    >>> round(run.alice_entropy, 12)                         # but each bit alone is random
    1.0
    """
    x = check_int(x, "x", 0, 1)
    z = check_int(z, "z", 0, 1)
    F = check_fidelity(pair_fidelity)
    basis = check_choice(basis, "basis", BASES)
    shots, rng = _shots_and_rng(shots, seed)
    gate = np.linalg.matrix_power(PAULIS["Z"], z) @ np.linalg.matrix_power(PAULIS["X"], x)
    U = embed_operator(gate, [0], 2)
    rho = U @ isotropic_state(F) @ U.conj().T
    B = np.kron(_BRAS[basis], _BRAS[basis])  # the same basis on both qubits
    probs = np.clip(np.diag(B @ rho @ B.conj().T).real, 0.0, None)
    probs = probs / probs.sum()
    joint = rng.choice(4, size=shots, p=probs)
    counts = np.bincount(joint, minlength=4).reshape(2, 2).T  # [a, b] from index a + 2 b
    return BellPairRun(x, z, F, basis, shots, rho, probs.reshape(2, 2).T, counts)
