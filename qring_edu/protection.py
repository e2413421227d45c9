"""Error protection of a superdense link, and what it costs (book/04_noisy_links.ipynb).

Two remedies, each with its full cost on the ledger: **distillation** of the pairs
(:mod:`qring_edu.distillation`; offline raw pairs and announcements, removes the pairs' noise,
not the channel's) and **forward error correction with checked retransmission** of the decoded
stream: a Reed–Solomon code over GF(2⁸) (:func:`fec_code`), a keyed checksum
(:func:`toeplitz_hash`), rejected blocks sent again (:func:`fec_transmit`); it costs online
qubits and one acknowledgement bit per block transmission.

A scheme is a value, :class:`Protection` (optional :class:`Distill`, optional :class:`FEC`), or
a shorthand of :func:`protection`. :func:`expected_net_factor` gives its long-message factors
against noiseless classical bits (factor 1) and against the same code sent as classical bits
over the same channel. galois is imported only inside the real decoder.
"""

from __future__ import annotations

import functools
import math
from dataclasses import field

import numpy as np

from ._result import result
from ._validate import (
    check_bit_array,
    check_choice,
    check_fidelity,
    check_float,
    check_int,
    check_memory,
    check_name,
    check_packed_bits,
)
from .distillation import DISTILL_PROTOCOLS, Distillation, distill
from .noise import Link, PauliErrors

__all__ = [
    "SYMBOL_BITS",
    "QUBITS_PER_SYMBOL",
    "MAX_BLOCK_LENGTH",
    "ACK_BITS",
    "DEFAULT_HASH_BITS",
    "FECCode",
    "byte_error",
    "classical_byte_error",
    "fec_code",
    "FECOutcome",
    "fec_transmit",
    "toeplitz_hash",
    "DECODERS",
    "Distill",
    "FEC",
    "Protection",
    "protection",
    "ProtectionReport",
    "NetFactor",
    "expected_net_factor",
]

#: Bits per RS symbol (one byte); channel uses per byte: 4 qubits (superdense), 8 classical bits.
SYMBOL_BITS = 8
QUBITS_PER_SYMBOL = SYMBOL_BITS // 2
CLASSICAL_USES = SYMBOL_BITS
MAX_BLOCK_LENGTH = 2**SYMBOL_BITS - 1
#: Classical bits the receiver returns per block transmission (accept / retransmit).
ACK_BITS = 1
#: Hash lengths allowed (bits, whole bytes inside the codeword).
HASH_BITS_RANGE = (8, 64)
DEFAULT_HASH_BITS = 64
#: Cap on retransmission rounds of one message (a failure probability this high is a usage error).
MAX_ROUNDS = 10_000
#: Largest block rejection probability a transmission accepts: a code that rejects more is
#: refused up front (it would take many rounds to deliver anything).
MAX_REJECTION = 0.5


def _binom_sf(n: int, p: float) -> np.ndarray:
    """``P(Bin(n, p) > t)`` for t = 0 .. n, as an array of length n + 1 (exact, log space)."""
    if p <= 0.0:
        return np.zeros(n + 1)
    if p >= 1.0:
        return (np.arange(n + 1) < n).astype(float)
    k = np.arange(n + 1)
    lg = np.array([math.lgamma(v + 1.0) for v in range(n + 1)])
    logpmf = lg[n] - lg - lg[::-1] + k * math.log(p) + (n - k) * math.log1p(-p)
    tail = np.cumsum(np.exp(logpmf)[::-1])[::-1]  # tail[j] = P(X >= j), smallest terms first
    sf = np.zeros(n + 1)
    sf[:-1] = tail[1:]
    return np.minimum(sf, 1.0)


@result(show=("k", "data_bytes"))
class FECCode:
    """A Reed–Solomon code over GF(2⁸) with a checksum inside, for the decoded superdense stream.

    Codeword: ``n`` bytes = ``data_bytes`` of payload, ``hash_bits/8`` of checksum, ``2t`` of
    parity (systematic; a message's last block has fewer payload bytes). Byte ``j`` crosses as
    the superdense symbols (qubits) ``4j .. 4j+3``, symbol ``s`` carrying its bits ``2s`` (x) and
    ``2s+1`` (z) (little-endian): a Pauli error on one qubit corrupts exactly one byte.

    Bounded-distance decoding corrects up to ``t`` byte errors; a block with more is detected
    or *miscorrected*, and the checksum (a Toeplitz hash of the payload, key shared offline)
    then rejects it except with probability at most ``2**-hash_bits`` (ε-almost-XOR-universal
    family; a miscorrection does not depend on the key). ``n`` <= 255 bytes; ``hash_bits`` a
    multiple of 8.

    Examples
    --------
    The code :func:`fec_code` picks for a symbol error rate of 1 % (byte error ``1 - 0.99**4``):

    >>> from qring_edu.noise import depolarizing
    >>> code = fec_code(byte_error(depolarizing(0.99)))
    >>> code
    FECCode(n=255, t=17, hash_bits=64, k=221, data_bytes=213)
    >>> round(code.failure_probability(0.039404), 4), round(code.net_factor(0.039404), 4)
    (0.0131, 1.6471)
    """

    n: int
    t: int
    hash_bits: int = DEFAULT_HASH_BITS

    @property
    def k(self) -> int:
        """Message bytes (payload + checksum) per full block: ``n - 2t``."""
        return self.n - 2 * self.t

    @property
    def hash_bytes(self) -> int:
        """Checksum bytes per block: ``hash_bits / 8``."""
        return self.hash_bits // 8

    @property
    def data_bytes(self) -> int:
        """Payload bytes per full block: ``n - 2t - hash_bits/8``."""
        return self.k - self.hash_bytes

    @property
    def overhead_bytes(self) -> int:
        """Checksum and parity bytes per block: ``hash_bits/8 + 2t``."""
        return self.hash_bytes + 2 * self.t

    @property
    def rate(self) -> float:
        """Payload bits per coded bit of a full block: ``data_bytes / n``."""
        return self.data_bytes / self.n

    def failure_probability(self, byte_error: float) -> float:
        """Probability that a full block is rejected: more than ``t`` of its ``n`` bytes wrong."""
        return float(_binom_sf(self.n, float(byte_error))[self.t])

    def net_factor(self, byte_error: float, uses_per_byte: float = QUBITS_PER_SYMBOL) -> float:
        """Expected payload bits per online channel use on a long message:
        ``8 data_bytes (1 - q) / (uses_per_byte n + ACK_BITS)`` (q: the failure probability;
        ``uses_per_byte`` as :func:`fec_code`)."""
        q = self.failure_probability(byte_error)
        return SYMBOL_BITS * self.data_bytes * (1.0 - q) / (uses_per_byte * self.n + ACK_BITS)


def _check_hash_bits(hash_bits) -> int:
    hb = check_int(hash_bits, "hash_bits", *HASH_BITS_RANGE)
    if hb % 8:
        raise ValueError(
            f"hash_bits must be a multiple of 8 in {HASH_BITS_RANGE[0]}.."
            f"{HASH_BITS_RANGE[1]} (whole bytes of the codeword), got {hb}"
        )
    return hb


def byte_error(errors: PauliErrors) -> float:
    """Probability that a byte (four symbols) of the decoded superdense stream arrives wrong:
    ``1 - p_I**4``.

    Examples
    --------
    >>> from qring_edu.noise import depolarizing
    >>> round(byte_error(depolarizing(0.99)), 6)
    0.039404
    """
    if not isinstance(errors, PauliErrors):
        raise TypeError(f"errors must be a PauliErrors, got {errors!r}")
    return 1.0 - errors.fidelity**QUBITS_PER_SYMBOL


def classical_byte_error(channel_fidelity: float) -> float:
    """Probability that a byte sent as 8 classical bits over the depolarising qubit channel of
    fidelity ``F`` arrives wrong (X or Y flips a bit): ``1 - (1 - 2(1 - F)/3)**8``.

    Examples
    --------
    >>> round(classical_byte_error(0.99), 6)
    0.052105
    """
    F = check_fidelity(channel_fidelity, "channel_fidelity")
    return 1.0 - (1.0 - 2.0 * (1.0 - F) / 3.0) ** SYMBOL_BITS


def fec_code(
    byte_error: float,
    *,
    uses_per_byte: float = QUBITS_PER_SYMBOL,
    block_length: int = MAX_BLOCK_LENGTH,
    correctable: int | None = None,
    hash_bits: int = DEFAULT_HASH_BITS,
) -> FECCode:
    """Choose the Reed–Solomon code for a stream whose bytes arrive wrong with ``byte_error``.

    ``byte_error`` in [0, 1) (:func:`byte_error`, or :func:`classical_byte_error`);
    ``uses_per_byte``: channel uses per byte (4 qubits, 8 classical bits); ``block_length``: n
    in bytes, at most 255 (shortened codes below); ``correctable``: t, or ``None`` for the t
    that maximises :meth:`FECCode.net_factor`; ``hash_bits``: a multiple of 8 in 8..64. RS codes
    are MDS (distance n - k + 1) and each qubit error is one byte error (book/04_noisy_links.ipynb).
    ``ValueError`` when the block has no room for ``correctable`` or the link is too noisy.

    Examples
    --------
    >>> fec_code(byte_error(Link(channel_fidelity=0.99).errors))
    FECCode(n=255, t=28, hash_bits=64, k=199, data_bytes=191)
    >>> fec_code(0.0).t
    0
    """
    p = check_float(byte_error, "byte_error", 0.0, 1.0, hi_open=True)
    uses = check_float(uses_per_byte, "uses_per_byte", 0.0, lo_open=True)
    hb = _check_hash_bits(hash_bits)
    hbytes = hb // 8
    n = check_int(block_length, "block_length", hbytes + 1, MAX_BLOCK_LENGTH)
    t_max = (n - hbytes - 1) // 2  # at least one payload byte
    if correctable is not None:
        t = check_int(correctable, "correctable", 0)
        if t > t_max:
            raise ValueError(
                f"correctable must be in 0..{t_max} for block_length {n} with a {hb}-bit "
                f"checksum (2t + checksum bytes + 1 <= block_length), got {t}"
            )
        return FECCode(n=n, t=t, hash_bits=hb)
    sf = _binom_sf(n, p)[: t_max + 1]
    ts = np.arange(t_max + 1)
    factor = SYMBOL_BITS * (n - 2 * ts - hbytes) * (1.0 - sf) / (uses * n + ACK_BITS)
    best = int(np.argmax(factor))
    if factor[best] <= 1e-3 or sf[best] > 0.5:
        raise ValueError(
            f"byte_error {p:.4g} is too high for a Reed–Solomon code of block_length {n}: even "
            f"the best t ({best}) rejects {sf[best]:.1%} of the blocks and carries "
            f"{factor[best]:.3g} bits per channel use (uses_per_byte {uses:g}); use a higher "
            "fidelity or distillation"
        )
    return FECCode(n=n, t=best, hash_bits=hb)


def _block_lengths(n_bytes: int, code: FECCode) -> np.ndarray:
    """Codeword lengths (bytes) of the blocks carrying ``n_bytes`` payload bytes."""
    full, rest = divmod(n_bytes, code.data_bytes)
    sizes = np.full(full + (rest > 0), code.n, dtype=np.int64)
    if rest:
        sizes[-1] = rest + code.overhead_bytes
    return sizes


@result
class FECOutcome:
    """What one message cost over a protected link (:func:`fec_transmit`).

    ``qubits``: symbols sent (= Bell pairs consumed), retransmissions included; ``ack_bits``: one
    per block transmission; ``blocks``; ``transmissions``; ``rejected`` (more than t byte
    errors); ``rounds`` (1 = all accepted at once); ``received``: the accepted payload, uint8
    (real decoder only; ``None`` for the fast model).

    Examples
    --------
    A 100-byte message over a link of fidelity 0.98 (fast model, seeded):

    >>> from qring_edu.noise import depolarizing
    >>> errors = depolarizing(0.98)
    >>> fec_transmit(100, fec_code(byte_error(errors)), errors, np.random.default_rng(0))
    FECOutcome(qubits=656, ack_bits=1, blocks=1, transmissions=1, rejected=0, rounds=1)
    """

    qubits: int
    ack_bits: int
    blocks: int
    transmissions: int
    rejected: int
    rounds: int
    received: np.ndarray | None = field(default=None, repr=False)


def fec_transmit(
    n_bytes: int,
    code: FECCode,
    errors: PauliErrors,
    rng,
    *,
    payload: np.ndarray | None = None,
    decoder: str = "model",
    hash_key: np.ndarray | None = None,
    detail_rng=None,
) -> FECOutcome:
    """Send ``n_bytes`` payload bytes over a protected superdense link until every block is in.

    Each round, each pending block (n' bytes) crosses as ``4 n'`` qubits with
    ``Binomial(n', 1 - p_I**4)`` wrong bytes drawn from ``rng`` (``errors``: one decoded
    symbol's Pauli error). ``decoder="model"`` (exact for bounded-distance decoding): a block
    with more than t wrong bytes is rejected and sent again (a wrong acceptance, <=
    ``2**-hash_bits`` per rejection, is the caller's bound). ``decoder="galois"`` (small
    instances): ``payload`` (uint8) is coded with its hash (key ``hash_key``), errors placed by
    ``detail_rng``, then really decoded and checked; same draws from ``rng`` as the model. A
    code that would reject most blocks is refused (``ValueError`` naming ``code``).

    Examples
    --------
    >>> from qring_edu.noise import depolarizing
    >>> code = fec_code(byte_error(depolarizing(0.98)))
    >>> out = fec_transmit(10_000, code, depolarizing(0.98), np.random.default_rng(0))
    >>> out.blocks, out.transmissions >= out.blocks, out.qubits >= 4 * 10_000
    (53, True, True)
    """
    decoder = check_choice(decoder, "decoder", DECODERS)
    if not isinstance(code, FECCode):
        raise TypeError(f"code must be a FECCode (of fec_code), got {code!r}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {rng!r}")
    n_bytes = check_int(n_bytes, "n_bytes", 0)
    check_memory(n_bytes, "n_bytes", n_bytes)
    sizes = _block_lengths(n_bytes, code)
    p_byte = byte_error(errors)
    q = code.failure_probability(p_byte)
    if q > MAX_REJECTION:
        raise ValueError(
            f"code {code!r} rejects a block with probability {q:.3g} on this link (byte error "
            f"{p_byte:.3g}): choose a larger correctable t (or None: chosen for the link)"
        )
    real = decoder == "galois"
    given = [payload is not None, hash_key is not None, detail_rng is not None]
    if real and not all(given):
        raise ValueError("decoder='galois' needs payload, hash_key and detail_rng")
    if not real and any(given):
        raise ValueError("payload, hash_key and detail_rng go with decoder='galois' only")
    if real:
        rs = _galois_rs(code.n, code.k)
        sent = _encode_blocks(rs, code, payload, hash_key)
        received = np.zeros(int(n_bytes), dtype=np.uint8)
    pending = np.arange(sizes.size)
    qubits = acks = transmissions = rejected = rounds = 0
    while pending.size:
        rounds += 1
        if rounds > MAX_ROUNDS:
            raise RuntimeError(
                f"blocks still rejected after {MAX_ROUNDS} rounds: the code "
                f"({code!r}) cannot carry this link's error rate"
            )
        n_pend = sizes[pending]
        qubits += QUBITS_PER_SYMBOL * int(n_pend.sum())
        acks += ACK_BITS * pending.size
        transmissions += pending.size
        wrong = rng.binomial(n_pend, p_byte) if p_byte > 0 else np.zeros(pending.size, np.int64)
        if real:
            ok = _galois_receive(
                rs, code, sent, pending, wrong, errors, hash_key, detail_rng, received
            )
        else:
            ok = wrong <= code.t
        rejected += int(np.count_nonzero(~ok))
        pending = pending[~ok]
    return FECOutcome(
        qubits=qubits,
        ack_bits=acks,
        blocks=int(sizes.size),
        transmissions=transmissions,
        rejected=rejected,
        rounds=rounds,
        received=received if real else None,
    )


@functools.lru_cache(maxsize=8)
def _galois_rs(n: int, k: int):
    """The primitive RS(255, 255 - (n - k)) code over GF(2^8); shorter blocks are shortened."""
    import galois  # the real decoder: optional dependency, small instances only

    return galois.ReedSolomon(MAX_BLOCK_LENGTH, MAX_BLOCK_LENGTH - (n - k))


def toeplitz_hash(data: np.ndarray, key: np.ndarray, hash_bits: int) -> np.ndarray:
    """Toeplitz hash of the bytes ``data``: ``T · bits(data)`` over GF(2), packed to bytes.

    ``data``: uint8, shape (m,), bit ``i`` of byte ``j`` is bit ``8j + i``; ``key``: 0/1, at
    least ``hash_bits + 8m - 1`` bits, ``T[i, j] = key[i - j + 8m - 1]`` (constant diagonals);
    ``hash_bits``: a multiple of 8. Returns uint8, shape (hash_bits / 8,). For any fixed nonzero
    change of the data and of the hash, a uniform key makes them consistent with probability
    ``2**-hash_bits`` (Krawczyk 1994).

    Examples
    --------
    >>> key = np.random.default_rng(0).integers(0, 2, 16 + 24 - 1)
    >>> toeplitz_hash(np.array([1, 2, 3], dtype=np.uint8), key, 16).tolist()
    [87, 173]
    >>> toeplitz_hash(np.array([1, 2, 2], dtype=np.uint8), key, 16).tolist()
    [171, 114]
    """

    data, m = check_packed_bits(data, None, "data")
    hash_bits = _check_hash_bits(hash_bits)
    check_memory(8 * hash_bits * m, "data", f"{data.size} bytes")
    key = check_bit_array(key, "key")
    if key.size < hash_bits + m - 1:
        raise ValueError(
            f"key must have at least hash_bits + 8 len(data) - 1 = {hash_bits + m - 1} bits, got {key.size}"
        )
    bits = np.unpackbits(data, bitorder="little").astype(np.int64)
    i = np.arange(hash_bits)[:, None]
    j = np.arange(m)[None, :]
    T = key[i - j + m - 1]
    h = (T @ bits) & 1
    return np.packbits(h.astype(np.uint8), bitorder="little")


def _encode_blocks(rs, code: FECCode, payload: np.ndarray, key: np.ndarray) -> list:
    """The codewords of the payload's blocks (payload, checksum, parity), encoded in one batch;
    the last block is shortened (left-padded with zeros to the primitive code's k, which are
    not sent)."""
    msgs = np.zeros((-(-payload.size // code.data_bytes), rs.k), dtype=np.uint8)
    lengths = []
    for i, lo in enumerate(range(0, payload.size, code.data_bytes)):
        data = payload[lo : lo + code.data_bytes]
        msg = np.concatenate([data, toeplitz_hash(data, key, code.hash_bits)])
        msgs[i, rs.k - msg.size :] = msg
        lengths.append(msg.size + 2 * code.t)
    words = np.asarray(rs.encode(rs.field(msgs)).view(np.ndarray), dtype=np.uint8)
    words = words.reshape(len(lengths), MAX_BLOCK_LENGTH)
    return [words[i, MAX_BLOCK_LENGTH - n :] for i, n in enumerate(lengths)]


def _byte_patterns(count: int, errors: PauliErrors, rng) -> np.ndarray:
    """``count`` XOR patterns of a byte whose 4 symbols suffered Paulis from ``errors``,
    conditioned on at least one not being I (rejection sampling)."""
    out = np.zeros(count, dtype=np.uint8)
    probs = np.array(errors.probabilities)
    filled = 0
    while filled < count:
        need = count - filled
        codes = rng.choice(4, size=(2 * need + 8, QUBITS_PER_SYMBOL), p=probs)
        pats = (codes << (2 * np.arange(QUBITS_PER_SYMBOL))).sum(axis=1).astype(np.uint8)
        pats = pats[pats != 0][:need]
        out[filled : filled + pats.size] = pats
        filled += pats.size
    return out


def _galois_receive(rs, code, sent, pending, wrong, errors, key, rng, received) -> np.ndarray:
    """One round of the real receiver: corrupt the pending codewords (``wrong[i]`` byte errors at
    positions and with patterns from ``rng``), decode them in one batch (each left-padded with
    zeros to the primitive length: a shortened code), check the checksums and store accepted
    payloads in ``received``. Returns the accept flags."""
    words = np.zeros((pending.size, MAX_BLOCK_LENGTH), dtype=np.uint8)
    shorten = np.empty(pending.size, dtype=np.int64)
    for i, (blk, w) in enumerate(zip(pending, wrong)):
        word = sent[int(blk)].copy()
        if w:
            pos = rng.choice(word.size, size=int(w), replace=False)
            word[pos] ^= _byte_patterns(int(w), errors, rng)
        shorten[i] = MAX_BLOCK_LENGTH - word.size
        words[i, shorten[i] :] = word
    decoded, n_err = rs.decode(rs.field(words), errors=True)
    decoded = np.asarray(decoded.view(np.ndarray), dtype=np.uint8).reshape(pending.size, -1)
    n_err = np.atleast_1d(np.asarray(n_err))
    ok = np.zeros(pending.size, dtype=bool)
    for i, blk in enumerate(pending):
        if n_err[i] < 0:
            continue  # the decoder itself detected too many errors
        msg = decoded[i, shorten[i] :]
        data, tag = msg[: -code.hash_bytes], msg[-code.hash_bytes :]
        if np.array_equal(toeplitz_hash(data, key, code.hash_bits), tag):
            ok[i] = True
            lo = int(blk) * code.data_bytes
            received[lo : lo + data.size] = data
    return ok


# -- Schemes as values -----------------------------------------------------------------------------

DECODERS = ("model", "galois")


@result
class Distill:
    """Distil the pairs offline: ``rounds`` recurrence rounds of ``protocol`` ("dejmps" or
    "bbpssw"; :func:`qring_edu.distillation.distill`).

    Examples
    --------
    >>> Distill(rounds=2)
    Distill(rounds=2, protocol='dejmps')
    """

    rounds: int = 1
    protocol: str = "dejmps"

    def __post_init__(self):
        check_int(self.rounds, "rounds", 1, 64)
        check_choice(self.protocol, "protocol", DISTILL_PROTOCOLS)

    def of(self, link: Link) -> Distillation:
        """The distillation of ``link``'s pairs (:func:`~qring_edu.distillation.distill`)."""
        if link.pair <= 0.5:
            name = "pair_fidelity" if link.pair_fidelity is not None else "channel_fidelity"
            raise ValueError(
                f"{name} must exceed 1/2 to distil the pairs, got {link.pair:g}: a Werner pair "
                "with F <= 1/2 is separable and no recurrence raises its fidelity"
            )
        return distill(link.pair, rounds=self.rounds, protocol=self.protocol)


@result
class FEC:
    """Code the decoded stream: Reed–Solomon blocks of ``block_length`` bytes correcting
    ``correctable`` byte errors (``None``: chosen for the link, :func:`fec_code`) with a
    ``hash_bits`` checksum, rejected blocks sent again; ``decoder`` "model" (the exact fast
    model) or "galois" (a real decoder, small instances).

    Examples
    --------
    >>> FEC(block_length=64)
    FEC(block_length=64, correctable=None, hash_bits=64, decoder='model')
    """

    block_length: int = MAX_BLOCK_LENGTH
    correctable: int | None = None
    hash_bits: int = DEFAULT_HASH_BITS
    decoder: str = "model"

    def __post_init__(self):
        check_choice(self.decoder, "decoder", DECODERS)
        self.code(0.0)  # checks block_length, correctable and hash_bits

    def code(self, byte_error_rate: float, uses_per_byte: float = QUBITS_PER_SYMBOL) -> FECCode:
        """The code for a stream with this byte error rate (:func:`fec_code`)."""
        return fec_code(
            byte_error_rate,
            uses_per_byte=uses_per_byte,
            block_length=self.block_length,
            correctable=self.correctable,
            hash_bits=self.hash_bits,
        )


@result(show=("scheme",))
class Protection:
    """How a superdense link is protected: distillation, coding, both, or neither.

    Examples
    --------
    >>> Protection(fec=FEC()).scheme, protection("distill+fec").distill
    ('fec', Distill(rounds=1, protocol='dejmps'))
    """

    distill: Distill | None = None
    fec: FEC | None = None

    def __post_init__(self):
        for name, kind in (("distill", Distill), ("fec", FEC)):
            value = getattr(self, name)
            if value is not None and not isinstance(value, kind):
                raise TypeError(f"{name} must be a {kind.__name__} or None, got {value!r}")

    @property
    def scheme(self) -> str:
        """``"none"``, ``"distill"``, ``"fec"`` or ``"distill+fec"``."""
        parts = [n for n in ("distill", "fec") if getattr(self, n) is not None]
        return "+".join(parts) or "none"


#: The shorthand names of :func:`protection`.
SCHEMES = ("none", "distill", "fec", "distill+fec")


def protection(value: str | Protection = "none", name: str = "value") -> Protection:
    """A :class:`Protection` from a shorthand name (defaults for every part) or itself;
    ``name`` is the argument's name in the error message.

    Examples
    --------
    >>> protection("fec")
    Protection(distill=None, fec=FEC(block_length=255, correctable=None, hash_bits=64, decoder='model'), scheme='fec')
    """
    check_name(name)
    if isinstance(value, Protection):
        return value
    label = name if "protection" in name else f"{name} (the protection scheme)"
    scheme = check_choice(value, label, SCHEMES)
    return Protection(
        distill=Distill() if "distill" in scheme else None,
        fec=FEC() if "fec" in scheme else None,
    )


@result(show=("undetected_bound",))
class ProtectionReport:
    """What a noisy or protected superdense link did over one ring run.

    ``errors``: one online symbol's Pauli error (distilled pairs when distilling);
    ``distillation``, ``code``: the parts used (or ``None``); ``blocks``, ``transmissions``,
    ``rejected``: over all messages. ``undetected_bound`` >= P(some output differs from the
    noiseless ring's): 1 without a code if a symbol can err; with one, ``2**-hash_bits
    E[rejected] <= 2**-hash_bits blocks q / (1 - q)`` (q: a full block's rejection probability;
    a key fresh per run).

    Examples
    --------
    >>> from qring_edu import ring_allreduce
    >>> g = np.arange(4 * 64).reshape(4, 64)
    >>> r = ring_allreduce(g, transport="superdense", pair_fidelity=0.99, protection="fec", seed=0)
    >>> report = r.link_report
    >>> report.blocks > 0, report.rejected <= report.transmissions, report.undetected_bound < 1e-6
    (True, True, True)
    """

    protection: Protection = field(repr=False)
    errors: PauliErrors = field(repr=False)
    distillation: Distillation | None = field(repr=False)
    code: FECCode | None
    blocks: int
    transmissions: int
    rejected: int

    @property
    def undetected_bound(self) -> float:
        if self.code is None:
            return 1.0 if self.errors.error_rate > 0 else 0.0
        q = self.code.failure_probability(byte_error(self.errors))
        return min(1.0, self.blocks * q / (1.0 - q) * 2.0 ** (-self.code.hash_bits))


# -- Expected factors of a scheme on a long message ------------------------------------------------


@result(show=("advantage",))
class NetFactor:
    """Expected cost of a protection scheme on a long message (:func:`expected_net_factor`).

    ``online``: payload bits per online channel use (lost photons and side bits included);
    ``lifetime``: per channel use including the offline raw pairs and announcements; ``bound``:
    ``η C_E`` of the decoded symbol channel (no scheme does better online); ``reliable``: errors
    corrected; ``symbol_error``; ``classical``: the same code sent as classical bits over the same
    channel (reliable schemes) or 1 (uncoded bits); ``advantage``: ``online / classical``.

    Examples
    --------
    >>> f = expected_net_factor(Protection(fec=FEC()), link=Link(0.99))
    >>> round(f.online, 3), round(f.classical, 3), round(f.advantage, 2)
    (1.647, 0.968, 1.7)
    """

    scheme: str
    online: float
    lifetime: float
    bound: float
    reliable: bool
    symbol_error: float
    classical: float
    code: FECCode | None = field(repr=False, default=None)
    distillation: Distillation | None = field(repr=False, default=None)

    @property
    def advantage(self) -> float:
        return self.online / self.classical if self.classical > 0 else math.inf


def expected_net_factor(scheme: str | Protection = "fec", *, link: Link = Link()) -> NetFactor:
    """Closed-form online and lifetime factors of a protection scheme on ``link``.

    ``"none"``: online ``2 η``, lifetime ``2 η / (1 + 1/η)``; ``"distill"``: online ``2 η``,
    the lifetime also pays raw pairs and announcements (neither is reliable); ``"fec"``,
    ``"distill+fec"``: :meth:`FECCode.net_factor` with ``4/η`` photons per byte, against the same
    code as classical bits over the same channel (bit flip ``2(1 - F_ch)/3``; loss dims a bright
    classical pulse, so η does not enter it).

    Examples
    --------
    >>> nf = expected_net_factor("fec", link=Link(channel_fidelity=0.99))
    >>> round(nf.online, 4), round(nf.classical, 4), round(nf.advantage, 3), nf.reliable
    (1.4612, 0.7915, 1.846, True)
    """
    prot = protection(scheme, "scheme")
    if not isinstance(link, Link):
        raise TypeError(f"link must be a qring_edu.noise.Link, got {link!r}")
    eta = link.transmission
    dist, raw, announce = None, 1.0, 0.0  # raw pairs and offline bits per online qubit
    if prot.distill is not None:
        dist = prot.distill.of(link)
        raw, announce = dist.raw_pairs_per_pair, dist.offline_bits_per_pair
    errors = link.symbol_errors(None if dist is None else dist.errors)
    bound = eta * errors.capacity()
    offline = raw / eta  # each raw pair's half is sent until it arrives
    code, classical = None, 1.0
    if prot.fec is None:
        per_qubit = 1.0 / eta  # photons per symbol online
        online = 2.0 / per_qubit
        lifetime = 2.0 / (per_qubit * (1.0 + offline) + per_qubit * announce)
    else:
        code = prot.fec.code(byte_error(errors), QUBITS_PER_SYMBOL / eta)
        q = code.failure_probability(byte_error(errors))
        payload = SYMBOL_BITS * code.data_bytes * (1.0 - q)  # per block transmission
        photons = QUBITS_PER_SYMBOL * code.n / eta
        online = payload / (photons + ACK_BITS)
        lifetime = payload / (photons * (1.0 + offline + announce) + ACK_BITS)
        p_classical = classical_byte_error(link.channel_fidelity)
        try:
            classical = prot.fec.code(p_classical, CLASSICAL_USES).net_factor(
                p_classical, CLASSICAL_USES
            )
        except ValueError:  # the classical bits are too noisy for any code of this length
            classical = 0.0
    reliable = code is not None
    return NetFactor(
        prot.scheme, online, lifetime, bound, reliable, errors.error_rate, classical, code, dist
    )
