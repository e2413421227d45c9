"""Does the pinned install resolve on the public package index alone? (run by ``make test``)

A reader's machine has only the public index (PyPI). Ours carry local wheels and extra indexes in
pip's configuration (``pip config list``), so a green CI does not prove that the README's
commands work elsewhere. This check asks pip with its configuration switched off
(``PIP_CONFIG_FILE=/dev/null``, every ``PIP_*`` variable removed: no find-links, no extra index):

1. for every pin ``name==version`` of the constraints file, whether the index lists that release
   (PEP 691 JSON "simple" API; a local build such as ``2.13.0+cpu`` is never on a public index);
2. whether the whole pinned install resolves: ``pip install --dry-run --ignore-installed -c
   <constraints> -e ".[<every extra>]"`` (nothing is installed).

It prints every pin that is missing and pip's own error for a failed resolution, and exits 1 if
either step failed. Usage::

    python .ci/check_install.py [--constraints .ci/constraints.txt] [--index https://pypi.org/simple]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROGRESS = re.compile(
    r"^\s*(Obtaining|Collecting|Downloading|Using cached|Requirement already|Preparing|Installing"
    r"|Getting requirements|Checking|Building|Created|Stored|Looking|INFO:|  Found|  Link)"
)
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)")


def pins(constraints: Path) -> list[tuple[str, str]]:
    """The ``name==version`` lines of a constraints file, in order."""
    found = []
    for line in constraints.read_text(encoding="utf-8").splitlines():
        m = PIN.match(line.strip())
        if m:
            found.append((m.group(1), m.group(2)))
    return found


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()  # PEP 503


def isolated_env() -> dict[str, str]:
    """This process's environment without pip's configuration: no config file, no PIP_* variable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def listed_versions(index: str, name: str) -> set[str] | None:
    """Versions of ``name`` on the index (None if the index does not know the project)."""
    url = f"{index.rstrip('/')}/{normalise(name)}/"
    req = urllib.request.Request(url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            data = json.load(resp)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise
    return set(data.get("versions", []))


def same_version(a: str, b: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


def missing_pins(index: str, pinned: list[tuple[str, str]]) -> list[str]:
    problems = []
    for name, version in pinned:
        versions = listed_versions(index, name)
        if versions is None:
            problems.append(f"{name}=={version}: the index has no project {name!r}")
        elif not any(same_version(version, v) for v in versions):
            local = " (a local build: the part after '+' names a wheel outside the index)"
            problems.append(
                f"{name}=={version}: no such release on the index"
                + (local if "+" in version else "")
            )
    return problems


def extras() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return sorted(project.get("optional-dependencies", {}))


def resolve(index: str, constraints: Path) -> str | None:
    """pip's error if the full pinned install does not resolve, else None."""
    target = f".[{','.join(extras())}]"
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--dry-run",
        "--ignore-installed",
        "--progress-bar",
        "off",
        "--index-url",
        index,
        "-c",
        str(constraints),
        "-e",
        target,
    ]
    proc = subprocess.run(cmd, cwd=ROOT, env=isolated_env(), capture_output=True, text=True)
    if proc.returncode == 0:
        return None
    # pip's explanation without its progress lines ("Collecting ...", "Downloading ...").
    lines = [
        ln
        for ln in (proc.stdout + proc.stderr).splitlines()
        if ln.strip() and not PROGRESS.match(ln)
    ]
    return f"pip install --dry-run -c {constraints.name} -e '{target}' failed:\n" + "\n".join(
        "    " + ln for ln in lines[-25:]
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--constraints", type=Path, default=ROOT / ".ci" / "constraints.txt")
    ap.add_argument("--index", default="https://pypi.org/simple")
    args = ap.parse_args(argv)
    pinned = pins(args.constraints)
    if not pinned:
        print(f"error: no name==version pins in {args.constraints}", file=sys.stderr)
        return 1
    problems = missing_pins(args.index, pinned)
    error = resolve(args.index, args.constraints)
    if error:
        problems.append(error)
    if problems:
        print(f"The pinned install does not resolve on {args.index} alone:", file=sys.stderr)
        for p in problems:
            print(f"  - {p}", file=sys.stderr)
        return 1
    print(f"{len(pinned)} pins of {args.constraints.name} resolve on {args.index} alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
