"""Helpers shared by the experiments of every chapter: :class:`Table` (what ``result.table()``
returns: text ``repr`` and ``_repr_html_``), the mixin :class:`Tabular` and the record result
:class:`Rows`, the two ledgers of one all-reduce link by link (:func:`compare_ledgers`, chapters
2 and 3), and small checks (:func:`rng`, :func:`worker_counts`, :func:`loglog_slope`).
"""

from __future__ import annotations

import html
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._result import result
from .._validate import check_int
from ..ledger import Ledger

__all__ = [
    "Table",
    "Tabular",
    "Rows",
    "LedgerComparison",
    "compare_ledgers",
    "rng",
    "worker_counts",
    "loglog_slope",
]


def _plain(value: Any) -> Any:
    """NumPy scalars -> Python scalars, so cells format and compare like plain numbers."""
    return value.item() if isinstance(value, np.generic) else value


@dataclass(frozen=True)
class Table:
    """A small table of results: ``columns`` (headers), ``rows`` (tuples of plain Python values,
    one per column) and ``formats`` (one ``format()`` spec per column). ``None`` prints as ``–``;
    numeric columns are right-aligned. ``repr``: fixed-width text; ``_repr_html_``: HTML.

    Examples
    --------
    >>> t = Table(("P", "bits"), ((2, 1000), (4, 1500)), ("d", ",d"))
    >>> print(t)
    P   bits
    2  1,000
    4  1,500
    >>> t.column("bits")
    (1000, 1500)
    """

    columns: tuple[str, ...]
    rows: tuple[tuple, ...]
    formats: tuple[str, ...] = ()
    title: str = ""

    def __post_init__(self) -> None:
        columns = tuple(str(c) for c in self.columns)
        rows = tuple(tuple(_plain(v) for v in row) for row in self.rows)
        formats = tuple(self.formats) or ("",) * len(columns)
        if not columns:
            raise ValueError("columns must name at least one column")
        if len(formats) != len(columns):
            raise ValueError(
                f"formats must have one entry per column ({len(columns)}), got {len(formats)}"
            )
        for i, row in enumerate(rows):
            if len(row) != len(columns):
                raise ValueError(f"rows[{i}] has {len(row)} values for {len(columns)} columns")
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "formats", formats)

    def __len__(self) -> int:
        return len(self.rows)

    def column(self, name: str) -> tuple:
        """The values of one column, top to bottom."""
        if name not in self.columns:
            raise ValueError(
                f"name must be one of {', '.join(map(repr, self.columns))}, got {name!r}"
            )
        j = self.columns.index(name)
        return tuple(row[j] for row in self.rows)

    def _numeric(self, j: int) -> bool:
        return all(isinstance(r[j], numbers.Number) or r[j] is None for r in self.rows)

    def cells(self) -> list[list[str]]:
        """Every cell as the text it prints, row by row (``format(value, spec)``, None as –)."""
        return [
            ["–" if v is None else format(v, f) for v, f in zip(r, self.formats)] for r in self.rows
        ]

    def text(self) -> str:
        """The fixed-width text table (two spaces between columns)."""
        cells = self.cells()
        widths = [max([len(h)] + [len(r[j]) for r in cells]) for j, h in enumerate(self.columns)]
        right = [self._numeric(j) for j in range(len(self.columns))]

        def line(values):
            parts = [v.rjust(w) if r else v.ljust(w) for v, w, r in zip(values, widths, right)]
            return "  ".join(parts).rstrip()

        out = ([self.title] if self.title else []) + [line(self.columns)]
        return "\n".join(out + [line(r) for r in cells])

    __repr__ = __str__ = text

    def _repr_html_(self) -> str:
        esc = html.escape
        right = [self._numeric(j) for j in range(len(self.columns))]
        style = ["text-align:right" if r else "text-align:left" for r in right]
        head = "".join(f'<th style="{s}">{esc(h)}</th>' for h, s in zip(self.columns, style))
        body = "".join(
            "<tr>" + "".join(f'<td style="{s}">{esc(c)}</td>' for c, s in zip(r, style)) + "</tr>"
            for r in self.cells()
        )
        caption = f"<caption>{esc(self.title)}</caption>" if self.title else ""
        return (
            f'<table class="qring-table">{caption}<thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>"
        )


class Tabular:
    """Mixin of the results that offer a :class:`Table`: the notebook shows ``table()``
    (``_repr_html_``); the class defines :meth:`table`.

    Examples
    --------
    >>> class Two(Tabular):
    ...     def table(self):
    ...         return Table(("x",), ((1,), (2,)))
    >>> Two()._repr_html_().startswith('<table class="qring-table">')
    True
    """

    def table(self) -> Table:
        """The result as a :class:`Table` (defined by each class)."""
        raise NotImplementedError

    def _repr_html_(self) -> str:
        return self.table()._repr_html_()


@result
class Rows(Tabular):
    """A result made of records (frozen dataclasses), one per row: iterable, indexable and sized
    like the tuple ``rows`` (not in the ``repr``); a subclass defines :meth:`table`.

    Examples
    --------
    >>> from qring_edu.experiments.bottleneck import model_comm_table
    >>> rows = model_comm_table(models=["ResNet-50"], bits=[16, 32])
    >>> len(rows), rows[0].bits, [r.bits for r in rows]
    (2, 16, [16, 32])
    """

    rows: tuple = field(repr=False)

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]

    def _find(self, **key):
        """The first row whose attributes equal ``key`` (``name=value`` pairs); a ValueError
        naming the arguments and the values the rows hold otherwise."""
        names, wanted = tuple(key), tuple(key.values())
        held = [tuple(getattr(r, n) for n in names) for r in self.rows]
        if wanted in held:
            return self.rows[held.index(wanted)]
        if len(names) == 1:  # name the value, not a 1-tuple
            held, wanted = [h[0] for h in held], wanted[0]
        allowed = ", ".join(map(repr, held))
        raise ValueError(f"{' and '.join(names)} must be one of {allowed}, got {wanted!r}")


# -- Two ledgers of the same all-reduce ------------------------------------------------------------
@result(show=("workers", "max_classical_bits", "max_online_qubits"))
class LedgerComparison(Tabular):
    """The classical and the superdense ledger of one all-reduce, per directed link.

    Arrays of shape (P,), one entry per link ``(k, k+1)``: ``classical_bits`` (classical ring),
    ``online_qubits``, ``ebits`` and ``offline_qubits`` (superdense ring). ``floor`` = classical
    bits / 2 (the entanglement-assisted Holevo bound); ``excess`` = online qubits − floor (½ per
    message with an odd number of bits).

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu.ring import ring_allreduce
    >>> zeros = np.zeros((3, 7), dtype=np.int64)
    >>> cmp = compare_ledgers(ring_allreduce(zeros, bits=5).ledger,
    ...                       ring_allreduce(zeros, bits=5, transport="superdense").ledger)
    >>> cmp.classical_bits.tolist(), cmp.online_qubits.tolist()
    ([50, 45, 45], [26, 23, 23])
    """

    links: tuple[tuple[int, int], ...] = field(repr=False)
    classical_bits: np.ndarray = field(repr=False)
    online_qubits: np.ndarray = field(repr=False)
    ebits: np.ndarray = field(repr=False)
    offline_qubits: np.ndarray = field(repr=False)

    workers = property(lambda self: len(self.links), doc="P, the number of links.")
    max_classical_bits = property(lambda self: int(self.classical_bits.max()), doc="Busiest.")
    max_online_qubits = property(lambda self: int(self.online_qubits.max()), doc="Busiest link.")
    floor = property(lambda self: self.classical_bits / 2, doc="Classical bits / 2 per link.")
    excess = property(lambda self: self.online_qubits - self.floor, doc="Online qubits − floor.")
    lifetime = property(
        lambda self: self.online_qubits + self.offline_qubits, doc="Online + offline qubits."
    )

    _DEFAULT = ("link", "classical_bits", "online_qubits", "floor", "offline_qubits")
    _COLUMNS = {
        "link": ("link", ""),
        "classical_bits": ("classical bits", "d"),
        "online_qubits": ("online qubits", "d"),
        "floor": ("Holevo floor", ".1f"),
        "excess": ("excess", ".1f"),
        "ebits": ("ebits", "d"),
        "offline_qubits": ("offline qubits", "d"),
        "lifetime": ("lifetime uses", "d"),
    }

    def table(self, columns: Sequence[str] = _DEFAULT) -> Table:
        """One row per link; ``columns`` from ``link``, ``classical_bits``, ``online_qubits``,
        ``floor``, ``excess``, ``ebits``, ``offline_qubits``, ``lifetime``."""
        for c in columns:
            if c not in self._COLUMNS:
                raise ValueError(
                    f"columns must be chosen from {', '.join(self._COLUMNS)}, got {c!r}"
                )
        links = [f"{a}->{b}" for a, b in self.links]
        rows = tuple(zip(*[links if c == "link" else getattr(self, c) for c in columns]))
        head = tuple(self._COLUMNS[c][0] for c in columns)
        return Table(head, rows, tuple(self._COLUMNS[c][1] for c in columns))


def compare_ledgers(classical: Ledger, superdense: Ledger) -> LedgerComparison:
    """Line up a classical and a superdense :class:`~qring_edu.ledger.Ledger` of the same ring
    (same number of workers) link by link.

    Examples
    --------
    >>> import numpy as np
    >>> from qring_edu import ring_allreduce
    >>> zeros = np.zeros((3, 7), dtype=np.int64)
    >>> cmp = compare_ledgers(ring_allreduce(zeros, bits=5).ledger,
    ...                       ring_allreduce(zeros, bits=5, transport="superdense").ledger)
    >>> cmp
    LedgerComparison(workers=3, max_classical_bits=50, max_online_qubits=26)
    >>> print(cmp.table())
    link  classical bits  online qubits  Holevo floor  offline qubits
    0->1              50             26          25.0              26
    1->2              45             23          22.5              23
    2->0              45             23          22.5              23
    """

    for name, led in (("classical", classical), ("superdense", superdense)):
        if not isinstance(led, Ledger):
            raise TypeError(f"{name} must be a qring_edu.ledger.Ledger, got {type(led).__name__}")
    if classical.workers != superdense.workers:
        raise ValueError(
            f"classical and superdense must have the same number of workers, got "
            f"{classical.workers} and {superdense.workers}"
        )
    quantum = [superdense.per_link(k) for k in ("online_qubits", "ebits", "offline_qubits")]
    return LedgerComparison(tuple(classical.links), classical.per_link("online_bits"), *quantum)


# -- Small shared checks ---------------------------------------------------------------------------
def rng(*parts: int) -> np.random.Generator:
    """An independent, reproducible stream for one (experiment, size, trial, role).

    Examples
    --------
    >>> int(rng(0, 1).integers(100)) == int(rng(0, 1).integers(100))
    True
    """
    return np.random.default_rng([int(p) for p in parts])


def worker_counts(
    workers, name: str = "workers", *, max_words: int | None = None, d: int = 1
) -> list[int]:
    """The ring sizes of a sweep: a non-empty sequence of integers >= 2. With ``max_words``,
    ``max(workers) * d`` must not exceed it (so a typo cannot freeze a kernel).

    Examples
    --------
    >>> worker_counts(range(2, 5))
    [2, 3, 4]
    """
    try:
        items = list(workers)
    except TypeError:
        raise TypeError(
            f"{name} must be a sequence of worker counts, got {type(workers).__name__}"
        ) from None
    ps = [check_int(p, name, 2) for p in items]
    if not ps:
        raise ValueError(f"{name} must list at least one worker count")
    if max_words is not None and max(ps) * d > max_words:
        raise ValueError(f"{name} * d must be <= {max_words:,} for this sweep, got {max(ps) * d:,}")
    return ps


def loglog_slope(x: Sequence[float], y: Sequence[float]) -> float:
    """Least-squares slope of ``log y`` against ``log x`` (``y ∝ x^slope``).

    Examples
    --------
    >>> round(loglog_slope([1, 2, 4, 8], [3, 12, 48, 192]), 6)
    2.0
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 2 or np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("loglog_slope needs at least two points with positive x and y")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])
