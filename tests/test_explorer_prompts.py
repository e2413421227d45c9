"""Every widget's "Try it" prompt that the HTML book shows asks only for what its explorer can do.

In the HTML book a widget is an explorer: it moves only the controls of its grid
(:meth:`qring_edu.widgets.LiveFigure.explore`); the other controls stay at their default. So the
prompt the book shows, the ``**Try it`` paragraph in the visible markdown just before the
widget's code cell, may ask only for grid controls. Asks for the other controls go into a markdown
cell "In Jupyter or Colab you can also ..." tagged ``remove-cell``: Jupyter Book drops it from the
HTML and the PDF, the notebook keeps it.

How a prompt names a control is read from the widget itself: its description's words (``"buckets
B"`` -> "buckets") and its symbol written as math or bold (``$B$``, ``$B = 5$``, ``**B**``;
``$\\alpha$`` for ``"α (µs)"``), plus the prose synonyms of :data:`ALIASES` (``"word size"`` for a
``bits`` control). An *ask* is a clause that starts with an imperative (move, pick, type, ...) or
says "you can ..."/"if you ...". The test fails when an ask names a control outside the grid, or
when a widget has no Try-it paragraph or its asks name none of the grid's controls.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import nbformat
import pytest

import qring_edu.widgets as W

BOOK = Path(__file__).resolve().parents[1] / "book"
CHAPTERS = sorted(BOOK.glob("0*.ipynb"))
HIDDEN = "remove-cell"

#: Prose synonyms of controls, by control name (the description gives the rest).
ALIASES = {
    "workers": ["number of workers"],
    "bits": ["word size", "register size"],
    "alpha_us": ["latency"],
    "latency_us": ["latency"],
    "bandwidth_gbps": ["bandwidth", "link rate"],
    "qubit_cost": ["qubit's link time", "link time to twice"],
    "backward_fraction": ["backward"],
    "buckets": ["bucket"],
    "block_length": ["block"],
    "rounds": ["rounds"],
    "aer": ["tick the box", "Aer"],
    "probs": ["probabilit"],
    "efficiency": ["efficiency"],
    "pair_fidelity": ["fidelity"],
    "channel_fidelity": ["fidelity"],
    "noise": ["noise"],
    "attack": ["who applies"],
    "eavesdrop_fraction": ["eavesdropped fraction", "attacked fraction"],
    "inputs_a": ["two input sets", "both input sets", "first input set"],
    "inputs_b": ["second input set"],
    "entries": ["copies"],
    "trials": ["instances"],
    "confidence": ["family of bounds", "bounds"],
    "bound": ["bounds", "menu"],
    "model": ["model", "learner"],
    "preset": ["preset", "load"],
    "radius": ["Bloch length", "mixed states"],
    "tolerance": ["tolerance"],
    "n_symbols": ["symbols"],
    "basis": ["basis", "bases"],
    "alpha": ["coverage"],
}
#: Verbs that start an ask.
ASK_VERBS = (
    "move", "type", "change", "pick", "choose", "switch", "tick", "turn", "lower", "raise",
    "shrink", "push", "set", "add", "select", "load", "put", "shorten", "lengthen", "try",
    "drag", "increase", "decrease", "vary", "shift", "aim", "slide", "enter", "design",
)  # fmt: skip
_VERBS = "|".join(ASK_VERBS)
_ASK = re.compile(
    rf"^\W*(?:(?:and|or|then|now|also|first|next)\s+)*(?:{_VERBS})\b|\b(?:you\s+can|if\s+you)\b",
    re.I,
)
_GREEK = {
    "α": r"\alpha", "β": r"\beta", "δ": r"\delta", "ε": r"\varepsilon", "θ": r"\theta",
    "φ": r"\varphi", "τ": r"\tau",
}  # fmt: skip
_STOP = {"also", "run", "then", "per", "in", "of", "the", "both", "log₂"}


def _symbols(description: str) -> list[str]:
    """The control's symbols as LaTeX: the single letters and Greek letters of its description
    (``"θ1 (°)"`` -> ``\\theta_1``)."""
    out = []
    for token in re.sub(r"\([^)]*\)", " ", description).split():
        m = re.fullmatch(r"([A-Za-zαβδεθφτ])(\d?)", token)
        if m:
            base = _GREEK.get(m.group(1), m.group(1))
            out.append(base + (f"_{m.group(2)}" if m.group(2) else ""))
    return out


def _phrase(description: str) -> str:
    """The description's words without units, symbols and stop words at its ends."""
    words = [
        w
        for w in re.sub(r"\([^)]*\)|[×≤]", " ", description).split()
        if not re.fullmatch(r"[A-Za-zαβδεθφτ]\d?|\d+", w)
    ]
    while words and words[0].lower() in _STOP:
        words.pop(0)
    while words and words[-1].lower() in _STOP:
        words.pop()
    return " ".join(words)


def control_terms(name: str, control) -> list[re.Pattern]:
    """How the book's prose names one control (see the module docstring)."""
    terms = []
    phrase = _phrase(control.description or name)
    for text in ([phrase] if phrase else []) + ALIASES.get(name, []):
        terms.append(re.compile(r"(?<![\w\\])" + re.escape(text), re.I))
    for sym in _symbols(control.description or name):
        s = re.escape(sym)
        if sym.startswith("\\"):
            s += r"(?![A-Za-z])"
        if "_" in sym:  # \theta_1 or \theta_{1}
            s = re.escape(sym.split("_")[0]) + r"_\{?" + sym.split("_")[1] + r"\}?"
        bare = sym.split("_")[0]
        glyph = next((g for g, tex in _GREEK.items() if tex == bare), None)
        bold = re.escape(glyph or sym) if "_" not in sym else None
        math = rf"\$\s*{s}\s*(?:=[^$]*)?\$"
        terms.append(re.compile(math + (rf"|\*\*{bold}\*\*" if bold else "")))
    return terms


def asks(paragraph: str) -> list[str]:
    """The clauses of a paragraph that ask the reader to do something."""
    text = re.sub(r"\s+", " ", paragraph)
    text = re.sub(r"^\s*\*\*Try it[^*]*\*\*", "", text)  # the heading: "**Try it: ....**"
    # clauses: the parentheticals, then the rest cut at sentence ends, colons and semicolons
    inner = re.findall(r"\(([^()]*)\)", text)
    outer = re.split(r"(?<=[.;:!?])\s+", re.sub(r"\s*\([^()]*\)", "", text))
    return [p.strip() for p in outer + inner if _ASK.search(p)]


def _factory(name: str):
    """The widget factory ``name`` of one of the modules of :mod:`qring_edu.widgets`."""
    for info in pkgutil.iter_modules(W.__path__):
        module = importlib.import_module(f"{W.__name__}.{info.name}")
        if callable(getattr(module, name, None)):
            return getattr(module, name)
    raise LookupError(f"no widget factory {name!r} in qring_edu.widgets")


def widget_cells():
    """(chapter, index of the code cell, factory name, keyword arguments) of every widget: a cell
    that is one call of a ``*_widget`` factory, or one name bound earlier to such a call (the
    widget is built in one cell and shown in a later one)."""
    found = []
    for path in CHAPTERS:
        nb = nbformat.read(path, 4)
        bound = {}  # name -> (factory, kwargs) of `name = factory(...)` lines
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or HIDDEN in cell.metadata.get("tags", []):
                continue
            try:
                tree = ast.parse(cell.source)
            except SyntaxError:
                continue
            for node in tree.body:
                if isinstance(node, ast.Assign) and _widget_call(node.value):
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            bound[target.id] = _widget_call(node.value)
            body = tree.body
            if len(body) != 1 or not isinstance(body[0], ast.Expr):
                continue
            value = body[0].value
            shown = bound.get(value.id) if isinstance(value, ast.Name) else _widget_call(value)
            if shown:
                found.append((path.name, i, *shown))
    return found


def _widget_call(node):
    """``(name, kwargs)`` if ``node`` calls a ``*_widget`` factory by name, else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return None
    if not node.func.id.endswith("_widget"):
        return None
    return node.func.id, {k.arg: ast.literal_eval(k.value) for k in node.keywords}


def prompt(chapter: str, index: int) -> str:
    """The visible markdown from the last Try-it paragraph before the widget's cell to that cell
    (after the previous shown code cell; "" if there is none)."""
    nb = nbformat.read(BOOK / chapter, 4)
    texts = []
    for cell in reversed(nb.cells[:index]):
        if HIDDEN in cell.metadata.get("tags", []):
            continue
        if cell.cell_type == "code":
            break
        texts.insert(0, cell.source)
    paragraphs = re.split(r"\n\s*\n", "\n\n".join(texts))
    tried = [k for k, p in enumerate(paragraphs) if p.lstrip().startswith("**Try it")]
    return "\n\n".join(paragraphs[tried[-1] :]) if tried else ""


WIDGETS = widget_cells()


def test_every_chapter_widget_is_found():
    assert len(WIDGETS) >= 20
    assert {c for c, *_ in WIDGETS} >= {p.name for p in CHAPTERS} - {"06_vga_security.ipynb"}


@pytest.mark.parametrize(
    "chapter, index, name, kwargs",
    WIDGETS,
    ids=[f"{c[:2]}-{n}" for c, _, n, _ in WIDGETS],
)
def test_the_shown_prompt_asks_only_for_the_explorers_controls(chapter, index, name, kwargs):
    widget = _factory(name)(**kwargs)
    grid = {n for n, _ in widget.explorer.grid}
    terms = {n: control_terms(n, c) for n, c in widget.controls.items()}
    assert all(terms.values()), f"{name}: a control the prose cannot name: {terms}"
    text = prompt(chapter, index)
    assert text, f"{chapter} cell {index}: no **Try it** paragraph before {name}"
    clauses = asks(text)
    named = {n for n, pats in terms.items() for p in pats for clause in clauses if p.search(clause)}
    # a term that also names a grid control is not held against the prompt ("fidelity")
    moved_words = {p.pattern for n in grid for p in terms[n]}
    outside = {
        n
        for n in named - grid
        if any(p.pattern not in moved_words and any(p.search(c) for c in clauses) for p in terms[n])
    }
    assert not outside, (
        f"{chapter} cell {index} ({name}): the shown prompt asks for {sorted(outside)}, which "
        f"the explorer does not move (grid: {sorted(grid)}); put that ask into a markdown cell "
        f"tagged {HIDDEN!r} ('In Jupyter or Colab you can also ...'). Asks: {clauses}"
    )
    assert named & grid, f"{chapter} cell {index} ({name}): the prompt asks for no grid control"


def test_terms_recognise_the_ways_the_book_names_controls():
    """The matcher itself: symbols as math or bold, words of the description, synonyms."""
    w = W.overlap_widget()
    buckets = control_terms("buckets", w.controls["buckets"])
    assert any(p.search("change the number of buckets") for p in buckets)
    assert any(p.search("with $B = 5$") for p in buckets)
    assert not any(p.search("a formula $2(B-1)$") for p in buckets)
    latency = control_terms("latency_us", w.controls["latency_us"])
    assert any(p.search("the latency") for p in latency)
    assert any(p.search("set $\\alpha$") for p in latency)
    assert not any(p.search("set $\\alphax$") for p in latency)
    ring = W.ring_schedule_widget()
    assert any(
        p.search("Type a value of **d** smaller") for p in control_terms("d", ring.controls["d"])
    )
    assert asks("Move **P**. The ring shows it; type a value of **d** (for example 3).") == [
        "Move **P**.",
        "type a value of **d**.",
    ]
    assert asks("It pays $1/\\alpha$ (or $1/\\alpha^2$ if you switch the menu).") == [
        "or $1/\\alpha^2$ if you switch the menu"
    ]


def test_live_only_prompts_are_hidden_and_next_to_their_widget():
    """The "In Jupyter or Colab you can also ..." cells are tagged remove-cell (the book drops
    them) and come right before the widget they are about."""
    at = {(c, i) for c, i, *_ in WIDGETS}
    count = 0
    for path in CHAPTERS:
        nb = nbformat.read(path, 4)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "markdown" or not cell.source.startswith("In Jupyter or Colab"):
                continue
            count += 1
            assert HIDDEN in cell.metadata.get("tags", []), f"{path.name} cell {i} is shown"
            nxt = next(j for j in range(i + 1, len(nb.cells)) if nb.cells[j].cell_type == "code")
            assert (path.name, nxt) in at, f"{path.name} cell {i}: no widget follows it"
    assert count >= 14
