"""Transports: how one message of the ring crosses its link (book/03_superdense_ring.ipynb).

A transport is a small frozen value with one method, ``send(words, *, bits, step, sender, seed,
ledger)``: it records what the message costs on the :class:`~qring_edu.ledger.Ledger` and
returns the words as the receiver gets them, its own noise applied (drawn from the message's
stream :func:`qring_edu.noise.message_rng` ``(seed, step, sender)``). :class:`Classical` sends
bits, :class:`Superdense` qubits over a :class:`~qring_edu.noise.Link`, :class:`Protected` adds
distillation and/or coding (:mod:`qring_edu.protection`). :func:`as_transport` reads the
shorthand ``"classical"`` / ``"superdense"`` with link keywords.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import ClassVar

import numpy as np

from ._result import result
from ._validate import check_choice, check_int
from .distillation import sample_production
from .ledger import Ledger
from .noise import Link, PauliErrors, draw_noise, flip_bits, message_rng
from .protection import (
    MAX_REJECTION,
    SYMBOL_BITS,
    FECCode,
    Protection,
    ProtectionReport,
    byte_error,
    fec_transmit,
    protection,
)

__all__ = ["TRANSPORTS", "Classical", "Superdense", "Protected", "as_transport", "symbols"]

#: The shorthand names of :func:`as_transport`.
TRANSPORTS = ("classical", "superdense")
#: A schedule step no ring reaches: the stream of a protected link's checksum key.
KEY_STEP = 1 << 30
#: The counts of a coded message that are not channel uses (events of ``Ledger.record``).
EVENTS = ("blocks", "transmissions", "rejected")


def symbols(n_bits: int) -> int:
    """Qubits (= Bell pairs) needed to send ``n_bits`` bits by superdense coding: ``ceil(n/2)``.

    Examples
    --------
    >>> symbols(16), symbols(17)
    (8, 9)
    """
    return (check_int(n_bits, "n_bits", 0) + 1) // 2


@result
class Classical:
    """Bits on a classical link: ``b`` bits a word, nothing lost, nothing flipped.

    Examples
    --------
    >>> ledger = Ledger(2, "classical", 2)
    >>> words = np.array([3, 5], dtype=np.uint32)
    >>> Classical().send(words, bits=8, step=0, sender=0, seed=None, ledger=ledger).tolist()
    [3, 5]
    >>> ledger.online_bits((0, 1))
    16
    """

    name: ClassVar[str] = "classical"

    def send(self, words, *, bits, step, sender, seed, ledger: Ledger) -> np.ndarray:
        """Record ``len(words) * bits`` bits on link ``(sender, sender + 1)``; return ``words``."""
        ledger.record(sender, step, bits=words.size * bits)
        return words


@result
class Superdense:
    """Superdense coding over the pre-shared pairs of a :class:`~qring_edu.noise.Link`: ``k``
    bits are ``n = ceil(k/2)`` symbols, one :func:`~qring_edu.noise.draw_noise`; ``sent = n +
    lost`` photons cross online, each on a pair whose half was sent offline until it arrived.

    Examples
    --------
    >>> ledger = Ledger(2, "superdense", 2)
    >>> words = np.arange(4, dtype=np.uint32)
    >>> root = np.random.SeedSequence(0)
    >>> out = Superdense(Link(0.9)).send(words, bits=16, step=0, sender=1, seed=root, ledger=ledger)
    >>> ledger.online_qubits((1, 0)), ledger.ebits((1, 0)), ledger.offline_qubits((1, 0))
    (32, 32, 32)
    >>> int((out != words).sum())                       # words hit by the pairs' errors
    1
    """

    link: Link = Link()
    name: ClassVar[str] = "superdense"

    def __post_init__(self):
        if not isinstance(self.link, Link):
            raise TypeError(f"link must be a qring_edu.noise.Link, got {self.link!r}")

    def send(self, words, *, bits, step, sender, seed, ledger: Ledger) -> np.ndarray:
        n = symbols(words.size * bits)
        if self.link.noiseless:
            ledger.record(sender, step, qubits=n, ebits=n, offline_qubits=n)
            return words
        rng = message_rng(seed, step, sender)
        noise = draw_noise(n, self.link.errors, rng, self.link.transmission)
        sent = noise.sent  # the symbols and the lost photons, each on its own pair
        offline = _delivered(sent, self.link.transmission, rng)
        ledger.record(sender, step, qubits=sent, ebits=sent, offline_qubits=offline, lost=sent - n)
        if noise.positions.size == 0:
            return words
        out = words.copy()
        flip_bits(out, bits, noise.positions, noise.codes)
        return out


def _delivered(pairs: int, eta: float, rng) -> int:
    """Photons sent to deliver ``pairs`` halves over a link of transmission ``eta``."""
    return pairs + (int(rng.negative_binomial(pairs, eta)) if eta < 1.0 and pairs else 0)


@result
class Protected:
    """A superdense transport with error protection: distilled pairs and/or a coded stream.

    Distillation: the raw pairs are ``offline_qubits``, the announcements ``offline_bits``; the
    symbols suffer the distilled pairs' errors composed with the channel's. Coding
    (:func:`~qring_edu.protection.fec_transmit`): parity, checksum and retransmitted qubits are
    ``online_qubits`` (and ``ebits``), acknowledgements ``online_bits``, each link's checksum
    key ``offline_bits``. The fast model returns the words sent (wrong with probability at most
    ``ProtectionReport.undetected_bound``), ``decoder="galois"`` what a real decoder accepted.

    Examples
    --------
    >>> t = Protected(Superdense(Link(channel_fidelity=0.99)), protection("fec"))
    >>> ledger = Ledger(2, "superdense", 2)
    >>> words = np.arange(1000, dtype=np.uint32)
    >>> out = t.send(words, bits=16, step=0, sender=0, seed=np.random.SeedSequence(1), ledger=ledger)
    >>> bool((out == words).all()), ledger.online_qubits((0, 1)) > 8000, ledger.online_bits((0, 1))
    (True, True, 13)
    """

    inner: Superdense
    protection: Protection
    name: ClassVar[str] = "superdense"

    def __post_init__(self):
        if not isinstance(self.inner, Superdense):
            raise TypeError(f"inner must be a Superdense transport, got {self.inner!r}")
        if not isinstance(self.protection, Protection):
            raise TypeError(f"protection must be a Protection, got {self.protection!r}")
        _ = self.plan  # validated now: distillation below F = 1/2, a code the link cannot carry

    @functools.cached_property
    def plan(self) -> tuple:
        """``(distillation or None, symbol errors, code or None)`` for this link."""
        link = self.inner.link
        dist = None if self.protection.distill is None else self.protection.distill.of(link)
        errors = link.symbol_errors(None if dist is None else dist.errors)
        code = None
        if self.protection.fec is not None:
            p = byte_error(errors)
            code = self.protection.fec.code(p)
            q = code.failure_probability(p)
            if q > MAX_REJECTION:  # refused now, not after rounds of rejected blocks
                raise ValueError(
                    f"protection: a code correcting {code.t} byte errors per block rejects a "
                    f"block with probability {q:.3g} on this link (byte error {p:.3g}); choose a "
                    "larger FEC correctable (or None: chosen for the link)"
                )
        return dist, errors, code

    def report(self, ledger: Ledger) -> ProtectionReport:
        """What the protection did over the messages recorded on ``ledger``."""
        dist, errors, code = self.plan
        return ProtectionReport(
            protection=self.protection,
            errors=errors,
            distillation=dist,
            code=code,
            **{k: ledger.events(k) for k in EVENTS},
        )

    def send(self, words, *, bits, step, sender, seed, ledger: Ledger) -> np.ndarray:
        dist, errors, code = self.plan
        eta = self.inner.link.transmission
        rng = message_rng(seed, step, sender)
        received, extra = words, {}
        if code is None:  # distilled pairs, uncoded stream
            n = symbols(words.size * bits)
            noise = draw_noise(n, errors, rng, eta)
            sent, acks, arrived = noise.sent, 0, n
            if noise.positions.size:
                received = words.copy()
                flip_bits(received, bits, noise.positions, noise.codes)
        else:
            received, out = _coded(words, bits, code, errors, rng, self.protection, seed, sender)
            sent, arrived = _delivered(out.qubits, eta, rng), out.qubits
            acks = out.ack_bits
            extra = {k: getattr(out, k) for k in EVENTS}
        raw, announced = sent, 0
        if dist is not None:
            raw, _, announced = sample_production(
                sent, dist.success_probabilities, dist.protocol, rng
            )
        key = 0
        if code is not None and ledger.sent(sender) == 0:  # this link's checksum key
            key = code.hash_bits + SYMBOL_BITS * code.data_bytes - 1
        ledger.record(
            sender,
            step,
            bits=acks,
            qubits=sent,
            ebits=sent,
            offline_qubits=_delivered(raw, eta, rng),
            offline_bits=announced + key,
            lost=sent - arrived,  # heralded losses: each burnt its pair and was sent again
            **extra,
        )
        return received


def _coded(words, bits, code: FECCode, errors: PauliErrors, rng, prot: Protection, seed, sender):
    """The message's bytes through :func:`~qring_edu.protection.fec_transmit`."""
    n_bytes = -(-(words.size * bits) // SYMBOL_BITS)
    if prot.fec.decoder == "model":
        return words, fec_transmit(n_bytes, code, errors, rng)
    key = message_rng(seed, KEY_STEP, sender).integers(
        0, 2, code.hash_bits + SYMBOL_BITS * code.data_bytes - 1
    )
    stream = ((words[:, None] >> np.arange(bits, dtype=words.dtype)) & 1).astype(np.uint8)
    payload = np.packbits(stream.ravel(), bitorder="little")
    sub = rng.spawn(1)[0]  # the decoder's own stream
    out = fec_transmit(
        n_bytes, code, errors, rng, payload=payload, decoder="galois", hash_key=key, detail_rng=sub
    )
    got = np.unpackbits(out.received, bitorder="little")[: words.size * bits]
    got = got.reshape(words.size, bits).astype(words.dtype) << np.arange(bits, dtype=words.dtype)
    return got.sum(axis=1, dtype=words.dtype), out


_LINK_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Link)}


def as_transport(transport="classical", *, protection_scheme="none", **link):
    """A transport from a value (returned as is; no other keyword then) or from the shorthand
    ``"classical"`` / ``"superdense"``: the link keywords (:class:`~qring_edu.noise.Link`) build
    the superdense link, wrapped by ``protection_scheme`` (a name or a ``Protection``);
    ``"classical"`` takes link keywords only at their noiseless values.

    Examples
    --------
    >>> as_transport("superdense", pair_fidelity=0.99)
    Superdense(link=Link(pair_fidelity=0.99, channel_fidelity=1, storage_time=0, coherence_time=inf, transmission=1))
    >>> as_transport("classical", pair_fidelity=0.9)
    Traceback (most recent call last):
    ...
    ValueError: pair_fidelity=0.9 applies only to transport='superdense' (the classical network is error-free)
    """
    prot = protection(protection_scheme, "protection_scheme")
    if isinstance(transport, (Classical, Superdense, Protected)):
        given = sorted(link) + ([] if prot.scheme == "none" else ["protection"])
        if given:
            raise TypeError(
                f"{', '.join(given)} go with the shorthand transport='superdense' only; "
                f"{type(transport).__name__} carries its own link"
            )
        return transport
    if not isinstance(transport, str):
        raise TypeError(
            "transport must be 'classical', 'superdense' or a transport value (Classical(), "
            f"Superdense(link), Protected(...)), got {transport!r}"
        )
    name = check_choice(transport, "transport", TRANSPORTS)
    unknown = sorted(set(link) - set(_LINK_DEFAULTS))
    if unknown:
        raise TypeError(
            f"unknown keyword {unknown[0]!r}: the link keywords are {', '.join(_LINK_DEFAULTS)}"
        )
    if name == "classical":
        if not Link(**link).noiseless:  # all keywords together: storage_time needs a finite T2
            noisy = [f"{k}={v!r}" for k, v in link.items() if v != _LINK_DEFAULTS[k]]
            verb = "applies" if len(noisy) == 1 else "apply"
            raise ValueError(
                f"{', '.join(noisy)} {verb} only to transport='superdense' "
                "(the classical network is error-free)"
            )
        if prot.scheme != "none":
            raise ValueError("protection applies only to transport='superdense'")
        return Classical()
    inner = Superdense(Link(**link))
    return inner if prot.scheme == "none" else Protected(inner, prot)
