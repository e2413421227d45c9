"""The claims table of ``book/claims.ipynb`` (presentation floor): pure functions
``list[Claim] -> str``, HTML for the page and Markdown for plain-text readers.

The rows come from :func:`qring_edu.experiments.claims.reproduce_claims`; nothing is computed here. Text is
HTML-escaped, and the output holds no TeX (``$`` or backslashes), so MathJax leaves it alone.
"""

from __future__ import annotations

import html
import re
from typing import Sequence

from ..experiments.claims import Claim

__all__ = ["claims_table_html", "claims_table_markdown", "chapter_label", "HEADERS"]

#: Column headers of the table (the chapter is shown under the claim, the caveat under the verdict).
HEADERS = ("Claim", "Paper's figure", "Computed by qring_edu", "Holds?")
_WIDTHS = ("22%", "21%", "33%", "24%")

_CELL = "padding:0.35em 0.5em;border-top:1px solid #ccc;vertical-align:top;text-align:left"


def chapter_label(doc: str) -> str:
    """``"06_alignment"`` -> ``"Chapter 6"`` (the leading number of a chapter notebook's name);
    other names are returned unchanged."""
    m = re.match(r"(\d+)_", doc)
    return f"Chapter {int(m.group(1))}" if m else doc


def _check_claims(claims: Sequence[Claim]) -> list[Claim]:
    if isinstance(claims, (str, bytes)) or not hasattr(claims, "__iter__"):
        raise TypeError(f"claims must be a sequence of Claim, got {type(claims).__name__}")
    rows = list(claims)
    for i, c in enumerate(rows):
        if not isinstance(c, Claim):
            raise TypeError(f"claims[{i}] must be a Claim, got {type(c).__name__}")
    return rows


def _verdict(c: Claim) -> str:
    return "yes" if c.holds else "no"


def claims_table_html(claims: Sequence[Claim]) -> str:
    """One ``<table>`` with a row per claim: the claim (numbered, with its chapter), the paper's
    figure, what the library computed, and whether it holds (with the caveat)."""
    rows = _check_claims(claims)
    esc = html.escape
    head = "".join(f'<th style="{_CELL}">{esc(h)}</th>' for h in HEADERS)
    body = []
    for i, c in enumerate(rows, start=1):
        mark = "&#10004;" if c.holds else "&#10008;"
        colour = "#1a7f37" if c.holds else "#a40000"
        verdict = f'<strong style="color:{colour}">{mark} {_verdict(c)}</strong>'
        if c.caveat:
            verdict += f'<br><span style="font-size:0.92em">{esc(c.caveat)}</span>'
        claim = (f"<strong>{i}. {esc(c.claim)}</strong>"
                 f'<br><span style="font-size:0.92em">{esc(chapter_label(c.chapter))}</span>')
        cells = (claim, esc(c.paper_figure), esc(c.computed), verdict)
        body.append("<tr>" + "".join(f'<td style="{_CELL}">{x}</td>' for x in cells) + "</tr>")
    cols = "".join(f'<col style="width:{w}">' for w in _WIDTHS)
    return ('<table class="table qring-claims" style="border-collapse:collapse;font-size:0.85em">'
            f"<colgroup>{cols}</colgroup><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def claims_table_markdown(claims: Sequence[Claim]) -> str:
    """The same table as GitHub-flavoured Markdown (one line per claim; ``|`` escaped)."""
    rows = _check_claims(claims)

    def cell(text: str) -> str:
        return " ".join(str(text).split()).replace("|", "\\|")

    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    for i, c in enumerate(rows, start=1):
        verdict = _verdict(c) + (f". {c.caveat}" if c.caveat else "")
        claim = f"{i}. {c.claim} ({chapter_label(c.chapter)})"
        lines.append("| " + " | ".join(cell(x) for x in (
            claim, c.paper_figure, c.computed, verdict)) + " |")
    return "\n".join(lines) + "\n"
