"""Explorers of the HTML book: the specification and its grids (qring_edu.widgets._base), the
rendering of one setting and the build's rendering of a whole explorer (book/_tools/explorer.py)."""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import ipywidgets as widgets
import pytest

import qring_edu.widgets as W
from qring_edu.widgets import _base
from qring_edu.widgets._base import (
    MAX_EXPLORER_STATES,
    ExplorerSpec,
    LiveFigure,
    explorer_grid,
    figure_to_png,
)
from qring_edu.widgets.noisy_links import net_factor_widget, protected_training_widget
from qring_edu.widgets.qubits import bell_pair_widget, noisy_pair_widget, qubit_measurement_widget

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_tools"))
from explorer import (  # noqa: E402  (the book's build code, not the installed package)
    compact_png,
    explorer_controls,
    explorer_widget,
    render_state,
    state_id,
)

#: Every factory of the book.
FACTORIES = [getattr(W, name) for name in W.__all__ if name.endswith("_widget")] + [
    net_factor_widget,
    protected_training_widget,
    qubit_measurement_widget,
    bell_pair_widget,
    noisy_pair_widget,
]


def _dense():
    return W.dense_coding_widget(pair_fidelity=0.9)


# ---------------------------------------------------------------------------------------------
# every factory declares an explorer that rebuilds it


@pytest.mark.parametrize("factory", FACTORIES, ids=lambda f: f.__name__)
def test_every_factory_declares_an_explorer(factory):
    w = factory()
    spec = w.explorer
    assert isinstance(spec, ExplorerSpec), f"{factory.__name__} declares no explorer"
    assert spec.factory.endswith(f":{factory.__name__}")
    assert ExplorerSpec.from_json(spec.to_json()) == spec
    n = len(spec.settings())
    assert 2 <= n <= MAX_EXPLORER_STATES
    moved, _ = explorer_controls(w)
    for c in moved:
        control = w.controls[c["name"]]
        if isinstance(control, _base._SLIDERS):
            positions = len(c["values"])
            assert positions >= 5 or control.max - control.min < 5 * control.step
        elif isinstance(control, _base._CHOICES):
            options = {json.dumps(v) for _, v in _base._options(control)}
            # every option, but a preset menu's "custom" (what the reader typed, not a setting)
            assert options - {json.dumps(v) for v in c["values"]} <= {'"custom"'}
    # the specification is in the static HTML the notebook stores, and rebuilds the same widget
    match = re.search(r'data-qring-explorer="([^"]*)"', w.static_html())
    assert match and ExplorerSpec.from_json(html.unescape(match.group(1))) == spec
    assert explorer_widget(spec).values() == w.values()


def test_settings_are_every_combination_last_fastest():
    spec = W.alpha_beta_widget().explorer
    settings = spec.settings()
    (n1, v1), (n2, v2) = spec.grid
    assert len(settings) == len(v1) * len(v2)
    assert settings[0] == {n1: v1[0], n2: v2[0]} and settings[1] == {n1: v1[0], n2: v2[1]}
    ids = {state_id(spec, s) for s in settings}
    assert len(ids) == len(settings) and all(re.fullmatch(r"[0-9a-f]{16}", i) for i in ids)


def test_state_id_depends_on_the_factory_arguments():
    a, b = W.dense_coding_widget(0.9).explorer, W.dense_coding_widget(0.95).explorer
    setting = {"pair_fidelity": 0.9}
    assert state_id(a, setting) != state_id(b, setting)
    assert state_id(a, setting) == state_id(ExplorerSpec.from_json(a.to_json()), setting)


# ---------------------------------------------------------------------------------------------
# rendering one setting


def test_render_state_is_the_live_widget_moved_there():
    moved = _dense()
    moved.controls["pair_fidelity"].value = 0.6  # what a reader does in Jupyter
    assert render_state(_dense(), {"pair_fidelity": 0.6}) == compact_png(bytes(moved.image.value))
    w = _dense()
    first = render_state(w, {"pair_fidelity": 0.6})
    render_state(w, {"pair_fidelity": 1.0})
    assert render_state(w, {"pair_fidelity": 0.6}) == first  # no memory of the path taken
    assert first != render_state(w, {"pair_fidelity": 0.9})


def test_render_state_two_controls_redraw_once():
    w = W.alpha_beta_widget()
    calls = []
    compute = w.compute
    w.compute = lambda **kw: calls.append(kw) or compute(**kw)
    assert render_state(w, {"model": "GPT-3", "alpha_us": 1000.0})[:4] == b"\x89PNG"
    assert len(calls) == 1 and calls[0]["model"] == "GPT-3" and calls[0]["alpha_us"] == 1000.0


def test_render_state_none_where_the_widget_has_no_picture():
    w = W.ring_schedule_widget(workers=4, step=3)
    assert render_state(w, {"workers": 2, "step": 3}) is None  # step <= 2(P - 1) = 2
    assert render_state(w, {"workers": 6, "step": 10})[:4] == b"\x89PNG"
    small = [s for s in w.explorer.settings() if s["workers"] <= 3]
    valid = [s for s in small if render_state(w, s) is not None]
    assert [(s["workers"], s["step"]) for s in valid] == [(2, k) for k in range(3)] + [
        (3, k) for k in range(5)
    ]
    # a setting the library refuses: the live widget shows the error, the explorer no picture
    box = W.ledger_floor_widget()
    assert render_state(box, {"d": "0"}) is None and "d must be" in box.error
    with pytest.raises(ValueError, match="not controls of this widget"):
        render_state(w, {"P": 3})


def test_figure_png_is_deterministic_without_software_metadata():
    w = _dense()
    png = bytes(w.image.value)
    assert b"Software" not in png and b"Matplotlib" not in png
    assert figure_to_png(w.plot(w.result)) == png


# ---------------------------------------------------------------------------------------------
# bad specifications: a ValueError naming the argument


def _controls():
    return {
        "n": widgets.IntSlider(value=4, min=2, max=20),
        "scheme": widgets.Dropdown(options=[("A", "a"), ("B", "b")], value="a"),
        "d": widgets.Text(value="10"),
        "tick": widgets.Checkbox(value=False),
        "x": widgets.FloatText(value=0.5),
    }


def _create(grid, factory=W.dense_coding_widget, kwargs=None, **kw):
    return ExplorerSpec.create(factory, kwargs or {}, grid, _controls(), **kw)


@pytest.mark.parametrize(
    "grid, message",
    [
        ({}, "grid must map at least one control"),
        ({"m": [1, 2]}, r"grid names \['m'\], not controls"),
        ({"n": [2, 3, 4]}, r"grid\['n'\] must list at least 5 values of the slider"),
        ({"n": None}, r"grid\['n'\] must list the slider's values: it has 19 positions"),
        ({"n": [2, 3, 4, 5, 21]}, r"grid\['n'\]: value 21 is outside the slider's range \[2, 20\]"),
        ({"n": [2, 3, 4.5, 5, 6]}, r"grid\['n'\] must hold integers"),
        ({"n": [2, 3, 5, 6, 7]}, r"grid\['n'\] must contain the control's current value 4"),
        ({"n": [2, 3, 4, 4, 6]}, r"grid\['n'\] repeats a value"),
        ({"scheme": ["a", "c"]}, r"grid\['scheme'\]: 'c' is not an option; options: 'a', 'b'"),
        ({"scheme": ["a"]}, r"grid\['scheme'\] must list at least 2 options"),
        ({"d": None}, r"grid\['d'\] must list the values to offer for a text"),
        ({"d": ["10", 3]}, r"grid\['d'\] must hold values of type str"),
        ({"x": [0.5, float("nan")]}, r"grid\['x'\] must hold numbers, strings or booleans"),
        (
            {"n": list(range(2, 21)), "scheme": None, "tick": None, "d": ["10", "1", "2", "3"]},
            "grid has 304 settings, more than MAX_EXPLORER_STATES",
        ),
    ],
)
def test_bad_grid_is_a_value_error_naming_it(grid, message):
    with pytest.raises(ValueError, match=message):
        _create(grid)


def test_bad_factory_kwargs_and_follows():
    with pytest.raises(ValueError, match="factory must be a module-level function"):
        _create({"scheme": None}, factory=lambda: None)
    with pytest.raises(ValueError, match=r"kwargs must hold numbers, strings or booleans.*\['p'\]"):
        _create({"scheme": None}, kwargs={"p": [1, 2]})
    with pytest.raises(ValueError, match=r"follows names \['scheme'\]: only sliders"):
        _create({"scheme": None}, follows=["scheme"])
    # a following slider's grid may leave today's range
    assert _create({"n": [2, 4, 22, 23, 24]}, follows=["n"]).grid[0][1][-1] == 24
    assert _create({"tick": None}).grid == (("tick", (False, True)),)


def test_explorer_grid_unsupported_control():
    with pytest.raises(ValueError, match=r"grid\['b'\]: an explorer cannot offer a Button"):
        explorer_grid(widgets.Button(), [1, 2], "b")


def test_spec_from_json_and_explorer_widget_refuse_other_text():
    with pytest.raises(ValueError, match="text is not an explorer specification"):
        ExplorerSpec.from_json('{"factory": "x"}')
    with pytest.raises(ValueError, match="spec.factory must name a qring_edu widget factory"):
        explorer_widget(ExplorerSpec("os:system", (), (("n", (1, 2)),)))
    with pytest.raises(ValueError, match="has no explorer"):
        explorer_controls(LiveFigure(lambda: 1, lambda r: _dense().plot(_dense().result), {}))


def test_explorer_controls_labels_and_fixed():
    moved, fixed = explorer_controls(W.vga_epsilon_widget())
    attack = next(c for c in moved if c["name"] == "attack")
    assert attack["kind"] == "select" and attack["labels"][0].startswith("split worker")
    assert attack["values"][attack["default"]] == "split_worker"
    beta = next(c for c in moved if c["name"] == "bad_fraction")
    assert beta["kind"] == "range" and beta["labels"] == ["0.00", "0.05", "0.10", "0.20", "0.30"]
    assert {f["name"] for f in fixed} == {"workers", "bits"}
    assert {"name": "workers", "label": "workers P", "value": "4"} in fixed


def test_typed_values_show_as_typed_without_python_quotes(tmp_path):
    # a text box's value is shown as the reader would type it, moved or fixed
    _, fixed = explorer_controls(W.ring_schedule_widget(workers=4, step=3, d="10"))
    assert {"name": "d", "label": "d", "value": "10"} in fixed
    moved, _ = explorer_controls(W.ledger_floor_widget(d="1000", bits=16))
    assert next(c for c in moved if c["name"] == "d")["labels"] == ["10", "1000", "100000"]
    # the setting's text separates controls by "; " (a typed value may hold commas)
    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    import explorer

    w = W.vga_privacy_widget()
    match = explorer._SPEC.search(w.static_html())
    out = explorer.render_explorer(html.unescape(match.group(1)), tmp_path, "book", 1)
    shown = re.search(r'class="qring-explorer-setting"[^>]*>Setting shown: <span>([^<]*)<', out)
    assert html.unescape(shown.group(1)) == "inputs b = 3, 3, 0; source = honest"
    fixed = re.search(r'class="qring-explorer-fixed">[^<]*<span>([^<]*)<', out).group(1)
    assert "inputs a = 1, 2, 3;" in html.unescape(fixed)
    states = json.loads(html.unescape(re.search(r'data-qring-states="([^"]*)"', out).group(1)))
    assert states["controls"][0]["labels"] == ["3, 3, 0", "0, 0, 2", "1, 1, 1"]
    assert not re.search(r"= '|\['", html.unescape(out))  # no Python string anywhere
    # the static preview (the PDF's legend) names the settings the same way
    preview = html.unescape(W.ring_schedule_widget(workers=4, step=3, d="10").static_html())
    assert "step = 3; d = 10." in preview and "= '" not in preview


# ---------------------------------------------------------------------------------------------
# the build's side: book/_tools/explorer.py


@pytest.fixture()
def extension():
    sys.path.insert(0, str(ROOT / "book" / "_tools"))
    try:
        import explorer

        yield explorer
    finally:
        sys.path.remove(str(ROOT / "book" / "_tools"))


def test_build_renders_every_state_and_writes_the_explorer(extension, tmp_path):
    w = W.vga_epsilon_widget()
    match = extension._SPEC.search(w.static_html())
    out = extension.render_explorer(html.unescape(match.group(1)), tmp_path, "book", 3)
    spec = w.explorer
    files = sorted(p.name for p in (tmp_path / extension.IMAGE_DIR).iterdir())
    assert files == sorted(f"{state_id(spec, s)}.png" for s in spec.settings())
    # each file is the library's picture of its setting
    s = spec.settings()[7]
    png = (tmp_path / extension.IMAGE_DIR / f"{state_id(spec, s)}.png").read_bytes()
    assert png == render_state(W.vga_epsilon_widget(), s)
    assert out.startswith('<div class="qring-explorer" id="qring-explorer-3"')
    assert '<select id="qring-explorer-3-c0" data-control="0">' in out
    assert out.count("<option ") == 5
    assert '<input type="range" id="qring-explorer-3-c1" data-control="1" min="0" max="4"' in out
    assert '<label for="qring-explorer-3-c1">bad fraction β</label>' in out
    default = state_id(spec, {"attack": "split_worker", "bad_fraction": 0.1})
    assert f'src="../_images/qring_explorer/{default}.png" data-state="{default}"' in out
    assert "run the notebook to change this" in out and "workers P = 4" in out
    states = json.loads(html.unescape(re.search(r'data-qring-states="([^"]*)"', out).group(1)))
    assert len(states["states"]) == 25 and states["states"]["0,2"]["id"] == default


def test_compact_png_is_the_same_picture_in_fewer_bytes():
    import io

    import numpy as np
    from PIL import Image

    png = bytes(W.tieaudit_explorer_widget().image.value)
    small = compact_png(png)
    assert len(small) < len(png) / 2
    with Image.open(io.BytesIO(png)) as a, Image.open(io.BytesIO(small)) as b:
        assert b.mode == "P" and a.size == b.size
        diff = np.abs(np.asarray(a.convert("RGB"), float) - np.asarray(b.convert("RGB"), float))
    # a wrong background or palette would differ by tens of levels on average
    assert diff.mean() < 3 and np.quantile(diff, 0.99) < 40


def test_docstring_examples_of_the_explorer_helpers():
    import doctest

    for obj in (explorer_grid, ExplorerSpec):
        finder = doctest.DocTestFinder(recurse=False)
        tests = finder.find(obj, globs=dict(vars(_base)))
        examples = sum(len(t.examples) for t in tests)
        assert examples >= 2, f"{obj.__name__} has no Examples section"
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        for t in tests:
            runner.run(t)
        assert runner.failures == 0, f"{obj.__name__}: {runner.failures} failing examples"
