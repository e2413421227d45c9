"""TieAudit_ε: sign-consistency auditing over a hidden matching (book/08_tieaudit.ipynb).

The server holds signs ``s in {±1}^P``, ``P = 2^n``; the client a private matching ``M`` of
``m`` disjoint pairs covering the fraction ``alpha = 2m/P`` of the coordinates (hidden-matching
papers count edges, ``alpha_BHM = alpha/2``). The client wants ``f``, the fraction of pairs
with ``s_i != s_j``, to ``±eps`` with probability ``>= 1 - delta``.

Protocols (``protocol=`` of :func:`tieaudit`)
---------------------------------------------
``"quantum"`` (one-way)
    Per copy the server sends ``|psi_s> = sum_i s_i |i>/sqrt(P)`` on ``n`` qubits (qubit 0 least
    significant); the client measures ``{(|i> ± |j>)/sqrt 2 : (i, j) in M} ∪ {|k> : k
    unmatched}`` and records ``Y = +1, -1, 0``: ``P(Y = ±1) = alpha (1 ± g)/2``, ``g = 1 - 2f``,
    ``E[Y^2] = alpha``. ``N`` copies cost ``n N`` qubits.
``"entanglement_assisted"`` (one-way)
    ``n`` Bell pairs per copy; the server applies ``diag(s)``, measures its halves in X and
    sends the bits ``x``; the client applies ``Z^x``: ``n N`` bits and ``n N`` ebits.
``"classical"`` (one-way)
    The signs of ``k = O(sqrt(P/alpha)/eps)`` shared-random coordinates
    (:func:`classical_subset_size`). Boolean hidden matching (Gavinsky et al.) reduces to
    TieAudit, so one-way classical protocols need ``Omega(sqrt(P/alpha))`` bits for ``alpha <=
    1/4`` and constant ``eps < 1/2`` (no ``1/eps`` factor is established).
``"two_message"``
    The client sends ``r`` sampled pairs, the server their disagreement bits:
    ``O(log(P)/eps^2)`` bits, at the price of revealing ``r`` pairs (:func:`two_message_bits`).

Channels (quantum protocols): ``channel=None`` is trusted and noiseless (``N`` copies from
:func:`tieaudit_copies`, ``f_hat = (1 - mean(Y)/alpha)/2``, interval ``f_hat ± eps``; these
plans, those of :mod:`qring_edu.experiments.tieaudit_plans` and the classical intervals assume
independent copies with a known ``eta``). A channel value is untrusted: each copy is a hidden
test (the all-agree string, ``f = 0``) with probability ``q = 1/2``, twirled by a secret random
``n``-qubit Clifford into a depolarising channel, ``eta = (P^2 F_e - 1)/(P^2 - 1)`` (``F_e``:
entanglement fidelity); the client reports :func:`tieaudit_interval` (Freedman), which holds
whatever the source does copy by copy (adapting, entangling the copies), given fresh secret
labels and twirls, trusted local operations and a known ``alpha``.

References: Bar-Yossef, Jayram, Kerenidis, SIAM J. Comput. 38 (2008) 366–384; Gavinsky, Kempe,
Kerenidis, Raz, de Wolf, SIAM J. Comput. 38 (2008) 1695–1708; Freedman, Ann. Probab. 3 (1975)
100–118.
"""

from __future__ import annotations

import math
from dataclasses import field

import numpy as np

from ._result import result
from ._validate import (
    as_numeric_array,
    check_choice,
    check_delta,
    check_float,
    check_int,
    generator,
)

__all__ = [
    "TIEAUDIT_PROTOCOLS",
    "TIEAUDIT_BOUNDS",
    "TEST_FRACTION",
    "MAX_COPIES",
    "Depolarizing",
    "Dephasing",
    "LocalDepolarizing",
    "DataOnlyAttack",
    "Estimate",
    "tieaudit",
    "tieaudit_interval",
    "tieaudit_copies",
    "tieaudit_cost",
    "classical_subset_size",
    "two_message_bits",
    "check_signs",
    "check_matching",
    "outcome_probabilities",
    "copy_y_law",
    "tieaudit_circuit",
]

#: Names accepted by ``tieaudit(protocol=...)``.
TIEAUDIT_PROTOCOLS = ("quantum", "entanglement_assisted", "classical", "two_message")
#: Names accepted by ``tieaudit_copies(bound=...)``.
TIEAUDIT_BOUNDS = ("bernstein", "hoeffding", "freedman")
#: Probability that a copy is a hidden test (1/2 minimises the worst-case Freedman width).
TEST_FRACTION = 0.5
#: Most copies :func:`tieaudit` simulates (counts fit in int64); larger runs are refused.
MAX_COPIES = 10**18
#: Largest ``log2 P`` of the formula functions (a size, not an array).
MAX_LOG2_P = 500


# -- Channels: small frozen values; the protocol twirls them into depolarising ones ----------
class _Channel:
    def eta(self, P: int) -> float:
        """Attenuation of ``E[Y]`` after the Clifford twirl: ``(P^2 F_e - 1)/(P^2 - 1)``."""
        x = float(P) ** -2
        return (self.entanglement_fidelity(P) - x) / (1.0 - x)


@result
class _Noise(_Channel):
    noise: float

    def __post_init__(self):
        object.__setattr__(self, "noise", check_float(self.noise, "noise", 0.0, 1.0, hi_open=True))


@result
class Depolarizing(_Noise):
    """The copy (or its ``n`` pairs) replaced by ``I/P`` with probability ``noise`` in ``[0,
    1)``: ``F_e = 1 - noise + noise/P^2``, ``eta = 1 - noise`` with or without the twirl.

    Examples
    --------
    >>> Depolarizing(0.2), Depolarizing(0.2).eta(8)
    (Depolarizing(noise=0.2), 0.8)
    """

    def entanglement_fidelity(self, P: int) -> float:
        return 1.0 - self.noise + self.noise * float(P) ** -2

    def eta(self, P: int) -> float:
        return 1.0 - self.noise


@result
class Dephasing(_Noise):
    """``Z`` on each of the ``n`` qubits with probability ``noise`` in ``[0, 1)``: ``F_e = (1 -
    noise)^n``. Untwirled, pair ``(i, j)`` keeps ``(1 - 2 noise)^|i XOR j|`` of its coherence.

    Examples
    --------
    >>> round(Dephasing(0.05).eta(2**10), 4)                  # twirled: about 0.95^10
    0.5987
    """

    def entanglement_fidelity(self, P: int) -> float:
        return (1.0 - self.noise) ** (int(P).bit_length() - 1)


@result
class LocalDepolarizing(_Channel):
    """Each qubit (or Bell pair) through a depolarising channel of entanglement fidelity
    ``fidelity`` in ``[1/4, 1]`` (a Werner pair): ``F_e = F^n``, ``eta ≈ F^n = P^(log2 F)``
    (:func:`qring_edu.experiments.tieaudit.tieaudit_noise_threshold`). Its X and Y errors move
    amplitude between coordinates, so only its twirled law is computed.

    Examples
    --------
    >>> round(LocalDepolarizing(0.9).eta(8), 4)                # ((4F)^3 - 1)/(4^3 - 1)
    0.7247
    """

    fidelity: float

    def __post_init__(self):
        object.__setattr__(self, "fidelity", check_float(self.fidelity, "fidelity", 0.25, 1.0))

    def entanglement_fidelity(self, P: int) -> float:
        return self.fidelity ** (int(P).bit_length() - 1)


@result
class DataOnlyAttack(_Noise):
    """An adversary that measures each copy with ``{|psi_1><psi_1|, 1 - |psi_1><psi_1|}``
    (``|psi_1>``: the public all-agree string, the tests), passes what it finds in ``|psi_1>``
    and depolarises the rest with probability ``noise``. ``knows_twirl=True`` (a leaked twirl;
    not in the entanglement-assisted protocol, whose frame is drawn after the pairs arrive) lets
    it work in each copy's own frame and spare every test.

    Examples
    --------
    >>> round(DataOnlyAttack(0.5).eta(2**12), 4)
    0.4998
    """

    knows_twirl: bool = False

    def __post_init__(self):
        super().__post_init__()
        if not isinstance(self.knows_twirl, (bool, np.bool_)):
            raise TypeError(f"knows_twirl must be True or False, got {self.knows_twirl!r}")

    def entanglement_fidelity(self, P: int) -> float:
        """Kraus ``{Pi, K_j (1 - Pi)}``, ``Pi = |psi_1><psi_1|``, ``x = 1/P``: ``F_e = x^2 + (1 -
        p)(1 - x)^2 + p (1 - x) x^2``."""
        x, p = 1.0 / float(P), self.noise
        return x * x + (1.0 - p) * (1.0 - x) ** 2 + p * (1.0 - x) * x * x


_CHANNELS = (Depolarizing, Dephasing, LocalDepolarizing, DataOnlyAttack)


@result
class Estimate:
    """Outcome of :func:`tieaudit`: estimate ``value`` of ``f``, interval ``[lo, hi]``, ``cost``
    in ``unit``, ``protocol``; ``copies`` (data and tests), ``test_copies``, ``ebits``,
    ``attenuation`` (the tests' ``eta_hat = mean(Y_test)/alpha``, 1 without tests), ``alpha``.

    Examples
    --------
    >>> Estimate(0.25, 0.2, 0.3, 100, "qubits", "quantum", copies=10)
    Estimate(value=0.25, lo=0.2, hi=0.3, cost=100, unit='qubits', protocol='quantum')
    """

    value: float
    lo: float
    hi: float
    cost: int
    unit: str
    protocol: str
    copies: int = field(default=0, repr=False)
    test_copies: int = field(default=0, repr=False)
    ebits: int = field(default=0, repr=False)
    attenuation: float = field(default=1.0, repr=False)
    alpha: float = field(default=1.0, repr=False)

    def __post_init__(self):
        for name in ("value", "lo", "hi", "attenuation"):
            check_float(getattr(self, name), name)
        for name in ("cost", "copies", "test_copies", "ebits"):
            check_int(getattr(self, name), name, 0)
        check_choice(self.unit, "unit", ("bits", "qubits"))
        check_choice(self.protocol, "protocol", TIEAUDIT_PROTOCOLS)
        _check_alpha(self.alpha)


# -- Input checks ----------------------------------------------------------------------------
def check_signs(signs) -> np.ndarray:
    """``signs``: 1-D array of ±1 of length ``P = 2^n >= 2``; returned as ``int8``.

    Examples
    --------
    >>> check_signs([1, -1, -1, 1]).tolist()
    [1, -1, -1, 1]
    """
    arr = as_numeric_array(signs, "signs")
    if arr.ndim != 1:
        raise ValueError(f"signs must be a 1-D vector of ±1, got shape {arr.shape}")
    if arr.size < 2 or arr.size & (arr.size - 1):
        raise ValueError(f"len(signs) must be a power of two P = 2^n >= 2, got {arr.size}")
    if not np.all((arr == 1) | (arr == -1)):
        raise ValueError("signs must contain only +1 and -1")
    return arr.astype(np.int8)


def check_matching(matching, P: int) -> np.ndarray:
    """A matching of ``P`` coordinates: at least one pair ``(i, j)``, indices in ``0..P-1``, no
    index used twice; returned as ``int64`` of shape ``(m, 2)``.

    Examples
    --------
    >>> check_matching([(0, 1), (2, 3)], 4).tolist()
    [[0, 1], [2, 3]]
    """
    P = check_int(P, "P", 2)
    arr = as_numeric_array(matching, "matching")
    if arr.size == 0:
        raise ValueError("matching must contain at least one pair (i, j)")
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"matching must have shape (m, 2) (a list of pairs), got {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer) and not np.all(arr == np.round(arr)):
        raise TypeError("matching must contain integer indices")
    if arr.min() < 0 or arr.max() >= P:
        bad = arr[(arr < 0) | (arr >= P)][0]
        raise ValueError(f"matching indices must be in 0..{P - 1} (P = {P}), got {bad:g}")
    arr = arr.astype(np.int64)
    values, counts = np.unique(arr, return_counts=True)  # O(m log m): no array of size P
    if counts.max() > 1:
        rep, times = int(values[np.argmax(counts)]), int(counts.max())
        raise ValueError(f"matching pairs must be disjoint: index {rep} is used {times} times")
    return arr


def _check_eps(eps) -> float:
    return check_float(eps, "eps", 0.0, 1.0, lo_open=True, hi_open=True)


def _check_alpha(alpha) -> float:
    return check_float(alpha, "alpha", 0.0, 1.0, lo_open=True)


def _check_P(P) -> int:
    P = check_int(P, "P", 2, 2**MAX_LOG2_P)
    if P & (P - 1):
        raise ValueError(f"P must be a power of two P = 2^n, got {P}")
    return P


def _check_channel(channel, protocol: str):
    if channel is not None and not isinstance(channel, _CHANNELS):
        names = ", ".join(c.__name__ for c in _CHANNELS)
        raise TypeError(f"channel must be None or one of {names}, got {channel!r}")
    if channel is not None and protocol in ("classical", "two_message"):
        raise ValueError(
            f"channel: protocol={protocol!r} sends bits over an error-corrected classical "
            f"channel, so channel must be None, got {channel!r}"
        )
    if protocol == "entanglement_assisted" and getattr(channel, "knows_twirl", False):
        raise ValueError(
            "channel: no source of the entanglement-assisted protocol can know a copy's frame "
            "(the server's outcome bits are drawn after the pairs arrive); knows_twirl=True "
            "applies to protocol='quantum'"
        )
    return channel


# -- Planning: copies, subset size, costs ----------------------------------------------------
def _log_plan(alpha: float, eta: float, eps: float, L: float, bound: str) -> float:
    """Natural log of the unrounded plan of :func:`tieaudit_copies`, computed in logs so that no
    size of ``alpha``, ``eta`` or ``eps`` under- or overflows."""

    def lse(a: float, b: float) -> float:
        return max(a, b) + math.log1p(math.exp(-abs(a - b)))

    la, lx = math.log(alpha), math.log(eta) + math.log(eps)
    hoeffding = math.log(L / 2.0) - 2.0 * (la + lx)
    if bound == "freedman":
        return lse(math.log(2.0 * L) - la - 2.0 * lx, math.log(2.0 * L / 3.0) - la - lx)
    if bound == "hoeffding":
        return hoeffding
    lt = math.log(2.0) + la + lx  # t = 2 alpha eta eps
    bern = lse(math.log(2.0 * alpha * L) - 2.0 * lt, math.log(2.0 * (1.0 + alpha) * L / 3.0) - lt)
    return min(hoeffding, bern)


def tieaudit_copies(
    alpha: float, eps: float, delta: float = 0.05, *, eta: float = 1.0, bound: str = "bernstein"
) -> int:
    """Copies ``N`` of the quantum protocols (data and hidden tests together), ``L = ln(2/delta)``,
    ``t = 2 alpha eta eps`` (the error of ``mean(Y)`` that moves ``f_hat`` by ``eps``):

    * ``"hoeffding"``: ``N = ceil(L/(2 alpha^2 eta^2 eps^2))`` (range 2);
    * ``"bernstein"`` (default): the smaller of that and ``ceil(L (2 alpha + 2(1 + alpha)
      t/3)/t^2)`` (``Var Y <= alpha``, ``|Y - E Y| <= 1 + alpha``), ``O(log(1/delta)/(alpha
      eta^2 eps^2))``;
    * ``"freedman"``: ``N = ceil(2L/(alpha eta^2 eps^2) + 2L/(3 alpha eta eps))``, the smallest
      ``N`` whose :func:`tieaudit_interval` (tests at rate 1/2) has half-width ``<= eps`` at the
      expected sums for the worst ``f``; its guarantee is the interval's.

    The first two guarantee ``|f_hat - f| <= eps`` with probability ``>= 1 - delta`` for
    independent copies with the known ``eta`` (``f_hat = (1 - mean(Y)/(alpha eta))/2``). Plans
    beyond ``10^300`` copies are refused.

    Examples
    --------
    >>> tieaudit_copies(0.1, 0.05, bound="hoeffding"), tieaudit_copies(0.1, 0.05)
    (73778, 7649)
    """
    alpha, eps, delta = _check_alpha(alpha), _check_eps(eps), check_delta(delta)
    eta = check_float(eta, "eta", 0.0, 1.0, lo_open=True)
    check_choice(bound, "bound", TIEAUDIT_BOUNDS)
    log_n = _log_plan(alpha, eta, eps, math.log(2.0 / delta), bound)
    if log_n > 300 * math.log(10):
        raise ValueError(
            f"bound={bound!r} at alpha = {alpha:g}, eta = {eta:g}, eps = {eps:g} would need about "
            f"10^{log_n / math.log(10):.0f} copies: ask for a larger eps, delta, alpha or eta"
        )
    if log_n > 45.0:  # beyond 10^19 copies the rounding of exp(log_n) does not matter
        return int(math.ceil(math.exp(log_n)))
    L, t = math.log(2.0 / delta), 2.0 * alpha * eta * eps  # no under- or overflow from here
    if bound == "freedman":
        return int(math.ceil(2.0 * L / (alpha * eta * eta * eps * eps) + 2.0 * L / (3.0 * t / 2)))
    n = L / (2.0 * alpha**2 * eta**2 * eps**2)
    if bound == "bernstein":
        n = min(n, L * (2.0 * alpha + 2.0 * (1.0 + alpha) * t / 3.0) / t**2)
    return int(math.ceil(n))


def classical_subset_size(P: int, alpha: float, eps: float, delta: float = 0.05) -> int:
    """Subset size ``k`` of the one-way classical protocol, capped at ``P``: the smallest ``k``
    with ``m k (k - 1)/(P (P - 1)) >= 2 m_0`` (expected pairs inside the subset), ``m = alpha
    P/2``, ``m_0 = ceil(ln(4/delta)/(2 eps^2))``; ``k ≈ sqrt(4 m_0 P/alpha)``. Hoeffding at
    ``delta/2`` for the pairs inside; fewer than ``m_0`` arrive with probability ``<=
    exp(-m_0/4)`` (Chernoff). The exact plan needs about 2.1 times fewer bits
    (:func:`qring_edu.experiments.tieaudit_plans.exact_subset_size`).

    Examples
    --------
    >>> classical_subset_size(2**20, 1.0, 0.05), classical_subset_size(2**12, 0.5, 0.05)
    (60651, 4096)
    """
    P, alpha = _check_P(P), _check_alpha(alpha)
    eps, delta = _check_eps(eps), check_delta(delta)
    m = alpha * P / 2.0
    m0 = _hoeffding_pairs(eps, 4.0 / delta, math.floor(m / 2.0) + 1)
    if m < 2 * m0:  # fewer than 2 m_0 pairs in M: send every sign
        return P
    target = 4.0 * m0 * (P - 1) / alpha  # need k (k - 1) >= 2 m_0 P (P - 1)/m
    return min(P, int(math.ceil((1.0 + math.sqrt(1.0 + 4.0 * target)) / 2.0)))


def _hoeffding_pairs(eps: float, c: float, cap: int) -> int:
    """``min(cap, ceil(ln(c)/(2 eps^2)))`` without overflow for tiny ``eps``."""
    if math.log(math.log(c) / 2.0) - 2.0 * math.log(eps) >= math.log(cap):
        return cap
    return min(cap, math.ceil(math.log(c) / (2.0 * eps**2)))


def two_message_bits(P: int, eps: float, delta: float = 0.05, *, alpha: float = 1.0) -> int:
    """Bits of the two-message classical protocol: ``r`` pair indices (``2 log2 P`` bits each)
    and ``r`` answers ``[s_i != s_j]``, ``r = min(m, ceil(ln(2/delta)/(2 eps^2)))`` (Hoeffding
    for a sample without replacement; all ``m = alpha P/2`` pairs give ``f`` exactly).

    Examples
    --------
    >>> two_message_bits(2**24, 0.05)                         # 738 pairs x (2 x 24 + 1) bits
    36162
    """
    P, eps, delta = _check_P(P), _check_eps(eps), check_delta(delta)
    m = max(1, int(round(_check_alpha(alpha) * P / 2.0)))
    return _hoeffding_pairs(eps, 2.0 / delta, m) * (2 * (P.bit_length() - 1) + 1)


def _quantum_copies(P: int, alpha: float, eps: float, delta: float, channel) -> int:
    """Copies planned for ``channel`` (None: trusted; else its twirled ``eta``, Freedman)."""
    if channel is None:
        return tieaudit_copies(alpha, eps, delta)
    if (eta := channel.eta(P)) <= 0.0:
        raise ValueError(
            f"channel {channel!r} leaves no signal on n = {P.bit_length() - 1} qubits (twirled "
            f"attenuation eta = {eta:.3g} <= 0): no number of copies estimates f"
        )
    return tieaudit_copies(alpha, eps, delta, eta=eta, bound="freedman")


def tieaudit_cost(
    P: int,
    eps: float,
    *,
    protocol: str = "quantum",
    alpha: float = 1.0,
    delta: float = 0.05,
    channel=None,
) -> int:
    """Communication of :func:`tieaudit` without running it (coverage ``alpha``): qubits
    (``"quantum"``) or bits (the others; ``"entanglement_assisted"`` uses as many ebits).

    Examples
    --------
    >>> tieaudit_cost(2**16, 0.05), tieaudit_cost(2**16, 0.05, protocol="classical")
    (11808, 15163)
    """
    P, eps = _check_P(P), _check_eps(eps)
    alpha, delta = _check_alpha(alpha), check_delta(delta)
    check_choice(protocol, "protocol", TIEAUDIT_PROTOCOLS)
    channel = _check_channel(channel, protocol)
    if protocol == "classical":
        return classical_subset_size(P, alpha, eps, delta)
    if protocol == "two_message":
        return two_message_bits(P, eps, delta, alpha=alpha)
    return (P.bit_length() - 1) * _quantum_copies(P, alpha, eps, delta, channel)


# -- The Freedman interval -------------------------------------------------------------------
def tieaudit_interval(
    data_sum: int,
    data_copies: int,
    test_sum: int,
    test_copies: int,
    alpha: float,
    delta: float = 0.05,
    *,
    test_fraction: float = TEST_FRACTION,
) -> tuple[float, float, float]:
    """``(value, lo, hi)``: estimate and Freedman confidence interval for ``f`` from one run.

    Each of ``N = data_copies + test_copies`` copies was a hidden test with probability ``q =
    test_fraction``; ``A = data_sum`` and ``B = test_sum`` sum ``Y`` over data and tests. With
    ``g = 1 - 2f``, ``D(f) = q A - (1 - q) g B`` is a martingale whatever attenuation the source
    picks copy by copy, with increments ``|xi_t| <= R = max(q, (1 - q)|g|)`` and predictable
    variance ``V = N q (1 - q) alpha (q + (1 - q) g^2)``. Freedman's inequality, ``P(|D| >=
    tau) <= 2 exp(-tau^2/(2 (V + R tau/3)))``, gives ``tau = RL/3 + sqrt((RL/3)^2 + 2VL)``, ``L =
    ln(2/delta)``. The interval, the hull of ``{f : |D(f)| <= tau(f)}`` (exact ends: piecewise a
    quadratic in ``g``), holds with probability ``>= 1 - delta`` against every strategy of the
    source, also at any stopping time up to ``N`` (``V`` at the horizon); empty (probability
    ``<= delta``), it is ``(0, 1)``. ``value = (1 - (A/N_D)/(B/N_T))/2`` (1/2 without test
    signal), clipped to the interval.

    Examples
    --------
    >>> value, lo, hi = tieaudit_interval(300, 1500, 750, 1500, 1.0)      # eta = 1/2, f = 0.3
    >>> round(value, 3), round(lo, 3), round(hi, 3)
    (0.3, 0.219, 0.373)
    """
    ND = check_int(data_copies, "data_copies", 0, MAX_COPIES)
    NT = check_int(test_copies, "test_copies", 0, MAX_COPIES)
    A = check_int(data_sum, "data_sum (a sum of data_copies outcomes +-1)", -ND, ND)
    B = check_int(test_sum, "test_sum (a sum of test_copies outcomes +-1)", -NT, NT)
    N = check_int(ND + NT, "data_copies + test_copies (the copies)", 1)
    alpha, delta = _check_alpha(alpha), check_delta(delta)
    q = check_float(test_fraction, "test_fraction", 0.0, 1.0, lo_open=True, hi_open=True)
    L, w = math.log(2.0 / delta), N * q * (1.0 - q) * alpha  # V(g) = w (q + (1 - q) g^2)
    d0, d1 = q * A, -(1.0 - q) * B  # D(g) = d0 + d1 g

    def h(g: float) -> float:  # <= 0 inside
        D = d0 + d1 * g
        R = max(q, (1.0 - q) * abs(g))
        return D * D - 2.0 * R * L / 3.0 * abs(D) - 2.0 * w * (q + (1.0 - q) * g * g) * L

    cuts = {-1.0, 0.0, 1.0}
    if q < 1.0 - q:  # where R switches from q to (1 - q)|g|
        cuts |= {q / (1.0 - q), -q / (1.0 - q)}
    if d1 != 0.0 and abs(d0 / d1) < 1.0:
        cuts.add(-d0 / d1)
    cuts = sorted(cuts)
    points = list(cuts)
    for a, b in zip(cuts, cuts[1:]):
        mid = (a + b) / 2.0
        s = 1.0 if d0 + d1 * mid >= 0 else -1.0  # sign of D on the piece
        r0, r1 = (q, 0.0) if q >= (1.0 - q) * abs(mid) else (0.0, (1.0 - q) * math.copysign(1, mid))
        c2 = d1 * d1 - 2.0 * L / 3.0 * s * d1 * r1 - 2.0 * w * (1.0 - q) * L
        c1 = 2.0 * d0 * d1 - 2.0 * L / 3.0 * s * (d0 * r1 + d1 * r0)
        c0 = d0 * d0 - 2.0 * L / 3.0 * s * d0 * r0 - 2.0 * w * q * L
        for r in np.roots([c2, c1, c0]) if (c2, c1) != (0.0, 0.0) else ():
            if abs(r.imag) < 1e-12 and a < r.real < b:
                points.append(float(r.real))
    points = sorted(points)
    tol = 1e-9 * (d0 * d0 + d1 * d1 + w * L + 1.0)
    inside = [g for g in points if h(g) <= tol]  # h keeps its sign between two points
    inside += [e for a, b in zip(points, points[1:]) if h((a + b) / 2.0) <= 0.0 for e in (a, b)]
    lo, hi = ((1.0 - max(inside)) / 2.0, (1.0 - min(inside)) / 2.0) if inside else (0.0, 1.0)
    value = 0.5 if B <= 0 or ND == 0 else (1.0 - (A / ND) / (B / NT)) / 2.0
    return min(hi, max(lo, value)), lo, hi


# -- One copy: the Born rule, channels, the twirled law --------------------------------------
def _born(psi: np.ndarray, m: np.ndarray, unmatched: np.ndarray, w=1.0) -> np.ndarray:
    """Outcome weights of the vector ``psi`` (pair ``r``: "+" at ``2r``, "-" at ``2r + 1``, then the
    unmatched coordinates); ``w``: the fraction of each pair's coherence that survives."""
    a, b = psi[m[:, 0]], psi[m[:, 1]]
    diag, coh = (a * a + b * b) / 2.0, w * a * b
    return np.concatenate([np.column_stack([diag + coh, diag - coh]).ravel(), psi[unmatched] ** 2])


def _outcome_law(s: np.ndarray, m: np.ndarray, channel) -> tuple[np.ndarray, np.ndarray]:
    P = s.size
    unmatched = np.ones(P, dtype=bool)
    unmatched[m.ravel()] = False
    y = np.concatenate([np.tile([1, -1], len(m)), np.zeros(P - 2 * len(m))]).astype(np.int8)
    psi = s.astype(np.float64) / math.sqrt(P)
    if isinstance(channel, LocalDepolarizing):  # X, Y errors move amplitude: not computed
        raise ValueError("channel: LocalDepolarizing has a twirled law only (copy_y_law)")
    if isinstance(channel, Dephasing):  # Z errors: pair (i, j) keeps (1 - 2p)^|i XOR j|
        lam = (1.0 - 2.0 * channel.noise) ** np.bitwise_count(m[:, 0] ^ m[:, 1])
        probs = _born(psi, m, unmatched, lam)
    elif isinstance(channel, DataOnlyAttack):
        # Caught (probability c^2): the client gets |psi_1>; otherwise psi - c psi_1, depolarised.
        one = np.full(P, 1.0 / math.sqrt(P))
        c = float(psi @ one)
        probs = (
            c * c * _born(one, m, unmatched)
            + (1.0 - channel.noise) * _born(psi - c * one, m, unmatched)
            + channel.noise * (1.0 - c * c) / P
        )
    else:
        probs = _born(psi, m, unmatched)
        if channel is not None:
            probs = (1.0 - channel.noise) * probs + channel.noise / P
    return probs / probs.sum(), y


def outcome_probabilities(signs, matching, channel=None) -> tuple[np.ndarray, np.ndarray]:
    """``(probs, y)``: Born-rule law of the client's outcome on one copy sent *without* the
    twirl (pair ``r``: "+" at ``2r``, "-" at ``2r + 1``, then the unmatched coordinates) and
    each outcome's ``Y``, each channel as its class describes it untwirled
    (:class:`DataOnlyAttack`: in the adversary's frame).

    Examples
    --------
    >>> probs, y = outcome_probabilities([1, 1, 1, -1], [[0, 1], [2, 3]])
    >>> probs.round(3).tolist(), y.tolist()
    ([0.5, 0.0, 0.0, 0.5], [1, -1, 1, -1])
    """
    s = check_signs(signs)
    return _outcome_law(s, check_matching(matching, s.size), _check_channel(channel, "quantum"))


def _copy_law(x: np.ndarray, m: np.ndarray, channel) -> tuple[float, float]:
    """``(P(Y = +1), P(Y = -1))`` of one twirled copy carrying ``x``, on validated input."""
    if getattr(channel, "knows_twirl", False):  # the adversary works in the copy's own frame
        probs, y = _outcome_law(x, m, channel)
        return float(probs[y == 1].sum()), float(probs[y == -1].sum())
    eta = 1.0 if channel is None else channel.eta(x.size)
    S = float(np.sum(x[m[:, 0]].astype(np.float64) * x[m[:, 1]]))  # m (1 - 2 f_x)
    return (len(m) + eta * S) / x.size, (len(m) - eta * S) / x.size


def copy_y_law(signs, matching, channel=None) -> tuple[float, float]:
    """``(P(Y = +1), P(Y = -1))`` of one twirled copy carrying ``signs``, exact: ``alpha (1 ±
    eta g)/2`` with the channel's twirled ``eta`` (an attack that ``knows_twirl``: the law of
    :func:`outcome_probabilities`). A test copy carries ``signs = ones(P)``.

    Examples
    --------
    >>> copy_y_law([1] * 8, [[0, 1], [2, 3]], Depolarizing(0.5))     # E[Y] = 0.5 alpha
    (0.375, 0.125)
    """
    s = check_signs(signs)
    return _copy_law(s, check_matching(matching, s.size), _check_channel(channel, "quantum"))


# -- Circuits (Qiskit path, small n) ---------------------------------------------------------
def tieaudit_circuit(signs, matching, *, protocol: str = "quantum", measure: bool = True, pad=0):
    """Qiskit circuit of one copy (``P <= 64``), ending in the client's basis change ``V``
    (gate "M": outcome ``i`` of pair ``(i, j)`` is "+", ``j`` is "-"). ``"quantum"``:
    ``|psi_s>`` on qubits ``0..n-1``. ``"entanglement_assisted"``: Bell pairs (server's halves
    ``0..n-1``, client's ``n..2n-1``), ``diag(s)`` and an X measurement on the server's side
    (clbits ``0..n-1``: the bits sent), ``Z^x`` as CZ gates (deferred measurement), then ``V``
    (clbits ``n..2n-1``). ``pad = b`` in ``0..P-1``: the twirl's Pauli part ``Z^b`` (bit ``q``
    for qubit ``q``), applied by the server and removed by the client before ``V``.

    Examples
    --------
    >>> qc = tieaudit_circuit([1, -1, 1, 1], [[0, 1]], pad=3)
    >>> qc.num_qubits, qc.count_ops()["z"]
    (2, 4)
    """
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import DiagonalGate, StatePreparation, UnitaryGate

    s = check_signs(signs)
    m = check_matching(matching, s.size)
    check_choice(protocol, "protocol", ("quantum", "entanglement_assisted"))
    if not isinstance(measure, (bool, np.bool_)):
        raise TypeError(f"measure must be True or False, got {measure!r}")
    P = s.size
    if P > 64:
        raise ValueError(f"tieaudit_circuit is for small registers: P must be <= 64, got {P}")
    n = P.bit_length() - 1
    padded = [q for q in range(n) if (check_int(pad, "pad", 0, P - 1) >> q) & 1]
    V, r = np.eye(P), 1.0 / math.sqrt(2.0)
    for i, j in m:  # (|i> + |j>)/sqrt2 -> |i>, (|i> - |j>)/sqrt2 -> |j>
        V[i, i], V[i, j], V[j, i], V[j, j] = r, r, r, -r
    server = list(range(n))
    if protocol == "quantum":
        client = server
        qc = QuantumCircuit(n, n if measure else 0)
        qc.append(StatePreparation(s / math.sqrt(P), label="ψ_s"), server)
        if padded:
            qc.z(padded)
        qc.barrier(label="server → client")
    else:
        client = list(range(n, 2 * n))
        qc = QuantumCircuit(2 * n, 2 * n if measure else 0)
        for a, b in zip(server, client):
            qc.h(a)
            qc.cx(a, b)
        qc.barrier(label="shared pairs")
        if padded:
            qc.z(padded)
        qc.append(DiagonalGate([complex(x) for x in s]), server)
        qc.h(server)
        if measure:
            qc.measure(server, range(n))
        qc.barrier(label="n bits → client")
        for a, b in zip(server, client):
            qc.cz(a, b)
    if padded:  # the client removes the twirl's Pauli part
        qc.z([client[q] for q in padded])
    qc.append(UnitaryGate(V, label="M"), client)
    if measure:
        qc.measure(client, range(qc.num_clbits - n, qc.num_clbits))
    return qc


# -- The protocol ----------------------------------------------------------------------------
def _sample_estimate(seen: np.ndarray, total: int, delta: float) -> tuple[float, float, float]:
    """Classical protocols: ``(f_hat, lo, hi)`` from the disagreement bits of ``J`` sampled pairs;
    Hoeffding given ``J`` (sampling without replacement), exact when every pair is seen."""
    J = seen.size
    if J == 0:  # no pair arrived: a fair guess
        return 0.5, 0.0, 1.0
    v = float(seen.mean())
    half = 0.0 if J == total else math.sqrt(math.log(2.0 / delta) / (2.0 * J))
    return v, max(0.0, v - half), min(1.0, v + half)


def _sum_y(law: tuple[float, float], copies: int, rng: np.random.Generator) -> int:
    """Sum of ``Y`` over ``copies`` independent copies (multinomial over +1, -1, 0)."""
    p = np.clip(np.array([law[0], law[1], 1.0 - law[0] - law[1]]), 0.0, None)
    counts = rng.multinomial(copies, p / p.sum())
    return int(counts[0] - counts[1])


def tieaudit(
    signs,
    matching,
    eps: float,
    *,
    protocol: str = "quantum",
    delta: float = 0.05,
    channel=None,
    seed=None,
) -> Estimate:
    """Estimate ``f``, the fraction of matched pairs with different signs, to ``±eps``.

    ``signs``: ±1, shape (P,), ``P = 2^n``; ``matching``: the client's disjoint pairs, shape
    (m, 2), ``alpha = 2m/P``; ``eps`` in (0, 1), ``delta`` in (0, 0.5); ``protocol``: one of
    ``TIEAUDIT_PROTOCOLS``; ``channel``: None (trusted) or the channel the copies go through
    and are planned for (quantum protocols only; module docstring); ``seed``: shared randomness
    (tests, twirls, subsets) and measurement outcomes.

    Examples
    --------
    >>> from qring_edu.experiments.tieaudit import random_matching, signs_with_disagreement
    >>> m = random_matching(1024, 1.0, seed=0)
    >>> s = signs_with_disagreement(m, 1024, 0.3, seed=1)
    >>> e = tieaudit(s, m, 0.1, channel=Depolarizing(0.5), seed=3)
    >>> e.lo <= 0.3 <= e.hi, e.copies, e.test_copies
    (True, 3001, 1494)
    """
    s = check_signs(signs)
    m = check_matching(matching, s.size)
    eps, delta = _check_eps(eps), check_delta(delta)
    check_choice(protocol, "protocol", TIEAUDIT_PROTOCOLS)
    channel = _check_channel(channel, protocol)
    rng = generator(seed)
    P, pairs = s.size, len(m)
    n, alpha = P.bit_length() - 1, 2.0 * pairs / P
    differ = s[m[:, 0]] != s[m[:, 1]]
    if protocol == "classical":
        k = classical_subset_size(P, alpha, eps, delta)
        inside = np.zeros(P, dtype=bool)
        inside[rng.permutation(P)[:k]] = True  # shared randomness: the subset
        seen = differ[inside[m[:, 0]] & inside[m[:, 1]]]
        return Estimate(*_sample_estimate(seen, pairs, delta), k, "bits", protocol, alpha=alpha)
    if protocol == "two_message":
        r = _hoeffding_pairs(eps, 2.0 / delta, pairs)
        seen = differ[rng.choice(pairs, size=r, replace=False)]  # the client's private sample
        cost = r * (2 * n + 1)
        return Estimate(*_sample_estimate(seen, pairs, delta), cost, "bits", protocol, alpha=alpha)
    N = _quantum_copies(P, alpha, eps, delta, channel)
    if N > MAX_COPIES:
        raise ValueError(f"eps: the plan needs {N:.3g} copies, more than MAX_COPIES = 10^18")
    if channel is None:  # trusted: no tests, the planned guarantee
        value = (1.0 - _sum_y(_copy_law(s, m, None), N, rng) / (N * alpha)) / 2.0
        value = min(1.0, max(0.0, value))
        test, eta_hat, lo, hi = 0, 1.0, max(0.0, value - eps), min(1.0, value + eps)
    else:  # hidden Bernoulli(q) tests, the twirl, the Freedman interval
        test = int(rng.binomial(N, TEST_FRACTION))
        A = _sum_y(_copy_law(s, m, channel), N - test, rng)
        B = _sum_y(_copy_law(np.ones(P, dtype=np.int8), m, channel), test, rng)
        value, lo, hi = tieaudit_interval(A, N - test, B, test, alpha, delta)
        eta_hat = B / (alpha * test) if test else 0.0
    unit, ebits = ("qubits", 0) if protocol == "quantum" else ("bits", N * n)
    return Estimate(value, lo, hi, N * n, unit, protocol, N, test, ebits, float(eta_hat), alpha)
