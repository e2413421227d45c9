"""The built book on a phone, and every link of it leading somewhere.

* At 390 px (a phone held upright) no page scrolls sideways: the document is no wider than the
  screen. What is wider than the column (display equations, tables, code) scrolls inside its
  own box, and equations and tables show a shadow at the edge where more content is hidden.
* No page links to a placeholder (an unpublished repository, an install line from it) or to a
  file the book does not ship: the wheel link, the PDF link (present only if the PDF was built
  next to the HTML) and every other relative link resolve.
"""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

from ._book import book_config, toc_pages

PAGES = toc_pages()
PHONE = {"width": 390, "height": 844}
NAV_TIMEOUT_MS = 60_000

WIDTH_JS = r"""
async (SCREEN) => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const doc = document.documentElement;
  // Boxes that really overflow: what is in them is wider than they are.
  const scrolls = [...document.querySelectorAll(
        'mjx-container[display="true"], article table, div.cell_output table')]
      .filter(e => e.scrollWidth > e.clientWidth + 1)
      .map(e => ({
        tag: e.tagName.toLowerCase(),
        overflow: getComputedStyle(e).overflowX,
        cue: getComputedStyle(e).backgroundImage.includes('gradient'),
      }));
  // The widest elements that stick out of the screen (to name the culprit when one does).
  const wide = [...document.body.querySelectorAll('*')]
      .filter(e => e.getBoundingClientRect().right > SCREEN + 1)
      .filter(e => !e.closest('div.math, table, pre, .highlight, .table-wrapper, .bd-sidebar-primary,'
                              + ' .bd-sidebar-secondary, .search-button-field, mjx-container'))
      .slice(0, 5)
      .map(e => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}: ` +
                `${Math.round(e.getBoundingClientRect().right)} px`);
  return {scrollWidth: doc.scrollWidth, innerWidth: window.innerWidth, scrolls, wide};
}
"""


@pytest.mark.parametrize("page", PAGES)
def test_page_fits_a_phone(browser, http_base, page):
    context = browser.new_context(viewport=PHONE, is_mobile=True, service_workers="block")
    context.route(
        "**/*", lambda r: r.continue_() if r.request.url.startswith(http_base) else r.abort()
    )
    try:
        pg = context.new_page()
        pg.goto(f"{http_base}{page}.html", wait_until="load", timeout=NAV_TIMEOUT_MS)
        report = pg.evaluate(WIDTH_JS, PHONE["width"])
    finally:
        context.close()
    # (A mobile browser widens its layout viewport to what overflows, so innerWidth is no
    # yardstick: the screen is.)
    assert report["scrollWidth"] <= PHONE["width"], (
        f"{page} is {report['scrollWidth']} px wide on a {PHONE['width']} px screen; "
        f"sticking out: {report['wide']}"
    )
    for box in report["scrolls"]:
        assert box["overflow"] in ("auto", "scroll"), f"{page}: a wide {box['tag']} is cut off"
        assert box["cue"], f"{page}: a wide {box['tag']} scrolls without a visible cue"


class _Hrefs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])


def _all_pages(html_dir: Path) -> list[Path]:
    return sorted(p for p in html_dir.rglob("*.html") if "_static" not in p.parts)


def test_no_link_to_a_placeholder_or_a_missing_file(html_dir):
    """Every page of the build (toc pages, index, search, genindex), every link: a relative link
    reaches a file of the build; a link to a code host is to the configured repository; no
    install line names a repository when none is configured."""
    url = (book_config().get("repository") or {}).get("url") or ""
    broken, placeholders = [], []
    for src in _all_pages(html_dir):
        text = src.read_text(encoding="utf-8")
        parser = _Hrefs()
        parser.feed(text)
        for href in parser.hrefs:
            if "placeholder" in href.lower():
                placeholders.append(f"{src.name}: {href}")
            if re.match(r"^https?://(github\.com|gitlab\.com|mybinder\.org)/", href):
                if not url or urlparse(url).path.strip("/") not in href:
                    placeholders.append(f"{src.name}: {href}")
            if re.match(r"^[a-z][a-z0-9+.-]*:", href, flags=re.I) or href.startswith("#"):
                continue
            target = Path(unquote(urlparse(urljoin(src.as_uri(), href)).path))
            if not target.exists():
                broken.append(f"{src.relative_to(html_dir)}: {href}")
        if not url and "git+" in text:
            placeholders.append(f"{src.name}: an install line from an unpublished repository")
    assert not placeholders, "links that lead nowhere:\n" + "\n".join(placeholders)
    assert not broken, "links to files the book does not ship:\n" + "\n".join(broken)


def test_the_intro_offers_the_wheel_and_links_the_pdf_only_if_shipped(html_dir):
    intro = (html_dir / "book" / "intro.html").read_text(encoding="utf-8")
    wheels = re.findall(r'href="\.\./([^"]+\.whl)"', intro)
    assert wheels, "the intro does not link the library's wheel"
    assert all((html_dir / w).is_file() for w in wheels)
    text = " ".join(unescape(re.sub(r"<[^>]+>", "", intro)).split())
    assert f'%pip install "{wheels[0]}[notebooks]"' in text
    has_link = "qring_edu.pdf" in intro
    assert has_link == (html_dir / "qring_edu.pdf").is_file(), (
        "the PDF link and the PDF go together"
    )
