"""Fixtures for the browser tests of the built HTML book (``_build/html``).

The book is opened in Debian's Chromium (``/usr/bin/chromium``, installed by ``make browser``),
driven by the Python ``playwright`` package; Playwright's own browser download is never used.
Two ways in: a local ``http.server`` on 127.0.0.1 (random free port) and plain ``file://`` URLs.
Every request that leaves the book is aborted and recorded, so a page that still needs the network
fails its test.

Environment overrides: ``QRING_BOOK_HTML`` (the built book, default ``_build/html``),
``QRING_BOOK_TOC`` (the table of contents it was built from, default ``_toc.yml``),
``QRING_CHROMIUM`` (the browser executable), ``QRING_SCREENSHOTS`` (where the page screenshots
go; default a pytest temporary directory, printed in the summary).
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

from ._book import ROOT

HTML_DIR = Path(os.environ.get("QRING_BOOK_HTML", ROOT / "_build" / "html")).resolve()
CHROMIUM = os.environ.get("QRING_CHROMIUM", "/usr/bin/chromium")

# Headless Chromium as root, with every background service that would phone home switched off.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def html_dir() -> Path:
    if not (HTML_DIR / "index.html").is_file():
        pytest.fail(f"no built book at {HTML_DIR}: run `make book` first")
    return HTML_DIR


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (signature of the base class)
        pass


@pytest.fixture(scope="session")
def http_base(html_dir):
    """Serve the built book on 127.0.0.1 at a free port; yields its base URL (ends with '/')."""
    handler = functools.partial(_QuietHandler, directory=str(html_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.fail(f"no Chromium at {CHROMIUM}: run `make browser` (installs Debian's chromium)")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


_SCREENSHOTS: list[Path] = []  # the folder used in this session, for the terminal summary


@pytest.fixture(scope="session")
def screenshot_dir(html_dir) -> Path:
    # Next to the HTML it shows (_build/screenshots/ by default), so a person can look at them.
    env = os.environ.get("QRING_SCREENSHOTS")
    path = Path(env) if env else html_dir.parent / "screenshots"
    path.mkdir(parents=True, exist_ok=True)
    _SCREENSHOTS.append(path)
    return path


def pytest_terminal_summary(terminalreporter):
    # Where the screenshots went, so a person can look at them.
    for path in _SCREENSHOTS:
        terminalreporter.write_line(f"browser screenshots: {path}")
