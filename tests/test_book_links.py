"""The one setting that names the repository (``repository.url`` in ``_config.yml``).

A small book with the project's launch configuration and ``book/_tools/distribution.py`` is built
twice with Jupyter Book: without a URL (the project's state until the repository is published)
its notebook page has no Binder or Colab button and no install line from a repository, but its
``.ipynb`` download and the wheel; with a URL, the buttons open that repository's notebook and
the install line names it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_tools"))
from distribution import wheel_name  # noqa: E402

URL = "https://github.com/example-owner/qring-book"

PAGE = """# A chapter

Wheel: {wheel}`wheel`, install with {install-line}`wheel`.

```{only} repository
From the repository: {install-line}`repository`.
```
"""


def _notebook() -> dict:
    return {
        "cells": [
            {"cell_type": "markdown", "id": "text", "metadata": {}, "source": PAGE},
            {
                "cell_type": "code",
                "id": "code",
                "execution_count": 1,
                "metadata": {},
                "outputs": [{"name": "stdout", "output_type": "stream", "text": "2\n"}],
                "source": "print(1 + 1)",
            },
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _build(tmp: Path, url: str) -> str:
    project = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config = {
        "title": "links",
        "execute": {"execute_notebooks": "off"},
        "repository": {**project["repository"], "url": url},
        "html": project["html"],
        "launch_buttons": project["launch_buttons"],
        "sphinx": {"local_extensions": {"distribution": str(ROOT / "book" / "_tools")}},
    }
    book = tmp / ("with-url" if url else "without-url")
    (book / "book").mkdir(parents=True)
    (book / "_config.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (book / "_toc.yml").write_text("format: jb-book\nroot: book/chapter\n", encoding="utf-8")
    (book / "book" / "chapter.ipynb").write_text(json.dumps(_notebook()), encoding="utf-8")
    exe = Path(sys.executable).parent / "jupyter-book"
    proc = subprocess.run(
        [str(exe), "build", str(book), "-W", "-n", "--keep-going"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    html = book / "_build" / "html"
    assert (html / wheel_name()).is_file(), "the wheel is not shipped with the HTML book"
    return (html / "book" / "chapter.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def wheel_built():
    if not (ROOT / "dist" / wheel_name()).is_file():
        subprocess.run(
            [sys.executable, "-m", "build", "--no-isolation", "--quiet", "--outdir", "dist", "."],
            cwd=ROOT,
            check=True,
        )
    yield
    shutil.rmtree(ROOT / "dist" / "__pycache__", ignore_errors=True)


def _text(html: str) -> str:
    """The page's text as a reader sees it (code is split into spans, quotes escaped)."""
    return " ".join(unescape(re.sub(r"<[^>]+>", "", html)).split())


def _launch_links(html: str) -> list[str]:
    return re.findall(r'href="(https://(?:mybinder\.org|colab\.research\.google\.com)[^"]*)"', html)


def test_without_a_repository_url_no_button_and_no_install_line_point_nowhere(
    wheel_built, tmp_path
):
    html = _build(tmp_path, "")
    assert _launch_links(html) == []
    assert "git+" not in html
    assert "chapter.ipynb" in html  # the download button
    assert f'href="../{wheel_name()}"' in html
    assert f'%pip install "{wheel_name()}[notebooks]"' in _text(html)


def test_with_a_repository_url_the_buttons_open_its_notebooks(wheel_built, tmp_path):
    html = _build(tmp_path, URL)
    links = [h.replace("&amp;", "&") for h in _launch_links(html)]
    binder = [h for h in links if h.startswith("https://mybinder.org/")]
    colab = [h for h in links if h.startswith("https://colab.research.google.com/")]
    assert binder and binder[0].startswith(
        "https://mybinder.org/v2/gh/example-owner/qring-book/main?"
    )
    assert "book/chapter.ipynb" in binder[0]
    assert colab == [
        "https://colab.research.google.com/github/example-owner/qring-book/blob/main/book/chapter.ipynb"
    ]
    assert f'%pip install "qring_edu[notebooks] @ git+{URL}"' in _text(html)
