"""Sphinx extension (``_config.yml``: ``sphinx.local_extensions``): the widgets' explorers.

A widget of the book (:class:`qring_edu.widgets.LiveFigure`) needs a kernel. Its static HTML
preview carries the widget's explorer specification (``data-qring-explorer``, written by
:meth:`~qring_edu.widgets.LiveFigure.explore`). In the HTML builders this extension

* rebuilds the widget from the specification and renders every setting of its grid with the
  library (:func:`qring_edu.widgets._base.render_state`: the widget's own compute, plot and
  PNG, as a palette PNG), into ``_images/qring_explorer/<state id>.png`` of the output (the id is
  :func:`~qring_edu.widgets._base.state_id`, a hash of the setting);
* replaces the preview by ``<div class="qring-explorer">``: a labelled native control for every
  control of the grid (``<input type="range">`` over the grid's values, ``<select>`` with every
  option), the picture of the chosen setting (``<img data-state="...">``), the setting as text,
  and the controls it cannot move at their default with how to change them;
* ships ``explorer_static/qring_explorer.js`` (plain JavaScript, no network, works from
  ``file://``) and its stylesheet with the book.

The LaTeX builder is not touched: the PDF keeps the default picture of the preview. Rendering
time and the number of states are logged at the end of the build ("qring explorers: ...").
"""

from __future__ import annotations

import hashlib
import html
import importlib
import io
import json
import posixpath
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import ipywidgets as widgets
from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

from qring_edu.widgets import _base
from qring_edu.widgets._base import ExplorerSpec, LiveFigure

_HERE = Path(__file__).resolve().parent
STATIC = _HERE / "explorer_static"
IMAGE_DIR = "_images/qring_explorer"
HTML_BUILDERS = ("html", "dirhtml", "singlehtml")
logger = logging.getLogger(__name__)

_SPEC = re.compile(r'<div class="qring-static-widget" data-qring-explorer="([^"]*)">')
_STATS = {"explorers": 0, "states": 0, "seconds": 0.0, "cpu": 0.0, "bytes": 0}


def _esc(text) -> str:
    return html.escape(str(text), quote=True)


# ---------------------------------------------------------------------------------------------
# Rendering an explorer's settings (the widget's own compute, plot and PNG)
# ---------------------------------------------------------------------------------------------
def state_id(spec: ExplorerSpec, setting: Mapping[str, Any]) -> str:
    """Short stable name of one setting of an explorer (16 hex digits of a SHA-256 of the
    factory, its arguments and the setting); the build names the setting's PNG after it.

    """
    key = json.dumps(
        [spec.factory, dict(spec.kwargs), dict(setting)], sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def explorer_widget(spec: ExplorerSpec) -> LiveFigure:
    """Rebuild the widget an explorer specification describes (``factory(**kwargs)``)."""
    module, _, name = spec.factory.partition(":")
    if not module.startswith("qring_edu.") or not name.isidentifier():
        raise ValueError(f"spec.factory must name a qring_edu widget factory, got {spec.factory!r}")
    factory = getattr(importlib.import_module(module), name)
    widget = factory(**dict(spec.kwargs))
    if not isinstance(widget, LiveFigure):
        raise ValueError(f"spec.factory {spec.factory!r} did not return a LiveFigure")
    return widget


def compact_png(png: bytes) -> bytes:
    """The same picture as a 256-colour palette PNG, about a third of the bytes.

    On white (the figures are opaque; a transparent pixel becomes white), colours reduced by
    Pillow's fast octree without dithering: deterministic, and the figures' flat colours and
    anti-aliased lines look the same. The explorers' pictures are stored this way, so the book's
    many settings stay small.

    """
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        rgba = image.convert("RGBA")
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    rgb = Image.alpha_composite(white, rgba).convert("RGB")
    palette = rgb.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    palette.save(buf, format="PNG")
    return buf.getvalue()


def render_state(widget: LiveFigure, setting: Mapping[str, Any]) -> bytes | None:
    """The PNG of ``widget`` at one setting of its explorer, or ``None`` if it has no picture.

    Sets the controls in the widget's order (so a control whose range follows another one,
    such as the ring's step after P, is set after it), with one redraw at the end: the same
    compute, plot and :func:`figure_to_png` as moving the live controls, stored as
    :func:`compact_png`. ``None`` when a control
    does not take the value (outside the range its neighbours leave it) or the library refuses
    the setting (the live widget would show the error message).

    """
    unknown = [n for n in setting if n not in widget.controls]
    if unknown:
        raise ValueError(f"setting names {unknown!r}, not controls of this widget")
    widget._batch = True
    try:
        for name, control in widget.controls.items():
            if name in setting:
                try:
                    control.value = setting[name]
                except Exception:  # traitlets refuses the value  # noqa: BLE001
                    return None
    finally:
        widget._batch = False
    if not all(_base._same(widget.controls[n].value, v) for n, v in setting.items()):
        return None
    widget.refresh()
    return None if widget.error else compact_png(bytes(widget.image.value))


def _display(control, value) -> str:
    """How a control shows ``value`` (its readout, option label, or its text as typed)."""
    if isinstance(control, _base._CHOICES):
        return next(
            (label for label, v in _base._options(control) if _base._same(v, value)), str(value)
        )
    if isinstance(control, widgets.Checkbox):
        return "on" if value else "off"
    if isinstance(control, widgets.Text):
        return str(value)  # as typed, without Python's quotes
    fmt = getattr(control, "readout_format", "")
    if isinstance(control, (widgets.IntSlider,) + _base._BOXES[:1]):
        return str(int(value))
    try:
        return format(value, fmt or "g")
    except (ValueError, TypeError):
        return str(value)


def explorer_controls(widget: LiveFigure) -> tuple[list[dict], list[dict]]:
    """The explorer's controls and the fixed ones, as the page shows them.

    Returns ``(moved, fixed)``: for each grid control ``{"name", "label", "kind" ("range" for a
    slider or number box, "select" otherwise), ``"values"``, ``"labels"``, ``"default"`` (index of
    the current value)}``; for every other control ``{"name", "label", "value"}`` (its current
    value as shown).

    """
    spec = widget.explorer
    if spec is None:
        raise ValueError("widget has no explorer: its factory does not call LiveFigure.explore")
    grid = dict(spec.grid)
    moved, fixed = [], []
    for name, control in widget.controls.items():
        label = control.description or name
        if name in grid:
            values = list(grid[name])
            ranged = isinstance(control, _base._SLIDERS + _base._BOXES)
            moved.append(
                {
                    "name": name,
                    "label": label,
                    "kind": "range" if ranged else "select",
                    "values": values,
                    "labels": [_display(control, v) for v in values],
                    "default": next(
                        i for i, v in enumerate(values) if _base._same(v, control.value)
                    ),
                }
            )
        else:
            fixed.append({"name": name, "label": label, "value": _display(control, control.value)})
    return moved, fixed


def render_explorer(spec_json: str, outdir: Path, page_dir: str, index: int) -> str:
    """Render every state of one explorer into ``outdir/IMAGE_DIR``; return its HTML.

    ``page_dir`` is the folder of the page in the output (relative to ``outdir``), for the
    images' relative URLs; ``index`` numbers the explorers of a page (unique element ids).
    """
    from qring_edu.widgets._base import EXPLORER_HINT, ExplorerSpec

    start, cpu = time.perf_counter(), time.process_time()
    spec = ExplorerSpec.from_json(spec_json)
    widget = explorer_widget(spec)
    if widget.explorer != spec:
        raise ValueError(
            f"{spec.factory} no longer declares the explorer its notebook output "
            "stores: re-execute the chapter (make notebooks)"
        )
    moved, fixed = explorer_controls(widget)
    defaults = {c["name"]: c["values"][c["default"]] for c in moved}
    default_png = compact_png(bytes(widget.image.value)) if not widget.error else None

    def fixed_text() -> str:
        return "; ".join(f"{c['label']} = {c['value']}" for c in explorer_controls(widget)[1])

    default_fixed = fixed_text()
    folder = outdir / IMAGE_DIR
    folder.mkdir(parents=True, exist_ok=True)
    states: dict[str, dict] = {}
    for setting in spec.settings():
        # the widget was built at its default setting: that picture is already drawn
        png = default_png if setting == defaults else render_state(widget, setting)
        if png is None:
            continue  # a setting the library refuses, or outside a following slider's range
        sid = state_id(spec, setting)
        (folder / f"{sid}.png").write_bytes(png)
        key = ",".join(str(c["values"].index(setting[c["name"]])) for c in moved)
        states[key] = {"id": sid, "fixed": default_fixed if setting == defaults else fixed_text()}
        _STATS["bytes"] += len(png)
    if not states:
        raise ValueError(f"{spec.factory}: no setting of the explorer has a picture")
    for k, c in enumerate(moved):
        shown = {int(key.split(",")[k]) for key in states}
        missing = [c["values"][i] for i in range(len(c["values"])) if i not in shown]
        if missing:
            raise ValueError(
                f"{spec.factory}: grid[{c['name']!r}] offers {missing!r}, which no "
                "setting of the explorer can show: leave them out of the grid"
            )
    default_key = ",".join(str(c["default"]) for c in moved)
    if default_key not in states:
        raise ValueError(f"{spec.factory}: the default setting has no picture")
    prefix = posixpath.relpath(IMAGE_DIR, page_dir or ".") + "/"
    data = {
        "controls": [
            {"name": c["name"], "label": c["label"], "labels": c["labels"]} for c in moved
        ],
        "states": states,
        "prefix": prefix,
    }
    uid = f"qring-explorer-{index}"
    parts = [
        f'<div class="qring-explorer" id="{uid}" role="group" '
        f'aria-labelledby="{uid}-title" data-qring-spec="{_esc(spec_json)}" '
        f'data-qring-states="{_esc(json.dumps(data, separators=(",", ":")))}">',
        f'<p class="qring-explorer-title" id="{uid}-title"><b>{_esc(widget.title)}</b></p>',
        '<div class="qring-explorer-controls">',
    ]
    for k, c in enumerate(moved):
        cid = f"{uid}-c{k}"
        parts.append('<div class="qring-explorer-control">')
        parts.append(f'<label for="{cid}">{_esc(c["label"])}</label>')
        if c["kind"] == "range":
            parts.append(
                f'<input type="range" id="{cid}" data-control="{k}" min="0" '
                f'max="{len(c["values"]) - 1}" step="1" value="{c["default"]}" '
                f'aria-valuetext="{_esc(c["labels"][c["default"]])}">'
            )
            parts.append(
                f'<output for="{cid}" id="{cid}-out">{_esc(c["labels"][c["default"]])}</output>'
            )
        else:
            options = "".join(
                f'<option value="{i}"{" selected" if i == c["default"] else ""}>{_esc(lab)}'
                "</option>"
                for i, lab in enumerate(c["labels"])
            )
            parts.append(f'<select id="{cid}" data-control="{k}">{options}</select>')
        parts.append("</div>")
    parts.append("</div>")
    default = states[default_key]
    # "; " between controls: a typed value may hold commas ("inputs b = 3, 3, 0; source = honest")
    setting_text = "; ".join(f"{c['label']} = {c['labels'][c['default']]}" for c in moved)
    parts.append(
        f'<img class="qring-explorer-image" src="{_esc(prefix + default["id"])}.png" '
        f'data-state="{default["id"]}" alt="{_esc(widget.title)}: {_esc(setting_text)}">'
    )
    parts.append(
        f'<p class="qring-explorer-setting" aria-live="polite">Setting shown: '
        f"<span>{_esc(setting_text)}</span></p>"
    )
    if fixed:
        parts.append(
            '<p class="qring-explorer-fixed">Fixed here (run the notebook to change '
            f"this): <span>{_esc(default['fixed'])}</span></p>"
        )
    parts.append(f'<p class="qring-explorer-hint"><em>{_esc(EXPLORER_HINT)}</em></p></div>')
    _STATS["explorers"] += 1
    _STATS["states"] += len(states)
    _STATS["seconds"] += time.perf_counter() - start
    _STATS["cpu"] += time.process_time() - cpu
    return "".join(parts)


class ExplorersForHtml(SphinxPostTransform):
    """Every widget preview that carries an explorer specification becomes an explorer."""

    default_priority = 100  # after MyST-NB picked the text/html output (SelectMimeType, 4)
    builders = HTML_BUILDERS

    def run(self, **kwargs) -> None:
        builder = self.app.builder
        page_dir = posixpath.dirname(builder.get_target_uri(self.env.docname))
        index = 0
        for raw in list(self.document.findall(nodes.raw)):
            if "html" not in raw.get("format", "").split():
                continue
            text = raw.astext()
            match = _SPEC.search(text)
            if match is None:
                continue
            spec_json = html.unescape(match.group(1))
            index += 1
            rendered = render_explorer(spec_json, Path(builder.outdir), page_dir, index)
            raw.replace_self(nodes.raw("", rendered, format="html"))


def _static_path(app, config) -> None:
    config.html_static_path = [*config.html_static_path, str(STATIC)]


def _report(app, exc) -> None:
    if exc is None and _STATS["explorers"]:
        logger.info(
            f"qring explorers: {_STATS['explorers']} explorers, {_STATS['states']} "
            f"states, {_STATS['bytes'] / 2**20:.1f} MB of PNG, rendered in "
            f"{_STATS['seconds']:.1f} s ({_STATS['cpu']:.1f} s of CPU)"
        )


def setup(app):
    app.connect("config-inited", _static_path)
    app.add_js_file("qring_explorer.js")
    app.add_css_file("qring_explorer.css")
    app.add_post_transform(ExplorersForHtml)
    app.connect("build-finished", _report)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
