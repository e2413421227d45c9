"""Every reference a reader can follow leads somewhere.

* A file named in the repository's text (docstrings, comments, pages, notebooks, configuration)
  exists: a path such as ``book/03_superdense_ring.ipynb`` relative to the repository root or to
  the naming file's folder, a bare name such as ``ring.py`` somewhere in the repository. A
  document that only the developers' side of a project had (a design brief, an issue tracker)
  cannot be opened by a reader, so it is not cited.
* No text points to an issue number of a tracker a reader cannot open ("issue 17"); a public
  tracker named with its repository ("NVIDIA/nccl issue 1368") is fine.
* No link in the book's configuration or README points to a placeholder.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]

TEXT_SUFFIXES = {
    ".py",
    ".md",
    ".ipynb",
    ".yml",
    ".yaml",
    ".toml",
    ".cfg",
    ".txt",
    ".cls",
    ".cpp",
    ".js",
    ".css",
}
#: A file name as the text writes it: optional folders, a stem, one of these extensions.
FILE_REF = re.compile(
    r"(?<![\w/.@:~$>*-])((?:[\w.-]+/)*[\w-]+\.(?:md|py|ipynb|yml|yaml|toml|cfg|cls|cpp|bib))\b"
)
#: Folders that builds write (not tracked): a text may name what will be there.
GENERATED = ("dist/", "_build/", "submissions/")
#: Files whose text builds made-up trees on purpose (test fixtures: a fake package, a small book).
SYNTHETIC = {"test_import_layers.py", "test_references.py", "test_book_links.py"}
#: Names that are not files of this repository by design: other projects' files that a text
#: names together with their project (the line says which).
EXTERNAL = {
    "conf.py",  # Sphinx's configuration file, which Jupyter Book writes for us
    "setup.py",
    "tie_audit.py",  # grageragarces/Bench-network-applications (named with its repository)
    "qnetbench/apps/tie_audit.py",
    "PERFORMANCE.md",  # nccl-tests' doc/PERFORMANCE.md (named with its repository)
    "doc/PERFORMANCE.md",
    "pip.conf",
    "jupyterBook.cls",  # sphinx-jupyterbook-latex's document class, which qringbook.cls extends
    "stim/__init__.py",  # Stim's package (the bench names the module it reads)
}
ISSUE_REF = re.compile(r"(?<![\w/])(?:[Ii]ssues?) #?\d+")
PUBLIC_TRACKER = re.compile(r"[\w.-]+/[\w.-]+ $")  # "NVIDIA/nccl " right before "issue 1368"


def _tracked() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    files = [ROOT / p for p in out.split("\0") if p]
    untracked = subprocess.run(
        ["git", "ls-files", "-z", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    files += [ROOT / p for p in untracked.split("\0") if p]
    return sorted(f for f in set(files) if f.is_file())


FILES = _tracked()
TEXTS = [f for f in FILES if f.suffix in TEXT_SUFFIXES or f.name in {"Makefile", "run"}]
NAMES = {f.name for f in FILES}


def _text(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    # URLs name files of other sites; they are not this repository's.
    return re.sub(r"[a-z]+://\S+", " ", text)


def _resolves(ref: str, where: Path) -> bool:
    if ref in EXTERNAL or Path(ref).name in EXTERNAL or "NN_" in ref:  # NN_slug: a pattern
        return True
    if "/" not in ref:
        return ref in NAMES
    ref = ref.removeprefix("./")
    if ref.startswith(GENERATED):
        return True
    if (ROOT / ref).exists() or (where.parent / ref).exists():
        return True
    # a path inside a package, written from the package ("experiments/_base.py")
    return any(f.as_posix().endswith("/" + ref) for f in FILES)


def test_every_file_named_in_the_repository_exists():
    missing = []
    for path in TEXTS:
        if path.name in SYNTHETIC:
            continue
        for lineno, line in enumerate(_text(path).splitlines(), 1):
            for ref in FILE_REF.findall(line):
                if not _resolves(ref, path):
                    missing.append(f"{path.relative_to(ROOT)}:{lineno}: {ref}")
    assert not missing, "references to files the repository does not have:\n" + "\n".join(missing)


def test_no_reference_to_a_tracker_a_reader_cannot_open():
    found = []
    for path in TEXTS:
        if path.name == "test_references.py":
            continue
        for lineno, line in enumerate(_text(path).splitlines(), 1):
            for m in ISSUE_REF.finditer(line):
                if PUBLIC_TRACKER.search(line[: m.start()]):
                    continue
                found.append(f"{path.relative_to(ROOT)}:{lineno}: {m.group(0)}")
    assert not found, "issue numbers a reader cannot look up:\n" + "\n".join(found)


def test_the_reference_check_finds_a_missing_file(tmp_path):
    """The check above can fail: a made-up design brief is reported, an existing page is not."""
    page = tmp_path / "page.md"
    assert not _resolves("DESIGN.md", page)
    assert not _resolves("book/99_missing.ipynb", page)
    assert _resolves("book/intro.md", page)
    assert _resolves("ring.py", page)
    assert FILE_REF.findall("see DESIGN.md §4.2 and qring_edu/ring.py") == [
        "DESIGN.md",
        "qring_edu/ring.py",
    ]
    assert ISSUE_REF.findall("as issue 17 asks; NVIDIA/nccl issue 1368") == [
        "issue 17",
        "issue 1368",
    ]


def test_no_placeholder_repository_url():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    url = (config.get("repository") or {}).get("url") or ""
    assert "placeholder" not in (ROOT / "_config.yml").read_text(encoding="utf-8")
    for path in (ROOT / "README.md", ROOT / "book" / "intro.md"):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"https://github\.com/[\w.-]+/[\w.-]+", text):
            assert url and m.group(0).startswith(url), (
                f"{path.name} links {m.group(0)}, not the published repository of _config.yml"
            )


@pytest.mark.parametrize("path", ["README.md", "CONTRIBUTING.md", "ARCHITECTURE.md"])
def test_project_documents_exist(path):
    assert (ROOT / path).is_file()
