"""The claims table of ``book/claims.ipynb`` (presentation floor): pure functions
``list[Claim] -> str``, the HTML of the page.

The rows come from :func:`qring_edu.experiments.claims.reproduce_claims`; nothing is computed here.
The verdict column is colour-coded (:data:`VERDICT_STYLE`: a mark, a colour and a CSS class per
verdict) and carries the reason and the caveat. Text is HTML-escaped, and the output holds no TeX
(``$`` or backslashes), so MathJax leaves it alone.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from ..experiments.claims import VERDICTS, Claim

__all__ = [
    "claims_table_html",
    "chapter_label",
    "claim_origin",
    "verdict_label",
    "HEADERS",
    "VERDICT_STYLE",
]

#: Column headers of the table (the chapter is shown under the claim; the reason and the caveat
#: under the verdict).
HEADERS = ("Claim", "Paper's figure", "Computed by qring_edu", "Verdict")
_WIDTHS = ("18%", "18%", "34%", "30%")

#: Per verdict: (mark, colour, CSS class). The marks are in the PDF's fonts; the colours read on
#: light and dark backgrounds.
VERDICT_STYLE = {
    "holds": ("\u2714", "#1a7f37", "qring-verdict-holds"),  # ✔
    "partly": ("\u25d0", "#b35c00", "qring-verdict-partly"),  # ◐
    "not established": ("\u25cb", "#57606a", "qring-verdict-open"),  # ○
    "does not hold": ("\u2718", "#c62828", "qring-verdict-fails"),  # ✘
}

_CELL = "padding:0.35em 0.5em;border-top:1px solid #ccc;vertical-align:top;text-align:left"


def chapter_label(doc: str) -> str:
    """``"07_gapip"`` -> ``"Chapter 7"`` (the leading number of a chapter notebook's name);
    other names are returned unchanged.

    Examples
    --------
    >>> chapter_label("05_vga"), chapter_label("claims")
    ('Chapter 5', 'claims')
    """
    m = re.match(r"(\d+)_", doc)
    return f"Chapter {int(m.group(1))}" if m else doc


def claim_origin(claim: Claim) -> str:
    """Where a row comes from, under the claim: its chapter, and for a question the book asks
    (``source == "book"``) that it is not a claim of the paper.

    Examples
    --------
    >>> from qring_edu.experiments.claims import noisy_claim
    >>> claim_origin(noisy_claim())
    "Chapter 4 · the book's question, not a claim of the paper"
    """
    if not isinstance(claim, Claim):
        raise TypeError(f"claim must be a Claim, got {type(claim).__name__}")
    book = " · the book's question, not a claim of the paper" if claim.source == "book" else ""
    return chapter_label(claim.chapter) + book


def verdict_label(verdict: str) -> str:
    """The verdict with its mark, e.g. ``"◐ partly"``.

    Examples
    --------
    >>> verdict_label("holds")
    '✔ holds'
    """
    if verdict not in VERDICT_STYLE:
        raise ValueError(
            f"verdict must be one of {', '.join(map(repr, VERDICTS))}, got {verdict!r}"
        )
    return f"{VERDICT_STYLE[verdict][0]} {verdict}"


def _check_claims(claims: Sequence[Claim]) -> list[Claim]:
    if isinstance(claims, (str, bytes)) or not hasattr(claims, "__iter__"):
        raise TypeError(f"claims must be a sequence of Claim, got {type(claims).__name__}")
    rows = list(claims)
    for i, c in enumerate(rows):
        if not isinstance(c, Claim):
            raise TypeError(f"claims[{i}] must be a Claim, got {type(c).__name__}")
    return rows


def claims_table_html(claims: Sequence[Claim]) -> str:
    """One ``<table>`` with a row per claim: the claim (numbered, with its chapter), the paper's
    figure, what the library computed, and the verdict (colour-coded, with the reason when it is
    not "holds", then the caveat).

    Examples
    --------
    >>> from qring_edu.experiments.claims import reproduce_claims
    >>> html = claims_table_html(reproduce_claims(keys=["halving", "lifetime"]))
    >>> html.startswith("<table"), html.count("<tr")              # a header row and two claims
    (True, 3)
    """
    rows = _check_claims(claims)
    esc = html.escape
    head = "".join(f'<th style="{_CELL}">{esc(h)}</th>' for h in HEADERS)
    body = []
    for i, c in enumerate(rows, start=1):
        _, colour, css = VERDICT_STYLE[c.verdict]
        verdict = (
            f'<strong class="qring-verdict {css}" style="color:{colour}">'
            f"{esc(verdict_label(c.verdict))}</strong>"
        )
        if c.reason:
            verdict += f"<br><span>{esc(c.reason)}</span>"
        if c.caveat:
            verdict += f'<br><span style="font-size:0.92em"><em>Caveat.</em> {esc(c.caveat)}</span>'
        claim = (
            f"<strong>{i}. {esc(c.claim)}</strong>"
            f'<br><span style="font-size:0.92em">{esc(claim_origin(c))}</span>'
        )
        cells = "".join(
            f'<td style="{_CELL}">{x}</td>'
            for x in (claim, esc(c.paper_figure), esc(c.computed), verdict)
        )
        body.append(f'<tr class="{css}">{cells}</tr>')
    cols = "".join(f'<col style="width:{w}">' for w in _WIDTHS)
    return (
        '<table class="table qring-claims" style="border-collapse:collapse;font-size:0.85em">'
        f"<colgroup>{cols}</colgroup><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )
