"""The PDF of the book (``make pdf``), read back with poppler's ``pdftotext`` and ``pdfimages``.

What ``make pdf`` must deliver, checked against the sources, not against a list
written here:

* the title of every page of ``_toc.yml`` (its first ``#`` heading) is in the PDF, in the table of
  contents and as a heading;
* every figure caption is there: the title of each widget's default picture (the static preview
  of a chapter notebook) and the caption of any ``{figure}`` or MyST-NB figure;
* every picture is there: one PDF image per PNG output and per widget picture;
* every exercise has its solution in the chapter "Solutions to the exercises";
* no TeX is left raw: no ``\\ket``, ``\\frac``, ... or ``$`` (except where a code cell, a code
  block or an output of the book has it), and no ``??`` (LaTeX's mark of an undefined reference);
* the LaTeX log has no undefined reference and no "Missing character" (a glyph the fonts lack,
  which XeLaTeX silently leaves out).

Environment overrides: ``QRING_BOOK_PDF`` (default ``_build/latex/qring_edu.pdf``; its ``.log``
is read from the same folder), ``QRING_BOOK_TOC`` (default ``_toc.yml``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from browser._book import (  # the one reader of _toc.yml (tests/browser/_book.py)
    TOC,
    _toc_files,
    book_config,
    toc_pages,
)

ROOT = Path(__file__).resolve().parents[2]
PDF = Path(os.environ.get("QRING_BOOK_PDF", ROOT / "_build" / "latex" / "qring_edu.pdf"))
RAW_TEX = re.compile(r"\\[A-Za-z]{2,}|\$|\?\?")
sys.path.insert(0, str(ROOT / "book" / "_tools"))
from latex_book import WHERE_TO_TRY  # noqa: E402  (the PDF's heading of a "Try it" prompt)

# --- the sources ------------------------------------------------------------------------------


def _source(name: str) -> Path:
    for suffix in ("", ".ipynb", ".md"):
        path = ROOT / f"{name}{suffix}"
        if path.is_file():
            return path
    raise FileNotFoundError(name)


# the pages of the HTML book only (the API reference) are not in the PDF
HTML_ONLY = set(book_config()["sphinx"]["config"].get("qring_latex_exclude", []))
TOC_PAGES = [_source(f) for f in toc_pages() if f not in HTML_ONLY]


def _notebook(path: Path) -> dict | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.suffix == ".ipynb" else None


def _markdown(path: Path) -> list[str]:
    nb = _notebook(path)
    if nb is None:
        return [path.read_text(encoding="utf-8")]
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]


def _shown_outputs(nb: dict):
    """Outputs of the code cells the book shows (not tagged remove-cell / remove-output)."""
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] != "code" or {"remove-cell", "remove-output"} & set(tags):
            continue
        yield cell, cell.get("outputs", [])


def _title(path: Path) -> str:
    for text in _markdown(path):
        match = re.search(r"^# (.+)$", text, flags=re.MULTILINE)
        if match:
            return match.group(1).strip()
    raise AssertionError(f"{path.relative_to(ROOT)} has no '# ' title")


class _Images(HTMLParser):
    def __init__(self):
        super().__init__()
        self.alts: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img" and re.match(r"data:image/(png|jpeg);", attrs.get("src") or ""):
            self.alts.append(attrs.get("alt") or "")


def _html_images(html: str) -> list[str]:
    parser = _Images()
    parser.feed(html)
    return parser.alts


def _pictures():
    """(PNG outputs, captions of widget pictures) of the notebooks the book shows."""
    pngs, captions = 0, []
    for path in TOC_PAGES:
        nb = _notebook(path)
        if nb is None:
            continue
        for _, outputs in _shown_outputs(nb):
            for out in outputs:
                data = out.get("data", {})
                if "image/png" in data:
                    pngs += 1
                elif "text/html" in data:
                    alts = _html_images("".join(data["text/html"]))
                    if len(alts) == 1:  # a lone image in an HTML output: a widget's picture
                        captions.append(alts[0])
                    pngs += len(alts)
    return pngs, captions


def _figure_captions() -> list[str]:
    """Captions of MyST ``{figure}`` directives and of MyST-NB figure outputs."""
    captions = []
    fence = re.compile(
        r"^(`{3,}|:{3,})\{figure\}[^\n]*\n(.*?)^\1\s*$", flags=re.MULTILINE | re.DOTALL
    )
    for path in TOC_PAGES:
        for text in _markdown(path):
            for match in fence.finditer(text):
                body = [ln for ln in match.group(2).splitlines() if not ln.startswith(":")]
                paragraph = " ".join(body).strip().split("\n\n")[0]
                if paragraph:
                    captions.append(paragraph)
        nb = _notebook(path)
        for cell, _ in _shown_outputs(nb) if nb else []:
            meta = cell.get("metadata", {})
            figure = (meta.get("mystnb") or meta.get("myst") or {}).get("figure") or {}
            if figure.get("caption"):
                captions.append(figure["caption"])
    return captions


def _code_text() -> str:
    """Everything the book shows as code: code cells, their outputs, code blocks, included code."""
    parts = []
    for path in TOC_PAGES:
        nb = _notebook(path)
        for text in _markdown(path):
            fences = re.finditer(
                r"^[ \t]*(`{3,})([^\n]*)\n(.*?)^[ \t]*\1\s*$", text, re.MULTILINE | re.DOTALL
            )
            for match in fences:
                info = match.group(2).strip()
                if not info.startswith("{") or info.startswith(("{code", "{literalinclude")):
                    parts.append(match.group(3))
                if info.startswith("{literalinclude}"):
                    target = (path.parent / info.split(maxsplit=1)[1]).resolve()
                    parts.append(target.read_text(encoding="utf-8"))
            for match in re.finditer(r"`([^`\n]+)`", text):  # inline code
                parts.append(match.group(1))
        for cell, outputs in _shown_outputs(nb) if nb else []:
            parts.append("".join(cell["source"]))
            for out in outputs:
                parts.append("".join(out.get("text", "")))
                parts.append("".join(out.get("data", {}).get("text/plain", "")))
        if path.suffix == ".md":  # {include}d Markdown (e.g. bench/results.md) is shown as is
            for match in re.finditer(
                r"^`{3,}\{include\}\s+(\S+)", path.read_text(), flags=re.MULTILINE
            ):
                parts.append((path.parent / match.group(1)).read_text(encoding="utf-8"))
    return _normalise("\n".join(parts))


# --- the PDF ----------------------------------------------------------------------------------


def _normalise(text: str) -> str:
    """One space for any run of white space; typographic quotes as ASCII ones."""
    text = text.translate(str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "\u00a0": " "}))
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="module")
def pdf() -> Path:
    if not PDF.is_file():
        pytest.fail(f"no {PDF}: run `make pdf` first")
    return PDF


@pytest.fixture(scope="module")
def text(pdf) -> str:
    raw = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True, text=True
    ).stdout
    return raw


@pytest.fixture(scope="module")
def variants(text) -> list[str]:
    """The text with a hyphen at a line end read as part of the word, and as LaTeX's break."""
    return [_normalise(re.sub(r"-\n", "-", text)), _normalise(re.sub(r"-\n", "", text))]


def _letters(text: str) -> str:
    """Only the letters and digits of ``text``, lower case: how a title reads whatever LaTeX did
    to its spaces and hyphens at a line break (pdftotext may drop a hyphen LaTeX broke at)."""
    return re.sub(r"[\W_]+", "", text.lower())


def _count(variants: list[str], needle: str) -> int:
    needle = _normalise(needle).lower()
    exact = max(v.lower().count(needle) for v in variants)
    return max(exact, _letters(variants[0]).count(_letters(needle))) if _letters(needle) else exact


def _title_pieces(title: str) -> list[str]:
    """A title as text fragments: without its math and with code and emphasis unmarked."""
    pieces = re.split(r"\$[^$]*\$", title)
    return [p.replace("`", "").replace("*", "").strip() for p in pieces if p.strip(" `*")]


# --- tests ------------------------------------------------------------------------------------


def test_sources_are_found():
    assert len(TOC_PAGES) >= 10
    pngs, captions = _pictures()
    assert pngs > 0 and captions, "no pictures found in the chapter notebooks"


@pytest.mark.parametrize("page", TOC_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_page_title(variants, page):
    """Every page of the PDF is in its contents and has its heading."""
    for piece in _title_pieces(_title(page)):
        assert _count(variants, piece) >= 2, (
            f"{piece!r}: not in the PDF as contents entry and heading"
        )


def test_html_only_pages_are_left_out(pdf):
    assert HTML_ONLY, "_config.yml names no HTML-only page"
    tex = pdf.with_suffix(".tex").read_text(encoding="utf-8")
    chapters = re.findall(r"\\chapter\{([^}]*)\}", tex)
    assert len(chapters) >= 10
    for name in HTML_ONLY:
        assert _title(_source(name)) not in chapters, f"{name} (HTML only) is a chapter of the PDF"
    for name in HTML_ONLY:
        assert f"hyperref[\\detokenize{{{name}:" not in tex, f"a link into {name} is left"


def test_every_figure_caption(variants, pdf):
    _, widget_captions = _pictures()
    captions = widget_captions + _figure_captions()
    missing = [c for c in captions if _count(variants, c) == 0]
    assert not missing, f"figure captions missing from the PDF: {missing}"
    # each caption is a numbered figure of the LaTeX source: "Fig. 3.2: <caption>" in chapter 3,
    # "Fig. 2: <caption>" outside the numbered chapters (as in the HTML book)
    tex = pdf.with_suffix(".tex").read_text(encoding="utf-8")
    assert tex.count("\\caption{") >= len(captions)
    numbered = re.findall(r"Fig\. (?:\d+\.)?\d+: ", variants[0])
    assert re.search(r"Fig\. \d+\.\d+: ", variants[0]), "no figure numbered by its chapter"
    assert len(numbered) >= len(captions)


def test_every_picture(pdf):
    pngs, _ = _pictures()
    listing = subprocess.run(
        ["pdfimages", "-list", str(pdf)], capture_output=True, check=True, text=True
    ).stdout.splitlines()[2:]
    images = [row for row in listing if row.split()[2] == "image"]
    assert len(images) >= pngs, f"{len(images)} images in the PDF, {pngs} pictures in the book"


def test_every_exercise_has_its_solution_at_the_end(variants):
    labels = []
    for path in TOC_PAGES:
        for text in _markdown(path):
            labels += re.findall(r"^(?:`{3,}|:{3,})\{solution\}\s*(\S+)", text, flags=re.MULTILINE)
    assert labels, "no {solution} in the book"
    body = variants[0]
    first = body.find("Solution to Exercise")
    last_exercise = body.rfind("Solution on page")  # the link under each exercise
    assert body.count("Solution on page") == len(labels)
    assert 0 < last_exercise < first, "a solution is still next to its exercise"
    assert "solutions to the exercises" in body[last_exercise:first].lower()
    # numbered as in the HTML book: "N" outside the numbered chapters (one count over all those
    # pages: chapter 0, then the appendix), "C.N" in chapter C; in order, each chapter from 1
    numbers = re.findall(r"Solution to Exercise (\d+(?:\.\d+)?)\b", body[first:])
    assert len(numbers) == len(labels)
    keys = [tuple(int(x) for x in n.split(".")) for n in numbers]
    plain = 0  # the last "N" seen
    for key, nxt in zip([()] + keys, keys):
        if len(nxt) == 1:
            assert nxt[0] == plain + 1, f"Exercise {nxt} after {key}"
            plain = nxt[0]
        elif len(key) != 2 or nxt[0] != key[0]:
            assert nxt[1] == 1, f"Exercise {nxt} after {key}"
        else:
            assert nxt[0] == key[0] and nxt[1] == key[1] + 1, f"Exercise {nxt} after {key}"


def test_no_raw_tex_or_undefined_reference(variants):
    code = _code_text()
    leaks = []
    for match in RAW_TEX.finditer(variants[0]):
        a, b = match.start(), match.end()
        window = variants[0][max(a - 6, 0) : b + 6].strip()
        short = variants[0][a : b + 4].strip()
        if window not in code and not (match.group() == "$" and short in code):
            leaks.append(variants[0][max(a - 30, 0) : b + 30])
    assert not leaks, "raw TeX or ?? in the PDF:\n" + "\n".join(leaks[:20])


def test_try_it_prompts_say_where_the_controls_are(variants):
    """Every "**Try it**" prompt of the chapters is in the PDF, which shows an explorer's default
    picture only, with a heading that sends the reader to the HTML book or the notebook."""
    prompts = sum(md.count("**Try it") for page in TOC_PAGES for md in _markdown(page))
    assert prompts > 0
    assert _count(variants, f"Try it {WHERE_TO_TRY}") == prompts


def test_latex_log_is_clean(pdf):
    log = pdf.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    missing = sorted(set(re.findall(r"Missing character: There is no (.+?) in font", log)))
    assert not missing, f"characters the fonts lack (left out of the PDF): {missing}"
    assert "There were undefined references" not in log
    assert not re.search(r"Reference `[^']+' on page \d+ undefined", log)


def _numbered_chapters(node, numbered: bool = False) -> list[tuple[str, list[str]]]:
    """(file, its section files) of every chapter _toc.yml numbers (``numbered: true`` on the
    book or on its part), in order."""
    numbered = numbered or bool(node.get("numbered"))
    out = []
    for child in node.get("chapters") or []:
        if numbered:
            out.append((child["file"], _toc_files({"chapters": child.get("sections") or []})))
    for part in node.get("parts") or []:
        out += _numbered_chapters(part, numbered)
    return out


def test_solutions_are_filed_under_the_pdfs_chapter_numbers(pdf):
    """The solutions chapter heads each group "Chapter N: <title>" with the number the PDF gives
    that chapter: numbered chapters are those _toc.yml numbers, and a section page listed under a
    chapter (``sections:``) is part of it, not a chapter of its own."""
    toc = yaml.safe_load(TOC.read_text(encoding="utf-8"))
    numbered = [
        (_title(_source(f)), [_title(_source(s)) for s in secs])
        for f, secs in _numbered_chapters(toc)
    ]
    assert numbered, "_toc.yml numbers no chapter"
    tex = pdf.with_suffix(".tex").read_text(encoding="utf-8")
    # one heading per line, its title up to the line's last brace (titles hold \sphinxhyphen{})
    filed = re.findall(r"^\\section\{Chapter (\d+): (.*)\}\s*$", tex, flags=re.MULTILINE)
    assert filed, "no per-chapter sections in the solutions chapter"
    titles = [t for t, _ in numbered]
    sections = {s for _, secs in numbered for s in secs}
    for number, title in filed:
        title = title.replace("\\sphinxhyphen{}", "-")
        assert title not in sections, f"section page {title!r} filed as a chapter of its own"
        assert titles[int(number) - 1] == title, f"Chapter {number} is {titles[int(number) - 1]!r}"
