"""The book as the browser tests see it: its pages (from the table of contents) and its config."""

from __future__ import annotations

import os
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
TOC = Path(os.environ.get("QRING_BOOK_TOC", ROOT / "_toc.yml"))


def _toc_files(node) -> list[str]:
    """Every ``file:`` entry of a jb-book ``_toc.yml`` (root first, then parts/chapters/sections)."""
    files: list[str] = []
    if isinstance(node, dict):
        for key in ("root", "file"):
            if isinstance(node.get(key), str):
                files.append(node[key])
        for key in ("parts", "chapters", "sections"):
            for child in node.get(key) or []:
                files.extend(_toc_files(child))
    return files


def toc_pages() -> list[str]:
    """Document names of the book's pages in toc order, e.g. ``book/01_bottleneck``."""
    toc = yaml.safe_load(TOC.read_text(encoding="utf-8"))
    return [re.sub(r"\.(md|ipynb)$", "", f) for f in _toc_files(toc)]


def book_config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
