"""Experiments of chapter 0, *Qubits for this book*: one qubit measured in a chosen basis, and a
Bell pair after Alice's gates, measured by both parties.

Pure NumPy on the core helpers of :mod:`qring_edu.states` (states, the partial trace) and the
entropy of :mod:`qring_edu.holevo`; results are frozen dataclasses (figures:
:mod:`qring_edu.figures.qubits`, widgets: :mod:`qring_edu.widgets.qubits`).

* :func:`measure_qubit` — the Born rule of ``cos(θ/2)|0⟩ + e^{iφ} sin(θ/2)|1⟩`` in the Z or the X
  basis, and outcomes sampled with a seeded NumPy generator;
* :func:`run_bell_pair` — ``|Φ+⟩`` (or the isotropic pair of fidelity F) after Alice applies
  ``X^x`` and then ``Z^z`` to her qubit, both qubits measured in the Z or the X basis: the joint
  outcome probabilities, sampled counts, how often the two bits agree, the reduced states and
  the entropies.

Conventions of :mod:`qring_edu.states`: qubit 0 is Alice's A and the least significant bit, so
the amplitude of ``|a⟩_A |b⟩_B`` sits at index ``a + 2 b``. A measurement in the X basis is a
Hadamard on the qubit followed by a measurement in the Z basis: outcome 0 is ``|+⟩``, outcome 1
is ``|−⟩``. Angles are in radians.
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

_H = np.array([[1, 1], [1, -1]], dtype=complex) / np.sqrt(2)
#: Rows are the bras of each basis: ⟨0|, ⟨1| and ⟨+|, ⟨−|.
_BRAS = {"Z": np.eye(2, dtype=complex), "X": _H}


def _shots_and_rng(shots, seed) -> tuple[int, np.random.Generator]:
    shots = check_int(shots, "shots", 1, MAX_SHOTS)
    return shots, np.random.default_rng(seed_sequence(seed))


# -- One qubit -------------------------------------------------------------------------------------
@result(show=("p0", "f0"))
class QubitMeasurement:
    """One qubit ``cos(θ/2)|0⟩ + e^{iφ} sin(θ/2)|1⟩`` measured ``shots`` times in ``basis``.

    Attributes
    ----------
    theta, phi : float
        Bloch angles, radians.
    basis : str
        ``"Z"`` (outcomes ``|0⟩``, ``|1⟩``) or ``"X"`` (outcomes ``|+⟩``, ``|−⟩``).
    shots : int
    state : numpy.ndarray, shape (2,), complex
        The state vector.
    probabilities : numpy.ndarray, shape (2,)
        Born rule: ``|⟨e_k|ψ⟩|²`` for the basis vectors ``e_0``, ``e_1``.
    counts : numpy.ndarray, shape (2,), int
        How often each outcome was sampled; they sum to ``shots``.

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

    @property
    def p0(self) -> float:
        """Probability of outcome 0 (``|0⟩`` or ``|+⟩``)."""
        return float(self.probabilities[0])

    @property
    def f0(self) -> float:
        """Sampled frequency of outcome 0."""
        return float(self.counts[0] / self.shots)

    @property
    def frequencies(self) -> np.ndarray:
        """Sampled frequencies of the two outcomes, shape (2,)."""
        return self.counts / self.shots

    @property
    def standard_errors(self) -> np.ndarray:
        """Standard error ``sqrt(p(1 − p)/shots)`` of each sampled frequency, shape (2,)."""
        p = self.probabilities
        return np.sqrt(p * (1 - p) / self.shots)

    @property
    def bloch(self) -> np.ndarray:
        """The Bloch vector ``(sin θ cos φ, sin θ sin φ, cos θ)``, shape (3,)."""
        t, f = self.theta, self.phi
        return np.array([np.sin(t) * np.cos(f), np.sin(t) * np.sin(f), np.cos(t)])

    @property
    def labels(self) -> tuple[str, str]:
        """The outcomes' names in this basis (``"0", "1"`` or ``"+", "−"``)."""
        return OUTCOME_LABELS[self.basis]


def measure_qubit(
    theta: float, phi: float = 0.0, *, basis: str = "Z", shots: int = 1000, seed=0
) -> QubitMeasurement:
    """Measure ``cos(θ/2)|0⟩ + e^{iφ} sin(θ/2)|1⟩`` ``shots`` times in ``basis``.

    The probabilities follow the Born rule, ``p_k = |⟨e_k|ψ⟩|²`` with ``e_0, e_1 = |0⟩, |1⟩``
    (``basis="Z"``) or ``|+⟩, |−⟩`` (``basis="X"``): ``p_0 = cos²(θ/2)`` in Z and
    ``p_0 = (1 + sin θ cos φ)/2`` in X. The outcomes are drawn independently with
    ``numpy.random.default_rng(seed).choice(2, size=shots, p=p)``.

    Parameters
    ----------
    theta, phi : float
        Bloch angles in radians (:func:`qring_edu.states.pure_qubit`).
    basis : {"Z", "X"}
    shots : int
        1 to :data:`MAX_SHOTS`.
    seed : int, sequence of ints, SeedSequence, Generator or None

    Returns
    -------
    QubitMeasurement

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu.experiments.qubits import measure_qubit
    >>> run = measure_qubit(np.pi / 2, np.pi / 2, basis="X", shots=100, seed=0)
    >>> run.probabilities.round(12) + 0.0     # |+i⟩ gives a fair coin in the X basis
    array([0.5, 0.5])
    >>> int(run.counts.sum())
    100
    """
    theta = check_float(theta, "theta")
    phi = check_float(phi, "phi")
    basis = check_choice(basis, "basis", BASES)
    shots, rng = _shots_and_rng(shots, seed)
    psi = pure_qubit(theta, phi)
    probs = np.abs(_BRAS[basis] @ psi) ** 2
    probs = probs / probs.sum()  # rounding only: the basis is orthonormal and ψ has norm 1
    outcomes = rng.choice(2, size=shots, p=probs)
    return QubitMeasurement(
        theta=theta,
        phi=phi,
        basis=basis,
        shots=shots,
        state=psi,
        probabilities=probs,
        counts=np.bincount(outcomes, minlength=2),
    )


# -- A Bell pair after Alice's gates ---------------------------------------------------------------
@result(show=("name", "agreement", "sampled_agreement"))
class BellPairRun:
    """A shared pair after Alice applies ``X^x`` then ``Z^z`` to her qubit A (qubit 0), both
    qubits measured ``shots`` times in ``basis``.

    The pair starts as the isotropic state of fidelity ``pair_fidelity``
    (:func:`qring_edu.states.isotropic_state`; ``|Φ+⟩`` at F = 1).

    Attributes
    ----------
    x, z : int
        0 or 1: whether Alice applied X, and then Z.
    pair_fidelity : float
    basis : str
        ``"Z"`` or ``"X"``, the same for both qubits.
    shots : int
    rho : numpy.ndarray, shape (4, 4), complex
        The pair's density matrix after Alice's gates (index ``a + 2 b``).
    probabilities : numpy.ndarray, shape (2, 2)
        ``probabilities[a, b]``: Alice's outcome a and Bob's outcome b.
    counts : numpy.ndarray, shape (2, 2), int
        Sampled joint outcomes, summing to ``shots``.

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

    @property
    def label(self) -> str:
        """The Bell state ``Z^z X^x`` maps ``|Φ+⟩`` to: ``BELL_LABELS[2 x + z]``."""
        return BELL_LABELS[2 * self.x + self.z]

    @property
    def name(self) -> str:
        """The printed name of :attr:`label` (``"Φ+"``, ``"Φ−"``, ``"Ψ+"``, ``"Ψ−"``)."""
        return BELL_NAMES[self.label]

    @property
    def bell_weights(self) -> np.ndarray:
        """``⟨β|ρ|β⟩`` for the four Bell states in the order of ``BELL_LABELS``, shape (4,)."""
        return np.array(
            [(bell_state(k).conj() @ self.rho @ bell_state(k)).real for k in BELL_LABELS]
        )

    @property
    def agreement(self) -> float:
        """Probability that Alice's and Bob's bits are equal."""
        return float(np.trace(self.probabilities))

    @property
    def sampled_agreement(self) -> float:
        """Fraction of the shots in which the two bits were equal."""
        return float(np.trace(self.counts) / self.shots)

    @property
    def alice_ones(self) -> float:
        """Sampled fraction of shots in which Alice's bit was 1."""
        return float(self.counts[1, :].sum() / self.shots)

    @property
    def bob_ones(self) -> float:
        """Sampled fraction of shots in which Bob's bit was 1."""
        return float(self.counts[:, 1].sum() / self.shots)

    @property
    def alice_state(self) -> np.ndarray:
        """Alice's reduced state ``Tr_B ρ``, shape (2, 2)."""
        return partial_trace(self.rho, [0])

    @property
    def bob_state(self) -> np.ndarray:
        """Bob's reduced state ``Tr_A ρ``, shape (2, 2)."""
        return partial_trace(self.rho, [1])

    @property
    def entropy(self) -> float:
        """``S(ρ_AB)`` in bits: 0 for a Bell state."""
        return von_neumann_entropy(self.rho)

    @property
    def alice_entropy(self) -> float:
        """``S(ρ_A)`` in bits: 1 for every isotropic pair, whatever Alice applied."""
        return von_neumann_entropy(self.alice_state)


def run_bell_pair(
    x: int = 0,
    z: int = 0,
    *,
    pair_fidelity: float = 1.0,
    basis: str = "Z",
    shots: int = 1000,
    seed=0,
) -> BellPairRun:
    """Alice applies ``X^x`` and then ``Z^z`` to her half of a shared pair; then Alice and Bob
    both measure their qubit in ``basis``, ``shots`` times.

    ``ρ = U ρ_F U†`` with ``U = Z^z X^x`` on qubit 0 (:func:`qring_edu.states.embed_operator`)
    and ``ρ_F`` = :func:`qring_edu.states.isotropic_state` ``(pair_fidelity)``. The joint
    probabilities are the diagonal of ``(B ⊗ B) ρ (B ⊗ B)†`` with ``B = I`` (Z basis) or ``B = H``
    (X basis); the joint outcomes are drawn with
    ``numpy.random.default_rng(seed).choice(4, size=shots, p=...)`` and split into Alice's bit
    ``a = i mod 2`` and Bob's ``b = i // 2``.

    Parameters
    ----------
    x, z : int
        0 or 1.
    pair_fidelity : float
        In [1/4, 1].
    basis : {"Z", "X"}
    shots : int
        1 to :data:`MAX_SHOTS`.
    seed : int, sequence of ints, SeedSequence, Generator or None

    Returns
    -------
    BellPairRun

    Examples
    --------
    >>> from qring_edu.experiments.qubits import run_bell_pair
    >>> run = run_bell_pair(shots=1000, seed=3)
    >>> run.name, run.agreement, run.sampled_agreement      # |Φ+⟩: equal bits, always
    ('Φ+', 1.0, 1.0)
    >>> round(run.alice_entropy, 12)                         # but each bit alone is random
    1.0
    >>> round(run_bell_pair(0, 1, basis="X").agreement, 12)  # |Φ−⟩: opposite in the X basis
    0.0
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
    return BellPairRun(
        x=x,
        z=z,
        pair_fidelity=F,
        basis=basis,
        shots=shots,
        rho=rho,
        probabilities=probs.reshape(2, 2).T,
        counts=counts,
    )
