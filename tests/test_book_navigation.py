"""The book's navigation aids: the instructor guide (its public page and its private part in
instructor/guide.md, which holds the "Going further" solutions) covers every chapter's
"Going further" items and refers only to exercises that exist; the glossary and the chapters'
{term} links point at each other.

The strict build (``make test-build``) already refuses a {term} or {ref} target that does not
exist; these tests name the page and the item, and check what the build cannot: that nothing
is *missing* (an item without a solution, a glossary entry no chapter links to).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

BOOK = Path(__file__).resolve().parent.parent / "book"
GUIDE = BOOK / "instructor_guide.md"  # the public page
PRIVATE_GUIDE = BOOK.parent / "instructor" / "guide.md"  # solutions, hidden tests, rubrics
GLOSSARY = BOOK / "glossary.md"
CHAPTERS = sorted(p.stem for p in BOOK.glob("0*.ipynb")) + ["claims"]
APPENDICES = sorted(p.stem for p in BOOK.glob("appendix_*.ipynb"))  # their exercises count too
TERM = re.compile(r"\{term\}`([^`<]*?)(?:\s*<([^>`]+)>)?`")


def _boxed(page: str) -> bool:
    """Whether the chapter's reading box is written by book/_tools/reading_box.py: then
    tests/test_reading_boxes.py checks it, and the hand-typed sentence read below is gone."""
    return "<!-- reading-box" in (BOOK / page).read_text(encoding="utf-8")


def _markdown(name: str) -> str:
    nb = nbformat.read(BOOK / f"{name}.ipynb", 4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def _section(text: str, heading: str) -> str:
    """The part of ``text`` from the level-2 heading starting with ``heading`` to the next one."""
    start = text.index("\n## " + heading)
    nxt = text.find("\n## ", start + 4)
    return text[start:] if nxt < 0 else text[start:nxt]


# ---------------------------------------------------------------------------------------------
# Instructor guide
# ---------------------------------------------------------------------------------------------
def going_further_items(markdown: str) -> set[str]:
    """Letters (a), (b), ... of the chapter's "**Going further.**" paragraph(s)."""
    items = set()
    for m in re.finditer(r"\*\*Going further\.\*\*(.*?)(?:\n\s*\n|\Z)", markdown, re.S):
        items |= set(re.findall(r"(?<![\w{])\(([a-z])\)", m.group(1)))
    return items


def guide_going_further_entries(guide: str) -> dict[str, dict[str, str]]:
    """{chapter: {letter: entry text}} from the guide's "Going further" section: one ``###``
    subsection per chapter, naming it by "Items of {doc}`chapter`.", one entry per item starting
    with "**(a)"."""
    section = _section(guide, "Going further")
    out = {}
    for sub in re.split(r"\n### ", section)[1:]:
        m = re.search(r"Items of \{doc\}`([\w.-]+)`", sub)
        assert m, f"guide subsection {sub.splitlines()[0]!r} does not say which chapter it covers"
        parts = re.split(r"\n\*\*\(([a-z])\)", sub)
        out[m.group(1)] = dict(zip(parts[1::2], parts[2::2]))
    return out


def test_going_further_parsers_see_the_items():
    text = "x\n\n**Going further.** (a) Do this, see {numref}`ex-1`. (b) Then that.\n\nOther (c)."
    assert going_further_items(text) == {"a", "b"}
    guide = (
        "# G\n\n## Going further: solutions\n\n### One\n\nItems of {doc}`01_x`.\n\n"
        "**(a) First.** Sol.\n\n*Rubric:* r.\n\n**(b) Second.** Sol.\n\n## Next\n"
    )
    entries = guide_going_further_entries(guide)
    assert set(entries) == {"01_x"} and set(entries["01_x"]) == {"a", "b"}
    assert "*Rubric:*" in entries["01_x"]["a"] and "*Rubric:*" not in entries["01_x"]["b"]


def test_every_going_further_item_has_a_solution_and_rubric_in_the_guide():
    entries = guide_going_further_entries(PRIVATE_GUIDE.read_text(encoding="utf-8"))
    with_items = {name: going_further_items(_markdown(name)) for name in CHAPTERS}
    with_items = {name: items for name, items in with_items.items() if items}
    assert with_items, "no chapter has a Going further paragraph any more: update this test"
    for name, items in with_items.items():
        assert name in entries, f"the guide has no Going further solutions for {name}"
        missing = items - set(entries[name])
        assert not missing, f"{name}: Going further items {sorted(missing)} have no guide entry"
        extra = set(entries[name]) - items
        assert not extra, (
            f"{name}: the guide solves items {sorted(extra)} the chapter no longer has"
        )
        for letter in items:
            assert "*Rubric:*" in entries[name][letter], f"{name} ({letter}) has no rubric"
    assert set(entries) <= set(with_items), "the guide solves items of a chapter that has none"


def _chapter_labels() -> dict[str, str]:
    labels = {}
    for name in CHAPTERS + APPENDICES:
        for label in re.findall(r"^:label: (\S+)|^\((\S+)\)=", _markdown(name), re.M):
            labels[label[0] or label[1]] = name
    return labels


def _guide_targets(guide: str) -> list[str]:
    targets = []
    for m in re.finditer(r"\{(?:ref|numref)\}`([^`]*)`", guide):
        inner = m.group(1)
        t = re.search(r"<([^>]+)>\s*$", inner)
        targets.append(t.group(1) if t else inner.strip())
    return targets


@pytest.mark.parametrize("path", [GUIDE, PRIVATE_GUIDE], ids=["public", "private"])
def test_guide_refers_only_to_labels_that_exist(path):
    guide = path.read_text(encoding="utf-8")
    labels = _chapter_labels()
    own = set(re.findall(r"^\((\S+)\)=", guide, re.M))
    targets = _guide_targets(guide)
    assert any(t.startswith("ex-") for t in targets)
    unknown = sorted({t for t in targets if t not in labels and t not in own})
    assert not unknown, f"{path.name} refers to labels no page defines: {unknown}"
    # A bare {ref} to an exercise has no title to show in the PDF ("Exercise ??"): give the text.
    bare = re.findall(r"\{(?:ref)\}`(ex-[^`<]*)`", guide)
    assert not bare, f"give these exercise references an explicit text: {bare}"


def test_public_guide_keeps_no_label_the_private_part_took():
    """The labels of the moved sections live in instructor/guide.md; the public page (built by
    Sphinx) must not refer to them, or the strict build fails."""
    public = GUIDE.read_text(encoding="utf-8")
    moved = set(re.findall(r"^\((\S+)\)=", PRIVATE_GUIDE.read_text(encoding="utf-8"), re.M))
    own = set(re.findall(r"^\((\S+)\)=", public, re.M))
    assert moved and not moved & own
    assert not moved & set(_guide_targets(public)), "the public guide links a private section"


def test_syllabus_uses_every_chapter_exercise():
    """The syllabus assigns every exercise of every chapter to a lecture (in class or homework)."""
    guide = GUIDE.read_text(encoding="utf-8")
    used = set(_guide_targets(_section(guide, "Syllabus")))
    exercises = {
        label: name for label, name in _chapter_labels().items() if label.startswith("ex-")
    }
    assert len(exercises) > 40
    missing = sorted(label for label in exercises if label not in used)
    assert not missing, f"exercises the syllabus does not place in a lecture: {missing}"


def test_syllabus_has_seven_lectures_with_live_widgets_exercises_and_discussion():
    syllabus = _section(GUIDE.read_text(encoding="utf-8"), "Syllabus")
    lectures = re.split(r"\n### Lecture \d+", syllabus)[1:]
    assert len(lectures) == 7
    for lecture in lectures:
        assert "*Covers*" in lecture and "*Exercises:*" in lecture and "*Discussion:*" in lecture
        assert "*Live:*" in lecture
        assert len(re.findall(r"^- ", lecture.split("*Discussion:*")[1], re.M)) >= 2
    covered = set(
        re.findall(r"\{doc\}`([\w.-]+)`", "".join(s.split("*Live:*")[0] for s in lectures))
    )
    assert {name for name in CHAPTERS if name != "claims"} <= covered


# ---------------------------------------------------------------------------------------------
# Glossary
# ---------------------------------------------------------------------------------------------
def glossary_entries(text: str) -> list[tuple[tuple[str, ...], str]]:
    """[(names, definition)] of the ``{glossary}`` directive: term lines, then an indented body."""
    body = text.split("```{glossary}", 1)[1].split("\n```", 1)[0]
    entries, names, lines = [], [], []
    for line in body.splitlines():
        if line.startswith(":") or not line.strip():
            continue
        if line.startswith(" "):
            lines.append(line.strip())
        else:
            if lines:
                entries.append((tuple(names), " ".join(lines)))
                names, lines = [], []
            names.append(line.strip())
    if names:
        entries.append((tuple(names), " ".join(lines)))
    return entries


def _targets(text: str) -> list[str]:
    return [(m.group(2) or m.group(1)).strip().lower() for m in TERM.finditer(text)]


def test_glossary_parser():
    text = "x\n```{glossary}\n:sorted:\n\nA\nB\n  Def {term}`c <C>`.\n\nC\n  Other.\n```\n"
    assert glossary_entries(text) == [(("A", "B"), "Def {term}`c <C>`."), (("C",), "Other.")]
    assert _targets("see {term}`Bell pairs <Bell pair>` and {term}`ebit`") == ["bell pair", "ebit"]


def test_every_term_link_has_a_glossary_entry():
    names = {
        n.lower()
        for entry, _ in glossary_entries(GLOSSARY.read_text(encoding="utf-8"))
        for n in entry
    }
    pages = {name: _markdown(name) for name in CHAPTERS}
    pages["instructor_guide"] = GUIDE.read_text(encoding="utf-8")
    pages["instructor/guide"] = PRIVATE_GUIDE.read_text(encoding="utf-8")
    pages["glossary"] = GLOSSARY.read_text(encoding="utf-8")
    for page, text in pages.items():
        unknown = sorted(set(_targets(text)) - names)
        assert not unknown, f"{page} links to terms the glossary does not define: {unknown}"


def test_every_glossary_entry_is_linked_from_a_chapter():
    """Each entry is linked from at least one chapter; an umbrella entry that no chapter's prose
    names (e.g. "concentration inequality") counts if an entry linked from a chapter links to it."""
    entries = glossary_entries(GLOSSARY.read_text(encoding="utf-8"))
    index = {n.lower(): i for i, (names, _) in enumerate(entries) for n in names}
    from_chapters = {index[t] for name in CHAPTERS for t in _targets(_markdown(name)) if t in index}
    reached, frontier = set(from_chapters), list(from_chapters)
    while frontier:
        for t in _targets(entries[frontier.pop()][1]):
            if t in index and index[t] not in reached:
                reached.add(index[t])
                frontier.append(index[t])
    assert len(from_chapters) >= 0.9 * len(entries)
    orphans = [entries[i][0][0] for i in range(len(entries)) if i not in reached]
    assert not orphans, f"glossary entries no chapter links to: {orphans}"


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_links_each_glossary_entry_once_at_first_use(name):
    entries = glossary_entries(GLOSSARY.read_text(encoding="utf-8"))
    index = {n.lower(): i for i, (names, _) in enumerate(entries) for n in names}
    targets = [index[t] for t in _targets(_markdown(name)) if t in index]
    assert targets, f"{name} links no glossary term"
    twice = sorted({entries[i][0][0] for i in targets if targets.count(i) > 1})
    assert not twice, f"{name} links these entries more than once (first use only): {twice}"


# ---------------------------------------------------------------------------------------------
# Reading times of the chapters that no other test recounts
# ---------------------------------------------------------------------------------------------
def test_noisy_links_reading_time_is_what_the_page_says():
    """Chapter 4 states the rule of chapter 3 (prose before the exercises, 200 words a minute,
    half a minute per shown code cell); recount it with chapter 3's counter."""
    if _boxed("04_noisy_links.ipynb"):
        pytest.skip("the reading box is written by the tool (tests/test_reading_boxes.py)")
    from test_book_settings import _reading_time

    minutes, words, cells = _reading_time("04_noisy_links.ipynb")
    text = " ".join(_markdown("04_noisy_links").split())
    stated = re.search(
        r"About (\d+) minutes for the text: about ([\d,]+) words at 200 words per "
        r"minute, plus half a minute for each of its (\d+) code cells",
        text,
    )
    assert stated, "the reading-time sentence is missing or reworded"
    m, w, c = int(stated.group(1)), int(stated.group(2).replace(",", "")), int(stated.group(3))
    assert abs(m - minutes) <= 2 and abs(w - words) <= 150 and c == cells


def test_vga_reading_time_is_what_the_page_says():
    """Chapter 5's rule: all shown text, formulas and proofs included, collapsed solutions not, at
    200 words a minute, plus half a minute per shown code cell (exercise cells included)."""
    if _boxed("05_vga.ipynb"):
        pytest.skip("the reading box is written by the tool (tests/test_reading_boxes.py)")
    nb = nbformat.read(BOOK / "05_vga.ipynb", 4)
    words = cells = 0
    for c in nb.cells:
        if "remove-cell" in c.metadata.get("tags", []):
            continue
        if c.cell_type == "code":
            cells += 1
            continue
        src = re.sub(r"\{term\}`([^`<]*?)(?:\s*<[^>`]*>)?`", r"\1", c.source)
        src = re.sub(r"(`{3,}|:{3,})\{solution\}.*?\n\1\s*$", " ", src, flags=re.S | re.M)
        words += len(src.split())
    text = " ".join(_markdown("05_vga").split())
    stated = re.search(
        r"About (\d+) minutes: ([\d,]+) words of text .*? plus (\d+) code cells", text
    )
    assert stated, "the reading-time sentence is missing or reworded"
    m, w, c = int(stated.group(1)), int(stated.group(2).replace(",", "")), int(stated.group(3))
    assert c == cells and abs(w - words) <= 0.03 * words
    assert abs(m - (words / 200 + cells / 2)) <= 2
