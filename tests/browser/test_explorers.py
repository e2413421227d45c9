"""The explorers of the HTML book in a real browser, offline.

On every chapter page, opened from the local server and from ``file://``, every explorer's every
control is moved to every value it offers (a range input with the keyboard, Home then one
ArrowRight at a time; a ``<select>`` option by option). After each move the test checks that

* the picture changed (a new ``data-state`` and ``src``) and loaded;
* its state id is the id of the setting the controls show (recomputed here with
  ``state_id`` of book/_tools/explorer.py from the explorer's specification) and its file is
  ``_images/qring_explorer/<id>.png``;
* the text beside it names that setting.

Then every picture seen is compared byte for byte with the figure the library renders for that
setting now (``render_state`` of book/_tools/explorer.py, once per setting for both modes).
No console error, no request leaving the book. A screenshot of the first explorer of each page is
kept (``explorer-<page>.png`` in the screenshot folder).
"""

from __future__ import annotations

import json
import sys

import pytest

from qring_edu.widgets._base import ExplorerSpec

from ._book import ROOT, toc_pages

sys.path.insert(0, str(ROOT / "book" / "_tools"))
from explorer import explorer_widget, render_state, state_id  # noqa: E402  (the build's code)

from .test_book_html import NAV_TIMEOUT_MS, _page_url, watched_page


def _explorer_pages() -> list[str]:
    pages = []
    for page in toc_pages():
        nb = ROOT / f"{page}.ipynb"
        if nb.is_file() and "data-qring-explorer=" in nb.read_text(encoding="utf-8"):
            pages.append(page)
    return pages


PAGES = _explorer_pages()
_RENDERED: dict[tuple[str, str], bytes | None] = {}  # (spec json, state id) -> library PNG

# The explorer's controls, picture and text, as the page shows them.
READ_JS = r"""
(root) => {
  const img = root.querySelector('img.qring-explorer-image');
  return {
    values: [...root.querySelectorAll('[data-control]')].map(e => parseInt(e.value, 10)),
    state: img.getAttribute('data-state'),
    src: img.getAttribute('src'),
    loaded: img.complete && img.naturalWidth > 100,
    setting: root.querySelector('.qring-explorer-setting').innerText,
  };
}
"""


def _wait_loaded(pg, root) -> dict:
    pg.wait_for_function(
        "(r) => { const i = r.querySelector('img.qring-explorer-image');"
        " return i.complete && i.naturalWidth > 0; }",
        arg=root,
        timeout=NAV_TIMEOUT_MS,
    )
    return root.evaluate(READ_JS)


def _library_png(spec_json: str, spec: ExplorerSpec, setting: dict, sid: str) -> bytes | None:
    key = (spec_json, sid)
    if key not in _RENDERED:
        widget = _RENDERED.setdefault(("widget", spec_json), explorer_widget(spec))
        _RENDERED[key] = render_state(widget, setting)
    return _RENDERED[key]


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("mode", ["http", "file"])
def test_every_control_to_every_value(browser, http_base, html_dir, screenshot_dir, mode, page):
    context, pg, outside, failed, errors = watched_page(browser, mode, http_base, html_dir)
    seen: list[tuple[str, ExplorerSpec, dict, str]] = []
    moves = 0
    try:
        pg.goto(
            _page_url(mode, page, http_base, html_dir), wait_until="load", timeout=NAV_TIMEOUT_MS
        )
        roots = pg.query_selector_all("div.qring-explorer")
        stored = (ROOT / f"{page}.ipynb").read_text(encoding="utf-8").count("data-qring-explorer=")
        assert len(roots) == stored and roots, f"{len(roots)} explorers, {stored} in the notebook"
        for n, root in enumerate(roots):
            spec_json = root.get_attribute("data-qring-spec")
            spec = ExplorerSpec.from_json(spec_json)
            data = json.loads(root.get_attribute("data-qring-states"))
            names = [c["name"] for c in data["controls"]]
            grid = dict(spec.grid)
            assert names == [name for name, _ in spec.grid]
            if n == 0:
                root.scroll_into_view_if_needed()
                root.screenshot(
                    path=str(screenshot_dir / f"explorer-{mode}-{page.replace('/', '_')}.png")
                )

            def check(before: dict | None, what: str) -> dict:
                now = _wait_loaded(pg, root)
                setting = {name: grid[name][i] for name, i in zip(names, now["values"])}
                sid = state_id(spec, setting)
                assert now["state"] == sid, f"{what}: picture {now['state']}, setting {sid}"
                assert now["src"].endswith(f"_images/qring_explorer/{sid}.png"), now["src"]
                assert now["loaded"], f"{what}: picture not loaded"
                labels = [c["labels"][i] for c, i in zip(data["controls"], now["values"])]
                for c, label in zip(data["controls"], labels):
                    assert f"{c['label']} = {label}" in now["setting"], now["setting"]
                if before is not None and before["values"] != now["values"]:
                    assert now["src"] != before["src"], f"{what}: the picture did not change"
                seen.append((spec_json, spec, setting, sid))
                return now

            state = check(None, f"explorer {n} at load")
            for k, name in enumerate(names):
                control = root.query_selector(f'[data-control="{k}"]')
                label = root.query_selector(f'label[for="{control.get_attribute("id")}"]')
                assert label and label.inner_text().strip(), f"control {name} has no label"
                if control.get_attribute("type") == "range":
                    lo, hi = int(control.get_attribute("min")), int(control.get_attribute("max"))
                    control.focus()
                    control.press("Home")
                    state = check(state, f"{name} = index {lo}")
                    assert state["values"][k] == lo
                    for i in range(lo + 1, hi + 1):
                        control.press("ArrowRight")
                        moves += 1
                        state = check(state, f"{name} = index {i}")
                        assert state["values"][k] == i, f"{name}: {state['values'][k]} != {i}"
                else:
                    options = control.eval_on_selector_all("option", "os => os.map(o => o.value)")
                    assert len(options) == len(grid[name])
                    for value in options:
                        control.select_option(value)
                        moves += 1
                        state = check(state, f"{name} = option {value}")
                        assert state["values"][k] == int(value)
    finally:
        context.close()
    assert not sorted(set(outside)), f"requests to outside the book: {sorted(set(outside))}"
    assert not failed, f"resources that did not load: {failed}"
    assert not errors, f"JavaScript errors: {errors}"
    assert moves >= 5 * len(roots)
    # every picture seen is the library's figure of its setting, byte for byte
    for spec_json, spec, setting, sid in seen:
        png = (html_dir / "_images" / "qring_explorer" / f"{sid}.png").read_bytes()
        assert png == _library_png(spec_json, spec, setting, sid), (
            f"{spec.factory} at {setting}: the book's picture is not the library's figure"
        )
