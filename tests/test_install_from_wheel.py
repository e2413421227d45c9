"""The intro's and README's instructions, followed from the wheel in a clean virtualenv.

A reader downloads a chapter's ``.ipynb`` and the library's wheel from the HTML book and runs
``%pip install "<wheel>[notebooks]"`` in Jupyter or Colab. Here, in a fresh virtualenv that sees
nothing of this repository:

1. the wheel alone (``pip install <wheel>``) brings NumPy and SciPy, and ``import qring_edu`` and
   a fast path work without Qiskit or matplotlib;
2. with the ``notebooks`` extra (and what any Jupyter brings: a kernel) a chapter notebook, copied
   alone into an empty folder, runs top to bottom on that install.

Packages come from pip's usual configuration with the project's pins (the public-index question is
``make check-install``'s); the wheel is the one ``make dist`` built, or is built here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / ".ci" / "constraints.txt"
CHAPTER = ROOT / "book" / "01_bottleneck.ipynb"


def _wheel_name() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return f"{project['name']}-{project['version']}-py3-none-any.whl"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    built = ROOT / "dist" / _wheel_name()
    if built.is_file():
        return built
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--quiet", "--outdir", out],
        cwd=ROOT,
        check=True,
    )
    return out / _wheel_name()


def _clean_env() -> dict[str, str]:
    """The environment of a reader's Jupyter: nothing pointing into this repository."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"PYTHONPATH", "JUPYTER_PATH", "VIRTUAL_ENV", "PYTHONHOME"}
    }
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(args, cwd: Path, timeout: float = 900, **env) -> str:
    proc = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env={**_clean_env(), **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, f"{' '.join(map(str, args))} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_a_chapter_runs_from_the_wheel_in_a_clean_virtualenv(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, clear=True)
    py = env_dir / "bin" / "python"
    work = tmp_path / "work"  # the folder the reader downloaded the notebook into
    work.mkdir()
    pip = [py, "-m", "pip", "install", "--quiet", "-c", CONSTRAINTS]

    # 1. The wheel alone: NumPy and SciPy, the fast paths, no Qiskit.
    _run([*pip, wheel], work)
    out = _run(
        [
            py,
            "-c",
            "import importlib.util as u, qring_edu as qr\n"
            "r = qr.ring_allreduce([[1, 2, 3], [4, 5, 6]], transport='superdense')\n"
            "print(r.outputs[0].tolist(), qr.__file__)\n"
            "print([m for m in ('qiskit', 'matplotlib', 'ipywidgets', 'torch') if u.find_spec(m)])",
        ],
        work,
    )
    first, second = out.strip().splitlines()
    assert first.startswith("[5, 7, 9]")
    assert str(env_dir) in first, "qring_edu was not imported from the virtualenv's install"
    assert second == "[]", f"the bare wheel pulled in {second}"

    # 2. The intro's line, %pip install "<wheel>[notebooks]", plus the kernel any Jupyter has.
    _run([*pip, f"{wheel}[notebooks]", "ipykernel", "nbclient"], work)
    shutil.copy(CHAPTER, work / CHAPTER.name)
    _run(
        [
            py,
            "-c",
            "import sys, nbformat, nbclient\n"
            "nb = nbformat.read(sys.argv[1], as_version=4)\n"
            "nbclient.NotebookClient(nb, timeout=600, kernel_name='python3',"
            " resources={'metadata': {'path': '.'}}).execute()\n"
            "print('ran', sum(c.cell_type == 'code' for c in nb.cells), 'code cells')",
            CHAPTER.name,
        ],
        work,
        # the virtualenv's own kernel, whatever kernels this machine has elsewhere
        JUPYTER_PATH=str(env_dir / "share" / "jupyter"),
    )
