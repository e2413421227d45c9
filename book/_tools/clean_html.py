"""Sphinx extension (``_config.yml``: ``sphinx.local_extensions``): a clean browser console.

The browser tests (``tests/browser``) fail on any JavaScript error. Two come from the theme
stack of Jupyter Book 1, not from the book, and are fixed here:

* sphinx-thebe registers its inline configuration script (``const THEBE_JS_URL = ...``) once per
  read of the sources, and Jupyter Book's build reads twice, so every page declared the constant
  twice (``SyntaxError: Identifier 'THEBE_JS_URL' has already been declared``). Each page now gets
  every script exactly once, in the original order.
* pydata-sphinx-theme starts from ``localStorage.mode || default_mode``; with the template variable
  ``default_mode`` unset, a first visit logs ``Got invalid theme mode: .``. We set it to ``"auto"``
  (follow the reader's system setting), which is what the theme falls back to anyway.
"""

from __future__ import annotations


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
        name = str(getattr(js, "filename", js) or "")
        key = (name, tuple(sorted((k, str(v)) for k, v in attrs.items())))
        if key not in seen:
            seen.add(key)
            unique.append(js)
    scripts[:] = unique


def setup(app):
    app.connect("html-page-context", _clean_page, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
