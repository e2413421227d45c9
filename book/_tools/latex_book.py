"""Sphinx extension (``_config.yml``: ``sphinx.local_extensions``): the PDF of the book.

``make pdf`` builds the book with Sphinx's LaTeX builder (through sphinx-jupyterbook-latex) and
compiles it with XeLaTeX. This extension does what the LaTeX side needs beyond the settings in
``_config.yml``; the HTML builders are not affected (every transform below is LaTeX-only):

* **Preamble.** The bra-ket macros are those of ``mathjax3_config`` in ``_config.yml``, written
  as LaTeX definitions, so they are defined once for both outputs. Greek letters in section
  titles become Unicode characters in the PDF bookmarks. ``✘``/``✔`` (the checkers' feedback,
  the claims table) come from DejaVu Sans, as DejaVu Serif has no dingbats, and otter-grader's
  ``❌``/``✅`` (no DejaVu font has them) are set as ``✗``/``✔``. The bibliography is
  typeset inside the chapter that holds the ``{bibliography}`` directive, instead of opening a
  chapter "Bibliography" of its own after it.
* **Class.** ``qringbook.cls`` (next to this file) replaces sphinx-jupyterbook-latex's
  ``jupyterBook.cls``, which needs packages the book does not use (see the class file).
* **HTML outputs.** The LaTeX builder cannot show ``text/html``, so by default a cell output
  that has nothing better than ``text/plain`` besides its HTML shows the plain text: for a widget
  its one-line repr, for a checker ``Feedback(...)``, for the claims table
  ``<IPython.core.display.HTML object>``. Such HTML is converted to document nodes instead:
  paragraphs, emphasis, lists, tables, and images embedded as ``data:`` URIs. An HTML output
  with exactly one image (a widget's static preview of its default state) becomes a figure: the
  image, its first paragraph (the widget's title) as caption, the rest as legend.
* **Numbering.** The chapters ``_toc.yml`` numbers (a part with ``numbered: true``) are
  numbered 1, 2, ... as in the HTML book; every other page of the table of contents
  (introduction, chapter 0, reference pages, instructor guide, assignments) is an unnumbered
  chapter. A part (``parts:``) is a LaTeX ``\\part``. A page listed
  under a chapter in ``_toc.yml`` (``sections:``, e.g. ``book/03_training``) is a section of that
  chapter and shares its number, whatever its file name.
* **HTML-only pages.** The pages listed in ``qring_latex_exclude`` (``_config.yml``: the API
  reference) are left out of the PDF, which is the book; a link to them becomes its text.
* **Try it.** A chapter's "**Try it.**" prompt asks the reader to move an explorer's controls,
  which only the HTML book and the notebook have; the PDF shows the explorer's default picture,
  so there the prompt's heading says where the controls are (:data:`WHERE_TO_TRY`).
* **Solutions.** Every ``{solution}`` (a collapsed dropdown in HTML) moves to a chapter
  "Solutions to the exercises" placed before the references, one section per chapter; each
  exercise gets a link to the page of its solution, and each solution's title links back.
"""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

from docutils import nodes
from sphinx import addnodes
from sphinx.errors import ExtensionError
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

_HERE = Path(__file__).resolve().parent
logger = logging.getLogger(__name__)

SOLUTIONS_TITLE = "Solutions to the exercises"
#: What the PDF adds to the heading of a "Try it" prompt (tests/pdf reads it back).
WHERE_TO_TRY = "(in the HTML book or the notebook)"
SOLUTIONS_DOCNAME = "_qring_solutions"
# Folder (inside the LaTeX output folder) for images decoded from HTML outputs.
HTML_IMAGES = "html_images"

_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
    "tau": "τ", "upsilon": "υ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ",
    "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}  # fmt: skip
# Symbols DejaVu Serif (the text font) lacks, set in DejaVu Sans; the two emoji that otter-grader
# prints (no DejaVu font has them) as the closest dingbats.
_SANS_SYMBOLS = {"✓": "✓", "✔": "✔", "✗": "✗", "✘": "✘", "⚠": "⚠", "❌": "✗", "✅": "✔"}

_PREAMBLE = r"""
% --- book/_tools/latex_book.py ---
\makeatletter
% Unnumbered and numbered chapters (see BookStructure): secnumdepth -1 turns numbering off,
% the saved value turns it back on.
\newcounter{qring@secnumdepth}
\setcounter{qring@secnumdepth}{\value{secnumdepth}}
\newcommand{\qringunnumbered}{\setcounter{secnumdepth}{-1}}
\newcommand{\qringnumbered}{\setcounter{secnumdepth}{\value{qring@secnumdepth}}}
% The bibliography continues the current chapter (report's thebibliography would open its own
% \chapter*{Bibliography}; drop that heading).
\renewenvironment{sphinxthebibliography}[1]
  {\begingroup\def\chapter##1##2{}\let\@mkboth\@gobbletwo\begin{thebibliography}{#1}}
  {\end{thebibliography}\endgroup}
\makeatother
% Sphinx heads every continued longtable with "Table N -- continued from previous page"; the
% book's tables have no caption, hence no number: keep only "continued from previous page".
\protected\def\sphinxtablecontinued#1{{\def\tablename{}\def\thetable{}\def\textendash{}%
  \def\ {}\textsf{\ignorespaces#1}}}
% Exercise and solution boxes start on a new page rather than leave their title bar alone at
% the foot of one (\qringkeep before each, see BookStructure).
\usepackage{needspace}
% Figures, tables and equations numbered within their numbered chapter ("Fig. 3.2"), as in the
% HTML book (see _number_as_html); after sphinx.sty's own setting, made at \begin{document}.
\AtBeginDocument{%
  \counterwithin*{figure}{chapter}\counterwithin*{table}{chapter}%
  \counterwithin*{equation}{chapter}%
  \def\qringprefix{\ifnum\value{chapter}>0 \arabic{chapter}.\fi}%
  \def\thefigure{\qringprefix\arabic{figure}}\def\thetable{\qringprefix\arabic{table}}%
  \def\theequation{\qringprefix\arabic{equation}}}
\newcommand{\qringkeep}{\needspace{6\baselineskip}}
\usepackage{newunicodechar}
\newfontfamily\qringsymbolfont{DejaVu Sans}
"""


def _number_as_html(app) -> None:
    """Exercises, figures and equations numbered "chapter.n", as in the HTML book.

    With ``parts:`` in ``_toc.yml``, sphinx-jupyterbook-latex sets ``numfig_secnum_depth`` to 2
    for LaTeX, which numbers exercises by chapter *and section* ("Exercise 1.10.3" where the HTML
    says "Exercise 1.3"). Back at 1, Sphinx no longer resets LaTeX's figure and equation counters
    at each chapter; the preamble does (``\\counterwithin``, see ``_PREAMBLE``).
    """
    if app.builder.format == "latex" and app.config.numfig_secnum_depth > 1:
        app.config.numfig_secnum_depth = 1


def _latex_macro(name: str, spec) -> str:
    """One MathJax 3 macro (``'body'`` or ``['body', nargs]``) as a LaTeX definition."""
    body, nargs = (spec, 0) if isinstance(spec, str) else (spec[0], int(spec[1]))
    args = f"[{nargs}]" if nargs else ""
    # \providecommand + \renewcommand: define it whether or not the class already has one.
    return f"\\providecommand{{\\{name}}}{{}}\\renewcommand{{\\{name}}}{args}{{{body}}}"


def _configure_latex(app, config) -> None:
    # Our class instead of sphinx-jupyterbook-latex's jupyterBook.cls (see qringbook.cls).
    config.latex_theme = "qringbook"
    config.latex_additional_files = [*config.latex_additional_files, str(_HERE / "qringbook.cls")]
    macros = (config.mathjax3_config or {}).get("tex", {}).get("macros", {})
    lines = [_PREAMBLE, "% bra-ket macros of _config.yml's mathjax3_config"]
    lines += [_latex_macro(name, spec) for name, spec in macros.items()]
    # PDF bookmarks are plain text: Greek letters in section titles become Unicode characters
    # (hyperref's psdextra would read unicode-math's \varepsilon as a character code and stop).
    greek = "".join(f"\\def\\{name}{{{char}}}" for name, char in _GREEK.items())
    lines.append(f"\\pdfstringdefDisableCommands{{{greek}}}")
    lines += [
        f"\\newunicodechar{{{c}}}{{{{\\qringsymbolfont {g}}}}}" for c, g in _SANS_SYMBOLS.items()
    ]
    elements = dict(config.latex_elements)
    elements["preamble"] = elements.get("preamble", "") + "\n".join(lines) + "\n"
    config.latex_elements = elements


# ---------------------------------------------------------------------------------------------
# HTML outputs -> document nodes


class _HTMLToNodes(HTMLParser):
    """Convert a fragment of simple HTML (what our outputs contain) into docutils nodes.

    Block elements (``p``, ``div``, ``li``, table cells, ...) become paragraphs, lists and tables;
    ``b``/``strong``, ``i``/``em``, ``code``, ``sub``/``sup`` become inline markup; ``img`` with a
    ``data:image/png`` or ``data:image/jpeg`` source becomes an image, written to
    ``image_dir``. Scripts, styles and form controls are dropped. Unknown tags keep their text.
    """

    _INLINE: ClassVar[dict[str, type[nodes.Element]]] = {
        "b": nodes.strong, "strong": nodes.strong, "i": nodes.emphasis, "em": nodes.emphasis,
        "code": nodes.literal, "tt": nodes.literal, "kbd": nodes.literal, "sub": nodes.subscript,
        "sup": nodes.superscript,
    }  # fmt: skip
    _SKIP = frozenset(
        ["script", "style", "button", "input", "select", "option", "textarea", "svg", "head"]
    )
    _BLOCK = frozenset({
        "p", "div", "section", "figure", "figcaption", "h1", "h2", "h3", "h4", "h5", "h6",
        "blockquote", "center", "label", "pre", "details", "summary", "header", "footer",
    })  # fmt: skip
    _VOID = frozenset(["br", "img", "hr", "col", "input", "meta", "link", "wbr", "source", "area"])

    def __init__(self, image_dir: Path, image_prefix: str):
        super().__init__(convert_charrefs=True)
        self.image_dir, self.image_prefix = image_dir, image_prefix
        self.root = nodes.container()
        self.blocks = [self.root]  # open block containers (container, list item, table entry)
        self.inline: list[nodes.Element] = []  # open inline elements in the current paragraph
        self.para: nodes.paragraph | None = None
        self.skip = 0
        self.pre = 0
        self.lists: list[nodes.Element] = []
        self.table: dict | None = None
        self.images: list[nodes.image] = []

    # -- helpers
    def _close_para(self) -> None:
        if self.para is not None:
            text = self.para.astext()
            if not text.strip() and not any(self.para.findall(nodes.image)):
                self.para.parent.remove(self.para)
            self.para, self.inline = None, []

    def _target(self) -> nodes.Element:
        if self.para is None:
            self.para = nodes.paragraph()
            self.blocks[-1] += self.para
        return self.inline[-1] if self.inline else self.para

    def _image(self, attrs: dict) -> None:
        src = attrs.get("src") or ""
        match = re.match(r"data:image/(png|jpeg);base64,(.*)$", src, flags=re.DOTALL)
        if not match:
            alt = attrs.get("alt")
            if alt:
                self._target().append(nodes.Text(f"[{alt}]"))
            return
        data = base64.b64decode(match.group(2))
        ext = "png" if match.group(1) == "png" else "jpg"
        name = f"{self.image_prefix}{hashlib.sha256(data).hexdigest()[:20]}.{ext}"
        self.image_dir.mkdir(parents=True, exist_ok=True)
        (self.image_dir / name).write_bytes(data)
        uri = f"{self.image_dir.name}/{name}"
        image = nodes.image(uri=uri, candidates={"*": uri}, alt=attrs.get("alt", ""))
        self._close_para()
        self.blocks[-1] += image
        self.images.append(image)

    # -- parser callbacks
    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.skip or tag in self._SKIP:
            if tag not in self._VOID:
                self.skip += 1
            return
        if tag == "img":
            self._image(attrs)
        elif tag == "br":
            if self.pre:
                self._target().append(nodes.Text("\n"))
            else:
                self._close_para()
        elif tag in self._INLINE:
            node = self._INLINE[tag]()
            self._target().append(node)
            self.inline.append(node)
        elif tag == "a":
            node = nodes.reference(refuri=attrs["href"]) if attrs.get("href") else nodes.inline()
            if node.get("refuri", "").startswith(("http:", "https:", "mailto:")):
                self._target().append(node)
            else:
                node = nodes.inline()
                self._target().append(node)
            self.inline.append(node)
        elif tag in ("ul", "ol"):
            self._close_para()
            node = nodes.bullet_list() if tag == "ul" else nodes.enumerated_list()
            self.blocks[-1] += node
            self.lists.append(node)
        elif tag == "li":
            self._close_para()
            item = nodes.list_item()
            (self.lists[-1] if self.lists else self.blocks[-1]).append(item)
            self.blocks.append(item)
        elif tag == "table":
            self._close_para()
            self.table = {"widths": [], "head": [], "body": [], "section": "body"}
        elif self.table is not None and tag in ("thead", "tbody", "tfoot"):
            self.table["section"] = "head" if tag == "thead" else "body"
        elif self.table is not None and tag == "col":
            width = re.search(r"width:\s*([\d.]+)%", attrs.get("style", ""))
            self.table["widths"].append(float(width.group(1)) if width else None)
        elif self.table is not None and tag == "tr":
            self.table[self.table["section"]].append([])
        elif self.table is not None and tag in ("td", "th"):
            self._close_para()
            entry = nodes.entry()
            rows = self.table[self.table["section"]] or self.table["body"]
            if not rows:
                rows.append([])
            rows[-1].append(entry)
            self.blocks.append(entry)
        elif tag in self._BLOCK or tag == "hr":
            self._close_para()
            if tag == "pre":
                self.pre += 1
                self.para = nodes.literal_block()
                self.blocks[-1] += self.para

    def handle_endtag(self, tag):
        if self.skip:
            if tag in self._SKIP or tag not in self._VOID:
                self.skip -= 1
            return
        if tag in self._INLINE or tag == "a":
            if self.inline:
                self.inline.pop()
        elif tag in ("ul", "ol"):
            self._close_para()
            if self.lists:
                self.lists.pop()
        elif tag in ("li", "td", "th"):
            self._close_para()
            if len(self.blocks) > 1:
                self.blocks.pop()
        elif tag == "table" and self.table is not None:
            self._close_para()
            table = _table_node(self.table)
            table["qring_html"] = True  # widths from the HTML (or equal), not TableWidths
            # ragged-right columns (narrow justified columns leave gaps), a smaller font, and a
            # longtable, which may break across pages
            widths = [c["colwidth"] for c in table.findall(nodes.colspec)]
            total = sum(widths)
            spec = "".join(
                f">{{\\raggedright\\arraybackslash}}\\X{{{w}}}{{{total}}}" for w in widths
            )
            self.blocks[-1] += [
                _raw("\\begingroup\\small"),
                addnodes.tabular_col_spec(spec=spec),
                table,
                _raw("\\endgroup"),
            ]
            self.table = None
        elif tag in self._BLOCK:
            if tag == "pre":
                self.pre = max(self.pre - 1, 0)
            self._close_para()

    def handle_data(self, data):
        if self.skip:
            return
        if not self.pre:
            data = re.sub(r"\s+", " ", data)
            if self.para is None and not data.strip():
                return
            if self.para is not None and not self.para.children and not self.inline:
                data = data.lstrip()
        self._target().append(nodes.Text(data))


def _table_node(table: dict) -> nodes.table:
    rows = table["head"] + table["body"]
    ncols = max((len(r) for r in rows), default=0)
    widths = table["widths"] if len(table["widths"]) == ncols else [None] * ncols
    if any(w is None for w in widths):
        widths = []
    node = nodes.table(classes=["longtable", "colwidths-given"] if widths else ["longtable"])
    group = nodes.tgroup(cols=ncols)
    node += group
    for k in range(ncols):
        group += nodes.colspec(colwidth=round(widths[k]) if widths else 1)
    for part, part_rows in ((nodes.thead, table["head"]), (nodes.tbody, table["body"])):
        if not part_rows:
            continue
        section = part()
        for cells in part_rows:
            row = nodes.row()
            for entry in cells + [nodes.entry() for _ in range(ncols - len(cells))]:
                if not entry.children:
                    entry += nodes.paragraph()
                row += entry
            section += row
        group += section
    return node


def html_to_nodes(html: str, image_dir: Path, image_prefix: str = "") -> list[nodes.Node]:
    """The nodes of an HTML output; a lone image with text around it becomes a figure."""
    parser = _HTMLToNodes(image_dir, image_prefix)
    parser.feed(html)
    parser.close()
    parser._close_para()
    content = list(parser.root.children)
    for child in content:
        child.parent = None
    if len(parser.images) == 1 and not any(isinstance(c, nodes.table) for c in content):
        image = parser.images[0]
        texts = [c for c in content if isinstance(c, nodes.paragraph)]
        if texts and all(c is image or isinstance(c, nodes.paragraph) for c in content):
            figure = nodes.figure("", image.deepcopy(), align="center")
            # the caption is already set in bold: unwrap a <b> title
            inline = [c.deepcopy() for c in texts[0].children]
            if len(inline) == 1 and isinstance(inline[0], nodes.strong):
                inline = [c.deepcopy() for c in inline[0].children]
            caption = nodes.caption("", "", *inline)
            figure += caption
            if texts[1:]:
                figure += nodes.legend("", *[t.deepcopy() for t in texts[1:]])
            return [figure]
    return content


class HtmlOutputsForLatex(SphinxPostTransform):
    """Cell outputs: HTML converted to nodes where LaTeX would otherwise show plain text."""

    default_priority = 3  # before MyST-NB's SelectMimeType (4) picks one mime type per output
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        from myst_nb.core.render import get_mime_priority

        priority = get_mime_priority(self.app.builder.name, self.config.nb_mime_priority_overrides)
        image_dir = Path(self.app.outdir) / HTML_IMAGES
        for bundle in list(self.document.findall(_is_mime_bundle)):
            by_type = {child.get("mime_type"): child for child in bundle.children}
            html_child = by_type.get("text/html")
            if html_child is None:
                continue
            best = next((m for m in priority if m in by_type), None)
            if best not in (None, "text/plain"):
                continue  # a picture, LaTeX or Markdown is there: MyST-NB shows that
            html = "".join(raw.astext() for raw in html_child.findall(nodes.raw))
            converted = html_to_nodes(html, image_dir)
            if (
                not converted
                or not "".join(n.astext() for n in converted).strip()
                and not any(isinstance(n, (nodes.image, nodes.figure)) for n in converted)
            ):
                continue
            bundle.replace_self(converted)


class TryItForLatex(SphinxPostTransform):
    """The heading of a "Try it" prompt, in the PDF: "Try it" + :data:`WHERE_TO_TRY`."""

    default_priority = 5
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        for strong in list(self.document.findall(nodes.strong)):
            text = strong.astext()
            para = strong.parent  # MyST may put an empty text node before the strong one
            leads = isinstance(para, nodes.paragraph) and para.astext().startswith(text)
            if leads and text.startswith("Try it"):
                rest = text[len("Try it") :]  # "." or ": the attack playground."
                strong.replace_self(nodes.strong("", f"Try it {WHERE_TO_TRY}{rest}"))


def _is_mime_bundle(node) -> bool:
    return isinstance(node, nodes.container) and node.get("nb_element") == "mime_bundle"


# ---------------------------------------------------------------------------------------------
# Column widths of wide tables

# Width of the text block in characters of the text font (A4, Sphinx's margins, 10 pt DejaVu
# Serif: about 451 pt / 5.6 pt); only the ratios of the widths below matter otherwise.
_LINE_CHARS = 80
# Math macros that typeset nothing by themselves (spacing, delimiter sizing, fonts).
_MATH_SILENT = re.compile(
    r"\\(left|right|middle|[bB]igg?[lr]?|[,;:!]|quad|qquad|text\w*|math\w*|operatorname"
    r"|displaystyle|textstyle|limits|nolimits)(?![A-Za-z])"
)


_MATH_DELIMITED = {"ket": 2, "bra": 2, "braket": 3, "ketbra": 4, "proj": 4, "sqrt": 1}
_MATH_SPACED = re.compile(
    r"[=<>+\-]|\\(le|ge|leq|geq|ne|approx|pm|mp|cdot|times|to|in)(?![A-Za-z])"
)


def _math_chars(tex: str) -> int:
    """Rough width of a formula in characters of the text font.

    Each macro is one glyph (a bra-ket macro its delimiters), braces and script markers none,
    relations and binary operators one more for the space around them.
    """
    spaced = len(_MATH_SPACED.findall(tex))
    tex = _MATH_SILENT.sub("", tex)
    tex = re.sub(
        r"\\([A-Za-z]+)|\\.", lambda m: "x" * _MATH_DELIMITED.get(m.group(1) or "", 1), tex
    )
    return round(1.1 * (len(re.sub(r"[{}^_\s]", "", tex)) + spaced))


def _cell_widths(entry: nodes.Element) -> tuple[int, int]:
    """(longest unbreakable piece, whole content on one line) of a table cell, in characters."""
    longest, total = 0, 0

    def walk(node):
        nonlocal longest, total
        for child in node.children:
            if isinstance(child, nodes.math):
                width = _math_chars(child.astext())
                longest, total = max(longest, width), total + width + 1
            elif isinstance(child, nodes.literal):
                text = child.astext()
                longest, total = max(longest, min(len(text), 24)), total + len(text) + 1
            elif isinstance(child, nodes.Text):
                words = str(child).split()
                longest = max([longest, *map(len, words)])
                total += len(str(child))
            elif isinstance(child, nodes.Element):
                walk(child)

    walk(entry)
    return longest, total


class TableWidthsForLatex(SphinxPostTransform):
    """Wide tables: no column narrower than its longest word or formula.

    Without given widths Sphinx uses tabulary, which shares the width in proportion to each
    column's text on one line; a column of short formulas next to a column of sentences then
    gets too narrow and its formulas break across lines (the notation tables). For a table whose
    text does not fit on one line, each column gets at least its longest unbreakable piece (a
    word, a formula, a code name), and the rest of the width goes in proportion to what is left
    of each column's text; columns are set ragged right. Narrow tables keep tabulary.
    """

    default_priority = 800
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        for table in list(self.document.findall(nodes.table)):
            if "colwidths-given" in table["classes"] or table.get("qring_html"):
                continue
            group = next(iter(table.findall(nodes.tgroup)), None)
            if group is None:
                continue
            specs = [c for c in group.children if isinstance(c, nodes.colspec)]
            rows = list(group.findall(nodes.row))
            if not specs or any(len(row) != len(specs) for row in rows):
                continue  # spanning cells: leave the table to Sphinx
            widths = [[_cell_widths(entry) for entry in row] for row in rows]
            floor = [max(w[k][0] for w in widths) + 3 for k in range(len(specs))]
            natural = [max(w[k][1] for w in widths) + 3 for k in range(len(specs))]
            if sum(natural) <= _LINE_CHARS:
                continue
            spare = _LINE_CHARS - sum(floor)
            extra = [max(n - f, 0) for n, f in zip(natural, floor)]
            if spare > 0 and sum(extra):
                cols = [f + spare * e / sum(extra) for f, e in zip(floor, extra)]
            else:
                cols = floor
            cols = [max(1, round(100 * c / sum(cols))) for c in cols]
            for spec, width in zip(specs, cols):
                spec["colwidth"] = width
            table["classes"].append("colwidths-given")
            if len(rows) > 8:  # may not fit on what is left of a page: let it break
                table["classes"].append("longtable")
            colspec = "".join(
                f">{{\\raggedright\\arraybackslash}}\\X{{{w}}}{{{sum(cols)}}}" for w in cols
            )
            table.parent.insert(table.parent.index(table), addnodes.tabular_col_spec(spec=colspec))


# ---------------------------------------------------------------------------------------------
# Book structure: numbered chapters, solutions at the end


def _raw(latex: str) -> nodes.raw:
    return nodes.raw("", latex, format="latex")


def _chapter_files(document, docnames) -> list[addnodes.start_of_file]:
    """Top-level documents of the assembled book (their nested pages are sections).

    Found top down through ``children``: Sphinx's ``inline_all_toctrees`` moves a page's nodes
    into its ``start_of_file`` without updating their ``parent``, so walking up from a section
    page (``sections:`` in ``_toc.yml``, e.g. ``book/03_training``) would not meet its chapter.
    A part of ``_toc.yml`` (``parts:``) is a ``start_of_file`` too, named after its caption
    (sphinx-jupyterbook-latex), which is no document of the book: its pages are the chapters.
    """
    found: list[addnodes.start_of_file] = []

    def walk(node) -> None:
        for child in node.children:
            if isinstance(child, addnodes.start_of_file) and child["docname"] in docnames:
                found.append(child)  # its own nested pages are sections of this chapter
            elif isinstance(child, nodes.Element):
                walk(child)

    walk(document)
    return found


def _title(start: addnodes.start_of_file) -> str:
    section = next(start.findall(nodes.section), None)
    return section[0].astext() if section is not None and len(section) else start["docname"]


class BookStructure(SphinxPostTransform):
    """Chapter numbering and the solutions chapter, on the assembled one-document book."""

    default_priority = 800  # after the bibliography is gathered (Sphinx, 750)
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        if self.document.get("docname") != self.config.root_doc:
            return
        chapters = _chapter_files(self.document, self.env.all_docs)
        if not chapters:
            return
        self._open_root_chapter()
        number: dict[str, int] = {}
        for start in chapters:
            # numbered as in the HTML book: the chapters of a `numbered: true` part
            secnumber = self.env.toc_secnumbers.get(start["docname"], {}).get("")
            numbered = secnumber is not None and len(secnumber) == 1
            if numbered:
                number[start["docname"]] = len(number) + 1
            start.parent.insert(
                start.parent.index(start),
                _raw("\\qringnumbered" if numbered else "\\qringunnumbered"),
            )
        self._collect_solutions(chapters, number)

    def _open_root_chapter(self) -> None:
        """The root page (introduction) opens an unnumbered chapter with its own title.

        Sphinx uses the root page's title as the book's title and typesets the page's text
        right after the table of contents, without a heading (and with its running head).
        """
        from sphinx.util.texescape import escape

        section = next(self.document.findall(nodes.section), None)
        if section is None or not len(section) or not isinstance(section[0], nodes.title):
            return
        title = escape(section[0].astext())
        section.insert(1, _raw(f"\\qringunnumbered\\chapter{{{title}}}"))

    def _collect_solutions(self, chapters, number) -> None:
        from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node, solution_node

        registry = getattr(self.env, "sphinx_exercise_registry", {})
        solutions = list(self.document.findall(solution_node))
        if not solutions:
            return
        chapter_of = {}
        for start in chapters:
            for sol in start.findall(solution_node):
                chapter_of[id(sol)] = start
        exercises = {
            ex.get("label"): ex
            for ex in self.document.findall(
                lambda n: isinstance(n, (exercise_node, exercise_enumerable_node))
            )
        }
        part = addnodes.start_of_file(docname=SOLUTIONS_DOCNAME)
        chapter = nodes.section(ids=["qring-solutions"], names=["solutions to the exercises"])
        chapter += nodes.title("", SOLUTIONS_TITLE)
        chapter += nodes.paragraph(
            "",
            "The solutions of the exercises, chapter by chapter. The title of each solution "
            "links back to its exercise.",
        )
        part += chapter
        sections: dict[int, nodes.section] = {}
        for sol in solutions:
            start = chapter_of.get(id(sol))
            key = id(start)
            if key not in sections:
                docname = start["docname"] if start is not None else ""
                title = _title(start) if start is not None else "Other pages"
                if docname in number:
                    title = f"Chapter {number[docname]}: {title}"
                section = nodes.section(ids=[f"qring-solutions-{len(sections) + 1}"])
                section += nodes.title("", title)
                chapter += section
                sections[key] = section
            sol.parent.remove(sol)
            sections[key] += [_raw("\\qringkeep"), sol]
            title = next(iter(sol.findall(nodes.title)), None)
            if title is not None and sol.get("target_label") in exercises:
                title.insert(0, _raw(f"\\hyperref[exercise:{sol['target_label']}]{{"))
                title.append(_raw("}"))
            # a link from the exercise to the page of its solution
            exercise = exercises.get(sol.get("target_label"))
            entry = registry.get(sol.get("label"), {})
            if exercise is not None and exercise.parent is not None:
                exercise.parent.insert(exercise.parent.index(exercise), _raw("\\qringkeep"))
                label = f"{entry.get('docname', sol.get('docname'))}:{sol.get('label')}"
                link = (
                    f"\\par{{\\hfill\\small\\hyperref[{label}]{{\\sphinxstyleemphasis"
                    f"{{Solution on page~\\pageref*{{{label}}}}}}}}}\\par"
                )
                exercise.parent.insert(exercise.parent.index(exercise) + 1, _raw(link))
        # before the chapter that holds the bibliography, else at the end of the book
        bib_docs = _bibliography_docnames(self.env)
        anchor = next((c for c in chapters if c["docname"] in bib_docs), None)
        if anchor is not None:
            parent, index = anchor.parent, anchor.parent.index(anchor) - 1  # before its \qring...
            parent.insert(index, [_raw("\\qringunnumbered"), part])
        else:
            self.document += [_raw("\\qringunnumbered"), part]


class HtmlOnlyPages(SphinxPostTransform):
    """Leave the pages of ``qring_latex_exclude`` out of the PDF; links to them become text.

    A link into such a page (in the assembled book its ``refuri`` is ``%docname#anchor``) would
    point at a label the PDF does not have: it keeps its text (e.g. the function's name in code
    type) without the link.
    """

    default_priority = 790  # before BookStructure numbers the chapters
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        excluded = set(self.config.qring_latex_exclude)
        if not excluded or self.document.get("docname") != self.config.root_doc:
            return
        for start in list(self.document.findall(addnodes.start_of_file)):
            if start.get("docname") in excluded:
                start.parent.remove(start)
        prefixes = tuple(f"%{name}#" for name in excluded) + tuple(f"%{name}" for name in excluded)
        for ref in list(self.document.findall(nodes.reference)):
            uri = ref.get("refuri", "")
            if uri.startswith(prefixes) and ref.parent is not None:
                ref.replace_self(ref.children or [nodes.Text(ref.astext())])


class ProofsForLatex(SphinxPostTransform):
    """A proof as running text: "Proof." in italics, an end mark, no empty admonition box.

    sphinx-proof puts a proof into an admonition without a title, which LaTeX draws as a box
    with an empty title bar.
    """

    default_priority = 800
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        from sphinx_proof.nodes import proof_node

        for proof in list(self.document.findall(proof_node)):
            for box in [c for c in proof.children if isinstance(c, nodes.admonition)]:
                paragraphs = [c for c in box.children if isinstance(c, nodes.paragraph)]
                if paragraphs and paragraphs[0].children:
                    first = paragraphs[0][0]
                    if isinstance(first, nodes.Text) and first.startswith("Proof. "):
                        paragraphs[0].replace(first, nodes.Text(first[len("Proof.") :]))
                        paragraphs[0].insert(0, nodes.emphasis("", "Proof."))
                if box.children and isinstance(box[-1], nodes.paragraph):
                    box[-1] += _raw("\\hfill\\(\\square\\)")
                else:
                    box += nodes.paragraph("", "", _raw("\\hfill\\(\\square\\)"))
                box.replace_self(box.children)


class ExerciseTargetsForLatex(SphinxPostTransform):
    """Give every exercise the LaTeX target a ``{ref}`text <ex-label>``` from another page points
    at (``docname:label``): sphinx-exercise labels an exercise only ``exercise:label``, so such
    references (the instructor guide's) were undefined in the PDF."""

    default_priority = 805
    builders = ("latex",)

    def run(self, **kwargs) -> None:
        from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node

        def walk(node, docname):
            for child in list(node.children):
                if not isinstance(child, nodes.Element):
                    continue
                if isinstance(child, addnodes.start_of_file):
                    walk(child, child.get("docname", docname))
                    continue
                if isinstance(child, (exercise_node, exercise_enumerable_node)) and docname:
                    labels = [i for i in child.get("ids", []) + [child.get("label", "")] if i]
                    tex = "".join(
                        rf"\phantomsection\label{{\detokenize{{{docname}:{i}}}}}"
                        for i in dict.fromkeys(labels)
                    )
                    if tex:
                        child.parent.insert(child.parent.index(child), _raw(tex + "%\n"))
                walk(child, docname)

        walk(self.document, self.document.get("docname", ""))


def _bibliography_docnames(env) -> set[str]:
    try:
        domain = env.get_domain("cite")
    except ExtensionError:  # sphinxcontrib-bibtex not loaded
        return set()
    return {key.docname for key in getattr(domain, "bibliographies", {})}


def setup(app):
    # after sphinx-jupyterbook-latex (priority 500), which sets the LaTeX theme and preamble
    app.connect("config-inited", _configure_latex, priority=900)
    app.connect("builder-inited", _number_as_html, priority=900)
    app.add_post_transform(HtmlOutputsForLatex)
    app.add_config_value("qring_latex_exclude", [], "env", [list])
    app.add_post_transform(HtmlOnlyPages)
    app.add_post_transform(BookStructure)
    app.add_post_transform(ProofsForLatex)
    app.add_post_transform(TableWidthsForLatex)
    app.add_post_transform(ExerciseTargetsForLatex)
    app.add_post_transform(TryItForLatex)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
