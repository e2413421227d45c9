"""Sphinx extension (``_config.yml``: ``sphinx.local_extensions``): the API reference page.

``book/api.md`` documents every public name of :mod:`qring_edu` with autodoc, autosummary and
napoleon (numpydoc sections). The library's docstrings are written to be read in ``help()`` as
much as on the page, in plain Unicode; this extension makes them valid reStructuredText without
changing what they say, and lets a reference name an object by any of its import paths:

* **Bars.** ``|Φ+⟩``, ``⟨a|b⟩`` and ``|x − y|`` are notation, not reStructuredText substitution
  references: every ``|`` of a docstring's prose is escaped. Inline literals, roles, doctest
  blocks and literal blocks are left as they are.
* **Module docstrings.** A module's docstring is the overview of its source file (sections,
  formulas, a module map); the page shows its first paragraph under the module's heading and the
  full documentation of every public name below it.
* **Constants.** A constant without a ``#:`` comment would show the docstring of its type (that
  of ``dict`` for a colour table); it shows its value only.
* **Annotations.** Result types and Qiskit/Matplotlib classes that a module imports for type
  checking only (``if TYPE_CHECKING:``) appear in its signatures as bare names
  (``AttackSweep``); they are written out as the full path of that import
  (``qring_edu.experiments.vga.AttackSweep``), so each links to the right entry even where two
  modules have a type of the same name.
* **Summaries.** The autosummary tables use the first sentence of each docstring, never cut inside
  an inline literal (see :class:`Autosummary`).
* **Import paths.** A name is documented once, under the path users import it from
  (``qring_edu.ring_allreduce`` for the names the package re-exports,
  ``qring_edu.links.fec_transmit`` for the others). A cross-reference to another path of the same
  object (``qring_edu.ring.ring_allreduce``, ``qring_edu.exercises.Feedback``, a name relative to
  the module that defines the docstring, or a name the package re-exports) resolves to that
  entry. Deprecated paths (a ``DeprecationWarning`` on access) do not resolve: the build fails on
  them, so the book never links an alias that is going away. A name without an entry of its
  own (a dataclass field, a module constant outside ``__all__``, a private helper) links to the
  entry of the class or module that holds it, provided the name exists there: a typo still
  fails the build.

Chapters link to an entry with ``{py:func}`qring_edu.ring_allreduce` `` (``py:class``,
``py:meth``, ``py:mod``, ``py:data`` alike; ``~`` shows the last name only).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
import warnings

from docutils import nodes
from docutils.parsers.rst.states import RSTStateMachine, state_classes
from docutils.utils import new_document
from sphinx.ext import autosummary
from sphinx.util.docutils import NullReporter

# Inline literals and roles (``code``, `text`, :role:`target`): left as written.
_INLINE = re.compile(r"``.+?``|(:[\w:.+-]+:)?`[^`]+`_{0,2}")


def _escape_bars(text: str) -> str:
    """``text`` with every ``|`` outside inline literals and roles escaped (escaped ones stay)."""
    out, last = [], 0
    for match in _INLINE.finditer(text):
        out.append(re.sub(r"(?<!\\)\|", r"\\|", text[last : match.start()]))
        out.append(match.group())
        last = match.end()
    out.append(re.sub(r"(?<!\\)\|", r"\\|", text[last:]))
    return "".join(out)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def escape_docstring(lines: list[str]) -> list[str]:
    """Escape the bars of a docstring's prose; doctest and literal blocks are kept verbatim.

    A doctest block is a paragraph starting with ``>>>``; a literal block is the indented block
    after a line ending in ``::`` (or a ``.. code-block::``-style directive).
    """
    out: list[str] = []
    doctest = False
    literal_indent: int | None = None  # indentation of the line that opened a literal block
    for line in lines:
        stripped = line.strip()
        if not stripped:
            doctest = False
            out.append(line)
            continue
        if literal_indent is not None:
            if _indent(line) > literal_indent:
                out.append(line)
                continue
            literal_indent = None
        if doctest or stripped.startswith(">>>"):
            doctest = True
            out.append(line)
            continue
        out.append(_escape_bars(line))
        if stripped.endswith("::") or re.match(
            r"\.\. (code-block|code|math|literalinclude)::", stripped
        ):
            literal_indent = _indent(line)
    return out


_ROLE = re.compile(r":(func|class|meth|data|attr|obj|exc|mod):`(~?)([\w.]+)`")


def _scopes(name: str, obj) -> list[str]:
    """Where a relative reference in the docstring of ``obj`` (documented as ``name``) points:
    the class that defines it (for a method or attribute), the module that defines it, the
    module it is documented under, and last the package's own namespace (its re-exported
    names, such as ``ghz_test_circuit`` in a figure module's docstring)."""
    scopes = []
    home = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if isinstance(home, str) and isinstance(qualname, str):
        parts = qualname.split(".")
        if isinstance(obj, type):
            scopes.append(f"{home}.{qualname}")
        if len(parts) > 1:
            scopes.append(f"{home}.{'.'.join(parts[:-1])}")
        scopes.append(home)
    parent = name.rsplit(".", 1)[0]
    scopes += [parent, parent.rsplit(".", 1)[0], "qring_edu"]
    return [s for i, s in enumerate(scopes) if s.startswith("qring_edu") and s not in scopes[:i]]


def _absolute_refs(line: str, scopes: list[str]) -> str:
    """Relative ``:role:`name``` references of ``line`` made absolute (their text unchanged)."""

    def absolute(match: re.Match) -> str:
        role, tilde, target = match.groups()
        if target.startswith("qring_edu"):
            return match.group()
        for scope in scopes:
            if _import(f"{scope}.{target}") is not None:
                title = target.rsplit(".", 1)[-1] if tilde else target
                return f":{role}:`{title} <{scope}.{target}>`"
        return match.group()

    return _ROLE.sub(absolute, line)


# Lines of each docstring as they were before napoleon (see _reparse_attribute).
_BEFORE_NAPOLEON: dict[int, list[str]] = {}


def _process_docstring(app, what, name, obj, options, lines) -> None:
    if what == "module":
        # The first paragraph only (see the module docstring).
        end = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
        del lines[end:]
    elif what in ("data", "attribute") and lines:
        type_doc = type(obj).__doc__
        type_doc = " ".join(type_doc.split()) if isinstance(type_doc, str) else ""
        if type_doc and " ".join(" ".join(lines).split()) == type_doc:
            del lines[:]
    scopes = _scopes(name, obj)
    lines[:] = [_absolute_refs(line, scopes) for line in escape_docstring(lines)]
    if what in ("data", "attribute", "property"):
        _BEFORE_NAPOLEON[id(lines)] = list(lines)


def _reparse_attribute(app, what, name, obj, options, lines) -> None:
    """Napoleon reads the first line of a data, attribute or property docstring as
    ``type: description``; the library's are prose (``Default size of the classifier: ...``), so
    they are parsed as ordinary docstrings (their sections, e.g. Examples, still converted)."""
    before = _BEFORE_NAPOLEON.pop(id(lines), None)
    if before is not None:
        from sphinx.ext.napoleon import NumpyDocstring

        lines[:] = NumpyDocstring(before, app.config, app, "", "", obj, options).lines()


_TYPE_CHECKING_NAMES: dict[str, dict[str, str]] = {}


def type_checking_names(module_name: str) -> dict[str, str]:
    """``{bare name: full path}`` of the names ``module_name`` imports under ``TYPE_CHECKING``."""
    if module_name not in _TYPE_CHECKING_NAMES:
        names: dict[str, str] = {}
        module = sys.modules.get(module_name)
        try:
            tree = ast.parse(inspect.getsource(module)) if module is not None else None
        except (OSError, TypeError):
            tree = None
        for node in tree.body if tree is not None else []:
            test = getattr(node, "test", None)
            if not (
                isinstance(node, ast.If)
                and (
                    (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
                    or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
                )
            ):
                continue
            for imp in ast.walk(node):
                if isinstance(imp, ast.ImportFrom):
                    base = module_name.rsplit(".", imp.level)[0] + "." if imp.level else ""
                    source = base + (imp.module or "") if imp.module else base.rstrip(".")
                    for alias in imp.names:
                        names[alias.asname or alias.name] = f"{source}.{alias.name}"
        _TYPE_CHECKING_NAMES[module_name] = names
    return _TYPE_CHECKING_NAMES[module_name]


def qualify_annotations(text: str | None, module_name: str) -> str | None:
    """``text`` (a signature or return annotation) with the type-checking-only names of
    ``module_name`` replaced by their full paths."""
    names = type_checking_names(module_name)
    if not text or not names:
        return text
    return re.sub(
        r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")(?![\w])",
        lambda m: names[m.group(1)],
        text,
    )


def _process_signature(app, what, name, obj, options, signature, return_annotation):
    module_name = getattr(obj, "__module__", None)
    if not isinstance(module_name, str) or not module_name.startswith("qring_edu"):
        return None
    return (
        qualify_annotations(signature, module_name),
        qualify_annotations(return_annotation, module_name),
    )


def _import(path: str):
    """The object at dotted ``path`` (module, then attributes); None if there is none, or if the
    path is deprecated."""
    parts = path.split(".")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except (ImportError, DeprecationWarning):
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except (AttributeError, DeprecationWarning):
                return None
            return obj
    return None


def _documented(env) -> dict[str, list[str]]:
    """``last name component -> documented names`` of the library's objects on the page."""
    if not _DOCUMENTED:
        for name, entry in env.get_domain("py").objects.items():
            if name.startswith("qring_edu") and not entry.aliased:
                _DOCUMENTED.setdefault(name.rsplit(".", 1)[-1], []).append(name)
    return _DOCUMENTED


# Filled on the first missing reference, once every page has been read.
_DOCUMENTED: dict[str, list[str]] = {}


def _home(path: str, env) -> str | None:
    """The documented name of the object at ``path``: same last name, same object."""
    obj = _import(path)
    if obj is None:
        return None
    for name in _documented(env).get(path.rsplit(".", 1)[-1], []):
        if _import(name) is obj:
            return name
    return None


def _resolve(app, env, node, contnode):
    target = node.get("reftarget", "").lstrip(".~")
    if node.get("refdomain") != "py" or not target.startswith("qring_edu"):
        return None
    parts = target.split(".")
    domain = env.get_domain("py")
    # The longest prefix that is a documented object, then the rest (a method, a field).
    for cut in range(len(parts), 1, -1):
        home = _home(".".join(parts[:cut]), env)
        if home is None:
            continue
        name = ".".join([home, *parts[cut:]])
        for typ in (node["reftype"], "obj"):
            ref = domain.resolve_xref(
                env, node.get("refdoc", ""), app.builder, typ, name, node, contnode
            )
            if ref is not None:
                return ref
        # No entry of its own (a dataclass field, a constant outside __all__, a private
        # helper): the entry that holds it, if the name exists there.
        if cut < len(parts) and _import(target) is not None or _exists(target):
            kind = "mod" if inspect.ismodule(_import(home)) else "class"
            return domain.resolve_xref(
                env, node.get("refdoc", ""), app.builder, kind, home, node, contnode
            )
        return None
    return None


def _exists(path: str) -> bool:
    """Whether ``path`` names an attribute or a dataclass field (fields with no default are not
    class attributes) of an importable object."""
    parent, _, attr = path.rpartition(".")
    owner = _import(parent)
    if owner is None:
        return False
    if hasattr(owner, attr):
        return True
    fields = getattr(owner, "__dataclass_fields__", {})
    return attr in fields or attr in getattr(owner, "__annotations__", {})


def _missing_reference(app, env, node, contnode):
    try:
        return _resolve(app, env, node, contnode)
    except Exception:  # a reference we cannot map stays missing: Sphinx reports it
        return None


def _parses(text: str, settings) -> bool:
    """Whether ``text`` is reStructuredText without errors (unclosed literals, emphasis...)."""
    machine = RSTStateMachine(state_classes, "Body")
    document = new_document("", settings)
    document.reporter = NullReporter()
    machine.run([text], document)
    return not any(document.findall(nodes.system_message))


def first_sentence(lines: list[str], settings) -> str:
    """The first sentence of the first paragraph of ``lines``: up to the first ``". "`` that
    does not fall inside inline markup (``0 .. P-1`` in a literal is not the end of a sentence)."""
    paragraph = []
    for line in lines:
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(line.strip())
    text = " ".join(paragraph)
    pieces = re.split(r"\.\s+", text)
    for i in range(1, len(pieces)):
        candidate = ". ".join(pieces[:i]).rstrip(".") + "."
        if _parses(candidate, settings):
            return candidate
    return text


class Autosummary(autosummary.Autosummary):
    """``autosummary`` whose summary is never cut inside inline markup.

    Sphinx 7.4's ``extract_summary`` checks the whole docstring instead of the candidate sentence
    for broken markup, so a first sentence such as "Pairs ``(i, j)`` in ``0 .. P-1``." is cut after
    ``0 .`` and the table shows an unclosed literal (a warning, so a failed strict build).
    """

    def get_items(self, names):
        items = []
        for display, sig, summary, real in super().get_items(names):
            if summary and not _parses(summary, self.state.document.settings):
                doc = inspect.getdoc(_import(real)) or ""
                summary = first_sentence(
                    escape_docstring(doc.splitlines()), self.state.document.settings
                )
            items.append((display, sig, summary, real))
        return items


def setup(app):
    app.setup_extension("sphinx.ext.autosummary")
    app.add_directive("autosummary", Autosummary, override=True)
    # Before napoleon (priority 500): napoleon then reads the escaped docstring.
    app.connect("autodoc-process-docstring", _process_docstring, priority=400)
    app.connect("autodoc-process-docstring", _reparse_attribute, priority=600)
    app.connect("autodoc-process-signature", _process_signature)
    app.connect("missing-reference", _missing_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
