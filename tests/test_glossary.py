"""Every glossary term is linked or defined where a reader first meets it.

For each entry of ``book/glossary.md`` the test finds the first use of any of its names (the
main name or an alias) in the chapters, in reading order: the chapter notebooks
``book/NN_slug.ipynb`` sorted by file name (chapter 0 first, a section such as ``03_training``
after its chapter), then the appendices ``book/appendix_*.ipynb``. That first use must be

* **linked** to the glossary: a ``{term}`...``` role that points to the entry, whatever text it
  shows (``{term}`distillation <entanglement distillation>```), or a Markdown link to
  ``glossary.md``; or
* **defined** on the spot: inside bold text (``**...**``, the chapters' mark for a term they
  define) or inside a ``prf:definition`` block.

An occurrence inside a role that points to *another* entry (``Holevo`` inside
``{term}`Holevo quantity```) is that other term's use, and the search goes on. Only prose counts:
markdown cells that the book shows (no ``remove-cell`` tag), without headings, code (fenced or
inline), math, directive options and the targets of other roles. A name matches as a whole word,
in the singular or the plural, case-insensitively unless it has two capital letters or more
(``GapIP``, ``DDP``); names in :data:`HOMONYMS` are not searched.

Entries that the chapters written by others still use before linking or defining them are listed
in :data:`FIRST_USE_ALLOWLIST`; the test fails on a flagged entry that is not listed, and on a
listed entry that is no longer flagged, so the list only shrinks.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
GLOSSARY = BOOK / "glossary.md"

# Glossary entries (by main name) that chapters of other authors use before linking or defining
# them, with the chapter of that first use. TEMPORARY: the chapter pass will remove them. Link the
# first use ({term}`...`) or define it there (bold), then delete its line here; the test fails on
# a line that is no longer needed. Chapter 0 (00_qubits) never appears here.
FIRST_USE_ALLOWLIST: dict[str, str] = {
    "BBPSSW protocol": "04_noisy_links",
    "bilateral CNOT": "04_noisy_links",
    "recurrence protocol": "04_noisy_links",
    "error exponent": "05_vga",
    "ideal functionality": "05_vga",
    "total-variation distance": "05_vga",
}


# Names of glossary entries that the chapters also use in an unrelated sense, so that a text
# search cannot tell their glossary uses: they are not searched (the entry's other names are).
HOMONYMS = {
    "rank": "a process's index in a process group, but also the rank of a matrix (chapter 0)",
}


# ---------------------------------------------------------------------------------------------
# The glossary
# ---------------------------------------------------------------------------------------------
def glossary_entries() -> list[tuple[str, ...]]:
    """The names of every glossary entry (first the main name, then its aliases)."""
    text = GLOSSARY.read_text(encoding="utf-8")
    body = text.split("```{glossary}", 1)[1].split("\n```", 1)[0]
    entries: list[list[str]] = []
    previous_was_name = False
    for line in body.splitlines()[1:]:
        if not line.strip() or line.startswith(":"):
            previous_was_name = False
            continue
        if line.startswith(" "):
            previous_was_name = False
            continue
        if previous_was_name:
            entries[-1].append(line.strip())
        else:
            entries.append([line.strip()])
        previous_was_name = True
    return [tuple(e) for e in entries]


ENTRIES = glossary_entries()
ENTRY_OF = {name.lower(): entry for entry in ENTRIES for name in entry}


# ---------------------------------------------------------------------------------------------
# The chapters' prose
# ---------------------------------------------------------------------------------------------
def chapters() -> list[Path]:
    """The chapter notebooks in reading order."""
    return sorted(BOOK.glob("[0-9][0-9]_*.ipynb")) + sorted(BOOK.glob("appendix_*.ipynb"))


_FENCE = re.compile(r"^(`{3,}|:{3,})\s*(\{([\w:-]+)\})?(.*)$")
_CODE_OR_ROLE = re.compile(r"\{([\w:-]+)\}`[^`]*`|`[^`]*`")
_SEGMENT = re.compile(
    r"\{term\}`(?P<term>[^`]*)`"
    r"|\[(?P<ltext>[^\]]*)\]\((?P<url>[^)]*glossary[^)]*)\)"
    r"|\*\*(?P<bold>.+?)\*\*",
    re.S,
)


def _prose(markdown: str) -> list[tuple[str, str]]:
    """The cell's prose as (kind, text) lines, kind "definition" inside prf:definition blocks and
    "text" elsewhere; code blocks, literal includes, directive options and headings dropped."""
    out: list[tuple[str, str]] = []
    stack: list[tuple[str, str]] = []  # (fence, directive name or "" for a code block)
    for line in markdown.splitlines():
        m = _FENCE.match(line.strip())
        if m and (m.group(2) or (stack and m.group(1) == stack[-1][0] and not m.group(4).strip())):
            if m.group(2):  # a directive opens
                stack.append((m.group(1), m.group(3)))
            else:  # the innermost block closes
                stack.pop()
            continue
        if m and m.group(1).startswith("`") and not m.group(2):
            stack.append((m.group(1), ""))  # a code block opens
            continue
        if any(name in ("", "literalinclude", "code-block", "code") for _, name in stack):
            continue
        stripped = line.strip()
        if stripped.startswith("#") or re.match(r"^:\w[\w-]*:", stripped):
            continue
        kind = "definition" if any(n == "prf:definition" for _, n in stack) else "text"
        out.append((kind, line))
    return out


def _clean(text: str) -> str:
    """Inline code, the targets of roles other than {term}, math and comments become spaces."""
    text = _CODE_OR_ROLE.sub(lambda m: m.group(0) if m.group(1) == "term" else " ", text)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"\$[^$]*\$", " ", text)
    return re.sub(r"<!--.*?-->", " ", text, flags=re.S)


def segments(path: Path) -> list[tuple[str, str, str]]:
    """The prose of a chapter in reading order as (kind, text, target) pieces: kind "term" (a
    {term} role, target = the entry it links), "link" (a Markdown link to the glossary), "bold",
    "definition" (in a prf:definition block) or "text"."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    pieces: list[tuple[str, str, str]] = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown" or "remove-cell" in cell.get("metadata", {}).get(
            "tags", []
        ):
            continue
        source = "".join(cell["source"])
        lines = _prose(source)
        # join consecutive lines of one kind, so that bold text and roles may span lines
        blocks: list[tuple[str, str]] = []
        for kind, line in lines:
            if blocks and blocks[-1][0] == kind:
                blocks[-1] = (kind, blocks[-1][1] + "\n" + line)
            else:
                blocks.append((kind, line))
        for kind, block in blocks:
            text = _clean(block)
            pos = 0
            for m in _SEGMENT.finditer(text):
                if m.start() > pos:
                    pieces.append((kind, text[pos : m.start()], ""))
                if m.group("term") is not None:
                    role = m.group("term")
                    shown, _, target = role.partition("<")
                    target = (
                        (target.rstrip(">").strip() or shown.strip()) if target else role.strip()
                    )
                    pieces.append(("term", shown if target != role.strip() else role, target))
                elif m.group("url") is not None:
                    pieces.append(("link", m.group("ltext"), ""))
                else:
                    pieces.append(("bold" if kind == "text" else kind, m.group("bold"), ""))
                pos = m.end()
            pieces.append((kind, text[pos:], ""))
    return pieces


def _pattern(name: str) -> re.Pattern:
    """A whole-word pattern for a glossary name, singular or plural."""
    stem = re.escape(name).replace(r"\ ", r"\s+")
    plural = r"(?:s|es)?"
    if name.endswith("ix"):
        stem = re.escape(name[:-2]) + r"(?:ix|ices)"
        plural = ""
    flags = 0 if sum(c.isupper() for c in name) >= 2 else re.IGNORECASE
    return re.compile(rf"(?<![\w-]){stem}{plural}(?![\w-])", flags)


def first_uses() -> dict[str, tuple[str, str, str]]:
    """For every glossary entry used in the chapters, by its main name: (chapter stem, kind of
    the first use of any of its names, the words around it)."""
    pieces = [(p.stem, piece) for p in chapters() for piece in segments(p)]
    found: dict[str, tuple[str, str, str]] = {}
    for entry in ENTRIES:
        patterns = [_pattern(n) for n in entry if n not in HOMONYMS]
        for stem, (kind, text, target) in pieces:
            if kind == "term" and ENTRY_OF.get(target.lower()) == entry:
                found[entry[0]] = (stem, kind, text.strip())  # a link to it, whatever it shows
                break
            hits = [m for m in (p.search(text) for p in patterns) if m]
            if not hits or kind == "term":
                continue  # not here, or inside another entry's link: that term's use
            m = min(hits, key=lambda h: h.start())
            context = " ".join(text[max(0, m.start() - 40) : m.end() + 40].split())
            found[entry[0]] = (stem, kind, context)
            break
    return found


FIRST_USES = first_uses()
FLAGGED = {name: use for name, use in FIRST_USES.items() if use[1] == "text"}


# ---------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------
def test_reading_order_starts_with_chapter_0():
    assert chapters() and chapters()[0].stem == "00_qubits"


def test_the_glossary_parses():
    assert len(ENTRIES) > 100
    for name in ("qubit", "partial trace", "cut-set bound", "no-signalling", "cq-state"):
        assert name.lower() in ENTRY_OF, name
    assert ENTRY_OF["cq-state"] == ENTRY_OF["classical–quantum state"]


def test_the_detector_sees_links_and_definitions(tmp_path):
    cells = [
        "# A heading with a qubit\n\nThe {term}`pairs <Bell pair>` and a **density matrix**, "
        "`code qubit`, $\\ket{qubit}$ and a plain qubit.",
        ":::{prf:definition} Shot\n:label: def-shot\nA shot is one run.\n:::",
        "```python\nshot = 1\n```\nA later shot.",
    ]
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": c} for c in cells]}
    path = (tmp_path / "00_demo").with_suffix(".ipynb")
    path.write_text(json.dumps(nb), encoding="utf-8")
    pieces = [(kind, " ".join(text.split()), target) for kind, text, target in segments(path)]
    assert ("term", "pairs", "Bell pair") in pieces
    assert ("bold", "density matrix", "") in pieces
    text = " ".join(t for k, t, _ in pieces if k == "text")
    assert text.count("qubit") == 1 and "code" not in text and "heading" not in text
    assert ("definition", "A shot is one run.", "") in pieces
    assert "shot = 1" not in " ".join(t for _, t, _ in pieces)
    # chapter 0 links or defines its terms where it first uses them
    assert FIRST_USES["qubit"][:2] == ("00_qubits", "term")
    assert FIRST_USES["isotropic state"][0] == "00_qubits"
    assert all(use[0] != "00_qubits" for use in FLAGGED.values())


@pytest.mark.parametrize("name", sorted(FLAGGED), ids=str)
def test_first_use_is_linked_or_defined(name):
    chapter, _, context = FLAGGED[name]
    assert chapter != "00_qubits", f"{name!r}: first used in chapter 0 without link: …{context}…"
    assert name in FIRST_USE_ALLOWLIST, (
        f"{name!r} is first used in {chapter} without a glossary link or a definition: "
        f"…{context}… Link it ({{term}}`{name}`) or define it in bold there."
    )


def test_the_allowlist_only_shrinks():
    stale = sorted(set(FIRST_USE_ALLOWLIST) - set(FLAGGED))
    assert not stale, f"no longer flagged, remove from FIRST_USE_ALLOWLIST: {stale}"
    assert "00_qubits" not in FIRST_USE_ALLOWLIST.values()
