"""The built HTML book in a real browser, with no network (issue: the book as a finished product).

For every page in ``_toc.yml``, opened from a local web server and from ``file://``:

* no request leaves the book (each one is aborted and recorded, and the test fails on any);
* every local resource loads (no 404, no missing file) and no JavaScript error is logged;
* MathJax (the bundled copy, see package.json) typesets every formula: each ``.math`` element holds
  an ``mjx-container``, no formula contains an undefined macro (MathJax writes those out with their
  backslash), and no raw TeX delimiters are left in the visible text;
* every ``<img>`` has loaded (``naturalWidth > 0``);
* every widget of a chapter notebook is an explorer (``.qring-explorer``, built by
  book/_tools/explorer.py: its controls, a loaded picture and the explorer's hint; see
  test_explorers.py for moving them), or, if it declares none, shows its static preview (a loaded
  PNG and the live-run hint); no unrendered widget view is left on the page;
* chapter pages offer their ``.ipynb`` for download, and have Binder and Colab launch buttons
  for the repository of ``_config.yml`` if it names one, else none.

The References page lists the whole bibliography, and every internal link (with its anchor)
resolves. A full-page screenshot of each page is saved (see conftest.py), and one of its first screen
as opened from ``file://``.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlparse

import pytest

from qring_edu.widgets._base import EXPLORER_HINT, LIVE_HINT

from ._book import ROOT, book_config, toc_pages

PAGES = toc_pages()
MODES = ["http", "file"]
NAV_TIMEOUT_MS = 60_000
#: A full-page screenshot of the longest page (the API reference, about 50 module sections)
#: took about 45 s here (the default 30 s of Playwright timed out on it).
SHOT_TIMEOUT_MS = 180_000

# Collected in the page: what typeset, what loaded, what is left raw. Text nodes inside code,
# scripts and formulas are skipped by the raw-TeX check (code cells may print backslashes).
PAGE_REPORT_JS = r"""
async () => {
  const report = {hasMathJax: !!window.MathJax};
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const maths = [...document.querySelectorAll('.math')];
  report.mathCount = maths.length;
  report.mathUntypeset = maths.filter(m => !m.querySelector('mjx-container'))
                              .map(m => m.textContent.slice(0, 80));
  report.mjxCount = document.querySelectorAll('mjx-container').length;
  report.mathErrors = [...document.querySelectorAll('mjx-merror, mjx-container')]
      .filter(e => e.tagName.toLowerCase() === 'mjx-merror' || e.textContent.includes('\\'))
      .map(e => e.textContent.slice(0, 80));
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      const skip = node.parentElement &&
        node.parentElement.closest('pre, code, script, style, mjx-container, textarea');
      return skip ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
    }
  });
  report.rawTex = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (/\\\(|\\\)|\\\[|\\\]|\$\$/.test(n.textContent)) report.rawTex.push(n.textContent.slice(0, 80));
  }
  const imgs = [...document.images];
  await Promise.all(imgs.map(img => img.complete ? null :
      new Promise(r => { img.addEventListener('load', r); img.addEventListener('error', r); })));
  report.imgCount = imgs.length;
  report.imgBroken = imgs.filter(i => !(i.complete && i.naturalWidth > 0))
                         .map(i => (i.getAttribute('src') || '').slice(0, 100));
  const widgets = [...document.querySelectorAll('.qring-static-widget, .qring-explorer')];
  report.widgets = widgets.map(w => {
    const img = w.querySelector('img');
    return {
      imgLoaded: !!img && img.complete && img.naturalWidth > 0,
      imgWidth: img ? img.naturalWidth : 0,
      visible: w.getBoundingClientRect().height > 0,
      text: w.innerText,
      explorer: w.classList.contains('qring-explorer'),
      controls: w.querySelectorAll('input[type="range"], select').length,
    };
  });
  report.widgetViews = document.querySelectorAll(
      'script[type="application/vnd.jupyter.widget-view+json"], .jupyter-widgets').length;
  report.bodyText = document.body.innerText;
  report.launch = [...document.querySelectorAll('a[href]')].map(a => a.href)
      .filter(h => /mybinder\.org\/v2\/|colab\.research\.google\.com\/github\//.test(h));
  report.downloads = [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))
      .filter(h => /\.ipynb$/.test(h));
  return report;
}
"""


def _page_url(mode: str, page: str, http_base: str, html_dir: Path) -> str:
    if mode == "http":
        return f"{http_base}{page}.html"
    return (html_dir / f"{page}.html").as_uri()


def _is_local(url: str, mode: str, http_base: str, html_dir: Path) -> bool:
    if url.startswith(("data:", "blob:", "about:")):
        return True
    if mode == "http":
        return url.startswith(http_base)
    return url.startswith(html_dir.as_uri() + "/")


def watched_page(browser, mode: str, http_base: str, html_dir: Path):
    """A fresh context and page that aborts every request leaving the book and records what
    went wrong: ``(context, page, outside, failed, errors)`` — URLs asked for outside the book,
    failed or HTTP >= 400 responses, console errors and uncaught exceptions. The caller closes
    the context."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    outside: list[str] = []
    failed: list[str] = []
    errors: list[str] = []

    def route(r):
        if _is_local(r.request.url, mode, http_base, html_dir):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    pg = context.new_page()
    # Belt and braces: requests the router may not see (file:// subresources) are checked too.
    pg.on(
        "request",
        lambda req: (
            None if _is_local(req.url, mode, http_base, html_dir) else outside.append(req.url)
        ),
    )
    pg.on("requestfailed", lambda req: failed.append(f"{req.url} ({req.failure})"))
    pg.on(
        "response",
        lambda resp: (
            failed.append(f"{resp.url} (HTTP {resp.status})") if resp.status >= 400 else None
        ),
    )
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, pg, outside, failed, errors


def _stored_widget_previews(page: str) -> tuple[int, int]:
    """(widget outputs with a static preview, those of them with an explorer specification)
    stored in the page's notebook ((0, 0) for .md pages)."""
    nb_path = ROOT / f"{page}.ipynb"
    if not nb_path.is_file():
        return 0, 0
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    count = explorers = 0
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            html = out.get("data", {}).get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            count += html.count('class="qring-static-widget"')
            explorers += html.count('class="qring-static-widget" data-qring-explorer=')
    return count, explorers


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("mode", MODES)
def test_page_offline(browser, http_base, html_dir, screenshot_dir, mode, page):
    context, pg, outside, failed, errors = watched_page(browser, mode, http_base, html_dir)
    try:
        pg.goto(
            _page_url(mode, page, http_base, html_dir), wait_until="load", timeout=NAV_TIMEOUT_MS
        )
        report = pg.evaluate(PAGE_REPORT_JS)
        # The whole page once (from the server); the first screen only for file:// (long pages
        # take seconds to capture in full).
        shot = screenshot_dir / f"{mode}-{page.replace('/', '_')}.png"
        pg.screenshot(path=str(shot), full_page=(mode == "http"), timeout=SHOT_TIMEOUT_MS)
    finally:
        context.close()

    assert not sorted(set(outside)), f"requests to outside the book: {sorted(set(outside))}"
    assert not failed, f"resources that did not load: {failed}"
    assert not errors, f"JavaScript errors: {errors}"

    # Math: the page is typeset by the bundled MathJax, with the book's macros.
    if report["mathCount"]:
        assert report["hasMathJax"], "page has formulas but MathJax did not load"
        assert report["mjxCount"] >= report["mathCount"]
    assert not report["mathUntypeset"], f"formulas left untypeset: {report['mathUntypeset']}"
    assert not report["mathErrors"], (
        f"formulas with errors or undefined macros: {report['mathErrors']}"
    )
    assert not report["rawTex"], f"raw TeX in the visible text: {report['rawTex']}"

    assert not report["imgBroken"], f"images that did not load: {report['imgBroken']}"

    # Widgets: every stored static preview is on the page, with its picture and how to run it live.
    expected, explorers = _stored_widget_previews(page)
    assert len(report["widgets"]) == expected, (
        f"{len(report['widgets'])} widgets on the page, {expected} in the notebook"
    )
    assert sum(w["explorer"] for w in report["widgets"]) == explorers, (
        f"{sum(w['explorer'] for w in report['widgets'])} explorers on the page, "
        f"{explorers} specified in the notebook"
    )
    for i, w in enumerate(report["widgets"]):
        assert w["imgLoaded"] and w["imgWidth"] > 100, f"widget {i}: image not loaded"
        assert w["visible"], f"widget {i} is not visible"
        hint = EXPLORER_HINT if w["explorer"] else LIVE_HINT
        assert hint in " ".join(w["text"].split()), f"widget {i}: no hint on how to run it"
        assert (w["controls"] > 0) == w["explorer"], f"widget {i}: {w['controls']} controls"
    assert report["widgetViews"] == 0, "unrendered (dead) widget views on the page"
    assert "Loading widget" not in report["bodyText"]

    # Launch buttons on chapter notebooks: for the repository named in _config.yml, and none
    # while it names none (they would open a repository that does not exist).
    url = (book_config().get("repository") or {}).get("url") or ""
    if not url:
        assert not report["launch"], f"launch buttons without a repository: {report['launch']}"
    elif (ROOT / f"{page}.ipynb").is_file():
        repo = urlparse(url).path.strip("/")
        branch = book_config()["repository"].get("branch", "main")
        nb = f"{page}.ipynb"
        assert any(
            h.startswith(f"https://mybinder.org/v2/gh/{repo}/{branch}?") and nb in h
            for h in report["launch"]
        ), f"no Binder launch button: {report['launch']}"
        assert (
            f"https://colab.research.google.com/github/{repo}/blob/{branch}/{nb}"
            in report["launch"]
        ), f"no Colab launch button: {report['launch']}"
    # Every chapter page offers its notebook for download.
    if (ROOT / f"{page}.ipynb").is_file():
        assert f"{page.split('/')[-1]}.ipynb" in " ".join(report["downloads"]), (
            f"no .ipynb download: {report['downloads']}"
        )


def test_references_page_lists_the_bibliography(browser, http_base):
    keys = re.findall(
        r"^@\w+\s*\{\s*([^,\s]+)\s*,",
        (ROOT / "references.bib").read_text(encoding="utf-8"),
        flags=re.M,
    )
    assert keys, "references.bib has no entries"
    page = "book/references"
    assert page in PAGES
    context = browser.new_context()
    try:
        pg = context.new_page()
        pg.goto(f"{http_base}{page}.html", wait_until="load", timeout=NAV_TIMEOUT_MS)
        entries = pg.eval_on_selector_all(
            '[role="doc-biblioentry"], .citation',
            "els => [...new Set(els)].map(e => e.innerText.trim())",
        )
    finally:
        context.close()
    # The page uses {bibliography} :all:, so every entry of references.bib is listed, each with text.
    assert len(entries) == len(keys), (
        f"{len(entries)} entries listed, {len(keys)} in references.bib"
    )
    assert all(len(e) > 20 for e in entries)


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])
        if tag in ("link", "script", "img") and (a.get("href") or a.get("src")):
            self.hrefs.append(a.get("href") or a.get("src"))


def test_internal_links_resolve(html_dir):
    """Every relative link, script, stylesheet and image of every toc page exists, anchors too."""
    parsed: dict[Path, _Links] = {}

    def parse(path: Path) -> _Links:
        if path not in parsed:
            p = _Links()
            p.feed(path.read_text(encoding="utf-8"))
            parsed[path] = p
        return parsed[path]

    broken = []
    for page in PAGES:
        src = html_dir / f"{page}.html"
        for href in parse(src).hrefs:
            if re.match(r"^[a-z][a-z0-9+.-]*:", href, flags=re.I):  # absolute URL, data:, mailto:
                continue
            target, frag = urldefrag(urljoin(src.as_uri(), href))
            path = Path(unquote(urlparse(target).path))
            if not path.exists():
                broken.append(f"{page}: {href}")
            elif frag and path.suffix == ".html" and unquote(frag) not in parse(path).ids:
                broken.append(f"{page}: {href} (no anchor)")
    assert not broken, "broken internal links:\n" + "\n".join(broken)


def _offline_page(browser, http_base):
    """A page of a context that aborts every request outside the local server."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    context.route(
        "**/*", lambda r: r.continue_() if r.request.url.startswith(http_base) else r.abort()
    )
    return context, context.new_page()


def test_navigation_reaches_every_chapter(browser, http_base):
    """From the front page (index.html redirects there), the sidebar links every page of the toc."""
    context, pg = _offline_page(browser, http_base)
    try:
        pg.goto(f"{http_base}index.html", wait_until="load", timeout=NAV_TIMEOUT_MS)
        pg.wait_for_url(f"{http_base}{PAGES[0]}.html", timeout=NAV_TIMEOUT_MS)
        pg.wait_for_load_state("load")
        hrefs = pg.eval_on_selector_all(
            "nav.bd-docs-nav a.reference.internal", "els => els.map(e => e.href)"
        )
    finally:
        context.close()
    reached = {urlparse(h).path.lstrip("/").removesuffix(".html") for h in hrefs}
    missing = [p for p in PAGES if p not in reached and p != PAGES[0]]
    assert not missing, f"pages the sidebar does not link to: {missing}"


def test_search_finds_superdense(browser, http_base):
    """Sphinx's client-side search (its index ships with the book) answers offline."""
    context, pg = _offline_page(browser, http_base)
    try:
        pg.goto(f"{http_base}search.html?q=superdense", wait_until="load", timeout=NAV_TIMEOUT_MS)
        pg.wait_for_selector("#search-results ul.search li", timeout=NAV_TIMEOUT_MS)
        # Results arrive one by one, API objects first: wait for Sphinx's closing summary
        # ("Search finished, found N pages ...") before reading the list.
        pg.wait_for_function(
            "() => { const s = document.querySelector('#search-results .search-summary');"
            " return s !== null && /found/i.test(s.textContent); }",
            timeout=NAV_TIMEOUT_MS,
        )
        hits = pg.eval_on_selector_all(
            "#search-results ul.search li a", "els => els.map(e => e.getAttribute('href'))"
        )
    finally:
        context.close()
    assert any("03_superdense_ring" in h for h in hits), f"search hits: {hits}"
