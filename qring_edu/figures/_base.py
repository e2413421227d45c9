"""Helpers shared by the figures of every chapter (presentation floor).

* :func:`plot_circuits` — the one circuit drawer: Qiskit circuits one under the other with the
  ``"mpl"`` drawer (qubit 0 on the top wire);
* :func:`nonempty` — the sequence a figure draws, refused when empty;
* :func:`fmt_seconds` — a duration with a readable unit;
* :func:`plain_log_x`, :func:`legend_below`, :func:`label_bars` — styling shared by the figures.

Figures build ``matplotlib.figure.Figure`` objects directly (no pyplot global state) and never
display anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from matplotlib.figure import Figure

if TYPE_CHECKING:  # annotations only: Qiskit is imported by whoever built the circuits
    from qiskit import QuantumCircuit

__all__ = ["plot_circuits", "nonempty", "fmt_seconds", "plain_log_x", "legend_below", "label_bars"]


def nonempty(items, name: str, what: str) -> list:
    """``list(items)``; ``ValueError`` naming ``name`` when it is empty.

    Examples
    --------
    >>> nonempty((1, 2), "rows", "row")
    [1, 2]
    """
    items = list(items)
    if not items:
        raise ValueError(f"{name} must contain at least one {what}")
    return items


def plot_circuits(
    circuits: Sequence[QuantumCircuit],
    titles: Sequence[str] | None = None,
    *,
    width: float = 8.5,
    height: float | None = None,
    fold: int | None = None,
) -> Figure:
    """Draw Qiskit circuits one under the other with the ``"mpl"`` drawer.

    ``titles``: one per circuit (default: the circuits' names; ``""`` for none). ``height``:
    inches per circuit (default ``0.65 × qubits + 1.4`` of the widest); ``fold``: Qiskit's
    line-folding width (``-1``: never fold; default: Qiskit's).

    Examples
    --------
    >>> from qring_edu import superdense_circuit
    >>> fig = plot_circuits([superdense_circuit(1, 0), superdense_circuit(0, 1)],
    ...                     ["x = 1", "z = 1"])
    >>> [ax.get_title() for ax in fig.axes]
    ['x = 1', 'z = 1']
    """
    circuits = nonempty(circuits, "circuits", "circuit")
    titles = [c.name for c in circuits] if titles is None else list(titles)
    if len(titles) != len(circuits):
        raise ValueError(
            f"titles must have one entry per circuit ({len(circuits)}), got {len(titles)}"
        )
    if height is None:
        height = 0.65 * max(c.num_qubits for c in circuits) + 1.4
    fig = Figure(figsize=(width, height * len(circuits)))
    axes = fig.subplots(len(circuits), 1, squeeze=False)[:, 0]
    for ax, circuit, title in zip(axes, circuits, titles):
        try:  # a symbolic phase stays 0 here: then Qiskit draws it
            phase = float(circuit.global_phase)
        except (TypeError, ValueError):
            phase = 0.0
        if phase:
            # Qiskit's mpl drawer writes the global phase with pyplot.text, i.e. onto a stray
            # pyplot figure rather than onto ``ax``: draw without it and label it here.
            circuit = circuit.copy()
            circuit.global_phase = 0
        circuit.draw("mpl", ax=ax, **({} if fold is None else {"fold": fold}))
        if phase:
            from qiskit.circuit.tools import pi_check

            text = f"global phase: {pi_check(phase, output='text')}"
            ax.text(0.0, 1.0, text, transform=ax.transAxes, ha="left", va="top", fontsize=10)
        if title:
            ax.set_title(title, fontsize=11)
    fig.tight_layout()
    return fig


def fmt_seconds(t: float) -> str:
    """``t`` seconds as ``"1.23 s"``, ``"4.56 ms"`` or ``"7.8 µs"``.

    Examples
    --------
    >>> fmt_seconds(0.01563)
    '15.63 ms'
    """
    if t >= 1:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.2f} ms"
    return f"{t * 1e6:.1f} µs"


def plain_log_x(ax) -> None:
    """Label a log x axis with plain numbers (``0.01``, ``0.1``; no ``3×10⁰`` minor labels).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> ax.semilogx([0.01, 1], [0, 1]) and plain_log_x(ax)
    >>> ax.xaxis.get_major_formatter()(0.1, 0)
    '0.1'
    """
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def legend_below(ax, ncol: int = 2, y: float = -0.14, **kw) -> None:
    """A frameless legend (font size 8) of ``ax``, centred below it, its top at ``y`` (axes
    fraction); ``kw`` goes to ``ax.legend``.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> _ = ax.plot([0, 1], label="line")
    >>> legend_below(ax)
    >>> ax.get_legend().get_texts()[0].get_text()
    'line'
    """
    ax.legend(
        fontsize=8, loc="upper center", bbox_to_anchor=(0.5, y), ncol=ncol, frameon=False, **kw
    )


def label_bars(ax, xs, values, fmt: str, dy: float, **kw) -> None:
    """Write ``format(v, fmt)`` centred ``dy`` above each bar top ``(x, v)``; ``kw`` goes to
    ``ax.text`` (e.g. ``va``, ``fontsize``).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> label_bars(ax, [0, 1], [0.5, 0.25], ".2f", 0.02)
    >>> [t.get_text() for t in ax.texts]
    ['0.50', '0.25']
    """
    for x, v in zip(xs, values):
        ax.text(x, v + dy, format(v, fmt), ha="center", **kw)
