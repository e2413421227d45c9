"""The "Before you start" boxes: their numbers are written by book/_tools/reading_box.py, never
typed, and a box that no longer matches its chapter fails here.

* Every chapter notebook that carries the box's markers is up to date (``make boxes`` rewrites
  them) and stays within the book's 4,500 words of prose.
* The counting rule (the tool's docstring) on small markdown samples.
* The whole cycle on a COPY of a chapter (a fixture, so this test can fail): markers put into its
  box, kinds given to its exercises, numbers written; then a visible code cell, prose words or an
  unmarked exercise make the check fail, while a hidden cell or words in a solution do not; text
  outside the markers is never touched.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
TOOL = BOOK / "_tools" / "reading_box.py"
sys.path.insert(0, str(TOOL.parent))
import reading_box as rb  # noqa: E402

NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))
BOXED = [p for p in NOTEBOOKS if rb.has_markers(nbformat.read(p, 4))]
MAX_WORDS = 4_500  # a chapter reads in one sitting (the book's standard)


@pytest.mark.parametrize(
    "path",
    BOXED
    or [pytest.param(None, marks=pytest.mark.skip(reason="no chapter carries the markers yet"))],
    ids=[p.name for p in BOXED] or None,
)
def test_every_box_says_what_its_chapter_has(path):
    problems = rb.problems(nbformat.read(path, 4))
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "path",
    [p for p in BOXED if re.match(r"\d\d_", p.name)]
    or [pytest.param(None, marks=pytest.mark.skip(reason="no chapter carries the markers yet"))],
    ids=[p.name for p in BOXED if re.match(r"\d\d_", p.name)] or None,
)
def test_a_boxed_chapter_reads_in_one_sitting(path):
    words = rb.count(nbformat.read(path, 4)).words
    assert words <= MAX_WORDS, f"{path.name}: {words:,} words of prose (at most {MAX_WORDS:,})"


# ---------------------------------------------------------------------------------------------
# The rule
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("Three plain words.", 3),
        ("## A heading\n\n| a | b |\n|---|---|\n| 1 | — |", 5),  # table rules and dashes are not
        ("See {term}`Bell pairs <Bell pair>` and {term}`ebit`.", 5),
        ("Cited {cite:p}`a2020,b2021` and {doc}`01_bottleneck`.", 4),  # one word each
        ("Inline $x_1 + x_2$ math and `some(code)` here.", 6),
        ("Display\n\n$$\na + b = c\n$$\n\nmath.", 2),
        ("(my-label)=\n% a comment\n## Title", 1),
        ("Text.\n\n```python\nx = 1  # not prose\n```\n", 1),
        (
            "Text.\n\n````{solution} ex-1\n:class: dropdown\n\nAll hidden\n```python\nx\n```\n````",
            1,
        ),
        ("```{admonition} Proof sketch\n:class: dropdown\nhidden words\n```\nshown", 1),
        (
            "```{exercise} Bits per link\n:label: ex-a\n:class: kind-numeric\n\nHow many bits?\n```",
            6,
        ),
        ("```{literalinclude} ../qring_edu/ring.py\n:pyobject: ring_pass\n```\nAfter.", 1),
        ("```{figure} fig.png\n:width: 50%\n\nThe caption.\n```", 2),
        ("A [link text](https://example.org) and ![an image](x.png).", 4),
        ("<!-- a comment -->\nVisible.", 1),
        (
            "```{admonition} Before you start\n:class: note\n**Prerequisites.** Many words here.\n"
            f"{rb.START}\n**Reading time.** About 3 minutes.\n{rb.END}\n```\nAfter the box.",
            3,
        ),
    ],
)
def test_prose_word_rule(source, words):
    assert rb.prose_words(source) == words


def test_minutes_round_up_words_at_200_and_half_a_minute_per_code_cell():
    assert rb.Counts(words=200, code_cells=0).minutes == 1
    assert rb.Counts(words=201, code_cells=0).minutes == 2
    assert rb.Counts(words=3_800, code_cells=2).minutes == 20  # 19 + 1, exactly
    assert rb.Counts(words=3_900, code_cells=2).minutes == 21  # 19.5 + 1, rounded up
    assert rb.Counts(words=0, code_cells=3).minutes == 2  # 1.5, rounded up


# ---------------------------------------------------------------------------------------------
# The cycle on a copy of a chapter
# ---------------------------------------------------------------------------------------------
def _box_cell(nb) -> int:
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and re.search(
            r"\{admonition\}\s*Before you start", cell.source
        ):
            return i
    raise LookupError("no Before you start box")


def _with_markers(source: str) -> str:
    """The box with its hand-typed reading-time paragraph replaced by the markers (what a
    chapter author does once); a box that has them already gets them emptied."""
    if rb.END in source:
        return re.sub(
            r"(<!-- reading-box[^\n]*-->\n).*?(<!-- /reading-box -->)", r"\1\2", source, flags=re.S
        )
    lines = source.split("\n")
    start = next(
        i for i, ln in enumerate(lines) if re.search(r"\{admonition\}\s*Before you start", ln)
    )
    close = next(
        i for i in range(start + 1, len(lines)) if re.fullmatch(r"\s*(`{3,}|:{3,})\s*", lines[i])
    )
    body = lines[start + 1 : close]
    paras, current = [], []
    for ln in body:
        if ln.strip() == "" and current:
            paras.append(current)
            current = []
        elif ln.strip():
            current.append(ln)
    paras += [current] if current else []
    kept = [p for p in paras if not p[0].startswith("**Reading time.**")]
    new_body = []
    for para in kept:
        new_body += para + [""]
    new_body += [rb.START, rb.END]
    return "\n".join(lines[: start + 1] + new_body + lines[close:])


@pytest.fixture
def chapter(tmp_path) -> Path:
    """A copy of a chapter with the markers and every exercise's kind (the tool's guesses)."""
    source = next(
        p
        for p in NOTEBOOKS
        if re.match(r"\d\d_", p.name)
        and any(
            "Before you start" in c.source
            for c in nbformat.read(p, 4).cells
            if c.cell_type == "markdown"
        )
    )
    path = tmp_path / source.name
    shutil.copy(source, path)
    nb = nbformat.read(path, 4)
    i = _box_cell(nb)
    nb.cells[i].source = _with_markers(nb.cells[i].source)
    for e, kind, _ in rb.suggest(nb):
        cell = nb.cells[e.cell]
        cell.source = cell.source.replace(
            f":label: {e.label}\n", f":label: {e.label}\n:class: kind-{kind}\n", 1
        )
    nbformat.write(nb, path)
    return path


def _run(*args) -> subprocess.CompletedProcess:
    """The tool's command line (``main``), in this process: exit code and output."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = rb.main([str(a) for a in args])
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def test_tool_writes_the_numbers_and_check_fails_on_drift(chapter):
    nb = nbformat.read(chapter, 4)
    assert rb.has_markers(nb) and rb.problems(nb)  # the markers are still empty: drift
    assert _run("--check", chapter).returncode == 1
    before = nbformat.read(chapter, 4)

    assert _run(chapter).returncode == 0  # what `make boxes` runs
    nb = nbformat.read(chapter, 4)
    assert rb.problems(nb) == [] and _run("--check", chapter).returncode == 0
    counts = rb.count(nb)
    i = _box_cell(nb)
    box = nb.cells[i].source
    assert f"{counts.words:,} words" in box and f"About {counts.minutes} minute" in box
    assert f"{counts.code_cells} code cells" in box
    assert f"**Exercises:** {len(counts.exercises)} (" in box
    # nothing outside the markers changed: the prerequisites stay as written
    outside = lambda s: re.sub(r"<!-- reading-box.*?<!-- /reading-box -->", "", s, flags=re.S)  # noqa: E731
    assert outside(box) == outside(before.cells[i].source)
    assert "**Prerequisites.**" in box
    assert [c.source for j, c in enumerate(nb.cells) if j != i] == [
        c.source for j, c in enumerate(before.cells) if j != i
    ]
    assert [c.get("outputs") for c in nb.cells] == [c.get("outputs") for c in before.cells]
    text = chapter.read_text(encoding="utf-8")
    assert (
        _run(chapter).returncode == 0 and chapter.read_text(encoding="utf-8") == text
    )  # idempotent


def test_drift_of_each_number_is_caught(chapter):
    _run(chapter)
    nb = nbformat.read(chapter, 4)
    counts = rb.count(nb)
    first_md = next(c for c in nb.cells[_box_cell(nb) + 1 :] if c.cell_type == "markdown")

    shown = nbformat.v4.new_code_cell("1 + 1")
    nb.cells.append(shown)
    assert any("out of date" in p for p in rb.problems(nb))
    assert rb.count(nb).code_cells == counts.code_cells + 1
    nb.cells.pop()

    hidden = nbformat.v4.new_code_cell("assert 1 + 1 == 2")
    hidden.metadata["tags"] = ["remove-cell"]
    nb.cells.append(hidden)
    assert rb.problems(nb) == []  # hidden assert cells are not counted
    live_only = nbformat.v4.new_markdown_cell("In Jupyter or Colab you can also " + "move it " * 50)
    live_only.metadata["tags"] = ["remove-cell"]
    nb.cells.append(live_only)
    assert rb.problems(nb) == []  # nor the live-only prompts the book does not show
    assert rb.count(nb).words == counts.words
    nb.cells.pop()

    original = first_md.source
    first_md.source += (
        "\n\n```{solution} ex-none\n:class: dropdown\n" + "many words " * 200 + "\n```"
    )
    assert rb.problems(nb) == []  # words in a solution are not counted
    first_md.source = original + "\n\n" + "word " * 300
    assert any("out of date" in p for p in rb.problems(nb))
    assert rb.count(nb).words == counts.words + 300
    first_md.source = original

    ex = next(c for c in nb.cells if c.cell_type == "markdown" and "kind-" in c.source)
    ex.source = re.sub(r":class: kind-\w+\n", "", ex.source, count=1)
    found = rb.problems(nb)
    assert any("has no kind" in p for p in found)
    with pytest.raises(ValueError, match="no kind"):
        rb.rewrite(nb)


def test_hand_edited_numbers_are_drift(chapter):
    _run(chapter)
    nb = nbformat.read(chapter, 4)
    i = _box_cell(nb)
    nb.cells[i].source = re.sub(r"About \d+ minute", "About 7 minute", nb.cells[i].source)
    nbformat.write(nb, chapter)
    result = _run("--check", chapter)
    assert result.returncode == 1 and "make boxes" in result.stderr


def test_table_prints_every_notebook():
    result = _run("--table", *NOTEBOOKS)
    assert result.returncode == 0
    rows = [ln for ln in result.stdout.splitlines() if ln.startswith("| ") and ".ipynb" in ln]
    assert len(rows) == len(NOTEBOOKS)
