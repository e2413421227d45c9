"""The one widget pattern of the book and the helpers every widget module shares (presentation).

:class:`LiveFigure` wires ipywidgets controls to an *experiment* (keyword arguments named like the
controls -> a result, :mod:`qring_edu.experiments`) and a *figure* (result -> matplotlib
``Figure``, :mod:`qring_edu.figures`); it never calls ``display()`` and shows invalid input as a
message. Its ``text/html`` (a PNG of the default state) is what a kernel-less page shows; an
*explorer* (:func:`explorer`, :class:`ExplorerSpec`) lists the settings the HTML book's build
(``book/_tools/explorer.py``) pre-renders. Text boxes are read by :func:`parse_number`,
:func:`parse_numbers` and :func:`parse_integers` (never evaluating code).
"""

from __future__ import annotations

import base64
import functools
import html
import inspect
import io
import itertools
import json
import math
import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from fractions import Fraction
from typing import Any

import ipywidgets as widgets
from matplotlib.figure import Figure

from .._result import result

__all__ = [
    "LiveFigure",
    "figure_to_png",
    "LIVE_HINT",
    "EXPLORER_HINT",
    "ExplorerSpec",
    "explorer",
    "explorer_grid",
    "parse_number",
    "parse_numbers",
    "parse_integers",
    "wide_descriptions",
]

LIVE_HINT = (
    "Static preview of the default settings. To move the controls, run this chapter's "
    'notebook in Jupyter or Colab (see "How to read and run it" in the introduction).'
)
#: Shown under an explorer of the HTML book (the controls it cannot move keep their default).
EXPLORER_HINT = (
    "Explorer: the pictures of these settings were computed by the library when the "
    "book was built. The other controls stay at their default; run this chapter's "
    'notebook in Jupyter or Colab to change them (see "How to read and run it" in '
    "the introduction)."
)
#: Most settings one explorer may have (the build renders each one).
MAX_EXPLORER_STATES = 120
#: Fewest values a slider's grid offers (fewer only when the slider has fewer positions).
MIN_SLIDER_VALUES = 5


def figure_to_png(fig: Figure, dpi: int = 100) -> bytes:
    """PNG bytes of a matplotlib figure at ``dpi`` pixels per inch, tight bounding box; the same
    figure gives the same bytes (no software or date metadata).

    Examples
    --------
    >>> from qring_edu.figures.holevo import plot_ea_systems
    >>> figure_to_png(plot_ea_systems(), dpi=40)[1:4]      # the PNG signature
    b'PNG'
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()


class LiveFigure(widgets.VBox):
    """A figure that recomputes when a control changes.

    On every change it calls ``compute(**values)`` (keyword names = keys of ``controls``; sliders,
    drop-downs, boxes, ``continuous_update`` off) and shows ``plot(result)`` as a PNG in ``image``;
    ``result`` is the last result, ``error`` the message of a ``ValueError``/``TypeError`` from
    ``compute`` (``result`` then ``None``), never a traceback. ``title`` is shown above the
    controls; ``grid`` and ``follows`` are the explorer's (:func:`explorer`, :meth:`explore`).

    Examples
    --------
    >>> import ipywidgets as widgets
    >>> from qring_edu.experiments.holevo import dense_coding_sweep
    >>> from qring_edu.figures.holevo import plot_dense_coding
    >>> live = LiveFigure(dense_coding_sweep, plot_dense_coding,
    ...                   {"pair_fidelity": widgets.FloatSlider(value=0.9, min=0.25, max=1.0)})
    >>> live.result
    DenseCodingSweep(pair_fidelity=0.9, chosen_capacity=1.373, chosen_chi=1.373, threshold=0.8107)
    >>> live.controls["pair_fidelity"].value = 0.8
    >>> live.result, bytes(live.image.value[1:4])
    (DenseCodingSweep(pair_fidelity=0.8, chosen_capacity=0.9611, chosen_chi=0.9611, threshold=0.8107), b'PNG')
    """

    def __init__(
        self,
        compute: Callable[..., Any],
        plot: Callable[[Any], Figure],
        controls: Mapping[str, widgets.ValueWidget],
        *,
        title: str = "",
        grid: Mapping[str, Sequence | None] | None = None,
        follows: Sequence[str] = (),
    ):
        self.compute = compute
        self.plot = plot
        self.controls = dict(controls)
        self.result: Any = None
        self.error = ""
        self.title = title
        self.grid, self.follows = grid, follows
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self.message = widgets.HTML()
        self.explorer: ExplorerSpec | None = None
        self._batch = False  # set by render_state: several controls change, one redraw
        for control in self.controls.values():
            if "continuous_update" in control.trait_names():
                control.continuous_update = False
            control.observe(self._on_change, names="value")
        header = [widgets.HTML(f"<b>{html.escape(title)}</b>")] if title else []
        box = widgets.Box(list(self.controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
        super().__init__(header + [box, self.message, self.image])
        self.refresh()

    def values(self) -> dict[str, Any]:
        """The controls' current values, by name (the keyword arguments of ``compute``)."""
        return {name: c.value for name, c in self.controls.items()}

    def refresh(self) -> None:
        """Recompute and redraw from the current control values."""
        try:
            result = self.compute(**self.values())
        except (ValueError, TypeError) as exc:
            self.result = None
            self.error = str(exc)
            self.message.value = (
                f'<div style="color:#a40000"><b>Cannot compute:</b> {html.escape(self.error)}</div>'
            )
            return
        self.image.value = figure_to_png(self.plot(result))
        self.result, self.error, self.message.value = result, "", ""

    def _on_change(self, _change) -> None:
        if not self._batch:
            self.refresh()

    def explore(
        self,
        factory: Callable[..., LiveFigure],
        kwargs: Mapping[str, Any],
        grid: Mapping[str, Sequence | None],
        *,
        follows: Sequence[str] = (),
    ) -> LiveFigure:
        """Declare the HTML book's explorer of this widget and return the widget.

        ``factory(**kwargs)`` (a module-level function, JSON ``kwargs``) rebuilds the widget;
        ``grid`` maps control names to the values offered (:func:`explorer_grid`), every
        combination a setting (at most :data:`MAX_EXPLORER_STATES`). ``follows``: sliders whose
        range follows another control (the ring's step after P); their settings outside the
        range they get have no picture.
        """
        self.explorer = ExplorerSpec.create(factory, kwargs, grid, self.controls, follows=follows)
        return self

    def static_html(self) -> str:
        """The kernel-less rendering: current PNG, :data:`LIVE_HINT` and the explorer's
        specification (``data-qring-explorer``) if one is declared."""
        data = base64.b64encode(self.image.value).decode("ascii")
        title = f"<p><b>{html.escape(self.title)}</b></p>" if self.title else ""
        settings = "; ".join(f"{k} = {v}" for k, v in self.values().items())  # as typed
        spec = (
            ""
            if self.explorer is None
            else f' data-qring-explorer="{html.escape(self.explorer.to_json(), quote=True)}"'
        )
        return (
            f'<div class="qring-static-widget"{spec}>{title}'
            f'<img alt="{html.escape(self.title or "widget")}" '
            f'src="data:image/png;base64,{data}" style="max-width:100%"/>'
            f"<p><em>{html.escape(LIVE_HINT)}</em> Settings shown: "
            f"{html.escape(settings)}.</p></div>"
        )

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["text/html"] = self.static_html()
        bundle["text/plain"] = f"[interactive figure: {self.title or 'widget'}] {LIVE_HINT}"
        return bundle


def explorer(factory: Callable[..., LiveFigure]) -> Callable[..., LiveFigure]:
    """Decorator of a widget factory whose :class:`LiveFigure` names a ``grid``: the widget it
    returns declares its explorer with the factory's arguments (:meth:`LiveFigure.explore`).

    Examples
    --------
    >>> from qring_edu.widgets import dense_coding_widget
    >>> dense_coding_widget(0.8).explorer.kwargs
    (('pair_fidelity', 0.8),)
    """
    signature = inspect.signature(factory)

    @functools.wraps(factory)
    def make(*args, **kwargs) -> LiveFigure:
        arguments = signature.bind(*args, **kwargs)
        arguments.apply_defaults()
        w = factory(*args, **kwargs)
        return w.explore(make, arguments.arguments, w.grid, follows=w.follows)

    return make


# -- Explorers of the HTML book: a grid of settings, each rendered by the build --------------------
_SLIDERS = (widgets.IntSlider, widgets.FloatSlider, widgets.FloatLogSlider)
_CHOICES = (widgets.Dropdown, widgets.ToggleButtons, widgets.RadioButtons, widgets.Select)
_BOXES = (widgets.IntText, widgets.FloatText, widgets.BoundedIntText, widgets.BoundedFloatText)
_KINDS = ((widgets.Text, str), (widgets.Checkbox, bool), (_BOXES, numbers.Real))  # a box's values


def _options(control) -> list[tuple[str, Any]]:
    """(label, value) of every option of a drop-down, toggle or radio control."""
    return list(zip(control._options_labels, control._options_values))


def _is_json_scalar(value) -> bool:
    return (
        value is None
        or isinstance(value, (bool, int, float, str))
        and not (isinstance(value, float) and not math.isfinite(value))
    )


def _same(a, b) -> bool:
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def explorer_grid(
    control: widgets.ValueWidget, values: Sequence | None, name: str, *, in_range: bool = True
) -> tuple:
    """The values an explorer offers for one control, checked against the control.

    ``values=None``: every option of a choice control, both states of a checkbox, every position
    of a slider with at most :data:`MIN_SLIDER_VALUES`. A slider's grid holds at least that many
    values in its range (``in_range=False``: the range follows another control), a choice's at
    least 2 options, a box's 2 values of its type; each grid holds the control's current value,
    distinct JSON scalars. Else ``ValueError`` naming ``grid[name]``.

    Examples
    --------
    >>> import ipywidgets as widgets
    >>> explorer_grid(widgets.IntSlider(value=4, min=2, max=8), [2, 3, 4, 6, 8], "workers")
    (2, 3, 4, 6, 8)
    >>> explorer_grid(widgets.IntSlider(value=4, min=2, max=8), [2, 4], "workers")
    Traceback (most recent call last):
    ...
    ValueError: grid['workers'] must list at least 5 values of the slider (it has 7 positions), got 2
    """
    where = f"grid[{name!r}]"
    if isinstance(control, _SLIDERS):
        lo, hi = control.min, control.max
        positions = round((hi - lo) / control.step) + 1
        if isinstance(control, widgets.FloatLogSlider):
            lo, hi = control.base**lo, control.base**hi
        if values is None:
            if positions > MIN_SLIDER_VALUES:
                raise ValueError(
                    f"{where} must list the slider's values: it has {positions} positions "
                    f"(None means all of them only up to {MIN_SLIDER_VALUES})"
                )
            values = [lo + k * control.step for k in range(positions)]
            if isinstance(control, widgets.IntSlider):
                values = [int(v) for v in values]
        values = tuple(values)
        need = min(MIN_SLIDER_VALUES, positions)
        if len(values) < need:
            raise ValueError(
                f"{where} must list at least {need} values of the slider (it has "
                f"{positions} positions), got {len(values)}"
            )
        for v in values:
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise ValueError(f"{where} must hold numbers, got {v!r}")
            if isinstance(control, widgets.IntSlider) and not isinstance(v, numbers.Integral):
                raise ValueError(f"{where} must hold integers for an integer slider, got {v!r}")
            if in_range and not (lo - 1e-12 <= v <= hi + 1e-12):
                raise ValueError(
                    f"{where}: value {v!r} is outside the slider's range [{lo:g}, {hi:g}]"
                )
    elif isinstance(control, _CHOICES):
        options = [value for _, value in _options(control)]
        values = tuple(options if values is None else values)
        for v in values:
            if not any(_same(v, o) for o in options):
                raise ValueError(
                    f"{where}: {v!r} is not an option; options: {', '.join(map(repr, options))}"
                )
        if len(values) < 2:
            raise ValueError(f"{where} must list at least 2 options, got {len(values)}")
    elif isinstance(control, (widgets.Text, widgets.Checkbox) + _BOXES):
        if values is None:
            if not isinstance(control, widgets.Checkbox):
                raise ValueError(
                    f"{where} must list the values to offer for a text or number "
                    "box (None only for a drop-down, toggle or short slider)"
                )
            values = (False, True)
        values = tuple(values)
        if len(values) < 2:
            raise ValueError(f"{where} must list at least 2 values, got {len(values)}")
        kind = next(k for c, k in _KINDS if isinstance(control, c))
        for v in values:
            if not isinstance(v, kind) or (kind is numbers.Real and isinstance(v, bool)):
                raise ValueError(
                    f"{where} must hold values of type {kind.__name__} for this control, got {v!r}"
                )
    else:
        raise ValueError(f"{where}: an explorer cannot offer a {type(control).__name__} control")
    if not all(_is_json_scalar(v) for v in values):
        raise ValueError(f"{where} must hold numbers, strings or booleans (JSON), got {values!r}")
    if len({json.dumps(v) for v in values}) != len(values):
        raise ValueError(f"{where} repeats a value: {values!r}")
    if not any(_same(control.value, v) for v in values):
        raise ValueError(
            f"{where} must contain the control's current value {control.value!r}, got {values!r}"
        )
    return values


@result(show=("shape",))
class ExplorerSpec:
    """What the HTML book's explorer of one widget offers: enough to rebuild and re-render it.

    ``factory``: ``"module:function"`` of the widget factory; ``kwargs``: its ``(name, JSON
    value)`` arguments sorted by name; ``grid``: ``(control name, values)`` in the order of the
    widget's controls, the settings every combination.

    Examples
    --------
    >>> from qring_edu.widgets import dense_coding_widget
    >>> spec = dense_coding_widget().explorer
    >>> spec.factory, ExplorerSpec.from_json(spec.to_json()) == spec
    ('qring_edu.widgets.holevo:dense_coding_widget', True)
    """

    factory: str
    kwargs: tuple = field(repr=False)
    grid: tuple = field(repr=False)

    @property
    def shape(self) -> tuple:
        """``(control, number of values)`` per control of the grid."""
        return tuple((n, len(v)) for n, v in self.grid)

    @classmethod
    def create(
        cls,
        factory: Callable,
        kwargs: Mapping[str, Any],
        grid: Mapping[str, Sequence | None],
        controls: Mapping[str, widgets.ValueWidget],
        *,
        follows: Sequence[str] = (),
    ) -> ExplorerSpec:
        """Check and build a specification (see :meth:`LiveFigure.explore`)."""
        module = getattr(factory, "__module__", None)
        qualname = getattr(factory, "__qualname__", "")
        if not (callable(factory) and module and qualname.isidentifier()):
            raise ValueError(f"factory must be a module-level function, got {factory!r}")
        if not isinstance(kwargs, Mapping) or not all(isinstance(k, str) for k in kwargs):
            raise TypeError(
                f"kwargs must be a mapping of argument names, got {type(kwargs).__name__}"
            )
        bad = [k for k, v in kwargs.items() if not _is_json_scalar(v)]
        if bad:
            raise ValueError(f"kwargs must hold numbers, strings or booleans (JSON); not: {bad}")
        if not isinstance(grid, Mapping) or not grid:
            raise ValueError("grid must map at least one control name to its values")
        unknown = [n for n in grid if n not in controls]
        if unknown:
            names = ", ".join(controls)
            raise ValueError(
                f"grid names {unknown!r}, not controls of this widget; controls: {names}"
            )
        loose = [n for n in follows if n not in grid or not isinstance(controls[n], _SLIDERS)]
        if loose:
            raise ValueError(
                f"follows names {loose!r}: only sliders of the grid may follow another control"
            )
        checked = tuple(
            (n, explorer_grid(controls[n], grid[n], n, in_range=n not in follows))
            for n in controls
            if n in grid
        )
        count = math.prod(len(v) for _, v in checked)
        if count > MAX_EXPLORER_STATES:
            raise ValueError(
                f"grid has {count} settings, more than MAX_EXPLORER_STATES = "
                f"{MAX_EXPLORER_STATES}: offer fewer values"
            )
        return cls(f"{module}:{qualname}", tuple(sorted(kwargs.items())), checked)

    def to_json(self) -> str:
        grid = [[n, list(v)] for n, v in self.grid]
        data = {"factory": self.factory, "kwargs": dict(self.kwargs), "grid": grid}
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> ExplorerSpec:
        """The specification written by :meth:`to_json` (``ValueError`` if it is not one)."""
        try:
            data = json.loads(text)
            return cls(
                str(data["factory"]),
                tuple(sorted(data["kwargs"].items())),
                tuple((str(n), tuple(v)) for n, v in data["grid"]),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"text is not an explorer specification: {exc}") from None

    def settings(self) -> list[dict[str, Any]]:
        """Every setting of the grid (control name -> value), the last control varying fastest."""
        names = [n for n, _ in self.grid]
        return [dict(zip(names, combo)) for combo in itertools.product(*(v for _, v in self.grid))]


# -- Reading text boxes ----------------------------------------------------------------------------
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


def parse_number(
    text,
    name: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    integer: bool = False,
) -> float | int:
    """One finite number from a real number (not a bool) or a text such as ``" 2.5e1 "``,
    ``"10_000"``, ``"10,000"`` (commas only between thousands); ``integer=True``: a whole number,
    returned as ``int``. Else ``ValueError`` naming ``name`` and the range ``lo`` .. ``hi``
    (``lo`` excluded with ``lo_open``); ``TypeError`` if neither a number nor a text.

    Examples
    --------
    >>> parse_number("10,000", "d", lo=1, integer=True)
    10000
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
        if not math.isfinite(value) or (integer and not value.is_integer()):
            raise ValueError(f"{allowed}, got {text!r}")
        if integer:
            value = int(value)
    else:
        value = int(value)
    below = lo is not None and (value <= lo if lo_open else value < lo)
    above = hi is not None and value > hi
    if below or above:
        raise ValueError(f"{allowed}, got {text!r}")
    return value


def parse_numbers(text, name: str) -> list[float]:
    """Numbers or fractions separated by commas, semicolons or spaces (``"1/3 1/3 1/3"``), or a
    sequence of numbers; only the syntax is checked (``ValueError``/``TypeError`` naming ``name``).

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
                raise ValueError(
                    f"{name} must be numbers or fractions such as 1/3 separated by "
                    f"commas, got {part!r}"
                ) from None
        return values
    return [float(v) for v in _sequence(text, name, numbers.Real, "'0.5, 0.5'", "numbers")]


def parse_integers(text, name: str) -> list[int]:
    """Integers separated by commas, semicolons or spaces, or a sequence of integers (as
    :func:`parse_numbers`).

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
        raise ValueError(
            f"{name} must list at least one {what}, e.g. '{example}'; got an empty text"
        )
    return parts


def _sequence(values, name: str, kind: type, example: str, what: str) -> list:
    """``list(values)`` when every item is a ``kind`` (bools excluded), else ``TypeError``."""
    try:
        items = list(values)
    except TypeError:
        raise TypeError(
            f"{name} must be a text such as {example} or a sequence of {what}, "
            f"got {type(values).__name__}"
        ) from None
    if not all(isinstance(v, kind) and not isinstance(v, bool) for v in items):
        raise TypeError(f"{name} must be a text such as {example} or a sequence of {what}")
    return items


def wide_descriptions(controls: Mapping[str, widgets.Widget]) -> None:
    """Let every control's description take the width it needs (long labels are not cut off).

    Examples
    --------
    >>> import ipywidgets as widgets
    >>> controls = {"F": widgets.FloatSlider(description="pair fidelity F")}
    >>> wide_descriptions(controls)
    >>> controls["F"].style.description_width
    'initial'
    """
    for control in controls.values():
        control.style = {"description_width": "initial"}


def slider(
    description: str, value, lo, hi, step, fmt: str = ".2f", *, log: bool = False, **kw
) -> widgets.FloatSlider | widgets.FloatLogSlider:
    """A float slider from ``lo`` to ``hi`` in steps of ``step``, its value shown as ``fmt``;
    ``log=True``: a base-10 log slider, ``lo``, ``hi`` and ``step`` are then exponents. ``kw``:
    further traits (``layout``, ``style``).

    Examples
    --------
    >>> s = slider("fidelity F", 0.99, 0.98, 1.0, 0.001, ".3f")
    >>> s.value, s.min, s.max, s.readout_format
    (0.99, 0.98, 1.0, '.3f')
    """
    kind = widgets.FloatLogSlider if log else widgets.FloatSlider  # the log slider's base: 10
    return kind(
        value=value, min=lo, max=hi, step=step, readout_format=fmt, description=description, **kw
    )
