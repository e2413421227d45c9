"""The communication ledger (core layer): what crossed each directed link, in which currency.

Currencies, all counted per directed link ``(k, (k+1) % P)`` of the ring:

* ``online_bits``    classical bits sent during the all-reduce (the classical transport, and a
  quantum link's side traffic: acknowledgements, retransmission requests);
* ``online_qubits``  qubits sent during the all-reduce (superdense transport, 2 bits per qubit);
* ``ebits``          pre-shared Bell pairs consumed on that link (one per online qubit);
* ``offline_qubits`` qubits sent *before* the all-reduce to distribute those pairs (one per
  *raw* pair: with distillation more than the pairs consumed);
* ``offline_bits``   classical bits sent before (distillation's announcements, the checksum
  key of a protected link; :mod:`qring_edu.protection`).

Counters only (O(P) memory), never copies of the messages.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Ledger"]

_CURRENCIES = ("online_bits", "online_qubits", "ebits", "offline_qubits", "offline_bits")


class Ledger:
    """Per-link channel use of one collective operation of ``workers`` (P) workers over
    ``steps`` synchronous steps (``2 (P - 1)`` for the ring); ``transport`` is a label.

    ``links``: ``[(0, 1), ..., (P-1, 0)]``; ``messages``: messages recorded; ``step_units[s]``:
    step ``s``'s largest message, bits or qubits (α–β model). Queries take ``link=None`` (the
    maximum over links: a synchronous ring's critical path) or a link ``(k, (k+1) % P)``.

    Examples
    --------
    >>> import qring_edu as qr
    >>> grads = np.arange(18).reshape(3, 6)          # 2 (P - 1) (d / P) b = 64 bits per link
    >>> qr.ring_allreduce(grads, bits=8).ledger
    Ledger(P=3, transport='classical', steps=4, online_bits=64, online_qubits=0, ebits=0, offline_qubits=0)
    >>> ledger = qr.ring_allreduce(grads, bits=8, transport="superdense").ledger
    >>> ledger.online_qubits(), ledger.ebits((2, 0)), ledger.lifetime_uses()
    (32, 32, 64)
    """

    def __init__(self, workers: int, transport: str, steps: int):
        self.workers = int(workers)
        self.transport = transport
        self.steps = int(steps)
        self.links: list[tuple[int, int]] = [(k, (k + 1) % workers) for k in range(workers)]
        self._counts = {c: np.zeros(workers, dtype=np.int64) for c in _CURRENCIES}
        self._events: dict[str, np.ndarray] = {}
        self._sent = np.zeros(workers, dtype=np.int64)  # messages per link
        self.step_units = np.zeros(self.steps, dtype=np.int64)
        self.messages = 0

    def record(
        self, sender, step, *, bits=0, qubits=0, ebits=0, offline_qubits=0, offline_bits=0, **events
    ) -> None:
        """Add one message sent by ``sender`` over link ``(sender, sender+1)`` at ``step``: its
        counts (ints) in each currency, and ``events``: counts that are not channel uses (blocks,
        lost photons; :meth:`events`)."""
        for c, n in zip(_CURRENCIES, (bits, qubits, ebits, offline_qubits, offline_bits)):
            self._counts[c][sender] += n
        for name, n in events.items():
            self._events.setdefault(name, np.zeros(self.workers, dtype=np.int64))[sender] += n
        self._sent[sender] += 1
        self.step_units[step] = max(self.step_units[step], bits + qubits)
        self.messages += 1

    def sent(self, sender: int) -> int:
        """Messages recorded so far on link ``(sender, sender + 1)``."""
        return int(self._sent[sender])

    def events(self, name: str) -> int:
        """Total of the count ``name`` over every link (0 if no message recorded it)."""
        return int(self._events[name].sum()) if name in self._events else 0

    def _get(self, currency: str, link) -> int:
        counts = self._counts[currency]
        if link is None:
            return int(counts.max())
        try:
            if isinstance(link, (str, bytes)):  # "01" would otherwise unpack to (0, 1)
                raise TypeError
            src, dst = (int(v) for v in link)
        except (TypeError, ValueError):
            raise TypeError(f"link must be None or a pair (k, (k+1) % P), got {link!r}") from None
        if not (0 <= src < self.workers) or dst != (src + 1) % self.workers:
            raise ValueError(
                f"link must be one of the ring's directed links (k, (k+1) % {self.workers}), "
                f"got {link!r}"
            )
        return int(counts[src])

    def online_bits(self, link=None) -> int:
        """Classical bits sent online over ``link`` (``None``: the maximum over links)."""
        return self._get("online_bits", link)

    def online_qubits(self, link=None) -> int:
        """Qubits sent online over ``link``."""
        return self._get("online_qubits", link)

    def ebits(self, link=None) -> int:
        """Pre-shared Bell pairs consumed on ``link``."""
        return self._get("ebits", link)

    def offline_qubits(self, link=None) -> int:
        """Qubits sent offline to distribute the pairs used on ``link``."""
        return self._get("offline_qubits", link)

    def offline_bits(self, link=None) -> int:
        """Classical bits sent offline for ``link`` (distillation announcements, checksum key)."""
        return self._get("offline_bits", link)

    def lifetime_uses(self, link=None) -> int:
        """Channel uses over the pairs' whole lifetime: online bits + online qubits + offline qubits."""
        if link is None:
            total = sum(self._counts[c] for c in ("online_bits", "online_qubits", "offline_qubits"))
            return int(total.max())
        return self.online_bits(link) + self.online_qubits(link) + self.offline_qubits(link)

    def per_link(self, currency: str) -> np.ndarray:
        """Counts of ``currency`` for every link, shape ``(P,)`` (a copy)."""
        if currency not in self._counts:
            raise ValueError(f"currency must be one of {', '.join(_CURRENCIES)}, got {currency!r}")
        return self._counts[currency].copy()

    def ring_time(self, alpha: float, beta: float) -> float:
        """α–β time of the schedule: ``sum over steps of (alpha + beta * largest message)``;
        ``alpha`` seconds per step, ``beta`` seconds per bit or qubit on one link."""
        return float(self.steps * alpha + beta * self.step_units.sum())

    def as_dict(self, link=None) -> dict[str, int]:
        """Every currency on ``link`` (``None``: each currency's maximum over links), by name."""
        return {c: self._get(c, link) for c in _CURRENCIES}

    def __repr__(self) -> str:
        # offline_bits only when some were sent, so the repr of unprotected runs stays as it was
        vals = ", ".join(f"{k}={v}" for k, v in self.as_dict().items() if k != "offline_bits" or v)
        return f"Ledger(P={self.workers}, transport={self.transport!r}, steps={self.steps}, {vals})"
