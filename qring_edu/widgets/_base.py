"""The one widget pattern of the book, and the helpers every widget module shares (presentation).

:class:`LiveFigure` wires ipywidgets controls to an *experiment* (keyword arguments named like
the controls, returns a result object, :mod:`qring_edu.experiments`) and a *figure*
(result -> matplotlib ``Figure``, :mod:`qring_edu.figures`). It never calls ``display()``: the
notebook displays the returned widget. Invalid input (a ``ValueError``/``TypeError`` from the
library) is shown as a readable message, never a traceback.

Text boxes are read by the parsers here, the same way in every chapter: :func:`parse_number`
(one number; ``"10,000"``, ``"10_000"`` and ``"2.5e1"`` are numbers), :func:`parse_numbers`
(a list, e.g. probabilities ``"1/3, 1/3, 1/3"``) and :func:`parse_integers` (a list of words).
They never evaluate code. :func:`wide_descriptions` gives controls room for their labels.

Static HTML. A kernel-less page cannot run the controls, so the widget's mime bundle also carries
``text/html``: a PNG of its current (default) state and one line on how to run it live. The book's
``_config.yml`` ranks ``text/html`` above the widget view for the HTML builder; Jupyter and Colab
prefer the live widget view.
"""

from __future__ import annotations

import base64
import html
import io
import math
import numbers
import re
from fractions import Fraction
from typing import Any, Callable, Mapping

import ipywidgets as widgets
from matplotlib.figure import Figure

__all__ = ["LiveFigure", "figure_to_png", "LIVE_HINT", "parse_number", "parse_numbers",
           "parse_integers", "wide_descriptions"]

LIVE_HINT = ("Static preview of the default settings. To move the controls, run this chapter's "
             "notebook in Jupyter or Colab (see \"How to read and run it\" in the introduction).")


def figure_to_png(fig: Figure, dpi: int = 100) -> bytes:
    """Render a matplotlib figure to PNG bytes (Agg, no pyplot state, no display)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


class LiveFigure(widgets.VBox):
    """A figure that recomputes when a control changes.

    Parameters
    ----------
    compute : callable(**values) -> result
        Pure function of the controls' values (keyword names = keys of ``controls``).
    plot : callable(result) -> matplotlib.figure.Figure
        Pure function drawing the result.
    controls : mapping name -> ipywidgets value widget
        Sliders, dropdowns, text boxes. ``continuous_update`` is forced off where it exists.
    title : str
        Shown above the controls.

    Attributes
    ----------
    result : the last successful compute result (``None`` if the current input is invalid).
    error : the last error message, ``""`` when the input is valid.
    image : ``ipywidgets.Image`` holding the current PNG.
    """

    def __init__(self, compute: Callable[..., Any], plot: Callable[[Any], Figure],
                 controls: Mapping[str, widgets.ValueWidget], *, title: str = ""):
        self.compute = compute
        self.plot = plot
        self.controls = dict(controls)
        self.result: Any = None
        self.error = ""
        self.title = title
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self.message = widgets.HTML()
        for control in self.controls.values():
            if "continuous_update" in control.trait_names():
                control.continuous_update = False
            control.observe(self._on_change, names="value")
        header = [widgets.HTML(f"<b>{html.escape(title)}</b>")] if title else []
        box = widgets.Box(list(self.controls.values()),
                          layout=widgets.Layout(flex_flow="row wrap"))
        super().__init__(header + [box, self.message, self.image])
        self.refresh()

    def values(self) -> dict[str, Any]:
        return {name: c.value for name, c in self.controls.items()}

    def refresh(self) -> None:
        """Recompute and redraw from the current control values."""
        try:
            result = self.compute(**self.values())
        except (ValueError, TypeError) as exc:
            self.result = None
            self.error = str(exc)
            self.message.value = ('<div style="color:#a40000"><b>Cannot compute:</b> '
                                  f"{html.escape(self.error)}</div>")
            return
        fig = self.plot(result)
        self.image.value = figure_to_png(fig)
        self.result = result
        self.error = ""
        self.message.value = ""

    def _on_change(self, _change) -> None:
        self.refresh()

    def static_html(self) -> str:
        """The kernel-less rendering: current PNG plus how to run the widget live."""
        data = base64.b64encode(self.image.value).decode("ascii")
        title = f"<p><b>{html.escape(self.title)}</b></p>" if self.title else ""
        settings = ", ".join(f"{k} = {v!r}" for k, v in self.values().items())
        return (f'<div class="qring-static-widget">{title}'
                f'<img alt="{html.escape(self.title or "widget")}" '
                f'src="data:image/png;base64,{data}" style="max-width:100%"/>'
                f'<p><em>{html.escape(LIVE_HINT)}</em> Settings shown: '
                f"{html.escape(settings)}.</p></div>")

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["text/html"] = self.static_html()
        bundle["text/plain"] = f"[interactive figure: {self.title or 'widget'}] {LIVE_HINT}"
        return bundle


# ---------------------------------------------------------------------------------------------
# Reading text boxes
# ---------------------------------------------------------------------------------------------
#: Digits grouped by thousands: "10,000", "1,234,567.5" (a lone comma such as "1,5" is refused).
_GROUPED = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?([eE][+-]?\d+)?")


def _range(lo, hi, lo_open: bool) -> str:
    if lo is None and hi is None:
        return ""
    if hi is None:
        return f" {'>' if lo_open else '>='} {lo:g}"
    if lo is None:
        return f" <= {hi:g}"
    return f" in {'(' if lo_open else '['}{lo:g}, {hi:g}]"


def parse_number(text, name: str, *, lo: float | None = None, hi: float | None = None,
                 lo_open: bool = False, integer: bool = False) -> float | int:
    """One finite number from a text box or a control's value; never evaluates code.

    Accepts a real number (not a bool) or a string such as ``"100"``, ``" 2.5e1 "``,
    ``"10_000"`` or ``"10,000"`` (commas only as thousands separators). ``integer=True`` asks for
    a whole number and returns an ``int``. Raises ``ValueError`` naming ``name`` and the allowed
    range (``lo`` .. ``hi``, ``lo`` excluded with ``lo_open``) for anything else, ``TypeError``
    for a value that is neither a number nor a string.

    Examples
    --------
    >>> parse_number("10,000", "d", lo=1, integer=True)
    10000
    >>> parse_number("2.5e1", "bandwidth", lo=0, lo_open=True)
    25.0
    """
    kind = "an integer" if integer else "a number"
    allowed = f"{name} must be {kind}{_range(lo, hi, lo_open)}"
    if isinstance(text, bool) or not isinstance(text, (numbers.Real, str)):
        raise TypeError(f"{allowed}, got {type(text).__name__}")
    if isinstance(text, str):
        clean = text.strip().replace("_", "")
        if _GROUPED.fullmatch(clean):
            clean = clean.replace(",", "")
        try:
            value = int(clean) if integer and re.fullmatch(r"[+-]?\d+", clean) else float(clean)
        except ValueError:
            raise ValueError(f"{allowed}, got {text!r}") from None
    else:
        value = text
    if isinstance(value, float) or not isinstance(value, numbers.Integral):
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"{allowed}, got {text!r}")
        if integer:
            if not value.is_integer():
                raise ValueError(f"{allowed}, got {text!r}")
            value = int(value)
    else:
        value = int(value)
    below = lo is not None and (value <= lo if lo_open else value < lo)
    above = hi is not None and value > hi
    if below or above:
        raise ValueError(f"{allowed}, got {text!r}")
    return value


def parse_numbers(text, name: str) -> list[float]:
    """Numbers or fractions typed as a list, separated by commas, semicolons or spaces
    (``"0.5, 0.25, 0.25"``, ``"1/3 1/3 1/3"``); a sequence of numbers is taken as it is. Only the
    syntax is checked here (``ValueError``/``TypeError`` naming ``name``); what the numbers must
    satisfy is checked by the library function that receives them.

    Examples
    --------
    >>> parse_numbers("1/4, 0.75", "probs")
    [0.25, 0.75]
    """
    if isinstance(text, str):
        parts = _items(text, name, "number", "0.5, 0.5")
        values = []
        for part in parts:
            try:
                values.append(float(Fraction(part)))
            except (ValueError, ZeroDivisionError):
                raise ValueError(f"{name} must be numbers or fractions such as 1/3 separated by "
                                 f"commas, got {part!r}") from None
        return values
    return [float(v) for v in _sequence(text, name, numbers.Real, "'0.5, 0.5'", "numbers")]


def parse_integers(text, name: str) -> list[int]:
    """Integers typed as a list, separated by commas, semicolons or spaces (``"1, 2, 3"``); a
    sequence of integers is taken as it is. ``ValueError``/``TypeError`` naming ``name``.

    Examples
    --------
    >>> parse_integers("5; 1 6", "inputs")
    [5, 1, 6]
    """
    if isinstance(text, str):
        try:
            return [int(p) for p in _items(text, name, "integer", "1, 2, 3")]
        except ValueError:
            raise ValueError(f"{name} must be integers separated by commas, got {text!r}") from None
    return [int(v) for v in _sequence(text, name, numbers.Integral, "'1, 2, 3'", "integers")]


def _items(text: str, name: str, what: str, example: str) -> list[str]:
    """The non-empty pieces of a list typed with commas, semicolons or spaces."""
    parts = [t for t in re.split(r"[,;\s]+", text) if t]
    if not parts:
        raise ValueError(f"{name} must list at least one {what}, e.g. '{example}'; got an empty text")
    return parts


def _sequence(values, name: str, kind: type, example: str, what: str) -> list:
    """``list(values)`` when every item is a ``kind`` (bools excluded), else ``TypeError``."""
    try:
        items = list(values)
    except TypeError:
        raise TypeError(f"{name} must be a text such as {example} or a sequence of {what}, "
                        f"got {type(values).__name__}") from None
    if not all(isinstance(v, kind) and not isinstance(v, bool) for v in items):
        raise TypeError(f"{name} must be a text such as {example} or a sequence of {what}")
    return items


def wide_descriptions(controls: Mapping[str, widgets.Widget]) -> None:
    """Let every control's description take the width it needs (long labels such as
    "pair fidelity F" are not cut off)."""
    for control in controls.values():
        control.style = {"description_width": "initial"}
