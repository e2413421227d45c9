"""Sphinx extension (``_config.yml``: ``sphinx.local_extensions``): how a reader gets the code.

Links in the book must lead somewhere. Two settings decide which ones exist:

* ``repository.url`` in ``_config.yml`` (Jupyter Book passes it on as the theme option
  ``repository_url``): where the project's repository is published. Empty by default. While it
  is empty the book has no Binder or Colab launch button (they would open a repository that
  does not exist) and no install line that names it. When it is given, every chapter page gets
  Binder and Colab buttons for that repository, and the Sphinx tag ``repository`` is set, so
  ``{only} repository`` blocks (the intro's) appear.
* ``QRING_PDF_LINK=1`` in the environment (set by ``make book`` and ``make test`` when they
  also build the PDF): the tag ``pdf`` is set, so the link to ``qring_edu.pdf`` appears only in a
  book that ships it.

Every chapter page keeps its ``.ipynb`` download (the theme's download button). The HTML book
ships the library's wheel: ``make dist`` builds it into ``dist/`` and this extension copies it
into the output, next to ``index.html``. Roles for the pages:

* ``{wheel}`\\`wheel\\``` a link to the wheel (its file name as text);
* ``{install-line}`\\`wheel\\``` the ``%pip install`` line for the wheel, as code;
* ``{install-line}`\\`repository\\``` the ``%pip install`` line from the repository (only
  inside ``{only} repository``).
"""

from __future__ import annotations

import os
import shutil
import tomllib
from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.util import logging

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
HTML_BUILDERS = ("html", "dirhtml", "singlehtml")
#: The extra that brings what the chapter notebooks import besides the library's core.
EXTRA = "notebooks"
logger = logging.getLogger(__name__)


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def wheel_name() -> str:
    """File name of the library's pure-Python wheel for the version in pyproject.toml."""
    p = _project()
    return f"{p['name'].replace('-', '_')}-{p['version']}-py3-none-any.whl"


def repository_url(config) -> str:
    return str((config.html_theme_options or {}).get("repository_url") or "").strip()


def _config_inited(app, config) -> None:
    url = repository_url(config)
    if url:
        app.tags.add("repository")
    else:  # no launch button to a repository that is not published
        config.html_theme_options["launch_buttons"] = {}
    if os.environ.get("QRING_PDF_LINK") == "1":
        app.tags.add("pdf")


def _builder_inited(app) -> None:
    if app.builder.name in HTML_BUILDERS and not (DIST / wheel_name()).is_file():
        raise ExtensionError(
            f"the HTML book ships the library's wheel, and dist/{wheel_name()} is missing: "
            "run `make dist` first (`make book` does)"
        )


def _copy_wheel(app, exception) -> None:
    if exception is None and app.builder.name in HTML_BUILDERS:
        shutil.copy2(DIST / wheel_name(), Path(app.outdir) / wheel_name())


def _wheel_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    env = inliner.document.settings.env
    fname = wheel_name()
    if env.app.builder.name not in HTML_BUILDERS:  # the PDF does not ship the wheel
        return [nodes.literal(fname, fname)], []
    # Pages live in book/; the wheel sits at the root of the output.
    depth = env.docname.count("/")
    uri = "../" * depth + fname
    ref = nodes.reference(rawtext, "", refuri=uri, classes=["qring-download"])
    ref += nodes.literal(fname, fname)
    return [ref], []


def _install_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    env = inliner.document.settings.env
    if text == "wheel":
        line = f'%pip install "{wheel_name()}[{EXTRA}]"'
    elif text == "repository":
        # Roles inside an excluded {only} block are still parsed: without a URL this line is
        # never shown (the intro keeps it inside {only} repository; tests check the built book).
        url = repository_url(env.config) or "<repository.url of _config.yml>"
        line = f'%pip install "{_project()["name"]}[{EXTRA}] @ git+{url}"'
    else:
        msg = inliner.reporter.error(
            f"{{install-line}} takes 'wheel' or 'repository', got {text!r}", line=lineno
        )
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    return [nodes.literal(line, line, classes=["qring-install-line"])], []


def setup(app):
    app.connect("config-inited", _config_inited)
    app.connect("builder-inited", _builder_inited)
    app.connect("build-finished", _copy_wheel)
    app.add_role("wheel", _wheel_role)
    app.add_role("install-line", _install_role)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
