"""Graded work stays graded: the public book holds student versions only, and the instructor
bundle (``make instructor``) holds the rest.

* Nothing the public book is built from (the pages ``_toc.yml`` lists, the local files they
  include or link, the book's own static files, everything under ``book/``) and nothing in the
  library's wheel (``qring_edu/``) holds a solution, a hidden test or a rubric answer: no otter
  solution or hidden-test marker, no grading rubric, model answer or "Going further" rubric.
* The build configuration keeps ``instructor/`` out (``_config.yml``), the table of contents
  lists only student versions of the assignments, and no assignment time claims a timed pilot.
* The bundle, built here as ``make instructor`` builds it (about 15 s: one import of otter), is
  ONE archive outside ``_build/html`` with the solved sources, the private guide, a README and,
  per assignment, the student version and the autograder archive with the hidden tests.

tests/test_assignments.py grades submissions with the same bundle; tests/test_exercises_forbidden.py
checks the guard the hidden tests use.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
INSTRUCTOR = ROOT / "instructor"
BUNDLE = BOOK / "_tools" / "instructor_bundle.py"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]

# What only the instructors' material may contain (regular expressions, case-sensitive).
MARKERS = {
    "otter solution marker": r"#\s*(BEGIN |END )?SOLUTION\b",
    "otter assignment/question config": r"#\s*(ASSIGNMENT CONFIG|BEGIN QUESTION)\b",
    "otter hidden-test marker": r"BEGIN TEST CONFIG|\bhidden: true\b|\"hidden\": true",
    "written question's grading rubric": r"\*\*Grading rubric",
    "written question's model answer": r"\*\*Model answer",
    "Going further rubric": r"\*Rubric:\*",
    "Going further solutions": r"Going further: solutions",
    "hidden-test design table": r"Hidden tests \(points\)",
}
TIMED_PILOT = re.compile(r"timed pilot|from a pilot|how it was measured", re.I)


def _toc_files() -> list[str]:
    """Every page ``_toc.yml`` lists (root, chapters, sections, parts), as written there."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    out = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                out.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    walk(toc.get("chapters"))
    walk(toc.get("parts"))
    return out


def _page(name: str) -> Path:
    for suffix in (".md", ".ipynb"):
        if (ROOT / f"{name}{suffix}").is_file():
            return ROOT / f"{name}{suffix}"
    raise AssertionError(f"_toc.yml lists {name!r}, which is neither .md nor .ipynb")


def _text(path: Path) -> str:
    """A file's text; for a notebook, every cell's source, its metadata and its outputs."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".ipynb":
        return raw
    nb = json.loads(raw)
    parts = [json.dumps(nb.get("metadata", {}))]
    for cell in nb["cells"]:
        parts.append("".join(cell["source"]))
        parts.append(json.dumps(cell.get("metadata", {})))
        parts.append(json.dumps(cell.get("outputs", [])))
    return "\n".join(parts)


def _referenced_files(page: Path) -> list[Path]:
    """Local files a page pulls into the build: {literalinclude}, {include}, {download}, {image},
    {figure} targets and markdown links or images to a relative path."""
    text = _text(page)
    targets = re.findall(r"\{(?:literalinclude|include|image|figure)\}\s*(\S+)", text)
    targets += re.findall(r"\{download\}`(?:[^`<]*<)?([^`>]+)>?`", text)
    targets += re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", text)
    out = []
    for target in targets:
        if re.match(r"[a-z]+:", target):  # a URL
            continue
        path = (page.parent / target).resolve()
        if path.is_file():
            out.append(path)
    return out


def _public_files() -> list[Path]:
    pages = [_page(name) for name in _toc_files()]
    files = set(pages)
    for page in pages:
        files.update(_referenced_files(page))
    files.update(p for p in BOOK.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    files.update((ROOT / "qring_edu").rglob("*.py"))  # the wheel students install
    return sorted(files)


def _leaks(text: str) -> list[str]:
    return [what for what, pattern in MARKERS.items() if re.search(pattern, text)]


def test_markers_find_what_they_are_meant_to_find():
    source = next(INSTRUCTOR.glob("assignments/*.ipynb"))
    found = set(_leaks(_text(source)))
    assert {"otter solution marker", "otter hidden-test marker"} <= found
    assert (
        "written question's grading rubric" in found and "written question's model answer" in found
    )
    guide = (INSTRUCTOR / "guide.md").read_text(encoding="utf-8")
    assert {"Going further rubric", "Going further solutions", "hidden-test design table"} <= set(
        _leaks(guide)
    )


def test_public_book_and_wheel_hold_no_solution_hidden_test_or_rubric_answer():
    files = _public_files()
    assert BOOK / "instructor_guide.md" in files and len(files) > 50
    leaks = {str(p.relative_to(ROOT)): found for p in files if (found := _leaks(_text(p)))}
    assert not leaks, f"instructor material in the public book or the wheel: {leaks}"
    outside = [p for p in files if INSTRUCTOR in p.parents]
    assert not outside, f"the public book pulls in instructor files: {outside}"


def test_toc_lists_only_the_student_versions_of_the_assignments():
    files = _toc_files()
    assignments = [f for f in files if "assignments/" in f]
    assert assignments and all(f.startswith("book/assignments/student/") for f in assignments)
    assert not any(f.startswith("instructor") for f in files)
    assert sorted(Path(f).name for f in assignments) == sorted(
        p.stem for p in INSTRUCTOR.glob("assignments/*.ipynb")
    )
    # book/assignments/ holds the generated student versions and a README, nothing else
    assert sorted(p.name for p in (BOOK / "assignments").iterdir()) == ["README.md", "student"]


def test_build_configuration_keeps_the_instructor_folder_out():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert config["only_build_toc_files"] is True
    assert {"instructor", "instructor/**"} <= set(config["exclude_patterns"])
    sphinx = config.get("sphinx", {}).get("config", {})
    for key in ("html_extra_path", "html_static_path"):
        assert not any("instructor" in str(p) for p in sphinx.get(key, [])), key


def test_no_assignment_time_claims_a_timed_pilot():
    """The assignments' times are estimates: every place that states them says so."""
    places = [BOOK / "instructor_guide.md", *sorted((BOOK / "assignments").rglob("*.ipynb"))]
    places += [INSTRUCTOR / "README.md", INSTRUCTOR / "guide.md"]
    places += sorted(INSTRUCTOR.glob("assignments/*.ipynb"))
    for path in places:
        text = _text(path)
        assert not TIMED_PILOT.search(text), f"{path.relative_to(ROOT)} claims a timed pilot"
        if "**Time:**" in text:
            assert re.search(r"\*\*Time:\*\* about \d+ minutes, an estimate", text), path
    guide = (BOOK / "instructor_guide.md").read_text(encoding="utf-8")
    assert "Time for students (estimate)" in guide and "are **estimates**" in guide


def test_make_instructor_writes_the_bundle_outside_the_html():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^instructor:.*\n\t(.+)$", makefile, re.M)
    assert recipe and "instructor_bundle.py --out _build/instructor" in recipe.group(1)
    refused = subprocess.run(
        [sys.executable, str(BUNDLE), "--out", str(ROOT / "_build" / "html" / "instructor")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode != 0 and "_build/html" in refused.stderr


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("instructor")
    proc = subprocess.run(
        [sys.executable, str(BUNDLE), "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    assert proc.returncode == 0, f"make instructor failed:\n{proc.stdout}\n{proc.stderr}"
    archives = sorted(out.iterdir())
    assert [p.name for p in archives] == [f"qring_edu-instructor-{VERSION}.zip"]
    with zipfile.ZipFile(archives[0]) as zf:
        yield zf


def test_bundle_holds_the_solved_sources_guide_and_autograders(bundle):
    top = f"qring_edu-instructor-{VERSION}/"
    names = bundle.namelist()
    assert all(n.startswith(top) for n in names), "one top folder"
    rel = {n[len(top) :] for n in names}
    assert {"README.md", "guide.md", "going_further.py", "assignments/README.md"} <= rel
    sources = sorted(p.name for p in INSTRUCTOR.glob("assignments/*.ipynb"))
    assert len(sources) >= 4
    for source in sources:
        name = source.removesuffix(".ipynb")
        text = bundle.read(top + f"assignments/{source}").decode()
        assert re.search(MARKERS["otter solution marker"], text)  # solved
        assert re.search(MARKERS["otter hidden-test marker"], text)  # with its hidden tests
        assert f"autograders/{name}/student/{source}" in rel
        assert f"autograders/{name}/autograder/{source}" in rel  # the solved notebook
        (archive,) = [
            r
            for r in rel
            if re.fullmatch(rf"autograders/{name}/autograder/{name}-autograder_.*\.zip", r)
        ]
        with zipfile.ZipFile(bundle.open(top + archive)) as ag:
            tests = [t for t in ag.namelist() if t.startswith("tests/q")]
            assert tests and "otter_config.json" in ag.namelist()
            hidden = [
                t
                for t in tests
                if b'"hidden": True' in ag.read(t) or b"'hidden': True" in ag.read(t)
            ]
            assert hidden, f"{archive} carries no hidden test"
        student = bundle.read(top + f"autograders/{name}/student/{source}").decode()
        assert not _leaks(student), f"the bundle's student version of {name} leaks"
    guide = bundle.read(top + "guide.md").decode()
    assert (
        "Going further: solutions and rubrics" in guide and "Written questions and rubrics" in guide
    )
    assert "pristine().forbidden" in guide  # the hidden-test design
