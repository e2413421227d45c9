"""Sphinx extension (``_config.yml``: ``sphinx.local_extensions``): clean, light, phone-sized pages.

The browser tests (``tests/browser``) fail on any JavaScript error. Two come from the theme
stack of Jupyter Book 1, not from the book, and are fixed here:

* sphinx-thebe registers its inline configuration script (``const THEBE_JS_URL = ...``) once per
  read of the sources, and Jupyter Book's build reads twice, so every page declared the constant
  twice (``SyntaxError: Identifier 'THEBE_JS_URL' has already been declared``). Each page now gets
  every script exactly once, in the original order.
* pydata-sphinx-theme starts from ``localStorage.mode || default_mode``; with the template variable
  ``default_mode`` unset, a first visit logs ``Got invalid theme mode: .``. We set it to ``"auto"``
  (follow the reader's system setting), which is what the theme falls back to anyway.

Two more things keep the pages light and readable:

* MyST-NB embeds the state of every widget of an executed notebook in its page (a
  ``<script type="application/vnd.jupyter.widget-state+json">``, 150 to 350 KB a chapter). No
  script of the static book reads it: the widgets are explorers there (``explorer.py``). It is
  dropped.
* ``book_static/qring_book.css``: on a narrow screen no page scrolls sideways; wide equations and
  tables scroll inside their own box, with a shadow as the cue (``tests/browser`` checks every
  page at 390 px).
"""

from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).resolve().parent / "book_static"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def _clean_page(app, pagename, templatename, context, doctree) -> None:
    context["default_mode"] = context.get("default_mode") or "auto"
    scripts = context.get("script_files")
    if not scripts:
        return
    # Sphinx already drops exact duplicates; the second copies of inline scripts differ from the
    # first only in their filename, None instead of "" (both mean "no file, body only").
    seen, unique = set(), []
    for js in scripts:
        attrs = getattr(js, "attributes", {}) or {}
        if attrs.get("type") == WIDGET_STATE:
            continue
        name = str(getattr(js, "filename", js) or "")
        key = (name, tuple(sorted((k, str(v)) for k, v in attrs.items())))
        if key not in seen:
            seen.add(key)
            unique.append(js)
    scripts[:] = unique


def _static_path(app, config) -> None:
    config.html_static_path = [*config.html_static_path, str(STATIC)]


def setup(app):
    app.connect("config-inited", _static_path)
    app.add_css_file("qring_book.css")
    app.connect("html-page-context", _clean_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
