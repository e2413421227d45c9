#!/usr/bin/env python3
"""The instructor bundle (``make instructor``) and the student versions of the assignments
(``make assignments``).

The graded assignments are authored once, as otter-grader sources with the solutions, the hidden
tests and the rubrics, in ``instructor/assignments/`` of the repository; the solutions of the
chapters' "Going further" items, the hidden-test design and the rubric answers are in
``instructor/guide.md``. None of it is part of the public book (``_config.yml`` excludes
``instructor/``; ``tests/test_assessment_integrity.py`` checks it). This script runs
``otter assign`` on every source (in this process, into a temporary folder) and then

* by default writes ONE archive, ``<out>/qring_edu-instructor-<version>.zip`` (``--out``,
  default ``_build/instructor``, never inside ``_build/html``), holding the whole ``instructor/``
  folder (README.md for instructors, guide.md, the sources, going_further.py) and, per
  assignment, what ``otter assign`` generated: ``autograders/<name>/student/<name>.ipynb`` (hand
  it out), ``autograders/<name>/autograder/`` with the solved notebook and the autograder
  archive ``<name>-autograder_<date>.zip`` (``otter run -a`` / ``otter grade -a`` / Gradescope);
* with ``--students`` writes the student versions, outputs cleared, into
  ``book/assignments/student/`` instead (the pages the public book shows).

Usage (from the repository root, with the project's venv)::

    .venv/bin/python book/_tools/instructor_bundle.py [--out DIR]
    .venv/bin/python book/_tools/instructor_bundle.py --students
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
INSTRUCTOR = ROOT / "instructor"
SOURCES = INSTRUCTOR / "assignments"
STUDENT = ROOT / "book" / "assignments" / "student"
# What is never packed from instructor/ (caches and editor files).
SKIP = {"__pycache__", ".ipynb_checkpoints", ".OTTER_LOG", ".DS_Store"}


def version() -> str:
    """The library's version, from pyproject.toml."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)["project"]["version"]


def assignment_names() -> list[str]:
    """The assignments, by the file names of their sources (``a1_ring_ledger``, ...)."""
    return sorted(p.stem for p in SOURCES.glob("*.ipynb"))


def otter_assign(workdir: Path, *, quiet: bool = True) -> dict[str, Path]:
    """Run ``otter assign`` on every source into ``workdir/<name>``; ``{name: that folder}``."""
    from otter.assign import main as assign  # slow import (about 10 s): only when needed

    out = {}
    for name in assignment_names():
        out[name] = workdir / name
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink) if quiet else contextlib.nullcontext():
            assign(str(SOURCES / f"{name}.ipynb"), str(out[name]))
    return out


def student_version(generated: Path, name: str):
    """The student notebook ``otter assign`` generated, with every output cleared and cell ids
    numbered in order (otter draws random ones, which would change the file at every run)."""
    nb = nbformat.read(generated / "student" / f"{name}.ipynb", as_version=4)
    for index, cell in enumerate(nb.cells):
        cell.id = f"cell-{index:03d}"
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def _files(folder: Path):
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not SKIP & set(path.relative_to(folder).parts):
            yield path


def build(out: Path, *, quiet: bool = True) -> Path:
    """Write the instructor bundle into ``out`` and return the archive's path."""
    top = f"qring_edu-instructor-{version()}"
    out.mkdir(parents=True, exist_ok=True)
    archive = out / f"{top}.zip"
    with tempfile.TemporaryDirectory() as tmp:
        generated = otter_assign(Path(tmp), quiet=quiet)
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
            for path in _files(INSTRUCTOR):
                zf.write(path, f"{top}/{path.relative_to(INSTRUCTOR).as_posix()}")
            for name, folder in generated.items():
                for path in _files(folder):
                    rel = path.relative_to(folder).as_posix()
                    zf.write(path, f"{top}/autograders/{name}/{rel}")
    return archive


def write_students(*, quiet: bool = True) -> list[Path]:
    """Regenerate ``book/assignments/student/<name>.ipynb``; return the files that changed."""
    changed = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, folder in otter_assign(Path(tmp), quiet=quiet).items():
            text = nbformat.writes(student_version(folder, name), version=4) + "\n"
            target = STUDENT / f"{name}.ipynb"
            if not target.is_file() or target.read_text(encoding="utf-8") != text:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
                changed.append(target)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=ROOT / "_build" / "instructor", help="folder of the archive"
    )
    parser.add_argument(
        "--students",
        action="store_true",
        help="write the student versions into book/assignments/student/ instead of the bundle",
    )
    args = parser.parse_args(argv)
    if args.students:
        changed = write_students()
        for path in changed:
            print(f"updated {path.relative_to(ROOT)}")
        print(f"{len(assignment_names())} student versions, {len(changed)} changed")
        return 0
    html = (ROOT / "_build" / "html").resolve()
    if args.out.resolve().is_relative_to(html):
        parser.error("--out: the instructor bundle must stay out of the public _build/html")
    print(f"wrote {build(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
