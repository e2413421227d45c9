#!/usr/bin/env python3
"""The numbers of a chapter's "Before you start" box, counted from the notebook (``make boxes``).

Every chapter opens with a *Before you start* box (a ``{admonition} Before you start``
directive in a markdown cell). Its prerequisites and notes are written by hand; its numbers are
written by this tool, between two markers the chapter carries inside the box::

    <!-- reading-box: written by book/_tools/reading_box.py (make boxes); do not edit -->
    **Reading time.** About 27 minutes: 4,870 words of prose at 200 words a minute, plus half a
    minute for each of the 18 code cells. **Exercises:** 7 (3 numeric, 2 code, 2 reasoning);
    solving them comes on top.
    <!-- /reading-box -->

(HTML comments: invisible in Jupyter, in the HTML book and in the PDF.) Without ``--check`` the
tool rewrites the lines between the markers of every notebook given; with ``--check`` it changes
nothing and fails (exit 1) when a box says other numbers than the notebook has now, or when an
exercise has no kind. ``--table`` prints the numbers of every notebook given, box or not.
``tests/test_reading_boxes.py`` runs the check over every chapter that has the markers.

**Words** are the prose a reader reads. In the visible markdown cells (not tagged
``remove-cell``; hidden markdown, such as the live-only prompts "In Jupyter or Colab you can
also ..." next to a widget, is in the notebook but not in the book) the tool removes, before
counting:

* worked solutions (``{solution}``) and every collapsed block (a directive with ``:class:
  dropdown``, ``{dropdown}``, ``{toggle}``), with all they contain;
* the Before-you-start box itself, and HTML comments;
* code: fenced code blocks, ``{code-cell}``, ``{code-block}``, ``{literalinclude}`` and
  ``{include}`` directives; an inline code span counts as one word;
* math: display math (``$$…$$``, ``{math}``, amsmath environments) is removed; an inline formula
  ``$…$`` counts as one word;
* markup: directive option lines (``:label: …``), target labels ``(name)=``, MyST comments
  (``% …``), image links, the paths of ``{figure}``/``{image}``; a link counts as its text; a
  role with its own text (``{term}`shown <target>```) as that text; a cross-reference or
  citation without one (``{doc}`01_bottleneck```, ``{cite:p}`key```) as one word.

What is left is split at white space; a word is a piece with at least one letter or digit
(``—`` and table rules are not words). Titles of exercises, admonitions and proofs count; the
statements of the exercises count (the reader reads them), their solutions do not.

**Code cells** are the code cells a reader sees: hidden ones (tags ``remove-cell`` or
``remove-input``: the assert cells behind the prose's numbers) do not count; collapsed ones
(``hide-input``, ``hide-cell``) do.

**Minutes**: words at 200 a minute plus half a minute per code cell, rounded up to a whole
minute. Solving the exercises comes on top.

**Exercises by kind.** Each ``{exercise}`` directive carries its kind as a class, one of
``kind-numeric`` (the answer is a number a checker compares), ``kind-code`` (the reader writes a
function a checker runs) and ``kind-reasoning`` (an argument; a numeric check of one step may
follow)::

    ```{exercise} Bits per link
    :label: ex-bottleneck-2
    :class: kind-numeric

The class reaches the HTML (``exercise kind-numeric``) and changes nothing else. An exercise
without a kind fails the check; ``--suggest`` prints a guess for each unmarked exercise of the
notebooks given (from its title and the code cell that follows it), to be read, not trusted.

Usage (from the repository root)::

    .venv/bin/python book/_tools/reading_box.py book/0*.ipynb            # rewrite the boxes
    .venv/bin/python book/_tools/reading_box.py --check book/0*.ipynb    # fail on drift
    .venv/bin/python book/_tools/reading_box.py --table book/*.ipynb     # print the numbers
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

START = "<!-- reading-box: written by book/_tools/reading_box.py (make boxes); do not edit -->"
END = "<!-- /reading-box -->"
START_RE = re.compile(r"^\s*<!--\s*reading-box\b.*-->\s*$")
END_RE = re.compile(r"^\s*<!--\s*/reading-box\s*-->\s*$")
KINDS = ("numeric", "code", "reasoning")
WORDS_PER_MINUTE = 200
HIDDEN_TAGS = {"remove-cell", "remove-input"}

# Directives whose whole block is not prose (with all it contains).
SKIPPED = {
    "solution", "solution-start", "solution-end", "dropdown", "toggle",
    "code", "code-block", "code-cell", "sourcecode", "literalinclude", "include",
    "math", "raw", "eval-rst", "glue", "glue:figure", "glue:math", "bibliography",
    "toctree", "tableofcontents", "mermaid", "graphviz", "image",
}  # fmt: skip
# Directives whose argument is a title the reader reads (others: a path, a language, ...).
TITLED = {"exercise", "exercise-start", "admonition", "topic", "sidebar", "dropdown", "card"}

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,}|:{3,})\s*(?P<rest>.*)$")
DIRECTIVE = re.compile(r"^\{(?P<name>[^}\s]+)\}\s*(?P<arg>.*)$")
OPTION = re.compile(r"^\s*:(?P<key>[\w-]+):\s*(?P<value>.*)$")


@dataclass(frozen=True)
class Exercise:
    """One ``{exercise}`` of a notebook: its label, title, kind (``None``: not marked) and the
    index of its markdown cell."""

    label: str
    title: str
    kind: str | None
    cell: int


@dataclass(frozen=True)
class Counts:
    """The numbers of one notebook, as the box states them."""

    words: int
    code_cells: int
    exercises: tuple[Exercise, ...] = field(default=())

    @property
    def minutes(self) -> int:
        """words / 200 + code cells / 2, rounded up (integer arithmetic: no rounding error)."""
        return -(-(self.words + self.code_cells * WORDS_PER_MINUTE // 2) // WORDS_PER_MINUTE)

    def by_kind(self) -> dict[str, int]:
        """``{"numeric": n, "code": n, "reasoning": n}`` and ``"unmarked"`` when some are."""
        out = {k: sum(e.kind == k for e in self.exercises) for k in KINDS}
        unmarked = sum(e.kind is None for e in self.exercises)
        return out | ({"unmarked": unmarked} if unmarked else {})


# ---------------------------------------------------------------------------------------------
# Blocks: fences and directives
# ---------------------------------------------------------------------------------------------
def _blocks(lines: list[str]):
    """Split markdown lines into ``("text", lines)`` runs and ``("block", opening match,
    content lines)`` fenced blocks (the closing fence: the same character, at least as long,
    nothing else on the line, as in MyST)."""
    i = 0
    text: list[str] = []
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            text.append(lines[i])
            i += 1
            continue
        if text:
            yield "text", text
            text = []
        fence = m.group("fence")
        close = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        yield "block", m, lines[i + 1 : j]
        i = j + 1
    if text:
        yield "text", text


def _options(content: list[str]) -> tuple[dict[str, str], list[str]]:
    """A directive's options (``:key: value`` lines, or a ``---`` YAML block) and its body."""
    options: dict[str, str] = {}
    if content and content[0].strip() == "---":
        end = next((k for k in range(1, len(content)) if content[k].strip() == "---"), 0)
        for line in content[1:end]:
            key, _, value = line.partition(":")
            options[key.strip()] = value.strip()
        return options, content[end + 1 :]
    k = 0
    while k < len(content) and (m := OPTION.match(content[k])):
        options[m.group("key")] = m.group("value")
        k += 1
    return options, content[k:]


def _is_box(name: str, arg: str) -> bool:
    return name == "admonition" and arg.strip().lower().startswith("before you start")


def _prose_lines(lines: list[str]) -> list[str]:
    """The lines of prose left once skipped blocks are removed (directives opened up)."""
    out: list[str] = []
    for kind, *rest in _blocks(lines):
        if kind == "text":
            out += rest[0]
            continue
        m, content = rest
        d = DIRECTIVE.match(m.group("rest"))
        if d is None:  # a code fence: not prose
            continue
        name, arg = d.group("name"), d.group("arg")
        options, body = _options(content)
        if name in SKIPPED or "dropdown" in options.get("class", "").split() or _is_box(name, arg):
            continue
        if name in TITLED or name.startswith("prf:"):
            out.append(arg)
        out += _prose_lines(body)
    return out


# ---------------------------------------------------------------------------------------------
# Words
# ---------------------------------------------------------------------------------------------
_ROLE = re.compile(r"\{(?P<name>[\w:.-]+)\}`(?P<content>[^`]*)`")
_EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<[^<>]+>$", re.S)


def _role(m: re.Match) -> str:
    name, content = m.group("name"), m.group("content").strip()
    if name == "math":
        return " formula "
    explicit = _EXPLICIT.match(content)
    if explicit and explicit.group("text"):
        return f" {explicit.group('text')} "
    if name in ("term", "abbr", "sub", "sup", "strong", "emphasis", "kbd"):
        return f" {content} "
    return " reference "  # {doc}, {ref}, {numref}, {eq}, {cite:p}, {py:obj}, ...: one word


def prose_words(source: str) -> int:
    """The number of words of prose in one markdown cell (the module docstring's rule).

    Examples
    --------
    >>> prose_words("Two words.\\n\\n```{solution} ex-1\\n:class: dropdown\\nNot counted.\\n```")
    2
    >>> prose_words("A formula $x^2$ and `code` count once each; $$\\\\sum_i x_i$$ not at all.")
    11
    """
    lines = [ln for ln in source.splitlines() if not re.match(r"^\s*(%|\([\w:.-]+\)=\s*$)", ln)]
    text = "\n".join(_prose_lines(lines))
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"\\begin\{(\w+\*?)\}.*?\\end\{\1\}", " ", text, flags=re.S)
    text = _ROLE.sub(_role, text)
    text = re.sub(r"(`+)(?!`).+?(?<!`)\1(?!`)", " code ", text, flags=re.S)
    text = re.sub(r"(?<![\\$])\$(?!\$)[^$\n]+?(?<!\\)\$", " formula ", text)
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)  # images
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r" \1 ", text)  # links: their text
    text = re.sub(r"<[^>\n]+>", " ", text)  # HTML tags and autolinks
    return sum(1 for token in text.split() if re.search(r"[^\W_]", token))


# ---------------------------------------------------------------------------------------------
# A notebook
# ---------------------------------------------------------------------------------------------
def _visible(cell) -> bool:
    return not HIDDEN_TAGS & set(cell.get("metadata", {}).get("tags", []))


def exercises(nb) -> tuple[Exercise, ...]:
    """Every ``{exercise}`` directive of the visible markdown cells, with its kind."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown" or not _visible(cell):
            continue
        lines = cell.source.splitlines()
        for i, line in enumerate(lines):
            m = FENCE.match(line)
            d = DIRECTIVE.match(m.group("rest")) if m else None
            if not d or d.group("name") not in ("exercise", "exercise-start"):
                continue
            options, _ = _options(lines[i + 1 :])
            kinds = [c[5:] for c in options.get("class", "").split() if c.startswith("kind-")]
            kind = kinds[0] if len(kinds) == 1 and kinds[0] in KINDS else None
            if len(kinds) > 1 or (kinds and kind is None):
                kind = "invalid:" + ",".join(kinds)
            found.append(
                Exercise(options.get("label", f"cell {index}"), d.group("arg"), kind, index)
            )
    return tuple(found)


def count(nb) -> Counts:
    """Words, visible code cells and exercises of a notebook (the module docstring's rules)."""
    words = sum(
        prose_words(c.source) for c in nb.cells if c.cell_type == "markdown" and _visible(c)
    )
    cells = sum(1 for c in nb.cells if c.cell_type == "code" and _visible(c))
    return Counts(words, cells, exercises(nb))


def box_text(counts: Counts) -> str:
    """The lines the tool writes between the markers."""
    minutes = counts.minutes
    text = (
        f"**Reading time.** About {minutes} minute{'s' * (minutes != 1)}: {counts.words:,} "
        f"words of prose at {WORDS_PER_MINUTE} words a minute"
    )
    n_cells = counts.code_cells
    if n_cells == 1:
        text += ", plus half a minute for its one code cell."
    elif n_cells:
        text += f", plus half a minute for each of the {n_cells} code cells."
    else:
        text += "."
    kinds = counts.by_kind()
    total = len(counts.exercises)
    if total:
        parts = ", ".join(f"{n} {k}" for k, n in kinds.items() if n)
        text += f" **Exercises:** {total} ({parts}); solving them comes on top."
    else:
        text += " **Exercises:** none."
    return textwrap.fill(text, width=100, break_long_words=False, break_on_hyphens=False)


def _markers(nb) -> list[tuple[int, int, int]]:
    """``(cell, start line, end line)`` of every marked box."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.split("\n")
        starts = [i for i, ln in enumerate(lines) if START_RE.match(ln)]
        ends = [i for i, ln in enumerate(lines) if END_RE.match(ln)]
        if len(starts) != len(ends) or any(s >= e for s, e in zip(starts, ends)):
            raise ValueError(f"cell {index}: unpaired reading-box markers")
        found += [(index, s, e) for s, e in zip(starts, ends)]
    return found


def has_markers(nb) -> bool:
    """Whether the notebook carries the box's markers."""
    return bool(_markers(nb))


def problems(nb) -> list[str]:
    """Why the box is not what the tool would write ([] when it is, or when there is no box)."""
    try:
        marks = _markers(nb)
    except ValueError as exc:
        return [str(exc)]
    if not marks:
        return []
    if len(marks) > 1:
        return [f"{len(marks)} reading boxes (cells {[m[0] for m in marks]}); a chapter has one"]
    out = []
    counts = count(nb)
    for e in counts.exercises:
        if e.kind is None or e.kind.startswith("invalid"):
            out.append(
                f"exercise {e.label} ({e.title!r}, cell {e.cell}) has "
                + ("no kind" if e.kind is None else f"kinds {e.kind[8:]!r}")
                + ": give it one of :class: kind-numeric, kind-code, kind-reasoning"
            )
    index, s, e = marks[0]
    lines = nb.cells[index].source.split("\n")
    stated = "\n".join(lines[s + 1 : e]).strip()
    want = box_text(counts)
    if not out and (stated != want or lines[s].strip() != START):
        out.append(
            f"the box (cell {index}) is out of date: run `make boxes`\n"
            f"  it says:  {' '.join(stated.split()) or '(nothing)'}\n"
            f"  it should: {' '.join(want.split())}"
        )
    return out


def rewrite(nb) -> bool:
    """Write the box's numbers between its markers; True if the notebook changed.

    Raises ``ValueError`` when an exercise has no kind (the box could not say the kinds)."""
    marks = _markers(nb)
    if not marks:
        return False
    unmarked = [p for p in problems(nb) if p.startswith("exercise ")]
    if unmarked or len(marks) > 1:
        raise ValueError("; ".join(unmarked or problems(nb)))
    index, s, e = marks[0]
    cell = nb.cells[index]
    lines = cell.source.split("\n")
    indent = re.match(r"\s*", lines[s]).group(0)
    new = [indent + START, *(indent + ln for ln in box_text(count(nb)).split("\n")), indent + END]
    source = "\n".join(lines[:s] + new + lines[e + 1 :])
    if source == cell.source:
        return False
    cell.source = source
    return True


def _statement(source: str, label: str) -> str:
    """The text of the exercise labelled ``label`` in a markdown cell's source."""
    for kind, *rest in _blocks(source.splitlines()):
        if kind == "block":
            options, body = _options(rest[1])
            if options.get("label") == label:
                return "\n".join(body)
    return ""


def suggest(nb) -> list[tuple[Exercise, str, str]]:
    """A guess of the kind of every unmarked exercise, with the reason: ``code`` when the code
    cell that follows it defines a function (a stub to complete), ``reasoning`` when its title
    or statement asks to explain, argue, show or design, or no code cell follows it, else
    ``numeric``. A guess to be read, not trusted."""
    out = []
    for e in exercises(nb):
        if e.kind is not None:
            continue
        nxt = next(
            (i for i in range(e.cell + 1, len(nb.cells)) if "{exercise}" in nb.cells[i].source),
            len(nb.cells),
        )
        cells = [
            c.source for c in nb.cells[e.cell + 1 : nxt] if c.cell_type == "code" and _visible(c)
        ]
        text = e.title + "\n" + _statement(nb.cells[e.cell].source, e.label)
        if cells and re.search(r"^def \w+", cells[0], re.M):
            out.append((e, "code", "the next code cell is a function to complete"))
        elif re.search(r"\b(explain|why|show that|argue|design)\b", text, re.I) or not cells:
            out.append((e, "reasoning", "an argument" + ("" if cells else ", no checker cell")))
        else:
            out.append((e, "numeric", "a number goes to a checker"))
    return out


def _read(path: Path):
    return nbformat.read(path, as_version=4)


def _write(nb, path: Path) -> None:
    text = nbformat.writes(nb, version=4)
    path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="change nothing; fail on drift")
    mode.add_argument("--table", action="store_true", help="print the numbers of every notebook")
    mode.add_argument("--suggest", action="store_true", help="guess the unmarked exercises' kinds")
    args = parser.parse_args(argv)
    for path in args.notebooks:
        if not path.is_file():
            parser.error(f"no such notebook: {path}")
    if args.table:
        print(
            "| notebook | words | code cells | exercises (numeric, code, reasoning, unmarked) | minutes |"
        )
        print("|---|---|---|---|---|")
        for path in args.notebooks:
            c = count(_read(path))
            k = c.by_kind()
            kinds = f"{len(c.exercises)} ({k['numeric']}, {k['code']}, {k['reasoning']}, {k.get('unmarked', 0)})"
            print(f"| {path.name} | {c.words:,} | {c.code_cells} | {kinds} | {c.minutes} |")
        return 0
    if args.suggest:
        for path in args.notebooks:
            for e, kind, why in suggest(_read(path)):
                print(f"{path.name}: {e.label}: kind-{kind}  ({e.title!r}; {why})")
        return 0
    failed = 0
    for path in args.notebooks:
        nb = _read(path)
        if not has_markers(nb):
            print(f"{path}: no reading-box markers (skipped)")
            continue
        if args.check:
            found = problems(nb)
            for problem in found:
                print(f"{path}: {problem}", file=sys.stderr)
            failed += bool(found)
            continue
        try:
            changed = rewrite(nb)
        except ValueError as exc:
            print(f"{path}: {exc}", file=sys.stderr)
            failed += 1
            continue
        if changed:
            _write(nb, path)
        print(f"{path}: {'updated' if changed else 'up to date'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
