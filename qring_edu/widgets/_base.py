"""The one widget pattern of the book: controls -> pure compute -> pure plot -> PNG (presentation).

:class:`LiveFigure` wires ipywidgets controls to a *compute* function (keyword arguments named like
the controls, returns a result object) and a *plot* function (result -> matplotlib ``Figure``).
It never calls ``display()``: the notebook displays the returned widget. Invalid input (a
``ValueError``/``TypeError`` from the library) is shown as a readable message, never a traceback.

Static HTML. A kernel-less page cannot run the controls, so the widget's mime bundle also carries
``text/html``: a PNG of its current (default) state and one line on how to run it live. The book's
``_config.yml`` ranks ``text/html`` above the widget view for the HTML builder; Jupyter and Colab
prefer the live widget view.
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any, Callable, Mapping

import ipywidgets as widgets
from matplotlib.figure import Figure

__all__ = ["LiveFigure", "figure_to_png", "LIVE_HINT"]

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
