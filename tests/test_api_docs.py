"""book/_tools/api_docs.py: the docstring fixes of the API reference page (no Sphinx build)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser

import qring_edu

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_tools"))
import api_docs  # noqa: E402

SETTINGS = get_default_settings(Parser)


def test_bars_of_the_prose_are_escaped():
    lines = api_docs.escape_docstring(["The pair |Φ+⟩ = (|00⟩ + |11⟩)/√2 and |x - y| <= 1."])
    assert lines == [r"The pair \|Φ+⟩ = (\|00⟩ + \|11⟩)/√2 and \|x - y\| <= 1."]
    # Valid reStructuredText now (a bar pair is a substitution reference otherwise).
    assert api_docs._parses(lines[0], SETTINGS)
    assert not api_docs._parses("The pair (|00⟩ + |11⟩)/√2.", SETTINGS)


def test_literals_roles_doctests_and_literal_blocks_are_kept():
    lines = [
        "``|x| <= m``, :math:`|a|`, `|b|` and ``a`` stay; |c| does not",
        "",
        ">>> abs(-1)  # |x|",
        "1",
        "",
        "A block::",
        "",
        "    |kept|",
        "",
        "after |d|",
        r"already \|escaped\|",
    ]
    assert api_docs.escape_docstring(lines) == [
        r"``|x| <= m``, :math:`|a|`, `|b|` and ``a`` stay; \|c\| does not",
        "",
        ">>> abs(-1)  # |x|",
        "1",
        "",
        "A block::",
        "",
        "    |kept|",
        "",
        r"after \|d\|",
        r"already \|escaped\|",
    ]


@pytest.mark.parametrize(
    "lines, summary",
    [
        (["Pairs ``(i, j)`` of ``0 .. P-1``. More text."], "Pairs ``(i, j)`` of ``0 .. P-1``."),
        (["One line. Two."], "One line."),
        (
            ["", "First", "line continues. Next sentence.", "", "Second paragraph."],
            "First line continues.",
        ),
        (["No full stop"], "No full stop"),
    ],
)
def test_first_sentence_is_never_cut_inside_markup(lines, summary):
    assert api_docs.first_sentence(lines, SETTINGS) == summary


def test_relative_references_become_absolute():
    # In the docstring of qring_edu.ring_allreduce (documented under the package), a bare name
    # is looked up in the defining module first, then in the package's namespace.
    scopes = api_docs._scopes("qring_edu.ring_allreduce", qring_edu.ring_allreduce)
    assert scopes[0] == "qring_edu.ring" and scopes[-1] == "qring_edu"
    line = "see :func:`ring_schedule`, :func:`~chunk_bounds` and :func:`qring_edu.x`"
    assert api_docs._absolute_refs(line, scopes) == (
        "see :func:`ring_schedule <qring_edu.ring.ring_schedule>`, "
        ":func:`chunk_bounds <qring_edu.ring.chunk_bounds>` and :func:`qring_edu.x`"
    )
    # A method's scopes start with its class.
    scopes = api_docs._scopes("qring_edu.Ledger.online_bits", qring_edu.Ledger.online_bits)
    assert scopes[0] == "qring_edu.ledger.Ledger"
    assert (
        api_docs._absolute_refs(":meth:`ebits`", scopes)
        == ":meth:`ebits <qring_edu.ledger.Ledger.ebits>`"
    )
    # A figure module's docstring may name a protocol function the package re-exports.
    scopes = api_docs._scopes("qring_edu.figures.holevo.plot_dense_coding", lambda: None)
    assert (
        api_docs._absolute_refs(":func:`vga_epsilon`", scopes)
        == ":func:`vga_epsilon <qring_edu.vga_epsilon>`"
    )


def test_missing_paths_do_not_import():
    assert api_docs._import("qring_edu.ring.ring_allreduce") is qring_edu.ring_allreduce
    assert api_docs._import("qring_edu.figures.ring.plot_ring_state") is None  # no such module
    assert api_docs._import("qring_edu.no_such_name") is None


def test_module_docstrings_keep_their_first_paragraph_and_constants_lose_their_types_doc():
    lines = ["Summary line", "continued.", "", "Details", "-------", "more."]
    api_docs._process_docstring(None, "module", "qring_edu.x", qring_edu, {}, lines)
    assert lines == ["Summary line", "continued."]
    lines = (dict.__doc__ or "").splitlines()
    api_docs._process_docstring(None, "data", "qring_edu.x.COLOURS", {"a": 1}, {}, lines)
    assert lines == []
