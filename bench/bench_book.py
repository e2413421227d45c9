"""Book execution time, for ``bench/run.py``.

    run(out, repeats) -> list of (name, measured, target, ok)

Seconds to execute every chapter notebook of the book (``book/*.ipynb`` listed in ``_toc.yml``,
in toc order; the student assignments are not executed by the build and are left out) from
scratch: a fresh kernel of this environment per notebook, started, run top to bottom and shut down,
exactly as ``book/_tools/execute_notebooks.py`` (``make notebooks``) and the Jupyter Book build do
it, with the working directory set to ``book/``. The executed notebooks are discarded (nothing is
written). The whole-book total is the sum over the chapters; target: under 300 s on this machine.

One execution per notebook (``repeats`` is ignored): each takes tens of seconds and executing
the book is itself a minutes-long measurement.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "book" / "_tools"
TARGET_TOTAL_SECONDS = 300.0
CELL_TIMEOUT = 300  # seconds per cell, as in _config.yml


def toc_notebooks(toc: Path = ROOT / "_toc.yml") -> list[Path]:
    """The top-level ``book/*.ipynb`` files of the toc, in toc order (root, chapters, sections)."""
    data = yaml.safe_load(toc.read_text(encoding="utf-8"))
    files: list[str] = [data["root"]]

    def walk(entries) -> None:
        for entry in entries or []:
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("sections"))

    walk(data.get("chapters"))
    for part in data.get("parts") or []:
        walk(part.get("chapters"))
    paths = [ROOT / f"{name}.ipynb" for name in files]
    return [p for p in paths if p.is_file() and p.parent == ROOT / "book"]


def execute_seconds(path: Path, timeout: int = CELL_TIMEOUT) -> float:
    """Wall seconds to execute the notebook at ``path`` in a fresh kernel (kernel start and
    shutdown included); raises on any cell error. The notebook file is not modified."""
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))
    import execute_notebooks as ex  # noqa: PLC0415 (sets JUPYTER_PATH to this environment)

    nb = ex.nbformat.read(path, as_version=4)
    client = ex.NotebookClient(
        nb,
        kernel_name="python3",
        kernel_manager_class=ex.CurrentEnvKernelManager,
        timeout=timeout,
        allow_errors=False,
        record_timing=False,
        resources={"metadata": {"path": str(path.parent.resolve())}},
    )
    t0 = time.perf_counter()
    client.execute()
    return time.perf_counter() - t0


def run(out: Callable[[str], None], repeats: int) -> list[tuple[str, str, str, bool]]:
    """Print the book-execution section with ``out(text)`` and return the summary row."""
    notebooks = toc_notebooks()
    out(
        "## Book execution time: every chapter notebook from scratch, fresh kernel each "
        "(one run each)"
    )
    out("")
    out("| notebook | seconds |")
    out("|---|---:|")
    total = 0.0
    for path in notebooks:
        seconds = execute_seconds(path)
        total += seconds
        out(f"| {path.relative_to(ROOT)} | {seconds:.1f} |")
    out(f"| **whole book ({len(notebooks)} notebooks)** | **{total:.1f}** |")
    out("")
    return [
        (
            f"book execution, {len(notebooks)} notebooks from scratch",
            f"{total:.0f} s",
            f"< {TARGET_TOTAL_SECONDS:g} s",
            total < TARGET_TOTAL_SECONDS,
        )
    ]


if __name__ == "__main__":
    rows = run(print, 1)
    for row in rows:
        print(row)
    sys.exit(0 if all(ok for *_, ok in rows) else 1)
