#!/usr/bin/env python3
"""Re-execute chapter notebooks in place, ready to be committed (``make notebooks``).

For each notebook given on the command line:

* run every cell top to bottom in a fresh kernel of *this* Python environment (the one running
  this script, i.e. the project's ``.venv``), with the working directory set to the notebook's
  folder (``book/``) and a per-cell timeout (default 300 s); an error in any cell aborts;
* drop stored widget state: ``metadata.widgets`` and every
  ``application/vnd.jupyter.widget-state+json`` entry, and, in cell outputs, the
  ``application/vnd.jupyter.widget-view+json`` entries (their random model ids point at state that
  is not stored, so they could only render as "model not found"; the text/plain and text/html
  static preview of the default state stay, so the committed notebook shows that preview);
* drop per-cell execution timestamps (nbclient's ``metadata.execution``), give cells without an id
  a deterministic one, and renumber execution counts 1, 2, 3, ... in cell order;
* write the notebook back with nbformat (only if it changed).

Two consecutive runs give the same text; nbval (``make test``) then compares the stored outputs
with a fresh run, using ``tests/nbval_sanitize.cfg``.

``--check`` executes nothing: it fails (exit 1) when a committed notebook is not normalised as
above (stored widget state, timestamps, counts out of order) or has a code cell that never ran.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _prefer_own_kernelspecs() -> None:
    """Make this environment's Jupyter data dir the first place kernelspecs are looked up."""
    own = str(Path(sys.prefix) / "share" / "jupyter")
    paths = [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
    if own not in paths:
        os.environ["JUPYTER_PATH"] = os.pathsep.join([own, *paths])
    os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")


_prefer_own_kernelspecs()

import ipykernel.kernelspec  # noqa: E402
import nbformat  # noqa: E402
from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402
from jupyter_client.manager import AsyncKernelManager  # noqa: E402
from nbclient import NotebookClient  # noqa: E402
from traitlets import default  # noqa: E402


class CurrentEnvKernelSpecManager(KernelSpecManager):
    """Whatever kernel the notebook names, run ipykernel with this interpreter (sys.executable)."""

    def get_kernel_spec(self, kernel_name):  # noqa: D102
        return self.kernel_spec_class(
            resource_dir=ipykernel.kernelspec.RESOURCES, **ipykernel.kernelspec.get_kernel_dict()
        )


class CurrentEnvKernelManager(AsyncKernelManager):
    """Kernel manager that starts ipykernel with this interpreter."""

    @default("kernel_spec_manager")
    def _kernel_spec_manager_default(self):
        return CurrentEnvKernelSpecManager(data_dir=self.data_dir)


def clean(nb) -> None:
    """Strip widget state and timing metadata; renumber execution counts in order."""
    nb.metadata.pop("widgets", None)
    nb.metadata.pop(WIDGET_STATE, None)
    count = 0
    for index, cell in enumerate(nb.cells):
        if "id" not in cell and nb.nbformat == 4 and nb.nbformat_minor >= 5:
            cell["id"] = f"cell-{index:03d}"
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        if cell.get("execution_count") is not None or cell.outputs:
            count += 1
            cell.execution_count = count
        for output in cell.outputs:
            data = output.get("data")
            if data is not None:
                data.pop(WIDGET_STATE, None)
                data.pop(WIDGET_VIEW, None)
            if "execution_count" in output:
                output["execution_count"] = cell.execution_count


def normalisation_problems(path: Path) -> list[str]:
    """Why the notebook at ``path`` is not in its committed form ([] when it is)."""
    text = path.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    problems = [
        f"code cell {i} never ran"
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and c.source.strip() and c.get("execution_count") is None
    ]
    clean(nb)
    normal = nbformat.writes(nb, version=4)
    if not normal.endswith("\n"):
        normal += "\n"
    if normal != text:
        problems.append(
            "not normalised (widget state, timestamps, ids or execution counts): "
            "run `make notebooks`"
        )
    return problems


def execute(path: Path, timeout: int) -> bool:
    """Execute one notebook in place; return True if the file changed."""
    before = path.read_text(encoding="utf-8")
    nb = nbformat.reads(before, as_version=4)
    client = NotebookClient(
        nb,
        kernel_name="python3",
        kernel_manager_class=CurrentEnvKernelManager,
        timeout=timeout,
        allow_errors=False,
        record_timing=False,
        resources={"metadata": {"path": str(path.parent.resolve())}},
    )
    client.execute()
    clean(nb)
    after = nbformat.writes(nb, version=4)
    if not after.endswith("\n"):
        after += "\n"
    if after != before:
        path.write_text(after, encoding="utf-8")
        return True
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path, help="notebooks to execute in place")
    parser.add_argument("--timeout", type=int, default=300, help="per-cell timeout in s (300)")
    parser.add_argument(
        "--check", action="store_true", help="execute nothing; fail if a notebook is not normalised"
    )
    args = parser.parse_args(argv)
    for path in args.notebooks:
        if not path.is_file():
            parser.error(f"no such notebook: {path}")
    if args.check:
        bad = {path: normalisation_problems(path) for path in args.notebooks}
        for path, problems in bad.items():
            for problem in problems:
                print(f"{path}: {problem}", file=sys.stderr)
        ok = not any(bad.values())
        print(f"{len(args.notebooks)} notebooks {'normalised' if ok else 'NOT normalised'}")
        return 0 if ok else 1
    for path in args.notebooks:
        start = time.perf_counter()
        print(f"executing {path} ...", flush=True)
        changed = execute(path, args.timeout)
        state = "updated" if changed else "unchanged"
        print(f"  {state} ({time.perf_counter() - start:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
