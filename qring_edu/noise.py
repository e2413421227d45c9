"""The noise of a quantum link: Pauli errors, the :class:`Link` value, and the one noise draw
per message (book/04_noisy_links.ipynb).

Every error is a Pauli on Alice's qubit up to a phase, so errors **compose** by multiplying
Paulis: the decoded 2-bit symbol of superdense coding suffers ``E = E_pair · E_memory · E_channel``
(:meth:`Link.symbol_errors`); with a Werner pair and no memory it is depolarising, of fidelity
:func:`effective_fidelity` (``F² + (1-F)²/3`` when ``F_pair = F_ch = F``).

Pauli codes and bit order. A Pauli error is stored by its *frame code*: bit 0 flips the decoded
``x``, bit 1 flips ``z``; 0 = I, 1 = X, 2 = Z, 3 = Y, the order of :class:`PauliErrors`. A message
is a bit stream: bit ``p`` is bit ``p mod b`` of word ``p div b``, symbol ``j`` carries stream bits
``2j`` (``x``) and ``2j + 1`` (``z``); a stream of odd length is padded with one zero bit.

Every message draws its noise from its own generator (:func:`message_rng`) in one call of
:func:`draw_noise`; :func:`flip_bits` turns the Paulis into bit flips.
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np

from ._result import result
from ._validate import check_fidelity, check_float, check_int, check_memory, check_name

__all__ = [
    "PAULI_NAMES",
    "PauliErrors",
    "depolarizing",
    "memory_dephasing",
    "effective_fidelity",
    "Link",
    "fibre_transmission",
    "message_rng",
    "Noise",
    "draw_noise",
    "flip_bits",
    "Capacities",
    "depolarizing_capacities",
]

#: Frame codes (bit 0 flips x, bit 1 flips z) and their Pauli names, in probability order.
PAULI_NAMES = ("I", "X", "Z", "Y")


def entropy(p) -> float:
    """Shannon entropy in bits of a probability vector (``0 log 0 = 0``)."""
    p = np.asarray(p, dtype=float)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum()) + 0.0  # + 0.0: never -0.0


@result(show=("fidelity",))
class PauliErrors:
    """A Pauli error on one qubit, ``probabilities`` ``(p_I, p_X, p_Z, p_Y)`` (>= 0, sum 1); as a
    pair, the Bell-diagonal coefficients on ``(Φ+, Ψ+, Φ−, Ψ−)``.

    Examples
    --------
    >>> e = depolarizing(0.99).compose(depolarizing(0.99))
    >>> e
    PauliErrors(probabilities=(0.9801, 0.006622, 0.006622, 0.006622), fidelity=0.9801)
    >>> round(e.capacity(), 4)                 # bits per qubit of the decoded symbol channel
    1.8278
    """

    probabilities: tuple[float, float, float, float]

    def __post_init__(self):
        p = np.asarray(self.probabilities, dtype=float)
        if p.shape != (4,) or not np.all(np.isfinite(p)):
            raise ValueError("probabilities must be 4 finite numbers (p_I, p_X, p_Z, p_Y)")
        if np.any(p < -1e-12) or abs(p.sum() - 1.0) > 1e-9:
            raise ValueError(f"probabilities must be >= 0 and sum to 1, got {tuple(p.tolist())}")
        object.__setattr__(self, "probabilities", tuple(float(max(v, 0.0)) for v in p))

    @property
    def fidelity(self) -> float:
        """``p_I``: the probability that the decoded symbol is right (the pair's fidelity)."""
        return self.probabilities[0]

    @property
    def error_rate(self) -> float:
        """``1 - p_I``: the symbol error rate of superdense coding through this error."""
        return 1.0 - self.probabilities[0]

    def compose(self, other: PauliErrors) -> PauliErrors:
        """Both errors, independently (order irrelevant): ``p[a ^ b] += self[a] other[b]``."""
        out = [0.0] * 4
        for a, pa in enumerate(self.probabilities):
            for b, pb in enumerate(other.probabilities):
                out[a ^ b] += pa * pb
        return PauliErrors(tuple(out))

    def capacity(self) -> float:
        """Capacity of the decoded 4-ary symbol channel, bits per qubit: ``2 - H(p)``, equal to
        the dense-coding capacity ``1 + S(ρ_B) - S(ρ_AB)`` of the Bell-diagonal pair."""
        return 2.0 - entropy(self.probabilities)


def depolarizing(fidelity: float, name: str = "fidelity") -> PauliErrors:
    """The depolarising error of fidelity ``F`` in [0.25, 1]: X, Y, Z each with ``(1 - F)/3``.

    Examples
    --------
    >>> depolarizing(0.97)
    PauliErrors(probabilities=(0.97, 0.01, 0.01, 0.01), fidelity=0.97)
    """
    F = check_fidelity(fidelity, check_name(name))
    q = (1.0 - F) / 3.0
    return PauliErrors((F, q, q, q))


def _coherence_time(value) -> float:
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and value == math.inf:
        return math.inf
    return check_float(value, "coherence_time", 0.0, lo_open=True)


def memory_dephasing(storage_time: float = 0.0, coherence_time: float = math.inf) -> PauliErrors:
    """Net error of a pair whose halves each wait ``t`` in memories of coherence time ``T2``
    (:class:`Link`): as ``Z_B|Φ+⟩ = Z_A|Φ+⟩``, a Z on A with probability ``2p(1-p) = (1 -
    exp(-2t/T2))/2``, where ``p = (1 - exp(-t/T2))/2`` is each half's.

    Examples
    --------
    >>> round(memory_dephasing(1.0, 10.0).probabilities[2], 6)  # Z
    0.090635
    """
    t = check_float(storage_time, "storage_time", 0.0)
    T2 = _coherence_time(coherence_time)
    pz = 0.0 if T2 == math.inf else 0.5 * (1.0 - math.exp(-2.0 * t / T2))
    return PauliErrors((1.0 - pz, 0.0, pz, 0.0))


def effective_fidelity(pair_fidelity: float, channel_fidelity: float) -> float:
    """``F_eff = F_pair F_ch + (1 - F_pair)(1 - F_ch)/3``: the probability that a superdense
    symbol through a Werner pair of fidelity ``F_pair`` and a depolarising channel of fidelity
    ``F_ch`` on the travelling qubit decodes right.

    Examples
    --------
    >>> round(effective_fidelity(0.99, 0.99), 6)
    0.980133
    """
    Fp = check_fidelity(pair_fidelity, "pair_fidelity")
    Fc = check_fidelity(channel_fidelity, "channel_fidelity")
    return Fp * Fc + (1.0 - Fp) * (1.0 - Fc) / 3.0


@result
class Link:
    """One directed link ``(k, k+1)`` of the ring, as one frozen value. Its five parameters are
    described here once; every function that takes them as keywords refers here.

    Parameters
    ----------
    pair_fidelity : float in [0.25, 1] or None
        ``F_pair``, Werner (isotropic) fidelity of the pre-shared pairs; ``None``: each pair is
        distributed fresh over this link, ``F_pair = F_ch`` (the channel on one half of |Φ+⟩ is
        the same Pauli channel on the other half).
    channel_fidelity : float in [0.25, 1]
        ``F_ch``: every qubit that crosses the link is depolarised, X, Y or Z each with
        probability ``(1 - F_ch)/3``.
    storage_time, coherence_time : float
        ``t`` a pair waits, ``T2`` of the memories (same unit; ``inf``: perfect): each half
        suffers Z with probability ``(1 - exp(-t/T2))/2``.
    transmission : float in (0, 1]
        η: the online qubit is a photon that arrives with probability η; a loss is heralded,
        burns its pair and is sent again on a fresh pair.

    Examples
    --------
    >>> link = Link(channel_fidelity=0.99)
    >>> link.pair, round(link.errors.fidelity, 6)            # F_pair = F_ch, then F_eff
    (0.99, 0.980133)
    >>> Link(0.9).noiseless, Link().noiseless
    (False, True)
    """

    pair_fidelity: float | None = None
    channel_fidelity: float = 1.0
    storage_time: float = 0.0
    coherence_time: float = math.inf
    transmission: float = 1.0

    def __post_init__(self):
        pair = self.pair_fidelity
        for name, value in (
            ("pair_fidelity", None if pair is None else check_fidelity(pair)),
            ("channel_fidelity", check_fidelity(self.channel_fidelity, "channel_fidelity")),
            ("storage_time", check_float(self.storage_time, "storage_time", 0.0)),
            ("coherence_time", _coherence_time(self.coherence_time)),
            ("transmission", check_float(self.transmission, "transmission", 0, 1, lo_open=True)),
        ):
            object.__setattr__(self, name, value)

    @property
    def pair(self) -> float:
        """The pairs' Werner fidelity (``channel_fidelity`` when distributed over this link)."""
        return self.channel_fidelity if self.pair_fidelity is None else self.pair_fidelity

    def symbol_errors(self, pair: PauliErrors | None = None) -> PauliErrors:
        """The Pauli error of one decoded symbol, ``E_pair · E_memory · E_channel``; ``pair``:
        the pairs' error if not Werner of :attr:`pair` (e.g. ``distill(...).errors``)."""
        errors = depolarizing(self.pair, "pair_fidelity") if pair is None else pair
        errors = errors.compose(memory_dephasing(self.storage_time, self.coherence_time))
        return errors.compose(depolarizing(self.channel_fidelity, "channel_fidelity"))

    @functools.cached_property  # a value of the frozen link, computed once (not per message)
    def errors(self) -> PauliErrors:
        """:meth:`symbol_errors` of the link's own pairs."""
        return self.symbol_errors()

    @property
    def noiseless(self) -> bool:
        """Every symbol arrives, right: no Pauli error and no loss."""
        return self.errors.error_rate == 0.0 and self.transmission == 1.0


def fibre_transmission(
    distance_km: float,
    *,
    attenuation_db_per_km: float = 0.2,
    source_efficiency: float = 1.0,
    detector_efficiency: float = 1.0,
) -> float:
    """The transmission η (``Link(transmission=η)``) of ``distance_km`` of fibre, each factor a
    heralded loss: ``η = source_efficiency · 10^(−attenuation_db_per_km · distance_km / 10) ·
    detector_efficiency`` (0.2 dB/km: telecom fibre at 1550 nm).

    Examples
    --------
    >>> round(fibre_transmission(50.0, detector_efficiency=0.9), 6)   # 10 dB, then 90 %
    0.09
    """
    L = check_float(distance_km, "distance_km", 0.0)
    alpha = check_float(attenuation_db_per_km, "attenuation_db_per_km", 0.0)
    src = check_float(source_efficiency, "source_efficiency", 0.0, 1.0, lo_open=True)
    det = check_float(detector_efficiency, "detector_efficiency", 0.0, 1.0, lo_open=True)
    return src * det * 10.0 ** (-alpha * L / 10.0)


def message_rng(seed: np.random.SeedSequence, step: int, sender: int) -> np.random.Generator:
    """The generator of the message ``sender`` sends at ``step``: ``SeedSequence(seed.entropy,
    spawn_key=seed.spawn_key + (step, sender))``, ``seed`` the call's root
    (:func:`qring_edu._validate.seed_sequence`).

    Examples
    --------
    >>> root = np.random.SeedSequence(1)
    >>> a = message_rng(root, 3, 0).integers(1 << 30)
    >>> bool(a == message_rng(root, 3, 0).integers(1 << 30)), bool(a == message_rng(root, 3, 1).integers(1 << 30))
    (True, False)
    """
    if not isinstance(seed, np.random.SeedSequence):
        raise TypeError(f"seed must be a numpy.random.SeedSequence, got {seed!r}")
    key = (*seed.spawn_key, check_int(step, "step", 0), check_int(sender, "sender", 0))
    return np.random.default_rng(np.random.SeedSequence(seed.entropy, spawn_key=key))


@result
class Noise:
    """What happened to one message's symbols (:func:`draw_noise`): ``sent`` photons online (the
    symbols and the lost ones); ``positions``: the erring symbols (distinct, ascending);
    ``codes``: their Paulis (1 = X, 2 = Z, 3 = Y).

    Examples
    --------
    >>> noise = draw_noise(8, Link(0.5, transmission=0.5).errors, np.random.default_rng(1), 0.5)
    >>> noise.sent >= 8, len(noise.positions) == len(noise.codes)
    (True, True)
    """

    sent: int
    positions: np.ndarray
    codes: np.ndarray


def draw_noise(
    n_symbols: int, errors: PauliErrors, rng: np.random.Generator, transmission: float = 1.0
) -> Noise:
    """The one noise draw of a message of ``n_symbols`` superdense symbols.

    ``errors``: the Pauli error of one decoded symbol (:attr:`Link.errors`); ``transmission``: η.
    Three vectorised draws from ``rng``, in this order: the lost photons, ``NegativeBinomial(n,
    η)`` (each symbol is sent until it arrives); ``Poisson(n λ)`` hits uniform on the symbols,
    ``λ = -ln p_I``, a symbol erring when hit (they are independent ``Poisson(λ)`` per symbol, so
    each symbol errs independently with probability ``1 - e^(-λ) = 1 - p_I``); the Pauli each
    erring symbol suffers (X, Z, Y in proportion to ``p_X, p_Z, p_Y``).

    Examples
    --------
    >>> noise = draw_noise(1000, Link(0.9).errors, np.random.default_rng(0))
    >>> noise.sent, len(noise.positions), sorted(set(noise.codes.tolist()))
    (1000, 103, [1, 2, 3])
    """
    n = check_int(n_symbols, "n_symbols", 0)
    if not isinstance(errors, PauliErrors):
        raise TypeError(f"errors must be a PauliErrors, got {errors!r}")
    eta = check_float(transmission, "transmission", 0.0, 1.0, lo_open=True)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {rng!r}")
    p = np.asarray(errors.probabilities)
    lam = -math.log(p[0]) if p[0] > 0.0 else 0.0  # hits per symbol (p_I = 0: all symbols err)
    check_memory(8 * n * lam + 9 * n * (1.0 - p[0]), "n_symbols", n)  # hits, positions, codes
    if n / eta > 2**62:
        raise ValueError(
            f"transmission = {eta:g} is too small: {n} symbols would need {n / eta:.3g} photons"
        )
    lost = int(rng.negative_binomial(n, eta)) if (eta < 1.0 and n) else 0
    small = np.int32 if n < 2**31 else np.int64  # int32 sorts twice as fast as int64
    hits = np.sort(rng.integers(0, max(n, 1), size=rng.poisson(n * lam), dtype=small))
    # sorted, a symbol's hits are neighbours: keep the first of each run
    positions = hits[np.diff(hits, prepend=-1) != 0] if p[0] > 0.0 else np.arange(n)
    k = positions.size
    if p[1] == p[2] == p[3]:  # depolarising: X, Z, Y equally likely
        codes = rng.integers(1, 4, size=k, dtype=np.uint8)
    else:
        codes = (1 + rng.choice(3, size=k, p=p[1:] / p[1:].sum())).astype(np.uint8)
    return Noise(sent=n + lost, positions=positions, codes=codes)


def flip_bits(words: np.ndarray, bits: int, positions: np.ndarray, codes: np.ndarray) -> None:
    """Apply Pauli errors to a message, in place: the one place Paulis become bit flips.

    ``words``: the message, 1-D unsigned integers of ``bits`` bits each, in the module's bit
    order (X and Y flip a symbol's x, Z and Y its z; a flip of the padding bit of an odd stream
    changes nothing); ``positions``, ``codes``: the erring symbols, as :class:`Noise` gives them.

    Examples
    --------
    >>> w = np.zeros(2, dtype=np.uint32)              # two 3-bit words: 6 bits, 3 symbols
    >>> flip_bits(w, 3, np.array([0, 2]), np.array([3, 1]))   # Y on symbol 0, X on symbol 2
    >>> w.tolist()                                    # bits 0, 1 of word 0; bit 4 = bit 1 of word 1
    [3, 2]
    """
    if not (isinstance(words, np.ndarray) and words.ndim == 1 and words.dtype.kind == "u"):
        raise TypeError(f"words must be a 1-D array of unsigned integers, got {words!r}")
    bits = check_int(bits, "bits", 1, 8 * words.dtype.itemsize)
    positions, codes = np.asarray(positions), np.asarray(codes)
    for name, arr, hi in (
        ("positions", positions, (words.size * bits - 1) // 2),
        ("codes", codes, 3),
    ):
        if arr.ndim != 1 or arr.dtype.kind not in "iu" or arr.shape != positions.shape:
            raise TypeError(f"{name} must be a 1-D integer array like positions, got {arr!r}")
        if arr.size and (arr.min() < (name == "codes") or arr.max() > hi):
            raise ValueError(f"{name} must be in {int(name == 'codes')}..{hi}")
    # A frame code is its symbol's flip pattern (bit 0: x, bit 1: z), so shifted to the symbol's
    # first stream bit it is the symbol's mask within its word.
    dt = words.dtype.type
    stream = 2 * positions.astype(np.int64)
    word = stream // bits
    offset = stream - word * bits  # (np.divmod is slower)
    mask = codes.astype(words.dtype) << offset.astype(words.dtype)
    if bits % 2:  # odd b: a z bit at offset b is bit 0 of the next word (after the last: padding)
        spill = (mask >> bits != 0) & (word + 1 < words.size)
        word = np.concatenate([word, word[spill] + 1])
        mask = np.concatenate([mask & dt((1 << bits) - 1), mask[spill] >> bits])
    # x ^ m = x + m - 2 (x & m) mod 2**n: the masks on one word are disjoint, so their terms add up
    # to the XOR with their union, and np.add.at (fast, unlike np.bitwise_xor.at) adds them.
    np.add.at(words, word, mask - dt(2) * (words[word] & mask))


# -- Capacities (book/02_holevo.ipynb, book/04_noisy_links.ipynb) ----------------------------------


@result(show=("ratio",))
class Capacities:
    """Capacities of a lossy depolarising qubit channel, bits per channel use (per photon sent).

    ``classical``: unassisted (Holevo) capacity ``η (1 - h(2(1 - F)/3))`` (additive for the
    depolarising channel, King 2003; a heralded erasure scales any capacity by η).
    ``entanglement_assisted``: ``η (2 - H(F, (1-F)/3 ×3))`` (Bennett–Shor–Smolin–Thapliyal
    2002, unlimited perfect pre-shared entanglement). ``ratio``: their quotient (``inf`` where
    ``classical`` is 0): 2 on a noiseless channel, more with noise.

    Examples
    --------
    >>> depolarizing_capacities(0.9)
    Capacities(channel_fidelity=0.9, transmission=1, classical=0.6466, entanglement_assisted=1.373, ratio=2.123)
    """

    channel_fidelity: float
    transmission: float
    classical: float
    entanglement_assisted: float

    @property
    def ratio(self) -> float:
        """``entanglement_assisted / classical``."""
        if self.classical <= 0.0:
            return math.inf if self.entanglement_assisted > 0 else math.nan
        return self.entanglement_assisted / self.classical


def depolarizing_capacities(channel_fidelity: float, *, transmission: float = 1.0) -> Capacities:
    """:class:`Capacities` of the depolarising channel of fidelity ``F`` after a heralded loss
    that lets a fraction ``transmission`` of the photons through.

    Examples
    --------
    >>> round(depolarizing_capacities(0.99).entanglement_assisted, 4)
    1.9034
    """
    F = check_fidelity(channel_fidelity, "channel_fidelity")
    eta = check_float(transmission, "transmission", 0.0, 1.0, lo_open=True)
    q = (1.0 - F) / 3.0
    return Capacities(
        channel_fidelity=F,
        transmission=eta,
        classical=eta * (1.0 - entropy([2.0 * q, 1.0 - 2.0 * q])),
        entanglement_assisted=eta * (2.0 - entropy([F, q, q, q])),
    )
